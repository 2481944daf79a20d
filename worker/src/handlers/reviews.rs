//! Review jobs: the build asks for a transcription of each voice note without one (child
//! jobs), and the last transcription to end makes the review `ready`
//! (`shared::domain::reviews::voice_notes`). Transcription is best-effort: whatever happens to
//! it, the note is recorded with a transcript or a reason, and the build ends.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::reviews::jobs::{BuildReview, TranscribeNote};
use shared::domain::reviews::voice_notes::{self, Outcome};
use shared::providers::ProviderError;
use shared::providers::model::{Model, Transcript};
use shared::repo::review_audio::VoiceNote;
use shared::storage::Store;

impl RunJob for BuildReview {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let model = ctx.deps.cfg.model.is_some();
        let waiting =
            voice_notes::start_transcriptions(db, self.org_id, self.review_id, model).await?;
        if waiting > 0 {
            return Ok(json!({ "transcribing": waiting }));
        }
        let ready = voice_notes::finish_build(db, self.org_id, self.review_id).await?;
        Ok(json!({ "ready": ready }))
    }
}

impl RunJob for TranscribeNote {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let Some(note) = voice_notes::pending_note(db, self.org_id, self.note_id).await? else {
            // Deleted, or recorded by an earlier run: the build may still wait for this one.
            voice_notes::finish_build(db, self.org_id, self.review_id).await?;
            return Ok(json!({ "skipped": "no transcription pending" }));
        };
        let model = match ctx.model() {
            Ok(m) => m,
            Err(_) => {
                let why = voice_notes::NOT_CONFIGURED.to_string();
                voice_notes::record(db, self.org_id, note.id, &Outcome::Skipped(why)).await?;
                return Ok(json!({ "skipped": voice_notes::NOT_CONFIGURED }));
            }
        };
        match transcribe(ctx, &model, &note).await {
            Ok(t) => {
                let done = Outcome::Done {
                    text: t.text,
                    model: t.model,
                };
                voice_notes::record(db, self.org_id, note.id, &done).await?;
                Ok(json!({ "transcribed": true }))
            }
            // Refused, or failing still at the last attempt: the note says so and the build
            // goes on (a note left pending would hold the review in `building`).
            Err(e) if e.is_permanent() || ctx.last_attempt() => {
                voice_notes::record(db, self.org_id, note.id, &Outcome::Failed(e.reason())).await?;
                Err(JobError::Permanent(e.to_string()))
            }
            Err(Failure::Model(e)) => Err(e.into()),
            Err(Failure::Storage(e)) => Err(JobError::Transient(e)),
        }
    }
}

/// Why a transcription did not come back.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{0}")]
    Model(ProviderError),
    #[error("reading the note: {0}")]
    Storage(String),
}

impl Failure {
    fn is_permanent(&self) -> bool {
        matches!(self, Failure::Model(e) if e.is_permanent())
    }

    /// What the coach reads when a note has no transcript.
    fn reason(&self) -> String {
        match self {
            Failure::Model(e) => reason(e),
            Failure::Storage(_) => "the recording could not be read from storage".into(),
        }
    }
}

async fn transcribe(ctx: &Ctx, model: &Model, note: &VoiceNote) -> Result<Transcript, Failure> {
    let storage = |e: &dyn std::fmt::Display| Failure::Storage(e.to_string());
    let audio = ctx
        .deps
        .storage
        .get_bytes(Store::RawUploads, &note.object_key)
        .await
        .map_err(|e| storage(&e))?;
    model
        .transcribe(audio, &voice_notes::file_name(note), &note.content_type)
        .await
        .map_err(Failure::Model)
}

/// What the coach reads when a note has no transcript.
fn reason(e: &ProviderError) -> String {
    match e {
        ProviderError::Rejected { status, .. } => {
            format!("the transcription service refused the recording ({status})")
        }
        ProviderError::RateLimited { .. } => {
            "the transcription service kept asking us to slow down".into()
        }
        ProviderError::Timeout(_) => "the transcription service kept timing out".into(),
        ProviderError::Unavailable { .. } => "the transcription service kept failing".into(),
        ProviderError::NotConfigured(_) => voice_notes::NOT_CONFIGURED.into(),
    }
}
