//! The internal routes (service-role key): `POST /api/notifications/send` creates
//! notifications and enqueues their delivery; `POST /api/notifications/deliver` enqueues a
//! drain of every due delivery.

use crate::areas::jobs::{JobAccepted, accepted};
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use jobs::kinds::NotificationDrain;
use jobs::{Job, Owner};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shared::db::Id;
use shared::domain::notifications::{DEFAULT_CHANNELS, JobOwner, enqueue};
use shared::error::Validator;
use shared::repo::notifications::{self, Channel, NewNotification};
use shared::repo::orgs;
use utoipa::ToSchema;

pub const MAX_RECIPIENTS: usize = 500;
/// Channels a sender may ask for (SMS notifications are not sent by this service).
pub const SEND_CHANNELS: &[Channel] = &[Channel::Email, Channel::Push];

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
    /// email and/or push (default both).
    pub channels: Option<Vec<String>>,
    /// The same key for the same user is one notification (safe retries).
    pub dedupe_key: Option<String>,
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

fn valid_kind(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 60
        && k.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
        && !k.starts_with('.')
}

pub async fn send(
    State(state): State<AppState>,
    Body(req): Body<SendRequest>,
) -> Result<(StatusCode, axum::Json<SendAccepted>)> {
    let mut v = Validator::new();
    let mut users = req.user_ids.clone();
    users.sort();
    users.dedup();
    v.check(
        (1..=MAX_RECIPIENTS).contains(&users.len()),
        "userIds",
        "out_of_range",
        "between 1 and 500 users",
    );
    v.check(
        valid_kind(&req.kind),
        "kind",
        "invalid",
        "lower-case letters, digits, '.', '_' and '-', at most 60",
    );
    let title = v.text("title", &req.title, 200);
    let body = v.text("body", &req.body, 2000);
    let data = req.data.clone().unwrap_or_else(|| json!({}));
    v.check(
        data.is_object() && data.to_string().len() <= 4096,
        "data",
        "invalid",
        "a JSON object of at most 4 KiB",
    );
    let channels: Vec<Channel> = match &req.channels {
        None => DEFAULT_CHANNELS.to_vec(),
        Some(chs) => {
            let names: Vec<&str> = SEND_CHANNELS.iter().map(|c| c.as_str()).collect();
            for ch in chs {
                v.choice("channels", ch, &names);
            }
            v.check(
                !chs.is_empty(),
                "channels",
                "required",
                "at least one channel",
            );
            SEND_CHANNELS
                .iter()
                .copied()
                .filter(|s| chs.iter().any(|c| c == s.as_str()))
                .collect()
        }
    };
    let dedupe = req
        .dedupe_key
        .as_deref()
        .map(|k| v.text("dedupeKey", k, 200));
    let mut c = state.db.acquire().await?;
    if (1..=MAX_RECIPIENTS).contains(&users.len()) {
        let known = notifications::count_users(&mut c, &users).await?;
        v.check(
            known == users.len() as i64,
            "userIds",
            "invalid",
            "unknown users",
        );
    }
    if let Some(org) = req.org_id {
        v.check(
            orgs::by_id(&mut c, org).await?.is_some(),
            "orgId",
            "invalid",
            "unknown workspace",
        );
    }
    drop(c);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut created = vec![];
    for u in &users {
        let n = NewNotification {
            user_id: *u,
            org_id: req.org_id,
            kind: &req.kind,
            title: &title,
            body: &body,
            data: &data,
            dedupe_key: dedupe.as_deref(),
        };
        if let Some(id) = notifications::insert(&mut tx, &n, &channels).await? {
            created.push(id);
        }
    }
    let duplicates = users.len() - created.len();
    let job = enqueue(
        &mut tx,
        &jobs::notify::NotifyJobs,
        created.clone(),
        JobOwner {
            org_id: req.org_id,
            user_id: None,
        },
    )
    .await?;
    tx.commit().await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(SendAccepted {
            notification_ids: created,
            duplicates,
            job_id: job.map(|j| j.id),
            poll_url: job.map(|j| format!("/api/jobs/{}", j.id)),
        }),
    ))
}

/// Enqueues one drain of every due delivery (an existing queued or running drain is returned).
pub async fn deliver(
    State(state): State<AppState>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let mut tx = state.db.begin().await?;
    let job = jobs::enqueue(&mut tx, &NotificationDrain {}.spec(), Owner::default()).await?;
    tx.commit().await?;
    Ok(accepted(job))
}
