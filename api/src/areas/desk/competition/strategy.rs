//! An athlete's strategy page: the standings view of `GET /api/strategy/{athleteId}` (rank,
//! counted results, the gap to the qualification line, what each remaining event needs) and
//! the athlete's goals, set and removed as `POST, DELETE /api/strategy/{athleteId}/goals`.

use super::super::{Chrome, Desk, DeskForm, opt, page_at, status_of};
use super::circuit::points;
use super::rules_summary;
use crate::areas::pages::{Notice, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::competition::circuits;
use shared::domain::competition::standings::Outlook;
use shared::domain::competition::strategy::{self, DivisionStanding, GoalFields};

/// Where the athlete stands against a target rank.
pub struct OutlookRow {
    pub target: u32,
    pub line: String,
    /// Points still needed (positive) or the cushion over the line.
    pub gap: String,
    pub reached: bool,
}

pub struct ResultLine {
    pub event: String,
    pub date: String,
    pub place: i64,
    pub points: String,
    pub counted: bool,
}

pub struct RemainingRow {
    pub name: String,
    pub date: String,
    /// What finishing this event takes to reach the target (the next event alone, or as one
    /// of every remaining event).
    pub needs: String,
}

pub struct DivisionRow {
    pub name: String,
    pub rank: Option<u32>,
    pub competitors: usize,
    pub total: String,
    pub results: Vec<ResultLine>,
    pub qualification: Option<OutlookRow>,
    pub goal: Option<(OutlookRow, bool)>,
    pub remaining: Vec<RemainingRow>,
    pub provider_place: Option<i64>,
}

pub struct GoalRow {
    pub circuit_id: Id,
    pub target: String,
    pub note: String,
}

pub struct CircuitBlock {
    pub name: String,
    pub href: String,
    pub rules: String,
    pub goal: Option<GoalRow>,
    pub divisions: Vec<DivisionRow>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct GoalForm {
    #[serde(default)]
    pub circuit_id: String,
    #[serde(default)]
    pub target_rank: String,
    #[serde(default)]
    pub note: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoveForm {
    #[serde(default)]
    pub circuit_id: String,
}

#[derive(Template)]
#[template(path = "desk/competition/strategy.html")]
pub struct StrategyPage {
    c: Chrome,
    linked: bool,
    circuits: Vec<CircuitBlock>,
    /// (id, name, chosen) of the workspace's circuits, for the goal form.
    options: Vec<(String, String, bool)>,
    may_manage: bool,
    form: GoalForm,
    notice: Option<Notice>,
    goal_action: String,
    remove_action: String,
    back: String,
}

#[derive(Deserialize)]
pub struct AthletePath {
    #[serde(rename = "athlete")]
    athlete_id: Id,
}

fn outlook_row(o: &Outlook) -> OutlookRow {
    OutlookRow {
        target: o.target_rank,
        line: points(o.line_points),
        gap: points(o.points_to_line.abs()),
        reached: o.reached,
    }
}

/// What each remaining event needs against `o`: the next event alone, then every remaining
/// event alike (as the view computes them: the others' totals as they stand).
fn remaining_rows(desk: &Desk, d: &DivisionStanding, o: Option<&Outlook>) -> Vec<RemainingRow> {
    let cat = desk.cat;
    let place = |p: Option<i64>| p.map(|p| p.to_string());
    d.remaining_events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let needs = match o {
                None => cat.t("comp.st.no_target").to_string(),
                Some(o) if o.reached => cat.t("comp.st.needs_nothing").to_string(),
                Some(o) => {
                    let every = match place(o.every_remaining_place) {
                        Some(p) => cat.fill("comp.st.needs_every", &[("place", &p)]),
                        None => cat.t("comp.st.needs_out_of_reach").to_string(),
                    };
                    match (i, place(o.next_event_place)) {
                        (0, Some(p)) => format!(
                            "{}; {every}",
                            cat.fill("comp.st.needs_next", &[("place", &p)])
                        ),
                        _ => every,
                    }
                }
            };
            RemainingRow {
                name: e.name.clone(),
                date: e.date.clone().unwrap_or_default(),
                needs,
            }
        })
        .collect()
}

fn division_row(desk: &Desk, d: &DivisionStanding) -> DivisionRow {
    let goal = d
        .goal
        .as_ref()
        .and_then(|g| g.outlook.as_ref().map(|o| (outlook_row(o), g.met)));
    // What the remaining events need is against the goal when there is one, else the line.
    let target = d
        .goal
        .as_ref()
        .and_then(|g| g.outlook.as_ref())
        .or(d.qualification.as_ref());
    DivisionRow {
        name: d.division_name.clone(),
        rank: d.rank,
        competitors: d.competitors,
        total: points(d.total),
        results: d
            .results
            .iter()
            .map(|r| ResultLine {
                event: r.event_name.clone(),
                date: r.date.clone().unwrap_or_default(),
                place: r.place,
                points: points(r.points),
                counted: r.counted,
            })
            .collect(),
        qualification: d.qualification.as_ref().map(outlook_row),
        goal,
        remaining: remaining_rows(desk, d, target),
        provider_place: d.provider_ranking.as_ref().and_then(|p| p.place),
    }
}

async fn strategy_page(
    state: &AppState,
    desk: &Desk,
    athlete: Id,
    form: GoalForm,
    notice: Option<Notice>,
) -> Result<StrategyPage, Error> {
    let ws = desk.acting();
    let view = strategy::view(&state.db, &ws, athlete, None, None).await?;
    let a = {
        let mut c = state.db.acquire().await?;
        shared::domain::athletes::load(&mut c, ws.org_id, athlete).await?
    };
    let all = circuits::list(&state.db, &ws, 100, 0).await?;
    let name = format!("{} {}", a.first_name, a.last_name);
    let blocks = view
        .circuits
        .iter()
        .map(|c| CircuitBlock {
            name: c.name.clone(),
            href: desk.path(&format!("/competition/circuits/{}", c.circuit_id)),
            rules: rules_summary(desk.cat, &c.rules),
            goal: c.goal.as_ref().map(|g| GoalRow {
                circuit_id: g.circuit_id,
                target: match g.target_rank {
                    Some(r) => desk.cat.fill("comp.st.goal_rank", &[("n", &r.to_string())]),
                    None => desk.cat.t("comp.st.goal_qualify").to_string(),
                },
                note: g.note.clone().unwrap_or_default(),
            }),
            divisions: c.divisions.iter().map(|d| division_row(desk, d)).collect(),
        })
        .collect();
    Ok(StrategyPage {
        c: Chrome::new(
            desk,
            desk.cat.fill("comp.st.title", &[("name", name.trim())]),
        ),
        linked: !view.competitor_ids.is_empty(),
        circuits: blocks,
        options: all
            .into_iter()
            .map(|c| {
                let id = c.id.to_string();
                let chosen = id == form.circuit_id;
                (id, c.name, chosen)
            })
            .collect(),
        may_manage: desk.may(Module::Competition, Perm::CompetitionManage),
        form,
        notice,
        goal_action: desk.path(&format!("/competition/strategy/{athlete}/goals")),
        remove_action: desk.path(&format!("/competition/strategy/{athlete}/goals/remove")),
        back: desk.path(&format!("/athletes/{athlete}")),
    })
}

fn here(athlete: Id) -> String {
    format!("/competition/strategy/{athlete}")
}

/// `GET /w/{ws}/competition/strategy/{athleteId}`.
pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(AthletePath { athlete_id }): Path<AthletePath>,
) -> Response {
    match strategy_page(&state, &desk, athlete_id, GoalForm::default(), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The circuit chosen in a form, as an id (beside the field when it is none).
fn circuit_of(s: &str) -> Result<Id, Error> {
    s.trim()
        .parse()
        .map_err(|_| Error::field("circuitId", "required", "choose a circuit"))
}

/// Sets the athlete's goal in a circuit (as `POST /api/strategy/{athleteId}/goals`; a
/// second one replaces it): a blank target is "qualify".
pub async fn set_goal(
    State(state): State<AppState>,
    desk: Desk,
    Path(AthletePath { athlete_id }): Path<AthletePath>,
    DeskForm(f): DeskForm<GoalForm>,
) -> Response {
    let set = async {
        let circuit_id = circuit_of(&f.circuit_id)?;
        let target_rank = match opt(&f.target_rank) {
            None => None,
            Some(t) => Some(t.parse::<i64>().map_err(|_| {
                Error::field(
                    "targetRank",
                    "out_of_range",
                    "a whole number from 1 to 10000",
                )
            })?),
        };
        let fields = GoalFields {
            circuit_id,
            division_id: None,
            target_rank,
            note: opt(&f.note).map(str::to_string),
        };
        strategy::set_goal(&state.db, &desk.acting(), athlete_id, &fields).await
    }
    .await;
    match set {
        Ok(_) => desk.done(&here(athlete_id), "comp.goal_set"),
        Err(e) => match strategy_page(&state, &desk, athlete_id, f, Some(Notice::of(&e))).await {
            Ok(p) => page_at(&desk, status_of(&e), &p, &here(athlete_id)),
            Err(e2) => desk.error(&e2),
        },
    }
}

/// Removes the athlete's goal in a circuit (as `DELETE /api/strategy/{athleteId}/goals`).
pub async fn remove_goal(
    State(state): State<AppState>,
    desk: Desk,
    Path(AthletePath { athlete_id }): Path<AthletePath>,
    DeskForm(f): DeskForm<RemoveForm>,
) -> Response {
    let removed = async {
        let circuit = circuit_of(&f.circuit_id)?;
        strategy::delete_goal(&state.db, &desk.acting(), athlete_id, circuit).await
    }
    .await;
    match removed {
        Ok(()) => desk.done(&here(athlete_id), "comp.goal_removed"),
        Err(e) => desk.error(&e),
    }
}
