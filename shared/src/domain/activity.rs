//! Client activity events: the web and phone clients report what users do (page views,
//! actions); the admin Live page and live metrics read them.

use super::Actor;
use crate::Result;
use crate::db::{Db, Id, Ts};
use crate::error::Validator;
use crate::repo::{activity, orgs};
use crate::times::TimeKind;
use serde_json::Value;

/// Events per report.
pub const MAX_EVENTS: usize = 50;
/// Bytes of JSON data per event.
pub const MAX_DATA_BYTES: usize = 4096;

/// One reported event as the client sent it.
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub kind: String,
    pub path: Option<String>,
    pub data: Option<Value>,
    pub at: Option<Ts>,
}

/// A checked batch of events: 1 to 50, kinds of `a-z0-9_.`, short paths, small data.
#[derive(Debug, Clone)]
pub struct EventBatch(Vec<RawEvent>);

impl EventBatch {
    pub fn parse(events: Vec<RawEvent>) -> Result<Self> {
        let mut v = Validator::new();
        v.check(
            !events.is_empty() && events.len() <= MAX_EVENTS,
            "events",
            "out_of_range",
            "send 1 to 50 events",
        );
        for (i, e) in events.iter().enumerate() {
            let ok_kind = !e.kind.is_empty()
                && e.kind.len() <= 64
                && e.kind
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            v.check(
                ok_kind,
                &format!("events[{i}].kind"),
                "invalid",
                "1 to 64 of a-z, 0-9, _ and .",
            );
            v.check(
                e.path.as_ref().is_none_or(|p| p.len() <= 500),
                &format!("events[{i}].path"),
                "too_long",
                "at most 500 characters",
            );
            let size = e.data.as_ref().map(|d| d.to_string().len()).unwrap_or(0);
            v.check(
                size <= MAX_DATA_BYTES,
                &format!("events[{i}].data"),
                "too_long",
                "at most 4 KiB of JSON",
            );
            v.opt_time(&format!("events[{i}].at"), e.at, TimeKind::Calendar);
        }
        v.finish()?;
        Ok(EventBatch(events))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Records the batch for the actor, in `workspace` when they belong to it, else in their
/// default workspace. Client times are clamped to the last hour.
pub async fn log(
    db: &Db,
    actor: Actor,
    workspace: Option<Id>,
    default_org: Option<Id>,
    batch: EventBatch,
) -> Result<usize> {
    let mut tx = db.begin().await?;
    let org = match workspace {
        Some(org)
            if orgs::membership(&mut tx, actor.user_id, org)
                .await?
                .is_some() =>
        {
            Some(org)
        }
        _ => default_org,
    };
    let now = Ts::now();
    let earliest = now.minus(chrono::Duration::hours(1));
    for e in &batch.0 {
        let at = e.at.map(|t| t.clamp(earliest, now)).unwrap_or(now);
        activity::insert(
            &mut tx,
            actor.user_id,
            org,
            &e.kind,
            e.path.as_deref(),
            e.data.as_ref().unwrap_or(&Value::Null),
            at,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(batch.len())
}
