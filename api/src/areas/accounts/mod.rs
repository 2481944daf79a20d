//! Accounts and sign-in: sign-up (account + workspace + owner membership), signup modes and the
//! waitlist, web sessions and phone tokens, email verification and password reset, workspace
//! provisioning and account deletion.

pub mod account;
pub mod email_links;
pub mod mobile;
pub mod sessions;
pub mod signup;

use crate::state::AppState;
use serde::Serialize;
use shared::db::{Id, Ts};
use shared::repo::auth_tokens::EmailPurpose;
use shared::repo::orgs::{Membership, OrgType};
use shared::repo::users::User;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub id: Id,
    pub email: String,
    pub name: String,
    pub email_verified: bool,
    pub is_platform_admin: bool,
    pub created_at: Ts,
}

impl From<&User> for UserView {
    fn from(u: &User) -> Self {
        UserView {
            id: u.id,
            email: u.email.clone(),
            name: u.name.clone(),
            email_verified: u.email_verified_at.is_some(),
            is_platform_admin: u.is_platform_admin,
            created_at: u.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MembershipView {
    pub workspace_id: Id,
    pub workspace_name: String,
    #[serde(rename = "type")]
    pub org_type: OrgType,
    pub role: String,
}

impl From<&Membership> for MembershipView {
    fn from(m: &Membership) -> Self {
        MembershipView {
            workspace_id: m.org_id,
            workspace_name: m.org_name.clone(),
            org_type: m.org_type,
            role: m.role_key.clone(),
        }
    }
}

/// Emails a single-use link for `purpose` (see `shared::domain::accounts::send_link`).
pub async fn send_link(state: &AppState, user: &User, purpose: EmailPurpose) -> bool {
    shared::domain::accounts::send_link(&state.db, &state.cfg, &state.mailer, user, purpose).await
}
