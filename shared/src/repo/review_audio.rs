//! A review's recordings and the athlete's answers: the coach's voice notes (with their
//! transcripts) and the athlete's replies (text or voice). The audio itself is in object
//! storage; rows keep its key.

use crate::db::{Executor, Id, Ts};
use crate::model::reviews::{ReplyKind, TranscriptStatus};
use crate::{execute, sql};
use sqlx::FromRow;

#[derive(Debug, Clone, FromRow)]
pub struct VoiceNote {
    pub id: Id,
    pub org_id: Id,
    pub review_id: Id,
    pub keypoint_id: Option<Id>,
    pub object_key: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub transcript: Option<String>,
    pub transcript_status: TranscriptStatus,
    pub transcript_reason: Option<String>,
    pub transcript_model: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const NOTE_COLUMNS: &str = "id, org_id, review_id, keypoint_id, object_key, content_type, size_bytes,
    transcript, transcript_status, transcript_reason, transcript_model, created_by, created_at, updated_at";

pub async fn insert_note(x: &mut impl Executor, n: &VoiceNote) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO review_voice_notes (id, org_id, review_id, keypoint_id, object_key, content_type, size_bytes,
            transcript_status, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)")
        .bind(n.id).bind(n.org_id).bind(n.review_id).bind(n.keypoint_id).bind(&n.object_key)
        .bind(&n.content_type).bind(n.size_bytes).bind(n.transcript_status).bind(n.created_by)
        .bind(n.created_at))?;
    Ok(())
}

/// The review's voice notes, oldest first.
pub async fn notes(x: &mut impl Executor, review: Id) -> Result<Vec<VoiceNote>, sqlx::Error> {
    let q = format!(
        "SELECT {NOTE_COLUMNS} FROM review_voice_notes WHERE review_id = $1 ORDER BY created_at, id"
    );
    sql!(x, c => sqlx::query_as::<_, VoiceNote>(sqlx::AssertSqlSafe(q)).bind(review).fetch_all(&mut *c).await)
}

/// The note, read through its workspace.
pub async fn get_note(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<VoiceNote>, sqlx::Error> {
    let q = format!("SELECT {NOTE_COLUMNS} FROM review_voice_notes WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, VoiceNote>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

pub async fn delete_note(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM review_voice_notes WHERE id = $1").bind(id)
    )?;
    Ok(())
}

/// Marks the note's transcription asked for again (a rebuild after it failed or was skipped).
pub async fn set_pending(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE review_voice_notes SET transcript_status = 'pending', transcript_reason = NULL, updated_at = $2
         WHERE id = $1 AND transcript_status <> 'done'")
        .bind(id).bind(Ts::now()))?;
    Ok(())
}

/// Records a pending note's transcription outcome; false when it was no longer pending.
pub async fn record_transcript(
    x: &mut impl Executor,
    id: Id,
    status: TranscriptStatus,
    transcript: Option<&str>,
    reason: Option<&str>,
    model: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE review_voice_notes SET transcript_status = $2, transcript = $3, transcript_reason = $4,
            transcript_model = $5, updated_at = $6
         WHERE id = $1 AND transcript_status = 'pending'")
        .bind(id).bind(status).bind(transcript).bind(reason).bind(model).bind(Ts::now()))?;
    Ok(n == 1)
}

/// How many notes the review has.
pub async fn count(x: &mut impl Executor, review: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM review_voice_notes WHERE review_id = $1")
        .bind(review).fetch_one(&mut *c).await)
}

/// How many of the review's notes wait for a transcription.
pub async fn pending(x: &mut impl Executor, review: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM review_voice_notes WHERE review_id = $1 AND transcript_status = 'pending'")
        .bind(review).fetch_one(&mut *c).await)
}

// ---- replies ----

#[derive(Debug, Clone, FromRow)]
pub struct Reply {
    pub id: Id,
    pub org_id: Id,
    pub review_id: Id,
    pub author_user_id: Option<Id>,
    pub kind: ReplyKind,
    pub body: Option<String>,
    pub object_key: Option<String>,
    pub content_type: Option<String>,
    pub size_bytes: Option<i64>,
    pub client_reply_id: Option<String>,
    pub created_at: Ts,
}

const REPLY_COLUMNS: &str = "id, org_id, review_id, author_user_id, kind, body, object_key,
    content_type, size_bytes, client_reply_id, created_at";

/// Inserts the reply; false when its author sent one with the same client id already.
pub async fn insert_reply(x: &mut impl Executor, r: &Reply) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "INSERT INTO review_replies (id, org_id, review_id, author_user_id, kind, body, object_key,
            content_type, size_bytes, client_reply_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING")
        .bind(r.id).bind(r.org_id).bind(r.review_id).bind(r.author_user_id).bind(r.kind).bind(&r.body)
        .bind(&r.object_key).bind(&r.content_type).bind(r.size_bytes).bind(&r.client_reply_id)
        .bind(r.created_at))?;
    Ok(n == 1)
}

/// The reply `author` sent with `client_id` on the review.
pub async fn reply_by_client_id(
    x: &mut impl Executor,
    review: Id,
    author: Id,
    client_id: &str,
) -> Result<Option<Reply>, sqlx::Error> {
    let q = format!(
        "SELECT {REPLY_COLUMNS} FROM review_replies
         WHERE review_id = $1 AND author_user_id = $2 AND client_reply_id = $3"
    );
    sql!(x, c => sqlx::query_as::<_, Reply>(sqlx::AssertSqlSafe(q)).bind(review).bind(author)
        .bind(client_id).fetch_optional(&mut *c).await)
}

/// The review's replies, oldest first.
pub async fn replies(
    x: &mut impl Executor,
    review: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Reply>, sqlx::Error> {
    let q = format!(
        "SELECT {REPLY_COLUMNS} FROM review_replies WHERE review_id = $1
         ORDER BY created_at, id LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Reply>(sqlx::AssertSqlSafe(q)).bind(review).bind(limit)
        .bind(offset).fetch_all(&mut *c).await)
}

/// Every object key of the review's recordings (notes and voice replies), for deleting them
/// with the review.
pub async fn object_keys(x: &mut impl Executor, review: Id) -> Result<Vec<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, String>(
        "SELECT object_key FROM review_voice_notes WHERE review_id = $1
         UNION ALL SELECT object_key FROM review_replies WHERE review_id = $1 AND object_key IS NOT NULL")
        .bind(review).fetch_all(&mut *c).await)
}
