//! Anisotropic downslope rills (seed 001 §6.2), in several layers (§6.1).
//!
//! Erosion detail is directional: noise is sampled in a frame rotated per cell so that its
//! `along` axis points downhill. High frequency across the slope and low frequency along it turns
//! fBM into dense parallel gouges running downhill; the amplitude is gated by steepness (§6.3),
//! so flats are untouched. The seed's values (`fbm(across·230, along·26)` over a 1400-unit world,
//! plus a finer `540 / 60` layer) are wavelengths of about 6 m across and 54 m along; the
//! defaults use those for the first layer.
//!
//! **Layers.** Real rills are multi-scale: broad gullies carry finer gouges. `layers` stretched
//! noise layers are summed, layer `k` (from 0) with wavelengths `across_m / lacunarityᵏ` and
//! `along_m / lacunarityᵏ` (the same anisotropy), amplitude `amplitude_m · gainᵏ`, its own noise
//! seed, and its own frame: the downhill direction of the surface blurred by
//! `direction_blur_m / lacunarityᵏ`, so coarse rills follow the broad slope and fine ones the
//! local ground. With `gain = 1/lacunarity` (the defaults, 0.5 and 2) the amplitude halves as
//! the frequency doubles — the 1/f rule of §6.1.
//!
//! `out = z + gate(slope) · Σₖ amplitude_m · gainᵏ · fbmₖ(acrossₖ·lacunarityᵏ/across_m,
//! alongₖ·lacunarityᵏ/along_m)`, with `(acrossₖ, alongₖ)` the cell's position `(x·dx, −y·dy)`
//! (east, north) projected on layer `k`'s frame. Layer 0 is exactly the single-layer operator:
//! `layers = 1` (or `gain = 0`) reproduces it bit for bit. Since `|fbm| ≤ 1`, the detail is at
//! most `amplitude_m · Σₖ |gain|ᵏ`.

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
    /// Layer `k` uses it with the seed [`layer_seed`]`(seed, k)`.
    /// Default: 3 octaves, frequency 1, seed 23.
    pub noise: FbmParams,
    /// Number of stretched noise layers (0 is treated as 1). Default 3.
    pub layers: u32,
    /// Wavelength ratio between successive layers (layer `k` is `lacunarityᵏ` times finer).
    /// Default 2.
    pub lacunarity: f64,
    /// Amplitude ratio between successive layers. Default 0.5.
    pub gain: f64,
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
            layers: 3,
            lacunarity: 2.0,
            gain: 0.5,
        }
    }
}

/// Noise seed of layer `k` under `seed`: `seed` itself for layer 0, decorrelated above.
pub fn layer_seed(seed: u32, k: u32) -> u32 {
    seed.wrapping_add(0x9E37_79B9u32.wrapping_mul(k))
}

/// One layer's frame and scales.
struct Layer {
    east: Grid<f64>,
    north: Grid<f64>,
    noise: FbmParams,
    /// `lacunarityᵏ`: the layer's frequency relative to layer 0.
    scale: f64,
    /// `gainᵏ`.
    amp: f64,
}

/// `z` with downslope rills added where it is steep (see the module docs).
pub fn rills(z: &Grid<f64>, p: &RillParams) -> Grid<f64> {
    let gate = slope_gate(z, p.gate_lo_deg, p.gate_hi_deg);
    let mut layers = Vec::new();
    let mut scale = 1.0;
    let mut amp = 1.0;
    for k in 0..p.layers.max(1) {
        let (east, north) = downhill(z, p.direction_blur_m / scale);
        let noise = FbmParams { seed: layer_seed(p.noise.seed, k), ..p.noise };
        layers.push(Layer { east, north, noise, scale, amp });
        scale *= p.lacunarity;
        amp *= p.gain;
    }
    let (dx, dy) = (z.dx, z.dy);
    let w = z.width();
    map_cells(z, |x, y, v| {
        let i = y * w + x;
        let g = gate.data()[i];
        if g <= 0.0 {
            return v;
        }
        let (px, py) = (x as f64 * dx, -(y as f64) * dy);
        let mut sum = 0.0;
        for l in &layers {
            let (e, n) = (l.east.data()[i], l.north.data()[i]);
            let along = px * e + py * n;
            let across = -px * n + py * e;
            // Layer 0 (scale 1, amplitude 1) is the single-layer arithmetic exactly: x·1 = x.
            let f = fbm(&l.noise, across * l.scale / p.across_m, along * l.scale / p.along_m);
            sum += l.amp * f;
        }
        v + p.amplitude_m * g * sum
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{changed_where_gated, flat_and_steep};
    use super::*;
    use crate::sculpt::test_support::{bytes, with_threads};

    #[test]
    fn changes_only_where_gated_and_runs_downhill() {
        let z = flat_and_steep(64, 48);
        let p = RillParams::default();
        let out = rills(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        assert!(changed_where_gated(&z, &out, &gate) > 200);
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

    /// The single-layer operator, written out: what `rills` computed before it had layers.
    fn one_layer_reference(z: &Grid<f64>, p: &RillParams) -> Grid<f64> {
        let gate = slope_gate(z, p.gate_lo_deg, p.gate_hi_deg);
        let (de, dn) = downhill(z, p.direction_blur_m);
        let w = z.width();
        map_cells(z, |x, y, v| {
            let i = y * w + x;
            let g = gate.data()[i];
            if g <= 0.0 {
                return v;
            }
            let (e, n) = (de.data()[i], dn.data()[i]);
            let (px, py) = (x as f64 * z.dx, -(y as f64) * z.dy);
            let (along, across) = (px * e + py * n, -px * n + py * e);
            v + p.amplitude_m * g * fbm(&p.noise, across / p.across_m, along / p.along_m)
        })
    }

    #[test]
    fn one_layer_or_zero_gain_is_the_single_layer_operator() {
        let z = flat_and_steep(64, 48);
        let one = RillParams { layers: 1, ..RillParams::default() };
        let reference = one_layer_reference(&z, &one);
        assert_eq!(bytes(&rills(&z, &one)), bytes(&reference));
        assert_eq!(bytes(&rills(&z, &RillParams { layers: 0, ..one })), bytes(&reference), "0 layers is 1");
        let silent = RillParams { layers: 4, gain: 0.0, ..RillParams::default() };
        assert_eq!(bytes(&rills(&z, &silent)), bytes(&reference));
        assert_ne!(bytes(&rills(&z, &RillParams::default())), bytes(&reference), "default has 3 layers");
    }

    /// Mean |difference between neighbours| over mean |value| in the rectangle, per axis:
    /// `(down the columns, along the rows)`. Higher means shorter wavelengths.
    fn roughness(d: &[f64], w: usize) -> (f64, f64, f64) {
        let (mut col, mut row, mut mag) = (0.0, 0.0, 0.0);
        for y in 5..42 {
            for x in 40..58 {
                col += (d[(y + 1) * w + x] - d[y * w + x]).abs();
                row += (d[y * w + x + 1] - d[y * w + x]).abs();
                mag += d[y * w + x].abs();
            }
        }
        (col / mag, row / mag, mag)
    }

    #[test]
    fn finer_layers_add_shorter_anisotropic_detail_bounded_by_the_gains() {
        // 0.25 m cells, so the finest default layer (1.5 m across) is resolved.
        let z = flat_and_steep(64, 48).map(|v| 0.25 * v).with_cell_size(0.25, 0.25);
        let p = RillParams::default();
        let base = rills(&z, &RillParams { layers: 1, ..p });
        let full = rills(&z, &p);
        let gate = slope_gate(&z, p.gate_lo_deg, p.gate_hi_deg);
        let first: Vec<f64> = base.data().iter().zip(z.data()).map(|(a, b)| a - b).collect();
        let added: Vec<f64> = full.data().iter().zip(base.data()).map(|(a, b)| a - b).collect();
        let bound = p.amplitude_m * (p.gain + p.gain * p.gain) + 1e-9;
        for (i, &a) in added.iter().enumerate() {
            if gate.data()[i] == 0.0 {
                assert_eq!(a, 0.0, "flat cell {i} changed");
            }
            assert!(a.abs() <= bound, "added detail {a} above {bound}");
        }
        let (c1, r1, m1) = roughness(&first, 64);
        let (c2, r2, m2) = roughness(&added, 64);
        // The added layers are quieter, and shorter across the slope (rows are along it here).
        assert!(m2 < m1, "added {m2} first {m1}");
        assert!(c2 > 1.5 * c1, "added layers not finer across: {c2} vs {c1}");
        assert!(c2 > 2.0 * r2, "added layers not anisotropic: across {c2} along {r2}");
        assert!(r1 < c1);
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = flat_and_steep(50, 40);
        let a = with_threads(1, || rills(&z, &RillParams::default()));
        let b = with_threads(2, || rills(&z, &RillParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}
