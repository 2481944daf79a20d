//! Notifications sent by other services (the internal `send` route): up to 500 users at once,
//! deduplicated per user by an optional key so a retried call notifies nobody twice.

use super::jobs::NotificationDrain;
use super::{DEFAULT_CHANNELS, fan_out};
use crate::db::{Db, Id};
use crate::error::{Result, Validator};
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::notifications::{self, Channel, NewNotification};
use crate::repo::{notification_sends, orgs};
use serde_json::{Value, json};

pub const MAX_RECIPIENTS: usize = 500;
/// Channels a sender may ask for (each recipient's choices decide among them).
pub const SEND_CHANNELS: &[Channel] = &[Channel::Email, Channel::Push, Channel::Sms];

/// A send request as it arrives.
#[derive(Clone, Copy, Debug)]
pub struct RawSend<'a> {
    pub user_ids: &'a [Id],
    pub org_id: Option<Id>,
    pub kind: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    pub data: Option<&'a Value>,
    pub channels: Option<&'a [String]>,
    pub dedupe_key: Option<&'a str>,
    pub sender_id: Option<Id>,
}

/// Notifications to create: existing users, a known workspace, a valid kind, typed channels.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// Distinct, 1 to [`MAX_RECIPIENTS`].
    pub users: Vec<Id>,
    pub org_id: Option<Id>,
    /// Lower-case letters, digits, `.`, `_`, `-`; its first segment is the unsubscribe category.
    pub kind: String,
    pub title: String,
    pub body: String,
    /// A JSON object of at most 4 KiB.
    pub data: Value,
    pub channels: Vec<Channel>,
    pub dedupe_key: Option<String>,
    /// The member of `org_id` on whose behalf the service sends: they see how it went out
    /// (`super::sent`).
    pub sender_id: Option<Id>,
}

fn valid_kind(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 60
        && k.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
        && !k.starts_with('.')
}

impl Outgoing {
    /// Checks the request; the recipients and the workspace must exist (hence the `db`).
    pub async fn parse(db: &Db, raw: &RawSend<'_>) -> Result<Outgoing> {
        let mut v = Validator::new();
        let mut users = raw.user_ids.to_vec();
        users.sort();
        users.dedup();
        let count_ok = (1..=MAX_RECIPIENTS).contains(&users.len());
        v.check(
            count_ok,
            "userIds",
            "out_of_range",
            "between 1 and 500 users",
        );
        v.check(
            valid_kind(raw.kind),
            "kind",
            "invalid",
            "lower-case letters, digits, '.', '_' and '-', at most 60",
        );
        let title = v.text("title", raw.title, 200);
        let body = v.text("body", raw.body, 2000);
        let data = raw.data.cloned().unwrap_or_else(|| json!({}));
        v.check(
            data.is_object() && data.to_string().len() <= 4096,
            "data",
            "invalid",
            "a JSON object of at most 4 KiB",
        );
        let channels: Vec<Channel> = match raw.channels {
            None => DEFAULT_CHANNELS.to_vec(),
            Some(chs) => {
                let names: Vec<&str> = SEND_CHANNELS.iter().map(|c| c.as_str()).collect();
                for ch in chs {
                    v.choice("channels", ch, &names);
                }
                v.check(
                    !chs.is_empty(),
                    "channels",
                    "required",
                    "at least one channel",
                );
                SEND_CHANNELS
                    .iter()
                    .copied()
                    .filter(|s| chs.iter().any(|c| c == s.as_str()))
                    .collect()
            }
        };
        let dedupe_key = raw.dedupe_key.map(|k| v.text("dedupeKey", k, 200));
        let mut c = db.acquire().await?;
        if count_ok {
            let known = notifications::count_users(&mut c, &users).await?;
            v.check(
                known == users.len() as i64,
                "userIds",
                "invalid",
                "unknown users",
            );
        }
        if let Some(org) = raw.org_id {
            v.check(
                orgs::by_id(&mut c, org).await?.is_some(),
                "orgId",
                "invalid",
                "unknown workspace",
            );
        }
        if let Some(sender) = raw.sender_id {
            let member = match raw.org_id {
                Some(org) => orgs::membership(&mut c, sender, org).await?.is_some(),
                None => false,
            };
            v.check(
                member,
                "senderId",
                "invalid",
                "a member of the workspace in orgId",
            );
        }
        v.finish()?;
        Ok(Outgoing {
            users,
            org_id: raw.org_id,
            kind: raw.kind.to_string(),
            title,
            body,
            data,
            channels,
            dedupe_key,
            sender_id: raw.sender_id,
        })
    }
}

/// Notifications created.
pub struct Sent {
    /// One per user not already notified with the dedupe key.
    pub notification_ids: Vec<Id>,
    /// Users skipped because of the dedupe key.
    pub duplicates: usize,
    /// The delivery job (none when nothing new was created).
    pub job: Option<Enqueued>,
}

/// Creates a notification per user with its deliveries, and the job that delivers them, in
/// one transaction.
pub async fn send(db: &Db, n: Outgoing) -> Result<Sent> {
    let mut tx = db.begin().await?;
    let mut created = vec![];
    for u in &n.users {
        let new = NewNotification {
            user_id: *u,
            org_id: n.org_id,
            kind: &n.kind,
            title: &n.title,
            body: &n.body,
            data: &n.data,
            dedupe_key: n.dedupe_key.as_deref(),
        };
        if let Some(id) = super::create(&mut tx, &new, &n.channels).await? {
            created.push(id);
        }
    }
    if let (Some(sender), Some(org)) = (n.sender_id, n.org_id)
        && !created.is_empty()
    {
        notification_sends::insert(&mut tx, sender, org, &n.kind, &n.title, &created).await?;
    }
    let owner = Owner {
        org_id: n.org_id,
        user_id: n.sender_id,
    };
    let job = fan_out(&mut tx, created.clone(), owner).await?;
    tx.commit().await?;
    Ok(Sent {
        duplicates: n.users.len() - created.len(),
        notification_ids: created,
        job,
    })
}

/// Enqueues one drain of every due delivery (an existing queued or running drain is returned).
pub async fn deliver(db: &Db) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let job = enqueue(&mut tx, &NotificationDrain {}, Owner::default()).await?;
    tx.commit().await?;
    Ok(job)
}
