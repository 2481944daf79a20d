//! The route registry: every route of the service is one `RouteDef` with its method, path, auth
//! policy, area and OpenAPI description. The router and the OpenAPI document are both built
//! from it, so neither can drift from the other, and a route cannot exist without a policy.
//! The table itself is in `routes.rs` and `routes/<area>.rs`, one function per area.

mod introspect;

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

/// A body or response type: its schema name, its Rust type, and the schemas it needs.
#[derive(Clone, Copy)]
pub struct SchemaRef {
    name: fn() -> String,
    type_name: fn() -> &'static str,
    schema: fn() -> RefOr<Schema>,
    nested: fn(&mut SchemaList),
    /// A page of this type ([`crate::http::pagination::Paged`]) rather than the type itself.
    paged: bool,
}

fn schema_ref<T: utoipa::ToSchema>() -> SchemaRef {
    SchemaRef {
        name: || T::name().into_owned(),
        type_name: std::any::type_name::<T>,
        schema: T::schema,
        nested: T::schemas,
        paged: false,
    }
}

impl SchemaRef {
    /// The schema name this answer is documented under: the type's own, or `<Item>Page` for
    /// a page of items (one name per item type, so two pages never share one).
    fn component_name(&self) -> String {
        if self.paged {
            format!("{}Page", (self.name)())
        } else {
            (self.name)()
        }
    }

    /// A generic container (`Vec<T>`, `Option<T>`) has no name of its own (utoipa names every
    /// `Vec<_>` "Vec"), so its schema is written inline; a named type becomes a component and
    /// is referred to. Either way the schemas it refers to are added to `schemas`. A page is
    /// the component `<Item>Page`: `{items: [Item], limit, offset, nextOffset}`.
    fn refer(&self, schemas: &mut SchemaList) -> RefOr<Schema> {
        if self.paged {
            let item = SchemaRef {
                paged: false,
                ..*self
            }
            .refer(schemas);
            schemas.push((self.component_name(), page_schema(item).into()));
            return RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                self.component_name(),
            ));
        }
        (self.nested)(schemas);
        if (self.type_name)().contains('<') {
            (self.schema)()
        } else {
            schemas.push(((self.name)(), (self.schema)()));
            RefOr::Ref(utoipa::openapi::Ref::from_schema_name((self.name)()))
        }
    }
}

/// The schema of [`crate::http::pagination::Paged`] around `item` (written here rather than
/// derived: utoipa would inline the item and name every page "Paged").
fn page_schema(item: RefOr<Schema>) -> Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
    let int = || ObjectBuilder::new().schema_type(Type::Integer);
    Schema::Object(
        ObjectBuilder::new()
            .property("items", ArrayBuilder::new().items(item))
            .required("items")
            .property("limit", int().minimum(Some(1)))
            .required("limit")
            .property("offset", int().minimum(Some(0)))
            .required("offset")
            .property(
                "nextOffset",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                    .description(Some("the offset of the next page; null on the last page")),
            )
            .required("nextOffset")
            .build(),
    )
}

/// A query parameter of a route: its name, whether the route needs it, and what it holds.
#[derive(Clone, Copy, Debug)]
pub struct QueryParam {
    pub name: &'static str,
    pub required: bool,
    pub kind: QueryKind,
}

/// What a query parameter holds, as its struct field reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueryKind {
    Text,
    /// One of our ids.
    Uuid,
    /// RFC 3339.
    DateTime,
    /// `YYYY-MM-DD`.
    Date,
    Integer,
    Number,
    Boolean,
    /// One of these words.
    Enum(&'static [&'static str]),
}

impl QueryParam {
    /// Whether the parameter names a row of ours (an unknown one answers 404).
    pub fn is_id(&self) -> bool {
        self.kind == QueryKind::Uuid
    }

    fn schema(&self) -> utoipa::openapi::schema::ObjectBuilder {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        use utoipa::openapi::{KnownFormat, SchemaFormat};
        let string = || ObjectBuilder::new().schema_type(Type::String);
        let format = |f| string().format(Some(SchemaFormat::KnownFormat(f)));
        match self.kind {
            QueryKind::Text => string(),
            QueryKind::Uuid => format(KnownFormat::Uuid),
            QueryKind::DateTime => format(KnownFormat::DateTime),
            QueryKind::Date => format(KnownFormat::Date),
            QueryKind::Integer => ObjectBuilder::new().schema_type(Type::Integer),
            QueryKind::Number => ObjectBuilder::new().schema_type(Type::Number),
            QueryKind::Boolean => ObjectBuilder::new().schema_type(Type::Boolean),
            QueryKind::Enum(words) => string().enum_values(Some(words.iter().copied())),
        }
    }
}

/// A request body: JSON of a type, or raw bytes of the given media types (CSV, audio, GPX…).
#[derive(Clone, Copy)]
enum RequestBody {
    Json(SchemaRef),
    /// JSON, or the same request form-encoded with the fields of the second type (an RFC's own
    /// dialect a stock client speaks).
    JsonOrForm(SchemaRef, SchemaRef),
    Raw(&'static [&'static str]),
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
    request: Option<RequestBody>,
    /// Query parameters the document names.
    query: Vec<QueryParam>,
    /// The query structs the parameters come from (`query_of`), by Rust type name.
    query_types: Vec<&'static str>,
    /// The handler takes [`crate::http::pagination::Page`]: `limit` and `offset` are documented.
    paginated: bool,
    /// The handler's extractor types, as `std::any::type_name` writes axum's tuple of them: a
    /// test reads the `Query<T>` and `Page` extractors out of it (`undocumented_queries`).
    handler_args: &'static str,
    responses: Vec<(u16, &'static str, Option<SchemaRef>)>,
    /// Media types a documented answer may have besides JSON (`also_as`).
    other_media: Vec<(u16, &'static str)>,
    /// Error answers beyond the ones `error_statuses` derives from the policy, path and body.
    errors: Vec<(u16, &'static str)>,
    /// The route calls a provider: it may answer 503 `provider_not_configured` and 502.
    provider: bool,
    handler: MethodRouter<AppState>,
    mobile_twin: bool,
    /// The handler reads a large body as it streams in: no request timeout (see
    /// [`RouteDef::streamed_body`]).
    streamed: bool,
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
        query: vec![],
        query_types: vec![],
        paginated: false,
        handler_args: std::any::type_name::<T>(),
        responses: vec![],
        other_media: vec![],
        errors: vec![],
        provider: false,
        handler: on(filter, handler),
        mobile_twin: false,
        streamed: false,
    }
}

impl RouteDef {
    /// An HTML page (`Auth::Page`, `Auth::Desk`, `Auth::Console`): in the router and
    /// docs/routes.md, not in the OpenAPI document.
    pub fn is_page(&self) -> bool {
        matches!(self.auth, Auth::Page(_) | Auth::Desk { .. } | Auth::Console)
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
        self.request = Some(RequestBody::Json(schema_ref::<T>()));
        self
    }
    /// A JSON body of type `J`, or a form-encoded one with the fields of `F`.
    pub fn json_or_form_body<J: utoipa::ToSchema, F: utoipa::ToSchema>(mut self) -> Self {
        self.request = Some(RequestBody::JsonOrForm(
            schema_ref::<J>(),
            schema_ref::<F>(),
        ));
        self
    }
    /// A request body that is not JSON: the file itself, in one of these media types.
    pub fn raw_body(mut self, media_types: &'static [&'static str]) -> Self {
        self.request = Some(RequestBody::Raw(media_types));
        self
    }
    /// The query parameters the handler reads with `Query<T>`: `T`'s fields, named, typed and
    /// marked required as serde reads them ([`introspect`]), so the document cannot drift from
    /// the struct. Every `Query<T>` a handler takes must be named here (a test reads the
    /// handler's extractors: `Registry::undocumented_queries`).
    pub fn query_of<T: serde::de::DeserializeOwned>(mut self) -> Self {
        for p in introspect::query_params::<T>() {
            self.add_query(p);
        }
        self.query_types.push(std::any::type_name::<T>());
        self
    }
    /// A query parameter `query_of` documents as optional (serde reads it with a default) but
    /// that the handler refuses to go without (400 when it is missing or empty).
    pub fn required_query(mut self, name: &'static str) -> Self {
        match self.query.iter_mut().find(|q| q.name == name) {
            Some(q) => {
                assert!(
                    !q.required,
                    "{} {}: serde already requires {name}; remove required_query",
                    self.method, self.path
                );
                q.required = true
            }
            None => panic!(
                "{} {}: required_query({name}) names no documented parameter",
                self.method, self.path
            ),
        }
        self
    }
    /// The handler takes [`crate::http::pagination::Page`]: `limit` (1-200, default 50) and
    /// `offset` (default 0).
    pub fn paginated(mut self) -> Self {
        for name in ["limit", "offset"] {
            self.add_query(QueryParam {
                name,
                required: false,
                kind: QueryKind::Integer,
            });
        }
        self.paginated = true;
        self
    }
    /// A paginated list of `T`: takes `limit` and `offset` ([`RouteDef::paginated`]) and answers
    /// 200 with a [`crate::http::pagination::Paged`] of `T`.
    pub fn paged<T: utoipa::ToSchema>(mut self) -> Self {
        self = self.paginated();
        let item = SchemaRef {
            paged: true,
            ..schema_ref::<T>()
        };
        self.responses.push((200, "a page", Some(item)));
        self
    }
    /// A parameter two extractors read (a filter struct that also names `limit`, say, to
    /// deny unknown fields) is one parameter: documented once, required if either needs it.
    fn add_query(&mut self, p: QueryParam) {
        match self.query.iter_mut().find(|q| q.name == p.name) {
            Some(q) => q.required |= p.required,
            None => self.query.push(p),
        }
    }
    /// A response with a JSON body.
    pub fn ok<T: utoipa::ToSchema>(mut self, status: u16) -> Self {
        let description = if status < 300 {
            "success"
        } else {
            "the answer, with this body"
        };
        self.responses
            .push((status, description, Some(schema_ref::<T>())));
        self
    }
    /// The answer of `status` (documented with `ok`) may also come as this media type, when
    /// the request asks for it (a report as `text/html`).
    pub fn also_as(mut self, status: u16, media_type: &'static str) -> Self {
        assert!(
            self.responses.iter().any(|r| r.0 == status),
            "{} {}: also_as({status}) before the answer is documented",
            self.method,
            self.path
        );
        self.other_media.push((status, media_type));
        self
    }
    /// A response without a JSON body (204, a redirect).
    pub fn empty(mut self, status: u16, description: &'static str) -> Self {
        self.responses.push((status, description, None));
        self
    }
    /// An error answer of this route that the policy, path and body do not imply (a 409 of a
    /// read, a 410 of an invite, a 429 of a rate limit, a 416 of a range).
    pub fn error(mut self, status: u16, description: &'static str) -> Self {
        self.errors.push((status, description));
        self
    }
    /// The route asks a provider: 503 `provider_not_configured` when it is not set up, 502 when
    /// it fails.
    pub fn provider(mut self) -> Self {
        self.provider = true;
        self
    }
    /// A phone-only route (its path is under `/api/mobile/`): bearer tokens only.
    pub fn bearer_only(mut self) -> Self {
        self.bearer_only = true;
        self
    }
    /// The handler reads a large body as it streams in (a phone on a slow network may take
    /// many minutes for one chunk): exempt from the request timeout, it bounds the time between
    /// two chunks of the body instead ([`crate::http::BODY_IDLE`]).
    pub fn streamed_body(mut self) -> Self {
        self.streamed = true;
        self
    }
    /// Also serve this route under `/api/mobile/…` for the phone, with bearer auth only.
    pub fn mobile(mut self) -> Self {
        self.mobile_twin = true;
        self
    }

    /// The path as the OpenAPI document writes it: axum's wildcard `{*key}` is `{key}`.
    pub fn openapi_path(&self) -> String {
        self.path.replace("{*", "{")
    }

    /// The query parameters the document names.
    pub fn query_params(&self) -> &[QueryParam] {
        &self.query
    }

    /// What the handler reads from the query string that the row does not document: each
    /// `Query<T>` extractor whose `T` is not named by `query_of`, and a `Page` extractor
    /// without `paginated`. Read from the handler's extractor types, so a handler cannot
    /// take a query the document misses (the registry test asserts this is empty).
    pub fn undocumented_queries(&self) -> Vec<String> {
        let mut out = vec![];
        for t in query_extractors(self.handler_args) {
            if !self.query_types.contains(&t) {
                out.push(format!("Query<{t}> (add .query_of::<{t}>())"));
            }
        }
        if takes_page(self.handler_args) && !self.paginated {
            out.push("Page (add .paged::<Item>() or .paginated())".to_string());
        }
        for t in &self.query_types {
            if !query_extractors(self.handler_args).contains(t) {
                out.push(format!(
                    "query_of::<{t}>() but the handler takes no Query<{t}>"
                ));
            }
        }
        if self.paginated && !takes_page(self.handler_args) {
            out.push("paginated but the handler takes no Page".to_string());
        }
        out
    }

    /// Every error status this route can answer, with what it means: derived from its policy,
    /// its path parameters and its body, plus the route's own extras. Every status is
    /// documented with the one error shape (`ErrorBody`).
    pub fn error_statuses(&self) -> Vec<(u16, String)> {
        let mut out: Vec<(u16, String)> = vec![];
        let mut add = |status: u16, why: &str| match out.iter_mut().find(|(s, _)| *s == status) {
            Some((_, d)) => {
                d.push_str("; ");
                d.push_str(why);
            }
            None => out.push((status, why.to_string())),
        };
        let member = matches!(self.auth, Auth::Member { .. });
        let has_path = !path_params(&self.path).is_empty();
        let writes = !matches!(self.method, Method::GET | Method::HEAD);
        if self.request.is_some() {
            add(
                400,
                "the body is malformed or a field is invalid (validation_failed with details.fields)",
            );
        }
        if !self.query.is_empty() {
            add(
                400,
                "a query parameter is missing or invalid (invalid_query, validation_failed)",
            );
        }
        if member {
            add(
                400,
                "X-Workspace-Id is not a workspace id (invalid_workspace_header)",
            );
        }
        match self.auth {
            Auth::Public(_) | Auth::Page(_) | Auth::Desk { .. } | Auth::Console => {}
            Auth::Token(_) | Auth::Webhook(_) => {
                add(401, "the token or signature is missing, bad or expired");
                add(403, "the token is not valid for this");
            }
            _ => {
                add(
                    401,
                    "no or bad credentials (unauthenticated, invalid_token)",
                );
                let why = match self.auth {
                    Auth::Member { .. } => {
                        "permission_denied, module_disabled, or csrf_failed (cookie sessions)"
                    }
                    Auth::Admin => "admin_required, or csrf_failed (cookie sessions)",
                    _ => "not allowed, or csrf_failed (cookie sessions)",
                };
                add(403, why);
            }
        }
        if has_path {
            add(404, "not found, or not yours (not_found)");
        }
        let names_ids = self.query.iter().any(|q| q.is_id())
            || matches!(
                self.request,
                Some(RequestBody::Json(_) | RequestBody::JsonOrForm(..))
            );
        if names_ids && !matches!(self.auth, Auth::Public(_)) {
            add(
                404,
                "an id in the body or query names nothing of yours (not_found)",
            );
        }
        if member {
            add(404, "the workspace is not one of the caller's (not_found)");
        }
        if writes {
            add(
                409,
                "conflicts with the current state (the code says which)",
            );
        }
        if self.request.is_some() {
            add(413, "the body is too large (payload_too_large)");
            add(
                415,
                "the body's Content-Type is not one this route takes (unsupported_media_type)",
            );
        }
        for (status, why) in &self.errors {
            add(*status, why);
        }
        if self.provider {
            add(502, "the provider failed (provider_failed)");
            add(
                503,
                "the provider is not configured (provider_not_configured)",
            );
        }
        add(
            503,
            "the request timed out or the database is busy (timeout, unavailable)",
        );
        out.sort_by_key(|(s, _)| *s);
        out
    }
}

/// The one error shape, `{"error": {"code", "message", "details"?}}`, as a schema.
fn error_schema() -> Schema {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let inner = ObjectBuilder::new()
        .property(
            "code",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(
                    "stable snake_case code (the route's documented answers name theirs)",
                )),
        )
        .required("code")
        .property("message", ObjectBuilder::new().schema_type(Type::String))
        .required("message")
        .property(
            "details",
            ObjectBuilder::new().description(Some("per-field errors (fields) or the code's data")),
        );
    Schema::Object(
        ObjectBuilder::new()
            .property("error", inner)
            .required("error")
            .build(),
    )
}

pub const ERROR_SCHEMA: &str = "ErrorBody";

/// The tag of every operation that asks a provider (and so may answer 503
/// `provider_not_configured` on a server without it).
pub const PROVIDER_TAG: &str = "provider";

/// Two different Rust types (or schema bodies) under one schema name: the document would show
/// one of them for both, so a client generated from it sends the wrong fields.
#[derive(Debug)]
pub struct SchemaCollision {
    pub name: String,
    pub types: Vec<String>,
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
                timeout: (!r.streamed).then_some(app.cfg.request_timeout),
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
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        let mut paths = Paths::new();
        let mut schemas: SchemaList = vec![(ERROR_SCHEMA.to_string(), error_schema().into())];
        let string = || ObjectBuilder::new().schema_type(Type::String);
        for r in self.routes.iter().filter(|r| !r.is_page()) {
            let path = r.openapi_path();
            let mut op = OperationBuilder::new()
                .summary(Some(r.summary))
                .tags(Some(if r.provider {
                    vec![r.area.to_string(), PROVIDER_TAG.to_string()]
                } else {
                    vec![r.area.to_string()]
                }))
                .operation_id(Some(format!(
                    "{}{}",
                    r.method.as_str().to_lowercase(),
                    path.replace(['/', '{', '}', '-'], "_")
                )))
                .description(Some(format!("Auth: {}", r.auth.label())));
            for p in path_params(&r.path) {
                op = op.parameter(
                    ParameterBuilder::new()
                        .name(p)
                        .parameter_in(ParameterIn::Path)
                        .required(Required::True)
                        .schema(Some(string())),
                );
            }
            for q in &r.query {
                let schema = q.schema();
                op = op.parameter(
                    ParameterBuilder::new()
                        .name(q.name)
                        .parameter_in(ParameterIn::Query)
                        .required(if q.required {
                            Required::True
                        } else {
                            Required::False
                        })
                        .schema(Some(schema)),
                );
            }
            match r.request {
                Some(RequestBody::Json(req)) => {
                    let schema = req.refer(&mut schemas);
                    op = op.request_body(Some(
                        RequestBodyBuilder::new()
                            .content(
                                "application/json",
                                ContentBuilder::new().schema(Some(schema)).build(),
                            )
                            .required(Some(Required::True))
                            .build(),
                    ));
                }
                Some(RequestBody::JsonOrForm(json, form)) => {
                    let (json, form) = (json.refer(&mut schemas), form.refer(&mut schemas));
                    op = op.request_body(Some(
                        RequestBodyBuilder::new()
                            .content(
                                "application/json",
                                ContentBuilder::new().schema(Some(json)).build(),
                            )
                            .content(
                                "application/x-www-form-urlencoded",
                                ContentBuilder::new().schema(Some(form)).build(),
                            )
                            .required(Some(Required::True))
                            .build(),
                    ));
                }
                Some(RequestBody::Raw(types)) => {
                    let mut body = RequestBodyBuilder::new().required(Some(Required::True));
                    for t in types {
                        let schema = if t.starts_with("text/") {
                            string()
                        } else {
                            string().format(Some(utoipa::openapi::SchemaFormat::Custom(
                                "binary".into(),
                            )))
                        };
                        body = body.content(*t, ContentBuilder::new().schema(Some(schema)).build());
                    }
                    op = op.request_body(Some(body.build()));
                }
                None => {}
            }
            for (status, desc, body) in &r.responses {
                let mut resp = ResponseBuilder::new().description(*desc);
                if let Some(b) = body {
                    resp = resp.content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(b.refer(&mut schemas)))
                            .build(),
                    );
                }
                for (_, media) in r.other_media.iter().filter(|m| m.0 == *status) {
                    resp =
                        resp.content(*media, ContentBuilder::new().schema(Some(string())).build());
                }
                op = op.response(status.to_string(), resp.build());
            }
            for (status, desc) in r.error_statuses() {
                // A status the row documents with its own body (health's 503) keeps it.
                if r.responses.iter().any(|x| x.0 == status) {
                    continue;
                }
                op = op.response(
                    status.to_string(),
                    ResponseBuilder::new()
                        .description(desc)
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                                    ERROR_SCHEMA,
                                ))))
                                .build(),
                        )
                        .build(),
                );
            }
            let mut op: Operation = op.build();
            op.security = security_for(r);
            paths.add_path_operation(&path, vec![http_method(&r.method)], op);
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

    /// Schema names given to more than one schema: by two request or response types of the
    /// table, or by two types they refer to. The document keeps one body per name, so every
    /// other type under that name would be documented with the wrong fields.
    pub fn schema_collisions(&self) -> Vec<SchemaCollision> {
        use std::collections::BTreeMap;
        // name -> (distinct bodies, Rust types named so directly by the table)
        let mut seen: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
        for r in &self.routes {
            let mut refs: Vec<SchemaRef> = r.responses.iter().filter_map(|x| x.2).collect();
            match r.request {
                Some(RequestBody::Json(b)) => refs.push(b),
                Some(RequestBody::JsonOrForm(j, f)) => refs.extend([j, f]),
                _ => {}
            }
            for sr in refs {
                let mut list: SchemaList = vec![];
                // A page's item is named by the table as directly as a plain answer.
                let top = (sr.type_name)();
                if !top.contains('<') {
                    let e = seen.entry((sr.name)()).or_default();
                    if !e.1.iter().any(|t| t == top) {
                        e.1.push(top.to_string());
                    }
                }
                sr.refer(&mut list);
                for (name, schema) in list {
                    let body = serde_json::to_string(&schema).expect("schemas serialize");
                    let e = seen.entry(name).or_default();
                    if !e.0.contains(&body) {
                        e.0.push(body);
                    }
                }
            }
        }
        seen.into_iter()
            .filter(|(_, (bodies, types))| bodies.len() > 1 || types.len() > 1)
            .map(|(name, (bodies, types))| SchemaCollision {
                name,
                types: if types.len() > 1 { types } else { bodies },
            })
            .collect()
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

/// Who may call an operation. An open one says `security: []` (no requirement at all), which
/// client generators read as "call without credentials"; `[{}]` would be one empty
/// alternative, which some of them type as an authenticated call.
fn security_for(r: &RouteDef) -> Option<Vec<SecurityRequirement>> {
    let none: [&str; 0] = [];
    Some(match r.auth {
        a if a.is_open() => vec![],
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

/// The `T` of each `api::http::extract::Query<T>` among a handler's extractor types.
fn query_extractors(args: &str) -> Vec<&str> {
    const QUERY: &str = "api::http::extract::Query<";
    let mut out = vec![];
    let mut rest = args;
    while let Some(i) = rest.find(QUERY) {
        let inner = &rest[i + QUERY.len()..];
        let mut depth = 0usize;
        let end = inner
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '<' => depth += 1,
                    '>' if depth == 0 => return true,
                    '>' => depth -= 1,
                    _ => {}
                }
                false
            })
            .map(|(j, _)| j)
            .unwrap_or(inner.len());
        out.push(&inner[..end]);
        rest = &inner[end..];
    }
    out
}

/// Whether the handler takes `api::http::pagination::Page` (not `Paged`).
fn takes_page(args: &str) -> bool {
    const PAGE: &str = "api::http::pagination::Page";
    args.match_indices(PAGE).any(|(i, _)| {
        !args[i + PAGE.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}
