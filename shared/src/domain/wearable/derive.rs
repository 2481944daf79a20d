//! What the wearable jobs do: read a bulk sample file into chunks (`wearable.ingest`), run the
//! detector (`wearable.derive`), and end a live session that went quiet or drop an upload that
//! never came (`wearable.expire`). GPX and FIT imports read their staged file the same way,
//! inside the request.

use super::codec::{self, ChunkWriter};
use super::detect::{self, Detection};
use super::fit::{self, FitReader};
use super::gpx::{GpxReader, line_at};
use super::replay::{self, Replay, Sample, Step};
use super::samplefile::{self, SampleFileReader};
use super::samples::{Samples, Stream};
use super::sessions::plan_expiry;
use super::{LIVE_TIMEOUT_SECS, MAX_SAMPLES, SessionSource, SessionStatus, UPLOAD_WAIT_HOURS};
use crate::db::{Db, Id, Ts, Tx};
use crate::repo::wearable::{self, Session};
use crate::storage::{Storage, Store};
use crate::{Error, Result};
use serde_json::json;
use sqlx::types::Json;
use tokio::io::{AsyncReadExt, BufReader};
use tokio_util::io::StreamReader;

/// Runs the detector over every sample of the session and stores its windows under the
/// detector's version; a fragmented stream (a live session's many small chunks) is rewritten
/// into full chunks on the way. The samples are read a chunk at a time ([`replay`]), so the
/// memory it takes does not grow with the session. Idempotent.
pub async fn derive(db: &Db, org: Id, session: Id) -> Result<Option<Detection>> {
    let mut tx = db.begin().await?;
    let Some(mut s) = wearable::lock_session(&mut tx, org, session).await? else {
        return Ok(None);
    };
    if matches!(
        s.status,
        SessionStatus::AwaitingUpload | SessionStatus::Live
    ) {
        return Ok(None);
    }
    let index = wearable::chunk_index(&mut tx, s.id).await?;
    // A stream in more chunks than its samples fill is rewritten.
    let rewrite: Vec<bool> = Stream::ALL
        .iter()
        .map(|&stream| {
            let of = || index.iter().filter(move |c| c.stream == stream);
            let samples: i64 = of().map(|c| c.sample_count).sum();
            let full = (samples as usize).div_ceil(codec::chunk_capacity(stream));
            of().count() > full + 1
        })
        .collect();
    let mut det = detect::Detector::new(true);
    let mut out = ChunkWriter::default();
    let mut counts = [0i64; 3];
    let mut span: Option<(i64, i64)> = None;
    let mut replay = Replay::new(index.iter().map(|c| c.start_ms).collect());
    loop {
        let (i, t, full) = match replay.step() {
            Step::Open(i) => {
                let data = wearable::chunk_data(&mut tx, index[i].id).await?;
                let mut one = Samples::default();
                codec::decode(index[i].stream, &data, &mut one)
                    .map_err(|e| Error::internal(anyhow::anyhow!("{e}")))?;
                replay.add(one);
                continue;
            }
            Step::Done => break,
            Step::Give(Sample::Gps(f)) => {
                det.gps(f);
                (0, f.t, rewrite[0].then(|| out.gps(f)).flatten())
            }
            Step::Give(Sample::Hr(h)) => (1, h.t, rewrite[1].then(|| out.hr(h)).flatten()),
            Step::Give(Sample::Imu(m)) => {
                det.imu(m);
                (2, m.t, rewrite[2].then(|| out.imu(m)).flatten())
            }
        };
        counts[i] += 1;
        span = Some(span.map_or((t, t), |(a, _)| (a, t)));
        if let Some(c) = full {
            wearable::insert_chunk(&mut tx, s.id, &c).await?;
        }
    }
    for c in out.finish() {
        wearable::insert_chunk(&mut tx, s.id, &c).await?;
    }
    for c in index.iter().filter(|c| rewrite[replay::slot(c.stream)]) {
        wearable::delete_chunk(&mut tx, c.id).await?;
    }
    let d = det.finish();
    wearable::replace_rides(&mut tx, org, s.id, &d.version, &d.rides).await?;
    let usage = wearable::usage(&mut tx, s.id).await?;
    s.stored_bytes = usage.iter().map(|u| u.bytes).sum();
    [s.gps_count, s.hr_count, s.imu_count] = counts;
    s.status = SessionStatus::Ready;
    s.status_message = None;
    s.detector_version = Some(d.version.clone());
    s.derived_at = Some(Ts::now());
    if let Some((a, b)) = span {
        s.ended_at = Some(s.ended_at.unwrap_or_else(|| super::sessions::ts_ms(b)));
        if s.gps_count + s.hr_count + s.imu_count > 0 && s.started_at.unix_millis() > a {
            s.started_at = super::sessions::ts_ms(a);
        }
    }
    s.summary = Some(Json(json!({
        "rides": d.rides.len(),
        "activity": d.activity,
        "usedImu": d.used_imu,
        "fixesUsed": d.fixes,
        "rejectedInaccurate": d.rejected_inaccurate,
        "rejectedSpikes": d.rejected_spikes,
        "shoreBearingDeg": d.shore_bearing_deg,
    })));
    wearable::update_session(&mut tx, &s).await?;
    tx.commit().await?;
    Ok(Some(d))
}

/// Where in a file a fault lies: a line of a text file, a record of a FIT file (with its byte
/// offset), or the file as a whole.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FileAt {
    Whole,
    Line(u64),
    Record { record: u64, offset: u64 },
}

/// Why a file was refused: where and the reason.
#[derive(Debug, Clone)]
pub struct FileError {
    pub at: FileAt,
    pub message: String,
}

impl FileError {
    fn whole(message: impl Into<String>) -> Self {
        FileError {
            at: FileAt::Whole,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            FileAt::Whole => write!(f, "{}", self.message),
            FileAt::Line(l) => write!(f, "line {l}: {}", self.message),
            FileAt::Record { record, offset } => {
                write!(f, "record {record} (byte {offset}): {}", self.message)
            }
        }
    }
}

fn storage_err(e: impl std::fmt::Display) -> Error {
    Error::internal(anyhow::anyhow!("reading the sample file: {e}"))
}

/// Reads the staged file at `key` into the session's chunks inside `tx`: `csv` is the sample
/// file; otherwise the first bytes decide between FIT and GPX (and set the session's source).
/// Memory is one chunk per stream and the parser's buffer, whatever the file's size.
pub async fn read_file(
    tx: &mut Tx,
    storage: &Storage,
    s: &mut Session,
    key: &str,
    format: &str,
) -> Result<std::result::Result<(), FileError>> {
    let obj = storage
        .get(Store::RawUploads, key, None)
        .await
        .map_err(storage_err)?;
    let mut body = StreamReader::new(obj.body);
    let mut w = ChunkWriter::default();
    let mut total = 0i64;
    let mut span: Option<(i64, i64)> = None;
    macro_rules! put {
        ($t:expr, $e:expr) => {
            let t: i64 = $t;
            span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            if let Some(c) = $e {
                wearable::insert_chunk(tx, s.id, &c).await?;
                s.stored_bytes += c.data.len() as i64;
            }
            total += 1;
            if total > MAX_SAMPLES {
                return Ok(Err(FileError::whole(format!(
                    "a session holds at most {MAX_SAMPLES} samples"
                ))));
            }
        };
    }
    macro_rules! put_sample {
        ($x:expr) => {
            match $x {
                samplefile::Sample::Gps(f) => {
                    put!(f.t, w.gps(f));
                }
                samplefile::Sample::Hr(h) => {
                    put!(h.t, w.hr(h));
                }
                samplefile::Sample::Imu(m) => {
                    put!(m.t, w.imu(m));
                }
            }
        };
    }
    if format == "csv" {
        let mut r = SampleFileReader::new(BufReader::with_capacity(64 * 1024, body));
        loop {
            match r.next().await {
                Ok(Some(x)) => {
                    put_sample!(x);
                }
                Ok(None) => break,
                Err((line, message)) => {
                    return Ok(Err(FileError {
                        at: FileAt::Line(line),
                        message,
                    }));
                }
            }
        }
    } else {
        let head = fit::head(&mut body).await.map_err(storage_err)?;
        let is_fit = fit::is_fit(&head);
        let reader = std::io::Cursor::new(head).chain(body);
        if is_fit {
            s.source = SessionSource::Fit;
            let mut r = FitReader::new(reader);
            loop {
                match r.next().await {
                    Ok(Some(x)) => {
                        put_sample!(x);
                    }
                    Ok(None) => break,
                    Err(e) => {
                        return Ok(Err(FileError {
                            at: FileAt::Record {
                                record: e.record,
                                offset: e.offset,
                            },
                            message: e.message,
                        }));
                    }
                }
            }
        } else {
            s.source = SessionSource::Gpx;
            let mut r = GpxReader::new(BufReader::with_capacity(64 * 1024, reader));
            loop {
                match r.next_point().await {
                    Ok(Some(p)) => {
                        let t = p.fix.t;
                        put!(t, w.gps(p.fix));
                        if let Some(bpm) = p.hr {
                            put!(t, w.hr(super::samples::HeartRate { t, bpm }));
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let again = storage
                            .get(Store::RawUploads, key, None)
                            .await
                            .map_err(storage_err)?;
                        let line = line_at(StreamReader::new(again.body), e.position).await;
                        return Ok(Err(FileError {
                            at: FileAt::Line(line),
                            message: e.message,
                        }));
                    }
                }
            }
        }
    }
    for c in w.finish() {
        wearable::insert_chunk(tx, s.id, &c).await?;
        s.stored_bytes += c.data.len() as i64;
    }
    s.gps_count += w.counts[0];
    s.hr_count += w.counts[1];
    s.imu_count += w.counts[2];
    if let Some((a, b)) = span {
        s.started_at = super::sessions::ts_ms(a);
        s.ended_at = Some(super::sessions::ts_ms(b));
    }
    if total == 0 {
        return Ok(Err(FileError::whole("the file holds no samples")));
    }
    Ok(Ok(()))
}

/// The ingest job: the session's file into chunks (a bad file fails the session with its line,
/// keeping nothing of it), the file removed, then the detector.
pub async fn ingest(db: &Db, storage: &Storage, org: Id, session: Id) -> Result<serde_json::Value> {
    let mut tx = db.begin().await?;
    let Some(mut s) = wearable::lock_session(&mut tx, org, session).await? else {
        return Ok(json!({ "skipped": "session deleted" }));
    };
    let (Some(key), Some(format)) = (s.upload_key.clone(), s.upload_format.clone()) else {
        return Ok(json!({ "skipped": "already read" }));
    };
    if s.status != SessionStatus::Processing {
        return Ok(json!({ "skipped": format!("session is {}", s.status) }));
    }
    // A retried run starts over: chunks of an earlier, interrupted run are rolled back with it.
    match read_file(&mut tx, storage, &mut s, &key, &format).await? {
        Ok(()) => {
            s.upload_key = None;
            wearable::update_session(&mut tx, &s).await?;
            tx.commit().await?;
            let _ = storage.delete(Store::RawUploads, &key).await;
            let d = derive(db, org, session).await?;
            Ok(json!({ "rides": d.map(|d| d.rides.len()) }))
        }
        Err(e) => {
            drop(tx);
            let mut tx = db.begin().await?;
            let Some(mut s) = wearable::lock_session(&mut tx, org, session).await? else {
                return Ok(json!({ "skipped": "session deleted" }));
            };
            s.status = SessionStatus::Failed;
            s.status_message = Some(e.to_string());
            wearable::update_session(&mut tx, &s).await?;
            tx.commit().await?;
            Err(Error::bad_request(
                "sample_file_invalid",
                s.status_message.unwrap_or_default(),
            ))
        }
    }
}

/// The expiry check: a live session quiet for [`LIVE_TIMEOUT_SECS`] ends (at its last report)
/// and is derived, else the next check is planned; a session still waiting for its file after
/// [`UPLOAD_WAIT_HOURS`] is removed with whatever was put at its URL.
pub async fn expire(db: &Db, org: Id, session: Id) -> Result<&'static str> {
    let mut tx = db.begin().await?;
    let Some(mut s) = wearable::lock_session(&mut tx, org, session).await? else {
        return Ok("gone");
    };
    let now = Ts::now();
    match s.status {
        SessionStatus::Live => {
            let seen = s.last_seen_at.unwrap_or(s.created_at);
            let due = seen.plus(chrono::Duration::seconds(LIVE_TIMEOUT_SECS));
            if due > now {
                plan_expiry(&mut tx, &s, due).await?;
                tx.commit().await?;
                return Ok("still live");
            }
            s.status = SessionStatus::Processing;
            s.ended_at = Some(seen);
            s.status_message = Some("ended: the watch stopped reporting".into());
            let job = super::jobs::push(
                &mut tx,
                &super::DeriveSession {
                    org_id: org,
                    session_id: s.id,
                },
                org,
                None,
            )
            .await?;
            s.job_id = Some(job);
            wearable::update_session(&mut tx, &s).await?;
            tx.commit().await?;
            Ok("ended")
        }
        SessionStatus::AwaitingUpload => {
            if s.created_at
                .plus(chrono::Duration::hours(UPLOAD_WAIT_HOURS))
                > now
            {
                return Ok("still waiting");
            }
            wearable::delete_session(&mut tx, org, s.id).await?;
            if let Some(key) = s.upload_key.clone() {
                super::jobs::push(&mut tx, &super::jobs::delete_upload(org, key), org, None)
                    .await?;
            }
            tx.commit().await?;
            Ok("upload expired")
        }
        _ => Ok("nothing to do"),
    }
}

/// `POST /api/wearable/import`: a GPX document or a FIT file, already staged at its session's
/// upload key by the caller, read into a new session in one transaction (any fault: 400
/// `gpx_invalid` with its line, or `fit_invalid` with its record and byte offset; nothing
/// kept). The same `clientSessionId` again returns the session (200).
pub async fn import_file(
    db: &Db,
    storage: &Storage,
    w: &super::access::Wearer,
    session: Id,
    meta: super::sessions::ImportMeta,
) -> Result<super::sessions::Uploaded> {
    let key = super::upload_key(w.org_id, session);
    let result = import_staged(db, storage, w, session, &key, meta).await;
    let _ = storage.delete(Store::RawUploads, &key).await;
    result
}

async fn import_staged(
    db: &Db,
    storage: &Storage,
    w: &super::access::Wearer,
    session: Id,
    key: &str,
    meta: super::sessions::ImportMeta,
) -> Result<super::sessions::Uploaded> {
    let mut tx = db.begin().await?;
    if let Some(c) = &meta.client_session_id
        && let Some(s) = wearable::by_client_id(&mut tx, w.org_id, c).await?
    {
        let view = super::sessions::view(&mut tx, &s).await?;
        tx.commit().await?;
        return Ok(super::sessions::Uploaded {
            session: view,
            created: false,
            job_id: s.job_id,
        });
    }
    let mut s = super::sessions::new_session(
        w,
        super::SessionSource::Gpx,
        SessionStatus::Processing,
        Ts::now(),
    );
    s.id = session;
    s.device = meta.device;
    s.client_session_id = meta.client_session_id;
    s.training_session_id = meta.training_session_id;
    wearable::insert_session(&mut tx, &s).await?;
    if let Err(e) = read_file(&mut tx, storage, &mut s, key, "gpx").await? {
        let details = match e.at {
            FileAt::Whole => None,
            FileAt::Line(line) => Some(json!({ "line": line, "reason": e.message })),
            FileAt::Record { record, offset } => {
                Some(json!({ "record": record, "offset": offset, "reason": e.message }))
            }
        };
        let mut err = match s.source {
            SessionSource::Fit => Error::bad_request("fit_invalid", e.to_string()),
            _ => Error::bad_request("gpx_invalid", e.to_string()),
        };
        if let Some(d) = details {
            err = err.with_details(d);
        }
        return Err(err);
    }
    let job = super::jobs::push(
        &mut tx,
        &super::DeriveSession {
            org_id: w.org_id,
            session_id: s.id,
        },
        w.org_id,
        Some(w.actor.user_id),
    )
    .await?;
    s.job_id = Some(job);
    wearable::update_session(&mut tx, &s).await?;
    let data = json!({ "source": s.source, "athleteId": w.athlete_id, "gps": s.gps_count, "hr": s.hr_count });
    crate::repo::audit::record(
        &mut tx,
        w.actor.audit(
            Some(w.org_id),
            "wearable_session.import",
            "wearable_session",
            Some(s.id.to_string()),
            data,
        ),
    )
    .await?;
    let view = super::sessions::view(&mut tx, &s).await?;
    tx.commit().await?;
    Ok(super::sessions::Uploaded {
        session: view,
        created: true,
        job_id: Some(job),
    })
}
