//! The flows behind the links, over HTTP form posts: each page does what the JSON route of the
//! same flow does (the same domain operation), and shows refusals in the page.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

fn path(url: &str) -> &str {
    url.strip_prefix(BASE).unwrap_or(url)
}

#[tokio::test]
async fn member_invite_page_accepts_for_the_invited_address_only() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let r = app
        .post(&format!("/api/orgs/{}/members/invite", owner.org_id))
        .session(&owner)
        .json(json!({ "email": "member@example.com", "role": "coach" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let mail = app.wait_mail("member@example.com").await;
    let link = links_in(&mail.text_body())
        .into_iter()
        .find(|l| l.contains("/join/"))
        .unwrap();
    // Anonymous: asked to sign in or up, coming back here.
    let r = app.get(path(&link)).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("/signin?next=/join/"), "{}", r.body);
    // The owner (another address) sees the mismatch and cannot accept.
    let r = app
        .get(path(&link))
        .header("cookie", &cookies_of(&owner))
        .send()
        .await;
    assert!(r.body.contains("another email address"), "{}", r.body);
    let r = app
        .post(path(&link))
        .header("cookie", &cookies_of(&owner))
        .form(&[("csrf", &owner.csrf)])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // The invited address signs up through the page and accepts.
    let r = app
        .post("/signup")
        .form(&[
            ("name", "Mo"),
            ("email", "member@example.com"),
            ("password", PASSWORD),
            ("next", path(&link)),
        ])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), path(&link));
    let cookie = format!(
        "sc_session={}",
        r.cookie("sc_session").expect("signed in by the sign-up")
    );
    let csrf = r.cookie("sc_csrf").unwrap();
    let page = app.get(path(&link)).header("cookie", &cookie).send().await;
    assert!(
        page.body.contains("as <strong>coach</strong>"),
        "{}",
        page.body
    );
    let r = app
        .post(path(&link))
        .header("cookie", &cookie)
        .form(&[("csrf", "forged")])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = app
        .post(path(&link))
        .header("cookie", &cookie)
        .form(&[("csrf", &csrf)])
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("You are now a member"), "{}", r.body);
    assert_eq!(audit_count(&app, "invite.accepted").await, 1);
}

#[tokio::test]
async fn athlete_invite_page_gates_age_and_lets_a_guardian_consent() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Lani", "lastName": "Kai" }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;
    let here = format!("/invite/{token}");
    let r = app.get(&here).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Hello Lani"), "{}", r.body);
    // A 12-year-old cannot claim alone: refused in the page, the login not made.
    let users_before = app.count("users").await;
    let r = app
        .post(&format!("{here}/claim"))
        .form(&[
            ("email", "lani@example.com"),
            ("password", PASSWORD),
            ("birthDate", &born(12, 0)),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(r.body.contains("need a parent or guardian"), "{}", r.body);
    assert_eq!(app.count("users").await, users_before);
    // Without the consent box: a field error.
    let mut fields = vec![
        ("guardian.name", "Pua Kai".to_string()),
        ("guardian.email", "pua@example.com".into()),
        ("guardian.password", PASSWORD.into()),
        ("guardian.relationship", "parent".into()),
        ("athleteBirthDate", born(12, 0)),
    ];
    let form: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = app
        .post(&format!("{here}/guardian"))
        .form(&form)
        .send()
        .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-consent\""), "{}", r.body);
    fields.push(("consent", "yes".into()));
    let form: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = app
        .post(&format!("{here}/guardian"))
        .form(&form)
        .send()
        .await;
    assert_page(&r, StatusCode::CREATED);
    assert!(
        r.cookie("sc_session").is_some(),
        "the guardian is signed in"
    );
    assert_eq!(audit_count(&app, "athlete.guardian_claimed").await, 1);
    // The link is spent.
    assert_page(&app.get(&here).send().await, StatusCode::GONE);
}

#[tokio::test]
async fn athlete_claims_through_the_page_and_gets_the_verification_mail() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Moana", "lastName": "Lee" }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;
    let r = app
        .post(&format!("/invite/{token}/claim"))
        .form(&[
            ("email", "moana@example.com"),
            ("password", PASSWORD),
            ("birthDate", &born(20, 0)),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::CREATED);
    let cookie = r.cookie("sc_session").unwrap();
    let me = app
        .get("/api/auth/me")
        .header("cookie", &format!("sc_session={cookie}"))
        .send()
        .await;
    assert_eq!(me.json["user"]["email"], "moana@example.com");
    wait_subject(&app, "moana@example.com", "Confirm your email address").await;
}

#[tokio::test]
async fn tv_page_claims_a_code_in_the_chosen_workspace_and_limits_wrong_codes() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    enable_tv(&app, &coach).await;
    let r = app
        .post("/api/tv/signin/start")
        .json(json!({ "name": "Lobby" }))
        .send()
        .await;
    let complete = r.json["verificationUriComplete"]
        .as_str()
        .unwrap()
        .to_string();
    let code = r.json["userCode"].as_str().unwrap().to_string();
    let page = app
        .get(path(&complete))
        .header("cookie", &cookies_of(&coach))
        .send()
        .await;
    assert_page(&page, StatusCode::OK);
    assert!(
        page.body.contains(&format!("value=\"{code}\"")),
        "the code is filled in"
    );
    let org = coach.org_id.to_string();
    // Wrong codes: shown in the page, then limited like the API (10 per 15 minutes).
    for _ in 0..10 {
        let r = app
            .post("/tv")
            .header("cookie", &cookies_of(&coach))
            .form(&[
                ("csrf", &coach.csrf),
                ("userCode", "ZZZZ-ZZZZ"),
                ("workspace", &org),
            ])
            .send()
            .await;
        assert_page(&r, StatusCode::NOT_FOUND);
        assert!(r.body.contains("No TV is waiting"), "{}", r.body);
    }
    let r = app
        .post("/tv")
        .header("cookie", &cookies_of(&coach))
        .form(&[
            ("csrf", &coach.csrf),
            ("userCode", &code),
            ("workspace", &org),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.headers.contains_key("retry-after"));

    let other = app.signup("other@example.com").await;
    enable_tv(&app, &other).await;
    let page = app
        .get(path(&complete))
        .header("cookie", &cookies_of(&other))
        .send()
        .await;
    let csrf = hidden(&page.body, "csrf");
    let r = app
        .post("/tv")
        .header("cookie", &cookies_of(&other))
        .form(&[
            ("csrf", &csrf),
            ("userCode", &code.to_lowercase()),
            ("workspace", &other.org_id.to_string()),
            ("name", "Clubhouse TV"),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Clubhouse TV is now signed in"),
        "{}",
        r.body
    );
    let list = app.get("/api/tv/devices").session(&other).send().await;
    assert_eq!(list.json[0]["name"], "Clubhouse TV");
}

#[tokio::test]
async fn unsubscribe_page_describes_on_get_and_unsubscribes_on_post() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    send_notification(
        &app,
        json!({ "userIds": [kai.user_id], "kind": "billing.receipt", "title": "Receipt", "body": "b", "channels": ["email"] }),
    )
    .await;
    let mail = wait_subject(&app, "kai@example.com", "Receipt").await;
    worker.shutdown().await;
    let link = links_in(&mail.text_body())
        .into_iter()
        .find(|l| l.contains("/unsubscribe?"))
        .unwrap();
    let r = app.get(path(&link)).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Unsubscribe from billing emails"),
        "{}",
        r.body
    );
    let api_state = app
        .get(&path(&link).replace("/unsubscribe", "/api/notifications/unsubscribe"))
        .send()
        .await;
    assert_eq!(api_state.json["unsubscribed"], false, "GET changed nothing");
    let r = app.post(path(&link)).form(&[]).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("no longer get"), "{}", r.body);
    let api_state = app
        .get(&path(&link).replace("/unsubscribe", "/api/notifications/unsubscribe"))
        .send()
        .await;
    assert_eq!(api_state.json["unsubscribed"], true);
}

#[tokio::test]
async fn club_page_enrolls_behind_the_age_gate_and_hides_closed_clubs() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let here = format!("/club/{}", coach.org_id);
    assert_page(&app.get(&here).send().await, StatusCode::NOT_FOUND);
    app.req(axum::http::Method::PUT, "/api/club/enrollment")
        .session(&coach)
        .json(json!({ "enabled": true }))
        .send()
        .await;
    assert_page(&app.get(&here).send().await, StatusCode::OK);
    let minor = born(10, 0);
    let base = [
        ("firstName", "Keala"),
        ("lastName", "Ono"),
        ("email", "keala@example.com"),
        ("birthDate", minor.as_str()),
    ];
    let r = app.post(&here).form(&base).send().await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(app.count("athletes").await, 0);
    let mut with_guardian = base.to_vec();
    with_guardian.extend([
        ("guardian.name", "Leilani Ono"),
        ("guardian.email", "leilani@example.com"),
        ("guardian.relationship", "parent"),
        ("guardian.consent", "yes"),
    ]);
    let r = app.post(&here).form(&with_guardian).send().await;
    assert_page(&r, StatusCode::ACCEPTED);
    let list = app
        .get("/api/athletes?status=pending")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&list).len(), 1, "{}", list.body);
}

#[tokio::test]
async fn profile_page_shows_the_published_allow_list() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kelia", "lastName": "Moniz", "birthDate": born(25, 0), "notes": "private note" }),
    )
    .await;
    let r = app
        .post(&format!("/api/athletes/{}/publish", id(&a)))
        .session(&coach)
        .json(json!({ "published": true, "bio": "Longboarder <b>from</b> Waikiki" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let slug = r.json["publicSlug"].as_str().unwrap();
    let r = app.get(&format!("/profile/{slug}")).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Kelia Moniz"));
    assert!(
        r.body
            .contains("Longboarder &#60;b&#62;from&#60;/b&#62; Waikiki")
            || r.body
                .contains("Longboarder &lt;b&gt;from&lt;/b&gt; Waikiki"),
        "escaped: {}",
        r.body
    );
    assert!(!r.body.contains("private note"));
}
