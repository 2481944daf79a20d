//! The one error type of the service.
//!
//! An error carries a [`ErrorKind`] (what went wrong, in the caller's terms), a stable snake_case
//! `code` (defined where it is raised, as a literal: `docs/errors.md` lists every code with its
//! status, generated from those literals by `api/tests/it/error_codes/`), a message and optional
//! details.
//! `shared` knows no HTTP: the api maps kinds to statuses and writes
//! `{"error": {"code", "message", "details"?}}` (`api/src/http/error.rs`); the worker maps them to
//! job outcomes. Internal errors keep their cause for the log and never show it.

use serde::Serialize;
use serde_json::{Value, json};

/// What kind of failure an error is; each kind has one HTTP status in the api.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input: malformed, invalid fields, or a request that cannot apply (400).
    BadRequest,
    /// No, bad or expired credentials (401).
    Unauthenticated,
    /// Signed in but not allowed (403).
    Forbidden,
    /// Absent, or another workspace's: indistinguishable on purpose (404).
    NotFound,
    /// The route exists but not with this method (405).
    MethodNotAllowed,
    /// The current state forbids it (409).
    Conflict,
    /// It existed and is no longer usable: expired, revoked, used (410).
    Gone,
    /// A precondition header does not hold, e.g. an unsupported tus protocol version (412).
    PreconditionFailed,
    PayloadTooLarge,
    UnsupportedMediaType,
    /// The body does not match the checksum the client sent with it (the tus checksum
    /// extension's 460).
    ChecksumMismatch,
    RangeNotSatisfiable,
    /// Too many attempts; `retry_after_secs` says when to come back (429).
    RateLimited,
    /// A bug or an unexpected failure; the cause is logged (500).
    Internal,
    /// An external provider failed or refused (502).
    ProviderFailed,
    /// Temporarily unable: busy database, provider not configured, timeout (503).
    Unavailable,
}

impl ErrorKind {
    /// Whether the failure is on the service's side (logged with its cause).
    pub fn is_server_error(self) -> bool {
        matches!(
            self,
            ErrorKind::Internal | ErrorKind::ProviderFailed | ErrorKind::Unavailable
        )
    }
}

#[derive(Debug)]
pub struct Error {
    pub kind: ErrorKind,
    pub code: &'static str,
    pub message: String,
    pub details: Option<Value>,
    pub retry_after_secs: Option<u64>,
    /// The underlying cause of a 5xx, logged but never sent.
    pub source: Option<anyhow::Error>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One invalid field of a request body or query.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub code: &'static str,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, code: &'static str, message: impl Into<String>) -> Self {
        Error {
            kind,
            code,
            message: message.into(),
            details: None,
            retry_after_secs: None,
            source: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, code, message)
    }

    /// 400 `validation_failed` with per-field details.
    pub fn validation(fields: Vec<FieldError>) -> Self {
        let summary = fields
            .iter()
            .map(|f| format!("{}: {}", f.field, f.message))
            .collect::<Vec<_>>()
            .join("; ");
        Self::bad_request("validation_failed", summary).with_details(json!({ "fields": fields }))
    }

    pub fn field(field: &str, code: &'static str, message: impl Into<String>) -> Self {
        Self::validation(vec![FieldError {
            field: field.to_string(),
            code,
            message: message.into(),
        }])
    }

    pub fn unauthorized(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthenticated, code, message)
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, code, message)
    }

    /// 404 for a row that is absent or belongs to another workspace: the two are
    /// indistinguishable on purpose.
    pub fn not_found(what: &str) -> Self {
        Self::new(
            ErrorKind::NotFound,
            "not_found",
            format!("{what} not found"),
        )
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, code, message)
    }

    /// 410: a token or invite that existed and can no longer be used.
    pub fn gone(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Gone, code, message)
    }

    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::PayloadTooLarge, "payload_too_large", message)
    }

    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::UnsupportedMediaType,
            "unsupported_media_type",
            message,
        )
    }

    /// 503 with a code, e.g. `timeout`; clients may retry after `retry_after_secs`.
    pub fn unavailable(
        code: &'static str,
        message: impl Into<String>,
        retry_after_secs: u64,
    ) -> Self {
        let mut e = Self::new(ErrorKind::Unavailable, code, message);
        e.retry_after_secs = Some(retry_after_secs);
        e
    }

    pub fn too_many_requests(retry_after_secs: u64) -> Self {
        let mut e = Self::new(
            ErrorKind::RateLimited,
            "rate_limited",
            format!("too many requests; retry after {retry_after_secs} s"),
        );
        e.retry_after_secs = Some(retry_after_secs.max(1));
        e
    }

    pub fn provider_not_configured(provider: &str) -> Self {
        Self::new(
            ErrorKind::Unavailable,
            "provider_not_configured",
            format!("the {provider} provider is not configured on this server"),
        )
    }

    pub fn provider_failed(provider: &str, message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::ProviderFailed,
            "provider_failed",
            format!("{provider}: {}", message.into()),
        )
    }

    pub fn internal(source: impl Into<anyhow::Error>) -> Self {
        let mut e = Self::new(
            ErrorKind::Internal,
            "internal",
            "internal error; the request id identifies it in the logs",
        );
        e.source = Some(source.into());
        e
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} {}: {}", self.kind, self.code, self.message)?;
        if let Some(s) = &self.source {
            write!(f, " ({s:#})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// A database that cannot be reached for now is a 503 `unavailable`, never a 500: no pooled
/// connection came free within the acquire timeout (an exhausted pool, or a server that
/// refuses connections: sqlx retries those until the timeout), the connection broke under a
/// query (a server restart), or the server refused the session (shutting down, starting up,
/// out of connection slots). The pool replaces broken connections by itself, so the same
/// request succeeds once the database is back.
fn database_unavailable(e: &sqlx::Error) -> Option<&'static str> {
    match e {
        sqlx::Error::PoolTimedOut => Some("the database is busy; retry shortly"),
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Some("the database is unreachable; retry shortly"),
        sqlx::Error::Database(d) => {
            let code = d.code()?;
            // PostgreSQL: class 08 connection exception, 57P01–57P03 admin/crash shutdown and
            // "cannot connect now", 53300 too many connections.
            (code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03" | "53300"))
                .then_some("the database is unreachable; retry shortly")
        }
        _ => None,
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        match database_unavailable(&e) {
            Some(message) => {
                let mut err = Error::unavailable("unavailable", message, 1);
                err.source = Some(e.into());
                err
            }
            None => match e {
                // SQLite's SQLITE_FULL (13: the disk, or `max_page_count`, is full) and
                // PostgreSQL's disk_full (53100): the write is rolled back and the database
                // stays whole, so it is the service that is unavailable, not the request.
                sqlx::Error::Database(ref d)
                    if matches!(d.code().as_deref(), Some("13") | Some("53100")) =>
                {
                    let mut err = Error::unavailable(
                        "unavailable",
                        "the database is out of space; retry later",
                        60,
                    );
                    err.source = Some(e.into());
                    err
                }
                other => Error::internal(other),
            },
        }
    }
}

impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Self {
        match e.downcast::<Error>() {
            Ok(err) => err,
            Err(other) => match other.downcast::<sqlx::Error>() {
                Ok(sqlx) => sqlx.into(),
                Err(other) => Error::internal(other),
            },
        }
    }
}

/// Collects field errors so a request reports every invalid field at once.
#[derive(Default, Debug)]
pub struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: &str, code: &'static str, message: impl Into<String>) {
        self.errors.push(FieldError {
            field: field.to_string(),
            code,
            message: message.into(),
        });
    }

    /// A trimmed, non-empty string of at most `max` characters.
    pub fn text(&mut self, field: &str, value: &str, max: usize) -> String {
        let v = value.trim();
        if v.is_empty() {
            self.add(field, "required", "must not be empty");
        } else if v.chars().count() > max {
            self.add(
                field,
                "too_long",
                format!("must be at most {max} characters"),
            );
        }
        v.to_string()
    }

    /// A plausible email address, lower-cased. Deliverability is proven by the verification mail.
    pub fn email(&mut self, field: &str, value: &str) -> String {
        let v = value.trim().to_lowercase();
        let ok = v.len() <= 254
            && v.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !v.contains(char::is_whitespace)
                    && v.matches('@').count() == 1
            });
        if !ok {
            self.add(field, "invalid_email", "must be an email address");
        }
        v
    }

    /// Password policy: 10 to 200 characters (NIST 800-63B favours length over composition rules).
    pub fn password(&mut self, field: &str, value: &str) {
        let n = value.chars().count();
        if n < 10 {
            self.add(field, "too_short", "must be at least 10 characters");
        } else if n > 200 {
            self.add(field, "too_long", "must be at most 200 characters");
        }
    }

    /// One of a fixed set of values (`invalid_choice` otherwise).
    pub fn choice(&mut self, field: &str, value: &str, choices: &[&str]) {
        if !choices.contains(&value) {
            self.add(
                field,
                "invalid_choice",
                format!("must be one of {}", choices.join(", ")),
            );
        }
    }

    /// Parses one of a text enum's values, adding `invalid_choice` (listing the values) when it
    /// is not one; "parse, don't validate": callers keep the typed value.
    pub fn choice_of<T: crate::db::TextEnum>(&mut self, field: &str, value: &str) -> Option<T> {
        match T::parse(value.trim()) {
            Ok(v) => Some(v),
            Err(_) => {
                self.choice(field, value.trim(), T::NAMES);
                None
            }
        }
    }

    /// Parses an id (a UUID) given as text, as a form sends one (`invalid_id` otherwise).
    pub fn id(&mut self, field: &str, value: &str) -> Option<crate::db::Id> {
        let id = value.trim().parse().ok();
        self.check(id.is_some(), field, "invalid_id", "must be an id");
        id
    }

    pub fn check(&mut self, ok: bool, field: &str, code: &'static str, message: &str) {
        if !ok {
            self.add(field, code, message);
        }
    }

    /// The collected field errors (row-by-row validation, e.g. CSV imports).
    pub fn into_errors(self) -> Vec<FieldError> {
        self.errors
    }

    pub fn finish(self) -> Result<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_or_exhausted_database_is_unavailable_not_internal() {
        let refused = || {
            sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "connection refused",
            ))
        };
        for e in [
            sqlx::Error::PoolTimedOut,
            refused(),
            sqlx::Error::PoolClosed,
        ] {
            let e = Error::from(e);
            assert_eq!((e.kind, e.code), (ErrorKind::Unavailable, "unavailable"));
            assert_eq!(e.retry_after_secs, Some(1));
            assert!(e.source.is_some(), "the cause is kept for the log");
        }
        let bare = Error::from(anyhow::Error::new(refused()));
        assert_eq!(bare.kind, ErrorKind::Unavailable);
        let bug = Error::from(sqlx::Error::RowNotFound);
        assert_eq!((bug.kind, bug.code), (ErrorKind::Internal, "internal"));
    }
}
