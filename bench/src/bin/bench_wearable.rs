//! The wearable benchmark: the ride detector's precision, recall and F1 over generated labelled
//! sessions (`shared::domain::wearable::synth`, the generator the tests use), with GPS and IMU
//! and with GPS alone, and the stored bytes per hour of each sample stream. Deterministic: the
//! same seeds give the same figures. Prints Markdown on stdout.
//!
//! `BENCH_SESSIONS` (default 30 one-hour sessions), `BENCH_IMU_HZ` (default 100),
//! `BENCH_SEED` (default 1).

use bench::env;
use shared::domain::wearable::accuracy::{Score, score};
use shared::domain::wearable::codec;
use shared::domain::wearable::detect::detect;
use shared::domain::wearable::samples::Stream;
use shared::domain::wearable::synth::{Options, generate};

fn main() -> anyhow::Result<()> {
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
            let i = match c.stream {
                Stream::Gps => 0,
                Stream::Hr => 1,
                Stream::Imu => 2,
            };
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
