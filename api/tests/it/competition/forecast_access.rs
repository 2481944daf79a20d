//! Who may read spots and forecasts: a session and `competition.read` in a workspace whose
//! competition module is on. Forecasts are provider data shared by every workspace: what one
//! workspace's members asked for costs the others nothing and tells them nothing about it.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

const READS: [&str; 3] = [
    "/api/spotsource/spots/search?q=bells",
    "/api/surf/spot/bells-beach",
    "/api/surf/forecast?spot=bells-beach",
];

#[tokio::test]
async fn surf_reads_need_a_session_and_competition_read_in_an_enabled_module() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Physio", "permissions": ["athletes.read", "training.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let physio = add_member(&app, owner.org_id, "physio@example.com", "physio").await;

    for path in READS {
        let r = app.get(path).send().await;
        r.assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
        app.get(path)
            .session(&physio)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    assert_eq!(
        sp.calls("search") + sp.calls("spot") + sp.calls("forecast") + om.total_calls(),
        0,
        "refused callers ask nothing of the providers"
    );
    for path in READS {
        let r = app.get(path).session(&viewer).send().await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "viewers read forecasts: {path}: {}",
            r.body
        );
    }
    disable_module(&app, owner.org_id, "competition").await;
    for path in READS {
        app.get(path)
            .session(&owner)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    }
}

#[tokio::test]
async fn forecasts_are_shared_provider_data_that_name_no_workspace() {
    let (app, sp, _om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    let mine = app
        .get("/api/surf/forecast?spot=bells-beach")
        .session(&coach)
        .send()
        .await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.body);
    let theirs = app
        .get("/api/surf/forecast?spot=bells-beach")
        .session(&other)
        .send()
        .await;
    assert_eq!(theirs.status, StatusCode::OK, "{}", theirs.body);
    assert_eq!(mine.json, theirs.json, "the same provider data");
    assert_eq!(sp.calls("forecast"), 1, "one fetch for both workspaces");
    let text = mine.body.to_string();
    for id in [coach.org_id, coach.user_id, other.org_id, other.user_id] {
        assert!(
            !text.contains(&id.to_string()),
            "no workspace or member in it"
        );
    }
    // What the refresh keeps warm names no workspace either: the cell and its point only.
    let mut c = app.state.db.acquire().await.unwrap();
    let cells = shared::repo::forecasts::requested_since(
        &mut c,
        shared::db::Ts::now().minus(chrono::Duration::hours(1)),
        10,
    )
    .await
    .unwrap();
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].spot_slug.as_deref(), Some("bells-beach"));

    // A workspace the caller is not a member of, named by header: not found, nothing asked.
    for path in READS {
        app.get(path)
            .session(&other)
            .header("x-workspace-id", &coach.org_id.to_string())
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(sp.calls("forecast"), 1);
}
