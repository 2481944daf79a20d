//! `bench_media`: the clip render (issue 38) on a phone-like video: 60 s of 1080p30 HEVC with
//! AAC sound and sensor noise (so the encoder has real work), made by the system ffmpeg. Run it
//! with `scripts/bench-media`.
//!
//! 1. **The wrapper costs nothing.** The web rendition's ffmpeg command
//!    (`worker::media::render_args`) run directly (`std::process::Command`, output discarded)
//!    and through the job's runner (`worker::media::run`: ffmpeg-sidecar's event iterator
//!    parsing ffmpeg's progress), alternately, `BENCH_MEDIA_ROUNDS` (3) times each; the median
//!    wall times side by side, their ratio (goal ≥ 0.95) and × real time.
//! 2. **Upload to playable.** The real router and a worker in this process on SQLite and the
//!    local store: a coach uploads the file over tus; the clock starts at the last PATCH's 204
//!    and stops when `GET /api/clips/{id}/media` first shows the poster, then the rendition,
//!    poster and scrub strip ready (probe, join, poster, rendition, strip, uploads: everything
//!    the service does). The process's resident memory is sampled every 50 ms: its peak above
//!    the start shows whether the worker stays flat (the video moves file to file; ffmpeg's
//!    own memory is its process's, sampled as well).
//!
//! Markdown on stdout; progress on stderr.

use anyhow::{Context, Result, bail, ensure};
use api::state::Options;
use bench::app::{self, Session};
use bench::{env, proc, say};
use serde_json::{Value, json};
use shared::db::PoolSettings;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const SECONDS: u32 = 60;

#[tokio::main]
async fn main() -> Result<()> {
    let rounds = env::num("BENCH_MEDIA_ROUNDS", 3)? as usize;
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("phone.mp4");
    say("making 60 s of 1080p30 HEVC with sound (x265, a minute or two)");
    let made = Instant::now();
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &format!("testsrc2=size=1920x1080:rate=30:duration={SECONDS},noise=alls=14:allf=t"),
        "-f",
        "lavfi",
        "-i",
        &format!("sine=frequency=300:duration={SECONDS}"),
        "-c:v",
        "libx265",
        "-preset",
        "ultrafast",
        "-crf",
        "24",
        "-x265-params",
        "log-level=error",
        "-tag:v",
        "hvc1",
        "-c:a",
        "aac",
        "-shortest",
        input.to_str().context("path")?,
    ])?;
    let probe = worker::media::probe(&input)?.map_err(|b| anyhow::anyhow!(b.message))?;
    ensure!(probe.codec.as_deref() == Some("hevc"), "{probe:?}");
    let size = std::fs::metadata(&input)?.len();
    say(format!(
        "input: {}×{} {} {:.1} s, {:.1} MB (made in {:.0} s)",
        probe.width,
        probe.height,
        probe.codec.as_deref().unwrap_or("?"),
        probe.duration_ms as f64 / 1000.0,
        size as f64 / 1e6,
        made.elapsed().as_secs_f64()
    ));

    // 1. The same command, directly and through the runner, alternately.
    let out = dir.path().join("web.mp4");
    let args = worker::media::render_args(&input, &out, None);
    let (mut direct, mut wrapped) = (vec![], vec![]);
    for round in 1..=rounds {
        say(format!("round {round}/{rounds}: ffmpeg directly"));
        direct.push(timed_direct(&args)?);
        say(format!(
            "round {round}/{rounds}: through worker::media::run"
        ));
        wrapped.push(timed_wrapped(args.clone()).await?);
    }
    let (d, w) = (median(&mut direct), median(&mut wrapped));
    let rendition = worker::media::probe(&out)?.map_err(|b| anyhow::anyhow!(b.message))?;

    // 2. Upload to playable through the service.
    let e2e = end_to_end(&input, dir.path()).await?;

    let real = f64::from(SECONDS);
    println!(
        "## Render of 60 s 1080p30 HEVC (x264 `{}`)\n",
        worker::media::PRESET
    );
    println!(
        "Input {:.1} MB; web rendition {}×{} H.264, {:.1} MB ({:.1} Mbit/s). Median of {rounds} runs each, alternating.\n",
        size as f64 / 1e6,
        rendition.width,
        rendition.height,
        std::fs::metadata(&out)?.len() as f64 / 1e6,
        rendition.bit_rate.unwrap_or(0) as f64 / 1e6
    );
    println!("| run | wall (s) | × real time | speed vs direct |");
    println!("|---|---|---|---|");
    println!("| ffmpeg directly | {d:.2} | {:.2} | 1.00 |", real / d);
    println!(
        "| through `worker::media::run` | {w:.2} | {:.2} | {:.3} |",
        real / w,
        d / w
    );
    println!("\n## Upload to playable (SQLite, local store, worker in the process)\n");
    println!("| from the upload's last PATCH to | seconds |");
    println!("|---|---|");
    println!("| the poster shown | {:.2} |", e2e.poster);
    println!(
        "| rendition, poster and scrub strip ready | {:.2} |",
        e2e.ready
    );
    println!(
        "\nProcess memory: {:.0} MiB resident before the upload, peak {:.0} MiB during it (+{:.0} MiB); ffmpeg's own peak {:.0} MiB.",
        e2e.rss_before as f64 / 1024.0,
        e2e.rss_peak as f64 / 1024.0,
        (e2e.rss_peak.saturating_sub(e2e.rss_before)) as f64 / 1024.0,
        e2e.ffmpeg_peak as f64 / 1024.0
    );
    Ok(())
}

fn ffmpeg(args: &[&str]) -> Result<()> {
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .output()
        .context("ffmpeg on PATH (scripts/ensure-ffmpeg)")?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

fn timed_direct(args: &[String]) -> Result<f64> {
    let t = Instant::now();
    let status = std::process::Command::new("ffmpeg")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()?;
    ensure!(status.success(), "ffmpeg failed");
    Ok(t.elapsed().as_secs_f64())
}

async fn timed_wrapped(args: Vec<String>) -> Result<f64> {
    tokio::task::spawn_blocking(move || {
        let t = Instant::now();
        let mut reports = 0u64;
        worker::media::run(&args, &AtomicBool::new(false), |_| reports += 1)
            .map_err(|e| anyhow::anyhow!(e.0))?
            .map_err(|b| anyhow::anyhow!(b.message))?;
        ensure!(reports > 0, "no progress was reported");
        Ok(t.elapsed().as_secs_f64())
    })
    .await?
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

struct EndToEnd {
    poster: f64,
    ready: f64,
    rss_before: u64,
    rss_peak: u64,
    ffmpeg_peak: u64,
}

async fn end_to_end(input: &Path, dir: &Path) -> Result<EndToEnd> {
    let data = dir.join("service");
    std::fs::create_dir_all(&data)?;
    let url = format!("sqlite://{}/bench.db?mode=rwc", data.display());
    let svc = app::service(
        &url,
        &data,
        &[],
        &PoolSettings::default(),
        Options::default(),
    )
    .await?;
    let running = api::serve::start_embedded_worker(&svc.cfg, &svc.db).await?;
    let r = &svc.router;
    let s = app::signup(r, "coach@bench.test").await?;
    let json_ct = [("content-type", "application/json")];
    let body = json!({ "title": "Dawn patrol", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" });
    let (st, t, _) = app::call(
        r,
        "POST",
        "/api/training-sessions",
        Some(&s),
        &json_ct,
        body.to_string().into_bytes(),
    )
    .await?;
    ensure!(st.is_success(), "training session: {st} {t}");
    let body = json!({ "trainingSessionId": t["id"] });
    let (st, f, _) = app::call(
        r,
        "POST",
        "/api/training-sessions/provision-video",
        Some(&s),
        &json_ct,
        body.to_string().into_bytes(),
    )
    .await?;
    ensure!(st.is_success(), "footage session: {st} {f}");
    let session = f["id"].as_str().context("footage session id")?.to_string();

    let bytes = std::fs::read(input)?;
    let me = std::process::id();
    let rss_before = proc::rss_kib(me)?;
    let (peak, ffmpeg_peak, stop) = (
        Arc::new(AtomicU64::new(rss_before)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let sampler = {
        let (peak, ffmpeg_peak, stop) = (peak.clone(), ffmpeg_peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Ok(k) = proc::rss_kib(me) {
                    peak.fetch_max(k, Ordering::Relaxed);
                }
                for child in proc::children(me) {
                    if let Ok(k) = proc::rss_kib(child) {
                        ffmpeg_peak.fetch_max(k, Ordering::Relaxed);
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };

    say("uploading over tus, then waiting for the web media");
    let started = tus_upload(r, &s, &session, &bytes).await?;
    let mut clip = None;
    let mut poster = None;
    let ready = loop {
        ensure!(
            started.elapsed() < Duration::from_secs(900),
            "no media after 15 minutes"
        );
        if clip.is_none() {
            let (_, v, _) = app::call(
                r,
                "GET",
                &format!("/api/clips?sessionId={session}"),
                Some(&s),
                &[],
                vec![],
            )
            .await?;
            clip = v["items"][0]["id"].as_str().map(str::to_string);
        }
        if let Some(id) = &clip {
            let (_, m, _) = app::call(
                r,
                "GET",
                &format!("/api/clips/{id}/media"),
                Some(&s),
                &[],
                vec![],
            )
            .await?;
            if m["status"] == "failed" {
                bail!("the render failed: {m}");
            }
            if poster.is_none() && !m["poster"].is_null() {
                poster = Some(started.elapsed().as_secs_f64());
            }
            if m["status"] == "ready" {
                check_ready(&m)?;
                break started.elapsed().as_secs_f64();
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    stop.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    running.shutdown().await;
    Ok(EndToEnd {
        poster: poster.context("the poster came with the rest")?,
        ready,
        rss_before,
        rss_peak: peak.load(Ordering::Relaxed),
        ffmpeg_peak: ffmpeg_peak.load(Ordering::Relaxed),
    })
}

/// The ready media is what a browser needs: an H.264 rendition at 1080p with its images.
fn check_ready(m: &Value) -> Result<()> {
    let ready = &m["ready"];
    ensure!(ready["web"]["height"] == 1080, "{m}");
    ensure!(ready["strip"]["count"] == 60, "{m}");
    ensure!(ready["low"].is_null(), "a minute is no long video: {m}");
    Ok(())
}

/// The phone's upload: create, then PATCHes of 8 MiB; the instant the last one answered.
async fn tus_upload(r: &axum::Router, s: &Session, session: &str, bytes: &[u8]) -> Result<Instant> {
    use base64::Engine;
    let b64 = |v: &str| base64::engine::general_purpose::STANDARD.encode(v);
    let meta = format!("filename {},sessionId {}", b64("phone.mp4"), b64(session));
    let len = bytes.len().to_string();
    let (st, v, h) = app::call(
        r,
        "POST",
        "/api/clips/native-ingest",
        Some(s),
        &[
            ("tus-resumable", "1.0.0"),
            ("upload-length", &len),
            ("upload-metadata", &meta),
        ],
        vec![],
    )
    .await?;
    ensure!(st.as_u16() == 201, "tus create: {st} {v}");
    let at = h.get("location").context("location")?.to_str()?.to_string();
    let path = at
        .strip_prefix("http://bench.test")
        .unwrap_or(&at)
        .to_string();
    let mut offset = 0usize;
    for chunk in bytes.chunks(8 << 20) {
        let off = offset.to_string();
        let (st, v, _) = app::call(
            r,
            "PATCH",
            &path,
            Some(s),
            &[
                ("tus-resumable", "1.0.0"),
                ("upload-offset", &off),
                ("content-type", "application/offset+octet-stream"),
            ],
            chunk.to_vec(),
        )
        .await?;
        ensure!(st.as_u16() == 204, "tus patch at {offset}: {st} {v}");
        offset += chunk.len();
    }
    Ok(Instant::now())
}
