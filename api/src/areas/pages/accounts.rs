//! The account pages: home, sign-in, sign-out, sign-up (with a platform invite code), forgot
//! password, the reset form behind the emailed link, and the "email verified" landing. They
//! call the operations of `shared::domain::accounts` the JSON handlers call, and set the same
//! session cookies (`areas::accounts::sessions::session_cookies`).

use super::{
    Chrome, Form, Notice, PageUser, check_csrf, error_page, field_error, local_path, message, page,
    see_other,
};
use crate::areas::accounts::sessions::{client, session_cookies};
use crate::auth::Via;
use crate::http::cookies;
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::domain::accounts::{self as domain, NewSignup};

#[derive(Deserialize)]
pub struct NextQuery {
    next: Option<String>,
    invite: Option<String>,
}

// ---- home ----

#[derive(Template)]
#[template(path = "pages/home.html")]
pub struct Home {
    c: Chrome,
    name: Option<String>,
    email: String,
    verified: bool,
    workspaces: Vec<String>,
    /// The athletes the user is or looks after (an athlete's or a guardian's home).
    mine: Vec<MyAthlete>,
}

/// One athlete on an athlete's or guardian's home page.
pub struct MyAthlete {
    pub name: String,
    pub club: String,
    /// Empty: the user themself; else "guardian (parent)" and the like.
    pub relation: String,
    pub coaches: Vec<String>,
    /// (title, when (UTC), status)
    pub sessions: Vec<(String, String, String)>,
}

/// `/`: who is signed in and their workspaces, or the way to sign in.
pub async fn home(State(state): State<AppState>, who: PageUser, headers: HeaderMap) -> Response {
    let tz = crate::areas::desk::viewer_tz(&headers);
    let Some(caller) = who.caller() else {
        return page(
            StatusCode::OK,
            &Home {
                c: Chrome::new("Welcome", &who),
                name: None,
                email: String::new(),
                verified: false,
                workspaces: vec![],
                mine: vec![],
            },
        );
    };
    let (ms, default) = match domain::workspaces_of(&state.db, &caller.user).await {
        Ok(w) => w,
        Err(e) => return error_page(&who, &e),
    };
    // A member goes to the desk of their default workspace; athletes and guardians without a
    // membership stay here.
    if let Some(org) = default {
        return see_other(&format!("/w/{org}/"), HeaderMap::new());
    }
    let mine = match shared::domain::athletes::profile::mine(&state.db, caller.user.id).await {
        Ok(m) => m,
        Err(e) => return error_page(&who, &e),
    };
    let mine = mine
        .into_iter()
        .map(|m| MyAthlete {
            name: format!(
                "{} {}",
                m.linked.athlete.first_name, m.linked.athlete.last_name
            ),
            club: m.linked.org_name,
            relation: m
                .linked
                .relationship
                .map(|r| format!("you are their guardian ({r})"))
                .unwrap_or_default(),
            coaches: m
                .coaches
                .into_iter()
                .map(|c| format!("{} ({})", c.name, c.role))
                .collect(),
            sessions: m
                .attendance
                .into_iter()
                .map(|s| {
                    let local = s.starts_at.0.with_timezone(&tz);
                    let when = format!("{} ({tz})", local.format("%Y-%m-%d %H:%M"));
                    (s.title, when, s.status.to_string())
                })
                .collect(),
        })
        .collect();
    page(
        StatusCode::OK,
        &Home {
            c: Chrome::new("Your account", &who),
            name: Some(caller.user.name.clone()),
            email: caller.user.email.clone(),
            verified: caller.user.email_verified_at.is_some(),
            workspaces: ms.into_iter().map(|m| m.org_name).collect(),
            mine,
        },
    )
}

// ---- sign-in ----

#[derive(Template)]
#[template(path = "pages/signin.html")]
pub struct SigninPage {
    c: Chrome,
    next: String,
    email: String,
    notice: Option<Notice>,
}

pub async fn signin_form(who: PageUser, Query(q): Query<NextQuery>) -> Response {
    let next = local_path(q.next.as_deref());
    if who.0.is_some() {
        return see_other(&next, HeaderMap::new());
    }
    page(
        StatusCode::OK,
        &SigninPage {
            c: Chrome::new("Sign in", &who),
            next,
            email: String::new(),
            notice: None,
        },
    )
}

#[derive(Deserialize)]
pub struct SigninForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    next: Option<String>,
}

/// Signs in as `POST /api/auth/signin` does (same rate limits), sets the session cookies and
/// goes on to `next`.
pub async fn signin(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Form(f): Form<SigninForm>,
) -> Response {
    let next = local_path(f.next.as_deref());
    match domain::sign_in(
        &state.db,
        &state.cfg,
        &client(&parts),
        &f.email,
        &f.password,
    )
    .await
    {
        Ok((_, token)) => see_other(&next, session_cookies(&state, &token).0),
        Err(e) => {
            let n = Notice::of(&e);
            page(
                crate::http::error::status(e.kind),
                &SigninPage {
                    c: Chrome::new("Sign in", &who),
                    next,
                    email: f.email,
                    notice: Some(n),
                },
            )
        }
    }
}

#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// Ends this web session (the header's sign-out button), as `POST /api/auth/signout` does.
pub async fn signout(
    State(state): State<AppState>,
    who: PageUser,
    Form(f): Form<CsrfForm>,
) -> Response {
    let secure = state.cfg.cookies_secure();
    let Some(s) = &who.0 else {
        return see_other("/signin", cookies::cleared_session(secure));
    };
    if let Err(e) = check_csrf(s, &f.csrf) {
        return error_page(&who, &e);
    }
    if let Via::Session { session_id } = s.caller.via
        && let Err(e) = domain::end_session(&state.db, session_id).await
    {
        return error_page(&who, &e);
    }
    see_other("/signin", cookies::cleared_session(secure))
}

// ---- sign-up ----

#[derive(Template)]
#[template(path = "pages/signup.html")]
pub struct SignupPage {
    c: Chrome,
    next: String,
    invite: String,
    email: String,
    name: String,
    workspace_name: String,
    /// The mode says sign-up needs a valid invite code and there is none.
    closed: bool,
    notice: Option<Notice>,
}

pub async fn signup_form(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<NextQuery>,
) -> Response {
    let invite = q.invite.unwrap_or_default();
    let (mode, valid) = match domain::signup_mode(&state.db, &state.cfg, Some(&invite)).await {
        Ok(m) => m,
        Err(e) => return error_page(&who, &e),
    };
    let closed = mode != shared::config::SignupMode::Open && valid != Some(true);
    page(
        StatusCode::OK,
        &SignupPage {
            c: Chrome::new("Create an account", &who),
            next: local_path(q.next.as_deref()),
            invite,
            email: String::new(),
            name: String::new(),
            workspace_name: String::new(),
            closed,
            notice: None,
        },
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignupForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    workspace_name: String,
    #[serde(default)]
    invite: String,
    next: Option<String>,
}

/// Creates the account as `POST /api/auth/signup` does (signup mode, invite code, rate limit,
/// verification mail), signs in and goes on to `next`.
pub async fn signup(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Form(f): Form<SignupForm>,
) -> Response {
    let next = local_path(f.next.as_deref());
    let ws_name = Some(f.workspace_name.as_str()).filter(|s| !s.trim().is_empty());
    let invite = Some(f.invite.as_str()).filter(|s| !s.is_empty());
    let done = match NewSignup::parse(&f.email, &f.password, &f.name, ws_name, None, invite) {
        Ok(new) => domain::signup(&state.db, &state.cfg, &state.mailer, &client(&parts), new).await,
        Err(e) => Err(e),
    };
    match done {
        Ok(d) => see_other(&next, session_cookies(&state, &d.session_token).0),
        Err(e) => page(
            crate::http::error::status(e.kind),
            &SignupPage {
                c: Chrome::new("Create an account", &who),
                next,
                invite: f.invite,
                email: f.email,
                name: f.name,
                workspace_name: f.workspace_name,
                closed: false,
                notice: Some(Notice::of(&e)),
            },
        ),
    }
}

// ---- forgot and reset password ----

#[derive(Template)]
#[template(path = "pages/forgot.html")]
pub struct ForgotPage {
    c: Chrome,
    sent: bool,
    email: String,
    notice: Option<Notice>,
}

pub async fn forgot_form(who: PageUser) -> Response {
    page(
        StatusCode::OK,
        &ForgotPage {
            c: Chrome::new("Forgot your password?", &who),
            sent: false,
            email: String::new(),
            notice: None,
        },
    )
}

#[derive(Deserialize)]
pub struct ForgotForm {
    #[serde(default)]
    email: String,
}

/// Mails a reset link as `POST /api/auth/password/forgot` does; says the same whether or not
/// the account exists.
pub async fn forgot(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Form(f): Form<ForgotForm>,
) -> Response {
    let (db, cfg, mailer) = (&state.db, &state.cfg, &state.mailer);
    let r = domain::forgot_password(db, cfg, mailer, &client(&parts), &f.email).await;
    let (code, sent, notice) = match r {
        Ok(()) => (StatusCode::OK, true, None),
        Err(e) => (
            crate::http::error::status(e.kind),
            false,
            Some(Notice::of(&e)),
        ),
    };
    page(
        code,
        &ForgotPage {
            c: Chrome::new("Forgot your password?", &who),
            sent,
            email: f.email,
            notice,
        },
    )
}

#[derive(Template)]
#[template(path = "pages/reset.html")]
pub struct ResetPage {
    c: Chrome,
    token: String,
    notice: Option<Notice>,
}

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// The emailed reset link's landing (`/auth/callback` sends the browser here): the token is
/// checked, not used, so a mail scanner fetching the link spends nothing.
pub async fn reset_form(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<TokenQuery>,
) -> Response {
    let token = q.token.unwrap_or_default();
    if let Err(e) = check_token(&state, &token).await {
        return link_broken(&who, &e);
    }
    page(
        StatusCode::OK,
        &ResetPage {
            c: Chrome::new("Choose a new password", &who),
            token,
            notice: None,
        },
    )
}

async fn check_token(state: &AppState, token: &str) -> shared::Result<()> {
    if token.is_empty() {
        return Err(shared::Error::unauthorized(
            "invalid_token",
            "the link has no token",
        ));
    }
    domain::check_reset_token(&state.db, token).await
}

fn link_broken(who: &PageUser, e: &shared::Error) -> Response {
    message(
        crate::http::error::status(e.kind),
        who,
        "This link does not work",
        &Notice::of(e).message,
        Some(("/auth/forgot-password", "Ask for a new link")),
    )
}

#[derive(Deserialize)]
pub struct ResetForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    confirm: String,
}

/// Sets the new password as `POST /api/auth/password/reset` does (the token is used once; the
/// account is signed out everywhere).
pub async fn reset(
    State(state): State<AppState>,
    who: PageUser,
    Form(f): Form<ResetForm>,
) -> Response {
    let r = if f.password != f.confirm {
        Err(shared::Error::field(
            "confirm",
            "mismatch",
            "the two passwords differ",
        ))
    } else {
        domain::reset_password(&state.db, &f.token, &f.password).await
    };
    match r {
        Ok(()) => {
            let secure = state.cfg.cookies_secure();
            let mut r = message(
                StatusCode::OK,
                &PageUser(None),
                "Password changed",
                "Your password is changed and every device was signed out. Sign in with the new password.",
                Some(("/signin", "Sign in")),
            );
            for (k, v) in cookies::cleared_session(secure).iter() {
                r.headers_mut().append(k, v.clone());
            }
            r
        }
        Err(e) if e.kind == shared::ErrorKind::Unauthenticated => link_broken(&who, &e),
        Err(e) => page(
            crate::http::error::status(e.kind),
            &ResetPage {
                c: Chrome::new("Choose a new password", &who),
                token: f.token,
                notice: Some(Notice::of(&e)),
            },
        ),
    }
}

/// `/auth/verified`: where `/auth/callback` sends a verified address.
pub async fn verified(who: PageUser) -> Response {
    let (href, label) = if who.0.is_some() {
        ("/", "Continue")
    } else {
        ("/signin", "Sign in")
    };
    message(
        StatusCode::OK,
        &who,
        "Email address confirmed",
        "Thank you: your email address is confirmed.",
        Some((href, label)),
    )
}

/// Used by the templates: the field error of `name`.
pub fn err<'a>(n: &'a Option<Notice>, name: &str) -> Option<&'a str> {
    field_error(n, name)
}

// ---- integrations ----

#[derive(Template)]
#[template(path = "pages/integrations.html")]
pub struct IntegrationsPage {
    c: Chrome,
    configured: bool,
    connected: bool,
}

#[derive(Deserialize)]
pub struct IntegrationsQuery {
    reviewvideo: Option<String>,
}

/// `/settings/integrations`: where the video-review provider's OAuth flow ends
/// (`GET /api/auth/reviewvideo/callback` sends the browser here) and where it starts.
pub async fn integrations(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<IntegrationsQuery>,
    headers: axum::http::HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    let Some(signed_in) = &who.0 else {
        return super::sign_in_first("/settings/integrations");
    };
    // A member manages integrations on the workspace's settings tab (issue 39).
    if !signed_in.memberships.is_empty() {
        return crate::areas::desk::settings::integrations::back(&headers, signed_in, uri.query());
    }
    page(
        StatusCode::OK,
        &IntegrationsPage {
            c: Chrome::new("Integrations", &who),
            configured: state.reviewvideo.is_some(),
            connected: q.reviewvideo.as_deref() == Some("connected"),
        },
    )
}
