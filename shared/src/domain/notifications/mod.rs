//! Notifications: created by an internal call ([`send`]), by a new message
//! ([`message_posted`]) or by a platform announcement ([`admin`]), then delivered per channel
//! by the `notify` jobs (the worker's `handlers::notify`). Also app push registration
//! ([`push`]), one-click email unsubscribe ([`unsubscribe`]) and SMS: phone verification and
//! the inbound webhook with STOP/START ([`sms`]).
//!
//! A notification and the job that delivers it are written in one transaction. The job types
//! live in the `jobs` crate, above `shared`, so operations take a [`NotifyQueue`] (implemented
//! there by `jobs::kinds::NotifyJobs`).

pub mod admin;
pub mod push;
pub mod send;
pub mod sms;
pub mod unsubscribe;

use super::Actor;
use crate::db::{Id, Tx};
use crate::error::Result;
use crate::repo::messaging::{Conversation, Message};
use crate::repo::notifications::{self, NewNotification};
use serde_json::json;
use std::future::Future;

pub use crate::repo::notifications::{Channel, DeliveryStatus, PushPlatform, category_of};

/// Channels a notification goes out on when its creator does not say.
pub const DEFAULT_CHANNELS: &[Channel] = &[Channel::Push, Channel::Email];
/// How much of a message a "new message" notification shows.
const PREVIEW_CHARS: usize = 140;

/// A job enqueued (or the live one with the same idempotency key, `existing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: Id,
    pub existing: bool,
}

/// Who a notification job belongs to: its workspace and the user who caused it.
#[derive(Clone, Copy, Debug, Default)]
pub struct JobOwner {
    pub org_id: Option<Id>,
    pub user_id: Option<Id>,
}

/// A platform announcement, as its job carries it.
#[derive(Clone, Debug)]
pub struct Announcement {
    pub id: Id,
    /// Only this workspace's members; everyone when `None`.
    pub org_id: Option<Id>,
    pub title: String,
    pub body: String,
}

/// Enqueues the notification jobs in the operation's transaction.
pub trait NotifyQueue: Sync {
    /// Delivery of freshly created notifications (`notifications.fanout`).
    fn fanout(
        &self,
        tx: &mut Tx,
        ids: Vec<Id>,
        owner: JobOwner,
    ) -> impl Future<Output = Result<Queued>> + Send;
    /// One drain of every due delivery (`notifications.drain`; one at a time).
    fn drain(&self, tx: &mut Tx) -> impl Future<Output = Result<Queued>> + Send;
    /// A platform announcement to create and deliver (`notifications.announce`).
    fn announce(
        &self,
        tx: &mut Tx,
        a: &Announcement,
        owner: JobOwner,
    ) -> impl Future<Output = Result<Queued>> + Send;
}

/// Enqueues delivery of freshly created notifications; nothing when there are none.
pub async fn enqueue(
    tx: &mut Tx,
    queue: &impl NotifyQueue,
    ids: Vec<Id>,
    owner: JobOwner,
) -> Result<Option<Queued>> {
    if ids.is_empty() {
        return Ok(None);
    }
    Ok(Some(queue.fanout(tx, ids, owner).await?))
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
    queue: &impl NotifyQueue,
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
    let created = notifications::insert(
        tx,
        &NewNotification {
            user_id: to,
            org_id: Some(conv.org_id),
            kind: "message.new",
            title: &format!("New message from {sender}"),
            body: &preview(&m.body),
            data: &data,
            dedupe_key: Some(&dedupe),
        },
        DEFAULT_CHANNELS,
    )
    .await?;
    let owner = JobOwner {
        org_id: Some(conv.org_id),
        user_id: Some(actor.user_id),
    };
    enqueue(tx, queue, created.into_iter().collect(), owner).await?;
    Ok(())
}
