//! Athlete invites and the logins they lead to, behind the server-side age gate:
//! - `POST /api/invite`, `/api/invite/send`: a member makes (and mails) a single-use link;
//! - `GET /api/invite/lookup/{token}`: public, rate-limited preview of what the holder may see;
//! - `POST /api/invite/claim`: the athlete creates their login (age gate: under the country's
//!   threshold only with a recorded guardian consent);
//! - `POST /api/invite/guardian`: a guardian creates the login for a minor and consents;
//! - `POST /api/club/enroll`: public self-enrollment into a workspace that allows it.

use super::age_gate;
use super::load;
use crate::areas::accounts::{UserView, send_link, sessions};
use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::crypto::password;
use shared::db::{Id, Ts, is_unique_violation};
use shared::domain::athletes::{
    AthleteFields, AthleteSource, AthleteStatus, ConsentMethod, InviteStatus, Naming, RawAthlete,
    Relationship, fields,
};
use shared::error::Validator;
use shared::mail::Email;
use shared::repo::athletes::{self, Athlete, InviteState};
use shared::repo::auth_tokens::EmailPurpose;
use shared::repo::{audit, orgs, ratelimit, users};
use shared::{Error, Result};
use utoipa::ToSchema;

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

/// Finds or creates the athlete of an invite request and makes the invite. Returns the athlete,
/// the invite and its secret.
async fn make_invite(
    state: &AppState,
    caller: &Caller,
    ws: &Ws,
    req: CreateInvite,
    need_email: bool,
) -> Result<(Athlete, athletes::Invite, String, Option<String>)> {
    let mut v = Validator::new();
    let (email, new) = if req.athlete_id.is_none() {
        let f = AthleteFields::parse(
            &mut v,
            Naming::Json,
            &RawAthlete {
                first_name: req.first_name.as_deref().unwrap_or_default(),
                last_name: req.last_name.as_deref().unwrap_or_default(),
                email: req.email.as_deref(),
                birth_date: req.birth_date.as_deref(),
                ..Default::default()
            },
        );
        (f.email.clone(), Some(f))
    } else {
        (fields::email(&mut v, "email", req.email.as_deref()), None)
    };
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let athlete = match (req.athlete_id, new) {
        (Some(id), _) => load(&mut tx, ws, id).await?,
        (None, Some(f)) => {
            let n = f.into_new(AthleteStatus::Active, AthleteSource::Invite);
            let a = athletes::insert(&mut tx, ws.org_id, &n, Some(caller.user.id)).await?;
            audit::record(
                &mut tx,
                super::entry(
                    ws,
                    caller,
                    "athlete.created",
                    a.id,
                    json!({ "source": "invite" }),
                ),
            )
            .await?;
            a
        }
        (None, None) => unreachable!("validated above"),
    };
    if athlete.user_id.is_some() {
        return Err(Error::conflict(
            "already_claimed",
            "this athlete already has a login",
        ));
    }
    let to = email.or_else(|| athlete.email.clone());
    if need_email && to.is_none() {
        return Err(Error::field(
            "email",
            "required",
            "the athlete has no email address; give one",
        ));
    }
    let (inv, token) = athletes::create_invite(
        &mut tx,
        ws.org_id,
        athlete.id,
        to.as_deref(),
        caller.user.id,
    )
    .await?;
    audit::record(
        &mut tx,
        super::entry(
            ws,
            caller,
            "athlete.invited",
            athlete.id,
            json!({ "inviteId": inv.id, "emailed": need_email }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((athlete, inv, token, to))
}

fn invite_url(state: &AppState, token: &str) -> String {
    state.cfg.public_url(&format!("/invite/{token}"))
}

pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<InviteCreated>)> {
    let (a, inv, token, _) = make_invite(&state, &caller, &ws, req, false).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(InviteCreated {
            invite_id: inv.id,
            athlete_id: a.id,
            url: Some(invite_url(&state, &token)),
            token: Some(token),
            expires_at: inv.expires_at,
            email_sent: None,
        }),
    ))
}

/// Makes an invite and mails the link (the secret is not returned). A mail failure is
/// reported in `emailSent`, the invite stays.
pub async fn send(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<InviteCreated>)> {
    let (a, inv, token, to) = make_invite(&state, &caller, &ws, req, true).await?;
    let org_name = {
        let mut c = state.db.acquire().await?;
        orgs::by_id(&mut c, ws.org_id)
            .await?
            .map(|o| o.name)
            .unwrap_or_default()
    };
    let text = format!(
        "Hello {},\n\n{} invites you to the surf coaching app. Create your login here:\n\n{}\n\nThe link works once and expires in 14 days. If you are younger than 16, a parent or guardian may need to create the login for you from the same link.\n",
        a.first_name,
        org_name,
        invite_url(&state, &token)
    );
    let sent = match state
        .mailer
        .send(Email {
            to: to.unwrap_or_default(),
            subject: format!("{org_name} invites you"),
            text,
        })
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, "sending an athlete invite failed");
            false
        }
    };
    Ok((
        StatusCode::CREATED,
        axum::Json(InviteCreated {
            invite_id: inv.id,
            athlete_id: a.id,
            token: None,
            url: None,
            expires_at: inv.expires_at,
            email_sent: Some(sent),
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

pub const LOOKUPS_PER_WINDOW: u32 = 30;

pub async fn lookup(
    State(state): State<AppState>,
    parts: Parts,
    Path(token): Path<String>,
) -> Result<axum::Json<InvitePreview>> {
    let mut c = state.db.acquire().await?;
    ratelimit::hit(
        &mut c,
        &format!("invite-lookup:ip:{}", crate::http::client_ip(&parts)),
        LOOKUPS_PER_WINDOW,
        chrono::Duration::minutes(10),
    )
    .await?
    .map_err(Error::too_many_requests)?;
    let empty = |status| InvitePreview {
        status,
        workspace_name: None,
        athlete_first_name: None,
        expires_at: None,
        consent_age: None,
        guardian_consent: None,
    };
    match athletes::check_invite(&mut c, &token).await? {
        InviteState::Unknown => Err(Error::not_found("invite")),
        InviteState::Used => Ok(axum::Json(empty(InviteStatus::Used))),
        InviteState::Expired => Ok(axum::Json(empty(InviteStatus::Expired))),
        InviteState::Valid(inv) => {
            let a = athletes::by_id_any_org(&mut c, inv.athlete_id)
                .await?
                .ok_or_else(|| Error::not_found("invite"))?;
            let org = orgs::by_id(&mut c, inv.org_id)
                .await?
                .ok_or_else(|| Error::not_found("invite"))?;
            Ok(axum::Json(InvitePreview {
                status: InviteStatus::Valid,
                workspace_name: Some(org.name),
                athlete_first_name: Some(a.first_name),
                expires_at: Some(inv.expires_at),
                consent_age: Some(age_gate::consent_age(org.country.as_deref())),
                guardian_consent: Some(athletes::has_active_consent(&mut c, a.id).await?),
            }))
        }
    }
}

fn token_error(s: &InviteState) -> Error {
    match s {
        InviteState::Expired => Error::unauthorized(
            "token_expired",
            "this invite has expired; ask for a new one",
        ),
        InviteState::Used => Error::unauthorized("token_used", "this invite was already used"),
        _ => Error::unauthorized("invalid_token", "this invite is not valid"),
    }
}

/// The invite behind `token`, unused and unexpired, or the 401 that says why not.
async fn valid_invite(state: &AppState, token: &str) -> Result<athletes::Invite> {
    if token.is_empty() {
        return Err(Error::unauthorized(
            "invalid_token",
            "the invite token is missing",
        ));
    }
    let mut c = state.db.acquire().await?;
    match athletes::check_invite(&mut c, token).await? {
        InviteState::Valid(i) => Ok(i),
        other => Err(token_error(&other)),
    }
}

fn guardian_required(threshold: u32) -> Error {
    Error::forbidden(
        "guardian_required",
        format!("athletes younger than {threshold} need a parent or guardian: they create the login (POST /api/invite/guardian) or their consent is recorded first"),
    )
    .with_details(json!({ "consentAge": threshold }))
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

/// The athlete claims the login. The age gate uses the younger of the stated birth date and the
/// one on the roster; under the workspace country's threshold a guardian's consent must be on
/// record. Signs the new user in.
pub async fn claim(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<ClaimRequest>,
) -> Result<Response> {
    let inv = valid_invite(&state, &req.token).await?;
    let mut v = Validator::new();
    let email = v.email("email", &req.email);
    v.password("password", &req.password);
    let name = req.name.as_deref().map(|n| v.text("name", n, 100));
    let birth = age_gate::parse_birth_date(&mut v, "birthDate", &req.birth_date);
    v.finish()?;
    let birth = birth.expect("validated");
    let (athlete, threshold, consent) = {
        let mut c = state.db.acquire().await?;
        let a = athletes::by_id_any_org(&mut c, inv.athlete_id)
            .await?
            .ok_or_else(|| token_error(&InviteState::Unknown))?;
        let org = orgs::by_id(&mut c, inv.org_id)
            .await?
            .ok_or_else(|| token_error(&InviteState::Unknown))?;
        let consent = athletes::has_active_consent(&mut c, a.id).await?;
        (a, age_gate::consent_age(org.country.as_deref()), consent)
    };
    let youngest = gate_age(birth, athlete.birth_date);
    if youngest < threshold && !consent {
        return Err(guardian_required(threshold));
    }
    let hash = password::hash_async(req.password.clone()).await;
    let mut tx = state.db.begin().await?;
    let user = match users::insert(
        &mut tx,
        &email,
        &name.unwrap_or_else(|| format!("{} {}", athlete.first_name, athlete.last_name)),
        &hash,
    )
    .await
    {
        Ok(u) => u,
        Err(e) if is_unique_violation(&e) => {
            return Err(Error::conflict(
                "email_taken",
                "an account with this email exists; sign in or use another address",
            ));
        }
        Err(e) => return Err(e.into()),
    };
    let inv = match athletes::consume_invite(&mut tx, &req.token, user.id).await? {
        InviteState::Valid(i) => i,
        other => return Err(token_error(&other)),
    };
    link_login(&mut tx, &athlete, user.id, birth).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(inv.org_id),
            actor: Some(user.id),
            impersonator: None,
            action: "athlete.claimed",
            target_type: "athlete",
            target_id: Some(athlete.id.to_string()),
            // No birth date in the log: only what the gate decided on.
            data: json!({ "inviteId": inv.id, "minorWithConsent": youngest < threshold }),
        },
    )
    .await?;
    let (headers, csrf) = sessions::start_web_session(&state, &mut tx, &user, &parts).await?;
    tx.commit().await?;
    let sent = send_link(&state, &user, EmailPurpose::VerifyEmail).await;
    Ok((
        StatusCode::CREATED,
        headers,
        axum::Json(ClaimResponse {
            user: UserView::from(&user),
            athlete_id: athlete.id,
            csrf_token: csrf,
            verification_email_sent: sent,
        }),
    )
        .into_response())
}

/// The age the gate decides on: the younger of the stated and the recorded birth dates.
fn gate_age(stated: NaiveDate, recorded: Option<NaiveDate>) -> u32 {
    let stated = age_gate::age(stated);
    recorded
        .map(age_gate::age)
        .map_or(stated, |r| r.min(stated))
}

/// Links a login to the athlete (refusing a second one) and records the birth date when the
/// roster has none.
async fn link_login(
    tx: &mut shared::db::Tx,
    athlete: &Athlete,
    user: Id,
    birth: NaiveDate,
) -> Result<()> {
    athletes::lock(tx, athlete.org_id, athlete.id).await?;
    let mut a = athletes::get(tx, athlete.org_id, athlete.id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    if a.user_id.is_some() {
        return Err(Error::conflict(
            "already_claimed",
            "this athlete already has a login",
        ));
    }
    a.user_id = Some(user);
    if a.birth_date.is_none() {
        a.birth_date = Some(birth);
    }
    athletes::update(tx, &a).await?;
    Ok(())
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

/// A guardian uses the invite: their account (new, or an existing one proven by its password),
/// their consent (who, when, how: `guardian_invite`), and optionally the minor's own login.
/// Signs the guardian in.
pub async fn guardian(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<GuardianRequest>,
) -> Result<Response> {
    valid_invite(&state, &req.token).await?;
    let mut v = Validator::new();
    let (g_name, g_email, g_rel) = match &req.guardian {
        Some(g) => {
            let name = v.text("guardian.name", &g.name, 100);
            let email = v.email("guardian.email", &g.email);
            v.password("guardian.password", &g.password);
            let rel = v
                .choice_of::<Relationship>("guardian.relationship", &g.relationship.to_lowercase());
            (name, email, rel)
        }
        None => {
            v.add(
                "guardian",
                "required",
                "the guardian's name, email, password and relationship",
            );
            (String::new(), String::new(), None)
        }
    };
    let birth = age_gate::parse_birth_date(&mut v, "athleteBirthDate", &req.athlete_birth_date);
    if let Some(b) = birth {
        v.check(
            age_gate::age(b) < age_gate::ADULT_AGE,
            "athleteBirthDate",
            "out_of_range",
            "the athlete is an adult: they claim the invite themselves",
        );
    }
    let login = req.athlete_login.as_ref().map(|l| {
        let e = v.email("athleteLogin.email", &l.email);
        v.password("athleteLogin.password", &l.password);
        e
    });
    if login.as_deref() == Some(g_email.as_str()) {
        v.add(
            "athleteLogin.email",
            "invalid",
            "must differ from the guardian's email",
        );
    }
    v.check(
        req.consent,
        "consent",
        "required",
        "the guardian must consent (true)",
    );
    v.finish()?;
    let birth = birth.expect("validated");
    let g_password = req
        .guardian
        .as_ref()
        .map(|g| g.password.clone())
        .unwrap_or_default();
    let existing = {
        let mut c = state.db.acquire().await?;
        users::by_email(&mut c, &g_email).await?
    };
    let guardian_hash = match &existing {
        Some(u) => {
            if !password::verify_async(g_password, u.password_hash.clone()).await {
                return Err(Error::unauthorized(
                    "invalid_credentials",
                    "an account with the guardian's email exists and the password does not match",
                ));
            }
            None
        }
        None => Some(password::hash_async(g_password).await),
    };
    let athlete_hash = match &req.athlete_login {
        Some(l) => Some(password::hash_async(l.password.clone()).await),
        None => None,
    };
    let mut tx = state.db.begin().await?;
    let guardian = match (existing, guardian_hash) {
        (Some(u), _) => u,
        (None, Some(h)) => match users::insert(&mut tx, &g_email, &g_name, &h).await {
            Ok(u) => u,
            Err(e) if is_unique_violation(&e) => {
                return Err(Error::conflict(
                    "email_taken",
                    "an account with the guardian's email was just created; sign in and retry",
                ));
            }
            Err(e) => return Err(e.into()),
        },
        (None, None) => unreachable!("hash made for a new guardian"),
    };
    let inv = match athletes::consume_invite(&mut tx, &req.token, guardian.id).await? {
        InviteState::Valid(i) => i,
        other => return Err(token_error(&other)),
    };
    let athlete = athletes::by_id_any_org(&mut tx, inv.athlete_id)
        .await?
        .ok_or_else(|| token_error(&InviteState::Unknown))?;
    let g_rel = g_rel.expect("validated");
    athletes::add_guardian(&mut tx, inv.org_id, athlete.id, guardian.id, g_rel).await?;
    let consent_id = athletes::record_consent(
        &mut tx,
        inv.org_id,
        athlete.id,
        &athletes::NewConsent {
            guardian_user_id: Some(guardian.id),
            guardian_name: guardian.name.clone(),
            guardian_email: Some(guardian.email.clone()),
            relationship: g_rel,
            method: ConsentMethod::GuardianInvite,
            note: None,
            recorded_by: None,
            consented_at: Ts::now(),
        },
    )
    .await?;
    let athlete_user = match (login, athlete_hash) {
        (Some(email), Some(h)) => {
            let name = format!("{} {}", athlete.first_name, athlete.last_name);
            let u = match users::insert(&mut tx, &email, &name, &h).await {
                Ok(u) => u,
                Err(e) if is_unique_violation(&e) => {
                    return Err(Error::conflict(
                        "email_taken",
                        "an account with the athlete's email exists",
                    ));
                }
                Err(e) => return Err(e.into()),
            };
            link_login(&mut tx, &athlete, u.id, birth).await?;
            Some(u.id)
        }
        _ => {
            let mut a = athlete.clone();
            if a.birth_date.is_none() {
                a.birth_date = Some(birth);
                athletes::update(&mut tx, &a).await?;
            }
            None
        }
    };
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(inv.org_id),
            actor: Some(guardian.id),
            impersonator: None,
            action: "athlete.guardian_claimed",
            target_type: "athlete",
            target_id: Some(athlete.id.to_string()),
            data: json!({ "inviteId": inv.id, "consentId": consent_id, "athleteLogin": athlete_user.is_some() }),
        },
    )
    .await?;
    let (headers, csrf) = sessions::start_web_session(&state, &mut tx, &guardian, &parts).await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        headers,
        axum::Json(GuardianResponse {
            guardian: UserView::from(&guardian),
            athlete_id: athlete.id,
            athlete_user_id: athlete_user,
            consent_id,
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
}

pub async fn get_enrollment(
    State(state): State<AppState>,
    ws: Ws,
) -> Result<axum::Json<EnrollmentView>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(EnrollmentView {
        workspace_id: ws.org_id,
        enabled: athletes::enrollment_enabled(&mut c, ws.org_id).await?,
        enroll_url: state.cfg.public_url("/api/club/enroll"),
    }))
}

pub async fn set_enrollment(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<EnrollmentSetting>,
) -> Result<axum::Json<EnrollmentView>> {
    let mut tx = state.db.begin().await?;
    athletes::set_enrollment(&mut tx, ws.org_id, req.enabled, caller.user.id).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(ws.org_id),
            actor: Some(caller.user.id),
            impersonator: caller.impersonator,
            action: "org.enrollment_changed",
            target_type: "org",
            target_id: Some(ws.org_id.to_string()),
            data: json!({ "enabled": req.enabled }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(EnrollmentView {
        workspace_id: ws.org_id,
        enabled: req.enabled,
        enroll_url: state.cfg.public_url("/api/club/enroll"),
    }))
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

pub const ENROLLMENTS_PER_HOUR_PER_ADDRESS: u32 = 10;

/// Public self-enrollment: a pending athlete in a workspace that allows it, behind the same age
/// gate. Unknown workspaces and workspaces that do not allow it answer 404 alike; a repeat
/// (same email) answers like the first and writes nothing.
pub async fn enroll(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<EnrollRequest>,
) -> Result<(StatusCode, axum::Json<EnrollAccepted>)> {
    let mut v = Validator::new();
    let first = v.text("firstName", &req.first_name, 100);
    let last = v.text("lastName", &req.last_name, 100);
    let email = v.email("email", &req.email);
    let birth = age_gate::parse_birth_date(&mut v, "birthDate", &req.birth_date);
    let guardian = req.guardian.as_ref().map(|g| {
        let name = v.text("guardian.name", &g.name, 100);
        let gemail = v.email("guardian.email", &g.email);
        let rel =
            v.choice_of::<Relationship>("guardian.relationship", &g.relationship.to_lowercase());
        v.check(
            g.consent,
            "guardian.consent",
            "required",
            "the guardian must consent (true)",
        );
        (name, gemail, rel)
    });
    v.finish()?;
    let birth = birth.expect("validated");
    {
        let mut c = state.db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("enroll:ip:{}", crate::http::client_ip(&parts)),
            ENROLLMENTS_PER_HOUR_PER_ADDRESS,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    let mut tx = state.db.begin().await?;
    let org = orgs::by_id(&mut tx, req.workspace_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    if !athletes::enrollment_enabled(&mut tx, org.id).await? {
        return Err(Error::not_found("workspace"));
    }
    let threshold = age_gate::consent_age(org.country.as_deref());
    if age_gate::age(birth) < threshold && guardian.is_none() {
        return Err(guardian_required(threshold));
    }
    let accepted = (
        StatusCode::ACCEPTED,
        axum::Json(EnrollAccepted { status: "received" }),
    );
    if athletes::by_email(&mut tx, org.id, &email).await?.is_some() {
        return Ok(accepted);
    }
    let a = athletes::insert(
        &mut tx,
        org.id,
        &athletes::NewAthlete {
            first_name: first,
            last_name: last,
            email: Some(email),
            birth_date: Some(birth),
            stance: None,
            level: None,
            notes: None,
            status: AthleteStatus::Pending,
            source: AthleteSource::Enrollment,
        },
        None,
    )
    .await?;
    if let Some((name, gemail, rel)) = guardian {
        athletes::record_consent(
            &mut tx,
            org.id,
            a.id,
            &athletes::NewConsent {
                guardian_user_id: None,
                guardian_name: name,
                guardian_email: Some(gemail),
                relationship: rel.expect("validated"),
                method: ConsentMethod::EnrollmentForm,
                note: None,
                recorded_by: None,
                consented_at: Ts::now(),
            },
        )
        .await?;
    }
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(org.id),
            actor: None,
            impersonator: None,
            action: "athlete.enrolled",
            target_type: "athlete",
            target_id: Some(a.id.to_string()),
            data: json!({ "guardian": req.guardian.is_some() }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(accepted)
}
