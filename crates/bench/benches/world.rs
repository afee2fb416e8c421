//! Benchmarks of the world layer (`bozkir-world`, issue 21) beside pyworldgen 0.1.8 and
//! scikit-image, whose side is `scripts/bench_world_peer.py`; `scripts/bench_world.sh` runs both
//! in one session and prints the side-by-side table.
//!
//! Criterion groups (sample size 10, short warm-up and measurement; slow cases take as long as
//! their ten samples need: the whole bench runs in about eight minutes on the 2-vCPU VM):
//!
//! * `world_gen`: `WorldSpec::resolve(name, "atlas", pyworldgen compat, overrides).generate()` for
//!   `flat`, `landscape`, `roads`, `composite` at pyworldgen's defaults (60², 60², 60², 110²
//!   cells at 2 m) and at 256², 512², 1024² (`domain_size = N·2 m`, as `bozkir world --size N`);
//!   `composite_noroads_1024` (the composite without its roads), `landscape_fine_1024` (the
//!   default 120 m domain at 120/1024 m cells); `implicit_cave_default` and `forest_default`
//!   (issue 22: the cave volume and the forest's ground half at pyworldgen's defaults);
//!   `carve_srtm_t{2000,500}` (`carve_rivers` on the
//!   committed SRTM tile `data/dem/srtm_ref.tif`, river thresholds 2000 and 500 cells).
//! * `world_roads`: road networks over a realistic terrain, the composite `atlas` at 1024²
//!   (2048 m at 2 m, roads and forest off; 70 % of it under water, 3 % deeper than 2.5 m, which
//!   the roads ford or bridge): 12 hubs, k = 5 (`network_k5_12hubs_1024`); the same with
//!   `curvature_weight = 1` in a 24 m corridor around the uncurved route
//!   (`curv_corridor24_1024`); on the 512² and 256² composites (1024 m, 512 m) the corridor
//!   against the full oriented search (`curv_corridor24_N`, `curv_full_N`; at 1024² the full
//!   search, 85 M states, is refused by the library, which asks for a corridor; `curv_full_512`
//!   is heavy: timed by its own runs only). `network_k5_12hubs_1024_hills` is the network on a
//!   dry analytic terrain (hills up to ±19 m), for continuity with the development figures;
//!   `network_k5_12hubs_1024_canonical` is the 1024² network with our canonical seed mapping
//!   (other hubs, same search); `network_k5_12hubs_1024_hubs_S` the network with hubs drawn
//!   from seed S on the same terrain (heavy: timed by their own runs only). Where the
//!   generators' time goes: `composite_own_network_1024` (the network `composite` lays at 1024²),
//!   `roads_generator_network_only_{default,1024}` (the flat base and the network: exactly what
//!   pyworldgen's `generate("roads")` computes, which neither grades nor meshes) and
//!   `roads_generator_network_graded_{default,1024}` (the network on a prebuilt flat base, then
//!   the grading); our `roads` product adds the grading, masks, 3-D polylines and ribbon mesh.
//! * `world_route`: single least-cost routes (`roads::least_cost_path`, no reuse) on the same
//!   1024² composite, k = 1 and k = 5, between the fixed cell pairs of [`ROUTE_PAIRS`]: the
//!   routes compared with scikit-image's `MCP_Geometric`.
//!
//! Modes beyond criterion (environment variables; each exits before criterion runs):
//!
//! * `BOZKIR_WORLD_EXPORT=DIR`: writes the 1024² composite terrain (`terrain_1024_height.npy`,
//!   `terrain_1024_water.npy`, float64, `ny × nx`, row 0 south) and `routes.json` (our single
//!   routes: waypoint cells, cost, states expanded, median and best of 5 wall times) for the
//!   peer script.
//! * `BOZKIR_WORLD_RSS=GROUP/ID`: sets the case up, runs it `BOZKIR_WORLD_REPS` times (default 1)
//!   and prints one JSON line with the wall times (median, best, all) and the process's peak
//!   resident set (`VmHWM` of `/proc/self/status`) after the set-up and after the runs. Run each
//!   case in its own process for its own peak.
//! * `BOZKIR_WORLD_LIST=1`: prints the case ids.
//!
//! Not a test: figures go to `docs/benchmarks.md` with the machine.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bozkir_world::cave::{sample_cave, CaveParams};
use bozkir_world::compose::{self, CompositeParams, Palette};
use bozkir_world::flat::FlatParams;
use bozkir_world::forest::{generate_forest, ForestParams};
use bozkir_world::landscape::{carve_rivers, CarveParams};
use bozkir_world::product::WorldSpec;
use bozkir_world::roads::cost::{level_multipliers, CostField};
use bozkir_world::roads::solver::SearchOptions;
use bozkir_world::roads::{generate_roads, generate_roads_with, least_cost_path, RoadInputs, RoadParams, SegmentMask};
use bozkir_world::{Compat, Seed, WorldGrid};
use criterion::Criterion;
use serde_json::{json, Map, Value};

const SEED: &str = "atlas";
const GENERATORS: [&str; 4] = ["flat", "landscape", "roads", "composite"];
/// `None` = pyworldgen's default domain; else cells per side at the default 2 m.
const SIZES: [Option<usize>; 4] = [None, Some(256), Some(512), Some(1024)];
/// Single-route endpoints (ix, iy) on the 1024² composite: a diagonal, a west–east and a
/// south–north crossing, each end on dry or shallow (≤ 0.3 m), gentle (|∇h| < 0.1) ground in the
/// terrain's largest connected region, picked once near (0.1, 0.1)–(0.9, 0.9),
/// (0.05, 0.45)–(0.95, 0.55) and (0.4, 0.05)–(0.6, 0.95) of the side.
pub const ROUTE_PAIRS: [((usize, usize), (usize, usize)); 3] =
    [((108, 109), (949, 901)), ((51, 461), (894, 672)), ((405, 42), (611, 964))];

fn seed() -> Seed {
    Seed::parse(SEED)
}

/// The spec of generator `name` at `cells` per side (default: pyworldgen's own domain), with
/// extra parameter overrides.
fn spec(name: &str, cells: Option<usize>, extra: &[(&str, Value)]) -> WorldSpec {
    let mut o = Map::new();
    if let Some(n) = cells {
        let res = WorldSpec::resolve(name, seed(), Compat::Pyworldgen, &Map::new())
            .expect("defaults resolve")
            .parameters["resolution"]
            .as_f64()
            .expect("a resolution");
        o.insert("domain_size".into(), json!([n as f64 * res, n as f64 * res]));
    }
    for (k, v) in extra {
        o.insert(k.to_string(), v.clone());
    }
    WorldSpec::resolve(name, seed(), Compat::Pyworldgen, &o).expect("spec resolves")
}

/// The composite `atlas` at `n`² cells of 2 m, roads and forest off: the terrain the road
/// benches route over (height and water depth).
fn composite_terrain(n: usize) -> WorldGrid {
    let p = CompositeParams {
        domain_size: (2.0 * n as f64, 2.0 * n as f64),
        add_roads: false,
        add_forest: false,
        ..Default::default()
    };
    compose::compose(&seed(), Compat::Pyworldgen, &p, &Palette::builtin()).expect("composite").grid
}

fn terrain_1024() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| composite_terrain(1024))
}

fn terrain_512() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| composite_terrain(512))
}

fn terrain_256() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| composite_terrain(256))
}

/// Cases too slow for ten criterion samples (about 10–20 s a run), or many variants of one case:
/// timed only by `BOZKIR_WORLD_RSS` runs (`BOZKIR_WORLD_REPS` of them).
fn heavy(id: &str) -> bool {
    id == "world_roads/curv_full_512" || id.starts_with("world_roads/network_k5_12hubs_1024_hubs_")
}

/// Hub draws of the 12-hub k = 5 network on the same 1024² terrain: the network's time depends
/// on where the hubs fall (how much water and relief lies between them), so the target is judged
/// over these draws as well as the `atlas` one.
const HUB_SEEDS: [&str; 8] = ["rhine", "1", "2", "3", "4", "5", "6", "7"];

/// The analytic hills terrain: 1024² of 2 m cells, hills up to ±19 m, dry.
fn hills_1024() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| {
        let (n, res) = (1024, 2.0);
        let height = (0..n * n)
            .map(|c| {
                let (x, y) = ((c % n) as f64 * res, (c / n) as f64 * res);
                12.0 * (x * 0.004).sin() * (y * 0.003).cos()
                    + 5.0 * (x * 0.011 + y * 0.007).sin()
                    + 2.0 * (x * 0.05).cos() * (y * 0.043).sin()
            })
            .collect();
        WorldGrid::new(n, n, res, res, height)
    })
}

/// The `roads` generator's base at 1024²: pyworldgen's flat terrain (8 m, no undulation).
fn flat_1024() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| WorldGrid::new(1024, 1024, 2.0, 2.0, vec![8.0; 1024 * 1024]))
}

/// The `roads` generator's base at its default size (60², 120 m at 2 m).
fn flat_60() -> &'static WorldGrid {
    static T: OnceLock<WorldGrid> = OnceLock::new();
    T.get_or_init(|| WorldGrid::new(60, 60, 2.0, 2.0, vec![8.0; 60 * 60]))
}

fn k5_12() -> RoadParams {
    RoadParams { num_hubs: 12, mask_radius: 5, ..RoadParams::default() }
}

fn curved(corridor: f64) -> RoadParams {
    RoadParams { curvature_weight: 1.0, curvature_corridor: corridor, ..k5_12() }
}

/// One run of a case: returns a small number derived from the output (kept from the optimiser,
/// printed once as a sanity check).
type Run = Box<dyn FnMut() -> f64>;

/// Every case id, `group/id`.
fn case_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for g in GENERATORS {
        for s in SIZES {
            ids.push(format!("world_gen/{g}_{}", s.map_or("default".to_string(), |n| n.to_string())));
        }
    }
    ids.push("world_gen/composite_noroads_1024".into());
    ids.push("world_gen/landscape_fine_1024".into());
    ids.push("world_gen/implicit_cave_default".into());
    ids.push("world_gen/forest_default".into());
    ids.push("world_gen/carve_srtm_t2000".into());
    ids.push("world_gen/carve_srtm_t500".into());
    for id in [
        "network_k5_12hubs_1024",
        "network_k5_12hubs_1024_hills",
        "network_k5_12hubs_1024_canonical",
        "curv_corridor24_1024",
        "curv_corridor24_512",
        "curv_full_512",
        "curv_corridor24_256",
        "curv_full_256",
        "roads_generator_network_only_default",
        "roads_generator_network_graded_default",
        "roads_generator_network_only_1024",
        "roads_generator_network_graded_1024",
        "composite_own_network_1024",
    ] {
        ids.push(format!("world_roads/{id}"));
    }
    for h in HUB_SEEDS {
        ids.push(format!("world_roads/network_k5_12hubs_1024_hubs_{h}"));
    }
    for k in [1, 5] {
        for p in 0..ROUTE_PAIRS.len() {
            ids.push(format!("world_route/k{k}_pair{p}"));
        }
    }
    ids
}

/// Set up case `id` (terrain built here, outside the timed closure) and return its run.
fn case(id: &str) -> Run {
    let (group, name) = id.split_once('/').expect("group/id");
    match group {
        "world_gen" if name == "implicit_cave_default" => Box::new(|| {
            let v = sample_cave(&seed(), Compat::Pyworldgen, &CaveParams::default()).expect("cave");
            v.solid_fraction()
        }),
        "world_gen" if name == "forest_default" => Box::new(|| {
            let f = generate_forest(&seed(), Compat::Pyworldgen, &ForestParams::default()).expect("forest");
            f.sites.len() as f64
        }),
        "world_gen" if name.starts_with("carve_srtm_t") => {
            let threshold: u32 = name["carve_srtm_t".len()..].parse().expect("threshold");
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dem/srtm_ref.tif");
            let dem = bozkir_io::read_dem(path).expect("the committed SRTM tile");
            let input = WorldGrid::from_grid(&dem.heights);
            let p = CarveParams { threshold_cells: threshold, ..Default::default() };
            Box::new(move || carve_rivers(&input, &p).expect("carves").rivers.len() as f64)
        }
        "world_gen" => {
            let s = match name {
                "composite_noroads_1024" => spec("composite", Some(1024), &[("add_roads", json!(false))]),
                "landscape_fine_1024" => spec("landscape", None, &[("resolution", json!(120.0 / 1024.0))]),
                _ => {
                    let (g, size) = name.rsplit_once('_').expect("gen_size");
                    spec(g, size.parse().ok(), &[])
                }
            };
            Box::new(move || {
                let p = s.generate().expect("generates");
                p.grid.height.len() as f64 + p.roads.len() as f64
            })
        }
        "world_roads" if name.starts_with("roads_generator_network_only_") => {
            // What pyworldgen's `generate("roads")` computes: the flat base, hubs, routes,
            // smoothing, road mask (no grading, no 3-D polylines, no ribbon mesh).
            let cells = if name.ends_with("_1024") { Some(1024) } else { None };
            let s = spec("flat", cells, &[]);
            let fp = FlatParams::from_overrides(&s.parameters).expect("flat params");
            Box::new(move || {
                let base = bozkir_world::flat::generate(&seed(), Compat::Pyworldgen, &fp).expect("flat");
                let domain = Some((fp.domain_size[0], fp.domain_size[1]));
                let inputs = RoadInputs { domain, ..Default::default() };
                let net = generate_roads_with(&base, &seed(), Compat::Pyworldgen, &RoadParams::default(), &inputs)
                    .expect("network");
                net.total_length()
            })
        }
        "world_roads" if name.starts_with("roads_generator_network_graded_") => {
            let t = if name.ends_with("_1024") { flat_1024() } else { flat_60() };
            Box::new(move || {
                let net = generate_roads(t, &seed(), Compat::Pyworldgen, &RoadParams::default()).expect("network");
                net.graded_height(None, None, 0.05).len() as f64
            })
        }
        "world_roads" if name == "composite_own_network_1024" => {
            // The network `composite` lays at 1024² (seed + 77, 10 hubs, k = 4) on its terrain.
            let t = terrain_1024();
            let s = compose::world_seed(&seed(), Compat::Pyworldgen).expect("seed") + 77;
            let p = RoadParams { num_hubs: 10, mask_radius: 4, ..RoadParams::default() };
            Box::new(move || generate_roads(t, &Seed::Int(s), Compat::Pyworldgen, &p).expect("network").total_length())
        }
        "world_roads" if name.starts_with("network_k5_12hubs_1024_hubs_") => {
            let t = terrain_1024();
            let hubs = Seed::parse(&name["network_k5_12hubs_1024_hubs_".len()..]);
            Box::new(move || generate_roads(t, &hubs, Compat::Pyworldgen, &k5_12()).expect("network").total_length())
        }
        "world_roads" if name == "network_k5_12hubs_1024_canonical" => {
            let t = terrain_1024();
            Box::new(move || generate_roads(t, &seed(), Compat::Canonical, &k5_12()).expect("network").total_length())
        }
        "world_roads" => {
            let (t, p): (&'static WorldGrid, RoadParams) = match name {
                "network_k5_12hubs_1024" => (terrain_1024(), k5_12()),
                "network_k5_12hubs_1024_hills" => (hills_1024(), k5_12()),
                "curv_corridor24_1024" => (terrain_1024(), curved(24.0)),
                "curv_corridor24_512" => (terrain_512(), curved(24.0)),
                "curv_full_512" => (terrain_512(), curved(0.0)),
                "curv_corridor24_256" => (terrain_256(), curved(24.0)),
                "curv_full_256" => (terrain_256(), curved(0.0)),
                _ => panic!("unknown case {id}"),
            };
            Box::new(move || {
                let net = generate_roads(t, &seed(), Compat::Pyworldgen, &p).expect("network");
                net.total_length()
            })
        }
        "world_route" => {
            let (k, pair) = name.split_once("_pair").expect("kK_pairP");
            let k: usize = k[1..].parse().expect("k");
            let pair: usize = pair.parse().expect("pair");
            let t = terrain_1024();
            Box::new(move || {
                let r = single_route(t, k, pair).0;
                r.map_or(f64::NAN, |r| r.cost)
            })
        }
        _ => panic!("unknown case {id}"),
    }
}

/// Start and goal cells of route pair `p` on terrain `t` (clamped to the grid).
fn pair_cells(t: &WorldGrid, p: usize) -> ((usize, usize), (usize, usize)) {
    let (a, b) = ROUTE_PAIRS[p];
    let c = |(x, y): (usize, usize)| (x.min(t.nx - 1), y.min(t.ny - 1));
    (c(a), c(b))
}

/// The least-cost route of pair `p` with mask radius `k` and the default cost (no reuse, no
/// curvature), and its wall time in seconds (the level multipliers are part of the time).
fn single_route(t: &WorldGrid, k: usize, p: usize) -> (Option<bozkir_world::roads::Route>, f64) {
    let (start, goal) = pair_cells(t, p);
    let t0 = Instant::now();
    let field = CostField { nx: t.nx, ny: t.ny, res: t.dx, height: &t.height, water: &t.water_depth, trees: None };
    let params = RoadParams { mask_radius: k, ..RoadParams::default() };
    let cost = params.cost();
    let mask = SegmentMask::new(k, t.dx);
    let level = level_multipliers(&field, &cost);
    let opts = SearchOptions { level: Some(&level), ..Default::default() };
    let r = least_cost_path(&field, &cost, &mask, start, goal, opts).ok();
    (r, t0.elapsed().as_secs_f64())
}

/// Peak and current resident set of this process, KiB (`VmHWM`, `VmRSS`).
fn rss_kib() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        s.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// A float64 `.npy` (format 1.0) of `ny × nx` values.
fn write_npy(path: &std::path::Path, ny: usize, nx: usize, v: &[f64]) -> std::io::Result<()> {
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({ny}, {nx}), }}");
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + v.len() * 8);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(path, out)
}

/// `BOZKIR_WORLD_EXPORT`: the terrain and our single routes for the peer script.
fn export(dir: &str) {
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).expect("export dir");
    let t = terrain_1024();
    write_npy(&dir.join("terrain_1024_height.npy"), t.ny, t.nx, &t.height).expect("write height");
    write_npy(&dir.join("terrain_1024_water.npy"), t.ny, t.nx, &t.water_depth).expect("write water");
    let mut routes = Vec::new();
    for k in [1usize, 5] {
        for p in 0..ROUTE_PAIRS.len() {
            let mut times = Vec::new();
            let mut route = None;
            for _ in 0..5 {
                let (r, s) = single_route(t, k, p);
                times.push(s);
                route = r;
            }
            times.sort_by(f64::total_cmp);
            let (start, goal) = pair_cells(t, p);
            let entry = match route {
                Some(r) => json!({
                    "k": k, "pair": p, "start": [start.0, start.1], "goal": [goal.0, goal.1],
                    "cells": r.cells.iter().map(|c| [c.0, c.1]).collect::<Vec<_>>(),
                    "cost": r.cost, "expanded": r.expanded,
                    "median_s": times[2], "best_s": times[0],
                }),
                None => {
                    json!({"k": k, "pair": p, "start": [start.0, start.1], "goal": [goal.0, goal.1], "cells": null})
                }
            };
            eprintln!(
                "route k={k} pair {p}: {} waypoints, median {:.4} s",
                entry["cells"].as_array().map_or(0, |c| c.len()),
                times[2]
            );
            routes.push(entry);
        }
    }
    let doc = json!({
        "terrain": "composite atlas (pyworldgen compat) 1024x1024 at 2 m, roads and forest off",
        "res": t.dx, "nx": t.nx, "ny": t.ny,
        "cost": serde_json::to_value(RoadParams::default().cost_fields()).expect("cost"),
        "routes": routes,
    });
    std::fs::write(dir.join("routes.json"), serde_json::to_string_pretty(&doc).expect("json")).expect("write routes");
    eprintln!("exported to {}", dir.display());
}

/// The default cost parameters by name (for the peer's isotropic cost grid).
trait CostFields {
    fn cost_fields(&self) -> BTreeMap<&'static str, f64>;
}

impl CostFields for RoadParams {
    fn cost_fields(&self) -> BTreeMap<&'static str, f64> {
        BTreeMap::from([
            ("base", self.base),
            ("slope_weight", self.slope_weight),
            ("max_grade", self.max_grade),
            ("water_weight", self.water_weight),
            ("max_water_depth", self.max_water_depth),
            ("bridge_cost", if self.allow_bridges { self.bridge_cost } else { f64::INFINITY }),
        ])
    }
}

/// `BOZKIR_WORLD_RSS`: `BOZKIR_WORLD_REPS` runs (default 1) of one case with its peak memory.
fn rss_run(id: &str) {
    let reps: usize = std::env::var("BOZKIR_WORLD_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let mut run = case(id);
    let (after_setup, _) = rss_kib();
    let mut times = Vec::new();
    let mut out = Ok(0.0);
    for _ in 0..reps {
        let t = Instant::now();
        out = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(&mut run)) {
            Ok(v) => Ok(v),
            Err(e) => Err(e.downcast_ref::<String>().cloned().unwrap_or_else(|| "panicked".into())),
        };
        times.push(t.elapsed().as_secs_f64());
        if out.is_err() {
            break;
        }
    }
    let (peak, now) = rss_kib();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let line = match out {
        Ok(v) => json!({"case": id, "secs": sorted[sorted.len() / 2], "times_s": times, "best_s": sorted[0],
                        "vmhwm_kib": peak, "vmhwm_after_setup_kib": after_setup, "vmrss_kib": now, "check": v}),
        Err(e) => json!({"case": id, "error": e}),
    };
    println!("{line}");
}

fn main() {
    if std::env::var_os("BOZKIR_WORLD_LIST").is_some() {
        for id in case_ids() {
            println!("{id}");
        }
        return;
    }
    if let Ok(id) = std::env::var("BOZKIR_WORLD_RSS") {
        rss_run(&id);
        return;
    }
    if let Ok(dir) = std::env::var("BOZKIR_WORLD_EXPORT") {
        export(&dir);
        return;
    }
    // The full oriented search at 1024² is refused (too many states): record the message.
    match generate_roads(terrain_1024(), &seed(), Compat::Pyworldgen, &curved(0.0)) {
        Ok(_) => println!("curvature full search at 1024²: accepted"),
        Err(e) => println!("curvature full search at 1024²: refused: {e}"),
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let ids = case_ids();
    let mut groups: Vec<&str> = ids.iter().map(|i| i.split_once('/').expect("group").0).collect();
    groups.dedup();
    for g in groups {
        let mut grp = c.benchmark_group(g);
        grp.sample_size(10);
        for id in ids.iter().filter(|i| i.starts_with(&format!("{g}/")) && !heavy(i)) {
            let name = id.split_once('/').expect("group").1;
            let mut run: Option<Run> = None;
            grp.bench_function(name, |b| {
                let r = run.get_or_insert_with(|| case(id));
                b.iter(|| black_box(r()))
            });
        }
        grp.finish();
    }
    c.final_summary();
}
