//! Object key rules, the same for every backend so that a key valid on one is valid on the other.

use super::StorageError;

pub(crate) const MAX_KEY_LEN: usize = 1024;
/// Leaves room for the local store's `.<name>.meta` within a file system's 255-byte names.
pub(crate) const MAX_SEGMENT_LEN: usize = 240;

/// Checks an object key: non-empty, at most 1024 bytes, `/`-separated segments that are
/// non-empty (no leading, trailing or doubled `/`), at most 240 bytes and not starting with `.`
/// (which refuses `.` and `..`), no ASCII control character (NUL included) and no backslash.
pub fn validate_key(key: &str) -> Result<(), StorageError> {
    let invalid = |why: &str| Err(StorageError::InvalidKey(format!("{why} (key {key:?})")));
    if key.is_empty() {
        return invalid("empty key");
    }
    if key.len() > MAX_KEY_LEN {
        return invalid("longer than 1024 bytes");
    }
    if key.bytes().any(|b| b.is_ascii_control()) {
        return invalid("control character");
    }
    if key.contains('\\') {
        return invalid("backslash");
    }
    if key.starts_with('/') {
        return invalid("leading '/'");
    }
    for segment in key.split('/') {
        if segment.is_empty() {
            return invalid("empty path segment ('//' or trailing '/')");
        }
        if segment.starts_with('.') {
            return invalid("path segment starting with '.'");
        }
        if segment.len() > MAX_SEGMENT_LEN {
            return invalid("path segment longer than 240 bytes");
        }
    }
    Ok(())
}

/// Checks a prefix for `delete_prefix`: a non-empty key, optionally ending with `/`.
pub fn validate_prefix(prefix: &str) -> Result<(), StorageError> {
    let body = prefix.strip_suffix('/').unwrap_or(prefix);
    if body.is_empty() {
        return Err(StorageError::InvalidKey(format!(
            "a prefix must name something below the store's root (prefix {prefix:?})"
        )));
    }
    validate_key(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_keys_are_accepted() {
        for key in [
            "a",
            "0190e0b8-uuid/session/clip-1.mp4",
            "with space/ünïcode/名前.mov",
            "a..b/c.d",
            &"x".repeat(240),
            &format!("{}/{}", "y".repeat(240), "z".repeat(240)),
        ] {
            validate_key(key).unwrap_or_else(|e| panic!("{key:?}: {e}"));
        }
    }

    #[test]
    fn traversal_and_odd_keys_are_refused() {
        let long_key = "a/".repeat(512) + "b";
        let long_segment = "x".repeat(241);
        for key in [
            "",
            "/etc/passwd",
            "..",
            "../x",
            "a/../../x",
            "a/./b",
            ".",
            ".hidden",
            "a/.b.meta",
            "a//b",
            "a/",
            "a\\..\\b",
            "a\0b",
            "a\nb",
            long_key.as_str(),
            long_segment.as_str(),
        ] {
            assert!(
                matches!(validate_key(key), Err(StorageError::InvalidKey(_))),
                "{key:?} was accepted"
            );
        }
    }

    #[test]
    fn prefixes_may_end_with_a_slash_but_not_be_empty() {
        validate_prefix("ws/session/").unwrap();
        validate_prefix("ws/sess").unwrap();
        for p in ["", "/", "a//", "../", "a/../"] {
            assert!(validate_prefix(p).is_err(), "{p:?}");
        }
    }
}
