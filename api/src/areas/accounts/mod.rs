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
use shared::mail::Email;
use shared::repo::auth_tokens::{self, EmailPurpose};
use shared::repo::orgs::Membership;
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
    pub org_type: String,
    pub role: String,
}

impl From<&Membership> for MembershipView {
    fn from(m: &Membership) -> Self {
        MembershipView {
            workspace_id: m.org_id,
            workspace_name: m.org_name.clone(),
            org_type: m.org_type.clone(),
            role: m.role_key.clone(),
        }
    }
}

/// Emails a single-use link for `purpose`. Mail failures are logged, not raised: the caller's
/// action (sign-up, a reset request) has succeeded and the user can ask for another link.
pub async fn send_link(state: &AppState, user: &User, purpose: EmailPurpose) -> bool {
    let token = {
        let mut c = match state.db.acquire().await {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "could not create an email token");
                return false;
            }
        };
        match auth_tokens::create_email_token(&mut c, user.id, purpose).await {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(error = %e, "could not create an email token");
                return false;
            }
        }
    };
    let link = state.cfg.public_url(&format!(
        "/auth/callback?type={}&token={token}",
        purpose.as_str()
    ));
    let (subject, text) = match purpose {
        EmailPurpose::VerifyEmail => (
            "Confirm your email address",
            format!(
                "Hello {},\n\nconfirm your email address by opening this link:\n\n{link}\n\nThe link works once and expires in 3 days.\n",
                user.name
            ),
        ),
        EmailPurpose::ResetPassword => (
            "Reset your password",
            format!(
                "Hello {},\n\nsomeone asked to reset the password of this account. If it was you, open:\n\n{link}\n\nThe link works once and expires in 1 hour. If it was not you, ignore this mail.\n",
                user.name
            ),
        ),
    };
    match state
        .mailer
        .send(Email {
            to: user.email.clone(),
            subject: subject.into(),
            text,
        })
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, purpose = purpose.as_str(), "sending mail failed");
            false
        }
    }
}
