//! In-process notices that what the api's auth guard resolves has changed: a sign-in ended, a
//! user's row or memberships changed, a role, workspace or impersonation changed.
//!
//! The repo functions that make such a change record it on their executor
//! ([`Executor::auth_changed`](super::Executor::auth_changed)): on a pooled connection the
//! statement has already committed, so it is published at once; in a transaction it is
//! published when the transaction commits (never before: a reader that loaded the old rows
//! before the commit could otherwise cache them again after the notice). Every listener of the
//! process hears it synchronously, before `commit` returns, so the next request of this
//! process sees the change. Other processes learn of it through the database (PostgreSQL:
//! triggers and LISTEN/NOTIFY on the `auth_cache` channel, migration 24) or their cache's TTL.

use super::Id;
use std::sync::{Arc, RwLock, Weak};

/// The PostgreSQL channel the migration-24 triggers notify.
pub const CHANNEL: &str = "auth_cache";

/// What changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthChange {
    /// The user's row, memberships, or all of their sign-ins.
    User(Id),
    /// One sign-in: a web session (its id) or a phone sign-in (its token family id).
    SignIn(Id),
    /// Anything wider (a role, a workspace, an impersonation): drop everything.
    All,
}

impl AuthChange {
    /// Reads a notification payload of the `auth_cache` channel (`u:<id>`, `s:<id>`, `*`).
    /// Anything unreadable is taken as [`AuthChange::All`]: dropping too much is safe.
    pub fn parse(payload: &str) -> AuthChange {
        let id = |s: &str| s.parse::<Id>().ok();
        match payload.split_once(':') {
            Some(("u", s)) => id(s).map_or(AuthChange::All, AuthChange::User),
            Some(("s", s)) => id(s).map_or(AuthChange::All, AuthChange::SignIn),
            _ => AuthChange::All,
        }
    }
}

/// Something that keeps state derived from the auth tables (the api's auth cache).
pub trait AuthListener: Send + Sync {
    fn auth_changed(&self, change: AuthChange);
}

static LISTENERS: RwLock<Vec<Weak<dyn AuthListener>>> = RwLock::new(Vec::new());

/// Registers `listener` for every change published in this process, for as long as it lives
/// (the registry keeps a weak reference).
pub fn subscribe(listener: &Arc<dyn AuthListener>) {
    let mut all = LISTENERS.write().unwrap_or_else(|e| e.into_inner());
    all.retain(|l| l.strong_count() > 0);
    all.push(Arc::downgrade(listener));
}

/// Tells every live listener of this process, synchronously.
pub fn publish(change: AuthChange) {
    let all = LISTENERS.read().unwrap_or_else(|e| e.into_inner());
    for l in all.iter() {
        if let Some(l) = l.upgrade() {
            l.auth_changed(change);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn payloads_parse_and_unreadable_ones_mean_everything() {
        let id = Id::new();
        assert_eq!(AuthChange::parse(&format!("u:{id}")), AuthChange::User(id));
        assert_eq!(
            AuthChange::parse(&format!("s:{id}")),
            AuthChange::SignIn(id)
        );
        assert_eq!(AuthChange::parse("*"), AuthChange::All);
        assert_eq!(AuthChange::parse("u:not-a-uuid"), AuthChange::All);
        assert_eq!(AuthChange::parse("x:y"), AuthChange::All);
    }

    struct Recorder(Mutex<Vec<AuthChange>>);
    impl AuthListener for Recorder {
        fn auth_changed(&self, change: AuthChange) {
            self.0.lock().unwrap().push(change);
        }
    }

    #[test]
    fn live_listeners_hear_every_change_published_after_they_subscribed() {
        let id = Id::new();
        publish(AuthChange::All);
        let a = Arc::new(Recorder(Mutex::new(Vec::new())));
        let dyn_a: Arc<dyn AuthListener> = a.clone();
        subscribe(&dyn_a);
        publish(AuthChange::SignIn(id));
        publish(AuthChange::User(id));
        assert_eq!(
            *a.0.lock().unwrap(),
            vec![AuthChange::SignIn(id), AuthChange::User(id)]
        );
        drop((a, dyn_a));
        // A dropped listener is skipped, then forgotten at the next subscription.
        publish(AuthChange::All);
        let b: Arc<dyn AuthListener> = Arc::new(Recorder(Mutex::new(Vec::new())));
        subscribe(&b);
        assert_eq!(LISTENERS.read().unwrap().len(), 1);
    }
}
