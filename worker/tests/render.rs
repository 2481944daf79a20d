//! The render commands on real files with Debian's ffmpeg: what the render job makes is what
//! browsers need (H.264 + AAC, index first, upright, at most 1080p), and bad input is named.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use worker::media::{self, Probe};

fn ffmpeg(args: &[&str]) {
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg on PATH (scripts/ensure-ffmpeg installs Debian's package)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(args: &[String]) -> Result<(), media::BadMedia> {
    media::run(args, &AtomicBool::new(false), |_| {}).expect("ffmpeg runs")
}

fn probe(p: &Path) -> Probe {
    media::probe(p).unwrap().unwrap()
}

/// The top-level boxes of an MP4, in order.
fn boxes(p: &Path) -> Vec<String> {
    let b = std::fs::read(p).unwrap();
    let (mut at, mut out) = (0usize, Vec::new());
    while at + 8 <= b.len() {
        let size = u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        out.push(String::from_utf8_lossy(&b[at + 4..at + 8]).into_owned());
        if size < 8 {
            break;
        }
        at += size;
    }
    out
}

/// A 4 s 640×360 MPEG-4 clip with sound, recorded "sideways" (rotate 90), as a phone tags it.
#[rustfmt::skip]
fn sideways_clip(dir: &Path) -> std::path::PathBuf {
    let plain = dir.join("plain.mp4");
    let p = plain.to_str().unwrap();
    ffmpeg(&[
        "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=4",
        "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
        "-c:v", "mpeg4", "-c:a", "aac", "-shortest", p,
    ]);
    let rotated = dir.join("rotated.mp4");
    ffmpeg(&[
        "-i", p, "-c", "copy", "-metadata:s:v:0", "rotate=90",
        rotated.to_str().unwrap(),
    ]);
    rotated
}

#[test]
fn a_sideways_clip_becomes_an_upright_h264_rendition_with_a_poster_and_a_strip() {
    let dir = tempfile::tempdir().unwrap();
    let input = sideways_clip(dir.path());
    let src = probe(&input);
    assert_eq!(src.rotation, 90);
    assert_eq!(src.display_size(), (360, 640));

    let (web, low) = (dir.path().join("web.mp4"), dir.path().join("low.mp4"));
    let mut seen = Vec::new();
    let args = media::render_args(&input, &web, Some(&low));
    media::run(&args, &AtomicBool::new(false), |ms| seen.push(ms))
        .unwrap()
        .unwrap();
    assert!(!seen.is_empty(), "ffmpeg reported its progress");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");

    let w = probe(&web);
    assert_eq!(w.codec.as_deref(), Some("h264"));
    assert_eq!(
        (w.width, w.height, w.rotation),
        (360, 640, 0),
        "upright, not upscaled"
    );
    assert!(w.has_audio);
    assert!((w.duration_ms - 4000).abs() < 200, "{}", w.duration_ms);
    let order = boxes(&web);
    let (moov, mdat) = (
        order.iter().position(|b| b == "moov").unwrap(),
        order.iter().position(|b| b == "mdat").unwrap(),
    );
    assert!(moov < mdat, "the index comes first: {order:?}");

    let l = probe(&low);
    assert_eq!(l.codec.as_deref(), Some("h264"));
    assert!(l.height <= 960 && l.width <= 540, "{l:?}");
    assert!(l.fps.unwrap() <= 30.0);

    let poster = dir.path().join("poster.jpg");
    run(&media::poster_args(&input, src.duration_ms, &poster)).unwrap();
    let p = probe(&poster);
    assert_eq!((p.width, p.height), (360, 640));

    let layout = media::strip_layout(w.duration_ms, w.width, w.height);
    assert_eq!((layout.count, layout.columns), (4, 4));
    let strip = dir.path().join("strip.jpg");
    run(&media::strip_args(&web, &layout, &strip)).unwrap();
    let s = probe(&strip);
    assert_eq!(
        (s.width, s.height),
        (layout.thumb_width * 4, layout.thumb_height),
        "{layout:?}"
    );
}

#[test]
#[rustfmt::skip]
fn a_large_clip_is_brought_down_to_1080p() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.mp4");
    ffmpeg(&[
        "-f", "lavfi", "-i", "color=c=blue:size=2560x1440:rate=10:duration=1",
        "-c:v", "mpeg4", input.to_str().unwrap(),
    ]);
    let web = dir.path().join("web.mp4");
    run(&media::render_args(&input, &web, None)).unwrap();
    let w = probe(&web);
    assert_eq!((w.width, w.height), (1920, 1080));
    assert!(!w.has_audio, "no audio track is made up");
}

#[test]
#[rustfmt::skip]
fn bad_files_are_named_by_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.mp4");
    std::fs::write(&text, "these are not the frames you are looking for\n".repeat(50)).unwrap();
    assert_eq!(media::probe(&text).unwrap().unwrap_err().code, "not_video");

    let audio = dir.path().join("audio.m4a");
    ffmpeg(&[
        "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac",
        audio.to_str().unwrap(),
    ]);
    assert_eq!(media::probe(&audio).unwrap().unwrap_err().code, "no_video_track");

    // A recording cut off before the phone wrote the index at its end.
    let whole = sideways_clip(dir.path());
    let bytes = std::fs::read(&whole).unwrap();
    let cut = dir.path().join("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let bad = media::probe(&cut).unwrap().unwrap_err();
    assert_eq!(bad.code, "media_truncated", "{bad:?}");
}
