//! `bozkir validate-rule`: the bozkir rule scored against real ground (inventory §3.6).
//!
//! Two inputs:
//!
//! * rasters — `--dtm` and `--ortho` (and optionally `--dsm`) GeoTIFFs in the same CRS. The
//!   window is the largest square (in metres, on the DTM grid) whose DTM cells are valid and
//!   whose centres fall on valid orthophoto (and DSM) pixels: the largest all-valid rectangle,
//!   then the centred square inside it. Truths: **colour** — per grid cell, the fraction of the
//!   orthophoto pixels (centres inside the cell) nearer the vegetation colour than the bare
//!   one; **height** (with a DSM) — the fraction of DSM pixels standing more than `--veg-height`
//!   above the DTM (bilinear at the pixel centre).
//! * a point cloud — `--las` (LAS or LAZ), coordinates converted to metres by its GeoKeys. The
//!   window is the centred square of the ground points' (class 2) extent; the DTM is the 15th
//!   percentile of ground z on a `k × k` raster over it (`k = ⌊√(ground/4)⌋`, about four ground
//!   points a cell, clamped to 8..1024), empty cells filled from their neighbours. Truths:
//!   **class** — share of points classed vegetation (3, 4, 5); **height** — share of the
//!   `4 × 4` sub-cells whose highest point (buildings, class 6, left out) stands more than
//!   `--veg-height` above the DTM;
//!   **colour** when the points carry RGB. Noise (classes 7, 18) is left out everywhere.
//!
//! For each grid `n`, heights are sampled bilinearly at the centres of a `(4n)²` grid over the
//! window, and `bozkir_material::validate::evaluate` scores the rule, its variants and single
//! cues against each truth, with the torus-shift chance level. Truths with no vegetation at all
//! (share 0 or 1) are reported and skipped.

use crate::outputs::Staging;
use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_io::{CrsKind, GeoTransform};
use bozkir_material::validate::{caveats, evaluate, plane_fit_r2, EvalOptions, Score};
use bozkir_material::{classify, Rule};
use bozkir_terrain::sculpt::warp::sample_bilinear;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Scrub and sand of the original's ground plot (inventory §3.6).
const SCRUB_RGB: [f64; 3] = [0.19, 0.21, 0.15];
const SAND_RGB: [f64; 3] = [0.52, 0.47, 0.43];
/// Height samples per grid cell side.
const OVER: usize = 4;
/// Significance level of the caveats.
const ALPHA: f64 = 0.05;

#[derive(clap::Args)]
pub struct Args {
    /// Bare-earth DTM (GeoTIFF with a georeference).
    #[arg(long)]
    pub dtm: Option<PathBuf>,
    /// Orthophoto (RGB or RGBA GeoTIFF, 8 or 16 bit) in the DTM's CRS.
    #[arg(long)]
    pub ortho: Option<PathBuf>,
    /// Surface model (GeoTIFF) in the DTM's CRS: adds the vegetation-height truth.
    #[arg(long)]
    pub dsm: Option<PathBuf>,
    /// A classified point cloud (.las or .laz) instead of rasters.
    #[arg(long)]
    pub las: Option<PathBuf>,
    /// Grid sizes (cells per side) to score.
    #[arg(long, value_delimiter = ',', default_values_t = [16usize, 24, 32])]
    pub grids: Vec<usize>,
    /// Reference colour of vegetation, r,g,b in 0..1 (default: the original's scrub).
    #[arg(long, value_parser = parse_rgb)]
    pub veg_rgb: Option<[f64; 3]>,
    /// Reference colour of bare ground, r,g,b in 0..1 (default: the original's sand).
    #[arg(long, value_parser = parse_rgb)]
    pub bare_rgb: Option<[f64; 3]>,
    /// Height above the DTM (metres) from which a surface counts as vegetation.
    #[arg(long, default_value_t = 0.25)]
    pub veg_height: f64,
    /// A rule file (JSON, the shape of crates/material/rule.json) instead of the built-in rule.
    #[arg(long)]
    pub rule: Option<PathBuf>,
    #[command(flatten)]
    pub rule_opts: super::classify::RuleOpts,
    /// Output directory for validation.json and one figure per grid (nothing is written
    /// without it).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn parse_rgb(s: &str) -> std::result::Result<[f64; 3], String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>().map_err(|_| format!("{t:?} is not a number")))
        .collect::<std::result::Result<_, _>>()?;
    if v.len() != 3 || v.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err(format!("{s:?}: give three numbers r,g,b in 0..1"));
    }
    Ok([v[0], v[1], v[2]])
}

/// The square window in the input's CRS (and metres).
struct Window {
    x_min: f64,
    y_min: f64,
    x_max: f64,
    y_max: f64,
    side_m: f64,
    /// Name of the CRS unit.
    units: String,
    /// `(c0, r0, w, h)` on the DTM grid (rasters) or the DTM raster's side (points).
    dtm_cells: (usize, usize, usize, usize),
}

impl Window {
    /// Cell `(row, col)` of an `n × n` grid holding the point, if inside.
    fn cell(&self, x: f64, y: f64, n: usize) -> Option<usize> {
        let u = (x - self.x_min) / (self.x_max - self.x_min);
        let v = (self.y_max - y) / (self.y_max - self.y_min);
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            return None;
        }
        let (c, r) = (((u * n as f64) as usize).min(n - 1), ((v * n as f64) as usize).min(n - 1));
        Some(r * n + c)
    }

    /// CRS coordinates of the centre of cell `(r, c)` of an `m × m` grid.
    fn centre(&self, r: usize, c: usize, m: usize) -> (f64, f64) {
        (
            self.x_min + (c as f64 + 0.5) / m as f64 * (self.x_max - self.x_min),
            self.y_max - (r as f64 + 0.5) / m as f64 * (self.y_max - self.y_min),
        )
    }
}

/// A truth: the vegetation fraction per cell and how many cells had no sample.
struct Truth {
    name: &'static str,
    frac: Vec<f64>,
    empty: usize,
}

/// Per-sample accumulation of vegetation votes into an `n × n` grid.
struct Votes {
    veg: Vec<f64>,
    all: Vec<f64>,
}

impl Votes {
    fn new(n: usize) -> Self {
        Votes { veg: vec![0.0; n * n], all: vec![0.0; n * n] }
    }
    fn add(&mut self, i: usize, veg: bool) {
        self.all[i] += 1.0;
        if veg {
            self.veg[i] += 1.0;
        }
    }
    fn truth(self, name: &'static str) -> Truth {
        let empty = self.all.iter().filter(|&&a| a == 0.0).count();
        let frac = self.veg.iter().zip(&self.all).map(|(v, a)| if *a > 0.0 { v / a } else { 0.0 }).collect();
        Truth { name, frac, empty }
    }
}

fn nearer(c: [f64; 3], veg: [f64; 3], bare: [f64; 3]) -> bool {
    let d = |r: [f64; 3]| (0..3).map(|k| (c[k] - r[k]) * (c[k] - r[k])).sum::<f64>();
    d(veg) < d(bare)
}

/// What the inputs give: a DTM over the window (with its own transform from the window's CRS
/// coordinates to fractional cells) and a way to build the truths for a grid.
enum Source {
    Rasters {
        /// The DTM cropped to the window.
        dtm: Grid<f64>,
        /// The DTM's transform, shifted to the crop.
        gt: GeoTransform,
        ortho: Box<bozkir_io::Ortho>,
        dsm: Option<(Grid<f64>, GeoTransform)>,
    },
    Points {
        dtm: Grid<f64>,
        /// Non-noise points in metres, inside the window.
        pts: Vec<[f64; 3]>,
        class: Vec<u8>,
        rgb: Option<Vec<[f64; 3]>>,
    },
}

struct Setup {
    window: Window,
    source: Source,
    input: Value,
}

impl Setup {
    /// Heights on the `m × m` grid of cell centres over the window (bilinear on the DTM).
    fn heights(&self, m: usize) -> Vec<f64> {
        let w = &self.window;
        let mut z = Vec::with_capacity(m * m);
        for r in 0..m {
            for c in 0..m {
                let (x, y) = w.centre(r, c, m);
                z.push(self.dtm_at(x, y));
            }
        }
        z
    }

    fn dtm_at(&self, x: f64, y: f64) -> f64 {
        match &self.source {
            Source::Rasters { dtm, gt, .. } => {
                let (c, r) = gt.to_pixel(x, y);
                sample_bilinear(dtm, c, r)
            }
            Source::Points { dtm, .. } => {
                let w = &self.window;
                let k = dtm.width() as f64;
                let c = (x - w.x_min) / (w.x_max - w.x_min) * k - 0.5;
                let r = (w.y_max - y) / (w.y_max - w.y_min) * k - 0.5;
                sample_bilinear(dtm, c, r)
            }
        }
    }

    fn dtm(&self) -> &Grid<f64> {
        match &self.source {
            Source::Rasters { dtm, .. } | Source::Points { dtm, .. } => dtm,
        }
    }

    /// The truths of an `n × n` grid; `z` are the heights on its `(4n)²` grid.
    fn truths(&self, n: usize, z: &[f64], veg: [f64; 3], bare: [f64; 3], veg_height: f64) -> Vec<Truth> {
        let w = &self.window;
        let mut out = Vec::new();
        match &self.source {
            Source::Rasters { ortho, dsm, .. } => {
                let og = ortho.georef.expect("checked");
                let mut votes = Votes::new(n);
                let (c0, r0) = og.to_pixel(w.x_min, w.y_max);
                let (c1, r1) = og.to_pixel(w.x_max, w.y_min);
                let cols = c0.floor().max(0.0) as usize..=(c1.ceil().max(0.0) as usize).min(ortho.rgb.width() - 1);
                let rows = r0.floor().max(0.0) as usize..=(r1.ceil().max(0.0) as usize).min(ortho.rgb.height() - 1);
                for r in rows {
                    for c in cols.clone() {
                        if !*ortho.valid.get(c, r) {
                            continue;
                        }
                        let (x, y) = og.pixel_centre(c as f64, r as f64);
                        if let Some(i) = w.cell(x, y, n) {
                            votes.add(i, nearer(ortho.rgb.get(c, r).map(f64::from), veg, bare));
                        }
                    }
                }
                // A cell smaller than a pixel takes the pixel under its centre.
                for i in 0..n * n {
                    if votes.all[i] == 0.0 {
                        let (x, y) = w.centre(i / n, i % n, n);
                        let (c, r) = og.to_pixel(x, y);
                        let (c, r) = (c.round(), r.round());
                        if c >= 0.0 && r >= 0.0 && (c as usize) < ortho.rgb.width() && (r as usize) < ortho.rgb.height()
                        {
                            let (c, r) = (c as usize, r as usize);
                            if *ortho.valid.get(c, r) {
                                votes.add(i, nearer(ortho.rgb.get(c, r).map(f64::from), veg, bare));
                            }
                        }
                    }
                }
                out.push(votes.truth("colour"));
                if let Some((g, sgt)) = dsm {
                    let mut votes = Votes::new(n);
                    let (c0, r0) = sgt.to_pixel(w.x_min, w.y_max);
                    let (c1, r1) = sgt.to_pixel(w.x_max, w.y_min);
                    let cols = c0.floor().max(0.0) as usize..=(c1.ceil().max(0.0) as usize).min(g.width() - 1);
                    let rows = r0.floor().max(0.0) as usize..=(r1.ceil().max(0.0) as usize).min(g.height() - 1);
                    for r in rows {
                        for c in cols.clone() {
                            let s = *g.get(c, r);
                            if !s.is_finite() {
                                continue;
                            }
                            let (x, y) = sgt.pixel_centre(c as f64, r as f64);
                            if let Some(i) = w.cell(x, y, n) {
                                votes.add(i, s - self.dtm_at(x, y) > veg_height);
                            }
                        }
                    }
                    out.push(votes.truth("height"));
                }
            }
            Source::Points { pts, class, rgb, .. } => {
                let mut cls = Votes::new(n);
                for (p, &k) in pts.iter().zip(class) {
                    if let Some(i) = w.cell(p[0], p[1], n) {
                        cls.add(i, matches!(k, 3..=5));
                    }
                }
                out.push(cls.truth("class"));
                // Highest point per sub-cell of the (4n)² grid, against the DTM there.
                let m = n * OVER;
                let mut top = vec![f64::NEG_INFINITY; m * m];
                // Buildings (class 6) stand above the ground too, but are not vegetation.
                for (p, _) in pts.iter().zip(class).filter(|(_, &k)| k != 6) {
                    if let Some(j) = w.cell(p[0], p[1], m) {
                        top[j] = top[j].max(p[2]);
                    }
                }
                let mut hv = Votes::new(n);
                for (j, &t) in top.iter().enumerate() {
                    if t.is_finite() {
                        let (r, c) = (j / m, j % m);
                        hv.add((r / OVER) * n + c / OVER, t - z[j] > veg_height);
                    }
                }
                out.push(hv.truth("height"));
                if let Some(rgb) = rgb {
                    let mut cv = Votes::new(n);
                    for (p, c) in pts.iter().zip(rgb) {
                        if let Some(i) = w.cell(p[0], p[1], n) {
                            cv.add(i, nearer(*c, veg, bare));
                        }
                    }
                    out.push(cv.truth("colour"));
                }
            }
        }
        out
    }
}

fn exists(p: &Path) -> Result<()> {
    if !p.exists() {
        bail!("{}: no such file", p.display());
    }
    Ok(())
}

fn units_of(k: &CrsKind) -> &'static str {
    match k {
        CrsKind::Geographic { .. } => "degrees",
        CrsKind::Projected { .. } => "metres (projected)",
        CrsKind::Unknown => "unknown (taken as metres)",
    }
}

fn same_crs(a: &CrsKind, b: &CrsKind) -> bool {
    match (a, b) {
        (CrsKind::Geographic { epsg: x, .. }, CrsKind::Geographic { epsg: y, .. })
        | (CrsKind::Projected { epsg: x }, CrsKind::Projected { epsg: y }) => x.is_none() || y.is_none() || x == y,
        (CrsKind::Unknown, CrsKind::Unknown) => true,
        _ => false,
    }
}

/// DTM, orthophoto (and DSM) → the window and the raster source.
fn setup_rasters(dtm_p: &Path, ortho_p: &Path, dsm_p: Option<&Path>) -> Result<Setup> {
    exists(dtm_p)?;
    exists(ortho_p)?;
    if let Some(p) = dsm_p {
        exists(p)?;
    }
    let dem = bozkir_io::read_dem(dtm_p)?;
    let gt = dem.georef.with_context(|| {
        format!("{}: no georeference (need a GeoTIFF with ModelPixelScale and ModelTiepoint)", dtm_p.display())
    })?;
    let ortho = bozkir_io::read_geotiff_rgb(ortho_p)?;
    let og = ortho.georef.with_context(|| format!("{}: no georeference", ortho_p.display()))?;
    if !same_crs(&dem.crs_kind, &ortho.crs_kind) {
        bail!(
            "{} ({:?}) and {} ({:?}) are not in the same CRS",
            dtm_p.display(),
            dem.crs_kind,
            ortho_p.display(),
            ortho.crs_kind
        );
    }
    let dsm = match dsm_p {
        Some(p) => {
            let d = bozkir_io::read_dem(p)?;
            let sg = d.georef.with_context(|| format!("{}: no georeference", p.display()))?;
            if !same_crs(&dem.crs_kind, &d.crs_kind) {
                bail!("{} and {} are not in the same CRS", dtm_p.display(), p.display());
            }
            Some((d.heights, sg))
        }
        None => None,
    };
    let h = &dem.heights;
    let (w, hh) = (h.width(), h.height());
    let overlap = |a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)| a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
    let db = gt.bounds(w, hh);
    if !overlap(db, og.bounds(ortho.rgb.width(), ortho.rgb.height())) {
        bail!("{} and {} do not overlap", dtm_p.display(), ortho_p.display());
    }
    if let Some((g, sg)) = &dsm {
        if !overlap(db, sg.bounds(g.width(), g.height())) {
            bail!("{} and {} do not overlap", dtm_p.display(), dsm_p.unwrap().display());
        }
    }
    // Valid: the DTM cell, and the orthophoto (and DSM) pixel under its centre.
    let pixel = |gt: &GeoTransform, x: f64, y: f64, w: usize, h: usize| -> Option<(usize, usize)> {
        let (c, r) = gt.to_pixel(x, y);
        let (c, r) = (c.round(), r.round());
        (c >= 0.0 && r >= 0.0 && (c as usize) < w && (r as usize) < h).then_some((c as usize, r as usize))
    };
    let mask = Grid::from_fn(w, hh, |c, r| {
        let v = *h.get(c, r);
        let (x, y) = gt.pixel_centre(c as f64, r as f64);
        let ok_o = pixel(&og, x, y, ortho.rgb.width(), ortho.rgb.height()).is_some_and(|(c, r)| *ortho.valid.get(c, r));
        let ok_s = dsm
            .as_ref()
            .is_none_or(|(g, sg)| pixel(sg, x, y, g.width(), g.height()).is_some_and(|(c, r)| g.get(c, r).is_finite()));
        if v.is_finite() && ok_o && ok_s {
            v
        } else {
            f64::NAN
        }
    });
    let Some((c0, r0, cw, ch)) = bozkir_io::crop_largest_valid(&mask) else {
        bail!(
            "{} and {}: no DTM cell is valid in both (they do not overlap where they hold data)",
            dtm_p.display(),
            ortho_p.display()
        );
    };
    // The centred square (in metres) inside the rectangle.
    let side_m = (cw as f64 * h.dx).min(ch as f64 * h.dy);
    let sw = ((side_m / h.dx).round() as usize).clamp(1, cw);
    let sh = ((side_m / h.dy).round() as usize).clamp(1, ch);
    let (c0, r0) = (c0 + (cw - sw) / 2, r0 + (ch - sh) / 2);
    let crop = h.crop(c0, r0, sw, sh);
    let cgt = GeoTransform { x0: gt.x0 + c0 as f64 * gt.sx, y0: gt.y0 - r0 as f64 * gt.sy, ..gt };
    let (x_min, y_min, x_max, y_max) = cgt.bounds(sw, sh);
    let window = Window {
        x_min,
        y_min,
        x_max,
        y_max,
        side_m: (sw as f64 * h.dx).min(sh as f64 * h.dy),
        units: units_of(&dem.crs_kind).into(),
        dtm_cells: (c0, r0, sw, sh),
    };
    let input = json!({
        "mode": "rasters",
        "dtm": dtm_p.display().to_string(),
        "ortho": ortho_p.display().to_string(),
        "dsm": dsm_p.map(|p| p.display().to_string()),
        "dtm_cell_m": [h.dx, h.dy],
        "ortho_pixel_m": [ortho.rgb.dx, ortho.rgb.dy],
    });
    Ok(Setup { window, source: Source::Rasters { dtm: crop, gt: cgt, ortho: Box::new(ortho), dsm }, input })
}

/// Percentile (0–100) of `v` by linear interpolation; `v` non-empty.
fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let pos = p / 100.0 * (v.len() - 1) as f64;
    let i = pos.floor() as usize;
    let t = pos - i as f64;
    if i + 1 < v.len() {
        v[i] + (v[i + 1] - v[i]) * t
    } else {
        v[i]
    }
}

/// Fill NaN cells, pass by pass, with the mean of their already-filled 4-neighbours.
fn fill_holes(g: &mut Grid<f64>) {
    let (w, h) = (g.width(), g.height());
    loop {
        let prev = g.clone();
        let mut left = 0;
        for r in 0..h {
            for c in 0..w {
                if prev.get(c, r).is_finite() {
                    continue;
                }
                let mut s = 0.0;
                let mut k = 0.0;
                for (dc, dr) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    let (cc, rr) = (c as i64 + dc, r as i64 + dr);
                    if cc >= 0 && rr >= 0 && (cc as usize) < w && (rr as usize) < h {
                        let v = *prev.get(cc as usize, rr as usize);
                        if v.is_finite() {
                            s += v;
                            k += 1.0;
                        }
                    }
                }
                if k > 0.0 {
                    *g.get_mut(c, r) = s / k;
                } else {
                    left += 1;
                }
            }
        }
        if left == 0 || left == w * h {
            return;
        }
    }
}

/// A classified point cloud → the window and the point source.
fn setup_points(path: &Path) -> Result<Setup> {
    exists(path)?;
    let las = bozkir_io::read_las(path)?;
    let hu = las.horizontal_unit_m.unwrap_or(1.0);
    let vu = las.vertical_unit_m.or(las.horizontal_unit_m).unwrap_or(1.0);
    let keep: Vec<usize> = (0..las.xyz.len())
        .filter(|&i| !matches!(las.classification[i], 7 | 18) && las.xyz[i].iter().all(|v| v.is_finite()))
        .collect();
    let ground: Vec<usize> = keep.iter().copied().filter(|&i| las.classification[i] == 2).collect();
    if ground.len() < 16 {
        bail!(
            "{}: {} ground points (class 2); the point-cloud mode needs a classified cloud with ground",
            path.display(),
            ground.len()
        );
    }
    let m = |i: usize| [las.xyz[i][0] * hu, las.xyz[i][1] * hu, las.xyz[i][2] * vu];
    // Occupancy of all kept points on cells of about 25 points each: the window is the
    // centred square of the largest rectangle with a point in every cell.
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &i in &keep {
        let p = m(i);
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    let area = (x1 - x0) * (y1 - y0);
    if area.is_nan() || area <= 0.0 {
        bail!("{}: the points span no area", path.display());
    }
    let cell = (25.0 * area / keep.len() as f64).sqrt();
    let (ow, oh) =
        (((x1 - x0) / cell).ceil().clamp(1.0, 4096.0) as usize, ((y1 - y0) / cell).ceil().clamp(1.0, 4096.0) as usize);
    let (cx_, cy_) = ((x1 - x0) / ow as f64, (y1 - y0) / oh as f64);
    let mut occ = Grid::new(ow, oh, f64::NAN);
    for &i in &keep {
        let p = m(i);
        let c = (((p[0] - x0) / cx_) as usize).min(ow - 1);
        let r = (((y1 - p[1]) / cy_) as usize).min(oh - 1);
        *occ.get_mut(c, r) = 1.0;
    }
    let (c0, r0, cw, ch) = bozkir_io::crop_largest_valid(&occ).expect("at least one occupied cell");
    let side = (cw as f64 * cx_).min(ch as f64 * cy_);
    let (cx, cy) = (x0 + (c0 as f64 + cw as f64 / 2.0) * cx_, y1 - (r0 as f64 + ch as f64 / 2.0) * cy_);
    let (wx0, wy0) = (cx - side / 2.0, cy - side / 2.0);
    let inside = |p: &[f64; 3]| p[0] >= wx0 && p[0] < wx0 + side && p[1] >= wy0 && p[1] < wy0 + side;
    let gin: Vec<[f64; 3]> = ground.iter().map(|&i| m(i)).filter(|p| inside(p)).collect();
    let k = ((gin.len() as f64 / 4.0).sqrt().floor() as usize).clamp(8, 1024);
    let mut window = Window {
        x_min: wx0,
        y_min: wy0,
        x_max: wx0 + side,
        y_max: wy0 + side,
        side_m: side,
        units: "metres".into(),
        dtm_cells: (0, 0, k, k),
    };
    let mut buckets: Vec<Vec<f64>> = vec![Vec::new(); k * k];
    for p in &gin {
        if let Some(i) = window.cell(p[0], p[1], k) {
            buckets[i].push(p[2]);
        }
    }
    let empty = buckets.iter().filter(|b| b.is_empty()).count();
    let mut dtm = Grid::from_vec(
        k,
        k,
        buckets.iter_mut().map(|b| if b.is_empty() { f64::NAN } else { percentile(b, 15.0) }).collect(),
    )
    .with_cell_size(side / k as f64, side / k as f64);
    fill_holes(&mut dtm);
    window.units = "metres (converted from the file's units)".into();
    let mut pts = Vec::new();
    let mut class = Vec::new();
    let mut rgb_in = las.rgb.as_ref().map(|_| Vec::new());
    let rgb_scale =
        las.rgb.as_ref().map(|v| if v.iter().flatten().all(|&c| c <= 255) { 255.0 } else { 65_535.0 }).unwrap_or(1.0);
    for &i in &keep {
        let p = m(i);
        if inside(&p) {
            pts.push(p);
            class.push(las.classification[i]);
            if let (Some(all), Some(v)) = (&las.rgb, rgb_in.as_mut()) {
                v.push(all[i].map(|c| f64::from(c) / rgb_scale));
            }
        }
    }
    let input = json!({
        "mode": "points",
        "las": path.display().to_string(),
        "points": las.xyz.len(),
        "points_in_window": pts.len(),
        "ground_points_in_window": gin.len(),
        "compressed": las.compressed,
        "point_format": las.point_format,
        "horizontal_unit_m": hu,
        "vertical_unit_m": vu,
        "units_from_file": las.horizontal_unit_m.is_some(),
        "dtm_side_cells": k,
        "dtm_empty_cells_filled": empty,
        "rgb_scale": las.rgb.as_ref().map(|_| rgb_scale),
    });
    Ok(Setup { window, source: Source::Points { dtm, pts, class, rgb: rgb_in }, input })
}

fn score_json(s: &Score) -> Value {
    json!({
        "share": s.share, "accuracy": s.accuracy, "kappa": s.kappa, "iou": s.iou, "spearman": s.spearman,
        "null_mean": s.null_mean, "null_p95": s.null_p95, "p": s.p, "null_count": s.null_count,
    })
}

/// One truth's results on one grid.
struct Scored {
    truth: Truth,
    share: f64,
    /// `None` when the truth has no contrast (share 0 or 1).
    comparisons: Option<Vec<(String, Score)>>,
    /// The rule's decision for this share (class 0 per cell) and its share.
    decision: Option<Vec<bool>>,
}

const FRAC_LO: [f64; 3] = [0.85, 0.78, 0.66];
const FRAC_HI: [f64; 3] = [0.20, 0.45, 0.18];

/// Figure of one grid: per truth a row `fraction | truth labels | rule decision`.
fn figure(scored: &[Scored], n: usize) -> Grid<[u8; 3]> {
    let px = (192 / n).max(2);
    let gap = 4;
    let side = n * px;
    let rows: Vec<&Scored> = scored.iter().filter(|s| s.decision.is_some()).collect();
    let (w, h) = (3 * side + 4 * gap, rows.len().max(1) * (side + gap) + gap);
    let to8 = |c: [f64; 3]| c.map(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8);
    let mix = |t: f64| to8([0, 1, 2].map(|k| FRAC_LO[k] + (FRAC_HI[k] - FRAC_LO[k]) * t));
    let labels: Vec<Vec<bool>> =
        rows.iter().map(|s| bozkir_material::validate::top_share(&s.truth.frac, s.share)).collect();
    Grid::from_fn(w, h, |x, y| {
        let (row, yy) = (y.saturating_sub(gap) / (side + gap), y.saturating_sub(gap) % (side + gap));
        if y < gap || yy >= side || row >= rows.len() {
            return [255, 255, 255];
        }
        let panel = x.saturating_sub(gap) / (side + gap);
        let xx = x.saturating_sub(gap) % (side + gap);
        if x < gap || xx >= side || panel >= 3 {
            return [255, 255, 255];
        }
        let i = (yy / px) * n + xx / px;
        let s = rows[row];
        match panel {
            0 => mix(s.truth.frac[i]),
            1 => mix(if labels[row][i] { 1.0 } else { 0.0 }),
            _ => mix(if s.decision.as_ref().unwrap()[i] { 1.0 } else { 0.0 }),
        }
    })
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    // Options first: nothing is read or written before they are known to be usable.
    let rasters = a.dtm.is_some() || a.ortho.is_some() || a.dsm.is_some();
    match (&a.las, rasters) {
        (Some(_), true) => bail!("give either --las or --dtm/--ortho(/--dsm), not both"),
        (None, false) => {
            bail!("nothing to validate against: give --dtm DTM.tif --ortho RGB.tif [--dsm DSM.tif], or --las FILE")
        }
        (None, true) if a.dtm.is_none() || a.ortho.is_none() => bail!("the raster mode needs both --dtm and --ortho"),
        _ => {}
    }
    if a.grids.is_empty() {
        bail!("--grids: give at least one grid size");
    }
    if let Some(&g) = a.grids.iter().find(|&&g| !(4..=256).contains(&g)) {
        bail!("--grids: {g} cells per side is outside 4..=256");
    }
    let veg_height = super::non_negative("veg-height", a.veg_height)?;
    if !(0.0..=1.0).contains(&a.rule_opts.altitude) {
        bail!("--altitude {} outside 0..1", a.rule_opts.altitude);
    }
    if a.rule_opts.coherence > 16 {
        bail!("--coherence {} outside 0..16", a.rule_opts.coherence);
    }
    if !(0.5..=6.0).contains(&a.rule_opts.sharpness) {
        bail!("--sharpness {} outside 0.5..6", a.rule_opts.sharpness);
    }
    let veg = a.veg_rgb.unwrap_or(SCRUB_RGB);
    let bare = a.bare_rgb.unwrap_or(SAND_RGB);
    if veg == bare {
        bail!("--veg-rgb and --bare-rgb are the same colour");
    }
    let rule = match &a.rule {
        Some(p) => {
            exists(p)?;
            let text = std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?;
            Rule::from_json(&text).with_context(|| format!("{}: not a usable rule file", p.display()))?
        }
        None => Rule::builtin(),
    };
    rule.positions_for(2).context("the rule needs two classes")?;
    if let Some(out) = &a.out {
        if out.exists() && !out.is_dir() {
            bail!("{}: exists and is not a directory", out.display());
        }
    }

    let setup = match &a.las {
        Some(p) => setup_points(p)?,
        None => setup_rasters(a.dtm.as_ref().unwrap(), a.ortho.as_ref().unwrap(), a.dsm.as_deref())?,
    };
    let win = &setup.window;
    let (_, _, dw, dh) = win.dtm_cells;
    let dtm_side = dw.min(dh);
    if let Some(&g) = a.grids.iter().find(|&&g| g > dtm_side) {
        bail!(
            "the window ({dw}×{dh} DTM cells, {:.0} m) is smaller than the grid {g}: each grid cell needs at least one DTM cell",
            win.side_m
        );
    }
    {
        let d = setup.dtm();
        if let Some(i) = d.data().iter().position(|v| !v.is_finite()) {
            bail!("the DTM window has no valid height at cell {} (NaN-only or holed window)", i);
        }
    }
    let plane_r2 = {
        let d = setup.dtm();
        plane_fit_r2(d.data(), d.width(), d.height())
    };

    // Score every grid.
    let mut grids: Vec<(usize, Vec<Scored>, Vec<String>)> = Vec::new();
    let mut all_ps = Vec::new();
    for &n in &a.grids {
        let m = n * OVER;
        let z = setup.heights(m);
        if let Some(i) = z.iter().position(|v| !v.is_finite()) {
            bail!("grid {n}: height sample {i} is not finite");
        }
        let truths = setup.truths(n, &z, veg, bare, veg_height);
        let o = EvalOptions {
            spacing: win.side_m / n as f64,
            altitude: a.rule_opts.altitude,
            coherence: a.rule_opts.coherence,
            sharpness: a.rule_opts.sharpness,
        };
        let mut scored = Vec::new();
        for t in truths {
            let share = t.frac.iter().sum::<f64>() / t.frac.len() as f64;
            let labels = bozkir_material::validate::top_share(&t.frac, share);
            let positive = labels.iter().filter(|&&b| b).count();
            if positive == 0 || positive == n * n {
                scored.push(Scored { truth: t, share, comparisons: None, decision: None });
                continue;
            }
            let res = evaluate(&z, n, &t.frac, &rule, &o).with_context(|| format!("grid {n}, truth {}", t.name))?;
            let copts = o.classify_options(share);
            let d = classify(&z, n, None, &rule, &copts)?;
            let decision: Vec<bool> = d.class.iter().map(|&c| c == 0).collect();
            scored.push(Scored { truth: t, share, comparisons: Some(res), decision: Some(decision) });
        }
        let shares: Vec<(String, f64)> =
            scored.iter().filter(|s| s.comparisons.is_some()).map(|s| (s.truth.name.to_string(), s.share)).collect();
        let ps: Vec<f64> = scored.iter().filter_map(|s| s.comparisons.as_ref()).flatten().map(|(_, s)| s.p).collect();
        all_ps.extend_from_slice(&ps);
        let mut notes = caveats(plane_r2, &shares, &ps, ALPHA);
        // Which comparison the smallest p belongs to: a flipped rule or a single cue beating
        // chance says something different from the rule beating it.
        let best = scored
            .iter()
            .filter_map(|s| s.comparisons.as_ref().map(|c| (s.truth.name, c)))
            .flat_map(|(t, c)| c.iter().map(move |(name, sc)| (t, name, sc)))
            .min_by(|a, b| a.2.p.total_cmp(&b.2.p).then(b.2.kappa.total_cmp(&a.2.kappa)));
        if let Some((t, name, sc)) = best {
            notes.push(format!("the smallest p ({:.4}) is {name:?} on truth {t:?} (κ {:.3})", sc.p, sc.kappa));
        }
        let cell_m = win.side_m / n as f64;
        if cell_m > 10.0 {
            notes.push(format!(
                "grid cells are {cell_m:.0} m: the rule was made for tiles of about 0.6 m (the original's 15 m \
                 plot on 24 tiles); at this scale its cues read valleys and ridges, not micro-relief"
            ));
        }
        for s in &scored {
            if s.comparisons.is_none() {
                notes.push(format!(
                    "truth {:?} has no contrast on this grid (share {:.3}): not scored",
                    s.truth.name, s.share
                ));
            }
            if s.truth.empty > 0 {
                notes.push(format!(
                    "truth {:?}: {} of {} cells had no sample and count as bare",
                    s.truth.name,
                    s.truth.empty,
                    n * n
                ));
            }
        }
        grids.push((n, scored, notes));
    }
    let overall = if all_ps.is_empty() {
        vec!["no truth had any contrast: nothing was scored".to_string()]
    } else {
        caveats(plane_r2, &[], &all_ps, ALPHA)
    };

    // Report.
    println!(
        "window: {:.0} m square ({}×{} DTM cells), x {:.6}..{:.6}, y {:.6}..{:.6} ({}); one plane explains {:.0} % of its height variance",
        win.side_m,
        dw,
        dh,
        win.x_min,
        win.x_max,
        win.y_min,
        win.y_max,
        win.units,
        plane_r2 * 100.0
    );
    const COLS: [&str; 7] = ["rule", "no alt", "flipped", "low", "drain", "hollow", "gentle"];
    println!(
        "{:<8} {:>4} {:>6} {}  {:>6} {:>6}",
        "truth",
        "grid",
        "share",
        COLS.iter().map(|c| format!("{c:>8}")).collect::<Vec<_>>().join(""),
        "p95",
        "p"
    );
    for (n, scored, _) in &grids {
        for s in scored {
            match &s.comparisons {
                Some(res) => {
                    let ks: String = res.iter().map(|(_, sc)| format!("{:>8.3}", sc.kappa)).collect();
                    let r = &res[0].1;
                    println!("{:<8} {:>4} {:>6.3} {}  {:>6.3} {:>6.3}", s.truth.name, n, s.share, ks, r.null_p95, r.p);
                }
                None => println!("{:<8} {:>4} {:>6.3}   (no contrast: not scored)", s.truth.name, n, s.share),
            }
        }
    }
    println!("κ columns: rule, rule without altitude, rule flipped, then single cues (low ground, drainage, hollows, gentle slope); p95 and p are the rule's torus-shift chance level and p-value");
    for (n, _, notes) in &grids {
        for c in notes {
            println!("caveat (grid {n}): {c}");
        }
    }
    for c in &overall {
        println!("caveat (all grids): {c}");
    }

    let Some(out) = &a.out else {
        return Ok(());
    };
    let mut grid_json = serde_json::Map::new();
    for (n, scored, notes) in &grids {
        let mut truths = serde_json::Map::new();
        for s in scored {
            let comparisons: Value = match &s.comparisons {
                Some(res) => {
                    let mut m = serde_json::Map::new();
                    for (name, sc) in res {
                        m.insert(name.clone(), score_json(sc));
                    }
                    Value::Object(m)
                }
                None => Value::Null,
            };
            let rule_share = s.decision.as_ref().map(|d| d.iter().filter(|&&b| b).count() as f64 / d.len() as f64);
            truths.insert(
                s.truth.name.to_string(),
                json!({
                    "share": s.share,
                    "label_share": bozkir_material::validate::top_share(&s.truth.frac, s.share).iter().filter(|&&b| b).count() as f64 / (n * n) as f64,
                    "rule_share": rule_share,
                    "empty_cells": s.truth.empty,
                    "comparisons": comparisons,
                }),
            );
        }
        grid_json.insert(
            n.to_string(),
            json!({ "cell_m": win.side_m / *n as f64, "samples": n * OVER, "truths": truths, "caveats": notes }),
        );
    }
    let report = json!({
        "format_version": 1,
        "generator": format!("bozkir validate-rule {}", env!("CARGO_PKG_VERSION")),
        "input": setup.input,
        "window": {
            "x_min": win.x_min, "y_min": win.y_min, "x_max": win.x_max, "y_max": win.y_max,
            "side_m": win.side_m, "units": win.units,
            "dtm_cells": [win.dtm_cells.0, win.dtm_cells.1, win.dtm_cells.2, win.dtm_cells.3],
            "plane_r2": plane_r2,
        },
        "settings": {
            "rule": a.rule.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "built-in".into()),
            "altitude": a.rule_opts.altitude, "coherence": a.rule_opts.coherence, "sharpness": a.rule_opts.sharpness,
            "veg_rgb": veg, "bare_rgb": bare, "veg_height_m": veg_height, "samples_per_cell": OVER,
            "alpha": ALPHA,
        },
        "grids": grid_json,
        "caveats": overall,
    });
    let st = Staging::new(out)?;
    for (n, scored, _) in &grids {
        bozkir_io::write_rgb8(st.unlisted(&format!("figure_{n}.png")), &figure(scored, *n))?;
    }
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(st.unlisted("validation.json"), text + "\n").context("cannot write validation.json")?;
    let moved = st.commit()?;
    if !quiet {
        println!("figures: per truth, fraction | truth labels (top share) | rule decision; green = vegetation");
    }
    println!("wrote {} files to {}", moved.len(), out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb_option_parses_and_refuses() {
        assert_eq!(parse_rgb("0.1, 0.2,0.3").unwrap(), [0.1, 0.2, 0.3]);
        assert!(parse_rgb("0.1,0.2").is_err());
        assert!(parse_rgb("0.1,0.2,1.5").is_err());
        assert!(parse_rgb("a,b,c").is_err());
    }

    #[test]
    fn window_cells_are_row_major_from_the_north_west() {
        let w = Window {
            x_min: 0.0,
            y_min: 0.0,
            x_max: 4.0,
            y_max: 4.0,
            side_m: 4.0,
            units: String::new(),
            dtm_cells: (0, 0, 4, 4),
        };
        assert_eq!(w.cell(0.5, 3.5, 4), Some(0));
        assert_eq!(w.cell(3.5, 0.5, 4), Some(15));
        assert_eq!(w.cell(4.0, 1.0, 4), None);
        assert_eq!(w.centre(0, 0, 4), (0.5, 3.5));
    }

    #[test]
    fn holes_fill_from_neighbours() {
        let mut g = Grid::from_vec(3, 1, vec![1.0, f64::NAN, 3.0]);
        fill_holes(&mut g);
        assert_eq!(g.data(), &[1.0, 2.0, 3.0]);
    }
}
