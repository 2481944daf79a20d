//! `/join/{token}`: a member invite, mailed by `POST /api/orgs/{id}/members/invite`. The
//! preview needs a signed-in user, as `GET /api/orgs/invite/{token}` does, so an anonymous
//! visitor is asked to sign in or sign up (with the invited address) and comes back here.
//! Accepting calls `shared::domain::invites::accept`, as `POST /api/orgs/invite/{token}/accept`.

use super::{Chrome, Form, PageUser, check_csrf, error_page, message, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::domain::invites as domain;
use shared::repo::invites::InviteStatus;

#[derive(Template)]
#[template(path = "pages/join.html")]
pub struct JoinPage {
    c: Chrome,
    /// The path of this page, for the sign-in and sign-up links' `next`.
    here: String,
    anonymous: bool,
    workspace: String,
    role: String,
    invited_by: Option<String>,
    invited_email: String,
    /// The signed-in user's address differs from the invited one.
    mismatch: bool,
    /// Why the invite cannot be accepted (expired, revoked, used), if so.
    unusable: Option<&'static str>,
    csrf: String,
}

pub async fn show(
    State(state): State<AppState>,
    who: PageUser,
    Path(token): Path<String>,
) -> Response {
    let here = format!("/join/{token}");
    let Some(s) = &who.0 else {
        return page(
            StatusCode::OK,
            &JoinPage {
                c: Chrome::new("You are invited", &who),
                here,
                anonymous: true,
                workspace: String::new(),
                role: String::new(),
                invited_by: None,
                invited_email: String::new(),
                mismatch: false,
                unusable: None,
                csrf: String::new(),
            },
        );
    };
    let p = match domain::preview(&state.db, &token).await {
        Ok(p) => p,
        Err(e) => return error_page(&who, &e),
    };
    let unusable = match p.invite.status() {
        InviteStatus::Pending => None,
        InviteStatus::Expired => Some("This invite has expired. Ask for a new one."),
        InviteStatus::Revoked => Some("This invite was withdrawn."),
        InviteStatus::Accepted => Some("This invite was already used."),
    };
    page(
        StatusCode::OK,
        &JoinPage {
            c: Chrome::new("You are invited", &who),
            here,
            anonymous: false,
            mismatch: !p.invite.email.eq_ignore_ascii_case(&s.caller.user.email),
            workspace: p.workspace_name,
            role: p.invite.role_key.clone(),
            invited_by: p.invited_by,
            invited_email: p.invite.email.clone(),
            unusable,
            csrf: s.csrf.clone(),
        },
    )
}

#[derive(Deserialize)]
pub struct AcceptForm {
    #[serde(default)]
    csrf: String,
}

/// Accepts as the signed-in user (who must hold the invited address).
pub async fn accept(
    State(state): State<AppState>,
    who: PageUser,
    Path(token): Path<String>,
    Form(f): Form<AcceptForm>,
) -> Response {
    let Some(s) = &who.0 else {
        return super::sign_in_first(&format!("/join/{token}"));
    };
    if let Err(e) = check_csrf(s, &f.csrf) {
        return error_page(&who, &e);
    }
    match domain::accept(&state.db, s.caller.actor(), &s.caller.user, &token).await {
        Ok(m) => message(
            StatusCode::OK,
            &who,
            "Welcome aboard",
            &format!("You are now a member of {} ({}).", m.org_name, m.role_name),
            Some(("/", "Continue")),
        ),
        Err(e) => error_page(&who, &e),
    }
}
