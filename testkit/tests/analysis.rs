//! The analysis adapter (`shared::providers::analysis`) against the fake backend
//! (`testkit::analysis`): both follow `docs/providers/analysis-backend.md`, so these tests check
//! each against the other.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use sha2::{Digest, Sha256};
use shared::config::AnalysisConfig;
use shared::providers::ProviderError;
use shared::providers::analysis::{Analysis, AnalysisJob, AnalysisState, SubmitRequest};
use shared::providers::webhooks::{WebhookError, WebhookHeaders, verify_webhook};
use testkit::analysis::{FakeAnalysis, FakeSource, Outcome, TEST_WEBHOOK_SECRET};

const KEY: &str = "test-api-key";

fn source_bytes() -> Vec<u8> {
    (0..12_345u32).map(|i| (i * 7 % 251) as u8).collect()
}

struct Setup {
    fake: FakeAnalysis,
    source: FakeSource,
    analysis: Analysis,
}

async fn setup() -> Setup {
    let fake = FakeAnalysis::start(KEY, TEST_WEBHOOK_SECRET).await;
    let source = FakeSource::start(source_bytes()).await;
    let analysis = adapter(&fake, KEY);
    Setup {
        fake,
        source,
        analysis,
    }
}

fn adapter(fake: &FakeAnalysis, key: &str) -> Analysis {
    let cfg = AnalysisConfig {
        base_url: fake.base_url().parse().unwrap(),
        api_key: key.into(),
        webhook_secret: Some(TEST_WEBHOOK_SECRET.into()),
    };
    Analysis::new(cfg, shared::providers::http::client()).with_timeout(Duration::from_millis(300))
}

fn request(s: &Setup, token: &str) -> SubmitRequest {
    SubmitRequest {
        source_url: s.source.url(),
        client_request_token: token.into(),
        webhook_url: None,
    }
}

/// Polls every 10 ms until the job ends; returns it and every progress value seen.
async fn until_terminal(a: &Analysis, id: &str) -> (AnalysisJob, Vec<(AnalysisState, u8)>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    loop {
        let job = a.get(id).await.unwrap();
        seen.push((job.state, job.progress));
        if job.state.is_terminal() {
            return (job, seen);
        }
        assert!(Instant::now() < deadline, "job {id} never ended: {seen:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[tokio::test]
async fn a_submitted_clip_is_polled_to_success_with_rising_progress() {
    let s = setup().await;
    let job = s.analysis.submit(&request(&s, "clip-1")).await.unwrap();
    assert_eq!(job.state, AnalysisState::Queued);
    assert_eq!(job.progress, 0);

    let (done, seen) = until_terminal(&s.analysis, &job.id).await;
    assert_eq!(done.state, AnalysisState::Succeeded);
    assert_eq!(done.progress, 100);
    assert!(
        seen.windows(2).all(|w| w[0].1 <= w[1].1),
        "progress went down: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(st, p)| *st == AnalysisState::Running && *p > 0 && *p < 100),
        "no intermediate progress seen: {seen:?}"
    );

    // The fake fetched our source through its URL, once, completely.
    let sub = &s.fake.submits()[0];
    assert_eq!(sub.status, 201);
    assert_eq!(sub.fetch_status, Some(200));
    assert_eq!(sub.bytes_fetched, source_bytes().len() as u64);
    assert_eq!(s.source.hits(), 1);

    // The result files are downloadable, sized and hashed as the result says.
    let r = done.result.unwrap();
    let http = reqwest::Client::new();
    let video = http.get(&r.video.url).send().await.unwrap();
    assert_eq!(video.status(), 200);
    let video = video.bytes().await.unwrap();
    assert_eq!(&video[..], &source_bytes()[..]);
    assert_eq!(r.video.size, video.len() as u64);
    assert_eq!(r.video.sha256.as_deref(), Some(sha256_hex(&video).as_str()));
    assert_eq!(r.video.content_type, "video/mp4");
    let overlay = http.get(&r.overlay.url).send().await.unwrap();
    let overlay = overlay.bytes().await.unwrap();
    assert_eq!(r.overlay.size, overlay.len() as u64);
    assert_eq!(
        r.overlay.sha256.as_deref(),
        Some(sha256_hex(&overlay).as_str())
    );
    let doc: serde_json::Value = serde_json::from_slice(&overlay).unwrap();
    assert_eq!(doc["analysis_id"], done.id.as_str());
    // A tampered file URL is refused: the URLs are signed.
    let tampered = r.video.url.replace("sig=", "sig=0");
    assert_eq!(http.get(&tampered).send().await.unwrap().status(), 403);

    // The stats are the fake's deterministic ones, read back unchanged.
    assert_eq!(
        serde_json::to_value(&r.stats).unwrap(),
        FakeAnalysis::expected_stats(source_bytes().len() as u64)
    );
    assert_eq!(r.stats.rides.len(), 2);
    assert_eq!(r.stats.maneuvers.len(), 3);
    assert_eq!(r.stats.wave_count, 2);
}

#[tokio::test]
async fn the_same_token_returns_the_same_job_whatever_the_body() {
    let s = setup().await;
    let first = s.analysis.submit(&request(&s, "clip-2")).await.unwrap();
    let other = FakeSource::start(b"other".to_vec()).await;
    let again = s
        .analysis
        .submit(&SubmitRequest {
            source_url: other.url(),
            client_request_token: "clip-2".into(),
            webhook_url: Some("http://127.0.0.1:9/hook".into()),
        })
        .await
        .unwrap();
    assert_eq!(again.id, first.id);
    let subs = s.fake.submits();
    assert_eq!(
        subs.iter().map(|r| r.status).collect::<Vec<_>>(),
        [201, 200]
    );
    assert_eq!(s.fake.jobs().len(), 1);
    let (done, _) = until_terminal(&s.analysis, &first.id).await;
    // Still the first source, and no webhook to the second body's URL.
    assert_eq!(done.result.unwrap().video.size, source_bytes().len() as u64);
    assert_eq!(other.hits(), 0);
    assert!(s.fake.webhooks_sent().is_empty());
    // A terminal job is returned as it is for its token.
    let later = s.analysis.submit(&request(&s, "clip-2")).await.unwrap();
    assert_eq!(later.state, AnalysisState::Succeeded);
    assert_eq!(later.id, first.id);
}

#[tokio::test]
async fn client_errors_are_rejected_and_permanent() {
    let s = setup().await;
    s.fake.fail_next_submits(422, 1);
    let e = s.analysis.submit(&request(&s, "clip-3")).await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 422, .. }),
        "{e}"
    );
    assert!(e.is_permanent());
    assert!(s.fake.jobs().is_empty(), "a refused submit creates nothing");

    // The fake's own validation, with the error body's code in the message.
    let mut bad = request(&s, "clip 3 has spaces");
    let e = s.analysis.submit(&bad).await.unwrap_err();
    assert!(e.to_string().contains("invalid_token"), "{e}");
    bad.client_request_token = "clip-3".into();
    bad.source_url = "ftp://example.com/x".into();
    let e = s.analysis.submit(&bad).await.unwrap_err();
    assert!(e.to_string().contains("invalid_source_url"), "{e}");

    let e = adapter(&s.fake, "wrong-key")
        .submit(&request(&s, "clip-3"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 401, .. }),
        "{e}"
    );
    let e = s.analysis.get("an_missing").await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 404, .. }),
        "{e}"
    );
    let e = s.analysis.cancel("an_missing").await.unwrap_err();
    assert!(e.is_permanent(), "{e}");
}

#[tokio::test]
async fn server_errors_are_unavailable_and_transient() {
    let s = setup().await;
    // 500 is not one of the statuses the base retries: one attempt, then the error.
    s.fake.fail_next_submits(500, 1);
    let e = s.analysis.submit(&request(&s, "clip-4")).await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e}");
    assert!(!e.is_permanent());

    // A submit retried after a 5xx lands on one job.
    let job = s.analysis.submit(&request(&s, "clip-4")).await.unwrap();
    // A single 503 on a poll is absorbed by the base's retry; three are not.
    s.fake.fail_next_polls(503, 1);
    assert_eq!(s.analysis.get(&job.id).await.unwrap().id, job.id);
    s.fake.fail_next_polls(503, 3);
    let e = s.analysis.get(&job.id).await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e}");
    assert_eq!(s.fake.jobs().len(), 1);
    // 409 `request_in_progress` is the one 4xx the protocol says to retry.
    s.fake.fail_next_submits(409, 1);
    let e = s.analysis.submit(&request(&s, "clip-4")).await.unwrap_err();
    assert!(!e.is_permanent(), "{e}");
    assert!(e.to_string().contains("request_in_progress"), "{e}");
}

#[tokio::test]
async fn rate_limits_are_transient_and_carry_retry_after() {
    let s = setup().await;
    s.fake.fail_next_submits(429, 3);
    let e = s.analysis.submit(&request(&s, "clip-5")).await.unwrap_err();
    assert!(matches!(e, ProviderError::RateLimited { .. }), "{e}");
    assert!(!e.is_permanent());
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
}

#[tokio::test]
async fn a_backend_that_never_answers_times_out() {
    let s = setup().await;
    let job = s.analysis.submit(&request(&s, "clip-6")).await.unwrap();
    s.fake.hang_next_polls(3);
    let started = Instant::now();
    let e = s.analysis.get(&job.id).await.unwrap_err();
    assert!(matches!(e, ProviderError::Timeout(_)), "{e}");
    assert!(!e.is_permanent());
    // Three attempts of 300 ms and two pauses, not the 20 s default.
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(s.fake.polls(), 3);
    // One hang alone is absorbed by the retry.
    s.fake.hang_next_polls(1);
    assert_eq!(s.analysis.get(&job.id).await.unwrap().id, job.id);
}

#[tokio::test]
async fn cancel_stops_a_job_and_leaves_ended_ones_alone() {
    let s = setup().await;
    s.fake
        .set_timing(Duration::from_millis(20), Duration::from_secs(30), 3);
    let job = s.analysis.submit(&request(&s, "clip-7")).await.unwrap();
    let canceled = s.analysis.cancel(&job.id).await.unwrap();
    assert_eq!(canceled.state, AnalysisState::Canceled);
    assert!(canceled.result.is_none());
    // It stays canceled: the run does not resume.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let again = s.analysis.cancel(&job.id).await.unwrap();
    assert_eq!(again.state, AnalysisState::Canceled);
    assert_eq!(s.analysis.get(&job.id).await.unwrap(), again);
    assert_eq!(s.fake.cancel_requests(), [job.id.clone(), job.id.clone()]);

    // Cancelling a succeeded job returns it unchanged, result included.
    s.fake
        .set_timing(Duration::from_millis(5), Duration::from_millis(20), 2);
    let job = s.analysis.submit(&request(&s, "clip-7b")).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;
    assert_eq!(
        unsigned(s.analysis.cancel(&job.id).await.unwrap()),
        unsigned(done)
    );
}

/// `job` with its result files' URLs cut before their query: each read signs them afresh, with
/// an expiry counted from that second, so two reads across a second's edge differ there.
fn unsigned(mut job: AnalysisJob) -> AnalysisJob {
    if let Some(r) = &mut job.result {
        for f in [&mut r.video, &mut r.overlay] {
            let end = f.url.find('?').unwrap_or(f.url.len());
            f.url.truncate(end);
        }
    }
    job
}

#[tokio::test]
async fn a_failure_outcome_fails_the_job_with_its_code() {
    let s = setup().await;
    s.fake.set_outcome(Outcome::Fail {
        code: "analysis_failed".into(),
        message: "no surfer found".into(),
    });
    let job = s.analysis.submit(&request(&s, "clip-8")).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;
    assert_eq!(done.state, AnalysisState::Failed);
    assert!(done.result.is_none());
    let err = done.error.unwrap();
    assert_eq!(err.code, "analysis_failed");
    assert_eq!(err.message, "no surfer found");
}

#[tokio::test]
async fn an_unreachable_source_fails_the_job() {
    let s = setup().await;
    s.source.set_status(403); // e.g. an expired signed URL
    let job = s.analysis.submit(&request(&s, "clip-9")).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;
    assert_eq!(done.state, AnalysisState::Failed);
    assert_eq!(done.error.unwrap().code, "source_unreachable");
    assert_eq!(s.fake.submits()[0].fetch_status, Some(403));
}

#[tokio::test]
async fn a_corrupt_checksum_is_detectable() {
    let s = setup().await;
    s.fake.corrupt_result_sha256();
    let job = s.analysis.submit(&request(&s, "clip-10")).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;
    let video = done.result.unwrap().video;
    let bytes = reqwest::get(&video.url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(video.size, bytes.len() as u64, "the size is still right");
    assert_ne!(video.sha256.unwrap(), sha256_hex(&bytes));
}

/// A webhook receiver answering `statuses` in turn (then 204), keeping each request.
async fn receiver(statuses: Vec<u16>) -> (String, Arc<Mutex<Vec<(HeaderMap, Bytes)>>>) {
    let got: Arc<Mutex<Vec<(HeaderMap, Bytes)>>> = Arc::default();
    let g = Arc::clone(&got);
    let app = Router::new().route(
        "/hook",
        post(move |headers: HeaderMap, body: Bytes| {
            let g = Arc::clone(&g);
            let statuses = statuses.clone();
            async move {
                let mut g = g.lock().unwrap();
                let n = g.len();
                g.push((headers, body));
                StatusCode::from_u16(statuses.get(n).copied().unwrap_or(204)).unwrap()
            }
        }),
    );
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", l.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    (url, got)
}

#[tokio::test]
async fn the_completion_webhook_is_signed_retried_and_verifies() {
    let s = setup().await;
    let (url, got) = receiver(vec![500]).await;
    let mut req = request(&s, "clip-11");
    req.webhook_url = Some(url.clone());
    let job = s.analysis.submit(&req).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;

    let deadline = Instant::now() + Duration::from_secs(5);
    // The receiver sees the retry before the fake records its answer: wait for both.
    while got.lock().unwrap().len() < 2 || s.fake.webhooks_sent().len() < 2 {
        assert!(Instant::now() < deadline, "webhook not retried");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let sent = s.fake.webhooks_sent();
    assert_eq!(
        sent.iter().map(|d| d.status).collect::<Vec<_>>(),
        [Some(500), Some(204)]
    );
    assert_eq!(sent[0].webhook_id, sent[1].webhook_id, "one event, retried");
    assert!(sent.iter().all(|d| d.url == url));

    let (headers, body) = got.lock().unwrap()[1].clone();
    let now = chrono::Utc::now().timestamp();
    let ev = verify_webhook(
        TEST_WEBHOOK_SECRET,
        WebhookHeaders::from_map(&headers),
        &body,
        now,
    )
    .unwrap();
    assert_eq!(ev.event_type, "analysis.completed");
    assert_eq!(ev.id, sent[1].webhook_id);
    let hook = s
        .analysis
        .verify_webhook(WebhookHeaders::from_map(&headers), &body, now)
        .unwrap();
    assert_eq!(hook.job.id, done.id);
    assert_eq!(hook.job.state, AnalysisState::Succeeded);
    assert_eq!(
        hook.job.result.as_ref().unwrap().stats,
        done.result.unwrap().stats
    );
    // The same delivery replayed 10 minutes later, or with another body, is refused.
    assert!(matches!(
        s.analysis
            .verify_webhook(WebhookHeaders::from_map(&headers), &body, now + 600),
        Err(WebhookError::TimestampTooOld(_))
    ));
    let mut forged = body.to_vec();
    forged.extend_from_slice(b" ");
    assert_eq!(
        s.analysis
            .verify_webhook(WebhookHeaders::from_map(&headers), &forged, now),
        Err(WebhookError::SignatureMismatch)
    );
}

#[tokio::test]
async fn a_canceled_job_also_notifies_and_disabled_webhooks_leave_polling() {
    let s = setup().await;
    let (url, got) = receiver(vec![]).await;
    s.fake
        .set_timing(Duration::from_millis(10), Duration::from_secs(30), 2);
    let mut req = request(&s, "clip-12");
    req.webhook_url = Some(url.clone());
    let job = s.analysis.submit(&req).await.unwrap();
    s.analysis.cancel(&job.id).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "no webhook for the cancel");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (headers, body) = got.lock().unwrap()[0].clone();
    let hook = s
        .analysis
        .verify_webhook(
            WebhookHeaders::from_map(&headers),
            &body,
            chrono::Utc::now().timestamp(),
        )
        .unwrap();
    assert_eq!(hook.job.state, AnalysisState::Canceled);

    s.fake.disable_webhooks();
    s.fake
        .set_timing(Duration::from_millis(10), Duration::from_millis(40), 2);
    req.client_request_token = "clip-12b".into();
    let job = s.analysis.submit(&req).await.unwrap();
    let (done, _) = until_terminal(&s.analysis, &job.id).await;
    assert_eq!(done.state, AnalysisState::Succeeded);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(got.lock().unwrap().len(), 1, "only the cancel's webhook");
}

#[tokio::test]
async fn an_unconfigured_backend_is_a_clear_error() {
    let e = Analysis::from_config(None, shared::providers::http::client()).unwrap_err();
    assert!(matches!(e, ProviderError::NotConfigured(_)), "{e}");
    assert!(e.is_permanent());
    assert_eq!(e.to_string(), "analysis backend is not configured");

    // Configured without a webhook secret: every webhook is refused, polling still works.
    let fake = FakeAnalysis::start(KEY, TEST_WEBHOOK_SECRET).await;
    let cfg = AnalysisConfig {
        base_url: fake.base_url().parse().unwrap(),
        api_key: KEY.into(),
        webhook_secret: None,
    };
    let a = Analysis::from_config(Some(&cfg), shared::providers::http::client()).unwrap();
    let e = a
        .verify_webhook(WebhookHeaders::default(), b"{}", 0)
        .unwrap_err();
    assert_eq!(e, WebhookError::NotConfigured);
    assert!(e.is_configuration());
}
