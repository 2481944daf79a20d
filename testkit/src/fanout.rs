//! A notification fanned out to many recipients over every channel, against the loopback fakes
//! of every provider: the scenario of `bench_notify` and of the worker's process test that
//! kills workers mid-fan-out. It seeds the recipients, creates the notifications as
//! `POST /api/notifications/send` does (a transaction per job, each with its fan-out job), and
//! counts what reached each fake, so a run can tell a device reached twice from one missed.
//!
//! The mix, by recipient number: half have an Expo token, a fifth an FCM token, a fifth a
//! browser subscription (Web Push: encrypted and VAPID-signed, the fake decrypts each), a tenth
//! no push device but email; every fifth chose SMS and has a verified phone.
//!
//! Errors panic: this is scaffolding for a test or a benchmark, which fail anyway.

use crate::expo::FakeExpo;
use crate::fcm::FakeFcm;
use crate::smtp::SmtpSink;
use crate::twilio::FakeTwilio;
use crate::webpush::FakePushService;
use serde_json::json;
use shared::db::{Db, Id, Ts};
use shared::domain::notifications::{self as domain, Channel};
use shared::repo::notifications::{self as repo, NewNotification, PushPlatform};
use std::collections::HashSet;
use std::time::Duration;

const SID: &str = "ACfanout";
const TOKEN: &str = "fanout-auth-token";
const VERIFY: &str = "VAfanout";

/// Every provider the fan-out reaches.
pub struct Fakes {
    pub expo: FakeExpo,
    pub fcm: FakeFcm,
    pub web: FakePushService,
    pub twilio: FakeTwilio,
    pub smtp: SmtpSink,
}

impl Fakes {
    pub async fn start() -> Fakes {
        Fakes {
            expo: FakeExpo::start().await,
            fcm: FakeFcm::start().await,
            web: FakePushService::start().await,
            twilio: FakeTwilio::start(SID, TOKEN, VERIFY).await,
            smtp: SmtpSink::start().await,
        }
    }

    /// The service's configuration naming these fakes, as environment variables.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("PUBLIC_BASE_URL", "http://fanout.test".into()),
            ("SMTP_URL", format!("smtp://127.0.0.1:{}", self.smtp.port())),
            ("EXPO_PUSH_URL", self.expo.base_url()),
            ("FCM_SERVICE_ACCOUNT_JSON", self.fcm.service_account_json()),
            ("FCM_BASE_URL", self.fcm.base_url()),
            ("WEB_PUSH_ENDPOINT_HOSTS", self.web.origin()),
            ("TWILIO_BASE_URL", self.twilio.base_url()),
            ("TWILIO_API_BASE_URL", self.twilio.base_url()),
            ("TWILIO_ACCOUNT_SID", SID.into()),
            ("TWILIO_AUTH_TOKEN", TOKEN.into()),
            ("TWILIO_VERIFY_SERVICE_SID", VERIFY.into()),
            ("TWILIO_FROM", "+15005550006".into()),
        ]
    }

    /// The next `times` requests to each push provider and Twilio answer only after `d` (so
    /// that a kill lands while requests are in flight).
    pub fn slow(&self, d: Duration, times: usize) {
        self.expo.slow_next(d, times);
        self.fcm.slow_next(d, times);
        self.web.slow_next(d, times);
        self.twilio.slow_messages(d, times);
    }
}

/// Deliveries by where they go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mix {
    pub expo: usize,
    pub fcm: usize,
    pub web: usize,
    pub email: usize,
    pub sms: usize,
}

impl Mix {
    pub fn deliveries(&self) -> usize {
        self.expo + self.fcm + self.web + self.email + self.sms
    }
}

/// Who is notified on which channels.
pub struct Recipients {
    pub mix: Mix,
    pub plan: Vec<(Id, Vec<Channel>)>,
}

/// Seeds `n` recipients with their devices (see the module doc).
pub async fn seed(db: &Db, f: &Fakes, n: usize) -> Recipients {
    let mut mix = Mix::default();
    let mut plan = Vec::with_capacity(n);
    let mut tx = db.begin().await.expect("begin");
    for i in 0..n {
        let u = shared::repo::users::insert(&mut tx, &format!("r{i}@fanout.test"), "R", "x")
            .await
            .expect("user");
        let mut chs = vec![];
        match i % 10 {
            0..=4 => {
                repo::register_push_token(
                    &mut tx,
                    u.id,
                    &format!("ExponentPushToken[f{i}]"),
                    PushPlatform::Expo,
                    None,
                )
                .await
                .expect("token");
                mix.expo += 1;
                chs.push(Channel::Push);
            }
            5 | 6 => {
                repo::register_push_token(
                    &mut tx,
                    u.id,
                    &format!("fcm-f{i}"),
                    PushPlatform::Fcm,
                    None,
                )
                .await
                .expect("token");
                mix.fcm += 1;
                chs.push(Channel::Push);
            }
            7 | 8 => {
                let s = f.web.subscribe();
                repo::save_web_subscription(&mut tx, u.id, &s.endpoint, &s.p256dh, &s.auth, None)
                    .await
                    .expect("subscription");
                mix.web += 1;
                chs.push(Channel::Push);
            }
            _ => {
                mix.email += 1;
                chs.push(Channel::Email);
            }
        }
        if i % 5 == 0 {
            shared::repo::sms::set_verified(&mut tx, u.id, &format!("+3519{i:08}"), Ts::now())
                .await
                .expect("phone");
            repo::set_choice(&mut tx, u.id, Channel::Sms, "all", true, "settings")
                .await
                .expect("choice");
            mix.sms += 1;
            chs.push(Channel::Sms);
        }
        plan.push((u.id, chs));
    }
    tx.commit().await.expect("commit");
    Recipients { mix, plan }
}

/// Creates the notifications, `per_job` recipients per transaction, each transaction with its
/// fan-out job (as the send route does with up to 500).
pub async fn notify(db: &Db, r: &Recipients, per_job: usize) {
    let data = json!({ "spot": "the point" });
    for chunk in r.plan.chunks(per_job) {
        let mut tx = db.begin().await.expect("begin");
        let mut ids = vec![];
        for (user, chs) in chunk {
            let new = NewNotification {
                user_id: *user,
                org_id: None,
                kind: "forecast.swell",
                title: "Swell alert",
                body: "Head high at the point tomorrow at 7",
                data: &data,
                dedupe_key: Some("fanout"),
            };
            if let Some(id) = domain::create(&mut tx, &new, chs)
                .await
                .expect("notification")
            {
                ids.push(id);
            }
        }
        domain::fan_out(&mut tx, ids, shared::job::Owner::default())
            .await
            .expect("fan-out job");
        tx.commit().await.expect("commit");
    }
}

/// How the deliveries stand.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Pending or being sent.
    pub open: i64,
    pub closed: i64,
    pub sent: i64,
    /// Sent at their first attempt (the others were taken over after a kill, or retried).
    pub sent_first_attempt: i64,
    /// Closed unsent after a takeover: begun by a run that died or stalled (not sent again).
    pub interrupted: i64,
}

pub async fn progress(db: &Db) -> Progress {
    let q = "SELECT
        COALESCE(SUM(CASE WHEN status IN ('pending', 'sending') THEN 1 ELSE 0 END), 0),
        COALESCE(SUM(CASE WHEN status IN ('pending', 'sending') THEN 0 ELSE 1 END), 0),
        COALESCE(SUM(CASE WHEN status = 'sent' THEN 1 ELSE 0 END), 0),
        COALESCE(SUM(CASE WHEN status = 'sent' AND attempts = 1 THEN 1 ELSE 0 END), 0),
        COALESCE(SUM(CASE WHEN status = 'failed' AND last_error LIKE 'interrupted:%' THEN 1 ELSE 0 END), 0)
        FROM notification_deliveries";
    let mut c = db.acquire().await.expect("connection");
    let (open, closed, sent, sent_first_attempt, interrupted): (i64, i64, i64, i64, i64) =
        shared::sql!(&mut c, c => sqlx::query_as(q).fetch_one(&mut *c).await).expect("progress");
    Progress {
        open,
        closed,
        sent,
        sent_first_attempt,
        interrupted,
    }
}

/// Messages that reached one provider, and the distinct devices (tokens, browsers, numbers,
/// addresses) among them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    pub messages: usize,
    pub devices: usize,
}

impl Reach {
    fn of<T: std::hash::Hash + Eq>(all: impl Iterator<Item = T>) -> Reach {
        let mut seen = HashSet::new();
        let mut messages = 0;
        for k in all {
            messages += 1;
            seen.insert(k);
        }
        Reach {
            messages,
            devices: seen.len(),
        }
    }

    /// Messages beyond the first per device.
    pub fn duplicates(&self) -> usize {
        self.messages - self.devices
    }
}

/// What reached the fakes, per provider.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reached {
    pub expo: Reach,
    pub fcm: Reach,
    pub web: Reach,
    pub email: Reach,
    pub sms: Reach,
}

impl Reached {
    pub fn duplicates(&self) -> usize {
        [self.expo, self.fcm, self.web, self.email, self.sms]
            .iter()
            .map(Reach::duplicates)
            .sum()
    }

    /// Distinct devices reached, all providers.
    pub fn devices(&self) -> usize {
        [self.expo, self.fcm, self.web, self.email, self.sms]
            .iter()
            .map(|r| r.devices)
            .sum()
    }

    /// Whether every device of the mix got the notification (at least once).
    pub fn everyone(&self, m: &Mix) -> bool {
        self.expo.devices == m.expo
            && self.fcm.devices == m.fcm
            && self.web.devices == m.web
            && self.email.devices == m.email
            && self.sms.devices == m.sms
    }
}

pub fn reached(f: &Fakes) -> Reached {
    let text = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or("").to_string();
    Reached {
        expo: Reach::of(f.expo.delivered().iter().map(|m| text(m, "to"))),
        fcm: Reach::of(f.fcm.delivered().iter().map(|m| text(m, "token"))),
        web: Reach::of(f.web.received().iter().map(|r| r.subscription)),
        email: Reach::of(
            f.smtp
                .messages()
                .into_iter()
                .filter(|m| m.subject() == "Swell alert")
                .map(|m| m.to.join(",")),
        ),
        sms: Reach::of(
            f.twilio
                .messages()
                .into_iter()
                .map(|m| m.get("To").cloned().unwrap_or_default()),
        ),
    }
}
