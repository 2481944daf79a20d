//! Staged import files (`import_uploads`): a large CSV waits here, as text, for the job that
//! imports it; the job deletes it in the transaction that imports it.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};

/// Stores a file for a later import job; `kind` names the importer (`athletes`, `training`).
pub async fn stage(
    x: &mut impl Executor,
    org: Id,
    kind: &str,
    sha256: &str,
    content: &str,
    by: Id,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO import_uploads (id, org_id, kind, sha256, content, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(id).bind(org).bind(kind).bind(sha256).bind(content).bind(by).bind(Ts::now()))?;
    Ok(id)
}

/// A staged file: its workspace and content. None once imported (or never staged).
pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<(Id, String)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (Id, String)>("SELECT org_id, content FROM import_uploads WHERE id = $1")
        .bind(id).fetch_optional(&mut *c).await)
}

pub async fn delete(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM import_uploads WHERE id = $1").bind(id)
    )?;
    Ok(())
}

/// Serialises imports of one workspace: touches the org row (a row lock on PostgreSQL; SQLite
/// write transactions are serialised already), so two imports of the same file cannot both
/// see "no duplicate" and both insert.
pub async fn lock_org(x: &mut impl Executor, org: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE orgs SET updated_at = updated_at WHERE id = $1").bind(org)
    )?;
    Ok(())
}
