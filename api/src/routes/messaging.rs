//! The messaging area's routes: coach–athlete conversations, notifications and push.

use super::{DELETE, GET, POST, PUT};
use crate::areas::{jobs, messaging, notifications};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ---- messaging: coach–athlete conversations (athletes are not members: access is
        // checked per conversation, see areas/messaging) ----
        route(GET, "/api/conversations", messaging::conversations::list)
            .auth(Auth::User)
            .area("messaging").summary("My conversations, most recent first (kind: coach_athlete only, else 400; orgId)")
            .query_of::<messaging::conversations::ListQuery>()
            .paged::<messaging::conversations::ConversationView>(),
        route(POST, "/api/conversations", messaging::conversations::create)
            .auth(Auth::User)
            .area("messaging").summary("Open the coach–athlete conversation or return the existing one (other kinds: 400)")
            .body::<messaging::conversations::CreateConversation>()
            .ok::<messaging::conversations::ConversationView>(201)
            .ok::<messaging::conversations::ConversationView>(200),
        route(GET, "/api/conversations/recipients", messaging::conversations::recipients)
            .auth(Auth::User)
            .area("messaging").summary("Who I may write to: my workspaces' athletes (coach) or my coaches (athlete); q, orgId")
            .query_of::<messaging::conversations::RecipientQuery>()
            .paged::<messaging::conversations::RecipientView>(),
        route(GET, "/api/conversations/{id}/messages", messaging::messages::list)
            .auth(Auth::User)
            .area("messaging").summary("A conversation's messages, newest first (participants only; marks it read)")
            .paged::<messaging::messages::MessageView>(),
        route(POST, "/api/conversations/{id}/messages", messaging::messages::post)
            .auth(Auth::User)
            .area("messaging").summary("Post a message (text and/or an uploaded photo); notifies the other participant")
            .body::<messaging::messages::PostMessage>().ok::<messaging::messages::MessageView>(201),
        route(POST, "/api/conversations/{id}/attachments", messaging::messages::upload_url)
            .auth(Auth::User)
            .area("messaging").summary("A signed URL to upload a private photo for this conversation (10 minutes)")
            .body::<messaging::messages::AttachmentRequest>().ok::<messaging::messages::AttachmentUpload>(201),
        route(GET, "/api/messages/attachment", messaging::messages::attachment)
            .auth(Auth::User)
            .area("messaging").summary("Resolve a message's private photo to a signed URL (5 minutes; participants only; messageId)")
            .query_of::<messaging::messages::AttachmentQuery>()
            .ok::<messaging::messages::AttachmentLink>(200),
        route(DELETE, "/api/messages/{id}", messaging::messages::delete)
            .auth(Auth::User)
            .area("messaging").summary("Delete my own message (kept as a tombstone)")
            .empty(204, "deleted"),
        route(POST, "/api/messages/{id}/report", messaging::messages::report)
            .auth(Auth::User)
            .area("messaging").summary("Report a message of the other participant to the moderators")
            .body::<messaging::messages::ReportRequest>().ok::<messaging::messages::ReportReceipt>(201),
        // ---- notifications and push ----
        route(POST, "/api/notifications/send", notifications::send::send)
            .auth(Auth::Service)
            .area("messaging").summary("Internal: create notifications for users and enqueue their delivery (push, email, SMS; each person's preferences decide)")
            .body::<notifications::send::SendRequest>().ok::<notifications::send::SendAccepted>(202),
        route(GET, "/api/notifications/sent", notifications::sent::list)
            .auth(Auth::any_member())
            .area("messaging").summary("My sends in this workspace (messages' notifications, sends on my behalf), newest first, with counts per channel")
            .paged::<notifications::sent::SentView>(),
        route(GET, "/api/notifications/sent/{id}/deliveries", notifications::sent::deliveries)
            .auth(Auth::any_member())
            .area("messaging").summary("One of my sends: each recipient's delivery per channel and device (masked); another's or another workspace's: 404")
            .paged::<notifications::sent::RecipientDeliveryView>(),
        route(POST, "/api/notifications/deliver", notifications::send::deliver)
            .auth(Auth::Service)
            .area("messaging").summary("Internal: enqueue a drain of every due notification delivery")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/notifications/unsubscribe", notifications::unsubscribe::show)
            .auth(Auth::Token("the signed unsubscribe token in the query, from a notification mail's List-Unsubscribe link"))
            .area("messaging").summary("What an unsubscribe link would do (changes nothing: link scanners GET)")
            .query_of::<notifications::unsubscribe::TokenQuery>().required_query("token")
            .ok::<notifications::unsubscribe::UnsubscribeState>(200),
        route(POST, "/api/notifications/unsubscribe", notifications::unsubscribe::unsubscribe)
            .auth(Auth::Token("the signed unsubscribe token in the query; RFC 8058 one-click POST from the mail client"))
            .area("messaging").summary("One-click unsubscribe from a category of notification email (RFC 8058)")
            .query_of::<notifications::unsubscribe::TokenQuery>().required_query("token")
            .ok::<notifications::unsubscribe::UnsubscribeState>(200),
        route(POST, "/api/push/register", notifications::push::register)
            .auth(Auth::User)
            .area("messaging").summary("Register this phone's push token (taken from any other account)")
            .body::<notifications::push::RegisterPush>().ok::<notifications::push::PushRegistration>(201)
            .ok::<notifications::push::PushRegistration>(200),
        route(DELETE, "/api/push/register", notifications::push::unregister)
            .auth(Auth::User)
            .area("messaging").summary("Remove this phone's push token")
            .body::<notifications::push::UnregisterPush>().empty(204, "removed"),
        route(POST, "/api/push/web-subscriptions", notifications::push::subscribe_web)
            .auth(Auth::User)
            .area("messaging").summary("Save this browser's Web Push subscription (endpoint and keys; taken from any other account)")
            .body::<notifications::push::WebSubscriptionRequest>().ok::<notifications::push::WebSubscriptionView>(201)
            .ok::<notifications::push::WebSubscriptionView>(200),
        route(DELETE, "/api/push/web-subscriptions", notifications::push::unsubscribe_web)
            .auth(Auth::User)
            .area("messaging").summary("Remove this browser's Web Push subscription")
            .body::<notifications::push::WebUnsubscribeRequest>().empty(204, "removed"),
        route(GET, "/api/push/vapid-public-key", notifications::push::vapid_key)
            .auth(Auth::Public("the VAPID application server key is public by design (RFC 8292); a page needs it to subscribe"))
            .area("messaging").summary("The VAPID public key browsers subscribe with")
            .ok::<notifications::push::VapidKey>(200),
        route(GET, "/api/notifications/preferences", notifications::preferences::get)
            .auth(Auth::User)
            .area("messaging").summary("My notification channels per category, time zone and quiet hours")
            .ok::<notifications::preferences::PreferencesView>(200),
        route(PUT, "/api/notifications/preferences", notifications::preferences::set)
            .auth(Auth::User)
            .area("messaging").summary("Set my notification channels per category (email, push, SMS), time zone and quiet hours")
            .body::<notifications::preferences::PreferencesUpdate>().ok::<notifications::preferences::PreferencesView>(200),
        route(POST, "/api/notifications/sms/start", notifications::sms::start)
            .error(429, "too many codes asked for (rate_limited, Retry-After)").provider()
            .auth(Auth::User)
            .area("messaging").summary("Send a verification code by SMS to an E.164 number (Twilio Verify; rate-limited; refused after STOP)")
            .body::<notifications::sms::StartSms>().ok::<notifications::sms::SmsStarted>(201),
        route(POST, "/api/notifications/sms/verify", notifications::sms::verify)
            .error(410, "the code expired or was tried too often (sms_code_expired, sms_max_attempts)").error(429, "too many attempts (rate_limited, Retry-After)").provider()
            .auth(Auth::User)
            .area("messaging").summary("Check the SMS code; approved stores the number as my verified phone")
            .body::<notifications::sms::VerifySms>().ok::<notifications::sms::VerifiedPhone>(200),
        route(POST, "/api/notifications/inbound", notifications::sms::inbound)
            .auth(Auth::Webhook("Twilio's inbound SMS webhook, verified by its X-Twilio-Signature (HMAC-SHA1 with the auth token)"))
            .area("messaging").summary("Inbound SMS: STOP/START/HELP keywords (TwiML answer)")
            .raw_body(&["application/x-www-form-urlencoded"])
            .empty(200, "TwiML"),
    ]
}
