//! Each person's choice of channels: per category (a notification kind's first segment,
//! `message.new` → `message`, or `all`) and channel (email, push, SMS), and quiet hours in
//! their time zone.
//!
//! - A choice for the category wins over one for `all`; without either, email and push are on
//!   and SMS is off (SMS costs money and wakes people: it is asked for, never assumed).
//! - The one-click unsubscribe of a mail writes the same choice (`source` `one-click`), so the
//!   settings (`GET /api/notifications/preferences`) show it and can undo it.
//! - Quiet hours hold push and SMS until they end (email waits in an inbox anyway); a
//!   `start` after `end` spans midnight (22:00–07:00).
//!
//! The fan-out reads them twice: creating a notification leaves out SMS for whoever never
//! chose it ([`channels_for`]), and each delivery checks the choice when it is sent
//! ([`allows`]): one turned off is skipped with the reason, so the record says why, and a change
//! made in between is honoured.

use super::Channel;
use crate::db::{Db, Executor, Id, Ts};
use crate::domain::Actor;
use crate::error::{Result, Validator};
use crate::repo::notifications::{self, category_of};
use chrono::{NaiveTime, TimeZone};
use chrono_tz::Tz;

/// The categories every person sees in the settings (others appear once chosen).
pub const KNOWN_CATEGORIES: &[&str] = &["all", "message", "announcement"];
const TIME_FORMAT: &str = "%H:%M";

/// Whether `channel` is on by default.
pub fn default_on(channel: Channel) -> bool {
    channel != Channel::Sms
}

/// One category's channels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryChoice {
    pub category: String,
    pub email: bool,
    pub push: bool,
    pub sms: bool,
}

impl CategoryChoice {
    fn get(&self, ch: Channel) -> bool {
        match ch {
            Channel::Email => self.email,
            Channel::Push => self.push,
            Channel::Sms => self.sms,
        }
    }
}

/// Quiet hours, local times in `time_zone`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietHours {
    pub start: NaiveTime,
    pub end: NaiveTime,
}

/// Everything a person chose.
#[derive(Clone, Debug)]
pub struct Preferences {
    pub time_zone: Tz,
    pub quiet_hours: Option<QuietHours>,
    /// The known categories and every category with a choice, each with its effective
    /// channels (explicit, else `all`'s, else the default).
    pub categories: Vec<CategoryChoice>,
    /// The person has a verified phone (SMS can reach them).
    pub sms_phone: Option<String>,
}

/// Settings as they arrive.
pub struct RawPreferences<'a> {
    pub time_zone: Option<&'a str>,
    /// `Some(None)`: no quiet hours.
    pub quiet_hours: Option<Option<(&'a str, &'a str)>>,
    pub categories: &'a [CategoryChoice],
}

/// Checked settings.
pub struct NewPreferences {
    time_zone: Option<Tz>,
    quiet_hours: Option<Option<QuietHours>>,
    categories: Vec<CategoryChoice>,
}

fn valid_category(c: &str) -> bool {
    !c.is_empty()
        && c.len() <= 60
        && c.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-".contains(c))
}

impl NewPreferences {
    pub fn parse(raw: &RawPreferences) -> Result<NewPreferences> {
        let mut v = Validator::new();
        let time_zone = raw.time_zone.and_then(|tz| {
            let parsed = tz.parse::<Tz>().ok();
            v.check(
                parsed.is_some(),
                "timeZone",
                "invalid",
                "an IANA time zone, e.g. Europe/Lisbon",
            );
            parsed
        });
        let quiet_hours = raw.quiet_hours.map(|q| {
            q.and_then(|(s, e)| {
                let start = NaiveTime::parse_from_str(s, TIME_FORMAT).ok();
                let end = NaiveTime::parse_from_str(e, TIME_FORMAT).ok();
                v.check(
                    start.is_some(),
                    "quietHours.start",
                    "invalid",
                    "HH:MM, e.g. 22:00",
                );
                v.check(
                    end.is_some(),
                    "quietHours.end",
                    "invalid",
                    "HH:MM, e.g. 07:00",
                );
                v.check(
                    start.is_none() || start != end,
                    "quietHours.end",
                    "invalid",
                    "must differ from the start",
                );
                Some(QuietHours {
                    start: start?,
                    end: end?,
                })
            })
        });
        for (i, c) in raw.categories.iter().enumerate() {
            v.check(
                valid_category(&c.category),
                &format!("categories[{i}].category"),
                "invalid",
                "lower-case letters, digits, '_' and '-', at most 60 (a kind's first segment, or all)",
            );
        }
        v.check(
            raw.categories.len() <= 50,
            "categories",
            "too_long",
            "at most 50 categories",
        );
        v.finish()?;
        Ok(NewPreferences {
            time_zone,
            quiet_hours,
            categories: raw.categories.to_vec(),
        })
    }
}

/// The caller's preferences.
pub async fn get(actor: &Actor, db: &Db) -> Result<Preferences> {
    let mut c = db.acquire().await?;
    read(&mut c, actor.user_id).await
}

async fn read(x: &mut impl Executor, user: Id) -> Result<Preferences> {
    let settings = notifications::settings_of(x, user).await?;
    let choices = notifications::choices_of(x, user).await?;
    let phone = crate::repo::sms::verified_phone(x, user)
        .await?
        .map(|p| p.0);
    let (time_zone, quiet_hours) = settings_values(settings.as_ref());
    let mut names: Vec<String> = KNOWN_CATEGORIES.iter().map(|c| c.to_string()).collect();
    for ch in &choices {
        if !names.contains(&ch.category) {
            names.push(ch.category.clone());
        }
    }
    let explicit = |cat: &str, ch: Channel| {
        choices
            .iter()
            .find(|c| c.category == cat && c.channel == ch)
            .map(|c| c.enabled)
    };
    let effective = |cat: &str, ch: Channel| {
        explicit(cat, ch)
            .or(if cat == "all" {
                None
            } else {
                explicit("all", ch)
            })
            .unwrap_or(default_on(ch))
    };
    let categories = names
        .into_iter()
        .map(|cat| CategoryChoice {
            email: effective(&cat, Channel::Email),
            push: effective(&cat, Channel::Push),
            sms: effective(&cat, Channel::Sms),
            category: cat,
        })
        .collect();
    Ok(Preferences {
        time_zone,
        quiet_hours,
        categories,
        sms_phone: phone,
    })
}

fn settings_values(s: Option<&notifications::Settings>) -> (Tz, Option<QuietHours>) {
    let tz = s
        .and_then(|s| s.time_zone.parse::<Tz>().ok())
        .unwrap_or(Tz::UTC);
    let quiet = s.and_then(|s| {
        Some(QuietHours {
            start: NaiveTime::parse_from_str(s.quiet_start.as_deref()?, TIME_FORMAT).ok()?,
            end: NaiveTime::parse_from_str(s.quiet_end.as_deref()?, TIME_FORMAT).ok()?,
        })
    });
    (tz, quiet)
}

/// Saves the caller's settings: the time zone and quiet hours when given, and each category's
/// three channels as explicit choices. Returns the preferences now in force.
pub async fn set(actor: &Actor, db: &Db, p: NewPreferences) -> Result<Preferences> {
    let user = actor.user_id;
    let mut tx = db.begin().await?;
    if p.time_zone.is_some() || p.quiet_hours.is_some() {
        let current = notifications::settings_of(&mut tx, user).await?;
        let (tz0, q0) = settings_values(current.as_ref());
        let tz = p.time_zone.unwrap_or(tz0);
        let quiet = p.quiet_hours.clone().unwrap_or(q0);
        let fmt = |t: NaiveTime| t.format(TIME_FORMAT).to_string();
        let q = quiet.map(|q| (fmt(q.start), fmt(q.end)));
        notifications::set_settings(
            &mut tx,
            user,
            tz.name(),
            q.as_ref().map(|(a, b)| (a.as_str(), b.as_str())),
        )
        .await?;
    }
    for c in &p.categories {
        for ch in [Channel::Email, Channel::Push, Channel::Sms] {
            notifications::set_choice(&mut tx, user, ch, &c.category, c.get(ch), "settings")
                .await?;
        }
    }
    let now = read(&mut tx, user).await?;
    tx.commit().await?;
    Ok(now)
}

/// Whether `user` gets `kind` on `channel` (the explicit choice, `all`'s, or the default).
pub async fn allows(x: &mut impl Executor, user: Id, channel: Channel, kind: &str) -> Result<bool> {
    let (own, all) = notifications::choice_for(x, user, channel, category_of(kind)).await?;
    Ok(own.or(all).unwrap_or(default_on(channel)))
}

/// Of the channels a notification asks for, those it gets a delivery on: all but the ones
/// off by default that `user` never chose (SMS). A channel the person turned off still gets its
/// delivery, skipped with the reason when it is sent ([`allows`]), so the record shows why.
pub async fn channels_for(
    x: &mut impl Executor,
    user: Id,
    kind: &str,
    requested: &[Channel],
) -> Result<Vec<Channel>> {
    if requested.iter().all(|ch| default_on(*ch)) {
        return Ok(requested.to_vec());
    }
    let choices = notifications::choices_of(x, user).await?;
    let category = category_of(kind);
    // The category's own choice over `all`'s; a choice turned off is not a choice of SMS.
    let choice = |ch: Channel, cat: &str| {
        choices
            .iter()
            .find(|c| c.channel == ch && c.category == cat)
            .map(|c| c.enabled)
    };
    let chosen = |ch: Channel| {
        choice(ch, category)
            .or_else(|| choice(ch, "all"))
            .unwrap_or(false)
    };
    Ok(requested
        .iter()
        .copied()
        .filter(|ch| default_on(*ch) || chosen(*ch))
        .collect())
}

/// When `user`'s quiet hours end, if `now` is inside them.
pub async fn quiet_until(x: &mut impl Executor, user: Id, now: Ts) -> Result<Option<Ts>> {
    let s = notifications::settings_of(x, user).await?;
    let (tz, quiet) = settings_values(s.as_ref());
    Ok(quiet.and_then(|q| quiet_end(tz, &q, now)))
}

/// The end of the quiet period `now` falls in, or `None` outside quiet hours.
pub fn quiet_end(tz: Tz, q: &QuietHours, now: Ts) -> Option<Ts> {
    let local = now.0.with_timezone(&tz);
    let t = local.time();
    let inside = if q.start < q.end {
        t >= q.start && t < q.end
    } else {
        t >= q.start || t < q.end
    };
    if !inside {
        return None;
    }
    let mut day = local.date_naive();
    if t >= q.end {
        day = day.succ_opt()?;
    }
    // A local time skipped by a DST change: the earliest valid instant after it.
    let naive = day.and_time(q.end);
    let end = tz.from_local_datetime(&naive).earliest().or_else(|| {
        tz.from_local_datetime(&(naive + chrono::Duration::hours(1)))
            .earliest()
    })?;
    Some(Ts(end.with_timezone(&chrono::Utc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn at(s: &str) -> Ts {
        Ts(s.parse::<DateTime<Utc>>().unwrap())
    }

    fn hours(a: &str, b: &str) -> QuietHours {
        QuietHours {
            start: NaiveTime::parse_from_str(a, TIME_FORMAT).unwrap(),
            end: NaiveTime::parse_from_str(b, TIME_FORMAT).unwrap(),
        }
    }

    #[test]
    fn quiet_hours_span_midnight_in_the_persons_time_zone() {
        let lisbon: Tz = "Europe/Lisbon".parse().unwrap(); // UTC+1 in summer
        let q = hours("22:00", "07:00");
        // 21:30 UTC is 22:30 in Lisbon: quiet until 07:00 Lisbon, 06:00 UTC the next day.
        assert_eq!(
            quiet_end(lisbon, &q, at("2026-07-01T21:30:00Z")),
            Some(at("2026-07-02T06:00:00Z"))
        );
        // 02:00 UTC is 03:00 Lisbon: quiet until 06:00 UTC the same day.
        assert_eq!(
            quiet_end(lisbon, &q, at("2026-07-02T02:00:00Z")),
            Some(at("2026-07-02T06:00:00Z"))
        );
        assert_eq!(quiet_end(lisbon, &q, at("2026-07-02T12:00:00Z")), None);
        let day = hours("13:00", "14:00");
        assert_eq!(
            quiet_end(Tz::UTC, &day, at("2026-07-02T13:30:00Z")),
            Some(at("2026-07-02T14:00:00Z"))
        );
        assert_eq!(quiet_end(Tz::UTC, &day, at("2026-07-02T14:00:00Z")), None);
    }
}
