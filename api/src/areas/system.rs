//! Health, wall clock and the OpenAPI document.

use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use shared::db::Ts;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// ok or degraded
    pub status: &'static str,
    pub database: &'static str,
    pub version: &'static str,
}

/// 200 when the database answers, 503 otherwise (load balancers take the instance out).
pub async fn health(State(state): State<AppState>) -> (StatusCode, axum::Json<Health>) {
    let db_ok = tokio::time::timeout(std::time::Duration::from_secs(2), state.db.ping())
        .await
        .is_ok_and(|r| r.is_ok());
    let status = if db_ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        axum::Json(Health {
            status: if db_ok { "ok" } else { "degraded" },
            database: if db_ok { "ok" } else { "unreachable" },
            version: env!("CARGO_PKG_VERSION"),
        }),
    )
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerTime {
    /// RFC 3339 UTC with milliseconds.
    pub now: String,
    pub unix_ms: i64,
}

/// The server's wall clock, for clients measuring their clock offset (NTP-style: they note
/// send and receive times around this call).
pub async fn time() -> axum::Json<ServerTime> {
    let now = Ts::now();
    axum::Json(ServerTime {
        now: now.to_rfc3339(),
        unix_ms: now.unix_millis(),
    })
}

/// The OpenAPI document, serialized once: it is a function of the route table, which is fixed
/// for the life of the process (`app::build` forces it at start-up).
pub static OPENAPI_JSON: std::sync::LazyLock<bytes::Bytes> = std::sync::LazyLock::new(|| {
    serde_json::to_vec(&crate::routes::registry().openapi())
        .expect("the OpenAPI document serializes")
        .into()
});

/// The answer of `GET /api/openapi.json`: this OpenAPI 3.1 document. Its full schema is the
/// OpenAPI specification's own; the document names it as the object it is, with the fields
/// every OpenAPI document has, so generators type the answer instead of `never`.
pub struct OpenApiDocument;

impl utoipa::PartialSchema for OpenApiDocument {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        let object = || ObjectBuilder::new().schema_type(Type::Object);
        object()
            .description(Some(
                "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)",
            ))
            .property("openapi", ObjectBuilder::new().schema_type(Type::String))
            .required("openapi")
            .property("info", object())
            .required("info")
            .property("paths", object())
            .required("paths")
            .property("components", object())
            .into()
    }
}
impl utoipa::ToSchema for OpenApiDocument {}

pub async fn openapi() -> impl axum::response::IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        OPENAPI_JSON.clone(),
    )
}
