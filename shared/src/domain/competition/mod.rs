//! Competition data from the providers (issue 15, `docs/competition.md`):
//!
//! - [`heatsource`]: the LiveHeats-style GraphQL provider's reads and scheduled syncs;
//! - [`tourindex`]: the tour index's reads, directory scrape and headshots;
//! - [`roster`]: provider profiles brought into the roster (import, link, resync, results);
//! - [`search`]: the multi-source athlete search and the provider directory;
//! - [`circuits`]: a workspace's circuits (provider series) with their rankings, events and
//!   results, and the event bulk-adds; [`events`]: the circuits' events with manual edits.
//! - [`standings`]: the scoring arithmetic (points table, best N, ranks, the gap to a line);
//!   [`strategy`]: the athlete's standings view, qualification goals and circuit rules.
//! - [`opponents`]: coaches' notes on opponents; [`headtohead`]: opponent suggestions with
//!   head-to-head records; [`watchlist`]: members' watched athletes and events;
//!   [`achievements`]: definitions, checks and awards.
//! - [`identity`]: cross-source identity scoring (explained scores, blocking); [`matching`]:
//!   candidates for one roster athlete; [`links`]: confirm, reject, remove; [`dedup`]:
//!   duplicate roster athletes.
//!
//! Reads are served from the shared response cache (`provider_cache`) while fresh, else
//! fetched and cached. The cache holds our typed reading of an answer (`T` serialized), so a
//! row that is served is one that parsed; a row that no longer parses (a release changed `T`)
//! counts as a miss. A provider failure is never cached and never served from an expired row:
//! it is a 502 (or a 503 when the provider is not configured), so callers see the provider's
//! state, not a silent stale copy. Provider data belongs to no workspace: the cache is global,
//! and what callers may read is decided by the route's permission (`competition.read`).

pub mod achievements;
pub mod circuits;
pub mod dedup;
pub mod events;
pub mod headtohead;
pub mod heatsource;
pub mod identity;
pub mod jobs;
pub mod links;
pub mod matching;
pub mod opponents;
pub mod roster;
pub mod search;
pub mod standings;
pub mod strategy;
pub mod tourindex;
pub mod watchlist;

pub use heatsource::*;

use std::future::Future;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::db::{Db, Ts};
use crate::error::{Error, Result, Validator};
use crate::providers::ProviderError;
use crate::repo::heatsource as synced;
use crate::repo::provider_cache;

/// At most this many athletes are asked of a provider per search (then paginated here).
pub const SEARCH_LIMIT: u32 = 50;

/// `T` for `key` from the cache when fresh, else from `fetch` (then cached for `ttl`). A zero
/// `ttl` bypasses the cache.
pub async fn cached<T, F>(db: &Db, provider: &str, key: &str, ttl: Duration, fetch: F) -> Result<T>
where
    T: Serialize + DeserializeOwned,
    F: Future<Output = Result<T, ProviderError>>,
{
    if ttl.is_zero() {
        return Ok(fetch.await?);
    }
    {
        let mut c = db.acquire().await?;
        if let Some(v) = provider_cache::fresh(&mut c, provider, key, Ts::now()).await?
            && let Ok(t) = serde_json::from_value(v)
        {
            return Ok(t);
        }
    } // the connection goes back to the pool while the provider is asked
    let t = fetch.await?;
    let value = serde_json::to_value(&t).map_err(Error::internal)?;
    let now = Ts::now();
    let ttl = chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::days(365));
    let mut c = db.acquire().await?;
    provider_cache::put(&mut c, provider, key, &value, now, now.plus(ttl)).await?;
    Ok(t)
}

/// A search query of 2–100 characters, trimmed and lower-cased (also the cache key); nothing
/// is asked of a provider otherwise.
pub(crate) fn search_query(q: &str) -> Result<String> {
    let q = q.trim().to_lowercase();
    if !(2..=100).contains(&q.chars().count()) {
        return Err(Error::field(
            "q",
            "out_of_range",
            "must be between 2 and 100 characters",
        ));
    }
    Ok(q)
}

/// A provider id or short name from a path or query: trimmed, 1–100 characters.
pub fn provider_ref(field: &str, value: &str) -> Result<String> {
    let mut v = Validator::new();
    let s = v.text(field, value, 100);
    v.finish()?;
    Ok(s)
}

// ---- what an import or sync did ----

/// One item a sync could not bring in, and why; `permanent` when a retry cannot help.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemFailure {
    pub item: String,
    pub error: String,
    pub permanent: bool,
}

/// What a sync did, item by item: the job's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    pub created: u32,
    pub updated: u32,
    pub unchanged: u32,
    pub failed: Vec<ItemFailure>,
}

impl SyncReport {
    pub(crate) fn count(&mut self, u: synced::Upserted) {
        use synced::Upserted::*;
        match u {
            Created => self.created += 1,
            Updated => self.updated += 1,
            Unchanged => self.unchanged += 1,
        }
    }

    pub(crate) fn fail(&mut self, item: String, e: &ProviderError) {
        self.failed.push(ItemFailure {
            item,
            error: e.to_string(),
            permanent: e.is_permanent(),
        });
    }

    /// The provider does not know the item: retrying will not bring it back.
    pub(crate) fn missing(&mut self, item: String, why: &str) {
        self.failed.push(ItemFailure {
            item,
            error: why.into(),
            permanent: true,
        });
    }

    /// Adds another report's counts and failures to this one.
    pub fn merge(&mut self, other: SyncReport) {
        self.created += other.created;
        self.updated += other.updated;
        self.unchanged += other.unchanged;
        self.failed.extend(other.failed);
    }

    /// Items were tried and every one failed.
    pub fn all_failed(&self) -> bool {
        !self.failed.is_empty() && self.created + self.updated + self.unchanged == 0
    }

    /// Items were tried and every one failed for a reason a retry may cure: the provider is
    /// down, so the job should be retried rather than report nothing done.
    pub fn all_failed_transiently(&self) -> bool {
        !self.failed.is_empty()
            && self.created + self.updated + self.unchanged == 0
            && self.failed.iter().all(|f| !f.permanent)
    }
}
