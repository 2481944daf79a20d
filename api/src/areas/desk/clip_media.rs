//! The clip page's web video (`shared::domain::footage::media`): the poster and the player's
//! source once the rendition is ready, the render's state and progress while it is made (the
//! page polls), "make it again" after a failure, and the scrub strip as a row of thumbnails that
//! are links to their moment (each an SVG view of its tile of the sprite: no inline style, so
//! the page's CSP holds, and no script needed).

use super::Desk;
use super::footage::duration;
use crate::areas::media::{poster_view, sign};
use crate::state::AppState;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::footage::media::{self, ClipMedia, MediaStatus};
use shared::storage::Store;
use worker::manage::{self, Viewer};

/// The most thumbnails the strip shows (evenly spaced over the sprite's).
const SHOWN: i64 = 24;

pub struct WebMedia {
    pub status: &'static str,
    pub tone: &'static str,
    pub progress: Option<i64>,
    pub why: Option<String>,
    /// Pending or rendering: the page polls.
    pub busy: bool,
    pub ready: bool,
    pub can_render: bool,
    /// The rendition's size and rate, in words.
    pub detail: Option<String>,
    pub low: Option<String>,
}

/// One thumbnail of the strip: a link to its moment showing its tile of the sprite.
pub struct Thumb {
    pub href: String,
    pub label: String,
    pub start: String,
    pub end: String,
    /// The tile in the sprite (an SVG viewBox) and the sprite's whole size.
    pub view_box: String,
    pub w: i64,
    pub h: i64,
}

pub struct Strip {
    pub sprite: String,
    pub width: i64,
    pub height: i64,
    pub thumbs: Vec<Thumb>,
}

/// What the clip page shows of the web video: its state, the poster URL, the strip.
pub struct Shown {
    pub media: Option<WebMedia>,
    pub poster: Option<String>,
    /// The frame's size (the poster's, cut from the video upright): the player's `width` and
    /// `height`, so its box has the video's shape before the video loads (no layout shift).
    pub frame: Option<(i64, i64)>,
    pub strip: Option<Strip>,
}

pub async fn shown(state: &AppState, desk: &Desk, clip: Id, base: &str) -> Result<Shown, Error> {
    let Some(m) = media::get(&state.db, &desk.acting(), clip).await? else {
        return Ok(Shown {
            media: None,
            poster: None,
            frame: None,
            strip: None,
        });
    };
    let user = desk.who.caller.user.id;
    let poster = m
        .poster
        .as_ref()
        .map(|p| poster_view(state, user, clip, p).url);
    let strip = match (&m.status, &m.manifest) {
        (MediaStatus::Ready, Some(manifest)) => Some(strip(state, desk, clip, base, &manifest.0)),
        _ => None,
    };
    Ok(Shown {
        media: Some(web_media(state, desk, &m).await),
        poster,
        frame: m.poster.as_ref().map(|p| (p.width, p.height)),
        strip,
    })
}

async fn web_media(state: &AppState, desk: &Desk, m: &ClipMedia) -> WebMedia {
    let busy = matches!(m.status, MediaStatus::Pending | MediaStatus::Rendering);
    // The render job's own progress (ffmpeg's), while it runs.
    let progress = match (busy, m.job_id) {
        (true, Some(job)) => {
            let viewer = Viewer {
                actor: desk.who.caller.actor(),
                platform_admin: desk.who.caller.user.is_platform_admin,
            };
            manage::get(&state.db, &viewer, job)
                .await
                .ok()
                .and_then(|j| j.percent)
        }
        _ => None,
    };
    let manifest = m.manifest.as_ref().map(|x| &x.0);
    let detail = manifest
        .filter(|_| m.status == MediaStatus::Ready)
        .map(|x| {
            let mb = format!("{:.1}", x.web.size_bytes as f64 / 1_000_000.0);
            let rate = match x.web.bit_rate {
                b if b >= 1_000_000 => format!("{:.1} Mbit/s", b as f64 / 1_000_000.0),
                b => format!("{} kbit/s", b / 1000),
            };
            let (w, h) = (x.web.width.to_string(), x.web.height.to_string());
            desk.cat.fill(
                "clip.media.detail",
                &[("w", &w), ("h", &h), ("mb", &mb), ("rate", &rate)],
            )
        });
    let low = manifest.and_then(|x| x.low.as_ref()).map(|l| {
        let (w, h) = (l.width.to_string(), l.height.to_string());
        desk.cat.fill("clip.media.low", &[("w", &w), ("h", &h)])
    });
    WebMedia {
        status: desk.cat.t(&format!("clip.media.{}", m.status.as_str())),
        tone: match m.status {
            MediaStatus::Ready => "ok",
            MediaStatus::Failed => "bad",
            _ => "",
        },
        progress,
        why: m
            .status_message
            .clone()
            .filter(|_| m.status == MediaStatus::Failed),
        busy,
        ready: m.status == MediaStatus::Ready,
        can_render: desk.ws.can(Perm::FootageUpload) && m.status == MediaStatus::Failed,
        detail,
        low,
    }
}

fn strip(state: &AppState, desk: &Desk, clip: Id, base: &str, m: &media::MediaManifest) -> Strip {
    let s = &m.strip;
    let user = desk.who.caller.user.id;
    let sprite = sign(state, user, clip, Store::Sidecars, &s.key).0;
    let columns = s.columns.max(1);
    let rows = (s.count + columns - 1) / columns;
    let step = ((s.count + SHOWN - 1) / SHOWN).max(1);
    let thumbs = (0..s.count)
        .step_by(step as usize)
        .map(|i| {
            let start_ms = i * s.interval_ms;
            let end_ms = (start_ms + step * s.interval_ms).min(m.duration_ms.max(start_ms + 1));
            let (x, y) = (
                (i % columns) * s.thumb_width,
                (i / columns) * s.thumb_height,
            );
            let secs = |ms: i64| format!("{:.1}", ms as f64 / 1000.0);
            Thumb {
                href: format!("{base}?t={}#player", secs(start_ms)),
                label: desk
                    .cat
                    .fill("clip.strip.at", &[("t", &duration(start_ms))]),
                start: secs(start_ms),
                end: secs(end_ms),
                view_box: format!("{x} {y} {} {}", s.thumb_width, s.thumb_height),
                w: s.thumb_width,
                h: s.thumb_height,
            }
        })
        .collect();
    Strip {
        sprite,
        width: columns * s.thumb_width,
        height: rows * s.thumb_height,
        thumbs,
    }
}
