//! Every documented JSON request body is accepted by the route it documents: an example is
//! built from the schema (the schema's own `example` where it has one), sent as the signed-in
//! coach with seeded data, and must not be refused for its shape (400 `invalid_json`,
//! `invalid_body`, `validation_failed`, 415, 422). A route is tried with the required fields
//! only, then with every field: a body whose fields are all optional may need one of them.
//! Rules across fields that JSON Schema cannot state (one of two fields, an end after a
//! start) are met by the schema's own `example`, whose ids are pointed at the seeded rows.

use super::{Seeded, document, resolve, seeded};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

/// An example value for `schema` at property `name`.
fn example(doc: &Value, schema: &Value, name: &str, s: &Seeded, full: bool) -> Value {
    let schema = resolve(doc, schema);
    if let Some(e) = schema.get("example") {
        return with_seeded_ids(e.clone(), s);
    }
    if let Some(e) = schema["examples"].as_array().and_then(|a| a.first()) {
        return e.clone();
    }
    if let Some(e) = schema["enum"]
        .as_array()
        .and_then(|a| a.iter().find(|v| !v.is_null()))
    {
        return e.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = schema[key].as_array() {
            let alt = alts
                .iter()
                .find(|a| resolve(doc, a)["type"] != "null")
                .unwrap_or(&alts[0]);
            return example(doc, alt, name, s, full);
        }
    }
    if let Some(all) = schema["allOf"].as_array() {
        let mut merged = Map::new();
        for part in all {
            if let Value::Object(o) = example(doc, part, name, s, full) {
                merged.extend(o);
            }
        }
        return Value::Object(merged);
    }
    let ty = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_string(),
        _ if schema["properties"].is_object() => "object".into(),
        _ => "null".into(),
    };
    match ty.as_str() {
        "object" => {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .collect();
            // An object that needs some properties (`minProperties`) gets its first ones.
            let at_least = schema["minProperties"].as_u64().unwrap_or(0) as usize;
            let mut out = Map::new();
            for (k, v) in schema["properties"].as_object().into_iter().flatten() {
                if full || required.contains(&k.as_str()) || out.len() < at_least {
                    out.insert(k.clone(), example(doc, v, k, s, full));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            if min == 0 && !full {
                json!([])
            } else {
                json!([example(doc, &schema["items"], name, s, full)])
            }
        }
        "integer" | "number" => {
            let min = schema["minimum"].as_f64().unwrap_or(1.0).max(1.0);
            json!(min as i64)
        }
        "boolean" => json!(false),
        "string" => string_example(schema, name, s),
        _ => Value::Null,
    }
}

/// The seeded row an id field of this name refers to, if any.
fn seeded_id(name: &str, s: &Seeded) -> Option<String> {
    Some(match name {
        "athleteId" | "opponentAthleteId" => s.athlete_id.clone(),
        "trainingSessionId" => s.training_id.clone(),
        "userId" | "coachUserId" | "coachId" | "fromCoachId" => s.coach.user_id.to_string(),
        // The coach of the path (`/api/coaches/{id}`) hands over to another one.
        "toCoachId" => s.second_coach.user_id.to_string(),
        "orgId" | "workspaceId" => s.coach.org_id.to_string(),
        _ => return None,
    })
}

/// A schema's own example with its id fields pointed at the seeded rows (an example in the
/// document cannot know them).
fn with_seeded_ids(v: Value, s: &Seeded) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| {
                    let v = match (&v, seeded_id(&k, s)) {
                        (Value::String(_), Some(id)) => Value::String(id),
                        _ => with_seeded_ids(v, s),
                    };
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(|v| with_seeded_ids(v, s)).collect()),
        v => v,
    }
}

fn string_example(schema: &Value, name: &str, s: &Seeded) -> Value {
    let soon = chrono::Utc::now() + chrono::Duration::days(1);
    let lower = name.to_ascii_lowercase();
    let v = match schema["format"].as_str() {
        Some("uuid") => {
            seeded_id(name, s).unwrap_or_else(|| "0190f000-0000-7000-8000-000000000001".into())
        }
        Some("date-time") if lower.contains("end") || lower == "to" || lower == "until" => {
            (soon + chrono::Duration::hours(2)).to_rfc3339()
        }
        Some("date-time") => soon.to_rfc3339(),
        Some("date") => "2000-01-15".into(),
        Some("email") => "someone@example.com".into(),
        Some("uri") => "https://example.com/x".into(),
        _ if lower.contains("email") => "someone@example.com".into(),
        _ if lower.contains("password") => PASSWORD_EXAMPLE.into(),
        _ if lower.ends_with("date") => "2000-01-15".into(),
        _ if lower == "country" => "NZ".into(),
        _ if lower.contains("phone") => "+64211234567".into(),
        _ if lower.contains("url") => "https://example.com/x".into(),
        _ => {
            let min = schema["minLength"].as_u64().unwrap_or(1) as usize;
            "Example".chars().cycle().take(min.max(7)).collect()
        }
    };
    Value::String(v)
}

const PASSWORD_EXAMPLE: &str = "a long enough password 123";

/// Field codes of a 400 `validation_failed` that are about the data a valid body names (the
/// seeded athlete has no analysed session), not about the body's shape.
const DATA_CODES: &[&str] = &["no_analysed_sessions", "no_analysed_clips", "not_analysed"];

/// Refusals that are about the body's shape.
fn shape_refusal(status: StatusCode, body: &Value) -> bool {
    let code = body["error"]["code"].as_str().unwrap_or_default();
    let fields = body["error"]["details"]["fields"].as_array();
    let about_data = code == "validation_failed"
        && fields.is_some_and(|f| {
            !f.is_empty()
                && f.iter()
                    .all(|e| DATA_CODES.contains(&e["code"].as_str().unwrap_or_default()))
        });
    status == StatusCode::UNSUPPORTED_MEDIA_TYPE
        || status == StatusCode::UNPROCESSABLE_ENTITY
        || (status == StatusCode::BAD_REQUEST
            && !about_data
            && matches!(code, "invalid_json" | "invalid_body" | "validation_failed"))
}

#[tokio::test]
async fn every_documented_request_body_is_accepted_by_its_route() {
    let s = seeded().await;
    let doc = document();
    let reg = api::routes::registry();
    let mut refused = vec![];
    let mut sent = 0;
    for r in reg.routes.iter().filter(|r| !r.is_page()) {
        let op = &doc["paths"][r.openapi_path()][r.method.as_str().to_lowercase()];
        let Some(schema) = op["requestBody"]["content"]["application/json"]["schema"]
            .as_object()
            .map(|o| Value::Object(o.clone()))
        else {
            continue;
        };
        let path = s.concrete(&r.path);
        let mut answers = vec![];
        let mut accepted = false;
        for full in [false, true] {
            let body = example(&doc, &schema, "", &s, full);
            let resp = s.call(r, &path).json(body.clone()).send().await;
            sent += 1;
            if !shape_refusal(resp.status, &resp.json) {
                accepted = true;
                break;
            }
            answers.push(format!("{body} -> {} {}", resp.status, resp.body));
        }
        if !accepted {
            refused.push(format!(
                "{} {}:\n  {}",
                r.method,
                r.path,
                answers.join("\n  ")
            ));
        }
    }
    assert!(sent > 60, "only {sent} bodies sent");
    assert!(
        refused.is_empty(),
        "documented bodies refused by their routes:\n{}",
        refused.join("\n")
    );
}
