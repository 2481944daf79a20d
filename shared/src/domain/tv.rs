//! TV device-code sign-in (RFC 8628 shape). The TV starts and polls without credentials
//! (rate-limited per client address); a signed-in member with `tv.manage` types the user code
//! to bind the TV to the workspace. The TV's token is handed out once, works only on TV
//! routes, and stops working the moment the TV is signed out.

use super::InWorkspace;
use crate::crypto::{new_token, random_bytes};
use crate::db::{Db, Id, Ts};
use crate::error::Validator;
use crate::repo::tv::{self, Device, TvStatus, USER_CODE_ALPHABET};
use crate::repo::{audit, orgs, ratelimit};
use crate::{Error, Result};
use serde_json::json;

const STARTS_PER_MINUTE: u32 = 10;
const POLLS_PER_MINUTE: u32 = 60;
const CLAIM_FAILURES_PER_15_MIN: u32 = 10;

/// 8 letters from a 20-letter alphabet (≈ 34.6 bits), shown as XXXX-XXXX. Rejection sampling
/// keeps every letter equally likely.
fn user_code() -> String {
    let mut out = String::with_capacity(9);
    while out.len() < 9 {
        for b in random_bytes(16) {
            if b < 240 && out.len() < 9 {
                if out.len() == 4 {
                    out.push('-');
                }
                out.push(USER_CODE_ALPHABET[(b % 20) as usize] as char);
            }
        }
    }
    out
}

async fn limit(db: &Db, key: String, max: u32) -> Result<()> {
    let mut c = db.acquire().await?;
    ratelimit::hit(&mut c, &key, max, chrono::Duration::minutes(1))
        .await?
        .map_err(Error::too_many_requests)
}

/// A started device-code sign-in: the codes the TV shows and polls with.
#[derive(Debug, Clone)]
pub struct Started {
    pub device_code: String,
    pub user_code: String,
    pub interval_secs: i64,
    pub expires_in_secs: i64,
}

/// Starts a sign-in for a TV calling itself `name` (raw; "TV" when absent), from `client`.
pub async fn start(db: &Db, client: &str, name: Option<&str>) -> Result<Started> {
    let mut v = Validator::new();
    let name = name
        .map(|n| v.text("name", n, 60))
        .unwrap_or_else(|| "TV".into());
    v.finish()?;
    limit(db, format!("tv:start:{client}"), STARTS_PER_MINUTE).await?;
    let device_code = new_token("tvd_");
    let code = user_code();
    let mut c = db.acquire().await?;
    let d = tv::create(&mut c, &device_code, &code, &name).await?;
    Ok(Started {
        device_code,
        user_code: code,
        interval_secs: d.interval_secs,
        expires_in_secs: tv::CODE_TTL.num_seconds(),
    })
}

/// The token a claimed TV receives, once.
#[derive(Debug, Clone)]
pub struct Delivered {
    pub access_token: String,
    pub device_id: Id,
    pub workspace_id: Id,
}

fn poll_error(code: &'static str, message: &str) -> Error {
    Error::bad_request(code, message.to_string())
}

/// One poll from `client`: `authorization_pending`, `slow_down` (the interval grows by 5 s),
/// `access_denied`, `expired_token`, or the token (once).
///
/// Error codes are RFC 8628's and RFC 6749 §5.2's, all 400: a missing device code is
/// `invalid_request`, an unknown or used-up one `invalid_grant`.
pub async fn poll(db: &Db, client: &str, device_code: &str) -> Result<Delivered> {
    if device_code.is_empty() {
        return Err(poll_error("invalid_request", "the device code is required"));
    }
    limit(db, format!("tv:poll:{client}"), POLLS_PER_MINUTE).await?;
    let mut tx = db.begin().await?;
    let d = tv::by_device_code(&mut tx, device_code)
        .await?
        .ok_or_else(|| poll_error("invalid_grant", "unknown device code"))?;
    let now = Ts::now();
    let pending = d.status == TvStatus::Pending;
    if pending && d.expires_at <= now {
        return Err(poll_error("expired_token", "the code expired; start again"));
    }
    if let Some(last) = d.last_poll_at
        && pending
        && (now.0 - last.0).num_milliseconds() < d.interval_secs * 1000
    {
        tv::record_poll(&mut tx, d.id, d.interval_secs + 5).await?;
        tx.commit().await?;
        return Err(poll_error(
            "slow_down",
            "polling too fast; wait the interval (now 5 s longer)",
        ));
    }
    tv::record_poll(&mut tx, d.id, d.interval_secs).await?;
    match d.status {
        TvStatus::Pending => {
            tx.commit().await?;
            Err(poll_error(
                "authorization_pending",
                "waiting for someone to enter the code",
            ))
        }
        TvStatus::Denied => {
            tx.commit().await?;
            Err(poll_error("access_denied", "the code was refused"))
        }
        TvStatus::Claimed if !d.token_delivered => {
            let token = new_token("sctv_");
            if !tv::deliver_token(&mut tx, d.id, &token).await? {
                return Err(poll_error(
                    "invalid_grant",
                    "the token was already handed out",
                ));
            }
            tx.commit().await?;
            Ok(Delivered {
                access_token: token,
                device_id: d.id,
                workspace_id: d.org_id.expect("claimed devices have a workspace"),
            })
        }
        _ => Err(poll_error("invalid_grant", "this device code is used up")),
    }
}

/// A member's decision on a pending TV, parsed.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Normalized: 8 upper-case letters.
    pub user_code: String,
    /// A new name for the TV; it keeps its own when absent.
    pub name: Option<String>,
    /// False refuses the TV (it then polls `access_denied`).
    pub approve: bool,
}

impl Claim {
    pub fn parse(user_code: &str, name: Option<&str>, approve: Option<bool>) -> Result<Self> {
        let mut v = Validator::new();
        let code = tv::normalize_user_code(user_code);
        v.check(
            code.len() == 8,
            "userCode",
            "invalid",
            "8 letters, as shown on the TV",
        );
        let name = name.map(|n| v.text("name", n, 60));
        v.finish()?;
        Ok(Claim {
            user_code: code,
            name,
            approve: approve.unwrap_or(true),
        })
    }
}

/// Binds (or refuses) the pending TV showing the code. Misses count against the member: 10
/// per 15 minutes, since guessing codes is what the limit stops.
/// Each claim is counted before its code is looked up (one atomic step, so racing guesses
/// cannot pass the limit) and gives its count back unless the code missed.
pub async fn claim(db: &Db, ws: &InWorkspace, c: Claim) -> Result<Device> {
    let key = format!("tv:claim:{}", ws.actor.user_id);
    let window = chrono::Duration::minutes(15);
    ratelimit::hit(
        &mut db.acquire().await?,
        &key,
        CLAIM_FAILURES_PER_15_MIN,
        window,
    )
    .await?
    .map_err(Error::too_many_requests)?;
    let outcome = decide_claim(db, ws, c).await;
    let missed = matches!(&outcome, Err(e) if e.code == "not_found");
    if !missed {
        ratelimit::release(&mut db.acquire().await?, &key).await?;
    }
    outcome
}

async fn decide_claim(db: &Db, ws: &InWorkspace, c: Claim) -> Result<Device> {
    let mut tx = db.begin().await?;
    let Some(d) = tv::pending_by_user_code(&mut tx, &c.user_code).await? else {
        return Err(Error::not_found("pending TV with this code"));
    };
    let name = c.name.unwrap_or_else(|| d.name.clone());
    let decided = tv::decide(&mut tx, d.id, ws.org_id, ws.actor.user_id, &name, c.approve).await?;
    if !decided {
        return Err(Error::not_found("pending TV with this code"));
    }
    let action = if c.approve { "tv.claimed" } else { "tv.denied" };
    audit::record(
        &mut tx,
        ws.audit(action, "tv", d.id, json!({ "name": name })),
    )
    .await?;
    let d = tv::by_id(&mut tx, d.id)
        .await?
        .ok_or_else(|| Error::not_found("device"))?;
    tx.commit().await?;
    Ok(d)
}

/// The workspace's signed-in TVs, newest claim first.
pub async fn list(db: &Db, ws: &InWorkspace) -> Result<Vec<Device>> {
    let mut c = db.acquire().await?;
    Ok(tv::list_for_org(&mut c, ws.org_id).await?)
}

/// Renames a signed-in TV; `name` is raw input.
pub async fn rename(db: &Db, ws: &InWorkspace, id: Id, name: &str) -> Result<Device> {
    let mut v = Validator::new();
    let name = v.text("name", name, 60);
    v.finish()?;
    let mut tx = db.begin().await?;
    if !tv::rename(&mut tx, ws.org_id, id, &name).await? {
        return Err(Error::not_found("TV"));
    }
    audit::record(
        &mut tx,
        ws.audit("tv.renamed", "tv", id, json!({ "name": name })),
    )
    .await?;
    let d = tv::by_id(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("TV"))?;
    tx.commit().await?;
    Ok(d)
}

/// Signs a TV out: its token stops working at once.
pub async fn sign_out(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    if !tv::sign_out(&mut tx, ws.org_id, id).await? {
        return Err(Error::not_found("TV"));
    }
    audit::record(&mut tx, ws.audit("tv.signed_out", "tv", id, json!({}))).await?;
    tx.commit().await?;
    Ok(())
}

/// The name of the workspace a TV is bound to.
pub async fn workspace_name(db: &Db, org: Id) -> Result<String> {
    let mut c = db.acquire().await?;
    let org = orgs::by_id(&mut c, org)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    Ok(org.name)
}
