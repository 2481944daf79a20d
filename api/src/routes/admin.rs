//! The platform admin's routes (mirrored under /api/mobile/admin).

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{accounts, activity, admin, jobs, messaging, notifications, orgs};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/admin/metrics", admin::metrics)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Platform counts: users, workspaces, members, waitlist, sessions, jobs")
            .ok::<admin::Metrics>(200),
        route(GET, "/api/admin/live-metrics", admin::live_metrics)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Who is active now and the latest client events (the Live page)")
            .ok::<admin::LiveMetrics>(200),
        route(GET, "/api/admin/activity", admin::activity)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Client activity events (filters: userId, orgId, kind, since)")
            .query_of::<admin::ActivityQuery>()
            .paged::<admin::EventView>(),
        route(GET, "/api/admin/audit", admin::audit_log)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("The platform audit log (filters: orgId, actorId, action, from, to)")
            .query_of::<admin::AuditQuery>()
            .paged::<orgs::AuditView>(),
        route(GET, "/api/admin/orgs", admin::orgs)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Workspaces with member counts (search q)")
            .query_of::<admin::SearchQuery>()
            .paged::<admin::OrgSummaryView>(),
        route(GET, "/api/admin/orgs/{id}", admin::org)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("A workspace with members and seat cap")
            .ok::<admin::OrgDetail>(200),
        route(PATCH, "/api/admin/orgs/{id}", admin::update_org)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Set a workspace's seat cap override")
            .body::<admin::OrgAdminUpdate>().ok::<admin::OrgDetail>(200),
        route(GET, "/api/admin/users", admin::users_list)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Users (search q over email and name)")
            .query_of::<admin::SearchQuery>()
            .paged::<accounts::UserView>(),
        route(GET, "/api/admin/users/{id}", admin::user)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("A user and their workspaces")
            .ok::<admin::UserDetail>(200),
        route(POST, "/api/admin/impersonate", admin::impersonate)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Act as a user for 30 minutes (audited; not another admin)")
            .body::<admin::ImpersonateRequest>().ok::<admin::ImpersonationView>(200),
        route(POST, "/api/admin/impersonate/stop", admin::stop_impersonating)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("End the impersonation of this sign-in")
            .empty(204, "ended"),
        route(GET, "/api/admin/invites", admin::invites)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Platform signup invites")
            .paged::<admin::SignupInviteView>(),
        route(POST, "/api/admin/invites", admin::create_invite)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Create a signup invite code (optionally mailed)")
            .body::<admin::CreateSignupInvite>().ok::<admin::CreatedSignupInvite>(201),
        route(DELETE, "/api/admin/invites/{id}", admin::revoke_invite)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Withdraw an unused signup invite")
            .empty(204, "revoked"),
        route(GET, "/api/admin/waitlist", admin::waitlist)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Waitlist entries, oldest first")
            .paged::<admin::WaitlistView>(),
        route(POST, "/api/admin/waitlist/{id}/invite", admin::invite_from_waitlist)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Invite a waitlisted person (mails a signup invite)")
            .ok::<admin::CreatedSignupInvite>(201),
        route(GET, "/api/admin/settings", admin::get_settings)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Platform settings and the effective schedules")
            .ok::<admin::SettingsView>(200),
        route(PATCH, "/api/admin/settings", admin::update_settings)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Change platform settings (signup mode)")
            .body::<admin::SettingsUpdate>().ok::<admin::SettingsView>(200),
        route(GET, "/api/admin/subscriptions", admin::subscriptions)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Paid subscriptions and grants side by side (source provider|grant; filters: orgId, status)")
            .query_of::<admin::SubscriptionQuery>()
            .paged::<admin::SubscriptionView>(),
        route(POST, "/api/admin/subscriptions/grant", admin::grant)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Grant a workspace a plan and seats without payment")
            .body::<admin::GrantRequest>().ok::<admin::SubscriptionView>(201),
        route(GET, "/api/admin/message-reports", messaging::moderation::list)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Reported messages with their conversation (filters: status, orgId)")
            .query_of::<messaging::moderation::ReportQuery>()
            .paged::<messaging::moderation::ReportView>(),
        route(PATCH, "/api/admin/message-reports/{id}", messaging::moderation::decide)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Resolve (optionally removing the message) or dismiss a report; audited")
            .body::<messaging::moderation::ReportDecision>().ok::<messaging::moderation::ReportView>(200),
        route(GET, "/api/admin/notifications", notifications::admin::list)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Notifications with each channel's delivery (filters: userId, orgId, kind, status, channel)")
            .query_of::<notifications::admin::ListQuery>()
            .paged::<notifications::admin::NotificationView>(),
        route(POST, "/api/admin/notifications", notifications::admin::announce)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Send a platform announcement (everyone or one workspace) by push and email; a job, audited")
            .body::<notifications::admin::AnnouncementRequest>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/activity/log", activity::log)
            .auth(Auth::User).mobile()
            .area("admin").summary("Record client activity events (the Live page reads them)")
            .body::<activity::LogRequest>().ok::<activity::Logged>(202),
    ]
}
