//! FIT import (issue 40): files from testkit's encoder through `POST /api/wearable/import` and
//! the upload URL, the same session as its GPX; broken files refused with their record.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::domain::wearable::samples::Samples;
use shared::domain::wearable::{MAX_FILE_BYTES, eval};
use testkit::fit::{self, Point, Style, Writer, base};

const FIT: &str = "application/vnd.ant.fit";

/// The points of `s` as a watch would write them (heart rate on the fix of the same time).
fn points(s: &Samples) -> Vec<Point> {
    let hr: std::collections::HashMap<i64, u16> = s.hr.iter().map(|h| (h.t, h.bpm)).collect();
    s.gps
        .iter()
        .map(|f| Point {
            t_ms: f.t,
            position: Some((f.lat, f.lon)),
            speed: f.speed,
            hr: hr.get(&f.t).map(|&b| b as u8),
        })
        .collect()
}

async fn import(app: &TestApp, who: &Session, athlete: &str, ct: &str, body: &[u8]) -> Resp {
    app.post(&format!("/api/wearable/import?athleteId={athlete}"))
        .session(who)
        .raw(ct, body)
        .send()
        .await
}

/// Every sample of one stream: each column, all pages.
async fn columns(app: &TestApp, who: &Session, id: &str, stream: &str) -> Value {
    let mut out = json!({});
    let mut offset = 0;
    loop {
        let r = app
            .get(&format!(
                "/api/wearable/samples/{id}?stream={stream}&limit=10000&offset={offset}"
            ))
            .session(who)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        for (k, v) in r.json[stream].as_object().unwrap() {
            let col = out[k.as_str()].as_array().cloned().unwrap_or_default();
            out[k.as_str()] = Value::Array([col, v.as_array().unwrap().clone()].concat());
        }
        match r.json["nextOffset"].as_i64() {
            Some(n) => offset = n,
            None => return out,
        }
    }
}

/// Imports, derives and reads a session: (the session, its GPS samples, its heart rate).
async fn imported(
    app: &TestApp,
    who: &Session,
    athlete: &str,
    ct: &str,
    body: &[u8],
) -> (Value, Value, Value) {
    let r = import(app, who, athlete, ct, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.json["session"]["id"].as_str().unwrap().to_string();
    let p = run_job(app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let s = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(who)
        .send()
        .await;
    let gps = columns(app, who, &id, "gps").await;
    let hr = columns(app, who, &id, "hr").await;
    (s.json, gps, hr)
}

#[tokio::test]
async fn a_fit_file_imports_as_the_same_session_as_its_gpx() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    // A reef session at 1 Hz from the evaluation's simulator (fixes on whole seconds, as FIT
    // keeps them), with dropouts and Garmin heart rate.
    let rec = eval::sim::record(4242, eval::sim::Break::Reef, eval::sim::Sampling::Hz1);
    let samples = eval::import(&rec.gpx).await.unwrap();
    let (gpx, gpx_gps, gpx_hr) = imported(
        &app,
        &ca.coach,
        &ca.athlete_id,
        "application/gpx+xml",
        rec.gpx.as_bytes(),
    )
    .await;
    assert!(gpx["rides"].as_array().unwrap().len() >= 3, "{gpx}");
    for style in [
        Style {
            big_endian: true,
            compressed_timestamps: true,
            developer_field: true,
            header14: false,
        },
        Style {
            big_endian: false,
            compressed_timestamps: false,
            developer_field: false,
            header14: true,
        },
    ] {
        let file = fit::activity(&points(&samples), style);
        let (s, gps, hr) = imported(&app, &ca.coach, &ca.athlete_id, FIT, &file).await;
        assert_eq!(s["source"], "fit", "{s}");
        assert_eq!(s["samples"], gpx["samples"], "{style:?}");
        assert_eq!(hr, gpx_hr, "{style:?}");
        assert_eq!(gps["t"], gpx_gps["t"]);
        // Semicircles hold 1e-7° to within one stored unit.
        for k in ["lat", "lon"] {
            let (a, b) = (gps[k].as_array().unwrap(), gpx_gps[k].as_array().unwrap());
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(b) {
                assert!(
                    (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1.01e-7,
                    "{k} {x} {y}"
                );
            }
        }
        assert_eq!(s["startedAt"], gpx["startedAt"]);
        assert_eq!(s["endedAt"], gpx["endedAt"]);
        assert_eq!(s["rides"], gpx["rides"], "{style:?}");
    }
}

#[tokio::test]
async fn malformed_fit_is_refused_with_its_record_and_nothing_is_kept() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let track: Vec<Point> = (0..20)
        .map(|i| Point {
            t_ms: 1_767_247_200_000 + i * 1000,
            position: Some((-33.89 + i as f64 * 1e-5, 151.27)),
            speed: Some(1.0),
            hr: Some(120),
        })
        .collect();
    let good = fit::activity(&track, Style::default());
    let r = import(&app, &ca.coach, &ca.athlete_id, FIT, &good).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["session"]["samples"]["gps"], 20);
    assert_eq!(r.json["session"]["samples"]["hr"], 20);
    let (sessions, chunks) = (
        app.count("wearable_sessions").await,
        app.count("wearable_chunks").await,
    );
    // Records: 1 file_id's definition (15 bytes), 2 its data (8), 3 the record definition
    // (21), 4… the records (18 bytes each), after the 12-byte header.
    let record_at = |n: u64| 12 + 15 + 8 + 21 + (n - 4) * 18;
    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    // The last record's heart rate: every record still parses, the CRC differs.
    bad_crc[record_at(23) as usize + 13] = 121;
    let mut bad_header = fit::activity(
        &track,
        Style {
            header14: true,
            ..Style::default()
        },
    );
    bad_header[12] ^= 0xFF;
    let mut hostile = Writer::default();
    hostile.define(
        0,
        20,
        false,
        &[(253, 4, base::UINT32), (0, 1, base::UINT8)],
        &[],
    );
    let cases: Vec<(&str, Vec<u8>, u64, u64)> = vec![
        (
            "truncated",
            good[..record_at(9) as usize + 7].to_vec(),
            9,
            record_at(9),
        ),
        ("bad CRC", bad_crc, 23, n as u64 - 2),
        ("bad header CRC", bad_header, 0, 0),
        ("hostile field size", hostile.finish(false), 1, 12),
    ];
    for (what, body, record, offset) in cases {
        let r = import(&app, &ca.coach, &ca.athlete_id, FIT, &body).await;
        r.assert_error(StatusCode::BAD_REQUEST, "fit_invalid");
        let d = &r.json["error"]["details"];
        assert_eq!(
            (d["record"].as_u64(), d["offset"].as_u64()),
            (Some(record), Some(offset)),
            "{what}: {}",
            r.body
        );
        assert!(d["reason"].is_string(), "{what}");
        let msg = r.json["error"]["message"].as_str().unwrap();
        assert!(
            msg.starts_with(&format!("record {record} (byte {offset}): ")),
            "{what}: {msg}"
        );
    }
    // Twelve bytes with ".FIT" in place but a header of the wrong size.
    let mut wrong = good.clone();
    wrong[0] = 16;
    let r = import(&app, &ca.coach, &ca.athlete_id, FIT, &wrong).await;
    r.assert_error(StatusCode::BAD_REQUEST, "fit_invalid");
    assert_eq!(r.json["error"]["details"]["record"], 0);
    assert_eq!(app.count("wearable_sessions").await, sessions);
    assert_eq!(app.count("wearable_chunks").await, chunks);
}

#[tokio::test]
async fn a_fit_file_over_the_cap_is_refused() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let head = fit::activity(&[], Style::default());
    // Declared too large: refused before a byte is read.
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .raw(FIT, &head)
        .header("content-length", &(MAX_FILE_BYTES + 1).to_string())
        .send()
        .await;
    r.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large");
    // Streamed without a length: cut off at the cap.
    let mib = bytes::Bytes::from(vec![0u8; 1 << 20]);
    let chunks = std::iter::once(bytes::Bytes::from(head))
        .chain(std::iter::repeat_n(
            mib,
            (MAX_FILE_BYTES >> 20) as usize + 1,
        ))
        .map(Ok::<_, std::io::Error>);
    let r = app
        .post(&format!("/api/wearable/import?athleteId={}", ca.athlete_id))
        .session(&ca.coach)
        .stream(
            FIT,
            axum::body::Body::from_stream(futures::stream::iter(chunks)),
        )
        .send()
        .await;
    r.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large");
    assert_eq!(app.count("wearable_sessions").await, 0);
}

/// The upload URL takes `format: fit`; a FIT file sent to a URL asked for `gpx` is read as FIT
/// all the same (the bytes decide), and a broken one fails the session with its record.
#[tokio::test]
async fn a_fit_file_goes_through_the_upload_url() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let track: Vec<Point> = (0..30)
        .map(|i| Point {
            t_ms: 1_767_247_200_000 + i * 2000,
            position: Some((-33.89, 151.27 + i as f64 * 1e-5)),
            speed: None,
            hr: (i % 2 == 0).then_some(110),
        })
        .collect();
    let file = fit::activity(
        &track,
        Style {
            compressed_timestamps: true,
            ..Style::default()
        },
    );
    let mut broken = file.clone();
    broken.truncate(file.len() - 30);
    for (format, body, ok) in [
        ("fit", &file, true),
        ("gpx", &file, true),
        ("fit", &broken, false),
    ] {
        let r = app
            .post("/api/wearable/upload-url")
            .session(&ca.coach)
            .json(json!({ "format": format, "athleteId": ca.athlete_id }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        let upload = r.json["uploadId"].as_str().unwrap().to_string();
        let ct = r.json["contentType"].as_str().unwrap().to_string();
        assert_eq!(ct == FIT, format == "fit");
        let url = r.json["url"]
            .as_str()
            .unwrap()
            .replace("http://app.test", "");
        let r = app
            .req(axum::http::Method::PUT, &url)
            .raw(&ct, body)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        let r = app
            .post("/api/wearable/sessions")
            .session(&ca.coach)
            .json(json!({ "uploadId": upload, "athleteId": ca.athlete_id }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        let p = run_job(&app, &r.json["jobId"]).await;
        let s = app
            .get(&format!("/api/wearable/sessions/{upload}"))
            .session(&ca.coach)
            .send()
            .await;
        if ok {
            assert_eq!(p.status, "succeeded", "{p:?}");
            assert_eq!(s.json["status"], "ready", "{}", s.body);
            assert_eq!(s.json["source"], "fit");
            assert_eq!(s.json["samples"]["gps"], 30);
            assert_eq!(s.json["samples"]["hr"], 15);
        } else {
            assert_eq!(p.status, "failed", "{p:?}");
            assert_eq!(s.json["status"], "failed");
            let m = s.json["statusMessage"].as_str().unwrap();
            assert!(m.starts_with("record ") && m.contains("(byte "), "{m}");
            assert_eq!(s.json["samples"]["gps"], 0, "{}", s.body);
        }
    }
}
