//! Footage fixtures: a footage session, an uploaded clip (its original put straight into
//! raw-uploads, for tests about what follows an upload), bytes that look like an MP4, and the
//! tus requests of a phone upload.

use super::app::{Resp, Session, TestApp};
use super::athletes::id;
use super::training::new_training_session;
use bytes::Bytes;
use serde_json::json;
use shared::db::{Id, Ts};
use shared::domain::footage::{ClipStatus, keys};
use shared::repo::footage::{self, Clip};
use shared::storage::Store;

/// A footage session, provisioned through the training route as the phone does.
pub async fn footage_session(app: &TestApp, coach: &Session) -> Id {
    let t = new_training_session(
        app,
        coach,
        json!({ "title": "Filmed", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" }),
    )
    .await;
    let r = app
        .post("/api/training-sessions/provision-video")
        .session(coach)
        .json(json!({ "trainingSessionId": id(&t) }))
        .send()
        .await;
    id(&r.json).parse().unwrap()
}

/// A footage session (provisioned through the training route) holding one uploaded clip.
pub async fn uploaded_clip(app: &TestApp, coach: &Session, bytes: &[u8]) -> (Id, Id) {
    let session = footage_session(app, coach).await;
    let clip = add_clip(app, coach, session, bytes).await;
    (session, clip)
}

/// Another uploaded clip in `session` (its original put straight into raw-uploads).
pub async fn add_clip(app: &TestApp, coach: &Session, session: Id, bytes: &[u8]) -> Id {
    add_clip_of(app, coach, session, bytes, None, "wave.mp4").await
}

/// Another uploaded clip in `session`, of `athlete`, named `file_name`.
pub async fn add_clip_of(
    app: &TestApp,
    coach: &Session,
    session: Id,
    bytes: &[u8],
    athlete: Option<Id>,
    file_name: &str,
) -> Id {
    let clip = Id::new();
    let key = keys::original(coach.org_id, session, clip);
    app.state
        .storage
        .put_bytes(
            Store::RawUploads,
            &key,
            Bytes::copy_from_slice(bytes),
            "video/mp4",
        )
        .await
        .unwrap();
    let now = Ts::now();
    let k = Clip {
        id: clip,
        org_id: coach.org_id,
        session_id: session,
        athlete_id: athlete,
        file_name: file_name.into(),
        status: ClipStatus::Uploaded,
        status_code: None,
        status_message: None,
        progress: 0,
        raw_key: Some(key),
        source_url: None,
        size_bytes: Some(bytes.len() as i64),
        content_type: Some("video/mp4".into()),
        probe: None,
        analysis_generation: 0,
        analysis_id: None,
        analysis_result: None,
        job_id: None,
        stats: None,
        video_key: None,
        video_size: None,
        overlay_key: None,
        overlay_size: None,
        batch_id: None,
        batch_row: None,
        recorded_at: None,
        created_by: Some(coach.user_id),
        created_at: now,
        updated_at: now,
        status_changed_at: now,
    };
    let mut c = app.state.db.acquire().await.unwrap();
    footage::insert_clip(&mut c, &k).await.unwrap();
    clip
}

/// Gives the clip `stats` (in the analysis backend's shape) as a finished analysis would, and
/// marks it stored.
pub async fn set_clip_stats(app: &TestApp, clip: Id, stats: serde_json::Value) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET stats = $1, status = 'stored' WHERE id = $2")
            .bind(sqlx::types::Json(stats))
            .bind(clip)
    )
    .unwrap();
}

/// `len` bytes that start like an MP4 file (an `ftyp` box), then [`video_bytes`].
pub fn mp4_bytes(len: usize) -> Vec<u8> {
    let mut v = b"\0\0\0\x18ftypisom\0\0\x02\0isommp41".to_vec();
    v.extend(super::video::video_bytes(len.saturating_sub(v.len())));
    v.truncate(len);
    v
}

/// The `Upload-Metadata` header of `pairs`.
pub fn tus_metadata(pairs: &[(&str, &str)]) -> String {
    use base64::Engine;
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{k} {}",
                base64::engine::general_purpose::STANDARD.encode(v)
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `POST /api/clips/native-ingest` for a file of `len` bytes in `session`.
pub async fn tus_create(
    app: &TestApp,
    s: &Session,
    session: Id,
    len: usize,
    client_upload_id: Option<&str>,
) -> Resp {
    let sid = session.to_string();
    let mut meta = vec![("sessionId", sid.as_str()), ("filename", "wave.mp4")];
    if let Some(c) = client_upload_id {
        meta.push(("clientUploadId", c));
    }
    app.post("/api/clips/native-ingest")
        .session(s)
        .header("tus-resumable", "1.0.0")
        .header("upload-length", &len.to_string())
        .header("upload-metadata", &tus_metadata(&meta))
        .send()
        .await
}

/// The path of an upload from its creation response's `Location`.
pub fn tus_path(created: &Resp) -> String {
    let loc = created.location();
    let at = loc.find("/api/").expect("an api URL");
    loc[at..].to_string()
}

/// `PATCH` of `bytes` at `offset`.
pub async fn tus_patch(
    app: &TestApp,
    s: &Session,
    path: &str,
    offset: usize,
    bytes: &[u8],
) -> Resp {
    app.req(axum::http::Method::PATCH, path)
        .session(s)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", &offset.to_string())
        .raw("application/offset+octet-stream", bytes)
        .send()
        .await
}

/// The offset a `HEAD` reports.
pub async fn tus_offset(app: &TestApp, s: &Session, path: &str) -> u64 {
    let r = app
        .req(axum::http::Method::HEAD, path)
        .session(s)
        .header("tus-resumable", "1.0.0")
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::OK, "{r:?}");
    r.headers["upload-offset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// A one-second 320×240 MP4 made by the system ffmpeg (scripts/test installs it), its display
/// matrix set to `rotate` degrees clockwise when given (as a phone held upright records).
pub fn ffmpeg_clip(rotate: Option<u32>) -> Vec<u8> {
    let dir = tempfile_dir();
    let plain = dir.join("plain.mp4");
    let run = |args: &[&str]| {
        let out = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-y"])
            .args(args)
            .output()
            .expect("ffmpeg on PATH (scripts/ensure-ffmpeg installs Debian's package)");
        assert!(
            out.status.success(),
            "ffmpeg: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let p = plain.to_str().unwrap();
    run(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x240:rate=25",
        "-t",
        "1",
        "-c:v",
        "mpeg4",
        p,
    ]);
    let file = match rotate {
        None => plain,
        Some(deg) => {
            // Stream copy: ffmpeg 5.1 writes the rotate tag as the track's display matrix.
            let out = dir.join("rotated.mp4");
            let tag = format!("rotate={deg}");
            run(&[
                "-i",
                p,
                "-c",
                "copy",
                "-metadata:s:v:0",
                &tag,
                out.to_str().unwrap(),
            ]);
            out
        }
    };
    let bytes = std::fs::read(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("clip-{}", Id::new()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A cell of a test workbook.
pub enum XCell {
    Text(&'static str),
    /// An Excel date serial (days since 1899-12-30) in a date-formatted cell.
    Date(u32),
}

/// A minimal .xlsx workbook with one worksheet of `rows` (inline strings; dates styled with
/// the built-in date format 14), as Excel would save it for calamine to read.
pub fn xlsx(rows: &[Vec<XCell>]) -> Vec<u8> {
    use std::io::Write;
    let mut sheet = String::from(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#,
    );
    for (i, row) in rows.iter().enumerate() {
        let r = i + 1;
        sheet.push_str(&format!(r#"<row r="{r}">"#));
        for (j, cell) in row.iter().enumerate() {
            let at = format!("{}{r}", (b'A' + j as u8) as char);
            match cell {
                XCell::Text(t) => sheet.push_str(&format!(
                    r#"<c r="{at}" t="inlineStr"><is><t>{t}</t></is></c>"#
                )),
                XCell::Date(d) => sheet.push_str(&format!(r#"<c r="{at}" s="1"><v>{d}</v></c>"#)),
            }
        }
        sheet.push_str("</row>");
    }
    sheet.push_str("</sheetData></worksheet>");
    let files = [
        ("[Content_Types].xml", r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>"#.to_string()),
        ("_rels/.rels", r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_string()),
        ("xl/workbook.xml", r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Manifest" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_string()),
        ("xl/_rels/workbook.xml.rels", r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#.to_string()),
        ("xl/styles.xml", r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>"#.to_string()),
        ("xl/worksheets/sheet1.xml", sheet),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, body) in files {
        zip.start_file(name, opts).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// Whether the object is gone from `store` within 10 s (deletes run in a job).
pub async fn object_gone(app: &TestApp, store: Store, key: &str) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if app.state.storage.head(store, key).await.unwrap().is_none() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}
