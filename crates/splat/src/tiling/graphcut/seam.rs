//! The seam between two overlapping patches: a minimum cut of the pixel grid
//! ([`seam`]), its costs and locks.

use super::{Cap, FlowGraph, COST_SCALE, INFINITE};
use std::fmt;

/// The largest capacity one pair of pixels can get (costs beyond are clamped).
const MAX_PAIR_CAP: Cap = 1 << 40;

/// Which patch a pixel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pick {
    A,
    B,
}

/// A pixel's constraint: `Some(Pick)` forces it to that patch, `None` leaves it free.
pub type Lock = Option<Pick>;

/// Errors of [`seam`].
#[derive(Debug, Clone, PartialEq)]
pub enum SeamError {
    /// An input slice does not have the expected length.
    Size { what: &'static str, expected: usize, got: usize },
    /// A pixel cost is negative or not finite.
    BadCost { index: usize, value: f32 },
}

impl fmt::Display for SeamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeamError::Size { what, expected, got } => write!(f, "{what}: expected {expected} values, got {got}"),
            SeamError::BadCost { index, value } => write!(f, "pixel cost {value} at {index} is negative or not finite"),
        }
    }
}

impl std::error::Error for SeamError {}

/// A seam: the patch per pixel and what the cut costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Seam {
    pub width: usize,
    pub height: usize,
    /// Per pixel, row-major.
    pub labels: Vec<Pick>,
    /// `Σ (d(p) + d(q))` over 4-neighbour pairs with different labels ([`cut_cost`]).
    pub cost: f64,
    /// The max-flow value in quantised units (the minimised objective).
    pub flow: Cap,
}

impl Seam {
    /// The label at `(x, y)`.
    pub fn at(&self, x: usize, y: usize) -> Pick {
        self.labels[y * self.width + x]
    }
}

/// Per-pixel disagreement of two interleaved images with `channels` values per pixel:
/// `d(p) = Σ_c |A(p, c) − B(p, c)|`.
pub fn pixel_cost(a: &[f32], b: &[f32], channels: usize) -> Vec<f32> {
    assert_eq!(a.len(), b.len(), "images differ in size");
    assert!(channels > 0, "need one channel or more");
    assert_eq!(a.len() % channels, 0, "length is not a multiple of channels");
    a.chunks_exact(channels)
        .zip(b.chunks_exact(channels))
        .map(|(p, q)| p.iter().zip(q).map(|(x, y)| (x - y).abs()).sum())
        .collect()
}

/// Locks for a vertical seam: the `a_cols` leftmost columns forced to A, the `b_cols`
/// rightmost to B, the rest free.
pub fn column_locks(width: usize, height: usize, a_cols: usize, b_cols: usize) -> Vec<Lock> {
    let mut out = vec![None; width * height];
    for y in 0..height {
        for x in 0..width {
            if x < a_cols {
                out[y * width + x] = Some(Pick::A);
            } else if x + b_cols >= width {
                out[y * width + x] = Some(Pick::B);
            }
        }
    }
    out
}

/// Locks from a signed distance (in pixels) evaluated at pixel centres `(x + ½, y + ½)`:
/// `signed < −band` → A, `signed > band` → B, else free. With `signed = x − w/2` this is a
/// vertical band; with a distance to a tile diagonal it frees a band across the boundary of two
/// triangles.
pub fn band_locks(width: usize, height: usize, band: f64, signed: impl Fn(f64, f64) -> f64) -> Vec<Lock> {
    let mut out = vec![None; width * height];
    for y in 0..height {
        for x in 0..width {
            let s = signed(x as f64 + 0.5, y as f64 + 0.5);
            out[y * width + x] = if s < -band {
                Some(Pick::A)
            } else if s > band {
                Some(Pick::B)
            } else {
                None
            };
        }
    }
    out
}

/// `Σ (d(p) + d(q))` over the 4-neighbour pairs whose labels differ.
pub fn cut_cost(cost: &[f32], width: usize, height: usize, labels: &[Pick]) -> f64 {
    assert_eq!(cost.len(), width * height);
    assert_eq!(labels.len(), width * height);
    let mut sum = 0.0f64;
    for y in 0..height {
        for x in 0..width {
            let p = y * width + x;
            if x + 1 < width && labels[p] != labels[p + 1] {
                sum += cost[p] as f64 + cost[p + 1] as f64;
            }
            if y + 1 < height && labels[p] != labels[p + width] {
                sum += cost[p] as f64 + cost[p + width] as f64;
            }
        }
    }
    sum
}

/// Cost of the straight vertical seam between columns `column − 1` and `column` (A left of it):
/// `Σ_y d(column − 1, y) + d(column, y)`. `column` must be in `1..width`.
pub fn straight_seam_cost(cost: &[f32], width: usize, height: usize, column: usize) -> f64 {
    assert_eq!(cost.len(), width * height);
    assert!(column >= 1 && column < width, "column out of range");
    (0..height).map(|y| cost[y * width + column - 1] as f64 + cost[y * width + column] as f64).sum()
}

/// Capacity of a pair: `max(round(cost · COST_SCALE), 1)`, clamped.
#[inline]
fn pair_cap(c: f64) -> Cap {
    let q = (c * COST_SCALE).round();
    if q >= MAX_PAIR_CAP as f64 {
        MAX_PAIR_CAP
    } else {
        (q as Cap).max(1)
    }
}

/// The minimum-cost seam between two patches over a `width × height` overlap.
///
/// `cost[p]` is the disagreement `d(p) ≥ 0` ([`pixel_cost`]); `locks[p]` forces a pixel to a
/// patch or leaves it free. Of several cheapest seams the one giving A the most pixels is
/// returned (push–relabel's cut); free pixels with no path to a B-locked pixel go to A, so with
/// no locks at all everything is A. See the module docs for the objective.
pub fn seam(cost: &[f32], width: usize, height: usize, locks: &[Lock]) -> Result<Seam, SeamError> {
    let n = width * height;
    if cost.len() != n {
        return Err(SeamError::Size { what: "cost", expected: n, got: cost.len() });
    }
    if locks.len() != n {
        return Err(SeamError::Size { what: "locks", expected: n, got: locks.len() });
    }
    if let Some((index, &value)) = cost.iter().enumerate().find(|(_, c)| !(c.is_finite() && **c >= 0.0)) {
        return Err(SeamError::BadCost { index, value });
    }
    let mut g = FlowGraph::with_capacity(n, 2 * n);
    let add = |g: &mut FlowGraph, p: usize, q: usize| {
        let (lp, lq) = (locks[p], locks[q]);
        if lp.is_some() && lp == lq {
            return; // never cut
        }
        if lp.is_some() && lq.is_some() {
            return; // always cut: a constant, not part of the choice
        }
        let c = pair_cap(cost[p] as f64 + cost[q] as f64);
        g.add_edge(p, q, c, c);
    };
    for y in 0..height {
        for x in 0..width {
            let p = y * width + x;
            if x + 1 < width {
                add(&mut g, p, p + 1);
            }
            if y + 1 < height {
                add(&mut g, p, p + width);
            }
        }
    }
    for (p, l) in locks.iter().enumerate() {
        match l {
            Some(Pick::A) => g.add_terminal(p, INFINITE, 0),
            Some(Pick::B) => g.add_terminal(p, 0, INFINITE),
            None => {}
        }
    }
    let mf = g.max_flow();
    let labels: Vec<Pick> = mf.source_side.iter().map(|&s| if s { Pick::A } else { Pick::B }).collect();
    let cost_sum = cut_cost(cost, width, height, &labels);
    Ok(Seam { width, height, labels, cost: cost_sum, flow: mf.flow })
}
