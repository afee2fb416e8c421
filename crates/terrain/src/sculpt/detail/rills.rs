//! Anisotropic downslope rills (seed 001 §6.2).
//!
//! Erosion detail is directional: noise is sampled in a frame rotated per cell so that its
//! `along` axis points downhill. High frequency across the slope and low frequency along it turns
//! fBM into dense parallel gouges running downhill; the amplitude is gated by steepness (§6.3),
//! so flats are untouched. The seed's values (`fbm(across·230, along·26)` over a 1400-unit world,
//! plus a finer `540 / 60` layer) are wavelengths of about 6 m across and 54 m along; the
//! defaults use those. The frame comes from the downhill direction of the surface blurred by
//! `direction_blur_m`, so the gouges bend smoothly with the ground.
//!
//! `out = z + amplitude_m · gate(slope) · fbm(across/across_m, along/along_m)`, with `(across,
//! along)` the cell's position `(x·dx, −y·dy)` (east, north) projected on the frame.

use super::{downhill, map_cells, slope_gate};
use bozkir_core::noise::{fbm, FbmParams};
use bozkir_core::Grid;

/// Parameters of [`rills`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RillParams {
    /// Wavelength across the slope, metres. Default 6.
    pub across_m: f64,
    /// Wavelength along the slope (downhill), metres. Default 54.
    pub along_m: f64,
    /// Amplitude in metres (fBM is in `[−1, 1]`). Default 1.5.
    pub amplitude_m: f64,
    /// Slope angle (degrees) where rills start. Default 25.
    pub gate_lo_deg: f64,
    /// Slope angle (degrees) of full-strength rills. Default 45.
    pub gate_hi_deg: f64,
    /// Blur of the surface, metres, before taking the downhill direction. Default 4.
    pub direction_blur_m: f64,
    /// Noise (its `frequency` multiplies the rotated coordinates in wavelengths; keep 1).
    /// Default: 3 octaves, frequency 1, seed 23.
    pub noise: FbmParams,
}

impl Default for RillParams {
    fn default() -> Self {
        Self {
            across_m: 6.0,
            along_m: 54.0,
            amplitude_m: 1.5,
            gate_lo_deg: 25.0,
            gate_hi_deg: 45.0,
            direction_blur_m: 4.0,
            noise: FbmParams { octaves: 3, frequency: 1.0, seed: 23, ..FbmParams::default() },
        }
    }
}

/// `z` with downslope rills added where it is steep (see the module docs).
pub fn rills(z: &Grid<f64>, p: &RillParams) -> Grid<f64> {
    let gate = slope_gate(z, p.gate_lo_deg, p.gate_hi_deg);
    let (de, dn) = downhill(z, p.direction_blur_m);
    let (dx, dy) = (z.dx, z.dy);
    let w = z.width();
    map_cells(z, |x, y, v| {
        let i = y * w + x;
        let g = gate.data()[i];
        if g <= 0.0 {
            return v;
        }
        let (e, n) = (de.data()[i], dn.data()[i]);
        let (px, py) = (x as f64 * dx, -(y as f64) * dy);
        let along = px * e + py * n;
        let across = -px * n + py * e;
        v + p.amplitude_m * g * fbm(&p.noise, across / p.across_m, along / p.along_m)
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::flat_and_steep;
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    #[test]
    fn changes_only_where_gated_and_runs_downhill() {
        let z = flat_and_steep(64, 48);
        let p = RillParams::default();
        let out = rills(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        let mut changed = 0;
        for i in 0..z.len() {
            if gate.data()[i] == 0.0 {
                assert_eq!(z.data()[i], out.data()[i]);
            } else if z.data()[i] != out.data()[i] {
                changed += 1;
            }
        }
        assert!(changed > 200);
        // On the eastward ramp rills run east-west: detail varies more along columns (across)
        // than along rows (along).
        let d: Vec<f64> = out.data().iter().zip(z.data()).map(|(a, b)| a - b).collect();
        let (mut across, mut along) = (0.0, 0.0);
        for y in 5..42 {
            for x in 40..58 {
                across += (d[(y + 1) * 64 + x] - d[y * 64 + x]).abs();
                along += (d[y * 64 + x + 1] - d[y * 64 + x]).abs();
            }
        }
        assert!(across > 2.0 * along, "across {across} along {along}");
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = flat_and_steep(50, 40);
        let a = with_threads(1, || rills(&z, &RillParams::default()));
        let b = with_threads(2, || rills(&z, &RillParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}
