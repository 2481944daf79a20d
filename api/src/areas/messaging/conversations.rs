//! `GET, POST /api/conversations` and `GET /api/conversations/recipients`.

use super::{Scope, Side, check_coach, module_enabled, unsupported_kind};
use crate::auth::Caller;
use crate::http::extract::{Body, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::messaging::{self, ConversationKind, ConversationRow, RecipientKind};
use shared::repo::{athletes, audit, orgs};

use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachRef {
    pub user_id: Id,
    pub name: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AthleteRef {
    pub id: Id,
    pub first_name: String,
    pub last_name: String,
    /// The athlete's login, when they have claimed one.
    pub user_id: Option<Id>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    pub id: Id,
    pub org_id: Id,
    pub kind: ConversationKind,
    pub coach: CoachRef,
    pub athlete: AthleteRef,
    /// The caller's side: coach, athlete, or guardian (a guardian of the athlete, reading).
    pub my_role: Side,
    /// Messages from the other side since the caller last read the conversation (0 for a
    /// guardian).
    pub unread: i64,
    pub created_at: Ts,
    pub last_message_at: Ts,
}

pub fn view(r: ConversationRow, me: Id) -> ConversationView {
    let side = if r.conv.coach_user_id == me {
        Side::Coach
    } else if r.athlete_user_id == Some(me) {
        Side::Athlete
    } else {
        Side::Guardian
    };
    ConversationView {
        id: r.conv.id,
        org_id: r.conv.org_id,
        kind: r.conv.kind,
        coach: CoachRef {
            user_id: r.conv.coach_user_id,
            name: r.coach_name,
        },
        athlete: AthleteRef {
            id: r.conv.athlete_id,
            first_name: r.athlete_first_name,
            last_name: r.athlete_last_name,
            user_id: r.athlete_user_id,
        },
        my_role: side,
        // A guardian reads along; the conversation's read marks are the participants'.
        unread: if side == Side::Guardian { 0 } else { r.unread },
        created_at: r.conv.created_at,
        last_message_at: r.conv.last_message_at,
    }
}

/// The spec allows coach–athlete conversations only; a client asking for another kind
/// (`group`, `direct`, …) is refused with 400, on listing and on creation alike.
fn check_kind(kind: Option<&str>) -> Result<()> {
    match kind {
        None => Ok(()),
        Some(k) if ConversationKind::parse(k) == Ok(ConversationKind::CoachAthlete) => Ok(()),
        Some(k) => Err(unsupported_kind(&format!(
            "conversations are between a coach and an athlete (kind coach_athlete); {k:?} is not supported"
        )).into()),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    kind: Option<String>,
    org_id: Option<Id>,
}

/// The caller's conversations (as coach and as athlete), most recent first.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ListQuery>,
    page: Page,
) -> Result<axum::Json<Paged<ConversationView>>> {
    check_kind(q.kind.as_deref())?;
    let mut c = state.db.acquire().await?;
    let scope = Scope::of(&mut c, &caller).await?.only(q.org_id)?;
    let rows = messaging::list_mine(
        &mut c,
        caller.user.id,
        &scope.coach_orgs,
        &scope.athlete_orgs,
        &scope.guardian_orgs,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    let me = caller.user.id;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(|r| view(r, me)).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateConversation {
    /// coach_athlete (the default and the only kind).
    pub kind: Option<String>,
    /// The athlete: one of the workspace's athletes (a coach calling), or the caller's own
    /// athlete row (an athlete calling).
    pub athlete_id: Option<Id>,
    /// The coach: required when an athlete calls (one of their assigned coaches); a coach
    /// calling may omit it or give their own id.
    pub coach_id: Option<Id>,
}

/// Opens the coach–athlete conversation, or returns the existing one (201 new, 200 existing).
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<CreateConversation>,
) -> Result<(StatusCode, axum::Json<ConversationView>)> {
    check_kind(req.kind.as_deref())?;
    let mut v = Validator::new();
    v.check(
        req.athlete_id.is_some(),
        "athleteId",
        "required",
        "the athlete of the conversation",
    );
    v.finish()?;
    let me = caller.user.id;
    let athlete_id = req.athlete_id.unwrap_or_default();
    let mut tx = state.db.begin().await?;
    let athlete = athletes::by_id_any_org(&mut tx, athlete_id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    let org = athlete.org_id;
    let coach = if athlete.user_id == Some(me) {
        // The athlete opens a conversation with one of their coaches.
        module_enabled(&mut tx, org).await?;
        let Some(coach) = req.coach_id else {
            return Err(Error::field(
                "coachId",
                "required",
                "an athlete names the coach to write to",
            )
            .into());
        };
        let not_theirs = || {
            unsupported_kind("an athlete's conversations are with one of their assigned coaches")
        };
        if coach == me || !messaging::is_assigned_coach(&mut tx, athlete.id, coach).await? {
            return Err(not_theirs().into());
        }
        let m = orgs::membership(&mut tx, coach, org)
            .await?
            .ok_or_else(not_theirs)?;
        check_coach(&m).map_err(|_| not_theirs())?;
        coach
    } else {
        // A coach opens a conversation with an athlete of their workspace.
        let m = orgs::membership(&mut tx, me, org)
            .await?
            .ok_or_else(|| Error::not_found("athlete"))?;
        check_coach(&m)?;
        if req.coach_id.is_some_and(|c| c != me) {
            return Err(unsupported_kind(
                "a coach opens conversations between themself and an athlete",
            )
            .into());
        }
        me
    };
    if athlete.status == shared::domain::athletes::AthleteStatus::Archived {
        return Err(
            Error::conflict("athlete_archived", "archived athletes cannot be messaged").into(),
        );
    }
    let (conv, created) = messaging::create_or_get(&mut tx, org, coach, athlete.id, me).await?;
    if created {
        audit::record(
            &mut tx,
            caller.audit(
                Some(org),
                "conversation.created",
                "conversation",
                Some(conv.id.to_string()),
                json!({ "coachId": coach, "athleteId": athlete.id }),
            ),
        )
        .await?;
    }
    let row = messaging::row(&mut tx, me, conv.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("conversation vanished")))?;
    tx.commit().await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(view(row, me))))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientView {
    /// athlete (the caller coaches them) or coach (one of the caller's coaches)
    pub kind: RecipientKind,
    pub org_id: Id,
    /// The athlete of the conversation to open (`POST /api/conversations` `athleteId`).
    pub athlete_id: Id,
    /// The coach's user id (`coachId`), or the athlete's login.
    pub user_id: Option<Id>,
    pub name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientQuery {
    q: Option<String>,
    org_id: Option<Id>,
}

/// Who the caller may open a conversation with: a coach sees the active athletes of the
/// workspaces where they may message; an athlete sees their assigned coaches.
pub async fn recipients(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<RecipientQuery>,
    page: Page,
) -> Result<axum::Json<Paged<RecipientView>>> {
    let mut v = Validator::new();
    let search = q.q.as_deref().map(str::trim).filter(|s| !s.is_empty());
    v.check(
        search.is_none_or(|s| s.chars().count() <= 100),
        "q",
        "too_long",
        "must be at most 100 characters",
    );
    v.finish()?;
    let mut c = state.db.acquire().await?;
    let scope = Scope::of(&mut c, &caller).await?.only(q.org_id)?;
    let rows = messaging::recipients(
        &mut c,
        caller.user.id,
        &scope.coach_orgs,
        &scope.athlete_orgs,
        search,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(
            rows.into_iter()
                .map(|r| RecipientView {
                    kind: r.kind,
                    org_id: r.org_id,
                    athlete_id: r.athlete_id,
                    user_id: r.user_id,
                    name: r.name,
                })
                .collect(),
        ),
    ))
}
