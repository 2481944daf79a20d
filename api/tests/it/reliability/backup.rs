//! `api backup PATH` on the running embedded default, and the restore the README describes:
//! stop, put the backup where `DATA_DIR` points, start. The service keeps taking writes while
//! the backup runs; the restored one must hold everything written before the backup began,
//! nothing written after it ended, and in between a prefix of the sequential writes (one
//! instant's database, not a mix), plus the object stored before it.

use crate::support::*;
use serde_json::{Value, json};
use shared::db::Id;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const EMAIL: &str = "coach@example.com";

async fn token(http: &reqwest::Client, api: &ApiProcess) -> String {
    let r = http
        .post(api.url("/api/mobile/auth/token"))
        .json(&json!({ "email": EMAIL, "password": PASSWORD, "clientName": "backup test" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["accessToken"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn new_athlete_over_http(
    http: &reqwest::Client,
    api: &ApiProcess,
    token: &str,
    name: &str,
) -> String {
    let r = http
        .post(api.url("/api/athletes"))
        .bearer_auth(token)
        .json(&json!({ "firstName": name, "lastName": "Backup" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Stores `body` as a wearable sample file through a signed upload URL; returns the upload id.
async fn store_object(
    http: &reqwest::Client,
    api: &ApiProcess,
    token: &str,
    athlete: &str,
    body: &str,
) -> String {
    let r = http
        .post(api.url("/api/wearable/upload-url"))
        .bearer_auth(token)
        .json(&json!({ "format": "csv", "athleteId": athlete }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let u: Value = r.json().await.unwrap();
    let r = http
        .put(u["url"].as_str().unwrap())
        .header("content-type", "text/csv")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    u["uploadId"].as_str().unwrap().to_string()
}

/// Every file under `dir` whose bytes are `body`.
fn files_with(dir: &Path, body: &str) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p).is_ok_and(|b| b == body.as_bytes()) {
                n += 1;
            }
        }
    }
    n
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (s, d) = (e.path(), to.join(e.file_name()));
        if s.is_dir() {
            copy_dir(&s, &d);
        } else {
            std::fs::copy(&s, &d).unwrap();
        }
    }
}

#[tokio::test]
async fn a_backup_taken_under_writes_restores_one_instant_of_data_and_the_objects() {
    let root = std::env::temp_dir().join(format!("surfcoach-backup-{}", Id::new()));
    let (live_dir, backup_dir, restored_dir) = (
        root.join("live"),
        root.join("backup"),
        root.join("restored"),
    );
    let api = ApiProcess::start(&live_dir).await;
    let http = reqwest::Client::new();
    let r = http
        .post(api.url("/api/auth/signup"))
        .json(&json!({ "email": EMAIL, "password": PASSWORD, "name": "Coach Kai" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let tok = token(&http, &api).await;
    let before = new_athlete_over_http(&http, &api, &tok, "Before").await;
    let object_before = "gps,1780000000000,38.9,-9.4,1.0,5.0\n";
    let upload_before = store_object(&http, &api, &tok, &before, object_before).await;

    // A writer creates W0, W1, ... one after another while the backup runs.
    let written = Arc::new(Mutex::new(0usize));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (http, url, tok) = (http.clone(), api.url("/api/athletes"), tok.clone());
        let (written, stop) = (written.clone(), stop.clone());
        tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let r = http
                    .post(&url)
                    .bearer_auth(&tok)
                    .json(&json!({ "firstName": format!("W{i}"), "lastName": "Backup" }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 201, "writes go on during the backup");
                i += 1;
                *written.lock().unwrap() = i;
            }
        })
    };
    let wait_for = |n: usize| {
        let written = written.clone();
        async move {
            while *written.lock().unwrap() < n {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    wait_for(3).await;
    let started = *written.lock().unwrap();
    let out = {
        let (live, dest) = (live_dir.clone(), backup_dir.clone());
        tokio::task::spawn_blocking(move || {
            api_command(&live)
                .arg("backup")
                .arg(&dest)
                .output()
                .unwrap()
        })
        .await
        .unwrap()
    };
    let ended = *written.lock().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("integrity ok"), "{stdout}");
    wait_for(ended + 3).await;
    stop.store(true, Ordering::SeqCst);
    writer.await.unwrap();
    let object_after = "gps,1780000009999,38.9,-9.4,2.0,5.0\n";
    let after = new_athlete_over_http(&http, &api, &tok, "After").await;
    store_object(&http, &api, &tok, &after, object_after).await;

    // A second backup into the same, now non-empty, directory is refused.
    let again = api_command(&live_dir)
        .arg("backup")
        .arg(&backup_dir)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    api.stop();

    // Restore: a fresh DATA_DIR holding the backup's files.
    copy_dir(&backup_dir, &restored_dir);
    api::backup::integrity_check(&restored_dir.join("service.db"))
        .await
        .unwrap();
    let api = ApiProcess::start(&restored_dir).await;
    let tok = token(&http, &api).await;
    let mut names: Vec<String> = Vec::new();
    loop {
        let path = format!("/api/athletes?limit=200&offset={}", names.len());
        let r = http
            .get(api.url(&path))
            .bearer_auth(&tok)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let list: Value = r.json().await.unwrap();
        let page = list["items"].as_array().unwrap();
        names.extend(
            page.iter()
                .map(|a| a["firstName"].as_str().unwrap().to_string()),
        );
        if page.len() < 200 {
            break;
        }
    }
    assert!(names.contains(&"Before".to_string()), "{names:?}");
    assert!(!names.contains(&"After".to_string()), "{names:?}");
    let mut ws: Vec<usize> = names
        .iter()
        .filter_map(|n| n.strip_prefix('W')?.parse().ok())
        .collect();
    ws.sort();
    let k = ws.len();
    assert_eq!(ws, (0..k).collect::<Vec<_>>(), "a prefix of the writes");
    assert!(
        (started..=ended).contains(&k),
        "{started} written before the backup, {ended} when it ended, {k} restored"
    );
    assert_eq!(names.len(), 1 + k, "{names:?}");

    // The object stored before the backup is there, and the service reads it.
    assert_eq!(files_with(&restored_dir.join("objects"), object_before), 1);
    assert_eq!(files_with(&restored_dir.join("objects"), object_after), 0);
    let r = http
        .post(api.url("/api/wearable/sessions"))
        .bearer_auth(&tok)
        .json(&json!({ "uploadId": upload_before, "athleteId": before }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    api.stop();
    api::backup::integrity_check(&restored_dir.join("service.db"))
        .await
        .unwrap();
    let _ = std::fs::remove_dir_all(&root);
}
