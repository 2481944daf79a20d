//! The coaching page of the desk (issue 38): generate feedback for a footage session's clips
//! (per clip or one batch; a job with its progress page), an athlete's progress across sessions
//! with its trends drawn as server-rendered SVG charts (axes, labels, a title and description,
//! and the numbers as a table beside them: readable without script and by a screen reader), the
//! newest feedback, and the exports (`GET /api/sessions/coaching/export`, HTML and JSON). Each
//! calls the `shared::domain::reviews::{coaching, progress}` operation of its JSON route.

use super::reviews::{SessionChoice, athlete_choices, id_field};
use super::{Chrome, Desk, DeskForm, Offset, Pager, opt, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::footage::sessions;
use shared::domain::reviews::coaching::{self, CoachingText, FeedbackKind};
use shared::domain::reviews::progress::{self, ProgressReport, SessionNumbers};
use shared::repo::coaching::{Feedback, Filter};
use shared::{Error, ErrorKind};

/// Feedback rows per page.
pub const PAGE_SIZE: i64 = 25;

pub struct FeedbackRow {
    pub href: String,
    pub kind: &'static str,
    pub version: i64,
    pub created: String,
}

fn kind_key(k: FeedbackKind) -> &'static str {
    match k {
        FeedbackKind::Clip => "coach.kind_clip",
        FeedbackKind::Batch => "coach.kind_batch",
        FeedbackKind::Progress => "coach.kind_progress",
    }
}

#[derive(Template)]
#[template(path = "desk/coaching/index.html")]
pub struct IndexPage {
    c: Chrome,
    may_manage: bool,
    generate_action: String,
    progress_action: String,
    sessions: Vec<SessionChoice>,
    athletes: Vec<(Id, String)>,
    rows: Vec<FeedbackRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

async fn index_page(
    state: &AppState,
    desk: &Desk,
    offset: i64,
    notice: Option<Notice>,
) -> Result<IndexPage, Error> {
    let ws = desk.acting();
    let f = Filter {
        latest: true,
        ..Filter::default()
    };
    let mut rows = coaching::list(&state.db, &ws, f, PAGE_SIZE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let may_manage = desk.ws.can(Perm::ReviewsManage);
    let sessions = sessions::list(&state.db, &ws, None, 50, 0)
        .await?
        .into_iter()
        .map(|s| SessionChoice {
            id: s.session.id,
            title: s.session.title,
        })
        .collect();
    let link = |o: i64| desk.path(&format!("/coaching?offset={o}"));
    Ok(IndexPage {
        c: Chrome::new(desk, desk.cat.t("coach.title")),
        may_manage,
        generate_action: desk.path("/coaching/generate"),
        progress_action: desk.path("/coaching/progress"),
        sessions,
        athletes: athlete_choices(state, desk).await?,
        rows: rows
            .into_iter()
            .map(|r| FeedbackRow {
                href: desk.path(&format!("/coaching/{}", r.id)),
                kind: kind_key(r.kind),
                version: r.version,
                created: desk.time(r.created_at),
            })
            .collect(),
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
    })
}

/// `GET /w/{ws}/coaching`: the forms and the newest feedback.
pub async fn index(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    match index_page(&state, &desk, offset, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// A refusal shown on the coaching page at the API's status (a 404 as a whole page).
async fn refused(state: &AppState, desk: &Desk, e: Error) -> Response {
    if e.kind.is_server_error() || e.kind == ErrorKind::NotFound {
        return desk.error(&e);
    }
    match index_page(state, desk, 0, Some(Notice::of(&e))).await {
        Ok(p) => page_at(desk, status_of(&e), &p, "/coaching"),
        Err(e2) => desk.error(&e2),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateForm {
    #[serde(default)]
    session_id: String,
    #[serde(default)]
    mode: String,
}

/// `POST /w/{ws}/coaching/generate` (as `POST /api/sessions/coaching`): the job's page, which
/// leads back here.
pub async fn generate(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<GenerateForm>,
) -> Response {
    let asked = async {
        let session = id_field(&f.session_id, "sessionId")?
            .ok_or_else(|| Error::field("sessionId", "required", "choose a footage session"))?;
        let raw = coaching::RawRequest {
            session_id: session,
            clip_ids: None,
            mode: opt(&f.mode),
        };
        coaching::request(&state.db, state.cfg.model.as_ref(), &desk.acting(), &raw).await
    }
    .await;
    match asked {
        Ok(job) => crate::areas::pages::see_other(
            &format!(
                "{}?back={}",
                desk.path(&format!("/jobs/{}", job.id)),
                desk.path("/coaching")
            ),
            axum::http::HeaderMap::new(),
        ),
        Err(e) => refused(&state, &desk, e).await,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressForm {
    #[serde(default)]
    athlete_id: String,
    #[serde(default)]
    last: String,
}

/// `POST /w/{ws}/coaching/progress` (as `POST /api/sessions/coaching/progress`): the stored
/// report's page.
pub async fn progress_report(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<ProgressForm>,
) -> Response {
    let asked = async {
        let athlete = id_field(&f.athlete_id, "athleteId")?
            .ok_or_else(|| Error::field("athleteId", "required", "choose an athlete"))?;
        let last = match opt(&f.last) {
            Some(n) => Some(n.parse::<i64>().map_err(|_| {
                Error::field("last", "invalid_format", "a number of sessions, 1 to 50")
            })?),
            None => None,
        };
        let raw = progress::RawProgress {
            athlete_id: athlete,
            last,
            ..Default::default()
        };
        progress::request(&state.db, state.cfg.model.as_ref(), &desk.acting(), &raw).await
    }
    .await;
    match asked {
        Ok((fb, _)) => desk.done(&format!("/coaching/{}", fb.id), "progress_ready"),
        Err(e) => refused(&state, &desk, e).await,
    }
}

// ---- one feedback ----

/// One point of a chart.
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub label: String,
}

/// A line chart of one number over the sessions, laid out for a 320 × 180 view box.
pub struct Chart {
    pub id: String,
    pub title: String,
    pub desc: String,
    pub points: Vec<Point>,
    /// The polyline's `points` attribute.
    pub line: String,
    pub y_max: String,
    pub y_min: String,
    pub x_labels: Vec<(f64, String)>,
}

const LEFT: f64 = 44.0;
const RIGHT: f64 = 310.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 150.0;

fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// The chart of `values` (one per session, `None` where the session lacks the number).
pub fn chart(id: &str, title: &str, desc: String, values: &[Option<f64>]) -> Chart {
    let known: Vec<f64> = values.iter().flatten().copied().collect();
    let (lo, hi) = match (
        known.iter().copied().reduce(f64::min),
        known.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) => (lo.min(0.0), if hi > lo.min(0.0) { hi } else { lo + 1.0 }),
        _ => (0.0, 1.0),
    };
    let n = values.len().max(1);
    let x_of = |i: usize| {
        if n == 1 {
            (LEFT + RIGHT) / 2.0
        } else {
            LEFT + (RIGHT - LEFT) * i as f64 / (n - 1) as f64
        }
    };
    let points: Vec<Point> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            v.map(|v| Point {
                x: x_of(i),
                y: BOTTOM - (BOTTOM - TOP) * (v - lo) / (hi - lo),
                label: num(v),
            })
        })
        .collect();
    let line = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ");
    Chart {
        id: id.to_string(),
        title: title.to_string(),
        desc,
        line,
        points,
        y_max: num(hi),
        y_min: num(lo),
        x_labels: (0..values.len())
            .map(|i| (x_of(i), (i + 1).to_string()))
            .collect(),
    }
}

pub struct SessionLine {
    pub n: usize,
    pub title: String,
    pub cells: Vec<String>,
}

#[derive(Template)]
#[template(path = "desk/coaching/show.html")]
pub struct ShowPage {
    c: Chrome,
    back: String,
    here: String,
    heading: String,
    version: i64,
    created: String,
    text: Option<CoachingText>,
    charts: Vec<Chart>,
    columns: Vec<&'static str>,
    sessions: Vec<SessionLine>,
    narrative: Option<String>,
    pending: bool,
    exports: Vec<(&'static str, String)>,
}

/// The numbers charted, with their catalogue keys.
fn series(s: &SessionNumbers) -> [Option<f64>; 5] {
    [
        Some(s.waves as f64),
        s.mean_ride_seconds,
        s.longest_ride_seconds,
        s.top_speed_kmh,
        Some(s.maneuver_count as f64),
    ]
}
const SERIES: [&str; 5] = [
    "coach.waves",
    "coach.mean_ride",
    "coach.longest_ride",
    "coach.top_speed",
    "coach.maneuvers",
];

fn show_page(desk: &Desk, fb: Feedback) -> ShowPage {
    let export = |scope: String| {
        vec![
            (
                "coach.export_html",
                format!("/api/sessions/coaching/export?{scope}&format=html"),
            ),
            (
                "coach.export_json",
                format!("/api/sessions/coaching/export?{scope}&format=json"),
            ),
        ]
    };
    let mut exports = Vec::new();
    if let Some(s) = fb.session_id {
        exports.extend(export(format!("sessionId={s}")));
    }
    if let Some(a) = fb.athlete_id {
        exports.extend(export(format!("athleteId={a}")));
    }
    let output = fb.output.as_ref().map(|o| o.0.clone());
    let report = output
        .clone()
        .filter(|_| fb.kind == FeedbackKind::Progress)
        .and_then(|o| serde_json::from_value::<ProgressReport>(o).ok());
    let text = output
        .filter(|_| fb.kind != FeedbackKind::Progress)
        .and_then(|o| serde_json::from_value::<CoachingText>(o).ok());
    let (charts, sessions, narrative, pending) = match &report {
        Some(r) => {
            let charts = SERIES
                .iter()
                .enumerate()
                .map(|(i, key)| {
                    let values: Vec<Option<f64>> =
                        r.sessions.iter().map(|s| series(s)[i]).collect();
                    let label = desk.cat.t(key);
                    let t = &r.trends;
                    let trend = [
                        &t.waves,
                        &t.mean_ride_seconds,
                        &t.longest_ride_seconds,
                        &t.top_speed_kmh,
                        &t.maneuver_count,
                    ][i];
                    let desc = desk.cat.fill(
                        "coach.chart_desc",
                        &[
                            ("what", label),
                            ("n", &trend.points.to_string()),
                            ("first", &trend.first.map(num).unwrap_or_else(|| "–".into())),
                            ("last", &trend.last.map(num).unwrap_or_else(|| "–".into())),
                        ],
                    );
                    chart(&format!("chart-{i}"), label, desc, &values)
                })
                .collect();
            let sessions = r
                .sessions
                .iter()
                .enumerate()
                .map(|(i, s)| SessionLine {
                    n: i + 1,
                    title: s.title.clone(),
                    cells: series(s)
                        .iter()
                        .map(|v| v.map(num).unwrap_or_else(|| "–".into()))
                        .collect(),
                })
                .collect();
            (
                charts,
                sessions,
                r.narrative.clone(),
                r.narrative_status == progress::NarrativeStatus::Pending,
            )
        }
        None => (Vec::new(), Vec::new(), None, false),
    };
    let kind = kind_key(fb.kind);
    ShowPage {
        c: Chrome::new(desk, desk.cat.t(kind)),
        back: desk.path("/coaching"),
        here: desk.path(&format!("/coaching/{}", fb.id)),
        heading: desk.cat.t(kind).to_string(),
        version: fb.version,
        created: desk.time(fb.created_at),
        text,
        charts,
        columns: SERIES.to_vec(),
        sessions,
        narrative,
        pending,
        exports,
    }
}

#[derive(Deserialize)]
pub struct FeedbackPath {
    id: Id,
}

/// `GET /w/{ws}/coaching/{id}`: one feedback version; a progress report with its charts.
pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(FeedbackPath { id }): Path<FeedbackPath>,
) -> Response {
    match coaching::get(&state.db, &desk.acting(), id).await {
        Ok(fb) => page(StatusCode::OK, &show_page(&desk, fb)),
        Err(e) => desk.error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_spans_its_box_from_zero_and_skips_missing_points() {
        let c = chart("c", "Waves", String::new(), &[Some(2.0), None, Some(4.0)]);
        assert_eq!(c.points.len(), 2);
        assert_eq!((c.points[0].x, c.points[1].x), (LEFT, RIGHT));
        assert_eq!(c.points[1].y, TOP, "the highest value at the top");
        assert_eq!(c.points[0].y, BOTTOM - (BOTTOM - TOP) / 2.0);
        assert_eq!((c.y_min.as_str(), c.y_max.as_str()), ("0", "4"));
        assert_eq!(c.x_labels.len(), 3);
        let flat = chart("c", "x", String::new(), &[Some(0.0)]);
        assert_eq!(flat.points[0].y, BOTTOM);
    }
}
