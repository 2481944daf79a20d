//! The workspace settings pages of the desk (issue 37, `docs/web.md`): one module per tab
//! (members, roles, invites, modules, audit log, TV devices, coaches, self-enrollment), each
//! calling the operations the JSON handlers of `areas::{members, roles, invites, orgs, tv,
//! coaches, athletes}` call. [`TABS`] is the one list of tabs: the
//! settings sub-navigation (`templates/desk/settings/tabs.html`) shows the ones the member may
//! open, `/w/{ws}/settings` leads to the first of them, and the desk's navigation lists the
//! "Workspace" section only when there is one. A new settings page adds its row here and its
//! routes in `routes/desk.rs` with the same permission and module.

pub mod audit;
pub mod billing;
pub mod coaches;
pub mod enrollment;
pub mod integrations;
pub mod invites;
pub mod members;
pub mod modules;
pub mod roles;
pub mod tv;

use super::Desk;
use crate::areas::pages::see_other;
use crate::auth::Ws;
use axum::http::HeaderMap;
use axum::response::Response;
use shared::Error;
use shared::authz::{Module, Perm};

/// One tab of the settings: its path under the workspace, its catalogue key, and what the
/// member needs to open it (the permission and module of its `GET` route).
pub struct Tab {
    pub path: &'static str,
    pub label: &'static str,
    pub perm: Perm,
    pub module: Option<Module>,
}

/// The settings tabs, in the order shown.
pub const TABS: &[Tab] = &[
    Tab {
        path: "/settings/members",
        label: "set.tab.members",
        perm: Perm::MembersRead,
        module: None,
    },
    Tab {
        path: "/settings/roles",
        label: "set.tab.roles",
        perm: Perm::MembersRead,
        module: None,
    },
    Tab {
        path: "/settings/invites",
        label: "set.tab.invites",
        perm: Perm::MembersRead,
        module: None,
    },
    Tab {
        path: "/settings/modules",
        label: "set.tab.modules",
        perm: Perm::ModulesManage,
        module: None,
    },
    Tab {
        path: audit::TAB,
        label: "set.audit.tab",
        perm: Perm::AuditRead,
        module: None,
    },
    Tab {
        path: tv::TAB,
        label: "set.tv.tab",
        perm: Perm::TvManage,
        module: Some(Module::Tv),
    },
    Tab {
        path: coaches::TAB,
        label: "set.coaches.tab",
        perm: Perm::MembersRead,
        module: None,
    },
    Tab {
        path: enrollment::TAB,
        label: "set.enrollment.tab",
        perm: Perm::AthletesRead,
        module: Some(Module::Athletes),
    },
    Tab {
        path: billing::TAB,
        label: "bill.tab",
        perm: Perm::BillingManage,
        module: None,
    },
    Tab {
        path: integrations::TAB,
        label: "intg.tab",
        perm: Perm::ReviewsRead,
        module: None,
    },
];

impl Tab {
    /// Whether the member of `ws` may open this tab.
    pub fn open_to(&self, ws: &Ws) -> bool {
        self.module
            .is_none_or(|m| !ws.disabled_modules.iter().any(|d| d == m.key()))
            && ws.can(self.perm)
    }
}

/// The first tab the member of `ws` may open (the settings section is listed only with one).
pub fn first_tab(ws: &Ws) -> Option<&'static Tab> {
    TABS.iter().find(|t| t.open_to(ws))
}

/// One entry of the settings sub-navigation.
pub struct TabLink {
    pub href: String,
    pub label: &'static str,
    pub current: bool,
}

/// The tabs the member may open, the one at `current` (a [`Tab::path`]) marked.
pub fn tabs(desk: &Desk, current: &str) -> Vec<TabLink> {
    TABS.iter()
        .filter(|t| t.open_to(&desk.ws))
        .map(|t| TabLink {
            href: desk.path(t.path),
            label: desk.cat.t(t.label),
            current: t.path == current,
        })
        .collect()
}

/// `GET /w/{ws}/settings`: the first settings page the member may open (a 403 page when none).
pub async fn index(desk: Desk) -> Response {
    match first_tab(&desk.ws) {
        Some(t) => see_other(&desk.path(t.path), HeaderMap::new()),
        None => desk.error(&Error::forbidden(
            "permission_denied",
            "you may not open this workspace's settings",
        )),
    }
}

/// Whether a failed post's error is a missing row (another workspace's): shown as a whole 404
/// page, as for a read, rather than on the page the form was on.
pub fn missing(e: &Error) -> bool {
    e.kind == shared::ErrorKind::NotFound
}
