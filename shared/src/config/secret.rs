//! [`Secret`]: a credential that never shows up in a log.

use std::fmt;

/// A credential read from the environment (a key, a token, a password, a URL holding one).
///
/// The configuration is logged at start-up, so its `Debug` must be safe: a field of this type
/// prints `<redacted>` in `Debug` and `Display`, whatever it holds, and the sections derive
/// their `Debug` instead of each hand-writing one. The value is read with [`Secret::expose`],
/// which names the place where it leaves for a provider. No `PartialEq`: comparing a secret
/// with what a caller sent is `crypto::constant_time_eq`'s job.
#[derive(Clone, Default)]
pub struct Secret<T = String>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Self {
        Secret(value)
    }

    /// The value itself, for the request or signature that needs it.
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_string())
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_prints_redacted_and_exposes_its_value() {
        let s = Secret::from("hunter2-hunter2");
        assert_eq!(
            format!("{s:?} {s} {:?}", Some(&s)),
            "<redacted> <redacted> Some(<redacted>)"
        );
        assert_eq!(s.expose(), "hunter2-hunter2");
        let bytes = Secret::new(b"key".to_vec());
        assert_eq!(format!("{bytes:?}"), "<redacted>");
    }
}
