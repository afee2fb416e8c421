//! Rendered frames to files: stills as PNG or PPM, sequences as an animated GIF, an MP4 (through
//! `ffmpeg` when it is on the `PATH`), or numbered PNG/PPM files.
//!
//! Frames are 8-bit sRGB, three bytes per pixel, rows from the top ([`RgbFrame`]). The format
//! follows the file name's extension ([`ImageFormat::from_path`]):
//!
//! | extension | one frame | several frames |
//! |---|---|---|
//! | `.png` | 8-bit RGB PNG | `name_0000.png`, `name_0001.png`, … beside `name.png` |
//! | `.ppm` | binary PPM (`P6`, maxval 255) | numbered like PNG |
//! | `.gif` | a one-frame GIF | an animated GIF looping forever, `1/fps` s per frame |
//! | `.mp4` | a one-frame H.264 video | H.264 (`libx264`, `yuv420p`, `+faststart`) at `fps` |
//!
//! GIF frames are quantised to 256 colours each by the `gif` crate's NeuQuant (deterministic:
//! the same frames give the same bytes). Its frame delay is in hundredths of a second, so the
//! rate is `100 / round(100 / fps)` (25 fps stays 25, 30 becomes 33.3). MP4 pads an odd width or
//! height by one black column or row (H.264's 4:2:0 needs even sides).
//!
//! Every file is written atomically (a temporary sibling renamed into place). Frames are checked
//! whole before the first byte: no frames, a zero or oversized side, frames of different sizes or
//! a sample count that is not `width · height · 3`, a rate outside (0, 120] are refused with an
//! [`IoError::InvalidArgument`]; so is an MP4 when `ffmpeg` is missing, with a message saying so.

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use crate::limits::check_raster_size;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest side a GIF holds (its sizes are 16-bit).
pub const GIF_MAX_SIDE: usize = 65_535;
/// NeuQuant sampling factor of the GIF quantiser (1 best, 30 fastest).
pub const GIF_SPEED: i32 = 1;
/// Most frames written in one call.
pub const MAX_FRAMES: usize = 10_000;
/// Highest frame rate accepted.
pub const MAX_FPS: f64 = 120.0;

/// One frame: `width × height` pixels, RGB bytes, rows from the top.
#[derive(Debug, Clone, Copy)]
pub struct RgbFrame<'a> {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width · height · 3` bytes.
    pub rgb: &'a [u8],
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG (numbered files for several frames).
    Png,
    /// Binary PPM (numbered files for several frames).
    Ppm,
    /// Animated GIF.
    Gif,
    /// H.264 MP4 through `ffmpeg`.
    Mp4,
}

impl ImageFormat {
    /// The format named by `path`'s extension (case-insensitive), or an error listing the ones
    /// there are.
    pub fn from_path(path: &Path) -> Result<ImageFormat> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        match ext.as_str() {
            "png" => Ok(ImageFormat::Png),
            "ppm" => Ok(ImageFormat::Ppm),
            "gif" => Ok(ImageFormat::Gif),
            "mp4" => Ok(ImageFormat::Mp4),
            _ => Err(IoError::invalid(path, format!("unknown image extension {ext:?}: use .png, .ppm, .gif or .mp4"))),
        }
    }

    /// Whether the format holds several frames in one file.
    pub fn is_animation(self) -> bool {
        matches!(self, ImageFormat::Gif | ImageFormat::Mp4)
    }
}

fn check_frames(path: &Path, frames: &[RgbFrame<'_>], fps: f64) -> Result<(usize, usize)> {
    let first = frames.first().ok_or_else(|| IoError::invalid(path, "no frames to write"))?;
    if frames.len() > MAX_FRAMES {
        return Err(IoError::invalid(path, format!("{} frames, more than the {MAX_FRAMES} allowed", frames.len())));
    }
    let (w, h) = (first.width, first.height);
    if w == 0 || h == 0 {
        return Err(IoError::invalid(path, format!("a {w}×{h} image has no pixels")));
    }
    check_raster_size(path, w as u64, h as u64)?;
    for (i, f) in frames.iter().enumerate() {
        if (f.width, f.height) != (w, h) {
            return Err(IoError::invalid(path, format!("frame {i} is {}×{}, frame 0 is {w}×{h}", f.width, f.height)));
        }
        if f.rgb.len() != w * h * 3 {
            return Err(IoError::invalid(
                path,
                format!("frame {i} holds {} bytes, a {w}×{h} RGB frame holds {}", f.rgb.len(), w * h * 3),
            ));
        }
    }
    if !(fps.is_finite() && fps > 0.0 && fps <= MAX_FPS) {
        return Err(IoError::invalid(path, format!("frame rate {fps} outside (0, {MAX_FPS}]")));
    }
    Ok((w, h))
}

/// The bytes of a binary PPM (`P6`) of `frame`.
pub fn encode_ppm(frame: &RgbFrame<'_>) -> Vec<u8> {
    let mut out = format!("P6\n{} {}\n255\n", frame.width, frame.height).into_bytes();
    out.extend_from_slice(frame.rgb);
    out
}

/// The bytes of an 8-bit RGB PNG of `frame`.
pub fn encode_png(frame: &RgbFrame<'_>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let err = |e: png::EncodingError| IoError::invalid(Path::new("<png>"), e.to_string());
    {
        let mut enc = png::Encoder::new(&mut out, frame.width as u32, frame.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        // Rendered frames are smooth gradients: adaptive filtering and the best Deflate level
        // make them about a quarter smaller than the defaults.
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        enc.set_compression(png::Compression::Best);
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(frame.rgb).map_err(err)?;
        w.finish().map_err(err)?;
    }
    Ok(out)
}

/// The GIF frame delay in hundredths of a second for `fps` (at least 1).
pub fn gif_delay(fps: f64) -> u16 {
    (100.0 / fps).round().clamp(1.0, u16::MAX as f64) as u16
}

/// The bytes of an animated GIF of `frames` at `fps`, looping forever (see the module docs).
pub fn encode_gif(frames: &[RgbFrame<'_>], fps: f64) -> Result<Vec<u8>> {
    let path = Path::new("<gif>");
    let (w, h) = check_frames(path, frames, fps)?;
    if w > GIF_MAX_SIDE || h > GIF_MAX_SIDE {
        return Err(IoError::invalid(path, format!("a GIF side is at most {GIF_MAX_SIDE} pixels, got {w}×{h}")));
    }
    let err = |e: gif::EncodingError| IoError::invalid(path, e.to_string());
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w as u16, h as u16, &[]).map_err(err)?;
        if frames.len() > 1 {
            enc.set_repeat(gif::Repeat::Infinite).map_err(err)?;
        }
        let delay = gif_delay(fps);
        for f in frames {
            let mut frame = gif::Frame::from_rgb_speed(w as u16, h as u16, f.rgb, GIF_SPEED);
            frame.delay = delay;
            enc.write_frame(&frame).map_err(err)?;
        }
    }
    Ok(out)
}

/// The file names [`write_frames`] uses for `n` PNG/PPM frames at `path`: `path` itself for one,
/// else `stem_0000.ext`, `stem_0001.ext`, … beside it (enough digits for `n`, at least 4).
pub fn numbered_paths(path: &Path, n: usize) -> Vec<PathBuf> {
    if n == 1 {
        return vec![path.to_path_buf()];
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let digits = (n - 1).to_string().len().max(4);
    (0..n).map(|i| path.with_file_name(format!("{stem}_{i:0digits$}.{ext}"))).collect()
}

/// Whether `ffmpeg` runs (`ffmpeg -version`).
pub fn ffmpeg_available() -> bool {
    std::process::Command::new("ffmpeg")
        .arg("-version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Writes `frames` to `path` in the format its extension names (see the module docs) at `fps`
/// frames per second (used by GIF and MP4). Returns the files written.
pub fn write_frames(path: impl AsRef<Path>, frames: &[RgbFrame<'_>], fps: f64) -> Result<Vec<PathBuf>> {
    let path = path.as_ref();
    let format = ImageFormat::from_path(path)?;
    check_frames(path, frames, fps)?;
    match format {
        ImageFormat::Png | ImageFormat::Ppm => {
            let paths = numbered_paths(path, frames.len());
            let mut written = Vec::with_capacity(paths.len());
            for (p, f) in paths.iter().zip(frames) {
                let bytes = if format == ImageFormat::Png { encode_png(f)? } else { encode_ppm(f) };
                let res = atomic_write(p, |w| w.write_all(&bytes).map_err(|e| IoError::io(p, e)));
                if let Err(e) = res {
                    for done in &written {
                        let _ = std::fs::remove_file(done);
                    }
                    return Err(e);
                }
                written.push(p.clone());
            }
            Ok(written)
        }
        ImageFormat::Gif => {
            let bytes = encode_gif(frames, fps).map_err(|e| retarget(e, path))?;
            atomic_write(path, |w| w.write_all(&bytes).map_err(|e| IoError::io(path, e)))?;
            Ok(vec![path.to_path_buf()])
        }
        ImageFormat::Mp4 => {
            write_mp4(path, frames, fps)?;
            Ok(vec![path.to_path_buf()])
        }
    }
}

/// `e` naming `path` instead of an encoder's placeholder.
fn retarget(e: IoError, path: &Path) -> IoError {
    match e {
        IoError::InvalidArgument { detail, .. } => IoError::invalid(path, detail),
        other => other,
    }
}

fn write_mp4(path: &Path, frames: &[RgbFrame<'_>], fps: f64) -> Result<()> {
    use std::process::{Command, Stdio};
    if !ffmpeg_available() {
        return Err(IoError::invalid(
            path,
            "MP4 needs ffmpeg on the PATH and none was found: install it (Debian: apt-get install ffmpeg) or write a .gif",
        ));
    }
    let (w, h) = (frames[0].width, frames[0].height);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out.mp4".into());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp.mp4", std::process::id()));
    let mut child = Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s"])
        .arg(format!("{w}x{h}"))
        .arg("-r")
        .arg(format!("{fps}"))
        .args(["-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        .args(["-movflags", "+faststart"])
        .arg(&tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| IoError::io(path, e))?;
    let fed = {
        let mut stdin = child.stdin.take().expect("stdin was piped");
        frames.iter().try_for_each(|f| stdin.write_all(f.rgb))
    };
    let out = child.wait_with_output().map_err(|e| IoError::io(path, e))?;
    let failed = |why: String| {
        let _ = std::fs::remove_file(&tmp);
        Err(IoError::invalid(path, why))
    };
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return failed(format!("ffmpeg failed ({}): {msg}", out.status));
    }
    if let Err(e) = fed {
        return failed(format!("feeding ffmpeg: {e}"));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        IoError::io(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(w: usize, h: usize, shift: u8) -> Vec<u8> {
        (0..w * h).flat_map(|i| [(i % w * 255 / w) as u8, (i / w * 255 / h) as u8, shift]).collect()
    }

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(ImageFormat::from_path(Path::new("a/B.PNG")).unwrap(), ImageFormat::Png);
        assert_eq!(ImageFormat::from_path(Path::new("x.gif")).unwrap(), ImageFormat::Gif);
        let e = ImageFormat::from_path(Path::new("x.jpg")).unwrap_err().to_string();
        assert!(e.contains("\"jpg\"") && e.contains(".gif"), "{e}");
        assert!(ImageFormat::from_path(Path::new("noext")).is_err());
    }

    #[test]
    fn ppm_has_its_header_and_samples() {
        let rgb = gradient(3, 2, 7);
        let bytes = encode_ppm(&RgbFrame { width: 3, height: 2, rgb: &rgb });
        assert!(bytes.starts_with(b"P6\n3 2\n255\n"));
        assert_eq!(&bytes[11..], &rgb[..]);
    }

    #[test]
    fn gif_frames_decode_close_to_the_input() {
        let (w, h) = (40, 30);
        let a = gradient(w, h, 0);
        let b = gradient(w, h, 200);
        let frames = [RgbFrame { width: w, height: h, rgb: &a }, RgbFrame { width: w, height: h, rgb: &b }];
        let bytes = encode_gif(&frames, 25.0).unwrap();
        assert_eq!(bytes, encode_gif(&frames, 25.0).unwrap(), "deterministic");
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = opts.read_info(&bytes[..]).unwrap();
        let mut seen = 0;
        while let Some(f) = dec.read_next_frame().unwrap() {
            assert_eq!((f.width as usize, f.height as usize, f.delay), (w, h, 4));
            let src = [&a, &b][seen];
            let err: f64 = f
                .buffer
                .chunks(4)
                .zip(src.chunks(3))
                .map(|(d, s)| (0..3).map(|k| (d[k] as f64 - s[k] as f64).abs()).sum::<f64>())
                .sum::<f64>()
                / (w * h * 3) as f64;
            assert!(err < 6.0, "frame {seen}: mean error {err}");
            seen += 1;
        }
        assert_eq!(seen, 2);
    }

    #[test]
    fn bad_frames_are_refused() {
        let rgb = gradient(4, 4, 0);
        let ok = RgbFrame { width: 4, height: 4, rgb: &rgb };
        let p = Path::new("x.gif");
        assert!(check_frames(p, &[], 10.0).unwrap_err().to_string().contains("no frames"));
        let short = RgbFrame { width: 4, height: 4, rgb: &rgb[..10] };
        assert!(check_frames(p, &[ok, short], 10.0).unwrap_err().to_string().contains("frame 1 holds 10 bytes"));
        let other = RgbFrame { width: 2, height: 8, rgb: &rgb };
        assert!(check_frames(p, &[ok, other], 10.0).unwrap_err().to_string().contains("frame 1 is 2×8"));
        let empty = RgbFrame { width: 0, height: 4, rgb: &[] };
        assert!(check_frames(p, &[empty], 10.0).unwrap_err().to_string().contains("no pixels"));
        for fps in [0.0, -1.0, f64::NAN, 1000.0] {
            assert!(check_frames(p, &[ok], fps).unwrap_err().to_string().contains("frame rate"));
        }
    }

    #[test]
    fn numbered_paths_sit_beside_the_name() {
        let p = numbered_paths(Path::new("out/spin.png"), 3);
        assert_eq!(p[0], Path::new("out/spin_0000.png"));
        assert_eq!(p[2], Path::new("out/spin_0002.png"));
        assert_eq!(numbered_paths(Path::new("a.ppm"), 1), vec![PathBuf::from("a.ppm")]);
        assert_eq!(numbered_paths(Path::new("a.ppm"), 12_000)[11_999], Path::new("a_11999.ppm"));
    }
}
