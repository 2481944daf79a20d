//! What a file is, from its first bytes: uploads are checked by content, not by the name or
//! the type a client claims, so a renamed document never reaches ffprobe or the backend.

/// How many leading bytes [`video_type`] needs to decide.
pub const NEEDED: usize = 12;

/// The video container type of a file starting with `head` (at least [`NEEDED`] bytes),
/// or `None` when it is not a container we take: ISO base media (MP4, M4V, 3GP, QuickTime
/// MOV, including old QuickTime files that open with a `moov`, `mdat`, `wide`, `free` or
/// `skip` atom), Matroska/WebM and AVI.
pub fn video_type(head: &[u8]) -> Option<&'static str> {
    if head.len() < NEEDED {
        return None;
    }
    let kind = &head[4..8];
    if kind == b"ftyp" {
        return Some(match &head[8..12] {
            b"qt  " => "video/quicktime",
            b if b.starts_with(b"3g") => "video/3gpp",
            _ => "video/mp4",
        });
    }
    if matches!(kind, b"moov" | b"mdat" | b"wide" | b"free" | b"skip") {
        return Some("video/quicktime");
    }
    if head.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
        return Some("video/webm");
    }
    if head.starts_with(b"RIFF") && &head[8..12] == b"AVI " {
        return Some("video/x-msvideo");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::video_type;

    #[test]
    fn knows_the_containers_phones_and_cameras_write() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"\0\0\0\x20ftypisom\0\0\x02\0", Some("video/mp4")),
            (b"\0\0\0\x1cftypmp42\0\0\0\0", Some("video/mp4")),
            (b"\0\0\0\x14ftypqt  \0\0\0\0", Some("video/quicktime")),
            (b"\0\0\0\x18ftyp3gp4\0\0\0\0", Some("video/3gpp")),
            (b"\0\0\0\x08wide\0\0\0\0mdat", Some("video/quicktime")),
            (
                b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81",
                Some("video/webm"),
            ),
            (b"RIFF\x10\0\0\0AVI LIST", Some("video/x-msvideo")),
            (b"RIFF\x10\0\0\0WAVEfmt ", None),
            (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", None),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", None),
            (b"GIF89a", None),
            (b"", None),
        ];
        for (head, want) in cases {
            assert_eq!(video_type(head), *want, "{head:?}");
        }
    }
}
