//! A small TIFF structure writer: little-endian classic TIFF or BigTIFF, every IFD (and its
//! out-of-line tag values) before any image data, so a reader finds all the directories in
//! the first bytes of the file.
//!
//! The `tiff` crate's encoder writes strips only and puts each IFD after its image data, which
//! a Cloud-Optimised GeoTIFF forbids, so the float32 GeoTIFF writer lays the file out here. The
//! images handed in are already encoded (compressed strips or tiles); this module only places
//! them and writes the offsets:
//!
//! ```text
//! header (8 bytes, BigTIFF 16) | [ghost area] | IFD 0, its values | IFD 1, its values | … | data
//! ```
//!
//! For a COG ([`Arrangement::Cog`]) the ghost area is GDAL's structural metadata (layout
//! `IFDS_BEFORE_DATA`, block order `ROW_MAJOR`, a 4-byte size before each block and its last
//! 4 bytes repeated after it), and the data of the last image (the smallest overview) comes
//! first, that of the first image (full resolution) last, each image's blocks in row-major
//! order. For [`Arrangement::Plain`] the data follows the images' order and no block has a
//! leader or trailer.

use std::io::{self, Write};

/// TIFF field types used here.
const SHORT: u16 = 3;
const LONG: u16 = 4;
const ASCII: u16 = 2;
const DOUBLE: u16 = 12;
const LONG8: u16 = 16;

/// The GDAL structural metadata of a COG (the "ghost area"), after its first line.
const GHOST_BODY: &str = "LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\n\
BLOCK_TRAILER=LAST_4_BYTES_REPEATED\nKNOWN_INCOMPATIBLE_EDITION=NO\n ";

/// A tag value.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    Short(Vec<u16>),
    Long(Vec<u32>),
    Double(Vec<f64>),
    /// Written with its terminating NUL.
    Ascii(String),
}

/// One image (IFD) ready to be placed: its tags other than the block offsets and byte counts,
/// and its encoded blocks (strips or tiles) in row-major order.
#[derive(Debug, Clone)]
pub(crate) struct Image {
    pub tags: Vec<(u16, Value)>,
    /// Tiles (tags 324/325) or strips (273/279).
    pub tiled: bool,
    pub blocks: Vec<Vec<u8>>,
}

/// How the images' data are arranged after the IFDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrangement {
    /// Data in the images' order, no ghost area, no block leaders or trailers.
    Plain,
    /// GDAL's COG arrangement (see the module docs).
    Cog,
}

/// One IFD entry, its value bytes laid out little-endian.
struct Entry {
    tag: u16,
    typ: u16,
    count: u64,
    bytes: Vec<u8>,
}

fn entry(tag: u16, v: &Value) -> Entry {
    let (typ, count, bytes): (u16, usize, Vec<u8>) = match v {
        Value::Short(s) => (SHORT, s.len(), s.iter().flat_map(|x| x.to_le_bytes()).collect()),
        Value::Long(s) => (LONG, s.len(), s.iter().flat_map(|x| x.to_le_bytes()).collect()),
        Value::Double(s) => (DOUBLE, s.len(), s.iter().flat_map(|x| x.to_le_bytes()).collect()),
        Value::Ascii(s) => {
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            (ASCII, b.len(), b)
        }
    };
    Entry { tag, typ, count: count as u64, bytes }
}

/// Where everything goes, for one choice of classic or BigTIFF.
struct Plan {
    big: bool,
    /// Per image: its entries sorted by tag (offsets not yet filled in).
    entries: Vec<Vec<Entry>>,
    ifd_offsets: Vec<u64>,
    /// Per image, per entry: the offset of an out-of-line value (0 when inline).
    value_offsets: Vec<Vec<u64>>,
    /// Per image, per block: its offset.
    block_offsets: Vec<Vec<u64>>,
    /// The offset where the data starts (after the last IFD's values).
    data_start: u64,
    total: u64,
}

fn header_len(big: bool) -> u64 {
    if big {
        16
    } else {
        8
    }
}

fn ghost_len(arr: Arrangement) -> u64 {
    match arr {
        Arrangement::Plain => 0,
        Arrangement::Cog => (ghost_head().len() + GHOST_BODY.len()) as u64,
    }
}

fn ghost_head() -> String {
    format!("GDAL_STRUCTURAL_METADATA_SIZE={:06} bytes\n", GHOST_BODY.len())
}

fn even(x: u64) -> u64 {
    x + (x & 1)
}

fn plan(images: &[Image], arr: Arrangement, big: bool) -> Plan {
    let inline = if big { 8 } else { 4 };
    let (entry_len, count_len, next_len) = if big { (20, 8, 8) } else { (12, 2, 4) };
    let off_typ = if big { LONG8 } else { LONG };
    let off_bytes = if big { 8 } else { 4 };
    let mut entries = Vec::with_capacity(images.len());
    for img in images {
        let mut es: Vec<Entry> = img.tags.iter().map(|(t, v)| entry(*t, v)).collect();
        let (off_tag, cnt_tag) = if img.tiled { (324, 325) } else { (273, 279) };
        let n = img.blocks.len();
        es.push(Entry { tag: off_tag, typ: off_typ, count: n as u64, bytes: vec![0; n * off_bytes] });
        let mut counts = Vec::with_capacity(n * off_bytes);
        for b in &img.blocks {
            if big {
                counts.extend((b.len() as u64).to_le_bytes());
            } else {
                counts.extend((b.len() as u32).to_le_bytes());
            }
        }
        es.push(Entry { tag: cnt_tag, typ: off_typ, count: n as u64, bytes: counts });
        es.sort_by_key(|e| e.tag);
        entries.push(es);
    }
    let mut pos = even(header_len(big) + ghost_len(arr));
    let mut ifd_offsets = Vec::with_capacity(images.len());
    let mut value_offsets = Vec::with_capacity(images.len());
    for es in &entries {
        ifd_offsets.push(pos);
        pos += count_len + entry_len * es.len() as u64 + next_len;
        let mut vo = Vec::with_capacity(es.len());
        for e in es {
            if e.bytes.len() > inline {
                pos = even(pos);
                vo.push(pos);
                pos += e.bytes.len() as u64;
            } else {
                vo.push(0);
            }
        }
        value_offsets.push(vo);
    }
    let data_start = even(pos);
    pos = data_start;
    let framed = arr == Arrangement::Cog;
    let mut block_offsets = vec![Vec::new(); images.len()];
    for i in data_order(images.len(), arr) {
        for b in &images[i].blocks {
            if framed {
                pos += 4;
            }
            block_offsets[i].push(pos);
            pos += b.len() as u64;
            if framed && b.len() >= 4 {
                pos += 4;
            }
        }
    }
    Plan { big, entries, ifd_offsets, value_offsets, block_offsets, data_start, total: pos }
}

fn data_order(n: usize, arr: Arrangement) -> Box<dyn Iterator<Item = usize>> {
    match arr {
        Arrangement::Plain => Box::new(0..n),
        Arrangement::Cog => Box::new((0..n).rev()),
    }
}

/// Writes `images` as one TIFF (IFD 0 first, each IFD chained to the next). BigTIFF when
/// `force_big` or when the classic 32-bit offsets cannot hold the file. Returns the number of
/// bytes written.
pub(crate) fn write_tiff(w: &mut impl Write, images: &[Image], arr: Arrangement, force_big: bool) -> io::Result<u64> {
    let mut p = plan(images, arr, force_big);
    if !p.big && p.total > u64::from(u32::MAX) {
        p = plan(images, arr, true);
    }
    // Fill in the block offsets.
    for (i, es) in p.entries.iter_mut().enumerate() {
        let off_tag = if images[i].tiled { 324 } else { 273 };
        let e = es.iter_mut().find(|e| e.tag == off_tag).expect("offsets entry");
        e.bytes.clear();
        for &o in &p.block_offsets[i] {
            if p.big {
                e.bytes.extend(o.to_le_bytes());
            } else {
                e.bytes.extend((o as u32).to_le_bytes());
            }
        }
    }
    let big = p.big;
    let mut head: Vec<u8> = Vec::with_capacity(p.data_start as usize);
    if big {
        head.extend(b"II+\0");
        head.extend(8u16.to_le_bytes());
        head.extend(0u16.to_le_bytes());
        head.extend(p.ifd_offsets[0].to_le_bytes());
    } else {
        head.extend(b"II*\0");
        head.extend((p.ifd_offsets[0] as u32).to_le_bytes());
    }
    if arr == Arrangement::Cog {
        head.extend(ghost_head().as_bytes());
        head.extend(GHOST_BODY.as_bytes());
    }
    let inline = if big { 8 } else { 4 };
    for (i, es) in p.entries.iter().enumerate() {
        pad_to(&mut head, p.ifd_offsets[i]);
        if big {
            head.extend((es.len() as u64).to_le_bytes());
        } else {
            head.extend((es.len() as u16).to_le_bytes());
        }
        for (e, &vo) in es.iter().zip(&p.value_offsets[i]) {
            head.extend(e.tag.to_le_bytes());
            head.extend(e.typ.to_le_bytes());
            let mut field = vec![0u8; inline];
            if e.bytes.len() <= inline {
                field[..e.bytes.len()].copy_from_slice(&e.bytes);
            } else if big {
                field.copy_from_slice(&vo.to_le_bytes());
            } else {
                field.copy_from_slice(&(vo as u32).to_le_bytes());
            }
            if big {
                head.extend(e.count.to_le_bytes());
            } else {
                head.extend((e.count as u32).to_le_bytes());
            }
            head.extend(field);
        }
        let next = p.ifd_offsets.get(i + 1).copied().unwrap_or(0);
        if big {
            head.extend(next.to_le_bytes());
        } else {
            head.extend((next as u32).to_le_bytes());
        }
        for (e, &vo) in es.iter().zip(&p.value_offsets[i]) {
            if e.bytes.len() > inline {
                pad_to(&mut head, vo);
                head.extend(&e.bytes);
            }
        }
    }
    pad_to(&mut head, p.data_start);
    w.write_all(&head)?;
    let mut pos = p.data_start;
    let framed = arr == Arrangement::Cog;
    for i in data_order(images.len(), arr) {
        for (b, &o) in images[i].blocks.iter().zip(&p.block_offsets[i]) {
            if framed {
                w.write_all(&(b.len() as u32).to_le_bytes())?;
                pos += 4;
            }
            debug_assert_eq!(pos, o);
            w.write_all(b)?;
            pos += b.len() as u64;
            if framed && b.len() >= 4 {
                w.write_all(&b[b.len() - 4..])?;
                pos += 4;
            }
        }
    }
    debug_assert_eq!(pos, p.total);
    Ok(p.total)
}

fn pad_to(v: &mut Vec<u8>, at: u64) {
    debug_assert!(v.len() as u64 <= at, "layout overlap: {} > {at}", v.len());
    v.resize(at as usize, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(blocks: Vec<Vec<u8>>) -> Image {
        Image {
            tags: vec![
                (256, Value::Long(vec![2])),
                (257, Value::Long(vec![1])),
                (258, Value::Short(vec![8])),
                (259, Value::Short(vec![1])),
                (262, Value::Short(vec![1])),
                (277, Value::Short(vec![1])),
                (278, Value::Long(vec![1])),
                (33550, Value::Double(vec![1.0, 2.0, 0.0])),
                (42113, Value::Ascii("nan".into())),
            ],
            tiled: false,
            blocks,
        }
    }

    #[test]
    fn classic_and_big_files_decode_with_the_tiff_crate() {
        for big in [false, true] {
            let mut buf = Vec::new();
            let n = write_tiff(&mut buf, &[image(vec![vec![7, 9]])], Arrangement::Plain, big).unwrap();
            assert_eq!(n as usize, buf.len());
            assert_eq!(&buf[..4], if big { b"II+\0" } else { b"II*\0" });
            let mut dec = tiff::decoder::Decoder::new(std::io::Cursor::new(&buf)).unwrap();
            assert_eq!(dec.dimensions().unwrap(), (2, 1));
            assert_eq!(dec.get_tag_f64_vec(tiff::tags::Tag::ModelPixelScaleTag).unwrap(), vec![1.0, 2.0, 0.0]);
            assert_eq!(dec.get_tag_ascii_string(tiff::tags::Tag::GdalNodata).unwrap(), "nan");
            match dec.read_image().unwrap() {
                tiff::decoder::DecodingResult::U8(v) => assert_eq!(v, vec![7, 9]),
                other => panic!("{other:?}"),
            }
            // The data come after the IFD.
            assert_eq!(&buf[buf.len() - 2..], &[7, 9]);
        }
    }

    #[test]
    fn cog_arrangement_puts_the_last_image_first_and_frames_the_blocks() {
        let a = image(vec![vec![1, 2, 3, 4, 5]]);
        let b = image(vec![vec![6, 7, 8, 9]]);
        let mut buf = Vec::new();
        write_tiff(&mut buf, &[a, b], Arrangement::Cog, false).unwrap();
        let ghost = b"GDAL_STRUCTURAL_METADATA_SIZE=000140 bytes\nLAYOUT=IFDS_BEFORE_DATA\n";
        assert_eq!(&buf[8..8 + ghost.len()], ghost);
        // First IFD at 8 + 43 + 140 = 191, rounded up to 192, as GDAL's validator expects.
        assert_eq!(u32::from_le_bytes(buf[4..8].try_into().unwrap()), 192);
        // Data: [len 4][6 7 8 9][6 7 8 9] then [len 5][1 2 3 4 5][2 3 4 5].
        let tail: Vec<u8> =
            [&4u32.to_le_bytes()[..], &[6, 7, 8, 9, 6, 7, 8, 9], &5u32.to_le_bytes(), &[1, 2, 3, 4, 5, 2, 3, 4, 5]]
                .concat();
        assert_eq!(&buf[buf.len() - tail.len()..], &tail[..]);
    }
}
