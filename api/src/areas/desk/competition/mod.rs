//! The competition section (issue 39, `docs/web.md` "Competition"): the workspace's circuits,
//! a circuit's events and standings, an athlete's strategy and goals, and the athlete search
//! across the providers. Every page calls the operations the JSON routes call
//! (`shared::domain::competition::{circuits, events, strategy, search, roster}`); the module
//! and permissions are those routes' (`competition.read` to look, `competition.manage` to
//! change).

pub mod circuit;
pub mod search;
pub mod strategy;

use super::i18n::Catalogue;
use super::{Chrome, Desk, Offset, Pager};
use crate::areas::pages::page;
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use shared::Error;
use shared::domain::competition::circuits;
use shared::domain::competition::events::EventView;
use shared::domain::competition::standings::Rules;

const PAGE: i64 = 25;
const HERE: &str = "/competition";

/// A circuit as the main page lists it.
pub struct CircuitRow {
    pub name: String,
    pub href: String,
    pub season: String,
    pub rules: String,
    pub events: usize,
}

#[derive(Template)]
#[template(path = "desk/competition/index.html")]
pub struct IndexPage {
    c: Chrome,
    rows: Vec<CircuitRow>,
    pager: Pager,
    list_path: String,
    /// The module's other pages: (catalogue key of the title, path).
    pages: Vec<(&'static str, String)>,
}

/// The rules in force in a line: how many results count, who qualifies, which points table.
pub fn rules_summary(cat: &'static Catalogue, r: &Rules) -> String {
    let count = match r.results_to_count {
        Some(n) => cat.fill("comp.rules.best", &[("n", &n.to_string())]),
        None => cat.t("comp.rules.all").to_string(),
    };
    let line = match r.qualification_place {
        Some(n) => cat.fill("comp.rules.qualify", &[("n", &n.to_string())]),
        None => cat.t("comp.rules.no_line").to_string(),
    };
    let table = if r.default_points_table {
        cat.t("comp.rules.default_table").to_string()
    } else {
        cat.fill(
            "comp.rules.own_table",
            &[("n", &r.points_table.len().to_string())],
        )
    };
    format!("{count}; {line}; {table}")
}

/// The season a circuit covers, from its events' dates: `2026`, `2025–2026`, or `None`
/// without a dated event (a circuit has no season of its own).
pub fn season(events: &[EventView]) -> Option<String> {
    let years = events
        .iter()
        .filter_map(|e| e.date.as_deref()?.get(..4).map(str::to_string));
    let (min, max) = years.fold((None::<String>, None::<String>), |(lo, hi), y| {
        (
            Some(lo.map_or(y.clone(), |l| l.min(y.clone()))),
            Some(hi.map_or(y.clone(), |h| h.max(y))),
        )
    });
    match (min, max) {
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(a), Some(b)) => Some(format!("{a}–{b}")),
        _ => None,
    }
}

async fn index_page(state: &AppState, desk: &Desk, offset: i64) -> Result<IndexPage, Error> {
    let ws = desk.acting();
    let mut list = circuits::list(&state.db, &ws, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut list, offset, PAGE);
    let mut rows = Vec::with_capacity(list.len());
    for s in list {
        // The circuit read gives its rules and events (at most 25 of these a page).
        let v = circuits::get(&state.db, &ws, s.id).await?;
        rows.push(CircuitRow {
            href: desk.path(&format!("/competition/circuits/{}", s.id)),
            season: season(&v.events).unwrap_or_else(|| desk.cat.t("comp.no_season").into()),
            rules: rules_summary(desk.cat, &v.rules),
            events: v.events.len(),
            name: s.name,
        });
    }
    Ok(IndexPage {
        c: Chrome::new(desk, desk.cat.t("comp.title")),
        rows,
        pager,
        list_path: desk.path(HERE),
        pages: [
            ("comp.search.open", "search"),
            ("opp.title", "opponents"),
            ("wl.title", "watchlist"),
            ("idn.title", "identity"),
            ("ach.title", "achievements"),
            ("rep.title", "reports"),
            ("fc.title", "forecasts"),
        ]
        .into_iter()
        .map(|(k, p)| (k, desk.path(&format!("/competition/{p}"))))
        .collect(),
    })
}

/// `GET /w/{ws}/competition`: the workspace's circuits, 25 a page.
pub async fn index(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    match index_page(&state, &desk, q.offset.unwrap_or(0).max(0)).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}
