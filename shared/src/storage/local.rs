//! The local filesystem backend: `<root>/<store>/<key>`, content type in `.<file name>.meta`
//! next to the object, uploads through `.<uuid>.tmp` in the same directory and a rename.
//!
//! Every name this backend writes besides objects starts with `.`; keys cannot have a segment
//! starting with `.`, so the two never collide and a listing of objects skips dot-files.

use std::ffi::OsString;
use std::io::{self, ErrorKind, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::fs;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufWriter};
use tokio_util::io::ReaderStream;

use super::{ByteRange, FileSpan, Object, ObjectMeta, StorageError, Store};

/// A temporary file untouched for this long belongs to an upload that died with its process;
/// `delete_prefix` removes such files under the prefix.
const STALE_TEMP: Duration = Duration::from_secs(3600);
const WRITE_BUFFER: usize = 256 * 1024;
const READ_CHUNK: usize = 64 * 1024;

/// The `.meta` document.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    content_type: Option<String>,
}

pub(super) struct LocalStore {
    root: PathBuf,
}

fn missing(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

fn io_err(e: io::Error, what: &str, path: &Path) -> StorageError {
    StorageError::backend(e, format!("{what} {}", path.display()))
}

/// `dir/.name.meta` for `dir/name`.
fn meta_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".meta");
    path.with_file_name(name)
}

fn temp_name() -> String {
    format!(".{}.tmp", uuid::Uuid::new_v4().simple())
}

/// Removes the temporary file unless disarmed, also when the upload future is dropped midway.
struct TempGuard(Option<PathBuf>);

impl TempGuard {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Creates `dir` and a new temporary file in it. A concurrent delete may prune the (empty)
/// directory between the two steps: then try again.
async fn create_temp(dir: &Path) -> io::Result<(fs::File, TempGuard)> {
    let mut attempts = 0;
    loop {
        fs::create_dir_all(dir).await?;
        let tmp = dir.join(temp_name());
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .await
        {
            Ok(f) => return Ok((f, TempGuard(Some(tmp)))),
            Err(e) if e.kind() == ErrorKind::NotFound && attempts < 3 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The content type in `path`'s `.meta` document (none if it cannot be read). Blocking: the
/// callers run it with the rest of their file work in one trip to the blocking pool.
fn read_content_type(path: &Path) -> Option<String> {
    let raw = std::fs::read(meta_path(path)).ok()?;
    serde_json::from_slice::<Meta>(&raw).ok()?.content_type
}

/// Opens `path` for reading `range` of it, on a blocking thread: the file positioned at the
/// span's start (the copying body) and a second descriptor of it (`Object::file`, for
/// `sendfile`, which reads at its own offset). The open file keeps its contents even if a new
/// upload replaces the name meanwhile.
fn open_for_read(path: &Path, range: Option<ByteRange>) -> Result<Object, StorageError> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if missing(&e) => return Err(StorageError::NotFound),
        Err(e) => return Err(io_err(e, "opening", path)),
    };
    let md = file
        .metadata()
        .map_err(|e| io_err(e, "reading the metadata of", path))?;
    if !md.is_file() {
        return Err(StorageError::NotFound);
    }
    let size = md.len();
    let (start, len, served) = match range {
        None => (0, size, None),
        Some(r) => {
            let (first, last) = r.resolve(size)?;
            (first, last - first + 1, Some((first, last)))
        }
    };
    if start > 0 {
        std::io::Seek::seek(&mut file, SeekFrom::Start(start))
            .map_err(|e| io_err(e, "seeking in", path))?;
    }
    let span = FileSpan {
        file: file
            .try_clone()
            .map_err(|e| io_err(e, "duplicating the descriptor of", path))?,
        offset: start,
        len,
    };
    let last_modified = md.modified().ok();
    Ok(Object {
        size,
        range: served,
        content_type: read_content_type(path),
        etag: Some(local_etag(size, last_modified)),
        last_modified,
        body: ReaderStream::with_capacity(fs::File::from_std(file).take(len), READ_CHUNK).boxed(),
        file: Some(span),
    })
}

/// `path`'s metadata, or none when there is no object there; blocking, like [`open_for_read`].
fn stat_object(path: &Path) -> Result<Option<ObjectMeta>, StorageError> {
    let md = match std::fs::metadata(path) {
        Ok(md) if md.is_file() => md,
        Ok(_) => return Ok(None),
        Err(e) if missing(&e) => return Ok(None),
        Err(e) => return Err(io_err(e, "reading the metadata of", path)),
    };
    let last_modified = md.modified().ok();
    Ok(Some(ObjectMeta {
        size: md.len(),
        content_type: read_content_type(path),
        last_modified,
        etag: Some(local_etag(md.len(), last_modified)),
    }))
}

async fn write_meta(path: &Path, content_type: &str) -> io::Result<()> {
    let dir = path.parent().expect("an object path has a parent");
    let (mut file, mut guard) = create_temp(dir).await?;
    let doc = serde_json::to_vec(&Meta {
        content_type: Some(content_type.to_string()),
    })
    .map_err(io::Error::other)?;
    file.write_all(&doc).await?;
    file.flush().await?;
    drop(file);
    let tmp = guard.0.clone().expect("armed");
    fs::rename(&tmp, meta_path(path)).await?;
    guard.disarm();
    Ok(())
}

/// Makes a rename in `dir` durable.
async fn sync_dir(dir: &Path) -> io::Result<()> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || std::fs::File::open(dir)?.sync_all())
        .await
        .map_err(io::Error::other)?
}

impl LocalStore {
    pub(super) async fn open(root: &Path) -> anyhow::Result<LocalStore> {
        for store in Store::ALL {
            let dir = root.join(store.name());
            fs::create_dir_all(&dir).await.with_context(|| {
                format!("creating the object store directory {}", dir.display())
            })?;
        }
        Ok(LocalStore {
            root: root.to_path_buf(),
        })
    }

    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    fn store_dir(&self, store: Store) -> PathBuf {
        self.root.join(store.name())
    }

    /// The file of a validated key: its segments are plain names, so the path stays inside.
    fn path(&self, store: Store, key: &str) -> PathBuf {
        let mut p = self.store_dir(store);
        p.extend(key.split('/'));
        p
    }

    pub(super) async fn put(
        &self,
        store: Store,
        key: &str,
        mut body: BoxStream<'_, io::Result<Bytes>>,
        content_type: &str,
    ) -> Result<u64, StorageError> {
        let path = self.path(store, key);
        let dir = path.parent().expect("an object path has a parent");
        let (file, mut guard) = create_temp(dir).await.map_err(|e| {
            clash_hint(
                io_err(e, "creating a temporary file in", dir),
                key,
                "a key cannot be below another object's key here",
            )
        })?;
        let tmp = guard.0.clone().expect("armed");

        let mut writer = BufWriter::with_capacity(WRITE_BUFFER, file);
        let mut size = 0u64;
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| StorageError::backend(e, "reading the upload body"))?;
            writer
                .write_all(&chunk)
                .await
                .map_err(|e| io_err(e, "writing", &tmp))?;
            size += chunk.len() as u64;
        }
        writer
            .flush()
            .await
            .map_err(|e| io_err(e, "writing", &tmp))?;
        let file = writer.into_inner();
        file.sync_all()
            .await
            .map_err(|e| io_err(e, "syncing", &tmp))?;
        drop(file);

        // The content type goes first, so a visible object always has its own.
        write_meta(&path, content_type)
            .await
            .map_err(|e| io_err(e, "writing the metadata of", &path))?;
        fs::rename(&tmp, &path).await.map_err(|e| {
            clash_hint(
                io_err(e, "renaming the upload to", &path),
                key,
                "a key cannot also be the prefix of other keys (a directory) here",
            )
        })?;
        guard.disarm();
        sync_dir(dir)
            .await
            .map_err(|e| io_err(e, "syncing the directory", dir))?;
        Ok(size)
    }

    pub(super) async fn get(
        &self,
        store: Store,
        key: &str,
        range: Option<ByteRange>,
    ) -> Result<Object, StorageError> {
        let path = self.path(store, key);
        // One trip to the blocking pool for all the file work a read needs: a player's every
        // seek is a ranged read, and each trip is a handoff between threads.
        tokio::task::spawn_blocking(move || open_for_read(&path, range))
            .await
            .map_err(|e| StorageError::backend(e, "opening an object"))?
    }

    pub(super) async fn head(
        &self,
        store: Store,
        key: &str,
    ) -> Result<Option<ObjectMeta>, StorageError> {
        let path = self.path(store, key);
        tokio::task::spawn_blocking(move || stat_object(&path))
            .await
            .map_err(|e| StorageError::backend(e, "reading an object's metadata"))?
    }

    pub(super) async fn delete(&self, store: Store, key: &str) -> Result<(), StorageError> {
        let path = self.path(store, key);
        match fs::remove_file(&path).await {
            Ok(()) => {}
            // A missing object, or a key that is only a "directory" of other keys.
            Err(e) if missing(&e) || e.kind() == ErrorKind::IsADirectory => return Ok(()),
            Err(e) => return Err(io_err(e, "deleting", &path)),
        }
        match fs::remove_file(meta_path(&path)).await {
            Ok(()) => {}
            Err(e) if missing(&e) => {}
            Err(e) => return Err(io_err(e, "deleting the metadata of", &path)),
        }
        let dir = path
            .parent()
            .expect("an object path has a parent")
            .to_path_buf();
        let store_dir = self.store_dir(store);
        tokio::task::spawn_blocking(move || prune_empty_dirs(&dir, &store_dir))
            .await
            .map_err(|e| StorageError::backend(e, "pruning directories"))?;
        Ok(())
    }

    pub(super) async fn delete_prefix(
        &self,
        store: Store,
        prefix: &str,
    ) -> Result<u64, StorageError> {
        let store_dir = self.store_dir(store);
        // "a/b/c" → walk <store>/a/b for names starting with "c"; "a/b/" → everything in a/b.
        let (dir_part, partial) = match prefix.rsplit_once('/') {
            Some((dir, partial)) => (Some(dir), partial),
            None => (None, prefix),
        };
        let mut base = store_dir.clone();
        if let Some(dir) = dir_part {
            base.extend(dir.split('/'));
        }
        let partial = partial.to_string();
        tokio::task::spawn_blocking(move || {
            let n = delete_matching(&base, &partial)
                .map_err(|e| io_err(e, "deleting objects under", &base))?;
            prune_empty_dirs(&base, &store_dir);
            Ok(n)
        })
        .await
        .map_err(|e| StorageError::backend(e, "deleting by prefix"))?
    }
}

/// Deletes, below `dir`, every object whose name starts with `partial` and everything inside
/// matching directories; returns how many objects went. Never follows symbolic links.
fn delete_matching(dir: &Path, partial: &str) -> io::Result<u64> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if missing(&e) => return Ok(0),
        Err(e) => return Err(e),
    };
    let ignore_missing = |r: io::Result<()>| match r {
        Err(e) if !missing(&e) => Err(e),
        _ => Ok(()),
    };
    let mut deleted = 0;
    for entry in entries {
        let entry = entry?;
        let file_name = entry.file_name();
        // Keys are UTF-8: any other name is not an object of ours.
        let Some(name) = file_name.to_str() else {
            continue;
        };
        let path = entry.path();
        if let Some(own) = name.strip_prefix('.') {
            // Metadata of a matching (possibly already deleted) object; temporary files of
            // uploads that died, once everything in this directory matches.
            let meta_of_match = own
                .strip_suffix(".meta")
                .is_some_and(|o| o.starts_with(partial));
            let stale_temp = partial.is_empty()
                && own.ends_with(".tmp")
                && entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| {
                    SystemTime::now().duration_since(t).unwrap_or_default() > STALE_TEMP
                });
            if meta_of_match || stale_temp {
                ignore_missing(std::fs::remove_file(&path))?;
            }
            continue;
        }
        if !name.starts_with(partial) {
            continue;
        }
        if entry.file_type()?.is_dir() {
            deleted += delete_matching(&path, "")?;
            let _ = std::fs::remove_dir(&path); // not empty if an upload is running in it
        } else {
            match std::fs::remove_file(&path) {
                Ok(()) => deleted += 1,
                Err(e) if missing(&e) => {}
                Err(e) => return Err(e),
            }
            ignore_missing(std::fs::remove_file(meta_path(&path)))?;
        }
    }
    Ok(deleted)
}

/// Removes `dir` and its parents while they are empty, up to (not including) `store_dir`.
fn prune_empty_dirs(dir: &Path, store_dir: &Path) {
    let mut dir = dir;
    while dir != store_dir && dir.starts_with(store_dir) {
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
        match dir.parent() {
            Some(parent) => dir = parent,
            None => break,
        }
    }
}

/// The local store cannot hold both `a` and `a/b`: say so when a file-versus-directory clash
/// is the cause of `err`.
fn clash_hint(err: StorageError, key: &str, hint: &str) -> StorageError {
    match err {
        StorageError::Backend(e) => {
            let clash = e.downcast_ref::<io::Error>().is_some_and(|io| {
                matches!(
                    io.kind(),
                    ErrorKind::NotADirectory | ErrorKind::IsADirectory | ErrorKind::AlreadyExists
                )
            });
            if clash {
                StorageError::Backend(e.context(format!("key {key:?}: {hint}")))
            } else {
                StorageError::Backend(e)
            }
        }
        other => other,
    }
}

/// A local object's version tag: its size and modification time (the same for a HEAD and a GET).
fn local_etag(size: u64, modified: Option<std::time::SystemTime>) -> String {
    let mtime_ns = modified
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{size:x}-{mtime_ns:x}")
}
