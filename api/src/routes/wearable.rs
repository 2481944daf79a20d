//! The wearable area's routes (issue 12; docs/wearable.md). The routes taking a wearer's data
//! are for the athlete's own login or a member with wearable.manage in the athlete's workspace
//! (checked by domain::wearable::access); the watch uses their /api/mobile twins.

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{jobs, wearable};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};
use shared::domain::wearable::labels::NewLabel;
use shared::domain::wearable::sync::{SyncPatch, SyncRequest};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(POST, "/api/wearable/sessions", wearable::upload)
            .auth(Auth::User).mobile()
            .area("wearable").summary("A finished watch session: metadata and samples (columnar; 201, derived by a job), or uploadId of a file sent to upload-url (202, read by a job); the same clientSessionId again is 200")
            .body::<shared::domain::wearable::sessions::SessionUpload>().ok::<wearable::SessionAccepted>(201)
            .ok::<wearable::SessionAccepted>(202).ok::<wearable::SessionAccepted>(200),
        route(GET, "/api/wearable/sessions", wearable::list)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("List the workspace's watch sessions, newest first (athleteId; paginated)")
            .query_of::<wearable::SessionsQuery>()
            .paged::<shared::domain::wearable::sessions::SessionView>(),
        route(POST, "/api/wearable/sessions/live", wearable::live)
            .auth(Auth::User).mobile()
            .area("wearable").summary("Start a live session (201) or report on one (sessionId: samples appended; end: ends and derives it); a session silent for 2 minutes ends on its own")
            .body::<shared::domain::wearable::sessions::LiveReport>().ok::<wearable::SessionAccepted>(201)
            .ok::<wearable::SessionAccepted>(200),
        route(POST, "/api/wearable/upload-url", wearable::upload_url)
            .auth(Auth::User).mobile()
            .area("wearable").summary("A signed PUT URL (1 hour) for a bulk sample file (format csv, gpx or fit); then POST /api/wearable/sessions with its uploadId")
            .body::<shared::domain::wearable::sessions::UploadRequest>().ok::<shared::domain::wearable::sessions::UploadUrl>(201),
        route(GET, "/api/wearable/sessions/{id}", wearable::get)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Read a watch session with its rides (current detector version) and summary")
            .ok::<shared::domain::wearable::sessions::SessionDetail>(200),
        route(DELETE, "/api/wearable/sessions/{id}", wearable::delete)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Delete a watch session with its samples, rides, labels and alignments (the session's coach or a workspace admin only)")
            .empty(204, "deleted"),
        route(POST, "/api/wearable/sessions/{id}/rederive", wearable::rederive)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Run the ride detector again (job); its windows record the detector version")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/wearable/sessions/{id}/gpx", wearable::export_gpx)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("GPX 1.1 export of a session: the track with heart rate, each ride as a waypoint and a track segment")
            .empty(200, "application/gpx+xml"),
        route(GET, "/api/wearable/samples/{id}", wearable::samples)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("A session's samples of one stream (stream gps|hr|imu; from, to in Unix ms), columnar, paginated (limit up to 10000)")
            .query_of::<wearable::SamplesQuery>()
            .ok::<shared::domain::wearable::sessions::SamplePage>(200),
        route(GET, "/api/wearable/my-schedule", wearable::my_schedule)
            .auth(Auth::User).mobile()
            .area("wearable").summary("The wearer's training sessions today (date, tzOffsetMinutes): on the roster as an athlete, or as the coach")
            .query_of::<wearable::ScheduleQuery>()
            .ok::<shared::domain::wearable::people::Schedule>(200),
        route(GET, "/api/wearable/who-is-surfing", wearable::who_is_surfing)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The workspace's live wearers (reported within 2 minutes), for the capture screen (paginated)")
            .paged::<shared::domain::wearable::people::LiveWearer>(),
        route(GET, "/api/wearable/roster", wearable::roster)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The caller's assigned athletes with their live session if any: the capture screen's fallback (paginated)")
            .paged::<shared::domain::wearable::people::RosterAthlete>(),
        route(GET, "/api/wearable/labels", wearable::list_labels)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("A session's ground-truth ride labels (sessionId; paginated)")
            .query_of::<wearable::SessionRef>().required_query("sessionId")
            .paged::<shared::domain::wearable::labels::LabelView>(),
        route(POST, "/api/wearable/labels", wearable::add_label)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Mark a true ride on a session (start, end: RFC 3339, watch clock), or mark it as holding no ride (noRides)")
            .body::<NewLabel>().ok::<shared::domain::wearable::labels::LabelView>(201),
        route(DELETE, "/api/wearable/labels", wearable::delete_label)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Delete a ride label or a no-rides mark (id)")
            .query_of::<wearable::LabelRef>().required_query("id")
            .empty(204, "deleted"),
        route(GET, "/api/wearable/accuracy", wearable::accuracy)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("The detector's precision, recall and F1 against the labels (temporal IoU ≥ 0.5), per labelled session (paginated) and overall (sessionId for one)")
            .query_of::<wearable::SessionRef>().paginated()
            .ok::<shared::domain::wearable::labels::AccuracyReport>(200),
        route(GET, "/api/wearable/sync", wearable::list_syncs)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Clip-to-watch alignments (clipId or sessionId; paginated)")
            .query_of::<wearable::SyncQuery>()
            .paged::<shared::domain::wearable::sync::SyncView>(),
        route(POST, "/api/wearable/sync", wearable::align)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Align a clip with a session: by /api/time clock measurements or by matching ride windows (method auto|clock|rides); stored with method and confidence")
            .body::<SyncRequest>().ok::<shared::domain::wearable::sync::SyncView>(200),
        route(PATCH, "/api/wearable/sync", wearable::set_offset)
            .auth(Auth::member(Perm::WearableManage).in_module(Module::Wearable))
            .area("wearable").summary("Set a clip's offset by hand (manual, confidence 1)")
            .body::<SyncPatch>().ok::<shared::domain::wearable::sync::SyncView>(200),
        route(GET, "/api/wearable/highlights", wearable::highlights)
            .auth(Auth::member(Perm::WearableRead).in_module(Module::Wearable))
            .area("wearable").summary("Per-ride highlight definitions of a session (sessionId): each ride's segment of every aligned clip covering it (paginated)")
            .query_of::<wearable::SessionRef>().required_query("sessionId")
            .paged::<shared::domain::wearable::sync::Highlight>(),
        route(POST, "/api/wearable/import", wearable::import)
            .streamed_body()
            .auth(Auth::User).mobile()
            .area("wearable").summary("GPX 1.1 or FIT import as the body, told apart by its bytes (streamed; athleteId, clientSessionId, trainingSessionId, device); heart rate; 400 gpx_invalid with the line, fit_invalid with the record and byte offset")
            .query_of::<wearable::ImportQuery>()
            .raw_body(&["application/gpx+xml", "application/vnd.ant.fit"])
            .ok::<wearable::SessionAccepted>(201).ok::<wearable::SessionAccepted>(200),
    ]
}
