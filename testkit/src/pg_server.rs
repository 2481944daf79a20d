//! A PostgreSQL server of a test's own (Debian's binaries, a fresh cluster in a temporary
//! directory, trust on 127.0.0.1), for tests that must restart or cut off the server, which the
//! suite's shared server (scripts/ensure-postgres) must never be. As root it runs as the
//! `postgres` user, as PostgreSQL demands. [`PgServer::start`] answers `None`, with the reason
//! printed, where there are no server binaries.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgServer {
    bin: PathBuf,
    data: PathBuf,
    _dir: tempfile::TempDir,
    pub port: u16,
    as_root: bool,
    /// The addresses it listens on (127.0.0.1 first).
    listen: String,
}

/// How `pg_ctl` stops the server (`-m`): `fast` ends sessions cleanly, `immediate` as a crash.
#[derive(Clone, Copy, Debug)]
pub enum StopMode {
    Fast,
    Immediate,
}

impl StopMode {
    fn flag(self) -> &'static str {
        match self {
            StopMode::Fast => "fast",
            StopMode::Immediate => "immediate",
        }
    }
}

/// The newest installed server's binaries (as `scripts/ensure-postgres` picks its server).
fn server_bin() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let major = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("postgres").exists() && bin.join("pg_ctl").exists()).then_some((major, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, bin)| bin)
}

impl PgServer {
    /// Starts a fresh server on a free port, or `None` (with a note why) where PostgreSQL is
    /// not installed.
    pub fn start() -> Option<PgServer> {
        PgServer::start_on(&[], &[])
    }

    /// As [`PgServer::start`], also listening on `addresses` and trusting clients from the
    /// `networks` (CIDR), for clients in other network namespaces.
    pub fn start_on(addresses: &[&str], networks: &[&str]) -> Option<PgServer> {
        let Some(bin) = server_bin() else {
            eprintln!("skipped: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin");
            return None;
        };
        let as_root = crate::is_root();
        let dir = tempfile::Builder::new()
            .prefix("pgsrv")
            .tempdir_in("/tmp")
            .expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let s = PgServer {
            bin,
            data,
            _dir: dir,
            port: crate::free_port(),
            as_root,
            listen: std::iter::once("127.0.0.1")
                .chain(addresses.iter().copied())
                .collect::<Vec<_>>()
                .join(","),
        };
        if as_root {
            let ok = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(s._dir.path())
                .status()
                .is_ok_and(|st| st.success());
            assert!(ok, "chown to the postgres user");
        }
        let data = s.data.display().to_string();
        s.run(
            &[
                "initdb",
                "-D",
                &data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ]
            .map(String::from),
        );
        let hba = s.data.join("pg_hba.conf");
        let mut rules = std::fs::read_to_string(&hba).expect("initdb wrote pg_hba.conf");
        for net in networks {
            rules.push_str(&format!("host all all {net} trust\n"));
        }
        std::fs::write(&hba, rules).unwrap();
        s.pg_ctl(&["start"]);
        Some(s)
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server (as `mode` says) and starts it again on the same port, waiting until it
    /// accepts connections.
    pub fn restart(&self, mode: StopMode) {
        self.pg_ctl(&["restart", "-m", mode.flag()]);
    }

    pub fn stop(&self, mode: StopMode) {
        self.pg_ctl(&["stop", "-m", mode.flag()]);
    }

    /// Starts a stopped server again, on the same port and data.
    pub fn start_again(&self) {
        self.pg_ctl(&["start"]);
    }

    fn pg_ctl(&self, args: &[&str]) {
        self.run(&self.pg_ctl_args(args));
    }

    fn pg_ctl_args<'a>(&'a self, args: &[&'a str]) -> Vec<String> {
        let opts = format!(
            "-p {} -c listen_addresses={} -k {} -c fsync=off -c max_connections=200",
            self.port,
            self.listen,
            self._dir.path().display()
        );
        let mut all: Vec<String> = ["pg_ctl", "-D"].map(String::from).to_vec();
        all.push(self.data.display().to_string());
        all.extend(["-w", "-t", "60", "-l"].map(String::from));
        all.push(self.log_path().display().to_string());
        all.push("-o".into());
        all.push(opts);
        all.extend(args.iter().map(|a| a.to_string()));
        all
    }

    fn log_path(&self) -> PathBuf {
        self._dir.path().join("server.log")
    }

    fn command(&self, args: &[String]) -> Command {
        let program = self.bin.join(&args[0]);
        let mut cmd = if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        cmd.args(&args[1..]).current_dir(Path::new("/tmp"));
        cmd
    }

    fn run(&self, args: &[String]) {
        let out = self.command(args).output().expect("PostgreSQL's tools run");
        assert!(
            out.status.success(),
            "{} failed: {}{}\n{}",
            args[0],
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.log_path()).unwrap_or_default()
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        // Stopped already, or not: either way nothing is left running.
        let args = self.pg_ctl_args(&["stop", "-m", "immediate"]);
        let _ = self.command(&args).output();
    }
}
