//! Achievements (`/w/{ws}/competition/achievements`): the workspace's definitions (seeded as
//! `POST /api/achievements/seed`), an athlete's awards (as `GET /api/athletes/{id}/
//! achievements`), and checks (as `POST /api/achievements/check`): one athlete at once, or
//! every athlete as a job whose progress page leads back here.

use super::{AthleteQuery, chosen_id, roster};
use crate::areas::desk::footage::job_page;
use crate::areas::desk::{Chrome, Desk, DeskForm, Empty, Pager, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::competition::achievements;

const PAGE: i64 = 25;
const HERE: &str = "/competition/achievements";

pub struct DefinitionRow {
    pub name: String,
    pub description: String,
    pub metric: &'static str,
    pub threshold: i64,
}

pub struct AwardRow {
    pub name: String,
    pub description: String,
    pub value: i64,
    pub awarded: String,
    pub iso: String,
}

#[derive(Template)]
#[template(path = "desk/competition_b/achievements.html")]
pub struct AchievementsPage {
    c: Chrome,
    roster: Vec<(Id, String)>,
    athlete: Option<Id>,
    athlete_name: Option<String>,
    definitions: Vec<DefinitionRow>,
    awards: Vec<AwardRow>,
    pager: Pager,
    may_manage: bool,
    notice: Option<Notice>,
    base: String,
}

impl AchievementsPage {
    fn is_athlete(&self, id: &Id) -> bool {
        self.athlete.as_ref() == Some(id)
    }
}

async fn achievements_page(
    state: &AppState,
    desk: &Desk,
    athlete: Option<Id>,
    offset: i64,
    notice: Option<Notice>,
) -> Result<AchievementsPage, Error> {
    let ws = desk.acting();
    let mut awards = match athlete {
        Some(a) => achievements::awards(&state.db, &ws, a, PAGE + 1, offset).await?,
        None => Vec::new(),
    };
    let pager = Pager::cut(&mut awards, offset, PAGE);
    let roster = roster(state, desk).await?;
    Ok(AchievementsPage {
        c: Chrome::new(desk, desk.cat.t("ach.title")),
        athlete_name: athlete.and_then(|a| roster.iter().find(|r| r.0 == a).map(|r| r.1.clone())),
        roster,
        athlete,
        definitions: achievements::definitions(&state.db, &ws)
            .await?
            .into_iter()
            .map(|d| DefinitionRow {
                name: d.name,
                description: d.description,
                metric: d.metric.as_str(),
                threshold: d.threshold,
            })
            .collect(),
        awards: awards
            .into_iter()
            .map(|a| AwardRow {
                name: a.name,
                description: a.description,
                value: a.value,
                awarded: desk.time(a.awarded_at),
                iso: a.awarded_at.0.to_rfc3339(),
            })
            .collect(),
        pager,
        may_manage: desk.may(Module::Competition, Perm::CompetitionManage),
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
        achievements_page(&state, &desk, athlete, offset, None).await
    }
    .await;
    match made {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Seed the default definitions the workspace lacks (as `POST /api/achievements/seed`).
pub async fn seed(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match achievements::seed(&state.db, &desk.acting()).await {
        Ok(_) => desk.done(HERE, "ach.seeded"),
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CheckForm {
    #[serde(default)]
    athlete_id: String,
}

/// Check one athlete now, or every athlete as a job (as `POST /api/achievements/check`); not
/// seeded yet (409) is said on the page.
pub async fn check(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<CheckForm>,
) -> Response {
    let athlete = match chosen_id("athleteId", &f.athlete_id) {
        Ok(a) => a,
        Err(e) => return again(&state, &desk, None, e).await,
    };
    let ws = desk.acting();
    match athlete {
        Some(a) => match achievements::check_one(&state.db, &ws, a).await {
            Ok(_) => desk.done(&format!("{HERE}?athlete={a}"), "ach.checked"),
            Err(e) => again(&state, &desk, Some(a), e).await,
        },
        None => match achievements::check_all(&state.db, &ws).await {
            Ok(job) => job_page(&desk, job.id, HERE),
            Err(e) => again(&state, &desk, None, e).await,
        },
    }
}

async fn again(state: &AppState, desk: &Desk, athlete: Option<Id>, e: Error) -> Response {
    if e.code == "not_found" {
        return desk.error(&e);
    }
    match achievements_page(state, desk, athlete, 0, Some(Notice::of(&e))).await {
        Ok(p) => page_at(desk, status_of(&e), &p, HERE),
        Err(e2) => desk.error(&e2),
    }
}
