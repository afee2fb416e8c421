//! The `pop-metric` workflow: the popping metric ([`bozkir_render::popping`]) over a captured
//! sweep of frames, optionally against a second sweep of the same camera path, with the residual
//! heat map of the worst pair.
//!
//! Frames arrive decoded (the face reads the folder or zip); the result carries the scores, the
//! report as JSON and the figures as images for the face to print and write.

use bozkir_core::Observer;
use bozkir_render::popping::{compare, grey_image, heat_map, sweep, Luma, PopError, PopParams, Sweep};
use bozkir_render::Rgb8Image;
use serde_json::{json, Value};
use std::path::Path;

/// What scoring `req` implies ([`crate::budget::pop_metric_cost`]): both sweeps' pairs at the
/// first frame's size, with the search radius the metric uses.
pub fn pop_metric_cost(req: &PopMetricRequest) -> crate::budget::Cost {
    let f = &req.frames;
    let (w, h) = f.lumas.first().map_or((0, 0), |l| (l.width, l.height));
    let other = req.against.as_ref().map_or(0, |a| a.lumas.len());
    let frames = f.lumas.len() + other;
    let pairs = f.lumas.len().saturating_sub(1) + other.saturating_sub(1);
    crate::budget::pop_metric_cost(frames, pairs, w, h, req.params.radius())
}

/// Why a sweep could not be scored.
#[derive(Debug, thiserror::Error)]
pub enum PopMetricError {
    /// A parameter out of range; the message names it as a command-line flag (`--block …`).
    #[error("--{0}")]
    Param(PopError),
    /// A sweep that cannot be scored (frames of different sizes, too small, too few).
    #[error("{label}: {error}")]
    Sweep {
        /// The sweep's label (its path).
        label: String,
        /// The reason.
        error: PopError,
    },
    /// The second sweep does not match the first.
    #[error("{0}")]
    Mismatch(String),
    /// The request implies more memory or work than the budget allows ([`crate::budget`]).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// The worst pair could not be compared again.
    #[error(transparent)]
    Pop(PopError),
    /// A sweep's folder, zip or frame could not be read.
    #[error(transparent)]
    Io(#[from] bozkir_io::IoError),
    /// A frame whose decoded samples are not 1–4 per pixel (names the frame).
    #[error("{0}: unexpected pixel layout")]
    Layout(String),
}

/// A decoded sweep: frame names in order and their luma.
#[derive(Debug, Clone, PartialEq)]
pub struct Frames {
    /// How the sweep is named in messages and the report (its path).
    pub label: String,
    /// Frame names, in order.
    pub names: Vec<String>,
    /// The frames, in the same order.
    pub lumas: Vec<Luma>,
}

impl Frames {
    /// Reads and decodes the sweep at `path` ([`bozkir_io::frames::read_frames`]: a folder or a
    /// zip of PNGs, in name order), labelled by its path.
    pub fn read(path: &Path) -> Result<Frames, PopMetricError> {
        let label = path.display().to_string();
        // Weigh the decoded frames and their luma from the PNG headers before decoding any.
        let heads = bozkir_io::frames::frame_headers(path)?;
        let decoded: f64 = heads.iter().map(|h| h.decoded_bytes() as f64).sum();
        let pixels: f64 = heads.iter().map(|h| h.width as f64 * h.height as f64).sum();
        crate::budget::limits().check(&crate::budget::frames_cost(&label, heads.len(), decoded, pixels))?;
        let (mut names, mut lumas) = (Vec::new(), Vec::new());
        for f in bozkir_io::frames::read_frames(path)? {
            let luma = Luma::from_u8(f.width, f.height, f.channels, &f.pixels).ok_or_else(|| {
                // Named as the reader names the frame: its file, or the zip and its entry.
                PopMetricError::Layout(match path.is_dir() {
                    true => path.join(&f.name).display().to_string(),
                    false => format!("{label}: {}", f.name),
                })
            })?;
            names.push(f.name);
            lumas.push(luma);
        }
        Ok(Frames { label, names, lumas })
    }
}

/// One scoring of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct PopMetricRequest {
    /// Block size, search radius and threshold of the metric.
    pub params: PopParams,
    /// The sweep.
    pub frames: Frames,
    /// A second sweep of the same camera path, compared pair by pair.
    pub against: Option<Frames>,
    /// Make the residual heat maps of the worst pair.
    pub figures: bool,
}

/// One pair of the comparison of two sweeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairComparison {
    /// Index of the pair's first frame.
    pub index: usize,
    /// Mean residual of the first sweep.
    pub mean: f64,
    /// Mean residual of the second sweep.
    pub against: f64,
    /// `mean / against` (infinite when `against` is 0).
    pub ratio: f64,
}

/// The second sweep and how the first compares with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The second sweep's scores.
    pub sweep: Sweep,
    /// Pair by pair.
    pub pairs: Vec<PairComparison>,
    /// Ratio of the mean residuals (infinite when the second is 0).
    pub ratio: f64,
    /// Pairs on which the first sweep is lower.
    pub lower: usize,
}

/// Images of the worst pair of the first sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstFigures {
    /// Index of the worst pair.
    pub index: usize,
    /// Residual heat map: black → red → yellow → white over `0..4·threshold`.
    pub residual: Rgb8Image,
    /// The pair's first frame, grey.
    pub a: Rgb8Image,
    /// The pair's second frame, grey.
    pub b: Rgb8Image,
    /// The same pair's heat map in the second sweep.
    pub against_residual: Option<Rgb8Image>,
}

/// The scores of a sweep, its comparison and figures, and the report.
#[derive(Debug, Clone, PartialEq)]
pub struct PopMetric {
    /// The first sweep's scores.
    pub sweep: Sweep,
    /// The comparison with the second sweep, when one was given.
    pub against: Option<Comparison>,
    /// The worst pair's images, when asked for.
    pub figures: Option<WorstFigures>,
    /// The scores as JSON (`format_version` 1); the face adds `figures` once it has written them.
    pub report: Value,
}

fn sweep_json(s: &Sweep, names: &[String]) -> Value {
    json!({
        "frames": names,
        "pairs": s.pairs.iter().map(|p| json!({
            "index": p.index, "a": names[p.index], "b": names[p.index + 1],
            "dx": p.dx, "dy": p.dy, "raw_mean": p.raw_mean, "mean": p.mean, "p99": p.p99, "popped": p.popped,
        })).collect::<Vec<_>>(),
        "mean": s.mean, "peak": s.peak, "worst": s.worst,
        "popped_mean": s.popped_mean, "popped_peak": s.popped_peak,
    })
}

fn scored(f: &Frames, p: &PopParams) -> Result<Sweep, PopMetricError> {
    sweep(&f.lumas, p).map_err(|error| PopMetricError::Sweep { label: f.label.clone(), error })
}

/// The second sweep, checked against the first, and the pair-by-pair comparison.
fn comparison(first: &Frames, s: &Sweep, other: &Frames, p: &PopParams) -> Result<Comparison, PopMetricError> {
    let (l1, l2) = (&first.lumas, &other.lumas);
    if l2.len() != l1.len() {
        return Err(PopMetricError::Mismatch(format!(
            "{}: {} frames, but {} has {}",
            other.label,
            l2.len(),
            first.label,
            l1.len()
        )));
    }
    if (l2[0].width, l2[0].height) != (l1[0].width, l1[0].height) {
        return Err(PopMetricError::Mismatch(format!(
            "{}: frames are {}×{}, but {} has {}×{}",
            other.label, l2[0].width, l2[0].height, first.label, l1[0].width, l1[0].height
        )));
    }
    let s2 = scored(other, p)?;
    let mut pairs = Vec::new();
    let mut lower = 0;
    for (x, y) in s.pairs.iter().zip(&s2.pairs) {
        let ratio = if y.mean > 0.0 { x.mean / y.mean } else { f64::INFINITY };
        lower += usize::from(x.mean < y.mean);
        pairs.push(PairComparison { index: x.index, mean: x.mean, against: y.mean, ratio });
    }
    let ratio = if s2.mean > 0.0 { s.mean / s2.mean } else { f64::INFINITY };
    Ok(Comparison { sweep: s2, pairs, ratio, lower })
}

fn worst_figures(req: &PopMetricRequest, w: usize) -> Result<WorstFigures, PopMetricError> {
    let (p, l) = (&req.params, &req.frames.lumas);
    let r = compare(&l[w], &l[w + 1], p, None).map_err(PopMetricError::Pop)?;
    let against_residual = match &req.against {
        Some(o) => {
            let r2 = compare(&o.lumas[w], &o.lumas[w + 1], p, None).map_err(PopMetricError::Pop)?;
            Some(heat_map(&r2.residual, &r2.valid, r2.width, r2.height, p.threshold))
        }
        None => None,
    };
    Ok(WorstFigures {
        index: w,
        residual: heat_map(&r.residual, &r.valid, r.width, r.height, p.threshold),
        a: grey_image(&l[w]),
        b: grey_image(&l[w + 1]),
        against_residual,
    })
}

/// Scores the request's sweep (and the second sweep against it), makes the worst pair's figures
/// when asked, and builds the report.
///
/// The parameters are checked first ([`PopParams::validate`]).
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_pipeline::pop_metric::{pop_metric, Frames, PopMetricRequest};
/// use bozkir_render::popping::{Luma, PopParams};
///
/// // Three 64 × 64 frames of a pattern panning one pixel a frame: no popping.
/// let frame = |s: usize| Luma {
///     width: 64,
///     height: 64,
///     data: (0..64 * 64).map(|i| (((i % 64 + s) / 4 + i / 64 / 4) % 2) as f32 * 0.8 + 0.1).collect(),
/// };
/// let frames = Frames { label: "pan".into(), names: vec!["a".into(), "b".into(), "c".into()], lumas: vec![frame(0), frame(1), frame(2)] };
/// let req = PopMetricRequest { params: PopParams::default(), frames, against: None, figures: true };
/// let r = pop_metric(&req, &NoProgress).unwrap();
/// assert_eq!(r.sweep.pairs.len(), 2);
/// assert!(r.sweep.mean < 0.01);
/// assert_eq!(r.report["format_version"], 1);
/// assert_eq!(r.figures.unwrap().residual.width, 64);
/// ```
pub fn pop_metric(req: &PopMetricRequest, obs: &dyn Observer) -> Result<PopMetric, PopMetricError> {
    let p = &req.params;
    p.validate().map_err(PopMetricError::Param)?;
    let f = &req.frames;
    crate::budget::limits().check(&pop_metric_cost(req))?;
    obs.step("sweep");
    let s = scored(f, p)?;
    let mut report = json!({
        "format_version": 1,
        "generator": format!("bozkir pop-metric {}", env!("CARGO_PKG_VERSION")),
        "input": f.label,
        "params": {"block": p.block, "search": p.search, "radius": p.radius(), "threshold": p.threshold},
        "width": f.lumas[0].width, "height": f.lumas[0].height,
        "sweep": sweep_json(&s, &f.names),
    });
    let against = match &req.against {
        Some(other) => {
            obs.step("against");
            let c = comparison(f, &s, other, p)?;
            let rows: Vec<Value> = c
                .pairs
                .iter()
                .zip(s.pairs.iter().zip(&c.sweep.pairs))
                .map(|(r, (x, y))| json!({"index": r.index, "mean": r.mean, "against": r.against, "popped": x.popped, "against_popped": y.popped}))
                .collect();
            report["against"] = json!({
                "input": other.label,
                "sweep": sweep_json(&c.sweep, &other.names),
                "pairs": rows,
                "mean_ratio": if c.ratio.is_finite() { json!(c.ratio) } else { Value::Null },
                "first_lower_pairs": c.lower,
            });
            Some(c)
        }
        None => None,
    };
    let figures = if req.figures {
        obs.step("figures");
        Some(worst_figures(req, s.worst)?)
    } else {
        None
    };
    Ok(PopMetric { sweep: s, against, figures, report })
}
