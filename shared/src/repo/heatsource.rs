//! What the heatsource syncs keep (`heatsource_organisations`, `heatsource_events`), keyed by
//! the provider's ids. An upsert compares the stored `data` with the new one, so a re-run that
//! finds nothing new moves only `synced_at`.

use crate::db::{Executor, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::types::Json;

/// What an upsert did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upserted {
    Created,
    Updated,
    Unchanged,
}

fn outcome(stored: Option<Json<Value>>, data: &Value) -> Upserted {
    match stored {
        None => Upserted::Created,
        Some(Json(v)) if v == *data => Upserted::Unchanged,
        Some(_) => Upserted::Updated,
    }
}

/// Inserts or updates one organisation (call inside a transaction: read, then write).
pub async fn upsert_organisation(
    x: &mut impl Executor,
    provider_id: &str,
    short_name: &str,
    name: &str,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM heatsource_organisations WHERE provider_id = $1")
        .bind(provider_id).fetch_optional(&mut *c).await)?;
    let done = outcome(stored, data);
    if done == Upserted::Unchanged {
        execute!(
            x,
            sqlx::query(
                "UPDATE heatsource_organisations SET synced_at = $1 WHERE provider_id = $2"
            )
            .bind(now)
            .bind(provider_id)
        )?;
    } else {
        execute!(
            x,
            sqlx::query(
                "INSERT INTO heatsource_organisations
                    (provider_id, short_name, name, data, synced_at, changed_at)
                 VALUES ($1, $2, $3, $4, $5, $5)
                 ON CONFLICT (provider_id) DO UPDATE SET short_name = excluded.short_name,
                    name = excluded.name, data = excluded.data, synced_at = excluded.synced_at,
                    changed_at = excluded.changed_at"
            )
            .bind(provider_id)
            .bind(short_name)
            .bind(name)
            .bind(Json(data))
            .bind(now)
        )?;
    }
    Ok(done)
}

/// Inserts or updates one event (call inside a transaction: read, then write).
pub async fn upsert_event(
    x: &mut impl Executor,
    provider_id: &str,
    organisation_id: &str,
    name: &str,
    status: Option<&str>,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM heatsource_events WHERE provider_id = $1")
        .bind(provider_id).fetch_optional(&mut *c).await)?;
    let done = outcome(stored, data);
    if done == Upserted::Unchanged {
        execute!(
            x,
            sqlx::query("UPDATE heatsource_events SET synced_at = $1 WHERE provider_id = $2")
                .bind(now)
                .bind(provider_id)
        )?;
    } else {
        execute!(
            x,
            sqlx::query(
                "INSERT INTO heatsource_events
                    (provider_id, organisation_id, name, status, data, synced_at, changed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $6)
                 ON CONFLICT (provider_id) DO UPDATE SET organisation_id = excluded.organisation_id,
                    name = excluded.name, status = excluded.status, data = excluded.data,
                    synced_at = excluded.synced_at, changed_at = excluded.changed_at"
            )
            .bind(provider_id)
            .bind(organisation_id)
            .bind(name)
            .bind(status)
            .bind(Json(data))
            .bind(now)
        )?;
    }
    Ok(done)
}

/// The stored organisations' data, oldest sync first.
pub async fn organisations(x: &mut impl Executor) -> Result<Vec<Value>, sqlx::Error> {
    let rows: Vec<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM heatsource_organisations ORDER BY synced_at, provider_id")
        .fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(|j| j.0).collect())
}

/// A page of the stored organisations' data, by name.
pub async fn list_organisations(
    x: &mut impl Executor,
    limit: i64,
    offset: i64,
) -> Result<Vec<Value>, sqlx::Error> {
    let rows: Vec<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM heatsource_organisations ORDER BY name, provider_id LIMIT $1 OFFSET $2")
        .bind(limit).bind(offset).fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(|j| j.0).collect())
}

/// Every stored event's data (for an athlete's results across the synced events).
pub async fn events(x: &mut impl Executor) -> Result<Vec<Value>, sqlx::Error> {
    let rows: Vec<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM heatsource_events ORDER BY provider_id")
        .fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(|j| j.0).collect())
}
