//! The document's own shape: unique schema names (the three routes that were documented with
//! another type's body), list answers, path names, raw bodies and the error statuses.

use super::{document, resolve};
use serde_json::Value;
use std::collections::BTreeSet;

fn request_schema<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let s = &doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"];
    assert!(s.is_object(), "{method} {path} documents no JSON body");
    resolve(doc, s)
}

fn properties(schema: &Value) -> BTreeSet<String> {
    schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn no_two_types_share_a_schema_name() {
    let collisions = api::routes::registry().schema_collisions();
    assert!(
        collisions.is_empty(),
        "schema names given to more than one type (add #[schema(as = UniqueName)]): {collisions:#?}"
    );
}

#[test]
fn member_invites_are_documented_with_the_member_invite_body() {
    let doc = document();
    for path in ["/api/orgs/{id}/members/invite", "/api/orgs/{id}/invite"] {
        let s = request_schema(&doc, "post", path);
        assert_eq!(
            properties(s),
            BTreeSet::from(["email".to_string(), "role".to_string()]),
            "{path}: {s}"
        );
    }
    // The athlete invite keeps its own body.
    let s = request_schema(&doc, "post", "/api/invite");
    assert!(properties(s).contains("athleteId"), "{s}");
}

#[test]
fn tv_claim_is_documented_with_the_tv_claim_body() {
    let doc = document();
    let s = request_schema(&doc, "post", "/api/tv/signin/claim");
    assert_eq!(
        properties(s),
        BTreeSet::from(["userCode".into(), "name".into(), "approve".into()]),
        "{s}"
    );
    let s = request_schema(&doc, "post", "/api/invite/claim");
    assert!(properties(s).contains("token"), "{s}");
}

#[test]
fn list_answers_are_arrays_of_their_items_not_a_schema_named_vec() {
    let doc = document();
    assert!(
        !doc["components"]["schemas"]
            .as_object()
            .unwrap()
            .contains_key("Vec"),
        "a schema named Vec"
    );
    let s = &doc["paths"]["/api/orgs"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert_eq!(s["type"], "array", "{s}");
    // The items are what the route answers: a membership per workspace.
    let items = resolve(&doc, &s["items"]);
    assert_eq!(
        properties(items),
        BTreeSet::from([
            "workspaceId".into(),
            "workspaceName".into(),
            "type".into(),
            "role".into()
        ]),
        "{s}"
    );
}

#[test]
fn path_parameters_have_valid_openapi_names() {
    let doc = document();
    let paths = doc["paths"].as_object().unwrap();
    for (path, item) in paths {
        assert!(!path.contains('*'), "{path}: not a valid OpenAPI path");
        for (_, op) in item.as_object().unwrap() {
            let declared: BTreeSet<&str> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            let in_path: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                .collect();
            assert_eq!(declared, in_path, "{path}");
        }
    }
    assert!(paths.contains_key("/api/storage/{store}/{key}"));
}

#[test]
fn file_uploads_declare_their_media_types() {
    let doc = document();
    for (method, path, media) in [
        ("post", "/api/athletes/import", "text/csv"),
        ("post", "/api/training-sessions/import", "text/csv"),
        ("post", "/api/training-sessions/batch-upload", "text/csv"),
        ("post", "/api/wearable/import", "application/gpx+xml"),
        (
            "put",
            "/api/storage/{store}/{key}",
            "application/octet-stream",
        ),
    ] {
        let content = &doc["paths"][path][method]["requestBody"]["content"];
        assert!(content[media].is_object(), "{method} {path}: {content}");
    }
}

#[test]
fn every_operation_documents_its_error_answers_with_the_error_shape() {
    let doc = document();
    let reg = api::routes::registry();
    for r in reg.routes.iter().filter(|r| !r.is_page()) {
        let op = &doc["paths"][r.openapi_path()][r.method.as_str().to_lowercase()];
        let responses = op["responses"].as_object().unwrap();
        assert!(
            !responses.contains_key("default"),
            "{} {}",
            r.method,
            r.path
        );
        for (status, _) in r.error_statuses() {
            let resp = &responses[&status.to_string()];
            assert!(
                resp.is_object(),
                "{} {}: {status} undocumented",
                r.method,
                r.path
            );
        }
        let statuses: BTreeSet<String> = responses.keys().cloned().collect();
        if !r.auth.is_open() {
            for s in ["401", "403"] {
                assert!(statuses.contains(s), "{} {}: no {s}", r.method, r.path);
            }
        }
        if r.path.contains('{') {
            assert!(statuses.contains("404"), "{} {}: no 404", r.method, r.path);
        }
        if op["requestBody"].is_object() {
            for s in ["400", "413", "415"] {
                assert!(statuses.contains(s), "{} {}: no {s}", r.method, r.path);
            }
        }
    }
    // The 503 of a provider names provider_not_configured.
    let d = doc["paths"]["/api/heatsource/events/{id}"]["get"]["responses"]["503"]["description"]
        .as_str()
        .unwrap();
    assert!(d.contains("provider_not_configured"), "{d}");
    let e = &doc["components"]["schemas"]["ErrorBody"];
    assert_eq!(e["required"][0], "error", "{e}");
}

/// An operation open to anyone says `security: []`: no requirement, so generators type it for
/// a client without credentials (`[{}]` is one empty alternative, which some of them read as
/// "authenticated"). Every other operation names at least one scheme in each alternative.
#[test]
fn open_operations_require_no_security_and_the_others_name_a_scheme() {
    let doc = document();
    let reg = api::routes::registry();
    let mut open = 0;
    for r in reg.routes.iter().filter(|r| !r.is_page()) {
        let sec = &doc["paths"][r.openapi_path()][r.method.as_str().to_lowercase()]["security"];
        let alternatives = sec
            .as_array()
            .unwrap_or_else(|| panic!("{} {}: {sec}", r.method, r.path));
        if r.auth.is_open() {
            open += 1;
            assert!(alternatives.is_empty(), "{} {}: {sec}", r.method, r.path);
        } else {
            assert!(!alternatives.is_empty(), "{} {}: {sec}", r.method, r.path);
            for a in alternatives {
                assert!(
                    a.as_object().is_some_and(|o| !o.is_empty()),
                    "{} {}: {sec}",
                    r.method,
                    r.path
                );
            }
        }
    }
    assert!(open > 20, "only {open} open operations");
}
