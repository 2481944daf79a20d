//! The multi-source athlete search (`GET /api/athlete-search/search`): the roster and every
//! configured provider asked at once, each provider within its own timeout (a slow one is
//! reported as `timeout` and does not hold the others back), then the hits that are the same
//! person merged into one candidate and ranked.
//!
//! Same person: a provider profile linked to a roster athlete joins that athlete; otherwise
//! hits join when their names are equal once case, accents and spacing are folded, and their
//! countries do not disagree (countries are compared only when both are given in the same
//! code length: `US` and `USA` are not compared). A candidate never holds two profiles of one
//! provider. Rank: how well the name matches the query (equal, starts with, a word starts
//! with, contains), then how many sources found the person, roster first, then by name.

use std::time::Duration;

use serde::Serialize;
use utoipa::ToSchema;

pub use super::identity::fold_name;
use super::roster::{self, Profile, Providers, Source};
use super::{cached, heatsource as hs_reads, provider_ref, tourindex as ti_reads};
use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::error::{Error, Result};
use crate::providers::{heatsource, tourindex};
use crate::repo::athletes as athletes_repo;
use crate::repo::competition as repo;

/// A provider's profile among a candidate's sources.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileHit {
    pub source: Source,
    pub id: String,
    pub name: String,
    pub country: Option<String>,
    pub image: Option<String>,
}

/// A roster athlete among a candidate's sources.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RosterHit {
    pub athlete_id: Id,
    pub name: String,
}

/// One person, as found in one or more sources.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub name: String,
    pub country: Option<String>,
    /// 0–1.2: name match (1, 0.8, 0.7, 0.5), +0.1 per extra source.
    pub score: f64,
    pub roster: Option<RosterHit>,
    pub profiles: Vec<ProfileHit>,
}

/// How one source answered.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    /// `roster`, `heatsource` or `tourindex`.
    pub source: &'static str,
    /// `ok`, `timeout`, `failed` or `not_configured`; in an identity match also `linked` (not
    /// asked: the athlete is linked to a profile of this provider already).
    pub status: &'static str,
    pub count: usize,
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    pub items: Vec<Candidate>,
    pub sources: Vec<SourceStatus>,
}

fn countries_agree(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => a.eq_ignore_ascii_case(b),
        _ => true,
    }
}

/// How well `name` matches the folded query.
fn name_score(name: &str, q: &str) -> f64 {
    let n = fold_name(name);
    if n == q {
        1.0
    } else if n.starts_with(q) {
        0.8
    } else if n.split(' ').any(|w| w.starts_with(q)) {
        0.7
    } else {
        0.5
    }
}

pub(super) enum Outcome<T> {
    Ok(T),
    Timeout,
    Failed(String),
    NotConfigured,
}

pub(super) async fn within<T>(
    timeout: Duration,
    f: impl std::future::Future<Output = Result<T>>,
) -> Outcome<T> {
    match tokio::time::timeout(timeout, f).await {
        Err(_) => Outcome::Timeout,
        Ok(Ok(t)) => Outcome::Ok(t),
        Ok(Err(e)) if e.code == "provider_not_configured" => Outcome::NotConfigured,
        Ok(Err(e)) => Outcome::Failed(e.message),
    }
}

pub(super) fn status<T>(source: &'static str, o: &Outcome<Vec<T>>) -> SourceStatus {
    let (status, count, error) = match o {
        Outcome::Ok(v) => ("ok", v.len(), None),
        Outcome::Timeout => ("timeout", 0, None),
        Outcome::Failed(e) => ("failed", 0, Some(e.clone())),
        Outcome::NotConfigured => ("not_configured", 0, None),
    };
    SourceStatus {
        source,
        status,
        count,
        error,
    }
}

/// Searches the roster and every provider for `q` (2–100 characters) and merges the hits.
pub async fn search(
    db: &Db,
    p: Providers<'_>,
    ws: &InWorkspace,
    q: &str,
    timeout: Duration,
) -> Result<SearchAnswer> {
    let query = super::search_query(q)?;
    let folded = fold_name(&query);
    let roster_f = async {
        let mut c = db.acquire().await?;
        Ok::<_, Error>(athletes_repo::search_names(&mut c, ws.org_id, &query, 50).await?)
    };
    let hs_f = async {
        let found = hs_reads::heatsource_search(db, p.heatsource, &query).await?;
        Ok(found
            .into_iter()
            .map(|a| ProfileHit {
                source: Source::Heatsource,
                id: a.id,
                name: a.name,
                country: a.nationality,
                image: a.image,
            })
            .collect::<Vec<_>>())
    };
    let ti_f = async {
        let found = ti_reads::search(db, p, &query).await?;
        Ok(found
            .athletes
            .into_iter()
            .map(|a| ProfileHit {
                source: Source::Tourindex,
                id: a.id,
                name: a.name,
                country: a.country,
                image: a.image,
            })
            .collect::<Vec<_>>())
    };
    // The roster is ours: it gets no provider timeout.
    let (roster_hits, hs_hits, ti_hits) =
        tokio::join!(roster_f, within(timeout, hs_f), within(timeout, ti_f));
    let roster_hits: Vec<(Id, String, String)> = roster_hits?;
    let sources = vec![
        SourceStatus {
            source: "roster",
            status: "ok",
            count: roster_hits.len(),
            error: None,
        },
        status(heatsource::PROVIDER, &hs_hits),
        status(tourindex::PROVIDER, &ti_hits),
    ];

    let mut items: Vec<Candidate> = roster_hits
        .into_iter()
        .map(|(id, first, last)| {
            let name = format!("{first} {last}").trim().to_string();
            Candidate {
                name: name.clone(),
                country: None,
                score: 0.0,
                roster: Some(RosterHit {
                    athlete_id: id,
                    name,
                }),
                profiles: Vec::new(),
            }
        })
        .collect();
    let mut c = db.acquire().await?;
    for hit in [hs_hits, ti_hits].into_iter().flat_map(|o| match o {
        Outcome::Ok(v) => v,
        _ => Vec::new(),
    }) {
        let linked = repo::link(&mut c, ws.org_id, hit.source, &hit.id).await?;
        let slot = match linked {
            Some(l) => match items.iter().position(|i| {
                i.roster
                    .as_ref()
                    .is_some_and(|r| r.athlete_id == l.athlete_id)
            }) {
                Some(i) => Some(i),
                None => {
                    let a = crate::domain::athletes::load(&mut c, ws.org_id, l.athlete_id).await?;
                    let name = format!("{} {}", a.first_name, a.last_name)
                        .trim()
                        .to_string();
                    items.push(Candidate {
                        name: name.clone(),
                        country: None,
                        score: 0.0,
                        roster: Some(RosterHit {
                            athlete_id: a.id,
                            name,
                        }),
                        profiles: Vec::new(),
                    });
                    Some(items.len() - 1)
                }
            },
            None => items.iter().position(|i| {
                fold_name(&i.name) == fold_name(&hit.name)
                    && countries_agree(i.country.as_deref(), hit.country.as_deref())
                    && !i.profiles.iter().any(|p| p.source == hit.source)
            }),
        };
        match slot {
            Some(i) => {
                let cand = &mut items[i];
                if cand.country.is_none() {
                    cand.country = hit.country.clone();
                }
                cand.profiles.push(hit);
            }
            None => items.push(Candidate {
                name: hit.name.clone(),
                country: hit.country.clone(),
                score: 0.0,
                roster: None,
                profiles: vec![hit],
            }),
        }
    }
    for cand in &mut items {
        let sources = cand.profiles.len() + usize::from(cand.roster.is_some());
        cand.score = name_score(&cand.name, &folded) + 0.1 * (sources.saturating_sub(1)) as f64;
    }
    items.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.roster.is_some().cmp(&a.roster.is_some()))
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(SearchAnswer { items, sources })
}

/// One provider profile (cached like the other reads): `GET /api/athlete-search/{source}/{id}`.
pub async fn profile(db: &Db, p: Providers<'_>, source: &str, id: &str) -> Result<Profile> {
    let source = Source::parse(source)
        .map_err(|_| Error::field("source", "invalid", "a source is heatsource or tourindex"))?;
    let id = provider_ref("id", id)?;
    let ttl = match source {
        Source::Heatsource => p.heatsource()?.cache_ttl(),
        Source::Tourindex => p.tourindex()?.cache_ttl(),
    };
    let found: Option<Profile> =
        cached(db, source.as_str(), &format!("profile:{id}"), ttl, async {
            roster::fetch_profile(db, p, source, &id)
                .await
                .map_err(|e| match e {
                    roster::FetchError::Provider(p) => p,
                    roster::FetchError::Store(s) => crate::providers::ProviderError::Unavailable {
                        provider: "store",
                        message: s.to_string(),
                    },
                })
        })
        .await?;
    found.ok_or_else(|| Error::not_found("athlete"))
}
