//! The auth guard's cache of verified sign-ins (`api::auth::cache`): a sign-in verified
//! recently is not read again, and every change to what it holds takes effect at once in this
//! process, and in another process within the stated bound (PostgreSQL: its notice; SQLite:
//! the TTL).

use crate::support::*;
use api::state::AppState;
use axum::http::{Method, StatusCode};
use serde_json::json;
use std::time::{Duration, Instant};

/// Waits until `state`'s cache is in use (on PostgreSQL once its listener is connected).
async fn cache_ready(state: &AppState) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !state.auth_cache.is_active() {
        assert!(Instant::now() < deadline, "the auth cache never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Sends `send()` until an answer comes from the cache and returns it. (On PostgreSQL the
/// notices of the set-up's own writes arrive a little later and may empty the cache once.)
async fn from_cache<F, Fut>(app: &TestApp, send: F) -> Resp
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Resp>,
{
    cache_ready(&app.state).await;
    for _ in 0..50 {
        let hits = app.state.auth_cache.stats().hits;
        let r = send().await;
        assert!(r.status.is_success(), "{}", r.body);
        if app.state.auth_cache.stats().hits > hits {
            return r;
        }
    }
    panic!("never answered from the cache");
}

/// Makes sure `s`'s sign-in is in the cache.
async fn warm(app: &TestApp, s: &Session) {
    from_cache(app, || app.get("/api/auth/me").session(s).send()).await;
}

/// Kai signed up (a web session) and signed in on a phone (a bearer), both sign-ins cached.
async fn signed_in_twice_and_cached(app: &TestApp) -> (Session, String) {
    let s = app.signup("kai@example.com").await;
    let (access, _) = app.phone_tokens("kai@example.com").await;
    warm(app, &s).await;
    from_cache(app, || app.get("/api/auth/me").bearer(&access).send()).await;
    (s, access)
}

/// Both of Kai's sign-ins are refused.
async fn both_refused(app: &TestApp, s: &Session, access: &str) {
    for r in [
        app.get("/api/auth/me").session(s).send().await,
        app.get("/api/auth/me").bearer(access).send().await,
    ] {
        r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    }
}

async fn get(app: &TestApp, path: &str, s: &Session) -> Resp {
    app.get(path).session(s).send().await
}

#[tokio::test]
async fn a_sign_in_verified_recently_is_served_from_the_cache() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let (access, _) = app.phone_tokens("kai@example.com").await;
    let fresh = app.get("/api/auth/me").bearer(&access).send().await;
    assert_eq!(fresh.status, StatusCode::OK, "{}", fresh.body);
    let cached = from_cache(&app, || app.get("/api/auth/me").bearer(&access).send()).await;
    assert_eq!(fresh.json, cached.json, "the same answer from the cache");
    assert_eq!(cached.json["workspaces"][0]["role"], "owner");
    // A workspace route takes its membership from the cached sign-in too.
    from_cache(&app, || app.get("/api/athletes").bearer(&access).send()).await;
    // A wrong token is still refused, and not kept.
    for _ in 0..2 {
        app.get("/api/auth/me")
            .bearer(&format!("{access}x"))
            .send()
            .await
            .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    }
}

#[tokio::test]
async fn sign_out_ends_a_cached_session_and_token_at_once() {
    let app = TestApp::new().await;
    let (s, access) = signed_in_twice_and_cached(&app).await;
    let r = app.post("/api/auth/signout").session(&s).send().await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    app.get("/api/auth/me")
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    // The phone's own sign-in is untouched, then ends the same way.
    let r = app.get("/api/auth/me").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app.post("/api/auth/signout").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    app.get("/api/auth/me")
        .bearer(&access)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

#[tokio::test]
async fn a_password_reset_ends_every_cached_sign_in_at_once() {
    let app = TestApp::new().await;
    let (s, access) = signed_in_twice_and_cached(&app).await;
    let r = app
        .post("/api/auth/password/forgot")
        .json(json!({ "email": "kai@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let mail = loop {
        let m = app.smtp.messages_to("kai@example.com");
        if let Some(m) = m.into_iter().find(|m| m.subject() == "Reset your password") {
            break m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let link = mail.link_containing("type=reset_password").unwrap();
    let token = link.split("token=").nth(1).unwrap().to_string();
    let r = app
        .post("/api/auth/password/reset")
        .json(json!({ "token": token, "password": "a brand new password" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    both_refused(&app, &s, &access).await;
}

#[tokio::test]
async fn a_deleted_account_is_refused_at_once() {
    let app = TestApp::new().await;
    let (s, access) = signed_in_twice_and_cached(&app).await;
    let r = app
        .post("/api/auth/delete-account")
        .bearer(&access)
        .json(json!({ "password": PASSWORD }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    both_refused(&app, &s, &access).await;
}

#[tokio::test]
async fn role_membership_module_and_workspace_changes_take_effect_at_once() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    warm(&app, &coach).await;
    from_cache(&app, || get(&app, "/api/athletes", &coach)).await;

    // A role with no permissions, given to the coach: refused at once.
    let roles = format!("/api/orgs/{}/roles", owner.org_id);
    let r = app
        .post(&roles)
        .session(&owner)
        .json(json!({ "name": "Nothing", "permissions": [] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let role_id = r.json["id"].as_str().unwrap().to_string();
    let cid = member_id(&app, &coach, &owner).await;
    let member = format!("/api/orgs/{}/members/{cid}", owner.org_id);
    let r = app
        .req(Method::PATCH, &member)
        .session(&owner)
        .json(json!({ "role": "nothing" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    get(&app, "/api/athletes", &coach)
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let me = app.get("/api/auth/me").session(&coach).send().await;
    assert_eq!(me.json["workspaces"][0]["role"], "nothing");

    // The role gains the permission: allowed at once.
    let r = app
        .req(Method::PATCH, &format!("{roles}/{role_id}"))
        .session(&owner)
        .json(json!({ "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        get(&app, "/api/athletes", &coach).await.status,
        StatusCode::OK
    );

    // The workspace is renamed, then its athletes module switched off.
    let r = app
        .req(Method::PATCH, &format!("/api/orgs/{}", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Renamed Surf School" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let me = app.get("/api/auth/me").session(&coach).send().await;
    assert_eq!(
        me.json["workspaces"][0]["workspaceName"],
        "Renamed Surf School"
    );
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/orgs/{}/modules", owner.org_id),
        )
        .session(&owner)
        .json(json!({ "modules": { "athletes": false } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    get(&app, "/api/athletes", &coach)
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");

    // Removed from the workspace: it is gone from the member's view at once.
    let r = app
        .req(Method::DELETE, &member)
        .session(&owner)
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let me = app.get("/api/auth/me").session(&coach).send().await;
    assert_eq!(me.json["workspaces"], json!([]));
    app.get(&format!("/api/orgs/{}", owner.org_id))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn ending_an_impersonation_takes_effect_at_once() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    warm(&app, &admin).await;
    let r = app
        .post("/api/admin/impersonate")
        .session(&admin)
        .json(json!({ "userId": coach.user_id, "reason": "ticket 42" }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let r = from_cache(&app, || get(&app, "/api/auth/me", &admin)).await;
    assert_eq!(r.json["user"]["email"], "coach@example.com");
    let r = app
        .post("/api/admin/impersonate/stop")
        .session(&admin)
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let r = app.get("/api/auth/me").session(&admin).send().await;
    assert_eq!(r.json["user"]["email"], "admin@example.com");
}

/// A second app on the same database (another `api` process) sees a sign-out made here: on
/// PostgreSQL through its notice, well inside its TTL (60 s here); on SQLite when its entry
/// reaches the TTL (1 s here), which is the stated cross-process bound there.
#[tokio::test]
async fn another_process_sees_a_revocation_within_the_bound() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let (access, _) = app.phone_tokens("kai@example.com").await;
    let pg = app.tdb.is_postgres();
    let ttl = if pg {
        Duration::from_secs(60)
    } else {
        Duration::from_secs(1)
    };
    let (peer, router) = app.second_process(ttl).await;
    cache_ready(&peer).await;
    for _ in 0..2 {
        let r = app
            .get("/api/auth/me")
            .bearer(&access)
            .via(&router)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    assert_eq!(
        peer.auth_cache.stats().hits,
        1,
        "the peer cached the sign-in"
    );

    let r = app.post("/api/auth/signout").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let signed_out = Instant::now();
    app.get("/api/auth/me")
        .bearer(&access)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let bound = if pg {
        Duration::from_secs(5)
    } else {
        ttl + Duration::from_secs(2)
    };
    loop {
        let r = app
            .get("/api/auth/me")
            .bearer(&access)
            .via(&router)
            .send()
            .await;
        if r.status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert!(
            signed_out.elapsed() < bound,
            "the other process still accepts the token after {:?}",
            signed_out.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// On PostgreSQL a change made outside any api (an operator's SQL) reaches the cache through
/// the triggers' notice, without the repo's in-process notice.
#[tokio::test]
async fn on_postgres_a_change_made_in_sql_reaches_the_cache() {
    let app = TestApp::new().await;
    if !app.tdb.is_postgres() {
        return;
    }
    let s = app.signup("kai@example.com").await;
    warm(&app, &s).await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE users SET name = 'Renamed In SQL' WHERE id = $1").bind(s.user_id)
    )
    .unwrap();
    drop(c);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let r = app.get("/api/auth/me").session(&s).send().await;
        if r.json["user"]["name"] == "Renamed In SQL" {
            break;
        }
        assert!(Instant::now() < deadline, "the notice never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
