//! Thermal erosion by talus relaxation (seed 001 §4.4).
//!
//! Sources: F. K. Musgrave, C. E. Kolb & R. S. Mace (1989), "The synthesis and rendering of eroded
//! fractal terrains", *SIGGRAPH*; J. Olsen (2004), "Realtime procedural terrain generation"
//! (the distribution rule below).
//!
//! # Rule
//!
//! Material slides from a cell `i` to each of its 8 neighbours `j` that lies lower than the talus
//! slope allows. With `L_ij` the horizontal distance (`dx`, `dy`, or `√(dx² + dy²)` on diagonals)
//! and `T = tan(talus)`, the *excess* is `e_ij = (h_i − h_j) − T · L_ij` (metres). A cell is
//! *active* when some neighbour has `h_i − h_j > tan(talus + margin) · L_ij` (with `margin = 0`,
//! when some `e_ij > 0`). An active cell moves
//!
//! ```text
//! out_i = rate · max_j e_ij / 2,     t_ij = out_i · e_ij / Σ_k e_ik     (over e > 0)
//! ```
//!
//! (Olsen's rule: half the largest excess, scaled by `rate`, shared in proportion to the excesses).
//! Heights are metres and all cells have the same area, so moving height is moving mass.
//!
//! # Parallel formulation and determinism
//!
//! One iteration is Jacobi, not Gauss–Seidel: pass 1 computes from a snapshot of the heights the
//! factor `w_i = out_i / Σ_k e_ik` of every cell; pass 2 gives each cell
//! `h_j ← h_j − Σ_k w_j·e_jk + Σ_i w_i·e_ij`, neighbours in a fixed order, every `t_ij = w_i·e_ij`
//! evaluated by the same expression on both sides. Both passes are pure per cell (rows in parallel),
//! so the result is identical at any thread count, and the total is conserved up to the round-off
//! of the per-cell sums. Material never leaves the grid (edge cells have fewer neighbours).
//!
//! Because a cell may receive from up to 8 donors at once, large rates can overshoot in pits
//! (eight donors into one cell: `rate ≤ 2/9` never overshoots); spikes shed to up to 8 neighbours
//! and tolerate rates up to 1.
//!
//! # Modes
//!
//! * [`ThermalParams::scree_maker`]: talus 35°, rate 0.2, 200 iterations, no margin — scree
//!   aprons at the feet of cliffs.
//! * [`ThermalParams::spike_guard`]: talus 65°, margin 5°, rate 0.8, 4 iterations — only slopes
//!   steeper than 70° are touched, so numerical spikes are sanded off and intended cliffs kept.

use bozkir_core::{Grid, Progress};
use rayon::prelude::*;

/// Parameters of [`thermal`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermalParams {
    /// Talus (angle of repose) in degrees from horizontal, in `[0, 90)`. Default 35.
    pub talus_deg: f64,
    /// Extra angle in degrees a slope must exceed the talus by before its cell is relaxed; the
    /// relaxed cell still moves its whole excess over the talus. Default 0.
    pub margin_deg: f64,
    /// Fraction of half the largest excess moved per iteration, in `(0, 1]`. Default 0.2.
    pub rate: f64,
    /// Iterations (stops earlier when no cell is active). Default 200.
    pub iterations: usize,
}

impl Default for ThermalParams {
    fn default() -> Self {
        Self::scree_maker()
    }
}

impl ThermalParams {
    /// Many gentle iterations at 35°: scree aprons.
    pub fn scree_maker() -> Self {
        Self { talus_deg: 35.0, margin_deg: 0.0, rate: 0.2, iterations: 200 }
    }

    /// A few strong iterations touching only slopes above 65° + 5°: removes spikes, keeps cliffs.
    pub fn spike_guard() -> Self {
        Self { talus_deg: 65.0, margin_deg: 5.0, rate: 0.8, iterations: 4 }
    }

    /// Checks the ranges every caller shares (the recipe's `thermal` stage, [`thermal`] itself,
    /// which panics on parameters this refuses): `talus_deg` in `[0, 90)`, `margin_deg ≥ 0`
    /// with `talus_deg + margin_deg < 90`, `rate` in `(0, 1]`. The error names the first bad
    /// parameter, its value and its range.
    ///
    /// The bounds are the rule's: at 90° or beyond `tan` is infinite or negative, so a talus
    /// (or talus + margin) there would move everything or nothing meaningful; a rate of 0 moves
    /// nothing and a rate above 1 overshoots even a lone spike. A talus of 0 is allowed (it
    /// relaxes towards flat ground). `iterations` is a run-time budget, not a range of the rule:
    /// callers may cap it (the recipe allows at most 100 000).
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::erosion::thermal::ThermalParams;
    ///
    /// assert!(ThermalParams::scree_maker().validate().is_ok());
    /// let e = ThermalParams { rate: 0.0, ..ThermalParams::scree_maker() }.validate().unwrap_err();
    /// assert_eq!(e.param, "rate");
    /// assert_eq!(e.to_string(), "thermal: rate must be in (0, 1], got 0");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        use crate::ParamError as E;
        if !(0.0..90.0).contains(&self.talus_deg) {
            return Err(E::new("talus_deg", format!("thermal: talus_deg must be in [0, 90), got {}", self.talus_deg)));
        }
        if !(self.margin_deg >= 0.0 && self.talus_deg + self.margin_deg < 90.0) {
            return Err(E::new(
                "margin_deg",
                format!(
                    "thermal: margin_deg must be >= 0 with talus_deg + margin_deg < 90, got {} (talus_deg {})",
                    self.margin_deg, self.talus_deg
                ),
            ));
        }
        if !(self.rate > 0.0 && self.rate <= 1.0) {
            return Err(E::new("rate", format!("thermal: rate must be in (0, 1], got {}", self.rate)));
        }
        Ok(())
    }
}

/// The 8 neighbour offsets (dx, dy) in the fixed order used everywhere.
const NB: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

fn tan_deg(deg: f64) -> f64 {
    libm::tan(deg.to_radians())
}

/// Distances to the 8 neighbours in [`NB`] order.
fn distances(dx: f64, dy: f64) -> [f64; 8] {
    let dd = (dx * dx + dy * dy).sqrt();
    [dd, dy, dd, dx, dx, dd, dy, dd]
}

/// The largest talus excess `(h_i − h_j) − tan(talus_deg)·L_ij` over all 8-neighbour pairs, m
/// (≤ 0 when no slope exceeds the talus). `-inf` for a single cell.
pub fn max_talus_excess(z: &Grid<f64>, talus_deg: f64) -> f64 {
    let (w, h) = (z.width(), z.height());
    let t = tan_deg(talus_deg);
    let dist = distances(z.dx, z.dy);
    let d = z.data();
    (0..h)
        .into_par_iter()
        .map(|y| {
            let mut m = f64::NEG_INFINITY;
            for x in 0..w {
                for (k, &(ox, oy)) in NB.iter().enumerate() {
                    let (nx, ny) = (x as isize + ox, y as isize + oy);
                    if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                        m = m.max(d[y * w + x] - d[ny as usize * w + nx as usize] - t * dist[k]);
                    }
                }
            }
            m
        })
        .reduce(|| f64::NEG_INFINITY, f64::max)
}

/// Relax `terrain` in place; returns the number of iterations run (fewer than
/// `params.iterations` when a pass found no active cell or `progress` was cancelled).
pub fn thermal_in_place(terrain: &mut Grid<f64>, params: &ThermalParams, progress: &dyn Progress) -> usize {
    if let Err(e) = params.validate() {
        panic!("{e}");
    }
    let (w, h) = (terrain.width(), terrain.height());
    if w == 0 || h == 0 {
        return 0;
    }
    let t = tan_deg(params.talus_deg);
    let ta = tan_deg(params.talus_deg + params.margin_deg);
    let dist = distances(terrain.dx, terrain.dy);
    let tl: [f64; 8] = std::array::from_fn(|k| t * dist[k]);
    let tal: [f64; 8] = std::array::from_fn(|k| ta * dist[k]);
    let half_rate = 0.5 * params.rate;
    let mut wgt = vec![0.0f64; w * h];
    let mut next = vec![0.0f64; w * h];
    let every = (params.iterations / 64).max(1);
    // Neighbour index of (x, y) in direction k, if inside.
    let nb = move |x: usize, y: usize, k: usize| -> Option<usize> {
        let (ox, oy) = NB[k];
        let (nx, ny) = (x as isize + ox, y as isize + oy);
        (nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h).then(|| ny as usize * w + nx as usize)
    };
    for it in 0..params.iterations {
        if progress.cancelled() {
            return it;
        }
        let z = terrain.data();
        // Pass 1: w_i = out_i / Σ e_ik for active cells, else 0.
        let any = wgt
            .par_chunks_mut(w)
            .enumerate()
            .map(|(y, row)| {
                let mut any = false;
                for (x, o) in row.iter_mut().enumerate() {
                    let zi = z[y * w + x];
                    let (mut total, mut emax, mut active) = (0.0f64, 0.0f64, false);
                    for k in 0..8 {
                        if let Some(j) = nb(x, y, k) {
                            let drop = zi - z[j];
                            let e = drop - tl[k];
                            if e > 0.0 {
                                total += e;
                                emax = emax.max(e);
                                active |= drop > tal[k];
                            }
                        }
                    }
                    *o = if active { half_rate * emax / total } else { 0.0 };
                    any |= active;
                }
                any
            })
            .reduce(|| false, |a, b| a | b);
        if !any {
            return it;
        }
        // Pass 2: gather, neighbours in NB order; outflow first, then inflow.
        let wg = &wgt;
        next.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            for (x, o) in row.iter_mut().enumerate() {
                let j = y * w + x;
                let zj = z[j];
                let wj = wg[j];
                let mut out = 0.0;
                let mut inn = 0.0;
                for k in 0..8 {
                    if let Some(i) = nb(x, y, k) {
                        if wj > 0.0 {
                            // Transfer j -> i, exactly as cell i computes it below.
                            let e = (zj - z[i]) - tl[k];
                            if e > 0.0 {
                                out += wj * e;
                            }
                        }
                        let wi = wg[i];
                        if wi > 0.0 {
                            // Transfer i -> j; the direction from i to j is 7 - k in NB order.
                            let e = (z[i] - zj) - tl[7 - k];
                            if e > 0.0 {
                                inn += wi * e;
                            }
                        }
                    }
                }
                *o = zj - out + inn;
            }
        });
        terrain.data_mut().copy_from_slice(&next);
        if (it + 1) % every == 0 {
            progress.report("thermal", (it + 1) as u64, params.iterations as u64);
        }
    }
    params.iterations
}

/// `terrain` relaxed by [`thermal_in_place`].
pub fn thermal(terrain: &Grid<f64>, params: &ThermalParams, progress: &dyn Progress) -> Grid<f64> {
    let mut z = terrain.clone();
    thermal_in_place(&mut z, params, progress);
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash_unit;
    use bozkir_core::NoProgress;

    fn sum(z: &Grid<f64>) -> f64 {
        z.data().iter().sum()
    }

    fn rough(n: usize, amp: f64, dx: f64, dy: f64) -> Grid<f64> {
        Grid::from_fn(n, n, |x, y| amp * hash_unit(x as u32, y as u32, 3)).with_cell_size(dx, dy)
    }

    #[test]
    fn converges_below_talus_and_conserves_mass() {
        for (dx, dy) in [(1.0, 1.0), (1.0, 2.0)] {
            let mut z = rough(24, 6.0, dx, dy);
            // A tall column in the middle.
            *z.get_mut(12, 12) += 25.0;
            let m0 = sum(&z);
            let p = ThermalParams { iterations: 3000, ..ThermalParams::scree_maker() };
            let out = thermal(&z, &p, &NoProgress);
            let ex = max_talus_excess(&out, p.talus_deg);
            assert!(ex < 1e-3, "excess {ex} at dx={dx} dy={dy}");
            assert!((sum(&out) - m0).abs() < 1e-9 * m0.abs(), "mass {m0} -> {}", sum(&out));
            assert!(max_talus_excess(&z, p.talus_deg) > 10.0);
        }
    }

    #[test]
    fn idempotent_on_stable_terrain() {
        // A plane at 20° in x and a gentle bump: nowhere steeper than 35°.
        let z = Grid::from_fn(20, 20, |x, y| 0.36 * x as f64 + 0.1 * ((y as f64) * 0.3).sin()).with_cell_size(1.0, 1.0);
        assert!(max_talus_excess(&z, 35.0) < 0.0);
        let mut out = z.clone();
        let its = thermal_in_place(&mut out, &ThermalParams::scree_maker(), &NoProgress);
        assert_eq!(its, 0);
        assert_eq!(out, z);
        // A stable result stays put under a second run.
        let relaxed =
            thermal(&rough(16, 5.0, 1.0, 1.0), &ThermalParams { iterations: 4000, ..Default::default() }, &NoProgress);
        let again = thermal(&relaxed, &ThermalParams { iterations: 50, ..Default::default() }, &NoProgress);
        let diff = relaxed.data().iter().zip(again.data()).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(diff < 1e-3, "moved {diff}");
    }

    #[test]
    fn spike_guard_removes_spikes_keeps_moderate_slopes() {
        let mut z = Grid::from_fn(16, 16, |x, _| 0.5 * x as f64).with_cell_size(1.0, 1.0); // 26.6°
        let base = z.clone();
        *z.get_mut(5, 5) += 30.0;
        let m0 = sum(&z);
        let out = thermal(&z, &ThermalParams { iterations: 20, ..ThermalParams::spike_guard() }, &NoProgress);
        assert!(*out.get(5, 5) < base.get(5, 5) + 5.0, "spike left at {}", out.get(5, 5));
        assert!((sum(&out) - m0).abs() < 1e-9 * m0);
        // Far from the spike nothing changed (26.6° < 70°).
        for y in 10..16 {
            for x in 10..16 {
                assert_eq!(out.get(x, y), base.get(x, y));
            }
        }
    }

    #[test]
    fn thread_count_determinism() {
        let mut z = rough(48, 10.0, 1.0, 1.5);
        *z.get_mut(20, 20) += 40.0;
        let p = ThermalParams { iterations: 60, ..Default::default() };
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(|| thermal(&z, &p, &NoProgress))
        };
        assert_eq!(run(1), run(2));
    }
}
