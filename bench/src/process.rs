//! Child processes: the servers and workers a benchmark starts, stopped when it is done or
//! fails (a dropped [`Proc`] is killed), and the readiness wait of a server.

use crate::say;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A port free on 127.0.0.1 just now.
pub fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A new file for a child's output, its path in the error.
pub fn log_file(path: &Path) -> Result<File> {
    File::create(path).with_context(|| format!("creating {}", path.display()))
}

/// A process the benchmark started, killed if still running when dropped. A named one says
/// so when it is dropped; one marked [`Proc::term_on_drop`] is asked with SIGTERM first
/// (nginx's workers outlive a master that is killed).
pub struct Proc {
    child: Child,
    name: Option<String>,
    term: bool,
}

impl Proc {
    /// Spawns `cmd`, unnamed.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<Proc> {
        Ok(Proc {
            child: cmd.spawn()?,
            name: None,
            term: false,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The child itself (to take its piped stdin or stdout).
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Drop asks with SIGTERM, and waits up to 5 s, before it kills.
    pub fn term_on_drop(mut self) -> Proc {
        self.term = true;
        self
    }

    /// `Some(status)` once it has exited.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits up to `limit` for it to exit by itself.
    pub async fn wait_for(&mut self, limit: Duration) -> bool {
        let t = Instant::now();
        while t.elapsed() < limit {
            if self.exited().is_some() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// SIGTERM (a graceful stop), then SIGKILL after `grace`.
    pub async fn stop(&mut self, grace: Duration) {
        if self.exited().is_some() {
            return;
        }
        self.sigterm();
        if !self.wait_for(grace).await {
            eprintln!(
                "process {} did not stop within {grace:?}; killing it",
                self.pid()
            );
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    fn sigterm(&self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.exited().is_none() {
            if self.term {
                self.sigterm();
                for _ in 0..50 {
                    if self.exited().is_some() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(name) = &self.name {
            say(format_args!("stopped {name}"));
        }
    }
}

/// A server the benchmark starts: `bin args` with exactly `env` (nothing inherited, so the
/// caller's STORAGE_BACKEND or RUST_LOG cannot leak in), its output to `log`, ready when
/// `ready_url` answers a success.
pub struct Server<'a> {
    pub name: &'a str,
    pub bin: &'a Path,
    pub args: &'a [&'a str],
    pub env: &'a [(&'a str, String)],
    pub log: &'a Path,
    pub ready_url: &'a str,
}

impl Server<'_> {
    /// Starts it, pinned to the CPU list `cpus` through taskset when given (taskset execs the
    /// binary: the child's pid is the server's), and waits up to `within` until it is ready.
    pub async fn start(self, cpus: Option<&str>, within: Duration) -> Result<Proc> {
        let Server {
            name,
            bin,
            args,
            env,
            log,
            ready_url,
        } = self;
        let mut cmd = match cpus {
            Some(cpus) => {
                let mut c = Command::new("taskset");
                c.arg("-c").arg(cpus).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        let out = log_file(log)?;
        cmd.args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (*k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        let mut proc =
            Proc::spawn(&mut cmd).with_context(|| format!("starting {}", bin.display()))?;
        proc.name = Some(name.to_string());
        let client = reqwest::Client::new();
        let t = Instant::now();
        while t.elapsed() < within {
            if let Ok(r) = client.get(ready_url).send().await
                && r.status().is_success()
            {
                say(format_args!("{name} is up (pid {})", proc.pid()));
                return Ok(proc);
            }
            if let Some(status) = proc.exited() {
                bail!("{name} exited with {status}; see {}", log.display());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        bail!(
            "{name} did not answer {ready_url} within {} s; see {}",
            within.as_secs(),
            log.display()
        )
    }
}
