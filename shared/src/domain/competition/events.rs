//! A circuit's events with manual edits (`/api/circuits/{id}/events*`): members add their own
//! events, and override a synced event's name, date or status. An override wins over every
//! later sync until it is cleared (set to null); the answer says which fields are manual and
//! what the provider has. Deleting a synced event leaves a tombstone, so the next sync does not
//! bring it back; a member's own event is deleted outright.

use serde::Serialize;
use serde_json::{Map, Value, json};
use sqlx::types::Json;
use utoipa::ToSchema;

use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::repo::audit;
use crate::repo::competition::{self as repo, CircuitEventRow};

/// The fields a member may set.
const FIELDS: [&str; 3] = ["name", "date", "status"];

/// The provider's values of a synced event.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderValues {
    pub external_id: String,
    pub name: String,
    pub date: Option<String>,
    pub status: Option<String>,
}

/// An event as members see it: overrides applied.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    pub id: Id,
    /// `provider` (synced) or `manual` (a member's own).
    pub origin: String,
    pub name: String,
    /// YYYY-MM-DD.
    pub date: Option<String>,
    pub status: Option<String>,
    /// The fields a member set (all of them for a member's own event).
    pub manual_fields: Vec<String>,
    /// What the provider has, for a synced event.
    pub provider: Option<ProviderValues>,
    pub updated_at: Ts,
}

fn overrides(e: &CircuitEventRow) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    e.manual
        .0
        .as_object()
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

impl From<&CircuitEventRow> for EventView {
    fn from(e: &CircuitEventRow) -> Self {
        if e.origin == "manual" {
            return EventView {
                id: e.id,
                origin: e.origin.clone(),
                name: e.name.clone(),
                date: e.date.clone(),
                status: e.status.clone(),
                manual_fields: FIELDS.iter().map(|f| f.to_string()).collect(),
                provider: None,
                updated_at: e.changed_at,
            };
        }
        let m = overrides(e);
        let pick = |field: &str, provider: Option<String>| -> Option<String> {
            match m.get(field) {
                Some(Value::String(s)) => Some(s.clone()),
                _ => provider,
            }
        };
        EventView {
            id: e.id,
            origin: e.origin.clone(),
            name: pick("name", Some(e.name.clone())).unwrap_or_default(),
            date: pick("date", e.date.clone()),
            status: pick("status", e.status.clone()),
            manual_fields: FIELDS
                .iter()
                .filter(|f| m.contains_key(**f))
                .map(|f| f.to_string())
                .collect(),
            provider: Some(ProviderValues {
                external_id: e.external_id.clone(),
                name: e.name.clone(),
                date: e.date.clone(),
                status: e.status.clone(),
            }),
            updated_at: e.changed_at,
        }
    }
}

/// A field of a patch: absent (unchanged), null (clear the override) or a value.
#[derive(Clone, Debug, Default)]
pub enum Patch<T> {
    #[default]
    Absent,
    Clear,
    Set(T),
}

impl<T> Patch<T> {
    pub fn from_option(o: Option<Option<T>>) -> Self {
        match o {
            None => Patch::Absent,
            Some(None) => Patch::Clear,
            Some(Some(v)) => Patch::Set(v),
        }
    }
}

/// A new event or a change, as received.
#[derive(Clone, Debug, Default)]
pub struct EventFields {
    pub name: Patch<String>,
    pub date: Patch<String>,
    pub status: Patch<String>,
}

impl EventFields {
    /// From a request body's optional-nullable fields (`Some(None)` is an explicit null).
    pub fn new(
        name: Option<Option<String>>,
        date: Option<Option<String>>,
        status: Option<Option<String>>,
    ) -> Self {
        EventFields {
            name: Patch::from_option(name),
            date: Patch::from_option(date),
            status: Patch::from_option(status),
        }
    }
}

/// Checked values: a name of 1–200 characters, a date `YYYY-MM-DD` in 1900–9999, a status of
/// 1–40 characters `a-z` and `_`.
fn check(v: &mut Validator, f: &EventFields) -> (Patch<String>, Patch<String>, Patch<String>) {
    let name = match &f.name {
        Patch::Set(n) => Patch::Set(v.text("name", n, 200)),
        other => other.clone(),
    };
    let date = match &f.date {
        Patch::Set(d) => match v.date_text("date", d, crate::times::TimeKind::Calendar) {
            Some(day) => Patch::Set(day.to_string()),
            None => Patch::Absent,
        },
        other => other.clone(),
    };
    let status = match &f.status {
        Patch::Set(s) => {
            let s = s.trim().to_lowercase();
            if s.is_empty()
                || s.len() > 40
                || !s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            {
                v.add(
                    "status",
                    "invalid",
                    "a status is 1-40 characters of a-z and _",
                );
                Patch::Absent
            } else {
                Patch::Set(s)
            }
        }
        other => other.clone(),
    };
    (name, date, status)
}

/// 404 unless the circuit is the workspace's. It lives here, below [`super::circuits`] (whose
/// views carry their events), and `circuits::exists` is this, so the two do not import each
/// other.
pub(super) async fn circuit_of(db: &Db, ws: &InWorkspace, circuit: Id) -> Result<()> {
    let mut c = db.acquire().await?;
    repo::circuit(&mut c, ws.org_id, circuit)
        .await?
        .map(|_| ())
        .ok_or_else(|| Error::not_found("circuit"))
}

pub async fn list(db: &Db, ws: &InWorkspace, circuit: Id) -> Result<Vec<EventView>> {
    circuit_of(db, ws, circuit).await?;
    let mut c = db.acquire().await?;
    Ok(repo::circuit_events(&mut c, circuit)
        .await?
        .iter()
        .map(EventView::from)
        .collect())
}

pub async fn get(db: &Db, ws: &InWorkspace, circuit: Id, id: Id) -> Result<EventView> {
    circuit_of(db, ws, circuit).await?;
    let mut c = db.acquire().await?;
    repo::circuit_event(&mut c, circuit, id)
        .await?
        .map(|e| EventView::from(&e))
        .ok_or_else(|| Error::not_found("event"))
}

/// Adds a member's own event (a name is required).
pub async fn create(
    db: &Db,
    ws: &InWorkspace,
    circuit: Id,
    fields: &EventFields,
) -> Result<EventView> {
    let mut v = Validator::new();
    if !matches!(fields.name, Patch::Set(_)) {
        v.add("name", "required", "an event needs a name");
    }
    let (name, date, status) = check(&mut v, fields);
    v.finish()?;
    let set = |p: Patch<String>| match p {
        Patch::Set(s) => Some(s),
        _ => None,
    };
    circuit_of(db, ws, circuit).await?;
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let name = set(name).unwrap_or_default();
    let id = repo::insert_manual_event(
        &mut tx,
        ws.org_id,
        circuit,
        &name,
        set(date).as_deref(),
        set(status).as_deref(),
        now,
    )
    .await?;
    audit::record(
        &mut tx,
        ws.audit(
            "circuit.event_created",
            "circuit_event",
            id,
            json!({ "circuitId": circuit, "name": name }),
        ),
    )
    .await?;
    let e = repo::circuit_event(&mut tx, circuit, id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the event just added is missing")))?;
    tx.commit().await?;
    Ok(EventView::from(&e))
}

/// Applies a change: a member's own event takes the values; a synced event keeps them as
/// overrides (null clears one, giving the provider's value back).
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    circuit: Id,
    id: Id,
    fields: &EventFields,
) -> Result<EventView> {
    let mut v = Validator::new();
    let (name, date, status) = check(&mut v, fields);
    v.finish()?;
    circuit_of(db, ws, circuit).await?;
    let mut tx = db.begin().await?;
    let mut e = repo::circuit_event(&mut tx, circuit, id)
        .await?
        .ok_or_else(|| Error::not_found("event"))?;
    let changes = [("name", name), ("date", date), ("status", status)];
    if e.origin == "manual" {
        for (field, p) in changes {
            match (field, p) {
                ("name", Patch::Clear) => {
                    return Err(Error::field("name", "required", "an event needs a name"));
                }
                (_, Patch::Absent) => {}
                ("name", Patch::Set(s)) => e.name = s,
                ("date", p) => e.date = if let Patch::Set(s) = p { Some(s) } else { None },
                ("status", p) => e.status = if let Patch::Set(s) = p { Some(s) } else { None },
                _ => {}
            }
        }
    } else {
        let mut m = overrides(&e).clone();
        for (field, p) in changes {
            match p {
                Patch::Absent => {}
                Patch::Clear => {
                    m.remove(field);
                }
                Patch::Set(s) => {
                    m.insert(field.to_string(), Value::String(s));
                }
            }
        }
        e.manual = Json(Value::Object(m));
    }
    repo::update_event(&mut tx, &e, Ts::now()).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "circuit.event_updated",
            "circuit_event",
            e.id,
            json!({ "circuitId": circuit }),
        ),
    )
    .await?;
    let e = repo::circuit_event(&mut tx, circuit, id)
        .await?
        .ok_or_else(|| Error::not_found("event"))?;
    tx.commit().await?;
    Ok(EventView::from(&e))
}

pub async fn delete(db: &Db, ws: &InWorkspace, circuit: Id, id: Id) -> Result<()> {
    circuit_of(db, ws, circuit).await?;
    let mut tx = db.begin().await?;
    let e = repo::circuit_event(&mut tx, circuit, id)
        .await?
        .ok_or_else(|| Error::not_found("event"))?;
    repo::delete_event(&mut tx, &e, Ts::now()).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "circuit.event_deleted",
            "circuit_event",
            e.id,
            json!({ "circuitId": circuit, "origin": e.origin }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
