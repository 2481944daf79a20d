//! Configuration from environment variables. Every variable is documented in the README;
//! a malformed value stops start-up with a message that names it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

#[derive(Clone, Debug)]
pub struct Config {
    pub database_url: String,
    /// The most connections this process's pool opens (`DATABASE_MAX_CONNECTIONS`, default 10).
    pub database_max_connections: u32,
    /// How long a request (or job) waits for a pooled connection before it gives up with 503
    /// `unavailable` (`DATABASE_ACQUIRE_TIMEOUT_MS`, default 10000): the bound on a wait for an
    /// exhausted pool or an unreachable database.
    pub database_acquire_timeout: Duration,
    pub bind_addr: SocketAddr,
    /// Where this process serves its Prometheus metrics (`METRICS_ADDR`); unset: no metrics.
    pub metrics_addr: Option<SocketAddr>,
    pub data_dir: PathBuf,
    pub public_base_url: Url,
    pub cron_secret: Option<String>,
    pub service_role_key: Option<String>,
    /// Master secret for signing and encryption (SECRET_KEY, at least 32 bytes).
    pub secret_key: Vec<u8>,
    pub log_json: bool,
    pub signup_mode_default: SignupMode,
    pub request_timeout: Duration,
    pub body_limit_bytes: usize,
    /// How long the api's auth guard trusts a sign-in it verified (`AUTH_CACHE_TTL_MS`, default
    /// 5000; 0 turns the cache off): the bound on how late a change made by another process is
    /// seen when no notice reaches this one (see `api/src/auth/cache.rs`).
    pub auth_cache_ttl: Duration,
    /// Failed sign-ins allowed per email and per client address in `login_window`.
    pub login_max_failures: u32,
    pub login_window: Duration,
    pub smtp: Option<SmtpConfig>,
    pub mail_from: String,
    pub reviewvideo: Option<OAuthProviderConfig>,
    /// Expo push (`EXPO_PUSH_URL`); unset: push deliveries fail "not configured".
    pub expo: Option<ExpoConfig>,
    /// Twilio Verify and inbound SMS (`TWILIO_BASE_URL` and the three credentials).
    pub twilio: Option<TwilioConfig>,
    /// The AI analysis backend (`ANALYSIS_BASE_URL`, `ANALYSIS_API_KEY`, optional
    /// `ANALYSIS_WEBHOOK_SECRET`); unset: analysis fails "not configured".
    pub analysis: Option<AnalysisConfig>,
    /// The generative model (`MODEL_BASE_URL`, `MODEL_API_KEY`, `MODEL_TRANSCRIBE`,
    /// `MODEL_CHAT`); unset: transcription is skipped with a reason, coaching answers 503.
    pub model: Option<ModelConfig>,
    /// The competition provider (`HEATSOURCE_BASE_URL`, optional `HEATSOURCE_CLIENT_ID` and
    /// `HEATSOURCE_CLIENT_SECRET`, `HEATSOURCE_TIMEOUT_MS`, `HEATSOURCE_CACHE_TTL_SECS`); unset:
    /// the heatsource routes answer 503 `provider_not_configured`.
    pub heatsource: Option<HeatsourceConfig>,
    /// The professional tour's athlete index (`TOURINDEX_BASE_URL`, `TOURINDEX_TOURS`,
    /// `TOURINDEX_TIMEOUT_MS`, `TOURINDEX_CACHE_TTL_SECS`, `TOURINDEX_RATE_PER_SEC`); unset:
    /// the tourindex routes answer 503 `provider_not_configured`.
    pub tourindex: Option<TourindexConfig>,
    /// The surf-spot provider (`SPOTSOURCE_BASE_URL`, optional `SPOTSOURCE_API_KEY`,
    /// `SPOTSOURCE_TIMEOUT_MS`, `SPOTSOURCE_CACHE_TTL_SECS`): spot search, spots and the
    /// primary forecast; unset: `backfill-spots` fails "not configured", the spot routes answer
    /// 503 and forecasts come from the fallback alone.
    pub spotsource: Option<SpotsourceConfig>,
    /// The fallback forecast provider, Open-Meteo protocol (`OPENMETEO_MARINE_URL`,
    /// `OPENMETEO_WEATHER_URL`, optional `OPENMETEO_API_KEY`, `OPENMETEO_TIMEOUT_MS`,
    /// `OPENMETEO_RATE_PER_SEC`); unset: forecasts come from the primary alone.
    pub openmeteo: Option<OpenMeteoConfig>,
    /// How long a cell's forecast is kept before it is fetched again (`FORECAST_CACHE_HOURS`,
    /// default 3, a divisor of 24: the windows are aligned to UTC midnight; `docs/forecasts.md`).
    pub forecast_cache_hours: u32,
    /// How long the multi-source athlete search waits for each provider
    /// (`ATHLETE_SEARCH_TIMEOUT_MS`, default 3000): a slower provider is reported, not awaited.
    pub athlete_search_timeout: Duration,
    /// The payment processor, Stripe protocol (`PAYMENTS_BASE_URL`, `PAYMENTS_SECRET_KEY`,
    /// `PAYMENTS_WEBHOOK_SECRETS`, `PAYMENTS_PRICE_IDS`, …); unset: the billing and payments
    /// routes answer 503 `provider_not_configured`.
    pub payments: Option<PaymentsConfig>,
    /// Run the job worker inside the api process (the embedded default on SQLite).
    pub embedded_worker: bool,
    pub storage: crate::storage::StorageConfig,
    /// External video hosts the stream proxy may fetch (`VIDEO_ALLOWED_HOSTS`: `host` or
    /// `host:port`, normalised; see `video::ssrf`).
    pub video_allowed_hosts: Vec<String>,
    /// Hosts allowed to resolve to private addresses (`VIDEO_ALLOWED_PRIVATE_HOSTS`); they are
    /// allowed hosts too.
    pub video_allowed_private_hosts: Vec<String>,
    /// The largest resumable clip upload (`UPLOAD_MAX_BYTES`, default 4 GiB).
    pub upload_max_bytes: u64,
    /// How long an unfinished upload waits for its next bytes before it expires
    /// (`UPLOAD_EXPIRY_HOURS`, default 24; each accepted PATCH restarts the clock).
    pub upload_expiry: Duration,
}

crate::text_enum! {
    /// Who may sign up: anyone, holders of a signup invite, or nobody (a waitlist instead).
    pub enum SignupMode {
        Open = "open",
        InviteLocked = "invite-locked",
        Waitlist = "waitlist",
    }
}

#[derive(Clone, Debug)]
pub struct SmtpConfig {
    /// `smtp://host:port` (plain, for a local relay or tests), `smtp+starttls://…` or `smtps://…`,
    /// with optional `user:password@`.
    pub url: Url,
}

#[derive(Clone, Debug)]
pub struct OAuthProviderConfig {
    pub base_url: Url,
    pub client_id: String,
    pub client_secret: String,
    pub scopes: String,
    pub pkce: bool,
}

#[derive(Clone, Debug)]
pub struct TwilioConfig {
    /// `https://verify.twilio.com` in production.
    pub base_url: Url,
    pub account_sid: String,
    /// Basic auth password of the API calls and the key of the webhook signature.
    pub auth_token: String,
    /// The Verify service (`VA…`).
    pub verify_service_sid: String,
}

#[derive(Clone, Debug)]
pub struct ExpoConfig {
    /// `https://exp.host` in production; the adapter appends `/--/api/v2/push/send`.
    pub base_url: Url,
    /// Expo's enhanced push security access token, sent as a bearer token when set.
    pub access_token: Option<String>,
}

/// The generative model: an OpenAI-compatible HTTP API (`POST /v1/audio/transcriptions`,
/// `POST /v1/chat/completions`), hosted or a local server speaking the same API.
#[derive(Clone)]
pub struct ModelConfig {
    /// The API's base URL; the adapter appends `/v1/…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer`.
    pub api_key: String,
    /// The transcription model (`MODEL_TRANSCRIBE`, default `whisper-1`).
    pub transcribe_model: String,
    /// The chat model for coaching text (`MODEL_CHAT`, default `gpt-4o-mini`).
    pub chat_model: String,
    /// How long one request may take, body included (`MODEL_TIMEOUT_MS`, default 120000: a
    /// 25 MiB recording takes a while to transcribe).
    pub timeout: Duration,
}

impl std::fmt::Debug for ModelConfig {
    // Config is logged at start-up: never the credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url.as_str())
            .field("api_key", &"<redacted>")
            .field("transcribe_model", &self.transcribe_model)
            .field("chat_model", &self.chat_model)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The competition provider (`docs/competition.md`): a LiveHeats-style GraphQL API at
/// `{base_url}/api/graphql`, with an OAuth client-credentials token at `{base_url}/oauth/token`
/// for the licensed queries (athlete search and profiles).
#[derive(Clone)]
pub struct HeatsourceConfig {
    pub base_url: Url,
    /// Both set, or neither: without them only public data (organisations, series, events) is
    /// available and the athlete queries answer "not configured".
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// How long one request may take (`HEATSOURCE_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// How long a cached answer is served before it is fetched again
    /// (`HEATSOURCE_CACHE_TTL_SECS`, default 600; 0 disables the cache).
    pub cache_ttl: Duration,
    /// The organisations' short names the scheduled syncs follow (`HEATSOURCE_ORGANISATIONS`,
    /// comma-separated, lower-cased; default none).
    pub organisations: Vec<String>,
    /// Outbound requests per second, per process (`HEATSOURCE_RATE_PER_SEC`, default 5).
    pub rate_per_sec: u32,
}

/// The surf-spot provider (`docs/competition.md`, "spotsource").
#[derive(Clone)]
pub struct SpotsourceConfig {
    pub base_url: Url,
    /// Sent as a bearer token when set.
    pub api_key: Option<String>,
    /// How long one request may take (`SPOTSOURCE_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// How long a spot search or spot is served from the cache (`SPOTSOURCE_CACHE_TTL_SECS`,
    /// default 600; 0 disables the cache). Forecasts have their own windows.
    pub cache_ttl: Duration,
}

/// The fallback forecast provider (`docs/forecasts.md`), spoken to in the Open-Meteo protocol:
/// the marine API (`{marine_url}/v1/marine`) for waves and the weather API
/// (`{weather_url}/v1/forecast`) for wind, which Open-Meteo serves from different hosts.
#[derive(Clone)]
pub struct OpenMeteoConfig {
    pub marine_url: Url,
    pub weather_url: Url,
    /// Sent as the `apikey` query parameter when set (Open-Meteo's commercial plans).
    pub api_key: Option<String>,
    /// How long one request may take (`OPENMETEO_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// Outbound requests per second, per process (`OPENMETEO_RATE_PER_SEC`, default 5: the
    /// free plan allows 600 a minute).
    pub rate_per_sec: u32,
}

impl std::fmt::Debug for OpenMeteoConfig {
    // Config is logged at start-up: never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenMeteoConfig")
            .field("marine_url", &self.marine_url.as_str())
            .field("weather_url", &self.weather_url.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("rate_per_sec", &self.rate_per_sec)
            .finish()
    }
}

impl std::fmt::Debug for SpotsourceConfig {
    // Config is logged at start-up: never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpotsourceConfig")
            .field("base_url", &self.base_url.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The tour index (`docs/competition.md`): JSON search endpoints and HTML pages read
/// tolerantly, at `{base_url}/...`.
#[derive(Clone, Debug)]
pub struct TourindexConfig {
    pub base_url: Url,
    /// The tours the scheduled sync scrapes (`TOURINDEX_TOURS`, comma-separated, lower-cased;
    /// default none).
    pub tours: Vec<String>,
    /// How long one request may take (`TOURINDEX_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// (`TOURINDEX_CACHE_TTL_SECS`, default 600; 0 disables the cache).
    pub cache_ttl: Duration,
    /// Outbound requests per second, per process (`TOURINDEX_RATE_PER_SEC`, default 2: pages
    /// are scraped, so be gentle).
    pub rate_per_sec: u32,
}

impl std::fmt::Debug for HeatsourceConfig {
    // Config is logged at start-up: never the credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeatsourceConfig")
            .field("base_url", &self.base_url.as_str())
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("timeout", &self.timeout)
            .field("cache_ttl", &self.cache_ttl)
            .field("organisations", &self.organisations)
            .finish()
    }
}

/// The payment processor (`docs/billing.md`), spoken to in the Stripe protocol.
#[derive(Clone)]
pub struct PaymentsConfig {
    /// `https://api.stripe.com` in production; the adapter appends `/v1/…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer` (`sk_live_…`/`sk_test_…`).
    pub secret_key: String,
    /// The webhook endpoint's signing secrets (`whsec_…`), several during a rotation; empty:
    /// the webhook answers 503 `provider_not_configured`.
    pub webhook_secrets: Vec<String>,
    /// The monthly platform prices a workspace may subscribe to (`price_…`).
    pub price_ids: Vec<String>,
    /// Whether this deployment takes live events (`PAYMENTS_LIVEMODE`, default false): an event
    /// of the other mode is refused.
    pub livemode: bool,
    /// The platform's share of marketplace payments, in percent (`PAYMENTS_APPLICATION_FEE_PERCENT`,
    /// default 10).
    pub application_fee_percent: u32,
}

impl std::fmt::Debug for PaymentsConfig {
    // Config is logged at start-up: never the credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaymentsConfig")
            .field("base_url", &self.base_url.as_str())
            .field("secret_key", &"<redacted>")
            .field("webhook_secrets", &self.webhook_secrets.len())
            .field("price_ids", &self.price_ids)
            .field("livemode", &self.livemode)
            .field("application_fee_percent", &self.application_fee_percent)
            .finish()
    }
}

/// The analysis backend (`docs/providers/analysis-backend.md`).
#[derive(Clone)]
pub struct AnalysisConfig {
    /// The backend's base URL; the adapter appends `/v1/analyses…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer`.
    pub api_key: String,
    /// `whsec_<base64>`: verifies completion webhooks. `None`: webhooks are refused and the
    /// app relies on polling.
    pub webhook_secret: Option<String>,
}

impl std::fmt::Debug for AnalysisConfig {
    // Config is logged at start-up: never the credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisConfig")
            .field("base_url", &self.base_url.as_str())
            .field("api_key", &"<redacted>")
            .field(
                "webhook_secret",
                &self.webhook_secret.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("configuration error in {var}: {message}")]
pub struct ConfigError {
    pub var: &'static str,
    pub message: String,
}

fn err(var: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        var,
        message: message.into(),
    }
}

impl Config {
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }

    /// Builds the configuration from any variable source (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let data_dir = PathBuf::from(get("DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database_url = get("DATABASE_URL")
            .unwrap_or_else(|| format!("sqlite://{}/service.db", data_dir.display()));
        if !(database_url.starts_with("sqlite:")
            || database_url.starts_with("postgres://")
            || database_url.starts_with("postgresql://"))
        {
            return Err(err(
                "DATABASE_URL",
                "must start with sqlite: or postgres:// (e.g. sqlite://./data/service.db)",
            ));
        }
        let database_max_connections = match parse_num(
            "DATABASE_MAX_CONNECTIONS",
            get("DATABASE_MAX_CONNECTIONS"),
            10,
        )? {
            n @ 1..=10_000 => n as u32,
            _ => return Err(err("DATABASE_MAX_CONNECTIONS", "must be 1 to 10000")),
        };
        let database_acquire_timeout = match parse_num(
            "DATABASE_ACQUIRE_TIMEOUT_MS",
            get("DATABASE_ACQUIRE_TIMEOUT_MS"),
            10_000,
        )? {
            0 => return Err(err("DATABASE_ACQUIRE_TIMEOUT_MS", "must be at least 1")),
            ms => Duration::from_millis(ms),
        };
        let bind_addr: SocketAddr = get("BIND_ADDR")
            .unwrap_or_else(|| "127.0.0.1:8080".into())
            .parse()
            .map_err(|e| err("BIND_ADDR", format!("expected host:port ({e})")))?;
        let metrics_addr: Option<SocketAddr> =
            get("METRICS_ADDR")
                .map(|v| v.parse())
                .transpose()
                .map_err(|e| err("METRICS_ADDR", format!("expected host:port ({e})")))?;
        let public_base_url = match get("PUBLIC_BASE_URL") {
            Some(v) => parse_url("PUBLIC_BASE_URL", &v)?,
            None => Url::parse(&format!("http://{bind_addr}")).expect("socket address is a URL"),
        };
        let secret_key = match get("SECRET_KEY") {
            Some(v) if v.len() >= 32 => v.into_bytes(),
            Some(_) => return Err(err("SECRET_KEY", "must be at least 32 characters")),
            None => Vec::new(), // filled by `ensure_secret_key` for the embedded default
        };
        let signup_mode_default = match get("SIGNUP_MODE") {
            Some(v) => SignupMode::parse(&v).map_err(|_| {
                err(
                    "SIGNUP_MODE",
                    "must be one of open, invite-locked, waitlist",
                )
            })?,
            None => SignupMode::Open,
        };
        let smtp = get("SMTP_URL")
            .map(|v| {
                let url = parse_url("SMTP_URL", &v)?;
                match url.scheme() {
                    "smtp" | "smtps" | "smtp+starttls" => Ok(SmtpConfig { url }),
                    _ => Err(err(
                        "SMTP_URL",
                        "scheme must be smtp, smtp+starttls or smtps",
                    )),
                }
            })
            .transpose()?;
        let reviewvideo = match get("REVIEWVIDEO_BASE_URL") {
            None => None,
            Some(base) => Some(OAuthProviderConfig {
                base_url: parse_url("REVIEWVIDEO_BASE_URL", &base)?,
                client_id: get("REVIEWVIDEO_CLIENT_ID").ok_or_else(|| {
                    err(
                        "REVIEWVIDEO_CLIENT_ID",
                        "required when REVIEWVIDEO_BASE_URL is set",
                    )
                })?,
                client_secret: get("REVIEWVIDEO_CLIENT_SECRET").ok_or_else(|| {
                    err(
                        "REVIEWVIDEO_CLIENT_SECRET",
                        "required when REVIEWVIDEO_BASE_URL is set",
                    )
                })?,
                scopes: get("REVIEWVIDEO_SCOPES")
                    .unwrap_or_else(|| "public private video_files".into()),
                pkce: parse_bool("REVIEWVIDEO_PKCE", get("REVIEWVIDEO_PKCE"), false)?,
            }),
        };
        let expo = match get("EXPO_PUSH_URL") {
            None => None,
            Some(base) => Some(ExpoConfig {
                base_url: parse_url("EXPO_PUSH_URL", &base)?,
                access_token: get("EXPO_ACCESS_TOKEN"),
            }),
        };
        let twilio = match get("TWILIO_BASE_URL") {
            None => None,
            Some(base) => {
                let need = |var: &'static str| {
                    get(var).ok_or_else(|| err(var, "required when TWILIO_BASE_URL is set"))
                };
                Some(TwilioConfig {
                    base_url: parse_url("TWILIO_BASE_URL", &base)?,
                    account_sid: need("TWILIO_ACCOUNT_SID")?,
                    auth_token: need("TWILIO_AUTH_TOKEN")?,
                    verify_service_sid: need("TWILIO_VERIFY_SERVICE_SID")?,
                })
            }
        };
        let model = match get("MODEL_BASE_URL") {
            None => None,
            Some(base) => Some(ModelConfig {
                base_url: parse_url("MODEL_BASE_URL", &base)?,
                api_key: get("MODEL_API_KEY")
                    .ok_or_else(|| err("MODEL_API_KEY", "required when MODEL_BASE_URL is set"))?,
                transcribe_model: get("MODEL_TRANSCRIBE").unwrap_or_else(|| "whisper-1".into()),
                chat_model: get("MODEL_CHAT").unwrap_or_else(|| "gpt-4o-mini".into()),
                timeout: Duration::from_millis(
                    parse_num("MODEL_TIMEOUT_MS", get("MODEL_TIMEOUT_MS"), 120_000)?.max(1),
                ),
            }),
        };
        let analysis = match get("ANALYSIS_BASE_URL") {
            None => None,
            Some(base) => {
                let webhook_secret = get("ANALYSIS_WEBHOOK_SECRET");
                if let Some(s) = &webhook_secret {
                    crate::providers::webhooks::decode_secret(s).map_err(|_| {
                        err(
                            "ANALYSIS_WEBHOOK_SECRET",
                            "must be whsec_ followed by the base64 of the secret",
                        )
                    })?;
                }
                Some(AnalysisConfig {
                    base_url: parse_url("ANALYSIS_BASE_URL", &base)?,
                    api_key: get("ANALYSIS_API_KEY").ok_or_else(|| {
                        err("ANALYSIS_API_KEY", "required when ANALYSIS_BASE_URL is set")
                    })?,
                    webhook_secret,
                })
            }
        };
        let heatsource = match get("HEATSOURCE_BASE_URL") {
            None => None,
            Some(base) => {
                let client_id = get("HEATSOURCE_CLIENT_ID");
                let client_secret = get("HEATSOURCE_CLIENT_SECRET");
                if client_id.is_some() != client_secret.is_some() {
                    let var = if client_id.is_some() {
                        "HEATSOURCE_CLIENT_SECRET"
                    } else {
                        "HEATSOURCE_CLIENT_ID"
                    };
                    return Err(err(
                        var,
                        "HEATSOURCE_CLIENT_ID and HEATSOURCE_CLIENT_SECRET are set together",
                    ));
                }
                Some(HeatsourceConfig {
                    base_url: parse_url("HEATSOURCE_BASE_URL", &base)?,
                    client_id,
                    client_secret,
                    timeout: Duration::from_millis(
                        parse_num(
                            "HEATSOURCE_TIMEOUT_MS",
                            get("HEATSOURCE_TIMEOUT_MS"),
                            10_000,
                        )?
                        .max(1),
                    ),
                    cache_ttl: Duration::from_secs(parse_num(
                        "HEATSOURCE_CACHE_TTL_SECS",
                        get("HEATSOURCE_CACHE_TTL_SECS"),
                        600,
                    )?),
                    organisations: name_list(get("HEATSOURCE_ORGANISATIONS")),
                    rate_per_sec: parse_num(
                        "HEATSOURCE_RATE_PER_SEC",
                        get("HEATSOURCE_RATE_PER_SEC"),
                        5,
                    )?
                    .clamp(1, 10_000) as u32,
                })
            }
        };
        let tourindex = match get("TOURINDEX_BASE_URL") {
            None => None,
            Some(base) => Some(TourindexConfig {
                base_url: parse_url("TOURINDEX_BASE_URL", &base)?,
                tours: name_list(get("TOURINDEX_TOURS")),
                timeout: Duration::from_millis(
                    parse_num("TOURINDEX_TIMEOUT_MS", get("TOURINDEX_TIMEOUT_MS"), 10_000)?.max(1),
                ),
                cache_ttl: Duration::from_secs(parse_num(
                    "TOURINDEX_CACHE_TTL_SECS",
                    get("TOURINDEX_CACHE_TTL_SECS"),
                    600,
                )?),
                rate_per_sec: parse_num("TOURINDEX_RATE_PER_SEC", get("TOURINDEX_RATE_PER_SEC"), 2)?
                    .clamp(1, 10_000) as u32,
            }),
        };
        let spotsource = match get("SPOTSOURCE_BASE_URL") {
            None => None,
            Some(base) => Some(SpotsourceConfig {
                base_url: parse_url("SPOTSOURCE_BASE_URL", &base)?,
                api_key: get("SPOTSOURCE_API_KEY"),
                timeout: Duration::from_millis(
                    parse_num(
                        "SPOTSOURCE_TIMEOUT_MS",
                        get("SPOTSOURCE_TIMEOUT_MS"),
                        10_000,
                    )?
                    .max(1),
                ),
                cache_ttl: Duration::from_secs(parse_num(
                    "SPOTSOURCE_CACHE_TTL_SECS",
                    get("SPOTSOURCE_CACHE_TTL_SECS"),
                    600,
                )?),
            }),
        };
        let openmeteo = match get("OPENMETEO_MARINE_URL") {
            None => None,
            Some(marine) => Some(OpenMeteoConfig {
                marine_url: parse_url("OPENMETEO_MARINE_URL", &marine)?,
                weather_url: parse_url(
                    "OPENMETEO_WEATHER_URL",
                    &get("OPENMETEO_WEATHER_URL").ok_or_else(|| {
                        err(
                            "OPENMETEO_WEATHER_URL",
                            "required when OPENMETEO_MARINE_URL is set (wind comes from the weather API)",
                        )
                    })?,
                )?,
                api_key: get("OPENMETEO_API_KEY"),
                timeout: Duration::from_millis(
                    parse_num("OPENMETEO_TIMEOUT_MS", get("OPENMETEO_TIMEOUT_MS"), 10_000)?.max(1),
                ),
                rate_per_sec: parse_num("OPENMETEO_RATE_PER_SEC", get("OPENMETEO_RATE_PER_SEC"), 5)?
                    .clamp(1, 10_000) as u32,
            }),
        };
        let forecast_cache_hours =
            parse_num("FORECAST_CACHE_HOURS", get("FORECAST_CACHE_HOURS"), 3)? as u32;
        if forecast_cache_hours == 0 || 24 % forecast_cache_hours != 0 {
            return Err(err(
                "FORECAST_CACHE_HOURS",
                "must divide 24 (1, 2, 3, 4, 6, 8, 12 or 24)",
            ));
        }
        let athlete_search_timeout = Duration::from_millis(
            parse_num(
                "ATHLETE_SEARCH_TIMEOUT_MS",
                get("ATHLETE_SEARCH_TIMEOUT_MS"),
                3_000,
            )?
            .max(1),
        );
        let list = |var: &str| -> Vec<String> {
            get(var)
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        let payments = match get("PAYMENTS_BASE_URL") {
            None => None,
            Some(base) => {
                let fee = parse_num(
                    "PAYMENTS_APPLICATION_FEE_PERCENT",
                    get("PAYMENTS_APPLICATION_FEE_PERCENT"),
                    10,
                )?;
                if fee > 100 {
                    return Err(err(
                        "PAYMENTS_APPLICATION_FEE_PERCENT",
                        "must be between 0 and 100",
                    ));
                }
                Some(PaymentsConfig {
                    base_url: parse_url("PAYMENTS_BASE_URL", &base)?,
                    secret_key: get("PAYMENTS_SECRET_KEY").ok_or_else(|| {
                        err(
                            "PAYMENTS_SECRET_KEY",
                            "required when PAYMENTS_BASE_URL is set",
                        )
                    })?,
                    webhook_secrets: list("PAYMENTS_WEBHOOK_SECRETS"),
                    price_ids: list("PAYMENTS_PRICE_IDS"),
                    livemode: parse_bool("PAYMENTS_LIVEMODE", get("PAYMENTS_LIVEMODE"), false)?,
                    application_fee_percent: fee as u32,
                })
            }
        };
        let hosts = |var: &'static str| -> Result<Vec<String>, ConfigError> {
            let rules = crate::video::ssrf::parse_host_list(&get(var).unwrap_or_default())
                .map_err(|m| err(var, m))?;
            Ok(rules.iter().map(|r| r.to_entry()).collect())
        };
        let video_allowed_hosts = hosts("VIDEO_ALLOWED_HOSTS")?;
        let video_allowed_private_hosts = hosts("VIDEO_ALLOWED_PRIVATE_HOSTS")?;
        let embedded_default = database_url.starts_with("sqlite:");
        let storage = crate::storage::StorageConfig::from_lookup(&get, &data_dir)?;
        Ok(Config {
            storage,
            bind_addr,
            metrics_addr,
            public_base_url,
            cron_secret: get("CRON_SECRET"),
            service_role_key: get("SERVICE_ROLE_KEY"),
            secret_key,
            log_json: match get("LOG_FORMAT").as_deref() {
                None | Some("text") => false,
                Some("json") => true,
                Some(_) => return Err(err("LOG_FORMAT", "must be text or json")),
            },
            signup_mode_default,
            request_timeout: Duration::from_secs(parse_num(
                "REQUEST_TIMEOUT_SECS",
                get("REQUEST_TIMEOUT_SECS"),
                30,
            )?),
            body_limit_bytes: parse_num("BODY_LIMIT_BYTES", get("BODY_LIMIT_BYTES"), 1 << 20)?
                as usize,
            auth_cache_ttl: Duration::from_millis(parse_num(
                "AUTH_CACHE_TTL_MS",
                get("AUTH_CACHE_TTL_MS"),
                5000,
            )?),
            login_max_failures: parse_num("LOGIN_MAX_FAILURES", get("LOGIN_MAX_FAILURES"), 10)?
                as u32,
            login_window: Duration::from_secs(parse_num(
                "LOGIN_WINDOW_SECS",
                get("LOGIN_WINDOW_SECS"),
                900,
            )?),
            smtp,
            mail_from: get("MAIL_FROM").unwrap_or_else(|| "Surf Coach <no-reply@localhost>".into()),
            reviewvideo,
            expo,
            twilio,
            analysis,
            model,
            heatsource,
            tourindex,
            spotsource,
            openmeteo,
            forecast_cache_hours,
            athlete_search_timeout,
            payments,
            embedded_worker: parse_bool(
                "EMBEDDED_WORKER",
                get("EMBEDDED_WORKER"),
                embedded_default,
            )?,
            database_url,
            database_max_connections,
            database_acquire_timeout,
            data_dir,
            video_allowed_hosts,
            video_allowed_private_hosts,
            upload_max_bytes: parse_num("UPLOAD_MAX_BYTES", get("UPLOAD_MAX_BYTES"), 4 << 30)?,
            upload_expiry: Duration::from_secs(
                3600 * parse_num("UPLOAD_EXPIRY_HOURS", get("UPLOAD_EXPIRY_HOURS"), 24)?.max(1),
            ),
        })
    }

    /// The embedded default needs no set-up: without SECRET_KEY, a random key is generated once
    /// and kept in `DATA_DIR/secret.key` (mode 0600) so sessions survive restarts.
    pub fn ensure_secret_key(&mut self) -> std::io::Result<()> {
        if !self.secret_key.is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.data_dir)?;
        let path = self.data_dir.join("secret.key");
        match std::fs::read(&path) {
            Ok(k) if k.len() >= 32 => self.secret_key = k,
            _ => {
                let k = hex::encode(crate::crypto::random_bytes(32)).into_bytes();
                write_private(&path, &k)?;
                self.secret_key = k;
            }
        }
        Ok(())
    }

    /// The database pool's settings (`DATABASE_MAX_CONNECTIONS`, `DATABASE_ACQUIRE_TIMEOUT_MS`).
    pub fn pool_settings(&self) -> crate::db::PoolSettings {
        crate::db::PoolSettings {
            max_connections: self.database_max_connections,
            acquire_timeout: self.database_acquire_timeout,
            ..crate::db::PoolSettings::default()
        }
    }

    pub fn cookies_secure(&self) -> bool {
        self.public_base_url.scheme() == "https"
    }

    /// An absolute URL on this service for `path` (which starts with `/`).
    pub fn public_url(&self, path: &str) -> String {
        let base = self.public_base_url.as_str().trim_end_matches('/');
        format!("{base}{path}")
    }
}

#[cfg(unix)]
fn write_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(data)
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, data)
}

fn parse_url(var: &'static str, v: &str) -> Result<Url, ConfigError> {
    let u = Url::parse(v).map_err(|e| err(var, format!("not a URL ({e})")))?;
    if u.cannot_be_a_base() || u.host_str().is_none() {
        return Err(err(var, "must be an absolute URL with a host"));
    }
    Ok(u)
}

fn parse_bool(var: &'static str, v: Option<String>, default: bool) -> Result<bool, ConfigError> {
    match v.as_deref() {
        None => Ok(default),
        Some("1" | "true" | "yes" | "on") => Ok(true),
        Some("0" | "false" | "no" | "off") => Ok(false),
        Some(_) => Err(err(var, "must be true or false")),
    }
}

/// A comma-separated list of names, trimmed and lower-cased, empty entries dropped.
fn name_list(v: Option<String>) -> Vec<String> {
    v.unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

fn parse_num(var: &'static str, v: Option<String>, default: u64) -> Result<u64, ConfigError> {
    match v {
        None => Ok(default),
        Some(s) => s
            .parse()
            .map_err(|_| err(var, "must be a non-negative whole number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn defaults_are_the_embedded_service() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.database_url, "sqlite://./data/service.db");
        assert_eq!(c.bind_addr.to_string(), "127.0.0.1:8080");
        assert!(c.embedded_worker);
        assert!(
            c.metrics_addr.is_none(),
            "metrics are off unless METRICS_ADDR is set"
        );
        assert_eq!(c.signup_mode_default, SignupMode::Open);
        assert!(c.reviewvideo.is_none());
        let pool = c.pool_settings();
        assert_eq!(pool.max_connections, 10);
        assert_eq!(pool.acquire_timeout, Duration::from_secs(10));
        let c = cfg(&[
            ("DATABASE_MAX_CONNECTIONS", "3"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "250"),
        ])
        .unwrap();
        assert_eq!(c.pool_settings().max_connections, 3);
        assert_eq!(
            c.pool_settings().acquire_timeout,
            Duration::from_millis(250)
        );
    }

    #[test]
    fn malformed_values_name_the_variable() {
        for (var, val) in [
            ("BIND_ADDR", "nonsense"),
            ("METRICS_ADDR", "9464"),
            ("DATABASE_URL", "mysql://x"),
            ("PUBLIC_BASE_URL", "not a url"),
            ("SECRET_KEY", "short"),
            ("SIGNUP_MODE", "closed"),
            ("LOG_FORMAT", "xml"),
            ("REQUEST_TIMEOUT_SECS", "-3"),
            ("DATABASE_MAX_CONNECTIONS", "0"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "0"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "soon"),
            ("SMTP_URL", "http://mail"),
        ] {
            let e = cfg(&[(var, val)]).unwrap_err();
            assert_eq!(e.var, var, "{e}");
            assert!(e.to_string().contains(var));
        }
        let e = cfg(&[("REVIEWVIDEO_BASE_URL", "http://127.0.0.1:9")]).unwrap_err();
        assert_eq!(e.var, "REVIEWVIDEO_CLIENT_ID");
        let e = cfg(&[
            ("TWILIO_BASE_URL", "http://127.0.0.1:9"),
            ("TWILIO_ACCOUNT_SID", "AC1"),
            ("TWILIO_AUTH_TOKEN", "t"),
        ])
        .unwrap_err();
        assert_eq!(e.var, "TWILIO_VERIFY_SERVICE_SID");
        let e = cfg(&[("EXPO_PUSH_URL", "not a url")]).unwrap_err();
        assert_eq!(e.var, "EXPO_PUSH_URL");
        let e = cfg(&[("VIDEO_ALLOWED_HOSTS", "cdn.example, http://x/")]).unwrap_err();
        assert_eq!(e.var, "VIDEO_ALLOWED_HOSTS");
    }

    #[test]
    fn video_hosts_are_normalised_and_empty_by_default() {
        let c = cfg(&[]).unwrap();
        assert!(c.video_allowed_hosts.is_empty() && c.video_allowed_private_hosts.is_empty());
        let c = cfg(&[
            ("VIDEO_ALLOWED_HOSTS", "CDN.example.com, media.example:8443"),
            ("VIDEO_ALLOWED_PRIVATE_HOSTS", "127.0.0.1:9000"),
        ])
        .unwrap();
        assert_eq!(
            c.video_allowed_hosts,
            ["cdn.example.com", "media.example:8443"]
        );
        assert_eq!(c.video_allowed_private_hosts, ["127.0.0.1:9000"]);
    }

    #[test]
    fn the_model_needs_a_key_with_its_url_and_has_default_names() {
        assert!(cfg(&[]).unwrap().model.is_none());
        let e = cfg(&[("MODEL_BASE_URL", "http://127.0.0.1:9/")]).unwrap_err();
        assert!(e.to_string().contains("MODEL_API_KEY"), "{e}");
        let c = cfg(&[
            ("MODEL_BASE_URL", "http://127.0.0.1:9/"),
            ("MODEL_API_KEY", "k"),
        ])
        .unwrap()
        .model
        .unwrap();
        assert_eq!(
            (c.transcribe_model.as_str(), c.chat_model.as_str()),
            ("whisper-1", "gpt-4o-mini")
        );
        assert!(!format!("{c:?}").contains("\"k\""), "the key is not logged");
    }

    #[test]
    fn the_forecast_fallback_needs_both_open_meteo_hosts_and_windows_divide_the_day() {
        let c = cfg(&[]).unwrap();
        assert!(c.openmeteo.is_none());
        assert_eq!(c.forecast_cache_hours, 3);
        let e = cfg(&[("OPENMETEO_MARINE_URL", "http://127.0.0.1:9")]).unwrap_err();
        assert_eq!(e.var, "OPENMETEO_WEATHER_URL");
        let c = cfg(&[
            ("OPENMETEO_MARINE_URL", "http://127.0.0.1:9"),
            ("OPENMETEO_WEATHER_URL", "http://127.0.0.1:10"),
            ("OPENMETEO_API_KEY", "om-secret"),
        ])
        .unwrap()
        .openmeteo
        .unwrap();
        assert_eq!((c.rate_per_sec, c.timeout), (5, Duration::from_secs(10)));
        assert!(
            !format!("{c:?}").contains("om-secret"),
            "the key is not logged"
        );
        for bad in ["0", "5", "48", "x"] {
            let e = cfg(&[("FORECAST_CACHE_HOURS", bad)]).unwrap_err();
            assert_eq!(e.var, "FORECAST_CACHE_HOURS", "{bad}");
        }
        assert_eq!(
            cfg(&[("FORECAST_CACHE_HOURS", "6")])
                .unwrap()
                .forecast_cache_hours,
            6
        );
    }

    #[test]
    fn payments_need_a_secret_key_and_take_several_webhook_secrets() {
        assert!(cfg(&[]).unwrap().payments.is_none());
        let e = cfg(&[("PAYMENTS_BASE_URL", "http://127.0.0.1:9")]).unwrap_err();
        assert_eq!(e.var, "PAYMENTS_SECRET_KEY");
        let base = [
            ("PAYMENTS_BASE_URL", "http://127.0.0.1:9"),
            ("PAYMENTS_SECRET_KEY", "sk_test_123"),
        ];
        let e = cfg(&[
            base[0],
            base[1],
            ("PAYMENTS_APPLICATION_FEE_PERCENT", "101"),
        ])
        .unwrap_err();
        assert_eq!(e.var, "PAYMENTS_APPLICATION_FEE_PERCENT");
        let c = cfg(&[
            base[0],
            base[1],
            ("PAYMENTS_WEBHOOK_SECRETS", "whsec_new, whsec_old"),
            ("PAYMENTS_PRICE_IDS", "price_a,,price_b"),
        ])
        .unwrap()
        .payments
        .unwrap();
        assert_eq!(c.webhook_secrets, ["whsec_new", "whsec_old"]);
        assert_eq!(c.price_ids, ["price_a", "price_b"]);
        assert_eq!(c.application_fee_percent, 10);
        assert!(!c.livemode);
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("sk_test_123") && !shown.contains("whsec_new"),
            "{shown}"
        );
    }

    #[test]
    fn the_analysis_backend_needs_a_key_with_its_url() {
        assert!(cfg(&[]).unwrap().analysis.is_none());
        let e = cfg(&[("ANALYSIS_BASE_URL", "http://127.0.0.1:9")]).unwrap_err();
        assert_eq!(e.var, "ANALYSIS_API_KEY");
        assert!(e.to_string().contains("ANALYSIS_BASE_URL"), "{e}");
        let e = cfg(&[("ANALYSIS_BASE_URL", "nope"), ("ANALYSIS_API_KEY", "k")]).unwrap_err();
        assert_eq!(e.var, "ANALYSIS_BASE_URL");
        let e = cfg(&[
            ("ANALYSIS_BASE_URL", "http://127.0.0.1:9"),
            ("ANALYSIS_API_KEY", "k"),
            ("ANALYSIS_WEBHOOK_SECRET", "whsec_not base64!"),
        ])
        .unwrap_err();
        assert_eq!(e.var, "ANALYSIS_WEBHOOK_SECRET");
        let c = cfg(&[
            ("ANALYSIS_BASE_URL", "http://127.0.0.1:9/"),
            ("ANALYSIS_API_KEY", "key-123"),
            (
                "ANALYSIS_WEBHOOK_SECRET",
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            ),
        ])
        .unwrap()
        .analysis
        .unwrap();
        assert_eq!(c.api_key, "key-123");
        assert!(c.webhook_secret.is_some());
        // Start-up logs the config: the credentials stay out of it.
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("key-123") && !shown.contains("MfKQ"),
            "{shown}"
        );
    }
}
