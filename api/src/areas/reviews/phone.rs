//! The phone's review routes (`/api/mobile/…`, bearer): the athlete (and a minor's guardians,
//! reading along) reads a session's published reviews and sends receipts. Replies are in
//! [`super::replies`].

use super::{ReceiptView, ReviewDetail, detail};
use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::db::Id;
use shared::domain::reviews::reading;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct PhoneReviews {
    pub items: Vec<ReviewDetail>,
}

/// `GET /api/mobile/sessions/{id}/reviews`: the session's published reviews the caller may
/// read (their own, or a minor's they are guardian of).
pub async fn session_reviews(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<axum::Json<PhoneReviews>> {
    let rows = reading::session_reviews(&state.db, &caller.actor(), id).await?;
    let mut items = Vec::with_capacity(rows.len());
    for f in rows {
        items.push(detail(&state, f).await?);
    }
    Ok(axum::Json(PhoneReviews { items }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiptInput {
    /// The phone's stable installation id.
    pub device_id: String,
    /// Opened (true) or only delivered (false, the default).
    #[serde(default)]
    pub opened: bool,
}

/// `POST /api/mobile/reviews/{id}/receipts`: delivered or opened on this device; idempotent.
pub async fn receipt(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(b): Body<ReceiptInput>,
) -> Result<axum::Json<ReceiptView>> {
    let r = reading::receipt(&state.db, &caller.actor(), id, &b.device_id, b.opened).await?;
    Ok(axum::Json(r.into()))
}
