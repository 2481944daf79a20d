//! Spot details for training sessions (`backfill-spots`): each distinct spot name the sessions
//! use (the spot, else the location) is looked up once at the spot provider and remembered
//! with its outcome, so forecasts and pages know the spot's coordinates.
//!
//! A name matches the spot whose name equals it once case, accents and spacing are folded;
//! failing that, the only spot the provider returns for it. Several candidates and no exact
//! one is `ambiguous`, none is `no_match`; both are asked again after 30 days (the coach may
//! have meant a spot the provider adds later). A matched name is never asked again. A provider
//! failure records nothing, so the next run tries again.

use std::collections::HashMap;

use super::competition::SyncReport;
use super::competition::search::fold_name;
use crate::db::{Db, Id, Ts};
use crate::error::Result;
use crate::providers::ProviderError;
use crate::providers::spotsource::{self, Spot, Spotsource};
use crate::repo::spots as repo;
use crate::repo::{training, wearable};

/// Names resolved per run (the rest wait for the next run).
const NAMES_PER_RUN: usize = 500;
/// Candidates asked of the provider per name.
const CANDIDATES: u32 = 10;

fn recheck_after() -> chrono::Duration {
    chrono::Duration::days(30)
}

/// The spot `candidates` say `name` is, and the outcome's name.
pub fn resolve<'a>(name: &str, candidates: &'a [Spot]) -> (Option<&'a Spot>, &'static str) {
    let key = fold_name(name);
    let exact: Vec<&Spot> = candidates
        .iter()
        .filter(|s| fold_name(&s.name) == key)
        .collect();
    match (exact.as_slice(), candidates) {
        ([one], _) => (Some(one), "matched"),
        ([], [only]) => (Some(only), "matched"),
        ([], []) => (None, "no_match"),
        _ => (None, "ambiguous"),
    }
}

pub async fn backfill(db: &Db, spotsource: Option<&Spotsource>) -> Result<SyncReport> {
    let sp = spotsource.ok_or(ProviderError::NotConfigured(spotsource::PROVIDER))?;
    let now = Ts::now();
    let (names, checked) = {
        let mut c = db.acquire().await?;
        let names = repo::session_spot_names(&mut c).await?;
        let checked: HashMap<String, (String, Ts)> = repo::checked_names(&mut c)
            .await?
            .into_iter()
            .map(|(k, o, t)| (k, (o, t)))
            .collect();
        (names, checked)
    };
    let mut seen = std::collections::HashSet::new();
    let due: Vec<String> = names
        .into_iter()
        .filter(|n| {
            let key = fold_name(n);
            !key.is_empty()
                && seen.insert(key.clone())
                && match checked.get(&key) {
                    None => true,
                    Some((outcome, at)) => outcome != "matched" && *at < now.minus(recheck_after()),
                }
        })
        .take(NAMES_PER_RUN)
        .collect();
    let mut report = SyncReport::default();
    for name in due {
        let item = format!("spot {name}");
        let candidates = match sp.search(&name, CANDIDATES).await {
            Ok(c) => c,
            Err(e) => {
                report.fail(item, &e);
                continue;
            }
        };
        let (spot, outcome) = resolve(&name, &candidates);
        let mut tx = db.begin().await?;
        if let Some(s) = spot {
            repo::upsert_spot(&mut tx, s, now).await?;
        }
        repo::set_name(
            &mut tx,
            &fold_name(&name),
            spot.map(|s| s.slug.as_str()),
            outcome,
            now,
        )
        .await?;
        tx.commit().await?;
        match spot {
            Some(_) => report.created += 1,
            None => report.missing(item, outcome),
        }
    }
    Ok(report)
}

/// The spot a session's spot name (or location) resolved to, if any.
pub async fn details_for(db: &Db, name: Option<&str>) -> Result<Option<Spot>> {
    let Some(name) = name else { return Ok(None) };
    let mut c = db.acquire().await?;
    Ok(repo::spot_for(&mut c, &fold_name(name)).await?)
}

/// A spot name the workspace's sessions use, with the spot it resolved to (none until
/// `backfill-spots` matched it) and how many sessions use it.
pub struct ClubSpot {
    pub name: String,
    pub spot: Option<Spot>,
    pub sessions: i64,
}

/// The workspace's spot names over `[from, to)`, by name (at most 100).
pub async fn club_spots(db: &Db, org: Id, from: Ts, to: Ts) -> Result<Vec<ClubSpot>> {
    let mut c = db.acquire().await?;
    let mut out = Vec::new();
    for (name, sessions) in repo::org_spot_names_between(&mut c, org, from, to).await? {
        let spot = repo::spot_for(&mut c, &fold_name(&name)).await?;
        out.push(ClubSpot {
            name,
            spot,
            sessions,
        });
    }
    Ok(out)
}

/// A ride at a spot: when it started, for how long, and the rider.
pub struct RideAt {
    pub athlete: Option<String>,
    pub at: Ts,
    pub seconds: f64,
    pub distance_m: f64,
    pub top_speed_kmh: f64,
}

/// A training session at a spot with the rides its watch sessions' detector found.
pub struct SessionAt {
    pub session: training::Session,
    pub rides: Vec<RideAt>,
}

/// Sessions read per call; the page shows a fortnight at one spot.
const SESSIONS_AT: i64 = 200;

/// The workspace's training sessions overlapping `[from, to)` whose spot name resolved to
/// `slug`, by start, each with the rides of the watch sessions recorded in it (each watch
/// session's rides as its detector version derived them).
pub async fn sessions_at(db: &Db, org: Id, slug: &str, from: Ts, to: Ts) -> Result<Vec<SessionAt>> {
    let mut c = db.acquire().await?;
    let filter = training::Filter {
        from: Some(from),
        to: Some(to),
        ..Default::default()
    };
    let mut resolved: HashMap<String, bool> = HashMap::new();
    let mut out = Vec::new();
    for s in training::list(&mut c, org, &filter, SESSIONS_AT, 0).await? {
        let Some(name) = s.spot.clone().or_else(|| s.location.clone()) else {
            continue;
        };
        let here = match resolved.get(&name) {
            Some(h) => *h,
            None => {
                let h = repo::spot_for(&mut c, &fold_name(&name))
                    .await?
                    .is_some_and(|sp| sp.slug == slug);
                resolved.insert(name, h);
                h
            }
        };
        if !here {
            continue;
        }
        let mut rides = Vec::new();
        for w in wearable::of_training_session(&mut c, org, s.id).await? {
            let Some(version) = w.detector_version.as_deref() else {
                continue;
            };
            let athlete = match w.athlete_id {
                Some(a) => wearable::athlete_name(&mut c, a)
                    .await?
                    .map(|n| format!("{} {}", n.first_name, n.last_name)),
                None => None,
            };
            for r in wearable::rides(&mut c, w.id, version).await? {
                rides.push(RideAt {
                    athlete: athlete.clone(),
                    at: Ts(w.started_at.0 + chrono::Duration::milliseconds(r.start_ms)),
                    seconds: (r.end_ms - r.start_ms) as f64 / 1000.0,
                    distance_m: r.distance_m,
                    top_speed_kmh: r.top_speed_kmh,
                });
            }
        }
        rides.sort_by_key(|r| r.at);
        out.push(SessionAt { session: s, rides });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(slug: &str, name: &str) -> Spot {
        Spot {
            slug: slug.into(),
            name: name.into(),
            region: None,
            country: None,
            latitude: None,
            longitude: None,
        }
    }

    #[test]
    fn names_resolve_exactly_else_to_the_only_candidate() {
        let two = [
            spot("n", "Manly Beach North"),
            spot("s", "Manly Beach South"),
        ];
        assert_eq!(resolve("manly  beach north", &two).0.unwrap().slug, "n");
        assert_eq!(resolve("Manly", &two), (None, "ambiguous"));
        let one = [spot("p", "Banzai Pipeline")];
        assert_eq!(resolve("Pipeline", &one).1, "matched");
        assert_eq!(resolve("Nowhere", &[]), (None, "no_match"));
    }
}
