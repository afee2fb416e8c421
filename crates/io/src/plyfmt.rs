//! The PLY container, shared by every PLY reader of the workspace (the point clouds of
//! [`crate::ply`] here, the 3DGS splats of `bozkir-splat`): scalar types and the header.
//!
//! Header lines: `ply`; `format ascii|binary_little_endian|binary_big_endian 1.0`;
//! `comment …`/`obj_info …`; `element <name> <count>`; `property <type> <name>`;
//! `property list <count type> <item type> <name>`; `end_header` (LF or CRLF). Types
//! `char uchar short ushort int uint float double` and their `int8 … float64` aliases. The
//! header may be at most [`MAX_HEADER`] bytes; no line is read past that bound.

use crate::error::{IoError, Result};
use std::io::{BufRead, Read};
use std::path::Path;

/// Largest header accepted, in bytes (1 MiB).
pub const MAX_HEADER: usize = 1 << 20;

/// A PLY scalar type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

/// Read a `$t` from the first `$n` bytes of `$b`, big-endian when `$big`.
macro_rules! get {
    ($b:expr, $big:expr, $t:ty, $n:expr) => {{
        let a: [u8; $n] = $b[..$n].try_into().unwrap();
        if $big {
            <$t>::from_be_bytes(a)
        } else {
            <$t>::from_le_bytes(a)
        }
    }};
}

impl Scalar {
    /// The type named `s` in a `property` line (`float`, `uchar`, `int32`, …), if any.
    pub fn parse(s: &str) -> Option<Scalar> {
        Some(match s {
            "char" | "int8" => Scalar::I8,
            "uchar" | "uint8" => Scalar::U8,
            "short" | "int16" => Scalar::I16,
            "ushort" | "uint16" => Scalar::U16,
            "int" | "int32" => Scalar::I32,
            "uint" | "uint32" => Scalar::U32,
            "float" | "float32" => Scalar::F32,
            "double" | "float64" => Scalar::F64,
            _ => return None,
        })
    }

    /// Size of one binary value in bytes.
    #[inline]
    pub fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }

    /// Read one binary value from the start of `b` (which holds at least [`Scalar::size`]
    /// bytes) as f32; doubles and 32-bit integers are rounded.
    #[inline]
    pub fn read_f32(self, b: &[u8], big: bool) -> f32 {
        match self {
            Scalar::F32 => get!(b, big, f32, 4),
            Scalar::F64 => get!(b, big, f64, 8) as f32,
            Scalar::I8 => f32::from(b[0] as i8),
            Scalar::U8 => f32::from(b[0]),
            Scalar::I16 => f32::from(get!(b, big, i16, 2)),
            Scalar::U16 => f32::from(get!(b, big, u16, 2)),
            Scalar::I32 => get!(b, big, i32, 4) as f32,
            Scalar::U32 => get!(b, big, u32, 4) as f32,
        }
    }

    /// Read one binary value from the start of `b` (which holds at least [`Scalar::size`]
    /// bytes) as f64 (exact for every type).
    #[inline]
    pub fn read_f64(self, b: &[u8], big: bool) -> f64 {
        match self {
            Scalar::I8 => f64::from(b[0] as i8),
            Scalar::U8 => f64::from(b[0]),
            Scalar::I16 => f64::from(get!(b, big, i16, 2)),
            Scalar::U16 => f64::from(get!(b, big, u16, 2)),
            Scalar::I32 => f64::from(get!(b, big, i32, 4)),
            Scalar::U32 => f64::from(get!(b, big, u32, 4)),
            Scalar::F32 => f64::from(get!(b, big, f32, 4)),
            Scalar::F64 => get!(b, big, f64, 8),
        }
    }

    /// Parse one ASCII token of this type as f32 (float tokens directly, so their bits
    /// round-trip; doubles and integers are rounded).
    #[inline]
    pub fn parse_token_f32(self, t: &str) -> Option<f32> {
        match self {
            Scalar::F32 => t.parse::<f32>().ok(),
            Scalar::F64 => t.parse::<f64>().ok().map(|v| v as f32),
            _ => t.parse::<i64>().ok().map(|v| v as f32),
        }
    }
}

/// One `property` line of an element.
#[derive(Clone, Debug, PartialEq)]
pub enum Property {
    /// `property <type> <name>`.
    Scalar(Scalar, String),
    /// `property list <count type> <item type> <name>`.
    List(Scalar, Scalar, String),
}

/// One `element` with its properties in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    pub name: String,
    pub count: u64,
    pub props: Vec<Property>,
}

/// How the body is encoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Ascii,
    /// `binary_little_endian`.
    Little,
    /// `binary_big_endian`.
    Big,
}

/// A parsed PLY header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub format: Format,
    pub elements: Vec<Element>,
    /// Bytes up to and including the `end_header` line.
    pub len: u64,
}

/// Parse the header from the start of `r`, leaving `r` at the first byte of the body; `path`
/// names the file in errors. Refuses a first line other than `ply` ([`IoError::WrongMagic`]),
/// a format or version other than 1.x ([`IoError::Unsupported`]), an unknown type, a header
/// longer than [`MAX_HEADER`] ([`IoError::TooMany`]) and a missing `end_header`.
pub fn parse_header(path: &Path, r: &mut impl BufRead) -> Result<Header> {
    let bad = |d: String| IoError::malformed(path, "PLY", d);
    let mut read = 0usize;
    let mut format = None;
    let mut elements: Vec<Element> = Vec::new();
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = r
            .by_ref()
            .take((MAX_HEADER + 1 - read) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|e| IoError::io(path, e))?;
        if n == 0 {
            return Err(IoError::truncated(path, "PLY header has no end_header line"));
        }
        read += n;
        if read > MAX_HEADER {
            return Err(IoError::TooMany {
                path: path.to_path_buf(),
                what: "PLY header bytes",
                count: read as u64,
                limit: MAX_HEADER as u64,
            });
        }
        let text = String::from_utf8_lossy(&line);
        let words: Vec<&str> = text.split_whitespace().collect();
        if first {
            first = false;
            if words != ["ply"] {
                return Err(IoError::WrongMagic { path: path.to_path_buf(), format: "PLY" });
            }
            continue;
        }
        match words.as_slice() {
            [] | ["comment", ..] | ["obj_info", ..] => {}
            ["format", f, v] => {
                if !v.starts_with("1.") && *v != "1" {
                    return Err(IoError::unsupported(path, format!("PLY version {v}")));
                }
                format = Some(match *f {
                    "ascii" => Format::Ascii,
                    "binary_little_endian" => Format::Little,
                    "binary_big_endian" => Format::Big,
                    other => return Err(IoError::unsupported(path, format!("PLY format {other:?}"))),
                });
            }
            ["element", name, count] => {
                let count: u64 = count.parse().map_err(|_| bad(format!("element {name} has count {count:?}")))?;
                elements.push(Element { name: name.to_string(), count, props: Vec::new() });
            }
            ["property", "list", ct, it, name] => {
                let el = elements.last_mut().ok_or_else(|| bad("property before any element".into()))?;
                let ct = Scalar::parse(ct).ok_or_else(|| IoError::unsupported(path, format!("PLY type {ct:?}")))?;
                let it = Scalar::parse(it).ok_or_else(|| IoError::unsupported(path, format!("PLY type {it:?}")))?;
                el.props.push(Property::List(ct, it, name.to_string()));
            }
            ["property", ty, name] => {
                let el = elements.last_mut().ok_or_else(|| bad("property before any element".into()))?;
                let t = Scalar::parse(ty)
                    .ok_or_else(|| IoError::unsupported(path, format!("PLY property type {ty:?} of {name:?}")))?;
                el.props.push(Property::Scalar(t, name.to_string()));
            }
            ["end_header"] => break,
            _ => return Err(bad(format!("header line {:?}", text.trim_end()))),
        }
    }
    let format = format.ok_or_else(|| bad("no format line".into()))?;
    Ok(Header { format, elements, len: read as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_reads_the_same_as_f32_and_f64() {
        let cases: [(Scalar, [u8; 8], f64); 8] = [
            (Scalar::I8, [0xfe, 0, 0, 0, 0, 0, 0, 0], -2.0),
            (Scalar::U8, [0xfe, 0, 0, 0, 0, 0, 0, 0], 254.0),
            (Scalar::I16, [0xff, 0xfe, 0, 0, 0, 0, 0, 0], -257.0),
            (Scalar::U16, [0x01, 0x02, 0, 0, 0, 0, 0, 0], 513.0),
            (Scalar::I32, [0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0], -16_777_217.0),
            (Scalar::U32, [0, 0, 1, 0, 0, 0, 0, 0], 65_536.0),
            (Scalar::F32, 1.5f32.to_le_bytes().into_iter().chain([0; 4]).collect::<Vec<_>>().try_into().unwrap(), 1.5),
            (Scalar::F64, 0.1f64.to_le_bytes(), 0.1),
        ];
        for (t, le, want) in cases {
            let n = t.size();
            let mut be = le;
            be[..n].reverse();
            assert_eq!(t.read_f64(&le, false), want, "{t:?}");
            assert_eq!(t.read_f64(&be, true), want, "{t:?}");
            assert_eq!(t.read_f32(&le, false).to_bits(), (want as f32).to_bits(), "{t:?}");
            assert_eq!(t.read_f32(&be, true).to_bits(), (want as f32).to_bits(), "{t:?}");
        }
    }

    #[test]
    fn header_keeps_elements_properties_and_length() {
        let text = b"ply\r\nformat binary_big_endian 1.0\r\ncomment x\r\nelement face 2\r\n\
                     property list uchar int vertex_indices\r\nelement vertex 3\r\nproperty double x\r\n\
                     end_header\r\nBODY";
        let mut r = &text[..];
        let h = parse_header(Path::new("a.ply"), &mut r).unwrap();
        assert_eq!(h.format, Format::Big);
        assert_eq!(h.len as usize, text.len() - 4);
        assert_eq!(r, b"BODY");
        assert_eq!(h.elements.len(), 2);
        assert_eq!(h.elements[0].props, vec![Property::List(Scalar::U8, Scalar::I32, "vertex_indices".into())]);
        assert_eq!(h.elements[1].count, 3);
        assert_eq!(h.elements[1].props, vec![Property::Scalar(Scalar::F64, "x".into())]);
    }

    #[test]
    fn a_header_line_longer_than_the_limit_is_not_read_whole() {
        let mut text = b"ply\ncomment ".to_vec();
        text.resize(3 * MAX_HEADER, b'a');
        let err = parse_header(Path::new("a.ply"), &mut &text[..]).unwrap_err();
        assert!(matches!(err, IoError::TooMany { count, .. } if count == MAX_HEADER as u64 + 1), "{err}");
    }
}
