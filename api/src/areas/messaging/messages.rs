//! Messages of a conversation, private photo attachments and reports.
//!
//! Attachments: the client asks for an upload URL (`POST /api/conversations/{id}/attachments`),
//! PUTs the photo there, then posts the message with the returned `attachmentKey`. Keys live
//! in the `raw-uploads` store under `messages/<workspace>/<conversation>/`, so a key can only
//! be attached to the conversation it was issued for. Reading one goes through
//! `GET /api/messages/attachment`, which checks the caller takes part and hands out a URL
//! valid for five minutes.

use super::{Access, Side, open};
use crate::auth::Caller;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::audit;
use shared::repo::messaging::{self, Message, REPORT_REASONS};
use shared::storage::Store;

use std::time::Duration;
use utoipa::ToSchema;

pub const MAX_BODY_CHARS: usize = 4000;
/// Photo types a message may carry, with the key's extension.
pub const IMAGE_TYPES: &[(&str, &str)] = &[
    ("image/jpeg", "jpg"),
    ("image/png", "png"),
    ("image/webp", "webp"),
    ("image/heic", "heic"),
];
const UPLOAD_URL_TTL: Duration = Duration::from_secs(10 * 60);
/// Short, so a leaked URL to a private photo stops working soon.
pub const ATTACHMENT_URL_TTL: Duration = Duration::from_secs(5 * 60);

fn attachment_prefix(org: Id, conv: Id) -> String {
    format!("messages/{org}/{conv}/")
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
    /// sender or moderation
    pub removed_reason: Option<String>,
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
    let mut c = state.db.acquire().await?;
    let a = open(&mut c, &caller, id).await?;
    let rows = messaging::list_messages(&mut c, id, page.fetch_limit(), page.offset).await?;
    if a.side != Side::Guardian {
        messaging::mark_read(&mut c, id, a.side == Side::Coach, Ts::now()).await?;
    }
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
    let access = {
        let mut c = state.db.acquire().await?;
        open(&mut c, &caller, id).await?
    };
    access.writable()?;
    let body = req.body.trim().to_string();
    let mut v = Validator::new();
    if req.attachment_key.is_none() && body.is_empty() {
        v.add("body", "required", "a message needs text or a photo");
    }
    v.check(
        body.chars().count() <= MAX_BODY_CHARS,
        "body",
        "too_long",
        "must be at most 4000 characters",
    );
    if let Some(key) = &req.attachment_key {
        let ok = key.starts_with(&attachment_prefix(access.conv.org_id, id))
            && matches!(
                state.storage.head(Store::RawUploads, key).await,
                Ok(Some(_))
            );
        v.check(
            ok,
            "attachmentKey",
            "invalid",
            "not an uploaded attachment of this conversation",
        );
    }
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let m = messaging::insert_message(
        &mut tx,
        &access.conv,
        caller.user.id,
        &body,
        req.attachment_key.as_deref(),
    )
    .await?;
    crate::areas::notifications::fanout::message_posted(&mut tx, &access, &caller, &m).await?;
    tx.commit().await?;
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
    let a = {
        let mut c = state.db.acquire().await?;
        open(&mut c, &caller, id).await?
    };
    a.writable()?;
    let ext = IMAGE_TYPES
        .iter()
        .find(|(t, _)| *t == req.content_type)
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            Error::field(
                "contentType",
                "invalid_choice",
                "must be one of image/jpeg, image/png, image/webp, image/heic",
            )
        })?;
    let key = format!(
        "{}{}.{ext}",
        attachment_prefix(a.conv.org_id, a.conv.id),
        Id::new()
    );
    let url = state
        .storage
        .presign_put(
            Store::RawUploads,
            &key,
            UPLOAD_URL_TTL,
            &req.content_type,
            &state.keys,
            state.cfg.public_base_url.as_str(),
        )
        .await
        .map_err(|e| Error::internal(anyhow::anyhow!("presign: {e}")))?;
    Ok((
        StatusCode::CREATED,
        axum::Json(AttachmentUpload {
            attachment_key: key,
            upload_url: url,
            expires_at: Ts::now().plus(chrono::Duration::seconds(UPLOAD_URL_TTL.as_secs() as i64)),
        }),
    ))
}

/// A message the caller may see, with the conversation access.
async fn message_for(state: &AppState, caller: &Caller, id: Id) -> Result<(Message, Access)> {
    let mut c = state.db.acquire().await?;
    let m = messaging::message(&mut c, id)
        .await?
        .ok_or_else(|| Error::not_found("message"))?;
    let a = open(&mut c, caller, m.conversation_id).await.map_err(|e| {
        if e.0.code == "not_found" {
            Error::not_found("message").into()
        } else {
            e
        }
    })?;
    Ok((m, a))
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
    let (m, _) = message_for(&state, &caller, q.message_id).await?;
    let key = match (&m.attachment_key, m.removed_at) {
        (Some(k), None) => k,
        _ => return Err(Error::not_found("attachment").into()),
    };
    let url = state
        .storage
        .presign_get(
            Store::RawUploads,
            key,
            ATTACHMENT_URL_TTL,
            &state.keys,
            state.cfg.public_base_url.as_str(),
        )
        .await
        .map_err(|e| Error::internal(anyhow::anyhow!("presign: {e}")))?;
    Ok(axum::Json(AttachmentLink {
        url,
        expires_at: Ts::now().plus(chrono::Duration::seconds(
            ATTACHMENT_URL_TTL.as_secs() as i64
        )),
    }))
}

/// The sender removes their own message (it stays as a tombstone).
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let (m, a) = message_for(&state, &caller, id).await?;
    if m.sender_user_id != Some(caller.user.id) {
        return Err(
            Error::forbidden("permission_denied", "only the sender can delete a message").into(),
        );
    }
    let mut tx = state.db.begin().await?;
    if messaging::remove_message(&mut tx, id, caller.user.id, "sender").await? {
        audit::record(
            &mut tx,
            caller.audit(
                Some(a.conv.org_id),
                "message.deleted",
                "message",
                Some(id.to_string()),
                json!({ "conversationId": a.conv.id }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportRequest {
    /// spam, harassment, inappropriate, safety or other
    pub reason: String,
    /// Up to 1000 characters.
    pub details: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportReceipt {
    pub id: Id,
    pub message_id: Id,
    pub reason: String,
    /// open
    pub status: String,
    pub created_at: Ts,
}

/// A participant reports a message of the other side to the platform's moderators.
pub async fn report(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<ReportRequest>,
) -> Result<(StatusCode, axum::Json<ReportReceipt>)> {
    let mut v = Validator::new();
    v.choice("reason", &req.reason, REPORT_REASONS);
    let details = req
        .details
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    v.check(
        details.is_none_or(|d| d.chars().count() <= 1000),
        "details",
        "too_long",
        "must be at most 1000 characters",
    );
    v.finish()?;
    let (m, a) = message_for(&state, &caller, id).await?;
    if m.sender_user_id == Some(caller.user.id) {
        return Err(Error::bad_request(
            "cannot_report_own_message",
            "you cannot report your own message",
        )
        .into());
    }
    let mut tx = state.db.begin().await?;
    let rid = messaging::insert_report(&mut tx, &m, caller.user.id, &req.reason, details)
        .await?
        .ok_or_else(|| {
            Error::conflict(
                "already_reported",
                "you already have an open report on this message",
            )
        })?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(a.conv.org_id),
            "message.reported",
            "message_report",
            Some(rid.to_string()),
            json!({ "messageId": m.id, "reason": req.reason }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(ReportReceipt {
            id: rid,
            message_id: m.id,
            reason: req.reason,
            status: "open".into(),
            created_at: Ts::now(),
        }),
    ))
}
