//! Leaving the desk for a provider's hosted page (Checkout, the customer portal, payout
//! onboarding, an OAuth authorization) and coming back from it.
//!
//! Leaving: a post's answer is a small page that opens the provider's URL (`<meta refresh>`,
//! a link for when it does not) and `HX-Redirect` for htmx, not a 303: the pages' CSP has
//! `form-action 'self'`, which browsers also apply to a form's redirects, so a 303 to another
//! origin would be blocked.
//!
//! Coming back: the providers return to fixed addresses outside any workspace (`/billing`,
//! `/payments/connect`, `/settings/integrations`, set by the domain and registered at the
//! provider). Leaving from a workspace leaves its id in a short-lived cookie; the return
//! address sends the browser to that workspace's page (else to the person's first workspace).
//! The cookie holds only an id: the guard still checks the membership of where it leads.

use super::i18n::Catalogue;
use crate::areas::pages::{self, see_other};
use crate::auth::SignedIn;
use askama::Template;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use shared::db::Id;

/// The workspace a provider's return address leads back to.
pub const RETURN_COOKIE: &str = "sc_return_ws";

#[derive(Template)]
#[template(path = "desk/leave.html")]
struct LeavePage<'a> {
    lang: &'a str,
    title: &'a str,
    link: &'a str,
    url: &'a str,
}

/// The answer that takes the browser to `url` at a provider, remembering `org` (when leaving
/// from a workspace) for the way back.
pub fn leave(cat: &'static Catalogue, url: &str, org: Option<Id>) -> Response {
    let mut r = pages::page(
        StatusCode::OK,
        &LeavePage {
            lang: cat.lang,
            title: cat.t("leave.title"),
            link: cat.t("leave.link"),
            url,
        },
    );
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(url) {
        h.insert("hx-redirect", v);
    }
    if let Some(org) = org
        && let Ok(v) = HeaderValue::from_str(&format!(
            "{RETURN_COOKIE}={org}; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax"
        ))
    {
        h.append(header::SET_COOKIE, v);
    }
    r
}

/// The workspace to come back to: the cookie's when the person is still its member, else
/// their first workspace.
pub fn return_workspace(h: &HeaderMap, who: &SignedIn) -> Option<Id> {
    let remembered = crate::http::cookies::get(h, RETURN_COOKIE)
        .and_then(|v| v.parse::<Id>().ok())
        .filter(|id| who.memberships.iter().any(|m| m.org_id == *id));
    remembered.or_else(|| who.memberships.first().map(|m| m.org_id))
}

/// A 303 from a provider's return address to `rest` of the workspace to come back to, with the
/// return address's query (`?checkout=success…`); home when the person has no workspace.
pub fn back_to_workspace(
    h: &HeaderMap,
    who: &SignedIn,
    rest: &str,
    query: Option<&str>,
) -> Response {
    let to = match return_workspace(h, who) {
        Some(org) => format!("/w/{org}{rest}"),
        None => "/".to_string(),
    };
    let to = match query.filter(|q| !q.is_empty()) {
        Some(q) if to != "/" => format!("{to}?{q}"),
        _ => to,
    };
    see_other(&to, HeaderMap::new())
}
