//! Provider profiles brought into the roster: one profile shape whatever the provider, the
//! import that resolves a profile into a roster athlete (linking an existing one rather than
//! creating a duplicate), and the resync that refreshes linked athletes and their results.
//!
//! A link (`athlete_provider_links`) says "this roster athlete is that provider profile"; it
//! is unique per workspace, provider and profile, so one profile is never two athletes of one
//! workspace. Results are upserted per provider, event and division, so a resync that finds
//! nothing new changes nothing but `synced_at`.

use std::collections::HashMap;

use chrono::{Datelike, NaiveDate};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

pub use crate::model::competition::Source;

use super::SyncReport;
use crate::db::{self, Db, Id, Ts, Tx};
use crate::domain::InWorkspace;
use crate::domain::athletes::{AthleteSource, AthleteStatus};
use crate::error::{Error, Result};
use crate::providers::ProviderError;
use crate::providers::heatsource::{self, Event, Heatsource};
use crate::providers::tourindex::{self, Tourindex};
use crate::repo::athletes::{self as roster, NewAthlete};
use crate::repo::audit;
use crate::repo::competition::{self as repo, Link, ResultRow};
use crate::repo::heatsource as synced;

/// The configured providers (either may be absent).
#[derive(Clone, Copy, Default)]
pub struct Providers<'a> {
    pub heatsource: Option<&'a Heatsource>,
    pub tourindex: Option<&'a Tourindex>,
}

impl<'a> Providers<'a> {
    pub fn heatsource(&self) -> Result<&'a Heatsource, ProviderError> {
        self.heatsource
            .ok_or(ProviderError::NotConfigured(heatsource::PROVIDER))
    }

    pub fn tourindex(&self) -> Result<&'a Tourindex, ProviderError> {
        self.tourindex
            .ok_or(ProviderError::NotConfigured(tourindex::PROVIDER))
    }
}

/// One result on a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileResult {
    /// The provider's event id, or `name:{event}|{date}` when the provider gives none.
    pub event_key: String,
    pub event_name: String,
    /// The division, where the provider has several per event (else empty).
    pub division: String,
    pub date: Option<String>,
    pub place: Option<i64>,
    pub points: Option<f64>,
}

/// A provider's athlete profile, the same shape for every provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub source: Source,
    pub id: String,
    pub name: String,
    pub country: Option<String>,
    pub birth_date: Option<String>,
    pub stance: Option<String>,
    pub image: Option<String>,
    pub results: Vec<ProfileResult>,
    /// What the provider's pages had that could not be read (tour index).
    pub issues: Vec<String>,
    /// Known only by id and name (an event's competitor list): never stored over a fuller
    /// profile already read.
    #[serde(skip)]
    pub partial: bool,
}

impl Profile {
    /// A profile known only by id and name (an event's competitor list).
    pub fn named(source: Source, id: &str, name: &str) -> Self {
        Profile {
            source,
            id: id.to_string(),
            name: name.to_string(),
            country: None,
            birth_date: None,
            stance: None,
            image: None,
            results: Vec::new(),
            issues: Vec::new(),
            partial: true,
        }
    }
}

/// The profile as the provider has it now (not cached: imports and resyncs want the current
/// state); `None` when the provider does not know the id.
///
/// heatsource serves profiles without results: an athlete's results are read from the events
/// the scheduled `heatsource-sync` keeps (the followed organisations' events).
pub async fn fetch_profile(
    db: &Db,
    p: Providers<'_>,
    source: Source,
    id: &str,
) -> Result<Option<Profile>, FetchError> {
    match source {
        Source::Heatsource => {
            let Some(a) = p.heatsource()?.athlete(id).await? else {
                return Ok(None);
            };
            let mut profile = Profile::named(Source::Heatsource, &a.id, &a.name);
            profile.partial = false;
            profile.country = a.nationality;
            profile.image = a.image;
            profile.results = heatsource_results(db, id).await?;
            Ok(Some(profile))
        }
        Source::Tourindex => {
            let Some(t) = p.tourindex()?.athlete(id).await? else {
                return Ok(None);
            };
            Ok(Some(Profile {
                source: Source::Tourindex,
                id: t.id,
                name: t.name,
                country: t.country,
                birth_date: t.birth_date,
                stance: t.stance,
                image: t.image,
                results: t
                    .results
                    .into_iter()
                    .map(|r| ProfileResult {
                        event_key: r.event_id.clone().unwrap_or_else(|| {
                            format!("name:{}|{}", r.event_name, r.date.as_deref().unwrap_or(""))
                        }),
                        event_name: r.event_name,
                        division: String::new(),
                        date: r.date,
                        place: r.place,
                        points: r.points,
                    })
                    .collect(),
                issues: t.issues,
                partial: false,
            }))
        }
    }
}

/// A fetch failed at the provider, or reading our own tables failed.
#[derive(Debug)]
pub enum FetchError {
    Provider(ProviderError),
    Store(Error),
}

impl From<ProviderError> for FetchError {
    fn from(e: ProviderError) -> Self {
        FetchError::Provider(e)
    }
}

impl From<Error> for FetchError {
    fn from(e: Error) -> Self {
        FetchError::Store(e)
    }
}

impl From<sqlx::Error> for FetchError {
    fn from(e: sqlx::Error) -> Self {
        FetchError::Store(e.into())
    }
}

impl From<FetchError> for Error {
    fn from(e: FetchError) -> Self {
        match e {
            FetchError::Provider(p) => p.into(),
            FetchError::Store(s) => s,
        }
    }
}

/// The athlete's places in the synced heatsource events, one per event division.
async fn heatsource_results(db: &Db, athlete: &str) -> Result<Vec<ProfileResult>> {
    let events: Vec<Event> = {
        let mut c = db.acquire().await?;
        synced::events(&mut c)
            .await?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect()
    };
    let mut out = Vec::new();
    for e in &events {
        for d in &e.event_divisions {
            if let Some(r) = d.ranking.iter().find(|r| r.athlete_id == athlete) {
                out.push(ProfileResult {
                    event_key: e.id.clone(),
                    event_name: e.name.clone(),
                    division: d.division.name.clone(),
                    date: e.date.as_ref().map(|d| d.chars().take(10).collect()),
                    place: r.place,
                    points: None,
                });
            }
        }
    }
    Ok(out)
}

/// Who imports: a member in the api, or the member who asked for a job.
#[derive(Clone, Copy, Debug)]
pub struct Importer {
    pub org_id: Id,
    pub user_id: Option<Id>,
    pub impersonator: Option<Id>,
}

impl From<&InWorkspace> for Importer {
    fn from(ws: &InWorkspace) -> Self {
        Importer {
            org_id: ws.org_id,
            user_id: Some(ws.actor.user_id),
            impersonator: ws.actor.impersonator,
        }
    }
}

impl Importer {
    fn audit<'a>(&self, action: &'a str, athlete: Id, data: serde_json::Value) -> audit::Entry<'a> {
        audit::Entry {
            org_id: Some(self.org_id),
            actor: self.user_id,
            impersonator: self.impersonator,
            action,
            target_type: "athlete",
            target_id: Some(athlete.to_string()),
            data,
        }
    }
}

/// What an import did.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    pub athlete_id: Id,
    /// A new roster athlete was created (else an existing one was linked or already was).
    pub created: bool,
    /// A link was added by this import (false: the profile was already linked).
    pub linked: bool,
    /// Enrolled in the circuit by this import (false: no circuit, or already enrolled).
    pub enrolled: bool,
}

/// First name and the rest, from a provider's single name field.
fn split_name(name: &str) -> (String, String) {
    let mut parts = name.split_whitespace();
    let first = parts.next().unwrap_or("").to_string();
    let last = parts.collect::<Vec<_>>().join(" ");
    (first, last)
}

/// A plausible birth date, else none (providers print all sorts).
fn birth_date(s: Option<&str>) -> Option<NaiveDate> {
    let d = NaiveDate::parse_from_str(s?.get(..10)?, "%Y-%m-%d").ok()?;
    (d.year() >= 1900 && d <= Ts::now().0.date_naive()).then_some(d)
}

/// Resolves `profile` into a roster athlete of the importer's workspace:
///
/// - already linked: that athlete (`into`, when given, must be it: else 409 `already_linked`);
/// - `into` given: links that athlete (404 when not in the workspace; 409
///   `athlete_already_linked` when it is linked to another profile of this provider);
/// - else the one roster athlete with the same first and last name (case-insensitive) and no
///   link to this provider is linked; several such athletes: 409 `ambiguous_match` with their
///   ids (pass `athleteId` to choose); none: a new athlete (source `provider`) is created.
///
/// Then the profile and its results are stored, and the athlete is enrolled in `circuit`
/// when given (404 when the circuit is not the workspace's). One transaction; a concurrent
/// import of the same profile finds the link the other made (the unique link decides).
pub async fn import(
    db: &Db,
    by: &Importer,
    profile: &Profile,
    into: Option<Id>,
    circuit: Option<Id>,
) -> Result<Imported> {
    import_then(db, by, profile, into, circuit, &|_, _| {
        Box::pin(async { Ok(()) })
    })
    .await
}

/// A step an import runs in its transaction once the profile is resolved, before it commits
/// (an identity confirmation's audit entry and forgotten rejection).
pub type AfterImport<'a> =
    &'a (dyn for<'t> Fn(&'t mut Tx, &'t Imported) -> BoxFuture<'t, Result<()>> + Send + Sync);

/// [`import`], with `then` run in the import's transaction (on each attempt that resolves).
pub async fn import_then(
    db: &Db,
    by: &Importer,
    profile: &Profile,
    into: Option<Id>,
    circuit: Option<Id>,
    then: AfterImport<'_>,
) -> Result<Imported> {
    for attempt in 0..2 {
        let mut tx = db.begin().await?;
        match import_in(&mut tx, by, profile, into, circuit).await {
            Ok(done) => {
                then(&mut tx, &done).await?;
                tx.commit().await?;
                return Ok(done);
            }
            Err(Retry::Again) if attempt == 0 => continue,
            Err(Retry::Again) => {
                return Err(Error::conflict(
                    "import_conflict",
                    "the profile is being imported concurrently; retry",
                ));
            }
            Err(Retry::Fail(e)) => return Err(e),
        }
    }
    unreachable!("the loop returns")
}

enum Retry {
    /// The link was made concurrently: start again and find it.
    Again,
    Fail(Error),
}

impl<E: Into<Error>> From<E> for Retry {
    fn from(e: E) -> Self {
        Retry::Fail(e.into())
    }
}

async fn import_in(
    tx: &mut Tx,
    by: &Importer,
    profile: &Profile,
    into: Option<Id>,
    circuit: Option<Id>,
) -> std::result::Result<Imported, Retry> {
    let provider = profile.source;
    let circuit = match circuit {
        None => None,
        Some(id) => Some(
            repo::circuit(&mut *tx, by.org_id, id)
                .await?
                .ok_or_else(|| Error::not_found("circuit"))?,
        ),
    };
    let existing = repo::link(&mut *tx, by.org_id, provider, &profile.id).await?;
    let (athlete_id, created, linked) = match existing {
        Some(l) => {
            if into.is_some_and(|i| i != l.athlete_id) {
                return Err(Error::conflict(
                    "already_linked",
                    "this profile is already linked to another athlete of the workspace",
                )
                .into());
            }
            (l.athlete_id, false, false)
        }
        None => {
            let (athlete, created) = match into {
                Some(id) => {
                    let a = crate::domain::athletes::load(&mut *tx, by.org_id, id).await?;
                    if repo::links_of(&mut *tx, a.id)
                        .await?
                        .iter()
                        .any(|l| l.provider == provider)
                    {
                        return Err(Error::conflict(
                            "athlete_already_linked",
                            "this athlete is already linked to another profile of this provider",
                        )
                        .into());
                    }
                    (a.id, false)
                }
                None => {
                    let (first, last) = split_name(&profile.name);
                    let same = roster::unlinked_by_name(
                        &mut *tx,
                        by.org_id,
                        &first,
                        &last,
                        provider.as_str(),
                    )
                    .await?;
                    match same.as_slice() {
                        [one] => (*one, false),
                        [] => {
                            let new = NewAthlete {
                                first_name: first,
                                last_name: last,
                                email: None,
                                birth_date: birth_date(profile.birth_date.as_deref()),
                                stance: None,
                                level: None,
                                notes: None,
                                status: AthleteStatus::Active,
                                source: AthleteSource::Provider,
                            };
                            let a = roster::insert(&mut *tx, by.org_id, &new, by.user_id).await?;
                            audit::record(
                                &mut *tx,
                                by.audit(
                                    "athlete.created",
                                    a.id,
                                    json!({ "source": AthleteSource::Provider, "provider": provider, "externalId": profile.id }),
                                ),
                            )
                            .await?;
                            (a.id, true)
                        }
                        several => {
                            return Err(Error::conflict(
                                "ambiguous_match",
                                format!(
                                    "{} roster athletes share this name; choose one with athleteId: {}",
                                    several.len(),
                                    several
                                        .iter()
                                        .map(Id::to_string)
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            )
                            .into());
                        }
                    }
                }
            };
            match roster::add_provider_link(
                &mut *tx,
                by.org_id,
                athlete,
                provider.as_str(),
                &profile.id,
            )
            .await
            {
                Ok(_) => {}
                Err(e) if db::is_unique_violation(&e) => return Err(Retry::Again),
                Err(e) => return Err(e.into()),
            }
            audit::record(
                &mut *tx,
                by.audit(
                    "athlete.provider_linked",
                    athlete,
                    json!({ "provider": provider, "externalId": profile.id }),
                ),
            )
            .await?;
            (athlete, created, true)
        }
    };
    let link = repo::link(&mut *tx, by.org_id, provider, &profile.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the link just made is missing")))?;
    if linked || !profile.partial {
        store_profile(&mut *tx, &link, profile, &mut SyncReport::default()).await?;
    }
    let enrolled = match &circuit {
        Some(c) => repo::enroll(&mut *tx, by.org_id, c.id, athlete_id, Ts::now()).await?,
        None => false,
    };
    Ok(Imported {
        athlete_id,
        created,
        linked,
        enrolled,
    })
}

/// Stores the profile on its link and upserts its results for the linked athlete, counting
/// each in `report`.
async fn store_profile(
    tx: &mut Tx,
    link: &Link,
    profile: &Profile,
    report: &mut SyncReport,
) -> Result<()> {
    let now = Ts::now();
    let data = serde_json::to_value(profile).map_err(Error::internal)?;
    report.count(repo::set_link_profile(&mut *tx, link, &data, now).await?);
    for r in &profile.results {
        let row = ResultRow {
            provider: link.provider,
            event_key: r.event_key.clone(),
            division: r.division.clone(),
            event_name: r.event_name.clone(),
            event_date: r.date.clone(),
            place: r.place,
            points: r.points,
        };
        report.count(repo::upsert_result(&mut *tx, link.org_id, link.athlete_id, &row, now).await?);
    }
    Ok(())
}

/// Refreshes `links` from their providers: each profile is fetched once however many
/// workspaces link it, then stored on every link with its results. A profile the provider no
/// longer has, or that fails, is reported per link; the others are stored.
pub async fn refresh_links(db: &Db, p: Providers<'_>, links: &[Link]) -> Result<SyncReport> {
    let mut report = SyncReport::default();
    let mut fetched: HashMap<(Source, String), Option<Profile>> = HashMap::new();
    for link in links {
        let item = format!(
            "{} {} (athlete {})",
            link.provider, link.external_id, link.athlete_id
        );
        let source = link.provider;
        let key = (source, link.external_id.clone());
        let profile = match fetched.get(&key) {
            Some(p) => p.clone(),
            None => match fetch_profile(db, p, source, &link.external_id).await {
                Ok(profile) => {
                    fetched.insert(key, profile.clone());
                    profile
                }
                Err(FetchError::Provider(e)) => {
                    report.fail(item, &e);
                    continue;
                }
                Err(FetchError::Store(e)) => return Err(e),
            },
        };
        let Some(profile) = profile else {
            report.missing(item, "the provider no longer has this profile");
            continue;
        };
        let mut tx = db.begin().await?;
        store_profile(&mut tx, link, &profile, &mut report).await?;
        tx.commit().await?;
    }
    Ok(report)
}

/// `athletes.resync`: the athlete's links (to `only` that provider, when given) refreshed.
pub async fn resync(
    db: &Db,
    p: Providers<'_>,
    athlete: Id,
    only: Option<Source>,
) -> Result<SyncReport> {
    let links: Vec<Link> = {
        let mut c = db.acquire().await?;
        repo::links_of(&mut c, athlete)
            .await?
            .into_iter()
            .filter(|l| only.is_none_or(|s| s == l.provider))
            .collect()
    };
    refresh_links(db, p, &links).await
}

/// Every link to the tour index (of one workspace, or all): `tourindex-athletes-sync` and
/// `POST /api/tourindex/athletes/sync`.
pub async fn tourindex_athletes_sync(
    db: &Db,
    p: Providers<'_>,
    org: Option<Id>,
) -> Result<SyncReport> {
    p.tourindex()?;
    let links = {
        let mut c = db.acquire().await?;
        repo::links_to(&mut c, Source::Tourindex, org).await?
    };
    refresh_links(db, p, &links).await
}

/// The athlete's stored results (any provider), newest first.
pub async fn results(db: &Db, ws: &InWorkspace, athlete: Id) -> Result<Vec<ResultRow>> {
    let a = crate::domain::athletes::get(ws, db, athlete).await?;
    let mut c = db.acquire().await?;
    Ok(repo::results_of(&mut c, a.id).await?)
}

/// Whether the athlete (404 when not the workspace's) is linked to `source`.
pub async fn linked_to(db: &Db, ws: &InWorkspace, athlete: Id, source: Source) -> Result<bool> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, ws.org_id, athlete).await?;
    Ok(repo::links_of(&mut c, a.id)
        .await?
        .iter()
        .any(|l| l.provider == source))
}

/// Links `athlete` to the tour-index profile `external_id` for `import-results`, when it is
/// not linked to it yet (the same rules as [`import`] with `into`).
pub async fn link_tourindex(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    external_id: &str,
) -> Result<()> {
    let mut tx = db.begin().await?;
    let a = crate::domain::athletes::load(&mut tx, ws.org_id, athlete).await?;
    match repo::link(&mut tx, ws.org_id, Source::Tourindex, external_id).await? {
        Some(l) if l.athlete_id == a.id => return Ok(()),
        Some(_) => {
            return Err(Error::conflict(
                "already_linked",
                "this profile is already linked to another athlete of the workspace",
            ));
        }
        None => {}
    }
    if repo::links_of(&mut tx, a.id)
        .await?
        .iter()
        .any(|l| l.provider == Source::Tourindex)
    {
        return Err(Error::conflict(
            "athlete_already_linked",
            "this athlete is already linked to another profile of this provider",
        ));
    }
    roster::add_provider_link(&mut tx, ws.org_id, a.id, tourindex::PROVIDER, external_id).await?;
    audit::record(
        &mut tx,
        Importer::from(ws).audit(
            "athlete.provider_linked",
            a.id,
            json!({ "provider": tourindex::PROVIDER, "externalId": external_id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
