//! The harness: builds the app in-process on a fresh database (SQLite by default, PostgreSQL
//! when TEST_DATABASE_URL is set: one schema per test), with the SMTP sink, the fake OAuth
//! provider, the fake Expo push service and the fake Twilio on loopback ports, and drives it
//! with `oneshot`. Fixtures (people, athletes, conversations…) live beside it in `support`.

use api::state::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;
use shared::config::Config;
use shared::db::{Db, Id};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;
use testkit::db::TestDb;
use testkit::expo::FakeExpo;
use testkit::fcm::FakeFcm;
use testkit::reviewvideo::FakeReviewVideo;
use testkit::smtp::SmtpSink;
use testkit::twilio::FakeTwilio;
use testkit::webpush::FakePushService;
use tower::ServiceExt;

pub const PASSWORD: &str = "correct horse battery staple";
pub const RV_CLIENT_ID: &str = "client-123";
pub const RV_CLIENT_SECRET: &str = "secret-456";
pub const TWILIO_SID: &str = "AC0123456789";
pub const TWILIO_TOKEN: &str = "twilio-auth-token";
pub const TWILIO_SERVICE: &str = "VA0123456789";
/// The sender of notification SMS.
pub const TWILIO_FROM: &str = "+15005550006";
/// The bearer token of the internal (service) routes.
pub const SERVICE_KEY: &str = "service-key-for-tests";

pub struct TestApp {
    pub state: AppState,
    pub router: Router,
    pub smtp: SmtpSink,
    pub reviewvideo: FakeReviewVideo,
    pub expo: FakeExpo,
    pub twilio: FakeTwilio,
    pub fcm: FakeFcm,
    /// A browser push service (Web Push) that decrypts what it receives.
    pub push_service: FakePushService,
    // Dropped last: the database outlives the pools above.
    pub tdb: TestDb,
}

/// A signed-in web user: the session cookie and the CSRF token.
#[derive(Clone, Debug)]
pub struct Session {
    pub cookie: String,
    pub csrf: String,
    pub user_id: Id,
    pub org_id: Id,
}

impl TestApp {
    pub async fn new() -> TestApp {
        Self::with_env(&[]).await
    }

    /// Builds the app with extra (or overriding) configuration variables.
    pub async fn with_env(vars: &[(&str, &str)]) -> TestApp {
        let smtp = SmtpSink::start().await;
        let reviewvideo = FakeReviewVideo::start(RV_CLIENT_ID, RV_CLIENT_SECRET).await;
        let expo = FakeExpo::start().await;
        let twilio = FakeTwilio::start(TWILIO_SID, TWILIO_TOKEN, TWILIO_SERVICE).await;
        let fcm = FakeFcm::start().await;
        let push_service = FakePushService::start().await;
        let tdb = TestDb::new().await;
        let dir = tdb.dir.clone();
        let db_url = tdb.url.clone();
        let mut env: HashMap<String, String> = [
            ("DATABASE_URL", db_url.clone()),
            ("DATA_DIR", dir.display().to_string()),
            (
                "SECRET_KEY",
                "test-secret-key-test-secret-key-0123456789".into(),
            ),
            ("PUBLIC_BASE_URL", "http://app.test".into()),
            ("SMTP_URL", format!("smtp://127.0.0.1:{}", smtp.port())),
            ("MAIL_FROM", "Surf Coach <no-reply@app.test>".into()),
            ("CRON_SECRET", "cron-secret-for-tests".into()),
            ("SERVICE_ROLE_KEY", SERVICE_KEY.into()),
            ("REVIEWVIDEO_BASE_URL", reviewvideo.base_url()),
            ("REVIEWVIDEO_CLIENT_ID", RV_CLIENT_ID.into()),
            ("REVIEWVIDEO_CLIENT_SECRET", RV_CLIENT_SECRET.into()),
            ("REVIEWVIDEO_PKCE", "true".into()),
            ("EXPO_PUSH_URL", expo.base_url()),
            ("TWILIO_BASE_URL", twilio.base_url()),
            ("TWILIO_ACCOUNT_SID", TWILIO_SID.into()),
            ("TWILIO_AUTH_TOKEN", TWILIO_TOKEN.into()),
            ("TWILIO_VERIFY_SERVICE_SID", TWILIO_SERVICE.into()),
            ("TWILIO_API_BASE_URL", twilio.base_url()),
            ("TWILIO_FROM", TWILIO_FROM.into()),
            ("FCM_SERVICE_ACCOUNT_JSON", fcm.service_account_json()),
            ("FCM_BASE_URL", fcm.base_url()),
            // The fake, and a real push service the documented examples name (never posted to).
            (
                "WEB_PUSH_ENDPOINT_HOSTS",
                format!("{},fcm.googleapis.com", push_service.origin()),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (k, v) in vars {
            if v.is_empty() {
                env.remove(*k);
            } else {
                env.insert(k.to_string(), v.to_string());
            }
        }
        let cfg = Config::from_lookup(|k| env.get(k).cloned()).expect("test config");
        let db = Db::connect(cfg.database_url.expose(), &cfg.pool_settings())
            .await
            .expect("connect");
        api::serve::migrate(&db).await.expect("migrate");
        let state = AppState::new(cfg, db).await.expect("state");
        let router = api::app::build(state.clone());
        TestApp {
            state,
            router,
            smtp,
            reviewvideo,
            expo,
            twilio,
            fcm,
            push_service,
            tdb,
        }
    }

    /// Starts a job worker in this process (fast polling and backoff, no scheduler unless
    /// `SCHEDULER=on` is in `extra`). Stop it with `shutdown`.
    pub async fn start_worker(&self, extra: &[(&str, &str)]) -> worker::Running {
        worker::start(self.worker_deps(extra).await)
            .await
            .expect("worker starts")
    }

    /// What a worker of this app runs jobs with (as [`TestApp::start_worker`] configures it),
    /// for a test that runs a handler by hand.
    pub async fn worker_deps(&self, extra: &[(&str, &str)]) -> std::sync::Arc<worker::Deps> {
        let mut vars: HashMap<String, String> = [
            ("WORKER_POLL_MS", "20"),
            ("WORKER_BACKOFF_BASE_MS", "200"),
            ("WORKER_HEARTBEAT_MS", "1000"),
            ("WORKER_SHUTDOWN_MS", "5000"),
            ("SCHEDULER", "off"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (k, v) in extra {
            vars.insert(k.to_string(), v.to_string());
        }
        let sqlite = !self.tdb.is_postgres();
        let wcfg =
            worker::config::WorkerConfig::from_lookup(|k| vars.get(k).cloned(), sqlite).unwrap();
        std::sync::Arc::new(
            worker::Deps::new(self.state.db.clone(), self.state.cfg.clone(), wcfg)
                .await
                .expect("worker deps"),
        )
    }

    /// Polls a job's progress row until `done` says so (10 s at most).
    pub async fn wait_job(
        &self,
        id: Id,
        done: impl Fn(&jobs::progress::Progress) -> bool,
    ) -> jobs::progress::Progress {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let p = {
                let mut c = self.state.db.acquire().await.unwrap();
                jobs::progress::get(&mut c, id)
                    .await
                    .unwrap()
                    .expect("job exists")
            };
            if done(&p) {
                return p;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "job {id} stuck: {p:?}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Another app (state and router) on this test's database, standing in for a second `api`
    /// process: its own pool, and an auth cache that trusts entries for `auth_cache_ttl` and
    /// does not hear this process's in-memory notices (another process would not). Send to it
    /// with [`Req::via`].
    pub async fn second_process(&self, auth_cache_ttl: Duration) -> (AppState, Router) {
        let mut cfg = self.state.cfg.clone();
        cfg.auth_cache_ttl = auth_cache_ttl;
        let db = Db::connect(cfg.database_url.expose(), &cfg.pool_settings())
            .await
            .expect("connect");
        let options = api::state::Options {
            auth_cache_isolated: true,
            ..Default::default()
        };
        let state = AppState::with_options(cfg, db, options)
            .await
            .expect("state");
        let router = api::app::build(state.clone());
        (state, router)
    }

    /// This app served on a loopback port by the `api` binary's accept loop
    /// (`api::serve::serve_http`), for what only a real connection does: bodies the kernel
    /// sends (`api::http::zerocopy`), keep-alive. Send to it with [`Req::over`].
    pub async fn serve(&self) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = self.router.clone();
        let task = tokio::spawn(api::serve::serve_http(
            listener,
            router,
            std::future::pending(),
            api::serve::SHUTDOWN_GRACE,
        ));
        Served {
            addr,
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
            task,
        }
    }

    pub fn req(&self, method: Method, path: &str) -> Req<'_> {
        Req {
            app: self,
            router: None,
            served: None,
            method,
            path: path.to_string(),
            headers: HeaderMap::new(),
            body: None,
            stream: None,
        }
    }

    pub fn get(&self, path: &str) -> Req<'_> {
        self.req(Method::GET, path)
    }

    pub fn post(&self, path: &str) -> Req<'_> {
        self.req(Method::POST, path)
    }

    /// Counts rows of `table` (to assert nothing was written).
    pub async fn count(&self, table: &str) -> i64 {
        let mut c = self.state.db.acquire().await.unwrap();
        let q = format!("SELECT COUNT(*) FROM {table}");
        shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(q.clone())).fetch_one(&mut *c).await).unwrap()
    }

    /// Deletes every row of `table` (a harness resetting state between suites, e.g. rate limits).
    pub async fn clear(&self, table: &str) {
        let mut c = self.state.db.acquire().await.unwrap();
        let q = format!("DELETE FROM {table}");
        shared::sql!(&mut c, c => sqlx::query(sqlx::AssertSqlSafe(q.clone())).execute(&mut *c).await.map(|_| ())).unwrap();
    }

    pub async fn wait_mail(&self, to: &str) -> testkit::smtp::Mail {
        self.smtp.wait_for(to, Duration::from_secs(5)).await
    }
}

/// The items of a paged list response.
pub fn items(r: &Resp) -> &Vec<Value> {
    r.json["items"].as_array().expect("a page")
}

/// The web session a sign-up, sign-in or claim response starts.
pub fn session_from(r: &Resp, _email: &str) -> Session {
    let cookie = r.cookie("sc_session").expect("session cookie set");
    Session {
        cookie,
        csrf: r.json["csrfToken"].as_str().expect("csrfToken").to_string(),
        user_id: r.json["user"]["id"].as_str().unwrap().parse().unwrap(),
        org_id: r.json["workspace"]["workspaceId"]
            .as_str()
            .map(|s| s.parse().unwrap())
            .unwrap_or(Id::nil()),
    }
}

pub struct Req<'a> {
    app: &'a TestApp,
    /// Another app's router to send to (see [`TestApp::second_process`]).
    router: Option<Router>,
    /// Send over a socket to this server instead of calling the router.
    served: Option<(SocketAddr, reqwest::Client)>,
    method: Method,
    path: String,
    headers: HeaderMap,
    body: Option<Vec<u8>>,
    stream: Option<Body>,
}

impl Req<'_> {
    pub fn json(mut self, v: Value) -> Self {
        self.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        self.body = Some(serde_json::to_vec(&v).unwrap());
        self
    }
    /// A form post as a browser sends it (`application/x-www-form-urlencoded`).
    pub fn form(self, fields: &[(&str, &str)]) -> Self {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        self.raw("application/x-www-form-urlencoded", body.as_bytes())
    }
    pub fn raw(mut self, content_type: &str, body: &[u8]) -> Self {
        self.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        self.body = Some(body.to_vec());
        self
    }
    /// A streamed body (say, one that fails halfway, as a dropped connection does).
    pub fn stream(mut self, content_type: &str, body: Body) -> Self {
        self.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        self.stream = Some(body);
        self
    }
    pub fn header(mut self, k: &'static str, v: &str) -> Self {
        self.headers.insert(k, HeaderValue::from_str(v).unwrap());
        self
    }
    /// Sends to `router` (a second app on the same database) instead of the test's app.
    pub fn via(mut self, router: &Router) -> Self {
        self.router = Some(router.clone());
        self
    }
    /// Sends over a loopback connection to `server` (reqwest keeps it alive between requests).
    pub fn over(mut self, server: &Served) -> Self {
        self.served = Some((server.addr, server.client.clone()));
        self
    }
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }
    /// Cookie session with its CSRF header, as the web client sends them.
    pub fn session(self, s: &Session) -> Self {
        self.header("cookie", &format!("sc_session={}", s.cookie))
            .header("x-csrf-token", &s.csrf)
    }
    /// Cookie only, no CSRF header.
    pub fn cookie_only(self, s: &Session) -> Self {
        self.header("cookie", &format!("sc_session={}", s.cookie))
    }
    pub async fn send(self) -> Resp {
        if let Some((addr, client)) = self.served {
            assert!(
                self.stream.is_none(),
                "a streamed body is sent through the router only"
            );
            let r = client
                .request(self.method, format!("http://{addr}{}", self.path))
                .headers(self.headers)
                .body(self.body.unwrap_or_default())
                .send()
                .await
                .unwrap();
            let (status, headers) = (r.status(), r.headers().clone());
            return Resp::new(status, headers, r.bytes().await.unwrap());
        }
        let mut req = Request::builder()
            .method(self.method)
            .uri(&self.path)
            .body(
                self.stream
                    .unwrap_or_else(|| Body::from(self.body.unwrap_or_default())),
            )
            .unwrap();
        *req.headers_mut() = self.headers;
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40000))));
        let router = self.router.unwrap_or_else(|| self.app.router.clone());
        let resp = router.oneshot(req).await.unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        Resp::new(status, headers, bytes)
    }
}

/// See [`TestApp::serve`]; stops serving when dropped.
pub struct Served {
    pub addr: SocketAddr,
    client: reqwest::Client,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
    pub json: Value,
    /// The body as received (for binary answers).
    pub bytes: Vec<u8>,
}

impl Resp {
    fn new(status: StatusCode, headers: HeaderMap, bytes: bytes::Bytes) -> Resp {
        Resp {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).to_string(),
            json: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            bytes: bytes.to_vec(),
        }
    }
    pub fn code(&self) -> &str {
        self.json["error"]["code"]
            .as_str()
            .unwrap_or("<no error code>")
    }
    pub fn location(&self) -> String {
        self.headers
            .get(header::LOCATION)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|c| {
                let first = c.split(';').next()?;
                let (k, v) = first.split_once('=')?;
                (k == name && !v.is_empty()).then(|| v.to_string())
            })
    }
    /// Asserts an error response: status, code, and the JSON error shape.
    #[track_caller]
    pub fn assert_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "body: {}", self.body);
        assert_eq!(self.code(), code, "body: {}", self.body);
        assert!(
            self.json["error"]["message"].is_string(),
            "body: {}",
            self.body
        );
    }
    /// The (line, field) of each row error in an `import_invalid` error.
    pub fn import_errors(&self) -> Vec<(u64, String)> {
        self.json["error"]["details"]["errors"]
            .as_array()
            .expect("import errors")
            .iter()
            .map(|e| {
                (
                    e["line"].as_u64().unwrap(),
                    e["field"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
    /// The names of the invalid fields in a validation error.
    pub fn fields(&self) -> Vec<String> {
        self.json["error"]["details"]["fields"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| f["field"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}
