//! Surf forecasts (issue 16; decisions in `docs/forecasts.md`).
//!
//! A forecast is asked for a spot (its coordinates) or a point. The world is cut into grid
//! cells of [`CELL_DEG`] degrees, and a cell's forecast is fetched at most once per cache
//! window (`FORECAST_CACHE_HOURS`, UTC-aligned): every spot and point in the cell is served
//! from that one row of `provider_cache` until the window ends. A fetch asks the primary
//! provider (spotsource, for a known spot) and, when it fails or cannot be asked, the fallback
//! (the Open-Meteo protocol); both read into one shape ([`HourRow`]).
//!
//! When both fail, the cell's last forecast is served with `stale: true` (its `fetchedAt` says
//! how old), and the attempt counts as the window's: the cell is not asked again before the
//! window ends. With nothing cached, the failure answers 502 `forecast_unavailable` and the
//! cell is retried after ten minutes. So a cell costs at most one attempt per window
//! (three calls: primary, then the fallback's marine and weather calls), whatever the
//! providers do; see [`calls_per_day_bound`].
//!
//! Concurrent requests for one cell in one process wait for the first one's fetch
//! (single-flight) and then read its row. Forecast data is provider data, global like
//! `provider_cache`; `forecast_cells` records which cells were asked about (for
//! `forecasts-refresh`) without any workspace or member.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use chrono::{DateTime, Duration, DurationRound, Timelike, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::competition::search::fold_name;
use super::competition::{ItemFailure, SyncReport, cached, search_query};
use crate::db::{Db, Ts};
use crate::error::{Error, ErrorKind, Result, Validator};
use crate::providers::ProviderError;
use crate::providers::forecast::HourRow;
use crate::providers::openmeteo::OpenMeteo;
use crate::providers::spotsource::{self, Spot, Spotsource};
use crate::repo::{forecasts as repo, provider_cache, spots as spot_repo};

/// The grid cell's size in degrees: 0.1° is about 11 km north-south (less east-west away
/// from the equator), finer than the marine models' grids, so two spots in one cell share
/// a forecast without losing anything the providers can tell apart.
pub const CELL_DEG: f64 = 0.1;
/// Hours answered when the request does not say.
pub const DEFAULT_HOURS: u32 = 72;
/// The most hours one answer holds (7 days).
pub const MAX_HOURS: u32 = 168;
/// Hours asked of the primary: [`MAX_HOURS`] from any hour of the window, a day to spare.
const PRIMARY_HOURS: u32 = MAX_HOURS + 24;
/// `provider_cache.provider` of the forecast rows (`cell:{key}`) and failure marks
/// (`failed:{key}`).
const CACHE: &str = "forecast";
/// A cell that failed with nothing cached is asked again after this long.
fn retry_uncached() -> Duration {
    Duration::minutes(10)
}
/// A cell's `requested_at` moves at most this often.
fn note_every() -> Duration {
    Duration::hours(1)
}
/// `forecasts-refresh` keeps warm the cells asked about within this long...
fn in_use_for() -> Duration {
    Duration::hours(48)
}
/// ...and the spots of training sessions within this long from now.
fn sessions_ahead() -> Duration {
    Duration::days(7)
}
/// Cells forgotten when nobody asked for them this long.
fn forget_after() -> Duration {
    Duration::days(30)
}
/// Cells one refresh looks at, at most.
const CELLS_PER_RUN: i64 = 2_000;
/// Spots asked of the provider per search.
const SEARCH_LIMIT: u32 = 50;

/// The forecast providers and the cache window.
#[derive(Clone, Copy, Debug)]
pub struct Forecasters<'a> {
    pub primary: Option<&'a Spotsource>,
    pub fallback: Option<&'a OpenMeteo>,
    /// `FORECAST_CACHE_HOURS`, a divisor of 24.
    pub window_hours: u32,
}

impl Forecasters<'_> {
    fn check_configured(&self) -> Result<()> {
        if self.primary.is_none() && self.fallback.is_none() {
            return Err(Error::provider_not_configured("forecast"));
        }
        Ok(())
    }

    fn spotsource(&self) -> Result<&Spotsource> {
        Ok(self
            .primary
            .ok_or(ProviderError::NotConfigured(spotsource::PROVIDER))?)
    }
}

crate::text_enum! {
    /// Which provider a forecast came from.
    pub enum Source as ForecastSource { Primary = "primary", Fallback = "fallback" }
}

// ---- cells and windows ----

/// A grid cell: the indexes of its south-west corner in [`CELL_DEG`] steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub lat: i32,
    pub lon: i32,
}

impl Cell {
    /// The cell holding a point. The small epsilon keeps a value printed on a cell boundary
    /// (`-33.8`, stored as -33.799999…) in the cell its decimal spelling names.
    pub fn of(latitude: f64, longitude: f64) -> Cell {
        let idx = |v: f64| (v / CELL_DEG + 1e-9).floor() as i32;
        Cell {
            lat: idx(latitude),
            lon: idx(longitude),
        }
    }

    /// The cache key: `{lat index}:{lon index}`.
    pub fn key(self) -> String {
        format!("{}:{}", self.lat, self.lon)
    }

    fn corner(self) -> (f64, f64) {
        (
            round4(f64::from(self.lat) * CELL_DEG),
            round4(f64::from(self.lon) * CELL_DEG),
        )
    }

    pub fn view(self) -> CellView {
        let (latitude, longitude) = self.corner();
        CellView {
            key: self.key(),
            latitude,
            longitude,
            size_deg: CELL_DEG,
        }
    }
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

/// A grid cell on the wire: its key and south-west corner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CellView {
    pub key: String,
    pub latitude: f64,
    pub longitude: f64,
    pub size_deg: f64,
}

/// The cache window holding `now`: `[start, end)`, `hours` long, aligned to UTC midnight.
pub fn window(now: DateTime<Utc>, hours: u32) -> (DateTime<Utc>, DateTime<Utc>) {
    let hours = hours.clamp(1, 24);
    let day = now
        .duration_trunc(Duration::days(1))
        .expect("a day divides any time");
    let start = day + Duration::hours(i64::from(now.hour() / hours * hours));
    (start, start + Duration::hours(i64::from(hours)))
}

/// The most provider calls `cells` cells can cost in a day with `window_hours` windows: one
/// attempt per cell and window, an attempt being at most three calls (the primary, then the
/// fallback's marine and weather calls). Requests, spots per cell and refresh runs do not
/// change it: they are served from the window's row or its failure mark.
pub fn calls_per_day_bound(cells: u64, window_hours: u32) -> u64 {
    cells * u64::from(24 / window_hours.clamp(1, 24)) * 3
}

// ---- the answers ----

/// Where a forecast was asked: a spot's coordinates (with its slug) or the point requested.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub latitude: f64,
    pub longitude: f64,
    /// The spot whose forecast the primary was asked for, when there is one.
    pub spot: Option<String>,
}

/// A cell's forecast as cached.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CellForecast {
    source: Source,
    fetched_at: DateTime<Utc>,
    point: Point,
    hours: Vec<HourRow>,
}

/// A failure mark: the cell is not asked again before it expires.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct FailureMark {
    error: String,
}

/// `GET /api/surf/forecast`: the hourly forecast at a spot or point.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    /// The spot asked for (or, for a point, null).
    pub spot: Option<Spot>,
    pub latitude: f64,
    pub longitude: f64,
    /// The grid cell the forecast is cached for; every spot in it shares the forecast.
    pub cell: CellView,
    /// Where the provider was asked (the first request of the cell's window).
    pub forecast_point: Point,
    pub source: Source,
    #[schema(value_type = String, format = DateTime)]
    pub fetched_at: DateTime<Utc>,
    /// True when both providers failed and this is the cell's last forecast, past its window.
    pub stale: bool,
    /// From the current hour on, at most `hours` rows.
    pub hours: Vec<HourRow>,
}

/// The next day at a glance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Next24h {
    pub wave_height_min_m: Option<f64>,
    pub wave_height_max_m: Option<f64>,
    pub swell_period_max_s: Option<f64>,
    pub wind_speed_max_kn: Option<f64>,
    pub gust_max_kn: Option<f64>,
}

/// A spot's current forecast, summed up.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub source: Source,
    #[schema(value_type = String, format = DateTime)]
    pub fetched_at: DateTime<Utc>,
    pub stale: bool,
    pub cell: CellView,
    /// The current hour.
    pub now: Option<HourRow>,
    pub next24h: Next24h,
}

/// Why a spot has no forecast summary (the spot itself is still answered).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ForecastProblem {
    pub code: String,
    pub message: String,
}

/// `GET /api/surf/spot/{slug}`: the spot with its forecast summary.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpotView {
    #[serde(flatten)]
    pub spot: Spot,
    pub forecast: Option<Summary>,
    /// Set when `forecast` is null: no coordinates, providers failing with nothing cached,
    /// not configured.
    pub forecast_error: Option<ForecastProblem>,
}

// ---- inputs ----

/// What a forecast is asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Spot(String),
    Point { latitude: f64, longitude: f64 },
}

/// `GET /api/surf/forecast`'s query, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct ForecastQuery {
    pub target: Target,
    pub hours: u32,
}

/// A spot slug: 1–100 characters of letters, digits, `-` and `_`.
pub fn slug(field: &str, value: &str) -> Result<String> {
    let s = value.trim();
    if s.is_empty()
        || s.len() > 100
        || !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Error::field(
            field,
            "invalid",
            "a spot slug is 1-100 characters of letters, digits, - and _",
        ));
    }
    Ok(s.to_string())
}

impl ForecastQuery {
    /// `spot`, or `lat` and `lon` (WGS84 degrees); `hours` 1–168 (default 72).
    pub fn parse(
        spot: Option<&str>,
        lat: Option<f64>,
        lon: Option<f64>,
        hours: Option<i64>,
    ) -> Result<ForecastQuery> {
        let mut v = Validator::new();
        let hours = hours.unwrap_or(i64::from(DEFAULT_HOURS));
        v.check(
            (1..=i64::from(MAX_HOURS)).contains(&hours),
            "hours",
            "out_of_range",
            "must be between 1 and 168",
        );
        let spot = spot.map(str::trim).filter(|s| !s.is_empty());
        let target = match (spot, lat, lon) {
            (Some(s), None, None) => match slug("spot", s) {
                Ok(s) => Some(Target::Spot(s)),
                Err(e) => return Err(e),
            },
            (Some(_), _, _) => {
                v.add("spot", "invalid", "give spot, or lat and lon, not both");
                None
            }
            (None, Some(la), Some(lo)) => {
                let ok_lat = la.is_finite() && (-90.0..=90.0).contains(&la);
                let ok_lon = lo.is_finite() && (-180.0..=180.0).contains(&lo);
                v.check(ok_lat, "lat", "out_of_range", "must be between -90 and 90");
                v.check(
                    ok_lon,
                    "lon",
                    "out_of_range",
                    "must be between -180 and 180",
                );
                (ok_lat && ok_lon).then_some(Target::Point {
                    latitude: la,
                    longitude: lo,
                })
            }
            (None, None, None) => {
                v.add("spot", "required", "give spot, or lat and lon");
                None
            }
            (None, la, _) => {
                let missing = if la.is_none() { "lat" } else { "lon" };
                v.add(missing, "required", "lat and lon are given together");
                None
            }
        };
        v.finish()?;
        Ok(ForecastQuery {
            target: target.expect("no errors, so a target"),
            hours: hours as u32,
        })
    }
}

// ---- spots ----

/// Spots whose name matches `q` (2–100 characters), from the provider (cached).
pub async fn search_spots(db: &Db, f: Forecasters<'_>, q: &str) -> Result<Vec<Spot>> {
    let sp = f.spotsource()?;
    let q = search_query(q)?;
    cached(
        db,
        spotsource::PROVIDER,
        &format!("search:{q}"),
        sp.cache_ttl(),
        sp.search(&q, SEARCH_LIMIT),
    )
    .await
}

/// A spot: stored (by `backfill-spots` or an earlier read), else read from the provider and
/// stored. 404 when the provider has no such spot.
pub async fn find_spot(db: &Db, f: Forecasters<'_>, slug_in: &str) -> Result<Spot> {
    let slug = slug("slug", slug_in)?;
    {
        let mut c = db.acquire().await?;
        if let Some(s) = spot_repo::spot(&mut c, &slug).await? {
            return Ok(s);
        }
    }
    let sp = f.spotsource()?;
    let found: Option<Spot> = cached(
        db,
        spotsource::PROVIDER,
        &format!("spot:{slug}"),
        sp.cache_ttl(),
        sp.spot(&slug),
    )
    .await?;
    let spot = found.ok_or_else(|| Error::not_found("spot"))?;
    let mut c = db.acquire().await?;
    spot_repo::upsert_spot(&mut c, &spot, Ts::now()).await?;
    Ok(spot)
}

/// The point a spot's forecast is asked at (409 `spot_without_position` without coordinates).
fn spot_point(spot: &Spot) -> Result<Point> {
    match (spot.latitude, spot.longitude) {
        (Some(latitude), Some(longitude)) => Ok(Point {
            latitude,
            longitude,
            spot: Some(spot.slug.clone()),
        }),
        _ => Err(Error::conflict(
            "spot_without_position",
            "the spot provider gives no coordinates for this spot, so it has no forecast",
        )),
    }
}

/// The stored spot nearest to a point within its cell: the primary forecasts spots only.
async fn spot_in_cell(db: &Db, cell: Cell, latitude: f64, longitude: f64) -> Result<Option<Spot>> {
    let (la, lo) = (
        f64::from(cell.lat) * CELL_DEG,
        f64::from(cell.lon) * CELL_DEG,
    );
    let mut c = db.acquire().await?;
    let spots = spot_repo::spots_in_box(
        &mut c,
        (la - 1e-6, la + CELL_DEG + 1e-6),
        (lo - 1e-6, lo + CELL_DEG + 1e-6),
    )
    .await?;
    let d = |s: &Spot| {
        let (a, b) = (
            s.latitude.unwrap_or(f64::MAX),
            s.longitude.unwrap_or(f64::MAX),
        );
        (a - latitude).powi(2) + (b - longitude).powi(2)
    };
    Ok(spots
        .into_iter()
        .filter(|s| {
            s.latitude
                .zip(s.longitude)
                .is_some_and(|(a, b)| Cell::of(a, b) == cell)
        })
        .min_by(|a, b| d(a).total_cmp(&d(b))))
}

// ---- forecasts ----

/// The forecast for a spot or point: from the cell's cached row while its window lasts, else
/// fetched (primary, then fallback), else the cell's last forecast marked stale, else 502
/// `forecast_unavailable`. `now` is the clock (the tests run a day in minutes).
pub async fn forecast(db: &Db, f: Forecasters<'_>, q: &ForecastQuery, now: Ts) -> Result<Forecast> {
    f.check_configured()?;
    let (spot, point) = match &q.target {
        Target::Spot(slug) => {
            let spot = find_spot(db, f, slug).await?;
            let point = spot_point(&spot)?;
            (Some(spot), point)
        }
        Target::Point {
            latitude,
            longitude,
        } => {
            let cell = Cell::of(*latitude, *longitude);
            let near = spot_in_cell(db, cell, *latitude, *longitude).await?;
            let point = Point {
                latitude: *latitude,
                longitude: *longitude,
                spot: near.map(|s| s.slug),
            };
            (None, point)
        }
    };
    let cell = Cell::of(point.latitude, point.longitude);
    {
        let mut c = db.acquire().await?;
        let since = now.minus(note_every());
        if repo::requested_at(&mut c, &cell.key())
            .await?
            .is_none_or(|at| at < since)
        {
            repo::note_requested(
                &mut c,
                &cell.key(),
                (point.latitude, point.longitude),
                point.spot.as_deref(),
                now,
                since,
            )
            .await?;
        }
    }
    let (cf, stale) = match obtain(db, f, cell, &point, now).await? {
        Got::Fresh(cf) | Got::Fetched(cf) => (cf, false),
        Got::Stale(cf, _) => (cf, true),
        Got::Failed(why) => return Err(unavailable(why)),
    };
    let from = now
        .0
        .duration_trunc(Duration::hours(1))
        .expect("an hour divides any time");
    let (latitude, longitude) = match &q.target {
        Target::Point {
            latitude,
            longitude,
        } => (*latitude, *longitude),
        Target::Spot(_) => (point.latitude, point.longitude),
    };
    Ok(Forecast {
        spot,
        latitude,
        longitude,
        cell: cell.view(),
        forecast_point: cf.point.clone(),
        source: cf.source,
        fetched_at: cf.fetched_at,
        stale,
        hours: cf
            .hours
            .iter()
            .filter(|h| h.time >= from)
            .take(q.hours as usize)
            .cloned()
            .collect(),
    })
}

fn unavailable(why: String) -> Error {
    Error::new(
        ErrorKind::ProviderFailed,
        "forecast_unavailable",
        format!("no forecast provider answered and nothing is cached for this place: {why}"),
    )
}

/// `GET /api/surf/spot/{slug}`: the spot, with its forecast summed up when there is one.
pub async fn spot(db: &Db, f: Forecasters<'_>, slug_in: &str, now: Ts) -> Result<SpotView> {
    let spot = find_spot(db, f, slug_in).await?;
    let q = ForecastQuery {
        target: Target::Spot(spot.slug.clone()),
        hours: 24,
    };
    let (forecast, forecast_error) = match forecast(db, f, &q, now).await {
        Ok(fc) => (Some(summary(fc)), None),
        Err(e)
            if matches!(
                e.kind,
                ErrorKind::ProviderFailed | ErrorKind::Unavailable | ErrorKind::Conflict
            ) =>
        {
            (
                None,
                Some(ForecastProblem {
                    code: e.code.to_string(),
                    message: e.message.clone(),
                }),
            )
        }
        Err(e) => return Err(e),
    };
    Ok(SpotView {
        spot,
        forecast,
        forecast_error,
    })
}

fn summary(fc: Forecast) -> Summary {
    let max = |v: &mut Option<f64>, x: Option<f64>| {
        if let Some(x) = x {
            *v = Some(v.map_or(x, |m| m.max(x)));
        }
    };
    let mut n = Next24h::default();
    for h in &fc.hours {
        if let Some(x) = h.wave_height_m {
            n.wave_height_min_m = Some(n.wave_height_min_m.map_or(x, |m| m.min(x)));
        }
        max(&mut n.wave_height_max_m, h.wave_height_m);
        max(&mut n.swell_period_max_s, h.swell.period_s);
        max(&mut n.wind_speed_max_kn, h.wind_speed_kn);
        max(&mut n.gust_max_kn, h.gust_kn);
    }
    Summary {
        source: fc.source,
        fetched_at: fc.fetched_at,
        stale: fc.stale,
        cell: fc.cell,
        now: fc.hours.first().cloned(),
        next24h: n,
    }
}

/// What asking for a cell's forecast came to.
enum Got {
    /// The window's row was there.
    Fresh(Arc<CellForecast>),
    /// Fetched now (and cached for the window).
    Fetched(Arc<CellForecast>),
    /// Both providers failed (now or earlier in the window): the last forecast, and why.
    Stale(Arc<CellForecast>, String),
    /// Both failed and nothing is cached.
    Failed(String),
}

/// The cell's forecast: see the module documentation.
async fn obtain(db: &Db, f: Forecasters<'_>, cell: Cell, point: &Point, now: Ts) -> Result<Got> {
    let key = cell.key();
    let (row_key, mark_key) = (format!("cell:{key}"), format!("failed:{key}"));
    // Read first without the lock: a fresh row is the common case.
    if let Some(got) = cached_state(db, &row_key, &mark_key, now).await? {
        return Ok(got);
    }
    let _flight = Flight::join(&key).await;
    // Whoever held the lock before us may have fetched or failed meanwhile.
    if let Some(got) = cached_state(db, &row_key, &mark_key, now).await? {
        return Ok(got);
    }
    let last = last_forecast(db, &row_key).await?;
    let (_, window_end) = window(now.0, f.window_hours);
    let window_end = Ts::from_datetime(window_end);
    match fetch(f, point, now).await? {
        Ok(cf) => {
            let mut c = db.acquire().await?;
            provider_cache::put(&mut c, CACHE, &row_key, &cf, now, window_end).await?;
            let cf = Arc::new(cf);
            remember(&row_key, (now, window_end), cf.clone());
            Ok(Got::Fetched(cf))
        }
        Err(why) => {
            tracing::warn!(cell = %key, error = %why, "both forecast providers failed");
            // With a forecast to fall back on, the attempt is the window's; without one, the
            // cell is tried again soon.
            let until = if last.is_some() {
                window_end
            } else {
                now.plus(retry_uncached()).min(window_end)
            };
            let mark = FailureMark { error: why.clone() };
            let mut c = db.acquire().await?;
            provider_cache::put(&mut c, CACHE, &mark_key, &mark, now, until).await?;
            Ok(match last {
                Some(cf) => Got::Stale(cf, why),
                None => Got::Failed(why),
            })
        }
    }
}

/// The window's row (fresh), or the failure mark's verdict, or `None`: fetch.
async fn cached_state(db: &Db, row_key: &str, mark_key: &str, now: Ts) -> Result<Option<Got>> {
    let mut c = db.acquire().await?;
    let parsed = read_row(&mut c, row_key).await?;
    if let Some((cf, expires)) = &parsed
        && *expires > now
    {
        return Ok(Some(Got::Fresh(cf.clone())));
    }
    let Some(mark) = provider_cache::fresh(&mut c, CACHE, mark_key, now).await? else {
        return Ok(None);
    };
    let why = serde_json::from_value::<FailureMark>(mark)
        .map(|m| m.error)
        .unwrap_or_else(|_| "an earlier attempt failed".into());
    Ok(Some(match parsed {
        Some((cf, _)) => Got::Stale(cf, why),
        None => Got::Failed(why),
    }))
}

async fn last_forecast(db: &Db, row_key: &str) -> Result<Option<Arc<CellForecast>>> {
    let mut c = db.acquire().await?;
    Ok(read_row(&mut c, row_key).await?.map(|(cf, _)| cf))
}

/// Rows already parsed by this process, by key, with the stamp (`fetched_at`, `expires_at`)
/// they were read at. A row is tens of kilobytes of JSON: it is parsed once per process and
/// window, not once per request. Every read still asks the table for the stamp, so a row
/// replaced (another process fetched) or expired meanwhile is read again.
struct Parsed {
    stamp: (Ts, Ts),
    cf: Arc<CellForecast>,
}

static PARSED: LazyLock<Mutex<HashMap<String, Parsed>>> = LazyLock::new(Default::default);
/// Rows kept parsed, at most (the cells in use; a few MB).
const PARSED_CAP: usize = 2_000;

/// A cell's row, whatever its age, with its expiry; `None` when absent or unreadable (a
/// release changed the shape: a miss).
async fn read_row(
    c: &mut crate::db::Conn,
    row_key: &str,
) -> Result<Option<(Arc<CellForecast>, Ts)>> {
    let Some(stamp) = provider_cache::stamp(c, CACHE, row_key).await? else {
        return Ok(None);
    };
    {
        let m = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = m.get(row_key)
            && p.stamp == stamp
        {
            return Ok(Some((p.cf.clone(), stamp.1)));
        }
    }
    let Some((v, fetched, expires)) = provider_cache::entry(c, CACHE, row_key).await? else {
        return Ok(None);
    };
    let Ok(cf) = serde_json::from_value::<CellForecast>(v) else {
        return Ok(None);
    };
    let cf = Arc::new(cf);
    remember(row_key, (fetched, expires), cf.clone());
    Ok(Some((cf, expires)))
}

fn remember(row_key: &str, stamp: (Ts, Ts), cf: Arc<CellForecast>) {
    let mut m = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if m.len() >= PARSED_CAP {
        m.clear();
    }
    m.insert(row_key.to_string(), Parsed { stamp, cf });
}

/// One attempt: the primary for a spot, then the fallback. `Err` only when no configured
/// provider can forecast this point (503); `Ok(Err(why))` when every one asked failed.
async fn fetch(
    f: Forecasters<'_>,
    point: &Point,
    now: Ts,
) -> Result<std::result::Result<CellForecast, String>> {
    let mut failures = Vec::new();
    let done = |source, hours| CellForecast {
        source,
        fetched_at: now.0,
        point: point.clone(),
        hours,
    };
    if let (Some(p), Some(slug)) = (f.primary, &point.spot) {
        match p.forecast(slug, PRIMARY_HOURS).await {
            Ok(rows) => return Ok(Ok(done(Source::Primary, rows))),
            Err(e) => {
                tracing::info!(error = %e, "primary forecast failed; asking the fallback");
                failures.push(format!("primary: {e}"));
            }
        }
    }
    match f.fallback {
        Some(fb) => match fb.forecast(point.latitude, point.longitude).await {
            Ok(rows) => Ok(Ok(done(Source::Fallback, rows))),
            Err(e) => {
                failures.push(format!("fallback: {e}"));
                Ok(Err(failures.join("; ")))
            }
        },
        None if failures.is_empty() => Err(Error::provider_not_configured(
            "forecast fallback (the primary forecasts known spots only; this point has none in its cell)",
        )),
        None => Ok(Err(failures.join("; "))),
    }
}

// ---- single flight ----

type Flights = Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>;
static FLIGHTS: LazyLock<Flights> = LazyLock::new(Flights::default);

/// This process's turn at fetching one cell: concurrent requests for the cell queue here and
/// find the first one's row when their turn comes.
struct Flight {
    key: String,
    lock: Arc<tokio::sync::Mutex<()>>,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Flight {
    async fn join(key: &str) -> Flight {
        let lock = {
            let mut m = FLIGHTS.lock().unwrap_or_else(PoisonError::into_inner);
            m.entry(key.to_string()).or_default().clone()
        };
        let guard = lock.clone().lock_owned().await;
        Flight {
            key: key.to_string(),
            lock,
            guard: Some(guard),
        }
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        self.guard.take();
        let mut m = FLIGHTS.lock().unwrap_or_else(PoisonError::into_inner);
        // The map's reference and ours: nobody else waits, so the entry goes.
        if Arc::strong_count(&self.lock) == 2 {
            m.remove(&self.key);
        }
    }
}

// ---- forecasts-refresh ----

/// `forecasts-refresh`: fetches, for each cell in use whose window has no forecast yet, the
/// window's forecast, so members find it cached. In use: the spots of training sessions
/// within the next 7 days (every workspace's; resolved by `backfill-spots`) and the cells
/// asked about in the last 48 hours. A cell already fetched (or failed) in this window costs
/// nothing. The report counts `updated` (fetched), `unchanged` (already there) and `failed`.
pub async fn refresh(db: &Db, f: Forecasters<'_>, now: Ts) -> Result<SyncReport> {
    f.check_configured()?;
    let mut points: Vec<Point> = Vec::new();
    {
        let mut c = db.acquire().await?;
        repo::delete_unrequested(&mut c, now.minus(forget_after())).await?;
        let names =
            spot_repo::session_spot_names_between(&mut c, now, now.plus(sessions_ahead())).await?;
        let mut seen = std::collections::HashSet::new();
        for name in names {
            let key = fold_name(&name);
            if key.is_empty() || !seen.insert(key.clone()) {
                continue;
            }
            if let Some(spot) = spot_repo::spot_for(&mut c, &key).await?
                && let Ok(p) = spot_point(&spot)
            {
                points.push(p);
            }
        }
        for row in repo::requested_since(&mut c, now.minus(in_use_for()), CELLS_PER_RUN).await? {
            points.push(Point {
                latitude: row.latitude,
                longitude: row.longitude,
                spot: row.spot_slug,
            });
        }
    }
    let mut cells = std::collections::HashSet::new();
    let mut report = SyncReport::default();
    for point in points {
        let cell = Cell::of(point.latitude, point.longitude);
        if !cells.insert(cell) || cells.len() as i64 > CELLS_PER_RUN {
            continue;
        }
        let item = format!("cell {}", cell.key());
        match obtain(db, f, cell, &point, now).await {
            Ok(Got::Fresh(_)) => report.unchanged += 1,
            Ok(Got::Fetched(_)) => report.updated += 1,
            Ok(Got::Stale(_, why) | Got::Failed(why)) => report.failed.push(ItemFailure {
                item,
                error: why,
                permanent: false,
            }),
            // A point only the unconfigured fallback could forecast: not a provider failure.
            Err(e) if e.code == "provider_not_configured" => report.failed.push(ItemFailure {
                item,
                error: e.message,
                permanent: true,
            }),
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    #[test]
    fn cells_are_tenth_degree_squares_named_by_their_south_west_corner() {
        let bells = Cell::of(-38.3686, 144.2811);
        assert_eq!(bells.key(), "-384:1442");
        assert_eq!(bells.view().latitude, -38.4);
        assert_eq!(bells.view().longitude, 144.2);
        // Manly's two ends are 1 km apart: one cell, one forecast.
        assert_eq!(Cell::of(-33.79, 151.288), Cell::of(-33.799, 151.287));
        // A decimal boundary belongs to the cell it names.
        assert_eq!(Cell::of(-33.8, 151.3).key(), "-338:1513");
        assert_eq!(Cell::of(2.3, 0.7).key(), "23:7");
        assert_ne!(Cell::of(21.665, -158.053), Cell::of(21.665, -158.153));
    }

    #[test]
    fn windows_are_aligned_to_utc_midnight() {
        let (s, e) = window(at("2026-12-01T10:40:00Z"), 3);
        assert_eq!(
            (s, e),
            (at("2026-12-01T09:00:00Z"), at("2026-12-01T12:00:00Z"))
        );
        let (s, e) = window(at("2026-12-01T23:59:59Z"), 3);
        assert_eq!(
            (s, e),
            (at("2026-12-01T21:00:00Z"), at("2026-12-02T00:00:00Z"))
        );
        let (s, e) = window(at("2026-12-01T00:00:00Z"), 1);
        assert_eq!(
            (s, e),
            (at("2026-12-01T00:00:00Z"), at("2026-12-01T01:00:00Z"))
        );
    }

    /// The budget: 400 spots, even each in a cell of its own and with the primary failing
    /// every time, cost at most 400 × 8 windows × 3 calls = 9,600 calls a day.
    #[test]
    fn four_hundred_spots_stay_under_ten_thousand_calls_a_day() {
        assert_eq!(calls_per_day_bound(400, 3), 9_600);
        assert!(calls_per_day_bound(400, 3) < 10_000);
        // Hourly windows would not hold the bound once the fallback is used.
        assert!(calls_per_day_bound(400, 1) > 10_000);
        // Spots on one coast share cells: a realistic spread needs fewer.
        let mut cells = std::collections::HashSet::new();
        for region in 0..40 {
            let (lat, lon) = (
                -38.0 + f64::from(region) * 1.3,
                115.0 + f64::from(region) * 0.9,
            );
            for i in 0..10 {
                cells.insert(Cell::of(
                    lat + f64::from(i) * 0.03,
                    lon + f64::from(i % 3) * 0.02,
                ));
            }
        }
        assert!(cells.len() < 400, "{}", cells.len());
        assert!(calls_per_day_bound(cells.len() as u64, 3) < 10_000);
    }

    #[test]
    fn a_query_names_a_spot_or_a_point_and_a_window() {
        let q = ForecastQuery::parse(Some("bells-beach"), None, None, None).unwrap();
        assert_eq!(
            (q.target, q.hours),
            (Target::Spot("bells-beach".into()), DEFAULT_HOURS)
        );
        let q = ForecastQuery::parse(None, Some(-38.37), Some(144.28), Some(168)).unwrap();
        assert_eq!(q.hours, 168);
        let fields = |r: Result<ForecastQuery>| {
            let e = r.unwrap_err();
            e.details.map(|d| d.to_string()).unwrap_or_default()
        };
        assert!(fields(ForecastQuery::parse(None, None, None, None)).contains("spot"));
        assert!(
            fields(ForecastQuery::parse(Some("a"), Some(1.0), Some(1.0), None)).contains("spot")
        );
        assert!(fields(ForecastQuery::parse(None, Some(1.0), None, None)).contains("lon"));
        assert!(fields(ForecastQuery::parse(None, Some(91.0), Some(0.0), None)).contains("lat"));
        assert!(
            fields(ForecastQuery::parse(None, Some(0.0), Some(0.0), Some(169))).contains("hours")
        );
        assert!(fields(ForecastQuery::parse(Some("no spaces"), None, None, None)).contains("spot"));
    }
}
