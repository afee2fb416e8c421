//! Hillshade: Lambertian shading of the terrain under a distant sun, from Horn's gradient.
//!
//! Source: B. K. P. Horn, "Hill shading and the reflectance map", *Proceedings of the IEEE* 69(1),
//! 1981. With `p = ζ·∂z/∂east`, `q = ζ·∂z/∂north` (ζ the z-factor) from Horn's weighted 3×3
//! differences over `(dx, dy)`, the surface normal is `(−p, −q, 1)/√(1+p²+q²)` and the sun, at
//! azimuth `A` (degrees clockwise from north = row 0) and altitude `h` above the horizon, is
//! `(cos h·sin A, cos h·cos A, sin h)`. The shade is their dot product clamped to `[0, 1]`, so
//! level ground gets exactly `sin h` and ground facing away from the sun 0 (no cast shadows).
//! Edges pad by replication.
//!
//! The multi-directional variant averages several suns with weights, in the spirit of the
//! multi-directional oblique-weighted shading of R. Mark (1992) and the USGS: light from several
//! azimuths keeps relief readable on slopes that a single sun leaves flat.

use bozkir_core::Grid;
use bozkir_terrain::landform::{horn, map_window3, window3_row, Window3};

/// Parameters of [`hillshade`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HillshadeParams {
    /// Sun azimuth, degrees clockwise from north (row 0). Default 315 (north-west, the
    /// cartographic convention).
    pub azimuth_deg: f64,
    /// Sun altitude above the horizon, degrees. Default 45.
    pub altitude_deg: f64,
    /// Vertical exaggeration applied to heights. Default 1.
    pub z_factor: f64,
}

impl Default for HillshadeParams {
    fn default() -> Self {
        Self { azimuth_deg: 315.0, altitude_deg: 45.0, z_factor: 1.0 }
    }
}

/// Parameters of [`multi_hillshade`].
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHillshadeParams {
    /// Sun azimuths, degrees clockwise from north. Default `[225, 270, 315, 360]`.
    pub azimuths_deg: Vec<f64>,
    /// Relative weight of each azimuth (same length; missing entries count 1, negative ones 0).
    /// Default all 1.
    pub weights: Vec<f64>,
    /// Sun altitude for all azimuths, degrees. Default 45.
    pub altitude_deg: f64,
    /// Vertical exaggeration. Default 1.
    pub z_factor: f64,
}

impl Default for MultiHillshadeParams {
    fn default() -> Self {
        Self {
            azimuths_deg: vec![225.0, 270.0, 315.0, 360.0],
            weights: vec![1.0; 4],
            altitude_deg: 45.0,
            z_factor: 1.0,
        }
    }
}

/// A sun as a unit vector (east, north, up) and a normalised weight.
#[derive(Debug, Clone, Copy)]
struct Sun {
    e: f64,
    n: f64,
    u: f64,
    w: f64,
}

fn sun(azimuth_deg: f64, altitude_deg: f64, w: f64) -> Sun {
    let (a, h) = (azimuth_deg.to_radians(), altitude_deg.to_radians());
    let ch = libm::cos(h);
    Sun { e: ch * libm::sin(a), n: ch * libm::cos(a), u: libm::sin(h), w }
}

/// The shade of a cell of gradient `(e, n)` under `suns`.
#[inline(always)]
fn shade_cell(e: f64, n: f64, z_factor: f64, suns: &[Sun]) -> f64 {
    let (p, q) = (e * z_factor, n * z_factor);
    let norm = libm::sqrt(1.0 + p * p + q * q);
    let mut acc = 0.0;
    for s in suns {
        let d = (s.u - p * s.e - q * s.n) / norm;
        acc += s.w * d.clamp(0.0, 1.0);
    }
    if acc.is_nan() {
        f64::NAN
    } else {
        acc.clamp(0.0, 1.0)
    }
}

/// Suns and z-factor: what shading a cell needs besides its window.
#[derive(Debug, Clone)]
pub(crate) struct Shader {
    suns: Vec<Sun>,
    z_factor: f64,
}

impl Shader {
    /// The one sun of `p`.
    pub(crate) fn single(p: &HillshadeParams) -> Self {
        Self { suns: vec![sun(p.azimuth_deg, p.altitude_deg, 1.0)], z_factor: p.z_factor }
    }

    /// The weighted suns of `p`; with no azimuths (or all weights zero) the single default sun
    /// at `p`'s altitude.
    pub(crate) fn multi(p: &MultiHillshadeParams) -> Self {
        let raw: Vec<(f64, f64)> = p
            .azimuths_deg
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, p.weights.get(i).copied().unwrap_or(1.0).max(0.0)))
            .filter(|&(_, w)| w > 0.0)
            .collect();
        let total: f64 = raw.iter().map(|r| r.1).sum();
        if raw.is_empty() || total <= 0.0 || !total.is_finite() {
            return Self::single(&HillshadeParams {
                altitude_deg: p.altitude_deg,
                z_factor: p.z_factor,
                ..Default::default()
            });
        }
        Self { suns: raw.iter().map(|&(a, w)| sun(a, p.altitude_deg, w / total)).collect(), z_factor: p.z_factor }
    }

    /// The shade of row `y` of `z` into `out`, each cell from its 3×3 window as
    /// `bozkir_terrain::landform::gradient` reads it (replicate padding at the edges; a void
    /// neighbour read as the centre's height, a void centre void), without building the
    /// gradient grids; `voids` from [`bozkir_terrain::landform::void_rows`].
    #[inline(always)]
    pub(crate) fn row(&self, z: &Grid<f64>, voids: &[bool], y: usize, out: &mut [f64]) {
        window3_row(z, voids, y, |win| self.cell(win, z.dx, z.dy), out);
    }

    /// The shade of every cell, rows in parallel: the same values for any thread count.
    fn grid(&self, z: &Grid<f64>) -> Grid<f64> {
        map_window3(z, 0.0, |win| self.cell(win, z.dx, z.dy))
    }

    /// The shade of the cell at the centre of `win` (cells `dx × dy`).
    #[inline(always)]
    fn cell(&self, win: &Window3, dx: f64, dy: f64) -> f64 {
        let (e, n) = horn(win, dx, dy);
        shade_cell(e, n, self.z_factor, &self.suns)
    }
}

/// Hillshade of `z` in `[0, 1]` (level ground = `sin(altitude)`), honouring `dx ≠ dy`.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_render::{hillshade, HillshadeParams};
///
/// let flat = Grid::new(8, 8, 100.0);
/// let p = HillshadeParams::default(); // sun in the north-west, 45° high
/// let s = hillshade(&flat, &p);
/// assert!((s.get(4, 4) - 45f64.to_radians().sin()).abs() < 1e-12);
/// // A slope facing the sun (rising to the south-east) is lit more than level ground.
/// let facing = Grid::from_fn(8, 8, |x, y| (x + y) as f64).with_cell_size(1.0, 1.0);
/// assert!(*hillshade(&facing, &p).get(4, 4) > *s.get(4, 4));
/// ```
pub fn hillshade(z: &Grid<f64>, p: &HillshadeParams) -> Grid<f64> {
    Shader::single(p).grid(z)
}

/// Weighted mean of hillshades from several azimuths, in `[0, 1]`. With no azimuths (or all
/// weights zero) it falls back to the single default sun.
pub fn multi_hillshade(z: &Grid<f64>, p: &MultiHillshadeParams) -> Grid<f64> {
    Shader::multi(p).grid(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shade as it was computed before: from `bozkir_terrain`'s gradient grids.
    fn shade_from_gradient(z: &Grid<f64>, z_factor: f64, suns: &[Sun]) -> Grid<f64> {
        let g = bozkir_terrain::landform::slope::gradient(z);
        let mut out = z.same_shape(0.0);
        for (o, (&e, &n)) in out.data_mut().iter_mut().zip(g.east.data().iter().zip(g.north.data())) {
            *o = shade_cell(e, n, z_factor, suns);
        }
        out
    }

    #[test]
    fn same_bits_as_shading_the_terrain_gradient() {
        let suns = [sun(315.0, 45.0, 0.5), sun(200.0, 30.0, 0.5)];
        for (w, h) in [(1, 1), (1, 9), (9, 1), (2, 2), (37, 23)] {
            let mut z = Grid::from_fn(w, h, |x, y| {
                let (xf, yf) = (x as f64, y as f64);
                900.0 + 30.0 * (xf * 0.37).sin() * (yf * 0.21).cos() + 0.7 * xf - 0.2 * yf
            })
            .with_cell_size(3.0, 5.5);
            for (i, v) in z.data_mut().iter_mut().enumerate() {
                if i % 11 == 5 {
                    *v = f64::NAN;
                }
            }
            for zf in [1.0, 2.5] {
                let shader = Shader { suns: suns.to_vec(), z_factor: zf };
                let (a, b) = (shader.grid(&z), shade_from_gradient(&z, zf, &suns));
                let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&a), bits(&b), "{w}×{h} z-factor {zf}");
            }
        }
    }

    #[test]
    fn flat_plane_is_sin_altitude() {
        let z = Grid::new(6, 5, 100.0).with_cell_size(2.0, 7.0);
        for alt in [10.0f64, 45.0, 80.0] {
            let s = hillshade(&z, &HillshadeParams { altitude_deg: alt, ..Default::default() });
            assert!(s.data().iter().all(|&v| (v - alt.to_radians().sin()).abs() < 1e-12));
            let m = multi_hillshade(&z, &MultiHillshadeParams { altitude_deg: alt, ..Default::default() });
            assert!(m.data().iter().all(|&v| (v - alt.to_radians().sin()).abs() < 1e-12));
        }
    }

    #[test]
    fn slope_facing_the_sun_is_lit_and_honours_cell_size() {
        // A plane rising to the east (falling west) at 45°, sun in the west at 45° altitude:
        // the normal points at the sun, shade 1. Same heights on 2 m columns: a gentler slope.
        let z = Grid::from_fn(5, 5, |x, _| x as f64);
        let p = HillshadeParams { azimuth_deg: 270.0, altitude_deg: 45.0, z_factor: 1.0 };
        assert!((hillshade(&z, &p).get(2, 2) - 1.0).abs() < 1e-12);
        let away = HillshadeParams { azimuth_deg: 90.0, ..p };
        assert_eq!(*hillshade(&z, &away).get(2, 2), 0.0);
        // The normal leans atan(0.5) towards the sun, which is 45° from the zenith.
        let wide = z.clone().with_cell_size(2.0, 1.0);
        assert!((hillshade(&wide, &p).get(2, 2) - (45f64.to_radians() - 0.5f64.atan()).cos()).abs() < 1e-12);
        // A slope facing north under a northern sun is lit more than under a southern one.
        let north_facing = Grid::from_fn(5, 5, |_, y| y as f64 * 0.3);
        let n = hillshade(&north_facing, &HillshadeParams { azimuth_deg: 0.0, ..Default::default() });
        let s = hillshade(&north_facing, &HillshadeParams { azimuth_deg: 180.0, ..Default::default() });
        assert!(n.get(2, 2) > s.get(2, 2));
    }
}
