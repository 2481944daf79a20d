//! Clip-to-watch alignment and highlights.
//!
//! A clip's times are the camera's clock (`clips.recorded_at` plus the analysed ride windows'
//! milliseconds); samples and rides are the watch's. The alignment is one offset per clip:
//! **watch time = camera time + offset**, stored with how it was found and a confidence in
//! [0, 1]:
//!
//! - `clock`: each device measured its offset to the server with `GET /api/time`
//!   (`offset = server − device`, with the round trip it took): the offset is the camera's
//!   minus the watch's, uncertain by half of each round trip; confidence `1 − uncertainty/2 s`.
//! - `rides`: the clip's analysed ride windows are slid against the session's detected rides;
//!   every pairing of a clip ride with a watch ride proposes an offset (within ±2 minutes of a
//!   clock measurement when there is one, else ±12 hours), each proposal is scored by the
//!   rides it lines up (IoU ≥ 0.3) and refined to their mean start and end difference; the best
//!   wins. Confidence: the share of clip rides matched × their mean IoU, halved for a single
//!   ride and lowered when another offset explains the rides nearly as well.
//! - `manual`: a coach sets it (`PATCH`); confidence 1.
//!
//! A highlight is a ride's segment of each aligned clip that covers it, with 2 s before and
//! 1 s after, clamped to the clip.

use super::SyncMethod;
use super::accuracy::iou;
use super::sessions::{RideView, find, ride_view};
use crate::db::{Db, Executor, Id, Ts};
use crate::domain::InWorkspace;
use crate::providers::analysis::ClipStats;
use crate::repo::footage::{self, Clip};
use crate::repo::{audit, wearable};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::types::Json;

pub const PRE_ROLL_MS: i64 = 2000;
pub const POST_ROLL_MS: i64 = 1000;
const MATCH_IOU: f64 = 0.3;
const PRIOR_WINDOW_MS: i64 = 120_000;
const OPEN_WINDOW_MS: i64 = 12 * 3_600_000;

/// The best offset sliding `clip` rides onto `watch` rides, with its confidence and the number
/// of rides matched.
pub fn align_rides(
    clip: &[(i64, i64)],
    watch: &[(i64, i64)],
    prior: Option<i64>,
) -> Option<(i64, f64, usize)> {
    let window = if prior.is_some() {
        PRIOR_WINDOW_MS
    } else {
        OPEN_WINDOW_MS
    };
    let center = prior.unwrap_or(0);
    let evaluate = |d: i64| -> (f64, usize, i64) {
        let mut used = vec![false; watch.len()];
        let (mut sum, mut n, mut diff) = (0.0, 0usize, 0i64);
        for c in clip {
            let shifted = (c.0 + d, c.1 + d);
            let best = watch
                .iter()
                .enumerate()
                .filter(|(j, _)| !used[*j])
                .map(|(j, w)| (j, iou(shifted, *w)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((j, v)) = best
                && v >= MATCH_IOU
            {
                used[j] = true;
                sum += v;
                n += 1;
                diff += ((watch[j].0 - c.0) + (watch[j].1 - c.1)) / 2;
            }
        }
        let refined = if n > 0 { diff / n as i64 } else { d };
        (sum, n, refined)
    };
    let mut results: Vec<(f64, usize, i64)> = Vec::new();
    for c in clip {
        for w in watch {
            let d = w.0 - c.0;
            if (d - center).abs() > window {
                continue;
            }
            let (_, n, refined) = evaluate(d);
            if n == 0 {
                continue;
            }
            let (sum, n, _) = evaluate(refined);
            results.push((sum, n, refined));
        }
    }
    results.sort_by(|a, b| b.0.total_cmp(&a.0));
    let &(best_sum, n, offset) = results.first()?;
    if n == 0 {
        return None;
    }
    let runner_up = results
        .iter()
        .find(|r| (r.2 - offset).abs() > 2000)
        .map(|r| r.0)
        .unwrap_or(0.0);
    let mut conf = (n as f64 / clip.len() as f64) * (best_sum / n as f64);
    if n == 1 {
        conf *= 0.5;
    }
    conf *= 1.0 - 0.8 * (runner_up / best_sum).min(1.0);
    Some((offset, (conf * 1000.0).round() / 1000.0, n))
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncRequest {
    pub clip_id: Id,
    pub session_id: Id,
    /// `auto` (default: rides when both sides have them, else clock), `clock` or `rides`.
    pub method: Option<String>,
    /// The camera's `/api/time` measurement: server − camera clock, ms, and its round trip.
    pub camera_offset_ms: Option<i64>,
    pub camera_rtt_ms: Option<i64>,
    /// The watch's.
    pub watch_offset_ms: Option<i64>,
    pub watch_rtt_ms: Option<i64>,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncPatch {
    pub clip_id: Id,
    /// watch time = camera time + offsetMs.
    #[schema(minimum = -604_800_000, maximum = 604_800_000)]
    pub offset_ms: i64,
    /// Another session (default: the clip's current one).
    pub session_id: Option<Id>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncView {
    pub clip_id: Id,
    pub session_id: Id,
    pub offset_ms: i64,
    pub method: SyncMethod,
    pub confidence: f64,
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
    pub updated_at: Ts,
}

fn sync_view(s: &wearable::Sync) -> SyncView {
    SyncView {
        clip_id: s.clip_id,
        session_id: s.session_id,
        offset_ms: s.offset_ms,
        method: s.method,
        confidence: s.confidence,
        details: s.details.0.clone(),
        updated_at: s.updated_at,
    }
}

async fn clip_of(x: &mut impl Executor, ws: &InWorkspace, id: Id) -> Result<Clip> {
    footage::get_clip(x, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))
}

fn clip_rides(clip: &Clip) -> Vec<(i64, i64)> {
    let (Some(at), Some(stats)) = (clip.recorded_at, clip.stats.as_ref()) else {
        return Vec::new();
    };
    let Ok(stats) = serde_json::from_value::<ClipStats>(stats.0.clone()) else {
        return Vec::new();
    };
    let base = at.unix_millis();
    stats
        .rides
        .iter()
        .map(|r| (base + r.start_ms as i64, base + r.end_ms as i64))
        .collect()
}

/// The largest clock offset a device may report: 100 years.
const MAX_CLOCK_OFFSET_MS: u64 = 100 * 366 * 24 * 3_600_000;

fn clock(req: &SyncRequest) -> Option<(i64, f64, i64)> {
    let (c, w) = (req.camera_offset_ms?, req.watch_offset_ms?);
    let unc =
        (req.camera_rtt_ms.unwrap_or(1000).max(0) + req.watch_rtt_ms.unwrap_or(1000).max(0)) / 2;
    let conf = (1.0 - unc as f64 / 2000.0).clamp(0.05, 0.99);
    Some((c - w, (conf * 1000.0).round() / 1000.0, unc))
}

/// Aligns a clip with a session and stores it (replacing the clip's earlier alignment).
pub async fn align(db: &Db, ws: &InWorkspace, req: SyncRequest) -> Result<SyncView> {
    let method = req
        .method
        .as_deref()
        .map(str::trim)
        .unwrap_or("auto")
        .to_string();
    if !["auto", "clock", "rides"].contains(&method.as_str()) {
        return Err(Error::field(
            "method",
            "invalid_choice",
            "must be one of auto, clock, rides",
        ));
    }
    for (name, v) in [
        ("cameraRttMs", req.camera_rtt_ms),
        ("watchRttMs", req.watch_rtt_ms),
    ] {
        if v.is_some_and(|v| !(0..=60_000).contains(&v)) {
            return Err(Error::field(
                name,
                "out_of_range",
                "must be between 0 and 60000",
            ));
        }
    }
    // Clock offsets against /api/time: a device whose clock was never set is decades off,
    // but not centuries, and their difference must not overflow.
    for (name, v) in [
        ("cameraOffsetMs", req.camera_offset_ms),
        ("watchOffsetMs", req.watch_offset_ms),
    ] {
        if v.is_some_and(|v| v.unsigned_abs() > MAX_CLOCK_OFFSET_MS) {
            return Err(Error::field(
                name,
                "out_of_range",
                "must be within 100 years",
            ));
        }
    }
    let mut tx = db.begin().await?;
    let clip = clip_of(&mut tx, ws, req.clip_id).await?;
    let s = find(&mut tx, ws, req.session_id).await?;
    let clock = clock(&req);
    let crides = clip_rides(&clip);
    let wrides: Vec<(i64, i64)> = match &s.detector_version {
        Some(v) => wearable::rides(&mut tx, s.id, v)
            .await?
            .iter()
            .map(|r| (r.start_ms, r.end_ms))
            .collect(),
        None => Vec::new(),
    };
    let by_rides = || align_rides(&crides, &wrides, clock.map(|c| c.0));
    let (offset, method, confidence, details) = match method.as_str() {
        "clock" => {
            let (o, conf, unc) = clock.ok_or_else(|| {
                Error::field(
                    "cameraOffsetMs",
                    "required",
                    "the clock method needs cameraOffsetMs and watchOffsetMs",
                )
            })?;
            (o, SyncMethod::Clock, conf, json!({ "uncertaintyMs": unc }))
        }
        _ => match by_rides() {
            Some((o, conf, n)) => (
                o,
                SyncMethod::Rides,
                conf,
                json!({ "matchedRides": n, "clipRides": crides.len(), "watchRides": wrides.len(), "clockOffsetMs": clock.map(|c| c.0) }),
            ),
            None if method == "auto" && clock.is_some() => {
                let (o, conf, unc) = clock.expect("checked");
                (
                    o,
                    SyncMethod::Clock,
                    conf,
                    json!({ "uncertaintyMs": unc, "ridesMatched": 0 }),
                )
            }
            None => {
                return Err(Error::conflict(
                    "alignment_not_found",
                    if clip.recorded_at.is_none() {
                        "the clip has no recording time; send clock measurements or set the offset"
                            .to_string()
                    } else {
                        format!(
                            "no offset lines up the clip's {} analysed rides with the session's {} rides",
                            crides.len(),
                            wrides.len()
                        )
                    },
                ));
            }
        },
    };
    let now = Ts::now();
    let row = wearable::Sync {
        id: Id::new(),
        org_id: ws.org_id,
        clip_id: clip.id,
        session_id: s.id,
        offset_ms: offset,
        method,
        confidence,
        details: Json(details),
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    wearable::upsert_sync(&mut tx, &row).await?;
    let data = json!({ "sessionId": s.id, "method": method, "offsetMs": offset, "confidence": confidence });
    audit::record(
        &mut tx,
        ws.audit("wearable_sync.align", "clip", clip.id, data),
    )
    .await?;
    let stored = wearable::sync_of_clip(&mut tx, ws.org_id, clip.id)
        .await?
        .expect("just stored");
    tx.commit().await?;
    Ok(sync_view(&stored))
}

/// A coach sets the offset by hand.
pub async fn set_manual(db: &Db, ws: &InWorkspace, req: SyncPatch) -> Result<SyncView> {
    // unsigned_abs: i64::MIN has no positive counterpart (abs() overflowed: a 500).
    if req.offset_ms.unsigned_abs() > 7 * 24 * 3_600_000 {
        return Err(Error::field(
            "offsetMs",
            "out_of_range",
            "must be within a week",
        ));
    }
    let mut tx = db.begin().await?;
    let clip = clip_of(&mut tx, ws, req.clip_id).await?;
    let current = wearable::sync_of_clip(&mut tx, ws.org_id, clip.id).await?;
    let session = match (req.session_id, &current) {
        (Some(s), _) => find(&mut tx, ws, s).await?.id,
        (None, Some(c)) => c.session_id,
        (None, None) => {
            return Err(Error::field(
                "sessionId",
                "required",
                "the clip is not aligned yet: name the session",
            ));
        }
    };
    let now = Ts::now();
    let row = wearable::Sync {
        id: Id::new(),
        org_id: ws.org_id,
        clip_id: clip.id,
        session_id: session,
        offset_ms: req.offset_ms,
        method: SyncMethod::Manual,
        confidence: 1.0,
        details: Json(json!({ "previousOffsetMs": current.as_ref().map(|c| c.offset_ms) })),
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    wearable::upsert_sync(&mut tx, &row).await?;
    let data = json!({ "sessionId": session, "offsetMs": req.offset_ms });
    audit::record(
        &mut tx,
        ws.audit("wearable_sync.manual", "clip", clip.id, data),
    )
    .await?;
    let stored = wearable::sync_of_clip(&mut tx, ws.org_id, clip.id)
        .await?
        .expect("just stored");
    tx.commit().await?;
    Ok(sync_view(&stored))
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    clip: Option<Id>,
    session: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<SyncView>> {
    let mut c = db.acquire().await?;
    if let Some(clip) = clip {
        clip_of(&mut c, ws, clip).await?;
        return Ok(wearable::sync_of_clip(&mut c, ws.org_id, clip)
            .await?
            .iter()
            .map(sync_view)
            .collect());
    }
    if let Some(s) = session {
        find(&mut c, ws, s).await?;
    }
    Ok(wearable::syncs(&mut c, ws.org_id, session, limit, offset)
        .await?
        .iter()
        .map(sync_view)
        .collect())
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClipSegment {
    pub clip_id: Id,
    /// Milliseconds into the clip.
    pub start_ms: i64,
    pub end_ms: i64,
    pub method: SyncMethod,
    pub confidence: f64,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Highlight {
    #[serde(flatten)]
    pub ride: RideView,
    /// The aligned clips that cover the ride, best alignment first.
    pub clips: Vec<ClipSegment>,
}

/// Per-ride highlight definitions of a session, in ride order.
pub async fn highlights(
    db: &Db,
    ws: &InWorkspace,
    session: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Highlight>> {
    let mut c = db.acquire().await?;
    let s = find(&mut c, ws, session).await?;
    let rides = match &s.detector_version {
        Some(v) => wearable::rides(&mut c, s.id, v).await?,
        None => Vec::new(),
    };
    let syncs = wearable::syncs(&mut c, ws.org_id, Some(s.id), 500, 0).await?;
    let mut clips = Vec::new();
    for sy in &syncs {
        if let Some(k) = footage::get_clip(&mut c, ws.org_id, sy.clip_id).await?
            && let Some(at) = k.recorded_at
        {
            clips.push((sy.clone(), at.unix_millis() + sy.offset_ms, k.duration_ms()));
        }
    }
    let mut out = Vec::new();
    for r in rides.iter().skip(offset as usize).take(limit as usize) {
        let mut segs: Vec<ClipSegment> = clips
            .iter()
            .filter_map(|(sy, clip_start, dur)| {
                let a = r.start_ms - clip_start - PRE_ROLL_MS;
                let b = r.end_ms - clip_start + POST_ROLL_MS;
                let end_cap = dur.unwrap_or(i64::MAX);
                let (a, b) = (a.max(0), b.min(end_cap));
                (b > a && r.end_ms > *clip_start && r.start_ms < clip_start.saturating_add(end_cap))
                    .then_some(ClipSegment {
                        clip_id: sy.clip_id,
                        start_ms: a,
                        end_ms: b,
                        method: sy.method,
                        confidence: sy.confidence,
                    })
            })
            .collect();
        segs.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        out.push(Highlight {
            ride: ride_view(r),
            clips: segs,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rides_slide_onto_the_watch() {
        let watch = [
            (100_000, 110_000),
            (300_000, 305_000),
            (500_000, 520_000),
            (900_000, 903_000),
        ];
        let off = 37_250;
        let clip: Vec<(i64, i64)> = watch[..3]
            .iter()
            .map(|(a, b)| (a - off + 200, b - off - 100))
            .collect();
        let (o, conf, n) = align_rides(&clip, &watch, None).unwrap();
        assert_eq!(n, 3);
        assert!((o - off).abs() <= 200, "{o}");
        assert!(conf > 0.7, "{conf}");
        assert!(align_rides(&clip, &[], None).is_none());
        let (_, one, _) = align_rides(&clip[..1], &watch, None).unwrap();
        assert!(one < conf);
    }
}
