//! TIFF decoding helpers shared by the f32 TIFF and GeoTIFF readers.

use crate::error::{IoError, Result};
use crate::fsio::open_with_magic;
use crate::limits::{check_raster_size, MAX_CELLS};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;
use tiff::TiffError;

/// Classic and BigTIFF signatures, both byte orders.
const TIFF_MAGICS: [&[u8]; 4] = [b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"];

pub(crate) type TiffDecoder = Decoder<BufReader<File>>;

pub(crate) fn map_tiff(path: &Path, e: TiffError) -> IoError {
    match e {
        TiffError::IoError(io) => IoError::io(path, io),
        TiffError::FormatError(f) => {
            let msg = f.to_string();
            if msg.contains("signature") {
                IoError::WrongMagic { path: path.to_path_buf(), format: "TIFF" }
            } else {
                IoError::malformed(path, "TIFF", msg)
            }
        }
        TiffError::UnsupportedError(u) => IoError::unsupported(path, format!("TIFF feature: {u}")),
        TiffError::LimitsExceeded => IoError::TooMany {
            path: path.to_path_buf(),
            what: "TIFF buffer bytes",
            count: u64::MAX,
            limit: MAX_CELLS * 8,
        },
        other => IoError::malformed(path, "TIFF", other.to_string()),
    }
}

/// Open a TIFF, check its magic and its size against the limits. Returns the decoder
/// positioned on the first image, `(width, height)` and the samples per pixel.
pub(crate) fn open_any(path: &Path) -> Result<(TiffDecoder, usize, usize, u16)> {
    let (file, _len) = open_with_magic(path, &TIFF_MAGICS, "TIFF")?;
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(MAX_CELLS * 8).unwrap_or(usize::MAX);
    limits.intermediate_buffer_size = 1 << 30;
    limits.ifd_value_size = 64 << 20;
    let mut dec =
        Decoder::new(BufReader::with_capacity(1 << 16, file)).map_err(|e| map_tiff(path, e))?.with_limits(limits);
    let (w, h) = dec.dimensions().map_err(|e| map_tiff(path, e))?;
    let (width, height) = check_raster_size(path, u64::from(w), u64::from(h))?;
    let spp: u16 = dec.find_tag_unsigned(Tag::SamplesPerPixel).map_err(|e| map_tiff(path, e))?.unwrap_or(1);
    Ok((dec, width, height, spp))
}

/// [`open_any`] for a single-channel raster: refuses more than one sample per pixel.
pub(crate) fn open(path: &Path) -> Result<(TiffDecoder, usize, usize)> {
    let (dec, width, height, spp) = open_any(path)?;
    if spp != 1 {
        return Err(IoError::unsupported(path, format!("TIFF with {spp} samples per pixel (need a single channel)")));
    }
    Ok((dec, width, height))
}

/// Decode the first image; the caller has checked its size.
pub(crate) fn read_image(path: &Path, dec: &mut TiffDecoder) -> Result<DecodingResult> {
    dec.read_image().map_err(|e| map_tiff(path, e))
}

/// Name of a decoded sample type, for messages.
pub(crate) fn sample_name(r: &DecodingResult) -> &'static str {
    match r {
        DecodingResult::U8(_) => "uint8",
        DecodingResult::U16(_) => "uint16",
        DecodingResult::U32(_) => "uint32",
        DecodingResult::U64(_) => "uint64",
        DecodingResult::F32(_) => "float32",
        DecodingResult::F64(_) => "float64",
        DecodingResult::I8(_) => "int8",
        DecodingResult::I16(_) => "int16",
        DecodingResult::I32(_) => "int32",
        DecodingResult::I64(_) => "int64",
    }
}

/// Optional f64 array tag.
pub(crate) fn f64_tag(path: &Path, dec: &mut TiffDecoder, tag: Tag) -> Result<Option<Vec<f64>>> {
    match dec.find_tag(tag).map_err(|e| map_tiff(path, e))? {
        None => Ok(None),
        Some(v) => v.into_f64_vec().map(Some).map_err(|e| map_tiff(path, e)),
    }
}
