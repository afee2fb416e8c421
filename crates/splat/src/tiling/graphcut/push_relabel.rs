//! Highest-label push–relabel max-flow ([`crate::tiling::graphcut::FlowGraph::max_flow`]).

use super::{csr, Arc, Cap, FlowGraph, MaxFlow};
use std::collections::VecDeque;

/// Highest-label push–relabel (Goldberg and Tarjan, JACM 1988) with the global-relabelling and
/// gap heuristics (Cherkassky and Goldberg, Algorithmica 1997), first phase only: it ends with a
/// maximum preflow, whose value is the maximum flow and whose residual graph gives the minimum
/// cut (the nodes that can still reach the sink are the sink side).
pub(crate) struct PushRelabel {
    arcs: Vec<Arc>,
    /// `n + 1` entries: arcs of node i are `first[i] .. first[i + 1]`.
    first: Vec<u32>,
    /// Excess (≥ 0; the source's implicit arcs are saturated at the start).
    excess: Vec<Cap>,
    /// Residual capacity of the implicit arc i → sink.
    to_sink: Vec<Cap>,
    /// Distance labels (the sink is 0, so a reachable node is at most `n`); `n + 1` = cut off
    /// from the sink.
    label: Vec<u32>,
    /// Current-arc pointer per node.
    current: Vec<u32>,
    /// Active nodes per label (highest first).
    buckets: Vec<Vec<u32>>,
    /// Number of nodes per label below `n` (gap detection).
    count: Vec<u32>,
    highest: usize,
    flow: Cap,
    work: usize,
}

impl PushRelabel {
    pub(crate) fn new(g: &FlowGraph) -> PushRelabel {
        let n = g.node_count();
        let (arcs, first) = csr(g);
        let mut excess = vec![0; n];
        let mut to_sink = vec![0; n];
        let mut flow = 0;
        for i in 0..n {
            let both = g.source[i].min(g.sink[i]);
            flow += both;
            excess[i] = g.source[i] - both;
            to_sink[i] = g.sink[i] - both;
        }
        PushRelabel {
            arcs,
            first: first.clone(),
            excess,
            to_sink,
            label: vec![0; n],
            current: first[..n].to_vec(),
            buckets: vec![Vec::new(); n + 2],
            count: vec![0; n + 2],
            highest: 0,
            flow,
            work: 0,
        }
    }

    fn n(&self) -> usize {
        self.label.len()
    }

    /// The label of nodes that cannot reach the sink.
    fn cut_off(&self) -> u32 {
        self.label.len() as u32 + 1
    }

    /// Exact distances to the sink by a backward BFS in the residual graph; rebuilds buckets.
    fn global_relabel(&mut self) {
        let n = self.n();
        let cut = self.cut_off();
        self.label.iter_mut().for_each(|l| *l = cut);
        self.count.iter_mut().for_each(|c| *c = 0);
        for b in &mut self.buckets {
            b.clear();
        }
        self.highest = 0;
        let mut queue: VecDeque<u32> = VecDeque::new();
        for i in 0..n {
            if self.to_sink[i] > 0 {
                self.label[i] = 1;
                queue.push_back(i as u32);
            }
        }
        while let Some(v) = queue.pop_front() {
            let v = v as usize;
            let lv = self.label[v];
            self.count[lv as usize] += 1;
            if self.excess[v] > 0 {
                self.buckets[lv as usize].push(v as u32);
                self.highest = self.highest.max(lv as usize);
            }
            // u → v residual: the sister of v's arc to u.
            for a in self.first[v] as usize..self.first[v + 1] as usize {
                let arc = self.arcs[a];
                let u = arc.head as usize;
                if self.label[u] == cut && self.arcs[arc.sister as usize].rcap > 0 {
                    self.label[u] = lv + 1;
                    queue.push_back(u as u32);
                }
            }
        }
        for i in 0..n {
            self.current[i] = self.first[i];
        }
        self.work = 0;
    }

    /// Pushes i's excess along admissible arcs, relabelling as needed.
    fn discharge(&mut self, i: usize) {
        let cut = self.cut_off();
        while self.excess[i] > 0 {
            let li = self.label[i];
            if li >= cut {
                return;
            }
            if li == 1 && self.to_sink[i] > 0 {
                let b = self.excess[i].min(self.to_sink[i]);
                self.to_sink[i] -= b;
                self.excess[i] -= b;
                self.flow += b;
                continue;
            }
            let end = self.first[i + 1];
            let mut a = self.current[i];
            while a < end {
                let arc = self.arcs[a as usize];
                if arc.rcap > 0 && self.label[arc.head as usize] + 1 == li {
                    break;
                }
                a += 1;
            }
            if a < end {
                self.current[i] = a;
                let arc = self.arcs[a as usize];
                let j = arc.head as usize;
                let b = self.excess[i].min(arc.rcap);
                self.arcs[a as usize].rcap -= b;
                self.arcs[arc.sister as usize].rcap += b;
                self.excess[i] -= b;
                if self.excess[j] == 0 {
                    let lj = self.label[j] as usize;
                    self.buckets[lj].push(j as u32);
                }
                self.excess[j] += b;
                continue;
            }
            // Relabel.
            let mut best = cut;
            if self.to_sink[i] > 0 {
                best = 1;
            }
            let (start, end) = (self.first[i], self.first[i + 1]);
            self.work += 12 + (end - start) as usize;
            let mut best_arc = start;
            for a in start..end {
                let arc = self.arcs[a as usize];
                if arc.rcap > 0 {
                    let l = self.label[arc.head as usize] + 1;
                    if l < best {
                        best = l;
                        best_arc = a;
                    }
                }
            }
            self.count[li as usize] -= 1;
            if self.count[li as usize] == 0 {
                // Gap: nothing at label li any more, so nodes above it cannot reach the sink.
                for l in &mut self.label {
                    if *l > li && *l < cut {
                        *l = cut;
                    }
                }
                for c in &mut self.count[li as usize + 1..] {
                    *c = 0;
                }
                self.label[i] = cut;
                return;
            }
            self.label[i] = best;
            self.current[i] = best_arc;
            if best < cut {
                self.count[best as usize] += 1;
                if best as usize > self.highest {
                    self.highest = best as usize;
                }
            } else {
                return;
            }
        }
    }

    pub(crate) fn run(mut self) -> MaxFlow {
        let n = self.n();
        let m = self.arcs.len();
        self.global_relabel();
        loop {
            // Highest active label.
            let mut i = None;
            while self.highest > 0 {
                if let Some(v) = self.buckets[self.highest].pop() {
                    let v = v as usize;
                    if self.label[v] as usize == self.highest && self.excess[v] > 0 {
                        i = Some(v);
                        break;
                    }
                    continue;
                }
                self.highest -= 1;
            }
            let Some(i) = i else { break };
            self.discharge(i);
            let li = self.label[i] as usize;
            if self.excess[i] > 0 && li <= n {
                self.buckets[li].push(i as u32);
                self.highest = self.highest.max(li);
            }
            if self.work > 6 * n + m {
                self.global_relabel();
            }
        }
        // Sink side: nodes that can reach the sink in the residual graph.
        let mut sink_side = vec![false; n];
        let mut stack: Vec<u32> = Vec::new();
        for (i, side) in sink_side.iter_mut().enumerate() {
            if self.to_sink[i] > 0 {
                *side = true;
                stack.push(i as u32);
            }
        }
        while let Some(v) = stack.pop() {
            let v = v as usize;
            for a in self.first[v] as usize..self.first[v + 1] as usize {
                let arc = self.arcs[a];
                let u = arc.head as usize;
                if !sink_side[u] && self.arcs[arc.sister as usize].rcap > 0 {
                    sink_side[u] = true;
                    stack.push(u as u32);
                }
            }
        }
        MaxFlow { flow: self.flow, source_side: sink_side.iter().map(|&s| !s).collect() }
    }
}
