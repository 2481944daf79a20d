//! No link the service sends or returns leads to a 404: every mail kind and every API answer
//! that carries a URL is produced, every URL on this service found in them is opened
//! (anonymously and signed in, following one redirect), and none answers 404.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn every_link_in_mail_and_api_answers_opens_without_a_404() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let mut answers: Vec<String> = vec![];

    // Mail: password reset (verification went out with the sign-up).
    let r = app
        .post("/api/auth/password/forgot")
        .json(json!({ "email": "coach@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    // Mail: a member invite; a member's password reset by the owner.
    let r = app
        .post(&format!("/api/orgs/{}/members/invite", coach.org_id))
        .session(&coach)
        .json(json!({ "email": "member@example.com", "role": "coach" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    answers.push(r.body);
    // Mail and answer: athlete invites.
    let r = app
        .post("/api/invite/send")
        .session(&coach)
        .json(json!({ "firstName": "Mia", "lastName": "Wave", "email": "mia@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post("/api/invite")
        .session(&coach)
        .json(json!({ "firstName": "Noa", "lastName": "Reef" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    answers.push(r.body);
    // Mail: a platform signup invite.
    let admin = platform_admin(&app).await;
    let r = app
        .post("/api/admin/invites")
        .session(&admin)
        .json(json!({ "email": "newcoach@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    answers.push(r.body);
    // Mail: a notification with its unsubscribe links (text and List-Unsubscribe).
    let r = send_notification(
        &app,
        json!({ "userIds": [coach.user_id], "kind": "billing.receipt", "title": "Receipt", "body": "Thanks", "channels": ["email"] }),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let receipt = wait_subject(&app, "coach@example.com", "Receipt").await;
    // Answers: TV sign-in, club enrollment, the video-review provider's callback redirect.
    let r = app
        .post("/api/tv/signin/start")
        .json(json!({ "name": "Lobby TV" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    answers.push(r.body);
    let r = app
        .req(axum::http::Method::PUT, "/api/club/enrollment")
        .session(&coach)
        .json(json!({ "enabled": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.json["pageUrl"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/club/{}", coach.org_id))
    );
    answers.push(r.body);
    let r = app
        .get("/api/auth/reviewvideo")
        .session(&coach)
        .send()
        .await;
    let back = app.reviewvideo.approve(&r.location());
    let r = app
        .get(back.strip_prefix(BASE).unwrap())
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    answers.push(r.location());
    worker.shutdown().await;

    let mut links: Vec<String> = vec![];
    for m in app.smtp.messages() {
        links.extend(links_in(&m.text_body()));
        if let Some(h) = m.header("List-Unsubscribe") {
            links.extend(links_in(&h));
        }
    }
    assert!(
        receipt.text_body().contains("/unsubscribe?token="),
        "{}",
        receipt.text_body()
    );
    for a in &answers {
        links.extend(links_in(a));
    }
    links.sort();
    links.dedup();
    // Every kind of link was seen.
    for kind in [
        "/auth/callback?type=verify_email",
        "/auth/callback?type=reset_password",
        "/join/",
        "/invite/",
        "/signup?invite=",
        "/unsubscribe?token=",
        "/api/notifications/unsubscribe?token=",
        "/tv",
        "/tv?code=",
        "/club/",
        "/api/club/enroll",
        "/settings/integrations",
    ] {
        assert!(
            links.iter().any(|l| l.contains(kind)),
            "no {kind} link among {links:?}"
        );
    }
    let mut opened = 0;
    for url in &links {
        let path = url.strip_prefix(BASE).unwrap();
        for signed_in in [false, true] {
            let mut req = app.get(path);
            if signed_in {
                req = req.header("cookie", &cookies_of(&coach));
            }
            let r = req.send().await;
            assert_ne!(r.status, StatusCode::NOT_FOUND, "GET {url}: {}", r.body);
            if r.status.is_redirection() {
                let next = r.location();
                let next = next.strip_prefix(BASE).unwrap_or(&next).to_string();
                if next.starts_with('/') {
                    let mut req = app.get(&next);
                    if signed_in {
                        req = req.header("cookie", &cookies_of(&coach));
                    }
                    let r = req.send().await;
                    assert_ne!(r.status, StatusCode::NOT_FOUND, "GET {next} (from {url})");
                }
            }
            opened += 1;
        }
    }
    assert!(opened >= 24, "opened {opened}");
}
