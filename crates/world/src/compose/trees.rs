//! Trees as instances on the composed world: our own jittered-grid scatter gated by the blended
//! tree density, draped exactly on the composed surface.
//!
//! pyworldgen places its composite trees with its full forest generator (power-diagram crowns,
//! recursive branch graphs) and then thins them; those positions are not reproduced here (the
//! 3-D forest is issue 22). Ours: the world is cut into square sites of side
//! `s = √(W·H / forest_target)`; each site draws, in this order, a jitter `u_x, u_y` in [0, 1),
//! an acceptance `a` in [0, 1), a crown radius and a tree height, all from one `Draws` stream
//! seeded `seed + 4242` (pyworldgen's forest seed offset), so the stream never depends on which
//! sites are kept. The tree stands at `site + (0.15 + 0.7·u)·s` (at least 0.3·s from any
//! neighbour); it is kept when no cell its bilinear sample reads holds more than
//! [`TREE_WATER_CUTOFF`] of water and `a < density·forest_max_accept`.

use super::palette::bilinear;
use crate::field::{Terrain, WorldGrid};
use crate::random::Draws;

/// Largest water depth (metres) under a tree (pyworldgen's `water_cutoff`).
pub const TREE_WATER_CUTOFF: f64 = 0.3;
/// Crown radius range in metres (pyworldgen's forest: 3 to 8.5), capped at half the site side.
pub const CROWN_RADIUS: (f64, f64) = (3.0, 8.5);
/// Tree height range in metres (pyworldgen's canopy: 24 ± 7).
pub const TREE_HEIGHT: (f64, f64) = (17.0, 31.0);

/// One tree: its base on the ground, crown and height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeInstance {
    /// Base x in metres.
    pub x: f64,
    /// Base y in metres.
    pub y: f64,
    /// Base height: the composed height sampled bilinearly at (x, y) ([`ground_at`]).
    pub z: f64,
    /// Crown radius in metres.
    pub crown_radius: f64,
    /// Tree height (base to top) in metres.
    pub height: f64,
}

/// Fractional cell coordinates of a world position (cell centres are integers).
#[inline]
fn cell_coords(grid: &WorldGrid, x: f64, y: f64) -> (f64, f64) {
    (x / grid.dx - 0.5, y / grid.dy - 0.5)
}

/// The composed surface at (x, y): bilinear between the four surrounding cell centres
/// (clamped at the border).
pub fn ground_at(grid: &WorldGrid, x: f64, y: f64) -> f64 {
    let (gx, gy) = cell_coords(grid, x, y);
    bilinear(&grid.height, grid.nx, grid.ny, gx, gy)
}

/// The largest water depth among the cells a bilinear sample at (x, y) reads.
pub fn water_under(grid: &WorldGrid, x: f64, y: f64) -> f64 {
    let (gx, gy) = cell_coords(grid, x, y);
    let gx = gx.clamp(0.0, (grid.nx - 1) as f64);
    let gy = gy.clamp(0.0, (grid.ny - 1) as f64);
    let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
    let (i1, j1) = ((i0 + 1).min(grid.nx - 1), (j0 + 1).min(grid.ny - 1));
    let w = &grid.water_depth;
    [w[j0 * grid.nx + i0], w[j0 * grid.nx + i1], w[j1 * grid.nx + i0], w[j1 * grid.nx + i1]]
        .into_iter()
        .fold(0.0, f64::max)
}

/// Scatter tree instances (see the module docs). `density` is the blended tree density per
/// cell; `target` the number of sites; `max_accept` pyworldgen's `forest_max_accept`.
pub fn scatter_trees(
    grid: &WorldGrid,
    density: &[f32],
    target: u32,
    max_accept: f64,
    draws: &mut dyn Draws,
) -> Vec<TreeInstance> {
    let (w, h) = grid.extent();
    if target == 0 {
        return Vec::new();
    }
    let side = (w * h / f64::from(target)).sqrt();
    let (sx, sy) = (((w / side).ceil() as usize).max(1), ((h / side).ceil() as usize).max(1));
    let mut trees = Vec::new();
    for j in 0..sy {
        for i in 0..sx {
            let (ux, uy, a) = (draws.random(), draws.random(), draws.random());
            let crown = draws.uniform(CROWN_RADIUS.0, CROWN_RADIUS.1).min(0.5 * side);
            let height = draws.uniform(TREE_HEIGHT.0, TREE_HEIGHT.1);
            let x = (i as f64 + 0.15 + 0.7 * ux) * side;
            let y = (j as f64 + 0.15 + 0.7 * uy) * side;
            if x >= w || y >= h || water_under(grid, x, y) > TREE_WATER_CUTOFF {
                continue;
            }
            let (gx, gy) = cell_coords(grid, x, y);
            let d = bilinear_f32(density, grid.nx, grid.ny, gx, gy);
            if a < d * max_accept {
                trees.push(TreeInstance { x, y, z: ground_at(grid, x, y), crown_radius: crown, height });
            }
        }
    }
    trees
}

fn bilinear_f32(values: &[f32], nx: usize, ny: usize, gx: f64, gy: f64) -> f64 {
    let gx = gx.clamp(0.0, (nx - 1) as f64);
    let gy = gy.clamp(0.0, (ny - 1) as f64);
    let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
    let (i1, j1) = ((i0 + 1).min(nx - 1), (j0 + 1).min(ny - 1));
    let (fx, fy) = (gx - i0 as f64, gy - j0 as f64);
    let v = |i: usize, j: usize| f64::from(values[j * nx + i]);
    let a = v(i0, j0) + (v(i1, j0) - v(i0, j0)) * fx;
    let b = v(i0, j1) + (v(i1, j1) - v(i0, j1)) * fx;
    a + (b - a) * fy
}
