//! Client activity events: the web and phone clients report what users do (page views,
//! actions); the admin Live page and live metrics read them.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::{activity, orgs};
use utoipa::ToSchema;

const MAX_EVENTS: usize = 50;
const MAX_DATA_BYTES: usize = 4096;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogRequest {
    pub events: Vec<EventIn>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EventIn {
    /// e.g. page_view, clip_played
    pub kind: String,
    pub path: Option<String>,
    #[schema(value_type = Object)]
    pub data: Option<Value>,
    /// When it happened on the client; defaults to now, clamped to the last hour.
    pub at: Option<Ts>,
}

#[derive(Serialize, ToSchema)]
pub struct Logged {
    pub accepted: usize,
}

pub async fn log(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Body(req): Body<LogRequest>,
) -> Result<(StatusCode, axum::Json<Logged>)> {
    let mut v = Validator::new();
    v.check(
        !req.events.is_empty() && req.events.len() <= MAX_EVENTS,
        "events",
        "out_of_range",
        "send 1 to 50 events",
    );
    for (i, e) in req.events.iter().enumerate() {
        let ok_kind = !e.kind.is_empty()
            && e.kind.len() <= 64
            && e.kind
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        v.check(
            ok_kind,
            &format!("events[{i}].kind"),
            "invalid",
            "1 to 64 of a-z, 0-9, _ and .",
        );
        v.check(
            e.path.as_ref().is_none_or(|p| p.len() <= 500),
            &format!("events[{i}].path"),
            "too_long",
            "at most 500 characters",
        );
        let size = e.data.as_ref().map(|d| d.to_string().len()).unwrap_or(0);
        v.check(
            size <= MAX_DATA_BYTES,
            &format!("events[{i}].data"),
            "too_long",
            "at most 4 KiB of JSON",
        );
    }
    v.finish()?;
    let mut tx = state.db.begin().await?;
    // The workspace the client is in, if it says so and the user belongs to it.
    let org: Option<Id> = match headers
        .get("x-workspace-id")
        .and_then(|h| h.to_str().ok())
        .and_then(|s| s.parse().ok())
    {
        Some(org)
            if orgs::membership(&mut tx, caller.user.id, org)
                .await?
                .is_some() =>
        {
            Some(org)
        }
        _ => caller.user.default_org_id,
    };
    let now = Ts::now();
    let earliest = now.minus(chrono::Duration::hours(1));
    for e in &req.events {
        let at = e.at.map(|t| t.clamp(earliest, now)).unwrap_or(now);
        activity::insert(
            &mut tx,
            caller.user.id,
            org,
            &e.kind,
            e.path.as_deref(),
            e.data.as_ref().unwrap_or(&Value::Null),
            at,
        )
        .await?;
    }
    tx.commit().await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Logged {
            accepted: req.events.len(),
        }),
    ))
}
