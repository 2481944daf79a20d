//! `/tv`: the `verificationUri` of TV sign-in (`POST /api/tv/signin/start`). A signed-in user
//! types the XXXX-XXXX code (or arrives with `?code=`, the `verificationUriComplete`), chooses
//! the workspace and names the TV. The claim is `shared::domain::tv::claim`, in the workspace
//! checked as the `POST /api/tv/signin/claim` policy checks it (`tv.manage`, module `tv`), so
//! wrong codes count against the same per-user limit.

use super::{Chrome, Form, Notice, PageUser, check_csrf, error_page, message, page};
use crate::auth::workspace_for;
use crate::http::error::status;
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::accounts::workspaces_of;
use shared::domain::tv::{self as domain, Claim};

#[derive(Template)]
#[template(path = "pages/tv.html")]
pub struct TvPage {
    c: Chrome,
    csrf: String,
    code: String,
    name: String,
    /// (id, name, selected)
    workspaces: Vec<(String, String, bool)>,
    notice: Option<Notice>,
}

#[derive(Deserialize)]
pub struct CodeQuery {
    code: Option<String>,
}

async fn render(
    state: &AppState,
    who: &PageUser,
    code: StatusCode,
    f: TvForm,
    notice: Option<Notice>,
) -> Response {
    let s = who.0.as_ref().expect("signed in");
    let (ms, default) = match workspaces_of(&state.db, &s.caller.user).await {
        Ok(w) => w,
        Err(e) => return error_page(who, &e),
    };
    let chosen = f.workspace.or(default);
    page(
        code,
        &TvPage {
            c: Chrome::new("Sign in a TV", who),
            csrf: s.csrf.clone(),
            code: f.code,
            name: f.name,
            workspaces: ms
                .into_iter()
                .map(|m| {
                    let sel = Some(m.org_id) == chosen;
                    (m.org_id.to_string(), m.org_name, sel)
                })
                .collect(),
            notice,
        },
    )
}

pub async fn show(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<CodeQuery>,
) -> Response {
    if who.0.is_none() {
        let here = match &q.code {
            Some(c) => format!("/tv?code={}", super::encode(c)),
            None => "/tv".into(),
        };
        return super::sign_in_first(&here);
    }
    let f = TvForm {
        code: q.code.unwrap_or_default(),
        ..TvForm::default()
    };
    render(&state, &who, StatusCode::OK, f, None).await
}

#[derive(Deserialize, Default)]
pub struct TvForm {
    #[serde(default)]
    csrf: String,
    #[serde(default, rename = "userCode")]
    code: String,
    #[serde(default)]
    name: String,
    workspace: Option<Id>,
}

pub async fn claim(
    State(state): State<AppState>,
    who: PageUser,
    Form(f): Form<TvForm>,
) -> Response {
    let Some(s) = &who.0 else {
        return super::sign_in_first("/tv");
    };
    if let Err(e) = check_csrf(s, &f.csrf) {
        return error_page(&who, &e);
    }
    let name = Some(f.name.as_str()).filter(|n| !n.trim().is_empty());
    let done = async {
        let c = Claim::parse(&f.code, name, Some(true))?;
        let ws = workspace_for(
            &state,
            &s.caller,
            f.workspace,
            Some(Module::Tv),
            Some(Perm::TvManage),
        )
        .await?;
        let d = domain::claim(&state.db, &ws.acting(&s.caller), c).await?;
        let org = domain::workspace_name(&state.db, ws.org_id).await?;
        Ok::<_, shared::Error>((d.name, org))
    };
    match done.await {
        Ok((tv, org)) => message(
            StatusCode::OK,
            &who,
            "TV signed in",
            &format!("{tv} is now signed in to {org}. It shows the workspace in a few seconds."),
            Some(("/", "Done")),
        ),
        Err(e) => {
            let code = status(e.kind);
            let mut n = Notice::of(&e);
            if e.kind == shared::ErrorKind::NotFound && e.message.contains("TV") {
                n.message = "No TV is waiting with this code. Check the code on the TV screen; codes last 10 minutes.".into();
            }
            let mut r = render(&state, &who, code, f, Some(n)).await;
            if let Some(secs) = e.retry_after_secs {
                r.headers_mut()
                    .insert(axum::http::header::RETRY_AFTER, secs.into());
            }
            r
        }
    }
}
