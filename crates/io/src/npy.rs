//! NumPy `.npy` arrays (as found inside `.npz` archives).
//!
//! Layout: magic `\x93NUMPY`, version bytes `major, minor`, header length (u16 LE for
//! version 1, u32 LE for 2 and 3), then a Python dict literal
//! `{'descr': '<f8', 'fortran_order': False, 'shape': (344, 403), }` padded with spaces and a
//! newline, then the raw data. Supported: C order, dtypes `<f8 <f4 <i2 <i4 <u2` plus `|u1 |i1`
//! (byte order `|` or `<`; `=` read as little-endian), arrays of 0 to 2 dimensions.

use crate::error::{IoError, Result};
use crate::limits::{MAX_CELLS, MAX_NPY_BYTES};
use std::path::Path;

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// A decoded array: its shape and values widened to f64.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

#[derive(Clone, Copy)]
enum Dtype {
    F8,
    F4,
    I2,
    I4,
    U2,
    U1,
    I1,
}

impl Dtype {
    fn size(self) -> usize {
        match self {
            Dtype::F8 => 8,
            Dtype::F4 | Dtype::I4 => 4,
            Dtype::I2 | Dtype::U2 => 2,
            Dtype::U1 | Dtype::I1 => 1,
        }
    }
}

/// The value of `'key':` in the header dict, up to the next top-level comma or brace.
fn dict_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let start = header.find(&format!("'{key}'")).or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[start + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    if rest.starts_with('(') {
        let end = rest.find(')')?;
        Some(&rest[..=end])
    } else {
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim())
    }
}

/// Parse a `.npy` file held in `bytes`; `path` and `entry` name it in errors.
///
/// # Examples
///
/// A 2 × 3 little-endian float64 array, as `numpy.save` writes it (version 1.0, the header
/// padded with spaces to a multiple of 64 bytes and ended by a newline):
///
/// ```
/// use bozkir_io::npy::parse_npy;
/// use std::path::Path;
///
/// let mut header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }".to_vec();
/// while (10 + header.len() + 1) % 64 != 0 {
///     header.push(b' ');
/// }
/// header.push(b'\n');
/// let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
/// bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
/// bytes.extend_from_slice(&header);
/// for v in [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.5] {
///     bytes.extend_from_slice(&v.to_le_bytes());
/// }
///
/// let a = parse_npy(Path::new("dem.npy"), "dem", &bytes).unwrap();
/// assert_eq!(a.shape, vec![2, 3]);
/// assert_eq!(a.data, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5]);
/// // A truncated file is refused, naming it.
/// assert!(parse_npy(Path::new("dem.npy"), "dem", &bytes[..20]).unwrap_err().to_string().contains("dem.npy"));
/// ```
pub fn parse_npy(path: &Path, entry: &str, bytes: &[u8]) -> Result<NpyArray> {
    let bad = |d: String| IoError::malformed(path, "NPY", format!("{entry}: {d}"));
    if bytes.len() < 10 {
        return Err(IoError::truncated(path, format!("{entry}: {} bytes, shorter than an NPY header", bytes.len())));
    }
    if &bytes[..6] != NPY_MAGIC {
        return Err(IoError::WrongMagic { path: path.to_path_buf(), format: "NPY (inside the NPZ)" });
    }
    let (hlen, hstart): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(IoError::truncated(path, format!("{entry}: NPY header")));
            }
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        v => return Err(IoError::unsupported(path, format!("{entry}: NPY version {v}"))),
    };
    let body = hstart
        .checked_add(hlen)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| IoError::truncated(path, format!("{entry}: NPY header of {hlen} bytes runs past the end")))?;
    let header = std::str::from_utf8(&bytes[hstart..body]).map_err(|_| bad("header is not text".into()))?;
    let descr = dict_value(header, "descr").ok_or_else(|| bad("no 'descr'".into()))?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let dtype = match descr {
        "<f8" | "=f8" => Dtype::F8,
        "<f4" | "=f4" => Dtype::F4,
        "<i2" | "=i2" => Dtype::I2,
        "<i4" | "=i4" => Dtype::I4,
        "<u2" | "=u2" => Dtype::U2,
        "|u1" | "<u1" => Dtype::U1,
        "|i1" | "<i1" => Dtype::I1,
        other => return Err(IoError::unsupported(path, format!("{entry}: NPY dtype {other:?}"))),
    };
    match dict_value(header, "fortran_order") {
        Some("False") => {}
        Some("True") => return Err(IoError::unsupported(path, format!("{entry}: Fortran-order NPY array"))),
        _ => return Err(bad("no 'fortran_order'".into())),
    }
    let shape_s = dict_value(header, "shape").ok_or_else(|| bad("no 'shape'".into()))?;
    let inner = shape_s
        .trim()
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| bad(format!("shape {shape_s}")))?;
    let mut shape = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n: u64 = part.trim_end_matches('L').parse().map_err(|_| bad(format!("shape {shape_s}")))?;
        shape.push(n);
    }
    if shape.len() > 2 {
        return Err(IoError::unsupported(path, format!("{entry}: {}-dimensional NPY array", shape.len())));
    }
    let count = shape.iter().try_fold(1u64, |a, &n| a.checked_mul(n)).unwrap_or(u64::MAX);
    if count > MAX_CELLS || count.saturating_mul(dtype.size() as u64) > MAX_NPY_BYTES {
        return Err(IoError::TooMany { path: path.to_path_buf(), what: "NPY array elements", count, limit: MAX_CELLS });
    }
    let need = count as usize * dtype.size();
    let data = &bytes[body..];
    if data.len() < need {
        return Err(IoError::truncated(
            path,
            format!("{entry}: {} data bytes, shape {shape_s} needs {need}", data.len()),
        ));
    }
    let data = &data[..need];
    let values: Vec<f64> = match dtype {
        Dtype::F8 => data.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect(),
        Dtype::F4 => data.chunks_exact(4).map(|b| f64::from(f32::from_le_bytes(b.try_into().unwrap()))).collect(),
        Dtype::I4 => data.chunks_exact(4).map(|b| f64::from(i32::from_le_bytes(b.try_into().unwrap()))).collect(),
        Dtype::I2 => data.chunks_exact(2).map(|b| f64::from(i16::from_le_bytes([b[0], b[1]]))).collect(),
        Dtype::U2 => data.chunks_exact(2).map(|b| f64::from(u16::from_le_bytes([b[0], b[1]]))).collect(),
        Dtype::U1 => data.iter().map(|&b| f64::from(b)).collect(),
        Dtype::I1 => data.iter().map(|&b| f64::from(b as i8)).collect(),
    };
    Ok(NpyArray { shape: shape.into_iter().map(|n| n as usize).collect(), data: values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + h.len() + 1) % 64 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut out = NPY_MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn parses_shapes_and_dtypes() {
        let p = Path::new("t.npz");
        let a = parse_npy(p, "a", &npy("<i2", "(2, 3)", &[1, 0, 2, 0, 255, 255, 4, 0, 5, 0, 6, 0])).unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.data, vec![1.0, 2.0, -1.0, 4.0, 5.0, 6.0]);
        let s = parse_npy(p, "s", &npy("<f8", "()", &2.5f64.to_le_bytes())).unwrap();
        assert!(s.shape.is_empty() && s.data == vec![2.5]);
        let e = parse_npy(p, "b", &npy("<i2", "(2, 3)", &[0; 5])).unwrap_err().to_string();
        assert!(e.contains("t.npz") && e.contains("truncated"), "{e}");
        let e = parse_npy(p, "c", &npy(">f8", "(1,)", &[0; 8])).unwrap_err().to_string();
        assert!(e.contains("unsupported"), "{e}");
    }
}
