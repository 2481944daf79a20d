//! The Coaches view: a workspace's coaches (members who work with athletes), their athletes,
//! reassignment of athletes between coaches, stats and recent activity. `{id}` is the coach's
//! user id; a user who is not a member of the caller's workspace is not found.

use super::orgs::{AuditView, audit_view};
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::athletes::{AthleteStatus, CoachRole};
use shared::domain::coaches as domain;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachView {
    pub user_id: Id,
    pub name: String,
    pub email: String,
    pub role: String,
    pub joined_at: Ts,
    pub athletes: i64,
}

fn view(c: domain::Coach) -> CoachView {
    CoachView {
        user_id: c.user.id,
        name: c.user.name,
        email: c.user.email,
        role: c.role_key,
        joined_at: c.joined_at,
        athletes: c.athletes,
    }
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<CoachView>> {
    let c = domain::get(&state.db, &ws, id).await?;
    Ok(axum::Json(view(c)))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCoach {
    /// The coach's display name.
    pub name: String,
}

/// Renames a coach: yourself, or anyone with `members.manage`.
pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<UpdateCoach>,
) -> Result<axum::Json<CoachView>> {
    let c = domain::rename(&state.db, &ws, id, &req.name).await?;
    Ok(axum::Json(view(c)))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachAthleteView {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub status: AthleteStatus,
    /// The assignment's id (the spec's scId) and role.
    pub assignment_id: Id,
    pub assignment_role: CoachRole,
    pub assigned_at: Ts,
}

pub async fn athletes(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<CoachAthleteView>>> {
    let rows = domain::athletes(&state.db, &ws, id, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(
            rows.into_iter()
                .map(|r| CoachAthleteView {
                    athlete_id: r.athlete_id,
                    first_name: r.first_name,
                    last_name: r.last_name,
                    status: r.status,
                    assignment_id: r.assignment_id,
                    assignment_role: r.assignment_role,
                    assigned_at: r.assigned_at,
                })
                .collect(),
        ),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Reassign {
    /// The coach (user id, a member) who takes the athletes over.
    pub to_coach_id: Id,
    /// Only these athletes; all of the coach's athletes when absent.
    pub athlete_ids: Option<Vec<Id>>,
}

#[derive(Serialize, ToSchema)]
pub struct Reassigned {
    pub moved: u64,
}

/// Moves athletes from one coach to another in one transaction (e.g. a coach leaves the club).
pub async fn reassign(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<Reassign>,
) -> Result<axum::Json<Reassigned>> {
    let r = domain::Reassign::parse(id, req.to_coach_id, req.athlete_ids)?;
    let moved = domain::reassign(&state.db, &ws, r).await?;
    Ok(axum::Json(Reassigned { moved }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachStats {
    pub athletes: i64,
    pub training_sessions: i64,
    pub upcoming_training_sessions: i64,
    pub attendances: i64,
    pub no_shows: i64,
}

pub async fn stats(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<CoachStats>> {
    let s = domain::stats(&state.db, &ws, id).await?;
    Ok(axum::Json(CoachStats {
        athletes: s.athletes,
        training_sessions: s.sessions_total,
        upcoming_training_sessions: s.sessions_upcoming,
        attendances: s.attendances,
        no_shows: s.no_shows,
    }))
}

/// What the coach did in this workspace (its audit entries), newest first.
pub async fn activity(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<AuditView>>> {
    let rows = domain::activity(&state.db, &ws, id, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(audit_view).collect()),
    ))
}
