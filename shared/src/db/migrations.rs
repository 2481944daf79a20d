//! Migrations are embedded in the binaries, one folder per dialect under `migrations/`,
//! numbered identically so both databases always have the same schema version.

use super::Db;
use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

macro_rules! migration_set {
    ($dir:literal: $($version:literal $name:literal),* $(,)?) => {
        vec![$(
            Migration::new(
                $version,
                $name.into(),
                MigrationType::Simple,
                include_str!(concat!("../../../migrations/", $dir, "/", stringify!($version), "_", $name, ".sql")).into_sql_str(),
                false,
            ),
        )*]
    };
}

fn sqlite() -> Vec<Migration> {
    migration_set!("sqlite": 1 "foundation", 2 "jobs", 3 "workspaces", 4 "athletes", 5 "messaging", 6 "sms", 7 "footage", 8 "uploads", 9 "reviews", 10 "coaching", 11 "competition", 12 "billing", 13 "wearable", 14 "competition_imports", 15 "strategy", 16 "forecasts", 17 "identity", 18 "opponents", 19 "reports", 22 "probe_effects", 23 "job_queue", 24 "auth_cache", 25 "job_progress_hot", 26 "job_claims", 27 "notification_channels", 28 "ride_direction", 29 "clip_media", 30 "notification_sends", 31 "delivery_send_marks", 32 "no_ride_labels")
}

fn postgres() -> Vec<Migration> {
    migration_set!("postgres": 1 "foundation", 2 "jobs", 3 "workspaces", 4 "athletes", 5 "messaging", 6 "sms", 7 "footage", 8 "uploads", 9 "reviews", 10 "coaching", 11 "competition", 12 "billing", 13 "wearable", 14 "competition_imports", 15 "strategy", 16 "forecasts", 17 "identity", 18 "opponents", 19 "reports", 22 "probe_effects", 23 "job_queue", 24 "auth_cache", 25 "job_progress_hot", 26 "job_claims", 27 "notification_channels", 28 "ride_direction", 29 "clip_media", 30 "notification_sends", 31 "delivery_send_marks", 32 "no_ride_labels")
}

/// Our own bookkeeping table: apalis-sqlite kept its migrations in `_sqlx_migrations` of the
/// same database (until migration 23 replaced its tables), and two migrators sharing one table
/// each see the other's rows as unknown.
const TABLE: &str = "_service_migrations";

pub(super) async fn run(db: &Db, locking: bool) -> Result<(), sqlx::migrate::MigrateError> {
    match db {
        Db::Sqlite(pool, _) => {
            let mut m = Migrator::with_migrations(sqlite());
            m.dangerous_set_table_name(TABLE);
            m.set_locking(locking);
            m.run(pool).await
        }
        Db::Pg(pool) => {
            let mut m = Migrator::with_migrations(postgres());
            m.dangerous_set_table_name(TABLE);
            m.set_locking(locking);
            // A connection of its own, never returned to the pool: a migration may run long,
            // and the processes starting beside this one wait for its lock as long as it takes.
            let mut c = pool.acquire().await?.detach();
            sqlx::raw_sql("SET statement_timeout = 0; SET lock_timeout = 0")
                .execute(&mut c)
                .await?;
            let ran = m.run(&mut c).await;
            let _ = sqlx::Connection::close(c).await;
            ran
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the migrations of `db`'s dialect below `version` (all with `None`).
    async fn run_below(db: &Db, version: Option<i64>) {
        let keep = |m: &Migration| version.is_none_or(|v| m.version < v);
        match db {
            Db::Sqlite(pool, _) => {
                let mut m = Migrator::with_migrations(sqlite().into_iter().filter(keep).collect());
                m.dangerous_set_table_name(TABLE);
                m.run(pool).await.unwrap();
            }
            Db::Pg(pool) => {
                let mut m =
                    Migrator::with_migrations(postgres().into_iter().filter(keep).collect());
                m.dangerous_set_table_name(TABLE);
                m.run(pool).await.unwrap();
            }
        }
    }

    async fn exec(db: &Db, q: String) {
        let q = sqlx::AssertSqlSafe(q);
        match db {
            Db::Sqlite(pool, _) => sqlx::raw_sql(q).execute(pool).await.map(drop),
            Db::Pg(pool) => sqlx::raw_sql(q).execute(pool).await.map(drop),
        }
        .unwrap();
    }

    /// Migration 26 moves the attempt count onto live tasks: a task claimed under the old
    /// claim already has its attempt in its progress row (`claims` 1 over one less), a waiting
    /// one starts from the row's attempts, so a deploy mid-run counts each attempt once.
    async fn live_tasks_keep_their_attempts_across_26(db: &Db) {
        run_below(db, Some(26)).await;
        // Three jobs: waiting (0 attempts), claimed (its first attempt counted by the old
        // claim), and rescued after a crash (two attempts counted, waiting again).
        for (n, status, attempts, locked) in [
            (1, "queued", 0, "NULL"),
            (2, "running", 1, "'w1'"),
            (3, "running", 2, "NULL"),
        ] {
            let id = format!("00000000-0000-7000-8000-00000000000{n}");
            let at = "'2026-01-01T00:00:00.000000Z'";
            exec(
                db,
                format!(
                "INSERT INTO job_progress (id, kind, queue, status, attempts, max_attempts, payload,
                    cancel_requested, run_after, created_at, updated_at)
                 VALUES ('{id}', 'diagnostics.probe', 'default', '{status}', {attempts}, 3, '{{}}',
                    FALSE, {at}, {at}, {at})"
            ),
            )
            .await;
            exec(
                db,
                format!(
                    "INSERT INTO job_queue (queue, job_id, run_at, locked_by)
                 VALUES ('default', '{id}', {at}, {locked})"
                ),
            )
            .await;
        }
        run_below(db, None).await;
        let q = "SELECT base_attempts, claims FROM job_queue ORDER BY id";
        let next: Vec<(i64, i64)> = match db {
            Db::Sqlite(pool, _) => sqlx::query_as(q).fetch_all(pool).await,
            Db::Pg(pool) => sqlx::query_as(q).fetch_all(pool).await,
        }
        .unwrap();
        // The attempt a claim counts next is base + claims + 1: 1, 2 and 3.
        assert_eq!(next, vec![(0, 0), (0, 1), (2, 0)]);
    }

    #[tokio::test]
    async fn sqlite_live_tasks_keep_their_attempts_across_26() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/m.db", dir.path().display());
        let db = Db::connect(&url, &Default::default()).await.unwrap();
        live_tasks_keep_their_attempts_across_26(&db).await;
    }

    #[tokio::test]
    async fn postgres_live_tasks_keep_their_attempts_across_26() {
        let Ok(admin) = std::env::var("TEST_DATABASE_URL") else {
            return; // PostgreSQL runs of the suite set it (scripts/test).
        };
        let name = format!("mig26_{}", std::process::id());
        let server = sqlx::PgPool::connect(&admin).await.unwrap();
        let drop_it = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        for q in [drop_it.clone(), format!("CREATE DATABASE {name}")] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(q))
                .execute(&server)
                .await
                .unwrap();
        }
        let (base, _) = admin
            .rsplit_once('/')
            .expect("TEST_DATABASE_URL names a database");
        let db = Db::connect(&format!("{base}/{name}"), &Default::default())
            .await
            .unwrap();
        live_tasks_keep_their_attempts_across_26(&db).await;
        drop(db);
        sqlx::raw_sql(sqlx::AssertSqlSafe(drop_it))
            .execute(&server)
            .await
            .unwrap();
    }

    #[test]
    fn both_dialects_have_the_same_versions() {
        let a: Vec<i64> = super::sqlite().iter().map(|m| m.version).collect();
        let b: Vec<i64> = super::postgres().iter().map(|m| m.version).collect();
        assert_eq!(a, b);
    }
}
