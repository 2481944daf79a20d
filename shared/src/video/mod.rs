//! Video delivery (issue 10, "Video"): the signed stream token ([`token`]), the rules for
//! external origins ([`ssrf`]) and reading them ([`origin`]), and telling a video file by its
//! first bytes ([`sniff`]). The HTTP side (range semantics,
//! the routes) is in the api (`api/src/http/ranged.rs`, `api/src/areas/video.rs`).

/// hyper's read buffer on every upstream connection the video proxy streams from (S3, an
/// external origin): what one proxied stream holds while its player reads slowly. hyper's
/// default (about 408 KiB, fixed in the S3 SDK's and reqwest's clients) made it about 1.2 MiB
/// per stream (`scripts/bench-video`).
pub const UPSTREAM_READ_BUFFER: usize = 32 * 1024;

/// `body` with an error in place of its end when the upstream stays silent longer than
/// `idle` in the middle of it.
pub(crate) fn until_silent<S>(
    body: S,
    idle: std::time::Duration,
) -> futures::stream::BoxStream<'static, std::io::Result<bytes::Bytes>>
where
    S: futures::Stream<Item = std::io::Result<bytes::Bytes>> + Send + Unpin + 'static,
{
    use futures::StreamExt;
    futures::stream::unfold(Some(body), move |s| async move {
        let mut s = s?;
        match tokio::time::timeout(idle, s.next()).await {
            Ok(Some(item)) => Some((item, Some(s))),
            Ok(None) => None,
            Err(_) => Some((
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the video origin went silent",
                )),
                None,
            )),
        }
    })
    .boxed()
}

pub mod isobmff;
pub mod origin;
pub mod plain;
pub mod sniff;
pub mod ssrf;
pub mod token;
