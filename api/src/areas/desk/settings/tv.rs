//! The TV devices page: the workspace's signed-in TVs, pairing a TV by the code it shows (as
//! `POST /api/tv/signin/claim`: `tv::claim`, whose misses count against the member's limit),
//! renaming one (`tv::rename`) and signing one out behind a confirmation page
//! (`tv::sign_out`). Module `tv`, permission `tv.manage`, as the JSON routes.

use super::super::{Chrome, Desk, DeskForm, Empty, opt, page_at, status_of};
use super::{TabLink, tabs};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::tv::{self as domain, Claim};
use shared::{Error, ErrorKind};

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/tv";

pub struct DeviceRow {
    pub id: Id,
    pub name: String,
    pub claimed: String,
    pub iso: String,
    pub rename_action: String,
    pub signout_href: String,
    /// The name typed when a rename of this TV failed, and why.
    pub typed: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "desk/settings/tv.html")]
pub struct TvPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    pair_action: String,
    code: String,
    name: String,
    rows: Vec<DeviceRow>,
    notice: Option<Notice>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PairForm {
    #[serde(default)]
    user_code: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize, Default)]
pub struct RenameForm {
    #[serde(default)]
    name: String,
}

/// The page, with what was typed into the pairing form, or the failed rename of one TV.
async fn tv_page(
    state: &AppState,
    desk: &Desk,
    pair: &PairForm,
    rename: Option<(Id, &str, &Error)>,
    notice: Option<Notice>,
) -> Result<TvPage, Error> {
    let devices = domain::list(&state.db, &desk.acting()).await?;
    let rows = devices
        .into_iter()
        .map(|d| {
            let typed = rename.filter(|(id, _, _)| *id == d.id).map(|(_, n, e)| {
                let n2 = Notice::of(e);
                let why = n2.field("name").unwrap_or(&n2.message).to_string();
                (n.to_string(), why)
            });
            DeviceRow {
                rename_action: desk.path(&format!("/settings/tv/{}/rename", d.id)),
                signout_href: desk.path(&format!("/settings/tv/{}/signout", d.id)),
                claimed: d.claimed_at.map(|t| desk.time(t)).unwrap_or_default(),
                iso: d.claimed_at.map(|t| t.0.to_rfc3339()).unwrap_or_default(),
                id: d.id,
                name: d.name,
                typed,
            }
        })
        .collect();
    Ok(TvPage {
        c: Chrome::new(desk, desk.cat.t("set.tv.title")),
        tabs: tabs(desk, TAB),
        pair_action: desk.path("/settings/tv/pair"),
        code: pair.user_code.clone(),
        name: pair.name.clone(),
        rows,
        notice,
    })
}

pub async fn show(State(state): State<AppState>, desk: Desk) -> Response {
    match tv_page(&state, &desk, &PairForm::default(), None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Pairs the TV showing the code: as the claim of `POST /api/tv/signin/claim`, approved.
pub async fn pair(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<PairForm>,
) -> Response {
    let claimed = match Claim::parse(&f.user_code, opt(&f.name), Some(true)) {
        Ok(c) => domain::claim(&state.db, &desk.acting(), c).await,
        Err(e) => Err(e),
    };
    let e = match claimed {
        Ok(_) => return desk.done("/settings/tv", "set.tv.paired"),
        Err(e) => e,
    };
    let mut n = Notice::of(&e);
    // No TV waits with this code: said beside the code, as the API's 404 means it.
    if e.kind == ErrorKind::NotFound {
        let why = desk.cat.t("set.tv.no_such_code");
        n.message = why.to_string();
        n.fields = vec![("userCode".into(), why.into())];
    }
    match tv_page(&state, &desk, &f, None, Some(n)).await {
        Ok(p) => {
            let mut r = page_at(&desk, status_of(&e), &p, "/settings/tv");
            if let Some(secs) = e.retry_after_secs {
                r.headers_mut().insert(header::RETRY_AFTER, secs.into());
            }
            r
        }
        Err(e2) => desk.error(&e2),
    }
}

pub async fn rename(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<RenameForm>,
) -> Response {
    match domain::rename(&state.db, &desk.acting(), id, &f.name).await {
        Ok(_) => desk.done("/settings/tv", "set.tv.renamed"),
        Err(e) if e.code == "validation_failed" => {
            let n = Notice::of(&e);
            let shown = tv_page(
                &state,
                &desk,
                &PairForm::default(),
                Some((id, &f.name, &e)),
                Some(Notice {
                    message: n.message,
                    fields: vec![],
                }),
            )
            .await;
            match shown {
                Ok(p) => page_at(&desk, status_of(&e), &p, "/settings/tv"),
                Err(e2) => desk.error(&e2),
            }
        }
        Err(e) => desk.error(&e),
    }
}

#[derive(Template)]
#[template(path = "desk/settings/tv_signout.html")]
pub struct SignOutPage {
    c: Chrome,
    name: String,
    action: String,
    cancel: String,
}

pub async fn signout_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    let found = domain::list(&state.db, &desk.acting())
        .await
        .and_then(|ds| {
            ds.into_iter()
                .find(|d| d.id == id)
                .ok_or_else(|| Error::not_found("TV"))
        });
    match found {
        Ok(d) => page(
            StatusCode::OK,
            &SignOutPage {
                c: Chrome::new(
                    &desk,
                    desk.cat.fill("set.tv.signout_title", &[("name", &d.name)]),
                ),
                name: d.name,
                action: desk.path(&format!("/settings/tv/{id}/signout")),
                cancel: desk.path("/settings/tv"),
            },
        ),
        Err(e) => desk.error(&e),
    }
}

pub async fn sign_out(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::sign_out(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done("/settings/tv", "set.tv.signed_out"),
        Err(e) => desk.error(&e),
    }
}
