//! One-click unsubscribe (RFC 8058). Notification mail carries
//! `List-Unsubscribe: <…/api/notifications/unsubscribe?token=…>` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; the mail client POSTs to that URL and
//! the user is unsubscribed from that category of email with no further step. `GET` only
//! describes the token (link scanners follow GETs; they must not unsubscribe anyone).

use crate::http::extract::Query;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::db::Id;
use shared::repo::notifications;

use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeState {
    /// email
    pub channel: String,
    /// The notification category (e.g. message, announcement).
    pub category: String,
    pub unsubscribed: bool,
}

fn verify(state: &AppState, q: &TokenQuery) -> Result<(Id, String)> {
    Ok(q.token
        .as_deref()
        .and_then(|t| shared::unsubscribe::verify(&state.keys, t))
        .ok_or_else(|| Error::unauthorized("invalid_token", "the unsubscribe link is not valid"))?)
}

pub async fn show(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<axum::Json<UnsubscribeState>> {
    let (user, category) = verify(&state, &q)?;
    let mut c = state.db.acquire().await?;
    let unsubscribed = notifications::is_unsubscribed(&mut c, user, "email", &category).await?;
    Ok(axum::Json(UnsubscribeState {
        channel: "email".into(),
        category,
        unsubscribed,
    }))
}

/// The one-click POST: the body (`List-Unsubscribe=One-Click`) is not needed; the token is
/// the whole credential. Repeats answer the same.
pub async fn unsubscribe(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<axum::Json<UnsubscribeState>> {
    let (user, category) = verify(&state, &q)?;
    let mut c = state.db.acquire().await?;
    notifications::unsubscribe(&mut c, user, "email", &category, "one-click").await?;
    Ok(axum::Json(UnsubscribeState {
        channel: "email".into(),
        category,
        unsubscribed: true,
    }))
}
