//! PNG decoding and encoding shared by the PNG formats (16-bit grey, rg16, 8-bit grey, RGB).

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, open_with_magic};
use crate::limits::{check_raster_size, MAX_CELLS};
use std::path::Path;

/// The PNG signature.
pub(crate) const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The most bytes one byte of a Deflate stream decodes to (zlib's bound, 1032:1): a PNG whose
/// header claims more pixel bytes than its file length times this is refused before allocating.
pub(crate) const DEFLATE_MAX_EXPANSION: u64 = 1032;

/// A decoded PNG: raw samples as stored (16-bit samples big-endian).
pub(crate) struct RawPng {
    pub width: usize,
    pub height: usize,
    pub color: png::ColorType,
    pub depth: png::BitDepth,
    pub data: Vec<u8>,
}

fn map_decode(path: &Path, e: png::DecodingError) -> IoError {
    match e {
        png::DecodingError::IoError(io) => IoError::io(path, io),
        png::DecodingError::LimitsExceeded => IoError::TooMany {
            path: path.to_path_buf(),
            what: "decoded PNG bytes",
            count: u64::MAX,
            limit: MAX_CELLS * 8,
        },
        png::DecodingError::Format(f) => {
            let msg = f.to_string();
            if msg.contains("end") || msg.contains("EOF") || msg.contains("missing") {
                IoError::truncated(path, msg)
            } else {
                IoError::malformed(path, "PNG", msg)
            }
        }
        other => IoError::malformed(path, "PNG", other.to_string()),
    }
}

/// Decode a PNG without transformations, checking the size in the header before allocating.
pub(crate) fn decode(path: &Path) -> Result<RawPng> {
    let (file, len) = open_with_magic(path, &[PNG_MAGIC], "PNG")?;
    let limits = png::Limits { bytes: usize::try_from(MAX_CELLS * 8).unwrap_or(usize::MAX) };
    let mut decoder = png::Decoder::new_with_limits(std::io::BufReader::with_capacity(1 << 16, file), limits);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().map_err(|e| map_decode(path, e))?;
    let (w, h, color, depth) = {
        let info = reader.info();
        (info.width, info.height, info.color_type, info.bit_depth)
    };
    let (width, height) = check_raster_size(path, u64::from(w), u64::from(h))?;
    if reader.info().is_animated() {
        return Err(IoError::unsupported(path, "animated PNG (APNG)"));
    }
    let size = reader.output_buffer_size() as u64;
    let can = len.saturating_mul(DEFLATE_MAX_EXPANSION);
    if size > can {
        return Err(IoError::truncated(
            path,
            format!(
                "the header claims {w}×{h} pixels ({size} bytes decoded); a {len}-byte file holds at most {can} \
                 (Deflate expands at most {DEFLATE_MAX_EXPANSION}×)"
            ),
        ));
    }
    let mut data = vec![0u8; size as usize];
    reader.next_frame(&mut data).map_err(|e| map_decode(path, e))?;
    Ok(RawPng { width, height, color, depth, data })
}

/// Encode `data` (already laid out for `color`/`depth`, 16-bit big-endian) atomically to `path`.
pub(crate) fn encode(
    path: &Path,
    width: usize,
    height: usize,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
) -> Result<()> {
    let row_len = width * color.samples() * (depth as usize) / 8;
    if data.len() != row_len * height {
        return Err(IoError::invalid(
            path,
            format!("{} bytes of pixels for a {width}×{height} PNG of {row_len} bytes a row", data.len()),
        ));
    }
    encode_rows(path, width, height, color, depth, |y, row| row.copy_from_slice(&data[y * row_len..][..row_len]))
}

/// Encode a `width × height` PNG of `color`/`depth` atomically to `path`, `fill(y, row)` writing
/// row `y`'s bytes (16-bit samples big-endian). The rows are filtered and compressed in strips
/// in parallel ([`crate::png_encode`]): the same bytes for any thread count.
pub(crate) fn encode_rows(
    path: &Path,
    width: usize,
    height: usize,
    color: png::ColorType,
    depth: png::BitDepth,
    fill: impl Fn(usize, &mut [u8]) + Sync,
) -> Result<()> {
    check_raster_size(path, width as u64, height as u64)?;
    let bits = match depth {
        png::BitDepth::Eight => 8,
        png::BitDepth::Sixteen => 16,
        d => return Err(IoError::invalid(path, format!("{} cannot be written", describe(color, d)))),
    };
    if color == png::ColorType::Indexed {
        return Err(IoError::invalid(path, format!("{} cannot be written", describe(color, depth))));
    }
    atomic_write(path, |w| {
        crate::png_encode::write_png(w, width, height, color as u8, color.samples(), bits, fill)
            .map_err(|e| IoError::io(path, e))
    })
}

/// Human name of a PNG colour type and depth, for error messages.
pub(crate) fn describe(color: png::ColorType, depth: png::BitDepth) -> String {
    format!("PNG sample format {color:?} at {} bits", depth as u8)
}
