//! The athletes area's routes (issue 5): the roster, its import and export, athlete invites,
//! club self-enrollment, published profiles.

use super::{DELETE, GET, PATCH, POST, PUT};
use crate::areas::{athletes, imports, jobs};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/athletes", athletes::list)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("List athletes (search q, status, level, coachId, published; paginated)")
            .query_of::<athletes::ListQuery>()
            .paged::<athletes::AthleteView>(),
        route(POST, "/api/athletes", athletes::create)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Create an athlete")
            .body::<athletes::CreateAthlete>().ok::<athletes::AthleteView>(201),
        route(GET, "/api/athletes/export", athletes::import::export)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("The roster as CSV (cells neutralised against formula injection)")
            .empty(200, "text/csv"),
        route(POST, "/api/athletes/import", athletes::import::import)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("CSV roster import (text/csv body; ?dryRun, ?background): all or nothing, deduplicated; large files run as a job")
            .query_of::<imports::ImportQuery>()
            .raw_body(&["text/csv"])
            .ok::<shared::import::Report>(200).ok::<jobs::JobAccepted>(202),
        route(GET, "/api/me/athletes", athletes::mine)
            .auth(Auth::User).mobile()
            .area("athletes").summary("The athletes the caller is or looks after as a guardian, in every workspace: coaches and training sessions")
            .ok::<Vec<athletes::MyAthleteView>>(200),
        route(GET, "/api/athletes/{id}", athletes::get)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Read an athlete")
            .ok::<athletes::AthleteView>(200),
        route(PATCH, "/api/athletes/{id}", athletes::update)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Update an athlete (status archived archives)")
            .body::<athletes::UpdateAthlete>().ok::<athletes::AthleteView>(200),
        route(DELETE, "/api/athletes/{id}", athletes::delete)
            .auth(Auth::member(Perm::AthletesDelete).in_module(Module::Athletes))
            .area("athletes").summary("Erase an athlete and what is theirs alone")
            .empty(204, "deleted"),
        route(GET, "/api/athletes/{id}/coaches", athletes::coaches)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("The athlete's coach assignments")
            .ok::<Vec<athletes::AssignmentView>>(200),
        route(POST, "/api/athletes/{id}/coaches", athletes::assign_coach)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Assign a coach (a workspace member) to the athlete")
            .body::<athletes::AssignCoach>().ok::<athletes::AssignmentView>(201),
        route(DELETE, "/api/athletes/{id}/coaches/{scId}", athletes::unassign_coach)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Remove a coach assignment")
            .empty(204, "removed"),
        route(GET, "/api/athletes/{id}/permissions", athletes::permissions)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Effective permissions of the athlete's login, coaches and guardians")
            .ok::<athletes::PermissionsView>(200),
        route(GET, "/api/athletes/{id}/guardian-consent", athletes::get_consent)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Guardian consents: who, when, how")
            .ok::<athletes::ConsentStatus>(200),
        route(POST, "/api/athletes/{id}/guardian-consent", athletes::record_consent)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Record a guardian's consent given outside the service")
            .body::<athletes::RecordConsent>().ok::<athletes::ConsentStatus>(201),
        route(DELETE, "/api/athletes/{id}/guardian-consent", athletes::withdraw_consent)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Withdraw the guardian consent (unpublishes a minor's profile)")
            .ok::<athletes::ConsentStatus>(200),
        route(POST, "/api/athletes/{id}/merge/{b}", athletes::merge)
            .auth(Auth::member(Perm::AthletesDelete).in_module(Module::Athletes))
            .area("athletes").summary("Merge duplicate athlete b into id (one transaction, audited)")
            .ok::<athletes::MergeResult>(200),
        route(POST, "/api/athletes/{id}/resync", athletes::resync)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Re-import a provider-linked athlete (job)")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/athletes/{id}/publish", athletes::publish)
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Publish or unpublish the public profile (a minor's needs guardian consent)")
            .body::<athletes::PublishRequest>().ok::<athletes::AthleteView>(200),
        route(GET, "/api/public/athletes/{slug}", athletes::public_profile)
            .auth(Auth::Public("a profile its workspace chose to publish; allow-listed fields only, minors with guardian consent and initials"))
            .area("athletes").summary("A published athlete profile")
            .ok::<athletes::PublicProfile>(200),
        route(POST, "/api/invite", athletes::invites::create)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Generate an athlete invite (single-use, 14 days)")
            .body::<athletes::invites::CreateInvite>().ok::<athletes::invites::InviteCreated>(201),
        route(POST, "/api/invite/send", athletes::invites::send)
            .auth(Auth::member(Perm::AthletesCreate).in_module(Module::Athletes))
            .area("athletes").summary("Email an athlete invite")
            .body::<athletes::invites::CreateInvite>().ok::<athletes::invites::InviteCreated>(201),
        route(GET, "/api/invite/lookup/{token}", athletes::invites::lookup)
            .error(429, "too many lookups from this address (rate_limited, Retry-After)").error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Public("the invite link's holder has no account yet; shows only the workspace, first name and age-gate rule, rate-limited per address"))
            .area("athletes").summary("Preview an athlete invite")
            .ok::<athletes::invites::InvitePreview>(200),
        route(POST, "/api/invite/claim", athletes::invites::claim)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Token("the single-use invite token in the body; the age gate runs on the server"))
            .area("athletes").summary("The athlete claims the login (server-side age gate)")
            .body::<athletes::invites::ClaimRequest>().ok::<athletes::invites::ClaimResponse>(201),
        route(POST, "/api/invite/guardian", athletes::invites::guardian)
            .error(410, "the invite expired, was revoked or used (invite_expired, invite_revoked, invite_used)")
            .auth(Auth::Token("the single-use invite token in the body, used by the minor's guardian"))
            .area("athletes").summary("A guardian creates the login for a minor and consents")
            .body::<athletes::invites::GuardianRequest>().ok::<athletes::invites::GuardianResponse>(201),
        route(GET, "/api/club/enrollment", athletes::invites::get_enrollment)
            .auth(Auth::member(Perm::AthletesRead).in_module(Module::Athletes))
            .area("athletes").summary("Whether public self-enrollment is open for this workspace")
            .ok::<athletes::invites::EnrollmentView>(200),
        route(PUT, "/api/club/enrollment", athletes::invites::set_enrollment)
            .auth(Auth::member(Perm::OrgUpdate).in_module(Module::Athletes))
            .area("athletes").summary("Open or close public self-enrollment")
            .body::<athletes::invites::EnrollmentSetting>().ok::<athletes::invites::EnrollmentView>(200),
        route(POST, "/api/club/enroll", athletes::invites::enroll)
            .error(429, "too many enrollments from this address (rate_limited, Retry-After)")
            .auth(Auth::Public("people join a club that opened self-enrollment before they have an account; age-gated, rate-limited, same answer for repeats"))
            .area("athletes").summary("Public club self-enrollment (pending athlete)")
            .body::<athletes::invites::EnrollRequest>().ok::<athletes::invites::EnrollAccepted>(202),
    ]
}
