//! The athlete search across the roster and the providers (`GET /api/athlete-search/search`),
//! each provider's results apart with why one is unavailable (not configured, too slow,
//! failed), and the import into the roster (`POST /api/athlete-search/import`), which links
//! an existing athlete rather than making a second one.

use super::super::{Chrome, Desk, DeskForm, opt, page_at, status_of};
use crate::areas::athlete_search::{ImportAthlete, import_profile};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::competition::roster::Source;
use shared::domain::competition::search::{self, SearchAnswer};

const HERE: &str = "/competition/search";

/// One provider profile found.
pub struct Hit {
    pub name: String,
    pub country: String,
    pub source: &'static str,
    pub id: String,
    /// The roster athlete this person already is (by link or by name).
    pub roster: Option<(String, String)>,
}

/// One source's answer: its results, or why it has none.
pub struct SourceBlock {
    pub key: &'static str,
    pub label: &'static str,
    pub status: &'static str,
    pub why: String,
    pub hits: Vec<Hit>,
}

#[derive(Template)]
#[template(path = "desk/competition/search.html")]
pub struct SearchPage {
    c: Chrome,
    q: String,
    searched: bool,
    roster: Vec<(String, String)>,
    sources: Vec<SourceBlock>,
    may_import: bool,
    /// The athlete an import just made or linked: (profile link, created).
    imported: Option<String>,
    notice: Option<Notice>,
    action: String,
    import_action: String,
}

#[derive(Deserialize, Default)]
pub struct SearchQuery {
    q: Option<String>,
    /// The athlete the last import resolved to.
    imported: Option<Id>,
}

#[derive(Deserialize)]
pub struct ImportForm {
    #[serde(default)]
    source: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    q: String,
}

fn blocks(desk: &Desk, a: &SearchAnswer) -> (Vec<(String, String)>, Vec<SourceBlock>) {
    let cat = desk.cat;
    let href = |id: Id| desk.path(&format!("/athletes/{id}"));
    let roster = a
        .items
        .iter()
        .filter_map(|c| c.roster.as_ref())
        .map(|r| (r.name.clone(), href(r.athlete_id)))
        .collect();
    let sources = a
        .sources
        .iter()
        .filter(|s| s.source != "roster")
        .map(|s| {
            let source = if s.source == "heatsource" {
                Source::Heatsource
            } else {
                Source::Tourindex
            };
            let why = match s.status {
                "ok" => cat.fill("comp.se.found", &[("n", &s.count.to_string())]),
                "not_configured" => cat.t("comp.se.not_configured").to_string(),
                "timeout" => cat.t("comp.se.timeout").to_string(),
                _ => cat.fill(
                    "comp.se.failed",
                    &[("why", s.error.as_deref().unwrap_or(""))],
                ),
            };
            let hits = a
                .items
                .iter()
                .flat_map(|c| {
                    c.profiles
                        .iter()
                        .filter(|p| p.source == source)
                        .map(move |p| (c, p))
                })
                .map(|(c, p)| Hit {
                    name: p.name.clone(),
                    country: p.country.clone().unwrap_or_default(),
                    source: s.source,
                    id: p.id.clone(),
                    roster: c
                        .roster
                        .as_ref()
                        .map(|r| (r.name.clone(), href(r.athlete_id))),
                })
                .collect();
            SourceBlock {
                key: s.source,
                label: if s.source == "heatsource" {
                    cat.t("comp.se.heatsource")
                } else {
                    cat.t("comp.se.tourindex")
                },
                status: s.status,
                why,
                hits,
            }
        })
        .collect();
    (roster, sources)
}

async fn search_page(
    state: &AppState,
    desk: &Desk,
    q: &str,
    imported: Option<Id>,
    mut notice: Option<Notice>,
) -> (StatusCode, SearchPage) {
    let mut code = StatusCode::OK;
    let (mut roster, mut sources) = (Vec::new(), Vec::new());
    let searched = opt(q).is_some();
    if searched {
        match search::search(
            &state.db,
            state.providers(),
            &desk.acting(),
            q,
            state.cfg.athlete_search_timeout,
        )
        .await
        {
            Ok(a) => (roster, sources) = blocks(desk, &a),
            Err(e) => {
                code = status_of(&e);
                notice = notice.or(Some(Notice::of(&e)));
            }
        }
    }
    let page = SearchPage {
        c: Chrome::new(desk, desk.cat.t("comp.se.title")),
        q: q.to_string(),
        searched,
        roster,
        sources,
        may_import: desk.may(Module::Competition, Perm::CompetitionManage)
            && desk.ws.can(Perm::AthletesCreate),
        imported: imported.map(|id| desk.path(&format!("/athletes/{id}"))),
        notice,
        action: desk.path(HERE),
        import_action: desk.path(&format!("{HERE}/import")),
    };
    (code, page)
}

/// `GET /w/{ws}/competition/search?q=`: the form, and with a query each source's results.
pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<SearchQuery>,
) -> Response {
    let text = q.q.unwrap_or_default();
    let (code, p) = search_page(&state, &desk, &text, q.imported, None).await;
    page(code, &p)
}

/// Imports a provider profile into the roster (as `POST /api/athlete-search/import`): a new
/// athlete, or the one already linked or of the same name, linked.
pub async fn import(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<ImportForm>,
) -> Response {
    let r = ImportAthlete {
        source: f.source.clone(),
        id: f.id.clone(),
        athlete_id: None,
        circuit_id: None,
    };
    match import_profile(&state, &desk.acting(), &r).await {
        Ok(done) => {
            let q: String = url::form_urlencoded::byte_serialize(f.q.as_bytes()).collect();
            let note = if done.created {
                "comp.imported"
            } else {
                "comp.linked"
            };
            desk.done(&format!("{HERE}?q={q}&imported={}", done.athlete_id), note)
        }
        Err(e) => {
            let (_, p) = search_page(&state, &desk, &f.q, None, Some(Notice::of(&e))).await;
            page_at(&desk, status_of(&e), &p, HERE)
        }
    }
}
