//! An athlete's progress across footage sessions: numbers computed from the stored clip stats
//! alone ([`compute`], deterministic), answered at once and stored as a `progress` feedback
//! row. A model only writes the narrative, afterwards, in the `coaching.narrate` job; without a
//! model the numbers stand and the narrative is `null` with the reason.
//!
//! Per session (its analysed clips of the athlete): waves (sum of the clips' wave counts),
//! rides, mean and longest ride in seconds, top speed (the clips' highest), and the maneuver
//! mix (count per type and its share of the session's maneuvers). Trends over the sessions in
//! time order: first, last, change (last − first) and the least-squares slope per session
//! (x = the session's position 0, 1, …; sessions without a value are left out; at least two
//! points). Fractional numbers are rounded to 3 decimals.

use super::coaching::{FeedbackKind, insert_next, stats_of};
use super::jobs::NarrateProgress;
use crate::config::ModelConfig;
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::job::{Enqueued, Owner, enqueue};
use crate::providers::analysis::ClipStats;
use crate::repo::coaching::{self as repo, Feedback};
use crate::repo::footage::{self, Session};
use crate::repo::{athletes, audit};
use crate::{Error, Result};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::types::Json;
use std::collections::BTreeMap;

/// Sessions when none are named: the athlete's latest this many.
pub const DEFAULT_SESSIONS: i64 = 10;
/// The most sessions one report covers.
pub const MAX_SESSIONS: usize = 50;
/// The narrative's prompt and schema version (stored with the narrative).
pub const PROMPT: &str = "coaching.progress.v1";
pub const SCHEMA_NAME: &str = "progress_narrative";
pub const SYSTEM: &str = "You are an experienced surf coach. You receive an athlete's measured \
numbers per surf session, oldest first, and their trends (first, last, change, slope per session). \
Write a short narrative of the athlete's progress for the athlete and their coach, citing the \
numbers. Do not invent numbers. Answer in the JSON schema given.";

crate::text_enum! {
    /// Where a progress report's narrative stands.
    pub enum NarrativeStatus {
        /// The narrate job is on it.
        Pending = "pending",
        Written = "written",
        /// No model is configured (`narrativeReason`: `provider_not_configured`).
        Unavailable = "unavailable",
        /// The model refused or kept failing (`narrativeReason` says how).
        Failed = "failed",
    }
}

/// One session's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionNumbers {
    pub session_id: Id,
    pub title: String,
    /// The footage session's creation time (the order of the trends).
    pub date: Ts,
    /// Analysed clips of the athlete counted.
    pub clips: i64,
    pub waves: i64,
    pub rides: i64,
    /// null without rides.
    pub mean_ride_seconds: Option<f64>,
    pub longest_ride_seconds: Option<f64>,
    pub top_speed_kmh: Option<f64>,
    pub maneuver_count: i64,
    /// Count per maneuver type.
    pub maneuvers: BTreeMap<String, i64>,
    /// Share of the session's maneuvers per type (0 to 1).
    pub maneuver_mix: BTreeMap<String, f64>,
}

/// One number's course over the sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trend {
    /// Sessions that have the number.
    pub points: i64,
    pub first: Option<f64>,
    pub last: Option<f64>,
    /// last − first.
    pub change: Option<f64>,
    /// Least-squares slope per session; null under two points.
    pub slope_per_session: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trends {
    pub waves: Trend,
    pub rides: Trend,
    pub mean_ride_seconds: Trend,
    pub longest_ride_seconds: Trend,
    pub top_speed_kmh: Trend,
    pub maneuver_count: Trend,
    /// The share of each maneuver type (sessions without maneuvers left out).
    pub maneuver_mix: BTreeMap<String, Trend>,
}

/// A progress row's `output`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressReport {
    /// Oldest first.
    pub sessions: Vec<SessionNumbers>,
    pub trends: Trends,
    pub narrative: Option<String>,
    pub narrative_status: NarrativeStatus,
    /// Why there is no narrative: `provider_not_configured`, or the model's failure.
    pub narrative_reason: Option<String>,
}

/// Rounds to 3 decimals (and never answers -0).
fn round3(v: f64) -> f64 {
    let r = (v * 1000.0).round() / 1000.0;
    if r == 0.0 { 0.0 } else { r }
}

/// One session's numbers from its clips' stats.
pub fn session_numbers(s: &Session, clips: &[ClipStats]) -> SessionNumbers {
    let rides: Vec<u64> = clips
        .iter()
        .flat_map(|c| c.rides.iter().map(|r| r.end_ms.saturating_sub(r.start_ms)))
        .collect();
    let mut maneuvers = BTreeMap::new();
    for m in clips.iter().flat_map(|c| &c.maneuvers) {
        *maneuvers.entry(m.kind.clone()).or_insert(0i64) += 1;
    }
    let maneuver_count: i64 = maneuvers.values().sum();
    let maneuver_mix = maneuvers
        .iter()
        .map(|(k, n)| (k.clone(), round3(*n as f64 / maneuver_count as f64)))
        .collect();
    SessionNumbers {
        session_id: s.id,
        title: s.title.clone(),
        date: s.created_at,
        clips: clips.len() as i64,
        waves: clips.iter().map(|c| i64::from(c.wave_count)).sum(),
        rides: rides.len() as i64,
        mean_ride_seconds: (!rides.is_empty())
            .then(|| round3(rides.iter().sum::<u64>() as f64 / rides.len() as f64 / 1000.0)),
        longest_ride_seconds: rides.iter().max().map(|m| round3(*m as f64 / 1000.0)),
        top_speed_kmh: clips
            .iter()
            .map(|c| c.top_speed_kmh)
            .reduce(f64::max)
            .map(round3),
        maneuver_count,
        maneuvers,
        maneuver_mix,
    }
}

/// The trend of the values at positions 0, 1, … (`None`: no value there).
pub fn trend(values: &[Option<f64>]) -> Trend {
    let pts: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i as f64, v)))
        .collect();
    let first = pts.first().map(|p| p.1);
    let last = pts.last().map(|p| p.1);
    let slope = (pts.len() >= 2).then(|| {
        let n = pts.len() as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        round3(sxy / sxx)
    });
    Trend {
        points: pts.len() as i64,
        first: first.map(round3),
        last: last.map(round3),
        change: first.zip(last).map(|(f, l)| round3(l - f)),
        slope_per_session: slope,
    }
}

/// The trends of sessions in time order.
pub fn trends(sessions: &[SessionNumbers]) -> Trends {
    let of = |f: &dyn Fn(&SessionNumbers) -> Option<f64>| {
        trend(&sessions.iter().map(f).collect::<Vec<_>>())
    };
    let types: std::collections::BTreeSet<&String> =
        sessions.iter().flat_map(|s| s.maneuvers.keys()).collect();
    let maneuver_mix = types
        .into_iter()
        .map(|t| {
            let shares: Vec<Option<f64>> = sessions
                .iter()
                .map(|s| {
                    (s.maneuver_count > 0).then(|| s.maneuver_mix.get(t).copied().unwrap_or(0.0))
                })
                .collect();
            (t.clone(), trend(&shares))
        })
        .collect();
    Trends {
        waves: of(&|s| Some(s.waves as f64)),
        rides: of(&|s| Some(s.rides as f64)),
        mean_ride_seconds: of(&|s| s.mean_ride_seconds),
        longest_ride_seconds: of(&|s| s.longest_ride_seconds),
        top_speed_kmh: of(&|s| s.top_speed_kmh),
        maneuver_count: of(&|s| Some(s.maneuver_count as f64)),
        maneuver_mix,
    }
}

/// A progress request as sent: named sessions, or the athlete's latest `last` (default 10)
/// created between `from` and `to` (dates, inclusive).
#[derive(Debug, Default)]
pub struct RawProgress<'a> {
    pub athlete_id: Id,
    pub session_ids: Option<&'a [Id]>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub last: Option<i64>,
}

fn date(v: &mut Validator, field: &str, s: Option<&str>) -> Option<NaiveDate> {
    v.date_text(field, s?, crate::times::TimeKind::Calendar)
}

fn day_start(d: NaiveDate) -> Ts {
    Ts::from_datetime(d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())
}

/// What the report was computed from: per session, its analysed clips' stats (the row's
/// `input`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressInput {
    pub athlete_id: Id,
    pub sessions: Vec<SessionInput>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInput {
    pub session_id: Id,
    pub clips: Vec<ClipStatsInput>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipStatsInput {
    pub clip_id: Id,
    pub stats: ClipStats,
}

/// Computes an athlete's progress, stores it as the next version of `progress:{athlete}` and,
/// with a model configured, enqueues its narrative (returned job). 404 for an athlete or a
/// session that is not this workspace's.
pub async fn request(
    db: &Db,
    model: Option<&ModelConfig>,
    ws: &InWorkspace,
    raw: &RawProgress<'_>,
) -> Result<(Feedback, Option<Enqueued>)> {
    let mut v = Validator::new();
    let from = date(&mut v, "from", raw.from);
    let to = date(&mut v, "to", raw.to);
    if let (Some(f), Some(t)) = (from, to) {
        v.check(f <= t, "to", "out_of_range", "must not be before from");
    }
    let last = raw.last.unwrap_or(DEFAULT_SESSIONS);
    v.check(
        (1..=MAX_SESSIONS as i64).contains(&last),
        "last",
        "out_of_range",
        "must be between 1 and 50",
    );
    if let Some(ids) = raw.session_ids {
        v.check(
            !ids.is_empty(),
            "sessionIds",
            "required",
            "name at least one session",
        );
        v.check(
            ids.len() <= MAX_SESSIONS,
            "sessionIds",
            "too_long",
            "at most 50 sessions",
        );
    }
    v.finish()?;
    let athlete = raw.athlete_id;
    let mut tx = db.begin().await?;
    athletes::get(&mut tx, ws.org_id, athlete)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    let mut sessions = match raw.session_ids {
        Some(ids) => {
            let mut out = Vec::new();
            for id in ids {
                let s = footage::get_session(&mut tx, ws.org_id, *id)
                    .await?
                    .ok_or_else(|| Error::not_found("footage session"))?;
                if !out.iter().any(|o: &Session| o.id == s.id) {
                    out.push(s);
                }
            }
            out
        }
        None => {
            repo::athlete_sessions(
                &mut tx,
                ws.org_id,
                athlete,
                from.map(day_start),
                to.and_then(|t| t.succ_opt()).map(day_start),
                last,
            )
            .await?
        }
    };
    sessions.sort_by_key(|s| (s.created_at, s.id));
    let mut input = ProgressInput {
        athlete_id: athlete,
        sessions: Vec::new(),
    };
    let mut numbers = Vec::new();
    for s in &sessions {
        let clips: Vec<ClipStatsInput> = footage::session_clips(&mut tx, s.id)
            .await?
            .iter()
            .filter(|k| k.athlete_id.or(s.athlete_id) == Some(athlete))
            .filter_map(|k| {
                stats_of(k).map(|stats| ClipStatsInput {
                    clip_id: k.id,
                    stats,
                })
            })
            .collect();
        if clips.is_empty() {
            if raw.session_ids.is_some() {
                return Err(Error::field(
                    "sessionIds",
                    "no_analysed_clips",
                    format!("session {} has no analysed clip of this athlete", s.id),
                ));
            }
            continue;
        }
        let stats: Vec<ClipStats> = clips.iter().map(|c| c.stats.clone()).collect();
        numbers.push(session_numbers(s, &stats));
        input.sessions.push(SessionInput {
            session_id: s.id,
            clips,
        });
    }
    if numbers.is_empty() {
        return Err(Error::field(
            "athleteId",
            "no_analysed_sessions",
            "the athlete has no session with an analysed clip in that range",
        ));
    }
    let trends = trends(&numbers);
    let id = Id::new();
    let job = match model {
        Some(_) => {
            let work = NarrateProgress {
                org_id: ws.org_id,
                feedback_id: id,
            };
            let e = enqueue(
                &mut tx,
                &work,
                Owner::new(ws.org_id, Some(ws.actor.user_id)),
            )
            .await?;
            Some(e)
        }
        None => None,
    };
    let report = ProgressReport {
        sessions: numbers,
        trends,
        narrative: None,
        narrative_status: if job.is_some() {
            NarrativeStatus::Pending
        } else {
            NarrativeStatus::Unavailable
        },
        narrative_reason: job.is_none().then(|| "provider_not_configured".to_string()),
    };
    let f = Feedback {
        id,
        org_id: ws.org_id,
        kind: FeedbackKind::Progress,
        subject: format!("progress:{athlete}"),
        version: 0,
        session_id: None,
        clip_id: None,
        athlete_id: Some(athlete),
        input: Json(serde_json::to_value(&input).unwrap_or_default()),
        output: Some(Json(serde_json::to_value(&report).unwrap_or_default())),
        model: None,
        model_version: None,
        job_id: job.map(|j| j.id),
        created_by: Some(ws.actor.user_id),
        created_at: Ts::now(),
    };
    let f = insert_next(&mut tx, &f).await?;
    let data =
        json!({ "feedbackId": f.id, "version": f.version, "sessions": input.sessions.len() });
    audit::record(
        &mut tx,
        ws.audit("coaching.progress", "athlete", athlete, data),
    )
    .await?;
    tx.commit().await?;
    Ok((f, job))
}

/// The narrative's JSON Schema.
pub fn narrative_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["narrative"],
        "properties": { "narrative": { "type": "string" } }
    })
}

/// What the narrate job asks the model, from the stored report: `None` when the row is gone
/// or already has its narrative (a job run twice asks once).
pub async fn narrative_request(db: &Db, work: &NarrateProgress) -> Result<Option<String>> {
    let mut c = db.acquire().await?;
    let Some(report) = load(&mut c, work).await? else {
        return Ok(None);
    };
    if report.1.narrative.is_some() {
        return Ok(None);
    }
    let msg = json!({
        "prompt": PROMPT,
        "sessions": report.1.sessions,
        "trends": report.1.trends,
    });
    Ok(Some(msg.to_string()))
}

async fn load(
    x: &mut impl crate::db::Executor,
    work: &NarrateProgress,
) -> Result<Option<(Feedback, ProgressReport)>> {
    let Some(f) = repo::get(x, work.org_id, work.feedback_id).await? else {
        return Ok(None);
    };
    let report = f
        .output
        .as_ref()
        .and_then(|o| serde_json::from_value::<ProgressReport>(o.0.clone()).ok())
        .ok_or_else(|| Error::conflict("not_progress", "the feedback is not a progress report"))?;
    Ok(Some((f, report)))
}

/// Records the narrative (or, with `narrative: None`, why there is none) in the report.
/// Returns false when the row is gone.
pub async fn record_narrative(
    db: &Db,
    work: &NarrateProgress,
    outcome: Narrated<'_>,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    let Some((f, mut report)) = load(&mut tx, work).await? else {
        return Ok(false);
    };
    let (model, version) = match outcome {
        Narrated::Written {
            text,
            model,
            model_version,
        } => {
            report.narrative = Some(text.to_string());
            report.narrative_status = NarrativeStatus::Written;
            report.narrative_reason = None;
            (Some(model), Some(model_version))
        }
        Narrated::Missing { status, reason } => {
            if report.narrative.is_some() {
                return Ok(true);
            }
            report.narrative_status = status;
            report.narrative_reason = Some(reason.to_string());
            (None, None)
        }
    };
    let output = serde_json::to_value(&report).unwrap_or_default();
    repo::set_output(&mut tx, f.id, &output, model, version).await?;
    tx.commit().await?;
    Ok(true)
}

/// A narrate job's outcome.
#[derive(Debug, Clone, Copy)]
pub enum Narrated<'a> {
    Written {
        text: &'a str,
        model: &'a str,
        model_version: &'a str,
    },
    /// No narrative: `Unavailable` (no model) or `Failed` (with the model's error).
    Missing {
        status: NarrativeStatus,
        reason: &'a str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::footage::SessionStatus;
    use crate::providers::analysis::{PredictedManeuver, RideWindow};

    fn session() -> Session {
        Session {
            id: Id::new(),
            org_id: Id::new(),
            training_session_id: None,
            athlete_id: None,
            title: "t".into(),
            status: SessionStatus::Stored,
            created_by: None,
            created_at: Ts::now(),
            updated_at: Ts::now(),
        }
    }

    fn stats(waves: u32, top: f64, rides: &[(u64, u64)], kinds: &[&str]) -> ClipStats {
        ClipStats {
            duration_ms: 60_000,
            wave_count: waves,
            top_speed_kmh: top,
            avg_speed_kmh: 10.0,
            rides: rides
                .iter()
                .map(|(s, e)| RideWindow {
                    start_ms: *s,
                    end_ms: *e,
                    top_speed_kmh: None,
                })
                .collect(),
            maneuvers: kinds
                .iter()
                .map(|k| PredictedManeuver {
                    kind: k.to_string(),
                    at_ms: 0,
                    confidence: 0.9,
                    ride_index: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_sessions_numbers_sum_its_clips() {
        let n = session_numbers(
            &session(),
            &[
                stats(
                    2,
                    25.0,
                    &[(0, 4000), (10_000, 16_000)],
                    &["cutback", "snap"],
                ),
                stats(1, 31.5, &[(0, 5000)], &["cutback"]),
            ],
        );
        assert_eq!((n.clips, n.waves, n.rides), (2, 3, 3));
        assert_eq!(n.mean_ride_seconds, Some(5.0));
        assert_eq!(n.longest_ride_seconds, Some(6.0));
        assert_eq!(n.top_speed_kmh, Some(31.5));
        assert_eq!(n.maneuver_count, 3);
        assert_eq!(n.maneuvers["cutback"], 2);
        assert_eq!(n.maneuver_mix["cutback"], 0.667);
        assert_eq!(n.maneuver_mix["snap"], 0.333);
        let empty = session_numbers(&session(), &[stats(0, 0.0, &[], &[])]);
        assert_eq!(
            (empty.mean_ride_seconds, empty.longest_ride_seconds),
            (None, None)
        );
    }

    #[test]
    fn a_trend_is_first_last_change_and_least_squares_slope() {
        let t = trend(&[Some(2.0), Some(4.0), Some(9.0)]);
        assert_eq!(
            (t.first, t.last, t.change),
            (Some(2.0), Some(9.0), Some(7.0))
        );
        assert_eq!(t.slope_per_session, Some(3.5));
        // A gap keeps the others' positions.
        let t = trend(&[Some(1.0), None, Some(5.0)]);
        assert_eq!((t.points, t.slope_per_session), (2, Some(2.0)));
        let t = trend(&[Some(1.0)]);
        assert_eq!((t.slope_per_session, t.change), (None, Some(0.0)));
        assert_eq!(trend(&[None]).first, None);
    }
}
