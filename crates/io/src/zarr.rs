//! Zarr v2 and v3 directory stores, read by hand: the metadata is JSON, the chunks are files.
//!
//! Supported: a group of arrays or a single array; a regular chunk grid; C order; integer and
//! float data types of 1–8 bytes in either byte order; chunk keys of v2 (`0.1`, or `0/1` with
//! `dimension_separator` `/`) and v3 (`default`: `c/0/1` or `c.0.1`; `v2`: `0.1`); missing chunks
//! are the fill value. Compression: none, Blosc (through the pure-Rust `blusc`), zstd, gzip,
//! zlib and numcodecs' LZ4 (v2 compressors), and v3's `bytes` codec followed by `gzip`, `zstd`,
//! `blosc` and `crc32c` (checked). Refused, naming them: v2 filters, Fortran order, v3
//! transposes, sharding, other codecs and data types. (The `zarrs` crate reads all of these,
//! but it turns on `serde_json`'s `preserve_order` for the whole program, which changes the
//! bytes of every JSON file bozkir writes.)

use crate::error::{IoError, Result};
use crate::limits::{MAX_CELLS, MAX_NPY_BYTES};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The element type of an array: kind (`i`, `u`, `f`), size in bytes, little-endian or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dtype {
    pub kind: char,
    pub size: usize,
    pub little: bool,
}

/// How a chunk's stored bytes become the array's bytes.
#[derive(Debug, Clone, PartialEq)]
enum Codec {
    Blosc,
    Zstd,
    Gzip,
    Zlib,
    Lz4,
    /// v3's `crc32c`: four checksum bytes at the end.
    Crc32c,
}

/// One array of a store, as its metadata describes it.
#[derive(Debug, Clone)]
pub(crate) struct ZarrArray {
    /// Path of the array's folder inside the store (`""` for a store that is one array).
    pub name: String,
    pub shape: Vec<usize>,
    pub dims: Option<Vec<String>>,
    pub attrs: serde_json::Map<String, Value>,
    pub dtype: Dtype,
    /// v2's `fill_value` (`None` when null); v3's is kept apart: it is not a nodata value.
    pub v2_fill: Option<f64>,
    fill: f64,
    chunks: Vec<usize>,
    /// Stored-bytes decoders, in the order they are undone.
    codecs: Vec<Codec>,
    /// Chunk key from the chunk's indices.
    key_prefix: &'static str,
    separator: String,
    dir: PathBuf,
}

fn bad(path: &Path, detail: impl Into<String>) -> IoError {
    IoError::malformed(path, "Zarr", detail)
}

fn read_json(path: &Path, file: &Path) -> Result<Option<Value>> {
    match std::fs::read(file) {
        Ok(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| bad(path, format!("{}: {e}", file.strip_prefix(path).unwrap_or(file).display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(IoError::io(file, e)),
    }
}

/// `"NaN"`, `"Infinity"`, `"-Infinity"`, numbers; anything else (null, base64 bytes) `None`.
pub(crate) fn json_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// A v2 `dtype` (`<i2`, `>f8`, `|u1`) or a v3 `data_type` (`int16`, `float32`).
pub(crate) fn parse_dtype(s: &str, v3_little: bool) -> Option<Dtype> {
    if let Some(rest) = s.strip_prefix(['<', '>', '|']) {
        let kind = rest.chars().next().filter(|k| matches!(k, 'i' | 'u' | 'f'))?;
        let size: usize = rest[1..].parse().ok()?;
        let ok = match kind {
            'f' => matches!(size, 4 | 8),
            _ => matches!(size, 1 | 2 | 4 | 8),
        };
        return ok.then_some(Dtype { kind, size, little: !s.starts_with('>') });
    }
    let (kind, bits) =
        [("uint", 'u'), ("int", 'i'), ("float", 'f')].iter().find_map(|(p, k)| s.strip_prefix(p).map(|b| (*k, b)))?;
    let size = bits.parse::<usize>().ok()? / 8;
    let ok = match kind {
        'f' => matches!(size, 4 | 8),
        _ => matches!(size, 1 | 2 | 4 | 8),
    };
    ok.then_some(Dtype { kind, size, little: v3_little })
}

fn shape_of(path: &Path, v: Option<&Value>, what: &str) -> Result<Vec<usize>> {
    let arr = v.and_then(Value::as_array).ok_or_else(|| bad(path, format!("no {what} list")))?;
    arr.iter()
        .map(|x| {
            x.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad(path, format!("{what}: {x} is not a size")))
        })
        .collect()
}

/// A JSON list of dimension names (v3's `dimension_names`, xarray's `_ARRAY_DIMENSIONS`; a
/// null name becomes `""`).
fn dimension_names(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|d| d.iter().map(|x| x.as_str().unwrap_or("").to_string()).collect())
}

fn v2_codec(path: &Path, name: &str, c: &Value) -> Result<Option<Codec>> {
    if c.is_null() {
        return Ok(None);
    }
    match c.get("id").and_then(Value::as_str) {
        Some("blosc") => Ok(Some(Codec::Blosc)),
        Some("zstd") => Ok(Some(Codec::Zstd)),
        Some("gzip") => Ok(Some(Codec::Gzip)),
        Some("zlib") => Ok(Some(Codec::Zlib)),
        Some("lz4") => Ok(Some(Codec::Lz4)),
        other => Err(IoError::unsupported(path, format!("Zarr compressor {} of {name}", other.unwrap_or("(no id)")))),
    }
}

/// The array whose metadata lies in `dir` (`name` its path in the store), or `None` when
/// `dir` holds no array.
fn open_array(path: &Path, dir: &Path, name: &str) -> Result<Option<ZarrArray>> {
    let label = if name.is_empty() { "the store's array".to_string() } else { name.to_string() };
    if let Some(md) = read_json(path, &dir.join(".zarray"))? {
        let shape = shape_of(path, md.get("shape"), "shape")?;
        let chunks = shape_of(path, md.get("chunks"), "chunks")?;
        let dtype_s = md.get("dtype").and_then(Value::as_str).unwrap_or("");
        let dtype = parse_dtype(dtype_s, true)
            .ok_or_else(|| IoError::unsupported(path, format!("Zarr data type {dtype_s:?} of {label}")))?;
        if md.get("order").and_then(Value::as_str).unwrap_or("C") != "C" {
            return Err(IoError::unsupported(path, format!("Zarr Fortran order of {label}")));
        }
        if md.get("filters").is_some_and(|f| !f.is_null() && f.as_array().is_none_or(|a| !a.is_empty())) {
            return Err(IoError::unsupported(path, format!("Zarr filters of {label}: {}", md["filters"])));
        }
        let codecs = v2_codec(path, &label, md.get("compressor").unwrap_or(&Value::Null))?.into_iter().collect();
        let separator = md.get("dimension_separator").and_then(Value::as_str).unwrap_or(".").to_string();
        let attrs = read_json(path, &dir.join(".zattrs"))?.and_then(|a| a.as_object().cloned()).unwrap_or_default();
        let v2_fill = md.get("fill_value").and_then(json_number);
        let dims = dimension_names(attrs.get("_ARRAY_DIMENSIONS"));
        let a = ZarrArray {
            name: name.into(),
            shape,
            dims,
            attrs,
            dtype,
            v2_fill,
            fill: v2_fill.unwrap_or(0.0),
            chunks,
            codecs,
            key_prefix: "",
            separator,
            dir: dir.to_path_buf(),
        };
        return check(path, a).map(Some);
    }
    let Some(md) = read_json(path, &dir.join("zarr.json"))? else { return Ok(None) };
    if md.get("node_type").and_then(Value::as_str) != Some("array") {
        return Ok(None);
    }
    let shape = shape_of(path, md.get("shape"), "shape")?;
    let grid = md.get("chunk_grid").unwrap_or(&Value::Null);
    if grid.get("name").and_then(Value::as_str) != Some("regular") {
        return Err(IoError::unsupported(
            path,
            format!("Zarr chunk grid {} of {label}", grid.get("name").unwrap_or(&Value::Null)),
        ));
    }
    let chunks = shape_of(path, grid.pointer("/configuration/chunk_shape"), "chunk_shape")?;
    let enc = md.get("chunk_key_encoding").unwrap_or(&Value::Null);
    let sep = enc.pointer("/configuration/separator").and_then(Value::as_str);
    let (key_prefix, separator) = match enc.get("name").and_then(Value::as_str) {
        Some("default") => ("c", sep.unwrap_or("/").to_string()),
        Some("v2") => ("", sep.unwrap_or(".").to_string()),
        other => return Err(IoError::unsupported(path, format!("Zarr chunk key encoding {other:?} of {label}"))),
    };
    let mut little = true;
    let mut codecs = Vec::new();
    let mut seen_bytes = false;
    for c in md.get("codecs").and_then(Value::as_array).into_iter().flatten() {
        let cname = c.get("name").and_then(Value::as_str).unwrap_or("");
        match (cname, seen_bytes) {
            ("bytes", false) => {
                seen_bytes = true;
                little = c.pointer("/configuration/endian").and_then(Value::as_str) != Some("big");
            }
            ("gzip", true) => codecs.push(Codec::Gzip),
            ("zstd", true) => codecs.push(Codec::Zstd),
            ("blosc", true) => codecs.push(Codec::Blosc),
            ("crc32c", true) => codecs.push(Codec::Crc32c),
            _ => {
                return Err(IoError::unsupported(
                    path,
                    format!("Zarr codec {cname:?} of {label} (sharding and transposes are not read)"),
                ))
            }
        }
    }
    if !seen_bytes {
        return Err(bad(path, format!("{label}: no bytes codec")));
    }
    codecs.reverse();
    let dtype_s = md.get("data_type").and_then(Value::as_str).unwrap_or("");
    let dtype = parse_dtype(dtype_s, little)
        .ok_or_else(|| IoError::unsupported(path, format!("Zarr data type {:?} of {label}", md.get("data_type"))))?;
    let dims = dimension_names(md.get("dimension_names"));
    let attrs = md.get("attributes").and_then(Value::as_object).cloned().unwrap_or_default();
    let fill = md.get("fill_value").and_then(json_number).unwrap_or(0.0);
    let a = ZarrArray {
        name: name.into(),
        shape,
        dims,
        attrs,
        dtype,
        v2_fill: None,
        fill,
        chunks,
        codecs,
        key_prefix,
        separator,
        dir: dir.to_path_buf(),
    };
    check(path, a).map(Some)
}

/// Sizes that fit the limits, chunks of the array's rank and not empty.
fn check(path: &Path, a: ZarrArray) -> Result<ZarrArray> {
    let label = &a.name;
    if a.chunks.len() != a.shape.len() || a.chunks.contains(&0) {
        return Err(bad(path, format!("{label}: chunks {:?} do not fit shape {:?}", a.chunks, a.shape)));
    }
    let cells = a.shape.iter().try_fold(1u64, |n, &s| n.checked_mul(s as u64)).unwrap_or(u64::MAX);
    let chunk = a.chunks.iter().try_fold(1u64, |n, &s| n.checked_mul(s as u64)).unwrap_or(u64::MAX);
    if cells > MAX_CELLS || chunk.saturating_mul(a.dtype.size as u64) > MAX_NPY_BYTES {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "Zarr array cells",
            count: cells.max(chunk),
            limit: MAX_CELLS,
        });
    }
    if let Some(d) = &a.dims {
        if d.len() != a.shape.len() {
            return Err(bad(path, format!("{label}: {} dimension names for {} dimensions", d.len(), a.shape.len())));
        }
    }
    Ok(a)
}

/// The arrays of the store at `path`: the store's own array, or its group's child arrays
/// (sorted by name).
pub(crate) fn open_store(path: &Path) -> Result<Vec<ZarrArray>> {
    if !std::fs::metadata(path).map_err(|e| IoError::io(path, e))?.is_dir() {
        return Err(bad(path, "a Zarr store is a directory (with zarr.json, or .zgroup/.zarray)"));
    }
    if let Some(a) = open_array(path, path, "")? {
        return Ok(vec![a]);
    }
    let v3_group = read_json(path, &path.join("zarr.json"))?
        .is_some_and(|m| m.get("node_type").and_then(Value::as_str) == Some("group"));
    if !v3_group && !path.join(".zgroup").is_file() {
        return Err(bad(path, "no Zarr metadata (zarr.json, .zgroup or .zarray) at its top"));
    }
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map_err(|e| IoError::io(path, e))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        if let Some(a) = open_array(path, &path.join(&n), &n)? {
            out.push(a);
        }
    }
    Ok(out)
}

fn decode(path: &Path, label: &str, codec: &Codec, bytes: Vec<u8>, expect: usize) -> Result<Vec<u8>> {
    let fail = |what: &str, e: String| bad(path, format!("{label}: {what}: {e}"));
    let inflate = |mut r: Box<dyn Read + '_>| -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(expect);
        r.by_ref().take(expect as u64 + 1).read_to_end(&mut out).map_err(|e| fail("inflating", e.to_string()))?;
        Ok(out)
    };
    match codec {
        Codec::Gzip => inflate(Box::new(flate2::read::GzDecoder::new(&bytes[..]))),
        Codec::Zlib => inflate(Box::new(flate2::read::ZlibDecoder::new(&bytes[..]))),
        Codec::Zstd => {
            let d = zstd::stream::read::Decoder::new(&bytes[..]).map_err(|e| fail("zstd", e.to_string()))?;
            inflate(Box::new(d))
        }
        Codec::Blosc => {
            // Header: version, version of the codec, flags, type size, then u32 LE sizes:
            // uncompressed, block, compressed. The sizes are checked before anything is allocated.
            if bytes.len() < 16 {
                return Err(fail("Blosc", format!("{} bytes, shorter than its header", bytes.len())));
            }
            let u = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize;
            if u(4) != expect || u(12) != bytes.len() {
                return Err(fail(
                    "Blosc",
                    format!(
                        "header claims {} bytes from {}, the chunk is {expect} bytes from {}",
                        u(4),
                        u(12),
                        bytes.len()
                    ),
                ));
            }
            std::panic::catch_unwind(|| blusc::convenience::blosc1_decompress(&bytes))
                .map_err(|_| fail("Blosc", "the decoder failed".into()))?
                .map_err(|e| fail("Blosc", format!("{e:?}")))
        }
        Codec::Lz4 => {
            // numcodecs' LZ4: the uncompressed size as u32 LE, then an LZ4 block.
            if bytes.len() < 4 {
                return Err(fail("LZ4", "no size header".into()));
            }
            let n = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
            if n != expect {
                return Err(fail("LZ4", format!("header claims {n} bytes, the chunk is {expect}")));
            }
            lz4_flex::block::decompress(&bytes[4..], n).map_err(|e| fail("LZ4", e.to_string()))
        }
        Codec::Crc32c => {
            if bytes.len() < 4 {
                return Err(fail("crc32c", "no checksum".into()));
            }
            let (data, sum) = bytes.split_at(bytes.len() - 4);
            let want = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
            if crc32c(data) != want {
                return Err(fail("crc32c", "checksum mismatch (a damaged chunk)".into()));
            }
            Ok(data.to_vec())
        }
    }
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), bitwise.
fn crc32c(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
        }
    }
    !c
}

fn to_f64(d: Dtype, b: &[u8]) -> f64 {
    let mut a = [0u8; 8];
    a[..d.size].copy_from_slice(b);
    if !d.little {
        a[..d.size].reverse();
    }
    match (d.kind, d.size) {
        ('i', 1) => f64::from(a[0] as i8),
        ('i', 2) => f64::from(i16::from_le_bytes([a[0], a[1]])),
        ('i', 4) => f64::from(i32::from_le_bytes([a[0], a[1], a[2], a[3]])),
        ('i', _) => i64::from_le_bytes(a) as f64,
        ('u', 1) => f64::from(a[0]),
        ('u', 2) => f64::from(u16::from_le_bytes([a[0], a[1]])),
        ('u', 4) => f64::from(u32::from_le_bytes([a[0], a[1], a[2], a[3]])),
        ('u', _) => u64::from_le_bytes(a) as f64,
        ('f', 4) => f64::from(f32::from_le_bytes([a[0], a[1], a[2], a[3]])),
        _ => f64::from_le_bytes(a),
    }
}

impl ZarrArray {
    /// Every value, row-major, as f64 (before masking or unpacking); chunks not written are
    /// the fill value.
    pub(crate) fn read(&self, path: &Path) -> Result<Vec<f64>> {
        let label = if self.name.is_empty() { "the store's array" } else { self.name.as_str() };
        let rank = self.shape.len();
        let total: usize = self.shape.iter().product();
        if rank == 0 {
            return Err(IoError::unsupported(path, format!("reading the values of {label}, a scalar Zarr array")));
        }
        let mut out = vec![self.fill; total];
        if total == 0 {
            return Ok(out);
        }
        let grid: Vec<usize> = self.shape.iter().zip(&self.chunks).map(|(s, c)| s.div_ceil(*c)).collect();
        let chunk_len: usize = self.chunks.iter().product();
        let expect = chunk_len * self.dtype.size;
        let mut idx = vec![0usize; rank];
        loop {
            let key: Vec<String> = idx.iter().map(usize::to_string).collect();
            let mut rel = key.join(&self.separator);
            if !self.key_prefix.is_empty() {
                rel = format!("{}{}{rel}", self.key_prefix, self.separator);
            }
            let file = self.dir.join(&rel);
            match std::fs::read(&file) {
                Ok(mut bytes) => {
                    for c in &self.codecs {
                        bytes = decode(path, label, c, bytes, expect)?;
                    }
                    if bytes.len() != expect {
                        return Err(bad(
                            path,
                            format!("{label}: chunk {rel} holds {} bytes, {expect} expected", bytes.len()),
                        ));
                    }
                    self.scatter(&idx, &bytes, &mut out);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(IoError::io(&file, e)),
            }
            // Next chunk index, last axis fastest.
            let mut d = rank;
            loop {
                if d == 0 {
                    return Ok(out);
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < grid[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    }

    /// Copies a decoded chunk (C order, full chunk shape) into `out`, clipped to the array.
    fn scatter(&self, idx: &[usize], bytes: &[u8], out: &mut [f64]) {
        let rank = self.shape.len();
        let origin: Vec<usize> = idx.iter().zip(&self.chunks).map(|(i, c)| i * c).collect();
        let extent: Vec<usize> = (0..rank).map(|d| self.chunks[d].min(self.shape[d] - origin[d])).collect();
        let rows: usize = extent[..rank - 1].iter().product();
        let size = self.dtype.size;
        let mut pos = vec![0usize; rank - 1];
        for _ in 0..rows {
            let (mut src, mut dst) = (0usize, 0usize);
            for d in 0..rank - 1 {
                let (cs, as_) =
                    (self.chunks[d + 1..].iter().product::<usize>(), self.shape[d + 1..].iter().product::<usize>());
                src += pos[d] * cs;
                dst += (origin[d] + pos[d]) * as_;
            }
            dst += origin[rank - 1];
            for k in 0..extent[rank - 1] {
                let at = (src + k) * size;
                out[dst + k] = to_f64(self.dtype, &bytes[at..at + size]);
            }
            for d in (0..rank - 1).rev() {
                pos[d] += 1;
                if pos[d] < extent[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_standard_check_value() {
        // RFC 3720's check value for "123456789".
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn data_types_of_both_versions() {
        let d = |k, s, l| Some(Dtype { kind: k, size: s, little: l });
        assert_eq!(parse_dtype("<i2", true), d('i', 2, true));
        assert_eq!(parse_dtype(">f8", true), d('f', 8, false));
        assert_eq!(parse_dtype("|u1", true), d('u', 1, true));
        assert_eq!(parse_dtype("uint16", false), d('u', 2, false));
        assert_eq!(parse_dtype("float32", true), d('f', 4, true));
        assert_eq!(parse_dtype("bool", true), None);
        assert_eq!(parse_dtype("<f2", true), None);
        assert_eq!(parse_dtype("<U8", true), None);
    }

    #[test]
    fn values_in_either_byte_order() {
        let be = Dtype { kind: 'i', size: 2, little: false };
        assert_eq!(to_f64(be, &[0xFF, 0xFE]), -2.0);
        let le = Dtype { kind: 'f', size: 4, little: true };
        assert_eq!(to_f64(le, &1.5f32.to_le_bytes()), 1.5);
        let u = Dtype { kind: 'u', size: 8, little: true };
        assert_eq!(to_f64(u, &7u64.to_le_bytes()), 7.0);
    }
}
