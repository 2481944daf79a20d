//! `api backup PATH`: an online, consistent copy of the embedded default (SQLite and the local
//! object store) while the service runs.
//!
//! The copy is laid out as a `DATA_DIR`: `PATH/service.db`, `PATH/objects/` (the local object
//! store) and `PATH/secret.key` (when the key was generated there rather than set with
//! `SECRET_KEY`), so a restore is "stop the service, point `DATA_DIR` at a copy of `PATH` (or
//! put the files back), start" (README, "Backup and restore").
//!
//! - The database goes first, through `VACUUM INTO`: one read transaction, so the copy is the
//!   database as of one instant, whatever the writers do meanwhile (WAL lets them go on), and
//!   a compact, self-contained file (no `-wal` beside it). The copy is then opened read-only
//!   and must pass `PRAGMA integrity_check`.
//! - The objects go second: the store writes each object whole (a temporary file renamed into
//!   place), so every object a copied row names was already there and is copied whole;
//!   temporary files are skipped; an object deleted meanwhile is skipped (its row was deleted
//!   before it, so the copy may name it only if the deletion came after the snapshot).
//! - PostgreSQL is refused: its backups are the operator's (`pg_dump`, the provider's).

use anyhow::{Context, bail};
use shared::config::Config;
use shared::db::{Db, Dialect};
use shared::storage::StorageBackend;
use sqlx::ConnectOptions;
use std::path::{Path, PathBuf};

/// What a backup wrote.
#[derive(Debug, Default)]
pub struct Summary {
    pub database_bytes: u64,
    pub objects: u64,
    pub object_bytes: u64,
    pub secret_key: bool,
}

/// The database file's name in a backup (and the default in a `DATA_DIR`).
pub const DATABASE_FILE: &str = "service.db";

/// Writes the backup into `dest`, a directory that must be absent or empty.
pub async fn run(cfg: &Config, db: &Db, dest: &Path) -> anyhow::Result<Summary> {
    if db.dialect() != Dialect::Sqlite {
        bail!(
            "api backup copies the embedded SQLite database; back PostgreSQL up with pg_dump \
             or your provider's backups (README, \"Backup and restore\")"
        );
    }
    prepare(dest)?;
    let mut summary = Summary::default();
    let db_copy = dest.join(DATABASE_FILE);
    let target = db_copy
        .to_str()
        .context("the backup path must be valid UTF-8")?
        .to_string();
    let mut c = db.acquire().await?;
    shared::execute!(&mut c, sqlx::query("VACUUM INTO $1").bind(&target))
        .context("VACUUM INTO the backup")?;
    drop(c);
    integrity_check(&db_copy).await?;
    summary.database_bytes = std::fs::metadata(&db_copy)?.len();

    let key = cfg.data_dir.join("secret.key");
    if std::env::var_os("SECRET_KEY").is_none() && key.exists() {
        std::fs::copy(&key, dest.join("secret.key")).context("copying secret.key")?;
        summary.secret_key = true;
    }
    if let StorageBackend::Local { dir } = &cfg.storage.backend {
        let (from, to) = (dir.clone(), dest.join("objects"));
        let (n, bytes) = tokio::task::spawn_blocking(move || copy_tree(&from, &to)).await??;
        summary.objects = n;
        summary.object_bytes = bytes;
    }
    Ok(summary)
}

/// Creates `dest`, or accepts it empty; never writes into a directory with something in it.
fn prepare(dest: &Path) -> anyhow::Result<()> {
    match std::fs::read_dir(dest) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!(
                    "{} is not empty: a backup goes into a new or empty directory, and never \
                     overwrites one",
                    dest.display()
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))
        }
        Err(e) => Err(e).with_context(|| format!("{} is not a usable directory", dest.display())),
    }
}

/// Opens the copy read-only and runs `PRAGMA integrity_check`.
pub async fn integrity_check(file: &Path) -> anyhow::Result<()> {
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .connect()
        .await
        .with_context(|| format!("opening {}", file.display()))?;
    let rows: Vec<(String,)> = sqlx::query_as("PRAGMA integrity_check")
        .fetch_all(&mut conn)
        .await?;
    let result: Vec<String> = rows.into_iter().map(|r| r.0).collect();
    if result != ["ok"] {
        bail!("{} fails its integrity check: {result:?}", file.display());
    }
    Ok(())
}

/// Copies the object store (`from` may not exist yet: nothing stored). Skips the store's
/// temporary files (`.*.tmp`) and files deleted while the copy runs.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    let mut stack: Vec<(PathBuf, PathBuf)> = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((src, dst)) = stack.pop() {
        let entries = match std::fs::read_dir(&src) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {}", src.display())),
        };
        std::fs::create_dir_all(&dst).with_context(|| format!("creating {}", dst.display()))?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let (s, d) = (entry.path(), dst.join(&name));
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push((s, d));
            } else if kind.is_file() {
                let n = name.to_string_lossy();
                if n.starts_with('.') && n.ends_with(".tmp") {
                    continue;
                }
                match std::fs::copy(&s, &d) {
                    Ok(n) => {
                        files += u64::from(!is_meta(&name));
                        bytes += n;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e).with_context(|| format!("copying {}", s.display())),
                }
            }
        }
    }
    Ok((files, bytes))
}

fn is_meta(name: &std::ffi::OsStr) -> bool {
    let n = name.to_string_lossy();
    n.starts_with('.') && n.ends_with(".meta")
}
