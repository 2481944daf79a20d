use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

const GPX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<gpx creator="Garmin Connect" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
  <trk><trkseg>
    <trkpt lat="-33.8915" lon="151.2767"><time>2026-01-01T06:00:00Z</time><extensions><ns3:TrackPointExtension><ns3:hr>130</ns3:hr></ns3:TrackPointExtension></extensions></trkpt>
    <trkpt lat="-33.8916" lon="151.2767"><time>2026-01-01T06:00:01Z</time><extensions><ns3:TrackPointExtension><ns3:hr>131</ns3:hr></ns3:TrackPointExtension></extensions></trkpt>
  </trkseg></trk>
</gpx>"#;

#[tokio::test]
async fn a_gpx_import_keeps_garmin_heart_rate() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .raw("application/gpx+xml", GPX.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["session"]["samples"]["gps"], 2);
    assert_eq!(r.json["session"]["samples"]["hr"], 2);
    assert_eq!(r.json["session"]["source"], "gpx");
}

#[tokio::test]
async fn malformed_gpx_is_refused_with_its_line_and_nothing_is_kept() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let bad = GPX.replace(
        "<time>2026-01-01T06:00:01Z</time>",
        "<time>2026-01-01T06:00:01Z</tme>",
    );
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .raw("application/gpx+xml", bad.as_bytes())
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "gpx_invalid");
    assert_eq!(r.json["error"]["details"]["line"], 5, "{}", r.body);
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .raw("application/gpx+xml", b"not xml")
        .send()
        .await;
    r.assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "upload_not_gpx");
    assert_eq!(app.count("wearable_sessions").await, 0);
    assert_eq!(app.count("wearable_chunks").await, 0);
}

#[tokio::test]
async fn a_bulk_sample_file_goes_through_a_signed_url_and_a_job() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post("/api/wearable/upload-url")
        .session(&ca.athlete)
        .json(json!({ "format": "csv" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let upload = r.json["uploadId"].as_str().unwrap().to_string();
    let url = r.json["url"]
        .as_str()
        .unwrap()
        .replace("http://app.test", "");
    // Not there yet: 409, nothing changes.
    let r = app
        .post("/api/wearable/sessions")
        .session(&ca.athlete)
        .json(json!({ "uploadId": upload }))
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "upload_missing");
    let s = synth(51, 300.0, 10);
    let mut file = String::from("# generated\n");
    for f in &s.samples.gps {
        file.push_str(&format!(
            "gps,{},{},{},{},{}\n",
            f.t,
            f.lat,
            f.lon,
            f.speed.unwrap(),
            f.accuracy.unwrap()
        ));
    }
    for h in &s.samples.hr {
        file.push_str(&format!("hr,{},{}\n", h.t, h.bpm));
    }
    for m in &s.samples.imu {
        file.push_str(&format!("imu,{},{},{},{}\n", m.t, m.ax, m.ay, m.az));
    }
    let r = app
        .req(axum::http::Method::PUT, &url)
        .raw("text/csv", file.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post("/api/wearable/sessions")
        .session(&ca.athlete)
        .json(json!({ "uploadId": upload }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .get(&format!("/api/wearable/sessions/{upload}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "ready", "{}", r.body);
    assert_eq!(r.json["samples"]["imu"], s.samples.imu.len());
}

#[tokio::test]
async fn a_bad_sample_file_fails_the_session_with_its_line() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post("/api/wearable/upload-url")
        .session(&ca.coach)
        .json(json!({ "format": "csv", "athleteId": ca.athlete_id }))
        .send()
        .await;
    let upload = r.json["uploadId"].as_str().unwrap().to_string();
    let url = r.json["url"]
        .as_str()
        .unwrap()
        .replace("http://app.test", "");
    let r = app
        .req(axum::http::Method::PUT, &url)
        .raw("text/csv", b"gps,1767247200000,-33.9,151.2,,\ngps,oops\n")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let r = app
        .post("/api/wearable/sessions")
        .session(&ca.coach)
        .json(json!({ "uploadId": upload, "athleteId": ca.athlete_id }))
        .send()
        .await;
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "failed", "{p:?}");
    let r = app
        .get(&format!("/api/wearable/sessions/{upload}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "failed");
    assert!(
        r.json["statusMessage"]
            .as_str()
            .unwrap()
            .starts_with("line 2"),
        "{}",
        r.body
    );
    assert_eq!(app.count("wearable_chunks").await, 0);
    let r = app
        .post("/api/wearable/upload-url")
        .session(&ca.coach)
        .json(json!({ "format": "fit", "athleteId": ca.athlete_id }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}
