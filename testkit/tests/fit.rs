//! The service's FIT decoder against files written by testkit's encoder (every style) and by
//! fit-tool (a committed fixture), and against broken files: each fault names its record and
//! byte offset. `FIT_DUMP=<dir>` also writes the encoder's files there, for the official SDK's
//! cross-check (`scripts/fit-crosscheck`).

use shared::domain::wearable::fit::{FitError, crc16, read_all};
use shared::domain::wearable::samplefile::Sample;
use testkit::fit::{self, Point, Style, Writer, base};

const T0: i64 = 1_767_247_200_000;

fn track(n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| Point {
            // Gaps of 40 s now and then: longer than a compressed timestamp reaches.
            t_ms: T0 + i as i64 * 1000 + if i > 30 { 40_000 } else { 0 },
            position: (i != 3).then(|| (-33.8915 + i as f64 * 1e-5, 151.2767 - i as f64 * 2e-5)),
            speed: (i % 5 != 0).then_some(0.25 * i as f64),
            hr: (i % 4 != 1).then_some(100 + i as u8),
        })
        .collect()
}

async fn decode(bytes: &[u8]) -> Result<Vec<Sample>, FitError> {
    read_all(bytes).await
}

fn styles() -> Vec<Style> {
    let mut out = Vec::new();
    for k in 0..16u8 {
        out.push(Style {
            big_endian: k & 1 != 0,
            compressed_timestamps: k & 2 != 0,
            developer_field: k & 4 != 0,
            header14: k & 8 != 0,
        });
    }
    out
}

#[tokio::test]
async fn every_style_of_file_decodes_to_its_points() {
    let points = track(80);
    for style in styles() {
        let got = decode(&fit::activity(&points, style))
            .await
            .unwrap_or_else(|e| panic!("{style:?}: {e:?}"));
        let mut want = Vec::new();
        for p in &points {
            if let Some((lat, lon)) = p.position {
                want.push(format!(
                    "gps {} {lat:.7} {lon:.7} {:?}",
                    p.t_ms,
                    p.speed.map(|s| (s * 1000.0).round() / 1000.0)
                ));
            }
            if let Some(b) = p.hr {
                want.push(format!("hr {} {b}", p.t_ms));
            }
        }
        let got: Vec<String> = got
            .iter()
            .map(|s| match s {
                Sample::Gps(f) => {
                    assert!(f.accuracy.is_none());
                    format!("gps {} {:.7} {:.7} {:?}", f.t, f.lat, f.lon, f.speed)
                }
                Sample::Hr(h) => format!("hr {} {}", h.t, h.bpm),
                Sample::Imu(_) => "imu".into(),
            })
            .collect();
        assert_eq!(got, want, "{style:?}");
    }
}

#[tokio::test]
async fn a_file_written_by_fit_tool_decodes() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/fit-tool-activity.fit"
    ))
    .unwrap();
    let got = decode(&bytes).await.unwrap();
    let gps: Vec<_> = got
        .iter()
        .filter_map(|s| match s {
            Sample::Gps(f) => Some(*f),
            _ => None,
        })
        .collect();
    let hr: Vec<_> = got
        .iter()
        .filter_map(|s| match s {
            Sample::Hr(h) => Some(*h),
            _ => None,
        })
        .collect();
    assert_eq!((gps.len(), hr.len()), (60, 60));
    for (i, f) in gps.iter().enumerate() {
        assert_eq!(f.t, T0 + i as i64 * 1000);
        assert!((f.lat - (-33.8915 + i as f64 * 1e-5)).abs() < 1e-7, "{f:?}");
        assert!(
            (f.lon - (151.2767 + (i % 7) as f64 * 2e-5)).abs() < 1e-7,
            "{f:?}"
        );
        assert_eq!(f.speed, Some(0.5 + (i % 12) as f64 * 0.5));
        assert_eq!(hr[i].bpm, 120 + (i % 30) as u16);
    }
}

#[test]
fn both_crc_implementations_agree() {
    let b: Vec<u8> = (0..2000u32).map(|i| (i * 7919 % 251) as u8).collect();
    assert_eq!(fit::crc(0, &b), crc16(0, &b));
    assert_eq!(fit::crc(0, b"123456789"), 0xBB3D);
}

/// A file of a file_id and three records, and where its records start.
fn small() -> (Writer, Vec<u64>) {
    let mut w = Writer::default();
    let mut starts = Vec::new();
    let rec = [
        (253, 4, base::UINT32),
        (0, 4, base::SINT32),
        (1, 4, base::SINT32),
        (3, 1, base::UINT8),
    ];
    starts.push(12 + w.len() as u64);
    w.define(0, 20, false, &rec, &[]);
    for i in 0..3u32 {
        starts.push(12 + w.len() as u64);
        let mut v = Vec::new();
        v.extend((1_136_181_600u32 + i).to_le_bytes());
        v.extend(fit::semicircles(-33.9).to_le_bytes());
        v.extend(fit::semicircles(151.2).to_le_bytes());
        v.push(130);
        w.data(0, &v);
    }
    (w, starts)
}

#[tokio::test]
async fn a_truncated_file_names_the_record_it_ends_in() {
    let (w, starts) = small();
    let file = w.finish(false);
    assert_eq!(decode(&file).await.unwrap().len(), 6);
    // Cut inside the third record (the second data message).
    let cut = starts[2] as usize + 5;
    let e = decode(&file[..cut]).await.unwrap_err();
    assert_eq!((e.record, e.offset), (3, starts[2]), "{e:?}");
    // Cut after the data, before the CRC.
    let e = decode(&file[..file.len() - 2]).await.unwrap_err();
    assert_eq!(e.record, 4, "{e:?}");
    assert!(e.message.contains("CRC"), "{e:?}");
    // Cut inside the header.
    let e = decode(&file[..10]).await.unwrap_err();
    assert_eq!((e.record, e.offset), (0, 0), "{e:?}");
}

#[tokio::test]
async fn a_wrong_crc_is_refused() {
    let (w, starts) = small();
    let mut file = w.finish(false);
    // A heart rate changed in transit: every record still parses, the CRC does not match.
    let hr_at = starts[3] as usize + 13;
    file[hr_at] = 131;
    let e = decode(&file).await.unwrap_err();
    assert_eq!((e.record, e.offset), (4, file.len() as u64 - 2), "{e:?}");
    // A 14-byte header whose own CRC is wrong.
    let mut file = w.finish(true);
    file[12] ^= 0xFF;
    let e = decode(&file).await.unwrap_err();
    assert_eq!((e.record, e.offset), (0, 0), "{e:?}");
    assert!(e.message.contains("header's CRC"), "{e:?}");
}

#[tokio::test]
async fn a_wrong_header_is_refused() {
    let (w, _) = small();
    let good = w.finish(false);
    let mut bad = good.clone();
    bad[0] = 13;
    let e = decode(&bad).await.unwrap_err();
    assert_eq!(e.record, 0, "{e:?}");
    let mut bad = good.clone();
    bad[1] = 0x30; // protocol 3.0
    assert_eq!(decode(&bad).await.unwrap_err().record, 0);
    // A data size beyond the file: its four records read, then the CRC is taken for a fifth
    // and the file ends inside the data.
    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&10_000u32.to_le_bytes());
    let e = decode(&bad).await.unwrap_err();
    assert!(e.record >= 5, "{e:?}");
}

#[tokio::test]
async fn hostile_definitions_are_refused_with_their_record() {
    // position_lat declared as two bytes: it would be read wrong.
    let mut w = Writer::default();
    w.define(0, 0, false, &[(0, 1, base::ENUM)], &[]);
    w.data(0, &[4]);
    let at = 12 + w.len() as u64;
    w.define(
        0,
        20,
        false,
        &[(253, 4, base::UINT32), (0, 2, base::UINT16)],
        &[],
    );
    let e = decode(&w.finish(false)).await.unwrap_err();
    assert_eq!((e.record, e.offset), (3, at), "{e:?}");
    // 255 fields of 255 bytes: a 65 kB message the data size does not hold.
    let mut w = Writer::default();
    let fields: Vec<_> = (0..255u8).map(|n| (n % 250, 255, base::BYTE)).collect();
    w.define(3, 60000, false, &fields, &[]);
    w.raw(&[3]);
    w.raw(&[0; 100]);
    let e = decode(&w.finish(false)).await.unwrap_err();
    assert_eq!((e.record, e.offset), (2, 12 + 1 + 5 + 255 * 3), "{e:?}");
    // A field of size 0, an unknown base type, an unknown architecture.
    for (fields, arch) in [
        (vec![(1, 0, base::UINT8)], 0u8),
        (vec![(1, 1, 0x1F)], 0),
        (vec![(1, 1, base::UINT8)], 7),
    ] {
        let mut w = Writer::default();
        w.define(0, 20, false, &fields, &[]);
        let mut f = w.finish(false);
        f[12 + 2] = arch;
        let e = decode(&f).await.unwrap_err();
        assert_eq!((e.record, e.offset), (1, 12), "{e:?}");
    }
    // Data of a local type never defined; a compressed time before any time.
    let mut w = Writer::default();
    w.raw(&[5]);
    w.records += 1;
    let e = decode(&w.finish(false)).await.unwrap_err();
    assert_eq!((e.record, e.offset), (1, 12), "{e:?}");
    let mut w = Writer::default();
    w.define(1, 20, false, &[(3, 1, base::UINT8)], &[]);
    w.compressed(1, 5, &[120]);
    let e = decode(&w.finish(false)).await.unwrap_err();
    assert_eq!((e.record, e.offset), (2, 12 + 9), "{e:?}");
}

#[tokio::test]
async fn chained_files_decode_one_after_the_other() {
    let a = fit::activity(&track(5), Style::default());
    let b = fit::activity(&track(7)[5..], Style::default());
    let mut both = a.clone();
    both.extend(&b);
    let n = decode(&both).await.unwrap().len();
    assert_eq!(
        n,
        decode(&a).await.unwrap().len() + decode(&b).await.unwrap().len()
    );
}

/// With `FIT_DUMP=<dir>`, writes the encoder's files for `scripts/fit-crosscheck`.
#[test]
fn dump_for_the_official_sdk() {
    let Ok(dir) = std::env::var("FIT_DUMP") else {
        return;
    };
    for (k, style) in styles().into_iter().enumerate() {
        std::fs::write(
            format!("{dir}/style-{k:02}.fit"),
            fit::activity(&track(80), style),
        )
        .unwrap();
    }
}
