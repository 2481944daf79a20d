//! One-click unsubscribe tokens (RFC 8058 links in notification mail): the user and the
//! category, signed with the service key. They do not expire: an unsubscribe link in an old
//! mail must keep working.

use crate::crypto::Keys;
use crate::db::Id;

const PURPOSE: &str = "unsubscribe";

fn message(user: Id, category: &str) -> String {
    format!("{user}\n{category}")
}

/// `<user>.<category>.<signature>`; categories are `[a-z0-9_-]`, so the dots are unambiguous.
pub fn token(keys: &Keys, user: Id, category: &str) -> String {
    let sig = keys.sign(PURPOSE, message(user, category).as_bytes());
    format!("{user}.{category}.{sig}")
}

/// The user and category of a valid token.
pub fn verify(keys: &Keys, token: &str) -> Option<(Id, String)> {
    let mut parts = token.splitn(3, '.');
    let user_text = parts.next()?;
    let user: Id = user_text.parse().ok()?;
    // One spelling per token: the id as written (lower-case, hyphenated), not any of the
    // others `Uuid` also reads.
    if user.to_string() != user_text {
        return None;
    }
    let category = parts.next()?;
    let sig = parts.next()?;
    keys.verify(PURPOSE, message(user, category).as_bytes(), sig)
        .then(|| (user, category.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_and_a_changed_one_does_not() {
        let keys = Keys::new(b"k");
        let user = Id::new();
        let t = token(&keys, user, "message");
        assert_eq!(verify(&keys, &t), Some((user, "message".into())));
        let forged = t.replacen("message", "all", 1);
        assert_eq!(verify(&keys, &forged), None);
        assert_eq!(verify(&Keys::new(b"other"), &t), None);
        assert_eq!(verify(&keys, "garbage"), None);
    }
}
