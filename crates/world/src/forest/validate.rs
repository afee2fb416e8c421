//! Checks a [`Forest`] against the invariants seed 002 states (pyworldgen 0.1.8's
//! `validate_forest` checks grid shapes, owner ids naming sites, edges naming nodes, node 0
//! being the root and every node inside its owned cell; we check those and more).
//!
//! * **Grids**: every grid holds `nx·ny` cells; terrain and canopy are finite.
//! * **One owner per cell**: every cell's owner is a site id (−1 only when there are no sites).
//! * **Sites**: numbered in order, finite, their species in the table.
//! * **Graphs**: tree ids increasing (one graph per tree at most) and naming sites; node 0 the
//!   root and the only node without a parent; every parent id smaller than its child's; the
//!   edges exactly the parent links in node order; trunk nodes under the root or the trunk;
//!   leaves exactly the terminals.
//! * **Inside the cell**: every node's (x, y) lies in the domain and in a cell owned by its
//!   tree, and every edge too, sampled at ≤ half-cell steps (both ends included).
//! * **Radii law**: radii finite and positive; every leaf has the graph's terminal radius; at
//!   every other node `|rᵞ − Σ r_childᵞ| ≤ 1e-9·max(rᵞ, Σ r_childᵞ)`.
//!
//! Never panics, whatever the forest holds: a malformed one yields problems, not a crash.

use super::graph::{NodeKind, OwnerGrid};
use super::Forest;
use crate::error::{Result, WorldError};

/// Relative tolerance of the radius law.
pub const RADIUS_LAW_TOLERANCE: f64 = 1e-9;

/// Most problems a report lists (the count goes on).
pub const MAX_LISTED_PROBLEMS: usize = 50;

/// What [`inspect_forest`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForestReport {
    /// Cells in the grid.
    pub cells: usize,
    /// Cells owned by a site.
    pub owned_cells: usize,
    /// Tree graphs.
    pub trees: usize,
    /// Nodes over all graphs.
    pub nodes: usize,
    /// Edges over all graphs.
    pub edges: usize,
    /// Edge samples checked against the owner grid.
    pub segment_samples: usize,
    /// Largest relative error of the radius law over all non-leaf nodes.
    pub worst_radius_error: f64,
    /// Problems found (at most [`MAX_LISTED_PROBLEMS`] listed).
    pub problems: Vec<String>,
    /// Problems found in all.
    pub problem_count: usize,
}

impl ForestReport {
    /// No problem found.
    pub fn is_valid(&self) -> bool {
        self.problem_count == 0
    }

    fn problem(&mut self, text: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_LISTED_PROBLEMS {
            self.problems.push(text);
        }
    }
}

/// The forest's invariants (module doc), as an error naming the first problems when any fails.
pub fn validate_forest(forest: &Forest) -> Result<ForestReport> {
    let r = inspect_forest(forest);
    if r.is_valid() {
        return Ok(r);
    }
    let shown: Vec<&str> = r.problems.iter().take(5).map(String::as_str).collect();
    Err(WorldError::Invalid(format!("forest: {} problem(s): {}", r.problem_count, shown.join("; "))))
}

/// Every check of the module doc, all problems collected.
pub fn inspect_forest(f: &Forest) -> ForestReport {
    let mut r = ForestReport::default();
    let n = f.nx.checked_mul(f.ny).unwrap_or(0);
    r.cells = n;
    if n == 0 || !(f.resolution.is_finite() && f.resolution > 0.0) {
        r.problem(format!("grid {}×{} at resolution {} is empty or invalid", f.nx, f.ny, f.resolution));
        return r;
    }
    let lens = [
        ("owner", f.owner.len()),
        ("border", f.border.len()),
        ("nearest", f.nearest.len()),
        ("terrain", f.terrain.len()),
        ("canopy", f.canopy.len()),
    ];
    let mut shapes_ok = true;
    for (name, len) in lens {
        if len != n {
            r.problem(format!("{name} holds {len} cells, the grid {n}"));
            shapes_ok = false;
        }
    }
    if !shapes_ok {
        return r;
    }
    for (name, g) in [("terrain", &f.terrain), ("canopy", &f.canopy)] {
        if let Some(c) = g.iter().position(|v| !v.is_finite()) {
            r.problem(format!("{name} is not finite at cell {c}: {}", g[c]));
        }
    }

    // Sites and ownership.
    for (k, s) in f.sites.iter().enumerate() {
        if s.id != k {
            r.problem(format!("site {k} carries id {}", s.id));
        }
        let nums = [s.xy.0, s.xy.1, s.height, s.crown_radius, s.weight, s.age, s.trunk_radius];
        if nums.iter().any(|v| !v.is_finite()) {
            r.problem(format!("site {k} has a non-finite number"));
        }
        if s.species >= f.species.len().max(1) {
            r.problem(format!("site {k} has species {} of {}", s.species, f.species.len()));
        }
    }
    let sites = f.sites.len();
    for (c, &o) in f.owner.iter().enumerate() {
        if o >= 0 && (o as usize) < sites {
            r.owned_cells += 1;
        } else if !(o == -1 && sites == 0) {
            r.problem(format!("cell {c} has owner {o}, not one of the {sites} sites"));
        }
    }

    // Graphs.
    let grid = OwnerGrid { nx: f.nx, ny: f.ny, res: f.resolution, owner: &f.owner };
    let (wx, wy) = (f.nx as f64 * f.resolution, f.ny as f64 * f.resolution);
    let mut last_id: Option<usize> = None;
    for g in &f.graphs {
        let t = g.tree_id;
        r.trees += 1;
        r.nodes += g.nodes.len();
        r.edges += g.edges.len();
        if t >= sites {
            r.problem(format!("graph of tree {t}: no such site ({sites} sites)"));
            continue;
        }
        if last_id.is_some_and(|l| t <= l) {
            r.problem(format!("graph of tree {t} follows the graph of tree {}", last_id.unwrap_or(0)));
        }
        last_id = Some(t);
        if g.species != f.sites[t].species {
            r.problem(format!("tree {t}: graph species {} but site species {}", g.species, f.sites[t].species));
        }
        if g.nodes.is_empty() {
            r.problem(format!("tree {t}: no nodes"));
            continue;
        }
        if !(g.radius_gamma.is_finite() && g.radius_gamma > 0.0) {
            r.problem(format!("tree {t}: radius_gamma {} is not a positive number", g.radius_gamma));
            continue;
        }
        // Structure.
        let mut structure_ok = true;
        let mut has_child = vec![false; g.nodes.len()];
        for (k, node) in g.nodes.iter().enumerate() {
            match (k, node.parent) {
                (0, None) if node.kind == NodeKind::Root => {}
                (0, _) => {
                    r.problem(format!("tree {t}: node 0 is not a parentless root"));
                    structure_ok = false;
                }
                (_, Some(p)) if (p as usize) < k && node.kind != NodeKind::Root => {
                    has_child[p as usize] = true;
                    let pk = g.nodes[p as usize].kind;
                    if node.kind == NodeKind::Trunk && !matches!(pk, NodeKind::Root | NodeKind::Trunk) {
                        r.problem(format!("tree {t}: trunk node {k} hangs from a {pk:?} node"));
                    }
                }
                _ => {
                    r.problem(format!("tree {t}: node {k} ({:?}) has parent {:?}", node.kind, node.parent));
                    structure_ok = false;
                }
            }
        }
        let links_ok = g.edges.len() + 1 == g.nodes.len()
            && g.edges
                .iter()
                .enumerate()
                .all(|(e, edge)| edge.child as usize == e + 1 && g.nodes[e + 1].parent == Some(edge.parent));
        if !links_ok {
            r.problem(format!("tree {t}: the edges are not the parent links in node order"));
            structure_ok = false;
        }
        if !structure_ok {
            continue;
        }
        for (k, node) in g.nodes.iter().enumerate() {
            if has_child[k] == (node.kind == NodeKind::Terminal) {
                r.problem(format!("tree {t}: node {k} is a {:?} with children: {}", node.kind, has_child[k]));
            }
        }
        // Inside the owned cell.
        let mut finite = true;
        for (k, node) in g.nodes.iter().enumerate() {
            let [x, y, z] = node.position;
            if !(x.is_finite() && y.is_finite() && z.is_finite()) {
                r.problem(format!("tree {t}: node {k} has a non-finite position"));
                finite = false;
                continue;
            }
            if !(0.0..wx).contains(&x) || !(0.0..wy).contains(&y) {
                r.problem(format!("tree {t}: node {k} at ({x:.3}, {y:.3}) lies outside the domain"));
                finite = false;
                continue;
            }
            let o = f.owner[grid.cell_of(x, y)];
            if o != t as i32 {
                r.problem(format!("tree {t}: node {k} at ({x:.3}, {y:.3}) leaves its cell (owner there: {o})"));
            }
        }
        if finite {
            for e in &g.edges {
                let (a, b) = (g.nodes[e.parent as usize].position, g.nodes[e.child as usize].position);
                let len = (b[0] - a[0]).hypot(b[1] - a[1]);
                r.segment_samples += (len / (0.5 * f.resolution)).ceil().max(1.0) as usize + 1;
                if !grid.segment_inside(t as i32, [a[0], a[1]], [b[0], b[1]]) {
                    r.problem(format!("tree {t}: edge {}→{} leaves its cell", e.parent, e.child));
                }
            }
        }
        // Radii.
        let gamma = g.radius_gamma;
        let mut sums = vec![0.0f64; g.nodes.len()];
        for node in &g.nodes {
            if let Some(p) = node.parent {
                sums[p as usize] += node.radius.powf(gamma);
            }
        }
        for (k, node) in g.nodes.iter().enumerate() {
            if !(node.radius.is_finite() && node.radius > 0.0) {
                r.problem(format!("tree {t}: node {k} has radius {}", node.radius));
                continue;
            }
            if !has_child[k] {
                if node.radius != g.terminal_radius {
                    r.problem(format!(
                        "tree {t}: terminal {k} has radius {}, not the terminal radius {}",
                        node.radius, g.terminal_radius
                    ));
                }
                continue;
            }
            let own = node.radius.powf(gamma);
            let err = (own - sums[k]).abs() / own.max(sums[k]);
            r.worst_radius_error = r.worst_radius_error.max(err);
            if err.is_nan() || err > RADIUS_LAW_TOLERANCE {
                r.problem(format!(
                    "tree {t}: node {k} breaks the radius law: r^γ = {own:e}, Σ child r^γ = {:e} (relative {err:e})",
                    sums[k]
                ));
            }
        }
    }
    r
}
