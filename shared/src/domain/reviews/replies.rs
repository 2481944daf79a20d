//! The athlete's replies to a published review, from the phone: written or recorded. The
//! athlete of the review replies; a minor's guardian reads the replies along but does not write
//! (403 `guardian_read_only`, as in messaging); anyone else gets a 404. The coach who published
//! the review is notified through the notifications area, and reads the replies with the
//! review.
//!
//! A reply carries the phone's `clientReplyId`: sending the same one again returns the first
//! reply, so a retry after a lost answer neither duplicates it nor notifies twice.

use super::ReplyKind;
use crate::db::{Db, Id, Ts, Tx};
use crate::domain::notifications;
use crate::domain::{Actor, InWorkspace};
use crate::error::Validator;
use crate::job::Owner;
use crate::repo::notifications::NewNotification;
use crate::repo::review_audio::{self as audio, Reply};
use crate::repo::reviews::{self, Review};
use crate::repo::{athletes, audit};
use crate::{Error, Result};
use serde_json::json;

/// The longest written reply.
pub const MAX_TEXT_CHARS: usize = 4000;
/// The largest recorded reply (the same bound as a coach's voice note).
pub const MAX_BYTES: u64 = super::voice_notes::MAX_BYTES;

pub fn key(org: Id, review: Id, reply: Id) -> String {
    format!("reviews/{org}/{review}/replies/{reply}")
}

/// A published review the caller may read, and whether they are its athlete (false: a
/// guardian reading along). 404 otherwise.
async fn readable(tx: &mut Tx, actor: &Actor, review: Id) -> Result<(Review, bool)> {
    let r = reviews::readable(tx, actor.user_id, review)
        .await?
        .ok_or_else(|| Error::not_found("review"))?;
    let mine = match r.athlete_id {
        Some(a) => athletes::get(tx, r.org_id, a)
            .await?
            .is_some_and(|a| a.user_id == Some(actor.user_id)),
        None => false,
    };
    Ok((r, mine))
}

fn client_id(v: &mut Validator, id: Option<&str>) -> Option<String> {
    let id = id?.trim();
    v.check(
        !id.is_empty() && id.len() <= 100 && !id.chars().any(char::is_control),
        "clientReplyId",
        "invalid_format",
        "1 to 100 printable characters",
    );
    Some(id.to_string())
}

/// Before a recorded reply is read: 404 unless the review is readable, 403 for a guardian, 400
/// for a malformed client id. Returns the review's workspace (where the recording goes) and,
/// for a client id already used, the reply it made (nothing else to do).
pub async fn check(
    db: &Db,
    actor: &Actor,
    review: Id,
    client_reply_id: Option<&str>,
) -> Result<(Id, Option<Reply>)> {
    let mut v = Validator::new();
    let client = client_id(&mut v, client_reply_id);
    v.finish()?;
    let mut tx = db.begin().await?;
    let (r, mine) = readable(&mut tx, actor, review).await?;
    if !mine {
        return Err(guardian_read_only());
    }
    let existing = match &client {
        Some(c) => audio::reply_by_client_id(&mut tx, review, actor.user_id, c).await?,
        None => None,
    };
    tx.commit().await?;
    Ok((r.org_id, existing))
}

fn guardian_read_only() -> Error {
    Error::forbidden(
        "guardian_read_only",
        "guardians can read the replies to this review but not write them",
    )
}

/// A reply as sent: text, or a stored recording.
#[derive(Debug)]
pub enum Content<'a> {
    Text(&'a str),
    Voice {
        id: Id,
        object_key: String,
        content_type: String,
        size_bytes: u64,
    },
}

/// Stores the reply and notifies the coach, in one transaction. Returns the reply and whether
/// it is new (false: the same client id was used already; a recording sent with it is then
/// not kept and the caller deletes it).
pub async fn add(
    db: &Db,
    actor: &Actor,
    review: Id,
    client_reply_id: Option<&str>,
    content: Content<'_>,
) -> Result<(Reply, bool)> {
    let mut v = Validator::new();
    let client = client_id(&mut v, client_reply_id);
    let text = match &content {
        Content::Text(t) => {
            let t = t.trim();
            v.check(!t.is_empty(), "body", "required", "write something");
            v.check(
                t.chars().count() <= MAX_TEXT_CHARS,
                "body",
                "too_long",
                "must be at most 4000 characters",
            );
            Some(t.to_string())
        }
        Content::Voice { .. } => None,
    };
    v.finish()?;
    let mut tx = db.begin().await?;
    let (r, mine) = readable(&mut tx, actor, review).await?;
    if !mine {
        return Err(guardian_read_only());
    }
    let (id, kind, object_key, content_type, size) = match content {
        Content::Text(_) => (Id::new(), ReplyKind::Text, None, None, None),
        Content::Voice {
            id,
            object_key,
            content_type,
            size_bytes,
        } => (
            id,
            ReplyKind::Voice,
            Some(object_key),
            Some(content_type),
            Some(size_bytes as i64),
        ),
    };
    let reply = Reply {
        id,
        org_id: r.org_id,
        review_id: review,
        author_user_id: Some(actor.user_id),
        kind,
        body: text,
        object_key,
        content_type,
        size_bytes: size,
        client_reply_id: client.clone(),
        created_at: Ts::now(),
    };
    if !audio::insert_reply(&mut tx, &reply).await? {
        let first = match &client {
            Some(c) => audio::reply_by_client_id(&mut tx, review, actor.user_id, c).await?,
            None => None,
        }
        .ok_or_else(|| {
            Error::internal(anyhow::anyhow!("a reply conflicted without a client id"))
        })?;
        tx.commit().await?;
        return Ok((first, false));
    }
    notify_coach(&mut tx, actor, &r, &reply).await?;
    let data = json!({ "reviewId": review, "kind": reply.kind });
    let entry = actor.audit(
        Some(r.org_id),
        "review.reply",
        "review_reply",
        Some(reply.id.to_string()),
        data,
    );
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok((reply, true))
}

/// Tells the coach who published the review (or wrote it) that the athlete answered.
async fn notify_coach(tx: &mut Tx, actor: &Actor, r: &Review, reply: &Reply) -> Result<()> {
    let Some(coach) = r.published_by.or(r.created_by) else {
        return Ok(());
    };
    let who = match r.athlete_id {
        Some(a) => athletes::get(tx, r.org_id, a)
            .await?
            .map(|a| a.first_name)
            .unwrap_or_default(),
        None => String::new(),
    };
    let title = if who.is_empty() {
        "Your athlete replied to a review".to_string()
    } else {
        format!("{who} replied to a review")
    };
    let body = match &reply.body {
        Some(t) => t.chars().take(140).collect::<String>(),
        None => format!("A voice reply to \u{201c}{}\u{201d}", r.title),
    };
    let data = json!({ "reviewId": r.id, "replyId": reply.id });
    let dedupe = format!("review-reply:{}", reply.id);
    let created = crate::repo::notifications::insert(
        tx,
        &NewNotification {
            user_id: coach,
            org_id: Some(r.org_id),
            kind: "review.reply",
            title: &title,
            body: &body,
            data: &data,
            dedupe_key: Some(&dedupe),
        },
        notifications::DEFAULT_CHANNELS,
    )
    .await?;
    let owner = Owner {
        org_id: Some(r.org_id),
        user_id: Some(actor.user_id),
    };
    notifications::fan_out(tx, created.into_iter().collect(), owner).await?;
    Ok(())
}

/// The replies of a review the caller reads on the phone (its athlete or a guardian).
pub async fn for_reader(
    db: &Db,
    actor: &Actor,
    review: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Reply>> {
    let mut tx = db.begin().await?;
    readable(&mut tx, actor, review).await?;
    let rows = audio::replies(&mut tx, review, limit, offset).await?;
    tx.commit().await?;
    Ok(rows)
}

/// The replies of a review, for the workspace's coaches.
pub async fn for_coach(
    db: &Db,
    ws: &InWorkspace,
    review: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Reply>> {
    let mut tx = db.begin().await?;
    super::lifecycle::load(&mut tx, ws, review).await?;
    let rows = audio::replies(&mut tx, review, limit, offset).await?;
    tx.commit().await?;
    Ok(rows)
}
