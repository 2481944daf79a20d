//! What every desk page shows around its content (`templates/desk/layout.html`): the workspace
//! switcher, the navigation by module (a module switched off, or a section the member may not
//! open, is not listed), the signed-in person with the sign-out button, the impersonation
//! banner with its stop button, and the one-time note of the last action.

use super::Desk;
use super::i18n::Catalogue;
use super::seat::Me;
use crate::auth::SignedIn;
use shared::authz::{Module, Perm};
use shared::db::{Id, Ts};

/// One entry of the navigation.
pub struct NavItem {
    pub href: String,
    pub label: &'static str,
    pub current: bool,
}

/// One workspace of the switcher.
pub struct WsItem {
    pub href: String,
    pub name: String,
    pub current: bool,
}

pub struct Chrome {
    pub title: String,
    pub cat: &'static Catalogue,
    pub ws_name: String,
    pub switcher: Vec<WsItem>,
    pub nav: Vec<NavItem>,
    pub user_name: String,
    pub csrf: String,
    /// The impersonated person's name while a platform admin acts as them.
    pub impersonating: Option<String>,
    /// The note of the action that led here (`?done=`), from the catalogue.
    pub done: Option<&'static str>,
    pub tz: String,
    zone: chrono_tz::Tz,
}

/// The sections of the desk: (path under the workspace, catalogue key, module, permission).
const SECTIONS: &[(&str, &str, Option<Module>, Option<Perm>)] = &[
    ("/", "nav.dashboard", None, None),
    (
        "/athletes",
        "nav.athletes",
        Some(Module::Athletes),
        Some(Perm::AthletesRead),
    ),
    (
        "/training",
        "nav.training",
        Some(Module::Training),
        Some(Perm::TrainingRead),
    ),
    (
        "/footage",
        "nav.footage",
        Some(Module::Footage),
        Some(Perm::FootageRead),
    ),
    (
        "/messages",
        "nav.messages",
        Some(Module::Messaging),
        Some(Perm::MessagingUse),
    ),
    (
        "/reviews",
        "nav.reviews",
        Some(Module::Reviews),
        Some(Perm::ReviewsRead),
    ),
    (
        "/coaching",
        "nav.coaching",
        Some(Module::Reviews),
        Some(Perm::ReviewsRead),
    ),
    (
        "/watch",
        "nav.watch",
        Some(Module::Wearable),
        Some(Perm::WearableRead),
    ),
    (
        "/competition",
        "nav.competition",
        Some(Module::Competition),
        Some(Perm::CompetitionRead),
    ),
    (
        "/lessons",
        "nav.lessons",
        Some(Module::Billing),
        Some(Perm::AthletesUpdate),
    ),
    // Listed when the member may open one of its tabs (`settings::first_tab`).
    (SETTINGS, "nav.settings", None, None),
];

/// A person's own pages (`/me/…`): (path, catalogue key).
const PERSONAL: &[(&str, &str)] = &[
    ("/", "nav.home"),
    ("/me/messages", "nav.messages"),
    ("/me/reviews", "nav.reviews"),
    ("/me/payments", "nav.payments"),
    ("/me/notifications", "nav.notifications"),
];

/// The workspaces of the switcher, `current` the one shown.
fn switcher(who: &SignedIn, current: Option<Id>) -> Vec<WsItem> {
    who.memberships
        .iter()
        .map(|m| WsItem {
            href: format!("/w/{}/", m.org_id),
            name: m.org_name.clone(),
            current: Some(m.org_id) == current,
        })
        .collect()
}

/// The catalogue's note for the request's `?done=` (unknown notes show nothing: the URL
/// cannot put text on the page).
fn flash(here: &str, cat: &'static Catalogue) -> Option<&'static str> {
    here.split_once('?')
        .and_then(|(_, q)| {
            url::form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "done")
                .map(|(_, v)| v.into_owned())
        })
        .map(|k| format!("flash.{k}"))
        .filter(|k| Catalogue::has(k))
        .map(|k| cat.t(&k))
}
/// The workspace settings section's path.
const SETTINGS: &str = "/settings";

impl Chrome {
    /// The layout of `desk` for a page titled `title` (a catalogue key's text or a name).
    pub fn new(desk: &Desk, title: impl Into<String>) -> Chrome {
        let ws = &desk.ws;
        let section = desk
            .here
            .strip_prefix(&format!("/w/{}", ws.org_id))
            .unwrap_or("/")
            .split('?')
            .next()
            .unwrap_or("/")
            .to_string();
        let nav = SECTIONS
            .iter()
            .filter(|(path, _, m, p)| {
                m.is_none_or(|m| !ws.disabled_modules.iter().any(|d| d == m.key()))
                    && p.is_none_or(|p| ws.can(p))
                    && (*path != SETTINGS || super::settings::first_tab(ws).is_some())
            })
            .map(|(path, key, _, _)| NavItem {
                href: desk.path(path),
                label: desk.cat.t(key),
                current: if *path == "/" {
                    section == "/" || section.is_empty()
                } else {
                    section.starts_with(path)
                },
            })
            .collect();
        let switcher = switcher(&desk.who, Some(ws.org_id));
        let ws_name = switcher
            .iter()
            .find(|w| w.current)
            .map(|w| w.name.clone())
            .unwrap_or_default();
        let done = flash(&desk.here, desk.cat);
        let caller = &desk.who.caller;
        Chrome {
            title: title.into(),
            cat: desk.cat,
            ws_name,
            switcher,
            nav,
            user_name: caller.user.name.clone(),
            csrf: desk.who.csrf.clone(),
            impersonating: caller.impersonator.map(|_| caller.user.name.clone()),
            done,
            tz: desk.tz.name().to_string(),
            zone: desk.tz,
        }
    }

    /// The layout of a person's own pages (`/me/…`: an athlete's or guardian's, in no
    /// workspace): home, their messages and notification settings; the switcher lists the workspaces they belong to.
    pub fn personal(me: &Me, title: impl Into<String>) -> Chrome {
        let section = me.here.split('?').next().unwrap_or("/");
        let nav = PERSONAL
            .iter()
            .map(|(href, key)| NavItem {
                href: href.to_string(),
                label: me.cat.t(key),
                current: *href != "/" && section.starts_with(href),
            })
            .collect();
        let caller = &me.who.caller;
        Chrome {
            title: title.into(),
            cat: me.cat,
            ws_name: String::new(),
            switcher: switcher(&me.who, None),
            nav,
            user_name: caller.user.name.clone(),
            csrf: me.who.csrf.clone(),
            impersonating: caller.impersonator.map(|_| caller.user.name.clone()),
            done: flash(&me.here, me.cat),
            tz: me.tz.name().to_string(),
            zone: me.tz,
        }
    }

    /// The layout of the platform admin console (`/admin/…`): its own sections, no workspace
    /// switcher (the admin acts as no member there), the banner while impersonating.
    pub fn console(con: &super::admin::Console, title: impl Into<String>) -> Chrome {
        let section = con.here.split('?').next().unwrap_or("/admin");
        let nav = super::admin::SECTIONS
            .iter()
            .map(|(href, key)| NavItem {
                href: href.to_string(),
                label: con.cat.t(key),
                current: if *href == "/admin" {
                    section == "/admin"
                } else {
                    section.starts_with(href)
                },
            })
            .collect();
        Chrome {
            title: title.into(),
            cat: con.cat,
            ws_name: con.cat.t("adm.title").to_string(),
            switcher: Vec::new(),
            nav,
            user_name: con.who.caller.user.name.clone(),
            csrf: con.who.csrf.clone(),
            impersonating: con.impersonating.clone(),
            done: flash(&con.here, con.cat),
            tz: con.tz.name().to_string(),
            zone: con.tz,
        }
    }

    /// A catalogue text.
    pub fn t(&self, key: &str) -> &'static str {
        self.cat.t(key)
    }

    /// A catalogue text with one placeholder filled.
    pub fn t1(&self, key: &str, name: &str, value: &str) -> String {
        self.cat.fill(key, &[(name, value)])
    }

    /// A catalogue text with two placeholders filled.
    pub fn t2(&self, key: &str, a: &(&str, &str), b: &(&str, &str)) -> String {
        self.cat.fill(key, &[*a, *b])
    }

    /// A time in the viewer's zone, as `2026-11-28 09:30`.
    pub fn time(&self, t: &Ts) -> String {
        t.0.with_timezone(&self.zone)
            .format("%Y-%m-%d %H:%M")
            .to_string()
    }

    /// An RFC 3339 instant for `<time datetime>`.
    pub fn iso(&self, t: &Ts) -> String {
        t.0.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }
}
