//! Connecting a coach's account at the video-review provider (OAuth 2.0 authorization code).
//!
//! The start route stores a random `state` bound to the caller's sign-in (session or bearer
//! family), single use and valid 10 minutes, plus a PKCE verifier when configured, and sends the
//! browser to the provider. The callback accepts the code only with a state issued to the same
//! sign-in, exchanges it (client authenticated with HTTP Basic) and stores the access token
//! encrypted (AES-256-GCM). Denied, forged, replayed or expired callbacks are refused with
//! distinct codes.

use crate::auth::Caller;
use crate::http::extract::Query;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use shared::crypto::{new_token, sha256_b64url};
use shared::providers::ProviderError;
use shared::providers::reviewvideo::{PROVIDER, ReviewVideo};
use shared::repo::{audit, oauth};

const TOKEN_PURPOSE: &str = "provider_connections.access_token";
const VERIFIER_PURPOSE: &str = "oauth_states.pkce_verifier";

fn client(state: &AppState) -> Result<&ReviewVideo> {
    Ok(state
        .reviewvideo
        .as_ref()
        .ok_or_else(|| Error::provider_not_configured(PROVIDER))?)
}

fn redirect_uri(state: &AppState) -> String {
    state.cfg.public_url("/api/auth/reviewvideo/callback")
}

pub async fn start(State(state): State<AppState>, caller: Caller) -> Result<Response> {
    let rv = client(&state)?;
    let oauth_state = new_token("");
    let verifier = rv.uses_pkce().then(|| new_token(""));
    let challenge = verifier.as_deref().map(|v| sha256_b64url(v.as_bytes()));
    let verifier_enc = verifier
        .as_deref()
        .map(|v| state.keys.encrypt(VERIFIER_PURPOSE, v.as_bytes()));
    let mut c = state.db.acquire().await?;
    oauth::create_state(
        &mut c,
        caller.user.id,
        &caller.sign_in_ref(),
        PROVIDER,
        &oauth_state,
        verifier_enc.as_deref(),
    )
    .await?;
    let url = rv.authorize_url(&redirect_uri(&state), &oauth_state, challenge.as_deref());
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
    let rv = client(&state)?;
    let forged = || {
        Error::forbidden(
            "oauth_state_invalid",
            "this authorization response was not started by this sign-in, was already used or has expired; start again",
        )
    };
    let given = q.state.filter(|s| !s.is_empty()).ok_or_else(forged)?;
    let mut c = state.db.acquire().await?;
    let st = oauth::take_state(&mut c, PROVIDER, &given)
        .await?
        .ok_or_else(forged)?;
    if st.user_id != caller.user.id || st.session_ref != caller.sign_in_ref() {
        return Err(forged().into());
    }
    if let Some(err) = q.error {
        let desc = q.error_description.unwrap_or_default();
        return Err(Error::bad_request(
            "oauth_denied",
            format!("the provider did not grant access ({err}) {desc}")
                .trim()
                .to_string(),
        )
        .into());
    }
    let code = q
        .code
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::bad_request("oauth_code_missing", "the callback has no code"))?;
    let verifier = match &st.pkce_verifier_enc {
        Some(enc) => Some(
            state
                .keys
                .decrypt(VERIFIER_PURPOSE, enc)
                .and_then(|v| String::from_utf8(v).ok())
                .ok_or_else(|| Error::internal(anyhow::anyhow!("PKCE verifier undecryptable")))?,
        ),
        None => None,
    };
    let token = rv
        .exchange_code(&code, &redirect_uri(&state), verifier.as_deref())
        .await
        .map_err(|e| match e {
            ProviderError::Rejected { message, .. } => Error::bad_request(
                "oauth_exchange_rejected",
                format!("the provider refused the authorization code: {message}"),
            ),
            other => Error::from(other),
        })?;
    let enc = state
        .keys
        .encrypt(TOKEN_PURPOSE, token.access_token.as_bytes());
    let mut tx = state.db.begin().await?;
    oauth::upsert_connection(
        &mut tx,
        caller.user.id,
        PROVIDER,
        &enc,
        &token.scope,
        &token.user,
    )
    .await?;
    audit::record(
        &mut tx,
        caller.audit(
            None,
            "integration.connected",
            "provider",
            Some(PROVIDER.into()),
            json!({ "scope": token.scope }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((
        StatusCode::SEE_OTHER,
        [(
            header::LOCATION,
            state
                .cfg
                .public_url("/settings/integrations?reviewvideo=connected"),
        )],
    )
        .into_response())
}

/// Decrypts a stored access token (for the adapters that call the provider's API later).
pub fn decrypt_token(state: &AppState, enc: &str) -> Option<String> {
    state
        .keys
        .decrypt(TOKEN_PURPOSE, enc)
        .and_then(|v| String::from_utf8(v).ok())
}
