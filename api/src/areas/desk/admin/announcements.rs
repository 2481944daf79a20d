//! Announcements in the console: the form that sends one to everyone or one workspace's
//! members (`POST /api/admin/notifications`: the `notifications.announce` job, audited), and
//! the notifications sent lately with each channel's delivery (`GET /api/admin/notifications`,
//! filter kind). The job's progress is in the jobs view; the page comes back with its note.

use super::{Console, PAGE_SIZE};
use crate::areas::desk::{Chrome, DeskForm, Pager, Seat, opt, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::notifications::admin::{self as domain, NewAnnouncement, NotificationFilter};
use shared::error::Validator;

#[derive(Deserialize, Default, Clone)]
pub struct SentQuery {
    #[serde(default)]
    kind: String,
    offset: Option<i64>,
}

impl SentQuery {
    fn href(&self, offset: i64) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        if !self.kind.is_empty() {
            s.append_pair("kind", &self.kind);
        }
        if offset > 0 {
            s.append_pair("offset", &offset.to_string());
        }
        let qs = s.finish();
        if qs.is_empty() {
            "/admin/announcements".into()
        } else {
            format!("/admin/announcements?{qs}")
        }
    }
}

pub struct SentRow {
    pub title: String,
    pub kind: String,
    pub user_id: Id,
    pub created: String,
    /// Each channel's delivery, as `push: sent`.
    pub deliveries: String,
}

#[derive(Default, Deserialize)]
pub struct AnnounceForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    org_id: String,
}

#[derive(Template)]
#[template(path = "desk/admin/announcements.html")]
pub struct AnnouncementsPage {
    c: Chrome,
    kind: String,
    rows: Vec<SentRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    f: AnnounceForm,
    notice: Option<Notice>,
}

async fn sent_page(
    state: &AppState,
    con: &Console,
    q: &SentQuery,
    f: AnnounceForm,
    notice: Option<Notice>,
) -> shared::Result<AnnouncementsPage> {
    let offset = q.offset.unwrap_or(0).max(0);
    let filter = NotificationFilter::parse(None, None, opt(&q.kind), None, None)?;
    let mut rows = domain::list(&state.db, &filter, PAGE_SIZE + 1, offset).await?;
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let rows = rows
        .into_iter()
        .map(|(n, ds)| SentRow {
            title: n.title,
            kind: n.kind,
            user_id: n.user_id,
            created: con.time(n.created_at),
            deliveries: ds
                .iter()
                .map(|d| format!("{}: {}", d.channel.as_str(), d.status.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    Ok(AnnouncementsPage {
        c: con.chrome(con.cat.t("adm.ann").to_string()),
        kind: q.kind.clone(),
        rows,
        prev_href: p.prev.map(|o| q.href(o)),
        next_href: p.next.map(|o| q.href(o)),
        f,
        notice,
    })
}

pub async fn show(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<SentQuery>,
) -> Response {
    match sent_page(&state, &con, &q, AnnounceForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

/// `POST /admin/announcements`: as `POST /api/admin/notifications` (a job; audited). An
/// unknown workspace is refused beside its field, as are a missing title or body.
pub async fn announce(
    State(state): State<AppState>,
    con: Console,
    DeskForm(f): DeskForm<AnnounceForm>,
) -> Response {
    let r = async {
        let mut v = Validator::new();
        let org = match opt(&f.org_id) {
            None => None,
            Some(s) => s.parse::<Id>().map(Some).unwrap_or_else(|_| {
                v.add("org_id", "invalid", "a workspace id, or blank for everyone");
                None
            }),
        };
        v.finish()?;
        let a = NewAnnouncement::parse(&f.title, &f.body, org)?;
        domain::announce(&con.actor(), &state.db, a)
            .await
            .map_err(super::unknown_workspace)
    }
    .await;
    match r {
        Ok(_) => con.done("/announcements", "adm.announced"),
        Err(mut e) => {
            rename_field(&mut e, "orgId", "org_id");
            let code = status_of(&e);
            match sent_page(&state, &con, &SentQuery::default(), f, Some(Notice::of(&e))).await {
                Ok(p) => con.page_at(code, &p, "/announcements"),
                Err(e) => con.error(&e),
            }
        }
    }
}
