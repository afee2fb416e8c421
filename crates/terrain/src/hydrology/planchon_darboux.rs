//! Planchon–Darboux depression filling (Planchon & Darboux 2001).
//!
//! Follows O. Planchon, F. Darboux (2001), "A fast, simple and versatile algorithm to fill the
//! depressions of digital elevation models", *Catena* 46, 159–176, §3 (the "direct" implementation):
//! start from a surface `W` that is `+∞` everywhere except at the outlets, where `W = Z`, and lower
//! it by repeated raster sweeps until nothing changes. A cell takes its own elevation when that is
//! at least one step above some neighbour's `W`, and otherwise the lowest `W(neighbour) + step`.
//! Sweeps alternate forward and backward row-major order, so a typical DEM converges in a few
//! sweeps; the worst case is quadratic, which is why [`super::priority_flood`] is the default and
//! this file is an option and a cross-check.
//!
//! The result is the *minimal* surface satisfying the contract, so it does not depend on the sweep
//! order:
//! * [`Step::Zero`]: the same surface as [`super::priority_flood::fill`] (flat lakes), bit for bit.
//! * [`Step::NextUp`]: every non-outlet cell ends strictly above some neighbour, with the step one
//!   ulp ([`f64::next_up`]) so it never vanishes at altitude — the contract of
//!   [`super::priority_flood::fill_epsilon`], and the same surface, bit for bit (both solve the
//!   same equation, which has one solution).
//! * [`Step::Fixed`]: a step of `ε` metres (the paper's ε), at least one ulp.
//!
//! Outlets are the border cells and the cells beside nodata (NaN), exactly as in
//! [`super::priority_flood`]; NaN cells stay NaN. The paper uses a direction-dependent ε; here the
//! step is the same for all 8 neighbours.

use bozkir_core::grid::Grid;

use super::priority_flood::{init_state, offsets, NODATA, SEED};

/// The rise a cell must have over the neighbour it drains to.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Step {
    /// No rise: filled depressions are flat.
    #[default]
    Zero,
    /// One ulp (the next representable `f64`).
    NextUp,
    /// `ε` metres (finite, ≥ 0); where `W + ε == W` at high elevation, one ulp is used instead.
    Fixed(f64),
}

/// Parameters of [`planchon_darboux`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PlanchonDarbouxParams {
    /// Minimum rise from a cell to its downstream neighbour. Default [`Step::Zero`].
    pub step: Step,
}

/// Planchon–Darboux fill; see the module documentation.
pub fn planchon_darboux(h: &Grid<f64>, params: &PlanchonDarbouxParams) -> Grid<f64> {
    let (w, ht) = (h.width(), h.height());
    let z = h.data();
    let mut out = h.clone();
    if w < 3 || ht < 3 {
        return out;
    }
    let state = init_state(z, w, ht);
    let wv = out.data_mut();
    // Cells that the sweeps update: interior, not nodata, not next to nodata.
    let mut todo: Vec<u32> = Vec::new();
    for (i, &s) in state.iter().enumerate() {
        if s & (SEED | NODATA) == 0 {
            wv[i] = f64::INFINITY;
            todo.push(i as u32);
        }
    }
    let step = params.step;
    let up = |v: f64| -> f64 {
        match step {
            Step::Zero => v,
            Step::NextUp => f64::next_up(v),
            Step::Fixed(e) => {
                let e = if e > 0.0 { e } else { 0.0 };
                let s = v + e;
                if s > v || e == 0.0 {
                    s
                } else {
                    f64::next_up(v)
                }
            }
        }
    };
    let offs = offsets(w);
    let mut forward = true;
    loop {
        let mut changed = false;
        let mut sweep = |c: usize, wv: &mut [f64]| {
            let zc = z[c];
            if wv[c] <= zc {
                return;
            }
            for &o in &offs {
                let wn = up(wv[c.wrapping_add(o)]);
                if zc >= wn {
                    wv[c] = zc;
                    changed = true;
                    return;
                }
                if wv[c] > wn {
                    wv[c] = wn;
                    changed = true;
                }
            }
        };
        if forward {
            for &c in &todo {
                sweep(c as usize, wv);
            }
        } else {
            for &c in todo.iter().rev() {
                sweep(c as usize, wv);
            }
        }
        forward = !forward;
        if !changed {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::flow_graph::d8_receivers;
    use super::super::priority_flood::{fill, fill_epsilon, SEED};
    use super::super::test_dems::{noise, value_noise};
    use super::*;

    fn dems() -> Vec<Grid<f64>> {
        let mut nan = value_noise(40, 36, 8, 9, 2.0);
        for y in 10..15 {
            for x in 12..20 {
                *nan.get_mut(x, y) = f64::NAN;
            }
        }
        vec![
            value_noise(80, 70, 1, 16, 3.0),
            noise(45, 38, 3),
            value_noise(50, 44, 4, 7, 4.0).map(|x| x.round()),
            value_noise(50, 44, 5, 11, 1.0).map(|x| x + 8000.0),
            Grid::new(12, 9, 3.0),
            nan,
        ]
    }

    fn same(a: &Grid<f64>, b: &Grid<f64>) -> bool {
        a.data().iter().zip(b.data()).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    #[test]
    fn zero_step_equals_priority_flood_fill() {
        for h in dems() {
            let pd = planchon_darboux(&h, &PlanchonDarbouxParams::default());
            assert!(same(&pd, &fill(&h)));
        }
    }

    #[test]
    fn next_up_step_is_drained_and_equals_the_priority_flood_epsilon_fill() {
        for h in dems() {
            let pd = planchon_darboux(&h, &PlanchonDarbouxParams { step: Step::NextUp });
            let flat = fill(&h);
            let eps = fill_epsilon(&h);
            for i in 0..h.len() {
                let (p, f, e) = (pd.data()[i], flat.data()[i], eps.data()[i]);
                if h.data()[i].is_nan() {
                    assert!(p.is_nan());
                    continue;
                }
                // Both solve the ε equation, whose solution is unique: the same bits.
                assert!(f <= p && p.to_bits() == e.to_bits(), "{f} {p} {e}");
            }
            let state = init_state(h.data(), h.width(), h.height());
            let g = d8_receivers(&pd);
            for (i, &st) in state.iter().enumerate() {
                if st & (SEED | NODATA) == 0 {
                    let r = g.receivers[i] as usize;
                    assert!(r != i && pd.data()[r] < pd.data()[i], "pit at {i}");
                }
            }
        }
    }

    #[test]
    fn fixed_step_gives_a_graded_lake_and_falls_back_to_one_ulp_at_altitude() {
        // A 1-D trough in a 3-row grid: the middle row is a pit of height 0 draining west at 10.
        let h = Grid::from_fn(7, 3, |x, y| {
            if y == 1 && x > 0 && x < 6 {
                0.0
            } else if y == 1 && x == 0 {
                10.0
            } else {
                50.0
            }
        });
        let pd = planchon_darboux(&h, &PlanchonDarbouxParams { step: Step::Fixed(0.5) });
        let row: Vec<f64> = (1..6).map(|x| *pd.get(x, 1)).collect();
        assert_eq!(row, vec![10.5, 11.0, 11.5, 12.0, 12.5]);
        let high = h.map(|v| v + 8000.0);
        let pd = planchon_darboux(&high, &PlanchonDarbouxParams { step: Step::Fixed(1e-14) });
        let row: Vec<f64> = (0..6).map(|x| *pd.get(x, 1)).collect();
        assert!(row.windows(2).all(|p| p[1] > p[0]), "{row:?}");
    }
}
