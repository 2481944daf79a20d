//! The billing area's routes (issue 13, docs/billing.md): platform subscription, marketplace,
//! webhook.

use super::{GET, POST};
use crate::areas::billing;
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/billing", billing::status)
            .auth(Auth::any_member()).mobile()
            .area("billing").summary("The workspace's plan, subscription status and seats (every member; read-only)")
            .ok::<billing::BillingStatus>(200),
        route(POST, "/api/billing/subscribe", billing::subscribe)
            .provider()
            .auth(Auth::member(Perm::BillingManage)).mobile()
            .area("billing").summary("Start (Checkout, mode=subscription) or modify the workspace's platform subscription; monthly prices only (Idempotency-Key)")
            .body::<billing::SubscribeRequest>().ok::<billing::SubscribeAnswer>(200),
        route(POST, "/api/billing/portal", billing::portal)
            .provider()
            .auth(Auth::member(Perm::BillingManage)).mobile()
            .area("billing").summary("Open the provider's customer portal for the workspace's subscription")
            .ok::<billing::PortalLink>(200),
        route(POST, "/api/payments/connect", billing::connect)
            .provider()
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Billing))
            .area("billing").summary("A coach connects (or continues onboarding) their payout account (Connect)")
            .ok::<billing::PayoutAccountView>(200),
        route(POST, "/api/payments/offerings", billing::create_offering)
            .provider()
            .auth(Auth::member(Perm::AthletesUpdate).in_module(Module::Billing))
            .area("billing").summary("A coach offers something for sale: one-off or monthly")
            .body::<billing::CreateOffering>().ok::<billing::OfferingView>(201),
        route(GET, "/api/payments/offerings", billing::offerings)
            .auth(Auth::any_member().in_module(Module::Billing))
            .area("billing").summary("The workspace's offerings (paginated)")
            .paged::<billing::OfferingView>(),
        route(POST, "/api/payments/checkout", billing::checkout)
            .provider()
            .auth(Auth::User)
            .area("billing").summary("A student, or a minor's guardian, pays a coach's offering: Checkout as a destination charge with the platform's fee (Idempotency-Key)")
            .body::<billing::CheckoutRequest>().ok::<billing::CheckoutAnswer>(200),
        route(POST, "/api/payments/portal", billing::payer_portal)
            .provider()
            .auth(Auth::User)
            .area("billing").summary("Open the provider's customer portal for the caller's payments to coaches")
            .ok::<billing::PortalLink>(200),
        route(GET, "/api/payments/access", billing::my_access)
            .auth(Auth::User)
            .area("billing").summary("The offerings the caller paid for, or was paid for as the athlete, with their status")
            .paged::<billing::AccessView>(),
        route(POST, "/api/payments/webhook", billing::webhook)
            .provider()
            .auth(Auth::Webhook("the payment provider's events, verified by Stripe-Signature (HMAC-SHA256 over t.body with any configured secret, 300 s tolerance)"))
            .area("billing").summary("Payment events (platform and marketplace): stored once, acknowledged at once, applied by a job")
            .ok::<billing::WebhookAck>(200),
    ]
}
