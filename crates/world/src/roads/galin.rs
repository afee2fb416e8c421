//! Galin et al.'s extensions beyond pyworldgen (all opt-in through [`RoadParams`]):
//!
//! * tunnels and bridges as annulus moves (§5.3): from a node p the search may also jump to
//!   any q with r_i ≤ |q − p| ≤ r_e, on a seeded low-discrepancy subset of the annulus (§5.4),
//!   costed by the tunnel or bridge cost function of [`annulus`](super::annulus) over the
//!   terrain sampled along p → q;
//! * the curvature corridor: the oriented search restricted to cells near the uncurved route;
//! * clothoid smoothing (§6.1) through [`clothoid`](super::clothoid);
//! * trees cleared along the roads.

use super::annulus::{annulus_offsets, annulus_subset, bridge_cost, tunnel_cost, BridgeParams, TunnelParams};
use super::clothoid::{fit_clothoids, ClothoidParams};
use super::cost::CostField;
use super::solver::{Jump, Jumps, StepKind};
use super::RoadParams;
use crate::error::Result;

/// How many differently seeded annulus subsets the nodes cycle through (by a hash of the cell),
/// so neighbouring nodes try different directions and radii.
const SUBSET_VARIANTS: u64 = 8;

/// Tunnels and bridges as annulus moves of the search.
pub struct AnnulusJumps<'a> {
    field: CostField<'a>,
    subsets: Vec<Vec<(i32, i32)>>,
    tunnels: Option<TunnelParams>,
    bridges: Option<BridgeParams>,
    max_water_depth: f64,
}

impl<'a> AnnulusJumps<'a> {
    /// The jump source for these parameters, if tunnels or annulus bridges are on. The annulus
    /// radii are taken in cells (metres / res); errors name the parameter.
    pub fn new(field: &CostField<'a>, p: &RoadParams) -> Result<Option<Self>> {
        if !(p.allow_tunnels || p.annulus_bridges) {
            return Ok(None);
        }
        let r_e = p.annulus_outer / field.res;
        if r_e > super::annulus::MAX_ANNULUS_RADIUS {
            return Err(crate::WorldError::Param {
                name: "annulus_outer".into(),
                value: p.annulus_outer.to_string(),
                allowed: format!(
                    "at most {} cells = {} m at this resolution",
                    super::annulus::MAX_ANNULUS_RADIUS,
                    super::annulus::MAX_ANNULUS_RADIUS * field.res
                ),
            });
        }
        let offsets = annulus_offsets(p.annulus_inner / field.res, r_e)?;
        let subsets = (0..SUBSET_VARIANTS)
            .map(|v| annulus_subset(&offsets, p.annulus_fraction, 0x5EED_A770 ^ v))
            .collect::<Result<Vec<_>>>()?;
        let tunnels = p.allow_tunnels.then_some(TunnelParams {
            cover: p.tunnel_cover,
            portal_length: p.tunnel_portal_length,
            max_length: p.annulus_outer,
            max_grade: p.tunnel_max_grade,
            cost_per_m: p.tunnel_cost_per_m,
            growth: 1.0,
            fixed_cost: p.tunnel_fixed_cost,
        });
        let bridges = p.annulus_bridges.then_some(BridgeParams {
            clearance: p.bridge_clearance,
            abutment_length: p.bridge_abutment_length,
            max_length: p.annulus_outer,
            max_grade: p.bridge_max_grade,
            cost_per_m: p.bridge_span_cost_per_m,
            growth: 1.0,
            fixed_cost: p.bridge_fixed_cost,
        });
        if let Some(t) = &tunnels {
            t.validate()?;
        }
        if let Some(b) = &bridges {
            b.validate()?;
        }
        Ok(Some(Self { field: *field, subsets, tunnels, bridges, max_water_depth: p.max_water_depth }))
    }
}

impl Jumps for AnnulusJumps<'_> {
    /// From cell (cx, cy), every offset of the cell's subset whose end is on the grid and dry
    /// at both ends: the terrain is sampled at `⌈2·|q|⌉ + 1` evenly spaced points (nearest
    /// cell), a tunnel offered where [`tunnel_cost`] accepts it, a bridge where the span
    /// crosses water deeper than `max_water_depth` and [`bridge_cost`] accepts it.
    fn jumps(&self, cx: usize, cy: usize, out: &mut Vec<Jump>) {
        let f = &self.field;
        let c0 = cy * f.nx + cx;
        if f.water[c0] > 0.05 {
            return;
        }
        let v = (cell_hash(cx, cy) % SUBSET_VARIANTS) as usize;
        let (mut hs, mut ws) = (Vec::new(), Vec::new());
        for &(i, j) in &self.subsets[v] {
            let (tx, ty) = (cx as i64 + i as i64, cy as i64 + j as i64);
            if tx < 0 || ty < 0 || tx >= f.nx as i64 || ty >= f.ny as i64 {
                continue;
            }
            let to = ty as usize * f.nx + tx as usize;
            if f.water[to] > 0.05 {
                continue;
            }
            let len_cells = f64::from(i * i + j * j).sqrt();
            let n = (2.0 * len_cells).ceil() as usize + 1;
            hs.clear();
            ws.clear();
            for k in 0..n {
                let t = k as f64 / (n - 1) as f64;
                let x = (cx as f64 + i as f64 * t).round() as usize;
                let y = (cy as f64 + j as f64 * t).round() as usize;
                hs.push(f.height[y * f.nx + x]);
                ws.push(f.water[y * f.nx + x]);
            }
            let len_m = len_cells * f.res;
            if let Some(tp) = &self.tunnels {
                if let Some(cost) = tunnel_cost(&hs, len_m, tp) {
                    out.push(Jump { to, cost, kind: StepKind::Tunnel });
                }
            }
            if let Some(bp) = &self.bridges {
                if ws.iter().any(|&w| w > self.max_water_depth) {
                    if let Some(cost) = bridge_cost(&hs, &ws, len_m, bp) {
                        out.push(Jump { to, cost, kind: StepKind::Bridge });
                    }
                }
            }
        }
    }
}

/// A 64-bit mix of a cell's coordinates (SplitMix64's finaliser).
fn cell_hash(cx: usize, cy: usize) -> u64 {
    let mut z = (cx as u64) << 32 ^ cy as u64;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Clothoid smoothing: each run of surface edges is fitted by a clothoid spline (ends pinned,
/// |κ| ≤ `clothoid_max_curvature`, |dκ/ds| ≤ `clothoid_max_sharpness`) and sampled every half
/// knot spacing; tunnel and bridge jumps stay straight. A run the bounds cannot bend onto its
/// end keeps Chaikin smoothing (`smoothing_iters` rounds).
pub fn clothoid_smooth(
    world: &[[f64; 2]],
    kinds: &[StepKind],
    p: &RoadParams,
) -> Result<(Vec<[f64; 2]>, Vec<StepKind>)> {
    let cp = ClothoidParams {
        max_curvature: p.clothoid_max_curvature,
        max_sharpness: p.clothoid_max_sharpness,
        knot_spacing: p.clothoid_knot_spacing,
        ..ClothoidParams::default()
    };
    cp.validate()?;
    Ok(super::build::smooth_runs(world, kinds, |run| {
        match fit_clothoids(run, &cp).and_then(|c| c.sample(0.5 * cp.knot_spacing)) {
            Ok(s) => s,
            Err(_) => super::network::chaikin(run, p.smoothing_iters),
        }
    }))
}

/// Cells within `radius` metres of the cells along `path` (the corridor of a curvature search).
pub fn corridor_around(path: &[(usize, usize)], nx: usize, ny: usize, res: f64, radius: f64) -> Vec<bool> {
    let mut along = Vec::new();
    super::network::cells_along(path, nx, ny, &mut along);
    let r = (radius / res).ceil() as i64;
    let r2 = (radius / res) * (radius / res);
    let mut inside = vec![false; nx * ny];
    for &c in &along {
        let (cx, cy) = ((c % nx) as i64, (c / nx) as i64);
        for dy in -r..=r {
            for dx in -r..=r {
                let (x, y) = (cx + dx, cy + dy);
                if x >= 0 && y >= 0 && (x as usize) < nx && (y as usize) < ny && ((dx * dx + dy * dy) as f64) <= r2 {
                    inside[y as usize * nx + x as usize] = true;
                }
            }
        }
    }
    inside
}

impl super::RoadNetwork {
    /// Tree instances to drop for the roads (trees cleared along the corridor): those standing
    /// on a road-mask cell or within `width/2 + margin` metres of a centreline on the surface
    /// (tunnel stretches clear nothing). Indices into `trees`, ascending.
    pub fn trees_to_clear(&self, trees: &[[f64; 2]], margin: f64) -> Vec<usize> {
        let mut pts = Vec::new();
        for piece in self.surface_pieces() {
            if piece.len() >= 2 {
                pts.extend(super::network::densify(&piece, self.res));
            }
        }
        let tree = (!pts.is_empty()).then(|| super::grade::KdTree::new(&pts));
        let reach = 0.5 * self.width + margin.max(0.0);
        trees
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                let (ix, iy) = super::network::cell_of(t[0], t[1], self.res, self.nx, self.ny);
                let on_mask = t[0] >= 0.0 && t[1] >= 0.0 && self.road_mask[iy * self.nx + ix];
                on_mask || tree.as_ref().is_some_and(|k| k.nearest(**t).1.sqrt() <= reach)
            })
            .map(|(i, _)| i)
            .collect()
    }
}
