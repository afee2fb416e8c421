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
    let (mut file, len) = open_with_magic(path, &TIFF_MAGICS, "TIFF")?;
    let little_endian = check_ifd_values(path, &mut file, len)?;
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(MAX_CELLS * 8).unwrap_or(usize::MAX);
    limits.intermediate_buffer_size = 1 << 30;
    limits.ifd_value_size = 64 << 20;
    let mut dec =
        Decoder::new(BufReader::with_capacity(1 << 16, file)).map_err(|e| map_tiff(path, e))?.with_limits(limits);
    let (w, h) = dec.dimensions().map_err(|e| map_tiff(path, e))?;
    let (width, height) = check_raster_size(path, u64::from(w), u64::from(h))?;
    let spp: u16 = dec.find_tag_unsigned(Tag::SamplesPerPixel).map_err(|e| map_tiff(path, e))?.unwrap_or(1);
    check_claims(path, &mut dec, width, height, spp, len, little_endian)?;
    Ok((dec, width, height, spp))
}

/// Bytes of one value of TIFF field type `t` (0 for a type this check does not know).
const fn type_bytes(t: u16) -> u64 {
    match t {
        1 | 2 | 6 | 7 => 1,
        3 | 8 => 2,
        4 | 9 | 11 | 13 => 4,
        5 | 10 | 12 | 16 | 17 | 18 => 8,
        _ => 0,
    }
}

/// Every entry of the first IFD must claim no more value bytes than the file holds, checked
/// on the raw entries before the decoder reads any tag (the decoder reserves room for a tag's
/// claimed count first: a 306-byte file claiming 83,886,086 doubles asked for 2.68 GB).
/// Returns whether the file is little-endian.
fn check_ifd_values(path: &Path, file: &mut File, len: u64) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut head = [0u8; 16];
    file.seek(SeekFrom::Start(0)).map_err(|e| IoError::io(path, e))?;
    let got = file.read(&mut head).map_err(|e| IoError::io(path, e))?;
    let le = head[0] == b'I';
    let u16_at = |b: &[u8]| if le { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) };
    let u32_at = |b: &[u8]| {
        if le {
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        } else {
            u32::from_be_bytes([b[0], b[1], b[2], b[3]])
        }
    };
    // Classic TIFF only; BigTIFF (43) is left to the decoder's own limits.
    if got < 8 || u16_at(&head[2..4]) != 42 {
        file.seek(SeekFrom::Start(0)).map_err(|e| IoError::io(path, e))?;
        return Ok(le);
    }
    let ifd = u64::from(u32_at(&head[4..8]));
    if ifd + 2 <= len {
        let mut n = [0u8; 2];
        file.seek(SeekFrom::Start(ifd)).map_err(|e| IoError::io(path, e))?;
        file.read_exact(&mut n).map_err(|e| IoError::io(path, e))?;
        let count = u64::from(u16_at(&n)).min(len.saturating_sub(ifd + 2) / 12);
        let mut entries = vec![0u8; (count * 12) as usize];
        file.read_exact(&mut entries).map_err(|e| IoError::io(path, e))?;
        for e in entries.chunks(12) {
            let (tag, typ, values) = (u16_at(&e[0..2]), u16_at(&e[2..4]), u64::from(u32_at(&e[4..8])));
            let bytes = values.saturating_mul(type_bytes(typ));
            if bytes > len {
                return Err(IoError::Truncated {
                    path: path.to_path_buf(),
                    detail: format!("tag {tag} claims {values} values ({bytes} bytes) in a file of {len} bytes"),
                });
            }
        }
    }
    file.seek(SeekFrom::Start(0)).map_err(|e| IoError::io(path, e))?;
    Ok(le)
}

/// The most bytes one compressed byte can decode to, by TIFF `Compression` code: none 1,
/// PackBits 64 (2 bytes give at most 128), Deflate 1032 (zlib's bound), anything else
/// (LZW: 12-bit codes of at most 4096 bytes) 2731.
pub(crate) const fn max_expansion(compression: u64) -> u64 {
    match compression {
        1 => 1,
        32773 => 64,
        8 | 32946 => 1032,
        _ => 2731,
    }
}

/// Check what the first image's header claims against the file, before anything is decoded:
/// every sample 8, 16, 32 or 64 bits; every strip or tile inside the file; and the decoded
/// size `width × height × samples × bytes` no more than the strips' bytes can give
/// ([`max_expansion`] per compressed byte, plus 1 KiB per strip for small images); and not the
/// floating-point predictor in a big-endian file.
fn check_claims(
    path: &Path,
    dec: &mut TiffDecoder,
    width: usize,
    height: usize,
    spp: u16,
    len: u64,
    little_endian: bool,
) -> Result<()> {
    let m = |e| map_tiff(path, e);
    if spp == 0 {
        return Err(IoError::malformed(path, "TIFF", "SamplesPerPixel 0"));
    }
    let bits = match dec.find_tag(Tag::BitsPerSample).map_err(m)? {
        None => vec![1],
        Some(v) => v.into_u64_vec().map_err(m)?,
    };
    for &b in &bits {
        match b {
            0 => return Err(IoError::malformed(path, "TIFF", "BitsPerSample 0")),
            8 | 16 | 32 | 64 => {}
            b => {
                let s = if b == 1 { "" } else { "s" };
                return Err(IoError::unsupported(
                    path,
                    format!("TIFF sample size: {b} bit{s} per sample (8, 16, 32 or 64 are read)"),
                ));
            }
        }
    }
    let sample_bytes = bits.iter().copied().max().unwrap_or(8) / 8;
    let need = (width as u64) * (height as u64) * u64::from(spp) * sample_bytes;
    let compression = dec.find_tag_unsigned::<u64>(Tag::Compression).map_err(m)?.unwrap_or(1);
    // The `tiff` crate (0.9) returns byte-swapped samples for some blocks of a big-endian file
    // with the floating-point predictor: refuse it rather than read wrong heights.
    let predictor = dec.find_tag_unsigned::<u16>(Tag::Predictor).map_err(m)?.unwrap_or(1);
    if predictor == 3 && !little_endian {
        return Err(IoError::unsupported(
            path,
            "big-endian TIFF with the floating-point predictor (3); rewrite it little-endian, \
             e.g. gdal_translate -co ENDIANNESS=LITTLE",
        ));
    }
    let tiled = dec.find_tag(Tag::TileOffsets).map_err(m)?.is_some();
    let (off_tag, count_tag, what) = if tiled {
        (Tag::TileOffsets, Tag::TileByteCounts, "tile")
    } else {
        (Tag::StripOffsets, Tag::StripByteCounts, "strip")
    };
    let (Some(offsets), Some(counts)) = (dec.find_tag(off_tag).map_err(m)?, dec.find_tag(count_tag).map_err(m)?) else {
        return Err(IoError::malformed(path, "TIFF", format!("no {what} offsets or byte counts")));
    };
    let (offsets, counts) = (offsets.into_u64_vec().map_err(m)?, counts.into_u64_vec().map_err(m)?);
    if offsets.len() != counts.len() {
        return Err(IoError::malformed(
            path,
            "TIFF",
            format!("{} {what} offsets but {} byte counts", offsets.len(), counts.len()),
        ));
    }
    let mut held = 0u64;
    for (i, (&o, &c)) in offsets.iter().zip(&counts).enumerate() {
        if o.saturating_add(c) > len {
            return Err(IoError::truncated(
                path,
                format!("{what} {i} of {c} bytes at byte {o} runs past the end of the {len}-byte file"),
            ));
        }
        held = held.saturating_add(c);
    }
    let can = held.saturating_mul(max_expansion(compression)).saturating_add(1024 * offsets.len() as u64);
    let short = if compression == 1 { need > held } else { need > can };
    if short {
        return Err(IoError::truncated(
            path,
            format!(
                "the header claims {width}×{height}×{spp} samples of {sample_bytes} bytes ({need} bytes); \
                 its {n} {what}(s) hold {held} bytes (compression {compression}), at most {can} decoded",
                n = offsets.len(),
                can = if compression == 1 { held } else { can },
            ),
        ));
    }
    Ok(())
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
