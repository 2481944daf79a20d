//! Every route of the service, with its auth policy. Reading this file answers "who may call
//! what". Public routes say why they are public. Routes are added here and nowhere else (a test
//! fails on a route the OpenAPI document lacks, or on an anonymous call that is not refused).

use crate::areas::{
    accounts, achievements, activity, admin, athlete_search, athletes, batch, billing, circuits,
    coaches, coaching, competition_jobs, cron, footage, heatsource, identity, imports, ingest,
    invites, jobs, members, messaging, notifications, opponents, orgs, pages, reports, reviews,
    reviewvideo, roles, storage, strategy, surf, system, tourindex, training, tv, video, watchlist,
    wearable,
};
use crate::auth::Auth;
use crate::registry::{Registry, route};
use axum::http::Method;
use shared::authz::{Module, Perm};
use shared::domain::wearable::labels::NewLabel;
use shared::domain::wearable::sync::{SyncPatch, SyncRequest};

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PATCH: Method = Method::PATCH;
const PUT: Method = Method::PUT;
const DELETE: Method = Method::DELETE;
const OPTIONS: Method = Method::OPTIONS;

pub fn registry() -> Registry {
    use accounts::{account, email_links, mobile, sessions, signup};
    let mut rows = vec![
        // ---- accounts: sign-up, sign-in, sessions, tokens ----
        route(POST, "/api/auth/signup", signup::signup)
            .error(429, "too many sign-ups from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("creates a new account; governed by the signup mode, rate-limited per address"))
            .area("accounts").summary("Create a coach account and workspace")
            .body::<signup::SignupRequest>().ok::<signup::SignupResponse>(201),
        route(GET, "/api/signup-mode", signup::signup_mode)
            .auth(Auth::Public("the sign-up page must know the mode before anyone has an account; reveals only whether a given invite code is usable"))
            .area("accounts").summary("Report the signup mode; query `invite` checks an invite code")
            .query_of::<signup::ModeQuery>()
            .ok::<signup::SignupModeResponse>(200),
        route(POST, "/api/waitlist", signup::join_waitlist)
            .error(429, "too many requests from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("people without an account ask for access; same answer for repeats, rate-limited"))
            .area("accounts").summary("Record a request for access")
            .body::<signup::WaitlistRequest>().ok::<signup::Accepted>(202),
        route(POST, "/api/auth/signin", sessions::signin)
            .error(429, "too many failed sign-ins (rate_limited, Retry-After)")
            .auth(Auth::Public("sign-in itself: exchanges email and password for a session; failures rate-limited"))
            .area("accounts").summary("Sign in (web): sets the session and CSRF cookies")
            .error(401, "the email or password is wrong (invalid_credentials)")
            .body::<sessions::SigninRequest>().ok::<sessions::SigninResponse>(200),
        route(POST, "/api/auth/signout", sessions::signout)
            .auth(Auth::User).mobile()
            .area("accounts").summary("Sign out this session (web) or this sign-in's tokens (phone)")
            .empty(204, "signed out"),
        route(GET, "/api/auth/me", sessions::me)
            .auth(Auth::User).mobile()
            .area("accounts").summary("The signed-in user and their workspaces")
            .ok::<sessions::MeResponse>(200),
        route(POST, "/api/mobile/auth/token", mobile::token)
            .error(429, "too many failed sign-ins (rate_limited, Retry-After)")
            .auth(Auth::Public("phone sign-in: exchanges email and password for tokens; failures rate-limited like web sign-in"))
            .area("accounts").summary("Phone sign-in: access and refresh tokens")
            .error(401, "the email or password is wrong (invalid_credentials)")
            .body::<mobile::TokenRequest>().ok::<mobile::TokenResponse>(200),
        route(POST, "/api/mobile/auth/refresh", mobile::refresh)
            .auth(Auth::Token("the refresh token in the body; rotated on use, replay revokes the sign-in"))
            .area("accounts").summary("Rotate a refresh token for a new token pair")
            .body::<mobile::RefreshRequest>().ok::<mobile::TokenResponse>(200),
        route(GET, "/auth/callback", email_links::callback)
            .auth(Auth::Token("the single-use emailed token in the query (verification or password reset)"))
            .area("accounts").summary("Emailed-link landing: verifies the token, redirects to the web client")
            .query_of::<email_links::CallbackQuery>()
            .empty(303, "to the web client"),
        route(POST, "/api/auth/verify-email/resend", email_links::resend_verification)
            .error(429, "too many mails asked for (rate_limited, Retry-After)")
            .auth(Auth::User).mobile()
            .area("accounts").summary("Mail a new email-verification link")
            .ok::<signup::Accepted>(202),
        route(POST, "/api/auth/password/forgot", email_links::forgot_password)
            .error(429, "too many mails asked for (rate_limited, Retry-After)")
            .auth(Auth::Public("a user who forgot the password cannot sign in; same answer whether or not the account exists, rate-limited"))
            .area("accounts").summary("Mail a password-reset link")
            .body::<email_links::ForgotRequest>().ok::<signup::Accepted>(202),
        route(POST, "/api/auth/password/reset", email_links::reset_password)
            .auth(Auth::Token("the single-use emailed reset token in the body"))
            .area("accounts").summary("Set a new password with an emailed token; signs out everywhere")
            .body::<email_links::ResetRequest>().empty(204, "password changed"),
        route(POST, "/api/auth/ensure-org", account::ensure_org)
            .auth(Auth::User).mobile()
            .area("accounts").summary("Provision a workspace for a coach who has none")
            .body::<account::EnsureOrgRequest>().ok::<account::EnsureOrgResponse>(201)
            .ok::<account::EnsureOrgResponse>(200),
        route(POST, "/api/auth/delete-account", account::delete_account)
            .auth(Auth::User).mobile()
            .area("accounts").summary("Delete the current account")
            .body::<account::DeleteAccountRequest>().ok::<account::DeleteAccountResponse>(200),
        route(GET, "/api/auth/reviewvideo", reviewvideo::start)
            .provider()
            .auth(Auth::User)
            .area("accounts").summary("Start connecting the video-review provider (OAuth 2.0)")
            .empty(302, "to the provider's authorization page"),
        route(GET, "/api/auth/reviewvideo/callback", reviewvideo::callback)
            .provider()
            .auth(Auth::User)
            .area("accounts").summary("Complete the video-review provider's OAuth flow")
            .query_of::<reviewvideo::CallbackQuery>()
            .empty(303, "to the web client's integrations page"),
        // ---- system ----
        route(GET, "/api/health", system::health)
            .auth(Auth::Public("load balancers and uptime checks probe it; reveals only up/down"))
            .area("accounts").summary("Health probe (checks the database)")
            .ok::<system::Health>(200).ok::<system::Health>(503),
        route(GET, "/api/time", system::time)
            .auth(Auth::Public("clients measure clock offset before signing in; reveals only the time"))
            .area("accounts").summary("Server wall clock, millisecond precision")
            .ok::<system::ServerTime>(200),
        route(GET, "/api/openapi.json", system::openapi)
            .auth(Auth::Public("the interface description is not secret; client generators fetch it"))
            .area("accounts").summary("This OpenAPI 3.1 document")
            .ok::<system::OpenApiDocument>(200),
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
        // ---- billing (issue 13, docs/billing.md): platform subscription, marketplace, webhook ----
        route(GET, "/api/billing", billing::status)
            .auth(Auth::any_member()).mobile()
            .area("billing").summary("The workspace's plan, subscription status and seats (every member; read-only)")
            .ok::<billing::BillingStatus>(200),
        route(POST, "/api/billing/subscribe", billing::subscribe)
            .provider()
            .auth(Auth::member(Perm::BillingManage)).mobile()
            .area("billing").summary("Start (Checkout, mode=subscription) or modify the workspace's platform subscription; monthly prices only (Idempotency-Key)")
            .body::<billing::SubscribeRequest>().ok::<billing::SubscribeAnswer>(200),
        route(POST, "/api/billing/portal", billing::portal)
            .provider()
            .auth(Auth::member(Perm::BillingManage)).mobile()
            .area("billing").summary("Open the provider's customer portal for the workspace's subscription")
            .ok::<billing::PortalLink>(200),
        route(POST, "/api/payments/connect", billing::connect)
            .provider()
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Billing))
            .area("billing").summary("A coach connects (or continues onboarding) their payout account (Connect)")
            .ok::<billing::PayoutAccountView>(200),
        route(POST, "/api/payments/offerings", billing::create_offering)
            .provider()
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Billing))
            .area("billing").summary("A coach offers something for sale: one-off or monthly")
            .body::<billing::CreateOffering>().ok::<billing::OfferingView>(201),
        route(GET, "/api/payments/offerings", billing::offerings)
            .auth(Auth::any_member().in_module(Module::Billing))
            .area("billing").summary("The workspace's offerings (paginated)")
            .paged::<billing::OfferingView>(),
        route(POST, "/api/payments/checkout", billing::checkout)
            .provider()
            .auth(Auth::User)
            .area("billing").summary("A student, or a minor's guardian, pays a coach's offering: Checkout as a destination charge with the platform's fee (Idempotency-Key)")
            .body::<billing::CheckoutRequest>().ok::<billing::CheckoutAnswer>(200),
        route(POST, "/api/payments/portal", billing::payer_portal)
            .provider()
            .auth(Auth::User)
            .area("billing").summary("Open the provider's customer portal for the caller's payments to coaches")
            .ok::<billing::PortalLink>(200),
        route(GET, "/api/payments/access", billing::my_access)
            .auth(Auth::User)
            .area("billing").summary("The offerings the caller paid for, or was paid for as the athlete, with their status")
            .paged::<billing::AccessView>(),
        route(POST, "/api/payments/webhook", billing::webhook)
            .provider()
            .auth(Auth::Webhook("the payment provider's events, verified by Stripe-Signature (HMAC-SHA256 over t.body with any configured secret, 300 s tolerance)"))
            .area("billing").summary("Payment events (platform and marketplace): stored once, acknowledged at once, applied by a job")
            .ok::<billing::WebhookAck>(200),
        // ---- platform admin (mirrored under /api/mobile/admin) ----
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
        // ---- TV ----
        route(POST, "/api/tv/signin/start", tv::start)
            .error(429, "too many attempts from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("a TV has no account yet: it asks for a device code; rate-limited per address"))
            .area("tv").summary("A TV starts device-code sign-in")
            .body::<tv::StartRequest>().ok::<tv::StartResponse>(200),
        route(POST, "/api/tv/signin/poll", tv::poll)
            .error(429, "too many attempts from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("the TV polls with its secret device code (in the body) until a member claims it; rate-limited"))
            .area("tv").summary("The TV polls: pending, slow_down, denied, expired, or its token (camelCase JSON, or RFC 8628's form-encoded poll answered in RFC 6749's names)")
            .error(400, "authorization_pending, slow_down, access_denied, expired_token, invalid_grant (unknown or used code), invalid_request (no code)")
            .json_or_form_body::<tv::PollRequest, tv::PollForm>().ok::<tv::PollGranted>(200).ok::<tv::PollRefused>(400),
        route(POST, "/api/tv/signin/claim", tv::claim)
            .error(429, "too many attempts from this address (rate_limited, Retry-After)")
            .auth(Auth::member(Perm::TvManage).in_module(Module::Tv))
            .area("tv").summary("A signed-in member binds a TV to the workspace by its user code")
            .body::<tv::ClaimRequest>().ok::<tv::DeviceView>(200),
        route(GET, "/api/tv/devices", tv::list)
            .auth(Auth::member(Perm::TvManage).in_module(Module::Tv))
            .area("tv").summary("The workspace's TVs")
            .ok::<Vec<tv::DeviceView>>(200),
        route(PATCH, "/api/tv/devices/{id}", tv::rename)
            .auth(Auth::member(Perm::TvManage).in_module(Module::Tv))
            .area("tv").summary("Rename a TV")
            .body::<tv::RenameRequest>().ok::<tv::DeviceView>(200),
        route(DELETE, "/api/tv/devices/{id}", tv::sign_out)
            .auth(Auth::member(Perm::TvManage).in_module(Module::Tv))
            .area("tv").summary("Sign a TV out (its token stops working at once)")
            .empty(204, "signed out"),
        route(GET, "/api/tv/me", tv::me)
            .auth(Auth::Tv)
            .area("tv").summary("The signed-in TV and its workspace (TV token)")
            .ok::<tv::TvMe>(200),
        // ---- athletes (issue 5): rows below this line ----
        route(GET, "/api/athletes", athletes::list)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("List athletes (search q, status, level, coachId, published; paginated)")
            .query_of::<athletes::ListQuery>()
            .paged::<athletes::AthleteView>(),
        route(POST, "/api/athletes", athletes::create)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Create an athlete")
            .body::<athletes::CreateAthlete>().ok::<athletes::AthleteView>(201),
        route(GET, "/api/athletes/export", athletes::import::export)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("The roster as CSV (cells neutralised against formula injection)")
            .empty(200, "text/csv"),
        route(POST, "/api/athletes/import", athletes::import::import)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("CSV roster import (text/csv body; ?dryRun, ?background): all or nothing, deduplicated; large files run as a job")
            .query_of::<imports::ImportQuery>()
            .raw_body(&["text/csv"])
            .ok::<shared::import::Report>(200).ok::<jobs::JobAccepted>(202),
        route(GET, "/api/athletes/{id}", athletes::get)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Read an athlete")
            .ok::<athletes::AthleteView>(200),
        route(PATCH, "/api/athletes/{id}", athletes::update)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Update an athlete (status archived archives)")
            .body::<athletes::UpdateAthlete>().ok::<athletes::AthleteView>(200),
        route(DELETE, "/api/athletes/{id}", athletes::delete)
            .auth(Auth::member(Perm::AthletesDelete).in_module(Module::Athletes))
            .area("athletes").summary("Erase an athlete and what is theirs alone")
            .empty(204, "deleted"),
        route(GET, "/api/athletes/{id}/coaches", athletes::coaches)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("The athlete's coach assignments")
            .ok::<Vec<athletes::AssignmentView>>(200),
        route(POST, "/api/athletes/{id}/coaches", athletes::assign_coach)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Assign a coach (a workspace member) to the athlete")
            .body::<athletes::AssignCoach>().ok::<athletes::AssignmentView>(201),
        route(DELETE, "/api/athletes/{id}/coaches/{scId}", athletes::unassign_coach)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Remove a coach assignment")
            .empty(204, "removed"),
        route(GET, "/api/athletes/{id}/permissions", athletes::permissions)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Effective permissions of the athlete's login, coaches and guardians")
            .ok::<athletes::PermissionsView>(200),
        route(GET, "/api/athletes/{id}/guardian-consent", athletes::get_consent)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Guardian consents: who, when, how")
            .ok::<athletes::ConsentStatus>(200),
        route(POST, "/api/athletes/{id}/guardian-consent", athletes::record_consent)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Record a guardian's consent given outside the service")
            .body::<athletes::RecordConsent>().ok::<athletes::ConsentStatus>(201),
        route(DELETE, "/api/athletes/{id}/guardian-consent", athletes::withdraw_consent)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Withdraw the guardian consent (unpublishes a minor's profile)")
            .ok::<athletes::ConsentStatus>(200),
        route(POST, "/api/athletes/{id}/merge/{b}", athletes::merge)
            .auth(Auth::member(Perm::AthletesDelete).in_module(Module::Athletes))
            .area("athletes").summary("Merge duplicate athlete b into id (one transaction, audited)")
            .ok::<athletes::MergeResult>(200),
        route(POST, "/api/athletes/{id}/resync", athletes::resync)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Re-import a provider-linked athlete (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/athletes/{id}/publish", athletes::publish)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Publish or unpublish the public profile (a minor's needs guardian consent)")
            .body::<athletes::PublishRequest>().ok::<athletes::AthleteView>(200),
        route(GET, "/api/public/athletes/{slug}", athletes::public_profile)
            .auth(Auth::Public("a profile its workspace chose to publish; allow-listed fields only, minors with guardian consent and initials"))
            .area("athletes").summary("A published athlete profile")
            .ok::<athletes::PublicProfile>(200),
        route(POST, "/api/invite", athletes::invites::create)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Generate an athlete invite (single-use, 14 days)")
            .body::<athletes::invites::CreateInvite>().ok::<athletes::invites::InviteCreated>(201),
        route(POST, "/api/invite/send", athletes::invites::send)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Email an athlete invite")
            .body::<athletes::invites::CreateInvite>().ok::<athletes::invites::InviteCreated>(201),
        route(GET, "/api/invite/lookup/{token}", athletes::invites::lookup)
            .error(429, "too many lookups from this address (rate_limited, Retry-After)").error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Public("the invite link's holder has no account yet; shows only the workspace, first name and age-gate rule, rate-limited per address"))
            .area("athletes").summary("Preview an athlete invite")
            .ok::<athletes::invites::InvitePreview>(200),
        route(POST, "/api/invite/claim", athletes::invites::claim)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Token("the single-use invite token in the body; the age gate runs on the server"))
            .area("athletes").summary("The athlete claims the login (server-side age gate)")
            .body::<athletes::invites::ClaimRequest>().ok::<athletes::invites::ClaimResponse>(201),
        route(POST, "/api/invite/guardian", athletes::invites::guardian)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Token("the single-use invite token in the body, used by the minor's guardian"))
            .area("athletes").summary("A guardian creates the login for a minor and consents")
            .body::<athletes::invites::GuardianRequest>().ok::<athletes::invites::GuardianResponse>(201),
        route(GET, "/api/club/enrollment", athletes::invites::get_enrollment)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Whether public self-enrollment is open for this workspace")
            .ok::<athletes::invites::EnrollmentView>(200),
        route(PUT, "/api/club/enrollment", athletes::invites::set_enrollment)
            .auth(Auth::member(Perm::OrgUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Open or close public self-enrollment")
            .body::<athletes::invites::EnrollmentSetting>().ok::<athletes::invites::EnrollmentView>(200),
        route(POST, "/api/club/enroll", athletes::invites::enroll)
            .error(429, "too many enrollments from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("people join a club that opened self-enrollment before they have an account; age-gated, rate-limited, same answer for repeats"))
            .area("athletes").summary("Public club self-enrollment (pending athlete)")
            .body::<athletes::invites::EnrollRequest>().ok::<athletes::invites::EnrollAccepted>(202),
        // ---- training sessions (issue 5): rows below this line ----
        route(GET, "/api/training-sessions", training::list)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("List training sessions (from, to, coachId, location, spot, athleteId; paginated)")
            .query_of::<training::ListQuery>()
            .paged::<training::SessionView>(),
        route(POST, "/api/training-sessions", training::create)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Create a training session")
            .body::<training::CreateSession>().ok::<training::SessionView>(201),
        route(POST, "/api/training-sessions/import", training::import)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("CSV import of past sessions with attendance (text/csv; ?dryRun, ?background)")
            .query_of::<imports::ImportQuery>()
            .raw_body(&["text/csv"])
            .ok::<shared::import::Report>(200).ok::<jobs::JobAccepted>(202),
        route(POST, "/api/training-sessions/provision-video", training::provision_video)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Create the footage session when filming starts (idempotent)")
            .body::<training::ProvisionVideo>().ok::<training::FootageSessionView>(201)
            .ok::<training::FootageSessionView>(200),
        route(GET, "/api/training-sessions/{id}", training::get)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("Read a training session with its roster")
            .ok::<training::SessionDetail>(200),
        route(PATCH, "/api/training-sessions/{id}", training::update)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Edit a training session (raising capacity promotes the waitlist)")
            .body::<training::UpdateSession>().ok::<training::SessionDetail>(200),
        route(DELETE, "/api/training-sessions/{id}", training::delete)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Delete a training session and its roster")
            .empty(204, "deleted"),
        route(GET, "/api/training-sessions/{id}/participants", training::participants)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("The roster with the waitlist")
            .ok::<training::RosterView>(200),
        route(POST, "/api/training-sessions/{id}/participants", training::add_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Add an athlete (registered, or waitlisted when full)")
            .body::<training::AddParticipant>().ok::<training::RosterView>(201),
        route(PATCH, "/api/training-sessions/{id}/participants/{athleteId}", training::set_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Mark attended or no-show, or promote a waitlisted athlete")
            .body::<training::SetParticipant>().ok::<training::RosterView>(200),
        route(DELETE, "/api/training-sessions/{id}/participants/{athleteId}", training::remove_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Remove an athlete; the first waitlisted one takes the place")
            .ok::<training::RosterView>(200),
        // ---- messaging: coach–athlete conversations (athletes are not members: access is
        // checked per conversation, see areas/messaging) ----
        route(GET, "/api/conversations", messaging::conversations::list)
            .auth(Auth::User)
            .area("messaging").summary("My conversations, most recent first (kind: coach_athlete only, else 400; orgId)")
            .query_of::<messaging::conversations::ListQuery>()
            .paged::<messaging::conversations::ConversationView>(),
        route(POST, "/api/conversations", messaging::conversations::create)
            .auth(Auth::User)
            .area("messaging").summary("Open the coach–athlete conversation or return the existing one (other kinds: 400)")
            .body::<messaging::conversations::CreateConversation>()
            .ok::<messaging::conversations::ConversationView>(201)
            .ok::<messaging::conversations::ConversationView>(200),
        route(GET, "/api/conversations/recipients", messaging::conversations::recipients)
            .auth(Auth::User)
            .area("messaging").summary("Who I may write to: my workspaces' athletes (coach) or my coaches (athlete); q, orgId")
            .query_of::<messaging::conversations::RecipientQuery>()
            .paged::<messaging::conversations::RecipientView>(),
        route(GET, "/api/conversations/{id}/messages", messaging::messages::list)
            .auth(Auth::User)
            .area("messaging").summary("A conversation's messages, newest first (participants only; marks it read)")
            .paged::<messaging::messages::MessageView>(),
        route(POST, "/api/conversations/{id}/messages", messaging::messages::post)
            .auth(Auth::User)
            .area("messaging").summary("Post a message (text and/or an uploaded photo); notifies the other participant")
            .body::<messaging::messages::PostMessage>().ok::<messaging::messages::MessageView>(201),
        route(POST, "/api/conversations/{id}/attachments", messaging::messages::upload_url)
            .auth(Auth::User)
            .area("messaging").summary("A signed URL to upload a private photo for this conversation (10 minutes)")
            .body::<messaging::messages::AttachmentRequest>().ok::<messaging::messages::AttachmentUpload>(201),
        route(GET, "/api/messages/attachment", messaging::messages::attachment)
            .auth(Auth::User)
            .area("messaging").summary("Resolve a message's private photo to a signed URL (5 minutes; participants only; messageId)")
            .query_of::<messaging::messages::AttachmentQuery>()
            .ok::<messaging::messages::AttachmentLink>(200),
        route(DELETE, "/api/messages/{id}", messaging::messages::delete)
            .auth(Auth::User)
            .area("messaging").summary("Delete my own message (kept as a tombstone)")
            .empty(204, "deleted"),
        route(POST, "/api/messages/{id}/report", messaging::messages::report)
            .auth(Auth::User)
            .area("messaging").summary("Report a message of the other participant to the moderators")
            .body::<messaging::messages::ReportRequest>().ok::<messaging::messages::ReportReceipt>(201),
        // ---- notifications and push ----
        route(POST, "/api/notifications/send", notifications::send::send)
            .auth(Auth::Service)
            .area("messaging").summary("Internal: create notifications for users and enqueue their delivery (push, email)")
            .body::<notifications::send::SendRequest>().ok::<notifications::send::SendAccepted>(202),
        route(POST, "/api/notifications/deliver", notifications::send::deliver)
            .auth(Auth::Service)
            .area("messaging").summary("Internal: enqueue a drain of every due notification delivery")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/notifications/unsubscribe", notifications::unsubscribe::show)
            .auth(Auth::Token("the signed unsubscribe token in the query, from a notification mail's List-Unsubscribe link"))
            .area("messaging").summary("What an unsubscribe link would do (changes nothing: link scanners GET)")
            .query_of::<notifications::unsubscribe::TokenQuery>().required_query("token")
            .ok::<notifications::unsubscribe::UnsubscribeState>(200),
        route(POST, "/api/notifications/unsubscribe", notifications::unsubscribe::unsubscribe)
            .auth(Auth::Token("the signed unsubscribe token in the query; RFC 8058 one-click POST from the mail client"))
            .area("messaging").summary("One-click unsubscribe from a category of notification email (RFC 8058)")
            .query_of::<notifications::unsubscribe::TokenQuery>().required_query("token")
            .ok::<notifications::unsubscribe::UnsubscribeState>(200),
        route(POST, "/api/push/register", notifications::push::register)
            .auth(Auth::User)
            .area("messaging").summary("Register this phone's push token (taken from any other account)")
            .body::<notifications::push::RegisterPush>().ok::<notifications::push::PushRegistration>(201)
            .ok::<notifications::push::PushRegistration>(200),
        route(DELETE, "/api/push/register", notifications::push::unregister)
            .auth(Auth::User)
            .area("messaging").summary("Remove this phone's push token")
            .body::<notifications::push::UnregisterPush>().empty(204, "removed"),
        route(POST, "/api/notifications/sms/start", notifications::sms::start)
            .error(429, "too many codes asked for (rate_limited, Retry-After)").provider()
            .auth(Auth::User)
            .area("messaging").summary("Send a verification code by SMS to an E.164 number (Twilio Verify; rate-limited; refused after STOP)")
            .body::<notifications::sms::StartSms>().ok::<notifications::sms::SmsStarted>(201),
        route(POST, "/api/notifications/sms/verify", notifications::sms::verify)
            .error(410, "the code expired or was tried too often (sms_code_expired, sms_max_attempts)").error(429, "too many attempts (rate_limited, Retry-After)").provider()
            .auth(Auth::User)
            .area("messaging").summary("Check the SMS code; approved stores the number as my verified phone")
            .body::<notifications::sms::VerifySms>().ok::<notifications::sms::VerifiedPhone>(200),
        route(POST, "/api/notifications/inbound", notifications::sms::inbound)
            .auth(Auth::Webhook("Twilio's inbound SMS webhook, verified by its X-Twilio-Signature (HMAC-SHA1 with the auth token)"))
            .area("messaging").summary("Inbound SMS: STOP/START/HELP keywords (TwiML answer)")
            .raw_body(&["application/x-www-form-urlencoded"])
            .empty(200, "TwiML"),
        // ---- jobs ----
        route(GET, "/api/jobs/{id}", jobs::get)
            .auth(Auth::User).mobile()
            .area("jobs").summary("A job's status, progress, result and error (poll this)")
            .ok::<jobs::JobView>(200),
        route(POST, "/api/jobs/{id}/cancel", jobs::cancel)
            .auth(Auth::User).mobile()
            .area("jobs").summary("Cancel a job (kinds that allow it)")
            .ok::<jobs::JobView>(200),
        route(POST, "/api/admin/jobs/{id}/retry", jobs::retry)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Re-queue a failed or cancelled job with fresh attempts")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/admin/jobs", jobs::admin_list)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Every job, newest first (filters: status, kind, queue, orgId, userId, from, to; limit, offset)")
            .query_of::<jobs::AdminJobsQuery>().paginated()
            .ok::<jobs::AdminJobPage>(200),
        route(GET, "/api/admin/queues", jobs::admin_queues)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Per queue: waiting (depth), delayed, running, failed in the last hour, oldest waiting")
            .ok::<jobs::QueuesView>(200),
        // ---- object storage (local store's signed URLs) ----
        route(GET, "/api/storage/{store}/{*key}", storage::download)
            .error(416, "the range cannot be satisfied (range_not_satisfiable)")
            .auth(Auth::Token("the HMAC signature and expiry in the query, issued by an access-checked route"))
            .area("footage").summary("Download an object through a signed URL (Range supported)")
            .query_of::<storage::Signature>()
            .empty(200, "the object's bytes (206 for a range)"),
        route(PUT, "/api/storage/{store}/{*key}", storage::upload)
            .streamed_body()
            .auth(Auth::Token("the HMAC signature and expiry in the query, issued by an access-checked route"))
            .area("footage").summary("Upload an object through a signed URL (streamed)")
            .query_of::<storage::Signature>()
            .raw_body(&["application/octet-stream"])
            .ok::<storage::Stored>(201),
        // ---- video (issue 10): the token-gated range proxy; GET also answers HEAD ----
        route(GET, "/api/video/stream", video::stream)
            .auth(Auth::Token("the signed stream token in the query (HMAC, 1 hour, bound to the clip and the caller), issued by the access-checked /api/video/sign"))
            .area("footage").summary("Stream a video through its signed token (token; Range, If-Range, HEAD; stored or allow-listed external source)")
            .error(416, "the range cannot be satisfied (range_not_satisfiable)").provider()
            .query_of::<video::StreamQuery>().required_query("token")
            .empty(200, "the video's bytes (206 for a range, 416 when unsatisfiable)"),
        route(GET, "/api/clips", footage::list)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("List clips (sessionId, status; paginated) with status, progress, probe and stats")
            .query_of::<footage::ClipListQuery>()
            .paged::<footage::ClipView>(),
        route(GET, "/api/clips/status", footage::status)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Stored processing status of one clip or up to 100 (ids, comma-separated); never calls the backend")
            .query_of::<footage::StatusQuery>()
            .ok::<footage::ClipStatuses>(200),
        route(GET, "/api/clips/{clipId}", footage::get)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Read a clip with its status, stats and probe")
            .ok::<footage::ClipView>(200),
        route(POST, "/api/clips/analyze", footage::analyze)
            .provider()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Sign the clip's source and submit it to the analysis backend (job; a clip in flight returns its live job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/clips/cancel", footage::cancel)
            .provider()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Cancel a clip's processing here at once and at the backend best-effort")
            .body::<footage::ClipRef>().ok::<footage::ClipView>(200),
        route(POST, "/api/clips/probe", footage::probe)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Probe the uploaded original (rotation, duration, codec, resolution, frame rate) with ffprobe (job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/clips/store", footage::store)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Copy the processed video and overlay into our stores and save stats (job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(DELETE, "/api/clips/{clipId}", footage::delete)
            .auth(Auth::member(Perm::FootageDelete).in_module(Module::Footage))
            .area("footage").summary("Delete a clip; its storage objects are removed by a job that retries until done")
            .empty(204, "deleted"),
        route(GET, "/api/sessions", footage::list_sessions)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("List footage sessions (athleteId; paginated) with clip counts")
            .query_of::<footage::SessionListQuery>()
            .paged::<footage::SessionListItem>(),
        route(GET, "/api/sessions/{id}", footage::get_session)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Read a footage session with its clips")
            .ok::<footage::SessionDetail>(200),
        route(POST, "/api/sessions/store", footage::store_session)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Store every processed clip of a footage session (job with progress per clip)")
            .body::<footage::SessionRef>().ok::<jobs::JobAccepted>(202),
        route(DELETE, "/api/sessions/{id}", footage::delete_session)
            .auth(Auth::member(Perm::FootageDelete).in_module(Module::Footage))
            .area("footage").summary("Hard-delete a footage session, its clips and labels; objects in all three stores go through a job")
            .empty(204, "deleted"),
        // ---- phone capture uploads over tus 1.0 (issue 10); GET also answers HEAD ----
        route(OPTIONS, "/api/clips/native-ingest", ingest::options)
            .auth(Auth::Public("tus discovery: the protocol version, extensions, size limit and checksum algorithms, the same for everyone, asked before any upload"))
            .area("footage").summary("tus 1.0 discovery: Tus-Version, Tus-Extension, Tus-Max-Size and Tus-Checksum-Algorithm")
            .empty(204, "the server's tus capabilities, in the headers"),
        route(POST, "/api/clips/native-ingest", ingest::create)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Start a resumable (tus 1.0) clip upload: Upload-Length, Upload-Metadata (sessionId, filename, athleteId, clientUploadId, recordedAt)")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .ok::<ingest::UploadView>(201),
        route(GET, "/api/clips/native-ingest/{uploadId}", ingest::status)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Where a resumable upload stands (HEAD: Upload-Offset to resume from; GET: also JSON with its clip once joined)")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .ok::<ingest::UploadView>(200),
        route(PATCH, "/api/clips/native-ingest/{uploadId}", ingest::append)
            .streamed_body()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Append bytes at Upload-Offset (application/offset+octet-stream; Upload-Checksum sha1|sha256); the last PATCH starts the join job")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .raw_body(&["application/offset+octet-stream"])
            .error(460, "the Upload-Checksum does not match (checksum_mismatch)")
            .empty(204, "stored; Upload-Offset is the new offset"),
        route(DELETE, "/api/clips/native-ingest/{uploadId}", ingest::terminate)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Terminate an unfinished upload (tus termination); its parts are removed by a job")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .empty(204, "terminated"),
        route(POST, "/api/webhooks/analysis", footage::analysis_webhook)
            .auth(Auth::Webhook("the analysis backend's completion webhook, verified by its Standard Webhooks signature (HMAC-SHA256 with ANALYSIS_WEBHOOK_SECRET, 5-minute timestamp window)"))
            .area("footage").summary("An analysis finished: applied like a poll's answer, ending the clip's polling early")
            .empty(204, "applied (or already known)"),
        route(POST, "/api/training-sessions/batch-upload", batch::prepare)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Prepare sessions and clips from a spreadsheet manifest (CSV or .xlsx body; fileName, dryRun): all or nothing, the same rows again create nothing")
            .query_of::<batch::PrepareQuery>()
            .raw_body(&["text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"])
            .ok::<batch::PreparedBatch>(201),
        route(GET, "/api/training-sessions/batch-upload", batch::status)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("A batch's manifest with each clip's live status (batchId)")
            .query_of::<batch::BatchQuery>()
            .ok::<batch::BatchStatus>(200),
        route(GET, "/api/video/sign", footage::sign)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("An HMAC-signed stream URL for a clip (clipId, variant processed|original), valid 1 hour, bound to the clip and the caller")
            .query_of::<footage::SignQuery>()
            .ok::<footage::SignedVideo>(200),
        route(GET, "/api/clips/sidecar", footage::sidecar)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("The stored overlay sidecar of a clip (clipId; Range supported)")
            .error(416, "the range cannot be satisfied (range_not_satisfiable)")
            .query_of::<footage::ClipRef>()
            .ok::<footage::SidecarDocument>(200)
            .empty(206, "a byte range of the overlay document"),
        route(GET, "/api/clips/{clipId}/maneuvers", footage::maneuvers)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("A clip's predicted maneuvers and the coaches' labels beside them")
            .ok::<footage::Maneuvers>(200),
        route(POST, "/api/clips/{clipId}/maneuvers", footage::add_maneuver)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Label a predicted maneuver (confirmed, corrected, rejected) or add one the model missed")
            .body::<footage::NewLabel>().ok::<footage::LabelView>(201),
        route(PATCH, "/api/clips/{clipId}/maneuvers", footage::correct_maneuver)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Change a label (labelId); who and when are recorded, the prediction stays")
            .body::<footage::LabelPatch>().ok::<footage::LabelView>(200),
        route(GET, "/api/maneuver-labels/export", footage::export_labels)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("The workspace's corrected maneuver labels as a training set (format jsonl|csv)")
            .query_of::<footage::ExportQuery>()
            .empty(200, "JSONL or CSV: clip, window, predicted and corrected type"),
        // ---- reviews (issue 11) ----
        route(GET, "/api/reviews", reviews::list)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("List reviews (sessionId, athleteId, status; paginated)")
            .query_of::<reviews::ListQuery>()
            .paged::<reviews::ReviewView>(),
        route(POST, "/api/reviews", reviews::create)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Start a draft review of a footage session (for its athlete unless another is named)")
            .body::<reviews::NewReview>().ok::<reviews::ReviewView>(201),
        route(GET, "/api/reviews/{id}", reviews::get)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("Read a review with its keypoints and receipts")
            .ok::<reviews::CoachReview>(200),
        route(PATCH, "/api/reviews/{id}", reviews::update)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Edit a draft or ready review (a ready one goes back to draft)")
            .body::<reviews::ReviewPatch>().ok::<reviews::ReviewView>(200),
        route(DELETE, "/api/reviews/{id}", reviews::delete)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a review with its keypoints")
            .empty(204, "deleted"),
        route(POST, "/api/reviews/{id}/keypoints", reviews::add_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Add a keypoint on a clip of the session (time, note, drawing, maneuver)")
            .body::<reviews::NewKeypoint>().ok::<reviews::KeypointView>(201),
        route(PATCH, "/api/reviews/{id}/keypoints/{keypointId}", reviews::update_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Change a keypoint (a suggested one becomes the coach's)")
            .body::<reviews::KeypointPatch>().ok::<reviews::KeypointView>(200),
        route(DELETE, "/api/reviews/{id}/keypoints/{keypointId}", reviews::delete_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a keypoint (a suggested one stays dismissed)")
            .empty(204, "deleted"),
        route(POST, "/api/reviews/{id}/suggest", reviews::suggest)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Keypoints from the analysed clips' ride windows and maneuvers; no model call; adds nothing twice")
            .ok::<reviews::Suggested>(200),
        route(POST, "/api/reviews/{id}/build", reviews::build)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Build the review (job): draft or ready, then building, then ready")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/reviews/{id}/publish", reviews::publish)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Publish a ready review to its athlete (and a minor's guardians), who are notified")
            .ok::<reviews::ReviewView>(200),
        route(POST, "/api/reviews/{id}/voice-notes", reviews::voice_notes::add)
            .streamed_body()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Add a voice note: the audio is the body (M4A/AAC, MP3, WAV, Ogg/Opus, WebM by their first bytes; 25 MiB); keypointId")
            .query_of::<reviews::voice_notes::AddQuery>()
            .raw_body(&["audio/mp4", "audio/mpeg", "audio/wav", "audio/ogg", "audio/webm", "application/octet-stream"])
            .ok::<reviews::VoiceNoteView>(201),
        route(DELETE, "/api/reviews/{id}/voice-notes/{noteId}", reviews::voice_notes::delete)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a voice note (its audio is deleted by a job)")
            .empty(204, "deleted"),
        route(GET, "/api/reviews/{id}/replies", reviews::replies::for_coach)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("The athlete's replies to a review, oldest first (paginated)")
            .paged::<reviews::replies::ReplyView>(),
        route(GET, "/api/mobile/sessions/{id}/reviews", reviews::phone::session_reviews)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: a footage session's published reviews for the athlete signed in (a minor's guardians read along)")
            .ok::<reviews::phone::PhoneReviews>(200),
        route(GET, "/api/mobile/reviews/{id}/replies", reviews::replies::for_reader)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: the replies to a published review (its athlete; a minor's guardians read along)")
            .paged::<reviews::replies::ReplyView>(),
        route(POST, "/api/mobile/reviews/{id}/replies", reviews::replies::add)
            .streamed_body()
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: the athlete replies, in writing (JSON) or recorded (audio body); clientReplyId makes it idempotent; the coach is notified")
            .query_of::<reviews::replies::VoiceQuery>()
            .body::<reviews::replies::TextReply>().ok::<reviews::replies::ReplyView>(201),
        route(POST, "/api/mobile/reviews/{id}/receipts", reviews::phone::receipt)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: a review delivered or opened on this device (idempotent per reader and device)")
            .body::<reviews::phone::ReceiptInput>().ok::<reviews::ReceiptView>(200),
        route(POST, "/api/sessions/coaching", coaching::generate)
            .provider()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Generate coaching feedback from a session's analysed clips and the coach's keypoints (job; per_clip or batch; each run adds a version)")
            .body::<coaching::CoachingRequest>().ok::<jobs::JobAccepted>(202),
        route(GET, "/api/sessions/coaching", coaching::list)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("List coaching feedback (sessionId, clipId, athleteId, kind, latest; paginated, newest first)")
            .query_of::<coaching::ListQuery>()
            .paged::<coaching::FeedbackView>(),
        route(POST, "/api/sessions/coaching/progress", coaching::progress)
            .provider()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("An athlete's progress across sessions from stored stats (stored as a version; the narrative follows by job when a model is configured)")
            .body::<coaching::ProgressRequest>().ok::<coaching::ProgressAnswer>(200),
        route(GET, "/api/sessions/coaching/export", coaching::export)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("The newest coaching feedback of a session or athlete (format json|html: a printable report, no script, restrictive CSP)")
            .query_of::<coaching::ExportQuery>()
            .ok::<coaching::CoachingExport>(200).also_as(200, "text/html"),
        route(GET, "/api/sessions/coaching/{id}", coaching::get)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("Read one version of coaching feedback with its input, output and model")
            .ok::<coaching::FeedbackView>(200),
        route(GET, "/api/video/check", video::check)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Whether an external video URL is allowed and reachable (url; SSRF rules of the stream proxy)")
            .provider()
            .query_of::<video::CheckQuery>().required_query("url")
            .ok::<shared::video::origin::Reachability>(200),
        // ---- wearable (issue 12; docs/wearable.md). The routes taking a wearer's data are for
        // the athlete's own login or a member with wearable.manage in the athlete's workspace
        // (checked by domain::wearable::access); the watch uses their /api/mobile twins ----
        route(POST, "/api/wearable/sessions", wearable::upload)
            .auth(Auth::User).mobile()
            .area("wearable").summary("A finished watch session: metadata and samples (columnar; 201, derived by a job), or uploadId of a file sent to upload-url (202, read by a job); the same clientSessionId again is 200")
            .body::<shared::domain::wearable::sessions::SessionUpload>().ok::<wearable::SessionAccepted>(201)
            .ok::<wearable::SessionAccepted>(202).ok::<wearable::SessionAccepted>(200),
        route(GET, "/api/wearable/sessions", wearable::list)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("List the workspace's watch sessions, newest first (athleteId; paginated)")
            .query_of::<wearable::SessionsQuery>()
            .paged::<shared::domain::wearable::sessions::SessionView>(),
        route(POST, "/api/wearable/sessions/live", wearable::live)
            .auth(Auth::User).mobile()
            .area("wearable").summary("Start a live session (201) or report on one (sessionId: samples appended; end: ends and derives it); a session silent for 2 minutes ends on its own")
            .body::<shared::domain::wearable::sessions::LiveReport>().ok::<wearable::SessionAccepted>(201)
            .ok::<wearable::SessionAccepted>(200),
        route(POST, "/api/wearable/upload-url", wearable::upload_url)
            .auth(Auth::User).mobile()
            .area("wearable").summary("A signed PUT URL (1 hour) for a bulk sample file (format csv or gpx); then POST /api/wearable/sessions with its uploadId")
            .body::<shared::domain::wearable::sessions::UploadRequest>().ok::<shared::domain::wearable::sessions::UploadUrl>(201),
        route(GET, "/api/wearable/sessions/{id}", wearable::get)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Read a watch session with its rides (current detector version) and summary")
            .ok::<shared::domain::wearable::sessions::SessionDetail>(200),
        route(DELETE, "/api/wearable/sessions/{id}", wearable::delete)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Delete a watch session with its samples, rides, labels and alignments (the session's coach or a workspace admin only)")
            .empty(204, "deleted"),
        route(POST, "/api/wearable/sessions/{id}/rederive", wearable::rederive)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Run the ride detector again (job); its windows record the detector version")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/wearable/sessions/{id}/gpx", wearable::export_gpx)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("GPX 1.1 export of a session: the track with heart rate, each ride as a waypoint and a track segment")
            .empty(200, "application/gpx+xml"),
        route(GET, "/api/wearable/samples/{id}", wearable::samples)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("A session's samples of one stream (stream gps|hr|imu; from, to in Unix ms), columnar, paginated (limit up to 10000)")
            .query_of::<wearable::SamplesQuery>()
            .ok::<shared::domain::wearable::sessions::SamplePage>(200),
        route(GET, "/api/wearable/my-schedule", wearable::my_schedule)
            .auth(Auth::User).mobile()
            .area("wearable").summary("The wearer's training sessions today (date, tzOffsetMinutes): on the roster as an athlete, or as the coach")
            .query_of::<wearable::ScheduleQuery>()
            .ok::<shared::domain::wearable::people::Schedule>(200),
        route(GET, "/api/wearable/who-is-surfing", wearable::who_is_surfing)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The workspace's live wearers (reported within 2 minutes), for the capture screen (paginated)")
            .paged::<shared::domain::wearable::people::LiveWearer>(),
        route(GET, "/api/wearable/roster", wearable::roster)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The caller's assigned athletes with their live session if any: the capture screen's fallback (paginated)")
            .paged::<shared::domain::wearable::people::RosterAthlete>(),
        route(GET, "/api/wearable/labels", wearable::list_labels)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("A session's ground-truth ride labels (sessionId; paginated)")
            .query_of::<wearable::SessionRef>().required_query("sessionId")
            .paged::<shared::domain::wearable::labels::LabelView>(),
        route(POST, "/api/wearable/labels", wearable::add_label)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Mark a true ride on a session (start, end: RFC 3339, watch clock)")
            .body::<NewLabel>().ok::<shared::domain::wearable::labels::LabelView>(201),
        route(DELETE, "/api/wearable/labels", wearable::delete_label)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Delete a ride label (id)")
            .query_of::<wearable::LabelRef>().required_query("id")
            .empty(204, "deleted"),
        route(GET, "/api/wearable/accuracy", wearable::accuracy)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The detector's precision, recall and F1 against the labels (temporal IoU ≥ 0.5), per labelled session (paginated) and overall (sessionId for one)")
            .query_of::<wearable::SessionRef>().paginated()
            .ok::<shared::domain::wearable::labels::AccuracyReport>(200),
        route(GET, "/api/wearable/sync", wearable::list_syncs)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Clip-to-watch alignments (clipId or sessionId; paginated)")
            .query_of::<wearable::SyncQuery>()
            .paged::<shared::domain::wearable::sync::SyncView>(),
        route(POST, "/api/wearable/sync", wearable::align)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Align a clip with a session: by /api/time clock measurements or by matching ride windows (method auto|clock|rides); stored with method and confidence")
            .body::<SyncRequest>().ok::<shared::domain::wearable::sync::SyncView>(200),
        route(PATCH, "/api/wearable/sync", wearable::set_offset)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Set a clip's offset by hand (manual, confidence 1)")
            .body::<SyncPatch>().ok::<shared::domain::wearable::sync::SyncView>(200),
        route(GET, "/api/wearable/highlights", wearable::highlights)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Per-ride highlight definitions of a session (sessionId): each ride's segment of every aligned clip covering it (paginated)")
            .query_of::<wearable::SessionRef>().required_query("sessionId")
            .paged::<shared::domain::wearable::sync::Highlight>(),
        route(POST, "/api/wearable/import", wearable::import)
            .streamed_body()
            .auth(Auth::User).mobile()
            .area("wearable").summary("GPX 1.1 import as the body (streamed; athleteId, clientSessionId, trainingSessionId, device); Garmin heart rate; 400 gpx_invalid with the line")
            .query_of::<wearable::ImportQuery>()
            .raw_body(&["application/gpx+xml"])
            .ok::<wearable::SessionAccepted>(201).ok::<wearable::SessionAccepted>(200),
        // ---- competition (issue 15): heatsource reads, cached with a TTL (docs/competition.md) ----
        route(GET, "/api/heatsource/organisations", heatsource::organisations)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The provider organisation with this shortName, with its events and series (a list of zero or one; cached); without shortName, the organisations heatsource-orgs-sync keeps (paginated)")
            .query_of::<heatsource::OrganisationsQuery>()
            .paged::<shared::providers::heatsource::Organisation>(),
        route(GET, "/api/heatsource/series", heatsource::series)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The series of a provider organisation (shortName), with the divisions each ranks (paginated; cached)")
            .provider()
            .query_of::<heatsource::OrganisationQuery>().required_query("shortName")
            .paged::<shared::providers::heatsource::Series>(),
        route(GET, "/api/heatsource/series/{id}/divisions", heatsource::divisions)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The divisions a provider series ranks (paginated; cached)")
            .paged::<shared::providers::heatsource::Division>(),
        route(GET, "/api/heatsource/series/{id}/athletes", heatsource::series_athletes)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The ranked athletes of one division (divisionId) of a provider series, in ranking order (paginated; cached)")
            .provider()
            .query_of::<heatsource::DivisionQuery>().required_query("divisionId")
            .paged::<shared::providers::heatsource::Ranking>(),
        route(GET, "/api/heatsource/events/{id}", heatsource::event)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A provider event with its divisions, heats, results and competitors (cached)")
            .ok::<shared::providers::heatsource::Event>(200),
        route(GET, "/api/heatsource/athletes/search", heatsource::search_athletes)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the provider's athletes by name (q, 2-100 characters; needs the provider's client credentials; paginated; cached)")
            .provider()
            .query_of::<heatsource::SearchQuery>().required_query("q")
            .paged::<shared::providers::heatsource::Athlete>(),
        route(GET, "/api/heatsource/athletes/{id}", heatsource::athlete)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A provider athlete's profile (needs the provider's client credentials; cached)")
            .ok::<shared::providers::heatsource::Athlete>(200),
        // heatsource imports and syncs (jobs; docs/competition.md)
        route(POST, "/api/heatsource/import-rankings", competition_jobs::import_rankings)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a provider series' rankings (all divisions, or divisionId) into the workspace's circuit for it, created on the first import (job)")
            .body::<competition_jobs::ImportRankings>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/circuits/{id}/import-standings", competition_jobs::import_standings)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a circuit's events, its linked athletes' results and its rankings (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/events/{id}/bulk-add", competition_jobs::heatsource_bulk_add)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a provider event's competitors (one division, or all) to the roster, linked or created, optionally enrolled in a circuit (job; needs athletes.create too)")
            .body::<competition_jobs::BulkAdd>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/organisations/sync", competition_jobs::organisations_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Run heatsource-orgs-sync now (the scheduled task's job; joins one already queued)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/sync", competition_jobs::heatsource_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Run heatsource-sync now: the followed organisations' events (the scheduled task's job)")
            .ok::<jobs::JobAccepted>(202),
        // ---- the tour index: reads (cached) and imports (jobs) ----
        route(GET, "/api/tourindex/athletes/search", tourindex::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the tour index's athletes by name (q, 2-100 characters; paginated; cached)")
            .provider()
            .query_of::<tourindex::SearchQuery>().required_query("q")
            .paged::<shared::providers::tourindex_pages::TourAthlete>(),
        route(GET, "/api/tourindex/athletes/{id}", tourindex::athlete)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A tour-index athlete's profile with results, and what its page had that could not be read (cached)")
            .ok::<shared::providers::tourindex_pages::TourProfile>(200),
        route(GET, "/api/tourindex/live-search", tourindex::live_search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Typeahead over the tour index's athletes and events (q; paginated; cached)")
            .provider()
            .query_of::<tourindex::SearchQuery>().required_query("q")
            .paged::<shared::providers::tourindex_pages::LiveHit>(),
        route(POST, "/api/tourindex/import-results", competition_jobs::import_results)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a roster athlete's tour-index results, linking tourindexId first when given (best-effort job)")
            .body::<competition_jobs::ImportResults>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/scrape", competition_jobs::scrape)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Read one tour's athlete directory and events from the tour index (job; one per tour at a time)")
            .body::<competition_jobs::Scrape>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/athletes/sync", competition_jobs::tourindex_athletes_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Refresh the workspace's tour-index-linked athletes and their results (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/events/{id}/bulk-add", competition_jobs::tourindex_bulk_add)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a tour-index event's athletes to the roster, optionally enrolled in a circuit (job; needs athletes.create too)")
            .body::<competition_jobs::BulkAdd>().ok::<jobs::JobAccepted>(202),
        // ---- multi-source search, import, directory, circuits ----
        route(GET, "/api/athlete-search/search", athlete_search::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the roster and every configured provider at once (q); the same person merged, ranked; each provider's status (ok, timeout, failed, not_configured)")
            .provider()
            .query_of::<athlete_search::SearchQuery>().required_query("q")
            .ok::<shared::domain::competition::search::SearchAnswer>(200),
        route(GET, "/api/athlete-search/{source}/{id}", athlete_search::profile)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One provider profile (source heatsource or tourindex) with its results (cached)")
            .ok::<shared::domain::competition::roster::Profile>(200),
        route(POST, "/api/athlete-search/import", athlete_search::import)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Resolve a provider profile into a roster athlete (linked, never duplicated; created when new: 201), optionally enrolled in a circuit (needs athletes.create too)")
            .body::<athlete_search::ImportAthlete>().ok::<shared::domain::competition::roster::Imported>(200),
        route(GET, "/api/discover", athlete_search::discover)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The provider directory (tour-index athletes), by name, filterable by tour and q, with headshots and the workspace's linked athletes (paginated)")
            .query_of::<athlete_search::DiscoverQuery>()
            .paged::<shared::domain::competition::tourindex::DirectoryEntry>(),
        route(GET, "/api/circuits", circuits::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's circuits (provider series it imported), by name (paginated)")
            .paged::<shared::domain::competition::circuits::CircuitSummary>(),
        route(GET, "/api/circuits/{id}", circuits::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A circuit with its enrolled athletes, events and rankings")
            .ok::<shared::domain::competition::circuits::CircuitView>(200),
        route(PATCH, "/api/circuits/{id}", circuits::set_rules)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Set a circuit's scoring rules: results to count (best N), qualification place, points table (null returns a rule to its default)")
            .body::<circuits::RulesBody>().ok::<shared::domain::competition::strategy::RulesView>(200),
        route(GET, "/api/circuits/{id}/events", circuits::events)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A circuit's events with manual edits applied: which fields are manual and what the provider has (paginated)")
            .paged::<shared::domain::competition::events::EventView>(),
        route(POST, "/api/circuits/{id}/events", circuits::add_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a member's own event to a circuit (name; date, status)")
            .body::<circuits::EventBody>().ok::<shared::domain::competition::events::EventView>(201),
        route(GET, "/api/circuits/{id}/events/{eventId}", circuits::event)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One circuit event, manual edits applied")
            .ok::<shared::domain::competition::events::EventView>(200),
        route(PATCH, "/api/circuits/{id}/events/{eventId}", circuits::edit_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Edit a circuit event: a synced event keeps the values as overrides that win over later syncs (null clears one)")
            .body::<circuits::EventBody>().ok::<shared::domain::competition::events::EventView>(200),
        route(DELETE, "/api/circuits/{id}/events/{eventId}", circuits::delete_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Delete a member's own event, or hide a synced one for good (later syncs do not bring it back)")
            .empty(204, "deleted"),
        // ---- strategy: standings and qualification goals ----
        route(GET, "/api/strategy/{athleteId}", strategy::view)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("An athlete's standings per circuit and division (circuitId, divisionId): results counted under the circuit's rules (best N, discards), rank, the gap to the qualification line and the finishes in the remaining events that reach it, goals")
            .query_of::<strategy::ViewQuery>()
            .ok::<shared::domain::competition::strategy::StrategyView>(200),
        route(POST, "/api/strategy/{athleteId}/goals", strategy::set_goal)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Set the athlete's qualification goal in a circuit (a target rank, or the circuit's qualification place): 201 new, 200 replaced")
            .body::<strategy::GoalBody>().ok::<shared::repo::strategy::Goal>(201),
        route(DELETE, "/api/strategy/{athleteId}/goals", strategy::delete_goal)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Remove the athlete's goal in the circuit given by circuitId")
            .query_of::<strategy::GoalQuery>()
            .empty(204, "deleted"),
        // ---- season reports ----
        route(POST, "/api/reports/season/{athleteId}", reports::generate)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Generate a season report (season: a year, or from and to; this year when neither) as a job: JSON and self-contained printable HTML, stored; 202 with the job to poll")
            .body::<reports::GenerateBody>().ok::<jobs::JobAccepted>(202),
        route(GET, "/api/reports/season/{athleteId}", reports::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The athlete's season reports, newest first, with their headline figures and links (paginated)")
            .paged::<reports::ReportView>(),
        route(GET, "/api/reports/season/{athleteId}/{reportId}", reports::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One season report with its JSON document")
            .ok::<reports::ReportDocument>(200),
        route(GET, "/api/reports/season/{athleteId}/{reportId}/html", reports::html)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A season report's printable HTML, as a download (self-contained: no script, nothing fetched)")
            .empty(200, "text/html"),
        route(GET, "/api/athletes/{id}/results", circuits::athlete_results)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A roster athlete's competition results from the providers, newest first")
            .ok::<Vec<shared::repo::competition::ResultRow>>(200),
        // ---- opponents, watchlist, achievements (issue 16; docs/competition.md) ----
        route(GET, "/api/opponents", opponents::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Notes on opponents, last changed first; filter by athleteId (the athlete a note is for), opponentAthleteId, or provider + externalId (paginated)")
            .query_of::<opponents::NoteQuery>()
            .paged::<shared::domain::competition::opponents::NoteView>(),
        route(POST, "/api/opponents", opponents::create)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Write a note on an opponent (a roster athlete, or a provider athlete with its name), optionally for one athlete: text, strengths, weaknesses, tags")
            .body::<opponents::NewNote>().ok::<shared::domain::competition::opponents::NoteView>(201),
        route(GET, "/api/opponents/suggestions", opponents::suggestions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Competitors of a roster athlete's divisions (athleteId; synced heatsource events and the circuits' rankings) with head-to-head records from shared heats, most heats shared first (paginated)")
            .error(409, "the athlete has no heatsource profile (not_provider_linked)")
            .query_of::<opponents::SuggestionQuery>()
            .paged::<shared::domain::competition::headtohead::Suggestion>(),
        route(GET, "/api/opponents/{id}", opponents::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One note on an opponent")
            .ok::<shared::domain::competition::opponents::NoteView>(200),
        route(PATCH, "/api/opponents/{id}", opponents::update)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Edit a note (a field left out stays, null clears it; the opponent cannot change)")
            .body::<opponents::NotePatch>().ok::<shared::domain::competition::opponents::NoteView>(200),
        route(DELETE, "/api/opponents/{id}", opponents::delete)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Delete a note on an opponent")
            .empty(204, "deleted"),
        route(GET, "/api/watchlist", watchlist::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The caller's own watchlist (personal to each member), newest first; filter by kind (athlete, event) (paginated)")
            .query_of::<watchlist::WatchQuery>()
            .paged::<shared::domain::competition::watchlist::WatchView>(),
        route(POST, "/api/watchlist", watchlist::add)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Watch an athlete (roster or provider) or an event (circuit or provider); 201, or 200 with the item when already watched")
            .body::<watchlist::WatchBody>().ok::<shared::domain::competition::watchlist::WatchView>(201),
        route(GET, "/api/watchlist/{id}", watchlist::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One item of the caller's watchlist")
            .ok::<shared::domain::competition::watchlist::WatchView>(200),
        route(PATCH, "/api/watchlist/{id}", watchlist::update)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Edit an item of the caller's watchlist: its note (null clears), a provider target's name")
            .body::<watchlist::WatchPatch>().ok::<shared::domain::competition::watchlist::WatchView>(200),
        route(DELETE, "/api/watchlist/{id}", watchlist::remove)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Stop watching: remove an item of the caller's watchlist")
            .empty(204, "removed"),
        route(GET, "/api/achievements", achievements::definitions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's achievement definitions: code, name, description, rule (metric and threshold) (paginated)")
            .paged::<shared::domain::competition::achievements::AchievementView>(),
        route(POST, "/api/achievements/seed", achievements::seed)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Seed the default achievement definitions the workspace lacks (idempotent: a second seed creates nothing)")
            .ok::<shared::domain::competition::achievements::Seeded>(200),
        route(POST, "/api/achievements/check", achievements::check)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Evaluate achievements over results, training sessions and wearable rides: one athlete now (athleteId: 200), or the whole workspace as a job ({}: 202); each award once, the athlete notified once")
            .body::<achievements::CheckBody>()
            .ok::<shared::domain::competition::achievements::AthleteCheck>(200)
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/athletes/{id}/achievements", achievements::awards)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A roster athlete's awarded achievements, newest first (paginated)")
            .paged::<shared::domain::competition::achievements::AwardView>(),
        // ---- cross-source identity and dedup (docs/competition.md, "Identity and dedup") ----
        route(GET, "/api/identity/match", identity::match_candidates)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Provider profiles that may be the roster athlete athleteId (searches and synced data), each scored 0-1 with the fields that matched and how much each counted, best first (paginated)")
            .query_of::<identity::MatchQuery>().required_query("athleteId").paginated()
            .ok::<identity::MatchPage>(200),
        route(GET, "/api/identity/links", identity::list_links)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's provider links (status linked, default) or rejected candidates (status rejected), newest first; filters athleteId, source (paginated)")
            .query_of::<identity::LinksQuery>()
            .paged::<shared::domain::competition::links::LinkView>(),
        route(POST, "/api/identity/links", identity::decide_link)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Confirm a candidate (link it through the import's rules; 409 already_linked when another athlete holds it) or reject it (never suggested again): 201 new, 200 already so")
            .body::<identity::DecideLink>().ok::<shared::domain::competition::links::LinkView>(201)
            .ok::<shared::domain::competition::links::LinkView>(200),
        route(DELETE, "/api/identity/links", identity::remove_link)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Remove the athlete's link to a profile (with the results it brought) or its rejection: athleteId, source, externalId")
            .query_of::<identity::RemoveQuery>()
            .empty(204, "removed"),
        route(GET, "/api/dedup/suggestions", identity::suggestions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Pairs of roster athletes that are probably one person, scored and explained, best first, with the merge call each feeds (needs athletes.read too; paginated)")
            .paged::<identity::SuggestionView>(),
        route(DELETE, "/api/dedup/suggestions", identity::dismiss)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Dismiss the suggested pair a, b: it is not suggested again")
            .query_of::<identity::DismissQuery>()
            .empty(204, "dismissed"),
        // ---- forecasts (issue 16): provider data, global; cached per grid cell and window (docs/forecasts.md) ----
        route(GET, "/api/spotsource/spots/search", surf::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the spot provider's surf spots by name (q, 2-100 characters; paginated; cached)")
            .provider()
            .query_of::<surf::SearchQuery>().required_query("q")
            .paged::<shared::providers::spotsource::Spot>(),
        route(GET, "/api/surf/spot/{slug}", surf::spot)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A surf spot (stored, else read from the spot provider) with its current forecast summary (forecastError says why there is none)")
            .ok::<shared::domain::forecasts::SpotView>(200),
        route(GET, "/api/surf/forecast", surf::forecast)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The hourly surf forecast at a spot (spot) or point (lat, lon) from the current hour (hours 1-168, default 72): primary provider, else the fallback; cached per 0.1 degree cell and window; stale when both fail")
            .query_of::<surf::ForecastParams>()
            .ok::<shared::domain::forecasts::Forecast>(200),
    ];
    rows.extend(pages());
    // ---- cron: one route per scheduled task, GET (what cron services send) and POST ----
    for &task in shared::job::scheduled::CronTask::ALL {
        let path = format!("/api/cron/{task}");
        for method in [GET, POST] {
            rows.push(
                route(method, &path, cron::run)
                    .auth(Auth::Cron)
                    .area("cron")
                    .summary(task.info().summary)
                    .ok::<jobs::JobAccepted>(202),
            );
        }
    }
    Registry::new(rows)
}

/// The web pages (issue 17, `docs/pages.md`): HTML for every link the service puts in mail and
/// API answers. `Auth::Page`: open to anyone; a page that needs a user asks them to sign in,
/// and a form that acts as the user checks the session's CSRF token. Not in the OpenAPI document.
fn pages() -> Vec<crate::registry::RouteDef> {
    use pages::{accounts as acc, assets, club, invite, join, profile, tv as tv_page, unsubscribe};
    const SIGNED_IN: &str = "shows the visitor the sign-in link when nobody is signed in; acts only for the session's user, with its CSRF token";
    vec![
        route(GET, "/assets/site.css", assets::site_css)
            .auth(Auth::Page("the pages' stylesheet; nothing secret in it"))
            .area("pages").summary("The pages' one stylesheet"),
        route(GET, "/assets/icon.svg", assets::icon)
            .auth(Auth::Page("the pages' icon; nothing secret in it"))
            .area("pages").summary("The pages' icon"),
        route(GET, "/", acc::home)
            .auth(Auth::Page("the front page: who is signed in, or the way to sign in"))
            .area("pages").summary("Home: the signed-in user's workspaces, or sign-in and sign-up links"),
        route(GET, "/signin", acc::signin_form)
            .auth(Auth::Page("people sign in here before they have a session; next is a local path only"))
            .area("pages").summary("Sign-in form (next: where to go afterwards)"),
        route(POST, "/signin", acc::signin)
            .auth(Auth::Page("sign-in itself, as POST /api/auth/signin: same rate limits, same session cookies"))
            .area("pages").summary("Sign in: sets the session and CSRF cookies, then goes to next"),
        route(POST, "/signout", acc::signout)
            .auth(Auth::Page("ends the visitor's own session; checks the session's CSRF token"))
            .area("pages").summary("Sign out this web session"),
        route(GET, "/signup", acc::signup_form)
            .auth(Auth::Page("people create an account here before they have one; invite is the platform invite code mailed by an admin"))
            .area("pages").summary("Sign-up form (invite: a platform invite code; next)"),
        route(POST, "/signup", acc::signup)
            .auth(Auth::Page("creates an account as POST /api/auth/signup does: signup mode, invite code, rate limit"))
            .area("pages").summary("Create an account and workspace, sign in, go to next"),
        route(GET, "/auth/forgot-password", acc::forgot_form)
            .auth(Auth::Page("a user who forgot the password cannot sign in"))
            .area("pages").summary("Forgot-password form"),
        route(POST, "/auth/forgot-password", acc::forgot)
            .auth(Auth::Page("mails a reset link as POST /api/auth/password/forgot: same answer whether or not the account exists, rate-limited"))
            .area("pages").summary("Mail a password-reset link"),
        route(GET, "/auth/reset-password", acc::reset_form)
            .auth(Auth::Page("the emailed reset link lands here with its token (checked, not used); no-referrer"))
            .area("pages").summary("New-password form behind the emailed reset link"),
        route(POST, "/auth/reset-password", acc::reset)
            .auth(Auth::Page("the single-use emailed reset token in the form, as POST /api/auth/password/reset"))
            .area("pages").summary("Set the new password (token used once; signs out everywhere)"),
        route(GET, "/auth/verified", acc::verified)
            .auth(Auth::Page("where /auth/callback sends a verified address; says only that"))
            .area("pages").summary("Email address confirmed"),
        route(GET, "/settings/integrations", acc::integrations)
            .auth(Auth::Page(SIGNED_IN))
            .area("pages").summary("Integrations: connect the video-review provider; its OAuth callback ends here"),
        route(GET, "/join/{token}", join::show)
            .auth(Auth::Page("the member invite link; the preview needs a signed-in user as the API's does, anyone else is asked to sign in or sign up"))
            .area("pages").summary("Member invite: sign in or up with the invited email, then the preview"),
        route(POST, "/join/{token}", join::accept)
            .auth(Auth::Page(SIGNED_IN))
            .area("pages").summary("Accept a member invite as the signed-in user"),
        route(GET, "/invite/{token}", invite::show)
            .auth(Auth::Page("the athlete invite link: the lookup's preview, rate-limited per address like GET /api/invite/lookup/{token}"))
            .area("pages").summary("Athlete invite: preview, the athlete's and the guardian's forms"),
        route(POST, "/invite/{token}/claim", invite::claim)
            .auth(Auth::Page("the single-use invite token in the path, as POST /api/invite/claim; server-side age gate"))
            .area("pages").summary("The athlete claims the login (age gate), signed in afterwards"),
        route(POST, "/invite/{token}/guardian", invite::guardian)
            .auth(Auth::Page("the single-use invite token in the path, used by the minor's guardian as POST /api/invite/guardian"))
            .area("pages").summary("A guardian creates the login and consents, signed in afterwards"),
        route(GET, "/tv", tv_page::show)
            .auth(Auth::Page(SIGNED_IN))
            .area("pages").summary("TV sign-in: type the TV's code (or ?code=), pick the workspace, name the TV"),
        route(POST, "/tv", tv_page::claim)
            .auth(Auth::Page(SIGNED_IN))
            .area("pages").summary("Claim a TV for a workspace (tv.manage, module tv; wrong codes rate-limited)"),
        route(GET, "/unsubscribe", unsubscribe::show)
            .auth(Auth::Page("the signed unsubscribe token in the query, from a notification mail; GET changes nothing"))
            .area("pages").summary("What the unsubscribe link does, with the button"),
        route(POST, "/unsubscribe", unsubscribe::unsubscribe)
            .auth(Auth::Page("the signed unsubscribe token in the query; the button, or an RFC 8058 one-click post"))
            .area("pages").summary("Unsubscribe from a category of notification email"),
        route(GET, "/profile/{slug}", profile::show)
            .auth(Auth::Page("a profile its workspace chose to publish; the allow-list of GET /api/public/athletes/{slug}"))
            .area("pages").summary("A published athlete profile"),
        route(GET, "/club/{id}", club::show)
            .auth(Auth::Page("a workspace that opened self-enrollment; unknown and closed ones are 404 alike"))
            .area("pages").summary("Club self-enrollment form"),
        route(POST, "/club/{id}", club::enroll)
            .auth(Auth::Page("self-enrollment as POST /api/club/enroll: age-gated, rate-limited, same answer for repeats"))
            .area("pages").summary("Enroll as a pending athlete of the club"),
    ]
}
