//! A clip's page: the player on the clip's signed stream URL (`areas::footage::stream_url`, the
//! JSON route's), its ride windows and maneuvers on a timeline under it (links to `?t=` that
//! start the player there without script; `clip.mjs` seeks in place and highlights the window
//! playing), the analysis's state polled while it runs (analyze, cancel, store: the operations
//! of `POST /api/clips/analyze`, `/cancel`, `/store`), label correction (the maneuver labels of
//! `/api/clips/{id}/maneuvers`, which feed the training set), the clip's stats and probe, and
//! its web video (`clip_media`: poster, rendition state, scrub strip).

use super::clip_media::{Strip, WebMedia, shown};
use super::footage::{busy, duration, job_page, status_text, tone};
use super::{Chrome, Desk, DeskForm, Empty, opt, status_of};
use crate::areas::footage::stream_url;
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::Value;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::footage::clips::VideoVariant;
use shared::domain::footage::{ClipStatus, Verdict, clips, labels, media};
use shared::repo::footage::{Clip, Label};

/// The timeline's width in SVG units.
const SCALE: f64 = 1000.0;

/// A stretch of the clip on the timeline: a ride window or a maneuver's instant.
pub struct Mark {
    pub label: String,
    pub time: String,
    /// Seconds, for the player (`?t=`, `data-start`, `data-end`).
    pub start: String,
    pub end: String,
    pub href: String,
    /// Position and width on the timeline (SVG units of [`SCALE`]).
    pub x: String,
    pub w: String,
}

/// A predicted maneuver with the coaches' verdict on it.
pub struct Maneuver {
    pub index: i64,
    pub mark: Mark,
    pub kind: String,
    pub confidence: Option<String>,
    /// The verdict's value (the form's selection) and its words.
    pub verdict: Option<(&'static str, &'static str)>,
    pub corrected: Option<String>,
}

pub struct Analysis {
    pub status: &'static str,
    pub tone: &'static str,
    pub progress: Option<i64>,
    pub why: Option<String>,
    pub busy: bool,
    pub can_analyze: bool,
    pub can_cancel: bool,
    pub can_store: bool,
}

#[derive(Template)]
#[template(path = "desk/footage/clip.html")]
pub struct ClipPage {
    c: Chrome,
    base: String,
    /// The timeline's length (ms), for the playhead.
    total_ms: i64,
    session_href: String,
    video: Option<String>,
    /// The original's URL while the player plays the rendition (or waits for it).
    original: Option<String>,
    poster: Option<String>,
    frame: Option<(i64, i64)>,
    web: Option<WebMedia>,
    strip: Option<Strip>,
    /// Something on the page is still moving (the analysis or the web video): it polls.
    live: bool,
    analysis: Analysis,
    rides: Vec<Mark>,
    maneuvers: Vec<Maneuver>,
    stats: Lines,
    probe: Lines,
    verdicts: Vec<(&'static str, &'static str)>,
    can_upload: bool,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
pub struct ClipQuery {
    /// Start the player here (seconds): the timeline's links without script.
    t: Option<f64>,
}

fn secs(ms: i64) -> String {
    format!("{:.1}", ms.max(0) as f64 / 1000.0)
}

fn mark(base: &str, label: String, start_ms: i64, end_ms: i64, total_ms: f64) -> Mark {
    let x = (start_ms as f64 / total_ms * SCALE).clamp(0.0, SCALE);
    let w = ((end_ms - start_ms) as f64 / total_ms * SCALE).clamp(4.0, SCALE - x);
    Mark {
        label,
        time: if end_ms > start_ms {
            format!("{}–{}", duration(start_ms), duration(end_ms))
        } else {
            duration(start_ms)
        },
        start: secs(start_ms),
        end: secs(end_ms),
        href: format!("{base}?t={}#player", secs(start_ms)),
        x: format!("{x:.1}"),
        w: format!("{w:.1}"),
    }
}

fn int(v: &Value, k: &str) -> Option<i64> {
    v.get(k).and_then(Value::as_i64)
}

/// The windows and maneuvers of the clip's analysis, placed on its timeline.
fn timeline(desk: &Desk, base: &str, k: &Clip, rows: &[Label]) -> (i64, Vec<Mark>, Vec<Maneuver>) {
    let stats = k.stats.as_ref().map(|s| &s.0);
    let rides: Vec<(i64, i64)> = stats
        .and_then(|s| s.get("rides"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|r| Some((int(r, "start_ms")?, int(r, "end_ms")?)))
                .collect()
        })
        .unwrap_or_default();
    let preds = labels::predictions(k);
    let total = k
        .duration_ms()
        .into_iter()
        .chain(rides.iter().map(|r| r.1))
        .chain(preds.iter().map(|p| p.at_ms))
        .max()
        .unwrap_or(1)
        .max(1);
    let total_ms = total;
    let total = total as f64;
    let rides = rides
        .iter()
        .enumerate()
        .map(|(i, (s, e))| {
            let label = desk.cat.fill("clip.ride", &[("n", &(i + 1).to_string())]);
            mark(base, label, *s, *e, total)
        })
        .collect();
    let maneuvers = preds
        .into_iter()
        .map(|p| {
            let l = rows.iter().find(|l| l.prediction_index == Some(p.index));
            let kind = p.kind.replace('_', " ");
            // Highlighted for the window a label gets by default, listed at its instant.
            let half = labels::DEFAULT_HALF_WINDOW_MS;
            let mut m = mark(
                base,
                kind.clone(),
                (p.at_ms - half).max(0),
                p.at_ms + half,
                total,
            );
            m.time = duration(p.at_ms);
            Maneuver {
                index: p.index,
                mark: m,
                kind,
                confidence: p.confidence.map(|c| format!("{:.0}%", c * 100.0)),
                verdict: l.map(|l| {
                    let v = l.verdict.as_str();
                    (v, desk.cat.t(&format!("clip.verdict.{v}")))
                }),
                corrected: l.and_then(|l| l.corrected_type.clone()),
            }
        })
        .collect();
    (total_ms, rides, maneuvers)
}

/// The analysis's numbers (`wave_count`, speeds, length) and the probe's, in words.
/// Lines of a `<dl>`: a catalogue key and its value.
type Lines = Vec<(&'static str, String)>;

fn numbers(k: &Clip) -> (Lines, Lines) {
    let mut stats = vec![];
    if let Some(s) = k.stats.as_ref().map(|s| &s.0) {
        if let Some(n) = int(s, "wave_count") {
            stats.push(("clip.waves", n.to_string()));
        }
        for (key, label) in [
            ("top_speed_kmh", "clip.top_speed"),
            ("avg_speed_kmh", "clip.avg_speed"),
        ] {
            if let Some(v) = s.get(key).and_then(Value::as_f64) {
                stats.push((label, format!("{v:.1} km/h")));
            }
        }
    }
    let mut probe = vec![];
    if let Some(p) = k.probe.as_ref().map(|p| &p.0) {
        if let Some(ms) = int(p, "durationMs") {
            probe.push(("clip.duration", duration(ms)));
        }
        if let (Some(w), Some(h)) = (int(p, "width"), int(p, "height")) {
            probe.push(("clip.resolution", format!("{w}×{h}")));
        }
        if let Some(c) = p.get("codec").and_then(Value::as_str) {
            probe.push(("clip.codec", c.to_string()));
        }
        if let Some(f) = p.get("fps").and_then(Value::as_f64) {
            probe.push(("clip.fps", format!("{f}")));
        }
        if let Some(r) = int(p, "rotation") {
            probe.push(("clip.rotation", format!("{r}°")));
        }
    }
    if let Some(b) = k.size_bytes {
        probe.push(("clip.size", format!("{:.1} MB", b as f64 / 1_000_000.0)));
    }
    (stats, probe)
}

async fn clip_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    t: Option<f64>,
    notice: Option<Notice>,
) -> Result<ClipPage, Error> {
    let acting = desk.acting();
    let k = clips::get(&state.db, &acting, id).await?;
    let (_, rows) = labels::list(&state.db, &acting, id).await?;
    let base = desk.path(&format!("/clips/{id}"));
    let has_file = k.raw_key.is_some() || k.video_key.is_some() || k.source_url.is_some();
    let user = desk.who.caller.user.id;
    let (video, original) = if has_file {
        // The rendition once ready (the default), else what there is.
        let v = stream_url(state, user, &acting, id, None).await?;
        let original = match v.variant {
            VideoVariant::Original => None,
            _ => Some(
                stream_url(state, user, &acting, id, Some(VideoVariant::Original))
                    .await?
                    .url,
            ),
        };
        let at = t.filter(|t| t.is_finite() && *t > 0.0);
        (
            Some(match at {
                Some(t) => format!("{}#t={t:.1}", v.url),
                None => v.url,
            }),
            original,
        )
    } else {
        (None, None)
    };
    let shown = shown(state, desk, id, &base).await?;
    let can_upload = desk.ws.can(Perm::FootageUpload);
    let s = k.status;
    let analysis = Analysis {
        status: status_text(desk, s),
        tone: tone(s),
        progress: s.in_flight().then_some(k.progress),
        why: k.status_message.clone(),
        busy: busy(s),
        can_analyze: can_upload
            && has_file
            && matches!(
                s,
                ClipStatus::Uploaded
                    | ClipStatus::Probed
                    | ClipStatus::Failed
                    | ClipStatus::Cancelled
            ),
        can_cancel: can_upload && s.in_flight(),
        can_store: can_upload && s == ClipStatus::Processed,
    };
    let (total_ms, rides, maneuvers) = timeline(desk, &base, &k, &rows);
    let live = analysis.busy || shown.media.as_ref().is_some_and(|m| m.busy);
    let (stats, probe) = numbers(&k);
    let verdicts = ["confirmed", "corrected", "rejected"]
        .into_iter()
        .map(|v| (v, desk.cat.t(&format!("clip.verdict.{v}"))))
        .collect();
    Ok(ClipPage {
        c: Chrome::new(desk, k.file_name.clone()),
        session_href: desk.path(&format!("/footage/{}", k.session_id)),
        base,
        total_ms,
        video,
        original,
        poster: shown.poster,
        frame: shown.frame,
        web: shown.media,
        strip: shown.strip,
        live,
        analysis,
        rides,
        maneuvers,
        stats,
        probe,
        verdicts,
        can_upload,
        notice,
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(q): Query<ClipQuery>,
) -> Response {
    match clip_page(&state, &desk, id, q.t, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The clip's page again with a refused action's error, at the error's status.
async fn reshow(state: &AppState, desk: &Desk, id: Id, e: Error) -> Response {
    let code = status_of(&e);
    match clip_page(state, desk, id, None, Some(Notice::of(&e))).await {
        Ok(p) => super::page_at(desk, code, &p, &format!("/clips/{id}")),
        Err(e2) => desk.error(&e2),
    }
}

pub async fn analyze(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match clips::analyze(&state.db, &desk.acting(), id).await {
        Ok(_) => desk.done(&format!("/clips/{id}"), "footage.analyzing"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

pub async fn cancel(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match clips::cancel(&state.db, &desk.acting(), id).await {
        Ok(_) => desk.done(&format!("/clips/{id}"), "footage.cancelled"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

/// Copies the processed clip into our stores: the job's progress page, then back here.
pub async fn store(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match clips::store(&state.db, &desk.acting(), id).await {
        Ok(q) => job_page(&desk, q.id, &format!("/clips/{id}")),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

/// Makes the clip's web video again (after a failure): as `POST /api/clips/render`.
pub async fn render(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match media::render(&state.db, &desk.acting(), id).await {
        Ok(_) => desk.done(&format!("/clips/{id}"), "footage.rendering"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelForm {
    #[serde(default)]
    prediction: String,
    #[serde(default)]
    verdict: String,
    #[serde(default)]
    corrected_type: String,
}

/// A coach's verdict on a predicted maneuver: the first one labels it (as POST
/// `/api/clips/{id}/maneuvers`), a later one changes that label (as PATCH); only a correction
/// keeps a corrected type.
pub async fn label(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<LabelForm>,
) -> Response {
    let r = save_label(&state, &desk, id, &f).await;
    match r {
        Ok(()) => desk.done(&format!("/clips/{id}"), "footage.labelled"),
        Err(e) => reshow(&state, &desk, id, e).await,
    }
}

async fn save_label(state: &AppState, desk: &Desk, id: Id, f: &LabelForm) -> Result<(), Error> {
    let acting = desk.acting();
    let index: i64 =
        f.prediction.trim().parse().map_err(|_| {
            Error::field("predictionIndex", "invalid", "choose a predicted maneuver")
        })?;
    let corrected = (f.verdict == Verdict::Corrected.as_str())
        .then(|| opt(&f.corrected_type))
        .flatten();
    let (_, rows) = labels::list(&state.db, &acting, id).await?;
    match rows.iter().find(|l| l.prediction_index == Some(index)) {
        Some(l) => {
            let raw = labels::RawPatch {
                verdict: Some(&f.verdict),
                corrected_type: Some(corrected),
                ..Default::default()
            };
            labels::update(&state.db, &acting, id, l.id, &raw).await?;
        }
        None => {
            let raw = labels::RawLabel {
                prediction_index: Some(index),
                verdict: &f.verdict,
                corrected_type: corrected,
                ..Default::default()
            };
            labels::create(&state.db, &acting, id, &raw).await?;
        }
    }
    Ok(())
}
