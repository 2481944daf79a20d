//! Notification delivery (queue `notify`): each delivery row is claimed, sent on its channel
//! and closed, so a job that runs twice sends nothing twice except a mail whose worker died
//! between sending and closing (at-least-once, like SMTP itself).
//!
//! - email: the user's address, with RFC 8058 one-click unsubscribe headers; skipped when the
//!   user opted out of the category.
//! - push: through Expo to every `ExponentPushToken[…]` of the user, in batches; a ticket
//!   `DeviceNotRegistered` deletes that token. Skipped without a token (FCM tokens are stored but
//!   not delivered yet); failed ("not configured") when `EXPO_PUSH_URL` is unset. SMS
//!   notifications are not sent.
//!
//! A transient failure puts the delivery back to pending with the job backoff and fails the job
//! transiently, so the job's retry picks it up; after `MAX_ATTEMPTS` the delivery is failed.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::crypto::Keys;
use shared::db::{Id, Ts};
use shared::domain::notifications as domain;
use shared::domain::notifications::jobs::{Announcement, NotificationDrain, NotificationFanout};
use shared::mail::Email;
use shared::providers::expo::{Expo, PushMessage};
use shared::repo::notifications::{
    self, Channel, Delivery, DeliveryStatus, PushPlatform, category_of,
};
use shared::repo::users;

/// Attempts per delivery (the notify jobs allow as many).
const MAX_ATTEMPTS: i64 = 5;
/// How long a claim holds before another worker may take the delivery over.
const CLAIM: chrono::Duration = chrono::Duration::minutes(5);

#[derive(Default)]
struct Tally {
    sent: u64,
    failed: u64,
    skipped: u64,
    retrying: u64,
}

impl Tally {
    fn result(&self) -> Result<Value, JobError> {
        if self.retrying > 0 {
            return Err(JobError::Transient(format!(
                "{} deliveries failed transiently and will be retried",
                self.retrying
            )));
        }
        Ok(json!({ "sent": self.sent, "failed": self.failed, "skipped": self.skipped }))
    }
}

enum Outcome {
    Sent,
    Skipped(String),
    Failed(String),
    Transient(String),
}

impl RunJob for NotificationFanout {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let mut tally = Tally::default();
        deliver_notifications(ctx, &self.notification_ids, &mut tally).await?;
        tally.result()
    }
}

async fn deliver_notifications(ctx: &Ctx, ids: &[Id], tally: &mut Tally) -> Result<(), JobError> {
    for chunk in ids.chunks(200) {
        let ds = {
            let mut c = ctx.deps.db.acquire().await?;
            notifications::deliveries_of(&mut c, chunk).await?
        };
        for d in ds {
            match d.status {
                DeliveryStatus::Pending | DeliveryStatus::Sending => deliver(ctx, d, tally).await?,
                DeliveryStatus::Sent | DeliveryStatus::Failed | DeliveryStatus::Skipped => {}
            }
        }
    }
    Ok(())
}

/// Every due delivery, in batches, until none is left.
impl RunJob for NotificationDrain {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let mut tally = Tally::default();
        loop {
            let due = {
                let mut c = ctx.deps.db.acquire().await?;
                notifications::due(&mut c, Ts::now(), 100).await?
            };
            if due.is_empty() {
                break;
            }
            let before = tally.sent + tally.failed + tally.skipped + tally.retrying;
            for d in due {
                deliver(ctx, d, &mut tally).await?;
            }
            if tally.sent + tally.failed + tally.skipped + tally.retrying == before {
                break; // every due row was claimed by another worker meanwhile
            }
        }
        tally.result()
    }
}

/// An announcement: a notification per user of the audience, then their deliveries.
impl RunJob for Announcement {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        announce(ctx, self).await
    }
}

async fn announce(ctx: &Ctx, a: Announcement) -> Result<Value, JobError> {
    let ids = domain::admin::create_announced(&ctx.deps.db, &a).await?;
    ctx.progress(Some(50), Some("notifications created"))
        .await?;
    let mut tally = Tally::default();
    deliver_notifications(ctx, &ids, &mut tally).await?;
    let mut result = tally.result()?;
    result["recipients"] = json!(ids.len());
    Ok(result)
}

async fn deliver(ctx: &Ctx, d: Delivery, tally: &mut Tally) -> Result<(), JobError> {
    let now = Ts::now();
    let claimed = {
        let mut c = ctx.deps.db.acquire().await?;
        notifications::claim(&mut c, d.id, now, now.plus(CLAIM)).await?
    };
    let Some(d) = claimed else {
        return Ok(()); // not due yet, another worker has it, or it is done
    };
    let outcome = send(ctx, &d).await?;
    let mut c = ctx.deps.db.acquire().await?;
    match outcome {
        Outcome::Sent => {
            notifications::finish(&mut c, d.id, DeliveryStatus::Sent, None).await?;
            tally.sent += 1;
        }
        Outcome::Skipped(why) => {
            notifications::finish(&mut c, d.id, DeliveryStatus::Skipped, Some(&why)).await?;
            tally.skipped += 1;
        }
        Outcome::Failed(why) => {
            notifications::finish(&mut c, d.id, DeliveryStatus::Failed, Some(&why)).await?;
            tally.failed += 1;
        }
        Outcome::Transient(why) if d.attempts >= MAX_ATTEMPTS => {
            let why = format!("gave up after {} attempts: {why}", d.attempts);
            notifications::finish(&mut c, d.id, DeliveryStatus::Failed, Some(&why)).await?;
            tally.failed += 1;
        }
        Outcome::Transient(why) => {
            let wait = jobs::backoff(d.attempts as u32, ctx.deps.worker.backoff_base);
            let at = Ts::now().plus(chrono::Duration::from_std(wait).unwrap_or_default());
            notifications::retry_later(&mut c, d.id, &why, at).await?;
            tally.retrying += 1;
        }
    }
    Ok(())
}

async fn send(ctx: &Ctx, d: &Delivery) -> Result<Outcome, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let Some(n) = notifications::get(&mut c, d.notification_id).await? else {
        return Ok(Outcome::Skipped("notification deleted".into()));
    };
    let Some(user) = users::by_id(&mut c, n.user_id).await? else {
        return Ok(Outcome::Skipped("user deleted".into()));
    };
    let category = category_of(&n.kind);
    if notifications::is_unsubscribed(&mut c, user.id, d.channel, category).await? {
        return Ok(Outcome::Skipped(format!(
            "unsubscribed from {category} by {}",
            d.channel
        )));
    }
    match d.channel {
        Channel::Email => {
            drop(c);
            let keys = Keys::new(ctx.deps.cfg.secret_key.expose());
            let base = ctx.deps.cfg.public_base_url.as_str();
            let url = domain::unsubscribe::link(&keys, base, user.id, category);
            let page = domain::unsubscribe::page_link(&keys, base, user.id, category);
            let text = format!(
                "{}\n\n{}\n\n--\nYou receive this because of your Surf Coach account. Stop these emails: {page}\n",
                n.title, n.body
            );
            let mail = Email {
                to: user.email.clone(),
                subject: n.title.clone(),
                text,
            };
            let headers = [
                ("List-Unsubscribe", format!("<{url}>")),
                (
                    "List-Unsubscribe-Post",
                    "List-Unsubscribe=One-Click".to_string(),
                ),
            ];
            Ok(
                match ctx.deps.mailer.send_with_headers(mail, &headers).await {
                    Ok(()) => Outcome::Sent,
                    Err(e) => Outcome::Transient(format!("mail: {e}")),
                },
            )
        }
        Channel::Push => {
            let tokens = notifications::push_tokens_of(&mut c, user.id).await?;
            drop(c);
            push(ctx, &n, tokens).await
        }
        Channel::Sms => Ok(Outcome::Failed(format!(
            "{} notifications are not sent by this service",
            d.channel
        ))),
    }
}

/// Push to the user's Expo tokens. Sent when at least one ticket is ok; a token Expo no longer
/// knows (`DeviceNotRegistered`) is deleted; a request that failed transiently (5xx, 429,
/// timeout, or every ticket `MessageRateExceeded`) is retried as a whole.
async fn push(
    ctx: &Ctx,
    n: &notifications::Notification,
    tokens: Vec<notifications::PushToken>,
) -> Result<Outcome, JobError> {
    if tokens.is_empty() {
        return Ok(Outcome::Skipped("no push token registered".into()));
    }
    let Some(cfg) = ctx.deps.cfg.expo.clone() else {
        return Ok(Outcome::Failed(
            shared::providers::ProviderError::NotConfigured("push").to_string(),
        ));
    };
    let expo_tokens: Vec<String> = tokens
        .into_iter()
        .filter(|t| t.platform == PushPlatform::Expo && Expo::is_expo_token(&t.token))
        .map(|t| t.token)
        .collect();
    if expo_tokens.is_empty() {
        return Ok(Outcome::Skipped(
            "only FCM tokens registered; FCM delivery is not built".into(),
        ));
    }
    let expo = Expo::new(cfg, shared::providers::http::shared_client().clone());
    let mut data = n.data.0.clone();
    if !data.is_object() {
        data = json!({ "value": data });
    }
    data["notificationId"] = json!(n.id);
    data["kind"] = json!(n.kind);
    let (mut ok, mut gone, mut errors, mut rate_limited) = (0usize, 0usize, Vec::new(), 0usize);
    for batch in expo_tokens.chunks(shared::providers::expo::BATCH) {
        let messages: Vec<PushMessage> = batch
            .iter()
            .map(|t| PushMessage {
                to: t.clone(),
                title: n.title.clone(),
                body: n.body.clone(),
                data: data.clone(),
                sound: "default",
            })
            .collect();
        let tickets = match expo.send(&messages).await {
            Ok(t) => t,
            Err(e) if e.is_permanent() => return Ok(Outcome::Failed(e.to_string())),
            Err(e) if ok > 0 => {
                // An earlier batch went out: retrying would notify those devices twice.
                errors.push(e.to_string());
                continue;
            }
            Err(e) => return Ok(Outcome::Transient(e.to_string())),
        };
        for (token, ticket) in batch.iter().zip(tickets) {
            if ticket.is_ok() {
                ok += 1;
                continue;
            }
            match ticket.error() {
                Some("DeviceNotRegistered") => {
                    let mut c = ctx.deps.db.acquire().await?;
                    notifications::forget_push_token(&mut c, token).await?;
                    gone += 1;
                }
                Some("MessageRateExceeded") => rate_limited += 1,
                other => errors.push(format!(
                    "{}: {}",
                    other.unwrap_or("error"),
                    ticket.message.as_deref().unwrap_or("no message")
                )),
            }
        }
    }
    if ok > 0 {
        return Ok(Outcome::Sent);
    }
    if rate_limited > 0 && errors.is_empty() {
        return Ok(Outcome::Transient(format!(
            "expo push: MessageRateExceeded for {rate_limited} device(s)"
        )));
    }
    if gone > 0 && errors.is_empty() && rate_limited == 0 {
        return Ok(Outcome::Skipped(format!(
            "expo push: DeviceNotRegistered, {gone} token(s) removed"
        )));
    }
    Ok(Outcome::Failed(format!(
        "expo push: {} ({gone} token(s) removed)",
        errors.join("; ")
    )))
}
