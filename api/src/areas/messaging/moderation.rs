//! Platform moderation of message reports (`/api/admin/message-reports`, mirrored for the
//! phone): the handlers; the rules are `shared::domain::messaging::moderation`. Admins see the
//! reported message's text even after removal: that is what they judge.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::messaging::moderation::{self as domain, Decision, ReportFilter};
use shared::domain::messaging::{ReportReason, ReportStatus};
use shared::repo::messaging::ReportRow;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportedMessage {
    pub id: Id,
    pub body: String,
    pub has_attachment: bool,
    pub sender_id: Option<Id>,
    pub sender_name: Option<String>,
    pub created_at: Ts,
    pub removed_at: Option<Ts>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportedConversation {
    pub id: Id,
    pub org_id: Id,
    pub org_name: String,
    pub coach: super::conversations::CoachRef,
    pub athlete_id: Id,
    pub athlete_name: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportView {
    pub id: Id,
    pub status: ReportStatus,
    pub reason: ReportReason,
    pub details: Option<String>,
    pub reporter_id: Option<Id>,
    pub reporter_name: Option<String>,
    pub message: ReportedMessage,
    pub conversation: ReportedConversation,
    pub resolved_by: Option<Id>,
    pub resolution_note: Option<String>,
    pub message_removed: bool,
    pub created_at: Ts,
    pub resolved_at: Option<Ts>,
}

fn view(r: ReportRow) -> ReportView {
    ReportView {
        id: r.report.id,
        status: r.report.status,
        reason: r.report.reason,
        details: r.report.details,
        reporter_id: r.report.reporter_user_id,
        reporter_name: r.reporter_name,
        message: ReportedMessage {
            id: r.report.message_id,
            body: r.message_body,
            has_attachment: r.message_attachment_key.is_some(),
            sender_id: r.message_sender_user_id,
            sender_name: r.message_sender_name,
            created_at: r.message_created_at,
            removed_at: r.message_removed_at,
        },
        conversation: ReportedConversation {
            id: r.report.conversation_id,
            org_id: r.report.org_id,
            org_name: r.org_name,
            coach: super::conversations::CoachRef {
                user_id: r.coach_user_id,
                name: r.coach_name,
            },
            athlete_id: r.athlete_id,
            athlete_name: format!("{} {}", r.athlete_first_name, r.athlete_last_name),
        },
        resolved_by: r.report.resolved_by,
        resolution_note: r.report.resolution_note,
        message_removed: r.report.message_removed,
        created_at: r.report.created_at,
        resolved_at: r.report.resolved_at,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportQuery {
    status: Option<String>,
    org_id: Option<Id>,
}

/// The moderation queue, newest first (filters: status, orgId).
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ReportQuery>,
    page: Page,
) -> Result<axum::Json<Paged<ReportView>>> {
    let f = ReportFilter::parse(q.status.as_deref(), q.org_id)?;
    let rows = domain::list(&state.db, f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows.into_iter().map(view).collect())))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportDecision {
    /// resolved or dismissed
    pub status: String,
    /// Up to 1000 characters, kept with the report and in the audit log.
    pub note: Option<String>,
    /// Remove the message (only when resolving). Other open reports of it are resolved too.
    #[serde(default)]
    pub remove_message: bool,
}

/// Resolves (optionally removing the message) or dismisses an open report; audited.
pub async fn decide(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<ReportDecision>,
) -> Result<axum::Json<ReportView>> {
    let d = Decision::parse(&req.status, req.note.as_deref(), req.remove_message)?;
    let row = domain::decide(&caller.actor(), &state.db, id, d).await?;
    Ok(axum::Json(view(row)))
}
