//! The benchmarks' knobs: environment variables, where an empty value counts as unset.

use anyhow::{Result, anyhow};
use std::path::{Path, PathBuf};

/// The variable's value, unless it is unset or empty.
pub fn opt(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A whole number, `default` when unset; an error names the variable when it is not one.
pub fn num(name: &str, default: u64) -> Result<u64> {
    match opt(name) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| anyhow!("{name} must be a whole number, got {v:?}")),
    }
}

/// A comma-separated list, each item trimmed (`BENCH_ONLY=sqlite, postgres`); `None` when
/// unset or blank.
pub fn list(name: &str) -> Option<Vec<String>> {
    opt(name)
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
}

/// The repository (`BENCH_ROOT`, which the scripts set; else the one this crate was built
/// in): the peers' scripts are in its `bench/`, the work directories under its `.tmp/`.
pub fn root() -> PathBuf {
    opt("BENCH_ROOT").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("the bench crate lives in the repository")
                .to_path_buf()
        },
        PathBuf::from,
    )
}
