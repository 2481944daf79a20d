//! The self-enrollment page: whether people may enroll themselves in the club through its
//! public page, that page's address, and opening or closing it (`athletes::invites::
//! enrollment_enabled` and `set_enrollment`, as `GET`/`PUT /api/club/enrollment`; reading
//! needs `athletes.read`, changing `org.update`, both in the athletes module).

use super::super::{Chrome, Desk, DeskForm};
use super::{TabLink, tabs};
use crate::areas::athletes::invites::enrollment_page_url;
use crate::areas::pages::page;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::authz::{Module, Perm};
use shared::domain::athletes::invites as domain;

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/enrollment";

#[derive(Template)]
#[template(path = "desk/settings/enrollment.html")]
pub struct EnrollmentPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    enabled: bool,
    page_url: String,
    action: String,
    can_change: bool,
}

pub async fn show(State(state): State<AppState>, desk: Desk) -> Response {
    match domain::enrollment_enabled(&desk.acting(), &state.db).await {
        Ok(enabled) => page(
            StatusCode::OK,
            &EnrollmentPage {
                c: Chrome::new(&desk, desk.cat.t("set.enrollment.title")),
                tabs: tabs(&desk, TAB),
                enabled,
                page_url: enrollment_page_url(&state, desk.org()),
                action: desk.path("/settings/enrollment"),
                can_change: desk.may(Module::Athletes, Perm::OrgUpdate),
            },
        ),
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize)]
pub struct EnrollmentForm {
    /// `true` opens, anything else closes.
    #[serde(default)]
    enabled: String,
}

pub async fn set(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<EnrollmentForm>,
) -> Response {
    let enabled = f.enabled == "true";
    match domain::set_enrollment(&desk.acting(), &state.db, enabled).await {
        Ok(()) if enabled => desk.done("/settings/enrollment", "set.enrollment.opened"),
        Ok(()) => desk.done("/settings/enrollment", "set.enrollment.closed"),
        Err(e) => desk.error(&e),
    }
}
