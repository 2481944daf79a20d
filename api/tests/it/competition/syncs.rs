//! The scheduled heatsource syncs against the fake provider: idempotent upserts keyed by the
//! provider's ids, per-item failures in the job's result, retries when the provider is down.

use crate::support::*;
use serde_json::json;
use testkit::heatsource::Failure;

const FOLLOWED: (&str, &str) = ("HEATSOURCE_ORGANISATIONS", "WSL, surfingnz,nobody");

async fn changed_at(app: &TestApp, table: &str, id: &str) -> shared::db::Ts {
    let mut c = app.state.db.acquire().await.unwrap();
    let q = format!("SELECT changed_at FROM {table} WHERE provider_id = $1");
    shared::sql!(&mut c, c => sqlx::query_scalar(sqlx::AssertSqlSafe(q)).bind(id).fetch_one(&mut *c).await)
        .unwrap()
}

#[tokio::test]
async fn heatsource_orgs_sync_upserts_followed_organisations_once_and_reports_the_rest() {
    let (app, fake) = app_with_heatsource(&[FOLLOWED]).await;
    let worker = app.start_worker(&[]).await;

    let p = run_cron(&app, "heatsource-orgs-sync").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(2), json!(0))
    );
    assert_eq!(r["failed"][0]["item"], "organisation nobody");
    assert_eq!(r["failed"][0]["permanent"], true);
    assert_eq!(app.count("heatsource_organisations").await, 2);
    let coach = app.signup("coach@example.com").await;
    let r = app
        .get("/api/heatsource/organisations?limit=1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["name"], "Surfing New Zealand", "by name");
    assert_eq!(r.json["nextOffset"], 1);
    let r = app
        .get("/api/heatsource/organisations?offset=1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["shortName"], "wsl");
    assert_eq!(items(&r)[0]["series"][0]["id"], "100");
    let before = changed_at(&app, "heatsource_organisations", "1").await;

    // A re-run that finds nothing new changes nothing.
    let r = run_cron(&app, "heatsource-orgs-sync")
        .await
        .result
        .unwrap()
        .0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(0), json!(2))
    );
    assert_eq!(
        changed_at(&app, "heatsource_organisations", "1").await,
        before
    );

    // A field changed at the provider, and one organisation failing: the rest still syncs.
    fake.set("/organisations/surfingnz/name", json!("Surfing NZ"));
    fake.fail(&[Failure::Status(500)]);
    let r = run_cron(&app, "heatsource-orgs-sync")
        .await
        .result
        .unwrap()
        .0;
    assert_eq!(
        (r["updated"].clone(), r["unchanged"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(r["failed"][0]["item"], "organisation wsl");
    assert_eq!(r["failed"][0]["permanent"], false);
    assert_eq!(
        app.count("heatsource_organisations").await,
        2,
        "keyed by provider id"
    );
    worker.shutdown().await;
}

#[tokio::test]
async fn heatsource_sync_upserts_the_events_of_synced_organisations() {
    let (app, fake) = app_with_heatsource(&[FOLLOWED]).await;
    let worker = app.start_worker(&[]).await;
    let r = run_cron(&app, "heatsource-sync").await.result.unwrap().0;
    assert_eq!(r["created"], 0, "no organisation synced yet: nothing to do");
    run_cron(&app, "heatsource-orgs-sync").await;

    let p = run_cron(&app, "heatsource-sync").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["created"], 1);
    assert_eq!(
        r["failed"][0]["item"], "event 201",
        "listed but unknown: {r}"
    );
    assert_eq!(app.count("heatsource_events").await, 1);
    let before = changed_at(&app, "heatsource_events", "200").await;

    let r = run_cron(&app, "heatsource-sync").await.result.unwrap().0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(0), json!(1))
    );
    assert_eq!(changed_at(&app, "heatsource_events", "200").await, before);

    fake.set(
        "/events/200/eventDivisions/0/heats/0/result/1/total",
        json!(15.5),
    );
    let r = run_cron(&app, "heatsource-sync").await.result.unwrap().0;
    assert_eq!(r["updated"], 1, "a corrected score is an update: {r}");
    assert_eq!(app.count("heatsource_events").await, 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn heatsource_sync_with_the_provider_down_for_every_item_is_retried() {
    let (app, fake) = app_with_heatsource(&[FOLLOWED]).await;
    let worker = app.start_worker(&[]).await;
    fake.fail(&[
        Failure::Status(500),
        Failure::Status(500),
        Failure::Status(500),
    ]);
    let p = run_cron(&app, "heatsource-orgs-sync").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.attempts, 2, "the first attempt found the provider down");
    assert_eq!(p.result.unwrap().0["created"], 2);
    worker.shutdown().await;
}
