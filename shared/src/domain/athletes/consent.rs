//! Guardian consent for a minor athlete: what is on record, a consent given outside the
//! service recorded by a member, and withdrawal (which unpublishes a minor's profile).

use super::fields::{optional_text, required_choice_in};
use super::{ConsentMethod, Relationship, load};
use crate::db::{Db, Executor, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::minors;
use crate::repo::athletes::{self, Athlete, Consent, NewConsent};
use crate::repo::{audit, orgs};
use crate::times::TimeKind;
use serde_json::json;

pub const GUARDIAN_NAME_MAX: usize = 200;
pub const NOTE_MAX: usize = 2000;

/// The consents on record for an athlete and what the age gate makes of them.
#[derive(Clone, Debug)]
pub struct ConsentStatus {
    pub athlete_id: Id,
    pub minor: bool,
    /// The age under which a login needs a guardian, in the workspace's country.
    pub consent_age: u32,
    /// A consent exists that was not withdrawn.
    pub active: bool,
    pub consents: Vec<Consent>,
}

async fn status(x: &mut impl Executor, org: Id, a: &Athlete) -> Result<ConsentStatus> {
    let org = orgs::by_id(x, org)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let consents = athletes::consents(x, a.id).await?;
    Ok(ConsentStatus {
        athlete_id: a.id,
        minor: minors::is_minor(a.birth_date),
        consent_age: minors::consent_age(org.country.as_deref()),
        active: consents.iter().any(|c| c.withdrawn_at.is_none()),
        consents,
    })
}

pub async fn get(ws: &InWorkspace, db: &Db, id: Id) -> Result<ConsentStatus> {
    let mut c = db.acquire().await?;
    let a = load(&mut c, ws.org_id, id).await?;
    status(&mut c, ws.org_id, &a).await
}

/// A consent a guardian gave outside the service (a signed form, an email), parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedConsent {
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    pub relationship: Relationship,
    /// One of [`ConsentMethod::RECORDABLE`].
    pub method: ConsentMethod,
    pub note: Option<String>,
    pub consented_at: Ts,
}

/// [`RecordedConsent`] as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawConsent<'a> {
    pub guardian_name: &'a str,
    pub guardian_email: Option<&'a str>,
    pub relationship: &'a str,
    pub method: &'a str,
    pub note: Option<&'a str>,
    /// Default now; not in the future.
    pub consented_at: Option<Ts>,
}

impl RecordedConsent {
    /// Parses the fields, reporting every invalid one (400 `validation_failed`).
    pub fn parse(raw: &RawConsent) -> Result<RecordedConsent> {
        let mut v = Validator::new();
        let guardian_name = v.text("guardianName", raw.guardian_name, GUARDIAN_NAME_MAX);
        let guardian_email = super::fields::email(&mut v, "guardianEmail", raw.guardian_email);
        let relationship =
            required_choice_in(&mut v, "relationship", raw.relationship, Relationship::ALL);
        let method = required_choice_in(&mut v, "method", raw.method, ConsentMethod::RECORDABLE);
        let note = optional_text(&mut v, "note", raw.note, NOTE_MAX);
        let consented_at = raw.consented_at.unwrap_or_else(Ts::now);
        v.time("consentedAt", consented_at, TimeKind::Past);
        v.finish()?;
        let (Some(relationship), Some(method)) = (relationship, method) else {
            unreachable!("an absent choice is a field error")
        };
        Ok(RecordedConsent {
            guardian_name,
            guardian_email,
            relationship,
            method,
            note,
            consented_at,
        })
    }
}

/// A member records a guardian's consent given outside the service.
pub async fn record(
    ws: &InWorkspace,
    db: &Db,
    id: Id,
    c: RecordedConsent,
) -> Result<ConsentStatus> {
    let mut tx = db.begin().await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    let method = c.method;
    let consent = NewConsent {
        guardian_user_id: None,
        guardian_name: c.guardian_name,
        guardian_email: c.guardian_email,
        relationship: c.relationship,
        method,
        note: c.note,
        recorded_by: Some(ws.actor.user_id),
        consented_at: c.consented_at,
    };
    let cid = athletes::record_consent(&mut tx, ws.org_id, a.id, &consent).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.consent_recorded",
            "athlete",
            a.id,
            json!({ "consentId": cid, "method": method }),
        ),
    )
    .await?;
    let status = status(&mut tx, ws.org_id, &a).await?;
    tx.commit().await?;
    Ok(status)
}

/// Withdraws every consent; a minor's public profile is unpublished with it.
pub async fn withdraw(ws: &InWorkspace, db: &Db, id: Id) -> Result<ConsentStatus> {
    let mut tx = db.begin().await?;
    let mut a = load(&mut tx, ws.org_id, id).await?;
    let n = athletes::withdraw_consents(&mut tx, a.id).await?;
    if a.published && minors::is_minor(a.birth_date) {
        a.published = false;
        athletes::update(&mut tx, &a).await?;
    }
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.consent_withdrawn",
            "athlete",
            a.id,
            json!({ "withdrawn": n }),
        ),
    )
    .await?;
    let status = status(&mut tx, ws.org_id, &a).await?;
    tx.commit().await?;
    Ok(status)
}
