//! Job handlers. Each job type owns its run ([`RunJob`]); scheduled tasks map to theirs in
//! [`scheduled`]. [`Runners`] is the one dispatch table (kind → runner), built once when the
//! runtime starts. A handler gets a [`Ctx`] and returns a JSON result or a [`JobError`]
//! (permanent: not retried; transient: retried with backoff).
//!
//! A new job type: define its payload and `shared::job::Job` impl in its area's `jobs` module
//! (`shared::domain::<area>::jobs`), implement [`RunJob`] for it in the area's handler module
//! here, and add its one line to [`Runners::new`]: the table is also the registry of kinds
//! the api reads ([`registry`]: which kinds exist, which may be cancelled).

mod billing;
mod coaching;
mod competition;
mod footage;
mod imports;
mod mail;
mod maintenance;
mod media;
mod notify;
/// FCM and Web Push requests a notify job has in flight at once (the process tests bound what a
/// kill resends with it).
pub use notify::PARALLEL as PUSH_PARALLEL;
mod reports;
mod reviews;
mod uploads;
mod wearable;

use crate::Deps;
use futures::future::BoxFuture;
use jobs::diagnostics::Probe;
use jobs::{JobError, progress};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use shared::db::Id;
use shared::domain::athletes::jobs::AthleteResync;
use shared::domain::billing::jobs::ApplyPaymentEvent;
use shared::domain::competition::jobs::{AchievementsCheck, CompetitionImport};
use shared::domain::footage::jobs::{
    AnalyzeClip, CancelAnalysis, DeleteObjects, JoinUpload, PollClip, ProbeClip, RenderClip,
    StoreClip, StoreSession,
};
use shared::domain::notifications::jobs::{Announcement, NotificationDrain, NotificationFanout};
use shared::domain::reviews::jobs::{
    BuildReview, GenerateCoaching, NarrateProgress, TranscribeNote,
};
use shared::domain::season_report::GenerateReport;
use shared::domain::wearable::jobs::{DeriveSession, ExpireSession, IngestFile};
use shared::import::athletes::AthleteImporter;
use shared::import::training::TrainingImporter;
use shared::import::{Background, ImportFile};
use shared::job::scheduled::CronTask;
use shared::job::{Job, Queue};
use shared::providers::ProviderError;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// What a running job can reach.
pub struct Ctx {
    pub deps: Arc<Deps>,
    pub job_id: Id,
    pub org_id: Option<Id>,
    /// This attempt, from 1.
    pub attempt: u32,
    pub max_attempts: u32,
}

impl Ctx {
    /// Whether a transient failure now would not be retried: a best-effort handler records
    /// its give-up instead of failing silently.
    pub fn last_attempt(&self) -> bool {
        self.attempt >= self.max_attempts
    }

    /// Records progress the api reads back (percent 0–100 and/or a message).
    pub async fn progress(
        &self,
        percent: Option<i64>,
        message: Option<&str>,
    ) -> Result<(), JobError> {
        let mut c = self.deps.db.acquire().await?;
        progress::report(&mut c, self.job_id, percent, message).await?;
        Ok(())
    }

    /// The generative model's adapter (not configured: `ProviderError::NotConfigured`).
    pub fn model(&self) -> Result<shared::providers::model::Model, ProviderError> {
        shared::providers::model::Model::from_config(
            self.deps.cfg.model.as_ref(),
            shared::providers::http::shared_client().clone(),
        )
    }

    /// Whether someone asked this job to stop; long handlers check it between steps.
    pub async fn cancelled(&self) -> Result<bool, JobError> {
        let mut c = self.deps.db.acquire().await?;
        Ok(progress::is_cancel_requested(&mut c, self.job_id).await?)
    }
}

/// A job type's work in the worker: the payload, parsed, runs itself.
pub trait RunJob: Job + DeserializeOwned + 'static {
    fn run(self, ctx: &Ctx) -> impl Future<Output = Result<Value, JobError>> + Send;
}

/// One entry of the dispatch table: runs a job of its kind from the stored payload.
pub type Runner = for<'a> fn(&'a Ctx, Value) -> BoxFuture<'a, Result<Value, JobError>>;

/// A job type's constants, for code that has only a stored kind (the api's job views).
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    pub kind: &'static str,
    pub queue: Queue,
    pub cancellable: bool,
}

/// The dispatch table: every job kind and scheduled task to its runner, and each job type's
/// constants.
pub struct Runners {
    by_kind: HashMap<Box<str>, Runner>,
    jobs: Vec<KindInfo>,
}

impl Runners {
    /// Every runner: one line per job type. Registering a kind twice panics (a test builds the
    /// table).
    pub fn new() -> Runners {
        let mut t = Runners {
            by_kind: HashMap::new(),
            jobs: Vec::new(),
        };
        t.job::<Probe>();
        t.job::<ImportFile<AthleteImporter>>();
        t.job::<ImportFile<TrainingImporter>>();
        t.job::<AthleteResync>();
        t.job::<CompetitionImport>();
        t.job::<GenerateReport>();
        t.job::<AchievementsCheck>();
        t.job::<NotificationFanout>();
        t.job::<NotificationDrain>();
        t.job::<Announcement>();
        t.job::<ProbeClip>();
        t.job::<RenderClip>();
        t.job::<AnalyzeClip>();
        t.job::<PollClip>();
        t.job::<CancelAnalysis>();
        t.job::<StoreClip>();
        t.job::<StoreSession>();
        t.job::<DeleteObjects>();
        t.job::<JoinUpload>();
        t.job::<BuildReview>();
        t.job::<TranscribeNote>();
        t.job::<GenerateCoaching>();
        t.job::<NarrateProgress>();
        t.job::<ApplyPaymentEvent>();
        t.job::<DeriveSession>();
        t.job::<IngestFile>();
        t.job::<ExpireSession>();
        for &task in CronTask::ALL {
            t.insert(task.kind(), scheduled(task));
        }
        t
    }

    fn job<J: RunJob>(&mut self) {
        self.insert(J::KIND.to_string(), run_job::<J>);
        self.jobs.push(KindInfo {
            kind: J::KIND,
            queue: J::QUEUE,
            cancellable: J::CANCELLABLE,
        });
    }

    /// Every job type (scheduled tasks are `CronTask::ALL`).
    pub fn jobs(&self) -> &[KindInfo] {
        &self.jobs
    }

    /// Whether jobs of `kind` may be cancelled by a user.
    pub fn is_cancellable(&self, kind: &str) -> bool {
        self.jobs.iter().any(|k| k.kind == kind && k.cancellable)
    }

    /// Whether `kind` names a job type or a scheduled task's jobs.
    pub fn is_known_kind(&self, kind: &str) -> bool {
        self.by_kind.contains_key(kind)
    }

    fn insert(&mut self, kind: String, runner: Runner) {
        let kind = kind.into_boxed_str();
        assert!(
            !self.by_kind.contains_key(&kind),
            "two runners for job kind {kind}"
        );
        self.by_kind.insert(kind, runner);
    }

    /// Runs a job of `kind`; an unknown kind fails permanently.
    pub async fn dispatch(&self, ctx: &Ctx, kind: &str, payload: Value) -> Result<Value, JobError> {
        match self.by_kind.get(kind) {
            Some(run) => run(ctx, payload).await,
            None => Err(JobError::Permanent(match kind.strip_prefix("cron.") {
                Some(name) => format!("no scheduled task named {name}"),
                None => format!("no handler for job kind {kind}"),
            })),
        }
    }

    /// The kinds that have a runner.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.by_kind.keys().map(|k| &**k)
    }
}

impl Default for Runners {
    fn default() -> Self {
        Runners::new()
    }
}

/// The table, built once per process: the registry of kinds the api reads.
pub fn registry() -> &'static Runners {
    static TABLE: std::sync::OnceLock<Runners> = std::sync::OnceLock::new();
    TABLE.get_or_init(Runners::new)
}

fn run_job<'a, J: RunJob>(ctx: &'a Ctx, payload: Value) -> BoxFuture<'a, Result<Value, JobError>> {
    Box::pin(async move {
        let job: J = serde_json::from_value(payload)
            .map_err(|e| JobError::Permanent(format!("bad payload: {e}")))?;
        job.run(ctx).await
    })
}

/// A runner from an async fn of the context alone (scheduled tasks take no payload).
macro_rules! task_runner {
    ($f:expr) => {{
        fn run(ctx: &Ctx, _: Value) -> BoxFuture<'_, Result<Value, JobError>> {
            Box::pin($f(ctx))
        }
        run as Runner
    }};
}

/// The runner of each scheduled task.
fn scheduled(task: CronTask) -> Runner {
    use CronTask::*;
    match task {
        TokensCleanup => task_runner!(maintenance::tokens_cleanup),
        JobsPrune => task_runner!(maintenance::jobs_prune),
        AuditRetention => task_runner!(maintenance::audit_retention),
        DbMaintenance => task_runner!(maintenance::db_maintenance),
        WaitlistDigest => task_runner!(mail::waitlist_digest),
        VerificationReminders => task_runner!(mail::verification_reminders),
        UploadsExpire => task_runner!(uploads::expire),
        NotificationsDue => task_runner!(notify::due),
        PushReceipts => task_runner!(notify::push_receipts),
        TourindexSync => task_runner!(competition::tourindex_sync),
        TourindexAthletesSync => task_runner!(competition::tourindex_athletes_sync),
        TourindexAvatars => task_runner!(competition::tourindex_avatars),
        HeatsourceOrgsSync => task_runner!(competition::heatsource_orgs_sync),
        HeatsourceSync => task_runner!(competition::heatsource_sync),
        BackfillSpots => task_runner!(competition::backfill_spots),
        ForecastsRefresh => task_runner!(competition::forecasts_refresh),
        ClipsPoll => task_runner!(footage::clips_poll),
    }
}

// The imports' bodies live in `imports.rs` (being moved onto the import pipeline); their
// registration is here.
impl<I: Background> RunJob for ImportFile<I> {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        imports::import_file(ctx, self).await
    }
}

impl RunJob for AthleteResync {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        competition::athletes_resync(ctx, self).await
    }
}

impl RunJob for CompetitionImport {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        competition::import(ctx, self).await
    }
}

impl RunJob for AchievementsCheck {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        competition::achievements_check(ctx, self).await
    }
}

/// The diagnostics probe: applies its effect once (first, so a failing or killed attempt
/// leaves it applied for the next one to find), fails as asked, burns CPU as asked, sleeps in steps of at least
/// 40 ms (at most ten, each reporting progress and honouring cancellation), and echoes its
/// marker, attempt and what its effect did.
impl RunJob for Probe {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let effect = match &self.effect {
            Some(key) => {
                let mut tx = ctx.deps.db.begin().await?;
                let fresh = jobs::diagnostics::claim_effect(&mut tx, key, ctx.job_id).await?;
                if fresh {
                    jobs::diagnostics::append_effect(&mut tx, key, ctx.job_id, ctx.attempt.into())
                        .await?;
                }
                tx.commit().await?;
                Some(if fresh { "applied" } else { "already applied" })
            }
            None => None,
        };
        if self.fail_permanently {
            return Err(JobError::Permanent(
                "probe asked to fail permanently".into(),
            ));
        }
        if ctx.attempt <= self.fail_attempts {
            return Err(JobError::Transient(format!(
                "probe asked to fail attempt {}",
                ctx.attempt
            )));
        }
        if self.cpu_ms > 0 {
            let cpu = Duration::from_millis(self.cpu_ms);
            tokio::task::spawn_blocking(move || burn_cpu(cpu))
                .await
                .map_err(|e| JobError::Transient(format!("the CPU burn failed: {e}")))?;
        }
        if self.sleep_ms > 0 {
            let steps = (self.sleep_ms / 40).clamp(1, 10);
            for i in 1..=steps {
                tokio::time::sleep(Duration::from_millis(self.sleep_ms / steps)).await;
                if ctx.cancelled().await? {
                    return Err(JobError::Cancelled);
                }
                ctx.progress(Some((i * 100 / steps) as i64), Some("sleeping"))
                    .await?;
            }
        }
        // The process that ran it: the multi-host tests count each worker's share.
        let pid = std::process::id();
        Ok(json!({ "marker": self.marker, "attempt": ctx.attempt, "effect": effect, "pid": pid }))
    }
}

/// Keeps this thread busy until it has used `cpu` of CPU time (read from
/// `/proc/thread-self/schedstat`, so a thread that waits for a core still burns all of it; where
/// that file is missing, `cpu` of wall-clock time).
fn burn_cpu(cpu: Duration) {
    fn on_cpu() -> Option<Duration> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(ns))
    }
    let wall = std::time::Instant::now();
    let start = on_cpu();
    let mut x = 0u64;
    loop {
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
        }
        let used = match (start, on_cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => wall.elapsed(),
        };
        if used >= cpu {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burn_cpu_uses_about_the_cpu_time_asked() {
        let t = std::time::Instant::now();
        burn_cpu(Duration::from_millis(20));
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(20), "stopped early: {took:?}");
    }

    /// Every job type defined in the sources (a `const KIND`/`JOB_KIND` literal in `shared` or
    /// `jobs`) is registered, and every scheduled task has its runner: a job type defined but
    /// not registered would fail every run with "no handler".
    #[test]
    fn every_job_type_in_the_sources_and_every_scheduled_task_is_registered() {
        fn kinds_in(dir: &std::path::Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    kinds_in(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let src = std::fs::read_to_string(&p).unwrap();
                    for line in src.lines() {
                        let line = line.trim();
                        for prefix in [
                            "const KIND: &'static str = \"",
                            "const JOB_KIND: &'static str = \"",
                        ] {
                            if let Some(rest) = line.strip_prefix(prefix) {
                                out.push(rest.trim_end_matches("\";").to_string());
                            }
                        }
                    }
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut defined = vec![];
        kinds_in(&root.join("shared/src"), &mut defined);
        kinds_in(&root.join("jobs/src"), &mut defined);
        // Import kinds (`Importer::KIND`) name staged files, not jobs.
        defined.retain(|k| !matches!(k.as_str(), "athletes" | "training" | "footage_manifest"));
        defined.sort();
        let table = Runners::new();
        let mut registered: Vec<String> = table.jobs().iter().map(|k| k.kind.to_string()).collect();
        registered.sort();
        assert_eq!(registered, defined);
        for &t in CronTask::ALL {
            assert!(table.is_known_kind(&t.kind()), "{t} has no runner");
        }
        assert!(table.is_cancellable(Probe::KIND));
        assert!(!table.is_cancellable(AthleteImporter::JOB_KIND));
        assert!(!table.is_known_kind("athletes.imports"));
    }

    #[test]
    #[should_panic(expected = "two runners for job kind diagnostics.probe")]
    fn registering_a_kind_twice_is_refused() {
        let mut table = Runners::new();
        table.job::<Probe>();
    }
}
