//! The reviews area's routes (issue 11): reviews, their keypoints, voice notes and replies,
//! coaching feedback.

use super::{DELETE, GET, PATCH, POST};
use crate::areas::{coaching, jobs, reviews, video};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/reviews", reviews::list)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("List reviews (sessionId, athleteId, status; paginated)")
            .query_of::<reviews::ListQuery>()
            .paged::<reviews::ReviewView>(),
        route(POST, "/api/reviews", reviews::create)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Start a draft review of a footage session (for its athlete unless another is named)")
            .body::<reviews::NewReview>().ok::<reviews::ReviewView>(201),
        route(GET, "/api/reviews/{id}", reviews::get)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("Read a review with its keypoints and receipts")
            .ok::<reviews::CoachReview>(200),
        route(PATCH, "/api/reviews/{id}", reviews::update)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Edit a draft or ready review (a ready one goes back to draft)")
            .body::<reviews::ReviewPatch>().ok::<reviews::ReviewView>(200),
        route(DELETE, "/api/reviews/{id}", reviews::delete)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a review with its keypoints")
            .empty(204, "deleted"),
        route(POST, "/api/reviews/{id}/keypoints", reviews::add_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Add a keypoint on a clip of the session (time, note, drawing, maneuver)")
            .body::<reviews::NewKeypoint>().ok::<reviews::KeypointView>(201),
        route(PATCH, "/api/reviews/{id}/keypoints/{keypointId}", reviews::update_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Change a keypoint (a suggested one becomes the coach's)")
            .body::<reviews::KeypointPatch>().ok::<reviews::KeypointView>(200),
        route(DELETE, "/api/reviews/{id}/keypoints/{keypointId}", reviews::delete_keypoint)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a keypoint (a suggested one stays dismissed)")
            .empty(204, "deleted"),
        route(POST, "/api/reviews/{id}/suggest", reviews::suggest)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Keypoints from the analysed clips' ride windows and maneuvers; no model call; adds nothing twice")
            .ok::<reviews::Suggested>(200),
        route(POST, "/api/reviews/{id}/build", reviews::build)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Build the review (job): draft or ready, then building, then ready")
            .ok::<jobs::JobAccepted>(202),
        route(POST, "/api/reviews/{id}/publish", reviews::publish)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Publish a ready review to its athlete (and a minor's guardians), who are notified")
            .ok::<reviews::ReviewView>(200),
        route(POST, "/api/reviews/{id}/voice-notes", reviews::voice_notes::add)
            .streamed_body()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Add a voice note: the audio is the body (M4A/AAC, MP3, WAV, Ogg/Opus, WebM by their first bytes; 25 MiB); keypointId")
            .query_of::<reviews::voice_notes::AddQuery>()
            .raw_body(&["audio/mp4", "audio/mpeg", "audio/wav", "audio/ogg", "audio/webm", "application/octet-stream"])
            .ok::<reviews::VoiceNoteView>(201),
        route(DELETE, "/api/reviews/{id}/voice-notes/{noteId}", reviews::voice_notes::delete)
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Delete a voice note (its audio is deleted by a job)")
            .empty(204, "deleted"),
        route(GET, "/api/reviews/{id}/replies", reviews::replies::for_coach)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("The athlete's replies to a review, oldest first (paginated)")
            .paged::<reviews::replies::ReplyView>(),
        route(GET, "/api/mobile/sessions/{id}/reviews", reviews::phone::session_reviews)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: a footage session's published reviews for the athlete signed in (a minor's guardians read along)")
            .ok::<reviews::phone::PhoneReviews>(200),
        route(GET, "/api/mobile/reviews/{id}/replies", reviews::replies::for_reader)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: the replies to a published review (its athlete; a minor's guardians read along)")
            .paged::<reviews::replies::ReplyView>(),
        route(POST, "/api/mobile/reviews/{id}/replies", reviews::replies::add)
            .streamed_body()
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: the athlete replies, in writing (JSON) or recorded (audio body); clientReplyId makes it idempotent; the coach is notified")
            .query_of::<reviews::replies::VoiceQuery>()
            .body::<reviews::replies::TextReply>().ok::<reviews::replies::ReplyView>(201),
        route(POST, "/api/mobile/reviews/{id}/receipts", reviews::phone::receipt)
            .auth(Auth::User).bearer_only()
            .area("reviews").summary("The phone: a review delivered or opened on this device (idempotent per reader and device)")
            .body::<reviews::phone::ReceiptInput>().ok::<reviews::ReceiptView>(200),
        route(POST, "/api/sessions/coaching", coaching::generate)
            .provider()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("Generate coaching feedback from a session's analysed clips and the coach's keypoints (job; per_clip or batch; each run adds a version)")
            .body::<coaching::CoachingRequest>().ok::<jobs::JobAccepted>(202),
        route(GET, "/api/sessions/coaching", coaching::list)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("List coaching feedback (sessionId, clipId, athleteId, kind, latest; paginated, newest first)")
            .query_of::<coaching::ListQuery>()
            .paged::<coaching::FeedbackView>(),
        route(POST, "/api/sessions/coaching/progress", coaching::progress)
            .provider()
            .auth(Auth::member(Perm::ReviewsManage).in_module(Module::Reviews))
            .area("reviews").summary("An athlete's progress across sessions from stored stats (stored as a version; the narrative follows by job when a model is configured)")
            .body::<coaching::ProgressRequest>().ok::<coaching::ProgressAnswer>(200),
        route(GET, "/api/sessions/coaching/export", coaching::export)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("The newest coaching feedback of a session or athlete (format json|html: a printable report, no script, restrictive CSP)")
            .query_of::<coaching::ExportQuery>()
            .ok::<coaching::CoachingExport>(200).also_as(200, "text/html"),
        route(GET, "/api/sessions/coaching/{id}", coaching::get)
            .auth(Auth::member(Perm::ReviewsRead).in_module(Module::Reviews))
            .area("reviews").summary("Read one version of coaching feedback with its input, output and model")
            .ok::<coaching::FeedbackView>(200),
        route(GET, "/api/video/check", video::check)
            .auth(Auth::member(Perm::FootageRead).in_module(Module::Footage))
            .area("footage").summary("Whether an external video URL is allowed and reachable (url; SSRF rules of the stream proxy)")
            .provider()
            .query_of::<video::CheckQuery>().required_query("url")
            .ok::<shared::video::origin::Reachability>(200),
    ]
}
