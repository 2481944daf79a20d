//! The competition module's people, reports and forecasts pages (issue 39, `docs/web.md`,
//! "Competition (people, reports, forecasts)"): sub-pages of `/w/{ws}/competition/…`, one
//! module each, calling the same `shared::domain::competition` operations as the JSON routes
//! (`routes/competition.rs`) with the same module and permissions.

pub mod achievements;
pub mod forecasts;
pub mod identity;
pub mod opponents;
pub mod reports;
pub mod watchlist;

use super::Desk;
use crate::state::AppState;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;

/// The roster athletes a page offers in its choosers (id, full name), by name: empty for a
/// member who may not read athletes (the chooser then takes nothing).
pub async fn roster(state: &AppState, desk: &Desk) -> Result<Vec<(Id, String)>, Error> {
    if !desk.ws.can(Perm::AthletesRead) {
        return Ok(Vec::new());
    }
    let all = shared::domain::athletes::list(
        &desk.acting(),
        &state.db,
        &shared::repo::athletes::Filter::default(),
        500,
        0,
    )
    .await?;
    let mut out: Vec<(Id, String)> = all
        .into_iter()
        .map(|a| (a.id, format!("{} {}", a.first_name, a.last_name)))
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

/// The query of a page about one chosen athlete: `athlete` (blank is none) and its list's
/// `offset`.
#[derive(serde::Deserialize, Default)]
pub struct AthleteQuery {
    athlete: Option<String>,
    offset: Option<i64>,
}

impl AthleteQuery {
    /// The chosen athlete (a malformed id is a field error) and the offset, never negative.
    pub fn read(&self) -> Result<(Option<Id>, i64), Error> {
        let athlete = chosen_id("athlete", self.athlete.as_deref().unwrap_or(""))?;
        Ok((athlete, self.offset.unwrap_or(0).max(0)))
    }
}

/// A chosen id from a form's `<select>` or query: blank is none; anything else that is not an
/// id is a field error on `field` (as a JSON body with a malformed id is refused).
pub fn chosen_id(field: &str, s: &str) -> Result<Option<Id>, Error> {
    match super::opt(s) {
        None => Ok(None),
        Some(v) => v
            .parse::<Id>()
            .map(Some)
            .map_err(|_| Error::field(field, "invalid", "choose one from the list")),
    }
}

/// A comma-separated field as the list the JSON body sends (`None` when blank; a stray comma
/// adds no empty entry).
pub fn list_field(s: &str) -> Option<Vec<String>> {
    super::opt(s).map(|s| {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    })
}
