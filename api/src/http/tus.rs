//! The tus 1.0 resumable upload protocol's headers (https://tus.io/protocols/resumable-upload):
//! the version handshake, `Upload-Metadata`, `Upload-Checksum`, and [`PartCheck`], which
//! watches a PATCH body as it streams by (length, the first bytes' type, the checksum).
//! The routes are `crate::areas::ingest`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use shared::video::sniff;
use shared::{Error, ErrorKind};
use std::collections::BTreeMap;

pub const VERSION: &str = "1.0.0";
/// The extensions we speak. Not `creation-with-upload` (the first bytes come with the first
/// PATCH) nor `concatenation` or `creation-defer-length`.
pub const EXTENSIONS: &str = "creation,termination,checksum,expiration";
pub const CHECKSUM_ALGORITHMS: &str = "sha1,sha256";
/// The content type of a PATCH body.
pub const OFFSET_OCTET_STREAM: &str = "application/offset+octet-stream";

pub const TUS_RESUMABLE: &str = "tus-resumable";
pub const TUS_VERSION: &str = "tus-version";
pub const TUS_EXTENSION: &str = "tus-extension";
pub const TUS_MAX_SIZE: &str = "tus-max-size";
pub const TUS_CHECKSUM_ALGORITHM: &str = "tus-checksum-algorithm";
pub const UPLOAD_OFFSET: &str = "upload-offset";
pub const UPLOAD_LENGTH: &str = "upload-length";
pub const UPLOAD_DEFER_LENGTH: &str = "upload-defer-length";
pub const UPLOAD_METADATA: &str = "upload-metadata";
pub const UPLOAD_CHECKSUM: &str = "upload-checksum";
pub const UPLOAD_EXPIRES: &str = "upload-expires";

/// 412 unless the request speaks our protocol version.
pub fn check_version(headers: &http::HeaderMap) -> Result<(), Error> {
    match headers.get(TUS_RESUMABLE).and_then(|v| v.to_str().ok()) {
        Some(VERSION) => Ok(()),
        _ => Err(Error::new(
            ErrorKind::PreconditionFailed,
            "tus_version_unsupported",
            format!("send Tus-Resumable: {VERSION}"),
        )),
    }
}

fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A non-negative whole-number header (`Upload-Length`, `Upload-Offset`).
pub fn number(headers: &http::HeaderMap, name: &'static str) -> Result<u64, Error> {
    let v = header(headers, name)
        .ok_or_else(|| Error::field(name, "required", format!("the {name} header is required")))?;
    v.trim().parse::<u64>().map_err(|_| {
        Error::field(
            name,
            "invalid_format",
            "must be a non-negative whole number",
        )
    })
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs (a key alone has an empty
/// value). Keys are unique ASCII without spaces or commas; values must be UTF-8 here.
pub fn metadata(headers: &http::HeaderMap) -> Result<BTreeMap<String, String>, Error> {
    let bad = |why: &str| Error::field("Upload-Metadata", "invalid_format", why.to_string());
    let mut out = BTreeMap::new();
    let Some(raw) = header(headers, UPLOAD_METADATA) else {
        return Ok(out);
    };
    for pair in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut it = pair.split(' ').filter(|s| !s.is_empty());
        let key = it.next().ok_or_else(|| bad("a pair without a key"))?;
        let value = match it.next() {
            Some(b64) => {
                let bytes = STANDARD
                    .decode(b64)
                    .map_err(|_| bad("values must be base64"))?;
                String::from_utf8(bytes).map_err(|_| bad("values must be UTF-8 text"))?
            }
            None => String::new(),
        };
        if it.next().is_some() || !key.is_ascii() {
            return Err(bad("each pair is an ASCII key and one base64 value"));
        }
        if out.insert(key.to_string(), value).is_some() {
            return Err(bad("keys must be unique"));
        }
    }
    Ok(out)
}

/// The checksum a client sent for a PATCH body.
pub enum Checksum {
    Sha1(Vec<u8>),
    Sha256(Vec<u8>),
}

/// `Upload-Checksum: <algorithm> <base64 digest>`; 400 `checksum_algorithm_unsupported` for an
/// algorithm outside [`CHECKSUM_ALGORITHMS`].
pub fn checksum(headers: &http::HeaderMap) -> Result<Option<Checksum>, Error> {
    let Some(raw) = header(headers, UPLOAD_CHECKSUM) else {
        return Ok(None);
    };
    let bad = || {
        Error::field(
            "Upload-Checksum",
            "invalid_format",
            "must be an algorithm and a base64 digest",
        )
    };
    let (alg, b64) = raw.trim().split_once(' ').ok_or_else(bad)?;
    let digest = STANDARD.decode(b64.trim()).map_err(|_| bad())?;
    match alg {
        "sha1" if digest.len() == 20 => Ok(Some(Checksum::Sha1(digest))),
        "sha256" if digest.len() == 32 => Ok(Some(Checksum::Sha256(digest))),
        "sha1" | "sha256" => Err(bad()),
        _ => Err(Error::new(
            ErrorKind::BadRequest,
            "checksum_algorithm_unsupported",
            format!("Upload-Checksum algorithms: {CHECKSUM_ALGORITHMS}"),
        )),
    }
}

enum Hasher {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

/// Watches one PATCH body: it may not run past the upload's length, the upload's first bytes
/// must be a video container ([`sniff::video_type`]), and the body must match the client's
/// checksum. A broken rule is an error the caller turns into the response, after making the
/// storage upload fail so that no part is kept.
pub struct PartCheck {
    /// Bytes the upload may still take.
    room: u64,
    /// The first part of the upload: its leading bytes are sniffed.
    first: bool,
    head: Vec<u8>,
    content_type: Option<&'static str>,
    hasher: Option<(Hasher, Vec<u8>)>,
    seen: u64,
}

impl PartCheck {
    pub fn new(offset: u64, length: u64, checksum: Option<Checksum>) -> Self {
        use sha2::Digest;
        PartCheck {
            room: length.saturating_sub(offset),
            first: offset == 0,
            head: Vec::new(),
            content_type: None,
            hasher: checksum.map(|c| match c {
                Checksum::Sha1(d) => (Hasher::Sha1(sha1::Sha1::new()), d),
                Checksum::Sha256(d) => (Hasher::Sha256(sha2::Sha256::new()), d),
            }),
            seen: 0,
        }
    }

    /// Bytes seen so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The sniffed container type (first part only).
    pub fn content_type(&self) -> Option<&'static str> {
        self.content_type
    }

    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        use sha2::Digest;
        self.seen += chunk.len() as u64;
        if self.seen > self.room {
            return Err(Error::new(
                ErrorKind::PayloadTooLarge,
                "upload_exceeds_length",
                "the body runs past the upload's Upload-Length",
            ));
        }
        if let Some((h, _)) = self.hasher.as_mut() {
            match h {
                Hasher::Sha1(h) => h.update(chunk),
                Hasher::Sha256(h) => h.update(chunk),
            }
        }
        if self.first && self.content_type.is_none() && self.head.len() < sniff::NEEDED {
            let want = sniff::NEEDED - self.head.len();
            self.head.extend_from_slice(&chunk[..want.min(chunk.len())]);
            if self.head.len() == sniff::NEEDED {
                self.sniff()?;
            }
        }
        Ok(())
    }

    fn sniff(&mut self) -> Result<(), Error> {
        self.content_type = sniff::video_type(&self.head);
        if self.content_type.is_none() {
            return Err(Error::new(
                ErrorKind::UnsupportedMediaType,
                "upload_not_video",
                "the file is not a video (MP4, MOV, 3GP, WebM or AVI)",
            ));
        }
        Ok(())
    }

    /// At the end of the body: the checksum, and a first part too short to tell its type.
    pub fn finish(&mut self) -> Result<(), Error> {
        use sha2::Digest;
        if self.first && self.seen > 0 && self.content_type.is_none() {
            if self.room < sniff::NEEDED as u64 {
                // The whole file is shorter than any container's header.
                self.sniff()?;
            }
            return Err(Error::new(
                ErrorKind::BadRequest,
                "upload_part_too_small",
                format!(
                    "the first PATCH must carry at least {} bytes",
                    sniff::NEEDED
                ),
            ));
        }
        if let Some((h, want)) = self.hasher.take() {
            let got = match h {
                Hasher::Sha1(h) => h.finalize().to_vec(),
                Hasher::Sha256(h) => h.finalize().to_vec(),
            };
            if got != want {
                return Err(Error::new(
                    ErrorKind::ChecksumMismatch,
                    "checksum_mismatch",
                    "the body does not match Upload-Checksum; send it again",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;

    fn h(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.insert(*k, v.parse().unwrap());
        }
        m
    }

    #[test]
    fn metadata_decodes_pairs_and_refuses_garbage() {
        let m = metadata(&h(&[(
            UPLOAD_METADATA,
            "filename d2F2ZS5tcDQ=, sessionId MTIz,empty",
        )]))
        .unwrap();
        assert_eq!(m["filename"], "wave.mp4");
        assert_eq!(m["sessionId"], "123");
        assert_eq!(m["empty"], "");
        for bad in ["filename !!!", "a YQ==,a YQ==", "k YQ== extra", "k //8="] {
            assert_eq!(
                metadata(&h(&[(UPLOAD_METADATA, bad)])).unwrap_err().code,
                "validation_failed",
                "{bad}"
            );
        }
        assert!(metadata(&HeaderMap::new()).unwrap().is_empty());
    }

    #[test]
    fn checksum_parses_known_algorithms_only() {
        let sha1 = STANDARD.encode([7u8; 20]);
        assert!(matches!(
            checksum(&h(&[(UPLOAD_CHECKSUM, &format!("sha1 {sha1}"))])).unwrap(),
            Some(Checksum::Sha1(_))
        ));
        assert_eq!(
            checksum(&h(&[(UPLOAD_CHECKSUM, "md5 AAAA")]))
                .err()
                .unwrap()
                .code,
            "checksum_algorithm_unsupported"
        );
        // A digest of the wrong length is malformed.
        assert_eq!(
            checksum(&h(&[(UPLOAD_CHECKSUM, &format!("sha256 {sha1}"))]))
                .err()
                .unwrap()
                .code,
            "validation_failed"
        );
    }

    const MP4: &[u8] = b"\0\0\0\x20ftypisom\0\0\x02\0rest of the file";

    #[test]
    fn part_check_sniffs_across_chunks_and_checks_length_and_sum() {
        use sha2::Digest;
        let sum = sha2::Sha256::digest(MP4).to_vec();
        let mut c = PartCheck::new(0, MP4.len() as u64, Some(Checksum::Sha256(sum)));
        for chunk in MP4.chunks(5) {
            c.feed(chunk).unwrap();
        }
        c.finish().unwrap();
        assert_eq!(c.content_type(), Some("video/mp4"));
        assert_eq!(c.seen(), MP4.len() as u64);

        let mut wrong = PartCheck::new(0, 100, Some(Checksum::Sha1(vec![0; 20])));
        wrong.feed(MP4).unwrap();
        assert_eq!(wrong.finish().unwrap_err().code, "checksum_mismatch");

        let mut long = PartCheck::new(10, 12, None);
        assert_eq!(long.feed(b"abc").unwrap_err().code, "upload_exceeds_length");

        let mut pdf = PartCheck::new(0, 1000, None);
        assert_eq!(
            pdf.feed(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3").unwrap_err().code,
            "upload_not_video"
        );

        let mut short = PartCheck::new(0, 1000, None);
        short.feed(b"\0\0\0").unwrap();
        assert_eq!(short.finish().unwrap_err().code, "upload_part_too_small");

        // Later parts are not sniffed.
        let mut later = PartCheck::new(500, 1000, None);
        later.feed(b"%PDF").unwrap();
        later.finish().unwrap();
        assert_eq!(later.content_type(), None);
    }
}
