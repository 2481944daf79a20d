//! `/api/notifications/sent`: the caller's own sends in the acting workspace, with what went
//! out on each channel, and one send's deliveries per recipient, channel and device. Devices
//! show by kind and a masked token; provider errors stay in the admin view. The rules (only
//! the sender; another workspace's send is a 404) are `shared::domain::notifications::sent`.

use crate::auth::{Caller, Ws};
use crate::http::Result;
use crate::http::extract::Path;
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::notifications::sent::{self as domain, ChannelCounts};
use shared::domain::notifications::{Channel, DeliveryStatus, SkipReason};
use shared::repo::notification_sends::RecipientDelivery;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelCountsView {
    pub channel: Channel,
    /// Waiting: due later, in the recipient's quiet hours, or being sent.
    pub pending: i64,
    pub sent: i64,
    pub failed: i64,
    /// The recipient turned this channel off for the kind.
    pub skipped_by_preference: i64,
    /// The recipient's number replied STOP.
    pub opted_out: i64,
    /// Skipped otherwise (no device or verified phone, recipient deleted).
    pub skipped: i64,
}

fn counts_view((channel, c): (Channel, ChannelCounts)) -> ChannelCountsView {
    ChannelCountsView {
        channel,
        pending: c.pending,
        sent: c.sent,
        failed: c.failed,
        skipped_by_preference: c.skipped_by_preference,
        opted_out: c.opted_out,
        skipped: c.skipped,
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentView {
    pub id: Id,
    pub kind: String,
    pub title: String,
    pub recipients: i64,
    pub created_at: Ts,
    pub channels: Vec<ChannelCountsView>,
    /// This send's deliveries per recipient and device.
    pub deliveries_url: String,
}

/// My sends in this workspace, newest first, with counts per channel.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    page: Page,
) -> Result<axum::Json<Paged<SentView>>> {
    let (me, org) = (caller.user.id, ws.org_id);
    let rows = domain::list(&state.db, me, org, page.fetch_limit(), page.offset).await?;
    let items = rows
        .into_iter()
        .map(|s| SentView {
            deliveries_url: format!("/api/notifications/sent/{}/deliveries", s.send.id),
            id: s.send.id,
            kind: s.send.kind,
            title: s.send.title,
            recipients: s.send.recipients,
            created_at: s.send.created_at,
            channels: s.channels.into_iter().map(counts_view).collect(),
        })
        .collect();
    Ok(axum::Json(page.wrap(items)))
}

/// One device of a delivery as its sender sees it.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentDevice {
    /// expo, fcm, web or sms.
    pub platform: String,
    /// The token's (or phone number's) last characters; a browser's push service host and its
    /// endpoint's last characters. Never the token or endpoint itself.
    #[serde(default = "unknown")]
    pub mask: String,
    /// sent, gone (the device was removed), failed, retry or skipped.
    pub status: String,
}

fn unknown() -> String {
    "…".into()
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientDeliveryView {
    pub user_id: Id,
    pub name: String,
    pub channel: Channel,
    pub status: DeliveryStatus,
    /// Why it was skipped: preference, opted_out, no_device or deleted.
    pub skip_reason: Option<SkipReason>,
    pub attempts: i64,
    pub sent_at: Option<Ts>,
    pub updated_at: Ts,
    pub devices: Vec<SentDevice>,
}

fn delivery_view(d: RecipientDelivery) -> RecipientDeliveryView {
    let devices = d
        .devices
        .and_then(|v| serde_json::from_value(v.0).ok())
        .unwrap_or_default();
    RecipientDeliveryView {
        user_id: d.user_id,
        name: d.name,
        channel: d.channel,
        status: d.status,
        skip_reason: d.skip_reason,
        attempts: d.attempts,
        sent_at: d.sent_at,
        updated_at: d.updated_at,
        devices,
    }
}

/// One of my sends' deliveries, by recipient name and channel (404: not mine, or not in this
/// workspace).
pub async fn deliveries(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<RecipientDeliveryView>>> {
    let (me, org, limit) = (caller.user.id, ws.org_id, page.fetch_limit());
    let (_, rows) = domain::deliveries(&state.db, me, org, id, limit, page.offset).await?;
    let items = rows.into_iter().map(delivery_view).collect();
    Ok(axum::Json(page.wrap(items)))
}
