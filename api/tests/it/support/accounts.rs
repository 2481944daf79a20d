//! People and workspaces: a coach who signs up (owning a new workspace), members with a role,
//! platform admins, accounts without a workspace, switched-off modules.

use super::app::{PASSWORD, Resp, Session, TestApp, session_from};
use axum::http::StatusCode;
use serde_json::json;
use shared::db::{Id, Ts};
use shared::repo::users;

impl TestApp {
    /// Signs up `email` ("Coach Kai") through the API: a new account owning a new workspace.
    /// Returns the signed-in web session.
    pub async fn signup(&self, email: &str) -> Session {
        let r = self
            .post("/api/auth/signup")
            .json(json!({ "email": email, "password": PASSWORD, "name": "Coach Kai" }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        session_from(&r, email)
    }

    pub async fn signin(&self, email: &str, password: &str) -> Resp {
        self.post("/api/auth/signin")
            .json(json!({ "email": email, "password": password }))
            .send()
            .await
    }

    /// Phone sign-in; returns (access, refresh).
    pub async fn phone_tokens(&self, email: &str) -> (String, String) {
        let r = self
            .post("/api/mobile/auth/token")
            .json(json!({ "email": email, "password": PASSWORD, "clientName": "Kai's phone" }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        (
            r.json["accessToken"].as_str().unwrap().to_string(),
            r.json["refreshToken"].as_str().unwrap().to_string(),
        )
    }
}

/// The owner of a second workspace (other@example.com), for isolation checks.
pub async fn other_workspace(app: &TestApp) -> Session {
    app.signup("other@example.com").await
}

/// After a write straight to the auth tables (users, memberships, roles, workspaces, tokens,
/// impersonations), which bypasses the repo functions that tell this process's auth cache
/// (`api::auth::cache`): tell it as they would. (On PostgreSQL the triggers would too, a few
/// milliseconds later.)
pub fn auth_tables_changed() {
    shared::db::auth_changes::publish(shared::db::AuthChange::All);
}

/// Inserts an account (password `PASSWORD`) straight into the database: no workspace, no mail.
async fn insert_user(app: &TestApp, email: &str, name: &str) -> Id {
    let mut c = app.state.db.acquire().await.unwrap();
    let hash = shared::crypto::password::hash(PASSWORD);
    users::insert(&mut c, email, name, &hash).await.unwrap().id
}

/// Adds `email` to `org` with a built-in role, as an accepted invite would.
pub async fn add_member(app: &TestApp, org: Id, email: &str, role: &str) -> Session {
    let user = insert_user(app, email, "Member").await;
    let mut c = app.state.db.acquire().await.unwrap();
    let role_id: Id = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT id FROM roles WHERE org_id = $1 AND key = $2")
        .bind(org).bind(role).fetch_one(&mut *c).await).unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO members (id, org_id, user_id, role_id, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(Id::new()).bind(org).bind(user).bind(role_id).bind(Ts::now())).unwrap();
    drop(c);
    auth_tables_changed();
    let mut s = session_from(&app.signin(email, PASSWORD).await, email);
    s.org_id = org;
    s
}

/// A signed-in account with no workspace (created before workspaces existed, or an admin
/// let in while sign-up is closed).
pub async fn user_without_workspace(app: &TestApp, email: &str, name: &str) -> Session {
    insert_user(app, email, name).await;
    session_from(&app.signin(email, PASSWORD).await, email)
}

/// A platform admin (admin@example.com), signed up like any coach.
pub async fn platform_admin(app: &TestApp) -> Session {
    let admin = app.signup("admin@example.com").await;
    make_admin(app, &admin).await;
    admin
}

/// Makes the user a platform admin.
pub async fn make_admin(app: &TestApp, s: &Session) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE users SET is_platform_admin = TRUE WHERE id = $1").bind(s.user_id)
    )
    .unwrap();
    auth_tables_changed();
}

/// The member id of `s` in `owner`'s workspace, read from the members list.
pub async fn member_id(app: &TestApp, s: &Session, owner: &Session) -> String {
    let r = app
        .get(&format!("/api/orgs/{}/members", owner.org_id))
        .session(owner)
        .send()
        .await;
    r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["userId"] == s.user_id.to_string())
        .unwrap()["memberId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Switches `module` off in the workspace (straight in the database).
pub async fn disable_module(app: &TestApp, org: Id, module: &str) {
    disable_modules(app, org, &[module]).await
}

/// Switches exactly `modules` off (the others on).
pub async fn disable_modules(app: &TestApp, org: Id, modules: &[&str]) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE orgs SET disabled_modules = $1 WHERE id = $2")
            .bind(sqlx::types::Json(
                modules.iter().map(|m| m.to_string()).collect::<Vec<_>>()
            ))
            .bind(org)
    )
    .unwrap();
    auth_tables_changed();
}

/// How many audit entries have `action`.
pub async fn audit_count(app: &TestApp, action: &str) -> i64 {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM audit_log WHERE action = $1")
        .bind(action).fetch_one(&mut *c).await).unwrap()
}

/// Switches the TV module on in the owner's workspace (it starts off).
pub async fn enable_tv(app: &TestApp, owner: &Session) {
    let r = app
        .req(
            axum::http::Method::PATCH,
            &format!("/api/orgs/{}/modules", owner.org_id),
        )
        .session(owner)
        .json(json!({ "modules": { "tv": true } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
}
