//! `GET, PUT /api/notifications/preferences`: the caller's channels per category, time zone and
//! quiet hours. The rules are `shared::domain::notifications::preferences`.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::domain::notifications::preferences::{
    self as domain, CategoryChoice, NewPreferences, Preferences, RawPreferences,
};
use utoipa::ToSchema;

/// One category's channels.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CategoryChannels {
    /// A notification kind's first segment (`message` for `message.new`), or `all`.
    #[schema(example = "message")]
    pub category: String,
    pub email: bool,
    pub push: bool,
    /// Only reaches a verified phone.
    pub sms: bool,
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuietHoursView {
    /// Local time HH:MM; push and SMS wait from then…
    #[schema(example = "22:00")]
    pub start: String,
    /// …until then (earlier than `start`: the next day).
    #[schema(example = "07:00")]
    pub end: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesView {
    /// IANA time zone of the quiet hours.
    pub time_zone: String,
    pub quiet_hours: Option<QuietHoursView>,
    /// Effective channels per category (`all` and the known categories, and any chosen).
    pub categories: Vec<CategoryChannels>,
    /// The verified phone SMS goes to, if any.
    pub sms_phone: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreferencesUpdate {
    /// Unchanged when absent.
    pub time_zone: Option<String>,
    /// Unchanged when absent; `null` removes the quiet hours.
    #[serde(default, deserialize_with = "some_or_null")]
    #[schema(value_type = Option<QuietHoursView>)]
    pub quiet_hours: Option<Option<QuietHoursView>>,
    /// The categories to set (others are unchanged).
    #[serde(default)]
    pub categories: Vec<CategoryChannels>,
}

fn some_or_null<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Option<QuietHoursView>>, D::Error> {
    Ok(Some(Option::deserialize(d)?))
}

fn view(p: Preferences) -> axum::Json<PreferencesView> {
    let fmt = |t: chrono::NaiveTime| t.format("%H:%M").to_string();
    axum::Json(PreferencesView {
        time_zone: p.time_zone.name().to_string(),
        quiet_hours: p.quiet_hours.map(|q| QuietHoursView {
            start: fmt(q.start),
            end: fmt(q.end),
        }),
        categories: p
            .categories
            .into_iter()
            .map(|c| CategoryChannels {
                category: c.category,
                email: c.email,
                push: c.push,
                sms: c.sms,
            })
            .collect(),
        sms_phone: p.sms_phone,
    })
}

pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<PreferencesView>> {
    Ok(view(domain::get(&caller.actor(), &state.db).await?))
}

pub async fn set(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<PreferencesUpdate>,
) -> Result<axum::Json<PreferencesView>> {
    let categories: Vec<CategoryChoice> = req
        .categories
        .iter()
        .map(|c| CategoryChoice {
            category: c.category.clone(),
            email: c.email,
            push: c.push,
            sms: c.sms,
        })
        .collect();
    let p = NewPreferences::parse(&RawPreferences {
        time_zone: req.time_zone.as_deref(),
        quiet_hours: req
            .quiet_hours
            .as_ref()
            .map(|q| q.as_ref().map(|q| (q.start.as_str(), q.end.as_str()))),
        categories: &categories,
    })?;
    Ok(view(domain::set(&caller.actor(), &state.db, p).await?))
}
