//! Connecting a coach's account at the video-review provider (OAuth 2.0 authorization code).
//!
//! Starting stores a random `state` bound to the caller's sign-in (session or bearer family),
//! single use and valid 10 minutes, plus a PKCE verifier when configured. The callback accepts
//! the code only with a state issued to the same sign-in, exchanges it (client authenticated
//! with HTTP Basic) and stores the access token encrypted (AES-256-GCM). Denied, forged,
//! replayed or expired callbacks are refused with distinct codes.

use super::Actor;
use crate::crypto::{Keys, new_token, sha256_b64url};
use crate::db::Db;
use crate::providers::ProviderError;
use crate::providers::reviewvideo::{PROVIDER, ReviewVideo};
use crate::repo::{audit, oauth};
use crate::{Error, Result};
use serde_json::json;

const TOKEN_PURPOSE: &str = "provider_connections.access_token";
const VERIFIER_PURPOSE: &str = "oauth_states.pkce_verifier";

/// The provider client, or 503 `provider_not_configured`.
pub fn client(rv: Option<&ReviewVideo>) -> Result<&ReviewVideo> {
    rv.ok_or_else(|| Error::provider_not_configured(PROVIDER))
}

/// Starts an authorization for the actor's sign-in; returns the provider's authorize URL.
pub async fn start(
    db: &Db,
    keys: &Keys,
    rv: &ReviewVideo,
    actor: Actor,
    sign_in_ref: &str,
    redirect_uri: &str,
) -> Result<String> {
    let oauth_state = new_token("");
    let verifier = rv.uses_pkce().then(|| new_token(""));
    let challenge = verifier.as_deref().map(|v| sha256_b64url(v.as_bytes()));
    let verifier_enc = verifier
        .as_deref()
        .map(|v| keys.encrypt(VERIFIER_PURPOSE, v.as_bytes()));
    let mut c = db.acquire().await?;
    oauth::create_state(
        &mut c,
        actor.user_id,
        sign_in_ref,
        PROVIDER,
        &oauth_state,
        verifier_enc.as_deref(),
    )
    .await?;
    Ok(rv.authorize_url(redirect_uri, &oauth_state, challenge.as_deref()))
}

/// What the provider sent back to the callback.
#[derive(Debug, Clone, Default)]
pub struct Callback {
    pub code: Option<String>,
    pub state: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

/// Completes an authorization started by the same sign-in: exchanges the code and stores the
/// connection (audited).
pub async fn connect(
    db: &Db,
    keys: &Keys,
    rv: &ReviewVideo,
    actor: Actor,
    sign_in_ref: &str,
    redirect_uri: &str,
    cb: Callback,
) -> Result<()> {
    let forged = || {
        Error::forbidden(
            "oauth_state_invalid",
            "this authorization response was not started by this sign-in, was already used or has expired; start again",
        )
    };
    let given = cb.state.filter(|s| !s.is_empty()).ok_or_else(forged)?;
    let st = {
        let mut c = db.acquire().await?;
        oauth::take_state(&mut c, PROVIDER, &given)
            .await?
            .ok_or_else(forged)?
    };
    if st.user_id != actor.user_id || st.session_ref != sign_in_ref {
        return Err(forged());
    }
    if let Some(err) = cb.error {
        let desc = cb.error_description.unwrap_or_default();
        return Err(Error::bad_request(
            "oauth_denied",
            format!("the provider did not grant access ({err}) {desc}")
                .trim()
                .to_string(),
        ));
    }
    let code = cb
        .code
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::bad_request("oauth_code_missing", "the callback has no code"))?;
    let verifier = match &st.pkce_verifier_enc {
        Some(enc) => Some(
            keys.decrypt(VERIFIER_PURPOSE, enc)
                .and_then(|v| String::from_utf8(v).ok())
                .ok_or_else(|| Error::internal(anyhow::anyhow!("PKCE verifier undecryptable")))?,
        ),
        None => None,
    };
    let token = rv
        .exchange_code(&code, redirect_uri, verifier.as_deref())
        .await
        .map_err(|e| match e {
            ProviderError::Rejected { message, .. } => Error::bad_request(
                "oauth_exchange_rejected",
                format!("the provider refused the authorization code: {message}"),
            ),
            other => Error::from(other),
        })?;
    let enc = keys.encrypt(TOKEN_PURPOSE, token.access_token.as_bytes());
    let mut tx = db.begin().await?;
    oauth::upsert_connection(
        &mut tx,
        actor.user_id,
        PROVIDER,
        &enc,
        &token.scope,
        &token.user,
    )
    .await?;
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "integration.connected",
            "provider",
            Some(PROVIDER.into()),
            json!({ "scope": token.scope }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The user's connection at the provider, if any (what the settings page shows; no token).
pub async fn connection(db: &Db, user: crate::db::Id) -> Result<Option<oauth::Connection>> {
    let mut c = db.acquire().await?;
    Ok(oauth::connection(&mut c, user, PROVIDER).await?)
}

/// Decrypts a stored access token (for the adapters that call the provider's API later).
pub fn decrypt_token(keys: &Keys, enc: &str) -> Option<String> {
    keys.decrypt(TOKEN_PURPOSE, enc)
        .and_then(|v| String::from_utf8(v).ok())
}
