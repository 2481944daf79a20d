//! The generative model adapter (`shared::providers::model`) against the fake
//! (`testkit::model`): transcription and structured answers, and every failure mode.

use bytes::Bytes;
use serde_json::json;
use shared::config::ModelConfig;
use shared::providers::ProviderError;
use shared::providers::model::Model;
use std::time::Duration;
use testkit::model::{Failure, FakeModel};

const KEY: &str = "model-key";

fn adapter(fake: &FakeModel, key: &str) -> Model {
    Model::new(
        ModelConfig {
            base_url: fake.base_url().parse().unwrap(),
            api_key: key.into(),
            transcribe_model: "whisper-1".into(),
            chat_model: "coach-model".into(),
            timeout: Duration::from_millis(500),
        },
        reqwest::Client::new(),
    )
}

fn schema() -> serde_json::Value {
    json!({
        "type": "object",
        "required": ["summary"],
        "properties": { "summary": { "type": "string" } }
    })
}

#[tokio::test]
async fn a_voice_note_is_transcribed_through_multipart() {
    let fake = FakeModel::start(KEY).await;
    let m = adapter(&fake, KEY);
    let audio = Bytes::from(vec![7u8; 4321]);
    let t = m.transcribe(audio, "note.m4a", "audio/mp4").await.unwrap();
    assert_eq!(t.text, "transcript of note.m4a (4321 bytes)");
    assert_eq!(t.model, "whisper-1");
    let r = &fake.transcriptions()[0];
    assert_eq!(
        (r.model.as_str(), r.content_type.as_str(), r.bytes),
        ("whisper-1", "audio/mp4", 4321)
    );
}

#[tokio::test]
async fn a_structured_answer_is_parsed_checked_and_names_its_model() {
    let fake = FakeModel::start(KEY).await;
    let m = adapter(&fake, KEY);
    fake.answer_with(json!({ "summary": "Commit to the bottom turn." }));
    let a = m
        .answer("You coach surfers.", "stats…", "feedback", &schema())
        .await
        .unwrap();
    assert_eq!(a.value["summary"], "Commit to the bottom turn.");
    assert_eq!(a.model, "coach-model-2026-01-01");
    let req = &fake.completions()[0];
    assert_eq!(req["response_format"]["type"], "json_schema");
    assert_eq!(req["response_format"]["json_schema"]["schema"], schema());
    assert_eq!(req["messages"][1]["content"], "stats…");

    // An answer outside the schema is not passed on.
    fake.answer_with(json!({ "summary": 3 }));
    let e = m.answer("s", "u", "feedback", &schema()).await.unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(e.to_string().contains("not of type"), "{e}");
}

#[tokio::test]
async fn every_failure_mode_maps_to_its_error() {
    let fake = FakeModel::start(KEY).await;
    let m = adapter(&fake, KEY);
    let audio = || Bytes::from_static(b"audio");

    // A wrong key: rejected, not retried.
    let e = adapter(&fake, "wrong")
        .transcribe(audio(), "a.mp3", "audio/mpeg")
        .await
        .unwrap_err();
    assert!(
        matches!(e, ProviderError::Rejected { status: 401, .. }),
        "{e:?}"
    );
    assert!(e.is_permanent());

    // 429 three times (the adapter's attempts): rate limited with its Retry-After.
    fake.fail_transcriptions(&[
        Failure::Status(429),
        Failure::Status(429),
        Failure::Status(429),
    ]);
    let e = m
        .transcribe(audio(), "a.mp3", "audio/mpeg")
        .await
        .unwrap_err();
    assert!(matches!(e, ProviderError::RateLimited { .. }), "{e:?}");
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));

    // One 503 then success: an idempotent call is retried. A 500 is a failure to retry later.
    fake.fail_transcriptions(&[Failure::Status(503)]);
    let before = fake.transcriptions().len();
    assert!(m.transcribe(audio(), "a.mp3", "audio/mpeg").await.is_ok());
    assert_eq!(fake.transcriptions().len(), before + 1);
    fake.fail_transcriptions(&[Failure::Status(500)]);
    let e = m
        .transcribe(audio(), "a.mp3", "audio/mpeg")
        .await
        .unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(!e.is_permanent());

    // A body that is not JSON, and a server that never answers.
    fake.fail_transcriptions(&[Failure::Malformed]);
    let e = m
        .transcribe(audio(), "a.mp3", "audio/mpeg")
        .await
        .unwrap_err();
    assert!(matches!(e, ProviderError::Unavailable { .. }), "{e:?}");
    assert!(!e.is_permanent());
    fake.fail_completions(&[Failure::Hang, Failure::Hang, Failure::Hang]);
    let e = m.answer("s", "u", "feedback", &schema()).await.unwrap_err();
    assert!(matches!(e, ProviderError::Timeout(_)), "{e:?}");

    // Not configured: a clear error, never a crash.
    let e = Model::from_config(None, reqwest::Client::new()).unwrap_err();
    assert!(matches!(e, ProviderError::NotConfigured(_)), "{e:?}");
}
