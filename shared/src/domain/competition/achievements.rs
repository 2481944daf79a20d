//! Achievements (`/api/achievements/*`): definitions seeded per workspace, each a rule "a metric
//! reaches a threshold", evaluated over the athlete's competition results, attended training
//! sessions and wearable rides. An award is stored once per athlete and achievement (a unique
//! key decides, so two checks racing award once), and a new award notifies the athlete (their
//! login and their guardians) in the award's transaction; an award that exists already notifies
//! no one. Awards are never taken back: a result removed later leaves the award in place.
//!
//! A check of one athlete runs inline; a check of the whole workspace is the
//! `achievements.check` job (one per workspace at a time), which calls [`check_athlete`] for each
//! athlete not archived, one transaction each.

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

pub use crate::model::competition::Metric;

use crate::db::{Db, Executor, Id, Ts, Tx};
use crate::domain::InWorkspace;
use crate::domain::notifications;
use crate::error::{Error, Result};
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::achievements::{self as repo, AwardRow, Definition};
use crate::repo::notifications::NewNotification;
use crate::repo::{athletes, audit};

/// The definitions every workspace is seeded with: (code, name, description, metric, threshold).
pub const DEFAULTS: &[(&str, &str, &str, Metric, i64)] = &[
    (
        "first_podium",
        "First podium",
        "Finished in the top three of a competition",
        Metric::Podiums,
        1,
    ),
    (
        "5_podiums",
        "Five podiums",
        "Finished in the top three five times",
        Metric::Podiums,
        5,
    ),
    (
        "first_win",
        "First win",
        "Won a competition",
        Metric::Wins,
        1,
    ),
    (
        "10_sessions",
        "Ten sessions",
        "Attended ten training sessions",
        Metric::Sessions,
        10,
    ),
    (
        "50_sessions",
        "Fifty sessions",
        "Attended fifty training sessions",
        Metric::Sessions,
        50,
    ),
    (
        "50_rides",
        "Fifty rides",
        "Rode fifty waves recorded by a wearable",
        Metric::Rides,
        50,
    ),
    (
        "wave_count_20",
        "Twenty waves in a session",
        "Rode twenty waves in one wearable session",
        Metric::WavesInSession,
        20,
    ),
];

/// A definition as members see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AchievementView {
    pub id: Id,
    pub code: String,
    pub name: String,
    pub description: String,
    /// The rule: `metric` reaches `threshold`.
    pub metric: Metric,
    pub threshold: i64,
    pub created_at: Ts,
}

impl From<Definition> for AchievementView {
    fn from(d: Definition) -> Self {
        AchievementView {
            id: d.id,
            code: d.code,
            name: d.name,
            description: d.description,
            metric: d.metric,
            threshold: d.threshold,
            created_at: d.created_at,
        }
    }
}

/// What a seed did.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Seeded {
    /// Definitions added now (0 when the workspace had them all).
    pub created: u32,
    pub definitions: Vec<AchievementView>,
}

/// An achievement an athlete earned.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AwardView {
    pub id: Id,
    pub athlete_id: Id,
    pub achievement_id: Id,
    pub code: String,
    pub name: String,
    pub description: String,
    /// The metric's value when it was earned.
    pub value: i64,
    pub awarded_at: Ts,
}

impl From<AwardRow> for AwardView {
    fn from(a: AwardRow) -> Self {
        AwardView {
            id: a.id,
            athlete_id: a.athlete_id,
            achievement_id: a.achievement_id,
            code: a.code,
            name: a.name,
            description: a.description,
            value: a.value,
            awarded_at: a.awarded_at,
        }
    }
}

/// One athlete's numbers, as the rules see them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AchievementMetrics)]
pub struct Metrics {
    pub podiums: i64,
    pub wins: i64,
    pub sessions: i64,
    pub rides: i64,
    pub waves_in_session: i64,
}

impl Metrics {
    pub fn value(&self, m: Metric) -> i64 {
        match m {
            Metric::Podiums => self.podiums,
            Metric::Wins => self.wins,
            Metric::Sessions => self.sessions,
            Metric::Rides => self.rides,
            Metric::WavesInSession => self.waves_in_session,
        }
    }

    async fn of(x: &mut impl Executor, athlete: Id) -> Result<Metrics> {
        let per_session = repo::rides_per_session(x, athlete).await?;
        Ok(Metrics {
            podiums: repo::places_within(x, athlete, 3).await?,
            wins: repo::places_within(x, athlete, 1).await?,
            sessions: repo::sessions_attended(x, athlete).await?,
            rides: per_session.iter().sum(),
            waves_in_session: per_session.iter().copied().max().unwrap_or(0),
        })
    }
}

/// What a check found for one athlete.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AthleteCheck {
    pub athlete_id: Id,
    pub metrics: Metrics,
    /// The awards made by this check (none when the athlete had them all already).
    pub awarded: Vec<AwardView>,
    /// Notifications created for the new awards (the athlete's login and guardians).
    pub notified: u32,
}

/// What a workspace-wide check did (the job's result).
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub athletes: u32,
    pub awarded: u32,
    pub notified: u32,
}

/// Who checks: a member in the api, or the member who asked for the job.
#[derive(Clone, Copy, Debug)]
pub struct Checker {
    pub org_id: Id,
    pub user_id: Option<Id>,
    pub impersonator: Option<Id>,
}

impl From<&InWorkspace> for Checker {
    fn from(ws: &InWorkspace) -> Self {
        Checker {
            org_id: ws.org_id,
            user_id: Some(ws.actor.user_id),
            impersonator: ws.actor.impersonator,
        }
    }
}

impl Checker {
    fn audit<'a>(
        &self,
        action: &'a str,
        target_type: &'a str,
        target: impl ToString,
        data: serde_json::Value,
    ) -> audit::Entry<'a> {
        audit::Entry {
            org_id: Some(self.org_id),
            actor: self.user_id,
            impersonator: self.impersonator,
            action,
            target_type,
            target_id: Some(target.to_string()),
            data,
        }
    }
}

/// Adds the default definitions the workspace lacks (by code); running it again adds nothing.
pub async fn seed(db: &Db, ws: &InWorkspace) -> Result<Seeded> {
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let mut created = 0;
    for (code, name, description, metric, threshold) in DEFAULTS {
        let d = Definition {
            id: Id::new(),
            org_id: ws.org_id,
            code: code.to_string(),
            name: name.to_string(),
            description: description.to_string(),
            metric: *metric,
            threshold: *threshold,
            created_at: now,
        };
        if repo::insert_definition(&mut tx, &d).await? {
            created += 1;
        }
    }
    if created > 0 {
        audit::record(
            &mut tx,
            ws.audit(
                "achievements.seeded",
                "org",
                ws.org_id,
                json!({ "created": created }),
            ),
        )
        .await?;
    }
    let definitions = repo::definitions(&mut tx, ws.org_id).await?;
    tx.commit().await?;
    Ok(Seeded {
        created,
        definitions: definitions.into_iter().map(Into::into).collect(),
    })
}

/// The workspace's definitions.
pub async fn definitions(db: &Db, ws: &InWorkspace) -> Result<Vec<AchievementView>> {
    let mut c = db.acquire().await?;
    Ok(repo::definitions(&mut c, ws.org_id)
        .await?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// 409 `achievements_not_seeded` when the workspace has no definitions (checked before a
/// check runs or is queued: there would be nothing to award).
pub async fn require_seeded(db: &Db, org: Id) -> Result<()> {
    let mut c = db.acquire().await?;
    if repo::definitions(&mut c, org).await?.is_empty() {
        return Err(Error::conflict(
            "achievements_not_seeded",
            "this workspace has no achievement definitions yet: seed them first (POST /api/achievements/seed)",
        ));
    }
    Ok(())
}

/// An athlete's awards (404 when the athlete is not the workspace's), newest first.
pub async fn awards(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<AwardView>> {
    let mut c = db.acquire().await?;
    crate::domain::athletes::load(&mut c, ws.org_id, athlete).await?;
    Ok(repo::awards_of(&mut c, ws.org_id, athlete, limit, offset)
        .await?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// Queues the workspace-wide check (202; the one already queued or running when there is one),
/// with an audit entry naming the job.
pub async fn check_all(db: &Db, ws: &InWorkspace) -> Result<Enqueued> {
    require_seeded(db, ws.org_id).await?;
    let job = super::jobs::AchievementsCheck {
        org_id: ws.org_id,
        user_id: Some(ws.actor.user_id),
    };
    let mut tx = db.begin().await?;
    let queued = enqueue(&mut tx, &job, Owner::new(ws.org_id, Some(ws.actor.user_id))).await?;
    audit::record(
        &mut tx,
        ws.audit("achievements.check_requested", "job", queued.id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(queued)
}

/// Checks one athlete of the workspace now (404 when not the workspace's).
pub async fn check_one(db: &Db, ws: &InWorkspace, athlete: Id) -> Result<AthleteCheck> {
    {
        let mut c = db.acquire().await?;
        crate::domain::athletes::load(&mut c, ws.org_id, athlete).await?;
    }
    require_seeded(db, ws.org_id).await?;
    check_athlete(db, &Checker::from(ws), athlete).await
}

/// Evaluates every definition of the workspace for one of its athletes and awards what is
/// earned and not yet held, notifying the athlete of each new award; one transaction.
pub async fn check_athlete(db: &Db, by: &Checker, athlete: Id) -> Result<AthleteCheck> {
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let Some(a) = athletes::get(&mut tx, by.org_id, athlete).await? else {
        return Err(Error::not_found("athlete"));
    };
    let metrics = Metrics::of(&mut tx, a.id).await?;
    let held = repo::awarded_ids(&mut tx, a.id).await?;
    let mut awarded = Vec::new();
    for d in repo::definitions(&mut tx, by.org_id).await? {
        let value = metrics.value(d.metric);
        if value < d.threshold || held.contains(&d.id) {
            continue;
        }
        let Some(id) = repo::award(&mut tx, by.org_id, d.id, a.id, value, now).await? else {
            continue; // a concurrent check awarded it
        };
        audit::record(
            &mut tx,
            by.audit(
                "achievement.awarded",
                "athlete",
                a.id,
                json!({ "achievementId": d.id, "code": d.code, "value": value }),
            ),
        )
        .await?;
        awarded.push(AwardView {
            id,
            athlete_id: a.id,
            achievement_id: d.id,
            code: d.code,
            name: d.name,
            description: d.description,
            value,
            awarded_at: now,
        });
    }
    let notified = notify(&mut tx, by, &a, &awarded).await?;
    tx.commit().await?;
    Ok(AthleteCheck {
        athlete_id: a.id,
        metrics,
        awarded,
        notified,
    })
}

/// Notifies the athlete's login and guardians of each new award (deduplicated per athlete and
/// achievement, so an award is announced once whatever happens later).
async fn notify(
    tx: &mut Tx,
    by: &Checker,
    a: &athletes::Athlete,
    awarded: &[AwardView],
) -> Result<u32> {
    if awarded.is_empty() {
        return Ok(0);
    }
    let mut readers: Vec<Id> = a.user_id.into_iter().collect();
    readers.extend(
        athletes::guardians(&mut *tx, a.id)
            .await?
            .into_iter()
            .map(|g| g.user_id),
    );
    let mut created = Vec::new();
    for w in awarded {
        let data = json!({ "athleteId": a.id, "achievementId": w.achievement_id, "awardId": w.id, "code": w.code });
        let dedupe = format!("achievement:{}:{}", w.achievement_id, a.id);
        for user in &readers {
            let n = crate::repo::notifications::insert(
                &mut *tx,
                &NewNotification {
                    user_id: *user,
                    org_id: Some(by.org_id),
                    kind: "achievement.awarded",
                    title: &format!("Achievement unlocked: {}", w.name),
                    body: &w.description,
                    data: &data,
                    dedupe_key: Some(&dedupe),
                },
                notifications::DEFAULT_CHANNELS,
            )
            .await?;
            created.extend(n);
        }
    }
    let count = created.len() as u32;
    let owner = Owner {
        org_id: Some(by.org_id),
        user_id: by.user_id,
    };
    notifications::fan_out(tx, created, owner).await?;
    Ok(count)
}

/// The workspace-wide check (the `achievements.check` job): every athlete not archived, one
/// transaction each; `progress` is told how far it got (done, total).
pub async fn check_workspace<F, Fut>(db: &Db, by: &Checker, mut progress: F) -> Result<CheckReport>
where
    F: FnMut(usize, usize) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let ids = {
        let mut c = db.acquire().await?;
        repo::athletes_to_check(&mut c, by.org_id).await?
    };
    let mut report = CheckReport::default();
    for (i, id) in ids.iter().enumerate() {
        match check_athlete(db, by, *id).await {
            Ok(r) => {
                report.athletes += 1;
                report.awarded += r.awarded.len() as u32;
                report.notified += r.notified;
            }
            // Deleted (or merged away) while the check ran.
            Err(e) if e.code == "not_found" => {}
            Err(e) => return Err(e),
        }
        progress(i + 1, ids.len()).await?;
    }
    Ok(report)
}
