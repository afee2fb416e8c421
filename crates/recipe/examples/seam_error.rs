//! The seam error of a tiled world against the same world computed untiled (docs/scale.md).
//!
//! ```sh
//! cargo run --release -p bozkir-recipe --example seam_error -- [SIZE] [TILE] [COARSE] [EXTRA_HALOS]
//! cargo run --release -p bozkir-recipe --example seam_error -- 2049 512 513 0,16,32,64,128
//! ```
//!
//! For each extra halo (cells added to the stages' exact reach), the world is assembled from its
//! tiles and compared with the untiled run: RMS and largest difference (as shares of the relief),
//! the share of cells more than 1 cm off, the mean slope within 2 cells of a tile border over the
//! mean slope elsewhere, and that band's mean slope over the same band's in the untiled world (the
//! seam alone: a few lines across a correlated terrain differ from the whole by chance, as the
//! untiled row shows). Uses the built-in `highlands` recipe, seed 3.

use bozkir_core::NoProgress;
use bozkir_recipe::tiled::{border_band_slopes, TiledPlan};
use bozkir_terrain::kernels::Cpu;

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args()
        .nth(i)
        .map(|s| s.parse().unwrap_or_else(|_| panic!("argument {i}: cannot read {s:?}")))
        .unwrap_or(default)
}

fn main() {
    let size: usize = arg(1, 2049);
    let tile: usize = arg(2, 512);
    let coarse: usize = arg(3, 513);
    let extras: Vec<usize> = arg(4, "0,16,32,64,128".to_string())
        .split(',')
        .map(|s| s.trim().parse().expect("EXTRA_HALOS: comma-separated cell counts"))
        .collect();
    let recipe = bozkir_recipe::builtin::builtin("highlands").expect("highlands");
    let base = TiledPlan::new(&recipe, size, tile, Some(0), Some(coarse), None, 3).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let coarse_grid = base.coarse_pass(&NoProgress, &Cpu).expect("coarse pass");
    let untiled = base.untiled(&NoProgress, &Cpu).expect("untiled").height;
    let (lo, hi) = untiled.min_max().expect("finite heights");
    let relief = hi - lo;
    println!(
        "highlands {size}² ({coarse}² coarse ×{}), cells of {} m, tiles of {tile}², reach {} cells, relief {relief:.1} m; untiled in {:.1} s",
        base.factor,
        base.cell,
        base.reach,
        t0.elapsed().as_secs_f64()
    );
    println!(
        "| halo (reach + extra) | RMS / relief | max |Δ| / relief | cells off > 1 cm | border-band slope / interior | border-band slope, tiled / untiled |"
    );
    println!("|---|---|---|---|---|---|");
    let (untiled_band, untiled_rest) = border_band_slopes(&untiled, tile);
    println!("| untiled (the same band) | — | — | — | {:.4} | 1 |", untiled_band / untiled_rest);
    for extra in extras {
        let plan = TiledPlan::new(&recipe, size, tile, Some(base.reach + extra), Some(coarse), None, 3)
            .unwrap_or_else(|e| panic!("{e}"));
        let tiled = plan.assemble(&coarse_grid, &NoProgress, &Cpu).expect("tiles");
        let (mut sq, mut max, mut off) = (0.0f64, 0.0f64, 0usize);
        for (a, b) in tiled.data().iter().zip(untiled.data()) {
            let d = (a - b).abs();
            sq += d * d;
            max = max.max(d);
            off += usize::from(d > 0.01);
        }
        let n = tiled.data().len() as f64;
        let (band, rest) = border_band_slopes(&tiled, tile);
        let ratio = band / rest;
        println!(
            "| {} ({} + {extra}) | {:.2e} | {:.2e} | {:.2} % | {:.4} | {:.4} |",
            plan.halo,
            base.reach,
            (sq / n).sqrt() / relief,
            max / relief,
            100.0 * off as f64 / n,
            ratio,
            band / untiled_band
        );
    }
}
