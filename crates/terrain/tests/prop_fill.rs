//! Property tests of depression filling (issue 20): on random small DEMs (≤ 24² cells, with
//! flats, ties, steps and optional nodata), Priority-Flood's plain fill is the minimal drained
//! surface above the input, its ε fill leaves every interior cell a strictly lower neighbour,
//! both are idempotent, and Planchon–Darboux gives the same bits.

use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{count_pits, d8_receivers};
use bozkir_terrain::hydrology::planchon_darboux::{planchon_darboux, PlanchonDarbouxParams, Step};
use bozkir_terrain::hydrology::priority_flood::{fill, fill_epsilon};
use proptest::prelude::*;

/// The 8-neighbour offsets.
const NB: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

fn neighbours(i: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    let (x, y) = ((i % w) as isize, (i / w) as isize);
    NB.iter().filter_map(move |&(ox, oy)| {
        let (nx, ny) = (x + ox, y + oy);
        (nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h).then(|| ny as usize * w + nx as usize)
    })
}

/// One cell's height: coarse levels (many ties and flat areas), a continuous value, or (when
/// `nodata`) sometimes NaN.
fn cell(nodata: bool) -> BoxedStrategy<f64> {
    let level = (0u8..8).prop_map(|v| f64::from(v) * 10.0);
    let smooth = -1000.0..9000.0f64;
    if nodata {
        prop_oneof![5 => level, 4 => smooth, 1 => Just(f64::NAN)].boxed()
    } else {
        prop_oneof![level, smooth].boxed()
    }
}

/// A `w × h` DEM, `w, h ∈ 1..=24`.
fn dem(nodata: bool) -> impl Strategy<Value = Grid<f64>> {
    (1usize..=24, 1usize..=24)
        .prop_flat_map(move |(w, h)| (Just(w), Just(h), prop::collection::vec(cell(nodata), w * h)))
        .prop_map(|(w, h, v)| Grid::from_vec(w, h, v).with_cell_size(30.0, 30.0))
}

/// Seeds of the fill: non-NaN border cells and non-NaN cells beside a NaN.
fn seeds(z: &[f64], w: usize, h: usize) -> Vec<bool> {
    (0..z.len())
        .map(|i| {
            let (x, y) = (i % w, i / w);
            !z[i].is_nan()
                && (x == 0 || y == 0 || x + 1 == w || y + 1 == h || neighbours(i, w, h).any(|k| z[k].is_nan()))
        })
        .collect()
}

/// The minimal surface `W = Z` on seeds, `W = max(Z, min over non-NaN neighbours of W)`
/// elsewhere, by Jacobi sweeps from +∞ (the definition, slowly).
fn reference_fill(g: &Grid<f64>) -> Vec<f64> {
    let (w, h, z) = (g.width(), g.height(), g.data());
    let seed = seeds(z, w, h);
    let mut wv: Vec<f64> = (0..z.len()).map(|i| if seed[i] || z[i].is_nan() { z[i] } else { f64::INFINITY }).collect();
    loop {
        let prev = wv.clone();
        for i in 0..z.len() {
            if seed[i] || z[i].is_nan() {
                continue;
            }
            let m = neighbours(i, w, h).filter(|&k| !z[k].is_nan()).map(|k| prev[k]).fold(f64::INFINITY, f64::min);
            wv[i] = z[i].max(m);
        }
        // Compared by bits: NaN cells never compare equal.
        if same_bits(&wv, &prev) {
            return wv;
        }
    }
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// Every non-NaN cell reaches a seed by a path whose heights never rise (walking upstream from
/// the seeds over neighbours at or above the current cell reaches every cell).
fn drained_non_increasing(g: &Grid<f64>, f: &[f64]) -> bool {
    let (w, h) = (g.width(), g.height());
    let mut seen = seeds(g.data(), w, h);
    let mut queue: Vec<usize> = (0..f.len()).filter(|&i| seen[i]).collect();
    while let Some(c) = queue.pop() {
        for k in neighbours(c, w, h) {
            if !seen[k] && !f[k].is_nan() && f[k] >= f[c] {
                seen[k] = true;
                queue.push(k);
            }
        }
    }
    (0..f.len()).all(|i| seen[i] || f[i].is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn plain_fill_is_the_minimal_drained_surface_above_the_input(g in dem(true)) {
        let f = fill(&g);
        prop_assert_eq!((f.width(), f.height()), (g.width(), g.height()));
        let (fd, z) = (f.data(), g.data());
        for i in 0..z.len() {
            // Nodata stays nodata; everything else is at or above the input.
            prop_assert_eq!(fd[i].is_nan(), z[i].is_nan());
            prop_assert!(z[i].is_nan() || fd[i] >= z[i], "cell {} lowered: {} -> {}", i, z[i], fd[i]);
        }
        // Seeds keep their height.
        for (i, s) in seeds(z, g.width(), g.height()).into_iter().enumerate() {
            if s {
                prop_assert_eq!(fd[i].to_bits(), z[i].to_bits());
            }
        }
        // No interior pit: every cell drains to a seed without climbing.
        prop_assert!(drained_non_increasing(&g, fd));
        // Minimal: exactly the definition's surface.
        prop_assert!(same_bits(fd, &reference_fill(&g)));
        // Idempotent.
        prop_assert!(same_bits(fill(&f).data(), fd));
        // Planchon–Darboux solves the same problem: the same bits.
        let pd = planchon_darboux(&g, &PlanchonDarbouxParams { step: Step::Zero });
        prop_assert!(same_bits(pd.data(), fd));
    }

    #[test]
    fn epsilon_fill_gives_every_interior_cell_a_lower_neighbour(g in dem(true)) {
        let (w, h) = (g.width(), g.height());
        let e = fill_epsilon(&g);
        let f = fill(&g);
        let (ed, fd, z) = (e.data(), f.data(), g.data());
        let seed = seeds(z, w, h);
        let scale = z.iter().filter(|v| !v.is_nan()).fold(1.0f64, |m, v| m.max(v.abs()));
        for i in 0..z.len() {
            prop_assert_eq!(ed[i].is_nan(), z[i].is_nan());
            if z[i].is_nan() {
                continue;
            }
            // Above the plain fill, by at most one ulp per cell of the grid.
            prop_assert!(ed[i] >= fd[i], "cell {}: {} below the plain fill {}", i, ed[i], fd[i]);
            prop_assert!(ed[i] - fd[i] <= 2.0 * z.len() as f64 * f64::EPSILON * scale);
            if seed[i] {
                prop_assert_eq!(ed[i].to_bits(), z[i].to_bits());
            } else {
                let lower = neighbours(i, w, h).any(|k| !ed[k].is_nan() && ed[k] < ed[i]);
                prop_assert!(lower, "interior cell {} ({}) has no strictly lower neighbour", i, ed[i]);
            }
        }
        // Idempotent under both fills, and the same bits as Planchon–Darboux's one-ulp step.
        prop_assert!(same_bits(fill_epsilon(&e).data(), ed));
        prop_assert!(same_bits(fill(&e).data(), ed));
        let pd = planchon_darboux(&g, &PlanchonDarbouxParams { step: Step::NextUp });
        prop_assert!(same_bits(pd.data(), ed));
    }

    #[test]
    fn epsilon_filled_dems_route_without_pits(g in dem(false)) {
        let e = fill_epsilon(&g);
        prop_assert_eq!(count_pits(&d8_receivers(&e)), 0);
    }
}
