//! Opponent suggestions: the competitors of an athlete's divisions with head-to-head records
//! from shared heats, checked against hand-worked examples on hand-built synced events.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// m (our athlete) meets x three times: R1 of e1 won on places (1 vs 2), the QF of e1 lost on
/// places (3 vs 1), the SF of e2 won on totals (14.1 vs 13.9): 3 heats, 2 wins, 1 loss, last met
/// in e2's SF. y: e1's R1 won (1 vs 3), e2's R1 without results (undecided), and e2's QF a tie
/// on totals (12.0 each): 3 heats, 1 win, 1 tie, 1 undecided; but y's last heat with m is
/// earlier in the day than x's SF. z surfs the division (no shared heat) and is 4th in the
/// circuit ranking; w surfs only in another division.
async fn hand_built(app: &TestApp) {
    store_heatsource_event(
        app,
        hs_event(
            "e1",
            "2026-03-01",
            ("men", "Men"),
            vec![
                hs_heat(
                    "R1",
                    "2026-03-01T08:00:00Z",
                    &[
                        ("m", "Mia", Some(1), None),
                        ("x", "Xavi", Some(2), None),
                        ("y", "Yuri", Some(3), None),
                    ],
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
    store_heatsource_event(
        app,
        hs_event(
            "e2",
            "2026-04-10",
            ("men", "Men"),
            vec![
                hs_heat(
                    "R1",
                    "2026-04-10T07:00:00Z",
                    &[("m", "Mia", None, None), ("y", "Yuri", None, None)],
                ),
                hs_heat(
                    "QF",
                    "2026-04-10T08:00:00Z",
                    &[
                        ("m", "Mia", None, Some(12.0)),
                        ("y", "Yuri", None, Some(12.0)),
                    ],
                ),
                hs_heat(
                    "SF",
                    "2026-04-10T09:00:00Z",
                    &[
                        ("m", "Mia", None, Some(14.1)),
                        ("x", "Xavi", None, Some(13.9)),
                    ],
                ),
                hs_heat("R1", "2026-04-10T07:30:00Z", &[("z", "Zed", Some(1), None)]),
            ],
        ),
    )
    .await;
    store_heatsource_event(
        app,
        hs_event(
            "e3",
            "2026-05-01",
            ("women", "Women"),
            vec![hs_heat(
                "F",
                "2026-05-01T08:00:00Z",
                &[("w", "Wendy", Some(1), None)],
            )],
        ),
    )
    .await;
}

#[tokio::test]
async fn suggestions_count_head_to_head_from_shared_heats() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let xavi = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Xavi", "lastName": "Roca" }),
    )
    .await);
    link_heatsource(&app, coach.org_id, &mia, "m").await;
    link_heatsource(&app, coach.org_id, &xavi, "x").await;
    hand_built(&app).await;
    circuit_with_rankings(
        &app,
        coach.org_id,
        &[
            ("men", "Men", "z", "Zed", 4),
            ("men", "Men", "m", "Mia", 9),
            ("women", "Women", "w", "Wendy", 1),
        ],
    )
    .await;
    let r = app
        .post("/api/opponents")
        .session(&coach)
        .json(
            json!({ "opponent": { "provider": "heatsource", "externalId": "y", "name": "Yuri" } }),
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);

    let r = app
        .get(&format!("/api/opponents/suggestions?athleteId={mia}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let s = items(&r);
    let ids: Vec<_> = s
        .iter()
        .map(|s| s["externalId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["x", "y", "z"],
        "ties on heats broken by name; w is not in a shared division: {}",
        r.body
    );

    let x = &s[0];
    assert_eq!(x["name"], "Xavi");
    assert_eq!(x["athleteId"], xavi.as_str(), "a rostered opponent");
    assert_eq!(x["divisions"], json!(["Men"]));
    assert_eq!(
        x["headToHead"],
        json!({ "heats": 3, "wins": 2, "losses": 1, "ties": 0, "undecided": 0,
                "lastMet": { "eventId": "e2", "eventName": "Event e2", "date": "2026-04-10", "division": "Men", "round": "SF" } })
    );
    let y = &s[1];
    assert_eq!(
        (
            y["headToHead"]["heats"].as_u64(),
            y["headToHead"]["wins"].as_u64(),
            y["headToHead"]["losses"].as_u64(),
            y["headToHead"]["ties"].as_u64(),
            y["headToHead"]["undecided"].as_u64()
        ),
        (Some(3), Some(1), Some(0), Some(1), Some(1))
    );
    assert_eq!(y["headToHead"]["lastMet"]["round"], "QF");
    assert_eq!(y["notes"], 1, "the workspace's notes on them");
    assert_eq!(y["athleteId"], json!(null));
    let z = &s[2];
    assert_eq!(z["headToHead"]["heats"], 0);
    assert_eq!(z["headToHead"]["lastMet"], json!(null));
    assert_eq!(z["rankingPlace"], 4);

    let r = app
        .get(&format!(
            "/api/opponents/suggestions?athleteId={mia}&limit=2"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        (items(&r).len(), r.json["nextOffset"].as_i64()),
        (2, Some(2))
    );

    // From the other side: Xavi's record against Mia is the mirror image.
    let r = app
        .get(&format!("/api/opponents/suggestions?athleteId={xavi}"))
        .session(&coach)
        .send()
        .await;
    let m = items(&r)
        .iter()
        .find(|s| s["externalId"] == "m")
        .unwrap()
        .clone();
    assert_eq!(m["athleteId"], mia.as_str());
    assert_eq!(
        (
            m["headToHead"]["wins"].as_u64(),
            m["headToHead"]["losses"].as_u64()
        ),
        (Some(1), Some(2))
    );
}

#[tokio::test]
async fn suggestions_need_a_linked_athlete_of_the_workspace_and_competition_read() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let other = app.signup("other@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let physio = member_without_competition(&app, &coach).await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let path = format!("/api/opponents/suggestions?athleteId={mia}");
    app.get(&path)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_provider_linked");
    link_heatsource(&app, coach.org_id, &mia, "m").await;
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 0, "no synced events yet");
    app.get(&path)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&path)
        .session(&physio)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .get("/api/opponents/suggestions")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
}
