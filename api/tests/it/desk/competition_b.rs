//! The competition module's people, reports and forecasts pages (issue 39) over form posts:
//! each page renders, each post's good input is checked through the JSON API and its bad input
//! is shown beside its field with nothing written, another workspace's object is a 404 and a
//! member without the permission gets the 403 page.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// A coach with one athlete (Mia Silva) and a second (Ana Reis), and an outsider.
struct Club {
    coach: Session,
    outsider: Session,
    mia: String,
    ana: String,
}

async fn club(app: &TestApp) -> Club {
    let coach = app.signup("coach@example.com").await;
    let outsider = app.signup("outsider@example.com").await;
    let mia = id(&new_athlete(
        app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let ana = id(&new_athlete(
        app,
        &coach,
        json!({ "firstName": "Ana", "lastName": "Reis" }),
    )
    .await);
    Club {
        coach,
        outsider,
        mia,
        ana,
    }
}

async fn api_list(app: &TestApp, s: &Session, path: &str) -> Vec<serde_json::Value> {
    let r = app.get(path).session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json["items"].as_array().cloned().unwrap_or_default()
}

// ---- opponents ----

#[tokio::test]
async fn opponents_notes_show_head_to_head_and_suggestions() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    link_heatsource(&app, k.coach.org_id, &k.mia, "m").await;
    store_heatsource_event(
        &app,
        hs_event(
            "e1",
            "2026-03-01",
            ("men", "Men"),
            vec![
                hs_heat(
                    "R1",
                    "2026-03-01T08:00:00Z",
                    &[("m", "Mia", Some(1), None), ("x", "Xavi", Some(2), None)],
                ),
                hs_heat(
                    "QF",
                    "2026-03-01T10:00:00Z",
                    &[("m", "Mia", Some(3), None), ("x", "Xavi", Some(1), None)],
                ),
            ],
        ),
    )
    .await;
    let page = ws_path(&k.coach, "/competition/opponents");
    let r = get(&app, &k.coach, &format!("{page}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Suggested opponents for Mia Silva"),
        "{}",
        r.body
    );
    assert!(r.body.contains("Xavi"), "{}", r.body);
    assert!(r.body.contains("2 heats shared"), "{}", r.body);

    // The suggestion's button writes a note on the provider athlete, for Mia.
    let r = post(
        &app,
        &k.coach,
        &page,
        &[
            ("athleteId", &k.mia),
            ("provider", "heatsource"),
            ("externalId", "x"),
            ("opponentName", "Xavi"),
            ("body", "Strong on the first wave"),
            ("strengths", "backhand, paddling,"),
            ("tags", "aggressive"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains("done=opp.created"),
        "{}",
        r.location()
    );
    let notes = api_list(&app, &k.coach, "/api/opponents").await;
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["opponent"]["externalId"], "x");
    assert_eq!(notes[0]["athleteId"], k.mia.as_str());
    assert_eq!(notes[0]["strengths"], json!(["backhand", "paddling"]));
    let r = get(&app, &k.coach, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("The note is saved."));
    assert!(r.body.contains("Strong on the first wave"));
    // The note carries Mia's record against Xavi: one win, one loss.
    assert!(r.body.contains("<strong>1–1</strong>"), "{}", r.body);

    // A roster opponent; the athlete without a heatsource profile says why no suggestions.
    let r = post(
        &app,
        &k.coach,
        &page,
        &[("athleteId", &k.ana), ("opponentAthleteId", &k.mia)],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(&app, &k.coach, &r.location()).await;
    assert!(r.body.contains("Notes for Ana Reis"), "{}", r.body);
    assert!(r.body.contains("id=\"no-suggestions\""), "{}", r.body);

    // Delete.
    let note = notes[0]["id"].as_str().unwrap();
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/{note}/delete"),
        &[("athlete", &k.mia)],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=opp.removed"));
    assert_eq!(api_list(&app, &k.coach, "/api/opponents").await.len(), 1);
}

#[tokio::test]
async fn a_bad_note_is_shown_beside_its_fields_and_nothing_is_written() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/opponents");
    // A provider opponent without a name, a bad tag.
    let r = post(
        &app,
        &k.coach,
        &page,
        &[
            ("provider", "heatsource"),
            ("externalId", "x"),
            ("opponentName", ""),
            ("tags", "Not A Tag!"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-opponentName\""), "{}", r.body);
    assert!(r.body.contains("id=\"e-tags\""), "{}", r.body);
    assert!(r.body.contains("value=\"x\""), "what was typed stays");
    // No opponent at all.
    let r = post(&app, &k.coach, &page, &[("body", "who?")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-opponent\""), "{}", r.body);
    // An athlete is not their own opponent.
    let r = post(
        &app,
        &k.coach,
        &page,
        &[("athleteId", &k.mia), ("opponentAthleteId", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-opponentAthleteId\""), "{}", r.body);
    // Not an id.
    let r = post(&app, &k.coach, &page, &[("athleteId", "nope")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-athleteId\""), "{}", r.body);
    assert!(api_list(&app, &k.coach, "/api/opponents").await.is_empty());
}

#[tokio::test]
async fn another_workspaces_notes_are_404_and_a_reader_cannot_write() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let r = app
        .post("/api/opponents")
        .session(&k.coach)
        .json(json!({ "opponent": { "athleteId": k.mia }, "athleteId": k.ana }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let note = r.json["id"].as_str().unwrap().to_string();
    // The outsider's desk: the coach's note and athlete are not theirs.
    let theirs = ws_path(&k.outsider, "/competition/opponents");
    let r = post(&app, &k.outsider, &format!("{theirs}/{note}/delete"), &[]).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(&app, &k.outsider, &theirs, &[("opponentAthleteId", &k.mia)]).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &k.outsider, &format!("{theirs}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    // The coach's workspace is not the outsider's.
    let r = get(
        &app,
        &k.outsider,
        &ws_path(&k.coach, "/competition/opponents"),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);

    // A reader sees the notes without the forms and may not post.
    let scout = reader(&app, &k.coach).await;
    let page = ws_path(&scout, "/competition/opponents");
    let r = get(&app, &scout, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Mia Silva"));
    assert!(!r.body.contains("Save note"));
    let r = post(&app, &scout, &format!("{page}/{note}/delete"), &[]).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(&app, &physio, &ws_path(&physio, "/competition/opponents")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(api_list(&app, &k.coach, "/api/opponents").await.len(), 1);
}

// ---- watchlist ----

#[tokio::test]
async fn watch_an_athlete_and_a_provider_event_then_stop() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/watchlist");
    let r = get(&app, &k.coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("You watch nothing yet."));

    let r = post(
        &app,
        &k.coach,
        &page,
        &[
            ("kind", "athlete"),
            ("athleteId", &k.mia),
            ("note", "Trials"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=wl.added"));
    // The same again is not a second item.
    let r = post(
        &app,
        &k.coach,
        &page,
        &[("kind", "athlete"), ("athleteId", &k.mia)],
    )
    .await;
    assert!(r.location().contains("done=wl.already"), "{}", r.location());
    let r = post(
        &app,
        &k.coach,
        &page,
        &[
            ("kind", "event"),
            ("provider", "heatsource"),
            ("externalId", "ev-9"),
            ("name", "Pro Peniche"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let items = api_list(&app, &k.coach, "/api/watchlist").await;
    assert_eq!(items.len(), 2);
    let r = get(&app, &k.coach, &format!("{page}?kind=event")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Pro Peniche"));
    assert!(!r.body.contains("Trials"));
    let r = get(&app, &k.coach, &page).await;
    assert!(r.body.contains("Mia Silva") && r.body.contains("Trials"));

    let mia_item = items.iter().find(|i| i["source"] == "roster").unwrap();
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/{}/remove", mia_item["id"].as_str().unwrap()),
        &[],
    )
    .await;
    assert!(r.location().contains("done=wl.removed"));
    assert_eq!(api_list(&app, &k.coach, "/api/watchlist").await.len(), 1);
}

#[tokio::test]
async fn a_bad_watch_is_shown_beside_its_fields_and_nothing_is_written() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/watchlist");
    let r = post(
        &app,
        &k.coach,
        &page,
        &[("kind", "athlete"), ("externalId", "x1"), ("name", "")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-name\""), "{}", r.body);
    assert!(r.body.contains("value=\"x1\""), "what was typed stays");
    let r = post(&app, &k.coach, &page, &[("kind", "event")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-target\""), "{}", r.body);
    let r = post(
        &app,
        &k.coach,
        &page,
        &[("kind", "athlete"), ("athleteId", "zzz")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-athleteId\""), "{}", r.body);
    assert!(api_list(&app, &k.coach, "/api/watchlist").await.is_empty());
}

#[tokio::test]
async fn another_workspaces_watch_is_404_and_without_competition_403() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let r = app
        .post("/api/watchlist")
        .session(&k.coach)
        .json(json!({ "kind": "athlete", "athleteId": k.mia }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let item = r.json["id"].as_str().unwrap().to_string();
    let theirs = ws_path(&k.outsider, "/competition/watchlist");
    let r = post(&app, &k.outsider, &format!("{theirs}/{item}/remove"), &[]).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &k.outsider,
        &theirs,
        &[("kind", "athlete"), ("athleteId", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(
        &app,
        &k.outsider,
        &ws_path(&k.coach, "/competition/watchlist"),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    // A reader keeps their own watchlist: the coach's item is not theirs.
    let scout = reader(&app, &k.coach).await;
    let page = ws_path(&scout, "/competition/watchlist");
    let r = get(&app, &scout, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("You watch nothing yet."));
    let r = post(&app, &scout, &format!("{page}/{item}/remove"), &[]).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(&app, &physio, &ws_path(&physio, "/competition/watchlist")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &physio,
        &ws_path(&physio, "/competition/watchlist"),
        &[("kind", "athlete"), ("athleteId", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(api_list(&app, &k.coach, "/api/watchlist").await.len(), 1);
}

// ---- identity and duplicates ----

#[tokio::test]
async fn identity_candidates_rejected_removed_and_duplicates_dismissed() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let twin = id(&new_athlete(
        &app,
        &k.coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    store_heatsource_event(
        &app,
        hs_event(
            "e1",
            "2026-03-01",
            ("women", "Women"),
            vec![hs_heat(
                "R1",
                "2026-03-01T08:00:00Z",
                &[("hs-7", "Mia Silva", Some(1), None)],
            )],
        ),
    )
    .await;
    let page = ws_path(&k.coach, "/competition/identity");
    let r = get(&app, &k.coach, &format!("{page}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Profiles that may be Mia Silva"),
        "{}",
        r.body
    );
    // No provider is configured here: said, not failed.
    assert!(r.body.contains("not set up on this service"), "{}", r.body);
    assert!(r.body.contains("hs-7"), "{}", r.body);
    // The two Mias are probably one person.
    assert!(r.body.contains("Probably the same person"));
    assert!(r.body.contains("merge?other="), "{}", r.body);

    let r = post(
        &app,
        &k.coach,
        &format!("{page}/links"),
        &[
            ("athleteId", &k.mia),
            ("source", "heatsource"),
            ("externalId", "hs-7"),
            ("name", "Mia Silva"),
            ("decision", "reject"),
            ("score", "0.8"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=idn.rejected"));
    let rejected = api_list(
        &app,
        &k.coach,
        &format!("/api/identity/links?athleteId={}&status=rejected", k.mia),
    )
    .await;
    assert_eq!(rejected.len(), 1);
    let r = get(&app, &k.coach, &r.location()).await;
    assert!(r.body.contains("Rejected"), "{}", r.body);

    let r = post(
        &app,
        &k.coach,
        &format!("{page}/links/remove"),
        &[
            ("athleteId", &k.mia),
            ("source", "heatsource"),
            ("externalId", "hs-7"),
        ],
    )
    .await;
    assert!(r.location().contains("done=idn.removed"), "{}", r.body);
    assert!(
        api_list(
            &app,
            &k.coach,
            &format!("/api/identity/links?athleteId={}&status=rejected", k.mia)
        )
        .await
        .is_empty()
    );

    let r = post(
        &app,
        &k.coach,
        &format!("{page}/dismiss"),
        &[("a", &k.mia), ("b", &twin)],
    )
    .await;
    assert!(r.location().contains("done=idn.dismissed"), "{}", r.body);
    assert!(
        api_list(&app, &k.coach, "/api/dedup/suggestions")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn a_bad_identity_decision_is_shown_and_nothing_is_written() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/identity");
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/links"),
        &[
            ("athleteId", &k.mia),
            ("source", "myspace"),
            ("externalId", ""),
            ("decision", "maybe"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("source: "), "{}", r.body);
    assert!(r.body.contains("decision: "), "{}", r.body);
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/dismiss"),
        &[("a", &k.mia), ("b", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        api_list(
            &app,
            &k.coach,
            &format!("/api/identity/links?athleteId={}&status=rejected", k.mia)
        )
        .await
        .is_empty()
    );
    assert!(
        api_list(
            &app,
            &k.coach,
            &format!("/api/identity/links?athleteId={}", k.mia)
        )
        .await
        .is_empty()
    );
}

#[tokio::test]
async fn another_workspaces_identity_is_404_and_a_reader_cannot_decide() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let theirs = ws_path(&k.outsider, "/competition/identity");
    let r = get(&app, &k.outsider, &format!("{theirs}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &k.outsider,
        &format!("{theirs}/links"),
        &[
            ("athleteId", &k.mia),
            ("source", "heatsource"),
            ("externalId", "hs-7"),
            ("decision", "reject"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &k.outsider,
        &format!("{theirs}/dismiss"),
        &[("a", &k.mia), ("b", &k.ana)],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let scout = reader(&app, &k.coach).await;
    let page = ws_path(&scout, "/competition/identity");
    let r = get(&app, &scout, &page).await;
    assert_page(&r, StatusCode::OK);
    let r = post(
        &app,
        &scout,
        &format!("{page}/links"),
        &[
            ("athleteId", &k.mia),
            ("source", "heatsource"),
            ("externalId", "hs-7"),
            ("decision", "reject"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(&app, &physio, &ws_path(&physio, "/competition/identity")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(
        api_list(
            &app,
            &k.coach,
            &format!("/api/identity/links?athleteId={}&status=rejected", k.mia)
        )
        .await
        .is_empty()
    );
}

// ---- achievements ----

#[tokio::test]
async fn achievements_seeded_then_an_athlete_checked_and_everyone_as_a_job() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/achievements");
    let r = get(&app, &k.coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("No achievements are defined"));
    // Checking before seeding is said on the page, nothing awarded.
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/check"),
        &[("athleteId", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("seed them first"), "{}", r.body);
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/check"),
        &[("athleteId", "nope")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);

    let r = post(&app, &k.coach, &format!("{page}/seed"), &[]).await;
    assert!(r.location().contains("done=ach.seeded"), "{}", r.body);
    assert!(
        !api_list(&app, &k.coach, "/api/achievements")
            .await
            .is_empty()
    );
    add_result(&app, k.coach.org_id, &k.mia, "e1", 2).await;
    let r = post(
        &app,
        &k.coach,
        &format!("{page}/check"),
        &[("athleteId", &k.mia)],
    )
    .await;
    assert!(r.location().contains("done=ach.checked"), "{}", r.body);
    let r = get(&app, &k.coach, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Achievements of Mia Silva"));
    assert!(r.body.contains("First podium"), "{}", r.body);
    let awards = api_list(
        &app,
        &k.coach,
        &format!("/api/athletes/{}/achievements", k.mia),
    )
    .await;
    assert_eq!(awards.len(), 1);

    // Everyone: the job's page, leading back here.
    let r = post(&app, &k.coach, &format!("{page}/check"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains("/jobs/") && r.location().contains("back="),
        "{}",
        r.location()
    );
}

#[tokio::test]
async fn another_workspaces_achievements_are_404_and_a_reader_cannot_check() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let theirs = ws_path(&k.outsider, "/competition/achievements");
    let r = get(&app, &k.outsider, &format!("{theirs}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(&app, &k.outsider, &format!("{theirs}/seed"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = post(
        &app,
        &k.outsider,
        &format!("{theirs}/check"),
        &[("athleteId", &k.mia)],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let scout = reader(&app, &k.coach).await;
    let page = ws_path(&scout, "/competition/achievements");
    let r = get(&app, &scout, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("Add the default achievements"));
    let r = post(&app, &scout, &format!("{page}/seed"), &[]).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(
        &app,
        &physio,
        &ws_path(&physio, "/competition/achievements"),
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(
        api_list(&app, &k.coach, "/api/achievements")
            .await
            .is_empty()
    );
}

// ---- season reports ----

/// The job id in a job page's address (`/w/{ws}/jobs/{id}?back=…`).
fn job_of(location: &str) -> shared::db::Id {
    let rest = location.split("/jobs/").nth(1).expect("a job page");
    rest.split('?').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_season_report_is_made_as_a_job_then_listed_read_and_downloaded() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let _w = app.start_worker(&[]).await;
    add_result(&app, k.coach.org_id, &k.mia, "e1", 1).await;
    add_result(&app, k.coach.org_id, &k.mia, "e2", 3).await;
    let page = ws_path(&k.coach, "/competition/reports");
    let r = get(&app, &k.coach, &format!("{page}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("No reports for this athlete yet"),
        "{}",
        r.body
    );

    let r = post(
        &app,
        &k.coach,
        &page,
        &[("athleteId", &k.mia), ("season", "2026")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("back="), "{}", r.location());
    let job = app
        .wait_job(job_of(&r.location()), |p| {
            p.status == "succeeded" || p.status == "failed"
        })
        .await;
    assert_eq!(job.status, "succeeded", "{job:?}");
    let report = job.result.unwrap().0["reportId"]
        .as_str()
        .unwrap()
        .to_string();

    // Listed with its headline figures, as the JSON list has it.
    let r = get(&app, &k.coach, &format!("{page}?athlete={}", k.mia)).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Reports for Mia Silva"), "{}", r.body);
    assert!(
        r.body.contains("Events: 2, Wins: 1, Podiums: 2"),
        "{}",
        r.body
    );
    let listed = api_list(&app, &k.coach, &format!("/api/reports/season/{}", k.mia)).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], report.as_str());

    // Read on the page, from the stored document.
    let r = get(&app, &k.coach, &format!("{page}/{}/{report}", k.mia)).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Mia Silva: season 2026"), "{}", r.body);
    assert!(r.body.contains("Event e1") && r.body.contains("Best place: 1"));

    // The printable file, as the API serves it: an attachment that runs nothing.
    let r = get(
        &app,
        &k.coach,
        &format!("{page}/{}/{report}/download", k.mia),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let h = |k: &str| r.headers[k].to_str().unwrap().to_string();
    assert!(h("content-disposition").starts_with("attachment"));
    assert_eq!(
        h("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    assert!(r.body.contains("Event e1"));
}

#[tokio::test]
async fn a_bad_report_request_is_shown_beside_its_field_and_nothing_is_queued() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let page = ws_path(&k.coach, "/competition/reports");
    for (fields, field, says) in [
        (vec![("season", "2026")], "athleteId", "choose an athlete"),
        (
            vec![("athleteId", k.mia.as_str()), ("season", "next")],
            "season",
            "a season is a year",
        ),
        (
            vec![("athleteId", k.mia.as_str()), ("season", "1990")],
            "season",
            "from 2000 to 2100",
        ),
        (
            vec![
                ("athleteId", k.mia.as_str()),
                ("from", "2026-05-01"),
                ("to", "2026-04-01"),
            ],
            "to",
            "to is before from",
        ),
    ] {
        let r = post(&app, &k.coach, &page, &fields).await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains(&format!("id=\"e-{field}\"")) && r.body.contains(says),
            "{field}: {}",
            r.body
        );
    }
    let mut c = app.state.db.acquire().await.unwrap();
    let queued: i64 = shared::sql!(&mut c, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM job_progress WHERE kind = 'reports.season'")
        .fetch_one(&mut *c).await)
    .unwrap();
    assert_eq!(queued, 0);
}

#[tokio::test]
async fn another_workspaces_reports_are_404_and_without_competition_403() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let _w = app.start_worker(&[]).await;
    let page = ws_path(&k.coach, "/competition/reports");
    let r = post(&app, &k.coach, &page, &[("athleteId", &k.mia)]).await;
    let job = app
        .wait_job(job_of(&r.location()), |p| p.status == "succeeded")
        .await;
    let report = job.result.unwrap().0["reportId"]
        .as_str()
        .unwrap()
        .to_string();
    let theirs = ws_path(&k.outsider, "/competition/reports");
    for path in [
        format!("{theirs}?athlete={}", k.mia),
        format!("{theirs}/{}/{report}", k.mia),
        format!("{theirs}/{}/{report}/download", k.mia),
    ] {
        let r = get(&app, &k.outsider, &path).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    // Another athlete's path to the report is a 404 too.
    let r = get(&app, &k.coach, &format!("{page}/{}/{report}", k.ana)).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(&app, &k.outsider, &theirs, &[("athleteId", &k.mia)]).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(&app, &physio, &ws_path(&physio, "/competition/reports")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(
        &app,
        &physio,
        &ws_path(
            &physio,
            &format!("/competition/reports/{}/{report}/download", k.mia),
        ),
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
}

// ---- forecasts ----

/// A watch session of `athlete` recorded in training session `training`, started at `start`,
/// with rides (start offset s, length s, top km/h) as detector version v2 derived them.
async fn watch_rides(
    app: &TestApp,
    org: shared::db::Id,
    training: &str,
    athlete: &str,
    start: chrono::DateTime<chrono::Utc>,
    rides: &[(i64, i64, f64)],
) {
    use shared::db::{Id, Ts};
    let mut c = app.state.db.acquire().await.unwrap();
    let (s, now) = (Id::new(), Ts::now());
    let training: Id = training.parse().unwrap();
    let athlete: Id = athlete.parse().unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO wearable_sessions (id, org_id, athlete_id, training_session_id, source, status, started_at, detector_version, created_at, updated_at) VALUES ($1, $2, $3, $4, 'upload', 'ready', $5, 'v2', $6, $6)")
        .bind(s).bind(org).bind(athlete).bind(training).bind(Ts(start)).bind(now)).unwrap();
    for (i, (at, len, top)) in rides.iter().enumerate() {
        shared::execute!(&mut c, sqlx::query("INSERT INTO wearable_rides (id, org_id, session_id, detector_version, idx, start_ms, end_ms, distance_m, top_speed_kmh, mean_speed_kmh, created_at) VALUES ($1, $2, $3, 'v2', $4, $5, $6, 80.0, $7, 20.0, $8)")
            .bind(Id::new()).bind(org).bind(s).bind(i as i64).bind(at * 1000).bind((at + len) * 1000).bind(top).bind(now)).unwrap();
    }
}

/// The next whole hour plus `h` hours, as RFC 3339.
fn hour_from_now(h: i64) -> chrono::DateTime<chrono::Utc> {
    use chrono::{DurationRound, TimeDelta};
    chrono::Utc::now()
        .duration_trunc(TimeDelta::hours(1))
        .unwrap()
        + TimeDelta::hours(1 + h)
}

#[tokio::test]
async fn a_club_spot_shows_its_forecast_with_the_conditions_beside_each_ride() {
    let (app, _sp, _om) = app_with_forecasts(&[]).await;
    let k = club(&app).await;
    let start = hour_from_now(1);
    let dawn = new_training_session(
        &app,
        &k.coach,
        json!({ "title": "Dawn patrol", "startsAt": start.to_rfc3339(),
                "endsAt": (start + chrono::TimeDelta::hours(2)).to_rfc3339(), "spot": "Bells Beach" }),
    )
    .await;
    let dawn = dawn["id"].as_str().unwrap().to_string();
    // A session at a spot the provider does not know, and another workspace's at Bells.
    new_training_session(
        &app,
        &k.coach,
        json!({ "title": "Lagoon", "startsAt": start.to_rfc3339(),
                "endsAt": (start + chrono::TimeDelta::hours(1)).to_rfc3339(), "spot": "Nowhere Reef" }),
    )
    .await;
    new_training_session(
        &app,
        &k.outsider,
        json!({ "title": "Their session", "startsAt": start.to_rfc3339(),
                "endsAt": (start + chrono::TimeDelta::hours(1)).to_rfc3339(), "spot": "Bells Beach" }),
    )
    .await;
    watch_rides(
        &app,
        k.coach.org_id,
        &dawn,
        &k.mia,
        start,
        &[(600, 12, 24.5), (4000, 20, 31.0)],
    )
    .await;
    let _w = app.start_worker(&[]).await;
    assert_eq!(run_cron(&app, "backfill-spots").await.status, "succeeded");

    let page = ws_path(&k.coach, "/competition/forecasts");
    let r = get(&app, &k.coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("?spot=bells-beach\">Bells Beach</a>"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("Nowhere Reef <span class=\"muted\">not matched")
    );

    let r = get(&app, &k.coach, &format!("{page}?spot=bells-beach")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Forecast for Bells Beach"), "{}", r.body);
    // The table matches the JSON forecast: every third hour from the current one.
    let api = app
        .get("/api/surf/forecast?spot=bells-beach&hours=72")
        .session(&k.coach)
        .send()
        .await;
    assert_eq!(api.status, StatusCode::OK, "{}", api.body);
    let hours = api.json["hours"].as_array().unwrap();
    let first = &hours[0];
    let wave = format!("{:.1} m", first["waveHeightM"].as_f64().unwrap());
    let table = r.body.split("id=\"hours\"").nth(1).unwrap();
    let table = table.split("</table>").next().unwrap();
    assert_eq!(
        table.matches("<tr><th scope=\"row\">").count(),
        hours.len().div_ceil(3)
    );
    assert!(
        table.contains(&format!("<td>{wave}</td>")),
        "{wave}: {table}"
    );

    // The session, its rides, and the swell and wind of each ride's hour.
    assert!(r.body.contains("Dawn patrol") && !r.body.contains("Their session"));
    assert!(!r.body.contains("Lagoon"));
    assert!(r.body.contains("12 s, top 24.5 km/h") && r.body.contains("Mia Silva"));
    let ride_hour = |offset_s: i64| {
        let t = start + chrono::TimeDelta::seconds(offset_s);
        let t = chrono::DurationRound::duration_trunc(t, chrono::TimeDelta::hours(1)).unwrap();
        hours
            .iter()
            .find(|h| {
                h["time"]
                    .as_str()
                    .unwrap()
                    .parse::<chrono::DateTime<chrono::Utc>>()
                    .unwrap()
                    == t
            })
            .unwrap()
            .clone()
    };
    for offset in [600, 4000] {
        let h = ride_hour(offset);
        let swell = format!(
            "{:.1} m · {:.1} s",
            h["swell"]["heightM"].as_f64().unwrap(),
            h["swell"]["periodS"].as_f64().unwrap()
        );
        let rides = r.body.split("class=\"rides\"").nth(1).unwrap();
        assert!(rides.contains(&swell), "{swell}: {rides}");
    }

    // A spot search; a query too short is said beside the field.
    let r = get(&app, &k.coach, &format!("{page}?q=manly")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("?spot=manly-north\">Manly Beach North</a>"));
    let r = get(&app, &k.coach, &format!("{page}?q=m")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-q\""), "{}", r.body);
    let r = get(&app, &k.coach, &format!("{page}?spot=no%20such")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn without_forecast_providers_the_page_says_why_and_lists_the_club_spots() {
    let app = TestApp::new().await;
    let k = club(&app).await;
    let start = hour_from_now(1);
    new_training_session(
        &app,
        &k.coach,
        json!({ "title": "Dawn patrol", "startsAt": start.to_rfc3339(),
                "endsAt": (start + chrono::TimeDelta::hours(2)).to_rfc3339(), "spot": "Bells Beach" }),
    )
    .await;
    let page = ws_path(&k.coach, "/competition/forecasts");
    let r = get(&app, &k.coach, &format!("{page}?q=bells&spot=bells-beach")).await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(
        r.body.matches("No forecast provider is set up").count(),
        2,
        "the search and the forecast: {}",
        r.body
    );
    assert!(
        r.body
            .contains("Bells Beach <span class=\"muted\">not matched")
    );
    let physio = member_without_competition(&app, &k.coach).await;
    let r = get(&app, &physio, &ws_path(&physio, "/competition/forecasts")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &k.outsider, &page).await;
    assert_page(&r, StatusCode::NOT_FOUND);
}
