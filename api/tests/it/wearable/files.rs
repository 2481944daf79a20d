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
        .json(json!({ "format": "kml", "athleteId": ca.athlete_id }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

/// Issue 40: a GPS-only watch's GPX (the evaluation's simulator: a point break at 1 Hz, gaps,
/// heart rate under Garmin Connect's or the plain prefix) imported as a client would; the
/// session read gives the same rides the detector finds in memory, each with its duration,
/// distance, speeds and direction to the shore; the export carries them; rederive keeps them.
#[tokio::test]
async fn an_imported_watch_session_reads_its_rides_with_speeds_and_direction() {
    use shared::domain::wearable::{detect, eval};
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    // The first of a few reef sessions whose track shows the shore side (the detector leaves
    // the direction out when it cannot tell; docs/wearable.md).
    let mut found = None;
    for seed in 4242..4252 {
        let rec = eval::sim::record(seed, eval::sim::Break::Reef, eval::sim::Sampling::Hz1);
        let d = detect::detect(&eval::import(&rec.gpx).await.unwrap(), true);
        if d.shore_bearing_deg.is_some() && !d.rides.is_empty() {
            found = Some((rec, d));
            break;
        }
    }
    let (rec, expected) = found.expect("a session with a shore side");
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .raw("application/gpx+xml", rec.gpx.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.json["session"]["id"].as_str().unwrap().to_string();
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["detectorVersion"], detect::VERSION, "{}", r.body);
    let rides = r.json["rides"].as_array().unwrap();
    assert_eq!(rides.len(), expected.rides.len());
    for (got, want) in rides.iter().zip(&expected.rides) {
        let dur = got["durationS"].as_f64().unwrap();
        assert!(
            (dur - (want.end_ms - want.start_ms) as f64 / 1000.0).abs() < 0.11,
            "{got}"
        );
        assert_eq!(got["distanceM"].as_f64(), Some(want.distance_m));
        assert_eq!(got["topSpeedKmh"].as_f64(), Some(want.top_speed_kmh));
        assert_eq!(got["meanSpeedKmh"].as_f64(), Some(want.mean_speed_kmh));
        assert!(want.top_speed_kmh >= want.mean_speed_kmh);
        assert_eq!(got["shoreAngleDeg"].as_f64(), want.shore_angle_deg);
        assert_eq!(got["headingDeg"].as_f64(), want.heading_deg);
    }
    // The shore side was found from the track and the rides have a direction.
    assert!(
        rides.iter().any(|x| x["direction"].is_string()),
        "{}",
        r.body
    );
    let r = app
        .get(&format!("/api/wearable/sessions/{id}/gpx"))
        .session(&ca.coach)
        .send()
        .await;
    assert!(r.body.contains("mean ") && r.body.contains("° to straight in"));
    let r = app
        .post(&format!("/api/wearable/sessions/{id}/rederive"))
        .session(&ca.coach)
        .send()
        .await;
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(
        r.json["rides"].as_array().unwrap().len(),
        expected.rides.len()
    );
}
