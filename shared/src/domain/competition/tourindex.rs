//! The tour index: its reads (cached like heatsource's), the directory scrape
//! (`tourindex-sync`, `POST /api/tourindex/scrape`) and the headshot copies
//! (`tourindex-avatars`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::roster::{Providers, Source};
use super::{SEARCH_LIMIT, SyncReport, cached, provider_ref, search_query};
use crate::db::{Db, Ts};
use crate::error::{Error, Result};
use crate::providers::ProviderError;
use crate::providers::tourindex::{PROVIDER, Tourindex};
use crate::providers::tourindex_pages::{LiveHit, TourAthlete, TourProfile};
use crate::repo::competition as repo;
use crate::storage::{Storage, Store};

/// The most directory pages one tour's scrape reads (a guard against a pager that loops).
const MAX_PAGES: u32 = 200;
/// Headshots copied per `tourindex-avatars` run.
const AVATARS_PER_RUN: i64 = 200;

fn configured<'a>(p: &Providers<'a>) -> Result<&'a Tourindex> {
    Ok(p.tourindex()?) // ProviderError::NotConfigured → 503
}

/// A search answer with what could not be read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Found {
    pub athletes: Vec<TourAthlete>,
    pub issues: Vec<String>,
}

/// Athletes whose name matches `q`, at most [`SEARCH_LIMIT`].
pub async fn search(db: &Db, p: Providers<'_>, q: &str) -> Result<Found> {
    let ti = configured(&p)?;
    let q = search_query(q)?;
    cached(
        db,
        PROVIDER,
        &format!("search:{q}"),
        ti.cache_ttl(),
        async {
            let (athletes, issues) = ti.search(&q, SEARCH_LIMIT).await?;
            Ok::<_, ProviderError>(Found { athletes, issues })
        },
    )
    .await
}

/// Typeahead suggestions (athletes and events) for `q` (2–100 characters); cached briefly
/// like the other reads.
pub async fn live_search(db: &Db, p: Providers<'_>, q: &str) -> Result<Vec<LiveHit>> {
    let ti = configured(&p)?;
    let q = search_query(q)?;
    cached(
        db,
        PROVIDER,
        &format!("live:{q}"),
        ti.cache_ttl(),
        ti.live_search(&q),
    )
    .await
}

/// An athlete's profile with results (404 when the index has no such athlete).
pub async fn athlete(db: &Db, p: Providers<'_>, id: &str) -> Result<TourProfile> {
    let ti = configured(&p)?;
    let id = provider_ref("id", id)?;
    let a: Option<TourProfile> = cached(
        db,
        PROVIDER,
        &format!("athlete:{id}"),
        ti.cache_ttl(),
        ti.athlete(&id),
    )
    .await?;
    a.ok_or_else(|| Error::not_found("athlete"))
}

/// A tour name: 1–40 characters of `a-z`, `0-9` and `-` (it becomes a path segment).
pub fn tour_name(field: &str, tour: &str) -> Result<String> {
    let t = tour.trim().to_lowercase();
    if t.is_empty()
        || t.len() > 40
        || !t
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(Error::field(
            field,
            "invalid",
            "a tour is 1-40 characters of a-z, 0-9 and -",
        ));
    }
    Ok(t)
}

/// Reads a tour's whole directory (every page) and its events with their results into the
/// directory tables. A page or event that fails or cannot be read is reported, the rest is
/// kept; entries a page could not read are reported as permanent failures.
pub async fn scrape_tour(db: &Db, p: Providers<'_>, tour: &str) -> Result<SyncReport> {
    let ti = configured(&p)?;
    let tour = tour_name("tour", tour)?;
    let mut report = SyncReport::default();
    let mut page = 1;
    while page <= MAX_PAGES {
        let item = format!("tour {tour} directory page {page}");
        let dir = match ti.directory(&tour, page).await {
            Ok(Some(d)) => d,
            Ok(None) if page == 1 => {
                report.missing(item, "the tour index has no such tour");
                return Ok(report);
            }
            Ok(None) => break,
            Err(e) => {
                report.fail(item, &e);
                break;
            }
        };
        for issue in &dir.issues {
            report.missing(format!("tour {tour} directory page {page}"), issue);
        }
        let now = Ts::now();
        let mut tx = db.begin().await?;
        for a in &dir.athletes {
            let data = serde_json::to_value(a).map_err(Error::internal)?;
            report.count(
                repo::upsert_tour_athlete(
                    &mut tx,
                    &a.id,
                    &tour,
                    &a.name,
                    a.country.as_deref(),
                    a.image.as_deref(),
                    &data,
                    now,
                )
                .await?,
            );
        }
        tx.commit().await?;
        match dir.next {
            Some(n) if n > page => page = n,
            _ => break,
        }
    }
    let events = match ti.events(&tour).await {
        Ok(Some((events, issues))) => {
            for issue in issues {
                report.missing(format!("tour {tour} events"), &issue);
            }
            events
        }
        Ok(None) => Vec::new(),
        Err(e) => {
            report.fail(format!("tour {tour} events"), &e);
            Vec::new()
        }
    };
    for e in events {
        let item = format!("event {}", e.id);
        let event = match ti.event(&e.id).await {
            Ok(Some(ev)) => ev,
            Ok(None) => {
                report.missing(item, "the tour index no longer has this event");
                continue;
            }
            Err(err) => {
                report.fail(item, &err);
                continue;
            }
        };
        for issue in &event.issues {
            report.missing(format!("event {}", e.id), issue);
        }
        let data = serde_json::to_value(&event).map_err(Error::internal)?;
        let mut tx = db.begin().await?;
        report.count(
            repo::upsert_tour_event(
                &mut tx,
                &event.id,
                &tour,
                &event.name,
                event.date.as_deref().or(e.date.as_deref()),
                &data,
                Ts::now(),
            )
            .await?,
        );
        tx.commit().await?;
    }
    Ok(report)
}

/// `tourindex-sync`: every tour of `TOURINDEX_TOURS`.
pub async fn sync_tours(db: &Db, p: Providers<'_>) -> Result<SyncReport> {
    let ti = configured(&p)?;
    let mut report = SyncReport::default();
    for tour in ti.tours() {
        report.merge(scrape_tour(db, p, tour).await?);
    }
    Ok(report)
}

/// Where a copied headshot lives in the sidecars store.
pub fn avatar_key(provider_id: &str) -> String {
    format!("avatars/{PROVIDER}/{}", hex::encode(provider_id.as_bytes()))
}

/// `tourindex-avatars`: copies the headshots of directory athletes whose image is new or
/// changed into object storage (so pages show them without hot-linking the index). Only
/// images on the index's own origin are fetched; others are recorded as skipped and not
/// tried again until their URL changes.
pub async fn copy_avatars(db: &Db, p: Providers<'_>, storage: &Storage) -> Result<SyncReport> {
    let ti = configured(&p)?;
    let due = {
        let mut c = db.acquire().await?;
        repo::avatars_due(&mut c, AVATARS_PER_RUN).await?
    };
    let mut report = SyncReport::default();
    for a in due {
        let Some(src) = a.image_url.as_deref() else {
            continue;
        };
        let item = format!("avatar of {}", a.provider_id);
        let Some(url) = ti.own_image_url(src) else {
            let mut c = db.acquire().await?;
            repo::set_avatar(&mut c, &a.provider_id, None, src).await?;
            report.missing(item, "the image is not on the tour index's origin");
            continue;
        };
        match ti.image(url).await {
            Ok(Some((bytes, content_type))) => {
                let key = avatar_key(&a.provider_id);
                storage
                    .put_bytes(Store::Sidecars, &key, bytes, &content_type)
                    .await
                    .map_err(Error::internal)?;
                let mut c = db.acquire().await?;
                repo::set_avatar(&mut c, &a.provider_id, Some(&key), src).await?;
                report.created += 1;
            }
            Ok(None) => {
                let mut c = db.acquire().await?;
                repo::set_avatar(&mut c, &a.provider_id, None, src).await?;
                report.missing(item, "the image is gone");
            }
            Err(e) if e.is_permanent() => {
                let mut c = db.acquire().await?;
                repo::set_avatar(&mut c, &a.provider_id, None, src).await?;
                report.fail(item, &e);
            }
            Err(e) => report.fail(item, &e),
        }
    }
    Ok(report)
}

/// A directory entry as `/api/discover` lists it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryEntry {
    pub source: &'static str,
    pub id: String,
    pub name: String,
    pub tour: String,
    pub country: Option<String>,
    /// The stored headshot's key in the sidecars store, when copied.
    #[serde(skip)]
    pub avatar_key: Option<String>,
    /// A signed URL of the copied headshot (valid 30 minutes), when there is one.
    pub avatar_url: Option<String>,
    /// The workspace's roster athlete linked to this profile, if any.
    pub roster_athlete_id: Option<crate::db::Id>,
}

/// A page of the directory (one tour or all; names containing `q`), by name, with the
/// workspace's linked athletes.
pub async fn directory(
    db: &Db,
    org: crate::db::Id,
    tour: Option<&str>,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<DirectoryEntry>> {
    let tour = tour.map(|t| tour_name("tour", t)).transpose()?;
    let q = q.map(str::trim).filter(|q| !q.is_empty());
    if q.is_some_and(|q| q.chars().count() > 100) {
        return Err(Error::field("q", "too_long", "at most 100 characters"));
    }
    let mut c = db.acquire().await?;
    let rows = repo::list_tour_athletes(&mut c, tour.as_deref(), q, limit, offset).await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let linked = repo::link(&mut c, org, Source::Tourindex, &r.provider_id).await?;
        out.push(DirectoryEntry {
            source: PROVIDER,
            id: r.provider_id,
            name: r.name,
            tour: r.tour,
            country: r.country,
            avatar_key: r.avatar_key,
            avatar_url: None,
            roster_athlete_id: linked.map(|l| l.athlete_id),
        });
    }
    Ok(out)
}
