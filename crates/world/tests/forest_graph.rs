//! `forest` branch graphs, species and `validate_forest`: the invariants of seed 002 (issue 22
//! item 7) checked by code written here, independent of the library's validator, on several
//! seeds and parameter sets; `canopy_diffusion = 0` equal to a brute-force hard power diagram;
//! determinism; the validator failing on broken forests.

use bozkir_world::forest::{
    generate_forest, inspect_forest, validate_forest, CrownShape, Forest, ForestParams, NodeKind, Species,
};
use bozkir_world::{Compat, Seed};

fn three_species() -> Vec<Species> {
    vec![
        Species { name: "oak".into(), share: 0.5, ..Species::default() },
        Species {
            name: "pine".into(),
            share: 0.3,
            max_branch_depth: 7,
            twig_radius: 0.02,
            radius_gamma: 2.5,
            crown: CrownShape::Conical,
        },
        Species {
            name: "poplar".into(),
            share: 0.2,
            max_branch_depth: 3,
            twig_radius: 0.05,
            radius_gamma: 1.8,
            crown: CrownShape::Columnar,
        },
    ]
}

/// (label, seed, compat, params).
fn cases() -> Vec<(&'static str, Seed, Compat, ForestParams)> {
    let d = ForestParams::default;
    vec![
        ("seed 002, 60 trees", Seed::parse("002"), Compat::Pyworldgen, ForestParams { target_tree_count: 60, ..d() }),
        (
            "oak, canonical, small",
            Seed::parse("oak"),
            Compat::Canonical,
            ForestParams { domain_size: (60.0, 45.0), ..d() },
        ),
        (
            "7, diffusion 0.45",
            Seed::parse("7"),
            Compat::Pyworldgen,
            ForestParams { canopy_diffusion: 0.45, domain_size: (80.0, 70.0), ..d() },
        ),
        (
            "three species, diffusion 0.6, 1 m cells",
            Seed::parse("grove"),
            Compat::Pyworldgen,
            ForestParams {
                species: three_species(),
                canopy_diffusion: 0.6,
                resolution: 1.0,
                domain_size: (70.0, 60.0),
                ..d()
            },
        ),
        (
            "three species, canonical, deep and fine",
            Seed::parse("fir"),
            Compat::Canonical,
            ForestParams {
                species: three_species(),
                leaf_cluster_size: 1,
                terminal_max: 80,
                terminal_density: 0.2,
                graph_jitter: 2.0,
                domain_size: (60.0, 60.0),
                lloyd_iterations: 0,
                ..d()
            },
        ),
        (
            "coarse cells, strong competition",
            Seed::parse("42"),
            Compat::Pyworldgen,
            ForestParams { resolution: 2.5, competition_weight_strength: 40.0, canopy_diffusion: 0.3, ..d() },
        ),
    ]
}

fn cell_of(f: &Forest, x: f64, y: f64) -> usize {
    let i = (x / f.resolution).clamp(0.0, (f.nx - 1) as f64) as usize;
    let j = (y / f.resolution).clamp(0.0, (f.ny - 1) as f64) as usize;
    j * f.nx + i
}

/// The invariants, checked here without the library's validator. Returns (trees, nodes,
/// worst radius-law error, edge samples).
fn check_invariants(label: &str, f: &Forest) -> (usize, usize, f64, usize) {
    let n = f.nx * f.ny;
    assert_eq!(f.owner.len(), n);
    // One owner per cell, a site.
    assert!(f.owner.iter().all(|&o| o >= 0 && (o as usize) < f.sites.len()), "{label}: a cell without one site");
    assert!(f.canopy.iter().chain(&f.terrain).all(|v| v.is_finite()), "{label}: canopy not finite");
    // One graph per tree owning cells, in site order.
    let mut owning: Vec<usize> = f.owner.iter().map(|&o| o as usize).collect();
    owning.sort_unstable();
    owning.dedup();
    let ids: Vec<usize> = f.graphs.iter().map(|g| g.tree_id).collect();
    assert_eq!(ids, owning, "{label}: graphs are not one per owning tree");
    let (mut nodes, mut worst, mut samples) = (0, 0f64, 0);
    for g in &f.graphs {
        let t = g.tree_id as i32;
        let sp = &f.species[g.species];
        assert_eq!(g.species, f.sites[g.tree_id].species);
        assert_eq!(g.radius_gamma, sp.radius_gamma);
        nodes += g.nodes.len();
        assert_eq!(g.nodes[0].kind, NodeKind::Root);
        assert_eq!(g.nodes[0].parent, None);
        let root = g.nodes[0].position;
        assert_eq!(root[2], f.terrain[cell_of(f, root[0], root[1])] as f64, "{label}: root off the terrain");
        assert_eq!(g.edges.len() + 1, g.nodes.len());
        let mut sum = vec![0.0f64; g.nodes.len()];
        let mut kids = vec![0usize; g.nodes.len()];
        for e in &g.edges {
            let (p, c) = (e.parent as usize, e.child as usize);
            assert!(p < c, "{label}: edge {p}→{c} not parent-first");
            assert_eq!(g.nodes[c].parent, Some(e.parent));
            kids[p] += 1;
            sum[p] += g.nodes[c].radius.powf(g.radius_gamma);
            // The edge inside the cell, sampled at half-cell steps.
            let (a, b) = (g.nodes[p].position, g.nodes[c].position);
            let len = (b[0] - a[0]).hypot(b[1] - a[1]);
            let k = ((len / (0.5 * f.resolution)).ceil() as usize).max(1);
            for s in 0..=k {
                let u = s as f64 / k as f64;
                let (x, y) = (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u);
                assert_eq!(
                    f.owner[cell_of(f, x, y)],
                    t,
                    "{label}: tree {t} edge {p}→{c} leaves its cell at ({x}, {y})"
                );
            }
            samples += k + 1;
        }
        let mut terminals = 0;
        for (k, node) in g.nodes.iter().enumerate() {
            let [x, y, _] = node.position;
            assert!(x >= 0.0 && y >= 0.0 && x < f.nx as f64 * f.resolution && y < f.ny as f64 * f.resolution);
            assert_eq!(f.owner[cell_of(f, x, y)], t, "{label}: tree {t} node {k} outside its cell");
            if kids[k] == 0 {
                assert_eq!(node.kind, NodeKind::Terminal, "{label}: tree {t} leaf {k} is not a terminal");
                assert_eq!(node.radius, g.terminal_radius);
                assert!(node.order <= sp.max_branch_depth + 1, "{label}: terminal deeper than the species allows");
                terminals += 1;
            } else {
                assert_ne!(node.kind, NodeKind::Terminal);
                let own = node.radius.powf(g.radius_gamma);
                let e = (own - sum[k]).abs() / own;
                worst = worst.max(e);
                assert!(e <= 1e-9, "{label}: tree {t} node {k}: r^γ {own} vs Σ {}", sum[k]);
            }
        }
        // Terminal radius: the species' twig radius, thickened so the root reaches the trunk.
        let site = &f.sites[g.tree_id];
        let want = sp.twig_radius.max(site.trunk_radius * (terminals as f64).powf(-1.0 / g.radius_gamma));
        assert!((g.terminal_radius - want).abs() <= 1e-15 * want);
        assert!(g.nodes[0].radius >= site.trunk_radius * (1.0 - 1e-12));
        let cells = f.owner.iter().filter(|&&o| o == t).count();
        assert!(terminals >= 1 && terminals <= 44.max(cells), "{label}: {terminals} terminals");
    }
    (f.graphs.len(), nodes, worst, samples)
}

#[test]
fn invariants_hold_and_the_validator_agrees() {
    for (label, seed, compat, p) in cases() {
        let f = generate_forest(&seed, compat, &p).unwrap();
        let (trees, nodes, worst, samples) = check_invariants(label, &f);
        let r = validate_forest(&f).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!((r.trees, r.nodes, r.segment_samples), (trees, nodes, samples), "{label}");
        assert!(r.worst_radius_error <= 1e-9);
        // Waypoints: single-child branch or trunk nodes below the trunk top (the recursion
        // itself always splits in two).
        let mut kids = std::collections::BTreeMap::new();
        for g in &f.graphs {
            for e in &g.edges {
                *kids.entry((g.tree_id, e.parent)).or_insert(0) += 1;
            }
        }
        let ways = kids.iter().filter(|(&(t, k), &n)| {
            let g = f.graphs.iter().find(|g| g.tree_id == t).unwrap();
            n == 1 && g.nodes[k as usize].kind == NodeKind::Branch
        });
        let terminals: usize = f.graphs.iter().map(|g| g.terminal_count()).sum();
        eprintln!(
            "{label}: {trees} trees, {nodes} nodes ({terminals} terminals, {} single-child branch nodes), \
             {samples} edge samples, radius law within {worst:e}",
            ways.count()
        );
        assert!(trees >= 8, "{label}: {trees} trees");
    }
}

#[test]
fn seed_002_has_the_example_tree_count() {
    let p = ForestParams { target_tree_count: 60, ..ForestParams::default() };
    let f = generate_forest(&Seed::parse("002"), Compat::Pyworldgen, &p).unwrap();
    assert_eq!(f.sites.len(), 60);
    assert_eq!(f.graphs.len(), 60, "every site owns cells and has a graph");
}

/// Brute force: each cell to the site of least |p − s|² − w, ties to the earlier site.
fn hard_diagram(f: &Forest) -> Vec<i32> {
    let mut out = Vec::with_capacity(f.nx * f.ny);
    for j in 0..f.ny {
        for i in 0..f.nx {
            let (x, y) = ((i as f64 + 0.5) * f.resolution, (j as f64 + 0.5) * f.resolution);
            let mut best = (f64::INFINITY, -1);
            for s in &f.sites {
                let d = (x - s.xy.0).powi(2) + (y - s.xy.1).powi(2) - s.weight;
                if d < best.0 {
                    best = (d, s.id as i32);
                }
            }
            out.push(best.1);
        }
    }
    out
}

#[test]
fn diffusion_zero_is_the_hard_diagram_and_diffusion_keeps_one_owner() {
    for (seed, compat) in [("002", Compat::Pyworldgen), ("birch", Compat::Canonical)] {
        let seed = Seed::parse(seed);
        let p = ForestParams { domain_size: (90.0, 75.0), ..ForestParams::default() };
        let hard = generate_forest(&seed, compat, &p).unwrap();
        assert_eq!(hard.owner, hard_diagram(&hard), "canopy_diffusion = 0 is not the hard power diagram");
        // The warp frequency is irrelevant at 0.
        let other_scale = generate_forest(&seed, compat, &ForestParams { canopy_diffusion_scale: 0.3, ..p.clone() });
        assert_eq!(other_scale.unwrap(), hard);
        let mut changed = Vec::new();
        for d in [0.05, 0.3, 0.8] {
            let soft = generate_forest(&seed, compat, &ForestParams { canopy_diffusion: d, ..p.clone() }).unwrap();
            assert_eq!(soft.sites.len(), hard.sites.len());
            assert!(soft.owner.iter().all(|&o| o >= 0 && (o as usize) < soft.sites.len()));
            let differ = soft.owner.iter().zip(hard_diagram(&soft)).filter(|(a, b)| **a != *b).count();
            changed.push(differ);
            validate_forest(&soft).unwrap_or_else(|e| panic!("diffusion {d}: {e}"));
        }
        assert!(changed[2] > changed[0] && changed[0] > 0, "warp moves boundaries, more when stronger: {changed:?}");
    }
}

#[test]
fn forests_are_deterministic_on_any_thread_count() {
    for (label, seed, compat, p) in cases().into_iter().take(4) {
        let a = generate_forest(&seed, compat, &p).unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = one.install(|| generate_forest(&seed, compat, &p).unwrap());
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let c = three.install(|| generate_forest(&seed, compat, &p).unwrap());
        assert!(a == b && b == c, "{label}: not deterministic");
    }
}

#[test]
fn species_leave_the_ground_half_and_other_trees_alone() {
    let seed = Seed::parse("grove");
    let base = ForestParams { domain_size: (80.0, 80.0), ..ForestParams::default() };
    let single = generate_forest(&seed, Compat::Pyworldgen, &base).unwrap();
    let mixed =
        generate_forest(&seed, Compat::Pyworldgen, &ForestParams { species: three_species(), ..base.clone() }).unwrap();
    // The ground half does not move.
    assert_eq!(single.owner, mixed.owner);
    assert_eq!(single.canopy, mixed.canopy);
    let strip = |f: &Forest| f.sites.iter().map(|s| (s.xy, s.weight, s.trunk_radius)).collect::<Vec<_>>();
    assert_eq!(strip(&single), strip(&mixed));
    // Every species drawn, roughly by share.
    let counts: Vec<usize> = (0..3).map(|k| mixed.sites.iter().filter(|s| s.species == k).count()).collect();
    assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
    assert!(counts[0] > counts[2], "{counts:?}");
    // A single-species table equal to the default is the default forest.
    let explicit = ForestParams { species: vec![Species::default()], ..base.clone() };
    assert_eq!(generate_forest(&seed, Compat::Pyworldgen, &explicit).unwrap().graphs, single.graphs);
    // Oak trees (species 0, the default species) have the same graphs as in the single-species
    // forest; changing the pine species moves no oak or poplar tree.
    for g in mixed.graphs.iter().filter(|g| g.species == 0) {
        assert_eq!(Some(g), single.graphs.iter().find(|h| h.tree_id == g.tree_id));
    }
    let mut other = three_species();
    other[1] = Species { max_branch_depth: 2, radius_gamma: 3.0, crown: CrownShape::Round, ..other[1].clone() };
    let changed = generate_forest(&seed, Compat::Pyworldgen, &ForestParams { species: other, ..base.clone() }).unwrap();
    for (a, b) in mixed.graphs.iter().zip(&changed.graphs) {
        assert_eq!(a.species, b.species);
        if a.species != 1 {
            assert_eq!(a, b, "tree {} moved when another species changed", a.tree_id);
        } else {
            assert_eq!(b.radius_gamma, 3.0);
        }
    }
    // Crown shapes: conical terminals sit deeper under the roof than round ones, the more so
    // the farther from the trunk; columnar terminals crowd the trunk.
    let (mut depth, mut spread) = ([0.0f64; 3], [0.0f64; 3]);
    let mut n = [0usize; 3];
    for g in &mixed.graphs {
        let top = g.nodes.iter().rfind(|v| v.kind == NodeKind::Trunk).unwrap().position;
        let reach = mixed.owner.iter().filter(|&&o| o as usize == g.tree_id).count() as f64;
        let reach = (reach * mixed.resolution * mixed.resolution / std::f64::consts::PI).sqrt();
        for v in g.nodes.iter().filter(|v| v.kind == NodeKind::Terminal) {
            let c = cell_of(&mixed, v.position[0], v.position[1]);
            depth[g.species] += mixed.canopy[c] as f64 - v.position[2];
            spread[g.species] += (v.position[0] - top[0]).hypot(v.position[1] - top[1]) / reach;
            n[g.species] += 1;
        }
    }
    let (depth, spread): (Vec<f64>, Vec<f64>) =
        (0..3).map(|k| (depth[k] / n[k] as f64, spread[k] / n[k] as f64)).unzip();
    eprintln!("mean depth under the roof {depth:?}, mean spread {spread:?}");
    assert!(depth[1] > depth[0] + 1.0 && depth[2] > depth[0] + 1.0, "{depth:?}");
    assert!(spread[2] < spread[0], "{spread:?}");
}

#[test]
fn validator_catches_broken_forests() {
    let p = ForestParams { domain_size: (60.0, 60.0), ..ForestParams::default() };
    let good = generate_forest(&Seed::parse("oak"), Compat::Pyworldgen, &p).unwrap();
    assert!(inspect_forest(&good).is_valid());
    let fails = |f: &Forest, what: &str| {
        let e = validate_forest(f).expect_err(what).to_string();
        assert!(e.contains(what), "expected `{what}` in: {e}");
    };

    // A radius off the law.
    let mut f = good.clone();
    let g = &mut f.graphs[3];
    let k = g.nodes.iter().position(|v| v.kind == NodeKind::Branch).unwrap();
    g.nodes[k].radius *= 1.0 + 1e-6;
    fails(&f, "radius law");
    // A terminal of another radius.
    let mut f = good.clone();
    let k = f.graphs[0].nodes.iter().position(|v| v.kind == NodeKind::Terminal).unwrap();
    f.graphs[0].nodes[k].radius *= 2.0;
    fails(&f, "terminal radius");

    // A terminal moved into a neighbour's cell.
    let mut f = good.clone();
    let t = f.graphs[2].tree_id as i32;
    let c = (0..f.owner.len()).find(|&c| f.owner[c] != t && f.owner[c] >= 0).unwrap();
    let (x, y) = (((c % f.nx) as f64 + 0.5) * f.resolution, ((c / f.nx) as f64 + 0.5) * f.resolution);
    let k = f.graphs[2].nodes.iter().position(|v| v.kind == NodeKind::Terminal).unwrap();
    f.graphs[2].nodes[k].position[0] = x;
    f.graphs[2].nodes[k].position[1] = y;
    fails(&f, "leaves its cell");
    // An edge crossing another crown between two nodes that are both inside: some node joined
    // straight to the root, in a tree whose (diffused) crown is not convex.
    let wavy =
        generate_forest(&Seed::parse("oak"), Compat::Pyworldgen, &ForestParams { canopy_diffusion: 0.7, ..p }).unwrap();
    assert!(inspect_forest(&wavy).is_valid());
    let good = wavy;
    let mut crossing = None;
    'search: for (gi, g) in good.graphs.iter().enumerate() {
        for (k, v) in g.nodes.iter().enumerate().skip(1) {
            let mut h = g.clone();
            h.nodes[k].parent = Some(0);
            h.edges[k - 1].parent = 0;
            let _ = v;
            let mut f = good.clone();
            f.graphs[gi] = h;
            let r = inspect_forest(&f);
            if r.problems.iter().any(|p| p.contains("edge 0→")) {
                crossing = Some(f);
                break 'search;
            }
        }
    }
    fails(&crossing.expect("some straight root edge crosses another crown"), "leaves its cell");

    // A cell without a valid owner; a non-finite canopy; a graph whose first node is no root.
    let mut f = good.clone();
    f.owner[5] = f.sites.len() as i32;
    fails(&f, "cell 5 has owner");
    let mut f = good.clone();
    f.canopy[7] = f32::NAN;
    fails(&f, "canopy is not finite");
    let mut f = good.clone();
    f.graphs[1].nodes[0].kind = NodeKind::Branch;
    fails(&f, "node 0 is not a parentless root");
    let mut f = good.clone();
    f.graphs[1].edges.pop();
    fails(&f, "parent links");
}

#[test]
fn graph_parameters_are_accepted_by_their_pyworldgen_names() {
    let v = serde_json::json!({
        "crown_depth": 7.0, "max_branch_depth": 4, "leaf_cluster_size": 3, "terminal_density": 0.05,
        "terminal_min": 8, "terminal_max": 30, "twig_radius": 0.03, "radius_gamma": 2.0,
        "cell_margin": 0.5, "terminal_boundary_margin": 0.6, "terminal_depth_jitter": 1.5,
        "branch_step_fraction": 0.5, "graph_jitter": 0.4, "apical_dominance": 0.3,
        "branch_length_decay": 0.8, "max_trees_for_graphs": 5, "domain_size": [50.0, 50.0],
        "species": [{"name": "oak", "share": 2.0}, {"name": "pine", "crown": "conical", "radius_gamma": 2.4}]
    });
    let p = ForestParams::from_json(&v).unwrap();
    assert_eq!(p.species[1].crown, CrownShape::Conical);
    assert_eq!(p.species[1].max_branch_depth, 5, "species fields default");
    let f = generate_forest(&Seed::parse("x"), Compat::Pyworldgen, &p).unwrap();
    assert!(!f.graphs.is_empty() && f.graphs.len() <= 5 && f.graphs.iter().all(|g| g.tree_id < 5));
    validate_forest(&f).unwrap();
    let e = |v: serde_json::Value| ForestParams::from_json(&v).unwrap_err().to_string();
    assert!(e(serde_json::json!({"terminal_min": 50, "terminal_max": 40})).contains("terminal_min"));
    assert!(e(serde_json::json!({"radius_gamma": f64::MAX, "twig_radius": -1.0})).contains("twig_radius"));
    assert!(e(serde_json::json!({"species": [{"share": 0.0}]})).contains("species"));
    assert!(e(serde_json::json!({"species": [{"crown": "weeping"}]})).contains("weeping"));
    assert!(e(serde_json::json!({"species": [{"radius_gamma": 0.2}]})).contains("species[0].radius_gamma"));
    assert!(e(serde_json::json!({"species": [{"hieght": 3}]})).contains("hieght"));
}

#[test]
fn invariants_hold_on_many_small_forests() {
    // 32 small forests with parameters picked by a fixed LCG: both randomness paths, 0.75–2.5 m
    // cells, diffusion up to 1.2, 0–3 Lloyd rounds, depths 0–8, clusters 1–6, jitter 0–3 m,
    // 1 or 3 species.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut pick = |n: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let (mut nodes, mut trees) = (0, 0);
    for k in 0..32 {
        let p = ForestParams {
            domain_size: (30.0 + 10.0 * pick(4) as f64, 30.0 + 10.0 * pick(3) as f64),
            resolution: [0.75, 1.0, 1.5, 2.5][pick(4)],
            target_tree_count: 10 + pick(40),
            canopy_diffusion: [0.0, 0.2, 0.5, 1.2][pick(4)],
            lloyd_iterations: pick(4) as u32,
            max_branch_depth: pick(9) as u32,
            leaf_cluster_size: 1 + pick(6),
            graph_jitter: [0.0, 0.65, 3.0][pick(3)],
            terminal_density: [0.02, 0.04, 0.3][pick(3)],
            species: if pick(2) == 0 { Vec::new() } else { three_species() },
            ..ForestParams::default()
        };
        let compat = if pick(2) == 0 { Compat::Pyworldgen } else { Compat::Canonical };
        let label = format!("forest {k} ({compat:?}, {p:?})");
        let f = generate_forest(&Seed::parse(&format!("s{k}")), compat, &p).unwrap();
        let (t, n, _, _) = check_invariants(&label, &f);
        validate_forest(&f).unwrap_or_else(|e| panic!("{label}: {e}"));
        trees += t;
        nodes += n;
    }
    eprintln!("32 small forests: {trees} trees, {nodes} nodes");
    assert!(trees > 300);
}
