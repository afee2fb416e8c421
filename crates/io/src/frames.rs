//! Sweeps of rendered frames: a folder of PNGs (`f0000.png`, `f0001.png`, … in name order) or a
//! `.zip` of them (the viewer's capture sweep; stored or deflate entries), each decoded to 8-bit
//! samples (any colour type or depth the png crate expands to 8 bits).

use crate::IoError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most frames read from one sweep.
pub const MAX_FRAMES: usize = 10_000;
/// Largest frame side accepted.
pub const MAX_FRAME_SIDE: u32 = 8192;
/// Largest zip entry read.
const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// One decoded frame: interleaved 8-bit samples, `channels` per pixel (1 grey, 2 grey + alpha,
/// 3 RGB, 4 RGBA), rows packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame's file name (in a folder) or entry name (in a zip).
    pub name: String,
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Samples per pixel.
    pub channels: usize,
    /// `width · height · channels` samples, row by row.
    pub pixels: Vec<u8>,
}

fn err(path: &Path, detail: impl Into<String>) -> IoError {
    IoError::Frames { path: path.to_path_buf(), detail: detail.into(), source: None }
}

fn err_from(path: &Path, detail: impl Into<String>, e: impl std::error::Error + Send + Sync + 'static) -> IoError {
    IoError::Frames { path: path.to_path_buf(), detail: detail.into(), source: Some(Box::new(e)) }
}

/// Decodes one PNG; `path` and `prefix` (`""`, or `"NAME: "` for a zip entry) name it in errors.
fn decode_png(bytes: &[u8], name: String, path: &Path, prefix: &str) -> Result<Frame, IoError> {
    let mut dec = png::Decoder::new(bytes);
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| err_from(path, format!("{prefix}not a PNG"), e))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w > MAX_FRAME_SIDE || h > MAX_FRAME_SIDE {
        return Err(err(path, format!("{prefix}{w}×{h} pixels, larger than {MAX_FRAME_SIDE} on a side")));
    }
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| err_from(path, format!("{prefix}cannot decode"), e))?;
    let (width, height, channels) = (info.width as usize, info.height as usize, info.color_type.samples());
    // Rows may be padded to `line_size`; repack when they are.
    let pixels = if info.line_size == width * channels {
        buf[..width * height * channels].to_vec()
    } else {
        buf.chunks(info.line_size).take(height).flat_map(|r| r[..width * channels].to_vec()).collect()
    };
    Ok(Frame { name, width, height, channels, pixels })
}

fn is_png(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".png")
}

fn check_count(path: &Path, n: usize) -> Result<(), IoError> {
    if n > MAX_FRAMES {
        return Err(err(path, format!("{n} frames, more than {MAX_FRAMES}")));
    }
    Ok(())
}

/// The PNG files of the folder `path`, sorted by name (at most [`MAX_FRAMES`]).
fn folder_pngs(path: &Path) -> Result<Vec<PathBuf>, IoError> {
    let list = std::fs::read_dir(path).map_err(|e| err_from(path, "cannot list", e))?;
    let mut names: Vec<PathBuf> = list
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(is_png))
        .collect();
    names.sort();
    check_count(path, names.len())?;
    Ok(names)
}

/// The PNG entries of the zip `z` (at `path`), sorted by name (at most [`MAX_FRAMES`]).
fn zip_pngs<R: Read + std::io::Seek>(path: &Path, z: &zip::ZipArchive<R>) -> Result<Vec<String>, IoError> {
    let mut names: Vec<String> = z.file_names().filter(|n| is_png(n) && !n.ends_with('/')).map(String::from).collect();
    names.sort();
    check_count(path, names.len())?;
    Ok(names)
}

fn read_folder(path: &Path) -> Result<Vec<Frame>, IoError> {
    let mut out = Vec::new();
    for p in folder_pngs(path)? {
        let bytes = std::fs::read(&p).map_err(|e| err_from(&p, "cannot read", e))?;
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        out.push(decode_png(&bytes, name, &p, "")?);
    }
    Ok(out)
}

fn read_zip(path: &Path) -> Result<Vec<Frame>, IoError> {
    let f = std::fs::File::open(path).map_err(|e| err_from(path, "cannot open", e))?;
    let mut z = zip::ZipArchive::new(f).map_err(|e| err_from(path, "not a folder or a zip of PNG frames", e))?;
    let mut out = Vec::new();
    for n in zip_pngs(path, &z)? {
        let mut e = z.by_name(&n).map_err(|e| err_from(path, format!("{n}: cannot open"), e))?;
        if e.size() > MAX_ENTRY_BYTES {
            return Err(err(path, format!("{n}: larger than 256 MiB")));
        }
        let mut bytes = Vec::with_capacity(e.size() as usize);
        e.read_to_end(&mut bytes).map_err(|e| err_from(path, format!("{n}: cannot read"), e))?;
        let prefix = format!("{n}: ");
        out.push(decode_png(&bytes, n, path, &prefix)?);
    }
    Ok(out)
}

/// A frame's size as its PNG header gives it, before anything is decoded ([`frame_headers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader {
    /// The frame's file name (in a folder) or entry name (in a zip).
    pub name: String,
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Samples per pixel once decoded to 8 bits (as [`read_frames`] gives them).
    pub channels: usize,
}

impl FrameHeader {
    /// Bytes of the decoded frame: `width · height · channels`.
    pub fn decoded_bytes(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.channels as u64
    }
}

/// Reads one PNG's header from `r` (nothing past the first image data chunk).
fn png_header(r: impl Read, name: String, path: &Path, prefix: &str) -> Result<FrameHeader, IoError> {
    let mut dec = png::Decoder::new(r);
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let reader = dec.read_info().map_err(|e| err_from(path, format!("{prefix}not a PNG"), e))?;
    let (colour, _) = reader.output_color_type();
    let info = reader.info();
    if info.width > MAX_FRAME_SIDE || info.height > MAX_FRAME_SIDE {
        let (w, h) = (info.width, info.height);
        return Err(err(path, format!("{prefix}{w}×{h} pixels, larger than {MAX_FRAME_SIDE} on a side")));
    }
    Ok(FrameHeader { name, width: info.width as usize, height: info.height as usize, channels: colour.samples() })
}

/// The sizes of a sweep's frames from their PNG headers alone, in the order [`read_frames`]
/// reads them, so a caller can weigh what decoding them all will take before it does. The same
/// count and side limits apply; a frame that is not a PNG is an error here too.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-headers-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// for i in 0..3 {
///     let g = bozkir_core::Grid::from_vec(4, 2, vec![[i * 50, 0, 0]; 8]);
///     bozkir_io::write_rgb8(&dir.join(format!("f{i:04}.png")), &g).unwrap();
/// }
/// let heads = bozkir_io::frames::frame_headers(&dir).unwrap();
/// let frames = bozkir_io::frames::read_frames(&dir).unwrap();
/// assert_eq!(heads.len(), 3);
/// for (h, f) in heads.iter().zip(&frames) {
///     assert_eq!((h.name.as_str(), h.width, h.height, h.channels), (f.name.as_str(), f.width, f.height, f.channels));
///     assert_eq!(h.decoded_bytes(), f.pixels.len() as u64);
/// }
/// std::fs::write(dir.join("f0003.png"), b"not a png").unwrap();
/// assert!(bozkir_io::frames::frame_headers(&dir).is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn frame_headers(path: &Path) -> Result<Vec<FrameHeader>, IoError> {
    if !path.exists() {
        return Err(err(path, "no such folder or zip"));
    }
    let mut out = Vec::new();
    if path.is_dir() {
        for p in folder_pngs(path)? {
            let f = std::fs::File::open(&p).map_err(|e| err_from(&p, "cannot read", e))?;
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            out.push(png_header(std::io::BufReader::new(f), name, &p, "")?);
        }
    } else {
        let f = std::fs::File::open(path).map_err(|e| err_from(path, "cannot open", e))?;
        let mut z = zip::ZipArchive::new(f).map_err(|e| err_from(path, "not a folder or a zip of PNG frames", e))?;
        for n in zip_pngs(path, &z)? {
            let e = z.by_name(&n).map_err(|e| err_from(path, format!("{n}: cannot open"), e))?;
            let prefix = format!("{n}: ");
            out.push(png_header(e.take(MAX_ENTRY_BYTES), n, path, &prefix)?);
        }
    }
    Ok(out)
}

/// The frames of a sweep in name order: the PNGs of the folder `path`, or of the zip `path`.
/// Fewer than 2 frames is an error (a sweep compares consecutive pairs).
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("bozkir-doc-frames-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// for i in 0..2 {
///     let g = bozkir_core::Grid::from_vec(2, 1, vec![[i * 100, 0, 0], [255, 255, 255]]);
///     bozkir_io::write_rgb8(&dir.join(format!("f{i:04}.png")), &g).unwrap();
/// }
/// let frames = bozkir_io::frames::read_frames(&dir).unwrap();
/// assert_eq!(frames.len(), 2);
/// assert_eq!((frames[1].name.as_str(), frames[1].width, frames[1].channels), ("f0001.png", 2, 3));
/// assert_eq!(frames[1].pixels[..3], [100, 0, 0]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_frames(path: &Path) -> Result<Vec<Frame>, IoError> {
    if !path.exists() {
        return Err(err(path, "no such folder or zip"));
    }
    let out = if path.is_dir() { read_folder(path)? } else { read_zip(path)? };
    if out.len() < 2 {
        return Err(err(path, format!("{} PNG frame(s); a sweep needs at least 2", out.len())));
    }
    Ok(out)
}
