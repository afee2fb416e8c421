//! The flat terrain (pyworldgen `flat`): a neutral base to lay roads on and blend biomes over.
//!
//! On a grid of `nx = round(W / r)` × `ny = round(H / r)` cells (`domain_size = (W, H)` metres,
//! `resolution = r` metres per cell, rounding half to even as Python's `round`), the cell centre
//! `(x, y) = ((i + ½)·r, (j + ½)·r)` has the height
//!
//! `h(x, y) = base_height + (slope_x·x + slope_y·y) + undulation_amp · signed_fbm2(s·x, s·y, 4, seed + 7)`
//!
//! with `s = undulation_scale`, evaluated in f64 and stored as f32 (pyworldgen's
//! `astype(np.float32)`), then widened back to f64. Defaults give an exactly flat plane at 8 m;
//! the water depth is zero everywhere.

use crate::error::{param, Result, WorldError};
use crate::field::WorldGrid;
use crate::random::for_compat;
use crate::seed::{Compat, Seed};
use serde::{Deserialize, Serialize};

/// Most cells a flat terrain may have (2³⁰): a guard against a typo'd `domain_size`, far above
/// what the budget check of a face lets through.
pub const MAX_CELLS: f64 = (1u64 << 30) as f64;

/// The parameters of the flat terrain, with pyworldgen's names and defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlatParams {
    /// World extent (width along x, depth along y) in metres. Default (120, 120).
    pub domain_size: [f64; 2],
    /// Cell size in metres. Default 2.
    pub resolution: f64,
    /// Height of the plane in metres. Default 8.
    pub base_height: f64,
    /// Tilt: metres of rise per metre eastward. Default 0.
    pub slope_x: f64,
    /// Tilt: metres of rise per metre northward. Default 0.
    pub slope_y: f64,
    /// Amplitude of the signed fBM undulation in metres (0: none). Default 0.
    pub undulation_amp: f64,
    /// Frequency of the undulation in lattice cells per metre. Default 0.03.
    pub undulation_scale: f64,
}

impl Default for FlatParams {
    fn default() -> Self {
        Self {
            domain_size: [120.0, 120.0],
            resolution: 2.0,
            base_height: 8.0,
            slope_x: 0.0,
            slope_y: 0.0,
            undulation_amp: 0.0,
            undulation_scale: 0.03,
        }
    }
}

/// The parameter names, in pyworldgen's order.
pub const PARAM_NAMES: [&str; 7] =
    ["domain_size", "resolution", "base_height", "slope_x", "slope_y", "undulation_amp", "undulation_scale"];

impl FlatParams {
    /// The defaults with `overrides` applied (a JSON object of parameter names to values, as
    /// pyworldgen's `from_seed(**overrides)`); an unknown name or a value of the wrong type is
    /// refused naming it. The result is validated.
    pub fn from_overrides(overrides: &serde_json::Map<String, serde_json::Value>) -> Result<Self> {
        let mut v = serde_json::to_value(Self::default()).expect("FlatParams serialises");
        for (k, val) in overrides {
            if !PARAM_NAMES.contains(&k.as_str()) {
                return Err(WorldError::Unknown {
                    what: "flat parameter",
                    name: k.clone(),
                    known: PARAM_NAMES.join(", "),
                });
            }
            v[k] = val.clone();
            // Parsed key by key so that a value of the wrong type is named.
            serde_json::from_value::<Self>(v.clone())
                .map_err(|e| param(k, val, &format!("not a valid value ({e})")))?;
        }
        let p: Self = serde_json::from_value(v).map_err(|e| WorldError::Invalid(format!("flat parameters: {e}")))?;
        p.validate()?;
        Ok(p)
    }

    /// The grid's columns and rows, `round(W / r)` and `round(H / r)` (half to even).
    pub fn shape(&self) -> (usize, usize) {
        let n = |extent: f64| crate::field::cells(extent, self.resolution);
        (n(self.domain_size[0]), n(self.domain_size[1]))
    }

    /// Refuses non-finite values, a non-positive resolution or extent, a grid of no cell or of
    /// more than [`MAX_CELLS`] cells.
    pub fn validate(&self) -> Result<()> {
        let finite = [
            ("base_height", self.base_height),
            ("slope_x", self.slope_x),
            ("slope_y", self.slope_y),
            ("undulation_amp", self.undulation_amp),
            ("undulation_scale", self.undulation_scale),
        ];
        for (name, v) in finite {
            if !(v.is_finite() && v.abs() <= 1e6) {
                return Err(param(name, v, "must be a finite number in [-1e6, 1e6]"));
            }
        }
        if !(self.resolution.is_finite() && self.resolution > 0.0) {
            return Err(param("resolution", self.resolution, "must be a finite number of metres above 0"));
        }
        let [w, h] = self.domain_size;
        if !(w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0) {
            return Err(param("domain_size", format!("[{w}, {h}]"), "must be two finite numbers of metres above 0"));
        }
        let (cells_x, cells_y) = ((w / self.resolution).round_ties_even(), (h / self.resolution).round_ties_even());
        if cells_x < 1.0 || cells_y < 1.0 || cells_x * cells_y > MAX_CELLS {
            return Err(param(
                "domain_size",
                format!("[{w}, {h}] at resolution {}", self.resolution),
                &format!("gives {cells_x}×{cells_y} cells; needs at least 1×1 and at most {MAX_CELLS} cells"),
            ));
        }
        Ok(())
    }
}

/// The integer seed a generator draws from: pyworldgen's `seed_to_int` in the compatibility
/// path, the canonical 64-bit seed (as two's complement) otherwise.
pub fn seed_int(seed: &Seed, compat: Compat) -> i64 {
    match compat {
        Compat::Pyworldgen => seed.pyworldgen_int(),
        Compat::Canonical => seed.canonical() as i64,
    }
}

/// Generate the flat terrain (see the module docs for the formula). Fails on invalid `params`.
///
/// # Examples
///
/// ```
/// use bozkir_world::flat::{generate, FlatParams};
/// use bozkir_world::{Compat, Seed};
///
/// let w = generate(&Seed::parse("flat"), Compat::Pyworldgen, &FlatParams::default()).unwrap();
/// assert_eq!((w.nx, w.ny), (60, 60));
/// assert!(w.height.iter().all(|&h| h == 8.0));
/// ```
pub fn generate(seed: &Seed, compat: Compat, params: &FlatParams) -> Result<WorldGrid> {
    params.validate()?;
    let (nx, ny) = params.shape();
    let r = params.resolution;
    let noise = for_compat(compat).noise();
    let noise_seed = seed_int(seed, compat).wrapping_add(7);
    let (sx, sy) = (params.slope_x, params.slope_y);
    let (amp, s) = (params.undulation_amp, params.undulation_scale);
    let tilt = sx != 0.0 || sy != 0.0;
    let mut height = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        let y = (j as f64 + 0.5) * r;
        for i in 0..nx {
            let x = (i as f64 + 0.5) * r;
            let mut h = params.base_height;
            if tilt {
                h += sx * x + sy * y;
            }
            if amp != 0.0 {
                h += amp * noise.signed_fbm2(x * s, y * s, 4, noise_seed);
            }
            height.push(h as f32 as f64);
        }
    }
    Ok(WorldGrid::new(nx, ny, r, r, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_exactly_flat_and_tilt_is_linear() {
        let p = FlatParams { domain_size: [20.0, 10.0], ..FlatParams::default() };
        for compat in [Compat::Pyworldgen, Compat::Canonical] {
            let w = generate(&Seed::Int(3), compat, &p).unwrap();
            assert_eq!((w.nx, w.ny, w.dx, w.dy), (10, 5, 2.0, 2.0));
            assert!(w.height.iter().all(|&h| h == 8.0));
            assert!(w.water_depth.iter().all(|&d| d == 0.0));
        }
        let t = FlatParams { slope_x: 0.25, slope_y: -0.5, ..p };
        let w = generate(&Seed::Int(3), Compat::Canonical, &t).unwrap();
        // Cell (i, j) centre at ((i + ½)·2, (j + ½)·2): exact in f32 for these numbers.
        assert_eq!(w.height[0], 8.0 + 0.25 - 0.5);
        assert_eq!(w.height[2 * 10 + 3], 8.0 + 0.25 * 7.0 - 0.5 * 5.0);
    }

    #[test]
    fn undulation_is_bounded_and_seeded() {
        let p = FlatParams { domain_size: [64.0, 64.0], undulation_amp: 2.0, ..FlatParams::default() };
        for compat in [Compat::Pyworldgen, Compat::Canonical] {
            let a = generate(&Seed::parse("rhine"), compat, &p).unwrap();
            let b = generate(&Seed::parse("atlas"), compat, &p).unwrap();
            assert!(a.height.iter().all(|&h| (h - 8.0).abs() <= 2.0 + 1e-6));
            assert_ne!(a.height, b.height, "{compat:?}: seeds differ");
            assert!(a.height.iter().any(|&h| h != 8.0));
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |p: FlatParams| generate(&Seed::Int(0), Compat::Pyworldgen, &p).unwrap_err().to_string();
        assert!(bad(FlatParams { resolution: 0.0, ..Default::default() }).contains("resolution"));
        assert!(bad(FlatParams { slope_x: f64::NAN, ..Default::default() }).contains("slope_x"));
        assert!(bad(FlatParams { domain_size: [1e9, 1e9], ..Default::default() }).contains("domain_size"));
        assert!(bad(FlatParams { domain_size: [0.5, 10.0], ..Default::default() }).contains("0×5"));
        let mut m = serde_json::Map::new();
        m.insert("slope_z".into(), 1.0.into());
        let e = FlatParams::from_overrides(&m).unwrap_err().to_string();
        assert!(e.contains("slope_z") && e.contains("slope_y"), "{e}");
        m.clear();
        m.insert("slope_x".into(), "steep".into());
        let e = FlatParams::from_overrides(&m).unwrap_err().to_string();
        assert!(e.contains("`slope_x` = \"steep\""), "{e}");
        m.clear();
        m.insert("undulation_amp".into(), 1.5.into());
        assert_eq!(FlatParams::from_overrides(&m).unwrap().undulation_amp, 1.5);
    }

    #[test]
    fn rounding_is_half_to_even() {
        let p = FlatParams { domain_size: [25.0, 27.0], ..FlatParams::default() };
        assert_eq!(p.shape(), (12, 14));
    }
}
