//! What every handler can reach: configuration, the database, keys, mail and provider clients.

use axum::http::HeaderValue;
use shared::config::Config;
use shared::crypto::Keys;
use shared::db::Db;
use shared::domain::billing::events::EventStore;
use shared::mail::Mailer;
use shared::providers::heatsource::Heatsource;
use shared::providers::openmeteo::OpenMeteo;
use shared::providers::reviewvideo::ReviewVideo;
use shared::providers::spotsource::Spotsource;
use shared::providers::tourindex::Tourindex;
use shared::providers::twilio::Twilio;
use shared::storage::{Storage, Store};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub cfg: Config,
    pub db: Db,
    pub keys: Keys,
    pub mailer: Mailer,
    pub reviewvideo: Option<ReviewVideo>,
    pub twilio: Option<Twilio>,
    /// The competition provider; one per process, so its OAuth token is shared.
    pub heatsource: Option<Heatsource>,
    /// The tour index; one per process, so its pacing is shared.
    pub tourindex: Option<Tourindex>,
    /// The surf-spot provider: spot search, spots, the primary forecast.
    pub spotsource: Option<Spotsource>,
    /// The fallback forecast provider; one per process, so its pacing is shared.
    pub openmeteo: Option<OpenMeteo>,
    pub storage: Storage,
    /// Where the payment webhook stores verified deliveries: on SQLite group-committed, so
    /// concurrent deliveries share one transaction (one turn at the write gate); on PostgreSQL
    /// one transaction per delivery (see [`Options::webhook_group_commit`]).
    pub payment_events: EventStore,
    /// The scheduled tasks and their effective schedules (`SCHEDULE_*`), read from the worker's
    /// environment once at start-up; null when that configuration is invalid.
    pub schedules: serde_json::Value,
    /// Verified sign-ins, so most signed-in requests skip the token, user and membership reads
    /// (`auth::cache`: what invalidates an entry, and the bound across processes).
    pub auth_cache: crate::auth::AuthCache,
    /// The pages' policy when the object store's signed URLs are of another origin
    /// ([`crate::areas::pages::policy_for_store`]); `None` when they are this site's.
    pub page_policy: Option<HeaderValue>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Inner {
    /// The competition providers, for `shared::domain::competition`.
    pub fn providers(&self) -> shared::domain::competition::roster::Providers<'_> {
        shared::domain::competition::roster::Providers {
            heatsource: self.heatsource.as_ref(),
            tourindex: self.tourindex.as_ref(),
        }
    }

    /// The forecast providers and cache window, for `shared::domain::forecasts`.
    pub fn forecasters(&self) -> shared::domain::forecasts::Forecasters<'_> {
        shared::domain::forecasts::Forecasters {
            primary: self.spotsource.as_ref(),
            fallback: self.openmeteo.as_ref(),
            window_hours: self.cfg.forecast_cache_hours,
        }
    }
}

/// Start-up choices that only benchmarks change.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Group-commit the payment webhook's stores: `None` is the service's choice, on SQLite
    /// only (one writer: concurrent deliveries queue for it anyway, so sharing its turns cuts the
    /// wait); PostgreSQL runs concurrent transactions side by side, and one flushing task
    /// serialising them made its 16-sender p99 worse (`scripts/bench-webhook`: 29–40 ms
    /// without, 84–129 ms with). `bench_webhook` sets it both ways on both databases.
    pub webhook_group_commit: Option<bool>,
    /// The auth cache does not hear this process's changes, as the cache of another process
    /// would not: tests of the cross-process bound build a second state on the same database
    /// with it.
    pub auth_cache_isolated: bool,
}

impl AppState {
    /// Builds the state from configuration; `cfg.secret_key` must be set (see
    /// `Config::ensure_secret_key`).
    pub async fn new(cfg: Config, db: Db) -> anyhow::Result<AppState> {
        Self::with_options(cfg, db, Options::default()).await
    }

    /// [`AppState::new`] with `options`.
    pub async fn with_options(cfg: Config, db: Db, options: Options) -> anyhow::Result<AppState> {
        anyhow::ensure!(!cfg.secret_key.expose().is_empty(), "secret key missing");
        let http = shared::providers::http::client();
        let mailer = Mailer::from_config(&cfg)?;
        let reviewvideo = cfg
            .reviewvideo
            .clone()
            .map(|c| ReviewVideo::new(c, http.clone()));
        let twilio = cfg.twilio.clone().map(|c| Twilio::new(c, http.clone()));
        let heatsource = cfg
            .heatsource
            .clone()
            .map(|c| Heatsource::new(c, http.clone()));
        let tourindex = cfg
            .tourindex
            .clone()
            .map(|c| Tourindex::new(c, http.clone()));
        let spotsource = cfg
            .spotsource
            .clone()
            .map(|c| Spotsource::new(c, http.clone()));
        let openmeteo = cfg
            .openmeteo
            .clone()
            .map(|c| OpenMeteo::new(c, http.clone()));
        let storage = Storage::new(&cfg.storage).await?;
        let keys = Keys::new(cfg.secret_key.expose());
        let page_policy = store_origin(&storage, &keys, &cfg)
            .await?
            .map(|o| HeaderValue::from_str(&crate::areas::pages::policy_for_store(&o)))
            .transpose()?;
        let schedules = schedules(db.dialect() == shared::db::Dialect::Sqlite);
        let group_commit = options
            .webhook_group_commit
            .unwrap_or(db.dialect() == shared::db::Dialect::Sqlite);
        let payment_events = if group_commit {
            EventStore::group_commit(db.clone())
        } else {
            EventStore::one_per_delivery(db.clone())
        };
        let auth_cache =
            crate::auth::AuthCache::start(cfg.auth_cache_ttl, &db, options.auth_cache_isolated);
        Ok(AppState(Arc::new(Inner {
            storage,
            keys,
            cfg,
            db,
            mailer,
            reviewvideo,
            twilio,
            heatsource,
            tourindex,
            spotsource,
            openmeteo,
            payment_events,
            schedules,
            auth_cache,
            page_policy,
        })))
    }
}

/// The origin of the URLs the object store signs for downloads (photos, voice notes), when it
/// is not this site's (S3); a presigned URL is made locally, without a request.
async fn store_origin(
    storage: &Storage,
    keys: &Keys,
    cfg: &Config,
) -> anyhow::Result<Option<String>> {
    let base = cfg.public_base_url.as_str().trim_end_matches('/');
    let probe = storage
        .presign_get(
            Store::RawUploads,
            "origin",
            Duration::from_secs(60),
            keys,
            base,
        )
        .await?;
    let origin = url::Url::parse(&probe)?.origin().ascii_serialization();
    let ours = cfg.public_base_url.origin().ascii_serialization();
    Ok((origin != ours).then_some(origin))
}

/// Every scheduled task's effective schedule as the worker configuration gives it.
fn schedules(sqlite: bool) -> serde_json::Value {
    match worker::config::WorkerConfig::from_env(sqlite) {
        Ok(w) => serde_json::Value::Object(
            worker::scheduler::effective(&w)
                .into_iter()
                .map(|(t, e)| (t.to_string(), serde_json::json!(e)))
                .collect(),
        ),
        Err(_) => serde_json::Value::Null,
    }
}
