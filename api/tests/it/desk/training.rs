//! The training pages over form posts, checked through the JSON API: times typed in the
//! viewer's zone, the week and month calendar, the roster with its waitlist moving up, start
//! filming, edit, delete, and the CSV import of past sessions.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// `s`'s cookies with a time zone, as the desk's module sets it.
fn in_zone(s: &Session, tz: &str) -> String {
    format!("{}; sc_tz={}", cookies_of(s), tz.replace('/', "%2F"))
}

#[tokio::test]
async fn a_session_typed_in_the_viewers_zone_lands_in_the_calendar() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let cookie = in_zone(&owner, "Australia/Sydney");
    let r = app
        .post(&ws_path(&owner, "/training/new"))
        .header("cookie", &cookie)
        .header("sec-fetch-site", "same-origin")
        .form(&[
            ("csrf", &owner.csrf),
            ("title", "Dawn patrol"),
            ("startsAt", "2030-01-15T06:00"),
            ("endsAt", "2030-01-15T07:30"),
            ("spot", "Bondi"),
            ("capacity", "2"),
        ])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let page = r.location();
    let id = page
        .split("/training/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    // 06:00 in Sydney (UTC+11 in January) is 19:00 UTC the day before.
    let api = app
        .get(&format!("/api/training-sessions/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(
        api.json["session"]["startsAt"], "2030-01-14T19:00:00.000Z",
        "{}",
        api.body
    );
    // The week and month of 15 January show it at 06:00, on the 15th, in that zone.
    for view in ["week", "month"] {
        let r = app
            .get(&ws_path(
                &owner,
                &format!("/training?view={view}&at=2030-01-15"),
            ))
            .header("cookie", &cookie)
            .send()
            .await;
        assert_page(&r, StatusCode::OK);
        assert!(
            r.body.contains("06:00") && r.body.contains("Dawn patrol"),
            "{view}: {}",
            r.body
        );
    }
    let week = app
        .get(&ws_path(&owner, "/training?view=week&at=2030-01-15"))
        .header("cookie", &cookie)
        .send()
        .await;
    let day = week
        .body
        .split("id=\"d-2030-01-15\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(day.contains("Dawn patrol"), "{day}");
    // Seen from UTC it is on the 14th.
    let utc = get(
        &app,
        &owner,
        &ws_path(&owner, "/training?view=week&at=2030-01-14"),
    )
    .await;
    let day = utc
        .body
        .split("id=\"d-2030-01-14\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(
        day.contains("19:00") && day.contains("Dawn patrol"),
        "{day}"
    );
    // A bad time is shown beside the field, nothing written.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/training/new"),
        &[
            ("title", "Bad"),
            ("startsAt", "tomorrow"),
            ("endsAt", "2030-01-15T07:30"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-startsAt"), "{}", r.body);
    assert_eq!(app.count("training_sessions").await, 1);
}

#[tokio::test]
async fn the_roster_fills_then_waitlists_and_shows_who_moves_up() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let s = new_training_session(&app, &owner, json!({ "title": "Small group", "startsAt": "2030-02-01T06:00:00Z", "endsAt": "2030-02-01T08:00:00Z", "capacity": 1 })).await;
    let sid = id(&s);
    let a = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let b = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Moana", "lastName": "Kealoha" }),
    )
    .await);
    let base = ws_path(&owner, &format!("/training/{sid}"));
    for athlete in [&a, &b] {
        let r = post(
            &app,
            &owner,
            &format!("{base}/participants"),
            &[("athleteId", athlete)],
        )
        .await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    }
    let roster = app
        .get(&format!("/api/training-sessions/{sid}/participants"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(roster.json["waitlisted"], 1, "{}", roster.body);
    // The same athlete twice is refused on the page.
    let r = post(
        &app,
        &owner,
        &format!("{base}/participants"),
        &[("athleteId", &a)],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    // Removing Kai moves Moana up, and the page says so.
    let r = post(
        &app,
        &owner,
        &format!("{base}/participants/{a}/remove"),
        &[],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(
        r.location().contains(&format!("promoted={b}")),
        "{}",
        r.location()
    );
    let page = get(&app, &owner, &r.location()).await;
    assert_page(&page, StatusCode::OK);
    assert!(
        page.body
            .contains("Moved up from the waitlist: Moana Kealoha."),
        "{}",
        page.body
    );
    // Attended.
    let r = post(
        &app,
        &owner,
        &format!("{base}/participants/{b}"),
        &[("status", "attended")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let roster = app
        .get(&format!("/api/training-sessions/{sid}/participants"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(roster.json["participants"][0]["status"], "attended");
    // Start filming makes the footage session once.
    post(&app, &owner, &format!("{base}/film"), &[]).await;
    post(&app, &owner, &format!("{base}/film"), &[]).await;
    assert_eq!(app.count("footage_sessions").await, 1);
    // A viewer sees the roster without the buttons, and cannot post.
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let page = get(&app, &viewer, &base).await;
    assert_page(&page, StatusCode::OK);
    assert!(!page.body.contains("/participants/"), "{}", page.body);
    let r = post(
        &app,
        &viewer,
        &format!("{base}/participants/{b}/remove"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn edit_and_delete_a_session_and_import_past_ones() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let s = new_training_session(&app, &owner, json!({ "title": "Old title", "startsAt": "2030-03-01T06:00:00Z", "endsAt": "2030-03-01T08:00:00Z", "capacity": 5, "location": "Reef" })).await;
    let sid = id(&s);
    let base = ws_path(&owner, &format!("/training/{sid}"));
    let form = get(&app, &owner, &format!("{base}/edit")).await;
    assert!(
        form.body.contains("value=\"2030-03-01T06:00\""),
        "times shown in the viewer's zone (UTC here)"
    );
    let r = post(
        &app,
        &owner,
        &format!("{base}/edit"),
        &[
            ("title", "New title"),
            ("startsAt", "2030-03-01T07:00"),
            ("endsAt", "2030-03-01T09:00"),
            ("location", ""),
            ("capacity", ""),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/training-sessions/{sid}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["session"]["title"], "New title");
    assert_eq!(api.json["session"]["startsAt"], "2030-03-01T07:00:00.000Z");
    assert!(
        api.json["session"]["location"].is_null() && api.json["session"]["capacity"].is_null(),
        "{}",
        api.body
    );
    let r = post(&app, &owner, &format!("{base}/delete"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(app.count("training_sessions").await, 0);
    // The import of past sessions: a preview with a line's error, then the good file.
    new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com" }),
    )
    .await;
    let path = ws_path(&owner, "/training/import");
    let bad = "title,starts_at,athlete_email,attendance\nMorning,2024-05-01 06:00,kai@example.com,attended\nEvening,not a time,kai@example.com,attended\n";
    let upload = |csv: &str| {
        format!(
            "--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{}\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.csv\"\r\nContent-Type: text/csv\r\n\r\n{csv}\r\n--b--\r\n",
            owner.csrf
        )
    };
    let r = app
        .post(&path)
        .header("cookie", &cookies_of(&owner))
        .header("sec-fetch-site", "same-origin")
        .raw("multipart/form-data; boundary=b", upload(bad).as_bytes())
        .send()
        .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains("<td>3</td>"),
        "the error's line: {}",
        r.body
    );
    assert_eq!(app.count("training_sessions").await, 0);
    let good = "title,starts_at,athlete_email,attendance\nMorning,2024-05-01 06:00,kai@example.com,attended\n";
    let r = post(&app, &owner, &format!("{path}/commit"), &[("csv", good)]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(app.count("training_sessions").await, 1);
    assert_eq!(app.count("training_participants").await, 1);
}
