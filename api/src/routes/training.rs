//! The training area's routes (issue 5): training sessions and their rosters.

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{imports, jobs, training};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/training-sessions", training::list)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("List training sessions (from, to, coachId, location, spot, athleteId; paginated)")
            .query_of::<training::ListQuery>()
            .paged::<training::SessionView>(),
        route(POST, "/api/training-sessions", training::create)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Create a training session")
            .body::<training::CreateSession>().ok::<training::SessionView>(201),
        route(POST, "/api/training-sessions/import", training::import)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("CSV import of past sessions with attendance (text/csv; ?dryRun, ?background)")
            .query_of::<imports::ImportQuery>()
            .raw_body(&["text/csv"])
            .ok::<shared::import::Report>(200).ok::<jobs::JobAccepted>(202),
        route(POST, "/api/training-sessions/provision-video", training::provision_video)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Create the footage session when filming starts (idempotent)")
            .body::<training::ProvisionVideo>().ok::<training::FootageSessionView>(201)
            .ok::<training::FootageSessionView>(200),
        route(GET, "/api/training-sessions/{id}", training::get)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("Read a training session with its roster")
            .ok::<training::SessionDetail>(200),
        route(PATCH, "/api/training-sessions/{id}", training::update)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Edit a training session (raising capacity promotes the waitlist)")
            .body::<training::UpdateSession>().ok::<training::SessionDetail>(200),
        route(DELETE, "/api/training-sessions/{id}", training::delete)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Delete a training session and its roster")
            .empty(204, "deleted"),
        route(GET, "/api/training-sessions/{id}/participants", training::participants)
            .auth(Auth::member(Perm::TrainingRead).in_module(Module::Training))
            .area("training").summary("The roster with the waitlist")
            .ok::<training::RosterView>(200),
        route(POST, "/api/training-sessions/{id}/participants", training::add_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Add an athlete (registered, or waitlisted when full)")
            .body::<training::AddParticipant>().ok::<training::RosterView>(201),
        route(PATCH, "/api/training-sessions/{id}/participants/{athleteId}", training::set_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Mark attended or no-show, or promote a waitlisted athlete")
            .body::<training::SetParticipant>().ok::<training::RosterView>(200),
        route(DELETE, "/api/training-sessions/{id}/participants/{athleteId}", training::remove_participant)
            .auth(Auth::member(Perm::TrainingManage).in_module(Module::Training))
            .area("training").summary("Remove an athlete; the first waitlisted one takes the place")
            .ok::<training::RosterView>(200),
    ]
}
