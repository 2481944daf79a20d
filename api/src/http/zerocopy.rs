//! Response bodies the kernel sends from a file straight to the client's socket (`sendfile`),
//! so a video's bytes are never copied through the api's memory.
//!
//! hyper writes every byte of a response itself, through the connection's IO object, and only
//! takes bytes it holds. So the IO object of each connection `serve_http` accepts is a
//! [`ConnIo`]: the socket plus a [`Door`] shared with the handlers (in each request's
//! extensions). A handler with a [`FileSpan`] gives it to the door and answers with the body
//! [`Door::body`] returns: `len` bytes whose chunks are slices of one zeroed buffer that
//! nothing reads, [`mark`]. hyper queues them like any chunk (the vectored write strategy,
//! which `serve_http` sets, so chunks are queued by reference, never copied), counts them
//! against `Content-Length`, and asks `ConnIo` to write them when the socket has room. `ConnIo`
//! recognises a slice of the mark by its address and sends that many bytes of the door's file
//! in its place. Everything else hyper does (framing, keep-alive, back-pressure, the next
//! request on the connection) is unchanged.
//!
//! sendfile hands the socket the page cache's pages rather than copies, so a file changed in
//! place while its bytes wait in the socket would change them. The local store never changes a
//! file in place: an upload is a new file renamed over the name and a delete unlinks, and the
//! open file keeps the pages it had (tests: `video::kernel_sent`).
//!
//! Without a door (a router driven by `oneshot` in tests, or a server other than
//! `serve_http`) handlers keep the copying body. A mark slice with no file behind it, or a file
//! that ends early, fails the connection with an error: the client sees a cut response, never
//! the mark's zeros.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll, ready};

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use shared::storage::FileSpan;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

/// The largest chunk of a kernel-sent body, so the most one `sendfile` call is asked to send.
/// A file not in the page cache is read while the call blocks its thread, so a call is bounded
/// (nginx's `sendfile_max_chunk` is 2 MiB for the same reason).
const CHUNK: usize = 512 * 1024;

/// The buffer a kernel-sent body's chunks point into. Allocated zeroed and never touched, so
/// it costs address space, not memory.
fn mark() -> &'static [u8] {
    static MARK: LazyLock<&'static [u8]> =
        LazyLock::new(|| Box::leak(vec![0u8; CHUNK].into_boxed_slice()));
    *MARK
}

fn is_mark(buf: &[u8]) -> bool {
    let m = mark();
    let (start, p) = (m.as_ptr() as usize, buf.as_ptr() as usize);
    !buf.is_empty() && p >= start && p + buf.len() <= start + m.len()
}

/// What the next mark bytes written on a connection stand for.
struct Feed {
    file: std::fs::File,
    offset: u64,
    remaining: u64,
}

/// A connection's side door for kernel-sent bodies; cloned into each of its requests.
#[derive(Clone, Default)]
pub struct Door(Arc<Mutex<Option<Feed>>>);

impl Door {
    /// A response body of `span.len` bytes that this connection sends from `span`'s file.
    /// HTTP/1 answers one request at a time, so a connection has one feed at most.
    pub fn body(&self, span: FileSpan) -> Body {
        if span.len == 0 {
            return Body::empty();
        }
        let feed = Feed {
            file: span.file,
            offset: span.offset,
            remaining: span.len,
        };
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(feed);
        Body::new(MarkBody {
            remaining: span.len,
        })
    }
}

/// The body hyper sees: `remaining` bytes of mark, in chunks of at most [`CHUNK`].
struct MarkBody {
    remaining: u64,
}

impl hyper::body::Body for MarkBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.remaining == 0 {
            return Poll::Ready(None);
        }
        let n = self.remaining.min(CHUNK as u64) as usize;
        self.remaining -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&mark()[..n])))))
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

/// An accepted connection's socket as hyper's IO: reads and ordinary writes go to the socket;
/// a write of mark bytes sends the door's file instead.
pub struct ConnIo {
    sock: TcpStream,
    door: Door,
}

impl ConnIo {
    pub fn new(sock: TcpStream) -> (ConnIo, Door) {
        let door = Door::default();
        (
            ConnIo {
                sock,
                door: door.clone(),
            },
            door,
        )
    }

    /// Sends at most `max` bytes of the feed (hyper is writing that many bytes of mark).
    fn poll_send(&mut self, cx: &mut Context<'_>, max: usize) -> Poll<io::Result<usize>> {
        let mut slot = self.door.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(feed) = slot.as_mut() else {
            return Poll::Ready(Err(io::Error::other(
                "a kernel-sent body has no file behind it",
            )));
        };
        if feed.remaining < max as u64 {
            return Poll::Ready(Err(io::Error::other(
                "a kernel-sent body is longer than its file span",
            )));
        }
        loop {
            ready!(self.sock.poll_write_ready(cx))?;
            let sent = self.sock.try_io(Interest::WRITABLE, || {
                rustix::fs::sendfile(&self.sock, &feed.file, Some(&mut feed.offset), max)
                    .map_err(io::Error::from)
            });
            match sent {
                Ok(0) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file ended before the length it is sent with",
                    )));
                }
                Ok(n) => {
                    feed.remaining -= n as u64;
                    if feed.remaining == 0 {
                        *slot = None; // closes the file
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.sock).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if is_mark(buf) {
            return self.poll_send(cx, buf.len());
        }
        Pin::new(&mut self.sock).poll_write(cx, buf)
    }

    /// hyper hands over its queue (head, then body chunks) at once: the ordinary slices before
    /// the first mark slice go in one `writev`; a mark slice first is sent from the file.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let Some(first) = bufs.iter().position(|b| !b.is_empty()) else {
            return Poll::Ready(Ok(0));
        };
        let bufs = &bufs[first..];
        if is_mark(&bufs[0]) {
            return self.poll_send(cx, bufs[0].len());
        }
        let end = bufs.iter().position(|b| is_mark(b)).unwrap_or(bufs.len());
        Pin::new(&mut self.sock).poll_write_vectored(cx, &bufs[..end])
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.sock).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.sock).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slices_of_the_mark_are_marks() {
        let m = mark();
        assert!(is_mark(m));
        assert!(is_mark(&m[10..20]));
        assert!(!is_mark(&m[5..5]), "an empty slice is never a mark");
        let copy = m[..16].to_vec();
        assert!(
            !is_mark(&copy),
            "a copy of the mark's zeros is ordinary data"
        );
    }
}
