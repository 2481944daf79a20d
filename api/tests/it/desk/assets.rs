//! The desk's assets and text: every catalogue key a template or handler names exists in
//! English, the script stays small, and the files carry their types.

use crate::support::*;
use axum::http::StatusCode;

#[test]
fn every_catalogue_key_used_exists_in_english() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut used = vec![];
    let mut stack = vec![root.join("templates/desk"), root.join("src/areas/desk")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // Keys are written as t("…"), t1("…", t2("…" or cat.fill("…" / cat.t("…".
            for marker in ["t(\"", "t1(\"", "t2(\"", "fill(\""] {
                for part in text.split(marker).skip(1) {
                    let key = &part[..part.find('"').unwrap()];
                    if key.contains('.') && !key.contains('{') {
                        used.push((key.to_string(), p.display().to_string()));
                    }
                }
            }
        }
    }
    assert!(used.len() > 50, "only {} keys found", used.len());
    let missing: Vec<_> = used
        .iter()
        .filter(|(k, _)| !api::areas::desk::i18n::Catalogue::has(k))
        .collect();
    assert!(
        missing.is_empty(),
        "keys missing from api/locales/en.txt: {missing:?}"
    );
}

#[tokio::test]
async fn the_scripts_are_served_gzipped_and_stay_under_50_kb() {
    let app = TestApp::new().await;
    let mut total = 0;
    for path in [
        "/assets/vendor/htmx.min.js",
        "/assets/js/desk.mjs",
        "/assets/js/push.mjs",
        "/assets/js/clip.mjs",
        "/assets/js/reviews.mjs",
        "/assets/js/upload.mjs",
    ] {
        let r = app
            .get(path)
            .header("accept-encoding", "gzip, br")
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert_eq!(r.headers["content-encoding"], "gzip", "{path}");
        assert!(
            r.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/javascript")
        );
        total += r.bytes.len();
        // Without gzip in Accept-Encoding: the plain file.
        let plain = app.get(path).send().await;
        assert!(plain.headers.get("content-encoding").is_none());
        assert!(plain.bytes.len() > r.bytes.len());
    }
    assert!(total < 50 * 1024, "{total} bytes of script, compressed");
    // The upload client is loaded only by the footage session page of those who upload, so
    // it is not in the pages' budget: its own is 25 KB.
    let tus = app
        .get("/assets/vendor/tus.min.js")
        .header("accept-encoding", "gzip")
        .send()
        .await;
    assert_eq!(tus.status, StatusCode::OK);
    assert_eq!(tus.headers["content-encoding"], "gzip");
    assert!(tus.bytes.len() < 25 * 1024, "{} bytes", tus.bytes.len());
    let licence = app.get("/assets/vendor/tus.LICENSE").send().await;
    assert!(licence.body.contains("MIT License"), "{}", licence.body);
    let m = app.get("/manifest.webmanifest").send().await;
    assert_eq!(m.headers["content-type"], "application/manifest+json");
    assert_eq!(m.json["start_url"], "/");
}
