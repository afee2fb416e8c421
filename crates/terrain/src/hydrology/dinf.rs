//! D-infinity (D∞) flow directions and accumulation.
//!
//! Source: D. G. Tarboton (1997), "A new method for the determination of flow directions and
//! upslope areas in grid digital elevation models", *Water Resources Research* 33(2), 309–319.
//!
//! # Directions
//!
//! Around each interior cell the eight neighbours span eight triangular facets, each made of the
//! cell `e0`, one cardinal neighbour `e1` and the diagonal neighbour `e2` next to it. On a facet
//! the slopes along its two legs are `s1 = (e0 − e1) / d1` and `s2 = (e1 − e2) / d2` (`d1` the
//! distance to the cardinal neighbour, `d2` the leg from it to the diagonal one; `dx` and `dy`
//! as the grid gives them, so non-square cells are honoured). The facet's steepest direction is
//! `r = atan2(s2, s1)` with slope `hypot(s1, s2)`; when `r < 0` it is clamped to the cardinal
//! edge (`r = 0`, slope `s1`), when `r > atan2(d2, d1)` to the diagonal edge (slope
//! `(e0 − e2) / hypot(d1, d2)`). The facet of largest slope wins (the first one in Tarboton's
//! order E–NE, N–NE, N–NW, W–NW, W–SW, S–SW, S–SE, E–SE on a tie), and its local angle becomes
//! the global angle `af·r + ac·π/2` (Tarboton's table), reduced to `[0, 2π)`.
//!
//! Angles are radians **counter-clockwise from east**, as in Tarboton's paper, TauDEM and
//! pysheds (north = π/2; row 0 is north). A cell has no direction — value [`NO_DIRECTION`]
//! (`-1`) — when it is on the border (border cells are outlets, as in
//! [`super::flow_graph`]), when its height is NaN, or when no facet falls from it (a pit or a
//! flat; fill the DEM first, e.g. with [`super::priority_flood::fill_epsilon`], to have a
//! direction on every interior cell).
//!
//! # Accumulation
//!
//! A cell passes its total to the two neighbours whose bearings bracket its angle, in
//! proportion to how close the angle is to each bearing (Tarboton 1997): with bearings `θa < θ
//! ≤ θb` the share of `a` is `(θb − θ) / (θb − θa)`. The bearings are those of the neighbours'
//! centres, so with `dx ≠ dy` the diagonal bearing is `atan2(dy, dx)`, not π/4 (pysheds and
//! TauDEM split by π/4 sectors whatever the cell shape; for square cells the two agree).
//! Shares within `1e-12` of 0 or 1 are snapped, so that a direction rounded off a bearing never
//! sends a sliver of water to a third, higher cell.
//!
//! Cells are processed in a topological order (Kahn 1962: cells with no donors first, in
//! increasing index, then each cell once all its donors are done), sequentially: the result is
//! the same bytes for any thread count.

use super::{check_cell_size, check_len, HydroError};
use bozkir_core::Grid;
use rayon::prelude::*;
use std::collections::VecDeque;
use std::f64::consts::PI;

/// Value of a cell without a D∞ direction (border outlets, pits, flats, NaN heights). Any
/// negative or NaN value is read as "no direction" by [`dinf_accumulation`].
pub const NO_DIRECTION: f64 = -1.0;

/// Neighbour offsets `(column, row)` by bearing: E, NE, N, NW, W, SW, S, SE (row 0 is north).
const NEIGHBOURS: [(isize, isize); 8] = [(1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1)];

/// Tarboton's facets: (cardinal neighbour, diagonal neighbour) as indices into [`NEIGHBOURS`],
/// whether the cardinal leg runs east–west, and the `ac`, `af` factors of his table.
const FACETS: [(usize, usize, bool, f64, f64); 8] = [
    (0, 1, true, 0.0, 1.0),
    (2, 1, false, 1.0, -1.0),
    (2, 3, false, 1.0, 1.0),
    (4, 3, true, 2.0, -1.0),
    (4, 5, true, 2.0, 1.0),
    (6, 5, false, 3.0, -1.0),
    (6, 7, false, 3.0, 1.0),
    (0, 7, true, 4.0, -1.0),
];

/// Steepest direction `(r, slope)` on one facet (Tarboton 1997, eqs. 1–3 with the edge clamps);
/// `edge = atan2(d2, d1)` and `diag = hypot(d1, d2)` are passed in, computed once per grid.
#[inline]
fn facet(e0: f64, e1: f64, e2: f64, d1: f64, d2: f64, edge: f64, diag: f64) -> (f64, f64) {
    let s1 = (e0 - e1) / d1;
    let s2 = (e1 - e2) / d2;
    let mut r = libm::atan2(s2, s1);
    let mut s = libm::hypot(s1, s2);
    if r < 0.0 {
        r = 0.0;
        s = s1;
    }
    if r > edge {
        r = edge;
        s = (e0 - e2) / diag;
    }
    (r, s)
}

/// D∞ flow direction of every cell: radians counter-clockwise from east in `[0, 2π)`, or
/// [`NO_DIRECTION`] on border cells, pits, flats and NaN cells (see the [module docs](self)).
///
/// The result has the shape and cell size of `h`. Cells are independent and computed in
/// parallel; the result does not depend on the thread count.
///
/// # Errors
///
/// [`HydroError::CellSize`] when `h.dx` or `h.dy` is not finite and positive.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::dinf::{dinf_directions, NO_DIRECTION};
///
/// // A plane falling 1 m per metre east and 1 m per metre north, on 10 m × 20 m cells:
/// // its steepest descent points north-east, at 45° whatever the cell shape.
/// let (dx, dy) = (10.0, 20.0);
/// let h = Grid::from_fn(6, 5, |x, y| -(x as f64 * dx) + y as f64 * dy).with_cell_size(dx, dy);
/// let dirs = dinf_directions(&h).unwrap();
/// assert!((dirs.get(2, 2) - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
/// assert_eq!(*dirs.get(0, 2), NO_DIRECTION); // border cells are outlets
/// ```
pub fn dinf_directions(h: &Grid<f64>) -> Result<Grid<f64>, HydroError> {
    check_cell_size(h.dx, h.dy)?;
    let (w, ht) = (h.width(), h.height());
    let mut out = h.same_shape(NO_DIRECTION);
    if w < 3 || ht < 3 {
        return Ok(out);
    }
    let (dx, dy) = (h.dx, h.dy);
    // Facet constants: east–west cardinal leg (d1 = dx, d2 = dy) or north–south (d1 = dy, d2 = dx).
    let (edge_ew, edge_ns, diag) = (libm::atan2(dy, dx), libm::atan2(dx, dy), libm::hypot(dx, dy));
    let z = h.data();
    let off = NEIGHBOURS.map(|(ox, oy)| oy * w as isize + ox);
    out.data_mut().par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        if y == 0 || y + 1 == ht {
            return;
        }
        for (x, o) in row.iter_mut().enumerate().take(w - 1).skip(1) {
            let i = (y * w + x) as isize;
            let e0 = z[i as usize];
            if e0.is_nan() {
                continue;
            }
            let mut best = f64::NEG_INFINITY;
            let mut angle = NO_DIRECTION;
            for &(c, d, ew, ac, af) in &FACETS {
                let e1 = z[(i + off[c]) as usize];
                let e2 = z[(i + off[d]) as usize];
                let (d1, d2, edge) = if ew { (dx, dy, edge_ew) } else { (dy, dx, edge_ns) };
                let (r, s) = facet(e0, e1, e2, d1, d2, edge, diag);
                // NaN slopes (a NaN neighbour) never compare greater: that facet is skipped.
                if s > best {
                    best = s;
                    angle = af * r + ac * PI / 2.0;
                }
            }
            if best > 0.0 {
                *o = angle % (2.0 * PI);
            }
        }
    });
    Ok(out)
}

/// The one or two receivers of a direction and their shares: `(neighbour index, share)` twice
/// (the second share may be 0). `a` is the bearing of the NE neighbour, `atan2(dy, dx)`.
#[inline]
fn split(theta: f64, a: f64) -> [(usize, f64); 2] {
    let bounds = [0.0, a, PI / 2.0, PI - a, PI, PI + a, 1.5 * PI, 2.0 * PI - a, 2.0 * PI];
    let mut k = 7;
    for (j, b) in bounds[1..8].iter().enumerate() {
        if theta < *b {
            k = j;
            break;
        }
    }
    let mut t = (theta - bounds[k]) / (bounds[k + 1] - bounds[k]);
    if t < 1e-12 {
        t = 0.0;
    } else if t > 1.0 - 1e-12 {
        t = 1.0;
    }
    [(k, 1.0 - t), ((k + 1) % 8, t)]
}

/// D∞ accumulation over directions from [`dinf_directions`]: `out[i] = weight[i] + Σ share_d ·
/// out[d]` over the donors `d` of `i` (see the [module docs](self) for the shares and the order).
///
/// With `weights = None` every cell weighs 1 and the result counts cells (fractional); pass
/// `Some(&vec![dx * dy; n])` for contributing area in m². Cells without a direction keep what
/// they collect (border outlets, pits); a share aimed outside the grid leaves it. The result has
/// the shape and cell size of `dirs`; summed over the cells without a direction it equals the
/// total weight (up to rounding).
///
/// # Errors
///
/// [`HydroError::CellSize`] for a bad cell size, [`HydroError::LengthMismatch`] when `weights`
/// does not have one value per cell, [`HydroError::Direction`] for a value that is neither
/// negative/NaN nor below 2π, [`HydroError::Cycle`] when the directions send water round a loop
/// (impossible for directions taken from one surface), [`HydroError::TooLarge`] beyond `u32`
/// cell indices.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::dinf::{dinf_accumulation, dinf_directions};
///
/// // A plane falling to the east: every row drains straight east, one more cell per column.
/// let h = Grid::from_fn(6, 4, |x, _| -(x as f64)).with_cell_size(5.0, 5.0);
/// let acc = dinf_accumulation(&dinf_directions(&h).unwrap(), None).unwrap();
/// assert_eq!(acc.row(1), &[1.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// // Contributing area in m² instead of cells:
/// let m2 = dinf_accumulation(&dinf_directions(&h).unwrap(), Some(&vec![25.0; 24])).unwrap();
/// assert_eq!(*m2.get(5, 1), 125.0);
/// ```
pub fn dinf_accumulation(dirs: &Grid<f64>, weights: Option<&[f64]>) -> Result<Grid<f64>, HydroError> {
    check_cell_size(dirs.dx, dirs.dy)?;
    let (w, ht) = (dirs.width(), dirs.height());
    let n = w * ht;
    if n > u32::MAX as usize {
        return Err(HydroError::TooLarge { cells: n });
    }
    let mut acc = match weights {
        Some(wt) => {
            check_len("dinf_accumulation weights", n, wt.len())?;
            wt.to_vec()
        }
        None => vec![1.0; n],
    };
    let a = libm::atan2(dirs.dy, dirs.dx);
    // Receivers: up to two per cell, u32::MAX for none.
    let mut rcv = vec![[(u32::MAX, 0.0f64); 2]; n];
    for (i, (&theta, r)) in dirs.data().iter().zip(rcv.iter_mut()).enumerate() {
        if theta.is_nan() || theta < 0.0 {
            continue;
        }
        if theta >= 2.0 * PI {
            return Err(HydroError::Direction { cell: i, value: theta });
        }
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        for (slot, (k, share)) in r.iter_mut().zip(split(theta, a)) {
            if share == 0.0 {
                continue;
            }
            let (ox, oy) = NEIGHBOURS[k];
            let (nx, ny) = (x + ox, y + oy);
            if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < ht {
                *slot = ((ny as usize * w + nx as usize) as u32, share);
            } else {
                // Leaves the grid: keep the share out of every cell.
                *slot = (u32::MAX - 1, share);
            }
        }
    }
    let mut indeg = vec![0u32; n];
    for r in &rcv {
        for &(j, _) in r {
            if j < u32::MAX - 1 {
                indeg[j as usize] += 1;
            }
        }
    }
    let mut queue: VecDeque<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut done = 0usize;
    while let Some(i) = queue.pop_front() {
        done += 1;
        let v = acc[i as usize];
        for &(j, share) in &rcv[i as usize] {
            if j < u32::MAX - 1 {
                acc[j as usize] += share * v;
                indeg[j as usize] -= 1;
                if indeg[j as usize] == 0 {
                    queue.push_back(j);
                }
            }
        }
    }
    if done < n {
        let cell = indeg.iter().position(|&d| d > 0).unwrap_or(0);
        return Err(HydroError::Cycle { cell });
    }
    Ok(Grid::from_vec(w, ht, acc).with_cell_size(dirs.dx, dirs.dy))
}

#[cfg(test)]
mod tests {
    use super::super::priority_flood::fill_epsilon;
    use super::super::test_dems::value_noise;
    use super::*;

    /// Plane with gradient `(gx, gy)` in m/m along east and north, on `dx × dy` cells.
    fn plane(w: usize, h: usize, dx: f64, dy: f64, gx: f64, gy: f64) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| gx * x as f64 * dx - gy * y as f64 * dy).with_cell_size(dx, dy)
    }

    #[test]
    fn tilted_planes_point_along_their_aspect() {
        for &(dx, dy) in &[(1.0, 1.0), (10.0, 25.0), (30.0, 18.5)] {
            for k in 0..72 {
                // Downslope bearing: 5° steps all round, including the eight neighbour bearings
                // of square cells.
                let aspect = k as f64 * 5.0f64.to_radians();
                let (gx, gy) = (-0.2 * aspect.cos(), -0.2 * aspect.sin());
                let h = plane(7, 6, dx, dy, gx, gy);
                let d = dinf_directions(&h).unwrap();
                for y in 0..6 {
                    for x in 0..7 {
                        let v = *d.get(x, y);
                        if h.is_border(x, y) {
                            assert_eq!(v, NO_DIRECTION);
                            continue;
                        }
                        // Compare on the circle (2π − tiny reads as 0).
                        let diff = (v - aspect).rem_euclid(2.0 * PI);
                        let diff = diff.min(2.0 * PI - diff);
                        assert!(diff < 1e-12, "dx={dx} dy={dy} aspect={aspect} got {v}");
                        assert!((0.0..2.0 * PI).contains(&v));
                    }
                }
            }
        }
    }

    #[test]
    fn pits_flats_and_nan_have_no_direction() {
        let flat = Grid::new(5, 5, 3.0);
        assert!(dinf_directions(&flat).unwrap().data().iter().all(|&v| v == NO_DIRECTION));
        let pit = Grid::from_fn(5, 5, |x, y| (x as f64 - 2.0).powi(2) + (y as f64 - 2.0).powi(2));
        assert_eq!(*dinf_directions(&pit).unwrap().get(2, 2), NO_DIRECTION);
        let mut nan = plane(5, 5, 1.0, 1.0, -1.0, 0.0);
        *nan.get_mut(2, 2) = f64::NAN;
        let d = dinf_directions(&nan).unwrap();
        assert_eq!(*d.get(2, 2), NO_DIRECTION);
        // The cell west of the NaN cell avoids it: its E facets are skipped, yet it still falls.
        assert!(*d.get(1, 2) >= 0.0);
        assert!(matches!(dinf_directions(&flat.clone().with_cell_size(0.0, 1.0)), Err(HydroError::CellSize { .. })));
    }

    #[test]
    fn shares_follow_the_angle_between_bearings() {
        // Hand-made directions on a 5×5 grid: only the centre has one.
        let mut dirs = Grid::new(5, 5, NO_DIRECTION);
        *dirs.get_mut(2, 2) = PI / 8.0; // halfway between E and NE on square cells
        let acc = dinf_accumulation(&dirs, None).unwrap();
        assert!((acc.get(3, 2) - 1.5).abs() < 1e-15);
        assert!((acc.get(3, 1) - 1.5).abs() < 1e-15);
        // On 10 × 30 m cells NE lies at atan2(30, 10): that bearing goes wholly to NE, and half of
        // it half to each.
        let aniso = dirs.clone().with_cell_size(10.0, 30.0);
        let a = libm::atan2(30.0, 10.0);
        let mut d2 = aniso.clone();
        *d2.get_mut(2, 2) = a;
        let acc = dinf_accumulation(&d2, None).unwrap();
        assert_eq!((*acc.get(3, 2), *acc.get(3, 1)), (1.0, 2.0));
        *d2.get_mut(2, 2) = a / 2.0;
        let acc = dinf_accumulation(&d2, None).unwrap();
        assert!((acc.get(3, 2) - 1.5).abs() < 1e-15 && (acc.get(3, 1) - 1.5).abs() < 1e-15);
        // Between N (π/2) and NW (π − a): a quarter of the way from N.
        *d2.get_mut(2, 2) = PI / 2.0 + 0.25 * (PI / 2.0 - a);
        let acc = dinf_accumulation(&d2, None).unwrap();
        assert!((acc.get(2, 1) - 1.75).abs() < 1e-12 && (acc.get(1, 1) - 1.25).abs() < 1e-12);
        // Bad values are refused, not routed.
        *d2.get_mut(1, 1) = 7.0;
        assert!(matches!(dinf_accumulation(&d2, None), Err(HydroError::Direction { cell: 6, .. })));
        assert!(matches!(dinf_accumulation(&dirs, Some(&[1.0; 3])), Err(HydroError::LengthMismatch { .. })));
        // A loop: two cells pointing at each other.
        let mut lp = Grid::new(5, 5, NO_DIRECTION);
        *lp.get_mut(1, 2) = 0.0;
        *lp.get_mut(2, 2) = PI;
        assert!(matches!(dinf_accumulation(&lp, None), Err(HydroError::Cycle { .. })));
    }

    #[test]
    fn accumulation_conserves_mass_and_ignores_thread_count() {
        for (dx, dy) in [(1.0, 1.0), (20.0, 35.0)] {
            let h = fill_epsilon(&value_noise(61, 47, 9, 12, 2.0)).with_cell_size(dx, dy);
            let d = dinf_directions(&h).unwrap();
            // The ε-fill drains every interior cell.
            for y in 1..46 {
                for x in 1..60 {
                    assert!(*d.get(x, y) >= 0.0, "({x},{y}) has no direction");
                }
            }
            let acc = dinf_accumulation(&d, None).unwrap();
            let outlets: f64 = acc.data().iter().zip(d.data()).filter(|(_, &t)| t < 0.0).map(|(a, _)| a).sum();
            assert!((outlets - h.len() as f64).abs() < 1e-9 * h.len() as f64, "{outlets}");
            assert!(acc.data().iter().all(|&a| a >= 1.0 - 1e-12));
            let run = |t: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
                pool.install(|| {
                    let d = dinf_directions(&h).unwrap();
                    (d.clone(), dinf_accumulation(&d, None).unwrap())
                })
            };
            let (d1, a1) = run(1);
            let (d4, a4) = run(4);
            let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&d1), bits(&d4));
            assert_eq!(bits(&a1), bits(&a4));
        }
    }
}
