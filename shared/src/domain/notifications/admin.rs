//! The platform admin's side: every notification with its deliveries, and announcements to
//! every user (or one workspace's members), created and delivered by a job.

use super::DEFAULT_CHANNELS;
use super::jobs::Announcement;
use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::error::{Error, Result, Validator};
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::notifications::{
    self, Channel, Delivery, DeliveryStatus, Filter, NewNotification, Notification,
};
use crate::repo::{audit, orgs};
use serde_json::json;

/// The admin list's filters.
#[derive(Clone, Debug, Default)]
pub struct NotificationFilter {
    pub user_id: Option<Id>,
    pub org_id: Option<Id>,
    pub kind: Option<String>,
    /// Notifications with a delivery in this status.
    pub status: Option<DeliveryStatus>,
    pub channel: Option<Channel>,
}

impl NotificationFilter {
    pub fn parse(
        user_id: Option<Id>,
        org_id: Option<Id>,
        kind: Option<&str>,
        status: Option<&str>,
        channel: Option<&str>,
    ) -> Result<NotificationFilter> {
        let mut v = Validator::new();
        let status = status.and_then(|s| v.choice_of::<DeliveryStatus>("status", s));
        let channel = channel.and_then(|ch| v.choice_of::<Channel>("channel", ch));
        v.finish()?;
        Ok(NotificationFilter {
            user_id,
            org_id,
            kind: kind.map(str::to_string),
            status,
            channel,
        })
    }
}

/// Notifications, newest first, each with its deliveries.
pub async fn list(
    db: &Db,
    f: &NotificationFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<(Notification, Vec<Delivery>)>> {
    let mut c = db.acquire().await?;
    let filter = Filter {
        user_id: f.user_id,
        org_id: f.org_id,
        kind: f.kind.as_deref(),
        status: f.status.map(DeliveryStatus::as_str),
        channel: f.channel.map(Channel::as_str),
    };
    let rows = notifications::search(&mut c, &filter, limit, offset).await?;
    let ids: Vec<Id> = rows.iter().map(|n| n.id).collect();
    let mut deliveries = notifications::deliveries_of(&mut c, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|n| {
            let mine = deliveries
                .extract_if(.., |d| d.notification_id == n.id)
                .collect();
            (n, mine)
        })
        .collect())
}

/// An announcement to make: title (at most 200 characters) and body (at most 2000).
#[derive(Clone, Debug)]
pub struct NewAnnouncement {
    pub title: String,
    pub body: String,
    /// Only this workspace's members; everyone when `None`.
    pub org_id: Option<Id>,
}

impl NewAnnouncement {
    pub fn parse(title: &str, body: &str, org_id: Option<Id>) -> Result<NewAnnouncement> {
        let mut v = Validator::new();
        let title = v.text("title", title, 200);
        let body = v.text("body", body, 2000);
        v.finish()?;
        Ok(NewAnnouncement {
            title,
            body,
            org_id,
        })
    }
}

/// Enqueues the announcement's job (404 for an unknown workspace); audited.
pub async fn announce(actor: &Actor, db: &Db, a: NewAnnouncement) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    if let Some(org) = a.org_id {
        orgs::by_id(&mut tx, org)
            .await?
            .ok_or_else(|| Error::not_found("workspace"))?;
    }
    let job = Announcement {
        announcement_id: Id::new(),
        org_id: a.org_id,
        title: a.title,
        body: a.body,
    };
    let owner = Owner {
        org_id: a.org_id,
        user_id: Some(actor.user_id),
    };
    let enq = enqueue(&mut tx, &job, owner).await?;
    audit::record(
        &mut tx,
        actor.audit(
            a.org_id,
            "admin.announcement_sent",
            "announcement",
            Some(job.announcement_id.to_string()),
            json!({ "title": job.title, "jobId": enq.id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(enq)
}

/// Creates the announcement's notification for every user of its audience (in chunks, one
/// transaction each) and returns all of their ids. The announcement id is the dedupe key, so
/// a re-run (the job retried) creates nothing twice.
pub async fn create_announced(db: &Db, a: &Announcement) -> Result<Vec<Id>> {
    let key = format!("announcement:{}", a.announcement_id);
    let users = {
        let mut c = db.acquire().await?;
        notifications::audience(&mut c, a.org_id).await?
    };
    let data = json!({ "announcementId": a.announcement_id });
    for chunk in users.chunks(500) {
        let mut tx = db.begin().await?;
        for user in chunk {
            let n = NewNotification {
                user_id: *user,
                org_id: a.org_id,
                kind: "announcement",
                title: &a.title,
                body: &a.body,
                data: &data,
                dedupe_key: Some(&key),
            };
            super::create(&mut tx, &n, DEFAULT_CHANNELS).await?;
        }
        tx.commit().await?;
    }
    let mut c = db.acquire().await?;
    Ok(notifications::ids_with_dedupe_key(&mut c, &key).await?)
}
