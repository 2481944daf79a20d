//! Who is looking at a page shared by the desk and a person's own pages: a member at a
//! workspace's desk ([`Desk`], under `/w/{ws}/…`), or an athlete or guardian, who belong to no
//! workspace, at their own pages ([`Me`], under `/me/…`). The messages pages serve both: a
//! conversation has a coach side (members) and an athlete side (the athlete, their guardians
//! reading along), and both read it through the same domain operations.

use super::i18n::Catalogue;
use super::layout::Chrome;
use super::{Desk, viewer_tz};
use crate::areas::pages::{self, PageUser};
use crate::auth::SignedIn;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::Response;
use chrono_tz::Tz;
use shared::Error;
use shared::db::{Id, Ts};
use shared::domain::Actor;

/// A page's viewer, as the pages both kinds of person use see them.
pub trait Seat: FromRequestParts<AppState, Rejection = Response> + Send + Sync + 'static {
    fn who(&self) -> &SignedIn;
    fn tz(&self) -> Tz;
    fn cat(&self) -> &'static Catalogue;
    /// The workspace the page is inside; `None`: all of the person's.
    fn org(&self) -> Option<Id>;
    /// A path of this seat's pages: `/w/{ws}{rest}` or `/me{rest}`.
    fn path(&self, rest: &str) -> String;
    /// The layout around a page titled `title`.
    fn chrome(&self, title: String) -> Chrome;

    fn actor(&self) -> Actor {
        self.who().caller.actor()
    }

    /// A time in the viewer's zone, as `2026-11-28 09:30`.
    fn time(&self, t: Ts) -> String {
        t.0.with_timezone(&self.tz())
            .format("%Y-%m-%d %H:%M")
            .to_string()
    }

    /// A domain error as a whole page.
    fn error(&self, e: &Error) -> Response {
        pages::error_page(&PageUser(Some(self.who().clone())), e)
    }

    /// A 303 to one of this seat's paths with a `done` note the page shows once.
    fn done(&self, rest: &str, note: &str) -> Response {
        // The note goes in the query, before a fragment (`…#labels`) that places the page.
        let (path, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let sep = if path.contains('?') { '&' } else { '?' };
        let hash = if fragment.is_empty() { "" } else { "#" };
        pages::see_other(
            &self.path(&format!("{path}{sep}done={note}{hash}{fragment}")),
            HeaderMap::new(),
        )
    }
}

impl Seat for Desk {
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
        Some(self.ws.org_id)
    }
    fn path(&self, rest: &str) -> String {
        Desk::path(self, rest)
    }
    fn chrome(&self, title: String) -> Chrome {
        Chrome::new(self, title)
    }
    fn actor(&self) -> Actor {
        self.acting().actor
    }
}

/// A signed-in person at their own pages (`/me/…`), whatever workspaces they belong to. The
/// route's policy is `Auth::Page`; without a session the browser is sent to sign in first.
pub struct Me {
    pub who: SignedIn,
    pub tz: Tz,
    pub cat: &'static Catalogue,
    /// The request's path (and query).
    pub here: String,
}

impl Seat for Me {
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
        format!("/me{rest}")
    }
    fn chrome(&self, title: String) -> Chrome {
        Chrome::personal(self, title)
    }
}

impl FromRequestParts<AppState> for Me {
    type Rejection = Response;
    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, Response> {
        let here = parts
            .uri
            .path_and_query()
            .map_or_else(|| "/".to_string(), |p| p.as_str().to_string());
        let Some(who) = parts.extensions.get::<SignedIn>().cloned() else {
            return Err(pages::sign_in_first(&here));
        };
        let cat = Catalogue::for_accept_language(
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        Ok(Me {
            who,
            tz: viewer_tz(&parts.headers),
            cat,
            here,
        })
    }
}
