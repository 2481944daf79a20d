//! The auth guard's cache of verified sign-ins.
//!
//! Without it every signed-in request reads its token (or session) and user, the sign-in's
//! impersonation for a platform admin, and the user's memberships: on SQLite each statement is
//! a round trip to the connection's thread, on PostgreSQL across the network, and together they
//! were most of the cost of a small authenticated read (`scripts/bench-load`). A sign-in
//! verified recently is taken from here instead: the caller, the token's or session's expiry,
//! the impersonation and the memberships of the user the request acts as.
//!
//! **What it holds.** Only sign-ins that were valid when read, keyed by the SHA-256 of the
//! secret (never the secret) and the credential kind. An entry is used only while the token or
//! session has not expired, an impersonation it carries has not expired, and it is younger
//! than the TTL (`AUTH_CACHE_TTL_MS`, 5 s by default; 0 turns the cache off). At most
//! [`CAPACITY`] entries: past that, stale entries go first, then the oldest.
//!
//! **When it forgets.**
//! - *This process:* the repo functions that change what an entry holds (sign-out, token
//!   revocation, password change or reset, account deletion, user changes, memberships, roles,
//!   workspace modules and names, impersonation start and end) record an [`AuthChange`] that is
//!   published when their transaction commits, synchronously to every cache of the process
//!   (`shared::db::auth_changes`), before the request that made the change answers. A user
//!   change drops the entries of sign-ins by or acting as that user, a sign-in change that
//!   sign-in's, anything wider everything.
//! - *Other processes, PostgreSQL:* triggers (migration 24) notify the `auth_cache` channel when
//!   such a row changes, whoever changed it; each api listens (`PgListener` on a connection of
//!   its own) and forgets the same way, within milliseconds. While the listener is not
//!   connected the cache is not used, and on (re)connecting it is emptied (notices sent while
//!   it was away are lost).
//! - *Other processes, SQLite:* no channel; an entry lives at most the TTL, which is the bound
//!   on how late a change made by another process (an `api` CLI command, a second `api` on the
//!   same file) is seen.
//!
//! **Races.** A request that misses reads the database and then stores what it read; a
//! change published between its start and its store would be overwritten by the older read.
//! Every change bumps a generation number, and a store whose read began under an older
//! generation is dropped.

use super::{Caller, Via};
use shared::db::auth_changes::{self, AuthChange, AuthListener};
use shared::db::{Db, Id, Ts};
use shared::repo::impersonation::Impersonation;
use shared::repo::orgs::Membership;
use shared::repo::users::User;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The most sign-ins kept.
pub const CAPACITY: usize = 10_000;

/// Which credential a key was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A phone access token (`Authorization: Bearer sca_…`).
    Bearer,
    /// A web session (`sc_session` cookie).
    Session,
}

/// A cache key: the credential kind and the SHA-256 of its secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(Kind, [u8; 32]);

impl Key {
    pub fn new(kind: Kind, secret: &str) -> Key {
        use sha2::Digest;
        Key(kind, sha2::Sha256::digest(secret.as_bytes()).into())
    }
}

/// A verified sign-in and what the guard derives from it.
#[derive(Debug)]
pub struct SignIn {
    /// The signed-in user (the platform admin during an impersonation) and how.
    pub caller: Caller,
    /// When the token or session stops being valid.
    pub expires_at: Ts,
    /// The sign-in's active impersonation and its target (`None`: the target no longer exists).
    pub impersonation: Option<(Impersonation, Option<Arc<User>>)>,
    /// The memberships of the user the request acts as (the target during an impersonation).
    pub memberships: Arc<Vec<Membership>>,
}

impl SignIn {
    fn sign_in_id(&self) -> Id {
        match self.caller.via {
            Via::Session { session_id } => session_id,
            Via::Bearer { family_id } => family_id,
        }
    }

    fn involves(&self, user: Id) -> bool {
        self.caller.user.id == user
            || self
                .impersonation
                .as_ref()
                .is_some_and(|(i, _)| i.target_user_id == user)
    }

    /// Still valid by its own dates.
    pub fn valid_at(&self, now: Ts) -> bool {
        self.expires_at > now
            && self
                .impersonation
                .as_ref()
                .is_none_or(|(i, _)| i.expires_at > now)
    }
}

struct Entry {
    sign_in: Arc<SignIn>,
    loaded: Instant,
    /// Store order, for evicting the oldest.
    seq: u64,
}

struct State {
    generation: u64,
    next_seq: u64,
    map: HashMap<Key, Entry>,
}

struct Shared {
    ttl: Duration,
    /// False while PostgreSQL's notice channel is down (or the cache is off): no gets, no stores.
    active: AtomicBool,
    state: Mutex<State>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Shared {
    fn new(ttl: Duration, active: bool) -> Shared {
        Shared {
            ttl,
            active: AtomicBool::new(active),
            state: Mutex::new(State {
                generation: 0,
                next_seq: 0,
                map: HashMap::new(),
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets everything and starts a new generation; `active` says whether to use the cache
    /// from now on.
    fn reset(&self, active: bool) {
        let mut st = self.lock();
        st.generation += 1;
        st.map.clear();
        self.active.store(active, Ordering::SeqCst);
    }
}

impl AuthListener for Shared {
    fn auth_changed(&self, change: AuthChange) {
        let mut st = self.lock();
        st.generation += 1;
        match change {
            AuthChange::All => st.map.clear(),
            AuthChange::User(user) => st.map.retain(|_, e| !e.sign_in.involves(user)),
            AuthChange::SignIn(id) => st.map.retain(|_, e| e.sign_in.sign_in_id() != id),
        }
    }
}

/// Counters for tests and diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    pub hits: u64,
    pub misses: u64,
    pub entries: usize,
}

/// The cache of one [`AppState`](crate::state::AppState).
pub struct AuthCache {
    shared: Arc<Shared>,
    listener: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for AuthCache {
    fn drop(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
    }
}

impl AuthCache {
    /// A cache trusting entries for `ttl` (zero: off). It hears this process's changes unless
    /// `isolated` (tests that stand in for a second process), and on PostgreSQL starts the
    /// listener of the `auth_cache` channel. Call within a tokio runtime.
    pub fn start(ttl: Duration, db: &Db, isolated: bool) -> AuthCache {
        let on = !ttl.is_zero();
        let shared = Arc::new(Shared::new(ttl, on && matches!(db, Db::Sqlite(..))));
        if on && !isolated {
            let l: Arc<dyn AuthListener> = shared.clone();
            auth_changes::subscribe(&l);
        }
        let listener = match db {
            Db::Pg(pool) if on => Some(tokio::spawn(listen(
                Arc::downgrade(&shared),
                (*pool.connect_options()).clone(),
            ))),
            _ => None,
        };
        AuthCache { shared, listener }
    }

    /// Whether the cache is in use now (on PostgreSQL: once the listener is connected).
    pub fn is_active(&self) -> bool {
        self.shared.active.load(Ordering::SeqCst)
    }

    /// The entry for `key` when it is fresh and still valid. On a miss, the generation to pass
    /// to [`AuthCache::store`] (read before the database is).
    pub fn get(&self, key: &Key) -> Result<Arc<SignIn>, Option<u64>> {
        if !self.is_active() {
            return Err(None);
        }
        let st = self.shared.lock();
        if let Some(e) = st.map.get(key)
            && e.loaded.elapsed() < self.shared.ttl
            && e.sign_in.valid_at(Ts::now())
        {
            self.shared.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(e.sign_in.clone());
        }
        self.shared.misses.fetch_add(1, Ordering::Relaxed);
        Err(Some(st.generation))
    }

    /// Keeps what a miss read, unless something changed since `generation`.
    pub fn store(&self, key: Key, sign_in: Arc<SignIn>, generation: u64) {
        if !self.is_active() {
            return;
        }
        let mut st = self.shared.lock();
        if st.generation != generation {
            return;
        }
        if st.map.len() >= CAPACITY && !st.map.contains_key(&key) {
            let ttl = self.shared.ttl;
            let now = Ts::now();
            st.map
                .retain(|_, e| e.loaded.elapsed() < ttl && e.sign_in.valid_at(now));
            let oldest = st.map.iter().min_by_key(|(_, e)| e.seq).map(|(k, _)| *k);
            if st.map.len() >= CAPACITY
                && let Some(oldest) = oldest
            {
                st.map.remove(&oldest);
            }
        }
        st.next_seq += 1;
        let seq = st.next_seq;
        st.map.insert(
            key,
            Entry {
                sign_in,
                loaded: Instant::now(),
                seq,
            },
        );
    }

    pub fn stats(&self) -> Stats {
        Stats {
            hits: self.shared.hits.load(Ordering::Relaxed),
            misses: self.shared.misses.load(Ordering::Relaxed),
            entries: self.shared.lock().map.len(),
        }
    }
}

/// Listens on the `auth_cache` channel on a connection of its own (not one of the pool's).
/// The cache is used only while it listens: a lost connection turns it off at once (before
/// any reconnection attempt, which may wait for a database that is down), and it is emptied
/// and turned on again once listening anew.
async fn listen(cache: Weak<Shared>, opts: sqlx::postgres::PgConnectOptions) {
    use sqlx::postgres::{PgListener, PgPoolOptions};
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy_with(opts);
    let pause = Duration::from_millis(500);
    loop {
        let listener = match PgListener::connect_with(&pool).await {
            Ok(mut l) => {
                l.eager_reconnect(false);
                match l.listen(auth_changes::CHANNEL).await {
                    Ok(()) => Some(l),
                    Err(_) => None,
                }
            }
            Err(_) => None,
        };
        if let Some(mut listener) = listener {
            // Listening from here on: whatever changed before is unknown, so start empty.
            match cache.upgrade() {
                Some(c) => c.reset(true),
                None => return,
            }
            loop {
                let got = listener.try_recv().await;
                let Some(c) = cache.upgrade() else { return };
                match got {
                    Ok(Some(n)) => c.auth_changed(AuthChange::parse(n.payload())),
                    // `Ok(None)`: the connection was lost; notices may be lost with it.
                    Ok(None) | Err(_) => {
                        c.reset(false);
                        tracing::warn!("auth cache: lost the notice channel; off until it is back");
                        break;
                    }
                }
            }
        }
        if cache.strong_count() == 0 {
            return;
        }
        tokio::time::sleep(pause).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> User {
        User {
            id: Id::new(),
            email: "a@example.com".into(),
            password_hash: None,
            name: "A".into(),
            email_verified_at: None,
            is_platform_admin: false,
            default_org_id: None,
            created_at: Ts::now(),
            updated_at: Ts::now(),
        }
    }

    fn sign_in(user: User) -> Arc<SignIn> {
        Arc::new(SignIn {
            caller: Caller {
                user: Arc::new(user),
                via: Via::Bearer {
                    family_id: Id::new(),
                },
                impersonator: None,
            },
            expires_at: Ts::now().plus(chrono::Duration::hours(1)),
            impersonation: None,
            memberships: Arc::new(Vec::new()),
        })
    }

    fn sqlite_cache(ttl: Duration) -> AuthCache {
        let shared = Arc::new(Shared::new(ttl, true));
        AuthCache {
            shared,
            listener: None,
        }
    }

    #[test]
    fn keys_hash_the_secret_and_keep_the_kind_apart() {
        let a = Key::new(Kind::Bearer, "sca_secret");
        assert_eq!(a, Key::new(Kind::Bearer, "sca_secret"));
        assert_ne!(a, Key::new(Kind::Session, "sca_secret"));
        assert_ne!(a, Key::new(Kind::Bearer, "sca_other"));
    }

    #[test]
    fn a_store_after_a_change_is_dropped_and_changes_forget_what_they_touch() {
        let c = sqlite_cache(Duration::from_secs(60));
        let (k1, k2) = (Key::new(Kind::Bearer, "1"), Key::new(Kind::Bearer, "2"));
        let (u1, u2) = (user(), user());
        let u1_id = u1.id;
        let (s1, s2) = (sign_in(u1), sign_in(u2));
        let g = c.get(&k1).unwrap_err().unwrap();
        c.shared.auth_changed(AuthChange::User(Id::new()));
        c.store(k1, s1.clone(), g);
        assert!(
            c.get(&k1).is_err(),
            "a read older than a change is not kept"
        );
        let g = c.get(&k1).unwrap_err().unwrap();
        c.store(k1, s1.clone(), g);
        c.store(k2, s2.clone(), g);
        assert!(c.get(&k1).is_ok() && c.get(&k2).is_ok());
        c.shared.auth_changed(AuthChange::User(u1_id));
        assert!(c.get(&k1).is_err(), "the user's sign-ins are forgotten");
        assert!(c.get(&k2).is_ok(), "others are kept");
        c.shared.auth_changed(AuthChange::SignIn(s2.sign_in_id()));
        assert!(c.get(&k2).is_err(), "an ended sign-in is forgotten");
        let g = c.get(&k1).unwrap_err().unwrap();
        c.store(k1, s1, g);
        c.shared.auth_changed(AuthChange::All);
        assert_eq!(c.stats().entries, 0);
    }

    #[test]
    fn entries_expire_with_the_ttl_and_with_the_token() {
        let c = sqlite_cache(Duration::from_millis(30));
        let k = Key::new(Kind::Bearer, "1");
        let g = c.get(&k).unwrap_err().unwrap();
        c.store(k, sign_in(user()), g);
        assert!(c.get(&k).is_ok());
        std::thread::sleep(Duration::from_millis(40));
        assert!(c.get(&k).is_err(), "older than the TTL");
        let c = sqlite_cache(Duration::from_secs(60));
        let mut s = sign_in(user());
        Arc::get_mut(&mut s).unwrap().expires_at = Ts::now().minus(chrono::Duration::seconds(1));
        let g = c.get(&k).unwrap_err().unwrap();
        c.store(k, s, g);
        assert!(c.get(&k).is_err(), "an expired token is not served");
    }

    #[test]
    fn the_cache_holds_at_most_its_capacity() {
        let c = sqlite_cache(Duration::from_secs(60));
        let first = Key::new(Kind::Bearer, "0");
        for i in 0..=CAPACITY {
            let k = Key::new(Kind::Bearer, &i.to_string());
            let g = c.get(&k).unwrap_err().unwrap();
            c.store(k, sign_in(user()), g);
        }
        assert_eq!(c.stats().entries, CAPACITY);
        assert!(c.get(&first).is_err(), "the oldest went first");
    }
}
