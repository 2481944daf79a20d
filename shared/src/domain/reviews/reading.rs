//! The phone's side of reviews: an athlete (or a minor's guardian, reading along as in
//! messaging) reads the published reviews of a session and sends receipts. Reviews of other
//! athletes, drafts and other workspaces' reviews are simply not there (an empty list, 404).

use super::lifecycle::Full;
use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::repo::reviews::{self, Receipt};
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
