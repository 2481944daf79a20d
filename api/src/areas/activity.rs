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
use shared::domain::activity::{self as domain, EventBatch, RawEvent};
use utoipa::ToSchema;

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
    let batch = EventBatch::parse(
        req.events
            .into_iter()
            .map(|e| RawEvent {
                kind: e.kind,
                path: e.path,
                data: e.data,
                at: e.at,
            })
            .collect(),
    )?;
    // The workspace the client says it is in (the operation checks membership).
    let workspace: Option<Id> = headers
        .get("x-workspace-id")
        .and_then(|h| h.to_str().ok())
        .and_then(|s| s.parse().ok());
    let accepted = domain::log(
        &state.db,
        caller.actor(),
        workspace,
        caller.user.default_org_id,
        batch,
    )
    .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(Logged { accepted })))
}
