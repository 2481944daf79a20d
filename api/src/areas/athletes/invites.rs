//! Athlete invites and the logins they lead to, behind the server-side age gate:
//! - `POST /api/invite`, `/api/invite/send`: a member makes (and mails) a single-use link;
//! - `GET /api/invite/lookup/{token}`: public, rate-limited preview of what the holder may see;
//! - `POST /api/invite/claim`: the athlete creates their login (age gate: under the country's
//!   threshold only with a recorded guardian consent);
//! - `POST /api/invite/guardian`: a guardian creates the login for a minor and consents;
//! - `POST /api/club/enroll`: public self-enrollment into a workspace that allows it.

use crate::areas::accounts::{UserView, send_link, sessions};
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::InWorkspace;
use shared::domain::athletes::InviteStatus;
use shared::domain::athletes::invites::{
    self as domain, Delivery, NewInvite, RawClaim, RawEnrollGuardian, RawEnrollment, RawGuardian,
    RawGuardianClaim, RawInvite, RawLogin, SignIn,
};
use shared::repo::auth_tokens::EmailPurpose;
use utoipa::ToSchema;

pub use domain::{ENROLLMENTS_PER_HOUR_PER_ADDRESS, LOOKUPS_PER_WINDOW};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateInvite {
    /// Invite an athlete already on the roster; otherwise the fields below create one.
    pub athlete_id: Option<Id>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// Where `/api/invite/send` mails the link (default: the athlete's email).
    pub email: Option<String>,
    /// YYYY-MM-DD, when known: the age gate also checks it.
    pub birth_date: Option<String>,
}

impl CreateInvite {
    fn parse(&self) -> shared::Result<NewInvite> {
        NewInvite::parse(&RawInvite {
            athlete_id: self.athlete_id,
            first_name: self.first_name.as_deref(),
            last_name: self.last_name.as_deref(),
            email: self.email.as_deref(),
            birth_date: self.birth_date.as_deref(),
        })
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteCreated {
    pub invite_id: Id,
    pub athlete_id: Id,
    /// The secret, shown once (stored hashed). Null when it was mailed instead.
    pub token: Option<String>,
    pub url: Option<String>,
    pub expires_at: Ts,
    pub email_sent: Option<bool>,
}

fn invite_url(state: &AppState, token: &str) -> String {
    state.cfg.public_url(&format!("/invite/{token}"))
}

/// Makes an invite as `ws` and, for `Delivery::Mail`, mails its link (a mail failure is
/// logged and reported as `false`, the invite stays): what `POST /api/invite`, `/send` and the
/// desk's profile page do. Returns the invite, its link and whether a mail went out.
pub async fn make_invite(
    state: &AppState,
    ws: &shared::domain::InWorkspace,
    req: NewInvite,
    delivery: Delivery,
) -> shared::Result<(domain::InviteMade, String, Option<bool>)> {
    let made = domain::create(ws, &state.db, req, delivery).await?;
    let url = invite_url(state, &made.token);
    let sent = match delivery {
        Delivery::Link => None,
        Delivery::Mail => Some(match state.mailer.send(made.email(&url)).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(error = %e, "sending an athlete invite failed");
                false
            }
        }),
    };
    Ok((made, url, sent))
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<InviteCreated>)> {
    let (made, url, _) = make_invite(&state, &ws, req.parse()?, Delivery::Link).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(InviteCreated {
            invite_id: made.invite.id,
            athlete_id: made.athlete.id,
            url: Some(url),
            token: Some(made.token),
            expires_at: made.invite.expires_at,
            email_sent: None,
        }),
    ))
}

/// Makes an invite and mails the link (the secret is not returned). A mail failure is
/// reported in `emailSent`, the invite stays.
pub async fn send(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<InviteCreated>)> {
    let (made, _, sent) = make_invite(&state, &ws, req.parse()?, Delivery::Mail).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(InviteCreated {
            invite_id: made.invite.id,
            athlete_id: made.athlete.id,
            token: None,
            url: None,
            expires_at: made.invite.expires_at,
            email_sent: sent,
        }),
    ))
}

/// What the holder of an invite link may see: the workspace, the athlete's first name and what
/// the age gate will ask. Nothing for a used or expired link but its state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitePreview {
    pub status: InviteStatus,
    pub workspace_name: Option<String>,
    pub athlete_first_name: Option<String>,
    pub expires_at: Option<Ts>,
    /// Younger than this needs a guardian (or a recorded consent) to claim.
    pub consent_age: Option<u32>,
    /// A guardian's consent is already on record.
    pub guardian_consent: Option<bool>,
}

pub async fn lookup(
    State(state): State<AppState>,
    parts: Parts,
    Path(token): Path<String>,
) -> Result<axum::Json<InvitePreview>> {
    let ip = crate::http::client_ip(&parts);
    let p = domain::preview(&state.db, &token, &ip).await?;
    Ok(axum::Json(InvitePreview {
        status: p.status,
        workspace_name: p.workspace_name,
        athlete_first_name: p.athlete_first_name,
        expires_at: p.expires_at,
        consent_age: p.consent_age,
        guardian_consent: p.guardian_consent,
    }))
}

/// The session a claim starts, from the request's address and user agent.
fn sign_in<'a>(parts: &'a Parts, ip: &'a str) -> SignIn<'a> {
    SignIn {
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok()),
        ip,
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimRequest {
    /// The invite token (401 when missing, unknown, used or expired).
    #[serde(default)]
    pub token: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub password: String,
    /// Display name; default: the athlete's first and last name.
    pub name: Option<String>,
    /// YYYY-MM-DD, checked on the server.
    #[serde(default)]
    pub birth_date: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimResponse {
    pub user: UserView,
    pub athlete_id: Id,
    /// Echo this in `X-CSRF-Token` on cookie-authenticated writes.
    pub csrf_token: String,
    pub verification_email_sent: bool,
}

/// The athlete claims the login (`domain::claim`: the age gate decides). Signs the new user in
/// and mails the address verification.
pub async fn claim(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<ClaimRequest>,
) -> Result<Response> {
    let raw = RawClaim {
        token: &req.token,
        email: &req.email,
        password: &req.password,
        name: req.name.as_deref(),
        birth_date: &req.birth_date,
    };
    let ip = crate::http::client_ip(&parts);
    let c = domain::claim(&state.db, &raw, sign_in(&parts, &ip)).await?;
    let (headers, csrf) = sessions::session_cookies(&state, &c.session);
    let sent = send_link(&state, &c.user, EmailPurpose::VerifyEmail).await;
    Ok((
        StatusCode::CREATED,
        headers,
        axum::Json(ClaimResponse {
            user: UserView::from(&c.user),
            athlete_id: c.athlete_id,
            csrf_token: csrf,
            verification_email_sent: sent,
        }),
    )
        .into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GuardianIn {
    pub name: String,
    pub email: String,
    /// A new account's password, or the existing account's (a guardian of several athletes).
    pub password: String,
    /// parent, legal_guardian or other
    pub relationship: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoginIn {
    pub email: String,
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GuardianRequest {
    /// The invite token (401 when missing, unknown, used or expired).
    #[serde(default)]
    pub token: String,
    pub guardian: Option<GuardianIn>,
    /// The athlete's birth date, YYYY-MM-DD (a minor's: adults claim themselves).
    #[serde(default)]
    pub athlete_birth_date: String,
    /// The athlete's own login, made by the guardian; optional (the guardian's login acts for
    /// the athlete until then, and the athlete may claim a later invite).
    pub athlete_login: Option<LoginIn>,
    /// The guardian consents to the athlete's data being processed; must be true.
    #[serde(default)]
    pub consent: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuardianResponse {
    pub guardian: UserView,
    pub athlete_id: Id,
    /// The athlete's own login when one was made.
    pub athlete_user_id: Option<Id>,
    pub consent_id: Id,
    pub csrf_token: String,
}

/// A guardian uses the invite (`domain::claim_as_guardian`: their account, their consent, and
/// optionally the minor's own login). Signs the guardian in.
pub async fn guardian(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<GuardianRequest>,
) -> Result<Response> {
    let raw = RawGuardianClaim {
        token: &req.token,
        guardian: req.guardian.as_ref().map(|g| RawGuardian {
            name: &g.name,
            email: &g.email,
            password: &g.password,
            relationship: &g.relationship,
        }),
        athlete_birth_date: &req.athlete_birth_date,
        athlete_login: req.athlete_login.as_ref().map(|l| RawLogin {
            email: &l.email,
            password: &l.password,
        }),
        consent: req.consent,
    };
    let ip = crate::http::client_ip(&parts);
    let g = domain::claim_as_guardian(&state.db, &raw, sign_in(&parts, &ip)).await?;
    let (headers, csrf) = sessions::session_cookies(&state, &g.session);
    Ok((
        StatusCode::CREATED,
        headers,
        axum::Json(GuardianResponse {
            guardian: UserView::from(&g.guardian),
            athlete_id: g.athlete_id,
            athlete_user_id: g.athlete_user_id,
            consent_id: g.consent_id,
            csrf_token: csrf,
        }),
    )
        .into_response())
}

// ---- club self-enrollment ----

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnrollmentSetting {
    pub enabled: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnrollmentView {
    pub workspace_id: Id,
    pub enabled: bool,
    /// POST /api/club/enroll with this workspace id.
    pub enroll_url: String,
    /// The public enrollment page of this workspace (a form that posts the same enrollment).
    pub page_url: String,
}

fn enrollment_view(
    state: &AppState,
    ws: &InWorkspace,
    enabled: bool,
) -> axum::Json<EnrollmentView> {
    axum::Json(EnrollmentView {
        workspace_id: ws.org_id,
        enabled,
        enroll_url: state.cfg.public_url("/api/club/enroll"),
        page_url: enrollment_page_url(state, ws.org_id),
    })
}

/// The public enrollment page of a workspace (the desk's enrollment page shows it too).
pub fn enrollment_page_url(state: &AppState, org: Id) -> String {
    state.cfg.public_url(&format!("/club/{org}"))
}

pub async fn get_enrollment(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<axum::Json<EnrollmentView>> {
    let enabled = domain::enrollment_enabled(&ws, &state.db).await?;
    Ok(enrollment_view(&state, &ws, enabled))
}

pub async fn set_enrollment(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<EnrollmentSetting>,
) -> Result<axum::Json<EnrollmentView>> {
    domain::set_enrollment(&ws, &state.db, req.enabled).await?;
    Ok(enrollment_view(&state, &ws, req.enabled))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnrollGuardian {
    pub name: String,
    pub email: String,
    /// parent, legal_guardian or other
    pub relationship: String,
    /// Must be true.
    #[serde(default)]
    pub consent: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnrollRequest {
    pub workspace_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    /// YYYY-MM-DD, checked on the server.
    pub birth_date: String,
    /// Required under the workspace country's consent age.
    pub guardian: Option<EnrollGuardian>,
}

#[derive(Serialize, ToSchema)]
pub struct EnrollAccepted {
    pub status: &'static str,
}

/// Public self-enrollment (`domain::enroll`): a pending athlete in a workspace that allows it,
/// behind the same age gate. A repeat answers like the first.
pub async fn enroll(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<EnrollRequest>,
) -> Result<(StatusCode, axum::Json<EnrollAccepted>)> {
    let raw = RawEnrollment {
        workspace_id: req.workspace_id,
        first_name: &req.first_name,
        last_name: &req.last_name,
        email: &req.email,
        birth_date: &req.birth_date,
        guardian: req.guardian.as_ref().map(|g| RawEnrollGuardian {
            name: &g.name,
            email: &g.email,
            relationship: &g.relationship,
            consent: g.consent,
        }),
    };
    domain::enroll(&state.db, &raw, &crate::http::client_ip(&parts)).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(EnrollAccepted { status: "received" }),
    ))
}
