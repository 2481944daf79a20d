//! OAuth authorization-code state (bound to the browser session that started it) and the
//! resulting provider connections, whose tokens are stored encrypted.

use crate::crypto::hash_token;
use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

pub const STATE_TTL: chrono::Duration = chrono::Duration::minutes(10);

pub async fn create_state(
    x: &mut impl Executor,
    user: Id,
    session_ref: &str,
    provider: &str,
    state: &str,
    pkce_verifier_enc: Option<&str>,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO oauth_states (id, user_id, session_ref, provider, state_hash, pkce_verifier_enc, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
        .bind(Id::new()).bind(user).bind(session_ref).bind(provider).bind(hash_token(state))
        .bind(pkce_verifier_enc).bind(now).bind(now.plus(STATE_TTL)))?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct State {
    pub id: Id,
    pub user_id: Id,
    pub session_ref: String,
    pub pkce_verifier_enc: Option<String>,
    pub expires_at: Ts,
}

/// Takes a state for `provider`, single use: returns it only the first time and only unexpired.
pub async fn take_state(
    x: &mut impl Executor,
    provider: &str,
    state: &str,
) -> Result<Option<State>, sqlx::Error> {
    let now = Ts::now();
    let row = sql!(x, c => sqlx::query_as::<_, State>(
        "UPDATE oauth_states SET used_at = $3 WHERE state_hash = $1 AND provider = $2 AND used_at IS NULL AND expires_at > $3
         RETURNING id, user_id, session_ref, pkce_verifier_enc, expires_at")
        .bind(hash_token(state)).bind(provider).bind(now).fetch_optional(&mut *c).await)?;
    Ok(row)
}

#[derive(Debug, Clone, FromRow)]
pub struct Connection {
    pub id: Id,
    pub user_id: Id,
    pub provider: String,
    pub access_token_enc: String,
    pub scope: String,
    pub account: Json<Value>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

pub async fn upsert_connection(
    x: &mut impl Executor,
    user: Id,
    provider: &str,
    access_token_enc: &str,
    scope: &str,
    account: &Value,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO provider_connections (id, user_id, provider, access_token_enc, scope, account, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (user_id, provider) DO UPDATE SET access_token_enc = excluded.access_token_enc,
            scope = excluded.scope, account = excluded.account, updated_at = excluded.updated_at")
        .bind(Id::new()).bind(user).bind(provider).bind(access_token_enc).bind(scope)
        .bind(Json(account)).bind(now))?;
    Ok(())
}

pub async fn connection(
    x: &mut impl Executor,
    user: Id,
    provider: &str,
) -> Result<Option<Connection>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Connection>(
        "SELECT id, user_id, provider, access_token_enc, scope, account, created_at, updated_at
         FROM provider_connections WHERE user_id = $1 AND provider = $2")
        .bind(user).bind(provider).fetch_optional(&mut *c).await)
}
