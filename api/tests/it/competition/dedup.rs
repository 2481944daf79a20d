//! Duplicate roster athletes: explained suggestions best first, the merge they feed, dismissals,
//! permissions and tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

const SUGGESTIONS: &str = "/api/dedup/suggestions";

async fn athlete(app: &TestApp, who: &Session, body: Value) -> String {
    id(&new_athlete(app, who, body).await)
}

/// The suggested pairs as sorted `(a, b)` athlete-id pairs.
fn pairs(r: &Resp) -> Vec<(String, String)> {
    items(r)
        .iter()
        .map(|s| {
            let (a, b) = (
                s["a"]["athleteId"].as_str().unwrap().to_string(),
                s["b"]["athleteId"].as_str().unwrap().to_string(),
            );
            if a < b { (a, b) } else { (b, a) }
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

async fn dismiss(app: &TestApp, who: &Session, a: &str, b: &str) -> Resp {
    app.req(Method::DELETE, &format!("{SUGGESTIONS}?a={a}&b={b}"))
        .session(who)
        .send()
        .await
}

#[tokio::test]
async fn suggestions_come_best_first_with_what_matched_and_the_merge_they_feed() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let kai = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com", "birthDate": "1992-10-08" }),
    )
    .await;
    let kai2 = athlete(
        &app,
        &coach,
        json!({ "firstName": "kai", "lastName": "lenny", "email": "KAI@example.com", "birthDate": "1992-10-08" }),
    )
    .await;
    let joao = athlete(
        &app,
        &coach,
        json!({ "firstName": "João", "lastName": "Chianca" }),
    )
    .await;
    let joao2 = athlete(
        &app,
        &coach,
        json!({ "firstName": "Joao", "lastName": "Chianca" }),
    )
    .await;
    // Siblings sharing a parent's address: not one person.
    for (first, born) in [("Kai", "2010-01-01"), ("Lea", "2012-05-05")] {
        athlete(
            &app,
            &coach,
            json!({ "firstName": first, "lastName": "Smith", "email": "family@example.com", "birthDate": born }),
        )
        .await;
    }
    athlete(
        &app,
        &coach,
        json!({ "firstName": "Molly", "lastName": "Picklum" }),
    )
    .await;

    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        pairs(&r),
        [pair(&kai, &kai2), pair(&joao, &joao2)],
        "{}",
        r.body
    );
    let top = &items(&r)[0];
    assert_eq!(top["score"], 1.0);
    assert_eq!(top["confidence"], "high");
    let explained: Vec<(Value, Value, Value)> = top["explanation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].clone(),
                e["outcome"].clone(),
                e["contribution"].clone(),
            )
        })
        .collect();
    assert_eq!(
        explained,
        [
            (json!("name"), json!("exact"), json!(0.6)),
            (json!("birthDate"), json!("same"), json!(0.2)),
            (json!("email"), json!("same"), json!(0.3)),
        ]
    );
    // The older record is `a` and is the one kept.
    assert_eq!(top["a"]["athleteId"], kai.as_str());
    assert_eq!(top["merge"]["keepId"], kai.as_str());
    assert_eq!(top["merge"]["mergeId"], kai2.as_str());
    assert_eq!(top["merge"]["method"], "POST");
    assert_eq!(
        top["merge"]["path"],
        format!("/api/athletes/{kai}/merge/{kai2}")
    );
    assert_eq!(top["merge"]["blocked"], json!(null));
    let second = &items(&r)[1];
    assert_eq!(second["score"], 0.55);
    assert_eq!(second["explanation"][0]["outcome"], "folded");

    // Paginated like every list.
    let r = app
        .get(&format!("{SUGGESTIONS}?limit=1"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
    assert_eq!(r.json["nextOffset"], 1);

    // The merge the suggestion names, then the pair is gone.
    let path = top["merge"]["path"].as_str().unwrap().to_string();
    let m = app.post(&path).session(&coach).send().await;
    assert_eq!(m.status, StatusCode::OK, "{}", m.body);
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    assert_eq!(pairs(&r), [pair(&joao, &joao2)], "{}", r.body);
}

#[tokio::test]
async fn a_dismissed_pair_stays_hidden_even_after_a_merge_moves_it() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let c = athlete(
        &app,
        &coach,
        json!({ "firstName": "K.", "lastName": "Lenny", "email": "k@example.com" }),
    )
    .await;
    let d = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny", "email": "K@example.com" }),
    )
    .await;
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    let mut want = vec![pair(&a, &b), pair(&a, &d), pair(&b, &d), pair(&c, &d)];
    want.sort();
    let mut got = pairs(&r);
    got.sort();
    assert_eq!(got, want, "{}", r.body);

    // b and d are not one person; nor are a and b.
    assert_eq!(
        dismiss(&app, &coach, &d, &b).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        dismiss(&app, &coach, &b, &d).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        audit_count(&app, "dedup.dismissed").await,
        1,
        "once per pair"
    );
    assert_eq!(
        dismiss(&app, &coach, &a, &b).await.status,
        StatusCode::NO_CONTENT
    );
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    let mut got = pairs(&r);
    got.sort();
    let mut want = vec![pair(&a, &d), pair(&c, &d)];
    want.sort();
    assert_eq!(got, want, "{}", r.body);

    // Merging b into a: b's dismissal with d moves to a, so (a, d) stays hidden; (a, b) goes
    // with b.
    let m = app
        .post(&format!("/api/athletes/{a}/merge/{b}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(m.status, StatusCode::OK, "{}", m.body);
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    assert_eq!(pairs(&r), [pair(&c, &d)], "{}", r.body);

    // Bad pairs.
    dismiss(&app, &coach, &a, &a)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    dismiss(&app, &coach, &a, &b)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn athletes_linked_to_two_profiles_of_one_provider_are_not_suggested() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let a = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    for (who, profile) in [(&a, "ti-1"), (&b, "ti-2")] {
        let r = app
            .post("/api/identity/links")
            .session(&coach)
            .json(json!({ "athleteId": who, "source": "tourindex", "externalId": profile }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    assert!(
        items(&r).is_empty(),
        "0.6 - 0.5 is under the threshold: {}",
        r.body
    );

    // A third, unlinked Kai Lenny pairs with both, and the suggestion shows their profiles.
    let c = athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    let mut got = pairs(&r);
    got.sort();
    let mut want = vec![pair(&a, &c), pair(&b, &c)];
    want.sort();
    assert_eq!(got, want, "{}", r.body);
    let with_a = items(&r)
        .iter()
        .find(|s| s["a"]["athleteId"] == a.as_str())
        .unwrap();
    assert_eq!(with_a["a"]["providers"], json!(["tourindex:ti-1"]));
    assert_eq!(
        with_a["merge"]["keepId"],
        a.as_str(),
        "the linked one stays"
    );
}

#[tokio::test]
async fn dedup_needs_athletes_read_and_dismissing_needs_competition_manage() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let a = athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Scout", "permissions": ["competition.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let scout = add_member(&app, owner.org_id, "scout@example.com", "scout").await;
    app.get(SUGGESTIONS)
        .session(&scout)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = app.get(SUGGESTIONS).session(&viewer).send().await;
    assert_eq!(pairs(&r), [pair(&a, &b)], "{}", r.body);
    dismiss(&app, &viewer, &a, &b)
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("dedup_dismissals").await, 0);

    // Another workspace sees none of ours and cannot dismiss them.
    let other = other_workspace(&app).await;
    athlete(
        &app,
        &other,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let r = app.get(SUGGESTIONS).session(&other).send().await;
    assert!(items(&r).is_empty(), "{}", r.body);
    dismiss(&app, &other, &a, &b)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app.get(SUGGESTIONS).session(&owner).send().await;
    assert_eq!(pairs(&r), [pair(&a, &b)], "ours only: {}", r.body);

    disable_module(&app, owner.org_id, "competition").await;
    app.get(SUGGESTIONS)
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}

#[tokio::test]
async fn a_roster_of_thousands_is_deduplicated_quickly() {
    use shared::repo::athletes::{AthleteSource, AthleteStatus, NewAthlete};
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let first = [
        "Kai", "Molly", "Jack", "Ethan", "Joao", "Filipe", "Italo", "Caroline", "Tyler", "Sally",
    ];
    let syllables = [
        "ka", "lo", "mi", "re", "su", "ta", "vo", "ne", "pi", "ra", "do", "le", "bu", "sa", "ko",
    ];
    let mut rows: Vec<NewAthlete> = (0..3000usize)
        .map(|i| NewAthlete {
            first_name: first[i % first.len()].to_string(),
            last_name: format!(
                "{}{}{}",
                syllables[i % 15],
                syllables[(i / 15) % 15],
                syllables[(i / 225) % 15]
            ),
            email: Some(format!("athlete{i}@example.com")),
            birth_date: None,
            stance: None,
            level: None,
            notes: None,
            status: AthleteStatus::Active,
            source: AthleteSource::Import,
        })
        .collect();
    // Two planted duplicates: an accented copy and an initialled copy with the same address.
    let mut copy = rows[7].clone();
    copy.last_name = copy.last_name.replacen('a', "á", 1);
    copy.email = None;
    let planted_accent = (rows[7].last_name.clone(), copy.last_name.clone());
    rows.push(copy);
    let mut copy = rows[11].clone();
    copy.first_name = copy.first_name[..1].to_string();
    rows.push(copy);
    {
        let mut tx = app.state.db.begin().await.unwrap();
        shared::repo::athletes::insert_many(&mut tx, coach.org_id, &rows, None)
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
    let started = std::time::Instant::now();
    let r = app.get(SUGGESTIONS).session(&coach).send().await;
    let took = started.elapsed();
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let names: Vec<(String, String)> = items(&r)
        .iter()
        .map(|s| {
            (
                s["a"]["name"].as_str().unwrap().to_string(),
                s["b"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(names.len(), 2, "only the planted pairs: {names:?}");
    assert!(
        names.iter().any(
            |(a, b)| a.ends_with(&planted_accent.0) && b.ends_with(&planted_accent.1)
                || a.ends_with(&planted_accent.1) && b.ends_with(&planted_accent.0)
        ),
        "{names:?}"
    );
}
