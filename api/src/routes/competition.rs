//! The competition area's routes (docs/competition.md, docs/forecasts.md).

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{
    achievements, athlete_search, circuits, competition_jobs, heatsource, identity, jobs,
    opponents, reports, strategy, surf, tourindex, watchlist,
};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ---- competition (issue 15): heatsource reads, cached with a TTL (docs/competition.md) ----
        route(GET, "/api/heatsource/organisations", heatsource::organisations)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The provider organisation with this shortName, with its events and series (a list of zero or one; cached); without shortName, the organisations heatsource-orgs-sync keeps (paginated)")
            .query_of::<heatsource::OrganisationsQuery>()
            .paged::<shared::providers::heatsource::Organisation>(),
        route(GET, "/api/heatsource/series", heatsource::series)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The series of a provider organisation (shortName), with the divisions each ranks (paginated; cached)")
            .provider()
            .query_of::<heatsource::OrganisationQuery>().required_query("shortName")
            .paged::<shared::providers::heatsource::Series>(),
        route(GET, "/api/heatsource/series/{id}/divisions", heatsource::divisions)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The divisions a provider series ranks (paginated; cached)")
            .paged::<shared::providers::heatsource::Division>(),
        route(GET, "/api/heatsource/series/{id}/athletes", heatsource::series_athletes)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The ranked athletes of one division (divisionId) of a provider series, in ranking order (paginated; cached)")
            .provider()
            .query_of::<heatsource::DivisionQuery>().required_query("divisionId")
            .paged::<shared::providers::heatsource::Ranking>(),
        route(GET, "/api/heatsource/events/{id}", heatsource::event)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A provider event with its divisions, heats, results and competitors (cached)")
            .ok::<shared::providers::heatsource::Event>(200),
        route(GET, "/api/heatsource/athletes/search", heatsource::search_athletes)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the provider's athletes by name (q, 2-100 characters; needs the provider's client credentials; paginated; cached)")
            .provider()
            .query_of::<heatsource::SearchQuery>().required_query("q")
            .paged::<shared::providers::heatsource::Athlete>(),
        route(GET, "/api/heatsource/athletes/{id}", heatsource::athlete)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A provider athlete's profile (needs the provider's client credentials; cached)")
            .ok::<shared::providers::heatsource::Athlete>(200),
        // heatsource imports and syncs (jobs; docs/competition.md)
        route(POST, "/api/heatsource/import-rankings", competition_jobs::import_rankings)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a provider series' rankings (all divisions, or divisionId) into the workspace's circuit for it, created on the first import (job)")
            .body::<competition_jobs::ImportRankings>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/circuits/{id}/import-standings", competition_jobs::import_standings)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a circuit's events, its linked athletes' results and its rankings (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/events/{id}/bulk-add", competition_jobs::heatsource_bulk_add)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a provider event's competitors (one division, or all) to the roster, linked or created, optionally enrolled in a circuit (job; needs athletes.create too)")
            .body::<competition_jobs::BulkAdd>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/organisations/sync", competition_jobs::organisations_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Run heatsource-orgs-sync now (the scheduled task's job; joins one already queued)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/heatsource/sync", competition_jobs::heatsource_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Run heatsource-sync now: the followed organisations' events (the scheduled task's job)")
            .ok::<jobs::JobAccepted>(202),
        // ---- the tour index: reads (cached) and imports (jobs) ----
        route(GET, "/api/tourindex/athletes/search", tourindex::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the tour index's athletes by name (q, 2-100 characters; paginated; cached)")
            .provider()
            .query_of::<tourindex::SearchQuery>().required_query("q")
            .paged::<shared::providers::tourindex_pages::TourAthlete>(),
        route(GET, "/api/tourindex/athletes/{id}", tourindex::athlete)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A tour-index athlete's profile with results, and what its page had that could not be read (cached)")
            .ok::<shared::providers::tourindex_pages::TourProfile>(200),
        route(GET, "/api/tourindex/live-search", tourindex::live_search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Typeahead over the tour index's athletes and events (q; paginated; cached)")
            .provider()
            .query_of::<tourindex::SearchQuery>().required_query("q")
            .paged::<shared::providers::tourindex_pages::LiveHit>(),
        route(POST, "/api/tourindex/import-results", competition_jobs::import_results)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Import a roster athlete's tour-index results, linking tourindexId first when given (best-effort job)")
            .body::<competition_jobs::ImportResults>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/scrape", competition_jobs::scrape)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Read one tour's athlete directory and events from the tour index (job; one per tour at a time)")
            .body::<competition_jobs::Scrape>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/athletes/sync", competition_jobs::tourindex_athletes_sync)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Refresh the workspace's tour-index-linked athletes and their results (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/tourindex/events/{id}/bulk-add", competition_jobs::tourindex_bulk_add)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a tour-index event's athletes to the roster, optionally enrolled in a circuit (job; needs athletes.create too)")
            .body::<competition_jobs::BulkAdd>().ok::<jobs::JobAccepted>(202),
        // ---- multi-source search, import, directory, circuits ----
        route(GET, "/api/athlete-search/search", athlete_search::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the roster and every configured provider at once (q); the same person merged, ranked; each provider's status (ok, timeout, failed, not_configured)")
            .provider()
            .query_of::<athlete_search::SearchQuery>().required_query("q")
            .ok::<shared::domain::competition::search::SearchAnswer>(200),
        route(GET, "/api/athlete-search/{source}/{id}", athlete_search::profile)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One provider profile (source heatsource or tourindex) with its results (cached)")
            .ok::<shared::domain::competition::roster::Profile>(200),
        route(POST, "/api/athlete-search/import", athlete_search::import)
            .provider()
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Resolve a provider profile into a roster athlete (linked, never duplicated; created when new: 201), optionally enrolled in a circuit (needs athletes.create too)")
            .body::<athlete_search::ImportAthlete>().ok::<shared::domain::competition::roster::Imported>(200),
        route(GET, "/api/discover", athlete_search::discover)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The provider directory (tour-index athletes), by name, filterable by tour and q, with headshots and the workspace's linked athletes (paginated)")
            .query_of::<athlete_search::DiscoverQuery>()
            .paged::<shared::domain::competition::tourindex::DirectoryEntry>(),
        route(GET, "/api/circuits", circuits::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's circuits (provider series it imported), by name (paginated)")
            .paged::<shared::domain::competition::circuits::CircuitSummary>(),
        route(GET, "/api/circuits/{id}", circuits::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A circuit with its enrolled athletes, events and rankings")
            .ok::<shared::domain::competition::circuits::CircuitView>(200),
        route(PATCH, "/api/circuits/{id}", circuits::set_rules)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Set a circuit's scoring rules: results to count (best N), qualification place, points table (null returns a rule to its default)")
            .body::<circuits::RulesBody>().ok::<shared::domain::competition::strategy::RulesView>(200),
        route(GET, "/api/circuits/{id}/events", circuits::events)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A circuit's events with manual edits applied: which fields are manual and what the provider has (paginated)")
            .paged::<shared::domain::competition::events::EventView>(),
        route(POST, "/api/circuits/{id}/events", circuits::add_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Add a member's own event to a circuit (name; date, status)")
            .body::<circuits::EventBody>().ok::<shared::domain::competition::events::EventView>(201),
        route(GET, "/api/circuits/{id}/events/{eventId}", circuits::event)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One circuit event, manual edits applied")
            .ok::<shared::domain::competition::events::EventView>(200),
        route(PATCH, "/api/circuits/{id}/events/{eventId}", circuits::edit_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Edit a circuit event: a synced event keeps the values as overrides that win over later syncs (null clears one)")
            .body::<circuits::EventBody>().ok::<shared::domain::competition::events::EventView>(200),
        route(DELETE, "/api/circuits/{id}/events/{eventId}", circuits::delete_event)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Delete a member's own event, or hide a synced one for good (later syncs do not bring it back)")
            .empty(204, "deleted"),
        // ---- strategy: standings and qualification goals ----
        route(GET, "/api/strategy/{athleteId}", strategy::view)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("An athlete's standings per circuit and division (circuitId, divisionId): results counted under the circuit's rules (best N, discards), rank, the gap to the qualification line and the finishes in the remaining events that reach it, goals")
            .query_of::<strategy::ViewQuery>()
            .ok::<shared::domain::competition::strategy::StrategyView>(200),
        route(POST, "/api/strategy/{athleteId}/goals", strategy::set_goal)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Set the athlete's qualification goal in a circuit (a target rank, or the circuit's qualification place): 201 new, 200 replaced")
            .body::<strategy::GoalBody>().ok::<shared::repo::strategy::Goal>(201),
        route(DELETE, "/api/strategy/{athleteId}/goals", strategy::delete_goal)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Remove the athlete's goal in the circuit given by circuitId")
            .query_of::<strategy::GoalQuery>()
            .empty(204, "deleted"),
        // ---- season reports ----
        route(POST, "/api/reports/season/{athleteId}", reports::generate)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Generate a season report (season: a year, or from and to; this year when neither) as a job: JSON and self-contained printable HTML, stored; 202 with the job to poll")
            .body::<reports::GenerateBody>().ok::<jobs::JobAccepted>(202),
        route(GET, "/api/reports/season/{athleteId}", reports::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The athlete's season reports, newest first, with their headline figures and links (paginated)")
            .paged::<reports::ReportView>(),
        route(GET, "/api/reports/season/{athleteId}/{reportId}", reports::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One season report with its JSON document")
            .ok::<reports::ReportDocument>(200),
        route(GET, "/api/reports/season/{athleteId}/{reportId}/html", reports::html)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A season report's printable HTML, as a download (self-contained: no script, nothing fetched)")
            .empty(200, "text/html"),
        route(GET, "/api/athletes/{id}/results", circuits::athlete_results)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A roster athlete's competition results from the providers, newest first")
            .ok::<Vec<shared::repo::competition::ResultRow>>(200),
        // ---- opponents, watchlist, achievements (issue 16; docs/competition.md) ----
        route(GET, "/api/opponents", opponents::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Notes on opponents, last changed first; filter by athleteId (the athlete a note is for), opponentAthleteId, or provider + externalId (paginated)")
            .query_of::<opponents::NoteQuery>()
            .paged::<shared::domain::competition::opponents::NoteView>(),
        route(POST, "/api/opponents", opponents::create)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Write a note on an opponent (a roster athlete, or a provider athlete with its name), optionally for one athlete: text, strengths, weaknesses, tags")
            .body::<opponents::NewNote>().ok::<shared::domain::competition::opponents::NoteView>(201),
        route(GET, "/api/opponents/suggestions", opponents::suggestions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Competitors of a roster athlete's divisions (athleteId; synced heatsource events and the circuits' rankings) with head-to-head records from shared heats, most heats shared first (paginated)")
            .error(409, "the athlete has no heatsource profile (not_provider_linked)")
            .query_of::<opponents::SuggestionQuery>()
            .paged::<shared::domain::competition::headtohead::Suggestion>(),
        route(GET, "/api/opponents/{id}", opponents::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One note on an opponent")
            .ok::<shared::domain::competition::opponents::NoteView>(200),
        route(PATCH, "/api/opponents/{id}", opponents::update)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Edit a note (a field left out stays, null clears it; the opponent cannot change)")
            .body::<opponents::NotePatch>().ok::<shared::domain::competition::opponents::NoteView>(200),
        route(DELETE, "/api/opponents/{id}", opponents::delete)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Delete a note on an opponent")
            .empty(204, "deleted"),
        route(GET, "/api/watchlist", watchlist::list)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The caller's own watchlist (personal to each member), newest first; filter by kind (athlete, event) (paginated)")
            .query_of::<watchlist::WatchQuery>()
            .paged::<shared::domain::competition::watchlist::WatchView>(),
        route(POST, "/api/watchlist", watchlist::add)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Watch an athlete (roster or provider) or an event (circuit or provider); 201, or 200 with the item when already watched")
            .body::<watchlist::WatchBody>().ok::<shared::domain::competition::watchlist::WatchView>(201),
        route(GET, "/api/watchlist/{id}", watchlist::get)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("One item of the caller's watchlist")
            .ok::<shared::domain::competition::watchlist::WatchView>(200),
        route(PATCH, "/api/watchlist/{id}", watchlist::update)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Edit an item of the caller's watchlist: its note (null clears), a provider target's name")
            .body::<watchlist::WatchPatch>().ok::<shared::domain::competition::watchlist::WatchView>(200),
        route(DELETE, "/api/watchlist/{id}", watchlist::remove)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Stop watching: remove an item of the caller's watchlist")
            .empty(204, "removed"),
        route(GET, "/api/achievements", achievements::definitions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's achievement definitions: code, name, description, rule (metric and threshold) (paginated)")
            .paged::<shared::domain::competition::achievements::AchievementView>(),
        route(POST, "/api/achievements/seed", achievements::seed)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Seed the default achievement definitions the workspace lacks (idempotent: a second seed creates nothing)")
            .ok::<shared::domain::competition::achievements::Seeded>(200),
        route(POST, "/api/achievements/check", achievements::check)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Evaluate achievements over results, training sessions and wearable rides: one athlete now (athleteId: 200), or the whole workspace as a job ({}: 202); each award once, the athlete notified once")
            .body::<achievements::CheckBody>()
            .ok::<shared::domain::competition::achievements::AthleteCheck>(200)
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/athletes/{id}/achievements", achievements::awards)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A roster athlete's awarded achievements, newest first (paginated)")
            .paged::<shared::domain::competition::achievements::AwardView>(),
        // ---- cross-source identity and dedup (docs/competition.md, "Identity and dedup") ----
        route(GET, "/api/identity/match", identity::match_candidates)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Provider profiles that may be the roster athlete athleteId (searches and synced data), each scored 0-1 with the fields that matched and how much each counted, best first (paginated)")
            .query_of::<identity::MatchQuery>().required_query("athleteId").paginated()
            .ok::<identity::MatchPage>(200),
        route(GET, "/api/identity/links", identity::list_links)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The workspace's provider links (status linked, default) or rejected candidates (status rejected), newest first; filters athleteId, source (paginated)")
            .query_of::<identity::LinksQuery>()
            .paged::<shared::domain::competition::links::LinkView>(),
        route(POST, "/api/identity/links", identity::decide_link)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Confirm a candidate (link it through the import's rules; 409 already_linked when another athlete holds it) or reject it (never suggested again): 201 new, 200 already so")
            .body::<identity::DecideLink>().ok::<shared::domain::competition::links::LinkView>(201)
            .ok::<shared::domain::competition::links::LinkView>(200),
        route(DELETE, "/api/identity/links", identity::remove_link)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Remove the athlete's link to a profile (with the results it brought) or its rejection: athleteId, source, externalId")
            .query_of::<identity::RemoveQuery>()
            .empty(204, "removed"),
        route(GET, "/api/dedup/suggestions", identity::suggestions)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Pairs of roster athletes that are probably one person, scored and explained, best first, with the merge call each feeds (needs athletes.read too; paginated)")
            .paged::<identity::SuggestionView>(),
        route(DELETE, "/api/dedup/suggestions", identity::dismiss)
            .auth(Auth::member(Perm::CompetitionManage).in_module(Module::Competition))
            .area("competition").summary("Dismiss the suggested pair a, b: it is not suggested again")
            .query_of::<identity::DismissQuery>()
            .empty(204, "dismissed"),
        // ---- forecasts (issue 16): provider data, global; cached per grid cell and window (docs/forecasts.md) ----
        route(GET, "/api/spotsource/spots/search", surf::search)
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("Search the spot provider's surf spots by name (q, 2-100 characters; paginated; cached)")
            .provider()
            .query_of::<surf::SearchQuery>().required_query("q")
            .paged::<shared::providers::spotsource::Spot>(),
        route(GET, "/api/surf/spot/{slug}", surf::spot)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("A surf spot (stored, else read from the spot provider) with its current forecast summary (forecastError says why there is none)")
            .ok::<shared::domain::forecasts::SpotView>(200),
        route(GET, "/api/surf/forecast", surf::forecast)
            .provider()
            .auth(Auth::member(Perm::CompetitionRead).in_module(Module::Competition))
            .area("competition").summary("The hourly surf forecast at a spot (spot) or point (lat, lon) from the current hour (hours 1-168, default 72): primary provider, else the fallback; cached per 0.1 degree cell and window; stale when both fail")
            .query_of::<surf::ForecastParams>()
            .ok::<shared::domain::forecasts::Forecast>(200),
    ]
}
