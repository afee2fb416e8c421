//! Graph-cut seam benchmark: one seam over a square overlap at the default resolution
//! (128 × 128, target < 100 ms per seam) and at the original's `cut_res` of 160.
//!
//! The two patches are deterministic RGB textures built here: the same smooth value noise seen
//! with a different grain and a slight colour cast, so the patches agree in places and not in
//! others, as two captured patches of one material do. Locks: the left column is patch A, the
//! right column patch B (a vertical seam). `push_relabel` is the default solver
//! (`bozkir_splat::tiling::graphcut::seam::seam`); `boykov_kolmogorov` is the same graph through the
//! alternative solver, for comparison. Figures go to `docs/benchmarks.md`.

use bozkir_core::hash::hash_unit;
use bozkir_splat::tiling::graphcut::seam::{column_locks, pixel_cost, seam, Lock, Pick};
use bozkir_splat::tiling::graphcut::{FlowGraph, COST_SCALE, INFINITE};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;

/// Smoothstep-interpolated hashed lattice values, 3 octaves from 32 pixels down, in [0, 1].
fn value_noise(x: usize, y: usize, seed: u32) -> f64 {
    let (mut v, mut amp, mut period, mut norm) = (0.0, 1.0, 32usize, 0.0);
    for o in 0..3u32 {
        let (gx, gy) = (x / period, y / period);
        let f = |t: usize| {
            let u = (t % period) as f64 / period as f64;
            u * u * (3.0 - 2.0 * u)
        };
        let (fx, fy) = (f(x), f(y));
        let l = |i: usize, j: usize| hash_unit(i as u32, j as u32, seed + o);
        let a = l(gx, gy) + fx * (l(gx + 1, gy) - l(gx, gy));
        let b = l(gx, gy + 1) + fx * (l(gx + 1, gy + 1) - l(gx, gy + 1));
        v += amp * (a + fy * (b - a));
        norm += amp;
        amp *= 0.5;
        period /= 2;
    }
    v / norm
}

/// An RGB patch: shared base texture, own grain (`grain_seed`) and colour cast.
fn patch(n: usize, grain_seed: u32, cast: [f32; 3]) -> Vec<f32> {
    let mut out = Vec::with_capacity(n * n * 3);
    for y in 0..n {
        for x in 0..n {
            let base = value_noise(x, y, 11) as f32;
            let grain = 0.25 * (hash_unit(x as u32, y as u32, grain_seed) as f32 - 0.5);
            let detail = 0.3 * value_noise(x + 7, y + 3, grain_seed) as f32;
            for c in cast {
                out.push(c * (base + detail) + grain);
            }
        }
    }
    out
}

fn problem(n: usize) -> (Vec<f32>, Vec<Lock>) {
    let a = patch(n, 101, [1.0, 0.9, 0.7]);
    let b = patch(n, 202, [0.97, 0.92, 0.72]);
    (pixel_cost(&a, &b, 3), column_locks(n, n, 1, 1))
}

/// The seam's graph, built as `seam` builds it, for the solver comparison.
fn graph(d: &[f32], n: usize, locks: &[Lock]) -> FlowGraph {
    let mut g = FlowGraph::with_capacity(n * n, 2 * n * n);
    let cap = |c: f32| ((c as f64 * COST_SCALE).round() as i64).max(1);
    for y in 0..n {
        for x in 0..n {
            let p = y * n + x;
            if x + 1 < n && !(locks[p].is_some() && locks[p + 1].is_some()) {
                let c = cap(d[p] + d[p + 1]);
                g.add_edge(p, p + 1, c, c);
            }
            if y + 1 < n && !(locks[p].is_some() && locks[p + n].is_some()) {
                let c = cap(d[p] + d[p + n]);
                g.add_edge(p, p + n, c, c);
            }
            match locks[p] {
                Some(Pick::A) => g.add_terminal(p, INFINITE, 0),
                Some(Pick::B) => g.add_terminal(p, 0, INFINITE),
                None => {}
            }
        }
    }
    g
}

fn graphcut(c: &mut Criterion) {
    let mut g = c.benchmark_group("graphcut_seam");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for n in [128usize, 160] {
        let (d, locks) = problem(n);
        g.bench_function(format!("push_relabel_{n}"), |b| {
            b.iter(|| seam(black_box(&d), n, n, black_box(&locks)).expect("valid seam"))
        });
    }
    let n = 128;
    let (d, locks) = problem(n);
    let fg = graph(&d, n, &locks);
    assert_eq!(fg.max_flow().flow, fg.max_flow_bk().flow);
    g.sample_size(10);
    g.bench_function(format!("boykov_kolmogorov_{n}"), |b| b.iter(|| black_box(&fg).max_flow_bk()));
    g.finish();
}

criterion_group!(benches, graphcut);
criterion_main!(benches);
