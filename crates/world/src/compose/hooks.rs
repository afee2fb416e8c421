//! Roads and rivers on a composed world (wired once `roads` and `landscape` land).
//!
//! pyworldgen routes its composite roads with `generate_roads(height, res, seed=seed + 77,
//! water=water_depth, params={num_hubs, mask_radius=road_mask_radius})` on the composed
//! (height, water depth); rivers are seed 002's named extension, carved into the composed
//! height after blending.

/// pyworldgen's seed offset of the composite's road network.
pub const ROAD_SEED_OFFSET: i64 = 77;
