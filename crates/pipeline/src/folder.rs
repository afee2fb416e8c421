//! A terrain folder: the files a workflow writes into the folder its caller hands it (each listed
//! in the `terrain.json` sidecar with its role and encoding), and the folder read back.

use crate::{PipelineError, Result};
use bozkir_core::Grid;
use bozkir_io::{Encoding, IoError, Sidecar, SidecarFile};
use bozkir_render::Rgb8Image;
use std::path::{Path, PathBuf};

/// File name of a terrain folder's sidecar.
pub const SIDECAR: &str = "terrain.json";

/// The folder a workflow writes into, and the files it has listed so far (in writing order, the
/// order of the sidecar's `files`).
///
/// The folder must exist; the caller owns it (the CLI hands its staging folder and moves the
/// files into place when the workflow succeeded).
#[derive(Debug)]
pub struct Folder {
    dir: PathBuf,
    files: Vec<SidecarFile>,
}

impl Folder {
    /// Writing into `dir`, with no file listed yet.
    pub fn new(dir: &Path) -> Self {
        Self { dir: dir.to_path_buf(), files: Vec::new() }
    }

    /// The folder written into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of output `name`, listed in the sidecar with `role` and `encoding`.
    pub fn file(&mut self, name: &str, role: &str, encoding: Encoding) -> PathBuf {
        self.files.push(SidecarFile { path: name.to_string(), role: role.to_string(), encoding });
        self.dir.join(name)
    }

    /// Path of a file that the sidecar does not list (the sidecar itself).
    pub fn unlisted(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The files listed so far, leaving none.
    pub fn take_files(&mut self) -> Vec<SidecarFile> {
        std::mem::take(&mut self.files)
    }

    /// Write `sidecar` as `terrain.json` with every file listed so far as its `files`.
    pub fn write_sidecar(mut self, mut sidecar: Sidecar) -> Result<()> {
        sidecar.files = self.take_files();
        bozkir_io::write_sidecar(self.unlisted(SIDECAR), &sidecar)?;
        Ok(())
    }
}

/// An RGB image as a grid of pixels (what `bozkir_io::write_rgb8` takes).
pub fn rgb_grid(img: &Rgb8Image) -> Grid<[u8; 3]> {
    Grid::from_vec(img.width, img.height, img.data.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect())
}

/// A grid mapped by `f` into 0..1 (clamped) and quantised to 8 bits; non-finite cells are 0.
pub fn mask(g: &Grid<f64>, f: impl Fn(f64) -> f64) -> Grid<u8> {
    g.map(|&v| if v.is_finite() { (f(v).clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 })
}

/// Heights in every format: 16-bit PNG, rg16 PNG, `.r16`, f32 TIFF (metres), as `stem.*`.
/// Returns the (lowest, highest) height, the range the 16-bit files span.
pub fn write_height(f: &mut Folder, stem: &str, role: &str, h: &Grid<f64>) -> Result<(f64, f64)> {
    let (lo, hi) = h.min_max().ok_or_else(|| PipelineError::Invalid("height field has no finite value".into()))?;
    bozkir_io::write_png16(f.file(&format!("{stem}.png"), role, Encoding::Png16), h, lo, hi)?;
    bozkir_io::write_rg16(f.file(&format!("{stem}.rg16.png"), role, Encoding::Rg16), h, lo, hi)?;
    bozkir_io::write_r16(f.file(&format!("{stem}.r16"), role, Encoding::R16), h, lo, hi)?;
    bozkir_io::write_tiff_f32(f.file(&format!("{stem}.tif"), role, Encoding::TiffF32), &h.map(|&v| v as f32))?;
    Ok((lo, hi))
}

/// A unit-range layer (sediment, wear) as an 8-bit mask scaled by its maximum.
pub fn write_unit_mask(f: &mut Folder, name: &str, role: &str, g: &Grid<f64>) -> Result<()> {
    let hi = g.min_max().map(|(_, hi)| hi).unwrap_or(0.0);
    let s = if hi > 0.0 { 1.0 / hi } else { 0.0 };
    bozkir_io::write_png8(f.file(name, role, Encoding::Png8), &mask(g, |v| v * s))?;
    Ok(())
}

/// A file of a terrain folder that could not be read; the message names it.
fn unreadable(path: &Path, source: IoError) -> PipelineError {
    PipelineError::Read { path: path.to_path_buf(), source }
}

/// A terrain folder written by `bozkir terrain`/`analyze`/`erode`/`heightmap`: its sidecar and
/// its heights in metres with the sidecar's cell size. Refuses (naming the file) a missing or
/// corrupt sidecar or `height.tif`, a size mismatch, fewer than 2×2 cells, a non-finite height,
/// or a non-positive cell size; `what` names the reader in messages ("a bake").
pub fn read_terrain_folder(dir: &Path, what: &str) -> Result<(Sidecar, Grid<f64>)> {
    let bad = |m: String| Err(PipelineError::Invalid(m));
    if !dir.is_dir() {
        return bad(format!("{}: not a terrain directory", dir.display()));
    }
    let side = dir.join(SIDECAR);
    let tif = dir.join("height.tif");
    for p in [&side, &tif] {
        if !p.exists() {
            return bad(format!("{}: no such file", p.display()));
        }
    }
    let sc = bozkir_io::read_sidecar(&side).map_err(|e| unreadable(&side, e))?;
    let h32 = bozkir_io::read_tiff_f32(&tif).map_err(|e| unreadable(&tif, e))?;
    let (w, h) = (h32.width(), h32.height());
    if (w, h) != (sc.width, sc.height) {
        return bad(format!(
            "{}: {w}×{h} cells, but {} says {}×{}",
            tif.display(),
            side.display(),
            sc.width,
            sc.height
        ));
    }
    if w < 2 || h < 2 {
        return bad(format!("{}: {w}×{h} cells; {what} needs at least 2×2", tif.display()));
    }
    if let Some(i) = h32.data().iter().position(|v| !v.is_finite()) {
        return bad(format!("{}: NaN or infinite height at column {}, row {}", tif.display(), i % w, i / w));
    }
    if !(sc.dx_m > 0.0 && sc.dy_m > 0.0 && sc.dx_m.is_finite() && sc.dy_m.is_finite()) {
        return bad(format!("{}: cell size {} × {} m is not positive", side.display(), sc.dx_m, sc.dy_m));
    }
    let height = h32.map(|&v| f64::from(v)).with_cell_size(sc.dx_m, sc.dy_m);
    Ok((sc, height))
}

/// An optional f32 TIFF layer beside a terrain's `height.tif` (`None` when the file is absent);
/// refuses, naming the file, one that cannot be read or whose size is not `w × h`.
pub fn read_optional_layer(path: &Path, w: usize, h: usize) -> Result<Option<Grid<f32>>> {
    if !path.exists() {
        return Ok(None);
    }
    let g = bozkir_io::read_tiff_f32(path).map_err(|e| unreadable(path, e))?;
    if (g.width(), g.height()) != (w, h) {
        return Err(PipelineError::Invalid(format!(
            "{}: {}×{} cells, but height.tif is {w}×{h}",
            path.display(),
            g.width(),
            g.height()
        )));
    }
    Ok(Some(g))
}
