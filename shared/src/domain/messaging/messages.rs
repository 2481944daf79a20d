//! Messages of a conversation, private photo attachments and reports.
//!
//! Attachments: the client asks for an upload URL ([`upload_url`]), PUTs the photo there, then
//! posts the message with the returned key. Keys live in the `raw-uploads` store under
//! `messages/<workspace>/<conversation>/`, so a key can only be attached to the conversation it
//! was issued for, and the stored bytes must be a photo (JPEG, PNG, WebP, HEIC) for the message
//! to take it. Reading one goes through [`attachment`], which checks the caller takes part
//! and hands out a URL valid for five minutes.

use super::{Access, Side, open};
use crate::crypto::Keys;
use crate::db::{Db, Id, Ts};
use crate::domain::Actor;
use crate::domain::notifications::{self};
use crate::error::{Error, Result, Validator};
use crate::repo::messaging::{self, Message, RemovedReason, ReportReason};
use crate::repo::{audit, users};
use crate::storage::{Storage, Store};
use crate::video::sniff::{NEEDED, image_type};
use serde_json::json;
use std::time::Duration;

pub const MAX_BODY_CHARS: usize = 4000;
/// The largest photo the web application sends on: a phone's full-resolution HEIC or JPEG is
/// 2–15 MB.
pub const MAX_PHOTO_BYTES: u64 = 20 * 1024 * 1024;
/// Photo types a message may carry, with the key's extension.
pub const IMAGE_TYPES: &[(&str, &str)] = &[
    ("image/jpeg", "jpg"),
    ("image/png", "png"),
    ("image/webp", "webp"),
    ("image/heic", "heic"),
];
const UPLOAD_URL_TTL: Duration = Duration::from_secs(10 * 60);
/// Short, so a leaked URL to a private photo stops working soon.
pub const ATTACHMENT_URL_TTL: Duration = Duration::from_secs(5 * 60);

/// Where attachments are kept and how their URLs are signed.
#[derive(Clone, Copy)]
pub struct Attachments<'a> {
    pub storage: &'a Storage,
    pub keys: &'a Keys,
    /// The base of the signed URLs (`PUBLIC_BASE_URL`).
    pub public_base_url: &'a str,
}

fn attachment_prefix(org: Id, conv: Id) -> String {
    format!("messages/{org}/{conv}/")
}

/// `ttl` from now.
fn expiry(ttl: Duration) -> Ts {
    Ts::now().plus(chrono::Duration::seconds(ttl.as_secs() as i64))
}

/// A conversation's messages, newest first; reading them marks the conversation read (not for
/// a guardian).
pub async fn list(
    actor: &Actor,
    db: &Db,
    conv: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Message>> {
    let mut c = db.acquire().await?;
    let a = open(&mut c, actor.user_id, conv).await?;
    let rows = messaging::list_messages(&mut c, conv, limit, offset).await?;
    if a.side != Side::Guardian {
        messaging::mark_read(&mut c, conv, a.side == Side::Coach, Ts::now()).await?;
    }
    Ok(rows)
}

/// A message as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawMessage<'a> {
    /// Up to 4000 characters; may be empty when a photo is attached.
    pub body: &'a str,
    /// A key from [`upload_url`], already uploaded.
    pub attachment_key: Option<&'a str>,
}

/// Posts a message (the caller must take part and not be a guardian); the other participant
/// is notified (push and email), in the same transaction.
pub async fn post(
    actor: &Actor,
    db: &Db,
    files: Attachments<'_>,
    conv: Id,
    raw: RawMessage<'_>,
) -> Result<Message> {
    let access = {
        let mut c = db.acquire().await?;
        open(&mut c, actor.user_id, conv).await?
    };
    access.writable()?;
    let body = raw.body.trim();
    let mut v = Validator::new();
    if raw.attachment_key.is_none() && body.is_empty() {
        v.add("body", "required", "a message needs text or a photo");
    }
    v.check(
        body.chars().count() <= MAX_BODY_CHARS,
        "body",
        "too_long",
        "must be at most 4000 characters",
    );
    if let Some(key) = raw.attachment_key {
        let ours = key.starts_with(&attachment_prefix(access.conv.org_id, conv));
        // By its bytes, whatever the upload claimed (an S3 upload never passed our route).
        let photo = if ours {
            files
                .storage
                .read_head(Store::RawUploads, key, NEEDED as u64)
                .await
                .map_err(|e| Error::internal(anyhow::anyhow!("reading the attachment: {e}")))?
                .map(|head| image_type(&head))
        } else {
            None
        };
        match photo {
            Some(Some(_)) => {}
            Some(None) => v.add(
                "attachmentKey",
                "not_a_photo",
                "the attachment is not a JPEG, PNG, WebP or HEIC photo",
            ),
            None => v.add(
                "attachmentKey",
                "invalid",
                "not an uploaded attachment of this conversation",
            ),
        }
    }
    v.finish()?;
    let mut tx = db.begin().await?;
    let m = messaging::insert_message(
        &mut tx,
        &access.conv,
        actor.user_id,
        body,
        raw.attachment_key,
    )
    .await?;
    let sender = users::by_id(&mut tx, actor.user_id)
        .await?
        .map(|u| u.name)
        .unwrap_or_default();
    notifications::message_posted(
        &mut tx,
        access.other_user(),
        &access.conv,
        actor,
        &sender,
        &m,
    )
    .await?;
    tx.commit().await?;
    Ok(m)
}

/// A signed upload URL for a photo.
pub struct AttachmentUpload {
    /// Pass it as the message's attachment key.
    pub key: String,
    /// PUT the photo here with the same Content-Type.
    pub url: String,
    pub expires_at: Ts,
}

/// A signed URL to upload a photo (`content_type` one of [`IMAGE_TYPES`]) for this
/// conversation, valid 10 minutes. Guardians do not upload.
pub async fn upload_url(
    actor: &Actor,
    db: &Db,
    files: Attachments<'_>,
    conv: Id,
    content_type: &str,
) -> Result<AttachmentUpload> {
    let a = {
        let mut c = db.acquire().await?;
        open(&mut c, actor.user_id, conv).await?
    };
    a.writable()?;
    let ext = IMAGE_TYPES
        .iter()
        .find(|(t, _)| *t == content_type)
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            Error::field(
                "contentType",
                "invalid_choice",
                "must be one of image/jpeg, image/png, image/webp, image/heic",
            )
        })?;
    let key = format!(
        "{}{}.{ext}",
        attachment_prefix(a.conv.org_id, a.conv.id),
        Id::new()
    );
    let url = files
        .storage
        .presign_put(
            Store::RawUploads,
            &key,
            UPLOAD_URL_TTL,
            content_type,
            files.keys,
            files.public_base_url,
        )
        .await
        .map_err(|e| Error::internal(anyhow::anyhow!("presign: {e}")))?;
    Ok(AttachmentUpload {
        key,
        url,
        expires_at: expiry(UPLOAD_URL_TTL),
    })
}

/// A message the caller may see, with the conversation access (404 `message` otherwise).
async fn message_for(db: &Db, me: Id, id: Id) -> Result<(Message, Access)> {
    let mut c = db.acquire().await?;
    let m = messaging::message(&mut c, id)
        .await?
        .ok_or_else(|| Error::not_found("message"))?;
    let a = open(&mut c, me, m.conversation_id).await.map_err(|e| {
        if e.code == "not_found" {
            Error::not_found("message")
        } else {
            e
        }
    })?;
    Ok((m, a))
}

/// A signed URL to read a photo.
pub struct AttachmentLink {
    pub url: String,
    pub expires_at: Ts,
}

/// Resolves a message's photo to a URL valid for five minutes. Participants (and guardians)
/// only; a removed message has none.
pub async fn attachment(
    actor: &Actor,
    db: &Db,
    files: Attachments<'_>,
    message: Id,
) -> Result<AttachmentLink> {
    let (m, _) = message_for(db, actor.user_id, message).await?;
    let key = match (&m.attachment_key, m.removed_at) {
        (Some(k), None) => k,
        _ => return Err(Error::not_found("attachment")),
    };
    let url = files
        .storage
        .presign_get(
            Store::RawUploads,
            key,
            ATTACHMENT_URL_TTL,
            files.keys,
            files.public_base_url,
        )
        .await
        .map_err(|e| Error::internal(anyhow::anyhow!("presign: {e}")))?;
    Ok(AttachmentLink {
        url,
        expires_at: expiry(ATTACHMENT_URL_TTL),
    })
}

/// The sender removes their own message (it stays as a tombstone); audited.
pub async fn delete(actor: &Actor, db: &Db, id: Id) -> Result<()> {
    let (m, a) = message_for(db, actor.user_id, id).await?;
    if m.sender_user_id != Some(actor.user_id) {
        return Err(Error::forbidden(
            "permission_denied",
            "only the sender can delete a message",
        ));
    }
    let mut tx = db.begin().await?;
    if messaging::remove_message(&mut tx, id, actor.user_id, RemovedReason::Sender).await? {
        audit::record(
            &mut tx,
            actor.audit(
                Some(a.conv.org_id),
                "message.deleted",
                "message",
                Some(id.to_string()),
                json!({ "conversationId": a.conv.id }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A report on a message: why, and optionally more words (at most 1000 characters).
#[derive(Clone, Debug)]
pub struct NewReport {
    pub reason: ReportReason,
    pub details: Option<String>,
}

impl NewReport {
    pub fn parse(reason: &str, details: Option<&str>) -> Result<NewReport> {
        let mut v = Validator::new();
        let reason = v.choice_of::<ReportReason>("reason", reason);
        let details = details.map(str::trim).filter(|d| !d.is_empty());
        v.check(
            details.is_none_or(|d| d.chars().count() <= 1000),
            "details",
            "too_long",
            "must be at most 1000 characters",
        );
        v.finish()?;
        Ok(NewReport {
            reason: reason.expect("validated"),
            details: details.map(str::to_string),
        })
    }
}

/// A report filed.
pub struct Reported {
    pub id: Id,
    pub message_id: Id,
    pub reason: ReportReason,
    pub created_at: Ts,
}

/// A participant reports a message of the other side to the platform's moderators (400
/// `cannot_report_own_message`, 409 `already_reported` while their report is open); audited.
pub async fn report(actor: &Actor, db: &Db, id: Id, r: NewReport) -> Result<Reported> {
    let (m, a) = message_for(db, actor.user_id, id).await?;
    if m.sender_user_id == Some(actor.user_id) {
        return Err(Error::bad_request(
            "cannot_report_own_message",
            "you cannot report your own message",
        ));
    }
    let mut tx = db.begin().await?;
    let rid = messaging::insert_report(&mut tx, &m, actor.user_id, r.reason, r.details.as_deref())
        .await?
        .ok_or_else(|| {
            Error::conflict(
                "already_reported",
                "you already have an open report on this message",
            )
        })?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(a.conv.org_id),
            "message.reported",
            "message_report",
            Some(rid.to_string()),
            json!({ "messageId": m.id, "reason": r.reason }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(Reported {
        id: rid,
        message_id: m.id,
        reason: r.reason,
        created_at: Ts::now(),
    })
}
