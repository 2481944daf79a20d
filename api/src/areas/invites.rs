//! Member invites: seat-capped (members plus pending invites may not exceed the workspace's
//! cap), emailed, single use, expiring after 7 days, revocable. The invitee previews and
//! accepts while signed in with the invited email address (rules in `shared::domain::invites`).

use crate::auth::{Acting, Caller};
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::invites as domain;
use shared::repo::invites::{Invite, InviteStatus};
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteView {
    pub id: Id,
    pub email: String,
    pub role: String,
    pub status: InviteStatus,
    pub created_at: Ts,
    pub expires_at: Ts,
}

fn view(i: &Invite) -> InviteView {
    InviteView {
        id: i.id,
        email: i.email.clone(),
        role: i.role_key.clone(),
        status: i.status(),
        created_at: i.created_at,
        expires_at: i.expires_at,
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = MemberInviteRequest)]
pub struct CreateInvite {
    pub email: String,
    /// A role key other than owner (ownership is transferred, not invited).
    #[schema(example = "coach")]
    pub role: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedInvite {
    pub invite: InviteView,
    /// The link mailed to the invitee, for the inviter to share another way.
    pub invite_url: String,
    pub email_sent: bool,
}

pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Acting(ws): Acting,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<CreatedInvite>)> {
    let new = domain::NewInvite::parse(&req.email, &req.role)?;
    let c = domain::create(&state.db, &state.cfg, &state.mailer, &ws, &caller.user, new).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreatedInvite {
            invite: view(&c.invite),
            invite_url: c.invite_url,
            email_sent: c.email_sent,
        }),
    ))
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<axum::Json<Paged<InviteView>>> {
    let rows = domain::list(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows.iter().map(view).collect())))
}

#[derive(Deserialize)]
pub struct InvitePath {
    #[allow(dead_code)]
    id: Id,
    #[serde(rename = "inviteId")]
    invite_id: Id,
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<InvitePath>,
) -> Result<axum::Json<InviteView>> {
    let i = domain::get(&state.db, &ws, p.invite_id).await?;
    Ok(axum::Json(view(&i)))
}

pub async fn revoke(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<InvitePath>,
) -> Result<StatusCode> {
    domain::revoke(&state.db, &ws, p.invite_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MemberInvitePreview)]
pub struct InvitePreview {
    pub workspace_name: String,
    pub role: String,
    pub invited_by: Option<String>,
    pub email: String,
    pub status: InviteStatus,
    pub expires_at: Ts,
}

pub async fn preview(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<axum::Json<InvitePreview>> {
    let p = domain::preview(&state.db, &token).await?;
    Ok(axum::Json(InvitePreview {
        workspace_name: p.workspace_name,
        role: p.invite.role_key.clone(),
        invited_by: p.invited_by,
        email: p.invite.email.clone(),
        status: p.invite.status(),
        expires_at: p.invite.expires_at,
    }))
}

pub async fn accept(
    State(state): State<AppState>,
    caller: Caller,
    Path(token): Path<String>,
) -> Result<axum::Json<super::accounts::MembershipView>> {
    let m = domain::accept(&state.db, caller.actor(), &caller.user, &token).await?;
    Ok(axum::Json(super::accounts::MembershipView::from(&m)))
}
