//! Season reports (`/w/{ws}/competition/reports`): an athlete's reports (as `GET
//! /api/reports/season/{athleteId}`), the form that asks for one (as the POST: a job whose
//! progress page leads back here), one report read on the page, and its printable HTML as a
//! download (the API's own download, `areas::reports::download`).

use super::{AthleteQuery, chosen_id, roster};
use crate::areas::desk::footage::job_page;
use crate::areas::desk::{Chrome, Desk, DeskForm, Pager, opt, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::areas::reports::{document, download as report_download};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::db::Id;
use shared::domain::season_report::{self, Period, SeasonReport};

const PAGE: i64 = 25;
const HERE: &str = "/competition/reports";

pub struct ReportLine {
    pub id: Id,
    pub label: String,
    pub period: String,
    pub made: String,
    pub iso: String,
    /// The headline figures kept with the row: (catalogue key, value).
    pub figures: Vec<(&'static str, String)>,
    pub kib: String,
}

/// The figures a listed report shows, from its stored summary, in this order.
const FIGURES: [(&str, &str); 5] = [
    ("events", "rep.events"),
    ("wins", "rep.wins"),
    ("podiums", "rep.podiums"),
    ("sessionsAttended", "rep.attended"),
    ("watchRides", "rep.watch_rides"),
];

#[derive(Default)]
pub struct AskForm {
    pub season: String,
    pub from: String,
    pub to: String,
}

#[derive(Template)]
#[template(path = "desk/competition_b/reports.html")]
pub struct ReportsPage {
    c: Chrome,
    roster: Vec<(Id, String)>,
    athlete: Option<Id>,
    athlete_name: Option<String>,
    reports: Vec<ReportLine>,
    pager: Pager,
    form: AskForm,
    year: i32,
    notice: Option<Notice>,
    base: String,
}

impl ReportsPage {
    fn is_athlete(&self, id: &Id) -> bool {
        self.athlete.as_ref() == Some(id)
    }
}

async fn reports_page(
    state: &AppState,
    desk: &Desk,
    athlete: Option<Id>,
    offset: i64,
    form: AskForm,
    notice: Option<Notice>,
) -> Result<ReportsPage, Error> {
    let mut rows = match athlete {
        Some(a) => season_report::list(&state.db, desk.org(), a, PAGE + 1, offset).await?,
        None => Vec::new(),
    };
    let pager = Pager::cut(&mut rows, offset, PAGE);
    let roster = roster(state, desk).await?;
    Ok(ReportsPage {
        c: Chrome::new(desk, desk.cat.t("rep.title")),
        athlete_name: athlete.and_then(|a| roster.iter().find(|r| r.0 == a).map(|r| r.1.clone())),
        roster,
        athlete,
        reports: rows
            .into_iter()
            .map(|r| ReportLine {
                figures: FIGURES
                    .iter()
                    .map(|(k, label)| {
                        (
                            *label,
                            r.summary
                                .0
                                .get(*k)
                                .map_or_else(|| "0".into(), |v| v.to_string()),
                        )
                    })
                    .collect(),
                kib: format!("{:.1}", r.html_bytes as f64 / 1024.0),
                made: desk.time(r.created_at),
                iso: r.created_at.0.to_rfc3339(),
                period: format!("{} – {}", r.period_from, r.period_to),
                label: r.label,
                id: r.id,
            })
            .collect(),
        pager,
        form,
        year: chrono::Datelike::year(&desk.today()),
        notice,
        base: desk.path(HERE),
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<AthleteQuery>,
) -> Response {
    let made = async {
        let (athlete, offset) = q.read()?;
        reports_page(&state, &desk, athlete, offset, AskForm::default(), None).await
    }
    .await;
    match made {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct GenerateForm {
    #[serde(default)]
    athlete_id: String,
    #[serde(default)]
    season: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

/// Ask for a report (as `POST /api/reports/season/{athleteId}`): its job's progress page,
/// which leads back to the athlete's reports.
pub async fn generate(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<GenerateForm>,
) -> Response {
    // The chosen athlete, kept to show their reports again beside a refused form.
    let chosen = chosen_id("athleteId", &f.athlete_id).ok().flatten();
    let asked = async {
        let athlete = chosen_id("athleteId", &f.athlete_id)?
            .ok_or_else(|| Error::field("athleteId", "required", "choose an athlete"))?;
        let season = opt(&f.season)
            .map(|s| {
                s.parse::<i64>()
                    .map_err(|_| Error::field("season", "invalid", "a season is a year, e.g. 2026"))
            })
            .transpose()?;
        let period = Period::new(season, opt(&f.from), opt(&f.to), desk.today())?;
        let job = season_report::request(&state.db, &desk.acting(), athlete, period).await?;
        Ok::<_, Error>((athlete, job))
    }
    .await;
    match asked {
        Ok((a, job)) => job_page(&desk, job.id, &format!("{HERE}?athlete={a}")),
        Err(e) if e.code == "not_found" => desk.error(&e),
        Err(e) => {
            let form = AskForm {
                season: f.season,
                from: f.from,
                to: f.to,
            };
            match reports_page(&state, &desk, chosen, 0, form, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, status_of(&e), &p, HERE),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}

#[derive(Template)]
#[template(path = "desk/competition_b/report.html")]
pub struct ReportPage {
    c: Chrome,
    r: SeasonReport,
    period: String,
    made: String,
    back: String,
    download: String,
}

/// One report, read from its stored document (another workspace's or athlete's is a 404).
pub async fn view(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, athlete, id)): Path<(Id, Id, Id)>,
) -> Response {
    let read = async {
        let row = season_report::get(&state.db, desk.org(), athlete, id).await?;
        let r: SeasonReport = document(&state, &row).await.map_err(|e| e.0)?;
        Ok::<_, Error>((row, r))
    }
    .await;
    match read {
        Ok((row, r)) => {
            let title = desk.cat.fill(
                "rep.of",
                &[("name", &r.athlete_name), ("season", &row.label)],
            );
            page(
                StatusCode::OK,
                &ReportPage {
                    c: Chrome::new(&desk, title),
                    period: desk
                        .cat
                        .fill("rep.period", &[("from", &r.from), ("to", &r.to)]),
                    made: desk.time(row.created_at),
                    back: desk.path(&format!("{HERE}?athlete={athlete}")),
                    download: desk.path(&format!("{HERE}/{athlete}/{id}/download")),
                    r,
                },
            )
        }
        Err(e) => desk.error(&e),
    }
}

/// The report's printable HTML as a download (the same response as the API's).
pub async fn download(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, athlete, id)): Path<(Id, Id, Id)>,
) -> Response {
    match report_download(&state, desk.org(), athlete, id).await {
        Ok(r) => r,
        Err(e) => desk.error(&e.0),
    }
}
