//! Notification delivery (queue `notify`): each delivery row is claimed, marked as begun right
//! before its provider request, sent on its channel and closed. A job that runs again (its
//! worker died, or its lease lapsed while it waited) sends nothing twice: a delivery it takes
//! over that was begun is closed without sending ([`interrupted`]), since no provider here
//! takes an idempotency key; each delivery is attempted once.
//!
//! - email: the user's address, with RFC 8058 one-click unsubscribe headers; skipped when the
//!   user opted out of the category.
//! - push: to every device of the user: Expo tokens in batches of 100 (each ok ticket is kept
//!   for the `push-receipts` task), FCM tokens one request each (HTTP v1), browsers by Web Push;
//!   a device its service calls gone (`DeviceNotRegistered`, `UNREGISTERED`/`INVALID_ARGUMENT`,
//!   404/410) is deleted. What happened on each device is stored on the delivery (`devices`).
//!   Sent when one device took it; skipped without a device; a service not configured fails
//!   its devices ("not configured"). TTL and urgency follow the kind (`domain::push_policy`).
//! - sms: through Twilio's Messages API to the user's verified phone, unless the number replied
//!   STOP (Twilio's 21610 records that too).
//!
//! Each person's choices decide (`domain::preferences`): a channel they turned off for the
//! kind's category is skipped; push and SMS inside their quiet hours wait, pending, until the
//! hours end (the `notifications-due` task sends them then).
//!
//! A transient failure puts the delivery back to pending with the job backoff (or the
//! provider's `Retry-After`, when longer) and fails the job transiently, so the job's retry
//! picks it up; after `MAX_ATTEMPTS` the delivery is failed.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::crypto::Keys;
use shared::db::{Id, Ts};
use shared::domain::notifications as domain;
use shared::domain::notifications::jobs::{Announcement, NotificationDrain, NotificationFanout};
use shared::domain::notifications::preferences;
use shared::mail::Email;
use shared::providers::ProviderError;
use shared::providers::expo::{Expo, PushMessage};
use shared::providers::fcm::{self, Fcm, FcmMessage};
use shared::providers::twilio::{SmsResult, Twilio};
use shared::providers::webpush::{self, Pushed, WebPushMessage};
use shared::repo::notifications::{
    self, Channel, Claimant, Delivery, DeliveryStatus, PushPlatform, SkipReason, category_of,
};
use shared::repo::{sms, users};
use std::time::Duration;

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
    deferred: u64,
}

impl Tally {
    fn result(&self) -> Result<Value, JobError> {
        if self.retrying > 0 {
            return Err(JobError::Transient(format!(
                "{} deliveries failed transiently and will be retried",
                self.retrying
            )));
        }
        Ok(
            json!({ "sent": self.sent, "failed": self.failed, "skipped": self.skipped, "deferred": self.deferred }),
        )
    }
}

enum Outcome {
    Sent,
    Skipped(SkipReason, String),
    Failed(String),
    /// Retry later: at the job's backoff, or after the provider's `Retry-After` when longer.
    Transient(String, Option<Duration>),
    /// Quiet hours: back to pending until then, no attempt spent.
    Deferred(Ts),
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
        let open: Vec<Delivery> = ds
            .into_iter()
            .filter(|d| matches!(d.status, DeliveryStatus::Pending | DeliveryStatus::Sending))
            .collect();
        deliver_many(ctx, open, tally).await?;
    }
    Ok(())
}

/// Every due delivery, in batches, until none is left.
impl RunJob for NotificationDrain {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        due(ctx).await
    }
}

/// The `notifications-due` task: what a drain does.
pub async fn due(ctx: &Ctx) -> Result<Value, JobError> {
    {
        let mut tally = Tally::default();
        loop {
            let due = {
                let mut c = ctx.deps.db.acquire().await?;
                notifications::due(&mut c, Ts::now(), 100).await?
            };
            if due.is_empty() {
                break;
            }
            let before =
                tally.sent + tally.failed + tally.skipped + tally.retrying + tally.deferred;
            deliver_many(ctx, due, &mut tally).await?;
            if tally.sent + tally.failed + tally.skipped + tally.retrying + tally.deferred == before
            {
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

/// A push delivery claimed and ready to go: what it sends, to which devices.
struct PushPlan {
    delivery: Delivery,
    notification: notifications::Notification,
    tokens: Vec<notifications::PushToken>,
    browsers: Vec<notifications::WebSubscription>,
    /// Final answers of an earlier attempt (a delivery put back after a transient failure of
    /// some devices): those devices are not sent to again.
    settled: Vec<DeviceResult>,
}

impl PushPlan {
    fn new(
        delivery: Delivery,
        notification: notifications::Notification,
        mut tokens: Vec<notifications::PushToken>,
        mut browsers: Vec<notifications::WebSubscription>,
    ) -> PushPlan {
        let settled = settled(&delivery);
        let done = |id: Id| settled.iter().any(|r| r.dev.id == Some(id));
        tokens.retain(|t| !done(t.id));
        browsers.retain(|b| !done(b.id));
        PushPlan {
            delivery,
            notification,
            tokens,
            browsers,
            settled,
        }
    }
}

/// Claims and sends these deliveries. Push deliveries go out together, so that Expo gets its
/// 100 messages per request across recipients and FCM and push services get requests in
/// parallel; the others one by one.
async fn deliver_many(ctx: &Ctx, ds: Vec<Delivery>, tally: &mut Tally) -> Result<(), JobError> {
    let mut plans = Vec::new();
    for d in ds {
        let now = Ts::now();
        let claimed = {
            let mut c = ctx.deps.db.acquire().await?;
            notifications::claim(&mut c, d.id, now, now.plus(CLAIM), claimant(ctx)).await?
        };
        let Some(d) = claimed else {
            continue; // not due yet, another worker has it, or it is done
        };
        if d.send_attempt.is_some() {
            let outcome = interrupted(&d);
            record(ctx, &d, outcome, None, tally).await?;
            continue;
        }
        match send(ctx, &d).await? {
            Sending::Done(outcome, devices) => record(ctx, &d, outcome, devices, tally).await?,
            Sending::Push(n, tokens, browsers) => plans.push(PushPlan::new(d, n, tokens, browsers)),
            Sending::Lost => {} // the job's next attempt has it: not ours to send or record
        }
    }
    if !plans.is_empty() {
        let results = push(ctx, &plans).await?;
        for (plan, devices) in plans.iter().zip(results) {
            let Some(devices) = devices else { continue };
            let outcome = devices.outcome();
            record(ctx, &plan.delivery, outcome, Some(devices.json()), tally).await?;
        }
    }
    Ok(())
}

/// This job run, as its claims name it.
fn claimant(ctx: &Ctx) -> Claimant {
    Claimant {
        job: ctx.job_id,
        attempt: ctx.attempt.into(),
    }
}

/// Whether this run still holds `d`, marking it as begun (`notifications::begin_sending`):
/// checked right before an email or a text goes out, as before each push request ([`held`]).
async fn holds(ctx: &Ctx, d: &Delivery) -> Result<bool, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let mine = notifications::begin_sending(&mut c, &[d.id], claimant(ctx)).await?;
    Ok(mine.contains(&d.id))
}

/// Which of these plans' deliveries this run still holds, marking them as begun.
async fn held(ctx: &Ctx, plans: &[PushPlan], which: &[usize]) -> Result<Vec<bool>, JobError> {
    let ids: Vec<Id> = which.iter().map(|i| plans[*i].delivery.id).collect();
    let mut c = ctx.deps.db.acquire().await?;
    let mine = notifications::begin_sending(&mut c, &ids, claimant(ctx)).await?;
    Ok(ids.iter().map(|id| mine.contains(id)).collect())
}

/// The last error of a delivery whose run died after it began sending.
const INTERRUPTED: &str = "interrupted: the worker stopped while sending";

/// A delivery taken over from a run that had begun sending it (the run died, or its lease
/// lapsed while it waited on the provider): a request may have reached the provider, and
/// neither Expo, FCM, Twilio nor SMTP takes an idempotency key, so it is not sent again (each
/// delivery attempted once). Sent when a device's stored answer says so; else failed, saying
/// why. A run still alive records its own outcome after this one.
fn interrupted(d: &Delivery) -> Outcome {
    if settled(d).iter().any(|r| r.status == "sent") {
        return Outcome::Sent;
    }
    Outcome::Failed(format!(
        "{INTERRUPTED}; the provider's answer is unknown and it is not sent again"
    ))
}

/// Closes (or puts back) a delivery with its outcome.
async fn record(
    ctx: &Ctx,
    d: &Delivery,
    outcome: Outcome,
    devices: Option<Value>,
    tally: &mut Tally,
) -> Result<(), JobError> {
    if let Some(devices) = devices {
        let mut c = ctx.deps.db.acquire().await?;
        notifications::set_devices(&mut c, d.id, &devices).await?;
    }
    let mut c = ctx.deps.db.acquire().await?;
    match outcome {
        Outcome::Sent => {
            notifications::finish(&mut c, d.id, DeliveryStatus::Sent, None, None).await?;
            tally.sent += 1;
        }
        Outcome::Skipped(reason, why) => {
            let (status, why) = (DeliveryStatus::Skipped, Some(why.as_str()));
            notifications::finish(&mut c, d.id, status, why, Some(reason)).await?;
            tally.skipped += 1;
        }
        Outcome::Failed(why) => {
            notifications::finish(&mut c, d.id, DeliveryStatus::Failed, Some(&why), None).await?;
            tally.failed += 1;
        }
        Outcome::Deferred(until) => {
            let why = format!("quiet hours until {}", until.0.to_rfc3339());
            notifications::defer(&mut c, d.id, &why, until).await?;
            tally.deferred += 1;
        }
        Outcome::Transient(why, _) if d.attempts >= MAX_ATTEMPTS => {
            let why = format!("gave up after {} attempts: {why}", d.attempts);
            notifications::finish(&mut c, d.id, DeliveryStatus::Failed, Some(&why), None).await?;
            tally.failed += 1;
        }
        Outcome::Transient(why, asked) => {
            let wait = jobs::backoff(d.attempts as u32, ctx.deps.worker.backoff_base)
                .max(asked.unwrap_or_default());
            let at = Ts::now().plus(chrono::Duration::from_std(wait).unwrap_or_default());
            notifications::retry_later(&mut c, d.id, &why, at).await?;
            tally.retrying += 1;
        }
    }
    Ok(())
}

/// What [`send`] did with a claimed delivery.
enum Sending {
    /// Sent or decided, with what happened per device when there are devices to tell about.
    Done(Outcome, Option<Value>),
    /// Nothing sent: the job's next attempt took the claim over while this run was alive.
    Lost,
    /// A push to these devices, sent with the others of the batch ([`push`]).
    Push(
        notifications::Notification,
        Vec<notifications::PushToken>,
        Vec<notifications::WebSubscription>,
    ),
}

/// Sends one claimed delivery (a push is only prepared: [`deliver_many`] sends pushes
/// together).
async fn send(ctx: &Ctx, d: &Delivery) -> Result<Sending, JobError> {
    match decide(ctx, d).await? {
        Ok(push) => Ok(push),
        Err((outcome, devices)) => Ok(Sending::Done(outcome, devices)),
    }
}

/// What was decided (or sent) without a push: the outcome and, for SMS, the device record.
type Decided = (Outcome, Option<Value>);

async fn decide(ctx: &Ctx, d: &Delivery) -> Result<Result<Sending, Decided>, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let Some(n) = notifications::get(&mut c, d.notification_id).await? else {
        return Ok(Err((
            Outcome::Skipped(SkipReason::Deleted, "notification deleted".into()),
            None,
        )));
    };
    let Some(user) = users::by_id(&mut c, n.user_id).await? else {
        return Ok(Err((
            Outcome::Skipped(SkipReason::Deleted, "user deleted".into()),
            None,
        )));
    };
    let category = category_of(&n.kind);
    if !preferences::allows(&mut c, user.id, d.channel, &n.kind).await? {
        return Ok(Err((
            Outcome::Skipped(
                SkipReason::Preference,
                format!("unsubscribed from {category} by {}", d.channel),
            ),
            None,
        )));
    }
    if d.channel != Channel::Email
        && let Some(until) = preferences::quiet_until(&mut c, user.id, Ts::now()).await?
    {
        return Ok(Err((Outcome::Deferred(until), None)));
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
            if !holds(ctx, d).await? {
                return Ok(Ok(Sending::Lost));
            }
            Ok(Err((
                match ctx.deps.mailer.send_with_headers(mail, &headers).await {
                    Ok(()) => Outcome::Sent,
                    Err(e) => Outcome::Transient(format!("mail: {e}"), None),
                },
                None,
            )))
        }
        Channel::Push => {
            let tokens = notifications::push_tokens_of(&mut c, user.id).await?;
            let browsers = notifications::web_subscriptions_of(&mut c, user.id).await?;
            Ok(Ok(Sending::Push(n, tokens, browsers)))
        }
        Channel::Sms => {
            let phone = sms::verified_phone(&mut c, user.id).await?;
            let opted_out = match &phone {
                Some((p, _)) => sms::is_opted_out(&mut c, p).await?,
                None => false,
            };
            drop(c);
            if !holds(ctx, d).await? {
                return Ok(Ok(Sending::Lost));
            }
            Ok(Err(
                text_message(ctx, &n, phone.map(|p| p.0), opted_out).await?
            ))
        }
    }
}

/// A device as its results name it: its row (push token or browser subscription, so a
/// delivery taken over after a crash knows which devices already have it), the admin view's
/// label (its name, or the token's end) and the sender's mask (never the token or endpoint).
#[derive(Clone, Debug)]
struct Dev {
    id: Option<Id>,
    label: String,
    mask: String,
}

impl Dev {
    fn token(t: &notifications::PushToken) -> Dev {
        Dev {
            id: Some(t.id),
            label: device_label(t.device_name.as_deref(), &t.token),
            mask: format!("…{}", tail(&t.token, 6)),
        }
    }

    fn browser(b: &notifications::WebSubscription) -> Dev {
        let host = url::Url::parse(&b.endpoint)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        Dev {
            id: Some(b.id),
            label: match &b.device_name {
                Some(name) => format!("{name} ({host})"),
                None => host.clone(),
            },
            mask: format!("{host} …{}", tail(&b.endpoint, 6)),
        }
    }

    fn phone(phone: &str) -> Dev {
        Dev {
            id: None,
            label: device_label(None, phone),
            mask: format!("…{}", tail(phone, 2)),
        }
    }
}

/// One device's result in a push delivery.
#[derive(Clone)]
struct DeviceResult {
    platform: &'static str,
    dev: Dev,
    status: &'static str,
    error: Option<String>,
    retry_after: Option<Duration>,
}

impl DeviceResult {
    fn new(platform: &'static str, dev: Dev, status: &'static str, error: Option<String>) -> Self {
        DeviceResult {
            platform,
            dev,
            status,
            error,
            retry_after: None,
        }
    }

    fn error(platform: &'static str, dev: Dev, e: &ProviderError) -> Self {
        DeviceResult {
            platform,
            dev,
            status: if e.is_permanent() { "failed" } else { "retry" },
            error: Some(e.to_string()),
            retry_after: e.retry_after(),
        }
    }

    fn json(&self, status: &str) -> Value {
        json!({ "id": self.dev.id, "platform": self.platform, "device": self.dev.label,
                "mask": self.dev.mask, "status": status, "error": self.error })
    }
}

/// A device result as stored on the delivery (`devices`), read back when a delivery is taken
/// over after its worker died.
#[derive(serde::Deserialize)]
struct Stored {
    id: Option<Id>,
    platform: String,
    device: String,
    mask: Option<String>,
    status: String,
    error: Option<String>,
}

/// The stored device results that are final (sent, gone, failed): those devices are not sent
/// to again. A `retry` is not final.
fn settled(d: &Delivery) -> Vec<DeviceResult> {
    let Some(v) = &d.devices else { return vec![] };
    let stored: Vec<Stored> = serde_json::from_value(v.0.clone()).unwrap_or_default();
    stored
        .into_iter()
        .filter_map(|s| {
            let status = match s.status.as_str() {
                "sent" => "sent",
                "gone" => "gone",
                "failed" => "failed",
                _ => return None,
            };
            let platform = match s.platform.as_str() {
                "expo" => "expo",
                "fcm" => "fcm",
                "web" => "web",
                _ => return None,
            };
            let dev = Dev {
                id: Some(s.id?),
                label: s.device,
                mask: s.mask.unwrap_or_else(|| "…".into()),
            };
            Some(DeviceResult::new(platform, dev, status, s.error))
        })
        .collect()
}

#[derive(Default)]
struct Devices(Vec<DeviceResult>);

impl Devices {
    fn add(
        &mut self,
        platform: &'static str,
        dev: Dev,
        status: &'static str,
        error: Option<String>,
    ) {
        self.0.push(DeviceResult::new(platform, dev, status, error));
    }

    fn failed(&mut self, platform: &'static str, dev: Dev, e: &ProviderError) {
        self.0.push(DeviceResult::error(platform, dev, e));
    }

    fn errors(&self, status: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|r| r.status == status)
            .map(|r| {
                format!(
                    "{} {}: {}",
                    r.platform,
                    r.dev.label,
                    r.error.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    /// Sent when one device took it (retrying would notify that one twice); else retried when
    /// one failed transiently; skipped when every device is gone or none exists; else failed.
    fn outcome(&self) -> Outcome {
        if self.0.is_empty() {
            return Outcome::Skipped(SkipReason::NoDevice, "no push device registered".into());
        }
        if self.0.iter().any(|r| r.status == "sent") {
            return Outcome::Sent;
        }
        let retry = self.errors("retry");
        if !retry.is_empty() {
            let wait = self.0.iter().filter_map(|r| r.retry_after).max();
            return Outcome::Transient(retry.join("; "), wait);
        }
        let gone = self.errors("gone");
        if gone.len() == self.0.len() {
            return Outcome::Skipped(
                SkipReason::NoDevice,
                format!("every device is gone, removed: {}", gone.join("; ")),
            );
        }
        let mut failed = self.errors("failed");
        failed.extend(gone.into_iter().map(|g| format!("{g} (removed)")));
        Outcome::Failed(failed.join("; "))
    }

    /// As stored: transient failures of a delivery that went out elsewhere are final.
    fn json(&self) -> Value {
        let any_sent = self.0.iter().any(|r| r.status == "sent");
        Value::Array(
            self.0
                .iter()
                .map(|r| {
                    let status = if r.status == "retry" && any_sent {
                        "failed"
                    } else {
                        r.status
                    };
                    r.json(status)
                })
                .collect(),
        )
    }
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    s.chars().skip(count.saturating_sub(n)).collect()
}

/// A device as the admin view shows it: its name, or the token's last characters.
fn device_label(name: Option<&str>, token: &str) -> String {
    match name {
        Some(n) => n.to_string(),
        None => format!("…{}", tail(token, 8)),
    }
}

/// The push payload's data: the notification's own, with its id and kind.
fn push_data(n: &notifications::Notification) -> Value {
    let mut data = n.data.0.clone();
    if !data.is_object() {
        data = json!({ "value": data });
    }
    data["notificationId"] = json!(n.id);
    data["kind"] = json!(n.kind);
    data
}

/// Push to every device of every plan (see the module doc): Expo's messages of all plans in
/// requests of 100, FCM and Web Push requests [`PARALLEL`] at a time. One [`Devices`] per plan.
///
/// Before each Expo request and each group of FCM and Web Push requests their deliveries are
/// marked as begun ([`held`]), and the answers are stored ([`save`]) before the next: a worker
/// killed mid-batch leaves at most one request's (or group's) deliveries begun without an
/// answer, which the run that takes them over closes without sending ([`interrupted`]).
///
/// A plan whose delivery this run no longer holds comes back `None`: the run holding it
/// records it.
async fn push(ctx: &Ctx, plans: &[PushPlan]) -> Result<Vec<Option<Devices>>, JobError> {
    let mut lost = vec![false; plans.len()];
    let mut out: Vec<Devices> = plans.iter().map(|p| Devices(p.settled.clone())).collect();
    let http = &shared::providers::http::client_with_timeout(ctx.deps.cfg.notify_timeout);
    let data: Vec<Value> = plans.iter().map(|p| push_data(&p.notification)).collect();

    // Expo, 100 messages per request across the plans.
    let expo_tokens: Vec<(usize, &notifications::PushToken)> = plans
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.tokens.iter().map(move |t| (i, t)))
        .filter(|(_, t)| t.platform == PushPlatform::Expo)
        .collect();
    if !expo_tokens.is_empty() {
        match ctx.deps.cfg.expo.clone() {
            None => {
                let e = ProviderError::NotConfigured("push");
                for (i, t) in &expo_tokens {
                    out[*i].failed("expo", Dev::token(t), &e);
                }
            }
            Some(cfg) => {
                let expo = Expo::new(cfg, http.clone());
                for batch in expo_tokens.chunks(shared::providers::expo::BATCH) {
                    // Only deliveries this run still holds (another run may have taken some).
                    let which: Vec<usize> = batch.iter().map(|(i, _)| *i).collect();
                    let keep = held(ctx, plans, &which).await?;
                    for (i, k) in which.iter().zip(&keep) {
                        lost[*i] |= !k;
                    }
                    let batch: Vec<_> = batch
                        .iter()
                        .zip(keep)
                        .filter_map(|(b, k)| k.then_some(*b))
                        .collect();
                    if batch.is_empty() {
                        continue;
                    }
                    let batch = batch.as_slice();
                    let messages: Vec<PushMessage> = batch
                        .iter()
                        .map(|(i, t)| PushMessage {
                            to: t.token.clone(),
                            title: plans[*i].notification.title.clone(),
                            body: plans[*i].notification.body.clone(),
                            data: data[*i].clone(),
                            sound: "default",
                        })
                        .collect();
                    let tickets = match expo.send(&messages).await {
                        Ok(t) => t,
                        Err(e) => {
                            for (i, t) in batch {
                                out[*i].failed("expo", Dev::token(t), &e);
                            }
                            continue;
                        }
                    };
                    let mut tx = ctx.deps.db.begin().await?;
                    for ((i, t), ticket) in batch.iter().zip(tickets) {
                        let dev = Dev::token(t);
                        if ticket.is_ok() {
                            if let Some(id) = &ticket.id {
                                let d = plans[*i].delivery.id;
                                notifications::add_ticket(&mut tx, id, &t.token, Some(d)).await?;
                            }
                            out[*i].add("expo", dev, "sent", None);
                            continue;
                        }
                        let code = ticket.error().unwrap_or("error").to_string();
                        let msg = format!(
                            "{code}: {}",
                            ticket.message.as_deref().unwrap_or("no message")
                        );
                        match code.as_str() {
                            "DeviceNotRegistered" => {
                                notifications::forget_push_token(&mut tx, &t.token).await?;
                                out[*i].add("expo", dev, "gone", Some(msg));
                            }
                            "MessageRateExceeded" => out[*i].add("expo", dev, "retry", Some(msg)),
                            _ => out[*i].add("expo", dev, "failed", Some(msg)),
                        }
                    }
                    save(&mut tx, plans, &out, batch.iter().map(|(i, _)| *i)).await?;
                    tx.commit().await?;
                }
            }
        }
    }

    // FCM (one request per token) and browsers, in parallel.
    let fcm_client = ctx
        .deps
        .cfg
        .fcm
        .clone()
        .map(|cfg| Fcm::new(cfg, http.clone()));
    let vapid = ctx.deps.cfg.web_push.vapid();
    let mut work: Vec<(usize, Request<'_>)> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let n = &p.notification;
        let policy = domain::push_policy(&n.kind);
        for t in p.tokens.iter().filter(|t| t.platform == PushPlatform::Fcm) {
            let dev = Dev::token(t);
            let client = &fcm_client;
            let data = &data[i];
            work.push((
                i,
                Box::pin(async move {
                    let fcm = match client {
                        Some(Ok(f)) => f,
                        Some(Err(e)) => return (i, DeviceResult::error("fcm", dev, e), None),
                        None => {
                            let e = ProviderError::NotConfigured("fcm");
                            return (i, DeviceResult::error("fcm", dev, &e), None);
                        }
                    };
                    let m = FcmMessage {
                        token: &t.token,
                        title: &n.title,
                        body: &n.body,
                        data,
                        high_priority: policy.urgency == webpush::Urgency::High,
                        ttl: Duration::from_secs(policy.ttl_secs.into()),
                    };
                    match fcm.send(&m).await {
                        Ok(fcm::Sent::Ok(_)) => {
                            (i, DeviceResult::new("fcm", dev, "sent", None), None)
                        }
                        Ok(fcm::Sent::TokenGone(code)) => (
                            i,
                            DeviceResult::new("fcm", dev, "gone", Some(code)),
                            Some(Gone::Token(t.token.clone())),
                        ),
                        Err(e) => (i, DeviceResult::error("fcm", dev, &e), None),
                    }
                }),
            ));
        }
        if p.browsers.is_empty() {
            continue;
        }
        let payload = web_payload(n, &data[i]);
        for b in &p.browsers {
            let dev = Dev::browser(b);
            let vapid = &vapid;
            let payload = payload.clone();
            let cfg = &ctx.deps.cfg.web_push;
            work.push((
                i,
                Box::pin(async move {
                    let vapid = match vapid {
                        Ok(v) => v,
                        Err(e) => {
                            let why = Some(format!("VAPID key: {e}"));
                            return (i, DeviceResult::new("web", dev, "failed", why), None);
                        }
                    };
                    let allowed = url::Url::parse(&b.endpoint)
                        .is_ok_and(|u| webpush::endpoint_allowed(&u, &cfg.endpoint_hosts));
                    if !allowed {
                        let why = Some("endpoint not on an allowed push service".to_string());
                        return (i, DeviceResult::new("web", dev, "failed", why), None);
                    }
                    let m = WebPushMessage {
                        endpoint: &b.endpoint,
                        p256dh: &b.p256dh,
                        auth: &b.auth,
                        payload: &payload,
                        ttl: policy.ttl_secs,
                        urgency: policy.urgency,
                        topic: None,
                    };
                    match webpush::send(http, vapid, &cfg.subject, &m).await {
                        Ok(Pushed::Accepted) => {
                            (i, DeviceResult::new("web", dev, "sent", None), None)
                        }
                        Ok(Pushed::Gone(status)) => (
                            i,
                            DeviceResult::new("web", dev, "gone", Some(format!("status {status}"))),
                            Some(Gone::Browser(b.endpoint.clone())),
                        ),
                        Err(e) => (i, DeviceResult::error("web", dev, &e), None),
                    }
                }),
            ));
        }
    }
    // PARALLEL requests at a time: their deliveries marked as begun (only those this run
    // still holds go), then the answers stored in one transaction before the next group, so
    // that a kill leaves at most one group's deliveries begun without an answer.
    let mut work = work.into_iter().peekable();
    while work.peek().is_some() {
        let group: Vec<_> = work.by_ref().take(PARALLEL).collect();
        let mut which: Vec<usize> = group.iter().map(|(i, _)| *i).collect();
        which.dedup();
        let keep = held(ctx, plans, &which).await?;
        for (i, k) in which.iter().zip(&keep) {
            lost[*i] |= !k;
        }
        let requests = group
            .into_iter()
            .filter(|(i, _)| !lost[*i])
            .map(|(_, request)| request);
        let results = futures::future::join_all(requests).await;
        if results.is_empty() {
            continue;
        }
        let mut tx = ctx.deps.db.begin().await?;
        let mut touched = Vec::with_capacity(results.len());
        for (i, r, gone) in results {
            match gone {
                Some(Gone::Token(t)) => notifications::forget_push_token(&mut tx, &t).await?,
                Some(Gone::Browser(e)) => {
                    notifications::forget_web_subscription(&mut tx, &e).await?
                }
                None => {}
            }
            out[i].0.push(r);
            touched.push(i);
        }
        save(&mut tx, plans, &out, touched.into_iter()).await?;
        tx.commit().await?;
    }
    Ok(out
        .into_iter()
        .zip(lost)
        .map(|(d, lost)| (!lost).then_some(d))
        .collect())
}

/// Stores the device results so far of the plans `touched` (each once).
async fn save(
    tx: &mut shared::db::Tx,
    plans: &[PushPlan],
    out: &[Devices],
    touched: impl Iterator<Item = usize>,
) -> Result<(), JobError> {
    let mut touched: Vec<usize> = touched.collect();
    touched.sort_unstable();
    touched.dedup();
    for i in touched {
        notifications::set_devices(tx, plans[i].delivery.id, &out[i].json()).await?;
    }
    Ok(())
}

/// FCM and Web Push requests in flight at once, per batch of deliveries.
pub const PARALLEL: usize = 16;

/// One FCM or Web Push request, not yet started: its plan, what the device answered, and
/// the device to delete when its service says it is gone.
type Request<'a> = futures::future::BoxFuture<'a, (usize, DeviceResult, Option<Gone>)>;

/// A device its push service says is gone, to delete.
enum Gone {
    Token(String),
    Browser(String),
}

/// What the service worker receives: JSON with the notification's id, kind, title, body and
/// data, the body shortened to fit one encrypted record.
fn web_payload(n: &notifications::Notification, data: &Value) -> Vec<u8> {
    let mut body = n.body.clone();
    loop {
        let p = json!({ "notificationId": n.id, "kind": n.kind, "title": n.title, "body": body, "data": data })
            .to_string()
            .into_bytes();
        if p.len() <= webpush::MAX_PLAINTEXT || body.is_empty() {
            return p;
        }
        let keep = body
            .chars()
            .count()
            .saturating_sub((p.len() - webpush::MAX_PLAINTEXT).max(16) + 1);
        body = format!("{}…", body.chars().take(keep).collect::<String>());
    }
}

/// The SMS a notification becomes: title and body in at most 300 characters, and the opt-out
/// reminder carriers expect.
fn sms_text(n: &notifications::Notification) -> String {
    let mut text = format!("{}: {}", n.title, n.body);
    if text.chars().count() > 300 {
        text = format!("{}…", text.chars().take(299).collect::<String>());
    }
    format!("{text}\nReply STOP to opt out.")
}

/// A notification by SMS to the user's verified phone.
async fn text_message(
    ctx: &Ctx,
    n: &notifications::Notification,
    phone: Option<String>,
    opted_out: bool,
) -> Result<(Outcome, Option<Value>), JobError> {
    let Some(phone) = phone else {
        return Ok((
            Outcome::Skipped(SkipReason::NoDevice, "no verified phone".into()),
            None,
        ));
    };
    let dev = Dev::phone(&phone);
    let one = |status: &str, error: Option<String>| {
        Some(
            json!([{ "platform": "sms", "device": dev.label, "mask": dev.mask, "status": status, "error": error }]),
        )
    };
    if opted_out {
        return Ok((
            Outcome::Skipped(SkipReason::OptedOut, "the number replied STOP".into()),
            one("skipped", None),
        ));
    }
    let twilio = match ctx.deps.cfg.twilio.clone() {
        Some(cfg) => Twilio::new(
            cfg,
            shared::providers::http::client_with_timeout(ctx.deps.cfg.notify_timeout),
        ),
        None => {
            let e = ProviderError::NotConfigured("sms notifications").to_string();
            return Ok((Outcome::Failed(e.clone()), one("failed", Some(e))));
        }
    };
    Ok(match twilio.send_sms(&phone, &sms_text(n)).await {
        Ok(SmsResult::Queued(_)) => (Outcome::Sent, one("sent", None)),
        Ok(SmsResult::Refused {
            code: 21610,
            message,
            ..
        }) => {
            let mut c = ctx.deps.db.acquire().await?;
            sms::opt_out(&mut c, &phone, "STOP", Ts::now()).await?;
            let why = format!("the number replied STOP (21610: {message})");
            let skip = Outcome::Skipped(SkipReason::OptedOut, why.clone());
            (skip, one("gone", Some(why)))
        }
        Ok(SmsResult::Refused {
            status,
            code,
            message,
        }) => {
            let why = format!("sms (twilio) refused ({status} {code}): {message}");
            (Outcome::Failed(why.clone()), one("failed", Some(why)))
        }
        Err(e) if e.is_permanent() => (
            Outcome::Failed(e.to_string()),
            one("failed", Some(e.to_string())),
        ),
        Err(e) => (
            Outcome::Transient(e.to_string(), e.retry_after()),
            one("retry", Some(e.to_string())),
        ),
    })
}

/// The `push-receipts` task: asks Expo for the receipts of tickets older than
/// `EXPO_RECEIPT_DELAY_SECS`, 1,000 per request. `DeviceNotRegistered` deletes the token;
/// other errors are logged with their ticket; a ticket with a receipt, or older than a day
/// (Expo keeps receipts 24 hours), is done.
pub async fn push_receipts(ctx: &Ctx) -> Result<Value, JobError> {
    let Some(cfg) = ctx.deps.cfg.expo.clone() else {
        return Ok(json!({ "skipped": "expo push is not configured" }));
    };
    let expo = Expo::new(
        cfg.clone(),
        shared::providers::http::client_with_timeout(ctx.deps.cfg.notify_timeout),
    );
    let now = Ts::now();
    let before = now.plus(-chrono::Duration::from_std(cfg.receipt_delay).unwrap_or_default());
    let expired = now.plus(-chrono::Duration::hours(24));
    let (mut ok, mut gone, mut errors, mut pending, mut requests) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut after: Option<String> = None;
    loop {
        let page = {
            let mut c = ctx.deps.db.acquire().await?;
            notifications::tickets_before(
                &mut c,
                before,
                shared::providers::expo::RECEIPT_BATCH as i64,
                after.as_deref(),
            )
            .await?
        };
        let Some(last) = page.last() else { break };
        after = Some(last.ticket_id.clone());
        let ids: Vec<String> = page.iter().map(|t| t.ticket_id.clone()).collect();
        let receipts = expo.receipts(&ids).await.map_err(|e| {
            if e.is_permanent() {
                JobError::Permanent(e.to_string())
            } else {
                JobError::Transient(e.to_string())
            }
        })?;
        requests += 1;
        let mut done = Vec::new();
        let mut c = ctx.deps.db.acquire().await?;
        for t in &page {
            match receipts.get(&t.ticket_id) {
                Some(r) if r.is_ok() => ok += 1,
                Some(r) if r.error() == Some("DeviceNotRegistered") => {
                    notifications::forget_push_token(&mut c, &t.token).await?;
                    gone += 1;
                }
                Some(r) => {
                    tracing::warn!(
                        ticket = %t.ticket_id,
                        delivery = ?t.delivery_id,
                        error = r.error().unwrap_or("error"),
                        message = r.message.as_deref().unwrap_or(""),
                        "expo push receipt error"
                    );
                    errors += 1;
                }
                None if t.created_at < expired => {}
                None => {
                    pending += 1;
                    continue;
                }
            }
            done.push(t.ticket_id.clone());
        }
        notifications::remove_tickets(&mut c, &done).await?;
    }
    Ok(
        json!({ "ok": ok, "deviceNotRegistered": gone, "errors": errors, "pending": pending, "requests": requests }),
    )
}
