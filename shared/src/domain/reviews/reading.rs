//! The phone's side of reviews: an athlete (or a minor's guardian, reading along as in
//! messaging) reads the published reviews of a session and sends receipts. Reviews of other
//! athletes, drafts and other workspaces' reviews are simply not there (an empty list, 404).

use super::lifecycle::Full;
use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::domain::footage::clips::{VideoVariant, source_of};
use crate::repo::reviews::{self, Receipt, Review};
use crate::repo::{athletes, footage};
use crate::video::token::VideoSource;
use crate::{Error, Result};

/// The published reviews of footage session `session` the caller may read, with keypoints
/// and voice notes.
pub async fn session_reviews(db: &Db, actor: &Actor, session: Id) -> Result<Vec<Full>> {
    let mut c = db.acquire().await?;
    let mut out = Vec::new();
    for r in reviews::readable_in_session(&mut c, actor.user_id, session).await? {
        out.push(super::lifecycle::full(&mut c, r).await?);
    }
    Ok(out)
}

/// The published reviews the caller may read, newest first (the web's list of them; the
/// phone reads them by session).
pub async fn mine(db: &Db, actor: &Actor, limit: i64, offset: i64) -> Result<Vec<Review>> {
    let mut c = db.acquire().await?;
    Ok(reviews::readable_list(&mut c, actor.user_id, limit, offset).await?)
}

/// A published review as its reader opens it.
#[derive(Debug, Clone)]
pub struct Opened {
    pub full: Full,
    /// The athlete it is for, by name.
    pub athlete: String,
    /// The reader is the athlete (false: a guardian reading along, who does not reply).
    pub is_athlete: bool,
}

/// The published review `id` with what it is made of, if the caller may read it (404
/// otherwise, as for the phone).
pub async fn open(db: &Db, actor: &Actor, id: Id) -> Result<Opened> {
    let mut c = db.acquire().await?;
    let r = reviews::readable(&mut c, actor.user_id, id)
        .await?
        .ok_or_else(|| Error::not_found("review"))?;
    let a = match r.athlete_id {
        Some(a) => athletes::get(&mut c, r.org_id, a).await?,
        None => None,
    };
    let full = super::lifecycle::full(&mut c, r).await?;
    Ok(Opened {
        full,
        athlete: a
            .as_ref()
            .map(|a| format!("{} {}", a.first_name, a.last_name))
            .unwrap_or_default(),
        is_athlete: a.is_some_and(|a| a.user_id == Some(actor.user_id)),
    })
}

/// The source of a clip of a review the caller may read (the athlete's player): a clip of the
/// review's footage session, else 404.
pub async fn clip_source(
    db: &Db,
    actor: &Actor,
    review: Id,
    clip: Id,
) -> Result<(VideoVariant, VideoSource)> {
    let mut c = db.acquire().await?;
    let r = reviews::readable(&mut c, actor.user_id, review)
        .await?
        .ok_or_else(|| Error::not_found("review"))?;
    let k = footage::get_clip(&mut c, r.org_id, clip)
        .await?
        .filter(|k| k.session_id == r.session_id)
        .ok_or_else(|| Error::not_found("clip"))?;
    let media = crate::repo::clip_media::get(&mut c, r.org_id, clip)
        .await?
        .filter(|m| m.status == crate::domain::footage::media::MediaStatus::Ready)
        .and_then(|m| m.manifest);
    source_of(&k, media.as_ref().map(|m| &m.0), None)
}

/// A device's receipt: delivered, or opened (which is delivered too). Idempotent per reader
/// and device: the first delivery and the first opening are kept.
pub async fn receipt(
    db: &Db,
    actor: &Actor,
    review: Id,
    device: &str,
    opened: bool,
) -> Result<Receipt> {
    let device = device.trim();
    if device.is_empty() || device.len() > 200 || device.chars().any(char::is_control) {
        return Err(Error::field(
            "deviceId",
            "invalid_format",
            "the device's id: 1 to 200 printable characters",
        ));
    }
    let mut tx = db.begin().await?;
    reviews::readable(&mut tx, actor.user_id, review)
        .await?
        .ok_or_else(|| Error::not_found("review"))?;
    let r = reviews::record_receipt(&mut tx, review, actor.user_id, device, opened).await?;
    tx.commit().await?;
    Ok(r)
}

/// The receipts of a review, for its coach.
pub async fn receipts(db: &Db, review: Id) -> Result<Vec<Receipt>> {
    let mut c = db.acquire().await?;
    Ok(reviews::receipts(&mut c, review).await?)
}
