//! Every time the API accepts is checked against its kind's range (`shared::times`,
//! `docs/validation.md`): out of range is 400 `validation_failed` with the field's code
//! `out_of_range`, never a 500, and nothing is written. The first three tests are the defects
//! of issue 18; the table tests walk each kind of time over the routes that take it.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

/// A calendar time (1900–9999) out of range, each way, and chrono's extremes.
const CALENDAR_BAD: &[&str] = &[
    "1899-12-31T23:59:59Z",
    "+10000-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
    "+262142-12-31T23:59:59Z",
];
/// A calendar day out of range.
const CALENDAR_DAYS_BAD: &[&str] = &["1899-12-31", "0001-01-01"];
/// A past time (consent) out of range: before 1900, below year 0, in the future.
const PAST_BAD: &[&str] = &[
    "0001-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
    "1899-12-31T23:59:59Z",
    "2999-01-01T00:00:00Z",
    "+10000-01-01T00:00:00Z",
];
/// A deadline (grant) out of range: past, after 9999.
const FUTURE_BAD: &[&str] = &[
    "2001-01-01T00:00:00Z",
    "+10000-01-01T00:00:00Z",
    "+262142-12-31T23:59:59Z",
];
/// A birth date out of range: in the future, more than 120 years ago.
const BIRTH_BAD: &[&str] = &["2999-01-01", "1899-12-31", "0001-01-01"];
/// A time measured by a device (2000–2099) out of range.
const RECORDED_BAD: &[&str] = &[
    "1999-12-31T23:59:59Z",
    "2100-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
];

/// A value as a query-string parameter (`+` would read as a space).
fn q(v: &str) -> String {
    url::form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// Asserts 400 `validation_failed` naming `field` with `out_of_range`.
#[track_caller]
fn assert_out_of_range(r: &Resp, field: &str, what: &str) {
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let fields = r.json["error"]["details"]["fields"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no field details: {}", r.body));
    assert!(
        fields
            .iter()
            .any(|f| f["field"] == field && f["code"] == "out_of_range"),
        "{what}: expected {field} out_of_range: {}",
        r.body
    );
}

fn consent(at: &str) -> Value {
    json!({ "guardianName": "Rita Costa", "relationship": "parent", "method": "paper", "consentedAt": at })
}

#[tokio::test]
async fn a_calendar_from_far_in_the_future_without_to_is_refused_not_a_panic() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    for from in ["+262142-12-31T23:59:59Z", "9999-12-31T23:00:00Z"] {
        let path = format!("/api/orgs/{}/calendar?from={}", coach.org_id, q(from));
        let r = app.get(&path).session(&coach).send().await;
        if from.starts_with('+') {
            assert_out_of_range(&r, "from", from);
        } else {
            // The last day of 9999 is in range: its default end stops at the end of 9999.
            assert_eq!(r.status, StatusCode::OK, "{}", r.body);
            assert_eq!(r.json["to"], "9999-12-31T23:59:59.999Z");
        }
    }
    // The raw `+` of the report reads as a space: still refused, as a malformed time.
    let path = format!(
        "/api/orgs/{}/calendar?from=+262142-12-31T23:59:59Z",
        coach.org_id
    );
    let r = app.get(&path).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
}

#[tokio::test]
async fn a_consent_dated_before_year_0_or_in_year_1_is_refused_and_nothing_is_written() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(&app, &coach, json!({ "firstName": "Leo", "lastName": "C" })).await;
    let path = format!("/api/athletes/{}/guardian-consent", id(&a));
    for at in ["-0001-06-01T00:00:00Z", "0001-01-01T00:00:00Z"] {
        let r = app
            .post(&path)
            .session(&coach)
            .json(consent(at))
            .send()
            .await;
        assert_out_of_range(&r, "consentedAt", at);
    }
    assert_eq!(app.count("guardian_consents").await, 0);
    let r = app
        .post(&path)
        .session(&coach)
        .json(consent("1990-05-01T10:00:00Z"))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app.get(&path).session(&coach).send().await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "the consent reads back: {}",
        r.body
    );
    assert_eq!(
        r.json["consents"][0]["consentedAt"],
        "1990-05-01T10:00:00.000Z"
    );
}

#[tokio::test]
async fn a_grant_until_after_9999_is_refused_on_the_web_and_the_phone() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let (access, _) = app.phone_tokens("admin@example.com").await;
    let body = |until: &str| json!({ "orgId": admin.org_id, "plan": "club", "seats": 10, "reason": "pilot", "until": until });
    for until in ["+10000-01-01T00:00:00Z", "+262142-12-31T23:59:59Z"] {
        let r = app
            .post("/api/admin/subscriptions/grant")
            .session(&admin)
            .json(body(until))
            .send()
            .await;
        assert_out_of_range(&r, "until", until);
        let r = app
            .post("/api/mobile/admin/subscriptions/grant")
            .bearer(&access)
            .json(body(until))
            .send()
            .await;
        assert_out_of_range(&r, "until", until);
    }
    assert_eq!(app.count("subscriptions").await, 0);
    let r = app
        .post("/api/mobile/admin/subscriptions/grant")
        .bearer(&access)
        .json(body("9999-12-31T00:00:00Z"))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .get("/api/admin/subscriptions")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "the grant reads back: {}", r.body);
}

#[tokio::test]
async fn calendar_times_out_of_1900_to_9999_are_refused_everywhere() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let org = admin.org_id;
    let session = new_training_session(
        &app,
        &admin,
        json!({ "title": "Dawn", "startsAt": "2026-03-01T06:00:00Z", "endsAt": "2026-03-01T07:00:00Z" }),
    )
    .await;
    let session_id = id(&session);
    let athlete =
        id(&new_athlete(&app, &admin, json!({ "firstName": "Kai", "lastName": "L" })).await);
    let base = "2026-01-01T00:00:00Z";
    for bad in CALENDAR_BAD {
        let v = q(bad);
        // Query strings: (path, field).
        for (path, field) in [
            (format!("/api/orgs/{org}/calendar?from={v}"), "from"),
            (
                format!("/api/orgs/{org}/calendar?from={}&to={v}", q(base)),
                "to",
            ),
            (format!("/api/orgs/{org}/audit?from={v}"), "from"),
            (format!("/api/orgs/{org}/audit?to={v}"), "to"),
            (format!("/api/admin/audit?from={v}"), "from"),
            (format!("/api/admin/activity?since={v}"), "since"),
            (format!("/api/training-sessions?from={v}"), "from"),
            (format!("/api/training-sessions?to={v}"), "to"),
        ] {
            let r = app.get(&path).session(&admin).send().await;
            assert_out_of_range(&r, field, &path);
        }
        // Bodies.
        let r = app
            .post("/api/training-sessions")
            .session(&admin)
            .json(json!({ "title": "Far", "startsAt": bad, "endsAt": base }))
            .send()
            .await;
        assert_out_of_range(&r, "startsAt", bad);
        let r = app
            .req(
                Method::PATCH,
                &format!("/api/training-sessions/{session_id}"),
            )
            .session(&admin)
            .json(json!({ "endsAt": bad }))
            .send()
            .await;
        assert_out_of_range(&r, "endsAt", bad);
        let r = app
            .post("/api/activity/log")
            .session(&admin)
            .json(json!({ "events": [{ "kind": "page_view", "at": bad }] }))
            .send()
            .await;
        assert_out_of_range(&r, "events[0].at", bad);
    }
    for bad in CALENDAR_DAYS_BAD {
        let r = app
            .get(&format!("/api/wearable/my-schedule?date={bad}"))
            .session(&admin)
            .send()
            .await;
        assert_out_of_range(&r, "date", bad);
        let r = app
            .post(&format!("/api/reports/season/{athlete}"))
            .session(&admin)
            .json(json!({ "from": bad, "to": "2026-01-01" }))
            .send()
            .await;
        assert_out_of_range(&r, "from", bad);
        let r = app
            .post("/api/sessions/coaching/progress")
            .session(&admin)
            .json(json!({ "athleteId": athlete, "from": bad }))
            .send()
            .await;
        assert_out_of_range(&r, "from", bad);
        let csv = format!("title,date,spot,file\nDawn,{bad},Ericeira,a.mp4\n");
        let r = app
            .post("/api/training-sessions/batch-upload?fileName=m.csv")
            .session(&admin)
            .raw("text/csv", csv.as_bytes())
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
        assert_eq!(r.import_errors(), [(2, "date".to_string())], "{}", r.body);
    }
    let csv = "title,starts_at,duration_minutes\nDawn,1899-03-01 06:00,90\n";
    let r = app
        .post("/api/training-sessions/import")
        .session(&admin)
        .raw("text/csv", csv.as_bytes())
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    assert_eq!(r.import_errors(), [(2, "starts_at".to_string())]);
    // Nothing written: the one session of the set-up, unchanged; no events, no batches.
    assert_eq!(app.count("training_sessions").await, 1);
    assert_eq!(app.count("activity_events").await, 0);
    let r = app
        .get(&format!("/api/training-sessions/{session_id}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["session"]["endsAt"], "2026-03-01T07:00:00.000Z");
    // The bounds themselves are accepted.
    let r = app
        .get(&format!(
            "/api/training-sessions?from={}&to={}",
            q("1900-01-01T00:00:00Z"),
            q("9999-12-31T23:59:59Z")
        ))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}

#[tokio::test]
async fn consent_birth_grant_and_recorded_times_have_their_own_ranges() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let a = new_athlete(&app, &admin, json!({ "firstName": "Leo", "lastName": "C" })).await;
    let consent_path = format!("/api/athletes/{}/guardian-consent", id(&a));
    for bad in PAST_BAD {
        let r = app
            .post(&consent_path)
            .session(&admin)
            .json(consent(bad))
            .send()
            .await;
        assert_out_of_range(&r, "consentedAt", bad);
    }
    for bad in FUTURE_BAD {
        let r = app
            .post("/api/admin/subscriptions/grant")
            .session(&admin)
            .json(json!({ "orgId": admin.org_id, "plan": "club", "seats": 5, "reason": "pilot", "until": bad }))
            .send()
            .await;
        assert_out_of_range(&r, "until", bad);
    }
    for bad in BIRTH_BAD {
        let r = app
            .post("/api/athletes")
            .session(&admin)
            .json(json!({ "firstName": "Old", "lastName": "Timer", "birthDate": bad }))
            .send()
            .await;
        assert_out_of_range(&r, "birthDate", bad);
        let r = app
            .req(Method::PATCH, &format!("/api/athletes/{}", id(&a)))
            .session(&admin)
            .json(json!({ "birthDate": bad }))
            .send()
            .await;
        assert_out_of_range(&r, "birthDate", bad);
    }
    for bad in RECORDED_BAD {
        let r = app
            .post("/api/wearable/sessions")
            .session(&admin)
            .json(json!({ "athleteId": id(&a), "startedAt": bad, "samples": {} }))
            .send()
            .await;
        assert_out_of_range(&r, "startedAt", bad);
    }
    assert_eq!(app.count("guardian_consents").await, 0);
    assert_eq!(app.count("subscriptions").await, 0);
    assert_eq!(app.count("athletes").await, 1);
    assert_eq!(app.count("wearable_sessions").await, 0);
}
