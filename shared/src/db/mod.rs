//! One code path over two databases.
//!
//! `Db` holds a concrete pool for whichever database `DATABASE_URL` names. Queries are written
//! once and run through the [`sql!`](crate::sql) macro, which pastes the same body into a
//! SQLite arm and a PostgreSQL arm, so the body sees a concrete connection type and sqlx's
//! native codecs (the `Any` driver cannot decode UUIDs, times or booleans on both). Handlers
//! never branch on the database; only the migrations differ per dialect.

mod migrations;
mod text_enum;
pub mod types;

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgConnection, Postgres, Sqlite, SqliteConnection, Transaction};
use std::str::FromStr;
use std::time::Duration;

pub use text_enum::{TextEnum, UnknownValue, text_enum_schema};
pub use types::{Id, Ts};

#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(sqlx::SqlitePool),
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
}

/// A pooled connection, for reads and single statements outside a transaction.
pub enum Conn {
    Sqlite(PoolConnection<Sqlite>),
    Pg(PoolConnection<Postgres>),
}

/// An open transaction; dropped without `commit` it rolls back.
pub enum Tx {
    Sqlite(Transaction<'static, Sqlite>),
    Pg(Transaction<'static, Postgres>),
}

impl Executor for Conn {
    fn conn(&mut self) -> DbConn<'_> {
        match self {
            Conn::Sqlite(c) => DbConn::Sqlite(c),
            Conn::Pg(c) => DbConn::Pg(c),
        }
    }
}

impl Executor for Tx {
    fn conn(&mut self) -> DbConn<'_> {
        match self {
            Tx::Sqlite(t) => DbConn::Sqlite(t),
            Tx::Pg(t) => DbConn::Pg(t),
        }
    }
}

impl Tx {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(t) => t.commit().await,
            Tx::Pg(t) => t.commit().await,
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

/// Options that matter for correctness under concurrent writers.
#[derive(Clone, Debug)]
pub struct PoolSettings {
    pub max_connections: u32,
    pub acquire_timeout: Duration,
    /// PostgreSQL only: the schema to put first on the search path (tests use one per test).
    pub pg_schema: Option<String>,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            pg_schema: None,
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
            let pool = SqlitePoolOptions::new()
                .max_connections(settings.max_connections)
                .acquire_timeout(settings.acquire_timeout)
                .connect_with(opts)
                .await?;
            Ok(Db::Sqlite(pool))
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let mut opts = PgConnectOptions::from_str(url)?;
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

    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            Db::Pg(_) => Dialect::Postgres,
        }
    }

    pub async fn acquire(&self) -> Result<Conn, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(p) => Conn::Sqlite(p.acquire().await?),
            Db::Pg(p) => Conn::Pg(p.acquire().await?),
        })
    }

    /// Starts a transaction. On SQLite it begins `IMMEDIATE`, taking the write lock up front:
    /// a deferred transaction that reads and then writes can fail with SQLITE_BUSY when
    /// another writer got there first, and busy_timeout cannot retry that upgrade.
    pub async fn begin(&self) -> Result<Tx, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(p) => Tx::Sqlite(p.begin_with("BEGIN IMMEDIATE").await?),
            Db::Pg(p) => Tx::Pg(p.begin().await?),
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
            Db::Sqlite(p) => p.close().await,
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
