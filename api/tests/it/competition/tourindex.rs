//! The tour index against its fake: reads with what could not be read, every provider failure
//! as a 502, unconfigured as a 503; the directory scrape (idempotent, tolerant of a broken
//! page), `/api/discover`, and the headshot copies.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use testkit::tourindex::Failure;

#[tokio::test]
async fn tourindex_reads_answer_and_report_what_could_not_be_read() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;

    let r = app
        .get("/api/tourindex/athletes/search?q=KAI")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["id"], "ti-1");
    assert_eq!(items(&r)[0]["country"], "USA");

    let r = app
        .get("/api/tourindex/athletes/ti-1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Kai Lenny");
    assert_eq!(r.json["birthDate"], "1992-10-08");
    assert_eq!(r.json["stance"], "Regular");
    assert_eq!(r.json["results"][0]["place"], 1);
    assert_eq!(r.json["results"][0]["points"], 10000.0);
    assert_eq!(r.json["results"][1]["place"], 5, "=5 is fifth");
    assert_eq!(r.json["issues"], json!([]));

    // A profile with rows the reader cannot use: the rest is read, the rest reported.
    let r = app
        .get("/api/tourindex/athletes/ti-3")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let results = r.json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{}", r.body);
    assert_eq!(results[0]["place"], json!(null), "DNS is no place");
    assert_eq!(r.json["issues"].as_array().unwrap().len(), 3, "{}", r.body);

    let r = app
        .get("/api/tourindex/live-search?q=pipe")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r)[0]["kind"], "event");
    assert_eq!(items(&r)[0]["id"], "e1");

    // Served from the cache: the index is asked once.
    let before = ti.count("/athletes/ti-1");
    app.get("/api/tourindex/athletes/ti-1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(ti.count("/athletes/ti-1"), before);

    app.get("/api/tourindex/athletes/nobody")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/tourindex/athletes/search?q=k")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn tourindex_failures_are_502_and_a_page_without_identity_is_unreadable() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    // 500 three times (the adapter retries reads), 429 three times, a hang three times.
    for (path, failure) in [
        ("/api/tourindex/athletes/ti-1", Failure::Status(500)),
        ("/api/tourindex/athletes/ti-2", Failure::Status(429)),
        ("/api/tourindex/athletes/ti-4", Failure::Hang),
    ] {
        ti.fail(&[failure.clone(), failure.clone(), failure]);
        app.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
    }
    // A malformed page (no name anywhere): unreadable, a 502, never a 500.
    ti.page("/athletes/ti-3", 200, "<html><body><div>Maintenance</div>");
    app.get("/api/tourindex/athletes/ti-3")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
    // The search answering HTML instead of JSON.
    ti.page(
        "/api/athletes/search?q=mol&limit=50",
        200,
        "<html>oops</html>",
    );
    app.get("/api/tourindex/athletes/search?q=mol")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
    assert_eq!(
        app.count("provider_cache").await,
        0,
        "failures are not cached"
    );

    let bare = TestApp::new().await;
    let coach = bare.signup("coach@example.com").await;
    for path in [
        "/api/tourindex/athletes/search?q=kai",
        "/api/tourindex/athletes/ti-1",
        "/api/tourindex/live-search?q=kai",
    ] {
        bare.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    }
    bare.post("/api/tourindex/scrape")
        .session(&coach)
        .json(json!({ "tour": "ct" }))
        .send()
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    assert_eq!(bare.count("job_progress").await, 0);
}

#[tokio::test]
async fn scrape_fills_the_directory_once_and_discover_lists_it() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;

    let p = run_job_route(
        &app,
        &coach,
        "/api/tourindex/scrape",
        json!({ "tour": "CT" }),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    // Three athletes over two directory pages, two events.
    assert_eq!(r["created"], 5, "{r}");
    assert_eq!(app.count("tourindex_athletes").await, 3);
    assert_eq!(app.count("tourindex_events").await, 2);

    // Nothing new: nothing changes. A changed field: one update.
    let r = run_job_route(
        &app,
        &coach,
        "/api/tourindex/scrape",
        json!({ "tour": "ct" }),
    )
    .await
    .result
    .unwrap()
    .0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(0), json!(5))
    );
    ti.set("/athletes/ti-2/country", json!("NZL"));
    let r = run_job_route(
        &app,
        &coach,
        "/api/tourindex/scrape",
        json!({ "tour": "ct" }),
    )
    .await
    .result
    .unwrap()
    .0;
    assert_eq!(
        (r["updated"].clone(), r["unchanged"].clone()),
        (json!(1), json!(4))
    );

    // A broken second directory page: reported; the first page's entries stay.
    ti.page("/tours/ct/athletes?page=2", 500, "down");
    let p = run_job_route(
        &app,
        &coach,
        "/api/tourindex/scrape",
        json!({ "tour": "ct" }),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["failed"][0]["item"], "tour ct directory page 2", "{r}");
    assert_eq!(r["failed"][0]["permanent"], false);
    assert_eq!(app.count("tourindex_athletes").await, 3);

    // An unknown tour is reported, not an error; a bad tour name is refused up front.
    let r = run_job_route(
        &app,
        &coach,
        "/api/tourindex/scrape",
        json!({ "tour": "nope" }),
    )
    .await;
    assert_eq!(r.status, "failed", "nothing could be read: {r:?}");
    app.post("/api/tourindex/scrape")
        .session(&coach)
        .json(json!({ "tour": "../etc" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    let r = app
        .get("/api/discover?limit=2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 2);
    assert_eq!(items(&r)[0]["name"], "Joao Chianca", "by name");
    assert_eq!(r.json["nextOffset"], 2);
    let r = app
        .get("/api/discover?tour=ct&q=molly")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["country"], "NZL");
    assert_eq!(items(&r)[0]["rosterAthleteId"], json!(null));
    let r = app
        .get("/api/discover?tour=cs")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 0, "cs was never scraped");
}

#[tokio::test]
async fn scheduled_tourindex_sync_and_avatars_copy_own_origin_headshots_once() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;

    let p = run_cron(&app, "tourindex-sync").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(
        app.count("tourindex_athletes").await,
        3,
        "TOURINDEX_TOURS=ct"
    );

    let p = run_cron(&app, "tourindex-avatars").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["created"], 2, "{r}");
    assert_eq!(r["failed"][0]["item"], "avatar of ti-3", "off-origin: {r}");
    let before = ti.count("/img/");
    let r = run_cron(&app, "tourindex-avatars").await.result.unwrap().0;
    assert_eq!(
        (r["created"].clone(), r["failed"].clone()),
        (json!(0), json!([]))
    );
    assert_eq!(ti.count("/img/"), before, "nothing fetched again");

    let r = app.get("/api/discover?q=kai").session(&coach).send().await;
    let url = items(&r)[0]["avatarUrl"].as_str().unwrap().to_string();
    let path = url.split_once("://").unwrap().1.split_once('/').unwrap().1;
    let img = app.get(&format!("/{path}")).send().await;
    assert_eq!(img.status, StatusCode::OK);
    assert!(img.bytes.ends_with(b"ti-1.jpg"), "the copied bytes");

    // A new headshot URL is copied again.
    ti.set("/athletes/ti-1/image", json!("/img/ti-1-new.jpg"));
    run_cron(&app, "tourindex-sync").await;
    let r = run_cron(&app, "tourindex-avatars").await.result.unwrap().0;
    assert_eq!(r["created"], 1, "{r}");
}
