//! The stop button of the impersonation banner: ends the platform admin's impersonation of
//! this web session, as `POST /api/admin/impersonate/stop` does, and goes back to the person's
//! page in the admin console, as the admin.

use super::{Form, PageUser, check_csrf, error_page, see_other, sign_in_first};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use shared::domain::{Actor, admin};

#[derive(Deserialize)]
pub struct StopForm {
    #[serde(default)]
    csrf: String,
}

pub async fn stop(
    State(state): State<AppState>,
    who: PageUser,
    Form(f): Form<StopForm>,
) -> Response {
    let Some(s) = &who.0 else {
        return sign_in_first("/");
    };
    if let Err(e) = check_csrf(s, &f.csrf) {
        return error_page(&who, &e);
    }
    let Some(admin_id) = s.caller.impersonator else {
        return see_other("/", HeaderMap::new());
    };
    let actor = Actor {
        user_id: admin_id,
        impersonator: None,
    };
    let back = format!("/admin/users/{}", s.caller.user.id);
    match admin::stop_impersonating(&state.db, actor, &s.caller.sign_in_ref()).await {
        Ok(()) => see_other(&back, HeaderMap::new()),
        Err(e) => error_page(&who, &e),
    }
}
