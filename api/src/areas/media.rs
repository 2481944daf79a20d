//! A clip's web media (`shared::domain::footage::media`): its state and signed URLs for the
//! renditions, the poster and the scrub strip; the strip's WebVTT index; rendering again.

use super::footage::signed;
use super::jobs::{JobAccepted, accepted};
use crate::auth::{Acting, Caller};
use crate::http::extract::{Body, Path};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use shared::db::{Id, Ts};
use shared::domain::footage::media::{self, ClipMedia, MediaManifest, MediaStatus};
use shared::storage::Store;
use shared::video::token::VideoSource;
use utoipa::ToSchema;

/// A clip's web media. Without `status` no render was asked for yet (the clip's file has not
/// arrived or been probed); the URLs are there once it is `ready`, each valid one hour.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MediaView {
    pub clip_id: Id,
    pub status: Option<MediaStatus>,
    /// Why it failed: `not_video`, `no_video_track`, `media_truncated`, `render_failed`,
    /// `render_cancelled`, `clip_video_unavailable`.
    pub code: Option<String>,
    pub message: Option<String>,
    /// The render job: its progress is `GET /api/jobs/{id}`.
    pub job_id: Option<Id>,
    /// The poster frame: made first, so it is here while the rendition is made.
    pub poster: Option<ImageView>,
    pub ready: Option<ReadyMedia>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadyMedia {
    /// `original`, or `processed` for a clip whose only source is an external URL.
    pub source: String,
    pub duration_ms: i64,
    pub web: RenditionView,
    /// Only for videos of two minutes or more.
    pub low: Option<RenditionView>,
    pub strip: StripView,
    pub expires_at: Ts,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenditionView {
    pub url: String,
    pub width: i64,
    pub height: i64,
    pub size_bytes: i64,
    pub bit_rate: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageView {
    pub url: String,
    pub width: i64,
    pub height: i64,
}

/// The scrub strip: `count` thumbnails of `thumbWidth`×`thumbHeight` in rows of `columns`,
/// thumbnail i covering `[i × intervalMs, (i + 1) × intervalMs)`; `vttUrl` is the same as a
/// WebVTT index (`#xywh=` fragments), as players read it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StripView {
    pub url: String,
    pub vtt_url: String,
    pub columns: i64,
    pub count: i64,
    pub interval_ms: i64,
    pub thumb_width: i64,
    pub thumb_height: i64,
}

/// A signed stream URL of one of `clip`'s stored media objects, and when it expires.
pub fn sign(state: &AppState, user: Id, clip: Id, store: Store, key: &str) -> (String, Ts) {
    let source = VideoSource::Stored {
        store,
        key: key.to_string(),
    };
    signed(state, user, clip, source)
}

/// The poster of a clip with its URL signed for `user`.
pub fn poster_view(state: &AppState, user: Id, clip: Id, p: &media::Image) -> ImageView {
    ImageView {
        url: sign(state, user, clip, Store::Sidecars, &p.key).0,
        width: p.width,
        height: p.height,
    }
}

/// The ready media of a clip with its URLs signed for `user`.
pub fn ready_view(state: &AppState, user: Id, clip: Id, m: &MediaManifest) -> ReadyMedia {
    let sign = |store: Store, key: &str| sign(state, user, clip, store, key);
    let rendition = |r: &media::Rendition| RenditionView {
        url: sign(Store::SessionVideos, &r.key).0,
        width: r.width,
        height: r.height,
        size_bytes: r.size_bytes,
        bit_rate: r.bit_rate,
    };
    let (strip_url, expires_at) = sign(Store::Sidecars, &m.strip.key);
    ReadyMedia {
        source: m.source.clone(),
        duration_ms: m.duration_ms,
        web: rendition(&m.web),
        low: m.low.as_ref().map(rendition),
        strip: StripView {
            url: strip_url,
            vtt_url: state
                .cfg
                .public_url(&format!("/api/clips/{clip}/thumbnails.vtt")),
            columns: m.strip.columns,
            count: m.strip.count,
            interval_ms: m.strip.interval_ms,
            thumb_width: m.strip.thumb_width,
            thumb_height: m.strip.thumb_height,
        },
        expires_at,
    }
}

fn view(state: &AppState, user: Id, clip: Id, m: Option<ClipMedia>) -> MediaView {
    let Some(m) = m else {
        return MediaView {
            clip_id: clip,
            status: None,
            code: None,
            message: None,
            job_id: None,
            poster: None,
            ready: None,
        };
    };
    let ready = match (&m.status, &m.manifest) {
        (MediaStatus::Ready, Some(manifest)) => Some(ready_view(state, user, clip, manifest)),
        _ => None,
    };
    MediaView {
        clip_id: clip,
        status: Some(m.status),
        code: m.status_code,
        message: m.status_message,
        job_id: m.job_id,
        poster: m.poster.as_ref().map(|p| poster_view(state, user, clip, p)),
        ready,
    }
}

/// `GET /api/clips/{clipId}/media`.
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<MediaView>> {
    let m = media::get(&state.db, &ws, id).await?;
    Ok(axum::Json(view(&state, caller.user.id, id, m)))
}

/// `GET /api/clips/{clipId}/thumbnails.vtt`: the scrub strip's WebVTT index, its cues pointing
/// at the sprite's signed URL. 409 `clip_media_not_ready` until the media is ready.
pub async fn thumbnails(
    State(state): State<AppState>,
    caller: Caller,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Response> {
    let manifest = media::get(&state.db, &ws, id)
        .await?
        .filter(|m| m.status == MediaStatus::Ready)
        .and_then(|m| m.manifest)
        .ok_or_else(|| {
            Error::conflict(
                "clip_media_not_ready",
                "the clip's scrub strip is made with its web rendition; it is not ready yet",
            )
        })?;
    let source = VideoSource::Stored {
        store: Store::Sidecars,
        key: manifest.strip.key.clone(),
    };
    let (sprite, _) = signed(&state, caller.user.id, id, source);
    let body = media::vtt(&manifest.strip, manifest.duration_ms, &sprite);
    Ok((
        [
            (header::CONTENT_TYPE, "text/vtt; charset=utf-8"),
            (header::CACHE_CONTROL, "private, max-age=600"),
        ],
        body,
    )
        .into_response())
}

/// `POST /api/clips/render`: render the clip's web media again (job).
pub async fn render(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<super::footage::ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(media::render(&state.db, &ws, r.clip_id).await?))
}
