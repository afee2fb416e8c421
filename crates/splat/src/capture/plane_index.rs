//! Patch extraction primitives (inventory §1.5): a ground-plane bucket index, square cuts and
//! quarter turns.
//!
//! All of them assume a z-up capture (run the preparation first): the ground plane is x–y and
//! heights are z.
//!
//! * [`PlaneIndex`]: splats bucketed by ground-plane cell `⌊(xy − lo) / cell⌋`, stable by
//!   splat index inside a cell, CSR offsets. [`PlaneIndex::candidates`] gives the ascending
//!   indices of every splat in the cells a square touches — a superset of the square's splats,
//!   so a cut through the index equals a brute-force cut exactly.
//! * [`patch_indices`] / [`extract_patch`]: the splats with `|x − cx| ≤ size/2` and
//!   `|y − cy| ≤ size/2` (height unbounded), optionally moved so the centre is the origin.
//! * [`rotate_patch`]: `k` quarter turns about +z, orientations and SH included.

use crate::model::{Rigid, Splats};
use crate::quat;

/// Splats bucketed by ground-plane cell. See the module documentation.
#[derive(Clone, Debug)]
pub struct PlaneIndex {
    lo: [f64; 2],
    cell: f64,
    dims: [usize; 2],
    /// `start[c] .. start[c + 1]` are the entries of cell `c` in `order`.
    start: Vec<u32>,
    order: Vec<u32>,
}

/// Most cells an index holds (64 M); a finer `cell` is coarsened to fit.
const MAX_CELLS: f64 = 64.0 * 1024.0 * 1024.0;

impl PlaneIndex {
    /// Bucket the finite centres of `s` in cells of side `cell` (the original uses `size / 2`).
    /// Splats with a non-finite x or y are left out (no square contains them).
    ///
    /// # Panics
    /// If `cell` is not finite and positive, or `s` holds 2³² splats or more.
    pub fn new(s: &Splats, cell: f64) -> PlaneIndex {
        assert!(cell > 0.0 && cell.is_finite(), "PlaneIndex: cell {cell} must be positive");
        assert!(s.len() < u32::MAX as usize, "PlaneIndex: too many splats");
        let finite = |p: &[f32; 3]| p[0].is_finite() && p[1].is_finite();
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in s.positions().iter().filter(|p| finite(p)) {
            for a in 0..2 {
                lo[a] = lo[a].min(f64::from(p[a]));
                hi[a] = hi[a].max(f64::from(p[a]));
            }
        }
        if lo[0] > hi[0] {
            return PlaneIndex { lo: [0.0; 2], cell, dims: [1, 1], start: vec![0, 0], order: Vec::new() };
        }
        let mut cell = cell;
        let span = [hi[0] - lo[0], hi[1] - lo[1]];
        while (span[0] / cell + 1.0) * (span[1] / cell + 1.0) > MAX_CELLS {
            cell *= 2.0;
        }
        let dims = [(span[0] / cell) as usize + 1, (span[1] / cell) as usize + 1];
        let mut ix = PlaneIndex { lo, cell, dims, start: vec![0; dims[0] * dims[1] + 1], order: Vec::new() };
        let keys: Vec<Option<usize>> =
            s.positions().iter().map(|p| finite(p).then(|| ix.cell_of(f64::from(p[0]), f64::from(p[1])))).collect();
        for k in keys.iter().flatten() {
            ix.start[k + 1] += 1;
        }
        for c in 0..dims[0] * dims[1] {
            ix.start[c + 1] += ix.start[c];
        }
        let mut next: Vec<u32> = ix.start[..dims[0] * dims[1]].to_vec();
        ix.order = vec![0; ix.start[dims[0] * dims[1]] as usize];
        for (i, k) in keys.iter().enumerate() {
            if let Some(k) = *k {
                ix.order[next[k] as usize] = i as u32;
                next[k] += 1;
            }
        }
        ix
    }

    fn coord(&self, v: f64, a: usize) -> usize {
        (((v - self.lo[a]) / self.cell).floor().max(0.0) as usize).min(self.dims[a] - 1)
    }

    fn cell_of(&self, x: f64, y: f64) -> usize {
        self.coord(y, 1) * self.dims[0] + self.coord(x, 0)
    }

    /// Cell side actually used (coarsened only for enormous extents).
    pub fn cell(&self) -> f64 {
        self.cell
    }

    /// Ascending indices of every splat in the cells touched by the square of side `size`
    /// around `centre` (a superset of the square's splats).
    pub fn candidates(&self, centre: [f64; 2], size: f64) -> Vec<usize> {
        let h = size / 2.0;
        let (x0, x1) = (self.coord(centre[0] - h, 0), self.coord(centre[0] + h, 0));
        let (y0, y1) = (self.coord(centre[1] - h, 1), self.coord(centre[1] + h, 1));
        let mut out = Vec::new();
        for gy in y0..=y1 {
            let row = gy * self.dims[0];
            let (a, b) = (self.start[row + x0] as usize, self.start[row + x1 + 1] as usize);
            out.extend(self.order[a..b].iter().map(|&i| i as usize));
        }
        out.sort_unstable();
        out
    }
}

fn inside(p: &[f32; 3], centre: [f64; 2], h: f64) -> bool {
    (f64::from(p[0]) - centre[0]).abs() <= h && (f64::from(p[1]) - centre[1]).abs() <= h
}

/// Ascending indices of the splats with `|x − cx| ≤ size/2` and `|y − cy| ≤ size/2` (height
/// unbounded), through `index` when given (same result, faster), else by a full scan.
pub fn patch_indices(s: &Splats, centre: [f64; 2], size: f64, index: Option<&PlaneIndex>) -> Vec<usize> {
    let h = size / 2.0;
    let pos = s.positions();
    match index {
        Some(ix) => ix.candidates(centre, size).into_iter().filter(|&i| inside(&pos[i], centre, h)).collect(),
        None => (0..s.len()).filter(|&i| inside(&pos[i], centre, h)).collect(),
    }
}

/// The square patch of side `size` around `centre` (see [`patch_indices`]); with `recentre`
/// it is translated by `(−cx, −cy, 0)` so its centre is the origin.
pub fn extract_patch(s: &Splats, centre: [f64; 2], size: f64, recentre: bool, index: Option<&PlaneIndex>) -> Splats {
    let mut p = s.subset(&patch_indices(s, centre, size, index));
    if recentre {
        p.transform(&Rigid::translation([-centre[0], -centre[1], 0.0]));
    }
    p
}

/// `k` quarter turns (counter-clockwise seen from above) about +z through the origin:
/// `(x, y) → (−y, x)` per turn; every orientation is pre-multiplied by the turn's quaternion and
/// higher SH bands are rotated with it ([`Splats::transform`]). Colour at degree 0, scales and
/// opacity are untouched. `k` is taken modulo 4 (negative turns clockwise).
pub fn rotate_patch(p: &Splats, quarter_turns: i32) -> Splats {
    let k = quarter_turns.rem_euclid(4);
    let mut out = p.clone();
    if k != 0 {
        let q = quat::from_axis_angle([0.0, 0.0, 1.0], f64::from(k) * std::f64::consts::FRAC_PI_2);
        out.transform(&Rigid::rotation(q));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{synth, SynthParams};

    #[test]
    fn patches_plane_index_equals_brute_force() {
        let c = synth(&SynthParams { side_m: 3.0, density: 3000.0, floaters: 20, ..SynthParams::default() }).unwrap();
        let s = &c.splats;
        for size in [0.3, 0.5, 1.1] {
            let ix = PlaneIndex::new(s, size / 2.0);
            let mut rng = bozkir_core::rng::Rng::new(7);
            for _ in 0..60 {
                let centre = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)];
                let a = patch_indices(s, centre, size, Some(&ix));
                let b = patch_indices(s, centre, size, None);
                assert_eq!(a, b, "size {size} centre {centre:?}");
                let all = ix.candidates(centre, size);
                assert!(all.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }

    #[test]
    fn patches_extract_recentres_and_keeps_heights() {
        let c = synth(&SynthParams { side_m: 2.0, density: 2000.0, ..SynthParams::default() }).unwrap();
        let p = extract_patch(&c.splats, [0.3, -0.2], 0.5, true, None);
        assert!(p.len() > 300);
        let b = p.bounds().unwrap();
        assert!(b.min[0] >= -0.2501 && b.max[0] <= 0.2501 && b.min[1] >= -0.2501 && b.max[1] <= 0.2501);
        let q = extract_patch(&c.splats, [0.3, -0.2], 0.5, false, None);
        assert_eq!(p.positions()[0][2], q.positions()[0][2]);
    }

    #[test]
    fn patches_rotate_turns_positions_and_orientations() {
        let c = synth(&SynthParams { side_m: 1.0, density: 400.0, ..SynthParams::default() }).unwrap();
        let p = &c.splats;
        let r = rotate_patch(p, 1);
        for i in 0..p.len() {
            let (a, b) = (p.positions()[i], r.positions()[i]);
            assert!((b[0] + a[1]).abs() < 1e-5 && (b[1] - a[0]).abs() < 1e-5 && (b[2] - a[2]).abs() < 1e-6);
            // The splat's local x axis turns with it.
            let ma = quat::to_matrix(p.rotations()[i].map(f64::from));
            let mb = quat::to_matrix(r.rotations()[i].map(f64::from));
            assert!((mb[0][0] + ma[1][0]).abs() < 1e-5 && (mb[1][0] - ma[0][0]).abs() < 1e-5);
        }
        let four = rotate_patch(&rotate_patch(&rotate_patch(&r, 1), 1), 1);
        for i in 0..p.len() {
            for a in 0..3 {
                assert!((four.positions()[i][a] - p.positions()[i][a]).abs() < 1e-5);
            }
            let (qa, qb) = (p.rotations()[i], four.rotations()[i]);
            let dot: f32 = (0..4).map(|k| qa[k] * qb[k]).sum();
            assert!((dot.abs() - 1.0).abs() < 1e-5, "four turns = identity (up to sign)");
        }
        assert_eq!(rotate_patch(p, 4), *p);
        assert_eq!(rotate_patch(p, -1).positions()[3][0], rotate_patch(p, 3).positions()[3][0]);
    }
}
