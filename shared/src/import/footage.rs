//! The footage manifest: a spreadsheet (CSV, or an Excel .xlsx) a coach fills in for a day
//! of filming, one row per clip, run through the one import pipeline.
//!
//! Columns (header names matched loosely, order free):
//! - `date` (required): `YYYY-MM-DD`, or an Excel date cell;
//! - `spot` (required): where it was filmed (1 to 200 characters);
//! - `file` (required): the clip's file name as the camera wrote it (1 to 255, no slashes);
//! - `start_time`: the session's start, `HH:MM` UTC (default 08:00);
//! - `title`: the training session's title (default "{spot} {date}");
//! - `athletes`: athletes of the workspace, by email or "First Last", separated by `;` (or
//!   `,`); the first is the clip's athlete, all join the session's roster.
//!
//! Rows with the same date, spot and start are one training session with one footage session;
//! every row is a clip `awaiting_upload`, numbered by its line (`batch_row`). A file named twice
//! in one session is a duplicate row. The batch is the manifest's normalized rows: sending the
//! same rows again (as CSV or as Excel) finds the batch it made and creates nothing.

use super::Report;
use super::pipeline::{Cells, Column, Importer};
use crate::db::{Id, Ts, Tx};
use crate::domain::training::{ParticipantStatus, SessionSource};
use crate::error::{FieldError, Validator};
use crate::repo::{athletes, batches, footage, training};
use crate::times::TimeKind;
use chrono::{NaiveDate, NaiveTime};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};

/// How long a manifest's training session lasts.
pub const SESSION_MINUTES: i64 = 120;

/// Prepares the clips of a manifest as batch `batch_id` (a fresh id; the batch found by the
/// manifest's rows wins when it exists).
pub struct ManifestImporter {
    pub batch_id: Id,
    pub file_name: String,
    pub format: &'static str,
}

/// One valid row.
pub struct Row {
    pub date: NaiveDate,
    pub spot: String,
    pub start: NaiveTime,
    pub title: Option<String>,
    pub file: String,
    pub athletes: Vec<String>,
}

type SessionKey = (NaiveDate, String, NaiveTime);

impl Row {
    fn session_key(&self) -> SessionKey {
        (self.date, self.spot.to_lowercase(), self.start)
    }

    fn key(&self) -> String {
        row_key(
            self.date,
            &self.spot,
            &self.start.format("%H:%M").to_string(),
            &self.file,
        )
    }
}

/// What makes two rows the same clip: day, spot, start (`HH:MM`) and file, case-folded. Rows
/// of this file and rows a batch kept ([`ManifestRow`]) are matched by it.
fn row_key(date: NaiveDate, spot: &str, start: &str, file: &str) -> String {
    format!(
        "{date}|{}|{start}|{}",
        spot.to_lowercase(),
        file.to_lowercase()
    )
}

/// One row as the batch keeps it (`batch_upload_jobs.manifest`): what was asked and what it
/// made.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestRow {
    pub line: u64,
    pub date: NaiveDate,
    pub spot: String,
    pub start_time: String,
    pub title: String,
    pub file: String,
    pub athletes: Vec<Id>,
    pub training_session_id: Id,
    pub session_id: Id,
    pub clip_id: Id,
}

/// What the pipeline's load step found: the workspace's athletes, and the batch these rows
/// made before (its rows by key) when there is one.
pub struct KnownManifest {
    emails: HashMap<String, Id>,
    /// "first last" → the athletes with that name (more than one: ambiguous).
    names: HashMap<String, Vec<Id>>,
    sha256: String,
    existing: Option<(Id, HashMap<String, ManifestRow>)>,
}

fn normalise_name(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl KnownManifest {
    fn athlete(&self, token: &str) -> Result<Id, FieldError> {
        let err = |code, message: String| FieldError {
            field: "athletes".into(),
            code,
            message,
        };
        if token.contains('@') {
            return self
                .emails
                .get(&token.to_lowercase())
                .copied()
                .ok_or_else(|| err("not_found", format!("no athlete with the email {token}")));
        }
        match self.names.get(&normalise_name(token)).map(Vec::as_slice) {
            Some([one]) => Ok(*one),
            Some([_, _, ..]) => Err(err(
                "ambiguous",
                format!("more than one athlete is called {token}; use the email"),
            )),
            _ => Err(err("not_found", format!("no athlete called {token}"))),
        }
    }

    /// The batch these rows belong to: the one found, or the new one.
    pub fn batch(&self, new: Id) -> Id {
        self.existing.as_ref().map_or(new, |(id, _)| *id)
    }
}

/// The SHA-256 of the rows as parsed: the same rows are the same batch, whatever the format
/// or the spacing of the file.
fn rows_sha256(rows: &[(u64, Row)]) -> String {
    let mut canon = String::new();
    for (_, r) in rows {
        canon.push_str(&r.key());
        canon.push('|');
        canon.push_str(&r.title.clone().unwrap_or_default());
        canon.push('|');
        canon.push_str(&r.athletes.join(";").to_lowercase());
        canon.push('\n');
    }
    crate::crypto::hash_token(&canon)
}

impl Importer for ManifestImporter {
    const KIND: &'static str = "footage_manifest";
    const AUDIT_ACTION: &'static str = "footage.batch_prepared";
    const WRITING: &'static str = "preparing sessions and clips";
    const COLUMNS: &'static [Column] = &[
        Column {
            name: "date",
            aliases: &["date", "session_date", "day"],
            required: true,
        },
        Column {
            name: "spot",
            aliases: &["spot", "location", "beach", "break"],
            required: true,
        },
        Column {
            name: "file",
            aliases: &["file", "file_name", "filename", "clip", "video"],
            required: true,
        },
        Column {
            name: "start_time",
            aliases: &["start_time", "start", "time"],
            required: false,
        },
        Column {
            name: "title",
            aliases: &["title", "session"],
            required: false,
        },
        Column {
            name: "athletes",
            aliases: &["athletes", "athlete", "surfers", "surfer", "riders"],
            required: false,
        },
    ];

    type Row = Row;
    type Key = String;
    type Known = KnownManifest;

    fn parse_row(&self, cells: &Cells<'_>, v: &mut Validator) -> Option<Row> {
        let d = cells.get("date");
        let date = NaiveDate::parse_from_str(d, "%Y-%m-%d")
            .or_else(|_| NaiveDate::parse_from_str(d.get(..10).unwrap_or(d), "%Y-%m-%d"))
            .ok();
        if d.is_empty() {
            v.add("date", "required", "must be a date (YYYY-MM-DD)");
        } else if date.is_none() {
            v.add("date", "invalid", "must be a date (YYYY-MM-DD)");
        } else if let Some(d) = date {
            v.date("date", d, TimeKind::Calendar);
        }
        let spot = v.text("spot", cells.get("spot"), 200);
        let file = v.text("file", cells.get("file"), 255);
        v.check(
            !file.contains(['/', '\\']) && !file.chars().any(char::is_control),
            "file",
            "invalid_format",
            "a file name, without folders",
        );
        let t = cells.get("start_time");
        let start = if t.is_empty() {
            NaiveTime::from_hms_opt(8, 0, 0)
        } else {
            NaiveTime::parse_from_str(t, "%H:%M")
                .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M:%S"))
                .ok()
        };
        if start.is_none() {
            v.add(
                "start_time",
                "invalid",
                "must be a time of day (HH:MM, UTC)",
            );
        }
        let title = cells.get("title");
        if title.chars().count() > 200 {
            v.add("title", "too_long", "must be at most 200 characters");
        }
        let athletes: Vec<String> = cells
            .get("athletes")
            .split([';', ','])
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        v.check(
            athletes.len() <= 20,
            "athletes",
            "too_many",
            "at most 20 athletes per clip",
        );
        Some(Row {
            date: date?,
            spot,
            start: start?,
            title: (!title.is_empty()).then(|| title.to_string()),
            file,
            athletes,
        })
    }

    async fn load(
        &self,
        tx: &mut Tx,
        org: Id,
        rows: &[(u64, Row)],
    ) -> Result<KnownManifest, sqlx::Error> {
        let mut emails = HashMap::new();
        let mut names: HashMap<String, Vec<Id>> = HashMap::new();
        for (email, name_key, id) in athletes::dedup_keys(tx, org).await? {
            if let Some(e) = email {
                emails.entry(e).or_insert(id);
            }
            // name_key is "first|last|birth date".
            let mut parts = name_key.split('|');
            let (first, last) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            names
                .entry(normalise_name(&format!("{first} {last}")))
                .or_default()
                .push(id);
        }
        let sha256 = rows_sha256(rows);
        let existing = match batches::by_sha(tx, org, &sha256).await? {
            Some(b) => {
                let rows: Vec<ManifestRow> = serde_json::from_value(b.manifest.0)
                    .map_err(|e| sqlx::Error::Decode(e.into()))?;
                let by_key = rows
                    .into_iter()
                    .map(|r| (row_key(r.date, &r.spot, &r.start_time, &r.file), r))
                    .collect();
                Some((b.id, by_key))
            }
            None => None,
        };
        Ok(KnownManifest {
            emails,
            names,
            sha256,
            existing,
        })
    }

    fn key(&self, known: &KnownManifest, row: &Row) -> Result<String, FieldError> {
        for a in &row.athletes {
            known.athlete(a)?;
        }
        Ok(row.key())
    }

    fn existing(&self, known: &KnownManifest, key: &String) -> Option<Id> {
        known
            .existing
            .as_ref()
            .and_then(|(_, rows)| rows.get(key))
            .map(|r| r.clip_id)
    }

    fn summary(&self, known: &KnownManifest, new_rows: u64) -> (u64, Option<Value>) {
        let batch = known.batch(self.batch_id);
        (
            new_rows,
            Some(json!({ "batchId": batch, "existing": known.existing.is_some() })),
        )
    }

    async fn insert(
        &self,
        tx: &mut Tx,
        org: Id,
        by: Id,
        known: &KnownManifest,
        rows: Vec<(u64, Row)>,
    ) -> Result<(), sqlx::Error> {
        if rows.is_empty() {
            // The same manifest again (every row a duplicate): nothing to make.
            return Ok(());
        }
        let now = Ts::now();
        let mut sessions: HashMap<SessionKey, (Id, Id)> = HashMap::new();
        let mut rosters: HashMap<Id, BTreeSet<Id>> = HashMap::new();
        let mut manifest = Vec::with_capacity(rows.len());
        // The batch row first: clips point at it.
        let batch = batches::Batch {
            id: self.batch_id,
            org_id: org,
            manifest_sha256: known.sha256.clone(),
            file_name: self.file_name.clone(),
            format: self.format.to_string(),
            manifest: sqlx::types::Json(json!([])),
            row_count: rows.len() as i64,
            created_by: Some(by),
            created_at: now,
            updated_at: now,
        };
        batches::insert(tx, &batch).await?;
        for (line, r) in rows {
            let athletes: Vec<Id> = r
                .athletes
                .iter()
                .filter_map(|a| known.athlete(a).ok())
                .collect();
            let title = r
                .title
                .clone()
                .unwrap_or_else(|| format!("{} {}", r.spot, r.date));
            let (training_id, footage_id) = match sessions.get(&r.session_key()) {
                Some(ids) => *ids,
                None => {
                    let starts_at = Ts::from_datetime(r.date.and_time(r.start).and_utc());
                    let s = training::Session {
                        id: Id::new(),
                        org_id: org,
                        title: title.clone(),
                        starts_at,
                        ends_at: starts_at.plus(chrono::Duration::minutes(SESSION_MINUTES)),
                        location: Some(r.spot.clone()),
                        spot: Some(r.spot.clone()),
                        coach_user_id: None,
                        capacity: None,
                        notes: None,
                        source: SessionSource::Import,
                        created_by: Some(by),
                        created_at: now,
                        updated_at: now,
                    };
                    training::insert(tx, &s).await?;
                    let (f, _) = training::provision_footage(tx, org, &s, by).await?;
                    sessions.insert(r.session_key(), (s.id, f.id));
                    (s.id, f.id)
                }
            };
            rosters
                .entry(training_id)
                .or_default()
                .extend(athletes.iter().copied());
            let clip = footage::Clip::awaiting_upload(
                org,
                footage_id,
                athletes.first().copied(),
                r.file.clone(),
                (self.batch_id, line as i64),
                by,
                now,
            );
            footage::insert_clip(tx, &clip).await?;
            manifest.push(ManifestRow {
                line,
                date: r.date,
                spot: r.spot,
                start_time: r.start.format("%H:%M").to_string(),
                title,
                file: r.file,
                athletes,
                training_session_id: training_id,
                session_id: footage_id,
                clip_id: clip.id,
            });
        }
        for (session, athletes) in rosters {
            for a in athletes {
                training::add_participant(
                    tx,
                    org,
                    session,
                    a,
                    ParticipantStatus::Registered,
                    Some(by),
                )
                .await?;
            }
        }
        let json = serde_json::to_value(&manifest).map_err(|e| sqlx::Error::Encode(e.into()))?;
        batches::set_manifest(tx, self.batch_id, json).await?;
        Ok(())
    }

    fn audit_data(&self, report: &Report) -> Value {
        json!({
            "batchId": self.batch_id,
            "fileName": self.file_name,
            "rows": report.rows,
            "clips": report.created,
        })
    }
}

/// The rows of the existing-manifest check, for code outside the pipeline (the resume read).
pub fn manifest_rows(manifest: &Value) -> Vec<ManifestRow> {
    serde_json::from_value(manifest.clone()).unwrap_or_default()
}
