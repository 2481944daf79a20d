//! The Prometheus endpoint of a process (`METRICS_ADDR`, off when unset): `GET /metrics` in the
//! text format, on a listener of its own so it never shares the api's routes, auth or
//! timeouts.
//!
//! Both binaries call [`start`]: `worker` for its job metrics, `api` for its HTTP metrics and,
//! on the embedded default, the jobs it runs in-process (one endpoint covers both, because the
//! `metrics` recorder is one per process). The exporter's own HTTP listener is not compiled
//! (it brings hyper's server-auto and the push gateway's TLS client); the text is rendered
//! from the [`PrometheusHandle`] and served with axum, which the api already builds.
//!
//! The queue gauges (`jobs::metrics::QUEUE_*`) need a query, so one place refreshes them: the
//! api process (`gauges: Some(db)`), every [`GAUGE_INTERVAL`], with one statement for all
//! queues (`jobs::monitor::queue_stats`). Workers export counters and histograms only, so N
//! workers add no polling.

use axum::Router;
use axum::http::header;
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use shared::db::{Db, Ts};
use std::net::SocketAddr;
use std::time::Duration;

/// How often the queue gauges are read from the database and the exporter does its upkeep.
pub const GAUGE_INTERVAL: Duration = Duration::from_secs(5);

/// Histogram buckets (seconds) for every `*_seconds` metric: a millisecond HTTP answer to an
/// hour-long job.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    300.0, 900.0, 3600.0,
];

/// A running metrics endpoint; dropping it stops the listener and the refresher.
pub struct MetricsServer {
    pub addr: SocketAddr,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Installs the process's recorder (once per process) and serves `GET /metrics` on `addr`.
/// With `gauges`, this process also refreshes the queue gauges from that database.
pub async fn start(addr: SocketAddr, gauges: Option<Db>) -> anyhow::Result<MetricsServer> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), BUCKETS)?
        .install_recorder()
        .map_err(|e| anyhow::anyhow!("METRICS_ADDR: cannot install the metrics recorder: {e}"))?;
    jobs::metrics::describe();
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("METRICS_ADDR {addr}: cannot listen: {e}"))?;
    let addr = listener.local_addr()?;
    let app = Router::new()
        .route("/metrics", get(render))
        .with_state(handle.clone());
    let mut tasks = vec![tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics listener stopped");
        }
    })];
    tasks.push(tokio::spawn(refresh(handle, gauges)));
    tracing::info!(%addr, "metrics at /metrics");
    Ok(MetricsServer { addr, tasks })
}

async fn render(
    axum::extract::State(handle): axum::extract::State<PrometheusHandle>,
) -> impl axum::response::IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle.render(),
    )
}

/// The one periodic task: the exporter's upkeep and, where asked, the queue gauges.
async fn refresh(handle: PrometheusHandle, gauges: Option<Db>) {
    let mut tick = tokio::time::interval(GAUGE_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        handle.run_upkeep();
        if let Some(db) = &gauges {
            refresh_gauges(db).await;
        }
    }
}

/// Reads every queue's counts once and sets the gauges (a failed read keeps the last values
/// and is logged; the next tick tries again).
pub async fn refresh_gauges(db: &Db) {
    let now = Ts::now();
    let read = async {
        let mut c = db.acquire().await?;
        jobs::monitor::queue_stats(&mut c, now).await
    };
    match read.await {
        Ok(stats) => jobs::metrics::set_queue_gauges(&stats, now),
        Err(e) => tracing::warn!(error = %e, "queue gauges not refreshed"),
    }
}
