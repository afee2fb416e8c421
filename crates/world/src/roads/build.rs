//! Routing every hub pair of the network in order, with corridor reuse.

use super::cost::{CostField, RoadCost, SegmentMask};
use super::network::{cells_along, chaikin, extra_edges, mst_edges, RoadNode};
use super::solver::{least_cost_path, NoRoute, Route, SearchOptions, StepKind};
use super::{galin, RoadParams, RoadSegment, Smoothing, Unrouted};
use crate::error::{Result, WorldError};

/// Most states a full (uncorridored) oriented search may hold (about 1.3 GB of bookkeeping).
const MAX_ORIENTED_STATES: usize = 64 << 20;

/// Segments, skipped pairs, tunnel portals (segment, x, y).
pub(super) type Routed = (Vec<RoadSegment>, Vec<Unrouted>, Vec<(usize, f64, f64)>);

/// Route the network's hub pairs (MST edges then loop edges) one after the other; each built
/// road discounts the cells it crosses to `reuse_discount` for the later ones.
pub(super) fn route_all(field: &CostField<'_>, hubs: &[RoadNode], p: &RoadParams) -> Result<Routed> {
    let (nx, ny, res) = (field.nx, field.ny, field.res);
    let mut edges = mst_edges(hubs);
    let extra = extra_edges(hubs, &edges, p.extra_edge_fraction);
    edges.extend(extra);
    let cost = p.cost();
    let mask = SegmentMask::new(p.mask_radius, res);
    let states = nx * ny * (mask.offsets.len() + 1);
    if p.curvature_weight > 0.0 && p.curvature_corridor == 0.0 && states > MAX_ORIENTED_STATES {
        return Err(WorldError::Param {
            name: "curvature_corridor".into(),
            value: "0".into(),
            allowed: format!(
                "a full oriented search over {nx}×{ny} cells × {} directions ({states} states, over {MAX_ORIENTED_STATES}) needs a corridor (metres) around the uncurved route",
                mask.offsets.len() + 1
            ),
        });
    }
    let jumps = galin::AnnulusJumps::new(field, p)?;
    let mut reuse = vec![1.0; nx * ny];
    let level = super::cost::level_multipliers(field, &cost);
    let floor = super::solver::segment_floor(field, &cost, &mask, &level);
    let (mut segments, mut unrouted, mut portals) = (Vec::new(), Vec::new(), Vec::new());
    let mut cells = Vec::new();
    for (i, j) in edges {
        let (a, b) = (&hubs[i], &hubs[j]);
        let route = match route_pair(field, &cost, &mask, a.grid, b.grid, (&reuse, &level, &floor), p, jumps.as_ref()) {
            Ok(r) => r,
            Err(nr) => {
                let u = Unrouted { a: i, b: j, blocked_by: nr.blocked_by(&cost), xy: (a.xy, b.xy) };
                if p.require_connected {
                    return Err(u.error());
                }
                unrouted.push(u);
                continue;
            }
        };
        if route.cells.len() < 2 {
            continue;
        }
        let mut world: Vec<[f64; 2]> =
            route.cells.iter().map(|&(ix, iy)| [(ix as f64 + 0.5) * res, (iy as f64 + 0.5) * res]).collect();
        world[0] = [a.xy.0, a.xy.1];
        let last = world.len() - 1;
        world[last] = [b.xy.0, b.xy.1];
        let (polyline, edge_kinds) = smooth_clear(field, &mask, &route, &world, p)?;
        let sid = segments.len();
        for (e, k) in edge_kinds.iter().enumerate() {
            let before = if e == 0 { StepKind::Surface } else { edge_kinds[e - 1] };
            let after = edge_kinds.get(e + 1).copied().unwrap_or(StepKind::Surface);
            if *k == StepKind::Tunnel && before != StepKind::Tunnel {
                portals.push((sid, polyline[e][0], polyline[e][1]));
            }
            if *k == StepKind::Tunnel && after != StepKind::Tunnel {
                portals.push((sid, polyline[e + 1][0], polyline[e + 1][1]));
            }
        }
        segments.push(RoadSegment { a: i, b: j, polyline, grid_path: route.cells.clone(), edge_kinds });
        // The corridor of the surface steps (a bore or a span is no road to share).
        cells.clear();
        for (w, k) in route.cells.windows(2).zip(&route.kinds) {
            if *k == StepKind::Surface {
                cells_along(w, nx, ny, &mut cells);
            }
        }
        for &c in &cells {
            reuse[c] = f64::min(reuse[c], p.reuse_discount);
        }
    }
    Ok((segments, unrouted, portals))
}

/// One pair: the plain search, or with curvature inside a corridor around the uncurved route.
#[allow(clippy::too_many_arguments)]
fn route_pair(
    field: &CostField<'_>,
    cost: &RoadCost,
    mask: &SegmentMask,
    start: (usize, usize),
    goal: (usize, usize),
    (reuse, level, floor): (&[f64], &[f64], &[f64]),
    p: &RoadParams,
    jumps: Option<&galin::AnnulusJumps<'_>>,
) -> std::result::Result<Route, NoRoute> {
    let jumps = jumps.map(|j| j as &dyn super::solver::Jumps);
    let opts = SearchOptions { reuse: Some(reuse), corridor: None, jumps, level: Some(level), floor: Some(floor) };
    if cost.curvature_weight > 0.0 && p.curvature_corridor > 0.0 {
        let flat = RoadCost { curvature_weight: 0.0, ..cost.clone() };
        let plain = least_cost_path(field, &flat, mask, start, goal, opts)?;
        let corridor = galin::corridor_around(&plain.cells, field.nx, field.ny, field.res, p.curvature_corridor);
        let copts = SearchOptions { corridor: Some(&corridor), ..opts };
        if let Ok(r) = least_cost_path(field, cost, mask, start, goal, copts) {
            return Ok(r);
        }
    }
    least_cost_path(field, cost, mask, start, goal, opts)
}

/// Whether the cost forbids cell `c` in every direction: water deeper than `max_water_depth`
/// with bridges off, or trees denser than `max_tree_density`.
fn forbidden_cell(field: &CostField<'_>, p: &RoadParams, c: usize) -> bool {
    (!p.allow_bridges && field.water[c] > p.max_water_depth)
        || matches!((p.max_tree_density, field.trees), (Some(t0), Some(t)) if t[c] > t0)
}

/// Whether a point lies strictly inside (by more than 1e-9 cells) a forbidden cell.
fn in_forbidden(field: &CostField<'_>, p: &RoadParams, pt: [f64; 2]) -> bool {
    let (u, v) = (pt[0] / field.res, pt[1] / field.res);
    let (fu, fv) = (u - u.floor(), v - v.floor());
    let eps = 1e-9;
    if fu < eps || fu > 1.0 - eps || fv < eps || fv > 1.0 - eps {
        return false; // on a cell edge: touches, does not enter
    }
    let (ix, iy) = super::network::cell_of(pt[0], pt[1], field.res, field.nx, field.ny);
    forbidden_cell(field, p, iy * field.nx + ix)
}

/// [`smooth`], with fewer smoothing rounds where the smoothed centreline would cut a corner
/// through a forbidden cell; if even the routed polyline does (a step's straight line clips a
/// cell its samples skipped), its surface steps are replaced by the chains of sampled cell
/// centres. Changes nothing where pyworldgen's centreline stays clear.
fn smooth_clear(
    field: &CostField<'_>,
    mask: &SegmentMask,
    route: &Route,
    world: &[[f64; 2]],
    p: &RoadParams,
) -> Result<(Vec<[f64; 2]>, Vec<StepKind>)> {
    let clear =
        |line: &[[f64; 2]]| super::network::densify(line, field.res).iter().all(|&pt| !in_forbidden(field, p, pt));
    let mut q = p.clone();
    loop {
        let out = smooth(world, &route.kinds, &q)?;
        if clear(&out.0) {
            return Ok(out);
        }
        if q.smoothing == Smoothing::Clothoid {
            q.smoothing = Smoothing::Chaikin;
            continue;
        }
        if q.smoothing_iters == 0 {
            break;
        }
        q.smoothing_iters -= 1;
    }
    let (mut pts, mut kinds) = (vec![world[0]], Vec::new());
    for (s, w) in route.cells.windows(2).enumerate() {
        if route.kinds[s] == StepKind::Surface {
            let d = (w[1].0 as i32 - w[0].0 as i32, w[1].1 as i32 - w[0].1 as i32);
            let chain = mask.sampled_cells(&[w[0], w[1]]);
            let mut last = w[0];
            for c in chain.into_iter().filter(|_| mask.offsets.contains(&d)) {
                if c != last && c != w[1] {
                    pts.push([(c.0 as f64 + 0.5) * field.res, (c.1 as f64 + 0.5) * field.res]);
                    kinds.push(StepKind::Surface);
                    last = c;
                }
            }
        }
        pts.push(world[s + 1]);
        kinds.push(route.kinds[s]);
    }
    Ok((pts, kinds))
}

/// Smooth a routed centreline, carrying what each edge is (tunnel/bridge stretches stay
/// straight between their portals).
fn smooth(world: &[[f64; 2]], kinds: &[StepKind], p: &RoadParams) -> Result<(Vec<[f64; 2]>, Vec<StepKind>)> {
    match p.smoothing {
        Smoothing::Chaikin => {
            if kinds.iter().all(|k| *k == StepKind::Surface) {
                let pts = chaikin(world, p.smoothing_iters);
                let n = pts.len().saturating_sub(1);
                return Ok((pts, vec![StepKind::Surface; n]));
            }
            Ok(smooth_runs(world, kinds, |run| chaikin(run, p.smoothing_iters)))
        }
        Smoothing::Clothoid => galin::clothoid_smooth(world, kinds, p),
    }
}

/// Smooth each run of surface edges with `f` (its end points are kept by every smoother), and
/// keep the jump edges (tunnels, annulus bridges) exactly: their ends are the portals and
/// abutments.
pub(super) fn smooth_runs(
    world: &[[f64; 2]],
    kinds: &[StepKind],
    mut f: impl FnMut(&[[f64; 2]]) -> Vec<[f64; 2]>,
) -> (Vec<[f64; 2]>, Vec<StepKind>) {
    let (mut pts, mut ks) = (vec![world[0]], Vec::new());
    let mut e = 0;
    while e < kinds.len() {
        if kinds[e] != StepKind::Surface {
            pts.push(world[e + 1]);
            ks.push(kinds[e]);
            e += 1;
            continue;
        }
        let a = e;
        while e < kinds.len() && kinds[e] == StepKind::Surface {
            e += 1;
        }
        for q in &f(&world[a..=e])[1..] {
            pts.push(*q);
            ks.push(StepKind::Surface);
        }
    }
    (pts, ks)
}
