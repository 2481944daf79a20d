//! The training-session import: past sessions with attendance, one row per participant.
//!
//! Columns: `title`, `starts_at` (required; RFC 3339, or `YYYY-MM-DD HH:MM` in UTC, in the past),
//! `ends_at` or `duration_minutes` (default 60), `location`, `spot`, `athlete_email` (an athlete
//! of the workspace; empty: the row names only the session), `attendance` (attended or no_show;
//! yes/present and no/absent too; default attended).
//! Rows with the same title and start are one session; a session that exists (same title and
//! start) is reused and an athlete already on its roster is a duplicate, so a file sent twice
//! imports nothing the second time.

use super::Report;
use super::pipeline::{Cells, Column, Earlier, Importer, Verdict};
use crate::db::{Id, Ts, Tx};
use crate::domain::training::{ParticipantStatus, SessionSource};
use crate::error::{FieldError, Validator};
use crate::repo::{athletes, training};
use crate::times::TimeKind;
use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// Imports past training sessions and their attendance into a workspace.
#[derive(Default)]
pub struct TrainingImporter;

impl super::Background for TrainingImporter {
    const JOB_KIND: &'static str = "training.import";
}

/// One valid row: a session and, when it names an athlete, their attendance.
pub struct Row {
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub athlete_email: Option<String>,
    pub attendance: ParticipantStatus,
}

impl Row {
    /// The rows of one session share it: title (case-folded) and start.
    fn session_key(&self) -> (String, Ts) {
        (self.title.to_lowercase(), self.starts_at)
    }
}

/// A session the file names: an existing one, or one to make from its first row.
struct FileSession {
    id: Id,
    /// The session to insert; `None` when it exists.
    new: Option<training::Session>,
    /// The athletes on an existing session's roster.
    roster: HashSet<Id>,
    /// The line of its first row.
    first_line: u64,
}

/// The workspace's athletes by email and the file's sessions (in file order).
pub struct KnownTraining {
    emails: HashMap<String, Id>,
    sessions: Vec<FileSession>,
    by_key: HashMap<(String, Ts), usize>,
    by_id: HashMap<Id, usize>,
}

impl KnownTraining {
    fn session(&self, row: &Row) -> &FileSession {
        &self.sessions[self.by_key[&row.session_key()]]
    }
}

fn parse_time(s: &str) -> Option<Ts> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(Ts::from_datetime(t.with_timezone(&Utc)));
    }
    for f in ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, f) {
            return Some(Ts::from_datetime(t.and_utc()));
        }
    }
    None
}

fn opt(s: &str, max: usize, v: &mut Validator, field: &str) -> Option<String> {
    if s.chars().count() > max {
        v.add(
            field,
            "too_long",
            format!("must be at most {max} characters"),
        );
    }
    (!s.is_empty()).then(|| s.to_string())
}

const TIME_FORMATS: &str = "must be RFC 3339 or YYYY-MM-DD HH:MM (UTC)";

impl Importer for TrainingImporter {
    const KIND: &'static str = "training";
    const AUDIT_ACTION: &'static str = "training.imported";
    const WRITING: &'static str = "matching athletes and writing";
    const COLUMNS: &'static [Column] = &[
        Column {
            name: "title",
            aliases: &["title", "session", "name"],
            required: true,
        },
        Column {
            name: "starts_at",
            aliases: &["starts_at", "start", "date", "starts"],
            required: true,
        },
        Column {
            name: "ends_at",
            aliases: &["ends_at", "end", "ends"],
            required: false,
        },
        Column {
            name: "duration_minutes",
            aliases: &["duration_minutes", "duration"],
            required: false,
        },
        Column {
            name: "location",
            aliases: &["location"],
            required: false,
        },
        Column {
            name: "spot",
            aliases: &["spot"],
            required: false,
        },
        Column {
            name: "athlete_email",
            aliases: &["athlete_email", "email"],
            required: false,
        },
        Column {
            name: "attendance",
            aliases: &["attendance", "attended", "status"],
            required: false,
        },
    ];

    type Row = Row;
    /// (session, athlete): an athlete appears once per session.
    type Key = (Id, Id);
    type Known = KnownTraining;

    fn parse_row(&self, cells: &Cells<'_>, v: &mut Validator) -> Option<Row> {
        let title = v.text("title", cells.get("title"), 200);
        let s_raw = cells.get("starts_at");
        let s = parse_time(s_raw);
        if s_raw.is_empty() {
            v.add("starts_at", "required", "must be a time");
        } else if s.is_none() {
            v.add("starts_at", "invalid", TIME_FORMATS);
        } else if s.is_some_and(|s| !v.time("starts_at", s, TimeKind::Calendar)) {
        } else if s.is_some_and(|s| s >= cells.now()) {
            v.add(
                "starts_at",
                "out_of_range",
                "only past sessions can be imported",
            );
        }
        let e_raw = cells.get("ends_at");
        let d_raw = cells.get("duration_minutes");
        let e = if !e_raw.is_empty() {
            let e = parse_time(e_raw);
            if e.is_none() {
                v.add("ends_at", "invalid", TIME_FORMATS);
            }
            e
        } else {
            let minutes = if d_raw.is_empty() {
                Some(60)
            } else {
                d_raw
                    .parse::<i64>()
                    .ok()
                    .filter(|m| (1..=24 * 60).contains(m))
            };
            if minutes.is_none() {
                v.add(
                    "duration_minutes",
                    "out_of_range",
                    "must be 1 to 1440 minutes",
                );
            }
            s.zip(minutes)
                .map(|(s, m)| s.plus(chrono::Duration::minutes(m)))
        };
        // A given end is range-checked; one derived from a duration follows its start's check.
        if let (Some(s), Some(e)) = (s, e)
            && (e_raw.is_empty() || v.time("ends_at", e, TimeKind::Calendar))
        {
            v.check(e > s, "ends_at", "out_of_range", "must be after starts_at");
        }
        let location = opt(cells.get("location"), 200, v, "location");
        let spot = opt(cells.get("spot"), 200, v, "spot");
        let em = cells.get("athlete_email");
        let athlete_email = (!em.is_empty()).then(|| v.email("athlete_email", em));
        let attendance = match cells.get("attendance").to_lowercase().as_str() {
            "" | "attended" | "yes" | "present" | "y" | "1" | "true" => ParticipantStatus::Attended,
            "no_show" | "no-show" | "noshow" | "no" | "absent" | "n" | "0" | "false" => {
                ParticipantStatus::NoShow
            }
            _ => {
                v.add(
                    "attendance",
                    "invalid_choice",
                    "must be attended or no_show",
                );
                ParticipantStatus::Attended
            }
        };
        Some(Row {
            title,
            starts_at: s?,
            ends_at: e?,
            location,
            spot,
            athlete_email,
            attendance,
        })
    }

    async fn load(
        &self,
        tx: &mut Tx,
        org: Id,
        rows: &[(u64, Row)],
    ) -> Result<KnownTraining, sqlx::Error> {
        let mut emails = HashMap::new();
        for (email, _, id) in athletes::dedup_keys(tx, org).await? {
            if let Some(e) = email {
                emails.entry(e).or_insert(id);
            }
        }
        let mut known = KnownTraining {
            emails,
            sessions: vec![],
            by_key: HashMap::new(),
            by_id: HashMap::new(),
        };
        for (line, r) in rows {
            let key = r.session_key();
            if known.by_key.contains_key(&key) {
                continue;
            }
            let s = match training::by_title_and_start(tx, org, &r.title, r.starts_at).await? {
                Some(s) => FileSession {
                    id: s.id,
                    new: None,
                    roster: training::roster_athletes(tx, s.id)
                        .await?
                        .into_iter()
                        .collect(),
                    first_line: *line,
                },
                None => {
                    let now = Ts::now();
                    let s = training::Session {
                        id: Id::new(),
                        org_id: org,
                        title: r.title.clone(),
                        starts_at: r.starts_at,
                        ends_at: r.ends_at,
                        location: r.location.clone(),
                        spot: r.spot.clone(),
                        coach_user_id: None,
                        capacity: None,
                        notes: None,
                        source: SessionSource::Import,
                        created_by: None,
                        created_at: now,
                        updated_at: now,
                    };
                    FileSession {
                        id: s.id,
                        new: Some(s),
                        roster: HashSet::new(),
                        first_line: *line,
                    }
                }
            };
            known.by_key.insert(key, known.sessions.len());
            known.by_id.entry(s.id).or_insert(known.sessions.len());
            known.sessions.push(s);
        }
        Ok(known)
    }

    fn key(&self, known: &KnownTraining, row: &Row) -> Result<(Id, Id), FieldError> {
        let athlete = row
            .athlete_email
            .as_ref()
            .and_then(|e| known.emails.get(e))
            .ok_or_else(|| FieldError {
                field: "athlete_email".into(),
                code: "not_found",
                message: "no athlete with this email in the workspace".into(),
            })?;
        Ok((known.session(row).id, *athlete))
    }

    fn existing(&self, known: &KnownTraining, &(session, athlete): &(Id, Id)) -> Option<Id> {
        let s = &known.sessions[known.by_id[&session]];
        (s.new.is_none() && s.roster.contains(&athlete)).then_some(s.id)
    }

    /// A row without an athlete only names its session: a duplicate when it is the session's
    /// first row and the session exists, else nothing. A row with one is a participant: a
    /// repeat of an earlier row (reported without the line), a duplicate of an existing
    /// roster entry, or new.
    fn dedupe(
        &self,
        known: &mut KnownTraining,
        line: u64,
        row: &Row,
        earlier: &mut Earlier<(Id, Id)>,
    ) -> Verdict {
        let session = known.session(row);
        if row.athlete_email.is_none() {
            return if session.new.is_none() && session.first_line == line {
                Verdict::Exists(session.id)
            } else {
                Verdict::Nothing
            };
        }
        let key = match self.key(known, row) {
            Ok(k) => k,
            Err(e) => return Verdict::Invalid(e),
        };
        if earlier.first(key, line).is_some() {
            return Verdict::Repeats(None);
        }
        match self.existing(known, &key) {
            Some(id) => Verdict::Exists(id),
            None => Verdict::New,
        }
    }

    fn summary(&self, known: &KnownTraining, participants: u64) -> (u64, Option<Value>) {
        let existing = known.sessions.iter().filter(|s| s.new.is_none()).count() as u64;
        let created = known.sessions.len() as u64 - existing;
        let details = json!({
            "sessionsCreated": created,
            "sessionsExisting": existing,
            "participantsCreated": participants,
        });
        (created + participants, Some(details))
    }

    async fn insert(
        &self,
        tx: &mut Tx,
        org: Id,
        by: Id,
        known: &KnownTraining,
        rows: Vec<(u64, Row)>,
    ) -> Result<(), sqlx::Error> {
        // Sessions first (each as its first row has it, in file order), then the participants.
        for s in known.sessions.iter().filter_map(|s| s.new.as_ref()) {
            let s = training::Session {
                created_by: Some(by),
                ..s.clone()
            };
            training::insert(tx, &s).await?;
        }
        for (_, r) in &rows {
            let s = known.session(r);
            let athlete = known.emails[r.athlete_email.as_ref().expect("a participant row")];
            training::add_participant(tx, org, s.id, athlete, r.attendance, Some(by)).await?;
        }
        Ok(())
    }

    fn audit_data(&self, r: &Report) -> Value {
        json!({ "rows": r.rows, "details": r.details, "sha256": r.sha256 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(title: &str, email: Option<&str>) -> Row {
        let t = parse_time("2025-03-01 06:00").unwrap();
        Row {
            title: title.into(),
            starts_at: t,
            ends_at: t,
            location: None,
            spot: None,
            athlete_email: email.map(Into::into),
            attendance: ParticipantStatus::Attended,
        }
    }

    /// Known data for sessions (title, existing?, roster) and athletes by email.
    fn known(
        rows: &[(u64, Row)],
        existing: &[(&str, &[Id])],
        emails: &[(&str, Id)],
    ) -> KnownTraining {
        let mut k = KnownTraining {
            emails: emails.iter().map(|(e, id)| (e.to_string(), *id)).collect(),
            sessions: vec![],
            by_key: HashMap::new(),
            by_id: HashMap::new(),
        };
        for (line, r) in rows {
            if k.by_key.contains_key(&r.session_key()) {
                continue;
            }
            let ex = existing.iter().find(|(t, _)| *t == r.title);
            let s = FileSession {
                id: Id::new(),
                new: ex.is_none().then(|| training::Session {
                    id: Id::new(),
                    org_id: Id::new(),
                    title: r.title.clone(),
                    starts_at: r.starts_at,
                    ends_at: r.ends_at,
                    location: None,
                    spot: None,
                    coach_user_id: None,
                    capacity: None,
                    notes: None,
                    source: SessionSource::Import,
                    created_by: None,
                    created_at: r.starts_at,
                    updated_at: r.starts_at,
                }),
                roster: ex
                    .map(|(_, r)| r.iter().copied().collect())
                    .unwrap_or_default(),
                first_line: *line,
            };
            k.by_key.insert(r.session_key(), k.sessions.len());
            k.by_id.insert(s.id, k.sessions.len());
            k.sessions.push(s);
        }
        k
    }

    fn verdicts(rows: &[(u64, Row)], k: &mut KnownTraining) -> Vec<Verdict> {
        let mut earlier = Earlier::new();
        rows.iter()
            .map(|(l, r)| TrainingImporter.dedupe(k, *l, r, &mut earlier))
            .collect()
    }

    #[test]
    fn rows_naming_only_a_session_are_a_duplicate_once_and_only_when_it_exists() {
        let (kai, mia) = (Id::new(), Id::new());
        let rows = vec![
            (2, row("Dawn", None)),
            (3, row("Dawn", None)),
            (4, row("Dawn", Some("kai@x.io"))),
            (5, row("Dusk", None)),
            (6, row("Dusk", None)),
        ];
        let mut k = known(
            &rows,
            &[("Dawn", &[kai])],
            &[("kai@x.io", kai), ("mia@x.io", mia)],
        );
        let dawn = k.sessions[0].id;
        assert_eq!(
            verdicts(&rows, &mut k),
            [
                Verdict::Exists(dawn),
                Verdict::Nothing,
                Verdict::Exists(dawn),
                Verdict::Nothing,
                Verdict::Nothing
            ]
        );
        assert_eq!(
            TrainingImporter.summary(&k, 0).1.unwrap(),
            json!({ "sessionsCreated": 1, "sessionsExisting": 1, "participantsCreated": 0 })
        );
    }

    #[test]
    fn repeated_participants_are_reported_without_the_line_and_unknown_emails_are_errors() {
        let kai = Id::new();
        let rows = vec![
            (2, row("Dawn", Some("kai@x.io"))),
            (3, row("Dawn", Some("kai@x.io"))),
            (4, row("Dawn", Some("ghost@x.io"))),
        ];
        let mut k = known(&rows, &[], &[("kai@x.io", kai)]);
        let v = verdicts(&rows, &mut k);
        assert_eq!(v[..2], [Verdict::New, Verdict::Repeats(None)]);
        assert!(
            matches!(&v[2], Verdict::Invalid(f) if f.field == "athlete_email" && f.code == "not_found")
        );
    }
}
