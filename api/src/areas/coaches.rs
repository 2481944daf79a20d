//! The Coaches view: a workspace's coaches (members who work with athletes), their athletes,
//! reassignment of athletes between coaches, stats and recent activity. `{id}` is the coach's
//! user id; a user who is not a member of the caller's workspace is not found.

use super::orgs::{AuditView, audit_view};
use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::db::{Executor, Id, Ts};
use shared::error::Validator;
use shared::execute;
use shared::repo::{audit, coaches, orgs, users};
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

async fn coach(
    x: &mut impl Executor,
    ws: &Ws,
    user: Id,
) -> Result<(shared::repo::orgs::Membership, users::User)> {
    let m = orgs::membership(x, user, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("coach"))?;
    let u = users::by_id(x, user)
        .await?
        .ok_or_else(|| Error::not_found("coach"))?;
    Ok((m, u))
}

async fn view(x: &mut impl Executor, ws: &Ws, user: Id) -> Result<CoachView> {
    let (m, u) = coach(x, ws, user).await?;
    let stats = coaches::stats(x, ws.org_id, user).await?;
    let joined: Ts = shared::sql!(x, c => sqlx::query_scalar("SELECT created_at FROM members WHERE id = $1").bind(m.member_id).fetch_one(&mut *c).await)?;
    Ok(CoachView {
        user_id: u.id,
        name: u.name,
        email: u.email,
        role: m.role_key,
        joined_at: joined,
        athletes: stats.athletes,
    })
}

pub async fn get(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<CoachView>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(view(&mut c, &ws, id).await?))
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
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<UpdateCoach>,
) -> Result<axum::Json<CoachView>> {
    if id != caller.user.id {
        ws.require(shared::authz::Perm::MembersManage)?;
    }
    let mut v = Validator::new();
    let name = v.text("name", &req.name, 100);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let (_, u) = coach(&mut tx, &ws, id).await?;
    execute!(
        &mut tx,
        sqlx::query("UPDATE users SET name = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(&name)
            .bind(Ts::now())
    )?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "coach.updated",
            "user",
            Some(id.to_string()),
            json!({ "before": u.name, "after": name }),
        ),
    )
    .await?;
    let out = view(&mut tx, &ws, id).await?;
    tx.commit().await?;
    Ok(axum::Json(out))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachAthleteView {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub status: String,
    /// The assignment's id (the spec's scId) and role.
    pub assignment_id: Id,
    pub assignment_role: String,
    pub assigned_at: Ts,
}

pub async fn athletes(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<CoachAthleteView>>> {
    let mut c = state.db.acquire().await?;
    coach(&mut c, &ws, id).await?;
    let rows = coaches::athletes(&mut c, ws.org_id, id, page.fetch_limit(), page.offset).await?;
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
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<Reassign>,
) -> Result<axum::Json<Reassigned>> {
    let mut v = Validator::new();
    v.check(
        req.to_coach_id != id,
        "toCoachId",
        "invalid",
        "must be another coach",
    );
    v.check(
        req.athlete_ids
            .as_ref()
            .is_none_or(|a| !a.is_empty() && a.len() <= 1000),
        "athleteIds",
        "out_of_range",
        "1 to 1000 ids, or leave it out for all",
    );
    v.finish()?;
    let mut tx = state.db.begin().await?;
    coach(&mut tx, &ws, id).await?;
    coach(&mut tx, &ws, req.to_coach_id)
        .await
        .map_err(|_| Error::field("toCoachId", "invalid", "not a member of this workspace"))?;
    let moved = coaches::reassign(
        &mut tx,
        ws.org_id,
        id,
        req.to_coach_id,
        req.athlete_ids.as_deref(),
        caller.user.id,
    )
    .await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "coach.athletes_reassigned",
            "user",
            Some(id.to_string()),
            json!({ "to": req.to_coach_id, "moved": moved, "athleteIds": req.athlete_ids }),
        ),
    )
    .await?;
    tx.commit().await?;
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
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<CoachStats>> {
    let mut c = state.db.acquire().await?;
    coach(&mut c, &ws, id).await?;
    let s = coaches::stats(&mut c, ws.org_id, id).await?;
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
    ws: Ws,
    Path(id): Path<Id>,
    page: Page,
) -> Result<axum::Json<Paged<AuditView>>> {
    let mut c = state.db.acquire().await?;
    coach(&mut c, &ws, id).await?;
    let rows = audit::search(
        &mut c,
        audit::Filter {
            org_id: Some(ws.org_id),
            actor: Some(id),
            ..Default::default()
        },
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(audit_view).collect()),
    ))
}
