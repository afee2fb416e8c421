//! LAS 1.0–1.4 point clouds, uncompressed (LAZ is refused).
//!
//! Header fields used (little-endian, byte offsets): 0 `"LASF"`; 24/25 version major/minor;
//! 94 header size (u16); 96 offset to point data (u32); 104 point data format (u8; bit 7 or 6
//! set means LAZ-compressed); 105 point record length (u16); 107 legacy point count (u32);
//! 131–178 x/y/z scale then x/y/z offset (f64); for 1.4, 247 point count (u64), used when the
//! legacy count is 0. Every point format 0–10 starts with `X, Y, Z` as i32, and real
//! coordinates are `X · scale + offset`. The classification is byte 15 (low 5 bits) for
//! formats 0–5 and byte 16 for formats 6–10.

use crate::error::{IoError, Result};
use crate::fsio::open_with_magic;
use crate::limits::MAX_POINTS;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Points of a LAS file: coordinates in its CRS units and ASPRS classification codes.
#[derive(Debug, Clone, PartialEq)]
pub struct LasPoints {
    pub xyz: Vec<[f64; 3]>,
    pub classification: Vec<u8>,
    /// `(major, minor)` version of the file.
    pub version: (u8, u8),
    pub point_format: u8,
}

/// Minimum record length of each point data format 0–10.
const MIN_RECORD: [u16; 11] = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];

fn f64_at(b: &[u8], o: usize) -> f64 {
    f64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

/// Read the points of an uncompressed LAS file.
pub fn read_las(path: impl AsRef<Path>) -> Result<LasPoints> {
    let path = path.as_ref();
    let (file, len) = open_with_magic(path, &[b"LASF"], "LAS")?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut head = vec![0u8; 375.min(len as usize)];
    r.read_exact(&mut head).map_err(|e| IoError::io(path, e))?;
    if head.len() < 227 {
        return Err(IoError::truncated(path, format!("{} bytes, a LAS header needs 227", head.len())));
    }
    let version = (head[24], head[25]);
    if version.0 != 1 || version.1 > 4 {
        return Err(IoError::unsupported(path, format!("LAS version {}.{}", version.0, version.1)));
    }
    let header_size = u16::from_le_bytes([head[94], head[95]]) as u64;
    let offset = u32::from_le_bytes(head[96..100].try_into().unwrap()) as u64;
    let format_byte = head[104];
    if format_byte & 0xC0 != 0 {
        return Err(IoError::unsupported(path, "LAZ-compressed point data (decompress to LAS first)"));
    }
    let format = format_byte;
    if format > 10 {
        return Err(IoError::unsupported(path, format!("LAS point data format {format}")));
    }
    let rec = u16::from_le_bytes([head[105], head[106]]);
    if rec < MIN_RECORD[format as usize] {
        return Err(IoError::malformed(
            path,
            "LAS",
            format!("record length {rec} < {} for format {format}", MIN_RECORD[format as usize]),
        ));
    }
    let mut count = u32::from_le_bytes(head[107..111].try_into().unwrap()) as u64;
    if count == 0 && version.1 >= 4 && head.len() >= 255 {
        count = u64::from_le_bytes(head[247..255].try_into().unwrap());
    }
    if offset < header_size.min(227) {
        return Err(IoError::malformed(path, "LAS", format!("point data offset {offset} inside the header")));
    }
    if count > MAX_POINTS {
        return Err(IoError::TooMany { path: path.to_path_buf(), what: "LAS points", count, limit: MAX_POINTS });
    }
    let need = offset + count * u64::from(rec);
    if need > len {
        return Err(IoError::truncated(
            path,
            format!("{count} points of {rec} bytes at {offset} need {need} bytes, file has {len}"),
        ));
    }
    if count == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "LAS with no points".into() });
    }
    let scale = [f64_at(&head, 131), f64_at(&head, 139), f64_at(&head, 147)];
    let off = [f64_at(&head, 155), f64_at(&head, 163), f64_at(&head, 171)];
    if scale.iter().chain(&off).any(|v| !v.is_finite()) || scale.contains(&0.0) {
        return Err(IoError::malformed(path, "LAS", format!("scale {scale:?} / offset {off:?}")));
    }
    r.seek(SeekFrom::Start(offset)).map_err(|e| IoError::io(path, e))?;
    let class_at = if format <= 5 { 15 } else { 16 };
    let mut buf = vec![0u8; rec as usize];
    let mut xyz = Vec::with_capacity(count as usize);
    let mut classification = Vec::with_capacity(count as usize);
    for _ in 0..count {
        r.read_exact(&mut buf).map_err(|e| IoError::io(path, e))?;
        let c = |i: usize| i32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap()) as f64 * scale[i] + off[i];
        xyz.push([c(0), c(1), c(2)]);
        classification.push(if format <= 5 { buf[class_at] & 0x1F } else { buf[class_at] });
    }
    Ok(LasPoints { xyz, classification, version, point_format: format })
}
