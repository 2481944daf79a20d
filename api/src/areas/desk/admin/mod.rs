//! The platform admin console in the browser (issue 39, `docs/web.md`): pages under
//! `/admin/…` with `Auth::Console` (a web session of a platform administrator, acting as the
//! admin also while the sign-in impersonates someone), its own navigation, and the same domain
//! operations as the JSON admin routes (`areas::admin`, `areas::jobs`).

pub mod announcements;
pub mod jobs;
pub mod metrics;
pub mod people;
pub mod reports;
pub mod signup;
pub mod subscriptions;

use super::i18n::Catalogue;
use super::layout::Chrome;
use super::seat::Seat;
use super::viewer_tz;
use crate::areas::pages;
use crate::auth::{Impersonating, SignedIn};
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::Response;
use chrono_tz::Tz;
use shared::db::Id;

/// The console's sections: (path, catalogue key).
pub const SECTIONS: &[(&str, &str)] = &[
    ("/admin", "adm.nav.overview"),
    ("/admin/orgs", "adm.nav.orgs"),
    ("/admin/users", "adm.nav.users"),
    ("/admin/jobs", "adm.nav.jobs"),
    ("/admin/signup", "adm.nav.signup"),
    ("/admin/reports", "adm.nav.reports"),
    ("/admin/announcements", "adm.nav.ann"),
    ("/admin/subscriptions", "adm.nav.subs"),
];

/// Rows per page of the console's lists.
pub const PAGE_SIZE: i64 = 25;

/// A platform admin at the console.
pub struct Console {
    /// The admin's own session (their caller, not an impersonated one).
    pub who: SignedIn,
    /// Whom the admin's sign-in acts as on the other pages, if anyone (the banner).
    pub impersonating: Option<String>,
    pub tz: Tz,
    pub cat: &'static Catalogue,
    /// The request's path (and query).
    pub here: String,
}

impl Seat for Console {
    fn who(&self) -> &SignedIn {
        &self.who
    }
    fn tz(&self) -> Tz {
        self.tz
    }
    fn cat(&self) -> &'static Catalogue {
        self.cat
    }
    fn org(&self) -> Option<Id> {
        None
    }
    fn path(&self, rest: &str) -> String {
        format!("/admin{rest}")
    }
    fn chrome(&self, title: String) -> Chrome {
        Chrome::console(self, title)
    }
}

impl Console {
    /// A page rendered as the answer to a post: htmx is told the address is `rest`'s, so a
    /// reload shows the page rather than posting again.
    pub fn page_at<T: askama::Template>(&self, code: StatusCode, t: &T, rest: &str) -> Response {
        let mut r = pages::page(code, t);
        if let Ok(v) = axum::http::HeaderValue::from_str(&self.path(rest)) {
            r.headers_mut().insert("hx-replace-url", v);
        }
        r
    }
}

impl FromRequestParts<AppState> for Console {
    type Rejection = Response;
    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, Response> {
        let here = parts
            .uri
            .path_and_query()
            .map_or_else(|| "/admin".to_string(), |p| p.as_str().to_string());
        // Only a route registered without `Auth::Console` lacks it: ask for a sign-in.
        let Some(who) = parts.extensions.get::<SignedIn>().cloned() else {
            return Err(pages::sign_in_first(&here));
        };
        if !who.caller.user.is_platform_admin {
            return Err(pages::error_page(
                &pages::PageUser(Some(who)),
                &shared::Error::forbidden("admin_required", "this needs a platform administrator"),
            ));
        }
        let cat = Catalogue::for_accept_language(
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        Ok(Console {
            who,
            impersonating: parts.extensions.get::<Impersonating>().map(|i| i.0.clone()),
            tz: viewer_tz(&parts.headers),
            cat,
            here,
        })
    }
}

/// `href` of a list's page at `offset`, keeping the search `q`.
pub fn list_href(base: &str, q: &str, offset: i64) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    if !q.is_empty() {
        s.append_pair("q", q);
    }
    if offset > 0 {
        s.append_pair("offset", &offset.to_string());
    }
    let qs = s.finish();
    if qs.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{qs}")
    }
}

/// A workspace named in a console form that does not exist, said beside its field (`org_id`)
/// rather than as a 404 page: the admin typed it.
pub fn unknown_workspace(e: shared::Error) -> shared::Error {
    if e.kind != shared::ErrorKind::NotFound {
        return e;
    }
    let mut v = shared::error::Validator::new();
    v.add("org_id", "not_found", "no such workspace");
    v.finish().expect_err("an error")
}
