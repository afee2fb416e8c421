//! Hydrology: depression filling, flow routing, accumulation, networks, watersheds.
//!
//! Heights are `f64` metres. Nodata is NaN throughout: filling treats cells beside nodata as
//! outlets (water leaves the grid there), like border cells.
pub mod fill_depth;
pub mod flow_graph;
pub mod planchon_darboux;
pub mod priority_flood;
pub mod streams;
pub mod watersheds;

#[cfg(test)]
pub(crate) mod test_dems;
