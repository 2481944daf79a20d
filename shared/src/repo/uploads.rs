//! Resumable (tus) clip uploads and their parts: rows and queries. The offset moves
//! compare-and-set ([`add_part`]): a PATCH names the offset it wrote at, so of two PATCHes
//! racing for the same offset exactly one is recorded.

use crate::db::{Executor, Id, Ts};
use crate::model::footage::UploadStatus;
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Upload {
    pub id: Id,
    pub org_id: Id,
    pub user_id: Id,
    pub client_upload_id: Option<String>,
    pub session_id: Id,
    pub clip_id: Option<Id>,
    pub length: i64,
    pub upload_offset: i64,
    pub parts: i64,
    /// The tus `Upload-Metadata`, decoded: `{"filename": …, "sessionId": …}`.
    pub metadata: Json<Value>,
    pub status: UploadStatus,
    pub content_type: Option<String>,
    pub job_id: Option<Id>,
    pub failure: Option<String>,
    pub expires_at: Ts,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str =
    "id, org_id, user_id, client_upload_id, session_id, clip_id, length, upload_offset,
    parts, metadata, status, content_type, job_id, failure, expires_at, created_at, updated_at";

/// Inserts the upload; false when the user already has one with its client upload id.
pub async fn insert(x: &mut impl Executor, u: &Upload) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "INSERT INTO clip_uploads (id, org_id, user_id, client_upload_id, session_id, length, metadata,
            status, expires_at, created_at, updated_at, clip_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING")
        .bind(u.id).bind(u.org_id).bind(u.user_id).bind(&u.client_upload_id).bind(u.session_id)
        .bind(u.length).bind(&u.metadata).bind(u.status).bind(u.expires_at).bind(u.created_at)
        .bind(u.updated_at).bind(u.clip_id))?;
    Ok(n == 1)
}

/// The upload, read through its workspace.
pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Upload>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM clip_uploads WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Upload>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

pub async fn by_client_id(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    client_upload_id: &str,
) -> Result<Option<Upload>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM clip_uploads WHERE org_id = $1 AND user_id = $2 AND client_upload_id = $3"
    );
    sql!(x, c => sqlx::query_as::<_, Upload>(sqlx::AssertSqlSafe(q)).bind(org).bind(user)
        .bind(client_upload_id).fetch_optional(&mut *c).await)
}

/// Records `size` bytes stored at `from` as the part object `key`, if the upload is still
/// uploading at offset `from`; false otherwise (another PATCH got there first, or the upload
/// ended). `content_type` is kept when given (the first part's sniffed type).
pub async fn add_part(
    x: &mut impl Executor,
    id: Id,
    from: i64,
    size: i64,
    key: &str,
    content_type: Option<&str>,
    expires_at: Ts,
) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE clip_uploads SET upload_offset = upload_offset + $3, parts = parts + 1,
            content_type = COALESCE($4, content_type), expires_at = $5, updated_at = $6
         WHERE id = $1 AND upload_offset = $2 AND status = 'uploading'"
        )
        .bind(id)
        .bind(from)
        .bind(size)
        .bind(content_type)
        .bind(expires_at)
        .bind(now)
    )?;
    if n != 1 {
        return Ok(false);
    }
    execute!(
        x,
        sqlx::query(
            "INSERT INTO clip_upload_parts (upload_id, part_offset, size, object_key, created_at)
         VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(id)
        .bind(from)
        .bind(size)
        .bind(key)
        .bind(now)
    )?;
    Ok(true)
}

#[derive(Debug, Clone, FromRow)]
pub struct Part {
    pub part_offset: i64,
    pub size: i64,
    pub object_key: String,
}

/// The upload's parts in byte order.
pub async fn parts(x: &mut impl Executor, id: Id) -> Result<Vec<Part>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Part>(
        "SELECT part_offset, size, object_key FROM clip_upload_parts WHERE upload_id = $1 ORDER BY part_offset")
        .bind(id).fetch_all(&mut *c).await)
}

/// What a status change also writes.
#[derive(Debug, Default)]
pub struct Change {
    pub job_id: Option<Id>,
    pub clip_id: Option<Id>,
    pub failure: Option<String>,
}

/// Moves the upload from `from` to `to`; false when it was no longer `from`.
pub async fn set_status(
    x: &mut impl Executor,
    id: Id,
    from: UploadStatus,
    to: UploadStatus,
    change: Change,
) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE clip_uploads SET status = $3, job_id = COALESCE($4, job_id),
            clip_id = COALESCE($5, clip_id), failure = COALESCE($6, failure), updated_at = $7
         WHERE id = $1 AND status = $2"
        )
        .bind(id)
        .bind(from)
        .bind(to)
        .bind(change.job_id)
        .bind(change.clip_id)
        .bind(change.failure)
        .bind(Ts::now())
    )?;
    Ok(n == 1)
}

pub async fn delete(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM clip_uploads WHERE id = $1").bind(id)
    )?;
    Ok(())
}

/// Uploads still waiting for bytes whose time ran out before `now`, oldest first.
pub async fn expired(
    x: &mut impl Executor,
    now: Ts,
    limit: i64,
) -> Result<Vec<Upload>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM clip_uploads WHERE status = 'uploading' AND expires_at < $1
         ORDER BY expires_at LIMIT $2"
    );
    sql!(x, c => sqlx::query_as::<_, Upload>(sqlx::AssertSqlSafe(q)).bind(now).bind(limit).fetch_all(&mut *c).await)
}
