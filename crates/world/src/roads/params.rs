//! [`RoadParams`]: pyworldgen's `RoadParams` names and defaults, and the Galin extensions (all
//! off by default, so the defaults give pyworldgen's network).

use serde::{Deserialize, Serialize};

use crate::error::{param, Result, WorldError};

/// How road centrelines are smoothed after routing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Smoothing {
    /// Chaikin corner cutting, `smoothing_iters` rounds (pyworldgen).
    #[default]
    Chaikin,
    /// Clothoid (Euler spiral) fitting, Galin et al. §6.1.
    Clothoid,
}

/// Parameters of the road network. The first block are pyworldgen 0.1.8's `RoadParams` with its
/// defaults; the second are Galin et al.'s extensions, off by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoadParams {
    /// Number of hubs to place (dart throwing, at most `400·num_hubs` attempts).
    pub num_hubs: usize,
    /// Minimum distance between hubs in metres; `None` → `0.55·√(W·H / num_hubs)`.
    pub min_hub_spacing: Option<f64>,
    /// Hubs are refused on ground steeper than this grade `|∇h|`.
    pub max_hub_slope: f64,
    /// Extra loop edges beyond the minimum spanning tree, as a fraction of its edge count
    /// (rounded half to even): the shortest non-tree hub pairs.
    pub extra_edge_fraction: f64,
    /// Road (asphalt) width in metres.
    pub width: f64,
    /// Chaikin rounds applied to each centreline.
    pub smoothing_iters: usize,
    /// Hubs are refused on water deeper than 0.05 m.
    pub avoid_water: bool,
    /// Cost multiplier on cells crossed by earlier roads (corridor reuse), in (0, 1].
    pub reuse_discount: f64,
    /// Path segment mask radius k (M_k, 8/32/80 directions for k = 1/3/5).
    pub mask_radius: usize,
    /// Cost per metre on flat, dry ground.
    pub base: f64,
    /// Penalty per metre at the maximum grade (the slope transfer function's μ(κ₀)).
    pub slope_weight: f64,
    /// Steepest grade along travel; steeper segments cost infinity.
    pub max_grade: f64,
    /// Penalty per metre for fording water of depth `max_water_depth` (linear in depth).
    pub water_weight: f64,
    /// Deepest water a surface road may ford; deeper is bridged or forbidden.
    pub max_water_depth: f64,
    /// Whether deep water is bridged (at `bridge_cost`) instead of forbidden.
    pub allow_bridges: bool,
    /// Surcharge per metre of bridge span.
    pub bridge_cost: f64,
    /// Weight of the squared turning angle per waypoint; > 0 switches on the oriented grid.
    pub curvature_weight: f64,

    /// With `curvature_weight > 0`: restrict the oriented search to cells within this many
    /// metres of the uncurved route (0 = search the whole grid).
    pub curvature_corridor: f64,
    /// Penalty per metre through tree density 1 (vegetation characteristic; needs a density).
    pub vegetation_weight: f64,
    /// Tree density above which a surface road is forbidden (the transfer threshold; `None` =
    /// no threshold).
    pub max_tree_density: Option<f64>,
    /// Annulus bridges (Galin §5.3): straight spans p → q with r_i ≤ |q − p| ≤ r_e over water
    /// deeper than `max_water_depth`, costed by the bridge cost function.
    pub annulus_bridges: bool,
    /// Tunnels (Galin §5.3): straight bores p → q with r_i ≤ |q − p| ≤ r_e under enough rock,
    /// costed by the tunnel cost function; their portals are reported.
    pub allow_tunnels: bool,
    /// Annulus inner radius r_i in metres.
    pub annulus_inner: f64,
    /// Annulus outer radius r_e in metres (also the longest bridge or tunnel).
    pub annulus_outer: f64,
    /// Share of the annulus evaluated per node: a seeded low-discrepancy subset (§5.4).
    pub annulus_fraction: f64,
    /// Least rock cover above a tunnel's interior, metres.
    pub tunnel_cover: f64,
    /// Length at each tunnel end where the cover may be thinner (the portal cut), metres.
    pub tunnel_portal_length: f64,
    /// Steepest grade of a tunnel.
    pub tunnel_max_grade: f64,
    /// Cost per metre of a short tunnel (a road metre on flat ground costs `base`).
    pub tunnel_cost_per_m: f64,
    /// Fixed cost of a tunnel's two portals.
    pub tunnel_fixed_cost: f64,
    /// Least deck clearance above the water surface away from the abutments, metres.
    pub bridge_clearance: f64,
    /// Length at each bridge end where the deck may run lower (the abutments), metres.
    pub bridge_abutment_length: f64,
    /// Steepest deck grade of an annulus bridge.
    pub bridge_max_grade: f64,
    /// Cost per metre of a short annulus bridge span.
    pub bridge_span_cost_per_m: f64,
    /// Fixed cost of an annulus bridge's two abutments.
    pub bridge_fixed_cost: f64,
    /// Centreline smoothing method.
    pub smoothing: Smoothing,
    /// Clothoid smoothing: largest curvature |κ| in 1/m (1 / the least radius).
    pub clothoid_max_curvature: f64,
    /// Clothoid smoothing: largest curvature change |dκ/ds| in 1/m².
    pub clothoid_max_sharpness: f64,
    /// Clothoid smoothing: length of one clothoid piece, metres.
    pub clothoid_knot_spacing: f64,
    /// Refuse a network in which some edge cannot be routed (pyworldgen skips it silently).
    pub require_connected: bool,
}

impl Default for RoadParams {
    fn default() -> Self {
        Self {
            num_hubs: 8,
            min_hub_spacing: None,
            max_hub_slope: 0.6,
            extra_edge_fraction: 0.25,
            width: 3.0,
            smoothing_iters: 2,
            avoid_water: true,
            reuse_discount: 0.6,
            mask_radius: 3,
            base: 1.0,
            slope_weight: 6.0,
            max_grade: 0.35,
            water_weight: 4.0,
            max_water_depth: 2.5,
            allow_bridges: true,
            bridge_cost: 8.0,
            curvature_weight: 0.0,
            curvature_corridor: 0.0,
            vegetation_weight: 0.0,
            max_tree_density: None,
            annulus_bridges: false,
            allow_tunnels: false,
            annulus_inner: 6.0,
            annulus_outer: 40.0,
            annulus_fraction: 0.25,
            tunnel_cover: 5.0,
            tunnel_portal_length: 10.0,
            tunnel_max_grade: 0.06,
            tunnel_cost_per_m: 15.0,
            tunnel_fixed_cost: 50.0,
            bridge_clearance: 2.0,
            bridge_abutment_length: 3.0,
            bridge_max_grade: 0.08,
            bridge_span_cost_per_m: 8.0,
            bridge_fixed_cost: 20.0,
            smoothing: Smoothing::Chaikin,
            clothoid_max_curvature: 0.04,
            clothoid_max_sharpness: 0.0016,
            clothoid_knot_spacing: 4.0,
            require_connected: false,
        }
    }
}

fn finite_nonneg(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(param(name, v, "must be finite and ≥ 0"))
    }
}

fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(param(name, v, "must be finite and > 0"))
    }
}

impl RoadParams {
    /// The parameter names, as accepted by [`RoadParams::from_json`].
    pub const KEYS: &'static [&'static str] = &[
        "num_hubs",
        "min_hub_spacing",
        "max_hub_slope",
        "extra_edge_fraction",
        "width",
        "smoothing_iters",
        "avoid_water",
        "reuse_discount",
        "mask_radius",
        "base",
        "slope_weight",
        "max_grade",
        "water_weight",
        "max_water_depth",
        "allow_bridges",
        "bridge_cost",
        "curvature_weight",
        "curvature_corridor",
        "vegetation_weight",
        "max_tree_density",
        "annulus_bridges",
        "allow_tunnels",
        "annulus_inner",
        "annulus_outer",
        "annulus_fraction",
        "tunnel_cover",
        "tunnel_portal_length",
        "tunnel_max_grade",
        "tunnel_cost_per_m",
        "tunnel_fixed_cost",
        "bridge_clearance",
        "bridge_abutment_length",
        "bridge_max_grade",
        "bridge_span_cost_per_m",
        "bridge_fixed_cost",
        "smoothing",
        "clothoid_max_curvature",
        "clothoid_max_sharpness",
        "clothoid_knot_spacing",
        "require_connected",
    ];

    /// The keys pyworldgen's `roads` generator passes to its flat base terrain instead of the
    /// roads (`registry._roads_factory`).
    pub const TERRAIN_KEYS: &'static [&'static str] =
        &["domain_size", "resolution", "base_height", "slope_x", "slope_y", "undulation_amp", "undulation_scale"];

    /// Split the `roads` generator's parameters as pyworldgen does: the flat terrain's keys
    /// ([`RoadParams::TERRAIN_KEYS`]) and the rest, which must be road parameters.
    pub fn split_generator_params(value: &serde_json::Value) -> Result<(serde_json::Value, Self)> {
        let map = value
            .as_object()
            .ok_or_else(|| WorldError::Invalid(format!("roads parameters must be an object, got {value}")))?;
        let (mut terrain, mut roads) = (serde_json::Map::new(), serde_json::Map::new());
        for (k, v) in map {
            if Self::TERRAIN_KEYS.contains(&k.as_str()) {
                terrain.insert(k.clone(), v.clone());
            } else {
                roads.insert(k.clone(), v.clone());
            }
        }
        Ok((serde_json::Value::Object(terrain), Self::from_json(&serde_json::Value::Object(roads))?))
    }

    /// Parameters from a JSON object of overrides (pyworldgen's `params` dict): unknown keys are
    /// refused with the list of known ones; the result is validated.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let map = value
            .as_object()
            .ok_or_else(|| WorldError::Invalid(format!("road parameters must be an object, got {value}")))?;
        if let Some(k) = map.keys().find(|k| !Self::KEYS.contains(&k.as_str())) {
            return Err(WorldError::Unknown { what: "road parameter", name: k.clone(), known: Self::KEYS.join(", ") });
        }
        let p: Self =
            serde_json::from_value(value.clone()).map_err(|e| WorldError::Invalid(format!("road parameters: {e}")))?;
        p.validate()?;
        Ok(p)
    }

    /// Check every parameter's range; the error names the parameter and its value.
    pub fn validate(&self) -> Result<()> {
        if self.mask_radius == 0 || self.mask_radius > 16 {
            return Err(param("mask_radius", self.mask_radius, "must be in 1..=16"));
        }
        if self.smoothing_iters > 12 {
            return Err(param("smoothing_iters", self.smoothing_iters, "must be ≤ 12"));
        }
        if self.num_hubs > 4096 {
            return Err(param("num_hubs", self.num_hubs, "must be ≤ 4096"));
        }
        if let Some(s) = self.min_hub_spacing {
            finite_nonneg("min_hub_spacing", s)?;
        }
        positive("max_grade", self.max_grade)?;
        positive("max_water_depth", self.max_water_depth)?;
        positive("width", self.width)?;
        for (n, v) in [
            ("max_hub_slope", self.max_hub_slope),
            ("extra_edge_fraction", self.extra_edge_fraction),
            ("base", self.base),
            ("slope_weight", self.slope_weight),
            ("water_weight", self.water_weight),
            ("bridge_cost", self.bridge_cost),
            ("curvature_weight", self.curvature_weight),
            ("curvature_corridor", self.curvature_corridor),
            ("vegetation_weight", self.vegetation_weight),
            ("tunnel_cover", self.tunnel_cover),
            ("tunnel_portal_length", self.tunnel_portal_length),
            ("tunnel_cost_per_m", self.tunnel_cost_per_m),
            ("tunnel_fixed_cost", self.tunnel_fixed_cost),
            ("bridge_clearance", self.bridge_clearance),
            ("bridge_abutment_length", self.bridge_abutment_length),
            ("bridge_span_cost_per_m", self.bridge_span_cost_per_m),
            ("bridge_fixed_cost", self.bridge_fixed_cost),
            ("annulus_inner", self.annulus_inner),
        ] {
            finite_nonneg(n, v)?;
        }
        if let Some(t) = self.max_tree_density {
            finite_nonneg("max_tree_density", t)?;
        }
        if !(self.reuse_discount > 0.0 && self.reuse_discount <= 1.0) {
            return Err(param("reuse_discount", self.reuse_discount, "must be in (0, 1]"));
        }
        if !(self.annulus_outer.is_finite() && self.annulus_outer > self.annulus_inner) {
            return Err(param(
                "annulus_outer",
                self.annulus_outer,
                &format!("must be finite and > annulus_inner = {}", self.annulus_inner),
            ));
        }
        positive("tunnel_max_grade", self.tunnel_max_grade)?;
        positive("bridge_max_grade", self.bridge_max_grade)?;
        positive("clothoid_max_curvature", self.clothoid_max_curvature)?;
        positive("clothoid_max_sharpness", self.clothoid_max_sharpness)?;
        positive("clothoid_knot_spacing", self.clothoid_knot_spacing)?;
        if !(self.annulus_fraction > 0.0 && self.annulus_fraction <= 1.0) {
            return Err(param("annulus_fraction", self.annulus_fraction, "must be in (0, 1]"));
        }
        Ok(())
    }

    /// The cost model these parameters describe.
    pub fn cost(&self) -> super::cost::RoadCost {
        super::cost::RoadCost {
            base: self.base,
            slope_weight: self.slope_weight,
            max_grade: self.max_grade,
            water_weight: self.water_weight,
            max_water_depth: self.max_water_depth,
            allow_bridges: self.allow_bridges,
            bridge_cost: self.bridge_cost,
            curvature_weight: self.curvature_weight,
            vegetation_weight: self.vegetation_weight,
            max_tree_density: self.max_tree_density,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_keys() {
        let p = RoadParams {
            mask_radius: 5,
            smoothing: Smoothing::Clothoid,
            max_tree_density: Some(0.7),
            ..RoadParams::default()
        };
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(RoadParams::from_json(&v).unwrap(), p);
        // KEYS lists exactly the serialised fields.
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut known = RoadParams::KEYS.to_vec();
        keys.sort_unstable();
        known.sort_unstable();
        assert_eq!(keys, known);
        assert_eq!(RoadParams::from_json(&serde_json::json!({})).unwrap(), RoadParams::default());
        let (t, r) =
            RoadParams::split_generator_params(&serde_json::json!({"domain_size": [60.0, 60.0], "num_hubs": 3}))
                .unwrap();
        assert_eq!(t, serde_json::json!({"domain_size": [60.0, 60.0]}));
        assert_eq!(r.num_hubs, 3);
    }
}
