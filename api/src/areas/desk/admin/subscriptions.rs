//! Subscriptions and grants in the console: paid subscriptions and admin grants side by side
//! (`GET /api/admin/subscriptions`, filters status and workspace), and the form that grants a
//! workspace a plan and seats without payment (`POST /api/admin/subscriptions/grant`: the same
//! domain operation, audited there). A grant's end is a day, granted to its last minute in the
//! viewer's zone.

use super::{Console, PAGE_SIZE};
use crate::areas::desk::{Chrome, DeskForm, Pager, Seat, opt, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{NaiveDate, TimeZone};
use serde::Deserialize;
use shared::db::{Id, TextEnum, Ts};
use shared::domain::admin as domain;
use shared::error::Validator;
use shared::repo::subscriptions::SubscriptionStatus;

#[derive(Deserialize, Default, Clone)]
pub struct SubsQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    org: String,
    offset: Option<i64>,
}

impl SubsQuery {
    fn href(&self, offset: i64) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        if !self.status.is_empty() {
            s.append_pair("status", &self.status);
        }
        if !self.org.is_empty() {
            s.append_pair("org", &self.org);
        }
        if offset > 0 {
            s.append_pair("offset", &offset.to_string());
        }
        let qs = s.finish();
        if qs.is_empty() {
            "/admin/subscriptions".into()
        } else {
            format!("/admin/subscriptions?{qs}")
        }
    }
}

pub struct SubRow {
    pub id: Id,
    pub org_id: Id,
    pub org_name: String,
    pub plan: String,
    pub seats: i64,
    /// `provider` (paid) or `grant`.
    pub source: &'static str,
    pub status: &'static str,
    /// The period's end (paid) or the grant's end; blank: open-ended.
    pub until: String,
    pub granted_by: String,
    pub granted_by_id: Option<Id>,
    pub reason: String,
}

/// What the grant form holds (typed values stay after a refusal).
#[derive(Deserialize, Default)]
pub struct GrantForm {
    #[serde(default)]
    org_id: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    seats: String,
    #[serde(default)]
    until: String,
    #[serde(default)]
    reason: String,
}

#[derive(Template)]
#[template(path = "desk/admin/subscriptions.html")]
pub struct SubscriptionsPage {
    c: Chrome,
    statuses: &'static [&'static str],
    status: String,
    org: String,
    rows: Vec<SubRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    f: GrantForm,
    notice: Option<Notice>,
}

async fn subs_page(
    state: &AppState,
    con: &Console,
    q: &SubsQuery,
    f: GrantForm,
    notice: Option<Notice>,
) -> shared::Result<SubscriptionsPage> {
    let offset = q.offset.unwrap_or(0).max(0);
    // A bad workspace filter shows every subscription with the filter's error (as the API's
    // 400 says).
    let (org, notice) = match opt(&q.org).map(str::parse::<Id>) {
        None => (None, notice),
        Some(Ok(id)) => (Some(id), notice),
        Some(Err(_)) => {
            let mut v = Validator::new();
            v.add("org", "invalid", "a workspace id");
            (None, v.finish().err().map(|e| Notice::of(&e)))
        }
    };
    let mut rows =
        domain::subscription_rows(&state.db, org, opt(&q.status), PAGE_SIZE + 1, offset).await?;
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let rows = rows
        .into_iter()
        .map(|r| SubRow {
            id: r.sub.id,
            org_id: r.sub.org_id,
            org_name: r.org_name,
            plan: r.sub.plan,
            seats: r.sub.seats,
            source: if r.sub.provider_subscription_id.is_some() {
                "provider"
            } else {
                "grant"
            },
            status: r.sub.status.as_str(),
            until: r
                .sub
                .current_period_end
                .map(|t| con.time(t))
                .unwrap_or_default(),
            granted_by: r.granted_by_name.unwrap_or_default(),
            granted_by_id: r.sub.granted_by,
            reason: r.sub.grant_reason.unwrap_or_default(),
        })
        .collect();
    Ok(SubscriptionsPage {
        c: con.chrome(con.cat.t("adm.subs").to_string()),
        statuses: <SubscriptionStatus as TextEnum>::NAMES,
        status: q.status.clone(),
        org: q.org.clone(),
        rows,
        prev_href: p.prev.map(|o| q.href(o)),
        next_href: p.next.map(|o| q.href(o)),
        f,
        notice,
    })
}

pub async fn list(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<SubsQuery>,
) -> Response {
    match subs_page(&state, &con, &q, GrantForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

/// The last minute of `day` in the viewer's zone.
fn end_of_day(con: &Console, day: NaiveDate) -> Ts {
    let t = day.and_hms_opt(23, 59, 0).expect("a time of day");
    let at = con
        .tz
        .from_local_datetime(&t)
        .earliest()
        .map_or_else(|| t.and_utc(), |t| t.with_timezone(&chrono::Utc));
    Ts(at)
}

/// `POST /admin/subscriptions/grant`: as `POST /api/admin/subscriptions/grant` (the same
/// domain operation; audited). An unknown workspace is refused beside its field, as are bad
/// seats, a past end, a missing plan or reason.
pub async fn grant(
    State(state): State<AppState>,
    con: Console,
    DeskForm(f): DeskForm<GrantForm>,
) -> Response {
    let r = async {
        let mut v = Validator::new();
        let org = match opt(&f.org_id) {
            None => {
                v.add("org_id", "required", "is required");
                None
            }
            Some(s) => s.parse::<Id>().ok().or_else(|| {
                v.add("org_id", "invalid", "a workspace id");
                None
            }),
        };
        let seats = match opt(&f.seats) {
            None => {
                v.add("seats", "required", "is required");
                None
            }
            Some(s) => s.parse::<i64>().ok().or_else(|| {
                v.add("seats", "invalid", "a whole number of seats");
                None
            }),
        };
        let until = match opt(&f.until) {
            None => None,
            Some(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .map(|d| end_of_day(&con, d))
                .or_else(|| {
                    v.add("until", "invalid", "a date, or blank for open-ended");
                    None
                }),
        };
        v.finish()?;
        let (org, seats) = (org.expect("validated"), seats.expect("validated"));
        let g = domain::Grant::parse(org, &f.plan, seats, until, &f.reason)?;
        domain::grant(&state.db, con.actor(), g)
            .await
            .map_err(super::unknown_workspace)
    }
    .await;
    match r {
        Ok(_) => con.done("/subscriptions", "adm.granted"),
        Err(mut e) => {
            rename_field(&mut e, "orgId", "org_id");
            let code = status_of(&e);
            match subs_page(&state, &con, &SubsQuery::default(), f, Some(Notice::of(&e))).await {
                Ok(p) => con.page_at(code, &p, "/subscriptions"),
                Err(e) => con.error(&e),
            }
        }
    }
}
