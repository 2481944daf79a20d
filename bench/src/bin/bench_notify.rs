//! `bench_notify`: a notification fanned out to many recipients (default 10,000,
//! `BENCH_NOTIFY_RECIPIENTS`) over a mix of channels against the loopback fakes of every
//! provider (`testkit::fanout`: the mix, the seeding, the counting at the fakes). Run it with
//! `scripts/bench-notify`.
//!
//! Two ways to deliver:
//! - default: one worker in this process (as one `worker` process runs it);
//! - `BENCH_NOTIFY_WORKERS=3` (with `BENCH_NOTIFY_KILLS=k`): that many real `worker`
//!   processes (the binary next to this one, or `BENCH_WORKER_BIN`); at each k-th of the way
//!   (by deliveries closed) one of them is killed with SIGKILL and started again at once.
//!
//! Notifications are created as `POST /api/notifications/send` creates them (500 per
//! transaction with their fan-out job); the clock runs from the first commit to the moment no
//! delivery is pending or sending. Expo gets 100 messages per request (its documented maximum);
//! FCM HTTP v1 and Web Push have no batch send; Twilio takes one message per request.
//!
//! Checked after each run, or the run fails: every delivery `sent`, every device reached.
//! Without kills also: each delivery attempted once and each device reached exactly once. With
//! kills the messages a device received twice are counted and reported (what a kill between a
//! provider's answer and its record resends), and so are deliveries taken over.
//! Markdown on stdout, progress on stderr. SQLite in a temporary directory; PostgreSQL too when
//! `BENCH_PG_URL` names an admin URL (a database is created and dropped).

use anyhow::{Result, bail, ensure};
use bench::{env, pg, say};
use shared::config::Config;
use shared::db::{Db, PoolSettings};
use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testkit::fanout::{self, Fakes, Mix, Reached};

struct Run {
    db: &'static str,
    recipients: usize,
    workers: usize,
    kills: usize,
    mix: Mix,
    elapsed: Duration,
    expo_requests: usize,
    expo_max_batch: usize,
    reached: Reached,
    taken_over: i64,
    interrupted: i64,
}

struct Options {
    n: usize,
    /// Worker processes; 0: one worker inside this process.
    workers: usize,
    kills: usize,
}

fn spawn_worker(bin: &str, vars: &[(&str, String)], log: std::path::PathBuf) -> Result<Child> {
    let log = std::fs::File::create(log)?;
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("WORKER_POLL_MS", "20")
        .env("WORKER_HEARTBEAT_MS", "500")
        .env("WORKER_LEASE_MISSES", "2")
        .env("SCHEDULER", "off")
        .env("RUST_LOG", "warn")
        .stdout(log.try_clone()?)
        .stderr(log)
        .stdin(Stdio::null());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    Ok(cmd.spawn()?)
}

fn worker_bin() -> Result<String> {
    if let Some(b) = env::opt("BENCH_WORKER_BIN") {
        return Ok(b);
    }
    let me = std::env::current_exe()?;
    Ok(me.with_file_name("worker").display().to_string())
}

async fn one(db_name: &'static str, url: &str, o: &Options) -> Result<Run> {
    let dir = tempfile::tempdir()?;
    let f = Fakes::start().await;
    let mut vars: Vec<(&str, String)> = vec![
        ("DATABASE_URL", url.to_string()),
        ("DATA_DIR", dir.path().display().to_string()),
        (
            "SECRET_KEY",
            "bench-secret-key-bench-secret-key-0123".into(),
        ),
    ];
    vars.extend(f.env());
    let lookup: HashMap<&str, String> = vars.iter().cloned().collect();
    let cfg = Config::from_lookup(|k| lookup.get(k).cloned())?;
    let db = Db::connect(cfg.database_url.expose(), &PoolSettings::default()).await?;
    api::serve::migrate(&db).await?;

    say(format!("{db_name}: seeding {} recipients", o.n));
    let r = fanout::seed(&db, &f, o.n).await;
    let expected = r.mix.deliveries() as i64;

    let mut in_process = None;
    let mut children: Vec<Child> = vec![];
    if o.workers == 0 {
        let wvars: HashMap<&str, &str> = [("SCHEDULER", "off"), ("WORKER_POLL_MS", "20")]
            .into_iter()
            .collect();
        let wcfg = worker::config::WorkerConfig::from_lookup(
            |k| wvars.get(k).map(|v| v.to_string()),
            db_name == "SQLite",
        )?;
        let deps = std::sync::Arc::new(worker::Deps::new(db.clone(), cfg.clone(), wcfg).await?);
        in_process = Some(worker::start(deps).await?);
    } else {
        // The VAPID key is generated into DATA_DIR by the first process; the others read it.
        let bin = worker_bin()?;
        for i in 0..o.workers {
            let log = dir.path().join(format!("w{i}.log"));
            children.push(spawn_worker(&bin, &vars, log)?);
            if i == 0 {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }

    say(format!("{db_name}: fanning out"));
    let started = Instant::now();
    fanout::notify(&db, &r, 500).await;
    let mut kills_done = 0;
    loop {
        let p = fanout::progress(&db).await;
        if p.open == 0 && p.closed == expected {
            break;
        }
        // Kill at each (k+1)-th of the way, rotating over the processes.
        if kills_done < o.kills
            && p.closed * (o.kills as i64 + 1) >= expected * (kills_done as i64 + 1)
        {
            let i = kills_done % children.len();
            children[i].kill()?; // SIGKILL
            children[i].wait()?;
            say(format!(
                "{db_name}: killed worker {i} at {} of {expected} closed",
                p.closed
            ));
            let log = dir.path().join(format!("w{i}-{kills_done}.log"));
            children[i] = spawn_worker(&worker_bin()?, &vars, log)?;
            kills_done += 1;
        }
        if started.elapsed() > Duration::from_secs(1800) {
            bail!(
                "{db_name}: {} deliveries still open after 30 minutes",
                p.open
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed();
    if let Some(w) = in_process {
        w.shutdown().await;
    }
    for mut c in children {
        let _ = c.kill();
        let _ = c.wait();
    }

    // Why jobs ran again (a kill, or an attempt that failed), for the report.
    let reruns: Vec<(i64, Option<String>)> = {
        let mut c = db.acquire().await?;
        shared::sql!(&mut c, c => sqlx::query_as(
            "SELECT attempts, last_error FROM job_progress WHERE kind = 'notifications.fanout' AND attempts > 1")
            .fetch_all(&mut *c).await)?
    };
    say(format!(
        "{db_name}: {} fan-out jobs ran more than once",
        reruns.len()
    ));
    for (attempts, error) in reruns.iter().take(5) {
        say(format!("  {attempts} attempts, last error: {error:?}"));
    }
    let p = fanout::progress(&db).await;
    // A kill may leave deliveries begun without an answer: closed unsent (interrupted).
    ensure!(
        p.sent + p.interrupted == expected,
        "{db_name}: {} sent and {} interrupted of {expected} deliveries",
        p.sent,
        p.interrupted
    );
    let reached = fanout::reached(&f);
    ensure!(
        reached.devices() as i64 >= p.sent,
        "{db_name}: a sent delivery's device was missed: {reached:?} of {:?}",
        r.mix
    );
    if o.kills == 0 {
        ensure!(
            reached.everyone(&r.mix),
            "{db_name}: a device was missed: {reached:?} of {:?}",
            r.mix
        );
        ensure!(
            p.sent_first_attempt == expected,
            "{db_name}: {} deliveries attempted more than once",
            expected - p.sent_first_attempt
        );
    }
    ensure!(
        reached.duplicates() == 0,
        "{db_name}: devices reached twice: {reached:?}"
    );
    let reqs = f.expo.requests();
    Ok(Run {
        db: db_name,
        recipients: o.n,
        workers: o.workers,
        kills: kills_done,
        mix: r.mix,
        elapsed,
        expo_requests: reqs.len(),
        expo_max_batch: reqs.iter().map(|r| r.messages.len()).max().unwrap_or(0),
        reached,
        taken_over: p.sent - p.sent_first_attempt,
        interrupted: p.interrupted,
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let o = Options {
        n: env::num("BENCH_NOTIFY_RECIPIENTS", 10_000)? as usize,
        workers: env::num("BENCH_NOTIFY_WORKERS", 0)? as usize,
        kills: env::num("BENCH_NOTIFY_KILLS", 0)? as usize,
    };
    ensure!(
        o.kills == 0 || o.workers > 0,
        "BENCH_NOTIFY_KILLS needs BENCH_NOTIFY_WORKERS (processes to kill)"
    );
    let mut runs = vec![];
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}/bench.db", dir.path().display());
    runs.push(one("SQLite", &url, &o).await?);
    if let Some(admin) = env::opt("BENCH_PG_URL") {
        let name = format!("bench_notify_{}", std::process::id());
        runs.push(
            pg::with_database(&admin, &name, async |url| one("PostgreSQL", url, &o).await).await?,
        );
    }
    println!(
        "| database | recipients | worker processes (kills) | deliveries (expo / fcm / web / email / sms) | wall time | deliveries/s per worker process | Expo requests (largest) | taken over after a kill | interrupted (reached anyway) | devices reached twice (expo / fcm / web / email / sms) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &runs {
        let m = &r.mix;
        let x = &r.reached;
        println!(
            "| {} | {} | {} | {} ({} / {} / {} / {} / {}) | {:.2} s | {:.0} | {} ({}) | {} | {} ({}) | {} ({} / {} / {} / {} / {}) |",
            r.db,
            r.recipients,
            if r.workers == 0 {
                "1 in-process".to_string()
            } else {
                format!("{} ({})", r.workers, r.kills)
            },
            m.deliveries(),
            m.expo,
            m.fcm,
            m.web,
            m.email,
            m.sms,
            r.elapsed.as_secs_f64(),
            m.deliveries() as f64 / r.elapsed.as_secs_f64() / r.workers.max(1) as f64,
            r.expo_requests,
            r.expo_max_batch,
            r.taken_over,
            r.interrupted,
            x.devices() as i64 - (m.deliveries() as i64 - r.interrupted),
            x.duplicates(),
            x.expo.duplicates(),
            x.fcm.duplicates(),
            x.web.duplicates(),
            x.email.duplicates(),
            x.sms.duplicates(),
        );
    }
    Ok(())
}
