//! The server-side age gate. A person younger than the workspace country's digital age of
//! consent cannot create a login alone: a guardian creates it (`POST /api/invite/guardian`) or
//! a recorded guardian consent must exist first. The threshold comes from the workspace's
//! `country` (ISO 3166-1 alpha-2, set with `PATCH /api/orgs/{id}`); unknown or unset: 13.
//! The values are the GDPR article 8 ages as the member states set them, 13 elsewhere
//! (COPPA in the US). Anyone under 18 is a minor for everything else (publishing a profile).

use crate::error::Validator;
use crate::times::TimeKind;
use chrono::{Datelike, NaiveDate, Utc};

pub const DEFAULT_CONSENT_AGE: u32 = 13;
pub const ADULT_AGE: u32 = 18;

/// Country → minimum age to create a login without a guardian.
pub const CONSENT_AGE_BY_COUNTRY: &[(&str, u32)] = &[
    ("AT", 14),
    ("BE", 13),
    ("BG", 14),
    ("CY", 14),
    ("CZ", 15),
    ("DE", 16),
    ("DK", 13),
    ("EE", 13),
    ("ES", 14),
    ("FI", 13),
    ("FR", 15),
    ("GB", 13),
    ("GR", 15),
    ("HR", 16),
    ("HU", 16),
    ("IE", 16),
    ("IT", 14),
    ("LT", 14),
    ("LU", 16),
    ("LV", 13),
    ("MT", 13),
    ("NL", 16),
    ("NO", 13),
    ("PL", 16),
    ("PT", 13),
    ("RO", 16),
    ("SE", 13),
    ("SI", 15),
    ("SK", 16),
    ("US", 13),
];

pub fn consent_age(country: Option<&str>) -> u32 {
    country
        .and_then(|c| {
            CONSENT_AGE_BY_COUNTRY
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(c))
        })
        .map(|(_, a)| *a)
        .unwrap_or(DEFAULT_CONSENT_AGE)
}

pub fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// Whole years between `birth` and `on`.
pub fn age_on(birth: NaiveDate, on: NaiveDate) -> u32 {
    let mut years = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        years -= 1;
    }
    years.max(0) as u32
}

pub fn age(birth: NaiveDate) -> u32 {
    age_on(birth, today())
}

/// Unknown birth dates count as minors: the careful default.
pub fn is_minor(birth: Option<NaiveDate>) -> bool {
    birth.is_none_or(|b| age(b) < ADULT_AGE)
}

/// Parses a birth date (`YYYY-MM-DD`): malformed is `invalid`, in the future or more than 120
/// years ago is `out_of_range`. Returns the field code and message on failure.
pub fn check_birth_date(s: &str) -> Result<NaiveDate, (&'static str, &'static str)> {
    let s = s.trim();
    if s.is_empty() {
        return Err(("required", "must be a date, YYYY-MM-DD"));
    }
    match crate::times::parse_day(s) {
        None => Err(("invalid", "must be a date, YYYY-MM-DD")),
        Some(d) if !TimeKind::Birth.contains_date(d) => {
            Err(("out_of_range", TimeKind::Birth.message()))
        }
        Some(d) => Ok(d),
    }
}

/// [`check_birth_date`] into a validator.
pub fn parse_birth_date(v: &mut Validator, field: &str, s: &str) -> Option<NaiveDate> {
    match check_birth_date(s) {
        Ok(d) => Some(d),
        Err((code, message)) => {
            v.add(field, code, message);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_counts_whole_years() {
        let b = NaiveDate::from_ymd_opt(2010, 6, 15).unwrap();
        assert_eq!(age_on(b, NaiveDate::from_ymd_opt(2023, 6, 14).unwrap()), 12);
        assert_eq!(age_on(b, NaiveDate::from_ymd_opt(2023, 6, 15).unwrap()), 13);
    }

    #[test]
    fn thresholds_follow_the_country() {
        assert_eq!(consent_age(None), 13);
        assert_eq!(consent_age(Some("de")), 16);
        assert_eq!(consent_age(Some("PT")), 13);
        assert_eq!(consent_age(Some("ZZ")), 13);
    }
}
