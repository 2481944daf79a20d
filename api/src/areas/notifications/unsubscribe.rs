//! One-click unsubscribe (RFC 8058). Notification mail carries
//! `List-Unsubscribe: <…/api/notifications/unsubscribe?token=…>` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; the mail client POSTs to that URL and
//! the user is unsubscribed from that category of email with no further step. `GET` only
//! describes the token (link scanners follow GETs; they must not unsubscribe anyone).

use crate::http::Result;
use crate::http::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::domain::notifications::unsubscribe::{self as domain, Subscription};
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

fn view(s: Subscription) -> axum::Json<UnsubscribeState> {
    axum::Json(UnsubscribeState {
        channel: "email".into(),
        category: s.category,
        unsubscribed: s.unsubscribed,
    })
}

pub async fn show(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<axum::Json<UnsubscribeState>> {
    Ok(view(
        domain::state(&state.db, &state.keys, q.token.as_deref()).await?,
    ))
}

/// The one-click POST: the body (`List-Unsubscribe=One-Click`) is not needed; the token is
/// the whole credential. Repeats answer the same.
pub async fn unsubscribe(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<axum::Json<UnsubscribeState>> {
    Ok(view(
        domain::unsubscribe(&state.db, &state.keys, q.token.as_deref()).await?,
    ))
}
