//! Stream network by contributing-area threshold, with optional Strahler order.
//!
//! A cell is a channel when its D8 contributing area reaches a threshold — the constant
//! threshold-area channel initiation of D. G. Tarboton, R. L. Bras, I. Rodriguez-Iturbe (1991),
//! "On the extraction of channel networks from digital elevation data", *Hydrological Processes*
//! 5(1), 81–100 (after O'Callaghan & Mark 1984). Stream order follows A. N. Strahler (1957),
//! "Quantitative analysis of watershed geomorphology", *Transactions AGU* 38(6), 913–920: a channel
//! head has order 1; where two or more donors of the highest order `k` meet the order becomes
//! `k + 1`, otherwise it stays `k`.
//!
//! Because accumulation grows downstream, the channel cells of a threshold form a set closed under
//! "receiver of": every channel cell drains into a channel cell or is an outlet, and raising the
//! threshold only removes cells.

use super::flow_graph::FlowGraph;

/// When a cell becomes a channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// Contributing area of at least this many cells (the cell itself included).
    Cells(u32),
    /// Contributing area of at least this many square metres (cells × [`StreamParams::cell_area`]).
    AreaM2(f64),
}

/// Parameters of [`stream_network`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamParams {
    /// Channel initiation threshold. Default: 100 cells.
    pub threshold: Threshold,
    /// Area of one cell in m² (`dx · dy` of the grid); used by [`Threshold::AreaM2`]. Default 1.
    pub cell_area: f64,
    /// Compute Strahler orders. Default `true`.
    pub strahler: bool,
}

impl Default for StreamParams {
    fn default() -> Self {
        Self { threshold: Threshold::Cells(100), cell_area: 1.0, strahler: true }
    }
}

/// A channel network over a [`FlowGraph`].
#[derive(Debug, Clone, PartialEq)]
pub struct StreamNetwork {
    /// `true` for channel cells (row-major, like the graph).
    pub mask: Vec<bool>,
    /// Strahler order per cell: 0 off the network, ≥ 1 on it. Empty when not requested.
    pub order: Vec<u8>,
    /// Number of channel cells.
    pub cells: usize,
}

/// Channel cells of `g` whose contributing area `acc_cells` (from
/// [`super::flow_graph::accumulate_cells`]) reaches the threshold.
pub fn stream_network(g: &FlowGraph, acc_cells: &[u32], params: &StreamParams) -> StreamNetwork {
    stream_network_of(&g.receivers, acc_cells, params)
}

/// [`stream_network`] from the receivers alone (no stack needed): the channel mask in parallel,
/// the Strahler orders by [`strahler_orders`].
pub fn stream_network_of(receivers: &[u32], acc_cells: &[u32], params: &StreamParams) -> StreamNetwork {
    use rayon::prelude::*;
    let n = receivers.len();
    assert_eq!(acc_cells.len(), n, "stream_network: accumulation length");
    let mask: Vec<bool> = match params.threshold {
        Threshold::Cells(t) => acc_cells.par_iter().map(|&a| a >= t).collect(),
        Threshold::AreaM2(m2) => acc_cells.par_iter().map(|&a| a as f64 * params.cell_area >= m2).collect(),
    };
    let cells = mask.par_iter().filter(|&&m| m).count();
    let order = if params.strahler { strahler_orders(receivers, &mask) } else { Vec::new() };
    StreamNetwork { mask, order, cells }
}

/// Strahler order of the channel cells in `mask` (0 elsewhere) over the receiver forest
/// `receivers`, without a stack: the channel donors of each cell are counted, then from each
/// channel head (a channel cell with no channel donor), in increasing index, the walk goes down
/// the receivers while the next cell has just had its last channel donor finished. A cell's order
/// depends only on its channel donors' orders, so every order that finishes the donors first
/// gives the same orders as a walk up the stack; the work is over the channel cells only (a few
/// per cent of the grid), after one parallel pass to list them.
pub fn strahler_orders(receivers: &[u32], mask: &[bool]) -> Vec<u8> {
    use rayon::prelude::*;
    let n = mask.len();
    assert_eq!(receivers.len(), n, "strahler_orders: mask length");
    let channel: Vec<u32> = mask.par_iter().enumerate().filter_map(|(i, &m)| m.then_some(i as u32)).collect();
    // Channel donors still to finish, and per cell the highest order among the finished ones and
    // how many have it.
    let mut pending = vec![0u8; n];
    let mut top = vec![0u8; n];
    let mut count = vec![0u8; n];
    let mut order = vec![0u8; n];
    for &i in &channel {
        let r = receivers[i as usize] as usize;
        if r != i as usize && mask[r] {
            pending[r] += 1;
        }
    }
    // The heads, listed before any walk (a walk leaves the cells it finishes at 0 pending too).
    let heads: Vec<u32> = channel.iter().copied().filter(|&i| pending[i as usize] == 0).collect();
    drop(channel);
    for &head in &heads {
        let mut i = head as usize;
        loop {
            let o = match (top[i], count[i]) {
                (0, _) => 1,
                (k, c) if c >= 2 => k.saturating_add(1),
                (k, _) => k,
            };
            order[i] = o;
            let r = receivers[i] as usize;
            if r == i || !mask[r] {
                break;
            }
            if o > top[r] {
                top[r] = o;
                count[r] = 1;
            } else if o == top[r] {
                count[r] = count[r].saturating_add(1);
            }
            pending[r] -= 1;
            if pending[r] != 0 {
                break;
            }
            i = r;
        }
    }
    order
}

/// Strahler order of the channel cells in `mask` (0 elsewhere). Donors are finished before their
/// receiver by walking the stack backwards (the reference [`strahler_orders`] is held to).
#[cfg(test)]
fn strahler(g: &FlowGraph, mask: &[bool]) -> Vec<u8> {
    let n = mask.len();
    // Per cell: highest order among its channel donors, and how many donors have it.
    let mut top = vec![0u8; n];
    let mut count = vec![0u8; n];
    let mut order = vec![0u8; n];
    for &i in g.stack.iter().rev() {
        let i = i as usize;
        if !mask[i] {
            continue;
        }
        let o = match (top[i], count[i]) {
            (0, _) => 1,
            (k, c) if c >= 2 => k.saturating_add(1),
            (k, _) => k,
        };
        order[i] = o;
        let r = g.receivers[i] as usize;
        if r != i {
            if o > top[r] {
                top[r] = o;
                count[r] = 1;
            } else if o == top[r] {
                count[r] = count[r].saturating_add(1);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::super::flow_graph::{accumulate_cells, d8_receivers};
    use super::super::priority_flood::fill_epsilon;
    use super::super::test_dems::noise;
    use super::*;

    #[test]
    fn threshold_streams_are_monotone_and_closed_downstream() {
        let f = fill_epsilon(&noise(64, 48, 3));
        let g = d8_receivers(&f);
        let acc = accumulate_cells(&g);
        let mut prev: Option<StreamNetwork> = None;
        for t in [1, 2, 5, 20, 100, 1000, 10_000] {
            let s = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(t), ..Default::default() });
            for i in 0..acc.len() {
                if s.mask[i] {
                    assert!(s.mask[g.receivers[i] as usize], "channel cell drains off the network");
                    assert!(s.order[i] >= 1);
                } else {
                    assert_eq!(s.order[i], 0);
                }
            }
            if let Some(p) = &prev {
                assert!(s.cells <= p.cells);
                assert!((0..acc.len()).all(|i| !s.mask[i] || p.mask[i]), "raising the threshold added cells");
            }
            prev = Some(s);
        }
        // Threshold 1: every cell is a channel.
        let all = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(1), ..Default::default() });
        assert_eq!(all.cells, acc.len());
        // Area threshold in m²: 25 m² cells, 500 m² == 20 cells.
        let a = stream_network(
            &g,
            &acc,
            &StreamParams { threshold: Threshold::AreaM2(500.0), cell_area: 25.0, strahler: false },
        );
        let c = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(20), ..Default::default() });
        assert_eq!(a.mask, c.mask);
        assert!(a.order.is_empty());
    }

    #[test]
    fn strahler_orders_a_binary_confluence_tree() {
        // Receivers by hand on a 1-D-like graph (width 9, height 1: geometry is irrelevant here).
        // Cells 0,1 → 2; 3,4 → 5; 2,5 → 6; 7 → 6; 6 → 8 (outlet).
        let receivers = vec![2, 2, 6, 5, 5, 6, 8, 6, 8];
        let stack = super::super::flow_graph::build_stack(&receivers);
        let g = FlowGraph { width: 9, height: 1, receivers, dist: vec![1.0; 9], stack };
        let acc = accumulate_cells(&g);
        assert_eq!(acc[8], 9);
        let s = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(1), ..Default::default() });
        assert_eq!(s.order, vec![1, 1, 2, 1, 1, 2, 3, 1, 3]);
        // Raising the threshold to 2 drops the heads; the confluences become order 1 heads.
        let s = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(2), ..Default::default() });
        assert_eq!(s.order, vec![0, 0, 1, 0, 0, 1, 2, 0, 2]);
    }

    #[test]
    fn stackless_orders_equal_the_stack_walk() {
        // Filled noise (closed channel sets) at several thresholds, and masks that are not
        // closed downstream (every third cell, a band), on unfilled noise with pits.
        for (seed, fill) in [(3u32, true), (11, true), (5, false)] {
            let dem = noise(97, 61, seed);
            let f = if fill { fill_epsilon(&dem) } else { dem };
            let g = d8_receivers(&f);
            let acc = accumulate_cells(&g);
            let mut masks: Vec<Vec<bool>> =
                [1u32, 3, 12, 50, 400].iter().map(|&t| acc.iter().map(|&a| a >= t).collect()).collect();
            masks.push((0..acc.len()).map(|i| i % 3 != 0).collect());
            masks.push((0..acc.len()).map(|i| (i / 97) % 7 < 4).collect());
            for m in &masks {
                let o = strahler_orders(&g.receivers, m);
                assert_eq!(o, strahler(&g, m), "seed {seed}");
                assert!(o.iter().zip(m).all(|(&o, &m)| (o >= 1) == m));
            }
            let p = StreamParams { threshold: Threshold::Cells(12), ..StreamParams::default() };
            let net = stream_network_of(&g.receivers, &acc, &p);
            assert_eq!(net.order, strahler(&g, &net.mask));
            assert!(!fill || net.order.iter().any(|&o| o >= 3), "seed {seed}: confluences");
        }
    }
}
