//! GPU D8 receivers and accumulation against the CPU reference: exact.
mod common;

use bozkir_core::Grid;
use bozkir_gpu::flow;
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};

#[test]
fn d8_receivers_and_counts_equal_cpu() {
    let Some(gpu) = common::gpu() else { return };
    for (w, h, dx, dy) in [(256, 256, 10.0, 10.0), (97, 61, 10.0, 20.0), (3, 3, 1.0, 1.0), (1, 5, 1.0, 1.0)] {
        let g = common::hills(w, h, 300.0, dx, dy);
        let cpu = d8_receivers(&g);
        let gg = flow::d8_receivers(gpu, &g).unwrap();
        assert_eq!(gg.receivers, cpu.receivers, "{w}x{h}");
        assert_eq!(gg.dist, cpu.dist, "{w}x{h}");
        let acc = flow::accumulate_cells(gpu, &g).unwrap();
        assert_eq!(acc, accumulate_cells(&cpu), "{w}x{h}");
    }
}

#[test]
fn long_paths_accumulate_exactly() {
    // A serpentine single path through the whole grid (longest path = every cell): the worst
    // case for pointer jumping's round count.
    let Some(gpu) = common::gpu() else { return };
    let (w, h) = (64usize, 64usize);
    let mut rcv = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let fwd = if y % 2 == 0 { x + 1 < w } else { x > 0 };
            rcv[i] = if fwd {
                if y % 2 == 0 {
                    i + 1
                } else {
                    i - 1
                }
            } else if y + 1 < h {
                i + w
            } else {
                i
            } as u32;
        }
    }
    let got = flow::accumulate_receivers(gpu, w, h, &rcv).unwrap();
    let last = *rcv.iter().enumerate().find(|(i, &r)| r as usize == *i).unwrap().1 as usize;
    assert_eq!(got[last] as usize, w * h);
    let cpu = bozkir_terrain::hydrology::flow_graph::FlowGraph {
        width: w,
        height: h,
        receivers: rcv.clone(),
        dist: vec![0.0; w * h],
        stack: bozkir_terrain::hydrology::flow_graph::build_stack(&rcv),
    };
    assert_eq!(got, accumulate_cells(&cpu));
    let _ = Grid::new(1, 1, 0.0f64);
}

#[test]
fn chains_of_every_length_end_in_the_counts() {
    // One chain per grid, lengths 1 to 70: the last live round is even for some and odd for
    // others (the counts end in either scratch buffer before the final copy), and a chain of
    // n cells is the longest path n cells allow (the round count's bound).
    let Some(gpu) = common::gpu() else { return };
    for len in 1..=70usize {
        let rcv: Vec<u32> = (0..len).map(|i| (i + 1).min(len - 1) as u32).collect();
        let got = flow::accumulate_receivers(gpu, len, 1, &rcv).unwrap();
        let want: Vec<u32> = (1..=len as u32).collect();
        assert_eq!(got, want, "chain of {len}");
    }
}

#[test]
fn white_noise_with_pits_accumulates_exactly() {
    // White noise: pits (cells draining nowhere) all over, short paths crossing the 32×32 tiles
    // of the two-level accumulation in every direction, a grid no multiple of the tile.
    let Some(gpu) = common::gpu() else { return };
    let (w, h) = (300usize, 170usize);
    let mut s = 0x9e3779b97f4a7c15u64;
    let data: Vec<f64> = (0..w * h)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let g = Grid::from_vec(w, h, data);
    let cpu = d8_receivers(&g);
    assert!(cpu.receivers.iter().enumerate().filter(|&(i, &r)| r as usize == i).count() > w * h / 20);
    assert_eq!(flow::accumulate_cells(gpu, &g).unwrap(), accumulate_cells(&cpu));
}

/// The analysis's drainage on the GPU: receivers with extra outlets (sea cells, voids and the
/// cells beside them, as `pipeline::analysis` gives them), counts and outlets equal to the CPU's
/// `d8_receivers` with the same outlets, `accumulate_cells` and `outlet_of`; also with the
/// buffers bound in two halves.
#[test]
fn drainage_with_outlets_equals_the_cpu() {
    use bozkir_terrain::hydrology::flow_graph::{build_stack, outlet_of};
    let Some(gpu) = common::gpu() else { return };
    let (w, h) = (131usize, 77usize);
    let mut z = common::hills(w, h, 400.0, 10.0, 12.0);
    // A void of 3 × 4 cells and a "sea" (cells below a level) as outlets.
    for y in 30..34 {
        for x in 50..53 {
            *z.get_mut(x, y) = f64::NAN;
        }
    }
    let level = {
        let mut v: Vec<f64> = z.data().iter().copied().filter(|v| !v.is_nan()).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 10]
    };
    let void_or_beside = |i: usize| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                let (nx, ny) = (x + dx, y + dy);
                nx >= 0
                    && ny >= 0
                    && (nx as usize) < w
                    && (ny as usize) < h
                    && z.data()[ny as usize * w + nx as usize].is_nan()
            })
        })
    };
    let outlets: Vec<bool> = (0..w * h).map(|i| z.data()[i] < level || void_or_beside(i)).collect();
    let mut cpu = d8_receivers(&z);
    for (i, r) in cpu.receivers.iter_mut().enumerate() {
        if outlets[i] {
            *r = i as u32;
        }
    }
    cpu.stack = build_stack(&cpu.receivers);
    let (acc, out) = (accumulate_cells(&cpu), outlet_of(&cpu));
    assert!(out.iter().enumerate().filter(|&(i, &o)| o as usize != i && outlets[o as usize]).count() > 100);
    let split = bozkir_gpu::Gpu::with_binding_limit(65_536).expect("the test device again, with a lower limit");
    for (name, g) in [("whole", gpu), ("split", &split)] {
        let d = flow::d8_drainage(g, &z, Some(&outlets)).unwrap();
        assert_eq!(d.receivers, cpu.receivers, "{name}");
        assert_eq!(d.acc, acc, "{name}");
        assert_eq!(d.outlet, out, "{name}");
    }
    assert!(split.split_active(), "the grid did not split");
    // Without extra outlets: the plain routing's.
    let plain = d8_receivers(&z);
    let d = flow::d8_drainage(gpu, &z, None).unwrap();
    assert_eq!(d.acc, accumulate_cells(&plain));
    assert_eq!(d.outlet, outlet_of(&plain));
}
