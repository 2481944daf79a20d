//! The `heatsource` reads (cached) and its scheduled syncs (`heatsource-orgs-sync`,
//! `heatsource-sync`).

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;

use super::{SEARCH_LIMIT, SyncReport, cached, provider_ref, search_query};
use crate::db::{Db, Ts};
use crate::error::{Error, Result};
use crate::providers::ProviderError;
use crate::providers::heatsource::{
    self, Athlete, Division, Event, Heatsource, Organisation, Ranking, Series,
};
use crate::repo::heatsource as synced;

fn configured(hs: Option<&Heatsource>) -> Result<&Heatsource> {
    hs.ok_or_else(|| Error::provider_not_configured(heatsource::PROVIDER))
}

async fn heatsource_cached<T, F>(db: &Db, hs: &Heatsource, key: &str, fetch: F) -> Result<T>
where
    T: Serialize + DeserializeOwned,
    F: Future<Output = Result<T, ProviderError>>,
{
    cached(db, heatsource::PROVIDER, key, hs.cache_ttl(), fetch).await
}

/// The organisation with this short name, or none.
pub async fn heatsource_organisation(
    db: &Db,
    hs: Option<&Heatsource>,
    short_name: &str,
) -> Result<Option<Organisation>> {
    let hs = configured(hs)?;
    let short_name = provider_ref("shortName", short_name)?.to_lowercase();
    heatsource_cached(
        db,
        hs,
        &format!("organisation:{short_name}"),
        hs.organisation(&short_name),
    )
    .await
}

/// The organisations the syncs keep (`heatsource-orgs-sync`), by name: local data, so it
/// answers whether or not the provider is configured now.
pub async fn heatsource_synced_organisations(
    db: &Db,
    limit: i64,
    offset: i64,
) -> Result<Vec<Organisation>> {
    let mut c = db.acquire().await?;
    Ok(synced::list_organisations(&mut c, limit, offset)
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect())
}

/// The series of an organisation (by short name); 404 when there is no such organisation.
pub async fn heatsource_series_of(
    db: &Db,
    hs: Option<&Heatsource>,
    short_name: &str,
) -> Result<Vec<Series>> {
    heatsource_organisation(db, hs, short_name)
        .await?
        .map(|o| o.series)
        .ok_or_else(|| Error::not_found("organisation"))
}

/// The divisions a series ranks.
pub async fn heatsource_divisions(
    db: &Db,
    hs: Option<&Heatsource>,
    series_id: &str,
) -> Result<Vec<Division>> {
    let hs = configured(hs)?;
    let id = provider_ref("id", series_id)?;
    let s: Option<Series> =
        heatsource_cached(db, hs, &format!("series:{id}"), hs.series(&id)).await?;
    s.map(|s| s.rankings_divisions)
        .ok_or_else(|| Error::not_found("series"))
}

/// The athletes of a series division, in ranking order.
pub async fn heatsource_rankings(
    db: &Db,
    hs: Option<&Heatsource>,
    series_id: &str,
    division_id: &str,
) -> Result<Vec<Ranking>> {
    let hs = configured(hs)?;
    let id = provider_ref("id", series_id)?;
    let division = provider_ref("divisionId", division_id)?;
    let r: Option<Vec<Ranking>> = heatsource_cached(
        db,
        hs,
        &format!("rankings:{id}:{division}"),
        hs.rankings(&id, &division),
    )
    .await?;
    r.ok_or_else(|| Error::not_found("series"))
}

/// An event with its divisions, heats, results and competitors.
pub async fn heatsource_event(db: &Db, hs: Option<&Heatsource>, event_id: &str) -> Result<Event> {
    let hs = configured(hs)?;
    let id = provider_ref("id", event_id)?;
    let e: Option<Event> = heatsource_cached(db, hs, &format!("event:{id}"), hs.event(&id)).await?;
    e.ok_or_else(|| Error::not_found("event"))
}

/// An athlete's profile (needs the provider's client credentials).
pub async fn heatsource_athlete(
    db: &Db,
    hs: Option<&Heatsource>,
    athlete_id: &str,
) -> Result<Athlete> {
    let hs = configured(hs)?;
    let id = provider_ref("id", athlete_id)?;
    let a: Option<Athlete> =
        heatsource_cached(db, hs, &format!("athlete:{id}"), hs.athlete(&id)).await?;
    a.ok_or_else(|| Error::not_found("athlete"))
}

/// Athletes whose name matches `query` (2–100 characters; case and surrounding spaces do not
/// matter), at most [`SEARCH_LIMIT`] (needs the provider's client credentials).
pub async fn heatsource_search(
    db: &Db,
    hs: Option<&Heatsource>,
    query: &str,
) -> Result<Vec<Athlete>> {
    let hs = configured(hs)?;
    let q = search_query(query)?;
    heatsource_cached(
        db,
        hs,
        &format!("athleteSearch:{q}"),
        hs.search_athletes(&q, SEARCH_LIMIT),
    )
    .await
}

// ---- the scheduled syncs ----

/// Fetches each followed organisation (`HEATSOURCE_ORGANISATIONS`) and upserts it by the
/// provider's id. An organisation the provider does not know, or that fails, is reported in
/// `failed`; the others are stored.
pub async fn heatsource_orgs_sync(db: &Db, hs: Option<&Heatsource>) -> Result<SyncReport> {
    let hs = hs.ok_or(ProviderError::NotConfigured(heatsource::PROVIDER))?;
    let mut report = SyncReport::default();
    for short_name in hs.followed() {
        let item = format!("organisation {short_name}");
        let org = match hs.organisation(short_name).await {
            Ok(Some(o)) => o,
            Ok(None) => {
                report.missing(
                    item,
                    "the provider has no organisation with this short name",
                );
                continue;
            }
            Err(e) => {
                report.fail(item, &e);
                continue;
            }
        };
        let data = serde_json::to_value(&org).map_err(Error::internal)?;
        let mut tx = db.begin().await?;
        let done = synced::upsert_organisation(
            &mut tx,
            &org.id,
            &org.short_name,
            &org.name,
            &data,
            Ts::now(),
        )
        .await?;
        tx.commit().await?;
        report.count(done);
    }
    Ok(report)
}

/// Fetches every event of the stored organisations (their latest sync's event list) and
/// upserts it, with its divisions, heats and results, by the provider's id.
pub async fn heatsource_events_sync(db: &Db, hs: Option<&Heatsource>) -> Result<SyncReport> {
    let hs = hs.ok_or(ProviderError::NotConfigured(heatsource::PROVIDER))?;
    let orgs: Vec<Organisation> = {
        let mut c = db.acquire().await?;
        synced::organisations(&mut c)
            .await?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect()
    };
    let mut report = SyncReport::default();
    for org in &orgs {
        for summary in &org.events {
            let item = format!("event {}", summary.id);
            let event = match hs.event(&summary.id).await {
                Ok(Some(e)) => e,
                Ok(None) => {
                    report.missing(item, "the provider no longer has this event");
                    continue;
                }
                Err(e) => {
                    report.fail(item, &e);
                    continue;
                }
            };
            let data = serde_json::to_value(&event).map_err(Error::internal)?;
            let mut tx = db.begin().await?;
            let done = synced::upsert_event(
                &mut tx,
                &event.id,
                &org.id,
                &event.name,
                event.status.as_deref(),
                &data,
                Ts::now(),
            )
            .await?;
            tx.commit().await?;
            report.count(done);
        }
    }
    Ok(report)
}
