//! The web application's billing and integrations pages (issue 39, `docs/web.md`): the
//! workspace's billing and integrations settings tabs, and the addresses the payment
//! processor returns the browser to. The permissions are the JSON routes' (`routes/billing.rs`,
//! `GET /api/auth/reviewvideo`).

use super::{GET, POST};
use crate::areas::desk::settings::{billing, integrations};
use crate::areas::desk::{lessons, payments};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    const RETURN: &str = "where the payment processor sends the browser back (Checkout's success and cancel URLs, the portal's return URL): a redirect to the session user's workspace page, which checks the membership; without a session the browser signs in first";
    const CONNECT_RETURN: &str = "where the payment processor's payout onboarding sends the coach back (done=1, or refresh=1 when its link expired): a redirect to the session user's workspace lessons page, which checks the membership; without a session the browser signs in first";
    const PAYER: &str = "a person's own payments to coaches (an adult athlete for themselves, a guardian for the athletes they look after; members alike): without a session the browser signs in first; the checkout and portal posts carry the CSRF token and act only as the session's user, as /api/payments/checkout and /api/payments/portal (an athlete the user neither is nor guards: 404)";
    const PAYER_RETURN: &str = "where the payment processor sends a payer back (a marketplace Checkout's success and cancel URLs, the payer portal's return URL): a redirect to the session user's own payments page; without a session the browser signs in first";
    let manage = Auth::desk(Perm::BillingManage);
    let coach = Auth::desk(Perm::AthletesUpdate).in_module(Module::Billing);
    vec![
        route(GET, "/w/{ws}/settings/billing", billing::show)
            .auth(manage).area("web").summary("Billing: the plan, seats used of the cap, subscribe or change plan, the customer portal; the state after Checkout (checkout=success|cancelled)"),
        route(POST, "/w/{ws}/settings/billing/subscribe", billing::subscribe)
            .auth(manage).area("web").summary("Subscribe (Checkout at the processor) or change the live subscription (as POST /api/billing/subscribe)"),
        route(POST, "/w/{ws}/settings/billing/portal", billing::portal)
            .auth(manage).area("web").summary("Open the processor's customer portal (as POST /api/billing/portal)"),
        route(GET, "/billing", billing::returned)
            .auth(Auth::Page(RETURN)).area("web").summary("Back from Checkout or the portal: on to the workspace's billing tab"),
        route(GET, "/w/{ws}/settings/integrations", integrations::show)
            .auth(Auth::desk(Perm::ReviewsRead)).area("web").summary("Integrations: one's video-review connection, and what each configured provider enables or why it is unavailable"),
        route(POST, "/w/{ws}/settings/integrations/reviewvideo", integrations::connect)
            .auth(Auth::desk(Perm::ReviewsRead)).area("web").summary("Start connecting the video-review provider (as GET /api/auth/reviewvideo): its authorization page"),
        route(GET, "/w/{ws}/lessons", lessons::show)
            .auth(coach).area("web").summary("Lessons for sale: the coach's payout account, the workspace's offerings (25 a page, offset), the form to offer one"),
        route(POST, "/w/{ws}/lessons/offerings", lessons::create)
            .auth(coach).area("web").summary("Offer a lesson: name, price in minor units, currency, once or monthly (as POST /api/payments/offerings)"),
        route(POST, "/w/{ws}/lessons/connect", lessons::connect)
            .auth(coach).area("web").summary("Connect or continue onboarding the coach's payout account (as POST /api/payments/connect): the processor's page"),
        route(GET, "/me/payments", payments::show)
            .auth(Auth::Page(PAYER)).area("web").summary("My payments to coaches: the offerings of the athletes I pay for, what I paid for (25 a page, offset), the state after Checkout (checkout=success|cancelled)"),
        route(POST, "/me/payments/checkout", payments::pay)
            .auth(Auth::Page(PAYER)).area("web").summary("Pay an offering for an athlete (as POST /api/payments/checkout): the processor's Checkout"),
        route(POST, "/me/payments/portal", payments::portal)
            .auth(Auth::Page(PAYER)).area("web").summary("Manage my payments at the processor's customer portal (as POST /api/payments/portal)"),
        route(GET, "/payments", payments::returned)
            .auth(Auth::Page(PAYER_RETURN)).area("web").summary("Back from a marketplace Checkout or the payer portal: on to my payments page"),
        route(GET, "/payments/connect", lessons::connect_returned)
            .auth(Auth::Page(CONNECT_RETURN)).area("web").summary("Back from payout onboarding: on to the workspace's lessons page"),
    ]
}
