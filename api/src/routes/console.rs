//! The platform admin console in the browser (issue 39, `docs/web.md`): pages under `/admin/…`,
//! each `Auth::Console` (a platform administrator's web session, else a 403 page; the JSON
//! admin routes' policy) calling the same operations as the JSON admin routes. Not in the
//! OpenAPI document; in `docs/routes.md` (area `web`).

use super::{GET, POST};
use crate::areas::desk::admin::{
    announcements, jobs, metrics, people, reports, signup, subscriptions,
};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    let admin = Auth::Console;
    vec![
        route(GET, "/admin", metrics::show)
            .auth(admin).area("web")
            .summary("Admin console: the platform's counts and live activity (polled every 5 s)"),
        route(GET, "/admin/orgs", people::orgs)
            .auth(admin).area("web").summary("Workspaces with member counts: search q, 25 a page (offset)"),
        route(GET, "/admin/orgs/{id}", people::org)
            .auth(admin).area("web").summary("A workspace: plan, seat cap, modules off, members"),
        route(POST, "/admin/orgs/{id}/seats", people::set_seats)
            .auth(admin).area("web").summary("Set or clear a workspace's seat cap override (as PATCH /api/admin/orgs/{id})"),
        route(GET, "/admin/users", people::users)
            .auth(admin).area("web").summary("Users: search q over email and name, 25 a page (offset)"),
        route(GET, "/admin/users/{id}", people::user)
            .auth(admin).area("web").summary("A user, their workspaces, and the form to act as them"),
        route(POST, "/admin/users/{id}/impersonate", people::impersonate)
            .auth(admin).area("web").summary("Act as the user from this browser for 30 minutes (audited, with a reason), then home"),
        route(GET, "/admin/jobs", jobs::list)
            .auth(admin).area("web").summary("The queues (polled every 5 s) and every job newest first: status, queue, kind; 25 a page"),
        route(POST, "/admin/jobs/{id}/retry", jobs::retry)
            .auth(admin).area("web").summary("Re-queue a failed or cancelled job (as POST /api/admin/jobs/{id}/retry)"),
        route(POST, "/admin/jobs/{id}/cancel", jobs::cancel)
            .auth(admin).area("web").summary("Cancel a queued or running job (as POST /api/jobs/{id}/cancel)"),
        route(GET, "/admin/signup", signup::show)
            .auth(admin).area("web").summary("Who may sign up: the signup mode, the waitlist (offset wl) and signup invites (offset inv), 25 a page"),
        route(POST, "/admin/signup/mode", signup::set_mode)
            .auth(admin).area("web").summary("Set the signup mode (as PATCH /api/admin/settings)"),
        route(POST, "/admin/signup/invites", signup::create_invite)
            .auth(admin).area("web").summary("Create a signup invite, its link shown once (as POST /api/admin/invites)"),
        route(POST, "/admin/signup/invites/{id}/revoke", signup::revoke_invite)
            .auth(admin).area("web").summary("Withdraw a pending signup invite (as DELETE /api/admin/invites/{id})"),
        route(POST, "/admin/signup/waitlist/{id}/invite", signup::invite_waiting)
            .auth(admin).area("web").summary("Invite a waitlisted person, their link shown once (as POST /api/admin/waitlist/{id}/invite)"),
        route(GET, "/admin/reports", reports::list)
            .auth(admin).area("web").summary("Reported messages with their conversation, newest first: filter status, 25 a page (offset)"),
        route(POST, "/admin/reports/{id}", reports::decide)
            .auth(admin).area("web").summary("Resolve (optionally removing the message) or dismiss a report with a note (as PATCH /api/admin/message-reports/{id})"),
        route(GET, "/admin/announcements", announcements::show)
            .auth(admin).area("web").summary("Send an announcement; notifications newest first with each channel's delivery: filter kind, 25 a page (offset)"),
        route(POST, "/admin/announcements", announcements::announce)
            .auth(admin).area("web").summary("Send a platform announcement to everyone or one workspace (as POST /api/admin/notifications: a job, audited)"),
        route(GET, "/admin/subscriptions", subscriptions::list)
            .auth(admin).area("web").summary("Paid subscriptions and grants side by side: filter status, workspace; 25 a page (offset); the grant form"),
        route(POST, "/admin/subscriptions/grant", subscriptions::grant)
            .auth(admin).area("web").summary("Grant a workspace a plan and seats without payment (as POST /api/admin/subscriptions/grant; audited)"),
    ]
}
