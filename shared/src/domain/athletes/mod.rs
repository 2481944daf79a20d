//! The athletes area: the roster, coach assignments, merges and the public profile here;
//! invites, claims and self-enrollment in [`invites`]; guardian consent in [`consent`]; who may
//! do what with an athlete in [`permissions`]. The field rules are in [`fields`], the value
//! sets in [`values`] (the model layer's `crate::model::athletes`, which the queries use too).
//!
//! Many athletes are minors: a minor's profile is published only with a guardian's consent,
//! and an edit or a withdrawal that leaves a published minor without one unpublishes them.

pub mod consent;
pub mod fields;
pub mod invites;
pub mod jobs;
pub mod permissions;
pub mod profile;
pub use crate::model::athletes as values;

pub use fields::{AthleteFields, AthletePatch, Naming, RawAthlete, RawPatch};
pub use values::*;

use super::InWorkspace;
use crate::db::{Db, Executor, Id, Tx};
use crate::error::{Error, Result, Validator};
use crate::job::{Enqueued, Owner, enqueue};
use crate::minors;
use crate::repo::athletes::{self, Assignment, Athlete, Filter, Moved, StatusFilter};
use crate::repo::{audit, orgs, training};
use serde_json::json;

/// The athlete `id` of workspace `org`; another workspace's is not found.
pub async fn load(x: &mut impl Executor, org: Id, id: Id) -> Result<Athlete> {
    athletes::get(x, org, id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))
}

/// The list filter from a query string's values: `status` is a status or `all` (default:
/// everything but archived), `level` a level; both exact.
pub fn parse_filter(
    v: &mut Validator,
    q: Option<String>,
    status: Option<&str>,
    level: Option<&str>,
    coach: Option<Id>,
    published: Option<bool>,
) -> Filter {
    let status = match status {
        None => StatusFilter::NotArchived,
        Some("all") => StatusFilter::All,
        Some(s) => AthleteStatus::parse(s)
            .map(StatusFilter::Only)
            .unwrap_or_else(|_| {
                v.add(
                    "status",
                    "invalid_choice",
                    "must be one of active, pending, archived, all",
                );
                StatusFilter::All
            }),
    };
    let level = level.and_then(|l| {
        let level = Level::parse(l).ok();
        v.check(
            level.is_some(),
            "level",
            "invalid_choice",
            "must be one of beginner, intermediate, advanced, pro",
        );
        level
    });
    Filter {
        q: q.filter(|s| !s.trim().is_empty()),
        status,
        level,
        coach,
        published,
    }
}

/// One page of the workspace's athletes, by last and first name.
pub async fn list(
    ws: &InWorkspace,
    db: &Db,
    filter: &Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Athlete>> {
    let mut c = db.acquire().await?;
    Ok(athletes::list(&mut c, ws.org_id, filter, limit, offset).await?)
}

/// Athletes needing a coach's attention: an invite not claimed, a minor's guardian consent
/// missing, a minor without a guardian (`repo::athletes::needing_attention`).
pub async fn needing_attention(
    ws: &InWorkspace,
    db: &Db,
    limit: i64,
) -> Result<Vec<athletes::Attention>> {
    use chrono::Datelike;
    let today = minors::today();
    // 29 February: the cutoff falls back to 28 February of that year.
    let year = today.year() - minors::ADULT_AGE as i32;
    let cutoff = today
        .with_year(year)
        .or_else(|| chrono::NaiveDate::from_ymd_opt(year, 2, 28))
        .unwrap_or(today);
    let mut c = db.acquire().await?;
    let now = crate::db::Ts::now();
    Ok(athletes::needing_attention(&mut c, ws.org_id, now, cutoff, limit).await?)
}

/// The roster as CSV (every athlete, oldest first), each cell neutralised against formula
/// injection.
pub async fn export_csv(ws: &InWorkspace, db: &Db) -> Result<Vec<u8>> {
    let mut c = db.acquire().await?;
    let rows = athletes::all_of_org(&mut c, ws.org_id).await?;
    Ok(crate::import::export_csv(
        &[
            "id",
            "first_name",
            "last_name",
            "email",
            "birth_date",
            "stance",
            "level",
            "status",
            "notes",
        ],
        rows.into_iter().map(|a| {
            vec![
                a.id.to_string(),
                a.first_name,
                a.last_name,
                a.email.unwrap_or_default(),
                a.birth_date.map(|d| d.to_string()).unwrap_or_default(),
                a.stance.map(|s| s.to_string()).unwrap_or_default(),
                a.level.map(|l| l.to_string()).unwrap_or_default(),
                a.status.to_string(),
                a.notes.unwrap_or_default(),
            ]
        }),
    ))
}

pub async fn get(ws: &InWorkspace, db: &Db, id: Id) -> Result<Athlete> {
    let mut c = db.acquire().await?;
    load(&mut c, ws.org_id, id).await
}

/// Adds an athlete by hand (active, source `manual`).
pub async fn create(ws: &InWorkspace, db: &Db, fields: AthleteFields) -> Result<Athlete> {
    let mut tx = db.begin().await?;
    let a = insert_audited(&mut tx, ws, fields, AthleteSource::Manual).await?;
    tx.commit().await?;
    Ok(a)
}

/// Inserts an active athlete added by the member `ws` and audits `athlete.created` with its
/// source, in the caller's transaction (a hand-made athlete, or one created by an invite).
pub async fn insert_audited(
    tx: &mut Tx,
    ws: &InWorkspace,
    fields: AthleteFields,
    source: AthleteSource,
) -> Result<Athlete> {
    let new = fields.into_new(AthleteStatus::Active, source);
    let a = athletes::insert(tx, ws.org_id, &new, Some(ws.actor.user_id)).await?;
    audit::record(
        tx,
        ws.audit(
            "athlete.created",
            "athlete",
            a.id,
            json!({ "source": source }),
        ),
    )
    .await?;
    Ok(a)
}

/// Applies a patch. A published minor without an active consent is unpublished with it.
pub async fn update(ws: &InWorkspace, db: &Db, id: Id, patch: AthletePatch) -> Result<Athlete> {
    let changed = patch.fields();
    let mut tx = db.begin().await?;
    let mut a = load(&mut tx, ws.org_id, id).await?;
    patch.apply(&mut a);
    if a.published
        && minors::is_minor(a.birth_date)
        && !athletes::has_active_consent(&mut tx, a.id).await?
    {
        a.published = false;
    }
    athletes::update(&mut tx, &a).await?;
    // The audit entry names the fields, not their values: minors' data stays out of the log.
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.updated",
            "athlete",
            a.id,
            json!({ "fields": changed }),
        ),
    )
    .await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    tx.commit().await?;
    Ok(a)
}

/// Erases the athlete and everything that is theirs alone (assignments, invites, consents,
/// roster places); footage keeps existing without the link. The places they held go to the
/// sessions' waitlists.
pub async fn delete(ws: &InWorkspace, db: &Db, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    let sessions = training::sessions_with_place(&mut tx, a.id).await?;
    athletes::delete(&mut tx, ws.org_id, a.id).await?;
    for s in sessions {
        if let Some(sess) = training::get(&mut tx, ws.org_id, s).await? {
            training::lock(&mut tx, ws.org_id, s).await?;
            training::promote_waitlist(&mut tx, s, sess.capacity).await?;
        }
    }
    audit::record(
        &mut tx,
        ws.audit("athlete.deleted", "athlete", a.id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

// ---- coach assignments ----

/// The coaches assigned to the athlete, oldest assignment first.
pub async fn coaches(ws: &InWorkspace, db: &Db, id: Id) -> Result<Vec<Assignment>> {
    let mut c = db.acquire().await?;
    let a = load(&mut c, ws.org_id, id).await?;
    Ok(athletes::assignments(&mut c, ws.org_id, a.id).await?)
}

/// Assigns a member of the workspace as the athlete's coach (409 `already_assigned`).
pub async fn assign_coach(
    ws: &InWorkspace,
    db: &Db,
    id: Id,
    user: Id,
    role: CoachRole,
) -> Result<Assignment> {
    let mut tx = db.begin().await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    if orgs::membership(&mut tx, user, ws.org_id).await?.is_none() {
        return Err(Error::field(
            "userId",
            "invalid",
            "must be a member of this workspace",
        ));
    }
    let sc = athletes::assign(&mut tx, ws.org_id, a.id, user, role, ws.actor.user_id)
        .await?
        .ok_or_else(|| {
            Error::conflict(
                "already_assigned",
                "this coach is already assigned to the athlete",
            )
        })?;
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.coach_assigned",
            "athlete",
            a.id,
            json!({ "userId": user, "role": role, "scId": sc }),
        ),
    )
    .await?;
    let row = athletes::assignments(&mut tx, ws.org_id, a.id)
        .await?
        .into_iter()
        .find(|r| r.id == sc)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("assignment vanished")))?;
    tx.commit().await?;
    Ok(row)
}

/// Ends the assignment `sc` of the athlete.
pub async fn unassign_coach(ws: &InWorkspace, db: &Db, id: Id, sc: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    if athletes::unassign(&mut tx, ws.org_id, a.id, sc).await? == 0 {
        return Err(Error::not_found("assignment"));
    }
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.coach_unassigned",
            "athlete",
            a.id,
            json!({ "scId": sc }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

// ---- public profile ----

pub const BIO_MAX: usize = 1000;

/// Publishing or unpublishing the profile, with an optional bio (`Some(None)` clears it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publish {
    pub published: bool,
    pub bio: Option<Option<String>>,
}

impl Publish {
    pub fn parse(v: &mut Validator, published: bool, bio: Option<&str>) -> Publish {
        Publish {
            published,
            bio: bio.map(|b| fields::optional_text(v, "bio", Some(b), BIO_MAX)),
        }
    }
}

/// Publishes or unpublishes the public profile; a minor needs an active guardian consent
/// (409 `guardian_consent_required`). The first publication gives the profile its slug.
pub async fn publish(ws: &InWorkspace, db: &Db, id: Id, p: Publish) -> Result<Athlete> {
    let mut tx = db.begin().await?;
    let mut a = load(&mut tx, ws.org_id, id).await?;
    if p.published
        && minors::is_minor(a.birth_date)
        && !athletes::has_active_consent(&mut tx, a.id).await?
    {
        return Err(Error::conflict(
            "guardian_consent_required",
            "this athlete is a minor (or has no birth date): record a guardian's consent before publishing",
        ));
    }
    a.published = p.published;
    if let Some(b) = p.bio {
        a.public_bio = b;
    }
    if a.published && a.public_slug.is_none() {
        a.public_slug = Some(public_slug());
    }
    athletes::update(&mut tx, &a).await?;
    let action = if p.published {
        "athlete.published"
    } else {
        "athlete.unpublished"
    };
    audit::record(&mut tx, ws.audit(action, "athlete", a.id, json!({}))).await?;
    tx.commit().await?;
    Ok(a)
}

fn public_slug() -> String {
    // 12 characters of a random token: unguessable enough for a link that is public anyway.
    crate::crypto::new_token("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(12)
        .collect::<String>()
        .to_lowercase()
}

/// What anyone may see of a published athlete: an allow-list.
#[derive(Clone, Debug)]
pub struct PublicProfile {
    pub slug: String,
    /// A minor shows their first name and last initial only.
    pub display_name: String,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub bio: Option<String>,
    pub workspace_name: String,
}

/// The published profile behind `slug`. Archived athletes and minors whose consent was
/// withdrawn are not found, even if the flag lingered.
pub async fn public_profile(db: &Db, slug: String) -> Result<PublicProfile> {
    let mut c = db.acquire().await?;
    let a = athletes::by_slug(&mut c, &slug)
        .await?
        .ok_or_else(|| Error::not_found("profile"))?;
    let minor = minors::is_minor(a.birth_date);
    if a.status == AthleteStatus::Archived
        || (minor && !athletes::has_active_consent(&mut c, a.id).await?)
    {
        return Err(Error::not_found("profile"));
    }
    let org = orgs::by_id(&mut c, a.org_id)
        .await?
        .ok_or_else(|| Error::not_found("profile"))?;
    let display_name = if minor {
        let initial = a.last_name.chars().next().map(String::from);
        format!("{} {}.", a.first_name, initial.unwrap_or_default())
    } else {
        format!("{} {}", a.first_name, a.last_name)
    };
    Ok(PublicProfile {
        slug,
        display_name,
        stance: a.stance,
        level: a.level,
        bio: a.public_bio,
        workspace_name: org.name,
    })
}

// ---- merge ----

/// What a merge did.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The athlete that stays, as it is after the merge.
    pub athlete: Athlete,
    /// The merged-away athlete (now deleted).
    pub merged_id: Id,
    pub moved: Moved,
}

/// Merges athlete `gone` into `keep`: every reference moves to `keep`, `keep`'s empty fields
/// are filled from `gone` (notes are joined), `gone` is deleted; one transaction, one audit
/// entry naming both. Two athletes with different logins cannot merge (409 `merge_conflict`).
pub async fn merge(ws: &InWorkspace, db: &Db, keep: Id, gone: Id) -> Result<Merged> {
    if keep == gone {
        return Err(Error::bad_request(
            "merge_same_athlete",
            "an athlete cannot be merged with itself",
        ));
    }
    let mut tx = db.begin().await?;
    // Lock both in id order so two crossing merges cannot deadlock.
    let (first, second) = if keep < gone {
        (keep, gone)
    } else {
        (gone, keep)
    };
    if !athletes::lock(&mut tx, ws.org_id, first).await?
        || !athletes::lock(&mut tx, ws.org_id, second).await?
    {
        return Err(Error::not_found("athlete"));
    }
    let mut k = load(&mut tx, ws.org_id, keep).await?;
    let g = load(&mut tx, ws.org_id, gone).await?;
    if k.user_id.is_some() && g.user_id.is_some() && k.user_id != g.user_id {
        return Err(Error::conflict(
            "merge_conflict",
            "both athletes have their own login; one login must be removed before merging",
        ));
    }
    let moved = athletes::move_references(&mut tx, ws.org_id, g.id, k.id).await?;
    // Identity decisions follow: `gone`'s rejected profiles and dismissed duplicate pairs.
    crate::repo::identity::move_athlete(&mut tx, ws.org_id, g.id, k.id).await?;
    k.email = k.email.or(g.email.clone());
    k.birth_date = k.birth_date.or(g.birth_date);
    k.stance = k.stance.or(g.stance);
    k.level = k.level.or(g.level);
    k.notes = match (k.notes.take(), g.notes.clone()) {
        (Some(a), Some(b)) if a != b => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    };
    let user = k.user_id.or(g.user_id);
    // The login moves after `gone` is deleted: a user links to one athlete row at a time.
    athletes::delete(&mut tx, ws.org_id, g.id).await?;
    k.user_id = user;
    athletes::update(&mut tx, &k).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.merged",
            "athlete",
            k.id,
            json!({ "into": k.id, "merged": g.id, "moved": moved }),
        ),
    )
    .await?;
    let athlete = load(&mut tx, ws.org_id, keep).await?;
    tx.commit().await?;
    Ok(Merged {
        athlete,
        merged_id: g.id,
        moved,
    })
}

// ---- provider re-import ----

/// Asks for a re-import of the athlete's data from all their providers (409
/// `not_provider_linked` without a provider link): the job, with an audit entry naming it.
pub async fn resync(ws: &InWorkspace, db: &Db, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let a = load(&mut tx, ws.org_id, id).await?;
    if athletes::provider_links(&mut tx, a.id).await?.is_empty() {
        return Err(Error::conflict(
            "not_provider_linked",
            "this athlete is not linked to a provider; there is nothing to re-import",
        ));
    }
    let job = jobs::AthleteResync {
        org_id: a.org_id,
        athlete_id: a.id,
        only: None,
    };
    let queued = enqueue(&mut tx, &job, Owner::new(ws.org_id, Some(ws.actor.user_id))).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "athlete.resync_requested",
            "athlete",
            a.id,
            json!({ "jobId": queued.id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(queued)
}
