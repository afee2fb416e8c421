//! `validate_rule`: the bozkir rule scored against real ground (inventory §3.6) — the workflow
//! of `bozkir validate-rule`, and of `bozkir figures`' κ plot.
//!
//! Two inputs ([`ValidationInput`]):
//!
//! * rasters — a DTM and an orthophoto (and optionally a DSM) GeoTIFF in the same CRS. The
//!   window is the largest square (in metres, on the DTM grid) whose DTM cells are valid and
//!   whose centres fall on valid orthophoto (and DSM) pixels: the largest all-valid rectangle,
//!   then the centred square inside it. Truths: **colour** — per grid cell, the fraction of the
//!   orthophoto pixels (centres inside the cell) nearer the vegetation colour than the bare
//!   one; **height** (with a DSM) — the fraction of DSM pixels standing more than `veg_height`
//!   above the DTM (bilinear at the pixel centre).
//! * a point cloud — LAS or LAZ, coordinates converted to metres by its GeoKeys. The window is
//!   the centred square of the largest rectangle of cells (about 25 points each) holding a
//!   point; the DTM is the 15th percentile of ground z (class 2) on a `k × k` raster over it
//!   (`k = ⌊√(ground/4)⌋`, about four ground points a cell, clamped to 8..1024), empty cells
//!   filled from their neighbours ([`bozkir_terrain::points`]). Truths: **class** — share of
//!   points classed vegetation (3, 4, 5); **height** — share of the `4 × 4` sub-cells whose
//!   highest point (buildings, class 6, left out) stands more than `veg_height` above the DTM;
//!   **colour** when the points carry RGB. Noise (classes 7, 18) is left out everywhere.
//!
//! The protocol itself is [`bozkir_material::validation`]. The outcome carries the report
//! (`validation.json`'s content), one figure per grid and the lines a face prints.

use crate::error::{PipelineError, Result};
use bozkir_core::geo::GeoTransform;
use bozkir_core::{Grid, Observer};
use bozkir_io::CrsKind;
use bozkir_material::validate::{top_share, Score};
use bozkir_material::validation::{figure, score, Ground, OrthoImage, Settings, Site, Validation, Window, ALPHA, OVER};
use bozkir_material::Rule;
use bozkir_terrain::points::{height_from_points, Frame, Gridding, HoleFill, Square};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The ground truth's source.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidationInput {
    /// A DTM, an orthophoto and optionally a DSM (GeoTIFFs in one CRS).
    Rasters {
        /// Bare-earth DTM with a georeference.
        dtm: PathBuf,
        /// RGB or RGBA orthophoto in the DTM's CRS.
        ortho: PathBuf,
        /// Surface model in the DTM's CRS: adds the vegetation-height truth.
        dsm: Option<PathBuf>,
    },
    /// A classified point cloud (`.las` or `.laz`).
    Points {
        /// The cloud.
        las: PathBuf,
    },
}

/// A validation to run.
#[derive(Debug, Clone)]
pub struct ValidationRequest {
    /// Where the truths come from.
    pub input: ValidationInput,
    /// Grids, colours, vegetation height and the rule's controls.
    pub settings: Settings,
    /// The rule to score.
    pub rule: Rule,
    /// How the report names the rule (a file's path, or `"built-in"`).
    pub rule_name: String,
}

/// What a validation found.
#[derive(Debug, Clone)]
pub struct ValidationOutcome {
    /// The window measured.
    pub window: Window,
    /// The scores, notes and caveats.
    pub validation: Validation,
    /// The content of `validation.json`.
    pub report: Value,
    /// `(n, image)`: the figure of each grid (`figure_<n>.png`).
    pub figures: Vec<(usize, Grid<[u8; 3]>)>,
}

/// Run the validation (see the module documentation): check the request, read the inputs,
/// score every grid, build the report and the figures. Nothing is written.
///
/// # Examples
///
/// ```
/// use bozkir_io::las::{write_las, LasLayout};
/// use bozkir_material::{validation::Settings, Rule};
/// use bozkir_pipeline::validation::{validate_rule, ValidationInput, ValidationRequest};
///
/// // A classified cloud of a 48 m hillside: ground (class 2) every 0.5 m, and trees
/// // (class 5, 4 m up) on its western third.
/// let (mut xyz, mut class) = (Vec::new(), Vec::new());
/// for i in 0..96 {
///     for j in 0..96 {
///         let (x, y) = (f64::from(i) * 0.5, f64::from(j) * 0.5);
///         let z = 100.0 + 0.2 * x + 2.0 * (y / 8.0).sin();
///         xyz.push([x, y, z]);
///         class.push(2);
///         if x < 16.0 && (i + j) % 3 == 0 {
///             xyz.push([x + 0.1, y + 0.1, z + 4.0]);
///             class.push(5);
///         }
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// let las = dir.path().join("hill.las");
/// write_las(&las, &xyz, &class, &LasLayout::default()).unwrap();
///
/// let req = ValidationRequest {
///     input: ValidationInput::Points { las },
///     settings: Settings { grids: vec![8], ..Settings::default() },
///     rule: Rule::builtin(),
///     rule_name: "built-in".into(),
/// };
/// let out = validate_rule(&req, &bozkir_core::NoProgress).unwrap();
/// assert_eq!(out.figures.len(), 1);
/// assert_eq!(out.report["input"]["points"], xyz.len());
/// for line in out.summary() {
///     println!("{line}");
/// }
/// ```
pub fn validate_rule(req: &ValidationRequest, obs: &dyn Observer) -> Result<ValidationOutcome> {
    req.settings.check()?;
    Settings::check_rule(&req.rule)?;
    obs.step("read");
    let (site, input) = match &req.input {
        ValidationInput::Points { las } => setup_points(las)?,
        ValidationInput::Rasters { dtm, ortho, dsm } => setup_rasters(dtm, ortho, dsm.as_deref())?,
    };
    obs.step("score");
    let validation = score(&site, &req.rule, &req.settings)?;
    let report = report(&site.window, &validation, input, req);
    let figures = validation.grids.iter().map(|g| (g.n, figure(&g.scored, g.n))).collect();
    Ok(ValidationOutcome { window: site.window, validation, report, figures })
}

impl ValidationOutcome {
    /// The lines a face prints: the window, a table of κ per truth and grid (the rule, its
    /// variants and single cues, the chance level), then the caveats.
    pub fn summary(&self) -> Vec<String> {
        let win = &self.window;
        let (_, _, dw, dh) = win.dtm_cells;
        let mut out = vec![format!(
            "window: {:.0} m square ({}×{} DTM cells), x {:.6}..{:.6}, y {:.6}..{:.6} ({}); one plane explains {:.0} % of its height variance",
            win.side_m,
            dw,
            dh,
            win.x_min,
            win.x_max,
            win.y_min,
            win.y_max,
            win.units,
            self.validation.plane_r2 * 100.0
        )];
        const COLS: [&str; 7] = ["rule", "no alt", "flipped", "low", "drain", "hollow", "gentle"];
        out.push(format!(
            "{:<8} {:>4} {:>6} {}  {:>6} {:>6}",
            "truth",
            "grid",
            "share",
            COLS.iter().map(|c| format!("{c:>8}")).collect::<Vec<_>>().join(""),
            "p95",
            "p"
        ));
        for g in &self.validation.grids {
            for s in &g.scored {
                out.push(match &s.comparisons {
                    Some(res) => {
                        let ks: String = res.iter().map(|(_, sc)| format!("{:>8.3}", sc.kappa)).collect();
                        let r = &res[0].1;
                        format!(
                            "{:<8} {:>4} {:>6.3} {}  {:>6.3} {:>6.3}",
                            s.truth.name, g.n, s.share, ks, r.null_p95, r.p
                        )
                    }
                    None => format!("{:<8} {:>4} {:>6.3}   (no contrast: not scored)", s.truth.name, g.n, s.share),
                });
            }
        }
        out.push("κ columns: rule, rule without altitude, rule flipped, then single cues (low ground, drainage, hollows, gentle slope); p95 and p are the rule's torus-shift chance level and p-value".into());
        for g in &self.validation.grids {
            out.extend(g.notes.iter().map(|c| format!("caveat (grid {}): {c}", g.n)));
        }
        out.extend(self.validation.overall.iter().map(|c| format!("caveat (all grids): {c}")));
        out
    }
}

fn score_json(s: &Score) -> Value {
    json!({
        "share": s.share, "accuracy": s.accuracy, "kappa": s.kappa, "iou": s.iou, "spearman": s.spearman,
        "null_mean": s.null_mean, "null_p95": s.null_p95, "p": s.p, "null_count": s.null_count,
    })
}

/// The content of `validation.json` (format version 1, `docs/validation.md`).
fn report(win: &Window, v: &Validation, input: Value, req: &ValidationRequest) -> Value {
    let mut grid_json = serde_json::Map::new();
    for g in &v.grids {
        let n = g.n;
        let mut truths = serde_json::Map::new();
        for s in &g.scored {
            let comparisons: Value = match &s.comparisons {
                Some(res) => Value::Object(res.iter().map(|(name, sc)| (name.clone(), score_json(sc))).collect()),
                None => Value::Null,
            };
            let rule_share = s.decision.as_ref().map(|d| d.iter().filter(|&&b| b).count() as f64 / d.len() as f64);
            let label_share = top_share(&s.truth.frac, s.share).iter().filter(|&&b| b).count() as f64 / (n * n) as f64;
            truths.insert(
                s.truth.name.to_string(),
                json!({
                    "share": s.share,
                    "label_share": label_share,
                    "rule_share": rule_share,
                    "empty_cells": s.truth.empty,
                    "comparisons": comparisons,
                }),
            );
        }
        grid_json.insert(
            n.to_string(),
            json!({ "cell_m": win.side_m / n as f64, "samples": n * OVER, "truths": truths, "caveats": g.notes }),
        );
    }
    let s = &req.settings;
    json!({
        "format_version": 1,
        "generator": format!("bozkir validate-rule {}", env!("CARGO_PKG_VERSION")),
        "input": input,
        "window": {
            "x_min": win.x_min, "y_min": win.y_min, "x_max": win.x_max, "y_max": win.y_max,
            "side_m": win.side_m, "units": win.units,
            "dtm_cells": [win.dtm_cells.0, win.dtm_cells.1, win.dtm_cells.2, win.dtm_cells.3],
            "plane_r2": v.plane_r2,
        },
        "settings": {
            "rule": req.rule_name,
            "altitude": s.altitude, "coherence": s.coherence, "sharpness": s.sharpness,
            "veg_rgb": s.veg_rgb, "bare_rgb": s.bare_rgb, "veg_height_m": s.veg_height, "samples_per_cell": OVER,
            "alpha": ALPHA,
        },
        "grids": grid_json,
        "caveats": v.overall,
    })
}

fn exists(p: &Path) -> Result<()> {
    if !p.exists() {
        return Err(PipelineError::NoSuchFile(p.to_path_buf()));
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

/// Whether two CRS kinds can be the same CRS (an unknown EPSG code matches any of its kind).
pub(crate) fn same_crs(a: &CrsKind, b: &CrsKind) -> bool {
    match (a, b) {
        (CrsKind::Geographic { epsg: x, .. }, CrsKind::Geographic { epsg: y, .. })
        | (CrsKind::Projected { epsg: x }, CrsKind::Projected { epsg: y }) => x.is_none() || y.is_none() || x == y,
        (CrsKind::Unknown, CrsKind::Unknown) => true,
        _ => false,
    }
}

fn invalid<T>(msg: String) -> Result<T> {
    Err(PipelineError::Invalid(msg))
}

/// The pixel of a `w × h` raster under CRS point `(x, y)`, if inside.
fn pixel(gt: &GeoTransform, x: f64, y: f64, w: usize, h: usize) -> Option<(usize, usize)> {
    let (c, r) = gt.to_pixel(x, y);
    let (c, r) = (c.round(), r.round());
    (c >= 0.0 && r >= 0.0 && (c as usize) < w && (r as usize) < h).then_some((c as usize, r as usize))
}

/// DTM, orthophoto (and DSM) → the site and the report's `input`.
fn setup_rasters(dtm_p: &Path, ortho_p: &Path, dsm_p: Option<&Path>) -> Result<(Site, Value)> {
    exists(dtm_p)?;
    exists(ortho_p)?;
    if let Some(p) = dsm_p {
        exists(p)?;
    }
    let dem = bozkir_io::read_dem(dtm_p)?;
    let Some(gt) = dem.georef else {
        return invalid(format!(
            "{}: no georeference (need a GeoTIFF with ModelPixelScale and ModelTiepoint)",
            dtm_p.display()
        ));
    };
    let ortho = bozkir_io::read_geotiff_rgb(ortho_p)?;
    let Some(og) = ortho.georef else { return invalid(format!("{}: no georeference", ortho_p.display())) };
    if !same_crs(&dem.crs_kind, &ortho.crs_kind) {
        return invalid(format!(
            "{} ({}) and {} ({}) are not in the same CRS",
            dtm_p.display(),
            dem.crs_kind,
            ortho_p.display(),
            ortho.crs_kind
        ));
    }
    let dsm = match dsm_p {
        Some(p) => {
            let d = bozkir_io::read_dem(p)?;
            let Some(sg) = d.georef else { return invalid(format!("{}: no georeference", p.display())) };
            if !same_crs(&dem.crs_kind, &d.crs_kind) {
                return invalid(format!("{} and {} are not in the same CRS", dtm_p.display(), p.display()));
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
        return invalid(format!("{} and {} do not overlap", dtm_p.display(), ortho_p.display()));
    }
    if let Some((g, sg)) = &dsm {
        if !overlap(db, sg.bounds(g.width(), g.height())) {
            return invalid(format!("{} and {} do not overlap", dtm_p.display(), dsm_p.unwrap().display()));
        }
    }
    // Valid: the DTM cell, and the orthophoto (and DSM) pixel under its centre.
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
        return invalid(format!(
            "{} and {}: no DTM cell is valid in both (they do not overlap where they hold data)",
            dtm_p.display(),
            ortho_p.display()
        ));
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
    let ortho = OrthoImage { rgb: ortho.rgb, valid: ortho.valid, georef: og };
    let ground = Ground::Rasters { dtm: crop, gt: cgt, ortho: Box::new(ortho), dsm };
    Ok((Site { window, ground }, input))
}

/// The window of a point cloud: the centred square of the largest rectangle of cells (about 25
/// points each) with a point in every cell. Returns `(x_min, y_min, side)`.
fn points_window(pts: &[[f64; 3]]) -> Option<(f64, f64, f64)> {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in pts {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    let area = (x1 - x0) * (y1 - y0);
    if area.is_nan() || area <= 0.0 {
        return None;
    }
    let cell = (25.0 * area / pts.len() as f64).sqrt();
    let (ow, oh) =
        (((x1 - x0) / cell).ceil().clamp(1.0, 4096.0) as usize, ((y1 - y0) / cell).ceil().clamp(1.0, 4096.0) as usize);
    let (cx_, cy_) = ((x1 - x0) / ow as f64, (y1 - y0) / oh as f64);
    let mut occ = Grid::new(ow, oh, f64::NAN);
    for p in pts {
        let c = (((p[0] - x0) / cx_) as usize).min(ow - 1);
        let r = (((y1 - p[1]) / cy_) as usize).min(oh - 1);
        *occ.get_mut(c, r) = 1.0;
    }
    let (c0, r0, cw, ch) = bozkir_io::crop_largest_valid(&occ).expect("at least one occupied cell");
    let side = (cw as f64 * cx_).min(ch as f64 * cy_);
    let (cx, cy) = (x0 + (c0 as f64 + cw as f64 / 2.0) * cx_, y1 - (r0 as f64 + ch as f64 / 2.0) * cy_);
    Some((cx - side / 2.0, cy - side / 2.0, side))
}

/// A classified point cloud → the site and the report's `input`.
fn setup_points(path: &Path) -> Result<(Site, Value)> {
    exists(path)?;
    let las = bozkir_io::read_las(path)?;
    let hu = las.horizontal_unit_m.unwrap_or(1.0);
    let vu = las.vertical_unit_m.or(las.horizontal_unit_m).unwrap_or(1.0);
    let keep: Vec<usize> = (0..las.xyz.len())
        .filter(|&i| !matches!(las.classification[i], 7 | 18) && las.xyz[i].iter().all(|v| v.is_finite()))
        .collect();
    let ground: Vec<usize> = keep.iter().copied().filter(|&i| las.classification[i] == 2).collect();
    if ground.len() < 16 {
        return invalid(format!(
            "{}: {} ground points (class 2); the point-cloud mode needs a classified cloud with ground",
            path.display(),
            ground.len()
        ));
    }
    let m = |i: usize| [las.xyz[i][0] * hu, las.xyz[i][1] * hu, las.xyz[i][2] * vu];
    let kept: Vec<[f64; 3]> = keep.iter().map(|&i| m(i)).collect();
    let Some((wx0, wy0, side)) = points_window(&kept) else {
        return invalid(format!("{}: the points span no area", path.display()));
    };
    let inside = |p: &[f64; 3]| p[0] >= wx0 && p[0] < wx0 + side && p[1] >= wy0 && p[1] < wy0 + side;
    let gin: Vec<[f64; 3]> = ground.iter().map(|&i| m(i)).filter(|p| inside(p)).collect();
    let k = ((gin.len() as f64 / 4.0).sqrt().floor() as usize).clamp(8, 1024);
    let square = Square { x_min: wx0, y_min: wy0, x_max: wx0 + side, y_max: wy0 + side };
    let gridding = Gridding { n: k, percentile: 15.0, frame: Frame::Square(square), fill: HoleFill::Neighbours };
    let dtm = height_from_points(&gin, &gridding);
    let window = Window {
        x_min: square.x_min,
        y_min: square.y_min,
        x_max: square.x_max,
        y_max: square.y_max,
        side_m: side,
        units: "metres (converted from the file's units)".into(),
        dtm_cells: (0, 0, k, k),
    };
    let mut pts = Vec::new();
    let mut class = Vec::new();
    let mut rgb_in = las.rgb.as_ref().map(|_| Vec::new());
    let rgb_scale =
        las.rgb.as_ref().map(|v| if v.iter().flatten().all(|&c| c <= 255) { 255.0 } else { 65_535.0 }).unwrap_or(1.0);
    for (&i, p) in keep.iter().zip(&kept) {
        if inside(p) {
            pts.push(*p);
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
        "dtm_empty_cells_filled": dtm.empty,
        "rgb_scale": las.rgb.as_ref().map(|_| rgb_scale),
    });
    let ground = Ground::Points { dtm: dtm.heights, pts, class, rgb: rgb_in };
    Ok((Site { window, ground }, input))
}
