//! ffmpeg and ffprobe, run through ffmpeg-sidecar on Debian's binaries: reading a video
//! (`probe`), and the commands that make a clip's web media (`render_args`, `poster_args`,
//! `strip_args`) with ffmpeg's own progress and a way to stop it (`run`). The commands are plain
//! argument lists so the benchmark runs exactly what the job runs (bench `bench_media`).
//!
//! Settings and why:
//! - H.264 High, `yuv420p`, AAC stereo in MP4 with `+faststart` (the index at the front): what
//!   every browser plays, and playback starts before the whole file arrives.
//! - At most 1080p (the box turns with a portrait video), never upscaled; the rotation the phone
//!   recorded is applied by ffmpeg's autorotation, so the output needs no display matrix.
//! - CRF 23 capped at 4.5 Mbit/s (9 Mbit buffer): a 1080p rendition streams on a 4G beach
//!   connection; the 540p one for long videos is capped at 1.2 Mbit/s and 30 fps.
//! - x264's `veryfast` preset: about real time for 1080p HEVC input on two cores
//!   (docs/benchmarks/media.md); slower presets save a little size for a lot of time.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// x264 preset of both renditions (see the module doc).
pub const PRESET: &str = "veryfast";
/// The scrub strip's most thumbnails, its columns and the long side of a thumbnail.
const STRIP_MAX: i64 = 100;
const STRIP_COLUMNS: i64 = 10;
const THUMB_LONG_SIDE: i64 = 160;
/// The poster's long side at most.
const POSTER_LONG_SIDE: i64 = 1280;

/// What ffprobe says about a video file.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub width: i64,
    pub height: i64,
    /// Clockwise degrees the player must turn the picture: 0, 90, 180 or 270.
    pub rotation: i64,
    pub duration_ms: i64,
    pub fps: Option<f64>,
    pub codec: Option<String>,
    pub bit_rate: Option<i64>,
    pub has_audio: bool,
}

impl Probe {
    /// The picture as shown (rotation applied).
    pub fn display_size(&self) -> (i64, i64) {
        if self.rotation % 180 == 90 {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        }
    }

    /// What a clip's `probe` shows.
    pub fn to_json(&self) -> Value {
        json!({
            "rotation": self.rotation,
            "durationMs": self.duration_ms,
            "codec": self.codec,
            "width": self.width,
            "height": self.height,
            "fps": self.fps,
            "bitRate": self.bit_rate,
            "hasAudio": self.has_audio,
        })
    }
}

/// Why a file is not a video we can use: a stable code and ffmpeg's reason.
#[derive(Debug, Clone, PartialEq)]
pub struct BadMedia {
    pub code: &'static str,
    pub message: String,
}

impl BadMedia {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        BadMedia {
            code,
            message: message.into(),
        }
    }
}

/// ffmpeg or ffprobe could not run at all (not installed, killed): the job is retried.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

/// Runs ffprobe on `path`. Outer error: ffprobe could not run; inner error: the file is not a
/// usable video.
pub fn probe(path: &Path) -> Result<Result<Probe, BadMedia>, ToolError> {
    let out = std::process::Command::new(ffmpeg_sidecar::ffprobe::ffprobe_path())
        .args([
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
        ])
        .arg(path)
        .output()
        .map_err(|e| ToolError(format!("ffprobe could not run (is ffmpeg installed?): {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // ffprobe guesses MP4 from the file's name: only a file that starts as one is an MP4
        // cut short; other bytes are simply not video.
        return Ok(Err(match starts_as_mp4(path) {
            true => classify(&err),
            false => BadMedia::new(
                "not_video",
                format!("not a readable video: {}", last_line(&err)),
            ),
        }));
    }
    let doc: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| ToolError(format!("ffprobe output: {e}")))?;
    Ok(parse_probe(&doc))
}

/// The code for what ffmpeg or ffprobe wrote on failing: an MP4 whose index never arrived or
/// whose data stops early is `media_truncated`; anything else unreadable is `not_video`.
pub fn classify(stderr: &str) -> BadMedia {
    let last = last_line(stderr);
    let lower = stderr.to_ascii_lowercase();
    if [
        "moov atom not found",
        "partial file",
        "truncat",
        "end of file",
    ]
    .iter()
    .any(|m| lower.contains(m))
    {
        BadMedia::new(
            "media_truncated",
            format!("the file ends early (an interrupted recording or upload?): {last}"),
        )
    } else {
        BadMedia::new("not_video", format!("not a readable video: {last}"))
    }
}

fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("unreadable")
}

/// Whether the file opens with an ISO BMFF `ftyp` box (MP4, MOV, 3GP: what phones record).
fn starts_as_mp4(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head[4..8] == b"ftyp")
}

/// The probe from ffprobe's JSON: rotation (display matrix side data, then the legacy `rotate`
/// tag; normalised to 0, 90, 180 or 270 clockwise), duration, codec, resolution and frame rate
/// of the first video stream. No video stream: `no_video_track`.
pub fn parse_probe(doc: &Value) -> Result<Probe, BadMedia> {
    let streams = doc
        .get("streams")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let kind = |s: &Value, k: &str| s.get("codec_type").and_then(Value::as_str) == Some(k);
    let Some(v) = streams.iter().find(|s| kind(s, "video")) else {
        return Err(BadMedia::new(
            "no_video_track",
            "the file has no video stream",
        ));
    };
    let side = v
        .get("side_data_list")
        .and_then(Value::as_array)
        .and_then(|l| {
            l.iter()
                .find_map(|d| d.get("rotation").and_then(Value::as_f64))
        });
    let tag = v
        .get("tags")
        .and_then(|t| t.get("rotate"))
        .and_then(Value::as_str)
        .and_then(|r| r.parse::<f64>().ok());
    // Debian's ffprobe (5.1) reports a clip tagged rotate=90 as display-matrix rotation 90 and
    // rotate=270 as -90: both read the same way, normalised to 0..360.
    let rotation = match (side, tag) {
        (Some(r), _) => r.rem_euclid(360.0),
        (None, Some(t)) => t.rem_euclid(360.0),
        (None, None) => 0.0,
    };
    let fps = v
        .get("avg_frame_rate")
        .or_else(|| v.get("r_frame_rate"))
        .and_then(Value::as_str)
        .and_then(|r| {
            let (n, d) = r.split_once('/')?;
            let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
            (d > 0.0 && n > 0.0).then(|| (n / d * 100.0).round() / 100.0)
        });
    let format = doc.get("format");
    let number = |x: Option<&Value>| {
        x.and_then(Value::as_str)
            .and_then(|d| d.parse::<f64>().ok())
    };
    let seconds = number(format.and_then(|f| f.get("duration"))).or(number(v.get("duration")));
    let int = |x: Option<&Value>| x.and_then(Value::as_i64).unwrap_or(0);
    Ok(Probe {
        width: int(v.get("width")),
        height: int(v.get("height")),
        rotation: rotation.round() as i64 % 360,
        duration_ms: seconds.map(|s| (s * 1000.0).round() as i64).unwrap_or(0),
        fps,
        codec: v
            .get("codec_name")
            .and_then(Value::as_str)
            .map(str::to_string),
        bit_rate: number(format.and_then(|f| f.get("bit_rate"))).map(|b| b as i64),
        has_audio: streams.iter().any(|s| kind(s, "audio")),
    })
}

/// A scale filter that fits the picture in `long`×`short` (turned for a portrait picture),
/// never upscales and keeps both sides even (H.264 in 4:2:0 needs that).
fn fit(long: i64, short: i64) -> String {
    format!(
        "scale=w='min(iw\\,if(gte(iw\\,ih)\\,{long}\\,{short}))':h='min(ih\\,if(gte(iw\\,ih)\\,{short}\\,{long}))'\
         :force_original_aspect_ratio=decrease:force_divisible_by=2"
    )
}

/// The one ffmpeg command that makes the web rendition at `web`, and with `low` the 540p one
/// too (one decode feeds both).
pub fn render_args(input: &Path, web: &Path, low: Option<&Path>) -> Vec<String> {
    let mut a: Vec<String> = ["-hide_banner", "-nostdin", "-y", "-i"]
        .map(String::from)
        .to_vec();
    a.push(input.display().to_string());
    let web_chain = format!("{},format=yuv420p", fit(1920, 1080));
    let graph = match low {
        None => format!("[0:v:0]{web_chain}[web]"),
        Some(_) => format!(
            "[0:v:0]split=2[a][b];[a]{web_chain}[web];[b]{},fps=fps='min(source_fps\\,30)',format=yuv420p[low]",
            fit(960, 540)
        ),
    };
    a.extend(["-filter_complex".into(), graph]);
    let mut output = |label: &str, crf: &str, max: &str, buf: &str, audio: &str, path: &Path| {
        a.extend(
            [
                "-map",
                label,
                "-map",
                "0:a:0?",
                "-c:v",
                "libx264",
                "-preset",
                PRESET,
                "-profile:v",
                "high",
                "-crf",
                crf,
                "-maxrate",
                max,
                "-bufsize",
                buf,
                "-c:a",
                "aac",
                "-b:a",
                audio,
                "-ac",
                "2",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
            ]
            .map(String::from),
        );
        a.push(path.display().to_string());
    };
    output("[web]", "23", "4500k", "9000k", "128k", web);
    if let Some(low) = low {
        output("[low]", "26", "1200k", "2400k", "96k", low);
    }
    a
}

/// A poster frame, upright: a tenth into the video (past a shaky start), at most 5 s.
pub fn poster_args(input: &Path, duration_ms: i64, out: &Path) -> Vec<String> {
    let at = (duration_ms / 10).min(5000) as f64 / 1000.0;
    let l = POSTER_LONG_SIDE;
    vec![
        "-hide_banner".into(),
        "-nostdin".into(),
        "-y".into(),
        "-ss".into(),
        format!("{at:.3}"),
        "-i".into(),
        input.display().to_string(),
        "-frames:v".into(),
        "1".into(),
        "-vf".into(),
        format!(
            "scale=w='if(gte(iw\\,ih)\\,min(iw\\,{l})\\,-2)':h='if(gte(iw\\,ih)\\,-2\\,min(ih\\,{l}))'"
        ),
        "-q:v".into(),
        "4".into(),
        out.display().to_string(),
    ]
}

/// The scrub strip's layout for a video of `duration_ms` shown at `width`×`height`: one
/// thumbnail per whole second or more, at most [`STRIP_MAX`].
pub fn strip_layout(
    duration_ms: i64,
    width: i64,
    height: i64,
) -> shared::domain::footage::media::ScrubStrip {
    let interval_ms = ((duration_ms + STRIP_MAX * 1000 - 1) / (STRIP_MAX * 1000)).max(1) * 1000;
    // A last partial interval under a quarter second gets no thumbnail: the audio often runs a
    // few milliseconds past the last frame.
    let count = ((duration_ms + interval_ms - 250) / interval_ms).max(1);
    let even = |x: i64| ((x + 1) / 2 * 2).max(2);
    let (tw, th) = if width >= height {
        (
            THUMB_LONG_SIDE,
            even(THUMB_LONG_SIDE * height / width.max(1)),
        )
    } else {
        (
            even(THUMB_LONG_SIDE * width / height.max(1)),
            THUMB_LONG_SIDE,
        )
    };
    shared::domain::footage::media::ScrubStrip {
        key: String::new(),
        columns: count.min(STRIP_COLUMNS),
        count,
        interval_ms,
        thumb_width: tw,
        thumb_height: th,
    }
}

/// The scrub strip from the rendition: a frame every interval, scaled, tiled into one JPEG.
pub fn strip_args(
    web: &Path,
    strip: &shared::domain::footage::media::ScrubStrip,
    out: &Path,
) -> Vec<String> {
    let rows = (strip.count + strip.columns - 1) / strip.columns;
    vec![
        "-hide_banner".into(),
        "-nostdin".into(),
        "-y".into(),
        "-i".into(),
        web.display().to_string(),
        "-vf".into(),
        format!(
            "fps=1000/{},scale={}:{},tile={}x{rows}",
            strip.interval_ms, strip.thumb_width, strip.thumb_height, strip.columns
        ),
        "-frames:v".into(),
        "1".into(),
        "-q:v".into(),
        "5".into(),
        out.display().to_string(),
    ]
}

/// Runs ffmpeg with `args`, calling `progress` with the output time reached (ms) as ffmpeg
/// reports it, and killing it once `stop` is set. `Ok(Err(_))`: ffmpeg refused the input;
/// `Err`: ffmpeg could not run, or was stopped.
pub fn run(
    args: &[String],
    stop: &AtomicBool,
    mut progress: impl FnMut(i64),
) -> Result<Result<(), BadMedia>, ToolError> {
    use ffmpeg_sidecar::command::FfmpegCommand;
    use ffmpeg_sidecar::event::{FfmpegEvent, LogLevel};
    let mut child = FfmpegCommand::new()
        .args(args)
        .spawn()
        .map_err(|e| ToolError(format!("ffmpeg could not run (is ffmpeg installed?): {e}")))?;
    let mut errors = String::new();
    let events = child
        .iter()
        .map_err(|e| ToolError(format!("ffmpeg output: {e}")))?;
    for event in events {
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolError("stopped".into()));
        }
        match event {
            FfmpegEvent::Progress(p) => {
                if let Some(ms) = clock_ms(&p.time) {
                    progress(ms);
                }
            }
            // The first lines say why; a long run's stream of errors stays bounded.
            FfmpegEvent::Log(LogLevel::Error | LogLevel::Fatal, line) if errors.len() < 8192 => {
                errors.push_str(&line);
                errors.push('\n');
            }
            _ => {}
        }
    }
    let status = child
        .wait()
        .map_err(|e| ToolError(format!("ffmpeg: {e}")))?;
    if status.success() {
        Ok(Ok(()))
    } else if status.code().is_none() {
        Err(ToolError(format!("ffmpeg was killed ({status})")))
    } else {
        Ok(Err(classify(&errors)))
    }
}

/// A flag that stops [`run`], shared with the task that watches for a cancel request.
pub fn stop_flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// `HH:MM:SS.xx` (ffmpeg's progress time) in milliseconds.
fn clock_ms(t: &str) -> Option<i64> {
    let mut parts = t.trim().split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let (h, m, s): (f64, f64, f64) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    (h >= 0.0).then(|| ((h * 3600.0 + m * 60.0 + s) * 1000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_reads_rotation_from_side_data_then_the_tag() {
        let side = json!({
            "streams": [{"codec_type": "video", "codec_name": "h264", "width": 1920, "height": 1080,
                "avg_frame_rate": "30000/1001", "side_data_list": [{"rotation": -90}]},
                {"codec_type": "audio"}],
            "format": {"duration": "12.345", "bit_rate": "4000000"}
        });
        let p = parse_probe(&side).unwrap();
        assert_eq!(p.rotation, 270);
        assert_eq!(p.duration_ms, 12345);
        assert_eq!(p.fps, Some(29.97));
        assert_eq!(p.codec.as_deref(), Some("h264"));
        assert_eq!(p.display_size(), (1080, 1920));
        assert_eq!(p.bit_rate, Some(4_000_000));
        assert!(p.has_audio);
        let tag =
            json!({"streams": [{"codec_type": "video", "tags": {"rotate": "270"}}], "format": {}});
        assert_eq!(parse_probe(&tag).unwrap().rotation, 270);
        let plain = json!({"streams": [{"codec_type": "video"}], "format": {}});
        assert_eq!(parse_probe(&plain).unwrap().rotation, 0);
    }

    #[test]
    fn bad_media_is_named_by_what_is_wrong() {
        let audio = json!({"streams": [{"codec_type": "audio"}], "format": {}});
        assert_eq!(parse_probe(&audio).unwrap_err().code, "no_video_track");
        let cut = "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5] moov atom not found\nin.mp4: Invalid data found when processing input\n";
        let b = classify(cut);
        assert_eq!(b.code, "media_truncated");
        assert!(
            b.message
                .ends_with("in.mp4: Invalid data found when processing input")
        );
        assert_eq!(
            classify("in.txt: Invalid data found when processing input").code,
            "not_video"
        );
    }

    #[test]
    fn the_strip_has_a_thumbnail_a_second_up_to_a_hundred() {
        let s = strip_layout(60_000, 1920, 1080);
        assert_eq!((s.count, s.interval_ms, s.columns), (60, 1000, 10));
        assert_eq!((s.thumb_width, s.thumb_height), (160, 90));
        let long = strip_layout(2 * 3600 * 1000, 1080, 1920);
        assert_eq!((long.count, long.interval_ms), (100, 72_000));
        assert_eq!((long.thumb_width, long.thumb_height), (90, 160));
        let short = strip_layout(400, 320, 240);
        assert_eq!((short.count, short.columns), (1, 1));
    }

    #[test]
    fn progress_times_read_as_milliseconds() {
        assert_eq!(clock_ms("00:01:02.50"), Some(62_500));
        assert_eq!(clock_ms("N/A"), None);
    }
}
