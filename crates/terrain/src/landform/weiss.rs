//! Weiss (2001) ten-class landform classification from a small- and a large-scale standardised
//! TPI and slope.
//!
//! Source: A. D. Weiss, "Topographic Position and Landforms Analysis", poster, ESRI User
//! Conference 2001; the class table as tabulated in J. Jenness, "Topographic Position Index
//! (TPI) extension for ArcView 3.x / Land Facet Corridor Designer" documentation. With `s` and `l`
//! the small- and large-neighbourhood TPI in standard deviations, `t` the threshold (default 1):
//!
//! | code | class                                   | small `s`      | large `l`      | slope   |
//! |------|-----------------------------------------|----------------|----------------|---------|
//! | 1    | canyons, deeply incised streams         | `s ≤ −t`       | `l ≤ −t`       |         |
//! | 2    | midslope drainages, shallow valleys     | `s ≤ −t`       | `−t < l < t`   |         |
//! | 3    | upland drainages, headwaters            | `s ≤ −t`       | `l ≥ t`        |         |
//! | 4    | U-shaped valleys                        | `−t < s < t`   | `l ≤ −t`       |         |
//! | 5    | plains                                  | `−t < s < t`   | `−t < l < t`   | `≤ 5°`  |
//! | 6    | open slopes                             | `−t < s < t`   | `−t < l < t`   | `> 5°`  |
//! | 7    | upper slopes, mesas                     | `−t < s < t`   | `l ≥ t`        |         |
//! | 8    | local ridges, hills in valleys          | `s ≥ t`        | `l ≤ −t`       |         |
//! | 9    | midslope ridges, small hills in plains  | `s ≥ t`        | `−t < l < t`   |         |
//! | 10   | mountain tops, high ridges              | `s ≥ t`        | `l ≥ t`        |         |
//!
//! Code 0 is "no data": a cell where either TPI or the slope is not finite. Standardisation
//! divides by the grid's standard deviation ([`super::tpi::standardise`]), so the classes do not
//! change when all heights are scaled — except through the slope threshold, which is absolute.
//!
//! Note: the original bozkir analysis (`landform(z, small=4, large=16, flat_slope=0.08)`) used
//! its own ten names and order (`valley hollow footslope flat slope shoulder spur ridge peak
//! pit`); this module follows Weiss's table instead, with the same default radii.

use super::slope::{slope, slope_to_degrees};
use super::tpi::{standardise, tpi_many, TpiParams, TpiWindow};
use bozkir_core::Grid;
use rayon::prelude::*;

/// Class names indexed by code; index 0 is "no data".
pub const WEISS_CLASS_NAMES: [&str; 11] = [
    "no data",
    "canyons, deeply incised streams",
    "midslope drainages, shallow valleys",
    "upland drainages, headwaters",
    "U-shaped valleys",
    "plains",
    "open slopes",
    "upper slopes, mesas",
    "local ridges, hills in valleys",
    "midslope ridges, small hills in plains",
    "mountain tops, high ridges",
];

/// Parameters of [`weiss_landform`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeissParams {
    /// Small neighbourhood. Default `Cells { outer: 4, inner: 0 }` (the original's `small=4`).
    pub small: TpiWindow,
    /// Large neighbourhood. Default `Cells { outer: 16, inner: 0 }` (the original's `large=16`).
    pub large: TpiWindow,
    /// Threshold in standard deviations separating low / middle / high TPI. Default `1.0`
    /// (Weiss's ±1 SD).
    pub sd_threshold: f64,
    /// Slope in degrees separating plains (at or below) from open slopes (above). Default `5.0`
    /// (Weiss 2001).
    pub flat_slope_degrees: f64,
}

impl Default for WeissParams {
    fn default() -> Self {
        Self {
            small: TpiWindow::Cells { outer: 4, inner: 0 },
            large: TpiWindow::Cells { outer: 16, inner: 0 },
            sd_threshold: 1.0,
            flat_slope_degrees: 5.0,
        }
    }
}

/// The Weiss class code (1..=10, 0 for no data) of one cell from its standardised small and
/// large TPI and its slope in degrees.
#[inline]
pub fn weiss_class(small: f64, large: f64, slope_deg: f64, p: &WeissParams) -> u8 {
    if !(small.is_finite() && large.is_finite() && slope_deg.is_finite()) {
        return 0;
    }
    let t = p.sd_threshold;
    // 0 = low (≤ −t), 1 = middle, 2 = high (≥ t).
    let band = |v: f64| {
        if v <= -t {
            0u8
        } else if v >= t {
            2
        } else {
            1
        }
    };
    match (band(small), band(large)) {
        (0, l) => 1 + l,
        (1, 0) => 4,
        (1, 1) => {
            if slope_deg <= p.flat_slope_degrees {
                5
            } else {
                6
            }
        }
        (1, _) => 7,
        (_, l) => 8 + l,
    }
}

/// Weiss classes from precomputed standardised TPIs and slope in degrees (all the same shape).
pub fn weiss_landform_from(small: &Grid<f64>, large: &Grid<f64>, slope_deg: &Grid<f64>, p: &WeissParams) -> Grid<u8> {
    assert!(
        small.width() == large.width()
            && small.height() == large.height()
            && small.width() == slope_deg.width()
            && small.height() == slope_deg.height(),
        "weiss_landform_from: grids differ in shape"
    );
    let data = small
        .data()
        .par_iter()
        .zip(large.data())
        .zip(slope_deg.data())
        .map(|((&s, &l), &g)| weiss_class(s, l, g, p))
        .collect();
    Grid::from_vec(small.width(), small.height(), data).with_cell_size(small.dx, small.dy)
}

/// Weiss (2001) landform classes of `z` (codes in [`WEISS_CLASS_NAMES`]).
pub fn weiss_landform(z: &Grid<f64>, p: &WeissParams) -> Grid<u8> {
    // The two scales and the slope are independent: computed at once.
    let (t, s) =
        rayon::join(|| tpi_many(z, &[TpiParams { window: p.small }, TpiParams { window: p.large }]), || slope(z));
    weiss_landform_parts(&s, &t[0], &t[1], p)
}

/// [`weiss_landform`] from its parts, computed elsewhere (on the GPU): the slope
/// ([`slope`], rise over run) and the raw (not standardised) [`tpi`] at `p.small` and
/// `p.large`. The same parts give the same classes, bit for bit.
pub fn weiss_landform_parts(slope: &Grid<f64>, small: &Grid<f64>, large: &Grid<f64>, p: &WeissParams) -> Grid<u8> {
    let ((small, large), deg) = rayon::join(
        || rayon::join(|| standardise(small), || standardise(large)),
        || {
            let deg = slope.data().par_iter().map(|&v| slope_to_degrees(v)).collect();
            Grid::from_vec(slope.width(), slope.height(), deg).with_cell_size(slope.dx, slope.dy)
        },
    );
    weiss_landform_from(&small, &large, &deg, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::landform::tpi::standardised_tpi;

    #[test]
    fn table_is_complete() {
        let p = WeissParams::default();
        let mut seen = [false; 11];
        for &s in &[-2.0, 0.0, 2.0] {
            for &l in &[-2.0, 0.0, 2.0] {
                for &g in &[1.0, 20.0] {
                    seen[weiss_class(s, l, g, &p) as usize] = true;
                }
            }
        }
        assert!(seen[1..].iter().all(|&b| b) && !seen[0]);
        assert_eq!(weiss_class(-1.0, 1.0, 0.0, &p), 3, "thresholds are inclusive");
        assert_eq!(weiss_class(f64::NAN, 0.0, 0.0, &p), 0);
        assert_eq!(WEISS_CLASS_NAMES[10], "mountain tops, high ridges");
    }

    fn v_shape(n: usize, sign: f64) -> Grid<f64> {
        let c = (n / 2) as f64;
        Grid::from_fn(n, n, |x, _| 500.0 + sign * 0.5 * (x as f64 - c).abs()).with_cell_size(1.0, 1.0)
    }

    #[test]
    fn valley_ridge_plain_and_slope() {
        let n = 97;
        let p = WeissParams::default();
        let mid = n / 2;
        // A V valley: its floor is low at both scales; a ridge is the mirror image.
        let valley = weiss_landform(&v_shape(n, 1.0), &p);
        let ridge = weiss_landform(&v_shape(n, -1.0), &p);
        for y in 20..77 {
            assert_eq!(*valley.get(mid, y), 1, "valley floor at row {y}");
            assert_eq!(*ridge.get(mid, y), 10, "ridge crest at row {y}");
            // The straight flanks (26.6°), whole windows away from floor and edges: open slopes.
            assert_eq!(*valley.get(mid - 24, y), 6);
            assert_eq!(*ridge.get(mid + 24, y), 6);
        }
        // Level ground is plains everywhere.
        let plain = weiss_landform(&Grid::new(40, 40, 12.0), &p);
        assert!(plain.data().iter().all(|&c| c == 5));
        // A knoll on the floor of a deep V valley: high locally, still low at the large scale.
        let mut z = v_shape(n, 4.0);
        for y in 0..n {
            for x in 0..n {
                let r2 = (x as f64 - mid as f64).powi(2) + (y as f64 - mid as f64).powi(2);
                *z.get_mut(x, y) += 7.0 * (-r2 / 2.0).exp();
            }
        }
        let sm = standardised_tpi(&z, &TpiParams { window: p.small });
        let lg = standardised_tpi(&z, &TpiParams { window: p.large });
        assert!(*sm.get(mid, mid) > 1.5 && *lg.get(mid, mid) < -1.2, "clear of the thresholds");
        assert_eq!(*weiss_landform(&z, &p).get(mid, mid), 8);
        // Scale-free apart from the slope threshold: ×10 heights keep the crest a mountain top.
        let tall = v_shape(n, -1.0).map(|v| v * 10.0);
        assert_eq!(*weiss_landform(&tall, &p).get(mid, 30), 10);
    }
}
