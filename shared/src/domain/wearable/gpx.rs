//! GPX 1.1, read as a stream and written for export.
//!
//! Reading pulls one XML event at a time (quick-xml), so memory stays the same whatever the
//! number of points: a `trkpt`'s `lat`/`lon`, its `time`, `hdop` (accuracy ≈ 5 m × hdop) and,
//! from Garmin's TrackPointExtension (v1 or v2), `hr` and `speed`. Extension elements are
//! matched by their namespace URI, whatever prefix the file gives them (Garmin Connect writes
//! `ns3:`). GPX elements are matched in the GPX 1.1 namespace or in none. A malformed document
//! fails with the byte position of the fault; [`line_at`] turns it into a line number.

use super::samples::GpsFix;
use chrono::DateTime;
use quick_xml::NsReader;
use quick_xml::events::Event;
use quick_xml::name::{Namespace, ResolveResult};
use std::fmt::Write as _;
use tokio::io::{AsyncBufRead, AsyncRead, AsyncReadExt};

pub const GPX_NS: &str = "http://www.topografix.com/GPX/1/1";
pub const TPX_V1: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1";
pub const TPX_V2: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2";

/// One track point.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub fix: GpsFix,
    pub hr: Option<u16>,
}

/// Why a document was refused, at which byte.
#[derive(Clone, Debug, PartialEq)]
pub struct GpxError {
    pub position: u64,
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Field {
    None,
    Time,
    Hdop,
    Hr,
    Speed,
}

/// A track point being read: lat, lon, time, accuracy, heart rate, speed.
type Partial = (f64, f64, Option<i64>, Option<f64>, Option<u16>, Option<f64>);

pub struct GpxReader<R> {
    r: NsReader<R>,
    buf: Vec<u8>,
    saw_gpx: bool,
    depth_trkpt: bool,
    field: Field,
    cur: Option<Partial>,
    /// Byte position where the current point started (for errors about it).
    cur_at: u64,
}

impl<R: AsyncBufRead + Unpin> GpxReader<R> {
    pub fn new(r: R) -> Self {
        let mut r = NsReader::from_reader(r);
        r.config_mut().trim_text(true);
        r.config_mut().expand_empty_elements = true;
        GpxReader {
            r,
            buf: Vec::new(),
            saw_gpx: false,
            depth_trkpt: false,
            field: Field::None,
            cur: None,
            cur_at: 0,
        }
    }

    fn err(&self, position: u64, message: impl Into<String>) -> GpxError {
        GpxError {
            position,
            message: message.into(),
        }
    }

    /// The next track point, `None` at the end of the document.
    pub async fn next_point(&mut self) -> Result<Option<Point>, GpxError> {
        loop {
            self.buf.clear();
            let (ns, ev) = match self.r.read_resolved_event_into_async(&mut self.buf).await {
                Ok(x) => x,
                Err(e) => {
                    let at = self.r.error_position();
                    return Err(self.err(at, format!("malformed XML: {e}")));
                }
            };
            let gpx_ns = matches!(ns, ResolveResult::Unbound)
                || matches!(ns, ResolveResult::Bound(Namespace(n)) if n == GPX_NS);
            let tpx =
                matches!(ns, ResolveResult::Bound(Namespace(n)) if n == TPX_V1 || n == TPX_V2);
            // Where the event ends: on the line of the tag it reports.
            let before = self.r.buffer_position().saturating_sub(1);
            match ev {
                Event::Start(e) => {
                    let local = e.local_name();
                    let name = local.as_ref();
                    if !self.saw_gpx {
                        if name != "gpx" {
                            return Err(self.err(before, "the document is not GPX (no <gpx> root)"));
                        }
                        self.saw_gpx = true;
                        continue;
                    }
                    if gpx_ns && name == "trkpt" {
                        let mut lat = None;
                        let mut lon = None;
                        for a in e.attributes().flatten() {
                            let v = a.value.trim().parse::<f64>().ok();
                            match a.key.local_name().as_ref() {
                                "lat" => lat = v,
                                "lon" => lon = v,
                                _ => {}
                            }
                        }
                        let (Some(lat), Some(lon)) = (lat, lon) else {
                            return Err(
                                self.err(before, "a trkpt needs numeric lat and lon attributes")
                            );
                        };
                        self.cur = Some((lat, lon, None, None, None, None));
                        self.cur_at = before;
                        self.depth_trkpt = true;
                    } else if self.depth_trkpt {
                        self.field = match name {
                            "time" if gpx_ns => Field::Time,
                            "hdop" if gpx_ns => Field::Hdop,
                            "hr" if tpx => Field::Hr,
                            "speed" if tpx => Field::Speed,
                            _ => Field::None,
                        };
                    }
                }
                Event::Text(t) if self.depth_trkpt && self.field != Field::None => {
                    let text = t.xml10_content();
                    let text = text.trim();
                    let at = before;
                    let field = self.field;
                    let cur = self.cur.as_mut().expect("inside a trkpt");
                    match field {
                        Field::Time => {
                            let ts = DateTime::parse_from_rfc3339(text).map_err(|_| GpxError {
                                position: at,
                                message: format!("time {text:?} is not an RFC 3339 time"),
                            })?;
                            cur.2 = Some(ts.timestamp_millis());
                        }
                        Field::Hdop => cur.3 = text.parse::<f64>().ok().map(|h| h * 5.0),
                        Field::Hr => {
                            cur.4 = Some(text.parse::<u16>().map_err(|_| GpxError {
                                position: at,
                                message: format!("heart rate {text:?} is not a whole number"),
                            })?)
                        }
                        Field::Speed => cur.5 = text.parse::<f64>().ok(),
                        Field::None => {}
                    }
                }
                Event::End(e) => {
                    self.field = Field::None;
                    if self.depth_trkpt && gpx_ns && e.local_name().as_ref() == "trkpt" {
                        self.depth_trkpt = false;
                        let (lat, lon, t, acc, hr, speed) =
                            self.cur.take().expect("inside a trkpt");
                        let Some(t) = t else {
                            return Err(self.err(self.cur_at, "a trkpt has no <time>"));
                        };
                        let fix = GpsFix {
                            t,
                            lat,
                            lon,
                            speed,
                            accuracy: acc,
                        };
                        if let Some(m) = super::samples::check_fix(&fix) {
                            return Err(self.err(self.cur_at, m));
                        }
                        let hr = hr.filter(|b| (20..=250).contains(b));
                        return Ok(Some(Point { fix, hr }));
                    }
                }
                Event::Eof => {
                    if !self.saw_gpx {
                        return Err(self.err(before, "the document is empty or not GPX"));
                    }
                    return Ok(None);
                }
                _ => {}
            }
        }
    }
}

/// The 1-based line of byte `position` of `r`, read again from its start.
pub async fn line_at(mut r: impl AsyncRead + Unpin, position: u64) -> u64 {
    let mut buf = vec![0u8; 64 * 1024];
    let mut seen = 0u64;
    let mut line = 1u64;
    while seen < position {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let take = ((position - seen) as usize).min(n);
        line += buf[..take].iter().filter(|&&b| b == b'\n').count() as u64;
        seen += n as u64;
    }
    line
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn time(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// A ride to mark in an export.
pub struct MarkedRide {
    pub start_ms: i64,
    pub end_ms: i64,
    pub top_speed_kmh: f64,
    pub mean_speed_kmh: f64,
    pub distance_m: f64,
    pub heading_deg: Option<f64>,
    pub shore_angle_deg: Option<f64>,
}

impl MarkedRide {
    /// The waypoint's description: duration, distance, top and mean speed, direction.
    fn desc(&self) -> String {
        let mut d = format!(
            "{:.1} s, {:.0} m, top {:.1} km/h, mean {:.1} km/h",
            (self.end_ms - self.start_ms) as f64 / 1000.0,
            self.distance_m,
            self.top_speed_kmh,
            self.mean_speed_kmh
        );
        if let Some(a) = self.shore_angle_deg {
            let _ = write!(
                d,
                ", {} ({a:+.0}° to straight in)",
                super::sessions::direction(a)
            );
        }
        if let Some(h) = self.heading_deg {
            let _ = write!(d, ", heading {h:.0}°");
        }
        d
    }
}

/// A session as GPX 1.1: the track (heart rate in Garmin's TrackPointExtension, the nearest
/// reading within 2 s), a waypoint at each ride's start, and each ride as its own track
/// segment of a second track named "Rides".
pub fn export(
    name: &str,
    gps: &[GpsFix],
    hr: &[super::samples::HeartRate],
    rides: &[MarkedRide],
) -> String {
    let mut out = String::with_capacity(gps.len() * 160 + 512);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"surf-coach\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\">\n");
    let _ = writeln!(out, "  <metadata><name>{}</name></metadata>", esc(name));
    for (i, r) in rides.iter().enumerate() {
        if let Some(p) = gps.iter().find(|f| f.t >= r.start_ms) {
            let _ = writeln!(
                out,
                "  <wpt lat=\"{:.7}\" lon=\"{:.7}\"><time>{}</time><name>Ride {}</name><desc>{}</desc><type>ride</type></wpt>",
                p.lat,
                p.lon,
                time(r.start_ms),
                i + 1,
                esc(&r.desc())
            );
        }
    }
    fn point(out: &mut String, f: &GpsFix, hr: &[super::samples::HeartRate], hi: &mut usize) {
        while *hi + 1 < hr.len() && (hr[*hi + 1].t - f.t).abs() <= (hr[*hi].t - f.t).abs() {
            *hi += 1;
        }
        let _ = write!(
            out,
            "      <trkpt lat=\"{:.7}\" lon=\"{:.7}\"><time>{}</time>",
            f.lat,
            f.lon,
            time(f.t)
        );
        if let Some(h) = hr.get(*hi).filter(|h| (h.t - f.t).abs() <= 2000) {
            let _ = write!(
                out,
                "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{}</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>",
                h.bpm
            );
        }
        out.push_str("</trkpt>\n");
    }
    let mut hi = 0usize;
    let _ = writeln!(out, "  <trk><name>{}</name><trkseg>", esc(name));
    for f in gps {
        point(&mut out, f, hr, &mut hi);
    }
    out.push_str("  </trkseg></trk>\n");
    if !rides.is_empty() {
        hi = 0;
        out.push_str("  <trk><name>Rides</name><type>ride</type>\n");
        for r in rides {
            out.push_str("    <trkseg>\n");
            for f in gps.iter().filter(|f| f.t >= r.start_ms && f.t <= r.end_ms) {
                point(&mut out, f, hr, &mut hi);
            }
            out.push_str("    </trkseg>\n");
        }
        out.push_str("  </trk>\n");
    }
    out.push_str("</gpx>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(doc: &str) -> Result<Vec<Point>, (u64, String)> {
        let mut r = GpxReader::new(tokio::io::BufReader::new(doc.as_bytes()));
        let mut out = Vec::new();
        loop {
            match r.next_point().await {
                Ok(Some(p)) => out.push(p),
                Ok(None) => return Ok(out),
                Err(e) => return Err((line_at(doc.as_bytes(), e.position).await, e.message)),
            }
        }
    }

    const GARMIN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<gpx creator="Garmin Connect" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
  <trk><name>Surf</name><trkseg>
    <trkpt lat="-33.8915" lon="151.2767"><ele>0</ele><time>2026-01-01T06:00:00.000Z</time>
      <extensions><ns3:TrackPointExtension><ns3:hr>132</ns3:hr></ns3:TrackPointExtension></extensions></trkpt>
    <trkpt lat="-33.8916" lon="151.2768"><time>2026-01-01T06:00:01Z</time><hdop>1.2</hdop>
      <extensions><other:TrackPointExtension xmlns:other="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><other:hr>140</other:hr></other:TrackPointExtension>
      <x:hr xmlns:x="urn:not-garmin">99</x:hr></extensions></trkpt>
  </trkseg></trk>
</gpx>"#;

    #[tokio::test]
    async fn garmin_heart_rate_is_read_by_namespace_whatever_the_prefix() {
        let pts = read_all(GARMIN).await.unwrap();
        assert_eq!(pts.len(), 2);
        assert_eq!(pts[0].hr, Some(132));
        assert_eq!(pts[1].hr, Some(140));
        assert_eq!(pts[0].fix.t, 1_767_247_200_000);
        assert_eq!(pts[1].fix.accuracy, Some(6.0));
    }

    #[tokio::test]
    async fn malformed_xml_names_its_line() {
        let doc = "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2026-01-01T06:00:00Z</time></trkpt>\n<trkpt lat=\"1\" lon=\"2\"><time>2026-01-01T06:00:01Z</tim></trkpt>\n</trkseg></trk></gpx>";
        let (line, msg) = read_all(doc).await.unwrap_err();
        assert_eq!(line, 4, "{msg}");
        let (line, msg) = read_all("<gpx>\n<trk><trkseg>\n<trkpt lat=\"x\" lon=\"2\"></trkpt>")
            .await
            .unwrap_err();
        assert_eq!(line, 3, "{msg}");
        assert!(read_all("<kml></kml>").await.is_err());
    }

    #[tokio::test]
    async fn an_export_reads_back() {
        let gps: Vec<GpsFix> = (0..5)
            .map(|i| GpsFix {
                t: 1_767_247_200_000 + i * 1000,
                lat: -33.0,
                lon: 151.0 + i as f64 * 1e-5,
                speed: None,
                accuracy: None,
            })
            .collect();
        let hr = vec![super::super::samples::HeartRate {
            t: 1_767_247_200_000,
            bpm: 120,
        }];
        let rides = [MarkedRide {
            start_ms: gps[1].t,
            end_ms: gps[3].t,
            top_speed_kmh: 20.0,
            mean_speed_kmh: 14.0,
            distance_m: 3.0,
            heading_deg: Some(270.0),
            shore_angle_deg: Some(-60.0),
        }];
        let doc = export("A & B", &gps, &hr, &rides);
        let pts = read_all(&doc).await.unwrap();
        assert_eq!(pts.len(), 5 + 3);
        assert_eq!(pts[0].hr, Some(120));
        assert!(doc.contains("<name>Ride 1</name>") && doc.contains("A &amp; B"));
        assert!(
            doc.contains("<desc>2.0 s, 3 m, top 20.0 km/h, mean 14.0 km/h, left (-60° to straight in), heading 270°</desc>"),
            "{doc}"
        );
    }
}
