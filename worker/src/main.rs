//! `worker`: runs jobs and the built-in scheduler until SIGTERM/SIGINT.
//! `worker schedules`: prints the effective schedule and exits.
//! `worker --help`: prints the usage and exits; any other argument is refused the same way.

use std::sync::Arc;
use worker::{Deps, config::WorkerConfig};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] | ["schedules"] => {}
        ["-h" | "--help" | "help"] => {
            print!("{USAGE}");
            return Ok(());
        }
        _ => {
            eprint!("worker: unknown arguments {args:?}\n\n{USAGE}");
            std::process::exit(2);
        }
    }
    worker::install_crypto_provider();
    let fail = |e: shared::config::ConfigError| -> ! {
        eprintln!("{e}");
        std::process::exit(2)
    };
    let mut cfg = shared::config::Config::from_env().unwrap_or_else(|e| fail(e));
    let wcfg = WorkerConfig::from_env(cfg.database_url.expose().starts_with("sqlite:"))
        .unwrap_or_else(|e| fail(e));
    if std::env::args().nth(1).as_deref() == Some("schedules") {
        println!(
            "{:<26} {:<18} {:<10} what",
            "task", "schedule (UTC)", "queue"
        );
        for (t, expr) in worker::scheduler::effective(&wcfg) {
            let info = t.info();
            println!(
                "{:<26} {:<18} {:<10} {}",
                t.as_str(),
                expr.as_deref().unwrap_or("off"),
                info.queue.as_str(),
                info.summary
            );
        }
        return Ok(());
    }
    let _log = shared::logging::init(cfg.log_json);
    if cfg.secret_key.expose().is_empty() {
        cfg.ensure_secret_key()?;
    }
    let db = shared::db::Db::connect(cfg.database_url.expose(), &cfg.pool_settings())
        .await
        .map_err(|e| anyhow::anyhow!("DATABASE_URL: cannot connect: {e}"))?;
    db.migrate().await?;
    // Job counters and histograms; the queue gauges are the api's (`worker::metrics`).
    let _metrics = match cfg.metrics_addr {
        Some(addr) => Some(worker::metrics::start(addr, None).await?),
        None => None,
    };
    let deps = Arc::new(Deps::new(db.clone(), cfg, wcfg).await?);
    let running = worker::start(deps).await?;
    tracing::info!(pid = std::process::id(), "worker running");
    shutdown_signal().await;
    tracing::info!("shutting down: finishing running jobs");
    running.shutdown().await;
    db.close().await;
    Ok(())
}

const USAGE: &str = "\
Usage: worker [schedules]

Runs the job queues and the built-in scheduler until SIGTERM or SIGINT.
  schedules    print the effective schedule of the scheduled tasks and exit
  -h, --help   print this help and exit

Configured by the environment, as the api (DATABASE_URL, STORAGE_*, ...; see the README)
and WORKER_* for the worker itself (WORKER_CONCURRENCY, WORKER_POLL_MS, SCHEDULER, ...).
";

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
    }
}
