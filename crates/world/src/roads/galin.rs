//! Galin et al.'s extensions beyond pyworldgen (all opt-in through [`RoadParams`]).

use super::cost::CostField;
use super::solver::{Jump, Jumps, StepKind};
use super::RoadParams;
use crate::error::{Result, WorldError};

/// Tunnels and bridges as annulus moves (placeholder until written).
pub struct AnnulusJumps;

impl AnnulusJumps {
    /// The jump source for these parameters, if tunnels or annulus bridges are on.
    pub fn new(_field: &CostField<'_>, _p: &RoadParams) -> Option<Self> {
        None
    }
}

impl Jumps for AnnulusJumps {
    fn jumps(&self, _cx: usize, _cy: usize, _out: &mut Vec<Jump>) {}
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

/// Clothoid smoothing (placeholder until the clothoid module lands).
pub fn clothoid_smooth(
    _world: &[[f64; 2]],
    _kinds: &[StepKind],
    _p: &RoadParams,
) -> Result<(Vec<[f64; 2]>, Vec<StepKind>)> {
    Err(WorldError::Param {
        name: "smoothing".into(),
        value: "clothoid".into(),
        allowed: "not available yet; use chaikin".into(),
    })
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
