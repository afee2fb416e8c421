//! Weighted directed graph (adjacency lists) with Dijkstra's (1959) single-source shortest
//! paths and A* (Hart, Nilsson & Raphael 1968) between two nodes.
//!
//! Nodes are `0..n`; edges carry finite weights ≥ 0 (NaN, negative and infinite weights are
//! refused when added). An undirected edge is two directed ones. Both searches use a binary
//! heap keyed by (distance, node index), so among equal keys the lowest node is settled first.
//!
//! Determinism of paths: a node's predecessor is replaced only by a strictly shorter distance,
//! or by an equal one coming from a lower-index node that was settled earlier. With positive
//! weights this makes the predecessor of `v` the lowest-index `u` with
//! `dist[u] + w(u, v) == dist[v]`, whatever the edge insertion order (zero-weight edges: the
//! lowest such `u` settled before `v`). Distances are exact sums in the order of the path;
//! unreachable nodes have distance `+∞` and no path.
//!
//! A*: the heuristic `h(v)` must be finite and ≥ 0 (refused otherwise); if it is admissible
//! (never above the true remaining cost) the returned cost is optimal: closed nodes are
//! reopened when a shorter way to them turns up, so consistency is not required. Heap key
//! (g + h, node index); a predecessor changes only on a strictly shorter g, so among
//! equal-cost paths A* returns the first one its (deterministic) expansion order finds, which
//! need not be Dijkstra's.
//!
//! Caps: at most [`MAX_NODES`] nodes and [`MAX_EDGES`] edges.

use crate::error::{Result, SpatialError};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Most nodes of a graph.
pub const MAX_NODES: usize = 1 << 28;
/// Most directed edges of a graph.
pub const MAX_EDGES: usize = 1 << 30;

/// A weighted directed graph.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    adj: Vec<Vec<(u32, f64)>>,
    edges: usize,
}

/// Shortest paths from one source (see [`Graph::dijkstra`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ShortestPaths {
    /// The source node.
    pub source: usize,
    /// Distance of every node from the source (`+∞` when unreachable).
    pub dist: Vec<f64>,
    /// Predecessor on the chosen shortest path (`None` for the source and unreachable nodes).
    pub pred: Vec<Option<usize>>,
}

impl ShortestPaths {
    /// The node sequence from the source to `t` (inclusive), or `None` when `t` is unreachable
    /// or out of range.
    pub fn path_to(&self, t: usize) -> Option<Vec<usize>> {
        if t >= self.dist.len() || self.dist[t] == f64::INFINITY {
            return None;
        }
        let mut path = vec![t];
        let mut v = t;
        while let Some(p) = self.pred[v] {
            path.push(p);
            v = p;
        }
        path.reverse();
        Some(path)
    }
}

/// Heap entry ordered by (key, node) ascending (through `Reverse`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64, u32);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

impl Graph {
    /// A graph of `n` nodes and no edges; refuses more than [`MAX_NODES`].
    pub fn new(n: usize) -> Result<Graph> {
        if n > MAX_NODES {
            return Err(SpatialError::TooMany { what: "Graph", count: n, cap: MAX_NODES });
        }
        Ok(Graph { adj: vec![Vec::new(); n], edges: 0 })
    }

    /// Add a node, returning its index.
    pub fn add_node(&mut self) -> Result<usize> {
        if self.adj.len() >= MAX_NODES {
            return Err(SpatialError::TooMany { what: "Graph", count: self.adj.len() + 1, cap: MAX_NODES });
        }
        self.adj.push(Vec::new());
        Ok(self.adj.len() - 1)
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.adj.len()
    }

    /// Number of directed edges.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// Outgoing edges of `v` as `(target, weight)`, in insertion order.
    pub fn neighbours(&self, v: usize) -> Result<impl Iterator<Item = (usize, f64)> + '_> {
        self.check_node(v)?;
        Ok(self.adj[v].iter().map(|&(t, w)| (t as usize, w)))
    }

    fn check_node(&self, v: usize) -> Result<()> {
        if v >= self.adj.len() {
            return Err(SpatialError::UnknownId { what: "Graph", id: v as u64 });
        }
        Ok(())
    }

    /// Add the directed edge `from → to` of weight `w` (finite, ≥ 0); refuses unknown nodes.
    /// Parallel edges and self-loops are allowed.
    pub fn add_edge(&mut self, from: usize, to: usize, w: f64) -> Result<()> {
        self.check_node(from)?;
        self.check_node(to)?;
        if !(w.is_finite() && w >= 0.0) {
            return Err(SpatialError::Param { what: "Graph", name: "weight", value: w, range: "finite, ≥ 0" });
        }
        if self.edges >= MAX_EDGES {
            return Err(SpatialError::TooMany { what: "Graph edges", count: self.edges + 1, cap: MAX_EDGES });
        }
        self.adj[from].push((to as u32, w));
        self.edges += 1;
        Ok(())
    }

    /// Add `a → b` and `b → a`, both of weight `w`.
    pub fn add_undirected(&mut self, a: usize, b: usize, w: f64) -> Result<()> {
        self.add_edge(a, b, w)?;
        self.add_edge(b, a, w)
    }

    /// Dijkstra's shortest paths from `source` to every node (tie-breaks in the module doc).
    pub fn dijkstra(&self, source: usize) -> Result<ShortestPaths> {
        self.check_node(source)?;
        let n = self.adj.len();
        let mut dist = vec![f64::INFINITY; n];
        let mut pred: Vec<Option<usize>> = vec![None; n];
        let mut done = vec![false; n];
        let mut heap = BinaryHeap::new();
        dist[source] = 0.0;
        heap.push(Reverse(Key(0.0, source as u32)));
        while let Some(Reverse(Key(d, u))) = heap.pop() {
            let u = u as usize;
            if done[u] || d > dist[u] {
                continue;
            }
            done[u] = true;
            for &(v, w) in &self.adj[u] {
                let v = v as usize;
                if done[v] {
                    continue;
                }
                let nd = d + w;
                if nd < dist[v] || (nd == dist[v] && pred[v].is_some_and(|p| u < p)) {
                    if nd < dist[v] {
                        heap.push(Reverse(Key(nd, v as u32)));
                    }
                    dist[v] = nd;
                    pred[v] = Some(u);
                }
            }
        }
        Ok(ShortestPaths { source, dist, pred })
    }

    /// A* from `source` to `goal` with heuristic `h` (see the module doc): the cost and node
    /// path, or `None` when the goal is unreachable. Refuses unknown nodes and a heuristic
    /// value that is NaN, infinite or negative.
    pub fn astar<H>(&self, source: usize, goal: usize, mut h: H) -> Result<Option<(f64, Vec<usize>)>>
    where
        H: FnMut(usize) -> f64,
    {
        self.check_node(source)?;
        self.check_node(goal)?;
        let n = self.adj.len();
        let mut g = vec![f64::INFINITY; n];
        let mut hv = vec![f64::NAN; n];
        let mut pred: Vec<Option<usize>> = vec![None; n];
        let mut heur = |v: usize, hv: &mut Vec<f64>| -> Result<f64> {
            if hv[v].is_nan() {
                let x = h(v);
                if !(x.is_finite() && x >= 0.0) {
                    return Err(SpatialError::Param {
                        what: "Graph::astar",
                        name: "heuristic",
                        value: x,
                        range: "finite, ≥ 0",
                    });
                }
                hv[v] = x;
            }
            Ok(hv[v])
        };
        let mut heap = BinaryHeap::new();
        g[source] = 0.0;
        heap.push(Reverse(Key(heur(source, &mut hv)?, source as u32)));
        while let Some(Reverse(Key(f, u))) = heap.pop() {
            let u = u as usize;
            if f > g[u] + hv[u] {
                continue; // stale entry
            }
            if u == goal {
                let mut path = vec![goal];
                let mut v = goal;
                while let Some(p) = pred[v] {
                    path.push(p);
                    v = p;
                }
                path.reverse();
                return Ok(Some((g[goal], path)));
            }
            for &(v, w) in &self.adj[u] {
                let v = v as usize;
                let ng = g[u] + w;
                if ng < g[v] {
                    g[v] = ng;
                    pred[v] = Some(u);
                    heap.push(Reverse(Key(ng + heur(v, &mut hv)?, v as u32)));
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn floyd(n: usize, edges: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
        let mut d = vec![vec![f64::INFINITY; n]; n];
        for (i, row) in d.iter_mut().enumerate() {
            row[i] = 0.0;
        }
        for &(a, b, w) in edges {
            d[a][b] = d[a][b].min(w);
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if d[i][k] + d[k][j] < d[i][j] {
                        d[i][j] = d[i][k] + d[k][j];
                    }
                }
            }
        }
        d
    }

    fn bellman_ford(n: usize, s: usize, edges: &[(usize, usize, f64)]) -> Vec<f64> {
        let mut d = vec![f64::INFINITY; n];
        d[s] = 0.0;
        for _ in 0..n {
            for &(a, b, w) in edges {
                if d[a] + w < d[b] {
                    d[b] = d[a] + w;
                }
            }
        }
        d
    }

    fn build(n: usize, edges: &[(usize, usize, f64)]) -> Graph {
        let mut g = Graph::new(n).unwrap();
        for &(a, b, w) in edges {
            g.add_edge(a, b, w).unwrap();
        }
        g
    }

    fn path_cost(edges: &[(usize, usize, f64)], p: &[usize]) -> f64 {
        p.windows(2)
            .map(|s| edges.iter().filter(|e| e.0 == s[0] && e.1 == s[1]).map(|e| e.2).fold(f64::INFINITY, f64::min))
            .sum()
    }

    fn graph_strategy(min_w: u8) -> impl Strategy<Value = (usize, Vec<(usize, usize, f64)>)> {
        (1usize..14).prop_flat_map(move |n| {
            let e = (0..n, 0..n, min_w..6u8).prop_map(|(a, b, w)| (a, b, f64::from(w)));
            (Just(n), prop::collection::vec(e, 0..40))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Integer weights ≥ 1: distances are exact, and each predecessor is the lowest node
        /// attaining the distance.
        #[test]
        fn dijkstra_matches_floyd_and_bellman_ford((n, edges) in graph_strategy(1)) {
            let g = build(n, &edges);
            let fw = floyd(n, &edges);
            for (s, row) in fw.iter().enumerate() {
                let sp = g.dijkstra(s).unwrap();
                prop_assert_eq!(&sp.dist, row);
                prop_assert_eq!(&sp.dist, &bellman_ford(n, s, &edges));
                for v in 0..n {
                    let want_pred = if v == s || sp.dist[v] == f64::INFINITY { None } else {
                        edges.iter().filter(|e| e.1 == v && sp.dist[e.0] + e.2 == sp.dist[v]).map(|e| e.0).min()
                    };
                    prop_assert_eq!(sp.pred[v], want_pred, "pred of {} from {}", v, s);
                    match sp.path_to(v) {
                        Some(p) => {
                            prop_assert_eq!(p[0], s);
                            prop_assert_eq!(*p.last().unwrap(), v);
                            prop_assert_eq!(path_cost(&edges, &p), sp.dist[v]);
                        }
                        None => prop_assert_eq!(sp.dist[v], f64::INFINITY),
                    }
                }
            }
        }

        /// Zero weights allowed: distances still exact, paths valid and tree-shaped.
        #[test]
        fn dijkstra_with_zero_weights((n, edges) in graph_strategy(0)) {
            let g = build(n, &edges);
            let fw = floyd(n, &edges);
            for (s, row) in fw.iter().enumerate() {
                let sp = g.dijkstra(s).unwrap();
                prop_assert_eq!(&sp.dist, row);
                for v in 0..n {
                    if let Some(p) = sp.path_to(v) {
                        prop_assert!(p.len() <= n);
                        prop_assert_eq!(path_cost(&edges, &p), sp.dist[v]);
                    }
                }
            }
        }

        /// A* with zero, exact and halved-exact heuristics finds the optimal cost.
        #[test]
        fn astar_is_optimal((n, edges) in graph_strategy(0), s in 0usize..14, t in 0usize..14) {
            let (s, t) = (s % n, t % n);
            let g = build(n, &edges);
            let fw = floyd(n, &edges);
            let exact = |v: usize| if fw[v][t].is_finite() { fw[v][t] } else { 0.0 };
            for scale in [0.0, 0.5, 1.0] {
                let got = g.astar(s, t, |v| scale * exact(v)).unwrap();
                match got {
                    Some((c, p)) => {
                        prop_assert_eq!(c, fw[s][t]);
                        prop_assert_eq!(p[0], s);
                        prop_assert_eq!(*p.last().unwrap(), t);
                        prop_assert_eq!(path_cost(&edges, &p), c);
                    }
                    None => prop_assert_eq!(fw[s][t], f64::INFINITY),
                }
            }
        }
    }

    #[test]
    fn refusals() {
        let mut g = Graph::new(3).unwrap();
        for w in [f64::NAN, -1.0, f64::INFINITY, -0.0 - 1e-300] {
            assert!(matches!(g.add_edge(0, 1, w), Err(SpatialError::Param { name: "weight", .. })), "{w}");
        }
        assert_eq!(g.add_edge(0, 3, 1.0), Err(SpatialError::UnknownId { what: "Graph", id: 3 }));
        assert!(g.dijkstra(5).is_err());
        g.add_edge(0, 1, 1.0).unwrap();
        assert!(g.astar(0, 1, |_| f64::NAN).is_err());
        assert!(g.astar(0, 1, |_| -1.0).is_err());
        assert!(g.astar(0, 9, |_| 0.0).is_err());
        assert_eq!(g.astar(0, 2, |_| 0.0).unwrap(), None);
        assert_eq!(g.add_node().unwrap(), 3);
        assert_eq!(g.edge_count(), 1);
        assert!(Graph::new(MAX_NODES + 1).is_err());
    }

    /// Equal-cost diamond: the path goes through the lower middle node, whatever the edge order.
    #[test]
    fn ties_by_node_index() {
        for order in [[0, 1, 2, 3], [3, 2, 1, 0]] {
            let es = [(0, 2, 1.0), (0, 1, 1.0), (2, 3, 1.0), (1, 3, 1.0)];
            let mut g = Graph::new(4).unwrap();
            for &k in &order {
                let (a, b, w) = es[k];
                g.add_edge(a, b, w).unwrap();
            }
            assert_eq!(g.dijkstra(0).unwrap().path_to(3), Some(vec![0, 1, 3]));
            assert_eq!(g.astar(0, 3, |_| 0.0).unwrap(), Some((2.0, vec![0, 1, 3])));
        }
    }
}
