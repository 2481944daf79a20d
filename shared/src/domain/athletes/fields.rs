//! The athlete field rules, written once: the create and update requests, invites, club
//! enrollment and the CSV import all parse through here.
//!
//! Stable API (the import builds on it):
//! - [`AthleteFields::parse`]`(&mut Validator, Naming, &RawAthlete) -> AthleteFields`: a new
//!   athlete's personal fields from plain strings (`&str` / `Option<&str>`; `None` or blank is
//!   absent). Errors go to the validator under the field names of the [`Naming`]
//!   (`firstName` for JSON, `first_name` for CSV), so a CSV row uses its own `Validator` and
//!   reports `into_errors()` with its line. The returned value is only meaningful when the
//!   validator has no errors (invalid fields come back as their defaults).
//! - [`AthleteFields::into_new`]`(status, source) -> repo::athletes::NewAthlete`: the row to insert.
//! - [`AthletePatch::parse`]`(&mut Validator, &RawPatch) -> AthletePatch`: a partial update
//!   (absent = unchanged, blank = cleared for the optional fields).
//! - The single-field rules ([`name`], [`email`], [`birth_date`], [`notes`], [`optional_text`],
//!   [`optional_choice`], [`required_choice_in`]) for forms that hold only some of the fields.
//!
//! Rules: names are trimmed, required, at most 100 characters; email is optional and checked
//! by `Validator::email` (lower-cased); the birth date is `YYYY-MM-DD`, not in the future, within
//! 120 years (`minors::check_birth_date`); stance and level are trimmed and lower-cased before
//! they must be one of their values (`invalid_choice`); notes are trimmed, at most 5000 characters.

use super::values::{AthleteSource, AthleteStatus, Level, Stance};
use crate::db::TextEnum;
use crate::error::Validator;
use crate::minors;
use crate::repo::athletes::{Athlete, NewAthlete};
use chrono::NaiveDate;

pub const NAME_MAX: usize = 100;
pub const NOTES_MAX: usize = 5000;

/// How the caller names the fields in its field errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// JSON bodies: `firstName`, `birthDate`, ...
    Json,
    /// CSV columns: `first_name`, `birth_date`, ...
    Csv,
}

/// One of the athlete's own fields, for its error name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    FirstName,
    LastName,
    Email,
    BirthDate,
    Stance,
    Level,
    Notes,
    Status,
}

impl Naming {
    /// The name `f` has in errors under this naming.
    pub fn name(self, f: Field) -> &'static str {
        match (self, f) {
            (Naming::Json, Field::FirstName) => "firstName",
            (Naming::Csv, Field::FirstName) => "first_name",
            (Naming::Json, Field::LastName) => "lastName",
            (Naming::Csv, Field::LastName) => "last_name",
            (Naming::Json, Field::BirthDate) => "birthDate",
            (Naming::Csv, Field::BirthDate) => "birth_date",
            (_, Field::Email) => "email",
            (_, Field::Stance) => "stance",
            (_, Field::Level) => "level",
            (_, Field::Notes) => "notes",
            (_, Field::Status) => "status",
        }
    }
}

/// A new athlete's fields as they arrive (a JSON body, a CSV row, a form).
#[derive(Clone, Copy, Debug, Default)]
pub struct RawAthlete<'a> {
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub email: Option<&'a str>,
    pub birth_date: Option<&'a str>,
    pub stance: Option<&'a str>,
    pub level: Option<&'a str>,
    pub notes: Option<&'a str>,
}

/// A new athlete's personal fields, parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AthleteFields {
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub notes: Option<String>,
}

impl AthleteFields {
    /// Parses every field, adding each invalid one's error to `v`.
    pub fn parse(v: &mut Validator, naming: Naming, raw: &RawAthlete) -> AthleteFields {
        let n = |f| naming.name(f);
        AthleteFields {
            first_name: name(v, n(Field::FirstName), raw.first_name),
            last_name: name(v, n(Field::LastName), raw.last_name),
            email: email(v, n(Field::Email), raw.email),
            birth_date: birth_date(v, n(Field::BirthDate), raw.birth_date),
            stance: optional_choice(v, n(Field::Stance), raw.stance),
            level: optional_choice(v, n(Field::Level), raw.level),
            notes: notes(v, n(Field::Notes), raw.notes),
        }
    }

    /// The row to insert for these fields.
    pub fn into_new(self, status: AthleteStatus, source: AthleteSource) -> NewAthlete {
        NewAthlete {
            first_name: self.first_name,
            last_name: self.last_name,
            email: self.email,
            birth_date: self.birth_date,
            stance: self.stance,
            level: self.level,
            notes: self.notes,
            status,
            source,
        }
    }
}

/// A partial update as it arrives: `None` leaves a field alone; for the optional fields a
/// blank string clears it.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawPatch<'a> {
    pub first_name: Option<&'a str>,
    pub last_name: Option<&'a str>,
    pub email: Option<&'a str>,
    pub birth_date: Option<&'a str>,
    pub stance: Option<&'a str>,
    pub level: Option<&'a str>,
    pub notes: Option<&'a str>,
    pub status: Option<&'a str>,
}

/// A partial update, parsed: `None` = unchanged, `Some(None)` = cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AthletePatch {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<Option<String>>,
    pub birth_date: Option<Option<NaiveDate>>,
    pub stance: Option<Option<Stance>>,
    pub level: Option<Option<Level>>,
    pub notes: Option<Option<String>>,
    /// Required when given (a blank status is `required`).
    pub status: Option<AthleteStatus>,
}

impl AthletePatch {
    /// Parses the given fields (JSON naming), adding each invalid one's error to `v`.
    pub fn parse(v: &mut Validator, raw: &RawPatch) -> AthletePatch {
        let n = |f| Naming::Json.name(f);
        AthletePatch {
            first_name: raw.first_name.map(|s| name(v, n(Field::FirstName), s)),
            last_name: raw.last_name.map(|s| name(v, n(Field::LastName), s)),
            email: raw.email.map(|s| email(v, n(Field::Email), Some(s))),
            birth_date: raw
                .birth_date
                .map(|s| birth_date(v, n(Field::BirthDate), Some(s))),
            stance: raw
                .stance
                .map(|s| optional_choice(v, n(Field::Stance), Some(s))),
            level: raw
                .level
                .map(|s| optional_choice(v, n(Field::Level), Some(s))),
            notes: raw.notes.map(|s| notes(v, n(Field::Notes), Some(s))),
            status: raw
                .status
                .and_then(|s| required_choice_in(v, n(Field::Status), s, AthleteStatus::ALL)),
        }
    }

    /// The JSON names of the fields this patch sets (the audit entry names fields, not values).
    pub fn fields(&self) -> Vec<&'static str> {
        [
            (Field::FirstName, self.first_name.is_some()),
            (Field::LastName, self.last_name.is_some()),
            (Field::Email, self.email.is_some()),
            (Field::BirthDate, self.birth_date.is_some()),
            (Field::Stance, self.stance.is_some()),
            (Field::Level, self.level.is_some()),
            (Field::Notes, self.notes.is_some()),
            (Field::Status, self.status.is_some()),
        ]
        .into_iter()
        .filter_map(|(f, on)| on.then_some(Naming::Json.name(f)))
        .collect()
    }

    /// Writes the patch onto a row.
    pub fn apply(self, a: &mut Athlete) {
        if let Some(f) = self.first_name {
            a.first_name = f;
        }
        if let Some(l) = self.last_name {
            a.last_name = l;
        }
        if let Some(e) = self.email {
            a.email = e;
        }
        if let Some(b) = self.birth_date {
            a.birth_date = b;
        }
        if let Some(s) = self.stance {
            a.stance = s;
        }
        if let Some(l) = self.level {
            a.level = l;
        }
        if let Some(n) = self.notes {
            a.notes = n;
        }
        if let Some(s) = self.status {
            a.status = s;
        }
    }
}

/// A person's first or last name: trimmed, required, at most [`NAME_MAX`] characters.
pub fn name(v: &mut Validator, field: &str, value: &str) -> String {
    v.text(field, value, NAME_MAX)
}

/// An optional email address; blank is none.
pub fn email(v: &mut Validator, field: &str, value: Option<&str>) -> Option<String> {
    let value = value.filter(|s| !s.trim().is_empty())?;
    Some(v.email(field, value))
}

/// An optional birth date (`YYYY-MM-DD`); blank is none.
pub fn birth_date(v: &mut Validator, field: &str, value: Option<&str>) -> Option<NaiveDate> {
    let value = value.filter(|s| !s.trim().is_empty())?;
    minors::parse_birth_date(v, field, value)
}

/// Optional notes: trimmed, blank is none, at most [`NOTES_MAX`] characters.
pub fn notes(v: &mut Validator, field: &str, value: Option<&str>) -> Option<String> {
    optional_text(v, field, value, NOTES_MAX)
}

/// An optional text: trimmed, blank is none, at most `max` characters (`too_long`).
pub fn optional_text(
    v: &mut Validator,
    field: &str,
    value: Option<&str>,
    max: usize,
) -> Option<String> {
    let value = value.map(str::trim).filter(|s| !s.is_empty())?;
    if value.chars().count() > max {
        v.add(
            field,
            "too_long",
            format!("must be at most {max} characters"),
        );
    }
    Some(value.to_string())
}

/// An optional choice among all of `T`'s values: trimmed and lower-cased, blank is none,
/// anything else not a value is `invalid_choice`.
pub fn optional_choice<T: TextEnum>(
    v: &mut Validator,
    field: &str,
    value: Option<&str>,
) -> Option<T> {
    optional_choice_in(v, field, value, T::ALL)
}

/// [`optional_choice`] among `allowed` only.
pub fn optional_choice_in<T: TextEnum>(
    v: &mut Validator,
    field: &str,
    value: Option<&str>,
    allowed: &[T],
) -> Option<T> {
    let value = value
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())?;
    match T::parse(&value) {
        Ok(t) if allowed.contains(&t) => Some(t),
        _ => {
            v.add(field, "invalid_choice", one_of(allowed));
            None
        }
    }
}

/// A required choice among `allowed`: blank is `required`, otherwise as [`optional_choice_in`].
pub fn required_choice_in<T: TextEnum>(
    v: &mut Validator,
    field: &str,
    value: &str,
    allowed: &[T],
) -> Option<T> {
    if value.trim().is_empty() {
        v.add(field, "required", one_of(allowed));
        return None;
    }
    optional_choice_in(v, field, Some(value), allowed)
}

fn one_of<T: TextEnum>(allowed: &[T]) -> String {
    let names: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
    format!("must be one of {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldError;

    fn errors(f: impl FnOnce(&mut Validator)) -> Vec<(String, &'static str)> {
        let mut v = Validator::new();
        f(&mut v);
        v.into_errors()
            .into_iter()
            .map(|FieldError { field, code, .. }| (field, code))
            .collect()
    }

    #[test]
    fn new_athlete_fields_are_trimmed_and_typed() {
        let mut v = Validator::new();
        let raw = RawAthlete {
            first_name: " Ana ",
            last_name: "Lima",
            email: Some(" Ana@Example.COM "),
            birth_date: Some("2001-02-03"),
            stance: Some(" Goofy"),
            level: Some(""),
            notes: Some("  "),
        };
        let f = AthleteFields::parse(&mut v, Naming::Json, &raw);
        assert!(v.into_errors().is_empty());
        assert_eq!(f.first_name, "Ana");
        assert_eq!(f.email.as_deref(), Some("ana@example.com"));
        assert_eq!(f.birth_date, NaiveDate::from_ymd_opt(2001, 2, 3));
        assert_eq!(f.stance, Some(Stance::Goofy));
        assert_eq!((f.level, f.notes), (None, None));
    }

    #[test]
    fn errors_use_the_callers_naming() {
        let raw = RawAthlete {
            first_name: "",
            last_name: "x",
            email: Some("nope"),
            birth_date: Some("3000-01-01"),
            stance: Some("sideways"),
            level: Some("elite"),
            notes: Some(&"n".repeat(NOTES_MAX + 1)),
        };
        let expected = |first: &str, birth: &str| {
            vec![
                (first.to_string(), "required"),
                ("email".to_string(), "invalid_email"),
                (birth.to_string(), "out_of_range"),
                ("stance".to_string(), "invalid_choice"),
                ("level".to_string(), "invalid_choice"),
                ("notes".to_string(), "too_long"),
            ]
        };
        assert_eq!(
            errors(|v| {
                AthleteFields::parse(v, Naming::Json, &raw);
            }),
            expected("firstName", "birthDate")
        );
        assert_eq!(
            errors(|v| {
                AthleteFields::parse(v, Naming::Csv, &raw);
            }),
            expected("first_name", "birth_date")
        );
    }

    #[test]
    fn a_patch_clears_with_blanks_and_requires_a_status() {
        let mut v = Validator::new();
        let p = AthletePatch::parse(
            &mut v,
            &RawPatch {
                email: Some(""),
                level: Some("PRO"),
                status: Some("archived"),
                ..Default::default()
            },
        );
        assert!(v.into_errors().is_empty());
        assert_eq!(p.email, Some(None));
        assert_eq!(p.level, Some(Some(Level::Pro)));
        assert_eq!(p.status, Some(AthleteStatus::Archived));
        assert_eq!(p.fields(), vec!["email", "level", "status"]);
        assert_eq!(
            errors(|v| {
                AthletePatch::parse(
                    v,
                    &RawPatch {
                        status: Some(" "),
                        ..Default::default()
                    },
                );
            }),
            vec![("status".to_string(), "required")]
        );
    }

    #[test]
    fn choice_messages_list_the_allowed_values() {
        let mut v = Validator::new();
        let m = optional_choice_in(
            &mut v,
            "method",
            Some("guardian_invite"),
            super::super::values::ConsentMethod::RECORDABLE,
        );
        assert_eq!(m, None);
        assert_eq!(
            v.into_errors()[0].message,
            "must be one of paper, email, in_person, phone"
        );
    }
}
