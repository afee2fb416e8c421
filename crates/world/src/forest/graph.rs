//! The forest's per-tree branch graphs (seed 002; pyworldgen 0.1.8's `build_tree_graph` and
//! `_assign_radii`): root → trunk → branches → terminals, grown inside the tree's own crown cell
//! of the power diagram, with bottom-up radii under the pipe-model law `r_parentᵞ = Σ r_childᵞ`
//! (Shinozaki et al. 1964; γ generalised).
//!
//! Per tree, in this order:
//!
//! 1. **Crown.** The tree's owned cells; the graph lives on their largest 4-connected piece
//!    (all of them unless `canopy_diffusion` split the crown into islands; ties to the piece
//!    holding the earliest cell in row-major order).
//! 2. **Terminals.** `count = clip(area·terminal_density, terminal_min, terminal_max)` (area of
//!    all owned cells), at most the number of candidate cells: the crown cells whose border
//!    distance is ≥ `max(cell_margin, terminal_boundary_margin)` (all crown cells when none
//!    is). Drawn without replacement with weights `max(border, 0.05)` (times the species' shape
//!    factor, [`CrownShape`]) by numpy's `choice(replace=False, p=…)` procedure (rounds of
//!    uniform draws through the cumulative weights, repeats dropped), then one
//!    `U(0.15, terminal_depth_jitter)` per terminal: its depth below the canopy roof. Generator:
//!    `draws(seed + 3000 + 17·id)`, pyworldgen's.
//! 3. **Trunk.** Root at the site on the terrain, a mid node a quarter of the lean up at 0.48 of
//!    the height, a top node at the lean (the crown centroid minus the site, at most
//!    `0.65·crown_radius` long) at `mean canopy − 0.65·crown_depth`. Under `canopy_diffusion`
//!    the three snap to their nearest crown cell centres (pyworldgen's rule); in the hard
//!    diagram only a node whose cell is not in the crown does (pyworldgen leaves it outside).
//! 4. **Branches.** Recursively from the trunk top: a set of at most `leaf_cluster_size`
//!    terminals, or one reached at the species' `max_branch_depth`, is attached as terminal
//!    nodes (cell centre + hashed jitter of `0.2·graph_jitter`, snapped back to the nearest
//!    crown cell centre); a larger set is split at the median of its projection on its
//!    principal axis, and for each half a branch node steps from the parent toward the half's
//!    mean by `clip(branch_step_fraction·(0.75 + 0.25·apical_dominance)·branch_length_decay^(depth−1),
//!    0.25, 0.72)` of the way, plus hashed jitter (`hashf(id + 31·depth, idx + 7/11/13,
//!    seed + 500/501/502)`), snapped to the nearest crown cell centre, its height clipped to
//!    [terrain + 0.8, canopy − 0.05] of its cell.
//! 5. **Inside the cell.** Every new edge is sampled at ≤ half-cell steps; if a sample falls in
//!    another tree's cell the edge is replaced by the shortest 4-connected path of crown cell
//!    centres, string-pulled (each waypoint is the farthest one still reachable inside), the
//!    waypoints becoming single-child branch (or trunk) nodes with linearly interpolated height.
//! 6. **Radii.** Every leaf is a terminal of radius `r_t = max(twig_radius,
//!    trunk_radius·N^(−1/γ))` (N terminals); every other node gets `(Σ r_childᵞ)^(1/γ)`, children
//!    before parents. So the law holds exactly (to rounding) at every node and the root's radius
//!    is `max(twig_radius·N^(1/γ), trunk_radius)`, pyworldgen's root radius.
//!
//! **Against pyworldgen.** In the compatibility path with a round-crowned species the node
//! kinds, parents and positions are bit-equal to pyworldgen's (`tests/forest_graph_golden.rs`),
//! which takes numpy's arithmetic as it is: float32 draw weights and roof mean, dot products
//! and the 2 × 2 scatter matrix accumulated with fused multiply-adds (OpenBLAS), LAPACK's
//! `dlaev2` rotation for the principal axis. Deliberate differences, each where pyworldgen's
//! result would break an invariant: pyworldgen clamps trunk radii to `0.55·trunk_radius` and
//! every radius to `twig_radius`, breaking the radius law (its root radius is ours); an edge
//! that crosses another tree's cell is rerouted (pyworldgen checks nodes only); a crown split
//! into islands by diffusion grows on its largest piece (pyworldgen snaps to any island and
//! joins them across other crowns); in the hard diagram a trunk node outside the crown is
//! snapped (pyworldgen leaves it in a neighbour's cell); a cluster whose mean coincides with
//! its parent is attached to the parent (pyworldgen drops its terminals).
//!
//! Coordinates: x east, y north, z up, metres; a point (x, y) lies in cell
//! `(⌊clip(x/res, 0, nx−1)⌋, ⌊clip(y/res, 0, ny−1)⌋)`, pyworldgen's `validate_forest` lookup.
//! Node ids are indices; every parent id is smaller than its children's. Deterministic: a tree's
//! graph depends only on (seed, compat, params, its site, its species and the grids), never on
//! the thread count or on other trees' species.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::species::{CrownShape, Species};
use super::{ForestParams, TreeSite};
use crate::random::{Draws, Noise};

/// What a node of a tree graph is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// The base of the trunk, on the terrain; node 0.
    Root,
    /// A trunk node (mid, top, and waypoints between them).
    Trunk,
    /// A branching point (or a waypoint keeping an edge inside the cell).
    Branch,
    /// A leaf cluster's anchor; exactly the leaves of the graph.
    Terminal,
}

/// One node of a tree graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    /// (x east, y north, z up), metres.
    pub position: [f64; 3],
    /// Parent node id (smaller than this node's); `None` only for the root.
    pub parent: Option<u32>,
    /// Role.
    pub kind: NodeKind,
    /// Recursion depth: 0 for root and trunk, `d + 1` for nodes made at depth `d`.
    pub order: u32,
    /// Branch radius at this node, metres.
    pub radius: f64,
}

/// One edge, parent to child (node ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchEdge {
    /// Parent node id.
    pub parent: u32,
    /// Child node id.
    pub child: u32,
}

/// One tree: nodes in creation order (parents first) and one edge per non-root node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeGraph {
    /// The site (and owner-grid value) this tree belongs to.
    pub tree_id: usize,
    /// Index into the forest's species table.
    pub species: usize,
    /// γ of the radius law for this tree (its species').
    pub radius_gamma: f64,
    /// Radius given to every terminal, metres.
    pub terminal_radius: f64,
    /// Nodes; node 0 is the root.
    pub nodes: Vec<TreeNode>,
    /// Edges, one per non-root node, in creation order.
    pub edges: Vec<BranchEdge>,
}

impl TreeGraph {
    /// Child ids of every node, in id order.
    pub fn children(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for e in &self.edges {
            if let Some(v) = out.get_mut(e.parent as usize) {
                v.push(e.child);
            }
        }
        out
    }

    /// Number of terminal nodes.
    pub fn terminal_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.kind == NodeKind::Terminal).count()
    }
}

/// The owner grid as the graphs see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnerGrid<'a> {
    pub nx: usize,
    pub ny: usize,
    pub res: f64,
    pub owner: &'a [i32],
}

impl OwnerGrid<'_> {
    /// The cell holding (x, y) (clipped to the grid).
    pub fn cell_of(&self, x: f64, y: f64) -> usize {
        let i = (x / self.res).max(0.0).min((self.nx - 1) as f64) as usize;
        let j = (y / self.res).max(0.0).min((self.ny - 1) as f64) as usize;
        j * self.nx + i
    }

    /// Centre of cell `c`.
    pub fn centre(&self, c: usize) -> [f64; 2] {
        [((c % self.nx) as f64 + 0.5) * self.res, ((c / self.nx) as f64 + 0.5) * self.res]
    }

    /// Whether every sample of segment a–b, at steps of at most half a cell (both ends
    /// included), lies in a cell owned by `id`.
    pub fn segment_inside(&self, id: i32, a: [f64; 2], b: [f64; 2]) -> bool {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = dx.hypot(dy);
        if !len.is_finite() {
            return false;
        }
        let steps = (len / (0.5 * self.res)).ceil().clamp(1.0, 1e7) as usize;
        (0..=steps).all(|k| {
            let t = k as f64 / steps as f64;
            self.owner[self.cell_of(a[0] + dx * t, a[1] + dy * t)] == id
        })
    }
}

/// What every tree of one forest shares.
pub(crate) struct GraphContext<'a> {
    pub p: &'a ForestParams,
    pub noise: &'a dyn Noise,
    pub seed: i64,
    pub grid: OwnerGrid<'a>,
    pub border: &'a [f32],
    pub terrain: &'a [f32],
    pub canopy: &'a [f32],
}

/// The crown a graph lives on: one 4-connected piece of a tree's owned cells.
struct Crown {
    /// Cells, row-major.
    cells: Vec<usize>,
    i0: usize,
    j0: usize,
    w: usize,
    h: usize,
    /// Membership over the bounding box.
    inside: Vec<bool>,
}

impl Crown {
    /// The largest 4-connected piece of `cells` (row-major); ties to the earliest.
    fn largest_piece(grid: &OwnerGrid<'_>, cells: &[usize]) -> Crown {
        let nx = grid.nx;
        let (mut i0, mut i1, mut j0, mut j1) = (usize::MAX, 0, usize::MAX, 0);
        for &c in cells {
            let (i, j) = (c % nx, c / nx);
            (i0, i1, j0, j1) = (i0.min(i), i1.max(i), j0.min(j), j1.max(j));
        }
        let (w, h) = (i1 - i0 + 1, j1 - j0 + 1);
        // 0: not the tree's; 1: unvisited; 2: visited.
        let mut state = vec![0u8; w * h];
        let local = |c: usize| (c / nx - j0) * w + (c % nx - i0);
        for &c in cells {
            state[local(c)] = 1;
        }
        let mut best: Vec<usize> = Vec::new();
        let mut queue = VecDeque::new();
        for &c in cells {
            if state[local(c)] != 1 {
                continue;
            }
            state[local(c)] = 2;
            queue.push_back(local(c));
            let mut piece = Vec::new();
            while let Some(l) = queue.pop_front() {
                piece.push((l / w + j0) * nx + l % w + i0);
                for n in neighbours(l, w, h).into_iter().flatten() {
                    if state[n] == 1 {
                        state[n] = 2;
                        queue.push_back(n);
                    }
                }
            }
            if piece.len() > best.len() {
                best = piece;
            }
        }
        best.sort_unstable();
        let mut inside = vec![false; w * h];
        for &c in &best {
            inside[local(c)] = true;
        }
        Crown { cells: best, i0, j0, w, h, inside }
    }

    fn local(&self, nx: usize, c: usize) -> Option<usize> {
        let (i, j) = (c % nx, c / nx);
        if i < self.i0 || j < self.j0 || i >= self.i0 + self.w || j >= self.j0 + self.h {
            return None;
        }
        Some((j - self.j0) * self.w + (i - self.i0))
    }

    fn contains(&self, nx: usize, c: usize) -> bool {
        self.local(nx, c).is_some_and(|l| self.inside[l])
    }

    /// The crown cell whose centre is nearest (x, y); ties to the earliest.
    fn nearest(&self, grid: &OwnerGrid<'_>, xy: [f64; 2]) -> usize {
        let mut best = (f64::INFINITY, self.cells[0]);
        for &c in &self.cells {
            let q = grid.centre(c);
            let d = (q[0] - xy[0]).powi(2) + (q[1] - xy[1]).powi(2);
            if d < best.0 {
                best = (d, c);
            }
        }
        best.1
    }

    /// Shortest 4-connected path of crown cells from `a` to `b`, both included. Both are crown
    /// cells by construction; were one not, the path is just `[a, b]`.
    fn path(&self, nx: usize, a: usize, b: usize) -> Vec<usize> {
        let (Some(la), Some(lb)) = (self.local(nx, a), self.local(nx, b)) else {
            return vec![a, b];
        };
        if !(self.inside[la] && self.inside[lb]) {
            return vec![a, b];
        }
        let mut prev = vec![usize::MAX; self.w * self.h];
        prev[la] = la;
        let mut queue = VecDeque::from([la]);
        while let Some(l) = queue.pop_front() {
            if l == lb {
                break;
            }
            for n in neighbours(l, self.w, self.h).into_iter().flatten() {
                if self.inside[n] && prev[n] == usize::MAX {
                    prev[n] = l;
                    queue.push_back(n);
                }
            }
        }
        if prev[lb] == usize::MAX {
            return vec![a, b];
        }
        let mut out = vec![lb];
        let mut l = lb;
        while l != la {
            l = prev[l];
            out.push(l);
        }
        out.reverse();
        out.into_iter().map(|l| (l / self.w + self.j0) * nx + l % self.w + self.i0).collect()
    }
}

/// 4-neighbours of local index `l` in a `w × h` box: west, east, south, north.
fn neighbours(l: usize, w: usize, h: usize) -> [Option<usize>; 4] {
    let (i, j) = (l % w, l / w);
    [(i > 0).then(|| l - 1), (i + 1 < w).then(|| l + 1), (j > 0).then(|| l - w), (j + 1 < h).then(|| l + w)]
}

/// numpy's `Generator.choice(n, size=k, replace=False, p=weights)`: rounds of `k − found`
/// uniforms through the cumulative (renormalised) weights, searchsorted to the right, repeats
/// dropped keeping first appearances, found entries zeroed for the next round. Needs at least
/// `k` positive weights.
fn choice_without_replacement(draws: &mut dyn Draws, weights: &[f64], k: usize) -> Vec<usize> {
    let mut p = weights.to_vec();
    let mut found: Vec<usize> = Vec::with_capacity(k);
    let mut cdf = vec![0.0; p.len()];
    let mut seen = vec![false; p.len()];
    while found.len() < k {
        let xs: Vec<f64> = (0..k - found.len()).map(|_| draws.random()).collect();
        for &f in &found {
            p[f] = 0.0;
        }
        let mut acc = 0.0;
        for (c, &v) in cdf.iter_mut().zip(&p) {
            acc += v;
            *c = acc;
        }
        for c in cdf.iter_mut() {
            *c /= acc;
        }
        for x in xs {
            let idx = cdf.partition_point(|&c| c <= x).min(p.len() - 1);
            if !seen[idx] {
                seen[idx] = true;
                found.push(idx);
            }
        }
    }
    found
}

/// The unit principal axis of centred points' (x, y), as pyworldgen gets it from numpy:
/// the scatter matrix `[[a, b], [b, c]] = centredᵀ·centred` accumulated in order with fused
/// multiply-adds (what OpenBLAS's `dgemm` does here), then the eigenvector of the larger
/// eigenvalue as LAPACK's `dsyevd` returns it for a 2 × 2 matrix: `b` dropped when
/// `|b| ≤ √|a|·√|c|·2⁻⁵³` (`[1, 0]` if a ≥ c, else `[0, 1]`), otherwise `dlaev2`'s rotation
/// `(cs1, sn1)`. Checked bit-equal with numpy 2.4 on 30,000 random and grid-like point sets.
fn principal_axis(centred: &[[f64; 2]]) -> [f64; 2] {
    let (mut a, mut b, mut c) = (0.0f64, 0.0f64, 0.0f64);
    for p in centred {
        a = p[0].mul_add(p[0], a);
        b = p[1].mul_add(p[0], b);
        c = p[1].mul_add(p[1], c);
    }
    if b.abs() <= (a.abs().sqrt() * c.abs().sqrt()) * f64::EPSILON * 0.5 {
        return if a >= c { [1.0, 0.0] } else { [0.0, 1.0] };
    }
    // LAPACK's dlaev2, eigenvector part.
    let (sm, df) = (a + c, a - c);
    let (adf, tb) = (df.abs(), b + b);
    let ab = tb.abs();
    let rt = if adf > ab {
        let q = ab / adf;
        adf * (1.0 + q * q).sqrt()
    } else if adf < ab {
        let q = adf / ab;
        ab * (1.0 + q * q).sqrt()
    } else {
        ab * std::f64::consts::SQRT_2
    };
    let sgn1 = if sm < 0.0 { -1 } else { 1 };
    let (cs, sgn2) = if df >= 0.0 { (df + rt, 1) } else { (df - rt, -1) };
    let (mut cs1, mut sn1);
    if cs.abs() > ab {
        let ct = -tb / cs;
        sn1 = 1.0 / (1.0 + ct * ct).sqrt();
        cs1 = ct * sn1;
    } else if ab == 0.0 {
        (cs1, sn1) = (1.0, 0.0);
    } else {
        let tn = -cs / tb;
        cs1 = 1.0 / (1.0 + tn * tn).sqrt();
        sn1 = tn * cs1;
    }
    if sgn1 == sgn2 {
        (cs1, sn1) = (-sn1, cs1);
    }
    [cs1, sn1]
}

/// numpy's median: the middle value, or the mean of the two middle values.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// pyworldgen's `_split_terminals`: the points with projection ≤ the median on the principal
/// axis, then the rest, order kept; halves by index if either side is empty.
fn split(points: &[[f64; 3]]) -> Vec<Vec<[f64; 3]>> {
    if points.len() <= 1 {
        return vec![points.to_vec()];
    }
    let n = points.len() as f64;
    let m = [points.iter().map(|p| p[0]).sum::<f64>() / n, points.iter().map(|p| p[1]).sum::<f64>() / n];
    let centred: Vec<[f64; 2]> = points.iter().map(|p| [p[0] - m[0], p[1] - m[1]]).collect();
    let axis = principal_axis(&centred);
    // numpy's `centred @ axis`: x·a₀ fused onto y·a₁.
    let proj: Vec<f64> = centred.iter().map(|c| c[0].mul_add(axis[0], c[1] * axis[1])).collect();
    let med = median(&proj);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (p, &q) in points.iter().zip(&proj) {
        if q <= med {
            a.push(*p);
        } else {
            b.push(*p);
        }
    }
    if a.is_empty() || b.is_empty() {
        let half = points.len() / 2;
        return vec![points[..half].to_vec(), points[half..].to_vec()];
    }
    vec![a, b]
}

/// Grows one tree's nodes and edges.
struct Builder<'a, 'b> {
    ctx: &'a GraphContext<'b>,
    sp: &'a Species,
    crown: Crown,
    id: usize,
    nodes: Vec<TreeNode>,
    edges: Vec<BranchEdge>,
}

impl Builder<'_, '_> {
    fn jitter(&self, depth: u32, idx: usize, scale: f64) -> [f64; 3] {
        let a = (self.id as i64).wrapping_add(depth as i64 * 31);
        let h = |k: i64, s: i64| self.ctx.noise.hashf2(a, idx as i64 + k, self.ctx.seed.wrapping_add(s)) * 2.0 - 1.0;
        [scale * h(7, 500), scale * h(11, 501), scale * h(13, 502)]
    }

    fn snap(&self, xy: [f64; 2]) -> [f64; 2] {
        self.ctx.grid.centre(self.crown.nearest(&self.ctx.grid, xy))
    }

    /// Adds a node under `parent`, first adding waypoints if the straight edge leaves the cell.
    fn attach(&mut self, parent: u32, pos: [f64; 3], kind: NodeKind, order: u32) -> u32 {
        let grid = self.ctx.grid;
        let a = self.nodes[parent as usize].position;
        let (axy, bxy) = ([a[0], a[1]], [pos[0], pos[1]]);
        let mut from = parent;
        if !grid.segment_inside(self.id as i32, axy, bxy) {
            let cells = self.crown.path(grid.nx, grid.cell_of(axy[0], axy[1]), grid.cell_of(bxy[0], bxy[1]));
            let mut pts = vec![axy];
            pts.extend(cells.iter().map(|&c| grid.centre(c)));
            pts.push(bxy);
            let last = pts.len() - 1;
            let mut way = vec![axy];
            let mut anchor = 0;
            while anchor < last {
                let mut j = last;
                while j > anchor + 1 && !grid.segment_inside(self.id as i32, pts[anchor], pts[j]) {
                    j -= 1;
                }
                way.push(pts[j]);
                anchor = j;
            }
            let seg: Vec<f64> = way.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])).collect();
            let total: f64 = seg.iter().sum::<f64>().max(1e-300);
            let wkind = if kind == NodeKind::Trunk { NodeKind::Trunk } else { NodeKind::Branch };
            let mut run = 0.0;
            for (k, w) in way[1..way.len() - 1].iter().enumerate() {
                run += seg[k];
                let z = a[2] + (pos[2] - a[2]) * (run / total);
                from = self.push([w[0], w[1], z], from, wkind, order);
            }
        }
        self.push(pos, from, kind, order)
    }

    fn push(&mut self, position: [f64; 3], parent: u32, kind: NodeKind, order: u32) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(TreeNode { position, parent: Some(parent), kind, order, radius: 0.0 });
        self.edges.push(BranchEdge { parent, child: id });
        id
    }

    /// pyworldgen's recursive `rec`.
    fn grow(&mut self, parent: u32, pts: &[[f64; 3]], depth: u32) {
        if pts.is_empty() {
            return;
        }
        let p = self.ctx.p;
        let parent_pos = self.nodes[parent as usize].position;
        if pts.len() <= p.leaf_cluster_size || depth >= self.sp.max_branch_depth {
            for (ti, t) in pts.iter().enumerate() {
                let c = self.snap([t[0], t[1]]);
                let j = self.jitter(depth, ti, p.graph_jitter * 0.2);
                let tip = self.snap([c[0] + j[0], c[1] + j[1]]);
                self.attach(parent, [tip[0], tip[1], t[2] + j[2]], NodeKind::Terminal, depth + 1);
            }
            return;
        }
        for (ci, cl) in split(pts).iter().enumerate() {
            if cl.is_empty() {
                continue;
            }
            let n = cl.len() as f64;
            let target = [0, 1, 2].map(|k| cl.iter().map(|q| q[k]).sum::<f64>() / n);
            let dir = [0, 1, 2].map(|k| target[k] - parent_pos[k]);
            // numpy's `linalg.norm`: a dot product accumulated with fused multiply-adds.
            let norm = dir[2].mul_add(dir[2], dir[1].mul_add(dir[1], dir[0] * dir[0])).sqrt();
            if norm < 1e-6 {
                self.grow(parent, cl, depth + 1);
                continue;
            }
            let unit = dir.map(|d| d / norm);
            let mut frac = p.branch_step_fraction * (0.75 + 0.25 * p.apical_dominance);
            frac *= p.branch_length_decay.powf(depth.saturating_sub(1) as f64);
            let frac = frac.clamp(0.25, 0.72);
            let j = self.jitter(depth, ci, p.graph_jitter);
            let step = |k: usize| parent_pos[k] + unit[k] * norm * frac + j[k];
            let xy = self.snap([step(0), step(1)]);
            let c = self.ctx.grid.cell_of(xy[0], xy[1]);
            // pyworldgen's bounds are float32 (terrain + 0.8 and canopy − 0.05 in f32).
            let lo = (self.ctx.terrain[c] + 0.8f32) as f64;
            let hi = (self.ctx.canopy[c] - 0.05f32) as f64;
            let z = step(2).max(lo).min(hi);
            let node = self.attach(parent, [xy[0], xy[1], z], NodeKind::Branch, depth + 1);
            self.grow(node, cl, depth + 1);
        }
    }
}

/// The graph of `site` over its owned `cells` (row-major), or `None` when it owns none or no
/// terminal is wanted.
pub(crate) fn build_tree_graph(
    ctx: &GraphContext<'_>,
    site: &TreeSite,
    sp: &Species,
    species: usize,
    cells: &[usize],
    draws: &mut dyn Draws,
) -> Option<TreeGraph> {
    if cells.is_empty() {
        return None;
    }
    let (p, grid) = (ctx.p, ctx.grid);
    let crown = Crown::largest_piece(&grid, cells);
    let res = grid.res;

    // Trunk geometry (no draws).
    let centres: Vec<[f64; 2]> = crown.cells.iter().map(|&c| grid.centre(c)).collect();
    // numpy's mean along axis 0 of an (n, 2) array: summed in order.
    let n = centres.len() as f64;
    let centroid = [0, 1].map(|k| centres.iter().fold(0.0, |s, c| s + c[k]) / n);
    let (sx, sy) = site.xy;
    let mut lean = [centroid[0] - sx, centroid[1] - sy];
    let ln = lean[1].mul_add(lean[1], lean[0] * lean[0]).sqrt();
    if ln > site.crown_radius * 0.65 {
        lean = lean.map(|v| v / ln.max(1e-6) * site.crown_radius * 0.65);
    }
    let (wx, wy) = (grid.nx as f64 * res, grid.ny as f64 * res);
    // Under diffusion pyworldgen always snaps the trunk to a cell centre; in the hard diagram it
    // keeps it where it is (we snap only when that is outside the crown).
    let always = p.canopy_diffusion > 0.0;
    let place = |xy: [f64; 2]| {
        let in_box = xy[0] >= 0.0 && xy[0] < wx && xy[1] >= 0.0 && xy[1] < wy;
        if !always && in_box && crown.contains(grid.nx, grid.cell_of(xy[0], xy[1])) {
            xy
        } else {
            grid.centre(crown.nearest(&grid, xy))
        }
    };
    let root_xy = place([sx, sy]);
    let mid_xy = place([sx + 0.25 * lean[0], sy + 0.25 * lean[1]]);
    let top_xy = place([sx + lean[0], sy + lean[1]]);
    // pyworldgen's `np.mean(canopy_h[mask]) - 0.65·crown_depth` stays in float32.
    let roof: Vec<f32> = cells.iter().map(|&c| ctx.canopy[c]).collect();
    let top_z =
        (crate::compat::ndimage::pairwise_sum(&roof) / roof.len() as f32 - (0.65 * p.crown_depth) as f32) as f64;
    let root_z = ctx.terrain[grid.cell_of(root_xy[0], root_xy[1])] as f64;

    // Terminals.
    let margin = p.cell_margin.max(p.terminal_boundary_margin);
    let mut interior: Vec<usize> = crown.cells.iter().copied().filter(|&c| ctx.border[c] >= margin as f32).collect();
    if interior.is_empty() {
        interior = crown.cells.clone();
    }
    let reach = crown.cells.iter().map(|&c| dist(grid.centre(c), top_xy)).fold(0.0, f64::max).max(1e-9);
    let rho = |c: usize| dist(grid.centre(c), top_xy) / reach;
    // pyworldgen's weights are float32: max(border, 0.05) over their float32 sum.
    let w32: Vec<f32> = interior.iter().map(|&c| ctx.border[c].max(0.05f32)).collect();
    let total = crate::compat::ndimage::pairwise_sum(&w32);
    let weights: Vec<f64> = interior
        .iter()
        .zip(&w32)
        .map(|(&c, &w)| {
            let w = (w / total) as f64;
            match sp.crown {
                CrownShape::Columnar => w * ((1.0 - rho(c)).powi(2) + 0.05),
                _ => w,
            }
        })
        .collect();
    let area = cells.len() as f64 * res * res;
    let count = (area * p.terminal_density).max(p.terminal_min as f64).min(p.terminal_max as f64) as usize;
    let count = count.min(interior.len());
    if count == 0 {
        return None;
    }
    let chosen = choice_without_replacement(draws, &weights, count);
    let terminals: Vec<[f64; 3]> = chosen
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let c = interior[i];
            let q = grid.centre(c);
            let mut z = ctx.canopy[c] as f64 - draws.uniform(0.15, p.terminal_depth_jitter);
            let drop = match sp.crown {
                CrownShape::Round => 0.0,
                CrownShape::Conical => 0.8 * p.crown_depth * rho(c),
                CrownShape::Columnar => {
                    0.6 * p.crown_depth * ctx.noise.hashf2(site.id as i64, k as i64, ctx.seed.wrapping_add(510))
                }
            };
            if sp.crown != CrownShape::Round {
                z = (z - drop).max(ctx.terrain[c] as f64 + 0.8);
            }
            [q[0], q[1], z]
        })
        .collect();

    let mut b = Builder { ctx, sp, crown, id: site.id, nodes: Vec::new(), edges: Vec::new() };
    b.nodes.push(TreeNode {
        position: [root_xy[0], root_xy[1], root_z],
        parent: None,
        kind: NodeKind::Root,
        order: 0,
        radius: 0.0,
    });
    let mid = b.attach(0, [mid_xy[0], mid_xy[1], root_z + 0.48 * (top_z - root_z)], NodeKind::Trunk, 0);
    let top = b.attach(mid, [top_xy[0], top_xy[1], top_z], NodeKind::Trunk, 0);
    b.grow(top, &terminals, 0);

    let (mut nodes, edges) = (b.nodes, b.edges);
    let gamma = sp.radius_gamma;
    let leaves = nodes.iter().filter(|n| n.kind == NodeKind::Terminal).count();
    let terminal_radius = sp.twig_radius.max(site.trunk_radius * (leaves as f64).powf(-1.0 / gamma));
    assign_radii(&mut nodes, terminal_radius, gamma);
    Some(TreeGraph { tree_id: site.id, species, radius_gamma: gamma, terminal_radius, nodes, edges })
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Leaves get `terminal_radius`; every other node `(Σ r_childᵞ)^(1/γ)`, children first (a
/// child's id is always larger than its parent's).
pub(crate) fn assign_radii(nodes: &mut [TreeNode], terminal_radius: f64, gamma: f64) {
    let mut sums = vec![0.0f64; nodes.len()];
    let mut has_child = vec![false; nodes.len()];
    for n in nodes.iter() {
        if let Some(p) = n.parent {
            has_child[p as usize] = true;
        }
    }
    for k in (0..nodes.len()).rev() {
        let r = if has_child[k] { sums[k].powf(1.0 / gamma) } else { terminal_radius };
        nodes[k].radius = r;
        if let Some(p) = nodes[k].parent {
            sums[p as usize] += r.powf(gamma);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Canonical;

    #[test]
    fn principal_axis_of_a_line_and_its_sign() {
        // Along (2, −1): b < 0, so LAPACK's sign is (−, +).
        let pts: Vec<[f64; 2]> = (-3..=3).map(|k| [k as f64 * 2.0, -(k as f64)]).collect();
        let a = principal_axis(&pts);
        let want = [-2.0 / 5f64.sqrt(), 1.0 / 5f64.sqrt()];
        assert!((a[0] - want[0]).abs() < 1e-12 && (a[1] - want[1]).abs() < 1e-12, "{a:?}");
        // Along (1, 1) with a = c: (+, +), numpy's bits.
        let d: Vec<[f64; 2]> = (-2..=2).map(|k| [k as f64, k as f64]).collect();
        assert_eq!(principal_axis(&d), [0.7071067811865475, 0.7071067811865475]);
        assert_eq!(principal_axis(&[[0.0, 1.0], [0.0, -1.0]]), [0.0, 1.0]);
        assert_eq!(principal_axis(&[[1.0, 0.0], [-1.0, 0.0]]), [1.0, 0.0]);
    }

    #[test]
    fn split_halves_at_the_median_keeping_order() {
        let pts: Vec<[f64; 3]> = [5.0, 1.0, 4.0, 2.0, 3.0].iter().map(|&x| [x, 0.0, 0.0]).collect();
        let s = split(&pts);
        assert_eq!(s[0].iter().map(|p| p[0]).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
        assert_eq!(s[1].iter().map(|p| p[0]).collect::<Vec<_>>(), [5.0, 4.0]);
        // All equal: halves by index.
        let same = vec![[1.0, 1.0, 0.0]; 4];
        assert_eq!(split(&same).iter().map(Vec::len).collect::<Vec<_>>(), [2, 2]);
    }

    #[test]
    fn choice_without_replacement_is_distinct_and_follows_weights() {
        let mut d = crate::random::Randomness::draws(&Canonical, 5);
        let w = [1.0, 0.0, 3.0, 1.0, 5.0];
        let mut hits = [0usize; 5];
        for _ in 0..2000 {
            let c = choice_without_replacement(d.as_mut(), &w, 1);
            hits[c[0]] += 1;
        }
        assert_eq!(hits[1], 0);
        assert!((hits[4] as f64 / 2000.0 - 0.5).abs() < 0.05, "{hits:?}");
        let mut all = choice_without_replacement(d.as_mut(), &w, 4);
        all.sort_unstable();
        assert_eq!(all, [0, 2, 3, 4]);
    }

    #[test]
    fn radii_follow_the_law() {
        // root → a → (t, b → (t, t)).
        let node = |parent: Option<u32>| TreeNode {
            position: [0.0; 3],
            parent,
            kind: NodeKind::Branch,
            order: 0,
            radius: 0.0,
        };
        let mut n = vec![node(None), node(Some(0)), node(Some(1)), node(Some(1)), node(Some(3)), node(Some(3))];
        assign_radii(&mut n, 0.1, 2.0);
        assert!((n[3].radius - 0.1 * 2f64.sqrt()).abs() < 1e-15);
        assert!((n[0].radius - 0.1 * 3f64.sqrt()).abs() < 1e-15);
        assert_eq!(n[0].radius, n[1].radius);
    }
}

#[cfg(test)]
mod routing_tests {
    use super::*;
    use crate::random::Canonical;

    /// A U-shaped crown (tree 0) around a notch of tree 1: a straight edge between the arms
    /// crosses the notch, so `attach` must route round it.
    #[test]
    fn an_edge_across_a_notch_is_routed_round_it() {
        let (nx, ny) = (9, 7);
        let mut owner = vec![0i32; nx * ny];
        for j in 2..ny {
            for i in 3..6 {
                owner[j * nx + i] = 1;
            }
        }
        let grid = OwnerGrid { nx, ny, res: 1.0, owner: &owner };
        let cells: Vec<usize> = (0..nx * ny).filter(|&c| owner[c] == 0).collect();
        let p = ForestParams::default();
        let zeros = vec![0f32; nx * ny];
        let ctx =
            GraphContext { p: &p, noise: &Canonical, seed: 0, grid, border: &zeros, terrain: &zeros, canopy: &zeros };
        let sp = Species::default();
        let crown = Crown::largest_piece(&grid, &cells);
        assert_eq!(crown.cells.len(), cells.len());
        let mut b = Builder { ctx: &ctx, sp: &sp, crown, id: 0, nodes: Vec::new(), edges: Vec::new() };
        b.nodes.push(TreeNode { position: [1.5, 5.5, 0.0], parent: None, kind: NodeKind::Root, order: 0, radius: 0.0 });
        assert!(!grid.segment_inside(0, [1.5, 5.5], [7.5, 5.5]));
        let end = b.attach(0, [7.5, 5.5, 6.0], NodeKind::Terminal, 1);
        assert!(end >= 3, "waypoints added: {}", end);
        assert_eq!(b.nodes[end as usize].position, [7.5, 5.5, 6.0]);
        for e in &b.edges {
            let (a, c) = (b.nodes[e.parent as usize].position, b.nodes[e.child as usize].position);
            assert!(grid.segment_inside(0, [a[0], a[1]], [c[0], c[1]]), "{a:?} → {c:?}");
            assert!(c[2] >= a[2], "heights interpolate upward");
        }
        // Waypoints are branch nodes; string pulling keeps them few.
        assert!(b.nodes[1..end as usize].iter().all(|n| n.kind == NodeKind::Branch));
        assert!(end <= 5, "{:?}", b.nodes);
    }

    /// Diffusion islands: the graph keeps to the largest piece.
    #[test]
    fn the_largest_piece_is_kept() {
        let (nx, ny) = (6, 3);
        #[rustfmt::skip]
        let owner = vec![
            0, 1, 0, 0, 0, 1,
            1, 1, 0, 0, 1, 1,
            0, 1, 1, 1, 1, 1,
        ];
        let grid = OwnerGrid { nx, ny, res: 1.0, owner: &owner };
        let cells: Vec<usize> = (0..nx * ny).filter(|&c| owner[c] == 0).collect();
        let crown = Crown::largest_piece(&grid, &cells);
        assert_eq!(crown.cells, [2, 3, 4, 8, 9]);
        assert!(crown.contains(nx, 9) && !crown.contains(nx, 0) && !crown.contains(nx, 12));
        assert_eq!(crown.nearest(&grid, [0.2, 0.2]), 2);
    }
}
