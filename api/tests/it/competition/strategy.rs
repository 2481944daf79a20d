//! The standings view and qualification goals (`/api/strategy/{athleteId}`) and the circuit
//! rules they count under, through the API against the heatsource fake, checked against the
//! example worked by hand in `shared::domain::competition::standings` (the unit tests there
//! cover the arithmetic's corners).

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use testkit::heatsource::FakeHeatsource;

/// A completed event of series 100 whose Men division (10) finished as `places`.
fn event(id: &str, date: &str, places: &[(&str, &str, i64)]) -> Value {
    let competitors: Vec<Value> = places
        .iter()
        .map(|(a, name, _)| json!({ "athleteId": a, "bib": null, "athlete": { "id": a, "name": name, "image": null } }))
        .collect();
    let ranking: Vec<Value> = places
        .iter()
        .map(|(a, _, place)| json!({ "place": place, "total": null, "athleteId": a }))
        .collect();
    json!({
        "id": id, "name": format!("Event {id}"), "status": "results_published",
        "date": format!("{date}T00:00:00Z"),
        "organisation": { "id": "1", "name": "World Surf League", "shortName": "wsl" },
        "series": { "id": "100", "name": "Championship Tour 2026" },
        "location": null,
        "eventDivisions": [{
            "id": format!("{id}1"), "entryCount": places.len(), "division": { "id": "10", "name": "Men" },
            "heats": [{ "round": "Final", "roundPosition": 0, "startTime": null, "endTime": null,
                        "result": [], "competitors": competitors }],
            "ranking": ranking,
        }],
    })
}

/// Three completed events and one to come (event 201, in 2030), as the hand-worked example:
/// with 1000/800/650/550/450 points, best 2 counting, Ethan Ewing (a3) has 650 + 450 = 1100
/// (his 6th, 0 points, discarded) and is 4th; Kai Lenny (a1) leads on 1000 + 800 = 1800; the
/// qualification line (2nd) is Jack Robinson's 1000 + 550 = 1550.
pub(crate) fn season(hs: &FakeHeatsource) {
    let e200 = event(
        "200",
        "2026-04-12",
        &[
            ("a2", "Jack Robinson", 1),
            ("a1", "Kai Lenny", 2),
            ("a3", "Ethan Ewing", 3),
            ("a5", "Kaito Ohashi", 4),
        ],
    );
    let e202 = event(
        "202",
        "2026-05-10",
        &[
            ("a1", "Kai Lenny", 1),
            ("a5", "Kaito Ohashi", 3),
            ("a2", "Jack Robinson", 4),
            ("a3", "Ethan Ewing", 6),
        ],
    );
    let e203 = event(
        "203",
        "2026-06-20",
        &[
            ("a6", "Griffin Colapinto", 1),
            ("a7", "Yago Dora", 2),
            ("a1", "Kai Lenny", 3),
            ("a5", "Kaito Ohashi", 4),
            ("a3", "Ethan Ewing", 5),
        ],
    );
    let e201 = json!({
        "id": "201", "name": "Margaret River Pro", "status": "upcoming", "date": "2030-04-22T00:00:00Z",
        "organisation": { "id": "1", "name": "World Surf League", "shortName": "wsl" },
        "series": { "id": "100", "name": "Championship Tour 2026" },
        "location": null, "eventDivisions": [],
    });
    hs.set(
        "/events",
        json!({ "200": e200, "201": e201, "202": e202, "203": e203 }),
    );
    let summary = |id: &str, status: &str, date: &str| json!({ "id": id, "name": format!("Event {id}"), "status": status, "date": format!("{date}T00:00:00Z") });
    hs.set(
        "/organisations/wsl/events",
        json!([
            summary("200", "results_published", "2026-04-12"),
            summary("201", "upcoming", "2030-04-22"),
            summary("202", "results_published", "2026-05-10"),
            summary("203", "results_published", "2026-06-20"),
        ]),
    );
}

fn division(r: &Resp) -> &Value {
    let c = &r.json["circuits"];
    assert_eq!(c.as_array().map(Vec::len), Some(1), "{}", r.body);
    let d = &c[0]["divisions"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "only Men: {}", r.body);
    &d[0]
}

#[tokio::test]
async fn standings_count_the_best_results_and_show_what_reaches_the_line() {
    let s = with_season().await;
    // The fakes and the worker live as long as their bindings.
    let Season {
        app,
        coach,
        circuit,
        ethan,
        _hs,
        _ti,
        _worker,
    } = s;
    let events = format!("/api/circuits/{circuit}/events");
    let r = app
        .post(&events)
        .session(&coach)
        .json(json!({ "name": "Club Champs", "date": "2030-06-01", "status": "upcoming" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);

    let rules = format!("/api/circuits/{circuit}");
    let r = app
        .req(Method::PATCH, &rules)
        .session(&coach)
        .json(json!({ "resultsToCount": 2, "qualificationPlace": 2,
                      "pointsTable": [1000, 800, 650, 550, 450] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["rules"]["defaultPointsTable"], false);
    let view = format!("/api/strategy/{ethan}");
    let r = app.get(&view).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["competitorIds"], json!(["a3"]));
    let d = division(&r);
    assert_eq!(d["divisionName"], "Men");
    assert_eq!(
        (d["rank"].clone(), d["total"].clone()),
        (json!(4), json!(1100.0))
    );
    assert_eq!(d["competitors"], 6);
    let results: Vec<(i64, f64, bool)> = d["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["place"].as_i64().unwrap(),
                r["points"].as_f64().unwrap(),
                r["counted"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [(3, 650.0, true), (6, 0.0, false), (5, 450.0, true)]
    );
    let leaders: Vec<(String, u32, f64)> = d["leaders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                l["rank"].as_u64().unwrap() as u32,
                l["total"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        leaders[..4],
        [
            ("Kai Lenny".to_string(), 1, 1800.0),
            ("Jack Robinson".to_string(), 2, 1550.0),
            ("Kaito Ohashi".to_string(), 3, 1200.0),
            ("Ethan Ewing".to_string(), 4, 1100.0),
        ]
    );
    let remaining: Vec<&str> = d["remainingEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(remaining, ["Margaret River Pro", "Club Champs"]);
    let q = &d["qualification"];
    assert_eq!(q["linePoints"], 1550.0);
    assert_eq!(q["pointsToLine"], 450.0);
    assert_eq!(q["reached"], false);
    assert_eq!(q["nextEventPlace"], 1, "only a win closes 450 in one event");
    assert_eq!(q["everyRemainingPlace"], 2, "two 2nds make 1600");
    assert_eq!(
        d["providerRanking"]["place"], 3,
        "the provider's own line beside ours"
    );

    // Every result counting: Kai's three add up to 2450.
    app.req(Method::PATCH, &rules)
        .session(&coach)
        .json(json!({ "resultsToCount": null }))
        .send()
        .await;
    let r = app.get(&view).session(&coach).send().await;
    assert_eq!(division(&r)["leaders"][0]["total"], 2450.0);
    assert_eq!(
        r.json["circuits"][0]["rules"]["qualificationPlace"], 2,
        "kept"
    );
    app.req(Method::PATCH, &rules)
        .session(&coach)
        .json(json!({ "resultsToCount": 2 }))
        .send()
        .await;

    // A member hides event 202: Kaito (550 + 550) and Ethan (650 + 450) tie on 1100 for 2nd,
    // which is the line: reached, nothing to spare.
    let r = app.get(&events).session(&coach).send().await;
    let e202 = items(&r).iter().find(|e| e["name"] == "Event 202").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = app
        .req(Method::DELETE, &format!("{events}/{e202}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = app
        .get(&format!("{view}?circuitId={circuit}&divisionId=10"))
        .session(&coach)
        .send()
        .await;
    let d = division(&r);
    assert_eq!(
        (d["rank"].clone(), d["total"].clone()),
        (json!(2), json!(1100.0))
    );
    assert_eq!(d["leaders"][1]["rank"], 2);
    assert_eq!(d["leaders"][2]["rank"], 2);
    assert_eq!(d["qualification"]["pointsToLine"], 0.0);
    assert_eq!(d["qualification"]["reached"], true);

    // Bad rules are refused and change nothing.
    for (body, field) in [
        (json!({ "pointsTable": [100, 200] }), "pointsTable"),
        (json!({ "pointsTable": [] }), "pointsTable"),
        (json!({ "resultsToCount": 0 }), "resultsToCount"),
        (json!({ "qualificationPlace": -1 }), "qualificationPlace"),
    ] {
        let r = app
            .req(Method::PATCH, &rules)
            .session(&coach)
            .json(body)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.json["error"]["details"]["fields"][0]["field"], field);
    }
    let r = app.get(&rules).session(&coach).send().await;
    assert_eq!(r.json["rules"]["resultsToCount"], 2);
    assert_eq!(
        r.json["rules"]["pointsTable"],
        json!([1000.0, 800.0, 650.0, 550.0, 450.0])
    );
}

#[tokio::test]
async fn goals_are_set_replaced_and_removed_with_permissions_and_tenancy() {
    let (app, hs, _ti) = app_with_providers(&[]).await;
    season(&hs);
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    run_cron(&app, "heatsource-orgs-sync").await;
    let r = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        json!({ "seriesId": "100" }),
    )
    .await
    .result
    .unwrap()
    .0;
    let circuit = r["circuitId"].as_str().unwrap().to_string();
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "heatsource", "id": "a3", "circuitId": circuit }))
        .send()
        .await;
    let ethan = r.json["athleteId"].as_str().unwrap().to_string();
    run_job_route(
        &app,
        &coach,
        &format!("/api/heatsource/circuits/{circuit}/import-standings"),
        json!({}),
    )
    .await;
    let rules = format!("/api/circuits/{circuit}");
    let goals = format!("/api/strategy/{ethan}/goals");
    let view = format!("/api/strategy/{ethan}");

    // No qualification place yet: a goal to qualify has no line to aim at.
    let r = app
        .post(&goals)
        .session(&coach)
        .json(json!({ "circuitId": circuit }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        r.json["error"]["details"]["fields"][0]["code"],
        "no_qualification_line"
    );
    let r = app.get(&view).session(&coach).send().await;
    assert_eq!(division(&r)["qualification"], Value::Null);

    app.req(Method::PATCH, &rules)
        .session(&coach)
        .json(json!({ "resultsToCount": 2, "qualificationPlace": 2,
                      "pointsTable": [1000, 800, 650, 550, 450] }))
        .send()
        .await;
    let r = app
        .post(&goals)
        .session(&coach)
        .json(json!({ "circuitId": circuit, "note": "top 2 by June" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["targetRank"], Value::Null);
    let r = app.get(&view).session(&coach).send().await;
    let g = &division(&r)["goal"];
    assert_eq!(
        (g["targetRank"].clone(), g["met"].clone()),
        (json!(2), json!(false))
    );
    assert_eq!(g["outlook"]["pointsToLine"], 450.0);

    // Setting it again replaces it: 4th is where Ethan stands.
    let r = app
        .post(&goals)
        .session(&coach)
        .json(json!({ "circuitId": circuit, "targetRank": 4 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(app.count("strategy_goals").await, 1);
    let r = app.get(&view).session(&coach).send().await;
    let g = &division(&r)["goal"];
    assert_eq!(
        (g["targetRank"].clone(), g["met"].clone()),
        (json!(4), json!(true))
    );
    assert_eq!(g["goal"]["note"], Value::Null, "replaced, not merged");

    for body in [
        json!({ "circuitId": circuit, "targetRank": 0 }),
        json!({ "circuitId": circuit, "note": "x".repeat(2001) }),
        json!({ "targetRank": 3 }),
    ] {
        let r = app.post(&goals).session(&coach).json(body).send().await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    }

    // A viewer reads but sets nothing; another workspace sees nothing of it.
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    assert_eq!(
        app.get(&view).session(&viewer).send().await.status,
        StatusCode::OK
    );
    app.post(&goals)
        .session(&viewer)
        .json(json!({ "circuitId": circuit, "targetRank": 1 }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::PATCH, &rules)
        .session(&viewer)
        .json(json!({ "resultsToCount": 1 }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let physio = member_without_competition(&app, &coach).await;
    app.get(&view)
        .session(&physio)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.get(&view).send().await.status, StatusCode::UNAUTHORIZED);
    let other = app.signup("other@example.com").await;
    app.get(&view)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&goals)
        .session(&other)
        .json(json!({ "circuitId": circuit, "targetRank": 1 }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::PATCH, &rules)
        .session(&other)
        .json(json!({ "resultsToCount": 1 }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let theirs = new_athlete(
        &app,
        &other,
        json!({ "firstName": "Their", "lastName": "Athlete" }),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.post(&format!("/api/strategy/{theirs}/goals"))
        .session(&other)
        .json(json!({ "circuitId": circuit, "targetRank": 1 }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/strategy/{theirs}?circuitId={circuit}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::DELETE, &format!("{goals}?circuitId={circuit}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("strategy_goals").await, 1);

    let r = app
        .req(Method::DELETE, &format!("{goals}?circuitId={circuit}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    app.req(Method::DELETE, &format!("{goals}?circuitId={circuit}"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    for (action, n) in [
        ("circuit.rules_updated", 1),
        ("strategy.goal_set", 2),
        ("strategy.goal_deleted", 1),
    ] {
        assert_eq!(audit_count(&app, action).await, n, "{action}");
    }

    // Merging a duplicate into Ethan carries the duplicate's goal over.
    let dup = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Ethan", "lastName": "Twice" }),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = app
        .post(&format!("/api/strategy/{dup}/goals"))
        .session(&coach)
        .json(json!({ "circuitId": circuit, "targetRank": 3 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post(&format!("/api/athletes/{ethan}/merge/{dup}"))
        .session(&coach)
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let r = app.get(&view).session(&coach).send().await;
    assert_eq!(division(&r)["goal"]["targetRank"], 3, "{}", r.body);
    assert_eq!(app.count("strategy_goals").await, 1);
}
