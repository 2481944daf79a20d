//! The wearable benchmark: the ride detector's precision, recall and F1 over generated labelled
//! sessions (`shared::domain::wearable::synth`, the generator the tests use), with GPS and IMU
//! and with GPS alone, and the stored bytes per hour of each sample stream. Deterministic: the
//! same seeds give the same figures. Prints Markdown on stdout.
//!
//! `BENCH_SESSIONS` (default 30 one-hour sessions), `BENCH_IMU_HZ` (default 100),
//! `BENCH_SEED` (default 1).
//!
//! First, the detector's CPU time on 1, 2 and 4-hour 1 Hz GPS sessions (issue 40's goal: a
//! 2-hour session in under 50 ms) and its peak heap on 1 to 8-hour sessions read from their
//! stored chunks (the goal: flat in the session's length). `BENCH_SET=dev` or `BENCH_SET=held-out` then
//! runs the independent evaluation (`shared::domain::wearable::eval`: simulated GPX sessions
//! read through the import's parser, the detector beside the naive baseline) on that set
//! instead of the generator above; the held-out sets are for final figures only.
//! `BENCH_SET=second` scores the sessions of the second, independently written simulator
//! (`eval::sim_b`, the set `SECOND_MODEL`), also once; `fourth`, `dev-b` and `second-held` are
//! `rides-5`'s sets (`eval::FOURTH`, `DEV_B`, `SECOND_HELD`); `third-model` the third,
//! independently written simulator's (`eval::sim_c`, `eval::THIRD_MODEL`); `fifth`,
//! `second-held-2`, `dev-c` and `third-held` are `rides-6`'s (`eval::FIFTH`, `SECOND_HELD_2`,
//! `DEV_C`, `THIRD_HELD`), and `fourth-model` the fourth simulator's (`eval::sim_d`,
//! `eval::FOURTH_MODEL`); `sixth`, `second-held-3`, `third-held-2`, `dev-d` and `fourth-held`
//! are `rides-7`'s (`eval::SIXTH`, `SECOND_HELD_3`, `THIRD_HELD_2`, `DEV_D`, `FOURTH_HELD`), and
//! `fifth-model` the fifth simulator's (`eval::sim_e`, `eval::FIFTH_MODEL`); `seventh`,
//! `second-held-4`, `third-held-3`, `fourth-held-2`, `fifth-held` and `dev-e` are `rides-8`'s
//! (`eval::SEVENTH`, `SECOND_HELD_4`, `THIRD_HELD_3`, `FOURTH_HELD_2`, `FIFTH_HELD`, `DEV_E`),
//! and `sixth-model` the sixth simulator's (`eval::sim_f`, `eval::SIXTH_MODEL`). Also the FIT
//! decoder's speed (the import's time bound).

use bench::env;
use bench::proc;
use shared::domain::wearable::accuracy::{Score, score};
use shared::domain::wearable::codec;
use shared::domain::wearable::detect::{Detector, detect};
use shared::domain::wearable::eval;
use shared::domain::wearable::replay::{self, Sample};
use shared::domain::wearable::samples::{Samples, Stream};
use shared::domain::wearable::synth::{Options, generate};
use shared::model::wearable::Chunk;
use std::time::{Duration, Instant};

/// Detection CPU time on GPS-only 1 Hz sessions of 1, 2 and 4 hours: this process's CPU
/// (`/proc`, clock ticks) over enough runs to be well above a tick, per run; and the wall time
/// of the fastest single run.
fn timing() {
    println!("| 1 Hz GPS session | fixes | detection CPU per run | fastest run (wall) | rides |");
    println!("|---|---:|---:|---:|---:|");
    for hours in [1.0, 2.0, 4.0] {
        let s = generate(&Options::new(7, hours * 3600.0, 0)).samples;
        let runs = 40;
        let mut best = Duration::MAX;
        let mut rides = 0;
        let cpu0 = proc::cpu_secs(std::process::id());
        for _ in 0..runs {
            let t = Instant::now();
            let d = std::hint::black_box(detect(&s, false));
            best = best.min(t.elapsed());
            rides = d.rides.len();
        }
        let cpu = (proc::cpu_secs(std::process::id()) - cpu0) / runs as f64;
        println!(
            "| {hours:.0} h | {} | {:.2} ms | {:.2} ms | {rides} |",
            s.gps.len(),
            cpu * 1000.0,
            best.as_secs_f64() * 1000.0,
        );
    }
    println!();
}

/// The detector's peak memory over sessions of 1 to 8 hours (1 Hz GPS and heart rate, 100 Hz
/// IMU) read from their stored chunks a chunk at a time, as the derive job does, beside every
/// sample read into memory first (how `wearable.derive` worked until `rides-4`). Each case runs
/// in a process of its own (this binary again, `BENCH_MEMORY_CASE`), with the chunks loaded and
/// its peak resident memory reset first: the figure is what the detection itself added.
fn memory() -> anyhow::Result<()> {
    println!(
        "| session (1 Hz GPS + HR, 100 Hz IMU) | samples | stored chunks | derive, a chunk at a time: peak memory | every sample in memory first: peak memory |"
    );
    println!("|---|---:|---:|---:|---:|");
    let dir = tempfile::tempdir()?;
    for hours in [1u32, 2, 4, 8] {
        let s = generate(&Options::new(7, f64::from(hours) * 3600.0, 100)).samples;
        let mut file = Vec::new();
        let chunks = codec::encode_all(&s);
        for c in &chunks {
            file.push(replay::slot(c.stream) as u8);
            file.extend(c.start_ms.to_le_bytes());
            file.extend(c.end_ms.to_le_bytes());
            file.extend(c.count.to_le_bytes());
            file.extend((c.data.len() as u64).to_le_bytes());
            file.extend(&c.data);
        }
        let path = dir.path().join(format!("{hours}h.chunks"));
        std::fs::write(&path, &file)?;
        let mut cells = Vec::new();
        for case in ["chunks", "whole"] {
            let out = std::process::Command::new(std::env::current_exe()?)
                .env("BENCH_MEMORY_CASE", format!("{case}:{}", path.display()))
                .output()?;
            anyhow::ensure!(out.status.success(), "memory case {case} failed");
            cells.push(String::from_utf8(out.stdout)?.trim().to_string());
        }
        anyhow::ensure!(
            cells[0].split(' ').next() == cells[1].split(' ').next(),
            "the same rides either way: {cells:?}"
        );
        let mb = |cell: &str| -> anyhow::Result<f64> {
            Ok(cell.split(' ').nth(1).unwrap_or("").parse::<f64>()? / 1024.0)
        };
        println!(
            "| {hours} h | {} | {:.1} MB | {:.1} MB | {:.1} MB |",
            s.len(),
            file.len() as f64 / 1e6,
            mb(&cells[0])?,
            mb(&cells[1])?
        );
    }
    println!();
    Ok(())
}

/// One memory case, in its own process: prints the number of rides and the peak resident
/// memory (KiB) the detection added to the loaded chunks.
fn memory_case(case: &str) -> anyhow::Result<()> {
    use std::io::Read;
    let (how, path) = case.split_once(':').unwrap_or((case, ""));
    let file = std::fs::read(path)?;
    let mut chunks = Vec::new();
    let mut r = std::io::Cursor::new(file.as_slice());
    let int = |r: &mut std::io::Cursor<&[u8]>| -> std::io::Result<i64> {
        let mut b = [0u8; 8];
        r.read_exact(&mut b)?;
        Ok(i64::from_le_bytes(b))
    };
    while (r.position() as usize) < file.len() {
        let mut slot = [0u8];
        r.read_exact(&mut slot)?;
        let stream = Stream::ALL[slot[0] as usize];
        let (start_ms, end_ms, count) = (int(&mut r)?, int(&mut r)?, int(&mut r)?);
        let mut data = vec![0u8; int(&mut r)? as usize];
        r.read_exact(&mut data)?;
        chunks.push(Chunk {
            stream,
            start_ms,
            end_ms,
            count,
            data,
        });
    }
    drop(file);
    // Resets this process's peak resident memory to what it holds now (Linux 4.0+).
    std::fs::write("/proc/self/clear_refs", "5")?;
    let me = std::process::id();
    let base = proc::rss_kib(me)?;
    let d = match how {
        "chunks" => {
            let mut det = Detector::new(true);
            replay::each(&chunks, |x| match x {
                Sample::Gps(f) => det.gps(f),
                Sample::Imu(m) => det.imu(m),
                Sample::Hr(_) => {}
            })?;
            det.finish()
        }
        _ => {
            let mut all = Samples::default();
            for c in &chunks {
                codec::decode(c.stream, &c.data, &mut all)?;
            }
            all.normalise();
            detect(&all, true)
        }
    };
    let peak = proc::peak_rss_kib(me)?;
    println!("{} {}", d.rides.len(), peak.saturating_sub(base));
    Ok(())
}

/// FIT decoding speed (the import's time bound): a 2-hour 1 Hz activity with heart rate, and
/// the slowest file per byte, one-byte data messages of a definition without fields.
fn fit_timing() -> anyhow::Result<()> {
    use shared::domain::wearable::fit::read_all;
    use testkit::fit::{Point, Style, Writer, activity};
    let s = generate(&Options::new(7, 2.0 * 3600.0, 0)).samples;
    let points: Vec<Point> = s
        .gps
        .iter()
        .map(|f| Point {
            t_ms: f.t / 1000 * 1000,
            position: Some((f.lat, f.lon)),
            speed: f.speed,
            hr: Some(120),
        })
        .collect();
    let real = activity(
        &points,
        Style {
            compressed_timestamps: true,
            ..Style::default()
        },
    );
    let mut w = Writer::default();
    w.define(0, 60000, false, &[], &[]);
    w.raw(&vec![0u8; 64 << 20]);
    let worst = w.finish(false);
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    println!("| FIT file | bytes | samples | decode (wall) | MB/s | 256 MiB at this rate |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, file) in [
        ("2 h at 1 Hz, heart rate, compressed timestamps", &real),
        ("64 MiB of one-byte messages (slowest per byte)", &worst),
    ] {
        let t = Instant::now();
        let n = rt
            .block_on(read_all(&file[..]))
            .map_err(|e| anyhow::anyhow!("{e:?}"))?
            .len();
        let secs = t.elapsed().as_secs_f64();
        let mbs = file.len() as f64 / secs / 1e6;
        println!(
            "| {name} | {} | {n} | {:.1} ms | {mbs:.0} | {:.1} s |",
            file.len(),
            secs * 1000.0,
            (256u64 << 20) as f64 / 1e6 / mbs
        );
    }
    println!();
    Ok(())
}

/// The independent evaluation (`shared::domain::wearable::eval`) on one set of seeds.
fn evaluation(set: &str) -> anyhow::Result<()> {
    let set = match set {
        "dev" | "development" => eval::DEV,
        "held-out" => eval::HELD_OUT,
        "fresh" => eval::FRESH,
        "third" => eval::THIRD,
        "fourth" => eval::FOURTH,
        "second" => eval::SECOND_MODEL,
        "dev-b" => eval::DEV_B,
        "second-held" => eval::SECOND_HELD,
        "third-model" => eval::THIRD_MODEL,
        "fifth" => eval::FIFTH,
        "second-held-2" => eval::SECOND_HELD_2,
        "dev-c" => eval::DEV_C,
        "third-held" => eval::THIRD_HELD,
        "fourth-model" => eval::FOURTH_MODEL,
        "sixth" => eval::SIXTH,
        "second-held-3" => eval::SECOND_HELD_3,
        "third-held-2" => eval::THIRD_HELD_2,
        "dev-d" => eval::DEV_D,
        "fourth-held" => eval::FOURTH_HELD,
        "fifth-model" => eval::FIFTH_MODEL,
        "seventh" => eval::SEVENTH,
        "second-held-4" => eval::SECOND_HELD_4,
        "third-held-3" => eval::THIRD_HELD_3,
        "fourth-held-2" => eval::FOURTH_HELD_2,
        "fifth-held" => eval::FIFTH_HELD,
        "dev-e" => eval::DEV_E,
        "sixth-model" => eval::SIXTH_MODEL,
        other => {
            anyhow::bail!(
                "BENCH_SET is dev, held-out, fresh, third, fourth, second, dev-b, second-held, third-model, fifth, second-held-2, dev-c, third-held, fourth-model, sixth, second-held-3, third-held-2, dev-d, fourth-held, fifth-model, seventh, second-held-4, third-held-3, fourth-held-2, fifth-held, dev-e or sixth-model, not {other:?}"
            )
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let (rep, _) = rt.block_on(eval::run(&set));
    println!("{}", rep.markdown());
    Ok(())
}

fn main() -> anyhow::Result<()> {
    if let Ok(case) = std::env::var("BENCH_MEMORY_CASE") {
        return memory_case(&case);
    }
    timing();
    memory()?;
    fit_timing()?;
    if let Ok(set) = std::env::var("BENCH_SET") {
        return evaluation(&set);
    }
    let sessions = env::num("BENCH_SESSIONS", 30)?;
    let hz = env::num("BENCH_IMU_HZ", 100)? as u32;
    let seed0 = env::num("BENCH_SEED", 1)?;
    let (mut with_imu, mut gps_only) = (Score::default(), Score::default());
    let mut bytes = [0u64; 3];
    let mut counts = [0u64; 3];
    let mut hours = 0.0;
    let mut rides = 0usize;
    let mut missed = 0usize;
    let mut durations = Vec::new();
    let mut short = (Score::default(), Score::default());
    for k in 0..sessions {
        let o = Options::new(seed0 + k, 3600.0, hz);
        let s = generate(&o);
        hours += 1.0;
        rides += s.rides.len();
        missed += s.missed.len();
        durations.extend(s.rides.iter().map(|(a, b)| (b - a) as f64 / 1000.0));
        let a = detect(&s.samples, true);
        let b = detect(&s.samples, false);
        let wa: Vec<_> = a.rides.iter().map(|r| (r.start_ms, r.end_ms)).collect();
        let wb: Vec<_> = b.rides.iter().map(|r| (r.start_ms, r.end_ms)).collect();
        let sa = score(&s.rides, &wa);
        let sb = score(&s.rides, &wb);
        if std::env::var("BENCH_VERBOSE").is_ok() {
            eprintln!("session {k}: rides {} imu {sa:?} gps {sb:?}", s.rides.len());
            let tr: Vec<_> = s
                .rides
                .iter()
                .map(|(a, b)| ((a - o.start_ms) / 100, (b - o.start_ms) / 100))
                .collect();
            let de: Vec<_> = wa
                .iter()
                .map(|(a, b)| ((a - o.start_ms) / 100, (b - o.start_ms) / 100))
                .collect();
            eprintln!("  truth {tr:?}\n  found {de:?}");
        }
        with_imu.add(sa);
        gps_only.add(sb);
        let st: Vec<_> = s
            .rides
            .iter()
            .copied()
            .filter(|(a, b)| b - a < 4000)
            .collect();
        short.0.add(score(
            &st,
            &wa.iter()
                .copied()
                .filter(|(a, b)| b - a < 6000)
                .collect::<Vec<_>>(),
        ));
        short.1.add(score(
            &st,
            &wb.iter()
                .copied()
                .filter(|(a, b)| b - a < 6000)
                .collect::<Vec<_>>(),
        ));
        for c in codec::encode_all(&s.samples) {
            let i = replay::slot(c.stream);
            bytes[i] += c.data.len() as u64;
            counts[i] += c.count as u64;
        }
    }
    let mean = durations.iter().sum::<f64>() / durations.len().max(1) as f64;
    println!(
        "{sessions} generated one-hour sessions (seeds {seed0}–{}), {rides} labelled rides (mean {mean:.1} s), {missed} waves paddled for and missed; IMU at {hz} Hz\n",
        seed0 + sessions - 1
    );
    println!(
        "| detector input | rides found (TP) | false rides (FP) | missed rides (FN) | precision | recall | F1 |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, s) in [("GPS + IMU", with_imu), ("GPS only", gps_only)] {
        println!(
            "| {name} | {} | {} | {} | {:.3} | {:.3} | {:.3} |",
            s.true_positives,
            s.false_positives,
            s.false_negatives,
            s.precision(),
            s.recall(),
            s.f1()
        );
    }
    println!(
        "\nRides under 4 s: recall {:.3} with IMU, {:.3} GPS only ({} rides)\n",
        short.0.recall(),
        short.1.recall(),
        short.0.true_positives + short.0.false_negatives
    );
    println!("| stream | samples per hour | stored bytes per hour | bytes per sample |");
    println!("|---|---:|---:|---:|");
    let names = ["GPS (1 Hz)", "heart rate (1 Hz)", "IMU"];
    let mut total = 0.0;
    for i in 0..3 {
        let per_h = bytes[i] as f64 / hours;
        total += per_h;
        println!(
            "| {} | {:.0} | {:.0} | {:.2} |",
            if i == 2 {
                format!("IMU ({hz} Hz, 3 axes)")
            } else {
                names[i].to_string()
            },
            counts[i] as f64 / hours,
            per_h,
            bytes[i] as f64 / counts[i].max(1) as f64
        );
    }
    println!("| total | | {total:.0} | |");
    Ok(())
}
