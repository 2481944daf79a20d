//! `/api/admin/notifications` (mirrored for the phone): every notification with the status of
//! each channel's delivery, and announcements. The rules are
//! `shared::domain::notifications::admin`.

use crate::areas::jobs::{JobAccepted, accepted};
use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::notifications::admin::{self as domain, NewAnnouncement, NotificationFilter};
use shared::domain::notifications::{Channel, DeliveryStatus};
use shared::repo::notifications::Delivery;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryView {
    pub channel: Channel,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub next_attempt_at: Ts,
    pub sent_at: Option<Ts>,
    pub updated_at: Ts,
    /// A push or SMS delivery's result per device.
    pub devices: Vec<DeliveryDevice>,
}

/// What happened on one device of a delivery.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryDevice {
    /// expo, fcm, web or sms.
    pub platform: String,
    /// The device's name, or the end of its token (a browser: its push service's host).
    pub device: String,
    /// sent, gone (the device was removed), failed, retry or skipped.
    pub status: String,
    pub error: Option<String>,
}

/// The per-device results stored on a delivery.
pub fn devices_of(d: &Delivery) -> Vec<DeliveryDevice> {
    d.devices
        .as_ref()
        .and_then(|v| serde_json::from_value(v.0.clone()).ok())
        .unwrap_or_default()
}

fn delivery_view(d: Delivery) -> DeliveryView {
    let devices = devices_of(&d);
    DeliveryView {
        channel: d.channel,
        status: d.status,
        attempts: d.attempts,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at,
        sent_at: d.sent_at,
        updated_at: d.updated_at,
        devices,
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationView {
    pub id: Id,
    pub user_id: Id,
    pub org_id: Option<Id>,
    pub kind: String,
    pub title: String,
    pub body: String,
    #[schema(value_type = Object)]
    pub data: Value,
    pub created_at: Ts,
    pub read_at: Option<Ts>,
    pub deliveries: Vec<DeliveryView>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    user_id: Option<Id>,
    org_id: Option<Id>,
    kind: Option<String>,
    /// A delivery status: notifications with a delivery in it.
    status: Option<String>,
    channel: Option<String>,
}

/// Notifications, newest first, with their deliveries (filters: userId, orgId, kind, status,
/// channel).
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ListQuery>,
    page: Page,
) -> Result<axum::Json<Paged<NotificationView>>> {
    let f = NotificationFilter::parse(
        q.user_id,
        q.org_id,
        q.kind.as_deref(),
        q.status.as_deref(),
        q.channel.as_deref(),
    )?;
    let rows = domain::list(&state.db, &f, page.fetch_limit(), page.offset).await?;
    let items = rows
        .into_iter()
        .map(|(n, deliveries)| NotificationView {
            id: n.id,
            user_id: n.user_id,
            org_id: n.org_id,
            kind: n.kind,
            title: n.title,
            body: n.body,
            data: n.data.0,
            created_at: n.created_at,
            read_at: n.read_at,
            deliveries: deliveries.into_iter().map(delivery_view).collect(),
        })
        .collect();
    Ok(axum::Json(page.wrap(items)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnnouncementRequest {
    pub title: String,
    pub body: String,
    /// Only this workspace's members; everyone when absent.
    pub org_id: Option<Id>,
}

/// A platform announcement to every user (or one workspace's members), by push and email,
/// through the `notifications.announce` job; audited.
pub async fn announce(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<AnnouncementRequest>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let a = NewAnnouncement::parse(&req.title, &req.body, req.org_id)?;
    let job = domain::announce(&caller.actor(), &state.db, a).await?;
    Ok(accepted(job))
}
