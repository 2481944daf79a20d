//! Query parameters: a route that refuses a call for a missing query parameter documents that
//! parameter, as required. Each route is called as the signed-in coach without any query; the
//! fields its 400 names are the parameters it needs.

use super::{document, is_write, seeded};
use api::registry::path_params;
use axum::http::StatusCode;

/// Routes that need one of several query parameters, none of them alone: each is documented,
/// as optional.
const ONE_OF: &[(&str, &str, &str)] = &[
    ("GET", "/api/surf/forecast", "spot, or lat and lon"),
    (
        "GET",
        "/api/sessions/coaching/export",
        "sessionId or athleteId",
    ),
];

#[tokio::test]
async fn every_query_parameter_a_route_requires_is_documented_as_required() {
    let s = seeded().await;
    let doc = document();
    let reg = api::routes::registry();
    let mut checked = 0;
    let mut missing = vec![];
    for r in reg.routes.iter().filter(|r| !r.is_page()) {
        // Bodies are the other test's business; here only routes without one.
        let has_body =
            doc["paths"][r.openapi_path()][r.method.as_str().to_lowercase()]["requestBody"]
                .is_object();
        if has_body || (is_write(&r.method) && r.method != axum::http::Method::DELETE) {
            continue;
        }
        let path = s.concrete(&r.path);
        let resp = s.call(r, &path).send().await;
        checked += 1;
        if resp.status != StatusCode::BAD_REQUEST {
            continue;
        }
        let fields: Vec<String> = resp.json["error"]["details"]["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["field"].as_str().map(str::to_string))
            .collect();
        assert!(
            !fields.is_empty() || resp.code() != "invalid_query",
            "{} {}: a query refusal without the field: {}",
            r.method,
            r.path,
            resp.body
        );
        let one_of = ONE_OF
            .iter()
            .any(|(m, p, _)| *m == r.method.as_str() && *p == r.path);
        for f in fields {
            // A path parameter refused for its value is not a query parameter.
            if path_params(&r.path).contains(&f.as_str()) {
                continue;
            }
            let documented = r.query_params().iter().find(|q| q.name == f);
            if !documented.is_some_and(|q| q.required || one_of) {
                missing.push(format!("{} {} needs {f}: {}", r.method, r.path, resp.body));
            }
        }
    }
    assert!(checked > 80, "only {checked} routes called");
    assert!(
        missing.is_empty(),
        "required query parameters the document does not mark required:\n{}",
        missing.join("\n")
    );
}

/// Every query parameter a handler reads is in the document: each `Query<T>` extractor of a
/// handler is documented by its row's `query_of::<T>()` (which names T's fields), and a `Page`
/// extractor by `paged`/`paginated` (limit, offset). Read from the handlers' own extractor
/// types, so a new filter field or a new `Query<T>` fails here until the document names it.
#[test]
fn every_query_a_handler_reads_is_documented() {
    let reg = api::routes::registry();
    let mut missing = vec![];
    let mut with_query = 0;
    for r in reg.routes.iter().filter(|r| !r.is_page()) {
        for m in r.undocumented_queries() {
            missing.push(format!("{} {}: {m}", r.method, r.path));
        }
        with_query += usize::from(!r.query_params().is_empty());
    }
    assert!(with_query > 80, "only {with_query} routes document a query");
    assert!(
        missing.is_empty(),
        "query parameters read but not documented:\n{}",
        missing.join("\n")
    );
}
