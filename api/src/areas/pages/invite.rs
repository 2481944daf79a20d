//! `/invite/{token}`: an athlete invite (`POST /api/invite`, `/api/invite/send`). The page shows
//! the lookup's preview (`domain::preview`, rate-limited per address as `GET
//! /api/invite/lookup/{token}`), then two forms: the athlete's claim (`domain::claim`, the
//! server-side age gate) and the guardian's (`domain::claim_as_guardian`: the guardian's login,
//! their consent and optionally the minor's own login). Both sign the new user in with the
//! API's cookies; a claim mails the address verification as `POST /api/invite/claim` does.

use super::{Chrome, Form, Notice, PageUser, error_page, message, page, ticked};
use crate::areas::accounts::send_link;
use crate::areas::accounts::sessions::session_cookies;
use crate::http::error::status;
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use shared::domain::athletes::InviteStatus;
use shared::domain::athletes::invites::{
    self as domain, RawClaim, RawGuardian, RawGuardianClaim, RawLogin, SignIn,
};
use shared::repo::auth_tokens::EmailPurpose;

#[derive(Template)]
#[template(path = "pages/invite.html")]
pub struct InvitePage {
    c: Chrome,
    here: String,
    workspace: String,
    first_name: String,
    consent_age: u32,
    guardian_consent: bool,
    claim: ClaimForm,
    guardian: GuardianForm,
    /// The error of the claim form, or of the guardian form.
    claim_notice: Option<Notice>,
    guardian_notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ClaimForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    birth_date: String,
}

#[derive(Deserialize, Default)]
pub struct GuardianForm {
    #[serde(default, rename = "guardian.name")]
    name: String,
    #[serde(default, rename = "guardian.email")]
    email: String,
    #[serde(default, rename = "guardian.password")]
    password: String,
    #[serde(default, rename = "guardian.relationship")]
    relationship: String,
    #[serde(default, rename = "athleteBirthDate")]
    athlete_birth_date: String,
    #[serde(default, rename = "athleteLogin.email")]
    athlete_email: String,
    #[serde(default, rename = "athleteLogin.password")]
    athlete_password: String,
    consent: Option<String>,
}

/// The preview, or the page that says why there is none.
async fn preview(
    state: &AppState,
    who: &PageUser,
    parts: &Parts,
    token: &str,
) -> Result<domain::Preview, Response> {
    let ip = crate::http::client_ip(parts);
    let p = domain::preview(&state.db, token, &ip)
        .await
        .map_err(|e| error_page(who, &e))?;
    let why = match p.status {
        InviteStatus::Valid => return Ok(p),
        InviteStatus::Used => "This invite was already used. Sign in instead.",
        _ => "This invite has expired. Ask your coach for a new one.",
    };
    Err(message(
        StatusCode::GONE,
        who,
        "This invite does not work",
        why,
        Some(("/signin", "Sign in")),
    ))
}

fn render(
    who: &PageUser,
    token: &str,
    p: domain::Preview,
    code: StatusCode,
    claim: ClaimForm,
    guardian: GuardianForm,
    notices: (Option<Notice>, Option<Notice>),
) -> Response {
    page(
        code,
        &InvitePage {
            c: Chrome::new("Your invitation", who),
            here: format!("/invite/{token}"),
            workspace: p.workspace_name.unwrap_or_default(),
            first_name: p.athlete_first_name.unwrap_or_default(),
            consent_age: p.consent_age.unwrap_or(13),
            guardian_consent: p.guardian_consent.unwrap_or(false),
            claim,
            guardian,
            claim_notice: notices.0,
            guardian_notice: notices.1,
        },
    )
}

pub async fn show(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Path(token): Path<String>,
) -> Response {
    match preview(&state, &who, &parts, &token).await {
        Ok(p) => render(
            &who,
            &token,
            p,
            StatusCode::OK,
            ClaimForm::default(),
            GuardianForm::default(),
            (None, None),
        ),
        Err(r) => r,
    }
}

fn sign_in<'a>(parts: &'a Parts, ip: &'a str) -> SignIn<'a> {
    SignIn {
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok()),
        ip,
    }
}

/// The age gate's refusal, said for this page (the guardian form is right below).
fn notice_of(e: &shared::Error) -> Notice {
    let mut n = Notice::of(e);
    if e.code == "guardian_required" {
        let age = e
            .details
            .as_ref()
            .and_then(|d| d["consentAge"].as_u64())
            .unwrap_or(13);
        n.message = format!(
            "Athletes younger than {age} need a parent or guardian: they create the login with the guardian form on this page."
        );
    }
    n
}

/// A new login signed in: the welcome page with the session cookies.
fn welcome(state: &AppState, session: &str, text: &str) -> Response {
    let mut r = message(
        StatusCode::CREATED,
        &PageUser(None),
        "You are in",
        text,
        Some(("/", "Continue")),
    );
    for (k, v) in session_cookies(state, session).0.iter() {
        r.headers_mut().append(k, v.clone());
    }
    r
}

/// The athlete claims the login (as `POST /api/invite/claim`).
pub async fn claim(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Path(token): Path<String>,
    Form(f): Form<ClaimForm>,
) -> Response {
    let raw = RawClaim {
        token: &token,
        email: &f.email,
        password: &f.password,
        name: Some(f.name.as_str()).filter(|n| !n.trim().is_empty()),
        birth_date: &f.birth_date,
    };
    let ip = crate::http::client_ip(&parts);
    match domain::claim(&state.db, &raw, sign_in(&parts, &ip)).await {
        Ok(c) => {
            let sent = send_link(&state, &c.user, EmailPurpose::VerifyEmail).await;
            let text = if sent {
                "Your login is ready. We mailed you a link to confirm your email address."
            } else {
                "Your login is ready."
            };
            welcome(&state, &c.session, text)
        }
        Err(e) if e.kind == shared::ErrorKind::Unauthenticated => error_page(&who, &e),
        Err(e) => match preview(&state, &who, &parts, &token).await {
            Ok(p) => {
                let claim = ClaimForm {
                    password: String::new(),
                    ..f
                };
                let n = notice_of(&e);
                render(
                    &who,
                    &token,
                    p,
                    status(e.kind),
                    claim,
                    GuardianForm::default(),
                    (Some(n), None),
                )
            }
            Err(r) => r,
        },
    }
}

/// A guardian creates the login and consents (as `POST /api/invite/guardian`).
pub async fn guardian(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Path(token): Path<String>,
    Form(f): Form<GuardianForm>,
) -> Response {
    let athlete_login = (!f.athlete_email.trim().is_empty() || !f.athlete_password.is_empty())
        .then_some(RawLogin {
            email: &f.athlete_email,
            password: &f.athlete_password,
        });
    let raw = RawGuardianClaim {
        token: &token,
        guardian: Some(RawGuardian {
            name: &f.name,
            email: &f.email,
            password: &f.password,
            relationship: &f.relationship,
        }),
        athlete_birth_date: &f.athlete_birth_date,
        athlete_login,
        consent: ticked(&f.consent),
    };
    let ip = crate::http::client_ip(&parts);
    match domain::claim_as_guardian(&state.db, &raw, sign_in(&parts, &ip)).await {
        Ok(g) => {
            let text = if g.athlete_user_id.is_some() {
                "Your consent is recorded, your login is ready and so is the athlete's own."
            } else {
                "Your consent is recorded and your login is ready; it acts for the athlete."
            };
            welcome(&state, &g.session, text)
        }
        Err(e)
            if e.kind == shared::ErrorKind::Unauthenticated && e.code != "invalid_credentials" =>
        {
            error_page(&who, &e)
        }
        Err(e) => match preview(&state, &who, &parts, &token).await {
            Ok(p) => {
                let guardian = GuardianForm {
                    password: String::new(),
                    athlete_password: String::new(),
                    ..f
                };
                let n = notice_of(&e);
                render(
                    &who,
                    &token,
                    p,
                    status(e.kind),
                    ClaimForm::default(),
                    guardian,
                    (None, Some(n)),
                )
            }
            Err(r) => r,
        },
    }
}
