//! `.splat` (antimatter15/splat; splat-anchors §2.2, inventory §1.2): 32 bytes per splat,
//! little-endian, no header, count = file size / 32.
//!
//! | bytes | content |
//! |---|---|
//! | 0..12 | position, 3 × f32 |
//! | 12..24 | scale σ, 3 × f32, **linear** (`exp` of the PLY's log scale) |
//! | 24..28 | R, G, B = `round(clip(0.5 + C0·f_dc, 0, 1)·255)`, A = `round(sigmoid(opacity)·255)` |
//! | 28..32 | rotation (w, x, y, z) of the unit quaternion, each `clip(round(q·128 + 128), 0, 255)` |
//!
//! No SH above degree 0. Reading decodes `q = (b − 128)/128` (kept raw, normalised in the
//! model), `f_dc = (rgb/255 − 0.5)/C0`, opacity `a/255` (logit clipped to `[1e-6, 1 − 1e-6]`),
//! log scale `ln(max(σ, 1e-20))`. Rows are written in the model's order (no size sort).

use crate::formats::error::{Result, SplatError};
use crate::formats::fsio::{atomic_write, open_nonempty};
use crate::formats::MAX_SPLATS;
use crate::model::{log_scale, logit, RawSplat, Splats};
use crate::sh::SH_C0;
use std::io::{BufReader, Read, Write};
use std::path::Path;

/// Bytes per splat.
pub const ROW: usize = 32;

fn unit_byte(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The 32 bytes of splat `i`.
pub fn encode_row(s: &Splats, i: usize) -> [u8; ROW] {
    let mut b = [0u8; ROW];
    for a in 0..3 {
        b[4 * a..4 * a + 4].copy_from_slice(&s.positions()[i][a].to_le_bytes());
        b[12 + 4 * a..16 + 4 * a].copy_from_slice(&s.scales()[i][a].to_le_bytes());
    }
    for c in 0..3 {
        b[24 + c] = unit_byte(0.5 + SH_C0 * f64::from(s.sh_dc()[i][c]));
    }
    b[27] = unit_byte(f64::from(s.opacities()[i]));
    for (k, q) in s.rotations()[i].iter().enumerate() {
        b[28 + k] = (f64::from(*q) * 128.0 + 128.0).round().clamp(0.0, 255.0) as u8;
    }
    b
}

/// Encode every splat.
pub fn encode_splat(s: &Splats) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * ROW);
    for i in 0..s.len() {
        out.extend_from_slice(&encode_row(s, i));
    }
    out
}

/// Write `s` as `.splat`, atomically. Refuses an empty set.
pub fn write_splat(path: &Path, s: &Splats) -> Result<()> {
    if s.is_empty() {
        return Err(SplatError::invalid(path, "no splats to write"));
    }
    atomic_write(path, |w| {
        for i in 0..s.len() {
            w.write_all(&encode_row(s, i))?;
        }
        Ok(())
    })
}

/// Decode one row; `false` when its linear scale holds a NaN (which `log_scale` would otherwise
/// turn into the smallest scale).
fn decode_row(s: &mut Splats, b: &[u8]) -> bool {
    let f = |o: usize| f32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let scale_ok = !(f(12).is_nan() || f(16).is_nan() || f(20).is_nan());
    let dc = |c: u8| ((f64::from(c) / 255.0 - 0.5) / SH_C0) as f32;
    let q = |c: u8| (f32::from(c) - 128.0) / 128.0;
    s.push_raw(RawSplat {
        position: [f(0), f(4), f(8)],
        log_scale: [log_scale(f(12)), log_scale(f(16)), log_scale(f(20))],
        rotation: [q(b[28]), q(b[29]), q(b[30]), q(b[31])],
        opacity_logit: logit(f32::from(b[27]) / 255.0),
        sh_dc: [dc(b[24]), dc(b[25]), dc(b[26])],
        sh_rest: &[],
    });
    scale_ok
}

/// Refuse the splats when some row had a NaN scale: first row `first`, `count` rows.
fn check_scales(path: &Path, nan: Option<(usize, usize)>) -> Result<()> {
    match nan {
        Some((index, count)) => Err(SplatError::NonFinite { path: path.to_path_buf(), what: "scale", count, index }),
        None => Ok(()),
    }
}

/// Note row `i` in `nan` (first bad row, count) when its scale was NaN.
fn note(nan: &mut Option<(usize, usize)>, i: usize, ok: bool) {
    if !ok {
        let e = nan.get_or_insert((i, 0));
        e.1 += 1;
    }
}

/// Parse `.splat` bytes; `name` is used in error messages.
pub fn parse_splat(bytes: &[u8], name: &Path) -> Result<Splats> {
    check_len(name, bytes.len() as u64)?;
    let mut s = Splats::with_capacity(bytes.len() / ROW, 0);
    let mut nan = None;
    for (i, row) in bytes.chunks_exact(ROW).enumerate() {
        let ok = decode_row(&mut s, row);
        note(&mut nan, i, ok);
    }
    crate::formats::ply::check_positions(name, &s)?;
    check_scales(name, nan)?;
    Ok(s)
}

fn check_len(path: &Path, len: u64) -> Result<()> {
    if len == 0 {
        return Err(SplatError::empty(path, "zero-byte file"));
    }
    if !len.is_multiple_of(ROW as u64) {
        return Err(SplatError::malformed(
            path,
            ".splat",
            format!("{len} bytes is not a whole number of 32-byte rows"),
        ));
    }
    if len / ROW as u64 > MAX_SPLATS {
        return Err(SplatError::too_many(path, ".splat rows", len / ROW as u64));
    }
    Ok(())
}

/// Read a `.splat` file.
pub fn read_splat(path: &Path) -> Result<Splats> {
    let (file, len) = open_nonempty(path)?;
    check_len(path, len)?;
    let n = (len / ROW as u64) as usize;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut s = Splats::with_capacity(n, 0);
    let mut buf = vec![0u8; ROW * 32_768];
    let mut left = n;
    let mut nan = None;
    while left > 0 {
        let m = left.min(32_768);
        r.read_exact(&mut buf[..m * ROW]).map_err(|e| SplatError::io(path, e))?;
        for row in buf[..m * ROW].chunks_exact(ROW) {
            let ok = decode_row(&mut s, row);
            note(&mut nan, s.len() - 1, ok);
        }
        left -= m;
    }
    crate::formats::ply::check_positions(path, &s)?;
    check_scales(path, nan)?;
    Ok(s)
}
