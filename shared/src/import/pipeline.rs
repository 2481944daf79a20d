//! The one import sequence every spreadsheet import runs, and the [`Importer`] trait through
//! which an import says what is its own.
//!
//! [`run`] takes the file (in the request, or staged for a job), and:
//! 1. **parse**: reads the [`Sheet`], finds the importer's [`Column`]s (a missing required one
//!    is an error on line 1) and has [`Importer::parse_row`] turn each record into a typed row,
//!    every field error reported with its line;
//! 2. **dedupe**, in one transaction (which first takes the workspace's import lock when the file
//!    may be written): [`Importer::load`] reads what the database already holds, once, and
//!    [`Importer::dedupe`] decides each valid row in file order against it and against the
//!    rows before it ([`Earlier`], keyed by [`Importer::Key`]);
//! 3. **insert**: all or nothing. Only when this is not a dry run and no row had an error does
//!    [`Importer::insert`] write the new rows, in the same transaction, with the audit entry;
//! 4. **report**: the [`Report`] (counts complete, lists capped) is the answer of the request
//!    or the job's result.
//!
//! A staged file ([`stage`]) is deleted in the transaction that imports it, whatever the
//! outcome, so a job that runs again finds it gone.

use super::{Report, Sheet, cell};
use crate::db::{Db, Executor, Id, Ts, Tx};
use crate::domain::Actor;
use crate::error::{FieldError, Validator};
use crate::job::{Enqueued, Job, Owner, Queue, enqueue};
use crate::repo::{audit, import_uploads};
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;

/// One column of an import's file.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The column's name in the documentation and in field errors.
    pub name: &'static str,
    /// Header spellings accepted for it, the name included (case, spaces and punctuation
    /// are ignored when matching).
    pub aliases: &'static [&'static str],
    /// A file without this column is refused as a whole (an error on the header, line 1).
    pub required: bool,
}

/// One record of the file, read through the importer's columns.
pub struct Cells<'a> {
    columns: &'static [Column],
    positions: &'a [Option<usize>],
    record: &'a csv::StringRecord,
    now: Ts,
}

impl Cells<'_> {
    /// The trimmed cell of the column called `name` ("" when the file has no such column).
    ///
    /// # Panics
    /// When `name` is not one of the importer's columns (a programming error).
    pub fn get(&self, name: &str) -> &str {
        let i = self
            .columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("`{name}` is not a declared column"));
        cell(self.record, self.positions[i])
    }

    /// When the file was read (one instant for every row, e.g. for "in the past" rules).
    pub fn now(&self) -> Ts {
        self.now
    }
}

/// What the dedupe step decided about one valid row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// New: insert it.
    New,
    /// A duplicate of this row in the database: skipped and reported with its id.
    Exists(Id),
    /// A repeat of an earlier line of this file (`None`: reported without the line).
    Repeats(Option<u64>),
    /// Adds nothing of its own (e.g. a training row that names only a session another row
    /// already brought): skipped without a report.
    Nothing,
    /// Cannot be imported (e.g. it names an athlete the workspace does not have): an error on
    /// its line, so the file is not written.
    Invalid(FieldError),
}

/// The dedupe keys of the rows read so far, each with the first line that had it.
pub struct Earlier<K> {
    lines: HashMap<K, u64>,
}

impl<K: Eq + Hash> Default for Earlier<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Eq + Hash> Earlier<K> {
    pub fn new() -> Self {
        Earlier {
            lines: HashMap::new(),
        }
    }

    /// The earlier line with this key; `None` (and `line` recorded as the key's first) when
    /// no row before had it.
    pub fn first(&mut self, key: K, line: u64) -> Option<u64> {
        match self.lines.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(line);
                None
            }
        }
    }
}

/// An import: its file format, how a row is parsed, what makes two rows the same, and how
/// the new rows are written. [`run`] does the rest. The importer value carries whatever an
/// import needs beyond the workspace and the actor (a footage manifest: the footage session
/// its clips join); the athlete and training importers need nothing.
///
/// To add an import (the footage manifest, say: a spreadsheet whose rows each become a clip
/// and a processing job): declare its [`COLUMNS`](Importer::COLUMNS), parse a record into a
/// `Row` with the `Validator` rules of its fields, pick a `Key` (the clip's file name within
/// the session) and `load` the keys that exist, and `insert` the new rows with the executor
/// it is given, which is the import's transaction, so rows and anything they start (a job's
/// queue rows: `crate::job::enqueue` takes the same transaction) commit together or not at
/// all. Then route the api handler and the job through [`run`]; an import that may run in the
/// background implements [`Background`].
pub trait Importer: Send + Sync {
    /// Names the import: the staged upload's `kind`.
    const KIND: &'static str;
    /// The audit action recorded when a file is written, e.g. `athletes.imported`.
    const AUDIT_ACTION: &'static str;
    /// The file's columns; rows are read through them ([`Cells::get`]).
    const COLUMNS: &'static [Column];
    /// The job's progress message while it deduplicates and writes.
    const WRITING: &'static str;

    /// A valid row.
    type Row: Send + Sync;
    /// What makes two rows of the file the same ([`Earlier`]).
    type Key: Eq + Hash + Send;
    /// What the dedupe step knows of the database, loaded once per import.
    type Known: Send;

    /// Parses one record into a row, adding every field error to `v` (the errors are
    /// reported with the record's line and the row is dropped). `None` without an error
    /// skips the row silently.
    fn parse_row(&self, cells: &Cells<'_>, v: &mut Validator) -> Option<Self::Row>;

    /// Reads what dedupe needs from the database (existing keys, referenced rows), inside the
    /// import's transaction.
    fn load(
        &self,
        tx: &mut Tx,
        org: Id,
        rows: &[(u64, Self::Row)],
    ) -> impl Future<Output = Result<Self::Known, sqlx::Error>> + Send;

    /// The row's dedupe key, or why it cannot be imported.
    fn key(&self, known: &Self::Known, row: &Self::Row) -> Result<Self::Key, FieldError>;

    /// The database row that a row with this key duplicates.
    fn existing(&self, known: &Self::Known, key: &Self::Key) -> Option<Id>;

    /// Decides one row, in file order. The default: an invalid key is an error; a key in the
    /// database is a duplicate of that row; a key an earlier line had repeats that line;
    /// anything else is new. An importer whose rows are more than one record (training rows
    /// bring a session and a participant) overrides it.
    fn dedupe(
        &self,
        known: &mut Self::Known,
        line: u64,
        row: &Self::Row,
        earlier: &mut Earlier<Self::Key>,
    ) -> Verdict {
        let key = match self.key(known, row) {
            Ok(k) => k,
            Err(e) => return Verdict::Invalid(e),
        };
        if let Some(id) = self.existing(known, &key) {
            return Verdict::Exists(id);
        }
        match earlier.first(key, line) {
            Some(l) => Verdict::Repeats(Some(l)),
            None => Verdict::New,
        }
    }

    /// The report's `created` count and `details` after dedupe (also for a dry run or a
    /// rejected file: what would be created). The default: the new rows, no details.
    fn summary(&self, known: &Self::Known, new_rows: u64) -> (u64, Option<Value>) {
        let _ = known;
        (new_rows, None)
    }

    /// Writes the new rows (in file order), in the import's transaction.
    fn insert(
        &self,
        tx: &mut Tx,
        org: Id,
        by: Id,
        known: &Self::Known,
        rows: Vec<(u64, Self::Row)>,
    ) -> impl Future<Output = Result<(), sqlx::Error>> + Send;

    /// The audit entry's data for a written file (the pipeline adds `jobId` for a job).
    fn audit_data(&self, report: &Report) -> Value;
}

/// Where the file comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The request's body (a small file, imported in the request).
    Bytes(&'a [u8]),
    /// A file [`stage`]d for the job `job`.
    Staged { upload: Id, job: Id },
}

/// How to run an import.
#[derive(Debug, Clone)]
pub struct Options {
    /// Validate and report without writing.
    pub dry_run: bool,
    /// The file's SHA-256 ([`sha256_hex`]), reported and audited.
    pub sha256: String,
}

/// Why an import could not run (a file with bad rows is not an error: it is a [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The staged file is no longer there: the job already imported it.
    #[error("the staged file is gone (already imported?)")]
    StagedGone,
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

impl From<ImportError> for crate::Error {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::StagedGone => crate::Error::not_found("staged import"),
            ImportError::Db(e) => e.into(),
        }
    }
}

/// Where a running import reports its progress (a job's progress row); `()` reports nowhere.
pub trait Progress: Sync {
    fn step(
        &self,
        percent: i64,
        message: &str,
    ) -> impl Future<Output = Result<(), sqlx::Error>> + Send;

    /// Records the import's report as its outcome, in the transaction that commits its writes
    /// and deletes its staged file: a job's outcome then follows what committed, even when its
    /// worker is cut off before it can report (a second run finds the file gone and the
    /// outcome there).
    fn finished(
        &self,
        tx: &mut Tx,
        report: &Report,
        message: &str,
    ) -> impl Future<Output = Result<(), sqlx::Error>> + Send;
}

impl Progress for () {
    async fn step(&self, _: i64, _: &str) -> Result<(), sqlx::Error> {
        Ok(())
    }

    async fn finished(&self, _: &mut Tx, _: &Report, _: &str) -> Result<(), sqlx::Error> {
        Ok(())
    }
}

/// The file's SHA-256, hex: the report's `sha256` and, with the workspace, what makes a second
/// upload of the same file the same job.
pub fn sha256_hex(data: &[u8]) -> String {
    crate::crypto::hash_token(&String::from_utf8_lossy(data))
}

/// Stages a file for an import job (in the caller's transaction, with the job's enqueue).
/// A file that is not UTF-8 text is refused (400 `import_invalid`).
pub async fn stage<I: Importer>(
    x: &mut impl Executor,
    org: Id,
    by: Id,
    sha256: &str,
    data: Vec<u8>,
) -> crate::Result<Id> {
    let content = String::from_utf8(data)
        .map_err(|_| crate::Error::bad_request("import_invalid", "the file is not UTF-8 text"))?;
    Ok(import_uploads::stage(x, org, I::KIND, sha256, &content, by).await?)
}

/// Drops a staged file whose job turned out to exist already (the same file, still queued).
pub async fn unstage(x: &mut impl Executor, upload: Id) -> Result<(), sqlx::Error> {
    import_uploads::delete(x, upload).await
}

/// An import that large files run as a job ([`ImportFile`], enqueued by [`start`]).
pub trait Background: Importer + Default + 'static {
    /// The job's kind, e.g. `athletes.import`.
    const JOB_KIND: &'static str;
}

/// A staged file's import, run by a job (`I` says which import; the payload is the same for
/// every import). Idempotent: the import deduplicates, so a re-run after a crash imports
/// nothing twice.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", bound = "")]
pub struct ImportFile<I> {
    pub upload_id: Id,
    pub org_id: Id,
    pub user_id: Id,
    pub dry_run: bool,
    /// SHA-256 of the file: the same file sent twice while the first runs is one job.
    pub sha256: String,
    #[serde(skip)]
    import: std::marker::PhantomData<fn() -> I>,
}

impl<I: Background> Job for ImportFile<I> {
    const KIND: &'static str = I::JOB_KIND;
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}:{}", self.org_id, self.sha256, self.dry_run))
    }
}

/// Stages `data` for `org`'s import by `by` and enqueues its job, in one transaction. The same
/// file while its job is live is that job (this copy is dropped).
pub async fn start<I: Background>(
    db: &Db,
    org: Id,
    by: Id,
    dry_run: bool,
    data: Vec<u8>,
) -> crate::Result<Enqueued> {
    let sha256 = sha256_hex(&data);
    let mut tx = db.begin().await?;
    let upload = stage::<I>(&mut tx, org, by, &sha256, data).await?;
    let job = ImportFile::<I> {
        upload_id: upload,
        org_id: org,
        user_id: by,
        dry_run,
        sha256,
        import: std::marker::PhantomData,
    };
    let queued = enqueue(&mut tx, &job, Owner::new(org, Some(by))).await?;
    if queued.existing {
        unstage(&mut tx, upload).await?;
    }
    tx.commit().await?;
    Ok(queued)
}

/// Runs an import of `org`'s data by `actor`: parse, validate, dedupe, insert (all or
/// nothing, in one transaction with its audit entry), report. See the module documentation.
pub async fn run<I: Importer>(
    db: &Db,
    importer: &I,
    source: Source<'_>,
    options: Options,
    org: Id,
    actor: Actor,
    progress: &impl Progress,
) -> Result<Report, ImportError> {
    let staged;
    let (data, staged_upload, job) = match source {
        Source::Bytes(b) => (b, None, None),
        Source::Staged { upload, job } => {
            let mut c = db.acquire().await?;
            staged = import_uploads::get(&mut c, upload)
                .await?
                .map(|(_, content)| content)
                .ok_or(ImportError::StagedGone)?;
            (staged.as_bytes(), Some(upload), Some(job))
        }
    };
    progress.step(5, "validating").await?;
    let mut report = Report::new(options.dry_run, options.sha256);
    let rows = parse(importer, data, &mut report);
    progress.step(40, I::WRITING).await?;

    let mut tx = db.begin().await?;
    if !report.dry_run && report.error_count == 0 {
        import_uploads::lock_org(&mut tx, org).await?;
    }
    let mut known = importer.load(&mut tx, org, &rows).await?;
    let mut earlier = Earlier::new();
    let mut new = Vec::new();
    for (line, row) in rows {
        match importer.dedupe(&mut known, line, &row, &mut earlier) {
            Verdict::New => new.push((line, row)),
            Verdict::Exists(id) => report.duplicate(line, Some(id.to_string()), None),
            Verdict::Repeats(l) => report.duplicate(line, None, l),
            Verdict::Nothing => {}
            Verdict::Invalid(f) => report.error(line, &f.field, f.code, f.message),
        }
    }
    (report.created, report.details) = importer.summary(&known, new.len() as u64);
    report.committed = !report.dry_run && report.error_count == 0;
    if report.committed {
        importer
            .insert(&mut tx, org, actor.user_id, &known, new)
            .await?;
        let mut data = importer.audit_data(&report);
        if let (Some(job), Some(map)) = (job, data.as_object_mut()) {
            map.insert("jobId".into(), job.to_string().into());
        }
        let entry = actor.audit(
            Some(org),
            I::AUDIT_ACTION,
            "org",
            Some(org.to_string()),
            data,
        );
        audit::record(&mut tx, entry).await?;
    }
    if let Some(upload) = staged_upload {
        import_uploads::delete(&mut tx, upload).await?;
        progress
            .finished(&mut tx, &report, &message(&report))
            .await?;
    }
    // A request's rejected or dry-run import wrote nothing worth keeping: rolled back on drop.
    if report.committed || staged_upload.is_some() {
        tx.commit().await?;
    }
    progress.step(100, &message(&report)).await?;
    Ok(report)
}

/// The job's closing progress message.
fn message(r: &Report) -> String {
    if r.error_count > 0 {
        format!("rejected: {} errors, nothing imported", r.error_count)
    } else if r.dry_run {
        format!("dry run: {} new, {} duplicates", r.created, r.duplicates)
    } else {
        format!(
            "imported {} new, {} duplicates skipped",
            r.created, r.duplicates
        )
    }
}

/// Reads the sheet and parses every record; field errors go to the report with their line.
pub(crate) fn parse<I: Importer>(
    importer: &I,
    data: &[u8],
    report: &mut Report,
) -> Vec<(u64, I::Row)> {
    let mut out = vec![];
    let Some(sheet) = Sheet::read(data, report) else {
        return out;
    };
    let positions: Vec<Option<usize>> =
        I::COLUMNS.iter().map(|c| sheet.column(c.aliases)).collect();
    if I::COLUMNS
        .iter()
        .zip(&positions)
        .any(|(c, p)| c.required && p.is_none())
    {
        let required: Vec<&str> = I::COLUMNS
            .iter()
            .filter(|c| c.required)
            .map(|c| c.name)
            .collect();
        report.error(
            1,
            "header",
            "required",
            format!("the header must name {} columns", required.join(" and ")),
        );
        return out;
    }
    let now = Ts::now();
    for (line, record) in &sheet.records {
        let cells = Cells {
            columns: I::COLUMNS,
            positions: &positions,
            record,
            now,
        };
        let mut v = Validator::new();
        let row = importer.parse_row(&cells, &mut v);
        let errors = v.into_errors();
        if errors.is_empty() {
            out.extend(row.map(|r| (*line, r)));
        } else {
            for f in errors {
                report.error(*line, &f.field, f.code, f.message);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::athletes::AthleteImporter;

    #[test]
    fn earlier_remembers_the_first_line_of_each_key() {
        let mut e = Earlier::new();
        assert_eq!(e.first("a", 2), None);
        assert_eq!(e.first("b", 3), None);
        assert_eq!(e.first("a", 4), Some(2));
        assert_eq!(e.first("a", 5), Some(2));
    }

    #[test]
    fn parse_reports_every_field_error_with_its_line_and_a_missing_column_on_line_1() {
        let mut r = Report::new(false, String::new());
        let rows = parse(
            &AthleteImporter,
            b"First Name,Last Name,Stance\nKai,Lenny,regular\n,Silva,switch\n",
            &mut r,
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(r.rows, 2);
        let errs: Vec<_> = r
            .errors
            .iter()
            .map(|e| (e.line, e.field.as_str()))
            .collect();
        assert_eq!(errs, [(3, "first_name"), (3, "stance")]);

        let mut r = Report::new(false, String::new());
        assert!(parse(&AthleteImporter, b"name,email\nKai,k@x.io\n", &mut r).is_empty());
        assert_eq!(r.errors[0].line, 1);
        assert_eq!(
            r.errors[0].message,
            "the header must name first_name and last_name columns"
        );
    }
}
