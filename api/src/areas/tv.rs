//! TV device-code sign-in (RFC 8628 shape). The TV starts and polls without credentials
//! (rate-limited); a signed-in member with `tv.manage` types the user code to bind the TV to
//! the workspace. The TV's token is handed out once, works only on TV routes, and stops working
//! the moment the TV is signed out (rules in `shared::domain::tv`).

use crate::auth::{Caller, TvCaller, Ws};
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::tv as domain;
use shared::repo::tv::{Device, TvStatus};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct StartRequest {
    /// What the TV calls itself (shown while claiming; the claimer may rename it).
    pub name: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartResponse {
    pub device_code: String,
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: String,
    pub expires_in: i64,
    pub interval: i64,
}

pub async fn start(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<StartRequest>,
) -> Result<axum::Json<StartResponse>> {
    let client = crate::http::client_ip(&parts);
    let st = domain::start(&state.db, &client, req.name.as_deref()).await?;
    let uri = state.cfg.public_url("/tv");
    Ok(axum::Json(StartResponse {
        device_code: st.device_code,
        verification_uri_complete: format!("{uri}?code={}", st.user_code),
        user_code: st.user_code,
        verification_uri: uri,
        expires_in: st.expires_in_secs,
        interval: st.interval_secs,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PollRequest {
    #[serde(default)]
    pub device_code: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PollToken {
    pub access_token: String,
    pub token_type: &'static str,
    /// What the token allows: TV routes of one workspace.
    pub scope: &'static str,
    pub device_id: Id,
    pub workspace_id: Id,
}

/// Answers `authorization_pending`, `slow_down` (the interval grows by 5 s), `access_denied`,
/// `expired_token`, or the token (once).
pub async fn poll(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<PollRequest>,
) -> Result<axum::Json<PollToken>> {
    let client = crate::http::client_ip(&parts);
    let d = domain::poll(&state.db, &client, &req.device_code).await?;
    Ok(axum::Json(PollToken {
        access_token: d.access_token,
        token_type: "Bearer",
        scope: "tv",
        device_id: d.device_id,
        workspace_id: d.workspace_id,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = TvClaimRequest)]
pub struct ClaimRequest {
    /// As shown on the TV; case and dashes do not matter.
    pub user_code: String,
    pub name: Option<String>,
    /// False refuses the TV (it then polls `access_denied`). Default true.
    pub approve: Option<bool>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceView {
    pub id: Id,
    pub name: String,
    pub status: TvStatus,
    pub claimed_at: Option<Ts>,
    pub claimed_by: Option<Id>,
}

fn view(d: Device) -> DeviceView {
    DeviceView {
        id: d.id,
        name: d.name,
        status: d.status,
        claimed_at: d.claimed_at,
        claimed_by: d.claimed_by,
    }
}

pub async fn claim(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<ClaimRequest>,
) -> Result<axum::Json<DeviceView>> {
    let c = domain::Claim::parse(&req.user_code, req.name.as_deref(), req.approve)?;
    let d = domain::claim(&state.db, &ws.acting(&caller), c).await?;
    Ok(axum::Json(view(d)))
}

pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
) -> Result<axum::Json<Vec<DeviceView>>> {
    let devices = domain::list(&state.db, &ws.acting(&caller)).await?;
    Ok(axum::Json(devices.into_iter().map(view).collect()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameRequest {
    pub name: String,
}

pub async fn rename(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<RenameRequest>,
) -> Result<axum::Json<DeviceView>> {
    let d = domain::rename(&state.db, &ws.acting(&caller), id, &req.name).await?;
    Ok(axum::Json(view(d)))
}

pub async fn sign_out(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::sign_out(&state.db, &ws.acting(&caller), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TvMe {
    pub device_id: Id,
    pub name: String,
    pub workspace_id: Id,
    pub workspace_name: String,
}

/// What the TV knows about itself (TV token only).
pub async fn me(State(state): State<AppState>, tv: TvCaller) -> Result<axum::Json<TvMe>> {
    let workspace_name = domain::workspace_name(&state.db, tv.org_id).await?;
    Ok(axum::Json(TvMe {
        device_id: tv.device_id,
        name: tv.name,
        workspace_id: tv.org_id,
        workspace_name,
    }))
}
