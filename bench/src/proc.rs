//! Readers of Linux's `/proc`: a process's CPU time, memory and children, and the machine's
//! busy share. They measure processes this one did not start too (PostgreSQL backends, nginx's
//! workers, a pid file's server), so they read `/proc` rather than ask the child handles.

use anyhow::{Result, anyhow};
use std::sync::OnceLock;

/// The fields of `/proc/<pid>/stat` after the command name (which is in parentheses and may
/// hold spaces): element 0 is field 3 of the line (the state).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Field `n` (1-based, as `man 5 proc` numbers them) of `/proc/<pid>/stat`, from [`stat_fields`].
fn field<T: std::str::FromStr>(fields: &[String], n: usize) -> Option<T> {
    fields.get(n - 3)?.parse().ok()
}

/// The unit of utime and stime (`getconf CLK_TCK`, USER_HZ: 100 on Linux).
fn clock_ticks() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// User + system CPU seconds `pid` (all its threads) has used so far; 0 when it is gone.
pub fn cpu_secs(pid: u32) -> f64 {
    let Some(f) = stat_fields(pid) else {
        return 0.0;
    };
    // utime and stime are fields 14 and 15.
    let ticks = |n| field::<f64>(&f, n).unwrap_or(0.0);
    (ticks(14) + ticks(15)) / clock_ticks()
}

/// VmRSS of `pid`, in KiB.
pub fn rss_kib(pid: u32) -> Result<u64> {
    status_kib(pid, "VmRSS:")
}

/// VmHWM of `pid` (its peak resident memory), in KiB.
pub fn peak_rss_kib(pid: u32) -> Result<u64> {
    status_kib(pid, "VmHWM:")
}

fn status_kib(pid: u32, key: &str) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("no {key} for pid {pid}"))
}

/// The pids whose parent is `pid` (nginx's workers).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        // The parent is field 4.
        .filter(|&c| stat_fields(c).and_then(|f| field::<u32>(&f, 4)) == Some(pid))
        .collect()
}

/// The whole machine's CPU time so far, from the first line of `/proc/stat`, in jiffies.
#[derive(Clone, Copy, Debug)]
pub struct MachineCpu {
    busy: u64,
    total: u64,
}

impl MachineCpu {
    pub fn now() -> MachineCpu {
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let v: Vec<u64> = stat
            .lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .skip(1)
            .filter_map(|x| x.parse().ok())
            .collect();
        let total: u64 = v.iter().sum();
        // idle and iowait.
        let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
        MachineCpu {
            busy: total - idle,
            total,
        }
    }

    /// The share of the machine's CPU time that was busy (every process, ours or not) from
    /// `earlier` until this reading.
    pub fn busy_since(self, earlier: MachineCpu) -> f64 {
        (self.busy - earlier.busy) as f64 / (self.total - earlier.total).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_read_from_proc() {
        let me = std::process::id();
        // CPU time is counted in clock ticks: spin until one has been.
        let spin = std::time::Instant::now();
        while cpu_secs(me) == 0.0 {
            assert!(
                spin.elapsed().as_secs() < 10,
                "no CPU time read for pid {me}"
            );
        }
        assert!(rss_kib(me).unwrap() > 0);
        let parent = stat_fields(me).and_then(|f| field::<u32>(&f, 4)).unwrap();
        assert!(children(parent).contains(&me));
        let a = MachineCpu::now();
        assert!(a.total > 0);
        assert!((0.0..=1.0).contains(&MachineCpu::now().busy_since(a)));
    }
}
