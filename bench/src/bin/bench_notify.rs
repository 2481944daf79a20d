//! `bench_notify`: a notification fanned out to many recipients (default 10,000,
//! `BENCH_NOTIFY_RECIPIENTS`) over a mix of channels, delivered by one worker (this process's,
//! as one `worker` process runs it) against the loopback fakes of every provider. Run it with
//! `scripts/bench-notify`.
//!
//! The mix, by recipient number: half have an Expo token, a fifth an FCM token, a fifth a
//! browser subscription (Web Push, encrypted and VAPID-signed; the fake decrypts each), a tenth
//! no push device but email; every fifth chose SMS and has a verified phone. Notifications are
//! created as `POST /api/notifications/send` creates them (500 per transaction with their
//! fan-out job), then the worker runs. The clock runs from the first commit to the moment no
//! delivery is pending or sending. Expo gets 100 messages per request (its documented maximum);
//! FCM HTTP v1 has no batch send (one request per token), nor has Web Push; Twilio takes one
//! message per request.
//!
//! Checked after each run: every delivery closed, attempted once (`attempts = 1`), and each
//! device reached exactly once (the fakes count messages per token, endpoint and number).
//! Markdown on stdout, progress on stderr. SQLite in a temporary directory; PostgreSQL too when
//! `BENCH_PG_URL` names an admin URL (a database is created and dropped).

use anyhow::{Result, bail, ensure};
use bench::{env, pg, say};
use serde_json::json;
use shared::config::Config;
use shared::db::{Db, Id, PoolSettings};
use shared::domain::notifications::{self as domain, Channel};
use shared::repo::notifications::{self as repo, NewNotification, PushPlatform};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use testkit::expo::FakeExpo;
use testkit::fcm::FakeFcm;
use testkit::smtp::SmtpSink;
use testkit::twilio::FakeTwilio;
use testkit::webpush::FakePushService;

const SID: &str = "ACbench";
const TOKEN: &str = "bench-auth-token";

struct Fakes {
    expo: FakeExpo,
    fcm: FakeFcm,
    web: FakePushService,
    twilio: FakeTwilio,
    smtp: SmtpSink,
}

#[derive(Default)]
struct Mix {
    expo: usize,
    fcm: usize,
    web: usize,
    email: usize,
    sms: usize,
}

impl Mix {
    fn deliveries(&self) -> usize {
        self.expo + self.fcm + self.web + self.email + self.sms
    }
}

struct Run {
    db: &'static str,
    recipients: usize,
    mix: Mix,
    elapsed: Duration,
    expo_requests: usize,
    expo_max_batch: usize,
}

async fn one(db_name: &'static str, url: &str, n: usize) -> Result<Run> {
    let dir = tempfile::tempdir()?;
    let f = Fakes {
        expo: FakeExpo::start().await,
        fcm: FakeFcm::start().await,
        web: FakePushService::start().await,
        twilio: FakeTwilio::start(SID, TOKEN, "VAbench").await,
        smtp: SmtpSink::start().await,
    };
    let vars: HashMap<&str, String> = [
        ("DATABASE_URL", url.to_string()),
        ("DATA_DIR", dir.path().display().to_string()),
        (
            "SECRET_KEY",
            "bench-secret-key-bench-secret-key-0123".into(),
        ),
        ("PUBLIC_BASE_URL", "http://bench.test".into()),
        ("SMTP_URL", format!("smtp://127.0.0.1:{}", f.smtp.port())),
        ("EXPO_PUSH_URL", f.expo.base_url()),
        ("FCM_SERVICE_ACCOUNT_JSON", f.fcm.service_account_json()),
        ("FCM_BASE_URL", f.fcm.base_url()),
        ("WEB_PUSH_ENDPOINT_HOSTS", f.web.origin()),
        ("TWILIO_BASE_URL", f.twilio.base_url()),
        ("TWILIO_API_BASE_URL", f.twilio.base_url()),
        ("TWILIO_ACCOUNT_SID", SID.into()),
        ("TWILIO_AUTH_TOKEN", TOKEN.into()),
        ("TWILIO_VERIFY_SERVICE_SID", "VAbench".into()),
        ("TWILIO_FROM", "+15005550006".into()),
    ]
    .into_iter()
    .collect();
    let cfg = Config::from_lookup(|k| vars.get(k).cloned())?;
    let db = Db::connect(cfg.database_url.expose(), &PoolSettings::default()).await?;
    api::serve::migrate(&db).await?;

    say(format!("{db_name}: seeding {n} recipients"));
    let mut mix = Mix::default();
    let mut plan: Vec<(Id, Vec<Channel>)> = Vec::with_capacity(n);
    let mut tx = db.begin().await?;
    for i in 0..n {
        let u = shared::repo::users::insert(&mut tx, &format!("r{i}@bench.test"), "R", "x").await?;
        let mut chs = vec![];
        match i % 10 {
            0..=4 => {
                repo::register_push_token(
                    &mut tx,
                    u.id,
                    &format!("ExponentPushToken[b{i}]"),
                    PushPlatform::Expo,
                    None,
                )
                .await?;
                mix.expo += 1;
                chs.push(Channel::Push);
            }
            5 | 6 => {
                repo::register_push_token(
                    &mut tx,
                    u.id,
                    &format!("fcm-b{i}"),
                    PushPlatform::Fcm,
                    None,
                )
                .await?;
                mix.fcm += 1;
                chs.push(Channel::Push);
            }
            7 | 8 => {
                let s = f.web.subscribe();
                repo::save_web_subscription(&mut tx, u.id, &s.endpoint, &s.p256dh, &s.auth, None)
                    .await?;
                mix.web += 1;
                chs.push(Channel::Push);
            }
            _ => {
                mix.email += 1;
                chs.push(Channel::Email);
            }
        }
        if i % 5 == 0 {
            shared::repo::sms::set_verified(
                &mut tx,
                u.id,
                &format!("+3519{i:08}"),
                shared::db::Ts::now(),
            )
            .await?;
            repo::set_choice(&mut tx, u.id, Channel::Sms, "all", true, "settings").await?;
            mix.sms += 1;
            chs.push(Channel::Sms);
        }
        plan.push((u.id, chs));
    }
    tx.commit().await?;

    let wvars: HashMap<&str, &str> = [("SCHEDULER", "off"), ("WORKER_POLL_MS", "20")]
        .into_iter()
        .collect();
    let wcfg = worker::config::WorkerConfig::from_lookup(
        |k| wvars.get(k).map(|v| v.to_string()),
        db_name == "SQLite",
    )?;
    let deps = std::sync::Arc::new(worker::Deps::new(db.clone(), cfg.clone(), wcfg).await?);
    let running = worker::start(deps).await?;

    say(format!("{db_name}: fanning out"));
    let started = Instant::now();
    let data = json!({ "spot": "the point" });
    for chunk in plan.chunks(500) {
        let mut tx = db.begin().await?;
        let mut ids = vec![];
        for (user, chs) in chunk {
            let new = NewNotification {
                user_id: *user,
                org_id: None,
                kind: "forecast.swell",
                title: "Swell alert",
                body: "Head high at the point tomorrow at 7",
                data: &data,
                dedupe_key: Some("bench"),
            };
            if let Some(id) = domain::create(&mut tx, &new, chs).await? {
                ids.push(id);
            }
        }
        domain::fan_out(&mut tx, ids, shared::job::Owner::default()).await?;
        tx.commit().await?;
    }
    let expected = mix.deliveries() as i64;
    loop {
        let (open, closed) = counts(&db).await?;
        if open == 0 && closed == expected {
            break;
        }
        if started.elapsed() > Duration::from_secs(1800) {
            bail!("{db_name}: {open} deliveries still open after 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed();
    running.shutdown().await;

    // Every delivery sent, once; every device reached once.
    let mut c = db.acquire().await?;
    let rows = repo::due(
        &mut c,
        shared::db::Ts::now().plus(chrono::Duration::days(365)),
        1,
    )
    .await?;
    ensure!(rows.is_empty(), "a delivery is left pending");
    drop(c);
    let (sent, once) = sent_once(&db).await?;
    ensure!(
        sent == expected,
        "{db_name}: {sent} of {expected} deliveries sent"
    );
    ensure!(
        once == expected,
        "{db_name}: {} deliveries attempted more than once",
        expected - once
    );
    let expo_msgs = f.expo.delivered();
    let unique: HashSet<String> = expo_msgs
        .iter()
        .map(|m| m["to"].as_str().unwrap_or("").to_string())
        .collect();
    ensure!(
        expo_msgs.len() == mix.expo && unique.len() == mix.expo,
        "expo: {} messages, {} devices",
        expo_msgs.len(),
        unique.len()
    );
    let fcm_msgs = f.fcm.delivered();
    let unique: HashSet<String> = fcm_msgs
        .iter()
        .map(|m| m["token"].as_str().unwrap_or("").to_string())
        .collect();
    ensure!(
        fcm_msgs.len() == mix.fcm && unique.len() == mix.fcm,
        "fcm: {} messages",
        fcm_msgs.len()
    );
    let web = f.web.received();
    let unique: HashSet<u64> = web.iter().map(|r| r.subscription).collect();
    ensure!(
        web.len() == mix.web && unique.len() == mix.web,
        "web push: {} messages decrypted",
        web.len()
    );
    ensure!(
        f.twilio.messages().len() == mix.sms,
        "sms: {} messages",
        f.twilio.messages().len()
    );
    let reqs = f.expo.requests();
    Ok(Run {
        db: db_name,
        recipients: n,
        mix,
        elapsed,
        expo_requests: reqs.len(),
        expo_max_batch: reqs.iter().map(|r| r.messages.len()).max().unwrap_or(0),
    })
}

async fn counts(db: &Db) -> Result<(i64, i64)> {
    let (open, closed): (i64, i64) = match db {
        Db::Sqlite(p, _) => sqlx::query_as("SELECT COALESCE(SUM(status IN ('pending','sending')), 0), COALESCE(SUM(status NOT IN ('pending','sending')), 0) FROM notification_deliveries").fetch_one(p).await?,
        Db::Pg(p) => sqlx::query_as("SELECT COUNT(*) FILTER (WHERE status IN ('pending','sending')), COUNT(*) FILTER (WHERE status NOT IN ('pending','sending')) FROM notification_deliveries").fetch_one(p).await?,
    };
    Ok((open, closed))
}

async fn sent_once(db: &Db) -> Result<(i64, i64)> {
    let q = "SELECT COUNT(*) FROM notification_deliveries WHERE status = 'sent'";
    let q1 = "SELECT COUNT(*) FROM notification_deliveries WHERE status = 'sent' AND attempts = 1";
    Ok(match db {
        Db::Sqlite(p, _) => (
            sqlx::query_scalar(q).fetch_one(p).await?,
            sqlx::query_scalar(q1).fetch_one(p).await?,
        ),
        Db::Pg(p) => (
            sqlx::query_scalar(q).fetch_one(p).await?,
            sqlx::query_scalar(q1).fetch_one(p).await?,
        ),
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let n = env::num("BENCH_NOTIFY_RECIPIENTS", 10_000)? as usize;
    let mut runs = vec![];
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}/bench.db", dir.path().display());
    runs.push(one("SQLite", &url, n).await?);
    if let Some(admin) = env::opt("BENCH_PG_URL") {
        let name = format!("bench_notify_{}", std::process::id());
        runs.push(
            pg::with_database(&admin, &name, async |url| one("PostgreSQL", url, n).await).await?,
        );
    }
    println!(
        "| database | recipients | deliveries (expo / fcm / web / email / sms) | wall time | deliveries/s per worker process | Expo requests (largest) | each attempted once |"
    );
    println!("|---|---|---|---|---|---|---|");
    for r in &runs {
        let m = &r.mix;
        println!(
            "| {} | {} | {} ({} / {} / {} / {} / {}) | {:.2} s | {:.0} | {} ({}) | yes |",
            r.db,
            r.recipients,
            m.deliveries(),
            m.expo,
            m.fcm,
            m.web,
            m.email,
            m.sms,
            r.elapsed.as_secs_f64(),
            m.deliveries() as f64 / r.elapsed.as_secs_f64(),
            r.expo_requests,
            r.expo_max_batch,
        );
    }
    Ok(())
}
