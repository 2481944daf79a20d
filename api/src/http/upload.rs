//! Media sent as a whole request body (a voice note, a voice reply): the first bytes decide the
//! type, never the name or the Content-Type a client claims; the size is bounded before and
//! while the body streams into object storage; a refused or broken body keeps nothing.

use super::streamed_body;
use axum::body::Body;
use axum::http::{HeaderMap, header};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use shared::storage::{Storage, Store};
use shared::{Error, ErrorKind};
use std::sync::{Arc, Mutex};

/// What an upload route takes.
#[derive(Clone, Copy)]
pub struct Media {
    /// The type of a file from its first [`shared::video::sniff::NEEDED`] bytes, or `None`.
    pub sniff: fn(&[u8]) -> Option<&'static str>,
    pub max_bytes: u64,
    /// The 415 answer for anything else.
    pub refused_code: &'static str,
    pub refused_message: &'static str,
}

/// Audio a phone or a browser records: M4A/AAC, MP3, WAV, Ogg/Opus, WebM.
pub const fn audio(max_bytes: u64) -> Media {
    Media {
        sniff: shared::video::sniff::audio_type,
        max_bytes,
        refused_code: "upload_not_audio",
        refused_message: "the file is not audio (M4A/AAC, MP3, WAV, Ogg/Opus or WebM)",
    }
}

/// A message photo: JPEG, PNG, WebP, HEIC.
pub const fn photo(max_bytes: u64) -> Media {
    Media {
        sniff: shared::video::sniff::image_type,
        max_bytes,
        refused_code: "upload_not_photo",
        refused_message: "the file is not a JPEG, PNG, WebP or HEIC photo",
    }
}

/// A stored upload.
#[derive(Debug, Clone, Copy)]
pub struct Stored {
    pub size: u64,
    /// The sniffed type, also the object's Content-Type.
    pub content_type: &'static str,
}

fn too_large(max: u64) -> Error {
    Error::new(
        ErrorKind::PayloadTooLarge,
        "upload_too_large",
        format!("the file must be at most {} MiB", max / (1024 * 1024)),
    )
}

fn interrupted(e: &std::io::Error) -> Error {
    Error::new(
        ErrorKind::BadRequest,
        "upload_interrupted",
        format!("the body ended early: {e}"),
    )
}

/// The first [`shared::video::sniff::NEEDED`] bytes of a request body (or all of a shorter
/// one), before anything is written, and the rest of the body still to read. 400 `empty_body`
/// or `upload_interrupted`.
pub async fn take_head(
    body: Body,
) -> Result<
    (
        Vec<u8>,
        impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
    ),
    Error,
> {
    let mut body = Box::pin(streamed_body(body));
    let mut head = Vec::new();
    while head.len() < shared::video::sniff::NEEDED {
        match body.next().await {
            Some(Ok(chunk)) => head.extend_from_slice(&chunk),
            Some(Err(e)) => return Err(interrupted(&e)),
            None => break,
        }
    }
    if head.is_empty() {
        return Err(Error::new(
            ErrorKind::BadRequest,
            "empty_body",
            "send the file as the request body",
        ));
    }
    Ok((head, body))
}

/// Stores the request body at `key` when it is `media` within its size; otherwise 413
/// `upload_too_large`, 415 (the media's code) or 400 `empty_body`/`upload_interrupted`, and
/// nothing is stored. The body may take its time: only a pause longer than [`super::BODY_IDLE`]
/// between chunks ends it.
pub async fn store(
    storage: &Storage,
    store: Store,
    key: &str,
    headers: &HeaderMap,
    body: Body,
    media: &Media,
) -> Result<Stored, Error> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > media.max_bytes) {
        return Err(too_large(media.max_bytes));
    }
    let (head, body) = take_head(body).await?;
    let content_type = (media.sniff)(&head[..head.len().min(shared::video::sniff::NEEDED)])
        .ok_or_else(|| {
            Error::new(
                ErrorKind::UnsupportedMediaType,
                media.refused_code,
                media.refused_message,
            )
        })?;
    if head.len() as u64 > media.max_bytes {
        return Err(too_large(media.max_bytes));
    }
    let verdict: Arc<Mutex<Option<Error>>> = Arc::default();
    let stream = bounded(
        futures::stream::once(async { Ok(Bytes::from(head)) }).chain(body),
        media.max_bytes,
        verdict.clone(),
    );
    let stream = if content_type == "audio/mp4" {
        audio_only(stream, media, verdict.clone()).boxed()
    } else {
        stream.boxed()
    };
    match storage.put(store, key, stream, content_type).await {
        Ok(size) => Ok(Stored { size, content_type }),
        Err(e) => {
            let broken = verdict.lock().expect("verdict lock").take();
            Err(broken.unwrap_or_else(|| Error::internal(e)))
        }
    }
}

/// An MPEG-4 body whose tracks are read as it passes ([`shared::video::isobmff`]); in place of
/// its end an error, so that nothing is kept, unless it holds audio and no video (a video or
/// an HEIC photo shares the container and often the brand).
fn audio_only(
    body: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
    media: &Media,
    verdict: Arc<Mutex<Option<Error>>>,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + 'static {
    let scan = Arc::new(Mutex::new(shared::video::isobmff::Scan::default()));
    let fed = Arc::clone(&scan);
    let media = *media;
    body.inspect(move |item| {
        if let Ok(chunk) = item {
            fed.lock().expect("scan lock").feed(chunk);
        }
    })
    .chain(
        futures::stream::once(async move {
            let scan = std::mem::take(&mut *scan.lock().expect("scan lock"));
            let why = match scan.finish() {
                Ok(t) if t.audio && !t.video => return None,
                Ok(t) if t.video => "it holds video".to_string(),
                Ok(_) => "it holds no audio track".to_string(),
                Err(e) => e,
            };
            let msg = format!("{} ({why})", media.refused_message);
            verdict
                .lock()
                .expect("verdict lock")
                .get_or_insert(Error::new(
                    ErrorKind::UnsupportedMediaType,
                    media.refused_code,
                    msg.clone(),
                ));
            Some(Err(std::io::Error::other(msg)))
        })
        .filter_map(futures::future::ready),
    )
}

/// The body, ending in an error past `max` bytes or when the client breaks off; the reason is
/// left in `verdict` for the answer (storage only sees an I/O error).
fn bounded(
    body: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
    max: u64,
    verdict: Arc<Mutex<Option<Error>>>,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + 'static {
    let mut seen = 0u64;
    body.map(move |item| {
        let refusal = match &item {
            Ok(chunk) => {
                seen += chunk.len() as u64;
                (seen > max).then(|| too_large(max))
            }
            Err(e) => Some(interrupted(e)),
        };
        match refusal {
            None => item,
            Some(e) => {
                let msg = e.message.clone();
                *verdict.lock().expect("verdict lock") = Some(e);
                Err(std::io::Error::other(msg))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_bound_cuts_the_body_and_says_why() {
        let verdict = Arc::default();
        let chunks = futures::stream::iter(
            [b"abcd".as_slice(), b"efgh", b"ij"].map(|c| Ok(Bytes::from_static(c))),
        );
        let out: Vec<_> = bounded(chunks, 9, Arc::clone(&verdict)).collect().await;
        assert!(out[0].is_ok() && out[1].is_ok());
        assert!(out[2].is_err(), "the tenth byte is one too many");
        assert_eq!(
            verdict.lock().unwrap().as_ref().unwrap().code,
            "upload_too_large"
        );
    }
}
