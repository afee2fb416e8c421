//! Boykov and Kolmogorov's max-flow ([`crate::tiling::graphcut::FlowGraph::max_flow_bk`]): two
//! search trees grown from the terminals, augmentation, adoption of orphans.

use super::{csr, Arc, Cap, FlowGraph, MaxFlow};
use std::collections::VecDeque;

const FREE: u8 = 0;
const S_TREE: u8 = 1;
const T_TREE: u8 = 2;
const TERMINAL: u32 = u32::MAX - 1;
const ORPHAN: u32 = u32::MAX;
const NO_ARC: u32 = u32::MAX;

/// One node of the solver. `parent` is the arc from the node to its parent (for both trees),
/// [`TERMINAL`] for a root, [`ORPHAN`], or [`NO_ARC`] when free. `tr` is the residual terminal
/// capacity: > 0 from the source, < 0 to the sink. `ts`/`dist` are the paper's timestamp and
/// distance-to-terminal marks. The node's arcs are `first .. next node's first`.
#[derive(Debug, Clone, Copy)]
struct Node {
    tr: Cap,
    first: u32,
    parent: u32,
    ts: u32,
    dist: u32,
    tree: u8,
    active: bool,
}

/// Boykov–Kolmogorov state.
pub(crate) struct Bk {
    arcs: Vec<Arc>,
    /// `n + 1` nodes; the last is a sentinel holding the end of the arc list.
    nodes: Vec<Node>,
    time: u32,
    active: VecDeque<u32>,
    orphans: VecDeque<u32>,
    flow: Cap,
}

impl Bk {
    pub(crate) fn new(g: &FlowGraph) -> Bk {
        let n = g.node_count();
        let (arcs, first) = csr(g);
        let blank = Node { tr: 0, first: 0, parent: NO_ARC, ts: 0, dist: 0, tree: FREE, active: false };
        let nodes: Vec<Node> = first.iter().map(|&first| Node { first, ..blank }).collect();
        let mut s = Bk { arcs, nodes, time: 0, active: VecDeque::new(), orphans: VecDeque::new(), flow: 0 };
        for i in 0..n {
            // Flow straight through a node with both terminal links goes first.
            s.flow += g.source[i].min(g.sink[i]);
            let tr = g.source[i] - g.sink[i];
            let node = &mut s.nodes[i];
            node.tr = tr;
            if tr != 0 {
                node.tree = if tr > 0 { S_TREE } else { T_TREE };
                node.parent = TERMINAL;
                node.dist = 1;
                s.activate(i);
            }
        }
        s
    }

    #[inline(always)]
    fn arc_range(&self, i: usize) -> std::ops::Range<usize> {
        self.nodes[i].first as usize..self.nodes[i + 1].first as usize
    }

    #[inline(always)]
    fn activate(&mut self, i: usize) {
        if !self.nodes[i].active {
            self.nodes[i].active = true;
            self.active.push_back(i as u32);
        }
    }

    fn next_active(&mut self) -> Option<usize> {
        while let Some(i) = self.active.pop_front() {
            let i = i as usize;
            self.nodes[i].active = false;
            if self.nodes[i].tree != FREE {
                return Some(i);
            }
        }
        None
    }

    /// Grows the tree of `i` by one layer; returns a connecting arc `(m, x, y)` with `x` in S,
    /// `y` in T and residual capacity on `m: x → y`, if the trees meet.
    fn grow(&mut self, i: usize) -> Option<(usize, usize, usize)> {
        let tree = self.nodes[i].tree;
        let (ts_i, dist_i) = (self.nodes[i].ts, self.nodes[i].dist);
        for a in self.arc_range(i) {
            let arc = self.arcs[a];
            let j = arc.head as usize;
            // S grows along i → j, T along j → i (the sister arc).
            let (toward, cap) =
                if tree == S_TREE { (arc.sister, arc.rcap) } else { (arc.sister, self.arcs[arc.sister as usize].rcap) };
            if cap <= 0 {
                continue;
            }
            let nj = &mut self.nodes[j];
            if nj.tree == FREE {
                nj.tree = tree;
                nj.parent = toward;
                nj.ts = ts_i;
                nj.dist = dist_i + 1;
                self.activate(j);
            } else if nj.tree != tree {
                return Some(if tree == S_TREE { (a, i, j) } else { (arc.sister as usize, j, i) });
            } else if nj.ts <= ts_i && nj.dist > dist_i {
                // The paper's heuristic: re-hang j below i when that shortens its path.
                nj.parent = toward;
                nj.ts = ts_i;
                nj.dist = dist_i + 1;
            }
        }
        None
    }

    #[inline(always)]
    fn make_orphan(&mut self, i: usize) {
        self.nodes[i].parent = ORPHAN;
        self.orphans.push_back(i as u32);
    }

    /// Pushes the bottleneck along source → … → x → y → … → sink.
    fn augment(&mut self, m: usize, x: usize, y: usize) {
        let mut b = self.arcs[m].rcap;
        // S side: flow runs parent → i, on the sister of i's parent arc.
        let mut i = x;
        loop {
            let p = self.nodes[i].parent;
            if p == TERMINAL {
                b = b.min(self.nodes[i].tr);
                break;
            }
            let arc = self.arcs[p as usize];
            b = b.min(self.arcs[arc.sister as usize].rcap);
            i = arc.head as usize;
        }
        // T side: flow runs i → parent, on i's parent arc.
        let mut i = y;
        loop {
            let p = self.nodes[i].parent;
            if p == TERMINAL {
                b = b.min(-self.nodes[i].tr);
                break;
            }
            let arc = self.arcs[p as usize];
            b = b.min(arc.rcap);
            i = arc.head as usize;
        }
        debug_assert!(b > 0);
        let sm = self.arcs[m].sister as usize;
        self.arcs[m].rcap -= b;
        self.arcs[sm].rcap += b;
        let mut i = x;
        loop {
            let p = self.nodes[i].parent;
            if p == TERMINAL {
                self.nodes[i].tr -= b;
                if self.nodes[i].tr == 0 {
                    self.make_orphan(i);
                }
                break;
            }
            let (p, arc) = (p as usize, self.arcs[p as usize]);
            let sis = arc.sister as usize;
            self.arcs[p].rcap += b;
            self.arcs[sis].rcap -= b;
            if self.arcs[sis].rcap == 0 {
                self.make_orphan(i);
            }
            i = arc.head as usize;
        }
        let mut i = y;
        loop {
            let p = self.nodes[i].parent;
            if p == TERMINAL {
                self.nodes[i].tr += b;
                if self.nodes[i].tr == 0 {
                    self.make_orphan(i);
                }
                break;
            }
            let (p, arc) = (p as usize, self.arcs[p as usize]);
            self.arcs[arc.sister as usize].rcap += b;
            self.arcs[p].rcap -= b;
            if self.arcs[p].rcap == 0 {
                self.make_orphan(i);
            }
            i = arc.head as usize;
        }
        self.flow += b;
    }

    /// Distance from `j` to its terminal through valid parents, or `None` if its chain ends in
    /// an orphan; marks the chain with the current time.
    fn origin_distance(&mut self, j: usize) -> Option<u32> {
        let time = self.time;
        let mut d = 0u32;
        let mut k = j;
        loop {
            let nk = &mut self.nodes[k];
            if nk.ts == time {
                d += nk.dist;
                break;
            }
            let p = nk.parent;
            d += 1;
            if p == TERMINAL {
                nk.ts = time;
                nk.dist = 1;
                break;
            }
            if p == ORPHAN {
                return None;
            }
            k = self.arcs[p as usize].head as usize;
        }
        let mut k = j;
        let mut dd = d;
        while self.nodes[k].ts != time {
            let nk = &mut self.nodes[k];
            nk.ts = time;
            nk.dist = dd;
            dd -= 1;
            k = self.arcs[nk.parent as usize].head as usize;
        }
        Some(d)
    }

    /// Residual capacity that lets tree `tree` hang node `i` below neighbour `j` through arc
    /// `a: i → j`: S needs `j → i` (the sister), T needs `i → j`.
    #[inline(always)]
    fn hang_cap(&self, tree: u8, a: usize) -> Cap {
        if tree == S_TREE {
            self.arcs[self.arcs[a].sister as usize].rcap
        } else {
            self.arcs[a].rcap
        }
    }

    fn adopt(&mut self) {
        while let Some(i) = self.orphans.pop_front() {
            let i = i as usize;
            let tree = self.nodes[i].tree;
            let mut best = NO_ARC;
            let mut best_d = u32::MAX;
            for a in self.arc_range(i) {
                let j = self.arcs[a].head as usize;
                if self.nodes[j].tree != tree || self.hang_cap(tree, a) <= 0 {
                    continue;
                }
                if let Some(d) = self.origin_distance(j) {
                    if d < best_d {
                        best_d = d;
                        best = a as u32;
                    }
                }
            }
            if best != NO_ARC {
                let ni = &mut self.nodes[i];
                ni.parent = best;
                ni.ts = self.time;
                ni.dist = best_d + 1;
                continue;
            }
            // No parent: i leaves its tree; neighbours that could reach it become active, its
            // children become orphans.
            for a in self.arc_range(i) {
                let j = self.arcs[a].head as usize;
                if self.nodes[j].tree != tree {
                    continue;
                }
                if self.hang_cap(tree, a) > 0 {
                    self.activate(j);
                }
                let p = self.nodes[j].parent;
                if p != TERMINAL && p != ORPHAN && p != NO_ARC && self.arcs[p as usize].head as usize == i {
                    self.make_orphan(j);
                }
            }
            self.nodes[i].tree = FREE;
            self.nodes[i].parent = NO_ARC;
        }
    }

    pub(crate) fn run(mut self) -> MaxFlow {
        while let Some(i) = self.next_active() {
            if let Some((m, x, y)) = self.grow(i) {
                self.time = self.time.wrapping_add(1);
                if self.time == 0 {
                    // After 2³² augmentations the marks would alias: clear them.
                    self.nodes.iter_mut().for_each(|n| n.ts = 0);
                    self.time = 1;
                }
                self.augment(m, x, y);
                self.adopt();
                // Keep growing from i while it still belongs to a tree.
                if self.nodes[i].tree != FREE && !self.nodes[i].active {
                    self.nodes[i].active = true;
                    self.active.push_front(i as u32);
                }
            }
        }
        // The source side: reachable from the source in the residual graph.
        let n = self.nodes.len() - 1;
        let mut side = vec![false; n];
        let mut queue: Vec<u32> = Vec::new();
        for (i, s) in side.iter_mut().enumerate() {
            if self.nodes[i].tr > 0 {
                *s = true;
                queue.push(i as u32);
            }
        }
        while let Some(i) = queue.pop() {
            for a in self.arc_range(i as usize) {
                let arc = self.arcs[a];
                let j = arc.head as usize;
                if !side[j] && arc.rcap > 0 {
                    side[j] = true;
                    queue.push(j as u32);
                }
            }
        }
        MaxFlow { flow: self.flow, source_side: side }
    }
}
