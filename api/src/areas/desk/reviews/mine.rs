//! The athlete's (and a minor's guardian's) published reviews (`/me/reviews`): they belong to
//! no workspace, so these are a person's own pages ([`Me`]). A review opens with the clip at
//! each keypoint (a stream URL signed as `footage::stream_url` signs one, for a clip of the
//! review's session), the notes and their transcripts, and the replies; opening it records the
//! receipt the phone sends (`POST /api/mobile/reviews/{id}/receipts`, this browser as the
//! device `web`). The athlete replies in writing or recorded (`POST
//! /api/mobile/reviews/{id}/replies`); a guardian reads along without the form.

use super::super::upload::{DeskFile, FilePart};
use super::super::{Chrome, Offset, Pager, Seat, on_this_origin, opt, status_of};
use super::builder::{NoteRow, clock, keypoint_label, note_row};
use crate::areas::footage::sign_stream;
use crate::areas::pages::{Notice, page};
use crate::areas::reviews::replies as reply_route;
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::reviews::{reading, replies};
use shared::{Error, ErrorKind};

/// Reviews per page of the list.
pub const PAGE_SIZE: i64 = 25;
/// Replies shown with a review.
const REPLIES_SHOWN: i64 = 100;
/// The device a web browser's receipts are recorded under.
pub const WEB_DEVICE: &str = "web";

pub struct Row {
    pub href: String,
    pub title: String,
    pub published: String,
}

#[derive(Template)]
#[template(path = "desk/reviews/mine.html")]
pub struct ListPage {
    c: Chrome,
    rows: Vec<Row>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

/// `GET /me/reviews`: the published reviews I may read, newest first.
pub async fn list(
    State(state): State<AppState>,
    me: super::super::Me,
    Query(q): Query<Offset>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let mut rows = match reading::mine(&state.db, &me.actor(), PAGE_SIZE + 1, offset).await {
        Ok(r) => r,
        Err(e) => return me.error(&e),
    };
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let link = |o: i64| me.path(&format!("/reviews?offset={o}"));
    page(
        StatusCode::OK,
        &ListPage {
            c: me.chrome(me.cat().t("rev.mine_title").into()),
            rows: rows
                .into_iter()
                .map(|r| Row {
                    href: me.path(&format!("/reviews/{}", r.id)),
                    title: r.title,
                    published: r.published_at.map(|t| me.time(t)).unwrap_or_default(),
                })
                .collect(),
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
        },
    )
}

pub struct KeypointLine {
    pub at_ms: i64,
    pub at: String,
    pub at_value: String,
    pub end: Option<String>,
    pub body: String,
    pub id: Id,
}

/// One clip of the review with its keypoints.
pub struct ClipPart {
    pub n: usize,
    pub video: Option<String>,
    pub keypoints: Vec<KeypointLine>,
}

pub struct ReplyLine {
    pub mine: bool,
    pub body: Option<String>,
    pub url: Option<String>,
    pub time: String,
}

#[derive(Template)]
#[template(path = "desk/reviews/read.html")]
pub struct ReadPage {
    c: Chrome,
    back: String,
    action: String,
    title: String,
    athlete: String,
    summary: Option<String>,
    published: String,
    clips: Vec<ClipPart>,
    notes: Vec<NoteRow>,
    replies: Vec<ReplyLine>,
    may_reply: bool,
    client: Id,
    body: String,
    notice: Option<Notice>,
}

#[derive(Deserialize)]
pub struct ReviewPath {
    id: Id,
}

async fn read_page(
    state: &AppState,
    me: &super::super::Me,
    id: Id,
    body: String,
    notice: Option<Notice>,
) -> Result<ReadPage, Error> {
    let actor = me.actor();
    let o = reading::open(&state.db, &actor, id).await?;
    let f = &o.full;
    // The clips the keypoints are on, in the order of their first keypoint.
    let mut clip_ids: Vec<Id> = Vec::new();
    let mut kps = f.keypoints.clone();
    kps.sort_by_key(|k| k.at_ms);
    for k in &f.keypoints {
        if !clip_ids.contains(&k.clip_id) {
            clip_ids.push(k.clip_id);
        }
    }
    let mut clips = Vec::with_capacity(clip_ids.len());
    for (i, clip) in clip_ids.iter().enumerate() {
        // A clip without a playable video yet still shows its keypoints.
        let video = reading::clip_source(&state.db, &actor, id, *clip)
            .await
            .ok()
            .map(|s| on_this_origin(state, sign_stream(state, actor.user_id, *clip, s).url));
        clips.push(ClipPart {
            n: i + 1,
            video,
            keypoints: kps
                .iter()
                .filter(|k| k.clip_id == *clip)
                .map(|k| KeypointLine {
                    at_ms: k.at_ms,
                    at: clock(k.at_ms),
                    at_value: format!("{:.1}", k.at_ms as f64 / 1000.0),
                    end: k.end_ms.map(clock),
                    body: k.body.clone(),
                    id: k.id,
                })
                .collect(),
        });
    }
    let mut notes = Vec::with_capacity(f.notes.len());
    for n in &f.notes {
        let about = n
            .keypoint_id
            .and_then(|i| f.keypoints.iter().find(|k| k.id == i))
            .map(|k| keypoint_label(k.at_ms, &k.body));
        notes.push(note_row(state, n, about, String::new()).await?);
    }
    let mut shown = Vec::new();
    for r in replies::for_reader(&state.db, &actor, id, REPLIES_SHOWN, 0).await? {
        let url = match &r.object_key {
            Some(k) => Some(super::recording_url(state, k).await?),
            None => None,
        };
        shown.push(ReplyLine {
            mine: r.author_user_id == Some(actor.user_id),
            body: r.body,
            url,
            time: me.time(r.created_at),
        });
    }
    let r = &f.review;
    Ok(ReadPage {
        c: me.chrome(r.title.clone()),
        back: me.path("/reviews"),
        action: me.path(&format!("/reviews/{id}/replies")),
        title: r.title.clone(),
        athlete: o.athlete.clone(),
        summary: r.summary.clone(),
        published: r.published_at.map(|t| me.time(t)).unwrap_or_default(),
        clips,
        notes,
        replies: shown,
        may_reply: o.is_athlete,
        client: Id::new(),
        body,
        notice,
    })
}

/// `GET /me/reviews/{id}`: the review, recorded as opened in this browser.
pub async fn show(
    State(state): State<AppState>,
    me: super::super::Me,
    Path(ReviewPath { id }): Path<ReviewPath>,
) -> Response {
    let p = match read_page(&state, &me, id, String::new(), None).await {
        Ok(p) => p,
        Err(e) => return me.error(&e),
    };
    if let Err(e) = reading::receipt(&state.db, &me.actor(), id, WEB_DEVICE, true).await {
        return me.error(&e);
    }
    page(StatusCode::OK, &p)
}

/// `POST /me/reviews/{id}/replies` (multipart): a written reply, or a recording (from the
/// page's recorder or a chosen file), as `POST /api/mobile/reviews/{id}/replies` takes them;
/// `client` (made with the form) makes a second send of the same form return the first reply.
pub async fn reply(
    State(state): State<AppState>,
    me: super::super::Me,
    Path(ReviewPath { id }): Path<ReviewPath>,
    up: DeskFile,
) -> Response {
    let actor = me.actor();
    let client = up.field("client").and_then(opt).map(str::to_string);
    let text = up.field("body").unwrap_or("").to_string();
    let done = match up.file {
        None => replies::add(
            &state.db,
            &actor,
            id,
            client.as_deref(),
            replies::Content::Text(&text),
        )
        .await
        .map(|_| ()),
        Some(file) => reply_route::record(
            &state,
            &actor,
            id,
            client.as_deref(),
            &HeaderMap::new(),
            file.body,
        )
        .await
        .map(|_| ())
        .map_err(|e| FilePart::refused_at("note", e)),
    };
    match done {
        Ok(()) => me.done(&format!("/reviews/{id}"), "reply_sent"),
        Err(e) if e.kind.is_server_error() || e.kind == ErrorKind::NotFound => me.error(&e),
        Err(e) => match read_page(&state, &me, id, text, Some(Notice::of(&e))).await {
            Ok(p) => page(status_of(&e), &p),
            Err(e2) => me.error(&e2),
        },
    }
}
