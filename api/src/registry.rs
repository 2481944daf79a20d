//! The route registry: every route of the service is one `RouteDef` with its method, path, auth
//! policy, area and OpenAPI description. The router and the OpenAPI document are both built
//! from it, so neither can drift from the other, and a route cannot exist without a policy.
//! The table itself is in `routes.rs`.

use crate::auth::{Auth, Guard, guard};
use crate::state::AppState;
use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodFilter, MethodRouter, on};
use utoipa::openapi::path::{
    HttpMethod, Operation, OperationBuilder, ParameterBuilder, ParameterIn,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{Components, ComponentsBuilder, Schema};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{
    ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths, RefOr, Required, ResponseBuilder,
};

type SchemaList = Vec<(String, RefOr<Schema>)>;

/// A body or response type, by name, with a function that adds its schemas to the components.
#[derive(Clone, Copy)]
pub struct SchemaRef {
    name: fn() -> String,
    collect: fn(&mut SchemaList),
}

fn schema_ref<T: utoipa::ToSchema>() -> SchemaRef {
    SchemaRef {
        name: || T::name().into_owned(),
        collect: |v| {
            v.push((T::name().into_owned(), T::schema()));
            T::schemas(v);
        },
    }
}

#[derive(Clone)]
pub struct RouteDef {
    pub method: Method,
    pub path: String,
    pub auth: Auth,
    pub area: &'static str,
    pub summary: &'static str,
    /// True for `/api/mobile/*` twins: same handler, bearer tokens only.
    pub bearer_only: bool,
    request: Option<SchemaRef>,
    responses: Vec<(u16, &'static str, Option<SchemaRef>)>,
    handler: MethodRouter<AppState>,
    mobile_twin: bool,
}

/// Starts a registry row for `handler` at `method path`.
pub fn route<H, T>(method: Method, path: &str, handler: H) -> RouteDef
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).expect("standard HTTP method");
    RouteDef {
        method,
        path: path.to_string(),
        auth: Auth::Public("unset: the registry test fails on this"),
        area: "",
        summary: "",
        bearer_only: false,
        request: None,
        responses: vec![],
        handler: on(filter, handler),
        mobile_twin: false,
    }
}

impl RouteDef {
    /// An HTML page (`Auth::Page`): in the router and docs/routes.md, not in the OpenAPI document.
    pub fn is_page(&self) -> bool {
        matches!(self.auth, Auth::Page(_))
    }
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }
    pub fn area(mut self, area: &'static str) -> Self {
        self.area = area;
        self
    }
    pub fn summary(mut self, summary: &'static str) -> Self {
        self.summary = summary;
        self
    }
    /// The JSON request body type.
    pub fn body<T: utoipa::ToSchema>(mut self) -> Self {
        self.request = Some(schema_ref::<T>());
        self
    }
    /// A response with a JSON body.
    pub fn ok<T: utoipa::ToSchema>(mut self, status: u16) -> Self {
        self.responses
            .push((status, "success", Some(schema_ref::<T>())));
        self
    }
    /// A response without a JSON body (204, a redirect).
    pub fn empty(mut self, status: u16, description: &'static str) -> Self {
        self.responses.push((status, description, None));
        self
    }
    /// A phone-only route (its path is under `/api/mobile/`): bearer tokens only.
    pub fn bearer_only(mut self) -> Self {
        self.bearer_only = true;
        self
    }
    /// Also serve this route under `/api/mobile/…` for the phone, with bearer auth only.
    pub fn mobile(mut self) -> Self {
        self.mobile_twin = true;
        self
    }
}

/// The expanded table: every row plus its mobile twin.
pub struct Registry {
    pub routes: Vec<RouteDef>,
}

impl Registry {
    pub fn new(rows: Vec<RouteDef>) -> Registry {
        let mut routes = Vec::with_capacity(rows.len() * 2);
        for r in rows {
            if r.mobile_twin {
                let rest = r
                    .path
                    .strip_prefix("/api")
                    .expect("mobile twins exist for /api routes");
                let mut twin = r.clone();
                twin.path = format!("/api/mobile{rest}");
                twin.bearer_only = true;
                twin.mobile_twin = false;
                routes.push(twin);
            }
            routes.push(r);
        }
        Registry { routes }
    }

    /// The axum router: each route wrapped in the guard configured with its policy.
    pub fn router(&self, app: &AppState) -> Router<AppState> {
        let mut router = Router::new();
        for r in &self.routes {
            let g = Guard {
                app: app.clone(),
                auth: r.auth,
                bearer_only: r.bearer_only,
            };
            let handler = r
                .handler
                .clone()
                .route_layer(axum::middleware::from_fn_with_state(g, guard));
            router = router.route(&r.path, handler);
        }
        router
    }

    /// The route table as Markdown (docs/routes.md is generated from it; a test keeps it current).
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "# Routes\n\nGenerated from `api/src/routes.rs` by `UPDATE_DOCS=1 cargo nextest run -E 'test(docs_routes)'`; a test fails when it is stale.\n\n| method | path | auth | area | what it does | why open |\n|---|---|---|---|---|---|\n",
        );
        let mut rows: Vec<&RouteDef> = self.routes.iter().collect();
        rows.sort_by(|a, b| {
            (a.area, &a.path, a.method.as_str()).cmp(&(b.area, &b.path, b.method.as_str()))
        });
        for r in rows {
            let why = r.auth.why_open().unwrap_or("");
            let auth = if r.bearer_only {
                format!("{} (bearer only)", r.auth.label())
            } else {
                r.auth.label()
            };
            out.push_str(&format!(
                "| {} | `{}` | {} | {} | {} | {} |\n",
                r.method, r.path, auth, r.area, r.summary, why
            ));
        }
        out
    }

    /// The OpenAPI 3.1 document: the JSON API, so every route but the HTML pages.
    pub fn openapi(&self) -> OpenApi {
        let mut paths = Paths::new();
        let mut schemas: SchemaList = vec![];
        for r in self.routes.iter().filter(|r| !r.is_page()) {
            let mut op = OperationBuilder::new()
                .summary(Some(r.summary))
                .tag(r.area)
                .operation_id(Some(format!(
                    "{}{}",
                    r.method.as_str().to_lowercase(),
                    r.path.replace(['/', '{', '}', '-'], "_")
                )))
                .description(Some(format!("Auth: {}", r.auth.label())));
            for p in path_params(&r.path) {
                op = op.parameter(
                    ParameterBuilder::new()
                        .name(p)
                        .parameter_in(ParameterIn::Path)
                        .required(Required::True)
                        .schema(Some(
                            utoipa::openapi::ObjectBuilder::new()
                                .schema_type(utoipa::openapi::schema::Type::String),
                        )),
                );
            }
            if let Some(req) = r.request {
                (req.collect)(&mut schemas);
                op = op.request_body(Some(
                    RequestBodyBuilder::new()
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                                    (req.name)(),
                                ))))
                                .build(),
                        )
                        .required(Some(Required::True))
                        .build(),
                ));
            }
            for (status, desc, body) in &r.responses {
                let mut resp = ResponseBuilder::new().description(*desc);
                if let Some(b) = body {
                    (b.collect)(&mut schemas);
                    resp = resp.content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                                (b.name)(),
                            ))))
                            .build(),
                    );
                }
                op = op.response(status.to_string(), resp.build());
            }
            op = op.response(
                "default",
                ResponseBuilder::new()
                    .description("error: {\"error\": {\"code\", \"message\", \"details\"?}}")
                    .build(),
            );
            let mut op: Operation = op.build();
            op.security = security_for(r);
            paths.add_path_operation(&r.path, vec![http_method(&r.method)], op);
        }
        OpenApiBuilder::new()
            .info(
                InfoBuilder::new()
                    .title("Surf coaching service API")
                    .version(env!("CARGO_PKG_VERSION"))
                    .build(),
            )
            .paths(paths)
            .components(Some(components(schemas)))
            .build()
    }
}

fn components(schemas: SchemaList) -> Components {
    let mut c = ComponentsBuilder::new()
        .security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new("sc_session"))),
        )
        .security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    for (name, s) in schemas {
        c = c.schema(name, s);
    }
    c.build()
}

fn security_for(r: &RouteDef) -> Option<Vec<SecurityRequirement>> {
    let none: [&str; 0] = [];
    Some(match r.auth {
        a if a.is_open() => vec![SecurityRequirement::default()],
        _ if r.bearer_only => vec![SecurityRequirement::new("bearer", none)],
        Auth::Service | Auth::Cron | Auth::Tv => vec![SecurityRequirement::new("bearer", none)],
        _ => vec![
            SecurityRequirement::new("session", none),
            SecurityRequirement::new("bearer", none),
        ],
    })
}

fn http_method(m: &Method) -> HttpMethod {
    match *m {
        Method::GET => HttpMethod::Get,
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::PATCH => HttpMethod::Patch,
        Method::DELETE => HttpMethod::Delete,
        Method::HEAD => HttpMethod::Head,
        Method::OPTIONS => HttpMethod::Options,
        _ => HttpMethod::Trace,
    }
}

pub fn path_params(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|s| s.trim_start_matches('*'))
        .collect()
}
