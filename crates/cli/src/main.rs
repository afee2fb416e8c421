//! `bozkir`: procedural terrain, analysis and exports from the command line.
//!
//! Thin binary: argument parsing, progress bars and error messages live here; every algorithm
//! lives in the library crates.

mod args;
mod cmd;
mod gpu;
mod outputs;
mod progress;
mod web;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Large blocks on transparent huge pages (see `bozkir_core::memory::HugePageAlloc`).
#[global_allocator]
static ALLOCATOR: bozkir_core::memory::HugePageAlloc = bozkir_core::memory::HugePageAlloc;

#[derive(Parser)]
#[command(name = "bozkir", version, about = "Procedural terrain: generate, erode, analyse and export height fields")]
struct Cli {
    /// Hide progress bars (results are still printed).
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Worker threads (default: all cores). Output does not depend on it.
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Replace files in the output folder that bozkir did not write (a user's own preview.png,
    /// terrain.json, ...). Without it such a file stops the run before anything is published.
    #[arg(long, global = true)]
    force: bool,
    /// Memory cap in GiB for what a request's numbers drive (sample tables, splats): larger
    /// requests are refused before allocating.
    #[arg(long, global = true, default_value_t = 4.0)]
    max_memory: f64,
    /// Work cap in elementary steps (cell-steps, sample-steps): larger requests are refused
    /// before looping.
    #[arg(long, global = true, default_value_t = 1e11)]
    max_work: f64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The demo scene (canyon terrain, seed 3, 512² over 5.12 km, baked; tilesets from real ground photos and the starter), then the browser viewer on it.
    Demo(cmd::demo::Args),
    /// Generate terrain from a named profile and a seed, eroded, with all outputs.
    Terrain(cmd::terrain::Args),
    /// A world larger than memory in tiles into a Zarr store: one coarse pass, then every tile
    /// with a halo (bit for bit the untiled run where the stages' reach is bounded).
    Tiled(cmd::tiled::Args),
    /// Hydrology and landform analysis of a DEM (GeoTIFF, NPZ, height PNG).
    Analyze(cmd::analyze::Args),
    /// Run stream-power erosion on an existing DEM (real or generated), in physical units.
    Erode(cmd::erode::Args),
    /// Replay a session of the live erosion page (erode.html) natively: its recipe line, the same heights.
    Lab(cmd::lab::Args),
    /// Import a DTM (GeoTIFF, NPZ, PNG) or a point cloud (PLY, LAS, LAZ) into the project's height format.
    Heightmap(cmd::heightmap::Args),
    /// Export a terrain directory for a game engine (Unity, Unreal, Godot) or as a mesh (glTF, OBJ).
    Export(cmd::export::Args),
    /// Bake albedo and micro-normal textures (albedo.png, normal.png) at 1–4× a terrain's grid.
    Bake(cmd::bake::Args),
    /// A ground photo over a plane under each anti-tiling mode (plain, hex-linear, hex-vp,
    /// hex-mikkelsen, two-sample), side by side, with the repetition left and contrast kept.
    Antitile(cmd::antitile::Args),
    /// Decide materials on a tile grid over a terrain with the bozkir rule (class map, confidence, weights).
    Classify(cmd::classify::Args),
    /// Score the bozkir rule against real ground: a DTM with an orthophoto (and DSM), or a classified LAS/LAZ cloud.
    ValidateRule(cmd::validate_rule::Args),
    /// Screen a Gaussian-splat capture (.ply, .splat, .glb, .spz): plane, anisotropy, spacing, columns, opacity, verdict.
    Inspect(cmd::inspect::Args),
    /// Make a ground capture to work on: synthetic, from a coloured point cloud, or a draped photo.
    Capture(cmd::capture::Args),
    /// Align a capture's ground to xy with +z up (upside-down test), recentre it, optionally clean floaters and background.
    Prepare(cmd::prepare::Args),
    /// Find exemplar patches of ground in an aligned capture (one or two materials): contact sheet and patches.json.
    Patches(cmd::patches::Args),
    /// From a ground capture to a seamless Wang tileset in one command, with a verdict.
    Tileset(cmd::tileset::Args),
    /// Render a tileset's far-field atlas (every tile from above).
    Atlas(cmd::tileset::AtlasArgs),
    /// Measure a tileset: repetition, busyness, seam error, exact edges.
    Metrics(cmd::tileset::MetricsArgs),
    /// Serve the browser viewer on a folder of tilesets and terrains (loopback only by default).
    Serve(cmd::serve::Args),
    /// Write the browser viewer and a scene as static files for any static host.
    Site(cmd::site::Args),
    /// Benchmark the browser viewer in headless Chromium and print its frame times.
    BenchViewer(cmd::bench_viewer::Args),
    /// List the 19 profiles with their groups and parameters.
    Profiles(cmd::profiles::Args),
    /// List the built-in recipes (`--show NAME` prints one as TOML).
    Recipes(cmd::recipes::ListArgs),
    /// Score popping in a captured sweep of frames (folder or zip of PNGs): motion undone, residual measured.
    PopMetric(cmd::pop_metric::Args),
    /// Worlds by pyworldgen's generator names: flat, landscape, roads, composite (`list`, `regen`).
    World(cmd::world::Args),
    /// Render any scene (terrain or world folder, mesh, point cloud, splats) headless: a still or a turntable (PNG, PPM, GIF, MP4).
    Render(cmd::render::Args),
    /// A point cloud from any scene (area-weighted on meshes, optional farthest-point thinning) as PLY or .xyz.
    Points(cmd::points::Args),
    /// Any scene with triangles (terrain or world folder, GLB, glTF, OBJ, PLY) as one OBJ, PLY or GLB mesh.
    Mesh(cmd::mesh::Args),
    /// Every generator (profiles, recipes, worlds) rendered into a contact sheet and turntable GIFs.
    Gallery(cmd::gallery::Args),
    /// Render the README's figures (rule on/off, one rule on three terrains, validation κ) with the software renderer.
    Figures(cmd::figures::Args),
}

/// Most worker threads `--threads` accepts.
const MAX_THREADS: usize = 1024;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        if n == 0 || n > MAX_THREADS {
            eprintln!("error: --threads must be 1..={MAX_THREADS}, got {n}");
            return ExitCode::from(2);
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            eprintln!("error: --threads {n}: cannot start the worker threads: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Err(e) = cmd::set_budget(cli.max_memory, cli.max_work) {
        eprintln!("error: {e:#}");
        return ExitCode::from(2);
    }
    outputs::set_force(cli.force);
    if let Err(e) = outputs::handle_signals() {
        eprintln!("error: {e:#}");
        return ExitCode::FAILURE;
    }
    let quiet = cli.quiet;
    let result = match cli.command {
        Command::Demo(a) => cmd::demo::run(a, quiet),
        Command::Terrain(a) => cmd::terrain::run(a, quiet),
        Command::Analyze(a) => cmd::analyze::run(a, quiet),
        Command::Erode(a) => cmd::erode::run(a, quiet),
        Command::Lab(a) => cmd::lab::run(a, quiet),
        Command::Tiled(a) => cmd::tiled::run(a, quiet),
        Command::Heightmap(a) => cmd::heightmap::run(a, quiet),
        Command::Export(a) => cmd::export::run(a, quiet),
        Command::Bake(a) => cmd::bake::run(a, quiet),
        Command::Antitile(a) => cmd::antitile::run(a, quiet),
        Command::Classify(a) => cmd::classify::run(a, quiet),
        Command::ValidateRule(a) => cmd::validate_rule::run(a, quiet),
        Command::Inspect(a) => cmd::inspect::run(a),
        Command::Capture(a) => cmd::capture::run(a),
        Command::Prepare(a) => cmd::prepare::run(a),
        Command::Patches(a) => cmd::patches::run(a),
        Command::Tileset(a) => cmd::tileset::run(a, quiet),
        Command::Atlas(a) => cmd::tileset::atlas(a),
        Command::Metrics(a) => cmd::tileset::metrics(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Site(a) => cmd::site::run(a, quiet),
        Command::BenchViewer(a) => cmd::bench_viewer::run(a, quiet),
        Command::Profiles(a) => cmd::profiles::run(a),
        Command::Recipes(a) => cmd::recipes::list(a),
        Command::PopMetric(a) => cmd::pop_metric::run(a),
        Command::Figures(a) => cmd::figures::run(a, quiet),
        Command::World(a) => cmd::world::run(a, quiet),
        Command::Render(a) => cmd::render::run(a, quiet),
        Command::Points(a) => cmd::points::run(a),
        Command::Gallery(a) => cmd::gallery::run(a, quiet),
        Command::Mesh(a) => cmd::mesh::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) if outputs::interrupted() => {
            // The signal thread is removing the partial outputs and exits with 130/143; an
            // error caused by that removal is not the user's news.
            loop {
                std::thread::park();
            }
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
