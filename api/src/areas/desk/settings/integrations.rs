//! The integrations tab: connecting one's own account at the video-review provider (OAuth,
//! started as `GET /api/auth/reviewvideo` starts it; the provider's callback, the JSON route,
//! ends on `/settings/integrations`, which sends the browser back here), and for each provider
//! of this service's configuration what it enables, or why that is unavailable. Reading needs
//! `reviews.read` (every role has it): the connection is the member's own, and the list says
//! only whether each provider is configured, never how.

use super::super::leave::{back_to_workspace, leave};
use super::super::{Chrome, Desk, DeskForm, Empty};
use super::{TabLink, tabs};
use crate::areas::pages::page;
use crate::areas::reviewvideo::redirect_uri;
use crate::auth::SignedIn;
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::config::Config;
use shared::domain::reviewvideo as domain;

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/integrations";

/// A provider of the configuration: its name, and the catalogue's sentence for what it
/// enables (configured) or what is unavailable without it.
pub struct ProviderRow {
    pub name: &'static str,
    pub configured: bool,
    pub says: &'static str,
}

/// (name key, enabled key, unavailable key, configured?) for each optional provider.
type Probe = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Config) -> bool,
);

const PROVIDERS: &[Probe] = &[
    (
        "intg.p.payments",
        "intg.p.payments.on",
        "intg.p.payments.off",
        |c| c.payments.is_some(),
    ),
    (
        "intg.p.reviewvideo",
        "intg.p.reviewvideo.on",
        "intg.p.reviewvideo.off",
        |c| c.reviewvideo.is_some(),
    ),
    (
        "intg.p.analysis",
        "intg.p.analysis.on",
        "intg.p.analysis.off",
        |c| c.analysis.is_some(),
    ),
    ("intg.p.model", "intg.p.model.on", "intg.p.model.off", |c| {
        c.model.is_some()
    }),
    (
        "intg.p.heatsource",
        "intg.p.heatsource.on",
        "intg.p.heatsource.off",
        |c| c.heatsource.is_some(),
    ),
    (
        "intg.p.tourindex",
        "intg.p.tourindex.on",
        "intg.p.tourindex.off",
        |c| c.tourindex.is_some(),
    ),
    (
        "intg.p.spotsource",
        "intg.p.spotsource.on",
        "intg.p.spotsource.off",
        |c| c.spotsource.is_some(),
    ),
    (
        "intg.p.openmeteo",
        "intg.p.openmeteo.on",
        "intg.p.openmeteo.off",
        |c| c.openmeteo.is_some(),
    ),
    ("intg.p.smtp", "intg.p.smtp.on", "intg.p.smtp.off", |c| {
        c.smtp.is_some()
    }),
    (
        "intg.p.twilio",
        "intg.p.twilio.on",
        "intg.p.twilio.off",
        |c| c.twilio.is_some(),
    ),
    ("intg.p.expo", "intg.p.expo.on", "intg.p.expo.off", |c| {
        c.expo.is_some()
    }),
    ("intg.p.fcm", "intg.p.fcm.on", "intg.p.fcm.off", |c| {
        c.fcm.is_some()
    }),
];

#[derive(Template)]
#[template(path = "desk/billing/integrations.html")]
pub struct IntegrationsPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    /// The video-review provider is configured (else why connecting is unavailable).
    rv_configured: bool,
    /// Since when the member's account there is connected, and the scope granted.
    rv_connected: Option<(String, String, String)>,
    just_connected: bool,
    connect_action: String,
    providers: Vec<ProviderRow>,
}

#[derive(Deserialize, Default)]
pub struct IntegrationsQuery {
    reviewvideo: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<IntegrationsQuery>,
) -> Response {
    let conn = match domain::connection(&state.db, desk.who.caller.user.id).await {
        Ok(c) => c,
        Err(e) => return desk.error(&e),
    };
    let cfg = &state.cfg;
    page(
        StatusCode::OK,
        &IntegrationsPage {
            c: Chrome::new(&desk, desk.cat.t("intg.title")),
            tabs: tabs(&desk, TAB),
            rv_configured: state.reviewvideo.is_some(),
            rv_connected: conn.map(|c| {
                (
                    desk.time(c.updated_at),
                    c.updated_at.0.to_rfc3339(),
                    c.scope,
                )
            }),
            just_connected: q.reviewvideo.as_deref() == Some("connected"),
            connect_action: desk.path("/settings/integrations/reviewvideo"),
            providers: PROVIDERS
                .iter()
                .map(|(name, on, off, probe)| {
                    let configured = probe(cfg);
                    ProviderRow {
                        name: desk.cat.t(name),
                        configured,
                        says: desk.cat.t(if configured { on } else { off }),
                    }
                })
                .collect(),
        },
    )
}

/// Starts the authorization for this sign-in (as `GET /api/auth/reviewvideo`) and opens the
/// provider's page; unconfigured: the 503 page that says so.
pub async fn connect(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let url = async {
        let rv = domain::client(state.reviewvideo.as_ref())?;
        let caller = &desk.who.caller;
        domain::start(
            &state.db,
            &state.keys,
            rv,
            caller.actor(),
            &caller.sign_in_ref(),
            &redirect_uri(&state),
        )
        .await
    }
    .await;
    match url {
        Ok(url) => leave(desk.cat, &url, Some(desk.org())),
        Err(e) => desk.error(&e),
    }
}

/// Where `/settings/integrations` sends a member: this tab of the workspace they left from.
pub fn back(headers: &HeaderMap, who: &SignedIn, query: Option<&str>) -> Response {
    back_to_workspace(headers, who, TAB, query)
}
