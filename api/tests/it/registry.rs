//! The route registry's guarantees: every route has a policy, public ones say why, the OpenAPI
//! document lists exactly the registered routes, and every non-public route refuses anonymous
//! and forged callers with a JSON 401.

use crate::support::*;
use api::auth::Auth;
use api::registry::path_params;
use axum::http::{Method, StatusCode};
use serde_json::json;
use std::collections::BTreeSet;

fn concrete(path: &str) -> String {
    let mut p = path.to_string();
    for name in path_params(path) {
        p = p.replace(
            &format!("{{{name}}}"),
            "0190f000-0000-7000-8000-000000000001",
        );
    }
    p
}

#[test]
fn every_route_has_a_policy_and_open_routes_say_why() {
    let reg = api::routes::registry();
    assert!(!reg.routes.is_empty());
    let mut seen = BTreeSet::new();
    for r in &reg.routes {
        assert!(
            seen.insert((r.method.clone(), r.path.clone())),
            "{} {} registered twice",
            r.method,
            r.path
        );
        assert!(
            !r.area.is_empty() && !r.summary.is_empty(),
            "{} {} lacks area or summary",
            r.method,
            r.path
        );
        match r.auth {
            Auth::Public(why) | Auth::Token(why) | Auth::Webhook(why) | Auth::Page(why) => {
                assert!(
                    !why.starts_with("unset"),
                    "{} {} has no auth policy",
                    r.method,
                    r.path
                );
                assert!(
                    why.len() >= 20,
                    "{} {}: justification too thin: {why:?}",
                    r.method,
                    r.path
                );
            }
            _ => {}
        }
        if r.path.starts_with("/api/mobile/") {
            assert!(
                r.bearer_only || r.auth.is_open(),
                "{} {} must be bearer-only",
                r.method,
                r.path
            );
        }
    }
}

#[test]
fn openapi_lists_exactly_the_registered_routes() {
    let reg = api::routes::registry();
    let doc = serde_json::to_value(reg.openapi()).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            documented.insert((method.to_uppercase(), path.clone()));
            assert!(
                op["security"].is_array(),
                "{method} {path} without security"
            );
        }
    }
    // The HTML pages are routes of the registry but not of the JSON API's document.
    let registered: BTreeSet<_> = reg
        .routes
        .iter()
        .filter(|r| !r.is_page())
        .map(|r| (r.method.to_string(), r.openapi_path()))
        .collect();
    assert_eq!(documented, registered);
    assert!(
        reg.routes.iter().any(|r| r.is_page()),
        "the pages are registered"
    );
    // Request bodies refer to schemas that exist.
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            if let Some(r) =
                op["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str()
            {
                let name = r.rsplit('/').next().unwrap();
                assert!(schemas.contains_key(name), "missing schema {name}");
            }
        }
    }
}

#[tokio::test]
async fn openapi_is_served() {
    let app = TestApp::new().await;
    let r = app.get("/api/openapi.json").send().await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.json["paths"]["/api/auth/signup"]["post"].is_object());
}

#[test]
fn routes_are_only_added_through_the_registry() {
    fn scan(dir: &std::path::Path, hits: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                scan(&p, hits);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("registry.rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                if text.contains(".route(") || text.contains(".nest(") || text.contains(".merge(") {
                    hits.push(p.display().to_string());
                }
            }
        }
    }
    let mut hits = vec![];
    scan(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut hits,
    );
    assert!(hits.is_empty(), "raw routes outside registry.rs: {hits:?}");
}

#[tokio::test]
async fn every_non_public_route_refuses_missing_and_bad_credentials() {
    let app = TestApp::new().await;
    let reg = api::routes::registry();
    let mut checked = 0;
    for r in &reg.routes {
        // Pages answer HTML and ask for a sign-in themselves (api/tests/it/pages).
        if matches!(
            r.auth,
            Auth::Public(_) | Auth::Page(_) | Auth::Desk { .. } | Auth::Console
        ) {
            continue;
        }
        let path = concrete(&r.path);
        for bad in [
            None,
            Some("Bearer not-a-real-token"),
            Some("Bearer sca_forged"),
            Some("Basic Zm9vOmJhcg=="),
        ] {
            let mut req = app.req(r.method.clone(), &path).json(json!({}));
            if let Some(h) = bad {
                req = req.header("authorization", h);
            }
            let resp = req.send().await;
            assert_eq!(
                resp.status,
                StatusCode::UNAUTHORIZED,
                "{} {} with {bad:?}: {}",
                r.method,
                r.path,
                resp.body
            );
            assert!(
                resp.json["error"]["code"].is_string(),
                "{} {}: not the JSON error shape: {}",
                r.method,
                r.path,
                resp.body
            );
        }
        // A forged cookie is no better.
        let resp = app
            .req(r.method.clone(), &path)
            .json(json!({}))
            .header("cookie", "sc_session=scs_forged")
            .send()
            .await;
        assert_eq!(
            resp.status,
            StatusCode::UNAUTHORIZED,
            "{} {} with forged cookie",
            r.method,
            r.path
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} routes checked");
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json_with_a_request_id() {
    let app = TestApp::new().await;
    let r = app.get("/api/nope").send().await;
    r.assert_error(StatusCode::NOT_FOUND, "route_not_found");
    assert!(r.headers.contains_key("x-request-id"));
    let r = app.req(Method::DELETE, "/api/health").send().await;
    r.assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let r = app.get("/api/time").send().await;
    let id = r.headers["x-request-id"].to_str().unwrap();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    let r = app
        .get("/api/time")
        .header("x-request-id", "client-chosen-id")
        .send()
        .await;
    assert_eq!(r.headers["x-request-id"], "client-chosen-id");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let app = TestApp::with_env(&[("BODY_LIMIT_BYTES", "1024")]).await;
    let big = "x".repeat(4096);
    let r = app
        .post("/api/waitlist")
        .json(json!({ "email": "a@example.com", "note": big }))
        .send()
        .await;
    r.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert_eq!(app.count("waitlist").await, 0);
}

/// The guard bounds a route's handling time with JSON 503 `timeout`; a streamed-body route has
/// no bound.
#[tokio::test]
async fn the_route_guard_answers_503_timeout_past_the_request_timeout() {
    use api::auth::Guard;
    use axum::routing::get;
    use std::time::Duration;
    let app = TestApp::new().await;
    for (timeout, want) in [
        (
            Some(Duration::from_millis(50)),
            StatusCode::SERVICE_UNAVAILABLE,
        ),
        (Some(Duration::from_secs(30)), StatusCode::OK),
        (None, StatusCode::OK),
    ] {
        let g = Guard {
            app: app.state.clone(),
            auth: Auth::Public("probe"),
            bearer_only: false,
            timeout,
        };
        let router = axum::Router::new()
            .route(
                "/probe",
                get(|| async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "ok"
                }),
            )
            .route_layer(axum::middleware::from_fn_with_state(g, api::auth::guard));
        let resp = tower::ServiceExt::oneshot(
            router,
            axum::http::Request::get("/probe")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
        assert_eq!(resp.status(), want, "{timeout:?}");
        if want == StatusCode::SERVICE_UNAVAILABLE {
            let body = axum::body::to_bytes(resp.into_body(), 1 << 16)
                .await
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(v["error"]["code"], "timeout", "{v}");
        }
    }
}

#[tokio::test]
async fn cron_and_service_secrets_are_checked_in_constant_time() {
    use api::auth::Guard;
    use axum::routing::get;
    let app = TestApp::new().await;
    for (auth, secret) in [
        (Auth::Cron, "cron-secret-for-tests"),
        (Auth::Service, "service-key-for-tests"),
    ] {
        let g = Guard {
            app: app.state.clone(),
            auth,
            bearer_only: false,
            timeout: None,
        };
        let router = axum::Router::new()
            .route("/probe", get(|| async { "ok" }))
            .route_layer(axum::middleware::from_fn_with_state(g, api::auth::guard));
        for (header, want) in [
            (None, StatusCode::UNAUTHORIZED),
            (Some("Bearer wrong".to_string()), StatusCode::UNAUTHORIZED),
            (Some(format!("Bearer {secret}x")), StatusCode::UNAUTHORIZED),
            (Some(format!("Bearer {secret}")), StatusCode::OK),
        ] {
            let mut req = axum::http::Request::get("/probe");
            if let Some(h) = &header {
                req = req.header("authorization", h);
            }
            let resp = tower::ServiceExt::oneshot(
                router.clone(),
                req.body(axum::body::Body::empty()).unwrap(),
            )
            .await
            .unwrap();
            assert_eq!(resp.status(), want, "{auth:?} {header:?}");
        }
    }
}

#[tokio::test]
async fn workspace_policies_check_module_permission_and_membership() {
    use api::auth::{Guard, Ws};
    use axum::routing::post;
    use shared::authz::Module;
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let g = Guard {
        app: app.state.clone(),
        auth: Auth::member(shared::authz::Perm::AthletesCreate).in_module(Module::Athletes),
        bearer_only: false,
        timeout: None,
    };
    let router = axum::Router::new()
        .route(
            "/probe",
            post(|ws: Ws| async move { ws.org_id.to_string() }),
        )
        .route_layer(axum::middleware::from_fn_with_state(g, api::auth::guard));
    let call = |s: &Session, ws: Option<String>| {
        let router = router.clone();
        let s = s.clone();
        async move {
            let mut req = axum::http::Request::post("/probe")
                .header("cookie", format!("sc_session={}", s.cookie))
                .header("x-csrf-token", &s.csrf);
            if let Some(w) = ws {
                req = req.header("x-workspace-id", w);
            }
            let resp =
                tower::ServiceExt::oneshot(router, req.body(axum::body::Body::empty()).unwrap())
                    .await
                    .unwrap();
            let status = resp.status();
            let bytes = http_body_util::BodyExt::collect(resp.into_body())
                .await
                .unwrap()
                .to_bytes();
            (status, String::from_utf8_lossy(&bytes).to_string())
        }
    };
    let (st, body) = call(&owner, None).await;
    assert_eq!((st, body), (StatusCode::OK, owner.org_id.to_string()));
    let (st, body) = call(&viewer, None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert!(body.contains("permission_denied"), "{body}");
    let (st, body) = call(&owner, Some(other.org_id.to_string())).await;
    assert_eq!(
        st,
        StatusCode::NOT_FOUND,
        "another workspace is not found: {body}"
    );
    let (st, body) = call(&owner, Some("garbage".into())).await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
    // Switch the module off: 403 module_disabled, even for the owner.
    disable_module(&app, owner.org_id, "athletes").await;
    let (st, body) = call(&owner, None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert!(body.contains("module_disabled"), "{body}");
}

#[test]
fn docs_routes_table_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/routes.md");
    let fresh = api::routes::registry().markdown();
    if std::env::var("UPDATE_DOCS").is_ok() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "docs/routes.md is stale: run UPDATE_DOCS=1 cargo nextest run -E 'test(docs_routes)'"
    );
}

/// Route permissions are typed (`Perm`), so a misspelt one does not compile; this checks the
/// other half: a role that stores a route's permission under its spelling is granted that
/// route, and the owner is granted every route.
#[test]
fn every_route_permission_is_grantable_through_a_stored_role() {
    use shared::authz::effective_permissions;
    let reg = api::routes::registry();
    let mut checked = 0;
    for r in &reg.routes {
        if let Auth::Member { perm: Some(p), .. } = r.auth {
            let stored = vec![p.as_str().to_string()];
            assert!(
                effective_permissions("custom", &stored).contains(&p),
                "{} {}: {p} is not granted by a role storing it",
                r.method,
                r.path
            );
            assert!(effective_permissions("owner", &[]).contains(&p));
            assert!(r.auth.label().contains(p.as_str()));
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} routes name a permission");
}
