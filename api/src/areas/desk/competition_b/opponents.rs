//! Opponents (`/w/{ws}/competition/opponents`): the workspace's notes on opponents (as
//! `GET`, `POST`, `DELETE /api/opponents`), each with the head-to-head record of the athlete
//! it is for against that opponent, and the suggested opponents of a chosen athlete (as
//! `GET /api/opponents/suggestions`). Both records come from one read,
//! `headtohead::suggestions`, so the page and the JSON route never disagree.

use super::{AthleteQuery, chosen_id, list_field, roster};
use crate::areas::desk::{Chrome, Desk, DeskForm, Pager, page_at, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::competition::events::Patch;
use shared::domain::competition::headtohead::{self, HeadToHead, Suggestion};
use shared::domain::competition::opponents::{self, NoteFields, NoteView, RawFilter, RawOpponent};
use std::collections::HashMap;

const PAGE: i64 = 25;
const HERE: &str = "/competition/opponents";

/// A head-to-head record as the page shows it.
pub struct Record {
    pub heats: u32,
    pub wins: u32,
    pub losses: u32,
    pub ties: u32,
    pub undecided: u32,
    /// Event, division and round of the latest shared heat, with its date.
    pub last_met: Option<String>,
}

impl From<&HeadToHead> for Record {
    fn from(h: &HeadToHead) -> Self {
        Record {
            heats: h.heats,
            wins: h.wins,
            losses: h.losses,
            ties: h.ties,
            undecided: h.undecided,
            last_met: h.last_met.as_ref().map(|m| {
                let mut s = format!("{}, {}", m.event_name, m.division);
                if let Some(r) = &m.round {
                    s.push_str(&format!(", {r}"));
                }
                if let Some(d) = &m.date {
                    s.push_str(&format!(" ({d})"));
                }
                s
            }),
        }
    }
}

pub struct NoteRow {
    pub id: Id,
    pub opponent: String,
    /// `roster`, `heatsource` or `tourindex`.
    pub source: &'static str,
    pub external_id: String,
    pub for_name: Option<String>,
    pub body: String,
    pub strengths: String,
    pub weaknesses: String,
    pub tags: String,
    pub updated: String,
    pub iso: String,
    /// The record of the athlete it is for against this opponent, when there is one.
    pub record: Option<Record>,
}

pub struct SuggestionRow {
    pub name: String,
    pub provider: &'static str,
    pub external_id: String,
    pub divisions: String,
    pub ranking_place: Option<i64>,
    pub record: Record,
    pub notes: i64,
}

#[derive(Template)]
#[template(path = "desk/competition_b/opponents.html")]
pub struct OpponentsPage {
    c: Chrome,
    roster: Vec<(Id, String)>,
    athlete: Option<Id>,
    athlete_name: Option<String>,
    notes: Vec<NoteRow>,
    pager: Pager,
    suggestions: Vec<SuggestionRow>,
    /// Why there are no suggestions for the chosen athlete (no heatsource profile).
    no_suggestions: Option<String>,
    may_manage: bool,
    form: NoteForm,
    notice: Option<Notice>,
    base: String,
}

impl OpponentsPage {
    fn is_athlete(&self, id: &Id) -> bool {
        self.athlete.as_ref() == Some(id)
    }
    fn form_athlete(&self, id: &Id) -> bool {
        self.form.athlete_id == id.to_string()
    }
    fn form_opponent(&self, id: &Id) -> bool {
        self.form.opponent_athlete_id == id.to_string()
    }
}

/// The add form; the opponent is a roster athlete (`opponentAthleteId`), else a provider
/// athlete (`provider`, `externalId`, `opponentName`).
#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct NoteForm {
    #[serde(default)]
    pub athlete_id: String,
    #[serde(default)]
    pub opponent_athlete_id: String,
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub external_id: String,
    #[serde(default)]
    pub opponent_name: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub strengths: String,
    #[serde(default)]
    pub weaknesses: String,
    #[serde(default)]
    pub tags: String,
}

impl NoteForm {
    /// The opponent and fields as the JSON body would carry them.
    fn parse(&self) -> Result<(RawOpponent, NoteFields), Error> {
        let athlete = chosen_id("athleteId", &self.athlete_id)?;
        let roster_opp = chosen_id("opponentAthleteId", &self.opponent_athlete_id)?;
        let provider_typed =
            !self.external_id.trim().is_empty() || !self.opponent_name.trim().is_empty();
        let opponent = match roster_opp {
            Some(id) => RawOpponent {
                athlete_id: Some(id),
                ..RawOpponent::default()
            },
            // A provider opponent half typed: its missing parts are said beside their fields.
            None if provider_typed => RawOpponent {
                athlete_id: None,
                provider: Some(self.provider.trim().to_string()),
                external_id: Some(self.external_id.clone()),
                name: Some(self.opponent_name.clone()),
            },
            None => RawOpponent::default(),
        };
        let fields = NoteFields {
            athlete_id: Patch::from_option(athlete.map(Some)),
            body: Patch::from_option(super::super::opt(&self.body).map(|b| Some(b.to_string()))),
            strengths: Patch::from_option(list_field(&self.strengths).map(Some)),
            weaknesses: Patch::from_option(list_field(&self.weaknesses).map(Some)),
            tags: Patch::from_option(list_field(&self.tags).map(Some)),
        };
        Ok((opponent, fields))
    }
}

/// The domain's field names as the form's.
fn form_fields(e: &mut Error) {
    for (api, form) in [
        ("opponent.athleteId", "opponentAthleteId"),
        ("opponent.provider", "provider"),
        ("opponent.externalId", "externalId"),
        ("opponent.name", "opponentName"),
    ] {
        rename_field(e, api, form);
    }
}

/// The suggestions of `athlete`, or why there are none (409 `not_provider_linked`).
async fn suggestions_of(
    state: &AppState,
    desk: &Desk,
    athlete: Id,
) -> Result<Result<Vec<Suggestion>, String>, Error> {
    match headtohead::suggestions(&state.db, &desk.acting(), athlete).await {
        Ok(s) => Ok(Ok(s)),
        Err(e) if e.code == "not_provider_linked" => Ok(Err(desk.cat.t("opp.not_linked").into())),
        Err(e) => Err(e),
    }
}

/// The record of a note's athlete against its opponent, from that athlete's suggestions.
fn record_of(n: &NoteView, of: &[Suggestion]) -> Option<Record> {
    of.iter()
        .find(|s| {
            (n.opponent.provider == Some(s.provider)
                && n.opponent.external_id.as_deref() == Some(s.external_id.as_str()))
                || (n.opponent.athlete_id.is_some() && n.opponent.athlete_id == s.athlete_id)
        })
        .map(|s| Record::from(&s.head_to_head))
}

async fn opponents_page(
    state: &AppState,
    desk: &Desk,
    athlete: Option<Id>,
    offset: i64,
    form: NoteForm,
    notice: Option<Notice>,
) -> Result<OpponentsPage, Error> {
    let roster = roster(state, desk).await?;
    let names: HashMap<Id, String> = roster.iter().cloned().collect();
    let filter = RawFilter {
        athlete_id: athlete,
        ..RawFilter::default()
    };
    let mut notes = opponents::list(&state.db, &desk.acting(), &filter, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut notes, offset, PAGE);
    // One suggestions read per athlete the shown notes are for (and the chosen one).
    let mut of: HashMap<Id, Result<Vec<Suggestion>, String>> = HashMap::new();
    for a in notes.iter().filter_map(|n| n.athlete_id).chain(athlete) {
        if let std::collections::hash_map::Entry::Vacant(slot) = of.entry(a) {
            slot.insert(suggestions_of(state, desk, a).await?);
        }
    }
    let rows = notes
        .iter()
        .map(|n| NoteRow {
            id: n.id,
            opponent: n.opponent.name.clone(),
            source: n.opponent.provider.map_or("roster", |p| p.as_str()),
            external_id: n.opponent.external_id.clone().unwrap_or_default(),
            for_name: n.athlete_id.and_then(|a| names.get(&a).cloned()),
            body: n.body.clone(),
            strengths: n.strengths.join(", "),
            weaknesses: n.weaknesses.join(", "),
            tags: n.tags.join(", "),
            updated: desk.time(n.updated_at),
            iso: n.updated_at.0.to_rfc3339(),
            record: n
                .athlete_id
                .and_then(|a| of.get(&a))
                .and_then(|s| s.as_ref().ok())
                .and_then(|s| record_of(n, s)),
        })
        .collect();
    let (suggestions, no_suggestions) = match athlete.and_then(|a| of.remove(&a)) {
        Some(Ok(s)) => (
            s.iter()
                .map(|s| SuggestionRow {
                    name: s.name.clone(),
                    provider: s.provider.as_str(),
                    external_id: s.external_id.clone(),
                    divisions: s.divisions.join(", "),
                    ranking_place: s.ranking_place,
                    record: Record::from(&s.head_to_head),
                    notes: s.notes,
                })
                .collect(),
            None,
        ),
        Some(Err(why)) => (Vec::new(), Some(why)),
        None => (Vec::new(), None),
    };
    let mut form = form;
    if form.athlete_id.is_empty()
        && let Some(a) = athlete
    {
        form.athlete_id = a.to_string();
    }
    Ok(OpponentsPage {
        c: Chrome::new(desk, desk.cat.t("opp.title")),
        athlete_name: athlete.and_then(|a| names.get(&a).cloned()),
        roster,
        athlete,
        notes: rows,
        pager,
        suggestions,
        no_suggestions,
        may_manage: desk.may(Module::Competition, Perm::CompetitionManage),
        form,
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
        opponents_page(&state, &desk, athlete, offset, NoteForm::default(), None).await
    }
    .await;
    match made {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// Where the list goes back to: the athlete the note is for, when one was chosen.
fn list_of(athlete: Option<Id>) -> String {
    match athlete {
        Some(a) => format!("{HERE}?athlete={a}"),
        None => HERE.to_string(),
    }
}

/// Write a note (as `POST /api/opponents`); field errors beside the form, nothing written.
pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<NoteForm>,
) -> Response {
    let made = async {
        let (o, fields) = f.parse()?;
        opponents::create(&state.db, &desk.acting(), &o, &fields).await
    }
    .await;
    match made {
        Ok(n) => desk.done(&list_of(n.athlete_id), "opp.created"),
        Err(mut e) => {
            form_fields(&mut e);
            let athlete = chosen_id("athleteId", &f.athlete_id).ok().flatten();
            // A missing athlete (another workspace's) is the whole post's 404.
            if e.code == "not_found" {
                return desk.error(&e);
            }
            match opponents_page(&state, &desk, athlete, 0, f, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, status_of(&e), &p, HERE),
                Err(e2) => desk.error(&e2),
            }
        }
    }
}

#[derive(Deserialize, Default)]
pub struct RemoveForm {
    #[serde(default)]
    athlete: String,
}

/// Delete a note (as `DELETE /api/opponents/{id}`): another workspace's is a 404.
pub async fn remove(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<RemoveForm>,
) -> Response {
    match opponents::delete(&state.db, &desk.acting(), id).await {
        Ok(()) => desk.done(
            &list_of(chosen_id("athlete", &f.athlete).ok().flatten()),
            "opp.removed",
        ),
        Err(e) => desk.error(&e),
    }
}
