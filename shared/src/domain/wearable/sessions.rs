//! Sessions: a finished session with its samples (in the body, or a bulk file sent to a signed
//! URL first), live sessions, reads (the session, its samples by time window), rederive and
//! delete.

use super::access::Wearer;
use super::codec;
use super::samples::{SampleColumns, Samples, Stream};
use super::{
    DeriveSession, ExpireSession, IngestFile, LIVE_TIMEOUT_SECS, SessionSource, SessionStatus,
    UPLOAD_URL_SECS, UPLOAD_WAIT_HOURS,
};
use crate::crypto::Keys;
use crate::db::{Db, Executor, Id, Ts, Tx};
use crate::domain::{ADMIN_ROLE, InWorkspace, OWNER_ROLE};
use crate::error::Validator;
use crate::repo::wearable::Session;
use crate::repo::{audit, training, wearable};
use crate::storage::{Storage, Store};
use crate::times::TimeKind;
use crate::{Error, Result};
use chrono::DateTime;
use serde::{Deserialize, Serialize};
use serde_json::json;

const TARGET: &str = "wearable_session";

/// Samples one request may carry (larger sessions go through the upload URL).
pub const MAX_BODY_SAMPLES: usize = 200_000;

/// `POST /api/wearable/sessions`: a finished session, with `samples` or an `uploadId` (not both).
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "athleteId": "0190f000-0000-7000-8000-000000000001",
    "clientSessionId": "watch-2026-03-01-0700",
    "startedAt": "2026-03-01T07:00:00Z",
    "endedAt": "2026-03-01T08:00:00Z",
    "samples": { "hr": { "t": [1_772_348_400_000_i64, 1_772_348_401_000_i64], "bpm": [120, 122] } }
}))]
pub struct SessionUpload {
    /// The athlete wearing the watch: required of a coach; an athlete's default is their own
    /// athlete row.
    pub athlete_id: Option<Id>,
    /// The watch's id for this session: sending it again returns the same session.
    pub client_session_id: Option<String>,
    pub training_session_id: Option<Id>,
    pub device: Option<String>,
    /// Default: the first sample.
    #[schema(format = DateTime)]
    pub started_at: Option<String>,
    /// Default: the last sample.
    #[schema(format = DateTime)]
    pub ended_at: Option<String>,
    /// The samples, columnar; or `uploadId` for a file sent to `/api/wearable/upload-url`.
    pub samples: Option<SampleColumns>,
    pub upload_id: Option<Id>,
}

/// `POST /api/wearable/sessions/live`: start a live session, or report on one.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "athleteId": "0190f000-0000-7000-8000-000000000001",
    "clientSessionId": "watch-live-2026-03-01-0700",
    "device": "Garmin Instinct 2"
}))]
pub struct LiveReport {
    /// Required of a coach; an athlete's default is their own athlete row.
    pub athlete_id: Option<Id>,
    /// The live session to report on (absent: start one).
    pub session_id: Option<Id>,
    pub client_session_id: Option<String>,
    pub training_session_id: Option<Id>,
    pub device: Option<String>,
    pub samples: Option<SampleColumns>,
    /// The wearer stopped: the session ends and is derived.
    #[serde(default)]
    pub end: bool,
}

/// The sample file formats `POST /api/wearable/upload-url` takes.
pub const UPLOAD_FORMATS: &[&str] = &["csv", "gpx", "fit"];

fn upload_formats() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    crate::db::text_enum_schema(UPLOAD_FORMATS)
}

/// `POST /api/wearable/upload-url`.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UploadRequest {
    /// Required of a coach; an athlete's default is their own athlete row.
    pub athlete_id: Option<Id>,
    /// `csv` (the sample file format of docs/wearable.md), `gpx` or `fit` (GPX and FIT are told
    /// apart by their bytes when read).
    #[schema(schema_with = upload_formats)]
    pub format: String,
    pub client_session_id: Option<String>,
    pub training_session_id: Option<Id>,
    pub device: Option<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadUrl {
    /// The session waiting for the file; send it as `uploadId` to `POST /api/wearable/sessions`
    /// once the file is up.
    pub upload_id: Id,
    pub url: String,
    pub method: String,
    /// The Content-Type the PUT must send.
    pub content_type: String,
    pub expires_at: Ts,
}

/// What a session read shows.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WatchSessionView)]
pub struct SessionView {
    pub id: Id,
    pub athlete_id: Option<Id>,
    pub athlete_name: Option<String>,
    pub coach_user_id: Option<Id>,
    pub training_session_id: Option<Id>,
    pub source: SessionSource,
    pub status: SessionStatus,
    pub status_message: Option<String>,
    pub device: Option<String>,
    pub client_session_id: Option<String>,
    pub started_at: Ts,
    pub ended_at: Option<Ts>,
    pub last_seen_at: Option<Ts>,
    pub samples: SampleCounts,
    pub stored_bytes: i64,
    pub detector_version: Option<String>,
    pub derived_at: Option<Ts>,
    /// Time sitting, paddling and riding, fixes used and rejected (once derived).
    #[schema(value_type = Object)]
    pub summary: Option<serde_json::Value>,
    pub job_id: Option<Id>,
    pub created_at: Ts,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SampleCounts {
    pub gps: i64,
    pub hr: i64,
    pub imu: i64,
}

/// A ride window as answered (watch clock).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RideView {
    pub index: i64,
    pub start: Ts,
    pub end: Ts,
    pub duration_s: f64,
    pub distance_m: f64,
    pub top_speed_kmh: f64,
    pub mean_speed_kmh: f64,
    /// The ride's overall direction, degrees clockwise from north (none for a ride that
    /// barely moved or one from an older detector).
    pub heading_deg: Option<f64>,
    /// Its angle to the shoreward direction: 0 straight in, positive to the surfer's right
    /// (facing the shore), negative to the left; none when the shore side is unknown.
    pub shore_angle_deg: Option<f64>,
    /// `right`, `left` or `straight` (within 20° of straight in), from `shoreAngleDeg`.
    pub direction: Option<&'static str>,
    pub detector_version: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WatchSessionDetail)]
pub struct SessionDetail {
    #[serde(flatten)]
    pub session: SessionView,
    /// The windows of the session's current detector version.
    pub rides: Vec<RideView>,
    /// Rides a coach has labelled (ground truth).
    pub labels: i64,
    /// A coach has marked the session as holding no ride.
    pub no_rides: bool,
}

pub fn ts_ms(ms: i64) -> Ts {
    Ts::from_datetime(DateTime::from_timestamp_millis(ms).unwrap_or_default())
}

/// A ride's direction in a surfer's words: `right` or `left` (facing the shore), or
/// `straight` within 20° of straight in.
pub fn direction(shore_angle_deg: f64) -> &'static str {
    if shore_angle_deg.abs() <= 20.0 {
        "straight"
    } else if shore_angle_deg > 0.0 {
        "right"
    } else {
        "left"
    }
}

pub fn ride_view(r: &wearable::RideRow) -> RideView {
    RideView {
        index: r.idx,
        start: ts_ms(r.start_ms),
        end: ts_ms(r.end_ms),
        duration_s: ((r.end_ms - r.start_ms) as f64 / 100.0).round() / 10.0,
        distance_m: r.distance_m,
        top_speed_kmh: r.top_speed_kmh,
        mean_speed_kmh: r.mean_speed_kmh,
        heading_deg: r.heading_deg,
        shore_angle_deg: r.shore_angle_deg,
        direction: r.shore_angle_deg.map(direction),
        detector_version: r.detector_version.clone(),
    }
}

pub async fn view(x: &mut impl Executor, s: &Session) -> Result<SessionView> {
    let name = match s.athlete_id {
        Some(a) => wearable::athlete_name(x, a)
            .await?
            .map(|n| format!("{} {}", n.first_name, n.last_name)),
        None => None,
    };
    Ok(SessionView {
        id: s.id,
        athlete_id: s.athlete_id,
        athlete_name: name,
        coach_user_id: s.coach_user_id,
        training_session_id: s.training_session_id,
        source: s.source,
        status: s.status,
        status_message: s.status_message.clone(),
        device: s.device.clone(),
        client_session_id: s.client_session_id.clone(),
        started_at: s.started_at,
        ended_at: s.ended_at,
        last_seen_at: s.last_seen_at,
        samples: SampleCounts {
            gps: s.gps_count,
            hr: s.hr_count,
            imu: s.imu_count,
        },
        stored_bytes: s.stored_bytes,
        detector_version: s.detector_version.clone(),
        derived_at: s.derived_at,
        summary: s.summary.as_ref().map(|j| j.0.clone()),
        job_id: s.job_id,
        created_at: s.created_at,
    })
}

fn parse_time(v: &mut Validator, field: &str, s: &Option<String>) -> Option<Ts> {
    v.time_text(field, s.as_deref()?, TimeKind::Recorded)
}

fn optional_text(v: &mut Validator, field: &str, s: &Option<String>, max: usize) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| v.text(field, t, max))
}

/// Checks samples of a request; every problem is a field error.
fn checked_samples(v: &mut Validator, cols: Option<SampleColumns>) -> Samples {
    let Some(cols) = cols else {
        return Samples::default();
    };
    match cols.into_samples("samples") {
        Ok(s) => {
            if s.len() > MAX_BODY_SAMPLES {
                v.add(
                    "samples",
                    "too_long",
                    format!("at most {MAX_BODY_SAMPLES} samples per request; send larger sessions through /api/wearable/upload-url"),
                );
            }
            s
        }
        Err(errors) => {
            for e in errors {
                v.add(&e.field, "invalid", e.message);
            }
            Samples::default()
        }
    }
}

async fn check_training(x: &mut impl Executor, org: Id, t: Option<Id>) -> Result<()> {
    if let Some(t) = t
        && training::get(x, org, t).await?.is_none()
    {
        return Err(Error::field(
            "trainingSessionId",
            "invalid",
            "no such training session in this workspace",
        ));
    }
    Ok(())
}

pub(super) fn new_session(
    w: &Wearer,
    source: SessionSource,
    status: SessionStatus,
    started: Ts,
) -> Session {
    let now = Ts::now();
    Session {
        id: Id::new(),
        org_id: w.org_id,
        athlete_id: Some(w.athlete_id),
        wearer_user_id: w.is_self.then_some(w.actor.user_id),
        coach_user_id: w.coach_user_id,
        training_session_id: None,
        source,
        status,
        status_message: None,
        device: None,
        client_session_id: None,
        started_at: started,
        ended_at: None,
        last_seen_at: None,
        gps_count: 0,
        hr_count: 0,
        imu_count: 0,
        stored_bytes: 0,
        upload_key: None,
        upload_format: None,
        detector_version: None,
        derived_at: None,
        summary: None,
        job_id: None,
        created_by: Some(w.actor.user_id),
        created_at: now,
        updated_at: now,
    }
}

/// Writes samples as chunks and adds them to the session's counts.
pub async fn append(tx: &mut Tx, s: &mut Session, samples: &Samples) -> Result<()> {
    for c in codec::encode_all(samples) {
        wearable::insert_chunk(tx, s.id, &c).await?;
        s.stored_bytes += c.data.len() as i64;
        match c.stream {
            Stream::Gps => s.gps_count += c.count,
            Stream::Hr => s.hr_count += c.count,
            Stream::Imu => s.imu_count += c.count,
        }
    }
    Ok(())
}

/// What an upload did: the session, whether it was made now, and the job that works on it.
pub struct Uploaded {
    pub session: SessionView,
    pub created: bool,
    pub job_id: Option<Id>,
}

/// A finished session: samples in the body (201, derived by a job), or the file a signed URL
/// took (`uploadId`: 202, read by a job). The same `clientSessionId` again returns the session
/// (200) and writes nothing.
pub async fn upload(
    db: &Db,
    storage: &Storage,
    w: &Wearer,
    req: SessionUpload,
) -> Result<Uploaded> {
    let mut v = Validator::new();
    let device = optional_text(&mut v, "device", &req.device, 120);
    let client = optional_text(&mut v, "clientSessionId", &req.client_session_id, 120);
    let started = parse_time(&mut v, "startedAt", &req.started_at);
    let ended = parse_time(&mut v, "endedAt", &req.ended_at);
    if req.upload_id.is_some() && req.samples.is_some() {
        v.add("samples", "invalid", "send samples or uploadId, not both");
    }
    let samples = checked_samples(&mut v, req.samples.clone());
    if req.upload_id.is_none() && samples.is_empty() {
        v.add(
            "samples",
            "required",
            "a session needs samples (or an uploadId)",
        );
    }
    if let (Some(a), Some(b)) = (started, ended)
        && b < a
    {
        v.add("endedAt", "out_of_range", "must not be before startedAt");
    }
    v.finish()?;
    let mut tx = db.begin().await?;
    check_training(&mut tx, w.org_id, req.training_session_id).await?;
    if let Some(upload) = req.upload_id {
        let mut s = wearable::lock_session(&mut tx, w.org_id, upload)
            .await?
            .filter(|s| s.athlete_id == Some(w.athlete_id))
            .ok_or_else(|| Error::not_found("upload"))?;
        if s.status != SessionStatus::AwaitingUpload {
            let view = view(&mut tx, &s).await?;
            tx.commit().await?;
            return Ok(Uploaded {
                session: view,
                created: false,
                job_id: s.job_id,
            });
        }
        let key = s.upload_key.clone().unwrap_or_default();
        let present = storage
            .head(Store::RawUploads, &key)
            .await
            .map_err(|e| Error::internal(anyhow::anyhow!("storage head: {e}")))?;
        if present.is_none() {
            return Err(Error::conflict(
                "upload_missing",
                "the file has not been uploaded to the signed URL yet",
            ));
        }
        s.status = SessionStatus::Processing;
        s.device = device.or(s.device);
        s.started_at = started.unwrap_or(s.started_at);
        s.ended_at = ended.or(s.ended_at);
        if req.training_session_id.is_some() {
            s.training_session_id = req.training_session_id;
        }
        let job = super::jobs::push(
            &mut tx,
            &IngestFile {
                org_id: w.org_id,
                session_id: s.id,
            },
            w.org_id,
            Some(w.actor.user_id),
        )
        .await?;
        s.job_id = Some(job);
        wearable::update_session(&mut tx, &s).await?;
        let data = json!({ "source": "file", "athleteId": w.athlete_id });
        audit::record(
            &mut tx,
            w.actor.audit(
                Some(w.org_id),
                "wearable_session.upload",
                TARGET,
                Some(s.id.to_string()),
                data,
            ),
        )
        .await?;
        let view = view(&mut tx, &s).await?;
        tx.commit().await?;
        return Ok(Uploaded {
            session: view,
            created: true,
            job_id: Some(job),
        });
    }
    if let Some(c) = &client
        && let Some(s) = wearable::by_client_id(&mut tx, w.org_id, c).await?
    {
        let view = view(&mut tx, &s).await?;
        tx.commit().await?;
        return Ok(Uploaded {
            session: view,
            created: false,
            job_id: s.job_id,
        });
    }
    let (first, last) = samples.span().expect("samples checked non-empty");
    let mut s = new_session(
        w,
        SessionSource::Upload,
        SessionStatus::Processing,
        started.unwrap_or_else(|| super::sessions::ts_ms(first)),
    );
    s.ended_at = Some(ended.unwrap_or_else(|| ts_ms(last)));
    s.device = device;
    s.client_session_id = client;
    s.training_session_id = req.training_session_id;
    wearable::insert_session(&mut tx, &s).await?;
    append(&mut tx, &mut s, &samples).await?;
    let job = derive_job(&mut tx, &s, Some(w.actor.user_id)).await?;
    s.job_id = Some(job);
    wearable::update_session(&mut tx, &s).await?;
    let data = json!({ "source": "upload", "athleteId": w.athlete_id, "samples": samples.len() });
    audit::record(
        &mut tx,
        w.actor.audit(
            Some(w.org_id),
            "wearable_session.upload",
            TARGET,
            Some(s.id.to_string()),
            data,
        ),
    )
    .await?;
    let view = view(&mut tx, &s).await?;
    tx.commit().await?;
    Ok(Uploaded {
        session: view,
        created: true,
        job_id: Some(job),
    })
}

async fn derive_job(tx: &mut Tx, s: &Session, user: Option<Id>) -> Result<Id> {
    super::jobs::push(
        tx,
        &DeriveSession {
            org_id: s.org_id,
            session_id: s.id,
        },
        s.org_id,
        user,
    )
    .await
}

/// Plans the check that ends a live session once it goes quiet.
pub async fn plan_expiry(tx: &mut Tx, s: &Session, due: Ts) -> Result<()> {
    super::jobs::plan(
        tx,
        &ExpireSession {
            org_id: s.org_id,
            session_id: s.id,
            due_ms: due.unix_millis(),
        },
    )
    .await?;
    Ok(())
}

/// Starts a live session (201; the same `clientSessionId` again is the same session) or
/// reports on one (samples appended, `lastSeenAt` moved; `end` ends it and derives it).
pub async fn live(db: &Db, w: &Wearer, req: LiveReport) -> Result<Uploaded> {
    let mut v = Validator::new();
    let device = optional_text(&mut v, "device", &req.device, 120);
    let client = optional_text(&mut v, "clientSessionId", &req.client_session_id, 120);
    let samples = checked_samples(&mut v, req.samples.clone());
    v.finish()?;
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let (mut s, created) = match req.session_id {
        Some(id) => {
            let s = wearable::lock_session(&mut tx, w.org_id, id)
                .await?
                .filter(|s| s.athlete_id == Some(w.athlete_id) && s.source == SessionSource::Live)
                .ok_or_else(|| Error::not_found("live session"))?;
            if s.status != SessionStatus::Live {
                return Err(Error::conflict(
                    "session_not_live",
                    "this session has ended; start a new one",
                ));
            }
            (s, false)
        }
        None => {
            check_training(&mut tx, w.org_id, req.training_session_id).await?;
            let existing = match &client {
                Some(c) => wearable::by_client_id(&mut tx, w.org_id, c).await?,
                None => None,
            };
            match existing {
                Some(s) if s.status == SessionStatus::Live => (s, false),
                Some(s) => {
                    let view = view(&mut tx, &s).await?;
                    tx.commit().await?;
                    return Ok(Uploaded {
                        session: view,
                        created: false,
                        job_id: s.job_id,
                    });
                }
                None => {
                    let started = samples.span().map(|(a, _)| ts_ms(a)).unwrap_or(now);
                    let mut s = new_session(w, SessionSource::Live, SessionStatus::Live, started);
                    s.device = device.clone();
                    s.client_session_id = client.clone();
                    s.training_session_id = req.training_session_id;
                    s.last_seen_at = Some(now);
                    wearable::insert_session(&mut tx, &s).await?;
                    plan_expiry(
                        &mut tx,
                        &s,
                        now.plus(chrono::Duration::seconds(LIVE_TIMEOUT_SECS)),
                    )
                    .await?;
                    let data = json!({ "source": "live", "athleteId": w.athlete_id });
                    audit::record(
                        &mut tx,
                        w.actor.audit(
                            Some(w.org_id),
                            "wearable_session.live",
                            TARGET,
                            Some(s.id.to_string()),
                            data,
                        ),
                    )
                    .await?;
                    (s, true)
                }
            }
        }
    };
    if s.gps_count + s.hr_count + s.imu_count + samples.len() as i64 > super::MAX_SAMPLES {
        return Err(Error::conflict(
            "session_too_large",
            "this session holds the most samples a session may",
        ));
    }
    append(&mut tx, &mut s, &samples).await?;
    s.last_seen_at = Some(now);
    if device.is_some() {
        s.device = device;
    }
    let mut job = None;
    if req.end {
        s.status = SessionStatus::Processing;
        s.ended_at = Some(now);
        let j = derive_job(&mut tx, &s, Some(w.actor.user_id)).await?;
        s.job_id = Some(j);
        job = Some(j);
    }
    wearable::update_session(&mut tx, &s).await?;
    let view = view(&mut tx, &s).await?;
    tx.commit().await?;
    Ok(Uploaded {
        session: view,
        created,
        job_id: job,
    })
}

/// A signed URL for a bulk sample file (CSV sample lines, GPX or FIT), valid an hour, and the session
/// that waits for it (removed after a day without its file).
pub async fn upload_url(
    db: &Db,
    storage: &Storage,
    keys: &Keys,
    public_base_url: &str,
    w: &Wearer,
    req: UploadRequest,
) -> Result<UploadUrl> {
    let mut v = Validator::new();
    let format = req.format.trim().to_ascii_lowercase();
    v.choice("format", &format, UPLOAD_FORMATS);
    let device = optional_text(&mut v, "device", &req.device, 120);
    let client = optional_text(&mut v, "clientSessionId", &req.client_session_id, 120);
    v.finish()?;
    let (content_type, source) = match format.as_str() {
        "gpx" => ("application/gpx+xml", SessionSource::Gpx),
        "fit" => (super::fit::CONTENT_TYPE, SessionSource::Fit),
        _ => ("text/csv", SessionSource::File),
    };
    let mut tx = db.begin().await?;
    check_training(&mut tx, w.org_id, req.training_session_id).await?;
    if let Some(c) = &client
        && wearable::by_client_id(&mut tx, w.org_id, c)
            .await?
            .is_some()
    {
        return Err(Error::conflict(
            "session_exists",
            "a session with this clientSessionId exists already",
        ));
    }
    let now = Ts::now();
    let mut s = new_session(w, source, SessionStatus::AwaitingUpload, now);
    s.device = device;
    s.client_session_id = client;
    s.training_session_id = req.training_session_id;
    let key = super::upload_key(w.org_id, s.id);
    s.upload_key = Some(key.clone());
    s.upload_format = Some(format.clone());
    wearable::insert_session(&mut tx, &s).await?;
    plan_expiry(
        &mut tx,
        &s,
        now.plus(chrono::Duration::hours(UPLOAD_WAIT_HOURS)),
    )
    .await?;
    let ttl = std::time::Duration::from_secs(UPLOAD_URL_SECS);
    let url = storage
        .presign_put(
            Store::RawUploads,
            &key,
            ttl,
            content_type,
            keys,
            public_base_url,
        )
        .await
        .map_err(|e| Error::internal(anyhow::anyhow!("presign: {e}")))?;
    let data = json!({ "format": format, "athleteId": w.athlete_id });
    audit::record(
        &mut tx,
        w.actor.audit(
            Some(w.org_id),
            "wearable_session.upload_url",
            TARGET,
            Some(s.id.to_string()),
            data,
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(UploadUrl {
        upload_id: s.id,
        url,
        method: "PUT".into(),
        content_type: content_type.into(),
        expires_at: now.plus(chrono::Duration::seconds(UPLOAD_URL_SECS as i64)),
    })
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    athlete: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<SessionView>> {
    let mut c = db.acquire().await?;
    let rows = wearable::list_sessions(&mut c, ws.org_id, athlete, limit, offset).await?;
    let mut out = Vec::with_capacity(rows.len());
    for s in &rows {
        out.push(view(&mut c, s).await?);
    }
    Ok(out)
}

pub async fn find(x: &mut impl Executor, ws: &InWorkspace, id: Id) -> Result<Session> {
    wearable::get_session(x, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("wearable session"))
}

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<SessionDetail> {
    let mut c = db.acquire().await?;
    let s = find(&mut c, ws, id).await?;
    let rides = match &s.detector_version {
        Some(v) => wearable::rides(&mut c, s.id, v).await?,
        None => Vec::new(),
    };
    let labels = wearable::count_labels(&mut c, s.id, false).await?;
    let no_rides = wearable::count_labels(&mut c, s.id, true).await? > 0;
    Ok(SessionDetail {
        session: view(&mut c, &s).await?,
        rides: rides.iter().map(ride_view).collect(),
        labels,
        no_rides,
    })
}

/// Only the session's coach or a workspace admin (owner or admin role) deletes a session.
pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let s = find(&mut tx, ws, id).await?;
    let admin = ws.role_key == OWNER_ROLE || ws.role_key == ADMIN_ROLE;
    if !admin && s.coach_user_id != Some(ws.actor.user_id) {
        return Err(Error::forbidden(
            "permission_denied",
            "only the session's coach or a workspace admin may delete a wearable session",
        ));
    }
    wearable::delete_session(&mut tx, ws.org_id, id).await?;
    if let Some(key) = &s.upload_key {
        super::jobs::push(
            &mut tx,
            &super::jobs::delete_upload(ws.org_id, key.clone()),
            ws.org_id,
            Some(ws.actor.user_id),
        )
        .await?;
    }
    let data = json!({ "athleteId": s.athlete_id, "startedAt": s.started_at, "samples": s.gps_count + s.hr_count + s.imu_count });
    audit::record(
        &mut tx,
        ws.audit("wearable_session.delete", TARGET, id, data),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Runs the detector again (a job; the windows it makes carry its version).
pub async fn rederive(db: &Db, ws: &InWorkspace, id: Id) -> Result<Id> {
    let mut tx = db.begin().await?;
    let mut s = find(&mut tx, ws, id).await?;
    if matches!(
        s.status,
        SessionStatus::AwaitingUpload | SessionStatus::Live | SessionStatus::Failed
    ) {
        return Err(Error::conflict(
            "session_not_ready",
            format!("a session that is {} has nothing to derive yet", s.status),
        ));
    }
    let job = derive_job(&mut tx, &s, Some(ws.actor.user_id)).await?;
    s.job_id = Some(job);
    wearable::update_session(&mut tx, &s).await?;
    audit::record(
        &mut tx,
        ws.audit("wearable_session.rederive", TARGET, id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(job)
}

/// A page of one stream's samples in `[from, to]` (Unix ms), columnar.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SamplePage {
    pub stream: Stream,
    pub from: i64,
    pub to: i64,
    #[serde(flatten)]
    pub samples: SampleColumns,
    pub limit: i64,
    pub offset: i64,
    pub next_offset: Option<i64>,
}

/// The most samples one page holds.
pub const MAX_SAMPLE_PAGE: i64 = 10_000;

#[allow(clippy::too_many_arguments)]
pub async fn samples(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
    stream: Stream,
    from: Option<i64>,
    to: Option<i64>,
    limit: i64,
    offset: i64,
) -> Result<SamplePage> {
    let mut c = db.acquire().await?;
    let s = find(&mut c, ws, id).await?;
    let mut v = Validator::new();
    for (field, t) in [("from", from), ("to", to)] {
        if let Some(t) = t {
            v.millis(field, t, TimeKind::Recorded);
        }
    }
    v.finish()?;
    let from = from.unwrap_or(i64::MIN / 2);
    let to = to.unwrap_or(i64::MAX / 2);
    if to < from {
        return Err(Error::field(
            "to",
            "out_of_range",
            "must not be before from",
        ));
    }
    let rows = wearable::chunks(&mut c, s.id, Some(stream), from, to).await?;
    let mut all = Samples::default();
    let (mut skip, mut need) = (offset as usize, limit as usize + 1);
    for r in rows {
        let mut part = Samples::default();
        codec::decode(r.stream, &r.data, &mut part)
            .map_err(|e| Error::internal(anyhow::anyhow!("{e}")))?;
        macro_rules! take {
            ($v:ident, $into:expr) => {{
                for x in part.$v.into_iter().filter(|x| x.t >= from && x.t <= to) {
                    if skip > 0 {
                        skip -= 1;
                    } else if need > 0 {
                        need -= 1;
                        $into.push(x);
                    }
                }
            }};
        }
        take!(gps, all.gps);
        take!(hr, all.hr);
        take!(imu, all.imu);
        if need == 0 {
            break;
        }
    }
    let more = all.len() as i64 > limit;
    all.gps.truncate(limit as usize);
    all.hr.truncate(limit as usize);
    all.imu.truncate(limit as usize);
    Ok(SamplePage {
        stream,
        from,
        to,
        samples: SampleColumns::from_samples(&all),
        limit,
        offset,
        next_offset: more.then_some(offset + limit),
    })
}

/// Decodes a session's samples of the given streams, whole: the GPX export and the desk's
/// session page draw positions and heart rate, and leave out the IMU (at 100 Hz, nearly all of
/// a session's samples). The detector reads chunks one at a time instead (`derive`).
pub async fn load_streams(
    x: &mut impl Executor,
    session: Id,
    streams: &[Stream],
) -> Result<Samples> {
    let mut all = Samples::default();
    for &stream in streams {
        let rows = wearable::chunks(x, session, Some(stream), i64::MIN / 2, i64::MAX / 2).await?;
        for r in rows {
            codec::decode(r.stream, &r.data, &mut all)
                .map_err(|e| Error::internal(anyhow::anyhow!("{e}")))?;
        }
    }
    all.normalise();
    Ok(all)
}

/// A GPX import's metadata (query parameters).
#[derive(Debug, Clone, Default)]
pub struct ImportMeta {
    pub client_session_id: Option<String>,
    pub training_session_id: Option<Id>,
    pub device: Option<String>,
}

impl ImportMeta {
    pub async fn check(&mut self, x: &mut impl Executor, org: Id) -> Result<()> {
        let mut v = Validator::new();
        self.device = optional_text(&mut v, "device", &self.device, 120);
        self.client_session_id =
            optional_text(&mut v, "clientSessionId", &self.client_session_id, 120);
        v.finish()?;
        check_training(x, org, self.training_session_id).await
    }
}
