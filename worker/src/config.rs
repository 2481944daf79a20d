//! Worker settings, from environment variables (documented in the README).

use jobs::Queue;
use shared::config::ConfigError;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Queues this process serves and how many jobs of each it runs at once.
    pub concurrency: BTreeMap<Queue, usize>,
    /// Backstop polling interval (SQLite's only wake-up; PostgreSQL also listens for NOTIFY).
    pub poll: Duration,
    /// A worker missing `lease_misses` heartbeats is presumed dead; its jobs run elsewhere.
    pub heartbeat: Duration,
    pub lease_misses: u32,
    /// How long a graceful shutdown waits for running jobs before releasing them.
    pub shutdown_deadline: Duration,
    pub scheduler: bool,
    /// Per-task schedule overrides: `SCHEDULE_TOKENS_CLEANUP="0 */5 * * * *"` or `off`.
    pub schedule_overrides: BTreeMap<String, String>,
    pub audit_retention_days: i64,
    /// First retry delay; doubles per attempt.
    pub backoff_base: Duration,
}

fn err(var: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        var,
        message: message.into(),
    }
}

impl WorkerConfig {
    pub fn from_env(sqlite: bool) -> Result<Self, ConfigError> {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        Self::from_lookup(|k| vars.get(k).cloned().filter(|v| !v.is_empty()), sqlite)
    }

    pub fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
        sqlite: bool,
    ) -> Result<Self, ConfigError> {
        let mut concurrency: BTreeMap<Queue, usize> = [
            (Queue::Default, 8),
            (Queue::Providers, 4),
            (Queue::Media, 2),
            (Queue::Notify, 4),
        ]
        .into_iter()
        .collect();
        if let Some(spec) = get("WORKER_CONCURRENCY") {
            // "default=16,media=1" changes those; "only:default=8" serves only the queues named.
            let (only, spec) = match spec.strip_prefix("only:") {
                Some(rest) => (true, rest.to_string()),
                None => (false, spec),
            };
            if only {
                concurrency.clear();
            }
            for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
                let (q, n) = part
                    .split_once('=')
                    .ok_or_else(|| err("WORKER_CONCURRENCY", "expected queue=n[,queue=n]"))?;
                let q = Queue::parse(q.trim())
                    .ok_or_else(|| err("WORKER_CONCURRENCY", format!("unknown queue {q}")))?;
                let n: usize = n
                    .trim()
                    .parse()
                    .map_err(|_| err("WORKER_CONCURRENCY", "concurrency must be a number"))?;
                if n == 0 {
                    concurrency.remove(&q);
                } else {
                    concurrency.insert(q, n);
                }
            }
        }
        let ms = |var: &'static str, default: u64| -> Result<Duration, ConfigError> {
            match get(var) {
                None => Ok(Duration::from_millis(default)),
                Some(v) => v
                    .parse()
                    .map(Duration::from_millis)
                    .map_err(|_| err(var, "must be a whole number of milliseconds")),
            }
        };
        let schedule_overrides = shared_schedule_overrides(&get)?;
        Ok(WorkerConfig {
            concurrency,
            poll: ms("WORKER_POLL_MS", if sqlite { 50 } else { 1000 })?,
            heartbeat: ms("WORKER_HEARTBEAT_MS", 5000)?,
            lease_misses: get("WORKER_LEASE_MISSES")
                .map(|v| {
                    v.parse()
                        .map_err(|_| err("WORKER_LEASE_MISSES", "must be a number"))
                })
                .transpose()?
                .unwrap_or(3),
            shutdown_deadline: ms("WORKER_SHUTDOWN_MS", 30_000)?,
            scheduler: match get("SCHEDULER").as_deref() {
                None | Some("on") | Some("true") => true,
                Some("off") | Some("false") => false,
                Some(_) => return Err(err("SCHEDULER", "must be on or off")),
            },
            schedule_overrides,
            backoff_base: ms("WORKER_BACKOFF_BASE_MS", 10_000)?,
            audit_retention_days: get("AUDIT_RETENTION_DAYS")
                .map(|v| {
                    v.parse()
                        .map_err(|_| err("AUDIT_RETENTION_DAYS", "must be a number of days"))
                })
                .transpose()?
                .unwrap_or(730),
        })
    }
}

fn shared_schedule_overrides(
    get: &impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = BTreeMap::new();
    for t in jobs::cron::TASKS {
        let var = format!("SCHEDULE_{}", t.name.to_uppercase().replace('-', "_"));
        if let Some(v) = get(&var) {
            if v != "off" && crate::scheduler::parse_cron(&v).is_err() {
                return Err(err(
                    "SCHEDULE_<TASK>",
                    format!("{var}: not a cron expression: {v}"),
                ));
            }
            out.insert(t.name.to_string(), v);
        }
    }
    Ok(out)
}
