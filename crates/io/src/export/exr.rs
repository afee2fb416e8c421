//! Minimal OpenEXR: one float32 channel, uncompressed, scanline, single part.
//!
//! Layout (all integers little-endian), from the OpenEXR file layout specification:
//! 1. magic `0x762f3101` (bytes `76 2f 31 01`), then the version field `2` (flags 0: scanline,
//!    short names, single part);
//! 2. header attributes, each `name\0 type\0 size:i32 value`, then a `0` byte:
//!    `channels` (`chlist`: `name\0`, pixel type `2` = FLOAT, pLinear `0`, 3 reserved bytes,
//!    x/y sampling `1`, then `\0`), `compression` (`compression`, 1 byte: `0` = NONE),
//!    `dataWindow` and `displayWindow` (`box2i`: xMin, yMin, xMax, yMax = `0, 0, w−1, h−1`),
//!    `lineOrder` (`lineOrder`, 1 byte: `0` = increasing y), `pixelAspectRatio` (`float` 1),
//!    `screenWindowCenter` (`v2f` 0, 0), `screenWindowWidth` (`float` 1);
//! 3. the offset table: one `u64` absolute file offset per scanline (one line per chunk
//!    without compression);
//! 4. the scanlines: `y:i32`, byte count `4·w:i32`, then `w` float32 samples.
//!
//! [`read_exr_f32`] reads back exactly this subset (any single FLOAT channel, NONE compression,
//! increasing or unordered lines) and refuses anything else naming the file.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use crate::limits::check_raster_size;
use bozkir_core::Grid;
use std::path::Path;

/// The OpenEXR magic number.
pub const EXR_MAGIC: u32 = 20_000_630;
const FORMAT: &str = "OpenEXR";

fn attribute(out: &mut Vec<u8>, name: &str, kind: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(kind.as_bytes());
    out.push(0);
    out.extend_from_slice(&(value.len() as i32).to_le_bytes());
    out.extend_from_slice(value);
}

fn box2i(w: usize, h: usize) -> Vec<u8> {
    [0i32, 0, w as i32 - 1, h as i32 - 1].iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The bytes of an OpenEXR file holding `grid` in channel `channel` (e.g. `"R"`, `"Y"`).
/// Panics if `channel` is empty or holds a NUL byte.
pub fn encode_exr_f32(grid: &Grid<f32>, channel: &str) -> Vec<u8> {
    assert!(!channel.is_empty() && !channel.contains('\0'), "EXR channel name must be non-empty without NUL");
    let (w, h) = (grid.width(), grid.height());
    let mut out = Vec::with_capacity(512 + h * (16 + 4 * w));
    out.extend_from_slice(&EXR_MAGIC.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    let mut chlist = Vec::new();
    chlist.extend_from_slice(channel.as_bytes());
    chlist.push(0);
    chlist.extend_from_slice(&2i32.to_le_bytes());
    chlist.extend_from_slice(&[0, 0, 0, 0]);
    chlist.extend_from_slice(&1i32.to_le_bytes());
    chlist.extend_from_slice(&1i32.to_le_bytes());
    chlist.push(0);
    attribute(&mut out, "channels", "chlist", &chlist);
    attribute(&mut out, "compression", "compression", &[0]);
    attribute(&mut out, "dataWindow", "box2i", &box2i(w, h));
    attribute(&mut out, "displayWindow", "box2i", &box2i(w, h));
    attribute(&mut out, "lineOrder", "lineOrder", &[0]);
    attribute(&mut out, "pixelAspectRatio", "float", &1f32.to_le_bytes());
    let centre: Vec<u8> = [0f32, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    attribute(&mut out, "screenWindowCenter", "v2f", &centre);
    attribute(&mut out, "screenWindowWidth", "float", &1f32.to_le_bytes());
    out.push(0);
    let line_bytes = 8 + 4 * w;
    let first = (out.len() + 8 * h) as u64;
    for y in 0..h {
        out.extend_from_slice(&(first + (y * line_bytes) as u64).to_le_bytes());
    }
    for y in 0..h {
        out.extend_from_slice(&(y as i32).to_le_bytes());
        out.extend_from_slice(&((4 * w) as i32).to_le_bytes());
        for v in grid.row(y) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Write `grid` as a single-channel float32 OpenEXR (see the module documentation).
pub fn write_exr_f32(path: impl AsRef<Path>, grid: &Grid<f32>, channel: &str) -> Result<()> {
    let path = path.as_ref();
    check_raster_size(path, grid.width() as u64, grid.height() as u64)?;
    if grid.width() > i32::MAX as usize / 4 {
        return Err(IoError::invalid(path, "EXR scanline too long"));
    }
    if channel.is_empty() || channel.contains('\0') {
        return Err(IoError::invalid(path, format!("EXR channel name {channel:?}")));
    }
    let bytes = encode_exr_f32(grid, channel);
    atomic_write(path, |w| write_all(path, w, &bytes))
}

struct Cursor<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(IoError::truncated(self.path, format!("{n} bytes needed at offset {}", self.pos)));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn cstr(&mut self) -> Result<&'a str> {
        let rest = &self.bytes[self.pos..];
        let end =
            rest.iter().position(|&b| b == 0).ok_or_else(|| IoError::truncated(self.path, "unterminated name"))?;
        let s =
            std::str::from_utf8(&rest[..end]).map_err(|_| IoError::malformed(self.path, FORMAT, "non-UTF-8 name"))?;
        self.pos += end + 1;
        Ok(s)
    }
}

/// Read a single-channel float32 uncompressed scanline OpenEXR; returns the grid (cell size 1)
/// and the channel name.
pub fn read_exr_f32(path: impl AsRef<Path>) -> Result<(Grid<f32>, String)> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| IoError::io(path, e))?;
    decode_exr_f32(path, &bytes)
}

/// Parse the bytes of an OpenEXR file (see [`read_exr_f32`]); `path` names it in errors.
pub fn decode_exr_f32(path: &Path, bytes: &[u8]) -> Result<(Grid<f32>, String)> {
    if bytes.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "zero-byte file".into() });
    }
    let mut c = Cursor { path, bytes, pos: 0 };
    if bytes.len() < 4 || c.take(4)? != EXR_MAGIC.to_le_bytes() {
        return Err(IoError::WrongMagic { path: path.to_path_buf(), format: FORMAT });
    }
    let version = c.i32()?;
    if version & 0xff != 2 || version & !0xff & !0x400 != 0 {
        return Err(IoError::unsupported(
            path,
            format!("OpenEXR version field {version:#x} (scanline single part only)"),
        ));
    }
    let (mut channel, mut window, mut compression, mut line_order) = (None, None, None, 0u8);
    loop {
        let name = c.cstr()?;
        if name.is_empty() {
            break;
        }
        let kind = c.cstr()?;
        let size = c.i32()?;
        let size = usize::try_from(size).map_err(|_| IoError::malformed(path, FORMAT, "negative attribute size"))?;
        let value = c.take(size)?;
        let mut v = Cursor { path, bytes: value, pos: 0 };
        match (name, kind) {
            ("channels", "chlist") => {
                let ch = v.cstr()?.to_string();
                let ty = v.i32()?;
                v.take(4)?;
                let (xs, ys) = (v.i32()?, v.i32()?);
                if v.take(1)? != [0] {
                    return Err(IoError::unsupported(path, "more than one OpenEXR channel"));
                }
                if ty != 2 || xs != 1 || ys != 1 {
                    return Err(IoError::unsupported(path, format!("OpenEXR pixel type {ty}, sampling {xs}×{ys}")));
                }
                channel = Some(ch);
            }
            ("compression", "compression") => compression = Some(v.take(1)?[0]),
            ("dataWindow", "box2i") => window = Some([v.i32()?, v.i32()?, v.i32()?, v.i32()?]),
            ("lineOrder", "lineOrder") => line_order = v.take(1)?[0],
            _ => {}
        }
    }
    let channel = channel.ok_or_else(|| IoError::missing(path, "OpenEXR attribute \"channels\""))?;
    let [x0, y0, x1, y1] = window.ok_or_else(|| IoError::missing(path, "OpenEXR attribute \"dataWindow\""))?;
    match compression {
        Some(0) => {}
        Some(k) => return Err(IoError::unsupported(path, format!("OpenEXR compression {k} (only NONE)"))),
        None => return Err(IoError::missing(path, "OpenEXR attribute \"compression\"")),
    }
    if line_order > 2 {
        return Err(IoError::malformed(path, FORMAT, format!("line order {line_order}")));
    }
    let (w64, h64) = (i64::from(x1) - i64::from(x0) + 1, i64::from(y1) - i64::from(y0) + 1);
    if w64 <= 0 || h64 <= 0 {
        return Err(IoError::malformed(path, FORMAT, format!("data window {x0},{y0}–{x1},{y1}")));
    }
    let (w, h) = check_raster_size(path, w64 as u64, h64 as u64)?;
    let table = c.take(8 * h)?;
    let mut data = vec![0f32; w * h];
    let mut seen = vec![false; h];
    for entry in table.chunks_exact(8) {
        let off = u64::from_le_bytes(entry.try_into().expect("8 bytes"));
        let off = usize::try_from(off).ok().filter(|&o| o < bytes.len());
        let off = off.ok_or_else(|| IoError::truncated(path, "scanline offset beyond the end of the file"))?;
        let mut l = Cursor { path, bytes, pos: off };
        let y = i64::from(l.i32()?) - i64::from(y0);
        let n = l.i32()?;
        if !(0..h as i64).contains(&y) || n as i64 != 4 * w as i64 {
            return Err(IoError::malformed(path, FORMAT, format!("scanline y {y}, {n} bytes")));
        }
        let y = y as usize;
        for (dst, src) in data[y * w..(y + 1) * w].iter_mut().zip(l.take(4 * w)?.chunks_exact(4)) {
            *dst = f32::from_le_bytes(src.try_into().expect("4 bytes"));
        }
        seen[y] = true;
    }
    if let Some(y) = seen.iter().position(|s| !s) {
        return Err(IoError::missing(path, format!("OpenEXR scanline {y}")));
    }
    Ok((Grid::from_vec(w, h, data), channel))
}
