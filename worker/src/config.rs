//! Worker settings, from environment variables (documented in the README).

use shared::config::ConfigError;
use shared::job::Queue;
use shared::job::scheduled::CronTask;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Queues this process serves and how many jobs of each it runs at once.
    pub concurrency: BTreeMap<Queue, usize>,
    /// How many tasks a worker takes from its queue per fetch (see [`default_fetch_batch`]).
    pub fetch_batch: BTreeMap<Queue, usize>,
    /// Backstop polling interval (SQLite's only wake-up; PostgreSQL also listens for NOTIFY).
    pub poll: Duration,
    /// A worker missing `lease_misses` heartbeats is presumed dead; its jobs run elsewhere.
    pub heartbeat: Duration,
    pub lease_misses: u32,
    /// How long a graceful shutdown waits for running jobs before releasing them.
    pub shutdown_deadline: Duration,
    pub scheduler: bool,
    /// Per-task schedule overrides: `SCHEDULE_TOKENS_CLEANUP="0 */5 * * * *"`, or `off`
    /// (`None`: the task does not run on this process's scheduler).
    pub schedule_overrides: BTreeMap<CronTask, Option<String>>,
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
                Some(rest) => (true, rest),
                None => (false, spec.as_str()),
            };
            if only {
                concurrency.clear();
            }
            for (q, n) in queue_numbers("WORKER_CONCURRENCY", spec)? {
                if n == 0 {
                    concurrency.remove(&q);
                } else {
                    concurrency.insert(q, n);
                }
            }
        }
        let mut fetch_batch: BTreeMap<Queue, usize> = concurrency
            .iter()
            .map(|(&q, &n)| (q, default_fetch_batch(q, n)))
            .collect();
        if let Some(spec) = get("WORKER_FETCH_BATCH") {
            for (q, n) in queue_numbers("WORKER_FETCH_BATCH", &spec)? {
                if n == 0 {
                    return Err(err(
                        "WORKER_FETCH_BATCH",
                        "a fetch batch must be at least 1",
                    ));
                }
                if concurrency.contains_key(&q) {
                    fetch_batch.insert(q, n);
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
            fetch_batch,
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
                        .ok()
                        .filter(|d| (1..=36_500).contains(d))
                        .ok_or_else(|| {
                            err(
                                "AUDIT_RETENTION_DAYS",
                                "must be a number of days, 1 to 36500",
                            )
                        })
                })
                .transpose()?
                .unwrap_or(730),
        })
    }
}

/// Most tasks fetched at once: the queue of short database jobs takes up to 32 per slot (at
/// most 1,024), so a busy worker makes one fetch round trip per many jobs; how many of those
/// it holds beyond its free slots follows its pace (`queue_backend::BUFFER_TIME`). Measured
/// with no-op jobs on PostgreSQL: a cap of 1,024 ran 45–47k jobs/s where 256 ran 34–40k (the
/// claim's round trip outlasted 256 buffered tasks). Queues of jobs that wait on the network
/// or on files fetch only what they can start, so another worker process takes the rest.
pub fn default_fetch_batch(queue: Queue, concurrency: usize) -> usize {
    match queue {
        Queue::Default => (concurrency * 32).min(1024).max(concurrency),
        Queue::Providers | Queue::Media | Queue::Notify => concurrency,
    }
}

/// Parses "queue=n[,queue=n]".
fn queue_numbers(var: &'static str, spec: &str) -> Result<Vec<(Queue, usize)>, ConfigError> {
    let mut out = vec![];
    for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let (q, n) = part
            .split_once('=')
            .ok_or_else(|| err(var, "expected queue=n[,queue=n]"))?;
        let q = Queue::parse(q.trim()).map_err(|e| {
            err(
                var,
                format!(
                    "unknown queue {}; expected one of {}",
                    e.value,
                    e.expected.join(", ")
                ),
            )
        })?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| err(var, "must be a whole number"))?;
        out.push((q, n));
    }
    Ok(out)
}

fn shared_schedule_overrides(
    get: &impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<CronTask, Option<String>>, ConfigError> {
    let mut out = BTreeMap::new();
    for &t in CronTask::ALL {
        let var = t.schedule_var();
        if let Some(v) = get(&var) {
            if v == "off" {
                out.insert(t, None);
                continue;
            }
            if crate::scheduler::parse_cron(&v).is_err() {
                return Err(err(
                    "SCHEDULE_<TASK>",
                    format!("{var}: not a cron expression: {v}"),
                ));
            }
            out.insert(t, Some(v));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(vars: &[(&str, &str)]) -> Result<WorkerConfig, ConfigError> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        WorkerConfig::from_lookup(|k| vars.get(k).cloned(), false)
    }

    #[test]
    fn fetch_batches_default_by_queue_kind_and_can_be_set() {
        let c = cfg(&[("WORKER_CONCURRENCY", "default=32,media=3")]).unwrap();
        assert_eq!(c.fetch_batch[&Queue::Default], 1024);
        assert_eq!(c.fetch_batch[&Queue::Notify], 4);
        assert_eq!(c.fetch_batch[&Queue::Media], 3);
        assert_eq!(c.fetch_batch[&Queue::Providers], 4);

        let c = cfg(&[("WORKER_FETCH_BATCH", "default=10,media=1")]).unwrap();
        assert_eq!(c.fetch_batch[&Queue::Default], 10);
        assert_eq!(c.fetch_batch[&Queue::Media], 1);

        let e = cfg(&[("WORKER_FETCH_BATCH", "default=0")]).unwrap_err();
        assert_eq!(e.var, "WORKER_FETCH_BATCH");
        let e = cfg(&[("WORKER_FETCH_BATCH", "inbox=4")]).unwrap_err();
        assert!(e.message.contains("unknown queue"), "{}", e.message);
    }

    #[test]
    fn an_unknown_queue_is_a_startup_error_naming_the_queues() {
        let e = cfg(&[("WORKER_CONCURRENCY", "only:default=4,inbox=2")]).unwrap_err();
        assert_eq!(e.var, "WORKER_CONCURRENCY");
        assert_eq!(
            e.message,
            "unknown queue inbox; expected one of default, providers, media, notify"
        );
        let c = cfg(&[("WORKER_CONCURRENCY", "only:notify=2, media=1")]).unwrap();
        assert_eq!(
            c.concurrency.into_iter().collect::<Vec<_>>(),
            [(Queue::Media, 1), (Queue::Notify, 2)]
        );
    }

    #[test]
    fn schedule_overrides_name_their_task() {
        let c = cfg(&[
            ("SCHEDULE_TOKENS_CLEANUP", "0 */5 * * * *"),
            ("SCHEDULE_CLIPS_POLL", "off"),
        ])
        .unwrap();
        assert_eq!(
            c.schedule_overrides[&CronTask::TokensCleanup].as_deref(),
            Some("0 */5 * * * *")
        );
        assert_eq!(c.schedule_overrides[&CronTask::ClipsPoll], None);
        let e = cfg(&[("SCHEDULE_JOBS_PRUNE", "weekly")]).unwrap_err();
        assert!(e.message.contains("SCHEDULE_JOBS_PRUNE"), "{}", e.message);
    }
}
