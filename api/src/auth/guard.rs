//! The middleware every route runs through, configured with the route's policy: its auth and
//! its time bound.

use super::cache::{Key, Kind, SignIn};
use super::{Auth, Caller, Memberships, Via, Ws, WsFrom};
use crate::http::cookies;
use crate::http::{ApiError, Error};
use crate::state::AppState;
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::{HeaderMap, Method, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use shared::authz::effective_permissions;
use shared::config::Secret;
use shared::crypto::constant_time_eq;
use shared::db::{Conn, Id, Ts};
use shared::repo::orgs::Membership;
use shared::repo::users::User;
use shared::repo::{auth_tokens, impersonation, orgs, tv, users};
use std::sync::Arc;
use std::time::Duration;

/// The guard's configuration for one route.
#[derive(Clone)]
pub struct Guard {
    pub app: AppState,
    pub auth: Auth,
    /// `/api/mobile/*` twins accept bearer tokens only.
    pub bearer_only: bool,
    /// The request timeout (`REQUEST_TIMEOUT_SECS`), over the auth reads and the handler; `None`
    /// for routes that stream a large body in ([`crate::registry::RouteDef::streamed_body`]).
    /// Bounded here, per route, rather than by a router-wide layer: every `Router::layer` is
    /// one more boxed service that each request clones.
    pub timeout: Option<Duration>,
}

/// Response headers that say an impersonation is in effect.
pub const IMPERSONATED_BY: &str = "x-impersonated-by";
pub const IMPERSONATING: &str = "x-impersonating";

pub async fn guard(State(g): State<Guard>, req: Request, next: Next) -> Response {
    let Some(limit) = g.timeout else {
        return guarded(&g, req, next).await;
    };
    match tokio::time::timeout(limit, guarded(&g, req, next)).await {
        Ok(r) => r,
        Err(_) => ApiError(Error::unavailable(
            "timeout",
            "the request took too long",
            1,
        ))
        .into_response(),
    }
}

async fn guarded(g: &Guard, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    match authorize(g, &mut parts).await {
        Ok(imp) => {
            let mut resp = next.run(Request::from_parts(parts, body)).await;
            if let Some((admin, target)) = imp {
                let h = resp.headers_mut();
                h.insert(
                    IMPERSONATED_BY,
                    admin.to_string().parse().expect("uuid header"),
                );
                h.insert(
                    IMPERSONATING,
                    target.to_string().parse().expect("uuid header"),
                );
            }
            resp
        }
        Err(Refused::Api(e)) => ApiError::from(e).into_response(),
        Err(Refused::SignInFirst) => {
            let here = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            crate::areas::pages::sign_in_first(here)
        }
        Err(Refused::Page(e, who)) => {
            crate::areas::pages::error_page(&crate::areas::pages::PageUser(Some(who)), &e)
        }
    }
}

/// Why the guard turned a request away: the API's JSON error, or for a web-application page
/// (`Auth::Desk`) the sign-in page or an HTML error page.
enum Refused {
    Api(Error),
    SignInFirst,
    Page(Error, super::SignedIn),
}

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        Refused::Api(e)
    }
}

/// The `{ws}` path parameter of a web-application page; not a UUID: not found.
async fn desk_org_id(parts: &mut Parts) -> Result<Id, Error> {
    let params = RawPathParams::from_request_parts(parts, &())
        .await
        .map_err(|_| Error::not_found("workspace"))?;
    params
        .iter()
        .find(|(k, _)| *k == "ws")
        .and_then(|(_, v)| v.parse().ok())
        .ok_or_else(|| Error::not_found("workspace"))
}

/// The TV device behind a bearer token. Boxed by its caller, as every database read of the
/// guard is: the guard's future stays small, and a request that reads nothing moves less.
async fn tv_caller(g: &Guard, headers: &HeaderMap) -> Result<super::TvCaller, Error> {
    let token = bearer(headers)
        .ok_or_else(|| Error::unauthorized("unauthenticated", "a TV token is required"))?;
    let mut c = g.app.db.acquire().await?;
    let d = tv::by_token(&mut c, token)
        .await?
        .ok_or_else(|| Error::unauthorized("invalid_token", "this TV is not signed in"))?;
    let org_id = d
        .org_id
        .ok_or_else(|| Error::unauthorized("invalid_token", "this TV is not signed in"))?;
    Ok(super::TvCaller {
        device_id: d.id,
        org_id,
        name: d.name,
    })
}

/// Checks the policy; returns (admin, user) when an impersonation is in effect.
async fn authorize(g: &Guard, parts: &mut Parts) -> Result<Option<(Id, Id)>, Refused> {
    match g.auth {
        Auth::Public(_) | Auth::Token(_) | Auth::Webhook(_) => Ok(None),
        Auth::Page(_) => match page_session(g, parts).await? {
            Some((signed_in, imp)) => {
                parts.extensions.insert(signed_in);
                Ok(imp)
            }
            None => Ok(None),
        },
        Auth::Desk { perm, module } => {
            let Some((signed_in, imp)) = page_session(g, parts).await? else {
                return Err(Refused::SignInFirst);
            };
            let refuse = |e| Refused::Page(e, signed_in.clone());
            let org = desk_org_id(parts).await.map_err(refuse)?;
            let ws = pick_workspace(&signed_in.memberships, &signed_in.caller.user, Some(org))
                .and_then(|ws| check_workspace(ws, module, perm))
                .map_err(refuse)?;
            parts.extensions.insert(signed_in.caller.clone());
            parts.extensions.insert(ws);
            parts.extensions.insert(signed_in);
            Ok(imp)
        }
        Auth::Console => {
            let Some((s, csrf)) = web_sign_in(g, parts).await? else {
                return Err(Refused::SignInFirst);
            };
            let (acting_as, imp) = acting(&s)?;
            if !s.caller.user.is_platform_admin {
                let who = super::SignedIn {
                    caller: acting_as,
                    csrf,
                    memberships: s.memberships.clone(),
                };
                let e = Error::forbidden("admin_required", "this needs a platform administrator");
                return Err(Refused::Page(e, who));
            }
            if imp.is_some() {
                let name = acting_as.user.name.clone();
                parts.extensions.insert(super::Impersonating(name));
            }
            // The admin's own caller, as `Admin` routes act (also while impersonating).
            parts.extensions.insert(s.caller.clone());
            parts.extensions.insert(super::SignedIn {
                caller: s.caller.clone(),
                csrf,
                memberships: s.memberships.clone(),
            });
            Ok(imp)
        }
        Auth::Service => {
            shared_secret(&parts.headers, g.app.cfg.service_role_key.as_ref())?;
            Ok(None)
        }
        Auth::Cron => {
            shared_secret(&parts.headers, g.app.cfg.cron_secret.as_ref())?;
            Ok(None)
        }
        Auth::Tv => {
            let tv = Box::pin(tv_caller(g, &parts.headers)).await?;
            parts.extensions.insert(tv);
            Ok(None)
        }
        Auth::User => {
            let signed_in = resolve_caller(g, parts).await?;
            let (caller, imp) = acting(&signed_in)?;
            parts.extensions.insert(caller);
            parts
                .extensions
                .insert(Memberships(signed_in.memberships.clone()));
            Ok(imp)
        }
        Auth::Admin => {
            // Admin routes always act as the real admin, also while impersonating (so
            // `impersonate/stop` and the admin pages keep working).
            let signed_in = resolve_caller(g, parts).await?;
            if !signed_in.caller.user.is_platform_admin {
                return Err(Error::forbidden(
                    "admin_required",
                    "this needs a platform administrator",
                )
                .into());
            }
            let imp = signed_in
                .impersonation
                .as_ref()
                .map(|(i, _)| (i.admin_id, i.target_user_id));
            parts.extensions.insert(signed_in.caller.clone());
            Ok(imp)
        }
        Auth::Member { perm, module, from } => {
            // The sign-in carries the memberships of the user it acts as: no query here when
            // it came from the cache.
            let signed_in = resolve_caller(g, parts).await?;
            let (caller, imp) = acting(&signed_in)?;
            let org_id = match from {
                WsFrom::Path => Some(path_org_id(parts).await?),
                WsFrom::Selected => selected_org(&parts.headers)?,
            };
            let ws = check_workspace(
                pick_workspace(&signed_in.memberships, &caller.user, org_id)?,
                module,
                perm,
            )?;
            parts.extensions.insert(caller);
            parts.extensions.insert(ws);
            parts
                .extensions
                .insert(Memberships(signed_in.memberships.clone()));
            Ok(imp)
        }
    }
}

/// The caller's workspace (`org`, or their default), checked as a `Member` policy checks it:
/// 404 when not a member, 403 `module_disabled`, 403 `permission_denied`. Pages that act in a
/// workspace the user picks in a form call it with the form's choice.
pub async fn workspace_for(
    app: &AppState,
    caller: &Caller,
    org: Option<Id>,
    module: Option<shared::authz::Module>,
    perm: Option<shared::authz::Perm>,
) -> Result<Ws, Error> {
    let mut conn = app.db.acquire().await?;
    let ms = orgs::memberships_of(&mut conn, caller.user.id).await?;
    check_workspace(pick_workspace(&ms, &caller.user, org)?, module, perm)
}

/// The module and permission checks of [`workspace_for`].
fn check_workspace(
    ws: Ws,
    module: Option<shared::authz::Module>,
    perm: Option<shared::authz::Perm>,
) -> Result<Ws, Error> {
    if let Some(m) = module
        && ws.disabled_modules.iter().any(|d| d == m.key())
    {
        return Err(Error::forbidden(
            "module_disabled",
            format!("the {} module is switched off in this workspace", m.key()),
        ));
    }
    if let Some(p) = perm {
        ws.require(p)?;
    }
    Ok(ws)
}

/// A page's web session: the user behind a valid `sc_session` cookie (impersonation applied)
/// and its CSRF token. A missing, unknown or expired cookie is no session, not an error: the
/// page then shows itself to an anonymous visitor or asks them to sign in.
async fn page_session(
    g: &Guard,
    parts: &Parts,
) -> Result<Option<(super::SignedIn, Option<(Id, Id)>)>, Error> {
    let Some((signed_in, csrf)) = web_sign_in(g, parts).await? else {
        return Ok(None);
    };
    let (caller, imp) = acting(&signed_in)?;
    Ok(Some((
        super::SignedIn {
            caller,
            csrf,
            memberships: signed_in.memberships.clone(),
        },
        imp,
    )))
}

/// The sign-in behind the `sc_session` cookie as it is (the admin's own during an
/// impersonation) and the session's CSRF token; `None` without a valid cookie.
async fn web_sign_in(g: &Guard, parts: &Parts) -> Result<Option<(Arc<SignIn>, String)>, Error> {
    let Some(token) = cookies::get(&parts.headers, cookies::SESSION_COOKIE) else {
        return Ok(None);
    };
    let Some(signed_in) = sign_in(g, Credential::Session(&token)).await? else {
        return Ok(None);
    };
    Ok(Some((signed_in, g.app.keys.sign("csrf", token.as_bytes()))))
}

/// The caller a request acts as: the impersonated user when the sign-in has an active
/// impersonation, and (admin, user) for the response headers.
fn acting(s: &SignIn) -> Result<(Caller, Option<(Id, Id)>), Error> {
    let Some((i, target)) = &s.impersonation else {
        return Ok((s.caller.clone(), None));
    };
    let target = target.clone().ok_or_else(|| {
        Error::unauthorized("invalid_token", "the impersonated user no longer exists")
    })?;
    Ok((
        Caller {
            user: target,
            via: s.caller.via.clone(),
            impersonator: Some(i.admin_id),
        },
        Some((i.admin_id, i.target_user_id)),
    ))
}

/// A credential as presented.
#[derive(Clone, Copy)]
enum Credential<'a> {
    Bearer(&'a str),
    Session(&'a str),
}

impl Credential<'_> {
    fn key(self) -> Key {
        match self {
            Credential::Bearer(t) => Key::new(Kind::Bearer, t),
            Credential::Session(t) => Key::new(Kind::Session, t),
        }
    }
}

/// The sign-in behind a credential: from the cache when it was verified recently, else read
/// on one pooled connection (and kept). `None`: unknown, expired or revoked.
async fn sign_in(g: &Guard, cred: Credential<'_>) -> Result<Option<Arc<SignIn>>, Error> {
    let cache = &g.app.auth_cache;
    let key = cred.key();
    let generation = match cache.get(&key) {
        Ok(s) => return Ok(Some(s)),
        Err(generation) => generation,
    };
    // Boxed: the cache hit above is the common path, and this read's state is large.
    let loaded = Box::pin(async {
        let mut conn = g.app.db.acquire().await?;
        load_sign_in(&mut conn, cred).await
    })
    .await?;
    let Some(s) = loaded else {
        return Ok(None);
    };
    let s = Arc::new(s);
    if let Some(generation) = generation {
        cache.store(key, s.clone(), generation);
    }
    Ok(Some(s))
}

/// Reads a sign-in: the token (kind, expiry, revocation) or session with its user, the
/// impersonation of a platform admin's sign-in, and the memberships of the user it acts as.
async fn load_sign_in(c: &mut Conn, cred: Credential<'_>) -> Result<Option<SignIn>, Error> {
    let (caller, expires_at) = match cred {
        Credential::Bearer(token) => {
            let Some((t, user)) = auth_tokens::token_with_user(c, token).await? else {
                return Ok(None);
            };
            if t.kind != auth_tokens::TokenKind::Access
                || t.revoked_at.is_some()
                || t.expires_at <= Ts::now()
            {
                return Ok(None);
            }
            let via = Via::Bearer {
                family_id: t.family_id,
            };
            (caller_of(user, via), t.expires_at)
        }
        Credential::Session(token) => {
            let Some(session) = auth_tokens::session_by_token(c, token).await? else {
                return Ok(None);
            };
            let Some(user) = users::by_id(c, session.user_id).await? else {
                return Ok(None);
            };
            let via = Via::Session {
                session_id: session.id,
            };
            (caller_of(user, via), session.expires_at)
        }
    };
    let impersonation = if caller.user.is_platform_admin {
        match impersonation::active(c, &caller.sign_in_ref()).await? {
            Some(i) => {
                let target = users::by_id(c, i.target_user_id).await?.map(Arc::new);
                Some((i, target))
            }
            None => None,
        }
    } else {
        None
    };
    let acts_as = match &impersonation {
        None => Some(caller.user.id),
        Some((_, target)) => target.as_ref().map(|t| t.id),
    };
    let memberships = match acts_as {
        Some(user) => orgs::memberships_of(c, user).await?,
        None => Vec::new(),
    };
    Ok(Some(SignIn {
        caller,
        expires_at,
        impersonation,
        memberships: Arc::new(memberships),
    }))
}

fn caller_of(user: User, via: Via) -> Caller {
    Caller {
        user: Arc::new(user),
        via,
        impersonator: None,
    }
}

/// `Authorization: Bearer <secret>` compared in constant time with a configured secret. An
/// unset secret refuses everyone.
fn shared_secret(headers: &HeaderMap, expected: Option<&Secret>) -> Result<(), Error> {
    let given = bearer(headers)
        .ok_or_else(|| Error::unauthorized("unauthenticated", "missing bearer credentials"))?;
    match expected {
        Some(secret) if constant_time_eq(given.as_bytes(), secret.expose().as_bytes()) => Ok(()),
        _ => Err(Error::unauthorized(
            "invalid_token",
            "the bearer credentials are not valid",
        )),
    }
}

pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The sign-in of a request to an API route (bearer token, else session cookie with the CSRF
/// check on writes); 401 without valid credentials.
async fn resolve_caller(g: &Guard, parts: &Parts) -> Result<Arc<SignIn>, Error> {
    let invalid = || {
        Error::unauthorized(
            "invalid_token",
            "the credentials are not valid or have expired",
        )
    };
    if let Some(token) = bearer(&parts.headers) {
        return sign_in(g, Credential::Bearer(token))
            .await?
            .ok_or_else(invalid);
    }
    if g.bearer_only {
        return Err(Error::unauthorized(
            "unauthenticated",
            "this route needs Authorization: Bearer <access token>",
        ));
    }
    let Some(token) = cookies::get(&parts.headers, cookies::SESSION_COOKIE) else {
        return Err(Error::unauthorized("unauthenticated", "sign in first"));
    };
    let signed_in = sign_in(g, Credential::Session(&token))
        .await?
        .ok_or_else(invalid)?;
    if !is_safe(&parts.method) {
        let expected = g.app.keys.sign("csrf", token.as_bytes());
        let given = parts
            .headers
            .get(cookies::CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !constant_time_eq(expected.as_bytes(), given.as_bytes()) {
            return Err(Error::forbidden(
                "csrf_failed",
                "cookie-authenticated writes need the X-CSRF-Token header (the sc_csrf cookie's value)",
            ));
        }
    }
    Ok(signed_in)
}

fn is_safe(m: &Method) -> bool {
    matches!(*m, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn selected_org(headers: &HeaderMap) -> Result<Option<Id>, Error> {
    match headers.get("x-workspace-id") {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|s| s.parse().ok())
            .map(Some)
            .ok_or_else(|| {
                Error::bad_request("invalid_workspace_header", "X-Workspace-Id must be a UUID")
            }),
    }
}

async fn path_org_id(parts: &mut Parts) -> Result<Id, Error> {
    let params = RawPathParams::from_request_parts(parts, &())
        .await
        .map_err(|_| Error::not_found("workspace"))?;
    params
        .iter()
        .find(|(k, _)| *k == "id")
        .and_then(|(_, v)| v.parse().ok())
        .ok_or_else(|| Error::not_found("workspace"))
}

/// The user's membership of `org` (or of their default workspace, else their first) among
/// their memberships `ms`. Not being a member is indistinguishable from the workspace not
/// existing: 404.
fn pick_workspace(ms: &[Membership], user: &User, org: Option<Id>) -> Result<Ws, Error> {
    let m = match org {
        Some(org) => ms
            .iter()
            .find(|m| m.org_id == org)
            .ok_or_else(|| Error::not_found("workspace"))?,
        None => ms
            .iter()
            .find(|m| Some(m.org_id) == user.default_org_id)
            .or_else(|| ms.first())
            .ok_or_else(|| {
                Error::conflict(
                    "no_workspace",
                    "you belong to no workspace yet; POST /api/auth/ensure-org creates one",
                )
            })?,
    };
    Ok(Ws {
        org_id: m.org_id,
        member_id: m.member_id,
        permissions: effective_permissions(&m.role_key, &m.permissions.0),
        role_key: m.role_key.clone(),
        disabled_modules: m.disabled_modules.0.clone(),
    })
}
