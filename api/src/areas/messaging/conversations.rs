//! `GET, POST /api/conversations` and `GET /api/conversations/recipients`.

use super::Side;
use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::messaging::conversations::{
    self as domain, ListFilter, NewConversation, RawConversation, RecipientSearch, side_of,
    unread_for,
};
use shared::domain::messaging::{ConversationKind, RecipientKind};
use shared::repo::messaging::ConversationRow;

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
    let side = side_of(&r, me);
    let unread = unread_for(&r, side);
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
        unread,
        created_at: r.conv.created_at,
        last_message_at: r.conv.last_message_at,
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
    let f = ListFilter::parse(q.kind.as_deref(), q.org_id)?;
    let rows = domain::list(
        &caller.actor(),
        &state.db,
        f,
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
    let new = NewConversation::parse(&RawConversation {
        kind: req.kind.as_deref(),
        athlete_id: req.athlete_id,
        coach_id: req.coach_id,
    })?;
    let opened = domain::create(&caller.actor(), &state.db, new).await?;
    let status = if opened.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(view(opened.row, caller.user.id))))
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
    let search = RecipientSearch::parse(q.q.as_deref(), q.org_id)?;
    let rows = domain::recipients(
        &caller.actor(),
        &state.db,
        &search,
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
