//! What a file is, from its first bytes (videos for footage, audio for voice notes): uploads are checked by content, not by the name or
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

/// The audio type of a file starting with `head` (at least [`NEEDED`] bytes, or the whole
/// file when shorter), or `None` when it is not a format voice notes take: MPEG-4 audio (M4A,
/// AAC in an ISO base media file), MP3 (with an ID3 tag or a bare frame), AAC in ADTS frames,
/// WAV, Ogg (Opus, Vorbis) and WebM/Matroska.
pub fn audio_type(head: &[u8]) -> Option<&'static str> {
    if head.len() >= 8 && &head[4..8] == b"ftyp" {
        return Some("audio/mp4");
    }
    if head.starts_with(b"ID3") {
        return Some("audio/mpeg");
    }
    if head.len() >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 {
        // An MPEG audio frame header: the layer bits are 00 for AAC in ADTS, else MP3.
        return Some(if head[1] & 0x06 == 0 {
            "audio/aac"
        } else {
            "audio/mpeg"
        });
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WAVE" {
        return Some("audio/wav");
    }
    if head.starts_with(b"OggS") {
        return Some("audio/ogg");
    }
    if head.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
        return Some("audio/webm");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{audio_type, video_type};

    #[test]
    fn knows_the_audio_formats_phones_record() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"\0\0\0\x20ftypM4A \0\0\0\0", Some("audio/mp4")),
            (b"ID3\x04\0\0\0\0\x01\x00\0\0", Some("audio/mpeg")),
            (b"\xff\xfb\x90\x64\0\0\0\0\0\0\0\0", Some("audio/mpeg")),
            (b"\xff\xf1\x50\x80\0\0\0\0\0\0\0\0", Some("audio/aac")),
            (b"RIFF\x24\0\0\0WAVEfmt ", Some("audio/wav")),
            (b"OggS\0\x02\0\0\0\0\0\0", Some("audio/ogg")),
            (
                b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81",
                Some("audio/webm"),
            ),
            (b"RIFF\x10\0\0\0AVI LIST", None),
            (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", None),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", None),
            (b"plain text, not audio", None),
            (b"\xff", None),
            (b"", None),
        ];
        for (head, want) in cases {
            assert_eq!(audio_type(head), *want, "{head:?}");
        }
    }

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
