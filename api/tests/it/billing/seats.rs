//! The seat cap follows the paid subscription: a downgrade below the members in place removes
//! nobody and refuses new invites until the workspace is under the cap again.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

async fn invite(app: &TestApp, owner: &Session, email: &str) -> Resp {
    app.post(&format!("/api/orgs/{}/members/invite", owner.org_id))
        .session(owner)
        .json(json!({ "email": email, "role": "coach" }))
        .send()
        .await
}

#[tokio::test]
async fn a_downgrade_keeps_every_member_and_refuses_invites_until_under_the_cap() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let sub = paid_subscription(&app, &fake, &owner, 6).await;
    let mut members = vec![];
    for i in 0..5 {
        members.push(add_member(&app, owner.org_id, &format!("m{i}@example.com"), "coach").await);
    }
    let b = billing_status(&app, &owner).await;
    assert_eq!(
        (b["seats"].as_i64(), b["used"].as_i64()),
        (Some(6), Some(6))
    );

    // Downgrade to 3 seats at the processor (the portal, say), then its event.
    let r = subscribe(&app, &owner, "price_team_monthly", 3).await;
    assert_eq!(r.json["action"], "updated", "{}", r.body);
    let ev = fake.event(
        "customer.subscription.updated",
        &fake.subscription(&sub).unwrap(),
    );
    deliver_applied(&app, &fake, &ev).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(
        (b["seats"].as_i64(), b["used"].as_i64()),
        (Some(3), Some(6))
    );
    assert_eq!(app.count("members").await, 6, "no one is removed");
    let before = app.count("member_invites").await;
    invite(&app, &owner, "new@example.com")
        .await
        .assert_error(StatusCode::CONFLICT, "seat_cap_exceeded");
    assert_eq!(app.count("member_invites").await, before, "nothing written");

    // Members leave until the workspace is under its cap: invites work again.
    for m in members.iter().take(4) {
        let id = member_id(&app, m, &owner).await;
        let r = app
            .req(
                axum::http::Method::DELETE,
                &format!("/api/orgs/{}/members/{id}", owner.org_id),
            )
            .session(&owner)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    }
    let r = invite(&app, &owner, "new@example.com").await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    worker.shutdown().await;
}
