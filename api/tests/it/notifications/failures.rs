//! Each provider's failure modes, one table: the device or number is gone, 429 (with
//! `Retry-After`), 5xx, a timeout, and our credentials refused. What each must end in:
//!
//! | mode            | delivery  | and                                                     |
//! |-----------------|-----------|---------------------------------------------------------|
//! | gone            | skipped   | the token, subscription or number is removed/opted out  |
//! | 429             | sent      | retried after the provider's wait                       |
//! | 5xx             | sent      | retried with backoff (in the send, then by the job)     |
//! | timeout         | sent      | retried by the job (the message may have gone: not in the send) |
//! | bad credentials | failed    | not retried: one attempt, the reason says so            |

use crate::support::*;
use shared::db::Id;
use std::time::Duration;

/// Person `n`'s phone.
fn phone(n: usize) -> String {
    format!("+35191234560{n}")
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Provider {
    Expo,
    Fcm,
    Web,
    Sms,
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Gone,
    RateLimited,
    ServerError,
    Timeout,
    BadCredentials,
}

/// A person with one device (or a verified phone that chose SMS) on `p`.
async fn person(app: &TestApp, p: Provider, n: usize) -> (Id, Option<u64>) {
    let s = app.signup(&format!("p{n}@example.com")).await;
    let mut browser = None;
    match p {
        Provider::Expo => register_expo(app, &s, &format!("ExponentPushToken[p{n}]")).await,
        Provider::Fcm => register_fcm(app, &s, &format!("fcm-p{n}")).await,
        Provider::Web => browser = Some(subscribe_browser(app, &s).await.id),
        Provider::Sms => {
            give_verified_phone(app, s.user_id, &phone(n)).await;
            let r = app
                .req(axum::http::Method::PUT, "/api/notifications/preferences")
                .session(&s)
                .json(serde_json::json!({ "categories": [{ "category": "alert", "email": false, "push": false, "sms": true }] }))
                .send()
                .await;
            assert!(r.status.is_success(), "{}", r.body);
        }
    }
    (s.user_id, browser)
}

fn arm(app: &TestApp, p: Provider, m: Mode, n: usize, browser: Option<u64>) {
    let slow = Duration::from_millis(1500);
    match (p, m) {
        (Provider::Expo, Mode::Gone) => app.expo.unregister(&format!("ExponentPushToken[p{n}]")),
        (Provider::Expo, Mode::RateLimited) => app.expo.fail_next(429, 1),
        (Provider::Expo, Mode::ServerError) => app.expo.fail_next(503, 2),
        (Provider::Expo, Mode::Timeout) => app.expo.slow_next(slow, 1),
        (Provider::Expo, Mode::BadCredentials) => app.expo.require_token("the-real-token"),
        (Provider::Fcm, Mode::Gone) => app.fcm.unregister(&format!("fcm-p{n}")),
        (Provider::Fcm, Mode::RateLimited) => app.fcm.fail_next(429, 1, Some(1)),
        (Provider::Fcm, Mode::ServerError) => app.fcm.fail_next(503, 4, None),
        (Provider::Fcm, Mode::Timeout) => app.fcm.slow_next(slow, 1),
        (Provider::Fcm, Mode::BadCredentials) => app.fcm.refuse_credentials(true),
        (Provider::Web, Mode::Gone) => app.push_service.expire(browser.unwrap()),
        (Provider::Web, Mode::RateLimited) => app.push_service.fail_next(429, 1, Some(1)),
        (Provider::Web, Mode::ServerError) => app.push_service.fail_next(502, 4, None),
        (Provider::Web, Mode::Timeout) => app.push_service.slow_next(slow, 1),
        // The push service refuses our VAPID key.
        (Provider::Web, Mode::BadCredentials) => app.push_service.fail_next(403, 1, None),
        (Provider::Sms, Mode::Gone) => app.twilio.opt_out(&phone(n)),
        (Provider::Sms, Mode::RateLimited) => app.twilio.fail_messages(429, 1, Some(1)),
        (Provider::Sms, Mode::ServerError) => app.twilio.fail_messages(503, 4, None),
        (Provider::Sms, Mode::Timeout) => app.twilio.slow_messages(slow, 1),
        (Provider::Sms, Mode::BadCredentials) => {
            unreachable!("its own app, with a wrong auth token")
        }
    }
}

async fn run(p: Provider, modes: &[Mode]) {
    // Bad credentials on SMS: Twilio refuses this app's auth token.
    let wrong_token = modes.iter().any(|m| matches!(m, Mode::BadCredentials)) && p == Provider::Sms;
    let env: Vec<(&str, &str)> = if wrong_token {
        vec![
            ("TWILIO_AUTH_TOKEN", "not-the-auth-token"),
            ("NOTIFY_TIMEOUT_MS", "500"),
        ]
    } else {
        vec![("NOTIFY_TIMEOUT_MS", "500")]
    };
    let app = TestApp::with_env(&env).await;
    let worker = app.start_worker(&[]).await;
    let channel = if p == Provider::Sms { "sms" } else { "push" };
    for (n, &m) in modes.iter().enumerate() {
        let (user, browser) = person(&app, p, n).await;
        if !wrong_token {
            arm(&app, p, m, n, browser);
        }
        let started = std::time::Instant::now();
        let nid = notify_one(&app, user, "alert.swell", &[channel]).await;
        let d = delivery(&app, &nid, channel).await;
        let case = format!("{p:?} {m:?}: {d:?}");
        let error = d.last_error.clone().unwrap_or_default();
        match m {
            Mode::Gone => {
                assert_eq!(d.status.as_str(), "skipped", "{case}");
                match p {
                    Provider::Sms => assert_eq!(app.count("sms_opt_outs").await, 1, "{case}"),
                    Provider::Web => {
                        assert_eq!(app.count("web_push_subscriptions").await, 0, "{case}")
                    }
                    _ => assert_eq!(app.count("push_tokens").await, 0, "{case}"),
                }
            }
            Mode::RateLimited => {
                assert_eq!(d.status.as_str(), "sent", "{case}");
                if p != Provider::Expo {
                    assert!(
                        started.elapsed() >= Duration::from_secs(1),
                        "waited for Retry-After: {case}"
                    );
                }
            }
            Mode::ServerError | Mode::Timeout => {
                assert_eq!(d.status.as_str(), "sent", "{case}");
                assert!(d.attempts >= 2, "retried by the job: {case}");
            }
            Mode::BadCredentials => {
                assert_eq!(d.status.as_str(), "failed", "{case}");
                assert_eq!(d.attempts, 1, "not retried: {case}");
                assert!(
                    error.contains("bad credentials")
                        || error.contains("401")
                        || error.contains("403"),
                    "{case}"
                );
            }
        }
        if let Some(dev) = d.devices.as_ref().and_then(|v| v.0.as_array().cloned()) {
            assert_eq!(dev.len(), 1, "{case}");
        }
    }
    worker.shutdown().await;
}

const ALL_BUT_CREDENTIALS: &[Mode] = &[
    Mode::Gone,
    Mode::RateLimited,
    Mode::ServerError,
    Mode::Timeout,
];

#[tokio::test]
async fn failure_modes_fcm() {
    // Bad credentials first: the token cache must not hold a token yet.
    run(Provider::Fcm, &[Mode::BadCredentials]).await;
    run(Provider::Fcm, ALL_BUT_CREDENTIALS).await;
}

#[tokio::test]
async fn failure_modes_web_push() {
    run(Provider::Web, &[Mode::BadCredentials]).await;
    run(Provider::Web, ALL_BUT_CREDENTIALS).await;
}

#[tokio::test]
async fn failure_modes_expo() {
    run(Provider::Expo, ALL_BUT_CREDENTIALS).await;
    run(Provider::Expo, &[Mode::BadCredentials]).await;
}

#[tokio::test]
async fn failure_modes_sms() {
    run(Provider::Sms, ALL_BUT_CREDENTIALS).await;
    run(Provider::Sms, &[Mode::BadCredentials]).await;
}
