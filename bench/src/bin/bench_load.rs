//! `bench_load`: requests per second and latency of representative routes of a real release
//! `api` process, beside a bare hyper hello-world server in the same run. Run it with
//! `scripts/bench-load`, which builds the release binaries and pins the processes.
//!
//! For each database (SQLite, the embedded default; PostgreSQL when `BENCH_PG_URL` names an
//! admin URL: a database is created and dropped) a fresh `api` (next to this binary,
//! `EMBEDDED_WORKER=false`, the production log level) is started and seeded over HTTP: a coach
//! signs up, takes a phone bearer token and adds `BENCH_LOAD_ATHLETES` (400) athletes, a
//! quarter at each level. Then each target is driven:
//!
//! - `hello`: `GET /` of `bench_load hello` (hyper's http1 server, one fixed body);
//! - `me`: `GET /api/auth/me` with the bearer (token, user and memberships read);
//! - `list`: `GET /api/athletes?limit=50&status=active&level=intermediate` (100 of the 400
//!   match; the page has 50);
//! - `create`: `POST /api/athletes`, a new athlete each time (201);
//! - `enqueue`: `POST /api/reports/season/{athleteId}` with a period no request used before,
//!   so every request enqueues a new job (202 + job; nothing runs it);
//! - `desk-list`: the web application's roster page `GET /w/{ws}/athletes` (HTML, 25 rows and
//!   the coach filter's members) with the web session cookie;
//! - `desk-dashboard`: the web application's dashboard `GET /w/{ws}/` with the session cookie
//!   (this week's training, unread conversations, athletes needing attention, failed jobs).
//!
//! Each target: a warm-up, then the **peak**: `BENCH_LOAD_CONNS` (32) connections sending
//! back to back for `BENCH_LOAD_SECS` (10) seconds (closed loop; its latency is each request's
//! own). Then **50 %, 80 % and 100 % of that peak** at a fixed rate (open loop): each connection
//! owns 1/n of the rate with its own schedule, and a request's latency runs from its
//! *scheduled* time when the connection was still busy with the one before (the wait the
//! server caused counts: no coordinated omission), or from when it was sent when the
//! connection was idle (the client's own timer slack, up to a millisecond of tokio's timer
//! wheel, does not count). A request is an error when the connection fails or the status is
//! not the expected one; errors count in the achieved rate.
//!
//! Beside each row: the CPU time of the server process per request (from /proc), which is
//! less sensitive to the machine's other load than the rates. Markdown on stdout, progress on
//! stderr. `BENCH_ONLY` (comma list of `sqlite`, `postgres`) picks databases; `BENCH_TARGETS`
//! picks targets; `BENCH_SERVER_CPUS` (a taskset list, default `0`; empty: no pinning) pins the
//! servers (the script pins this client to the other core).

use anyhow::{Result, anyhow, bail, ensure};
use axum::http::{Method, Request, StatusCode, header};
use bench::proc::{MachineCpu, cpu_secs};
use bench::process::{Proc, Server, free_port};
use bench::stats::percentile;
use bench::{env, pg, say};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const SECRET_KEY: &str = "bench-load-secret-key-not-for-production-use";
const PASSWORD: &str = "bench-load-password-1";
const EMAIL: &str = "coach@bench.test";
const LEVELS: [&str; 4] = ["beginner", "intermediate", "advanced", "pro"];

struct Params {
    secs: Duration,
    warm: Duration,
    conns: usize,
    athletes: usize,
    server_cpus: Option<String>,
    only: Option<Vec<String>>,
    targets: Option<Vec<String>>,
    pg_url: Option<String>,
    work: PathBuf,
    /// The api builds to compare, with their labels (one unlabelled build by default).
    api_bins: Vec<(String, PathBuf)>,
    self_bin: PathBuf,
}

impl Params {
    fn from_env() -> Result<Params> {
        let exe = std::env::current_exe()?;
        let p = Params {
            secs: Duration::from_secs(env::num("BENCH_LOAD_SECS", 10)?),
            warm: Duration::from_secs(env::num("BENCH_LOAD_WARM_SECS", 2)?),
            conns: env::num("BENCH_LOAD_CONNS", 32)? as usize,
            athletes: env::num("BENCH_LOAD_ATHLETES", 400)? as usize,
            server_cpus: std::env::var("BENCH_SERVER_CPUS")
                .unwrap_or_else(|_| "0".into())
                .split_whitespace()
                .next()
                .map(str::to_string),
            only: env::list("BENCH_ONLY"),
            targets: env::list("BENCH_TARGETS"),
            pg_url: env::opt("BENCH_PG_URL"),
            work: env::root().join(".tmp/bench-load"),
            api_bins: match env::opt("BENCH_API_BINS") {
                None => vec![(String::new(), exe.with_file_name("api"))],
                Some(v) => v
                    .split(',')
                    .map(|b| match b.split_once('=') {
                        Some((label, path)) => {
                            (label.trim().to_string(), PathBuf::from(path.trim()))
                        }
                        None => (String::new(), PathBuf::from(b.trim())),
                    })
                    .collect(),
            },
            self_bin: exe,
        };
        ensure!(
            p.conns > 0 && p.athletes >= 8,
            "BENCH_LOAD_CONNS > 0, BENCH_LOAD_ATHLETES ≥ 8"
        );
        for (_, bin) in &p.api_bins {
            ensure!(
                bin.exists(),
                "{} missing: cargo build --release -p api",
                bin.display()
            );
        }
        Ok(p)
    }

    fn wants_db(&self, db: &str) -> bool {
        self.only.as_ref().is_none_or(|o| o.iter().any(|x| x == db))
    }

    fn wants_target(&self, t: &str) -> bool {
        self.targets
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| x == t))
    }

    /// Starts a server pinned to `BENCH_SERVER_CPUS`.
    async fn start(&self, server: Server<'_>) -> Result<Proc> {
        server
            .start(self.server_cpus.as_deref(), Duration::from_secs(60))
            .await
    }
}

// --- the hello-world peer -------------------------------------------------------------------

/// `bench_load hello <port>`: hyper's http1 server answering every request with a fixed body.
async fn hello(port: u16) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(|_req| async {
                Ok::<_, std::convert::Infallible>(hyper::Response::new(String::from(
                    "Hello, world!",
                )))
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

// --- the load generator ---------------------------------------------------------------------

/// What one target sends: request `i` (a process-wide counter, so write targets never repeat).
struct Target {
    key: &'static str,
    label: String,
    host: String,
    expect: StatusCode,
    make: Box<dyn Fn(u64) -> (Method, String, Option<String>) + Send + Sync>,
    bearer: Option<String>,
    /// A web session cookie (the desk's pages), sent instead of a bearer.
    cookie: Option<String>,
    counter: AtomicU64,
}

impl Target {
    fn request(&self) -> Request<String> {
        let i = self.counter.fetch_add(1, Ordering::Relaxed);
        let (method, path, body) = (self.make)(i);
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, &self.host);
        if let Some(t) = &self.bearer {
            b = b.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        if let Some(c) = &self.cookie {
            b = b.header(header::COOKIE, c);
        }
        match body {
            Some(body) => b
                .header(header::CONTENT_TYPE, "application/json")
                .body(body),
            None => b.body(String::new()),
        }
        .expect("a valid request")
    }
}

async fn connect(addr: &str) -> Result<SendRequest<String>> {
    let s = tokio::net::TcpStream::connect(addr).await?;
    s.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(s)).await?;
    tokio::spawn(conn);
    Ok(sender)
}

/// One request on `conn` (reconnecting first when it is closed); true when it answered the
/// expected status. The body is read to the end.
async fn send(conn: &mut Option<SendRequest<String>>, addr: &str, t: &Target) -> bool {
    let attempt = async {
        if conn.as_ref().is_none_or(|c| c.is_closed()) {
            *conn = Some(connect(addr).await?);
        }
        let c = conn.as_mut().expect("connected");
        c.ready().await?;
        let resp = c.send_request(t.request()).await?;
        let status = resp.status();
        axum::body::to_bytes(axum::body::Body::new(resp.into_body()), usize::MAX).await?;
        anyhow::Ok(status)
    };
    match attempt.await {
        Ok(s) => s == t.expect,
        Err(_) => {
            *conn = None;
            false
        }
    }
}

/// One connection's share of a cell.
#[derive(Default)]
struct Tally {
    ok: u64,
    errors: u64,
    lat_us: Vec<u32>,
}

/// Closed loop: `conns` connections back to back until `secs` have passed.
async fn closed_loop(addr: &str, t: &Arc<Target>, conns: usize, secs: Duration) -> Vec<Tally> {
    let end = Instant::now() + secs;
    let tasks: Vec<_> = (0..conns)
        .map(|_| {
            let t = t.clone();
            let addr = addr.to_string();
            tokio::spawn(async move {
                let mut conn = None;
                let mut tally = Tally::default();
                while Instant::now() < end {
                    let started = Instant::now();
                    let ok = send(&mut conn, &addr, &t).await;
                    tally.lat_us.push(started.elapsed().as_micros() as u32);
                    if ok { tally.ok += 1 } else { tally.errors += 1 }
                }
                tally
            })
        })
        .collect();
    let mut out = vec![];
    for task in tasks {
        out.push(task.await.expect("load task"));
    }
    out
}

/// Open loop: `rate` requests per second in total over `conns` connections, each on its own
/// schedule (offset so the connections interleave), for `secs`.
async fn open_loop(
    addr: &str,
    t: &Arc<Target>,
    conns: usize,
    rate: f64,
    secs: Duration,
) -> Vec<Tally> {
    let start = Instant::now() + Duration::from_millis(20);
    let end = start + secs;
    let interval = Duration::from_secs_f64(conns as f64 / rate);
    let tasks: Vec<_> = (0..conns)
        .map(|k| {
            let t = t.clone();
            let addr = addr.to_string();
            tokio::spawn(async move {
                let mut conn = connect(&addr).await.ok();
                let mut tally = Tally::default();
                let mut due = start + interval.mul_f64(k as f64 / conns as f64);
                let mut prev_done = Instant::now();
                while due < end {
                    // Idle at the scheduled time: wait for it, and time from the send (the
                    // timer's slack is the client's). Busy: the server held this request back
                    // since it was due, and that wait counts.
                    let from = if prev_done <= due {
                        tokio::time::sleep_until(due.into()).await;
                        Instant::now()
                    } else {
                        due
                    };
                    let ok = send(&mut conn, &addr, &t).await;
                    prev_done = Instant::now();
                    tally.lat_us.push((prev_done - from).as_micros() as u32);
                    if ok {
                        tally.ok += 1
                    } else {
                        tally.errors += 1
                    }
                    due += interval;
                }
                tally
            })
        })
        .collect();
    let mut out = vec![];
    for task in tasks {
        out.push(task.await.expect("load task"));
    }
    out
}

/// One measured cell: a load level of one target.
struct Cell {
    level: String,
    target_rate: Option<f64>,
    achieved: f64,
    p50_ms: f64,
    p99_ms: f64,
    error_rate: f64,
    /// Server CPU per request, µs.
    cpu_us: f64,
    /// Share of the machine busy during the cell (everyone's processes).
    busy: f64,
}

/// The percentile `q` of latencies in µs, in ms.
fn percentile_ms(sorted_us: &[u32], q: f64) -> f64 {
    percentile(sorted_us, q).map_or(f64::NAN, |us| us as f64 / 1000.0)
}

async fn measure<F, Fut>(level: String, target_rate: Option<f64>, server_pid: u32, run: F) -> Cell
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Vec<Tally>>,
{
    let cpu0 = cpu_secs(server_pid);
    let m0 = MachineCpu::now();
    let started = Instant::now();
    let tallies = run().await;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_secs(server_pid) - cpu0;
    let busy = MachineCpu::now().busy_since(m0);
    let (ok, errors) = tallies
        .iter()
        .fold((0, 0), |(o, e), t| (o + t.ok, e + t.errors));
    let mut lat: Vec<u32> = tallies.into_iter().flat_map(|t| t.lat_us).collect();
    lat.sort_unstable();
    let n = (ok + errors).max(1) as f64;
    Cell {
        level,
        target_rate,
        achieved: (ok + errors) as f64 / elapsed,
        p50_ms: percentile_ms(&lat, 0.5),
        p99_ms: percentile_ms(&lat, 0.99),
        error_rate: errors as f64 / n,
        cpu_us: cpu * 1e6 / n,
        busy,
    }
}

/// Warm-up, peak, then 50/80/100 % of the peak.
async fn drive(p: &Params, addr: &str, server_pid: u32, t: &Arc<Target>) -> Vec<Cell> {
    closed_loop(addr, t, p.conns, p.warm).await;
    let peak = measure(
        format!("peak ({} conns)", p.conns),
        None,
        server_pid,
        || closed_loop(addr, t, p.conns, p.secs),
    )
    .await;
    say(format_args!(
        "{}: peak {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, errors {:.2} %, {:.0} µs server CPU/req",
        t.label,
        peak.achieved,
        peak.p50_ms,
        peak.p99_ms,
        peak.error_rate * 100.0,
        peak.cpu_us
    ));
    let rate = peak.achieved;
    let mut cells = vec![peak];
    for pct in [50u32, 80, 100] {
        let r = rate * pct as f64 / 100.0;
        let c = measure(format!("{pct} %"), Some(r), server_pid, || {
            open_loop(addr, t, p.conns, r, p.secs)
        })
        .await;
        say(format_args!(
            "{} at {pct} % ({r:.0} req/s): {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, errors {:.2} %",
            t.label,
            c.achieved,
            c.p50_ms,
            c.p99_ms,
            c.error_rate * 100.0
        ));
        cells.push(c);
    }
    cells
}

// --- the api and its seed -------------------------------------------------------------------

struct Seed {
    token: String,
    athletes: Vec<String>,
    /// The coach's workspace and a web session cookie (`sc_session=…`) for the desk.
    org: String,
    cookie: String,
}

async fn seed(base: &str, n: usize) -> Result<Seed> {
    let http = reqwest::Client::new();
    let post = |path: &str, body: Value, token: Option<&str>| {
        let mut r = http.post(format!("{base}{path}")).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send()
    };
    let r = post(
        "/api/auth/signup",
        json!({ "email": EMAIL, "password": PASSWORD, "name": "Coach Bench" }),
        None,
    )
    .await?;
    ensure!(
        r.status() == 201,
        "signup: {} {}",
        r.status(),
        r.text().await?
    );
    let v: Value = r.json().await?;
    let org = v["workspace"]["workspaceId"]
        .as_str()
        .ok_or_else(|| anyhow!("no workspace in {v}"))?
        .to_string();
    let r = post(
        "/api/auth/signin",
        json!({ "email": EMAIL, "password": PASSWORD }),
        None,
    )
    .await?;
    let cookie = r
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("sc_session="))
        .and_then(|c| c.split(';').next())
        .ok_or_else(|| anyhow!("no session cookie from the sign-in"))?
        .to_string();
    let r = post(
        "/api/mobile/auth/token",
        json!({ "email": EMAIL, "password": PASSWORD, "clientName": "bench" }),
        None,
    )
    .await?;
    ensure!(
        r.status() == 200,
        "token: {} {}",
        r.status(),
        r.text().await?
    );
    let v: Value = r.json().await?;
    let token = v["accessToken"]
        .as_str()
        .ok_or_else(|| anyhow!("no accessToken in {v}"))?
        .to_string();
    let mut athletes = Vec::with_capacity(n);
    for i in 0..n {
        let r = post(
            "/api/athletes",
            json!({
                "firstName": format!("Rider{i:04}"), "lastName": format!("Seed{:04}", (i * 7919) % n),
                "email": format!("rider{i}@bench.test"), "birthDate": "2004-05-06",
                "stance": if i % 2 == 0 { "regular" } else { "goofy" }, "level": LEVELS[i % 4],
            }),
            Some(&token),
        )
        .await?;
        ensure!(
            r.status() == 201,
            "athlete: {} {}",
            r.status(),
            r.text().await?
        );
        let v: Value = r.json().await?;
        athletes.push(v["id"].as_str().unwrap_or_default().to_string());
    }
    let list: Value = http
        .get(format!("{base}{LIST_PATH}"))
        .bearer_auth(&token)
        .send()
        .await?
        .json()
        .await?;
    let items = list["items"].as_array().map_or(0, Vec::len);
    ensure!(
        items == 50,
        "the list answers {items} items, not 50: {list}"
    );
    Ok(Seed {
        token,
        athletes,
        org,
        cookie,
    })
}

const LIST_PATH: &str = "/api/athletes?limit=50&status=active&level=intermediate";

fn targets(addr: &str, hello_addr: &str, s: &Seed) -> Vec<Target> {
    let athletes = Arc::new(s.athletes.clone());
    let token = Some(s.token.clone());
    let new = |key, label: &str, host: &str, expect, bearer: Option<String>, make| Target {
        key,
        label: label.to_string(),
        host: host.to_string(),
        expect,
        make,
        bearer,
        cookie: None,
        counter: AtomicU64::new(0),
    };
    let page = |key, label: &str, path: String| Target {
        key,
        label: label.to_string(),
        host: addr.to_string(),
        expect: StatusCode::OK,
        make: Box::new(move |_: u64| (Method::GET, path.clone(), None)),
        bearer: None,
        cookie: Some(s.cookie.clone()),
        counter: AtomicU64::new(0),
    };
    let day0 = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a date");
    vec![
        new(
            "hello",
            "hyper hello-world `GET /`",
            hello_addr,
            StatusCode::OK,
            None,
            Box::new(|_: u64| (Method::GET, "/".into(), None)),
        ),
        new(
            "me",
            "`GET /api/auth/me` (bearer)",
            addr,
            StatusCode::OK,
            token.clone(),
            Box::new(|_: u64| (Method::GET, "/api/auth/me".into(), None)),
        ),
        new(
            "list",
            "`GET /api/athletes?limit=50&status=active&level=intermediate`",
            addr,
            StatusCode::OK,
            token.clone(),
            Box::new(|_: u64| (Method::GET, LIST_PATH.into(), None)),
        ),
        new(
            "create",
            "`POST /api/athletes` (201)",
            addr,
            StatusCode::CREATED,
            token.clone(),
            Box::new(|i: u64| {
                let body = json!({ "firstName": format!("Load{i}"), "lastName": "Writer", "level": "beginner" });
                (Method::POST, "/api/athletes".into(), Some(body.to_string()))
            }),
        ),
        new(
            "enqueue",
            "`POST /api/reports/season/{id}` (202 + job)",
            addr,
            StatusCode::ACCEPTED,
            token,
            Box::new(move |i: u64| {
                // A period no earlier request used: every request enqueues a new job.
                let n = athletes.len() as u64;
                let from = day0 + chrono::Days::new(i / n);
                let to = from + chrono::Days::new(30);
                let body = json!({ "from": from.to_string(), "to": to.to_string() });
                let path = format!("/api/reports/season/{}", athletes[(i % n) as usize]);
                (Method::POST, path, Some(body.to_string()))
            }),
        ),
        page(
            "desk-list",
            "web: the roster page `GET /w/{ws}/athletes` (cookie)",
            format!("/w/{}/athletes", s.org),
        ),
        page(
            "desk-dashboard",
            "web: the dashboard `GET /w/{ws}/` (cookie)",
            format!("/w/{}/", s.org),
        ),
    ]
}

struct DbRun {
    db: String,
    rows: Vec<(String, Vec<Cell>)>,
}

/// One api build on one database: `database_url`, or a fresh SQLite file when `None`.
async fn bench_db(
    p: &Params,
    db: String,
    (slug, bin): (&str, &Path),
    database_url: Option<&str>,
    hello: &Proc,
    hello_addr: &str,
) -> Result<DbRun> {
    let port = free_port()?;
    let addr = format!("127.0.0.1:{port}");
    let dir = p.work.join(format!("api-{slug}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let database_url = database_url.map_or_else(
        || format!("sqlite://{}/service.db", dir.display()),
        str::to_string,
    );
    let env = vec![
        ("DATA_DIR", dir.display().to_string()),
        ("DATABASE_URL", database_url),
        ("BIND_ADDR", addr.clone()),
        ("SECRET_KEY", SECRET_KEY.to_string()),
        ("EMBEDDED_WORKER", "false".to_string()),
        ("PUBLIC_BASE_URL", format!("http://{addr}")),
    ];
    let api = p
        .start(Server {
            name: &format!("api ({db})"),
            bin,
            args: &[],
            env: &env,
            log: &p.work.join(format!("api-{slug}.log")),
            ready_url: &format!("http://{addr}/api/health"),
        })
        .await?;
    say(format_args!("{db}: seeding {} athletes", p.athletes));
    let seed = seed(&format!("http://{addr}"), p.athletes).await?;
    let mut rows = vec![];
    for t in targets(&addr, hello_addr, &seed) {
        if !p.wants_target(t.key) {
            continue;
        }
        let (target_addr, pid) = if t.key == "hello" {
            (hello_addr, hello.pid())
        } else {
            (addr.as_str(), api.pid())
        };
        let t = Arc::new(t);
        let cells = drive(p, target_addr, pid, &t).await;
        rows.push((t.label.clone(), cells));
    }
    drop(api);
    Ok(DbRun { db, rows })
}

fn print(runs: &[DbRun]) {
    println!(
        "| database | route | load | offered (req/s) | achieved (req/s) | p50 (ms) | p99 (ms) | errors | server CPU (µs/req) | machine busy |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in runs {
        for (label, cells) in &r.rows {
            for c in cells {
                println!(
                    "| {} | {label} | {} | {} | {:.0} | {:.2} | {:.2} | {:.2} % | {:.0} | {:.0} % |",
                    r.db,
                    c.level,
                    c.target_rate
                        .map_or("closed loop".into(), |r| format!("{r:.0}")),
                    c.achieved,
                    c.p50_ms,
                    c.p99_ms,
                    c.error_rate * 100.0,
                    c.cpu_us,
                    c.busy * 100.0
                );
            }
        }
    }
    println!();
    println!(
        "| database | `GET /api/auth/me` peak ÷ hello-world peak | server CPU per request, ÷ hello-world's | p99 at 50 % of its peak (ms) |"
    );
    println!("|---|---:|---:|---:|");
    for r in runs {
        let find = |prefix: &str| r.rows.iter().find(|(l, _)| l.starts_with(prefix));
        let (Some((_, hello)), Some((_, me))) = (find("hyper"), find("`GET /api/auth/me`")) else {
            continue;
        };
        println!(
            "| {} | {:.2}× ({:.0} ÷ {:.0}) | {:.1}× ({:.0} ÷ {:.0} µs) | {:.2} |",
            r.db,
            me[0].achieved / hello[0].achieved,
            me[0].achieved,
            hello[0].achieved,
            me[0].cpu_us / hello[0].cpu_us,
            me[0].cpu_us,
            hello[0].cpu_us,
            me[1].p99_ms
        );
    }
}

async fn run(p: Params) -> Result<()> {
    std::fs::create_dir_all(&p.work)?;
    let hello_port = free_port()?;
    let hello_addr = format!("127.0.0.1:{hello_port}");
    let port_arg = hello_port.to_string();
    let hello = p
        .start(Server {
            name: "hello",
            bin: &p.self_bin,
            args: &["hello", &port_arg],
            env: &[],
            log: &p.work.join("hello.log"),
            ready_url: &format!("http://{hello_addr}/"),
        })
        .await?;
    let mut runs = vec![];
    let named = |db: &str, label: &str| {
        if label.is_empty() {
            db.to_string()
        } else {
            format!("{db}, {label}")
        }
    };
    if p.wants_db("sqlite") {
        for (i, (label, bin)) in p.api_bins.iter().enumerate() {
            let slug = format!("sqlite-{i}");
            let name = named("SQLite", label.as_str());
            runs.push(
                bench_db(
                    &p,
                    name,
                    (slug.as_str(), bin.as_path()),
                    None,
                    &hello,
                    &hello_addr,
                )
                .await?,
            );
        }
    }
    for (i, (label, bin)) in p.api_bins.iter().enumerate() {
        if !p.wants_db("postgres") {
            break;
        }
        match &p.pg_url {
            None => say("BENCH_PG_URL unset: SQLite only"),
            Some(admin) => {
                let name = format!("bench_load_{}_{i}", std::process::id());
                let slug = format!("pg-{i}");
                let db = named("PostgreSQL", label.as_str());
                let run = pg::with_database(admin, &name, async |url| {
                    let bin = (slug.as_str(), bin.as_path());
                    bench_db(&p, db, bin, Some(url), &hello, &hello_addr).await
                })
                .await?;
                runs.push(run);
            }
        }
    }
    drop(hello);
    print(&runs);
    Ok(())
}

/// The same allocator as the `api` (api/src/main.rs), so the hello-world peer is not
/// measured with a slower one.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("hello") {
        let Some(port) = args.get(2).and_then(|p| p.parse().ok()) else {
            bail!("usage: bench_load hello <port>");
        };
        return rt.block_on(hello(port));
    }
    worker::install_crypto_provider();
    let p = Params::from_env()?;
    rt.block_on(run(p))
}
