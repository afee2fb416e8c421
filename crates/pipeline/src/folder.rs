//! A terrain folder: the files a workflow writes into the folder its caller hands it (each listed
//! in the `terrain.json` sidecar with its role and encoding), and the folder read back.

use crate::{PipelineError, Result};
use bozkir_core::Grid;
use bozkir_io::{Crs, Encoding, GeoRef, IoError, Sidecar, SidecarFile, SidecarGeo, TiffOptions};
use bozkir_render::Rgb8Image;
use std::path::{Path, PathBuf};

/// File name of a terrain folder's sidecar.
pub const SIDECAR: &str = "terrain.json";

/// The folder a workflow writes into, and the files it has listed so far (in writing order, the
/// order of the sidecar's `files`).
///
/// The folder must exist; the caller owns it (the CLI hands its staging folder and moves the
/// files into place when the workflow succeeded).
///
/// Its GeoTIFFs ([`Folder::write_tiff`]) and its sidecar carry one georeference: the one set by
/// [`Folder::set_georef`] (an input DEM's, or a user's `--crs`/`--origin`), or else a local metre
/// frame with the south-west corner at (0, 0) and the rasters' cell size.
#[derive(Debug)]
pub struct Folder {
    dir: PathBuf,
    files: Vec<SidecarFile>,
    georef: Option<GeoRef>,
    crop_offset: Option<(usize, usize)>,
    tiff: TiffOptions,
}

impl Folder {
    /// Writing into `dir`, with no file listed yet.
    pub fn new(dir: &Path) -> Self {
        Self { dir: dir.to_path_buf(), files: Vec::new(), georef: None, crop_offset: None, tiff: TiffOptions::strips() }
    }

    /// Georeferences every GeoTIFF written from now on, and the sidecar, by `georef` (`None`:
    /// the local frame); `crop_offset` is where the rasters' top-left cell sits in the input
    /// they were cropped from, recorded in the sidecar.
    pub fn set_georef(&mut self, georef: Option<GeoRef>, crop_offset: Option<(usize, usize)>) {
        self.georef = georef;
        self.crop_offset = crop_offset;
    }

    /// Writes the GeoTIFFs from now on as Cloud-Optimised GeoTIFFs (`true`: tiled, overviews,
    /// DEFLATE with the floating-point predictor) or plain strips (`false`, the default).
    pub fn set_cog(&mut self, cog: bool) {
        self.tiff = if cog { TiffOptions::cog() } else { TiffOptions::strips() };
    }

    /// Applies `p` (see [`Folder::set_georef`]).
    pub fn place(&mut self, p: &Placement) {
        self.set_georef(p.georef.clone(), p.crop_offset);
    }

    /// The folder's georeference for a raster of `height` rows of `dx × dy` metres.
    fn georef_for(&self, height: usize, dx: f64, dy: f64) -> GeoRef {
        self.georef.clone().unwrap_or_else(|| GeoRef::local((0.0, 0.0), height, dx, dy))
    }

    /// Writes `grid` as the float32 GeoTIFF `name` listed with `role`, georeferenced as the
    /// folder (see [`Folder`]; the grid's cell size is used only for the local frame).
    pub fn write_tiff(&mut self, name: &str, role: &str, grid: &Grid<f32>) -> Result<()> {
        let geo = self.georef_for(grid.height(), grid.dx, grid.dy);
        bozkir_io::write_geotiff_f32_opts(self.file(name, role, Encoding::TiffF32), grid, &geo, &self.tiff)?;
        Ok(())
    }

    /// The folder's georeference for a raster of `height` rows of `dx × dy` metres, and its
    /// EPSG code when it has one.
    pub(crate) fn georef_and_crs(&self, height: usize, dx: f64, dy: f64) -> (GeoRef, Option<u16>) {
        let g = self.georef_for(height, dx, dy);
        let code = match g.crs {
            Crs::Epsg { code, .. } => Some(code),
            _ => None,
        };
        (g, code)
    }

    /// [`Folder::write_tiff`] as a job to run later (with others, in parallel: [`run_jobs`]).
    pub(crate) fn tiff_job<'a>(&mut self, name: &str, role: &str, grid: Grid<f32>) -> Job<'a> {
        let like = (grid.width(), grid.height(), grid.dx, grid.dy);
        self.tiff_job_with(name, role, like, move || grid)
    }

    /// A float32 GeoTIFF of `g`'s values (NaN stays NaN) as a job: the conversion runs in the job.
    pub(crate) fn tiff_job_f64<'a>(&mut self, name: &str, role: &str, g: &'a Grid<f64>) -> Job<'a> {
        self.tiff_job_with(name, role, (g.width(), g.height(), g.dx, g.dy), move || f32_grid(g))
    }

    /// A float32 GeoTIFF of the grid `make` builds (`width × height` cells of `dx × dy`) as a
    /// job: the grid is built in the job, with the other files, not before them.
    pub(crate) fn tiff_job_with<'a>(
        &mut self,
        name: &str,
        role: &str,
        (width, height, dx, dy): (usize, usize, f64, f64),
        make: impl FnOnce() -> Grid<f32> + Send + 'a,
    ) -> Job<'a> {
        let geo = self.georef_for(height, dx, dy);
        let path = self.file(name, role, Encoding::TiffF32);
        let opts = self.tiff;
        Box::new(move || {
            let grid = make();
            debug_assert_eq!((grid.width(), grid.height()), (width, height), "{}", path.display());
            Ok(bozkir_io::write_geotiff_f32_opts(path, &grid, &geo, &opts)?)
        })
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
        let geo = self.georef_for(sidecar.height, sidecar.dx_m, sidecar.dy_m);
        sidecar.georef = Some(SidecarGeo::new(&geo, self.crop_offset));
        bozkir_io::write_sidecar(self.unlisted(SIDECAR), &sidecar)?;
        Ok(())
    }
}

/// Where a workflow's rasters are: the georeference its folder carries and, for a cropped
/// input, the crop window's offset (see [`Folder::set_georef`]). The default is the local metre
/// frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    /// CRS and transform of the rasters' pixels; `None`: the local metre frame.
    pub georef: Option<GeoRef>,
    /// The `(column, row)` of the input that is the rasters' top-left cell, when cropped.
    pub crop_offset: Option<(usize, usize)>,
}

impl Placement {
    /// A generated terrain's placement: `size_y` rows of `dx × dy` metres in `crs` (projected,
    /// in metres), the south-west corner at `origin`. Refuses a geographic CRS.
    pub fn generated(crs: Crs, origin: (f64, f64), size_y: usize, dx: f64, dy: f64) -> Result<Placement> {
        if crs.is_geographic() {
            return Err(PipelineError::Invalid(format!(
                "--crs {}: a generated terrain needs a projected CRS in metres (its cells are metres), not a geographic one",
                crs.name()
            )));
        }
        if !(origin.0.is_finite() && origin.1.is_finite()) {
            return Err(PipelineError::Invalid(format!("--origin {},{} must be finite", origin.0, origin.1)));
        }
        let mut g = GeoRef::local(origin, size_y, dx, dy);
        g.crs = crs;
        Ok(Placement { georef: Some(g), crop_offset: None })
    }
}

/// An RGB image as a grid of pixels (what `bozkir_io::write_rgb8` takes).
pub fn rgb_grid(img: &Rgb8Image) -> Grid<[u8; 3]> {
    use rayon::prelude::*;
    Grid::from_vec(img.width, img.height, img.data.par_chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect())
}

/// A file to encode, run with the others in parallel by [`run_jobs`].
pub(crate) type Job<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// Runs `jobs` in parallel (each file is encoded on its own thread); the first error in job
/// order is returned. With `BOZKIR_WRITE_TIMES` set, each file's times are printed to stderr
/// (see [`bozkir_io::write_times`]), and the jobs' wall time at the end.
pub(crate) fn run_jobs(jobs: Vec<Job<'_>>) -> Result<()> {
    use rayon::prelude::*;
    let timed = bozkir_io::write_times::enabled().then(|| (std::time::Instant::now(), jobs.len()));
    let results: Vec<Result<()>> = jobs.into_par_iter().map(bozkir_io::write_times::job).collect();
    if let Some((t0, n)) = timed {
        eprintln!(
            "write {n} jobs: {:.1} ms on {} threads",
            t0.elapsed().as_secs_f64() * 1e3,
            rayon::current_num_threads()
        );
    }
    results.into_iter().collect()
}

/// A grid mapped by `f` into 0..1 (clamped) and quantised to 8 bits; non-finite cells are 0.
pub fn mask(g: &Grid<f64>, f: impl Fn(f64) -> f64 + Sync) -> Grid<u8> {
    use rayon::prelude::*;
    let data = g.data().par_iter().map(|&v| if v.is_finite() { mask_code(f(v)) } else { 0 });
    Grid::from_vec(g.width(), g.height(), data.collect()).with_cell_size(g.dx, g.dy)
}

/// The 8-bit code of a mask value: `v` clamped to 0..1, times 255, rounded.
#[inline]
pub(crate) fn mask_code(v: f64) -> u8 {
    bozkir_core::round::round_u8(v.clamp(0.0, 1.0) * 255.0)
}

/// `g` as float32 (rounded to nearest; NaN stays NaN), converted in parallel.
pub(crate) fn f32_grid(g: &Grid<f64>) -> Grid<f32> {
    use rayon::prelude::*;
    Grid::from_vec(g.width(), g.height(), g.data().par_iter().map(|&v| v as f32).collect()).with_cell_size(g.dx, g.dy)
}

/// Heights in every format: 16-bit PNG, rg16 PNG, `.r16`, f32 TIFF (metres), as `stem.*`.
/// Returns the (lowest, highest) height, the range the 16-bit files span.
///
/// Voids (`NaN`) stay `NaN` in the TIFF; the 16-bit files, which have no code for them, store
/// them as code 0 (the lowest height), so their void cells are known only from the TIFF.
pub fn write_height(f: &mut Folder, stem: &str, role: &str, h: &Grid<f64>) -> Result<(f64, f64)> {
    let (range, jobs) = height_jobs(f, stem, role, h)?;
    run_jobs(jobs)?;
    Ok(range)
}

/// [`write_height`] as jobs to run later (with others, in parallel: [`run_jobs`]).
pub(crate) fn height_jobs<'a>(
    f: &mut Folder,
    stem: &str,
    role: &str,
    h: &'a Grid<f64>,
) -> Result<((f64, f64), Vec<Job<'a>>)> {
    use std::sync::Arc;
    let (lo, hi) = h.min_max().ok_or_else(|| PipelineError::Invalid("height field has no finite value".into()))?;
    let png = f.file(&format!("{stem}.png"), role, Encoding::Png16);
    let rg = f.file(&format!("{stem}.rg16.png"), role, Encoding::Rg16);
    let r16 = f.file(&format!("{stem}.r16"), role, Encoding::R16);
    let tif = f.tiff_job_f64(&format!("{stem}.tif"), role, h);
    // Quantised once for the three 16-bit files (voids as the lowest code).
    let codes = if bozkir_core::stats::any_nan(h.data()) {
        bozkir_io::quantise_u16(&png, &h.map(|&v| if v.is_nan() { lo } else { v }), lo, hi)?
    } else {
        bozkir_io::quantise_u16(&png, h, lo, hi)?
    };
    let codes = Arc::new(Grid::from_vec(h.width(), h.height(), codes));
    let (c1, c2, c3) = (codes.clone(), codes.clone(), codes);
    let jobs: Vec<Job<'a>> = vec![
        Box::new(move || Ok(bozkir_io::write_png16_codes(png, &c1)?)),
        Box::new(move || Ok(bozkir_io::write_rg16_codes(rg, &c2)?)),
        Box::new(move || Ok(bozkir_io::write_r16_codes(r16, &c3)?)),
        tif,
    ];
    Ok(((lo, hi), jobs))
}

/// A unit-range layer (sediment, wear) as an 8-bit mask scaled by its maximum, as a job to run
/// with the command's other files ([`run_jobs`]).
pub(crate) fn unit_mask_job<'a>(f: &mut Folder, name: &str, role: &str, g: &'a Grid<f64>) -> Job<'a> {
    let path = f.file(name, role, Encoding::Png8);
    Box::new(move || {
        let hi = g.min_max().map(|(_, hi)| hi).unwrap_or(0.0);
        let s = if hi > 0.0 { 1.0 / hi } else { 0.0 };
        Ok(bozkir_io::write_png8(path, &mask(g, |v| v * s))?)
    })
}

/// A file of a terrain folder that could not be read; the message names it.
fn unreadable(path: &Path, source: IoError) -> PipelineError {
    PipelineError::Read { path: path.to_path_buf(), source }
}

/// A terrain folder written by `bozkir terrain`/`analyze`/`erode`/`heightmap`: its sidecar and
/// its heights in metres with the sidecar's cell size, from the file [`height_tiff_name`]
/// picks (so any folder with heights: terrain, analyze, erode, world). Refuses (naming the file)
/// a missing or corrupt sidecar or height TIFF, a size mismatch, fewer than 2×2 cells, a non-finite height,
/// or a non-positive cell size; `what` names the reader in messages ("a bake").
pub fn read_terrain_folder(dir: &Path, what: &str) -> Result<(Sidecar, Grid<f64>)> {
    let bad = |m: String| Err(PipelineError::Invalid(m));
    if !dir.is_dir() {
        return bad(format!("{}: not a terrain directory", dir.display()));
    }
    check_published(dir)?;
    let side = dir.join(SIDECAR);
    if !is_listed(&side) {
        return bad(format!("{}: no such file", side.display()));
    }
    let sc = bozkir_io::read_sidecar(&side).map_err(|e| unreadable(&side, e))?;
    let tif = dir.join(height_tiff_name(&sc).map_err(|m| PipelineError::Invalid(format!("{}: {m}", side.display())))?);
    if !is_listed(&tif) {
        return bad(format!("{}: no such file", tif.display()));
    }
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

/// The float32 TIFF holding a folder's heights: the first file the sidecar lists with role
/// `height` and encoding `tiff_f32` (`height.tif` of `terrain`/`erode`/`world`, `dem.tif` of
/// `analyze`), or `height.tif` for a sidecar that lists none. Refuses a listed path that is
/// absolute or leaves the folder.
pub fn height_tiff_name(sc: &Sidecar) -> std::result::Result<String, String> {
    let Some(f) = sc.files.iter().find(|f| f.role == "height" && f.encoding == Encoding::TiffF32) else {
        return Ok("height.tif".into());
    };
    let p = Path::new(&f.path);
    if p.is_absolute() || p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return Err(format!("height file {:?} is not a plain path inside the folder", f.path));
    }
    Ok(f.path.clone())
}

/// An optional f32 TIFF layer beside a terrain's `height.tif` (`None` when the file is absent or
/// not listed in the folder's manifest, see [`is_listed`]); refuses, naming the file, one that
/// cannot be read or whose size is not `w × h`.
pub fn read_optional_layer(path: &Path, w: usize, h: usize) -> Result<Option<Grid<f32>>> {
    if !is_listed(path) {
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

/// File name of an output folder's manifest: the files the tool wrote there (paths relative to
/// the folder, `/`-separated), written last when a run publishes its outputs. Readers trust only
/// the files it lists; a folder without one (written by hand or by an older bozkir) is read as
/// before.
pub const MANIFEST: &str = ".bozkir-manifest.json";

/// File name of an output folder's publish journal: present only while a run moves its staged
/// files into place (or after a run died doing so, until the next run into the folder finishes
/// the move). Readers refuse a folder that has one.
pub const JOURNAL: &str = ".bozkir-journal.json";

/// The files the tool wrote into an output folder (see [`MANIFEST`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// The format's version (1).
    pub version: u32,
    /// Paths relative to the folder, `/`-separated, sorted.
    pub files: Vec<String>,
}

fn io_step(path: &Path, what: &str, e: std::io::Error) -> PipelineError {
    PipelineError::step(format!("{}: {what}", path.display()), e)
}

/// Reads `path` as JSON of type `T`; `None` when the file does not exist.
fn read_json_file<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_step(path, "cannot read", e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| PipelineError::invalid(format!("{}: not a bozkir file list ({e})", path.display())))
}

/// Writes `v` as JSON to `path` atomically: a temporary file beside it, synced, renamed over it,
/// and the folder synced.
fn write_json_atomic(path: &Path, v: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(|e| PipelineError::invalid(e.to_string()))? + "\n";
    let tmp = path.with_extension("json.tmp");
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent() {
            // Directory fsync makes the rename durable; not every platform can open a folder.
            if let Ok(d) = std::fs::File::open(dir) {
                d.sync_all().ok();
            }
        }
        Ok(())
    };
    write().map_err(|e| {
        std::fs::remove_file(&tmp).ok();
        io_step(path, "cannot write", e)
    })
}

/// Whether `rel` is a path inside a folder: relative, `/`-separated, every component a plain
/// name (no `..`, `.`, empty component, backslash or NUL). Lists read from a folder (a manifest, a
/// journal, a sidecar) name only such paths, so that a crafted list cannot make bozkir remove or
/// move a file outside the folder.
pub fn is_inside_path(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains('\\')
        && !rel.contains('\0')
        && rel.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

fn unsafe_list(path: &Path, entry: &str) -> PipelineError {
    PipelineError::invalid(format!("{}: lists {entry:?}, which is not a path inside the folder", path.display()))
}

/// The manifest of output folder `dir`: `None` when it has none; refused when it cannot be read
/// or parsed, or names a path outside the folder.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(MANIFEST);
    let m: Option<Manifest> = read_json_file(&path)?;
    if let Some(bad) = m.iter().flat_map(|m| &m.files).find(|f| !is_inside_path(f)) {
        return Err(unsafe_list(&path, bad));
    }
    Ok(m)
}

/// Writes `m` as the manifest of `dir` (atomically: readers see the old list or the new one).
pub fn write_manifest(dir: &Path, m: &Manifest) -> Result<()> {
    write_json_atomic(&dir.join(MANIFEST), m)
}

/// A publish in progress in an output folder (see [`JOURNAL`]): enough to finish it after the
/// publishing process died.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Journal {
    /// The publishing process.
    pub pid: u32,
    /// Its staging folder's name inside the output folder.
    pub staging: String,
    /// The files being published (relative, `/`-separated); complete and synced in the staging
    /// folder before the journal was written.
    pub files: Vec<String>,
    /// Files of the previous manifest that this run does not write: removed once every new file
    /// is in place.
    pub stale: Vec<String>,
    /// Whether the previous manifest's files are kept (a run that adds files, such as a bake
    /// into a terrain folder).
    #[serde(default)]
    pub keep_previous: bool,
}

/// The publish journal of `dir`, `None` when no publish is in progress there; refused when it
/// names a path outside the folder or a staging folder not named `.bozkir-staging-<pid>`.
pub fn read_journal(dir: &Path) -> Result<Option<Journal>> {
    let path = dir.join(JOURNAL);
    let j: Option<Journal> = read_json_file(&path)?;
    if let Some(j) = &j {
        let staging_ok = j
            .staging
            .strip_prefix(".bozkir-staging-")
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if !staging_ok {
            return Err(unsafe_list(&path, &j.staging));
        }
        if let Some(bad) = j.files.iter().chain(&j.stale).find(|f| !is_inside_path(f)) {
            return Err(unsafe_list(&path, bad));
        }
    }
    Ok(j)
}

/// Writes `j` as the publish journal of `dir` (atomically, synced).
pub fn write_journal(dir: &Path, j: &Journal) -> Result<()> {
    write_json_atomic(&dir.join(JOURNAL), j)
}

/// The files the tool wrote into output folder `dir`, relative and `/`-separated: its
/// [`MANIFEST`] when it has one, else the files its `terrain.json` sidecar lists and the sidecar
/// itself (a terrain folder's sidecar lists every file of the folder), else `None` (nothing is
/// known: a folder written by hand, or a sidecar that cannot be read). A manifest that cannot be
/// read or parsed is refused, naming it.
pub fn written_files(dir: &Path) -> Result<Option<Vec<String>>> {
    if let Some(m) = read_manifest(dir)? {
        return Ok(Some(m.files));
    }
    let side = dir.join(SIDECAR);
    if !side.is_file() {
        return Ok(None);
    }
    Ok(bozkir_io::read_sidecar(&side).ok().map(|sc| {
        let mut files: Vec<String> = sc.files.into_iter().map(|f| f.path).filter(|p| is_inside_path(p)).collect();
        files.push(SIDECAR.to_string());
        files
    }))
}

/// Whether a reader may use the file at `path`: it is a file, and the folder it lies in lists it
/// among the files the tool wrote there ([`written_files`]) or knows nothing of what was written.
/// A file the last run did not write (a stale layer of an earlier run, a user's file) is treated
/// as absent.
pub fn is_listed(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return false };
    match written_files(dir) {
        Ok(None) => true,
        Ok(Some(files)) => files.iter().any(|f| std::ffi::OsStr::new(f) == name),
        Err(_) => false,
    }
}

/// Refuses a folder whose outputs are being published (or whose publisher died mid-publish), and
/// one whose manifest is unreadable, naming the file.
pub fn check_published(dir: &Path) -> Result<()> {
    if let Some(j) = read_journal(dir)? {
        return Err(PipelineError::invalid(format!(
            "{}: outputs are being published by bozkir (process {}) or that process was stopped; \
             wait for it, or run the command into {} again to finish or replace them",
            dir.join(JOURNAL).display(),
            j.pid,
            dir.display()
        )));
    }
    read_manifest(dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, b"x").unwrap();
        p
    }

    #[test]
    fn readers_trust_only_listed_files() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let stale = touch(d, "sediment.tif");
        let height = touch(d, "height.tif");
        // Nothing known: every file counts.
        assert_eq!(written_files(d).unwrap(), None);
        assert!(is_listed(&stale) && is_listed(&height));
        assert!(!is_listed(&d.join("absent.tif")));
        // A sidecar lists the files of a terrain folder (and itself).
        let mut sc = Sidecar::new(2, 2, (1.0, 1.0), (0.0, 1.0), Encoding::TiffF32);
        sc.files.push(SidecarFile { path: "height.tif".into(), role: "height".into(), encoding: Encoding::TiffF32 });
        bozkir_io::write_sidecar(d.join(SIDECAR), &sc).unwrap();
        assert_eq!(written_files(d).unwrap(), Some(vec!["height.tif".to_string(), SIDECAR.to_string()]));
        assert!(is_listed(&height) && is_listed(&d.join(SIDECAR)) && !is_listed(&stale));
        // A manifest comes first.
        write_manifest(d, &Manifest { version: 1, files: vec!["sediment.tif".into()] }).unwrap();
        assert!(is_listed(&stale) && !is_listed(&height));
        // A corrupt manifest: nothing is trusted, and the folder is refused naming it.
        std::fs::write(d.join(MANIFEST), b"{not json").unwrap();
        assert!(!is_listed(&stale));
        assert!(check_published(d).unwrap_err().to_string().contains(MANIFEST));
    }

    #[test]
    fn lists_naming_paths_outside_the_folder_are_refused() {
        for bad in ["../x", "/etc/passwd", "a/../../x", "", "a//b", "./a", "a\\b"] {
            assert!(!is_inside_path(bad), "{bad:?}");
        }
        assert!(is_inside_path("a.tif") && is_inside_path("tiles/t0.png"));
        let t = tempfile::tempdir().unwrap();
        write_manifest(t.path(), &Manifest { version: 1, files: vec!["../outside.txt".into()] }).unwrap();
        assert!(read_manifest(t.path()).unwrap_err().to_string().contains("outside.txt"));
        std::fs::remove_file(t.path().join(MANIFEST)).unwrap();
        let j = Journal { pid: 7, staging: "../../home".into(), ..Journal::default() };
        write_journal(t.path(), &j).unwrap();
        assert!(read_journal(t.path()).is_err());
        let j = Journal { pid: 7, staging: ".bozkir-staging-7".into(), stale: vec!["/etc/passwd".into()], ..j };
        write_journal(t.path(), &j).unwrap();
        assert!(read_journal(t.path()).is_err());
    }

    #[test]
    fn a_folder_with_a_journal_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let j = Journal { pid: 7, staging: ".bozkir-staging-7".into(), ..Journal::default() };
        write_journal(t.path(), &j).unwrap();
        assert_eq!(read_journal(t.path()).unwrap(), Some(j));
        let e = check_published(t.path()).unwrap_err().to_string();
        assert!(e.contains(JOURNAL) && e.contains("process 7"), "{e}");
        let e = read_terrain_folder(t.path(), "a test").unwrap_err().to_string();
        assert!(e.contains(JOURNAL), "{e}");
    }
}
