//! `bench_video`: the video stream proxy benchmark. Run it with `scripts/bench-video`, which
//! builds the release binaries and starts a dedicated s3s-fs first.
//!
//! One object of `BENCH_VIDEO_BYTES` (1 GiB) with deterministic content (every response's first
//! bytes are checked) is streamed into S3 and into a local store with `Storage::put`, never held
//! in memory. Then, for each source, a fresh real `api` process (release binary next to this
//! one, SQLite, `EMBEDDED_WORKER=false` so its memory is the proxy's own) is started and:
//!
//! - **memory**: after a warm-up, idle VmRSS; then `BENCH_VIDEO_STREAMS` (50) readers each open
//!   a whole-object GET and drain it at `BENCH_VIDEO_READ_KIB_S` (1024 KiB/s, a player at about
//!   8 Mbit/s), so the api is held back by its clients; VmRSS is sampled for
//!   `BENCH_VIDEO_MEM_SECS` (10). Per stream = (highest sample − idle) / streams.
//! - **throughput**: 1 and 50 readers (`BENCH_VIDEO_READERS`), each looping over ranged GETs of
//!   `BENCH_VIDEO_RANGE_MIB` (8) striped over the object (reader r takes blocks r, r+n, …) for
//!   `BENCH_VIDEO_SECS` (10), through the proxy and straight from the source:
//!   - `s3`: the api on s3s-fs vs a presigned GET URL on the same s3s-fs;
//!   - `external`: the api in front of an allow-listed origin (this binary run as
//!     `bench_video origin`, a separate process serving the local store's file with Range) vs
//!     that origin directly, and vs the proxy's peer, nginx's `proxy_pass` in front of the
//!     same origin (started here when `/usr/sbin/nginx` exists: at its defaults and at the
//!     settings its documentation gives for large responses, [`NGINX_PROXIES`]); and, when
//!     `BENCH_NGINX_URL` is set, the api in front of that nginx (below) as the origin vs nginx
//!     directly;
//!   - `local`: the api on the local store vs `pread` of the same file by this process (no HTTP:
//!     a ceiling, not a peer), and, when `BENCH_NGINX_URL` names an nginx serving the store's
//!     directory (`scripts/bench-video` starts one if nginx is installed), vs that nginx.
//!
//! Every throughput cell runs in each of `BENCH_VIDEO_PLACEMENTS` (`shared,split`,
//! [`Placement`]): all processes on all CPUs, and the proxy pinned to a CPU of its own. The
//! shared table also gives each cell's CPU ceiling ([`cpu_ceiling`]).
//!
//! CPU time of each process (api, origin or s3s-fs, this client) per GiB served and the
//! machine's busy share are printed to stderr; the Markdown tables go to stdout.
//!
//! Environment besides the above: `BENCH_ROOT` (the repository; work directory
//! `.tmp/bench-video`), `BENCH_S3_ENDPOINT` (required for `s3`), `BENCH_S3_PIDFILE` (s3s-fs's
//! pid file, for its CPU time), `BENCH_ONLY` (comma-separated sources: `s3`, `external`,
//! `local`).

use anyhow::{Context, Result, anyhow, bail, ensure};
use bench::proc::{MachineCpu, children, cpu_secs, rss_kib};
use bench::process::{Proc, Server, free_port};
use bench::{env, say};
use bytes::Bytes;
use shared::crypto::Keys;
use shared::db::Id;
use shared::storage::{Storage, StorageConfig, Store};
use shared::video::token::{self, StreamGrant, VideoSource};
use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const STORE: Store = Store::SessionVideos;
const KEY: &str = "bench/video.bin";
/// Marks objects written by this generator, so a stale object of another size or generator
/// is rewritten instead of trusted.
const CONTENT_TYPE: &str = "application/x-bench-video-v1";
const SECRET_KEY: &str = "bench-video-secret-key-not-for-production-use";
const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

struct Params {
    bytes: u64,
    secs: Duration,
    range: u64,
    readers: Vec<usize>,
    placements: Vec<Placement>,
    /// CPUs this process may use when it starts (before any placement pins it).
    cpus: usize,
    streams: usize,
    read_rate: u64,
    mem_secs: Duration,
    only: Option<Vec<String>>,
    s3_endpoint: Option<String>,
    s3_pidfile: Option<PathBuf>,
    nginx_pidfile: Option<PathBuf>,
    work: PathBuf,
    api_bin: PathBuf,
}

impl Params {
    fn from_env() -> Result<Params> {
        let readers = env::opt("BENCH_VIDEO_READERS")
            .unwrap_or_else(|| "1,50".into())
            .split(',')
            .map(|n| n.trim().parse::<usize>().ok().filter(|&n| n > 0))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| anyhow!("BENCH_VIDEO_READERS must be positive numbers, e.g. 1,50"))?;
        let placements = env::opt("BENCH_VIDEO_PLACEMENTS")
            .unwrap_or_else(|| "shared,split".into())
            .split(',')
            .map(|v| Placement::parse(v.trim()))
            .collect::<Result<Vec<_>>>()?;
        let exe = std::env::current_exe()?;
        let p = Params {
            bytes: env::num("BENCH_VIDEO_BYTES", 1 << 30)?,
            secs: Duration::from_secs(env::num("BENCH_VIDEO_SECS", 10)?),
            range: env::num("BENCH_VIDEO_RANGE_MIB", 8)? * MIB,
            readers,
            placements,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            streams: env::num("BENCH_VIDEO_STREAMS", 50)? as usize,
            read_rate: env::num("BENCH_VIDEO_READ_KIB_S", 1024)? * 1024,
            mem_secs: Duration::from_secs(env::num("BENCH_VIDEO_MEM_SECS", 10)?),
            only: env::list("BENCH_ONLY"),
            s3_endpoint: env::opt("BENCH_S3_ENDPOINT"),
            s3_pidfile: env::opt("BENCH_S3_PIDFILE").map(PathBuf::from),
            nginx_pidfile: env::opt("BENCH_NGINX_PIDFILE").map(PathBuf::from),
            work: env::root().join(".tmp/bench-video"),
            api_bin: exe.with_file_name("api"),
        };
        ensure!(
            p.bytes >= p.range,
            "BENCH_VIDEO_BYTES must be at least one range"
        );
        ensure!(
            p.range > 0 && p.streams > 0 && p.read_rate > 0,
            "zero range, streams or rate"
        );
        ensure!(
            p.api_bin.exists(),
            "{} missing: cargo build --release -p api",
            p.api_bin.display()
        );
        Ok(p)
    }

    fn wants(&self, source: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == source))
    }
}

// --- the object's content -------------------------------------------------------------------

/// The 8 bytes at offset `8 * k`: a cheap mix, so a wrong offset or a shifted range shows.
fn word(k: u64) -> [u8; 8] {
    let mut z = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^= z >> 31;
    z.to_le_bytes()
}

/// The bytes at `[offset, offset + len)`.
fn content(offset: u64, len: usize) -> Vec<u8> {
    (offset..offset + len as u64)
        .map(|i| word(i / 8)[(i % 8) as usize])
        .collect()
}

/// The object as a lazily generated stream of 1 MiB chunks.
fn object_stream(size: u64) -> impl futures::Stream<Item = std::io::Result<Bytes>> + Send {
    futures::stream::iter((0..size.div_ceil(MIB)).map(move |i| {
        let start = i * MIB;
        let len = MIB.min(size - start) as usize;
        let mut buf = Vec::with_capacity(len);
        for k in start / 8..(start + len as u64).div_ceil(8) {
            buf.extend_from_slice(&word(k));
        }
        buf.truncate(len);
        Ok(Bytes::from(buf))
    }))
}

/// Puts the object unless an identical one (same size and generator) is already there.
async fn ensure_object(storage: &Storage, size: u64) -> Result<()> {
    if let Some(m) = storage.head(STORE, KEY).await?
        && m.size == size
        && m.content_type.as_deref() == Some(CONTENT_TYPE)
    {
        say(format_args!(
            "{} object already stored",
            storage.backend_name()
        ));
        return Ok(());
    }
    let t = Instant::now();
    let n = storage
        .put(STORE, KEY, object_stream(size), CONTENT_TYPE)
        .await?;
    ensure!(n == size, "stored {n} bytes, expected {size}");
    say(format_args!(
        "stored {size} bytes in the {} store in {:.1} s",
        storage.backend_name(),
        t.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// The number of leading bytes of each response that are compared with [`content`].
const CHECKED: usize = 64;

// --- processes ------------------------------------------------------------------------------

/// Starts a server on every CPU (a placement pins it later) and waits up to 30 s for it.
async fn start(server: Server<'_>) -> Result<Proc> {
    server.start(None, Duration::from_secs(30)).await
}

/// CPU use of the processes that take part in a run, measured around it.
struct CpuMeter {
    pids: Vec<(String, u32)>,
    start: Vec<f64>,
    machine: MachineCpu,
}

#[derive(Clone)]
struct CpuUse {
    /// CPU seconds per process name.
    per_proc: Vec<(String, f64)>,
    /// Share of the machine's CPU time that was busy (all processes, ours or not).
    busy: f64,
}

impl CpuMeter {
    fn start(pids: Vec<(String, u32)>) -> CpuMeter {
        let start = pids.iter().map(|(_, p)| cpu_secs(*p)).collect();
        CpuMeter {
            pids,
            start,
            machine: MachineCpu::now(),
        }
    }

    /// Processes that share a name (nginx's workers) are summed.
    fn stop(self) -> CpuUse {
        let machine = MachineCpu::now();
        let mut per_proc: Vec<(String, f64)> = Vec::new();
        for ((n, p), s) in self.pids.iter().zip(&self.start) {
            let used = cpu_secs(*p) - s;
            match per_proc.iter_mut().find(|(m, _)| m == n) {
                Some((_, t)) => *t += used,
                None => per_proc.push((n.clone(), used)),
            }
        }
        CpuUse {
            per_proc,
            busy: machine.busy_since(self.machine),
        }
    }
}

// --- placement ------------------------------------------------------------------------------

/// Where the processes of a cell run.
#[derive(Clone, Copy, PartialEq)]
enum Placement {
    /// Every process on every CPU: the source, the proxy and the readers share the machine.
    Shared,
    /// The proxy (or the server it is held against) on CPU 1; the source and the readers on
    /// CPU 0. The deployment's picture on one machine: the proxy has its own CPU, as it has
    /// its own machine in production, and the direct read gets no more than the source's.
    Split,
}

/// CPU names of the processes that sit on the proxy's side in [`Placement::Split`], besides
/// those a [`Source`] adds (the file server the local store is held against).
const PROXY_SIDE: [&str; 2] = ["api", NGINX_CPU];

impl Placement {
    fn parse(v: &str) -> Result<Placement> {
        match v {
            "shared" => Ok(Placement::Shared),
            "split" => Ok(Placement::Split),
            _ => bail!("BENCH_VIDEO_PLACEMENTS takes shared and split, not {v:?}"),
        }
    }

    fn title(self) -> &'static str {
        match self {
            Placement::Shared => "source, proxy and readers sharing all CPUs",
            Placement::Split => {
                "the proxy (or the server it is held against) on CPU 1, the source and the readers on CPU 0"
            }
        }
    }

    /// Pins every thread of the processes in `pids` (`taskset -a`): in `Split`, those named in
    /// [`PROXY_SIDE`] or `proxy_side` to CPU 1 and the others to CPU 0; in `Shared`, all to
    /// every CPU.
    fn apply(self, cpus: usize, pids: &[(String, u32)], proxy_side: &[&str]) -> Result<()> {
        ensure!(
            self == Placement::Shared || cpus >= 2,
            "the split placement needs two CPUs; set BENCH_VIDEO_PLACEMENTS=shared"
        );
        for (name, pid) in pids {
            let list = match self {
                Placement::Shared => format!("0-{}", cpus - 1),
                Placement::Split
                    if PROXY_SIDE.contains(&name.as_str())
                        || proxy_side.contains(&name.as_str()) =>
                {
                    "1".into()
                }
                Placement::Split => "0".into(),
            };
            let out = Command::new("taskset")
                .args(["-a", "-p", "-c", &list, &pid.to_string()])
                .stdout(Stdio::null())
                .output()
                .context("running taskset (util-linux)")?;
            ensure!(
                out.status.success(),
                "taskset {list} for {name} (pid {pid}): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }
}

// --- throughput -----------------------------------------------------------------------------

#[derive(Clone)]
enum Target {
    Http(String),
    File(PathBuf),
}

#[derive(Clone)]
struct Run {
    bytes: u64,
    secs: f64,
    requests: u64,
    cpu: CpuUse,
}

impl Run {
    fn mb_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.secs
    }

    fn cpu_per_gib(&self, name: &str) -> Option<f64> {
        let gib = self.bytes as f64 / GIB;
        self.cpu
            .per_proc
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s / gib)
    }

    /// CPU seconds per GiB of all the counted processes together.
    fn cpu_total_per_gib(&self) -> f64 {
        let gib = self.bytes as f64 / GIB;
        self.cpu.per_proc.iter().map(|(_, s)| s).sum::<f64>() / gib
    }

    fn detail(&self) -> String {
        let mut s = format!(
            "{:.0} MB/s, {} requests, machine {:.0}% busy; CPU s/GiB:",
            self.mb_s(),
            self.requests,
            self.cpu.busy * 100.0
        );
        for (n, _) in &self.cpu.per_proc {
            let _ = write!(s, " {n} {:.2}", self.cpu_per_gib(n).unwrap_or(0.0));
        }
        s
    }
}

/// The blocks reader `r` of `n` reads: r, r+n, r+2n, … wrapping around the object.
fn block(r: usize, n: usize, i: u64, blocks: u64) -> u64 {
    (r as u64 + i * n as u64) % blocks
}

async fn read_http(
    client: reqwest::Client,
    url: String,
    r: usize,
    n: usize,
    p: Arc<(u64, u64)>,
    deadline: Instant,
) -> Result<(u64, u64)> {
    let (size, range) = *p;
    let blocks = size / range;
    let (mut bytes, mut requests) = (0u64, 0u64);
    for i in 0.. {
        let start = block(r, n, i, blocks) * range;
        let end = start + range - 1;
        let mut resp = client
            .get(&url)
            .header(reqwest::header::RANGE, format!("bytes={start}-{end}"))
            .send()
            .await?;
        ensure!(
            resp.status() == reqwest::StatusCode::PARTIAL_CONTENT,
            "{url}: {} for bytes={start}-{end}",
            resp.status()
        );
        requests += 1;
        let mut seen = 0u64;
        while let Some(chunk) = resp.chunk().await? {
            if seen < CHECKED as u64 {
                let k = (CHECKED - seen as usize).min(chunk.len());
                ensure!(
                    chunk[..k] == content(start + seen, k)[..],
                    "{url}: wrong bytes at {}",
                    start + seen
                );
            }
            seen += chunk.len() as u64;
            bytes += chunk.len() as u64;
            if Instant::now() >= deadline {
                return Ok((bytes, requests));
            }
        }
        ensure!(
            seen == range,
            "{url}: {seen} bytes for a {range}-byte range"
        );
    }
    unreachable!("the loop returns at the deadline")
}

fn read_file(
    path: &Path,
    r: usize,
    n: usize,
    size: u64,
    range: u64,
    deadline: Instant,
) -> Result<(u64, u64)> {
    let file = File::open(path)?;
    let blocks = size / range;
    let mut buf = vec![0u8; MIB as usize];
    let (mut bytes, mut requests) = (0u64, 0u64);
    for i in 0.. {
        let start = block(r, n, i, blocks) * range;
        requests += 1;
        let mut off = 0;
        while off < range {
            let want = (range - off).min(MIB) as usize;
            file.read_exact_at(&mut buf[..want], start + off)?;
            if off == 0 {
                ensure!(
                    buf[..CHECKED] == content(start, CHECKED)[..],
                    "wrong bytes at {start}"
                );
            }
            off += want as u64;
            bytes += want as u64;
            if Instant::now() >= deadline {
                return Ok((bytes, requests));
            }
        }
    }
    unreachable!("the loop returns at the deadline")
}

async fn throughput(
    target: &Target,
    readers: usize,
    p: &Params,
    pids: Vec<(String, u32)>,
) -> Result<Run> {
    let shape = Arc::new((p.bytes, p.range));
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()?;
    let meter = CpuMeter::start(pids);
    let t = Instant::now();
    let deadline = t + p.secs;
    let mut tasks = Vec::new();
    for r in 0..readers {
        tasks.push(match target {
            Target::Http(url) => tokio::spawn(read_http(
                client.clone(),
                url.clone(),
                r,
                readers,
                shape.clone(),
                deadline,
            )),
            Target::File(path) => {
                let path = path.clone();
                let (size, range) = (p.bytes, p.range);
                tokio::task::spawn_blocking(move || {
                    read_file(&path, r, readers, size, range, deadline)
                })
            }
        });
    }
    let (mut bytes, mut requests) = (0, 0);
    for t in tasks {
        let (b, n) = t.await??;
        bytes += b;
        requests += n;
    }
    let secs = t.elapsed().as_secs_f64();
    Ok(Run {
        bytes,
        secs,
        requests,
        cpu: meter.stop(),
    })
}

// --- memory ---------------------------------------------------------------------------------

struct Mem {
    idle_kib: u64,
    /// (seconds since all streams were open, VmRSS KiB)
    samples: Vec<(f64, u64)>,
    after_kib: u64,
    streams: usize,
    /// Bytes each stream received, lowest and highest.
    received: (u64, u64),
}

impl Mem {
    fn peak(&self) -> u64 {
        self.samples.iter().map(|s| s.1).max().unwrap_or(0)
    }

    fn per_stream_kib(&self) -> f64 {
        self.peak().saturating_sub(self.idle_kib) as f64 / self.streams as f64
    }

    /// Start, middle and end samples.
    fn start_mid_end(&self) -> [u64; 3] {
        let s = &self.samples;
        [s[0].1, s[s.len() / 2].1, s[s.len() - 1].1]
    }
}

/// One whole-object stream drained at `rate` bytes/s until `stop` is set; `open` counts streams
/// that have their first bytes. Returns the bytes read.
async fn slow_reader(
    client: reqwest::Client,
    url: String,
    size: u64,
    rate: u64,
    open: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Result<u64> {
    let mut resp = client.get(&url).send().await?;
    ensure!(
        resp.status() == reqwest::StatusCode::OK,
        "{url}: {}",
        resp.status()
    );
    ensure!(
        resp.content_length() == Some(size),
        "{url}: wrong Content-Length"
    );
    let t = Instant::now();
    let mut got = 0u64;
    let mut first = true;
    while !stop.load(Ordering::SeqCst) {
        let Some(chunk) = resp.chunk().await? else {
            bail!("{url}: the stream ended after {got} bytes");
        };
        if got < CHECKED as u64 {
            let k = (CHECKED - got as usize).min(chunk.len());
            ensure!(
                chunk[..k] == content(got, k)[..],
                "{url}: wrong bytes at {got}"
            );
        }
        got += chunk.len() as u64;
        if first {
            open.fetch_add(1, Ordering::SeqCst);
            first = false;
        }
        // Ahead of the player's pace: wait, and let back-pressure build up behind us.
        let due = Duration::from_secs_f64(got as f64 / rate as f64);
        if let Some(wait) = due.checked_sub(t.elapsed()) {
            tokio::time::sleep(wait).await;
        }
    }
    Ok(got)
}

async fn memory(api: &Proc, url: &str, p: &Params) -> Result<Mem> {
    let pid = api.pid();
    // Warm-up: a ranged read and a whole-object stream dropped early, so lazily built state
    // (connection pools, TLS and S3 client set-up, allocator arenas) is in the idle figure.
    let client = reqwest::Client::builder().no_proxy().build()?;
    for _ in 0..2 {
        let r = client
            .get(url)
            .header(reqwest::header::RANGE, format!("bytes=0-{}", p.range - 1))
            .send()
            .await?;
        ensure!(
            r.bytes().await?.len() as u64 == p.range,
            "warm-up read short"
        );
        let mut r = client.get(url).send().await?;
        r.chunk().await?;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_kib = rss_kib(pid)?;

    let open = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers: Vec<_> = (0..p.streams)
        .map(|_| {
            // One client per stream: a connection of its own, as separate viewers have.
            let c = reqwest::Client::builder().no_proxy().build();
            let (url, open, stop) = (url.to_string(), open.clone(), stop.clone());
            let (size, rate) = (p.bytes, p.read_rate);
            tokio::spawn(async move { slow_reader(c?, url, size, rate, open, stop).await })
        })
        .collect();
    let wait_open = Instant::now();
    while open.load(Ordering::SeqCst) < p.streams {
        ensure!(
            wait_open.elapsed() < Duration::from_secs(20),
            "only {} of {} streams opened",
            open.load(Ordering::SeqCst),
            p.streams
        );
        if let Some(i) = readers.iter().position(|r| r.is_finished()) {
            readers.swap_remove(i).await??;
            bail!("a stream ended early");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let t = Instant::now();
    let mut samples = Vec::new();
    while t.elapsed() < p.mem_secs {
        samples.push((t.elapsed().as_secs_f64(), rss_kib(pid)?));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    samples.push((t.elapsed().as_secs_f64(), rss_kib(pid)?));
    if let Some(i) = readers.iter().position(|r| r.is_finished()) {
        readers.swap_remove(i).await??;
        bail!("a stream ended before the last sample");
    }
    stop.store(true, Ordering::SeqCst);
    let mut received = (u64::MAX, 0);
    for r in readers {
        let n = tokio::time::timeout(Duration::from_secs(10), r)
            .await
            .context("a slow reader did not stop")???;
        received = (received.0.min(n), received.1.max(n));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    Ok(Mem {
        idle_kib,
        samples,
        after_kib: rss_kib(pid)?,
        streams: p.streams,
        received,
    })
}

// --- sources --------------------------------------------------------------------------------

fn token_url(base: &str, source: VideoSource) -> String {
    let now = shared::db::Ts::now().0.timestamp();
    let grant = StreamGrant::new(Id::new(), Id::new(), source, now);
    format!(
        "{base}/api/video/stream?token={}",
        token::sign(&Keys::new(SECRET_KEY.as_bytes()), &grant)
    )
}

/// The environment of an api process on `port`; `extra` chooses its storage and origins.
fn api_env(
    p: &Params,
    name: &str,
    port: u16,
    extra: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let dir = p.work.join(format!("api-{name}"));
    let mut env = vec![
        ("DATA_DIR", dir.display().to_string()),
        (
            "DATABASE_URL",
            format!("sqlite://{}/service.db", dir.display()),
        ),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("SECRET_KEY", SECRET_KEY.to_string()),
        ("EMBEDDED_WORKER", "false".to_string()),
        // The api allocates with mimalloc, which keeps freed pages until its heap is next
        // used: the idle figure after the warm-up would hold the warm-up's garbage (measured:
        // idle 88 MiB, then 69 MiB with 50 streams open, "0 KiB per stream"). Returned at
        // once, RSS follows live memory, which is what the per-stream figure is about.
        ("MIMALLOC_PURGE_DELAY", "0".to_string()),
    ];
    env.extend_from_slice(extra);
    env
}

/// One source: the api's environment, the stream token's source, the direct reads it is held
/// against (each with its label) and the processes whose CPU time counts.
struct Source {
    id: &'static str,
    label: &'static str,
    api_extra: Vec<(&'static str, String)>,
    video: VideoSource,
    directs: Vec<(&'static str, Target)>,
    peers: Vec<(String, u32)>,
    /// CPU names of the peers that go on the proxy's CPU in [`Placement::Split`]: a server
    /// the proxy is held against, rather than a source behind it.
    proxy_side: Vec<&'static str>,
    /// Other proxies in front of the same source, read after the direct reads.
    others: Vec<OtherProxy>,
}

/// A peer of the api's proxy: its label, URL and the name its processes' CPU time is counted
/// under.
#[derive(Clone)]
struct OtherProxy {
    label: String,
    url: String,
    cpu: &'static str,
}

/// An other proxy's run against the first direct read of the same cell.
struct OtherRow {
    placement: Placement,
    source: &'static str,
    label: String,
    cpu: &'static str,
    readers: usize,
    run: Run,
    direct: Run,
}

struct Row {
    placement: Placement,
    source: &'static str,
    direct_label: &'static str,
    readers: usize,
    proxy: Run,
    direct: Run,
}

async fn bench_source(
    p: &Params,
    s: &Source,
    rows: &mut Vec<Row>,
    other_rows: &mut Vec<OtherRow>,
) -> Result<Mem> {
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let env = api_env(p, s.id, port, &s.api_extra);
    let dir = p.work.join(format!("api-{}", s.id));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let api = start(Server {
        name: &format!("api ({})", s.id),
        bin: &p.api_bin,
        args: &[],
        env: &env,
        log: &p.work.join(format!("api-{}.log", s.id)),
        ready_url: &format!("{base}/api/health"),
    })
    .await?;
    let url = token_url(&base, s.video.clone());

    say(format_args!("{}: memory, {} slow streams", s.id, p.streams));
    let mem = memory(&api, &url, p).await?;
    let [a, b, c] = mem.start_mid_end();
    say(format_args!(
        "{}: RSS idle {} KiB, streaming {a}/{b}/{c} KiB (start/middle/end), after {} KiB; {:.0} KiB per stream",
        s.id,
        mem.idle_kib,
        mem.after_kib,
        mem.per_stream_kib()
    ));

    let mut pids = vec![
        ("api".to_string(), api.pid()),
        ("client".to_string(), std::process::id()),
    ];
    pids.extend(s.peers.iter().cloned());
    for (&placement, &n) in p
        .placements
        .iter()
        .flat_map(|pl| p.readers.iter().map(move |n| (pl, n)))
    {
        placement.apply(p.cpus, &pids, &s.proxy_side)?;
        let proxy = throughput(&Target::Http(url.clone()), n, p, pids.clone()).await?;
        say(format_args!(
            "{} proxy, {n} readers: {}",
            s.id,
            proxy.detail()
        ));
        let mut first_direct = None;
        for (label, target) in &s.directs {
            let direct = throughput(target, n, p, pids.clone()).await?;
            first_direct.get_or_insert_with(|| direct.clone());
            say(format_args!(
                "{} direct ({label}), {n} readers: {}",
                s.id,
                direct.detail()
            ));
            rows.push(Row {
                placement,
                source: s.label,
                direct_label: label,
                readers: n,
                proxy: proxy.clone(),
                direct,
            });
        }
        let Some(first_direct) = first_direct else {
            continue;
        };
        for o in &s.others {
            let run = throughput(&Target::Http(o.url.clone()), n, p, pids.clone()).await?;
            say(format_args!(
                "{} {}, {n} readers: {}",
                s.id,
                o.label,
                run.detail()
            ));
            other_rows.push(OtherRow {
                placement,
                source: s.label,
                label: o.label.clone(),
                cpu: o.cpu,
                readers: n,
                run,
                direct: first_direct.clone(),
            });
        }
    }
    // The next source starts (and its memory is measured) with everything on every CPU.
    Placement::Shared.apply(p.cpus, &pids, &s.proxy_side)?;
    Ok(mem)
}

// --- the origin server ----------------------------------------------------------------------

/// `bench_video origin <storage dir> <port>`: a minimal static origin, the local store's object
/// at `/video.bin` with the same range semantics as the proxy, and `/health`.
async fn origin(dir: &str, port: u16) -> Result<()> {
    use axum::http::{HeaderMap, Method};
    let storage = Storage::new(&StorageConfig::local(dir)).await?;
    let app = axum::Router::new()
        .route(
            "/video.bin",
            axum::routing::get(move |method: Method, headers: HeaderMap| {
                let storage = storage.clone();
                async move {
                    api::http::ranged::serve_stored(&storage, STORE, KEY, &headers, &method, None)
                        .await
                }
            }),
        )
        .route("/health", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

// --- nginx as a proxy in front of the origin -----------------------------------------------

/// nginx's reverse proxy in front of the external origin, the peer of the api's proxy: one
/// nginx, one server per setting, each proxy's CPU counted over the master and its workers.
#[derive(Default)]
struct PeerProxies {
    proxies: Vec<OtherProxy>,
    cpu: Vec<(String, u32)>,
    _nginx: Option<Proc>,
}

/// The settings nginx is run with, each on a port of its own: its defaults (buffered, a new
/// upstream connection per request, buffers of a page, a response larger than them spilled to
/// a temporary file) and the settings its documentation gives for streaming large responses:
/// upstream keep-alive (`keepalive`, HTTP/1.1, an empty `Connection`), and either buffering in
/// memory only (`proxy_max_temp_file_size 0`, larger buffers) or no buffering
/// (`proxy_buffering off`, relayed as it arrives through one `proxy_buffer_size` buffer).
const NGINX_PROXIES: [(&str, &str); 3] = [
    ("nginx 1.22 proxy_pass, defaults", ""),
    (
        "nginx 1.22 proxy_pass, keep-alive, buffered in memory (16 × 64 KiB)",
        "proxy_buffering on; proxy_buffer_size 64k; proxy_buffers 16 64k; \
         proxy_busy_buffers_size 128k; proxy_max_temp_file_size 0;",
    ),
    (
        "nginx 1.22 proxy_pass, keep-alive, unbuffered (256 KiB)",
        // The buffered mode's settings must stay consistent even when it is off.
        "proxy_buffering off; proxy_buffer_size 256k; proxy_buffers 4 256k; \
         proxy_busy_buffers_size 256k;",
    ),
];

const NGINX_CPU: &str = "nginx proxy";

/// Starts nginx in front of the origin on `origin_port` when it is installed (none otherwise).
async fn peer_proxies(p: &Params, origin_port: u16) -> Result<PeerProxies> {
    let dir = p.work.join("nginx-proxy");
    std::fs::create_dir_all(&dir)?;
    let mut servers = String::new();
    let mut proxies = Vec::new();
    for (i, (label, settings)) in NGINX_PROXIES.iter().enumerate() {
        let port = free_port()?;
        let keepalive = if settings.is_empty() {
            format!("proxy_pass http://127.0.0.1:{origin_port};")
        } else {
            "proxy_pass http://origin; proxy_http_version 1.1; \
             proxy_set_header Connection \"\";"
                .to_string()
        };
        let _ = writeln!(
            servers,
            "  server {{ listen 127.0.0.1:{port}; location / {{ {keepalive} {settings} }} }} # {i}"
        );
        proxies.push(OtherProxy {
            label: label.to_string(),
            url: format!("http://127.0.0.1:{port}/video.bin"),
            cpu: NGINX_CPU,
        });
    }
    let d = dir.display();
    let conf = format!(
        "worker_processes auto;\nuser root;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 4096; }}\n\
         http {{\n  access_log off;\n  tcp_nodelay on;\n  keepalive_requests 1000000;\n\
         client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
         upstream origin {{ server 127.0.0.1:{origin_port}; keepalive 128; }}\n{servers}}}\n"
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf)?;
    let nginx = Path::new("/usr/sbin/nginx");
    if !nginx.exists() {
        say("no /usr/sbin/nginx: the api's proxy is not compared with nginx's");
        return Ok(PeerProxies::default());
    }
    let ready = proxies[0].url.replace("/video.bin", "/health");
    let conf_arg = conf_path.display().to_string();
    let proc = start(Server {
        name: "nginx proxy",
        bin: nginx,
        args: &["-c", &conf_arg, "-g", "daemon off;"],
        env: &[],
        log: &dir.join("nginx.log"),
        ready_url: &ready,
    })
    .await?
    .term_on_drop();
    let mut cpu = vec![(NGINX_CPU.to_string(), proc.pid())];
    cpu.extend(
        children(proc.pid())
            .into_iter()
            .map(|c| (NGINX_CPU.to_string(), c)),
    );
    say(format_args!("nginx proxies: {} processes", cpu.len()));
    Ok(PeerProxies {
        proxies,
        cpu,
        _nginx: Some(proc),
    })
}

// --- main -----------------------------------------------------------------------------------

fn ratio(a: &Run, b: &Run) -> f64 {
    a.mb_s() / b.mb_s()
}

fn cpu_cell(run: &Run, name: &str) -> String {
    run.cpu_per_gib(name)
        .map_or("–".into(), |s| format!("{s:.2}"))
}

/// The throughput a proxy could reach against the direct read if both were bound by the CPU
/// alone: the CPU the direct read costs per GiB over what the proxied read costs (every
/// counted process: source, proxy, readers). On a saturated machine an extra process that
/// handles every byte caps the ratio here, however little it spends.
fn cpu_ceiling(proxy: &Run, direct: &Run) -> f64 {
    direct.cpu_total_per_gib() / proxy.cpu_total_per_gib()
}

/// The CPU ceiling's cell, printed in the shared placement only (pinned processes do not
/// share one pool of CPU, so the ceiling means nothing there).
fn ceiling_cell(shared: bool, proxy: &Run, direct: &Run) -> String {
    if shared {
        format!(" {:.2}× |", cpu_ceiling(proxy, direct))
    } else {
        String::new()
    }
}

fn print_tables(p: &Params, rows: &[Row], other_rows: &[OtherRow], mems: &[(&str, Mem)]) {
    println!(
        "Throughput: {} MiB ranged GETs over a {:.2} GiB object, {} s per cell; CPU is seconds per GiB served.",
        p.range / MIB,
        p.bytes as f64 / GIB,
        p.secs.as_secs()
    );
    for &placement in &p.placements {
        let shared = placement == Placement::Shared;
        println!("\nPlacement: {}.\n", placement.title());
        println!(
            "| source | direct read | readers | proxy MB/s | direct MB/s | proxy / direct |{} api CPU s/GiB | machine busy (proxy / direct) |",
            if shared { " CPU ceiling |" } else { "" }
        );
        println!(
            "|---|---|---:|---:|---:|---:|{}---:|---:|",
            if shared { "---:|" } else { "" }
        );
        for r in rows.iter().filter(|r| r.placement == placement) {
            let ceiling = ceiling_cell(shared, &r.proxy, &r.direct);
            println!(
                "| {} | {} | {} | {:.0} | {:.0} | {:.2}× |{ceiling} {} | {:.0}% / {:.0}% |",
                r.source,
                r.direct_label,
                r.readers,
                r.proxy.mb_s(),
                r.direct.mb_s(),
                ratio(&r.proxy, &r.direct),
                cpu_cell(&r.proxy, "api"),
                r.proxy.cpu.busy * 100.0,
                r.direct.cpu.busy * 100.0,
            );
        }
        let others: Vec<&OtherRow> = other_rows
            .iter()
            .filter(|r| r.placement == placement)
            .collect();
        if others.is_empty() {
            continue;
        }
        println!(
            "\nOther proxies in front of the same source, against the same direct read (its first, in the same cell), {}:\n",
            placement.title()
        );
        println!(
            "| source | proxy | readers | proxy MB/s | direct MB/s | proxy / direct |{} proxy CPU s/GiB |",
            if shared { " CPU ceiling |" } else { "" }
        );
        println!(
            "|---|---|---:|---:|---:|---:|{}---:|",
            if shared { "---:|" } else { "" }
        );
        for r in others {
            let ceiling = ceiling_cell(shared, &r.run, &r.direct);
            println!(
                "| {} | {} | {} | {:.0} | {:.0} | {:.2}× |{ceiling} {} |",
                r.source,
                r.label,
                r.readers,
                r.run.mb_s(),
                r.direct.mb_s(),
                ratio(&r.run, &r.direct),
                cpu_cell(&r.run, r.cpu),
            );
        }
    }
    println!(
        "\nMemory: {} streams of the whole object, each drained at {} KiB/s, VmRSS of the api sampled every 0.5 s for {} s.\n",
        p.streams,
        p.read_rate / 1024,
        p.mem_secs.as_secs()
    );
    println!(
        "| source | idle RSS (MiB) | streaming RSS start / middle / end (MiB) | after (MiB) | per stream (KiB) | bytes read per stream (MiB) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (label, m) in mems {
        let [a, b, c] = m.start_mid_end();
        let mib = |k: u64| k as f64 / 1024.0;
        println!(
            "| {label} | {:.1} | {:.1} / {:.1} / {:.1} | {:.1} | {:.0} | {:.1}–{:.1} |",
            mib(m.idle_kib),
            mib(a),
            mib(b),
            mib(c),
            mib(m.after_kib),
            m.per_stream_kib(),
            m.received.0 as f64 / MIB as f64,
            m.received.1 as f64 / MIB as f64,
        );
    }
}

/// nginx serving the local store's directory (`BENCH_NGINX_URL`, `http://host:port`), when
/// `scripts/bench-video` started one.
fn nginx_url() -> Option<String> {
    env::opt("BENCH_NGINX_URL")
}

/// The pid a server wrote to its pid file, if there is one.
fn pid_in(file: Option<&Path>) -> Option<u32> {
    std::fs::read_to_string(file?).ok()?.trim().parse().ok()
}

/// The processes of the nginx `scripts/bench-video` started (master and workers, from its pid
/// file `BENCH_NGINX_PIDFILE`), counted as "nginx"; none when there is no such file.
fn nginx_file_server(p: &Params) -> Vec<(String, u32)> {
    let Some(master) = pid_in(p.nginx_pidfile.as_deref()) else {
        return Vec::new();
    };
    std::iter::once(master)
        .chain(children(master))
        .map(|pid| ("nginx".to_string(), pid))
        .collect()
}

async fn run(p: Params) -> Result<()> {
    std::fs::create_dir_all(&p.work)?;
    let store_dir = p.work.join("objects");
    let local = Storage::new(&StorageConfig::local(&store_dir)).await?;
    let need_local = p.wants("local") || p.wants("external");
    if need_local {
        ensure_object(&local, p.bytes).await?;
    }
    let file = store_dir.join(STORE.name()).join(KEY);

    let s3_env: Vec<(&'static str, String)> = match &p.s3_endpoint {
        Some(e) => vec![
            ("STORAGE_BACKEND", "s3".into()),
            ("S3_ENDPOINT", e.clone()),
            ("S3_ACCESS_KEY_ID", "test-access-key".into()),
            ("S3_SECRET_ACCESS_KEY", "test-secret-key".into()),
            ("S3_BUCKET_PREFIX", "bench-video-".into()),
        ],
        None => Vec::new(),
    };
    let mut sources = Vec::new();
    if p.wants("s3") {
        let Some(_) = &p.s3_endpoint else {
            bail!("BENCH_S3_ENDPOINT is required for the s3 source (scripts/bench-video sets it)");
        };
        let env = s3_env.clone();
        let cfg = StorageConfig::from_lookup(
            |k| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone()),
            &p.work,
        )?;
        let s3 = Storage::new(&cfg).await?;
        ensure_object(&s3, p.bytes).await?;
        // S3 ignores the keys and base URL: they sign the local store's URLs only.
        let presigned = s3
            .presign_get(
                STORE,
                KEY,
                Duration::from_secs(3600),
                &Keys::new(SECRET_KEY.as_bytes()),
                "http://unused",
            )
            .await?;
        let peer = pid_in(p.s3_pidfile.as_deref()).map(|pid| ("s3s-fs".to_string(), pid));
        sources.push(Source {
            id: "s3",
            label: "S3 (s3s-fs)",

            api_extra: s3_env.clone(),
            video: VideoSource::Stored {
                store: STORE,
                key: KEY.into(),
            },
            directs: vec![("presigned GET on s3s-fs", Target::Http(presigned))],
            peers: peer.into_iter().collect(),
            proxy_side: Vec::new(),
            others: Vec::new(),
        });
    }
    let mut origin_proc = None;
    let mut others = PeerProxies::default();
    if p.wants("external") {
        let port = free_port()?;
        let exe = std::env::current_exe()?;
        let (dir_arg, port_arg) = (store_dir.display().to_string(), port.to_string());
        let proc = start(Server {
            name: "origin",
            bin: &exe,
            args: &["origin", &dir_arg, &port_arg],
            env: &[],
            log: &p.work.join("origin.log"),
            ready_url: &format!("http://127.0.0.1:{port}/health"),
        })
        .await?;
        let url = format!("http://127.0.0.1:{port}/video.bin");
        others = peer_proxies(&p, port).await?;
        sources.push(Source {
            id: "external",
            label: "external origin",

            api_extra: vec![("VIDEO_ALLOWED_PRIVATE_HOSTS", format!("127.0.0.1:{port}"))],
            video: VideoSource::External { url: url.clone() },
            directs: vec![("GET on the origin", Target::Http(url))],
            peers: [("origin".to_string(), proc.pid())]
                .into_iter()
                .chain(others.cpu.iter().cloned())
                .collect(),
            proxy_side: Vec::new(),
            others: others.proxies.clone(),
        });
        origin_proc = Some(proc);
        // The same file behind nginx as the origin: the cheapest origin there is (sendfile),
        // against which the proxy's own cost weighs most. nginx's CPU is counted as "nginx"
        // (master and workers) when `BENCH_NGINX_PIDFILE` names its pid file.
        if let Some(url) = nginx_url() {
            let host = url.trim_start_matches("http://").to_string();
            let url = format!("{url}/{}/{KEY}", STORE.name());
            sources.push(Source {
                id: "external-nginx",
                label: "external origin: nginx 1.22 (sendfile)",
                api_extra: vec![("VIDEO_ALLOWED_PRIVATE_HOSTS", host)],
                video: VideoSource::External { url: url.clone() },
                directs: vec![("GET on nginx", Target::Http(url))],
                peers: nginx_file_server(&p),
                proxy_side: Vec::new(),
                others: Vec::new(),
            });
        }
    }
    if p.wants("local") {
        let mut directs = vec![("pread of the file (no HTTP)", Target::File(file))];
        // The same file served by nginx (`scripts/bench-video` starts it when nginx is
        // installed): an HTTP static-file server at its best settings (sendfile), the peer the
        // proxy of a local file can be held against, beside `pread`'s ceiling. Its CPU is
        // counted as "nginx", as above.
        if let Some(url) = nginx_url() {
            directs.push((
                "nginx 1.22 serving the file (sendfile)",
                Target::Http(format!("{url}/{}/{KEY}", STORE.name())),
            ));
        }
        sources.push(Source {
            id: "local",
            label: "local store",
            api_extra: vec![
                ("STORAGE_BACKEND", "local".into()),
                ("STORAGE_DIR", store_dir.display().to_string()),
            ],
            video: VideoSource::Stored {
                store: STORE,
                key: KEY.into(),
            },
            directs,
            peers: nginx_file_server(&p),
            // nginx is the api's peer here (a server of the same file), not its source.
            proxy_side: vec!["nginx"],
            others: Vec::new(),
        });
    }
    ensure!(
        !sources.is_empty(),
        "BENCH_ONLY selects no source (s3, external, local)"
    );

    let (mut rows, mut other_rows) = (Vec::new(), Vec::new());
    let mut mems = Vec::new();
    for s in &sources {
        let mem = bench_source(&p, s, &mut rows, &mut other_rows).await?;
        mems.push((s.label, mem));
    }
    drop(others);
    drop(origin_proc);
    print_tables(&p, &rows, &other_rows, &mems);
    Ok(())
}

fn main() -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("origin") {
        let (Some(dir), Some(port)) = (args.get(2), args.get(3).and_then(|p| p.parse().ok()))
        else {
            bail!("usage: bench_video origin <storage dir> <port>");
        };
        return rt.block_on(origin(dir, port));
    }
    worker::install_crypto_provider();
    let p = Params::from_env()?;
    rt.block_on(run(p))
}
