//! The competition adapter (`shared::providers::heatsource`) against the fake
//! (`testkit::heatsource`): every query, the client-credentials token and its cache, and every
//! failure mode.

use serde_json::json;
use shared::config::HeatsourceConfig;
use shared::providers::ProviderError;
use shared::providers::heatsource::Heatsource;
use std::time::{Duration, Instant};
use testkit::heatsource::{Failure, FakeHeatsource};

const ID: &str = "hs-client";
const SECRET: &str = "hs-secret";

fn adapter_with(fake: &FakeHeatsource, creds: Option<(&str, &str)>) -> Heatsource {
    Heatsource::new(
        HeatsourceConfig {
            base_url: fake.base_url().parse().unwrap(),
            client_id: creds.map(|c| c.0.to_string()),
            client_secret: creds.map(|c| c.1.into()),
            timeout: Duration::from_millis(300),
            cache_ttl: Duration::from_secs(600),
            organisations: Vec::new(),
            rate_per_sec: 1000,
        },
        reqwest::Client::new(),
    )
}

fn adapter(fake: &FakeHeatsource) -> Heatsource {
    adapter_with(fake, Some((ID, SECRET)))
}

#[tokio::test]
async fn an_organisation_comes_with_its_events_and_series() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    let org = hs.organisation("wsl").await.unwrap().unwrap();
    assert_eq!(org.name, "World Surf League");
    assert_eq!(org.events.len(), 2);
    assert_eq!(org.series[0].id, "100");
    assert_eq!(org.series[0].rankings_divisions.len(), 2);
    assert_eq!(
        hs.organisation("nobody").await.unwrap(),
        None,
        "null: absent"
    );

    let r = &fake.requests()[0];
    assert_eq!(r.field, "organisationByShortName");
    assert_eq!(r.operation_name.as_deref(), Some("Organisation"));
    assert_eq!(r.variables, json!({ "shortName": "wsl" }));
    assert_eq!(r.token, None, "public data goes without a token");
    assert_eq!(fake.token_requests(), 0);
}

#[tokio::test]
async fn series_divisions_and_rankings_are_read() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    let s = hs.series("100").await.unwrap().unwrap();
    assert_eq!(s.name, "Championship Tour 2026");
    assert_eq!(
        s.rankings_divisions
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["Men", "Women"]
    );
    let r = hs.rankings("100", "10").await.unwrap().unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!((r[2].place, r[2].points), (Some(3), Some(6085.5)));
    assert_eq!(r[0].athlete.name, "Kai Lenny");
    assert_eq!(
        fake.requests()[1].variables,
        json!({ "id": "100", "divisionId": "10" })
    );
    assert_eq!(hs.series("999").await.unwrap(), None);
    assert_eq!(hs.rankings("999", "10").await.unwrap(), None);
}

#[tokio::test]
async fn an_event_comes_with_heats_results_and_competitors() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    let e = hs.event("200").await.unwrap().unwrap();
    assert_eq!(e.name, "Bells Beach Pro");
    assert_eq!(e.organisation.unwrap().short_name.as_deref(), Some("wsl"));
    assert_eq!(e.series.unwrap().id, "100");
    let d = &e.event_divisions[0];
    assert_eq!(d.division.name, "Men");
    let heat = &d.heats[0];
    assert_eq!(heat.round.as_deref(), Some("Final"));
    assert_eq!(heat.result[0].total, Some(17.5));
    assert_eq!(heat.competitors[1].athlete.name, "Jack Robinson");
    assert_eq!(d.ranking[1].athlete_id, "a2");
    assert_eq!(hs.event("404").await.unwrap(), None);
}

#[tokio::test]
async fn athlete_queries_carry_one_cached_client_credentials_token() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    let found = hs.search_athletes("kai", 10).await.unwrap();
    assert_eq!(
        found.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["a1", "a5"]
    );
    assert_eq!(hs.search_athletes("kai", 1).await.unwrap().len(), 1);
    let a = hs.athlete("a2").await.unwrap().unwrap();
    assert_eq!(
        (a.name.as_str(), a.nationality.as_deref()),
        ("Jack Robinson", Some("AU"))
    );
    assert_eq!(hs.athlete("nope").await.unwrap(), None);
    assert_eq!(fake.token_requests(), 1, "one token for four queries");
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.token.as_deref() == Some("hs_token_1"))
    );

    // A clone shares the token.
    hs.clone().athlete("a1").await.unwrap();
    assert_eq!(fake.token_requests(), 1);
}

#[tokio::test]
async fn a_token_about_to_expire_or_revoked_is_replaced() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    fake.token_lifetime(2);
    let hs = adapter(&fake);
    hs.athlete("a1").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    fake.token_lifetime(3600);
    hs.athlete("a1").await.unwrap();
    assert_eq!(fake.token_requests(), 2, "renewed before it expires");

    hs.athlete("a1").await.unwrap();
    assert_eq!(fake.token_requests(), 2, "a live token is reused");
    fake.revoke_tokens();
    let a = hs.athlete("a1").await.unwrap();
    assert!(
        a.is_some(),
        "refused once, then sent again with a new token"
    );
    assert_eq!(fake.token_requests(), 3);
    let last = fake.requests();
    assert_eq!(last[last.len() - 1].token.as_deref(), Some("hs_token_3"));
}

#[tokio::test]
async fn athlete_queries_without_credentials_are_not_configured() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter_with(&fake, None);
    let e = hs.search_athletes("kai", 10).await.unwrap_err();
    assert!(matches!(e, ProviderError::NotConfigured(_)), "{e:?}");
    assert!(fake.requests().is_empty(), "nothing sent");
    // Public data still works.
    assert!(hs.event("200").await.unwrap().is_some());

    let wrong = adapter_with(&fake, Some((ID, "wrong")));
    let e = wrong.athlete("a1").await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 401, .. }),
        "{e:?}"
    );
    assert!(e.is_permanent());
    assert_eq!(fake.token_requests(), 1, "a refused client is not retried");
}

#[tokio::test]
async fn graphql_errors_are_typed_provider_errors() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    fake.fail(&[Failure::Graphql("INTERNAL_SERVER_ERROR")]);
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(e.to_string().contains("injected GraphQL error"), "{e}");

    fake.fail(&[Failure::Graphql("BAD_USER_INPUT")]);
    let e = hs.event("200").await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 400, .. }),
        "{e:?}"
    );
    assert!(e.is_permanent());

    fake.fail(&[Failure::Graphql("FORBIDDEN")]);
    let e = hs.athlete("a1").await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 403, .. }),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_429_is_retried_then_surfaces_as_rate_limiting() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    fake.fail(&[Failure::Status(429)]);
    assert!(hs.event("200").await.unwrap().is_some(), "retried once");
    assert_eq!(fake.count("event"), 2);

    fake.fail(&[
        Failure::Status(429),
        Failure::Status(429),
        Failure::Status(429),
    ]);
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::RateLimited { .. }), "{e:?}");
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
    assert_eq!(fake.count("event"), 5, "three attempts");
}

#[tokio::test]
async fn a_500_a_hang_and_a_malformed_body_are_unavailable_or_timeouts() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    fake.fail(&[Failure::Status(500)]);
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(!e.is_permanent());

    fake.fail(&[Failure::Malformed]);
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");

    fake.fail(&[Failure::Hang, Failure::Hang, Failure::Hang]);
    let started = Instant::now();
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::Timeout(_)), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(5));

    fake.fail(&[Failure::Hang]);
    assert!(
        hs.event("200").await.unwrap().is_some(),
        "one slow answer is retried"
    );
}

#[tokio::test]
async fn a_field_changed_between_calls_is_read_anew_and_a_wrong_shape_is_refused() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let hs = adapter(&fake);
    assert_eq!(
        hs.event("200").await.unwrap().unwrap().status.as_deref(),
        Some("results_published")
    );
    fake.set("/events/200/status", json!("cancelled"));
    assert_eq!(
        hs.event("200").await.unwrap().unwrap().status.as_deref(),
        Some("cancelled")
    );

    fake.set("/events/200/eventDivisions", json!("not a list"));
    let e = hs.event("200").await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(e.to_string().contains("unexpected shape"), "{e}");
}

#[tokio::test]
async fn an_unreachable_provider_is_unavailable() {
    let fake = FakeHeatsource::start(ID, SECRET).await;
    let mut cfg_url: url::Url = fake.base_url().parse().unwrap();
    drop(fake);
    cfg_url.set_port(Some(9)).unwrap();
    let hs = Heatsource::new(
        HeatsourceConfig {
            base_url: cfg_url,
            client_id: None,
            client_secret: None,
            timeout: Duration::from_millis(300),
            cache_ttl: Duration::ZERO,
            organisations: Vec::new(),
            rate_per_sec: 1000,
        },
        reqwest::Client::new(),
    );
    let e = hs.organisation("wsl").await.unwrap_err();
    assert!(
        matches!(
            e,
            ProviderError::Unavailable { .. } | ProviderError::Timeout(_)
        ),
        "{e:?}"
    );
}
