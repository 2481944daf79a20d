//! Small media files built by hand, with the structure the service reads (an M4A's tracks, a
//! PNG's signature), so that tests exercise the byte checks without shipping binary fixtures.

fn iso_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut b = u32::try_from(body.len() + 8)
        .expect("a small box")
        .to_be_bytes()
        .to_vec();
    b.extend_from_slice(kind);
    b.extend_from_slice(body);
    b
}

fn track(handler: &[u8; 4]) -> Vec<u8> {
    let mut hdlr = vec![0u8; 8];
    hdlr.extend_from_slice(handler);
    hdlr.extend_from_slice(&[0u8; 13]);
    iso_box(b"trak", &iso_box(b"mdia", &iso_box(b"hdlr", &hdlr)))
}

/// An ISO base media file of `len` bytes (at least its boxes' size): the `ftyp` with `brand`,
/// the media data, then the movie header with one track per handler (`soun`, `vide`), last as
/// a phone writes it.
pub fn iso_media(brand: &[u8; 4], handlers: &[&[u8; 4]], len: usize) -> Vec<u8> {
    let mut ftyp = brand.to_vec();
    ftyp.extend_from_slice(b"\0\0\0\0isom");
    let ftyp = iso_box(b"ftyp", &ftyp);
    let tracks: Vec<u8> = handlers.iter().flat_map(|h| track(h)).collect();
    let moov = iso_box(b"moov", &tracks);
    let fill = len.saturating_sub(ftyp.len() + 8 + moov.len());
    [ftyp, iso_box(b"mdat", &vec![0x11; fill]), moov].concat()
}

/// An M4A voice recording of `len` bytes: one audio track.
pub fn m4a(len: usize) -> Vec<u8> {
    iso_media(b"M4A ", &[b"soun"], len)
}

/// `len` bytes that open with PNG's signature and header chunk.
pub fn png(len: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.resize(len.max(b.len()), 0x22);
    b
}
