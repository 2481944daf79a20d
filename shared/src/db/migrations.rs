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
    migration_set!("sqlite": 1 "foundation", 2 "jobs", 3 "workspaces", 4 "athletes", 5 "messaging", 6 "sms", 7 "footage", 8 "uploads", 9 "reviews", 10 "coaching", 11 "competition", 12 "billing", 13 "wearable", 14 "competition_imports", 15 "strategy", 16 "forecasts", 17 "identity", 18 "opponents", 19 "reports", 22 "probe_effects", 23 "job_queue", 24 "auth_cache", 25 "job_progress_hot", 26 "job_claims")
}

fn postgres() -> Vec<Migration> {
    migration_set!("postgres": 1 "foundation", 2 "jobs", 3 "workspaces", 4 "athletes", 5 "messaging", 6 "sms", 7 "footage", 8 "uploads", 9 "reviews", 10 "coaching", 11 "competition", 12 "billing", 13 "wearable", 14 "competition_imports", 15 "strategy", 16 "forecasts", 17 "identity", 18 "opponents", 19 "reports", 22 "probe_effects", 23 "job_queue", 24 "auth_cache", 25 "job_progress_hot", 26 "job_claims")
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
            m.run(pool).await
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_dialects_have_the_same_versions() {
        let a: Vec<i64> = super::sqlite().iter().map(|m| m.version).collect();
        let b: Vec<i64> = super::postgres().iter().map(|m| m.version).collect();
        assert_eq!(a, b);
    }
}
