//! bozkir's workflows as library functions ("pipelines below, faces on top").
//!
//! Each workflow a user runs is one function here taking a request struct and a
//! [`bozkir_core::Observer`] for progress, steps and notes. The faces — the `bozkir` binary, the
//! WebAssembly bindings, the Python bindings — parse their input, call one pipeline and present
//! its result; none of them holds an algorithm or calls another face's command.
//!
//! Pipelines read and write files only through `bozkir-io` and `bozkir-splat`'s formats, into the
//! folder the face hands them (the CLI hands a staging folder and commits it when the call
//! succeeds). They never read the clock or print: timing and presentation are the face's.
//!
//! Terrain workflows: [`terrain::terrain`] (a profile), [`recipe::run_recipe`],
//! [`analyze::analyze`] and [`erode::erode`] (a DEM), each writing a terrain folder with the
//! maps of [`analysis`]; [`bake::bake`] (textures of a terrain folder); [`demo::build_scene`] (the viewer's demo
//! scene, calling the terrain and bake workflows).
//!
//! Worlds in tiles: [`tiled::generate`] (a tiled recipe into a Zarr store, tile by tile).
//!
//! World workflow: [`world::generate_world`] (a `bozkir-world` generator's world from its spec,
//! with every view of it and `world.json`).
//!
//! Views: [`views::load_scene`] (a terrain or world folder, a mesh, a point cloud or splats),
//! [`views::render_scene`] (stills and turntables with the software renderer),
//! [`views::scene_points`] (clouds and farthest-point subsets), [`views::write_views`];
//! [`gallery::gallery`] (every generator rendered into a contact sheet and turntables).
//!
//! Capture workflows: [`capture::points_capture`] and [`capture::texture_capture`] (splats from a
//! point cloud or a draped photo), [`inspect::inspect`] (screening), [`prepare::prepare_capture`],
//! the reports of a patch search ([`patches`]) and [`pop_metric::pop_metric`] (frames read by
//! [`pop_metric::Frames::read`]).

pub mod analysis;
pub mod analyze;
pub mod antitile;
pub mod bake;
pub mod budget;
pub mod capture;
pub mod classify;
pub mod compute;
pub mod demo;
pub mod erode;
pub mod error;
pub mod export;
pub mod figures;
pub mod folder;
pub mod gallery;
pub mod heightmap;
pub mod inspect;
pub mod patches;
pub mod pop_metric;
pub mod prepare;
pub mod recipe;
pub mod rivers;
pub mod terrain;
#[cfg(not(target_arch = "wasm32"))]
pub mod tiled;
pub mod validation;
pub mod views;
pub mod volume;
pub mod world;

pub use error::{PipelineError, Result};
