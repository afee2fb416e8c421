//! `forest::mesh`: tree graphs as bark tubes and leaf clusters, checked by code written here.
//! Counts against the documented formulas; every ring vertex at its node's radius from its
//! edge's axis; every piece (bark tube, leaf cluster) closed, consistently wound and of genus 0
//! after welding (`bozkir_mesh::check`), its signed volume the polygonal frustum's (or the
//! icosahedron's) and positive, so outward; normals unit and outward; determinism; a generated
//! forest's mesh inside its crowns; bad parameters and graphs refused by name.

use bozkir_mesh::check::{edges, euler, volume};
use bozkir_mesh::Mesh;
use bozkir_world::forest::mesh::{
    edge_meshed, leaf_radius, BARK, LEAVES, MAX_LEAF_DETAIL, MAX_SIDES, MAX_VERTICES, MIN_EDGE_LENGTH,
};
use bozkir_world::forest::{
    forest_mesh, generate_forest, graphs_mesh, tree_mesh, BranchEdge, ForestMeshParams, ForestParams, NodeKind,
    TreeGraph, TreeNode,
};
use bozkir_world::{Compat, Seed, WorldError};

/// A graph from (position, parent, radius) triples; leaves are terminals.
fn graph(nodes: &[([f64; 3], Option<u32>, f64)]) -> TreeGraph {
    let mut has_child = vec![false; nodes.len()];
    for n in nodes {
        if let Some(p) = n.1 {
            has_child[p as usize] = true;
        }
    }
    let tn: Vec<TreeNode> = nodes
        .iter()
        .enumerate()
        .map(|(k, &(position, parent, radius))| TreeNode {
            position,
            parent,
            kind: match (parent, has_child[k]) {
                (None, _) => NodeKind::Root,
                (Some(_), false) => NodeKind::Terminal,
                (Some(_), true) => NodeKind::Branch,
            },
            order: 0,
            radius,
        })
        .collect();
    let edges = tn
        .iter()
        .enumerate()
        .filter_map(|(k, n)| n.parent.map(|p| BranchEdge { parent: p, child: k as u32 }))
        .collect();
    TreeGraph { tree_id: 0, species: 0, radius_gamma: 2.0, terminal_radius: 0.05, nodes: tn, edges }
}

/// A small branching tree near the origin: a bent trunk, a fork, a downward branch, a
/// horizontal one along x, one along y and a single-child chain.
fn sample_tree() -> TreeGraph {
    graph(&[
        ([0.0, 0.0, 0.0], None, 0.40),
        ([0.1, -0.05, 1.5], Some(0), 0.35),
        ([0.3, 0.2, 2.9], Some(1), 0.30),
        ([1.4, 0.2, 2.9], Some(2), 0.12),          // along +x
        ([0.3, -1.1, 2.9], Some(2), 0.15),         // along −y
        ([-0.6, 0.9, 3.7], Some(2), 0.2),          // oblique
        ([-1.2, 1.3, 3.2], Some(5), 0.08),         // downward
        ([-0.9, 1.6, 3.95], Some(5), 0.1),         // oblique up
        ([-0.9, 1.6 + 1e-6, 3.95], Some(7), 0.08), // shorter than MIN_EDGE_LENGTH: no tube
        ([1.4, 0.2, 3.9], Some(3), 0.09),          // vertical chain
        ([1.45, 0.25, 3.9], Some(9), 0.07),        // short, horizontal
    ])
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}
fn f64s(p: [f32; 3]) -> [f64; 3] {
    p.map(f64::from)
}

/// Vertices `range` of `m` and the triangles over them, as a mesh of its own.
fn piece(m: &Mesh, verts: std::ops::Range<usize>, tris: std::ops::Range<usize>) -> Mesh {
    let base = verts.start as u32;
    Mesh {
        positions: m.positions[verts.clone()].to_vec(),
        normals: m.normals[verts.clone()].to_vec(),
        block: m.block[verts].to_vec(),
        ao: Vec::new(),
        indices: m.indices[3 * tris.start..3 * tris.end].iter().map(|&i| i - base).collect(),
    }
}

/// Distance of `p` from the line through `a` along unit `d`.
fn off_axis(p: [f64; 3], a: [f64; 3], d: [f64; 3]) -> f64 {
    let w = sub(p, a);
    let t = dot(w, d);
    norm([w[0] - t * d[0], w[1] - t * d[1], w[2] - t * d[2]])
}

/// Tolerances: `rel` relative, plus `slack` metres of f32 rounding (0 near the origin).
struct Tol {
    radius_rel: f64,
    volume_rel: f64,
    slack: f64,
}

/// Checks every piece of `m`, the mesh of `g` under `p`, against `g`; returns (tubes, leaves).
fn check_tree(m: &Mesh, g: &TreeGraph, p: &ForestMeshParams, tol: &Tol) -> (usize, usize) {
    m.validate().unwrap();
    assert!(m.ao.is_empty());
    let n = p.sides as usize;
    let (bv, bt) = (4 * n + 2, 4 * n);
    let k = 1usize << (2 * p.leaf_detail);
    let (lv, lt) = (10 * k + 2, 20 * k);
    assert_eq!(p.bark_piece(), (bv, bt));
    assert_eq!(p.leaf_piece(), (lv, lt));
    let tubes: Vec<usize> = (0..g.edges.len()).filter(|&e| edge_meshed(g, e)).collect();
    let tips: Vec<&TreeNode> = g.nodes.iter().filter(|n| n.kind == NodeKind::Terminal).collect();
    assert_eq!(m.vertex_count(), tubes.len() * bv + tips.len() * lv, "vertex count by formula");
    assert_eq!(m.triangle_count(), tubes.len() * bt + tips.len() * lt, "triangle count by formula");
    for (t, &e) in tubes.iter().enumerate() {
        let (v0, t0) = (t * bv, t * bt);
        let pc = piece(m, v0..v0 + bv, t0..t0 + bt);
        assert!(pc.block.iter().all(|&b| b == BARK));
        let (a, b) = (&g.nodes[g.edges[e].parent as usize], &g.nodes[g.edges[e].child as usize]);
        let h = norm(sub(b.position, a.position));
        let d = sub(b.position, a.position).map(|c| c / h);
        // Rings at their node's radius from the axis, and in the node's cross-section plane.
        for (range, node) in [(0..n, a), (n..2 * n, b), (2 * n..3 * n, a), (3 * n + 1..4 * n + 1, b)] {
            for q in range {
                let x = f64s(pc.positions[q]);
                let r = off_axis(x, a.position, d);
                assert!(
                    (r - node.radius).abs() <= tol.radius_rel * node.radius + tol.slack,
                    "edge {e} vertex {q}: {r} from the axis, radius {}",
                    node.radius
                );
                let along = dot(sub(x, node.position), d);
                assert!(
                    along.abs() <= tol.radius_rel * node.radius + tol.slack,
                    "edge {e} vertex {q} off its ring plane"
                );
            }
        }
        for (q, node) in [(3 * n, a), (4 * n + 1, b)] {
            assert!(norm(sub(f64s(pc.positions[q]), node.position)) <= tol.slack.max(1e-6), "cap centre {q}");
        }
        // Closed, consistently wound, a sphere's topology.
        let er = edges(&pc).unwrap();
        assert!(er.manifold(), "edge {e}: {er:?}");
        assert_eq!(er.edges, 6 * n);
        assert_eq!(euler(&pc).unwrap().characteristic, 2);
        // Volume: the polygonal frustum's, positive (outward winding).
        let (r1, r2) = (a.radius, b.radius);
        let want = n as f64 / 2.0 * (std::f64::consts::TAU / n as f64).sin() * h / 3.0 * (r1 * r1 + r1 * r2 + r2 * r2);
        let area = std::f64::consts::PI * (r1 + r2) * (h + r1 + r2);
        let got = volume(&pc).unwrap().signed_volume;
        assert!(
            (got - want).abs() <= tol.volume_rel * want + area * tol.slack,
            "edge {e}: volume {got}, frustum {want}"
        );
        assert!(got > 0.0);
        // Normals: unit; on the sides the radial part is the taper's cos = h / √(h² + (r1 − r2)²)
        // (outward) and the axial part (r1 − r2)/√(…); on the caps ∓d.
        let slant = (h * h + (r1 - r2) * (r1 - r2)).sqrt();
        let (lean, rise) = (h / slant, (r1 - r2) / slant);
        for q in 0..bv {
            let nv = f64s(pc.normals[q]);
            assert!((norm(nv) - 1.0).abs() < 1e-6, "unit normal");
            if q < 2 * n {
                let w = sub(f64s(pc.positions[q]), a.position);
                let radial = sub(w, d.map(|c| c * dot(w, d)));
                let slack = 1e-5 + tol.slack / r1.min(r2);
                assert!((dot(nv, radial) / norm(radial) - lean).abs() < slack, "edge {e} vertex {q}: side normal");
                assert!((dot(nv, d) - rise).abs() < slack, "edge {e} vertex {q}: side normal's lean");
            } else {
                let along = if q <= 3 * n { -dot(nv, d) } else { dot(nv, d) };
                assert!(along > 1.0 - 1e-6, "edge {e} vertex {q}: cap normal");
            }
        }
    }
    // Leaves.
    let rl = leaf_radius(g, p);
    assert_eq!(rl.is_some(), !tips.is_empty());
    for (t, node) in tips.iter().enumerate() {
        let r = rl.unwrap();
        let (v0, t0) = (tubes.len() * bv + t * lv, tubes.len() * bt + t * lt);
        let pc = piece(m, v0..v0 + lv, t0..t0 + lt);
        assert!(pc.block.iter().all(|&b| b == LEAVES));
        for (x, nv) in pc.positions.iter().zip(&pc.normals) {
            let w = sub(f64s(*x), node.position);
            assert!((norm(w) - r).abs() <= tol.radius_rel * r + tol.slack, "leaf vertex {} from its terminal", norm(w));
            assert!(dot(f64s(*nv), w) / norm(w) > 1.0 - 1e-5, "leaf normal radial");
        }
        let er = edges(&pc).unwrap();
        assert!(er.manifold(), "leaf {t}: {er:?}");
        assert_eq!(euler(&pc).unwrap().characteristic, 2);
        let got = volume(&pc).unwrap().signed_volume;
        let ball = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        // Regular icosahedron of circumradius r: edge a = 4r/√(10 + 2√5), V = 5/12·(3 + √5)·a³.
        let a = 4.0 * r / (10.0 + 2.0 * 5f64.sqrt()).sqrt();
        let ico = 5.0 / 12.0 * (3.0 + 5f64.sqrt()) * a * a * a;
        let area = 4.0 * std::f64::consts::PI * r * r;
        if p.leaf_detail == 0 {
            assert!((got - ico).abs() <= tol.volume_rel * ico + area * tol.slack, "icosahedron volume {got} vs {ico}");
        } else {
            assert!(got > ico * (1.0 + 1e-3) && got < ball, "subdivided: {ico} < {got} < {ball}");
        }
    }
    (tubes.len(), tips.len())
}

const NEAR_ORIGIN: Tol = Tol { radius_rel: 1e-5, volume_rel: 1e-4, slack: 0.0 };

#[test]
fn a_sample_tree_is_closed_pieces_of_the_right_size() {
    let g = sample_tree();
    for sides in [3, 4, 6, 7, 8, 16] {
        for leaf_detail in [0, 1, 2] {
            let p = ForestMeshParams { sides, leaf_detail, ..ForestMeshParams::default() };
            let m = tree_mesh(&g, &p).unwrap();
            let (tubes, tips) = check_tree(&m, &g, &p, &NEAR_ORIGIN);
            assert_eq!((tubes, tips), (9, 4), "the 1 µm edge has no tube; 4 terminals");
        }
    }
    assert!(!edge_meshed(&g, 7) && edge_meshed(&g, 9));
}

#[test]
fn one_edge_in_every_direction() {
    // Axis-aligned both ways, oblique, nearly vertical, nearly along y: the frame never fails.
    let dirs = [
        [0.0, 0.0, 2.0],
        [0.0, 0.0, -2.0],
        [2.0, 0.0, 0.0],
        [-2.0, 0.0, 0.0],
        [0.0, 2.0, 0.0],
        [1.0, -1.5, 0.7],
        [1e-9, 0.0, 3.0],
        [1e-7, 2.5, 1e-7],
    ];
    for d in dirs {
        let g = graph(&[([0.5, -0.25, 0.125], None, 0.3), ([0.5 + d[0], -0.25 + d[1], 0.125 + d[2]], Some(0), 0.1)]);
        let p = ForestMeshParams { sides: 5, leaf_detail: 0, ..ForestMeshParams::default() };
        let m = tree_mesh(&g, &p).unwrap();
        assert_eq!(check_tree(&m, &g, &p, &NEAR_ORIGIN), (1, 1), "{d:?}");
        // A cylinder (equal radii) too.
        let g = graph(&[([0.0; 3], None, 0.2), (d, Some(0), 0.2)]);
        check_tree(&tree_mesh(&g, &p).unwrap(), &g, &p, &NEAR_ORIGIN);
    }
}

#[test]
fn leaf_radius_follows_the_documented_rule() {
    // Four terminals at (±1, ±1): RMS distance √2, crown scale 2, R/√N = 1.
    let tips = [[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]];
    let mut nodes = vec![([0.0, 0.0, 0.0], None, 0.3), ([0.0, 0.0, 1.0], Some(0), 0.2)];
    for t in tips {
        nodes.push(([t[0], t[1], 2.0], Some(1), 0.1));
    }
    let g = graph(&nodes);
    let p = |f: f64, lo: f64, hi: f64| ForestMeshParams {
        leaf_radius_factor: f,
        min_leaf_radius: lo,
        max_leaf_radius: hi,
        ..ForestMeshParams::default()
    };
    assert!((leaf_radius(&g, &p(1.6, 0.1, 9.0)).unwrap() - 1.6).abs() < 1e-12);
    assert!((leaf_radius(&g, &p(0.7, 0.1, 9.0)).unwrap() - 0.7).abs() < 1e-12);
    assert_eq!(leaf_radius(&g, &p(1.6, 0.1, 1.25)), Some(1.25));
    assert_eq!(leaf_radius(&g, &p(0.0, 0.4, 1.25)), Some(0.4));
    // One terminal: no spread, the least radius.
    let one = graph(&[([0.0; 3], None, 0.2), ([0.0, 0.0, 1.0], Some(0), 0.1)]);
    assert_eq!(leaf_radius(&one, &ForestMeshParams::default()), Some(0.5));
    // A lone root: no terminal, no leaves, an empty mesh.
    let root = graph(&[([0.0; 3], None, 0.2)]);
    assert_eq!(leaf_radius(&root, &ForestMeshParams::default()), None);
    assert!(tree_mesh(&root, &ForestMeshParams::default()).unwrap().is_empty());
}

fn small_forest(seed: &str, compat: Compat, extra: impl FnOnce(&mut ForestParams)) -> bozkir_world::forest::Forest {
    let mut p = ForestParams { target_tree_count: 8, domain_size: (45.0, 39.0), ..ForestParams::default() };
    extra(&mut p);
    generate_forest(&Seed::parse(seed), compat, &p).unwrap()
}

/// `g` moved so that its root is at the origin (meshing it there keeps f32 rounding small).
fn at_origin(g: &TreeGraph) -> TreeGraph {
    let o = g.nodes[0].position;
    let mut h = g.clone();
    for n in &mut h.nodes {
        n.position = sub(n.position, o);
    }
    h
}

#[test]
fn generated_forests_mesh_inside_their_crowns() {
    let p = ForestMeshParams::default();
    let cases = [
        small_forest("002", Compat::Pyworldgen, |_| {}),
        small_forest("oak", Compat::Canonical, |q| q.canopy_diffusion = 0.5),
        small_forest("7", Compat::Pyworldgen, |q| {
            q.resolution = 1.0;
            q.leaf_cluster_size = 1;
        }),
    ];
    for f in &cases {
        assert!(f.graphs.len() >= 4, "{} graphs", f.graphs.len());
        let m = forest_mesh(f, &p).unwrap();
        m.validate().unwrap();
        // The forest is its trees in order.
        let mut off = 0;
        for g in &f.graphs {
            let t = tree_mesh(g, &p).unwrap();
            let k = t.vertex_count();
            assert_eq!(&m.positions[off..off + k], &t.positions[..]);
            assert_eq!(&m.block[off..off + k], &t.block[..]);
            off += k;
            // Every piece exactly, on the tree moved to the origin (heights up to ~35 m: f32 slack).
            let h = at_origin(g);
            let top = h.nodes.iter().flat_map(|n| n.position).fold(0.0f64, |s, v| s.max(v.abs()));
            let tol = Tol { radius_rel: 1e-5, volume_rel: 1e-4, slack: 2.0 * top * f64::from(f32::EPSILON) };
            check_tree(&tree_mesh(&h, &p).unwrap(), &h, &p, &tol);
            // Bark within the tree's crown cells' bounding box, padded by the node radii.
            let res = f.resolution;
            let cells: Vec<usize> = (0..f.nx * f.ny).filter(|&c| f.owner[c] == g.tree_id as i32).collect();
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for &c in &cells {
                let (i, j) = ((c % f.nx) as f64, (c / f.nx) as f64);
                lo = [lo[0].min(i * res), lo[1].min(j * res)];
                hi = [hi[0].max((i + 1.0) * res), hi[1].max((j + 1.0) * res)];
            }
            let rmax = g.nodes.iter().map(|n| n.radius).fold(0.0, f64::max);
            let pad = rmax + 1e-4;
            for (x, b) in t.positions.iter().zip(&t.block) {
                if *b == BARK {
                    let (x0, y0) = (f64::from(x[0]), f64::from(x[1]));
                    assert!(
                        x0 >= lo[0] - pad && x0 <= hi[0] + pad && y0 >= lo[1] - pad && y0 <= hi[1] + pad,
                        "tree {}: bark vertex {x:?} outside {lo:?}–{hi:?} ± {pad}",
                        g.tree_id
                    );
                }
            }
        }
        assert_eq!(off, m.vertex_count());
        // Determinism: the same forest gives the same bytes; so does one worker thread.
        let again = forest_mesh(f, &p).unwrap();
        assert_eq!(again, m);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(one.install(|| forest_mesh(f, &p)).unwrap(), m);
        assert_eq!(graphs_mesh(&f.graphs, &p).unwrap(), m);
    }
    // A regenerated forest meshes to the same bytes.
    let a = forest_mesh(&small_forest("002", Compat::Pyworldgen, |_| {}), &p).unwrap();
    let bytes = |m: &Mesh| -> Vec<u8> {
        m.positions
            .iter()
            .chain(&m.normals)
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .chain(m.block.iter().flat_map(|v| v.to_le_bytes()))
            .chain(m.indices.iter().flat_map(|v| v.to_le_bytes()))
            .collect()
    };
    assert_eq!(bytes(&a), bytes(&forest_mesh(&cases[0], &p).unwrap()));
}

#[test]
fn the_default_forest_meshes() {
    let f = generate_forest(&Seed::parse("002"), Compat::Pyworldgen, &ForestParams::default()).unwrap();
    let p = ForestMeshParams::default();
    let m = forest_mesh(&f, &p).unwrap();
    let tubes: usize = f.graphs.iter().map(|g| (0..g.edges.len()).filter(|&e| edge_meshed(g, e)).count()).sum();
    let tips: usize = f.graphs.iter().map(TreeGraph::terminal_count).sum();
    assert_eq!(m.vertex_count(), tubes * p.bark_piece().0 + tips * p.leaf_piece().0);
    assert_eq!(m.triangle_count(), tubes * p.bark_piece().1 + tips * p.leaf_piece().1);
    // Every edge of the default forest is longer than the skip length.
    let edges_total: usize = f.graphs.iter().map(|g| g.edges.len()).sum();
    assert_eq!(tubes, edges_total);
    assert!(m.positions.iter().flatten().all(|v| v.is_finite()));
    let bark = m.block.iter().filter(|&&b| b == BARK).count();
    assert_eq!(bark, tubes * p.bark_piece().0);
    assert_eq!(m.block.len() - bark, tips * p.leaf_piece().0);
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let g = sample_tree();
    let d = ForestMeshParams::default;
    let cases: Vec<(ForestMeshParams, &str)> = vec![
        (ForestMeshParams { sides: 2, ..d() }, "sides"),
        (ForestMeshParams { sides: MAX_SIDES + 1, ..d() }, "sides"),
        (ForestMeshParams { leaf_detail: MAX_LEAF_DETAIL + 1, ..d() }, "leaf_detail"),
        (ForestMeshParams { leaf_radius_factor: f64::NAN, ..d() }, "leaf_radius_factor"),
        (ForestMeshParams { leaf_radius_factor: -1.0, ..d() }, "leaf_radius_factor"),
        (ForestMeshParams { min_leaf_radius: 0.0, ..d() }, "min_leaf_radius"),
        (ForestMeshParams { max_leaf_radius: f64::INFINITY, ..d() }, "max_leaf_radius"),
        (ForestMeshParams { min_leaf_radius: 2.0, max_leaf_radius: 1.0, ..d() }, "min_leaf_radius"),
    ];
    for (p, name) in cases {
        match tree_mesh(&g, &p) {
            Err(WorldError::Param { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    // From JSON: unknown keys refused, omitted keys default.
    let p: ForestMeshParams = serde_json::from_str(r#"{"sides": 8}"#).unwrap();
    assert_eq!(p, ForestMeshParams { sides: 8, ..d() });
    assert!(serde_json::from_str::<ForestMeshParams>(r#"{"side": 8}"#).is_err());
}

#[test]
fn malformed_graphs_and_huge_meshes_are_refused() {
    let p = ForestMeshParams::default();
    let mut g = sample_tree();
    g.nodes[3].position[2] = f64::NAN;
    let e = tree_mesh(&g, &p).unwrap_err().to_string();
    assert!(e.contains("node 3") && e.contains("non-finite"), "{e}");
    let mut g = sample_tree();
    g.nodes[4].radius = 0.0;
    let e = tree_mesh(&g, &p).unwrap_err().to_string();
    assert!(e.contains("node 4") && e.contains("radius"), "{e}");
    let mut g = sample_tree();
    g.edges[2].child = 99;
    let e = tree_mesh(&g, &p).unwrap_err().to_string();
    assert!(e.contains("edge 2") && e.contains("node 99"), "{e}");
    // Over MAX_VERTICES: refused by count before anything is built.
    let chain = 1 + MAX_VERTICES / p.bark_piece().0;
    let nodes: Vec<([f64; 3], Option<u32>, f64)> = (0..=chain)
        .map(|k| ([0.0, 0.0, k as f64 * 2.0 * MIN_EDGE_LENGTH], k.checked_sub(1).map(|q| q as u32), 0.01))
        .collect();
    let big = graph(&nodes);
    match tree_mesh(&big, &p) {
        Err(WorldError::Param { name, allowed, .. }) => {
            assert_eq!(name, "sides");
            assert!(allowed.contains(&format!("at most {MAX_VERTICES}")), "{allowed}");
        }
        other => panic!("{:?}", other.map(|m| m.vertex_count())),
    }
}
