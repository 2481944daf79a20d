//! Footage sessions: list, read with clips, session-level store, hard delete. A footage
//! session is made when filming starts (`training::provision_video`) or by a batch upload.

use super::jobs::{DeleteObjects, StoreSession, StoredObject};
use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::audit;
use crate::repo::footage::{self, Clip, Session, SessionSummary};
use crate::storage::Store;
use crate::{Error, Result};
use serde_json::json;

const TARGET: &str = "footage_session";

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    athlete: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<SessionSummary>> {
    let mut c = db.acquire().await?;
    Ok(footage::list_sessions(&mut c, ws.org_id, athlete, limit, offset).await?)
}

/// The footage session filmed at training session `training`, once filming has started.
pub async fn of_training(db: &Db, ws: &InWorkspace, training: Id) -> Result<Option<Id>> {
    let mut c = db.acquire().await?;
    Ok(footage::session_of_training(&mut c, ws.org_id, training).await?)
}

/// The session and all its clips (a session holds tens of clips, not thousands).
pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<(Session, Vec<Clip>)> {
    let mut c = db.acquire().await?;
    let s = footage::get_session(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let clips = footage::session_clips(&mut c, id).await?;
    Ok((s, clips))
}

/// Stores every processed clip of the session (one job with progress per clip).
pub async fn store(db: &Db, ws: &InWorkspace, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    footage::get_session(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let work = StoreSession {
        org_id: ws.org_id,
        session_id: id,
    };
    let queued = enqueue(
        &mut tx,
        &work,
        Owner::new(work.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    tx.commit().await?;
    Ok(queued)
}

/// The session-level store copied every processed clip: the session is `stored` (its store
/// job calls this at its end; a session deleted meanwhile is left alone).
pub async fn stored(db: &Db, org: Id, id: Id) -> Result<()> {
    let mut c = db.acquire().await?;
    if footage::get_session(&mut c, org, id).await?.is_some() {
        footage::set_session_status(&mut c, id, super::SessionStatus::Stored).await?;
    }
    Ok(())
}

/// Hard-deletes the session, its clips, labels and unfinished uploads in one transaction; the
/// objects in raw-uploads, session-videos and sidecars go through a job that retries until done.
pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let s = footage::get_session(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let clips = footage::session_clips(&mut tx, id).await?;
    let uploads = footage::session_uploads(&mut tx, id).await?;
    footage::delete_session(&mut tx, ws.org_id, id).await?;
    let objects: Vec<StoredObject> = clips.iter().flat_map(super::clips::objects).collect();
    let prefixes: Vec<StoredObject> = uploads
        .iter()
        .map(|u| StoredObject::new(Store::RawUploads, super::keys::upload_parts(ws.org_id, *u)))
        .chain(
            clips
                .iter()
                .flat_map(|k| super::clips::prefixes(ws.org_id, k.id)),
        )
        .collect();
    if !objects.is_empty() || !prefixes.is_empty() {
        let work = DeleteObjects {
            org_id: ws.org_id,
            owner: format!("session:{id}"),
            objects: objects.clone(),
            prefixes,
        };
        enqueue(
            &mut tx,
            &work,
            Owner::new(work.org_id, Some(ws.actor.user_id)),
        )
        .await?;
    }
    for k in clips.iter().filter(|k| k.status.in_flight()) {
        if let Some(aid) = &k.analysis_id {
            let work = super::jobs::CancelAnalysis {
                org_id: ws.org_id,
                clip_id: k.id,
                analysis_id: aid.clone(),
            };
            enqueue(
                &mut tx,
                &work,
                Owner::new(work.org_id, Some(ws.actor.user_id)),
            )
            .await?;
        }
    }
    let data = json!({ "title": s.title, "clips": clips.len(), "objects": objects.len() });
    audit::record(
        &mut tx,
        ws.audit("footage_session.delete", TARGET, id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
