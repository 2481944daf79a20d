//! Creating notifications from what happens in the service, in the caller's transaction, with
//! the fan-out job that delivers them (both commit together or not at all).

use crate::areas::messaging::Access;
use crate::auth::Caller;
use crate::http::Result;
use jobs::kinds::NotificationFanout;
use jobs::{Job, Owner};
use serde_json::json;
use shared::db::{Id, Tx};
use shared::repo::messaging::Message;
use shared::repo::notifications::{self, NewNotification};

/// Channels a notification goes out on when its creator does not say.
pub const DEFAULT_CHANNELS: &[&str] = &["push", "email"];
const PREVIEW_CHARS: usize = 140;

/// Enqueues delivery of freshly created notifications.
pub async fn enqueue(tx: &mut Tx, ids: Vec<Id>, owner: Owner) -> Result<Option<jobs::Enqueued>> {
    if ids.is_empty() {
        return Ok(None);
    }
    let job = NotificationFanout {
        notification_ids: ids,
    };
    Ok(Some(jobs::enqueue(tx, &job.spec(), owner).await?))
}

/// A new message notifies the other participant (when they have a login).
pub async fn message_posted(tx: &mut Tx, a: &Access, caller: &Caller, m: &Message) -> Result<()> {
    let Some(to) = a.other_user() else {
        return Ok(());
    };
    let preview = if m.body.is_empty() {
        "Sent a photo".to_string()
    } else if m.body.chars().count() > PREVIEW_CHARS {
        format!(
            "{}…",
            m.body.chars().take(PREVIEW_CHARS).collect::<String>()
        )
    } else {
        m.body.clone()
    };
    let data = json!({ "conversationId": a.conv.id, "messageId": m.id });
    let dedupe = format!("message:{}", m.id);
    let created = notifications::insert(
        tx,
        &NewNotification {
            user_id: to,
            org_id: Some(a.conv.org_id),
            kind: "message.new",
            title: &format!("New message from {}", caller.user.name),
            body: &preview,
            data: &data,
            dedupe_key: Some(&dedupe),
        },
        DEFAULT_CHANNELS,
    )
    .await?;
    if let Some(id) = created {
        enqueue(
            tx,
            vec![id],
            Owner {
                org_id: Some(a.conv.org_id),
                user_id: Some(caller.user.id),
            },
        )
        .await?;
    }
    Ok(())
}
