//! The web pages (issue 17, `docs/pages.md`): HTML for every link the service puts in mail and
//! API answers. `Auth::Page`: open to anyone; a page that needs a user asks them to sign in,
//! and a form that acts as the user checks the session's CSRF token. Not in the OpenAPI document.

use super::{GET, POST};
use crate::areas::pages::{
    accounts as acc, assets, club, invite, join, profile, tv as tv_page, unsubscribe,
};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    const SIGNED_IN: &str = "shows the visitor the sign-in link when nobody is signed in; acts only for the session's user, with its CSRF token";
    vec![
        route(GET, "/assets/site.css", assets::site_css)
            .auth(Auth::Page("the pages' stylesheet; nothing secret in it"))
            .area("pages").summary("The pages' one stylesheet"),
        route(GET, "/assets/icon.svg", assets::icon)
            .auth(Auth::Page("the pages' icon; nothing secret in it"))
            .area("pages").summary("The pages' icon"),
        route(GET, "/assets/vendor/htmx.min.js", assets::htmx)
            .auth(Auth::Page("the vendored progressive-enhancement library (scripts/vendor-web); nothing secret in it"))
            .area("pages").summary("htmx, vendored from npm at a pinned version"),
        route(GET, "/assets/vendor/htmx.LICENSE", assets::htmx_licence)
            .auth(Auth::Page("the vendored library's licence, published with it"))
            .area("pages").summary("htmx's licence (Zero-Clause BSD)"),
        route(GET, "/assets/vendor/tus.min.js", assets::tus)
            .auth(Auth::Page("the vendored resumable-upload client (scripts/vendor-web), loaded only where clips are uploaded; nothing secret in it"))
            .area("pages").summary("tus-js-client, vendored from npm at a pinned version"),
        route(GET, "/assets/vendor/tus.LICENSE", assets::tus_licence)
            .auth(Auth::Page("the vendored library's licence, published with it"))
            .area("pages").summary("tus-js-client's licence (MIT)"),
        route(GET, "/assets/js/desk.mjs", assets::desk_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("The desk's ES module (time zone, confirmations, search as you type)"),
        route(GET, "/assets/js/push.mjs", assets::push_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("Turn on notifications in this browser: the settings page's ES module"),
        route(GET, "/assets/js/clip.mjs", assets::clip_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("The clip page's timeline: seek on a click, the window playing highlighted"),
        route(GET, "/assets/js/reviews.mjs", assets::reviews_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("The review pages' ES module: keypoints at the player's time, seeking, recording voice notes"),
        route(GET, "/assets/js/upload.mjs", assets::upload_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("Clip uploads from the browser: several files over tus, progress per file, resumed after a reload"),
        route(GET, "/assets/js/watch.mjs", assets::watch_js)
            .auth(Auth::Page("the web application's own ES module; nothing secret in it"))
            .area("pages").summary("The watch pages' ES module: a dropped file into the import form, a drag on the speed chart into the true-ride form"),
        route(GET, "/sw.js", assets::service_worker)
            .auth(Auth::Page("the service worker script, at the root for its scope; nothing secret in it"))
            .area("pages").summary("The service worker: shows Web Push notifications and opens their page when clicked"),
        route(GET, "/manifest.webmanifest", assets::manifest)
            .auth(Auth::Page("the web app manifest a phone reads to add the app to its home screen"))
            .area("pages").summary("Web app manifest"),
        route(POST, "/impersonation/stop", crate::areas::pages::impersonation::stop)
            .auth(Auth::Page(SIGNED_IN))
            .area("pages").summary("The impersonation banner's stop button: the admin acts as themselves again, back at the person's console page"),
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
