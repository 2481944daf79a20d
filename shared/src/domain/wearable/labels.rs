//! Ground truth: rides a coach marks on a session (from video or from the beach), or a mark
//! that the session holds no ride, and the detector's accuracy against them (temporal IoU ≥ 0.5,
//! per session and overall). A session counts once it has a label of either kind; one without
//! labels is unlabelled, not "no rides".

use super::accuracy::{Score, score};
use super::sessions::{find, ts_ms};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::repo::{audit, wearable};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The longest label (rides last at most about 45 s).
pub const MAX_LABEL_S: i64 = 120;

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewLabel {
    pub session_id: Id,
    /// A ride's start: RFC 3339 with milliseconds, the watch's clock; within the session.
    /// Required unless `noRides`.
    #[schema(format = DateTime, example = "2026-03-01T07:12:03.250Z")]
    pub start: Option<String>,
    /// After `start`, at most 120 s later. Required unless `noRides`.
    #[schema(format = DateTime, example = "2026-03-01T07:12:21.500Z")]
    pub end: Option<String>,
    /// Marks the whole session as watched and holding no ride (without `start` and `end`).
    #[serde(default)]
    pub no_rides: bool,
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelView {
    pub id: Id,
    pub session_id: Id,
    pub start: Ts,
    pub end: Ts,
    /// A "no rides" mark, spanning the session when it was made.
    pub no_rides: bool,
    pub note: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

fn view(l: &wearable::Label) -> LabelView {
    LabelView {
        id: l.id,
        session_id: l.session_id,
        start: ts_ms(l.start_ms),
        end: ts_ms(l.end_ms),
        no_rides: l.no_rides,
        note: l.note.clone(),
        created_by: l.created_by,
        created_at: l.created_at,
    }
}

fn ms(v: &mut Validator, field: &str, s: &str) -> Option<i64> {
    v.time_text(field, s, crate::times::TimeKind::Recorded)
        .map(|t| t.unix_millis())
}

pub async fn create(db: &Db, ws: &InWorkspace, req: NewLabel) -> Result<LabelView> {
    let mut v = Validator::new();
    let span = if req.no_rides {
        for (field, given) in [("start", &req.start), ("end", &req.end)] {
            v.check(
                given.is_none(),
                field,
                "not_allowed",
                "a no-rides mark covers the whole session",
            );
        }
        None
    } else {
        let mut time = |field: &str, text: &Option<String>| match text {
            Some(t) => ms(&mut v, field, t),
            None => {
                v.add(field, "required", "a ride label needs a start and an end");
                None
            }
        };
        let (start, end) = (time("start", &req.start), time("end", &req.end));
        if let (Some(a), Some(b)) = (start, end) {
            v.check(b > a, "end", "out_of_range", "must be after start");
            v.check(
                b - a <= MAX_LABEL_S * 1000,
                "end",
                "out_of_range",
                "a ride label lasts at most 120 s",
            );
        }
        start.zip(end)
    };
    let note = req
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| v.text("note", n, 500));
    v.finish()?;
    let mut tx = db.begin().await?;
    // Locked, so that a ride label and a "no rides" mark sent at once cannot both land.
    let s = wearable::lock_session(&mut tx, ws.org_id, req.session_id)
        .await?
        .ok_or_else(|| Error::not_found("wearable session"))?;
    let first = s.started_at.unix_millis();
    let last = s
        .ended_at
        .or(s.last_seen_at)
        .unwrap_or_else(Ts::now)
        .unix_millis();
    let (start, end) = match span {
        Some((start, end)) => {
            if start < first - 60_000 || end > last + 60_000 {
                return Err(Error::field(
                    "start",
                    "out_of_range",
                    "the label must lie within the session",
                ));
            }
            (start, end)
        }
        None => (first, last.max(first)),
    };
    // A ride and a "no rides" mark on one session contradict each other.
    if wearable::count_labels(&mut tx, s.id, !req.no_rides).await? > 0 {
        return Err(if req.no_rides {
            Error::conflict(
                "labels_contradict",
                "the session has ride labels; delete them before marking it as holding no ride",
            )
        } else {
            Error::conflict(
                "labels_contradict",
                "the session is marked as holding no ride; delete that mark first",
            )
        });
    }
    if req.no_rides && wearable::count_labels(&mut tx, s.id, true).await? > 0 {
        return Err(Error::conflict(
            "already_marked",
            "the session is already marked as holding no ride",
        ));
    }
    let l = wearable::Label {
        id: Id::new(),
        org_id: ws.org_id,
        session_id: s.id,
        start_ms: start,
        end_ms: end,
        no_rides: req.no_rides,
        note,
        created_by: Some(ws.actor.user_id),
        created_at: Ts::now(),
    };
    wearable::insert_label(&mut tx, &l).await?;
    let data = json!({ "sessionId": s.id, "start": start, "end": end, "noRides": req.no_rides });
    audit::record(
        &mut tx,
        ws.audit("wearable_label.create", "wearable_label", l.id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(view(&l))
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    session: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<LabelView>> {
    let mut c = db.acquire().await?;
    let s = find(&mut c, ws, session).await?;
    let rows = wearable::labels(&mut c, s.id, limit, offset).await?;
    Ok(rows.iter().map(view).collect())
}

pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let l = wearable::get_label(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("label"))?;
    wearable::delete_label(&mut tx, id).await?;
    let data = json!({ "sessionId": l.session_id });
    audit::record(
        &mut tx,
        ws.audit("wearable_label.delete", "wearable_label", id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreView {
    pub labels: u64,
    pub detected: u64,
    #[serde(flatten)]
    pub counts: Score,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl ScoreView {
    fn of(s: Score) -> ScoreView {
        let r = |x: f64| (x * 10_000.0).round() / 10_000.0;
        ScoreView {
            labels: s.true_positives + s.false_negatives,
            detected: s.true_positives + s.false_positives,
            counts: s,
            precision: r(s.precision()),
            recall: r(s.recall()),
            f1: r(s.f1()),
        }
    }
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionScore {
    pub session_id: Id,
    pub detector_version: Option<String>,
    #[serde(flatten)]
    pub score: ScoreView,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccuracyReport {
    pub min_iou: f64,
    /// Over every labelled session of the workspace (or the one asked for).
    pub overall: ScoreView,
    pub sessions: Vec<SessionScore>,
    pub labelled_sessions: u64,
    pub limit: i64,
    pub offset: i64,
    pub next_offset: Option<i64>,
}

/// The most labelled sessions the overall figure covers (the newest).
pub const MAX_SCORED_SESSIONS: i64 = 2000;

pub async fn accuracy(
    db: &Db,
    ws: &InWorkspace,
    session: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<AccuracyReport> {
    let mut c = db.acquire().await?;
    let sessions = match session {
        Some(id) => vec![find(&mut c, ws, id).await?],
        None => wearable::labelled_sessions(&mut c, ws.org_id, MAX_SCORED_SESSIONS, 0).await?,
    };
    let mut overall = Score::default();
    let mut rows = Vec::new();
    for s in &sessions {
        let labels = wearable::labels(&mut c, s.id, 10_000, 0).await?;
        let truth: Vec<(i64, i64)> = labels
            .iter()
            .filter(|l| !l.no_rides)
            .map(|l| (l.start_ms, l.end_ms))
            .collect();
        let rides = match &s.detector_version {
            Some(v) => wearable::rides(&mut c, s.id, v).await?,
            None => Vec::new(),
        };
        let found: Vec<(i64, i64)> = rides.iter().map(|r| (r.start_ms, r.end_ms)).collect();
        let sc = score(&truth, &found);
        overall.add(sc);
        rows.push(SessionScore {
            session_id: s.id,
            detector_version: s.detector_version.clone(),
            score: ScoreView::of(sc),
        });
    }
    let total = rows.len() as i64;
    let page: Vec<SessionScore> = rows
        .into_iter()
        .skip(offset as usize)
        .take(limit as usize)
        .collect();
    Ok(AccuracyReport {
        min_iou: super::accuracy::MIN_IOU,
        overall: ScoreView::of(overall),
        sessions: page,
        labelled_sessions: total as u64,
        limit,
        offset,
        next_offset: (offset + limit < total).then_some(offset + limit),
    })
}
