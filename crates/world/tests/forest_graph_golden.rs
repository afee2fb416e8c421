//! `forest` branch graphs against pyworldgen 0.1.8's `build_tree_graph`: on 6 cases (string and
//! integer seeds, 1–2 m cells, `canopy_diffusion` 0, 0.4 and 0.7, 0 and 1 Lloyd rounds, other
//! depths, cluster sizes, margins, steps, jitter and `max_trees_for_graphs`; 460 trees) every
//! graph's node kinds, parents and positions are **bit-equal** to pyworldgen's, except the trees
//! whose crown `canopy_diffusion` split into islands (we grow those on the largest piece only;
//! pyworldgen snaps to any of its cells). Radii are not compared: pyworldgen clamps them and
//! breaks the law (docs/world.md, "Forests").
//!
//! Per tree, FNV-1a 64 over each node's (kind as u8: root 0, trunk 1, branch 2, terminal 3;
//! parent as u32 LE, `u32::MAX` for none; x, y, z as f64 LE); per case, FNV-1a 64 over (tree id
//! as u32 LE, tree digest as u64 LE) of the compared trees in order. The expected rows come from
//! this script (numpy 2.4, scipy; pyworldgen's `generate_forest` with the case's seed and
//! params, `ndimage.label` for the islands):
//!
//! ```text
//! KIND = {"root": 0, "trunk": 1, "branch": 2, "terminal": 3}
//! def fnv(data, h=0xcbf29ce484222325):
//!     for b in data: h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
//!     return h
//! def tree_digest(g):
//!     return fnv(b"".join(struct.pack("<BI3d", KIND[n.kind],
//!         0xFFFFFFFF if n.parent is None else n.parent, *n.position) for n in g.nodes))
//! w = generate_forest(seed=seed, params=params)
//! islands = [s.id for s in w.sites if ndimage.label(w.owner_grid == s.id)[1] > 1]
//! kept = [g for g in w.graphs if g.tree_id not in islands]
//! row = (len(w.graphs), sum(len(g.nodes) for g in kept), islands,
//!        fnv(b"".join(struct.pack("<IQ", g.tree_id, tree_digest(g)) for g in kept)))
//! ```

use bozkir_world::forest::{generate_forest, ForestParams, NodeKind, TreeGraph};
use bozkir_world::{Compat, Seed};

/// (seed JSON, params JSON, graphs, nodes of the compared trees, island trees, digest).
type Row = (&'static str, &'static str, usize, usize, &'static [usize], u64);

const CASES: [Row; 6] = [
    (r#"7"#, r#"{}"#, 90, 1738, &[], 0x3501bce44c722a03),
    (r#""002""#, r#"{"target_tree_count": 60}"#, 60, 1244, &[], 0x8694c3593a45b3ad),
    (r#"99"#, r#"{"canopy_diffusion": 0.4}"#, 90, 1721, &[], 0x86f64bce86fba173),
    (
        r#""forest""#,
        r#"{"resolution": 1.0, "domain_size": [70.0, 60.0], "leaf_cluster_size": 2, "max_branch_depth": 7, "graph_jitter": 1.2, "branch_step_fraction": 0.7}"#,
        90,
        2066,
        &[],
        0xb100877922c6a1f7,
    ),
    (
        r#"31337"#,
        r#"{"lloyd_iterations": 0, "terminal_density": 0.1, "terminal_max": 80, "cell_margin": 1.5, "crown_depth": 12.0, "canopy_diffusion": 0.7, "apical_dominance": 0.9, "branch_length_decay": 0.6}"#,
        90,
        2491,
        &[39, 80],
        0xa9e80ee8953d0cc6,
    ),
    (
        r#""oak""#,
        r#"{"resolution": 2.0, "terminal_min": 4, "terminal_depth_jitter": 3.0, "radius_gamma": 2.5, "max_trees_for_graphs": 40, "spacing_factor": 0.9}"#,
        40,
        414,
        &[],
        0x98f1a5a2bd8a784b,
    ),
];

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h = (*h ^ b as u64).wrapping_mul(0x100000001b3);
    }
}

fn tree_digest(g: &TreeGraph) -> u64 {
    let mut h = 0xcbf29ce484222325;
    for n in &g.nodes {
        let kind = match n.kind {
            NodeKind::Root => 0u8,
            NodeKind::Trunk => 1,
            NodeKind::Branch => 2,
            NodeKind::Terminal => 3,
        };
        fnv(&mut h, &[kind]);
        fnv(&mut h, &n.parent.unwrap_or(u32::MAX).to_le_bytes());
        for v in n.position {
            fnv(&mut h, &v.to_le_bytes());
        }
    }
    h
}

#[test]
fn graphs_equal_pyworldgen() {
    let (mut trees, mut nodes) = (0, 0);
    for (seed, params, graphs, want_nodes, islands, want) in CASES {
        let seed: Seed = serde_json::from_str(seed).unwrap();
        let p = ForestParams::from_json(&serde_json::from_str(params).unwrap()).unwrap();
        let f = generate_forest(&seed, Compat::Pyworldgen, &p).unwrap();
        assert_eq!(f.graphs.len(), graphs, "seed {seed}: graphs");
        let kept: Vec<&TreeGraph> = f.graphs.iter().filter(|g| !islands.contains(&g.tree_id)).collect();
        let mut h = 0xcbf29ce484222325;
        for g in &kept {
            fnv(&mut h, &(g.tree_id as u32).to_le_bytes());
            fnv(&mut h, &tree_digest(g).to_le_bytes());
        }
        let n: usize = kept.iter().map(|g| g.nodes.len()).sum();
        assert_eq!(n, want_nodes, "seed {seed}: nodes");
        assert_eq!(h, want, "seed {seed} {params}: graphs differ from pyworldgen's");
        trees += kept.len();
        nodes += n;
    }
    eprintln!("forest graphs: {trees} trees, {nodes} nodes bit-equal to pyworldgen");
    assert!(trees >= 450);
}
