//! CSV roster imports: validation, dry runs, duplicates, and the background job.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

const ROSTER: &str = "first_name,last_name,email,birth_date,stance,level\n\
Kai,Lenny,kai@example.com,1992-10-06,regular,pro\n\
Mia,Silva,,2014-03-02,goofy,beginner\n\
Leo,Costa,leo@example.com,,,\n";

#[tokio::test]
async fn import_reports_every_bad_row_with_its_line_and_writes_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let bad = "First Name,Last Name,Email,DOB,Stance\n\
Kai,Lenny,kai@example.com,1992-10-06,regular\n\
,Silva,,2014-03-02,goofy\n\
Leo,Costa,not-an-email,2099-01-01,\n\
Ana,Reis,,,switch\n";
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", bad.as_bytes())
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let d = &r.json["error"]["details"];
    assert_eq!(d["committed"], false);
    assert_eq!(d["mode"], "all_or_nothing");
    assert_eq!(d["rows"], 4);
    let errs = r.import_errors();
    assert_eq!(
        errs,
        [
            (3, "first_name".into()),
            (4, "email".into()),
            (4, "birth_date".into()),
            (5, "stance".into())
        ]
    );
    assert_eq!(app.count("athletes").await, 0, "nothing written");
    assert_eq!(app.count("audit_log").await, 1, "only the signup");
    // Missing required columns, wrong media type.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", b"name,email\nKai,k@example.com\n")
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    assert_eq!(r.json["error"]["details"]["errors"][0]["line"], 1);
    app.post("/api/athletes/import")
        .session(&coach)
        .json(json!({}))
        .send()
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    app.post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", b"")
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    app.post("/api/athletes/import")
        .session(&viewer)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("athletes").await, 0);
}

#[tokio::test]
async fn import_dry_runs_deduplicates_and_is_idempotent() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Leo", "lastName": "Costa", "email": "LEO@example.com" }),
    )
    .await;
    let r = app
        .post("/api/athletes/import?dryRun=true")
        .session(&coach)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (
            r.json["dryRun"].clone(),
            r.json["committed"].clone(),
            r.json["created"].clone(),
            r.json["duplicates"].clone()
        ),
        (json!(true), json!(false), json!(2), json!(1))
    );
    assert_eq!(app.count("athletes").await, 1, "a dry run writes nothing");

    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv; charset=utf-8", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["committed"], true);
    assert_eq!(r.json["created"], 2);
    assert_eq!(r.json["duplicateRows"][0]["line"], 4);
    assert_eq!(app.count("athletes").await, 3);
    // The same file again: everything is a duplicate, nothing is created.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["created"], 0);
    assert_eq!(r.json["duplicates"], 3);
    assert_eq!(app.count("athletes").await, 3);
    // Repeats inside one file are duplicates of the earlier line.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw(
            "text/csv",
            b"first_name,last_name,email\nA,One,a1@example.com\nA,Again,A1@example.com\n",
        )
        .send()
        .await;
    assert_eq!(r.json["created"], 1);
    assert_eq!(r.json["duplicateRows"][0]["sameAsLine"], 2);
}

#[tokio::test]
async fn large_imports_run_as_a_job_with_progress() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let mut csv = String::from("first_name,last_name,email\n");
    for i in 0..8000 {
        csv.push_str(&format!("Surfer,Number{i},surfer{i}@example.com\n"));
    }
    assert!(csv.len() > api::areas::athletes::import::SYNC_MAX_BYTES);
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", csv.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    // The same file while the first is queued is the same job.
    let r2 = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", csv.as_bytes())
        .send()
        .await;
    assert_eq!(r2.json["jobId"], r.json["jobId"]);
    assert_eq!(r2.json["existing"], true);
    assert_eq!(app.count("import_uploads").await, 1);
    let w = app.start_worker(&[]).await;
    let p = app
        .wait_job(job, |p| p.status == "succeeded" || p.status == "failed")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.percent, Some(100));
    let res = p.result.unwrap().0;
    assert_eq!(res["created"], 8000);
    assert_eq!(res["committed"], true);
    assert_eq!(app.count("athletes").await, 8000);
    assert_eq!(app.count("import_uploads").await, 0);
    let r = app
        .get(&format!("/api/jobs/{job}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["result"]["created"], 8000);
    // A small file can ask for the background too; the second run finds only duplicates.
    let r = app
        .post("/api/athletes/import?background=true")
        .session(&coach)
        .raw(
            "text/csv",
            b"first_name,last_name,email\nSurfer,Number1,surfer1@example.com\n",
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app.wait_job(job, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["duplicates"], 1);
    w.shutdown().await;
}

/// The README's import benchmark: a 100,000-row roster through the API and a worker (staged
/// upload, `athletes.import` job, parse, validate, deduplicate, insert). Run it with
/// `cargo test -p api --test it -- --ignored bench_import --nocapture` (add
/// `TEST_DATABASE_URL=…` for PostgreSQL).
#[tokio::test]
#[ignore]
async fn bench_import_100k_rows() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let rows: usize = std::env::var("BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut csv = String::from("first_name,last_name,email,birth_date,stance,level\n");
    for i in 0..rows {
        csv.push_str(&format!(
            "Surfer,Number{i},surfer{i}@example.com,{}-0{}-1{},{},{}\n",
            1980 + i % 30,
            1 + i % 9,
            i % 10,
            ["regular", "goofy"][i % 2],
            ["beginner", "intermediate", "advanced", "pro"][i % 4]
        ));
    }
    let w = app.start_worker(&[]).await;
    for round in ["first", "again (all duplicates)"] {
        let t = std::time::Instant::now();
        let r = app
            .post("/api/athletes/import")
            .session(&coach)
            .raw("text/csv", csv.as_bytes())
            .send()
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
        let p = loop {
            let mut c = app.state.db.acquire().await.unwrap();
            let p = jobs::progress::get(&mut c, job).await.unwrap().unwrap();
            if p.status == "succeeded" || p.status == "failed" {
                break p;
            }
            drop(c);
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(p.status, "succeeded", "{p:?}");
        let res = p.result.unwrap().0;
        println!(
            "BENCH {} {round}: {} bytes, {rows} rows in {secs:.2} s = {:.0} rows/s (created {}, duplicates {})",
            if app.tdb.is_postgres() {
                "postgres"
            } else {
                "sqlite"
            },
            csv.len(),
            rows as f64 / secs,
            res["created"],
            res["duplicates"]
        );
    }
    assert_eq!(app.count("athletes").await, rows as i64);
    w.shutdown().await;
}

/// Issue 42: an import's outcome is recorded in the transaction that commits its rows, so a
/// worker cut off between that commit and its report cannot leave the job to be run again,
/// find its file gone and be reported failed while its athletes are there.
#[tokio::test]
async fn a_staged_import_that_committed_is_succeeded_even_if_run_again() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .post("/api/athletes/import?background=true")
        .session(&coach)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let queued = {
        let mut c = app.state.db.acquire().await.unwrap();
        jobs::progress::get(&mut c, job).await.unwrap().unwrap()
    };
    // The handler as a worker runs it, without the queue's ack: as if the worker then vanished.
    let deps = app.worker_deps(&[]).await;
    let ctx = worker::handlers::Ctx {
        deps,
        job_id: job,
        org_id: queued.org_id,
        attempt: 1,
        max_attempts: 3,
    };
    let runners = worker::handlers::Runners::new();
    let first = runners
        .dispatch(&ctx, &queued.kind, queued.payload.0.clone())
        .await
        .expect("the import runs");
    assert_eq!(first["created"], 3);
    let p = {
        let mut c = app.state.db.acquire().await.unwrap();
        jobs::progress::get(&mut c, job).await.unwrap().unwrap()
    };
    assert_eq!(p.status, "succeeded", "recorded with the commit: {p:?}");
    assert_eq!(p.result.unwrap().0, first);
    // Run again (a rescue after a lapsed lease): the same outcome, nothing imported twice.
    let ctx = worker::handlers::Ctx { attempt: 2, ..ctx };
    let second = runners
        .dispatch(&ctx, &queued.kind, queued.payload.0)
        .await
        .expect("a committed import is a success when run again");
    assert_eq!(second, first);
    assert_eq!(app.count("athletes").await, 3);
}
