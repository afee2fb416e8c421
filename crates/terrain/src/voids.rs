//! Filling voids (no-data cells, `NaN`) of a DEM with a smooth surface that meets the valid
//! cells around them: `bozkir analyze --fill-voids`.
//!
//! **Method.** The filled heights solve Laplace's equation `∇²z = 0` inside the voids with the
//! valid cells as fixed boundary values (a membrane stretched over the hole; the grid edge is a
//! free boundary, so a void touching the edge levels out towards it). The solution is found
//! coarse to fine:
//!
//! 1. **Pull.** A pyramid halves the grid (rounding up) until a level has no void; a coarse cell
//!    is the mean of its valid children and is void only when all of them are.
//! 2. **Push.** From the coarsest level with voids down to the full grid, each void cell starts
//!    from the bilinear interpolation of the level above, then red–black successive
//!    over-relaxation (`ω = 1.7`, the 4-neighbour average of the in-grid neighbours) runs on the
//!    void cells until no cell moves by more than `1e-7 × max(1 m, relief)` or 500 sweeps have
//!    run.
//!
//! A plane with a hole is filled with the same plane (a plane is harmonic); a constant field
//! stays constant; valid cells are never changed. The coarse start makes large voids converge
//! in tens of sweeps instead of thousands. Every sweep computes one colour from the other
//! colour's values only, so the result does not depend on the thread count.
//!
//! This is the standard harmonic ("Laplacian") void fill of DEM tools (e.g. the membrane
//! interpolation of void-filled SRTM products); GDAL's `gdal_fillnodata` uses inverse-distance
//! weighting along rays instead, which is less smooth across the void.

use bozkir_core::Grid;
use rayon::prelude::*;

/// Over-relaxation factor of the sweeps.
const OMEGA: f64 = 1.7;
/// Most sweeps per pyramid level.
const MAX_SWEEPS: usize = 500;
/// Convergence: the largest move of a sweep, as a share of `max(1 m, relief)`.
const TOLERANCE: f64 = 1e-7;

/// Number of void (`NaN`) cells of `z`.
pub fn count_voids(z: &Grid<f64>) -> usize {
    z.data().par_iter().filter(|v| v.is_nan()).count()
}

/// `z` with every void (`NaN`) cell filled by the harmonic interpolation of the module docs;
/// `None` when `z` has no valid cell. Valid cells are copied unchanged, with the cell size.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::voids::fill_voids;
///
/// // A tilted plane with a 3 × 3 hole comes back as the plane.
/// let plane = Grid::from_fn(12, 10, |x, y| 2.0 * x as f64 - 0.5 * y as f64 + 100.0);
/// let mut holed = plane.clone();
/// for y in 4..7 {
///     for x in 5..8 {
///         *holed.get_mut(x, y) = f64::NAN;
///     }
/// }
/// let filled = fill_voids(&holed).unwrap();
/// assert!(filled.data().iter().zip(plane.data()).all(|(a, b)| (a - b).abs() < 1e-4));
/// ```
pub fn fill_voids(z: &Grid<f64>) -> Option<Grid<f64>> {
    let (lo, hi) = z.min_max()?;
    if count_voids(z) == 0 {
        return Some(z.clone());
    }
    let tol = TOLERANCE * (hi - lo).max(1.0);
    // Pull: the pyramid, finest first, until a level has no void.
    let mut levels = vec![Level { w: z.width(), h: z.height(), v: z.data().to_vec() }];
    while levels.last().expect("one level").v.iter().any(|v| v.is_nan()) {
        let next = levels.last().expect("one level").halve();
        levels.push(next);
    }
    // Push: from the coarsest level with voids down to the full grid.
    for k in (0..levels.len() - 1).rev() {
        let (fine, coarse) = levels.split_at_mut(k + 1);
        let fine = &mut fine[k];
        let voids: Vec<usize> = (0..fine.v.len()).filter(|&i| fine.v[i].is_nan()).collect();
        let start: Vec<f64> = voids.par_iter().map(|&i| coarse[0].sample_for(fine, i)).collect();
        for (&i, s) in voids.iter().zip(start) {
            fine.v[i] = s;
        }
        fine.relax(&voids, tol);
    }
    let top = levels.swap_remove(0);
    Some(Grid::from_vec(top.w, top.h, top.v).with_cell_size(z.dx, z.dy))
}

/// One level of the pyramid: `w × h` values, `NaN` for a void.
struct Level {
    w: usize,
    h: usize,
    v: Vec<f64>,
}

impl Level {
    /// The next coarser level: each cell the mean of its (up to 4) valid children.
    fn halve(&self) -> Level {
        let (w, h) = (self.w.div_ceil(2), self.h.div_ceil(2));
        let v = (0..w * h)
            .into_par_iter()
            .map(|i| {
                let (cx, cy) = (i % w, i / w);
                let (mut s, mut n) = (0.0, 0u32);
                for y in 2 * cy..(2 * cy + 2).min(self.h) {
                    for x in 2 * cx..(2 * cx + 2).min(self.w) {
                        let c = self.v[y * self.w + x];
                        if !c.is_nan() {
                            s += c;
                            n += 1;
                        }
                    }
                }
                if n == 0 {
                    f64::NAN
                } else {
                    s / f64::from(n)
                }
            })
            .collect();
        Level { w, h, v }
    }

    /// This (coarser, void-free) level bilinearly at the centre of cell `i` of `fine`.
    fn sample_for(&self, fine: &Level, i: usize) -> f64 {
        let (x, y) = (i % fine.w, i / fine.w);
        // Fine cell centre x + 0.5 is coarse coordinate (x + 0.5) / 2, whose cell centres sit at
        // integer + 0.5.
        let fx = ((x as f64 + 0.5) / 2.0 - 0.5).clamp(0.0, (self.w - 1) as f64);
        let fy = ((y as f64 + 0.5) / 2.0 - 0.5).clamp(0.0, (self.h - 1) as f64);
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (tx, ty) = (fx - x0 as f64, fy - y0 as f64);
        let at = |x: usize, y: usize| self.v[y * self.w + x];
        let top = at(x0, y0) * (1.0 - tx) + at(x1, y0) * tx;
        let bottom = at(x0, y1) * (1.0 - tx) + at(x1, y1) * tx;
        top * (1.0 - ty) + bottom * ty
    }

    /// Red–black over-relaxation of the cells `voids` (all others fixed) until converged.
    fn relax(&mut self, voids: &[usize], tol: f64) {
        let w = self.w;
        let colours: [Vec<usize>; 2] = [
            voids.iter().copied().filter(|&i| (i % w + i / w).is_multiple_of(2)).collect(),
            voids.iter().copied().filter(|&i| !(i % w + i / w).is_multiple_of(2)).collect(),
        ];
        for _ in 0..MAX_SWEEPS {
            let mut moved = 0.0f64;
            for cells in &colours {
                // A colour's cells read only the other colour: computed together, then stored.
                let new: Vec<f64> = cells.par_iter().map(|&i| self.relaxed(i)).collect();
                for (&i, n) in cells.iter().zip(new) {
                    moved = moved.max((n - self.v[i]).abs());
                    self.v[i] = n;
                }
            }
            if moved <= tol {
                break;
            }
        }
    }

    /// Cell `i` moved towards the mean of its in-grid 4-neighbours by the over-relaxation factor.
    fn relaxed(&self, i: usize) -> f64 {
        let (x, y, w) = (i % self.w, i / self.w, self.w);
        let (mut s, mut n) = (0.0, 0.0);
        if x > 0 {
            s += self.v[i - 1];
            n += 1.0;
        }
        if x + 1 < w {
            s += self.v[i + 1];
            n += 1.0;
        }
        if y > 0 {
            s += self.v[i - w];
            n += 1.0;
        }
        if y + 1 < self.h {
            s += self.v[i + w];
            n += 1.0;
        }
        if n == 0.0 {
            return self.v[i];
        }
        let c = self.v[i];
        c + OMEGA * (s / n - c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holed(z: &Grid<f64>, hole: impl Fn(usize, usize) -> bool) -> Grid<f64> {
        Grid::from_fn(z.width(), z.height(), |x, y| if hole(x, y) { f64::NAN } else { *z.get(x, y) })
            .with_cell_size(z.dx, z.dy)
    }

    #[test]
    fn a_plane_is_filled_with_the_plane_and_valid_cells_are_kept() {
        let plane = Grid::from_fn(60, 45, |x, y| 0.7 * x as f64 - 1.3 * y as f64 + 500.0).with_cell_size(30.0, 20.0);
        // A 20 × 12 hole and a ring-shaped void.
        let z = holed(&plane, |x, y| {
            (10..30).contains(&x) && (5..17).contains(&y) || {
                let r = ((x as f64 - 45.0).powi(2) + (y as f64 - 30.0).powi(2)).sqrt();
                (4.0..7.0).contains(&r)
            }
        });
        assert!(count_voids(&z) > 240);
        let f = fill_voids(&z).unwrap();
        assert_eq!((f.dx, f.dy), (30.0, 20.0));
        for (i, ((a, b), o)) in f.data().iter().zip(plane.data()).zip(z.data()).enumerate() {
            if o.is_nan() {
                assert!((a - b).abs() < 1e-3, "cell {i}: {a} vs {b}");
            } else {
                assert_eq!(a.to_bits(), o.to_bits(), "valid cell {i} changed");
            }
        }
    }

    #[test]
    fn constant_stays_constant_and_edges_and_stripes_fill() {
        let flat = Grid::new(33, 17, 7.25);
        // The lowest rows void across the whole width (touching three edges).
        let z = holed(&flat, |_, y| y >= 12);
        let f = fill_voids(&z).unwrap();
        assert!(f.data().iter().all(|&v| (v - 7.25).abs() < 1e-9));
        // No valid cell: None; no void: the grid itself.
        assert!(fill_voids(&Grid::new(4, 4, f64::NAN)).is_none());
        let g = Grid::from_fn(5, 4, |x, y| (x * y) as f64);
        assert_eq!(fill_voids(&g).unwrap(), g);
    }

    #[test]
    fn fills_stay_within_the_boundary_range_and_do_not_depend_on_threads() {
        // A rough field with a big void: the harmonic fill obeys the maximum principle.
        let rough = Grid::from_fn(80, 70, |x, y| {
            let (x, y) = (x as f64, y as f64);
            (x * 0.37).sin() * 20.0 + (y * 0.21).cos() * 15.0 + 0.1 * x * y
        });
        let z = holed(&rough, |x, y| (x as f64 - 40.0).hypot(y as f64 - 30.0) < 18.0 || x * 7 % 13 == 0 && y > 60);
        let f = fill_voids(&z).unwrap();
        let (lo, hi) = z.min_max().unwrap();
        assert!(f.data().iter().all(|&v| v.is_finite() && v >= lo - 1e-6 && v <= hi + 1e-6));
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| fill_voids(&z).unwrap());
        assert!(one.data().iter().zip(f.data()).all(|(a, b)| a.to_bits() == b.to_bits()));
        // The filled cells are harmonic: each equals the mean of its neighbours (to the tolerance).
        let w = f.width();
        for (i, o) in z.data().iter().enumerate() {
            let (x, y) = (i % w, i / w);
            if o.is_nan() && x > 0 && y > 0 && x + 1 < w && y + 1 < f.height() {
                let m = (f.data()[i - 1] + f.data()[i + 1] + f.data()[i - w] + f.data()[i + w]) / 4.0;
                assert!((f.data()[i] - m).abs() < 1e-3, "cell {i}");
            }
        }
    }
}
