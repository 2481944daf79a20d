//! Season reports (`POST /api/reports/season/{athleteId}`, docs/competition.md "Season
//! reports"): an athlete's season gathered into one JSON document (results, standings and
//! points, goals met, training, footage and watch figures) and rendered as self-contained
//! printable HTML (inline styles, no scripts, nothing fetched). The `reports.season` job calls
//! [`build`], stores both in the sidecars store and records the report.

use std::collections::BTreeMap;

use askama::Template;
use chrono::{Datelike, NaiveDate, NaiveTime};
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::job::{Enqueued, Job, Owner, Queue, enqueue};
use crate::providers::analysis::ClipStats;
use crate::repo::competition as results;
use crate::repo::reports as repo;

use super::competition::strategy;

/// The longest period a report covers.
pub const MAX_DAYS: i64 = 400;

/// The period a report covers: a calendar year (`season`) or explicit dates.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    pub label: String,
    /// Inclusive, YYYY-MM-DD.
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl Period {
    /// From a request: `season` (a year, 2000–2100), or `from` and `to` (at most
    /// [`MAX_DAYS`] days, `to` not before `from`), or neither (this calendar year).
    pub fn new(
        season: Option<i64>,
        from: Option<&str>,
        to: Option<&str>,
        today: NaiveDate,
    ) -> Result<Period> {
        let mut v = Validator::new();
        let date = |v: &mut Validator, field: &str, s: &str| {
            v.date_text(field, s, crate::times::TimeKind::Calendar)
        };
        let period = match (season, from, to) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                v.add("season", "conflict", "give a season or dates, not both");
                None
            }
            (Some(y), None, None) if !(2000..=2100).contains(&y) => {
                v.add(
                    "season",
                    "out_of_range",
                    "a season is a year from 2000 to 2100",
                );
                None
            }
            (y, None, None) => {
                let y = y.map_or(today.year(), |y| y as i32);
                Some(Period {
                    label: y.to_string(),
                    from: NaiveDate::from_ymd_opt(y, 1, 1).expect("a valid year"),
                    to: NaiveDate::from_ymd_opt(y, 12, 31).expect("a valid year"),
                })
            }
            (None, Some(f), Some(t)) => match (date(&mut v, "from", f), date(&mut v, "to", t)) {
                (Some(f), Some(t)) if t < f => {
                    v.add("to", "invalid", "to is before from");
                    None
                }
                (Some(f), Some(t)) if (t - f).num_days() >= MAX_DAYS => {
                    v.add("to", "out_of_range", format!("at most {MAX_DAYS} days"));
                    None
                }
                (Some(f), Some(t)) => Some(Period {
                    label: format!("{f} to {t}"),
                    from: f,
                    to: t,
                }),
                _ => None,
            },
            (None, _, _) => {
                v.add("to", "required", "give both from and to");
                None
            }
        };
        v.finish()?;
        period.ok_or_else(|| Error::field("season", "invalid", "no period"))
    }

    fn start(&self) -> Ts {
        Ts(self.from.and_time(NaiveTime::MIN).and_utc())
    }

    /// The instant after the last day.
    fn end(&self) -> Ts {
        match self.to.succ_opt() {
            Some(next) => Ts(next.and_time(NaiveTime::MIN).and_utc()),
            None => crate::times::latest(),
        }
    }

    fn contains(&self, day: &str) -> bool {
        day.get(..10)
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            .is_some_and(|d| self.from <= d && d <= self.to)
    }
}

#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportResult {
    pub event_name: String,
    pub date: Option<String>,
    pub division: String,
    pub place: Option<i64>,
    pub points: Option<f64>,
    pub provider: String,
}

#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompetitionFigures {
    pub events: usize,
    pub wins: usize,
    /// Places 1–3.
    pub podiums: usize,
    pub best_place: Option<i64>,
    pub results: Vec<ReportResult>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StandingLine {
    pub circuit: String,
    pub division: String,
    pub rank: Option<u32>,
    pub total: f64,
    pub competitors: usize,
    pub qualification_place: Option<u32>,
    pub qualified: Option<bool>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GoalLine {
    pub circuit: String,
    pub division: String,
    pub target_rank: Option<u32>,
    pub rank: Option<u32>,
    pub met: bool,
    pub note: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingFigures {
    /// Sessions marked attended.
    pub attended: i64,
    /// Every session the athlete was on (any status).
    pub sessions: i64,
}

#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FootageFigures {
    pub clips: usize,
    /// Clips with analysis stats.
    pub analysed: usize,
    pub waves: u64,
    pub rides: usize,
    pub top_speed_kmh: Option<f64>,
    /// Maneuvers by kind, most first.
    pub maneuvers: Vec<(String, usize)>,
}

#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchFigures {
    pub sessions: i64,
    pub rides: i64,
    pub distance_km: f64,
    pub top_speed_kmh: Option<f64>,
}

/// The report's JSON document.
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeasonReport {
    pub athlete_id: Id,
    pub athlete_name: String,
    pub season: String,
    pub from: String,
    pub to: String,
    pub generated_at: Ts,
    pub competition: CompetitionFigures,
    /// The standings as they are when the report is made (circuits count their own seasons).
    pub standings: Vec<StandingLine>,
    pub goals: Vec<GoalLine>,
    pub goals_met: usize,
    pub training: TrainingFigures,
    pub footage: FootageFigures,
    pub watch: WatchFigures,
}

impl SeasonReport {
    /// The headline figures kept with the report's row.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "events": self.competition.events,
            "wins": self.competition.wins,
            "podiums": self.competition.podiums,
            "goals": self.goals.len(),
            "goalsMet": self.goals_met,
            "sessionsAttended": self.training.attended,
            "clips": self.footage.clips,
            "waves": self.footage.waves,
            "watchRides": self.watch.rides,
        })
    }
}

/// Gathers the athlete's season (404 when the athlete is not the workspace's).
pub async fn build(db: &Db, org: Id, athlete: Id, period: &Period) -> Result<SeasonReport> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, org, athlete).await?;
    let mut rows: Vec<ReportResult> = results::results_of(&mut c, a.id)
        .await?
        .into_iter()
        .filter(|r| r.event_date.as_deref().is_some_and(|d| period.contains(d)))
        .map(|r| ReportResult {
            event_name: r.event_name,
            date: r.event_date,
            division: r.division,
            place: r.place,
            points: r.points,
            provider: r.provider.to_string(),
        })
        .collect();
    rows.sort_by(|x, y| x.date.cmp(&y.date).then(x.event_name.cmp(&y.event_name)));
    let places: Vec<i64> = rows.iter().filter_map(|r| r.place).collect();
    let competition = CompetitionFigures {
        events: rows.len(),
        wins: places.iter().filter(|p| **p == 1).count(),
        podiums: places.iter().filter(|p| (1..=3).contains(*p)).count(),
        best_place: places.iter().copied().min(),
        results: rows,
    };

    let (start, end) = (period.start(), period.end());
    let counts = repo::training_counts(&mut c, a.id, start, end).await?;
    let training = TrainingFigures {
        attended: counts
            .iter()
            .filter(|(s, _)| s == "attended")
            .map(|(_, n)| n)
            .sum(),
        sessions: counts.iter().map(|(_, n)| n).sum(),
    };

    let clips = repo::clips(&mut c, a.id, start, end).await?;
    let mut footage = FootageFigures {
        clips: clips.len(),
        ..Default::default()
    };
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for stats in clips.iter().filter_map(|(_, s)| s.as_ref()) {
        let Ok(s) = serde_json::from_value::<ClipStats>(stats.0.clone()) else {
            continue;
        };
        footage.analysed += 1;
        footage.waves += u64::from(s.wave_count);
        footage.rides += s.rides.len();
        footage.top_speed_kmh = Some(
            footage
                .top_speed_kmh
                .map_or(s.top_speed_kmh, |t| t.max(s.top_speed_kmh)),
        );
        for m in &s.maneuvers {
            *kinds.entry(m.kind.clone()).or_default() += 1;
        }
    }
    let mut maneuvers: Vec<(String, usize)> = kinds.into_iter().collect();
    maneuvers.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    footage.maneuvers = maneuvers;

    let w = repo::watch(&mut c, a.id, start, end).await?;
    let watch = WatchFigures {
        sessions: w.sessions,
        rides: w.rides,
        distance_km: (w.distance_m.unwrap_or(0.0) / 10.0).round() / 100.0,
        top_speed_kmh: w.top_speed_kmh,
    };
    drop(c);

    let view = strategy::view_in(db, org, a.id, None, None).await?;
    let mut standings = Vec::new();
    let mut goals = Vec::new();
    for circuit in &view.circuits {
        for d in &circuit.divisions {
            standings.push(StandingLine {
                circuit: circuit.name.clone(),
                division: d.division_name.clone(),
                rank: d.rank,
                total: d.total,
                competitors: d.competitors,
                qualification_place: circuit.rules.qualification_place,
                qualified: d
                    .qualification
                    .as_ref()
                    .map(|q| q.reached && d.rank.is_some()),
            });
            if let Some(g) = &d.goal {
                goals.push(GoalLine {
                    circuit: circuit.name.clone(),
                    division: d.division_name.clone(),
                    target_rank: g.target_rank,
                    rank: d.rank,
                    met: g.met,
                    note: g.goal.note.clone(),
                });
            }
        }
    }
    Ok(SeasonReport {
        athlete_id: a.id,
        athlete_name: format!("{} {}", a.first_name, a.last_name),
        season: period.label.clone(),
        from: period.from.to_string(),
        to: period.to.to_string(),
        generated_at: Ts::now(),
        competition,
        standings,
        goals_met: goals.iter().filter(|g| g.met).count(),
        goals,
        training,
        footage,
        watch,
    })
}

/// The printable page: askama escapes every value, the styles are inline, and nothing is
/// fetched (no scripts, fonts or images), so the file prints and archives as it is.
#[derive(Template)]
#[template(path = "season_report.html")]
struct Page<'a> {
    r: &'a SeasonReport,
}

impl Page<'_> {
    fn text(&self, s: &Option<String>) -> String {
        s.clone().unwrap_or_else(|| "–".into())
    }

    fn place(&self, p: &Option<i64>) -> String {
        p.as_ref().map_or_else(|| "–".into(), ordinal)
    }

    fn number(&self, f: &f64) -> String {
        if f.fract() == 0.0 {
            format!("{f:.0}")
        } else {
            format!("{f:.1}")
        }
    }

    fn points(&self, f: &Option<f64>) -> String {
        f.as_ref().map_or_else(|| "–".into(), |f| self.number(f))
    }

    fn rank_opt(&self, r: &Option<u32>) -> String {
        r.map_or_else(|| "–".into(), |r| r.to_string())
    }

    fn rank(&self, r: &Option<u32>, of: &usize) -> String {
        r.map_or_else(
            || "–".into(),
            |r| format!("{} of {of}", ordinal(&i64::from(r))),
        )
    }
}

/// Renders the report as one self-contained HTML document.
pub fn html(r: &SeasonReport) -> Result<String> {
    Page { r }.render().map_err(Error::internal)
}

/// "1st", "2nd", "11th", ...
pub fn ordinal(n: &i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Where a report's objects live in the sidecars store.
fn keys(org: Id, id: Id) -> (String, String) {
    let base = format!("reports/season/{org}/{id}");
    (format!("{base}.json"), format!("{base}.html"))
}

/// A season report (`POST /api/reports/season/{athleteId}`): built, stored and recorded
/// under the job's id, so a retry rewrites the same report ([`generate`]). The same report
/// asked again while one is being made joins it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateReport {
    pub org_id: Id,
    pub user_id: Option<Id>,
    pub athlete_id: Id,
    pub period: Period,
}

impl Job for GenerateReport {
    const KIND: &'static str = "reports.season";
    const QUEUE: Queue = Queue::Default;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!(
            "{}:{}:{}:{}",
            self.org_id, self.athlete_id, self.period.from, self.period.to
        ))
    }
}

/// Asks for the athlete's report over `period` (404 when the athlete is not the workspace's):
/// the job, with an audit entry naming it.
pub async fn request(db: &Db, ws: &InWorkspace, athlete: Id, period: Period) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let a = super::athletes::load(&mut tx, ws.org_id, athlete).await?;
    let label = period.label.clone();
    let job = GenerateReport {
        org_id: ws.org_id,
        user_id: Some(ws.actor.user_id),
        athlete_id: a.id,
        period,
    };
    let owner = Owner::new(ws.org_id, Some(ws.actor.user_id));
    let queued = enqueue(&mut tx, &job, owner).await?;
    crate::repo::audit::record(
        &mut tx,
        ws.audit(
            "report.season_requested",
            "athlete",
            a.id,
            serde_json::json!({ "jobId": queued.id, "season": label }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(queued)
}

/// Builds the report, stores its JSON and HTML and records it under `id` (the job's id: a
/// retry overwrites the same objects and finds the row written). The stored row.
pub async fn generate(
    db: &Db,
    storage: &crate::storage::Storage,
    org: Id,
    athlete: Id,
    period: &Period,
    id: Id,
    by: Option<Id>,
) -> Result<repo::ReportRow> {
    let report = build(db, org, athlete, period).await?;
    let page = html(&report)?;
    let doc = serde_json::to_vec_pretty(&report).map_err(Error::internal)?;
    let (json_key, html_key) = keys(org, id);
    let store = crate::storage::Store::Sidecars;
    storage
        .put_bytes(store, &json_key, doc.into(), "application/json")
        .await
        .map_err(Error::internal)?;
    let html_bytes = storage
        .put_bytes(store, &html_key, page.into(), "text/html; charset=utf-8")
        .await
        .map_err(Error::internal)?;
    let row = repo::ReportRow {
        id,
        athlete_id: athlete,
        label: period.label.clone(),
        period_from: period.from.to_string(),
        period_to: period.to.to_string(),
        json_key,
        html_key,
        html_bytes: html_bytes as i64,
        summary: sqlx::types::Json(report.summary()),
        created_by: by,
        created_at: Ts::now(),
    };
    let mut c = db.acquire().await?;
    repo::insert(&mut c, org, &row).await?;
    Ok(repo::get(&mut c, org, athlete, id).await?.unwrap_or(row))
}

/// The athlete's reports, newest first (404 when the athlete is not the workspace's).
pub async fn list(
    db: &Db,
    org: Id,
    athlete: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<repo::ReportRow>> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, org, athlete).await?;
    Ok(repo::list(&mut c, org, a.id, limit, offset).await?)
}

/// One report's row, 404 unless it is this athlete's in this workspace.
pub async fn get(db: &Db, org: Id, athlete: Id, id: Id) -> Result<repo::ReportRow> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, org, athlete).await?;
    repo::get(&mut c, org, a.id, id)
        .await?
        .ok_or_else(|| Error::not_found("report"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_period_is_a_season_or_two_dates() {
        let today = day("2026-11-24");
        let p = Period::new(None, None, None, today).unwrap();
        assert_eq!(
            (p.label.as_str(), p.from, p.to),
            ("2026", day("2026-01-01"), day("2026-12-31"))
        );
        let p = Period::new(Some(2025), None, None, today).unwrap();
        assert_eq!(p.to, day("2025-12-31"));
        let p = Period::new(None, Some("2025-10-01"), Some("2026-04-30"), today).unwrap();
        assert_eq!(p.label, "2025-10-01 to 2026-04-30");
        assert!(p.contains("2026-04-30T10:00:00Z"));
        assert!(!p.contains("2026-05-01"));
        assert_eq!(p.end().0.to_rfc3339(), "2026-05-01T00:00:00+00:00");
        for (season, from, to) in [
            (Some(1999), None, None),
            (Some(2026), Some("2026-01-01"), None),
            (None, Some("2026-01-01"), None),
            (None, Some("2026-02-01"), Some("2026-01-01")),
            (None, Some("2025-01-01"), Some("2026-03-01")),
            (None, Some("01/01/2026"), Some("2026-03-01")),
        ] {
            assert!(
                Period::new(season, from, to, today).is_err(),
                "{season:?} {from:?} {to:?}"
            );
        }
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    #[test]
    fn the_page_escapes_and_fetches_nothing() {
        let r = SeasonReport {
            athlete_id: Id::new(),
            athlete_name: "<script>alert(1)</script> O'Neill".into(),
            season: "2026".into(),
            from: "2026-01-01".into(),
            to: "2026-12-31".into(),
            generated_at: Ts::now(),
            competition: CompetitionFigures {
                events: 1,
                wins: 1,
                podiums: 1,
                best_place: Some(1),
                results: vec![ReportResult {
                    event_name: "Bells & Whistles".into(),
                    date: Some("2026-04-12".into()),
                    division: "Open".into(),
                    place: Some(1),
                    points: Some(1000.0),
                    provider: "heatsource".into(),
                }],
            },
            standings: vec![],
            goals: vec![],
            goals_met: 0,
            training: TrainingFigures::default(),
            footage: FootageFigures::default(),
            watch: WatchFigures::default(),
        };
        let h = html(&r).unwrap();
        assert!(h.starts_with("<!doctype html>"));
        assert!(!h.contains("<script"), "escaped: {h}");
        assert!(
            h.contains("script") && h.contains("alert(1)"),
            "kept as text"
        );
        assert!(!h.contains("Bells & Whistles") && h.contains("Whistles"));
        assert!(h.contains("1st"));
        for fetch in ["src=", "href=", "@import", "url("] {
            assert!(!h.contains(fetch), "{fetch} in the page");
        }
    }
}
