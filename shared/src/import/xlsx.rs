//! Excel workbooks (.xlsx) as import sheets: the first worksheet, read with calamine, becomes
//! the same header-mapped records a CSV file gives, so every importer takes both unchanged.
//! Line numbers are the worksheet's row numbers (the header is line 1 when it is the first row).

use super::{Report, Sheet, normalise};
use calamine::{Data, Reader, Xlsx};
use std::collections::BTreeMap;
use std::io::Cursor;
use std::time::Instant;

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

/// What one workbook may cost, whatever its archive claims: the bytes its entries inflate to
/// (counted while inflating), its entries, its rows and columns, and the time spent on it.
/// Memory stays near the request body plus [`MAX_INFLATED`] under a zip bomb.
pub const MAX_INFLATED: u64 = 32 * 1024 * 1024;
const MAX_ENTRIES: usize = 1_000;
pub const MAX_ROWS: u32 = 50_000;
pub const MAX_COLUMNS: u32 = 256;
/// Well inside the request timeout: the parse runs on the request's thread and must end itself.
const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Re-packs the archive with every entry stored uncompressed, counting the inflated bytes as
/// they come (never trusting the sizes the archive declares), so calamine reads only what was
/// already bounded.
fn inflate(data: &[u8], deadline: Instant) -> Result<Vec<u8>, String> {
    use std::io::{Read, Write};
    let mut zip = zip::ZipArchive::new(Cursor::new(data)).map_err(|e| e.to_string())?;
    if zip.len() > MAX_ENTRIES {
        return Err(format!("the archive holds more than {MAX_ENTRIES} entries"));
    }
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    let mut total = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map_err(|e| e.to_string())?.into_owned();
        out.start_file(name, stored).map_err(|e| e.to_string())?;
        loop {
            let n = entry.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > MAX_INFLATED {
                return Err(format!(
                    "the workbook inflates to more than {} MiB",
                    MAX_INFLATED >> 20
                ));
            }
            if Instant::now() > deadline {
                return Err(too_slow());
            }
            out.write_all(&buf[..n]).map_err(|e| e.to_string())?;
        }
    }
    Ok(out.finish().map_err(|e| e.to_string())?.into_inner())
}

fn too_slow() -> String {
    format!(
        "the workbook took more than {} s to read",
        TIME_LIMIT.as_secs()
    )
}

/// One worksheet row's cells by column, and the first unreadable cell's reason.
#[derive(Default)]
struct Row {
    cells: Vec<String>,
    bad: Option<String>,
}

/// Reads the workbook's first worksheet cell by cell (never as a dense range, whose size a
/// single far-away cell would decide); an unreadable or oversized workbook is an error on line 1.
pub fn read(data: &[u8], report: &mut Report) -> Option<Sheet> {
    match rows(data) {
        Ok(rows) => sheet(rows, report),
        Err(e) => {
            report.error(1, "file", "invalid", format!("unreadable Excel file: {e}"));
            None
        }
    }
}

fn rows(data: &[u8]) -> Result<BTreeMap<u32, Row>, String> {
    let deadline = Instant::now() + TIME_LIMIT;
    let stored = inflate(data, deadline)?;
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(stored))
        .map_err(|e: calamine::XlsxError| e.to_string())?;
    let first = book
        .sheet_names()
        .into_iter()
        .next()
        .ok_or("the workbook has no worksheet")?;
    let mut cells = book
        .worksheet_cells_reader(&first)
        .map_err(|e| format!("unreadable worksheet: {e}"))?;
    let mut rows: BTreeMap<u32, Row> = BTreeMap::new();
    let mut seen = 0u64;
    while let Some(cell) = cells.next_cell().map_err(|e| e.to_string())? {
        seen += 1;
        if seen.is_multiple_of(4096) && Instant::now() > deadline {
            return Err(too_slow());
        }
        let (r, c) = cell.get_position();
        if r >= MAX_ROWS || c >= MAX_COLUMNS {
            return Err(format!(
                "the worksheet has a cell past row {MAX_ROWS} or column {MAX_COLUMNS}"
            ));
        }
        let value = Data::from(cell.get_value().clone());
        if value == Data::Empty {
            continue;
        }
        let row = rows.entry(r).or_default();
        match text(&value) {
            Ok(t) => {
                let c = c as usize;
                if row.cells.len() <= c {
                    row.cells.resize(c + 1, String::new());
                }
                row.cells[c] = t;
            }
            Err(e) => {
                row.bad.get_or_insert(e);
            }
        }
    }
    Ok(rows)
}

fn sheet(rows: BTreeMap<u32, Row>, report: &mut Report) -> Option<Sheet> {
    let mut rows = rows.into_iter();
    let Some((_, header)) = rows.next() else {
        report.error(1, "header", "required", "the worksheet is empty");
        return None;
    };
    let columns = header
        .cells
        .iter()
        .enumerate()
        .map(|(i, h)| (normalise(h), i))
        .collect();
    let mut records = Vec::new();
    for (r, row) in rows {
        let line = u64::from(r) + 1;
        if row.cells.iter().all(String::is_empty) && row.bad.is_none() {
            continue;
        }
        report.rows += 1;
        if let Some(e) = row.bad {
            report.error(line, "row", "invalid", e);
            continue;
        }
        records.push((line, csv::StringRecord::from(row.cells)));
    }
    Some(Sheet { columns, records })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A one-sheet workbook whose sheet XML is `sheet_data` inside `<sheetData>`.
    fn workbook(sheet_data: &[u8]) -> Vec<u8> {
        let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let parts: [(&str, &[u8]); 3] = [
            (
                "_rels/.rels",
                br#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
            ),
            (
                "xl/workbook.xml",
                br#"<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
            ),
            (
                "xl/_rels/workbook.xml.rels",
                br#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#,
            ),
        ];
        for (name, body) in parts {
            z.start_file(name, deflated).unwrap();
            z.write_all(body).unwrap();
        }
        z.start_file("xl/worksheets/sheet1.xml", deflated).unwrap();
        z.write_all(br#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#).unwrap();
        z.write_all(sheet_data).unwrap();
        z.write_all(b"</sheetData></worksheet>").unwrap();
        z.finish().unwrap().into_inner()
    }

    fn read_errors(data: &[u8]) -> (Option<Sheet>, Vec<String>) {
        let mut report = Report::default();
        let sheet = read(data, &mut report);
        let errors = report.errors.iter().map(|e| e.message.clone()).collect();
        (sheet, errors)
    }

    #[test]
    fn a_small_workbook_reads_as_header_mapped_rows() {
        let data = workbook(
            br#"<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="C1" t="inlineStr"><is><t>Spot</t></is></c></row><row r="3"><c r="A3" t="inlineStr"><is><t>Kai</t></is></c><c r="C3" t="inlineStr"><is><t>Pipe</t></is></c></row>"#,
        );
        let (sheet, errors) = read_errors(&data);
        assert!(errors.is_empty(), "{errors:?}");
        let sheet = sheet.unwrap();
        assert_eq!(sheet.columns.get("spot"), Some(&2));
        assert_eq!(sheet.records.len(), 1);
        assert_eq!(sheet.records[0].0, 3);
        assert_eq!(&sheet.records[0].1[2], "Pipe");
    }

    #[test]
    fn a_cell_that_inflates_past_the_bound_is_refused_before_it_is_read() {
        // 1 KiB of deflate per MiB of text: the archive is small, its one cell is 40 MiB.
        let mut cell = Vec::with_capacity(41 << 20);
        cell.extend_from_slice(br#"<row r="1"><c r="A1" t="inlineStr"><is><t>"#);
        cell.resize(cell.len() + (40 << 20), b'a');
        cell.extend_from_slice(b"</t></is></c></row>");
        let data = workbook(&cell);
        drop(cell);
        assert!(data.len() < 1 << 20, "the bomb is {} bytes", data.len());
        let (sheet, errors) = read_errors(&data);
        assert!(sheet.is_none());
        assert!(
            errors[0].contains("inflates to more than 32 MiB"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_far_away_cell_is_refused_instead_of_sizing_a_dense_range() {
        let data = workbook(
            br#"<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c></row><row r="1048576"><c r="XFD1048576"><v>1</v></c></row>"#,
        );
        let (sheet, errors) = read_errors(&data);
        assert!(sheet.is_none());
        assert!(errors[0].contains("past row"), "{errors:?}");
    }
}
