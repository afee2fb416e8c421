//! The ds2 recipe's first stream-power stage on the GPU, phase by phase: runs the recipe's first
//! four stages on its 1400 m world at `size`², and where the fourth (stream power) would run,
//! takes its parameters as the stage builds them (its height uplift map included), times the
//! device's ε fill and `steps` steps with a wait after each phase
//! (`GpuStreamPower::step_timed`), and stops there.
//! `cargo run --release -p bozkir --example ds2_phases -- 8192 6 [configs, e.g. 3,0,3:4,2:8]`: one
//! run of the stage per config, from the same terrain: a number is a count of typed rounds
//! (`GpuStreamPower::set_typed_rounds`), `P:R` the pass typing's pairs and rounds
//! (`GpuStreamPower::set_pass_typing`; `0:0`… `1:0` is passes only). Not a test.

use bozkir_core::{Grid, NoProgress, Progress};
use bozkir_gpu::Gpu;
use bozkir_recipe::builtin::builtin;
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::kernels::{KernelError, KernelKind, Kernels};

/// Times the stream-power stage it is offered instead of running it.
struct Phases {
    gpu: Gpu,
    steps: usize,
    typed: Vec<Option<Config>>,
}

/// A run's clamp settings: typed rounds, or the pass typing's pairs and rounds.
#[derive(Clone, Copy, Debug)]
enum Config {
    Typed(usize),
    PassTyping(usize, usize),
}

impl Kernels for Phases {
    fn stream_power(
        &self,
        g: &Grid<f64>,
        p: &StreamPowerParams,
        _: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, KernelError> {
        let failed = |e: String| KernelError::new(KernelKind::StreamPower, e);
        let gpu = &self.gpu;
        let _ = bozkir_gpu::fill::fill_epsilon(gpu, &Grid::new(64, 64, 1.0)); // pipelines
        let t = std::time::Instant::now();
        let (_, passes) = bozkir_gpu::fill::fill_epsilon_passes(gpu, g).map_err(|e| failed(e.to_string()))?;
        println!("ε fill: {:.1} ms, {passes} passes", t.elapsed().as_secs_f64() * 1e3);
        let mut out = None;
        for &typed in &self.typed {
            out = Some(self.run(g, p, typed).map_err(failed)?);
        }
        Ok(out)
    }
}

impl Phases {
    fn run(&self, g: &Grid<f64>, p: &StreamPowerParams, typed: Option<Config>) -> Result<StreamPowerOutput, String> {
        let mut e = bozkir_gpu::stream_power::GpuStreamPower::new(&self.gpu, g, p).map_err(|e| e.to_string())?;
        match typed {
            Some(Config::Typed(t)) => {
                e.set_typed_rounds(t);
                println!("typed rounds: at most {t}");
            }
            Some(Config::PassTyping(pairs, rounds)) => {
                e.set_pass_typing(pairs, rounds);
                println!("pass typing: {pairs} pairs, {rounds} rounds");
            }
            None => {}
        }
        let t0 = std::time::Instant::now();
        for s in 0..self.steps {
            let _ = self.gpu.profile_dispatches();
            let (s0, m0, y0) = (e.pass_submissions(), e.moving_pass_pairs(), e.typed_solves());
            let ph = e.step_timed().map_err(|e| e.to_string())?;
            let total: f64 = ph.iter().map(|x| x.1).sum();
            println!(
                "step {s}: {total:.1} ms, {} Jacobi submissions, {} moving pairs, {} typed solves | {}",
                e.pass_submissions() - s0,
                e.moving_pass_pairs() - m0,
                e.typed_solves() - y0,
                ph.iter().map(|(k, v)| format!("{k} {v:.1}")).collect::<Vec<_>>().join(", ")
            );
            let tiles = e.take_pair_tiles();
            println!("  tiles moved per pass pair: {tiles:?}");
            // With BOZKIR_GPU_PROFILE=1: device time by kernel, and each tile pass's.
            if let Ok(Some(raw)) = self.gpu.profile_dispatches() {
                let by = bozkir_gpu::by_kernel(&raw);
                let total: f64 = by.iter().map(|r| r.2).sum();
                println!(
                    "  device {total:.2} ms: {}",
                    by.iter().take(12).map(|(k, c, ms)| format!("{k} ×{c} {ms:.2}")).collect::<Vec<_>>().join(", ")
                );
                let us: Vec<String> = raw
                    .iter()
                    .filter(|r| r.0.starts_with("refine_") || r.0.starts_with("classify") || r.0 == "tm_local_ab")
                    .map(|r| format!("{}{:.0}", &r.0[..1], r.1 * 1e3))
                    .collect();
                println!("  refine passes (r), typing (c) and affine local solves (t), µs: {}", us.join(" "));
            }
        }
        let out = e.output().map_err(|e| e.to_string())?;
        // One step: the CPU's step too, and the largest difference.
        if self.steps == 1 {
            let p1 = StreamPowerParams { steps: 1, ..p.clone() };
            let cpu = bozkir_terrain::erosion::stream_power::stream_power(g, &p1, &NoProgress);
            let dh = out.height.data().iter().zip(cpu.height.data()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            println!("one step: largest |GPU − CPU| height {dh:e} m");
        }
        println!("{typed:?}: {} steps and the read-back in {:.1} ms", self.steps, t0.elapsed().as_secs_f64() * 1e3);
        Ok(out)
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let size: usize = a.get(1).and_then(|v| v.parse().ok()).unwrap_or(1024);
    let steps: usize = a.get(2).and_then(|v| v.parse().ok()).unwrap_or(5);
    let typed: Vec<Option<Config>> = match a.get(3) {
        Some(v) => v
            .split(',')
            .map(|t| {
                let bad = "configs: typed rounds or pass pairs:rounds, e.g. 3,0,3:4,2:8";
                Some(match t.split_once(':') {
                    Some((p, r)) => Config::PassTyping(p.parse().expect(bad), r.parse().expect(bad)),
                    None => Config::Typed(t.parse().expect(bad)),
                })
            })
            .collect(),
        None => vec![None],
    };
    let mut r = builtin("ds2").expect("built-in recipe");
    r.stages.truncate(4);
    assert_eq!(r.stages[3].op.name(), "stream_power", "ds2's fourth stage");
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    let cell = 1400.0 / size as f64;
    println!("device: {}; ds2 stages 1-4 at {size}² ({cell} m cells)", gpu.adapter_name());
    let k = Phases { gpu, steps, typed };
    bozkir_recipe::run::run_with(&r, size, cell, 0, &NoProgress, &k, |_| {}).expect("ds2 stages 1-4");
}
