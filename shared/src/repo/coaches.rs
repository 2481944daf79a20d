//! The Coaches view: a coach is a member of the workspace; their athletes are the athletes
//! assigned to them (`athlete_coaches`).

use crate::db::{Executor, Id, Ts};
use crate::model::athletes::{AthleteStatus, CoachRole};
use crate::{execute, sql};
use sqlx::FromRow;

#[derive(Debug, Clone, FromRow)]
pub struct CoachAthlete {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub status: AthleteStatus,
    pub assignment_id: Id,
    pub assignment_role: CoachRole,
    pub assigned_at: Ts,
}

pub async fn athletes(
    x: &mut impl Executor,
    org: Id,
    coach: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<CoachAthlete>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, CoachAthlete>(
        "SELECT a.id AS athlete_id, a.first_name, a.last_name, a.status, ac.id AS assignment_id, ac.role AS assignment_role, ac.created_at AS assigned_at
         FROM athlete_coaches ac JOIN athletes a ON a.id = ac.athlete_id
         WHERE ac.org_id = $1 AND ac.user_id = $2 ORDER BY a.last_name, a.first_name, a.id LIMIT $3 OFFSET $4")
        .bind(org).bind(coach).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Moves `coach`'s assignments (all, or those of `athletes`) to `to`, keeping their role. An
/// athlete already assigned to `to` keeps that assignment and loses the old one. Returns how
/// many athletes changed coach.
pub async fn reassign(
    x: &mut impl Executor,
    org: Id,
    coach: Id,
    to: Id,
    athletes: Option<&[Id]>,
    by: Id,
) -> Result<u64, sqlx::Error> {
    let rows: Vec<(Id, Id, CoachRole)> = sql!(x, c => sqlx::query_as(
        "SELECT id, athlete_id, role FROM athlete_coaches WHERE org_id = $1 AND user_id = $2 ORDER BY created_at, id")
        .bind(org).bind(coach).fetch_all(&mut *c).await)?;
    let now = Ts::now();
    let mut moved = 0;
    for (assignment, athlete, role) in rows {
        if athletes.is_some_and(|only| !only.contains(&athlete)) {
            continue;
        }
        execute!(
            x,
            sqlx::query("DELETE FROM athlete_coaches WHERE id = $1").bind(assignment)
        )?;
        execute!(x, sqlx::query(
            "INSERT INTO athlete_coaches (id, org_id, athlete_id, user_id, role, created_by, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (athlete_id, user_id) DO NOTHING")
            .bind(Id::new()).bind(org).bind(athlete).bind(to).bind(role).bind(by).bind(now))?;
        moved += 1;
    }
    Ok(moved)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub athletes: i64,
    pub sessions_total: i64,
    pub sessions_upcoming: i64,
    pub attendances: i64,
    pub no_shows: i64,
}

pub async fn stats(x: &mut impl Executor, org: Id, coach: Id) -> Result<Stats, sqlx::Error> {
    let now = Ts::now();
    let athletes: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM athlete_coaches WHERE org_id = $1 AND user_id = $2")
        .bind(org).bind(coach).fetch_one(&mut *c).await)?;
    let (total, upcoming): (i64, i64) = sql!(x, c => sqlx::query_as(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN starts_at > $3 THEN 1 ELSE 0 END), 0) FROM training_sessions WHERE org_id = $1 AND coach_user_id = $2")
        .bind(org).bind(coach).bind(now).fetch_one(&mut *c).await)?;
    let (attended, no_shows): (i64, i64) = sql!(x, c => sqlx::query_as(
        "SELECT COALESCE(SUM(CASE WHEN p.status = 'attended' THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN p.status = 'no_show' THEN 1 ELSE 0 END), 0)
         FROM training_participants p JOIN training_sessions s ON s.id = p.session_id WHERE s.org_id = $1 AND s.coach_user_id = $2")
        .bind(org).bind(coach).fetch_one(&mut *c).await)?;
    Ok(Stats {
        athletes,
        sessions_total: total,
        sessions_upcoming: upcoming,
        attendances: attended,
        no_shows,
    })
}
