//! Reading an external video origin under the rules of [`super::ssrf`]: one request (HEAD or
//! GET, optionally ranged and conditional) whose answer is handed back with the headers a
//! range proxy passes on and the body as a stream, and a reachability check.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt, TryStreamExt};
use http::header::{self, HeaderMap};
use http_body_util::{BodyExt, Empty};
use serde::Serialize;
use url::Url;
use utoipa::ToSchema;

use super::plain::{self, SocketSpan};
use super::ssrf::{Checked, OriginClient, OriginError, OriginPolicy, unreachable};
use crate::error::{Error, ErrorKind};

/// What to ask the origin for.
#[derive(Clone, Debug, Default)]
pub struct OriginRequest {
    /// HEAD instead of GET.
    pub head: bool,
    /// A `Range` header value to send (one range; the proxy does not forward several).
    pub range: Option<String>,
    /// An `If-Range` header value to send with the range.
    pub if_range: Option<String>,
    /// The caller can take a plain-HTTP GET's body as the socket it is on
    /// ([`OriginBody::Socket`]), to move it with `splice`.
    pub socket_body: bool,
}

/// The origin's answer: its status, the headers a range proxy passes on, and the body.
pub struct OriginResponse {
    pub status: u16,
    pub content_length: Option<u64>,
    pub content_range: Option<String>,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub accept_ranges: Option<String>,
    /// Empty for HEAD.
    pub body: OriginBody,
}

/// An origin's response body.
pub enum OriginBody {
    /// Streamed as the origin sends it.
    Stream(BoxStream<'static, io::Result<Bytes>>),
    /// Still on the socket (see [`OriginRequest::socket_body`]).
    Socket(SocketSpan),
}

impl OriginBody {
    fn empty() -> OriginBody {
        OriginBody::Stream(futures::stream::empty().boxed())
    }

    pub fn into_stream(self) -> BoxStream<'static, io::Result<Bytes>> {
        match self {
            OriginBody::Stream(s) => s,
            OriginBody::Socket(span) => span.into_stream(),
        }
    }
}

impl std::fmt::Debug for OriginResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OriginResponse")
            .field("status", &self.status)
            .field("content_length", &self.content_length)
            .field("content_range", &self.content_range)
            .field("content_type", &self.content_type)
            .field("etag", &self.etag)
            .finish_non_exhaustive()
    }
}

fn text(h: &HeaderMap, name: header::HeaderName) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn redirect_refused(status: u16) -> Error {
    Error::new(
        ErrorKind::ProviderFailed,
        "video_redirect_refused",
        format!("the video origin answered a redirect ({status}); redirects are not followed"),
    )
}

fn transport(e: OriginError) -> Error {
    let what = match e {
        OriginError::TimedOut => "timed out",
        OriginError::Refused => "refused the connection",
        OriginError::Failed => "failed",
    };
    unreachable(format!("the video origin {what}"))
}

/// The response body as a stream of chunks (ending in an error when the origin goes silent,
/// [`super::until_silent`]).
fn body_stream(
    body: hyper::body::Incoming,
    idle: std::time::Duration,
) -> BoxStream<'static, io::Result<Bytes>> {
    super::until_silent(body.into_data_stream().map_err(io::Error::other), idle)
}

async fn send(
    client: &OriginClient,
    checked: &Checked,
    req: &OriginRequest,
) -> Result<OriginResponse, Error> {
    let method = if req.head {
        http::Method::HEAD
    } else {
        http::Method::GET
    };
    let mut rb = http::Request::builder()
        .method(method)
        .uri(checked.url.as_str())
        .header(
            header::USER_AGENT,
            concat!("surfcoach-video/", env!("CARGO_PKG_VERSION")),
        );
    if let Some(r) = &req.range {
        rb = rb.header(header::RANGE, r);
        if let Some(ir) = &req.if_range {
            rb = rb.header(header::IF_RANGE, ir);
        }
    }
    let request = rb
        .body(Empty::<Bytes>::new())
        .map_err(|e| Error::field("url", "invalid_url", format!("not a usable URL: {e}")))?;
    let resp = client.send(request).await.map_err(transport)?;
    let status = resp.status().as_u16();
    if (300..400).contains(&status) && status != 304 {
        return Err(redirect_refused(status));
    }
    let h = resp.headers();
    let mut out = OriginResponse {
        status,
        content_length: text(h, header::CONTENT_LENGTH).and_then(|v| v.parse().ok()),
        content_range: text(h, header::CONTENT_RANGE),
        content_type: text(h, header::CONTENT_TYPE),
        etag: text(h, header::ETAG),
        last_modified: text(h, header::LAST_MODIFIED),
        accept_ranges: text(h, header::ACCEPT_RANGES),
        body: OriginBody::empty(),
    };
    if !req.head {
        out.body = OriginBody::Stream(body_stream(resp.into_body(), client.read_timeout));
    }
    Ok(out)
}

/// A GET of a plain-HTTP `url` from the first of `addrs` that accepts a connection, its body
/// left on the socket ([`plain::get`]). `None` when the answer is a success whose body is not
/// framed by `Content-Length`: the caller asks again with the pooled client.
async fn fetch_plain(
    addrs: &[SocketAddr],
    url: &Url,
    req: &OriginRequest,
    connect_timeout: Duration,
    read_timeout: Duration,
) -> Result<Option<OriginResponse>, Error> {
    let mut extra = Vec::new();
    if let Some(r) = &req.range {
        extra.push((header::RANGE, r.as_str()));
        if let Some(ir) = &req.if_range {
            extra.push((header::IF_RANGE, ir.as_str()));
        }
    }
    let resp = plain::get(addrs, url, &extra, connect_timeout, read_timeout)
        .await
        .map_err(transport)?;
    let status = resp.status;
    if (300..400).contains(&status) && status != 304 {
        return Err(redirect_refused(status));
    }
    let h = &resp.headers;
    let content_length = text(h, header::CONTENT_LENGTH).and_then(|v| v.parse().ok());
    let body = match resp.body {
        Some(span) => OriginBody::Socket(span),
        None if (200..300).contains(&status) && content_length != Some(0) => return Ok(None),
        None => OriginBody::empty(),
    };
    Ok(Some(OriginResponse {
        status,
        content_length,
        content_range: text(h, header::CONTENT_RANGE),
        content_type: text(h, header::CONTENT_TYPE),
        etag: text(h, header::ETAG),
        last_modified: text(h, header::LAST_MODIFIED),
        accept_ranges: text(h, header::ACCEPT_RANGES),
        body,
    }))
}

/// Fetches `url` if the policy allows it (see [`OriginPolicy::check`] for the refusals). A
/// redirect answer is refused (502 `video_redirect_refused`); a connection that fails is 502
/// `video_unreachable`; any other status is handed back for the caller to relay. A plain-HTTP
/// GET asked with `socket_body` goes to the checked addresses the same way, by [`plain::get`].
pub async fn fetch(
    policy: &OriginPolicy,
    url: &str,
    req: &OriginRequest,
) -> Result<OriginResponse, Error> {
    let checked = policy.check(url).await?;
    if req.socket_body && !req.head && plain::supports(&checked.url) {
        let (connect, read) = (policy.connect_timeout, policy.read_timeout);
        if let Some(r) = fetch_plain(&checked.addrs, &checked.url, req, connect, read).await? {
            return Ok(r);
        }
    }
    let client = checked.client(policy)?;
    send(&client, &checked, req).await
}

/// What [`check`] found out about a source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reachability {
    /// The origin answered 2xx.
    pub reachable: bool,
    /// The origin's status (of the HEAD, or of the ranged GET it fell back to); null when no
    /// answer came.
    pub status: Option<u16>,
    pub content_type: Option<String>,
    /// The full size of the video when the origin says it.
    pub content_length: Option<u64>,
    /// The origin honours byte ranges (seeking works).
    pub accepts_ranges: bool,
    /// Why it is not reachable (`video_unreachable`), when no answer came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// The total size in `bytes a-b/size`.
fn range_total(content_range: Option<&str>) -> Option<u64> {
    content_range?
        .trim()
        .strip_prefix("bytes ")?
        .split_once('/')?
        .1
        .parse()
        .ok()
}

/// Whether `url` is a usable video source: the same refusals as [`fetch`] (as errors), then a
/// HEAD, falling back to a one-byte ranged GET when HEAD is not answered with 2xx (origins and
/// presigned URLs that only allow GET). Both go to the addresses of the one check. An origin
/// that cannot be reached is `reachable: false` with the code `video_unreachable`.
pub async fn check(policy: &OriginPolicy, url: &str) -> Result<Reachability, Error> {
    let checked = policy.check(url).await?;
    let client = checked.client(policy)?;
    let head = OriginRequest {
        head: true,
        ..Default::default()
    };
    let got = match send(&client, &checked, &head).await {
        Ok(r) if (200..300).contains(&r.status) => Ok(r),
        Ok(_) => {
            let ranged = OriginRequest {
                head: false,
                range: Some("bytes=0-0".into()),
                ..Default::default()
            };
            send(&client, &checked, &ranged).await
        }
        Err(e) => Err(e),
    };
    match got {
        Ok(r) => {
            let partial = r.status == 206;
            let size = if partial {
                range_total(r.content_range.as_deref())
            } else {
                r.content_length
            };
            let accepts = partial
                || r.accept_ranges
                    .as_deref()
                    .is_some_and(|v| v.split(',').any(|u| u.trim().eq_ignore_ascii_case("bytes")));
            // The body of the fallback GET (one byte, or the origin ignored the range) is
            // dropped unread; the connection closes.
            Ok(Reachability {
                reachable: (200..300).contains(&r.status),
                status: Some(r.status),
                content_type: r.content_type,
                content_length: size,
                accepts_ranges: accepts,
                code: None,
            })
        }
        Err(e) if e.code == "video_unreachable" => Ok(Reachability {
            reachable: false,
            status: None,
            content_type: None,
            content_length: None,
            accepts_ranges: false,
            code: Some(e.code.to_string()),
        }),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_totals() {
        assert_eq!(range_total(Some("bytes 0-0/1234")), Some(1234));
        assert_eq!(range_total(Some("bytes */1234")), Some(1234));
        assert_eq!(range_total(Some("bytes 0-0/*")), None);
        assert_eq!(range_total(None), None);
    }
}
