//! `bozkir lab`: replays a session of the live erosion page (`erode.html`) natively. The page
//! shows this command as its recipe line; run here, it writes the heights the page exported,
//! code for code: the same terrain (`profiles::generate`, metres as `f32`), then each logged
//! run through the CPU reference of the browser's `f32` kernels
//! (`bozkir_gpu::browser::droplets_f32_reference`, `thermal_f32_reference`), which the page's
//! WebGPU runs equal bit for bit.

use crate::outputs::{finish, write_height, Staging};
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_core::Grid;
use bozkir_io::{Encoding, Sidecar};
use std::path::PathBuf;

/// Metres across the page's terrains (`bozkir terrain`'s default of 512 cells of 10 m): the
/// default `--cell-size` is this over `--size`.
pub const LAB_EXTENT_M: f64 = 5120.0;
/// The sizes the page offers.
pub const LAB_SIZES: [usize; 5] = [64, 128, 256, 512, 1024];
/// Metres from the lowest to the highest point of a generated terrain (the page's and
/// `bozkir terrain`'s default height range).
const HEIGHT_RANGE_M: f64 = 1000.0;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Terrain profile (`bozkir profiles` lists them).
    #[arg(long, default_value = "alpine")]
    pub profile: String,
    /// Terrain seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u32,
    /// Side of the square terrain in cells: 64, 128, 256, 512 or 1024 (the page's sizes).
    #[arg(long, default_value_t = 256)]
    pub size: usize,
    /// Metres per cell, 0.01..=10000 (default: 5120 m over the size, as the page).
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// The runs, in order, comma-separated: `droplets:SEED:COUNT[xREPEAT]` (REPEAT runs of
    /// COUNT droplets with seeds SEED, SEED+1, …), `thermal:TALUS_DEG:RATE:ITERATIONS`, and
    /// `steps:SEED:COUNT:TALUS_DEG:RATE:ITERATIONS[xREPEAT]` (REPEAT page steps, each a droplet
    /// run then thermal iterations). Empty: the terrain as generated.
    #[arg(long, default_value = "")]
    pub ops: String,
    /// Droplets a batch: `auto` (the page's default: one droplet to every 64 cells, the most the
    /// kernel takes) or a whole number 1..=4194304 (seed 001's is 1024), capped as `auto` is.
    /// Each batch runs against the heights the last one left, so the batch changes the result:
    /// the page's recipe line carries it when it is not `auto`.
    #[arg(long, default_value = "auto")]
    pub batch: String,
    /// Output folder.
    #[arg(long, short, default_value = "lab-out")]
    pub out: PathBuf,
}

/// Droplets a batch on `cells` cells for a `--batch` value: `auto` is one droplet to every 64
/// cells (`effective_batch`'s cap, as the page's `autoBatch`), a number is capped by it.
pub fn batch_for(setting: &str, cells: usize) -> Result<u32> {
    use bozkir_terrain::erosion::droplets::effective_batch;
    let asked = match setting.trim() {
        "auto" => u32::MAX,
        v => match v.parse::<u32>() {
            Ok(n) if (1..=4_194_304).contains(&n) => n,
            _ => bail!("--batch must be auto or a whole number 1..=4194304, got {setting:?}"),
        },
    };
    Ok(effective_batch(asked, cells))
}

/// One logged run of the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Droplets {
        seed: u32,
        count: u32,
        repeat: u32,
    },
    Thermal {
        talus: f64,
        rate: f64,
        iterations: usize,
    },
    Steps {
        seed: u32,
        count: u32,
        talus: f64,
        rate: f64,
        iterations: usize,
        water: usize,
        repeat: u32,
    },
    /// Pipe-model steps with rain on the disc of radius `r` cells at (`cx`, `cy`), `inc` metres
    /// of water a step (the page's rain brush).
    Rain {
        cx: usize,
        cy: usize,
        r: usize,
        inc: f32,
        steps: usize,
    },
    /// Pipe-model steps with no rain.
    Flow {
        steps: usize,
    },
}

impl Op {
    /// Kernel runs in the op (a page step is two).
    fn runs(&self) -> u64 {
        match self {
            Op::Droplets { repeat, .. } => u64::from(*repeat),
            Op::Thermal { .. } => 1,
            Op::Steps { repeat, .. } => 2 * u64::from(*repeat),
            Op::Rain { .. } | Op::Flow { .. } => 1,
        }
    }
}

/// Parses `--ops`; errors name the op and what is wrong with it.
pub fn parse_ops(s: &str) -> Result<Vec<Op>> {
    let mut ops = Vec::new();
    for (i, item) in s.split(',').map(str::trim).filter(|t| !t.is_empty()).enumerate() {
        let parts: Vec<&str> = item.split(':').collect();
        let bad = |why: &str| anyhow::anyhow!("--ops item {} {item:?}: {why}", i + 1);
        let expect =
            |n: usize, form: &str| if parts.len() == n { Ok(()) } else { Err(bad(&format!("expected {form}"))) };
        // SEED, then COUNT[xREPEAT] as the last field.
        let drops = |seed: &str, last: &str| -> Result<(u32, u32, u32)> {
            let seed: u32 = seed.parse().map_err(|_| bad("SEED must be an integer 0..=4294967295"))?;
            let (count, repeat) = match last.split_once('x') {
                Some((c, r)) => (c, r.parse::<u32>().map_err(|_| bad("REPEAT must be a positive integer"))?),
                None => (last, 1),
            };
            let count: u32 = count.parse().map_err(|_| bad("COUNT must be an integer 1..=4194304"))?;
            if !(1..=4_194_304).contains(&count) {
                return Err(bad("COUNT must be 1..=4194304"));
            }
            if repeat == 0 || u64::from(seed) + u64::from(repeat) > 1 << 32 {
                return Err(bad("REPEAT must be at least 1, with SEED + REPEAT within u32"));
            }
            Ok((seed, count, repeat))
        };
        let thermal = |talus: &str, rate: &str, iterations: &str| -> Result<(f64, f64, usize)> {
            let talus: f64 = talus.parse().map_err(|_| bad("TALUS_DEG must be a number"))?;
            let rate: f64 = rate.parse().map_err(|_| bad("RATE must be a number"))?;
            let iterations: usize = iterations.parse().map_err(|_| bad("ITERATIONS must be an integer"))?;
            if !(0.0..90.0).contains(&talus) {
                return Err(bad("TALUS_DEG must be in [0, 90)"));
            }
            if !(rate > 0.0 && rate <= 1.0) {
                return Err(bad("RATE must be in (0, 1]"));
            }
            if iterations > 1_000_000 {
                return Err(bad("ITERATIONS must be at most 1000000"));
            }
            Ok((talus, rate, iterations))
        };
        match parts[0] {
            "droplets" => {
                expect(3, "droplets:SEED:COUNT[xREPEAT]")?;
                let (seed, count, repeat) = drops(parts[1], parts[2])?;
                ops.push(Op::Droplets { seed, count, repeat });
            }
            "thermal" => {
                expect(4, "thermal:TALUS_DEG:RATE:ITERATIONS")?;
                let (talus, rate, iterations) = thermal(parts[1], parts[2], parts[3])?;
                ops.push(Op::Thermal { talus, rate, iterations });
            }
            "steps" => {
                expect(7, "steps:SEED:COUNT:TALUS_DEG:RATE:ITERATIONS:WATER_STEPS[xREPEAT]")?;
                let (last, times) = match parts[6].split_once('x') {
                    Some((it, r)) => (it, format!("{}x{r}", parts[2])),
                    None => (parts[6], parts[2].to_string()),
                };
                let (seed, count, repeat) = drops(parts[1], &times)?;
                let (talus, rate, iterations) = thermal(parts[3], parts[4], parts[5])?;
                let water = pipe_steps(last).map_err(|e| bad(&e))?;
                ops.push(Op::Steps { seed, count, talus, rate, iterations, water, repeat });
            }
            "rain" => {
                expect(6, "rain:CX:CY:RADIUS:METRES_PER_STEP:STEPS")?;
                let cell = |v: &str, what: &str| {
                    v.parse::<usize>().map_err(|_| bad(&format!("{what} must be a whole number of cells")))
                };
                let (cx, cy, r) = (cell(parts[1], "CX")?, cell(parts[2], "CY")?, cell(parts[3], "RADIUS")?);
                let inc: f64 = parts[4].parse().map_err(|_| bad("METRES_PER_STEP must be a number"))?;
                if !(inc > 0.0 && inc <= 1.0) {
                    return Err(bad("METRES_PER_STEP must be in (0, 1]"));
                }
                if r == 0 || r > 256 {
                    return Err(bad("RADIUS must be 1..=256 cells"));
                }
                let steps = pipe_steps(parts[5]).map_err(|e| bad(&e))?;
                ops.push(Op::Rain { cx, cy, r, inc: inc as f32, steps });
            }
            "flow" => {
                expect(2, "flow:STEPS")?;
                ops.push(Op::Flow { steps: pipe_steps(parts[1]).map_err(|e| bad(&e))? });
            }
            other => return Err(bad(&format!("unknown run {other:?} (droplets, thermal, steps, rain or flow)"))),
        }
    }
    Ok(ops)
}

/// A count of pipe-model steps.
fn pipe_steps(v: &str) -> std::result::Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n <= 1_000_000 => Ok(n),
        _ => Err(format!("{v:?}: pipe-model steps must be an integer 0..=1000000")),
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let prof = bozkir_terrain::profiles::profile(&a.profile).map_err(|e| anyhow::anyhow!("--profile: {e}"))?;
    if !LAB_SIZES.contains(&a.size) {
        bail!("--size must be one of {LAB_SIZES:?} (the page's sizes), got {}", a.size);
    }
    let cell = a.cell_size.unwrap_or(LAB_EXTENT_M / a.size as f64);
    if !(0.01..=10_000.0).contains(&cell) {
        bail!("--cell-size must be 0.01..=10000 m, got {cell}");
    }
    let batch = batch_for(&a.batch, a.size * a.size)?;
    let ops = parse_ops(&a.ops)?;
    for op in &ops {
        if let Op::Rain { cx, cy, .. } = op {
            if *cx >= a.size || *cy >= a.size {
                bail!("--ops: rain at ({cx}, {cy}) is outside the {0} × {0} grid", a.size);
            }
        }
    }
    let st = Staging::new(&a.out)?.expecting(&["terrain.json", "height.png", "height.tif"])?;
    let bar = Bar::new(quiet);
    bar.stage("generate");
    let t = bozkir_terrain::profiles::generate(a.size, u64::from(a.seed), &prof.params, &bar);
    let z: Vec<f32> = t.height.data().iter().map(|&v| (v * HEIGHT_RANGE_M) as f32).collect();
    let z = replay(z, a.size, cell, batch, &ops, &bar)?;
    let mut st = st;
    let mut g = Grid::from_vec(a.size, a.size, z.iter().map(|&v| f64::from(v)).collect());
    g.dx = cell;
    g.dy = cell;
    let (lo, hi) = write_height(&mut st, "height", "height", &g)?;
    bar.finish();
    let mut sc = Sidecar::new(a.size, a.size, (cell, cell), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir lab".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.seed = Some(u64::from(a.seed));
    sc.backend = "cpu (the browser kernels' f32 reference)".into();
    sc.source = format!("generated {} seed {}", a.profile, a.seed);
    sc.settings.insert("profile".into(), a.profile.clone().into());
    sc.settings.insert("ops".into(), a.ops.trim().into());
    sc.settings.insert("batch".into(), batch.into());
    finish(st, sc)?;
    let runs: u64 = ops.iter().map(Op::runs).sum();
    println!("{} seed {} {}², {runs} runs: heights {:.2} … {:.2} m", a.profile, a.seed, a.size, lo, hi);
    Ok(())
}

/// The runs of `ops` on `z` (`size × size` cells of `cell` metres, row-major), in order, the
/// droplets in batches of `batch` (`batch_for`'s).
#[cfg(feature = "gpu")]
pub fn replay(
    mut z: Vec<f32>,
    size: usize,
    cell: f64,
    batch: u32,
    ops: &[Op],
    progress: &dyn bozkir_core::Progress,
) -> Result<Vec<f32>> {
    use bozkir_gpu::browser::{
        droplets_f32_reference, thermal_f32_reference, thermal_table, DropletsF32, PipeF32, ThermalF32,
    };
    use bozkir_terrain::erosion::droplets::{DropletCount, DropletParams};
    let droplets = |z: Vec<f32>, seed: u32, count: u32| -> Result<Vec<f32>> {
        let mut g = Grid::from_vec(size, size, z.into_iter().map(f64::from).collect());
        g.dx = cell;
        g.dy = cell;
        let params =
            DropletParams { droplets: DropletCount::Total(count), seed, batch_size: batch, ..Default::default() };
        let out = droplets_f32_reference(&DropletsF32::new(&g, &params))
            .map_err(|e| anyhow::anyhow!("droplets seed {seed}: {e}"))?;
        Ok(out.height)
    };
    let thermal = |z: Vec<f32>, talus: f64, rate: f64, iterations: usize| {
        let table = thermal_table(talus, 0.0, cell, cell).map(|v| v as f32);
        thermal_f32_reference(&ThermalF32 {
            width: size,
            height: size,
            z,
            table,
            half_rate: (rate / 2.0) as f32,
            iterations,
        })
    };
    // The page's water: one pipe model whose water, fluxes and sediment live through the run.
    let mut g0 = Grid::from_vec(size, size, z.iter().map(|&v| f64::from(v)).collect());
    g0.dx = cell;
    g0.dy = cell;
    let mut pipe = PipeF32::new(&g0, &bozkir_gpu::browser::page_pipe_params());
    let ks = pipe.u.ks;
    pipe.u.uni = 0;
    let mut water = |z: Vec<f32>, brush: Option<(usize, usize, usize, f32)>, steps: usize| {
        for (i, m) in pipe.maps.iter_mut().enumerate() {
            let inc = brush.map_or(0.0, |(cx, cy, r, inc)| {
                let (dx, dy) = ((i % size) as i64 - cx as i64, (i / size) as i64 - cy as i64);
                if dx * dx + dy * dy < (r * r) as i64 {
                    inc
                } else {
                    0.0
                }
            });
            *m = [inc, ks];
        }
        pipe.b = z;
        pipe.step_reference(steps);
        pipe.b.clone()
    };
    let total: u64 = ops.iter().map(Op::runs).sum();
    let mut done = 0;
    let mut tick = |n: u64| {
        done += n;
        progress.report("runs", done, total);
    };
    for op in ops {
        match *op {
            Op::Droplets { seed, count, repeat } => {
                for r in 0..repeat {
                    z = droplets(z, seed + r, count)?;
                    tick(1);
                }
            }
            Op::Thermal { talus, rate, iterations } => {
                z = thermal(z, talus, rate, iterations);
                tick(1);
            }
            Op::Steps { seed, count, talus, rate, iterations, water: k, repeat } => {
                for r in 0..repeat {
                    z = thermal(droplets(z, seed + r, count)?, talus, rate, iterations);
                    if k > 0 {
                        z = water(z, None, k);
                    }
                    tick(2);
                }
            }
            Op::Rain { cx, cy, r, inc, steps } => {
                z = water(z, Some((cx, cy, r, inc)), steps);
                tick(1);
            }
            Op::Flow { steps } => {
                z = water(z, None, steps);
                tick(1);
            }
        }
    }
    Ok(z)
}

#[cfg(not(feature = "gpu"))]
pub fn replay(
    _z: Vec<f32>,
    _size: usize,
    _cell: f64,
    _batch: u32,
    _ops: &[Op],
    _progress: &dyn bozkir_core::Progress,
) -> Result<Vec<f32>> {
    bail!("bozkir lab needs the browser kernels of bozkir-gpu: build with the `gpu` feature (the default)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_parse_and_bad_ops_are_named() {
        let ops = parse_ops(
            "droplets:1:4096x3, thermal:35:0.2:4,droplets:9:100,steps:4:512:30:0.5:2:3x7,rain:5:6:4:0.05:12,flow:9",
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![
                Op::Droplets { seed: 1, count: 4096, repeat: 3 },
                Op::Thermal { talus: 35.0, rate: 0.2, iterations: 4 },
                Op::Droplets { seed: 9, count: 100, repeat: 1 },
                Op::Steps { seed: 4, count: 512, talus: 30.0, rate: 0.5, iterations: 2, water: 3, repeat: 7 },
                Op::Rain { cx: 5, cy: 6, r: 4, inc: 0.05, steps: 12 },
                Op::Flow { steps: 9 }
            ]
        );
        assert!(parse_ops("").unwrap().is_empty());
        for (bad, says) in [
            ("drizzle:1:2", "unknown run"),
            ("droplets:1", "expected droplets"),
            ("droplets:-1:5", "SEED"),
            ("droplets:1:0", "COUNT must be 1..=4194304"),
            ("droplets:1:5x0", "REPEAT"),
            ("droplets:4294967295:5x2", "within u32"),
            ("thermal:90:0.2:1", "TALUS_DEG must be in [0, 90)"),
            ("thermal:35:0:1", "RATE"),
            ("thermal:35:NaN:1", "RATE"),
            ("thermal:35:0.2", "expected thermal"),
            ("steps:1:5:35:0.2:2", "expected steps"),
            ("steps:1:5:35:0.2:2:0x0", "REPEAT"),
            ("steps:1:5:95:0.2:2:0x3", "TALUS_DEG"),
            ("steps:1:5:35:0.2:2:-1", "pipe-model steps"),
            ("rain:1:2:0:0.05:3", "RADIUS"),
            ("rain:1:2:3:2:3", "METRES_PER_STEP"),
            ("rain:1:2:3:0.05", "expected rain"),
            ("flow:x", "pipe-model steps"),
        ] {
            let e = parse_ops(bad).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains(bad), "{bad}: {e}");
        }
    }
}
