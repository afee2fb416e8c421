//! The `classify` workflow: the bozkir material rule on a tile grid laid over a terrain.
//!
//! The terrain is laid under an `N × N` grid of tiles exactly as the viewer lays it
//! ([`bozkir_material::tilegrid`]), sampled at the viewer's oversampling, and classified with the
//! rule ([`bozkir_material::classify()`]). [`classify`] writes the class map, the decision with its
//! confidence (the viewer's overlay), per-class weight maps (what the viewer draws with its blend
//! band) and the soft Hybrid GSWT coverage α, plus `classify.json` with every setting and the
//! shares, into the folder its caller hands it.

use bozkir_core::{Grid, Observer};
use bozkir_io::IoError;
use bozkir_material::classify::blend_mix;
use bozkir_material::select::coverage;
use bozkir_material::tilegrid::{classify_on_grid, oversampling, Field, GridMapping};
use bozkir_material::{Balance, ClassifyError, ClassifyOptions, Decision, Rule, RuleError};
use std::path::{Path, PathBuf};

/// Why a classification could not run.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyRunError {
    /// The classification implies more memory or work than the budget allows
    /// ([`crate::budget`]).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// The rule cannot give the requested classes.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// The rule refused the grid or the options.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
    /// A setting outside its range; the message names the setting.
    #[error("{0}")]
    Param(String),
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// An input file that could not be read.
    #[error("{}: cannot read", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: IoError,
    },
    /// The report could not be written.
    #[error("cannot write classify.json")]
    WriteReport(#[source] std::io::Error),
}

/// What to classify and how: one `bozkir classify` run.
#[derive(Debug, Clone)]
pub struct ClassifyRequest {
    /// The terrain directory: named in the report, and searched for the erosion's sediment record
    /// (`sediment.tif`, else `deposit.tif`) when [`ClassifyRequest::use_sediment`] is set.
    pub terrain: PathBuf,
    /// The rule.
    pub rule: Rule,
    /// How the report names the rule: `"built-in"` or the rule file's path.
    pub rule_label: String,
    /// Number of classes (2–4 with the built-in rule).
    pub classes: usize,
    /// Target shares: empty (each cell takes its best class), one share of class 0 for 2
    /// classes, or one share per class.
    pub share: Vec<f64>,
    /// How the terrain is laid under the tile grid.
    pub mapping: GridMapping,
    /// "Follows height": weight of the height term (0..1).
    pub altitude: f64,
    /// Median radius on the decision, in grid cells (0..16).
    pub coherence: usize,
    /// Decisiveness (0.5..6).
    pub sharpness: f64,
    /// Blend band width (0..1) of the weight maps.
    pub blend: f64,
    /// Use the terrain's sediment record when it has one (else drainage drives).
    pub use_sediment: bool,
    /// Pixels per tile in the preview images (1..64).
    pub px: usize,
}

/// What a classification decided and wrote.
#[derive(Debug, Clone)]
pub struct Classified {
    /// The class names, in class order.
    pub positions: Vec<String>,
    /// The decision per tile.
    pub decision: Decision,
    /// Share of the tiles per class.
    pub shares: Vec<f64>,
    /// Mean decision strength.
    pub mean_strength: f64,
    /// Share of the tiles inside the blend band.
    pub undecided: f64,
    /// Height samples per tile side used.
    pub over: usize,
    /// The sediment file that drove the collecting class, if any.
    pub sediment_file: Option<&'static str>,
}

/// Preview colours per class position (collected, bench, face, exposed, then greys).
fn class_colour(name: &str, k: usize) -> [f64; 3] {
    match name {
        "collected" => [0.19, 0.21, 0.15],
        "exposed" => [0.52, 0.47, 0.43],
        "bench" => [0.42, 0.40, 0.27],
        "face" => [0.33, 0.30, 0.30],
        _ => {
            let g = 0.2 + 0.15 * (k % 5) as f64;
            [g, g, g]
        }
    }
}

/// How far from 1 the sum of one share per class may be.
pub const SHARE_SUM_TOLERANCE: f64 = 1e-6;

fn param(msg: String) -> ClassifyRunError {
    ClassifyRunError::Param(msg)
}

impl ClassifyRequest {
    /// The balance the shares ask for.
    fn balance(&self) -> Result<Balance, ClassifyRunError> {
        Ok(match self.share.len() {
            0 => Balance::Free,
            1 if self.classes == 2 => Balance::Share(self.share[0]),
            n if n == self.classes => Balance::Shares(self.share.to_vec()),
            n => {
                return Err(param(format!(
                    "--share: {n} values for {} classes (give one value for 2 classes, or one per class)",
                    self.classes
                )))
            }
        })
    }

    /// Checks every setting before any file is read; returns the class names.
    ///
    /// One share per class must be finite, in `0..=1` and sum to 1 within [`SHARE_SUM_TOLERANCE`]
    /// (the rule itself would normalise them silently); a single share is checked by the rule.
    pub fn validate(&self) -> Result<Vec<String>, ClassifyRunError> {
        let positions: Vec<String> = self.rule.positions_for(self.classes)?.iter().map(|p| p.name.clone()).collect();
        if let Balance::Shares(v) = self.balance()? {
            if let Some(s) = v.iter().find(|s| !(0.0..=1.0).contains(*s)) {
                return Err(param(format!("--share {s}: every share must be within 0..1")));
            }
            let sum: f64 = v.iter().sum();
            if (sum - 1.0).abs() > SHARE_SUM_TOLERANCE {
                return Err(param(format!("--share: the {} shares sum to {sum}, not 1 (within 1e-6)", v.len())));
            }
        }
        if !(0.0..=1.0).contains(&self.blend) {
            return Err(param(format!("--blend {}: must be within 0..1", self.blend)));
        }
        if !(1..=64).contains(&self.px) {
            return Err(param(format!("--px {}: must be 1..64 pixels per tile", self.px)));
        }
        self.mapping.validate().map_err(|e| param(e.to_string()))?;
        let n = self.mapping.n;
        if n < 2 {
            return Err(param(format!("--grid {n}: the rule needs at least 2 tiles per side")));
        }
        if n * self.px > 16_384 {
            return Err(param(format!("--grid {n} × --px {}: preview wider than 16384 pixels; lower --px", self.px)));
        }
        Ok(positions)
    }
}

/// An optional layer beside `height.tif`: `None` when absent; refused when it cannot be read,
/// has another size or holds a value that is not finite.
fn read_optional(path: &Path, w: usize, h: usize) -> Result<Option<Vec<f64>>, ClassifyRunError> {
    if !crate::folder::is_listed(path) {
        return Ok(None);
    }
    let g = bozkir_io::read_tiff_f32(path).map_err(|source| ClassifyRunError::Read { path: path.into(), source })?;
    if (g.width(), g.height()) != (w, h) {
        return Err(param(format!(
            "{}: {}×{} cells, but height.tif is {w}×{h}",
            path.display(),
            g.width(),
            g.height()
        )));
    }
    if let Some(i) = g.data().iter().position(|v| !v.is_finite()) {
        return Err(param(format!("{}: NaN or infinite value at column {}, row {}", path.display(), i % w, i / w)));
    }
    Ok(Some(g.data().iter().map(|&v| f64::from(v)).collect()))
}

/// The terrain's sediment record: `sediment.tif`, else `deposit.tif`, with the file name.
fn read_sediment(dir: &Path, w: usize, h: usize) -> Result<Option<(&'static str, Vec<f64>)>, ClassifyRunError> {
    for name in ["sediment.tif", "deposit.tif"] {
        if let Some(v) = read_optional(&dir.join(name), w, h)? {
            return Ok(Some((name, v)));
        }
    }
    Ok(None)
}

fn to_grid<T: Clone>(n: usize, v: Vec<T>) -> Grid<T> {
    Grid::from_vec(n, n, v)
}

/// The decision image: each tile the blend of its class colours, darker where undecided.
fn decision_image(d: &Decision, colours: &[[f64; 3]], blend: f64, px: usize) -> Grid<[u8; 3]> {
    let n = d.n;
    Grid::from_fn(n * px, n * px, |x, y| {
        let i = (y / px) * n + x / px;
        let mix = blend_mix(d.strength[i], blend);
        let (a, b) = (colours[d.class[i] as usize], colours[d.runner_up[i] as usize]);
        let shade = 0.55 + 0.45 * d.strength[i];
        let c = |k: usize| ((a[k] * mix + b[k] * (1.0 - mix)) * shade * 255.0).round().clamp(0.0, 255.0) as u8;
        [c(0), c(1), c(2)]
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Writes the maps and images of a decision into `out`; returns the file names in report order.
fn write_maps(
    out: &Path,
    req: &ClassifyRequest,
    d: &Decision,
    alpha: &[Vec<f64>],
    positions: &[String],
) -> Result<Vec<String>, ClassifyRunError> {
    use bozkir_io::export::weights::{soft_layers, write_weight_maps};
    let (n, px) = (d.n, req.px);
    let colours: Vec<[f64; 3]> = positions.iter().enumerate().map(|(k, p)| class_colour(p, k)).collect();
    let mut files: Vec<String> = Vec::new();
    let mut path = |name: &str| {
        files.push(name.to_string());
        out.join(name)
    };
    bozkir_io::write_png8(path("classes.png"), &to_grid(n, d.class.clone()))?;
    bozkir_io::write_png8(path("runner_up.png"), &to_grid(n, d.runner_up.clone()))?;
    let f32g = |v: &[f64]| to_grid(n, v.iter().map(|&x| x as f32).collect());
    bozkir_io::write_tiff_f32(path("strength.tif"), &f32g(&d.strength))?;
    bozkir_io::write_tiff_f32(path("margin.tif"), &f32g(&d.margin))?;
    bozkir_io::write_tiff_f32(path("lead.tif"), &f32g(&d.lead))?;
    let rgb = Grid::from_fn(n * px, n * px, |x, y| {
        let c = colours[d.class[(y / px) * n + x / px] as usize];
        [(c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8]
    });
    bozkir_io::write_rgb8(path("classes_rgb.png"), &rgb)?;
    bozkir_io::write_rgb8(path("decision.png"), &decision_image(d, &colours, req.blend, px))?;
    let weights: Vec<Grid<f64>> = d.blend_weights(req.blend).into_iter().map(|v| to_grid(n, v)).collect();
    let weight_files = write_weight_maps(out, "weights", &soft_layers(&weights), positions)?;
    let al: Vec<Grid<f64>> = alpha.iter().map(|v| to_grid(n, v.clone())).collect();
    let alpha_files = write_weight_maps(out, "alpha", &soft_layers(&al), positions)?;
    for p in
        weight_files.layers.iter().chain(&weight_files.splats).chain(&alpha_files.layers).chain(&alpha_files.splats)
    {
        files.push(file_name(p));
    }
    files.push(file_name(&weight_files.note));
    files.push(file_name(&alpha_files.note));
    Ok(files)
}

/// Classifies `heights` (the terrain of [`ClassifyRequest::terrain`], finite, in metres) and
/// writes the maps, images and `classify.json` into `out` (an existing folder).
///
/// Call [`ClassifyRequest::validate`] first to refuse bad settings before reading the terrain;
/// this function validates again.
///
/// # Examples
///
/// ```
/// use bozkir_core::{Grid, NoProgress};
/// use bozkir_material::{tilegrid::GridMapping, Rule};
/// use bozkir_pipeline::classify::{classify, ClassifyRequest};
///
/// let out = tempfile::tempdir().unwrap();
/// // A valley 32 × 32 cells of 10 m.
/// let heights = Grid::from_fn(32, 32, |x, y| (x as f64 - 15.5).abs() * 4.0 + y as f64).with_cell_size(10.0, 10.0);
/// let req = ClassifyRequest {
///     terrain: "valley".into(),
///     rule: Rule::builtin(),
///     rule_label: "built-in".into(),
///     classes: 2,
///     share: vec![0.3],
///     mapping: GridMapping::new(8),
///     altitude: 0.4,
///     coherence: 2,
///     sharpness: 2.0,
///     blend: 0.35,
///     use_sediment: false,
///     px: 4,
/// };
/// assert_eq!(req.validate().unwrap(), ["collected", "exposed"]);
/// let c = classify(&req, &heights, out.path(), &NoProgress).unwrap();
/// assert_eq!(c.decision.n, 8);
/// assert!((c.shares[0] - 0.3).abs() < 0.02);
/// assert!(out.path().join("classify.json").exists() && out.path().join("decision.png").exists());
/// ```
pub fn classify(
    req: &ClassifyRequest,
    heights: &Grid<f64>,
    out: &Path,
    obs: &dyn Observer,
) -> Result<Classified, ClassifyRunError> {
    let positions = req.validate()?;
    let map = &req.mapping;
    let cost = crate::budget::classify_cost(map.n, map.over(), req.px, req.classes);
    crate::budget::limits().check(&cost)?;
    let balance = req.balance()?;
    let (w, h) = (heights.width(), heights.height());
    let field = Field::new(w, h, heights.data()).map_err(|e| param(format!("{}: {e}", req.terrain.display())))?;
    let sediment = if req.use_sediment { read_sediment(&req.terrain, w, h)? } else { None };
    let sed_field = match &sediment {
        Some((_, v)) => Some(Field::new(w, h, v).map_err(param)?),
        None => None,
    };
    let opts = ClassifyOptions {
        classes: req.classes,
        spacing: req.mapping.tile,
        radius: None,
        sharpness: req.sharpness,
        altitude: req.altitude,
        coherence: req.coherence,
        balance: balance.clone(),
    };
    obs.step("classify");
    let d = classify_on_grid(&field, sed_field.as_ref(), map, &req.rule, &opts)?;
    let alpha = coverage(&d.maps, &req.rule, req.classes, req.altitude, req.sharpness)?;
    obs.step("write");
    let files = write_maps(out, req, &d, &alpha, &positions)?;

    let shares = d.shares();
    let mean_strength = d.strength.iter().sum::<f64>() / d.strength.len() as f64;
    let undecided = d.strength.iter().filter(|&&s| s < req.blend).count() as f64 / d.strength.len() as f64;
    let report = serde_json::json!({
        "format_version": 1,
        "terrain": req.terrain.display().to_string(),
        "rule": req.rule_label,
        "classes": positions,
        "grid": map.n,
        "mapping": {
            "tile": map.tile, "relief": map.relief, "relief_scale": map.relief_scale(),
            "over": map.over(), "over_default": oversampling(map.n), "angle_deg": map.angle_deg, "detail": map.detail, "compat": map.compat.name(),
            "amplitude": map.amplitude(),
        },
        "options": {
            "altitude": req.altitude, "coherence": req.coherence, "sharpness": req.sharpness, "blend": req.blend,
            "share": match &balance { Balance::Free => serde_json::Value::Null, Balance::Share(s) => (*s).into(), Balance::Shares(v) => v.clone().into() },
        },
        "source": d.source.name(),
        "sediment_file": sediment.as_ref().map(|s| s.0),
        "shares": shares,
        "mean_strength": mean_strength,
        "undecided_share": undecided,
        "cue_weights": d.cue_weights.iter().map(|(k, v)| serde_json::json!({"cue": k, "weight": v})).collect::<Vec<_>>(),
        "files": files,
    });
    let text = serde_json::to_string_pretty(&report).expect("a JSON value serialises");
    std::fs::write(out.join("classify.json"), text + "\n").map_err(ClassifyRunError::WriteReport)?;
    Ok(Classified {
        positions,
        decision: d,
        shares,
        mean_strength,
        undecided,
        over: map.over(),
        sediment_file: sediment.map(|s| s.0),
    })
}
