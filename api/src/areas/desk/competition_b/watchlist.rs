//! The watchlist (`/w/{ws}/competition/watchlist`): the member's own followed athletes and
//! events (as `GET`, `POST /api/watchlist`, `DELETE /api/watchlist/{id}`): a roster athlete, an
//! event of one of the workspace's circuits, or a provider's athlete or event by its id.
//! Personal to each member, so `competition.read` is enough to change it, as the JSON routes.

use super::{chosen_id, roster};
use crate::areas::desk::{Chrome, Desk, DeskForm, Empty, Pager, opt, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::competition::watchlist::{RawWatch, WatchView};
use shared::domain::competition::{circuits, watchlist};
use shared::model::competition::{WatchKind, WatchSource};

const PAGE: i64 = 25;
const HERE: &str = "/competition/watchlist";
/// Circuits whose events the add form offers (a workspace follows a few tours).
const CIRCUITS_OFFERED: i64 = 20;

pub struct WatchRow {
    pub id: Id,
    pub event: bool,
    pub name: String,
    /// `roster`, `circuit`, `heatsource` or `tourindex`.
    pub source: &'static str,
    pub href: Option<String>,
    pub date: Option<String>,
    pub note: Option<String>,
    pub added: String,
    pub iso: String,
}

#[derive(Template)]
#[template(path = "desk/competition_b/watchlist.html")]
pub struct WatchlistPage {
    c: Chrome,
    kind: String,
    rows: Vec<WatchRow>,
    pager: Pager,
    roster: Vec<(Id, String)>,
    /// Events of the workspace's circuits: id, "circuit: event (date)".
    events: Vec<(Id, String)>,
    form: WatchForm,
    notice: Option<Notice>,
    base: String,
}

impl WatchlistPage {
    fn form_athlete(&self, id: &Id) -> bool {
        self.form.athlete_id == id.to_string()
    }
    fn form_event(&self, id: &Id) -> bool {
        self.form.circuit_event_id == id.to_string()
    }
}

#[derive(Deserialize, Default)]
pub struct WatchQuery {
    kind: Option<String>,
    offset: Option<i64>,
}

#[derive(Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct WatchForm {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub athlete_id: String,
    #[serde(default)]
    pub circuit_event_id: String,
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub external_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub note: String,
}

impl Default for WatchForm {
    fn default() -> Self {
        WatchForm {
            kind: "athlete".into(),
            athlete_id: String::new(),
            circuit_event_id: String::new(),
            provider: "heatsource".into(),
            external_id: String::new(),
            name: String::new(),
            note: String::new(),
        }
    }
}

impl WatchForm {
    /// The body `POST /api/watchlist` would get: the chooser of the kind chosen, else the
    /// provider's fields when typed.
    fn parse(&self) -> Result<RawWatch, Error> {
        let event = self.kind == "event";
        let athlete_id = if event {
            None
        } else {
            chosen_id("athleteId", &self.athlete_id)?
        };
        let circuit_event_id = if event {
            chosen_id("circuitEventId", &self.circuit_event_id)?
        } else {
            None
        };
        let typed = opt(&self.external_id).is_some() || opt(&self.name).is_some();
        let local = athlete_id.is_some() || circuit_event_id.is_some();
        Ok(RawWatch {
            kind: self.kind.clone(),
            athlete_id,
            circuit_event_id,
            provider: (typed && !local).then(|| self.provider.trim().to_string()),
            external_id: (typed && !local).then(|| self.external_id.clone()),
            name: (typed && !local).then(|| self.name.clone()),
            note: opt(&self.note).map(str::to_string),
        })
    }
}

/// The events of the workspace's circuits, for the add form.
async fn circuit_events(state: &AppState, desk: &Desk) -> Result<Vec<(Id, String)>, Error> {
    let ws = desk.acting();
    let mut out = Vec::new();
    for c in circuits::list(&state.db, &ws, CIRCUITS_OFFERED, 0).await? {
        let v = circuits::get(&state.db, &ws, c.id).await?;
        for e in v.events {
            let date = e.date.map(|d| format!(" ({d})")).unwrap_or_default();
            out.push((e.id, format!("{}: {}{date}", c.name, e.name)));
        }
    }
    Ok(out)
}

fn row(desk: &Desk, w: WatchView) -> WatchRow {
    let href = (w.source == WatchSource::Roster && desk.ws.can(Perm::AthletesRead))
        .then(|| desk.path(&format!("/athletes/{}", w.target_id)));
    WatchRow {
        id: w.id,
        event: w.kind == WatchKind::Event,
        source: w.source.as_str(),
        href,
        date: w.date,
        note: w.note,
        added: desk.time(w.created_at),
        iso: w.created_at.0.to_rfc3339(),
        name: w.name,
    }
}

async fn watchlist_page(
    state: &AppState,
    desk: &Desk,
    kind: Option<String>,
    offset: i64,
    form: WatchForm,
    notice: Option<Notice>,
) -> Result<WatchlistPage, Error> {
    let mut items =
        watchlist::list(&state.db, &desk.acting(), kind.as_deref(), PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut items, offset, PAGE);
    Ok(WatchlistPage {
        c: Chrome::new(desk, desk.cat.t("wl.title")),
        kind: kind.unwrap_or_default(),
        rows: items.into_iter().map(|w| row(desk, w)).collect(),
        pager,
        roster: roster(state, desk).await?,
        events: circuit_events(state, desk).await?,
        form,
        notice,
        base: desk.path(HERE),
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<WatchQuery>,
) -> Response {
    let kind = q.kind.filter(|k| !k.is_empty());
    let offset = q.offset.unwrap_or(0).max(0);
    match watchlist_page(&state, &desk, kind, offset, WatchForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Watch something (as `POST /api/watchlist`): already watched says so; field errors beside
/// the form, nothing written; another workspace's athlete or event is a 404.
pub async fn add(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<WatchForm>,
) -> Response {
    let made = async {
        let raw = f.parse()?;
        watchlist::add(&state.db, &desk.acting(), &raw).await
    }
    .await;
    match made {
        Ok((_, true)) => desk.done(HERE, "wl.added"),
        Ok((_, false)) => desk.done(HERE, "wl.already"),
        Err(e) if e.code == "not_found" => desk.error(&e),
        Err(e) => match watchlist_page(&state, &desk, None, 0, f, Some(Notice::of(&e))).await {
            Ok(p) => page_at(&desk, status_of(&e), &p, HERE),
            Err(e2) => desk.error(&e2),
        },
    }
}

/// Stop watching (as `DELETE /api/watchlist/{id}`): another member's or workspace's is a 404.
pub async fn remove(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match watchlist::remove(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done(HERE, "wl.removed"),
        Err(e) => desk.error(&e),
    }
}
