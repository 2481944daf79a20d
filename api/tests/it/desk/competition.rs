//! The competition pages (issue 39, part A) over form posts: the circuits list, a circuit's
//! standings with the qualification line and its events added and edited, an athlete's
//! strategy and goals, the athlete search and import (linked, never duplicated; an
//! unconfigured provider says why), each checked through the JSON API; another workspace's
//! circuit or athlete is a 404, a member without the permission a 403.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// The hand-worked season with its own rules (best 2 of 1000/800/650/550/450, top 2
/// qualify): `support::with_season` and `Season::set_rules`.
async fn season_with_rules() -> Season {
    let s = with_season().await;
    s.set_rules().await;
    s
}

/// The names of the circuit's events, through the API.
async fn event_names(s: &Season) -> Vec<String> {
    let r = s
        .app
        .get(&format!("/api/circuits/{}/events", s.circuit))
        .session(&s.coach)
        .send()
        .await;
    items(&r)
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

/// How many athletes the roster has, through the API.
async fn roster_size(app: &TestApp, s: &Session) -> usize {
    items(&app.get("/api/athletes").session(s).send().await).len()
}

#[tokio::test]
async fn circuits_and_standings_with_the_qualification_line() {
    let s = season_with_rules().await;
    let (app, coach) = (&s.app, &s.coach);
    let r = get(app, coach, &ws_path(coach, "/competition")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Championship Tour 2026"), "{}", r.body);
    assert!(
        r.body
            .contains("best 2 results count; places 1 to 2 qualify; own points table (5 places)"),
        "{}",
        r.body
    );
    assert!(r.body.contains("<td>2026–2030</td><td>"), "{}", r.body);
    assert!(
        r.body
            .contains(&format!("/competition/circuits/{}", s.circuit))
    );
    assert!(r.body.contains("/competition/search"));

    let page = ws_path(coach, &format!("/competition/circuits/{}", s.circuit));
    let r = get(app, coach, &page).await;
    assert_page(&r, StatusCode::OK);
    let b = &r.body;
    // Kai 1800, Jack 1550 | line | Kaito 1200, Ethan 1100 (as GET /api/strategy counts).
    let at = |needle: &str| b.find(needle).unwrap_or_else(|| panic!("{needle}: {b}"));
    assert!(at("Kai Lenny") < at("Jack Robinson"));
    assert!(at("Jack Robinson") < at("qualification-line"));
    assert!(at("qualification-line") < at("Kaito Ohashi"));
    assert!(b.contains("Qualification line: places 1 to 2"));
    assert!(b.contains("<td>1800</td>") && b.contains("<td>1550</td>"));
    // Ethan is in the roster: his line links to his strategy.
    assert!(
        b.contains(&format!("/competition/strategy/{}\">Ethan Ewing", s.ethan)),
        "{b}"
    );
    assert!(b.contains("Margaret River Pro"));
}

#[tokio::test]
async fn events_are_added_and_edited_with_errors_beside_their_fields() {
    let s = season_with_rules().await;
    let (app, coach) = (&s.app, &s.coach);
    let before = event_names(&s).await;
    let add = ws_path(
        coach,
        &format!("/competition/circuits/{}/events", s.circuit),
    );

    // No name, a bad date: both said beside their fields, nothing written.
    let r = post(app, coach, &add, &[("name", " "), ("date", "2030-13-40")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-name\""), "{}", r.body);
    assert!(r.body.contains("id=\"e-date\""), "{}", r.body);
    assert_eq!(event_names(&s).await, before);

    let r = post(
        app,
        coach,
        &add,
        &[
            ("name", "Club Champs"),
            ("date", "2030-06-01"),
            ("status", "upcoming"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().ends_with("done=comp.event_added"));
    assert!(event_names(&s).await.contains(&"Club Champs".to_string()));
    let r = get(app, coach, &r.location()).await;
    assert!(r.body.contains("Event added."));

    // A synced event renamed, a bad status refused first.
    let r = app
        .get(&format!("/api/circuits/{}/events", s.circuit))
        .session(coach)
        .send()
        .await;
    let e200 = items(&r).iter().find(|e| e["name"] == "Event 200").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let edit = format!("{add}/{e200}");
    let r = get(app, coach, &edit).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("id=\"provider-values\""), "{}", r.body);
    let r = post(
        app,
        coach,
        &edit,
        &[("name", "Bells Beach"), ("status", "Not Valid!")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-status\""), "{}", r.body);
    assert!(!event_names(&s).await.contains(&"Bells Beach".to_string()));
    let r = post(
        app,
        coach,
        &edit,
        &[("name", "Bells Beach"), ("date", ""), ("status", "")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = app
        .get(&format!("/api/circuits/{}/events/{e200}", s.circuit))
        .session(coach)
        .send()
        .await;
    assert_eq!(r.json["name"], "Bells Beach");
    assert_eq!(r.json["manualFields"], json!(["name"]));
}

#[tokio::test]
async fn strategy_shows_the_gap_and_goals_are_set_and_removed() {
    let s = season_with_rules().await;
    let (app, coach) = (&s.app, &s.coach);
    let page = ws_path(coach, &format!("/competition/strategy/{}", s.ethan));
    let r = get(app, coach, &page).await;
    assert_page(&r, StatusCode::OK);
    let b = &r.body;
    assert!(b.contains("Strategy: Ethan Ewing"), "{b}");
    assert!(b.contains("Rank 4 of 6"), "{b}");
    assert!(b.contains("450 points short of the line at 1550."), "{b}");
    assert!(
        b.contains(
            // One event remains, so both ask for a win.
            "place 1 or better in this event alone; place 1 or better in every remaining event"
        ),
        "{b}"
    );
    assert!(b.contains("discarded"));

    // The athlete's profile links here.
    let r = get(
        app,
        coach,
        &ws_path(coach, &format!("/athletes/{}", s.ethan)),
    )
    .await;
    assert!(
        r.body.contains(&format!(
            "/competition/strategy/{}\" id=\"strategy-link\"",
            s.ethan
        )),
        "{}",
        r.body
    );

    let goals = format!("{page}/goals");
    let view = format!("/api/strategy/{}", s.ethan);
    let goal = |r: &Resp| r.json["circuits"][0]["goal"].clone();
    let r = post(
        app,
        coach,
        &goals,
        &[("circuitId", &s.circuit), ("targetRank", "0")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-targetRank\""), "{}", r.body);
    let r = post(
        app,
        coach,
        &goals,
        &[("circuitId", ""), ("targetRank", "3")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-circuitId\""), "{}", r.body);
    assert_eq!(
        goal(&app.get(&view).session(coach).send().await),
        json!(null)
    );

    let r = post(
        app,
        coach,
        &goals,
        &[
            ("circuitId", &s.circuit),
            ("targetRank", "3"),
            ("note", "Podium pace"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let g = goal(&app.get(&view).session(coach).send().await);
    assert_eq!(
        (g["targetRank"].clone(), g["note"].clone()),
        (json!(3), json!("Podium pace"))
    );
    let r = get(app, coach, &r.location()).await;
    assert!(r.body.contains("Goal saved.") && r.body.contains("reach rank 3"));

    let r = post(
        app,
        coach,
        &format!("{goals}/remove"),
        &[("circuitId", &s.circuit)],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        goal(&app.get(&view).session(coach).send().await),
        json!(null)
    );
}

#[tokio::test]
async fn search_imports_once_and_links_the_existing_athlete() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let search = ws_path(&coach, "/competition/search");
    let r = get(&app, &coach, &format!("{search}?q=kai")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("id=\"source-heatsource\""), "{}", r.body);
    assert!(r.body.contains("id=\"source-tourindex\""), "{}", r.body);
    assert!(r.body.contains("Kaito Ohashi"));
    assert!(r.body.contains("In the roster as"));

    // A bad query is said beside the field.
    let r = get(&app, &coach, &format!("{search}?q=k")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-q\""), "{}", r.body);

    let import = format!("{search}/import");
    let r = post(
        &app,
        &coach,
        &import,
        &[("source", "heatsource"), ("id", "a1"), ("q", "kai")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains("done=comp.linked"),
        "{}",
        r.location()
    );
    assert!(r.location().contains(&format!("imported={}", id(&kai))));
    let r = get(&app, &coach, &r.location()).await;
    assert!(r.body.contains("Already in roster — linked."), "{}", r.body);
    assert_eq!(roster_size(&app, &coach).await, 1);

    let r = post(
        &app,
        &coach,
        &import,
        &[("source", "heatsource"), ("id", "a5"), ("q", "kai")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("done=comp.imported"));
    assert_eq!(roster_size(&app, &coach).await, 2);
    // Again: linked, not a second athlete.
    let r = post(
        &app,
        &coach,
        &import,
        &[("source", "heatsource"), ("id", "a5"), ("q", "kai")],
    )
    .await;
    assert!(r.location().contains("done=comp.linked"));
    assert_eq!(roster_size(&app, &coach).await, 2);

    // A bad source is said on the page, nothing written.
    let r = post(
        &app,
        &coach,
        &import,
        &[("source", "nowhere"), ("id", "a5"), ("q", "kai")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("heatsource or tourindex"), "{}", r.body);
    assert_eq!(roster_size(&app, &coach).await, 2);
}

#[tokio::test]
async fn an_unconfigured_provider_says_why_it_is_unavailable() {
    let (app, _hs) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let r = get(&app, &coach, &ws_path(&coach, "/competition/search?q=kai")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("data-status=\"not_configured\""),
        "{}",
        r.body
    );
    assert!(r.body.contains("not configured on this server"));
    assert!(
        r.body.contains("Kai Lenny"),
        "the configured one still answers"
    );
}

#[tokio::test]
async fn another_workspace_is_404_and_a_member_without_the_permission_403() {
    let s = season_with_rules().await;
    let (app, coach) = (&s.app, &s.coach);
    let other = app.signup("other@example.com").await;
    for rest in [
        format!("/competition/circuits/{}", s.circuit),
        format!("/competition/strategy/{}", s.ethan),
    ] {
        let r = get(app, &other, &ws_path(&other, &rest)).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    let r = post(
        app,
        &other,
        &ws_path(
            &other,
            &format!("/competition/circuits/{}/events", s.circuit),
        ),
        &[("name", "Stolen")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert!(!event_names(&s).await.contains(&"Stolen".to_string()));

    let physio = member_without_competition(app, coach).await;
    let r = get(app, &physio, &ws_path(coach, "/competition")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let scout = reader(app, coach).await;
    let page = ws_path(coach, &format!("/competition/circuits/{}", s.circuit));
    let r = get(app, &scout, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains("Add an event"),
        "no form without competition.manage"
    );
    let r = post(
        app,
        &scout,
        &format!("{page}/events"),
        &[("name", "Sneaky")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        app,
        &scout,
        &ws_path(coach, &format!("/competition/strategy/{}/goals", s.ethan)),
        &[("circuitId", &s.circuit), ("targetRank", "3")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(!event_names(&s).await.contains(&"Sneaky".to_string()));
}
