//! The athlete roster import. A row's fields are parsed by the athlete field rules
//! (`domain::athletes::AthleteFields`, CSV field names), as the create request's are.
//!
//! Columns: `first_name`, `last_name` (required), `email`, `birth_date` (YYYY-MM-DD),
//! `stance` (regular, goofy), `level` (beginner, intermediate, advanced, pro), `notes`.
//! A row is a duplicate when its email matches an athlete's email (or an earlier row's), or —
//! without an email — when first name, last name and birth date match.

use super::Report;
use super::pipeline::{Cells, Column, Importer};
use crate::db::{Id, Tx};
use crate::domain::athletes::{AthleteFields, AthleteSource, AthleteStatus, Naming, RawAthlete};
use crate::error::{FieldError, Validator};
use crate::repo::athletes::{self, NewAthlete, name_key};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Imports athletes into a workspace's roster.
#[derive(Default)]
pub struct AthleteImporter;

impl super::Background for AthleteImporter {
    const JOB_KIND: &'static str = "athletes.import";
}

/// What makes two athletes the same.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AthleteKey {
    /// The lower-case email.
    Email(String),
    /// Without an email: [`name_key`].
    Name(String),
}

/// The workspace's athletes by dedupe key.
pub struct KnownAthletes {
    by_key: HashMap<AthleteKey, Id>,
}

impl Importer for AthleteImporter {
    const KIND: &'static str = "athletes";
    const AUDIT_ACTION: &'static str = "athletes.imported";
    const WRITING: &'static str = "checking duplicates and writing";
    const COLUMNS: &'static [Column] = &[
        Column {
            name: "first_name",
            aliases: &["first_name", "firstname", "first name", "given_name"],
            required: true,
        },
        Column {
            name: "last_name",
            aliases: &[
                "last_name",
                "lastname",
                "last name",
                "surname",
                "family_name",
            ],
            required: true,
        },
        Column {
            name: "email",
            aliases: &["email", "e-mail", "email_address"],
            required: false,
        },
        Column {
            name: "birth_date",
            aliases: &["birth_date", "birthdate", "date_of_birth", "dob"],
            required: false,
        },
        Column {
            name: "stance",
            aliases: &["stance"],
            required: false,
        },
        Column {
            name: "level",
            aliases: &["level"],
            required: false,
        },
        Column {
            name: "notes",
            aliases: &["notes", "note"],
            required: false,
        },
    ];

    type Row = NewAthlete;
    type Key = AthleteKey;
    type Known = KnownAthletes;

    fn parse_row(&self, cells: &Cells<'_>, v: &mut Validator) -> Option<NewAthlete> {
        let opt = |name| Some(cells.get(name));
        let raw = RawAthlete {
            first_name: cells.get("first_name"),
            last_name: cells.get("last_name"),
            email: opt("email"),
            birth_date: opt("birth_date"),
            stance: opt("stance"),
            level: opt("level"),
            notes: opt("notes"),
        };
        let fields = AthleteFields::parse(v, Naming::Csv, &raw);
        Some(fields.into_new(AthleteStatus::Active, AthleteSource::Import))
    }

    async fn load(
        &self,
        tx: &mut Tx,
        org: Id,
        _rows: &[(u64, NewAthlete)],
    ) -> Result<KnownAthletes, sqlx::Error> {
        let mut by_key = HashMap::new();
        for (email, name, id) in athletes::dedup_keys(tx, org).await? {
            if let Some(e) = email {
                by_key.entry(AthleteKey::Email(e)).or_insert(id);
            }
            by_key.entry(AthleteKey::Name(name)).or_insert(id);
        }
        Ok(KnownAthletes { by_key })
    }

    fn key(&self, _: &KnownAthletes, a: &NewAthlete) -> Result<AthleteKey, FieldError> {
        Ok(match &a.email {
            Some(e) => AthleteKey::Email(e.clone()),
            None => AthleteKey::Name(name_key(&a.first_name, &a.last_name, a.birth_date)),
        })
    }

    fn existing(&self, known: &KnownAthletes, key: &AthleteKey) -> Option<Id> {
        known.by_key.get(key).copied()
    }

    async fn insert(
        &self,
        tx: &mut Tx,
        org: Id,
        by: Id,
        _: &KnownAthletes,
        rows: Vec<(u64, NewAthlete)>,
    ) -> Result<(), sqlx::Error> {
        let rows: Vec<NewAthlete> = rows.into_iter().map(|(_, a)| a).collect();
        athletes::insert_many(tx, org, &rows, Some(by)).await?;
        Ok(())
    }

    fn audit_data(&self, r: &Report) -> Value {
        json!({ "created": r.created, "duplicates": r.duplicates, "rows": r.rows, "sha256": r.sha256 })
    }
}
