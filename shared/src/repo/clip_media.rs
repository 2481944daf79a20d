//! A clip's web media (`clip_media`): one row per clip, written by the render job's life
//! (`domain::footage::media`). Every read names the workspace, so another workspace's clip has
//! no media here.

use crate::db::{Executor, Id, Ts};
use crate::model::footage::{Image, MediaManifest, MediaStatus};
use crate::{execute, sql};
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct ClipMedia {
    pub clip_id: Id,
    pub org_id: Id,
    pub status: MediaStatus,
    pub status_code: Option<String>,
    pub status_message: Option<String>,
    pub job_id: Option<Id>,
    pub poster: Option<Json<Image>>,
    pub manifest: Option<Json<MediaManifest>>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "clip_id, org_id, status, status_code, status_message, job_id, poster, manifest, created_at, updated_at";

pub async fn get(
    x: &mut impl Executor,
    org: Id,
    clip: Id,
) -> Result<Option<ClipMedia>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM clip_media WHERE clip_id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, ClipMedia>(sqlx::AssertSqlSafe(q)).bind(clip).bind(org).fetch_optional(&mut *c).await)
}

/// The media of a footage session's clips (a grid of posters reads them at once).
pub async fn of_session(
    x: &mut impl Executor,
    org: Id,
    session: Id,
) -> Result<Vec<ClipMedia>, sqlx::Error> {
    let cols = COLUMNS
        .split(", ")
        .map(|c| format!("m.{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!(
        "SELECT {cols} FROM clip_media m JOIN clips c ON c.id = m.clip_id
         WHERE c.session_id = $1 AND m.org_id = $2"
    );
    sql!(x, c => sqlx::query_as::<_, ClipMedia>(sqlx::AssertSqlSafe(q)).bind(session).bind(org).fetch_all(&mut *c).await)
}

/// A render was asked for: the row is `pending` with its job (made, or reset from any state,
/// keeping the manifest of an earlier render until the new one replaces it).
pub async fn pending(x: &mut impl Executor, org: Id, clip: Id, job: Id) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(
        x,
        sqlx::query(
            "INSERT INTO clip_media (clip_id, org_id, status, job_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (clip_id) DO UPDATE SET status = $3, job_id = $4, status_code = NULL,
            status_message = NULL, updated_at = $5"
        )
        .bind(clip)
        .bind(org)
        .bind(MediaStatus::Pending)
        .bind(job)
        .bind(now)
    )?;
    Ok(())
}

/// Moves the row of `clip` to `to` if its job is still `job` (a newer render owns it
/// otherwise); the manifest and the reason are set when given. False when nothing matched.
pub async fn set(
    x: &mut impl Executor,
    clip: Id,
    job: Id,
    to: MediaStatus,
    reason: Option<(&str, &str)>,
    manifest: Option<&MediaManifest>,
) -> Result<bool, sqlx::Error> {
    let (code, message) = reason.unzip();
    let manifest = manifest.map(Json);
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE clip_media SET status = $3, status_code = $4, status_message = $5,
            manifest = COALESCE($6, manifest), updated_at = $7
         WHERE clip_id = $1 AND job_id = $2"
        )
        .bind(clip)
        .bind(job)
        .bind(to)
        .bind(code)
        .bind(message)
        .bind(manifest)
        .bind(Ts::now())
    )?;
    Ok(n == 1)
}

/// Records the poster of the render `job` owns (made before the rendition).
pub async fn set_poster(
    x: &mut impl Executor,
    clip: Id,
    job: Id,
    poster: &Image,
) -> Result<bool, sqlx::Error> {
    let n =
        execute!(x, sqlx::query(
        "UPDATE clip_media SET poster = $3, updated_at = $4 WHERE clip_id = $1 AND job_id = $2")
        .bind(clip).bind(job).bind(Json(poster)).bind(Ts::now()))?;
    Ok(n == 1)
}
