//! The athletes pages over form posts, each checked through the JSON API: the roster's search,
//! filters and pages, create with field errors, edit, archive, delete behind its confirmation,
//! coaches, publishing, invites, merge, and the CSV import's line-by-line preview.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn the_roster_searches_filters_and_pages() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    for i in 0..30 {
        let level = if i % 3 == 0 { "pro" } else { "beginner" };
        new_athlete(
            &app,
            &owner,
            json!({ "firstName": format!("Surfer{i:02}"), "lastName": "Reef", "level": level }),
        )
        .await;
    }
    new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Moana", "lastName": "Kealoha", "email": "moana@example.com" }),
    )
    .await;
    let list = ws_path(&owner, "/athletes");
    let r = get(&app, &owner, &list).await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(r.body.matches("<tr><td><a href=").count(), 25, "25 a page");
    assert!(r.body.contains("offset=25"), "a link to the next page");
    let r = get(&app, &owner, &format!("{list}?offset=25")).await;
    assert_eq!(r.body.matches("<tr><td><a href=").count(), 6);
    assert!(r.body.contains("rel=\"prev\""));
    // Search by name or email.
    let r = get(&app, &owner, &format!("{list}?q=moana%40example")).await;
    assert_eq!(r.body.matches("<tr><td><a href=").count(), 1);
    assert!(r.body.contains("Moana Kealoha"));
    // Filter by level.
    let r = get(&app, &owner, &format!("{list}?level=pro")).await;
    assert_eq!(r.body.matches("<tr><td><a href=").count(), 10);
    // A bad filter is shown, not a crash.
    let r = get(&app, &owner, &format!("{list}?level=legend")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("must be one of"), "{}", r.body);
}

#[tokio::test]
async fn create_edit_archive_and_delete_through_the_pages() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    // A bad field is shown beside the form, nothing written.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/athletes/new"),
        &[
            ("firstName", "Kai"),
            ("lastName", ""),
            ("birthDate", "2999-01-01"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body
            .contains("aria-invalid=\"true\" aria-describedby=\"e-lastName\""),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("value=\"Kai\""),
        "the form keeps what was typed"
    );
    assert_eq!(app.count("athletes").await, 0);
    // Created: the browser goes to the profile with a note.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/athletes/new"),
        &[
            ("firstName", "Kai"),
            ("lastName", "Lenny"),
            ("email", "kai@example.com"),
            ("level", "pro"),
            ("stance", "regular"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let profile = r.location();
    let id = profile
        .split('/')
        .nth(4)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let api = app
        .get(&format!("/api/athletes/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["level"], "pro");
    let r = get(&app, &owner, &profile).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Created."), "{}", r.body);
    // Edit: an emptied field is cleared.
    let base = ws_path(&owner, &format!("/athletes/{id}"));
    let r = post(
        &app,
        &owner,
        &format!("{base}/edit"),
        &[
            ("firstName", "Kai"),
            ("lastName", "Lenny"),
            ("email", ""),
            ("level", "advanced"),
            ("notes", "Goofy on lefts"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/athletes/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["level"], "advanced");
    assert!(api.json["email"].is_null(), "{}", api.body);
    assert_eq!(api.json["notes"], "Goofy on lefts");
    // Archive, then restore.
    post(
        &app,
        &owner,
        &format!("{base}/status"),
        &[("status", "archived")],
    )
    .await;
    let api = app
        .get(&format!("/api/athletes/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["status"], "archived");
    post(
        &app,
        &owner,
        &format!("{base}/status"),
        &[("status", "active")],
    )
    .await;
    let api = app
        .get(&format!("/api/athletes/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["status"], "active");
    // Delete asks first, then erases.
    let r = get(&app, &owner, &format!("{base}/delete")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("cannot be undone"));
    let r = post(&app, &owner, &format!("{base}/delete"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let api = app
        .get(&format!("/api/athletes/{id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn coaches_publishing_and_invites_from_the_profile() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let a = id(&new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com", "birthDate": born(25, 0) })).await);
    let base = ws_path(&owner, &format!("/athletes/{a}"));
    let r = post(
        &app,
        &owner,
        &format!("{base}/coaches"),
        &[("userId", &coach.user_id.to_string()), ("role", "head")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/athletes/{a}/coaches"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json[0]["role"], "head");
    let sc = api.json[0]["id"].as_str().unwrap().to_string();
    // Assigning the same coach twice is shown on the profile.
    let r = post(
        &app,
        &owner,
        &format!("{base}/coaches"),
        &[("userId", &coach.user_id.to_string())],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    post(&app, &owner, &format!("{base}/coaches/{sc}/remove"), &[]).await;
    let api = app
        .get(&format!("/api/athletes/{a}/coaches"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json.as_array().unwrap().len(), 0);
    // Publish with a bio: the public profile opens.
    let r = post(
        &app,
        &owner,
        &format!("{base}/publish"),
        &[("published", "true"), ("bio", "Charger")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(&app, &owner, &base).await;
    let url = r
        .body
        .split("Published at <a class=\"url\" href=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let public = app.get(url.strip_prefix(BASE).unwrap()).send().await;
    assert_page(&public, StatusCode::OK);
    assert!(public.body.contains("Charger"));
    // An invite link, shown once, that opens the claim page.
    let r = post(
        &app,
        &owner,
        &format!("{base}/invite"),
        &[("delivery", "link")],
    )
    .await;
    assert_page(&r, StatusCode::CREATED);
    let link = r
        .body
        .split("readonly value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let claim = app.get(link.strip_prefix(BASE).unwrap()).send().await;
    assert_page(&claim, StatusCode::OK);
    assert!(claim.body.contains("Kai"));
    let r = get(&app, &owner, &base).await;
    assert!(r.body.contains("Invite: open"), "{}", r.body);
    // By mail.
    let r = post(
        &app,
        &owner,
        &format!("{base}/invite"),
        &[("delivery", "mail"), ("email", "kai@example.com")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    app.wait_mail("kai@example.com").await;
}

#[tokio::test]
async fn merge_shows_both_side_by_side_then_merges() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let keep = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let gone = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com" }),
    )
    .await);
    let base = ws_path(&owner, &format!("/athletes/{keep}"));
    let r = get(&app, &owner, &format!("{base}/merge?other={gone}")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("kai@example.com"),
        "the duplicate's fields are shown: {}",
        r.body
    );
    let r = post(&app, &owner, &format!("{base}/merge/{gone}"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/athletes/{gone}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.status, StatusCode::NOT_FOUND);
    let api = app
        .get(&format!("/api/athletes/{keep}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(
        api.json["email"], "kai@example.com",
        "the kept one took the missing email"
    );
}

fn multipart(csrf: &str, csv: &str) -> (String, Vec<u8>) {
    let body = format!(
        "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"roster.csv\"\r\nContent-Type: text/csv\r\n\r\n{csv}\r\n--XyZ--\r\n"
    );
    (
        "multipart/form-data; boundary=XyZ".into(),
        body.into_bytes(),
    )
}

#[tokio::test]
async fn csv_import_previews_every_error_by_line_before_writing_then_imports() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let path = ws_path(&owner, "/athletes/import");
    let bad = "first_name,last_name,email,birth_date\nKai,Lenny,kai@example.com,2001-02-03\n,Nobody,,\nMoana,Kealoha,not-an-email,\n";
    let (ct, body) = multipart(&owner.csrf, bad);
    let r = app
        .post(&path)
        .header("cookie", &cookies_of(&owner))
        .header("sec-fetch-site", "same-origin")
        .raw(&ct, &body)
        .send()
        .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("2 lines have errors"), "{}", r.body);
    assert!(
        r.body.contains("<td>3</td>") && r.body.contains("<td>4</td>"),
        "errors by line: {}",
        r.body
    );
    assert_eq!(app.count("athletes").await, 0, "a preview writes nothing");
    // A good file: previewed, then imported with the button.
    let good =
        "first_name,last_name,email\nKai,Lenny,kai@example.com\nMoana,Kealoha,moana@example.com\n";
    let (ct, body) = multipart(&owner.csrf, good);
    let r = app
        .post(&path)
        .header("cookie", &cookies_of(&owner))
        .header("sec-fetch-site", "same-origin")
        .raw(&ct, &body)
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Import 2 athletes"), "{}", r.body);
    assert_eq!(app.count("athletes").await, 0);
    let r = post(&app, &owner, &format!("{path}/commit"), &[("csv", good)]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app.get("/api/athletes").session(&owner).send().await;
    assert_eq!(items(&api).len(), 2);
    // Exported as CSV, cells neutralised as the API's export does.
    let r = get(&app, &owner, &ws_path(&owner, "/athletes/export")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.starts_with("id,first_name"), "{}", r.body);
    assert!(r.body.contains("moana@example.com"));
}

#[tokio::test]
async fn the_dashboard_lists_athletes_needing_attention() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Adult", "lastName": "Ready", "birthDate": born(30, 0) }),
    )
    .await;
    let minor = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Grom", "lastName": "Young", "birthDate": born(12, 0) }),
    )
    .await);
    let invited = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Invited", "lastName": "Adult", "birthDate": born(30, 0) }),
    )
    .await);
    athlete_invite(&app, &owner, &invited).await;
    let r = get(&app, &owner, &ws_path(&owner, "/")).await;
    assert_page(&r, StatusCode::OK);
    let attention = r
        .body
        .split("id=\"h-attention\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(
        attention.contains(&format!("/athletes/{minor}\">Grom Young")),
        "{attention}"
    );
    assert!(
        attention.contains("guardian consent missing")
            && attention.contains("minor without a guardian"),
        "{attention}"
    );
    assert!(
        attention.contains("Invited Adult") && attention.contains("invite not claimed"),
        "{attention}"
    );
    assert!(!attention.contains("Adult Ready"), "{attention}");
}

/// The profile lists the athlete's own newest clips and watch sessions (another athlete's are
/// not there) and competition results, each part only with its module on.
#[tokio::test]
async fn the_profile_shows_the_athletes_clips_and_watch_sessions() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let kai = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let mia = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let session = footage_session(&app, &owner).await;
    let (k, m): (shared::db::Id, shared::db::Id) = (kai.parse().unwrap(), mia.parse().unwrap());
    add_clip_of(&app, &owner, session, b"x", Some(k), "kai-left.mp4").await;
    add_clip_of(&app, &owner, session, b"x", Some(m), "mia-right.mp4").await;
    add_result(&app, owner.org_id, &kai, "E1", 3).await;
    let r = upload_session(
        &app,
        &owner,
        &kai,
        json!({ "samples": samples_json(&synth(7, 120.0, 0)), "device": "Garmin Fenix" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    // The API narrows clips to the athlete too.
    let api = app
        .get(&format!("/api/clips?athleteId={kai}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(
        api.json["items"].as_array().unwrap().len(),
        1,
        "{}",
        api.json
    );
    let page = ws_path(&owner, &format!("/athletes/{kai}"));
    let r = get(&app, &owner, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("kai-left.mp4"), "{}", r.body);
    assert!(!r.body.contains("mia-right.mp4"), "{}", r.body);
    assert!(
        r.body.contains("Watch sessions") && r.body.contains("Garmin Fenix"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("<td>Event E1</td><td>Men</td><td>2026-03-01</td><td>3</td>"),
        "{}",
        r.body
    );
    // Modules off: the parts go.
    disable_modules(&app, owner.org_id, &["footage", "wearable", "competition"]).await;
    let r = get(&app, &owner, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains("kai-left.mp4")
            && !r.body.contains("Watch sessions")
            && !r.body.contains("Event E1"),
        "{}",
        r.body
    );
}
