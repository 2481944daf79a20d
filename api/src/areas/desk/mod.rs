//! The web application (issue 37, `docs/web.md`): the coach's desk in the browser. Every page
//! is a registry row under `/w/{ws}/…` with `Auth::Desk` (the guard has checked the web
//! session, the workspace, its module and the permission before a handler runs), rendered from
//! askama templates (`api/templates/desk/`) around one layout, calling the same
//! `shared::domain` operations as the JSON handlers.
//!
//! Rules every desk page follows:
//! - it works without script: links and forms, a form post answered by a redirect (303) to the
//!   page that shows the result with a `?done=` note; htmx (`/assets/vendor/htmx.min.js`) and
//!   our own ES modules (`api/assets/js/`) only enhance (boosted navigation, live job progress,
//!   search as you type, confirmations);
//! - every post is a [`DeskForm`] (or [`upload::DeskUpload`]): from this site, carrying the
//!   session's CSRF token, else refused before the handler runs;
//! - text comes from the message catalogue ([`i18n`]), times are shown in the viewer's time
//!   zone (the `sc_tz` cookie the page's module sets, else UTC).

pub mod admin;
pub mod athletes;
pub mod clip_media;
pub mod clips;
pub mod coaching;
pub mod competition;
pub mod competition_b;
pub mod confirm;
pub mod dashboard;
pub mod footage;
pub mod i18n;
pub mod imports;
pub mod jobs;
pub mod layout;
pub mod leave;
pub mod lessons;
pub mod messages;
pub mod notifications;
pub mod payments;
pub mod reviews;
pub mod seat;
pub mod sent;
pub mod settings;
pub mod training;
pub mod upload;
pub mod watch;

use crate::areas::pages::{self, PageUser};
use crate::auth::{SignedIn, Ws};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;
use i18n::Catalogue;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use shared::Error;
use shared::db::{Id, Ts};
use shared::domain::InWorkspace;

pub use layout::Chrome;
pub use seat::{Me, Seat};

/// Who is at the desk: the web session, the workspace the guard checked, and how to show
/// things to them (language, time zone).
pub struct Desk {
    pub who: SignedIn,
    pub ws: Ws,
    pub tz: Tz,
    pub cat: &'static Catalogue,
    /// The request's path (and query), for "come back here" redirects.
    pub here: String,
}

impl Desk {
    /// The member acting here, as domain operations take it.
    pub fn acting(&self) -> InWorkspace {
        self.ws.acting(&self.who.caller)
    }

    pub fn org(&self) -> Id {
        self.ws.org_id
    }

    /// A path inside this workspace's desk: `/w/{ws}{rest}`.
    pub fn path(&self, rest: &str) -> String {
        format!("/w/{}{rest}", self.ws.org_id)
    }

    /// The page user of the plain pages' helpers (error pages).
    pub fn page_user(&self) -> PageUser {
        PageUser(Some(self.who.clone()))
    }

    // The desk's pages call these without naming the trait; one implementation, `Seat`'s.
    pub fn error(&self, e: &Error) -> Response {
        Seat::error(self, e)
    }

    pub fn done(&self, rest: &str, note: &str) -> Response {
        Seat::done(self, rest, note)
    }

    pub fn time(&self, t: Ts) -> String {
        Seat::time(self, t)
    }

    /// Whether the workspace has `module` on and the member holds `perm` (what a page shows).
    pub fn may(&self, module: shared::authz::Module, perm: shared::authz::Perm) -> bool {
        !self.ws.disabled_modules.iter().any(|d| d == module.key()) && self.ws.can(perm)
    }

    /// Today in the viewer's zone.
    pub fn today(&self) -> NaiveDate {
        Ts::now().0.with_timezone(&self.tz).date_naive()
    }

    /// Local midnight of `day` in the viewer's zone, as an instant.
    pub fn midnight(&self, day: NaiveDate) -> Ts {
        self.local(day.and_hms_opt(0, 0, 0).expect("midnight exists"))
    }

    /// A wall-clock time in the viewer's zone, as an instant (the earlier one when a clock
    /// change repeats it; just after the gap when it skips it).
    pub fn local(&self, t: NaiveDateTime) -> Ts {
        let at = self
            .tz
            .from_local_datetime(&t)
            .earliest()
            .or_else(|| {
                self.tz
                    .from_local_datetime(&(t + chrono::Duration::hours(1)))
                    .earliest()
            })
            .map(|t| t.with_timezone(&chrono::Utc))
            .unwrap_or_else(|| t.and_utc());
        Ts(at)
    }

    /// An instant as the value of a `datetime-local` input.
    pub fn input_time(&self, t: Ts) -> String {
        t.0.with_timezone(&self.tz)
            .format("%Y-%m-%dT%H:%M")
            .to_string()
    }
}

/// A page rendered as the answer to a form post, at `rest` of this desk: htmx is told the
/// address is that page's, so a reload shows it rather than re-posting.
pub fn page_at<T: askama::Template>(desk: &Desk, code: StatusCode, t: &T, rest: &str) -> Response {
    let mut r = pages::page(code, t);
    if let Ok(v) = axum::http::HeaderValue::from_str(&desk.path(rest)) {
        r.headers_mut().insert("hx-replace-url", v);
    }
    r
}

/// A form field's text, trimmed; `None` when blank.
pub fn opt(s: &str) -> Option<&str> {
    let s = s.trim();
    (!s.is_empty()).then_some(s)
}

/// The body of a post that carries nothing but its CSRF token (a button).
#[derive(Deserialize)]
pub struct Empty {}

/// The time-zone cookie the desk's module sets from the browser (`Intl`); UTC without it.
pub const TZ_COOKIE: &str = "sc_tz";

/// The viewer's time zone: the `sc_tz` cookie when it names one, else UTC.
pub fn viewer_tz(h: &HeaderMap) -> Tz {
    crate::http::cookies::get(h, TZ_COOKIE)
        .and_then(|v| v.replace("%2F", "/").parse::<Tz>().ok())
        .unwrap_or(Tz::UTC)
}

impl FromRequestParts<AppState> for Desk {
    type Rejection = Response;
    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, Response> {
        let (Some(who), Some(ws)) = (
            parts.extensions.get::<SignedIn>().cloned(),
            parts.extensions.get::<Ws>().cloned(),
        ) else {
            // Only a route registered without `Auth::Desk` gets here.
            return Err(pages::error_page(
                &PageUser(None),
                &Error::internal(anyhow::anyhow!("a desk page registered without Auth::Desk")),
            ));
        };
        let tz = viewer_tz(&parts.headers);
        let cat = Catalogue::for_accept_language(
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        let here = parts
            .uri
            .path_and_query()
            .map_or_else(|| "/".to_string(), |p| p.as_str().to_string());
        Ok(Desk {
            who,
            ws,
            tz,
            cat,
            here,
        })
    }
}

/// A desk form post: `application/x-www-form-urlencoded`, from this site, carrying the
/// session's CSRF token in its `csrf` field (403 page otherwise), parsed into `T`. The token is
/// checked before `T` is, so a forged post learns nothing about the form.
pub struct DeskForm<T>(pub T);

#[derive(Deserialize)]
struct CsrfField {
    #[serde(default)]
    csrf: String,
}

impl<T: DeserializeOwned> FromRequest<AppState> for DeskForm<T> {
    type Rejection = Response;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let Some(who) = req.extensions().get::<SignedIn>().cloned() else {
            return Err(pages::sign_in_first(req.uri().path()));
        };
        let page_user = PageUser(Some(who.clone()));
        let bytes: Bytes = pages::form_bytes(req, state, &page_user).await?;
        let given: CsrfField = serde_urlencoded::from_bytes(&bytes).unwrap_or(CsrfField {
            csrf: String::new(),
        });
        pages::check_csrf(&who, &given.csrf).map_err(|e| pages::error_page(&page_user, &e))?;
        serde_urlencoded::from_bytes(&bytes)
            .map(DeskForm)
            .map_err(|_| {
                pages::error_page(
                    &page_user,
                    &Error::bad_request("invalid_body", "the form is incomplete"),
                )
            })
    }
}

/// `?offset=` of a desk list (the page size is the list's own).
#[derive(Deserialize, Default)]
pub struct Offset {
    pub offset: Option<i64>,
}

/// One page of a list: the rows shown, and the offsets of the neighbouring pages.
pub struct Pager {
    pub offset: i64,
    pub shown: usize,
    pub prev: Option<i64>,
    pub next: Option<i64>,
}

impl Pager {
    /// `rows` fetched with `limit + 1`: the extra row only says another page follows.
    pub fn cut<T>(rows: &mut Vec<T>, offset: i64, limit: i64) -> Pager {
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        Pager {
            offset,
            shown: rows.len(),
            prev: (offset > 0).then(|| (offset - limit).max(0)),
            next: more.then_some(offset + limit),
        }
    }
}

/// A URL this service signed (`public_base_url` + path), as a path on this origin: what a page
/// embeds (the CSP allows media and images from 'self' only; tests serve another host name).
pub fn on_this_origin(state: &AppState, url: String) -> String {
    let base = state.cfg.public_base_url.as_str().trim_end_matches('/');
    match url.strip_prefix(base) {
        Some(rest) if rest.starts_with('/') => rest.to_string(),
        _ => url,
    }
}

/// Renames a field of a validation error to the page's own name for it (the API's `atMs` is
/// a page's `at`), so the message is shown beside the page's field.
pub fn rename_field(e: &mut Error, api: &str, page: &str) {
    if let Some(d) = e.details.as_mut()
        && let Some(fs) = d["fields"].as_array_mut()
    {
        for f in fs {
            if f["field"] == api {
                f["field"] = page.into();
            }
        }
    }
}

/// The HTTP status a domain error is shown with.
pub fn status_of(e: &Error) -> StatusCode {
    crate::http::error::status(e.kind)
}
