//! Identity (`/w/{ws}/competition/identity`): which provider profiles are a roster athlete
//! (as `GET /api/identity/match`: scored candidates with what matched, and each provider's
//! state, so an unconfigured provider says so), the workspace's links and rejections (as
//! `GET`, `POST`, `DELETE /api/identity/links`), and roster athletes that are probably one
//! person (as `GET`, `DELETE /api/dedup/suggestions`), each leading to the athletes' merge page.

use super::{AthleteQuery, chosen_id, roster};
use crate::areas::desk::{Chrome, Desk, DeskForm, Pager, opt, page_at, status_of};
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
use shared::domain::competition::identity::Evidence;
use shared::domain::competition::links::{self, LinkDecision, LinkFilter, LinkStatus};
use shared::domain::competition::{dedup, matching};

const PAGE: i64 = 25;
const HERE: &str = "/competition/identity";

pub struct CandidateRow {
    pub source: &'static str,
    pub external_id: String,
    pub name: String,
    pub country: Option<String>,
    pub percent: String,
    pub score: String,
    pub confidence: &'static str,
    pub evidence: Vec<String>,
    /// Linked to another roster athlete already.
    pub linked_elsewhere: bool,
}

pub struct LinkRow {
    pub athlete_id: Id,
    pub athlete: String,
    pub source: String,
    pub external_id: String,
    pub name: String,
    pub rejected: bool,
}

pub struct PairRow {
    pub a_id: Id,
    pub a: String,
    pub b_id: Id,
    pub b: String,
    pub percent: String,
    pub confidence: &'static str,
    pub evidence: Vec<String>,
    pub merge_href: Option<String>,
    pub blocked: bool,
}

#[derive(Template)]
#[template(path = "desk/competition_b/identity.html")]
pub struct IdentityPage {
    c: Chrome,
    roster: Vec<(Id, String)>,
    athlete: Option<Id>,
    athlete_name: Option<String>,
    candidates: Vec<CandidateRow>,
    /// Each provider's state in the match (`source`, `status`, why when not `ok`).
    sources: Vec<(String, String, Option<String>)>,
    links: Vec<LinkRow>,
    pager: Pager,
    pairs: Option<Vec<PairRow>>,
    may_manage: bool,
    notice: Option<Notice>,
    base: String,
}

impl IdentityPage {
    fn is_athlete(&self, id: &Id) -> bool {
        self.athlete.as_ref() == Some(id)
    }
}

fn evidence(e: &[Evidence]) -> Vec<String> {
    e.iter()
        .map(|e| format!("{} ({:+.2})", e.detail, e.contribution))
        .collect()
}

async fn identity_page(
    state: &AppState,
    desk: &Desk,
    athlete: Option<Id>,
    offset: i64,
    notice: Option<Notice>,
) -> Result<IdentityPage, Error> {
    let ws = desk.acting();
    let (mut candidates, mut sources, mut athlete_name) = (Vec::new(), Vec::new(), None);
    if let Some(a) = athlete {
        let m = matching::candidates(
            &state.db,
            state.providers(),
            &ws,
            a,
            state.cfg.athlete_search_timeout,
        )
        .await?;
        athlete_name = Some(m.athlete.name);
        sources = m
            .sources
            .into_iter()
            .map(|s| (s.source.to_string(), s.status.to_string(), s.error))
            .collect();
        candidates = m
            .candidates
            .into_iter()
            .map(|k| CandidateRow {
                source: k.source.as_str(),
                percent: format!("{:.0}%", k.score * 100.0),
                score: format!("{:.3}", k.score),
                confidence: k.confidence.as_str(),
                evidence: evidence(&k.explanation),
                linked_elsewhere: k.linked_athlete_id.is_some_and(|l| l != a),
                external_id: k.external_id,
                name: k.name,
                country: k.country,
            })
            .collect();
    }
    // Links page by page; the rejections (rarer) after them, the first page of them.
    let f = LinkFilter::parse(athlete, None, None)?;
    let mut rows = links::list(&state.db, &ws, &f, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE);
    let f = LinkFilter::parse(athlete, None, Some("rejected"))?;
    rows.extend(links::list(&state.db, &ws, &f, PAGE, 0).await?);
    // Duplicates need the roster too, as the JSON route requires `athletes.read`.
    let pairs = if desk.ws.can(Perm::AthletesRead) {
        let may_merge = desk.may(Module::Athletes, Perm::AthletesUpdate);
        Some(
            dedup::suggestions(&state.db, &ws)
                .await?
                .into_iter()
                .map(|s| PairRow {
                    a_id: s.a.athlete_id,
                    a: s.a.name,
                    b_id: s.b.athlete_id,
                    b: s.b.name,
                    percent: format!("{:.0}%", s.score * 100.0),
                    confidence: s.confidence.as_str(),
                    evidence: evidence(&s.explanation),
                    merge_href: may_merge.then(|| {
                        desk.path(&format!(
                            "/athletes/{}/merge?other={}",
                            s.merge.keep_id, s.merge.merge_id
                        ))
                    }),
                    blocked: s.merge.blocked.is_some(),
                })
                .collect(),
        )
    } else {
        None
    };
    Ok(IdentityPage {
        c: Chrome::new(desk, desk.cat.t("idn.title")),
        roster: roster(state, desk).await?,
        athlete,
        athlete_name,
        candidates,
        sources,
        links: rows
            .into_iter()
            .map(|l| LinkRow {
                athlete_id: l.athlete_id,
                athlete: l.athlete_name,
                name: l.name.unwrap_or_else(|| l.external_id.clone()),
                source: l.source,
                external_id: l.external_id,
                rejected: l.status == LinkStatus::Rejected,
            })
            .collect(),
        pager,
        pairs,
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
        identity_page(&state, &desk, athlete, offset, None).await
    }
    .await;
    match made {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The athlete's page again after a post, with the error when there was one (field errors of
/// a tampered form, a provider that failed, a profile another athlete holds).
async fn back(state: &AppState, desk: &Desk, athlete: Option<Id>, e: Error) -> Response {
    if e.code == "not_found" {
        return desk.error(&e);
    }
    match identity_page(state, desk, athlete, 0, Some(Notice::of(&e))).await {
        Ok(p) => page_at(desk, status_of(&e), &p, HERE),
        Err(e2) => desk.error(&e2),
    }
}

fn list_of(athlete: Id) -> String {
    format!("{HERE}?athlete={athlete}")
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct DecideForm {
    #[serde(default)]
    athlete_id: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    external_id: String,
    #[serde(default)]
    decision: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    score: String,
}

/// Confirm or reject a candidate (as `POST /api/identity/links`).
pub async fn decide(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<DecideForm>,
) -> Response {
    let athlete = match chosen_id("athleteId", &f.athlete_id) {
        Ok(Some(a)) => a,
        Ok(None) => {
            return back(
                &state,
                &desk,
                None,
                Error::field("athleteId", "required", "choose an athlete"),
            )
            .await;
        }
        Err(e) => return back(&state, &desk, None, e).await,
    };
    let done = async {
        let d = LinkDecision::parse(
            athlete,
            &f.source,
            &f.external_id,
            opt(&f.decision),
            opt(&f.name),
            opt(&f.score).and_then(|s| s.parse::<f64>().ok()),
        )?;
        links::decide(&state.db, state.providers(), &desk.acting(), &d).await
    }
    .await;
    match done {
        Ok(d) if d.view.status == LinkStatus::Rejected => {
            desk.done(&list_of(athlete), "idn.rejected")
        }
        Ok(_) => desk.done(&list_of(athlete), "idn.linked"),
        Err(e) => back(&state, &desk, Some(athlete), e).await,
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct RemoveForm {
    #[serde(default)]
    athlete_id: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    external_id: String,
}

/// Remove a link or a rejection (as `DELETE /api/identity/links`).
pub async fn remove(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<RemoveForm>,
) -> Response {
    let athlete = match chosen_id("athleteId", &f.athlete_id) {
        Ok(Some(a)) => a,
        Ok(None) => return desk.error(&Error::not_found("link")),
        Err(e) => return back(&state, &desk, None, e).await,
    };
    match links::remove(
        &state.db,
        &desk.acting(),
        athlete,
        &f.source,
        &f.external_id,
    )
    .await
    {
        Ok(_) => desk.done(&list_of(athlete), "idn.removed"),
        Err(e) => back(&state, &desk, Some(athlete), e).await,
    }
}

#[derive(Deserialize, Default)]
pub struct DismissForm {
    #[serde(default)]
    a: String,
    #[serde(default)]
    b: String,
}

/// Dismiss a suggested pair (as `DELETE /api/dedup/suggestions`): not suggested again.
pub async fn dismiss(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<DismissForm>,
) -> Response {
    let done = async {
        let (Some(a), Some(b)) = (chosen_id("a", &f.a)?, chosen_id("b", &f.b)?) else {
            return Err(Error::field("b", "required", "a pair needs two athletes"));
        };
        dedup::dismiss(&state.db, &desk.acting(), a, b).await
    }
    .await;
    match done {
        Ok(_) => desk.done(HERE, "idn.dismissed"),
        Err(e) => back(&state, &desk, None, e).await,
    }
}
