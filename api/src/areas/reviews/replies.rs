//! Replies to a review: the athlete sends them from the phone
//! (`/api/mobile/reviews/{id}/replies`: JSON text, or recorded audio as the body), a minor's
//! guardians read them along, and the workspace's coaches read them with the review
//! (`/api/reviews/{id}/replies`).

use super::play_url;
use crate::auth::{Acting, Caller};
use crate::http::Result;
use crate::http::extract::{Body, Path, Query, is_json};
use crate::http::pagination::{Page, Paged};
use crate::http::upload::{self, Media};
use crate::state::AppState;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::reviews::ReplyKind;
use shared::domain::reviews::replies::{self as domain, Content, MAX_BYTES};
use shared::repo::review_audio::Reply;
use shared::storage::Store;
use utoipa::ToSchema;

const AUDIO: Media = upload::audio(MAX_BYTES);

/// A reply, with a URL to play a recorded one (valid for 30 minutes).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplyView {
    pub id: Id,
    /// `text` or `voice`.
    pub kind: ReplyKind,
    /// The written reply.
    pub body: Option<String>,
    /// The recorded reply's type and size, and where to play it.
    pub content_type: Option<String>,
    pub size_bytes: Option<i64>,
    pub url: Option<String>,
    pub author_user_id: Option<Id>,
    pub client_reply_id: Option<String>,
    pub created_at: Ts,
}

async fn view(state: &AppState, r: Reply) -> Result<ReplyView> {
    let url = match &r.object_key {
        Some(k) => Some(play_url(state, k).await?),
        None => None,
    };
    Ok(ReplyView {
        id: r.id,
        kind: r.kind,
        body: r.body,
        content_type: r.content_type,
        size_bytes: r.size_bytes,
        url,
        author_user_id: r.author_user_id,
        client_reply_id: r.client_reply_id,
        created_at: r.created_at,
    })
}

async fn page_of(state: &AppState, page: &Page, rows: Vec<Reply>) -> Result<Paged<ReplyView>> {
    let mut items = Vec::with_capacity(rows.len());
    for r in rows {
        items.push(view(state, r).await?);
    }
    Ok(page.wrap(items))
}

/// `GET /api/reviews/{id}/replies`: the athlete's replies, oldest first, for the coaches.
pub async fn for_coach(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Path(id): Path<Id>,
) -> Result<axum::Json<Paged<ReplyView>>> {
    let rows = domain::for_coach(&state.db, &ws, id, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page_of(&state, &page, rows).await?))
}

/// `GET /api/mobile/reviews/{id}/replies`: the replies, for the athlete and a guardian.
pub async fn for_reader(
    State(state): State<AppState>,
    caller: Caller,
    page: Page,
    Path(id): Path<Id>,
) -> Result<axum::Json<Paged<ReplyView>>> {
    let rows = domain::for_reader(
        &state.db,
        &caller.actor(),
        id,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(page_of(&state, &page, rows).await?))
}

/// 201 for a new reply, 200 for one sent before.
async fn answer(
    state: &AppState,
    (reply, new): (Reply, bool),
) -> Result<(StatusCode, axum::Json<ReplyView>)> {
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(view(state, reply).await?)))
}

/// A written reply.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextReply {
    /// 1 to 4000 characters.
    pub body: String,
    /// The phone's id for this reply: sending it again returns the first reply.
    pub client_reply_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoiceQuery {
    /// For a recorded reply, the phone's id for it (as in a written one).
    pub client_reply_id: Option<String>,
}

/// `POST /api/mobile/reviews/{id}/replies`: `application/json` is a written reply
/// ([`TextReply`]); anything else is a recording sent as the body (M4A/AAC, MP3, WAV,
/// Ogg/Opus or WebM, at most 25 MiB), with `?clientReplyId=`. 201 for a new reply, 200 with
/// the first one for a client id used before. Only the review's athlete replies.
pub async fn add(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Query(q): Query<VoiceQuery>,
    req: Request,
) -> Result<(StatusCode, axum::Json<ReplyView>)> {
    let actor = caller.actor();
    if is_json(req.headers()) {
        // A written reply: the JSON extractor's limits and error codes, as on every route.
        let Body(b) = Body::<TextReply>::from_request(req, &state).await?;
        let client = b.client_reply_id.as_deref();
        let done = domain::add(&state.db, &actor, id, client, Content::Text(&b.body)).await?;
        return answer(&state, done).await;
    }
    let client = q.client_reply_id.as_deref();
    let (parts, body) = req.into_parts();
    let done = record(&state, &actor, id, client, &parts.headers, body).await?;
    answer(&state, done).await
}

/// A recorded reply (this route's and the athlete's review page's alike): checked before a
/// byte is read, then by its first bytes and size while it streams into storage; a recording
/// that is not kept is deleted. Returns the reply and whether it is new.
pub async fn record(
    state: &AppState,
    actor: &shared::domain::Actor,
    id: Id,
    client: Option<&str>,
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
) -> shared::Result<(Reply, bool)> {
    let (org, first) = domain::check(&state.db, actor, id, client).await?;
    if let Some(first) = first {
        // Sent before: the phone lost our answer. Nothing to read again.
        return Ok((first, false));
    }
    let reply = Id::new();
    let key = domain::key(org, id, reply);
    let stored = upload::store(
        &state.storage,
        Store::RawUploads,
        &key,
        headers,
        body,
        &AUDIO,
    )
    .await?;
    let content = Content::Voice {
        id: reply,
        object_key: key.clone(),
        content_type: stored.content_type.to_string(),
        size_bytes: stored.size,
    };
    let done = domain::add(&state.db, actor, id, client, content).await;
    if !matches!(done, Ok((_, true))) {
        // Not kept (a refusal, or the same client id won a race): the audio must not linger.
        if let Err(d) = state.storage.delete(Store::RawUploads, &key).await {
            tracing::warn!(error = %d, key, "could not delete an unkept voice reply");
        }
    }
    done
}
