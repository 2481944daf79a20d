//! The invites tab: the workspace's member invites with their state, 25 a page, and its seats
//! ("n of m": members plus pending invites against the seat cap, as `shared::domain::invites`
//! counts them when it refuses `seat_cap_exceeded`); invite someone by e-mail with a role (as
//! `POST /api/orgs/{id}/members/invite`) and revoke a pending invite (as `DELETE …`).

use super::{TabLink, missing, tabs};
use crate::areas::desk::{Chrome, Desk, DeskForm, Empty, Offset, Pager, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::{OWNER_ROLE, billing, invites, roles};
use shared::repo::invites::InviteStatus;

/// Invites per page.
pub const PAGE_SIZE: i64 = 25;
const TAB: &str = "/settings/invites";

pub struct Row {
    pub email: String,
    pub role: String,
    pub status: String,
    pub pending: bool,
    pub expires: String,
    pub revoke_action: String,
}

#[derive(Default, Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

#[derive(Template)]
#[template(path = "desk/settings/invites.html")]
pub struct InvitesPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    base: String,
    seats: String,
    full: bool,
    rows: Vec<Row>,
    /// (key, name, selected) of every role one may be invited to (not owner).
    roles: Vec<(String, String, bool)>,
    can_invite: bool,
    f: InviteForm,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

async fn invites_page(
    state: &AppState,
    desk: &Desk,
    offset: i64,
    f: InviteForm,
    notice: Option<Notice>,
) -> Result<InvitesPage, Error> {
    let acting = desk.acting();
    let seats = billing::status(&state.db, &acting).await?;
    let mut rows = invites::list(&state.db, &acting, PAGE_SIZE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let wanted = if f.role.is_empty() {
        "coach"
    } else {
        f.role.as_str()
    };
    let roles = roles::list(&state.db, &acting)
        .await?
        .into_iter()
        .filter(|(r, _)| r.key != OWNER_ROLE)
        .map(|(r, _)| {
            let sel = r.key == wanted;
            (r.key, r.name, sel)
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|i| {
            let status = i.status();
            Row {
                revoke_action: desk.path(&format!("{TAB}/{}/revoke", i.id)),
                email: i.email,
                role: i.role_key,
                status: desk
                    .cat
                    .t(match status {
                        InviteStatus::Pending => "set.invites.pending",
                        InviteStatus::Accepted => "set.invites.accepted",
                        InviteStatus::Revoked => "set.invites.revoked",
                        InviteStatus::Expired => "set.invites.expired",
                    })
                    .to_string(),
                pending: status == InviteStatus::Pending,
                expires: desk.time(i.expires_at),
            }
        })
        .collect();
    let link = |o: i64| desk.path(&format!("{TAB}?offset={o}"));
    Ok(InvitesPage {
        c: Chrome::new(desk, desk.cat.t("set.invites.title")),
        tabs: tabs(desk, TAB),
        base: desk.path(TAB),
        seats: desk.cat.fill(
            "set.invites.seats",
            &[
                ("used", &seats.used.to_string()),
                ("cap", &seats.seats.to_string()),
            ],
        ),
        full: seats.used >= seats.seats,
        rows,
        roles,
        can_invite: desk.ws.can(Perm::MembersInvite),
        f,
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
    })
}

pub async fn list(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    match invites_page(&state, &desk, offset, InviteForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// `POST …/settings/invites`: as `POST /api/orgs/{id}/members/invite` (the mail goes out; a
/// failed mail is said in the note). Refused (a field, `already_member`,
/// `seat_cap_exceeded`): the page again with the error, at the API's status.
pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<InviteForm>,
) -> Response {
    let made = match invites::NewInvite::parse(&f.email, &f.role) {
        Ok(new) => {
            invites::create(
                &state.db,
                &state.cfg,
                &state.mailer,
                &desk.acting(),
                &desk.who.caller.user,
                new,
            )
            .await
        }
        Err(e) => Err(e),
    };
    match made {
        Ok(c) if c.email_sent => desk.done(TAB, "set.invites.sent"),
        Ok(_) => desk.done(TAB, "set.invites.unsent"),
        Err(e) => {
            let code = status_of(&e);
            match invites_page(&state, &desk, 0, f, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, code, &p, TAB),
                Err(e) => desk.error(&e),
            }
        }
    }
}

/// `POST …/settings/invites/{invite}/revoke`: as `DELETE /api/orgs/{id}/invites/{inviteId}`.
pub async fn revoke(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, invite)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match invites::revoke(&state.db, &desk.acting(), invite).await {
        Ok(()) => desk.done(TAB, "set.invites.revoked"),
        Err(e) if missing(&e) => desk.error(&e),
        Err(e) => {
            let code = status_of(&e);
            match invites_page(
                &state,
                &desk,
                0,
                InviteForm::default(),
                Some(Notice::of(&e)),
            )
            .await
            {
                Ok(p) => page_at(&desk, code, &p, TAB),
                Err(e) => desk.error(&e),
            }
        }
    }
}
