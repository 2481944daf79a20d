//! Cross-source identity and dedup (`/api/identity/*`, `/api/dedup/suggestions`): each
//! handler extracts, calls one `shared::domain::competition` operation (`matching`, `links`,
//! `dedup`) and maps the answer. Decisions and weights: `docs/competition.md`, "Identity and
//! dedup".

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::competition::dedup::{self, MergePlan, PairedAthlete};
use shared::domain::competition::identity::{Confidence, Evidence};
use shared::domain::competition::links::{self, LinkDecision, LinkFilter, LinkView};
use shared::domain::competition::matching::{self, MatchCandidate, MatchedAthlete};
use shared::domain::competition::search::SourceStatus;
use utoipa::ToSchema;

// ---- match ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchQuery {
    pub athlete_id: Option<Id>,
}

/// A page of candidates for one athlete, best first, and how each provider answered.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchPage {
    pub athlete: MatchedAthlete,
    pub items: Vec<MatchCandidate>,
    pub limit: i64,
    pub offset: i64,
    /// The offset of the next page, or null on the last page.
    pub next_offset: Option<i64>,
    /// Each provider's search: `ok`, `timeout`, `failed`, `not_configured`, or `linked` (not
    /// asked: the athlete has a profile there already).
    pub sources: Vec<SourceStatus>,
}

/// The provider profiles that may be the roster athlete `athleteId`, scored and explained.
pub async fn match_candidates(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<MatchQuery>,
) -> Result<Json<MatchPage>> {
    let athlete = matching::athlete_param(q.athlete_id)?;
    let m = matching::candidates(
        &state.db,
        state.providers(),
        &ws,
        athlete,
        state.cfg.athlete_search_timeout,
    )
    .await?;
    let Paged {
        items,
        limit,
        offset,
        next_offset,
    } = page.slice(m.candidates);
    Ok(Json(MatchPage {
        athlete: m.athlete,
        items,
        limit,
        offset,
        next_offset,
        sources: m.sources,
    }))
}

// ---- links ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinksQuery {
    /// One athlete's decisions.
    pub athlete_id: Option<Id>,
    /// One provider's: `heatsource` or `tourindex`.
    pub source: Option<String>,
    /// `linked` (default) or `rejected`.
    pub status: Option<String>,
}

/// The workspace's (or one athlete's) links or rejections, newest first.
pub async fn list_links(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<LinksQuery>,
) -> Result<Json<Paged<LinkView>>> {
    let f = LinkFilter::parse(q.athlete_id, q.source.as_deref(), q.status.as_deref())?;
    let rows = links::list(&state.db, &ws, &f, page.fetch_limit(), page.offset).await?;
    Ok(Json(page.wrap(rows)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecideLink {
    /// The roster athlete.
    pub athlete_id: Id,
    #[schema(value_type = shared::domain::competition::roster::Source)]
    pub source: String,
    /// The provider's profile id.
    pub external_id: String,
    /// `confirm` (default: link the profile to the athlete) or `reject` (never suggest it
    /// for the athlete again).
    #[schema(value_type = Option<shared::domain::competition::links::Decision>)]
    pub decision: Option<String>,
    /// A rejection's label: the candidate's name as shown (at most 200 characters).
    pub name: Option<String>,
    /// A rejection's label: the candidate's score as shown (0–1).
    #[schema(minimum = 0, maximum = 1)]
    pub score: Option<f64>,
}

/// Confirms (links) or rejects a candidate: 201 when the link or rejection is new, 200 when it
/// already was so.
pub async fn decide_link(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<DecideLink>,
) -> Result<(StatusCode, Json<LinkView>)> {
    let d = LinkDecision::parse(
        b.athlete_id,
        &b.source,
        &b.external_id,
        b.decision.as_deref(),
        b.name.as_deref(),
        b.score,
    )?;
    let done = links::decide(&state.db, state.providers(), &ws, &d).await?;
    let status = if done.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(done.view)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoveQuery {
    pub athlete_id: Id,
    pub source: String,
    pub external_id: String,
}

/// Removes the athlete's link to the profile (and the results it brought), or the rejection.
pub async fn remove_link(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<RemoveQuery>,
) -> Result<StatusCode> {
    links::remove(&state.db, &ws, q.athlete_id, &q.source, &q.external_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- dedup ----

/// The merge route a suggestion feeds.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeCall {
    pub keep_id: Id,
    pub merge_id: Id,
    /// Always `POST`.
    pub method: &'static str,
    /// `/api/athletes/{keepId}/merge/{mergeId}`.
    pub path: String,
    /// Why the merge would be refused (`merge_conflict`: both have their own login), if it
    /// would.
    pub blocked: Option<String>,
}

impl From<MergePlan> for MergeCall {
    fn from(p: MergePlan) -> Self {
        MergeCall {
            path: format!("/api/athletes/{}/merge/{}", p.keep_id, p.merge_id),
            keep_id: p.keep_id,
            merge_id: p.merge_id,
            method: "POST",
            blocked: p.blocked,
        }
    }
}

/// Two roster athletes that are probably one person.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionView {
    /// The older record.
    pub a: PairedAthlete,
    pub b: PairedAthlete,
    /// 0–1, at least 0.55.
    pub score: f64,
    pub confidence: Confidence,
    /// Every field compared, with how much it counted.
    pub explanation: Vec<Evidence>,
    pub merge: MergeCall,
}

/// The workspace's probable duplicates, best first (needs athletes.read too).
pub async fn suggestions(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<Json<Paged<SuggestionView>>> {
    ws.require(Perm::AthletesRead)?;
    let all = dedup::suggestions(&state.db, &ws).await?;
    Ok(Json(
        page.slice(
            all.into_iter()
                .map(|s| SuggestionView {
                    a: s.a,
                    b: s.b,
                    score: s.score,
                    confidence: s.confidence,
                    explanation: s.explanation,
                    merge: s.merge.into(),
                })
                .collect(),
        ),
    ))
}

#[derive(Deserialize)]
pub struct DismissQuery {
    /// One athlete of the pair.
    pub a: Id,
    /// The other.
    pub b: Id,
}

/// Dismisses the pair `a`, `b`: it is never suggested again.
pub async fn dismiss(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<DismissQuery>,
) -> Result<StatusCode> {
    dedup::dismiss(&state.db, &ws, q.a, q.b).await?;
    Ok(StatusCode::NO_CONTENT)
}
