//! SMS: phone verification through (fake) Twilio Verify and the inbound webhook with its
//! signature and the STOP/START/HELP keywords.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use testkit::twilio::webhook_signature;

const PHONE: &str = "+351912345678";
const INBOUND: &str = "/api/notifications/inbound";
const INBOUND_URL: &str = "http://app.test/api/notifications/inbound";

async fn start(app: &TestApp, s: &Session, phone: &str) -> Resp {
    app.post("/api/notifications/sms/start")
        .session(s)
        .json(json!({ "phone": phone }))
        .send()
        .await
}

async fn verify(app: &TestApp, s: &Session, phone: &str, code: &str) -> Resp {
    app.post("/api/notifications/sms/verify")
        .session(s)
        .json(json!({ "phone": phone, "code": code }))
        .send()
        .await
}

async fn verified_phone(app: &TestApp, s: &Session) -> Option<String> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::repo::sms::verified_phone(&mut c, s.user_id)
        .await
        .unwrap()
        .map(|(p, _)| p)
}

fn form(params: &[(&str, &str)]) -> Vec<u8> {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish()
        .into_bytes()
}

/// An inbound SMS from `from`, signed over `url` with `token`.
async fn inbound(app: &TestApp, from: &str, text: &str, url: &str, token: &str) -> Resp {
    let params = [
        ("MessageSid", "SM0001"),
        ("AccountSid", TWILIO_SID),
        ("From", from),
        ("To", "+15005550006"),
        ("Body", text),
    ];
    let sig = webhook_signature(token, url, &params);
    app.post(INBOUND)
        .header("x-twilio-signature", &sig)
        .raw("application/x-www-form-urlencoded", &form(&params))
        .send()
        .await
}

#[tokio::test]
async fn sms_verification_sends_a_code_and_stores_the_verified_phone() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;

    for bad in [
        "",
        "912345678",
        "+0123456789",
        "+35191234567890123",
        "+35191x345678",
    ] {
        let r = start(&app, &kai, bad).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), ["phone"], "{bad}");
    }
    assert_eq!(app.count("sms_verifications").await, 0);
    assert_eq!(app.twilio.sends_to("912345678"), 0);

    let r = start(&app, &kai, PHONE).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["status"], "pending");
    assert_eq!(r.json["phone"], PHONE);
    assert_eq!(app.twilio.sends_to(PHONE), 1);
    let code = app.twilio.code_for(PHONE).expect("a code was sent");

    // A malformed code is refused before Twilio is asked.
    let r = verify(&app, &kai, PHONE, "12ab").await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["code"]);

    let r = verify(&app, &kai, PHONE, &code).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["phone"], PHONE);
    assert!(r.json["verifiedAt"].is_string());
    assert_eq!(verified_phone(&app, &kai).await.as_deref(), Some(PHONE));
    // The verification is used up: the same code again is expired.
    verify(&app, &kai, PHONE, &code)
        .await
        .assert_error(StatusCode::GONE, "sms_code_expired");
}

#[tokio::test]
async fn sms_wrong_codes_max_attempts_and_expiry_have_stable_codes() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;
    let ana = app.signup("ana@example.com").await;

    // Never started (by this user) for this number: expired, Twilio is not asked.
    verify(&app, &kai, PHONE, "123456")
        .await
        .assert_error(StatusCode::GONE, "sms_code_expired");

    assert_eq!(start(&app, &kai, PHONE).await.status, StatusCode::CREATED);
    let code = app.twilio.code_for(PHONE).unwrap();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    // Ana did not start it: her check of Kai's number is refused the same way.
    verify(&app, &ana, PHONE, &code)
        .await
        .assert_error(StatusCode::GONE, "sms_code_expired");
    for _ in 0..testkit::twilio::MAX_CHECKS {
        verify(&app, &kai, PHONE, wrong)
            .await
            .assert_error(StatusCode::BAD_REQUEST, "sms_code_invalid");
    }
    // Twilio refuses further checks (60202), even with the right code.
    verify(&app, &kai, PHONE, &code)
        .await
        .assert_error(StatusCode::GONE, "sms_max_attempts");
    assert_eq!(verified_phone(&app, &kai).await, None);

    // Start again: a new code; it expires before use.
    assert_eq!(start(&app, &kai, PHONE).await.status, StatusCode::CREATED);
    let code = app.twilio.code_for(PHONE).unwrap();
    app.twilio.expire(PHONE);
    verify(&app, &kai, PHONE, &code)
        .await
        .assert_error(StatusCode::GONE, "sms_code_expired");
    assert_eq!(verified_phone(&app, &kai).await, None);
}

#[tokio::test]
async fn sms_starts_are_rate_limited_per_number() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;
    for _ in 0..5 {
        let r = start(&app, &kai, PHONE).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = start(&app, &kai, PHONE).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert!(r.headers.get("retry-after").is_some());
    assert_eq!(
        app.twilio.sends_to(PHONE),
        5,
        "the sixth never reached Twilio"
    );
}

#[tokio::test]
async fn inbound_sms_with_a_missing_or_forged_signature_is_401() {
    let app = TestApp::new().await;
    let params = [("From", PHONE), ("Body", "STOP")];
    let r = app
        .post(INBOUND)
        .raw("application/x-www-form-urlencoded", &form(&params))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    // Signed with another token.
    inbound(&app, PHONE, "STOP", INBOUND_URL, "not-the-auth-token")
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_signature");
    // Signed over another URL.
    inbound(
        &app,
        PHONE,
        "STOP",
        "http://evil.test/api/notifications/inbound",
        TWILIO_TOKEN,
    )
    .await
    .assert_error(StatusCode::UNAUTHORIZED, "invalid_signature");
    // A valid signature over a different body.
    let sig = webhook_signature(
        TWILIO_TOKEN,
        INBOUND_URL,
        &[("From", PHONE), ("Body", "HELP")],
    );
    app.post(INBOUND)
        .header("x-twilio-signature", &sig)
        .raw("application/x-www-form-urlencoded", &form(&params))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_signature");
    assert_eq!(app.count("sms_opt_outs").await, 0, "nothing written");
}

#[tokio::test]
async fn inbound_stop_opts_out_and_start_opts_back_in() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;

    // Not exactly a keyword: nothing happens.
    let r = inbound(&app, PHONE, "stop please", INBOUND_URL, TWILIO_TOKEN).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(app.count("sms_opt_outs").await, 0);

    // " stop " (any case, trimmed), signed over the URL with its default port written out.
    let r = inbound(
        &app,
        PHONE,
        " stop ",
        "http://app.test:80/api/notifications/inbound",
        TWILIO_TOKEN,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/xml")
    );
    assert!(r.body.contains("<Response/>"), "{}", r.body);
    assert_eq!(app.count("sms_opt_outs").await, 1);

    // Sending to the opted-out number is refused, before Twilio.
    start(&app, &kai, PHONE)
        .await
        .assert_error(StatusCode::CONFLICT, "sms_opted_out");
    assert_eq!(app.twilio.sends_to(PHONE), 0);

    let r = inbound(&app, PHONE, "HELP", INBOUND_URL, TWILIO_TOKEN).await;
    assert!(
        r.body.contains("<Message>") && r.body.contains("STOP"),
        "{}",
        r.body
    );
    assert_eq!(app.count("sms_opt_outs").await, 1);

    let r = inbound(&app, PHONE, "START", INBOUND_URL, TWILIO_TOKEN).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(app.count("sms_opt_outs").await, 0);
    assert_eq!(start(&app, &kai, PHONE).await.status, StatusCode::CREATED);
    assert_eq!(app.twilio.sends_to(PHONE), 1);

    // Every opt-out keyword counts; every opt-in keyword undoes it.
    for (out, back) in [
        ("STOPALL", "YES"),
        ("unsubscribe", "UNSTOP"),
        ("Cancel", "start"),
        ("END", "yes"),
        ("QUIT", "START"),
        ("revoke", "START"),
        ("OPTOUT", "YES"),
    ] {
        inbound(&app, PHONE, out, INBOUND_URL, TWILIO_TOKEN).await;
        assert_eq!(app.count("sms_opt_outs").await, 1, "{out}");
        inbound(&app, PHONE, back, INBOUND_URL, TWILIO_TOKEN).await;
        assert_eq!(app.count("sms_opt_outs").await, 0, "{back}");
    }
}

#[tokio::test]
async fn sms_without_twilio_configured_answers_503_and_sends_nothing() {
    let app = TestApp::with_env(&[("TWILIO_BASE_URL", "")]).await;
    let kai = app.signup("kai@example.com").await;
    start(&app, &kai, PHONE)
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    verify(&app, &kai, PHONE, "123456")
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    // Unsigned is still 401; signed, the signature cannot be checked: 503.
    app.post(INBOUND)
        .raw(
            "application/x-www-form-urlencoded",
            &form(&[("Body", "STOP")]),
        )
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    inbound(&app, PHONE, "STOP", INBOUND_URL, TWILIO_TOKEN)
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    assert_eq!(app.count("sms_opt_outs").await, 0);
    assert_eq!(app.count("sms_verifications").await, 0);
    assert_eq!(app.twilio.sends_to(PHONE), 0);
}
