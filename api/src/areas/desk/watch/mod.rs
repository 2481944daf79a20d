//! The watch pages of the desk (issue 39, `docs/web.md`): the workspace's watch sessions (by
//! athlete, 25 a page) with who is in the water now, a GPX or FIT file imported by choosing or
//! dropping it, and a session's page: its track and charts drawn by the server ([`plot`]), the
//! ride table, ground-truth labels typed or dragged on the speed chart and the detector's
//! accuracy against them, which clip shows which ride, the GPX export, re-deriving and deleting.
//! Each calls the `shared::domain::wearable` operation the JSON handlers call.

pub mod plot;

use super::confirm::delete_page;
use super::footage::{athlete_names, job_page};
use super::upload::{DeskFile, FilePart};
use super::{Chrome, Desk, DeskForm, Empty, Pager, opt, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::{NaiveTime, Timelike};
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::footage::clips;
use shared::domain::wearable::labels::{self, NewLabel};
use shared::domain::wearable::samples::Stream;
use shared::domain::wearable::sessions::{self, ImportMeta, SessionDetail, SessionView};
use shared::domain::wearable::sync::{self, SyncRequest};
use shared::domain::wearable::{access, people};
use std::collections::HashMap;

const PAGE: i64 = 25;
/// People shown as in the water (a club's whole line-up fits).
const LIVE_SHOWN: i64 = 50;
/// Clips offered for alignment: the athlete's newest.
const CLIPS_OFFERED: i64 = 50;

// ---- the list ----

pub struct SessionLine {
    pub href: String,
    pub athlete: String,
    pub started: String,
    pub iso: String,
    pub device: String,
    pub status: String,
    pub tone: &'static str,
    pub rides: Option<i64>,
}

pub struct LiveLine {
    pub athlete: String,
    pub since: String,
    pub href: String,
}

#[derive(Template)]
#[template(path = "desk/watch/list.html")]
pub struct ListPage {
    c: Chrome,
    here: String,
    rows: Vec<SessionLine>,
    live: Vec<LiveLine>,
    /// (id, name, chosen)
    athletes: Vec<(Id, String, bool)>,
    prev_href: Option<String>,
    next_href: Option<String>,
    may_import: bool,
    import_action: String,
    live_href: String,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
pub struct ListQuery {
    athlete: Option<String>,
    offset: Option<i64>,
}

fn tone(s: &SessionView) -> &'static str {
    match s.status.as_str() {
        "ready" => "ok",
        "failed" => "bad",
        "live" => "warn",
        _ => "",
    }
}

fn rides_of(s: &SessionView) -> Option<i64> {
    s.summary.as_ref()?.get("rides")?.as_i64()
}

fn line(desk: &Desk, s: &SessionView) -> SessionLine {
    SessionLine {
        href: desk.path(&format!("/watch/{}", s.id)),
        athlete: s
            .athlete_name
            .clone()
            .unwrap_or_else(|| desk.cat.t("watch.no_athlete").to_string()),
        started: desk.time(s.started_at),
        iso: s.started_at.0.to_rfc3339(),
        device: s.device.clone().unwrap_or_default(),
        status: desk
            .cat
            .t(&format!("watch.status.{}", s.status.as_str()))
            .to_string(),
        tone: tone(s),
        rides: rides_of(s),
    }
}

async fn live_lines(state: &AppState, desk: &Desk) -> Result<Vec<LiveLine>, Error> {
    let rows = people::who_is_surfing(&state.db, &desk.acting(), LIVE_SHOWN, 0).await?;
    Ok(rows
        .into_iter()
        .map(|w| LiveLine {
            athlete: w
                .athlete_name
                .unwrap_or_else(|| desk.cat.t("watch.no_athlete").to_string()),
            since: desk.time(w.started_at),
            href: desk.path(&format!("/watch/{}", w.session_id)),
        })
        .collect())
}

async fn list_page(
    state: &AppState,
    desk: &Desk,
    q: &ListQuery,
    notice: Option<Notice>,
) -> Result<ListPage, Error> {
    let athlete = q
        .athlete
        .as_deref()
        .and_then(opt)
        .and_then(|a| a.parse().ok());
    let offset = q.offset.unwrap_or(0).max(0);
    let mut rows = sessions::list(&state.db, &desk.acting(), athlete, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE);
    let base = match athlete {
        Some(a) => desk.path(&format!("/watch?athlete={a}&")),
        None => desk.path("/watch?"),
    };
    let at = |o: i64| format!("{base}offset={o}");
    let mut athletes: Vec<(Id, String, bool)> = athlete_names(state, desk)
        .await?
        .into_iter()
        .map(|(id, name)| (id, name, Some(id) == athlete))
        .collect();
    athletes.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(ListPage {
        c: Chrome::new(desk, desk.cat.t("watch.title")),
        here: desk.path("/watch"),
        rows: rows.iter().map(|s| line(desk, s)).collect(),
        live: live_lines(state, desk).await?,
        athletes,
        prev_href: pager.prev.map(at),
        next_href: pager.next.map(at),
        may_import: desk.ws.can(Perm::WearableManage),
        import_action: desk.path("/watch/import"),
        live_href: desk.path("/watch/live"),
        notice,
    })
}

pub async fn list(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<ListQuery>,
) -> Response {
    match list_page(&state, &desk, &q, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

// ---- who is surfing (the capture screen) ----

#[derive(Template)]
#[template(path = "desk/watch/live.html")]
pub struct LivePage {
    c: Chrome,
    here: String,
    live: Vec<LiveLine>,
}

/// Who is in the water now, large, refreshed every few seconds: the screen beside the camera.
pub async fn live(State(state): State<AppState>, desk: Desk) -> Response {
    match live_lines(&state, &desk).await {
        Ok(live) => page(
            StatusCode::OK,
            &LivePage {
                c: Chrome::new(&desk, desk.cat.t("watch.live_title")),
                here: desk.path("/watch/live"),
                live,
            },
        ),
        Err(e) => desk.error(&e),
    }
}

// ---- import ----

/// A GPX or FIT file chosen or dropped on the list page, for the athlete picked there: stored
/// and read as `POST /api/wearable/import` does; then the new session's page.
pub async fn import(State(state): State<AppState>, desk: Desk, up: DeskFile) -> Response {
    let athlete = up
        .field("athleteId")
        .and_then(opt)
        .and_then(|a| a.parse::<Id>().ok());
    let done = async {
        let Some(athlete) = athlete else {
            return Err(Error::field(
                "athleteId",
                "required",
                "choose the athlete who wore the watch",
            ));
        };
        let Some(file) = up.file else {
            return Err(Error::field(
                "file",
                "required",
                "choose or drop a GPX or FIT file",
            ));
        };
        let w = {
            let mut c = state.db.acquire().await?;
            access::wearer(&mut c, desk.acting().actor, Some(athlete)).await?
        };
        // Another workspace's athlete is not one of this desk's.
        if w.org_id != desk.org() {
            return Err(Error::not_found("athlete"));
        }
        let meta = ImportMeta {
            client_session_id: None,
            training_session_id: None,
            device: None,
        };
        crate::areas::wearable::import_file(&state, &w, meta, &HeaderMap::new(), file.body)
            .await
            .map_err(|e| FilePart::refused_at("file", e))
    }
    .await;
    match done {
        Ok(u) => desk.done(&format!("/watch/{}", u.session.id), "watch.imported"),
        Err(e) if e.kind.is_server_error() => desk.error(&e),
        Err(e) => {
            let q = ListQuery::default();
            match list_page(&state, &desk, &q, Some(Notice::of(&e))).await {
                Ok(p) => super::page_at(&desk, status_of(&e), &p, "/watch"),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}

// ---- a session ----

pub struct RideLine {
    pub n: i64,
    pub start: String,
    pub iso: String,
    pub duration: String,
    pub distance: String,
    pub top: String,
    pub mean: String,
    pub direction: String,
    /// The ride's bounds as label form values (clock time, seconds).
    pub from: String,
    pub to: String,
}

pub struct LabelLine {
    pub id: Id,
    pub from: String,
    pub to: String,
    pub seconds: String,
    pub note: String,
}

pub struct SyncLine {
    pub clip: String,
    pub href: String,
    pub method: String,
    pub confidence: String,
    pub offset: String,
}

pub struct Score {
    pub precision: String,
    pub recall: String,
    pub f1: String,
    pub labels: u64,
    pub detected: u64,
}

#[derive(Template)]
#[template(path = "desk/watch/show.html")]
pub struct ShowPage {
    c: Chrome,
    base: String,
    s: SessionView,
    status: String,
    tone: &'static str,
    busy: bool,
    map: Option<plot::Map>,
    speed: Option<plot::TimeChart>,
    heart: Option<plot::TimeChart>,
    rides: Vec<RideLine>,
    summary: Vec<(String, String)>,
    labels: Vec<LabelLine>,
    /// The session's "no rides" mark, when a coach has set one.
    no_rides: Option<Id>,
    /// Rides may be labelled: the viewer manages sessions and the session is not marked.
    may_label: bool,
    score: Option<Score>,
    syncs: Vec<SyncLine>,
    clip_choices: Vec<(Id, String)>,
    may_manage: bool,
    may_align: bool,
    label_from: String,
    label_to: String,
    label_note: String,
    notice: Option<Notice>,
}

/// A form's label bounds, kept when it is shown again with an error.
#[derive(Deserialize, Default)]
pub struct LabelForm {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    note: String,
}

fn num(v: f64, digits: usize) -> String {
    format!("{v:.digits$}")
}

impl Desk {
    /// An instant as the clock time of a `time` input with seconds, in the viewer's zone.
    fn clock(&self, ms: i64) -> String {
        sessions::ts_ms(ms)
            .0
            .with_timezone(&self.tz)
            .format("%H:%M:%S")
            .to_string()
    }
}

fn summary_rows(desk: &Desk, s: &SessionView) -> Vec<(String, String)> {
    let Some(sum) = s.summary.as_ref().and_then(|v| v.get("activity")) else {
        return Vec::new();
    };
    let minutes = |k: &str| {
        sum.get(k)
            .and_then(serde_json::Value::as_f64)
            .map(|v| desk.cat.fill("watch.minutes", &[("n", &num(v / 60.0, 1))]))
    };
    [
        ("watch.riding", minutes("ridingS")),
        ("watch.paddling", minutes("paddlingS")),
        ("watch.sitting", minutes("sittingS")),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((desk.cat.t(k).to_string(), v?)))
    .collect()
}

async fn show_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    form: LabelForm,
    notice: Option<Notice>,
) -> Result<ShowPage, Error> {
    let acting = desk.acting();
    let SessionDetail {
        session: s, rides, ..
    } = sessions::get(&state.db, &acting, id).await?;
    let samples = {
        let mut c = state.db.acquire().await?;
        sessions::load_streams(&mut c, id, &[Stream::Gps, Stream::Hr]).await?
    };
    let windows: Vec<plot::Window> = rides
        .iter()
        .map(|r| plot::Window {
            n: r.index + 1,
            start_ms: r.start.unix_millis(),
            end_ms: r.end.unix_millis(),
        })
        .collect();
    let span = samples.span();
    let (map, speed, heart) = match span {
        Some(span) if !samples.gps.is_empty() => (
            plot::map(&samples.gps, &windows),
            Some(plot::speed_chart(&samples.gps, span, &windows)),
            plot::heart_chart(&samples.hr, span, &windows),
        ),
        Some(span) => (None, None, plot::heart_chart(&samples.hr, span, &windows)),
        None => (None, None, None),
    };
    let kmh = |v: f64| desk.cat.fill("foot.kmh", &[("n", &num(v, 1))]);
    let ride_lines = rides
        .iter()
        .map(|r| RideLine {
            n: r.index + 1,
            start: desk.clock(r.start.unix_millis()),
            iso: r.start.0.to_rfc3339(),
            duration: desk
                .cat
                .fill("watch.seconds", &[("n", &num(r.duration_s, 1))]),
            distance: desk
                .cat
                .fill("watch.metres", &[("n", &num(r.distance_m, 0))]),
            top: kmh(r.top_speed_kmh),
            mean: kmh(r.mean_speed_kmh),
            direction: r
                .direction
                .map(|d| desk.cat.t(&format!("watch.dir.{d}")).to_string())
                .unwrap_or_default(),
            from: desk.clock(r.start.unix_millis()),
            to: desk.clock(r.end.unix_millis()),
        })
        .collect();
    let label_rows = labels::list(&state.db, &acting, id, 200, 0).await?;
    let no_rides = label_rows.iter().find(|l| l.no_rides).map(|l| l.id);
    let labels: Vec<LabelLine> = label_rows
        .iter()
        .filter(|l| !l.no_rides)
        .map(|l| LabelLine {
            id: l.id,
            from: desk.clock(l.start.unix_millis()),
            to: desk.clock(l.end.unix_millis()),
            seconds: num(
                (l.end.unix_millis() - l.start.unix_millis()) as f64 / 1000.0,
                1,
            ),
            note: l.note.clone().unwrap_or_default(),
        })
        .collect();
    let score = if label_rows.is_empty() {
        None
    } else {
        let r = labels::accuracy(&state.db, &acting, Some(id), 1, 0).await?;
        let pct = |v: f64| format!("{:.0} %", v * 100.0);
        Some(Score {
            precision: pct(r.overall.precision),
            // Of no true ride, no share was found.
            recall: if r.overall.labels == 0 {
                "–".to_string()
            } else {
                pct(r.overall.recall)
            },
            f1: pct(r.overall.f1),
            labels: r.overall.labels,
            detected: r.overall.detected,
        })
    };
    let footage = desk.may(Module::Footage, Perm::FootageRead);
    let sync_rows = sync::list(&state.db, &acting, None, Some(id), 100, 0).await?;
    let clip_names: HashMap<Id, String> = if footage {
        let mine = clips::Filter {
            athlete: s.athlete_id,
            newest_first: true,
            ..Default::default()
        };
        clips::list(&state.db, &acting, mine, CLIPS_OFFERED, 0)
            .await?
            .into_iter()
            .map(|k| (k.id, k.file_name))
            .collect()
    } else {
        HashMap::new()
    };
    let syncs = sync_rows
        .iter()
        .map(|y| SyncLine {
            clip: clip_names
                .get(&y.clip_id)
                .cloned()
                .unwrap_or_else(|| y.clip_id.to_string()),
            href: desk.path(&format!("/clips/{}", y.clip_id)),
            method: desk
                .cat
                .t(&format!("watch.method.{}", y.method.as_str()))
                .to_string(),
            confidence: format!("{:.0} %", y.confidence * 100.0),
            offset: desk.cat.fill(
                "watch.seconds",
                &[("n", &num(y.offset_ms as f64 / 1000.0, 1))],
            ),
        })
        .collect();
    let mut clip_choices: Vec<(Id, String)> = clip_names.into_iter().collect();
    clip_choices.sort_by(|a, b| a.1.cmp(&b.1));
    let athlete = s
        .athlete_name
        .clone()
        .unwrap_or_else(|| desk.cat.t("watch.no_athlete").to_string());
    let title = desk.cat.fill(
        "watch.session_title",
        &[("athlete", &athlete), ("when", &desk.time(s.started_at))],
    );
    let may_manage = desk.ws.can(Perm::WearableManage);
    Ok(ShowPage {
        c: Chrome::new(desk, &title),
        base: desk.path(&format!("/watch/{id}")),
        status: desk
            .cat
            .t(&format!("watch.status.{}", s.status.as_str()))
            .to_string(),
        tone: tone(&s),
        busy: matches!(s.status.as_str(), "processing" | "live" | "awaiting_upload"),
        summary: summary_rows(desk, &s),
        s,
        map,
        speed,
        heart,
        rides: ride_lines,
        labels,
        may_label: may_manage && no_rides.is_none(),
        no_rides,
        score,
        syncs,
        may_align: may_manage && footage && !clip_choices.is_empty(),
        clip_choices,
        may_manage,
        label_from: form.from,
        label_to: form.to,
        label_note: form.note,
        notice,
    })
}

#[derive(Deserialize)]
pub struct SessionPath {
    id: Id,
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
) -> Response {
    match show_page(&state, &desk, id, LabelForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The session's page again with a refused action's error (and the label form as sent).
async fn reshow(state: &AppState, desk: &Desk, id: Id, form: LabelForm, e: Error) -> Response {
    if e.kind.is_server_error() || e.kind == shared::ErrorKind::NotFound {
        return desk.error(&e);
    }
    match show_page(state, desk, id, form, Some(Notice::of(&e))).await {
        Ok(p) => super::page_at(desk, status_of(&e), &p, &format!("/watch/{id}")),
        Err(e2) => desk.error(&e2),
    }
}

/// A clock time typed on the page as the instant it names within the session: the session's
/// first local day, or the next when that time comes before the session's start (a session
/// over midnight).
fn instant_of(desk: &Desk, s: &SessionView, field: &str, text: &str) -> Result<String, Error> {
    let t = NaiveTime::parse_from_str(text.trim(), "%H:%M:%S")
        .or_else(|_| NaiveTime::parse_from_str(text.trim(), "%H:%M"))
        .map_err(|_| Error::field(field, "invalid", "a time of day, like 07:12:03"))?;
    let start = s.started_at.0.with_timezone(&desk.tz);
    let mut day = start.date_naive();
    if t < start.time().with_nanosecond(0).unwrap_or(start.time()) {
        day = day.succ_opt().unwrap_or(day);
    }
    Ok(desk.local(day.and_time(t)).0.to_rfc3339())
}

async fn add_label_of(state: &AppState, desk: &Desk, id: Id, f: &LabelForm) -> Result<(), Error> {
    let s = sessions::get(&state.db, &desk.acting(), id).await?.session;
    let (from, to) = (
        instant_of(desk, &s, "from", &f.from),
        instant_of(desk, &s, "to", &f.to),
    );
    let (from, to) = match (from, to) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let req = NewLabel {
        session_id: id,
        start: Some(from),
        end: Some(to),
        no_rides: false,
        note: opt(&f.note).map(str::to_string),
    };
    labels::create(&state.db, &desk.acting(), req)
        .await
        .map(|_| ())
        .map_err(|mut e| {
            super::rename_field(&mut e, "start", "from");
            super::rename_field(&mut e, "end", "to");
            e
        })
}

/// `POST …/labels`: a true ride, typed or dragged on the speed chart (as POST
/// `/api/wearable/labels`).
pub async fn add_label(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
    DeskForm(f): DeskForm<LabelForm>,
) -> Response {
    match add_label_of(&state, &desk, id, &f).await {
        Ok(()) => desk.done(&format!("/watch/{id}#labels"), "watch.labelled"),
        Err(e) => reshow(&state, &desk, id, f, e).await,
    }
}

/// `POST …/labels/no-rides`: the session was watched and holds no ride (as POST
/// `/api/wearable/labels` with `noRides`).
pub async fn mark_no_rides(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let req = NewLabel {
        session_id: id,
        start: None,
        end: None,
        no_rides: true,
        note: None,
    };
    match labels::create(&state.db, &desk.acting(), req).await {
        Ok(_) => desk.done(&format!("/watch/{id}#labels"), "watch.no_rides_marked"),
        Err(e) => reshow(&state, &desk, id, LabelForm::default(), e).await,
    }
}

#[derive(Deserialize)]
pub struct LabelPath {
    id: Id,
    other: Id,
}

/// `POST …/labels/{label}/delete` (as DELETE `/api/wearable/labels`); a label of another
/// session is a 404.
pub async fn delete_label(
    State(state): State<AppState>,
    desk: Desk,
    Path(LabelPath { id, other }): Path<LabelPath>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let acting = desk.acting();
    let done = async {
        let mine = labels::list(&state.db, &acting, id, 200, 0).await?;
        let Some(label) = mine.iter().find(|l| l.id == other) else {
            return Err(Error::not_found("label"));
        };
        labels::delete(&state.db, &acting, other).await?;
        Ok(label.no_rides)
    }
    .await;
    match done {
        Ok(true) => desk.done(&format!("/watch/{id}#labels"), "watch.no_rides_removed"),
        Ok(false) => desk.done(&format!("/watch/{id}#labels"), "watch.label_deleted"),
        Err(e) => reshow(&state, &desk, id, LabelForm::default(), e).await,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlignForm {
    #[serde(default)]
    clip_id: String,
    #[serde(default)]
    method: String,
}

/// `POST …/sync`: which clip shows which ride (as POST `/api/wearable/sync`).
pub async fn align(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
    DeskForm(f): DeskForm<AlignForm>,
) -> Response {
    let done = async {
        let clip = f
            .clip_id
            .trim()
            .parse()
            .map_err(|_| Error::field("clipId", "required", "choose a clip"))?;
        let req = SyncRequest {
            clip_id: clip,
            session_id: id,
            method: opt(&f.method).map(str::to_string),
            camera_offset_ms: None,
            camera_rtt_ms: None,
            watch_offset_ms: None,
            watch_rtt_ms: None,
        };
        sync::align(&state.db, &desk.acting(), req).await
    }
    .await;
    match done {
        Ok(_) => desk.done(&format!("/watch/{id}#clips"), "watch.aligned"),
        Err(e) => reshow(&state, &desk, id, LabelForm::default(), e).await,
    }
}

/// `POST …/rederive`: the detector run again (the job's page, then back).
pub async fn rederive(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match sessions::rederive(&state.db, &desk.acting(), id).await {
        Ok(job) => job_page(&desk, job, &format!("/watch/{id}")),
        Err(e) => reshow(&state, &desk, id, LabelForm::default(), e).await,
    }
}

/// `GET …/gpx`: the session as GPX, rides marked (as GET `/api/wearable/sessions/{id}/gpx`).
pub async fn export_gpx(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
) -> Response {
    match crate::areas::wearable::gpx_file(&state, &desk.acting(), id).await {
        Ok(r) => r,
        Err(e) => desk.error(&e),
    }
}

pub async fn delete_form(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
) -> Response {
    match sessions::get(&state.db, &desk.acting(), id).await {
        Ok(d) => {
            let who = d.session.athlete_name.clone().unwrap_or_default();
            let title = desk.cat.fill(
                "watch.delete_title",
                &[
                    ("athlete", &who),
                    ("when", &desk.time(d.session.started_at)),
                ],
            );
            let message = desk.cat.t("watch.delete_confirm");
            let at = format!("/watch/{id}");
            delete_page(&desk, &title, message, "watch.delete", &at)
        }
        Err(e) => desk.error(&e),
    }
}

pub async fn delete(
    State(state): State<AppState>,
    desk: Desk,
    Path(SessionPath { id }): Path<SessionPath>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match sessions::delete(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done("/watch", "watch.deleted"),
        Err(e) => desk.error(&e),
    }
}
