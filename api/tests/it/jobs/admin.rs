//! The platform admin's view of the job system: `GET /api/admin/jobs` (filters, pagination)
//! and `GET /api/admin/queues` (counts per queue), admins only, mirrored for the phone.

use crate::support::*;
use axum::http::StatusCode;
use jobs::diagnostics::Probe;
use jobs::progress;
use serde_json::{Value, json};
use shared::db::{Id, Ts};
use shared::job::{JobSpec, Owner, Queue};

/// A job of the first kind that runs on `queue`, enqueued for `owner` and committed.
async fn enqueue_on(app: &TestApp, queue: Queue, owner: Owner) -> Id {
    let info = worker::handlers::registry()
        .jobs()
        .iter()
        .find(|k| k.queue == queue)
        .expect("a job kind on every queue");
    let spec = JobSpec {
        kind: info.kind.to_string(),
        queue,
        max_attempts: 3,
        idempotency_key: None,
        payload: json!({}),
    };
    let mut tx = app.state.db.begin().await.unwrap();
    let e = shared::job::enqueue_spec(&mut tx, &spec, owner, Ts::now())
        .await
        .unwrap();
    tx.commit().await.unwrap();
    e.id
}

async fn set_created(app: &TestApp, id: Id, at: Ts) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE job_progress SET created_at = $1 WHERE id = $2")
            .bind(at)
            .bind(id)
    )
    .unwrap();
}

fn ts(s: &str) -> Ts {
    shared::times::parse_rfc3339(s).unwrap()
}

fn ids(r: &Resp) -> Vec<Id> {
    items(r)
        .iter()
        .map(|j| j["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// The (field, code) pairs of a validation error.
fn field_codes(r: &Resp) -> Vec<(String, String)> {
    r.json["error"]["details"]["fields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    (
                        f["field"].as_str().unwrap().to_string(),
                        f["code"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn admin_jobs_lists_every_job_newest_first_with_its_owner() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let old = enqueue_probe(&app, Probe::default(), owner_of(&coach))
        .await
        .id;
    set_created(&app, old, ts("2026-01-01T00:00:00Z")).await;
    let new = enqueue_on(&app, Queue::Notify, Owner::default()).await;
    let r = app.get("/api/admin/jobs").session(&admin).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(ids(&r), vec![new, old]);
    let j = &items(&r)[1];
    assert_eq!(j["kind"], "diagnostics.probe");
    assert_eq!(j["queue"], "default");
    assert_eq!(j["status"], "queued");
    assert_eq!(j["orgId"], json!(coach.org_id));
    assert_eq!(j["createdBy"], json!(coach.user_id));
    assert_eq!(j["createdAt"], ts("2026-01-01T00:00:00Z").to_rfc3339());
    assert!(j.get("payload").is_none(), "the list leaves payloads out");
    assert_eq!(items(&r)[0]["queue"], "notify");
    assert_eq!(items(&r)[0]["orgId"], Value::Null);
    assert_eq!(r.json["nextOffset"], Value::Null);
}

#[tokio::test]
async fn admin_jobs_filters_by_status_kind_queue_owner_and_time() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let a = app.signup("a@example.com").await;
    let b = app.signup("b@example.com").await;
    let a_probe = enqueue_probe(&app, Probe::default(), owner_of(&a)).await.id;
    let b_probe = enqueue_probe(&app, Probe::default(), owner_of(&b)).await.id;
    // b's user acting in a's workspace: the owner filters combine.
    let b_in_a = enqueue_probe(
        &app,
        Probe::default(),
        Owner {
            org_id: Some(a.org_id),
            user_id: Some(b.user_id),
        },
    )
    .await
    .id;
    let media = enqueue_on(&app, Queue::Media, Owner::default()).await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        progress::fail(&mut c, b_probe, "boom").await.unwrap();
    }
    set_created(&app, a_probe, ts("2026-03-01T10:00:00Z")).await;
    set_created(&app, b_probe, ts("2026-03-02T10:00:00Z")).await;
    set_created(&app, b_in_a, ts("2026-03-03T10:00:00Z")).await;
    set_created(&app, media, ts("2026-03-04T10:00:00Z")).await;
    let media_kind = worker::handlers::registry()
        .jobs()
        .iter()
        .find(|k| k.queue == Queue::Media)
        .unwrap()
        .kind;

    let list = |q: String| {
        let app = &app;
        let admin = &admin;
        async move {
            let r = app
                .get(&format!("/api/admin/jobs?{q}"))
                .session(admin)
                .send()
                .await;
            assert_eq!(r.status, StatusCode::OK, "{q}: {}", r.body);
            ids(&r)
        }
    };
    assert_eq!(list("status=failed".into()).await, vec![b_probe]);
    assert_eq!(
        list("status=queued".into()).await,
        vec![media, b_in_a, a_probe]
    );
    assert_eq!(list(format!("kind={media_kind}")).await, vec![media]);
    assert_eq!(
        list("kind=diagnostics.probe&queue=default".into()).await,
        vec![b_in_a, b_probe, a_probe]
    );
    assert_eq!(list("queue=media".into()).await, vec![media]);
    assert!(list("queue=notify".into()).await.is_empty());
    assert_eq!(
        list(format!("orgId={}", a.org_id)).await,
        vec![b_in_a, a_probe]
    );
    assert_eq!(
        list(format!("userId={}", b.user_id)).await,
        vec![b_in_a, b_probe]
    );
    assert_eq!(
        list(format!("orgId={}&userId={}", a.org_id, b.user_id)).await,
        vec![b_in_a]
    );
    // from is inclusive, to exclusive.
    assert_eq!(
        list("from=2026-03-02T10:00:00Z&to=2026-03-04T10:00:00Z".into()).await,
        vec![b_in_a, b_probe]
    );
    assert_eq!(
        list("from=2026-03-03T00:00:00%2B02:00".into()).await,
        vec![media, b_in_a],
        "an offset is read as the instant it names"
    );
    assert_eq!(
        list(format!(
            "status=queued&orgId={}&to=2026-03-02T00:00:00Z",
            a.org_id
        ))
        .await,
        vec![a_probe]
    );
}

#[tokio::test]
async fn admin_jobs_pages_are_stable_when_jobs_share_a_creation_time() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let at = ts("2026-05-05T05:05:05Z");
    let mut all = vec![];
    for _ in 0..5 {
        let id = enqueue_probe(&app, Probe::default(), Owner::default())
            .await
            .id;
        set_created(&app, id, at).await;
        all.push(id);
    }
    let mut seen = vec![];
    let mut offset = Some(0);
    while let Some(o) = offset {
        let r = app
            .get(&format!("/api/admin/jobs?limit=2&offset={o}"))
            .session(&admin)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert!(ids(&r).len() <= 2);
        seen.extend(ids(&r));
        offset = r.json["nextOffset"].as_i64();
    }
    assert_eq!(seen.len(), 5, "no job twice, none skipped: {seen:?}");
    let mut sorted = seen.clone();
    sorted.sort_by_key(|id| std::cmp::Reverse(id.0));
    assert_eq!(seen, sorted, "ties are ordered by id, newest first");
    all.sort();
    seen.sort();
    assert_eq!(seen, all);
    // The same page twice is the same page.
    let p1 = app
        .get("/api/admin/jobs?limit=2&offset=2")
        .session(&admin)
        .send()
        .await;
    let p2 = app
        .get("/api/admin/jobs?limit=2&offset=2")
        .session(&admin)
        .send()
        .await;
    assert_eq!(ids(&p1), ids(&p2));
}

#[tokio::test]
async fn admin_jobs_refuses_bad_filters_naming_the_field() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    enqueue_probe(&app, Probe::default(), Owner::default()).await;
    for (q, field, code) in [
        ("status=done", "status", "invalid_choice"),
        ("queue=fast", "queue", "invalid_choice"),
        ("kind=no.such.kind", "kind", "invalid_choice"),
        ("from=1800-01-01T00:00:00Z", "from", "out_of_range"),
        ("to=%2B10000-01-01T00:00:00Z", "to", "out_of_range"),
        (
            "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
            "to",
            "out_of_range",
        ),
        ("limit=0", "limit", "out_of_range"),
        ("limit=201", "limit", "out_of_range"),
    ] {
        let r = app
            .get(&format!("/api/admin/jobs?{q}"))
            .session(&admin)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(
            field_codes(&r),
            vec![(field.to_string(), code.to_string())],
            "{q}"
        );
    }
    // Every bad field at once.
    let r = app
        .get("/api/admin/jobs?status=x&queue=y&kind=z")
        .session(&admin)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), vec!["status", "queue", "kind"]);
    // Values that do not parse at all.
    for (q, field) in [
        ("orgId=not-a-uuid", "orgId"),
        ("userId=42", "userId"),
        ("from=yesterday", "from"),
    ] {
        let r = app
            .get(&format!("/api/admin/jobs?{q}"))
            .session(&admin)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "invalid_query");
        assert_eq!(r.fields(), vec![field], "{q}");
    }
}

#[tokio::test]
async fn admin_job_views_are_for_platform_admins_and_mirrored_for_the_phone() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    enqueue_probe(&app, Probe::default(), owner_of(&coach)).await;
    for path in ["/api/admin/jobs", "/api/admin/queues"] {
        app.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "admin_required");
        app.get(path)
            .send()
            .await
            .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    }
    let (coach_token, _) = app.phone_tokens("coach@example.com").await;
    let (admin_token, _) = app.phone_tokens("admin@example.com").await;
    for path in ["/api/mobile/admin/jobs", "/api/mobile/admin/queues"] {
        app.get(path)
            .bearer(&coach_token)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "admin_required");
        app.get(path)
            .session(&admin)
            .send()
            .await
            .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
        let r = app.get(path).bearer(&admin_token).send().await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
    }
    let r = app
        .get("/api/mobile/admin/jobs?status=queued")
        .bearer(&admin_token)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
}

#[tokio::test]
async fn admin_queues_counts_waiting_delayed_running_and_recent_failures_per_queue() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let now = Ts::now();
    // default: two waiting (the older due 10 minutes ago), one delayed, one running, one failed
    // now and one failed two hours ago (not counted).
    let waiting_old = enqueue_probe(&app, Probe::default(), Owner::default())
        .await
        .id;
    enqueue_probe(&app, Probe::default(), Owner::default()).await;
    let mut tx = app.state.db.begin().await.unwrap();
    shared::job::enqueue_at(
        &mut tx,
        &Probe::default(),
        Owner::default(),
        now.plus(chrono::Duration::hours(1)),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let running = enqueue_probe(&app, Probe::default(), Owner::default())
        .await
        .id;
    let failed = enqueue_probe(&app, Probe::default(), Owner::default())
        .await
        .id;
    let failed_long_ago = enqueue_probe(&app, Probe::default(), Owner::default())
        .await
        .id;
    // media: one failed now.
    let media_failed = enqueue_on(&app, Queue::Media, Owner::default()).await;
    let ten_minutes_ago = now.minus(chrono::Duration::minutes(10));
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE job_progress SET run_after = $1 WHERE id = $2")
                .bind(ten_minutes_ago)
                .bind(waiting_old)
        )
        .unwrap();
        // Running as its worker marks it (its queue task stays put: no worker here).
        shared::execute!(
            &mut c,
            sqlx::query(
                "UPDATE job_progress SET status = 'running', attempts = 1, started_at = $1 WHERE id = $2"
            )
            .bind(now)
            .bind(running)
        )
        .unwrap();
        for id in [failed, failed_long_ago, media_failed] {
            progress::fail(&mut c, id, "boom").await.unwrap();
        }
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE job_progress SET finished_at = $1 WHERE id = $2")
                .bind(now.minus(chrono::Duration::hours(2)))
                .bind(failed_long_ago)
        )
        .unwrap();
    }
    let r = app.get("/api/admin/queues").session(&admin).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let queues = r.json["queues"].as_array().unwrap();
    let names: Vec<&str> = queues
        .iter()
        .map(|q| q["queue"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["default", "providers", "media", "notify"]);
    let q = &queues[0];
    assert_eq!(
        (
            &q["waiting"],
            &q["delayed"],
            &q["running"],
            &q["failedLastHour"]
        ),
        (&json!(2), &json!(1), &json!(1), &json!(1)),
        "{q}"
    );
    assert_eq!(
        q["oldestWaitingSince"].as_str().unwrap(),
        ten_minutes_ago.to_rfc3339()
    );
    let secs = q["oldestWaitingSecs"].as_f64().unwrap();
    assert!((600.0..660.0).contains(&secs), "{secs}");
    let m = &queues[2];
    assert_eq!(m["failedLastHour"], 1);
    assert_eq!(m["waiting"], 0);
    assert_eq!(m["oldestWaitingSince"], Value::Null);
    assert_eq!(m["oldestWaitingSecs"], 0.0);
    let idle = &queues[1];
    assert_eq!(
        (&idle["waiting"], &idle["running"], &idle["failedLastHour"]),
        (&json!(0), &json!(0), &json!(0))
    );
    // A claimed job is running before its worker marks it (the claim leaves its row `queued`).
    let mut c = app.state.db.acquire().await.unwrap();
    let t = jobs::queue::claim(&mut c, Queue::Default, "w1", 1, Ts::now())
        .await
        .unwrap();
    assert_eq!(t[0].job_id, waiting_old);
    drop(c);
    let r = app.get("/api/admin/queues").session(&admin).send().await;
    let q = &r.json["queues"][0];
    assert_eq!(
        (&q["waiting"], &q["delayed"], &q["running"]),
        (&json!(1), &json!(1), &json!(2)),
        "{q}"
    );
}
