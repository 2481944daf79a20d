//! The modules tab: every feature module with a switch, saved as `PATCH /api/orgs/{id}/modules`
//! saves it (`shared::domain::roles::set_modules`, one audit entry naming the changes). A
//! module switched off leaves the desk's navigation and its pages answer 403.

use super::{TabLink, tabs};
use crate::areas::desk::{Chrome, Desk, DeskForm, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use shared::Error;
use shared::authz::Module;
use shared::domain::{orgs, roles};
use std::collections::BTreeMap;

const TAB: &str = "/settings/modules";

/// A module's catalogue key.
pub fn label(m: Module) -> &'static str {
    match m {
        Module::Athletes => "set.module.athletes",
        Module::Training => "set.module.training",
        Module::Footage => "set.module.footage",
        Module::Reviews => "set.module.reviews",
        Module::Wearable => "set.module.wearable",
        Module::Competition => "set.module.competition",
        Module::Messaging => "set.module.messaging",
        Module::Billing => "set.module.billing",
        Module::Tv => "set.module.tv",
    }
}

pub struct Row {
    pub key: &'static str,
    pub name: &'static str,
    pub on: bool,
}

#[derive(Template)]
#[template(path = "desk/settings/modules.html")]
pub struct ModulesPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    action: String,
    rows: Vec<Row>,
    notice: Option<Notice>,
}

async fn modules_page(
    state: &AppState,
    desk: &Desk,
    notice: Option<Notice>,
) -> Result<ModulesPage, Error> {
    let org = orgs::get(&state.db, &desk.acting()).await?;
    let rows = Module::ALL
        .iter()
        .map(|m| Row {
            key: m.key(),
            name: desk.cat.t(label(*m)),
            on: !org.disabled_modules.0.iter().any(|d| d == m.key()),
        })
        .collect();
    Ok(ModulesPage {
        c: Chrome::new(desk, desk.cat.t("set.modules.title")),
        tabs: tabs(desk, TAB),
        action: desk.path(TAB),
        rows,
        notice,
    })
}

pub async fn show(State(state): State<AppState>, desk: Desk) -> Response {
    match modules_page(&state, &desk, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// `POST …/settings/modules`: `module` names each module the form listed, `on` each ticked
/// one; the modules whose state changed are switched as `PATCH /api/orgs/{id}/modules`
/// switches them (nothing is written when none changed).
pub async fn save(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(pairs): DeskForm<Vec<(String, String)>>,
) -> Response {
    let acting = desk.acting();
    let org = match orgs::get(&state.db, &acting).await {
        Ok(o) => o,
        Err(e) => return desk.error(&e),
    };
    let changes: BTreeMap<String, bool> = pairs
        .iter()
        .filter(|(k, _)| k == "module")
        .map(|(_, m)| {
            let on = pairs.iter().any(|(k, v)| k == "on" && v == m);
            (m.clone(), on)
        })
        .filter(|(m, on)| *on == org.disabled_modules.0.iter().any(|d| d == m))
        .collect();
    if changes.is_empty() {
        return desk.done(TAB, "saved");
    }
    let done = match roles::ModuleSwitches::parse(&changes) {
        Ok(s) => roles::set_modules(&state.db, &acting, s).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => desk.done(TAB, "set.modules.saved"),
        Err(e) => {
            let code = status_of(&e);
            match modules_page(&state, &desk, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, code, &p, TAB),
                Err(e) => desk.error(&e),
            }
        }
    }
}
