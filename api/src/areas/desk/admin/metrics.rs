//! The console's overview: the platform's counts (`GET /api/admin/metrics`) and live activity
//! (`GET /api/admin/live-metrics`), the live part polled every 5 s by htmx (without script the
//! page is reloaded to see newer numbers). Calls `admin::metrics` and `admin::live`.

use super::Console;
use crate::areas::desk::{Chrome, Seat};
use crate::areas::pages::page;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use shared::domain::admin;

pub struct Event {
    pub time: String,
    pub iso: String,
    pub kind: String,
    pub path: String,
    /// (id, its first 8 characters) of the user and the workspace, each a link.
    pub user: Option<(String, String)>,
    pub org: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "desk/admin/overview.html")]
pub struct Overview {
    c: Chrome,
    counts: Vec<(&'static str, i64)>,
    jobs: Vec<(String, i64)>,
    live: Vec<(&'static str, i64)>,
    events: Vec<Event>,
}

pub async fn show(State(state): State<AppState>, con: Console) -> Response {
    let (m, l) = match tokio::try_join!(admin::metrics(&state.db), admin::live(&state.db)) {
        Ok(both) => both,
        Err(e) => return con.error(&e),
    };
    let t = |k| con.cat.t(k);
    let counts = vec![
        (t("adm.m.users"), m.users),
        (t("adm.m.users_verified"), m.users_verified),
        (t("adm.m.signups_7d"), m.users_since),
        (t("adm.m.workspaces"), m.workspaces),
        (t("adm.m.members"), m.members),
        (t("adm.m.waitlist"), m.waitlist_pending),
        (t("adm.m.sessions"), m.active_sessions),
    ];
    let live = vec![
        (t("adm.live.events_5m"), l.events_last_5_minutes),
        (t("adm.live.users_5m"), l.active_users_last_5_minutes),
        (t("adm.live.users_1h"), l.active_users_last_hour),
    ];
    let events = l
        .recent
        .into_iter()
        .map(|e| Event {
            time: con.time(e.created_at),
            iso: e.created_at.0.to_rfc3339(),
            kind: e.kind,
            path: e.path.unwrap_or_default(),
            user: e.user_id.map(short),
            org: e.org_id.map(short),
        })
        .collect();
    let c = con.chrome(con.cat.t("adm.overview").to_string());
    page(
        StatusCode::OK,
        &Overview {
            c,
            counts,
            jobs: m.jobs_by_status,
            live,
            events,
        },
    )
}

/// An id and its first 8 characters (what a table shows of it).
pub fn short(id: shared::db::Id) -> (String, String) {
    let s = id.to_string();
    let head = s[..8].to_string();
    (s, head)
}
