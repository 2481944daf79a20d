//! Coach-corrected maneuver labels: a verdict on each predicted maneuver (the prediction stays
//! as the backend gave it, in the clip's stats), or a maneuver the model missed. Together they
//! are a training set, exported as JSONL or CSV.

use super::Verdict;
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::repo::audit;
use crate::repo::footage::{self, Clip, Label};
use crate::{Error, Result};
use serde::Serialize;
use serde_json::{Value, json};

const TARGET: &str = "clip_label";

/// The window given to a predicted maneuver (the backend reports one instant) when the coach
/// does not give one: a second either side.
pub const DEFAULT_HALF_WINDOW_MS: i64 = 1000;

/// A maneuver the backend predicted (from the clip's stats).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prediction {
    pub index: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub at_ms: i64,
    pub confidence: Option<f64>,
}

/// The predictions of a clip's stats (`maneuvers: [{type, at_ms, confidence}]`).
pub fn predictions(clip: &Clip) -> Vec<Prediction> {
    let Some(stats) = &clip.stats else {
        return Vec::new();
    };
    let Some(list) = stats.0.get("maneuvers").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .map(|(i, m)| Prediction {
            index: i as i64,
            kind: m
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
            at_ms: m.get("at_ms").and_then(Value::as_i64).unwrap_or(0),
            confidence: m.get("confidence").and_then(Value::as_f64),
        })
        .collect()
}

/// A label as sent (POST), before checking.
#[derive(Debug, Default)]
pub struct RawLabel<'a> {
    pub prediction_index: Option<i64>,
    pub verdict: &'a str,
    pub corrected_type: Option<&'a str>,
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    pub note: Option<&'a str>,
}

/// A changed label (PATCH): absent fields stay.
#[derive(Debug, Default)]
pub struct RawPatch<'a> {
    pub verdict: Option<&'a str>,
    pub corrected_type: Option<Option<&'a str>>,
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    pub note: Option<Option<&'a str>>,
}

fn maneuver_type(v: &mut Validator, field: &str, t: &str) -> String {
    let t = t.trim().to_lowercase();
    let ok = (1..=40).contains(&t.len())
        && t.bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit());
    v.check(
        ok,
        field,
        "invalid_format",
        "must be 1 to 40 letters, digits or underscores",
    );
    t
}

/// Checks the fields that every label must satisfy, whatever made it.
fn check(v: &mut Validator, l: &Label, duration_ms: Option<i64>) {
    v.check(
        l.start_ms >= 0,
        "startMs",
        "out_of_range",
        "must not be negative",
    );
    v.check(
        l.end_ms > l.start_ms,
        "endMs",
        "out_of_range",
        "must be after startMs",
    );
    if let Some(d) = duration_ms {
        v.check(
            l.end_ms <= d + DEFAULT_HALF_WINDOW_MS,
            "endMs",
            "out_of_range",
            "must be within the clip",
        );
    }
    match l.verdict {
        Verdict::Corrected | Verdict::Added => v.check(
            l.corrected_type.is_some(),
            "correctedType",
            "required",
            "a corrected or added maneuver needs its type",
        ),
        Verdict::Confirmed | Verdict::Rejected => v.check(
            l.corrected_type.is_none(),
            "correctedType",
            "not_allowed",
            "only a corrected or added maneuver has a corrected type",
        ),
    }
    match l.prediction_index {
        Some(_) => v.check(
            l.verdict != Verdict::Added,
            "verdict",
            "invalid_choice",
            "a verdict on a prediction is confirmed, corrected or rejected",
        ),
        None => v.check(
            l.verdict == Verdict::Added,
            "verdict",
            "invalid_choice",
            "a label without predictionIndex adds a missed maneuver: its verdict is added",
        ),
    }
    if let Some(n) = &l.note {
        v.check(
            n.chars().count() <= 2000,
            "note",
            "too_long",
            "must be at most 2000 characters",
        );
    }
}

async fn clip(db: &Db, ws: &InWorkspace, id: Id) -> Result<Clip> {
    let mut c = db.acquire().await?;
    footage::get_clip(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))
}

/// The clip's predictions and its labels.
pub async fn list(db: &Db, ws: &InWorkspace, clip_id: Id) -> Result<(Vec<Prediction>, Vec<Label>)> {
    let k = clip(db, ws, clip_id).await?;
    let mut c = db.acquire().await?;
    Ok((predictions(&k), footage::labels(&mut c, clip_id).await?))
}

/// Adds a label: a verdict on prediction `predictionIndex` (409 `label_exists` when it has one:
/// change it with PATCH), or an added maneuver.
pub async fn create(db: &Db, ws: &InWorkspace, clip_id: Id, raw: &RawLabel<'_>) -> Result<Label> {
    let k = clip(db, ws, clip_id).await?;
    let preds = predictions(&k);
    let mut v = Validator::new();
    let verdict = v.choice_of::<Verdict>("verdict", raw.verdict);
    let corrected_type = raw
        .corrected_type
        .map(|t| maneuver_type(&mut v, "correctedType", t));
    let pred = match raw.prediction_index {
        Some(i) => {
            let p = preds.iter().find(|p| p.index == i);
            v.check(
                p.is_some(),
                "predictionIndex",
                "out_of_range",
                "the clip has no such predicted maneuver",
            );
            p
        }
        None => None,
    };
    let (start, end) = match (raw.start_ms, raw.end_ms, pred) {
        (Some(s), Some(e), _) => (s, e),
        (s, e, Some(p)) => (
            s.unwrap_or((p.at_ms - DEFAULT_HALF_WINDOW_MS).max(0)),
            e.unwrap_or(p.at_ms + DEFAULT_HALF_WINDOW_MS),
        ),
        (s, e, None) => {
            v.check(
                s.is_some(),
                "startMs",
                "required",
                "an added maneuver needs its window",
            );
            v.check(
                e.is_some(),
                "endMs",
                "required",
                "an added maneuver needs its window",
            );
            (s.unwrap_or(0), e.unwrap_or(0))
        }
    };
    let now = Ts::now();
    let Some(verdict) = verdict else {
        v.finish()?;
        unreachable!("an invalid verdict is a field error");
    };
    let l = Label {
        id: Id::new(),
        org_id: ws.org_id,
        clip_id,
        prediction_index: raw.prediction_index,
        predicted_type: pred.map(|p| p.kind.clone()),
        predicted_confidence: pred.and_then(|p| p.confidence),
        verdict,
        corrected_type,
        start_ms: start,
        end_ms: end,
        note: raw
            .note
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty()),
        labelled_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    check(&mut v, &l, k.duration_ms());
    v.finish()?;
    let mut tx = db.begin().await?;
    if !footage::insert_label(&mut tx, &l).await? {
        return Err(Error::conflict(
            "label_exists",
            "this prediction already has a label; change it with PATCH",
        ));
    }
    let data =
        json!({ "clipId": clip_id, "verdict": l.verdict, "predictionIndex": l.prediction_index });
    audit::record(&mut tx, ws.audit("clip.label", TARGET, l.id, data)).await?;
    tx.commit().await?;
    Ok(l)
}

/// Changes a label; who and when are updated, the prediction it judges is not.
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    clip_id: Id,
    label_id: Id,
    raw: &RawPatch<'_>,
) -> Result<Label> {
    let k = clip(db, ws, clip_id).await?;
    let mut tx = db.begin().await?;
    let mut l = footage::get_label(&mut tx, clip_id, label_id)
        .await?
        .ok_or_else(|| Error::not_found("label"))?;
    let mut v = Validator::new();
    if let Some(s) = raw.verdict
        && let Some(verdict) = v.choice_of::<Verdict>("verdict", s)
    {
        l.verdict = verdict;
    }
    if let Some(t) = raw.corrected_type {
        l.corrected_type = t.map(|t| maneuver_type(&mut v, "correctedType", t));
    }
    if let Some(s) = raw.start_ms {
        l.start_ms = s;
    }
    if let Some(e) = raw.end_ms {
        l.end_ms = e;
    }
    if let Some(n) = raw.note {
        l.note = n.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    }
    check(&mut v, &l, k.duration_ms());
    v.finish()?;
    l.labelled_by = Some(ws.actor.user_id);
    l.updated_at = Ts::now();
    footage::update_label(&mut tx, &l).await?;
    let data = json!({ "clipId": clip_id, "verdict": l.verdict });
    audit::record(&mut tx, ws.audit("clip.label_update", TARGET, l.id, data)).await?;
    tx.commit().await?;
    Ok(l)
}

crate::text_enum! {
    /// The training-set export's file format.
    pub enum ExportFormat { Jsonl = "jsonl", Csv = "csv" }
}

/// One row of the training set: the clip, the window, what was predicted and what the coach said.
#[derive(Debug, Clone, Serialize)]
pub struct ExportRow {
    pub clip_id: Id,
    pub label_id: Id,
    pub start_ms: i64,
    pub end_ms: i64,
    pub predicted_type: Option<String>,
    pub predicted_confidence: Option<f64>,
    pub verdict: Verdict,
    /// The type the coach settled on: the corrected or added type, the prediction when
    /// confirmed, none when rejected.
    pub label_type: Option<String>,
    pub labelled_by: Option<Id>,
    pub labelled_at: Ts,
}

/// The most labels one export holds.
pub const MAX_EXPORT_ROWS: usize = 100_000;

/// The workspace's labels as a training set, oldest change first.
pub async fn export(db: &Db, ws: &InWorkspace, format: ExportFormat) -> Result<String> {
    let mut c = db.acquire().await?;
    let mut rows = Vec::new();
    let mut after = None;
    loop {
        let page = footage::labels_page(&mut c, ws.org_id, after, 1000).await?;
        let Some(last) = page.last() else { break };
        after = Some((last.updated_at, last.id));
        rows.extend(page.into_iter().map(|l| ExportRow {
            label_type: match l.verdict {
                Verdict::Confirmed => l.predicted_type.clone(),
                Verdict::Rejected => None,
                Verdict::Corrected | Verdict::Added => l.corrected_type.clone(),
            },
            clip_id: l.clip_id,
            label_id: l.id,
            start_ms: l.start_ms,
            end_ms: l.end_ms,
            predicted_type: l.predicted_type,
            predicted_confidence: l.predicted_confidence,
            verdict: l.verdict,
            labelled_by: l.labelled_by,
            labelled_at: l.updated_at,
        }));
        if rows.len() > MAX_EXPORT_ROWS {
            return Err(Error::payload_too_large(format!(
                "the workspace has more than {MAX_EXPORT_ROWS} labels"
            )));
        }
    }
    match format {
        ExportFormat::Jsonl => {
            let mut out = String::new();
            for r in &rows {
                out.push_str(&serde_json::to_string(r).map_err(Error::internal)?);
                out.push('\n');
            }
            Ok(out)
        }
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            for r in &rows {
                w.serialize(r).map_err(Error::internal)?;
            }
            if rows.is_empty() {
                w.write_record([
                    "clip_id",
                    "label_id",
                    "start_ms",
                    "end_ms",
                    "predicted_type",
                    "predicted_confidence",
                    "verdict",
                    "label_type",
                    "labelled_by",
                    "labelled_at",
                ])
                .map_err(Error::internal)?;
            }
            let bytes = w
                .into_inner()
                .map_err(|e| Error::internal(anyhow::anyhow!("{e}")))?;
            String::from_utf8(bytes).map_err(Error::internal)
        }
    }
}
