//! The multi-source athlete search and import (`/api/athlete-search/*`) and the provider
//! directory (`/api/discover`): each handler extracts, calls one
//! `shared::domain::competition` operation and maps the answer.

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::competition::roster::{self, Imported, Importer, Profile, Source};
use shared::domain::competition::search::{self, SearchAnswer};
use shared::domain::competition::tourindex::{self, DirectoryEntry};
use shared::storage::Store;
use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    pub q: String,
}

/// The roster and every configured provider searched at once, the same person merged.
pub async fn search(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<SearchQuery>,
) -> Result<Json<SearchAnswer>> {
    Ok(Json(
        search::search(
            &state.db,
            state.providers(),
            &ws,
            &q.q,
            state.cfg.athlete_search_timeout,
        )
        .await?,
    ))
}

/// One provider profile with its results (cached).
pub async fn profile(
    State(state): State<AppState>,
    Path((source, id)): Path<(String, String)>,
) -> Result<Json<Profile>> {
    Ok(Json(
        search::profile(&state.db, state.providers(), &source, &id).await?,
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportAthlete {
    #[schema(value_type = shared::domain::competition::roster::Source)]
    pub source: String,
    /// The provider's athlete id.
    pub id: String,
    /// Link this roster athlete instead of finding or creating one.
    pub athlete_id: Option<Id>,
    /// Enroll the athlete in this circuit of the workspace.
    pub circuit_id: Option<Id>,
}

/// Resolves a provider profile into a roster athlete (linked when known or when exactly one
/// roster athlete has the name, else created), with optional circuit enrollment. 201 when an
/// athlete was created, else 200.
pub async fn import(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ImportAthlete>,
) -> Result<(StatusCode, Json<Imported>)> {
    let done = import_profile(&state, &ws, &r).await?;
    let status = if done.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(done)))
}

/// The import itself, shared with the desk's athlete search page: `athletes.create` checked,
/// the source and id read, the profile fetched (404 when the provider has none) and resolved.
pub async fn import_profile(
    state: &AppState,
    ws: &shared::domain::InWorkspace,
    r: &ImportAthlete,
) -> shared::Result<Imported> {
    ws.require(Perm::AthletesCreate)?;
    let source = Source::parse(&r.source).map_err(|_| {
        shared::Error::field("source", "invalid", "a source is heatsource or tourindex")
    })?;
    let id = shared::domain::competition::provider_ref("id", &r.id)?;
    let profile = roster::fetch_profile(&state.db, state.providers(), source, &id)
        .await
        .map_err(shared::Error::from)?
        .ok_or_else(|| shared::Error::not_found("athlete"))?;
    roster::import(
        &state.db,
        &Importer::from(ws),
        &profile,
        r.athlete_id,
        r.circuit_id,
    )
    .await
}

#[derive(Deserialize)]
pub struct DiscoverQuery {
    /// One tour only.
    pub tour: Option<String>,
    /// Names containing this (case-insensitive).
    pub q: Option<String>,
}

/// How long a directory headshot's URL stays valid.
const AVATAR_URL_TTL: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The provider directory (the tour index's athletes `tourindex-sync` keeps), by name,
/// filterable by tour and name, with headshots and the workspace's linked athletes.
pub async fn discover(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<DiscoverQuery>,
) -> Result<Json<Paged<DirectoryEntry>>> {
    let mut rows = tourindex::directory(
        &state.db,
        ws.org_id,
        q.tour.as_deref(),
        q.q.as_deref(),
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    for r in &mut rows {
        if let Some(key) = &r.avatar_key {
            r.avatar_url = Some(
                state
                    .storage
                    .presign_get(
                        Store::Sidecars,
                        key,
                        AVATAR_URL_TTL,
                        &state.keys,
                        state.cfg.public_base_url.as_str().trim_end_matches('/'),
                    )
                    .await
                    .map_err(shared::Error::internal)?,
            );
        }
    }
    Ok(Json(page.wrap(rows)))
}
