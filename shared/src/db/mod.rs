//! One code path over two databases.
//!
//! `Db` holds a concrete pool for whichever database `DATABASE_URL` names. Queries are written
//! once and run through the [`sql!`](crate::sql) macro, which pastes the same body into a
//! SQLite arm and a PostgreSQL arm, so the body sees a concrete connection type and sqlx's
//! native codecs (the `Any` driver cannot decode UUIDs, times or booleans on both). Handlers
//! never branch on the database; only the migrations differ per dialect.

pub mod auth_changes;
pub mod group_commit;
mod migrations;
mod text_enum;
pub mod types;

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgConnection, Postgres, Sqlite, SqliteConnection, Transaction};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use auth_changes::AuthChange;
pub use text_enum::{TextEnum, UnknownValue, text_enum_schema};
pub use types::{Id, Ts};

#[derive(Clone, Debug)]
pub enum Db {
    /// The pool and the process's write gate (see [`Db::begin`]).
    Sqlite(sqlx::SqlitePool, Arc<Semaphore>),
    Pg(sqlx::PgPool),
}

/// Which dialect a pool speaks; used only by code that must differ (migrations, diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A borrowed connection of either dialect: what a query body runs on.
pub enum DbConn<'a> {
    Sqlite(&'a mut SqliteConnection),
    Pg(&'a mut PgConnection),
}

/// Anything a query can run on: a pooled connection or an open transaction.
/// Query functions take `&mut impl Executor` so the caller decides about transactions.
pub trait Executor: Send {
    fn conn(&mut self) -> DbConn<'_>;
    /// Records that this executor's writes change what the api's auth guard resolves (see
    /// [`auth_changes`]): published at once on a connection (its statement has committed), at
    /// commit in a transaction. Repo functions that write the auth tables call it after their
    /// statement.
    fn auth_changed(&mut self, change: AuthChange);
}

/// A pooled connection, for reads and single statements outside a transaction.
pub enum Conn {
    Sqlite(PoolConnection<Sqlite>),
    Pg(PoolConnection<Postgres>),
}

/// An open transaction; dropped without `commit` it rolls back.
pub struct Tx {
    inner: TxInner,
    /// Published when the transaction commits ([`Executor::auth_changed`]).
    auth_changes: Vec<AuthChange>,
}

enum TxInner {
    /// Holds the write gate until committed or dropped (fields drop in order: the transaction
    /// ends before the next writer is let in).
    Sqlite(Transaction<'static, Sqlite>, OwnedSemaphorePermit),
    Pg(Transaction<'static, Postgres>),
}

impl Executor for Conn {
    fn conn(&mut self) -> DbConn<'_> {
        match self {
            Conn::Sqlite(c) => DbConn::Sqlite(c),
            Conn::Pg(c) => DbConn::Pg(c),
        }
    }

    fn auth_changed(&mut self, change: AuthChange) {
        auth_changes::publish(change);
    }
}

impl Executor for Tx {
    fn conn(&mut self) -> DbConn<'_> {
        match &mut self.inner {
            TxInner::Sqlite(t, _) => DbConn::Sqlite(t),
            TxInner::Pg(t) => DbConn::Pg(t),
        }
    }

    fn auth_changed(&mut self, change: AuthChange) {
        if !self.auth_changes.contains(&change) {
            self.auth_changes.push(change);
        }
    }
}

impl Tx {
    fn new(inner: TxInner) -> Tx {
        Tx {
            inner,
            auth_changes: Vec::new(),
        }
    }

    /// Commits, then publishes the auth changes recorded in it. They are published also when
    /// the commit reports an error (it may have committed all the same; a needless notice only
    /// costs a cache miss).
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        let r = match self.inner {
            TxInner::Sqlite(t, _gate) => t.commit().await,
            TxInner::Pg(t) => t.commit().await,
        };
        for c in self.auth_changes {
            auth_changes::publish(c);
        }
        r
    }

    /// Rolls back and waits for it. Dropping a transaction also rolls it back, but without
    /// waiting: the SQLite write gate may let the next writer in before the rollback ran (that
    /// writer then meets the busy handler). A writer that goes on writing after a failure
    /// rolls back with this first.
    pub async fn rollback(self) -> Result<(), sqlx::Error> {
        match self.inner {
            TxInner::Sqlite(t, _gate) => t.rollback().await,
            TxInner::Pg(t) => t.rollback().await,
        }
    }
}

/// Runs `$body` with `$c` bound to a `&mut SqliteConnection` or `&mut PgConnection`.
///
/// ```ignore
/// let user: Option<User> = sql!(exec, c => sqlx::query_as("SELECT ... WHERE id = $1")
///     .bind(id).fetch_optional(&mut *c).await)?;
/// ```
#[macro_export]
macro_rules! sql {
    ($exec:expr, $c:ident => $body:expr) => {
        match $crate::db::Executor::conn($exec) {
            $crate::db::DbConn::Sqlite($c) => $body,
            $crate::db::DbConn::Pg($c) => $body,
        }
    };
}

/// Runs a statement built by `$query` (pasted into both arms) and returns rows affected.
///
/// ```ignore
/// let n = execute!(exec, sqlx::query("DELETE FROM t WHERE id = $1").bind(id))?;
/// ```
#[macro_export]
macro_rules! execute {
    ($exec:expr, $query:expr) => {
        match $crate::db::Executor::conn($exec) {
            $crate::db::DbConn::Sqlite(c) => {
                $query.execute(&mut *c).await.map(|r| r.rows_affected())
            }
            $crate::db::DbConn::Pg(c) => $query.execute(&mut *c).await.map(|r| r.rows_affected()),
        }
    };
}

/// What every PostgreSQL session of ours bounds on the server, so that nothing a process
/// holds there outlives it by more than a worker's lease (15 s by default: heartbeat × misses).
/// The server cannot tell a client that vanished (a partitioned worker, a killed host) from a
/// slow one: without these, its open transaction, and the locks in it, stay until TCP gives
/// up after about two hours, and block every healthy worker that needs them.
///
/// - `idle_in_transaction_session_timeout`: a transaction left waiting on its client ends.
/// - `tcp_keepalives_*` and `tcp_user_timeout` (the server's side of the session's socket):
///   a peer that stops answering is dropped within about 10 s, also mid-result.
/// - `lock_timeout`: a lock waited for longer fails the statement (a job retries it) instead of
///   holding a pooled connection hostage.
/// - `statement_timeout`: no query runs away with a connection.
///
/// Migrations lift the last two on their own connection (`migrations::run`).
pub const PG_SESSION: &[(&str, &str)] = &[
    ("idle_in_transaction_session_timeout", "10s"),
    ("lock_timeout", "10s"),
    ("statement_timeout", "60s"),
    ("tcp_keepalives_idle", "5"),
    ("tcp_keepalives_interval", "2"),
    ("tcp_keepalives_count", "3"),
    ("tcp_user_timeout", "10000"),
];

/// How long a transaction waits at SQLite's write gate: the busy_timeout it replaces.
const WRITE_GATE_TIMEOUT: Duration = Duration::from_secs(10);

/// Options that matter for correctness under concurrent writers.
#[derive(Clone, Debug)]
pub struct PoolSettings {
    pub max_connections: u32,
    pub acquire_timeout: Duration,
    /// PostgreSQL only: the schema to put first on the search path (tests use one per test).
    pub pg_schema: Option<String>,
    /// SQLite only: queue this process's transactions at the write gate (see [`Db::begin`]).
    /// Always on in the service; `bench_webhook` turns it off for its side-by-side row.
    pub sqlite_write_gate: bool,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            pg_schema: None,
            sqlite_write_gate: true,
        }
    }
}

impl Db {
    /// Connects to `url` (`sqlite:` or `postgres:`/`postgresql:`).
    pub async fn connect(url: &str, settings: &PoolSettings) -> Result<Db, sqlx::Error> {
        if url.starts_with("sqlite:") {
            // WAL lets readers run beside the writer; busy_timeout makes a second writer wait
            // for the lock instead of failing with "database is locked".
            let opts = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            // No ping before each acquire: a connection to a local file does not go stale from
            // outside, and sqlx already pings every connection when it comes back to the pool
            // (which catches one left mid-statement by a cancelled request). The ping was one of
            // the round trips to the connection's thread every request paid for each acquire
            // (`scripts/bench-load`). PostgreSQL keeps it: a server restart leaves dead
            // connections in the pool.
            let pool = SqlitePoolOptions::new()
                .test_before_acquire(false)
                .max_connections(settings.max_connections)
                .acquire_timeout(settings.acquire_timeout)
                .connect_with(opts)
                .await?;
            let writers = if settings.sqlite_write_gate {
                1
            } else {
                Semaphore::MAX_PERMITS
            };
            Ok(Db::Sqlite(pool, Arc::new(Semaphore::new(writers))))
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let mut opts = PgConnectOptions::from_str(url)?.options(PG_SESSION.iter().copied());
            if let Some(schema) = &settings.pg_schema {
                opts = opts.options([("search_path", schema.as_str())]);
            }
            let pool = PgPoolOptions::new()
                .max_connections(settings.max_connections)
                .acquire_timeout(settings.acquire_timeout)
                .connect_with(opts)
                .await?;
            Ok(Db::Pg(pool))
        } else {
            Err(sqlx::Error::Configuration(
                "DATABASE_URL must start with sqlite: or postgres:".into(),
            ))
        }
    }

    /// A small pool beside this one, to the same database with the same options, for the
    /// work that says a process is alive (a worker's heartbeats and its LISTEN sessions): with
    /// connections of its own, a worker whose jobs hold every pooled connection (slow, or
    /// waiting on a lock) still heartbeats, so no other worker presumes it dead and runs its
    /// jobs a second time. Connects lazily. SQLite has nothing to partition: the same pool.
    pub fn liveness_pool(&self, max_connections: u32) -> Db {
        match self {
            Db::Sqlite(..) => self.clone(),
            Db::Pg(p) => Db::Pg(
                PgPoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect_lazy_with((*p.connect_options()).clone()),
            ),
        }
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(..) => Dialect::Sqlite,
            Db::Pg(_) => Dialect::Postgres,
        }
    }

    pub async fn acquire(&self) -> Result<Conn, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(p, _) => Conn::Sqlite(p.acquire().await?),
            Db::Pg(p) => Conn::Pg(p.acquire().await?),
        })
    }

    /// Starts a transaction. On SQLite it begins `IMMEDIATE`, taking the write lock up front:
    /// a deferred transaction that reads and then writes can fail with SQLITE_BUSY when
    /// another writer got there first, and busy_timeout cannot retry that upgrade.
    ///
    /// SQLite has one writer. Writers of this process first queue at the write gate, in
    /// arrival order, and only then take a connection: left to SQLite's busy handler they
    /// sleep in growing steps (up to 100 ms) and poll, so a burst of 16 concurrent writes had
    /// a p99 of 108 ms where each write takes under 1 ms (`scripts/bench-webhook`). Other
    /// processes and single statements outside a transaction still meet the busy handler.
    pub async fn begin(&self) -> Result<Tx, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(p, gate) => {
                let permit = tokio::time::timeout(WRITE_GATE_TIMEOUT, gate.clone().acquire_owned())
                    .await
                    .map_err(|_| sqlx::Error::PoolTimedOut)?
                    .map_err(|_| sqlx::Error::PoolClosed)?;
                Tx::new(TxInner::Sqlite(
                    p.begin_with("BEGIN IMMEDIATE").await?,
                    permit,
                ))
            }
            Db::Pg(p) => Tx::new(TxInner::Pg(p.begin().await?)),
        })
    }

    /// Applies pending migrations for this dialect.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        migrations::run(self, true).await
    }

    /// Applies migrations without the cross-process advisory lock (a test schema of its own).
    pub async fn migrate_unlocked(&self) -> Result<(), sqlx::migrate::MigrateError> {
        migrations::run(self, false).await
    }

    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        let mut c = self.acquire().await?;
        crate::execute!(&mut c, sqlx::query("SELECT 1")).map(|_| ())
    }

    pub async fn close(&self) {
        match self {
            Db::Sqlite(p, _) => p.close().await,
            Db::Pg(p) => p.close().await,
        }
    }
}

/// True when the error is a unique-constraint violation (SQLite 2067/1555, PostgreSQL 23505).
pub fn is_unique_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => d.is_unique_violation(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn sqlite(dir: &std::path::Path) -> Db {
        let url = format!("sqlite://{}", dir.join("gate.db").display());
        let db = Db::connect(&url, &PoolSettings::default()).await.unwrap();
        let mut c = db.acquire().await.unwrap();
        crate::execute!(&mut c, sqlx::query("CREATE TABLE n (v INTEGER NOT NULL)")).unwrap();
        db
    }

    #[tokio::test]
    async fn the_write_gate_is_released_by_commit_and_by_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = sqlite(dir.path()).await;
        let Db::Sqlite(_, gate) = &db else {
            unreachable!()
        };
        let tx = db.begin().await.unwrap();
        assert_eq!(
            gate.available_permits(),
            0,
            "an open transaction holds the gate"
        );
        drop(tx);
        assert_eq!(
            gate.available_permits(),
            1,
            "a dropped transaction releases it"
        );
        let mut tx = db.begin().await.unwrap();
        crate::execute!(&mut tx, sqlx::query("INSERT INTO n (v) VALUES (1)")).unwrap();
        tx.commit().await.unwrap();
        assert_eq!(gate.available_permits(), 1, "a committed one too");
    }

    #[tokio::test]
    async fn auth_changes_are_published_at_commit_never_on_rollback_and_at_once_on_a_connection() {
        use auth_changes::{AuthListener, subscribe};
        use std::sync::Mutex;
        struct Heard(Mutex<Vec<AuthChange>>);
        impl AuthListener for Heard {
            fn auth_changed(&self, change: AuthChange) {
                self.0.lock().unwrap().push(change);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let db = sqlite(dir.path()).await;
        let heard = Arc::new(Heard(Mutex::new(Vec::new())));
        let listener: Arc<dyn AuthListener> = heard.clone();
        subscribe(&listener);
        let (a, b, c) = (Id::new(), Id::new(), Id::new());
        // Only this test's own changes (others may publish in the same process).
        let mine = || -> Vec<AuthChange> {
            heard
                .0
                .lock()
                .unwrap()
                .iter()
                .copied()
                .filter(|ch| {
                    matches!(ch, AuthChange::User(id) | AuthChange::SignIn(id) if [a, b, c].contains(id))
                })
                .collect()
        };

        let mut tx = db.begin().await.unwrap();
        crate::execute!(&mut tx, sqlx::query("INSERT INTO n (v) VALUES (1)")).unwrap();
        tx.auth_changed(AuthChange::User(a));
        tx.auth_changed(AuthChange::User(a));
        assert_eq!(mine(), vec![], "nothing before the commit");
        tx.commit().await.unwrap();
        assert_eq!(mine(), vec![AuthChange::User(a)], "once, at the commit");

        let mut tx = db.begin().await.unwrap();
        tx.auth_changed(AuthChange::User(b));
        tx.rollback().await.unwrap();
        let mut tx = db.begin().await.unwrap();
        tx.auth_changed(AuthChange::User(b));
        drop(tx);
        assert_eq!(
            mine(),
            vec![AuthChange::User(a)],
            "a rolled-back change is not one"
        );

        let mut conn = db.acquire().await.unwrap();
        conn.auth_changed(AuthChange::SignIn(c));
        assert_eq!(
            mine(),
            vec![AuthChange::User(a), AuthChange::SignIn(c)],
            "a connection's statement has committed already: at once"
        );
    }

    #[tokio::test]
    async fn concurrent_writers_queue_at_the_gate_and_all_commit() {
        let dir = tempfile::tempdir().unwrap();
        let db = sqlite(dir.path()).await;
        let writers: Vec<_> = (0..32)
            .map(|i| {
                let db = db.clone();
                tokio::spawn(async move {
                    let mut tx = db.begin().await?;
                    // Read, then write: the pattern that needs the lock held from the start.
                    let mut c = tx.conn();
                    let DbConn::Sqlite(c) = &mut c else {
                        unreachable!()
                    };
                    let _: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM n")
                        .fetch_one(&mut **c)
                        .await?;
                    crate::execute!(
                        &mut tx,
                        sqlx::query("INSERT INTO n (v) VALUES ($1)").bind(i)
                    )?;
                    tx.commit().await
                })
            })
            .collect();
        for w in writers {
            w.await.unwrap().unwrap();
        }
        let mut c = db.acquire().await.unwrap();
        let DbConn::Sqlite(conn) = c.conn() else {
            unreachable!()
        };
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM n")
            .fetch_one(conn)
            .await
            .unwrap();
        assert_eq!(n, 32);
    }
}
