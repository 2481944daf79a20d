//! `/api/admin/notifications` (mirrored for the phone): every notification with the status of
//! each channel's delivery.

use crate::areas::jobs::{JobAccepted, accepted};
use crate::auth::Caller;
use crate::http::extract::{Body, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use jobs::kinds::Announcement;
use jobs::{Job, Owner};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::notifications::{self, CHANNELS, DELIVERY_STATUSES, Delivery, Filter};
use shared::repo::{audit, orgs};

use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryView {
    /// email, push or sms
    pub channel: String,
    /// pending, sending, sent, failed or skipped
    pub status: String,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub next_attempt_at: Ts,
    pub sent_at: Option<Ts>,
    pub updated_at: Ts,
}

fn delivery_view(d: Delivery) -> DeliveryView {
    DeliveryView {
        channel: d.channel,
        status: d.status,
        attempts: d.attempts,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at,
        sent_at: d.sent_at,
        updated_at: d.updated_at,
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
    let mut v = Validator::new();
    if let Some(s) = &q.status {
        v.choice("status", s, DELIVERY_STATUSES);
    }
    if let Some(ch) = &q.channel {
        v.choice("channel", ch, CHANNELS);
    }
    v.finish()?;
    let mut c = state.db.acquire().await?;
    let rows = notifications::search(
        &mut c,
        &Filter {
            user_id: q.user_id,
            org_id: q.org_id,
            kind: q.kind.as_deref(),
            status: q.status.as_deref(),
            channel: q.channel.as_deref(),
        },
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    let ids: Vec<Id> = rows.iter().map(|n| n.id).collect();
    let mut deliveries = notifications::deliveries_of(&mut c, &ids).await?;
    let items = rows
        .into_iter()
        .map(|n| {
            let mine: Vec<DeliveryView> = deliveries
                .extract_if(.., |d| d.notification_id == n.id)
                .map(delivery_view)
                .collect();
            NotificationView {
                id: n.id,
                user_id: n.user_id,
                org_id: n.org_id,
                kind: n.kind,
                title: n.title,
                body: n.body,
                data: n.data.0,
                created_at: n.created_at,
                read_at: n.read_at,
                deliveries: mine,
            }
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
    let mut v = Validator::new();
    let title = v.text("title", &req.title, 200);
    let body = v.text("body", &req.body, 2000);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    if let Some(org) = req.org_id {
        orgs::by_id(&mut tx, org)
            .await?
            .ok_or_else(|| Error::not_found("workspace"))?;
    }
    let job = Announcement {
        announcement_id: Id::new(),
        org_id: req.org_id,
        title: title.clone(),
        body,
    };
    let enq = jobs::enqueue(
        &mut tx,
        &job.spec(),
        Owner {
            org_id: req.org_id,
            user_id: Some(caller.user.id),
        },
    )
    .await?;
    audit::record(
        &mut tx,
        caller.audit(
            req.org_id,
            "admin.announcement_sent",
            "announcement",
            Some(job.announcement_id.to_string()),
            json!({ "title": title, "jobId": enq.id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(accepted(enq))
}
