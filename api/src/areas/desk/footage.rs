//! The footage pages of the desk: the workspace's footage sessions (newest first), a session's
//! clips as a grid of tiles with the session's numbers (each clip's status polled while any is
//! in flight or awaiting its file), storing and deleting a session, and the batch upload from
//! a spreadsheet manifest with its page of per-clip statuses (reopened later from any of its
//! sessions). Each calls the `shared::domain::footage` operation the JSON handlers call.

use super::upload::DeskUpload;
use super::{Chrome, Desk, DeskForm, Empty, Offset, Pager, status_of};
use crate::areas::pages::{Notice, encode, page, see_other};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::footage::{ClipStatus, batch, sessions};
use shared::repo::footage::Clip;
use std::collections::HashMap;

const PAGE: i64 = 25;

// ---- shared pieces: status words, durations, athlete names, tiles ----

/// The badge colour of a clip status (here, on the dashboard and on profiles).
pub fn tone(s: ClipStatus) -> &'static str {
    match s {
        ClipStatus::Failed => "bad",
        ClipStatus::Cancelled => "warn",
        ClipStatus::Processed | ClipStatus::Stored => "ok",
        _ => "",
    }
}

/// A clip status in words (`clip.status.<status>`).
pub fn status_text(desk: &Desk, s: ClipStatus) -> &'static str {
    desk.cat.t(&format!("clip.status.{}", s.as_str()))
}

/// Whether a clip's status will change without anyone asking (its file, its probe, its
/// analysis or the store that follows a finished analysis is on the way): the pages showing it
/// poll while one is.
pub fn busy(s: ClipStatus) -> bool {
    s.in_flight()
        || matches!(
            s,
            ClipStatus::AwaitingUpload | ClipStatus::Uploaded | ClipStatus::Processed
        )
}

/// Milliseconds as `m:ss`.
pub fn duration(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The clip's display name beside the file: its athlete's name when the member may read
/// athletes (as the training pages show the roster).
pub async fn athlete_names(state: &AppState, desk: &Desk) -> Result<HashMap<Id, String>, Error> {
    if !desk.ws.can(Perm::AthletesRead) {
        return Ok(HashMap::new());
    }
    let all = shared::domain::athletes::list(
        &desk.acting(),
        &state.db,
        &shared::repo::athletes::Filter::default(),
        500,
        0,
    )
    .await?;
    Ok(all
        .into_iter()
        .map(|a| (a.id, format!("{} {}", a.first_name, a.last_name)))
        .collect())
}

/// One clip's tile (`desk/footage/tile.html`, the one place its markup lives: a poster goes
/// there once the media pipeline makes them).
pub struct Tile {
    pub id: Id,
    pub href: String,
    pub file_name: String,
    pub athlete: Option<String>,
    pub duration: Option<String>,
    pub status: &'static str,
    pub tone: &'static str,
    /// The analysis's progress while it runs.
    pub progress: Option<i64>,
    pub busy: bool,
    /// The poster's signed URL once the render has made it.
    pub poster: Option<String>,
}

impl Tile {
    pub fn of(
        desk: &Desk,
        k: &Clip,
        names: &HashMap<Id, String>,
        posters: &HashMap<Id, String>,
    ) -> Tile {
        Tile {
            id: k.id,
            href: desk.path(&format!("/clips/{}", k.id)),
            file_name: k.file_name.clone(),
            athlete: k.athlete_id.and_then(|a| names.get(&a).cloned()),
            duration: k.duration_ms().map(duration),
            status: status_text(desk, k.status),
            tone: tone(k.status),
            progress: k.status.in_flight().then_some(k.progress),
            busy: busy(k.status),
            poster: posters.get(&k.id).cloned(),
        }
    }
}

/// The posters of a footage session's clips, signed for the viewer, by clip.
async fn posters(state: &AppState, desk: &Desk, session: Id) -> Result<HashMap<Id, String>, Error> {
    let media =
        shared::domain::footage::media::of_session(&state.db, &desk.acting(), session).await?;
    let user = desk.who.caller.user.id;
    Ok(media
        .into_iter()
        .filter_map(|(clip, m)| {
            let p = m.poster?;
            Some((
                clip,
                crate::areas::media::poster_view(state, user, clip, &p).url,
            ))
        })
        .collect())
}

// ---- the list ----

pub struct SessionLine {
    pub href: String,
    pub title: String,
    pub created: String,
    pub iso: String,
    pub stored: bool,
    pub counts: String,
    pub training_href: Option<String>,
}

#[derive(Template)]
#[template(path = "desk/footage/list.html")]
pub struct ListPage {
    c: Chrome,
    rows: Vec<SessionLine>,
    prev_href: Option<String>,
    next_href: Option<String>,
    batch_href: String,
    can_upload: bool,
}

pub async fn list(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let mut rows = match sessions::list(&state.db, &desk.acting(), None, PAGE + 1, offset).await {
        Ok(r) => r,
        Err(e) => return desk.error(&e),
    };
    let pager = Pager::cut(&mut rows, offset, PAGE);
    let base = desk.path("/footage");
    let at = |o: i64| format!("{base}?offset={o}");
    let training = desk.may(shared::authz::Module::Training, Perm::TrainingRead);
    let rows = rows
        .into_iter()
        .map(|s| SessionLine {
            href: desk.path(&format!("/footage/{}", s.session.id)),
            title: s.session.title,
            created: desk.time(s.session.created_at),
            iso: s.session.created_at.0.to_rfc3339(),
            stored: s.session.status.as_str() == "stored",
            counts: desk.cat.fill(
                "foot.counts",
                &[
                    ("clips", &s.clip_count.to_string()),
                    ("stored", &s.stored_count.to_string()),
                ],
            ),
            training_href: s
                .session
                .training_session_id
                .filter(|_| training)
                .map(|t| desk.path(&format!("/training/{t}"))),
        })
        .collect();
    page(
        StatusCode::OK,
        &ListPage {
            c: Chrome::new(&desk, desk.cat.t("foot.title")),
            rows,
            prev_href: pager.prev.map(at),
            next_href: pager.next.map(at),
            batch_href: desk.path("/footage/batch"),
            can_upload: desk.ws.can(Perm::FootageUpload),
        },
    )
}

// ---- a session ----

/// The session's numbers, from its clips' statuses, probes and analyses.
pub struct Stats {
    pub clips: usize,
    pub stored: usize,
    pub in_flight: usize,
    pub failed: usize,
    pub duration: String,
    pub waves: i64,
    pub top_speed: Option<String>,
}

fn stats(clips: &[Clip]) -> Stats {
    let n = |f: fn(ClipStatus) -> bool| clips.iter().filter(|k| f(k.status)).count();
    let stat = |k: &Clip, name: &str| k.stats.as_ref().and_then(|s| s.0.get(name).cloned());
    let top = clips
        .iter()
        .filter_map(|k| stat(k, "top_speed_kmh").and_then(|v| v.as_f64()))
        .fold(None::<f64>, |m, v| Some(m.map_or(v, |m| m.max(v))));
    Stats {
        clips: clips.len(),
        stored: n(|s| s == ClipStatus::Stored),
        in_flight: n(ClipStatus::in_flight),
        failed: n(|s| s == ClipStatus::Failed),
        duration: duration(clips.iter().filter_map(Clip::duration_ms).sum()),
        waves: clips
            .iter()
            .filter_map(|k| stat(k, "wave_count").and_then(|v| v.as_i64()))
            .sum(),
        top_speed: top.map(|t| format!("{t:.1}")),
    }
}

#[derive(Template)]
#[template(path = "desk/footage/session.html")]
pub struct SessionPage {
    c: Chrome,
    base: String,
    /// The upload section's `sessionId` and `X-Workspace-Id` (tus requests name both).
    session_id: Id,
    ws_id: Id,
    created: String,
    iso: String,
    stored: bool,
    training_href: Option<String>,
    stats: Stats,
    tiles: Vec<Tile>,
    busy: bool,
    batches: Vec<String>,
    can_upload: bool,
    can_delete: bool,
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    let (s, clips) = match sessions::get(&state.db, &desk.acting(), id).await {
        Ok(r) => r,
        Err(e) => return desk.error(&e),
    };
    let names = match athlete_names(&state, &desk).await {
        Ok(n) => n,
        Err(e) => return desk.error(&e),
    };
    let mut batches: Vec<Id> = clips.iter().filter_map(|k| k.batch_id).collect();
    batches.sort();
    batches.dedup();
    let posters = match posters(&state, &desk, id).await {
        Ok(p) => p,
        Err(e) => return desk.error(&e),
    };
    let tiles: Vec<Tile> = clips
        .iter()
        .map(|k| Tile::of(&desk, k, &names, &posters))
        .collect();
    let training = desk.may(shared::authz::Module::Training, Perm::TrainingRead);
    page(
        StatusCode::OK,
        &SessionPage {
            c: Chrome::new(&desk, s.title.clone()),
            base: desk.path(&format!("/footage/{id}")),
            session_id: id,
            ws_id: desk.org(),
            created: desk.time(s.created_at),
            iso: s.created_at.0.to_rfc3339(),
            stored: s.status.as_str() == "stored",
            training_href: s
                .training_session_id
                .filter(|_| training)
                .map(|t| desk.path(&format!("/training/{t}"))),
            stats: stats(&clips),
            busy: tiles.iter().any(|t| t.busy),
            tiles,
            batches: batches
                .into_iter()
                .map(|b| desk.path(&format!("/footage/batches/{b}")))
                .collect(),
            can_upload: desk.ws.can(Perm::FootageUpload),
            can_delete: desk.ws.can(Perm::FootageDelete),
        },
    )
}

/// Stores every processed clip of the session: the job's progress page, then back here.
pub async fn store(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match sessions::store(&state.db, &desk.acting(), id).await {
        Ok(q) => job_page(&desk, q.id, &format!("/footage/{id}")),
        Err(e) => desk.error(&e),
    }
}

/// A 303 to job `job`'s progress page, its Continue leading to `back` of this desk.
pub fn job_page(desk: &Desk, job: Id, back: &str) -> Response {
    let to = format!(
        "{}?back={}",
        desk.path(&format!("/jobs/{job}")),
        encode(&desk.path(back))
    );
    see_other(&to, HeaderMap::new())
}

pub async fn delete_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    match sessions::get(&state.db, &desk.acting(), id).await {
        Ok((s, clips)) => {
            let title = desk.cat.fill("foot.delete_title", &[("title", &s.title)]);
            let n = clips.len().to_string();
            let message = desk.cat.fill("foot.delete_confirm", &[("clips", &n)]);
            let at = format!("/footage/{id}");
            super::confirm::delete_page(&desk, &title, &message, "foot.delete", &at)
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
    match sessions::delete(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done("/footage", "deleted"),
        Err(e) => desk.error(&e),
    }
}

// ---- batch upload from a spreadsheet manifest ----

#[derive(Template)]
#[template(path = "desk/footage/batch_form.html")]
pub struct BatchForm {
    c: Chrome,
    action: String,
    notice: Option<Notice>,
    errors: Vec<LineError>,
}

fn batch_form(desk: &Desk, notice: Option<Notice>, errors: Vec<LineError>) -> BatchForm {
    BatchForm {
        c: Chrome::new(desk, desk.cat.t("foot.batch_title")),
        action: desk.path("/footage/batch"),
        notice,
        errors,
    }
}

pub async fn batch_new(desk: Desk) -> Response {
    page(StatusCode::OK, &batch_form(&desk, None, vec![]))
}

/// Prepares the manifest's sessions and clips (all or nothing), then the batch's page; a
/// manifest with errors comes back with each by line, nothing prepared.
pub async fn batch_upload(State(state): State<AppState>, desk: Desk, up: DeskUpload) -> Response {
    let name = up.file_name.trim();
    let name = if name.is_empty() || name.chars().count() > 255 {
        "manifest.csv"
    } else {
        name
    };
    let r = if up.bytes.iter().all(u8::is_ascii_whitespace) {
        Err(Error::field("file", "required", "choose a manifest file"))
    } else {
        batch::prepare(&state.db, &desk.acting(), &up.bytes, name, false).await
    };
    match r {
        Ok(p) => match p.batch {
            Some(b) => desk.done(
                &format!("/footage/batches/{}", b.id),
                if p.existing {
                    "footage.batch_existing"
                } else {
                    "footage.batch_ready"
                },
            ),
            None => desk.error(&Error::internal(anyhow::anyhow!(
                "a committed manifest without its batch"
            ))),
        },
        Err(e) => {
            let errors = e
                .details
                .clone()
                .and_then(|d| serde_json::from_value::<ReportErrors>(d).ok())
                .map(|r| r.errors)
                .unwrap_or_default();
            let code = status_of(&e);
            super::page_at(
                &desk,
                code,
                &batch_form(&desk, Some(Notice::of(&e)), errors),
                "/footage/batch",
            )
        }
    }
}

/// The errors of an `import_invalid` report (its `details`, a `shared::import::Report`).
#[derive(serde::Deserialize)]
struct ReportErrors {
    #[serde(default)]
    errors: Vec<LineError>,
}

/// One wrong cell of the manifest, by line.
#[derive(serde::Deserialize)]
pub struct LineError {
    pub line: u64,
    pub field: String,
    pub message: String,
}

pub struct BatchLine {
    pub line: u64,
    pub file: String,
    pub when: String,
    pub spot: String,
    pub session_href: String,
    pub title: String,
    pub clip: Option<Tile>,
}

#[derive(Template)]
#[template(path = "desk/footage/batch.html")]
pub struct BatchPage {
    c: Chrome,
    self_href: String,
    created: String,
    iso: String,
    rows: Vec<BatchLine>,
    waiting: usize,
    busy: bool,
}

/// A batch's manifest with each clip's status as it stands (the spec's resume read), polled
/// while a clip is still waiting for its file or its analysis.
pub async fn batch_show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    let (b, rows) = match batch::status(&state.db, &desk.acting(), id).await {
        Ok(r) => r,
        Err(e) => return desk.error(&e),
    };
    let names = match athlete_names(&state, &desk).await {
        Ok(n) => n,
        Err(e) => return desk.error(&e),
    };
    let rows: Vec<BatchLine> = rows
        .into_iter()
        .map(|(r, k)| BatchLine {
            line: r.line,
            file: r.file,
            when: format!("{} {}", r.date, r.start_time),
            spot: r.spot,
            session_href: desk.path(&format!("/footage/{}", r.session_id)),
            title: r.title,
            // A batch's clips are still arriving: no posters yet.
            clip: k
                .as_ref()
                .map(|k| Tile::of(&desk, k, &names, &HashMap::new())),
        })
        .collect();
    let waiting = rows
        .iter()
        .filter(|r| r.clip.as_ref().is_some_and(|t| t.busy))
        .count();
    page(
        StatusCode::OK,
        &BatchPage {
            c: Chrome::new(
                &desk,
                desk.cat.fill("foot.batch_of", &[("file", &b.file_name)]),
            ),
            self_href: desk.path(&format!("/footage/batches/{id}")),
            created: desk.time(b.created_at),
            iso: b.created_at.0.to_rfc3339(),
            busy: waiting > 0,
            waiting,
            rows,
        },
    )
}
