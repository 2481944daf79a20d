//! The coach's voice notes on a review, and their transcription while the review builds.
//!
//! A note is audio in the raw-uploads store (`reviews/<workspace>/<review>/notes/<note>`),
//! checked by its first bytes and size when it arrives. Adding or deleting one is an edit of
//! the review (a `ready` review goes back to `draft`; a `building` or `published` one takes
//! none).
//!
//! Transcription is best-effort: the build ([`start_transcriptions`]) asks for one child job
//! per note without a transcript; each child records its outcome ([`record`]) and the last one
//! to finish makes the review `ready` ([`finish_build`]). A note whose transcription is not
//! configured, refused or keeps failing stays playable with no transcript and a reason, and the
//! build still ends. A note with a transcript is never sent again, so a rebuild pays nothing
//! twice.

use super::jobs::TranscribeNote;
use super::lifecycle::load;
use super::status::{ReviewEvent, next};
use super::{ReviewStatus, TranscriptStatus};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::job::{Owner, enqueue};
use crate::repo::review_audio::{self as audio, VoiceNote};
use crate::repo::{audit, reviews};
use crate::{Error, Result};
use serde_json::json;

/// The largest voice note: about 25 minutes of AAC at 128 kbit/s, and what hosted
/// transcription APIs take in one request.
pub const MAX_BYTES: u64 = 25 * 1024 * 1024;

/// The most notes one review holds (a review is read in one sitting).
pub const MAX_NOTES: i64 = 50;

/// Why a note has no transcript when no model is configured.
pub const NOT_CONFIGURED: &str = "no transcription model is configured";

pub fn key(org: Id, review: Id, note: Id) -> String {
    format!("reviews/{org}/{review}/notes/{note}")
}

/// The file name a transcription API is told (its format is read from the extension).
pub fn file_name(note: &VoiceNote) -> String {
    let ext = match note.content_type.as_str() {
        "audio/mpeg" => "mp3",
        "audio/aac" => "aac",
        "audio/wav" => "wav",
        "audio/ogg" => "ogg",
        "audio/webm" => "webm",
        _ => "m4a",
    };
    format!("note-{}.{ext}", note.id)
}

async fn check_keypoint(tx: &mut crate::db::Tx, review: Id, keypoint: Option<Id>) -> Result<()> {
    if let Some(k) = keypoint
        && reviews::get_keypoint(tx, review, k).await?.is_none()
    {
        return Err(Error::field(
            "keypointId",
            "not_found",
            "no such keypoint on this review",
        ));
    }
    Ok(())
}

/// Whether a note may be added now (the review exists in the workspace and takes edits, the
/// keypoint is its own): asked before the audio is read, so a refusal costs no upload.
pub async fn check_add(db: &Db, ws: &InWorkspace, review: Id, keypoint: Option<Id>) -> Result<()> {
    let mut tx = db.begin().await?;
    check_room(&mut tx, ws, review, keypoint).await?;
    tx.commit().await?;
    Ok(())
}

async fn check_room(
    tx: &mut crate::db::Tx,
    ws: &InWorkspace,
    review: Id,
    keypoint: Option<Id>,
) -> Result<()> {
    let r = load(tx, ws, review).await?;
    next(r.status, ReviewEvent::Edit)?;
    check_keypoint(tx, review, keypoint).await?;
    if audio::count(tx, review).await? >= MAX_NOTES {
        return Err(Error::conflict(
            "too_many_voice_notes",
            format!("a review holds at most {MAX_NOTES} voice notes"),
        ));
    }
    Ok(())
}

/// A stored recording, to become a note.
#[derive(Debug)]
pub struct Recorded {
    pub id: Id,
    pub keypoint_id: Option<Id>,
    pub object_key: String,
    pub content_type: String,
    pub size_bytes: u64,
}

/// Adds the stored recording as a note. On an error the caller deletes the object (its key is
/// the note's own).
pub async fn add(db: &Db, ws: &InWorkspace, review: Id, rec: &Recorded) -> Result<VoiceNote> {
    let mut tx = db.begin().await?;
    check_room(&mut tx, ws, review, rec.keypoint_id).await?;
    let now = Ts::now();
    let n = VoiceNote {
        id: rec.id,
        org_id: ws.org_id,
        review_id: review,
        keypoint_id: rec.keypoint_id,
        object_key: rec.object_key.clone(),
        content_type: rec.content_type.clone(),
        size_bytes: rec.size_bytes as i64,
        transcript: None,
        transcript_status: TranscriptStatus::Pending,
        transcript_reason: None,
        transcript_model: None,
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    audio::insert_note(&mut tx, &n).await?;
    reviews::touch(&mut tx, review).await?;
    let data =
        json!({ "reviewId": review, "sizeBytes": n.size_bytes, "contentType": n.content_type });
    audit::record(
        &mut tx,
        ws.audit("review.voice_note.add", "voice_note", n.id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(n)
}

/// The review's notes (404 for another workspace's review).
pub async fn list(db: &Db, ws: &InWorkspace, review: Id) -> Result<Vec<VoiceNote>> {
    let mut tx = db.begin().await?;
    load(&mut tx, ws, review).await?;
    let notes = audio::notes(&mut tx, review).await?;
    tx.commit().await?;
    Ok(notes)
}

/// Deletes a note of an editable review; its audio goes with a job.
pub async fn delete(db: &Db, ws: &InWorkspace, review: Id, note: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let r = load(&mut tx, ws, review).await?;
    let n = audio::get_note(&mut tx, ws.org_id, note)
        .await?
        .filter(|n| n.review_id == review)
        .ok_or_else(|| Error::not_found("voice note"))?;
    next(r.status, ReviewEvent::Edit)?;
    audio::delete_note(&mut tx, n.id).await?;
    reviews::touch(&mut tx, review).await?;
    let job = super::jobs::delete_recordings(
        ws.org_id,
        format!("voice_note {}", n.id),
        vec![n.object_key.clone()],
    );
    enqueue(&mut tx, &job, Owner::new(ws.org_id, None)).await?;
    let data = json!({ "reviewId": review });
    audit::record(
        &mut tx,
        ws.audit("review.voice_note.delete", "voice_note", n.id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The build's first step: every note without a transcript is asked for again, one child job
/// each (a note whose job is still live keeps it). With no model configured (`model` false)
/// they are `skipped` instead. Returns how many notes the build now waits for; 0 when the
/// review is no longer building (deleted or changed meanwhile).
pub async fn start_transcriptions(db: &Db, org: Id, review: Id, model: bool) -> Result<i64> {
    let mut tx = db.begin().await?;
    let Some(r) = reviews::get(&mut tx, org, review).await? else {
        return Ok(0);
    };
    if r.status != ReviewStatus::Building {
        return Ok(0);
    }
    for n in audio::notes(&mut tx, review).await? {
        if n.transcript_status == TranscriptStatus::Done {
            continue;
        }
        if !model {
            audio::set_pending(&mut tx, n.id).await?;
            audio::record_transcript(
                &mut tx,
                n.id,
                TranscriptStatus::Skipped,
                None,
                Some(NOT_CONFIGURED),
                None,
            )
            .await?;
            continue;
        }
        audio::set_pending(&mut tx, n.id).await?;
        let job = TranscribeNote {
            org_id: org,
            review_id: review,
            note_id: n.id,
        };
        enqueue(&mut tx, &job, Owner::new(org, None)).await?;
    }
    let waiting = audio::pending(&mut tx, review).await?;
    tx.commit().await?;
    Ok(waiting)
}

/// How a transcription ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Done { text: String, model: String },
    Skipped(String),
    Failed(String),
}

/// Records a pending note's outcome (a note deleted or already recorded is left alone) and
/// ends the build when it was the last one. Returns whether the review became `ready`.
pub async fn record(db: &Db, org: Id, note: Id, outcome: &Outcome) -> Result<bool> {
    let mut tx = db.begin().await?;
    let Some(n) = audio::get_note(&mut tx, org, note).await? else {
        return Ok(false);
    };
    let (status, text, reason, model) = match outcome {
        Outcome::Done { text, model } => (
            TranscriptStatus::Done,
            Some(text.as_str()),
            None,
            Some(model.as_str()),
        ),
        Outcome::Skipped(why) => (TranscriptStatus::Skipped, None, Some(why.as_str()), None),
        Outcome::Failed(why) => (TranscriptStatus::Failed, None, Some(why.as_str()), None),
    };
    audio::record_transcript(&mut tx, n.id, status, text, reason, model).await?;
    tx.commit().await?;
    finish_build(db, org, n.review_id).await
}

/// The build's end: a `building` review with no note waiting for a transcript is `ready`.
/// Each transcription checks after recording its own outcome, so of two finishing together at
/// least the later one sees none waiting; the status move is compare-and-set, so only one
/// makes it.
pub async fn finish_build(db: &Db, org: Id, review: Id) -> Result<bool> {
    let waiting = {
        let mut c = db.acquire().await?;
        audio::pending(&mut c, review).await?
    };
    if waiting > 0 {
        return Ok(false);
    }
    super::lifecycle::built(db, org, review).await
}

/// A note as the transcription job reads it, when it still waits for a transcript.
pub async fn pending_note(db: &Db, org: Id, note: Id) -> Result<Option<VoiceNote>> {
    let mut c = db.acquire().await?;
    Ok(audio::get_note(&mut c, org, note)
        .await?
        .filter(|n| n.transcript_status == TranscriptStatus::Pending))
}
