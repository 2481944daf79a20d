//! The watch pages (issue 39): the list, a session's drawings and ride table, true rides typed
//! or confirmed with the detector's accuracy, the GPX export, import by file, deleting; another
//! workspace's session is a 404 page and the module gates the section.

use super::{get, post, post_multipart, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use shared::domain::wearable::sessions::ts_ms;

/// `ms` as the desk shows it without a time-zone cookie (UTC), to the second.
fn clock(ms: i64) -> String {
    ts_ms(ms).0.format("%H:%M:%S").to_string()
}

#[tokio::test]
async fn a_session_page_draws_its_rides_and_takes_true_rides() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(31, 900.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let api = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    let rides = api.json["rides"].as_array().unwrap().clone();
    assert!(rides.len() >= 3, "{}", api.body);

    let list = get(&app, &ca.coach, &ws_path(&ca.coach, "/watch")).await;
    assert_page(&list, StatusCode::OK);
    let page_path = ws_path(&ca.coach, &format!("/watch/{id}"));
    assert!(list.body.contains(&page_path), "{}", list.body);
    assert!(list.body.contains("Mia Silva"), "{}", list.body);

    let page = get(&app, &ca.coach, &page_path).await;
    assert_page(&page, StatusCode::OK);
    // One thick line and one numbered band per ride the API reports; a row of the table each.
    assert_eq!(page.body.matches("class=\"ride\"").count(), rides.len());
    // Speed and heart rate (the generator records both), each with a band per ride.
    assert_eq!(
        page.body.matches("<figure class=\"chart wide\">").count(),
        2
    );
    let bands = page.body.matches("<rect class=\"band\"").count();
    assert_eq!(bands, 2 * rides.len());
    assert!(page.body.contains("class=\"track\""), "{}", page.body);
    let first_start = rides[0]["start"].as_str().unwrap();
    assert!(
        page.body
            .contains(&format!("datetime=\"{}", &first_start[..19])),
        "the first ride's row: {}",
        page.body
    );

    // A true ride with its end before its start is refused beside the fields, nothing kept.
    let labels = format!("{page_path}/labels");
    let r = post(
        &app,
        &ca.coach,
        &labels,
        &[("from", "10:00:30"), ("to", "10:00:10")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("aria-invalid=\"true\""), "{}", r.body);
    let r = post(&app, &ca.coach, &labels, &[("from", "soon"), ("to", "")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-from\""), "{}", r.body);
    let count = |app| label_count(app, &ca.coach, id);
    assert_eq!(count(&app).await, 0);

    // Every true ride typed as the generator made it: the accuracy appears with them.
    for (a, b) in &s.rides {
        let r = post(
            &app,
            &ca.coach,
            &labels,
            &[
                ("from", &clock(*a)),
                ("to", &clock(*b)),
                ("note", "from the video"),
            ],
        )
        .await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    }
    assert_eq!(count(&app).await, s.rides.len());
    let acc = app
        .get(&format!("/api/wearable/accuracy?sessionId={id}"))
        .session(&ca.coach)
        .send()
        .await;
    let page = get(&app, &ca.coach, &page_path).await;
    assert!(page.body.contains("id=\"accuracy\""), "{}", page.body);
    let recall = acc.json["overall"]["recall"].as_f64().unwrap();
    assert!(
        page.body.contains(&format!("{:.0} %", recall * 100.0)),
        "the page shows the API's recall {recall}: {}",
        page.body
    );

    // A found ride confirmed with its button is one more label; removing one takes it away.
    let r = post(
        &app,
        &ca.coach,
        &labels,
        &[
            ("from", &clock(ts(&rides[0]["start"]))),
            ("to", &clock(ts(&rides[0]["end"]))),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(count(&app).await, s.rides.len() + 1);
    let listed = app
        .get(&format!("/api/wearable/labels?sessionId={id}"))
        .session(&ca.coach)
        .send()
        .await;
    let label = items(&listed)[0]["id"].as_str().unwrap().to_string();
    let r = post(&app, &ca.coach, &format!("{labels}/{label}/delete"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(count(&app).await, s.rides.len());

    // The GPX download is the API's export.
    let gpx = get(&app, &ca.coach, &format!("{page_path}/gpx")).await;
    assert_eq!(gpx.status, StatusCode::OK);
    assert_eq!(gpx.headers["content-type"], "application/gpx+xml");
    let theirs = app
        .get(&format!("/api/wearable/sessions/{id}/gpx"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(gpx.body, theirs.body);
}

#[tokio::test]
async fn a_session_watched_without_rides_is_marked_so_and_scored() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(34, 600.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let page_path = ws_path(&ca.coach, &format!("/watch/{id}"));
    let page = get(&app, &ca.coach, &page_path).await;
    let mark = format!("{page_path}/labels/no-rides");
    assert!(
        page.body.contains(&format!("action=\"{mark}\"")),
        "{}",
        page.body
    );
    assert!(
        !page.body.contains("id=\"accuracy\""),
        "unlabelled: {}",
        page.body
    );

    let r = post(&app, &ca.coach, &mark, &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let page = get(&app, &ca.coach, &page_path).await;
    assert_page(&page, StatusCode::OK);
    // The mark replaces the ride form; the accuracy shows every found ride as a false one.
    assert!(
        page.body.contains("Marked as holding no ride"),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"accuracy\""), "{}", page.body);
    assert!(!page.body.contains("data-label-form"), "{}", page.body);
    assert!(!page.body.contains("data-label-chart"), "{}", page.body);
    assert!(!page.body.contains("It was a ride"), "{}", page.body);
    assert!(
        !page.body.contains(&format!("action=\"{mark}\"")),
        "{}",
        page.body
    );
    let acc = app
        .get(&format!("/api/wearable/accuracy?sessionId={id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(acc.json["overall"]["labels"], 0, "{}", acc.body);
    assert_eq!(acc.json["overall"]["precision"], 0.0, "{}", acc.body);

    // Marking twice is refused on the page; an outsider's mark is a 404.
    let r = post(&app, &ca.coach, &mark, &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    let theirs = ws_path(&ca.outsider, &format!("/watch/{id}/labels/no-rides"));
    assert_page(
        &post(&app, &ca.outsider, &theirs, &[]).await,
        StatusCode::NOT_FOUND,
    );

    // Removed with its button: unlabelled again.
    let listed = app
        .get(&format!("/api/wearable/labels?sessionId={id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&listed).len(), 1);
    let mark_id = items(&listed)[0]["id"].as_str().unwrap().to_string();
    let r = post(
        &app,
        &ca.coach,
        &format!("{page_path}/labels/{mark_id}/delete"),
        &[],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(label_count(&app, &ca.coach, id).await, 0);
    let page = get(&app, &ca.coach, &page_path).await;
    assert!(page.body.contains("data-label-form"), "{}", page.body);
    assert!(page.body.contains("It was a ride"), "{}", page.body);
}

async fn label_count(app: &TestApp, s: &Session, id: shared::db::Id) -> usize {
    let p = format!("/api/wearable/labels?sessionId={id}");
    items(&app.get(&p).session(s).send().await).len()
}

/// The import form of `s`'s desk sent with `athlete` and `file`.
async fn send_import(
    app: &TestApp,
    s: &Session,
    athlete: &str,
    file: Option<(&str, &str, &[u8])>,
) -> Resp {
    let import = ws_path(s, "/watch/import");
    post_multipart(app, s, &import, &[("athleteId", athlete)], file).await
}

fn ts(v: &serde_json::Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap())
        .unwrap()
        .timestamp_millis()
}

#[tokio::test]
async fn a_watch_file_is_imported_from_the_page_and_bad_ones_are_refused_beside_the_field() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(7, 600.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let gpx = app
        .get(&format!("/api/wearable/sessions/{id}/gpx"))
        .session(&ca.coach)
        .send()
        .await
        .bytes;
    let send = |athlete, file| send_import(&app, &ca.coach, athlete, file);
    let r = send("", Some(("file", "application/gpx+xml", &gpx))).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-athleteId\""), "{}", r.body);
    let r = send(&ca.athlete_id, None).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-file\""), "{}", r.body);
    let r = send(
        &ca.athlete_id,
        Some((
            "file",
            "application/gpx+xml",
            b"\x89PNG\r\n\x1a\nnot a track",
        )),
    )
    .await;
    assert_page(&r, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(r.body.contains("id=\"e-file\""), "{}", r.body);
    let r = send(
        &ca.athlete_id,
        Some((
            "file",
            "application/gpx+xml",
            b"<gpx><trk><trkseg><trkpt lat=\"x\"/>",
        )),
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    let before = app.count("wearable_sessions").await;

    // The GPX the API exported comes back as a new session of the athlete.
    let r = send(&ca.athlete_id, Some(("file", "application/gpx+xml", &gpx))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let to = r.location();
    assert!(
        to.contains("/watch/") && to.contains("done=watch.imported"),
        "{to}"
    );
    assert_eq!(app.count("wearable_sessions").await, before + 1);
    let new_id = to
        .split("/watch/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap();
    let got = app
        .get(&format!("/api/wearable/sessions/{new_id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(
        got.json["athleteId"],
        ca.athlete_id.as_str(),
        "{}",
        got.body
    );
    assert_eq!(got.json["source"], "gpx");

    // Another workspace's athlete is not one of this desk's.
    let theirs = new_athlete(
        &app,
        &ca.outsider,
        serde_json::json!({ "firstName": "Other", "lastName": "One" }),
    )
    .await;
    let r = send(
        theirs["id"].as_str().unwrap(),
        Some(("file", "application/gpx+xml", &gpx)),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(app.count("wearable_sessions").await, before + 1);
}

#[tokio::test]
async fn another_workspaces_session_is_a_404_and_the_module_gates_the_section() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(11, 300.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    for rest in ["", "/gpx", "/delete"] {
        let r = get(
            &app,
            &ca.outsider,
            &ws_path(&ca.outsider, &format!("/watch/{id}{rest}")),
        )
        .await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    let r = post(
        &app,
        &ca.outsider,
        &ws_path(&ca.outsider, &format!("/watch/{id}/labels")),
        &[("from", "10:00:00"), ("to", "10:00:10")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &ca.outsider,
        &ws_path(&ca.outsider, &format!("/watch/{id}/delete")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);

    // The live screen and the list answer; deleting behind the confirmation takes it away.
    let r = get(&app, &ca.coach, &ws_path(&ca.coach, "/watch/live")).await;
    assert_page(&r, StatusCode::OK);
    let r = get(
        &app,
        &ca.coach,
        &ws_path(&ca.coach, &format!("/watch/{id}/delete")),
    )
    .await;
    assert_page(&r, StatusCode::OK);
    let r = post(
        &app,
        &ca.coach,
        &ws_path(&ca.coach, &format!("/watch/{id}/delete")),
        &[],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(
        &app,
        &ca.coach,
        &ws_path(&ca.coach, &format!("/watch/{id}")),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);

    disable_module(&app, ca.coach.org_id, "wearable").await;
    let r = get(&app, &ca.coach, &ws_path(&ca.coach, "/watch")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let home = get(&app, &ca.coach, &ws_path(&ca.coach, "/")).await;
    assert!(
        !home.body.contains(&ws_path(&ca.coach, "/watch")),
        "{}",
        home.body
    );
}

/// A viewer (every `.read`, no `wearable.manage`) reads a session's page without its forms,
/// and each of its posts is refused with nothing changed.
#[tokio::test]
async fn a_viewer_reads_a_session_and_every_post_is_forbidden() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(12, 300.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let viewer = add_member(&app, ca.coach.org_id, "viewer@example.com", "viewer").await;
    let page = ws_path(&viewer, &format!("/watch/{id}"));
    let r = get(&app, &viewer, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains(&format!("{page}/labels\"")),
        "no label form"
    );
    assert!(
        !r.body.contains(&format!("{page}/labels/no-rides\"")),
        "no mark button"
    );
    let labels = label_count(&app, &ca.coach, id).await;
    for (rest, fields) in [
        ("/labels", vec![("from", "10:00:00"), ("to", "10:00:10")]),
        ("/labels/no-rides", vec![]),
        (
            "/labels/00000000-0000-0000-0000-000000000000/delete",
            vec![],
        ),
        ("/sync", vec![]),
        ("/rederive", vec![]),
        ("/delete", vec![]),
    ] {
        let r = post(&app, &viewer, &format!("{page}{rest}"), &fields).await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    let r = get(&app, &viewer, &format!("{page}/delete")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(label_count(&app, &ca.coach, id).await, labels);
    let r = get(&app, &ca.coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains(&format!("{page}/labels\"")),
        "the coach has the form"
    );
}
