//! Schemathesis (PyPI, 4.x; `scripts/ensure-schemathesis` installs it into `.tmp/schemathesis`)
//! over the whole served document: one `api` process on the embedded default (SQLite, local
//! files, the worker inside, no provider configured), seeded through the API with a coach, a
//! workspace, athletes and a training session, and fuzzed as that coach (bearer token) with
//! the checks: no 5xx, documented status codes, documented content types, bodies matching
//! their schemas. Bounded (`SCHEMATHESIS_MAX_EXAMPLES`, default 3 per operation;
//! `SCHEMATHESIS_MAX_TIME`, default 240 s); the README's "Reliability" section has the longer
//! run. Every request goes to the loopback port the api listens on.
//!
//! It runs once per `scripts/test`: in the SQLite pass (the process is the embedded default
//! whatever the pass's database). Without python3 it is skipped with a message; CI has it.

use serde_json::{Value, json};
use shared::db::Id;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Operations left out, and why: they end the very sign-in the run uses. (One regex:
/// schemathesis keeps only the last `--exclude-path-regex` given.)
const EXCLUDED: &str = "^/api(/mobile)?/auth/(signout|delete-account)$";

struct Api {
    child: std::process::Child,
    base: String,
    dir: PathBuf,
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_api() -> Api {
    let dir = std::env::temp_dir().join(format!("surfcoach-schemathesis-{}", Id::new()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let log = std::fs::File::create(dir.join("api.log")).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_api"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATA_DIR", &dir)
        .env("BIND_ADDR", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "warn")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let api = Api {
        child,
        base: format!("http://127.0.0.1:{port}"),
        dir,
    };
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = http.get(format!("{}/api/health", api.base)).send().await
            && r.status() == 200
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "api did not start: {}",
            std::fs::read_to_string(api.dir.join("api.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    api
}

/// Seeds through the API: a coach with a workspace, three athletes, a training session with
/// one of them; returns the coach's bearer token.
async fn seed(base: &str) -> String {
    let http = reqwest::Client::new();
    let post = |path: String, body: Value, token: Option<String>| {
        let mut req = http.post(format!("{base}{path}")).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        async move {
            let r = req.send().await.unwrap();
            let status = r.status();
            let v: Value = r.json().await.unwrap_or(Value::Null);
            assert!(status.is_success(), "{path}: {status} {v}");
            v
        }
    };
    let password = "schemathesis coach password";
    post(
        "/api/auth/signup".into(),
        json!({ "email": "coach@example.com", "password": password, "name": "Coach Kai" }),
        None,
    )
    .await;
    let tokens = post(
        "/api/mobile/auth/token".into(),
        json!({ "email": "coach@example.com", "password": password, "clientName": "schemathesis" }),
        None,
    )
    .await;
    let token = tokens["accessToken"].as_str().unwrap().to_string();
    let mut athletes = vec![];
    for (first, born) in [
        ("Mia", "2001-04-02"),
        ("Noa", "1998-11-20"),
        ("Kai", "2003-07-09"),
    ] {
        let a = post(
            "/api/athletes".into(),
            json!({ "firstName": first, "lastName": "Silva", "birthDate": born }),
            Some(token.clone()),
        )
        .await;
        athletes.push(a["id"].as_str().unwrap().to_string());
    }
    let starts = chrono::Utc::now() + chrono::Duration::days(2);
    let session = post(
        "/api/training-sessions".into(),
        json!({
            "title": "Morning lineup",
            "startsAt": starts.to_rfc3339(),
            "endsAt": (starts + chrono::Duration::hours(2)).to_rfc3339(),
            "capacity": 8,
        }),
        Some(token.clone()),
    )
    .await;
    let sid = session["id"].as_str().unwrap();
    post(
        format!("/api/training-sessions/{sid}/participants"),
        json!({ "athleteId": athletes[0] }),
        Some(token.clone()),
    )
    .await;
    token
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn python_present() -> bool {
    Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn st_binary(repo: &Path) -> PathBuf {
    repo.join(".tmp/schemathesis/bin/st")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_server_error_and_no_undocumented_answer() {
    if std::env::var("TEST_DATABASE_URL").is_ok() {
        println!(
            "schemathesis runs once per scripts/test, in the SQLite pass (its api process is the embedded default)"
        );
        return;
    }
    let st = st_binary(&repo());
    if !st.exists() {
        if !python_present() {
            println!("SKIPPED: schemathesis needs python3, which this machine lacks");
            return;
        }
        panic!(
            "schemathesis is not installed: run scripts/ensure-schemathesis (scripts/test does)"
        );
    }
    let api = start_api().await;
    let token = seed(&api.base).await;
    let max_examples = env_or("SCHEMATHESIS_MAX_EXAMPLES", 3);
    let max_time = env_or("SCHEMATHESIS_MAX_TIME", 240);
    let out = api.dir.join("schemathesis.out");
    // The routes that ask a provider answer 503 provider_not_configured on the embedded
    // default, which configures none: documented (the registry tags them), so expected there
    // and nowhere else.
    let config = api.dir.join("schemathesis.toml");
    std::fs::write(
        &config,
        format!(
            "[[operations]]\ninclude-tag = \"{}\"\nchecks.not_a_server_error.expected-statuses = [\"2xx\", \"3xx\", \"4xx\", \"503\"]\n",
            api::registry::PROVIDER_TAG
        ),
    )
    .unwrap();
    let mut cmd = Command::new(&st);
    cmd.arg("--config-file")
        .arg(&config)
        .arg("run")
        .arg(format!("{}/api/openapi.json", api.base))
        .args(["--url", &api.base])
        .args(["--header", &format!("Authorization: Bearer {token}")])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
        ])
        .args(["--max-examples", &max_examples.to_string()])
        .args(["--max-time", &max_time.to_string()])
        .args(["--seed", "18"])
        // One worker: with two, Hypothesis describes its filters by parsing their source in two
        // threads at once, and CPython 3.11's parser is not safe for that ("AST constructor
        // recursion depth mismatch", an error on a random operation).
        .args(["--workers", "1"])
        .args(["--request-timeout", "30"])
        .args(["--max-redirects", "0"])
        .args(["--suppress-health-check", "all"])
        .arg("--no-color");
    cmd.args(["--exclude-path-regex", EXCLUDED]);
    let status = cmd
        .current_dir(&api.dir)
        .env(
            "SCHEMATHESIS_HOOKS",
            repo().join("scripts/schemathesis_hooks.py"),
        )
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::inherit())
        .stdin(Stdio::null())
        .status()
        .expect("schemathesis runs");
    let report = std::fs::read_to_string(&out).unwrap_or_default();
    println!("{report}");
    let log = std::fs::read_to_string(api.dir.join("api.log")).unwrap_or_default();
    assert!(
        status.success(),
        "schemathesis found failures (report above); the api's log:\n{}",
        log.lines().rev().take(60).collect::<Vec<_>>().join("\n")
    );
    // "Selected: N/M": every operation but the four excluded (the count grows with the routes).
    let selected: Vec<u32> = report
        .split("Selected: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .map(|r| r.split('/').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    assert!(
        selected.len() == 2 && selected[1] - selected[0] == 4 && selected[0] > 300,
        "four operations excluded: {report}"
    );
    // The run is signed in throughout: a coach reaches most operations (the admin, service and
    // cron routes answer 401/403 to a coach, about 100 of them).
    let only_refused = report
        .split("Authentication failed: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or(0);
    assert!(
        only_refused < 150,
        "the run lost its sign-in: {only_refused} operations only refused"
    );
}
