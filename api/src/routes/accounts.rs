//! The accounts area's routes: sign-up, sign-in, sessions, tokens, and the service's own
//! (health, time, this OpenAPI document).

use super::{GET, POST};
use crate::areas::accounts::{account, email_links, mobile, sessions, signup};
use crate::areas::{reviewvideo, system};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
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
    ]
}
