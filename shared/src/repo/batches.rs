//! Batch uploads from spreadsheet manifests (`batch_upload_jobs`): one row per batch, found
//! again by the SHA-256 of the manifest's rows.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Batch {
    pub id: Id,
    pub org_id: Id,
    pub manifest_sha256: String,
    pub file_name: String,
    /// `csv` or `xlsx`.
    pub format: String,
    /// The rows and what each made, JSON (`import::footage::ManifestRow`).
    pub manifest: Json<Value>,
    pub row_count: i64,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, org_id, manifest_sha256, file_name, format, manifest, row_count, created_by, created_at, updated_at";

pub async fn insert(x: &mut impl Executor, b: &Batch) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO batch_upload_jobs (id, org_id, manifest_sha256, file_name, format, manifest, row_count, created_by,
            created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
        .bind(b.id).bind(b.org_id).bind(&b.manifest_sha256).bind(&b.file_name).bind(&b.format)
        .bind(&b.manifest).bind(b.row_count).bind(b.created_by).bind(b.created_at).bind(b.updated_at))?;
    Ok(())
}

pub async fn set_manifest(
    x: &mut impl Executor,
    id: Id,
    manifest: Value,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE batch_upload_jobs SET manifest = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(Json(manifest))
            .bind(Ts::now())
    )?;
    Ok(())
}

pub async fn by_sha(
    x: &mut impl Executor,
    org: Id,
    sha256: &str,
) -> Result<Option<Batch>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM batch_upload_jobs WHERE org_id = $1 AND manifest_sha256 = $2"
    );
    sql!(x, c => sqlx::query_as::<_, Batch>(sqlx::AssertSqlSafe(q)).bind(org).bind(sha256).fetch_optional(&mut *c).await)
}

/// The batch, read through its workspace.
pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Batch>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM batch_upload_jobs WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Batch>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}
