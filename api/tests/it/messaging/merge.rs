//! What merging two athletes does to their conversations.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// Merging a duplicate athlete keeps its conversations: one with a coach who also talks to the
/// kept athlete hands over its messages (and their reports); another one moves as it is.
#[tokio::test]
async fn merging_athletes_keeps_their_conversations_messages_and_reports() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let kept = open_conversation(&app, &w).await;
    post_message(&app, &w.athlete, &kept, "first, to the kept record").await;

    // The duplicate record (no login) has its own conversation with the same coach and one
    // with a second coach.
    let dup = new_athlete(
        &app,
        &w.coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await;
    let dup_id = dup["id"].as_str().unwrap().to_string();
    let twin = open_conversation_with(&app, &w.coach, &dup_id).await;
    let m = post_message(&app, &w.coach, &twin, "second, to the duplicate").await;
    let second_coach = add_member(&app, w.coach.org_id, "coach2@example.com", "coach").await;
    let other = open_conversation_with(&app, &second_coach, &dup_id).await;
    post_message(&app, &second_coach, &other, "from the second coach").await;

    // A report on the duplicate's conversation (filed through the repository: the duplicate
    // has no login to report with).
    let report = {
        let mut c = app.state.db.acquire().await.unwrap();
        let msg =
            shared::repo::messaging::message(&mut c, m["id"].as_str().unwrap().parse().unwrap())
                .await
                .unwrap()
                .unwrap();
        shared::repo::messaging::insert_report(&mut c, &msg, w.coach.user_id, "other", None)
            .await
            .unwrap()
            .unwrap()
    };

    let r = app
        .post(&format!("/api/athletes/{}/merge/{dup_id}", w.athlete_id))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["moved"]["conversations"], 2);
    assert_eq!(app.count("conversations").await, 2);
    assert_eq!(app.count("messages").await, 3, "no message lost");

    // The athlete now sees both messages of the coach conversation, and the second coach's.
    let r = app
        .get(&format!("/api/conversations/{kept}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let bodies: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(bodies.contains(&"second, to the duplicate"), "{bodies:?}");
    app.get(&format!("/api/conversations/{twin}/messages"))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get(&format!("/api/conversations/{other}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "moved as it is: {}", r.body);

    let mut c = app.state.db.acquire().await.unwrap();
    let rep = shared::repo::messaging::report(&mut c, report)
        .await
        .unwrap()
        .expect("the report survives the merge");
    assert_eq!(rep.conversation_id.to_string(), kept);
}
