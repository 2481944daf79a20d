//! TV device-code sign-in (RFC 8628 shape). The TV starts and polls without credentials
//! (rate-limited); a signed-in member with `tv.manage` types the user code to bind the TV to
//! the workspace. The TV's token is handed out once, works only on TV routes, and stops working
//! the moment the TV is signed out (rules in `shared::domain::tv`).

use crate::auth::{Acting, TvCaller};
use crate::http::extract::{Body, Path};
use crate::http::{ApiError, Result};
use crate::state::AppState;
use axum::extract::{FromRequest, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::tv as domain;
use shared::repo::tv::{Device, TvStatus};
use utoipa::{PartialSchema, ToSchema};

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

/// The grant type of a device-code poll (RFC 8628 §3.4).
pub const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// The token as RFC 6749 §5.1 names it (the form-encoded dialect's answer).
#[derive(Serialize, ToSchema)]
#[schema(as = TvRfcToken)]
pub struct RfcToken {
    pub access_token: String,
    pub token_type: &'static str,
    pub scope: &'static str,
    pub device_id: Id,
    pub workspace_id: Id,
}

/// A refusal as RFC 6749 §5.2 names it (the form-encoded dialect's answer).
#[derive(Serialize, ToSchema)]
#[schema(as = TvRfcError)]
pub struct RfcError {
    /// `authorization_pending`, `slow_down`, `access_denied`, `expired_token`,
    /// `invalid_grant`, `invalid_request` or `unsupported_grant_type`.
    pub error: String,
    pub error_description: String,
}

/// The poll's token, in the dialect it was asked in.
pub struct PollGranted;

/// The poll's refusal, in the dialect it was asked in: this API's error shape, or RFC 6749's.
pub struct PollRefused;

/// `oneOf` the two dialects' bodies (schema names).
fn either(api: &str, rfc: &str, what: &str) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::schema::OneOfBuilder;
    use utoipa::openapi::{Ref, RefOr};
    OneOfBuilder::new()
        .item(RefOr::Ref(Ref::from_schema_name(api)))
        .item(RefOr::Ref(Ref::from_schema_name(rfc)))
        .description(Some(what))
        .into()
}

impl utoipa::PartialSchema for PollGranted {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        either(
            &PollToken::name(),
            &RfcToken::name(),
            "camelCase for a JSON poll, RFC 6749's names for a form-encoded one",
        )
    }
}
impl ToSchema for PollGranted {
    fn name() -> std::borrow::Cow<'static, str> {
        "TvPollGranted".into()
    }
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((PollToken::name().into(), PollToken::schema()));
        schemas.push((RfcToken::name().into(), RfcToken::schema()));
    }
}

impl utoipa::PartialSchema for PollRefused {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        either(
            crate::registry::ERROR_SCHEMA,
            &RfcError::name(),
            "the service's error shape for a JSON poll, RFC 6749 §5.2's for a form-encoded one",
        )
    }
}
impl ToSchema for PollRefused {
    fn name() -> std::borrow::Cow<'static, str> {
        "TvPollRefused".into()
    }
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((RfcError::name().into(), RfcError::schema()));
    }
}

/// The RFC's own poll, form-encoded with its field names, as stock device-flow clients send it.
#[derive(Deserialize, ToSchema)]
#[schema(as = TvPollForm)]
pub struct PollForm {
    /// `urn:ietf:params:oauth:grant-type:device_code`.
    pub grant_type: String,
    pub device_code: Option<String>,
    /// Accepted and ignored: TVs are public clients.
    pub client_id: Option<String>,
}

/// Answers `authorization_pending`, `slow_down` (the interval grows by 5 s), `access_denied`,
/// `expired_token`, `invalid_grant` (unknown or used-up code), `invalid_request`, or the token
/// (once). Two dialects: this API's camelCase JSON (`{"deviceCode"}`, errors in the one error
/// shape), and RFC 8628's form-encoded poll (`grant_type`, `device_code`), answered as RFC 6749
/// §5.1/§5.2 say (`access_token`, `token_type`; errors as `{"error", "error_description"}`).
/// TV tokens do not expire (they end when the TV is signed out), so no `expires_in` is given,
/// as §5.1 allows for a default that is documented (docs/pages.md, "TV sign-in").
pub async fn poll(State(state): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let client = crate::http::client_ip(&parts);
    let form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case(FORM));
    let req = Request::from_parts(parts, body);
    if form {
        return rfc_poll(&state, &client, req).await;
    }
    let answer = async {
        let Body(p) = Body::<PollRequest>::from_request(req, &state).await?;
        let d = domain::poll(&state.db, &client, &p.device_code).await?;
        Ok::<_, ApiError>(axum::Json(token_view(d)))
    };
    answer.await.into_response()
}

const FORM: &str = "application/x-www-form-urlencoded";

fn token_view(d: domain::Delivered) -> PollToken {
    PollToken {
        access_token: d.access_token,
        token_type: "Bearer",
        scope: "tv",
        device_id: d.device_id,
        workspace_id: d.workspace_id,
    }
}

/// The RFC dialect: the same poll, its answer in the RFC's shape and names.
async fn rfc_poll(state: &AppState, client: &str, req: Request) -> Response {
    let error = |status: StatusCode, code: &str, description: &str| {
        let body = RfcError {
            error: code.to_string(),
            error_description: description.to_string(),
        };
        (status, axum::Json(body)).into_response()
    };
    let bytes = match axum::body::to_bytes(req.into_body(), 16 * 1024).await {
        Ok(b) => b,
        Err(_) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "unreadable body",
            );
        }
    };
    let p: PollForm = match serde_urlencoded::from_bytes(&bytes) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_request", &e.to_string()),
    };
    if p.grant_type != DEVICE_GRANT {
        return error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "only the device_code grant is served here",
        );
    }
    match domain::poll(&state.db, client, p.device_code.as_deref().unwrap_or("")).await {
        Ok(d) => {
            let t = token_view(d);
            axum::Json(RfcToken {
                access_token: t.access_token,
                token_type: t.token_type,
                scope: t.scope,
                device_id: t.device_id,
                workspace_id: t.workspace_id,
            })
            .into_response()
        }
        // The request limit per address reads as the RFC's own "poll more slowly".
        Err(e) if e.code == "rate_limited" => {
            error(StatusCode::BAD_REQUEST, "slow_down", &e.message)
        }
        Err(e) if e.kind.is_server_error() => ApiError(e).into_response(),
        Err(e) => error(StatusCode::BAD_REQUEST, e.code, &e.message),
    }
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
    Acting(ws): Acting,
    Body(req): Body<ClaimRequest>,
) -> Result<axum::Json<DeviceView>> {
    let c = domain::Claim::parse(&req.user_code, req.name.as_deref(), req.approve)?;
    let d = domain::claim(&state.db, &ws, c).await?;
    Ok(axum::Json(view(d)))
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<axum::Json<Vec<DeviceView>>> {
    let devices = domain::list(&state.db, &ws).await?;
    Ok(axum::Json(devices.into_iter().map(view).collect()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameRequest {
    pub name: String,
}

pub async fn rename(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<RenameRequest>,
) -> Result<axum::Json<DeviceView>> {
    let d = domain::rename(&state.db, &ws, id, &req.name).await?;
    Ok(axum::Json(view(d)))
}

pub async fn sign_out(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::sign_out(&state.db, &ws, id).await?;
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
