//! The workspaces area's routes: workspaces, members, roles, invites, the team calendar, the
//! coaches view.

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{accounts, coaches, invites, members, orgs, roles};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ---- workspaces ----
        route(GET, "/api/orgs", orgs::list)
            .auth(Auth::User)
            .area("workspaces").summary("The caller's workspaces")
            .ok::<Vec<accounts::MembershipView>>(200),
        route(POST, "/api/orgs", orgs::create)
            .auth(Auth::User)
            .area("workspaces").summary("Create a workspace owned by the caller")
            .body::<orgs::CreateOrg>().ok::<orgs::OrgView>(201),
        route(GET, "/api/orgs/{id}", orgs::get)
            .auth(Auth::org(None))
            .area("workspaces").summary("Read a workspace")
            .ok::<orgs::OrgView>(200),
        route(PATCH, "/api/orgs/{id}", orgs::update)
            .auth(Auth::org(Some(Perm::OrgUpdate)))
            .area("workspaces").summary("Update a workspace (name, type, country)")
            .body::<orgs::UpdateOrg>().ok::<orgs::OrgView>(200),
        route(GET, "/api/orgs/{id}/members", orgs::members)
            .auth(Auth::org(Some(Perm::MembersRead)))
            .area("workspaces").summary("List members (paginated)")
            .paged::<orgs::MemberView>(),
        route(PATCH, "/api/orgs/{id}/members/{memberId}", members::update)
            .auth(Auth::org(Some(Perm::MembersManage)))
            .area("workspaces").summary("Change a member's role (the last owner stays owner)")
            .body::<members::UpdateMember>().ok::<orgs::MemberView>(200),
        route(DELETE, "/api/orgs/{id}/members/{memberId}", members::remove)
            .auth(Auth::org(None))
            .area("workspaces").summary("Remove a member (members.manage), or leave (yourself)")
            .empty(204, "removed"),
        route(POST, "/api/orgs/{id}/transfer-ownership", members::transfer_ownership)
            .auth(Auth::org(None))
            .area("workspaces").summary("Make another member owner (owners only); the caller becomes admin")
            .body::<members::TransferOwnership>().ok::<Vec<orgs::MemberView>>(200),
        route(POST, "/api/orgs/{id}/reset-password", members::reset_password)
            .error(429, "too many mails asked for (rate_limited, Retry-After)")
            .auth(Auth::org(Some(Perm::MembersManage)))
            .area("workspaces").summary("Mail a member a password-reset link")
            .body::<members::ResetPassword>().ok::<accounts::signup::Accepted>(202),
        route(GET, "/api/orgs/{id}/coach-directory", members::coach_directory)
            .auth(Auth::org(None))
            .area("workspaces").summary("Coaches of the workspace, names only (for pickers)")
            .ok::<Vec<members::DirectoryEntry>>(200),
        route(GET, "/api/orgs/{id}/roles", roles::list)
            .auth(Auth::org(Some(Perm::MembersRead)))
            .area("workspaces").summary("Roles with their permissions and member counts")
            .ok::<Vec<roles::RoleView>>(200),
        route(POST, "/api/orgs/{id}/roles", roles::create)
            .auth(Auth::org(Some(Perm::RolesManage)))
            .area("workspaces").summary("Create a role")
            .body::<roles::CreateRole>().ok::<roles::RoleView>(201),
        route(PATCH, "/api/orgs/{id}/roles/{roleId}", roles::update)
            .auth(Auth::org(Some(Perm::RolesManage)))
            .area("workspaces").summary("Rename a role or change its permissions (not owner)")
            .body::<roles::UpdateRole>().ok::<roles::RoleView>(200),
        route(DELETE, "/api/orgs/{id}/roles/{roleId}", roles::delete)
            .auth(Auth::org(Some(Perm::RolesManage)))
            .area("workspaces").summary("Delete a custom role that nobody holds")
            .empty(204, "deleted"),
        route(PATCH, "/api/orgs/{id}/modules", roles::set_modules)
            .auth(Auth::org(Some(Perm::ModulesManage)))
            .area("workspaces").summary("Switch feature modules on or off")
            .body::<roles::ModulesUpdate>().ok::<roles::ModulesView>(200),
        route(GET, "/api/orgs/{id}/audit", orgs::audit_log)
            .auth(Auth::org(Some(Perm::AuditRead)))
            .area("workspaces").summary("The workspace's audit log (filters: action, from, to)")
            .query_of::<orgs::AuditQuery>()
            .paged::<orgs::AuditView>(),
        route(POST, "/api/orgs/{id}/members/invite", invites::create)
            .auth(Auth::org(Some(Perm::MembersInvite)))
            .area("workspaces").summary("Invite a member by email (seat-capped)")
            .body::<invites::CreateInvite>().ok::<invites::CreatedInvite>(201),
        route(POST, "/api/orgs/{id}/invite", invites::create)
            .auth(Auth::org(Some(Perm::MembersInvite)))
            .area("workspaces").summary("Alias of members/invite")
            .body::<invites::CreateInvite>().ok::<invites::CreatedInvite>(201),
        route(GET, "/api/orgs/{id}/invites", invites::list)
            .auth(Auth::org(Some(Perm::MembersRead)))
            .area("workspaces").summary("Member invites, newest first")
            .paged::<invites::InviteView>(),
        route(GET, "/api/orgs/{id}/invites/{inviteId}", invites::get)
            .auth(Auth::org(Some(Perm::MembersRead)))
            .area("workspaces").summary("One member invite")
            .ok::<invites::InviteView>(200),
        route(DELETE, "/api/orgs/{id}/invites/{inviteId}", invites::revoke)
            .auth(Auth::org(Some(Perm::MembersInvite)))
            .area("workspaces").summary("Revoke a pending invite")
            .empty(204, "revoked"),
        route(GET, "/api/orgs/invite/{token}", invites::preview)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::User)
            .area("workspaces").summary("Preview a member invite by its token")
            .ok::<invites::InvitePreview>(200),
        route(POST, "/api/orgs/invite/{token}/accept", invites::accept)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::User)
            .area("workspaces").summary("Accept a member invite (signed in with the invited email)")
            .ok::<accounts::MembershipView>(200),
        route(GET, "/api/orgs/{id}/calendar", orgs::calendar)
            .auth(Auth::org(Some(Perm::CalendarRead)))
            .area("workspaces").summary("Team calendar for a range (from, to; at most 92 days)")
            .query_of::<orgs::CalendarQuery>()
            .ok::<orgs::Calendar>(200),
        // ---- coaches view ----
        route(GET, "/api/coaches/{id}", coaches::get)
            .auth(Auth::member(Perm::MembersRead))
            .area("workspaces").summary("A coach of the workspace")
            .ok::<coaches::CoachView>(200),
        route(PATCH, "/api/coaches/{id}", coaches::update)
            .auth(Auth::any_member())
            .area("workspaces").summary("Rename a coach (yourself, or with members.manage)")
            .body::<coaches::UpdateCoach>().ok::<coaches::CoachView>(200),
        route(GET, "/api/coaches/{id}/athletes", coaches::athletes)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("workspaces").summary("The coach's assigned athletes")
            .paged::<coaches::CoachAthleteView>(),
        route(POST, "/api/coaches/{id}/athletes/reassign", coaches::reassign)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("workspaces").summary("Move a coach's athletes (all or some) to another coach")
            .body::<coaches::Reassign>().ok::<coaches::Reassigned>(200),
        route(GET, "/api/coaches/{id}/stats", coaches::stats)
            .auth(Auth::member(Perm::MembersRead))
            .area("workspaces").summary("A coach's counts: athletes, training sessions, attendance")
            .ok::<coaches::CoachStats>(200),
        route(GET, "/api/coaches/{id}/activity", coaches::activity)
            .auth(Auth::member(Perm::AuditRead))
            .area("workspaces").summary("What the coach did in the workspace (audit entries)")
            .paged::<orgs::AuditView>(),
    ]
}
