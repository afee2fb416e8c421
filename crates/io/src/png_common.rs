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
    check_raster_size(path, width as u64, height as u64)?;
    let map = |e: png::EncodingError| match e {
        png::EncodingError::IoError(io) => IoError::io(path, io),
        other => IoError::malformed(path, "PNG", other.to_string()),
    };
    atomic_write(path, |w| {
        let mut enc = png::Encoder::new(w, width as u32, height as u32);
        enc.set_color(color);
        enc.set_depth(depth);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(map)?;
        writer.write_image_data(data).map_err(map)?;
        writer.finish().map_err(map)
    })
}

/// Human name of a PNG colour type and depth, for error messages.
pub(crate) fn describe(color: png::ColorType, depth: png::BitDepth) -> String {
    format!("PNG sample format {color:?} at {} bits", depth as u8)
}
