//! The reviews pages of the desk (issue 38): the workspace's reviews, starting one for a footage
//! session or a clip, and the review builder ([`builder`]): the clip's player, keypoints at the
//! player's time, suggestions from the ride windows, voice notes recorded in the browser, the
//! build with each note's transcription, publishing. The athlete's and guardian's view of a
//! published review is [`mine`]. Each calls the `shared::domain::reviews` operation the JSON
//! handlers of `areas::reviews` call.

pub mod builder;
pub mod mine;

use super::{Chrome, Desk, DeskForm, Offset, Pager, opt, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::footage::{clips, sessions};
use shared::domain::reviews::{ReviewStatus, lifecycle};
use shared::repo::athletes;
use shared::repo::reviews::Filter;
use shared::{Error, ErrorKind};

/// A stored recording's play URL on this site (voice notes and recorded replies alike).
pub async fn recording_url(state: &AppState, key: &str) -> Result<String, Error> {
    let url = crate::areas::reviews::play_url(state, key)
        .await
        .map_err(|e| e.0)?;
    Ok(super::on_this_origin(state, url))
}

/// Reviews per page of the list.
pub const PAGE_SIZE: i64 = 25;
/// Footage sessions offered by the new-review form (the newest).
const SESSIONS_OFFERED: i64 = 50;

/// Athletes offered by the review forms' athlete picker.
const ATHLETES_OFFERED: i64 = 500;

/// The athletes a review may be for (active ones, by name), when the member may read the
/// roster; empty otherwise (the review is then for its session's athlete).
pub async fn athlete_choices(state: &AppState, desk: &Desk) -> Result<Vec<(Id, String)>, Error> {
    if !desk.may(Module::Athletes, Perm::AthletesRead) {
        return Ok(Vec::new());
    }
    let f = athletes::Filter::default();
    let rows =
        shared::domain::athletes::list(&desk.acting(), &state.db, &f, ATHLETES_OFFERED, 0).await?;
    Ok(rows
        .into_iter()
        .map(|a| (a.id, format!("{} {}", a.first_name, a.last_name)))
        .collect())
}

/// A review's status as a badge: its catalogue key and tone.
pub fn status_badge(s: ReviewStatus) -> (&'static str, &'static str) {
    match s {
        ReviewStatus::Draft => ("rev.status_draft", ""),
        ReviewStatus::Building => ("rev.status_building", "warn"),
        ReviewStatus::Ready => ("rev.status_ready", "ok"),
        ReviewStatus::Published => ("rev.status_published", "ok"),
    }
}

pub struct ReviewRow {
    pub href: String,
    pub title: String,
    pub status: &'static str,
    pub tone: &'static str,
    pub created: String,
}

pub struct SessionChoice {
    pub id: Id,
    pub title: String,
}

#[derive(Template)]
#[template(path = "desk/reviews/list.html")]
pub struct ListPage {
    c: Chrome,
    action: String,
    may_manage: bool,
    sessions: Vec<SessionChoice>,
    athletes: Vec<(Id, String)>,
    title: String,
    rows: Vec<ReviewRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

async fn list_page(
    state: &AppState,
    desk: &Desk,
    offset: i64,
    title: String,
    notice: Option<Notice>,
) -> Result<ListPage, Error> {
    let ws = desk.acting();
    let mut rows =
        lifecycle::list(&state.db, &ws, Filter::default(), PAGE_SIZE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let may_manage = desk.ws.can(Perm::ReviewsManage);
    let sessions = if may_manage {
        sessions::list(&state.db, &ws, None, SESSIONS_OFFERED, 0)
            .await?
            .into_iter()
            .map(|s| SessionChoice {
                id: s.session.id,
                title: s.session.title,
            })
            .collect()
    } else {
        Vec::new()
    };
    let athletes = if may_manage {
        athlete_choices(state, desk).await?
    } else {
        Vec::new()
    };
    let link = |o: i64| desk.path(&format!("/reviews?offset={o}"));
    Ok(ListPage {
        c: Chrome::new(desk, desk.cat.t("rev.title")),
        action: desk.path("/reviews"),
        may_manage,
        sessions,
        athletes,
        title,
        rows: rows
            .into_iter()
            .map(|r| {
                let (status, tone) = status_badge(r.status);
                ReviewRow {
                    href: desk.path(&format!("/reviews/{}", r.id)),
                    title: r.title,
                    status,
                    tone,
                    created: desk.time(r.created_at),
                }
            })
            .collect(),
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
    })
}

/// `GET /w/{ws}/reviews`: the workspace's reviews, newest first, and the new-review form.
pub async fn list(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    match list_page(&state, &desk, offset, String::new(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// A new review: of a footage session, or of a clip (its session, the builder opened on it).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct NewForm {
    #[serde(default)]
    session_id: String,
    #[serde(default)]
    clip_id: String,
    #[serde(default)]
    athlete_id: String,
    #[serde(default)]
    title: String,
}

pub fn id_field(s: &str, field: &str) -> Result<Option<Id>, Error> {
    match opt(s) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| Error::field(field, "invalid_format", "choose one from the list")),
    }
}

/// `POST /w/{ws}/reviews`: a draft review (as `POST /api/reviews`), then its builder.
pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<NewForm>,
) -> Response {
    let ws = desk.acting();
    let made = async {
        let clip = id_field(&f.clip_id, "clipId")?;
        let session = match clip {
            Some(c) => Some(clips::get(&state.db, &ws, c).await?.session_id),
            None => id_field(&f.session_id, "sessionId")?,
        };
        let session = session
            .ok_or_else(|| Error::field("sessionId", "required", "choose a footage session"))?;
        let raw = lifecycle::RawReview {
            session_id: session,
            athlete_id: id_field(&f.athlete_id, "athleteId")?,
            title: opt(&f.title),
            summary: None,
        };
        let r = lifecycle::create(&state.db, &ws, &raw).await?;
        Ok::<_, Error>((r.id, clip))
    }
    .await;
    match made {
        Ok((id, clip)) => {
            let rest = match clip {
                Some(c) => format!("/reviews/{id}?clip={c}"),
                None => format!("/reviews/{id}"),
            };
            desk.done(&rest, "review_created")
        }
        Err(e) if e.kind.is_server_error() || e.kind == ErrorKind::NotFound => desk.error(&e),
        Err(e) => match list_page(&state, &desk, 0, f.title.clone(), Some(Notice::of(&e))).await {
            Ok(p) => super::page_at(&desk, status_of(&e), &p, "/reviews"),
            Err(e2) => desk.error(&e2),
        },
    }
}
