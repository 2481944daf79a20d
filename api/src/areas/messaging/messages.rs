//! Messages of a conversation, private photo attachments and reports: the handlers. The
//! rules (who may post, attachment keys bound to their conversation, reports) are
//! `shared::domain::messaging::messages`.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::messaging::messages::{self as domain, Attachments, NewReport, RawMessage};
use shared::domain::messaging::{RemovedReason, ReportReason, ReportStatus};
use shared::repo::messaging::Message;
use utoipa::ToSchema;

/// Where the state keeps attachments.
fn files(state: &AppState) -> Attachments<'_> {
    Attachments {
        storage: &state.storage,
        keys: &state.keys,
        public_base_url: state.cfg.public_base_url.as_str(),
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub id: Id,
    pub conversation_id: Id,
    pub sender_id: Option<Id>,
    /// Sent by the caller.
    pub mine: bool,
    /// Null once removed.
    pub body: Option<String>,
    /// Resolve it with `GET /api/messages/attachment?messageId=`.
    pub has_attachment: bool,
    pub created_at: Ts,
    pub removed: bool,
    pub removed_reason: Option<RemovedReason>,
}

pub fn view(m: Message, me: Id) -> MessageView {
    let removed = m.removed_at.is_some();
    MessageView {
        id: m.id,
        conversation_id: m.conversation_id,
        sender_id: m.sender_user_id,
        mine: m.sender_user_id == Some(me),
        body: (!removed).then_some(m.body),
        has_attachment: !removed && m.attachment_key.is_some(),
        created_at: m.created_at,
        removed,
        removed_reason: m.removed_reason,
    }
}

/// A conversation's messages, newest first; reading them marks the conversation read.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<MessageView>>> {
    let rows = domain::list(
        &caller.actor(),
        &state.db,
        id,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    let me = caller.user.id;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(|m| view(m, me)).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PostMessage {
    /// Up to 4000 characters; may be empty when a photo is attached.
    #[serde(default)]
    pub body: String,
    /// A key from `POST /api/conversations/{id}/attachments`, already uploaded.
    pub attachment_key: Option<String>,
}

/// Posts a message; the other participant is notified (push and email).
pub async fn post(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<PostMessage>,
) -> Result<(StatusCode, axum::Json<MessageView>)> {
    let raw = RawMessage {
        body: &req.body,
        attachment_key: req.attachment_key.as_deref(),
    };
    let m = domain::post(&caller.actor(), &state.db, files(&state), id, raw).await?;
    Ok((StatusCode::CREATED, axum::Json(view(m, caller.user.id))))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttachmentRequest {
    /// image/jpeg, image/png, image/webp or image/heic
    pub content_type: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentUpload {
    /// Pass it as `attachmentKey` when posting the message.
    pub attachment_key: String,
    /// PUT the photo here with the same Content-Type.
    pub upload_url: String,
    pub expires_at: Ts,
}

/// A signed URL to upload a photo for this conversation (10 minutes).
pub async fn upload_url(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<AttachmentRequest>,
) -> Result<(StatusCode, axum::Json<AttachmentUpload>)> {
    let up = domain::upload_url(
        &caller.actor(),
        &state.db,
        files(&state),
        id,
        &req.content_type,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(AttachmentUpload {
            attachment_key: up.key,
            upload_url: up.url,
            expires_at: up.expires_at,
        }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentQuery {
    message_id: Id,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentLink {
    pub url: String,
    pub expires_at: Ts,
}

/// Resolves a message's photo to a URL valid for five minutes. Participants only.
pub async fn attachment(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<AttachmentQuery>,
) -> Result<axum::Json<AttachmentLink>> {
    let link = domain::attachment(&caller.actor(), &state.db, files(&state), q.message_id).await?;
    Ok(axum::Json(AttachmentLink {
        url: link.url,
        expires_at: link.expires_at,
    }))
}

/// The sender removes their own message (it stays as a tombstone).
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::delete(&caller.actor(), &state.db, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportRequest {
    #[schema(value_type = ReportReason)]
    pub reason: String,
    #[schema(max_length = 1000)]
    pub details: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportReceipt {
    pub id: Id,
    pub message_id: Id,
    pub reason: ReportReason,
    /// open
    pub status: ReportStatus,
    pub created_at: Ts,
}

/// A participant reports a message of the other side to the platform's moderators.
pub async fn report(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<ReportRequest>,
) -> Result<(StatusCode, axum::Json<ReportReceipt>)> {
    let report = NewReport::parse(&req.reason, req.details.as_deref())?;
    let r = domain::report(&caller.actor(), &state.db, id, report).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(ReportReceipt {
            id: r.id,
            message_id: r.message_id,
            reason: r.reason,
            status: ReportStatus::Open,
            created_at: r.created_at,
        }),
    ))
}
