//! What the competition imports keep (migration 14): provider links' last-read profiles, the
//! tour index's directory and events, circuits with their events, rankings and enrolled
//! athletes, and roster athletes' results. Every upsert is keyed by the provider's ids and
//! compares the stored row with the new one, so a re-run that finds nothing new moves only
//! `synced_at` ([`Upserted::Unchanged`]).

use crate::db::{Executor, Id, Ts};
use crate::model::competition::Source;
use crate::repo::heatsource::Upserted;
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

// ---- provider links ----

#[derive(Debug, Clone, FromRow)]
pub struct Link {
    pub id: Id,
    pub org_id: Id,
    pub athlete_id: Id,
    pub provider: Source,
    pub external_id: String,
    pub data: Option<Json<Value>>,
    pub synced_at: Option<Ts>,
}

const LINK: &str = "id, org_id, athlete_id, provider, external_id, data, synced_at";

/// The workspace's link to this provider profile, if any.
pub async fn link(
    x: &mut impl Executor,
    org: Id,
    provider: Source,
    external_id: &str,
) -> Result<Option<Link>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Link>(sqlx::AssertSqlSafe(format!(
        "SELECT {LINK} FROM athlete_provider_links WHERE org_id = $1 AND provider = $2 AND external_id = $3")))
        .bind(org).bind(provider).bind(external_id).fetch_optional(&mut *c).await)
}

/// The athlete's links, oldest first.
pub async fn links_of(x: &mut impl Executor, athlete: Id) -> Result<Vec<Link>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Link>(sqlx::AssertSqlSafe(format!(
        "SELECT {LINK} FROM athlete_provider_links WHERE athlete_id = $1 ORDER BY created_at, id")))
        .bind(athlete).fetch_all(&mut *c).await)
}

/// Every link to `provider` (of one workspace, or all), by workspace and athlete.
pub async fn links_to(
    x: &mut impl Executor,
    provider: Source,
    org: Option<Id>,
) -> Result<Vec<Link>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Link>(sqlx::AssertSqlSafe(format!(
        "SELECT {LINK} FROM athlete_provider_links WHERE provider = $1 AND ($2 IS NULL OR org_id = $2)
         ORDER BY org_id, athlete_id, id")))
        .bind(provider).bind(org).fetch_all(&mut *c).await)
}

/// Records the profile as read now; whether it differs from the last one read.
pub async fn set_link_profile(
    x: &mut impl Executor,
    link: &Link,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let done = match &link.data {
        None => Upserted::Created,
        Some(Json(v)) if v == data => Upserted::Unchanged,
        Some(_) => Upserted::Updated,
    };
    execute!(
        x,
        sqlx::query("UPDATE athlete_provider_links SET data = $1, synced_at = $2 WHERE id = $3")
            .bind(Json(data))
            .bind(now)
            .bind(link.id)
    )?;
    Ok(done)
}

// ---- roster athletes' results ----

/// One result of a roster athlete as a provider reports it.
#[derive(Debug, Clone, PartialEq, FromRow, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultRow {
    #[schema(value_type = String)]
    pub provider: Source,
    pub event_key: String,
    pub division: String,
    pub event_name: String,
    pub event_date: Option<String>,
    pub place: Option<i64>,
    pub points: Option<f64>,
}

/// Inserts or updates one result (call inside a transaction: read, then write).
pub async fn upsert_result(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    r: &ResultRow,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<ResultRow> = sql!(x, c => sqlx::query_as::<_, ResultRow>(
        "SELECT provider, event_key, division, event_name, event_date, place, points FROM competition_results
         WHERE athlete_id = $1 AND provider = $2 AND event_key = $3 AND division = $4")
        .bind(athlete).bind(r.provider).bind(&r.event_key).bind(&r.division)
        .fetch_optional(&mut *c).await)?;
    let done = match stored {
        None => Upserted::Created,
        Some(s) if s == *r => Upserted::Unchanged,
        Some(_) => Upserted::Updated,
    };
    match done {
        Upserted::Unchanged => execute!(
            x,
            sqlx::query(
                "UPDATE competition_results SET synced_at = $1
             WHERE athlete_id = $2 AND provider = $3 AND event_key = $4 AND division = $5"
            )
            .bind(now)
            .bind(athlete)
            .bind(r.provider)
            .bind(&r.event_key)
            .bind(&r.division)
        )?,
        _ => execute!(x, sqlx::query(
            "INSERT INTO competition_results (id, org_id, athlete_id, provider, event_key, division,
                event_name, event_date, place, points, synced_at, changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
             ON CONFLICT (athlete_id, provider, event_key, division) DO UPDATE SET
                event_name = excluded.event_name, event_date = excluded.event_date,
                place = excluded.place, points = excluded.points,
                synced_at = excluded.synced_at, changed_at = excluded.changed_at")
            .bind(Id::new()).bind(org).bind(athlete).bind(r.provider).bind(&r.event_key)
            .bind(&r.division).bind(&r.event_name).bind(&r.event_date).bind(r.place).bind(r.points)
            .bind(now))?,
    };
    Ok(done)
}

/// The athlete's results, newest event first.
pub async fn results_of(x: &mut impl Executor, athlete: Id) -> Result<Vec<ResultRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ResultRow>(
        "SELECT provider, event_key, division, event_name, event_date, place, points FROM competition_results
         WHERE athlete_id = $1 ORDER BY event_date IS NULL, event_date DESC, event_name, division")
        .bind(athlete).fetch_all(&mut *c).await)
}

// ---- the tour index's directory and events (provider data, global) ----

#[derive(Debug, Clone, FromRow)]
pub struct TourAthleteRow {
    pub provider_id: String,
    pub tour: String,
    pub name: String,
    pub country: Option<String>,
    pub image_url: Option<String>,
    pub avatar_key: Option<String>,
}

/// Inserts or updates one directory entry (inside a transaction).
#[allow(clippy::too_many_arguments)]
pub async fn upsert_tour_athlete(
    x: &mut impl Executor,
    id: &str,
    tour: &str,
    name: &str,
    country: Option<&str>,
    image_url: Option<&str>,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM tourindex_athletes WHERE provider_id = $1")
        .bind(id).fetch_optional(&mut *c).await)?;
    let done = data_outcome(stored, data);
    if done == Upserted::Unchanged {
        execute!(
            x,
            sqlx::query("UPDATE tourindex_athletes SET synced_at = $1 WHERE provider_id = $2")
                .bind(now)
                .bind(id)
        )?;
    } else {
        execute!(x, sqlx::query(
            "INSERT INTO tourindex_athletes (provider_id, tour, name, country, image_url, data, synced_at, changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
             ON CONFLICT (provider_id) DO UPDATE SET tour = excluded.tour, name = excluded.name,
                country = excluded.country, image_url = excluded.image_url, data = excluded.data,
                synced_at = excluded.synced_at, changed_at = excluded.changed_at")
            .bind(id).bind(tour).bind(name).bind(country).bind(image_url).bind(Json(data)).bind(now))?;
    }
    Ok(done)
}

/// A page of the directory, by name: one tour or all, optionally names containing `q`
/// (case-insensitive).
pub async fn list_tour_athletes(
    x: &mut impl Executor,
    tour: Option<&str>,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<TourAthleteRow>, sqlx::Error> {
    let like = q.map(|q| format!("%{}%", escape_like(&q.to_lowercase())));
    sql!(x, c => sqlx::query_as::<_, TourAthleteRow>(
        "SELECT provider_id, tour, name, country, image_url, avatar_key FROM tourindex_athletes
         WHERE ($1 IS NULL OR tour = $1) AND ($2 IS NULL OR lower(name) LIKE $2 ESCAPE '\\')
         ORDER BY name, provider_id LIMIT $3 OFFSET $4")
        .bind(tour).bind(like).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Directory entries whose headshot is not copied yet, or was copied from another URL.
pub async fn avatars_due(
    x: &mut impl Executor,
    limit: i64,
) -> Result<Vec<TourAthleteRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, TourAthleteRow>(
        "SELECT provider_id, tour, name, country, image_url, avatar_key FROM tourindex_athletes
         WHERE image_url IS NOT NULL AND (avatar_from IS NULL OR avatar_from <> image_url)
         ORDER BY provider_id LIMIT $1")
        .bind(limit).fetch_all(&mut *c).await)
}

/// Records the stored copy of a headshot (`key` none: the image could not be copied from
/// `from` and is not retried until the URL changes).
pub async fn set_avatar(
    x: &mut impl Executor,
    id: &str,
    key: Option<&str>,
    from: &str,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE tourindex_athletes SET avatar_key = COALESCE($1, avatar_key), avatar_from = $2 WHERE provider_id = $3")
        .bind(key).bind(from).bind(id))
}

/// Inserts or updates one tour event (inside a transaction).
pub async fn upsert_tour_event(
    x: &mut impl Executor,
    id: &str,
    tour: &str,
    name: &str,
    date: Option<&str>,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM tourindex_events WHERE provider_id = $1")
        .bind(id).fetch_optional(&mut *c).await)?;
    let done = data_outcome(stored, data);
    if done == Upserted::Unchanged {
        execute!(
            x,
            sqlx::query("UPDATE tourindex_events SET synced_at = $1 WHERE provider_id = $2")
                .bind(now)
                .bind(id)
        )?;
    } else {
        execute!(x, sqlx::query(
            "INSERT INTO tourindex_events (provider_id, tour, name, date, data, synced_at, changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)
             ON CONFLICT (provider_id) DO UPDATE SET tour = excluded.tour, name = excluded.name,
                date = excluded.date, data = excluded.data, synced_at = excluded.synced_at,
                changed_at = excluded.changed_at")
            .bind(id).bind(tour).bind(name).bind(date).bind(Json(data)).bind(now))?;
    }
    Ok(done)
}

fn data_outcome(stored: Option<Json<Value>>, data: &Value) -> Upserted {
    match stored {
        None => Upserted::Created,
        Some(Json(v)) if v == *data => Upserted::Unchanged,
        Some(_) => Upserted::Updated,
    }
}

// ---- circuits ----

#[derive(Debug, Clone, FromRow)]
pub struct Circuit {
    pub id: Id,
    pub org_id: Id,
    pub provider: Source,
    pub external_id: String,
    pub name: String,
    /// The scoring rules (`domain::competition::standings::StoredRules`).
    pub rules: Json<Value>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const CIRCUIT: &str = "id, org_id, provider, external_id, name, rules, created_at, updated_at";

/// The workspace's circuit for this provider series, created (or renamed) as needed; whether
/// it was created.
pub async fn upsert_circuit(
    x: &mut impl Executor,
    org: Id,
    provider: Source,
    external_id: &str,
    name: &str,
    by: Option<Id>,
    now: Ts,
) -> Result<(Circuit, bool), sqlx::Error> {
    let inserted = execute!(x, sqlx::query(
        "INSERT INTO circuits (id, org_id, provider, external_id, name, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (org_id, provider, external_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(provider).bind(external_id).bind(name).bind(by).bind(now))?;
    execute!(
        x,
        sqlx::query(
            "UPDATE circuits SET name = $1, updated_at = $2
         WHERE org_id = $3 AND provider = $4 AND external_id = $5 AND name <> $1"
        )
        .bind(name)
        .bind(now)
        .bind(org)
        .bind(provider)
        .bind(external_id)
    )?;
    let c: Circuit = sql!(x, c => sqlx::query_as::<_, Circuit>(sqlx::AssertSqlSafe(format!(
        "SELECT {CIRCUIT} FROM circuits WHERE org_id = $1 AND provider = $2 AND external_id = $3")))
        .bind(org).bind(provider).bind(external_id).fetch_one(&mut *c).await)?;
    Ok((c, inserted == 1))
}

pub async fn circuit(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Circuit>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Circuit>(sqlx::AssertSqlSafe(format!(
        "SELECT {CIRCUIT} FROM circuits WHERE org_id = $1 AND id = $2")))
        .bind(org).bind(id).fetch_optional(&mut *c).await)
}

pub async fn list_circuits(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Circuit>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Circuit>(sqlx::AssertSqlSafe(format!(
        "SELECT {CIRCUIT} FROM circuits WHERE org_id = $1 ORDER BY name, id LIMIT $2 OFFSET $3")))
        .bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Replaces a circuit's scoring rules.
pub async fn set_rules(
    x: &mut impl Executor,
    circuit: Id,
    rules: &Value,
    now: Ts,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE circuits SET rules = $1, updated_at = $2 WHERE id = $3")
            .bind(Json(rules))
            .bind(now)
            .bind(circuit)
    )
}

/// The workspace's circuits that concern an athlete: enrolled in, with a goal in, or ranked
/// in under one of `external_ids` (the athlete's heatsource ids).
pub async fn circuits_of_athlete(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    external_ids: &[String],
) -> Result<Vec<Circuit>, sqlx::Error> {
    let mut all: Vec<Circuit> = sql!(x, c => sqlx::query_as::<_, Circuit>(sqlx::AssertSqlSafe(format!(
        "SELECT {CIRCUIT} FROM circuits WHERE org_id = $1 AND id IN (
            SELECT circuit_id FROM circuit_athletes WHERE athlete_id = $2
            UNION SELECT circuit_id FROM strategy_goals WHERE athlete_id = $2)
         ORDER BY name, id")))
        .bind(org).bind(athlete).fetch_all(&mut *c).await)?;
    for e in external_ids {
        let ranked: Vec<Circuit> = sql!(x, c => sqlx::query_as::<_, Circuit>(sqlx::AssertSqlSafe(format!(
            "SELECT {CIRCUIT} FROM circuits WHERE org_id = $1 AND id IN (
                SELECT circuit_id FROM circuit_rankings WHERE org_id = $1 AND athlete_external_id = $2)")))
            .bind(org).bind(e).fetch_all(&mut *c).await)?;
        for r in ranked {
            if !all.iter().any(|c| c.id == r.id) {
                all.push(r);
            }
        }
    }
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    Ok(all)
}

/// Enrolls the athlete (no-op when enrolled); whether a row was added.
pub async fn enroll(
    x: &mut impl Executor,
    org: Id,
    circuit: Id,
    athlete: Id,
    now: Ts,
) -> Result<bool, sqlx::Error> {
    Ok(execute!(x, sqlx::query(
        "INSERT INTO circuit_athletes (circuit_id, athlete_id, org_id, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (circuit_id, athlete_id) DO NOTHING")
        .bind(circuit).bind(athlete).bind(org).bind(now))? == 1)
}

/// The enrolled athletes' ids, in enrollment order.
pub async fn enrolled(x: &mut impl Executor, circuit: Id) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT athlete_id FROM circuit_athletes WHERE circuit_id = $1 ORDER BY created_at, athlete_id")
        .bind(circuit).fetch_all(&mut *c).await)
}

/// Inserts or updates one of the circuit's events (inside a transaction).
#[allow(clippy::too_many_arguments)]
pub async fn upsert_circuit_event(
    x: &mut impl Executor,
    org: Id,
    circuit: Id,
    external_id: &str,
    name: &str,
    date: Option<&str>,
    status: Option<&str>,
    data: &Value,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM circuit_events WHERE circuit_id = $1 AND external_id = $2")
        .bind(circuit).bind(external_id).fetch_optional(&mut *c).await)?;
    let done = data_outcome(stored, data);
    if done == Upserted::Unchanged {
        execute!(x, sqlx::query(
            "UPDATE circuit_events SET synced_at = $1 WHERE circuit_id = $2 AND external_id = $3")
            .bind(now).bind(circuit).bind(external_id))?;
    } else {
        execute!(x, sqlx::query(
            "INSERT INTO circuit_events (id, org_id, circuit_id, external_id, name, date, status, data, synced_at, changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (circuit_id, external_id) DO UPDATE SET name = excluded.name,
                date = excluded.date, status = excluded.status, data = excluded.data,
                synced_at = excluded.synced_at, changed_at = excluded.changed_at")
            .bind(Id::new()).bind(org).bind(circuit).bind(external_id).bind(name).bind(date)
            .bind(status).bind(Json(data)).bind(now))?;
    }
    Ok(done)
}

/// A circuit event as stored: the provider's (or a manual event's own) fields and the
/// member's overrides.
#[derive(Debug, Clone, FromRow)]
pub struct CircuitEventRow {
    pub id: Id,
    pub circuit_id: Id,
    pub external_id: String,
    pub origin: String,
    pub name: String,
    pub date: Option<String>,
    pub status: Option<String>,
    pub manual: Json<Value>,
    pub changed_at: Ts,
}

const EVENT: &str = "id, circuit_id, external_id, origin, name, date, status, manual, changed_at";

/// The circuit's events (deleted ones left out), by date then name.
pub async fn circuit_events(
    x: &mut impl Executor,
    circuit: Id,
) -> Result<Vec<CircuitEventRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, CircuitEventRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {EVENT} FROM circuit_events WHERE circuit_id = $1 AND deleted_at IS NULL
         ORDER BY date IS NULL, date, name, id")))
        .bind(circuit).fetch_all(&mut *c).await)
}

/// The circuit's events (deleted ones left out) with the provider's data as read.
pub async fn circuit_events_with_data(
    x: &mut impl Executor,
    circuit: Id,
) -> Result<Vec<(CircuitEventRow, Json<Value>)>, sqlx::Error> {
    #[derive(FromRow)]
    struct Row {
        #[sqlx(flatten)]
        event: CircuitEventRow,
        data: Json<Value>,
    }
    let rows: Vec<Row> = sql!(x, c => sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(format!(
        "SELECT {EVENT}, data FROM circuit_events WHERE circuit_id = $1 AND deleted_at IS NULL
         ORDER BY date IS NULL, date, name, id")))
        .bind(circuit).fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(|r| (r.event, r.data)).collect())
}

/// One event of the circuit (not deleted).
pub async fn circuit_event(
    x: &mut impl Executor,
    circuit: Id,
    id: Id,
) -> Result<Option<CircuitEventRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, CircuitEventRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {EVENT} FROM circuit_events WHERE circuit_id = $1 AND id = $2 AND deleted_at IS NULL")))
        .bind(circuit).bind(id).fetch_optional(&mut *c).await)
}

/// Adds a member's own event.
pub async fn insert_manual_event(
    x: &mut impl Executor,
    org: Id,
    circuit: Id,
    name: &str,
    date: Option<&str>,
    status: Option<&str>,
    now: Ts,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO circuit_events (id, org_id, circuit_id, external_id, name, date, status, data,
            synced_at, changed_at, origin)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 'manual')")
        .bind(id).bind(org).bind(circuit).bind(format!("manual:{id}")).bind(name).bind(date)
        .bind(status).bind(Json(serde_json::json!({}))).bind(now))?;
    Ok(id)
}

/// Writes an event's fields (a manual event's own) and overrides.
pub async fn update_event(
    x: &mut impl Executor,
    e: &CircuitEventRow,
    now: Ts,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE circuit_events SET name = $1, date = $2, status = $3, manual = $4, changed_at = $5
         WHERE id = $6 AND deleted_at IS NULL")
        .bind(&e.name).bind(&e.date).bind(&e.status).bind(&e.manual).bind(now).bind(e.id))
}

/// Deletes a manual event, or leaves a tombstone for a provider's (so syncs do not bring it
/// back).
pub async fn delete_event(
    x: &mut impl Executor,
    e: &CircuitEventRow,
    now: Ts,
) -> Result<u64, sqlx::Error> {
    if e.origin == "manual" {
        execute!(
            x,
            sqlx::query("DELETE FROM circuit_events WHERE id = $1").bind(e.id)
        )
    } else {
        execute!(
            x,
            sqlx::query(
                "UPDATE circuit_events SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL"
            )
            .bind(now)
            .bind(e.id)
        )
    }
}

/// One line of a division's ranking.
#[derive(Debug, Clone, PartialEq, FromRow, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RankingRow {
    pub division_id: String,
    pub division_name: String,
    pub athlete_external_id: String,
    pub athlete_name: String,
    pub place: Option<i64>,
    pub points: Option<f64>,
}

/// Inserts or updates one ranking line (inside a transaction).
pub async fn upsert_ranking(
    x: &mut impl Executor,
    org: Id,
    circuit: Id,
    r: &RankingRow,
    now: Ts,
) -> Result<Upserted, sqlx::Error> {
    let stored: Option<RankingRow> = sql!(x, c => sqlx::query_as::<_, RankingRow>(
        "SELECT division_id, division_name, athlete_external_id, athlete_name, place, points FROM circuit_rankings
         WHERE circuit_id = $1 AND division_id = $2 AND athlete_external_id = $3")
        .bind(circuit).bind(&r.division_id).bind(&r.athlete_external_id).fetch_optional(&mut *c).await)?;
    let done = match stored {
        None => Upserted::Created,
        Some(s) if s == *r => Upserted::Unchanged,
        Some(_) => Upserted::Updated,
    };
    match done {
        Upserted::Unchanged => execute!(x, sqlx::query(
            "UPDATE circuit_rankings SET synced_at = $1 WHERE circuit_id = $2 AND division_id = $3 AND athlete_external_id = $4")
            .bind(now).bind(circuit).bind(&r.division_id).bind(&r.athlete_external_id))?,
        _ => execute!(x, sqlx::query(
            "INSERT INTO circuit_rankings (circuit_id, division_id, athlete_external_id, org_id, division_name,
                athlete_name, place, points, synced_at, changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (circuit_id, division_id, athlete_external_id) DO UPDATE SET
                division_name = excluded.division_name, athlete_name = excluded.athlete_name,
                place = excluded.place, points = excluded.points, synced_at = excluded.synced_at,
                changed_at = excluded.changed_at")
            .bind(circuit).bind(&r.division_id).bind(&r.athlete_external_id).bind(org)
            .bind(&r.division_name).bind(&r.athlete_name).bind(r.place).bind(r.points).bind(now))?,
    };
    Ok(done)
}

/// The circuit's rankings, by division and place.
pub async fn rankings(x: &mut impl Executor, circuit: Id) -> Result<Vec<RankingRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, RankingRow>(
        "SELECT division_id, division_name, athlete_external_id, athlete_name, place, points FROM circuit_rankings
         WHERE circuit_id = $1 ORDER BY division_name, division_id, place IS NULL, place, athlete_name")
        .bind(circuit).fetch_all(&mut *c).await)
}
