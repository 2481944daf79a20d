//! Who is calling, and may they? One place resolves the caller for every route, from the auth
//! policy the route registry gives it (see `registry.rs`):
//!
//! - web: `sc_session` cookie (+ `X-CSRF-Token` on writes), phone: `Authorization: Bearer sca_…`;
//! - service role and cron: `Authorization: Bearer <SERVICE_ROLE_KEY | CRON_SECRET>`;
//! - public, token and webhook routes pass through; their handler checks the token or signature.
//!
//! Workspace-scoped policies also resolve the workspace (path `{id}`, else the
//! `X-Workspace-Id` header, else the user's default) and check module and permission.

pub mod cache;
mod guard;

pub use cache::AuthCache;
pub use guard::{Guard, bearer, guard, workspace_for};

use crate::http::{ApiError, Error};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use shared::authz::{Module, Perm, PermSet};
use shared::db::Id;
use shared::repo::users::User;
use std::sync::Arc;

/// Where a workspace-scoped route takes its workspace from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WsFrom {
    /// The `X-Workspace-Id` header, else the user's default workspace.
    Selected,
    /// The route's `{id}` path parameter (routes under `/api/orgs/{id}`).
    Path,
}

/// A route's auth policy. Every route has exactly one.
#[derive(Clone, Copy, Debug)]
pub enum Auth {
    /// No credentials. The text says why that is safe.
    Public(&'static str),
    /// A token in the path, query or body is the credential; the handler checks it and answers
    /// 401 when it is missing or bad. The text names the token.
    Token(&'static str),
    /// A provider's signature over the body; the handler verifies it. The text names the scheme.
    Webhook(&'static str),
    /// Any signed-in user (cookie or bearer).
    User,
    /// A signed-in member of a workspace, with a permission (none: any member) and module.
    Member {
        perm: Option<Perm>,
        module: Option<Module>,
        from: WsFrom,
    },
    /// A platform administrator.
    Admin,
    /// The internal service-role key.
    Service,
    /// The cron secret.
    Cron,
    /// A signed-in TV (`Bearer sctv_…`): only routes that show things on a TV accept it.
    Tv,
    /// An HTML page (`areas/pages`): open to anyone, so the guard refuses no one; it reads the
    /// web session cookie when there is one ([`SignedIn`]), and a page that needs a user sends
    /// the browser to the sign-in page itself. Its form posts check the CSRF token in the form
    /// (the session's, as `X-CSRF-Token` is for the API). The text says why it is open.
    Page(&'static str),
    /// A page of the web application inside a workspace (`/w/{ws}/…`, `areas/desk`): a web
    /// session is required (without one the browser is sent to the sign-in page), the workspace
    /// comes from the path and is checked as `Member` checks it (not a member: a 404 page;
    /// module off or permission missing: a 403 page). Its forms carry the session's CSRF token
    /// (`desk::DeskForm` refuses a post without it).
    Desk {
        perm: Option<Perm>,
        module: Option<Module>,
    },
    /// A page of the platform admin console (`/admin/…`, `areas/desk/admin`): a web session is
    /// required (without one the browser is sent to the sign-in page) whose signed-in user is a
    /// platform administrator, else a 403 page (the JSON admin routes' `admin_required`). Like
    /// `Admin`, it acts as the admin also during an impersonation ([`Impersonating`] names the
    /// person for the banner). Its forms carry the session's CSRF token.
    Console,
}

impl Auth {
    pub const fn member(perm: Perm) -> Auth {
        Auth::Member {
            perm: Some(perm),
            module: None,
            from: WsFrom::Selected,
        }
    }
    pub const fn any_member() -> Auth {
        Auth::Member {
            perm: None,
            module: None,
            from: WsFrom::Selected,
        }
    }
    pub const fn org(perm: Option<Perm>) -> Auth {
        Auth::Member {
            perm,
            module: None,
            from: WsFrom::Path,
        }
    }
    /// A web-application page needing `perm` in the path's workspace.
    pub const fn desk(perm: Perm) -> Auth {
        Auth::Desk {
            perm: Some(perm),
            module: None,
        }
    }
    /// A web-application page open to every member of the path's workspace.
    pub const fn desk_any() -> Auth {
        Auth::Desk {
            perm: None,
            module: None,
        }
    }
    pub const fn in_module(self, m: Module) -> Auth {
        match self {
            Auth::Desk { perm, .. } => Auth::Desk {
                perm,
                module: Some(m),
            },
            Auth::Member { perm, from, .. } => Auth::Member {
                perm,
                module: Some(m),
                from,
            },
            other => other,
        }
    }

    /// Routes that need no credentials from the guard (their handler may check a token).
    pub fn is_open(&self) -> bool {
        matches!(
            self,
            Auth::Public(_) | Auth::Token(_) | Auth::Webhook(_) | Auth::Page(_)
        )
    }

    /// The written reason an open route is open.
    pub fn why_open(&self) -> Option<&'static str> {
        match *self {
            Auth::Public(w) | Auth::Token(w) | Auth::Webhook(w) | Auth::Page(w) => Some(w),
            _ => None,
        }
    }

    /// The short label used in the OpenAPI document and the README's route table.
    pub fn label(&self) -> String {
        match self {
            Auth::Public(_) => "public".into(),
            Auth::Token(_) => "token".into(),
            Auth::Webhook(_) => "webhook".into(),
            Auth::User => "session".into(),
            Auth::Member { perm, module, .. } => {
                let mut s = "session".to_string();
                if let Some(p) = perm {
                    s.push_str(&format!(" + {p}"));
                }
                if let Some(m) = module {
                    s.push_str(&format!(" (module {})", m.key()));
                }
                s
            }
            Auth::Admin => "admin".into(),
            Auth::Service => "service".into(),
            Auth::Cron => "cron".into(),
            Auth::Tv => "tv device".into(),
            Auth::Page(_) => "page".into(),
            Auth::Console => "admin page".into(),
            Auth::Desk { perm, module } => {
                let mut s = "page in workspace".to_string();
                if let Some(p) = perm {
                    s.push_str(&format!(" + {p}"));
                }
                if let Some(m) = module {
                    s.push_str(&format!(" (module {})", m.key()));
                }
                s
            }
        }
    }
}

/// How the caller proved who they are.
#[derive(Clone, Debug)]
pub enum Via {
    /// Web cookie session; `session_id` identifies the row.
    Session { session_id: Id },
    /// Phone bearer access token of a sign-in family.
    Bearer { family_id: Id },
}

/// The signed-in user of this request. During an impersonation `user` is the impersonated
/// user and `impersonator` the platform admin behind it.
#[derive(Clone, Debug)]
pub struct Caller {
    /// Shared with the guard's cached sign-in: a request's copy of the caller costs no
    /// allocation.
    pub user: Arc<User>,
    pub via: Via,
    pub impersonator: Option<Id>,
}

impl Caller {
    /// An audit entry by this caller (the impersonating admin is recorded too).
    pub fn audit<'a>(
        &self,
        org_id: Option<Id>,
        action: &'a str,
        target_type: &'a str,
        target_id: Option<String>,
        data: serde_json::Value,
    ) -> shared::repo::audit::Entry<'a> {
        shared::repo::audit::Entry {
            org_id,
            actor: Some(self.user.id),
            impersonator: self.impersonator,
            action,
            target_type,
            target_id,
            data,
        }
    }

    /// The caller as the domain layer sees them.
    pub fn actor(&self) -> shared::domain::Actor {
        shared::domain::Actor {
            user_id: self.user.id,
            impersonator: self.impersonator,
        }
    }

    /// A stable reference to this sign-in (session or token family), to bind OAuth state to.
    pub fn sign_in_ref(&self) -> String {
        match &self.via {
            Via::Session { session_id } => format!("session:{session_id}"),
            Via::Bearer { family_id } => format!("bearer:{family_id}"),
        }
    }
}

/// The memberships of the user a request acts as (the caller's `user`), with what a workspace
/// check needs; set by the guard for `User` and `Member` routes (from its cache when the
/// sign-in was verified recently).
#[derive(Clone, Debug)]
pub struct Memberships(pub std::sync::Arc<Vec<shared::repo::orgs::Membership>>);

impl<S: Send + Sync> FromRequestParts<S> for Memberships {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(parts
            .extensions
            .get::<Memberships>()
            .cloned()
            .ok_or_else(|| Error::unauthorized("unauthenticated", "sign in first"))?)
    }
}

/// The web session of a request to a page (`Auth::Page`), when its cookie is valid: the user
/// and the session's CSRF token (the `sc_csrf` cookie's value), which the page's forms carry.
#[derive(Clone, Debug)]
pub struct SignedIn {
    pub caller: Caller,
    pub csrf: String,
    /// The memberships of the user it acts as (the web application's workspace switcher).
    pub memberships: std::sync::Arc<Vec<shared::repo::orgs::Membership>>,
}

/// The TV of a request under `Auth::Tv`.
#[derive(Clone, Debug)]
pub struct TvCaller {
    pub device_id: Id,
    pub org_id: Id,
    pub name: String,
}

impl<S: Send + Sync> FromRequestParts<S> for TvCaller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(parts
            .extensions
            .get::<TvCaller>()
            .cloned()
            .ok_or_else(|| Error::unauthorized("unauthenticated", "a TV token is required"))?)
    }
}

/// The workspace a request acts in, with the caller's effective permissions there.
#[derive(Clone, Debug)]
pub struct Ws {
    pub org_id: Id,
    pub member_id: Id,
    pub role_key: String,
    pub permissions: PermSet,
    pub disabled_modules: Vec<String>,
}

impl Ws {
    pub fn can(&self, perm: Perm) -> bool {
        self.permissions.contains(&perm)
    }

    /// Checks a permission inside a handler (for rules finer than the route's policy).
    pub fn require(&self, perm: Perm) -> Result<(), Error> {
        if self.can(perm) {
            Ok(())
        } else {
            Err(Error::forbidden(
                "permission_denied",
                format!("this needs the {perm} permission in this workspace"),
            ))
        }
    }

    /// This member acting here, as the domain layer's operations take it.
    pub fn acting(&self, caller: &Caller) -> shared::domain::InWorkspace {
        shared::domain::InWorkspace {
            actor: caller.actor(),
            org_id: self.org_id,
            member_id: self.member_id,
            role_key: self.role_key.clone(),
            permissions: self.permissions.clone(),
        }
    }

    pub fn is_owner(&self) -> bool {
        self.role_key == "owner"
    }
}

/// The member acting in the request's workspace, as the domain layer's operations take it
/// (`Ws::acting`): the [`Caller`] and the [`Ws`] the guard set, in one extractor, for handlers
/// that need them for nothing else. In a signature: `Acting(ws): Acting`. Without either, 401
/// `unauthenticated`, as those two extractors answer.
#[derive(Clone, Debug)]
pub struct Acting(pub shared::domain::InWorkspace);

impl<S: Send + Sync> FromRequestParts<S> for Acting {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let unauthenticated = || Error::unauthorized("unauthenticated", "sign in first");
        let caller = parts
            .extensions
            .get::<Caller>()
            .ok_or_else(unauthenticated)?;
        let ws = parts.extensions.get::<Ws>().ok_or_else(unauthenticated)?;
        Ok(Acting(ws.acting(caller)))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| Error::unauthorized("unauthenticated", "sign in first"))?)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Ws {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(parts
            .extensions
            .get::<Ws>()
            .cloned()
            .ok_or_else(|| Error::unauthorized("unauthenticated", "sign in first"))?)
    }
}

/// Set by the guard on an admin console page while the admin's sign-in impersonates someone:
/// that person's name, for the banner (the page itself acts as the admin).
#[derive(Clone, Debug)]
pub struct Impersonating(pub String);
