//! A review's life: the operations a member asks for: create for a footage session, list, read, edit,
//! delete and publish. Each write runs in one transaction with its audit entry.

use super::jobs::TranscribeNote;
use super::status::{ReviewEvent, ReviewStatus, next};
use crate::db::{Db, Executor, Id, Ts, Tx};
use crate::domain::InWorkspace;
use crate::domain::notifications;
use crate::error::Validator;
use crate::job::{Enqueued, Job, Owner, enqueue};
use crate::repo::notifications::NewNotification;
use crate::repo::review_audio::VoiceNote;
use crate::repo::reviews::{self, Change, Filter, Keypoint, Review};
use crate::repo::{athletes, audit, footage};
use crate::{Error, Result};
use serde_json::json;

const TARGET: &str = "review";

pub(super) async fn load(tx: &mut Tx, ws: &InWorkspace, id: Id) -> Result<Review> {
    reviews::get(tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("review"))
}

/// A new review as sent.
#[derive(Debug, Default)]
pub struct RawReview<'a> {
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub title: Option<&'a str>,
    pub summary: Option<&'a str>,
}

fn summary(v: &mut Validator, s: Option<&str>) -> Option<String> {
    let s = s.map(str::trim).filter(|s| !s.is_empty())?;
    v.check(
        s.chars().count() <= 10_000,
        "summary",
        "too_long",
        "must be at most 10000 characters",
    );
    Some(s.to_string())
}

async fn check_athlete(tx: &mut Tx, ws: &InWorkspace, athlete: Option<Id>) -> Result<()> {
    if let Some(a) = athlete
        && athletes::get(tx, ws.org_id, a).await?.is_none()
    {
        return Err(Error::field(
            "athleteId",
            "not_found",
            "no such athlete in this workspace",
        ));
    }
    Ok(())
}

/// Creates a draft review of a footage session, for the session's athlete unless another
/// one is named.
pub async fn create(db: &Db, ws: &InWorkspace, raw: &RawReview<'_>) -> Result<Review> {
    let mut v = Validator::new();
    let title = raw
        .title
        .map(|t| v.text("title", t, 200))
        .filter(|t| !t.is_empty());
    let summary = summary(&mut v, raw.summary);
    v.finish()?;
    let mut tx = db.begin().await?;
    let session = footage::get_session(&mut tx, ws.org_id, raw.session_id)
        .await?
        .ok_or_else(|| Error::not_found("footage session"))?;
    let athlete_id = raw.athlete_id.or(session.athlete_id);
    check_athlete(&mut tx, ws, raw.athlete_id).await?;
    let now = Ts::now();
    let r = Review {
        id: Id::new(),
        org_id: ws.org_id,
        session_id: session.id,
        athlete_id,
        title: title.unwrap_or_else(|| format!("Review: {}", session.title)),
        summary,
        status: ReviewStatus::Draft,
        job_id: None,
        built_at: None,
        published_at: None,
        published_by: None,
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    reviews::insert(&mut tx, &r).await?;
    let data = json!({ "sessionId": r.session_id, "athleteId": r.athlete_id });
    audit::record(&mut tx, ws.audit("review.create", TARGET, r.id, data)).await?;
    tx.commit().await?;
    Ok(r)
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    f: Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Review>> {
    let mut c = db.acquire().await?;
    Ok(reviews::list(&mut c, ws.org_id, f, limit, offset).await?)
}

/// A review with what it is made of.
#[derive(Debug, Clone)]
pub struct Full {
    pub review: Review,
    pub keypoints: Vec<Keypoint>,
    pub notes: Vec<VoiceNote>,
}

pub(super) async fn full(x: &mut impl Executor, review: Review) -> Result<Full> {
    let keypoints = reviews::keypoints(x, review.id).await?;
    let notes = crate::repo::review_audio::notes(x, review.id).await?;
    Ok(Full {
        review,
        keypoints,
        notes,
    })
}

/// The review with its keypoints and voice notes.
pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<Full> {
    let mut tx = db.begin().await?;
    let r = load(&mut tx, ws, id).await?;
    let f = full(&mut tx, r).await?;
    tx.commit().await?;
    Ok(f)
}

/// A changed review: absent fields stay; `Some(None)` clears.
#[derive(Debug, Default)]
pub struct RawPatch<'a> {
    pub title: Option<&'a str>,
    pub summary: Option<Option<&'a str>>,
    pub athlete_id: Option<Option<Id>>,
}

/// Edits a draft or ready review (a ready one goes back to draft: it needs a new build).
pub async fn update(db: &Db, ws: &InWorkspace, id: Id, raw: &RawPatch<'_>) -> Result<Review> {
    let mut v = Validator::new();
    let title = raw.title.map(|t| v.text("title", t, 200));
    if let Some(t) = &title {
        v.check(!t.is_empty(), "title", "required", "must not be empty");
    }
    let new_summary = raw.summary.map(|s| summary(&mut v, s));
    v.finish()?;
    let mut tx = db.begin().await?;
    let mut r = load(&mut tx, ws, id).await?;
    next(r.status, ReviewEvent::Edit)?;
    if let Some(t) = title {
        r.title = t;
    }
    if let Some(s) = new_summary {
        r.summary = s;
    }
    if let Some(a) = raw.athlete_id {
        check_athlete(&mut tx, ws, a).await?;
        r.athlete_id = a;
    }
    reviews::update(&mut tx, &r).await?;
    reviews::touch(&mut tx, id).await?;
    audit::record(&mut tx, ws.audit("review.update", TARGET, id, json!({}))).await?;
    let r = load(&mut tx, ws, id).await?;
    tx.commit().await?;
    Ok(r)
}

/// Deletes the review with its keypoints, notes and replies; their recordings go with a job.
pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let r = load(&mut tx, ws, id).await?;
    let keys = crate::repo::review_audio::object_keys(&mut tx, id).await?;
    reviews::delete(&mut tx, ws.org_id, id).await?;
    if !keys.is_empty() {
        let job = super::jobs::delete_recordings(ws.org_id, format!("review {id}"), keys);
        enqueue(&mut tx, &job, Owner::new(ws.org_id, None)).await?;
    }
    let data = json!({ "sessionId": r.session_id, "status": r.status });
    audit::record(&mut tx, ws.audit("review.delete", TARGET, id, data)).await?;
    tx.commit().await?;
    Ok(())
}

/// Publishes a ready review: the athlete (when they have a login) and a minor's guardians are
/// notified, in the same transaction. 409 `review_has_no_athlete` without an athlete.
pub async fn publish(db: &Db, ws: &InWorkspace, id: Id) -> Result<Review> {
    let mut tx = db.begin().await?;
    let r = load(&mut tx, ws, id).await?;
    let to = next(r.status, ReviewEvent::Publish)?;
    let Some(athlete_id) = r.athlete_id else {
        return Err(Error::conflict(
            "review_has_no_athlete",
            "name the athlete the review is for before publishing it",
        ));
    };
    let change = Change {
        published_by: Some(ws.actor.user_id),
        ..Change::default()
    };
    if !reviews::set_status(&mut tx, id, r.status, to, change).await? {
        return Err(Error::conflict(
            "review_state_changed",
            "the review changed while this request ran; read it and try again",
        ));
    }
    let mut readers = Vec::new();
    if let Some(a) = athletes::get(&mut tx, ws.org_id, athlete_id).await? {
        readers.extend(a.user_id);
    }
    readers.extend(
        athletes::guardians(&mut tx, athlete_id)
            .await?
            .into_iter()
            .map(|g| g.user_id),
    );
    let data = json!({ "reviewId": id, "sessionId": r.session_id });
    let dedupe = format!("review:{id}");
    let mut created = Vec::new();
    for user in readers {
        let n = crate::repo::notifications::insert(
            &mut tx,
            &NewNotification {
                user_id: user,
                org_id: Some(ws.org_id),
                kind: "review.published",
                title: "A new review from your coach",
                body: &r.title,
                data: &data,
                dedupe_key: Some(&dedupe),
            },
            notifications::DEFAULT_CHANNELS,
        )
        .await?;
        created.extend(n);
    }
    let owner = Owner {
        org_id: Some(ws.org_id),
        user_id: Some(ws.actor.user_id),
    };
    notifications::fan_out(&mut tx, created.clone(), owner).await?;
    let data = json!({ "athleteId": athlete_id, "notified": created.len() });
    audit::record(&mut tx, ws.audit("review.publish", TARGET, id, data)).await?;
    let r = load(&mut tx, ws, id).await?;
    tx.commit().await?;
    Ok(r)
}

/// Starts the build of a draft or ready review (a job; the same review asked twice before it
/// changes is the same job). `building` until the job ends.
pub async fn build(db: &Db, ws: &InWorkspace, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let r = load(&mut tx, ws, id).await?;
    let work = super::jobs::BuildReview {
        org_id: ws.org_id,
        review_id: id,
        revision: r.updated_at.unix_millis(),
    };
    if r.status == ReviewStatus::Building {
        if let Some(job) = r.job_id
            && still_building(&mut tx, job, id).await?
        {
            return Ok(Enqueued {
                id: job,
                existing: true,
            });
        }
        // The build and its transcriptions have all ended but the review is still building:
        // one was lost (a worker that kept dying past its attempts). A new build asks again
        // for what is still pending, so a review never stays `building` for good.
        let work = super::jobs::BuildReview {
            revision: Ts::now().unix_millis(),
            ..work
        };
        let Enqueued { id: job, existing } = enqueue(
            &mut tx,
            &work,
            Owner::new(ws.org_id, Some(ws.actor.user_id)),
        )
        .await?;
        let change = Change {
            job_id: Some(job),
            ..Change::default()
        };
        reviews::set_status(&mut tx, id, r.status, r.status, change).await?;
        audit::record(
            &mut tx,
            ws.audit(
                "review.build",
                TARGET,
                id,
                json!({ "jobId": job, "resumed": true }),
            ),
        )
        .await?;
        tx.commit().await?;
        return Ok(Enqueued { id: job, existing });
    }
    let to = next(r.status, ReviewEvent::Build)?;
    let Enqueued { id: job, existing } = enqueue(
        &mut tx,
        &work,
        Owner::new(ws.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    let change = Change {
        job_id: Some(job),
        ..Change::default()
    };
    if !reviews::set_status(&mut tx, id, r.status, to, change).await? {
        return Err(Error::conflict(
            "review_state_changed",
            "the review changed while this request ran; read it and try again",
        ));
    }
    audit::record(
        &mut tx,
        ws.audit("review.build", TARGET, id, json!({ "jobId": job })),
    )
    .await?;
    tx.commit().await?;
    Ok(Enqueued { id: job, existing })
}

/// Whether the build job, or a transcription it asked for, is still queued or running.
async fn still_building(tx: &mut Tx, job: Id, review: Id) -> Result<bool> {
    if crate::job::is_live(tx, job).await? {
        return Ok(true);
    }
    for n in crate::repo::review_audio::notes(tx, review).await? {
        if n.transcript_status == super::TranscriptStatus::Pending
            && crate::job::live_with_key(tx, TranscribeNote::KIND, &n.id.to_string())
                .await?
                .is_some()
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The build job's end: a `building` review is `ready`. A review deleted or changed meanwhile
/// is left alone (false).
pub async fn built(db: &Db, org: Id, id: Id) -> Result<bool> {
    let mut tx = db.begin().await?;
    let Some(r) = reviews::get(&mut tx, org, id).await? else {
        return Ok(false);
    };
    let Ok(to) = next(r.status, ReviewEvent::Built) else {
        return Ok(false);
    };
    let change = Change {
        built: true,
        ..Change::default()
    };
    let moved = reviews::set_status(&mut tx, id, r.status, to, change).await?;
    tx.commit().await?;
    Ok(moved)
}
