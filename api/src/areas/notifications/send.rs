//! The internal routes (service-role key): `POST /api/notifications/send` creates
//! notifications and enqueues their delivery; `POST /api/notifications/deliver` enqueues a
//! drain of every due delivery. The rules are `shared::domain::notifications::send`.

use crate::areas::jobs::{JobAccepted, accepted};
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::Id;
use shared::domain::notifications::send::{self as domain, Outgoing, RawSend};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    /// 1 to 500 users.
    pub user_ids: Vec<Id>,
    /// The workspace the notification is about, if any.
    pub org_id: Option<Id>,
    /// Lower-case letters, digits, `.`, `_`, `-`; its first segment is the unsubscribe category
    /// (`billing.receipt` → `billing`).
    pub kind: String,
    pub title: String,
    pub body: String,
    /// A JSON object for the app (at most 4 KiB).
    #[schema(value_type = Object)]
    pub data: Option<Value>,
    /// email, push and/or sms (default all three); each recipient's preferences then decide
    /// (SMS only for those who verified a phone and chose it).
    pub channels: Option<Vec<String>>,
    /// The same key for the same user is one notification (safe retries).
    pub dedupe_key: Option<String>,
    /// A member of `orgId` on whose behalf this is sent: they see how it went out
    /// (`GET /api/notifications/sent`).
    pub sender_id: Option<Id>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendAccepted {
    /// The notifications created (one per user not already notified with this dedupe key).
    pub notification_ids: Vec<Id>,
    /// Users skipped because of the dedupe key.
    pub duplicates: usize,
    /// The delivery job (null when nothing new was created).
    pub job_id: Option<Id>,
    pub poll_url: Option<String>,
}

pub async fn send(
    State(state): State<AppState>,
    Body(req): Body<SendRequest>,
) -> Result<(StatusCode, axum::Json<SendAccepted>)> {
    let raw = RawSend {
        user_ids: &req.user_ids,
        org_id: req.org_id,
        kind: &req.kind,
        title: &req.title,
        body: &req.body,
        data: req.data.as_ref(),
        channels: req.channels.as_deref(),
        dedupe_key: req.dedupe_key.as_deref(),
        sender_id: req.sender_id,
    };
    let out = Outgoing::parse(&state.db, &raw).await?;
    let sent = domain::send(&state.db, out).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(SendAccepted {
            notification_ids: sent.notification_ids,
            duplicates: sent.duplicates,
            job_id: sent.job.map(|j| j.id),
            poll_url: sent.job.map(|j| format!("/api/jobs/{}", j.id)),
        }),
    ))
}

/// Enqueues one drain of every due delivery (an existing queued or running drain is returned).
pub async fn deliver(
    State(state): State<AppState>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let job = domain::deliver(&state.db).await?;
    Ok(accepted(job))
}
