//! Reading variables: the lookup every section parses from, the parsers they share and the one
//! error, which names the variable.

use super::Secret;
use std::time::Duration;
use url::Url;

#[derive(Debug, thiserror::Error)]
#[error("configuration error in {var}: {message}")]
pub struct ConfigError {
    pub var: &'static str,
    pub message: String,
}

pub(crate) fn err(var: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        var,
        message: message.into(),
    }
}

/// The variables, from any source: `None` is unset (and, from the process environment, empty).
pub(crate) struct Env<'a>(pub &'a dyn Fn(&str) -> Option<String>);

impl Env<'_> {
    pub fn get(&self, var: &str) -> Option<String> {
        (self.0)(var)
    }

    pub fn secret(&self, var: &str) -> Option<Secret> {
        self.get(var).map(Secret::from)
    }

    /// A variable that must be set once `with` (a section's first variable) is.
    pub fn required(&self, var: &'static str, with: &str) -> Result<String, ConfigError> {
        self.get(var)
            .ok_or_else(|| err(var, format!("required when {with} is set")))
    }

    pub fn required_secret(&self, var: &'static str, with: &str) -> Result<Secret, ConfigError> {
        self.required(var, with).map(Secret::from)
    }

    /// A non-negative whole number, `default` when unset.
    pub fn num(&self, var: &'static str, default: u64) -> Result<u64, ConfigError> {
        match self.get(var) {
            None => Ok(default),
            Some(s) => s
                .parse()
                .map_err(|_| err(var, "must be a non-negative whole number")),
        }
    }

    pub fn flag(&self, var: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self.get(var).as_deref() {
            None => Ok(default),
            Some("1" | "true" | "yes" | "on") => Ok(true),
            Some("0" | "false" | "no" | "off") => Ok(false),
            Some(_) => Err(err(var, "must be true or false")),
        }
    }

    /// A provider's request timeout in milliseconds (at least 1 ms).
    pub fn timeout_ms(&self, var: &'static str, default: u64) -> Result<Duration, ConfigError> {
        Ok(Duration::from_millis(self.num(var, default)?.max(1)))
    }

    /// A cache lifetime in seconds (0 turns the cache off).
    pub fn secs(&self, var: &'static str, default: u64) -> Result<Duration, ConfigError> {
        Ok(Duration::from_secs(self.num(var, default)?))
    }

    /// Outbound requests per second, per process (1 to 10,000).
    pub fn rate(&self, var: &'static str, default: u64) -> Result<u32, ConfigError> {
        Ok(self.num(var, default)?.clamp(1, 10_000) as u32)
    }

    /// A comma-separated list, trimmed, empty entries dropped.
    pub fn list(&self, var: &str) -> Vec<String> {
        self.get(var)
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// A comma-separated list of names, trimmed and lower-cased, empty entries dropped.
    pub fn names(&self, var: &str) -> Vec<String> {
        self.list(var).iter().map(|s| s.to_lowercase()).collect()
    }
}

/// An absolute URL with a host.
pub(crate) fn parse_url(var: &'static str, v: &str) -> Result<Url, ConfigError> {
    let u = Url::parse(v).map_err(|e| err(var, format!("not a URL ({e})")))?;
    if u.cannot_be_a_base() || u.host_str().is_none() {
        return Err(err(var, "must be an absolute URL with a host"));
    }
    Ok(u)
}
