//! The job-running side of the service: apalis workers per queue ([`runtime`]) over our own
//! queue backend ([`queue_backend`]), one attempt
//! of a job ([`execute`]), the handlers by kind ([`handlers`]) and the built-in scheduler
//! ([`scheduler`]). The `worker` binary runs them; the api embeds them on the embedded default.

pub mod config;
pub mod execute;
pub mod handlers;
pub mod manage;
pub mod media;
pub mod metrics;
pub mod queue_backend;
pub mod runtime;
pub mod scheduler;
pub mod wakeups;

use shared::config::Config;
use shared::db::Db;
use shared::mail::Mailer;
use std::sync::Arc;

/// What job handlers can reach.
pub struct Deps {
    pub db: Db,
    /// Heartbeats and queue listeners, apart from the jobs' pool (`Db::liveness_pool`).
    pub liveness: Db,
    pub cfg: Config,
    pub worker: config::WorkerConfig,
    pub mailer: Mailer,
    pub storage: shared::storage::Storage,
    pub keys: shared::crypto::Keys,
    /// The competition provider, when configured; one per process, so its token is shared.
    pub heatsource: Option<shared::providers::heatsource::Heatsource>,
    /// The tour index, when configured; one per process, so its pacing is shared.
    pub tourindex: Option<shared::providers::tourindex::Tourindex>,
    /// The surf-spot provider, when configured.
    pub spotsource: Option<shared::providers::spotsource::Spotsource>,
    /// The fallback forecast provider, when configured; one per process, so its pacing is
    /// shared.
    pub openmeteo: Option<shared::providers::openmeteo::OpenMeteo>,
}

impl Deps {
    /// The competition providers, for `shared::domain::competition`.
    pub fn providers(&self) -> shared::domain::competition::roster::Providers<'_> {
        shared::domain::competition::roster::Providers {
            heatsource: self.heatsource.as_ref(),
            tourindex: self.tourindex.as_ref(),
        }
    }

    /// The forecast providers and cache window, for `shared::domain::forecasts`.
    pub fn forecasters(&self) -> shared::domain::forecasts::Forecasters<'_> {
        shared::domain::forecasts::Forecasters {
            primary: self.spotsource.as_ref(),
            fallback: self.openmeteo.as_ref(),
            window_hours: self.cfg.forecast_cache_hours,
        }
    }
}

impl Deps {
    /// Everything a worker needs, from its configuration (one way for the binary, the embedded
    /// worker and tests).
    pub async fn new(db: Db, cfg: Config, worker: config::WorkerConfig) -> anyhow::Result<Deps> {
        Ok(Deps {
            mailer: Mailer::from_config(&cfg)?,
            storage: shared::storage::Storage::new(&cfg.storage).await?,
            keys: shared::crypto::Keys::new(cfg.secret_key.expose()),
            heatsource: cfg.heatsource.clone().map(|c| {
                shared::providers::heatsource::Heatsource::new(
                    c,
                    shared::providers::http::shared_client().clone(),
                )
            }),
            tourindex: cfg.tourindex.clone().map(|c| {
                shared::providers::tourindex::Tourindex::new(
                    c,
                    shared::providers::http::shared_client().clone(),
                )
            }),
            spotsource: cfg.spotsource.clone().map(|c| {
                shared::providers::spotsource::Spotsource::new(
                    c,
                    shared::providers::http::shared_client().clone(),
                )
            }),
            openmeteo: cfg.openmeteo.clone().map(|c| {
                shared::providers::openmeteo::OpenMeteo::new(
                    c,
                    shared::providers::http::shared_client().clone(),
                )
            }),
            // A LISTEN session for each of the four queues, and one heartbeat at a time.
            liveness: db.liveness_pool(5),
            db,
            cfg,
            worker,
        })
    }
}

/// A started worker: its queue runtime and (when enabled) its scheduler.
pub struct Running {
    runtime: runtime::Runtime,
    scheduler: Option<scheduler::Scheduler>,
    deadline: std::time::Duration,
}

/// Starts the workers and the scheduler of this process.
pub async fn start(deps: Arc<Deps>) -> anyhow::Result<Running> {
    let runtime = runtime::Runtime::start(deps.clone()).await?;
    let scheduler = if deps.worker.scheduler {
        Some(scheduler::Scheduler::start(deps.clone()).await?)
    } else {
        None
    };
    Ok(Running {
        runtime,
        scheduler,
        deadline: deps.worker.shutdown_deadline,
    })
}

impl Running {
    /// Graceful stop: no new ticks, no new jobs, running jobs get until the deadline.
    pub async fn shutdown(self) {
        if let Some(s) = self.scheduler {
            s.shutdown().await;
        }
        self.runtime.shutdown(self.deadline).await;
    }
}

/// rustls needs one process-wide crypto provider; pick aws-lc-rs (reqwest's, lettre's and the
/// S3 client's) explicitly, so a second provider compiled in by some dependency (ring came with
/// the apalis storages until issue 14) cannot leave the choice ambiguous.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}
