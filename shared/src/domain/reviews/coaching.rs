//! Coaching feedback: text a generative model writes from a footage session's measured clips
//! and the coach's keypoints, per clip or for a batch of clips, stored with exactly what it
//! was given (`input`), the answer (`output`), the model and its version. Regenerating adds the
//! subject's next version and keeps the earlier ones.
//!
//! A member asks ([`request`]); the `coaching.generate` job [`plan`]s the inputs, asks the model
//! once per planned item (in the worker, where a provider error becomes a retry or a failure)
//! and [`store`]s every answer in one transaction, so a failed attempt writes nothing.
//! Progress across sessions is [`super::progress`]; the printable report [`super::report`].

pub use crate::model::reviews::{CoachingMode, FeedbackKind};

use super::KeypointOrigin;
use super::jobs::GenerateCoaching;
use crate::config::ModelConfig;
use crate::db::{Db, Id, Ts, is_unique_violation};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::job::{Enqueued, Owner, enqueue};
use crate::providers::analysis::ClipStats;
use crate::repo::coaching::{self as repo, Feedback, Filter};
use crate::repo::footage::{self, Clip, Session};
use crate::repo::{athletes, audit};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::types::Json;
use std::collections::BTreeSet;

crate::text_enum! {
    /// An export's format: JSON, or the printable HTML report ([`super::report`]).
    pub enum ReportFormat { Json = "json", Html = "html" }
}

/// The most clips one request may name.
pub const MAX_CLIPS: usize = 50;
/// The name of the answer's schema (sent to the model with it).
pub const SCHEMA_NAME: &str = "coaching_feedback";
/// Identifies the prompt and schema in every stored input, so old versions stay explainable
/// after the prompt changes.
pub const PROMPT: &str = "coaching.feedback.v1";

/// The system message of a feedback request.
pub const SYSTEM: &str = "You are an experienced surf coach. You receive the measured statistics of \
surf clips (ride windows in milliseconds, speeds in km/h, predicted maneuvers with a confidence from \
0 to 1) and the coach's own timed notes. Write feedback for the surfer: a short summary, strengths, \
things to improve, drills, and a note per maneuver type seen. Base every statement on the data given; \
do not invent rides or maneuvers. Answer in the JSON schema given.";

/// The model's answer, as stored: the schema's shape, unknown fields dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachingText {
    pub summary: String,
    pub strengths: Vec<String>,
    pub improvements: Vec<String>,
    pub drills: Vec<Drill>,
    /// Notes per maneuver type.
    pub maneuvers: Vec<ManeuverNote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Drill {
    pub name: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ManeuverNote {
    /// The maneuver type, in the analysis's vocabulary (`bottom_turn`, `cutback`, …).
    #[serde(rename = "type")]
    pub kind: String,
    pub note: String,
}

/// The JSON Schema the model answers in (strict: every field required, nothing else).
pub fn schema() -> Value {
    let text = json!({ "type": "string" });
    let texts = json!({ "type": "array", "items": text });
    let object = |fields: &[&str]| {
        let props: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| (f.to_string(), text.clone()))
            .collect();
        json!({ "type": "object", "additionalProperties": false, "required": fields, "properties": props })
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["summary", "strengths", "improvements", "drills", "maneuvers"],
        "properties": {
            "summary": text,
            "strengths": texts,
            "improvements": texts,
            "drills": { "type": "array", "items": object(&["name", "description"]) },
            "maneuvers": { "type": "array", "items": object(&["type", "note"]) },
        }
    })
}

impl CoachingText {
    /// The typed answer from a value the adapter checked against [`schema`].
    pub fn from_answer(v: Value) -> std::result::Result<Self, String> {
        serde_json::from_value(v).map_err(|e| format!("the answer does not fit the schema: {e}"))
    }
}

/// What the model is given (the user message is this, serialized) and what is stored as the
/// feedback's `input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    pub prompt: String,
    pub session_id: Id,
    pub session_title: String,
    pub clips: Vec<ClipInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipInput {
    pub clip_id: Id,
    pub file_name: String,
    pub stats: ClipStats,
    /// The coach's keypoints on this clip (every review of the session; dismissed
    /// suggestions left out), in time order.
    pub keypoints: Vec<KeypointInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeypointInput {
    pub at_ms: i64,
    pub end_ms: Option<i64>,
    pub body: String,
    pub maneuver_type: Option<String>,
    pub origin: KeypointOrigin,
}

/// A clip's stats when it has been analysed.
pub fn stats_of(clip: &Clip) -> Option<ClipStats> {
    clip.stats
        .as_ref()
        .and_then(|s| serde_json::from_value(s.0.clone()).ok())
}

/// A feedback request as sent.
#[derive(Debug, Default)]
pub struct RawRequest<'a> {
    pub session_id: Id,
    /// Default: the session's analysed clips.
    pub clip_ids: Option<&'a [Id]>,
    /// `per_clip` or `batch` (default).
    pub mode: Option<&'a str>,
}

/// Asks for feedback (a job; the same request while its job is queued or running is that
/// job). 503 `provider_not_configured` without a model, before anything is written.
pub async fn request(
    db: &Db,
    model: Option<&ModelConfig>,
    ws: &InWorkspace,
    raw: &RawRequest<'_>,
) -> Result<Enqueued> {
    model.ok_or_else(|| Error::provider_not_configured("generative model"))?;
    let mut v = Validator::new();
    let mode = match raw.mode {
        Some(m) => v.choice_of::<CoachingMode>("mode", m),
        None => Some(CoachingMode::Batch),
    };
    if let Some(ids) = raw.clip_ids {
        v.check(
            !ids.is_empty(),
            "clipIds",
            "required",
            "name at least one clip",
        );
        v.check(
            ids.len() <= MAX_CLIPS,
            "clipIds",
            "too_long",
            "at most 50 clips",
        );
    }
    v.finish()?;
    let mode = mode.unwrap_or(CoachingMode::Batch);
    let mut tx = db.begin().await?;
    let session = footage::get_session(&mut tx, ws.org_id, raw.session_id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let clips = footage::session_clips(&mut tx, session.id).await?;
    let chosen: BTreeSet<Id> = match raw.clip_ids {
        Some(ids) => {
            for id in ids {
                match clips.iter().find(|k| k.id == *id) {
                    None => {
                        return Err(Error::field(
                            "clipIds",
                            "not_found",
                            format!("clip {id} is not in this footage session"),
                        ));
                    }
                    Some(k) if stats_of(k).is_none() => {
                        return Err(Error::field(
                            "clipIds",
                            "not_analysed",
                            format!("clip {id} has no analysis yet"),
                        ));
                    }
                    Some(_) => {}
                }
            }
            ids.iter().copied().collect()
        }
        None => {
            let analysed: BTreeSet<Id> = clips
                .iter()
                .filter(|k| stats_of(k).is_some())
                .map(|k| k.id)
                .collect();
            if analysed.is_empty() {
                return Err(Error::field(
                    "sessionId",
                    "no_analysed_clips",
                    "the session has no analysed clip yet",
                ));
            }
            if analysed.len() > MAX_CLIPS {
                return Err(Error::field(
                    "clipIds",
                    "too_long",
                    format!(
                        "the session has {} analysed clips; name at most 50",
                        analysed.len()
                    ),
                ));
            }
            analysed
        }
    };
    let work = GenerateCoaching {
        org_id: ws.org_id,
        session_id: session.id,
        clip_ids: chosen.into_iter().collect(),
        mode,
        requested_by: Some(ws.actor.user_id),
    };
    let data = json!({ "clipIds": work.clip_ids, "mode": mode });
    let Enqueued { id: job, existing } = enqueue(
        &mut tx,
        &work,
        Owner::new(ws.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    if !existing {
        let data = json!({ "jobId": job, "request": data });
        audit::record(
            &mut tx,
            ws.audit("coaching.request", "footage_session", session.id, data),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(Enqueued { id: job, existing })
}

/// One feedback to generate: its subject and exactly what the model is given.
#[derive(Debug, Clone)]
pub struct Planned {
    pub kind: FeedbackKind,
    pub subject: String,
    pub clip_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub input: Input,
}

impl Planned {
    /// The user message: the input, serialized.
    pub fn message(&self) -> String {
        serde_json::to_string(&self.input).unwrap_or_default()
    }
}

/// The feedback a generate job asks for, from the clips as they are now. A clip deleted or
/// re-analysed into nothing since the request is left out; nothing left (or the session gone)
/// is a permanent failure.
pub async fn plan(db: &Db, work: &GenerateCoaching) -> Result<Vec<Planned>> {
    let mut c = db.acquire().await?;
    let session = footage::get_session(&mut c, work.org_id, work.session_id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let keypoints = repo::session_keypoints(&mut c, work.org_id, session.id).await?;
    let clips = footage::session_clips(&mut c, session.id).await?;
    let inputs: Vec<(Option<Id>, ClipInput)> = clips
        .iter()
        .filter(|k| work.clip_ids.contains(&k.id))
        .filter_map(|k| {
            let stats = stats_of(k)?;
            let kps = keypoints
                .iter()
                .filter(|p| p.clip_id == k.id)
                .map(|p| KeypointInput {
                    at_ms: p.at_ms,
                    end_ms: p.end_ms,
                    body: p.body.clone(),
                    maneuver_type: p.maneuver_type.clone(),
                    origin: p.origin,
                })
                .collect();
            let clip = ClipInput {
                clip_id: k.id,
                file_name: k.file_name.clone(),
                stats,
                keypoints: kps,
            };
            Some((k.athlete_id.or(session.athlete_id), clip))
        })
        .collect();
    if inputs.is_empty() {
        return Err(Error::conflict(
            "no_analysed_clips",
            "none of the requested clips is still analysed",
        ));
    }
    let input = |clips: Vec<ClipInput>| Input {
        prompt: PROMPT.to_string(),
        session_id: session.id,
        session_title: session.title.clone(),
        clips,
    };
    Ok(match work.mode {
        CoachingMode::PerClip => inputs
            .into_iter()
            .map(|(athlete, clip)| Planned {
                kind: FeedbackKind::Clip,
                subject: format!("clip:{}", clip.clip_id),
                clip_id: Some(clip.clip_id),
                athlete_id: athlete,
                input: input(vec![clip]),
            })
            .collect(),
        CoachingMode::Batch => vec![Planned {
            kind: FeedbackKind::Batch,
            subject: format!("batch:{}", session.id),
            clip_id: None,
            athlete_id: session.athlete_id,
            input: input(inputs.into_iter().map(|(_, c)| c).collect()),
        }],
    })
}

/// What job `job` stored already (a second run of a job that stored and then lost its
/// acknowledgement stores nothing again).
pub async fn stored_by(db: &Db, org: Id, job: Id) -> Result<Vec<Feedback>> {
    let mut c = db.acquire().await?;
    Ok(repo::by_job(&mut c, org, job).await?)
}

/// An answer to a planned item, with the model that wrote it.
#[derive(Debug, Clone)]
pub struct Answered {
    pub planned: Planned,
    pub text: CoachingText,
    /// The configured model name.
    pub model: String,
    /// The model as the API named it in its answer (its version when it gives one).
    pub model_version: String,
}

/// Stores every answer of a job in one transaction: each the next version of its subject.
pub async fn store(
    db: &Db,
    work: &GenerateCoaching,
    job: Id,
    answers: Vec<Answered>,
) -> Result<Vec<Feedback>> {
    let mut tx = db.begin().await?;
    let done = repo::by_job(&mut tx, work.org_id, job).await?;
    if !done.is_empty() {
        return Ok(done);
    }
    let now = Ts::now();
    let mut out = Vec::with_capacity(answers.len());
    for a in answers {
        let f = Feedback {
            id: Id::new(),
            org_id: work.org_id,
            kind: a.planned.kind,
            subject: a.planned.subject.clone(),
            version: 0,
            session_id: Some(work.session_id),
            clip_id: a.planned.clip_id,
            athlete_id: a.planned.athlete_id,
            input: Json(serde_json::to_value(&a.planned.input).unwrap_or_default()),
            output: Some(Json(serde_json::to_value(&a.text).unwrap_or_default())),
            model: Some(a.model),
            model_version: Some(a.model_version),
            job_id: Some(job),
            created_by: work.requested_by,
            created_at: now,
        };
        out.push(insert_next(&mut tx, &f).await?);
    }
    tx.commit().await?;
    Ok(out)
}

/// [`repo::insert_next`], with a lost race for the same version a retryable error.
pub(super) async fn insert_next(tx: &mut crate::db::Tx, f: &Feedback) -> Result<Feedback> {
    match repo::insert_next(tx, f).await {
        Ok(f) => Ok(f),
        Err(e) if is_unique_violation(&e) => Err(Error::unavailable(
            "unavailable",
            "another version of this feedback was being stored; retry",
            1,
        )),
        Err(e) => Err(e.into()),
    }
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    f: Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Feedback>> {
    let mut c = db.acquire().await?;
    Ok(repo::list(&mut c, ws.org_id, f, limit, offset).await?)
}

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<Feedback> {
    let mut c = db.acquire().await?;
    repo::get(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("coaching feedback"))
}

/// The most feedback rows one export holds (newest first).
pub const MAX_EXPORT_ROWS: i64 = 500;

/// What an export covers: a footage session, an athlete, or the session's feedback for the
/// athlete.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope {
    pub session: Option<Id>,
    pub athlete: Option<Id>,
}

/// The newest version of every feedback in a scope, with what a report names.
#[derive(Debug, Clone)]
pub struct Export {
    pub generated_at: Ts,
    pub session: Option<Session>,
    /// The athlete's first and last name.
    pub athlete: Option<(Id, String)>,
    pub feedback: Vec<Feedback>,
    /// More than [`MAX_EXPORT_ROWS`] matched; the oldest were left out.
    pub truncated: bool,
}

/// The scope's newest feedback versions. A session or athlete of another workspace is a 404.
pub async fn export(db: &Db, ws: &InWorkspace, scope: Scope) -> Result<Export> {
    if scope.session.is_none() && scope.athlete.is_none() {
        return Err(Error::validation(vec![crate::error::FieldError {
            field: "sessionId".into(),
            code: "required",
            message: "name a sessionId or an athleteId".into(),
        }]));
    }
    let mut c = db.acquire().await?;
    let session = match scope.session {
        Some(id) => Some(
            footage::get_session(&mut c, ws.org_id, id)
                .await?
                .ok_or_else(|| Error::not_found("footage session"))?,
        ),
        None => None,
    };
    let athlete = match scope.athlete {
        Some(id) => {
            let a = athletes::get(&mut c, ws.org_id, id)
                .await?
                .ok_or_else(|| Error::not_found("athlete"))?;
            Some((a.id, format!("{} {}", a.first_name, a.last_name)))
        }
        None => None,
    };
    let f = Filter {
        session: scope.session,
        athlete: scope.athlete,
        latest: true,
        ..Filter::default()
    };
    let mut feedback = repo::list(&mut c, ws.org_id, f, MAX_EXPORT_ROWS + 1, 0).await?;
    let truncated = feedback.len() as i64 > MAX_EXPORT_ROWS;
    feedback.truncate(MAX_EXPORT_ROWS as usize);
    Ok(Export {
        generated_at: Ts::now(),
        session,
        athlete,
        feedback,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::model::matches_schema;

    #[test]
    fn a_full_answer_matches_the_schema_and_reads_back_typed() {
        let answer = json!({
            "summary": "Solid session.",
            "strengths": ["Early pop-up"],
            "improvements": ["Compress in the bottom turn"],
            "drills": [{ "name": "Pop-up reps", "description": "20 on the beach" }],
            "maneuvers": [{ "type": "cutback", "note": "Look back at the foam" }],
            "extra": "dropped"
        });
        matches_schema(&answer, &schema(), "answer").unwrap();
        let t = CoachingText::from_answer(answer).unwrap();
        assert_eq!(t.maneuvers[0].kind, "cutback");
        let back = serde_json::to_value(&t).unwrap();
        assert!(back.get("extra").is_none(), "unknown fields are not stored");
        let missing = json!({ "summary": "s", "strengths": [], "improvements": [], "drills": [] });
        assert_eq!(
            matches_schema(&missing, &schema(), "answer").unwrap_err(),
            "answer.maneuvers is missing"
        );
    }
}
