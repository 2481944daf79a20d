//! Tolerant readers of the tour index's answers (`docs/competition.md`, "tourindex"): its JSON
//! search endpoints and its HTML pages (athlete profile, tour directory, tour event list, event
//! results).
//!
//! The tour index publishes no contract, so every reader takes what it can and lists, in
//! `issues`, what it could not read (a row without an event name, a place that is not a
//! number, a search entry without an id) instead of failing the whole answer. A page fails as
//! a whole only when its identity cannot be read (a profile without a name, an event without a
//! title): then there is nothing to attach the rest to.
//!
//! Where a page carries structured data (schema.org JSON-LD on profiles), it wins over the
//! visible markup; the markup is the fallback. Pure functions over text, unit-tested here; the
//! client (`super::tourindex`) fetches.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tl::{HTMLTag, Parser, VDom};
use utoipa::ToSchema;

/// An athlete as the search and the directory list them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourAthlete {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub tour: Option<String>,
    /// The headshot's URL as the provider gives it (absolute or relative to its origin).
    #[serde(default)]
    pub image: Option<String>,
}

/// One result on a profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourResult {
    #[serde(default)]
    pub event_id: Option<String>,
    pub event_name: String,
    /// As printed (`YYYY-MM-DD` when the page uses it).
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub place: Option<i64>,
    #[serde(default)]
    pub points: Option<f64>,
}

/// An athlete's profile page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourProfile {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub birth_date: Option<String>,
    #[serde(default)]
    pub stance: Option<String>,
    #[serde(default)]
    pub hometown: Option<String>,
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub results: Vec<TourResult>,
    /// What could not be read.
    #[serde(default)]
    pub issues: Vec<String>,
}

/// One page of a tour's athlete directory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectoryPage {
    pub athletes: Vec<TourAthlete>,
    /// The next page's number, when the page links one.
    pub next: Option<u32>,
    pub issues: Vec<String>,
}

/// An event as a tour's event list shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourEventRef {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub date: Option<String>,
}

/// One line of an event's results.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourEntry {
    #[serde(default)]
    pub athlete_id: Option<String>,
    pub athlete_name: String,
    #[serde(default)]
    pub place: Option<i64>,
    #[serde(default)]
    pub points: Option<f64>,
}

/// An event's results page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TourEvent {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub tour: Option<String>,
    #[serde(default)]
    pub results: Vec<TourEntry>,
    #[serde(default)]
    pub issues: Vec<String>,
}

/// One typeahead suggestion (`kind` is `athlete` or `event`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveHit {
    pub kind: String,
    pub id: String,
    pub label: String,
}

// ---- JSON ----

fn json_body(body: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON: {e}"))
}

/// The list in an answer: a top-level array, or the first array under one of `keys`.
fn list<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v Vec<Value>> {
    v.as_array().or_else(|| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_array))
    })
}

/// A string or a number, as text; blank is none.
fn scalar(v: Option<&Value>) -> Option<String> {
    let s = match v? {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

fn first_of(o: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| scalar(o.get(*k)))
}

/// A name from `name`, else `firstName` and `lastName`.
fn json_name(o: &Value) -> Option<String> {
    first_of(o, &["name", "fullName"]).or_else(|| {
        let parts: Vec<String> = ["firstName", "lastName"]
            .iter()
            .filter_map(|k| scalar(o.get(*k)))
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    })
}

/// `GET /api/athletes/search`: `{"athletes": [...]}` (or `results`, `items`, `data`, or a bare
/// array); entries without an id or a name are skipped and reported.
pub fn search_answer(body: &[u8]) -> Result<(Vec<TourAthlete>, Vec<String>), String> {
    let v = json_body(body)?;
    let entries = list(&v, &["athletes", "results", "items", "data"])
        .ok_or("the answer has no list of athletes")?;
    let mut out = Vec::new();
    let mut issues = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let (Some(id), Some(name)) = (first_of(e, &["id", "athleteId"]), json_name(e)) else {
            issues.push(format!("search entry {}: no id or no name", i + 1));
            continue;
        };
        out.push(TourAthlete {
            id,
            name,
            country: first_of(e, &["country", "nationality", "countryCode"]),
            tour: first_of(e, &["tour"]),
            image: first_of(e, &["image", "photo", "avatar", "headshot"]),
        });
    }
    Ok((out, issues))
}

/// `GET /api/live-search`: `{"items": [{"type", "id", "name"}]}`; suggestions of another type,
/// or without an id or label, are dropped.
pub fn live_answer(body: &[u8]) -> Result<Vec<LiveHit>, String> {
    let v = json_body(body)?;
    let entries = list(&v, &["items", "results", "suggestions"]).ok_or("no list of suggestions")?;
    Ok(entries
        .iter()
        .filter_map(|e| {
            let kind = first_of(e, &["type", "kind"])?.to_lowercase();
            if kind != "athlete" && kind != "event" {
                return None;
            }
            Some(LiveHit {
                kind,
                id: first_of(e, &["id"])?,
                label: first_of(e, &["name", "label", "title"])?,
            })
        })
        .collect())
}

// ---- HTML ----

fn parse(html: &str) -> Result<VDom<'_>, String> {
    tl::parse(html, tl::ParserOptions::default()).map_err(|e| format!("unreadable HTML: {e}"))
}

fn tags<'p, 'a>(nodes: &'p [tl::Node<'a>]) -> impl Iterator<Item = &'p HTMLTag<'a>> {
    nodes.iter().filter_map(tl::Node::as_tag)
}

fn is(tag: &HTMLTag, name: &str) -> bool {
    tag.name().as_utf8_str().eq_ignore_ascii_case(name)
}

fn attr(tag: &HTMLTag, name: &str) -> Option<String> {
    let v = tag.attributes().get(name)??.as_utf8_str();
    let v = decode_entities(v.trim());
    (!v.is_empty()).then_some(v)
}

fn has_class(tag: &HTMLTag, class: &str) -> bool {
    tag.attributes().is_class_member(class)
}

/// The element's text: entities decoded, whitespace collapsed; blank is none.
fn text(tag: &HTMLTag, p: &Parser) -> Option<String> {
    let t = decode_entities(&tag.inner_text(p));
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

/// The descendants of `tag`, in document order.
fn inside<'p, 'a>(
    tag: &'p HTMLTag<'a>,
    p: &'p Parser<'a>,
) -> impl Iterator<Item = &'p HTMLTag<'a>> {
    tags(tag.children().all(p))
}

/// The first descendant `name` with class `class`.
fn find<'p, 'a>(
    tag: &'p HTMLTag<'a>,
    p: &'p Parser<'a>,
    name: &str,
    class: &str,
) -> Option<&'p HTMLTag<'a>> {
    inside(tag, p).find(|t| is(t, name) && has_class(t, class))
}

/// The named entities pages use, and numeric references.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest[..rest.len().min(12)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..end];
        let ch = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32),
            n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A place as printed: `1`, `=5`, `T5`, `3rd`; `DNS`/`DNF`/`DSQ`/`-` are no place (not an
/// issue); anything else is an issue.
fn place(s: Option<String>) -> Result<Option<i64>, String> {
    let Some(s) = s else { return Ok(None) };
    let t = s.trim().trim_start_matches(['=', 'T', 't']);
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let suffix = t[digits.len()..].to_ascii_lowercase();
    if !digits.is_empty() && ["", "st", "nd", "rd", "th"].contains(&suffix.as_str()) {
        return digits.parse().map(Some).map_err(|_| s.clone());
    }
    match s.trim().to_ascii_uppercase().as_str() {
        "DNS" | "DNF" | "DSQ" | "INJ" | "-" | "–" | "" => Ok(None),
        _ => Err(s),
    }
}

/// Points as printed: `10,000`, `7 800`, `6085.5`; `-` is none.
fn points(s: Option<String>) -> Result<Option<f64>, String> {
    let Some(s) = s else { return Ok(None) };
    let t: String = s
        .chars()
        .filter(|c| !matches!(c, ',' | ' ' | '\u{a0}'))
        .collect();
    if t.is_empty() || t == "-" || t == "–" {
        return Ok(None);
    }
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Some)
        .ok_or(s)
}

/// The cells of a table row by their class, else by position (`fallback` names the columns in
/// order).
fn cells(row: &HTMLTag, p: &Parser, fallback: &[&str]) -> Vec<(String, Option<String>)> {
    let tds: Vec<&HTMLTag> = inside(row, p).filter(|t| is(t, "td")).collect();
    tds.iter()
        .enumerate()
        .map(|(i, td)| {
            let class = fallback
                .iter()
                .find(|c| has_class(td, c))
                .or_else(|| fallback.get(i))
                .map(|c| c.to_string())
                .unwrap_or_default();
            (class, text(td, p))
        })
        .collect()
}

fn cell(cells: &[(String, Option<String>)], name: &str) -> Option<String> {
    cells
        .iter()
        .find(|(c, _)| c == name)
        .and_then(|(_, v)| v.clone())
}

/// The rows of the first `table.{class}` (header rows, without `td`, skipped).
fn rows<'p, 'a>(dom: &'p VDom<'a>, class: &str) -> Vec<&'p HTMLTag<'a>> {
    let p = dom.parser();
    let Some(table) = tags(dom.nodes()).find(|t| is(t, "table") && has_class(t, class)) else {
        return Vec::new();
    };
    inside(table, p)
        .filter(|t| is(t, "tr") && inside(t, p).any(|c| is(c, "td")))
        .collect()
}

/// The schema.org `Person` in the page's JSON-LD, if any.
fn json_ld_person(dom: &VDom) -> Option<Value> {
    let p = dom.parser();
    tags(dom.nodes())
        .filter(|t| is(t, "script") && attr(t, "type").as_deref() == Some("application/ld+json"))
        .filter_map(|t| serde_json::from_str::<Value>(&t.inner_html(p)).ok())
        .flat_map(|v| match v {
            Value::Array(a) => a,
            v => vec![v],
        })
        .find(|v| v.get("@type").and_then(Value::as_str) == Some("Person"))
}

/// A JSON-LD value that may be a string or an object with a `name`.
fn ld_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Object(_) => scalar(v?.get("name")),
        other => scalar(Some(other)),
    }
}

/// `GET /athletes/{id}`: the name from JSON-LD, else `h1.athlete-name`, else the first `h1`
/// (no name: the page is unreadable); facts from JSON-LD, else `dl.athlete-facts`; results
/// from `table.athlete-results` (columns `event`, `date`, `place`, `points`).
pub fn profile_page(id: &str, html: &str) -> Result<TourProfile, String> {
    let dom = parse(html)?;
    let p = dom.parser();
    let ld = json_ld_person(&dom);
    let ld_field = |k: &str| ld.as_ref().and_then(|v| ld_text(v.get(k)));
    let heading = tags(dom.nodes())
        .find(|t| is(t, "h1") && has_class(t, "athlete-name"))
        .or_else(|| tags(dom.nodes()).find(|t| is(t, "h1")))
        .and_then(|t| text(t, p));
    let name = ld_field("name")
        .or(heading)
        .ok_or("the profile page has no athlete name")?;
    let mut facts = std::collections::HashMap::new();
    if let Some(dl) = tags(dom.nodes()).find(|t| is(t, "dl") && has_class(t, "athlete-facts")) {
        let mut key = None;
        for t in inside(dl, p) {
            if is(t, "dt") {
                key = text(t, p).map(|k| k.to_lowercase());
            } else if is(t, "dd")
                && let (Some(k), Some(v)) = (key.take(), text(t, p))
            {
                facts.insert(k, v);
            }
        }
    }
    let fact = |k: &str| facts.get(k).cloned();
    let mut profile = TourProfile {
        id: id.to_string(),
        name,
        country: ld_field("nationality").or_else(|| fact("country")),
        birth_date: ld_field("birthDate").or_else(|| fact("born")),
        stance: fact("stance"),
        hometown: ld
            .as_ref()
            .and_then(|v| ld_text(v.get("homeLocation")))
            .or_else(|| fact("hometown")),
        image: ld_field("image").or_else(|| {
            tags(dom.nodes())
                .find(|t| is(t, "img") && has_class(t, "athlete-photo"))
                .and_then(|t| attr(t, "src"))
        }),
        ..TourProfile::default()
    };
    const COLUMNS: &[&str] = &["event", "date", "place", "points"];
    for (i, row) in rows(&dom, "athlete-results").into_iter().enumerate() {
        let c = cells(row, p, COLUMNS);
        let Some(event_name) = cell(&c, "event") else {
            profile
                .issues
                .push(format!("result row {}: no event name", i + 1));
            continue;
        };
        let mut result = TourResult {
            event_id: attr(row, "data-event-id"),
            event_name,
            date: cell(&c, "date"),
            ..TourResult::default()
        };
        match place(cell(&c, "place")) {
            Ok(v) => result.place = v,
            Err(raw) => profile.issues.push(format!(
                "result row {}: place {raw:?} is not a number",
                i + 1
            )),
        }
        match points(cell(&c, "points")) {
            Ok(v) => result.points = v,
            Err(raw) => profile.issues.push(format!(
                "result row {}: points {raw:?} is not a number",
                i + 1
            )),
        }
        profile.results.push(result);
    }
    Ok(profile)
}

/// The `page` query parameter of a link, when it has one.
fn page_number(href: &str) -> Option<u32> {
    let query = href.split_once('?')?.1;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix("page="))
        .and_then(|n| n.parse().ok())
}

/// `GET /tours/{tour}/athletes?page=N`: `li.athlete[data-athlete-id]` items with a link (the
/// name), `span.country` and an `img`; the next page from `a[rel=next]`.
pub fn directory_page(tour: &str, html: &str) -> Result<DirectoryPage, String> {
    let dom = parse(html)?;
    let p = dom.parser();
    let mut page = DirectoryPage::default();
    for (i, li) in tags(dom.nodes())
        .filter(|t| is(t, "li") && has_class(t, "athlete"))
        .enumerate()
    {
        let id = attr(li, "data-athlete-id").or_else(|| {
            inside(li, p)
                .find(|t| is(t, "a"))
                .and_then(|a| attr(a, "href"))
                .and_then(|h| h.rsplit('/').next().map(str::to_string))
                .filter(|s| !s.is_empty())
        });
        let name = inside(li, p).find(|t| is(t, "a")).and_then(|a| text(a, p));
        let (Some(id), Some(name)) = (id, name) else {
            page.issues
                .push(format!("directory entry {}: no id or no name", i + 1));
            continue;
        };
        page.athletes.push(TourAthlete {
            id,
            name,
            country: find(li, p, "span", "country").and_then(|t| text(t, p)),
            tour: Some(tour.to_string()),
            image: inside(li, p)
                .find(|t| is(t, "img"))
                .and_then(|t| attr(t, "src")),
        });
    }
    page.next = tags(dom.nodes())
        .find(|t| is(t, "a") && attr(t, "rel").as_deref() == Some("next"))
        .and_then(|a| attr(a, "href"))
        .and_then(|h| page_number(&h));
    Ok(page)
}

/// `GET /tours/{tour}/events`: `li.event[data-event-id]` items with the name in their link and
/// an optional `time[datetime]`.
pub fn event_list_page(html: &str) -> Result<(Vec<TourEventRef>, Vec<String>), String> {
    let dom = parse(html)?;
    let p = dom.parser();
    let mut events = Vec::new();
    let mut issues = Vec::new();
    for (i, li) in tags(dom.nodes())
        .filter(|t| is(t, "li") && has_class(t, "event"))
        .enumerate()
    {
        let name = inside(li, p)
            .find(|t| is(t, "a"))
            .and_then(|a| text(a, p))
            .or_else(|| text(li, p));
        let (Some(id), Some(name)) = (attr(li, "data-event-id"), name) else {
            issues.push(format!("event entry {}: no id or no name", i + 1));
            continue;
        };
        events.push(TourEventRef {
            id,
            name,
            date: inside(li, p)
                .find(|t| is(t, "time"))
                .and_then(|t| attr(t, "datetime")),
        });
    }
    Ok((events, issues))
}

/// `GET /events/{id}`: the name from `h1.event-name` (else the first `h1`; none: unreadable),
/// the date from `time[datetime]`, the tour from `span.tour`, results from
/// `table.event-results` rows (`data-athlete-id`; columns `athlete`, `place`, `points`).
pub fn event_page(id: &str, html: &str) -> Result<TourEvent, String> {
    let dom = parse(html)?;
    let p = dom.parser();
    let name = tags(dom.nodes())
        .find(|t| is(t, "h1") && has_class(t, "event-name"))
        .or_else(|| tags(dom.nodes()).find(|t| is(t, "h1")))
        .and_then(|t| text(t, p))
        .ok_or("the event page has no title")?;
    let mut event = TourEvent {
        id: id.to_string(),
        name,
        date: tags(dom.nodes())
            .find(|t| is(t, "time"))
            .and_then(|t| attr(t, "datetime")),
        tour: tags(dom.nodes())
            .find(|t| is(t, "span") && has_class(t, "tour"))
            .and_then(|t| text(t, p)),
        ..TourEvent::default()
    };
    const COLUMNS: &[&str] = &["athlete", "place", "points"];
    for (i, row) in rows(&dom, "event-results").into_iter().enumerate() {
        let c = cells(row, p, COLUMNS);
        let Some(athlete_name) = cell(&c, "athlete") else {
            event
                .issues
                .push(format!("result row {}: no athlete name", i + 1));
            continue;
        };
        let mut entry = TourEntry {
            athlete_id: attr(row, "data-athlete-id"),
            athlete_name,
            ..TourEntry::default()
        };
        match place(cell(&c, "place")) {
            Ok(v) => entry.place = v,
            Err(raw) => event.issues.push(format!(
                "result row {}: place {raw:?} is not a number",
                i + 1
            )),
        }
        match points(cell(&c, "points")) {
            Ok(v) => entry.points = v,
            Err(raw) => event.issues.push(format!(
                "result row {}: points {raw:?} is not a number",
                i + 1
            )),
        }
        event.results.push(entry);
    }
    Ok(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_and_points_as_printed() {
        assert_eq!(place(Some("1".into())), Ok(Some(1)));
        assert_eq!(place(Some("=5".into())), Ok(Some(5)));
        assert_eq!(place(Some("T9".into())), Ok(Some(9)));
        assert_eq!(place(Some("3rd".into())), Ok(Some(3)));
        assert_eq!(place(Some("DNS".into())), Ok(None));
        assert_eq!(place(None), Ok(None));
        assert_eq!(place(Some("first".into())), Err("first".into()));
        assert_eq!(place(Some("5x".into())), Err("5x".into()));
        assert_eq!(points(Some("10,000".into())), Ok(Some(10000.0)));
        assert_eq!(points(Some("6 085.5".into())), Ok(Some(6085.5)));
        assert_eq!(points(Some("-".into())), Ok(None));
        assert_eq!(points(Some("NaN".into())), Err("NaN".into()));
        assert_eq!(points(Some("lots".into())), Err("lots".into()));
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(decode_entities("Jo&atilde;o &amp; co"), "Jo&atilde;o & co");
        assert_eq!(decode_entities("Jo&#227;o &#x4E;"), "João N");
        assert_eq!(decode_entities("a & b"), "a & b");
    }

    #[test]
    fn profile_prefers_json_ld_and_reports_bad_rows() {
        let html = r#"<html><head>
            <script type="application/ld+json">{"@type":"Person","name":"Jo&#227;o Silva",
              "nationality":{"@type":"Country","name":"BRA"},"birthDate":"2001-02-03",
              "image":"/img/j.jpg","homeLocation":{"name":"Florianópolis"}}</script></head>
            <body><h1 class="athlete-name">Someone Else</h1>
            <dl class="athlete-facts"><dt>Stance</dt><dd> Goofy </dd><dt>Country</dt><dd>XXX</dd></dl>
            <table class="athlete-results"><tr><th>Event</th></tr>
            <tr data-event-id="e1"><td class="event">Pipe Pro</td><td class="date">2026-02-01</td>
                <td class="place">=3</td><td class="points">4,745</td></tr>
            <tr><td class="event"></td><td class="place">1</td></tr>
            <tr data-event-id="e2"><td>Bells</td><td>2026-04-12</td><td>first</td><td>n/a</td></tr>
            </table>"#;
        let p = profile_page("ti-9", html).unwrap();
        // JSON-LD is raw JSON: its text is not HTML-decoded, so the escape stays.
        assert_eq!(p.name, "Jo&#227;o Silva");
        assert_eq!(p.country.as_deref(), Some("BRA"));
        assert_eq!(p.stance.as_deref(), Some("Goofy"));
        assert_eq!(p.hometown.as_deref(), Some("Florianópolis"));
        assert_eq!(p.results.len(), 2);
        assert_eq!(p.results[0].place, Some(3));
        assert_eq!(p.results[0].points, Some(4745.0));
        assert_eq!(p.results[1].event_name, "Bells", "positional columns");
        assert_eq!(p.results[1].place, None);
        assert_eq!(p.issues.len(), 3, "{:?}", p.issues);
    }

    #[test]
    fn profile_without_any_name_is_unreadable() {
        assert!(profile_page("x", "<html><body><p>Oops</p>").is_err());
        let p = profile_page("x", "<h1>Kai Lenny</h1><table class=athlete-results>").unwrap();
        assert_eq!((p.name.as_str(), p.results.len()), ("Kai Lenny", 0));
    }

    #[test]
    fn search_answers_in_any_of_the_usual_shapes() {
        let (a, issues) = search_answer(
            br#"{"athletes":[{"id":7,"firstName":"Kai","lastName":"Lenny","countryCode":"USA"},
               {"name":"No Id"},{"id":"x","name":"  "}]}"#,
        )
        .unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].id.as_str(), a[0].name.as_str()), ("7", "Kai Lenny"));
        assert_eq!(issues.len(), 2);
        assert_eq!(search_answer(b"[]").unwrap().0.len(), 0);
        assert!(search_answer(b"<html>").is_err());
        assert!(search_answer(br#"{"nothing":1}"#).is_err());
    }

    #[test]
    fn directory_reads_entries_and_the_next_page() {
        let html = r#"<ul><li class="athlete" data-athlete-id="ti-1"><a href="/athletes/ti-1">Kai Lenny</a>
            <span class="country">USA</span><img src="/img/ti-1.jpg"></li>
            <li class="athlete"><a href="/athletes/ti-2">Molly Picklum</a></li>
            <li class="athlete" data-athlete-id="ti-3"></li></ul>
            <a rel="next" href="/tours/ct/athletes?page=2">Next</a>"#;
        let d = directory_page("ct", html).unwrap();
        assert_eq!(d.athletes.len(), 2);
        assert_eq!(d.athletes[1].id, "ti-2", "id from the link");
        assert_eq!(d.athletes[0].image.as_deref(), Some("/img/ti-1.jpg"));
        assert_eq!(d.next, Some(2));
        assert_eq!(d.issues.len(), 1);
    }

    #[test]
    fn event_page_reads_results() {
        let html = r#"<h1 class="event-name">Pipe &amp; Friends Pro</h1><time datetime="2026-02-01">Feb 1</time>
            <span class="tour">ct</span><table class="event-results">
            <tr data-athlete-id="ti-1"><td class="athlete">Kai Lenny</td><td class="place">1</td><td class="points">10000</td></tr>
            <tr><td class="place">2</td></tr></table>"#;
        let e = event_page("e1", html).unwrap();
        assert_eq!(e.name, "Pipe & Friends Pro");
        assert_eq!(e.date.as_deref(), Some("2026-02-01"));
        assert_eq!(e.results.len(), 1);
        assert_eq!(e.issues.len(), 1);
        assert!(event_page("e1", "<p>no title</p>").is_err());
    }
}
