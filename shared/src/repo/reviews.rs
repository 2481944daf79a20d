//! Reviews and their keypoints: rows and queries. A review's status moves compare-and-set
//! ([`set_status`]), like a clip's.

use crate::db::{Executor, Id, Ts};
use crate::model::reviews::{KeypointOrigin, ReviewStatus};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Review {
    pub id: Id,
    pub org_id: Id,
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub title: String,
    pub summary: Option<String>,
    pub status: ReviewStatus,
    pub job_id: Option<Id>,
    pub built_at: Option<Ts>,
    pub published_at: Option<Ts>,
    pub published_by: Option<Id>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str =
    "id, org_id, session_id, athlete_id, title, summary, status, job_id, built_at,
    published_at, published_by, created_by, created_at, updated_at";

pub async fn insert(x: &mut impl Executor, r: &Review) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO reviews (id, org_id, session_id, athlete_id, title, summary, status, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
        .bind(r.id).bind(r.org_id).bind(r.session_id).bind(r.athlete_id).bind(&r.title)
        .bind(&r.summary).bind(r.status).bind(r.created_by).bind(r.created_at).bind(r.updated_at))?;
    Ok(())
}

/// The review, read through its workspace.
pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Review>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM reviews WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Review>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

/// What a review list may be narrowed to.
#[derive(Debug, Default, Clone, Copy)]
pub struct Filter {
    pub session: Option<Id>,
    pub athlete: Option<Id>,
    pub status: Option<ReviewStatus>,
}

pub async fn list(
    x: &mut impl Executor,
    org: Id,
    f: Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Review>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM reviews WHERE org_id = $1 AND ($2 IS NULL OR session_id = $2)
           AND ($3 IS NULL OR athlete_id = $3) AND ($4 IS NULL OR status = $4)
         ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6"
    );
    sql!(x, c => sqlx::query_as::<_, Review>(sqlx::AssertSqlSafe(q)).bind(org).bind(f.session)
        .bind(f.athlete).bind(f.status).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Writes the editable fields (title, summary, athlete).
pub async fn update(x: &mut impl Executor, r: &Review) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE reviews SET title = $2, summary = $3, athlete_id = $4, updated_at = $5 WHERE id = $1")
        .bind(r.id).bind(&r.title).bind(&r.summary).bind(r.athlete_id).bind(Ts::now()))?;
    Ok(())
}

/// What a status change also writes.
#[derive(Debug, Default)]
pub struct Change {
    pub job_id: Option<Id>,
    pub built: bool,
    pub published_by: Option<Id>,
}

/// Moves the review from `from` to `to`; false when it was no longer `from`.
pub async fn set_status(
    x: &mut impl Executor,
    id: Id,
    from: ReviewStatus,
    to: ReviewStatus,
    ch: Change,
) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE reviews SET status = $3, job_id = COALESCE($4, job_id),
            built_at = CASE WHEN $5 THEN $7 ELSE built_at END,
            published_at = CASE WHEN $6 IS NULL THEN published_at ELSE $7 END,
            published_by = COALESCE($6, published_by), updated_at = $7
         WHERE id = $1 AND status = $2"
        )
        .bind(id)
        .bind(from)
        .bind(to)
        .bind(ch.job_id)
        .bind(ch.built)
        .bind(ch.published_by)
        .bind(now)
    )?;
    Ok(n == 1)
}

pub async fn delete(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM reviews WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )?;
    Ok(n == 1)
}

/// Marks the review edited: a `ready` review goes back to `draft` (it needs a new build).
pub async fn touch(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE reviews SET status = CASE WHEN status = 'ready' THEN 'draft' ELSE status END, updated_at = $2 WHERE id = $1")
        .bind(id).bind(Ts::now()))?;
    Ok(())
}

// ---- keypoints ----

#[derive(Debug, Clone, FromRow)]
pub struct Keypoint {
    pub id: Id,
    pub org_id: Id,
    pub review_id: Id,
    pub clip_id: Id,
    pub at_ms: i64,
    pub end_ms: Option<i64>,
    pub body: String,
    pub drawing: Option<Json<Value>>,
    pub maneuver_type: Option<String>,
    pub origin: KeypointOrigin,
    pub suggestion_key: Option<String>,
    pub dismissed_at: Option<Ts>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const KEYPOINT_COLUMNS: &str =
    "id, org_id, review_id, clip_id, at_ms, end_ms, body, drawing, maneuver_type,
    origin, suggestion_key, dismissed_at, created_by, created_at, updated_at";

/// Inserts the keypoint; false when the review has one from the same suggestion already
/// (kept, dismissed or edited by the coach).
pub async fn insert_keypoint(x: &mut impl Executor, k: &Keypoint) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "INSERT INTO review_keypoints (id, org_id, review_id, clip_id, at_ms, end_ms, body, drawing, maneuver_type,
            origin, suggestion_key, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) ON CONFLICT DO NOTHING")
        .bind(k.id).bind(k.org_id).bind(k.review_id).bind(k.clip_id).bind(k.at_ms).bind(k.end_ms)
        .bind(&k.body).bind(&k.drawing).bind(&k.maneuver_type).bind(k.origin).bind(&k.suggestion_key)
        .bind(k.created_by).bind(k.created_at))?;
    Ok(n == 1)
}

/// The review's keypoints in clip and time order (dismissed suggestions left out).
pub async fn keypoints(x: &mut impl Executor, review: Id) -> Result<Vec<Keypoint>, sqlx::Error> {
    let q = format!(
        "SELECT {KEYPOINT_COLUMNS} FROM review_keypoints WHERE review_id = $1 AND dismissed_at IS NULL
         ORDER BY clip_id, at_ms, id"
    );
    sql!(x, c => sqlx::query_as::<_, Keypoint>(sqlx::AssertSqlSafe(q)).bind(review).fetch_all(&mut *c).await)
}

pub async fn get_keypoint(
    x: &mut impl Executor,
    review: Id,
    id: Id,
) -> Result<Option<Keypoint>, sqlx::Error> {
    let q = format!(
        "SELECT {KEYPOINT_COLUMNS} FROM review_keypoints WHERE id = $1 AND review_id = $2 AND dismissed_at IS NULL"
    );
    sql!(x, c => sqlx::query_as::<_, Keypoint>(sqlx::AssertSqlSafe(q)).bind(id).bind(review).fetch_optional(&mut *c).await)
}

/// Writes a keypoint's editable fields; an edited keypoint is the coach's.
pub async fn update_keypoint(x: &mut impl Executor, k: &Keypoint) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE review_keypoints SET at_ms = $2, end_ms = $3, body = $4, drawing = $5, maneuver_type = $6,
            origin = $7, updated_at = $8 WHERE id = $1")
        .bind(k.id).bind(k.at_ms).bind(k.end_ms).bind(&k.body).bind(&k.drawing).bind(&k.maneuver_type)
        .bind(k.origin).bind(Ts::now()))?;
    Ok(())
}

/// Deletes a keypoint; a suggested one is only hidden, so suggesting again leaves it out.
pub async fn delete_keypoint(x: &mut impl Executor, k: &Keypoint) -> Result<(), sqlx::Error> {
    if k.suggestion_key.is_some() {
        execute!(
            x,
            sqlx::query("UPDATE review_keypoints SET dismissed_at = $2 WHERE id = $1")
                .bind(k.id)
                .bind(Ts::now())
        )?;
    } else {
        execute!(
            x,
            sqlx::query("DELETE FROM review_keypoints WHERE id = $1").bind(k.id)
        )?;
    }
    Ok(())
}

// ---- readers: the athlete and a minor's guardians ----

/// The published reviews of a footage session that `user` may read: those of an athlete whose
/// login they are (not archived) or whose guardian they are.
pub async fn readable_in_session(
    x: &mut impl Executor,
    user: Id,
    session: Id,
) -> Result<Vec<Review>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM reviews WHERE session_id = $1 AND status = 'published' AND athlete_id IN (
            SELECT id FROM athletes WHERE user_id = $2 AND status <> 'archived'
            UNION SELECT athlete_id FROM athlete_guardians WHERE user_id = $2)
         ORDER BY published_at DESC, id"
    );
    sql!(x, c => sqlx::query_as::<_, Review>(sqlx::AssertSqlSafe(q)).bind(session).bind(user).fetch_all(&mut *c).await)
}

/// The published reviews `user` may read (their own as an athlete, or a minor's they are
/// guardian of), newest first.
pub async fn readable_list(
    x: &mut impl Executor,
    user: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Review>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM reviews WHERE status = 'published' AND athlete_id IN (
            SELECT id FROM athletes WHERE user_id = $1 AND status <> 'archived'
            UNION SELECT athlete_id FROM athlete_guardians WHERE user_id = $1)
         ORDER BY published_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Review>(sqlx::AssertSqlSafe(q)).bind(user).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// The published review `id`, if `user` may read it.
pub async fn readable(
    x: &mut impl Executor,
    user: Id,
    id: Id,
) -> Result<Option<Review>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM reviews WHERE id = $1 AND status = 'published' AND athlete_id IN (
            SELECT id FROM athletes WHERE user_id = $2 AND status <> 'archived'
            UNION SELECT athlete_id FROM athlete_guardians WHERE user_id = $2)"
    );
    sql!(x, c => sqlx::query_as::<_, Review>(sqlx::AssertSqlSafe(q)).bind(id).bind(user).fetch_optional(&mut *c).await)
}

#[derive(Debug, Clone, FromRow)]
pub struct Receipt {
    pub review_id: Id,
    pub user_id: Id,
    pub device_id: String,
    pub delivered_at: Ts,
    pub opened_at: Option<Ts>,
}

/// Records a delivery (and an opening when `opened`) by `user` on `device`; the first of each
/// is kept, so repeating it changes nothing.
pub async fn record_receipt(
    x: &mut impl Executor,
    review: Id,
    user: Id,
    device: &str,
    opened: bool,
) -> Result<Receipt, sqlx::Error> {
    let now = Ts::now();
    let opened_at = opened.then_some(now);
    execute!(
        x,
        sqlx::query(
            "INSERT INTO review_receipts (review_id, user_id, device_id, delivered_at, opened_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (review_id, user_id, device_id)
         DO UPDATE SET opened_at = COALESCE(review_receipts.opened_at, EXCLUDED.opened_at)"
        )
        .bind(review)
        .bind(user)
        .bind(device)
        .bind(now)
        .bind(opened_at)
    )?;
    sql!(x, c => sqlx::query_as::<_, Receipt>(
        "SELECT review_id, user_id, device_id, delivered_at, opened_at FROM review_receipts
         WHERE review_id = $1 AND user_id = $2 AND device_id = $3")
        .bind(review).bind(user).bind(device).fetch_one(&mut *c).await)
}

/// Every receipt of a review, oldest first (for its coach).
pub async fn receipts(x: &mut impl Executor, review: Id) -> Result<Vec<Receipt>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Receipt>(
        "SELECT review_id, user_id, device_id, delivered_at, opened_at FROM review_receipts
         WHERE review_id = $1 ORDER BY delivered_at, device_id")
        .bind(review).fetch_all(&mut *c).await)
}
