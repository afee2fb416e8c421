//! Writing georeferenced float32 GeoTIFFs: plain strips (the default) or a Cloud-Optimised
//! GeoTIFF (COG), uncompressed or DEFLATE, with or without the floating-point predictor.
//!
//! The file structure is laid out by [`crate::tiff_write`] (IFDs before the data); this module
//! encodes the blocks: it cuts the grid into strips or tiles, applies the predictor, compresses,
//! and for a COG builds the overviews. The georeferencing tags are those of
//! [`crate::georef`] (one GeoKey directory, written in the full-resolution IFD only).
//!
//! **COG layout** ([`TiffLayout::Cog`]): tiles of `tile_size × tile_size` (512 by default; edge
//! tiles padded with NaN); overviews halving each side (rounded up) until the smallest fits one
//! tile, each cell the mean of the non-NaN cells of its 2 × 2 block (NaN when all four are);
//! every IFD (full resolution, then the overviews from the largest down, `NewSubfileType` 1)
//! before any data; GDAL's structural metadata after the header; the data of the smallest
//! overview first and of the full resolution last, tiles in row-major order, each preceded by
//! its size (4 bytes) and followed by a copy of its last 4 bytes. GDAL's COG validator accepts
//! it and `gdalinfo` reports `LAYOUT=COG`.
//!
//! Encoding is deterministic: the same grid and options give the same bytes on any machine
//! and thread count (tiles are compressed on scoped threads, each independently).

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use crate::georef::{geokeys, GeoRef};
use crate::limits::check_raster_size;
use crate::tiff_write::{write_tiff, Arrangement, Image, Value};
use bozkir_core::Grid;
use std::io::Write;
use std::path::Path;

/// How the samples are arranged in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TiffLayout {
    /// One image of strips (about 64 KiB of samples each), no overviews: the plainest TIFF.
    #[default]
    Strips,
    /// A Cloud-Optimised GeoTIFF: tiles, internal overviews, IFDs first (see the module docs).
    Cog,
}

/// How each strip or tile is compressed (TIFF `Compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TiffCompression {
    /// 1: stored as is.
    #[default]
    None,
    /// 8 (Adobe DEFLATE): a zlib stream per block, at `level` 0–9 (6 is zlib's default).
    Deflate { level: u8 },
}

/// The TIFF `Predictor` applied to each row of a block before compression.
///
/// There is no horizontal differencing (2): on float32 samples it is legal TIFF but the `tiff`
/// crate, our reader, refuses it, and the floating-point predictor is the one meant for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TiffPredictor {
    /// 1: none.
    #[default]
    None,
    /// 3: the floating-point predictor (bytes of each row split into planes, most significant
    /// first, then byte-wise differences). Needs a compression: libtiff ignores the predictor
    /// of an uncompressed file, so it is refused there.
    FloatingPoint,
}

/// Options of [`write_geotiff_f32_opts`]. `TiffOptions::default()` is the plain file of
/// [`crate::write_geotiff_f32`]; [`TiffOptions::cog`] the COG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TiffOptions {
    pub layout: TiffLayout,
    pub compression: TiffCompression,
    pub predictor: TiffPredictor,
    /// Tile side of the COG layout, a multiple of 16 in 16..=4096 (TIFF needs multiples of
    /// 16); 512 by default. Unused by [`TiffLayout::Strips`].
    pub tile_size: u32,
    /// Write BigTIFF even when the file fits classic TIFF's 4 GiB (BigTIFF is chosen
    /// automatically when it does not).
    pub bigtiff: bool,
}

impl Default for TiffOptions {
    fn default() -> Self {
        TiffOptions::strips()
    }
}

impl TiffOptions {
    /// Uncompressed strips: what [`crate::write_geotiff_f32`] writes.
    pub const fn strips() -> Self {
        TiffOptions {
            layout: TiffLayout::Strips,
            compression: TiffCompression::None,
            predictor: TiffPredictor::None,
            tile_size: 512,
            bigtiff: false,
        }
    }

    /// A COG: 512 × 512 tiles, overviews, DEFLATE level 6 with the floating-point predictor.
    pub const fn cog() -> Self {
        TiffOptions {
            layout: TiffLayout::Cog,
            compression: TiffCompression::Deflate { level: 6 },
            predictor: TiffPredictor::FloatingPoint,
            tile_size: 512,
            bigtiff: false,
        }
    }

    /// Why these options cannot be written, if they cannot.
    fn check(&self) -> std::result::Result<(), String> {
        if let TiffCompression::Deflate { level } = self.compression {
            if level > 9 {
                return Err(format!("DEFLATE level {level} is outside 0..=9"));
            }
        }
        if self.predictor == TiffPredictor::FloatingPoint && self.compression == TiffCompression::None {
            return Err("the floating-point predictor needs a compression (readers ignore it without one)".into());
        }
        if self.layout == TiffLayout::Cog
            && !(self.tile_size.is_multiple_of(16) && (16..=4096).contains(&self.tile_size))
        {
            return Err(format!("tile size {} is not a multiple of 16 in 16..=4096", self.tile_size));
        }
        Ok(())
    }
}

/// Rows of a strip: about 64 KiB of samples, at least one row.
const STRIP_BYTES: usize = 1 << 16;

/// Writes `grid` as a float32 GeoTIFF georeferenced by `geo` with NaN as its no-data value,
/// laid out and compressed as `opts` says (see the module docs). The full-resolution samples
/// are the grid's bit for bit, whatever the options. Refuses (writing nothing) a non-finite or
/// non-positive pixel size, a non-finite origin, or options that cannot be written (a DEFLATE
/// level over 9, a predictor without compression, a tile size that is not a multiple of 16 in
/// 16..=4096).
///
/// # Examples
///
/// ```
/// use bozkir_core::{geo::GeoTransform, Grid};
/// use bozkir_io::{read_geotiff, write_geotiff_f32_opts, Crs, GeoRef, TiffOptions};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("cog.tif");
/// let g = Grid::from_fn(1100, 700, |x, y| (x as f32).sin() * 100.0 + y as f32);
/// let geo = GeoRef {
///     crs: Crs::Epsg { code: 32633, geographic: false },
///     transform: GeoTransform { x0: 500_000.0, y0: 4_407_000.0, sx: 10.0, sy: 10.0 },
/// };
/// write_geotiff_f32_opts(&path, &g, &geo, &TiffOptions::cog()).unwrap();
/// let dem = read_geotiff(&path).unwrap();
/// assert_eq!(dem.georef, Some(geo.transform));
/// assert_eq!(*dem.heights.get(1099, 699), f64::from(*g.get(1099, 699)));
/// ```
pub fn write_geotiff_f32_opts(
    path: impl AsRef<Path>,
    grid: &Grid<f32>,
    geo: &GeoRef,
    opts: &TiffOptions,
) -> Result<()> {
    crate::write_times::encoding();
    let path = path.as_ref();
    let (w, h) = check_raster_size(path, grid.width() as u64, grid.height() as u64)?;
    let t = geo.transform;
    if !(t.sx.is_finite() && t.sy.is_finite() && t.sx > 0.0 && t.sy > 0.0) {
        return Err(IoError::invalid(path, format!("pixel size ({}, {}) must be finite and > 0", t.sx, t.sy)));
    }
    if !(t.x0.is_finite() && t.y0.is_finite()) {
        return Err(IoError::invalid(path, format!("origin ({}, {}) must be finite", t.x0, t.y0)));
    }
    opts.check().map_err(|e| IoError::invalid(path, e))?;

    let mut geo_tags = vec![
        (33550, Value::Double(vec![t.sx, t.sy, 0.0])),
        (33922, Value::Double(vec![0.0, 0.0, 0.0, t.x0, t.y0, 0.0])),
    ];
    if let Some(k) = geokeys(&geo.crs) {
        geo_tags.push((34735, Value::Short(k.dir)));
        if let Some(d) = k.doubles {
            geo_tags.push((34736, Value::Double(d)));
        }
        if let Some(a) = k.ascii {
            geo_tags.push((34737, Value::Ascii(a)));
        }
    }
    geo_tags.push((42113, Value::Ascii("nan".into())));

    let images = match opts.layout {
        TiffLayout::Strips => {
            let rows = (STRIP_BYTES / (4 * w)).clamp(1, h);
            let mut tags = base_tags(w, h, opts);
            tags.push((278, Value::Long(vec![rows as u32])));
            tags.extend(geo_tags);
            let blocks = encode_all(h.div_ceil(rows), |i| {
                let r0 = i * rows;
                let r1 = (r0 + rows).min(h);
                encode_block(&grid.data()[r0 * w..r1 * w], w, opts)
            });
            vec![Image { tags, tiled: false, blocks }]
        }
        TiffLayout::Cog => {
            let ts = opts.tile_size as usize;
            let mut levels = vec![(w, h, None::<Vec<f32>>)];
            while levels.last().is_some_and(|&(lw, lh, _)| lw > ts || lh > ts) {
                let (lw, lh, prev) = levels.last().expect("a level");
                let (nw, nh, next) = halve(prev.as_deref().unwrap_or(grid.data()), *lw, *lh);
                levels.push((nw, nh, Some(next)));
            }
            levels
                .iter()
                .enumerate()
                .map(|(k, (lw, lh, data))| {
                    let mut tags = base_tags(*lw, *lh, opts);
                    if k > 0 {
                        tags.push((254, Value::Long(vec![1])));
                    }
                    tags.push((322, Value::Long(vec![opts.tile_size])));
                    tags.push((323, Value::Long(vec![opts.tile_size])));
                    if k == 0 {
                        tags.extend(geo_tags.iter().cloned());
                    }
                    let data = data.as_deref().unwrap_or(grid.data());
                    let (tx, ty) = (lw.div_ceil(ts), lh.div_ceil(ts));
                    let blocks = encode_all(tx * ty, |i| {
                        encode_block(&tile(data, *lw, *lh, (i % tx) * ts, (i / tx) * ts, ts), ts, opts)
                    });
                    Image { tags, tiled: true, blocks }
                })
                .collect()
        }
    };
    let arrangement = match opts.layout {
        TiffLayout::Strips => Arrangement::Plain,
        TiffLayout::Cog => Arrangement::Cog,
    };
    atomic_write(path, |wr| {
        write_tiff(wr, &images, arrangement, opts.bigtiff).map(|_| ()).map_err(|e| IoError::io(path, e))
    })
}

/// The tags every image has, for a `w × h` float32 image under `opts`.
fn base_tags(w: usize, h: usize, opts: &TiffOptions) -> Vec<(u16, Value)> {
    let compression = match opts.compression {
        TiffCompression::None => 1,
        TiffCompression::Deflate { .. } => 8,
    };
    let mut tags = vec![
        (256, Value::Long(vec![w as u32])),
        (257, Value::Long(vec![h as u32])),
        (258, Value::Short(vec![32])),
        (259, Value::Short(vec![compression])),
        (262, Value::Short(vec![1])),
        (277, Value::Short(vec![1])),
        (284, Value::Short(vec![1])),
        (339, Value::Short(vec![3])),
    ];
    if opts.predictor == TiffPredictor::FloatingPoint {
        tags.push((317, Value::Short(vec![3])));
    }
    tags
}

/// The `ts × ts` tile of a `w × h` raster whose top-left cell is `(x0, y0)`, NaN outside it.
fn tile(data: &[f32], w: usize, h: usize, x0: usize, y0: usize, ts: usize) -> Vec<f32> {
    let mut t = vec![f32::NAN; ts * ts];
    let cols = ts.min(w - x0);
    for r in 0..ts.min(h - y0) {
        let src = (y0 + r) * w + x0;
        t[r * ts..r * ts + cols].copy_from_slice(&data[src..src + cols]);
    }
    t
}

/// The next overview of a `w × h` raster: `⌈w/2⌉ × ⌈h/2⌉`, each cell the mean (in f64) of the
/// non-NaN cells of its 2 × 2 block (fewer at an odd edge), NaN when there are none.
fn halve(data: &[f32], w: usize, h: usize) -> (usize, usize, Vec<f32>) {
    let (nw, nh) = (w.div_ceil(2), h.div_ceil(2));
    let mut out = Vec::with_capacity(nw * nh);
    for y in 0..nh {
        for x in 0..nw {
            let (mut sum, mut n) = (0.0f64, 0u32);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (sx, sy) = (2 * x + dx, 2 * y + dy);
                if sx < w && sy < h {
                    let v = data[sy * w + sx];
                    if !v.is_nan() {
                        sum += f64::from(v);
                        n += 1;
                    }
                }
            }
            out.push(if n == 0 { f32::NAN } else { (sum / f64::from(n)) as f32 });
        }
    }
    (nw, nh, out)
}

/// `f(0), …, f(n − 1)` computed on up to as many threads as the machine has, in order.
fn encode_all(n: usize, f: impl Fn(usize) -> Vec<u8> + Sync) -> Vec<Vec<u8>> {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(n).max(1);
    if threads == 1 {
        return (0..n).map(f).collect();
    }
    let f = &f;
    let per = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || (t * per..((t + 1) * per).min(n)).map(f).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("an encoding thread panicked")).collect()
    })
}

/// One strip or tile: rows of `row` samples, predicted and compressed as `opts` says.
fn encode_block(samples: &[f32], row: usize, opts: &TiffOptions) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(samples.len() * 4);
    match opts.predictor {
        TiffPredictor::None => {
            // Into a sized buffer, four bytes a sample (a loop the compiler turns into wide
            // copies; extending by a flat map pushed byte by byte, about 1 ns a byte).
            bytes.resize(samples.len() * 4, 0);
            for (b, v) in bytes.chunks_exact_mut(4).zip(samples) {
                b.copy_from_slice(&v.to_le_bytes());
            }
        }
        TiffPredictor::FloatingPoint => {
            for r in samples.chunks(row) {
                let start = bytes.len();
                // Byte planes, most significant first (big-endian order of each sample).
                for plane in 0..4 {
                    bytes.extend(r.iter().map(|v| v.to_be_bytes()[plane]));
                }
                // Differences along the whole row of bytes, last to first.
                let b = &mut bytes[start..];
                for i in (1..b.len()).rev() {
                    b[i] = b[i].wrapping_sub(b[i - 1]);
                }
            }
        }
    }
    match opts.compression {
        TiffCompression::None => bytes,
        TiffCompression::Deflate { level } => {
            let mut z = flate2::write::ZlibEncoder::new(
                Vec::with_capacity(bytes.len() / 2),
                flate2::Compression::new(u32::from(level)),
            );
            // Writing into a Vec cannot fail.
            z.write_all(&bytes).expect("compressing into memory");
            z.finish().expect("compressing into memory")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_averages_the_valid_cells_of_each_block() {
        let n = f32::NAN;
        // 3 × 3: blocks {1,2,4,5} {3,6} {7,8} {9}; one NaN in the first block.
        let (w, h, v) = halve(&[1.0, 2.0, 3.0, 4.0, n, 6.0, 7.0, 8.0, 9.0], 3, 3);
        assert_eq!((w, h), (2, 2));
        assert_eq!(v, vec![(7.0f64 / 3.0) as f32, 4.5, 7.5, 9.0]);
        let (_, _, v) = halve(&[n, n, n, n], 2, 2);
        assert!(v[0].is_nan());
    }

    #[test]
    fn tiles_are_padded_with_nan() {
        let t = tile(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 2, 2, 0, 16);
        assert_eq!((t[0], t[16]), (3.0, 6.0));
        assert!(t[1].is_nan() && t[32].is_nan());
    }

    #[test]
    fn floating_point_predictor_matches_libtiffs_layout() {
        // Two samples 1.0 (3F800000) and 2.0 (40000000): planes 3F 40 | 80 00 | 00 00 | 00 00,
        // then byte differences: 3F 01 40 80 00 00 00 00.
        let opts = TiffOptions { compression: TiffCompression::None, ..TiffOptions::cog() };
        let opts = TiffOptions { predictor: TiffPredictor::FloatingPoint, ..opts };
        assert_eq!(encode_block(&[1.0, 2.0], 2, &opts), vec![0x3F, 0x01, 0x40, 0x80, 0, 0, 0, 0]);
    }

    #[test]
    fn bad_options_are_refused() {
        let base = TiffOptions::cog();
        for bad in [
            TiffOptions { compression: TiffCompression::Deflate { level: 10 }, ..base },
            TiffOptions { compression: TiffCompression::None, ..base },
            TiffOptions { tile_size: 500, ..base },
            TiffOptions { tile_size: 0, ..base },
            TiffOptions { tile_size: 8192, ..base },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        assert!(TiffOptions { tile_size: 16, ..base }.check().is_ok());
        assert!(TiffOptions::default().check().is_ok());
    }
}
