//! Lessons for sale (issue 39): a coach's payout account (connected and onboarded at the
//! processor, as `POST /api/payments/connect`) and the workspace's offerings, with a form to
//! offer one (as `POST /api/payments/offerings`). The billing module and `athletes.update`, as
//! the JSON routes that change them; offerings cannot be edited or archived (the API has no
//! such operation, `docs/billing.md`). Onboarding returns to `/payments/connect`, which sends
//! the coach back here.

use super::leave::{back_to_workspace, leave};
use super::{Chrome, Desk, DeskForm, Empty, Pager, page_at, status_of};
use crate::areas::pages::{Notice, PageUser, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::domain::billing::{self as billing, marketplace};
use shared::repo::billing::OfferingInterval;

const PAGE: i64 = 25;
const HERE: &str = "/lessons";

pub struct OfferingRow {
    pub name: String,
    pub price: String,
    pub monthly: bool,
    pub created: String,
    pub iso: String,
}

#[derive(Template)]
#[template(path = "desk/billing/lessons.html")]
pub struct LessonsPage {
    c: Chrome,
    configured: bool,
    /// (charges enabled, payouts enabled) of the coach's account, when connected.
    account: Option<(bool, bool)>,
    /// `done` or `refresh` after the processor's onboarding.
    onboarding: Option<&'static str>,
    rows: Vec<OfferingRow>,
    pager: Pager,
    form: OfferingForm,
    notice: Option<Notice>,
    connect_action: String,
    create_action: String,
    list_path: String,
}

#[derive(Deserialize, Default)]
pub struct LessonsQuery {
    offset: Option<i64>,
    /// `done` or `refresh`: back from onboarding (not the desk's `done` note).
    onboarding: Option<String>,
}

#[derive(Deserialize, Clone)]
pub struct OfferingForm {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub amount: String,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub interval: String,
}

impl Default for OfferingForm {
    fn default() -> Self {
        OfferingForm {
            name: String::new(),
            amount: String::new(),
            currency: "eur".into(),
            interval: "one_off".into(),
        }
    }
}

/// `2500` `eur` as `25.00 EUR` (minor units shown with two decimals, as most currencies have).
pub fn price(amount: i64, currency: &str) -> String {
    format!(
        "{}.{:02} {}",
        amount / 100,
        amount % 100,
        currency.to_uppercase()
    )
}

async fn lessons_page(
    state: &AppState,
    desk: &Desk,
    offset: i64,
    form: OfferingForm,
    onboarding: Option<&'static str>,
    notice: Option<Notice>,
) -> Result<LessonsPage, Error> {
    let ws = desk.acting();
    let mut offerings = marketplace::offerings(&state.db, &ws, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut offerings, offset, PAGE);
    let account = marketplace::payout_account(&state.db, &ws).await?;
    Ok(LessonsPage {
        c: Chrome::new(desk, desk.cat.t("les.title")),
        configured: state.cfg.payments.is_some(),
        account: account.map(|a| (a.charges_enabled, a.payouts_enabled)),
        onboarding,
        rows: offerings
            .into_iter()
            .map(|o| OfferingRow {
                price: price(o.amount, &o.currency),
                monthly: o.interval == OfferingInterval::Monthly,
                created: desk.time(o.created_at),
                iso: o.created_at.0.to_rfc3339(),
                name: o.name,
            })
            .collect(),
        pager,
        form,
        notice,
        connect_action: desk.path("/lessons/connect"),
        create_action: desk.path("/lessons/offerings"),
        list_path: desk.path(HERE),
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<LessonsQuery>,
) -> Response {
    let onboarding = match q.onboarding.as_deref() {
        Some("done") => Some("done"),
        Some("refresh") => Some("refresh"),
        _ => None,
    };
    let offset = q.offset.unwrap_or(0).max(0);
    match lessons_page(
        &state,
        &desk,
        offset,
        OfferingForm::default(),
        onboarding,
        None,
    )
    .await
    {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Offer something for sale (as `POST /api/payments/offerings`); field errors beside the form.
pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<OfferingForm>,
) -> Response {
    let made = async {
        billing::adapter(&state.cfg)?;
        // An amount that is not a whole number is out of range, as the API's parse says.
        let amount = f.amount.trim().parse::<i64>().unwrap_or(0);
        let new = marketplace::NewOffering::parse(&f.name, amount, &f.currency, &f.interval)?;
        marketplace::create_offering(&state.db, &desk.acting(), new).await
    }
    .await;
    match made {
        Ok(_) => desk.done(HERE, "les.created"),
        Err(e) => match lessons_page(&state, &desk, 0, f, None, Some(Notice::of(&e))).await {
            Ok(p) => page_at(&desk, status_of(&e), &p, HERE),
            Err(e2) => desk.error(&e2),
        },
    }
}

/// Connect (or continue onboarding) the coach's payout account at the processor.
pub async fn connect(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let c = async {
        let payments = billing::adapter(&state.cfg)?;
        marketplace::connect(&state.db, &state.cfg, &payments, &desk.acting(), None).await
    }
    .await;
    match c {
        Ok(c) => leave(desk.cat, &c.onboarding_url, Some(desk.org())),
        Err(e) => {
            match lessons_page(
                &state,
                &desk,
                0,
                OfferingForm::default(),
                None,
                Some(Notice::of(&e)),
            )
            .await
            {
                Ok(p) => page_at(&desk, status_of(&e), &p, HERE),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}

/// `GET /payments/connect`: where onboarding returns (`done=1`, or `refresh=1` when its link
/// expired): on to the lessons page of the workspace that left (`?onboarding=done|refresh`).
pub async fn connect_returned(who: PageUser, headers: HeaderMap, uri: Uri) -> Response {
    let Some(who) = who.0 else {
        return crate::areas::pages::sign_in_first(
            uri.path_and_query()
                .map_or("/payments/connect", |p| p.as_str()),
        );
    };
    // The processor's `done=1` would read as the desk's `?done=` note: said as `onboarding=`.
    let refresh = uri.query().is_some_and(|q| q.contains("refresh"));
    let query = if refresh {
        "onboarding=refresh"
    } else {
        "onboarding=done"
    };
    back_to_workspace(&headers, &who, HERE, Some(query))
}
