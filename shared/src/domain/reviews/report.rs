//! The printable coaching report: one self-contained HTML page (inline CSS, no script, no
//! external resource) of an [`Export`]. Every text that came from a person or a model (titles,
//! names, file names, keypoints, feedback, narratives, model names) goes through
//! [`crate::html::escape`]; the api serves it under a Content-Security-Policy that forbids
//! scripts anyway.

use super::coaching::{CoachingText, Export, FeedbackKind, Input};
use super::progress::{ProgressReport, Trend};
use crate::html::escape;
use crate::repo::coaching::Feedback;
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;color:#1b2733;max-width:52rem;margin:2rem auto;padding:0 1rem}\
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.2rem;margin:1.5rem 0 .25rem;border-bottom:1px solid #c9d3dc}\
h3{font-size:1rem;margin:1rem 0 .25rem}.meta{color:#5a6b7b;font-size:.85rem;margin:0}\
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #c9d3dc;padding:.25rem .4rem;text-align:left;vertical-align:top}\
th{background:#eef2f5}section{page-break-inside:avoid}@media print{body{margin:0}}";

/// Milliseconds as `m:ss.s`.
fn clock(ms: i64) -> String {
    let ms = ms.max(0);
    format!("{}:{:04.1}", ms / 60_000, (ms % 60_000) as f64 / 1000.0)
}

fn num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "–".into())
}

fn list(out: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = write!(out, "<h3>{}</h3><ul>", escape(title));
    for i in items {
        let _ = write!(out, "<li>{}</li>", escape(i));
    }
    out.push_str("</ul>");
}

fn feedback_text(out: &mut String, t: &CoachingText) {
    let _ = write!(out, "<p>{}</p>", escape(&t.summary));
    list(out, "Strengths", &t.strengths);
    list(out, "To improve", &t.improvements);
    if !t.drills.is_empty() {
        out.push_str("<h3>Drills</h3><ul>");
        for d in &t.drills {
            let _ = write!(
                out,
                "<li><strong>{}</strong>: {}</li>",
                escape(&d.name),
                escape(&d.description)
            );
        }
        out.push_str("</ul>");
    }
    if !t.maneuvers.is_empty() {
        out.push_str("<h3>Maneuvers</h3><table><tr><th>Type</th><th>Note</th></tr>");
        for m in &t.maneuvers {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                escape(&m.kind.replace('_', " ")),
                escape(&m.note)
            );
        }
        out.push_str("</table>");
    }
}

/// The clips the feedback was written from, with the coach's keypoints on them.
fn clips(out: &mut String, input: &Input) {
    for c in &input.clips {
        let s = &c.stats;
        let _ = write!(
            out,
            "<h3>Clip {}</h3><p class=\"meta\">{} waves · {} rides · top speed {} km/h · {} maneuvers</p>",
            escape(&c.file_name),
            s.wave_count,
            s.rides.len(),
            s.top_speed_kmh,
            s.maneuvers.len()
        );
        if !c.keypoints.is_empty() {
            out.push_str("<table><tr><th>At</th><th>Coach's note</th></tr>");
            for k in &c.keypoints {
                let at = match k.end_ms {
                    Some(e) => format!("{}–{}", clock(k.at_ms), clock(e)),
                    None => clock(k.at_ms),
                };
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td>{}</td></tr>",
                    escape(&at),
                    escape(&k.body)
                );
            }
            out.push_str("</table>");
        }
    }
}

fn trend_row(out: &mut String, name: &str, t: &Trend) {
    let _ = write!(
        out,
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        escape(name),
        num(t.first),
        num(t.last),
        num(t.change),
        num(t.slope_per_session)
    );
}

fn progress(out: &mut String, p: &ProgressReport) {
    out.push_str(
        "<table><tr><th>Session</th><th>Date</th><th>Waves</th><th>Rides</th><th>Mean ride (s)</th>\
         <th>Longest ride (s)</th><th>Top speed (km/h)</th><th>Maneuvers</th></tr>",
    );
    for s in &p.sessions {
        let mix: Vec<String> = s
            .maneuvers
            .iter()
            .map(|(k, n)| format!("{} {n}", k.replace('_', " ")))
            .collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&s.title),
            escape(&s.date.to_rfc3339()[..10]),
            s.waves,
            s.rides,
            num(s.mean_ride_seconds),
            num(s.longest_ride_seconds),
            num(s.top_speed_kmh),
            escape(&mix.join(", "))
        );
    }
    out.push_str(
        "</table><h3>Trends</h3><table><tr><th>Measure</th><th>First</th><th>Last</th>\
         <th>Change</th><th>Slope per session</th></tr>",
    );
    let t = &p.trends;
    for (name, tr) in [
        ("Waves", &t.waves),
        ("Rides", &t.rides),
        ("Mean ride (s)", &t.mean_ride_seconds),
        ("Longest ride (s)", &t.longest_ride_seconds),
        ("Top speed (km/h)", &t.top_speed_kmh),
        ("Maneuvers", &t.maneuver_count),
    ] {
        trend_row(out, name, tr);
    }
    for (kind, tr) in &t.maneuver_mix {
        trend_row(out, &format!("Share of {}", kind.replace('_', " ")), tr);
    }
    out.push_str("</table>");
    match &p.narrative {
        Some(n) => {
            let _ = write!(out, "<h3>Narrative</h3><p>{}</p>", escape(n));
        }
        None => {
            let why = p.narrative_reason.as_deref().unwrap_or("not written yet");
            let _ = write!(
                out,
                "<p class=\"meta\">No narrative ({}): the numbers above stand on their own.</p>",
                escape(why)
            );
        }
    }
}

fn section(out: &mut String, f: &Feedback) {
    let input: Option<Input> = serde_json::from_value(f.input.0.clone()).ok();
    let heading = match (f.kind, &input) {
        (FeedbackKind::Clip, Some(i)) => format!(
            "Clip feedback: {}",
            i.clips.first().map_or("", |c| c.file_name.as_str())
        ),
        (FeedbackKind::Batch, Some(i)) => format!("Session feedback: {}", i.session_title),
        (FeedbackKind::Progress, _) => "Progress across sessions".to_string(),
        _ => "Feedback".to_string(),
    };
    let model = match (&f.model, &f.model_version) {
        (Some(m), Some(v)) if m != v => format!(" · model {m} ({v})"),
        (Some(m), _) => format!(" · model {m}"),
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<section><h2>{}</h2><p class=\"meta\">Version {} · {}{}</p>",
        escape(&heading),
        f.version,
        escape(&f.created_at.to_rfc3339()),
        escape(&model)
    );
    let output = f.output.as_ref().map(|o| o.0.clone());
    match f.kind {
        FeedbackKind::Progress => {
            match output.and_then(|o| serde_json::from_value::<ProgressReport>(o).ok()) {
                Some(p) => progress(out, &p),
                None => out.push_str("<p class=\"meta\">No readable report.</p>"),
            }
        }
        FeedbackKind::Clip | FeedbackKind::Batch => {
            match output.and_then(|o| CoachingText::from_answer(o).ok()) {
                Some(t) => feedback_text(out, &t),
                None => out.push_str("<p class=\"meta\">No readable feedback.</p>"),
            }
            if let Some(i) = &input {
                clips(out, i);
            }
        }
    }
    out.push_str("</section>");
}

/// The report as one HTML document.
pub fn html(e: &Export) -> String {
    let mut out = String::with_capacity(8 * 1024);
    let mut about = Vec::new();
    if let Some(s) = &e.session {
        about.push(format!("Session: {}", s.title));
    }
    if let Some((_, name)) = &e.athlete {
        about.push(format!("Athlete: {name}"));
    }
    about.push(format!("Generated {}", e.generated_at.to_rfc3339()));
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Coaching report</title><style>{STYLE}</style></head><body>\
         <header><h1>Coaching report</h1><p class=\"meta\">{}</p></header>",
        escape(&about.join(" · "))
    );
    if e.feedback.is_empty() {
        out.push_str("<p>No coaching feedback yet.</p>");
    }
    for f in &e.feedback {
        section(&mut out, f);
    }
    if e.truncated {
        out.push_str("<p class=\"meta\">Only the newest 500 entries are shown.</p>");
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_minutes_and_tenths() {
        assert_eq!(clock(0), "0:00.0");
        assert_eq!(clock(65_500), "1:05.5");
    }
}
