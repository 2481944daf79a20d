//! Who may sign up, in the console: the signup mode (`GET/PATCH /api/admin/settings`), the
//! waitlist with its invite button (`GET /api/admin/waitlist`, `POST
//! /api/admin/waitlist/{id}/invite`) and signup invites (`GET/POST /api/admin/invites`, `DELETE
//! /api/admin/invites/{id}`), on one page. A created invite's link is shown once, on the page
//! that answers the post (as the API's answer carries the code once).

use super::{Console, PAGE_SIZE};
use crate::areas::desk::{Chrome, DeskForm, Empty, Pager, Seat, opt, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::config::SignupMode;
use shared::db::{Id, TextEnum, Ts};
use shared::domain::admin::{self, SignupInviteStatus};
use shared::error::Validator;

/// The two lists' offsets (each list pages on its own).
#[derive(Deserialize, Default, Clone, Copy)]
pub struct SignupQuery {
    wl: Option<i64>,
    inv: Option<i64>,
}

impl SignupQuery {
    fn href(self) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in [("wl", self.wl), ("inv", self.inv)] {
            if let Some(n) = v.filter(|n| *n > 0) {
                s.append_pair(k, &n.to_string());
            }
        }
        let qs = s.finish();
        if qs.is_empty() {
            "/admin/signup".into()
        } else {
            format!("/admin/signup?{qs}")
        }
    }
}

pub struct WaitRow {
    pub id: Id,
    pub email: String,
    pub name: String,
    pub note: String,
    pub created: String,
    pub invited: String,
}

pub struct InviteRow {
    pub id: Id,
    pub email: String,
    pub status: &'static str,
    pub pending: bool,
    pub created: String,
    pub expires: String,
}

/// What the invite form holds (typed values stay after a refusal).
#[derive(Deserialize, Default)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    expires_in_days: String,
}

#[derive(Template)]
#[template(path = "desk/admin/signup.html")]
pub struct SignupPage {
    c: Chrome,
    mode: String,
    mode_default: &'static str,
    modes: &'static [&'static str],
    waitlist: Vec<WaitRow>,
    wl_prev: Option<String>,
    wl_next: Option<String>,
    invites: Vec<InviteRow>,
    inv_prev: Option<String>,
    inv_next: Option<String>,
    email: String,
    days: String,
    /// The link of an invite just created (shown once).
    created: Option<String>,
    notice: Option<Notice>,
}

async fn signup_page(
    state: &AppState,
    con: &Console,
    q: SignupQuery,
    form: InviteForm,
    created: Option<String>,
    notice: Option<Notice>,
) -> shared::Result<SignupPage> {
    let (wl, inv) = (q.wl.unwrap_or(0).max(0), q.inv.unwrap_or(0).max(0));
    let mode = {
        let mut c = state.db.acquire().await?;
        admin::signup_mode(&mut c, state.cfg.signup_mode_default).await?
    };
    let mut wrows = admin::waitlist(&state.db, PAGE_SIZE + 1, wl).await?;
    let wp = Pager::cut(&mut wrows, wl, PAGE_SIZE);
    let mut irows = admin::signup_invites(&state.db, PAGE_SIZE + 1, inv).await?;
    let ip = Pager::cut(&mut irows, inv, PAGE_SIZE);
    let now = Ts::now();
    let at = |wl, inv| SignupQuery { wl, inv }.href();
    Ok(SignupPage {
        c: con.chrome(con.cat.t("adm.signup").to_string()),
        mode: mode.as_str().to_string(),
        mode_default: state.cfg.signup_mode_default.as_str(),
        modes: <SignupMode as TextEnum>::NAMES,
        waitlist: wrows
            .into_iter()
            .map(|e| WaitRow {
                id: e.id,
                email: e.email,
                name: e.name.unwrap_or_default(),
                note: e.note.unwrap_or_default(),
                created: con.time(e.created_at),
                invited: e.invited_at.map(|t| con.time(t)).unwrap_or_default(),
            })
            .collect(),
        wl_prev: wp.prev.map(|o| at(Some(o), q.inv)),
        wl_next: wp.next.map(|o| at(Some(o), q.inv)),
        invites: irows
            .into_iter()
            .map(|i| {
                let status = admin::signup_invite_status(&i, now);
                InviteRow {
                    id: i.id,
                    email: i.email.unwrap_or_default(),
                    status: status.as_str(),
                    pending: status == SignupInviteStatus::Pending,
                    created: con.time(i.created_at),
                    expires: i.expires_at.map(|t| con.time(t)).unwrap_or_default(),
                }
            })
            .collect(),
        inv_prev: ip.prev.map(|o| at(q.wl, Some(o))),
        inv_next: ip.next.map(|o| at(q.wl, Some(o))),
        email: form.email,
        days: if form.expires_in_days.is_empty() {
            "14".into()
        } else {
            form.expires_in_days
        },
        created,
        notice,
    })
}

pub async fn show(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<SignupQuery>,
) -> Response {
    match signup_page(&state, &con, q, InviteForm::default(), None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

/// The page again after a post: with the new invite's link (200), or with the refusal at the
/// API's status (a 404 is a whole page).
async fn again(
    state: &AppState,
    con: Console,
    r: Result<Option<String>, Error>,
    form: InviteForm,
) -> Response {
    let (code, created, notice) = match r {
        Err(e) if e.kind == shared::ErrorKind::NotFound => return con.error(&e),
        Err(e) => (status_of(&e), None, Some(Notice::of(&e))),
        Ok(link) => (StatusCode::OK, link, None),
    };
    let q = SignupQuery::default();
    match signup_page(state, &con, q, form, created, notice).await {
        Ok(p) => con.page_at(code, &p, "/signup"),
        Err(e) => con.error(&e),
    }
}

#[derive(Deserialize)]
pub struct ModeForm {
    #[serde(default)]
    signup_mode: String,
}

/// `POST /admin/signup/mode`: as `PATCH /api/admin/settings` with `signupMode` (audited).
pub async fn set_mode(
    State(state): State<AppState>,
    con: Console,
    DeskForm(f): DeskForm<ModeForm>,
) -> Response {
    let r = async {
        let mut v = Validator::new();
        let mode = v.choice_of::<SignupMode>("signup_mode", f.signup_mode.trim());
        v.finish()?;
        admin::set_signup_mode(&state.db, con.actor(), mode.expect("validated")).await
    }
    .await;
    match r {
        Ok(()) => con.done("/signup", "saved"),
        Err(e) => again(&state, con, Err(e), InviteForm::default()).await,
    }
}

/// `POST /admin/signup/invites`: as `POST /api/admin/invites` (mailed when it names an
/// address; audited); the page shows the link once.
pub async fn create_invite(
    State(state): State<AppState>,
    con: Console,
    DeskForm(f): DeskForm<InviteForm>,
) -> Response {
    let r = async {
        let mut v = Validator::new();
        let days = match opt(&f.expires_in_days) {
            None => None,
            Some(s) => s.parse::<i64>().map(Some).unwrap_or_else(|_| {
                v.add("expires_in_days", "invalid", "a whole number of days");
                None
            }),
        };
        v.finish()?;
        let new = admin::NewSignupInvite::parse(opt(&f.email), days)?;
        let c = admin::create_signup_invite(&state.db, &state.cfg, &state.mailer, con.actor(), new)
            .await?;
        Ok(Some(c.signup_url))
    }
    .await
    .map_err(|mut e: Error| {
        rename_field(&mut e, "expiresInDays", "expires_in_days");
        e
    });
    let form = if r.is_ok() { InviteForm::default() } else { f };
    again(&state, con, r, form).await
}

/// `POST /admin/signup/waitlist/{id}/invite`: as `POST /api/admin/waitlist/{id}/invite` (a
/// 14-day invite mailed to them, the entry marked invited; audited).
pub async fn invite_waiting(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let r = admin::invite_from_waitlist(&state.db, &state.cfg, &state.mailer, con.actor(), id)
        .await
        .map(|c| Some(c.signup_url));
    again(&state, con, r, InviteForm::default()).await
}

/// `POST /admin/signup/invites/{id}/revoke`: as `DELETE /api/admin/invites/{id}` (a used,
/// expired or unknown one: 404; audited).
pub async fn revoke_invite(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match admin::revoke_signup_invite(&state.db, con.actor(), id).await {
        Ok(()) => con.done("/signup", "adm.revoked"),
        Err(e) => con.error(&e),
    }
}
