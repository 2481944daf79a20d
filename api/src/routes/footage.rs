//! The footage area's routes: signed storage URLs, the video proxy, clips and footage sessions,
//! phone uploads over tus, batch uploads, maneuver labels.

use super::{DELETE, GET, OPTIONS, PATCH, POST, PUT};
use crate::areas::{batch, footage, ingest, jobs, media, storage, video};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ---- object storage (local store's signed URLs) ----
        route(GET, "/api/storage/{store}/{*key}", storage::download)
            .error(416, "the range cannot be satisfied (range_not_satisfiable)")
            .auth(Auth::Token("the HMAC signature and expiry in the query, issued by an access-checked route"))
            .area("footage").summary("Download an object through a signed URL (Range supported)")
            .query_of::<storage::Signature>()
            .empty(200, "the object's bytes (206 for a range)"),
        route(PUT, "/api/storage/{store}/{*key}", storage::upload)
            .streamed_body()
            .auth(Auth::Token("the HMAC signature and expiry in the query, issued by an access-checked route"))
            .area("footage").summary("Upload an object through a signed URL (streamed)")
            .query_of::<storage::Signature>()
            .raw_body(&["application/octet-stream"])
            .ok::<storage::Stored>(201),
        // ---- video (issue 10): the token-gated range proxy; GET also answers HEAD ----
        route(GET, "/api/video/stream", video::stream)
            .auth(Auth::Token("the signed stream token in the query (HMAC, 1 hour, bound to the clip and the caller), issued by the access-checked /api/video/sign"))
            .area("footage").summary("Stream a video through its signed token (token; Range, If-Range, HEAD; stored or allow-listed external source)")
            .error(416, "the range cannot be satisfied (range_not_satisfiable)").provider()
            .query_of::<video::StreamQuery>().required_query("token")
            .empty(200, "the video's bytes (206 for a range, 416 when unsatisfiable)"),
        route(GET, "/api/clips", footage::list)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("List clips, oldest first (sessionId, status, athleteId; paginated) with status, progress, probe and stats")
            .query_of::<footage::ClipListQuery>()
            .paged::<footage::ClipView>(),
        route(GET, "/api/clips/status", footage::status)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Stored processing status of one clip or up to 100 (ids, comma-separated); never calls the backend")
            .query_of::<footage::StatusQuery>()
            .ok::<footage::ClipStatuses>(200),
        route(GET, "/api/clips/{clipId}", footage::get)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Read a clip with its status, stats and probe")
            .ok::<footage::ClipView>(200),
        route(GET, "/api/clips/{clipId}/media", media::get)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("A clip's web media: the render's state and, once ready, signed URLs of the H.264 rendition(s), the poster and the scrub strip")
            .ok::<media::MediaView>(200),
        route(GET, "/api/clips/{clipId}/thumbnails.vtt", media::thumbnails)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("The scrub strip's WebVTT index: a cue per thumbnail, each the sprite's signed URL with its #xywh tile")
            .empty(200, "text/vtt"),
        route(POST, "/api/clips/render", media::render)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Render the clip's web media again: rendition(s), poster and scrub strip from the original (job; the live render if one runs)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/clips/analyze", footage::analyze)
            .provider()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Sign the clip's source and submit it to the analysis backend (job; a clip in flight returns its live job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/clips/cancel", footage::cancel)
            .provider()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Cancel a clip's processing here at once and at the backend best-effort")
            .body::<footage::ClipRef>().ok::<footage::ClipView>(200),
        route(POST, "/api/clips/probe", footage::probe)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Probe the uploaded original (rotation, duration, codec, resolution, frame rate) with ffprobe (job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(POST, "/api/clips/store", footage::store)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Copy the processed video and overlay into our stores and save stats (job)")
            .body::<footage::ClipRef>().ok::<jobs::JobAccepted>(202),
        route(DELETE, "/api/clips/{clipId}", footage::delete)
            .auth(Auth::member(Perm::FootageDelete).in_module(Module::Footage))
            .area("footage").summary("Delete a clip; its storage objects are removed by a job that retries until done")
            .empty(204, "deleted"),
        route(GET, "/api/sessions", footage::list_sessions)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("List footage sessions (athleteId; paginated) with clip counts")
            .query_of::<footage::SessionListQuery>()
            .paged::<footage::SessionListItem>(),
        route(GET, "/api/sessions/{id}", footage::get_session)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Read a footage session with its clips")
            .ok::<footage::SessionDetail>(200),
        route(POST, "/api/sessions/store", footage::store_session)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Store every processed clip of a footage session (job with progress per clip)")
            .body::<footage::SessionRef>().ok::<jobs::JobAccepted>(202),
        route(DELETE, "/api/sessions/{id}", footage::delete_session)
            .auth(Auth::member(Perm::FootageDelete).in_module(Module::Footage))
            .area("footage").summary("Hard-delete a footage session, its clips and labels; objects in all three stores go through a job")
            .empty(204, "deleted"),
        // ---- phone capture uploads over tus 1.0 (issue 10); GET also answers HEAD ----
        route(OPTIONS, "/api/clips/native-ingest", ingest::options)
            .auth(Auth::Public("tus discovery: the protocol version, extensions, size limit and checksum algorithms, the same for everyone, asked before any upload"))
            .area("footage").summary("tus 1.0 discovery: Tus-Version, Tus-Extension, Tus-Max-Size and Tus-Checksum-Algorithm")
            .empty(204, "the server's tus capabilities, in the headers"),
        route(POST, "/api/clips/native-ingest", ingest::create)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Start a resumable (tus 1.0) clip upload: Upload-Length, Upload-Metadata (sessionId, filename, athleteId, clientUploadId, recordedAt)")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .ok::<ingest::UploadView>(201),
        route(GET, "/api/clips/native-ingest/{uploadId}", ingest::status)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Where a resumable upload stands (HEAD: Upload-Offset to resume from; GET: also JSON with its clip once joined)")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .ok::<ingest::UploadView>(200),
        route(PATCH, "/api/clips/native-ingest/{uploadId}", ingest::append)
            .streamed_body()
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Append bytes at Upload-Offset (application/offset+octet-stream; Upload-Checksum sha1|sha256); the last PATCH starts the join job")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .raw_body(&["application/offset+octet-stream"])
            .error(460, "the Upload-Checksum does not match (checksum_mismatch)")
            .empty(204, "stored; Upload-Offset is the new offset"),
        route(DELETE, "/api/clips/native-ingest/{uploadId}", ingest::terminate)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Terminate an unfinished upload (tus termination); its parts are removed by a job")
            .error(412, "Tus-Resumable is missing or names another version (tus)")
            .empty(204, "terminated"),
        route(POST, "/api/webhooks/analysis", footage::analysis_webhook)
            .auth(Auth::Webhook("the analysis backend's completion webhook, verified by its Standard Webhooks signature (HMAC-SHA256 with ANALYSIS_WEBHOOK_SECRET, 5-minute timestamp window)"))
            .area("footage").summary("An analysis finished: applied like a poll's answer, ending the clip's polling early")
            .empty(204, "applied (or already known)"),
        route(POST, "/api/training-sessions/batch-upload", batch::prepare)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Prepare sessions and clips from a spreadsheet manifest (CSV or .xlsx body; fileName, dryRun): all or nothing, the same rows again create nothing")
            .query_of::<batch::PrepareQuery>()
            .raw_body(&["text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"])
            .ok::<batch::PreparedBatch>(201),
        route(GET, "/api/training-sessions/batch-upload", batch::status)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("A batch's manifest with each clip's live status (batchId)")
            .query_of::<batch::BatchQuery>()
            .ok::<batch::BatchStatus>(200),
        route(GET, "/api/video/sign", footage::sign)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("An HMAC-signed stream URL for a clip (clipId, variant web|low|processed|original; default the web rendition once ready), valid 1 hour, bound to the clip and the caller")
            .query_of::<footage::SignQuery>()
            .ok::<footage::SignedVideo>(200),
        route(GET, "/api/clips/sidecar", footage::sidecar)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("The stored overlay sidecar of a clip (clipId; Range supported)")
            .error(416, "the range cannot be satisfied (range_not_satisfiable)")
            .query_of::<footage::ClipRef>()
            .ok::<footage::SidecarDocument>(200)
            .empty(206, "a byte range of the overlay document"),
        route(GET, "/api/clips/{clipId}/maneuvers", footage::maneuvers)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("A clip's predicted maneuvers and the coaches' labels beside them")
            .ok::<footage::Maneuvers>(200),
        route(POST, "/api/clips/{clipId}/maneuvers", footage::add_maneuver)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Label a predicted maneuver (confirmed, corrected, rejected) or add one the model missed")
            .body::<footage::NewLabel>().ok::<footage::LabelView>(201),
        route(PATCH, "/api/clips/{clipId}/maneuvers", footage::correct_maneuver)
            .auth(Auth::member(Perm::FootageUpload).in_module(Module::Footage))
            .area("footage").summary("Change a label (labelId); who and when are recorded, the prediction stays")
            .body::<footage::LabelPatch>().ok::<footage::LabelView>(200),
        route(GET, "/api/maneuver-labels/export", footage::export_labels)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("The workspace's corrected maneuver labels as a training set (format jsonl|csv)")
            .query_of::<footage::ExportQuery>()
            .empty(200, "JSONL or CSV: clip, window, predicted and corrected type"),
    ]
}
