//! Resumable clip uploads from the phone (the tus 1.0 protocol is spoken by the api,
//! `api/src/areas/ingest.rs`; this is what it means for our data).
//!
//! An upload belongs to the member who created it and to a footage session. Each accepted
//! PATCH stores its bytes as one part object in raw-uploads and moves the offset
//! compare-and-set ([`commit_part`]); the PATCH that completes the upload enqueues the join
//! job, which streams the parts in order into the clip's original and makes the clip
//! ([`joined`]), whose id is the upload's id, so a re-run never makes a second clip.
//!
//! `uploading` → `joining` → `complete`, or `failed` (the join found the parts wrong) or
//! `expired` (no bytes for `UPLOAD_EXPIRY_HOURS`; cleaned by the `uploads-expire` task).

pub use crate::model::footage::UploadStatus;

use super::jobs::{DeleteObjects, JoinUpload, ProbeClip, StoredObject};
use super::{ClipStatus, keys};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::job::{Owner, enqueue};
use crate::repo::audit::{self, Entry};
use crate::repo::footage::{self, Clip};
use crate::repo::uploads::{self, Change, Upload};
use crate::storage::Store;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const TARGET: &str = "clip_upload";

/// The limits of uploads (`UPLOAD_MAX_BYTES`, `UPLOAD_EXPIRY_HOURS`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_bytes: u64,
    pub expiry: Duration,
}

impl Limits {
    pub fn from_config(cfg: &crate::config::Config) -> Self {
        Limits {
            max_bytes: cfg.upload_max_bytes,
            expiry: cfg.upload_expiry,
        }
    }

    fn expires_at(&self, now: Ts) -> Ts {
        now.plus(chrono::Duration::from_std(self.expiry).unwrap_or(chrono::Duration::hours(24)))
    }
}

/// A new upload as the client described it: `Upload-Length` and the decoded
/// `Upload-Metadata` pairs.
#[derive(Debug, Clone)]
pub struct NewUpload {
    pub length: u64,
    pub metadata: BTreeMap<String, String>,
}

/// The metadata keys we read (others are kept but ignored).
struct Meta {
    /// Optional when `clip_id` names a batch clip (its session is the clip's).
    session_id: Option<Id>,
    /// A clip a batch manifest made, waiting for this file.
    clip_id: Option<Id>,
    athlete_id: Option<Id>,
    file_name: String,
    client_upload_id: Option<String>,
    recorded_at: Option<Ts>,
}

fn meta_id(m: &BTreeMap<String, String>, key: &str) -> Result<Option<Id>> {
    m.get(key)
        .map(|v| {
            v.trim().parse::<Id>().map_err(|_| {
                Error::field(key, "invalid_format", "must be an id (in Upload-Metadata)")
            })
        })
        .transpose()
}

fn parse_meta(m: &BTreeMap<String, String>) -> Result<Meta> {
    let session_id = meta_id(m, "sessionId")?;
    let clip_id = meta_id(m, "clipId")?;
    if session_id.is_none() && clip_id.is_none() {
        return Err(Error::field(
            "sessionId",
            "required",
            "Upload-Metadata must name the footage session (sessionId) or a batch clip (clipId)",
        ));
    }
    let file_name = m
        .get("filename")
        .map(|f| f.trim().to_string())
        .unwrap_or_default();
    if (file_name.is_empty() && clip_id.is_none())
        || file_name.chars().count() > 255
        || file_name.contains(['/', '\\'])
        || file_name.chars().any(char::is_control)
    {
        return Err(Error::field(
            "filename",
            "invalid_format",
            "Upload-Metadata needs the file's name (filename): 1 to 255 characters, no slashes",
        ));
    }
    let client_upload_id = match m.get("clientUploadId").map(|s| s.trim()) {
        None | Some("") => None,
        Some(c) if c.len() <= 128 && c.bytes().all(|b| b.is_ascii_graphic()) => Some(c.to_string()),
        Some(_) => {
            return Err(Error::field(
                "clientUploadId",
                "invalid_format",
                "must be 1 to 128 printable ASCII characters",
            ));
        }
    };
    let recorded_at = m
        .get("recordedAt")
        .map(|v| {
            let t = crate::times::parse_rfc3339(v).ok_or_else(|| {
                Error::field("recordedAt", "invalid_format", "must be an RFC 3339 time")
            })?;
            let mut check = crate::error::Validator::new();
            check.time("recordedAt", t, crate::times::TimeKind::Recorded);
            check.finish().map(|()| t)
        })
        .transpose()?;
    Ok(Meta {
        session_id,
        clip_id,
        athlete_id: meta_id(m, "athleteId")?,
        file_name,
        client_upload_id,
        recorded_at,
    })
}

/// Creates an upload, or returns the caller's upload with the same `clientUploadId` (then
/// `true`): the same client upload never makes two uploads, nor two clips.
pub async fn create(
    db: &Db,
    ws: &InWorkspace,
    limits: Limits,
    new: NewUpload,
) -> Result<(Upload, bool)> {
    let mut meta = parse_meta(&new.metadata)?;
    if new.length == 0 {
        return Err(Error::field(
            "Upload-Length",
            "out_of_range",
            "an empty file is no video",
        ));
    }
    if new.length > limits.max_bytes {
        return Err(Error::new(
            crate::ErrorKind::PayloadTooLarge,
            "upload_too_large",
            format!("a clip may have at most {} bytes", limits.max_bytes),
        ));
    }
    let length = i64::try_from(new.length).map_err(|_| Error::payload_too_large("too long"))?;
    let mut tx = db.begin().await?;
    if let Some(clip_id) = meta.clip_id {
        let k = footage::get_clip(&mut tx, ws.org_id, clip_id)
            .await?
            .ok_or_else(|| Error::not_found("clip"))?;
        if k.status != ClipStatus::AwaitingUpload {
            return Err(Error::conflict(
                "clip_not_awaiting_upload",
                format!("the clip is {} and takes no file", k.status),
            ));
        }
        if meta.session_id.is_some_and(|s| s != k.session_id) {
            return Err(Error::field(
                "sessionId",
                "mismatch",
                "the clip belongs to another footage session",
            ));
        }
        meta.session_id = Some(k.session_id);
        if meta.file_name.is_empty() {
            meta.file_name = k.file_name.clone();
        }
        if meta.client_upload_id.is_none() {
            // One upload per batch clip and member, however often the client starts over.
            meta.client_upload_id = Some(format!("clip:{clip_id}"));
        }
    }
    let session_id = meta.session_id.expect("a session or a clip's");
    footage::get_session(&mut tx, ws.org_id, session_id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    if let Some(a) = meta.athlete_id
        && crate::repo::athletes::get(&mut tx, ws.org_id, a)
            .await?
            .is_none()
    {
        return Err(Error::field(
            "athleteId",
            "not_found",
            "no such athlete in this workspace",
        ));
    }
    let now = Ts::now();
    let mut stored_meta: BTreeMap<String, Value> = new
        .metadata
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    stored_meta.insert("filename".into(), Value::String(meta.file_name.clone()));
    if let Some(t) = meta.recorded_at {
        stored_meta.insert("recordedAt".into(), Value::String(t.to_rfc3339()));
    }
    let u = Upload {
        id: Id::new(),
        org_id: ws.org_id,
        user_id: ws.actor.user_id,
        client_upload_id: meta.client_upload_id.clone(),
        session_id,
        clip_id: meta.clip_id,
        length,
        upload_offset: 0,
        parts: 0,
        metadata: sqlx::types::Json(json!(stored_meta)),
        status: UploadStatus::Uploading,
        content_type: None,
        job_id: None,
        failure: None,
        expires_at: limits.expires_at(now),
        created_at: now,
        updated_at: now,
    };
    if !uploads::insert(&mut tx, &u).await? {
        let client_id = meta.client_upload_id.as_deref().unwrap_or_default();
        let existing = uploads::by_client_id(&mut tx, ws.org_id, ws.actor.user_id, client_id)
            .await?
            .ok_or_else(|| Error::internal(anyhow::anyhow!("upload conflict without a row")))?;
        if existing.length != length || existing.session_id != session_id {
            return Err(Error::conflict(
                "upload_conflict",
                "this clientUploadId is taken by an upload of another file or session",
            ));
        }
        return Ok((existing, true));
    }
    let data = json!({ "sessionId": u.session_id, "length": length, "fileName": meta.file_name });
    audit::record(&mut tx, ws.audit("clip_upload.create", TARGET, u.id, data)).await?;
    tx.commit().await?;
    Ok((u, false))
}

/// The caller's own upload (another member's, or another workspace's, is a 404).
pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<Upload> {
    let mut c = db.acquire().await?;
    uploads::get(&mut c, ws.org_id, id)
        .await?
        .filter(|u| u.user_id == ws.actor.user_id)
        .ok_or_else(|| Error::not_found("upload"))
}

/// Checks that bytes at `offset` may be appended to the upload now: it is still uploading
/// (410 `upload_expired`, 409 `upload_finished` otherwise) and `offset` is where it stands
/// (409 `upload_offset_mismatch`: the client should ask for the offset and resume there).
pub async fn check_append(db: &Db, ws: &InWorkspace, id: Id, offset: i64) -> Result<Upload> {
    let u = get(db, ws, id).await?;
    match u.status {
        UploadStatus::Uploading if u.expires_at.0 < Ts::now().0 => Err(expired()),
        UploadStatus::Uploading => {
            if offset != u.upload_offset {
                return Err(offset_mismatch(u.upload_offset));
            }
            Ok(u)
        }
        UploadStatus::Expired => Err(expired()),
        _ => Err(Error::conflict(
            "upload_finished",
            "the upload has all its bytes already",
        )),
    }
}

fn expired() -> Error {
    Error::gone(
        "upload_expired",
        "the upload waited too long for its bytes; start a new one",
    )
}

fn offset_mismatch(at: i64) -> Error {
    Error::conflict(
        "upload_offset_mismatch",
        format!("the upload stands at byte {at}; resume from there"),
    )
}

/// The part object key for bytes written at `offset` by one PATCH: unique per PATCH (a random
/// tail), so a PATCH that loses the race to another deletes only its own object. Kept short:
/// some S3-compatible servers map keys to file names.
pub fn part_key(org: Id, upload: Id, offset: i64) -> String {
    format!(
        "{}{offset}.{}",
        keys::upload_parts(org, upload),
        hex::encode(crate::crypto::random_bytes(4))
    )
}

/// Records `size` bytes at `offset`, stored as `key`. The PATCH that completes the upload
/// enqueues the join. An error means the part was not recorded: the caller deletes its object.
#[allow(clippy::too_many_arguments)]
pub async fn commit_part(
    db: &Db,
    ws: &InWorkspace,
    limits: Limits,
    upload: &Upload,
    offset: i64,
    size: i64,
    key: &str,
    content_type: Option<&str>,
) -> Result<Upload> {
    let mut tx = db.begin().await?;
    let expires_at = limits.expires_at(Ts::now());
    if !uploads::add_part(
        &mut tx,
        upload.id,
        offset,
        size,
        key,
        content_type,
        expires_at,
    )
    .await?
    {
        // Someone moved the upload meanwhile: report where it stands now.
        let now = uploads::get(&mut tx, ws.org_id, upload.id).await?;
        return Err(match now {
            Some(u) if u.status == UploadStatus::Uploading => offset_mismatch(u.upload_offset),
            Some(u) if u.status == UploadStatus::Expired => expired(),
            Some(_) => Error::conflict("upload_finished", "the upload has all its bytes already"),
            None => Error::not_found("upload"),
        });
    }
    if offset + size == upload.length {
        let work = JoinUpload {
            org_id: ws.org_id,
            upload_id: upload.id,
        };
        let queued = enqueue(
            &mut tx,
            &work,
            Owner::new(work.org_id, Some(ws.actor.user_id)),
        )
        .await?;
        let change = Change {
            job_id: Some(queued.id),
            ..Change::default()
        };
        uploads::set_status(
            &mut tx,
            upload.id,
            UploadStatus::Uploading,
            UploadStatus::Joining,
            change,
        )
        .await?;
    }
    let u = uploads::get(&mut tx, ws.org_id, upload.id)
        .await?
        .ok_or_else(|| Error::not_found("upload"))?;
    tx.commit().await?;
    Ok(u)
}

/// The tus termination: an unfinished upload and its parts go (the parts through a job).
/// A joined upload is the clip's now: delete the clip instead (409 `upload_finished`).
pub async fn terminate(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let u = get(db, ws, id).await?;
    if matches!(u.status, UploadStatus::Joining | UploadStatus::Complete) {
        return Err(Error::conflict(
            "upload_finished",
            "the upload is complete; delete its clip instead",
        ));
    }
    let mut tx = db.begin().await?;
    uploads::delete(&mut tx, id).await?;
    enqueue_part_cleanup(&mut tx, &u, Some(ws.actor.user_id)).await?;
    let data = json!({ "offset": u.upload_offset, "length": u.length });
    audit::record(&mut tx, ws.audit("clip_upload.terminate", TARGET, id, data)).await?;
    tx.commit().await?;
    Ok(())
}

async fn enqueue_part_cleanup(tx: &mut crate::db::Tx, u: &Upload, user: Option<Id>) -> Result<()> {
    let work = DeleteObjects {
        org_id: u.org_id,
        owner: format!("upload:{}", u.id),
        objects: Vec::new(),
        prefixes: vec![StoredObject::new(
            Store::RawUploads,
            keys::upload_parts(u.org_id, u.id),
        )],
    };
    enqueue(tx, &work, Owner::new(work.org_id, user)).await?;
    Ok(())
}

// ---- the worker's side ----

/// The upload, whatever its owner (jobs carry the workspace they were made in).
pub async fn load(db: &Db, org: Id, id: Id) -> Result<Option<Upload>> {
    let mut c = db.acquire().await?;
    Ok(uploads::get(&mut c, org, id).await?)
}

pub async fn parts(db: &Db, id: Id) -> Result<Vec<uploads::Part>> {
    let mut c = db.acquire().await?;
    Ok(uploads::parts(&mut c, id).await?)
}

/// The clip an upload's bytes belong to: the batch clip it names, or a new clip with the
/// upload's id.
pub fn clip_id(u: &Upload) -> Id {
    u.clip_id.unwrap_or(u.id)
}

/// The clip of upload `u`, whose original (`keys::original` of [`clip_id`]) now holds all
/// `u.length` bytes: the clip is `uploaded` (made now, or the batch clip that waited for it),
/// the upload `complete`, and a probe is enqueued. A re-run finds the upload complete and
/// returns its clip.
pub async fn joined(db: &Db, u: &Upload) -> Result<Clip> {
    if u.clip_id.is_some() {
        return joined_batch_clip(db, u).await;
    }
    let mut tx = db.begin().await?;
    let now = Ts::now();
    let file_name = u.metadata.0["filename"]
        .as_str()
        .unwrap_or("clip")
        .to_string();
    let recorded_at = u.metadata.0["recordedAt"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| Ts::from_datetime(t.into()));
    let athlete_id = u.metadata.0["athleteId"]
        .as_str()
        .and_then(|a| a.parse::<Id>().ok());
    let clip = Clip {
        id: u.id,
        org_id: u.org_id,
        session_id: u.session_id,
        athlete_id,
        file_name,
        status: ClipStatus::Uploaded,
        status_code: None,
        status_message: None,
        progress: 0,
        raw_key: Some(keys::original(u.org_id, u.session_id, u.id)),
        source_url: None,
        size_bytes: Some(u.length),
        content_type: u.content_type.clone(),
        probe: None,
        analysis_generation: 0,
        analysis_id: None,
        analysis_result: None,
        job_id: None,
        stats: None,
        video_key: None,
        video_size: None,
        overlay_key: None,
        overlay_size: None,
        batch_id: None,
        batch_row: None,
        recorded_at,
        created_by: Some(u.user_id),
        created_at: now,
        updated_at: now,
        status_changed_at: now,
    };
    if !uploads::set_status(
        &mut tx,
        u.id,
        UploadStatus::Joining,
        UploadStatus::Complete,
        Change::default(),
    )
    .await?
    {
        return footage::get_clip(&mut tx, u.org_id, u.id)
            .await?
            .ok_or_else(|| Error::conflict("upload_not_joining", "the upload is not joining"));
    }
    // An athlete deleted while the upload ran is simply not linked.
    let mut clip = clip;
    if let Some(a) = clip.athlete_id
        && crate::repo::athletes::get(&mut tx, u.org_id, a)
            .await?
            .is_none()
    {
        clip.athlete_id = None;
    }
    footage::insert_clip(&mut tx, &clip).await?;
    uploads::set_status(
        &mut tx,
        u.id,
        UploadStatus::Complete,
        UploadStatus::Complete,
        Change {
            clip_id: Some(clip.id),
            ..Change::default()
        },
    )
    .await?;
    let work = ProbeClip {
        org_id: u.org_id,
        clip_id: clip.id,
    };
    let queued = enqueue(&mut tx, &work, Owner::new(work.org_id, Some(u.user_id))).await?;
    footage::set_job(&mut tx, clip.id, queued.id).await?;
    audit::record(&mut tx, uploaded_entry(u, clip.id)).await?;
    let clip = footage::get_clip(&mut tx, u.org_id, clip.id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))?;
    tx.commit().await?;
    Ok(clip)
}

fn uploaded_entry(u: &Upload, clip: Id) -> Entry<'static> {
    Entry {
        org_id: Some(u.org_id),
        actor: Some(u.user_id),
        impersonator: None,
        action: "clip.uploaded",
        target_type: "clip",
        target_id: Some(clip.to_string()),
        data: json!({ "uploadId": u.id, "sessionId": u.session_id, "bytes": u.length }),
    }
}

/// [`joined`] for a batch clip: the clip waiting for the file takes it.
async fn joined_batch_clip(db: &Db, u: &Upload) -> Result<Clip> {
    let id = clip_id(u);
    let mut tx = db.begin().await?;
    let moved = uploads::set_status(
        &mut tx,
        u.id,
        UploadStatus::Joining,
        UploadStatus::Complete,
        Change::default(),
    )
    .await?;
    let k = footage::get_clip(&mut tx, u.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))?;
    if !moved {
        return Ok(k);
    }
    let to = super::status::next(k.status, super::ClipEvent::UploadCompleted)?;
    let work = ProbeClip {
        org_id: u.org_id,
        clip_id: id,
    };
    let queued = enqueue(&mut tx, &work, Owner::new(work.org_id, Some(u.user_id))).await?;
    let change = footage::Change {
        raw: Some((
            keys::original(u.org_id, u.session_id, id),
            u.length,
            u.content_type
                .clone()
                .unwrap_or_else(|| "application/octet-stream".into()),
        )),
        job_id: Some(queued.id),
        ..footage::Change::default()
    };
    if !footage::set_status(&mut tx, id, k.status, to, change).await? {
        return Err(Error::conflict(
            "clip_state_changed",
            "the clip changed while its file was joined",
        ));
    }
    audit::record(&mut tx, uploaded_entry(u, id)).await?;
    let k = footage::get_clip(&mut tx, u.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))?;
    tx.commit().await?;
    Ok(k)
}

/// The join found the upload unusable (parts missing or the wrong size): it fails for good,
/// and its parts are cleaned.
pub async fn join_failed(db: &Db, u: &Upload, reason: &str) -> Result<()> {
    let mut tx = db.begin().await?;
    let change = Change {
        failure: Some(reason.to_string()),
        ..Change::default()
    };
    if uploads::set_status(
        &mut tx,
        u.id,
        UploadStatus::Joining,
        UploadStatus::Failed,
        change,
    )
    .await?
    {
        enqueue_part_cleanup(&mut tx, u, None).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The most uploads one run of the expiry task handles (the next run takes the rest).
pub const EXPIRE_BATCH: i64 = 500;

/// Expires uploads that waited past their time for bytes, and enqueues the removal of
/// their parts. Returns how many expired.
pub async fn expire(db: &Db, now: Ts) -> Result<u64> {
    let mut tx = db.begin().await?;
    let due = uploads::expired(&mut tx, now, EXPIRE_BATCH).await?;
    let mut n = 0;
    for u in &due {
        if uploads::set_status(
            &mut tx,
            u.id,
            UploadStatus::Uploading,
            UploadStatus::Expired,
            Change::default(),
        )
        .await?
        {
            enqueue_part_cleanup(&mut tx, u, None).await?;
            n += 1;
        }
    }
    tx.commit().await?;
    Ok(n)
}
