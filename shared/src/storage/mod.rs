//! Object storage: one interface ([`Storage`]) over two backends, the local filesystem (the
//! embedded default) and S3 or an S3-compatible server, holding three logical stores
//! ([`Store`]): `raw-uploads`, `session-videos` and `sidecars`.
//!
//! * **Keys** are validated the same way for both backends ([`validate_key`]): non-empty, at most
//!   1024 bytes, `/`-separated segments that are non-empty, at most 240 bytes and do not start
//!   with `.` (so no `.`/`..` traversal, and the local store's own dot-files can never collide
//!   with a key), no control characters (NUL included) and no backslash. The local store never
//!   leaves its root.
//! * **Local layout**: the object `key` of store `s` is the file `<STORAGE_DIR>/<s>/<key>`; its
//!   content type is kept next to it in `.<file name>.meta`, a JSON document
//!   `{"contentType": "video/mp4"}`. Uploads are written to `.<uuid>.tmp` in the object's own
//!   directory, flushed to disk, then renamed over the object, so a crash or a dropped upload
//!   never leaves a half-written object visible. A key cannot be both an object and a "directory"
//!   (`a` and `a/b`) on the local store; S3 allows it.
//! * **S3 layout**: one bucket per store, named `S3_BUCKET_PREFIX` + store name, created by
//!   [`Storage::new`] when missing. Bodies up to [`PART_SIZE`] go up with one `PutObject`;
//!   longer streams with a multipart upload in `PART_SIZE` parts (aborted on error or when the
//!   upload future is dropped).
//! * **Direct URLs**: [`Storage::presign_get`] / [`Storage::presign_put`] give S3 presigned URLs,
//!   or for the local store URLs on the api,
//!   `{public_base_url}/api/storage/{store}/{key}?op=get|put&exp=<unix>&sig=<b64url hmac>`,
//!   which the api route checks with [`verify_local_url`].

mod config;
mod key;
mod local;
mod s3;
mod s3_http;
pub(crate) mod signed_url;

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures::stream::{BoxStream, Stream, StreamExt};

use crate::crypto::Keys;

pub use config::{S3Config, StorageBackend, StorageConfig};
pub use key::{validate_key, validate_prefix};
pub use signed_url::{SIGNED_URL_PURPOSE, SignedUrlQuery, UrlOp, verify_local_url};

/// Size of the parts of an S3 multipart upload, and the largest body sent with one `PutObject`.
/// S3 wants at least 5 MiB per part except the last, and at most 10,000 parts: 8 MiB parts allow
/// objects up to about 78 GiB. One part is the most an upload holds in memory.
pub const PART_SIZE: usize = 8 * 1024 * 1024;

/// The logical stores. Each is a directory of the local store or a bucket on S3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Store {
    RawUploads,
    SessionVideos,
    Sidecars,
}

impl Store {
    pub const ALL: [Store; 3] = [Store::RawUploads, Store::SessionVideos, Store::Sidecars];

    pub fn name(self) -> &'static str {
        match self {
            Store::RawUploads => "raw-uploads",
            Store::SessionVideos => "session-videos",
            Store::Sidecars => "sidecars",
        }
    }

    /// The store with this [`name`](Store::name) (for a route's path parameter).
    pub fn from_name(name: &str) -> Option<Store> {
        Store::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A byte range as in HTTP `Range`: `bytes=start-end` (inclusive), `bytes=start-` (`end: None`)
/// or the suffix `bytes=-len` (the last `len` bytes). An `end` past the object is clamped to its
/// last byte, and a suffix longer than the object is the whole object, as in HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteRange {
    From { start: u64, end: Option<u64> },
    Suffix { len: u64 },
}

impl ByteRange {
    /// The `Range` header value asking for this range.
    pub fn header_value(self) -> String {
        match self {
            ByteRange::From {
                start,
                end: Some(end),
            } => format!("bytes={start}-{end}"),
            ByteRange::From { start, end: None } => format!("bytes={start}-"),
            ByteRange::Suffix { len } => format!("bytes=-{len}"),
        }
    }

    /// `bytes=start-end` (both inclusive).
    pub fn new(start: u64, end: u64) -> Self {
        ByteRange::From {
            start,
            end: Some(end),
        }
    }

    /// `bytes=start-`.
    pub fn starting_at(start: u64) -> Self {
        ByteRange::From { start, end: None }
    }

    /// `bytes=-len`: the last `len` bytes.
    pub fn suffix(len: u64) -> Self {
        ByteRange::Suffix { len }
    }

    /// Parses an HTTP `Range` header value of the forms `bytes=a-b`, `bytes=a-` and `bytes=-n`.
    /// Anything else (several ranges, other units, `b < a`, garbage) gives `None`: RFC 9110 lets
    /// a server ignore such a header and answer 200 with the whole body.
    pub fn parse_header(value: &str) -> Option<ByteRange> {
        let spec = value.trim().strip_prefix("bytes=")?.trim();
        let (start, end) = spec.split_once('-')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if start.is_empty() {
            if !digits(end) {
                return None;
            }
            return end.parse().ok().map(ByteRange::suffix);
        }
        if !digits(start) {
            return None;
        }
        let start: u64 = start.parse().ok()?;
        if end.is_empty() {
            return Some(ByteRange::starting_at(start));
        }
        if !digits(end) {
            return None;
        }
        let end: u64 = end.parse().ok()?;
        (end >= start).then_some(ByteRange::new(start, end))
    }

    /// The inclusive `(first, last)` byte positions served from an object of `size` bytes, or
    /// `RangeNotSatisfiable` when the range starts at or past the end (always so for an empty
    /// object), ends before it starts, or is an empty suffix (`bytes=-0`).
    pub fn resolve(self, size: u64) -> Result<(u64, u64), StorageError> {
        let unsatisfiable = StorageError::RangeNotSatisfiable { size };
        match self {
            ByteRange::Suffix { len } => {
                if len == 0 || size == 0 {
                    return Err(unsatisfiable);
                }
                Ok((size - len.min(size), size - 1))
            }
            ByteRange::From { start, end } => {
                if start >= size {
                    return Err(unsatisfiable);
                }
                let last = match end {
                    Some(end) if end < start => return Err(unsatisfiable),
                    Some(end) => end.min(size - 1),
                    None => size - 1,
                };
                Ok((start, last))
            }
        }
    }
}

/// An object being read. `body` yields exactly the bytes of `range` (or of the whole object).
pub struct Object {
    /// Total size of the object, whatever the range.
    pub size: u64,
    /// The inclusive range served, when a range was asked for (for `206` and `Content-Range`).
    pub range: Option<(u64, u64)>,
    pub content_type: Option<String>,
    /// As [`ObjectMeta`]'s, read with the object: a GET needs no HEAD before it.
    pub last_modified: Option<SystemTime>,
    pub etag: Option<String>,
    pub body: BoxStream<'static, io::Result<Bytes>>,
    /// The same bytes as `body`, as a span of an open file, when the backend reads a local
    /// file: a caller that can have the kernel send them (`sendfile`) uses this and drops
    /// `body` unread. `None` for S3.
    pub file: Option<FileSpan>,
}

/// See [`Storage::get_on_socket`]: the object's metadata as read with it, the inclusive range
/// served (for a ranged read), and the body still on the socket.
#[derive(Debug)]
pub struct SocketObject {
    pub meta: ObjectMeta,
    pub range: Option<(u64, u64)>,
    pub body: crate::video::plain::SocketSpan,
}

/// `len` bytes of `file` from `offset`. The file is open, so a new upload that replaces the
/// object's name meanwhile does not change what is read.
#[derive(Debug)]
pub struct FileSpan {
    pub file: std::fs::File,
    pub offset: u64,
    pub len: u64,
}

impl Object {
    /// The number of bytes `body` yields (`Content-Length`).
    pub fn content_length(&self) -> u64 {
        match self.range {
            Some((first, last)) => last - first + 1,
            None => self.size,
        }
    }

    /// What a HEAD would have said of the object, as read with it.
    pub fn meta(&self) -> ObjectMeta {
        ObjectMeta {
            size: self.size,
            content_type: self.content_type.clone(),
            last_modified: self.last_modified,
            etag: self.etag.clone(),
        }
    }

    /// `bytes first-last/size` for a ranged read.
    pub fn content_range(&self) -> Option<String> {
        self.range
            .map(|(first, last)| format!("bytes {first}-{last}/{}", self.size))
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("size", &self.size)
            .field("range", &self.range)
            .field("content_type", &self.content_type)
            .finish_non_exhaustive()
    }
}

/// What [`Storage::head`] knows about an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectMeta {
    pub size: u64,
    pub content_type: Option<String>,
    pub last_modified: Option<SystemTime>,
    /// An opaque version tag without quotes: S3's ETag, or size and modification time locally.
    pub etag: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("object not found")]
    NotFound,
    #[error("invalid object key: {0}")]
    InvalidKey(String),
    #[error("range not satisfiable (object size {size})")]
    RangeNotSatisfiable { size: u64 },
    /// The backend failed (I/O, network, S3 error) or the upload body yielded an error; the
    /// chain keeps the cause (an upload body's `io::Error` can be found with `downcast_ref`).
    #[error("object storage failed: {0:#}")]
    Backend(anyhow::Error),
}

impl StorageError {
    pub(crate) fn backend(e: impl Into<anyhow::Error>, context: impl fmt::Display) -> Self {
        let e: anyhow::Error = e.into();
        StorageError::Backend(e.context(context.to_string()))
    }
}

/// The object store, cheap to clone (shared inside).
#[derive(Clone)]
pub struct Storage {
    inner: Arc<Inner>,
}

enum Inner {
    Local(local::LocalStore),
    S3(s3::S3Store),
}

impl fmt::Debug for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.inner {
            Inner::Local(l) => f.debug_tuple("Storage::Local").field(&l.root()).finish(),
            Inner::S3(_) => f.write_str("Storage::S3"),
        }
    }
}

impl Storage {
    /// Opens the configured backend: creates the local store's directories, or checks the S3
    /// buckets and creates those that are missing.
    pub async fn new(cfg: &StorageConfig) -> anyhow::Result<Storage> {
        let inner = match &cfg.backend {
            StorageBackend::Local { dir } => Inner::Local(local::LocalStore::open(dir).await?),
            StorageBackend::S3(s3) => Inner::S3(s3::S3Store::connect(s3).await?),
        };
        Ok(Storage {
            inner: Arc::new(inner),
        })
    }

    /// `"local"` or `"s3"`.
    pub fn backend_name(&self) -> &'static str {
        match &*self.inner {
            Inner::Local(_) => "local",
            Inner::S3(_) => "s3",
        }
    }

    /// Streaming upload; holds at most one [`PART_SIZE`] part in memory. Replaces an existing
    /// object atomically (readers see the old or the new object, never a partial one). Returns
    /// the number of bytes stored.
    ///
    /// The body is a stream of `Bytes` rather than an `AsyncRead`: the sources are chunked
    /// already (axum's `Body::into_data_stream`, reqwest's `bytes_stream`, ffmpeg output read
    /// with `tokio_util::io::ReaderStream`), chunks move into S3 parts without another copy
    /// through a read buffer, and an `AsyncRead` is one `ReaderStream::new(reader)` away.
    pub async fn put<S>(
        &self,
        store: Store,
        key: &str,
        body: S,
        content_type: &str,
    ) -> Result<u64, StorageError>
    where
        S: Stream<Item = io::Result<Bytes>> + Send,
    {
        validate_key(key)?;
        check_content_type(content_type)?;
        let body = body.boxed();
        match &*self.inner {
            Inner::Local(l) => l.put(store, key, body, content_type).await,
            Inner::S3(s) => s.put(store, key, body, content_type).await,
        }
    }

    /// Upload of a body already in memory.
    pub async fn put_bytes(
        &self,
        store: Store,
        key: &str,
        bytes: Bytes,
        content_type: &str,
    ) -> Result<u64, StorageError> {
        self.put(
            store,
            key,
            futures::stream::once(async move { Ok(bytes) }),
            content_type,
        )
        .await
    }

    /// Whole or ranged streaming read.
    pub async fn get(
        &self,
        store: Store,
        key: &str,
        range: Option<ByteRange>,
    ) -> Result<Object, StorageError> {
        validate_key(key)?;
        match &*self.inner {
            Inner::Local(l) => l.get(store, key, range).await,
            Inner::S3(s) => s.get(store, key, range).await,
        }
    }

    /// A whole object in memory, for small objects a caller must parse or forward whole (a
    /// report's JSON, a voice note sent to the model). Anything large is streamed with [`get`].
    ///
    /// [`get`]: Storage::get
    pub async fn get_bytes(&self, store: Store, key: &str) -> Result<Bytes, StorageError> {
        use futures::TryStreamExt;
        let obj = self.get(store, key, None).await?;
        let chunks: Vec<Bytes> = obj
            .body
            .try_collect()
            .await
            .map_err(|e| StorageError::Backend(e.into()))?;
        Ok(Bytes::from(chunks.concat()))
    }

    /// The first `n` bytes of an object (fewer when it is shorter), to check what it is by its
    /// content; `None` when there is no such object.
    pub async fn read_head(
        &self,
        store: Store,
        key: &str,
        n: u64,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        use futures::TryStreamExt;
        let range = ByteRange::new(0, n.saturating_sub(1));
        let obj = match self.get(store, key, Some(range)).await {
            Ok(o) => o,
            Err(StorageError::NotFound) => return Ok(None),
            // An empty object has no first byte to serve.
            Err(StorageError::RangeNotSatisfiable { .. }) => return Ok(Some(Vec::new())),
            Err(e) => return Err(e),
        };
        let chunks: Vec<Bytes> = obj
            .body
            .try_collect()
            .await
            .map_err(|e| StorageError::Backend(e.into()))?;
        Ok(Some(chunks.concat()))
    }

    /// The object's size and content type, or `None` if there is no such object.
    pub async fn head(&self, store: Store, key: &str) -> Result<Option<ObjectMeta>, StorageError> {
        validate_key(key)?;
        match &*self.inner {
            Inner::Local(l) => l.head(store, key).await,
            Inner::S3(s) => s.head(store, key).await,
        }
    }

    /// Idempotent: deleting a missing key is `Ok`.
    pub async fn delete(&self, store: Store, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        match &*self.inner {
            Inner::Local(l) => l.delete(store, key).await,
            Inner::S3(s) => s.delete(store, key).await,
        }
    }

    /// Deletes every object whose key starts with `prefix` (a plain string prefix, as in S3:
    /// `"a/b"` also matches `"a/bc"`; end it with `/` for "everything under a/b"). Returns how
    /// many were deleted. `prefix` must be non-empty: it never wipes a whole store. Uploads
    /// still running under the prefix may land after it returns.
    pub async fn delete_prefix(&self, store: Store, prefix: &str) -> Result<u64, StorageError> {
        validate_prefix(prefix)?;
        match &*self.inner {
            Inner::Local(l) => l.delete_prefix(store, prefix).await,
            Inner::S3(s) => s.delete_prefix(store, prefix).await,
        }
    }

    /// A URL from which anyone holding it can `GET` the object until `ttl` has passed.
    /// S3: a presigned URL (SigV4 caps `ttl` at 7 days). Local: a URL on the api signed with
    /// `keys` (see [`verify_local_url`]).
    pub async fn presign_get(
        &self,
        store: Store,
        key: &str,
        ttl: Duration,
        keys: &Keys,
        public_base_url: &str,
    ) -> Result<String, StorageError> {
        validate_key(key)?;
        match &*self.inner {
            Inner::Local(_) => {
                signed_url::local_url(keys, public_base_url, store, key, UrlOp::Get, "", ttl)
            }
            Inner::S3(s) => s.presign_get(store, key, ttl).await,
        }
    }

    /// For S3 on a plain-HTTP endpoint (one on the same network, as in the test and benchmark
    /// set-ups): the object read by a presigned `GetObject` sent over a connection of its own
    /// ([`crate::video::plain`]), its body left on the socket for a caller that has the kernel
    /// move it (the video proxy's `splice`). `idle` bounds the wait for the answer's head and
    /// then between reads of the body. `None` for the local store, an `https` endpoint, a
    /// suffix or backwards range, or any answer but a success framed by its length: the caller
    /// then uses [`get`], which also gives the error.
    ///
    /// [`get`]: Storage::get
    pub async fn get_on_socket(
        &self,
        store: Store,
        key: &str,
        range: Option<ByteRange>,
        idle: Duration,
    ) -> Option<SocketObject> {
        validate_key(key).ok()?;
        let Inner::S3(s) = &*self.inner else {
            return None;
        };
        s.get_on_socket(store, key, range, idle).await
    }

    /// A URL to which anyone holding it can `PUT` the object's bytes until `ttl` has passed.
    /// The upload must send exactly `content_type`: S3's presigned URL signs it, the local
    /// URL on the api carries it under its signature (and the route checks the bytes).
    pub async fn presign_put(
        &self,
        store: Store,
        key: &str,
        ttl: Duration,
        content_type: &str,
        keys: &Keys,
        public_base_url: &str,
    ) -> Result<String, StorageError> {
        validate_key(key)?;
        check_content_type(content_type)?;
        match &*self.inner {
            Inner::Local(_) => signed_url::local_url(
                keys,
                public_base_url,
                store,
                key,
                UrlOp::Put,
                content_type,
                ttl,
            ),
            Inner::S3(s) => s.presign_put(store, key, ttl, content_type).await,
        }
    }
}

/// A content type must be a legal header value; S3 would reject it late, the local store would
/// store it and serve it back broken.
fn check_content_type(content_type: &str) -> Result<(), StorageError> {
    let ok = !content_type.is_empty()
        && content_type.len() <= 255
        && content_type.bytes().all(|b| (b' '..=b'~').contains(&b));
    if ok {
        Ok(())
    } else {
        Err(StorageError::Backend(anyhow::anyhow!(
            "content type {content_type:?} is not a printable ASCII header value of 1 to 255 bytes"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_names_round_trip() {
        for s in Store::ALL {
            assert_eq!(Store::from_name(s.name()), Some(s));
        }
        assert_eq!(Store::RawUploads.name(), "raw-uploads");
        assert_eq!(Store::SessionVideos.name(), "session-videos");
        assert_eq!(Store::Sidecars.name(), "sidecars");
        assert_eq!(Store::from_name("objects"), None);
    }

    #[test]
    fn range_headers_parse_or_are_ignored() {
        assert_eq!(
            ByteRange::parse_header("bytes=0-99"),
            Some(ByteRange::new(0, 99))
        );
        assert_eq!(
            ByteRange::parse_header("bytes=100-"),
            Some(ByteRange::starting_at(100))
        );
        assert_eq!(
            ByteRange::parse_header("bytes=-100"),
            Some(ByteRange::suffix(100))
        );
        for ignored in [
            "bytes=0-1,5-6",
            "bytes=-",
            "bytes=-1-2",
            "items=0-1",
            "bytes=5-3",
            "bytes=a-b",
            "bytes=+1-2",
            "",
        ] {
            assert_eq!(ByteRange::parse_header(ignored), None, "{ignored}");
        }
    }

    #[test]
    fn ranges_resolve_like_http() {
        assert_eq!(ByteRange::new(0, 9).resolve(100).unwrap(), (0, 9));
        assert_eq!(ByteRange::new(90, 500).resolve(100).unwrap(), (90, 99));
        assert_eq!(ByteRange::starting_at(99).resolve(100).unwrap(), (99, 99));
        assert_eq!(ByteRange::suffix(10).resolve(100).unwrap(), (90, 99));
        assert_eq!(ByteRange::suffix(500).resolve(100).unwrap(), (0, 99));
        for (r, size) in [
            (ByteRange::starting_at(100), 100),
            (ByteRange::new(0, 0), 0),
            (ByteRange::new(5, 3), 100),
            (ByteRange::suffix(0), 100),
            (ByteRange::suffix(5), 0),
        ] {
            assert!(matches!(
                r.resolve(size),
                Err(StorageError::RangeNotSatisfiable { size: s }) if s == size
            ));
        }
    }

    /// Handlers and jobs spawn these futures: they must be `Send`.
    #[tokio::test]
    async fn storage_and_its_futures_are_send_and_sync() {
        fn send<T: Send>(_: T) {}
        fn send_sync<T: Send + Sync + Clone + 'static>(_: &T) {}
        let dir = tempfile::tempdir().unwrap();
        let s = Storage::new(&StorageConfig::local(dir.path()))
            .await
            .unwrap();
        let keys = Keys::new(&[0u8; 32]);
        let ttl = Duration::from_secs(1);
        send_sync(&s);
        send(s.put(Store::Sidecars, "k", futures::stream::empty(), "a/b"));
        send(s.put_bytes(Store::Sidecars, "k", Bytes::new(), "a/b"));
        send(s.get(Store::Sidecars, "k", None));
        send(s.head(Store::Sidecars, "k"));
        send(s.delete(Store::Sidecars, "k"));
        send(s.delete_prefix(Store::Sidecars, "k/"));
        send(s.presign_get(Store::Sidecars, "k", ttl, &keys, "http://x"));
        send(s.presign_put(Store::Sidecars, "k", ttl, "a/b", &keys, "http://x"));
    }

    #[test]
    fn content_types_must_be_header_values() {
        assert!(check_content_type("video/mp4").is_ok());
        assert!(check_content_type("text/plain; charset=utf-8").is_ok());
        assert!(check_content_type("").is_err());
        assert!(check_content_type("text/plain\r\nX-Evil: 1").is_err());
    }
}
