//! Roads and rivers on a composed world.
//!
//! pyworldgen routes its composite roads with `generate_roads(height, res, seed=seed + 77,
//! water=water_depth, params={num_hubs, mask_radius=road_mask_radius})` on the composed
//! (height, water depth) ([`ROAD_SEED_OFFSET`]; the product does it). Rivers are seed 002's
//! named extension: [`carve_composed_rivers`] lays them into the composed height after blending
//! with the D8 carve of [`crate::landscape::carve_rivers`], before the roads, so the roads
//! bridge them. Trees are then re-draped on the carved surface, and dropped where the carve
//! put water under them or a road runs over them ([`clear_trees`]).

use super::trees::{ground_at, water_under, TREE_WATER_CUTOFF};
use super::CompositeWorld;
use crate::error::Result;
use crate::landscape::{carve_rivers, CarveParams, River};
use crate::WorldGrid;

/// pyworldgen's seed offset of the composite's road network.
pub const ROAD_SEED_OFFSET: i64 = 77;

/// Carve rivers into the composed world `w` (its height and water depth replaced by the carved
/// ones) and re-drape its trees: each tree's base goes to the carved surface, and trees now
/// standing in water are dropped. Returns the rivers, beds non-increasing downstream.
pub fn carve_composed_rivers(w: &mut CompositeWorld, params: &CarveParams) -> Result<Vec<River>> {
    let carved = carve_rivers(&w.grid, params)?;
    w.grid = carved.grid;
    clear_trees(w, None);
    Ok(carved.rivers)
}

/// Re-drape `w`'s trees on its surface and drop those in water (as the scatter does) or over a
/// cell of `road_mask` (any of the four cells a bilinear sample at the tree reads).
pub fn clear_trees(w: &mut CompositeWorld, road_mask: Option<&[bool]>) {
    let g = &w.grid;
    w.trees.retain_mut(|t| {
        if water_under(g, t.x, t.y) > TREE_WATER_CUTOFF || road_mask.is_some_and(|m| on_mask(g, m, t.x, t.y)) {
            return false;
        }
        t.z = ground_at(g, t.x, t.y);
        true
    });
}

/// Whether any of the four cells a bilinear sample at (x, y) reads is set in `mask`.
fn on_mask(g: &WorldGrid, mask: &[bool], x: f64, y: f64) -> bool {
    let gx = (x / g.dx - 0.5).clamp(0.0, (g.nx - 1) as f64);
    let gy = (y / g.dy - 0.5).clamp(0.0, (g.ny - 1) as f64);
    let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
    let (i1, j1) = ((i0 + 1).min(g.nx - 1), (j0 + 1).min(g.ny - 1));
    [(i0, j0), (i1, j0), (i0, j1), (i1, j1)].iter().any(|&(i, j)| mask[j * g.nx + i])
}
