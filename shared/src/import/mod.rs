//! Spreadsheet imports (athlete rosters, past training sessions, footage manifests; CSV, and
//! Excel .xlsx where an import takes it) and CSV export hygiene. Every import
//! runs the one sequence of [`pipeline`] ([`run`]: staging, parse, validate, dedupe, insert,
//! report) through its [`Importer`]: [`athletes::AthleteImporter`],
//! [`training::TrainingImporter`]. The api calls it for small files (in the request) and the
//! worker for large ones (staged, as a job), so both give the same report.
//!
//! Rules shared by every import:
//! - the first line is a header; columns are matched by name (case and spacing ignored,
//!   a few aliases each), unknown columns are ignored;
//! - every row is validated and every error reported with its line number;
//! - all or nothing: one invalid row and nothing is written (`committed: false`);
//! - `dryRun` validates and reports what would happen without writing;
//! - rows that match something that exists (or an earlier row) are duplicates and skipped, so
//!   sending the same file twice imports nothing the second time.

pub mod athletes;
pub mod footage;
pub mod pipeline;
pub mod training;
pub mod xlsx;

pub use pipeline::{
    Background, Cells, Column, Earlier, ImportError, ImportFile, Importer, Options, Progress,
    Source, Verdict, run, sha256_hex, stage, start, unstage,
};

use serde::Serialize;

/// Reported errors and duplicates are capped so a broken 100,000-row file gives a readable answer;
/// the counts are always complete.
pub const MAX_REPORTED: usize = 500;

#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowError {
    /// 1-based line in the file (the header is line 1).
    pub line: u64,
    pub field: String,
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Duplicate {
    pub line: u64,
    /// The existing row it matches, when it matches one in the database.
    pub existing_id: Option<String>,
    /// The earlier line of this file it repeats.
    pub same_as_line: Option<u64>,
}

/// What an import did (or, for a dry run or a rejected file, would do).
#[derive(Debug, Clone, Serialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub dry_run: bool,
    /// Whether anything was written. False for a dry run and for a file with errors.
    pub committed: bool,
    /// "all_or_nothing": a file with any invalid row imports nothing.
    pub mode: &'static str,
    /// Data rows read (header excluded).
    pub rows: u64,
    pub created: u64,
    pub duplicates: u64,
    pub error_count: u64,
    pub errors: Vec<RowError>,
    pub duplicate_rows: Vec<Duplicate>,
    /// Import-specific counts (e.g. sessions and participants for training).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
    pub sha256: String,
}

impl Report {
    pub fn new(dry_run: bool, sha256: String) -> Report {
        Report {
            dry_run,
            mode: "all_or_nothing",
            sha256,
            ..Default::default()
        }
    }

    pub fn error(&mut self, line: u64, field: &str, code: &str, message: impl Into<String>) {
        self.error_count += 1;
        if self.errors.len() < MAX_REPORTED {
            self.errors.push(RowError {
                line,
                field: field.into(),
                code: code.into(),
                message: message.into(),
            });
        }
    }

    pub fn duplicate(&mut self, line: u64, existing: Option<String>, same_as_line: Option<u64>) {
        self.duplicates += 1;
        if self.duplicate_rows.len() < MAX_REPORTED {
            self.duplicate_rows.push(Duplicate {
                line,
                existing_id: existing,
                same_as_line,
            });
        }
    }
}

/// A CSV file or an Excel workbook's first worksheet, split into header-mapped records.
pub struct Sheet {
    /// Normalised header name → column index.
    columns: std::collections::HashMap<String, usize>,
    pub records: Vec<(u64, csv::StringRecord)>,
}

fn normalise(h: &str) -> String {
    h.trim()
        .trim_start_matches('\u{feff}')
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}

impl Sheet {
    /// Reads the file, an .xlsx workbook ([`xlsx`]) or CSV; a malformed CSV (bad quoting,
    /// invalid UTF-8) is an error on its line.
    pub fn read(data: &[u8], report: &mut Report) -> Option<Sheet> {
        if xlsx::is_xlsx(data) {
            return xlsx::read(data, report);
        }
        let mut r = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(data);
        let headers = match r.headers() {
            Ok(h) => h.clone(),
            Err(e) => {
                report.error(1, "header", "invalid", format!("unreadable header: {e}"));
                return None;
            }
        };
        let columns = headers
            .iter()
            .enumerate()
            .map(|(i, h)| (normalise(h), i))
            .collect();
        let mut records = vec![];
        let mut rec = csv::StringRecord::new();
        loop {
            match r.read_record(&mut rec) {
                Ok(true) => {
                    let line = rec.position().map(|p| p.line()).unwrap_or(0);
                    if rec.iter().all(|c| c.is_empty()) {
                        continue;
                    }
                    report.rows += 1;
                    records.push((line, rec.clone()));
                }
                Ok(false) => break,
                Err(e) => {
                    let line = e.position().map(|p| p.line()).unwrap_or(0);
                    report.rows += 1;
                    report.error(line, "row", "invalid", format!("unreadable row: {e}"));
                    if !matches!(e.kind(), csv::ErrorKind::Utf8 { .. }) {
                        return None;
                    }
                }
            }
        }
        Some(Sheet { columns, records })
    }

    /// The column of the first alias present.
    pub fn column(&self, aliases: &[&str]) -> Option<usize> {
        aliases
            .iter()
            .find_map(|a| self.columns.get(&normalise(a)).copied())
    }
}

pub fn cell(rec: &csv::StringRecord, col: Option<usize>) -> &str {
    col.and_then(|i| rec.get(i)).unwrap_or("")
}

/// A cell as a spreadsheet will not execute it: values starting with `=`, `+`, `-`, `@`, tab
/// or carriage return get a leading apostrophe (CSV/formula injection, OWASP).
pub fn neutralise(value: &str) -> std::borrow::Cow<'_, str> {
    match value.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{value}").into(),
        _ => value.into(),
    }
}

/// Writes rows as CSV with every cell neutralised.
pub fn export_csv(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(header).expect("writing to memory");
    for row in rows {
        w.write_record(row.iter().map(|c| neutralise(c).into_owned()))
            .expect("writing to memory");
    }
    w.into_inner().expect("flushing to memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_neutralised() {
        assert_eq!(neutralise("=1+2"), "'=1+2");
        assert_eq!(neutralise("+33"), "'+33");
        assert_eq!(neutralise("-x"), "'-x");
        assert_eq!(neutralise("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(neutralise("Kai"), "Kai");
        let out = String::from_utf8(export_csv(
            &["a"],
            vec![vec!["=HYPERLINK(\"x\")".to_string()]].into_iter(),
        ))
        .unwrap();
        assert!(out.contains("'=HYPERLINK"), "{out}");
    }
}
