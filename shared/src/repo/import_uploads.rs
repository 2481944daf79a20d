//! Staged import files (`import_uploads`): a large CSV waits here, as text, for the job that
//! imports it; the job deletes it in the transaction that imports it.

use crate::db::{DbConn, Executor, Id, Ts};
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

/// Serialises imports of one workspace, so two imports of the same file cannot both see "no
/// duplicate" and both insert. On PostgreSQL a transaction-scoped advisory lock on the
/// workspace (not its row: a row lock would also block every unrelated write of that row),
/// released at commit or rollback, and bounded like every lock by the session's
/// `lock_timeout`; SQLite write transactions are serialised already.
pub async fn lock_org(x: &mut impl Executor, org: Id) -> Result<(), sqlx::Error> {
    if let DbConn::Pg(c) = x.conn() {
        sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind(IMPORT_LOCK_CLASS)
            .bind(org.to_string())
            .execute(&mut *c)
            .await?;
    }
    Ok(())
}

/// The first key of the import lock (`pg_advisory_xact_lock(class, hashtext(org))`): its own
/// space, apart from sqlx's migration lock and any other advisory lock.
const IMPORT_LOCK_CLASS: i32 = 0x1_4d50;
