//! Writing a command's outputs: staged in a hidden folder inside the output directory and moved
//! into place only when every file is complete, so a failure leaves nothing behind.

use crate::analysis::Analysis;
use anyhow::{Context, Result};
use bozkir_core::Grid;
use bozkir_io::{Encoding, Sidecar, SidecarFile};
use bozkir_render::{colourise_classes, shaded_relief, PreviewParams, Rgb8Image};
use std::path::{Path, PathBuf};

/// Output files staged in `DIR/.bozkir-staging-<pid>/` until [`Staging::commit`].
pub struct Staging {
    dir: PathBuf,
    tmp: PathBuf,
    created_dir: bool,
    pub files: Vec<SidecarFile>,
    committed: bool,
}

impl Staging {
    pub fn new(dir: &Path) -> Result<Self> {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!("{}: exists and is not a directory", dir.display());
        }
        let created_dir = !dir.exists();
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the output directory", dir.display()))?;
        let tmp = dir.join(format!(".bozkir-staging-{}", std::process::id()));
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("{}: cannot create a staging directory", tmp.display()))?;
        Ok(Self { dir: dir.to_path_buf(), tmp, created_dir, files: Vec::new(), committed: false })
    }

    /// Staged path of output `name`, recorded in the sidecar's file list with `role`.
    pub fn file(&mut self, name: &str, role: &str, encoding: Encoding) -> PathBuf {
        self.files.push(SidecarFile { path: name.to_string(), role: role.to_string(), encoding });
        self.tmp.join(name)
    }

    /// Staged path of a file that is not listed in the sidecar (the sidecar itself).
    pub fn unlisted(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// Move every staged file into the output directory.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let mut moved = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&self.tmp)?.collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let to = self.dir.join(e.file_name());
            std::fs::rename(e.path(), &to).with_context(|| format!("{}: cannot move into place", to.display()))?;
            moved.push(to);
        }
        std::fs::remove_dir(&self.tmp).ok();
        self.committed = true;
        Ok(moved)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            std::fs::remove_dir_all(&self.tmp).ok();
            if self.created_dir {
                std::fs::remove_dir(&self.dir).ok();
            }
        }
    }
}

pub fn rgb_grid(img: &Rgb8Image) -> Grid<[u8; 3]> {
    Grid::from_vec(img.width, img.height, img.data.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect())
}

fn mask(g: &Grid<f64>, f: impl Fn(f64) -> f64) -> Grid<u8> {
    g.map(|&v| if v.is_finite() { (f(v).clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 })
}

/// Heights in every format: 16-bit PNG, rg16 PNG, .r16, f32 TIFF (metres). Returns (lo, hi).
pub fn write_height(st: &mut Staging, stem: &str, role: &str, h: &Grid<f64>) -> Result<(f64, f64)> {
    let (lo, hi) = h.min_max().context("height field has no finite value")?;
    bozkir_io::write_png16(st.file(&format!("{stem}.png"), role, Encoding::Png16), h, lo, hi)?;
    bozkir_io::write_rg16(st.file(&format!("{stem}.rg16.png"), role, Encoding::Rg16), h, lo, hi)?;
    bozkir_io::write_r16(st.file(&format!("{stem}.r16"), role, Encoding::R16), h, lo, hi)?;
    bozkir_io::write_tiff_f32(st.file(&format!("{stem}.tif"), role, Encoding::TiffF32), &h.map(|&v| v as f32))?;
    Ok((lo, hi))
}

/// A unit-range layer (sediment, wear) as an 8-bit mask scaled by its maximum.
pub fn write_unit_mask(st: &mut Staging, name: &str, role: &str, g: &Grid<f64>) -> Result<()> {
    let hi = g.min_max().map(|(_, hi)| hi).unwrap_or(0.0);
    let s = if hi > 0.0 { 1.0 / hi } else { 0.0 };
    bozkir_io::write_png8(st.file(name, role, Encoding::Png8), &mask(g, |v| v * s))?;
    Ok(())
}

/// The analysis maps: drainage, streams, slope, TPI, landform, sky view, preview.
pub fn write_analysis(st: &mut Staging, h: &Grid<f64>, a: &Analysis) -> Result<()> {
    let n = a.acc.len() as f64;
    let acc = Grid::from_vec(h.width(), h.height(), a.acc.iter().map(|&c| c as f64).collect());
    let ln_n = n.ln_1p();
    bozkir_io::write_png8(st.file("drainage.png", "mask/drainage", Encoding::Png8), &mask(&acc, |v| v.ln_1p() / ln_n))?;
    bozkir_io::write_tiff_f32(
        st.file("accumulation.tif", "accumulation_cells", Encoding::TiffF32),
        &acc.map(|&v| v as f32),
    )?;
    let streams =
        Grid::from_vec(h.width(), h.height(), a.streams.mask.iter().map(|&s| if s { 255u8 } else { 0 }).collect());
    bozkir_io::write_png8(st.file("streams.png", "mask/streams", Encoding::Png8), &streams)?;
    let codes = bozkir_terrain::hydrology::flow_graph::d8_direction_codes(&a.graph);
    bozkir_io::write_png8(
        st.file("d8.png", "d8_esri_codes", Encoding::Png8),
        &Grid::from_vec(h.width(), h.height(), codes),
    )?;
    bozkir_io::write_png8(
        st.file("slope.png", "mask/slope", Encoding::Png8),
        &mask(&a.slope, |s| s.atan().to_degrees() / 90.0),
    )?;
    bozkir_io::write_tiff_f32(
        st.file("slope.tif", "slope_rise_over_run", Encoding::TiffF32),
        &a.slope.map(|&v| v as f32),
    )?;
    let sd = std_dev(&a.tpi).max(1e-12);
    bozkir_io::write_png8(st.file("tpi.png", "mask/tpi", Encoding::Png8), &mask(&a.tpi, |t| 0.5 + t / (6.0 * sd)))?;
    bozkir_io::write_tiff_f32(st.file("tpi.tif", "tpi_m", Encoding::TiffF32), &a.tpi.map(|&v| v as f32))?;
    bozkir_io::write_png8(st.file("landform.png", "landform_weiss_codes", Encoding::Png8), &a.landform)?;
    bozkir_io::write_rgb8(
        st.file("landform_rgb.png", "landform_weiss_colour", Encoding::Rgb8),
        &rgb_grid(&colourise_classes(&a.landform)),
    )?;
    let labels = Grid::from_vec(h.width(), h.height(), a.watersheds.labels.iter().map(|&l| l as f32).collect());
    bozkir_io::write_tiff_f32(st.file("watersheds.tif", "watershed_labels", Encoding::TiffF32), &labels)?;
    let ws8 = a.watersheds.labels.iter().map(|&l| (l % 250) as u8 + 1).collect();
    bozkir_io::write_rgb8(
        st.file("watersheds.png", "watershed_colour", Encoding::Rgb8),
        &rgb_grid(&colourise_classes(&Grid::from_vec(h.width(), h.height(), ws8))),
    )?;
    bozkir_io::write_png8(st.file("sky_view.png", "mask/sky_view", Encoding::Png8), &mask(&a.sky_view, |v| v))?;
    let preview = shaded_relief(h, Some(&a.sky_view), &PreviewParams::default());
    bozkir_io::write_rgb8(st.file("preview.png", "preview", Encoding::Rgb8), &rgb_grid(&preview))?;
    Ok(())
}

fn std_dev(g: &Grid<f64>) -> f64 {
    let v: Vec<f64> = g.data().iter().copied().filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt()
}

/// Write the sidecar (`terrain.json`) listing every staged file, then commit.
pub fn finish(mut st: Staging, mut sidecar: Sidecar) -> Result<()> {
    sidecar.files = std::mem::take(&mut st.files);
    bozkir_io::write_sidecar(st.unlisted("terrain.json"), &sidecar)?;
    let dir = st.dir.clone();
    let moved = st.commit()?;
    {
        println!("wrote {} files to {}", moved.len(), dir.display());
    }
    Ok(())
}
