//! Coaching (`/api/sessions/coaching*`): feedback generated from a footage session's clips
//! (a job), an athlete's progress across sessions (numbers at once, narrative by a job), the
//! feedback rows and their export (JSON or a printable HTML report). Handlers extract, call one
//! `shared::domain::reviews::{coaching, progress}` operation and map the result.

use super::jobs::{JobAccepted, accepted};
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::reviews::coaching::{self, FeedbackKind, ReportFormat, Scope};
use shared::domain::reviews::{progress, report};
use shared::repo::coaching::{Feedback, Filter};
use utoipa::ToSchema;

/// The report's Content-Security-Policy: nothing may load or run; inline styles only.
pub const REPORT_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One version of coaching feedback.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackView {
    pub id: Id,
    /// `clip`, `batch` or `progress`.
    pub kind: FeedbackKind,
    /// What the versions are versions of: `clip:{clipId}`, `batch:{sessionId}`,
    /// `progress:{athleteId}`.
    pub subject: String,
    /// 1, 2, … per subject; earlier versions are kept.
    pub version: i64,
    pub session_id: Option<Id>,
    pub clip_id: Option<Id>,
    pub athlete_id: Option<Id>,
    /// Exactly what the model was given (clip and batch: the clips' stats and the coach's
    /// keypoints; progress: the stats the numbers come from).
    #[schema(value_type = Object)]
    pub input: Value,
    /// Clip and batch: `{summary, strengths, improvements, drills, maneuvers}`; progress: the
    /// numbers, trends and the narrative with its status.
    #[schema(value_type = Object)]
    pub output: Option<Value>,
    /// The configured model name.
    pub model: Option<String>,
    /// The model as the API named it in its answer (its version).
    pub model_version: Option<String>,
    /// The job that wrote it (progress: the narrative's job).
    pub job_id: Option<Id>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

impl From<Feedback> for FeedbackView {
    fn from(f: Feedback) -> Self {
        FeedbackView {
            id: f.id,
            kind: f.kind,
            subject: f.subject,
            version: f.version,
            session_id: f.session_id,
            clip_id: f.clip_id,
            athlete_id: f.athlete_id,
            input: f.input.0,
            output: f.output.map(|o| o.0),
            model: f.model,
            model_version: f.model_version,
            job_id: f.job_id,
            created_by: f.created_by,
            created_at: f.created_at,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CoachingRequest {
    /// The footage session.
    pub session_id: Id,
    /// At most 50 analysed clips of the session; default: all its analysed clips.
    pub clip_ids: Option<Vec<Id>>,
    /// `per_clip` (one feedback per clip) or `batch` (one for all; the default).
    pub mode: Option<String>,
}

/// `POST /api/sessions/coaching`: 202 with the generate job.
pub async fn generate(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<CoachingRequest>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let raw = coaching::RawRequest {
        session_id: b.session_id,
        clip_ids: b.clip_ids.as_deref(),
        mode: b.mode.as_deref(),
    };
    let job = coaching::request(&state.db, state.cfg.model.as_ref(), &ws, &raw).await?;
    Ok(accepted(job))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    pub session_id: Option<Id>,
    pub clip_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub kind: Option<FeedbackKind>,
    /// Only the newest version of each subject.
    #[serde(default)]
    pub latest: bool,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<ListQuery>,
) -> Result<axum::Json<Paged<FeedbackView>>> {
    let f = Filter {
        session: q.session_id,
        clip: q.clip_id,
        athlete: q.athlete_id,
        kind: q.kind,
        latest: q.latest,
    };
    let rows = coaching::list(&state.db, &ws, f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(FeedbackView::from).collect()),
    ))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<FeedbackView>> {
    Ok(axum::Json(coaching::get(&state.db, &ws, id).await?.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProgressRequest {
    pub athlete_id: Id,
    /// The sessions to compare (at most 50); default: the athlete's latest `last` sessions
    /// with analysed clips, created between `from` and `to`.
    pub session_ids: Option<Vec<Id>>,
    /// Inclusive.
    #[schema(format = Date)]
    pub from: Option<String>,
    /// Inclusive; not before `from`.
    #[schema(format = Date)]
    pub to: Option<String>,
    /// Default 10.
    #[schema(minimum = 1, maximum = 50)]
    pub last: Option<i64>,
}

/// A stored progress report: the numbers now, the narrative later (poll `job`, then read the
/// feedback again) or never (`output.narrativeStatus` `unavailable`, reason
/// `provider_not_configured`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressAnswer {
    #[serde(flatten)]
    pub feedback: FeedbackView,
    /// The narrative's job; null without a model.
    pub narrative_job: Option<JobAccepted>,
}

pub async fn progress(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<ProgressRequest>,
) -> Result<axum::Json<ProgressAnswer>> {
    let raw = progress::RawProgress {
        athlete_id: b.athlete_id,
        session_ids: b.session_ids.as_deref(),
        from: b.from.as_deref(),
        to: b.to.as_deref(),
        last: b.last,
    };
    let (f, job) = progress::request(&state.db, state.cfg.model.as_ref(), &ws, &raw).await?;
    Ok(axum::Json(ProgressAnswer {
        feedback: f.into(),
        narrative_job: job.map(|job| accepted(job).1.0),
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportQuery {
    /// `json` (default) or `html`.
    pub format: Option<ReportFormat>,
    pub session_id: Option<Id>,
    pub athlete_id: Option<Id>,
}

/// The JSON export: the newest version of every feedback in the scope.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachingExport {
    pub generated_at: Ts,
    pub session_id: Option<Id>,
    pub session_title: Option<String>,
    pub athlete_id: Option<Id>,
    pub athlete_name: Option<String>,
    /// More than 500 matched; the oldest were left out.
    pub truncated: bool,
    pub feedback: Vec<FeedbackView>,
}

/// `GET /api/sessions/coaching/export`: a download, JSON or a self-contained HTML report
/// under a Content-Security-Policy that lets nothing load or run.
pub async fn export(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<ExportQuery>,
) -> Result<Response> {
    let scope = Scope {
        session: q.session_id,
        athlete: q.athlete_id,
    };
    let e = coaching::export(&state.db, &ws, scope).await?;
    // Ids only: nothing a person typed reaches the header.
    let stem = match (q.session_id, q.athlete_id) {
        (Some(s), _) => format!("coaching-session-{s}"),
        (None, Some(a)) => format!("coaching-athlete-{a}"),
        (None, None) => "coaching".to_string(),
    };
    let format = q.format.unwrap_or(ReportFormat::Json);
    let (ct, ext, body) = match format {
        ReportFormat::Html => ("text/html; charset=utf-8", "html", report::html(&e)),
        ReportFormat::Json => {
            let j = CoachingExport {
                generated_at: e.generated_at,
                session_id: e.session.as_ref().map(|s| s.id),
                session_title: e.session.map(|s| s.title),
                athlete_id: e.athlete.as_ref().map(|a| a.0),
                athlete_name: e.athlete.map(|a| a.1),
                truncated: e.truncated,
                feedback: e.feedback.into_iter().map(FeedbackView::from).collect(),
            };
            let body = serde_json::to_string(&j).map_err(shared::Error::internal)?;
            ("application/json", "json", body)
        }
    };
    let disposition = format!("attachment; filename=\"{stem}.{ext}\"");
    let mut resp = (
        [
            (header::CONTENT_TYPE, ct.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
            (header::CACHE_CONTROL, "private, no-store".to_string()),
            (header::REFERRER_POLICY, "no-referrer".to_string()),
        ],
        body,
    )
        .into_response();
    if format == ReportFormat::Html {
        resp.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            header::HeaderValue::from_static(REPORT_CSP),
        );
    }
    Ok(resp)
}
