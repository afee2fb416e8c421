//! Tiled runs: exact where the stages' reach is bounded, close where drainage crosses tiles, and
//! refused with a reason where a stage needs the whole field.

use bozkir_core::{Grid, NoProgress};
use bozkir_recipe::tiled::TiledPlan;
use bozkir_recipe::{parse, Cpu, Recipe};

/// Coarse sculpting and stream power, then every bounded stage a tile takes after the upsample.
const EXACT: &str = include_str!("data_tiled_exact.toml");

fn recipe(text: &str) -> Recipe {
    parse(text, "test").unwrap()
}

/// The world assembled from every tile of `plan`.
fn assemble(plan: &TiledPlan) -> Grid<f64> {
    let coarse = plan.coarse_pass(&NoProgress, &Cpu).unwrap();
    let g = plan.assemble(&coarse, &NoProgress, &Cpu).unwrap();
    assert!(g.data().iter().all(|v| v.is_finite()) && g.dx == plan.cell);
    g
}

fn bits(g: &Grid<f64>) -> Vec<u64> {
    g.data().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn bounded_stages_tile_bit_for_bit_at_any_tile_size_and_thread_count() {
    let r = recipe(EXACT);
    // 33 coarse cells × k = 4: 129².
    let whole = TiledPlan::new(&r, 129, 16, None, None, None, 5).unwrap();
    assert!(whole.exact());
    assert_eq!((whole.factor, whole.cell), (4, 5.0));
    // Reach: crags 1 + plates 1 + blur ceil(18/5) = 4 + thermal 2·3.
    assert_eq!(whole.reach, 12);
    assert_eq!(whole.halo, 12);
    let untiled = whole.untiled(&NoProgress, &Cpu).unwrap().height;
    assert_eq!((untiled.width(), untiled.height()), (129, 129));
    for (tile, threads) in [(16, 1), (37, 2), (64, 3), (129, 1), (500, 2)] {
        let plan = TiledPlan::new(&r, 129, tile, None, None, None, 5).unwrap();
        let got = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| assemble(&plan));
        assert_eq!(bits(&got), bits(&untiled), "tile {tile}, {threads} threads");
    }
    // The halo is needed: one cell short, cells near the tile borders differ.
    let short = TiledPlan::new(&r, 129, 37, Some(11), None, None, 5).unwrap();
    assert!(!short.exact());
    let got = assemble(&short);
    let differ = got.data().iter().zip(untiled.data()).filter(|(a, b)| a != b).count();
    assert!(differ > 0, "a halo short of the reach changed nothing");
}

#[test]
fn a_larger_world_keeps_the_coarse_nodes_and_the_extent() {
    let r = recipe(EXACT);
    let p = TiledPlan::new(&r, 257, 100, None, None, None, 5).unwrap();
    assert_eq!((p.factor, p.cell, p.tiles()), (8, 2.5, (3, 3)));
    let coarse = p.coarse_pass(&NoProgress, &Cpu).unwrap();
    assert_eq!((coarse.width(), coarse.dx), (33, 20.0));
    assert!((p.cell * 256.0 - coarse.dx * 32.0).abs() < 1e-9, "same extent at any size");
}

#[test]
fn drainage_after_the_upsample_is_close_and_seamless_at_tile_borders() {
    let r = bozkir_recipe::builtin::builtin("highlands").unwrap();
    // A small coarse pass (65² of 30 m scaled to keep the extent), k = 4: 257².
    let plan = TiledPlan::new(&r, 257, 64, None, Some(65), None, 3).unwrap();
    assert!(plan.drainage && !plan.exact());
    assert_eq!(plan.halo, plan.reach + bozkir_recipe::tiled::DRAINAGE_HALO);
    let tiled = assemble(&plan);
    let untiled = plan.untiled(&NoProgress, &Cpu).unwrap().height;
    // Near a border between tiles (within 2 cells) versus the rest.
    let (band, inner) = bozkir_recipe::tiled::border_band_slopes(&tiled, plan.tile);
    assert!((band / inner - 1.0).abs() < 0.05, "border band slope {band} vs interior {inner}");
    // And close to the untiled world everywhere.
    let relief = untiled.min_max().map(|(a, b)| b - a).unwrap();
    let rms = (tiled.data().iter().zip(untiled.data()).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()
        / tiled.data().len() as f64)
        .sqrt();
    assert!(rms < 1e-3 * relief, "rms {rms} of relief {relief}");
}

#[test]
fn plans_refuse_what_tiles_cannot_do_naming_it() {
    let err =
        |text: &str, size: usize| TiledPlan::new(&recipe(text), size, 64, None, None, None, 0).unwrap_err().to_string();
    let base = "size = 33\ncell_size = 10.0\n[[stage]]\nop = \"noise\"\n";
    assert!(err(base, 129).contains("needs one `upsample` stage"));
    let two = format!("{base}[[stage]]\nop = \"upsample\"\n[[stage]]\nop = \"upsample\"\n");
    assert!(err(&two, 129).contains("one `upsample` stage, this recipe has 2"));
    let terrace = format!("{base}[[stage]]\nop = \"upsample\"\n[[stage]]\nop = \"terrace\"\n");
    let e = err(&terrace, 129);
    assert!(e.contains("stage 3 (terrace") && e.contains("put `terrace` before it"), "{e}");
    let ok = format!("{base}[[stage]]\nop = \"upsample\"\n");
    let e = err(&ok, 130);
    assert!(e.contains("nearest are 129 and 161"), "{e}");
    assert!(err(&ok, 20).contains("outside 33..="));
    let e = TiledPlan::new(&recipe(&ok), 129, 4, None, None, None, 0).unwrap_err().to_string();
    assert!(e.contains("tile size 4"), "{e}");
    let p = TiledPlan::new(&recipe(&ok), 129, 64, None, None, None, 0).unwrap();
    let coarse = p.coarse_pass(&NoProgress, &Cpu).unwrap();
    assert!(p.tile(&coarse, 3, 0, &NoProgress, &Cpu).unwrap_err().to_string().contains("outside the 3 × 3 tiles"));
    let wrong = Grid::new(10, 10, 0.0);
    assert!(p.tile(&wrong, 0, 0, &NoProgress, &Cpu).unwrap_err().to_string().contains("coarse grid is 10×10"));
}
