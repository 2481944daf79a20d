//! Season reports (migration 19) and the figures they are made of: an athlete's training,
//! footage and watch activity in a period. The competition figures come from
//! `repo::competition` and the standings view.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde::Serialize;
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;
use utoipa::ToSchema;

/// A stored report, as listed.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportRow {
    pub id: Id,
    pub athlete_id: Id,
    pub label: String,
    /// YYYY-MM-DD, inclusive.
    pub period_from: String,
    pub period_to: String,
    #[serde(skip)]
    pub json_key: String,
    #[serde(skip)]
    pub html_key: String,
    pub html_bytes: i64,
    #[schema(value_type = Object)]
    pub summary: Json<Value>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

const REPORT: &str = "id, athlete_id, label, period_from, period_to, json_key, html_key, html_bytes, summary, created_by, created_at";

/// Records a report (a retried job writes the same row again: nothing changes).
pub async fn insert(x: &mut impl Executor, org: Id, r: &ReportRow) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO season_reports (id, org_id, athlete_id, label, period_from, period_to, json_key,
            html_key, html_bytes, summary, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING")
        .bind(r.id).bind(org).bind(r.athlete_id).bind(&r.label).bind(&r.period_from)
        .bind(&r.period_to).bind(&r.json_key).bind(&r.html_key).bind(r.html_bytes)
        .bind(&r.summary).bind(r.created_by).bind(r.created_at))?;
    Ok(())
}

/// The athlete's reports, newest first.
pub async fn list(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<ReportRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ReportRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {REPORT} FROM season_reports WHERE org_id = $1 AND athlete_id = $2
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4")))
        .bind(org).bind(athlete).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn get(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    id: Id,
) -> Result<Option<ReportRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ReportRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {REPORT} FROM season_reports WHERE org_id = $1 AND athlete_id = $2 AND id = $3")))
        .bind(org).bind(athlete).bind(id).fetch_optional(&mut *c).await)
}

/// Training sessions the athlete took part in during [from, to), by participation status.
pub async fn training_counts(
    x: &mut impl Executor,
    athlete: Id,
    from: Ts,
    to: Ts,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (String, i64)>(
        "SELECT p.status, COUNT(*) FROM training_participants p
         JOIN training_sessions s ON s.id = p.session_id
         WHERE p.athlete_id = $1 AND s.starts_at >= $2 AND s.starts_at < $3
         GROUP BY p.status ORDER BY p.status")
        .bind(athlete).bind(from).bind(to).fetch_all(&mut *c).await)
}

/// The athlete's clips of [from, to) (by recording time, else upload time): status and
/// analysis stats.
pub async fn clips(
    x: &mut impl Executor,
    athlete: Id,
    from: Ts,
    to: Ts,
) -> Result<Vec<(String, Option<Json<Value>>)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (String, Option<Json<Value>>)>(
        "SELECT status, stats FROM clips WHERE athlete_id = $1
         AND COALESCE(recorded_at, created_at) >= $2 AND COALESCE(recorded_at, created_at) < $3")
        .bind(athlete).bind(from).bind(to).fetch_all(&mut *c).await)
}

/// Watch figures of [from, to): sessions, and the rides of each session's current detector
/// (count, metres, top speed).
#[derive(Debug, Clone, Default, PartialEq, FromRow)]
pub struct WatchFigures {
    pub sessions: i64,
    pub rides: i64,
    pub distance_m: Option<f64>,
    pub top_speed_kmh: Option<f64>,
}

pub async fn watch(
    x: &mut impl Executor,
    athlete: Id,
    from: Ts,
    to: Ts,
) -> Result<WatchFigures, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, WatchFigures>(
        "SELECT (SELECT COUNT(*) FROM wearable_sessions WHERE athlete_id = $1
                    AND started_at >= $2 AND started_at < $3) AS sessions,
                COUNT(r.id) AS rides, SUM(r.distance_m) AS distance_m, MAX(r.top_speed_kmh) AS top_speed_kmh
         FROM wearable_sessions s
         JOIN wearable_rides r ON r.session_id = s.id AND r.detector_version = s.detector_version
         WHERE s.athlete_id = $1 AND s.started_at >= $2 AND s.started_at < $3")
        .bind(athlete).bind(from).bind(to).fetch_one(&mut *c).await)
}
