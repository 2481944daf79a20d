//! What a file is, from its first bytes (videos for footage, audio for voice notes, photos for
//! messages): uploads are checked by content, not by the name or the type a client claims, so a
//! renamed document never reaches ffprobe or the backend, and never comes back from our origin
//! as a page.

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
            b if is_image_brand(b) => return None,
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

/// The ISO base media major brands of still images (HEIF/HEIC, AVIF): an `ftyp` box with one
/// of these is a photo, never audio or video.
const IMAGE_BRANDS: [&[u8; 4]; 10] = [
    b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis",
];

fn iso_brand(head: &[u8]) -> Option<&[u8]> {
    (head.len() >= 12 && &head[4..8] == b"ftyp").then(|| &head[8..12])
}

fn is_image_brand(brand: &[u8]) -> bool {
    IMAGE_BRANDS.iter().any(|b| b.as_slice() == brand)
}

/// The photo type of a file starting with `head` (at least [`NEEDED`] bytes), or `None` when it
/// is not one message photos take: JPEG, PNG, WebP and HEIC (HEIF). SVG, being a document with
/// script, never is.
pub fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some("image/jpeg");
    }
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    match iso_brand(head) {
        Some(brand) if is_image_brand(brand) => Some("image/heic"),
        _ => None,
    }
}

/// Whether a file starting with `head` is of the `declared` type, for the types whose bytes
/// we know (photos, audio, video); `None` for any other type.
pub fn matches_declared(declared: &str, head: &[u8]) -> Option<bool> {
    let declared = declared.split(';').next().unwrap_or("").trim();
    let found = if declared.starts_with("image/") {
        image_type(head).map(|t| t == declared || (t == "image/heic" && declared == "image/heif"))
    } else if declared.starts_with("audio/") {
        audio_type(head).map(|t| t == declared)
    } else if declared.starts_with("video/") {
        video_type(head).map(|t| t == declared)
    } else {
        return None;
    };
    Some(found.unwrap_or(false))
}

/// The audio type of a file starting with `head` (at least [`NEEDED`] bytes, or the whole
/// file when shorter), or `None` when it is not a format voice notes take: MPEG-4 audio (M4A,
/// AAC in an ISO base media file), MP3 (with an ID3 tag or a bare frame), AAC in ADTS frames,
/// WAV, Ogg (Opus, Vorbis) and WebM/Matroska.
pub fn audio_type(head: &[u8]) -> Option<&'static str> {
    if let Some(brand) = iso_brand(head) {
        // Whether an MPEG-4 file holds audio alone is for its tracks to say
        // ([`super::isobmff`]); a still-image brand never does.
        return (!is_image_brand(brand)).then_some("audio/mp4");
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
    use super::{audio_type, image_type, matches_declared, video_type};

    #[test]
    fn knows_the_photo_formats_phones_take_and_nothing_active() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01", Some("image/jpeg")),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("image/png")),
            (b"RIFF\x24\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"\0\0\0\x18ftypheic\0\0\0\0", Some("image/heic")),
            (b"\0\0\0\x18ftypmif1\0\0\0\0", Some("image/heic")),
            (b"\0\0\0\x20ftypisom\0\0\x02\0", None),
            (b"<svg xmlns=\"http://www.w3.org/2000/svg\"", None),
            (b"<script>alert(1)</script>", None),
            (b"GIF89a", None),
            (b"", None),
        ];
        for (head, want) in cases {
            assert_eq!(image_type(head), *want, "{head:?}");
        }
    }

    #[test]
    fn a_declared_type_must_be_what_the_bytes_are() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(matches_declared("image/png", png), Some(true));
        assert_eq!(matches_declared("image/jpeg", png), Some(false));
        assert_eq!(
            matches_declared("image/png", b"<script>alert(1)</script>"),
            Some(false)
        );
        assert_eq!(matches_declared("audio/mp4", png), Some(false));
        assert_eq!(matches_declared("application/gpx+xml", b"<gpx"), None);
    }

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
            (b"\0\0\0\x18ftypheic\0\0\0\0", None),
            (b"\0\0\0\x18ftypmif1\0\0\0\0", None),
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
