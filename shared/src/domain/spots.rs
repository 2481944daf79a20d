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
use crate::db::{Db, Ts};
use crate::error::Result;
use crate::providers::ProviderError;
use crate::providers::spotsource::{self, Spot, Spotsource};
use crate::repo::spots as repo;

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
