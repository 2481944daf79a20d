//! The sender's view: a person's own sends in a workspace (a message's notification, or the
//! internal send route on their behalf), each with what went out on every channel, and one
//! send's deliveries per recipient, channel and device.
//!
//! Only the sender sees a send, not the workspace's admins: a message's notification carries
//! the message's text, and conversations are the two participants' own (`docs/decisions.md`,
//! messaging). A send of another workspace, or of someone else, is absent (404). Platform
//! admins have every notification, with provider errors, in the admin view.

use crate::db::{Db, Id};
use crate::error::{Error, Result};
use crate::repo::notification_sends::{self, RecipientDelivery, Send};
use crate::repo::notifications::{Channel, DeliveryStatus, SkipReason};

/// How a send's deliveries on one channel stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelCounts {
    /// Waiting (due later, in quiet hours, or being sent now).
    pub pending: i64,
    pub sent: i64,
    pub failed: i64,
    /// The recipient turned this channel off for the kind.
    pub skipped_by_preference: i64,
    /// The recipient's number replied STOP.
    pub opted_out: i64,
    /// Skipped otherwise: no device or verified phone, or the recipient was deleted.
    pub skipped: i64,
}

/// A send with its counts per channel (channels it has deliveries on, in channel order).
pub struct SendSummary {
    pub send: Send,
    pub channels: Vec<(Channel, ChannelCounts)>,
}

/// `sender`'s sends in `org`, newest first.
pub async fn list(
    db: &Db,
    sender: Id,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<SendSummary>> {
    let mut c = db.acquire().await?;
    let sends = notification_sends::of_sender(&mut c, sender, org, limit, offset).await?;
    let ids: Vec<Id> = sends.iter().map(|s| s.id).collect();
    let counts = notification_sends::counts(&mut c, &ids).await?;
    Ok(sends
        .into_iter()
        .map(|send| {
            let mut channels: Vec<(Channel, ChannelCounts)> = vec![];
            for k in counts.iter().filter(|k| k.send_id == send.id) {
                let at = match channels.iter().position(|(ch, _)| *ch == k.channel) {
                    Some(at) => at,
                    None => {
                        channels.push((k.channel, ChannelCounts::default()));
                        channels.len() - 1
                    }
                };
                let slot = &mut channels[at].1;
                let field = match (k.status, k.skip_reason) {
                    (DeliveryStatus::Pending | DeliveryStatus::Sending, _) => &mut slot.pending,
                    (DeliveryStatus::Sent, _) => &mut slot.sent,
                    (DeliveryStatus::Failed, _) => &mut slot.failed,
                    (DeliveryStatus::Skipped, Some(SkipReason::Preference)) => {
                        &mut slot.skipped_by_preference
                    }
                    (DeliveryStatus::Skipped, Some(SkipReason::OptedOut)) => &mut slot.opted_out,
                    (DeliveryStatus::Skipped, _) => &mut slot.skipped,
                };
                *field += k.n;
            }
            channels.sort_by_key(|(ch, _)| ch.as_str());
            SendSummary { send, channels }
        })
        .collect())
}

/// One of `sender`'s sends in `org` (404 otherwise) and a page of its deliveries.
pub async fn deliveries(
    db: &Db,
    sender: Id,
    org: Id,
    send: Id,
    limit: i64,
    offset: i64,
) -> Result<(Send, Vec<RecipientDelivery>)> {
    let mut c = db.acquire().await?;
    let s = notification_sends::get(&mut c, send)
        .await?
        .filter(|s| s.sender_id == sender && s.org_id == org)
        .ok_or_else(|| Error::not_found("notification"))?;
    let rows = notification_sends::deliveries(&mut c, s.id, limit, offset).await?;
    Ok((s, rows))
}
