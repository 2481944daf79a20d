//! The review builder (`/w/{ws}/reviews/{id}`): one clip of the review's session in the player
//! (the signed stream URL of `footage::stream_url`, as the JSON route signs it), its keypoints
//! (suggested from the ride windows and maneuvers, or the coach's, added and edited at the
//! player's current time by `reviews.mjs`, typed without script), the voice notes (recorded in
//! the browser with MediaRecorder, or a chosen file, stored as `POST
//! /api/reviews/{id}/voice-notes` stores them), the build with each note's transcription live,
//! and publishing. Every change is the operation of `shared::domain::reviews` its JSON route
//! calls; a change the review's status refuses (a building or published review) is a 409 page.

use super::super::upload::{DeskFile, FilePart};
use super::super::{
    Chrome, Desk, DeskForm, Empty, on_this_origin, opt, page_at, rename_field, status_of,
};
use super::status_badge;
use crate::areas::footage::stream_url;
use crate::areas::pages::{Notice, page};
use crate::areas::reviews::voice_notes;
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::footage::sessions;
use shared::domain::reviews::status::{ReviewEvent, next};
use shared::domain::reviews::{
    KeypointOrigin, ReviewStatus, TranscriptStatus, keypoints, lifecycle, reading, replies,
};
use shared::repo::review_audio::VoiceNote;
use shared::{Error, ErrorKind};

/// Replies shown on the builder (the athlete's answers to a published review).
const REPLIES_SHOWN: i64 = 50;

/// `{ws}`, the review and, for a keypoint or note, its id (`{other}`).
#[derive(Deserialize)]
pub struct ReviewPath {
    id: Id,
}

#[derive(Deserialize)]
pub struct ItemPath {
    id: Id,
    other: Id,
}

#[derive(Deserialize, Default)]
pub struct ClipQuery {
    clip: Option<Id>,
}

/// Milliseconds as the page shows a time in a clip: `1:02.5`.
pub fn clock(ms: i64) -> String {
    let tenths = ms / 100;
    format!("{}:{:02}.{}", tenths / 600, (tenths / 10) % 60, tenths % 10)
}

/// Milliseconds as a time field's value, in seconds: `62.5`.
fn seconds(ms: i64) -> String {
    let s = format!("{:.1}", ms as f64 / 1000.0);
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A time field (seconds, `62.5`, or minutes and seconds, `1:02.5`) in milliseconds; `None`
/// when blank.
fn parse_time(field: &str, s: &str) -> Result<Option<i64>, Error> {
    let Some(s) = opt(s) else { return Ok(None) };
    let bad = || {
        Error::field(
            field,
            "invalid_format",
            "a time in the clip: seconds (62.5) or minutes and seconds (1:02.5)",
        )
    };
    let (min, sec) = match s.split_once(':') {
        Some((m, s)) => (m.parse::<u32>().map_err(|_| bad())?, s),
        None => (0, s),
    };
    let sec: f64 = sec.parse().map_err(|_| bad())?;
    if !sec.is_finite() || sec < 0.0 || (min > 0 && sec >= 60.0) {
        return Err(bad());
    }
    Ok(Some(
        (f64::from(min) * 60_000.0 + sec * 1000.0).round() as i64
    ))
}

pub struct ClipTab {
    pub href: String,
    pub name: String,
    pub current: bool,
}

pub struct KpRow {
    pub id: Id,
    pub at_ms: i64,
    pub at: String,
    pub at_value: String,
    pub end_value: String,
    pub end: Option<String>,
    pub body: String,
    pub suggested: bool,
    pub edit_action: String,
    pub delete_action: String,
}

pub struct NoteRow {
    pub url: String,
    pub about: Option<String>,
    pub status: &'static str,
    pub tone: &'static str,
    pub transcript: Option<String>,
    pub reason: Option<String>,
    pub delete_action: String,
}

pub struct ReplyRow {
    pub body: Option<String>,
    pub url: Option<String>,
    pub time: String,
}

/// The values of the add-keypoint form, kept when it is refused.
#[derive(Deserialize, Default)]
pub struct KeypointForm {
    #[serde(default)]
    at: String,
    #[serde(default)]
    end: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    clip: String,
}

#[derive(Template)]
#[template(path = "desk/reviews/builder.html")]
pub struct BuilderPage {
    c: Chrome,
    back: String,
    here: String,
    base: String,
    title: String,
    summary: String,
    status: &'static str,
    tone: &'static str,
    may_manage: bool,
    editable: bool,
    building: bool,
    ready: bool,
    published: bool,
    job_href: Option<String>,
    clips: Vec<ClipTab>,
    clip_id: Option<Id>,
    clip_href: Option<String>,
    video: Option<String>,
    keypoints: Vec<KpRow>,
    other_clips_keypoints: usize,
    notes: Vec<NoteRow>,
    note_targets: Vec<(Id, String)>,
    athlete: Option<String>,
    athletes: Vec<(Id, String, bool)>,
    opened: Option<String>,
    replies: Vec<ReplyRow>,
    form: KeypointForm,
    notice: Option<Notice>,
}

fn transcript_badge(s: TranscriptStatus) -> (&'static str, &'static str) {
    match s {
        TranscriptStatus::Pending => ("rev.tr_pending", "warn"),
        TranscriptStatus::Done => ("rev.tr_done", "ok"),
        TranscriptStatus::Skipped => ("rev.tr_skipped", ""),
        TranscriptStatus::Failed => ("rev.tr_failed", "bad"),
    }
}

/// A note as the pages show it (the builder and the athlete's view).
pub async fn note_row(
    state: &AppState,
    n: &VoiceNote,
    about: Option<String>,
    delete_action: String,
) -> Result<NoteRow, Error> {
    let url = super::recording_url(state, &n.object_key).await?;
    let (status, tone) = transcript_badge(n.transcript_status);
    Ok(NoteRow {
        url,
        about,
        status,
        tone,
        transcript: n.transcript.clone(),
        reason: n.transcript_reason.clone(),
        delete_action,
    })
}

/// A keypoint's short label (its time and the start of its note), for a note's "about".
pub fn keypoint_label(at_ms: i64, body: &str) -> String {
    let short: String = body.chars().take(40).collect();
    let more = if body.chars().count() > 40 { "…" } else { "" };
    format!("{} {short}{more}", clock(at_ms))
}

async fn builder_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    clip: Option<Id>,
    form: KeypointForm,
    notice: Option<Notice>,
) -> Result<BuilderPage, Error> {
    let ws = desk.acting();
    let f = lifecycle::get(&state.db, &ws, id).await?;
    let r = &f.review;
    let (_, session_clips) = sessions::get(&state.db, &ws, r.session_id).await?;
    let base = desk.path(&format!("/reviews/{id}"));
    let current = clip
        .filter(|c| session_clips.iter().any(|k| k.id == *c))
        .or_else(|| session_clips.first().map(|k| k.id));
    let clips = session_clips
        .iter()
        .map(|k| ClipTab {
            href: format!("{base}?clip={}", k.id),
            name: k.file_name.clone(),
            current: Some(k.id) == current,
        })
        .collect();
    // No playable source yet (still uploading, failed): the page works without the player.
    let video = match current {
        Some(c) => stream_url(state, desk.who.caller.user.id, &ws, c, None)
            .await
            .ok()
            .map(|v| on_this_origin(state, v.url)),
        None => None,
    };
    let here = match current {
        Some(c) => format!("{base}?clip={c}"),
        None => base.clone(),
    };
    let keypoints: Vec<KpRow> = f
        .keypoints
        .iter()
        .filter(|k| Some(k.clip_id) == current)
        .map(|k| KpRow {
            id: k.id,
            at_ms: k.at_ms,
            at: clock(k.at_ms),
            at_value: seconds(k.at_ms),
            end_value: k.end_ms.map(seconds).unwrap_or_default(),
            end: k.end_ms.map(clock),
            body: k.body.clone(),
            suggested: k.origin == KeypointOrigin::Suggested,
            edit_action: format!("{base}/keypoints/{}", k.id),
            delete_action: format!("{base}/keypoints/{}/delete", k.id),
        })
        .collect();
    let other_clips_keypoints = f.keypoints.len() - keypoints.len();
    let label_of = |kp: Option<Id>| {
        kp.and_then(|i| f.keypoints.iter().find(|k| k.id == i))
            .map(|k| keypoint_label(k.at_ms, &k.body))
    };
    let mut notes = Vec::with_capacity(f.notes.len());
    for n in &f.notes {
        let del = format!("{base}/voice-notes/{}/delete", n.id);
        notes.push(note_row(state, n, label_of(n.keypoint_id), del).await?);
    }
    let note_targets = f
        .keypoints
        .iter()
        .map(|k| (k.id, keypoint_label(k.at_ms, &k.body)))
        .collect();
    let (opened, replies) = if r.status == ReviewStatus::Published {
        let receipts = reading::receipts(&state.db, id).await?;
        let opened = receipts
            .iter()
            .filter_map(|x| x.opened_at)
            .min()
            .map(|t| desk.time(t));
        let mut rows = Vec::new();
        for x in replies::for_coach(&state.db, &ws, id, REPLIES_SHOWN, 0).await? {
            let url = match &x.object_key {
                Some(k) => Some(super::recording_url(state, k).await?),
                None => None,
            };
            rows.push(ReplyRow {
                body: x.body,
                url,
                time: desk.time(x.created_at),
            });
        }
        (opened, rows)
    } else {
        (None, Vec::new())
    };
    let choices = super::athlete_choices(state, desk).await?;
    let athlete = match r.athlete_id {
        Some(a) => shared::domain::athletes::get(&ws, &state.db, a)
            .await
            .ok()
            .map(|a| format!("{} {}", a.first_name, a.last_name)),
        None => None,
    };
    let athletes = choices
        .into_iter()
        .map(|(i, n)| (i, n, Some(i) == r.athlete_id))
        .collect();
    let (status, tone) = status_badge(r.status);
    Ok(BuilderPage {
        c: Chrome::new(desk, r.title.clone()),
        back: desk.path("/reviews"),
        here,
        base,
        title: r.title.clone(),
        summary: r.summary.clone().unwrap_or_default(),
        status,
        tone,
        may_manage: desk.ws.can(shared::authz::Perm::ReviewsManage),
        editable: next(r.status, ReviewEvent::Edit).is_ok(),
        building: r.status == ReviewStatus::Building,
        ready: r.status == ReviewStatus::Ready,
        published: r.status == ReviewStatus::Published,
        job_href: r.job_id.map(|j| {
            format!(
                "{}?back={}",
                desk.path(&format!("/jobs/{j}")),
                desk.path(&format!("/reviews/{id}"))
            )
        }),
        clips,
        clip_id: current,
        clip_href: current.map(|c| desk.path(&format!("/clips/{c}"))),
        video,
        keypoints,
        other_clips_keypoints,
        notes,
        note_targets,
        athlete,
        athletes,
        opened,
        replies,
        form,
        notice,
    })
}

/// `GET /w/{ws}/reviews/{id}` (`?clip=`): the builder.
pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
) -> Response {
    match builder_page(&state, &desk, id, q.clip, KeypointForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The answer to a builder post: back to the builder (on `clip`) with `note`, or the builder
/// again with the error beside its field at the API's status (a 404 or a server error as a
/// whole page).
async fn answer(
    state: &AppState,
    desk: &Desk,
    id: Id,
    clip: Option<Id>,
    done: Result<(), Error>,
    note: &str,
    form: KeypointForm,
) -> Response {
    let rest = match clip {
        Some(c) => format!("/reviews/{id}?clip={c}"),
        None => format!("/reviews/{id}"),
    };
    match done {
        Ok(()) => desk.done(&rest, note),
        Err(e) if e.kind.is_server_error() || e.kind == ErrorKind::NotFound => desk.error(&e),
        Err(mut e) => {
            rename_field(&mut e, "atMs", "at");
            rename_field(&mut e, "endMs", "end");
            match builder_page(state, desk, id, clip, form, Some(Notice::of(&e))).await {
                Ok(p) => page_at(desk, status_of(&e), &p, &rest),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}

/// `POST …/suggest`: keypoints from the ride windows and maneuvers (as `POST
/// /api/reviews/{id}/suggest`).
pub async fn suggest(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let done = keypoints::suggest(&state.db, &desk.acting(), id).await;
    let note = match &done {
        Ok(0) => "suggested_none",
        _ => "suggested",
    };
    let done = done.map(|_| ());
    answer(
        &state,
        &desk,
        id,
        q.clip,
        done,
        note,
        KeypointForm::default(),
    )
    .await
}

/// `POST …/keypoints`: a keypoint on the clip at the time typed (or taken from the player).
pub async fn add_keypoint(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    DeskForm(f): DeskForm<KeypointForm>,
) -> Response {
    let clip: Option<Id> = f.clip.trim().parse().ok();
    let done = async {
        let at = parse_time("at", &f.at)?;
        let end = parse_time("end", &f.end)?;
        let raw = keypoints::RawKeypoint {
            clip_id: clip,
            at_ms: at,
            end_ms: end.map(Some),
            body: Some(f.body.as_str()),
            drawing: None,
            maneuver_type: None,
        };
        keypoints::create(&state.db, &desk.acting(), id, &raw)
            .await
            .map(|_| ())
    }
    .await;
    answer(&state, &desk, id, clip, done, "keypoint_added", f).await
}

/// `POST …/keypoints/{other}`: change a keypoint's times and note (a suggested one becomes
/// the coach's).
pub async fn edit_keypoint(
    State(state): State<AppState>,
    desk: Desk,
    Path(ItemPath { id, other }): Path<ItemPath>,
    DeskForm(f): DeskForm<KeypointForm>,
) -> Response {
    let clip: Option<Id> = f.clip.trim().parse().ok();
    let done = async {
        let at = parse_time("at", &f.at)?
            .ok_or_else(|| Error::field("at", "required", "when in the clip"))?;
        let end = parse_time("end", &f.end)?;
        let raw = keypoints::RawKeypoint {
            at_ms: Some(at),
            end_ms: Some(end),
            body: Some(f.body.as_str()),
            ..Default::default()
        };
        keypoints::update(&state.db, &desk.acting(), id, other, &raw)
            .await
            .map(|_| ())
    }
    .await;
    let keep = KeypointForm::default();
    answer(&state, &desk, id, clip, done, "keypoint_saved", keep).await
}

/// `POST …/keypoints/{other}/delete` (a suggested one stays dismissed).
pub async fn delete_keypoint(
    State(state): State<AppState>,
    desk: Desk,
    Path(ItemPath { id, other }): Path<ItemPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let done = keypoints::delete(&state.db, &desk.acting(), id, other).await;
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "keypoint_deleted", keep).await
}

/// `POST …/voice-notes` (multipart: the recording, or a chosen file, and the keypoint it is
/// about): stored as `POST /api/reviews/{id}/voice-notes` stores it, checked by its bytes.
pub async fn add_note(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
    up: DeskFile,
) -> Response {
    let keypoint = up.field("keypointId").and_then(|k| k.trim().parse().ok());
    let done = match up.file {
        None => Err(Error::field(
            "note",
            "required",
            "record a note or choose a recording",
        )),
        Some(file) => voice_notes::record(
            &state,
            &desk.acting(),
            id,
            keypoint,
            &HeaderMap::new(),
            file.body,
        )
        .await
        .map(|_| ())
        .map_err(|e| FilePart::refused_at("note", e)),
    };
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "note_added", keep).await
}

/// `POST …/voice-notes/{other}/delete` (its audio goes with a job).
pub async fn delete_note(
    State(state): State<AppState>,
    desk: Desk,
    Path(ItemPath { id, other }): Path<ItemPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let done =
        shared::domain::reviews::voice_notes::delete(&state.db, &desk.acting(), id, other).await;
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "note_deleted", keep).await
}

/// `POST …/build` (as `POST /api/reviews/{id}/build`): the page then shows each note's
/// transcription until the review is ready.
pub async fn build(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let done = lifecycle::build(&state.db, &desk.acting(), id)
        .await
        .map(|_| ());
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "building", keep).await
}

/// `POST …/publish` (as `POST /api/reviews/{id}/publish`): the athlete and a minor's guardians
/// are notified.
pub async fn publish(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let done = lifecycle::publish(&state.db, &desk.acting(), id)
        .await
        .map(|_| ());
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "review_published", keep).await
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailsForm {
    #[serde(default)]
    title: String,
    /// Absent when the form offers no athletes (the member may not read the roster).
    athlete_id: Option<String>,
    #[serde(default)]
    summary: String,
}

/// `POST /w/{ws}/reviews/{id}` (as `PATCH /api/reviews/{id}`): the title, summary and athlete
/// (an empty summary is cleared; no athlete chosen clears it).
pub async fn update(
    State(state): State<AppState>,
    desk: Desk,
    Path(ReviewPath { id }): Path<ReviewPath>,
    Query(q): Query<ClipQuery>,
    DeskForm(f): DeskForm<DetailsForm>,
) -> Response {
    let done = async {
        let athlete_id = match &f.athlete_id {
            Some(a) => Some(super::id_field(a, "athleteId")?),
            None => None,
        };
        let raw = lifecycle::RawPatch {
            title: Some(f.title.as_str()),
            summary: Some(opt(&f.summary)),
            athlete_id,
        };
        lifecycle::update(&state.db, &desk.acting(), id, &raw)
            .await
            .map(|_| ())
    }
    .await;
    let keep = KeypointForm::default();
    answer(&state, &desk, id, q.clip, done, "review_saved", keep).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_seconds_or_minutes_and_show_as_a_clock() {
        assert_eq!(parse_time("at", "62.5").unwrap(), Some(62_500));
        assert_eq!(parse_time("at", "1:02.5").unwrap(), Some(62_500));
        assert_eq!(parse_time("at", " ").unwrap(), None);
        for bad in ["x", "-1", "1:75", "NaN", "inf"] {
            assert!(parse_time("at", bad).is_err(), "{bad}");
        }
        assert_eq!(clock(62_500), "1:02.5");
        assert_eq!(clock(0), "0:00.0");
        assert_eq!(seconds(62_500), "62.5");
        assert_eq!(seconds(3000), "3");
    }
}
