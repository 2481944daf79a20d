//! `/me/notifications`: a signed-in person's own notification settings (member, athlete or
//! guardian alike: preferences belong to the person, not to a workspace). The page shows the
//! channels per category (email, push, SMS), the quiet hours and their time zone, and turns on
//! notifications in this browser (`/assets/js/push.mjs`, the service worker `/sw.js`). Reading
//! and saving call `shared::domain::notifications::preferences`, as
//! `GET`/`PUT /api/notifications/preferences` do; the one-click unsubscribe of a mail writes the
//! same choices, so it shows here as a channel turned off.

use super::{Chrome, DeskForm, Me, Seat, status_of};
use crate::areas::pages::{Notice, page};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use shared::Error;
use shared::domain::notifications::preferences::{
    self as domain, CategoryChoice, NewPreferences, Preferences, RawPreferences,
};

const HERE: &str = "/notifications";

/// One category's row of the table.
pub struct Row {
    pub category: String,
    pub label: String,
    pub email: bool,
    pub push: bool,
    pub sms: bool,
}

#[derive(Template)]
#[template(path = "desk/notifications.html")]
pub struct SettingsPage {
    c: Chrome,
    rows: Vec<Row>,
    /// The verified phone SMS goes to; without one the SMS boxes are shown disabled.
    sms_phone: Option<String>,
    /// Every IANA zone, the chosen one marked.
    zones: Vec<(&'static str, bool)>,
    quiet_start: String,
    quiet_end: String,
    notice: Option<Notice>,
}

/// A category's name on the page: the catalogue's (`notif.cat.<category>`), else the category.
fn label(me: &Me, category: &str) -> String {
    let key = format!("notif.cat.{category}");
    if super::i18n::Catalogue::has(&key) {
        me.cat.t(&key).to_string()
    } else {
        category.to_string()
    }
}

/// What the form shows: the saved preferences, or what was posted when it failed.
struct Shown {
    rows: Vec<CategoryChoice>,
    time_zone: String,
    quiet_start: String,
    quiet_end: String,
}

impl Shown {
    fn saved(p: &Preferences) -> Shown {
        let fmt = |t: chrono::NaiveTime| t.format("%H:%M").to_string();
        Shown {
            rows: p.categories.clone(),
            time_zone: p.time_zone.name().to_string(),
            quiet_start: p
                .quiet_hours
                .as_ref()
                .map(|q| fmt(q.start))
                .unwrap_or_default(),
            quiet_end: p
                .quiet_hours
                .as_ref()
                .map(|q| fmt(q.end))
                .unwrap_or_default(),
        }
    }
}

fn render(
    me: &Me,
    code: StatusCode,
    shown: Shown,
    sms_phone: Option<String>,
    notice: Option<Notice>,
) -> Response {
    let zones = chrono_tz::TZ_VARIANTS
        .iter()
        .map(|z| (z.name(), z.name() == shown.time_zone))
        .collect();
    let rows = shown
        .rows
        .into_iter()
        .map(|c| Row {
            label: label(me, &c.category),
            category: c.category,
            email: c.email,
            push: c.push,
            sms: c.sms,
        })
        .collect();
    let mut r = page(
        code,
        &SettingsPage {
            c: me.chrome(me.cat.t("notif.title").into()),
            rows,
            sms_phone,
            zones,
            quiet_start: shown.quiet_start,
            quiet_end: shown.quiet_end,
            notice,
        },
    );
    // A page answering a post: a reload shows the page rather than posting again.
    r.headers_mut().insert(
        "hx-replace-url",
        HeaderValue::from_static("/me/notifications"),
    );
    r
}

pub async fn show(State(state): State<AppState>, me: Me) -> Response {
    match domain::get(&me.actor(), &state.db).await {
        Ok(p) => {
            let phone = p.sms_phone.clone();
            render(&me, StatusCode::OK, Shown::saved(&p), phone, None)
        }
        Err(e) => me.error(&e),
    }
}

/// The posted form, field by field: `timeZone`, `quietHours.start`, `quietHours.end`, a
/// `category` for each row shown, and `<category>.<channel>` for each ticked box.
pub type SettingsForm = Vec<(String, String)>;

fn value<'a>(f: &'a SettingsForm, name: &str) -> Option<&'a str> {
    f.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub async fn save(
    State(state): State<AppState>,
    me: Me,
    DeskForm(f): DeskForm<SettingsForm>,
) -> Response {
    // The saved preferences: the verified phone, and the SMS choices a person without one
    // cannot change (their boxes are disabled, so the form does not carry them).
    let now = match domain::get(&me.actor(), &state.db).await {
        Ok(p) => p,
        Err(e) => return me.error(&e),
    };
    let ticked = |cat: &str, ch: &str| value(&f, &format!("{cat}.{ch}")).is_some();
    let categories: Vec<CategoryChoice> = f
        .iter()
        .filter(|(k, _)| k == "category")
        .map(|(_, cat)| CategoryChoice {
            category: cat.clone(),
            email: ticked(cat, "email"),
            push: ticked(cat, "push"),
            sms: if now.sms_phone.is_some() {
                ticked(cat, "sms")
            } else {
                now.categories
                    .iter()
                    .find(|c| &c.category == cat)
                    .is_some_and(|c| c.sms)
            },
        })
        .collect();
    let start = value(&f, "quietHours.start").unwrap_or("").trim();
    let end = value(&f, "quietHours.end").unwrap_or("").trim();
    // Both empty: no quiet hours; one of them: the domain says which is missing.
    let quiet = (!start.is_empty() || !end.is_empty()).then_some((start, end));
    let time_zone = value(&f, "timeZone").map(str::trim);
    let saved = NewPreferences::parse(&RawPreferences {
        time_zone,
        quiet_hours: Some(quiet),
        categories: &categories,
    });
    let result = match saved {
        Ok(p) => domain::set(&me.actor(), &state.db, p).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => me.done(HERE, "saved"),
        Err(e) => {
            let shown = Shown {
                rows: categories,
                time_zone: time_zone.unwrap_or("").to_string(),
                quiet_start: start.to_string(),
                quiet_end: end.to_string(),
            };
            failed(&me, &e, shown, now.sms_phone)
        }
    }
}

fn failed(me: &Me, e: &Error, shown: Shown, sms_phone: Option<String>) -> Response {
    render(me, status_of(e), shown, sms_phone, Some(Notice::of(e)))
}
