//! Coaches' notes on opponents (`/api/opponents`) and opponent suggestions with head-to-head
//! records (`/api/opponents/suggestions`); the rules are in
//! `shared::domain::competition::{opponents, headtohead}`.

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
use shared::domain::competition::headtohead::{self, Suggestion};
use shared::domain::competition::opponents::{self, NoteFields, NoteView, RawFilter, RawOpponent};
use utoipa::ToSchema;

/// The opponent of a new note: `athleteId` (a roster athlete), or `provider` + `externalId` +
/// `name` (a provider athlete).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpponentBody {
    pub athlete_id: Option<Id>,
    #[schema(value_type = Option<shared::domain::competition::roster::Source>)]
    pub provider: Option<String>,
    pub external_id: Option<String>,
    /// 1-200 characters (a provider athlete).
    pub name: Option<String>,
}

/// A new note: the opponent (which a note keeps for good) and the note's fields.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "opponent": { "provider": "heatsource", "externalId": "hs-4471", "name": "Kai Moana" },
    "athleteId": "0190f000-0000-7000-8000-000000000001",
    "body": "Paddles hard for the first wave of every set.",
    "strengths": ["backhand"],
    "tags": ["aggressive"]
}))]
pub struct NewNote {
    pub opponent: OpponentBody,
    /// The roster athlete the note is for (who will face the opponent).
    pub athlete_id: Option<Id>,
    /// Free text, at most 10000 characters.
    #[schema(max_length = 10_000)]
    pub body: Option<String>,
    /// At most 20 entries of 1-100 characters.
    pub strengths: Option<Vec<String>>,
    /// At most 20 entries of 1-100 characters.
    pub weaknesses: Option<Vec<String>>,
    /// At most 20 tags of 1-40 characters of a-z, 0-9, - and _ (lower-cased).
    pub tags: Option<Vec<String>>,
}

/// A change to a note: a field left out stays and `null` clears it. The opponent cannot be
/// changed (write a new note).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotePatch {
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Id>)]
    pub athlete_id: Option<Option<Id>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 10_000)]
    pub body: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<String>>)]
    pub strengths: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<String>>)]
    pub weaknesses: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<String>>)]
    pub tags: Option<Option<Vec<String>>>,
}

impl NewNote {
    fn fields(&self) -> NoteFields {
        NoteFields {
            athlete_id: Patch::from_option(self.athlete_id.map(Some)),
            body: Patch::from_option(self.body.clone().map(Some)),
            strengths: Patch::from_option(self.strengths.clone().map(Some)),
            weaknesses: Patch::from_option(self.weaknesses.clone().map(Some)),
            tags: Patch::from_option(self.tags.clone().map(Some)),
        }
    }
}

impl NotePatch {
    fn fields(&self) -> NoteFields {
        NoteFields {
            athlete_id: Patch::from_option(self.athlete_id),
            body: Patch::from_option(self.body.clone()),
            strengths: Patch::from_option(self.strengths.clone()),
            weaknesses: Patch::from_option(self.weaknesses.clone()),
            tags: Patch::from_option(self.tags.clone()),
        }
    }
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<NewNote>,
) -> Result<(StatusCode, Json<NoteView>)> {
    let o = RawOpponent {
        athlete_id: b.opponent.athlete_id,
        provider: b.opponent.provider.clone(),
        external_id: b.opponent.external_id.clone(),
        name: b.opponent.name.clone(),
    };
    let n = opponents::create(&state.db, &ws, &o, &b.fields()).await?;
    Ok((StatusCode::CREATED, Json(n)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoteQuery {
    /// Notes for this roster athlete.
    pub athlete_id: Option<Id>,
    /// Notes on this roster athlete as an opponent.
    pub opponent_athlete_id: Option<Id>,
    /// Notes on this provider athlete (with externalId).
    pub provider: Option<String>,
    pub external_id: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<NoteQuery>,
) -> Result<Json<Paged<NoteView>>> {
    let f = RawFilter {
        athlete_id: q.athlete_id,
        opponent_athlete_id: q.opponent_athlete_id,
        provider: q.provider,
        external_id: q.external_id,
    };
    let rows = opponents::list(&state.db, &ws, &f, page.fetch_limit(), page.offset).await?;
    Ok(Json(page.wrap(rows)))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Json<NoteView>> {
    Ok(Json(opponents::get(&state.db, &ws, id).await?))
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<NotePatch>,
) -> Result<Json<NoteView>> {
    Ok(Json(
        opponents::update(&state.db, &ws, id, &b.fields()).await?,
    ))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    opponents::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionQuery {
    /// The roster athlete to suggest opponents for (required).
    pub athlete_id: Id,
}

/// Competitors of the athlete's divisions with head-to-head records, most heats shared first.
pub async fn suggestions(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SuggestionQuery>,
) -> Result<Json<Paged<Suggestion>>> {
    Ok(Json(page.slice(
        headtohead::suggestions(&state.db, &ws, q.athlete_id).await?,
    )))
}
