//! Push devices: the phone app's tokens (Expo or FCM) and browsers' Web Push subscriptions. A
//! token identifies a device install (an endpoint a browser profile), so registering it from
//! one account takes it from any other account (the previous user signed out on that phone
//! must not get this user's notifications).

use super::PushPlatform;
use crate::config::WebPushConfig;
use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::error::{Error, Result, Validator};
use crate::providers::expo::Expo;
use crate::providers::webpush;
use crate::repo::notifications::{self, PushToken, WebSubscription};

/// A registration as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawPush<'a> {
    pub token: &'a str,
    /// expo or fcm; absent: expo for an Expo-looking token.
    pub platform: Option<&'a str>,
    pub device_name: Option<&'a str>,
}

/// A checked registration: an Expo token has Expo's shape.
#[derive(Clone, Debug)]
pub struct NewPushToken {
    pub token: String,
    pub platform: PushPlatform,
    /// At most 100 characters.
    pub device_name: Option<String>,
}

/// Close enough to Expo's prefix to default the platform to expo (and then be checked).
fn looks_expo(t: &str) -> bool {
    t.starts_with("ExponentPushToken") || t.starts_with("ExpoPushToken")
}

impl NewPushToken {
    pub fn parse(raw: &RawPush) -> Result<NewPushToken> {
        let mut v = Validator::new();
        let token = v.text("token", raw.token, 4096);
        let platform = match raw.platform {
            Some(p) if !p.is_empty() => v.choice_of::<PushPlatform>("platform", p),
            None if looks_expo(&token) => Some(PushPlatform::Expo),
            _ => {
                v.add("platform", "required", "expo or fcm");
                None
            }
        };
        if platform == Some(PushPlatform::Expo) && !token.is_empty() {
            v.check(
                Expo::is_expo_token(&token),
                "token",
                "invalid",
                "an Expo push token looks like ExponentPushToken[…]",
            );
        }
        let device = raw.device_name.map(str::trim).filter(|d| !d.is_empty());
        v.check(
            device.is_none_or(|d| d.chars().count() <= 100),
            "deviceName",
            "too_long",
            "must be at most 100 characters",
        );
        v.finish()?;
        Ok(NewPushToken {
            token,
            platform: platform.expect("validated"),
            device_name: device.map(str::to_string),
        })
    }
}

/// A token registered.
pub struct Registered {
    pub row: PushToken,
    /// The caller had not registered this token before.
    pub created: bool,
    /// The account the token was taken from, if any.
    pub moved_from: Option<Id>,
}

/// Registers the token for the caller, taking it from any other account.
pub async fn register(actor: &Actor, db: &Db, t: NewPushToken) -> Result<Registered> {
    let me = actor.user_id;
    let mut tx = db.begin().await?;
    let before = notifications::push_tokens_of(&mut tx, me)
        .await?
        .into_iter()
        .any(|r| r.token == t.token);
    let (row, moved_from) = notifications::register_push_token(
        &mut tx,
        me,
        &t.token,
        t.platform,
        t.device_name.as_deref(),
    )
    .await?;
    tx.commit().await?;
    Ok(Registered {
        row,
        created: !before,
        moved_from,
    })
}

/// Removes the caller's registration of a token (on sign-out); another account's is not
/// found.
pub async fn unregister(actor: &Actor, db: &Db, token: &str) -> Result<()> {
    let mut c = db.acquire().await?;
    if !notifications::remove_push_token(&mut c, actor.user_id, token.trim()).await? {
        return Err(Error::not_found("push registration"));
    }
    Ok(())
}

// ---- browsers (Web Push) ----

/// A browser's `PushSubscription` as it arrives (`subscription.toJSON()`: endpoint and keys).
#[derive(Clone, Copy, Debug, Default)]
pub struct RawWebSubscription<'a> {
    pub endpoint: &'a str,
    pub p256dh: &'a str,
    pub auth: &'a str,
    pub device_name: Option<&'a str>,
}

/// A checked subscription: an endpoint on a configured push service, keys that encrypt.
#[derive(Clone, Debug)]
pub struct NewWebSubscription {
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub device_name: Option<String>,
}

impl NewWebSubscription {
    pub fn parse(raw: &RawWebSubscription, cfg: &WebPushConfig) -> Result<NewWebSubscription> {
        let mut v = Validator::new();
        let endpoint = v.text("endpoint", raw.endpoint, 2048);
        if !endpoint.is_empty() {
            let ok = url::Url::parse(&endpoint)
                .is_ok_and(|u| webpush::endpoint_allowed(&u, &cfg.endpoint_hosts));
            v.check(
                ok,
                "endpoint",
                "invalid",
                "an https URL of a known push service (WEB_PUSH_ENDPOINT_HOSTS)",
            );
        }
        let p256dh = v.text("keys.p256dh", raw.p256dh, 200);
        let auth = v.text("keys.auth", raw.auth, 100);
        if !p256dh.is_empty()
            && !auth.is_empty()
            && let Err(e) = webpush::check_keys(&p256dh, &auth)
        {
            v.add("keys", "invalid", e.0);
        }
        let device = raw.device_name.map(str::trim).filter(|d| !d.is_empty());
        v.check(
            device.is_none_or(|d| d.chars().count() <= 100),
            "deviceName",
            "too_long",
            "must be at most 100 characters",
        );
        v.finish()?;
        Ok(NewWebSubscription {
            endpoint,
            p256dh,
            auth,
            device_name: device.map(str::to_string),
        })
    }
}

/// A browser subscription saved.
pub struct WebRegistered {
    pub row: WebSubscription,
    pub created: bool,
    pub moved_from: Option<Id>,
}

/// Saves the browser's subscription for the caller (an endpoint is one browser profile: it is
/// taken from any other account, as a phone's token is).
pub async fn subscribe_web(actor: &Actor, db: &Db, s: NewWebSubscription) -> Result<WebRegistered> {
    let me = actor.user_id;
    let mut tx = db.begin().await?;
    let (row, previous) = notifications::save_web_subscription(
        &mut tx,
        me,
        &s.endpoint,
        &s.p256dh,
        &s.auth,
        s.device_name.as_deref(),
    )
    .await?;
    tx.commit().await?;
    Ok(WebRegistered {
        row,
        created: previous != Some(me),
        moved_from: previous.filter(|p| *p != me),
    })
}

/// Removes the caller's subscription with this endpoint (the page turned notifications off).
pub async fn unsubscribe_web(actor: &Actor, db: &Db, endpoint: &str) -> Result<()> {
    let mut c = db.acquire().await?;
    if !notifications::remove_web_subscription(&mut c, actor.user_id, endpoint.trim()).await? {
        return Err(Error::not_found("web push subscription"));
    }
    Ok(())
}

/// The VAPID public key the page subscribes with (`applicationServerKey`).
pub fn vapid_public_key(cfg: &WebPushConfig) -> Result<String> {
    let keys = cfg
        .vapid()
        .map_err(|e| Error::internal(anyhow::anyhow!("VAPID key: {e}")))?;
    Ok(keys.public_key())
}
