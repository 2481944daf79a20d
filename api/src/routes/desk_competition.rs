//! The web application's competition pages (issue 39, `docs/web.md` "Competition"): the
//! module and permissions are the JSON routes' (`routes/competition.rs`).

use super::{GET, POST};
use crate::areas::desk::competition;
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    let read = Auth::desk(Perm::CompetitionRead).in_module(Module::Competition);
    let manage = Auth::desk(Perm::CompetitionManage).in_module(Module::Competition);
    vec![
        route(GET, "/w/{ws}/competition", competition::index)
            .auth(read).area("web").summary("Competition: the workspace's circuits (season, rules, events), 25 a page (offset); the athlete search"),
        route(GET, "/w/{ws}/competition/circuits/{id}", competition::circuit::show)
            .auth(read).area("web").summary("A circuit: its events, and the standings of each division under its rules with the qualification line drawn; the form to add an event"),
        route(POST, "/w/{ws}/competition/circuits/{id}/events", competition::circuit::add_event)
            .auth(manage).area("web").summary("Add a member's own event to the circuit (as POST /api/circuits/{id}/events)"),
        route(GET, "/w/{ws}/competition/circuits/{id}/events/{event}", competition::circuit::edit_form)
            .auth(manage).area("web").summary("An event's form: a member's own values, or a synced event's overrides beside the provider's values"),
        route(POST, "/w/{ws}/competition/circuits/{id}/events/{event}", competition::circuit::edit_event)
            .auth(manage).area("web").summary("Save an event (as PATCH /api/circuits/{id}/events/{eventId}; an emptied field is cleared)"),
        route(GET, "/w/{ws}/competition/strategy/{athlete}", competition::strategy::show)
            .auth(read).area("web").summary("An athlete's strategy: rank and counted results in each circuit, the gap to the qualification line and goals, what each remaining event needs; the goal form"),
        route(POST, "/w/{ws}/competition/strategy/{athlete}/goals", competition::strategy::set_goal)
            .auth(manage).area("web").summary("Set the athlete's goal in a circuit (as POST /api/strategy/{athleteId}/goals; replaces the one there)"),
        route(POST, "/w/{ws}/competition/strategy/{athlete}/goals/remove", competition::strategy::remove_goal)
            .auth(manage).area("web").summary("Remove the athlete's goal in a circuit (as DELETE /api/strategy/{athleteId}/goals)"),
        route(GET, "/w/{ws}/competition/search", competition::search::show)
            .auth(read).area("web").summary("Athlete search (q) across the roster and every provider, each provider's results apart and why one is unavailable (as GET /api/athlete-search/search)"),
        route(POST, "/w/{ws}/competition/search/import", competition::search::import)
            .auth(manage).area("web").summary("Import a provider profile into the roster: an existing athlete linked, never duplicated (as POST /api/athlete-search/import; needs athletes.create too)"),
    ]
}
