//! The ds2 recipe's first stream-power stage on the GPU, phase by phase: builds the terrain the
//! stage receives (the recipe's first three stages on its 1400 m world at `size`²), then times
//! the device's ε fill and `steps` steps with a wait after each phase (`GpuStreamPower::step_timed`).
//! `cargo run --release -p bozkir --example ds2_phases -- 8192 6 [typed rounds]`. Not a test.

use bozkir_core::NoProgress;
use bozkir_recipe::builtin::builtin;
use bozkir_terrain::erosion::stream_power::StreamPowerParams;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let size: usize = a.get(1).and_then(|v| v.parse().ok()).unwrap_or(1024);
    let steps: usize = a.get(2).and_then(|v| v.parse().ok()).unwrap_or(5);
    let typed: Option<usize> = a.get(3).and_then(|v| v.parse().ok());
    let mut r = builtin("ds2").expect("built-in recipe");
    r.stages.truncate(3);
    let cell = 1400.0 / size as f64;
    let g = bozkir_recipe::run::run(&r, size, cell, 0, &NoProgress, |_| {}).expect("ds2 stages 1-3").height;
    let gpu = match bozkir_gpu::Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!("device: {}; ds2 stages 1-3 at {size}² ({cell} m cells)", gpu.adapter_name());
    // The recipe's values (ds2.toml, stage 4), with the stage's default uplift map: the height
    // scaled to 0..1.
    let (lo, hi) = g.min_max().expect("heights");
    let umap = g.map(|v| (v - lo) / (hi - lo));
    let p = StreamPowerParams {
        steps: 1,
        k: 0.12,
        dt: 1.0,
        m: 0.5,
        uplift: 0.95,
        uplift_map: Some(umap),
        kappa: 0.0,
        ..Default::default()
    };
    let _ = bozkir_gpu::fill::fill_epsilon(&gpu, &bozkir_core::Grid::new(64, 64, 1.0)); // pipelines
    let t = std::time::Instant::now();
    let (_, passes) = bozkir_gpu::fill::fill_epsilon_passes(&gpu, &g).expect("fill");
    println!("ε fill: {:.1} ms, {passes} passes", t.elapsed().as_secs_f64() * 1e3);
    let mut e = bozkir_gpu::stream_power::GpuStreamPower::new(&gpu, &g, &p).expect("upload");
    if let Some(t) = typed {
        e.set_typed_rounds(t);
        println!("typed rounds: at most {t}");
    }
    for s in 0..steps {
        let (s0, m0) = (e.pass_submissions(), e.moving_pass_pairs());
        let ph = e.step_timed().expect("step");
        let total: f64 = ph.iter().map(|x| x.1).sum();
        println!(
            "step {s}: {total:.1} ms, {} Jacobi submissions, {} moving pairs | {}",
            e.pass_submissions() - s0,
            e.moving_pass_pairs() - m0,
            ph.iter().map(|(k, v)| format!("{k} {v:.1}")).collect::<Vec<_>>().join(", ")
        );
    }
}
