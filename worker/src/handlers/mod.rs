//! Job handlers. Each job type owns its run ([`RunJob`]); scheduled tasks map to theirs in
//! [`scheduled`]. [`Runners`] is the one dispatch table (kind → runner), built once when the
//! runtime starts. A handler gets a [`Ctx`] and returns a JSON result or a [`JobError`]
//! (permanent: not retried; transient: retried with backoff).
//!
//! A new job type: define it in `jobs::kinds` (and list it in `jobs::kinds::ALL`), implement
//! [`RunJob`] for it here or in its area's handler module, and register it in
//! [`Runners::new`].

mod billing;
mod coaching;
mod competition;
mod footage;
mod imports;
mod mail;
mod maintenance;
mod notify;
mod reports;
mod reviews;
mod uploads;
mod wearable;

use crate::Deps;
use futures::future::BoxFuture;
use jobs::cron::CronTask;
use jobs::kinds::{
    Announcement, AthleteImport, AthleteResync, CompetitionImport, NotificationDrain,
    NotificationFanout, Probe, TrainingImport,
};
use jobs::{Job, JobError, progress};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use shared::db::Id;
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

/// The dispatch table: every job kind and scheduled task to its runner.
pub struct Runners {
    by_kind: HashMap<Box<str>, Runner>,
}

impl Runners {
    /// Every runner. Registering a kind twice panics (a test builds the table).
    pub fn new() -> Runners {
        let mut t = Runners {
            by_kind: HashMap::new(),
        };
        t.job::<Probe>();
        t.job::<AthleteImport>();
        t.job::<TrainingImport>();
        t.job::<AthleteResync>();
        t.job::<CompetitionImport>();
        t.job::<jobs::kinds::SeasonReport>();
        t.job::<jobs::kinds::AchievementsCheck>();
        t.job::<NotificationFanout>();
        t.job::<NotificationDrain>();
        t.job::<Announcement>();
        t.job::<jobs::kinds::ProbeClip>();
        t.job::<jobs::kinds::SubmitClip>();
        t.job::<jobs::kinds::PollClip>();
        t.job::<jobs::kinds::CancelAnalysis>();
        t.job::<jobs::kinds::StoreClip>();
        t.job::<jobs::kinds::StoreSession>();
        t.job::<jobs::kinds::DeleteObjects>();
        t.job::<jobs::kinds::JoinUpload>();
        t.job::<jobs::kinds::BuildReview>();
        t.job::<jobs::kinds::TranscribeNote>();
        t.job::<jobs::kinds::GenerateCoaching>();
        t.job::<jobs::kinds::NarrateProgress>();
        t.job::<jobs::kinds::ApplyPaymentEvent>();
        t.job::<jobs::kinds::DeriveSession>();
        t.job::<jobs::kinds::IngestFile>();
        t.job::<jobs::kinds::ExpireSession>();
        for &task in CronTask::ALL {
            t.insert(task.kind(), scheduled(task));
        }
        t
    }

    fn job<J: RunJob>(&mut self) {
        self.insert(J::KIND.to_string(), run_job::<J>);
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
impl RunJob for AthleteImport {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        imports::athletes_import(ctx, self).await
    }
}

impl RunJob for TrainingImport {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        imports::training_import(ctx, self).await
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

impl RunJob for jobs::kinds::AchievementsCheck {
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

    #[test]
    fn every_job_kind_and_scheduled_task_has_exactly_one_runner() {
        // `new` panics on a kind registered twice; here: nothing missing, nothing extra.
        let table = Runners::new();
        let mut want: Vec<String> = jobs::kinds::ALL
            .iter()
            .map(|k| k.kind.to_string())
            .chain(CronTask::ALL.iter().map(|t| t.kind()))
            .collect();
        want.sort();
        let mut have: Vec<String> = table.kinds().map(str::to_string).collect();
        have.sort();
        assert_eq!(have, want);
    }

    #[test]
    #[should_panic(expected = "two runners for job kind diagnostics.probe")]
    fn registering_a_kind_twice_is_refused() {
        let mut table = Runners::new();
        table.job::<Probe>();
    }
}
