//! Hydrology: depression filling, flow routing, accumulation, networks, watersheds.
pub mod flow_graph;
pub mod planchon_darboux;
pub mod priority_flood;
pub mod streams;
pub mod watersheds;
