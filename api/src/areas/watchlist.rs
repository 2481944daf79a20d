//! A member's own watchlist (`/api/watchlist`): athletes and events they follow; the rules are
//! in `shared::domain::competition::watchlist`.

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query, nullable};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::competition::events::Patch;
use shared::domain::competition::watchlist::{self, RawWatch, WatchView};
use utoipa::ToSchema;

/// A target to watch: an athlete (`athleteId`, or `provider` + `externalId` + `name`) or an
/// event (`circuitEventId`, or `provider` + `externalId` + `name`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({ "kind": "athlete", "athleteId": "0190f000-0000-7000-8000-000000000001" }))]
pub struct WatchBody {
    #[schema(value_type = shared::domain::competition::watchlist::WatchKind)]
    pub kind: String,
    /// A roster athlete of the workspace.
    pub athlete_id: Option<Id>,
    /// An event of one of the workspace's circuits.
    pub circuit_event_id: Option<Id>,
    #[schema(value_type = Option<shared::domain::competition::roster::Source>)]
    pub provider: Option<String>,
    /// The provider's id (1-100 characters).
    pub external_id: Option<String>,
    /// The provider target's name (1-200 characters).
    pub name: Option<String>,
    /// At most 1000 characters.
    pub note: Option<String>,
}

/// Adds a target: 201 with the new item, or 200 with the item already there.
pub async fn add(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<WatchBody>,
) -> Result<(StatusCode, Json<WatchView>)> {
    let raw = RawWatch {
        kind: b.kind,
        athlete_id: b.athlete_id,
        circuit_event_id: b.circuit_event_id,
        provider: b.provider,
        external_id: b.external_id,
        name: b.name,
        note: b.note,
    };
    let (w, added) = watchlist::add(&state.db, &ws, &raw).await?;
    let status = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(w)))
}

#[derive(Deserialize)]
pub struct WatchQuery {
    /// athlete or event.
    pub kind: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<WatchQuery>,
) -> Result<Json<Paged<WatchView>>> {
    let rows = watchlist::list(
        &state.db,
        &ws,
        q.kind.as_deref(),
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(Json(page.wrap(rows)))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Json<WatchView>> {
    Ok(Json(watchlist::get(&state.db, &ws, id).await?))
}

/// A change: a field left out stays; `null` clears the note.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WatchPatch {
    /// A provider target's name (1-200 characters; not for roster athletes or circuit events).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub name: Option<Option<String>>,
    /// At most 1000 characters.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub note: Option<Option<String>>,
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<WatchPatch>,
) -> Result<Json<WatchView>> {
    Ok(Json(
        watchlist::update(
            &state.db,
            &ws,
            id,
            Patch::from_option(b.name),
            Patch::from_option(b.note),
        )
        .await?,
    ))
}

pub async fn remove(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    watchlist::remove(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
