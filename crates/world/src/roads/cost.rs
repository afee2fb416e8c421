//! The road cost (Galin et al. §4) and path segment masks (§5).
//!
//! A road minimises the line integral of a local cost `c = Σ μ_i ∘ κ_i` along its centreline.
//! Each characteristic κ (grade along travel, water depth, tree density) goes through a transfer
//! function μ with a threshold κ₀ beyond which the cost is infinite. Between mask endpoints the
//! integral is sampled as pyworldgen samples it: `n = max(2, ⌊2·|o|⌋ + 1)` points at
//! `round(o·t)`, `t = linspace(0, 1, n)`, each of the `n − 1` sub-steps of length
//! `res·|o|/(n − 1)` costing `sublen · μ(slope, depth)`.

use super::np::{ihypot, linspace, round_even};

/// The weighted-characteristic cost with forbidding thresholds (pyworldgen's `RoadCost` plus the
/// vegetation characteristic).
#[derive(Debug, Clone, PartialEq)]
pub struct RoadCost {
    /// Cost per metre on flat, dry ground.
    pub base: f64,
    /// μ(κ₀) of the grade: penalty per metre at `max_grade`, quadratic in `|grade|/max_grade`.
    pub slope_weight: f64,
    /// κ₀ of the grade: steeper is forbidden.
    pub max_grade: f64,
    /// Penalty per metre at `max_water_depth`, linear in depth.
    pub water_weight: f64,
    /// κ₀ of the depth: deeper is bridged or forbidden.
    pub max_water_depth: f64,
    /// Whether deep water is bridged.
    pub allow_bridges: bool,
    /// Surcharge per metre of bridge.
    pub bridge_cost: f64,
    /// Weight of the squared turning angle (oriented grid when > 0).
    pub curvature_weight: f64,
    /// Penalty per metre through tree density 1, linear in density.
    pub vegetation_weight: f64,
    /// κ₀ of the tree density (`None`: no threshold).
    pub max_tree_density: Option<f64>,
}

impl Default for RoadCost {
    fn default() -> Self {
        super::RoadParams::default().cost()
    }
}

/// Why a segment is forbidden: which threshold it crosses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// A sub-step's grade exceeds `max_grade`.
    Steep,
    /// Water deeper than `max_water_depth` with bridges off.
    Deep,
    /// Tree density above `max_tree_density`.
    Dense,
    /// The segment leaves the grid.
    Outside,
}

impl RoadCost {
    /// Cost of a step of length `dl` with along-path `slope` over `water_depth` (pyworldgen's
    /// `local_cost`): `dl·(base + bridge_cost)` over deep water if bridges are allowed,
    /// infinity if forbidden, else `dl·(base + w_s·(|s|/s₀)² + w_w·d/d₀)`.
    pub fn local_cost(&self, dl: f64, slope: f64, water_depth: f64) -> f64 {
        if water_depth > self.max_water_depth {
            if !self.allow_bridges {
                return f64::INFINITY;
            }
            return dl * (self.base + self.bridge_cost);
        }
        if slope.abs() > self.max_grade {
            return f64::INFINITY;
        }
        let q = slope.abs() / self.max_grade;
        let mut mult = self.base + self.slope_weight * (q * q);
        if water_depth > 1e-6 {
            mult += self.water_weight * (water_depth / self.max_water_depth);
        }
        dl * mult
    }

    /// The multiplier of one sub-step (cost per metre), or why it is forbidden. Operation order
    /// as pyworldgen's vectorised `_precompute_costs`.
    #[inline]
    pub(crate) fn sub_step(&self, slope: f64, wd: f64, trees: f64) -> Result<f64, Blocked> {
        if wd > self.max_water_depth {
            return if self.allow_bridges { Ok(self.base + self.bridge_cost) } else { Err(Blocked::Deep) };
        }
        let a = slope.abs();
        if a > self.max_grade {
            return Err(Blocked::Steep);
        }
        let q = a / self.max_grade;
        let mut mult = self.base + self.slope_weight * (q * q);
        if wd > 1e-6 {
            mult += self.water_weight * (wd / self.max_water_depth);
        }
        if let Some(t0) = self.max_tree_density {
            if trees > t0 {
                return Err(Blocked::Dense);
            }
        }
        if self.vegetation_weight > 0.0 {
            mult += self.vegetation_weight * trees;
        }
        Ok(mult)
    }
}

/// The path segment mask M_k = {(i, j) ∈ [−k, k]² : gcd(|i|, |j|) = 1}, in pyworldgen's order
/// (i outer, j inner, both ascending). |M_1| = 8, |M_3| = 32, |M_5| = 80 (Galin Table 1).
pub fn path_segment_mask(k: usize) -> Vec<(i32, i32)> {
    let k = k as i32;
    let mut offs = Vec::new();
    for i in -k..=k {
        for j in -k..=k {
            if (i != 0 || j != 0) && gcd(i.unsigned_abs(), j.unsigned_abs()) == 1 {
                offs.push((i, j));
            }
        }
    }
    offs
}

/// Greatest common divisor (gcd(0, n) = n).
pub(crate) fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A mask with each offset's sample points and sub-step length precomputed.
#[derive(Debug, Clone)]
pub struct SegmentMask {
    /// The offsets (di, dj) of M_k.
    pub offsets: Vec<(i32, i32)>,
    /// Sample points of offset `o`: `samples[start[o]..start[o + 1]]`, relative to the start.
    samples: Vec<(i32, i32)>,
    start: Vec<usize>,
    /// Sub-step length in metres per offset.
    pub sublen: Vec<f64>,
    /// Segment length `res·|o|` per offset.
    pub length: Vec<f64>,
}

impl SegmentMask {
    /// M_k with samples for cell size `res`.
    pub fn new(k: usize, res: f64) -> Self {
        let offsets = path_segment_mask(k.max(1));
        let (mut samples, mut start, mut sublen, mut length) = (Vec::new(), vec![0], Vec::new(), Vec::new());
        for &(di, dj) in &offsets {
            let h = ihypot(di as i64, dj as i64);
            let n = 2usize.max((h * 2.0) as usize + 1);
            for t in linspace(0.0, 1.0, n) {
                samples.push((round_even(di as f64 * t) as i32, round_even(dj as f64 * t) as i32));
            }
            start.push(samples.len());
            sublen.push(res * h / (n - 1) as f64);
            length.push(res * h);
        }
        Self { offsets, samples, start, sublen, length }
    }

    /// The cells the cost integral samples along a route of mask steps (each waypoint pair one
    /// offset of this mask; other steps are skipped), in order, repeats kept.
    pub fn sampled_cells(&self, cells: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for w in cells.windows(2) {
            let d = (w[1].0 as i32 - w[0].0 as i32, w[1].1 as i32 - w[0].1 as i32);
            if let Some(o) = self.offsets.iter().position(|&q| q == d) {
                for &(sx, sy) in self.samples(o) {
                    out.push(((w[0].0 as i32 + sx) as usize, (w[0].1 as i32 + sy) as usize));
                }
            }
        }
        out
    }

    /// The sample points as row-major index offsets for a grid `nx` columns wide.
    pub(crate) fn strided(&self, nx: usize) -> Strided {
        let lin = self.samples.iter().map(|&(i, j)| j as isize * nx as isize + i as isize).collect();
        Strided { lin, start: self.start.clone(), nx }
    }

    /// The sample points of offset `o`.
    #[inline]
    pub fn samples(&self, o: usize) -> &[(i32, i32)] {
        &self.samples[self.start[o]..self.start[o + 1]]
    }
}

/// A mask's sample points as row-major index offsets (see [`SegmentMask::strided`]).
pub(crate) struct Strided {
    lin: Vec<isize>,
    start: Vec<usize>,
    nx: usize,
}

/// Per-cell cost multiplier of a level sub-step (`sub_step(0, depth, trees)`), NaN where it is
/// forbidden: most sub-steps of a long mask segment stay in one cell, and a level step's
/// multiplier depends only on its cell, so the search looks it up instead of recomputing.
pub fn level_multipliers(field: &CostField<'_>, cost: &RoadCost) -> Vec<f64> {
    (0..field.nx * field.ny)
        .map(|c| cost.sub_step(0.0, field.water[c], field.trees.map_or(0.0, |t| t[c])).unwrap_or(f64::NAN))
        .collect()
}

/// The fields a route is costed over: heights, water depths and (optionally) tree density, all
/// `ny × nx` row-major with row 0 south.
#[derive(Debug, Clone, Copy)]
pub struct CostField<'a> {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// Cell size in metres.
    pub res: f64,
    /// Ground heights.
    pub height: &'a [f64],
    /// Water depths.
    pub water: &'a [f64],
    /// Tree density in [0, 1] (vegetation characteristic), if any.
    pub trees: Option<&'a [f64]>,
}

impl CostField<'_> {
    /// The line-integral cost of the mask segment `o` from cell (cx, cy):
    /// `Σ_k sublen·μ(slope_k, depth_k)` over the sub-steps, summed in order; or why it is
    /// forbidden.
    pub fn segment_cost(
        &self,
        cost: &RoadCost,
        mask: &SegmentMask,
        cx: usize,
        cy: usize,
        o: usize,
    ) -> Result<f64, Blocked> {
        let (di, dj) = mask.offsets[o];
        let (tx, ty) = (cx as i64 + di as i64, cy as i64 + dj as i64);
        if tx < 0 || ty < 0 || tx >= self.nx as i64 || ty >= self.ny as i64 {
            return Err(Blocked::Outside);
        }
        let sublen = mask.sublen[o];
        let pts = mask.samples(o);
        let idx = |p: (i32, i32)| (cy as i64 + p.1 as i64) as usize * self.nx + (cx as i64 + p.0 as i64) as usize;
        let mut i0 = idx(pts[0]);
        let mut total = 0.0;
        let mut blocked = None;
        for &p in &pts[1..] {
            let i1 = idx(p);
            let slope = (self.height[i1] - self.height[i0]) / sublen;
            let trees = self.trees.map_or(0.0, |t| t[i0]);
            match cost.sub_step(slope, self.water[i0], trees) {
                Ok(m) => total += sublen * m,
                Err(b) => {
                    // Deep water outranks a steep step for the diagnosis only.
                    if blocked.is_none() || b == Blocked::Deep {
                        blocked = Some(b);
                    }
                }
            }
            i0 = i1;
        }
        match blocked {
            Some(b) => Err(b),
            None => Ok(total),
        }
    }
}

impl CostField<'_> {
    /// [`CostField::segment_cost`] for the search's inner loop: sample offsets precomputed as
    /// index offsets, level sub-steps (both samples in one cell) looked up in `level` (see
    /// [`level_multipliers`]), stopping at the first forbidden sub-step. Same value, same order
    /// of sums.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn segment_cost_fast(
        &self,
        cost: &RoadCost,
        mask: &SegmentMask,
        st: &Strided,
        level: &[f64],
        cx: usize,
        cy: usize,
        o: usize,
    ) -> Result<f64, Blocked> {
        debug_assert_eq!(st.nx, self.nx);
        let (di, dj) = mask.offsets[o];
        let tx = cx.wrapping_add_signed(di as isize);
        let ty = cy.wrapping_add_signed(dj as isize);
        if tx >= self.nx || ty >= self.ny {
            return Err(Blocked::Outside);
        }
        let base = (cy * self.nx + cx) as isize;
        let lin = &st.lin[st.start[o]..st.start[o + 1]];
        let sublen = mask.sublen[o];
        let (h, w) = (self.height, self.water);
        let mut total = 0.0;
        for pair in lin.windows(2) {
            let i0 = (base + pair[0]) as usize;
            let m = if pair[0] == pair[1] {
                let m = level[i0];
                if m.is_nan() {
                    return Err(cost.sub_step(0.0, w[i0], self.trees.map_or(0.0, |t| t[i0])).unwrap_err());
                }
                m
            } else {
                let i1 = (base + pair[1]) as usize;
                cost.sub_step((h[i1] - h[i0]) / sublen, w[i0], self.trees.map_or(0.0, |t| t[i0]))?
            };
            total += sublen * m;
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_sizes_are_galin_table_1() {
        assert_eq!(path_segment_mask(1).len(), 8);
        assert_eq!(path_segment_mask(3).len(), 32);
        assert_eq!(path_segment_mask(5).len(), 80);
        // Largest angular gap between neighbouring directions: 45°, 18.4°, 11.3° (Table 1).
        for (k, deg) in [(1usize, 45.0f64), (3, 18.43), (5, 11.31)] {
            let mut a: Vec<f64> =
                path_segment_mask(k).iter().map(|&(i, j)| (j as f64).atan2(i as f64).to_degrees()).collect();
            a.sort_by(f64::total_cmp);
            let gap = a.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
            assert!((gap - deg).abs() < 0.01, "k={k}: {gap}");
        }
    }

    #[test]
    fn segment_cost_is_the_sampled_integral() {
        let res = 2.0;
        let (nx, ny) = (8, 8);
        // A ramp of grade 0.1 along x.
        let height: Vec<f64> = (0..nx * ny).map(|c| 0.1 * res * (c % nx) as f64).collect();
        let water = vec![0.0; nx * ny];
        let f = CostField { nx, ny, res, height: &height, water: &water, trees: None };
        let cost = RoadCost::default();
        let mask = SegmentMask::new(3, res);
        let o = mask.offsets.iter().position(|&d| d == (3, 1)).unwrap();
        let c = f.segment_cost(&cost, &mask, 1, 1, o).unwrap();
        // Closed form: length · (base + w·(s/s₀)²) summed over sub-steps whose rises are whole
        // cells; sample rows repeat, so grades vary along the segment, but the sum is ≥ flat.
        assert!(c >= res * 10f64.sqrt() * cost.base);
        assert_eq!(f.segment_cost(&cost, &mask, 6, 1, o), Err(Blocked::Outside));
        let o1 = mask.offsets.iter().position(|&d| d == (1, 0)).unwrap();
        let c1 = f.segment_cost(&cost, &mask, 1, 1, o1).unwrap();
        // Two sub-steps of 1 m: rounding of 0.5 to 0 puts the whole 0.2 m rise in the second.
        let expect = 1.0 * (1.0 + 6.0 * 0.0) + 1.0 * (1.0 + 6.0 * ((0.2f64 / 1.0) / 0.35).powi(2));
        assert!((c1 - expect).abs() < 1e-12, "{c1} vs {expect}");
    }
}
