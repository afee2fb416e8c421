//! Multiple-flow-direction (MFD) accumulation: every cell spreads its water over all its lower
//! neighbours.
//!
//! Sources:
//! * T. G. Freeman (1991), "Calculating catchment area with divergent flow based on a regular
//!   grid", *Computers & Geosciences* 17(3), 413–422: the share of neighbour `j` is proportional
//!   to `(tan β_j)^p` with `p = 1.1`.
//! * P. Quinn, K. Beven, P. Chevallier, O. Planchon (1991), "The prediction of hillslope flow
//!   paths for distributed hydrological modelling using digital terrain models", *Hydrological
//!   Processes* 5(1), 59–79: `p = 1` and each share also weighted by the length of contour the
//!   water crosses towards that neighbour (½ cell for a cardinal, `√2/4` cell for a diagonal).
//!
//! Here the share of lower neighbour `j` of cell `i` is
//!
//! ```text
//! f_ij = (tan β_ij)^p · L_j / Σ_k (tan β_ik)^p · L_k,   tan β_ij = (h_i − h_j) / d_ij
//! ```
//!
//! over the neighbours with `h_j < h_i` (NaN heights never receive), with `d_ij` = `dx`, `dy` or
//! `hypot(dx, dy)`. [`MfdParams::contour_weights`] chooses `L`: off (`L = 1`, Freeman, the
//! default, also whitebox's FD8 and pysheds' MFD for `p = 1`) or Quinn's contour lengths
//! generalised to `dx ≠ dy`: `dy/2` towards E/W, `dx/2` towards N/S, `hypot(dx, dy)/4` towards
//! a diagonal. The exponent defaults to Freeman's 1.1. (pysheds' MFD raises the *drop* to `p`
//! and divides by the distance, `(h_i − h_j)^p / d_ij`, which equals ours only for `p = 1`.)
//!
//! Border cells are outlets (they keep what they receive), as in [`super::flow_graph`]; pits
//! and flats keep theirs too. Cells are processed by decreasing height, ties by increasing
//! index — a topological order because water only moves to strictly lower cells — sequentially,
//! so the result is the same bytes for any thread count.

use super::{check_cell_size, check_len, HydroError};
use bozkir_core::Grid;

/// Parameters of [`mfd_accumulation`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MfdParams {
    /// Exponent `p` on the slope (`≥ 0`, finite). Default 1.1 (Freeman 1991); 1 spreads in
    /// proportion to the slope (Quinn 1991); larger values concentrate the flow (towards D8).
    pub exponent: f64,
    /// Weight each share by the contour length towards the neighbour (Quinn 1991). Default
    /// `false` (Freeman 1991).
    pub contour_weights: bool,
}

impl Default for MfdParams {
    fn default() -> Self {
        Self { exponent: 1.1, contour_weights: false }
    }
}

impl MfdParams {
    /// Quinn et al. (1991): `p = 1` with contour-length weights.
    pub fn quinn() -> Self {
        Self { exponent: 1.0, contour_weights: true }
    }
}

/// MFD accumulation of `h` (see the [module docs](self)): `out[i] = weight[i] + Σ f_di · out[d]`.
///
/// With `weights = None` every cell weighs 1 and the result counts cells (fractional); pass
/// `Some(&vec![dx * dy; n])` for m². Summed over the cells that pass nothing on (border cells,
/// pits, flats) it equals the total weight, up to rounding. Feed it a filled DEM
/// ([`super::priority_flood::fill_epsilon`]) so that water is not caught in pits.
///
/// # Errors
///
/// [`HydroError::CellSize`], [`HydroError::Parameter`] for a negative or non-finite exponent,
/// [`HydroError::LengthMismatch`] for `weights` of the wrong length, [`HydroError::TooLarge`]
/// beyond `u32` cell indices.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::mfd::{mfd_accumulation, MfdParams};
///
/// // A bowl: every interior cell ends in the centre pit (the rim is the border, an outlet).
/// let h = Grid::from_fn(7, 7, |x, y| ((x as f64 - 3.0).powi(2) + (y as f64 - 3.0).powi(2)).sqrt());
/// let acc = mfd_accumulation(&h, &MfdParams::default(), None).unwrap();
/// assert!((acc.get(3, 3) - 25.0).abs() < 1e-12);
/// // Symmetric spreading: mirror cells collect the same.
/// assert!((acc.get(2, 3) - acc.get(4, 3)).abs() < 1e-12);
/// ```
pub fn mfd_accumulation(h: &Grid<f64>, params: &MfdParams, weights: Option<&[f64]>) -> Result<Grid<f64>, HydroError> {
    check_cell_size(h.dx, h.dy)?;
    let p = params.exponent;
    if !(p.is_finite() && p >= 0.0) {
        return Err(HydroError::Parameter { name: "exponent", value: p, why: "must be finite and ≥ 0" });
    }
    let (w, ht) = (h.width(), h.height());
    let n = w * ht;
    if n > u32::MAX as usize {
        return Err(HydroError::TooLarge { cells: n });
    }
    let mut acc = match weights {
        Some(wt) => {
            check_len("mfd_accumulation weights", n, wt.len())?;
            wt.to_vec()
        }
        None => vec![1.0; n],
    };
    if w < 3 || ht < 3 {
        return Ok(Grid::from_vec(w, ht, acc).with_cell_size(h.dx, h.dy));
    }
    let (dx, dy) = (h.dx, h.dy);
    let dd = libm::hypot(dx, dy);
    // Neighbours in row-major order: NW, N, NE, W, E, SW, S, SE.
    let offs: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
    let dist = [dd, dy, dd, dx, dx, dd, dy, dd];
    let contour = if params.contour_weights {
        [dd / 4.0, dx / 2.0, dd / 4.0, dy / 2.0, dy / 2.0, dd / 4.0, dx / 2.0, dd / 4.0]
    } else {
        [1.0; 8]
    };
    let off = offs.map(|(ox, oy)| oy * w as isize + ox);
    let z = h.data();
    // Interior cells by decreasing height, ties by increasing index (NaN cells pass nothing).
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&i| {
            let (x, y) = (i as usize % w, i as usize / w);
            x > 0 && y > 0 && x + 1 < w && y + 1 < ht && !z[i as usize].is_nan()
        })
        .collect();
    order.sort_unstable_by(|&a, &b| z[b as usize].total_cmp(&z[a as usize]).then(a.cmp(&b)));
    let mut slope = [0.0f64; 8];
    for &i in &order {
        let i = i as usize;
        let hi = z[i];
        let mut smax = 0.0f64;
        for k in 0..8 {
            let hj = z[(i as isize + off[k]) as usize];
            slope[k] = if hj < hi { (hi - hj) / dist[k] } else { 0.0 };
            smax = smax.max(slope[k]);
        }
        if smax <= 0.0 {
            // A pit or a flat, or a drop whose slope underflows: keeps its water.
            continue;
        }
        // Normalising by the steepest slope first keeps (s/smax)^p away from underflow.
        let mut t = [0.0f64; 8];
        let mut sum = 0.0;
        for k in 0..8 {
            if slope[k] > 0.0 {
                t[k] = libm::pow(slope[k] / smax, p) * contour[k];
                sum += t[k];
            }
        }
        let v = acc[i];
        for k in 0..8 {
            if t[k] > 0.0 {
                acc[(i as isize + off[k]) as usize] += v * (t[k] / sum);
            }
        }
    }
    Ok(Grid::from_vec(w, ht, acc).with_cell_size(h.dx, h.dy))
}

#[cfg(test)]
mod tests {
    use super::super::priority_flood::fill_epsilon;
    use super::super::test_dems::value_noise;
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn a_cone_spreads_symmetrically() {
        // Peak in the centre of a 21×21 grid of square cells, falling to the border.
        let n = 21;
        let c = 10.0;
        let h = Grid::from_fn(n, n, |x, y| 100.0 - ((x as f64 - c).powi(2) + (y as f64 - c).powi(2)).sqrt())
            .with_cell_size(5.0, 5.0);
        for params in [MfdParams::default(), MfdParams::quinn(), MfdParams { exponent: 4.0, contour_weights: false }] {
            let acc = mfd_accumulation(&h, &params, None).unwrap();
            for y in 0..n {
                for x in 0..n {
                    let v = *acc.get(x, y);
                    for (mx, my) in [(n - 1 - x, y), (x, n - 1 - y), (y, x), (n - 1 - y, n - 1 - x)] {
                        assert!(close(v, *acc.get(mx, my)), "{params:?} ({x},{y}) {v} vs ({mx},{my})");
                    }
                }
            }
            // The peak passes everything on; all water ends on the border.
            assert_eq!(*acc.get(10, 10), 1.0);
            let border: f64 = (0..n * n).filter(|&i| h.is_border(i % n, i / n)).map(|i| acc.data()[i]).sum();
            assert!(close(border, (n * n) as f64));
        }
    }

    #[test]
    fn a_bowl_gathers_every_interior_cell_in_its_pit() {
        for (dx, dy) in [(1.0, 1.0), (30.0, 30.0)] {
            // Square, so that no interior cell has a lower border neighbour.
            let h = Grid::from_fn(11, 11, |x, y| ((x as f64 - 5.0) * dx).hypot((y as f64 - 5.0) * dy))
                .with_cell_size(dx, dy);
            let acc = mfd_accumulation(&h, &MfdParams::default(), None).unwrap();
            assert!(close(*acc.get(5, 5), 81.0), "{}", acc.get(5, 5));
        }
    }

    #[test]
    fn shares_on_a_plane_match_the_formula() {
        // Plane falling east on 2 × 1 m cells: the lower neighbours are NE, E, SE.
        let (dx, dy) = (2.0, 1.0);
        let g = 0.3;
        let h = Grid::from_fn(5, 5, |x, _| -g * x as f64 * dx).with_cell_size(dx, dy);
        let dd = dx.hypot(dy);
        for params in [MfdParams::default(), MfdParams::quinn()] {
            let p = params.exponent;
            let (le, ld) = if params.contour_weights { (dy / 2.0, dd / 4.0) } else { (1.0, 1.0) };
            let te = g.powf(p) * le;
            let td = (g * dx / dd).powf(p) * ld;
            let fe = te / (te + 2.0 * td);
            // Only cell (2,2) has weight: what it passes on shows in its three receivers.
            let mut wt = vec![0.0; 25];
            wt[12] = 1.0;
            let acc = mfd_accumulation(&h, &params, Some(&wt)).unwrap();
            let fd = (1.0 - fe) / 2.0;
            assert!(close(*acc.get(3, 2), fe), "{params:?}");
            assert!(close(*acc.get(3, 1), fd) && close(*acc.get(3, 3), fd));
            // With p → large the flow concentrates on the steepest (E).
            let d8ish =
                mfd_accumulation(&h, &MfdParams { exponent: 200.0, contour_weights: false }, Some(&wt)).unwrap();
            assert!(*d8ish.get(3, 2) > 0.999);
        }
    }

    #[test]
    fn conserves_mass_refuses_bad_input_and_is_deterministic() {
        let h = fill_epsilon(&value_noise(50, 40, 3, 10, 2.0)).with_cell_size(30.0, 30.0);
        let acc = mfd_accumulation(&h, &MfdParams::default(), None).unwrap();
        let outlets: f64 = (0..h.len()).filter(|&i| h.is_border(i % 50, i / 50)).map(|i| acc.data()[i]).sum();
        assert!((outlets - h.len() as f64).abs() < 1e-9 * h.len() as f64);
        let again = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap()
            .install(|| mfd_accumulation(&h, &MfdParams::default(), None).unwrap());
        assert_eq!(acc, again);
        for p in [-1.0, f64::NAN, f64::INFINITY] {
            let bad = MfdParams { exponent: p, contour_weights: false };
            assert!(matches!(mfd_accumulation(&h, &bad, None), Err(HydroError::Parameter { .. })));
        }
        assert!(matches!(
            mfd_accumulation(&h, &MfdParams::default(), Some(&[1.0])),
            Err(HydroError::LengthMismatch { expected: 2000, got: 1, .. })
        ));
    }
}
