//! Issue 18's reliability campaign: every time the API accepts is range-checked
//! (`time_ranges`), the embedded default is backed up online and restored (`backup`), and a
//! full SQLite database answers 503 and stays whole (`full_disk`).

mod backup;
mod full_disk;
mod time_ranges;
