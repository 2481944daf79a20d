//! The desk's Workspace settings pages under `/w/{ws}/settings/…` (issue 37, part B: audit
//! log, TV devices, coaches, self-enrollment). Each page shows the tabs the member may open
//! (`TABS`, filtered as `layout::SECTIONS` is) through `templates/desk/settings/tabs.html`.

pub mod audit;
pub mod coaches;
pub mod enrollment;
pub mod tv;

use super::Desk;
use super::layout::NavItem;
use shared::authz::{Module, Perm};

/// The settings tabs: (path under the workspace, catalogue key, module, permission of the page).
pub const TABS: &[(&str, &str, Option<Module>, Perm)] = &[
    ("/settings/audit", "set.audit.tab", None, Perm::AuditRead),
    (
        "/settings/tv",
        "set.tv.tab",
        Some(Module::Tv),
        Perm::TvManage,
    ),
    (
        "/settings/coaches",
        "set.coaches.tab",
        None,
        Perm::MembersRead,
    ),
    (
        "/settings/enrollment",
        "set.enrollment.tab",
        Some(Module::Athletes),
        Perm::AthletesRead,
    ),
];

/// The tabs `desk`'s member may open, the current one marked.
pub fn tabs(desk: &Desk) -> Vec<NavItem> {
    let here = desk.here.split('?').next().unwrap_or("");
    TABS.iter()
        .filter(|(_, _, m, p)| m.is_none_or(|m| desk.may(m, *p)) && desk.ws.can(*p))
        .map(|(path, key, _, _)| {
            let href = desk.path(path);
            NavItem {
                current: here == href || here.starts_with(&format!("{href}/")),
                href,
                label: desk.cat.t(key),
            }
        })
        .collect()
}
