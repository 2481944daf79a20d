//! Season reports: generated as a job from the athlete's results, standings, goals, training,
//! footage and watch data; stored as JSON and self-contained HTML; listed and downloaded;
//! permissions and tenancy.

use crate::support::*;
use axum::http::{StatusCode, header};
use serde_json::json;
use shared::db::{Id, Ts};

fn ts(s: &str) -> Ts {
    Ts(chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc())
}

/// Training, footage and watch rows of the athlete: inside 2026 and one of each outside it.
async fn activity(app: &TestApp, org: Id, athlete: &str) {
    let athlete: Id = athlete.parse().unwrap();
    let mut c = app.state.db.acquire().await.unwrap();
    let now = Ts::now();
    for (start, status) in [
        ("2026-02-01T08:00:00Z", "attended"),
        ("2026-03-01T08:00:00Z", "attended"),
        ("2026-03-08T08:00:00Z", "no_show"),
        ("2025-12-31T08:00:00Z", "attended"),
    ] {
        let s = Id::new();
        shared::execute!(&mut c, sqlx::query("INSERT INTO training_sessions (id, org_id, title, starts_at, ends_at, source, created_at, updated_at) VALUES ($1, $2, 'Session', $3, $3, 'manual', $4, $4)")
            .bind(s).bind(org).bind(ts(start)).bind(now)).unwrap();
        shared::execute!(&mut c, sqlx::query("INSERT INTO training_participants (id, org_id, session_id, athlete_id, status, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 0, $6, $6)")
            .bind(Id::new()).bind(org).bind(s).bind(athlete).bind(status).bind(now)).unwrap();
    }
    let fs = Id::new();
    shared::execute!(&mut c, sqlx::query("INSERT INTO footage_sessions (id, org_id, athlete_id, title, status, created_at, updated_at) VALUES ($1, $2, $3, 'Footage', 'done', $4, $4)")
        .bind(fs).bind(org).bind(athlete).bind(now)).unwrap();
    let stats = |waves: u32, top: f64, kinds: &[&str]| {
        json!({
            "duration_ms": 60000, "wave_count": waves, "top_speed_kmh": top, "avg_speed_kmh": 20.0,
            "rides": (0..waves).map(|i| json!({ "start_ms": i * 1000, "end_ms": i * 1000 + 500 })).collect::<Vec<_>>(),
            "maneuvers": kinds.iter().map(|k| json!({ "type": k, "at_ms": 100, "confidence": 0.9 })).collect::<Vec<_>>(),
        })
    };
    for (recorded, s) in [
        (
            "2026-03-01T09:00:00Z",
            Some(stats(3, 31.5, &["cutback", "snap", "cutback"])),
        ),
        (
            "2026-05-01T09:00:00Z",
            Some(stats(2, 28.0, &["snap", "cutback", "aerial"])),
        ),
        ("2026-06-01T09:00:00Z", None),
        ("2025-06-01T09:00:00Z", Some(stats(9, 50.0, &["tube"]))),
    ] {
        shared::execute!(&mut c, sqlx::query("INSERT INTO clips (id, org_id, session_id, athlete_id, file_name, status, stats, recorded_at, created_at, updated_at, status_changed_at) VALUES ($1, $2, $3, $4, 'clip.mp4', 'stored', $5, $6, $7, $7, $7)")
            .bind(Id::new()).bind(org).bind(fs).bind(athlete).bind(s.map(sqlx::types::Json)).bind(ts(recorded)).bind(now)).unwrap();
    }
    for (started, rides) in [
        (
            "2026-04-01T07:00:00Z",
            vec![
                ("v2", 400.0, 30.0),
                ("v2", 600.0, 34.5),
                ("v1", 9000.0, 90.0),
            ],
        ),
        ("2025-04-01T07:00:00Z", vec![("v2", 5000.0, 70.0)]),
    ] {
        let s = Id::new();
        shared::execute!(&mut c, sqlx::query("INSERT INTO wearable_sessions (id, org_id, athlete_id, source, status, started_at, detector_version, created_at, updated_at) VALUES ($1, $2, $3, 'upload', 'ready', $4, 'v2', $5, $5)")
            .bind(s).bind(org).bind(athlete).bind(ts(started)).bind(now)).unwrap();
        for (i, (version, metres, top)) in rides.into_iter().enumerate() {
            shared::execute!(&mut c, sqlx::query("INSERT INTO wearable_rides (id, org_id, session_id, detector_version, idx, start_ms, end_ms, distance_m, top_speed_kmh, mean_speed_kmh, created_at) VALUES ($1, $2, $3, $4, $5, 0, 1000, $6, $7, 20.0, $8)")
                .bind(Id::new()).bind(org).bind(s).bind(version).bind(i as i64).bind(metres).bind(top).bind(now)).unwrap();
        }
    }
}

#[tokio::test]
async fn a_season_report_gathers_the_season_and_is_stored_and_downloadable() {
    let s = with_season().await;
    s.set_rules().await;
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
    let r = app
        .post(&format!("/api/strategy/{ethan}/goals"))
        .session(&coach)
        .json(json!({ "circuitId": circuit, "targetRank": 5, "note": "top 5 <b>at least</b>" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    activity(&app, coach.org_id, &ethan).await;

    let path = format!("/api/reports/season/{ethan}");
    let done = run_job_route(&app, &coach, &path, json!({ "season": 2026 })).await;
    assert_eq!(done.status, "succeeded", "{done:?}");
    let result = done.result.unwrap().0;
    let report = result["reportId"].as_str().unwrap().to_string();
    assert_eq!(result["summary"]["events"], 3);

    let r = app
        .get(&format!("{path}/{report}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let d = &r.json["document"];
    assert_eq!(d["athleteName"], "Ethan Ewing");
    assert_eq!(
        (d["from"].clone(), d["to"].clone()),
        (json!("2026-01-01"), json!("2026-12-31"))
    );
    let c = &d["competition"];
    assert_eq!(
        (
            c["events"].clone(),
            c["wins"].clone(),
            c["podiums"].clone(),
            c["bestPlace"].clone()
        ),
        (json!(3), json!(0), json!(1), json!(3)),
        "{c}"
    );
    let s = &d["standings"][0];
    assert_eq!(
        (
            s["rank"].clone(),
            s["total"].clone(),
            s["qualified"].clone()
        ),
        (json!(4), json!(1100.0), json!(false))
    );
    assert_eq!(d["goals"][0]["met"], true, "4th is inside a top-5 goal");
    assert_eq!(d["goalsMet"], 1);
    assert_eq!(d["training"], json!({ "attended": 2, "sessions": 3 }));
    let f = &d["footage"];
    assert_eq!(
        (
            f["clips"].clone(),
            f["analysed"].clone(),
            f["waves"].clone(),
            f["rides"].clone(),
            f["topSpeedKmh"].clone()
        ),
        (json!(3), json!(2), json!(5), json!(5), json!(31.5))
    );
    assert_eq!(
        f["maneuvers"],
        json!([["cutback", 3], ["snap", 2], ["aerial", 1]])
    );
    assert_eq!(
        d["watch"],
        json!({ "sessions": 1, "rides": 2, "distanceKm": 1.0, "topSpeedKmh": 34.5 }),
        "only the session's current detector's rides"
    );

    let r = app
        .get(&format!("{path}/{report}/html"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        r.headers[header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .contains("season-report-2026.html")
    );
    assert_eq!(
        r.headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap(),
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    let page = &r.body;
    for text in [
        "Ethan Ewing",
        "Event 200",
        "3rd",
        "4th of 6",
        "top 5",
        "cutback",
    ] {
        assert!(page.contains(text), "{text} in the page");
    }
    assert!(
        page.contains("at least") && !page.contains("<b>at least"),
        "escaped"
    );

    let r = app.get(&path).session(&coach).send().await;
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["id"], report.as_str());
    assert_eq!(items(&r)[0]["htmlUrl"], format!("{path}/{report}/html"));

    // Another period; bad periods are refused before anything is queued.
    let done = run_job_route(
        &app,
        &coach,
        &path,
        json!({ "from": "2025-01-01", "to": "2025-12-31" }),
    )
    .await;
    let r = app
        .get(&format!(
            "{path}/{}",
            done.result.unwrap().0["reportId"].as_str().unwrap()
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["document"]["competition"]["events"], 0);
    assert_eq!(r.json["document"]["training"]["attended"], 1);
    assert_eq!(r.json["document"]["footage"]["waves"], 9);
    let jobs_before = app.count("job_progress").await;
    for body in [
        json!({ "season": 1990 }),
        json!({ "season": 2026, "from": "2026-01-01", "to": "2026-02-01" }),
        json!({ "from": "2026-01-01" }),
        json!({ "from": "2026-03-01", "to": "2026-01-01" }),
        json!({ "from": "2024-01-01", "to": "2026-01-01" }),
        json!({ "colour": "blue" }),
    ] {
        let r = app
            .post(&path)
            .session(&coach)
            .json(body.clone())
            .send()
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.body);
    }
    assert_eq!(
        app.count("job_progress").await,
        jobs_before,
        "nothing queued"
    );
    assert_eq!(audit_count(&app, "report.season_requested").await, 2);
}

#[tokio::test]
async fn reports_answer_only_their_workspace_and_members_with_competition_read() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    let athlete = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Quiet" }),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/reports/season/{athlete}");
    let done = run_job_route(&app, &coach, &path, json!({})).await;
    assert_eq!(done.status, "succeeded", "{done:?}");
    let report = done.result.unwrap().0["reportId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = app
        .get(&format!("{path}/{report}"))
        .session(&coach)
        .send()
        .await;
    let d = &r.json["document"];
    assert_eq!(
        d["season"],
        chrono::Utc::now().format("%Y").to_string(),
        "this year by default"
    );
    assert_eq!(d["standings"], json!([]));
    assert_eq!(d["competition"]["results"], json!([]));

    let other = app.signup("other@example.com").await;
    for p in [
        path.clone(),
        format!("{path}/{report}"),
        format!("{path}/{report}/html"),
    ] {
        app.get(&p)
            .session(&other)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
        let r = app.get(&p).send().await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{p}");
    }
    app.post(&path)
        .session(&other)
        .json(json!({}))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .post(&format!("/api/orgs/{}/roles", coach.org_id))
        .session(&coach)
        .json(json!({ "name": "Physio", "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let physio = add_member(&app, coach.org_id, "physio@example.com", "physio").await;
    app.post(&path)
        .session(&physio)
        .json(json!({}))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.get(&format!("{path}/{report}/html"))
        .session(&physio)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    assert_eq!(
        app.get(&format!("{path}/{report}"))
            .session(&viewer)
            .send()
            .await
            .status,
        StatusCode::OK
    );
    let missing = Id::new();
    app.get(&format!("{path}/{missing}"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
