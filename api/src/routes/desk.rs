//! The web application's routes (issue 37, `docs/web.md`): the coach's desk under `/w/{ws}/…`.
//! Each is `Auth::Desk`: a web session, a membership of the path's workspace, and the module
//! and permission of what the page shows or changes (the same ones as the JSON route of the
//! same operation). Not in the OpenAPI document; in `docs/routes.md` (area `web`).

use super::{GET, POST};
use crate::areas::desk::settings::{audit, coaches, enrollment, tv};
use crate::areas::desk::{
    Desk, Me, athletes, coaching, dashboard, jobs, messages, notifications, reviews, sent,
    settings, training, watch,
};
use crate::areas::desk::{clips, footage};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    const MINE: &str = "a person's own conversations (athletes and guardians belong to no workspace): without a session the browser signs in first; each conversation is opened as GET /api/conversations/{id} opens it (a party of it, else 404); posts carry the CSRF token";
    const MY_SETTINGS: &str = "a person's own notification settings (members, athletes and guardians alike: preferences are the person's, not a workspace's): without a session the browser signs in first; reads and writes only the session's user's preferences, as /api/notifications/preferences; the post carries the CSRF token";
    const MY_REVIEWS: &str = "a person's own published reviews (athletes and guardians belong to no workspace): without a session the browser signs in first; each review is opened as the phone's routes open it (its athlete or a minor's guardian, published, else 404); the reply post carries the CSRF token";
    let read = Auth::desk(Perm::AthletesRead).in_module(Module::Athletes);
    let create = Auth::desk(Perm::AthletesCreate).in_module(Module::Athletes);
    let update = Auth::desk(Perm::AthletesUpdate).in_module(Module::Athletes);
    let delete = Auth::desk(Perm::AthletesDelete).in_module(Module::Athletes);
    let tr_read = Auth::desk(Perm::TrainingRead).in_module(Module::Training);
    let tr_manage = Auth::desk(Perm::TrainingManage).in_module(Module::Training);
    let msg = Auth::desk(Perm::MessagingUse).in_module(Module::Messaging);
    let tv_manage = Auth::desk(Perm::TvManage).in_module(Module::Tv);
    let members_read = Auth::desk(Perm::MembersRead);
    let members_manage = Auth::desk(Perm::MembersManage);
    let members_invite = Auth::desk(Perm::MembersInvite);
    let roles_manage = Auth::desk(Perm::RolesManage);
    let modules_manage = Auth::desk(Perm::ModulesManage);
    let rev_read = Auth::desk(Perm::ReviewsRead).in_module(Module::Reviews);
    let rev_manage = Auth::desk(Perm::ReviewsManage).in_module(Module::Reviews);
    let watch_read = Auth::desk(Perm::WearableRead).in_module(Module::Wearable);
    let watch_manage = Auth::desk(Perm::WearableManage).in_module(Module::Wearable);
    vec![
        route(GET, "/w/{ws}/", dashboard::show)
            .auth(Auth::desk_any()).area("web")
            .summary("Dashboard: this week's training, recent clips, unread messages, athletes needing attention, failed jobs"),
        route(GET, "/w/{ws}/jobs/{id}", jobs::show)
            .auth(Auth::desk_any()).area("web")
            .summary("A job's progress, live, then its result (back: where Continue leads)"),
        route(GET, "/w/{ws}/athletes", athletes::list)
            .auth(read).area("web")
            .summary("The roster: search q, status, level, coach; 25 a page (offset)"),
        route(GET, "/w/{ws}/athletes/new", athletes::new_form)
            .auth(create).area("web").summary("New athlete form"),
        route(POST, "/w/{ws}/athletes/new", athletes::create)
            .auth(create).area("web").summary("Create an athlete, then their profile"),
        route(GET, "/w/{ws}/athletes/export", athletes::export)
            .auth(read).area("web").summary("The roster as CSV (as GET /api/athletes/export)"),
        route(GET, "/w/{ws}/athletes/import", athletes::import_form)
            .auth(create).area("web").summary("CSV import: choose a file"),
        route(POST, "/w/{ws}/athletes/import", athletes::import_preview)
            .auth(create).area("web").summary("CSV import preview: every line checked (a dry run), each error by line; nothing written"),
        route(POST, "/w/{ws}/athletes/import/commit", athletes::import_commit)
            .auth(create).area("web").summary("Import the previewed CSV: in the request when small, else as a job with its progress page"),
        route(GET, "/w/{ws}/athletes/{id}", athletes::show)
            .auth(read).area("web")
            .summary("Profile: details, coaches, guardians and consent, invite, public profile, training, provider links, merge"),
        route(GET, "/w/{ws}/athletes/{id}/edit", athletes::edit_form)
            .auth(update).area("web").summary("Edit form"),
        route(POST, "/w/{ws}/athletes/{id}/edit", athletes::update)
            .auth(update).area("web").summary("Save the athlete's details (an empty field clears it)"),
        route(POST, "/w/{ws}/athletes/{id}/status", athletes::set_status)
            .auth(update).area("web").summary("Archive, or bring back to active"),
        route(GET, "/w/{ws}/athletes/{id}/delete", athletes::delete_form)
            .auth(delete).area("web").summary("Delete: the confirmation page"),
        route(POST, "/w/{ws}/athletes/{id}/delete", athletes::delete)
            .auth(delete).area("web").summary("Delete the athlete and everything theirs alone"),
        route(POST, "/w/{ws}/athletes/{id}/coaches", athletes::assign)
            .auth(update).area("web").summary("Assign a coach (head or assistant)"),
        route(POST, "/w/{ws}/athletes/{id}/coaches/{sc}/remove", athletes::unassign)
            .auth(update).area("web").summary("Remove a coach assignment"),
        route(POST, "/w/{ws}/athletes/{id}/publish", athletes::publish)
            .auth(update).area("web").summary("Publish or unpublish the public profile (a minor's needs consent)"),
        route(POST, "/w/{ws}/athletes/{id}/invite", athletes::invite)
            .auth(create).area("web").summary("Make an invite: the link shown once, or mailed"),
        route(GET, "/w/{ws}/athletes/{id}/merge", athletes::merge_form)
            .auth(delete).area("web").summary("Merge: the two athletes side by side (other: the duplicate)"),
        route(POST, "/w/{ws}/athletes/{id}/merge/{other}", athletes::merge)
            .auth(delete).area("web").summary("Merge the duplicate into this athlete"),
        route(GET, "/w/{ws}/training", training::calendar)
            .auth(tr_read).area("web").summary("The team calendar: a week (view=week) or a month (view=month) around at (YYYY-MM-DD), in the viewer's time zone"),
        route(GET, "/w/{ws}/training/new", training::new_form)
            .auth(tr_manage).area("web").summary("New session form (date: the day)"),
        route(POST, "/w/{ws}/training/new", training::create)
            .auth(tr_manage).area("web").summary("Create a session, then its page"),
        route(GET, "/w/{ws}/training/import", training::import_form)
            .auth(tr_manage).area("web").summary("CSV import of past sessions: choose a file"),
        route(POST, "/w/{ws}/training/import", training::import_preview)
            .auth(tr_manage).area("web").summary("CSV import preview: every line checked, each error by line; nothing written"),
        route(POST, "/w/{ws}/training/import/commit", training::import_commit)
            .auth(tr_manage).area("web").summary("Import the previewed sessions (a job with its progress page above 256 KiB)"),
        route(GET, "/w/{ws}/training/{id}", training::show)
            .auth(tr_read).area("web").summary("A session: details and the roster (live), who moved up from the waitlist (promoted)"),
        route(GET, "/w/{ws}/training/{id}/edit", training::edit_form)
            .auth(tr_manage).area("web").summary("Edit form"),
        route(POST, "/w/{ws}/training/{id}/edit", training::update)
            .auth(tr_manage).area("web").summary("Save the session (an emptied field is cleared)"),
        route(GET, "/w/{ws}/training/{id}/delete", training::delete_form)
            .auth(tr_manage).area("web").summary("Delete: the confirmation page"),
        route(POST, "/w/{ws}/training/{id}/delete", training::delete)
            .auth(tr_manage).area("web").summary("Delete the session and its roster"),
        route(POST, "/w/{ws}/training/{id}/participants", training::add)
            .auth(tr_manage).area("web").summary("Add an athlete (the waitlist when full)"),
        route(POST, "/w/{ws}/training/{id}/participants/{athlete}", training::set_status)
            .auth(tr_manage).area("web").summary("Mark attended, no-show or registered"),
        route(POST, "/w/{ws}/training/{id}/participants/{athlete}/remove", training::remove)
            .auth(tr_manage).area("web").summary("Remove from the roster (the waitlist moves up)"),
        route(POST, "/w/{ws}/training/{id}/film", training::film)
            .auth(tr_manage).area("web").summary("Start filming: the session's footage session, made once"),
        // ---- footage (issue 38): sessions, batch upload, clips ----
        route(GET, "/w/{ws}/footage", footage::list)
            .auth(foot(Perm::FootageRead)).area("web").summary("Footage sessions, newest first, with their clip counts; 25 a page (offset)"),
        route(GET, "/w/{ws}/footage/batch", footage::batch_new)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Batch upload: choose a spreadsheet manifest (CSV or .xlsx)"),
        route(POST, "/w/{ws}/footage/batch", footage::batch_upload)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Prepare a manifest's sessions and clips, all or nothing (as POST /api/training-sessions/batch-upload), then the batch's page; errors by line"),
        route(GET, "/w/{ws}/footage/batches/{id}", footage::batch_show)
            .auth(foot(Perm::FootageRead)).area("web").summary("A batch: each manifest row with its clip's live status (as GET /api/training-sessions/batch-upload)"),
        route(GET, "/w/{ws}/footage/{id}", footage::show)
            .auth(foot(Perm::FootageRead)).area("web").summary("A footage session: its clips as tiles with their live status, the session's numbers, its batches"),
        route(POST, "/w/{ws}/footage/{id}/store", footage::store)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Store every processed clip (as POST /api/sessions/store): the job's progress page"),
        route(GET, "/w/{ws}/footage/{id}/delete", footage::delete_form)
            .auth(foot(Perm::FootageDelete)).area("web").summary("Delete a footage session: the confirmation page"),
        route(POST, "/w/{ws}/footage/{id}/delete", footage::delete)
            .auth(foot(Perm::FootageDelete)).area("web").summary("Delete the footage session, its clips and labels (as DELETE /api/sessions/{id})"),
        route(GET, "/w/{ws}/clips/{id}", clips::show)
            .auth(foot(Perm::FootageRead)).area("web").summary("A clip: the player, ride windows and maneuvers on a timeline (t: start at, seconds), analysis state, labels, stats and probe"),
        route(POST, "/w/{ws}/clips/{id}/analyze", clips::analyze)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Submit the clip for analysis (as POST /api/clips/analyze)"),
        route(POST, "/w/{ws}/clips/{id}/cancel", clips::cancel)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Cancel the clip's analysis (as POST /api/clips/cancel)"),
        route(POST, "/w/{ws}/clips/{id}/store", clips::store)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Store the processed clip (as POST /api/clips/store): the job's progress page"),
        route(POST, "/w/{ws}/clips/{id}/render", clips::render)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Render the clip's web video, poster and scrub strip again (as POST /api/clips/render)"),
        route(POST, "/w/{ws}/clips/{id}/labels", clips::label)
            .auth(foot(Perm::FootageUpload)).area("web").summary("Confirm, correct or reject a predicted maneuver (as POST, PATCH /api/clips/{clipId}/maneuvers)"),
        route(GET, "/w/{ws}/messages", messages::list::<Desk>)
            .auth(msg).area("web").summary("My conversations in this workspace with unread counts; 25 a page (offset)"),
        route(GET, "/w/{ws}/messages/new", messages::new_form)
            .auth(msg).area("web").summary("Start a conversation: the athletes I may write to (q, offset)"),
        route(POST, "/w/{ws}/messages/new", messages::start)
            .auth(msg).area("web").summary("Open the conversation with an athlete (or the existing one)"),
        route(GET, "/w/{ws}/messages/sent", sent::list)
            .auth(msg).area("web").summary("How my notifications went out in this workspace (as GET /api/notifications/sent): counts per channel, 25 a page (offset)"),
        route(GET, "/w/{ws}/messages/sent/{id}", sent::show)
            .auth(msg).area("web").summary("One of my sends: each recipient's delivery per channel and device, masked (as GET /api/notifications/sent/{id}/deliveries); not mine: 404"),
        route(GET, "/w/{ws}/messages/{id}", messages::show::<Desk>)
            .auth(msg).area("web").summary("A conversation, newest at the bottom, polled live; marks it read"),
        route(POST, "/w/{ws}/messages/{id}", messages::send::<Desk>)
            .auth(msg).area("web").summary("Send a message with an optional photo (multipart, streamed; checked by its bytes, at most 20 MiB)").streamed_body(),
        route(GET, "/w/{ws}/messages/{id}/report/{other}", messages::report_form::<Desk>)
            .auth(msg).area("web").summary("Report a message: the confirmation form"),
        route(POST, "/w/{ws}/messages/{id}/report/{other}", messages::report::<Desk>)
            .auth(msg).area("web").summary("Report a message of the other side to the moderators"),
        // A person's own pages: an athlete's or guardian's conversations, in any workspace.
        route(GET, "/me/messages", messages::list::<Me>)
            .auth(Auth::Page(MINE)).area("web").summary("My conversations as an athlete or guardian, with unread counts; 25 a page (offset)"),
        route(GET, "/me/messages/{id}", messages::show::<Me>)
            .auth(Auth::Page(MINE)).area("web").summary("A conversation of mine, polled live; marks it read"),
        route(POST, "/me/messages/{id}", messages::send::<Me>)
            .auth(Auth::Page(MINE)).area("web").summary("Reply with an optional photo (streamed, at most 20 MiB; a guardian reads along and cannot write)").streamed_body(),
        route(GET, "/me/messages/{id}/report/{other}", messages::report_form::<Me>)
            .auth(Auth::Page(MINE)).area("web").summary("Report a message: the confirmation form"),
        route(POST, "/me/messages/{id}/report/{other}", messages::report::<Me>)
            .auth(Auth::Page(MINE)).area("web").summary("Report a message of the coach to the moderators"),
        // ---- Workspace settings, part B (issue 37) ----
        route(GET, "/w/{ws}/settings/audit", audit::show)
            .auth(Auth::desk(Perm::AuditRead)).area("web")
            .summary("The audit log, newest first: action (exact, or a prefix ending in '.'), from and to (days in the viewer's zone); 50 a page (offset)"),
        route(GET, "/w/{ws}/settings/tv", tv::show)
            .auth(tv_manage).area("web").summary("The workspace's TVs: pair one by its code, rename, sign out"),
        route(POST, "/w/{ws}/settings/tv/pair", tv::pair)
            .auth(tv_manage).area("web").summary("Pair the TV showing the code (as POST /api/tv/signin/claim; misses count against the member's limit)"),
        route(POST, "/w/{ws}/settings/tv/{id}/rename", tv::rename)
            .auth(tv_manage).area("web").summary("Rename a TV"),
        route(GET, "/w/{ws}/settings/tv/{id}/signout", tv::signout_form)
            .auth(tv_manage).area("web").summary("Sign a TV out: the confirmation page"),
        route(POST, "/w/{ws}/settings/tv/{id}/signout", tv::sign_out)
            .auth(tv_manage).area("web").summary("Sign a TV out (its token stops working at once)"),
        route(GET, "/w/{ws}/settings/coaches", coaches::list)
            .auth(Auth::desk(Perm::MembersRead)).area("web").summary("The workspace's coaches with their athlete counts"),
        route(GET, "/w/{ws}/settings/coaches/{id}", coaches::show)
            .auth(Auth::desk(Perm::MembersRead)).area("web")
            .summary("A coach: details, stats, athletes (25 a page, with athletes.read), recent activity (with audit.read)"),
        route(GET, "/w/{ws}/settings/coaches/{id}/reassign", coaches::reassign_form)
            .auth(update).area("web").summary("Move all the coach's athletes to another (toCoachId): the confirmation page"),
        route(POST, "/w/{ws}/settings/coaches/{id}/reassign", coaches::reassign)
            .auth(update).area("web").summary("Move all the coach's athletes to another coach (as POST /api/coaches/{id}/athletes/reassign)"),
        route(GET, "/w/{ws}/settings/enrollment", enrollment::show)
            .auth(read).area("web").summary("Public self-enrollment: open or closed, the public page's address"),
        route(POST, "/w/{ws}/settings/enrollment", enrollment::set)
            .auth(Auth::desk(Perm::OrgUpdate).in_module(Module::Athletes)).area("web")
            .summary("Open or close public self-enrollment (enabled: true or false)"),
        // ---- workspace settings (settings::TABS lists the tabs) ----
        route(GET, "/w/{ws}/settings", settings::index)
            .auth(Auth::desk_any()).area("web").summary("Workspace settings: the first settings page the member may open (403 page when none)"),
        route(GET, "/w/{ws}/settings/members", settings::members::list)
            .auth(members_read).area("web").summary("Members with their roles; 25 a page (offset)"),
        route(POST, "/w/{ws}/settings/members/{id}/role", settings::members::set_role)
            .auth(members_manage).area("web").summary("Change a member's role (as PATCH /api/orgs/{id}/members/{memberId})"),
        route(GET, "/w/{ws}/settings/members/{id}/remove", settings::members::remove_form)
            .auth(members_manage).area("web").summary("Remove a member: the confirmation page"),
        route(POST, "/w/{ws}/settings/members/{id}/remove", settings::members::remove)
            .auth(members_manage).area("web").summary("Remove a member (as DELETE /api/orgs/{id}/members/{memberId}); yourself: leave"),
        route(GET, "/w/{ws}/settings/roles", settings::roles::list)
            .auth(members_read).area("web").summary("Roles in a permission matrix (the owner role read-only)"),
        route(POST, "/w/{ws}/settings/roles", settings::roles::save)
            .auth(roles_manage).area("web").summary("Save the matrix: each changed role's name and permissions (as PATCH /api/orgs/{id}/roles/{roleId})"),
        route(POST, "/w/{ws}/settings/roles/new", settings::roles::create)
            .auth(roles_manage).area("web").summary("Create a role (as POST /api/orgs/{id}/roles)"),
        route(GET, "/w/{ws}/settings/roles/{id}/delete", settings::roles::delete_form)
            .auth(roles_manage).area("web").summary("Delete a role: the confirmation page"),
        route(POST, "/w/{ws}/settings/roles/{id}/delete", settings::roles::delete)
            .auth(roles_manage).area("web").summary("Delete a custom role nobody holds (as DELETE /api/orgs/{id}/roles/{roleId})"),
        route(GET, "/w/{ws}/settings/invites", settings::invites::list)
            .auth(members_read).area("web").summary("Member invites with their state and the seats used of the cap; 25 a page (offset)"),
        route(POST, "/w/{ws}/settings/invites", settings::invites::create)
            .auth(members_invite).area("web").summary("Invite a member by email with a role, seat-capped (as POST /api/orgs/{id}/members/invite)"),
        route(POST, "/w/{ws}/settings/invites/{id}/revoke", settings::invites::revoke)
            .auth(members_invite).area("web").summary("Revoke a pending invite (as DELETE /api/orgs/{id}/invites/{inviteId})"),
        route(GET, "/w/{ws}/settings/modules", settings::modules::show)
            .auth(modules_manage).area("web").summary("Feature modules with their switches"),
        route(POST, "/w/{ws}/settings/modules", settings::modules::save)
            .auth(modules_manage).area("web").summary("Switch modules on or off (as PATCH /api/orgs/{id}/modules)"),
        // ---- reviews (issue 38): the review builder; the permissions of /api/reviews ----
        route(GET, "/w/{ws}/reviews", reviews::list)
            .auth(rev_read).area("web").summary("The workspace's reviews, newest first, 25 a page (offset); the new-review form"),
        route(POST, "/w/{ws}/reviews", reviews::create)
            .auth(rev_manage).area("web").summary("Start a draft review of a footage session (sessionId) or of a clip's session (clipId), then its builder"),
        route(GET, "/w/{ws}/reviews/{id}", reviews::builder::show)
            .auth(rev_read).area("web").summary("The review builder: the clip's player (clip), keypoints, voice notes with their transcription live, build, publish"),
        route(POST, "/w/{ws}/reviews/{id}", reviews::builder::update)
            .auth(rev_manage).area("web").summary("Save the review's title and summary (as PATCH /api/reviews/{id})"),
        route(POST, "/w/{ws}/reviews/{id}/suggest", reviews::builder::suggest)
            .auth(rev_manage).area("web").summary("Suggested keypoints from the clips' ride windows and maneuvers (as POST /api/reviews/{id}/suggest)"),
        route(POST, "/w/{ws}/reviews/{id}/keypoints", reviews::builder::add_keypoint)
            .auth(rev_manage).area("web").summary("Add a keypoint on a clip at a time (seconds or m:ss, from the player)"),
        route(POST, "/w/{ws}/reviews/{id}/keypoints/{other}", reviews::builder::edit_keypoint)
            .auth(rev_manage).area("web").summary("Change a keypoint's times and note"),
        route(POST, "/w/{ws}/reviews/{id}/keypoints/{other}/delete", reviews::builder::delete_keypoint)
            .auth(rev_manage).area("web").summary("Delete a keypoint (a suggested one stays dismissed)"),
        route(POST, "/w/{ws}/reviews/{id}/voice-notes", reviews::builder::add_note)
            .auth(rev_manage).area("web").summary("Add a voice note recorded in the browser or chosen (multipart, streamed; checked by its bytes and size as POST /api/reviews/{id}/voice-notes)").streamed_body(),
        route(POST, "/w/{ws}/reviews/{id}/voice-notes/{other}/delete", reviews::builder::delete_note)
            .auth(rev_manage).area("web").summary("Delete a voice note (its audio is deleted by a job)"),
        route(POST, "/w/{ws}/reviews/{id}/build", reviews::builder::build)
            .auth(rev_manage).area("web").summary("Build the review (job): each voice note transcribed, shown live on the builder"),
        route(POST, "/w/{ws}/reviews/{id}/publish", reviews::builder::publish)
            .auth(rev_manage).area("web").summary("Publish a ready review to its athlete (and a minor's guardians), who are notified"),
        route(GET, "/w/{ws}/coaching", coaching::index)
            .auth(rev_read).area("web").summary("Coaching: generate feedback, analyse an athlete's progress, the newest feedback (25 a page, offset)"),
        route(POST, "/w/{ws}/coaching/generate", coaching::generate)
            .auth(rev_manage).area("web").summary("Generate feedback for a session's clips, per clip or batch (as POST /api/sessions/coaching), then the job's page"),
        route(POST, "/w/{ws}/coaching/progress", coaching::progress_report)
            .auth(rev_manage).area("web").summary("An athlete's progress from stored stats (as POST /api/sessions/coaching/progress), then its page"),
        route(GET, "/w/{ws}/coaching/{id}", coaching::show)
            .auth(rev_read).area("web").summary("One feedback version; a progress report's trends as SVG charts with their numbers as a table; export links"),
        // An athlete's or guardian's published reviews (issue 38).
        route(GET, "/me/reviews", reviews::mine::list)
            .auth(Auth::Page(MY_REVIEWS)).area("web").summary("My published reviews as an athlete or guardian, newest first; 25 a page (offset)"),
        route(GET, "/me/reviews/{id}", reviews::mine::show)
            .auth(Auth::Page(MY_REVIEWS)).area("web").summary("A published review: the clip at each keypoint, the voice notes and transcripts, the replies; recorded as opened (device web)"),
        route(POST, "/me/reviews/{id}/replies", reviews::mine::reply)
            .auth(Auth::Page(MY_REVIEWS)).area("web").summary("Reply in writing or recorded (multipart, streamed; as POST /api/mobile/reviews/{id}/replies; a guardian reads along)").streamed_body(),
        route(GET, "/me/notifications", notifications::show)
            .auth(Auth::Page(MY_SETTINGS)).area("web").summary("My notification settings: channels per kind (email, push, SMS), quiet hours and their time zone; notifications in this browser"),
        route(POST, "/me/notifications", notifications::save)
            .auth(Auth::Page(MY_SETTINGS)).area("web").summary("Save my notification settings (as PUT /api/notifications/preferences), then the page"),
        route(GET, "/w/{ws}/watch", watch::list)
            .auth(watch_read).area("web").summary("Watch sessions: who is in the water (polled), import a GPX or FIT file, the sessions by athlete, 25 a page"),
        route(GET, "/w/{ws}/watch/live", watch::live)
            .auth(watch_read).area("web").summary("Who is surfing, large and polled: the screen beside the camera (as GET /api/wearable/who-is-surfing)"),
        route(POST, "/w/{ws}/watch/import", watch::import)
            .auth(watch_manage).area("web").summary("Import a GPX or FIT file for an athlete (multipart, streamed; as POST /api/wearable/import), then its session").streamed_body(),
        route(GET, "/w/{ws}/watch/{id}", watch::show)
            .auth(watch_read).area("web").summary("A watch session: track and speed/heart-rate charts as SVG with the rides, the ride table, true rides and the detector's accuracy, clip alignment"),
        route(POST, "/w/{ws}/watch/{id}/labels", watch::add_label)
            .auth(watch_manage).area("web").summary("Add a true ride, typed, dragged on the speed chart or confirmed from a found one (as POST /api/wearable/labels)"),
        route(POST, "/w/{ws}/watch/{id}/labels/no-rides", watch::mark_no_rides)
            .auth(watch_manage).area("web").summary("Mark the session as watched and holding no ride (as POST /api/wearable/labels with noRides)"),
        route(POST, "/w/{ws}/watch/{id}/labels/{other}/delete", watch::delete_label)
            .auth(watch_manage).area("web").summary("Remove a true ride or the no-rides mark (as DELETE /api/wearable/labels)"),
        route(POST, "/w/{ws}/watch/{id}/sync", watch::align)
            .auth(watch_manage).area("web").summary("Align a clip with the session by rides or clocks (as POST /api/wearable/sync)"),
        route(POST, "/w/{ws}/watch/{id}/rederive", watch::rederive)
            .auth(watch_manage).area("web").summary("Find the rides again (a job: its page, then back)"),
        route(GET, "/w/{ws}/watch/{id}/gpx", watch::export_gpx)
            .auth(watch_read).area("web").summary("The session as GPX with its rides (as GET /api/wearable/sessions/{id}/gpx)"),
        route(GET, "/w/{ws}/watch/{id}/delete", watch::delete_form)
            .auth(watch_manage).area("web").summary("Delete a session: its confirmation page"),
        route(POST, "/w/{ws}/watch/{id}/delete", watch::delete)
            .auth(watch_manage).area("web").summary("Delete a session, then the list"),
    ]
}

/// A footage page's policy: the footage module and `perm`, as the JSON footage routes.
fn foot(perm: Perm) -> Auth {
    Auth::desk(perm).in_module(Module::Footage)
}
