//! `GET /api/identity/match`: the provider profiles that may be one roster athlete, each
//! scored and explained by [`super::identity::score`] (`docs/competition.md`, "Identity and
//! dedup").
//!
//! Candidates come from the providers' searches (the athlete's full name and surname, cached
//! like every search, each provider within the search timeout) and from what is stored
//! locally: the tour index's directory (`tourindex_athletes`), the competitors and results of
//! the synced heatsource and tour-index events, and the rankings of the workspace's circuits.
//! A candidate whose name is unrelated to the athlete's is dropped before scoring; a provider
//! the athlete is already linked to is not asked (an athlete has one profile per provider);
//! a profile rejected for the athlete is never offered again.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use utoipa::ToSchema;

use super::identity::{self, Birth, EventRef, Group, Person, Scored};
use super::roster::{Profile, Providers, Source};
use super::search::{self, SourceStatus};
use super::{heatsource as hs_reads, search_query, tourindex as ti_reads};
use crate::db::{Db, Executor, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result};
use crate::providers::heatsource::{self, Event};
use crate::providers::tourindex::{self};
use crate::providers::tourindex_pages::{TourEvent, TourProfile};
use crate::repo::athletes::Athlete;
use crate::repo::competition::{self as repo, Link};
use crate::repo::heatsource as synced;
use crate::repo::identity as ids;
use crate::repo::provider_cache;

/// At most this many candidates are answered (best first).
pub const MAX_CANDIDATES: usize = 50;
/// Directory rows read per name word.
const DIRECTORY_PER_WORD: i64 = 100;

crate::text_enum! {
    /// Where a candidate profile was seen.
    pub enum FoundIn {
        /// The provider's athlete search.
        Search = "search",
        /// The tour index's directory, as the scrape keeps it.
        Directory = "directory",
        /// The competitors and results of synced events.
        Events = "events",
        /// A ranking of one of the workspace's circuits.
        Rankings = "rankings",
    }
}

/// A provider profile that may be the athlete.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchCandidate {
    pub source: Source,
    pub external_id: String,
    pub name: String,
    pub country: Option<String>,
    pub image: Option<String>,
    pub found_in: Vec<FoundIn>,
    /// Another athlete of the workspace is linked to this profile already (confirming it for
    /// this athlete answers 409 `already_linked`).
    pub linked_athlete_id: Option<Id>,
    /// 0–1, at least 0.4 (`docs/competition.md`).
    pub score: f64,
    pub confidence: identity::Confidence,
    /// Every field compared, with how much it counted.
    pub explanation: Vec<identity::Evidence>,
}

/// The athlete a match is for.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchedAthlete {
    pub athlete_id: Id,
    pub name: String,
}

/// Every candidate (best first, at most [`MAX_CANDIDATES`]) and how each provider answered.
#[derive(Clone, Debug)]
pub struct MatchAnswer {
    pub athlete: MatchedAthlete,
    pub candidates: Vec<MatchCandidate>,
    pub sources: Vec<SourceStatus>,
}

// ---- the roster side ----

/// The roster's competition data (links, results, circuit enrollments), loaded once and
/// grouped by athlete.
#[derive(Default)]
pub(super) struct RosterData {
    links: HashMap<Id, Vec<Link>>,
    events: HashMap<Id, Vec<EventRef>>,
    divisions: HashMap<Id, Vec<String>>,
    groups: HashMap<Id, Vec<Group>>,
}

impl RosterData {
    /// The workspace's data, or one athlete's.
    pub(super) async fn load(
        x: &mut impl Executor,
        org: Id,
        athlete: Option<Id>,
    ) -> Result<RosterData> {
        let mut d = RosterData::default();
        for l in ids::org_links(x, org, athlete).await? {
            d.links.entry(l.athlete_id).or_default().push(l);
        }
        for r in ids::org_results(x, org, athlete).await? {
            if !r.division.is_empty() {
                d.divisions
                    .entry(r.athlete_id)
                    .or_default()
                    .push(r.division.clone());
            }
            d.events.entry(r.athlete_id).or_default().push(EventRef {
                provider: r.provider.to_string(),
                name: r.event_name,
                date: r.event_date,
            });
        }
        for e in ids::org_enrollments(x, org, athlete).await? {
            d.groups.entry(e.athlete_id).or_default().push(Group {
                key: format!("circuit:{}", e.circuit_id),
                label: e.circuit_name,
            });
        }
        Ok(d)
    }

    pub(super) fn links(&self, athlete: Id) -> &[Link] {
        self.links.get(&athlete).map_or(&[], Vec::as_slice)
    }

    /// The athlete as identity compares them: name, email, birth date, the country their
    /// linked profiles give, their links, results' events and divisions, and circuits.
    pub(super) fn person(&self, a: &Athlete) -> Person {
        let links = self.links(a.id);
        let country = links.iter().find_map(|l| {
            l.data
                .as_ref()
                .and_then(|d| d.0.get("country"))
                .and_then(|c| c.as_str())
                .filter(|c| !c.trim().is_empty())
                .map(str::to_string)
        });
        let mut divisions = self.divisions.get(&a.id).cloned().unwrap_or_default();
        divisions.sort();
        divisions.dedup();
        Person {
            name: full_name(a),
            country,
            birth: a.birth_date.map(Birth::Date),
            email: a.email.clone(),
            links: links
                .iter()
                .map(|l| (l.provider.to_string(), l.external_id.clone()))
                .collect(),
            events: self.events.get(&a.id).cloned().unwrap_or_default(),
            divisions,
            groups: self.groups.get(&a.id).cloned().unwrap_or_default(),
        }
    }
}

pub(super) fn full_name(a: &Athlete) -> String {
    format!("{} {}", a.first_name.trim(), a.last_name.trim())
        .trim()
        .to_string()
}

// ---- the candidates ----

/// A profile as gathered from every place it was seen.
struct Gathered {
    name: String,
    country: Option<String>,
    image: Option<String>,
    found_in: BTreeSet<FoundIn>,
    events: Vec<EventRef>,
    divisions: Vec<String>,
    groups: Vec<Group>,
}

#[derive(Default)]
struct Pool {
    by_key: HashMap<(Source, String), Gathered>,
}

impl Pool {
    fn see(&mut self, source: Source, id: &str, name: &str, found: FoundIn) -> &mut Gathered {
        let g = self
            .by_key
            .entry((source, id.to_string()))
            .or_insert_with(|| Gathered {
                name: name.to_string(),
                country: None,
                image: None,
                found_in: BTreeSet::new(),
                events: Vec::new(),
                divisions: Vec::new(),
                groups: Vec::new(),
            });
        g.found_in.insert(found);
        g
    }
}

/// What the synced events say about each provider athlete: name, events, divisions.
#[derive(Default)]
struct Competed {
    name: String,
    events: Vec<EventRef>,
    divisions: Vec<String>,
}

fn heatsource_competitors(events: &[Event]) -> HashMap<String, Competed> {
    let mut out: HashMap<String, Competed> = HashMap::new();
    for e in events {
        let date = e.date.as_ref().map(|d| d.chars().take(10).collect());
        for d in &e.event_divisions {
            let mut names: HashMap<&str, &str> = HashMap::new();
            for h in &d.heats {
                for c in &h.competitors {
                    names.insert(&c.athlete_id, &c.athlete.name);
                }
            }
            let mut ids: BTreeSet<&str> = names.keys().copied().collect();
            ids.extend(d.ranking.iter().map(|r| r.athlete_id.as_str()));
            for id in ids {
                let c = out.entry(id.to_string()).or_default();
                if c.name.is_empty()
                    && let Some(n) = names.get(id)
                {
                    c.name = n.to_string();
                }
                let ev = EventRef {
                    provider: heatsource::PROVIDER.into(),
                    name: e.name.clone(),
                    date: date.clone(),
                };
                if !c.events.contains(&ev) {
                    c.events.push(ev);
                }
                if !c.divisions.contains(&d.division.name) {
                    c.divisions.push(d.division.name.clone());
                }
            }
        }
    }
    out
}

fn tourindex_competitors(events: &[TourEvent]) -> HashMap<String, Competed> {
    let mut out: HashMap<String, Competed> = HashMap::new();
    for e in events {
        for r in &e.results {
            let Some(id) = &r.athlete_id else { continue };
            let c = out.entry(id.clone()).or_default();
            if c.name.is_empty() {
                c.name = r.athlete_name.clone();
            }
            let ev = EventRef {
                provider: tourindex::PROVIDER.into(),
                name: e.name.clone(),
                date: e.date.clone(),
            };
            if !c.events.contains(&ev) {
                c.events.push(ev);
            }
        }
    }
    out
}

/// The names the providers are searched for: the full name, and the surname on its own (a
/// provider that writes the given name as an initial still finds the surname).
fn search_queries(a: &Athlete) -> Vec<String> {
    let mut qs = Vec::new();
    for q in [full_name(a), a.last_name.trim().to_string()] {
        if let Ok(q) = search_query(&q)
            && !qs.contains(&q)
        {
            qs.push(q);
        }
    }
    qs
}

/// A birth date (and country) the provider's profile gave when it was read (a cached
/// profile read; no provider is asked here).
async fn cached_profile(
    x: &mut impl Executor,
    source: Source,
    id: &str,
) -> Result<(Option<Birth>, Option<String>)> {
    let now = Ts::now();
    if let Some(v) =
        provider_cache::fresh(x, source.as_str(), &format!("profile:{id}"), now).await?
        && let Ok(Some(p)) = serde_json::from_value::<Option<Profile>>(v)
    {
        return Ok((p.birth_date.as_deref().and_then(Birth::parse), p.country));
    }
    if source == Source::Tourindex
        && let Some(v) =
            provider_cache::fresh(x, tourindex::PROVIDER, &format!("athlete:{id}"), now).await?
        && let Ok(p) = serde_json::from_value::<TourProfile>(v)
    {
        return Ok((p.birth_date.as_deref().and_then(Birth::parse), p.country));
    }
    Ok((None, None))
}

/// The provider profiles that may be `athlete` (404 when not the workspace's), scored and
/// explained, best first.
pub async fn candidates(
    db: &Db,
    p: Providers<'_>,
    ws: &InWorkspace,
    athlete: Id,
    timeout: std::time::Duration,
) -> Result<MatchAnswer> {
    let (a, me, linked, rejected) = {
        let mut c = db.acquire().await?;
        let a = crate::domain::athletes::load(&mut c, ws.org_id, athlete).await?;
        let data = RosterData::load(&mut c, ws.org_id, Some(a.id)).await?;
        let me = data.person(&a);
        let linked: HashSet<Source> = data.links(a.id).iter().map(|l| l.provider).collect();
        let rejected: HashSet<(Source, String)> =
            ids::rejected_of(&mut c, a.id).await?.into_iter().collect();
        (a, me, linked, rejected)
    }; // the connection goes back to the pool while the providers are asked
    let queries = search_queries(&a);
    let skip_hs = linked.contains(&Source::Heatsource);
    let skip_ti = linked.contains(&Source::Tourindex);
    let hs_f = async {
        let mut out = Vec::new();
        for q in &queries {
            out.extend(hs_reads::heatsource_search(db, p.heatsource, q).await?);
        }
        Ok(out)
    };
    let ti_f = async {
        let mut out = Vec::new();
        for q in &queries {
            out.extend(ti_reads::search(db, p, q).await?.athletes);
        }
        Ok(out)
    };
    let (hs_hits, ti_hits) = tokio::join!(
        async {
            if skip_hs {
                None
            } else {
                Some(search::within(timeout, hs_f).await)
            }
        },
        async {
            if skip_ti {
                None
            } else {
                Some(search::within(timeout, ti_f).await)
            }
        }
    );
    let linked_status = |source: &'static str| SourceStatus {
        source,
        status: "linked",
        count: 0,
        error: None,
    };
    let sources = vec![
        hs_hits.as_ref().map_or_else(
            || linked_status(heatsource::PROVIDER),
            |o| search::status(heatsource::PROVIDER, o),
        ),
        ti_hits.as_ref().map_or_else(
            || linked_status(tourindex::PROVIDER),
            |o| search::status(tourindex::PROVIDER, o),
        ),
    ];

    let mut pool = Pool::default();
    if let Some(search::Outcome::Ok(hits)) = hs_hits {
        for h in hits {
            let g = pool.see(Source::Heatsource, &h.id, &h.name, FoundIn::Search);
            g.country = g.country.take().or(h.nationality);
            g.image = g.image.take().or(h.image);
        }
    }
    if let Some(search::Outcome::Ok(hits)) = ti_hits {
        for h in hits {
            let g = pool.see(Source::Tourindex, &h.id, &h.name, FoundIn::Search);
            g.country = g.country.take().or(h.country);
            g.image = g.image.take().or(h.image);
        }
    }

    let mut c = db.acquire().await?;
    let related = |name: &str| identity::names_related(&me.name, name);
    if !skip_ti {
        let mut words: Vec<String> = identity::tokens(&me.name)
            .into_iter()
            .filter(|w| w.chars().count() >= 2)
            .collect();
        words.truncate(4);
        for w in words {
            for r in repo::list_tour_athletes(&mut c, None, Some(&w), DIRECTORY_PER_WORD, 0).await?
            {
                if related(&r.name) {
                    let g = pool.see(
                        Source::Tourindex,
                        &r.provider_id,
                        &r.name,
                        FoundIn::Directory,
                    );
                    g.country = g.country.take().or(r.country);
                    g.image = g.image.take().or(r.image_url);
                }
            }
        }
    }
    let hs_events: Vec<Event> = synced::events(&mut c)
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let ti_events: Vec<TourEvent> = ids::tour_events(&mut c)
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let competed = [
        (Source::Heatsource, heatsource_competitors(&hs_events)),
        (Source::Tourindex, tourindex_competitors(&ti_events)),
    ];
    for (source, who) in &competed {
        for (id, w) in who {
            if !w.name.is_empty() && related(&w.name) {
                pool.see(*source, id, &w.name, FoundIn::Events);
            }
        }
    }
    for r in ids::org_rankings(&mut c, ws.org_id).await? {
        let source = r.provider;
        let g = if related(&r.athlete_name) {
            Some(pool.see(
                source,
                &r.athlete_external_id,
                &r.athlete_name,
                FoundIn::Rankings,
            ))
        } else {
            pool.by_key
                .get_mut(&(source, r.athlete_external_id.clone()))
        };
        if let Some(g) = g {
            g.found_in.insert(FoundIn::Rankings);
            let group = Group {
                key: format!("circuit:{}", r.circuit_id),
                label: r.circuit_name,
            };
            if !g.groups.contains(&group) {
                g.groups.push(group);
            }
            if !g.divisions.contains(&r.division_name) {
                g.divisions.push(r.division_name);
            }
        }
    }

    let mut out = Vec::new();
    for ((source, id), mut g) in pool.by_key {
        if linked.contains(&source) || rejected.contains(&(source, id.clone())) {
            continue;
        }
        if let Some((_, who)) = competed.iter().find(|(s, _)| *s == source)
            && let Some(w) = who.get(&id)
        {
            g.events.extend(w.events.iter().cloned());
            for d in &w.divisions {
                if !g.divisions.contains(d) {
                    g.divisions.push(d.clone());
                }
            }
        }
        let (birth, cached_country) = cached_profile(&mut c, source, &id).await?;
        let them = Person {
            name: g.name.clone(),
            country: g.country.clone().or(cached_country),
            birth,
            email: None,
            links: vec![(source.as_str().to_string(), id.clone())],
            events: g.events,
            divisions: g.divisions,
            groups: g.groups,
        };
        let Scored {
            score,
            confidence,
            explanation,
        } = identity::score(&me, &them);
        if score < identity::MATCH_MIN {
            continue;
        }
        let linked_to = repo::link(&mut c, ws.org_id, source, &id)
            .await?
            .map(|l| l.athlete_id);
        out.push(MatchCandidate {
            source,
            external_id: id,
            name: g.name,
            country: them.country,
            image: g.image,
            found_in: g.found_in.into_iter().collect(),
            linked_athlete_id: linked_to,
            score,
            confidence,
            explanation,
        });
    }
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| x.name.cmp(&y.name))
            .then(x.source.cmp(&y.source))
            .then_with(|| x.external_id.cmp(&y.external_id))
    });
    out.truncate(MAX_CANDIDATES);
    Ok(MatchAnswer {
        athlete: MatchedAthlete {
            athlete_id: a.id,
            name: full_name(&a),
        },
        candidates: out,
        sources,
    })
}

/// The athlete id a match is asked for (`athleteId`, required).
pub fn athlete_param(v: Option<Id>) -> Result<Id> {
    v.ok_or_else(|| Error::field("athleteId", "required", "the roster athlete to match"))
}
