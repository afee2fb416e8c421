//! The composition's invariants (issue 21, Tests): partition of unity, no colour seam,
//! mountains above water, trees exactly on the surface and never in water, determinism across
//! thread counts, grid profiles, bad input.

use bozkir_world::compose::regions::{self, Frame, WeightShape};
use bozkir_world::compose::{self, BiomeProfile, CompositeParams, CompositeWorld, Palette, TREE_WATER_CUTOFF};
use bozkir_world::random::for_compat;
use bozkir_world::{Compat, Seed, WorldGrid};

fn params(size: f64) -> CompositeParams {
    CompositeParams { domain_size: (size, size), add_roads: false, ..Default::default() }
}

/// A composed world of the canonical path (the pyworldgen path is `compose_golden.rs`'s).
fn world(seed: i64, p: &CompositeParams, palette: &Palette) -> CompositeWorld {
    compose::compose(&Seed::Int(seed), Compat::Canonical, p, palette).unwrap()
}

#[test]
fn partition_of_unity_to_1e12() {
    let noise = for_compat(Compat::Pyworldgen).noise();
    let frame = Frame::new(60, 40, 2.0);
    let mut d = for_compat(Compat::Canonical).draws(5);
    let seeds = regions::place_region_seeds((120.0, 80.0), &mut *d, 12, 20.0);
    let types: Vec<usize> = (0..seeds.len()).map(|k| k % 5).collect();
    // sigma 25 m: the usual case; sigma 0.5 m: every Gaussian underflows far from the centres.
    for sigma in [25.0, 0.5] {
        let shape = WeightShape { sigma, warp_amp: 9.0, warp_scale: 0.05, seed: 3 };
        let w = regions::region_weights(noise, &frame, &seeds, &types, 5, &shape);
        let n = frame.nx * frame.ny;
        let worst = (0..n).map(|c| (w.planes.iter().map(|p| p[c]).sum::<f64>() - 1.0).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-12, "sigma {sigma}: |Σw − 1| up to {worst}");
        assert!(w.planes.iter().flatten().all(|&v| (0.0..=1.0).contains(&v)));
        assert_eq!(w.underflow_cells > 0, sigma < 1.0, "sigma {sigma}: {} underflow cells", w.underflow_cells);
    }
}

/// Largest per-channel colour step between 4-neighbours of a colour map.
fn max_step(nx: usize, ny: usize, col: impl Fn(usize) -> [u8; 3]) -> [u8; 3] {
    let mut m = [0u8; 3];
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            for o in [(i + 1 < nx).then(|| c + 1), (j + 1 < ny).then(|| c + nx)].into_iter().flatten() {
                let (a, b) = (col(c), col(o));
                for (mk, (x, y)) in m.iter_mut().zip(a.iter().zip(&b)) {
                    *mk = (*mk).max(x.abs_diff(*y));
                }
            }
        }
    }
    m
}

/// The blended colour's steps between neighbours: bounded by the weights' steps times the
/// palette spread, and at 1 m cells at most a tenth of the hard-argmax map's. (At pyworldgen's
/// 2 m default the ratio reaches 0.17 on some seeds: the steps are per cell and the warped
/// transitions are a few cells wide; over 30 seeds the worst at 1 m is 0.092.)
#[test]
fn no_colour_seam() {
    let palette = Palette::builtin();
    let t_n = palette.biomes.len();
    let spread: Vec<f64> = (0..3)
        .map(|k| {
            let c = palette.biomes.iter().map(|b| f64::from(b.color[k]));
            c.clone().fold(0.0, f64::max) - c.fold(255.0, f64::min)
        })
        .collect();
    let p = CompositeParams { resolution: 1.0, add_forest: false, ..params(220.0) };
    for seed in [11, 16, 27, 29] {
        let w = world(seed, &p, &palette);
        let (nx, ny) = (w.grid.nx, w.grid.ny);
        // Per neighbouring pair: |Δc_k| = |Σ_t Δw_t·c_tk| ≤ ½·Σ_t |Δw_t|·spread_k (+1 for the
        // truncation to u8), because Σ_t Δw_t = 0.
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                for o in [(i + 1 < nx).then(|| c + 1), (j + 1 < ny).then(|| c + nx)].into_iter().flatten() {
                    let l1: f64 = (0..t_n).map(|t| (w.weights[t][c] - w.weights[t][o]).abs()).sum();
                    for (k, sp) in spread.iter().enumerate() {
                        let step = f64::from(w.color[c][k].abs_diff(w.color[o][k]));
                        assert!(step <= 0.5 * l1 * sp + 1.0, "seed {seed} cell {c}: step {step}, Σ|Δw| {l1}");
                    }
                }
            }
        }
        let blended = max_step(nx, ny, |c| w.color[c]);
        let hard = max_step(nx, ny, |c| palette.biomes[w.dominant[c] as usize].color);
        println!("seed {seed}: max colour step blended {blended:?}, hard argmax {hard:?}");
        assert!(hard.iter().any(|&h| h >= 50), "seed {seed}: the world should hold contrasting biomes: {hard:?}");
        for k in 0..3 {
            assert!(
                10 * u32::from(blended[k]) <= u32::from(hard[k]),
                "seed {seed} channel {k}: {blended:?} vs {hard:?}"
            );
        }
    }
}

#[test]
fn mountains_stand_above_water() {
    let palette = Palette::builtin();
    let p = CompositeParams { num_regions: 20, ..params(300.0) };
    let mut checked = 0;
    for seed in 0..6 {
        let w = world(seed, &p, &palette);
        let mean_where = |t: u16| {
            let v: Vec<f64> = (0..w.dominant.len()).filter(|&c| w.dominant[c] == t).map(|c| w.grid.height[c]).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        if let (Some(water), Some(mountains)) = (mean_where(0), mean_where(4)) {
            assert!(mountains > water + 10.0, "seed {seed}: mountains {mountains} m, water {water} m");
            checked += 1;
        }
    }
    assert!(checked >= 2, "only {checked} seeds hold both water and mountains");
}

#[test]
fn trees_on_the_surface_and_never_in_water() {
    let palette = Palette::builtin();
    let p = CompositeParams { forest_target: 2000, num_regions: 20, ..params(300.0) };
    let w = world(3, &p, &palette);
    let g = &w.grid;
    assert!(w.trees.len() > 100, "{} trees", w.trees.len());
    for t in &w.trees {
        // The bilinear surface, written out independently.
        let (gx, gy) =
            ((t.x / g.dx - 0.5).clamp(0.0, (g.nx - 1) as f64), (t.y / g.dy - 0.5).clamp(0.0, (g.ny - 1) as f64));
        let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
        let (i1, j1) = ((i0 + 1).min(g.nx - 1), (j0 + 1).min(g.ny - 1));
        let (fx, fy) = (gx - i0 as f64, gy - j0 as f64);
        let h = |i: usize, j: usize| g.height[j * g.nx + i];
        let a = h(i0, j0) + (h(i1, j0) - h(i0, j0)) * fx;
        let b = h(i0, j1) + (h(i1, j1) - h(i0, j1)) * fx;
        assert_eq!(t.z, a + (b - a) * fy, "tree at ({}, {})", t.x, t.y);
        let lo = [h(i0, j0), h(i1, j0), h(i0, j1), h(i1, j1)].into_iter().fold(f64::INFINITY, f64::min);
        assert!(t.z >= lo);
        for (i, j) in [(i0, j0), (i1, j0), (i0, j1), (i1, j1)] {
            assert!(g.water_depth[j * g.nx + i] <= TREE_WATER_CUTOFF);
        }
        assert!(t.x >= 0.0 && t.x < 300.0 && t.y >= 0.0 && t.y < 300.0);
        assert!(t.crown_radius > 0.0 && t.height > 2.0 * t.crown_radius.min(8.5));
    }
    // Denser biomes hold more trees: the share of trees standing in forest-dominated cells
    // exceeds the forest's share of the area.
    let cell = |t: &compose::TreeInstance| ((t.y / g.dy) as usize) * g.nx + (t.x / g.dx) as usize;
    let in_forest = w.trees.iter().filter(|t| w.dominant[cell(t)] == 2).count() as f64 / w.trees.len() as f64;
    let forest_area = w.dominant.iter().filter(|&&d| d == 2).count() as f64 / w.dominant.len() as f64;
    assert!(in_forest > 2.0 * forest_area, "trees in forest {in_forest}, forest area {forest_area}");
    // No density, no trees; nothing else changes.
    let mut bare = palette.clone();
    bare.biomes.iter_mut().for_each(|b| b.tree_density = 0.0);
    let wb = world(3, &p, &bare);
    assert!(wb.trees.is_empty());
    assert_eq!(wb.grid, w.grid);
}

fn same(a: &CompositeWorld, b: &CompositeWorld) {
    assert_eq!(a.grid, b.grid);
    assert_eq!(a.weights, b.weights);
    assert_eq!((&a.dominant, &a.color, &a.tree_density), (&b.dominant, &b.color, &b.tree_density));
    assert_eq!((&a.region_seeds, &a.trees), (&b.region_seeds, &b.trees));
}

#[test]
fn deterministic_across_thread_counts() {
    let p = CompositeParams { domain_size: (150.0, 110.0), ..params(0.0) };
    for seed in [Seed::Int(9), Seed::Str("atlas".into())] {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| compose::compose(&seed, Compat::Canonical, &p, &Palette::builtin()).unwrap())
        };
        let one = run(1);
        same(&one, &run(3));
        same(&one, &run(8));
    }
}

#[test]
fn canonical_path_uses_its_own_randomness() {
    let p = params(100.0);
    let a = compose::compose(&Seed::Str("atlas".into()), Compat::Canonical, &p, &Palette::builtin()).unwrap();
    let b = compose::compose(&Seed::Str("rhine".into()), Compat::Canonical, &p, &Palette::builtin()).unwrap();
    assert_ne!(a.grid.height, b.grid.height);
    assert!(a.trees.iter().all(|t| t.z.is_finite()));
    let s = compose::world_seed(&Seed::Str("atlas".into()), Compat::Canonical).unwrap();
    assert!((0..1 << 32).contains(&s));
}

#[test]
fn grid_profiles_are_sampled_at_cell_centres() {
    // A single biome: its weight is exactly 1 and the world is its profile.
    let (nx, ny, res) = (40, 30, 2.0);
    let ramp: Vec<f64> = (0..ny).flat_map(|j| (0..nx).map(move |i| 0.5 * i as f64 - 0.25 * j as f64 + 7.0)).collect();
    let mut grid = WorldGrid::new(nx, ny, res, res, ramp.clone());
    grid.water_depth[5] = 2.0;
    let text = "[[biome]]\nname = \"ramp\"\nprofile = \"profile:ramp\"\ncolor = [1, 2, 3]\ntree_density = 0.5\nniche = [0.5, 0.5]\n";
    let mut palette = Palette::from_toml(text).unwrap();
    let p = CompositeParams { domain_size: (80.0, 60.0), resolution: res, num_regions: 4, ..params(0.0) };
    let e = compose::compose(&Seed::Int(1), Compat::Canonical, &p, &palette).unwrap_err().to_string();
    assert!(e.contains("profile:ramp"), "{e}");
    palette.resolve(|_| Ok(grid.clone())).unwrap();
    let w = compose::compose(&Seed::Int(1), Compat::Canonical, &p, &palette).unwrap();
    assert!(w.weights[0].iter().all(|&v| v == 1.0));
    for (c, &h) in ramp.iter().enumerate() {
        // The profile read at its own cell centres, then pyworldgen's float32 cast.
        assert!((w.grid.height[c] - h).abs() <= 1e-5, "cell {c}: {} vs {h}", w.grid.height[c]);
    }
    assert_eq!(w.grid.water_depth[5], 2.0);
    assert!(w.color.iter().all(|&c| c == [1, 2, 3]));
    // A coarser grid is stretched over the world: corners read the corner cells.
    let coarse = WorldGrid::new(2, 2, 40.0, 30.0, vec![0.0, 10.0, 20.0, 30.0]);
    palette.biomes[0].profile = BiomeProfile::Grid(coarse);
    let w = compose::compose(&Seed::Int(1), Compat::Canonical, &p, &palette).unwrap();
    assert_eq!((w.grid.height[0], w.grid.height[nx * ny - 1]), (0.0, 30.0));
}

#[test]
fn bad_input_is_refused() {
    let e = compose::world_seed(&Seed::Int(-10_000), Compat::Pyworldgen).unwrap_err().to_string();
    assert!(e.contains("seed") && e.contains("-10000"), "{e}");
    let p = CompositeParams { num_regions: 0, ..params(100.0) };
    let e = compose::compose(&Seed::Int(1), Compat::Canonical, &p, &Palette::builtin()).unwrap_err().to_string();
    assert!(e.contains("num_regions"), "{e}");
    let e = compose::compose_from_centres(1, Compat::Canonical, &params(100.0), &Palette::builtin(), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("region centres"), "{e}");
    for (s, compat) in [(i64::MAX, Compat::Canonical), (-5000, Compat::Pyworldgen)] {
        let e = compose::compose_from_centres(s, compat, &params(100.0), &Palette::builtin(), &[(1.0, 2.0)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed") && e.contains(&s.to_string()), "{e}");
    }
    let empty = Palette { biomes: vec![] };
    assert!(compose::compose(&Seed::Int(1), Compat::Canonical, &params(100.0), &empty).is_err());
}

/// The scatter draws from one seeded stream: the same seed gives the same trees, another seed
/// other trees.
#[test]
fn tree_scatter_is_seeded() {
    let p = CompositeParams { forest_target: 500, ..params(200.0) };
    let a = compose::compose(&Seed::Int(4), Compat::Canonical, &p, &Palette::builtin()).unwrap();
    let b = compose::compose(&Seed::Int(4), Compat::Canonical, &p, &Palette::builtin()).unwrap();
    assert_eq!(a.trees, b.trees);
    let c = compose::compose(&Seed::Int(5), Compat::Canonical, &p, &Palette::builtin()).unwrap();
    assert_ne!(a.trees, c.trees);
}
