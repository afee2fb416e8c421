//! The ds2 recipe's first stream-power stage on the GPU, phase by phase: runs the recipe's first
//! four stages on its 1400 m world at `size`², and where the fourth (stream power) would run,
//! takes its parameters as the stage builds them (its height uplift map included), times the
//! device's ε fill and `steps` steps with a wait after each phase
//! (`GpuStreamPower::step_timed`), and stops there.
//! `cargo run --release -p bozkir --example ds2_phases -- 8192 6 [typed rounds, e.g. 3,1,0]`: one
//! run of the stage per typed-round count, from the same terrain. Not a test.

use bozkir_core::{Grid, NoProgress, Progress};
use bozkir_gpu::Gpu;
use bozkir_recipe::builtin::builtin;
use bozkir_recipe::Kernels;
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};

/// Times the stream-power stage it is offered instead of running it.
struct Phases {
    gpu: Gpu,
    steps: usize,
    typed: Vec<Option<usize>>,
}

impl Kernels for Phases {
    fn stream_power(
        &self,
        g: &Grid<f64>,
        p: &StreamPowerParams,
        _: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, String> {
        let gpu = &self.gpu;
        let _ = bozkir_gpu::fill::fill_epsilon(gpu, &Grid::new(64, 64, 1.0)); // pipelines
        let t = std::time::Instant::now();
        let (_, passes) = bozkir_gpu::fill::fill_epsilon_passes(gpu, g).map_err(|e| e.to_string())?;
        println!("ε fill: {:.1} ms, {passes} passes", t.elapsed().as_secs_f64() * 1e3);
        let mut out = None;
        for &typed in &self.typed {
            out = Some(self.run(g, p, typed)?);
        }
        Ok(out)
    }
}

impl Phases {
    fn run(&self, g: &Grid<f64>, p: &StreamPowerParams, typed: Option<usize>) -> Result<StreamPowerOutput, String> {
        let mut e = bozkir_gpu::stream_power::GpuStreamPower::new(&self.gpu, g, p).map_err(|e| e.to_string())?;
        if let Some(t) = typed {
            e.set_typed_rounds(t);
            println!("typed rounds: at most {t}");
        }
        for s in 0..self.steps {
            let (s0, m0) = (e.pass_submissions(), e.moving_pass_pairs());
            let ph = e.step_timed().map_err(|e| e.to_string())?;
            let total: f64 = ph.iter().map(|x| x.1).sum();
            println!(
                "step {s}: {total:.1} ms, {} Jacobi submissions, {} moving pairs | {}",
                e.pass_submissions() - s0,
                e.moving_pass_pairs() - m0,
                ph.iter().map(|(k, v)| format!("{k} {v:.1}")).collect::<Vec<_>>().join(", ")
            );
            let tiles = e.take_pair_tiles();
            println!("  tiles moved per pass pair: {tiles:?}");
        }
        e.output().map_err(|e| e.to_string())
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let size: usize = a.get(1).and_then(|v| v.parse().ok()).unwrap_or(1024);
    let steps: usize = a.get(2).and_then(|v| v.parse().ok()).unwrap_or(5);
    let typed: Vec<Option<usize>> = match a.get(3) {
        Some(v) => v.split(',').map(|t| Some(t.parse().expect("typed rounds: a count or a list like 3,1,0"))).collect(),
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
