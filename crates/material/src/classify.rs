//! The bozkir rule's hard decision: a class per tile-grid cell from the shape of the ground.
//!
//! Input: heights sampled on an `(n·over)²` grid (see [`crate::tilegrid`]), optionally the
//! erosion's sediment record on the same grid. Steps (the original viewer's `classify`, which
//! this reproduces cell for cell; `tests/rule_golden.rs` holds its golden output):
//!
//! 1. Four maps on the fine grid, pooled to `n × n` and unit-stretched: slope (mean), TPI (mean;
//!    radius `max(2, m/16)` fine cells by default), drainage `ln(1 + D8 flow)` (max-pooled, so a
//!    channel narrower than a cell survives), elevation (mean). A sediment record, when given, is
//!    max-pooled and *replaces* drainage as the `drive` term.
//! 2. Each class's score from the rule: `(1 − altitude)·Σ wᵢ·termᵢ + altitude·height`, clipped at
//!    0 and blurred (radius 1, two passes). For three or more classes each score field is
//!    replaced by its rank (so fields with different spreads compete fairly).
//! 3. Two classes with a share: the lead `w₀ − w₁` is median-filtered (radius = coherence), the
//!    top `round(share·n²)` cells by lead (index tie-break) take class 0: the share is exact by
//!    construction. A featureless lead is ordered by [`crate::cues::tie_hash`].
//!    Three or more classes with shares: quotas `round(n²·sₖ/Σs)` (the last takes the rest),
//!    cells handed out by confidence (best − second) to their preferred class while it has
//!    room, leftovers to the class with room and the highest score.
//!    Without a share: the argmax (ties to the lower class).
//! 4. Per cell: the margin (best − second score, 0 where the quota moved the cell), the
//!    runner-up class, and `strength = min(1, (margin / q90(margin))^(1/sharpness))`.
//!    Sharpness never moves the boundary (a quantile is a rank); it sets the width of the
//!    undecided band that the viewer draws as a per-splat dissolve ([`crate::select`]).

use crate::cues::{self, Pool};
use crate::param::ParamError;
use crate::rule::{HeightTerm, Rule, RuleError, Term};

/// How many cells each class should get.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Balance {
    /// No target: each cell takes its best-scoring class.
    #[default]
    Free,
    /// Two classes: the share of cells for class 0 (0..=1).
    Share(f64),
    /// Three or more classes: relative shares, one per class (normalised by their sum).
    Shares(Vec<f64>),
}

/// Options of [`classify`]; defaults are the viewer's.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassifyOptions {
    /// Number of classes (2..=rule's maximum).
    pub classes: usize,
    /// Tile size in world units (the fine spacing is `spacing·n/m`).
    pub spacing: f64,
    /// TPI radius in fine cells; `None` = `max(2, m/16)`.
    pub radius: Option<usize>,
    /// Decisiveness: the exponent's inverse on the margin (0.5..6; default 2).
    pub sharpness: f64,
    /// "Follows height": weight of the height term (0..1; default 0.4).
    pub altitude: f64,
    /// Median radius on the lead field (0..6 "patch size"; default 2).
    pub coherence: usize,
    pub balance: Balance,
}

impl Default for ClassifyOptions {
    fn default() -> Self {
        ClassifyOptions {
            classes: 2,
            spacing: 1.0,
            radius: None,
            sharpness: 2.0,
            altitude: 0.4,
            coherence: 2,
            balance: Balance::Free,
        }
    }
}

/// What drove the collecting class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Drainage,
    Sediment,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Drainage => "drainage",
            Source::Sediment => "sediment",
        }
    }
}

/// The unit-stretched maps the rule read, `n × n` each.
#[derive(Debug, Clone, PartialEq)]
pub struct CueMaps {
    pub slope: Vec<f64>,
    pub tpi: Vec<f64>,
    pub flow: Vec<f64>,
    pub elevation: Vec<f64>,
    pub sediment: Option<Vec<f64>>,
}

impl CueMaps {
    /// The `drive` term: the sediment record where there is one, else drainage.
    pub fn drive(&self) -> &[f64] {
        self.sediment.as_deref().unwrap_or(&self.flow)
    }
}

/// The decision for every cell of an `n × n` tile grid (row-major, row 0 first as sampled).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub n: usize,
    pub classes: usize,
    /// Class per cell (0 = the rule's first position, "collected").
    pub class: Vec<u8>,
    /// Best − second score where the cell got its preferred class, else 0.
    pub margin: Vec<f64>,
    /// 0..1 confidence drawn as the undecided band.
    pub strength: Vec<f64>,
    /// The class the cell would take instead.
    pub runner_up: Vec<u8>,
    /// Signed lead of class 0 over the best other class (positive where class 0 wins); a ranking
    /// of cells used by validation.
    pub lead: Vec<f64>,
    pub maps: CueMaps,
    pub source: Source,
    /// `(cue, weight)` for the collecting class at this altitude.
    pub cue_weights: Vec<(String, f64)>,
}

impl Decision {
    /// The same decision with its rows in reverse order (every per-cell array and map), e.g.
    /// from the viewer's south-first order to image rows.
    pub fn flip_rows(self) -> Decision {
        let n = self.n;
        let flip = |a: Vec<f64>| -> Vec<f64> { a.chunks(n.max(1)).rev().flatten().copied().collect() };
        let flip8 = |a: Vec<u8>| -> Vec<u8> { a.chunks(n.max(1)).rev().flatten().copied().collect() };
        let m = self.maps;
        Decision {
            class: flip8(self.class),
            margin: flip(self.margin),
            strength: flip(self.strength),
            runner_up: flip8(self.runner_up),
            lead: flip(self.lead),
            maps: CueMaps {
                slope: flip(m.slope),
                tpi: flip(m.tpi),
                flow: flip(m.flow),
                elevation: flip(m.elevation),
                sediment: m.sediment.map(flip),
            },
            ..self
        }
    }

    /// Share of cells in each class.
    pub fn shares(&self) -> Vec<f64> {
        let mut c = vec![0usize; self.classes];
        for &k in &self.class {
            c[k as usize] += 1;
        }
        c.into_iter().map(|v| v as f64 / self.class.len() as f64).collect()
    }

    /// Per-class weights as the viewer draws them with a blend band of `width` (0..1): a decided
    /// cell is all its class; a cell with `strength < width` mixes `0.5 + 0.5·strength/width` of
    /// its class with the rest of its runner-up. Each cell's weights sum to 1. `width = 0` gives
    /// the hard map.
    pub fn blend_weights(&self, width: f64) -> Vec<Vec<f64>> {
        let nn = self.class.len();
        let mut w = vec![vec![0.0; nn]; self.classes];
        for i in 0..nn {
            let c = self.class[i] as usize;
            let mix = blend_mix(self.strength[i], width);
            w[c][i] += mix;
            if mix < 1.0 {
                w[self.runner_up[i] as usize][i] += 1.0 - mix;
            }
        }
        w
    }
}

/// The fraction of a cell's splats drawn from its own class: 1 when decided
/// (`strength ≥ width` or `width ≤ 0`), else `0.5 + 0.5·strength/width`.
pub fn blend_mix(strength: f64, width: f64) -> f64 {
    if width <= 0.0 || strength >= width {
        1.0
    } else {
        0.5 + 0.5 * strength / width
    }
}

/// Problems with the input or options.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClassifyError {
    #[error("{0}")]
    Rule(#[from] RuleError),
    #[error("classify: {0}")]
    Input(String),
}

fn input(msg: impl Into<String>) -> ClassifyError {
    ClassifyError::Input(msg.into())
}

fn mid(v: f64) -> f64 {
    1.0 - 2.0 * (v - 0.5).abs()
}

fn term_value(t: Term, maps: &CueMaps, i: usize) -> f64 {
    match t {
        Term::Drive => maps.drive()[i],
        Term::Hollow => 1.0 - maps.tpi[i],
        Term::Ridge => maps.tpi[i],
        Term::Slope => maps.slope[i],
        Term::Flat => 1.0 - maps.slope[i],
        Term::Midpos => mid(maps.tpi[i]),
    }
}

fn height_value(h: HeightTerm, e: f64) -> f64 {
    match h {
        HeightTerm::Low => 1.0 - e,
        HeightTerm::High => e,
        HeightTerm::Middle => mid(e),
    }
}

impl ClassifyOptions {
    /// The range of [`ClassifyOptions::sharpness`]: 0.5..=6. Its own check, for callers that
    /// take the value alone (the validation protocol, the figure options) and order their checks
    /// their own way.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_material::ClassifyOptions;
    ///
    /// assert!(ClassifyOptions::check_sharpness(2.0).is_ok());
    /// assert_eq!(ClassifyOptions::check_sharpness(7.0).unwrap_err().to_string(), "sharpness 7 outside 0.5..6");
    /// ```
    pub fn check_sharpness(sharpness: f64) -> Result<(), ParamError> {
        if !(0.5..=6.0).contains(&sharpness) {
            return Err(ParamError::new("sharpness", format!("sharpness {sharpness} outside 0.5..6")));
        }
        Ok(())
    }

    /// The range of [`ClassifyOptions::altitude`]: 0..=1 (see [`ClassifyOptions::check_sharpness`]).
    pub fn check_altitude(altitude: f64) -> Result<(), ParamError> {
        if !(0.0..=1.0).contains(&altitude) {
            return Err(ParamError::new("altitude", format!("altitude {altitude} outside 0..1")));
        }
        Ok(())
    }

    /// The range of [`ClassifyOptions::coherence`]: at most 16 (see
    /// [`ClassifyOptions::check_sharpness`]).
    pub fn check_coherence(coherence: usize) -> Result<(), ParamError> {
        if coherence > 16 {
            return Err(ParamError::new("coherence", format!("coherence {coherence} outside 0..16")));
        }
        Ok(())
    }

    /// Checks the options' ranges: at most 255 classes, `spacing > 0`, `sharpness` in 0.5..6,
    /// `altitude` in 0..1, `coherence` at most 16, shares that fit the class count. The error
    /// names the parameter; the rule's own class counts are checked when it runs.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_material::{Balance, ClassifyOptions};
    ///
    /// let o = ClassifyOptions {
    ///     classes: 2,
    ///     spacing: 1.0,
    ///     radius: None,
    ///     sharpness: 2.0,
    ///     altitude: 0.4,
    ///     coherence: 2,
    ///     balance: Balance::Share(0.3),
    /// };
    /// assert!(o.validate().is_ok());
    /// let e = ClassifyOptions { altitude: 1.5, ..o }.validate().unwrap_err();
    /// assert_eq!((e.param, e.to_string().as_str()), ("altitude", "altitude 1.5 outside 0..1"));
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.classes > 255 {
            return Err(ParamError::new("classes", "more than 255 classes"));
        }
        if !(self.spacing > 0.0 && self.spacing.is_finite()) {
            return Err(ParamError::new("spacing", format!("spacing {} must be positive", self.spacing)));
        }
        Self::check_sharpness(self.sharpness)?;
        Self::check_altitude(self.altitude)?;
        Self::check_coherence(self.coherence)?;
        match &self.balance {
            Balance::Free => {}
            Balance::Share(s) => {
                if self.classes != 2 {
                    return Err(ParamError::new(
                        "balance",
                        format!("one share is for 2 classes; give {} shares", self.classes),
                    ));
                }
                if !(0.0..=1.0).contains(s) {
                    return Err(ParamError::new("balance", format!("share {s} outside 0..1")));
                }
            }
            Balance::Shares(v) => {
                if v.len() != self.classes {
                    return Err(ParamError::new("balance", format!("{} shares for {} classes", v.len(), self.classes)));
                }
                if v.iter().any(|s| !(s.is_finite() && *s >= 0.0)) || v.iter().sum::<f64>() <= 0.0 {
                    return Err(ParamError::new("balance", "shares must be non-negative with a positive sum"));
                }
            }
        }
        Ok(())
    }
}

/// Check the options against the grid; returns `over = m / n`.
fn check(
    z: &[f64],
    n: usize,
    sediment: Option<&[f64]>,
    rule: &Rule,
    o: &ClassifyOptions,
) -> Result<usize, ClassifyError> {
    if n < 2 {
        return Err(input(format!("grid of {n} cells per side; at least 2")));
    }
    let m = (z.len() as f64).sqrt().round() as usize;
    if m * m != z.len() || !m.is_multiple_of(n) {
        return Err(input(format!("{} height samples are not an (n·over)² grid for n = {n}", z.len())));
    }
    if let Some(i) = z.iter().position(|v| !v.is_finite()) {
        return Err(input(format!("height sample {i} is not finite")));
    }
    if let Some(s) = sediment {
        if s.len() != z.len() {
            return Err(input(format!("sediment has {} samples, heights {}", s.len(), z.len())));
        }
        if let Some(i) = s.iter().position(|v| !v.is_finite()) {
            return Err(input(format!("sediment sample {i} is not finite")));
        }
    }
    rule.positions_for(o.classes)?;
    o.validate().map_err(|e| input(e.message))?;
    Ok(m / n)
}

/// The maps the rule reads, pooled to `n × n` and unit-stretched.
pub fn cue_maps(z: &[f64], n: usize, sediment: Option<&[f64]>, spacing: f64, radius: Option<usize>) -> CueMaps {
    let m = (z.len() as f64).sqrt().round() as usize;
    let sp = spacing * n as f64 / m as f64;
    let r = radius.unwrap_or((m >> 4).max(2));
    let slope = cues::unit(&cues::downsample(&cues::slope(z, m, sp), m, n, Pool::Mean));
    let tpi = cues::unit(&cues::downsample(&cues::tpi(z, m, r), m, n, Pool::Mean));
    let lf: Vec<f64> = cues::flow(z, m).iter().map(|v| v.ln_1p()).collect();
    let flow = cues::unit(&cues::downsample(&lf, m, n, Pool::Max));
    let elevation = cues::unit(&cues::downsample(z, m, n, Pool::Mean));
    let sediment = sediment.map(|s| cues::unit(&cues::downsample(s, m, n, Pool::Max)));
    CueMaps { slope, tpi, flow, elevation, sediment }
}

/// Each class's raw score `(1 − a)·Σ w·term + a·height` (before clipping and blur).
pub fn scores(maps: &CueMaps, rule: &Rule, classes: usize, altitude: f64) -> Result<Vec<Vec<f64>>, RuleError> {
    let pos = rule.positions_for(classes)?;
    let nn = maps.slope.len();
    Ok(pos
        .iter()
        .map(|p| {
            (0..nn)
                .map(|i| {
                    let mut shape = 0.0;
                    for &(t, w) in &p.terms {
                        shape += w * term_value(t, maps, i);
                    }
                    (1.0 - altitude) * shape + altitude * height_value(p.height, maps.elevation[i])
                })
                .collect()
        })
        .collect())
}

fn order_desc(v: &[f64]) -> Vec<usize> {
    let mut o: Vec<usize> = (0..v.len()).collect();
    o.sort_by(|&a, &b| v[b].partial_cmp(&v[a]).unwrap_or(std::cmp::Ordering::Equal).then(a.cmp(&b)));
    o
}

/// Round half up (JavaScript `Math.round` for the non-negative values used here).
fn round_half_up(x: f64) -> usize {
    (x + 0.5).floor().max(0.0) as usize
}

/// Classify an `n × n` tile grid from heights sampled on an `(n·over)²` grid (row-major).
pub fn classify(
    z: &[f64],
    n: usize,
    sediment: Option<&[f64]>,
    rule: &Rule,
    o: &ClassifyOptions,
) -> Result<Decision, ClassifyError> {
    check(z, n, sediment, rule, o)?;
    let k = o.classes;
    let nn = n * n;
    let maps = cue_maps(z, n, sediment, o.spacing, o.radius);
    let raw = scores(&maps, rule, k, o.altitude)?;
    let mut w: Vec<Vec<f64>> =
        raw.into_iter().map(|s| cues::smooth(&s.into_iter().map(|v| v.max(0.0)).collect::<Vec<_>>(), n, 1)).collect();
    if k > 2 {
        w = w.iter().map(|c| cues::rank_unit(c)).collect();
    }

    let mut bias = 0.0;
    let mut picked: Option<Vec<u8>> = None;
    match &o.balance {
        Balance::Shares(share) if k > 2 => {
            for c in w.iter_mut() {
                *c = cues::median(c, n, o.coherence);
            }
            let total: f64 = share.iter().map(|s| s.max(0.0)).sum::<f64>();
            let total = if total > 0.0 { total } else { 1.0 };
            let mut quota = vec![0usize; k];
            let mut left = nn;
            for c in 0..k {
                quota[c] =
                    if c == k - 1 { left } else { left.min(round_half_up(nn as f64 * share[c].max(0.0) / total)) };
                left -= quota[c];
            }
            let mut want = vec![0usize; nn];
            let mut conf = vec![0.0; nn];
            for i in 0..nn {
                let (mut best, mut bi, mut second) = (f64::NEG_INFINITY, 0, f64::NEG_INFINITY);
                for (c, wc) in w.iter().enumerate() {
                    let v = wc[i];
                    if v > best {
                        second = best;
                        best = v;
                        bi = c;
                    } else if v > second {
                        second = v;
                    }
                }
                want[i] = bi;
                conf[i] = best - second;
            }
            let order = order_desc(&conf);
            let mut pick = vec![u8::MAX; nn];
            for &i in &order {
                if quota[want[i]] > 0 {
                    pick[i] = want[i] as u8;
                    quota[want[i]] -= 1;
                }
            }
            for &i in &order {
                if pick[i] != u8::MAX {
                    continue;
                }
                let mut room: Option<usize> = None;
                for c in 0..k {
                    if quota[c] > 0 && room.is_none_or(|r| w[c][i] > w[r][i]) {
                        room = Some(c);
                    }
                }
                let c = room.unwrap_or(want[i]);
                if room.is_some() {
                    quota[c] -= 1;
                }
                pick[i] = c as u8;
            }
            picked = Some(pick);
        }
        Balance::Share(share) if k == 2 => {
            let mut lead: Vec<f64> = w[0].iter().zip(&w[1]).map(|(a, b)| a - b).collect();
            lead = cues::median(&lead, n, o.coherence);
            let lo = lead.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = lead.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if hi - lo < 1e-9 {
                lead = (0..nn as u64).map(cues::tie_hash).collect();
            }
            let order = order_desc(&lead);
            let take = round_half_up(share * nn as f64).min(nn);
            let mut pick = vec![1u8; nn];
            for &i in &order[..take] {
                pick[i] = 0;
            }
            // The threshold sits midway between the last cell taken and the first left. At a
            // share of 0 or 1 there is no such pair; the original then used ±∞ (and produced
            // NaN strengths); here the threshold sits one unit beyond the lead's range, which
            // decides the same classes with finite margins.
            bias = if take == 0 {
                -(lead[order[0]] + 1.0)
            } else if take == nn {
                -(lead[order[nn - 1]] - 1.0)
            } else {
                -((lead[order[take - 1]] + lead[order[take]]) / 2.0)
            };
            w[0] = lead;
            w[1] = vec![0.0; nn];
            picked = Some(pick);
        }
        _ => {}
    }

    // Scores with the threshold folded in; argmax (first of equals), margin and runner-up.
    let mut class = vec![0u8; nn];
    let mut margin = vec![0.0; nn];
    let mut runner_up = vec![0u8; nn];
    let mut lead_out = vec![0.0; nn];
    for i in 0..nn {
        let s = |c: usize| if c == 0 { w[0][i] + bias } else { w[c][i] };
        let mut top = 0;
        for c in 1..k {
            if s(c) > s(top) {
                top = c;
            }
        }
        let mut ru: Option<usize> = None;
        for c in 0..k {
            if c != top && ru.is_none_or(|r| s(c) > s(r)) {
                ru = Some(c);
            }
        }
        let ru = ru.expect("k >= 2");
        let cls = picked.as_ref().map_or(top, |p| p[i] as usize);
        class[i] = cls as u8;
        if cls != top {
            runner_up[i] = top as u8;
            margin[i] = 0.0;
        } else {
            runner_up[i] = ru as u8;
            margin[i] = s(top) - s(ru);
        }
        let best_other = (1..k).map(s).fold(f64::NEG_INFINITY, f64::max);
        lead_out[i] = s(0) - best_other;
    }
    let scale = cues::quantile(&margin, 0.9).max(1e-9);
    let inv = 1.0 / o.sharpness.max(1e-6);
    let strength = margin.iter().map(|&m| (m / scale).powf(inv).min(1.0)).collect();
    let source = if maps.sediment.is_some() { Source::Sediment } else { Source::Drainage };
    Ok(Decision {
        n,
        classes: k,
        class,
        margin,
        strength,
        runner_up,
        lead: lead_out,
        maps,
        source,
        cue_weights: rule.cue_weights(o.altitude),
    })
}
