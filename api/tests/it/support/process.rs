//! The `api` binary as a user runs it: a child process on the embedded default (SQLite, local
//! objects, the worker inside) over a data directory, on a free loopback port.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ApiProcess {
    child: Child,
    pub base: String,
    pub data_dir: PathBuf,
}

/// The environment every `api` child gets: nothing from the test's own but `PATH`.
pub fn api_command(data_dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_api"));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATA_DIR", data_dir)
        .env("WORKER_POLL_MS", "20")
        .stdin(Stdio::null());
    c
}

impl ApiProcess {
    /// Starts `api` over `data_dir` and waits for `/api/health`.
    pub async fn start(data_dir: &Path) -> ApiProcess {
        std::fs::create_dir_all(data_dir).unwrap();
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(data_dir.join("api.log"))
            .unwrap();
        let child = api_command(data_dir)
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let p = ApiProcess {
            child,
            base: format!("http://127.0.0.1:{port}"),
            data_dir: data_dir.to_path_buf(),
        };
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = http.get(p.url("/api/health")).send().await
                && r.status() == 200
            {
                return p;
            }
            assert!(Instant::now() < deadline, "api did not start: {}", p.log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.data_dir.join("api.log")).unwrap_or_default()
    }

    /// SIGTERM, then waits for a graceful exit.
    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "graceful exit: {status:?}: {}",
            self.log()
        );
    }
}

impl Drop for ApiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
