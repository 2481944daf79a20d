//! The messages pages of the desk: the member's conversations in this workspace with their
//! unread counts, one conversation (newest at the bottom, read as the JSON read marks it, kept
//! live by polling its thread), sending a message with an optional photo (uploaded through the
//! desk, checked by its bytes as `POST /api/conversations/{id}/messages` checks it), reporting
//! a message, and starting a conversation with an athlete. Each calls the operation the JSON
//! handler of `areas::messaging` calls.

use super::upload::{DeskFile, FilePart};
use super::{Chrome, Desk, DeskForm, Offset, Pager, Seat, on_this_origin, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::http::upload::{self, Media};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::db::{Id, TextEnum};
use shared::domain::messaging::conversations::{
    self, ListFilter, NewConversation, RawConversation, RecipientSearch, side_of, unread_for,
};
use shared::domain::messaging::messages::{self, Attachments, NewReport, RawMessage};
use shared::domain::messaging::{Access, ReportReason, Side, open};
use shared::storage::Store;

/// Conversations per page of the list.
pub const PAGE_SIZE: i64 = 25;
/// Messages shown of a conversation (older ones behind a link).
pub const THREAD_SIZE: i64 = 50;
/// Athletes per page of the new-conversation picker.
pub const RECIPIENTS_SIZE: i64 = 25;

fn files(state: &AppState) -> Attachments<'_> {
    Attachments {
        storage: &state.storage,
        keys: &state.keys,
        public_base_url: state.cfg.public_base_url.as_str(),
    }
}

/// The conversation, when the person may open it and, at a desk, it is this workspace's (404
/// otherwise, as for any other workspace's row).
async fn conversation(state: &AppState, seat: &impl Seat, id: Id) -> Result<Access, Error> {
    let mut c = state.db.acquire().await?;
    let a = open(&mut c, seat.who().caller.user.id, id).await?;
    if seat.org().is_some_and(|org| org != a.conv.org_id) {
        return Err(Error::not_found("conversation"));
    }
    Ok(a)
}

/// A conversation's path parameter (`{ws}` too at a desk).
#[derive(Deserialize)]
pub struct ConvPath {
    id: Id,
}

/// A message's path parameters: the conversation and the message (`{other}`).
#[derive(Deserialize)]
pub struct MsgPath {
    id: Id,
    other: Id,
}

// ---- the list ----

pub struct ConvRow {
    pub href: String,
    pub athlete: String,
    pub coach: String,
    pub guardian: bool,
    pub unread: i64,
    pub last: String,
}

#[derive(Template)]
#[template(path = "desk/messages/list.html")]
pub struct ListPage {
    c: Chrome,
    /// Starting a conversation is a coach's (a desk's) action.
    new_href: Option<String>,
    /// How my notifications went out (a desk's page).
    sent_href: Option<String>,
    rows: Vec<ConvRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

pub async fn list<S: Seat>(
    State(state): State<AppState>,
    desk: S,
    Query(q): Query<Offset>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let me = desk.who().caller.user.id;
    let f = ListFilter { org: desk.org() };
    let mut rows =
        match conversations::list(&desk.actor(), &state.db, f, PAGE_SIZE + 1, offset).await {
            Ok(r) => r,
            Err(e) => return desk.error(&e),
        };
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let rows = rows
        .into_iter()
        .map(|r| {
            let side = side_of(&r, me);
            ConvRow {
                href: desk.path(&format!("/messages/{}", r.conv.id)),
                athlete: format!("{} {}", r.athlete_first_name, r.athlete_last_name),
                coach: r.coach_name.clone(),
                guardian: side == Side::Guardian,
                unread: unread_for(&r, side),
                last: desk.time(r.conv.last_message_at),
            }
        })
        .collect();
    let link = |o: i64| desk.path(&format!("/messages?offset={o}"));
    page(
        StatusCode::OK,
        &ListPage {
            c: desk.chrome(desk.cat().t("msg.title").into()),
            new_href: desk.org().map(|_| desk.path("/messages/new")),
            sent_href: desk.org().map(|_| desk.path("/messages/sent")),
            rows,
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
        },
    )
}

// ---- one conversation ----

pub struct MsgRow {
    pub id: Id,
    pub mine: bool,
    pub body: String,
    pub removed: bool,
    pub photo: Option<String>,
    pub time: String,
    pub iso: String,
    pub report_href: Option<String>,
}

#[derive(Template)]
#[template(path = "desk/messages/show.html")]
pub struct ShowPage {
    c: Chrome,
    action: String,
    here: String,
    back: String,
    other: String,
    guardian: bool,
    rows: Vec<MsgRow>,
    older_href: Option<String>,
    newer_href: Option<String>,
    body: String,
    notice: Option<Notice>,
}

async fn show_page(
    state: &AppState,
    desk: &impl Seat,
    id: Id,
    offset: i64,
    body: String,
    notice: Option<Notice>,
) -> Result<ShowPage, Error> {
    let a = conversation(state, desk, id).await?;
    let actor = desk.actor();
    let mut rows = messages::list(&actor, &state.db, id, THREAD_SIZE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, THREAD_SIZE);
    let me = actor.user_id;
    let mut shown = Vec::with_capacity(rows.len());
    for m in rows.into_iter().rev() {
        let removed = m.removed_at.is_some();
        let photo = if !removed && m.attachment_key.is_some() {
            let link = messages::attachment(&actor, &state.db, files(state), m.id).await?;
            Some(on_this_origin(state, link.url))
        } else {
            None
        };
        let mine = m.sender_user_id == Some(me);
        shown.push(MsgRow {
            id: m.id,
            mine,
            body: if removed { String::new() } else { m.body },
            removed,
            photo,
            time: desk.time(m.created_at),
            iso: m.created_at.0.to_rfc3339(),
            report_href: (!mine && !removed && m.sender_user_id.is_some())
                .then(|| desk.path(&format!("/messages/{id}/report/{}", m.id))),
        });
    }
    let base = desk.path(&format!("/messages/{id}"));
    let other = if a.side == Side::Coach {
        format!("{} {}", a.athlete.first_name, a.athlete.last_name)
    } else {
        desk.cat().t("msg.coach").to_string()
    };
    Ok(ShowPage {
        c: desk.chrome(other.clone()),
        action: base.clone(),
        here: if offset > 0 {
            format!("{base}?offset={offset}")
        } else {
            base.clone()
        },
        back: desk.path("/messages"),
        other,
        guardian: a.side == Side::Guardian,
        rows: shown,
        older_href: pager.next.map(|o| format!("{base}?offset={o}")),
        newer_href: pager.prev.map(|o| format!("{base}?offset={o}")),
        body,
        notice,
    })
}

pub async fn show<S: Seat>(
    State(state): State<AppState>,
    desk: S,
    Path(ConvPath { id }): Path<ConvPath>,
    Query(q): Query<Offset>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    match show_page(&state, &desk, id, offset, String::new(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

const PHOTO: Media = upload::photo(messages::MAX_PHOTO_BYTES);

/// Sends a message: its text and, when a photo is chosen, the photo stored where
/// `POST /api/conversations/{id}/attachments` would have it uploaded, then posted with its key
/// (the post checks the bytes are a photo, as for an upload through the JSON API).
pub async fn send<S: Seat>(
    State(state): State<AppState>,
    desk: S,
    Path(ConvPath { id }): Path<ConvPath>,
    up: DeskFile,
) -> Response {
    let body = up.field("body").unwrap_or("").to_string();
    if let Err(e) = conversation(&state, &desk, id).await {
        return desk.error(&e);
    }
    let actor = desk.actor();
    let sent = async {
        let key = match up.file {
            None => None,
            Some(file) => {
                let ct = file.content_type.as_deref().unwrap_or("");
                let slot = messages::upload_url(&actor, &state.db, files(&state), id, ct)
                    .await
                    .map_err(|e| {
                        if e.code == "validation_failed" {
                            Error::field(
                                "photo",
                                "invalid_choice",
                                "the photo must be a JPEG, PNG, WebP or HEIC image",
                            )
                        } else {
                            e
                        }
                    })?;
                upload::store(
                    &state.storage,
                    Store::RawUploads,
                    &slot.key,
                    &HeaderMap::new(),
                    file.body,
                    &PHOTO,
                )
                .await
                .map_err(|e| FilePart::refused_at("photo", e))?;
                Some(slot.key)
            }
        };
        let raw = RawMessage {
            body: &body,
            attachment_key: key.as_deref(),
        };
        messages::post(&actor, &state.db, files(&state), id, raw)
            .await
            .map_err(|mut e| {
                // The photo field of the page is what the API calls the attachment key.
                rename_field(&mut e, "attachmentKey", "photo");
                e
            })
    }
    .await;
    match sent {
        Ok(_) => desk.done(&format!("/messages/{id}"), "sent"),
        Err(e) => match show_page(&state, &desk, id, 0, body, Some(Notice::of(&e))).await {
            Ok(p) => page(status_of(&e), &p),
            Err(e2) => desk.error(&e2),
        },
    }
}

// ---- report ----

#[derive(Template)]
#[template(path = "desk/messages/report.html")]
pub struct ReportPage {
    c: Chrome,
    action: String,
    cancel: String,
    quote: String,
    reasons: Vec<(String, bool)>,
    details: String,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
pub struct ReportForm {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    details: String,
}

async fn report_page(
    state: &AppState,
    desk: &impl Seat,
    id: Id,
    msg: Id,
    f: &ReportForm,
    notice: Option<Notice>,
) -> Result<ReportPage, Error> {
    conversation(state, desk, id).await?;
    let m = {
        let mut c = state.db.acquire().await?;
        shared::repo::messaging::message(&mut c, msg)
            .await?
            .filter(|m| m.conversation_id == id && m.removed_at.is_none())
            .ok_or_else(|| Error::not_found("message"))?
    };
    Ok(ReportPage {
        c: desk.chrome(desk.cat().t("msg.report_title").into()),
        action: desk.path(&format!("/messages/{id}/report/{msg}")),
        cancel: desk.path(&format!("/messages/{id}")),
        quote: m.body,
        reasons: <ReportReason as TextEnum>::NAMES
            .iter()
            .map(|n| (n.to_string(), *n == f.reason))
            .collect(),
        details: f.details.clone(),
        notice,
    })
}

pub async fn report_form<S: Seat>(
    State(state): State<AppState>,
    desk: S,
    Path(MsgPath { id, other: msg }): Path<MsgPath>,
) -> Response {
    match report_page(&state, &desk, id, msg, &ReportForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

pub async fn report<S: Seat>(
    State(state): State<AppState>,
    desk: S,
    Path(MsgPath { id, other: msg }): Path<MsgPath>,
    DeskForm(f): DeskForm<ReportForm>,
) -> Response {
    if let Err(e) = report_page(&state, &desk, id, msg, &f, None).await {
        return desk.error(&e);
    }
    let done = match NewReport::parse(&f.reason, Some(&f.details)) {
        Ok(r) => messages::report(&desk.actor(), &state.db, msg, r)
            .await
            .map(|_| ()),
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => desk.done(&format!("/messages/{id}"), "reported"),
        Err(e) => match report_page(&state, &desk, id, msg, &f, Some(Notice::of(&e))).await {
            Ok(p) => page(status_of(&e), &p),
            Err(e2) => desk.error(&e2),
        },
    }
}

// ---- start a conversation ----

#[derive(Deserialize, Default)]
pub struct RecipientQuery {
    #[serde(default)]
    q: String,
    offset: Option<i64>,
}

pub struct RecipientRow {
    pub athlete_id: Id,
    pub name: String,
}

#[derive(Template)]
#[template(path = "desk/messages/new.html")]
pub struct NewPage {
    c: Chrome,
    action: String,
    q: String,
    rows: Vec<RecipientRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

async fn new_page(
    state: &AppState,
    desk: &Desk,
    q: &RecipientQuery,
    notice: Option<Notice>,
) -> Result<NewPage, Error> {
    let offset = q.offset.unwrap_or(0).max(0);
    let search = RecipientSearch::parse(Some(&q.q), Some(desk.org()))?;
    let mut rows = conversations::recipients(
        &desk.acting().actor,
        &state.db,
        &search,
        RECIPIENTS_SIZE + 1,
        offset,
    )
    .await?;
    // A member writes to athletes; their own coaches (were they an athlete here) are not this page's.
    rows.retain(|r| r.kind.as_str() == "athlete");
    let pager = Pager::cut(&mut rows, offset, RECIPIENTS_SIZE);
    let link = |o: i64| {
        let qs = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &q.q)
            .append_pair("offset", &o.to_string())
            .finish();
        desk.path(&format!("/messages/new?{qs}"))
    };
    Ok(NewPage {
        c: Chrome::new(desk, desk.cat.t("msg.new")),
        action: desk.path("/messages/new"),
        q: q.q.clone(),
        rows: rows
            .into_iter()
            .map(|r| RecipientRow {
                athlete_id: r.athlete_id,
                name: r.name,
            })
            .collect(),
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
    })
}

pub async fn new_form(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<RecipientQuery>,
) -> Response {
    match new_page(&state, &desk, &q, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) if e.code == "validation_failed" => {
            let n = Some(Notice::of(&e));
            match new_page(&state, &desk, &RecipientQuery::default(), n).await {
                Ok(p) => page(status_of(&e), &p),
                Err(e2) => desk.error(&e2),
            }
        }
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartForm {
    #[serde(default)]
    athlete_id: String,
}

pub async fn start(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<StartForm>,
) -> Response {
    let athlete_id = match f.athlete_id.trim().parse::<Id>() {
        Ok(id) => id,
        Err(_) => return desk.error(&Error::not_found("athlete")),
    };
    // The athlete must be this workspace's (another's is a 404 page, as for any row).
    if let Err(e) = shared::domain::athletes::get(&desk.acting(), &state.db, athlete_id).await {
        return desk.error(&e);
    }
    let opened = match NewConversation::parse(&RawConversation {
        kind: None,
        athlete_id: Some(athlete_id),
        coach_id: None,
    }) {
        Ok(n) => conversations::create(&desk.acting().actor, &state.db, n).await,
        Err(e) => Err(e),
    };
    match opened {
        Ok(o) => desk.done(&format!("/messages/{}", o.row.conv.id), "conversation"),
        Err(e) => {
            match new_page(
                &state,
                &desk,
                &RecipientQuery::default(),
                Some(Notice::of(&e)),
            )
            .await
            {
                Ok(p) => page(status_of(&e), &p),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}
