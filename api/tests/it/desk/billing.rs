//! The billing and integrations settings tabs (issue 39) over form posts: Checkout opened
//! through the leave page and coming back through `/billing` to the workspace that left, the
//! plan shown once the processor's events are applied (checked through `GET /api/billing`),
//! bad input beside its field with nothing sent, who may open the tab, another workspace's
//! tab, an unconfigured processor; the video-review connection through the fake provider.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;

fn header(r: &Resp, name: &str) -> String {
    r.headers
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// GET `path` as `s` with the return cookie a leave page set.
async fn get_returning(app: &TestApp, s: &Session, path: &str, org: shared::db::Id) -> Resp {
    let cookie = format!("{}; sc_return_ws={org}", cookies_of(s));
    app.get(path).header("cookie", &cookie).send().await
}

#[tokio::test]
async fn subscribe_through_checkout_and_come_back_to_the_plan() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let tab = ws_path(&owner, "/settings/billing");
    let r = get(&app, &owner, &tab).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("1 of 3 seats used"), "{}", r.body);
    assert!(r.body.contains("price_team_monthly"), "{}", r.body);

    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/billing/subscribe"),
        &[("priceId", "price_team_monthly"), ("seats", "6")],
    )
    .await;
    assert_page(&r, StatusCode::OK);
    let url = header(&r, "hx-redirect");
    assert!(url.starts_with("https://checkout.payments.test/"), "{url}");
    assert!(r.body.contains("http-equiv=\"refresh\""), "{}", r.body);
    assert!(
        header(&r, "set-cookie").contains(&format!("sc_return_ws={}", owner.org_id)),
        "the way back is remembered"
    );
    assert_eq!(
        fake.received("/v1/checkout/sessions")[0].get("line_items[0][quantity]"),
        Some("6")
    );
    // Nothing is granted by the redirect: still the free plan.
    assert_eq!(billing_status(&app, &owner).await["plan"], "free");

    let session = url.rsplit('/').next().unwrap().to_string();
    for e in fake.complete_checkout(&session) {
        deliver_applied(&app, &fake, &e).await;
    }
    let r = get_returning(
        &app,
        &owner,
        &format!("/billing?checkout=success&session_id={session}"),
        owner.org_id,
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let back = r.location();
    assert_eq!(back, format!("{tab}?checkout=success&session_id={session}"));
    let r = get(&app, &owner, &back).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("as soon as the payment processor confirms"));
    assert!(r.body.contains("1 of 6 seats used"), "{}", r.body);
    assert!(r.body.contains("Change plan"), "{}", r.body);
    let st = billing_status(&app, &owner).await;
    assert_eq!(st["plan"], "team");
    assert_eq!(st["seats"], 6);

    // A change of the live subscription is made in place, then the portal opens.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/billing/subscribe"),
        &[("priceId", "price_club_monthly"), ("seats", "6")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=bill.updated"));
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/billing/portal"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::OK);
    assert!(header(&r, "hx-redirect").starts_with("https://billing.payments.test/"));
    // The cancel address leads back too.
    let r = get_returning(&app, &owner, "/billing?checkout=cancelled", owner.org_id).await;
    assert_eq!(r.location(), format!("{tab}?checkout=cancelled"));
    let r = get(&app, &owner, &r.location()).await;
    assert!(r.body.contains("Checkout was cancelled"));
    worker.shutdown().await;
}

#[tokio::test]
async fn bad_choices_are_shown_beside_their_fields_and_nothing_is_sent() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let action = ws_path(&owner, "/settings/billing/subscribe");
    let r = post(
        &app,
        &owner,
        &action,
        &[("priceId", "price_gold"), ("seats", "4")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-priceId\""), "{}", r.body);
    let r = post(
        &app,
        &owner,
        &action,
        &[("priceId", "price_team_monthly"), ("seats", "many")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-seats\""), "{}", r.body);
    assert!(r.body.contains("value=\"many\""), "what was typed stays");
    // A yearly price is refused by the processor's answer.
    let r = post(
        &app,
        &owner,
        &action,
        &[("priceId", "price_team_yearly"), ("seats", "4")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(fake.received("/v1/checkout/sessions").is_empty());
    // The portal before any checkout: said on the page, 409.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/billing/portal"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("class=\"notice\""), "{}", r.body);
    // Without the CSRF token: refused before anything.
    let r = app
        .post(&action)
        .header("cookie", &cookies_of(&owner))
        .header("sec-fetch-site", "same-origin")
        .form(&[("priceId", "price_team_monthly"), ("seats", "4")])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(fake.received("/v1/checkout/sessions").is_empty());
}

#[tokio::test]
async fn only_billing_managers_open_the_tab_and_another_workspace_is_not_found() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let admin = add_member(&app, owner.org_id, "admin@example.com", "admin").await;
    let r = get(&app, &admin, &ws_path(&owner, "/settings/billing")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &admin,
        &ws_path(&owner, "/settings/billing/subscribe"),
        &[("priceId", "price_team_monthly"), ("seats", "4")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(fake.received("/v1/checkout/sessions").is_empty());
    // The tab is listed for the owner, not for the admin.
    let r = get(&app, &admin, &ws_path(&owner, "/settings/members")).await;
    assert!(!r.body.contains("/settings/billing"));
    let other = other_workspace(&app).await;
    let r = get(&app, &owner, &ws_path(&other, "/settings/billing")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &owner,
        &ws_path(&other, "/settings/billing/portal"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    // A return cookie naming a workspace the person is not in leads to their own.
    let r = get_returning(&app, &owner, "/billing", other.org_id).await;
    assert_eq!(r.location(), ws_path(&owner, "/settings/billing"));
}

#[tokio::test]
async fn an_unconfigured_processor_says_why_and_never_fails() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let r = get(&app, &owner, &ws_path(&owner, "/settings/billing")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Payments are not set up on this service"),
        "{}",
        r.body
    );
    assert!(r.body.contains("1 of 3 seats used"));
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/billing/subscribe"),
        &[("priceId", "price_team_monthly"), ("seats", "4")],
    )
    .await;
    assert_page(&r, StatusCode::SERVICE_UNAVAILABLE);
    let r = get(&app, &owner, &ws_path(&owner, "/settings/integrations")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body
            .contains("Subscribing, the customer portal and selling lessons are unavailable")
    );
}

#[tokio::test]
async fn connect_the_video_review_provider_from_the_integrations_tab() {
    let app = TestApp::new().await;
    let coach_owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, coach_owner.org_id, "coach@example.com", "coach").await;
    let tab = ws_path(&coach, "/settings/integrations");
    let r = get(&app, &coach, &tab).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Not connected"), "{}", r.body);
    let r = post(
        &app,
        &coach,
        &ws_path(&coach, "/settings/integrations/reviewvideo"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::OK);
    let authorize = header(&r, "hx-redirect");
    assert!(authorize.starts_with(&format!("{}/oauth/authorize?", app.reviewvideo.base_url())));
    let back = app.reviewvideo.approve(&authorize);
    let r = get(&app, &coach, back.strip_prefix("http://app.test").unwrap()).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let landing = r.location();
    let landing = landing.strip_prefix("http://app.test").unwrap();
    let r = get_returning(&app, &coach, landing, coach.org_id).await;
    assert_eq!(r.location(), format!("{tab}?reviewvideo=connected"));
    let r = get(&app, &coach, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body
            .contains("your account at the video-review provider is linked")
    );
    assert!(r.body.contains("Connected"));
    assert!(r.body.contains("public private video_files"), "{}", r.body);
    // Someone else's page shows their own state; another workspace's tab is a 404 page.
    let r = get(&app, &coach_owner, &tab).await;
    assert!(r.body.contains("Not connected"));
    let other = other_workspace(&app).await;
    let r = get(&app, &coach, &ws_path(&other, "/settings/integrations")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &coach,
        &ws_path(&other, "/settings/integrations/reviewvideo"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_coach_offers_a_lesson_and_connects_payouts() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let page = ws_path(&coach, "/lessons");
    let r = get(&app, &coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Nothing is offered yet."), "{}", r.body);
    assert!(r.body.contains("No payout account"));

    // Bad input beside its fields, nothing written.
    let action = ws_path(&coach, "/lessons/offerings");
    let r = post(
        &app,
        &coach,
        &action,
        &[
            ("name", "Lesson"),
            ("amount", "5"),
            ("currency", "euro"),
            ("interval", "one_off"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-amount\""), "{}", r.body);
    assert!(r.body.contains("id=\"e-currency\""), "{}", r.body);
    assert!(r.body.contains("value=\"Lesson\""), "what was typed stays");
    let list = app
        .get("/api/payments/offerings")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        list.json["items"].as_array().map_or(0, Vec::len),
        0,
        "{}",
        list.body
    );

    let r = post(
        &app,
        &coach,
        &action,
        &[
            ("name", "Monthly coaching"),
            ("amount", "4900"),
            ("currency", "EUR"),
            ("interval", "monthly"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=les.created"));
    let r = get(&app, &coach, &r.location()).await;
    assert!(r.body.contains("49.00 EUR"), "{}", r.body);
    let list = app
        .get("/api/payments/offerings")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        list.json["items"][0]["name"], "Monthly coaching",
        "{}",
        list.body
    );
    assert_eq!(list.json["items"][0]["amount"], 4900);
    assert_eq!(list.json["items"][0]["interval"], "monthly");

    // Payouts: the processor's onboarding, then back to this page.
    let r = post(&app, &coach, &ws_path(&coach, "/lessons/connect"), &[]).await;
    assert_page(&r, StatusCode::OK);
    assert!(header(&r, "hx-redirect").starts_with("https://connect.payments.test/setup/"));
    assert_eq!(fake.received("/v1/accounts").len(), 1);
    let r = get_returning(&app, &coach, "/payments/connect?done=1", coach.org_id).await;
    assert_eq!(r.location(), format!("{page}?onboarding=done"));
    let r = get(&app, &coach, &r.location()).await;
    assert!(r.body.contains("Back from onboarding"), "{}", r.body);
    assert!(r.body.contains("Cannot take payments yet"), "{}", r.body);
    assert!(r.body.contains("Continue onboarding"));
}

#[tokio::test]
async fn lessons_need_the_coach_permission_and_the_module() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = get(&app, &viewer, &ws_path(&owner, "/lessons")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(&app, &viewer, &ws_path(&owner, "/lessons/connect"), &[]).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(fake.received("/v1/accounts").is_empty());
    let other = other_workspace(&app).await;
    let r = get(&app, &owner, &ws_path(&other, "/lessons")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &owner,
        &ws_path(&other, "/lessons/offerings"),
        &[
            ("name", "X"),
            ("amount", "1000"),
            ("currency", "eur"),
            ("interval", "one_off"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    disable_module(&app, owner.org_id, "billing").await;
    let r = get(&app, &owner, &ws_path(&owner, "/lessons")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &owner, &ws_path(&owner, "/")).await;
    assert!(
        !r.body.contains("/lessons\""),
        "the section leaves the navigation"
    );
}

/// A student pays a coach from their own payments page: the coach's offering is listed for the
/// athlete they are, Pay leaves for Checkout (one session at the fake processor, as the JSON
/// route makes it), the return address brings them back with what happened; someone who
/// neither is nor guards the athlete is refused with nothing sent; an unconfigured processor
/// is said, not failed.
#[tokio::test]
async fn a_student_pays_a_coach_from_their_payments_page() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post("/api/payments/connect")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let acct = r.json["accountId"].as_str().unwrap().to_string();
    deliver_applied(&app, &fake, &fake.enable_account(&acct)).await;
    let r = app
        .post("/api/payments/offerings")
        .session(&ca.coach)
        .json(serde_json::json!({ "name": "Video review plan", "amount": 5000, "currency": "eur", "interval": "monthly" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let offering = r.json["id"].as_str().unwrap().to_string();

    let r = get(&app, &ca.athlete, "/me/payments").await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Video review plan"), "{}", r.body);
    assert!(r.body.contains("50.00 EUR"), "{}", r.body);
    assert!(r.body.contains("Nothing yet."), "{}", r.body);

    // Someone who neither is nor guards the athlete: refused, nothing sent to the processor.
    let stranger = app.signup("stranger@example.com").await;
    let pay = [
        ("offering", offering.as_str()),
        ("athlete", ca.athlete_id.as_str()),
        ("client", "form-1"),
    ];
    let r = post(&app, &stranger, "/me/payments/checkout", &pay).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert!(fake.received("/v1/checkout/sessions").is_empty());

    let r = post(&app, &ca.athlete, "/me/payments/checkout", &pay).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(header(&r, "hx-redirect").starts_with("https://checkout.payments.test/"));
    let sent = fake.received("/v1/checkout/sessions");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].get("mode"), Some("subscription"));
    assert_eq!(
        sent[0].get("client_reference_id"),
        Some(ca.athlete_id.as_str())
    );
    // The same form sent again (a double click): the same Checkout, not a second one.
    let again = post(&app, &ca.athlete, "/me/payments/checkout", &pay).await;
    assert_eq!(header(&again, "hx-redirect"), header(&r, "hx-redirect"));

    let r = get(
        &app,
        &ca.athlete,
        "/payments?checkout=success&session_id=cs_1",
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/me/payments?checkout=success");
    let r = get(&app, &ca.athlete, "/me/payments?checkout=success").await;
    assert!(
        r.body.contains("Payment received by the processor"),
        "{}",
        r.body
    );
    // The portal before any payment went through: said on the page.
    let r = post(&app, &stranger, "/me/payments/portal", &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(
        r.body.contains("You have not paid a coach yet."),
        "{}",
        r.body
    );
    worker.shutdown().await;

    // Without a processor: the page says so and offers no button.
    let plain = TestApp::new().await;
    let ca = coach_and_athlete(&plain).await;
    let r = get(&plain, &ca.athlete, "/me/payments").await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Payments are not set up on this server"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("/me/payments/checkout"));
}
