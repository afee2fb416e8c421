//! The PNG encoder: rows cut into strips of a fixed number of rows, each strip filtered and
//! compressed on its own (in parallel), the strips' Deflate blocks joined into one zlib stream.
//!
//! # Layout
//!
//! `signature | IHDR | IDAT per strip | IDAT (stream end) | IEND`. A strip holds
//! [`strip_rows`] rows (about [`STRIP_BYTES`] filtered bytes; the number depends on the row
//! length only, never on the thread count), so the file's bytes are the same on any machine and
//! thread count. Each strip is one IDAT chunk holding its rows with PNG filter Sub, compressed by
//! [`crate::deflate_rle`] (runs and literals under dynamic Huffman codes, a compressor of its own
//! per strip) and ended with a sync flush (an empty stored block), so the strip ends on a byte boundary and the next
//! strip's blocks follow it byte for byte: the way parallel gzip tools join their pieces. The
//! first strip's chunk starts with the zlib header; the last IDAT holds the final empty block and
//! the Adler-32 of all the filtered bytes, combined from the strips' own checksums.
//!
//! A strip's matches refer only to its own bytes (each has its own compressor), so the strips
//! are independent and decode as one image.

use rayon::prelude::*;
use std::io::Write;

/// Filtered bytes aimed at per strip (rows of `1 + row length` bytes; at least one row).
pub(crate) const STRIP_BYTES: usize = 1 << 20;

/// Rows per strip for rows of `row_len` raw bytes: a function of the row length alone.
pub(crate) fn strip_rows(row_len: usize) -> usize {
    (STRIP_BYTES / (row_len + 1)).max(1)
}

const ADLER_MOD: u32 = 65521;

/// Adler-32 of `data` continuing from `adler` (the `simd-adler32` crate: vector sums where the
/// CPU has them, chosen at run time; a test holds it to the definition).
fn adler32(adler: u32, data: &[u8]) -> u32 {
    let mut h = simd_adler32::Adler32::from_checksum(adler);
    h.write(data);
    h.finish()
}

/// The Adler-32 of `A ‖ B` from that of `A`, that of `B` and `B`'s length. With `a = 1 + Σ x`
/// and `b = Σ a` after each byte (mod 65521): `a_AB = a_A + a_B − 1` and
/// `b_AB = b_A + b_B + len_B · (a_A − 1)`.
fn adler32_combine(adler1: u32, adler2: u32, len2: u64) -> u32 {
    let m = u64::from(ADLER_MOD);
    let (a1, b1) = (u64::from(adler1 & 0xffff), u64::from(adler1 >> 16));
    let (a2, b2) = (u64::from(adler2 & 0xffff), u64::from(adler2 >> 16));
    let a = (a1 + a2 + m - 1) % m;
    let b = (b1 + b2 + (len2 % m) * ((a1 + m - 1) % m)) % m;
    (a | b << 16) as u32
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
) -> std::io::Result<Strip> {
    let filtered_len = (y1 - y0) * (row_len + 1);
    let mut filtered = vec![0u8; filtered_len];
    let mut raw = vec![0u8; row_len];
    let b = bpp.min(row_len);
    for (i, line) in filtered.chunks_exact_mut(row_len + 1).enumerate() {
        fill(y0 + i, &mut raw);
        line[0] = 1; // Sub: each byte less the byte one pixel to its left
        line[1..1 + b].copy_from_slice(&raw[..b]);
        for k in b..row_len {
            line[1 + k] = raw[k].wrapping_sub(raw[k - b]);
        }
    }
    drop(raw);
    let adler = adler32(1, &filtered);
    let mut out = Vec::with_capacity(filtered_len / 2 + 64);
    begin_chunk(&mut out, b"IDAT");
    if first {
        // CMF 0x78 (Deflate, 32 KiB window), FLG 0x01 (fastest; the check bits make it a
        // multiple of 31).
        out.extend_from_slice(&[0x78, 0x01]);
    }
    crate::deflate_rle::compress(&filtered, &mut out);
    end_chunk(&mut out);
    Ok(Strip { chunk: out, adler, len: filtered_len as u64 })
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
        .collect::<std::io::Result<_>>()?;
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
        // The definition, reduced after every byte, on all-0xFF runs (the sums' worst case) and
        // the noise above, from a start that is not 1, at lengths about the vector widths.
        let by_definition = |adler: u32, d: &[u8]| {
            let (mut a, mut b) = (adler & 0xffff, adler >> 16);
            for &x in d {
                a = (a + u32::from(x)) % ADLER_MOD;
                b = (b + a) % ADLER_MOD;
            }
            a | b << 16
        };
        let ones = vec![0xFFu8; 300_000];
        for n in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 5552, 5553, 300_000] {
            for d in [&ones[..n], &data[..n.min(data.len())]] {
                assert_eq!(adler32(0xFFF0_FFF0, d), by_definition(0xFFF0_FFF0, d), "{n} bytes");
                assert_eq!(adler32(1, d), by_definition(1, d), "{n} bytes");
            }
        }
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
    fn noise_stays_near_its_size_and_flat_rows_compress() {
        let (w, h) = (1000, 2000);
        let rows = strip_rows(w);
        let mut data = pixels(w * h, 9);
        data[..w * rows].fill(0); // the first strip flat
        let file = encode(w, h, png::ColorType::Grayscale, 8, &data);
        assert_eq!(decode(&file).4, data);
        assert!(file.len() < w * h, "{}", file.len());
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
        // Noise does not compress: its literals take about 8 bits each under a dynamic code (a
        // few hundred bytes of code tables per block over the filtered rows); bounded at 8 %.
        assert!(stored.len() <= (w + 1) * h * 108 / 100, "{}", stored.len());
        assert_eq!(decode(&stored).4, noise);
        let flat = encode(w, h, png::ColorType::Grayscale, 8, &vec![0; w * h]);
        assert!(flat.len() < 40_000, "{}", flat.len()); // over 50× smaller
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
}
