//! Connecting a coach's account at the video-review provider (OAuth 2.0 authorization code;
//! the rules are in `shared::domain::reviewvideo`). The handlers add the redirects.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::domain::reviewvideo::{self as domain, Callback};

/// The callback registered at the provider (the desk's start uses it too).
pub fn redirect_uri(state: &AppState) -> String {
    state.cfg.public_url("/api/auth/reviewvideo/callback")
}

pub async fn start(State(state): State<AppState>, caller: Caller) -> Result<Response> {
    let rv = domain::client(state.reviewvideo.as_ref())?;
    let url = domain::start(
        &state.db,
        &state.keys,
        rv,
        caller.actor(),
        &caller.sign_in_ref(),
        &redirect_uri(&state),
    )
    .await?;
    Ok((StatusCode::FOUND, [(header::LOCATION, url)]).into_response())
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

pub async fn callback(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<CallbackQuery>,
) -> Result<Response> {
    let rv = domain::client(state.reviewvideo.as_ref())?;
    let cb = Callback {
        code: q.code,
        state: q.state,
        error: q.error,
        error_description: q.error_description,
    };
    let redirect = redirect_uri(&state);
    let (db, keys, actor) = (&state.db, &state.keys, caller.actor());
    domain::connect(db, keys, rv, actor, &caller.sign_in_ref(), &redirect, cb).await?;
    let done = state
        .cfg
        .public_url("/settings/integrations?reviewvideo=connected");
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, done)]).into_response())
}

/// Decrypts a stored access token (see `shared::domain::reviewvideo::decrypt_token`).
pub fn decrypt_token(state: &AppState, enc: &str) -> Option<String> {
    domain::decrypt_token(&state.keys, enc)
}
