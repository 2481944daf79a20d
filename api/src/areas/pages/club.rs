//! `/club/{id}`: public self-enrollment into a workspace that opened it (`PUT
//! /api/club/enrollment`; the page's address is the enrollment view's `pageUrl`). The form posts
//! what `POST /api/club/enroll` takes and calls the same `domain::enroll` (age gate, guardian
//! consent, per-address limit, repeats answered like the first).

use super::{Chrome, Form, Notice, PageUser, error_page, message, page, ticked};
use crate::http::error::status;
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::athletes::invites::{self as domain, RawEnrollGuardian, RawEnrollment};

#[derive(Template)]
#[template(path = "pages/club.html")]
pub struct ClubPage {
    c: Chrome,
    here: String,
    workspace: String,
    consent_age: u32,
    f: EnrollForm,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
pub struct EnrollForm {
    #[serde(default, rename = "firstName")]
    first_name: String,
    #[serde(default, rename = "lastName")]
    last_name: String,
    #[serde(default)]
    email: String,
    #[serde(default, rename = "birthDate")]
    birth_date: String,
    #[serde(default, rename = "guardian.name")]
    guardian_name: String,
    #[serde(default, rename = "guardian.email")]
    guardian_email: String,
    #[serde(default, rename = "guardian.relationship")]
    relationship: String,
    #[serde(rename = "guardian.consent")]
    consent: Option<String>,
}

async fn render(
    state: &AppState,
    who: &PageUser,
    id: Id,
    code: StatusCode,
    f: EnrollForm,
    notice: Option<Notice>,
) -> Response {
    match domain::enrollment_form(&state.db, id).await {
        Ok(e) => page(
            code,
            &ClubPage {
                c: Chrome::new(&format!("Join {}", e.workspace_name), who),
                here: format!("/club/{id}"),
                workspace: e.workspace_name,
                consent_age: e.consent_age,
                f,
                notice,
            },
        ),
        Err(e) => error_page(who, &e),
    }
}

pub async fn show(State(state): State<AppState>, who: PageUser, Path(id): Path<Id>) -> Response {
    render(
        &state,
        &who,
        id,
        StatusCode::OK,
        EnrollForm::default(),
        None,
    )
    .await
}

pub async fn enroll(
    State(state): State<AppState>,
    who: PageUser,
    parts: Parts,
    Path(id): Path<Id>,
    Form(f): Form<EnrollForm>,
) -> Response {
    // The guardian part counts when any of it is filled in (the domain requires it under the
    // consent age and checks every field of it).
    let with_guardian = !f.guardian_name.trim().is_empty()
        || !f.guardian_email.trim().is_empty()
        || ticked(&f.consent);
    let raw = RawEnrollment {
        workspace_id: id,
        first_name: &f.first_name,
        last_name: &f.last_name,
        email: &f.email,
        birth_date: &f.birth_date,
        guardian: with_guardian.then_some(RawEnrollGuardian {
            name: &f.guardian_name,
            email: &f.guardian_email,
            relationship: &f.relationship,
            consent: ticked(&f.consent),
        }),
    };
    match domain::enroll(&state.db, &raw, &crate::http::client_ip(&parts)).await {
        Ok(()) => message(
            StatusCode::ACCEPTED,
            &who,
            "Thank you",
            "Your enrollment is received. The club will be in touch by email.",
            None,
        ),
        Err(e) if e.kind == shared::ErrorKind::NotFound => error_page(&who, &e),
        Err(e) => {
            let mut n = Notice::of(&e);
            if e.code == "guardian_required" {
                n.message = "Athletes under the club's consent age enroll with a parent or guardian: fill in the guardian part too.".into();
            }
            render(&state, &who, id, status(e.kind), f, Some(n)).await
        }
    }
}
