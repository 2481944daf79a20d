//! Athlete invites and the logins they lead to, behind the server-side age gate
//! (`crate::minors`):
//! - [`create`]: a member makes a single-use link for an athlete (new or on the roster);
//! - [`preview`]: what the holder of a link may see (rate-limited per address);
//! - [`claim`]: the athlete creates their login; under the workspace country's consent age only
//!   with a guardian's consent on record;
//! - [`claim_as_guardian`]: a guardian creates (or proves) their account for a minor, consents,
//!   and optionally makes the minor's own login;
//! - [`enroll`]: public self-enrollment into a workspace that allows it.
//!
//! The claims start a web session in their transaction ([`SignIn`]); the api turns its secret
//! into cookies.

use super::fields::{self, AthleteFields, Naming, RawAthlete};
use super::{AthleteSource, AthleteStatus, ConsentMethod, InviteStatus, Relationship, load};
use crate::crypto::password;
use crate::db::{Db, Id, Ts, Tx, is_unique_violation};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::mail::Email;
use crate::minors;
use crate::repo::athletes::{self, Athlete, Invite, InviteState, NewAthlete, NewConsent};
use crate::repo::users::User;
use crate::repo::{audit, auth_tokens, orgs, ratelimit, users};
use chrono::NaiveDate;
use serde_json::json;

/// Preview lookups allowed per client address per 10 minutes.
pub const LOOKUPS_PER_WINDOW: u32 = 30;
/// Self-enrollments allowed per client address per hour.
pub const ENROLLMENTS_PER_HOUR_PER_ADDRESS: u32 = 10;

/// The web session a claim starts for its new user, in the claim's transaction.
#[derive(Clone, Copy, Debug)]
pub struct SignIn<'a> {
    pub user_agent: Option<&'a str>,
    pub ip: &'a str,
}

impl SignIn<'_> {
    /// Creates the session; returns its secret (the cookie value).
    async fn start(self, tx: &mut Tx, user: Id) -> Result<String> {
        let (_, token) =
            auth_tokens::create_session(tx, user, self.user_agent, Some(self.ip)).await?;
        Ok(token)
    }
}

// ---- making invites ----

/// Who an invite is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InviteFor {
    /// An athlete already on the roster.
    Existing(Id),
    /// A new athlete, created with the invite (source `invite`).
    New(AthleteFields),
}

/// An invite request, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewInvite {
    pub athlete: InviteFor,
    /// Where the link is mailed (default: the athlete's email).
    pub email: Option<String>,
}

/// [`NewInvite`] as it arrives: an athlete id, or the new athlete's fields.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawInvite<'a> {
    pub athlete_id: Option<Id>,
    pub first_name: Option<&'a str>,
    pub last_name: Option<&'a str>,
    pub email: Option<&'a str>,
    pub birth_date: Option<&'a str>,
}

impl NewInvite {
    pub fn parse(raw: &RawInvite) -> Result<NewInvite> {
        let mut v = Validator::new();
        let parsed = match raw.athlete_id {
            Some(id) => NewInvite {
                athlete: InviteFor::Existing(id),
                email: fields::email(&mut v, "email", raw.email),
            },
            None => {
                let f = AthleteFields::parse(
                    &mut v,
                    Naming::Json,
                    &RawAthlete {
                        first_name: raw.first_name.unwrap_or_default(),
                        last_name: raw.last_name.unwrap_or_default(),
                        email: raw.email,
                        birth_date: raw.birth_date,
                        ..Default::default()
                    },
                );
                NewInvite {
                    email: f.email.clone(),
                    athlete: InviteFor::New(f),
                }
            }
        };
        v.finish()?;
        Ok(parsed)
    }
}

/// Whether the link is shown to the member or mailed to the athlete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    Link,
    /// Needs an address: the request's or the athlete's.
    Mail,
}

/// An invite made.
#[derive(Clone, Debug)]
pub struct InviteMade {
    pub athlete: Athlete,
    pub invite: Invite,
    /// The secret, shown or mailed once (stored hashed).
    pub token: String,
    /// Where to mail it (for [`Delivery::Mail`]).
    pub mail_to: Option<String>,
    /// The workspace's name, for the mail.
    pub workspace_name: String,
}

impl InviteMade {
    /// The invite mail, with the link `url` (built from [`InviteMade::token`]).
    pub fn email(&self, url: &str) -> Email {
        let org = &self.workspace_name;
        Email {
            to: self.mail_to.clone().unwrap_or_default(),
            subject: format!("{org} invites you"),
            text: format!(
                "Hello {},\n\n{org} invites you to the surf coaching app. Create your login here:\n\n{url}\n\nThe link works once and expires in 14 days. If you are younger than 16, a parent or guardian may need to create the login for you from the same link.\n",
                self.athlete.first_name
            ),
        }
    }
}

/// Makes an invite for the athlete (creating them first when new). Earlier unused invites of
/// the athlete stop working. 409 `already_claimed` when the athlete has a login.
pub async fn create(
    ws: &InWorkspace,
    db: &Db,
    req: NewInvite,
    delivery: Delivery,
) -> Result<InviteMade> {
    let mut tx = db.begin().await?;
    let athlete = match req.athlete {
        InviteFor::Existing(id) => load(&mut tx, ws.org_id, id).await?,
        InviteFor::New(f) => super::insert_audited(&mut tx, ws, f, AthleteSource::Invite).await?,
    };
    if athlete.user_id.is_some() {
        return Err(already_claimed());
    }
    let to = req.email.or_else(|| athlete.email.clone());
    let emailed = delivery == Delivery::Mail;
    if emailed && to.is_none() {
        return Err(Error::field(
            "email",
            "required",
            "the athlete has no email address; give one",
        ));
    }
    let (invite, token) = athletes::create_invite(
        &mut tx,
        ws.org_id,
        athlete.id,
        to.as_deref(),
        ws.actor.user_id,
    )
    .await?;
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.invited",
            "athlete",
            athlete.id,
            json!({ "inviteId": invite.id, "emailed": emailed }),
        ),
    )
    .await?;
    let workspace_name = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .map(|o| o.name)
        .unwrap_or_default();
    tx.commit().await?;
    Ok(InviteMade {
        athlete,
        invite,
        token,
        mail_to: to,
        workspace_name,
    })
}

fn already_claimed() -> Error {
    Error::conflict("already_claimed", "this athlete already has a login")
}

// ---- the link's holder ----

/// What the holder of an invite link may see: the workspace, the athlete's first name and
/// what the age gate will ask. Nothing for a used or expired link but its state.
#[derive(Clone, Debug)]
pub struct Preview {
    pub status: InviteStatus,
    pub workspace_name: Option<String>,
    pub athlete_first_name: Option<String>,
    pub expires_at: Option<Ts>,
    pub consent_age: Option<u32>,
    pub guardian_consent: Option<bool>,
}

/// The preview of `token` for a caller at `client_ip` (429 beyond [`LOOKUPS_PER_WINDOW`]);
/// an unknown token is not found.
pub async fn preview(db: &Db, token: &str, client_ip: &str) -> Result<Preview> {
    let mut c = db.acquire().await?;
    ratelimit::hit(
        &mut c,
        &format!("invite-lookup:ip:{client_ip}"),
        LOOKUPS_PER_WINDOW,
        chrono::Duration::minutes(10),
    )
    .await?
    .map_err(Error::too_many_requests)?;
    let empty = |status| Preview {
        status,
        workspace_name: None,
        athlete_first_name: None,
        expires_at: None,
        consent_age: None,
        guardian_consent: None,
    };
    match athletes::check_invite(&mut c, token).await? {
        InviteState::Unknown => Err(Error::not_found("invite")),
        InviteState::Used => Ok(empty(InviteStatus::Used)),
        InviteState::Expired => Ok(empty(InviteStatus::Expired)),
        InviteState::Valid(inv) => {
            let a = athletes::by_id_any_org(&mut c, inv.athlete_id)
                .await?
                .ok_or_else(|| Error::not_found("invite"))?;
            let org = orgs::by_id(&mut c, inv.org_id)
                .await?
                .ok_or_else(|| Error::not_found("invite"))?;
            Ok(Preview {
                status: InviteStatus::Valid,
                workspace_name: Some(org.name),
                athlete_first_name: Some(a.first_name),
                expires_at: Some(inv.expires_at),
                consent_age: Some(minors::consent_age(org.country.as_deref())),
                guardian_consent: Some(athletes::has_active_consent(&mut c, a.id).await?),
            })
        }
    }
}

fn token_error(s: &InviteState) -> Error {
    match s {
        InviteState::Expired => Error::unauthorized(
            "token_expired",
            "this invite has expired; ask for a new one",
        ),
        InviteState::Used => Error::unauthorized("token_used", "this invite was already used"),
        _ => Error::unauthorized("invalid_token", "this invite is not valid"),
    }
}

/// The invite behind `token`, unused and unexpired, or the 401 that says why not. Checked
/// before the request's fields, so a bad link answers 401 whatever else is wrong.
async fn valid_invite(db: &Db, token: &str) -> Result<Invite> {
    if token.is_empty() {
        return Err(Error::unauthorized(
            "invalid_token",
            "the invite token is missing",
        ));
    }
    let mut c = db.acquire().await?;
    match athletes::check_invite(&mut c, token).await? {
        InviteState::Valid(i) => Ok(i),
        other => Err(token_error(&other)),
    }
}

/// Uses the invite in `tx` (of two concurrent claims, one wins).
async fn consume(tx: &mut Tx, token: &str, user: Id) -> Result<Invite> {
    match athletes::consume_invite(tx, token, user).await? {
        InviteState::Valid(i) => Ok(i),
        other => Err(token_error(&other)),
    }
}

fn guardian_required(threshold: u32) -> Error {
    Error::forbidden(
        "guardian_required",
        format!("athletes younger than {threshold} need a parent or guardian: they create the login (POST /api/invite/guardian) or their consent is recorded first"),
    )
    .with_details(json!({ "consentAge": threshold }))
}

/// Inserts a user; an existing email is 409 `email_taken` with `message`.
async fn insert_user(
    tx: &mut Tx,
    email: &str,
    name: &str,
    hash: &str,
    message: &'static str,
) -> Result<User> {
    match users::insert(tx, email, name, hash).await {
        Ok(u) => Ok(u),
        Err(e) if is_unique_violation(&e) => Err(Error::conflict("email_taken", message)),
        Err(e) => Err(e.into()),
    }
}

/// The age the gate decides on: the younger of the stated and the recorded birth dates.
fn gate_age(stated: NaiveDate, recorded: Option<NaiveDate>) -> u32 {
    let stated = minors::age(stated);
    recorded.map(minors::age).map_or(stated, |r| r.min(stated))
}

/// Links a login to the athlete (refusing a second one) and records the birth date when the
/// roster has none.
async fn link_login(tx: &mut Tx, athlete: &Athlete, user: Id, birth: NaiveDate) -> Result<()> {
    athletes::lock(tx, athlete.org_id, athlete.id).await?;
    let mut a = load(tx, athlete.org_id, athlete.id).await?;
    if a.user_id.is_some() {
        return Err(already_claimed());
    }
    a.user_id = Some(user);
    if a.birth_date.is_none() {
        a.birth_date = Some(birth);
    }
    athletes::update(tx, &a).await?;
    Ok(())
}

/// An athlete's claim as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawClaim<'a> {
    pub token: &'a str,
    pub email: &'a str,
    pub password: &'a str,
    /// Display name; default: the athlete's first and last name.
    pub name: Option<&'a str>,
    /// YYYY-MM-DD, checked here.
    pub birth_date: &'a str,
}

/// A claim made: the new user, signed in.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub user: User,
    pub athlete_id: Id,
    /// The new web session's secret.
    pub session: String,
}

/// The athlete claims the login. The age gate uses the younger of the stated birth date and
/// the one on the roster; under the workspace country's consent age a guardian's consent must
/// be on record (403 `guardian_required`).
pub async fn claim(db: &Db, raw: &RawClaim<'_>, sign_in: SignIn<'_>) -> Result<Claimed> {
    let inv = valid_invite(db, raw.token).await?;
    let mut v = Validator::new();
    let email = v.email("email", raw.email);
    v.password("password", raw.password);
    let name = raw.name.map(|n| v.text("name", n, fields::NAME_MAX));
    let birth = minors::parse_birth_date(&mut v, "birthDate", raw.birth_date);
    v.finish()?;
    let birth = birth.expect("a missing birth date is a field error");
    let (athlete, threshold, consent) = {
        let mut c = db.acquire().await?;
        let a = athletes::by_id_any_org(&mut c, inv.athlete_id)
            .await?
            .ok_or_else(|| token_error(&InviteState::Unknown))?;
        let org = orgs::by_id(&mut c, inv.org_id)
            .await?
            .ok_or_else(|| token_error(&InviteState::Unknown))?;
        let consent = athletes::has_active_consent(&mut c, a.id).await?;
        (a, minors::consent_age(org.country.as_deref()), consent)
    };
    let youngest = gate_age(birth, athlete.birth_date);
    if youngest < threshold && !consent {
        return Err(guardian_required(threshold));
    }
    let hash = password::hash_async(raw.password.to_string()).await;
    let name = name.unwrap_or_else(|| format!("{} {}", athlete.first_name, athlete.last_name));
    let mut tx = db.begin().await?;
    let user = insert_user(
        &mut tx,
        &email,
        &name,
        &hash,
        "an account with this email exists; sign in or use another address",
    )
    .await?;
    let inv = consume(&mut tx, raw.token, user.id).await?;
    link_login(&mut tx, &athlete, user.id, birth).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(inv.org_id),
            actor: Some(user.id),
            impersonator: None,
            action: "athlete.claimed",
            target_type: "athlete",
            target_id: Some(athlete.id.to_string()),
            // No birth date in the log: only what the gate decided on.
            data: json!({ "inviteId": inv.id, "minorWithConsent": youngest < threshold }),
        },
    )
    .await?;
    let session = sign_in.start(&mut tx, user.id).await?;
    tx.commit().await?;
    Ok(Claimed {
        user,
        athlete_id: athlete.id,
        session,
    })
}

// ---- guardians ----

/// The guardian part of a guardian's claim, as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawGuardian<'a> {
    pub name: &'a str,
    pub email: &'a str,
    /// A new account's password, or the existing account's (a guardian of several athletes).
    pub password: &'a str,
    pub relationship: &'a str,
}

/// A login as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawLogin<'a> {
    pub email: &'a str,
    pub password: &'a str,
}

/// A guardian's claim as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawGuardianClaim<'a> {
    pub token: &'a str,
    /// Absent: `guardian` is `required`.
    pub guardian: Option<RawGuardian<'a>>,
    /// The athlete's birth date (a minor's: adults claim themselves).
    pub athlete_birth_date: &'a str,
    /// The athlete's own login, made by the guardian; optional.
    pub athlete_login: Option<RawLogin<'a>>,
    /// Must be true.
    pub consent: bool,
}

/// A guardian's claim, parsed.
struct GuardianClaim {
    name: String,
    email: String,
    password: String,
    relationship: Relationship,
    birth: NaiveDate,
    athlete_login: Option<(String, String)>,
}

impl GuardianClaim {
    fn parse(raw: &RawGuardianClaim) -> Result<GuardianClaim> {
        let mut v = Validator::new();
        let (name, email, relationship) = match &raw.guardian {
            Some(g) => {
                let name = v.text("guardian.name", g.name, fields::NAME_MAX);
                let email = v.email("guardian.email", g.email);
                v.password("guardian.password", g.password);
                let rel = v.choice_of::<Relationship>(
                    "guardian.relationship",
                    &g.relationship.to_lowercase(),
                );
                (name, email, rel)
            }
            None => {
                v.add(
                    "guardian",
                    "required",
                    "the guardian's name, email, password and relationship",
                );
                (String::new(), String::new(), None)
            }
        };
        let birth = minors::parse_birth_date(&mut v, "athleteBirthDate", raw.athlete_birth_date);
        if let Some(b) = birth {
            v.check(
                minors::age(b) < minors::ADULT_AGE,
                "athleteBirthDate",
                "out_of_range",
                "the athlete is an adult: they claim the invite themselves",
            );
        }
        let athlete_login = raw.athlete_login.map(|l| {
            let e = v.email("athleteLogin.email", l.email);
            v.password("athleteLogin.password", l.password);
            (e, l.password.to_string())
        });
        if athlete_login.as_ref().is_some_and(|(e, _)| *e == email) {
            v.add(
                "athleteLogin.email",
                "invalid",
                "must differ from the guardian's email",
            );
        }
        v.check(
            raw.consent,
            "consent",
            "required",
            "the guardian must consent (true)",
        );
        v.finish()?;
        let (Some(relationship), Some(birth), Some(g)) = (relationship, birth, raw.guardian) else {
            unreachable!("absent fields are field errors")
        };
        Ok(GuardianClaim {
            name,
            email,
            password: g.password.to_string(),
            relationship,
            birth,
            athlete_login,
        })
    }
}

/// A guardian's claim made: the guardian, signed in.
#[derive(Clone, Debug)]
pub struct GuardianClaimed {
    pub guardian: User,
    pub athlete_id: Id,
    /// The athlete's own login when one was made.
    pub athlete_user_id: Option<Id>,
    pub consent_id: Id,
    /// The guardian's new web session's secret.
    pub session: String,
}

/// A guardian uses the invite: their account (new, or an existing one proven by its password:
/// 401 `invalid_credentials` otherwise), their consent (method `guardian_invite`), the
/// guardian link, and optionally the minor's own login. One transaction, one audit entry.
pub async fn claim_as_guardian(
    db: &Db,
    raw: &RawGuardianClaim<'_>,
    sign_in: SignIn<'_>,
) -> Result<GuardianClaimed> {
    valid_invite(db, raw.token).await?;
    let g = GuardianClaim::parse(raw)?;
    let existing = {
        let mut c = db.acquire().await?;
        users::by_email(&mut c, &g.email).await?
    };
    // Hash and verify before the transaction: argon2 is slow and holds no lock.
    let guardian_hash = match &existing {
        Some(u) => {
            if !password::verify_async(g.password.clone(), u.password_hash.clone()).await {
                return Err(Error::unauthorized(
                    "invalid_credentials",
                    "an account with the guardian's email exists and the password does not match",
                ));
            }
            None
        }
        None => Some(password::hash_async(g.password.clone()).await),
    };
    let athlete_login = match g.athlete_login {
        Some((email, pw)) => Some((email, password::hash_async(pw).await)),
        None => None,
    };
    let mut tx = db.begin().await?;
    let guardian = match (existing, guardian_hash) {
        (Some(u), _) => u,
        (None, Some(h)) => {
            insert_user(
                &mut tx,
                &g.email,
                &g.name,
                &h,
                "an account with the guardian's email was just created; sign in and retry",
            )
            .await?
        }
        (None, None) => unreachable!("hash made for a new guardian"),
    };
    let inv = consume(&mut tx, raw.token, guardian.id).await?;
    let athlete = athletes::by_id_any_org(&mut tx, inv.athlete_id)
        .await?
        .ok_or_else(|| token_error(&InviteState::Unknown))?;
    athletes::add_guardian(&mut tx, inv.org_id, athlete.id, guardian.id, g.relationship).await?;
    let consent_id = athletes::record_consent(
        &mut tx,
        inv.org_id,
        athlete.id,
        &NewConsent {
            guardian_user_id: Some(guardian.id),
            guardian_name: guardian.name.clone(),
            guardian_email: Some(guardian.email.clone()),
            relationship: g.relationship,
            method: ConsentMethod::GuardianInvite,
            note: None,
            recorded_by: None,
            consented_at: Ts::now(),
        },
    )
    .await?;
    let athlete_user_id = match athlete_login {
        Some((email, hash)) => {
            let name = format!("{} {}", athlete.first_name, athlete.last_name);
            let u = insert_user(
                &mut tx,
                &email,
                &name,
                &hash,
                "an account with the athlete's email exists",
            )
            .await?;
            link_login(&mut tx, &athlete, u.id, g.birth).await?;
            Some(u.id)
        }
        None => {
            if athlete.birth_date.is_none() {
                let mut a = athlete.clone();
                a.birth_date = Some(g.birth);
                athletes::update(&mut tx, &a).await?;
            }
            None
        }
    };
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(inv.org_id),
            actor: Some(guardian.id),
            impersonator: None,
            action: "athlete.guardian_claimed",
            target_type: "athlete",
            target_id: Some(athlete.id.to_string()),
            data: json!({ "inviteId": inv.id, "consentId": consent_id, "athleteLogin": athlete_user_id.is_some() }),
        },
    )
    .await?;
    let session = sign_in.start(&mut tx, guardian.id).await?;
    tx.commit().await?;
    Ok(GuardianClaimed {
        guardian,
        athlete_id: athlete.id,
        athlete_user_id,
        consent_id,
        session,
    })
}

// ---- club self-enrollment ----

pub async fn enrollment_enabled(ws: &InWorkspace, db: &Db) -> Result<bool> {
    let mut c = db.acquire().await?;
    Ok(athletes::enrollment_enabled(&mut c, ws.org_id).await?)
}

/// Allows or stops public self-enrollment into the workspace.
pub async fn set_enrollment(ws: &InWorkspace, db: &Db, enabled: bool) -> Result<()> {
    let mut tx = db.begin().await?;
    athletes::set_enrollment(&mut tx, ws.org_id, enabled, ws.actor.user_id).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "org.enrollment_changed",
            "org",
            ws.org_id,
            json!({ "enabled": enabled }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// What the public enrollment page of a workspace shows: its name and the age under which a
/// guardian must fill in the form too.
#[derive(Clone, Debug)]
pub struct EnrollmentForm {
    pub workspace_name: String,
    pub consent_age: u32,
}

/// The enrollment page's facts for a workspace that allows self-enrollment; unknown workspaces
/// and workspaces that do not allow it are not found alike, as [`enroll`] answers them.
pub async fn enrollment_form(db: &Db, workspace_id: Id) -> Result<EnrollmentForm> {
    let mut c = db.acquire().await?;
    let org = orgs::by_id(&mut c, workspace_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    if !athletes::enrollment_enabled(&mut c, org.id).await? {
        return Err(Error::not_found("workspace"));
    }
    Ok(EnrollmentForm {
        consent_age: minors::consent_age(org.country.as_deref()),
        workspace_name: org.name,
    })
}

/// The guardian part of an enrollment, as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawEnrollGuardian<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub relationship: &'a str,
    /// Must be true.
    pub consent: bool,
}

/// A self-enrollment as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawEnrollment<'a> {
    pub workspace_id: Id,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub email: &'a str,
    pub birth_date: &'a str,
    /// Required under the workspace country's consent age.
    pub guardian: Option<RawEnrollGuardian<'a>>,
}

struct Enrollment {
    workspace_id: Id,
    athlete: NewAthlete,
    /// The guardian's name, email and relationship.
    guardian: Option<(String, String, Relationship)>,
}

impl Enrollment {
    fn parse(raw: &RawEnrollment) -> Result<Enrollment> {
        let mut v = Validator::new();
        let first_name = fields::name(&mut v, "firstName", raw.first_name);
        let last_name = fields::name(&mut v, "lastName", raw.last_name);
        let email = v.email("email", raw.email);
        let birth = minors::parse_birth_date(&mut v, "birthDate", raw.birth_date);
        let guardian = raw.guardian.map(|g| {
            let name = v.text("guardian.name", g.name, fields::NAME_MAX);
            let gemail = v.email("guardian.email", g.email);
            let rel = v
                .choice_of::<Relationship>("guardian.relationship", &g.relationship.to_lowercase());
            v.check(
                g.consent,
                "guardian.consent",
                "required",
                "the guardian must consent (true)",
            );
            (name, gemail, rel)
        });
        v.finish()?;
        Ok(Enrollment {
            workspace_id: raw.workspace_id,
            athlete: NewAthlete {
                first_name,
                last_name,
                email: Some(email),
                birth_date: birth,
                stance: None,
                level: None,
                notes: None,
                status: AthleteStatus::Pending,
                source: AthleteSource::Enrollment,
            },
            guardian: guardian.map(|(n, e, r)| (n, e, r.expect("validated"))),
        })
    }
}

/// Public self-enrollment (validated first, then [`ENROLLMENTS_PER_HOUR_PER_ADDRESS`] per
/// `client_ip`): a pending athlete in a workspace that allows it, behind the same age gate.
/// Unknown workspaces and workspaces that do not allow it are not found alike; a repeat (same
/// email) succeeds like the first and writes nothing.
pub async fn enroll(db: &Db, raw: &RawEnrollment<'_>, client_ip: &str) -> Result<()> {
    let e = Enrollment::parse(raw)?;
    let birth = e.athlete.birth_date.expect("validated");
    {
        let mut c = db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("enroll:ip:{client_ip}"),
            ENROLLMENTS_PER_HOUR_PER_ADDRESS,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    let mut tx = db.begin().await?;
    let org = orgs::by_id(&mut tx, e.workspace_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    if !athletes::enrollment_enabled(&mut tx, org.id).await? {
        return Err(Error::not_found("workspace"));
    }
    let threshold = minors::consent_age(org.country.as_deref());
    if minors::age(birth) < threshold && e.guardian.is_none() {
        return Err(guardian_required(threshold));
    }
    let email = e.athlete.email.as_deref().unwrap_or_default();
    if athletes::by_email(&mut tx, org.id, email).await?.is_some() {
        return Ok(());
    }
    let a = athletes::insert(&mut tx, org.id, &e.athlete, None).await?;
    let has_guardian = e.guardian.is_some();
    if let Some((name, gemail, relationship)) = e.guardian {
        athletes::record_consent(
            &mut tx,
            org.id,
            a.id,
            &NewConsent {
                guardian_user_id: None,
                guardian_name: name,
                guardian_email: Some(gemail),
                relationship,
                method: ConsentMethod::EnrollmentForm,
                note: None,
                recorded_by: None,
                consented_at: Ts::now(),
            },
        )
        .await?;
    }
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(org.id),
            actor: None,
            impersonator: None,
            action: "athlete.enrolled",
            target_type: "athlete",
            target_id: Some(a.id.to_string()),
            data: json!({ "guardian": has_guardian }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
