//! The training-session import: past sessions with attendance, one row per participant.
//!
//! Columns: `title`, `starts_at` (required; RFC 3339, or `YYYY-MM-DD HH:MM` in UTC, in the past),
//! `ends_at` or `duration_minutes` (default 60), `location`, `spot`, `athlete_email` (an athlete
//! of the workspace; empty: the row names only the session), `attendance` (attended or no_show;
//! yes/present and no/absent too; default attended).
//! Rows with the same title and start are one session; a session that exists (same title and
//! start) is reused and an athlete already on its roster is a duplicate, so a file sent twice
//! imports nothing the second time.

use super::{Report, Sheet, cell};
use crate::db::{Executor, Id, Ts};
use crate::error::Validator;
use crate::repo::{athletes, training};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::json;
use std::collections::{HashMap, HashSet};

pub struct Row {
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub athlete_email: Option<String>,
    pub attendance: String,
}

pub struct Parsed {
    pub rows: Vec<(u64, Row)>,
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

pub fn parse(data: &[u8], report: &mut Report) -> Parsed {
    let mut out = Parsed { rows: vec![] };
    let Some(sheet) = Sheet::read(data, report) else {
        return out;
    };
    let title = sheet.column(&["title", "session", "name"]);
    let starts = sheet.column(&["starts_at", "start", "date", "starts"]);
    if title.is_none() || starts.is_none() {
        report.error(
            1,
            "header",
            "required",
            "the header must name title and starts_at columns",
        );
        return out;
    }
    let ends = sheet.column(&["ends_at", "end", "ends"]);
    let duration = sheet.column(&["duration_minutes", "duration"]);
    let location = sheet.column(&["location"]);
    let spot = sheet.column(&["spot"]);
    let email = sheet.column(&["athlete_email", "email"]);
    let attendance = sheet.column(&["attendance", "attended", "status"]);
    let now = Ts::now();
    for (line, rec) in &sheet.records {
        let mut v = Validator::new();
        let t = v.text("title", cell(rec, title), 200);
        let s_raw = cell(rec, starts);
        let s = parse_time(s_raw);
        if s_raw.is_empty() {
            v.add("starts_at", "required", "must be a time");
        } else if s.is_none() {
            v.add(
                "starts_at",
                "invalid",
                "must be RFC 3339 or YYYY-MM-DD HH:MM (UTC)",
            );
        } else if s.is_some_and(|s| s >= now) {
            v.add(
                "starts_at",
                "out_of_range",
                "only past sessions can be imported",
            );
        }
        let e_raw = cell(rec, ends);
        let d_raw = cell(rec, duration);
        let e = if !e_raw.is_empty() {
            let e = parse_time(e_raw);
            if e.is_none() {
                v.add(
                    "ends_at",
                    "invalid",
                    "must be RFC 3339 or YYYY-MM-DD HH:MM (UTC)",
                );
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
        if let (Some(s), Some(e)) = (s, e) {
            v.check(e > s, "ends_at", "out_of_range", "must be after starts_at");
        }
        let loc = opt(cell(rec, location), 200, &mut v, "location");
        let sp = opt(cell(rec, spot), 200, &mut v, "spot");
        let em = cell(rec, email);
        let em = (!em.is_empty()).then(|| v.email("athlete_email", em));
        let att = match cell(rec, attendance).to_lowercase().as_str() {
            "" | "attended" | "yes" | "present" | "y" | "1" | "true" => "attended",
            "no_show" | "no-show" | "noshow" | "no" | "absent" | "n" | "0" | "false" => "no_show",
            _ => {
                v.add(
                    "attendance",
                    "invalid_choice",
                    "must be attended or no_show",
                );
                "attended"
            }
        };
        let errors = v.into_errors();
        if errors.is_empty() {
            out.rows.push((
                *line,
                Row {
                    title: t,
                    starts_at: s.expect("validated"),
                    ends_at: e.expect("validated"),
                    location: loc,
                    spot: sp,
                    athlete_email: em,
                    attendance: att.into(),
                },
            ));
        } else {
            for f in errors {
                report.error(*line, &f.field, f.code, f.message);
            }
        }
    }
    out
}

/// Matches athletes, deduplicates sessions and roster entries, and (unless a dry run or the file
/// had errors) writes. Run in a transaction.
pub async fn commit(
    x: &mut impl Executor,
    org: Id,
    by: Id,
    parsed: Parsed,
    report: &mut Report,
) -> Result<(), sqlx::Error> {
    let mut emails: HashMap<String, Id> = HashMap::new();
    for (email, _, id) in athletes::dedup_keys(x, org).await? {
        if let Some(e) = email {
            emails.entry(e).or_insert(id);
        }
    }
    for (line, r) in &parsed.rows {
        if let Some(e) = &r.athlete_email
            && !emails.contains_key(e)
        {
            report.error(
                *line,
                "athlete_email",
                "not_found",
                "no athlete with this email in the workspace",
            );
        }
    }
    let write = !report.dry_run && report.error_count == 0;
    if write {
        athletes::lock_org_for_import(x, org).await?;
    }
    // (lower title, start) → (session id, exists in the database)
    let mut sessions: HashMap<(String, Ts), (Id, bool)> = HashMap::new();
    let mut seen: HashSet<(Id, Id)> = HashSet::new();
    let (mut sessions_created, mut sessions_existing, mut participants_created) =
        (0u64, 0u64, 0u64);
    for (line, r) in parsed.rows {
        let key = (r.title.to_lowercase(), r.starts_at);
        let (sid, existed, first_time) = match sessions.get(&key) {
            Some((id, existed)) => (*id, *existed, false),
            None => {
                let (id, existed) =
                    match training::by_title_and_start(x, org, &r.title, r.starts_at).await? {
                        Some(s) => (s.id, true),
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
                                source: "import".into(),
                                created_by: Some(by),
                                created_at: now,
                                updated_at: now,
                            };
                            if write {
                                training::insert(x, &s).await?;
                            }
                            (s.id, false)
                        }
                    };
                if existed {
                    sessions_existing += 1;
                } else {
                    sessions_created += 1;
                }
                sessions.insert(key, (id, existed));
                (id, existed, true)
            }
        };
        let Some(email) = &r.athlete_email else {
            if existed && first_time {
                report.duplicate(line, Some(sid.to_string()), None);
            }
            continue;
        };
        let Some(athlete) = emails.get(email).copied() else {
            continue;
        };
        if !seen.insert((sid, athlete)) {
            report.duplicate(line, None, None);
            continue;
        }
        if existed && training::participant(x, sid, athlete).await?.is_some() {
            report.duplicate(line, Some(sid.to_string()), None);
            continue;
        }
        if write {
            training::add_participant(x, org, sid, athlete, &r.attendance, Some(by)).await?;
        }
        participants_created += 1;
    }
    report.created = sessions_created + participants_created;
    report.details = Some(json!({
        "sessionsCreated": sessions_created,
        "sessionsExisting": sessions_existing,
        "participantsCreated": participants_created,
    }));
    report.committed = write;
    Ok(())
}
