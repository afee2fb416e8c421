//! Rivers carved into any height field: the landscape's carve, driven by the surface's own D8
//! drainage instead of random draws.
//!
//! Pipeline (every hydrology step is bozkir-terrain's):
//! 1. ε Priority-Flood fill (`hydrology::priority_flood::fill_epsilon`), D8 receivers
//!    (`flow_graph::d8_receivers`), contributing areas (`accumulate_cells`), channel cells
//!    above `threshold_cells` with Strahler orders (`streams::stream_network`).
//! 2. Rivers: each outlet of the network starts a **main river**, traced upstream by always
//!    taking the channel donor with the largest contributing area (ties: the lowest cell
//!    index); every other channel donor along a river starts a **tributary** that ends on the
//!    river's cell (its `join_index`). Polylines run spring → mouth through cell centres.
//! 3. Beds: the filled surface along the path, made non-increasing by a running minimum
//!    (enforced), lowered by the river's valley depth and channel depth so the channel lies in
//!    its valley; a tributary's last bed value is its parent's bed at the join.
//! 4. Carve with the landscape's profile (valley, channel, water), the valley made compact:
//!    `(exp(−r²) − exp(−c²)) / (1 − exp(−c²))` for `r = d / w_v < c` and zero beyond, so cells
//!    farther than `max(c·w_v, 1.45·w)` from every river keep their height and water exactly.
//! 5. Moisture `clip(0.35·base_moisture + 0.65·influence, 0, 1)` and materials as the landscape.

use serde::{Deserialize, Serialize};

use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers, FlowGraph};
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use bozkir_terrain::hydrology::streams::{stream_network, StreamParams, Threshold};

use super::carve::{self, Cells, Fields, MaterialRule, Profile};
use super::params::bad;
use super::rivers::{River, RiverKind};
use crate::error::{Result, WorldError};
use crate::field::{Terrain, WorldGrid};

/// Parameters of [`carve_rivers`]. The profile parameters mean what they mean in
/// [`LandscapeParams`](super::LandscapeParams) and have its defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CarveParams {
    /// A cell is a channel when at least this many cells drain through it (itself included).
    /// Default 100.
    pub threshold_cells: u32,
    /// Rivers (main or tributary) with fewer cells than this are not carved. Default 3.
    pub min_river_cells: usize,
    /// Channel width in metres at the threshold area; grows as `(A / A_t)^0.5`. Default 2.2.
    pub river_width: f64,
    /// Channel depth in metres at the threshold area; grows as `(A / A_t)^0.4`. Default 1.3.
    pub river_depth: f64,
    /// Largest growth factor of width and depth. Default 4.
    pub max_scale: f64,
    /// Valley half-width as a multiple of the channel width (× (1 + 0.18·order)). Default 7.
    pub valley_width_factor: f64,
    /// Valley depth at the centre line (× (1 + 0.22·order)). Default 3.7.
    pub valley_depth: f64,
    /// Where the compact valley ends, in valley half-widths. Default 2.5.
    pub valley_extent: f64,
    /// Moisture away from rivers, in [0, 1]. Default 0.5.
    pub base_moisture: f64,
    /// Water deeper than this is material `water`. Default 0.08.
    pub water_margin: f64,
    /// Dry cells closer to a river than this are `sand_shore`. Default 2.5.
    pub shore_width: f64,
    /// Dry cells closer to a river than this are `wetland`. Default 5.
    pub wetland_width: f64,
}

impl Default for CarveParams {
    fn default() -> Self {
        Self {
            threshold_cells: 100,
            min_river_cells: 3,
            river_width: 2.2,
            river_depth: 1.3,
            max_scale: 4.0,
            valley_width_factor: 7.0,
            valley_depth: 3.7,
            valley_extent: 2.5,
            base_moisture: 0.5,
            water_margin: 0.08,
            shore_width: 2.5,
            wetland_width: 5.0,
        }
    }
}

impl CarveParams {
    /// Checks every field; the first one out of range is named in a [`WorldError::Param`].
    pub fn validate(&self) -> Result<()> {
        if self.threshold_cells < 2 {
            return Err(bad("threshold_cells", self.threshold_cells, "must be ≥ 2"));
        }
        if self.min_river_cells < 2 {
            return Err(bad("min_river_cells", self.min_river_cells, "must be ≥ 2"));
        }
        for (name, v, lo) in [
            ("river_width", self.river_width, 0.0),
            ("river_depth", self.river_depth, 0.0),
            ("max_scale", self.max_scale, 1.0),
            ("valley_width_factor", self.valley_width_factor, 0.0),
            ("valley_depth", self.valley_depth, 0.0),
            ("water_margin", self.water_margin, 0.0),
            ("shore_width", self.shore_width, 0.0),
            ("wetland_width", self.wetland_width, 0.0),
        ] {
            if !(v.is_finite() && v >= lo) {
                return Err(bad(name, v, &format!("must be finite and ≥ {lo}")));
            }
        }
        if !(self.valley_extent.is_finite() && self.valley_extent > 0.0 && self.valley_extent <= 6.0) {
            return Err(bad("valley_extent", self.valley_extent, "must be in (0, 6] valley half-widths"));
        }
        if !(0.0..=1.0).contains(&self.base_moisture) {
            return Err(bad("base_moisture", self.base_moisture, "must be in [0, 1]"));
        }
        Ok(())
    }
}

/// A height field with rivers carved in.
#[derive(Debug, Clone, PartialEq)]
pub struct CarvedWorld {
    /// Carved heights and water depths (the input's water depth kept where deeper).
    pub grid: WorldGrid,
    /// The rivers: main rivers (to an outlet of the drainage) and tributaries (`parent_id`,
    /// `join_index` name the river and point they flow into); `flow` is the contributing area in
    /// m² at the river's last point, `order` its Strahler order there.
    pub rivers: Vec<River>,
    /// Material code per cell ([`MATERIALS`](super::MATERIALS)).
    pub material: Vec<u8>,
    /// Moisture in [0, 1] per cell.
    pub moisture: Vec<f64>,
    /// Distance in metres to the nearest river centre line (∞ beyond every carved valley).
    pub river_distance: Vec<f64>,
    /// Channel cells of the drainage network (south-first layout), carved or not.
    pub channel: Vec<bool>,
}

crate::field::terrain_via_grid!(CarvedWorld);

/// A river traced on the north-up grid: its cells spring → mouth, its parent and join point.
struct Trace {
    cells: Vec<u32>,
    parent: Option<(usize, usize)>,
}

/// Channel donors of every channel cell in compressed rows (cells in increasing index order),
/// and each cell's main donor (largest area, lowest index on ties).
fn donors(g: &FlowGraph, mask: &[bool], acc: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = mask.len();
    let mut start = vec![0u32; n + 1];
    let mut main = vec![u32::MAX; n];
    for i in (0..n).filter(|&i| mask[i]) {
        let r = g.receivers[i] as usize;
        if r != i {
            start[r + 1] += 1;
            if main[r] == u32::MAX || acc[i] > acc[main[r] as usize] {
                main[r] = i as u32;
            }
        }
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut list = vec![0u32; start[n] as usize];
    for i in (0..n).filter(|&i| mask[i]) {
        let r = g.receivers[i] as usize;
        if r != i {
            list[fill[r] as usize] = i as u32;
            fill[r] += 1;
        }
    }
    (start, list, main)
}

/// Decomposes the channel network into rivers (see the module docs), main rivers by decreasing
/// outlet area, tributaries breadth-first in the order they are met walking each river from its
/// spring.
fn trace_rivers(g: &FlowGraph, mask: &[bool], acc: &[u32], min_cells: usize) -> Vec<Trace> {
    let (start, list, main) = donors(g, mask, acc);
    let up = |mouth: u32| {
        let mut path = vec![mouth];
        let mut c = mouth as usize;
        while main[c] != u32::MAX {
            c = main[c] as usize;
            path.push(c as u32);
        }
        path.reverse();
        path
    };
    let mut mouths: Vec<u32> =
        (0..mask.len()).filter(|&i| mask[i] && g.receivers[i] as usize == i).map(|i| i as u32).collect();
    mouths.sort_by_key(|&i| (std::cmp::Reverse(acc[i as usize]), i));
    let mut out: Vec<Trace> = Vec::new();
    let mut queue: std::collections::VecDeque<Trace> =
        mouths.iter().map(|&m| Trace { cells: up(m), parent: None }).collect();
    while let Some(t) = queue.pop_front() {
        if t.cells.len() < min_cells {
            continue;
        }
        let id = out.len();
        // A tributary's last cell is its parent's: its other donors belong to the parent.
        let own = t.cells.len() - usize::from(t.parent.is_some());
        for (k, &c) in t.cells[..own].iter().enumerate() {
            let c = c as usize;
            for &d in &list[start[c] as usize..start[c + 1] as usize] {
                if d != main[c] {
                    let mut cells = up(d);
                    cells.push(c as u32);
                    queue.push_back(Trace { cells, parent: Some((id, k)) });
                }
            }
        }
        out.push(t);
    }
    out
}

/// Builds [`River`]s from the traces: points at cell centres (south-first metres), beds from the
/// filled surface (running minimum, lowered by valley and channel depth, tributaries ending on
/// their parent's bed), widths and depths from the contributing area.
fn build_rivers(traces: &[Trace], c: Cells, filled: &[f64], acc: &[u32], order: &[u8], p: &CarveParams) -> Vec<River> {
    let mut rivers: Vec<River> = Vec::with_capacity(traces.len());
    for (id, t) in traces.iter().enumerate() {
        let mouth = *t.cells.last().unwrap_or(&0) as usize;
        let area = acc[mouth] as f64 * c.dx * c.dy;
        let scale = acc[mouth] as f64 / p.threshold_cells as f64;
        let ord = order[mouth].max(1) as u32;
        let width = p.river_width * scale.powf(0.5).min(p.max_scale);
        let depth = p.river_depth * scale.powf(0.4).min(p.max_scale);
        let drop = p.valley_depth * (1.0 + 0.22 * ord as f64) + depth.max(0.25);
        let mut run = f64::INFINITY;
        let mut bed: Vec<f64> = t
            .cells
            .iter()
            .map(|&k| {
                run = run.min(filled[k as usize]);
                run - drop
            })
            .collect();
        if let Some((pid, k)) = t.parent {
            let last = bed.len() - 1;
            bed[last] = bed[last].min(rivers[pid].bed[k]);
        }
        let points = t
            .cells
            .iter()
            .map(|&k| {
                let (col, row) = (k as usize % c.nx, k as usize / c.nx);
                [c.x(col), c.y(c.ny - 1 - row)]
            })
            .collect();
        rivers.push(River {
            id,
            parent_id: t.parent.map(|(pid, _)| pid),
            kind: if t.parent.is_some() { RiverKind::Tributary } else { RiverKind::Main },
            order: ord,
            flow: area,
            width,
            depth,
            points,
            bed,
            join_index: t.parent.map(|(_, k)| k),
        });
    }
    rivers
}

/// Carves rivers into any height field (see the module docs): the surface's D8 drainage gives
/// the rivers, whose beds are forced non-increasing downstream, and the landscape's profile
/// carves valleys and channels and fills them with water; materials run water → upland.
///
/// Errors: parameters out of range, a grid smaller than 3 × 3, a non-positive cell size, or a
/// non-finite height (named by its cell).
pub fn carve_rivers(terrain: &dyn Terrain, params: &CarveParams) -> Result<CarvedWorld> {
    params.validate()?;
    let (nx, ny, dx, dy) = (terrain.nx(), terrain.ny(), terrain.dx(), terrain.dy());
    if nx < 3 || ny < 3 {
        return Err(bad("terrain size", format!("{nx}×{ny}"), "carve_rivers needs at least 3×3 cells"));
    }
    if !(dx.is_finite() && dx > 0.0 && dy.is_finite() && dy > 0.0) {
        return Err(bad("terrain cell size", format!("{dx}×{dy}"), "must be finite and > 0"));
    }
    let world = WorldGrid::from_terrain(terrain);
    if world.height.len() != nx * ny || world.water_depth.len() != nx * ny {
        return Err(WorldError::Invalid(format!(
            "terrain {nx}×{ny} has {} heights and {} water depths",
            world.height.len(),
            world.water_depth.len()
        )));
    }
    if let Some(k) = world.height.iter().position(|h| !h.is_finite()) {
        return Err(WorldError::Invalid(format!(
            "height at column {}, row {} (from the south) is {}: carve_rivers needs finite heights",
            k % nx,
            k / nx,
            world.height[k]
        )));
    }
    // Hydrology on the north-up grid.
    let filled = fill_epsilon(&world.height_grid());
    let g = d8_receivers(&filled);
    let acc = accumulate_cells(&g);
    let sp = StreamParams { threshold: Threshold::Cells(params.threshold_cells), cell_area: dx * dy, strahler: true };
    let net = stream_network(&g, &acc, &sp);
    let c = Cells { nx, ny, dx, dy };
    let traces = trace_rivers(&g, &net.mask, &acc, params.min_river_cells);
    let rivers = build_rivers(&traces, c, filled.data(), &acc, &net.order, params);
    let carved = carve_all(c, world, &rivers, params);
    let channel = crate::field::north_up(nx, ny, dx, dy, &net.mask);
    // north_up flips rows either way: applying it to a north-up field gives the south-first one.
    Ok(CarvedWorld { channel: channel.data().to_vec(), rivers, ..carved })
}

/// The carve pass over every river, then moisture and materials.
fn carve_all(c: Cells, mut world: WorldGrid, rivers: &[River], p: &CarveParams) -> CarvedWorld {
    let n = c.len();
    let (mut distance, mut influence) = (vec![f64::INFINITY; n], vec![0.0; n]);
    let (mut d2, mut sv, mut lowered) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let cell = c.dx.min(c.dy);
    for r in rivers {
        let prof = Profile::of(r, cell, p.valley_width_factor, p.valley_depth, Some(p.valley_extent));
        let radius = f64::max(p.valley_extent * prof.valley_width, prof.width * 1.45);
        carve::polyline_field(c, &r.points, radius, &mut d2, &mut sv);
        let mut f = Fields {
            height: &mut world.height,
            water: &mut world.water_depth,
            distance: &mut distance,
            influence: &mut influence,
            lowered: &mut lowered,
            cumulative: false,
        };
        carve::carve_river(&mut f, &r.bed, &prof, &d2, &sv, c.rows_near(&r.points, radius), c.nx);
    }
    let moisture: Vec<f64> = influence.iter().map(|&i| (0.35 * p.base_moisture + 0.65 * i).clamp(0.0, 1.0)).collect();
    let rule =
        MaterialRule { water_margin: p.water_margin, shore_width: p.shore_width, wetland_width: p.wetland_width };
    let material = carve::materials(c, &world.height, &world.water_depth, &distance, &moisture, rule);
    CarvedWorld { grid: world, rivers: Vec::new(), material, moisture, river_distance: distance, channel: Vec::new() }
}
