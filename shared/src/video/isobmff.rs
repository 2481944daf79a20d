//! What an ISO base media file (MP4, M4A, MOV) holds, read as it streams past: the top-level
//! boxes are skipped except `moov`, which is kept (up to [`MAX_MOOV`]) and searched for its
//! tracks' handler types (`soun`, `vide`). The brand alone says little (phones write `isom`
//! and `mp42` for audio and video alike), so the tracks decide whether a file is audio.

/// The largest `moov` kept: a voice note's is a few KiB; a long video's sample tables are
/// larger, and such a file is no voice note anyway.
pub const MAX_MOOV: u64 = 4 * 1024 * 1024;

/// The kinds of tracks a file holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tracks {
    pub audio: bool,
    pub video: bool,
}

/// A box header's bytes still being gathered, or a box's body being passed over.
#[derive(Debug, Default)]
pub struct Scan {
    header: Vec<u8>,
    /// Body bytes of the current box still to come (`None`: between boxes).
    remaining: Option<u64>,
    /// The current box's body, when it is the `moov`.
    moov: Option<Vec<u8>>,
    tracks: Option<Tracks>,
    broken: Option<String>,
}

impl Scan {
    pub fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() && self.broken.is_none() {
            match self.remaining {
                None => {
                    let want = if self.header.len() >= 8 && self.header[..4] == [0, 0, 0, 1] {
                        16
                    } else {
                        8
                    };
                    let take = (want - self.header.len()).min(data.len());
                    self.header.extend_from_slice(&data[..take]);
                    data = &data[take..];
                    if self.header.len() == want && !(want == 8 && self.header[..4] == [0, 0, 0, 1])
                    {
                        self.open_box();
                    }
                }
                Some(left) => {
                    let take = left.min(data.len() as u64) as usize;
                    if let Some(moov) = &mut self.moov {
                        moov.extend_from_slice(&data[..take]);
                    }
                    data = &data[take..];
                    self.remaining = Some(left - take as u64);
                    if left == take as u64 {
                        self.close_box();
                    }
                }
            }
        }
    }

    fn open_box(&mut self) {
        let h = std::mem::take(&mut self.header);
        let size32 = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as u64;
        let (size, header_len) = if size32 == 1 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&h[8..16]);
            (u64::from_be_bytes(b), 16)
        } else {
            (size32, 8)
        };
        let body = if size == 0 {
            // "To the end of the file": only the last box may say so.
            u64::MAX
        } else if size < header_len {
            self.broken = Some(format!("a box of {size} bytes"));
            return;
        } else {
            size - header_len
        };
        if &h[4..8] == b"moov" {
            if body > MAX_MOOV {
                self.broken = Some("the movie header is too large".into());
                return;
            }
            self.moov = Some(Vec::with_capacity(body as usize));
        }
        self.remaining = Some(body);
        if body == 0 {
            self.close_box();
        }
    }

    fn close_box(&mut self) {
        self.remaining = None;
        if let Some(moov) = self.moov.take() {
            let t = self.tracks.get_or_insert_default();
            for trak in children(&moov, b"trak") {
                for mdia in children(trak, b"mdia") {
                    for hdlr in children(mdia, b"hdlr") {
                        // A full box: version and flags, pre_defined, then the handler type.
                        match hdlr.get(8..12) {
                            Some(b"soun") => t.audio = true,
                            Some(b"vide") => t.video = true,
                            _ => {}
                        }
                    }
                }
            }
        }
    }

    /// The file's tracks once it has ended, or why it cannot be read: a box cut short, sizes
    /// that make no sense, or no movie header at all.
    pub fn finish(self) -> Result<Tracks, String> {
        if let Some(why) = self.broken {
            return Err(why);
        }
        let cut = !self.header.is_empty() || self.remaining.is_some_and(|r| r != u64::MAX);
        if cut && self.moov.is_some() {
            return Err("the file ends inside its movie header".into());
        }
        if cut {
            return Err("the file ends inside a box".into());
        }
        self.tracks
            .ok_or_else(|| "the file has no movie header".into())
    }
}

/// The bodies of the boxes of type `kind` among the boxes packed in `data`.
fn children<'a>(data: &'a [u8], kind: &'a [u8; 4]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        while at + 8 <= data.len() {
            let size = u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
            let (size, header) = match size {
                0 => (data.len() - at, 8),
                1 if at + 16 <= data.len() => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&data[at + 8..at + 16]);
                    (
                        usize::try_from(u64::from_be_bytes(b)).unwrap_or(usize::MAX),
                        16,
                    )
                }
                n => (n as usize, 8),
            };
            if size < header || at.checked_add(size).is_none_or(|end| end > data.len()) {
                return None;
            }
            let (start, end) = (at, at + size);
            at = end;
            if &data[start + 4..start + 8] == kind {
                return Some(&data[start + header..end]);
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend_from_slice(kind);
        b.extend_from_slice(body);
        b
    }

    fn track(handler: &[u8; 4]) -> Vec<u8> {
        let mut hdlr = vec![0u8; 8];
        hdlr.extend_from_slice(handler);
        hdlr.extend_from_slice(&[0u8; 13]);
        bx(
            b"trak",
            &bx(
                b"mdia",
                &[bx(b"mdhd", &[0; 24]), bx(b"hdlr", &hdlr)].concat(),
            ),
        )
    }

    fn file(brand: &[u8; 4], handlers: &[&[u8; 4]]) -> Vec<u8> {
        let mut ftyp = brand.to_vec();
        ftyp.extend_from_slice(&[0, 0, 0, 0]);
        ftyp.extend_from_slice(b"isom");
        let moov: Vec<u8> = handlers.iter().flat_map(|h| track(h)).collect();
        // The media data first and the movie header last, as a recorder writes it.
        [
            bx(b"ftyp", &ftyp),
            bx(b"mdat", &[7u8; 5000]),
            bx(b"moov", &moov),
        ]
        .concat()
    }

    fn scan(data: &[u8], chunk: usize) -> Result<Tracks, String> {
        let mut s = Scan::default();
        for c in data.chunks(chunk) {
            s.feed(c);
        }
        s.finish()
    }

    #[test]
    fn the_tracks_decide_in_any_chunking() {
        let m4a = file(b"M4A ", &[b"soun"]);
        let mp4 = file(b"isom", &[b"vide", b"soun"]);
        for chunk in [1, 3, 7, 8, 100, 1 << 20] {
            let audio = Tracks {
                audio: true,
                video: false,
            };
            assert_eq!(scan(&m4a, chunk), Ok(audio), "chunk {chunk}");
            let both = Tracks {
                audio: true,
                video: true,
            };
            assert_eq!(scan(&mp4, chunk), Ok(both), "chunk {chunk}");
        }
    }

    #[test]
    fn a_photo_a_cut_file_and_nonsense_sizes_are_refused() {
        let heic = [bx(b"ftyp", b"heic\0\0\0\0mif1heic"), bx(b"meta", &[0; 40])].concat();
        assert_eq!(scan(&heic, 10), Err("the file has no movie header".into()));
        let m4a = file(b"M4A ", &[b"soun"]);
        assert!(
            scan(&m4a[..m4a.len() - 5], 10)
                .unwrap_err()
                .contains("inside its movie header")
        );
        assert!(scan(&m4a[..25], 10).unwrap_err().contains("inside a box"));
        assert!(
            scan(b"\0\0\0\x04ftyp", 10)
                .unwrap_err()
                .contains("a box of 4 bytes")
        );
        let huge = [&((MAX_MOOV + 9) as u32).to_be_bytes()[..], b"moov"].concat();
        assert!(scan(&huge, 10).unwrap_err().contains("too large"));
    }

    #[test]
    fn a_64_bit_box_size_is_followed() {
        let mut mdat = vec![0, 0, 0, 1];
        mdat.extend_from_slice(b"mdat");
        mdat.extend_from_slice(&(16u64 + 100).to_be_bytes());
        mdat.extend_from_slice(&[1u8; 100]);
        let data = [
            bx(b"ftyp", b"M4A \0\0\0\0"),
            mdat,
            bx(b"moov", &track(b"soun")),
        ]
        .concat();
        assert_eq!(scan(&data, 5).map(|t| t.audio), Ok(true));
    }
}
