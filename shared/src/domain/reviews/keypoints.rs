//! Keypoints: timed notes on the clips of a review's session, the coach's or suggested from
//! the measurements ([`suggest`]). Edits are allowed while the review is a draft or ready.

use super::KeypointOrigin;
use super::lifecycle::load;
use super::status::{ReviewEvent, next};
use crate::db::{Db, Id, Ts, Tx};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::providers::analysis::ClipStats;
use crate::repo::audit;
use crate::repo::footage::{self, Clip};
use crate::repo::reviews::{self, Keypoint, Review};
use crate::{Error, Result};
use serde_json::{Value, json};
use sqlx::types::Json;

const TARGET: &str = "review_keypoint";

/// The largest drawing (serialized JSON) a keypoint may carry.
pub const MAX_DRAWING_BYTES: usize = 64 * 1024;

/// A keypoint as sent (POST), or a change (PATCH: absent fields stay, `Some(None)` clears).
#[derive(Debug, Default)]
pub struct RawKeypoint<'a> {
    pub clip_id: Option<Id>,
    pub at_ms: Option<i64>,
    pub end_ms: Option<Option<i64>>,
    pub body: Option<&'a str>,
    pub drawing: Option<Option<&'a Value>>,
    pub maneuver_type: Option<Option<&'a str>>,
}

/// Loads the review for an edit: it must take one (draft or ready).
async fn editable(tx: &mut Tx, ws: &InWorkspace, id: Id) -> Result<Review> {
    let r = load(tx, ws, id).await?;
    next(r.status, ReviewEvent::Edit)?;
    Ok(r)
}

async fn session_clip(tx: &mut Tx, ws: &InWorkspace, r: &Review, clip: Id) -> Result<Clip> {
    footage::get_clip(tx, ws.org_id, clip)
        .await?
        .filter(|k| k.session_id == r.session_id)
        .ok_or_else(|| {
            Error::field(
                "clipId",
                "not_found",
                "no such clip in the review's footage session",
            )
        })
}

/// Applies `raw` to `k`, checking every field.
fn apply(v: &mut Validator, k: &mut Keypoint, raw: &RawKeypoint<'_>) {
    if let Some(at) = raw.at_ms {
        k.at_ms = at;
    }
    if let Some(end) = raw.end_ms {
        k.end_ms = end;
    }
    if let Some(b) = raw.body {
        k.body = v.text("body", b, 2000);
        v.check(!k.body.is_empty(), "body", "required", "must not be empty");
    }
    if let Some(d) = raw.drawing {
        k.drawing = d.cloned().map(Json);
    }
    if let Some(t) = raw.maneuver_type {
        k.maneuver_type = t.map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty());
    }
    v.check(k.at_ms >= 0, "atMs", "out_of_range", "must not be negative");
    if let Some(end) = k.end_ms {
        v.check(end > k.at_ms, "endMs", "out_of_range", "must be after atMs");
    }
    if let Some(d) = &k.drawing {
        v.check(
            d.0.is_object() || d.0.is_array(),
            "drawing",
            "invalid_format",
            "must be a JSON object or array",
        );
        v.check(
            d.0.to_string().len() <= MAX_DRAWING_BYTES,
            "drawing",
            "too_long",
            "must be at most 64 KiB of JSON",
        );
    }
    if let Some(t) = &k.maneuver_type {
        v.check(
            t.len() <= 40
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "maneuverType",
            "invalid_format",
            "must be 1 to 40 letters, digits or underscores",
        );
    }
}

/// Adds a coach's keypoint.
pub async fn create(
    db: &Db,
    ws: &InWorkspace,
    review: Id,
    raw: &RawKeypoint<'_>,
) -> Result<Keypoint> {
    let mut v = Validator::new();
    v.check(
        raw.clip_id.is_some(),
        "clipId",
        "required",
        "the clip the note is on",
    );
    v.check(
        raw.at_ms.is_some(),
        "atMs",
        "required",
        "when in the clip, in milliseconds",
    );
    v.check(raw.body.is_some(), "body", "required", "the note");
    let now = Ts::now();
    let mut k = Keypoint {
        id: Id::new(),
        org_id: ws.org_id,
        review_id: review,
        clip_id: raw.clip_id.unwrap_or_default(),
        at_ms: 0,
        end_ms: None,
        body: String::new(),
        drawing: None,
        maneuver_type: None,
        origin: KeypointOrigin::Coach,
        suggestion_key: None,
        dismissed_at: None,
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    apply(&mut v, &mut k, raw);
    v.finish()?;
    let mut tx = db.begin().await?;
    let r = editable(&mut tx, ws, review).await?;
    let clip = session_clip(&mut tx, ws, &r, k.clip_id).await?;
    check_within(&clip, &k)?;
    reviews::insert_keypoint(&mut tx, &k).await?;
    reviews::touch(&mut tx, review).await?;
    let data = json!({ "reviewId": review, "clipId": k.clip_id });
    audit::record(
        &mut tx,
        ws.audit("review.keypoint_create", TARGET, k.id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(k)
}

/// A keypoint past the end of its clip (when the clip's length is known) is refused.
fn check_within(clip: &Clip, k: &Keypoint) -> Result<()> {
    if let Some(d) = clip.duration_ms()
        && k.end_ms.unwrap_or(k.at_ms) > d
    {
        return Err(Error::field(
            "atMs",
            "out_of_range",
            format!("the clip is {d} ms long"),
        ));
    }
    Ok(())
}

/// Changes a keypoint; a suggested keypoint the coach changes becomes the coach's.
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    review: Id,
    id: Id,
    raw: &RawKeypoint<'_>,
) -> Result<Keypoint> {
    let mut tx = db.begin().await?;
    let r = editable(&mut tx, ws, review).await?;
    let mut k = reviews::get_keypoint(&mut tx, review, id)
        .await?
        .ok_or_else(|| Error::not_found("keypoint"))?;
    if raw.clip_id.is_some_and(|c| c != k.clip_id) {
        return Err(Error::field(
            "clipId",
            "immutable",
            "a keypoint stays on its clip; add a new one instead",
        ));
    }
    let mut v = Validator::new();
    apply(&mut v, &mut k, raw);
    v.finish()?;
    let clip = session_clip(&mut tx, ws, &r, k.clip_id).await?;
    check_within(&clip, &k)?;
    k.origin = KeypointOrigin::Coach;
    reviews::update_keypoint(&mut tx, &k).await?;
    reviews::touch(&mut tx, review).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "review.keypoint_update",
            TARGET,
            id,
            json!({ "reviewId": review }),
        ),
    )
    .await?;
    let k = reviews::get_keypoint(&mut tx, review, id)
        .await?
        .ok_or_else(|| Error::not_found("keypoint"))?;
    tx.commit().await?;
    Ok(k)
}

/// Deletes a keypoint (a suggested one stays dismissed: suggesting again leaves it out).
pub async fn delete(db: &Db, ws: &InWorkspace, review: Id, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    editable(&mut tx, ws, review).await?;
    let k = reviews::get_keypoint(&mut tx, review, id)
        .await?
        .ok_or_else(|| Error::not_found("keypoint"))?;
    reviews::delete_keypoint(&mut tx, &k).await?;
    reviews::touch(&mut tx, review).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "review.keypoint_delete",
            TARGET,
            id,
            json!({ "reviewId": review }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The keypoints the measurements of one analysed clip suggest: one per ride window (its
/// length and top speed) and one per predicted maneuver (type and confidence). Deterministic:
/// the same stats give the same keypoints with the same keys.
pub fn suggestions(org: Id, review: Id, clip: &Clip, by: Id, now: Ts) -> Vec<Keypoint> {
    let Some(stats) = clip
        .stats
        .as_ref()
        .and_then(|s| serde_json::from_value::<ClipStats>(s.0.clone()).ok())
    else {
        return Vec::new();
    };
    let base =
        |at_ms: u64, end_ms: Option<u64>, body: String, kind: Option<String>, key: String| {
            Keypoint {
                id: Id::new(),
                org_id: org,
                review_id: review,
                clip_id: clip.id,
                at_ms: at_ms as i64,
                end_ms: end_ms.map(|e| e as i64),
                body,
                drawing: None,
                maneuver_type: kind,
                origin: KeypointOrigin::Suggested,
                suggestion_key: Some(key),
                dismissed_at: None,
                created_by: Some(by),
                created_at: now,
                updated_at: now,
            }
        };
    let mut out = Vec::new();
    for (i, ride) in stats.rides.iter().enumerate() {
        let secs = (ride.end_ms.saturating_sub(ride.start_ms)) as f64 / 1000.0;
        let speed = ride
            .top_speed_kmh
            .map(|s| format!(", top speed {s:.1} km/h"))
            .unwrap_or_default();
        out.push(base(
            ride.start_ms,
            Some(ride.end_ms),
            format!("Ride {}: {secs:.1} s{speed}", i + 1),
            None,
            format!("ride:{}:{i}", clip.id),
        ));
    }
    for (i, m) in stats.maneuvers.iter().enumerate() {
        out.push(base(
            m.at_ms,
            None,
            format!(
                "{} ({:.0}% confidence)",
                m.kind.replace('_', " "),
                m.confidence * 100.0
            ),
            Some(m.kind.clone()),
            format!("maneuver:{}:{i}", clip.id),
        ));
    }
    out
}

/// Adds the keypoints the session's analysed clips suggest. No model call. A second call adds
/// nothing twice, never touches a coach's keypoint and never brings back a dismissed one.
/// Returns how many were added.
pub async fn suggest(db: &Db, ws: &InWorkspace, review: Id) -> Result<u64> {
    let mut tx = db.begin().await?;
    let r = editable(&mut tx, ws, review).await?;
    let clips = footage::session_clips(&mut tx, r.session_id).await?;
    let now = Ts::now();
    let mut added = 0;
    for clip in clips.iter().filter(|k| k.org_id == ws.org_id) {
        for k in suggestions(ws.org_id, review, clip, ws.actor.user_id, now) {
            if reviews::insert_keypoint(&mut tx, &k).await? {
                added += 1;
            }
        }
    }
    if added > 0 {
        reviews::touch(&mut tx, review).await?;
    }
    let data = json!({ "added": added, "clips": clips.len() });
    audit::record(&mut tx, ws.audit("review.suggest", "review", review, data)).await?;
    tx.commit().await?;
    Ok(added)
}
