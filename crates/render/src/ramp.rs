//! Colour ramps and palettes, and turning grids into images with them.
//!
//! Ramps interpolate linearly between sRGB stops (in the encoded byte values, which is what
//! most map-making tools do and keeps results exact and portable). The palettes are original to
//! bozkir: a muted hypsometric tint (lowland green → steppe tan → rock brown → snow, following the
//! reduced, low-saturation palette of the art direction), a greyscale, a blue–white–brown
//! diverging ramp for signed quantities such as TPI (negative = hollows in blue), and a
//! categorical palette ordered from cool to warm for class maps.

use crate::Rgb8Image;
use bozkir_core::Grid;
use rayon::prelude::*;

/// A piecewise-linear colour ramp over `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ramp {
    /// `(position, colour)` stops, positions ascending in `[0, 1]`; at least one stop.
    pub stops: Vec<(f64, [u8; 3])>,
}

impl Ramp {
    /// Muted hypsometric tint: low = green, then steppe tan, rock brown, grey, snow.
    pub fn terrain() -> Self {
        Self {
            stops: vec![
                (0.00, [62, 104, 78]),
                (0.18, [112, 140, 92]),
                (0.38, [184, 174, 128]),
                (0.58, [160, 128, 96]),
                (0.78, [134, 122, 114]),
                (0.92, [196, 194, 190]),
                (1.00, [244, 244, 242]),
            ],
        }
    }

    /// Black to white.
    pub fn greyscale() -> Self {
        Self { stops: vec![(0.0, [0, 0, 0]), (1.0, [255, 255, 255])] }
    }

    /// Diverging: 0 = deep blue, 0.5 = near white, 1 = dark brown.
    pub fn diverging() -> Self {
        Self {
            stops: vec![
                (0.00, [33, 82, 150]),
                (0.25, [118, 164, 208]),
                (0.50, [244, 244, 240]),
                (0.75, [206, 160, 104]),
                (1.00, [120, 72, 24]),
            ],
        }
    }

    /// Colour at `t` (clamped to `[0, 1]`); `NaN` gives the first stop.
    #[inline]
    pub fn sample(&self, t: f64) -> [u8; 3] {
        let s = &self.stops;
        if s.is_empty() {
            return [0, 0, 0];
        }
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        if t <= s[0].0 {
            return s[0].1;
        }
        for pair in s.windows(2) {
            let ((t0, c0), (t1, c1)) = (pair[0], pair[1]);
            if t <= t1 {
                let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
                let mix = |a: u8, b: u8| bozkir_core::round::round_u8(a as f64 + f * (b as f64 - a as f64));
                return [mix(c0[0], c1[0]), mix(c0[1], c1[1]), mix(c0[2], c1[2])];
            }
        }
        s[s.len() - 1].1
    }
}

/// Categorical palette for class codes 1, 2, …, ordered from cool (low, wet) to warm (high,
/// dry) so that a Weiss map reads valleys → plains → slopes → tops.
pub const CATEGORICAL: [[u8; 3]; 12] = [
    [31, 64, 140],
    [52, 118, 190],
    [112, 176, 222],
    [64, 160, 150],
    [170, 210, 140],
    [214, 208, 120],
    [196, 160, 96],
    [236, 150, 70],
    [210, 84, 52],
    [130, 40, 40],
    [150, 100, 170],
    [120, 120, 120],
];

/// Colour of a class code: 0 ("no data") is black; codes from 1 cycle through [`CATEGORICAL`].
pub fn categorical_colour(code: u8) -> [u8; 3] {
    if code == 0 {
        [0, 0, 0]
    } else {
        CATEGORICAL[(code as usize - 1) % CATEGORICAL.len()]
    }
}

fn paint<T: Sync>(g: &Grid<T>, f: impl Fn(&T) -> [u8; 3] + Sync) -> Rgb8Image {
    let (w, h) = (g.width(), g.height());
    let mut img = Rgb8Image::new(w, h);
    if w == 0 || h == 0 {
        return img;
    }
    img.data.par_chunks_mut(w * 3).enumerate().for_each(|(y, row)| {
        for (x, px) in g.row(y).iter().zip(row.chunks_exact_mut(3)) {
            px.copy_from_slice(&f(x));
        }
    });
    img
}

/// Colours `g` through `ramp`, mapping `range = (lo, hi)` (default: the grid's finite min and
/// max) to `[0, 1]`. Non-finite cells are black; a zero-width range maps everything to 0.
pub fn colourise(g: &Grid<f64>, ramp: &Ramp, range: Option<(f64, f64)>) -> Rgb8Image {
    let (lo, hi) = range.or_else(|| g.min_max()).unwrap_or((0.0, 1.0));
    let span = hi - lo;
    paint(g, |&v| {
        if !v.is_finite() {
            [0, 0, 0]
        } else if span > 0.0 {
            ramp.sample((v - lo) / span)
        } else {
            ramp.sample(0.0)
        }
    })
}

/// Colours a signed grid with [`Ramp::diverging`], zero at the centre, `±limit` at the ends
/// (default: the largest finite `|v|`). Non-finite cells are black.
pub fn colourise_diverging(g: &Grid<f64>, limit: Option<f64>) -> Rgb8Image {
    let lim = limit.unwrap_or_else(|| g.data().iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs())));
    colourise(g, &Ramp::diverging(), Some((-lim, lim)))
}

/// Colours a class map with [`categorical_colour`].
pub fn colourise_classes(g: &Grid<u8>) -> Rgb8Image {
    paint(g, |&c| categorical_colour(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps_hit_their_stops_and_interpolate() {
        let g = Ramp::greyscale();
        assert_eq!(g.sample(0.0), [0, 0, 0]);
        assert_eq!(g.sample(1.0), [255, 255, 255]);
        assert_eq!(g.sample(0.5), [128, 128, 128]);
        assert_eq!(g.sample(-3.0), [0, 0, 0]);
        assert_eq!(g.sample(f64::NAN), [0, 0, 0]);
        let t = Ramp::terrain();
        assert_eq!(t.sample(1.0), [244, 244, 242]);
        assert_eq!(Ramp::diverging().sample(0.5), [244, 244, 240]);
        for r in [Ramp::terrain(), Ramp::diverging()] {
            assert!(r.stops.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    #[test]
    fn grids_to_images() {
        let z = Grid::from_vec(3, 1, vec![0.0, 5.0, 10.0]);
        let img = colourise(&z, &Ramp::greyscale(), None);
        assert_eq!((img.width, img.height, img.data.len()), (3, 1, 9));
        assert_eq!(img.pixel(1, 0), [128, 128, 128]);
        let d = colourise_diverging(&Grid::from_vec(3, 1, vec![-2.0, 0.0, 1.0]), None);
        assert_eq!(d.pixel(0, 0), [33, 82, 150]);
        assert_eq!(d.pixel(1, 0), [244, 244, 240]);
        let c = colourise_classes(&Grid::from_vec(2, 1, vec![0u8, 13]));
        assert_eq!(c.pixel(0, 0), [0, 0, 0]);
        assert_eq!(c.pixel(1, 0), CATEGORICAL[0]);
        // Ten classes get ten distinct colours.
        let mut v: Vec<[u8; 3]> = (1..=10).map(categorical_colour).collect();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), 10);
    }
}
