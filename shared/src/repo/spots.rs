//! Surf spots (`spots`) and the resolution of spot names to them (`spot_names`), written by
//! `backfill-spots`.

use crate::db::{Executor, Id, Ts};
use crate::providers::spotsource::Spot;
use crate::{execute, sql};

/// The distinct spot names training sessions use: the spot, else the location.
pub async fn session_spot_names(x: &mut impl Executor) -> Result<Vec<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT DISTINCT COALESCE(spot, location) AS name FROM training_sessions
         WHERE COALESCE(spot, location) IS NOT NULL ORDER BY name")
        .fetch_all(&mut *c).await)
}

/// Every resolved name: `(name_key, outcome, checked_at)`.
pub async fn checked_names(
    x: &mut impl Executor,
) -> Result<Vec<(String, String, Ts)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT name_key, outcome, checked_at FROM spot_names")
        .fetch_all(&mut *c).await)
}

pub async fn upsert_spot(x: &mut impl Executor, s: &Spot, now: Ts) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO spots (slug, name, region, country, latitude, longitude, synced_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (slug) DO UPDATE SET name = excluded.name, region = excluded.region,
            country = excluded.country, latitude = excluded.latitude,
            longitude = excluded.longitude, synced_at = excluded.synced_at"
        )
        .bind(&s.slug)
        .bind(&s.name)
        .bind(&s.region)
        .bind(&s.country)
        .bind(s.latitude)
        .bind(s.longitude)
        .bind(now)
    )?;
    Ok(())
}

/// Records how a name resolved (`slug` when matched).
pub async fn set_name(
    x: &mut impl Executor,
    name_key: &str,
    slug: Option<&str>,
    outcome: &str,
    now: Ts,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO spot_names (name_key, slug, outcome, checked_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name_key) DO UPDATE SET slug = excluded.slug, outcome = excluded.outcome,
            checked_at = excluded.checked_at"
        )
        .bind(name_key)
        .bind(slug)
        .bind(outcome)
        .bind(now)
    )?;
    Ok(())
}

#[derive(sqlx::FromRow)]
struct SpotRow {
    slug: String,
    name: String,
    region: Option<String>,
    country: Option<String>,
    latitude: Option<f64>,
    longitude: Option<f64>,
}

impl From<SpotRow> for Spot {
    fn from(r: SpotRow) -> Spot {
        Spot {
            slug: r.slug,
            name: r.name,
            region: r.region,
            country: r.country,
            latitude: r.latitude,
            longitude: r.longitude,
        }
    }
}

/// A stored spot by its slug.
pub async fn spot(x: &mut impl Executor, slug: &str) -> Result<Option<Spot>, sqlx::Error> {
    let row: Option<SpotRow> = sql!(x, c => sqlx::query_as::<_, SpotRow>(
        "SELECT slug, name, region, country, latitude, longitude FROM spots WHERE slug = $1")
        .bind(slug).fetch_optional(&mut *c).await)?;
    Ok(row.map(Spot::from))
}

/// Stored spots with coordinates in `[lat0, lat1) × [lon0, lon1)`, by slug (at most 100).
pub async fn spots_in_box(
    x: &mut impl Executor,
    (lat0, lat1): (f64, f64),
    (lon0, lon1): (f64, f64),
) -> Result<Vec<Spot>, sqlx::Error> {
    let rows: Vec<SpotRow> = sql!(x, c => sqlx::query_as::<_, SpotRow>(
        "SELECT slug, name, region, country, latitude, longitude FROM spots
         WHERE latitude >= $1 AND latitude < $2 AND longitude >= $3 AND longitude < $4
         ORDER BY slug LIMIT 100")
        .bind(lat0).bind(lat1).bind(lon0).bind(lon1).fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(Spot::from).collect())
}

/// The distinct spot names (the spot, else the location) of training sessions that overlap
/// `[from, to)`, every workspace's: what `forecasts-refresh` keeps warm.
pub async fn session_spot_names_between(
    x: &mut impl Executor,
    from: Ts,
    to: Ts,
) -> Result<Vec<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT DISTINCT COALESCE(spot, location) AS name FROM training_sessions
         WHERE starts_at < $2 AND ends_at > $1 AND COALESCE(spot, location) IS NOT NULL
         ORDER BY name")
        .bind(from).bind(to).fetch_all(&mut *c).await)
}

/// The spot a name resolved to, if it did.
pub async fn spot_for(x: &mut impl Executor, name_key: &str) -> Result<Option<Spot>, sqlx::Error> {
    let row: Option<SpotRow> = sql!(x, c => sqlx::query_as::<_, SpotRow>(
        "SELECT s.slug, s.name, s.region, s.country, s.latitude, s.longitude
         FROM spot_names n JOIN spots s ON s.slug = n.slug WHERE n.name_key = $1")
        .bind(name_key).fetch_optional(&mut *c).await)?;
    Ok(row.map(Spot::from))
}

/// One workspace's distinct spot names (the spot, else the location) of training sessions
/// overlapping `[from, to)`, with how many sessions use each, by name (at most 100).
pub async fn org_spot_names_between(
    x: &mut impl Executor,
    org: Id,
    from: Ts,
    to: Ts,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT COALESCE(spot, location) AS name, COUNT(*) FROM training_sessions
         WHERE org_id = $1 AND starts_at < $3 AND ends_at > $2 AND COALESCE(spot, location) IS NOT NULL
         GROUP BY COALESCE(spot, location) ORDER BY name LIMIT 100")
        .bind(org).bind(from).bind(to).fetch_all(&mut *c).await)
}
