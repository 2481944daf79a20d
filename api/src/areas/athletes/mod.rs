//! Athletes, athlete invites with the age gate, guardians, import, merge, publish (issue 5).
//!
//! Many athletes are minors: birth dates, notes and guardians are shown only to members with
//! `athletes.read`; the public profile is an allow-list; a minor's profile is published only
//! with a guardian's consent; the age gate runs on the server (`shared::minors`).

pub use shared::minors as age_gate;
pub mod import;
pub mod invites;

use crate::areas::jobs::{JobAccepted, accepted};
use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::db::{Executor, Id, Ts};
use shared::domain::athletes::fields::{self, optional_choice, optional_text, required_choice_in};
use shared::domain::athletes::{
    AthleteFields, AthletePatch, AthleteSource, AthleteStatus, CoachRole, ConsentMethod, Level,
    Naming, RawAthlete, RawPatch, Relationship, Stance,
};
use shared::error::Validator;
use shared::repo::athletes::{self, Athlete, StatusFilter};
use shared::repo::{audit, orgs};
use shared::{Error, Result};
use utoipa::ToSchema;

/// An athlete as members with `athletes.read` see it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AthleteView {
    pub id: Id,
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub age: Option<u32>,
    /// Under 18, or birth date unknown.
    pub minor: bool,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub notes: Option<String>,
    /// active, pending (self-enrolled) or archived
    pub status: AthleteStatus,
    /// The athlete has claimed a login.
    pub has_login: bool,
    pub published: bool,
    pub public_slug: Option<String>,
    pub public_bio: Option<String>,
    /// manual, import, invite, enrollment
    pub source: AthleteSource,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<&Athlete> for AthleteView {
    fn from(a: &Athlete) -> Self {
        AthleteView {
            id: a.id,
            first_name: a.first_name.clone(),
            last_name: a.last_name.clone(),
            email: a.email.clone(),
            birth_date: a.birth_date,
            age: a.birth_date.map(age_gate::age),
            minor: age_gate::is_minor(a.birth_date),
            stance: a.stance,
            level: a.level,
            notes: a.notes.clone(),
            status: a.status,
            has_login: a.user_id.is_some(),
            published: a.published,
            public_slug: a.public_slug.clone(),
            public_bio: a.public_bio.clone(),
            source: a.source,
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

/// The athlete `id` of the caller's workspace; another workspace's is not found.
pub async fn load(x: &mut impl Executor, ws: &Ws, id: Id) -> Result<Athlete> {
    athletes::get(x, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))
}

fn entry<'a>(
    ws: &Ws,
    caller: &Caller,
    action: &'a str,
    target: Id,
    data: serde_json::Value,
) -> audit::Entry<'a> {
    caller.audit(
        Some(ws.org_id),
        action,
        "athlete",
        Some(target.to_string()),
        data,
    )
}

// ---- list, create, read, update, delete ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListQuery {
    /// Search in first name, last name and email.
    q: Option<String>,
    /// active, pending, archived or all; default: everything but archived.
    status: Option<String>,
    level: Option<String>,
    /// Only athletes assigned to this coach (a user id).
    coach_id: Option<Id>,
    published: Option<bool>,
    #[allow(dead_code)]
    limit: Option<i64>,
    #[allow(dead_code)]
    offset: Option<i64>,
}

pub async fn list(
    State(state): State<AppState>,
    ws: Ws,
    page: Page,
    Query(q): Query<ListQuery>,
) -> Result<axum::Json<Paged<AthleteView>>> {
    let mut v = Validator::new();
    let status = match q.status.as_deref() {
        None => StatusFilter::NotArchived,
        Some("all") => StatusFilter::All,
        Some(s) => match AthleteStatus::parse(s) {
            Ok(s) => StatusFilter::Only(s),
            Err(_) => {
                v.add(
                    "status",
                    "invalid_choice",
                    "must be one of active, pending, archived, all",
                );
                StatusFilter::All
            }
        },
    };
    let level = q.level.as_deref().and_then(|l| {
        let level = Level::parse(l).ok();
        v.check(
            level.is_some(),
            "level",
            "invalid_choice",
            "must be one of beginner, intermediate, advanced, pro",
        );
        level
    });
    v.finish()?;
    let mut c = state.db.acquire().await?;
    let f = athletes::Filter {
        q: q.q.filter(|s| !s.trim().is_empty()),
        status,
        level,
        coach: q.coach_id,
        published: q.published,
    };
    let rows = athletes::list(&mut c, ws.org_id, &f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.iter().map(AthleteView::from).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateAthlete {
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    /// YYYY-MM-DD
    pub birth_date: Option<String>,
    /// regular or goofy
    pub stance: Option<String>,
    /// beginner, intermediate, advanced or pro
    pub level: Option<String>,
    pub notes: Option<String>,
}

impl CreateAthlete {
    /// The plain strings the field rules parse.
    pub fn raw(&self) -> RawAthlete<'_> {
        RawAthlete {
            first_name: &self.first_name,
            last_name: &self.last_name,
            email: self.email.as_deref(),
            birth_date: self.birth_date.as_deref(),
            stance: self.stance.as_deref(),
            level: self.level.as_deref(),
            notes: self.notes.as_deref(),
        }
    }
}

pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<CreateAthlete>,
) -> Result<(StatusCode, axum::Json<AthleteView>)> {
    let mut v = Validator::new();
    let new = AthleteFields::parse(&mut v, Naming::Json, &req.raw())
        .into_new(AthleteStatus::Active, AthleteSource::Manual);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let a = athletes::insert(&mut tx, ws.org_id, &new, Some(caller.user.id)).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.created",
            a.id,
            json!({ "source": "manual" }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(AthleteView::from(&a))))
}

pub async fn get(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<AthleteView>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(AthleteView::from(&load(&mut c, &ws, id).await?)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateAthlete {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// An empty string clears it.
    pub email: Option<String>,
    /// YYYY-MM-DD; an empty string clears it.
    pub birth_date: Option<String>,
    pub stance: Option<String>,
    pub level: Option<String>,
    pub notes: Option<String>,
    /// active, pending or archived (archiving keeps the data; DELETE erases it).
    pub status: Option<String>,
}

pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<UpdateAthlete>,
) -> Result<axum::Json<AthleteView>> {
    let mut v = Validator::new();
    let patch = AthletePatch::parse(
        &mut v,
        &RawPatch {
            first_name: req.first_name.as_deref(),
            last_name: req.last_name.as_deref(),
            email: req.email.as_deref(),
            birth_date: req.birth_date.as_deref(),
            stance: req.stance.as_deref(),
            level: req.level.as_deref(),
            notes: req.notes.as_deref(),
            status: req.status.as_deref(),
        },
    );
    v.finish()?;
    let changed = patch.fields();
    let mut tx = state.db.begin().await?;
    let mut a = load(&mut tx, &ws, id).await?;
    patch.apply(&mut a);
    // A minor's published profile needs a consent; an edit that makes them a minor unpublishes.
    if a.published
        && age_gate::is_minor(a.birth_date)
        && !athletes::has_active_consent(&mut tx, a.id).await?
    {
        a.published = false;
    }
    athletes::update(&mut tx, &a).await?;
    // The audit entry names the fields, not their values: minors' data stays out of the log.
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.updated",
            a.id,
            json!({ "fields": changed }),
        ),
    )
    .await?;
    let a = load(&mut tx, &ws, id).await?;
    tx.commit().await?;
    Ok(axum::Json(AthleteView::from(&a)))
}

/// Erases the athlete and everything that is theirs alone (assignments, invites, consents,
/// roster places); footage keeps existing without the link. Archive with PATCH instead to keep it.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let a = load(&mut tx, &ws, id).await?;
    // Free their places first so waitlisted athletes move up.
    let sessions: Vec<Id> = shared::sql!(&mut tx, c => sqlx::query_scalar::<_, Id>(
        "SELECT session_id FROM training_participants WHERE athlete_id = $1 AND status <> 'waitlisted'")
        .bind(a.id).fetch_all(&mut *c).await)?;
    athletes::delete(&mut tx, ws.org_id, a.id).await?;
    for s in sessions {
        if let Some(sess) = shared::repo::training::get(&mut tx, ws.org_id, s).await? {
            shared::repo::training::lock(&mut tx, ws.org_id, s).await?;
            shared::repo::training::promote_waitlist(&mut tx, s, sess.capacity).await?;
        }
    }
    audit::record(
        &mut tx,
        entry(&ws, &caller, "athlete.deleted", a.id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- coach assignments ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignmentView {
    /// The assignment id (`scId`).
    pub id: Id,
    pub user_id: Id,
    pub name: String,
    pub email: String,
    /// head or assistant
    pub role: CoachRole,
    pub created_at: Ts,
}

impl From<athletes::Assignment> for AssignmentView {
    fn from(a: athletes::Assignment) -> Self {
        AssignmentView {
            id: a.id,
            user_id: a.user_id,
            name: a.name,
            email: a.email,
            role: a.role,
            created_at: a.created_at,
        }
    }
}

pub async fn coaches(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<Vec<AssignmentView>>> {
    let mut c = state.db.acquire().await?;
    let a = load(&mut c, &ws, id).await?;
    let rows = athletes::assignments(&mut c, ws.org_id, a.id).await?;
    Ok(axum::Json(
        rows.into_iter().map(AssignmentView::from).collect(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssignCoach {
    /// A member of this workspace.
    pub user_id: Id,
    /// head or assistant (default assistant)
    pub role: Option<String>,
}

pub async fn assign_coach(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<AssignCoach>,
) -> Result<(StatusCode, axum::Json<AssignmentView>)> {
    let mut v = Validator::new();
    let role = optional_choice(&mut v, "role", req.role.as_deref()).unwrap_or(CoachRole::Assistant);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let a = load(&mut tx, &ws, id).await?;
    if orgs::membership(&mut tx, req.user_id, ws.org_id)
        .await?
        .is_none()
    {
        return Err(Error::field(
            "userId",
            "invalid",
            "must be a member of this workspace",
        ));
    }
    let sc = athletes::assign(&mut tx, ws.org_id, a.id, req.user_id, role, caller.user.id)
        .await?
        .ok_or_else(|| {
            Error::conflict(
                "already_assigned",
                "this coach is already assigned to the athlete",
            )
        })?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.coach_assigned",
            a.id,
            json!({ "userId": req.user_id, "role": role, "scId": sc }),
        ),
    )
    .await?;
    let row = athletes::assignments(&mut tx, ws.org_id, a.id)
        .await?
        .into_iter()
        .find(|r| r.id == sc)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("assignment vanished")))?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(row.into())))
}

pub async fn unassign_coach(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path((id, sc)): Path<(Id, Id)>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let a = load(&mut tx, &ws, id).await?;
    if athletes::unassign(&mut tx, ws.org_id, a.id, sc).await? == 0 {
        return Err(Error::not_found("assignment"));
    }
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.coach_unassigned",
            a.id,
            json!({ "scId": sc }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- effective permissions ----

/// What an athlete's own login may do (routes of the athlete-facing areas check these).
pub const ATHLETE_LOGIN_PERMISSIONS: &[&str] = &[
    "profile.read",
    "profile.update",
    "training.read_own",
    "footage.read_own",
    "reviews.read_own",
    "messaging.use",
];

/// What a guardian's login may do for the athlete: what the athlete may, plus consent.
pub const GUARDIAN_PERMISSIONS: &[&str] = &[
    "profile.read",
    "profile.update",
    "training.read_own",
    "footage.read_own",
    "reviews.read_own",
    "messaging.use",
    "consent.manage",
];

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrincipalPermissions {
    pub user_id: Option<Id>,
    pub name: Option<String>,
    /// athlete, coach or guardian
    pub kind: String,
    /// For coaches: head or assistant; for guardians: the relationship.
    pub role: Option<String>,
    pub permissions: Vec<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionsView {
    pub athlete_id: Id,
    pub minor: bool,
    /// The age under which a login needs a guardian, in this workspace's country.
    pub consent_age: u32,
    pub guardian_consent: bool,
    /// The athlete's own login; null until claimed.
    pub athlete: Option<PrincipalPermissions>,
    pub coaches: Vec<PrincipalPermissions>,
    pub guardians: Vec<PrincipalPermissions>,
}

/// The athlete's, their coaches' and their guardians' effective permissions on this athlete.
/// A coach's come from their workspace role (`authz::effective_permissions`), limited to the
/// areas that concern an athlete.
pub async fn permissions(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<PermissionsView>> {
    let mut c = state.db.acquire().await?;
    let a = load(&mut c, &ws, id).await?;
    let org = orgs::by_id(&mut c, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let consent = athletes::has_active_consent(&mut c, a.id).await?;
    let athlete = match a.user_id {
        Some(u) => Some(PrincipalPermissions {
            user_id: Some(u),
            name: shared::repo::users::by_id(&mut c, u).await?.map(|u| u.name),
            kind: "athlete".into(),
            role: None,
            permissions: ATHLETE_LOGIN_PERMISSIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }),
        None => None,
    };
    let mut coaches = vec![];
    for asg in athletes::assignments(&mut c, ws.org_id, a.id).await? {
        let perms = match orgs::membership(&mut c, asg.user_id, ws.org_id).await? {
            Some(m) => shared::authz::effective_permissions(&m.role_key, &m.permissions.0)
                .into_iter()
                .filter(|p| {
                    let area = p.split('.').next().unwrap_or("");
                    matches!(
                        area,
                        "athletes"
                            | "training"
                            | "footage"
                            | "reviews"
                            | "wearable"
                            | "competition"
                            | "messaging"
                    )
                })
                .collect(),
            None => vec![],
        };
        coaches.push(PrincipalPermissions {
            user_id: Some(asg.user_id),
            name: Some(asg.name),
            kind: "coach".into(),
            role: Some(asg.role.to_string()),
            permissions: perms,
        });
    }
    let guardians = athletes::guardians(&mut c, a.id)
        .await?
        .into_iter()
        .map(|g| PrincipalPermissions {
            user_id: Some(g.user_id),
            name: Some(g.name),
            kind: "guardian".into(),
            role: Some(g.relationship.to_string()),
            permissions: GUARDIAN_PERMISSIONS.iter().map(|s| s.to_string()).collect(),
        })
        .collect();
    Ok(axum::Json(PermissionsView {
        athlete_id: a.id,
        minor: age_gate::is_minor(a.birth_date),
        consent_age: age_gate::consent_age(org.country.as_deref()),
        guardian_consent: consent,
        athlete,
        coaches,
        guardians,
    }))
}

// ---- guardian consent ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsentView {
    pub id: Id,
    pub guardian_user_id: Option<Id>,
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    pub relationship: Relationship,
    /// How consent was given: guardian_invite, enrollment_form, paper, email, in_person, phone
    pub method: ConsentMethod,
    pub note: Option<String>,
    /// The member who recorded it (null when the guardian gave it through a link or form).
    pub recorded_by: Option<Id>,
    pub consented_at: Ts,
    pub withdrawn_at: Option<Ts>,
}

impl From<athletes::Consent> for ConsentView {
    fn from(c: athletes::Consent) -> Self {
        ConsentView {
            id: c.id,
            guardian_user_id: c.guardian_user_id,
            guardian_name: c.guardian_name,
            guardian_email: c.guardian_email,
            relationship: c.relationship,
            method: c.method,
            note: c.note,
            recorded_by: c.recorded_by,
            consented_at: c.consented_at,
            withdrawn_at: c.withdrawn_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsentStatus {
    pub athlete_id: Id,
    pub minor: bool,
    pub consent_age: u32,
    /// A consent exists that was not withdrawn.
    pub active: bool,
    pub consents: Vec<ConsentView>,
}

async fn consent_status(x: &mut impl Executor, ws: &Ws, a: &Athlete) -> Result<ConsentStatus> {
    let org = orgs::by_id(x, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let consents: Vec<ConsentView> = athletes::consents(x, a.id)
        .await?
        .into_iter()
        .map(ConsentView::from)
        .collect();
    Ok(ConsentStatus {
        athlete_id: a.id,
        minor: age_gate::is_minor(a.birth_date),
        consent_age: age_gate::consent_age(org.country.as_deref()),
        active: consents.iter().any(|c| c.withdrawn_at.is_none()),
        consents,
    })
}

pub async fn get_consent(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<ConsentStatus>> {
    let mut c = state.db.acquire().await?;
    let a = load(&mut c, &ws, id).await?;
    Ok(axum::Json(consent_status(&mut c, &ws, &a).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordConsent {
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    /// parent, legal_guardian or other
    pub relationship: String,
    /// paper, email, in_person or phone
    pub method: String,
    pub note: Option<String>,
    /// When the guardian consented (default now); not in the future.
    pub consented_at: Option<Ts>,
}

/// A member records a guardian's consent given outside the service (a signed form, an email).
pub async fn record_consent(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<RecordConsent>,
) -> Result<(StatusCode, axum::Json<ConsentStatus>)> {
    let mut v = Validator::new();
    let name = v.text("guardianName", &req.guardian_name, 200);
    let email = req
        .guardian_email
        .as_deref()
        .filter(|e| !e.trim().is_empty())
        .map(|e| v.email("guardianEmail", e));
    let relationship =
        required_choice_in(&mut v, "relationship", &req.relationship, Relationship::ALL);
    let method = required_choice_in(&mut v, "method", &req.method, ConsentMethod::RECORDABLE);
    let note = optional_text(&mut v, "note", req.note.as_deref(), 2000);
    let at = req.consented_at.unwrap_or_else(Ts::now);
    v.check(
        at <= Ts::now(),
        "consentedAt",
        "out_of_range",
        "must not be in the future",
    );
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let a = load(&mut tx, &ws, id).await?;
    let consent = athletes::NewConsent {
        guardian_user_id: None,
        guardian_name: name,
        guardian_email: email,
        relationship: relationship.unwrap_or(Relationship::Other),
        method: method.unwrap_or(ConsentMethod::Paper),
        note,
        recorded_by: Some(caller.user.id),
        consented_at: at,
    };
    let cid = athletes::record_consent(&mut tx, ws.org_id, a.id, &consent).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.consent_recorded",
            a.id,
            json!({ "consentId": cid, "method": method }),
        ),
    )
    .await?;
    let status = consent_status(&mut tx, &ws, &a).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(status)))
}

/// Withdraws every consent; a minor's public profile is unpublished with it.
pub async fn withdraw_consent(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<ConsentStatus>> {
    let mut tx = state.db.begin().await?;
    let mut a = load(&mut tx, &ws, id).await?;
    let n = athletes::withdraw_consents(&mut tx, a.id).await?;
    if a.published && age_gate::is_minor(a.birth_date) {
        a.published = false;
        athletes::update(&mut tx, &a).await?;
    }
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.consent_withdrawn",
            a.id,
            json!({ "withdrawn": n }),
        ),
    )
    .await?;
    let status = consent_status(&mut tx, &ws, &a).await?;
    tx.commit().await?;
    Ok(axum::Json(status))
}

// ---- public profile ----

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishRequest {
    pub published: bool,
    /// A short public text (at most 1000 characters).
    pub bio: Option<String>,
}

pub async fn publish(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<PublishRequest>,
) -> Result<axum::Json<AthleteView>> {
    let mut v = Validator::new();
    let bio = req
        .bio
        .as_deref()
        .map(|b| fields::optional_text(&mut v, "bio", Some(b), 1000));
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut a = load(&mut tx, &ws, id).await?;
    if req.published
        && age_gate::is_minor(a.birth_date)
        && !athletes::has_active_consent(&mut tx, a.id).await?
    {
        return Err(Error::conflict(
            "guardian_consent_required",
            "this athlete is a minor (or has no birth date): record a guardian's consent before publishing",
        ));
    }
    a.published = req.published;
    if let Some(b) = bio {
        a.public_bio = b;
    }
    if a.published && a.public_slug.is_none() {
        a.public_slug = Some(public_slug());
    }
    athletes::update(&mut tx, &a).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            if req.published {
                "athlete.published"
            } else {
                "athlete.unpublished"
            },
            a.id,
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(AthleteView::from(&a)))
}

fn public_slug() -> String {
    // 12 characters of a random token: unguessable enough for a link that is public anyway.
    shared::crypto::new_token("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(12)
        .collect::<String>()
        .to_lowercase()
}

/// The public profile: an allow-list. Minors show their first name and last initial only.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicProfile {
    pub slug: String,
    pub display_name: String,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub bio: Option<String>,
    pub workspace_name: String,
}

pub async fn public_profile(
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<axum::Json<PublicProfile>> {
    let mut c = state.db.acquire().await?;
    let a = athletes::by_slug(&mut c, &slug)
        .await?
        .ok_or_else(|| Error::not_found("profile"))?;
    // A minor whose consent was withdrawn is not shown even if the flag lingered.
    if a.status == AthleteStatus::Archived
        || (age_gate::is_minor(a.birth_date) && !athletes::has_active_consent(&mut c, a.id).await?)
    {
        return Err(Error::not_found("profile"));
    }
    let org = orgs::by_id(&mut c, a.org_id)
        .await?
        .ok_or_else(|| Error::not_found("profile"))?;
    let display_name = if age_gate::is_minor(a.birth_date) {
        format!(
            "{} {}.",
            a.first_name,
            a.last_name
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default()
        )
    } else {
        format!("{} {}", a.first_name, a.last_name)
    };
    Ok(axum::Json(PublicProfile {
        slug,
        display_name,
        stance: a.stance,
        level: a.level,
        bio: a.public_bio,
        workspace_name: org.name,
    }))
}

// ---- merge ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeResult {
    pub athlete: AthleteView,
    /// The merged-away athlete (now deleted).
    pub merged_id: Id,
    #[schema(value_type = Object)]
    pub moved: serde_json::Value,
}

/// Merges athlete `b` into `id`: every reference moves to `id`, `id`'s empty fields are filled
/// from `b`, `b` is deleted; one transaction, one audit entry naming both.
pub async fn merge(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path((id, b)): Path<(Id, Id)>,
) -> Result<axum::Json<MergeResult>> {
    if id == b {
        return Err(Error::bad_request(
            "merge_same_athlete",
            "an athlete cannot be merged with itself",
        ));
    }
    let mut tx = state.db.begin().await?;
    // Lock both in id order so two crossing merges cannot deadlock.
    let (first, second) = if id < b { (id, b) } else { (b, id) };
    if !athletes::lock(&mut tx, ws.org_id, first).await?
        || !athletes::lock(&mut tx, ws.org_id, second).await?
    {
        return Err(Error::not_found("athlete"));
    }
    let mut keep = load(&mut tx, &ws, id).await?;
    let gone = load(&mut tx, &ws, b).await?;
    if keep.user_id.is_some() && gone.user_id.is_some() && keep.user_id != gone.user_id {
        return Err(Error::conflict(
            "merge_conflict",
            "both athletes have their own login; one login must be removed before merging",
        ));
    }
    let moved = athletes::move_references(&mut tx, ws.org_id, gone.id, keep.id).await?;
    keep.email = keep.email.or(gone.email.clone());
    keep.birth_date = keep.birth_date.or(gone.birth_date);
    keep.stance = keep.stance.or(gone.stance);
    keep.level = keep.level.or(gone.level);
    keep.notes = match (keep.notes.take(), gone.notes.clone()) {
        (Some(a), Some(b)) if a != b => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    };
    let user = keep.user_id.or(gone.user_id);
    athletes::delete(&mut tx, ws.org_id, gone.id).await?;
    keep.user_id = user;
    athletes::update(&mut tx, &keep).await?;
    let moved = serde_json::to_value(&moved).map_err(Error::internal)?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.merged",
            keep.id,
            json!({ "into": keep.id, "merged": gone.id, "moved": moved }),
        ),
    )
    .await?;
    let keep = load(&mut tx, &ws, id).await?;
    tx.commit().await?;
    Ok(axum::Json(MergeResult {
        athlete: AthleteView::from(&keep),
        merged_id: gone.id,
        moved,
    }))
}

// ---- provider re-import ----

pub async fn resync(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let mut tx = state.db.begin().await?;
    let a = load(&mut tx, &ws, id).await?;
    let links = athletes::provider_links(&mut tx, a.id).await?;
    if links.is_empty() {
        return Err(Error::conflict(
            "not_provider_linked",
            "this athlete is not linked to a provider; there is nothing to re-import",
        ));
    }
    let job = jobs::kinds::AthleteResync {
        org_id: ws.org_id,
        athlete_id: a.id,
    };
    let enq = jobs::enqueue(
        &mut tx,
        &jobs::Job::spec(&job),
        jobs::Owner {
            org_id: Some(ws.org_id),
            user_id: Some(caller.user.id),
        },
    )
    .await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "athlete.resync_requested",
            a.id,
            json!({ "jobId": enq.id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(accepted(enq))
}
