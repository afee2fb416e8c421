//! `bozkir world`: pyworldgen's generators by name (`list`, `flat`, `landscape`, `roads`,
//! `composite`, `forest`, `implicit_cave`, `voxels`), and `regen` from a `world.json`. Every argument is checked, the spec resolved
//! and the budget checked before the output folder is touched.

use super::{load_dem, read_terrain_folder, MAX_TERRAIN_SIZE};
use crate::outputs::{commit, Staging};
use crate::progress::Bar;
use anyhow::{bail, Context, Result};
use bozkir_pipeline::views::{write_views, ViewKind, ViewsRequest};
use bozkir_pipeline::world::{check_request, generate_world, WorldRequest, WORLD_JSON};
use bozkir_world::compose::{Palette, PaletteSpec};
use bozkir_world::product::{generator, WorldSpec, GENERATORS, WORLD_VERSION};
use bozkir_world::{Compat, Seed, WorldGrid};
use serde_json::{Map, Value};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: WorldCmd,
}

#[derive(clap::Subcommand)]
enum WorldCmd {
    /// List the generators (pyworldgen's names) and which ones this build has.
    List,
    /// Flat terrain (exactly flat by default; tilt with slope_x/slope_y, undulation_amp).
    Flat(GenArgs),
    /// Plain with rivers and ponds.
    Landscape(GenArgs),
    /// Least-cost road network over a flat base, or over a terrain folder or DEM (`--on`).
    Roads(RoadsArgs),
    /// Multi-biome world: blended terrain, colours, roads and trees.
    Composite(GenArgs),
    /// Power-diagram forest: tree sites, crowns owning the canopy, branch graphs, canopy roof.
    Forest(GenArgs),
    /// Implicit cave sampled into blocks: block and smooth meshes, .vox, region file, preview.
    #[command(name = "implicit_cave", alias = "implicit-cave")]
    ImplicitCave(GenArgs),
    /// Chunked voxel world (pyworldgen's passes) over a box of chunks (`--chunks`, or
    /// --param chunks_from=[-2,-1,-2] --param chunks_to=[1,0,1]; --param chunk_size=32).
    Voxels(VoxelArgs),
    /// Regenerate a world from its `world.json`, byte for byte.
    Regen(RegenArgs),
}

#[derive(clap::Args, Clone)]
struct GenArgs {
    /// Seed: an integer or a string (`rhine`, `atlas`).
    #[arg(long, default_value = "0")]
    seed: String,
    /// Cells per side (sets domain_size to size × resolution on both axes). Default: the
    /// generator's own domain_size.
    #[arg(long)]
    size: Option<usize>,
    /// Whose randomness: pyworldgen's (the peer's worlds) or bozkir's canonical hash.
    #[arg(long, value_enum, default_value_t = CompatArg::Pyworldgen)]
    compat: CompatArg,
    /// A generator parameter, pyworldgen's name: `--param undulation_amp=1.5`,
    /// `--param domain_size=[200,120]` (values are JSON; other text is a string). Repeatable.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// `composite` only: a palette file (TOML `[[biome]]` tables, or JSON `{"biome": [...]}`
    /// for a `.json` file): name, profile (water, plains, forest, hills, mountains,
    /// profile:NAME, recipe:NAME), color, tree_density, niche. Recorded in world.json.
    #[arg(long, value_name = "FILE")]
    palette: Option<PathBuf>,
    /// Also write views into `OUT/views/`: `all`, or a list of still, turntable, points,
    /// splats, voxels (`still.png`, `turntable.gif`, `points.ply`, `splats.ply`, `voxels.vox`).
    #[arg(long, value_name = "all|LIST")]
    views: Option<String>,
    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args, Clone)]
struct RoadsArgs {
    #[command(flatten)]
    gen: GenArgs,
    /// Lay the roads over an existing terrain folder or DEM instead of a flat base.
    #[arg(long, value_name = "DIR|DEM")]
    on: Option<PathBuf>,
}

#[derive(clap::Args, Clone)]
struct VoxelArgs {
    #[command(flatten)]
    gen: GenArgs,
    /// The box of chunks, first and last inclusive: `X0,Y0,Z0:X1,Y1,Z1` (chunk coordinates, y
    /// up), e.g. `-2,-1,-2:1,0,1` (the default).
    #[arg(long, value_name = "X0,Y0,Z0:X1,Y1,Z1")]
    chunks: Option<String>,
    /// Build the terrain from an existing terrain folder or DEM instead of pyworldgen's noise
    /// (blocks of `--param block_size=M` metres, y = 0 at its lowest point or `--param datum=M`).
    #[arg(long, value_name = "DIR|DEM")]
    on: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RegenArgs {
    /// The `world.json` of a world folder.
    spec: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::ValueEnum, Clone, Copy)]
enum CompatArg {
    Pyworldgen,
    Canonical,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    match a.cmd {
        WorldCmd::List => {
            list();
            Ok(())
        }
        WorldCmd::Flat(g) => generate("flat", &g, quiet),
        WorldCmd::Landscape(g) => generate("landscape", &g, quiet),
        WorldCmd::Composite(g) => generate("composite", &g, quiet),
        WorldCmd::Forest(g) => generate("forest", &g, quiet),
        WorldCmd::ImplicitCave(g) => generate("implicit_cave", &g, quiet),
        WorldCmd::Voxels(v) => {
            let mut g = v.gen.clone();
            if let Some(c) = &v.chunks {
                let (from, to) = parse_chunk_box(c)?;
                if g.params.iter().any(|p| p.starts_with("chunks_from") || p.starts_with("chunks_to")) {
                    bail!("--chunks and --param chunks_from/chunks_to both set the box; give one");
                }
                g.params.push(format!("chunks_from=[{},{},{}]", from[0], from[1], from[2]));
                g.params.push(format!("chunks_to=[{},{},{}]", to[0], to[1], to[2]));
            }
            match &v.on {
                Some(on) => voxels_on(on, &g, quiet),
                None => generate("voxels", &g, quiet),
            }
        }
        WorldCmd::Roads(r) => match &r.on {
            Some(on) => roads_on(on, &r.gen, quiet),
            None => generate("roads", &r.gen, quiet),
        },
        WorldCmd::Regen(r) => regen(&r, quiet),
    }
}

fn list() {
    println!("{:<14} {:<10} {:<10} description", "generator", "kind", "status");
    for g in GENERATORS {
        let status = if g.available { "available" } else { "not yet" };
        println!("{:<14} {:<10} {:<10} {}", g.name, g.kind, status, g.description);
        if !g.available {
            continue;
        }
        // Its parameters with their defaults (pyworldgen's names), wrapped.
        let Ok(spec) = WorldSpec::resolve(g.name, Seed::Int(0), Compat::Pyworldgen, &Map::new()) else { continue };
        let mut line = String::from("   ");
        for (k, v) in &spec.parameters {
            let item = format!(" {k}={v}");
            if line.len() + item.len() > 100 {
                println!("{line}");
                line = String::from("   ");
            }
            line.push_str(&item);
        }
        if !line.trim().is_empty() {
            println!("{line}");
        }
    }
}

/// The parameter overrides of `--size` and `--param`, every value checked.
fn overrides(g: &GenArgs) -> Result<Map<String, Value>> {
    let mut m = Map::new();
    for p in &g.params {
        let Some((k, v)) = p.split_once('=') else {
            bail!("--param {p:?}: expected NAME=VALUE (e.g. --param undulation_amp=1.5)");
        };
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() {
            bail!("--param {p:?}: the parameter name is empty");
        }
        let value = match serde_json::from_str::<Value>(v) {
            Ok(j) => j,
            Err(_) => match v.parse::<f64>() {
                Ok(x) if !x.is_finite() => bail!("--param {k}={v}: must be a finite number"),
                _ => Value::String(v.to_string()),
            },
        };
        if m.insert(k.to_string(), value).is_some() {
            bail!("--param {k} is given twice");
        }
    }
    if let Some(n) = g.size {
        if !(2..=MAX_TERRAIN_SIZE).contains(&n) {
            bail!("--size must be 2..={MAX_TERRAIN_SIZE} cells per side, got {n}");
        }
        if m.contains_key("domain_size") {
            bail!("--size and --param domain_size both set the extent; give one");
        }
        let res = match m.get("resolution") {
            Some(Value::Number(r)) => r.as_f64().unwrap_or(f64::NAN),
            Some(other) => bail!("--param resolution={other}: must be a number of metres"),
            None => 2.0,
        };
        let (lo, hi) = bozkir_world::product::RESOLUTION_RANGE_M;
        if !(res.is_finite() && (lo..=hi).contains(&res)) {
            bail!("--param resolution={res}: must be {lo}..={hi} metres per cell");
        }
        let side = n as f64 * res;
        m.insert("domain_size".into(), serde_json::json!([side, side]));
    }
    Ok(m)
}

/// `X0,Y0,Z0:X1,Y1,Z1` as two chunk coordinates.
fn parse_chunk_box(text: &str) -> Result<([i32; 3], [i32; 3])> {
    let bad = || anyhow::anyhow!("--chunks {text:?}: expected X0,Y0,Z0:X1,Y1,Z1 (integers, e.g. -2,-1,-2:1,0,1)");
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let three = |t: &str| -> Result<[i32; 3]> {
        let v: Vec<i32> =
            t.split(',').map(|x| x.trim().parse::<i32>()).collect::<std::result::Result<_, _>>().map_err(|_| bad())?;
        <[i32; 3]>::try_from(v).map_err(|_| bad())
    };
    Ok((three(a)?, three(b)?))
}

fn generate(name: &str, g: &GenArgs, quiet: bool) -> Result<()> {
    let info = generator(name)?;
    if !info.available {
        bail!("world {name}: not available yet: {}", info.description);
    }
    if g.size.is_some() && bozkir_world::product::is_volume(name) {
        bail!("world {name}: --size does not apply to a 3-D world (implicit_cave: --param length=…, resolution=…; voxels: --param chunks_from/chunks_to)");
    }
    let mut spec = WorldSpec::resolve(name, Seed::parse(&g.seed), compat(g.compat), &overrides(g)?)
        .with_context(|| format!("world {name}"))?;
    if let Some(path) = &g.palette {
        if name != "composite" {
            bail!("world {name}: --palette applies to `composite` only");
        }
        spec = spec.with_palette(read_palette(path)?).with_context(|| format!("{}", path.display()))?;
    }
    run_spec(spec, None, &g.out, g.views.as_deref(), quiet)
}

/// A palette file: JSON when its name ends in `.json`, TOML otherwise; unknown keys and bad
/// values are refused with the file's name (and the line, from the parser).
fn read_palette(path: &std::path::Path) -> Result<PaletteSpec> {
    let text = std::fs::read_to_string(path).with_context(|| format!("--palette {}: cannot read", path.display()))?;
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let palette = if json { Palette::from_json(&text) } else { Palette::from_toml(&text) };
    Ok(palette.with_context(|| format!("--palette {}", path.display()))?.to_spec())
}

fn compat(c: CompatArg) -> Compat {
    match c {
        CompatArg::Pyworldgen => Compat::Pyworldgen,
        CompatArg::Canonical => Compat::Canonical,
    }
}

/// The terrain folder or DEM `on` as a world grid (row 0 south).
fn base_terrain(on: &std::path::Path) -> Result<WorldGrid> {
    let grid = if on.is_dir() {
        read_terrain_folder(on, "world roads --on")?.1
    } else {
        load_dem(on, crate::args::Voids::Crop)?.0
    };
    Ok(WorldGrid::from_grid(&grid))
}

fn roads_on(on: &std::path::Path, g: &GenArgs, quiet: bool) -> Result<()> {
    if g.palette.is_some() {
        bail!("world roads: --palette applies to `composite` only");
    }
    if g.size.is_some() {
        bail!("world roads --on: --size does not apply (the terrain has its own size)");
    }
    let base = base_terrain(on)?;
    let on_text = on.to_str().with_context(|| format!("{}: not a UTF-8 path", on.display()))?;
    let spec = WorldSpec::resolve_on(Seed::parse(&g.seed), compat(g.compat), &overrides(g)?, on_text)
        .context("world roads --on")?;
    run_spec(spec, Some(base), &g.out, g.views.as_deref(), quiet)
}

fn voxels_on(on: &std::path::Path, g: &GenArgs, quiet: bool) -> Result<()> {
    if g.size.is_some() {
        bail!("world voxels --on: --size does not apply (use --chunks and --param block_size)");
    }
    let base = base_terrain(on)?;
    let on_text = on.to_str().with_context(|| format!("{}: not a UTF-8 path", on.display()))?;
    let spec = WorldSpec::resolve_volume_on("voxels", Seed::parse(&g.seed), compat(g.compat), &overrides(g)?, on_text)
        .context("world voxels --on")?;
    run_spec(spec, Some(base), &g.out, g.views.as_deref(), quiet)
}

fn regen(r: &RegenArgs, quiet: bool) -> Result<()> {
    let text = std::fs::read_to_string(&r.spec).with_context(|| format!("{}: cannot read", r.spec.display()))?;
    let spec = WorldSpec::from_json(&text)
        .and_then(WorldSpec::settled)
        .with_context(|| format!("{}: not a world spec", r.spec.display()))?;
    if spec.version != WORLD_VERSION {
        eprintln!(
            "warning: {} was written by bozkir-world {}, this is {WORLD_VERSION}: the files may differ from the original's",
            r.spec.display(),
            spec.version
        );
    }
    let base = match &spec.on {
        Some(on) => Some(base_terrain(std::path::Path::new(on))?),
        None => None,
    };
    run_spec(spec, base, &r.out, None, quiet)
}

/// Budget check, then generate into a staging folder and publish it.
fn run_spec(
    spec: WorldSpec,
    base: Option<WorldGrid>,
    out: &std::path::Path,
    views: Option<&str>,
    quiet: bool,
) -> Result<()> {
    let views = views.map(ViewKind::parse_list).transpose()?;
    let req = WorldRequest { spec, base };
    let (nx, ny) = check_request(&req)?;
    let volume = bozkir_world::product::is_volume(&req.spec.generator);
    let st = Staging::new(out)?.expecting(&[
        "terrain.json",
        WORLD_JSON,
        "preview.png",
        "height.tif",
        "ground.glb",
        "volume.json",
        "blocks.glb",
    ])?;
    let bar = Bar::new(quiet);
    let mut outcome = generate_world(&req, st.path(), &bar)?;
    if let Some(kinds) = views {
        let vr = ViewsRequest { kinds, ..ViewsRequest::default() };
        outcome.files.extend(write_views(st.path(), &vr, &bar)?);
    }
    let timings = bar.timings();
    bar.finish();
    commit(st)?;
    let s = &req.spec;
    if volume {
        let d = s.volume_dims()?;
        println!(
            "world {} seed {} ({}): {}×{}×{} blocks, solid from {:.2} to {:.2} m; {}",
            s.generator,
            s.seed,
            s.compat.name(),
            d[0],
            d[1],
            d[2],
            outcome.range_m.0,
            outcome.range_m.1,
            outcome.files.join(", ")
        );
        let parts: Vec<String> = timings.iter().map(|(n, d)| format!("{n} {:.2} s", d.as_secs_f64())).collect();
        println!("timings  {}", parts.join(", "));
        return Ok(());
    }
    println!(
        "world {} seed {} ({}): {nx}×{ny} cells, heights {:.2}..{:.2} m; {} roads, {} rivers, {} trees",
        s.generator,
        s.seed,
        s.compat.name(),
        outcome.range_m.0,
        outcome.range_m.1,
        outcome.counts.0,
        outcome.counts.1,
        outcome.counts.2
    );
    if !outcome.unrouted.is_empty() {
        println!("note: {} hub pair(s) have no road (every route blocked):", outcome.unrouted.len());
        for u in &outcome.unrouted {
            println!("  {u}");
        }
    }
    let parts: Vec<String> = timings.iter().map(|(n, d)| format!("{n} {:.2} s", d.as_secs_f64())).collect();
    println!("timings  {}", parts.join(", "));
    Ok(())
}
