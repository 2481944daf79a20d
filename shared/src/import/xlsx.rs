//! Excel workbooks (.xlsx) as import sheets: the first worksheet, read with calamine, becomes
//! the same header-mapped records a CSV file gives, so every importer takes both unchanged.
//! Line numbers are the worksheet's row numbers (the header is line 1 when it is the first row).

use super::{Report, Sheet, normalise};
use calamine::{Data, Reader, Xlsx};
use std::io::Cursor;

/// Whether `data` is a zip archive, which is what an .xlsx file is.
pub fn is_xlsx(data: &[u8]) -> bool {
    data.starts_with(b"PK\x03\x04")
}

/// A cell as the text an importer parses: dates as `YYYY-MM-DD` (with ` HH:MM` when the cell
/// has a time of day), whole numbers without a decimal point.
fn text(cell: &Data) -> Result<String, String> {
    Ok(match cell {
        Data::Empty => String::new(),
        Data::String(s) => s.trim().to_string(),
        Data::Int(i) => i.to_string(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Bool(b) => b.to_string(),
        Data::DateTime(d) => {
            let t = d
                .as_datetime()
                .ok_or_else(|| "a date outside the calendar".to_string())?;
            if t.time() == chrono::NaiveTime::MIN {
                t.format("%Y-%m-%d").to_string()
            } else if t.date() == chrono::NaiveDate::from_ymd_opt(1899, 12, 31).expect("a date")
                || t.date() == chrono::NaiveDate::from_ymd_opt(1899, 12, 30).expect("a date")
            {
                // A time-of-day cell (no date part).
                t.format("%H:%M").to_string()
            } else {
                t.format("%Y-%m-%d %H:%M").to_string()
            }
        }
        Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Error(e) => return Err(format!("the cell holds the error {e}")),
    })
}

/// Reads the workbook's first worksheet; an unreadable workbook is an error on line 1.
pub fn read(data: &[u8], report: &mut Report) -> Option<Sheet> {
    let mut book: Xlsx<_> = match calamine::open_workbook_from_rs(Cursor::new(data)) {
        Ok(b) => b,
        Err(e) => {
            report.error(1, "file", "invalid", format!("unreadable Excel file: {e}"));
            return None;
        }
    };
    let range = match book.worksheet_range_at(0) {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            report.error(1, "file", "invalid", format!("unreadable worksheet: {e}"));
            return None;
        }
        None => {
            report.error(1, "file", "invalid", "the workbook has no worksheet");
            return None;
        }
    };
    let first_row = range.start().map_or(0, |(r, _)| u64::from(r));
    let mut rows = range.rows().enumerate();
    let Some((_, header)) = rows.next() else {
        report.error(1, "header", "required", "the worksheet is empty");
        return None;
    };
    let columns = header
        .iter()
        .enumerate()
        .map(|(i, h)| (normalise(&text(h).unwrap_or_default()), i))
        .collect();
    let mut records = Vec::new();
    for (i, row) in rows {
        let line = first_row + i as u64 + 1;
        let mut cells = Vec::with_capacity(row.len());
        let mut bad = None;
        for c in row {
            match text(c) {
                Ok(t) => cells.push(t),
                Err(e) => {
                    bad = Some(e);
                    cells.push(String::new());
                }
            }
        }
        if cells.iter().all(String::is_empty) && bad.is_none() {
            continue;
        }
        report.rows += 1;
        if let Some(e) = bad {
            report.error(line, "row", "invalid", e);
            continue;
        }
        records.push((line, csv::StringRecord::from(cells)));
    }
    Some(Sheet { columns, records })
}
