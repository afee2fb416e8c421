//! The PNG encoder: rows cut into strips of a fixed number of rows, each strip filtered and
//! compressed on its own (in parallel), the strips' Deflate blocks joined into one zlib stream.
//!
//! # Layout
//!
//! `signature | IHDR | IDAT per strip | IDAT (stream end) | IEND`. A strip holds
//! [`strip_rows`] rows (about [`STRIP_BYTES`] filtered bytes; the number depends on the row
//! length only, never on the thread count), so the file's bytes are the same on any machine and
//! thread count. Each strip is one IDAT chunk holding:
//!
//! * its rows with PNG filter Sub (what the `png` crate's default filter is) compressed as one
//!   non-final dynamic-Huffman Deflate block with the fixed code of `fdeflate` (the compressor
//!   behind the `png` crate's `Compression::Fast`, which this encoder used before): literals and
//!   runs of zero bytes, the code tuned for filtered image rows; or, when that would be larger
//!   than storing them, its rows unfiltered (filter None) as stored blocks;
//! * then an empty stored block (a zlib "sync flush"), so the strip ends on a byte boundary and
//!   the next strip's blocks follow it byte for byte.
//!
//! The first strip's chunk starts with the zlib header; the last IDAT holds the final empty
//! block and the Adler-32 of all the filtered bytes, combined from the strips' own checksums.
//!
//! Each strip's Sub filter, run detection and matches stay inside its rows (a run match refers
//! only to the byte before it), so the strips are independent and decode as one image.
//!
//! The Huffman code (its code lengths and the block header encoding them) is `fdeflate`'s
//! (MIT OR Apache-2.0, © the image-rs developers), copied here because that crate does not
//! expose a block-level writer.

use rayon::prelude::*;
use std::io::Write;

/// Filtered bytes aimed at per strip (rows of `1 + row length` bytes; at least one row).
pub(crate) const STRIP_BYTES: usize = 1 << 20;

/// Rows per strip for rows of `row_len` raw bytes: a function of the row length alone.
pub(crate) fn strip_rows(row_len: usize) -> usize {
    (STRIP_BYTES / (row_len + 1)).max(1)
}

/// `fdeflate`'s dynamic block header after the zlib header: 53 − 2 bytes and 5 more bits. Its
/// first bit is BFINAL (set here; cleared for our non-final blocks).
const BLOCK_HEADER: [u8; 52] = [
    237, 192, 3, 160, 36, 89, 150, 198, 241, 255, 119, 238, 141, 200, 204, 167, 114, 75, 99, 174, 109, 219, 182, 109,
    219, 182, 109, 219, 182, 109, 105, 140, 158, 150, 74, 175, 158, 50, 51, 34, 238, 249, 118, 183, 106, 122, 166, 135,
    59, 107, 213, 15,
];

/// `fdeflate`'s literal/length code lengths (symbols 0..=285); the one distance code (distance
/// 1) has length 1.
const HUFFMAN_LENGTHS: [u8; 286] = [
    2, 3, 4, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11,
    11, 11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 10, 11, 10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 9,
    9, 9, 9, 8, 9, 8, 8, 8, 8, 8, 7, 7, 7, 6, 6, 6, 5, 4, 3, 12, 12, 12, 9, 9, 11, 10, 11, 11, 10, 11, 11, 11, 11, 11,
    11, 12, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 9,
];

/// Canonical Huffman codes of `lengths`, bit-reversed for Deflate's LSB-first packing.
const fn compute_codes(lengths: &[u8; 286]) -> [u16; 286] {
    let mut codes = [0u16; 286];
    let mut code = 0u32;
    let mut len = 1;
    while len <= 16 {
        let mut i = 0;
        while i < lengths.len() {
            if lengths[i] == len {
                codes[i] = (code as u16).reverse_bits() >> (16 - len);
                code += 1;
            }
            i += 1;
        }
        code <<= 1;
        len += 1;
    }
    assert!(code == 2 << 16, "an incomplete Huffman code");
    codes
}

const HUFFMAN_CODES: [u16; 286] = compute_codes(&HUFFMAN_LENGTHS);

/// Deflate's length symbols: base lengths and extra bits of symbols 257..=285.
const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];

/// For a match of `3 + i` bytes: its length symbol's index into [`LEN_BASE`].
const LEN_INDEX: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut len = 3;
    while len <= 258 {
        let mut k = 28;
        while LEN_BASE[k] as usize > len {
            k -= 1;
        }
        t[len - 3] = k as u8;
        len += 1;
    }
    t
};

/// A little-endian bit writer into a byte vector.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    buf: u64,
    n: u32,
}

impl Bits<'_> {
    #[inline(always)]
    fn put(&mut self, bits: u64, nbits: u32) {
        debug_assert!(nbits <= 64 && (nbits == 64 || bits >> nbits == 0));
        self.buf |= bits.checked_shl(self.n).unwrap_or(0);
        self.n += nbits;
        if self.n >= 64 {
            self.out.extend_from_slice(&self.buf.to_le_bytes());
            self.n -= 64;
            self.buf = bits.checked_shr(nbits - self.n).unwrap_or(0);
        }
    }

    #[inline(always)]
    fn literal(&mut self, b: u8) {
        self.put(u64::from(HUFFMAN_CODES[b as usize]), u32::from(HUFFMAN_LENGTHS[b as usize]));
    }

    /// A run of `run ≥ 1` zero bytes: a literal zero, then matches at distance 1 (or more
    /// literal zeros for a short run), as `fdeflate` writes them.
    fn zeros(&mut self, mut run: u32) {
        self.literal(0);
        run -= 1;
        while run >= 258 {
            self.put(u64::from(HUFFMAN_CODES[285]), u32::from(HUFFMAN_LENGTHS[285]) + 1);
            run -= 258;
        }
        if run > 4 {
            let k = LEN_INDEX[run as usize - 3] as usize;
            let sym = 257 + k;
            self.put(u64::from(HUFFMAN_CODES[sym]), u32::from(HUFFMAN_LENGTHS[sym]));
            let extra = u64::from(run - u32::from(LEN_BASE[k]));
            // The extra bits, then the distance code (one 0 bit).
            self.put(extra, u32::from(LEN_EXTRA[k]) + 1);
        } else {
            debug_assert_eq!(HUFFMAN_CODES[0], 0);
            self.put(0, run * u32::from(HUFFMAN_LENGTHS[0]));
        }
    }

    /// `data` as literals and zero runs (`fdeflate`'s `write_data`).
    fn data(&mut self, data: &[u8]) {
        let mut run = 0u32;
        let mut chunks = data.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if word == 0 {
                run += 8;
                continue;
            } else if run > 0 {
                let run_extra = word.trailing_zeros() / 8;
                self.zeros(run + run_extra);
                run = 0;
                if run_extra > 0 {
                    run = word.leading_zeros() / 8;
                    for &b in &chunk[run_extra as usize..8 - run as usize] {
                        self.literal(b);
                    }
                    continue;
                }
            }
            let run_start = word.leading_zeros() / 8;
            if run_start > 0 {
                for &b in &chunk[..8 - run_start as usize] {
                    self.literal(b);
                }
                run = run_start;
                continue;
            }
            let len = |b: u8| u32::from(HUFFMAN_LENGTHS[b as usize]);
            let code = |b: u8| u64::from(HUFFMAN_CODES[b as usize]);
            let (n0, n1, n2, n3) = (len(chunk[0]), len(chunk[1]), len(chunk[2]), len(chunk[3]));
            self.put(
                code(chunk[0]) | code(chunk[1]) << n0 | code(chunk[2]) << (n0 + n1) | code(chunk[3]) << (n0 + n1 + n2),
                n0 + n1 + n2 + n3,
            );
            let (n4, n5, n6, n7) = (len(chunk[4]), len(chunk[5]), len(chunk[6]), len(chunk[7]));
            self.put(
                code(chunk[4]) | code(chunk[5]) << n4 | code(chunk[6]) << (n4 + n5) | code(chunk[7]) << (n4 + n5 + n6),
                n4 + n5 + n6 + n7,
            );
        }
        if run > 0 {
            self.zeros(run);
        }
        for &b in chunks.remainder() {
            self.literal(b);
        }
    }

    /// Pads to a byte boundary with zero bits and writes out what is pending.
    fn align(&mut self) {
        let bytes = self.n.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.buf.to_le_bytes()[..bytes]);
        self.buf = 0;
        self.n = 0;
    }
}

const ADLER_MOD: u32 = 65521;

/// Adler-32 of `data` continuing from `adler`.
fn adler32(adler: u32, data: &[u8]) -> u32 {
    // The most bytes summed before `b` can overflow 32 bits (zlib's NMAX).
    const NMAX: usize = 5552;
    let (mut a, mut b) = (adler & 0xffff, adler >> 16);
    for block in data.chunks(NMAX) {
        for &x in block {
            a += u32::from(x);
            b += a;
        }
        a %= ADLER_MOD;
        b %= ADLER_MOD;
    }
    a | b << 16
}

/// The Adler-32 of `A ‖ B` from that of `A`, that of `B` and `B`'s length (zlib's
/// `adler32_combine`).
fn adler32_combine(adler1: u32, adler2: u32, len2: u64) -> u32 {
    let rem = (len2 % u64::from(ADLER_MOD)) as u32;
    let mut sum1 = adler1 & 0xffff;
    let mut sum2 = (rem * sum1) % ADLER_MOD;
    sum1 += (adler2 & 0xffff) + ADLER_MOD - 1;
    sum2 += (adler1 >> 16) + (adler2 >> 16) + ADLER_MOD - rem;
    if sum1 >= ADLER_MOD {
        sum1 -= ADLER_MOD;
    }
    if sum1 >= ADLER_MOD {
        sum1 -= ADLER_MOD;
    }
    if sum2 >= ADLER_MOD << 1 {
        sum2 -= ADLER_MOD << 1;
    }
    if sum2 >= ADLER_MOD {
        sum2 -= ADLER_MOD;
    }
    sum1 | sum2 << 16
}

/// One encoded strip: its IDAT chunk (length, type, data, CRC), the Adler-32 of its filtered
/// bytes and their number.
struct Strip {
    chunk: Vec<u8>,
    adler: u32,
    len: u64,
}

/// Starts a chunk of type `kind` in `out` (its length to be filled in by [`end_chunk`]).
fn begin_chunk(out: &mut Vec<u8>, kind: &[u8; 4]) {
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(kind);
}

/// Fills in the length of the chunk that `out` holds and appends its CRC.
fn end_chunk(out: &mut Vec<u8>) {
    let len = u32::try_from(out.len() - 8).expect("a PNG chunk under 2 GiB");
    out[..4].copy_from_slice(&len.to_be_bytes());
    let mut crc = flate2::Crc::new();
    crc.update(&out[4..]);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

/// Stored Deflate blocks (non-final) of `data`, byte-aligned: 5 bytes of header per 65 535.
fn stored_size(n: usize) -> usize {
    n + 5 * n.div_ceil(0xffff).max(1)
}

/// Rows `y0..y1` of `row_len` bytes at `bpp` bytes per pixel (`fill(y, row)` writes row `y`),
/// filtered and compressed as described in the module docs, as an IDAT chunk; `first` puts the
/// zlib header before the blocks.
fn strip(
    y0: usize,
    y1: usize,
    row_len: usize,
    bpp: usize,
    first: bool,
    fill: &(impl Fn(usize, &mut [u8]) + Sync),
) -> Strip {
    let n_rows = y1 - y0;
    let filtered_len = n_rows * (row_len + 1);
    let mut raw = vec![0u8; n_rows * row_len];
    for (i, row) in raw.chunks_exact_mut(row_len).enumerate() {
        fill(y0 + i, row);
    }
    let mut out = Vec::with_capacity(filtered_len / 2 + 64);
    begin_chunk(&mut out, b"IDAT");
    if first {
        // CMF 0x78 (Deflate, 32 KiB window), FLG 0x01 (fastest; the check bits make it a
        // multiple of 31).
        out.extend_from_slice(&[0x78, 0x01]);
    }
    let start = out.len();
    let mut adler = 1u32;
    {
        let mut bits = Bits { out: &mut out, buf: 0, n: 0 };
        // The block header with BFINAL cleared, then its last 5 bits.
        bits.put(u64::from(BLOCK_HEADER[0] & !1), 8);
        for &b in &BLOCK_HEADER[1..51] {
            bits.put(u64::from(b), 8);
        }
        bits.put(u64::from(BLOCK_HEADER[51]), 5);
        let mut line = vec![0u8; row_len + 1];
        line[0] = 1; // Sub
        for row in raw.chunks_exact(row_len) {
            let b = bpp.min(row_len);
            line[1..1 + b].copy_from_slice(&row[..b]);
            for (o, (&x, &left)) in line[1 + b..].iter_mut().zip(row[b..].iter().zip(row)) {
                *o = x.wrapping_sub(left);
            }
            adler = adler32(adler, &line);
            bits.data(&line);
        }
        bits.literal_eob();
        // Sync flush: an empty stored block, ending on a byte boundary.
        bits.put(0, 3);
        bits.align();
    }
    out.extend_from_slice(&[0, 0, 0xff, 0xff]);
    if out.len() - start > stored_size(filtered_len) {
        // Stored is smaller: the rows unfiltered, in stored blocks of at most 65 535 bytes.
        out.truncate(start);
        let mut plain = Vec::with_capacity(filtered_len);
        for row in raw.chunks_exact(row_len) {
            plain.push(0); // filter None
            plain.extend_from_slice(row);
        }
        adler = adler32(1, &plain);
        for block in plain.chunks(0xffff) {
            let n = block.len() as u16;
            out.push(0); // BFINAL 0, BTYPE 00, padding
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&(!n).to_le_bytes());
            out.extend_from_slice(block);
        }
    }
    end_chunk(&mut out);
    Strip { chunk: out, adler, len: filtered_len as u64 }
}

impl Bits<'_> {
    /// The end-of-block symbol.
    fn literal_eob(&mut self) {
        self.put(u64::from(HUFFMAN_CODES[256]), u32::from(HUFFMAN_LENGTHS[256]));
    }
}

/// Writes a `width × height` PNG of colour type `color` at `bit_depth` bits per sample
/// (`channels` samples per pixel, 8 or 16 bits) to `w`: `fill(y, row)` writes row `y`'s raw
/// bytes (16-bit samples big-endian). The strips are encoded on the current rayon pool; the
/// bytes do not depend on its size.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_png(
    w: &mut impl Write,
    width: usize,
    height: usize,
    color_type: u8,
    channels: usize,
    bit_depth: u8,
    fill: impl Fn(usize, &mut [u8]) + Sync,
) -> std::io::Result<()> {
    debug_assert!(width > 0 && height > 0 && matches!(bit_depth, 8 | 16));
    let bpp = channels * usize::from(bit_depth) / 8;
    let row_len = width * bpp;
    let rows = strip_rows(row_len);
    let n = height.div_ceil(rows);
    let strips: Vec<Strip> = (0..n)
        .into_par_iter()
        .map(|i| strip(i * rows, ((i + 1) * rows).min(height), row_len, bpp, i == 0, &fill))
        .collect();
    let adler = strips.iter().fold(1u32, |a, s| adler32_combine(a, s.adler, s.len));

    w.write_all(b"\x89PNG\r\n\x1a\n")?;
    let mut ihdr = Vec::with_capacity(25);
    begin_chunk(&mut ihdr, b"IHDR");
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    // Depth, colour type, compression 0, filter method 0, no interlace.
    ihdr.extend_from_slice(&[bit_depth, color_type, 0, 0, 0]);
    end_chunk(&mut ihdr);
    w.write_all(&ihdr)?;
    for s in &strips {
        w.write_all(&s.chunk)?;
    }
    drop(strips);
    // The final block: empty, fixed Huffman (BFINAL 1, BTYPE 01, end of block), then the
    // Adler-32 of all the filtered bytes.
    let mut tail = Vec::with_capacity(18);
    begin_chunk(&mut tail, b"IDAT");
    tail.extend_from_slice(&[0x03, 0x00]);
    tail.extend_from_slice(&adler.to_be_bytes());
    end_chunk(&mut tail);
    w.write_all(&tail)?;
    let mut iend = Vec::with_capacity(12);
    begin_chunk(&mut iend, b"IEND");
    end_chunk(&mut iend);
    w.write_all(&iend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler_combines_as_over_the_whole() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let whole = adler32(1, &data);
        for cut in [0, 1, 5551, 5552, 65_521, 100_000, 200_000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(adler32_combine(adler32(1, a), adler32(1, b), b.len() as u64), whole, "cut {cut}");
        }
        // zlib's value for "Wikipedia".
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
    }

    /// Encodes `data` (`channels` samples of `depth` bits a pixel) with [`write_png`].
    fn encode(w: usize, h: usize, color: png::ColorType, depth: u8, data: &[u8]) -> Vec<u8> {
        let row = w * color.samples() * usize::from(depth) / 8;
        let mut out = Vec::new();
        write_png(&mut out, w, h, color as u8, color.samples(), depth, |y, r| {
            r.copy_from_slice(&data[y * row..(y + 1) * row])
        })
        .unwrap();
        out
    }

    /// Decodes `file` with the `png` crate (as our readers do), checking the CRCs, and the
    /// zlib stream of its IDATs with `flate2` (which checks the Adler-32).
    fn decode(file: &[u8]) -> (u32, u32, png::ColorType, png::BitDepth, Vec<u8>) {
        let mut dec = png::Decoder::new(std::io::Cursor::new(file));
        dec.set_transformations(png::Transformations::IDENTITY);
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        // The IDATs' zlib stream, decoded on its own.
        let (mut pos, mut z) = (8, Vec::new());
        while pos < file.len() {
            let len = u32::from_be_bytes(file[pos..pos + 4].try_into().unwrap()) as usize;
            if &file[pos + 4..pos + 8] == b"IDAT" {
                z.extend_from_slice(&file[pos + 8..pos + 8 + len]);
            }
            pos += 12 + len;
        }
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&z[..]), &mut raw).unwrap();
        let row = info.line_size;
        assert_eq!(raw.len(), (row + 1) * info.height as usize);
        (info.width, info.height, info.color_type, info.bit_depth, buf)
    }

    /// Pixels that mix flat runs of zeros, smooth ramps and noise that does not compress (so
    /// that both kinds of strip, compressed and stored, occur in one image).
    fn pixels(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                match (i / 50_000) % 3 {
                    0 => 0,
                    1 => (i / 7) as u8,
                    _ => x as u8,
                }
            })
            .collect()
    }

    #[test]
    fn decodes_to_the_pixels_for_every_type_and_shape() {
        use png::{BitDepth, ColorType};
        for (color, depth, bd) in [
            (ColorType::Grayscale, 8, BitDepth::Eight),
            (ColorType::Grayscale, 16, BitDepth::Sixteen),
            (ColorType::Rgb, 8, BitDepth::Eight),
        ] {
            let px = color.samples() * usize::from(depth) / 8;
            // Rows per strip at width 3000: heights below, at and past a strip's, and several.
            let rows = strip_rows(3000 * px);
            for (w, h) in [
                (1, 1),
                (1, 7),
                (7, 1),
                (1, 5000),
                (5000, 1),
                (3000, rows),
                (3000, rows + 1),
                (3000, 3 * rows - 1),
                (2999, 2 * rows + 5),
            ] {
                let data = pixels(w * h * px, (w * 31 + h) as u32);
                let file = encode(w, h, color, depth, &data);
                let (dw, dh, dc, dd, back) = decode(&file);
                assert_eq!((dw, dh, dc, dd), (w as u32, h as u32, color, bd), "{color:?} {depth} {w}×{h}");
                assert!(back == data, "{color:?} {depth} {w}×{h}: pixels differ");
            }
        }
    }

    #[test]
    fn noise_is_stored_and_flat_rows_compress() {
        let (w, h) = (1000, 2000);
        let rows = strip_rows(w);
        let mut data = pixels(w * h, 9);
        data[..w * rows].fill(0); // the first strip flat
        let file = encode(w, h, png::ColorType::Grayscale, 8, &data);
        assert_eq!(decode(&file).4, data);
        // Smaller than the pixels, larger than the noise would compress to.
        assert!(file.len() < w * h, "{}", file.len());
        // All noise: stored, a few bytes a strip over the pixels.
        let mut x = 0x9E37_79B9u32;
        let noise: Vec<u8> = (0..w * h)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 24) as u8
            })
            .collect();
        let stored = encode(w, h, png::ColorType::Grayscale, 8, &noise);
        assert!(stored.len() <= stored_size((w + 1) * h) + 40 * h.div_ceil(rows) + 100, "{}", stored.len());
        assert_eq!(decode(&stored).4, noise);
        let flat = encode(w, h, png::ColorType::Grayscale, 8, &vec![0; w * h]);
        assert!(flat.len() < 20_000, "{}", flat.len());
        assert_eq!(decode(&flat).4, vec![0; w * h]);
    }

    #[test]
    fn same_bytes_for_any_thread_count() {
        let (w, h) = (1500, 2100);
        let data = pixels(w * h * 3, 4);
        let run = |n: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            pool.install(|| encode(w, h, png::ColorType::Rgb, 8, &data))
        };
        let one = run(1);
        assert!(h.div_ceil(strip_rows(w * 3)) > 3, "several strips");
        assert_eq!(one, run(3));
        assert_eq!(one, run(2));
        assert_eq!(decode(&one).4, data);
    }

    #[test]
    fn length_symbols_follow_deflate() {
        assert_eq!(LEN_INDEX[0], 0); // 3 → 257
        assert_eq!(LEN_INDEX[10 - 3], 7); // 10 → 264
        assert_eq!(LEN_INDEX[11 - 3], 8); // 11 → 265 (+1 bit)
        assert_eq!(LEN_INDEX[257 - 3], 27); // 257 → 284 (+5 bits, 30)
        assert_eq!(LEN_INDEX[258 - 3], 28); // 258 → 285
    }
}
