//! Chaos: the api and the workers when the database is exhausted or goes away. The worker
//! kill run (50 SIGKILLs during 10,000 jobs) is `worker/tests/chaos.rs`.

mod multihost;
mod pool;
mod restart;

/// Signs a coach up through the api at `signup_base` and signs in as their phone through the
/// one at `token_base` (the same api, or another of the same service): the phone's bearer
/// token. The chaos tests run the api as a real process, so over real HTTP.
async fn coach_phone_token(http: &reqwest::Client, signup_base: &str, token_base: &str) -> String {
    const PASSWORD: &str = "correct horse battery staple";
    let r = http
        .post(format!("{signup_base}/api/auth/signup"))
        .json(&serde_json::json!({ "email": "coach@example.com", "password": PASSWORD, "name": "Coach Kai" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let r: serde_json::Value = http
        .post(format!("{token_base}/api/mobile/auth/token"))
        .json(&serde_json::json!({ "email": "coach@example.com", "password": PASSWORD, "clientName": "phone" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    r["accessToken"]
        .as_str()
        .expect("a phone token")
        .to_string()
}
