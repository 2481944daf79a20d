//! `Config::from_lookup` over maps of variables.

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
    assert_eq!(c.database_url.expose(), "sqlite://./data/service.db");
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
    assert_eq!(
        c.webhook_secrets
            .iter()
            .map(|s| s.expose().as_str())
            .collect::<Vec<_>>(),
        ["whsec_new", "whsec_old"]
    );
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
    assert_eq!(c.api_key.expose(), "key-123");
    assert!(c.webhook_secret.is_some());
    // Start-up logs the config: the credentials stay out of it.
    let shown = format!("{c:?}");
    assert!(
        !shown.contains("key-123") && !shown.contains("MfKQ"),
        "{shown}"
    );
}

/// Every credential a fully configured service reads: the variable, its value and the part
/// of it that is secret (a URL's password; a whole key otherwise).
const SECRETS: &[(&str, &str, &str)] = &[
    (
        "DATABASE_URL",
        "postgres://surf:pg-pass-1f9c@db.internal/surf",
        "pg-pass-1f9c",
    ),
    (
        "SECRET_KEY",
        "master-key-6b0d-0123456789abcdef0123",
        "master-key-6b0d",
    ),
    ("CRON_SECRET", "cron-secret-41aa", "cron-secret-41aa"),
    ("SERVICE_ROLE_KEY", "service-role-93c2", "service-role-93c2"),
    (
        "SMTP_URL",
        "smtps://mailer:smtp-pass-77e1@mail.internal:465",
        "smtp-pass-77e1",
    ),
    (
        "REVIEWVIDEO_CLIENT_SECRET",
        "rv-secret-0c5e",
        "rv-secret-0c5e",
    ),
    ("EXPO_ACCESS_TOKEN", "expo-token-58d3", "expo-token-58d3"),
    (
        "TWILIO_AUTH_TOKEN",
        "twilio-token-a2f7",
        "twilio-token-a2f7",
    ),
    ("ANALYSIS_API_KEY", "analysis-key-6e14", "analysis-key-6e14"),
    (
        "ANALYSIS_WEBHOOK_SECRET",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ),
    ("MODEL_API_KEY", "model-key-d8b9", "model-key-d8b9"),
    (
        "HEATSOURCE_CLIENT_SECRET",
        "hs-secret-3a71",
        "hs-secret-3a71",
    ),
    ("SPOTSOURCE_API_KEY", "spot-key-c40b", "spot-key-c40b"),
    ("OPENMETEO_API_KEY", "om-key-19fd", "om-key-19fd"),
    (
        "PAYMENTS_SECRET_KEY",
        "sk_test_pay-5e2a",
        "sk_test_pay-5e2a",
    ),
    (
        "PAYMENTS_WEBHOOK_SECRETS",
        "whsec_rotate-new-7c1d, whsec_rotate-old-b3e8",
        "rotate-",
    ),
    ("S3_SECRET_ACCESS_KEY", "s3-secret-0f6a", "s3-secret-0f6a"),
];

#[test]
fn the_debug_of_a_fully_configured_service_shows_no_secret() {
    let base = "http://127.0.0.1:9";
    let mut vars = vec![
        ("REVIEWVIDEO_BASE_URL", base),
        ("REVIEWVIDEO_CLIENT_ID", "rv-client"),
        ("EXPO_PUSH_URL", base),
        ("TWILIO_BASE_URL", base),
        ("TWILIO_ACCOUNT_SID", "AC1"),
        ("TWILIO_VERIFY_SERVICE_SID", "VA1"),
        ("ANALYSIS_BASE_URL", base),
        ("MODEL_BASE_URL", base),
        ("HEATSOURCE_BASE_URL", base),
        ("HEATSOURCE_CLIENT_ID", "hs-client"),
        ("TOURINDEX_BASE_URL", base),
        ("SPOTSOURCE_BASE_URL", base),
        ("OPENMETEO_MARINE_URL", base),
        ("OPENMETEO_WEATHER_URL", base),
        ("PAYMENTS_BASE_URL", base),
        ("STORAGE_BACKEND", "s3"),
        ("S3_ACCESS_KEY_ID", "AKID"),
    ];
    vars.extend(SECRETS.iter().map(|(var, value, _)| (*var, *value)));
    let c = cfg(&vars).unwrap();
    let sections = [
        c.smtp.is_some(),
        c.reviewvideo.is_some(),
        c.expo.is_some(),
        c.twilio.is_some(),
        c.analysis.is_some(),
        c.model.is_some(),
        c.heatsource.is_some(),
        c.tourindex.is_some(),
        c.spotsource.is_some(),
        c.openmeteo.is_some(),
        c.payments.is_some(),
        matches!(c.storage.backend, crate::storage::StorageBackend::S3(_)),
    ];
    assert!(sections.iter().all(|set| *set), "every section is set");
    for shown in [format!("{c:?}"), format!("{c:#?}")] {
        for (var, _, secret) in SECRETS {
            assert!(!shown.contains(secret), "{var} is shown: {shown}");
        }
        assert!(shown.contains("<redacted>"));
    }
}
