//! Member invites: seat-capped (members plus pending invites may not exceed the workspace's
//! cap), emailed, single use, expiring after 7 days, revocable. The invitee previews and
//! accepts while signed in with the invited email address.

use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::mail::Email;
use shared::repo::invites::{self, Invite};
use shared::repo::{audit, orgs, roles, users};

use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteView {
    pub id: Id,
    pub email: String,
    pub role: String,
    /// pending, accepted, revoked or expired
    pub status: String,
    pub created_at: Ts,
    pub expires_at: Ts,
}

fn view(i: &Invite) -> InviteView {
    InviteView {
        id: i.id,
        email: i.email.clone(),
        role: i.role_key.clone(),
        status: i.status().into(),
        created_at: i.created_at,
        expires_at: i.expires_at,
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateInvite {
    pub email: String,
    /// A role key other than owner (ownership is transferred, not invited).
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
    ws: Ws,
    Body(req): Body<CreateInvite>,
) -> Result<(StatusCode, axum::Json<CreatedInvite>)> {
    let mut v = Validator::new();
    let email = v.email("email", &req.email);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let role = roles::by_key(&mut tx, ws.org_id, req.role.trim())
        .await?
        .filter(|r| r.key != "owner")
        .ok_or_else(|| {
            Error::field(
                "role",
                "unknown_role",
                "no such role here (owner cannot be invited)",
            )
        })?;
    if let Some(u) = users::by_email(&mut tx, &email).await?
        && orgs::membership(&mut tx, u.id, ws.org_id).await?.is_some()
    {
        return Err(Error::conflict("already_member", "this person is already a member").into());
    }
    // A re-invite replaces the pending one (and so takes no extra seat).
    invites::revoke_pending_to(&mut tx, ws.org_id, &email).await?;
    let used = orgs::count_members(&mut tx, ws.org_id).await?
        + invites::count_pending(&mut tx, ws.org_id).await?;
    let cap = orgs::seat_cap(&mut tx, &org).await?;
    if used >= cap {
        return Err(Error::conflict(
            "seat_cap_exceeded",
            format!("all {cap} seats are taken (members and pending invites)"),
        )
        .with_details(json!({ "seats": cap, "used": used, "plan": org.plan }))
        .into());
    }
    let (id, token) = invites::create(&mut tx, ws.org_id, &email, role.id, caller.user.id).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "invite.created",
            "invite",
            Some(id.to_string()),
            json!({ "email": email, "role": role.key }),
        ),
    )
    .await?;
    let invite = invites::get(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("invite vanished")))?;
    tx.commit().await?;
    let url = state.cfg.public_url(&format!("/join/{token}"));
    let sent = state
        .mailer
        .send(Email {
            to: email.clone(),
            subject: format!("{} invited you to {}", caller.user.name, org.name),
            text: format!(
                "Hello,\n\n{} invited you to join {} as {}. Open this link to accept (it expires in 7 days):\n\n{url}\n",
                caller.user.name, org.name, role.name
            ),
        })
        .await
        .inspect_err(|e| tracing::error!(error = %e, "invite mail failed"))
        .is_ok();
    Ok((
        StatusCode::CREATED,
        axum::Json(CreatedInvite {
            invite: view(&invite),
            invite_url: url,
            email_sent: sent,
        }),
    ))
}

pub async fn list(
    State(state): State<AppState>,
    ws: Ws,
    page: Page,
) -> Result<axum::Json<Paged<InviteView>>> {
    let mut c = state.db.acquire().await?;
    let rows = invites::list(&mut c, ws.org_id, page.fetch_limit(), page.offset).await?;
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
    ws: Ws,
    Path(p): Path<InvitePath>,
) -> Result<axum::Json<InviteView>> {
    let mut c = state.db.acquire().await?;
    let i = invites::get(&mut c, ws.org_id, p.invite_id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    Ok(axum::Json(view(&i)))
}

pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(p): Path<InvitePath>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let i = invites::get(&mut tx, ws.org_id, p.invite_id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    if !invites::revoke(&mut tx, ws.org_id, i.id).await? {
        return Err(Error::conflict(
            "invite_not_pending",
            format!("the invite is {}", i.status()),
        )
        .into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "invite.revoked",
            "invite",
            Some(i.id.to_string()),
            json!({ "email": i.email }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitePreview {
    pub workspace_name: String,
    pub role: String,
    pub invited_by: Option<String>,
    pub email: String,
    pub status: String,
    pub expires_at: Ts,
}

fn invite_state_error(i: &Invite) -> Option<Error> {
    match i.status() {
        "pending" => None,
        "expired" => Some(Error::new(
            shared::ErrorKind::Gone,
            "invite_expired",
            "this invite has expired; ask for a new one",
        )),
        "revoked" => Some(Error::new(
            shared::ErrorKind::Gone,
            "invite_revoked",
            "this invite was withdrawn",
        )),
        _ => Some(Error::new(
            shared::ErrorKind::Gone,
            "invite_used",
            "this invite was already accepted",
        )),
    }
}

pub async fn preview(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<axum::Json<InvitePreview>> {
    let mut c = state.db.acquire().await?;
    let i = invites::by_token(&mut c, &token)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    let org = orgs::by_id(&mut c, i.org_id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    let inviter = match i.invited_by {
        Some(u) => users::by_id(&mut c, u).await?.map(|u| u.name),
        None => None,
    };
    Ok(axum::Json(InvitePreview {
        workspace_name: org.name,
        role: i.role_key.clone(),
        invited_by: inviter,
        email: i.email.clone(),
        status: i.status().into(),
        expires_at: i.expires_at,
    }))
}

pub async fn accept(
    State(state): State<AppState>,
    caller: Caller,
    Path(token): Path<String>,
) -> Result<axum::Json<super::accounts::MembershipView>> {
    let mut tx = state.db.begin().await?;
    let i = invites::by_token(&mut tx, &token)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    if let Some(e) = invite_state_error(&i) {
        return Err(e.into());
    }
    if !i.email.eq_ignore_ascii_case(&caller.user.email) {
        return Err(Error::forbidden(
            "invite_email_mismatch",
            "this invite is for another email address; sign in with that one",
        )
        .into());
    }
    if orgs::membership(&mut tx, caller.user.id, i.org_id)
        .await?
        .is_some()
    {
        return Err(Error::conflict(
            "already_member",
            "you are already a member of this workspace",
        )
        .into());
    }
    if !invites::accept(&mut tx, i.id, caller.user.id).await? {
        return Err(Error::new(
            shared::ErrorKind::Gone,
            "invite_used",
            "this invite was already accepted",
        )
        .into());
    }
    orgs::add_member(&mut tx, i.org_id, caller.user.id, i.role_id).await?;
    if caller.user.default_org_id.is_none() {
        users::set_default_org(&mut tx, caller.user.id, Some(i.org_id)).await?;
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(i.org_id),
            "invite.accepted",
            "invite",
            Some(i.id.to_string()),
            json!({ "role": i.role_key }),
        ),
    )
    .await?;
    let m = orgs::membership(&mut tx, caller.user.id, i.org_id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("membership missing")))?;
    tx.commit().await?;
    Ok(axum::Json(super::accounts::MembershipView::from(&m)))
}
