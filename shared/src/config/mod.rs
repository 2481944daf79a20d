//! Configuration from environment variables, every one documented in
//! `docs/configuration.md`; a malformed value stops start-up with a message that names it.
//!
//! [`Config::from_lookup`] reads the service-wide variables itself and hands each provider's
//! to its section (one file each here: `SectionConfig::from_env`, `None` when the section's
//! first variable is unset); object storage is `storage::StorageConfig`. Every credential is a
//! [`Secret`], so the derived `Debug` of the whole configuration, logged at start-up, shows
//! none.

mod analysis;
mod env;
mod expo;
mod fcm;
mod heatsource;
mod model;
mod openmeteo;
mod payments;
mod reviewvideo;
mod secret;
mod smtp;
mod spotsource;
mod tourindex;
mod twilio;
mod webpush;

pub use analysis::AnalysisConfig;
pub use env::ConfigError;
pub use expo::ExpoConfig;
pub use fcm::FcmConfig;
pub use heatsource::HeatsourceConfig;
pub use model::ModelConfig;
pub use openmeteo::OpenMeteoConfig;
pub use payments::PaymentsConfig;
pub use reviewvideo::OAuthProviderConfig;
pub use secret::Secret;
pub use smtp::SmtpConfig;
pub use spotsource::SpotsourceConfig;
pub use tourindex::TourindexConfig;
pub use twilio::TwilioConfig;
pub use webpush::WebPushConfig;

use env::{Env, err, parse_url};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`; a PostgreSQL URL may hold a password.
    pub database_url: Secret,
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
    pub cron_secret: Option<Secret>,
    pub service_role_key: Option<Secret>,
    /// Master secret for signing and encryption (SECRET_KEY, at least 32 bytes).
    pub secret_key: Secret<Vec<u8>>,
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
    /// Twilio Verify and inbound SMS (`TWILIO_BASE_URL` and the three credentials), and SMS
    /// notifications (`TWILIO_API_BASE_URL`, `TWILIO_FROM` or `TWILIO_MESSAGING_SERVICE_SID`).
    pub twilio: Option<TwilioConfig>,
    /// FCM HTTP v1 (`FCM_SERVICE_ACCOUNT_FILE` or `_JSON`, …); unset: FCM tokens are skipped.
    pub fcm: Option<FcmConfig>,
    /// Web Push: the VAPID key and subject, the push services endpoints may point to.
    pub web_push: WebPushConfig,
    /// How long one request to a notification provider (Expo, FCM, a push service, Twilio's
    /// Messages API) may take (`NOTIFY_TIMEOUT_MS`, default 10000); then it is a transient
    /// failure, retried by the job.
    pub notify_timeout: Duration,
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

impl Config {
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }

    /// Builds the configuration from any variable source (tests pass a map). The variables are
    /// read in a fixed order, so of several malformed ones the same is reported each time.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let env = Env(&get);
        let data_dir = PathBuf::from(env.get("DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database_url = database_url(&env, &data_dir)?;
        let database_max_connections = match env.num("DATABASE_MAX_CONNECTIONS", 10)? {
            n @ 1..=10_000 => n as u32,
            _ => return Err(err("DATABASE_MAX_CONNECTIONS", "must be 1 to 10000")),
        };
        let database_acquire_timeout = match env.num("DATABASE_ACQUIRE_TIMEOUT_MS", 10_000)? {
            0 => return Err(err("DATABASE_ACQUIRE_TIMEOUT_MS", "must be at least 1")),
            ms => Duration::from_millis(ms),
        };
        let bind_addr = socket_addr(&env, "BIND_ADDR")?.unwrap_or(([127, 0, 0, 1], 8080).into());
        let embedded_default = database_url.expose().starts_with("sqlite:");
        Ok(Config {
            metrics_addr: socket_addr(&env, "METRICS_ADDR")?,
            public_base_url: match env.get("PUBLIC_BASE_URL") {
                Some(v) => parse_url("PUBLIC_BASE_URL", &v)?,
                None => {
                    Url::parse(&format!("http://{bind_addr}")).expect("socket address is a URL")
                }
            },
            secret_key: secret_key(&env)?,
            signup_mode_default: match env.get("SIGNUP_MODE") {
                Some(v) => SignupMode::parse(&v).map_err(|_| {
                    err(
                        "SIGNUP_MODE",
                        "must be one of open, invite-locked, waitlist",
                    )
                })?,
                None => SignupMode::Open,
            },
            smtp: SmtpConfig::from_env(&env)?,
            reviewvideo: OAuthProviderConfig::from_env(&env)?,
            expo: ExpoConfig::from_env(&env)?,
            twilio: TwilioConfig::from_env(&env)?,
            fcm: FcmConfig::from_env(&env)?,
            notify_timeout: env.timeout_ms("NOTIFY_TIMEOUT_MS", 10_000)?,
            web_push: WebPushConfig::from_env(
                &env,
                &data_dir,
                &env.get("MAIL_FROM")
                    .unwrap_or_else(|| "Surf Coach <no-reply@localhost>".into()),
            )?,
            model: ModelConfig::from_env(&env)?,
            analysis: AnalysisConfig::from_env(&env)?,
            heatsource: HeatsourceConfig::from_env(&env)?,
            tourindex: TourindexConfig::from_env(&env)?,
            spotsource: SpotsourceConfig::from_env(&env)?,
            openmeteo: OpenMeteoConfig::from_env(&env)?,
            forecast_cache_hours: forecast_cache_hours(&env)?,
            athlete_search_timeout: env.timeout_ms("ATHLETE_SEARCH_TIMEOUT_MS", 3_000)?,
            payments: PaymentsConfig::from_env(&env)?,
            video_allowed_hosts: hosts(&env, "VIDEO_ALLOWED_HOSTS")?,
            video_allowed_private_hosts: hosts(&env, "VIDEO_ALLOWED_PRIVATE_HOSTS")?,
            storage: crate::storage::StorageConfig::from_lookup(&get, &data_dir)?,
            cron_secret: env.secret("CRON_SECRET"),
            service_role_key: env.secret("SERVICE_ROLE_KEY"),
            log_json: match env.get("LOG_FORMAT").as_deref() {
                None | Some("text") => false,
                Some("json") => true,
                Some(_) => return Err(err("LOG_FORMAT", "must be text or json")),
            },
            request_timeout: env.secs("REQUEST_TIMEOUT_SECS", 30)?,
            body_limit_bytes: env.num("BODY_LIMIT_BYTES", 1 << 20)? as usize,
            auth_cache_ttl: Duration::from_millis(env.num("AUTH_CACHE_TTL_MS", 5000)?),
            login_max_failures: env.num("LOGIN_MAX_FAILURES", 10)? as u32,
            login_window: env.secs("LOGIN_WINDOW_SECS", 900)?,
            mail_from: env
                .get("MAIL_FROM")
                .unwrap_or_else(|| "Surf Coach <no-reply@localhost>".into()),
            embedded_worker: env.flag("EMBEDDED_WORKER", embedded_default)?,
            upload_max_bytes: env.num("UPLOAD_MAX_BYTES", 4 << 30)?,
            upload_expiry: Duration::from_secs(3600 * env.num("UPLOAD_EXPIRY_HOURS", 24)?.max(1)),
            bind_addr,
            database_url,
            database_max_connections,
            database_acquire_timeout,
            data_dir,
        })
    }

    /// The embedded default needs no set-up: without SECRET_KEY, a random key is generated once
    /// and kept in `DATA_DIR/secret.key` (mode 0600) so sessions survive restarts.
    pub fn ensure_secret_key(&mut self) -> std::io::Result<()> {
        if !self.secret_key.expose().is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.data_dir)?;
        let path = self.data_dir.join("secret.key");
        match std::fs::read(&path) {
            Ok(k) if k.len() >= 32 => self.secret_key = Secret::new(k),
            _ => {
                let k = hex::encode(crate::crypto::random_bytes(32)).into_bytes();
                write_private(&path, &k)?;
                self.secret_key = Secret::new(k);
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

/// Writes a new private file; `AlreadyExists` when another process made it first.
#[cfg(unix)]
fn write_new_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(data)
}

#[cfg(not(unix))]
fn write_new_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(data)
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, data)
}

fn database_url(env: &Env, data_dir: &std::path::Path) -> Result<Secret, ConfigError> {
    let url = env
        .get("DATABASE_URL")
        .unwrap_or_else(|| format!("sqlite://{}/service.db", data_dir.display()));
    if !(url.starts_with("sqlite:")
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://"))
    {
        return Err(err(
            "DATABASE_URL",
            "must start with sqlite: or postgres:// (e.g. sqlite://./data/service.db)",
        ));
    }
    Ok(Secret::from(url))
}

fn socket_addr(env: &Env, var: &'static str) -> Result<Option<SocketAddr>, ConfigError> {
    env.get(var)
        .map(|v| v.parse())
        .transpose()
        .map_err(|e| err(var, format!("expected host:port ({e})")))
}

/// `SECRET_KEY`; unset, it stays empty until [`Config::ensure_secret_key`] fills it.
fn secret_key(env: &Env) -> Result<Secret<Vec<u8>>, ConfigError> {
    match env.get("SECRET_KEY") {
        Some(v) if v.len() >= 32 => Ok(Secret::new(v.into_bytes())),
        Some(_) => Err(err("SECRET_KEY", "must be at least 32 characters")),
        None => Ok(Secret::default()),
    }
}

fn forecast_cache_hours(env: &Env) -> Result<u32, ConfigError> {
    let hours = env.num("FORECAST_CACHE_HOURS", 3)? as u32;
    if hours == 0 || 24 % hours != 0 {
        return Err(err(
            "FORECAST_CACHE_HOURS",
            "must divide 24 (1, 2, 3, 4, 6, 8, 12 or 24)",
        ));
    }
    Ok(hours)
}

/// A host list for the video proxy, normalised (`video::ssrf`).
fn hosts(env: &Env, var: &'static str) -> Result<Vec<String>, ConfigError> {
    let rules = crate::video::ssrf::parse_host_list(&env.get(var).unwrap_or_default())
        .map_err(|m| err(var, m))?;
    Ok(rules.iter().map(|r| r.to_entry()).collect())
}

#[cfg(test)]
mod tests;
