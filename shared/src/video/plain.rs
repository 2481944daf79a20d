//! A GET over plain HTTP/1.1 (no TLS) written and parsed here, whose response body is left on
//! the socket: the api moves it to its client with `splice` (`api::http::zerocopy`), so the
//! bytes never pass through its memory. Only what a range proxy needs: one request per
//! connection (`Connection: close`), a success framed by `Content-Length`. Anything else
//! (TLS, a chunked body) is for the pooled hyper client of [`super::ssrf::Checked::client`].

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::stream::{BoxStream, StreamExt};
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::io::ReaderStream;
use url::{Position, Url};

use super::ssrf::OriginError;

/// The longest response head read (status line and headers).
const MAX_HEAD: usize = 16 * 1024;
const MAX_HEADERS: usize = 64;

/// `len` bytes of a response body: `head_rest` (read with the head) and then the rest, still
/// on `sock`.
#[derive(Debug)]
pub struct SocketSpan {
    pub sock: TcpStream,
    pub head_rest: Bytes,
    pub len: u64,
    /// The longest silence of the origin between two reads of the body.
    pub idle: Duration,
}

impl SocketSpan {
    /// The body as a stream, for a caller that copies it (reads of
    /// [`super::UPSTREAM_READ_BUFFER`]). An upstream that closes early ends it early, which
    /// hyper answers by cutting the response it announced the length of.
    pub fn into_stream(self) -> BoxStream<'static, io::Result<Bytes>> {
        let left = self.len.saturating_sub(self.head_rest.len() as u64);
        let first =
            futures::stream::iter((!self.head_rest.is_empty()).then_some(Ok(self.head_rest)));
        let tail = ReaderStream::with_capacity(self.sock.take(left), super::UPSTREAM_READ_BUFFER);
        super::until_silent(first.chain(tail), self.idle)
    }
}

/// A response whose body (when it has one we can take) is still on the socket.
#[derive(Debug)]
pub struct PlainResponse {
    pub status: u16,
    pub headers: HeaderMap,
    /// `None` when the body is not framed by `Content-Length` (or is empty).
    pub body: Option<SocketSpan>,
}

/// Whether [`get`] can fetch `url` (plain `http`).
pub fn supports(url: &Url) -> bool {
    url.scheme() == "http" && url.host_str().is_some()
}

/// GETs `url` from the first of `addrs` (the caller resolved and checked them) that accepts a
/// connection, with `extra` headers. Each connection must open within `connect_timeout` and
/// the head arrive within `read_timeout`.
pub async fn get(
    addrs: &[SocketAddr],
    url: &Url,
    extra: &[(HeaderName, &str)],
    connect_timeout: Duration,
    read_timeout: Duration,
) -> Result<PlainResponse, OriginError> {
    let mut failure = OriginError::Refused;
    let mut connected = None;
    for addr in addrs {
        match tokio::time::timeout(connect_timeout, TcpStream::connect(addr)).await {
            Err(_) => failure = OriginError::TimedOut,
            Ok(Err(_)) => failure = OriginError::Refused,
            Ok(Ok(s)) => {
                connected = Some(s);
                break;
            }
        }
    }
    let mut sock = connected.ok_or(failure)?;
    let _ = sock.set_nodelay(true);
    let host = url.host_str().ok_or(OriginError::Failed)?;
    let host = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let mut req = format!(
        "GET {} HTTP/1.1\r\nhost: {host}\r\nuser-agent: surfcoach-video/{}\r\nconnection: close\r\n",
        &url[Position::BeforePath..Position::AfterQuery],
        env!("CARGO_PKG_VERSION"),
    );
    for (name, value) in extra {
        if value.contains(['\r', '\n']) {
            return Err(OriginError::Failed);
        }
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    let head = async {
        sock.write_all(req.as_bytes()).await?;
        read_head(&mut sock).await
    };
    let (status, headers, head_rest) = match tokio::time::timeout(read_timeout, head).await {
        Err(_) => return Err(OriginError::TimedOut),
        Ok(Err(_)) => return Err(OriginError::Failed),
        Ok(Ok(h)) => h,
    };
    let framed = !headers.contains_key(header::TRANSFER_ENCODING);
    let len = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let body = match len {
        Some(len) if framed && len > 0 && head_rest.len() as u64 <= len => Some(SocketSpan {
            sock,
            head_rest,
            len,
            idle: read_timeout,
        }),
        _ => None,
    };
    Ok(PlainResponse {
        status,
        headers,
        body,
    })
}

/// Reads the response head; returns its status, headers and the body bytes read with it.
async fn read_head(sock: &mut TcpStream) -> io::Result<(u16, HeaderMap, Bytes)> {
    let mut buf = BytesMut::with_capacity(4096);
    loop {
        if sock.read_buf(&mut buf).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut slots);
        match resp.parse(&buf).map_err(io::Error::other)? {
            httparse::Status::Partial if buf.len() < MAX_HEAD => continue,
            httparse::Status::Partial => return Err(io::Error::other("response head too long")),
            httparse::Status::Complete(n) => {
                let status = resp.code.unwrap_or(0);
                let mut headers = HeaderMap::new();
                for h in resp.headers.iter() {
                    if let (Ok(k), Ok(v)) = (
                        HeaderName::from_bytes(h.name.as_bytes()),
                        HeaderValue::from_bytes(h.value),
                    ) {
                        headers.append(k, v);
                    }
                }
                return Ok((status, headers, buf.split_off(n).freeze()));
            }
        }
    }
}
