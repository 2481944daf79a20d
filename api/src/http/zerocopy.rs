//! Response bodies the kernel moves straight to the client's socket, so a video's bytes are
//! never copied through the api's memory: from the local store's file (`sendfile`), or from an
//! upstream socket (S3 or an external origin over plain HTTP) through a pipe (`splice`).
//!
//! hyper writes every byte of a response itself, through the connection's IO object, and only
//! takes bytes it holds. So the IO object of each connection `serve_http` accepts is a
//! [`ConnIo`]: the socket plus a [`Door`] shared with the handlers (in each request's
//! extensions). A handler with a [`FileSpan`] or a [`SocketSpan`] gives it to the door and
//! answers with the body [`Door::file_body`] or [`Door::socket_body`] returns: `len` bytes
//! whose chunks are slices of one zeroed buffer that nothing reads, [`mark`]. hyper queues them like any chunk (the vectored write strategy,
//! which `serve_http` sets, so chunks are queued by reference, never copied), counts them
//! against `Content-Length`, and asks `ConnIo` to write them when the socket has room. `ConnIo`
//! recognises a slice of the mark by its address and sends that many bytes of the door's
//! source in its place. Everything else hyper does (framing, keep-alive, back-pressure, the next
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
//! the mark's zeros. An upstream that stays silent longer than its span's `idle` fails it too.
//!
//! A file's body is sent corked (`TCP_CORK`, nginx's `tcp_nopush`), head included: the
//! connection is `TCP_NODELAY`, so without the cork every `sendfile` that the socket's room cut
//! short ended in a short segment of its own. Measured on the local store with 50 readers: the
//! client's CPU per GiB fell from 0.32–0.40 to 0.23–0.26 s and the throughput against nginx
//! rose from 0.77–0.78× to 0.94–0.98× (README, "Video stream proxy"). Relayed bodies showed
//! no gain when corked (one run of the external origin) and stay uncorked.

use std::io::{self, IoSlice};
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Body;
use bytes::{Buf, Bytes};
use hyper::body::{Frame, SizeHint};
use rustix::pipe::{self, PipeFlags, SpliceFlags};
use shared::storage::FileSpan;
use shared::video::plain::SocketSpan;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

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
enum Feed {
    File {
        file: std::fs::File,
        offset: u64,
        remaining: u64,
    },
    Socket(Relay),
}

/// An upstream body on its way to the client: first the bytes read with the response head,
/// then through a pipe, `splice`d in from the upstream socket and out to the client's.
struct Relay {
    upstream: TcpStream,
    head_rest: Bytes,
    /// Bytes still on the upstream socket.
    upstream_left: u64,
    pipe_out: OwnedFd,
    pipe_in: OwnedFd,
    in_pipe: usize,
    idle: Duration,
    /// Armed while waiting for the upstream.
    silence: Option<Pin<Box<Sleep>>>,
}

impl Relay {
    fn left(&self) -> u64 {
        self.head_rest.len() as u64 + self.in_pipe as u64 + self.upstream_left
    }
}

/// What one `splice` from the upstream asks for at most: a pipe's worth (it is empty then).
const PIPE_SIZE: usize = 256 * 1024;

/// A connection's side door for kernel-sent bodies; cloned into each of its requests.
#[derive(Clone, Default)]
pub struct Door(Arc<Mutex<Option<Feed>>>);

impl Door {
    /// A response body of `span.len` bytes that this connection sends from `span`'s file.
    pub fn file_body(&self, span: FileSpan) -> Body {
        let len = span.len;
        self.feed(
            len,
            Feed::File {
                file: span.file,
                offset: span.offset,
                remaining: len,
            },
        )
    }

    /// A response body of `span.len` bytes that this connection relays from `span`'s socket.
    /// Without a pipe (out of descriptors) the body is copied instead.
    pub fn socket_body(&self, span: SocketSpan) -> Body {
        let (pipe_out, pipe_in) = match pipe::pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "no pipe for a relayed body; copying it");
                return Body::from_stream(span.into_stream());
            }
        };
        // A bigger pipe moves more per call; the kernel's default (64 KiB) if refused.
        let _ = pipe::fcntl_setpipe_size(&pipe_in, PIPE_SIZE);
        let len = span.len;
        let relay = Relay {
            upstream_left: len - span.head_rest.len() as u64,
            upstream: span.sock,
            head_rest: span.head_rest,
            pipe_out,
            pipe_in,
            in_pipe: 0,
            idle: span.idle,
            silence: None,
        };
        self.feed(len, Feed::Socket(relay))
    }

    fn holds_file(&self) -> bool {
        is_file(self.0.lock().unwrap_or_else(|p| p.into_inner()).as_ref())
    }

    /// One feed per connection is enough, even for pipelined requests: hyper polls the next
    /// response's handler (which gives the door its source) only once everything queued for
    /// the previous response is written (with queued chunks, a new head waits for an empty
    /// queue), so a feed is replaced only after its mark bytes have all gone out. A body that
    /// is never written (a HEAD) leaves a feed the next one replaces. Test:
    /// `video::kernel_sent::pipelined_bodies_each_keep_their_own_source`.
    fn feed(&self, len: u64, feed: Feed) -> Body {
        if len == 0 {
            return Body::empty();
        }
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(feed);
        Body::new(MarkBody { remaining: len })
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
    /// `TCP_CORK` is on: a file's body is being sent.
    corked: bool,
}

/// Turns `TCP_CORK` on or off once (turning it off sends what it held back). A socket that
/// refuses merely sends uncorked.
fn cork(sock: &TcpStream, corked: &mut bool, on: bool) {
    if *corked != on {
        let _ = socket2::SockRef::from(sock).set_tcp_cork(on);
        *corked = on;
    }
}

fn is_file(feed: Option<&Feed>) -> bool {
    matches!(feed, Some(Feed::File { .. }))
}

impl ConnIo {
    pub fn new(sock: TcpStream) -> (ConnIo, Door) {
        let door = Door::default();
        (
            ConnIo {
                sock,
                door: door.clone(),
                corked: false,
            },
            door,
        )
    }

    /// Sends at most `max` bytes of the feed (hyper is writing that many bytes of mark).
    fn poll_send(&mut self, cx: &mut Context<'_>, max: usize) -> Poll<io::Result<usize>> {
        let mut slot = self.door.0.lock().unwrap_or_else(|p| p.into_inner());
        if is_file(slot.as_ref()) {
            cork(&self.sock, &mut self.corked, true);
        }
        let sent = match slot.as_mut() {
            None => Err(io::Error::other(
                "a kernel-sent body has no source behind it",
            )),
            Some(Feed::File {
                file,
                offset,
                remaining,
            }) => {
                if *remaining < max as u64 {
                    Err(too_long())
                } else {
                    let sent = ready!(send_file(&self.sock, cx, file, offset, max));
                    if let Ok(n) = sent {
                        *remaining -= n as u64;
                    }
                    sent
                }
            }
            Some(Feed::Socket(relay)) => {
                if relay.left() < max as u64 {
                    Err(too_long())
                } else {
                    ready!(relay_some(&self.sock, cx, relay, max))
                }
            }
        };
        let done = match slot.as_ref() {
            Some(Feed::File { remaining, .. }) => *remaining == 0,
            Some(Feed::Socket(relay)) => relay.left() == 0,
            None => false,
        };
        if done || sent.is_err() {
            *slot = None; // closes the file, or the upstream and the pipe
            cork(&self.sock, &mut self.corked, false);
        }
        Poll::Ready(sent)
    }
}

fn too_long() -> io::Error {
    io::Error::other("a kernel-sent body is longer than its source")
}

/// Runs a non-blocking transfer into the client's socket when it has room.
fn poll_into(
    sock: &TcpStream,
    cx: &mut Context<'_>,
    mut f: impl FnMut() -> rustix::io::Result<usize>,
) -> Poll<io::Result<usize>> {
    loop {
        ready!(sock.poll_write_ready(cx))?;
        match sock.try_io(Interest::WRITABLE, || f().map_err(io::Error::from)) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            other => return Poll::Ready(other),
        }
    }
}

fn send_file(
    sock: &TcpStream,
    cx: &mut Context<'_>,
    file: &std::fs::File,
    offset: &mut u64,
    max: usize,
) -> Poll<io::Result<usize>> {
    match ready!(poll_into(sock, cx, || {
        rustix::fs::sendfile(sock, file, Some(offset), max)
    })) {
        Ok(0) => Poll::Ready(Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file ended before the length it is sent with",
        ))),
        other => Poll::Ready(other),
    }
}

/// Moves at most `max` bytes of the relay to the client: the head's leftover first, then
/// what the pipe holds, refilling it from the upstream when it is empty.
fn relay_some(
    sock: &TcpStream,
    cx: &mut Context<'_>,
    r: &mut Relay,
    max: usize,
) -> Poll<io::Result<usize>> {
    if !r.head_rest.is_empty() {
        let n = max.min(r.head_rest.len());
        let sent = ready!(poll_into(sock, cx, || {
            rustix::io::write(sock, &r.head_rest[..n])
        }));
        if let Ok(n) = sent {
            r.head_rest.advance(n);
        }
        return Poll::Ready(sent);
    }
    let flags = SpliceFlags::NONBLOCK | SpliceFlags::MOVE;
    loop {
        if r.in_pipe > 0 {
            let n = max.min(r.in_pipe);
            let sent = ready!(poll_into(sock, cx, || {
                pipe::splice(&r.pipe_out, None, sock, None, n, flags)
            }));
            if let Ok(n) = sent {
                r.in_pipe -= n;
            }
            return Poll::Ready(sent);
        }
        // The pipe is empty, so a refusal (EAGAIN) can only be the upstream's.
        if r.upstream.poll_read_ready(cx)?.is_pending() {
            let silence = r
                .silence
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(r.idle)));
            ready!(silence.as_mut().poll(cx));
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the video origin went silent",
            )));
        }
        let want = PIPE_SIZE.min(r.upstream_left.min(usize::MAX as u64) as usize);
        let moved = r.upstream.try_io(Interest::READABLE, || {
            pipe::splice(&r.upstream, None, &r.pipe_in, None, want, flags).map_err(io::Error::from)
        });
        match moved {
            Ok(0) => {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the video origin closed before the length it announced",
                )));
            }
            Ok(n) => {
                r.upstream_left -= n as u64;
                r.in_pipe = n;
                r.silence = None;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Poll::Ready(Err(e)),
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
    /// the first mark slice go in one `writev` (corked first when a file's body follows them,
    /// so the head waits for the body's first full segment); a mark slice first is sent from
    /// the door's source.
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
        if end < bufs.len() && !self.corked && self.door.holds_file() {
            let this = &mut *self;
            cork(&this.sock, &mut this.corked, true);
        }
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn corked(io: &ConnIo) -> bool {
        socket2::SockRef::from(&io.sock).tcp_cork().unwrap()
    }

    /// A file's body is sent corked, head included, and the cork comes off with its last byte
    /// (else the end of every response would wait up to 200 ms for the kernel's cork timer).
    #[tokio::test]
    async fn a_file_body_is_sent_corked_and_uncorked_after_its_last_byte() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        let (mut client, (server, _)) = (client.unwrap(), accepted.unwrap());
        let (mut io, door) = ConnIo::new(server);

        let data: Vec<u8> = (0..CHUNK * 3 / 2).map(|i| (i % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("zerocopy-cork-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let len = data.len() as u64;
        let _body = door.file_body(FileSpan {
            file,
            offset: 0,
            len,
        });
        let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {len}\r\n\r\n");

        let expected = [head.as_bytes(), &data].concat();
        let reader = tokio::spawn(async move {
            let mut got = vec![0u8; expected.len()];
            client.read_exact(&mut got).await.unwrap();
            assert!(got == expected, "the head and the file arrive whole");
        });

        assert!(!corked(&io));
        let first = [
            IoSlice::new(head.as_bytes()),
            IoSlice::new(&mark()[..CHUNK]),
        ];
        let n = io.write_vectored(&first).await.unwrap();
        assert_eq!(n, head.len(), "the head goes alone, before the mark");
        assert!(corked(&io), "corked before the head of a file's body");
        io.write_all(&mark()[..CHUNK]).await.unwrap();
        assert!(corked(&io), "still corked with bytes of the body left");
        io.write_all(&mark()[..data.len() - CHUNK]).await.unwrap();
        assert!(!corked(&io), "uncorked once the last byte is sent");
        reader.await.unwrap();

        // An ordinary response after it is not corked.
        io.write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .await
            .unwrap();
        assert!(!corked(&io));
    }

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
