//! TV device-code sign-in (RFC 8628 shape). The TV starts and polls without credentials
//! (rate-limited); a signed-in member with `tv.manage` types the user code to bind the TV to
//! the workspace. The TV's token is handed out once, works only on TV routes, and stops working
//! the moment the TV is signed out.

use crate::auth::{Caller, TvCaller, Ws};
use crate::http::extract::{Body, Path};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::crypto::{new_token, random_bytes};
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::tv::{self, Device, USER_CODE_ALPHABET};
use shared::repo::{audit, orgs, ratelimit};

use utoipa::ToSchema;

const STARTS_PER_MINUTE: u32 = 10;
const POLLS_PER_MINUTE: u32 = 60;
const CLAIM_FAILURES_PER_15_MIN: u32 = 10;

/// 8 letters from a 20-letter alphabet (≈ 34.6 bits), shown as XXXX-XXXX. Rejection sampling
/// keeps every letter equally likely.
fn user_code() -> String {
    let mut out = String::with_capacity(9);
    while out.len() < 9 {
        for b in random_bytes(16) {
            if b < 240 && out.len() < 9 {
                if out.len() == 4 {
                    out.push('-');
                }
                out.push(USER_CODE_ALPHABET[(b % 20) as usize] as char);
            }
        }
    }
    out
}

async fn limit(state: &AppState, key: String, max: u32) -> Result<()> {
    let mut c = state.db.acquire().await?;
    Ok(
        ratelimit::hit(&mut c, &key, max, chrono::Duration::minutes(1))
            .await?
            .map_err(Error::too_many_requests)?,
    )
}

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
    let mut v = Validator::new();
    let name = req
        .name
        .as_deref()
        .map(|n| v.text("name", n, 60))
        .unwrap_or_else(|| "TV".into());
    v.finish()?;
    limit(
        &state,
        format!("tv:start:{}", crate::http::client_ip(&parts)),
        STARTS_PER_MINUTE,
    )
    .await?;
    let device_code = new_token("tvd_");
    let code = user_code();
    let mut c = state.db.acquire().await?;
    let d = tv::create(&mut c, &device_code, &code, &name).await?;
    let uri = state.cfg.public_url("/tv");
    Ok(axum::Json(StartResponse {
        device_code,
        verification_uri_complete: format!("{uri}?code={code}"),
        user_code: code,
        verification_uri: uri,
        expires_in: tv::CODE_TTL.num_seconds(),
        interval: d.interval_secs,
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

fn poll_error(code: &'static str, message: &str) -> Error {
    Error::bad_request(code, message.to_string())
}

/// Answers `authorization_pending`, `slow_down` (the interval grows by 5 s), `access_denied`,
/// `expired_token`, or the token (once).
pub async fn poll(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<PollRequest>,
) -> Result<axum::Json<PollToken>> {
    if req.device_code.is_empty() {
        return Err(Error::unauthorized("invalid_token", "deviceCode is required").into());
    }
    limit(
        &state,
        format!("tv:poll:{}", crate::http::client_ip(&parts)),
        POLLS_PER_MINUTE,
    )
    .await?;
    let mut tx = state.db.begin().await?;
    let d = tv::by_device_code(&mut tx, &req.device_code)
        .await?
        .ok_or_else(|| Error::unauthorized("invalid_token", "unknown device code"))?;
    let now = Ts::now();
    if d.status == "pending" && d.expires_at <= now {
        return Err(poll_error("expired_token", "the code expired; start again").into());
    }
    if let Some(last) = d.last_poll_at
        && d.status == "pending"
        && (now.0 - last.0).num_milliseconds() < d.interval_secs * 1000
    {
        tv::record_poll(&mut tx, d.id, d.interval_secs + 5).await?;
        tx.commit().await?;
        return Err(poll_error(
            "slow_down",
            "polling too fast; wait the interval (now 5 s longer)",
        )
        .into());
    }
    tv::record_poll(&mut tx, d.id, d.interval_secs).await?;
    match d.status.as_str() {
        "pending" => {
            tx.commit().await?;
            Err(poll_error(
                "authorization_pending",
                "waiting for someone to enter the code",
            )
            .into())
        }
        "denied" => {
            tx.commit().await?;
            Err(poll_error("access_denied", "the code was refused").into())
        }
        "claimed" if !d.token_delivered => {
            let token = new_token("sctv_");
            if !tv::deliver_token(&mut tx, d.id, &token).await? {
                return Err(Error::unauthorized(
                    "invalid_token",
                    "the token was already handed out",
                )
                .into());
            }
            tx.commit().await?;
            Ok(axum::Json(PollToken {
                access_token: token,
                token_type: "Bearer",
                scope: "tv",
                device_id: d.id,
                workspace_id: d.org_id.expect("claimed devices have a workspace"),
            }))
        }
        _ => Err(Error::unauthorized("invalid_token", "this device code is used up").into()),
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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
    pub status: String,
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
    let mut v = Validator::new();
    let code = tv::normalize_user_code(&req.user_code);
    v.check(
        code.len() == 8,
        "userCode",
        "invalid",
        "8 letters, as shown on the TV",
    );
    let name = req.name.as_deref().map(|n| v.text("name", n, 60));
    v.finish()?;
    let key = format!("tv:claim:{}", caller.user.id);
    let window = chrono::Duration::minutes(15);
    let mut tx = state.db.begin().await?;
    ratelimit::peek(&mut tx, &key, CLAIM_FAILURES_PER_15_MIN, window)
        .await?
        .map_err(Error::too_many_requests)?;
    let Some(d) = tv::pending_by_user_code(&mut tx, &code).await? else {
        // Count only misses: guessing codes is what the limit stops.
        ratelimit::hit(&mut tx, &key, u32::MAX, window).await?.ok();
        tx.commit().await?;
        return Err(Error::not_found("pending TV with this code").into());
    };
    let approve = req.approve.unwrap_or(true);
    let name = name.unwrap_or_else(|| d.name.clone());
    if !tv::decide(&mut tx, d.id, ws.org_id, caller.user.id, &name, approve).await? {
        return Err(Error::not_found("pending TV with this code").into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            if approve { "tv.claimed" } else { "tv.denied" },
            "tv",
            Some(d.id.to_string()),
            json!({ "name": name }),
        ),
    )
    .await?;
    let d = tv::by_id(&mut tx, d.id)
        .await?
        .ok_or_else(|| Error::not_found("device"))?;
    tx.commit().await?;
    Ok(axum::Json(view(d)))
}

pub async fn list(State(state): State<AppState>, ws: Ws) -> Result<axum::Json<Vec<DeviceView>>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(
        tv::list_for_org(&mut c, ws.org_id)
            .await?
            .into_iter()
            .map(view)
            .collect(),
    ))
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
    let mut v = Validator::new();
    let name = v.text("name", &req.name, 60);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    if !tv::rename(&mut tx, ws.org_id, id, &name).await? {
        return Err(Error::not_found("TV").into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "tv.renamed",
            "tv",
            Some(id.to_string()),
            json!({ "name": name }),
        ),
    )
    .await?;
    let d = tv::by_id(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("TV"))?;
    tx.commit().await?;
    Ok(axum::Json(view(d)))
}

pub async fn sign_out(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    if !tv::sign_out(&mut tx, ws.org_id, id).await? {
        return Err(Error::not_found("TV").into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "tv.signed_out",
            "tv",
            Some(id.to_string()),
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
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
    let mut c = state.db.acquire().await?;
    let org = orgs::by_id(&mut c, tv.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    Ok(axum::Json(TvMe {
        device_id: tv.device_id,
        name: tv.name,
        workspace_id: org.id,
        workspace_name: org.name,
    }))
}
