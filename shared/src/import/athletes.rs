//! The athlete roster import.
//!
//! Columns: `first_name`, `last_name` (required), `email`, `birth_date` (YYYY-MM-DD),
//! `stance` (regular, goofy), `level` (beginner, intermediate, advanced, pro), `notes`.
//! A row is a duplicate when its email matches an athlete's email (or an earlier row's), or —
//! without an email — when first name, last name and birth date match.

use super::{Report, Sheet, cell};
use crate::db::{Executor, Id};
use crate::domain::athletes::{AthleteFields, AthleteSource, AthleteStatus, Naming, RawAthlete};
use crate::error::Validator;
use crate::repo::athletes::{self, NewAthlete, name_key};
use std::collections::HashMap;

/// A parsed file: the valid rows with their lines (errors are in the report).
pub struct Parsed {
    pub rows: Vec<(u64, NewAthlete)>,
}

/// Parses and validates every row (no database). Errors go to `report`.
pub fn parse(data: &[u8], report: &mut Report) -> Parsed {
    let mut out = Parsed { rows: vec![] };
    let Some(sheet) = Sheet::read(data, report) else {
        return out;
    };
    let first = sheet.column(&["first_name", "firstname", "first name", "given_name"]);
    let last = sheet.column(&[
        "last_name",
        "lastname",
        "last name",
        "surname",
        "family_name",
    ]);
    if first.is_none() || last.is_none() {
        report.error(
            1,
            "header",
            "required",
            "the header must name first_name and last_name columns",
        );
        return out;
    }
    let email = sheet.column(&["email", "e-mail", "email_address"]);
    let birth = sheet.column(&["birth_date", "birthdate", "date_of_birth", "dob"]);
    let stance = sheet.column(&["stance"]);
    let level = sheet.column(&["level"]);
    let notes = sheet.column(&["notes", "note"]);
    for (line, rec) in &sheet.records {
        let mut v = Validator::new();
        let opt = |col| Some(cell(rec, col));
        let fields = AthleteFields::parse(
            &mut v,
            Naming::Csv,
            &RawAthlete {
                first_name: cell(rec, first),
                last_name: cell(rec, last),
                email: opt(email),
                birth_date: opt(birth),
                stance: opt(stance),
                level: opt(level),
                notes: opt(notes),
            },
        );
        let errors = v.into_errors();
        if errors.is_empty() {
            out.rows.push((
                *line,
                fields.into_new(AthleteStatus::Active, AthleteSource::Import),
            ));
        } else {
            for f in errors {
                report.error(*line, &f.field, f.code, f.message);
            }
        }
    }
    out
}

/// Deduplicates the parsed rows against the org's athletes and each other, then (unless this is
/// a dry run or the file had errors) inserts the new ones. Run in a transaction: it takes the
/// org's import lock first so two imports of one file cannot both insert.
pub async fn commit(
    x: &mut impl Executor,
    org: Id,
    by: Id,
    parsed: Parsed,
    report: &mut Report,
) -> Result<Vec<Id>, sqlx::Error> {
    let write = !report.dry_run && report.error_count == 0;
    if write {
        athletes::lock_org_for_import(x, org).await?;
    }
    let mut emails: HashMap<String, Id> = HashMap::new();
    let mut names: HashMap<String, Id> = HashMap::new();
    for (email, key, id) in athletes::dedup_keys(x, org).await? {
        if let Some(e) = email {
            emails.entry(e).or_insert(id);
        }
        names.entry(key).or_insert(id);
    }
    let mut seen_emails: HashMap<String, u64> = HashMap::new();
    let mut seen_names: HashMap<String, u64> = HashMap::new();
    let mut new = vec![];
    for (line, a) in parsed.rows {
        match &a.email {
            Some(e) => {
                if let Some(id) = emails.get(e) {
                    report.duplicate(line, Some(id.to_string()), None);
                } else if let Some(l) = seen_emails.get(e) {
                    report.duplicate(line, None, Some(*l));
                } else {
                    seen_emails.insert(e.clone(), line);
                    new.push(a);
                }
            }
            None => {
                let key = name_key(&a.first_name, &a.last_name, a.birth_date);
                if let Some(id) = names.get(&key) {
                    report.duplicate(line, Some(id.to_string()), None);
                } else if let Some(l) = seen_names.get(&key) {
                    report.duplicate(line, None, Some(*l));
                } else {
                    seen_names.insert(key, line);
                    new.push(a);
                }
            }
        }
    }
    report.created = new.len() as u64;
    if !write {
        return Ok(vec![]);
    }
    let ids = athletes::insert_many(x, org, &new, Some(by)).await?;
    report.committed = true;
    Ok(ids)
}
