//! LAS 1.0–1.4 point clouds, uncompressed or LAZ-compressed.
//!
//! Header fields used (little-endian, byte offsets): 0 `"LASF"`; 24/25 version major/minor;
//! 94 header size (u16); 96 offset to point data (u32); 100 number of VLRs (u32); 104 point data
//! format (u8; bit 7 set means LAZ-compressed, bit 6 is also reserved for compression and
//! masked off); 105 point record length (u16); 107 legacy point count (u32); 131–178 x/y/z scale
//! then x/y/z offset (f64); for 1.4, 247 point count (u64), used when the legacy count is 0.
//! Every point format 0–10 starts with `X, Y, Z` as i32, and real coordinates are
//! `X · scale + offset`. The classification is byte 15 (low 5 bits) for formats 0–5 and byte 16
//! for formats 6–10. RGB (three u16) is at byte 20 (format 2), 28 (formats 3, 5) or 30
//! (formats 7, 8, 10).
//!
//! Variable-length records (54-byte header: user id at 2, record id at 18, length at 20) are
//! scanned for the LASzip VLR (`"laszip encoded"`, 22204), which describes the compressed
//! items, and the GeoKeyDirectory (`"LASF_Projection"`, 34735), whose `ProjLinearUnitsGeoKey`
//! (3076) and `VerticalUnitsGeoKey` (4099) give the coordinate units. LAZ data is decompressed
//! with the `laz` crate (LASzip's arithmetic coder, pure Rust).
//!
//! Bounds, checked before allocating: every VLR lies inside the file and before the points; the
//! point count is at most [`MAX_POINTS`]; uncompressed records must fit in the file; for LAZ the
//! LASzip items must add up to the record length, the chunk table's chunk count must fit in the
//! file, and storage is reserved for at most as many points as there are compressed bytes, so a
//! header that overstates the count fails with "truncated" once the data runs out instead of
//! reserving memory for the count.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, open_with_magic};
use crate::geotiff::linear_unit_metres;
use crate::limits::MAX_POINTS;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Points of a LAS file: coordinates in its CRS units and ASPRS classification codes.
#[derive(Debug, Clone, PartialEq)]
pub struct LasPoints {
    pub xyz: Vec<[f64; 3]>,
    pub classification: Vec<u8>,
    /// `(major, minor)` version of the file.
    pub version: (u8, u8),
    /// Point data format 0–10 (without the compression bits).
    pub point_format: u8,
    /// Red, green, blue per point for formats 2, 3, 5, 7, 8 and 10 (as stored: usually
    /// 0..65535, some writers store 0..255).
    pub rgb: Option<Vec<[u16; 3]>>,
    /// Whether the point data was LAZ-compressed.
    pub compressed: bool,
    /// Metres per horizontal coordinate unit, from the GeoKeyDirectory (`None` if not given).
    pub horizontal_unit_m: Option<f64>,
    /// Metres per vertical unit, from the GeoKeyDirectory (`None` if not given).
    pub vertical_unit_m: Option<f64>,
}

/// Minimum record length of each point data format 0–10.
const MIN_RECORD: [u16; 11] = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];

/// Byte offset of RGB in a record of each point data format, if it has colour.
fn rgb_offset(format: u8) -> Option<usize> {
    match format {
        2 => Some(20),
        3 | 5 => Some(28),
        7 | 8 | 10 => Some(30),
        _ => None,
    }
}

fn f64_at(b: &[u8], o: usize) -> f64 {
    f64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

/// What the VLRs say: the LASzip record data and the coordinate units.
#[derive(Default)]
struct Vlrs {
    laszip: Option<Vec<u8>>,
    horizontal_unit_m: Option<f64>,
    vertical_unit_m: Option<f64>,
}

/// Scan `count` VLRs starting at `start`; each must end at or before `end` (the point data).
fn read_vlrs<R: Read + Seek>(path: &Path, r: &mut R, start: u64, count: u32, end: u64) -> Result<Vlrs> {
    let mut out = Vlrs::default();
    let mut pos = start;
    for k in 0..count {
        if pos + 54 > end {
            return Err(IoError::malformed(
                path,
                "LAS",
                format!("VLR {k} of {count} at byte {pos} runs into the point data at {end}"),
            ));
        }
        r.seek(SeekFrom::Start(pos)).map_err(|e| IoError::io(path, e))?;
        let mut h = [0u8; 54];
        r.read_exact(&mut h).map_err(|e| IoError::io(path, e))?;
        let user = String::from_utf8_lossy(&h[2..18]).trim_end_matches('\0').to_string();
        let record = u16_at(&h, 18);
        let len = u64::from(u16_at(&h, 20));
        if pos + 54 + len > end {
            return Err(IoError::malformed(
                path,
                "LAS",
                format!("VLR {k} ({user:?} {record}) of {len} bytes at {pos} runs past the point data at {end}"),
            ));
        }
        let wanted = (user == "laszip encoded" && record == 22204) || (user == "LASF_Projection" && record == 34735);
        if wanted {
            let mut data = vec![0u8; len as usize];
            r.read_exact(&mut data).map_err(|e| IoError::io(path, e))?;
            if record == 22204 {
                out.laszip = Some(data);
            } else {
                let keys: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                if keys.len() >= 4 {
                    let n = (keys[3] as usize).min((keys.len() - 4) / 4);
                    for key in keys[4..4 + 4 * n].chunks_exact(4) {
                        if key[1] != 0 {
                            continue;
                        }
                        // Units of a file we cannot interpret stay unknown rather than failing.
                        let unit = linear_unit_metres(path, Some(key[3]), "").ok().filter(|_| key[3] != 32767);
                        match key[0] {
                            3076 => out.horizontal_unit_m = unit,
                            4099 => out.vertical_unit_m = unit,
                            _ => {}
                        }
                    }
                }
            }
        }
        pos += 54 + len;
    }
    Ok(out)
}

/// Refuse a LAZ chunk table whose chunk count cannot fit in the file (the `laz` crate reserves
/// memory for it). Returns the chunk count when the table was found.
fn check_chunk_table<R: Read + Seek>(path: &Path, r: &mut R, data_start: u64, len: u64) -> Result<Option<u64>> {
    let read_i64 = |r: &mut R, at: u64| -> Result<i64> {
        let mut b = [0u8; 8];
        r.seek(SeekFrom::Start(at)).map_err(|e| IoError::io(path, e))?;
        r.read_exact(&mut b).map_err(|e| IoError::io(path, e))?;
        Ok(i64::from_le_bytes(b))
    };
    if data_start + 8 > len {
        return Err(IoError::truncated(path, "LAZ data shorter than its chunk-table offset"));
    }
    let mut table = read_i64(r, data_start)?;
    if table <= data_start as i64 && len >= 8 {
        table = read_i64(r, len - 8)?;
    }
    if table <= data_start as i64 || table as u64 + 8 > len {
        return Ok(None);
    }
    let mut b = [0u8; 8];
    r.seek(SeekFrom::Start(table as u64)).map_err(|e| IoError::io(path, e))?;
    r.read_exact(&mut b).map_err(|e| IoError::io(path, e))?;
    let chunks = u64::from(u32::from_le_bytes(b[4..8].try_into().unwrap()));
    if chunks > (len - data_start) / 4 + 1 {
        return Err(IoError::malformed(
            path,
            "LAZ",
            format!("chunk table declares {chunks} chunks, more than {} bytes of data can hold", len - data_start),
        ));
    }
    Ok(Some(chunks))
}

/// Stack of the thread that runs the LASzip decoder (see [`decompress_laz`]).
const LAZ_STACK: usize = 256 << 20;

/// Compressed bytes one point of formats 0–5 may take beyond its record length, before the
/// decoder is stopped (see [`Metered`]).
const LAZ_POINT_SLACK: u64 = 256;

/// Count, record length and format of the points to decompress.
#[derive(Clone, Copy)]
struct LazShape {
    count: u64,
    rec: u16,
    format: u8,
}

/// A reader that refuses to hand one point more than `limit` compressed bytes. The `laz` crate
/// decodes a GPS-time "context switch" by recursing, once per switch code, so crafted data
/// (fuzz target `las`, 7 KB) recursed until the stack overflowed; a real LASzip point of formats
/// 0–5 takes well under its record length plus a few bytes, so the budget cuts the recursion
/// after at most a few thousand levels.
struct Metered<'a, R> {
    inner: &'a mut R,
    used: std::sync::Arc<std::sync::atomic::AtomicU64>,
    limit: u64,
}

impl<R: Read> Read for Metered<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let used = self.used.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed) + n as u64;
        if used > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("one point takes more than {} compressed bytes", self.limit),
            ));
        }
        Ok(n)
    }
}

impl<R: Seek> Seek for Metered<'_, R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// Decompress `shape.count` LAZ points from `r` (positioned at the point data), handing each
/// record to `take`. Runs on a thread with a [`LAZ_STACK`] stack; for point formats 0–5 each
/// point is held to its record length plus [`LAZ_POINT_SLACK`] compressed bytes (the chunk's
/// first, raw point and the chunk table included), which bounds the decoder's recursion.
fn decompress_laz<R: Read + Seek + Send + Sync>(
    path: &Path,
    r: &mut R,
    vlr: laz::LazVlr,
    shape: LazShape,
    take: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<()> {
    let run = move || -> Result<()> {
        let used = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let limit = if shape.format <= 5 { 4 * u64::from(shape.rec) + LAZ_POINT_SLACK } else { u64::MAX };
        let metered = Metered { inner: r, used: used.clone(), limit: u64::MAX };
        let mut dec = laz::LasZipDecompressor::new(metered, vlr)
            .map_err(|e| IoError::malformed(path, "LAZ", format!("cannot start decompression: {e}")))?;
        dec.get_mut().limit = limit;
        let mut buf = vec![0u8; shape.rec as usize];
        for done in 0..shape.count {
            used.store(0, std::sync::atomic::Ordering::Relaxed);
            dec.decompress_one(&mut buf).map_err(|e| {
                IoError::truncated(path, format!("LAZ data ends after about {done} of {} points ({e})", shape.count))
            })?;
            take(&buf);
        }
        Ok(())
    };
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("laz".into())
            .stack_size(LAZ_STACK)
            .spawn_scoped(s, run)
            .map_err(|e| IoError::io(path, e))?;
        // A panic inside the decoder (the `laz` crate's debug assertions on corrupt data) is a
        // malformed file, not a crash of the caller.
        worker.join().unwrap_or_else(|p| {
            let why = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            Err(IoError::malformed(path, "LAZ", format!("the decoder gave up: {}", why.unwrap_or_default())))
        })
    })
}

/// Read the points of a LAS or LAZ file.
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
    let header_size = u64::from(u16_at(&head, 94));
    let offset = u64::from(u32::from_le_bytes(head[96..100].try_into().unwrap()));
    let n_vlrs = u32::from_le_bytes(head[100..104].try_into().unwrap());
    let format_byte = head[104];
    let compressed = format_byte & 0x80 != 0;
    let format = format_byte & 0x3F;
    if format > 10 {
        return Err(IoError::unsupported(path, format!("LAS point data format {format}")));
    }
    let rec = u16_at(&head, 105);
    if rec < MIN_RECORD[format as usize] {
        return Err(IoError::malformed(
            path,
            "LAS",
            format!("record length {rec} < {} for format {format}", MIN_RECORD[format as usize]),
        ));
    }
    let mut count = u64::from(u32::from_le_bytes(head[107..111].try_into().unwrap()));
    if count == 0 && version.1 >= 4 && head.len() >= 255 {
        count = u64::from_le_bytes(head[247..255].try_into().unwrap());
    }
    if header_size < 227 || offset < header_size {
        return Err(IoError::malformed(
            path,
            "LAS",
            format!("header size {header_size} / point data offset {offset} inside the header"),
        ));
    }
    if offset > len {
        return Err(IoError::truncated(path, format!("point data offset {offset} beyond the file's {len} bytes")));
    }
    if count > MAX_POINTS {
        return Err(IoError::TooMany { path: path.to_path_buf(), what: "LAS points", count, limit: MAX_POINTS });
    }
    if !compressed {
        let need = offset + count * u64::from(rec);
        if need > len {
            return Err(IoError::truncated(
                path,
                format!("{count} points of {rec} bytes at {offset} need {need} bytes, file has {len}"),
            ));
        }
    }
    if count == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "LAS with no points".into() });
    }
    let scale = [f64_at(&head, 131), f64_at(&head, 139), f64_at(&head, 147)];
    let off = [f64_at(&head, 155), f64_at(&head, 163), f64_at(&head, 171)];
    if scale.iter().chain(&off).any(|v| !v.is_finite()) || scale.contains(&0.0) {
        return Err(IoError::malformed(path, "LAS", format!("scale {scale:?} / offset {off:?}")));
    }
    let vlrs = read_vlrs(path, &mut r, header_size, n_vlrs, offset)?;

    let class_at = if format <= 5 { 15 } else { 16 };
    let rgb_at = rgb_offset(format);
    // Reserve no more than the bytes that hold the points can describe.
    let cap = count.min((len - offset) / if compressed { 1 } else { u64::from(rec) }) as usize;
    let mut xyz = Vec::with_capacity(cap);
    let mut classification = Vec::with_capacity(cap);
    let mut rgb = rgb_at.map(|_| Vec::with_capacity(cap));
    let mut take = |buf: &[u8]| {
        let c = |i: usize| i32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap()) as f64 * scale[i] + off[i];
        xyz.push([c(0), c(1), c(2)]);
        classification.push(if format <= 5 { buf[class_at] & 0x1F } else { buf[class_at] });
        if let (Some(at), Some(v)) = (rgb_at, rgb.as_mut()) {
            v.push([u16_at(buf, at), u16_at(buf, at + 2), u16_at(buf, at + 4)]);
        }
    };

    if compressed {
        let data = vlrs.laszip.as_ref().ok_or_else(|| IoError::missing(path, "LASzip VLR of a LAZ file"))?;
        let vlr =
            laz::LazVlr::from_buffer(data).map_err(|e| IoError::malformed(path, "LAZ", format!("LASzip VLR: {e}")))?;
        if vlr.items_size() != u64::from(rec) {
            return Err(IoError::malformed(
                path,
                "LAZ",
                format!("LASzip items describe {}-byte points, the header says {rec}", vlr.items_size()),
            ));
        }
        let chunks = check_chunk_table(path, &mut r, offset, len)?;
        if let (Some(chunks), size) = (chunks, vlr.chunk_size()) {
            if size != u32::MAX && count > chunks * u64::from(size) {
                return Err(IoError::malformed(
                    path,
                    "LAZ",
                    format!(
                        "{count} points declared, {chunks} chunks of {size} hold at most {}",
                        chunks * u64::from(size)
                    ),
                ));
            }
        }
        r.seek(SeekFrom::Start(offset)).map_err(|e| IoError::io(path, e))?;
        decompress_laz(path, &mut r, vlr, LazShape { count, rec, format }, &mut take)?;
    } else {
        r.seek(SeekFrom::Start(offset)).map_err(|e| IoError::io(path, e))?;
        let mut buf = vec![0u8; rec as usize];
        for _ in 0..count {
            r.read_exact(&mut buf).map_err(|e| IoError::io(path, e))?;
            take(&buf);
        }
    }
    Ok(LasPoints {
        xyz,
        classification,
        version,
        point_format: format,
        rgb,
        compressed,
        horizontal_unit_m: vlrs.horizontal_unit_m,
        vertical_unit_m: vlrs.vertical_unit_m,
    })
}

/// How [`write_las`] stores coordinates: the integer `X = round((x − offset) / scale)` of each
/// axis, in an uncompressed LAS 1.2 file of point data format 0 (20-byte records) or 1 (28 bytes,
/// with a GPS time, written as 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LasLayout {
    /// Point data format, 0 or 1.
    pub point_format: u8,
    /// Coordinate units per stored integer step, per axis (e.g. `0.01` for centimetres).
    pub scale: [f64; 3],
    /// Coordinates of the stored integer 0, per axis.
    pub offset: [f64; 3],
}

impl Default for LasLayout {
    /// Format 1, centimetre steps, no offset.
    fn default() -> Self {
        Self { point_format: 1, scale: [0.01; 3], offset: [0.0; 3] }
    }
}

/// Size of a LAS 1.2 public header (no VLRs follow it in the files [`write_las`] writes).
const LAS12_HEADER: u16 = 227;

/// Write `xyz` with their ASPRS `classification` codes (the low 5 bits are kept) as an
/// uncompressed LAS 1.2 file laid out by `layout`, atomically. [`read_las`] reads it back as
/// the coordinates rounded to the layout's steps.
///
/// Refused (naming `path`): a point format other than 0 or 1, a scale that is not finite and
/// above 0 or an offset that is not finite, `classification` of another length than `xyz`, more
/// than `u32::MAX` points, and a coordinate whose stored integer does not fit an `i32`.
///
/// # Examples
///
/// ```
/// use bozkir_io::las::{read_las, write_las, LasLayout};
///
/// let dir = std::env::temp_dir().join(format!("bozkir-las-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("two.las");
/// let layout = LasLayout { offset: [1000.0, 2000.0, 0.0], ..LasLayout::default() };
/// write_las(&path, &[[1001.0, 2002.0, 123.45], [999.95, 2000.0, 0.07]], &[2, 5], &layout).unwrap();
/// let back = read_las(&path).unwrap();
/// assert_eq!(back.xyz, vec![[1001.0, 2002.0, 123.45], [999.95, 2000.0, 0.07]]);
/// assert_eq!(back.classification, vec![2, 5]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_las(path: impl AsRef<Path>, xyz: &[[f64; 3]], classification: &[u8], layout: &LasLayout) -> Result<()> {
    let path = path.as_ref();
    let bad = |detail: String| IoError::InvalidArgument { path: path.to_path_buf(), detail };
    let record: u16 = match layout.point_format {
        0 => 20,
        1 => 28,
        f => return Err(bad(format!("LAS point format {f} cannot be written (0 or 1)"))),
    };
    if layout.scale.iter().any(|s| !(s.is_finite() && *s > 0.0)) || layout.offset.iter().any(|o| !o.is_finite()) {
        return Err(bad(format!(
            "LAS scale {:?} / offset {:?} must be finite (scale above 0)",
            layout.scale, layout.offset
        )));
    }
    if classification.len() != xyz.len() {
        return Err(bad(format!("{} classification codes for {} points", classification.len(), xyz.len())));
    }
    let count =
        u32::try_from(xyz.len()).map_err(|_| bad(format!("{} points, above a LAS 1.2 file's u32 count", xyz.len())))?;
    let mut ints = Vec::with_capacity(xyz.len());
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for (i, p) in xyz.iter().enumerate() {
        let mut q = [0i32; 3];
        for k in 0..3 {
            let v = ((p[k] - layout.offset[k]) / layout.scale[k]).round();
            if !(v >= i32::MIN as f64 && v <= i32::MAX as f64) {
                return Err(bad(format!("point {i} coordinate {} does not fit the LAS scale and offset", p[k])));
            }
            q[k] = v as i32;
            let stored = f64::from(q[k]) * layout.scale[k] + layout.offset[k];
            lo[k] = lo[k].min(stored);
            hi[k] = hi[k].max(stored);
        }
        ints.push(q);
    }
    if xyz.is_empty() {
        (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    let mut h = vec![0u8; usize::from(LAS12_HEADER)];
    h[..4].copy_from_slice(b"LASF");
    h[24] = 1;
    h[25] = 2;
    let software = b"bozkir";
    h[58..58 + software.len()].copy_from_slice(software);
    h[94..96].copy_from_slice(&LAS12_HEADER.to_le_bytes());
    h[96..100].copy_from_slice(&u32::from(LAS12_HEADER).to_le_bytes());
    h[104] = layout.point_format;
    h[105..107].copy_from_slice(&record.to_le_bytes());
    h[107..111].copy_from_slice(&count.to_le_bytes());
    // Points by return: all counted as first returns.
    h[111..115].copy_from_slice(&count.to_le_bytes());
    for (k, v) in layout.scale.iter().chain(&layout.offset).enumerate() {
        h[131 + 8 * k..139 + 8 * k].copy_from_slice(&v.to_le_bytes());
    }
    // Max X, min X, max Y, min Y, max Z, min Z.
    for k in 0..3 {
        h[179 + 16 * k..187 + 16 * k].copy_from_slice(&hi[k].to_le_bytes());
        h[187 + 16 * k..195 + 16 * k].copy_from_slice(&lo[k].to_le_bytes());
    }
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        w.write_all(&h).map_err(io)?;
        let mut r = vec![0u8; usize::from(record)];
        for (q, &class) in ints.iter().zip(classification) {
            for k in 0..3 {
                r[4 * k..4 * k + 4].copy_from_slice(&q[k].to_le_bytes());
            }
            r[14] = 0b0000_1001; // return 1 of 1
            r[15] = class & 0x1f;
            w.write_all(&r).map_err(io)?;
        }
        Ok(())
    })
}
