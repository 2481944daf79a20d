//! Competition: the app pointed at the fake `heatsource` and `tourindex` providers.

use super::app::TestApp;
use testkit::heatsource::FakeHeatsource;
use testkit::tourindex::FakeTourindex;

pub const HS_CLIENT_ID: &str = "hs-client";
pub const HS_CLIENT_SECRET: &str = "hs-secret";

/// The app with the heatsource provider configured (client credentials included) at a fresh
/// fake, plus `extra` variables (an empty value removes a variable).
pub async fn app_with_heatsource(extra: &[(&str, &str)]) -> (TestApp, FakeHeatsource) {
    let fake = FakeHeatsource::start(HS_CLIENT_ID, HS_CLIENT_SECRET).await;
    let base = fake.base_url();
    let mut vars = vec![
        ("HEATSOURCE_BASE_URL", base.as_str()),
        ("HEATSOURCE_CLIENT_ID", HS_CLIENT_ID),
        ("HEATSOURCE_CLIENT_SECRET", HS_CLIENT_SECRET),
        ("HEATSOURCE_TIMEOUT_MS", "300"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, fake)
}

/// Expires every cached provider answer (straight in the database), as time passing would.
pub async fn expire_provider_cache(app: &TestApp) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE provider_cache SET expires_at = $1")
            .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
    )
    .unwrap();
}

/// Enqueues a scheduled task through its cron route and waits for it to finish (a running
/// worker is needed).
pub async fn run_cron(app: &TestApp, task: &str) -> jobs::progress::Progress {
    let r = app
        .post(&format!("/api/cron/{task}"))
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::ACCEPTED, "{}", r.body);
    let id: shared::db::Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(id, |p| p.status == "succeeded" || p.status == "failed")
        .await
}

/// The app with both providers configured at fresh fakes (heatsource with client credentials,
/// the tour index following the `ct` tour), plus `extra` variables.
pub async fn app_with_providers(
    extra: &[(&str, &str)],
) -> (TestApp, FakeHeatsource, FakeTourindex) {
    let hs = FakeHeatsource::start(HS_CLIENT_ID, HS_CLIENT_SECRET).await;
    let ti = FakeTourindex::start().await;
    let (hs_base, ti_base) = (hs.base_url(), ti.base_url());
    let mut vars = vec![
        ("HEATSOURCE_BASE_URL", hs_base.as_str()),
        ("HEATSOURCE_CLIENT_ID", HS_CLIENT_ID),
        ("HEATSOURCE_CLIENT_SECRET", HS_CLIENT_SECRET),
        ("HEATSOURCE_TIMEOUT_MS", "300"),
        ("HEATSOURCE_ORGANISATIONS", "wsl"),
        ("TOURINDEX_BASE_URL", ti_base.as_str()),
        ("TOURINDEX_TIMEOUT_MS", "300"),
        ("TOURINDEX_TOURS", "ct"),
        ("TOURINDEX_RATE_PER_SEC", "1000"),
        ("HEATSOURCE_RATE_PER_SEC", "1000"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, hs, ti)
}

/// Enqueues through a member's job route and waits for the job to end; the job's progress.
pub async fn run_job_route(
    app: &TestApp,
    who: &super::app::Session,
    path: &str,
    body: serde_json::Value,
) -> jobs::progress::Progress {
    let r = app.post(path).session(who).json(body).send().await;
    assert_eq!(
        r.status,
        axum::http::StatusCode::ACCEPTED,
        "{path}: {}",
        r.body
    );
    let id: shared::db::Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(id, |p| p.status == "succeeded" || p.status == "failed")
        .await
}

/// Links roster athlete `athlete` of `org` to the heatsource profile `external_id` (straight
/// through the repo, as an import would).
pub async fn link_heatsource(app: &TestApp, org: shared::db::Id, athlete: &str, external_id: &str) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::repo::athletes::add_provider_link(
        &mut c,
        org,
        athlete.parse().unwrap(),
        "heatsource",
        external_id,
    )
    .await
    .unwrap();
}

/// Stores a heatsource event as `heatsource-sync` would (`event` in the provider's shape).
pub async fn store_heatsource_event(app: &TestApp, event: serde_json::Value) {
    let e: shared::providers::heatsource::Event = serde_json::from_value(event.clone()).unwrap();
    let mut tx = app.state.db.begin().await.unwrap();
    shared::repo::heatsource::upsert_event(
        &mut tx,
        &e.id,
        "1",
        &e.name,
        None,
        &event,
        shared::db::Ts::now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// A heat in the provider's shape: `(athlete id, name, place, total)` per surfer.
pub fn hs_heat(
    round: &str,
    start: &str,
    surfers: &[(&str, &str, Option<i64>, Option<f64>)],
) -> serde_json::Value {
    serde_json::json!({
        "round": round,
        "startTime": start,
        "result": surfers.iter().filter(|s| s.2.is_some() || s.3.is_some())
            .map(|(id, _, place, total)| serde_json::json!({ "athleteId": id, "place": place, "total": total }))
            .collect::<Vec<_>>(),
        "competitors": surfers.iter()
            .map(|(id, name, _, _)| serde_json::json!({ "athleteId": id, "athlete": { "id": id, "name": name } }))
            .collect::<Vec<_>>(),
    })
}

/// An event in the provider's shape with one division and these heats.
pub fn hs_event(
    id: &str,
    date: &str,
    division: (&str, &str),
    heats: Vec<serde_json::Value>,
) -> serde_json::Value {
    serde_json::json!({
        "id": id, "name": format!("Event {id}"), "date": format!("{date}T00:00:00Z"),
        "eventDivisions": [{ "id": format!("{id}-{}", division.0),
            "division": { "id": division.0, "name": division.1 }, "heats": heats }],
    })
}

/// Stores a competition result of a roster athlete (as a resync would).
pub async fn add_result(
    app: &TestApp,
    org: shared::db::Id,
    athlete: &str,
    event: &str,
    place: i64,
) {
    let mut tx = app.state.db.begin().await.unwrap();
    shared::repo::competition::upsert_result(
        &mut tx,
        org,
        athlete.parse().unwrap(),
        &shared::repo::competition::ResultRow {
            provider: shared::domain::competition::roster::Source::Heatsource,
            event_key: event.into(),
            division: "Men".into(),
            event_name: format!("Event {event}"),
            event_date: Some("2026-03-01".into()),
            place: Some(place),
            points: None,
        },
        shared::db::Ts::now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// `n` training sessions the athlete attended (through the API).
pub async fn attended_sessions(
    app: &TestApp,
    coach: &super::app::Session,
    athlete: &str,
    n: usize,
) {
    for i in 0..n {
        let s = super::training::new_training_session(
            app,
            coach,
            serde_json::json!({ "title": format!("Session {i}"),
                "startsAt": "2026-02-01T08:00:00Z", "endsAt": "2026-02-01T09:00:00Z" }),
        )
        .await;
        let path = format!(
            "/api/training-sessions/{}/participants",
            s["id"].as_str().unwrap()
        );
        let r = app
            .post(&path)
            .session(coach)
            .json(serde_json::json!({ "athleteId": athlete }))
            .send()
            .await;
        assert_eq!(r.status, axum::http::StatusCode::CREATED, "{}", r.body);
        let r = app
            .req(axum::http::Method::PATCH, &format!("{path}/{athlete}"))
            .session(coach)
            .json(serde_json::json!({ "status": "attended" }))
            .send()
            .await;
        assert_eq!(r.status, axum::http::StatusCode::OK, "{}", r.body);
    }
}

/// A derived wearable session of the athlete with `rides` rides (straight through the repo).
pub async fn wearable_rides(app: &TestApp, org: shared::db::Id, athlete: &str, rides: usize) {
    use shared::domain::wearable::{SessionSource, SessionStatus};
    let now = shared::db::Ts::now();
    let mut s = shared::repo::wearable::Session {
        id: shared::db::Id::new(),
        org_id: org,
        athlete_id: Some(athlete.parse().unwrap()),
        wearer_user_id: None,
        coach_user_id: None,
        training_session_id: None,
        source: SessionSource::Upload,
        status: SessionStatus::Ready,
        status_message: None,
        device: None,
        client_session_id: None,
        started_at: now,
        ended_at: Some(now),
        last_seen_at: None,
        gps_count: 0,
        hr_count: 0,
        imu_count: 0,
        stored_bytes: 0,
        upload_key: None,
        upload_format: None,
        detector_version: None,
        derived_at: None,
        summary: None,
        job_id: None,
        created_by: None,
        created_at: now,
        updated_at: now,
    };
    let mut tx = app.state.db.begin().await.unwrap();
    shared::repo::wearable::insert_session(&mut tx, &s)
        .await
        .unwrap();
    s.detector_version = Some("v-test".into());
    s.derived_at = Some(now);
    shared::repo::wearable::update_session(&mut tx, &s)
        .await
        .unwrap();
    let ride = |i: usize| shared::domain::wearable::detect::Ride {
        start_ms: i as i64 * 60_000,
        end_ms: i as i64 * 60_000 + 10_000,
        distance_m: 80.0,
        top_speed_kmh: 25.0,
        mean_speed_kmh: 18.0,
        heading_deg: None,
        shore_angle_deg: None,
    };
    let rs: Vec<_> = (0..rides).map(ride).collect();
    shared::repo::wearable::replace_rides(&mut tx, org, s.id, "v-test", &rs)
        .await
        .unwrap();
    // Rides of an older detection do not count.
    shared::repo::wearable::replace_rides(&mut tx, org, s.id, "v-old", &rs)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// The notifications of `kind` for `user`.
pub async fn notifications_of(app: &TestApp, user: shared::db::Id, kind: &str) -> i64 {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM notifications WHERE user_id = $1 AND kind = $2")
        .bind(user).bind(kind).fetch_one(&mut *c).await)
    .unwrap()
}

/// A member of `owner`'s workspace whose role (Physio) holds `athletes.read` only: no
/// competition permission.
pub async fn member_without_competition(
    app: &TestApp,
    owner: &super::app::Session,
) -> super::app::Session {
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(owner)
        .json(serde_json::json!({ "name": "Physio", "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::CREATED, "{}", r.body);
    super::accounts::add_member(app, owner.org_id, "physio@example.com", "physio").await
}

/// A heatsource circuit of `org` (as the first rankings import makes it), with a ranking line
/// per `(division id, division name, athlete id, athlete name, place)`; its id.
pub async fn circuit_with_rankings(
    app: &TestApp,
    org: shared::db::Id,
    lines: &[(&str, &str, &str, &str, i64)],
) -> shared::db::Id {
    let now = shared::db::Ts::now();
    let mut tx = app.state.db.begin().await.unwrap();
    let (c, _) = shared::repo::competition::upsert_circuit(
        &mut tx,
        org,
        shared::domain::competition::roster::Source::Heatsource,
        "100",
        "Tour",
        None,
        now,
    )
    .await
    .unwrap();
    for (division_id, division_name, athlete, name, place) in lines {
        let r = shared::repo::competition::RankingRow {
            division_id: division_id.to_string(),
            division_name: division_name.to_string(),
            athlete_external_id: athlete.to_string(),
            athlete_name: name.to_string(),
            place: Some(*place),
            points: None,
        };
        shared::repo::competition::upsert_ranking(&mut tx, org, c.id, &r, now)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    c.id
}

/// The app with both forecast providers at fresh fakes: the spot provider (primary forecast,
/// with a key) and the Open-Meteo fallback (its marine and weather APIs on one fake), paced
/// fast enough for tests, plus `extra` variables (an empty value removes a variable).
pub async fn app_with_forecasts(
    extra: &[(&str, &str)],
) -> (
    TestApp,
    testkit::spotsource::FakeSpotsource,
    testkit::openmeteo::FakeOpenMeteo,
) {
    let sp = testkit::spotsource::FakeSpotsource::start(Some("spot-key")).await;
    let om = testkit::openmeteo::FakeOpenMeteo::start().await;
    let (sp_base, om_base) = (sp.base_url(), om.base_url());
    let mut vars = vec![
        ("SPOTSOURCE_BASE_URL", sp_base.as_str()),
        ("SPOTSOURCE_API_KEY", "spot-key"),
        ("SPOTSOURCE_TIMEOUT_MS", "2000"),
        ("OPENMETEO_MARINE_URL", om_base.as_str()),
        ("OPENMETEO_WEATHER_URL", om_base.as_str()),
        ("OPENMETEO_TIMEOUT_MS", "2000"),
        ("OPENMETEO_RATE_PER_SEC", "10000"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, sp, om)
}

/// The hand-worked season of `competition::strategy::season` as a circuit of a coach's
/// workspace: the organisations synced, series 100's rankings imported as the circuit, Ethan
/// Ewing (heatsource a3) imported into the roster and the standings imported. The worker runs;
/// the circuit keeps the provider's rules until [`Season::set_rules`].
pub struct Season {
    pub app: TestApp,
    pub _hs: FakeHeatsource,
    pub _ti: FakeTourindex,
    pub _worker: worker::Running,
    pub coach: super::app::Session,
    pub circuit: String,
    pub ethan: String,
}

pub async fn with_season() -> Season {
    let (app, hs, ti) = app_with_providers(&[]).await;
    crate::competition::strategy::season(&hs);
    let coach = app.signup("coach@example.com").await;
    let worker = app.start_worker(&[]).await;
    assert_eq!(
        run_cron(&app, "heatsource-orgs-sync").await.status,
        "succeeded"
    );
    let r = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        serde_json::json!({ "seriesId": "100" }),
    )
    .await;
    let circuit = r.result.unwrap().0["circuitId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(serde_json::json!({ "source": "heatsource", "id": "a3" }))
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::CREATED, "{}", r.body);
    let ethan = r.json["athleteId"].as_str().unwrap().to_string();
    run_job_route(
        &app,
        &coach,
        &format!("/api/heatsource/circuits/{circuit}/import-standings"),
        serde_json::json!({}),
    )
    .await;
    Season {
        app,
        _hs: hs,
        _ti: ti,
        _worker: worker,
        coach,
        circuit,
        ethan,
    }
}

impl Season {
    /// The season's own rules: best 2 of 1000/800/650/550/450 count, places 1 and 2 qualify.
    /// The circuit as answered.
    pub async fn set_rules(&self) -> super::app::Resp {
        let r = self
            .app
            .req(
                axum::http::Method::PATCH,
                &format!("/api/circuits/{}", self.circuit),
            )
            .session(&self.coach)
            .json(
                serde_json::json!({ "resultsToCount": 2, "qualificationPlace": 2,
                          "pointsTable": [1000, 800, 650, 550, 450] }),
            )
            .send()
            .await;
        assert_eq!(r.status, axum::http::StatusCode::OK, "{}", r.body);
        r
    }
}

/// A member of `owner`'s workspace ("Scout") holding only `competition.read` and
/// `athletes.read`.
pub async fn reader(app: &TestApp, owner: &super::app::Session) -> super::app::Session {
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(owner)
        .json(serde_json::json!({ "name": "Scout", "permissions": ["competition.read", "athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::CREATED, "{}", r.body);
    super::accounts::add_member(app, owner.org_id, "scout@example.com", "scout").await
}
