//! `worker`: the job-running process of the scale-out deployment. The job system (queues,
//! handlers, scheduler) is being built (see the README's status table); until it lands this
//! binary checks its configuration and database and then waits for SIGTERM, so deployments can
//! already run the `worker` process type.

use shared::config::Config;
use shared::db::{Db, PoolSettings};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cfg = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let db = Db::connect(&cfg.database_url, &PoolSettings::default())
        .await
        .map_err(|e| anyhow::anyhow!("DATABASE_URL: cannot connect: {e}"))?;
    db.ping().await?;
    eprintln!("worker: database reachable; no job types are registered yet");
    tokio::signal::ctrl_c().await?;
    db.close().await;
    Ok(())
}
