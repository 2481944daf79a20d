//! Member invites: the seat cap, single use, revoking.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn invites_are_seat_capped_single_use_and_revocable() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let org = owner.org_id;
    let invite = |email: &str, role: &str| {
        app.post(&format!("/api/orgs/{org}/members/invite"))
            .session(&owner)
            .json(json!({ "email": email, "role": role }))
    };
    let r = invite("not-an-email", "coach").send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    invite("x@example.com", "owner")
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    invite("owner@example.com", "coach")
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_member");
    assert_eq!(app.count("member_invites").await, 0);

    let r = invite("a@example.com", "coach").send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["invite"]["status"], "pending");
    let a_id = r.json["invite"]["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/orgs/{org}/invite"))
        .session(&owner)
        .json(json!({ "email": "b@example.com", "role": "viewer" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "the alias works too");
    // Free plan: 3 seats = the owner and two pending invites.
    let r = invite("c@example.com", "coach").send().await;
    r.assert_error(StatusCode::CONFLICT, "seat_cap_exceeded");
    assert_eq!(r.json["error"]["details"]["seats"], 3);
    assert_eq!(app.count("member_invites").await, 2, "nothing written");
    // A re-invite of a pending address replaces it and needs no extra seat.
    assert_eq!(
        invite("a@example.com", "viewer").send().await.status,
        StatusCode::CREATED
    );
    let r = app
        .get(&format!("/api/orgs/{org}/invites/{a_id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["status"], "revoked");

    // Accept: the mailed link's token, signed in with the invited address, once.
    let mail = app.wait_mail("b@example.com").await;
    let token = mail
        .link_containing("/join/")
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let b = app.signup("b@example.com").await;
    let stranger = app.signup("stranger@example.com").await;
    let r = app
        .get(&format!("/api/orgs/invite/{token}"))
        .session(&b)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["role"], "viewer");
    assert_eq!(r.json["invitedBy"], "Coach Kai");
    app.post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&stranger)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "invite_email_mismatch");
    let r = app
        .post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&b)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["workspaceId"], org.to_string());
    app.post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&b)
        .send()
        .await
        .assert_error(StatusCode::GONE, "invite_used");
    app.get("/api/orgs/invite/smi_bogus")
        .session(&b)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Revoke frees the seat; a revoked or expired invite cannot be accepted.
    let list = app
        .get(&format!("/api/orgs/{org}/invites"))
        .session(&owner)
        .send()
        .await;
    let pending: Vec<_> = list.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == "pending")
        .collect();
    assert_eq!(pending.len(), 1);
    let pid = pending[0]["id"].as_str().unwrap();
    assert_eq!(
        app.req(Method::DELETE, &format!("/api/orgs/{org}/invites/{pid}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.req(Method::DELETE, &format!("/api/orgs/{org}/invites/{pid}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "invite_not_pending");
    let r = invite("d@example.com", "coach").send().await;
    assert_eq!(
        r.status,
        StatusCode::CREATED,
        "the revoked invite's seat is free"
    );
    let d_mail = app.wait_mail("d@example.com").await;
    let d_token = d_mail
        .link_containing("/join/")
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let d = app.signup("d@example.com").await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE member_invites SET expires_at = $1 WHERE email = 'd@example.com'")
                .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
        )
        .unwrap();
    }
    app.post(&format!("/api/orgs/invite/{d_token}/accept"))
        .session(&d)
        .send()
        .await
        .assert_error(StatusCode::GONE, "invite_expired");
    assert_eq!(
        app.count("members").await,
        2 + 3,
        "owner and b here, plus the three signups' own workspaces"
    );
}
