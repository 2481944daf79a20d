//! The desk's CSV imports (roster, past training sessions): choose a file, see a preview that
//! checks every line as the import would (a dry run, nothing written) and lists each error by
//! line, then import: in the request when small, else as a job whose page shows its progress
//! and leads back. The same pipeline as `POST /api/…/import` (`areas::imports::run_now`,
//! `shared::import::start`).

use super::upload::DeskUpload;
use super::{Chrome, Desk};
use crate::areas::imports::{SYNC_MAX_BYTES, run_now};
use crate::areas::pages::{Notice, encode, page, see_other};
use crate::state::AppState;
use askama::Template;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::import::{Background, Report};

/// One import of the desk: where it lives, where it leads, its texts (catalogue keys).
pub struct Kind {
    /// The form's path under the workspace; the commit is `{path}/commit`.
    pub path: &'static str,
    /// Where the browser goes when the import is done.
    pub done: &'static str,
    pub title: &'static str,
    pub help: &'static str,
    /// The import button, with `{count}`.
    pub commit: &'static str,
}

#[derive(Template)]
#[template(path = "desk/import.html")]
pub struct ImportPage {
    c: Chrome,
    help: &'static str,
    commit_label: &'static str,
    action: String,
    commit: String,
    report: Option<Report>,
    csv: String,
    notice: Option<Notice>,
}

fn render(
    desk: &Desk,
    kind: &Kind,
    report: Option<Report>,
    csv: String,
    notice: Option<Notice>,
) -> ImportPage {
    ImportPage {
        c: Chrome::new(desk, desk.cat.t(kind.title)),
        help: desk.cat.t(kind.help),
        commit_label: kind.commit,
        action: desk.path(kind.path),
        commit: desk.path(&format!("{}/commit", kind.path)),
        report,
        csv,
        notice,
    }
}

pub fn form(desk: &Desk, kind: &Kind) -> Response {
    page(
        StatusCode::OK,
        &render(desk, kind, None, String::new(), None),
    )
}

/// The preview: the file checked line by line (a dry run), nothing written.
pub async fn preview<I: Background>(
    state: &AppState,
    desk: &Desk,
    kind: &Kind,
    importer: &I,
    up: DeskUpload,
) -> Response {
    let (who, ws) = (&desk.who.caller, &desk.ws);
    match run_now(state, who, ws, importer, true, &up.bytes).await {
        Ok(r) => {
            let code = if r.error_count > 0 {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            };
            let csv = String::from_utf8(up.bytes).unwrap_or_default();
            page(code, &render(desk, kind, Some(r), csv, None))
        }
        Err(e) => page(
            super::status_of(&e),
            &render(desk, kind, None, String::new(), Some(Notice::of(&e))),
        ),
    }
}

#[derive(Deserialize)]
pub struct CommitForm {
    #[serde(default)]
    csv: String,
}

/// Imports the previewed file.
pub async fn commit<I: Background>(
    state: &AppState,
    desk: &Desk,
    kind: &Kind,
    importer: I,
    f: CommitForm,
) -> Response {
    let data = f.csv.into_bytes();
    let user = desk.who.caller.user.id;
    if data.len() > SYNC_MAX_BYTES {
        return match shared::import::start::<I>(&state.db, desk.org(), user, false, data).await {
            Ok(enq) => {
                let job = desk.path(&format!("/jobs/{}", enq.id));
                let back = encode(&desk.path(kind.done));
                see_other(&format!("{job}?back={back}"), HeaderMap::new())
            }
            Err(e) => desk.error(&e),
        };
    }
    match run_now(state, &desk.who.caller, &desk.ws, &importer, false, &data).await {
        Ok(r) if r.error_count == 0 => desk.done(kind.done, "imported"),
        Ok(r) => {
            let csv = String::from_utf8(data).unwrap_or_default();
            page(
                StatusCode::BAD_REQUEST,
                &render(desk, kind, Some(r), csv, None),
            )
        }
        Err(e) => desk.error(&e),
    }
}
