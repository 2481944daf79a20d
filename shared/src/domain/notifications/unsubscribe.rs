//! One-click unsubscribe (RFC 8058). Notification mail carries a link with a signed token
//! ([`link`]); the mail client POSTs to it and the user is unsubscribed from that category of
//! email with no further step ([`unsubscribe`]). Reading the link's state ([`state`]) changes
//! nothing: link scanners follow GETs and must not unsubscribe anyone.

use super::Channel;
use crate::crypto::Keys;
use crate::db::{Db, Id};
use crate::error::{Error, Result};
use crate::repo::notifications;

/// The route the unsubscribe links point to.
pub const PATH: &str = "/api/notifications/unsubscribe";

/// The unsubscribe URL for `user` and `category`, under `public_base_url`.
pub fn link(keys: &Keys, public_base_url: &str, user: Id, category: &str) -> String {
    let token = crate::unsubscribe::token(keys, user, category);
    format!(
        "{}{PATH}?token={token}",
        public_base_url.trim_end_matches('/')
    )
}

/// The page a person opens from the mail's text (`/unsubscribe?token=…`): it describes what
/// the link does and unsubscribes on its button. The `List-Unsubscribe` header keeps [`link`],
/// the API route that mail clients post to.
pub const PAGE_PATH: &str = "/unsubscribe";

/// The unsubscribe page's URL for `user` and `category`, under `public_base_url`.
pub fn page_link(keys: &Keys, public_base_url: &str, user: Id, category: &str) -> String {
    let token = crate::unsubscribe::token(keys, user, category);
    format!(
        "{}{PAGE_PATH}?token={token}",
        public_base_url.trim_end_matches('/')
    )
}

/// Where a token's user stands for its category of email.
pub struct Subscription {
    pub category: String,
    pub unsubscribed: bool,
}

/// The user and category of a valid token (401 `invalid_token` otherwise).
fn verify(keys: &Keys, token: Option<&str>) -> Result<(Id, String)> {
    token
        .and_then(|t| crate::unsubscribe::verify(keys, t))
        .ok_or_else(|| Error::unauthorized("invalid_token", "the unsubscribe link is not valid"))
}

/// Whether the token's user is unsubscribed from its category of email.
pub async fn state(db: &Db, keys: &Keys, token: Option<&str>) -> Result<Subscription> {
    let (user, category) = verify(keys, token)?;
    let mut c = db.acquire().await?;
    let unsubscribed =
        notifications::is_unsubscribed(&mut c, user, Channel::Email, &category).await?;
    Ok(Subscription {
        category,
        unsubscribed,
    })
}

/// Unsubscribes the token's user from its category of email; the token is the whole
/// credential. Repeats answer the same.
pub async fn unsubscribe(db: &Db, keys: &Keys, token: Option<&str>) -> Result<Subscription> {
    let (user, category) = verify(keys, token)?;
    let mut c = db.acquire().await?;
    notifications::unsubscribe(&mut c, user, Channel::Email, &category, "one-click").await?;
    Ok(Subscription {
        category,
        unsubscribed: true,
    })
}
