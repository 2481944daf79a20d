//! The training pages of the desk: the team calendar (a week or a month, in the viewer's time
//! zone), a session's page with its roster (add, attended, no-show, remove, the waitlist and
//! who a change moved up from it), create, edit, delete, "start filming" (the footage session)
//! and the CSV import of past sessions. Each calls the operation of `shared::domain::training`
//! (or `orgs::calendar`) the JSON handlers call.

use super::imports;
use super::upload::DeskUpload;
use super::{Chrome, Desk, DeskForm, Empty, opt, status_of};
use crate::areas::pages::{Notice, page, see_other};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};
use serde::Deserialize;
use serde_json::Value;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::{Id, Ts};
use shared::domain::orgs::{self, CalendarRange};
use shared::domain::training::{
    self as domain, NewSession, RawSession, RawSessionPatch, Roster, SessionPatch, StatusChange,
};
use shared::domain::{athletes, members};
use shared::error::Validator;
use shared::import::training::TrainingImporter;
use shared::repo::training::{CalendarEntry, Session};

/// A `datetime-local` field in the viewer's zone (`required`/`invalid` field errors).
fn local_field(desk: &Desk, v: &mut Validator, field: &str, s: &str) -> Option<Ts> {
    let s = s.trim();
    if s.is_empty() {
        v.add(field, "required", "is required");
        return None;
    }
    let t = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S"))
        .ok();
    v.check(t.is_some(), field, "invalid", "must be a date and time");
    t.map(|t| desk.local(t))
}

// ---- the calendar ----

#[derive(Deserialize, Default)]
pub struct CalendarQuery {
    #[serde(default)]
    view: String,
    #[serde(default)]
    at: String,
}

pub struct EntryLine {
    pub href: String,
    pub title: String,
    pub time: String,
    pub iso: String,
    pub place: String,
    pub places: String,
    pub waitlisted: i64,
}

pub struct Day {
    pub label: String,
    pub date: String,
    pub today: bool,
    pub in_month: bool,
    pub entries: Vec<EntryLine>,
}

#[derive(Template)]
#[template(path = "desk/training/calendar.html")]
pub struct CalendarPage {
    c: Chrome,
    month: bool,
    heading: String,
    weekdays: Vec<&'static str>,
    days: Vec<Day>,
    prev: String,
    next: String,
    today: String,
    other_view: String,
    base: String,
    can_manage: bool,
}

pub async fn calendar(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<CalendarQuery>,
) -> Response {
    let month = q.view == "month";
    let at = NaiveDate::parse_from_str(q.at.trim(), "%Y-%m-%d").unwrap_or_else(|_| desk.today());
    let (first, days, prev, next, heading) = if month {
        let first_of_month = at.with_day(1).expect("day 1 exists");
        let grid_start =
            first_of_month - Duration::days(first_of_month.weekday().num_days_from_monday() as i64);
        let next_month = first_of_month
            .checked_add_months(chrono::Months::new(1))
            .expect("a month later");
        let last = next_month - Duration::days(1);
        let grid_end = last + Duration::days(6 - last.weekday().num_days_from_monday() as i64);
        let n = (grid_end - grid_start).num_days() + 1;
        let prev = first_of_month
            .checked_sub_months(chrono::Months::new(1))
            .expect("a month earlier");
        let heading = first_of_month.format("%B %Y").to_string();
        (grid_start, n, prev, next_month, heading)
    } else {
        let monday = at - Duration::days(at.weekday().num_days_from_monday() as i64);
        let heading = format!(
            "{} – {}",
            monday.format("%-d %b"),
            (monday + Duration::days(6)).format("%-d %b %Y")
        );
        (
            monday,
            7,
            monday - Duration::days(7),
            monday + Duration::days(7),
            heading,
        )
    };
    let range = CalendarRange::parse(
        Some(desk.midnight(first)),
        Some(desk.midnight(first + Duration::days(days))),
    );
    let entries = match range {
        Ok(r) => orgs::calendar(&state.db, &desk.acting(), r).await,
        Err(e) => Err(e),
    };
    let entries = match entries {
        Ok(e) => e,
        Err(e) => return desk.error(&e),
    };
    let today = desk.today();
    let days = (0..days)
        .map(|i| {
            let d = first + Duration::days(i);
            Day {
                label: d
                    .format(if month { "%-d" } else { "%A %-d %B" })
                    .to_string(),
                date: d.to_string(),
                today: d == today,
                in_month: !month || d.month() == at.month(),
                entries: entries
                    .iter()
                    .filter(|e| e.starts_at.0.with_timezone(&desk.tz).date_naive() == d)
                    .map(|e| entry_line(&desk, e))
                    .collect(),
            }
        })
        .collect();
    let view = if month { "month" } else { "week" };
    let base = desk.path("/training");
    page(
        StatusCode::OK,
        &CalendarPage {
            c: Chrome::new(&desk, desk.cat.t("tr.title")),
            month,
            heading,
            weekdays: [
                "tr.mon", "tr.tue", "tr.wed", "tr.thu", "tr.fri", "tr.sat", "tr.sun",
            ]
            .iter()
            .map(|k| desk.cat.t(k))
            .collect(),
            days,
            prev: format!("{base}?view={view}&at={prev}"),
            next: format!("{base}?view={view}&at={next}"),
            today: format!("{base}?view={view}"),
            other_view: format!(
                "{base}?view={}&at={at}",
                if month { "week" } else { "month" }
            ),
            can_manage: desk.ws.can(Perm::TrainingManage),
            base,
        },
    )
}

fn entry_line(desk: &Desk, e: &CalendarEntry) -> EntryLine {
    EntryLine {
        href: desk.path(&format!("/training/{}", e.id)),
        title: e.title.clone(),
        time: e
            .starts_at
            .0
            .with_timezone(&desk.tz)
            .format("%H:%M")
            .to_string(),
        iso: e.starts_at.0.to_rfc3339(),
        place: e.spot.clone().or(e.location.clone()).unwrap_or_default(),
        places: match e.capacity {
            Some(c) => format!("{}/{c}", e.participants),
            None => e.participants.to_string(),
        },
        waitlisted: e.waitlisted,
    }
}

// ---- create and edit ----

#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SessionForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    starts_at: String,
    #[serde(default)]
    ends_at: String,
    #[serde(default)]
    location: String,
    #[serde(default)]
    spot: String,
    #[serde(default)]
    coach_user_id: String,
    #[serde(default)]
    capacity: String,
    #[serde(default)]
    notes: String,
}

impl SessionForm {
    fn of(desk: &Desk, s: &Session) -> SessionForm {
        SessionForm {
            title: s.title.clone(),
            starts_at: desk.input_time(s.starts_at),
            ends_at: desk.input_time(s.ends_at),
            location: s.location.clone().unwrap_or_default(),
            spot: s.spot.clone().unwrap_or_default(),
            coach_user_id: s.coach_user_id.map(|c| c.to_string()).unwrap_or_default(),
            capacity: s.capacity.map(|c| c.to_string()).unwrap_or_default(),
            notes: s.notes.clone().unwrap_or_default(),
        }
    }
}

/// The form's fields, parsed: (start, end, coach, capacity), field errors in `v`.
fn parse_form(
    desk: &Desk,
    v: &mut Validator,
    f: &SessionForm,
) -> (Option<Ts>, Option<Ts>, Option<Id>, Option<i64>) {
    let starts = local_field(desk, v, "startsAt", &f.starts_at);
    let ends = local_field(desk, v, "endsAt", &f.ends_at);
    let coach = opt(&f.coach_user_id).and_then(|c| v.id("coachUserId", c));
    let capacity = opt(&f.capacity).and_then(|c| {
        let n = c.parse::<i64>().ok();
        v.check(n.is_some(), "capacity", "invalid", "must be a whole number");
        n
    });
    (starts, ends, coach, capacity)
}

#[derive(Template)]
#[template(path = "desk/training/form.html")]
pub struct FormPage {
    c: Chrome,
    action: String,
    cancel: String,
    submit: &'static str,
    f: SessionForm,
    coaches: Vec<(String, String, bool)>,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
pub struct NewQuery {
    #[serde(default)]
    date: String,
}

pub async fn new_form(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<NewQuery>,
) -> Response {
    let day = NaiveDate::parse_from_str(q.date.trim(), "%Y-%m-%d").unwrap_or_else(|_| desk.today());
    let f = SessionForm {
        starts_at: format!("{day}T09:00"),
        ends_at: format!("{day}T10:30"),
        coach_user_id: desk.who.caller.user.id.to_string(),
        ..SessionForm::default()
    };
    render_form(&state, &desk, None, f, None, StatusCode::OK).await
}

async fn render_form(
    state: &AppState,
    desk: &Desk,
    id: Option<Id>,
    f: SessionForm,
    notice: Option<Notice>,
    code: StatusCode,
) -> Response {
    let (title, action, cancel, submit) = match id {
        None => (
            desk.cat.t("tr.new").to_string(),
            desk.path("/training/new"),
            desk.path("/training"),
            desk.cat.t("tr.create"),
        ),
        Some(id) => (
            desk.cat.fill("tr.edit_title", &[("title", &f.title)]),
            desk.path(&format!("/training/{id}/edit")),
            desk.path(&format!("/training/{id}")),
            desk.cat.t("app.save"),
        ),
    };
    let directory = match members::coach_directory(&state.db, &desk.acting()).await {
        Ok(d) => d,
        Err(e) => return desk.error(&e),
    };
    let none = desk.cat.t("app.none").to_string();
    let mut coaches = vec![(String::new(), none, f.coach_user_id.is_empty())];
    coaches.extend(directory.into_iter().map(|(id, name)| {
        let id = id.to_string();
        let sel = id == f.coach_user_id;
        (id, name, sel)
    }));
    let p = FormPage {
        c: Chrome::new(desk, title),
        action,
        cancel,
        submit,
        f,
        coaches,
        notice,
    };
    page(code, &p)
}

pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<SessionForm>,
) -> Response {
    let mut v = Validator::new();
    let (starts, ends, coach, capacity) = parse_form(&desk, &mut v, &f);
    let made = match (v.finish(), starts, ends) {
        (Ok(()), Some(starts_at), Some(ends_at)) => {
            match NewSession::parse(&RawSession {
                title: &f.title,
                starts_at,
                ends_at,
                location: opt(&f.location),
                spot: opt(&f.spot),
                coach_user_id: coach,
                capacity,
                notes: opt(&f.notes),
            }) {
                Ok(new) => domain::create(&state.db, &desk.acting(), new).await,
                Err(e) => Err(e),
            }
        }
        (Err(e), _, _) => Err(e),
        _ => Err(Error::field("startsAt", "required", "is required")),
    };
    match made {
        Ok(s) => desk.done(&format!("/training/{}", s.id), "created"),
        Err(e) => render_form(&state, &desk, None, f, Some(Notice::of(&e)), status_of(&e)).await,
    }
}

pub async fn edit_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    match domain::get(&state.db, desk.org(), id).await {
        Ok((s, _)) => {
            let f = SessionForm::of(&desk, &s);
            render_form(&state, &desk, Some(id), f, None, StatusCode::OK).await
        }
        Err(e) => desk.error(&e),
    }
}

pub async fn update(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<SessionForm>,
) -> Response {
    let mut v = Validator::new();
    let (starts, ends, coach, capacity) = parse_form(&desk, &mut v, &f);
    // Every field is sent: an emptied optional field is cleared.
    let capacity = capacity.map(Value::from).unwrap_or(Value::Null);
    let done = match v.finish() {
        Ok(()) => match SessionPatch::parse(&RawSessionPatch {
            title: Some(&f.title),
            starts_at: starts,
            ends_at: ends,
            location: Some(f.location.trim()),
            spot: Some(f.spot.trim()),
            coach_user_id: coach,
            capacity: Some(&capacity),
            notes: Some(f.notes.trim()),
        }) {
            Ok(patch) => domain::update(&state.db, &desk.acting(), id, patch)
                .await
                .map(|_| ()),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => desk.done(&format!("/training/{id}"), "saved"),
        Err(e) => {
            render_form(
                &state,
                &desk,
                Some(id),
                f,
                Some(Notice::of(&e)),
                status_of(&e),
            )
            .await
        }
    }
}

// ---- the session and its roster ----

pub struct RosterLine {
    pub athlete_href: String,
    pub athlete_id: Id,
    pub name: String,
    pub status: String,
    pub waitlisted: bool,
    pub promoted: bool,
}

#[derive(Template)]
#[template(path = "desk/training/show.html")]
pub struct ShowPage {
    c: Chrome,
    s: Session,
    base: String,
    starts: String,
    ends: String,
    iso: String,
    coach: Option<String>,
    places: String,
    roster: Vec<RosterLine>,
    promoted: Vec<String>,
    choices: Vec<(String, String)>,
    can_manage: bool,
    notice: Option<Notice>,
    /// The footage session filmed here (with the footage module and its read permission).
    filmed: Option<String>,
}

#[derive(Deserialize, Default)]
pub struct ShowQuery {
    /// Athletes the last change moved up from the waitlist (ids, comma-separated).
    #[serde(default)]
    promoted: String,
}

async fn show_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    promoted: &[Id],
    notice: Option<Notice>,
) -> Result<ShowPage, Error> {
    let (s, roster) = domain::get(&state.db, desk.org(), id).await?;
    let acting = desk.acting();
    let coaches = members::coach_directory(&state.db, &acting).await?;
    let can_manage = desk.ws.can(Perm::TrainingManage);
    let choices = if can_manage && desk.ws.can(Perm::AthletesRead) {
        let all = athletes::list(
            &acting,
            &state.db,
            &shared::repo::athletes::Filter::default(),
            200,
            0,
        )
        .await?;
        all.into_iter()
            .filter(|a| !roster.participants.iter().any(|p| p.athlete_id == a.id))
            .map(|a| {
                (
                    a.id.to_string(),
                    format!("{} {}", a.first_name, a.last_name),
                )
            })
            .collect()
    } else {
        vec![]
    };
    let filmed = if desk.may(Module::Footage, Perm::FootageRead) {
        shared::domain::footage::sessions::of_training(&state.db, &acting, id)
            .await?
            .map(|f| desk.path(&format!("/footage/{f}")))
    } else {
        None
    };
    Ok(ShowPage {
        filmed,
        c: Chrome::new(desk, s.title.clone()),
        base: desk.path(&format!("/training/{id}")),
        starts: desk.time(s.starts_at),
        ends: desk.time(s.ends_at),
        iso: s.starts_at.0.to_rfc3339(),
        coach: s.coach_user_id.and_then(|c| {
            coaches
                .iter()
                .find(|(u, _)| *u == c)
                .map(|(_, n)| n.clone())
        }),
        places: match roster.capacity {
            Some(c) => format!("{}/{c}", roster.places_taken),
            None => roster.places_taken.to_string(),
        },
        promoted: roster
            .participants
            .iter()
            .filter(|p| promoted.contains(&p.athlete_id))
            .map(|p| format!("{} {}", p.first_name, p.last_name))
            .collect(),
        roster: lines(desk, &roster, promoted),
        choices,
        can_manage,
        notice,
        s,
    })
}

fn lines(desk: &Desk, r: &Roster, promoted: &[Id]) -> Vec<RosterLine> {
    r.participants
        .iter()
        .map(|p| RosterLine {
            athlete_href: desk.path(&format!("/athletes/{}", p.athlete_id)),
            athlete_id: p.athlete_id,
            name: format!("{} {}", p.first_name, p.last_name),
            status: p.status.to_string(),
            waitlisted: p.status.as_str() == "waitlisted",
            promoted: promoted.contains(&p.athlete_id),
        })
        .collect()
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(q): Query<ShowQuery>,
) -> Response {
    let promoted: Vec<Id> = q
        .promoted
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    match show_page(&state, &desk, id, &promoted, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The session page again with a failed form's error, at the error's status.
async fn reshow(state: &AppState, desk: &Desk, id: Id, e: Error) -> Response {
    let code = status_of(&e);
    match show_page(state, desk, id, &[], Some(Notice::of(&e))).await {
        Ok(p) => super::page_at(desk, code, &p, &format!("/training/{id}")),
        Err(e2) => desk.error(&e2),
    }
}

/// After a roster change: the session page, naming who moved up from the waitlist.
fn after_roster_change(desk: &Desk, id: Id, r: &Roster, note: &str) -> Response {
    let mut to = desk.path(&format!("/training/{id}?done={note}"));
    if !r.promoted.is_empty() {
        let ids: Vec<String> = r.promoted.iter().map(Id::to_string).collect();
        to.push_str(&format!("&promoted={}", ids.join(",")));
    }
    see_other(&to, HeaderMap::new())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddForm {
    #[serde(default)]
    athlete_id: String,
}

pub async fn add(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<AddForm>,
) -> Response {
    let mut v = Validator::new();
    let athlete = v.id("athleteId", &f.athlete_id);
    let r = match (v.finish(), athlete) {
        (Ok(()), Some(a)) => domain::add_participant(&state.db, &desk.acting(), id, a).await,
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err(Error::field("athleteId", "required", "choose an athlete")),
    };
    match r {
        Ok(r) => after_roster_change(&desk, id, &r, "added"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

#[derive(Deserialize)]
pub struct StatusForm {
    #[serde(default)]
    status: String,
}

pub async fn set_status(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id, athlete)): Path<(Id, Id, Id)>,
    DeskForm(f): DeskForm<StatusForm>,
) -> Response {
    let r = match StatusChange::parse(&f.status) {
        Ok(st) => domain::set_participant(&state.db, &desk.acting(), id, athlete, st).await,
        Err(e) => Err(e),
    };
    match r {
        Ok(r) => after_roster_change(&desk, id, &r, "saved"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

pub async fn remove(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id, athlete)): Path<(Id, Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::remove_participant(&state.db, &desk.acting(), id, athlete).await {
        Ok(r) => after_roster_change(&desk, id, &r, "removed"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

/// "Start filming": the session's footage session, made once.
pub async fn film(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::provision_video(&state.db, &desk.acting(), id).await {
        Ok(_) => desk.done(&format!("/training/{id}"), "filming"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

// ---- delete ----

pub async fn delete_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    match domain::get(&state.db, desk.org(), id).await {
        Ok((s, _)) => {
            let title = desk.cat.fill("tr.delete_title", &[("title", &s.title)]);
            let message = desk.cat.t("tr.delete_confirm");
            let at = format!("/training/{id}");
            super::confirm::delete_page(&desk, &title, message, "tr.delete", &at)
        }
        Err(e) => desk.error(&e),
    }
}

pub async fn delete(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::delete(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done("/training", "deleted"),
        Err(e) => desk.error(&e),
    }
}

// ---- the CSV import of past sessions ----

const IMPORT: imports::Kind = imports::Kind {
    path: "/training/import",
    done: "/training",
    title: "tr.import_title",
    help: "tr.import_help",
    commit: "tr.import_now",
};

pub async fn import_form(desk: Desk) -> Response {
    imports::form(&desk, &IMPORT)
}

pub async fn import_preview(State(state): State<AppState>, desk: Desk, up: DeskUpload) -> Response {
    imports::preview(&state, &desk, &IMPORT, &TrainingImporter, up).await
}

pub async fn import_commit(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<imports::CommitForm>,
) -> Response {
    imports::commit(&state, &desk, &IMPORT, TrainingImporter, f).await
}
