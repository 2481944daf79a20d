//! Notifications, their per-channel deliveries, app push tokens and unsubscribe state.
//!
//! A notification is one row per user; each channel it goes out on is a delivery row that a
//! worker claims (`claim_delivery`), sends, and closes as sent, failed or skipped, or puts back
//! to pending with a later `next_attempt_at` after a transient failure.

use crate::db::{Executor, Id, TextEnum, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

crate::text_enum! {
    /// A way a notification reaches its user (one delivery row per channel).
    pub enum Channel { Email = "email", Push = "push", Sms = "sms" }
}

crate::text_enum! {
    /// Where a delivery is: `pending` (due at `next_attempt_at`), `sending` (claimed until
    /// `locked_until`), then closed as `sent`, `failed` or `skipped`.
    pub enum DeliveryStatus {
        Pending = "pending",
        Sending = "sending",
        Sent = "sent",
        Failed = "failed",
        Skipped = "skipped",
    }
}

crate::text_enum! {
    /// Why a delivery was skipped (what the sender's counts group by; the text is in
    /// `last_error`): the person turned the channel off for the kind, the number replied STOP,
    /// there is no device (no push device or every one gone, no verified phone), or the
    /// notification or its person was deleted.
    pub enum SkipReason {
        Preference = "preference",
        OptedOut = "opted_out",
        NoDevice = "no_device",
        Deleted = "deleted",
    }
}

crate::text_enum! {
    /// Whose push service a device token belongs to.
    pub enum PushPlatform { Expo = "expo", Fcm = "fcm" }
}

/// The accepted spellings, for validators that list them.
pub const CHANNELS: &[&str] = <Channel as TextEnum>::NAMES;
pub const DELIVERY_STATUSES: &[&str] = <DeliveryStatus as TextEnum>::NAMES;
pub const PUSH_PLATFORMS: &[&str] = <PushPlatform as TextEnum>::NAMES;

#[derive(Debug, Clone, FromRow)]
pub struct Notification {
    pub id: Id,
    pub user_id: Id,
    pub org_id: Option<Id>,
    pub kind: String,
    pub title: String,
    pub body: String,
    pub data: Json<Value>,
    pub dedupe_key: Option<String>,
    pub created_at: Ts,
    pub read_at: Option<Ts>,
}

const N_COLUMNS: &str = "n.id, n.user_id, n.org_id, n.kind, n.title, n.body, n.data, n.dedupe_key, n.created_at, n.read_at";

pub struct NewNotification<'a> {
    pub user_id: Id,
    pub org_id: Option<Id>,
    pub kind: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    pub data: &'a Value,
    pub dedupe_key: Option<&'a str>,
}

/// Inserts a notification with a pending delivery per channel. With a dedupe key already used
/// for this user, inserts nothing and returns `None`.
pub async fn insert(
    x: &mut impl Executor,
    n: &NewNotification<'_>,
    channels: &[Channel],
) -> Result<Option<Id>, sqlx::Error> {
    let id = Id::new();
    let now = Ts::now();
    let inserted = execute!(x, sqlx::query(
        "INSERT INTO notifications (id, user_id, org_id, kind, title, body, data, dedupe_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (user_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING")
        .bind(id).bind(n.user_id).bind(n.org_id).bind(n.kind).bind(n.title).bind(n.body)
        .bind(Json(n.data)).bind(n.dedupe_key).bind(now))?;
    if inserted == 0 {
        return Ok(None);
    }
    for ch in channels {
        execute!(x, sqlx::query(
            "INSERT INTO notification_deliveries (id, notification_id, channel, status, attempts, next_attempt_at, created_at, updated_at)
             VALUES ($1, $2, $3, $5, 0, $4, $4, $4)")
            .bind(Id::new()).bind(id).bind(*ch).bind(now).bind(DeliveryStatus::Pending))?;
    }
    Ok(Some(id))
}

pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<Notification>, sqlx::Error> {
    let q = format!("SELECT {N_COLUMNS} FROM notifications n WHERE n.id = $1");
    sql!(x, c => sqlx::query_as::<_, Notification>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

#[derive(Debug, Clone, Default)]
pub struct Filter<'a> {
    pub user_id: Option<Id>,
    pub org_id: Option<Id>,
    pub kind: Option<&'a str>,
    /// A delivery status: notifications with at least one delivery in it.
    pub status: Option<&'a str>,
    pub channel: Option<&'a str>,
}

/// Notifications, newest first (the admin view).
pub async fn search(
    x: &mut impl Executor,
    f: &Filter<'_>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Notification>, sqlx::Error> {
    let q = format!(
        "SELECT {N_COLUMNS} FROM notifications n
         WHERE ($1 IS NULL OR n.user_id = $1) AND ($2 IS NULL OR n.org_id = $2) AND ($3 IS NULL OR n.kind = $3)
           AND (($4 IS NULL AND $5 IS NULL) OR EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.notification_id = n.id
                AND ($4 IS NULL OR d.status = $4) AND ($5 IS NULL OR d.channel = $5)))
         ORDER BY n.created_at DESC, n.id DESC LIMIT $6 OFFSET $7"
    );
    sql!(x, c => sqlx::query_as::<_, Notification>(sqlx::AssertSqlSafe(q))
        .bind(f.user_id).bind(f.org_id).bind(f.kind).bind(f.status).bind(f.channel)
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- deliveries ----

#[derive(Debug, Clone, FromRow)]
pub struct Delivery {
    pub id: Id,
    pub notification_id: Id,
    pub channel: Channel,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub next_attempt_at: Ts,
    pub created_at: Ts,
    pub updated_at: Ts,
    pub sent_at: Option<Ts>,
    /// A push delivery's outcome per device: `[{platform, device, status, error}]`.
    pub devices: Option<Json<Value>>,
    /// The claimed attempt that began sending ([`begin_sending`]); set on a `sending` row
    /// taken over, it means a request may have reached the provider: not sent again.
    pub send_attempt: Option<i64>,
}

const D_COLUMNS: &str = "id, notification_id, channel, status, attempts, last_error, next_attempt_at, created_at, updated_at, sent_at, devices, send_attempt";

/// The deliveries of these notifications.
pub async fn deliveries_of(
    x: &mut impl Executor,
    notifications: &[Id],
) -> Result<Vec<Delivery>, sqlx::Error> {
    if notifications.is_empty() {
        return Ok(vec![]);
    }
    let list = (1..=notifications.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!(
        "SELECT {D_COLUMNS} FROM notification_deliveries WHERE notification_id IN ({list}) ORDER BY notification_id, channel"
    );
    sql!(x, c => {
        let mut query = sqlx::query_as::<_, Delivery>(sqlx::AssertSqlSafe(q));
        for id in notifications {
            query = query.bind(*id);
        }
        query.fetch_all(&mut *c).await
    })
}

/// Pending deliveries that are due, oldest first (what a drain works through).
pub async fn due(x: &mut impl Executor, now: Ts, limit: i64) -> Result<Vec<Delivery>, sqlx::Error> {
    let q = format!(
        "SELECT {D_COLUMNS} FROM notification_deliveries
         WHERE (status = $3 AND next_attempt_at <= $1) OR (status = $4 AND locked_until < $1)
         ORDER BY next_attempt_at, id LIMIT $2"
    );
    sql!(x, c => sqlx::query_as::<_, Delivery>(sqlx::AssertSqlSafe(q)).bind(now).bind(limit)
        .bind(DeliveryStatus::Pending).bind(DeliveryStatus::Sending).fetch_all(&mut *c).await)
}

/// Who holds a claim: a run (attempt) of a job. The same job's later attempt takes the claim
/// over at once (that run ended: the queue runs one attempt of a job at a time), anyone else
/// only after `locked_until`.
#[derive(Debug, Clone, Copy)]
pub struct Claimant {
    pub job: Id,
    pub attempt: i64,
}

/// Claims a delivery for one job run until `until` (a crashed worker's claim expires, or its
/// job's next attempt takes it over). Returns the claimed row, or `None` when it is not due,
/// claimed by another run or finished.
pub async fn claim(
    x: &mut impl Executor,
    id: Id,
    now: Ts,
    until: Ts,
    by: Claimant,
) -> Result<Option<Delivery>, sqlx::Error> {
    let q = format!(
        "UPDATE notification_deliveries SET status = $5, locked_until = $3, attempts = attempts + 1, updated_at = $2,
            claimed_job = $6, claimed_attempt = $7
         WHERE id = $1 AND ((status = $4 AND next_attempt_at <= $2)
            OR (status = $5 AND (locked_until < $2 OR (claimed_job = $6 AND claimed_attempt < $7))))
         RETURNING {D_COLUMNS}"
    );
    sql!(x, c => sqlx::query_as::<_, Delivery>(sqlx::AssertSqlSafe(q)).bind(id).bind(now).bind(until)
        .bind(DeliveryStatus::Pending).bind(DeliveryStatus::Sending).bind(by.job).bind(by.attempt)
        .fetch_optional(&mut *c).await)
}

/// Marks which of `ids` `by` begins sending, and returns them: the ones it still holds
/// (a run whose job lease lapsed while it was alive, a stalled worker, finds its claims taken
/// by the job's next attempt and must not send them). Called right before each provider
/// request; a run marks its own deliveries again for its later requests.
pub async fn begin_sending(
    x: &mut impl Executor,
    ids: &[Id],
    by: Claimant,
) -> Result<Vec<Id>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let list = (4..ids.len() + 4)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!(
        "UPDATE notification_deliveries SET send_attempt = $3
         WHERE status = $1 AND claimed_job = $2 AND claimed_attempt = $3 AND id IN ({list})
           AND (send_attempt IS NULL OR send_attempt = $3)
         RETURNING id"
    );
    sql!(x, c => {
        let mut query = sqlx::query_scalar::<_, Id>(sqlx::AssertSqlSafe(q))
            .bind(DeliveryStatus::Sending).bind(by.job).bind(by.attempt);
        for id in ids {
            query = query.bind(*id);
        }
        query.fetch_all(&mut *c).await
    })
}

/// Closes a claimed delivery: sent, failed or skipped (with the reason in `error`, and its
/// code in `skip`).
pub async fn finish(
    x: &mut impl Executor,
    id: Id,
    status: DeliveryStatus,
    error: Option<&str>,
    skip: Option<SkipReason>,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    let sent_at = (status == DeliveryStatus::Sent).then_some(now);
    execute!(x, sqlx::query(
        "UPDATE notification_deliveries SET status = $2, last_error = $3, sent_at = $4, locked_until = NULL, updated_at = $5,
            skip_reason = $6, send_attempt = NULL WHERE id = $1")
        .bind(id).bind(status).bind(error).bind(sent_at).bind(now).bind(skip))?;
    Ok(())
}

/// Records what happened on each device of a push delivery.
pub async fn set_devices(
    x: &mut impl Executor,
    id: Id,
    devices: &Value,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE notification_deliveries SET devices = $2 WHERE id = $1")
            .bind(id)
            .bind(Json(devices))
    )?;
    Ok(())
}

/// Puts a claimed delivery back to pending until `at` without spending an attempt (quiet
/// hours: nothing was tried).
pub async fn defer(x: &mut impl Executor, id: Id, why: &str, at: Ts) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE notification_deliveries SET status = $5, last_error = $2, next_attempt_at = $3, locked_until = NULL,
            attempts = attempts - 1, updated_at = $4, send_attempt = NULL WHERE id = $1")
        .bind(id).bind(why).bind(at).bind(Ts::now()).bind(DeliveryStatus::Pending))?;
    Ok(())
}

/// Puts a claimed delivery back to pending after a transient failure.
pub async fn retry_later(
    x: &mut impl Executor,
    id: Id,
    error: &str,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE notification_deliveries SET status = $5, last_error = $2, next_attempt_at = $3, locked_until = NULL, updated_at = $4,
            send_attempt = NULL WHERE id = $1")
        .bind(id).bind(error).bind(at).bind(Ts::now()).bind(DeliveryStatus::Pending))?;
    Ok(())
}

// ---- push tokens ----

#[derive(Debug, Clone, FromRow)]
pub struct PushToken {
    pub id: Id,
    pub user_id: Id,
    pub token: String,
    pub platform: PushPlatform,
    pub device_name: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

/// Registers a token for `user`, taking it from any other account (one device, one account).
/// Returns the previous owner when it moved.
pub async fn register_push_token(
    x: &mut impl Executor,
    user: Id,
    token: &str,
    platform: PushPlatform,
    device_name: Option<&str>,
) -> Result<(PushToken, Option<Id>), sqlx::Error> {
    let previous: Option<Id> = sql!(x, c => sqlx::query_scalar("SELECT user_id FROM push_tokens WHERE token = $1")
        .bind(token).fetch_optional(&mut *c).await)?;
    let now = Ts::now();
    let row = sql!(x, c => sqlx::query_as::<_, PushToken>(
        "INSERT INTO push_tokens (id, user_id, token, platform, device_name, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
            device_name = excluded.device_name, updated_at = excluded.updated_at
         RETURNING id, user_id, token, platform, device_name, created_at, updated_at")
        .bind(Id::new()).bind(user).bind(token).bind(platform).bind(device_name).bind(now)
        .fetch_one(&mut *c).await)?;
    Ok((row, previous.filter(|p| *p != user)))
}

/// Removes `user`'s registration of `token`. False when they had none.
pub async fn remove_push_token(
    x: &mut impl Executor,
    user: Id,
    token: &str,
) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM push_tokens WHERE user_id = $1 AND token = $2")
            .bind(user)
            .bind(token)
    )?;
    Ok(n > 0)
}

/// A token the push service says is gone (Expo `DeviceNotRegistered`, FCM `UNREGISTERED`).
pub async fn forget_push_token(x: &mut impl Executor, token: &str) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM push_tokens WHERE token = $1").bind(token)
    )?;
    Ok(())
}

pub async fn push_tokens_of(
    x: &mut impl Executor,
    user: Id,
) -> Result<Vec<PushToken>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, PushToken>(
        "SELECT id, user_id, token, platform, device_name, created_at, updated_at FROM push_tokens WHERE user_id = $1 ORDER BY created_at")
        .bind(user).fetch_all(&mut *c).await)
}

// ---- unsubscribes ----

/// The category a notification kind belongs to for opt-outs: its first dotted segment
/// (`message.new` → `message`).
pub fn category_of(kind: &str) -> &str {
    kind.split('.').next().unwrap_or(kind)
}

/// Records `user`'s choice for `category` (or `all`) on `channel`; `source` says who made it
/// (`settings`, `one-click`).
pub async fn set_choice(
    x: &mut impl Executor,
    user: Id,
    channel: Channel,
    category: &str,
    enabled: bool,
    source: &str,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO notification_choices (user_id, channel, category, enabled, source, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (user_id, channel, category) DO UPDATE SET enabled = excluded.enabled, source = excluded.source, updated_at = excluded.updated_at")
        .bind(user).bind(channel).bind(category).bind(enabled).bind(source).bind(Ts::now()))?;
    Ok(())
}

/// Opts `user` out of `category` on `channel` (the one-click unsubscribe).
pub async fn unsubscribe(
    x: &mut impl Executor,
    user: Id,
    channel: Channel,
    category: &str,
    source: &str,
) -> Result<(), sqlx::Error> {
    set_choice(x, user, channel, category, false, source).await
}

#[derive(Debug, Clone, FromRow)]
pub struct Choice {
    pub channel: Channel,
    pub category: String,
    pub enabled: bool,
    pub source: String,
    pub updated_at: Ts,
}

/// Every explicit choice of `user`.
pub async fn choices_of(x: &mut impl Executor, user: Id) -> Result<Vec<Choice>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Choice>(
        "SELECT channel, category, enabled, source, updated_at FROM notification_choices WHERE user_id = $1 ORDER BY category, channel")
        .bind(user).fetch_all(&mut *c).await)
}

/// `user`'s explicit choices for `category` and for `all` on `channel`: (category's, all's).
pub async fn choice_for(
    x: &mut impl Executor,
    user: Id,
    channel: Channel,
    category: &str,
) -> Result<(Option<bool>, Option<bool>), sqlx::Error> {
    let rows: Vec<(String, bool)> = sql!(x, c => sqlx::query_as(
        "SELECT category, enabled FROM notification_choices WHERE user_id = $1 AND channel = $2 AND (category = $3 OR category = 'all')")
        .bind(user).bind(channel).bind(category).fetch_all(&mut *c).await)?;
    let get = |k: &str| rows.iter().find(|(c, _)| c == k).map(|(_, e)| *e);
    Ok((
        if category == "all" {
            None
        } else {
            get(category)
        },
        get("all"),
    ))
}

/// Whether `user` opted out of `category` (or of everything) on `channel`.
pub async fn is_unsubscribed(
    x: &mut impl Executor,
    user: Id,
    channel: Channel,
    category: &str,
) -> Result<bool, sqlx::Error> {
    let (own, all) = choice_for(x, user, channel, category).await?;
    Ok(own.or(all) == Some(false))
}

/// Quiet hours and time zone of one person.
#[derive(Debug, Clone, FromRow)]
pub struct Settings {
    pub time_zone: String,
    pub quiet_start: Option<String>,
    pub quiet_end: Option<String>,
    pub updated_at: Ts,
}

pub async fn settings_of(x: &mut impl Executor, user: Id) -> Result<Option<Settings>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Settings>(
        "SELECT time_zone, quiet_start, quiet_end, updated_at FROM notification_settings WHERE user_id = $1")
        .bind(user).fetch_optional(&mut *c).await)
}

pub async fn set_settings(
    x: &mut impl Executor,
    user: Id,
    time_zone: &str,
    quiet: Option<(&str, &str)>,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO notification_settings (user_id, time_zone, quiet_start, quiet_end, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, quiet_start = excluded.quiet_start,
            quiet_end = excluded.quiet_end, updated_at = excluded.updated_at")
        .bind(user).bind(time_zone).bind(quiet.map(|q| q.0)).bind(quiet.map(|q| q.1)).bind(Ts::now()))?;
    Ok(())
}

// ---- web push subscriptions ----

#[derive(Debug, Clone, FromRow)]
pub struct WebSubscription {
    pub id: Id,
    pub user_id: Id,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub device_name: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const W_COLUMNS: &str = "id, user_id, endpoint, p256dh, auth, device_name, created_at, updated_at";

/// Saves a browser's subscription for `user`, taking the endpoint from any other account.
/// Returns the row and the previous owner when it moved, and whether it is new for `user`.
pub async fn save_web_subscription(
    x: &mut impl Executor,
    user: Id,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    device_name: Option<&str>,
) -> Result<(WebSubscription, Option<Id>), sqlx::Error> {
    let previous: Option<Id> = sql!(x, c => sqlx::query_scalar("SELECT user_id FROM web_push_subscriptions WHERE endpoint = $1")
        .bind(endpoint).fetch_optional(&mut *c).await)?;
    let q = format!(
        "INSERT INTO web_push_subscriptions (id, user_id, endpoint, p256dh, auth, device_name, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth,
            device_name = excluded.device_name, updated_at = excluded.updated_at
         RETURNING {W_COLUMNS}"
    );
    let row = sql!(x, c => sqlx::query_as::<_, WebSubscription>(sqlx::AssertSqlSafe(q))
        .bind(Id::new()).bind(user).bind(endpoint).bind(p256dh).bind(auth).bind(device_name).bind(Ts::now())
        .fetch_one(&mut *c).await)?;
    Ok((row, previous))
}

/// Removes `user`'s subscription with this endpoint. False when they had none.
pub async fn remove_web_subscription(
    x: &mut impl Executor,
    user: Id,
    endpoint: &str,
) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM web_push_subscriptions WHERE user_id = $1 AND endpoint = $2")
            .bind(user)
            .bind(endpoint)
    )?;
    Ok(n > 0)
}

/// A subscription the push service says is gone (404 or 410).
pub async fn forget_web_subscription(
    x: &mut impl Executor,
    endpoint: &str,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM web_push_subscriptions WHERE endpoint = $1").bind(endpoint)
    )?;
    Ok(())
}

pub async fn web_subscriptions_of(
    x: &mut impl Executor,
    user: Id,
) -> Result<Vec<WebSubscription>, sqlx::Error> {
    let q = format!(
        "SELECT {W_COLUMNS} FROM web_push_subscriptions WHERE user_id = $1 ORDER BY created_at"
    );
    sql!(x, c => sqlx::query_as::<_, WebSubscription>(sqlx::AssertSqlSafe(q)).bind(user).fetch_all(&mut *c).await)
}

// ---- Expo tickets awaiting receipts ----

pub async fn add_ticket(
    x: &mut impl Executor,
    ticket: &str,
    token: &str,
    delivery: Option<Id>,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO push_tickets (ticket_id, token, delivery_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (ticket_id) DO NOTHING")
        .bind(ticket).bind(token).bind(delivery).bind(Ts::now()))?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct Ticket {
    pub ticket_id: String,
    pub token: String,
    pub delivery_id: Option<Id>,
    pub created_at: Ts,
}

/// Tickets issued before `before`, oldest first.
pub async fn tickets_before(
    x: &mut impl Executor,
    before: Ts,
    limit: i64,
    after: Option<&str>,
) -> Result<Vec<Ticket>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Ticket>(
        "SELECT ticket_id, token, delivery_id, created_at FROM push_tickets
         WHERE created_at <= $1 AND ($3 IS NULL OR ticket_id > $3) ORDER BY ticket_id LIMIT $2")
        .bind(before).bind(limit).bind(after).fetch_all(&mut *c).await)
}

pub async fn remove_tickets(x: &mut impl Executor, ids: &[String]) -> Result<(), sqlx::Error> {
    for chunk in ids.chunks(500) {
        let list = (1..=chunk.len())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let q = format!("DELETE FROM push_tickets WHERE ticket_id IN ({list})");
        execute!(x, {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(q.clone()));
            for id in chunk {
                query = query.bind(id.as_str());
            }
            query
        })?;
    }
    Ok(())
}

// ---- announcements ----

/// The users an announcement goes to: every user, or the members of one workspace.
pub async fn audience(x: &mut impl Executor, org: Option<Id>) -> Result<Vec<Id>, sqlx::Error> {
    match org {
        None => {
            sql!(x, c => sqlx::query_scalar("SELECT id FROM users ORDER BY id").fetch_all(&mut *c).await)
        }
        Some(org) => {
            sql!(x, c => sqlx::query_scalar("SELECT user_id FROM members WHERE org_id = $1 ORDER BY user_id")
            .bind(org).fetch_all(&mut *c).await)
        }
    }
}

/// The notifications created with this dedupe key (one per user).
pub async fn ids_with_dedupe_key(x: &mut impl Executor, key: &str) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar("SELECT id FROM notifications WHERE dedupe_key = $1 ORDER BY id")
        .bind(key).fetch_all(&mut *c).await)
}

/// How many of `ids` are existing users (to refuse unknown recipients up front).
pub async fn count_users(x: &mut impl Executor, ids: &[Id]) -> Result<i64, sqlx::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    let list = (1..=ids.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!("SELECT COUNT(*) FROM users WHERE id IN ({list})");
    sql!(x, c => {
        let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(q));
        for id in ids {
            query = query.bind(*id);
        }
        query.fetch_one(&mut *c).await
    })
}
