//! Athletes, athlete invites with the age gate, guardians, import, merge, publish (issue 5).
//!
//! Many athletes are minors: birth dates, notes and guardians are shown only to members with
//! `athletes.read`; the public profile is an allow-list; a minor's profile is published only
//! with a guardian's consent; the age gate runs on the server (`shared::minors`).

pub use shared::minors as age_gate;
pub mod import;
pub mod invites;

use crate::areas::jobs::{JobAccepted, accepted};
use crate::auth::Acting;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::athletes::consent::{self, RawConsent, RecordedConsent};
use shared::domain::athletes::fields::optional_choice;
use shared::domain::athletes::{
    self as domain, AthleteFields, AthletePatch, AthleteSource, AthleteStatus, CoachRole,
    ConsentMethod, Level, Naming, PrincipalKind, RawAthlete, RawPatch, Relationship, Stance,
};
use shared::error::Validator;
use shared::repo::athletes::{self, Athlete};
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
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<ListQuery>,
) -> Result<axum::Json<Paged<AthleteView>>> {
    let mut v = Validator::new();
    let filter = domain::parse_filter(
        &mut v,
        q.q,
        q.status.as_deref(),
        q.level.as_deref(),
        q.coach_id,
        q.published,
    );
    v.finish()?;
    let rows = domain::list(&ws, &state.db, &filter, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.iter().map(AthleteView::from).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateAthlete {
    /// Trimmed; not blank.
    #[schema(pattern = r"\S", max_length = 100)]
    pub first_name: String,
    #[schema(pattern = r"\S", max_length = 100)]
    pub last_name: String,
    pub email: Option<String>,
    /// Not in the future; an age of at most 120.
    #[schema(format = Date)]
    pub birth_date: Option<String>,
    #[schema(value_type = Option<shared::domain::athletes::Stance>)]
    pub stance: Option<String>,
    #[schema(value_type = Option<shared::domain::athletes::Level>)]
    pub level: Option<String>,
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateAthlete>,
) -> Result<(StatusCode, axum::Json<AthleteView>)> {
    let mut v = Validator::new();
    let fields = AthleteFields::parse(
        &mut v,
        Naming::Json,
        &RawAthlete {
            first_name: &req.first_name,
            last_name: &req.last_name,
            email: req.email.as_deref(),
            birth_date: req.birth_date.as_deref(),
            stance: req.stance.as_deref(),
            level: req.level.as_deref(),
            notes: req.notes.as_deref(),
        },
    );
    v.finish()?;
    let a = domain::create(&ws, &state.db, fields).await?;
    Ok((StatusCode::CREATED, axum::Json(AthleteView::from(&a))))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<AthleteView>> {
    let a = domain::get(&ws, &state.db, id).await?;
    Ok(axum::Json(AthleteView::from(&a)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateAthlete {
    #[schema(pattern = r"\S", max_length = 100)]
    pub first_name: Option<String>,
    #[schema(pattern = r"\S", max_length = 100)]
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
    Acting(ws): Acting,
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
    let a = domain::update(&ws, &state.db, id, patch).await?;
    Ok(axum::Json(AthleteView::from(&a)))
}

/// Erases the athlete and everything that is theirs alone (assignments, invites, consents,
/// roster places); footage keeps existing without the link. Archive with PATCH instead to keep it.
pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::delete(&ws, &state.db, id).await?;
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
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<Vec<AssignmentView>>> {
    let rows = domain::coaches(&ws, &state.db, id).await?;
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
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<AssignCoach>,
) -> Result<(StatusCode, axum::Json<AssignmentView>)> {
    let mut v = Validator::new();
    let role = optional_choice(&mut v, "role", req.role.as_deref());
    v.finish()?;
    let role = role.unwrap_or(CoachRole::Assistant);
    let row = domain::assign_coach(&ws, &state.db, id, req.user_id, role).await?;
    Ok((StatusCode::CREATED, axum::Json(row.into())))
}

pub async fn unassign_coach(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, sc)): Path<(Id, Id)>,
) -> Result<StatusCode> {
    domain::unassign_coach(&ws, &state.db, id, sc).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- effective permissions ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrincipalPermissions {
    pub user_id: Option<Id>,
    pub name: Option<String>,
    /// athlete, coach or guardian
    pub kind: PrincipalKind,
    /// For coaches: head or assistant; for guardians: the relationship.
    pub role: Option<String>,
    pub permissions: Vec<String>,
}

impl From<domain::permissions::Principal> for PrincipalPermissions {
    fn from(p: domain::permissions::Principal) -> Self {
        PrincipalPermissions {
            user_id: p.user_id,
            name: p.name,
            kind: p.kind,
            role: p.role,
            permissions: p.permissions,
        }
    }
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

/// The athlete's, their coaches' and their guardians' effective permissions on this athlete
/// (`authz::permissions_on_athlete`).
pub async fn permissions(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<PermissionsView>> {
    let p = domain::permissions::of_athlete(&ws, &state.db, id).await?;
    let list = |v: Vec<domain::permissions::Principal>| v.into_iter().map(Into::into).collect();
    Ok(axum::Json(PermissionsView {
        athlete_id: p.athlete_id,
        minor: p.minor,
        consent_age: p.consent_age,
        guardian_consent: p.guardian_consent,
        athlete: p.athlete.map(Into::into),
        coaches: list(p.coaches),
        guardians: list(p.guardians),
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

impl From<consent::ConsentStatus> for ConsentStatus {
    fn from(s: consent::ConsentStatus) -> Self {
        ConsentStatus {
            athlete_id: s.athlete_id,
            minor: s.minor,
            consent_age: s.consent_age,
            active: s.active,
            consents: s.consents.into_iter().map(ConsentView::from).collect(),
        }
    }
}

pub async fn get_consent(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<ConsentStatus>> {
    let status = consent::get(&ws, &state.db, id).await?;
    Ok(axum::Json(status.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordConsent {
    #[schema(min_length = 1)]
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    #[schema(value_type = shared::domain::athletes::Relationship)]
    pub relationship: String,
    #[schema(value_type = shared::domain::athletes::ConsentMethod)]
    pub method: String,
    pub note: Option<String>,
    /// When the guardian consented (default now); not in the future, not before 1900.
    #[schema(example = "2024-05-01T09:30:00Z")]
    pub consented_at: Option<Ts>,
}

/// A member records a guardian's consent given outside the service (a signed form, an email).
pub async fn record_consent(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<RecordConsent>,
) -> Result<(StatusCode, axum::Json<ConsentStatus>)> {
    let c = RecordedConsent::parse(&RawConsent {
        guardian_name: &req.guardian_name,
        guardian_email: req.guardian_email.as_deref(),
        relationship: &req.relationship,
        method: &req.method,
        note: req.note.as_deref(),
        consented_at: req.consented_at,
    })?;
    let status = consent::record(&ws, &state.db, id, c).await?;
    Ok((StatusCode::CREATED, axum::Json(status.into())))
}

/// Withdraws every consent; a minor's public profile is unpublished with it.
pub async fn withdraw_consent(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<ConsentStatus>> {
    let status = consent::withdraw(&ws, &state.db, id).await?;
    Ok(axum::Json(status.into()))
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
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<PublishRequest>,
) -> Result<axum::Json<AthleteView>> {
    let mut v = Validator::new();
    let p = domain::Publish::parse(&mut v, req.published, req.bio.as_deref());
    v.finish()?;
    let a = domain::publish(&ws, &state.db, id, p).await?;
    Ok(axum::Json(AthleteView::from(&a)))
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
    let p = domain::public_profile(&state.db, slug).await?;
    Ok(axum::Json(PublicProfile {
        slug: p.slug,
        display_name: p.display_name,
        stance: p.stance,
        level: p.level,
        bio: p.bio,
        workspace_name: p.workspace_name,
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
    Acting(ws): Acting,
    Path((id, b)): Path<(Id, Id)>,
) -> Result<axum::Json<MergeResult>> {
    let m = domain::merge(&ws, &state.db, id, b).await?;
    Ok(axum::Json(MergeResult {
        athlete: AthleteView::from(&m.athlete),
        merged_id: m.merged_id,
        moved: serde_json::to_value(&m.moved).map_err(Error::internal)?,
    }))
}

// ---- provider re-import ----

pub async fn resync(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let enq = domain::resync(&ws, &state.db, id).await?;
    Ok(accepted(enq))
}

// ---- the athletes a signed-in user is or looks after ----

/// A coach of one's own athlete record: who and in what part.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyCoachView {
    pub name: String,
    /// head or assistant
    pub role: CoachRole,
}

/// A training session one's athlete is on the roster of.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MySessionView {
    pub session_id: Id,
    pub title: String,
    pub starts_at: Ts,
    /// registered, waitlisted, attended or no_show
    pub status: shared::domain::training::ParticipantStatus,
}

/// An athlete the caller is (their own login) or looks after as a guardian: an allow-list
/// (no coach notes, no other athletes).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyAthleteView {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub workspace_id: Id,
    pub workspace_name: String,
    /// Null: the caller is this athlete; else the caller is their guardian (the relationship).
    pub guardian_as: Option<Relationship>,
    pub coaches: Vec<MyCoachView>,
    /// The newest 20 training sessions on the athlete's roster.
    pub training_sessions: Vec<MySessionView>,
}

impl From<domain::profile::Mine> for MyAthleteView {
    fn from(m: domain::profile::Mine) -> Self {
        let a = m.linked.athlete;
        MyAthleteView {
            athlete_id: a.id,
            first_name: a.first_name,
            last_name: a.last_name,
            workspace_id: a.org_id,
            workspace_name: m.linked.org_name,
            guardian_as: m.linked.relationship,
            coaches: m
                .coaches
                .into_iter()
                .map(|c| MyCoachView {
                    name: c.name,
                    role: c.role,
                })
                .collect(),
            training_sessions: m
                .attendance
                .into_iter()
                .map(|s| MySessionView {
                    session_id: s.session_id,
                    title: s.title,
                    starts_at: s.starts_at,
                    status: s.status,
                })
                .collect(),
        }
    }
}

/// The athletes the caller is or looks after, in every workspace.
pub async fn mine(
    State(state): State<AppState>,
    caller: crate::auth::Caller,
) -> Result<axum::Json<Vec<MyAthleteView>>> {
    let rows = domain::profile::mine(&state.db, caller.user.id).await?;
    Ok(axum::Json(rows.into_iter().map(Into::into).collect()))
}
