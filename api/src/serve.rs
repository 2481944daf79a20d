//! Process start-up shared by the `api` binary: configuration, logging, database, migrations.

use shared::config::Config;
use shared::db::{Db, PoolSettings};

pub fn init_tracing(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Loads configuration (exiting with a message naming a malformed variable) and prepares the
/// data directory the embedded default writes to.
pub fn load_config() -> Config {
    let mut cfg = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&cfg.data_dir) {
        eprintln!("DATA_DIR {}: {e}", cfg.data_dir.display());
        std::process::exit(2);
    }
    if let Err(e) = cfg.ensure_secret_key() {
        eprintln!(
            "SECRET_KEY not set and {}/secret.key not writable: {e}",
            cfg.data_dir.display()
        );
        std::process::exit(2);
    }
    cfg
}

pub async fn connect(cfg: &Config) -> anyhow::Result<Db> {
    let db = Db::connect(&cfg.database_url, &PoolSettings::default())
        .await
        .map_err(|e| anyhow::anyhow!("DATABASE_URL: cannot connect: {e}"))?;
    Ok(db)
}

/// Our migrations, then the job queue's tables.
pub async fn migrate(db: &Db) -> anyhow::Result<()> {
    db.migrate().await?;
    jobs::queue::setup(db).await?;
    Ok(())
}

/// The embedded default runs the worker (queues and scheduler) inside the api process.
pub async fn start_embedded_worker(cfg: &Config, db: &Db) -> anyhow::Result<worker::Running> {
    let wcfg = worker::config::WorkerConfig::from_env(db.dialect() == shared::db::Dialect::Sqlite)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let deps = std::sync::Arc::new(worker::Deps::new(db.clone(), cfg.clone(), wcfg).await?);
    tracing::info!("running the job worker in this process (EMBEDDED_WORKER)");
    worker::start(deps).await
}
