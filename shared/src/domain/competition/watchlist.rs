//! A member's watchlist (`/api/watchlist`): athletes and events they follow. Personal: each
//! member of a workspace has their own list, sees only it, and manages it with
//! `competition.read` (another member's item is a 404, like another workspace's).
//!
//! A target is an athlete (a roster athlete of the workspace, or a provider athlete: provider
//! and the provider's id, with a name) or an event (a circuit event of the workspace, or a
//! provider event). A target is watched once per member: adding it again answers the item
//! already there (200 instead of 201), so a retried add is harmless. Roster athletes and
//! circuit events show their current name (a circuit event's manual name wins); a provider
//! target keeps the name it was given (editable).

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

pub use crate::model::competition::{WatchKind, WatchSource};

use super::events::Patch;
use super::roster::Source;
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::repo::audit;
use crate::repo::opponents::{self as repo, WatchRow};

/// A note on an item, at most.
pub const MAX_NOTE: usize = 1000;

/// A watched athlete or event.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchView {
    pub id: Id,
    pub kind: WatchKind,
    pub source: WatchSource,
    /// The roster athlete's or circuit event's id, or the provider's id.
    pub target_id: String,
    /// The circuit of a circuit event.
    pub circuit_id: Option<Id>,
    pub name: String,
    /// A circuit event's date (YYYY-MM-DD), manual edits applied.
    pub date: Option<String>,
    pub note: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

fn manual(w: &WatchRow, field: &str) -> Option<String> {
    match w.event_manual.as_ref().map(|m| &m.0) {
        Some(Value::Object(m)) => m.get(field).and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

impl From<WatchRow> for WatchView {
    fn from(w: WatchRow) -> Self {
        let (name, date) = match w.source {
            WatchSource::Roster => (w.athlete_name.clone(), None),
            WatchSource::Circuit => (
                manual(&w, "name").or_else(|| w.event_name.clone()),
                manual(&w, "date").or_else(|| w.event_date.clone()),
            ),
            _ => (w.name.clone(), None),
        };
        WatchView {
            id: w.id,
            kind: w.kind,
            source: w.source,
            target_id: w.target,
            circuit_id: w.circuit_id,
            name: name.or(w.name).unwrap_or_default(),
            date,
            note: w.note,
            created_at: w.created_at,
            updated_at: w.updated_at,
        }
    }
}

/// A new item as sent.
#[derive(Clone, Debug, Default)]
pub struct RawWatch {
    pub kind: String,
    pub athlete_id: Option<Id>,
    pub circuit_event_id: Option<Id>,
    pub provider: Option<String>,
    pub external_id: Option<String>,
    pub name: Option<String>,
    pub note: Option<String>,
}

fn note(v: &mut Validator, n: &str) -> Option<String> {
    let n = n.trim();
    if n.chars().count() > MAX_NOTE {
        v.add(
            "note",
            "too_long",
            format!("must be at most {MAX_NOTE} characters"),
        );
    }
    (!n.is_empty()).then(|| n.to_string())
}

enum Target {
    Roster(Id),
    CircuitEvent(Id),
    Provider(Source, String, String),
}

fn parse(v: &mut Validator, r: &RawWatch) -> Option<(WatchKind, Target)> {
    let kind = v.choice_of::<WatchKind>("kind", &r.kind)?;
    let provider = match (&r.provider, &r.external_id) {
        (Some(p), Some(ext)) => {
            let s = v.choice_of::<Source>("provider", p);
            let ext = v.text("externalId", ext, 100);
            let name = match &r.name {
                Some(n) => v.text("name", n, 200),
                None => {
                    v.add("name", "required", "a provider target needs a name");
                    String::new()
                }
            };
            Some(s.map(|s| Target::Provider(s, ext, name)))
        }
        (None, None) => None,
        _ => {
            v.add(
                "externalId",
                "required",
                "a provider target needs provider and externalId",
            );
            return None;
        }
    };
    let local = match kind {
        WatchKind::Athlete => r.athlete_id.map(Target::Roster),
        WatchKind::Event => r.circuit_event_id.map(Target::CircuitEvent),
    };
    let stray = match kind {
        WatchKind::Athlete => r.circuit_event_id.is_some(),
        WatchKind::Event => r.athlete_id.is_some(),
    };
    match (local, provider, stray) {
        (Some(t), None, false) => Some((kind, t)),
        (None, Some(t), false) => t.map(|t| (kind, t)),
        _ => {
            v.add(
                "target",
                "invalid",
                "an athlete is athleteId or provider + externalId + name; an event is circuitEventId or provider + externalId + name",
            );
            None
        }
    }
}

/// Adds the target to the member's watchlist; the item, and whether it was added (false: the
/// member watched it already, and that item is answered unchanged).
pub async fn add(db: &Db, ws: &InWorkspace, r: &RawWatch) -> Result<(WatchView, bool)> {
    let mut v = Validator::new();
    let parsed = parse(&mut v, r);
    let note = r.note.as_deref().and_then(|n| note(&mut v, n));
    v.finish()?;
    let Some((kind, target)) = parsed else {
        return Err(Error::field("target", "invalid", "no target"));
    };
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let mut row = WatchRow {
        id: Id::new(),
        org_id: ws.org_id,
        user_id: ws.actor.user_id,
        kind,
        source: WatchSource::Roster,
        target: String::new(),
        athlete_id: None,
        circuit_event_id: None,
        name: None,
        note,
        created_at: now,
        updated_at: now,
        athlete_name: None,
        circuit_id: None,
        event_name: None,
        event_date: None,
        event_manual: None,
    };
    match target {
        Target::Roster(id) => {
            let a = crate::domain::athletes::load(&mut tx, ws.org_id, id).await?;
            row.athlete_id = Some(a.id);
            row.target = a.id.to_string();
        }
        Target::CircuitEvent(id) => {
            let e = repo::circuit_event_in_org(&mut tx, ws.org_id, id)
                .await?
                .ok_or_else(|| Error::not_found("event"))?;
            row.source = WatchSource::Circuit;
            row.circuit_event_id = Some(e);
            row.target = e.to_string();
        }
        Target::Provider(s, ext, name) => {
            row.source = s.into();
            row.target = ext;
            row.name = Some(name);
        }
    }
    let (stored, added) = repo::insert_watch(&mut tx, &row).await?;
    if added {
        audit::record(
            &mut tx,
            ws.audit(
                "watchlist.added",
                "watchlist_item",
                stored.id,
                json!({ "kind": stored.kind, "source": stored.source, "target": stored.target }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok((stored.into(), added))
}

/// A page of the member's watchlist (one kind or both), newest first.
pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    kind: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<WatchView>> {
    let mut v = Validator::new();
    let kind = kind.and_then(|k| v.choice_of::<WatchKind>("kind", k));
    v.finish()?;
    let mut c = db.acquire().await?;
    Ok(
        repo::list_watch(&mut c, ws.org_id, ws.actor.user_id, kind, limit, offset)
            .await?
            .into_iter()
            .map(Into::into)
            .collect(),
    )
}

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<WatchView> {
    let mut c = db.acquire().await?;
    repo::watch(&mut c, ws.org_id, ws.actor.user_id, id)
        .await?
        .map(Into::into)
        .ok_or_else(|| Error::not_found("watchlist item"))
}

/// Changes an item's note (null clears it) and a provider target's name.
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
    name: Patch<String>,
    new_note: Patch<String>,
) -> Result<WatchView> {
    let mut v = Validator::new();
    let name = match name {
        Patch::Set(n) => Patch::Set(v.text("name", &n, 200)),
        Patch::Clear => {
            v.add("name", "required", "a name cannot be cleared");
            Patch::Absent
        }
        Patch::Absent => Patch::Absent,
    };
    let new_note: Patch<Option<String>> = match new_note {
        Patch::Set(n) => Patch::Set(note(&mut v, &n)),
        Patch::Clear => Patch::Set(None),
        Patch::Absent => Patch::Absent,
    };
    v.finish()?;
    let mut tx = db.begin().await?;
    let mut w = repo::watch(&mut tx, ws.org_id, ws.actor.user_id, id)
        .await?
        .ok_or_else(|| Error::not_found("watchlist item"))?;
    if let Patch::Set(n) = name {
        if matches!(w.source, WatchSource::Roster | WatchSource::Circuit) {
            return Err(Error::field(
                "name",
                "invalid",
                "a roster athlete's or circuit event's name comes from the roster or the circuit",
            ));
        }
        w.name = Some(n);
    }
    if let Patch::Set(n) = new_note {
        w.note = n;
    }
    w.updated_at = Ts::now();
    repo::update_watch(&mut tx, &w).await?;
    audit::record(
        &mut tx,
        ws.audit("watchlist.updated", "watchlist_item", w.id, json!({})),
    )
    .await?;
    let w = repo::watch(&mut tx, ws.org_id, ws.actor.user_id, id)
        .await?
        .ok_or_else(|| Error::not_found("watchlist item"))?;
    tx.commit().await?;
    Ok(w.into())
}

pub async fn remove(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    if repo::delete_watch(&mut tx, ws.org_id, ws.actor.user_id, id).await? == 0 {
        return Err(Error::not_found("watchlist item"));
    }
    audit::record(
        &mut tx,
        ws.audit("watchlist.removed", "watchlist_item", id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
