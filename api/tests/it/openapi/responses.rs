//! Success answers against the document: every JSON answer a route gives has a schema for its
//! status (client generators otherwise type the body `never`), and the body has the schema's
//! shape (object or array, with the required properties). Each GET route is called as the
//! seeded coach, made platform admin so the admin lists answer too.

use super::{document, resolve, seeded};
use crate::support::make_admin;
use axum::http::Method;
use serde_json::Value;

/// The types a schema allows (`type: "object"` or `type: ["integer", "null"]`).
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Where `body` departs from `schema`, loosely: its type, an object's required properties and
/// the type of each property the schema types, an array's first item. `oneOf`/`allOf` and
/// untyped schemas are taken as they come.
fn departures(doc: &Value, schema: &Value, body: &Value, at: &str, out: &mut Vec<String>) {
    let schema = resolve(doc, schema);
    let allowed = types(schema);
    let got = json_type(body);
    let fits = allowed.is_empty()
        || allowed.contains(&got)
        || (got == "integer" && allowed.contains(&"number"));
    if !fits {
        out.push(format!("{at}: a {got}, documented {allowed:?}"));
        return;
    }
    match body {
        Value::Object(o) => {
            for r in schema["required"].as_array().into_iter().flatten() {
                let r = r.as_str().unwrap_or_default();
                if !o.contains_key(r) {
                    out.push(format!("{at}: required property {r} absent"));
                }
            }
            if let Some(props) = schema["properties"].as_object() {
                for (k, v) in o {
                    if let Some(p) = props.get(k) {
                        departures(doc, p, v, &format!("{at}.{k}"), out);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                departures(doc, &schema["items"], first, &format!("{at}[0]"), out);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn every_json_answer_of_a_get_route_has_its_documented_schema() {
    let s = seeded().await;
    make_admin(&s.app, &s.coach).await;
    let doc = document();
    let reg = api::routes::registry();
    let mut json_answers = 0;
    let mut undocumented = vec![];
    let mut misshapen = vec![];
    for r in reg
        .routes
        .iter()
        .filter(|r| !r.is_page() && r.method == Method::GET)
    {
        let path = s.concrete(&r.path);
        let resp = s.call(r, &path).send().await;
        if !resp.status.is_success() {
            continue;
        }
        let is_json = resp
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim() == "application/json" || m.trim().ends_with("+json"));
        if !is_json {
            continue;
        }
        json_answers += 1;
        let status = resp.status.as_u16();
        let schema = &doc["paths"][r.openapi_path()]["get"]["responses"][status.to_string()]["content"]
            ["application/json"]["schema"];
        if !schema.is_object() {
            undocumented.push(format!("{} {} answers {status} JSON", r.method, r.path));
            continue;
        }
        let mut out = vec![];
        departures(&doc, schema, &resp.json, "body", &mut out);
        for d in out {
            misshapen.push(format!("{} {} ({status}): {d}", r.method, r.path));
        }
    }
    assert!(json_answers > 60, "only {json_answers} JSON answers seen");
    assert!(
        undocumented.is_empty(),
        "JSON answers without a schema in the document:\n{}",
        undocumented.join("\n")
    );
    assert!(
        misshapen.is_empty(),
        "answers that do not have their documented shape:\n{}",
        misshapen.join("\n")
    );
}
