//! Achievements (`/api/achievements/*`, `/api/athletes/{id}/achievements`): definitions seeded
//! per workspace, checks (one athlete inline, the whole workspace as a job) and awards; the
//! rules are in `shared::domain::competition::achievements`.

use super::jobs::accepted;
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::db::Id;
use shared::domain::competition::achievements::{self, AchievementView, AwardView, Seeded};
use utoipa::ToSchema;

/// Adds the default definitions the workspace lacks; running it again adds nothing.
pub async fn seed(State(state): State<AppState>, Acting(ws): Acting) -> Result<Json<Seeded>> {
    Ok(Json(achievements::seed(&state.db, &ws).await?))
}

pub async fn definitions(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<Json<Paged<AchievementView>>> {
    Ok(Json(
        page.slice(achievements::definitions(&state.db, &ws).await?),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckBody {
    /// One athlete, checked now (200); absent (`{}`): every athlete of the workspace, as a job (202).
    pub athlete_id: Option<Id>,
}

/// Checks one athlete inline (200 with what was awarded), or queues the workspace-wide check
/// (202 with the job; the one already queued or running when there is one).
pub async fn check(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<CheckBody>,
) -> Result<Response> {
    if let Some(athlete) = b.athlete_id {
        let r = achievements::check_one(&state.db, &ws, athlete).await?;
        return Ok(Json(r).into_response());
    }
    let queued = achievements::check_all(&state.db, &ws).await?;
    Ok(accepted(queued).into_response())
}

/// An athlete's awards, newest first.
pub async fn awards(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Path(id): Path<Id>,
) -> Result<Json<Paged<AwardView>>> {
    let rows = achievements::awards(&state.db, &ws, id, page.fetch_limit(), page.offset).await?;
    Ok(Json(page.wrap(rows)))
}
