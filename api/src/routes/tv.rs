//! The TV area's routes: device-code sign-in, the workspace's TVs, the TV's own.

use super::{DELETE, GET, PATCH, POST};
use crate::areas::tv;
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
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
    ]
}
