//! Detail textures from photos, and `bozkir antitile`: one photo over a plane under every
//! anti-tiling mode ([`bozkir_render::antitile`]), side by side, with the repetition metric of
//! `bozkir metrics` and the contrast each mode keeps.

use crate::folder::{rgb_grid, Folder};
use crate::{PipelineError, Result};
use bozkir_core::hash::hash_unit;
use bozkir_core::{Grid, Observer};
use bozkir_io::Encoding;
use bozkir_render::antitile::{encode_srgb8, luminance, render_plane, DetailTexture, Tiling, TilingParams};
use bozkir_render::draw::{hstack, with_label};
use bozkir_render::Rgb8Image;
use bozkir_splat::tiling::metrics::repetition_lags;
use std::path::{Path, PathBuf};

/// A photo (PNG: grey, grey + alpha, RGB or RGBA, 8 or 16 bits) as a detail texture; errors
/// name the file.
pub fn load_texture(path: &Path) -> Result<DetailTexture> {
    if !path.exists() {
        return Err(PipelineError::NoSuchFile(path.to_path_buf()));
    }
    let photo = bozkir_io::read_photo(path)?;
    DetailTexture::from_srgb(photo.width(), photo.height(), photo.data())
        .map_err(|e| PipelineError::step(format!("{}: not usable as a texture", path.display()), e))
}

/// A run of `bozkir antitile`.
#[derive(Debug, Clone)]
pub struct AntitileRequest {
    /// The photo.
    pub photo: PathBuf,
    /// The modes to render, in order.
    pub modes: Vec<Tiling>,
    /// Side of each rendering in pixels (a multiple of `repeats`).
    pub size: usize,
    /// Texture repeats across each rendering (at least 2).
    pub repeats: usize,
    /// Lattice size, seed and blend settings (the mode is taken from `modes`).
    pub tiling: TilingParams,
}

/// What one mode did.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeReport {
    /// The mode.
    pub mode: Tiling,
    /// Texture fetches per sample.
    pub fetches: usize,
    /// Lattice excess of the luminance at the texture's period (1 periodic, 0 none):
    /// [`bozkir_splat::tiling::metrics::repetition_lags`] with up to 3 lags.
    pub repetition: f64,
    /// Standard deviation of the luminance over that of the photo at the renderings' level of
    /// detail, fetched at random points (so a plain rendering aligned with the texels can exceed 1).
    pub contrast: f64,
    /// Mean luminance (linear).
    pub mean: f64,
    /// The file written.
    pub file: String,
}

/// Render `req.photo` under each mode into `dir` (`<mode>.png`, `sheet.png` with every mode
/// side by side and labelled, `antitile.json` with the reports). Step: `render`.
pub fn antitile(req: &AntitileRequest, dir: &Path, obs: &dyn Observer) -> Result<Vec<ModeReport>> {
    if req.modes.is_empty() {
        return Err(PipelineError::invalid("no modes to render"));
    }
    if req.repeats < 2 || req.size == 0 || !req.size.is_multiple_of(req.repeats) || req.size / req.repeats < 4 {
        return Err(PipelineError::invalid(format!(
            "size {} with {} repeats: the size must be a multiple of the repeats (at least 2), 4 pixels or more each",
            req.size, req.repeats
        )));
    }
    let tex = load_texture(&req.photo)?;
    obs.step("render");
    let period = req.size / req.repeats;
    let lags = (req.repeats / 2).clamp(1, 3);
    let n = req.size;
    let lum_sd = |img: &[[f64; 3]]| {
        let l: Vec<f64> = img.iter().map(|&c| luminance(c)).collect();
        let m = l.iter().sum::<f64>() / l.len() as f64;
        let sd = (l.iter().map(|v| (v - m).powi(2)).sum::<f64>() / l.len() as f64).sqrt();
        (l, m, sd)
    };
    let plain = render_plane(&tex, &TilingParams { mode: Tiling::Plain, ..req.tiling }, n, req.repeats as f64);
    // The reference contrast: the photo at the renderings' level of detail, fetched at random
    // points (a rendering whose pixels fall on texel centres keeps more contrast than one whose
    // fetches land between texels, as offset fetches do; a real view has no such alignment).
    let lod = tex.lod_for(req.repeats as f64 / n as f64);
    let random: Vec<[f64; 3]> = (0..(n * n).min(1 << 18) as u32)
        .map(|i| tex.fetch(hash_unit(i, 0, 0x0A57_1E5E), hash_unit(i, 1, 0x0A57_1E5E), lod))
        .collect();
    let (_, _, plain_sd) = lum_sd(&random);
    let mut f = Folder::new(dir);
    let mut reports = Vec::new();
    let mut images = Vec::new();
    for &mode in &req.modes {
        let img = if mode == Tiling::Plain {
            plain.clone()
        } else {
            render_plane(&tex, &TilingParams { mode, ..req.tiling }, n, req.repeats as f64)
        };
        let (l, mean, sd) = lum_sd(&img);
        let lf: Vec<f32> = l.iter().map(|&v| v as f32).collect();
        let repetition = repetition_lags(&lf, n, n, period, lags);
        let file = format!("{}.png", mode.name());
        let grid = Grid::from_vec(n, n, img.iter().map(|&c| encode_srgb8(c)).collect());
        bozkir_io::write_rgb8(f.file(&file, mode.name(), Encoding::Rgb8), &grid)?;
        let im = Rgb8Image { width: n, height: n, data: grid.data().iter().flatten().copied().collect() };
        let label = format!(
            "{}  rep {:.2}  contrast {:.2}  {} fetch",
            mode.name(),
            repetition,
            sd / plain_sd.max(1e-12),
            mode.fetches()
        );
        images.push(with_label(&im, &label, 2, [255, 255, 255], [20, 20, 20]));
        reports.push(ModeReport {
            mode,
            fetches: mode.fetches(),
            repetition,
            contrast: sd / plain_sd.max(1e-12),
            mean,
            file,
        });
    }
    let refs: Vec<&Rgb8Image> = images.iter().collect();
    let sheet = hstack(&refs, 8, [255, 255, 255]);
    bozkir_io::write_rgb8(f.file("sheet.png", "sheet", Encoding::Rgb8), &rgb_grid(&sheet))?;
    let json = serde_json::json!({
        "photo": req.photo.display().to_string(),
        "texture_size": tex.source_size(),
        "size": n,
        "repeats": req.repeats,
        "hex_size": req.tiling.hex_size,
        "seed": req.tiling.seed,
        "modes": reports.iter().map(|r| serde_json::json!({
            "mode": r.mode.name(), "fetches": r.fetches, "repetition": r.repetition,
            "contrast": r.contrast, "mean_luminance": r.mean, "file": r.file,
        })).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&json).expect("a JSON value");
    let path = f.unlisted("antitile.json");
    bozkir_io::write_atomic(&path, text.len() + 1, |w| {
        use std::io::Write;
        writeln!(w, "{text}")
    })
    .map_err(|e| PipelineError::Io(bozkir_io::IoError::io(&path, e)))?;
    Ok(reports)
}
