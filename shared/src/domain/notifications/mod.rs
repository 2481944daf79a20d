//! Notifications: created by an internal call ([`send`]), by a new message
//! ([`message_posted`]) or by a platform announcement ([`admin`]), then delivered per channel
//! by the `notify` jobs (the worker's `handlers::notify`). Also app push registration
//! ([`push`]: phone tokens for Expo and FCM, browsers' Web Push subscriptions), each person's
//! choice of channels and quiet hours ([`preferences`]), one-click email unsubscribe
//! ([`unsubscribe`], a choice like the others) and SMS: phone verification and the inbound
//! webhook with STOP/START ([`sms`]). A person's own sends, and how each went out on every
//! channel and device, are theirs to see ([`sent`]).
//!
//! A notification and the job that delivers it ([`jobs`]) are written in one transaction.

pub mod admin;
pub mod jobs;
pub mod preferences;
pub mod push;
pub mod send;
pub mod sent;
pub mod sms;
pub mod unsubscribe;

use super::Actor;
use crate::db::{Id, Tx};
use crate::error::Result;
use crate::job::{Enqueued, Owner};
use crate::repo::messaging::{Conversation, Message};
use crate::repo::notification_sends;
use crate::repo::notifications::{self, NewNotification};
use serde_json::json;

pub use crate::repo::notifications::{
    Channel, DeliveryStatus, PushPlatform, SkipReason, category_of,
};

/// Channels a notification goes out on when its creator does not say (each person's choices
/// then decide: SMS only for those who asked for it).
pub const DEFAULT_CHANNELS: &[Channel] = &[Channel::Push, Channel::Email, Channel::Sms];

/// Creates a notification with a delivery on each requested channel its person has on for its
/// kind; `None` when the dedupe key was used already.
pub async fn create(
    tx: &mut Tx,
    n: &NewNotification<'_>,
    requested: &[Channel],
) -> Result<Option<Id>> {
    let channels = preferences::channels_for(tx, n.user_id, n.kind, requested).await?;
    Ok(notifications::insert(tx, n, &channels).await?)
}
/// How much of a message a "new message" notification shows.
const PREVIEW_CHARS: usize = 140;

/// Enqueues delivery of freshly created notifications; nothing when there are none.
pub async fn fan_out(tx: &mut Tx, ids: Vec<Id>, owner: Owner) -> Result<Option<Enqueued>> {
    if ids.is_empty() {
        return Ok(None);
    }
    let job = self::jobs::NotificationFanout {
        notification_ids: ids,
    };
    Ok(Some(crate::job::enqueue(tx, &job, owner).await?))
}

/// What a "new message" notification shows of the message.
fn preview(body: &str) -> String {
    if body.is_empty() {
        "Sent a photo".to_string()
    } else if body.chars().count() > PREVIEW_CHARS {
        format!("{}…", body.chars().take(PREVIEW_CHARS).collect::<String>())
    } else {
        body.to_string()
    }
}

/// A new message in `conv` notifies the other participant `to` (when they have a login: the
/// caller, messaging, knows who that is), in the message's transaction. `sender` is the
/// sender's name.
pub async fn message_posted(
    tx: &mut Tx,
    to: Option<Id>,
    conv: &Conversation,
    actor: &Actor,
    sender: &str,
    m: &Message,
) -> Result<()> {
    let Some(to) = to else {
        return Ok(());
    };
    let data = json!({ "conversationId": conv.id, "messageId": m.id });
    let dedupe = format!("message:{}", m.id);
    let title = format!("New message from {sender}");
    let created = create(
        tx,
        &NewNotification {
            user_id: to,
            org_id: Some(conv.org_id),
            kind: "message.new",
            title: &title,
            body: &preview(&m.body),
            data: &data,
            dedupe_key: Some(&dedupe),
        },
        DEFAULT_CHANNELS,
    )
    .await?;
    if let Some(id) = created {
        let (who, org) = (actor.user_id, conv.org_id);
        notification_sends::insert(tx, who, org, "message.new", &title, &[id]).await?;
    }
    let owner = Owner {
        org_id: Some(conv.org_id),
        user_id: Some(actor.user_id),
    };
    fan_out(tx, created.into_iter().collect(), owner).await?;
    Ok(())
}

/// How a push of a kind is sent: how long the push service keeps it for an offline device,
/// and how urgently it wakes one (Web Push `TTL`/`Urgency`, FCM `ttl`/priority).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushPolicy {
    pub ttl_secs: u32,
    pub urgency: crate::providers::webpush::Urgency,
}

/// A message is worth waking for and stale after a day; an announcement can wait and stays
/// a week; other kinds are normal for a day.
pub fn push_policy(kind: &str) -> PushPolicy {
    use crate::providers::webpush::Urgency;
    match category_of(kind) {
        "message" => PushPolicy {
            ttl_secs: 86_400,
            urgency: Urgency::High,
        },
        "announcement" => PushPolicy {
            ttl_secs: 7 * 86_400,
            urgency: Urgency::Low,
        },
        _ => PushPolicy {
            ttl_secs: 86_400,
            urgency: Urgency::Normal,
        },
    }
}
