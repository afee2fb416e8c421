//! Least-cost roads after Galin et al., *Procedural Generation of Roads* (Eurographics 2010),
//! compatible with pyworldgen 0.1.8's `roads`.
//!
//! Pipeline: hubs by dart throwing → hub pairs (Prim's minimum spanning tree plus the shortest
//! non-tree pairs as loops) → each pair routed as the least-cost path over path segment masks
//! M_k with the line-integral cost of [`cost`] (later routes discounted along earlier ones) →
//! centrelines smoothed (Chaikin, or clothoids) → road mask, bridge mask, graded terrain, 3-D
//! polylines and a ribbon mesh.
//!
//! * [`cost`] — transfer functions, masks, the sampled segment integral.
//! * [`solver`] — the best-first search (plain or oriented grid), with jump moves.
//! * [`network`] — hubs, edges, smoothing, corridor cells, rasterisation.
//! * [`grade`] — cut/fill and shoulders.
//! * [`geometry`] — 3-D polylines and the ribbon mesh.
//! * [`annulus`], [`clothoid`] — the bridge/tunnel annulus masks and costs, clothoid splines.
//! * [`galin`] — the paper's extensions beyond pyworldgen: tunnels and annulus bridges,
//!   vegetation, curvature corridors, tree clearing.

pub mod annulus;
pub mod clothoid;
pub mod cost;
pub mod galin;
pub mod geometry;
pub mod grade;
pub mod network;
pub(crate) mod np;
pub mod params;
pub mod solver;

pub use cost::{path_segment_mask, RoadCost, SegmentMask};
pub use geometry::RibbonMesh;
pub use network::RoadNode;
pub use params::{RoadParams, Smoothing};
pub use solver::{least_cost_path, Route, StepKind};

use crate::error::{Result, WorldError};
use crate::field::Terrain;
use crate::random::for_compat;
use crate::{Compat, Seed};
use cost::CostField;

/// One road: the hubs it joins, its smoothed centreline and the cells it was routed through.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadSegment {
    /// Start hub id.
    pub a: usize,
    /// End hub id.
    pub b: usize,
    /// Smoothed world-space centreline (x, y), pinned to the hubs at both ends.
    pub polyline: Vec<[f64; 2]>,
    /// The routed waypoints (ix, iy).
    pub grid_path: Vec<(usize, usize)>,
    /// What each centreline edge is (`polyline.len() − 1` entries).
    pub edge_kinds: Vec<StepKind>,
}

impl RoadSegment {
    /// Centreline length in metres.
    pub fn length(&self) -> f64 {
        self.polyline.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])).sum()
    }

    /// Which centreline vertices lie on an edge of kind `kind`.
    pub fn vertices_on(&self, kind: StepKind) -> Vec<bool> {
        let mut t = vec![false; self.polyline.len()];
        for (e, k) in self.edge_kinds.iter().enumerate() {
            if *k == kind {
                t[e] = true;
                t[e + 1] = true;
            }
        }
        t
    }

    /// Vertices on a structure (tunnel bore or annulus bridge span), whose deck runs straight
    /// between its ends instead of following the ground.
    pub fn structure_vertices(&self) -> Vec<bool> {
        self.polyline
            .iter()
            .enumerate()
            .map(|(v, _)| {
                let on = |e: usize| self.edge_kinds.get(e).is_some_and(|k| *k != StepKind::Surface);
                on(v) || (v > 0 && on(v - 1))
            })
            .collect()
    }
}

/// A hub pair the network could not route, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unrouted {
    /// Start hub id.
    pub a: usize,
    /// End hub id.
    pub b: usize,
    /// The thresholds that blocked every route, in words with their values.
    pub blocked_by: String,
    /// Positions of the two hubs.
    pub xy: ((f64, f64), (f64, f64)),
}

impl Unrouted {
    /// As the error [`generate_roads`] returns with `require_connected`.
    pub fn error(&self) -> WorldError {
        WorldError::Unreachable {
            from: self.a,
            from_xy: self.xy.0,
            to: self.b,
            to_xy: self.xy.1,
            blocked_by: self.blocked_by.clone(),
        }
    }
}

/// A tunnel portal: where a road enters or leaves a bore.
#[derive(Debug, Clone, PartialEq)]
pub struct Portal {
    /// Index of the segment in [`RoadNetwork::segments`].
    pub segment: usize,
    /// Position (x, y, deck z) in metres.
    pub xyz: [f64; 3],
}

/// A road network over a terrain, with the terrain it was laid on.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadNetwork {
    /// Hubs.
    pub nodes: Vec<RoadNode>,
    /// Routed roads, in the order they were built.
    pub segments: Vec<RoadSegment>,
    /// Pairs that could not be routed (skipped, as pyworldgen does, unless
    /// `require_connected`).
    pub unrouted: Vec<Unrouted>,
    /// Tunnel portals.
    pub portals: Vec<Portal>,
    /// Columns.
    pub nx: usize,
    /// Rows (row 0 south).
    pub ny: usize,
    /// Cell size in metres.
    pub res: f64,
    /// Domain (width, depth) in metres.
    pub domain: (f64, f64),
    /// Ground heights (rounded to float32 in the pyworldgen path, as its network keeps them).
    pub height: Vec<f64>,
    /// Water depths (likewise).
    pub water: Vec<f64>,
    /// Cells covered by a road.
    pub road_mask: Vec<bool>,
    /// Road width in metres.
    pub width: f64,
}

impl RoadNetwork {
    /// Road cells over water deeper than `min_depth` (pyworldgen default 0.05): bridge decks.
    pub fn bridge_mask(&self, min_depth: f64) -> Vec<bool> {
        self.road_mask.iter().zip(&self.water).map(|(&r, &w)| r && w > min_depth).collect()
    }

    /// Total centreline length in metres.
    pub fn total_length(&self) -> f64 {
        self.segments.iter().map(RoadSegment::length).sum()
    }

    /// The terrain graded along the roads (pyworldgen's `carve_road_terrain`): asphalt
    /// half-width `r = width/2` (default the network's), shoulder out to
    /// `R = blend_width` or `max(3r, r + 2·res)`; cells wetter than `water_threshold` (0.05)
    /// untouched. Tunnel stretches do not grade the ground above them.
    pub fn graded_height(&self, road_width: Option<f64>, blend_width: Option<f64>, water_threshold: f64) -> Vec<f64> {
        let r = 0.5 * road_width.unwrap_or(self.width);
        let big_r = blend_width.unwrap_or_else(|| (r * 3.0).max(r + 2.0 * self.res));
        let pieces = self.surface_pieces();
        let lines: Vec<&[[f64; 2]]> = pieces.iter().map(|p| p.as_slice()).collect();
        grade::grade_terrain(&self.height, &self.water, self.nx, self.ny, self.res, &lines, r, big_r, water_threshold)
    }

    /// The centrelines split at tunnels and annulus bridges (the ground stays as it is above a
    /// bore and under a span).
    pub(crate) fn surface_pieces(&self) -> Vec<Vec<[f64; 2]>> {
        let mut out = Vec::new();
        for s in &self.segments {
            if s.edge_kinds.iter().all(|k| *k == StepKind::Surface) {
                out.push(s.polyline.clone());
                continue;
            }
            let mut cur = vec![s.polyline[0]];
            for (e, k) in s.edge_kinds.iter().enumerate() {
                if *k != StepKind::Surface {
                    out.push(std::mem::take(&mut cur));
                } else {
                    if cur.is_empty() {
                        cur.push(s.polyline[e]);
                    }
                    cur.push(s.polyline[e + 1]);
                }
            }
            out.push(cur);
        }
        out
    }
}

/// Inputs beyond the terrain: a tree density for the vegetation characteristic, and hubs given
/// instead of placed.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoadInputs<'a> {
    /// Tree density in [0, 1] per cell (`ny × nx`, row 0 south).
    pub tree_density: Option<&'a [f64]>,
    /// Hub positions (x, y) in metres; `None` places them from the seed.
    pub hubs: Option<&'a [(f64, f64)]>,
    /// The domain (width, depth) hubs are drawn in, when it differs from the grid's extent
    /// (pyworldgen's flat terrain keeps its `domain_size` when it is not a whole number of
    /// cells); `None` = `terrain.extent()`.
    pub domain: Option<(f64, f64)>,
}

/// A road network over `terrain` for `seed` (pyworldgen's `generate_road_network`).
pub fn generate_roads(terrain: &dyn Terrain, seed: &Seed, compat: Compat, params: &RoadParams) -> Result<RoadNetwork> {
    generate_roads_with(terrain, seed, compat, params, &RoadInputs::default())
}

/// [`generate_roads`] with extra inputs (tree density, given hubs).
pub fn generate_roads_with(
    terrain: &dyn Terrain,
    seed: &Seed,
    compat: Compat,
    params: &RoadParams,
    inputs: &RoadInputs<'_>,
) -> Result<RoadNetwork> {
    params.validate()?;
    let (nx, ny, res) = check_terrain(terrain, inputs)?;
    let height = terrain.height();
    let water = terrain.water_depth();
    let domain = inputs.domain.unwrap_or_else(|| terrain.extent());
    let nodes = match inputs.hubs {
        Some(xy) => hubs_from_xy(xy, nx, ny, res, domain)?,
        None => {
            let seed_int = match compat {
                Compat::Pyworldgen => seed.pyworldgen_int(),
                Compat::Canonical => seed.canonical() as i64,
            };
            let mut draws = for_compat(compat).draws(seed_int.wrapping_add(8101));
            network::place_hubs(height, water, nx, ny, res, domain, params, draws.as_mut())
        }
    };
    let field = CostField { nx, ny, res, height, water, trees: inputs.tree_density };
    let (segments, unrouted, portals) = build::route_all(&field, &nodes, params)?;
    let lines: Vec<&[[f64; 2]]> = segments.iter().map(|s| s.polyline.as_slice()).collect();
    let road_mask = network::rasterize_roads(&lines, nx, ny, res, params.width);
    let keep = |v: &[f64]| -> Vec<f64> {
        match compat {
            Compat::Pyworldgen => v.iter().map(|&x| x as f32 as f64).collect(),
            Compat::Canonical => v.to_vec(),
        }
    };
    let mut net = RoadNetwork {
        nodes,
        segments,
        unrouted,
        portals: Vec::new(),
        nx,
        ny,
        res,
        domain,
        height: keep(height),
        water: keep(water),
        road_mask,
        width: params.width,
    };
    net.portals =
        portals.into_iter().map(|(s, x, y)| Portal { segment: s, xyz: [x, y, net.deck_height(x, y, 0.3)] }).collect();
    Ok(net)
}

fn hubs_from_xy(xy: &[(f64, f64)], nx: usize, ny: usize, res: f64, domain: (f64, f64)) -> Result<Vec<RoadNode>> {
    xy.iter()
        .enumerate()
        .map(|(id, &(x, y))| {
            if !(x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 && x <= domain.0 && y <= domain.1) {
                return Err(WorldError::Param {
                    name: format!("hubs[{id}]"),
                    value: format!("({x}, {y})"),
                    allowed: format!("must lie in the domain [0, {}] × [0, {}]", domain.0, domain.1),
                });
            }
            let ix = (x / res).clamp(0.0, (nx - 1) as f64) as usize;
            let iy = (y / res).clamp(0.0, (ny - 1) as f64) as usize;
            Ok(RoadNode { id, xy: (x, y), grid: (ix, iy), kind: "hub" })
        })
        .collect()
}

fn check_terrain(t: &dyn Terrain, inputs: &RoadInputs<'_>) -> Result<(usize, usize, f64)> {
    let (nx, ny, dx, dy) = (t.nx(), t.ny(), t.dx(), t.dy());
    if nx < 2 || ny < 2 {
        return Err(WorldError::Invalid(format!("roads need a grid of at least 2×2 cells, got {nx}×{ny}")));
    }
    if !(dx.is_finite() && dx > 0.0) || dx != dy {
        return Err(WorldError::Invalid(format!("roads need square cells of positive size, got dx = {dx}, dy = {dy}")));
    }
    let n = nx * ny;
    if t.height().len() != n || t.water_depth().len() != n {
        return Err(WorldError::Invalid(format!(
            "terrain {nx}×{ny} with {} heights and {} water depths",
            t.height().len(),
            t.water_depth().len()
        )));
    }
    if let Some(c) = t.height().iter().position(|v| !v.is_finite()) {
        return Err(WorldError::Invalid(format!(
            "height at cell ({}, {}) is {}: heights must be finite",
            c % nx,
            c / nx,
            t.height()[c]
        )));
    }
    if let Some(c) = t.water_depth().iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        return Err(WorldError::Invalid(format!(
            "water depth at cell ({}, {}) is {}: depths must be finite and ≥ 0",
            c % nx,
            c / nx,
            t.water_depth()[c]
        )));
    }
    if let Some((w, h)) = inputs.domain {
        if !(w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0) {
            return Err(WorldError::Param {
                name: "domain".into(),
                value: format!("({w}, {h})"),
                allowed: "must be finite and > 0".into(),
            });
        }
    }
    if let Some(d) = inputs.tree_density {
        if d.len() != n {
            return Err(WorldError::Invalid(format!("tree density has {} values for a {nx}×{ny} terrain", d.len())));
        }
        if let Some(c) = d.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(WorldError::Invalid(format!(
                "tree density at cell ({}, {}) is {}: densities must be finite and ≥ 0",
                c % nx,
                c / nx,
                d[c]
            )));
        }
    }
    Ok((nx, ny, dx))
}

mod build;
