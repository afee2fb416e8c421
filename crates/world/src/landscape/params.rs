//! Parameters of the river-valley landscape: pyworldgen 0.1.8's `LandscapeParams`, field for
//! field, with the same names and defaults.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Result, WorldError};

/// Largest grid side accepted (cells along x or y).
pub const MAX_SIDE: usize = 16_384;

/// Parameters of [`generate`](super::generate). Every field of pyworldgen's `LandscapeParams`
/// with its default; lengths in metres, heights in metres, counts as integers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LandscapeParams {
    /// Integer seed override. `None` (the default): the seed given to `generate` decides
    /// (pyworldgen's `from_seed` sets this field from it); `Some(s)` replaces it, as pyworldgen's
    /// `params={"seed": s}` does.
    pub seed: Option<i64>,
    /// World extent (width along x, depth along y) in metres. Default (120, 120).
    pub domain_size: [f64; 2],
    /// Cell size in metres; the grid has `round(W / resolution) × round(H / resolution)` cells
    /// (Python's round half to even). Default 2.
    pub resolution: f64,
    /// Height of the southern edge's centre line before noise. Default 12.
    pub base_elevation: f64,
    /// Rise from the south edge to the north edge: `+ north_south_drop · y / H`. Default 14.
    pub north_south_drop: f64,
    /// Tilt across x: `+ east_west_tilt · (x / W − ½)`. Default 2.
    pub east_west_tilt: f64,
    /// Amplitude of the broad signed fBM (5 octaves; 4 where river beds sample it). Default 6.
    pub broad_noise_amp: f64,
    /// Frequency of the broad fBM in cycles per metre. Default 0.018.
    pub broad_noise_scale: f64,
    /// Amplitude of the detail signed fBM (4 octaves). Default 1.8.
    pub detail_noise_amp: f64,
    /// Frequency of the detail fBM in cycles per metre. Default 0.075.
    pub detail_noise_scale: f64,
    /// σ in cells of the Gaussian smoothing of the base terrain (0: none). Default 0.75.
    pub smoothing_sigma: f64,
    /// Number of main rivers. Default 2.
    pub main_river_count: i64,
    /// Tributaries per main river. Default 4.
    pub tributaries_per_main: i64,
    /// Points along a main river (tributaries: `max(24, river_samples / 2)`). Default 80.
    pub river_samples: i64,
    /// Base channel width in metres (scaled by √(flow / 10) for main rivers). Default 2.2.
    pub river_width: f64,
    /// Base channel depth in metres (scaled by √(flow / 12) for main rivers). Default 1.3.
    pub river_depth: f64,
    /// Valley half-width as a multiple of the channel width (× (1 + 0.18·order)). Default 7.
    pub valley_width_factor: f64,
    /// Valley depth at the centre line (× (1 + 0.22·order)). Default 3.7.
    pub valley_depth: f64,
    /// Meander amplitude in metres (× 0.55 for tributaries). Default 10.
    pub meander_strength: f64,
    /// Meander waves along a river (× a draw in [0.8, 1.5)). Default 2.2.
    pub meander_frequency: f64,
    /// Number of ponds. Default 7.
    pub pond_count: i64,
    /// Smallest pond semi-axis in metres. Default 4.
    pub pond_radius_min: f64,
    /// Largest pond semi-axis in metres. Default 12.
    pub pond_radius_max: f64,
    /// Depth a pond digs at its centre. Default 1.6.
    pub pond_depth: f64,
    /// Probability that a pond sits next to a river point. Default 0.72.
    pub pond_near_river_probability: f64,
    /// Water deeper than this is material `water`. Default 0.08.
    pub water_margin: f64,
    /// Dry cells closer to a river than this are `sand_shore`. Default 2.5.
    pub shore_width: f64,
    /// Dry cells closer to a river than this are `wetland`. Default 5.
    pub wetland_width: f64,
}

impl Default for LandscapeParams {
    fn default() -> Self {
        Self {
            seed: None,
            domain_size: [120.0, 120.0],
            resolution: 2.0,
            base_elevation: 12.0,
            north_south_drop: 14.0,
            east_west_tilt: 2.0,
            broad_noise_amp: 6.0,
            broad_noise_scale: 0.018,
            detail_noise_amp: 1.8,
            detail_noise_scale: 0.075,
            smoothing_sigma: 0.75,
            main_river_count: 2,
            tributaries_per_main: 4,
            river_samples: 80,
            river_width: 2.2,
            river_depth: 1.3,
            valley_width_factor: 7.0,
            valley_depth: 3.7,
            meander_strength: 10.0,
            meander_frequency: 2.2,
            pond_count: 7,
            pond_radius_min: 4.0,
            pond_radius_max: 12.0,
            pond_depth: 1.6,
            pond_near_river_probability: 0.72,
            water_margin: 0.08,
            shore_width: 2.5,
            wetland_width: 5.0,
        }
    }
}

/// A `Param` error for `name = value`.
pub(crate) fn bad(name: &str, value: impl std::fmt::Display, allowed: &str) -> WorldError {
    WorldError::Param { name: name.to_string(), value: value.to_string(), allowed: allowed.to_string() }
}

/// Largest magnitude of a length, height or depth parameter (metres): far beyond any world,
/// small enough that heights built from it stay finite.
const MAX_MAGNITUDE: f64 = 1e6;

fn finite(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v.abs() <= MAX_MAGNITUDE {
        Ok(())
    } else {
        Err(bad(name, v, &format!("must be finite and in [-{MAX_MAGNITUDE:e}, {MAX_MAGNITUDE:e}]")))
    }
}

fn at_least(name: &str, v: f64, lo: f64) -> Result<()> {
    if v.is_finite() && v >= lo && v <= MAX_MAGNITUDE {
        Ok(())
    } else {
        Err(bad(name, v, &format!("must be finite and in [{lo}, {MAX_MAGNITUDE:e}]")))
    }
}

fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(bad(name, v, "must be finite and > 0"))
    }
}

fn count(name: &str, v: i64, lo: i64, hi: i64) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(bad(name, v, &format!("must be an integer in [{lo}, {hi}]")))
    }
}

impl LandscapeParams {
    /// Grid size `(nx, ny) = (round(W / resolution), round(H / resolution))`, rounding half to
    /// even like Python's `round`.
    pub fn grid_size(&self) -> (usize, usize) {
        let n = |len: f64| crate::field::cells(len, self.resolution);
        (n(self.domain_size[0]), n(self.domain_size[1]))
    }

    /// Checks every field; the first one out of range is named in a [`WorldError::Param`].
    pub fn validate(&self) -> Result<()> {
        positive("domain_size[0]", self.domain_size[0])?;
        positive("domain_size[1]", self.domain_size[1])?;
        positive("resolution", self.resolution)?;
        let (nx, ny) = self.grid_size();
        for (name, n) in [("domain_size[0] / resolution", nx), ("domain_size[1] / resolution", ny)] {
            if !(2..=MAX_SIDE).contains(&n) {
                return Err(bad(name, n, &format!("grid side must be in [2, {MAX_SIDE}] cells")));
            }
        }
        for (name, v) in [
            ("base_elevation", self.base_elevation),
            ("north_south_drop", self.north_south_drop),
            ("east_west_tilt", self.east_west_tilt),
            ("broad_noise_amp", self.broad_noise_amp),
            ("detail_noise_amp", self.detail_noise_amp),
            ("meander_strength", self.meander_strength),
            ("meander_frequency", self.meander_frequency),
        ] {
            finite(name, v)?;
        }
        for (name, v) in [
            ("broad_noise_scale", self.broad_noise_scale),
            ("detail_noise_scale", self.detail_noise_scale),
            ("river_width", self.river_width),
            ("river_depth", self.river_depth),
            ("valley_width_factor", self.valley_width_factor),
            ("valley_depth", self.valley_depth),
            ("pond_depth", self.pond_depth),
            ("water_margin", self.water_margin),
            ("shore_width", self.shore_width),
            ("wetland_width", self.wetland_width),
        ] {
            at_least(name, v, 0.0)?;
        }
        if !(self.smoothing_sigma.is_finite() && (0.0..=64.0).contains(&self.smoothing_sigma)) {
            return Err(bad("smoothing_sigma", self.smoothing_sigma, "must be in [0, 64] cells"));
        }
        count("main_river_count", self.main_river_count, 0, 64)?;
        count("tributaries_per_main", self.tributaries_per_main, 0, 64)?;
        count("river_samples", self.river_samples, 2, 100_000)?;
        count("pond_count", self.pond_count, 0, 10_000)?;
        positive("pond_radius_min", self.pond_radius_min)?;
        if !(self.pond_radius_max.is_finite() && self.pond_radius_max >= self.pond_radius_min) {
            return Err(bad(
                "pond_radius_max",
                self.pond_radius_max,
                &format!("must be finite and ≥ pond_radius_min = {}", self.pond_radius_min),
            ));
        }
        let p = self.pond_near_river_probability;
        if !(0.0..=1.0).contains(&p) {
            return Err(bad("pond_near_river_probability", p, "must be in [0, 1]"));
        }
        Ok(())
    }

    /// The defaults with `overrides` applied (pyworldgen's `from_seed(seed, **overrides)`): an
    /// unknown key is refused with the known names, a value of the wrong type or out of range
    /// with the field's name. The result is validated.
    pub fn from_overrides(overrides: &Map<String, Value>) -> Result<Self> {
        let mut base = match serde_json::to_value(Self::default()) {
            Ok(Value::Object(m)) => m,
            _ => return Err(WorldError::Invalid("landscape parameters: serialisation failed".into())),
        };
        for (k, v) in overrides {
            match base.get_mut(k) {
                Some(slot) => *slot = v.clone(),
                None => {
                    let known: Vec<&str> = base.keys().map(String::as_str).collect();
                    return Err(WorldError::Unknown {
                        what: "landscape parameter",
                        name: k.clone(),
                        known: known.join(", "),
                    });
                }
            }
        }
        let p: Self = serde_json::from_value(Value::Object(base)).map_err(|e| {
            let which = overrides
                .iter()
                .find(|(k, v)| {
                    let mut one = Map::new();
                    one.insert((*k).clone(), (*v).clone());
                    serde_json::from_value::<Self>(Value::Object(one)).is_err()
                })
                .map(|(k, v)| (k.clone(), v.to_string()));
            match which {
                Some((k, v)) => bad(&k, v, &format!("wrong type ({e})")),
                None => WorldError::Invalid(format!("landscape parameters: {e}")),
            }
        })?;
        p.validate()?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn defaults_are_pyworldgens_and_valid() {
        let p = LandscapeParams::default();
        p.validate().unwrap();
        assert_eq!(p.grid_size(), (60, 60));
        assert_eq!(p.river_samples, 80);
        assert_eq!(p.pond_near_river_probability, 0.72);
        // Round half to even, like Python's round: 5 / 2 = 2.5 → 2, 7 / 2 = 3.5 → 4.
        let q = LandscapeParams { domain_size: [5.0, 7.0], resolution: 2.0, ..p };
        assert_eq!(q.grid_size(), (2, 4));
    }

    #[test]
    fn overrides_apply_and_unknown_keys_are_refused() {
        let p = LandscapeParams::from_overrides(&map(json!({"domain_size": [60.0, 40.0], "pond_count": 3}))).unwrap();
        assert_eq!(p.domain_size, [60.0, 40.0]);
        assert_eq!(p.pond_count, 3);
        match LandscapeParams::from_overrides(&map(json!({"rivers": 3}))) {
            Err(WorldError::Unknown { name, known, .. }) => {
                assert_eq!(name, "rivers");
                assert!(known.contains("main_river_count"));
            }
            other => panic!("{other:?}"),
        }
        match LandscapeParams::from_overrides(&map(json!({"pond_count": "many"}))) {
            Err(WorldError::Param { name, .. }) => assert_eq!(name, "pond_count"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn out_of_range_values_name_the_field() {
        let cases: Vec<(Value, &str)> = vec![
            (json!({"resolution": 0.0}), "resolution"),
            (json!({"resolution": -1.0}), "resolution"),
            (json!({"domain_size": [1.0, 50.0]}), "domain_size[0] / resolution"),
            (json!({"main_river_count": -1}), "main_river_count"),
            (json!({"river_samples": 1}), "river_samples"),
            (json!({"pond_radius_max": 2.0}), "pond_radius_max"),
            (json!({"pond_near_river_probability": 1.5}), "pond_near_river_probability"),
            (json!({"smoothing_sigma": -0.5}), "smoothing_sigma"),
            (json!({"river_width": -2.0}), "river_width"),
        ];
        for (v, want) in cases {
            match LandscapeParams::from_overrides(&map(v.clone())) {
                Err(WorldError::Param { name, .. }) => assert_eq!(name, want, "{v}"),
                other => panic!("{v}: {other:?}"),
            }
        }
        let p = LandscapeParams { base_elevation: f64::NAN, ..Default::default() };
        assert!(matches!(p.validate(), Err(WorldError::Param { name, .. }) if name == "base_elevation"));
    }
}
