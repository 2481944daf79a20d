//! The kinds of time the API accepts and the range each may take: the one place that decides
//! whether a time from a request (a JSON body, a query string, a CSV cell) is acceptable.
//!
//! Every request type that takes a time hands it to [`Validator::time`] or [`Validator::date`]
//! (or [`check_filters`] for query-string bounds) with its [`TimeKind`]; a time outside its
//! kind's range is a field error with the code `out_of_range` (400 `validation_failed`). The
//! widest range, years 1900–9999, is what both databases store and compare alike (SQLite keeps
//! times as fixed-width RFC 3339 text, which has four-digit years), so a stored time always
//! reads back. Time arithmetic on accepted values is then safe; [`Ts::plus`](crate::db::Ts::plus)
//! saturates rather than panics all the same. The table is documented in `docs/validation.md`.

use crate::db::Ts;
use crate::error::{Result, Validator};
use chrono::{DateTime, Months, NaiveDate, NaiveTime, TimeZone, Utc};

/// What a time means, which decides its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    /// A time on the calendar: training session starts and ends, calendar and list filters,
    /// audit and activity filters, circuit event dates, report and progress periods, imported
    /// sessions and manifest dates. Years 1900–9999.
    Calendar,
    /// Something that has already happened, as a person records it: a guardian's consent, a
    /// client's activity event. Years 1900 to now.
    Past,
    /// A deadline: a subscription grant's `until`. After now, up to the end of 9999.
    Future,
    /// A birth date: not in the future, and aged at most 120 (so never before 1900).
    Birth,
    /// A time measured by a watch or a phone: wearable samples, wearable sessions and their
    /// ride labels, sample windows. Years 2000–2099.
    Recorded,
}

/// The earliest time any kind accepts: 1900-01-01T00:00:00Z.
pub fn earliest() -> Ts {
    Ts(Utc.with_ymd_and_hms(1900, 1, 1, 0, 0, 0).unwrap())
}

/// The latest time any kind accepts: 9999-12-31T23:59:59.999999Z.
pub fn latest() -> Ts {
    Ts(NaiveDate::from_ymd_opt(9999, 12, 31)
        .unwrap()
        .and_time(NaiveTime::from_hms_micro_opt(23, 59, 59, 999_999).unwrap())
        .and_utc())
}

fn day_start(d: NaiveDate) -> Ts {
    Ts(d.and_time(NaiveTime::MIN).and_utc())
}

impl TimeKind {
    /// The inclusive range `[min, max]` of this kind, evaluated at `now`.
    pub fn range_at(self, now: Ts) -> (Ts, Ts) {
        match self {
            TimeKind::Calendar => (earliest(), latest()),
            TimeKind::Past => (earliest(), now),
            TimeKind::Future => (now, latest()),
            TimeKind::Birth => {
                let today = now.0.date_naive();
                // Aged at most 120: born after this day 121 years ago.
                let oldest = today
                    .checked_sub_months(Months::new(121 * 12))
                    .and_then(|d| d.succ_opt())
                    .map(day_start)
                    .unwrap_or(earliest())
                    .max(earliest());
                (oldest, now)
            }
            TimeKind::Recorded => (
                Ts(Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).unwrap()),
                Ts(Utc.with_ymd_and_hms(2100, 1, 1, 0, 0, 0).unwrap()
                    - chrono::Duration::microseconds(1)),
            ),
        }
    }

    /// What a refused value is told.
    pub fn message(self) -> &'static str {
        match self {
            TimeKind::Calendar => "must be a time in the years 1900 to 9999",
            TimeKind::Past => "must not be in the future, nor before 1900",
            TimeKind::Future => "must be in the future, before the year 10000",
            TimeKind::Birth => "must not be in the future, nor more than 120 years ago",
            TimeKind::Recorded => "must be a time in the years 2000 to 2099",
        }
    }

    /// Whether `t` lies in this kind's range at `now`. `Future` excludes now itself.
    pub fn contains_at(self, t: Ts, now: Ts) -> bool {
        let (min, max) = self.range_at(now);
        let after_min = if self == TimeKind::Future {
            t > min
        } else {
            t >= min
        };
        after_min && t <= max
    }

    pub fn contains(self, t: Ts) -> bool {
        self.contains_at(t, Ts::now())
    }

    /// Whether the day `d` lies in this kind's range (for `Past` and `Birth`: not after
    /// today; for `Future`: after today).
    pub fn contains_date(self, d: NaiveDate) -> bool {
        let now = Ts::now();
        let (min, max) = self.range_at(now);
        let (min_day, max_day) = (min.0.date_naive(), max.0.date_naive());
        match self {
            TimeKind::Future => d > min_day && d <= max_day,
            _ => d >= min_day && d <= max_day,
        }
    }

    /// Whether a Unix millisecond time lies in this kind's range.
    pub fn contains_millis(self, ms: i64) -> bool {
        DateTime::from_timestamp_millis(ms).is_some_and(|t| self.contains(Ts(t)))
    }
}

impl Validator {
    /// Checks a time against its kind's range (`out_of_range` otherwise); returns whether it
    /// is acceptable.
    pub fn time(&mut self, field: &str, t: Ts, kind: TimeKind) -> bool {
        let ok = kind.contains(t);
        self.check(ok, field, "out_of_range", kind.message());
        ok
    }

    /// [`Validator::time`] for an optional time (absent is fine).
    pub fn opt_time(&mut self, field: &str, t: Option<Ts>, kind: TimeKind) -> Option<Ts> {
        t.filter(|t| self.time(field, *t, kind))
    }

    /// Checks a day against its kind's range (`out_of_range` otherwise).
    pub fn date(&mut self, field: &str, d: NaiveDate, kind: TimeKind) -> bool {
        let ok = kind.contains_date(d);
        self.check(ok, field, "out_of_range", kind.message());
        ok
    }

    /// Parses a `YYYY-MM-DD` day (`invalid` when malformed) and checks its range.
    pub fn date_text(&mut self, field: &str, s: &str, kind: TimeKind) -> Option<NaiveDate> {
        match parse_day(s) {
            Some(d) => self.date(field, d, kind).then_some(d),
            None => {
                self.add(field, "invalid", "must be a date, YYYY-MM-DD");
                None
            }
        }
    }

    /// Parses an RFC 3339 time (`invalid` when malformed) and checks its range.
    pub fn time_text(&mut self, field: &str, s: &str, kind: TimeKind) -> Option<Ts> {
        match parse_rfc3339(s) {
            Some(t) => self.time(field, t, kind).then_some(t),
            None => {
                self.add(field, "invalid", "must be an RFC 3339 time");
                None
            }
        }
    }

    /// Checks a Unix millisecond time against its kind's range.
    pub fn millis(&mut self, field: &str, ms: i64, kind: TimeKind) -> bool {
        let ok = kind.contains_millis(ms);
        self.check(ok, field, "out_of_range", kind.message());
        ok
    }
}

/// A `YYYY-MM-DD` day, exactly four-digit years (chrono's `%Y` also reads `+262142`).
pub fn parse_day(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// An RFC 3339 time, as UTC truncated to microseconds.
pub fn parse_rfc3339(s: &str) -> Option<Ts> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| Ts::from_datetime(t.with_timezone(&Utc)))
}

/// Checks a query's optional time bounds, all of one kind: 400 `validation_failed` naming
/// every bound out of range.
pub fn check_filters(bounds: &[(&str, Option<Ts>)], kind: TimeKind) -> Result<()> {
    let mut v = Validator::new();
    for (field, t) in bounds {
        v.opt_time(field, *t, kind);
    }
    v.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As serde reads a request's time (chrono's `FromStr`, which also takes years past 9999).
    fn at(s: &str) -> Ts {
        Ts::from_datetime(s.parse::<DateTime<Utc>>().unwrap())
    }

    #[test]
    fn calendar_is_1900_to_9999() {
        let k = TimeKind::Calendar;
        assert!(k.contains(at("1900-01-01T00:00:00Z")));
        assert!(k.contains(at("9999-12-31T23:59:59.999999Z")));
        assert!(!k.contains(at("1899-12-31T23:59:59Z")));
        assert!(!k.contains(at("+10000-01-01T00:00:00Z")));
        assert!(!k.contains(at("-0001-01-01T00:00:00Z")));
    }

    #[test]
    fn past_and_future_split_at_now() {
        let now = at("2026-05-01T12:00:00Z");
        assert!(TimeKind::Past.contains_at(now, now));
        assert!(!TimeKind::Past.contains_at(at("2026-05-01T12:00:01Z"), now));
        assert!(!TimeKind::Past.contains_at(at("0001-01-01T00:00:00Z"), now));
        assert!(!TimeKind::Future.contains_at(now, now));
        assert!(TimeKind::Future.contains_at(at("2026-05-01T12:00:01Z"), now));
    }

    #[test]
    fn birth_is_the_last_120_years() {
        let now = at("2026-05-01T12:00:00Z");
        // 120 years old the day before their 121st birthday, and no older.
        assert!(TimeKind::Birth.contains_at(at("1905-05-02T00:00:00Z"), now));
        assert!(!TimeKind::Birth.contains_at(at("1905-05-01T00:00:00Z"), now));
        assert!(!TimeKind::Birth.contains_at(at("2026-05-02T00:00:00Z"), now));
    }

    #[test]
    fn day_parser_wants_four_digit_years() {
        assert_eq!(parse_day("2026-02-03"), NaiveDate::from_ymd_opt(2026, 2, 3));
        assert_eq!(parse_day("+262142-12-31"), None);
        assert_eq!(parse_day("2026-02-30"), None);
    }

    #[test]
    fn millis_out_of_chrono_range_is_refused() {
        assert!(!TimeKind::Recorded.contains_millis(i64::MAX));
        assert!(!TimeKind::Recorded.contains_millis(i64::MIN));
        assert!(TimeKind::Recorded.contains_millis(1_780_000_000_000));
    }
}
