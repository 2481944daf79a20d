//! Coach-corrected maneuver labels beside the backend's predictions, and their export as a
//! training set.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::db::Id;

/// Gives the clip the stats a finished analysis would: two predicted maneuvers in 20 s.
async fn with_predictions(app: &TestApp, clip: Id) {
    let stats = json!({
        "duration_ms": 20_000,
        "wave_count": 1,
        "maneuvers": [
            { "type": "cutback", "at_ms": 4000, "confidence": 0.91 },
            { "type": "floater", "at_ms": 9000, "confidence": 0.42 }
        ]
    });
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET stats = $1, status = 'processed' WHERE id = $2")
            .bind(sqlx::types::Json(stats))
            .bind(clip)
    )
    .unwrap();
}

#[tokio::test]
async fn coaches_confirm_correct_and_add_maneuvers_and_export_them() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (_, clip) = uploaded_clip(&app, &coach, b"bytes").await;
    with_predictions(&app, clip).await;
    let path = format!("/api/clips/{clip}/maneuvers");

    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["predictions"][1]["type"], "floater");
    assert_eq!(r.json["labels"].as_array().unwrap().len(), 0);

    // A confirmed prediction gets a window around its instant; a correction keeps the prediction.
    let ok = app
        .post(&path)
        .session(&coach)
        .json(json!({ "predictionIndex": 0, "verdict": "confirmed" }))
        .send()
        .await;
    assert_eq!(ok.status, StatusCode::CREATED, "{}", ok.body);
    assert_eq!(
        (ok.json["startMs"].as_i64(), ok.json["endMs"].as_i64()),
        (Some(3000), Some(5000))
    );
    assert_eq!(ok.json["predictedType"], "cutback");
    let fix = app
        .post(&path)
        .session(&coach)
        .json(json!({ "predictionIndex": 1, "verdict": "corrected", "correctedType": "Reentry" }))
        .send()
        .await;
    assert_eq!(fix.status, StatusCode::CREATED, "{}", fix.body);
    assert_eq!(fix.json["correctedType"], "reentry");
    assert_eq!(fix.json["predictedType"], "floater");
    let added = app
        .post(&path)
        .session(&coach)
        .json(json!({ "verdict": "added", "correctedType": "aerial", "startMs": 15000, "endMs": 16500, "note": "missed it" }))
        .send()
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);

    // A second verdict on the same prediction is a conflict; bad input names its fields.
    app.post(&path)
        .session(&coach)
        .json(json!({ "predictionIndex": 0, "verdict": "rejected" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "label_exists");
    let bad = app
        .post(&path)
        .session(&coach)
        .json(json!({ "verdict": "added", "correctedType": "no spaces!", "startMs": 30000, "endMs": 29000 }))
        .send()
        .await;
    bad.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let fields = bad.fields();
    assert!(
        fields.contains(&"correctedType".to_string()) && fields.contains(&"endMs".to_string()),
        "{fields:?}"
    );
    app.post(&path)
        .session(&coach)
        .json(json!({ "predictionIndex": 7, "verdict": "confirmed" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // PATCH changes the verdict and records who; the prediction stays as the model gave it.
    let label = ok.json["id"].as_str().unwrap().to_string();
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "labelId": label, "verdict": "rejected" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["verdict"], "rejected");
    assert_eq!(r.json["predictedType"], "cutback");
    assert_eq!(r.json["labelledBy"], coach.user_id.to_string());

    // Viewers read but do not label; another workspace sees nothing.
    app.post(&path)
        .session(&viewer)
        .json(json!({ "verdict": "added", "correctedType": "aerial", "startMs": 1, "endMs": 2 }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.get(&path)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::PATCH, &path)
        .session(&other)
        .json(json!({ "labelId": label, "verdict": "confirmed" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("clip_labels").await, 3);

    // The export: one row per label, with what was predicted and what the coach settled on.
    let jsonl = app
        .get("/api/maneuver-labels/export?format=jsonl")
        .session(&viewer)
        .send()
        .await;
    assert_eq!(jsonl.status, StatusCode::OK);
    let rows: Vec<serde_json::Value> = jsonl
        .body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    let by_verdict = |v: &str| rows.iter().find(|r| r["verdict"] == v).unwrap().clone();
    assert_eq!(
        by_verdict("rejected")["label_type"],
        serde_json::Value::Null
    );
    assert_eq!(by_verdict("corrected")["label_type"], "reentry");
    assert_eq!(by_verdict("corrected")["predicted_type"], "floater");
    assert_eq!(by_verdict("added")["start_ms"], 15000);
    assert!(rows.iter().all(|r| r["clip_id"] == clip.to_string()));
    let csv = app
        .get("/api/maneuver-labels/export?format=csv")
        .session(&coach)
        .send()
        .await;
    assert!(
        csv.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let mut lines = csv.body.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("clip_id,label_id,start_ms,end_ms,predicted_type")
    );
    assert_eq!(lines.count(), 3);
    let empty = app
        .get("/api/maneuver-labels/export?format=jsonl")
        .session(&other)
        .send()
        .await;
    assert_eq!(empty.body, "", "another workspace's export is empty");
    app.get("/api/maneuver-labels/export?format=xml")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
}
