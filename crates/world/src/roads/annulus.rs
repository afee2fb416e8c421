//! Bridge and tunnel masks after Galin et al. (2010): annulus masks, their seeded
//! low-discrepancy subsets, and the bridge and tunnel segment costs.
//!
//! A bridge or a tunnel is a single long segment p → q of the least-cost search, with
//! `r_i ≤ |q − p| ≤ r_e` (in cells): the *annulus mask*. As for the path masks M_k, only
//! primitive offsets are kept (gcd(|i|, |j|) = 1): a non-primitive offset repeats a shorter one's
//! direction and the search reaches its end through that one. The annulus grows as r_e², so the
//! paper evaluates only a subset of it per node; here the subset is a seeded R2 low-discrepancy
//! sequence over (angle, area-uniform radius), each point taking the nearest offset not yet taken,
//! so a small subset still covers every direction.
//!
//! The costs take the terrain sampled along the segment (heights and water depths at evenly
//! spaced points, both ends included) and return `None` where the structure is not valid, or its
//! total cost (a cost per metre × length + a fixed cost). Shapes, documented per function: a
//! fixed cost (abutments, portals), a per-metre cost that grows with the span (quadratic in
//! `len / max_len`), infinite beyond `max_len`.

use crate::error::{param, Result};

/// The largest outer radius accepted by [`annulus_offsets`], in cells (a 1025 × 1025 box).
pub const MAX_ANNULUS_RADIUS: f64 = 512.0;

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// All primitive integer offsets q with `r_i ≤ |q| ≤ r_e` (radii in cells):
/// {(i, j) ∈ ℤ² : r_i² ≤ i² + j² ≤ r_e², gcd(|i|, |j|) = 1}, ordered by angle
/// atan2(j, i) ∈ (−π, π], then by radius. Errors unless `0 ≤ r_i ≤ r_e ≤ 512` and both finite.
pub fn annulus_offsets(r_i: f64, r_e: f64) -> Result<Vec<(i32, i32)>> {
    if !r_i.is_finite() || r_i < 0.0 {
        return Err(param("r_i", r_i, "a finite inner radius ≥ 0 cells"));
    }
    if !r_e.is_finite() || r_e < r_i || r_e > MAX_ANNULUS_RADIUS {
        return Err(param("r_e", r_e, &format!("a finite outer radius in [r_i = {r_i}, 512] cells")));
    }
    let k = r_e.floor() as i32;
    let (lo2, hi2) = (r_i * r_i, r_e * r_e);
    let mut out = Vec::new();
    for j in -k..=k {
        for i in -k..=k {
            let d2 = f64::from(i * i + j * j);
            if d2 >= lo2 && d2 <= hi2 && gcd(i.unsigned_abs(), j.unsigned_abs()) == 1 {
                out.push((i, j));
            }
        }
    }
    out.sort_by(|a, b| {
        let ang = |q: &(i32, i32)| f64::from(q.1).atan2(f64::from(q.0));
        let r2 = |q: &(i32, i32)| q.0 * q.0 + q.1 * q.1;
        ang(a).total_cmp(&ang(b)).then(r2(a).cmp(&r2(b)))
    });
    Ok(out)
}

/// SplitMix64: one step of the seed hash used for the sequence's random shift.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 1/g and 1/g² for the plastic number g (g³ = g + 1): the R2 sequence's steps (Roberts 2018).
const R2_ALPHA: [f64; 2] = [0.754_877_666_246_692_7, 0.569_840_290_998_053_3];

/// A seeded subset of `offsets` holding `ceil(fraction · n)` of them (at least one when `offsets`
/// is not empty), in the order of `offsets`. Point m of the R2 sequence shifted by the seed,
/// u_m = frac(s + m·(1/g, 1/g²)), is mapped to the angle 2π·u₀ and the area-uniform radius
/// √(r_min² + u₁·(r_max² − r_min²)) (r_min, r_max the offsets' radius range) and takes the
/// nearest offset not yet taken. Deterministic from `seed`; `fraction = 1` returns all offsets.
pub fn annulus_subset(offsets: &[(i32, i32)], fraction: f64, seed: u64) -> Result<Vec<(i32, i32)>> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(param("fraction", fraction, "a share of the annulus in (0, 1]"));
    }
    let n = offsets.len();
    let m = ((fraction * n as f64).ceil() as usize).clamp(n.min(1), n);
    if m == n {
        return Ok(offsets.to_vec());
    }
    let r2s = offsets.iter().map(|&(i, j)| f64::from(i).powi(2) + f64::from(j).powi(2));
    let (r2_min, r2_max) = r2s.fold((f64::INFINITY, 0.0_f64), |(a, b), r2| (a.min(r2), b.max(r2)));
    let h0 = splitmix64(seed);
    let shift = [(h0 >> 11) as f64 / (1u64 << 53) as f64, (splitmix64(h0) >> 11) as f64 / (1u64 << 53) as f64];
    let mut lattice = Lattice::new(offsets);
    let mut taken = vec![false; n];
    for step in 0..m {
        let u0 = (shift[0] + step as f64 * R2_ALPHA[0]).fract();
        let u1 = (shift[1] + step as f64 * R2_ALPHA[1]).fract();
        let ang = std::f64::consts::TAU * u0;
        let rad = (r2_min + u1 * (r2_max - r2_min)).sqrt();
        match lattice.take_nearest(rad * ang.cos(), rad * ang.sin()) {
            Some(k) => taken[k] = true,
            None => break,
        }
    }
    Ok(offsets.iter().zip(&taken).filter(|(_, &t)| t).map(|(&o, _)| o).collect())
}

/// The offsets on their integer lattice, for nearest-untaken queries by growing square rings.
struct Lattice {
    /// Half-width of the box holding every offset.
    k: i64,
    /// Per lattice cell of the box, the first offset there not yet taken (u32::MAX: none).
    cell: Vec<u32>,
    /// Per offset, the next index holding the same offset (u32::MAX: none).
    next_dup: Vec<u32>,
}

impl Lattice {
    fn new(offsets: &[(i32, i32)]) -> Self {
        let k = offsets.iter().map(|&(i, j)| i64::from(i.unsigned_abs().max(j.unsigned_abs()))).max().unwrap_or(0);
        let side = (2 * k + 1) as usize;
        let mut cell = vec![u32::MAX; side * side];
        let mut next_dup = vec![u32::MAX; offsets.len()];
        for (idx, &(i, j)) in offsets.iter().enumerate().rev() {
            let at = (i64::from(j) + k) as usize * side + (i64::from(i) + k) as usize;
            next_dup[idx] = cell[at];
            cell[at] = idx as u32;
        }
        Self { k, cell, next_dup }
    }

    /// Takes the untaken offset nearest (x, y) (ties: the first in `offsets` order); `None` when
    /// every offset is taken. A cell on ring ρ around the rounded point lies ≥ ρ − ½ away, so
    /// the search stops once the best distance is below the next ring's.
    fn take_nearest(&mut self, x: f64, y: f64) -> Option<usize> {
        let side = 2 * self.k + 1;
        let (cx, cy) = (x.round() as i64, y.round() as i64);
        let mut best: Option<(f64, u32, usize)> = None;
        for rho in 0..=2 * side {
            for (i, j) in ring(cx, cy, rho) {
                let (gi, gj) = (i + self.k, j + self.k);
                if gi < 0 || gj < 0 || gi >= side || gj >= side {
                    continue;
                }
                let at = (gj * side + gi) as usize;
                let idx = self.cell[at];
                if idx == u32::MAX {
                    continue;
                }
                let d = (i as f64 - x).powi(2) + (j as f64 - y).powi(2);
                if best.is_none_or(|(bd, bi, _)| d < bd || (d == bd && idx < bi)) {
                    best = Some((d, idx, at));
                }
            }
            if best.is_some_and(|(bd, _, _)| bd < (rho as f64 + 0.5).powi(2)) {
                break;
            }
        }
        let (_, idx, at) = best?;
        // A later duplicate of this offset takes the cell; otherwise it empties.
        self.cell[at] = self.next_dup[idx as usize];
        Some(idx as usize)
    }
}

/// The lattice cells at Chebyshev distance `rho` from (cx, cy): the four sides of the square
/// ring, 2ρ cells each (one cell for ρ = 0).
fn ring(cx: i64, cy: i64, rho: i64) -> impl Iterator<Item = (i64, i64)> {
    let count = if rho == 0 { 1 } else { 8 * rho };
    (0..count).map(move |q| {
        if rho == 0 {
            return (cx, cy);
        }
        let t = q % (2 * rho) - rho;
        match q / (2 * rho) {
            0 => (cx + t, cy - rho),
            1 => (cx + rho, cy + t),
            2 => (cx - t, cy + rho),
            _ => (cx - rho, cy - t),
        }
    })
}

/// Bridge parameters (lengths in metres, costs in the search's cost units).
#[derive(Debug, Clone, PartialEq)]
pub struct BridgeParams {
    /// Least height of the deck above the ground or the water surface under it (m), away from
    /// the abutments; default 2.
    pub clearance: f64,
    /// Length at each end (m) where the deck may run lower than `clearance` above the ground
    /// (the abutments), though never below it; default 3.
    pub abutment_length: f64,
    /// Longest span (m); longer bridges are invalid. Default 200.
    pub max_length: f64,
    /// Steepest deck grade |Δh| / length; default 0.08.
    pub max_grade: f64,
    /// Cost per metre of a short bridge; default 8 (a plain road metre costs about 1).
    pub cost_per_m: f64,
    /// How much the per-metre cost grows at the longest span: c(l) = cost_per_m ·
    /// (1 + growth · (l / max_length)²). Default 1.
    pub growth: f64,
    /// Fixed cost of the two abutments; default 20.
    pub fixed_cost: f64,
}

impl Default for BridgeParams {
    fn default() -> Self {
        Self {
            clearance: 2.0,
            abutment_length: 3.0,
            max_length: 200.0,
            max_grade: 0.08,
            cost_per_m: 8.0,
            growth: 1.0,
            fixed_cost: 20.0,
        }
    }
}

/// Tunnel parameters (lengths in metres, costs in the search's cost units).
#[derive(Debug, Clone, PartialEq)]
pub struct TunnelParams {
    /// Least rock cover above the tunnel line in its interior (m); default 5.
    pub cover: f64,
    /// Length at each end (m) where the line may run shallower than `cover` (the portal cut),
    /// though never above the ground; default 10.
    pub portal_length: f64,
    /// Longest tunnel (m); default 500.
    pub max_length: f64,
    /// Steepest grade of the tunnel line; default 0.06.
    pub max_grade: f64,
    /// Cost per metre of a short tunnel; default 15.
    pub cost_per_m: f64,
    /// Growth of the per-metre cost at the longest tunnel (ventilation, safety):
    /// c(l) = cost_per_m · (1 + growth · (l / max_length)²). Default 1.
    pub growth: f64,
    /// Fixed cost of the two portals; default 50.
    pub fixed_cost: f64,
}

impl Default for TunnelParams {
    fn default() -> Self {
        Self {
            cover: 5.0,
            portal_length: 10.0,
            max_length: 500.0,
            max_grade: 0.06,
            cost_per_m: 15.0,
            growth: 1.0,
            fixed_cost: 50.0,
        }
    }
}

fn check_nonneg(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(param(name, v, "a finite value ≥ 0"))
    }
}

fn check_pos(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(param(name, v, "a finite value > 0"))
    }
}

impl BridgeParams {
    /// Checks every field: finite, lengths and grade > 0, costs, clearance and abutments ≥ 0.
    pub fn validate(&self) -> Result<()> {
        check_nonneg("bridge.clearance", self.clearance)?;
        check_nonneg("bridge.abutment_length", self.abutment_length)?;
        check_pos("bridge.max_length", self.max_length)?;
        check_pos("bridge.max_grade", self.max_grade)?;
        check_nonneg("bridge.cost_per_m", self.cost_per_m)?;
        check_nonneg("bridge.growth", self.growth)?;
        check_nonneg("bridge.fixed_cost", self.fixed_cost)
    }
}

impl TunnelParams {
    /// Checks every field: finite, lengths and grade > 0, costs, cover and portal length ≥ 0.
    pub fn validate(&self) -> Result<()> {
        check_nonneg("tunnel.cover", self.cover)?;
        check_nonneg("tunnel.portal_length", self.portal_length)?;
        check_pos("tunnel.max_length", self.max_length)?;
        check_pos("tunnel.max_grade", self.max_grade)?;
        check_nonneg("tunnel.cost_per_m", self.cost_per_m)?;
        check_nonneg("tunnel.growth", self.growth)?;
        check_nonneg("tunnel.fixed_cost", self.fixed_cost)
    }
}

/// The common checks: at least two samples, a finite positive length within `max_length`, all
/// samples finite, and the end-to-end grade |h_q − h_p| / len within `max_grade`.
fn span_ok(samples: &[f64], len_m: f64, max_length: f64, max_grade: f64) -> bool {
    samples.len() >= 2
        && len_m.is_finite()
        && len_m > 0.0
        && len_m <= max_length
        && samples.iter().all(|h| h.is_finite())
        && (samples[samples.len() - 1] - samples[0]).abs() <= max_grade * len_m
}

/// Total cost of a structure of length `l`: `fixed + l · c(l)` with the per-metre cost
/// c(l) = c₀ · (1 + growth · (l / max_len)²).
fn structure_cost(l: f64, fixed: f64, c0: f64, growth: f64, max_len: f64) -> f64 {
    let r = l / max_len;
    fixed + l * c0 * (1.0 + growth * r * r)
}

/// Cost of a bridge over the segment p → q, or `None` where no bridge is valid.
///
/// `samples[k]` is the ground height and `water[k]` the water depth (empty: dry) at the point
/// t_k = k / (n − 1) of the segment, both ends included; `len_m` is |q − p| in metres. The deck
/// is the straight line d(t) = h_p + t·(h_q − h_p) between the ground at both ends. Valid when
/// `len_m ≤ max_length`, |h_q − h_p| ≤ `max_grade`·len, the deck is never below the ground or
/// the water surface (d(t_k) ≥ h_k + w_k at every sample) and, at every interior sample farther
/// than `abutment_length` from both ends, it clears them: d(t_k) ≥ h_k + w_k + `clearance`. A
/// segment with no sample beyond the abutments is no bridge (`None`). The cost is
/// `fixed_cost + len · cost_per_m · (1 + growth · (len / max_length)²)`: a per-metre cost that
/// grows with the span (longer spans need heavier structures), infinite (`None`) beyond
/// `max_length`. Non-finite samples or mismatched lengths give `None`.
pub fn bridge_cost(samples: &[f64], water: &[f64], len_m: f64, p: &BridgeParams) -> Option<f64> {
    if !span_ok(samples, len_m, p.max_length, p.max_grade) || !(water.is_empty() || water.len() == samples.len()) {
        return None;
    }
    if water.iter().any(|w| !w.is_finite()) {
        return None;
    }
    // Gap under the deck: deck − (ground + water).
    let gap = |k: usize, line: f64| line - samples[k] - water.get(k).map_or(0.0, |w| w.max(0.0));
    clear_along(samples, len_m, p.abutment_length, p.clearance, gap)
        .then(|| structure_cost(len_m, p.fixed_cost, p.cost_per_m, p.growth, p.max_length))
}

/// Walks the interior samples of the straight line between the end samples: `gap(k, line)` must
/// be ≥ 0 everywhere and ≥ `least` at every sample farther than `end_zone` metres from both
/// ends, of which there must be at least one.
fn clear_along(samples: &[f64], len_m: f64, end_zone: f64, least: f64, gap: impl Fn(usize, f64) -> f64) -> bool {
    let n = samples.len();
    let (h0, h1) = (samples[0], samples[n - 1]);
    let step = 1.0 / (n - 1) as f64;
    let mut beyond = 0usize;
    for k in 1..n - 1 {
        let t = k as f64 * step;
        let g = gap(k, h0 + t * (h1 - h0));
        if g < 0.0 {
            return false;
        }
        if len_m * t.min(1.0 - t) > end_zone {
            if g < least {
                return false;
            }
            beyond += 1;
        }
    }
    beyond > 0
}

/// Cost of a tunnel along the segment p → q, or `None` where no tunnel is valid.
///
/// `samples[k]` is the ground height at t_k = k / (n − 1), both ends included; `len_m` is
/// |q − p| in metres. The tunnel line ℓ(t) = h_p + t·(h_q − h_p) runs between the ground at the
/// two portals. Valid when `len_m ≤ max_length`, |h_q − h_p| ≤ `max_grade`·len, the line is never
/// above the ground (h_k ≥ ℓ(t_k) at every sample) and, at every interior sample farther than
/// `portal_length` from both portals, the rock cover is at least `cover`: h_k − ℓ(t_k) ≥ cover.
/// A segment with no sample beyond the portal zones is no tunnel (`None`). The cost is
/// `fixed_cost + len · cost_per_m · (1 + growth · (len / max_length)²)`: portals, then a
/// per-metre cost that grows with length (ventilation and safety of long tunnels), infinite
/// (`None`) beyond `max_length`.
pub fn tunnel_cost(samples: &[f64], len_m: f64, p: &TunnelParams) -> Option<f64> {
    if !span_ok(samples, len_m, p.max_length, p.max_grade) {
        return None;
    }
    // Rock cover over the line: ground − line.
    clear_along(samples, len_m, p.portal_length, p.cover, |k, line| samples[k] - line)
        .then(|| structure_cost(len_m, p.fixed_cost, p.cost_per_m, p.growth, p.max_length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annulus_is_primitive_and_within_radii() {
        let offs = annulus_offsets(3.0, 7.5).unwrap();
        let mut brute = 0;
        for j in -8i32..=8 {
            for i in -8i32..=8 {
                let r = f64::from(i * i + j * j).sqrt();
                let prim = gcd(i.unsigned_abs(), j.unsigned_abs()) == 1;
                let inside = (3.0..=7.5).contains(&r) && prim;
                assert_eq!(offs.contains(&(i, j)), inside, "({i},{j}) r={r}");
                brute += usize::from(inside);
            }
        }
        assert_eq!(offs.len(), brute);
        // Symmetric under the 8 symmetries of the square.
        for &(i, j) in &offs {
            for q in [(-i, j), (i, -j), (j, i), (-j, -i)] {
                assert!(offs.contains(&q));
            }
        }
    }

    #[test]
    fn annulus_with_zero_inner_radius_contains_path_masks() {
        // r_i = 0, r_e = √2 is M_1 (8 offsets); the square box of M_k is larger than the disc.
        assert_eq!(annulus_offsets(0.0, 2f64.sqrt()).unwrap().len(), 8);
        assert_eq!(annulus_offsets(0.0, 1.0).unwrap().len(), 4);
        assert!(annulus_offsets(5.0, 5.0).unwrap().iter().all(|&(i, j)| i * i + j * j == 25));
        // 25 = 3² + 4²: the primitive (±3, ±4), (±4, ±3); (±5, 0), (0, ±5) are not primitive.
        assert_eq!(annulus_offsets(5.0, 5.0).unwrap().len(), 8);
    }

    #[test]
    fn annulus_bad_radii_refused() {
        for (a, b) in [(-1.0, 3.0), (4.0, 3.0), (f64::NAN, 3.0), (1.0, f64::INFINITY), (1.0, 600.0)] {
            let e = annulus_offsets(a, b).unwrap_err();
            assert!(matches!(e, crate::WorldError::Param { .. }), "{a} {b}: {e}");
        }
    }

    #[test]
    fn subset_size_determinism_and_membership() {
        let offs = annulus_offsets(4.0, 12.0).unwrap();
        let a = annulus_subset(&offs, 0.2, 7).unwrap();
        let b = annulus_subset(&offs, 0.2, 7).unwrap();
        let c = annulus_subset(&offs, 0.2, 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), (0.2 * offs.len() as f64).ceil() as usize);
        assert!(a.iter().all(|o| offs.contains(o)));
        let mut dedup = a.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), a.len());
        assert_eq!(annulus_subset(&offs, 1.0, 3).unwrap(), offs);
        assert_eq!(annulus_subset(&offs, 1e-9, 3).unwrap().len(), 1);
        assert!(annulus_subset(&[], 0.5, 3).unwrap().is_empty());
        for f in [0.0, -0.1, 1.5, f64::NAN] {
            assert!(annulus_subset(&offs, f, 1).is_err());
        }
    }

    #[test]
    fn subset_lattice_search_equals_brute_force() {
        // The ring search returns exactly what a scan of all offsets would (nearest untaken,
        // ties to the first in order).
        let offs = annulus_offsets(2.0, 9.0).unwrap();
        for seed in 0..20u64 {
            let fast = annulus_subset(&offs, 0.37, seed).unwrap();
            let h0 = splitmix64(seed);
            let shift = [(h0 >> 11) as f64 / (1u64 << 53) as f64, (splitmix64(h0) >> 11) as f64 / (1u64 << 53) as f64];
            let r2 = offs.iter().map(|&(i, j)| f64::from(i * i + j * j));
            let (lo, hi) = r2.fold((f64::INFINITY, 0.0_f64), |(a, b), v| (a.min(v), b.max(v)));
            let mut taken = vec![false; offs.len()];
            for step in 0..fast.len() {
                let u0 = (shift[0] + step as f64 * R2_ALPHA[0]).fract();
                let u1 = (shift[1] + step as f64 * R2_ALPHA[1]).fract();
                let (a, r) = (std::f64::consts::TAU * u0, (lo + u1 * (hi - lo)).sqrt());
                let (x, y) = (r * a.cos(), r * a.sin());
                let d = |k: usize| (f64::from(offs[k].0) - x).powi(2) + (f64::from(offs[k].1) - y).powi(2);
                let best = (0..offs.len()).filter(|&k| !taken[k]).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap();
                taken[best] = true;
            }
            let brute: Vec<(i32, i32)> = offs.iter().zip(&taken).filter(|(_, &t)| t).map(|(&o, _)| o).collect();
            assert_eq!(fast, brute, "seed {seed}");
        }
        // Duplicates count once each time they appear.
        let dup = [(1, 0), (1, 0), (0, 1)];
        assert_eq!(annulus_subset(&dup, 0.9, 1).unwrap().len(), 3);
    }

    #[test]
    fn rings_are_the_chebyshev_shells() {
        for rho in 0..5i64 {
            let mut cells: Vec<(i64, i64)> = ring(2, -3, rho).collect();
            cells.sort_unstable();
            let mut expect: Vec<(i64, i64)> = (-5i64..=9)
                .flat_map(|i| (-10i64..=4).map(move |j| (i, j)))
                .filter(|&(i, j)| (i - 2).abs().max((j + 3).abs()) == rho)
                .collect();
            expect.sort_unstable();
            assert_eq!(cells, expect, "rho {rho}");
        }
    }

    #[test]
    fn subset_covers_every_direction() {
        // Low discrepancy: 16 angular sectors each get at least one offset from a 1/8 subset,
        // for many seeds; a plain random pick of the same size misses sectors far more often.
        let offs = annulus_offsets(6.0, 20.0).unwrap();
        for seed in 0..50u64 {
            let sub = annulus_subset(&offs, 0.125, seed).unwrap();
            let mut hit = [0usize; 16];
            for &(i, j) in &sub {
                let a = f64::from(j).atan2(f64::from(i)).rem_euclid(std::f64::consts::TAU);
                hit[((a / std::f64::consts::TAU * 16.0) as usize).min(15)] += 1;
            }
            let (lo, hi) = (hit.iter().min().unwrap(), hit.iter().max().unwrap());
            assert!(*lo >= 1, "seed {seed}: {hit:?}");
            assert!(hi - lo <= 6, "seed {seed}: uneven {hit:?}");
            // Radii spread too: both halves of the annulus area are represented.
            let inner = sub.iter().filter(|&&(i, j)| f64::from(i * i + j * j) < (36.0 + 400.0) / 2.0).count();
            assert!(inner * 4 >= sub.len() && inner * 4 <= 3 * sub.len(), "seed {seed}: {inner}/{}", sub.len());
        }
    }

    fn gorge(n: usize, depth: f64) -> Vec<f64> {
        // Banks at 10 m at both ends, a flat floor `depth` lower in between.
        (0..n).map(|k| if k == 0 || k == n - 1 { 10.0 } else { 10.0 - depth }).collect()
    }

    fn valley(n: usize, depth: f64) -> Vec<f64> {
        // Banks at 10 m, a V valley `depth` deep in the middle.
        (0..n).map(|k| 10.0 - depth * (1.0 - (2.0 * k as f64 / (n - 1) as f64 - 1.0).abs())).collect()
    }

    #[test]
    fn bridge_validity_and_cost_shape() {
        let p = BridgeParams::default();
        let dry = gorge(21, 8.0);
        let c = bridge_cost(&dry, &[], 100.0, &p).expect("deck 8 m over the gorge floor");
        let expect = 20.0 + 100.0 * 8.0 * (1.0 + 0.25);
        assert!((c - expect).abs() < 1e-9, "{c} vs {expect}");
        // Flat ground: the deck lies on it, no clearance → no bridge.
        assert!(bridge_cost(&[10.0; 21], &[], 100.0, &p).is_none());
        // Too long, too steep.
        assert!(bridge_cost(&dry, &[], 201.0, &p).is_none());
        let mut steep = dry.clone();
        steep[20] = 10.0 + 0.09 * 100.0;
        assert!(bridge_cost(&steep, &[], 100.0, &p).is_none());
        // A V valley: the deck meets the slopes within 12.5 m of the ends (gap 0.16 m per m), so
        // 3 m abutments are too short and 15 m ones enough.
        assert!(bridge_cost(&valley(21, 8.0), &[], 100.0, &p).is_none());
        let long_abut = BridgeParams { abutment_length: 15.0, ..p.clone() };
        assert!(bridge_cost(&valley(21, 8.0), &[], 100.0, &long_abut).is_some());
        // Water under the deck: a 5 m deep river on a 6 m deep floor leaves 1 m < 2 m clearance.
        let bed = gorge(21, 6.0);
        let mut water = vec![0.0; 21];
        water[10] = 5.0;
        assert!(bridge_cost(&bed, &water, 100.0, &p).is_none());
        water[10] = 3.0;
        assert!(bridge_cost(&bed, &water, 100.0, &p).is_some());
        // Per-metre cost grows with the span.
        let per_m = |l: f64| (bridge_cost(&dry, &[], l, &p).unwrap() - p.fixed_cost) / l;
        assert!(per_m(50.0) < per_m(100.0) && per_m(100.0) < per_m(200.0));
        // Malformed input.
        assert!(bridge_cost(&[1.0], &[], 10.0, &p).is_none());
        assert!(bridge_cost(&dry, &[0.0; 3], 100.0, &p).is_none());
        let mut nan = dry.clone();
        nan[5] = f64::NAN;
        assert!(bridge_cost(&nan, &[], 100.0, &p).is_none());
        assert!(bridge_cost(&dry, &[], f64::NAN, &p).is_none());
    }

    #[test]
    fn tunnel_validity_and_cost_shape() {
        let p = TunnelParams::default();
        // A ridge 40 m high over 200 m: cover ≥ 5 m beyond the 10 m portal zones.
        let ridge: Vec<f64> = (0..41).map(|k| 40.0 * (std::f64::consts::PI * k as f64 / 40.0).sin()).collect();
        let c = tunnel_cost(&ridge, 200.0, &p).expect("a ridge to pierce");
        assert!((c - (50.0 + 200.0 * 15.0 * (1.0 + 0.16))).abs() < 1e-9, "{c}");
        // A low ridge: 4 m of cover at most → no tunnel.
        let low: Vec<f64> = ridge.iter().map(|h| h * 0.1).collect();
        assert!(tunnel_cost(&low, 200.0, &p).is_none());
        // Flat ground or a valley (line above ground) → no tunnel.
        assert!(tunnel_cost(&[0.0; 41], 200.0, &p).is_none());
        assert!(tunnel_cost(&valley(41, 8.0), 200.0, &p).is_none());
        // Too long, too steep.
        assert!(tunnel_cost(&ridge, 501.0, &p).is_none());
        let mut steep = ridge.clone();
        steep[40] = 13.0;
        assert!(tunnel_cost(&steep, 200.0, &p).is_none());
        // A short hump entirely inside the portal zones is no tunnel.
        assert!(tunnel_cost(&[0.0, 30.0, 0.0], 15.0, &p).is_none());
        let per_m = |l: f64| (tunnel_cost(&ridge, l, &p).unwrap() - p.fixed_cost) / l;
        assert!(per_m(100.0) < per_m(300.0));
    }

    #[test]
    fn params_validate() {
        assert!(BridgeParams::default().validate().is_ok());
        assert!(TunnelParams::default().validate().is_ok());
        let e = BridgeParams { max_length: 0.0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("bridge.max_length"), "{e}");
        let e = TunnelParams { cover: f64::NAN, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("tunnel.cover"), "{e}");
    }
}
