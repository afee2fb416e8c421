//! Niantic SPZ, versions 2 and 3 (gzip): read, and write version 3 (the format of the
//! `nianticlabs/spz` README; splat-anchors §2.5).
//!
//! The file is one gzip stream. Inside, all little-endian: a 16-byte header `u32 magic
//! 0x5053474e ("NGSP")`, `u32 version`, `u32 numPoints`, `u8 shDegree (0–3 read)`, `u8
//! fractionalBits`, `u8 flags (0x1 antialiased)`, `u8 reserved`; then the attributes grouped by
//! kind, each for all points in order:
//!
//! | block | bytes per point | decoded as |
//! |---|---|---|
//! | positions | 9 | 3 × 24-bit signed fixed point, `/ 2^fractionalBits` |
//! | alphas | 1 | opacity `a / 255` (logit clipped to `[1e-6, 1 − 1e-6]`) |
//! | colours | 3 | `f_dc = (c / 255 − 0.5) / 0.15` |
//! | scales | 3 | `ln σ = c / 16 − 10` |
//! | rotations | v2: 3, v3: 4 | v2: `x, y, z = b / 127.5 − 1`, `w = √(1 − x² − y² − z²)`; v3: "smallest three" — a `u32` whose top 2 bits index the largest component (0 x, 1 y, 2 z, 3 w), then, from the lowest bits up, 10 bits for each other component from w down to x: 9-bit magnitude `m`, then a sign bit; value `±(m / 511)·(1/√2)`; the largest is `√(1 − Σ others²)` |
//! | SH | `3·((d+1)² − 1)` | coefficient-major, RGB fastest: `(b − 128) / 128` |
//!
//! Bytes after these blocks (extension records) are decompressed (so the gzip CRC is checked)
//! and ignored. Version 1 (float16 positions) and
//! version 4 (a plaintext `NGSP` header and ZSTD streams, the reference writer's current
//! default) are refused as unsupported: version 4 needs a ZSTD decoder, which this crate does
//! not carry. Coordinates are returned as stored: files written by the reference library from
//! PLY data are usually in its RUB frame (y up, z back), i.e. y and z flipped relative to 3DGS
//! PLY's RDF. Before allocating, `numPoints` is checked against [`crate::formats::MAX_SPLATS`] and the
//! decompressed size it implies against 1032 × the file size (deflate's largest ratio).
//!
//! [`write_spz`] writes version 3 with every value rounded to the nearest code (no extra SH
//! quantisation); positions use 12 fractional bits, fewer when a coordinate would not fit.

use crate::formats::error::{Result, SplatError};
use crate::formats::fsio::{atomic_write, open_nonempty};
use crate::formats::MAX_SPLATS;
use crate::model::{logit, RawSplat, Splats};
use crate::sh::rest_count;
use flate2::read::GzDecoder;
use std::io::{BufReader, Read, Write};
use std::path::Path;

const FMT: &str = "SPZ";
const MAGIC: u32 = 0x5053_474e;
const COLOR_SCALE: f64 = 0.15;
const SQRT1_2: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Read an SPZ (v2/v3, gzip) file.
pub fn read_spz(path: &Path) -> Result<Splats> {
    let (file, len) = open_nonempty(path)?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 4];
    let got = r.read(&mut magic).map_err(|e| SplatError::io(path, e))?;
    if got >= 4 && u32::from_le_bytes(magic) == MAGIC {
        return Err(SplatError::unsupported(
            path,
            "SPZ version 4 (ZSTD streams); only gzip SPZ (versions 2 and 3) is read",
        ));
    }
    if got < 2 || magic[..2] != [0x1f, 0x8b] {
        return Err(SplatError::wrong_magic(path, "SPZ (gzip)"));
    }
    let chained = std::io::Cursor::new(magic[..got].to_vec()).chain(r);
    decode(path, GzDecoder::new(chained), len)
}

/// Parse SPZ bytes held in memory; `name` is used in error messages.
pub fn parse_spz(bytes: &[u8], name: &Path) -> Result<Splats> {
    if bytes.is_empty() {
        return Err(SplatError::empty(name, "zero-byte file"));
    }
    if bytes.len() >= 4 && u32::from_le_bytes(bytes[..4].try_into().unwrap()) == MAGIC {
        return Err(SplatError::unsupported(
            name,
            "SPZ version 4 (ZSTD streams); only gzip SPZ (versions 2 and 3) is read",
        ));
    }
    if bytes.len() < 2 || bytes[..2] != [0x1f, 0x8b] {
        return Err(SplatError::wrong_magic(name, "SPZ (gzip)"));
    }
    decode(name, GzDecoder::new(bytes), bytes.len() as u64)
}

fn gz_err(path: &Path, e: std::io::Error) -> SplatError {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => SplatError::truncated(path, "gzip stream ends early"),
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
            SplatError::malformed(path, FMT, format!("gzip stream: {e}"))
        }
        _ => SplatError::io(path, e),
    }
}

fn decode(path: &Path, mut r: impl Read, file_len: u64) -> Result<Splats> {
    let mut h = [0u8; 16];
    r.read_exact(&mut h).map_err(|e| gz_err(path, e))?;
    let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().unwrap());
    if u32_at(0) != MAGIC {
        return Err(SplatError::wrong_magic(path, "SPZ"));
    }
    let version = u32_at(4);
    if !(2..=3).contains(&version) {
        return Err(SplatError::unsupported(path, format!("SPZ version {version}; versions 2 and 3 are read")));
    }
    let n = u64::from(u32_at(8));
    let (degree, frac) = (h[12], h[13]);
    if degree > 3 {
        return Err(SplatError::unsupported(path, format!("SH degree {degree}; degrees 0–3 are read")));
    }
    if frac > 24 {
        return Err(SplatError::malformed(path, FMT, format!("{frac} fractional bits (at most 24)")));
    }
    if n == 0 {
        return Err(SplatError::empty(path, "SPZ point count is 0"));
    }
    if n > MAX_SPLATS {
        return Err(SplatError::too_many(path, "SPZ point count", n));
    }
    let k = rest_count(degree);
    let rot_bytes: u64 = if version >= 3 { 4 } else { 3 };
    let per = 9 + 1 + 3 + 3 + rot_bytes + 3 * k as u64;
    let need = n * per;
    if need > file_len.saturating_mul(1032).saturating_add(1024) {
        return Err(SplatError::truncated(
            path,
            format!("{n} points need {need} bytes, more than {file_len} compressed bytes can hold"),
        ));
    }
    // Grow with the data that really inflates (not the header's claim), at most `need` bytes.
    let mut body = Vec::with_capacity(need.min(1 << 20) as usize);
    (&mut r).take(need).read_to_end(&mut body).map_err(|e| gz_err(path, e))?;
    if (body.len() as u64) < need {
        return Err(SplatError::truncated(
            path,
            format!("{n} points need {need} bytes after the header, the stream holds {}", body.len()),
        ));
    }
    // Read the rest (extension records) to the end so that gzip checks its CRC.
    std::io::copy(&mut r, &mut std::io::sink()).map_err(|e| gz_err(path, e))?;
    let n = n as usize;
    let (pos, rest) = body.split_at(9 * n);
    let (alpha, rest) = rest.split_at(n);
    let (col, rest) = rest.split_at(3 * n);
    let (scl, rest) = rest.split_at(3 * n);
    let (rot, shb) = rest.split_at(rot_bytes as usize * n);
    let inv = 1.0 / f64::from(1u32 << frac);
    let mut s = Splats::with_capacity(n, degree);
    let mut coefs = vec![[0.0f32; 3]; k];
    for i in 0..n {
        let mut p = [0.0f32; 3];
        for (a, v) in p.iter_mut().enumerate() {
            let b = &pos[9 * i + 3 * a..9 * i + 3 * a + 3];
            let raw = i32::from(b[0]) | i32::from(b[1]) << 8 | i32::from(b[2]) << 16;
            let signed = if raw & 0x80_0000 != 0 { raw - 0x100_0000 } else { raw };
            *v = (f64::from(signed) * inv) as f32;
        }
        let q = if version >= 3 {
            unpack_smallest_three(u32::from_le_bytes(rot[4 * i..4 * i + 4].try_into().unwrap()))
        } else {
            let c = |b: u8| f64::from(b) / 127.5 - 1.0;
            let (x, y, z) = (c(rot[3 * i]), c(rot[3 * i + 1]), c(rot[3 * i + 2]));
            [(1.0 - x * x - y * y - z * z).max(0.0).sqrt(), x, y, z]
        };
        for (j, c) in coefs.iter_mut().enumerate() {
            let o = (i * k + j) * 3;
            *c = [0, 1, 2].map(|ch| ((f64::from(shb[o + ch]) - 128.0) / 128.0) as f32);
        }
        s.push_raw(RawSplat {
            position: p,
            log_scale: [0, 1, 2].map(|a| (f64::from(scl[3 * i + a]) / 16.0 - 10.0) as f32),
            rotation: q.map(|v| v as f32),
            opacity_logit: logit(f32::from(alpha[i]) / 255.0),
            sh_dc: [0, 1, 2].map(|c| ((f64::from(col[3 * i + c]) / 255.0 - 0.5) / COLOR_SCALE) as f32),
            sh_rest: &coefs,
        });
    }
    crate::formats::ply::check_positions(path, &s)?;
    Ok(s)
}

/// Decode a v3 "smallest three" rotation into `(w, x, y, z)`.
fn unpack_smallest_three(packed: u32) -> [f64; 4] {
    let largest = (packed >> 30) as usize;
    let mut xyzw = [0.0f64; 4];
    let mut bits = packed;
    let mut sum = 0.0;
    for axis in (0..4).rev() {
        if axis == largest {
            continue;
        }
        let mag = f64::from(bits & 0x1ff) / 511.0 * SQRT1_2;
        let v = if (bits >> 9) & 1 == 1 { -mag } else { mag };
        bits >>= 10;
        xyzw[axis] = v;
        sum += v * v;
    }
    xyzw[largest] = (1.0 - sum).max(0.0).sqrt();
    [xyzw[3], xyzw[0], xyzw[1], xyzw[2]]
}

/// Encode the unit quaternion `(w, x, y, z)` as a v3 "smallest three" `u32`.
fn pack_smallest_three(q: [f32; 4]) -> u32 {
    let mut xyzw = [q[1], q[2], q[3], q[0]].map(f64::from);
    let largest = (0..4).fold(0, |b, a| if xyzw[a].abs() > xyzw[b].abs() { a } else { b });
    if xyzw[largest] < 0.0 {
        xyzw.iter_mut().for_each(|v| *v = -*v);
    }
    let mut packed = 0u32;
    for (a, v) in xyzw.iter().enumerate() {
        if a == largest {
            continue;
        }
        let mag = (511.0 * v.abs() / SQRT1_2).round().clamp(0.0, 511.0) as u32;
        packed = (packed << 10) | (u32::from(*v < 0.0) << 9) | mag;
    }
    packed | (largest as u32) << 30
}

fn code(v: f64) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// The uncompressed SPZ v3 payload (header and blocks) of `s`.
fn payload(s: &Splats) -> Vec<u8> {
    let n = s.len();
    let k = s.sh_rest().len();
    let max_abs = s.positions().iter().flatten().fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
    let mut frac = 12u8;
    while frac > 0 && max_abs * f64::from(1u32 << frac) > f64::from((1u32 << 23) - 1) {
        frac -= 1;
    }
    let mut out = Vec::with_capacity(16 + n * (20 + 3 * k));
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&[s.sh_degree(), frac, 0, 0]);
    let scale = f64::from(1u32 << frac);
    for p in s.positions() {
        for v in p {
            let fx = (f64::from(*v) * scale).round().clamp(-f64::from(1 << 23), f64::from((1 << 23) - 1)) as i32;
            out.extend_from_slice(&(fx as u32).to_le_bytes()[..3]);
        }
    }
    out.extend(s.opacities().iter().map(|a| code(f64::from(*a) * 255.0)));
    for dc in s.sh_dc() {
        out.extend(dc.iter().map(|c| code(f64::from(*c) * COLOR_SCALE * 255.0 + 127.5)));
    }
    for l in s.log_scales() {
        out.extend(l.iter().map(|v| code((f64::from(*v) + 10.0) * 16.0)));
    }
    for q in s.rotations() {
        out.extend_from_slice(&pack_smallest_three(*q).to_le_bytes());
    }
    for i in 0..n {
        for plane in s.sh_rest() {
            out.extend(plane[i].iter().map(|v| code(f64::from(*v) * 128.0 + 128.0)));
        }
    }
    out
}

/// The bytes of `s` as SPZ version 3 (gzip).
pub fn encode_spz(s: &Splats) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&payload(s)).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// Write `s` as SPZ version 3, atomically. Refuses an empty set.
pub fn write_spz(path: &Path, s: &Splats) -> Result<()> {
    if s.is_empty() {
        return Err(SplatError::invalid(path, "no splats to write"));
    }
    let bytes = encode_spz(s);
    atomic_write(path, |w| w.write_all(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_three_round_trips_within_quantisation() {
        for q in [[1.0f32, 0.0, 0.0, 0.0], [0.5, -0.5, 0.5, -0.5], [0.1, 0.9, -0.3, 0.2], [-0.2, 0.1, 0.3, -0.9]] {
            let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            let q = q.map(|v| v / n);
            let back = unpack_smallest_three(pack_smallest_three(q));
            let dot: f64 = (0..4).map(|i| f64::from(q[i]) * back[i]).sum();
            assert!(dot.abs() > 0.9999, "{q:?} → {back:?}");
        }
    }
}
