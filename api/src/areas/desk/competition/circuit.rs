//! A circuit's page: its events (a member's own added, any edited, as `POST
//! /api/circuits/{id}/events` and `PATCH …/events/{eventId}`) and its standings in each
//! division under the circuit's rules, counted by `strategy::circuit_table` (the arithmetic
//! of `GET /api/strategy/{athleteId}`), with the qualification line drawn after the last
//! qualifying place.

use super::super::{Chrome, Desk, DeskForm, opt, page_at, status_of};
use super::{rules_summary, season};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::competition::events::{self, EventFields, EventView, ProviderValues};
use shared::domain::competition::{circuits, strategy};

pub struct EventRow {
    pub name: String,
    pub date: String,
    pub status: String,
    /// A member's own event (else synced from the provider).
    pub own: bool,
    /// A synced event with a member's override.
    pub edited: bool,
    pub edit_href: String,
}

pub struct StandingRow {
    pub rank: u32,
    pub name: String,
    pub total: String,
    /// Results counted of those the competitor has.
    pub counted: usize,
    pub results: usize,
    /// The competitor's strategy page, when a roster athlete is linked to them.
    pub href: Option<String>,
    pub qualifies: bool,
    /// The qualification line follows this row.
    pub line_after: bool,
}

pub struct DivisionBlock {
    pub id: String,
    pub name: String,
    pub rows: Vec<StandingRow>,
}

/// The fields of an event's form, as typed.
#[derive(Deserialize, Default, Clone)]
pub struct EventForm {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub status: String,
}

#[derive(Template)]
#[template(path = "desk/competition/circuit.html")]
pub struct CircuitPage {
    c: Chrome,
    name: String,
    rules: String,
    season: Option<String>,
    qualification: Option<u32>,
    events: Vec<EventRow>,
    divisions: Vec<DivisionBlock>,
    may_manage: bool,
    form: EventForm,
    notice: Option<Notice>,
    add_action: String,
    back: String,
}

#[derive(Deserialize)]
pub struct CircuitPath {
    id: Id,
}

#[derive(Deserialize)]
pub struct EventPath {
    id: Id,
    event: Id,
}

/// Points as printed: whole numbers without decimals.
pub fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

fn here(id: Id) -> String {
    format!("/competition/circuits/{id}")
}

fn event_row(desk: &Desk, circuit: Id, e: &EventView) -> EventRow {
    EventRow {
        name: e.name.clone(),
        date: e.date.clone().unwrap_or_default(),
        status: e.status.clone().unwrap_or_default(),
        own: e.origin == "manual",
        edited: e.origin != "manual" && !e.manual_fields.is_empty(),
        edit_href: desk.path(&format!("{}/events/{}", here(circuit), e.id)),
    }
}

async fn circuit_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    form: EventForm,
    notice: Option<Notice>,
) -> Result<CircuitPage, Error> {
    let ws = desk.acting();
    let v = circuits::get(&state.db, &ws, id).await?;
    let table = strategy::circuit_table(&state.db, &ws, id).await?;
    let q = table.rules.qualification_place;
    let divisions = table
        .divisions
        .into_iter()
        .map(|d| {
            // The line follows the last row inside it (tied ranks at the place all qualify).
            let last_in = q.and_then(|q| d.lines.iter().rposition(|l| l.line.rank <= q));
            DivisionBlock {
                rows: d
                    .lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| StandingRow {
                        rank: l.line.rank,
                        name: l.line.name.clone(),
                        total: points(l.line.total),
                        counted: l.line.results.iter().filter(|r| r.counted).count(),
                        results: l.line.results.len(),
                        href: l
                            .athlete_id
                            .map(|a| desk.path(&format!("/competition/strategy/{a}"))),
                        qualifies: q.is_some_and(|q| l.line.rank <= q),
                        line_after: last_in == Some(i),
                    })
                    .collect(),
                id: d.division_id,
                name: d.division_name,
            }
        })
        .collect();
    Ok(CircuitPage {
        c: Chrome::new(desk, v.circuit.name.clone()),
        rules: rules_summary(desk.cat, &v.rules),
        season: season(&v.events),
        qualification: q,
        events: v.events.iter().map(|e| event_row(desk, id, e)).collect(),
        divisions,
        may_manage: desk.may(Module::Competition, Perm::CompetitionManage),
        form,
        notice,
        add_action: desk.path(&format!("{}/events", here(id))),
        back: desk.path(super::HERE),
        name: v.circuit.name,
    })
}

/// `GET /w/{ws}/competition/circuits/{id}`.
pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(CircuitPath { id }): Path<CircuitPath>,
) -> Response {
    match circuit_page(&state, &desk, id, EventForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Adds a member's own event (as `POST /api/circuits/{id}/events`): a blank field is left out.
pub async fn add_event(
    State(state): State<AppState>,
    desk: Desk,
    Path(CircuitPath { id }): Path<CircuitPath>,
    DeskForm(f): DeskForm<EventForm>,
) -> Response {
    let given = |s: &str| opt(s).map(|v| Some(v.to_string()));
    let fields = EventFields::new(given(&f.name), given(&f.date), given(&f.status));
    match events::create(&state.db, &desk.acting(), id, &fields).await {
        Ok(_) => desk.done(&here(id), "comp.event_added"),
        Err(e) => match circuit_page(&state, &desk, id, f, Some(Notice::of(&e))).await {
            Ok(p) => page_at(&desk, status_of(&e), &p, &here(id)),
            Err(e2) => desk.error(&e2),
        },
    }
}

#[derive(Template)]
#[template(path = "desk/competition/event.html")]
pub struct EventPage {
    c: Chrome,
    circuit: String,
    circuit_href: String,
    own: bool,
    /// What the provider has, for a synced event (shown beside each field).
    provider: Option<ProviderValues>,
    form: EventForm,
    notice: Option<Notice>,
    action: String,
}

async fn event_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    event: Id,
    form: Option<EventForm>,
    notice: Option<Notice>,
) -> Result<EventPage, Error> {
    let ws = desk.acting();
    let v = circuits::get(&state.db, &ws, id).await?;
    let e = events::get(&state.db, &ws, id, event).await?;
    let own = e.origin == "manual";
    // A synced event's fields hold the member's overrides only: blank is the provider's value.
    let shown = |field: &str, value: &Option<String>| {
        if own || e.manual_fields.iter().any(|m| m == field) {
            value.clone().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let form = form.unwrap_or_else(|| EventForm {
        name: shown("name", &Some(e.name.clone())),
        date: shown("date", &e.date),
        status: shown("status", &e.status),
    });
    Ok(EventPage {
        c: Chrome::new(desk, e.name.clone()),
        circuit: v.circuit.name,
        circuit_href: desk.path(&here(id)),
        own,
        provider: e.provider,
        form,
        notice,
        action: desk.path(&format!("{}/events/{event}", here(id))),
    })
}

/// `GET /w/{ws}/competition/circuits/{id}/events/{event}`: the event's form.
pub async fn edit_form(
    State(state): State<AppState>,
    desk: Desk,
    Path(EventPath { id, event }): Path<EventPath>,
) -> Response {
    match event_page(&state, &desk, id, event, None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Saves an event (as `PATCH /api/circuits/{id}/events/{eventId}`): an emptied field is
/// cleared, which gives a synced event the provider's value back.
pub async fn edit_event(
    State(state): State<AppState>,
    desk: Desk,
    Path(EventPath { id, event }): Path<EventPath>,
    DeskForm(f): DeskForm<EventForm>,
) -> Response {
    let given = |s: &str| Some(opt(s).map(str::to_string));
    let fields = EventFields::new(given(&f.name), given(&f.date), given(&f.status));
    match events::update(&state.db, &desk.acting(), id, event, &fields).await {
        Ok(_) => desk.done(&here(id), "comp.event_saved"),
        Err(e) => {
            let rest = format!("{}/events/{event}", here(id));
            match event_page(&state, &desk, id, event, Some(f), Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, status_of(&e), &p, &rest),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}
