//! The composition's parameters: pyworldgen 0.1.8's `CompositeParams`, same names and defaults.

use serde::{Deserialize, Serialize};

use crate::error::{param, Result, WorldError};

/// Largest grid the composition accepts (cells), so a typo cannot ask for terabytes.
pub const MAX_CELLS: usize = 1 << 28;
/// Largest number of region centres (the dart-throw is quadratic in it).
pub const MAX_REGIONS: u32 = 256;
/// Largest number of tree sites of the scatter.
pub const MAX_FOREST_TARGET: u32 = 1_000_000;

/// Parameters of [`compose`](super::compose), named and defaulted as pyworldgen's
/// `CompositeParams` (its `seed` field is the separate [`Seed`](crate::Seed) argument here).
/// Unknown keys are refused when deserialising.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompositeParams {
    /// World extent (width along x, depth along y) in metres. Default (220, 220).
    pub domain_size: (f64, f64),
    /// Cell size in metres; the grid is `round(W / res) × round(H / res)` cells with centres at
    /// `(i + ½)·res`. Default 2.
    pub resolution: f64,
    /// Number of region centres thrown (fewer when the spacing leaves no room). Default 14.
    pub num_regions: u32,
    /// Base height every built-in profile is offset from, metres. Default 10.
    pub base_level: f64,
    /// Gaussian σ of a region's weight as a fraction of the region spacing
    /// `0.85·√(W·H / num_regions)` (σ is at least one cell). Default 0.62.
    pub blend_softness: f64,
    /// Domain-warp amplitude as a fraction of the spacing (organic boundaries). Default 0.45.
    pub boundary_warp: f64,
    /// Frequency of the warp noise, 1/metres. Default 0.05.
    pub boundary_warp_scale: f64,
    /// Frequency of the (elevation, moisture) control fields, 1/metres. Default 0.008.
    pub control_scale: f64,
    /// Scatter tree instances. Default true.
    pub add_forest: bool,
    /// Number of candidate tree sites over the whole world. Default 160.
    pub forest_target: u32,
    /// A site is kept with probability `tree_density · forest_max_accept`. Default 0.9.
    pub forest_max_accept: f64,
    /// Route roads on the composed world (see [`hooks`](super::hooks)). Default true.
    pub add_roads: bool,
    /// Number of road hubs. Default 10.
    pub num_hubs: u32,
    /// Galin's path-mask radius k for the roads. Default 4.
    pub road_mask_radius: u32,
    /// Carve rivers into the composed height after blending, before the roads (seed 002's named
    /// extension; not in pyworldgen). Default false.
    pub carve_rivers: bool,
    /// With `carve_rivers`: a cell is a channel when at least this many cells drain through it.
    /// Default 100.
    pub river_threshold_cells: u32,
}

impl Default for CompositeParams {
    fn default() -> Self {
        Self {
            domain_size: (220.0, 220.0),
            resolution: 2.0,
            num_regions: 14,
            base_level: 10.0,
            blend_softness: 0.62,
            boundary_warp: 0.45,
            boundary_warp_scale: 0.05,
            control_scale: 0.008,
            add_forest: true,
            forest_target: 160,
            forest_max_accept: 0.9,
            add_roads: true,
            num_hubs: 10,
            road_mask_radius: 4,
            carve_rivers: false,
            river_threshold_cells: 100,
        }
    }
}

fn finite_in(name: &str, v: f64, lo: f64, lo_open: bool, hi: f64) -> Result<()> {
    let ok = v.is_finite() && if lo_open { v > lo } else { v >= lo } && v <= hi;
    if ok {
        Ok(())
    } else {
        let bracket = if lo_open { "(" } else { "[" };
        Err(param(name, v, &format!("must be finite and in {bracket}{lo}, {hi}]")))
    }
}

impl CompositeParams {
    /// Parse parameters from JSON text; missing keys take their defaults, unknown keys are
    /// refused (serde's message names the key, line and column).
    pub fn from_json(text: &str) -> Result<Self> {
        let p: Self =
            serde_json::from_str(text).map_err(|e| WorldError::Invalid(format!("composite parameters: {e}")))?;
        p.validate()?;
        Ok(p)
    }

    /// Grid size `(nx, ny)`: `round(W / res)`, `round(H / res)` with ties to even (Python's
    /// `round`).
    pub fn grid_size(&self) -> (usize, usize) {
        let (w, h) = self.domain_size;
        (crate::field::cells(w, self.resolution), crate::field::cells(h, self.resolution))
    }

    /// Region spacing `0.85·√(W·H / max(num_regions, 1))` in metres (pyworldgen's).
    pub fn spacing(&self) -> f64 {
        let (w, h) = self.domain_size;
        0.85 * (w * h / f64::from(self.num_regions.max(1))).sqrt()
    }

    /// Check every parameter; the error names the first bad one and its value.
    pub fn validate(&self) -> Result<()> {
        let (w, h) = self.domain_size;
        finite_in("domain_size[0]", w, 0.0, true, 1e7)?;
        finite_in("domain_size[1]", h, 0.0, true, 1e7)?;
        finite_in("resolution", self.resolution, 0.0, true, 1e6)?;
        if self.river_threshold_cells == 0 {
            return Err(param("river_threshold_cells", 0, "must be at least 1"));
        }
        let (nx, ny) = self.grid_size();
        if nx < 2 || ny < 2 || nx.saturating_mul(ny) > MAX_CELLS {
            return Err(param(
                "resolution",
                self.resolution,
                &format!(
                    "gives a {nx} x {ny} grid for domain {w} x {h}; need at least 2 x 2 and at most {MAX_CELLS} cells"
                ),
            ));
        }
        if self.num_regions == 0 || self.num_regions > MAX_REGIONS {
            return Err(param("num_regions", self.num_regions, &format!("must be in [1, {MAX_REGIONS}]")));
        }
        finite_in("base_level", self.base_level, -1e6, false, 1e6)?;
        finite_in("blend_softness", self.blend_softness, 0.0, true, 1e3)?;
        finite_in("boundary_warp", self.boundary_warp, 0.0, false, 1e3)?;
        finite_in("boundary_warp_scale", self.boundary_warp_scale, 0.0, false, 1e3)?;
        finite_in("control_scale", self.control_scale, 0.0, false, 1e3)?;
        if self.forest_target > MAX_FOREST_TARGET {
            return Err(param("forest_target", self.forest_target, &format!("must be in [0, {MAX_FOREST_TARGET}]")));
        }
        finite_in("forest_max_accept", self.forest_max_accept, 0.0, false, 1.0)?;
        if self.add_roads && self.num_hubs < 2 {
            return Err(param("num_hubs", self.num_hubs, "must be at least 2 when add_roads is on"));
        }
        if !(1..=8).contains(&self.road_mask_radius) {
            return Err(param("road_mask_radius", self.road_mask_radius, "must be in [1, 8]"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_pyworldgens() {
        let p = CompositeParams::default();
        assert_eq!(p.grid_size(), (110, 110));
        assert!((p.spacing() - 0.85 * (220.0f64 * 220.0 / 14.0).sqrt()).abs() < 1e-12);
        p.validate().unwrap();
        let q = CompositeParams::from_json(r#"{"num_regions": 6, "domain_size": [80, 50]}"#).unwrap();
        assert_eq!((q.num_regions, q.domain_size, q.resolution), (6, (80.0, 50.0), 2.0));
    }

    #[test]
    fn python_rounding_of_the_grid() {
        // 5 / 2 = 2.5 rounds to 2 (ties to even), 7 / 2 = 3.5 to 4.
        let p = CompositeParams { domain_size: (5.0, 7.0), resolution: 2.0, ..Default::default() };
        assert_eq!(p.grid_size(), (2, 4));
    }

    #[test]
    fn bad_input_is_named() {
        let e = CompositeParams::from_json(r#"{"num_region": 6}"#).unwrap_err().to_string();
        assert!(e.contains("num_region") && e.contains("line 1"), "{e}");
        let bad = |p: CompositeParams, name: &str| {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        };
        bad(CompositeParams { num_regions: 0, ..Default::default() }, "num_regions");
        bad(CompositeParams { resolution: f64::NAN, ..Default::default() }, "resolution");
        bad(CompositeParams { resolution: 1e-4, ..Default::default() }, "resolution");
        bad(CompositeParams { domain_size: (1.0, 220.0), ..Default::default() }, "resolution");
        bad(CompositeParams { blend_softness: 0.0, ..Default::default() }, "blend_softness");
        bad(CompositeParams { forest_max_accept: 1.5, ..Default::default() }, "forest_max_accept");
        bad(CompositeParams { road_mask_radius: 0, ..Default::default() }, "road_mask_radius");
        bad(CompositeParams { domain_size: (f64::INFINITY, 3.0), ..Default::default() }, "domain_size[0]");
    }
}
