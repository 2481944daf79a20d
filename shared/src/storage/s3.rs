//! The S3 backend (AWS or an S3-compatible server), one bucket per store.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, SystemTime};

use anyhow::{Context, anyhow, bail};
use aws_sdk_s3::Client;
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketLocationConstraint, CompletedMultipartUpload, CompletedPart, CreateBucketConfiguration,
    Delete, ObjectIdentifier,
};
use bytes::{Bytes, BytesMut};
use futures::stream::{BoxStream, StreamExt};

use super::s3_http::CONNECT_TIMEOUT;
use super::{
    ByteRange, Object, ObjectMeta, PART_SIZE, S3Config, SocketObject, StorageError, Store,
};
use crate::video::plain;
use http::header;

/// S3 allows at most 10,000 parts per multipart upload.
const MAX_PARTS: i32 = 10_000;

pub(super) struct S3Store {
    client: Client,
    /// Bucket names, indexed by `Store as usize`.
    buckets: [String; 3],
}

fn status<E>(e: &SdkError<E, HttpResponse>) -> Option<u16> {
    e.raw_response().map(|r| r.status().as_u16())
}

fn sdk_err<E>(e: SdkError<E, HttpResponse>, what: impl std::fmt::Display) -> StorageError
where
    E: std::error::Error + Send + Sync + 'static,
{
    StorageError::Backend(anyhow!("{what}: {}", DisplayErrorContext(&e)))
}

/// `bytes first-last/size` → `(size, (first, last))`.
fn parse_content_range(v: &str) -> Option<(u64, (u64, u64))> {
    let (span, size) = v.trim().strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = span.split_once('-')?;
    Some((
        size.parse().ok()?,
        (first.parse().ok()?, last.parse().ok()?),
    ))
}

fn backwards(r: ByteRange) -> bool {
    matches!(r, ByteRange::From { start, end: Some(end) } if end < start)
}

fn body_stream(body: ByteStream) -> BoxStream<'static, io::Result<Bytes>> {
    futures::stream::unfold(Some(body), |state| async move {
        let mut body = state?;
        match body.try_next().await {
            Ok(Some(chunk)) => Some((Ok(chunk), Some(body))),
            Ok(None) => None,
            Err(e) => Some((Err(io::Error::other(e)), None)),
        }
    })
    .boxed()
}

/// Upload chunks waiting to become parts. A part is cut from one chunk without copying when the
/// chunk is long enough, else assembled into a new buffer.
#[derive(Default)]
struct Pending {
    chunks: VecDeque<Bytes>,
    len: usize,
}

impl Pending {
    /// Reads from `body` until at least `PART_SIZE` bytes wait; `true` when the body ended.
    async fn fill(
        &mut self,
        body: &mut BoxStream<'_, io::Result<Bytes>>,
    ) -> Result<bool, StorageError> {
        while self.len < PART_SIZE {
            match body.next().await {
                None => return Ok(true),
                Some(Err(e)) => return Err(StorageError::backend(e, "reading the upload body")),
                Some(Ok(chunk)) if chunk.is_empty() => {}
                Some(Ok(chunk)) => {
                    self.len += chunk.len();
                    self.chunks.push_back(chunk);
                }
            }
        }
        Ok(false)
    }

    /// The next `n` bytes (`n <= self.len`).
    fn take(&mut self, n: usize) -> Bytes {
        self.len -= n;
        if let Some(front) = self.chunks.front_mut()
            && front.len() >= n
        {
            let part = front.split_to(n);
            if front.is_empty() {
                self.chunks.pop_front();
            }
            return part;
        }
        let mut part = BytesMut::with_capacity(n);
        while part.len() < n {
            let front = self.chunks.front_mut().expect("enough bytes pending");
            let want = (n - part.len()).min(front.len());
            part.extend_from_slice(&front.split_to(want));
            if front.is_empty() {
                self.chunks.pop_front();
            }
        }
        part.freeze()
    }
}

/// Aborts a multipart upload that did not complete, also when the upload future is dropped
/// (a client hanging up): S3 would otherwise keep and bill the parts.
struct AbortGuard {
    client: Client,
    bucket: String,
    key: String,
    upload_id: Option<String>,
}

impl AbortGuard {
    async fn abort(mut self) {
        if let Some(id) = self.upload_id.take() {
            abort_upload(&self.client, &self.bucket, &self.key, &id).await;
        }
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if let Some(id) = self.upload_id.take()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            let (client, bucket, key) =
                (self.client.clone(), self.bucket.clone(), self.key.clone());
            rt.spawn(async move { abort_upload(&client, &bucket, &key, &id).await });
        }
    }
}

async fn abort_upload(client: &Client, bucket: &str, key: &str, upload_id: &str) {
    let res = client
        .abort_multipart_upload()
        .bucket(bucket)
        .key(key)
        .upload_id(upload_id)
        .send()
        .await;
    if let Err(e) = res {
        tracing::warn!(bucket, key, upload_id, error = %DisplayErrorContext(&e), "aborting a multipart upload failed");
    }
}

impl S3Store {
    pub(super) async fn connect(cfg: &S3Config) -> anyhow::Result<S3Store> {
        let credentials = Credentials::new(
            &cfg.access_key_id,
            cfg.secret_access_key.expose(),
            None,
            None,
            "storage-config",
        );
        let mut builder = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(super::s3_http::BoundedClient::new()?)
            .region(Region::new(cfg.region.clone()))
            .credentials_provider(credentials)
            .force_path_style(cfg.force_path_style)
            // Checksums only where S3 requires them (DeleteObjects): the SDK's default (CRC32 on
            // every upload, as aws-chunked trailers) is not understood by every S3-compatible
            // server and would be signed into presigned PUT URLs.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired);
        if let Some(endpoint) = &cfg.endpoint {
            builder = builder.endpoint_url(endpoint);
        }
        let client = Client::from_conf(builder.build());
        let buckets = Store::ALL.map(|s| cfg.bucket(s));
        for bucket in &buckets {
            ensure_bucket(&client, bucket, &cfg.region).await?;
        }
        Ok(S3Store { client, buckets })
    }

    fn bucket(&self, store: Store) -> &str {
        &self.buckets[store as usize]
    }

    pub(super) async fn put(
        &self,
        store: Store,
        key: &str,
        mut body: BoxStream<'_, io::Result<Bytes>>,
        content_type: &str,
    ) -> Result<u64, StorageError> {
        let bucket = self.bucket(store);
        let mut pending = Pending::default();
        let mut ended = pending.fill(&mut body).await?;

        if ended && pending.len <= PART_SIZE {
            let len = pending.len;
            let bytes = pending.take(len);
            self.client
                .put_object()
                .bucket(bucket)
                .key(key)
                .content_type(content_type)
                .content_length(len as i64)
                .body(ByteStream::from(bytes))
                .send()
                .await
                .map_err(|e| sdk_err(e, format_args!("PutObject {bucket}/{key}")))?;
            return Ok(len as u64);
        }

        let created = self
            .client
            .create_multipart_upload()
            .bucket(bucket)
            .key(key)
            .content_type(content_type)
            .send()
            .await
            .map_err(|e| sdk_err(e, format_args!("CreateMultipartUpload {bucket}/{key}")))?;
        let upload_id = created
            .upload_id()
            .ok_or_else(|| {
                StorageError::Backend(anyhow!("CreateMultipartUpload without an upload id"))
            })?
            .to_string();
        let guard = AbortGuard {
            client: self.client.clone(),
            bucket: bucket.to_string(),
            key: key.to_string(),
            upload_id: Some(upload_id.clone()),
        };

        let uploaded = async {
            let mut parts = Vec::new();
            let mut size = 0u64;
            loop {
                while pending.len >= PART_SIZE || (ended && pending.len > 0) {
                    let part = pending.take(pending.len.min(PART_SIZE));
                    let number = parts.len() as i32 + 1;
                    if number > MAX_PARTS {
                        return Err(StorageError::Backend(anyhow!(
                            "object too large: more than {MAX_PARTS} parts of {PART_SIZE} bytes"
                        )));
                    }
                    size += part.len() as u64;
                    let out = self
                        .client
                        .upload_part()
                        .bucket(bucket)
                        .key(key)
                        .upload_id(&upload_id)
                        .part_number(number)
                        .content_length(part.len() as i64)
                        .body(ByteStream::from(part))
                        .send()
                        .await
                        .map_err(|e| {
                            sdk_err(e, format_args!("UploadPart {number} of {bucket}/{key}"))
                        })?;
                    parts.push(
                        CompletedPart::builder()
                            .part_number(number)
                            .set_e_tag(out.e_tag().map(str::to_string))
                            .build(),
                    );
                }
                if ended {
                    break;
                }
                ended = pending.fill(&mut body).await?;
            }
            self.client
                .complete_multipart_upload()
                .bucket(bucket)
                .key(key)
                .upload_id(&upload_id)
                .multipart_upload(
                    CompletedMultipartUpload::builder()
                        .set_parts(Some(parts))
                        .build(),
                )
                .send()
                .await
                .map_err(|e| sdk_err(e, format_args!("CompleteMultipartUpload {bucket}/{key}")))?;
            Ok(size)
        }
        .await;

        match uploaded {
            Ok(size) => {
                let mut guard = guard;
                guard.upload_id = None;
                Ok(size)
            }
            Err(e) => {
                guard.abort().await;
                Err(e)
            }
        }
    }

    pub(super) async fn get(
        &self,
        store: Store,
        key: &str,
        range: Option<ByteRange>,
    ) -> Result<Object, StorageError> {
        let bucket = self.bucket(store);
        let mut req = self.client.get_object().bucket(bucket).key(key);
        // A suffix becomes an explicit range against the current size: S3-compatible servers
        // differ on suffixes longer than the object (s3s-fs answers 500), S3 serves it all.
        let range = match range {
            Some(ByteRange::Suffix { len }) => match self.head(store, key).await? {
                None => return Err(StorageError::NotFound),
                Some(meta) => {
                    let (first, last) = ByteRange::suffix(len).resolve(meta.size)?;
                    Some(ByteRange::new(first, last))
                }
            },
            other => other,
        };
        if let Some(r) = range {
            // S3 would ignore a backwards range and send everything.
            if backwards(r) {
                return Err(self.unsatisfiable(store, key).await);
            }
            req = req.range(r.header_value());
        }
        let out = match req.send().await {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => {
                return Err(StorageError::NotFound);
            }
            Err(e) if status(&e) == Some(404) => return Err(StorageError::NotFound),
            Err(e) if status(&e) == Some(416) => return Err(self.unsatisfiable(store, key).await),
            Err(e) => return Err(sdk_err(e, format_args!("GetObject {bucket}/{key}"))),
        };
        let length = out
            .content_length()
            .and_then(|l| u64::try_from(l).ok())
            .unwrap_or(0);
        // A server may ignore the range and send the whole object (200 without Content-Range).
        let (size, served) = match (range, out.content_range()) {
            (Some(_), Some(cr)) => {
                let (size, span) = parse_content_range(cr).ok_or_else(|| {
                    StorageError::Backend(anyhow!(
                        "GetObject {bucket}/{key}: bad Content-Range {cr:?}"
                    ))
                })?;
                (size, Some(span))
            }
            _ => (length, None),
        };
        Ok(Object {
            size,
            range: served,
            content_type: out.content_type().map(str::to_string),
            last_modified: out
                .last_modified()
                .and_then(|t| SystemTime::try_from(*t).ok()),
            etag: out.e_tag().map(|t| t.trim_matches('"').to_string()),
            body: body_stream(out.body),
            file: None,
        })
    }

    /// `RangeNotSatisfiable` with the object's size, or `NotFound`.
    async fn unsatisfiable(&self, store: Store, key: &str) -> StorageError {
        match self.head(store, key).await {
            Ok(Some(meta)) => StorageError::RangeNotSatisfiable { size: meta.size },
            Ok(None) => StorageError::NotFound,
            Err(e) => e,
        }
    }

    pub(super) async fn head(
        &self,
        store: Store,
        key: &str,
    ) -> Result<Option<ObjectMeta>, StorageError> {
        let bucket = self.bucket(store);
        let res = self
            .client
            .head_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await;
        let out = match res {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found()) => return Ok(None),
            Err(e) if status(&e) == Some(404) => return Ok(None),
            Err(e) => return Err(sdk_err(e, format_args!("HeadObject {bucket}/{key}"))),
        };
        Ok(Some(ObjectMeta {
            size: out
                .content_length()
                .and_then(|l| u64::try_from(l).ok())
                .unwrap_or(0),
            content_type: out.content_type().map(str::to_string),
            last_modified: out
                .last_modified()
                .and_then(|t| SystemTime::try_from(*t).ok()),
            etag: out.e_tag().map(|t| t.trim_matches('"').to_string()),
        }))
    }

    pub(super) async fn delete(&self, store: Store, key: &str) -> Result<(), StorageError> {
        let bucket = self.bucket(store);
        match self
            .client
            .delete_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            // S3 answers 204 for a missing key; some compatible servers answer 404.
            Err(e) if status(&e) == Some(404) && e.code() != Some("NoSuchBucket") => Ok(()),
            Err(e) => Err(sdk_err(e, format_args!("DeleteObject {bucket}/{key}"))),
        }
    }

    pub(super) async fn delete_prefix(
        &self,
        store: Store,
        prefix: &str,
    ) -> Result<u64, StorageError> {
        let bucket = self.bucket(store);
        let mut deleted = 0u64;
        let mut token: Option<String> = None;
        loop {
            let page = self
                .client
                .list_objects_v2()
                .bucket(bucket)
                .prefix(prefix)
                .set_continuation_token(token.take())
                .send()
                .await
                .map_err(|e| sdk_err(e, format_args!("ListObjectsV2 {bucket}/{prefix}")))?;
            let ids = page
                .contents()
                .iter()
                .filter_map(|o| o.key())
                .map(|k| ObjectIdentifier::builder().key(k).build())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StorageError::backend(e, "building DeleteObjects"))?;
            if !ids.is_empty() {
                let count = ids.len() as u64;
                let delete = Delete::builder()
                    .set_objects(Some(ids))
                    .quiet(true)
                    .build()
                    .map_err(|e| StorageError::backend(e, "building DeleteObjects"))?;
                let out = self
                    .client
                    .delete_objects()
                    .bucket(bucket)
                    .delete(delete)
                    .send()
                    .await
                    .map_err(|e| sdk_err(e, format_args!("DeleteObjects in {bucket}")))?;
                if let Some(first) = out.errors().first() {
                    return Err(StorageError::Backend(anyhow!(
                        "DeleteObjects in {bucket}: {} of {count} failed, first {:?}: {} {}",
                        out.errors().len(),
                        first.key().unwrap_or_default(),
                        first.code().unwrap_or_default(),
                        first.message().unwrap_or_default(),
                    )));
                }
                deleted += count;
            }
            match page.next_continuation_token() {
                Some(t) if page.is_truncated() == Some(true) => token = Some(t.to_string()),
                _ => break,
            }
        }
        Ok(deleted)
    }

    fn presigning(ttl: Duration) -> Result<PresigningConfig, StorageError> {
        PresigningConfig::expires_in(ttl)
            .map_err(|e| StorageError::backend(e, "presigned URL lifetime (at most 7 days)"))
    }

    /// See [`super::Storage::get_on_socket`].
    pub(super) async fn get_on_socket(
        &self,
        store: Store,
        key: &str,
        range: Option<ByteRange>,
        idle: Duration,
    ) -> Option<SocketObject> {
        // The SDK's path resolves these first (see `get`).
        if matches!(range, Some(ByteRange::Suffix { .. })) || range.is_some_and(backwards) {
            return None;
        }
        let url = self
            .presign_get(store, key, Duration::from_secs(60))
            .await
            .ok()?;
        let url = url::Url::parse(&url).ok().filter(plain::supports)?;
        let port = url.port_or_known_default()?;
        let addrs: Vec<_> = tokio::net::lookup_host((url.host_str()?, port))
            .await
            .ok()?
            .collect();
        let value = range.map(ByteRange::header_value);
        let extra: Vec<_> = value.iter().map(|v| (header::RANGE, v.as_str())).collect();
        let resp = plain::get(&addrs, &url, &extra, CONNECT_TIMEOUT, idle)
            .await
            .ok()?;
        let body = resp.body?;
        let text = |name| resp.headers.get(name).and_then(|v| v.to_str().ok());
        let (size, range) = match (resp.status, text(header::CONTENT_RANGE)) {
            (200, None) => (body.len, None),
            (206, Some(cr)) => {
                let (size, span) = parse_content_range(cr)?;
                (size, Some(span))
            }
            _ => return None,
        };
        let len = match range {
            Some((first, last)) => last.checked_sub(first)? + 1,
            None => size,
        };
        if len != body.len {
            return None;
        }
        let meta = ObjectMeta {
            size,
            content_type: text(header::CONTENT_TYPE).map(str::to_string),
            last_modified: text(header::LAST_MODIFIED)
                .and_then(|v| chrono::DateTime::parse_from_rfc2822(v).ok())
                .map(SystemTime::from),
            etag: text(header::ETAG).map(|t| t.trim_matches('"').to_string()),
        };
        Some(SocketObject { meta, range, body })
    }

    pub(super) async fn presign_get(
        &self,
        store: Store,
        key: &str,
        ttl: Duration,
    ) -> Result<String, StorageError> {
        let bucket = self.bucket(store);
        let req = self
            .client
            .get_object()
            .bucket(bucket)
            .key(key)
            .presigned(Self::presigning(ttl)?)
            .await
            .map_err(|e| sdk_err(e, format_args!("presigning GetObject {bucket}/{key}")))?;
        Ok(req.uri().to_string())
    }

    pub(super) async fn presign_put(
        &self,
        store: Store,
        key: &str,
        ttl: Duration,
        content_type: &str,
    ) -> Result<String, StorageError> {
        let bucket = self.bucket(store);
        let req = self
            .client
            .put_object()
            .bucket(bucket)
            .key(key)
            .content_type(content_type)
            .presigned(Self::presigning(ttl)?)
            .await
            .map_err(|e| sdk_err(e, format_args!("presigning PutObject {bucket}/{key}")))?;
        Ok(req.uri().to_string())
    }
}

/// Creates `bucket` unless it exists. A HEAD first, so that credentials without the right to
/// create buckets work with buckets made beforehand.
async fn ensure_bucket(client: &Client, bucket: &str, region: &str) -> anyhow::Result<()> {
    match client.head_bucket().bucket(bucket).send().await {
        Ok(_) => return Ok(()),
        Err(e) if status(&e) == Some(404) => {}
        Err(e) => bail!(
            "bucket {bucket} is not accessible (check S3_ENDPOINT, the credentials and S3_BUCKET_PREFIX): {}",
            DisplayErrorContext(&e)
        ),
    }
    let mut req = client.create_bucket().bucket(bucket);
    if region != "us-east-1" {
        req = req.create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from(region))
                .build(),
        );
    }
    let err = match req.send().await {
        Ok(_) => {
            tracing::info!(bucket, "created bucket");
            return Ok(());
        }
        Err(e) => e,
    };
    let service = err.as_service_error();
    if service.is_some_and(|s| s.is_bucket_already_owned_by_you()) {
        return Ok(());
    }
    // Created concurrently by another process; some servers (s3s-fs) answer
    // BucketAlreadyExists for a bucket of one's own too. Ours if we can reach it.
    if service.is_some_and(|s| s.is_bucket_already_exists()) {
        return client
            .head_bucket()
            .bucket(bucket)
            .send()
            .await
            .map(|_| ())
            .with_context(|| {
                format!(
                    "bucket name {bucket} belongs to someone else: choose another S3_BUCKET_PREFIX"
                )
            });
    }
    Err(anyhow!(
        "creating bucket {bucket}: {}",
        DisplayErrorContext(&err)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_parses() {
        assert_eq!(parse_content_range("bytes 0-9/100"), Some((100, (0, 9))));
        assert_eq!(parse_content_range("bytes */100"), None);
    }

    #[tokio::test]
    async fn parts_are_cut_at_part_size_without_losing_bytes() {
        let chunk = Bytes::from(vec![7u8; 3 * 1024 * 1024]);
        let mut body = futures::stream::iter((0..4).map(|_| Ok(chunk.clone()))).boxed();
        let mut pending = Pending::default();
        assert!(!pending.fill(&mut body).await.unwrap()); // 9 MiB pending after three chunks
        assert_eq!(pending.take(PART_SIZE).len(), PART_SIZE);
        assert!(pending.fill(&mut body).await.unwrap()); // 1 + 3 MiB, then the end
        assert_eq!(pending.len, 4 * 1024 * 1024);

        // A chunk longer than a part is split without copying.
        let big = Bytes::from(vec![1u8; PART_SIZE + 10]);
        let mut pending = Pending {
            chunks: VecDeque::from([big.clone()]),
            len: big.len(),
        };
        let first = pending.take(PART_SIZE);
        assert_eq!(first.as_ptr(), big.as_ptr());
        assert_eq!(pending.take(10).len(), 10);
        assert_eq!(pending.len, 0);
    }
}
