//! Property tests of D8 routing (issue 20): on random small DEMs (≤ 32² cells, square or not,
//! with ties and flats), every receiver is the cell itself or one of its 8 neighbours, strictly
//! lower and the steepest; border cells are outlets; the graph has no cycle; the stack holds
//! every cell once after its receiver; accumulations count each cell once and add up.

use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{
    accumulate, accumulate_cells, basin_labels, build_stack, d8_receivers, outlet_of,
};
use proptest::prelude::*;

/// A `w × h` DEM (`w, h ∈ 1..=32`) of `dx × dy` cells: heights from a few levels (ties, flats)
/// or continuous.
fn dem() -> impl Strategy<Value = Grid<f64>> {
    (1usize..=32, 1usize..=32, prop_oneof![Just(1.0), 0.5..50.0f64], prop_oneof![Just(1.0), 0.5..50.0f64])
        .prop_flat_map(|(w, h, dx, dy)| {
            let cell = prop_oneof![(0u8..6).prop_map(|v| f64::from(v) * 2.0), -50.0..150.0f64];
            (Just(w), Just(h), Just(dx), Just(dy), prop::collection::vec(cell, w * h))
        })
        .prop_map(|(w, h, dx, dy, v)| Grid::from_vec(w, h, v).with_cell_size(dx, dy))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn receivers_are_steepest_lower_neighbours_and_form_a_forest(g in dem()) {
        let (w, h) = (g.width(), g.height());
        let n = w * h;
        let z = g.data();
        let fg = d8_receivers(&g);
        prop_assert_eq!(fg.receivers.len(), n);
        prop_assert_eq!(fg.dist.len(), n);
        let diag = (g.dx * g.dx + g.dy * g.dy).sqrt();
        for i in 0..n {
            let (x, y) = (i % w, i / w);
            let r = fg.receivers[i] as usize;
            let border = x == 0 || y == 0 || x + 1 == w || y + 1 == h;
            if border {
                prop_assert_eq!(r, i, "border cell {} must be an outlet", i);
            }
            if r == i {
                prop_assert_eq!(fg.dist[i], 0.0);
            } else {
                let (rx, ry) = (r % w, r / w);
                let (ox, oy) = (rx as isize - x as isize, ry as isize - y as isize);
                prop_assert!(ox.abs() <= 1 && oy.abs() <= 1, "receiver of {} is not a neighbour", i);
                prop_assert!(z[r] < z[i], "receiver of {} is not lower", i);
                let d = match (ox, oy) {
                    (0, _) => g.dy,
                    (_, 0) => g.dx,
                    _ => diag,
                };
                prop_assert_eq!(fg.dist[i], d);
            }
            if !border {
                // Steepest: no neighbour has a strictly larger drop per metre; a pit has no
                // strictly lower neighbour at all.
                // (Slopes as the router computes them: the drop times the reciprocal distance.)
                let best = if r == i { 0.0 } else { (z[i] - z[r]) * (1.0 / fg.dist[i]) };
                for (ox, oy) in [(-1isize, -1isize), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    let k = (y as isize + oy) as usize * w + (x as isize + ox) as usize;
                    if z[k] < z[i] {
                        prop_assert!(r != i, "cell {} has a lower neighbour but is a pit", i);
                        let d = if ox == 0 { g.dy } else if oy == 0 { g.dx } else { diag };
                        prop_assert!((z[i] - z[k]) * (1.0 / d) <= best, "cell {}: neighbour {} is steeper", i, k);
                    }
                }
            }
        }
        // No cycle: following receivers from any cell reaches a fixed point within n steps.
        for i in 0..n {
            let mut c = i;
            let mut steps = 0;
            while fg.receivers[c] as usize != c {
                c = fg.receivers[c] as usize;
                steps += 1;
                prop_assert!(steps <= n, "cycle through cell {}", i);
            }
        }
        // The stack: a permutation with every cell after its receiver; the same as build_stack's.
        let mut pos = vec![usize::MAX; n];
        for (p, &c) in fg.stack.iter().enumerate() {
            prop_assert_eq!(pos[c as usize], usize::MAX, "cell {} twice in the stack", c);
            pos[c as usize] = p;
        }
        for i in 0..n {
            let r = fg.receivers[i] as usize;
            prop_assert!(r == i || pos[r] < pos[i], "cell {} before its receiver", i);
        }
        prop_assert_eq!(&build_stack(&fg.receivers), &fg.stack);
        // Determinism: the same graph on one thread.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| d8_receivers(&g));
        prop_assert_eq!(&one, &fg);
    }

    #[test]
    fn accumulation_counts_every_cell_once(g in dem(), weights in prop::collection::vec(0.0..10.0f64, 1024)) {
        let n = g.len();
        let fg = d8_receivers(&g);
        let acc = accumulate_cells(&fg);
        // Each cell counts itself plus its donors' totals.
        let mut from_donors = vec![1u64; n];
        for (i, (&r, &a)) in fg.receivers.iter().zip(&acc).enumerate() {
            prop_assert!(a >= 1);
            if r as usize != i {
                from_donors[r as usize] += u64::from(a);
            }
        }
        for i in 0..n {
            prop_assert_eq!(u64::from(acc[i]), from_donors[i], "cell {}", i);
        }
        // The outlets' (and pits') totals add up to the grid, and each equals its basin's size.
        let outlets: u64 = (0..n).filter(|&i| fg.receivers[i] as usize == i).map(|i| u64::from(acc[i])).sum();
        prop_assert_eq!(outlets, n as u64);
        let out = outlet_of(&fg);
        let mut basin = vec![0u32; n];
        for &o in &out {
            basin[o as usize] += 1;
        }
        for i in 0..n {
            if fg.receivers[i] as usize == i {
                prop_assert_eq!(basin[i], acc[i]);
            }
        }
        let (labels, count) = basin_labels(&fg);
        prop_assert_eq!(count, (0..n).filter(|&i| fg.receivers[i] as usize == i).count());
        prop_assert!(labels.iter().all(|&l| (l as usize) < count));
        // Weighted accumulation: the outlets hold the total weight (up to round-off).
        let w = &weights[..n];
        let wacc = accumulate(&fg, w);
        let total: f64 = w.iter().sum();
        let at_outlets: f64 = (0..n).filter(|&i| fg.receivers[i] as usize == i).map(|i| wacc[i]).sum();
        prop_assert!((at_outlets - total).abs() <= 1e-9 * total.max(1.0), "{} vs {}", at_outlets, total);
        for i in 0..n {
            prop_assert!(wacc[i] >= w[i]);
        }
    }
}
