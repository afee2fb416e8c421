//! Path finding: grid A* (Hart, Nilsson & Raphael 1968) on a 2-D passability grid, as pyworldgen
//! 0.1.8's `runtime/navigation.py`, and a voxel walker over a [`ChunkMap`].
//!
//! **Grid.** Cells `(x, y)` with `0 <= x < width`, `0 <= y < height`, index `x + width*y`;
//! 4 neighbours (+x, −x, +y, −y), unit cost, Manhattan heuristic. The open set is a binary heap
//! keyed by `(f, x, y)`: among equal `f` the least `x`, then the least `y` is expanded first — the
//! order of pyworldgen's heap of `(f, (x, y))` tuples, so the paths are the same as pyworldgen's.
//! As there, the start cell itself need not be passable; the goal must be (unless it is the
//! start). Returns the cells from start to goal inclusive, or `None` when unreachable.
//!
//! **Voxel walker.** A walker stands at a cell `p` (its feet) when the block below `p` is solid
//! and `p` and the `headroom - 1` cells above it are *clear*: transparent and not solid (so
//! air, water and windows are clear; leaves, solid though transparent, are not). A move goes to
//! one of the 4 horizontal neighbours, at the same height or one up or one down (at most
//! `max_step` up or down), where the walker can stand; a move changing height also needs the
//! cells from the lower feet height to the higher head height clear in both columns (no
//! corner-cutting through ceilings). Unit cost per move; heuristic `max(|dx| + |dz|, |dy| /
//! max_step)` (consistent). Ties in the heap fall to the least `(x, y, z)`. Missing chunks read
//! as air (so there is no floor there). The search expands at most `max_nodes` cells, then
//! returns [`VoxelError::SearchBudget`].
//!
//! Determinism: fixed neighbour order and total heap order; hash maps only answer lookups.

use crate::block::{BlockId, BlockRegistry};
use crate::coords::BlockPos;
use crate::error::{Result, VoxelError};
use crate::map::ChunkMap;
use crate::query::block_at;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Largest grid [`grid_astar`] accepts, in cells (2^26).
pub const MAX_GRID_CELLS: usize = 1 << 26;

/// A* on a `width × height` grid where `passable[x + width*y]` says whether a cell can be
/// entered, from `start` to `goal`. Errors: a grid of 0 or more than [`MAX_GRID_CELLS`] cells,
/// a buffer of the wrong length, start or goal outside the grid.
pub fn grid_astar(
    width: usize,
    height: usize,
    passable: &[bool],
    start: (usize, usize),
    goal: (usize, usize),
) -> Result<Option<Vec<(usize, usize)>>> {
    let n = width.checked_mul(height).filter(|&n| n > 0 && n <= MAX_GRID_CELLS).ok_or_else(|| VoxelError::Param {
        name: "grid",
        value: format!("{width} x {height}"),
        allowed: "at least 1 and at most 2^26 cells",
    })?;
    if passable.len() != n {
        return Err(VoxelError::LengthMismatch { what: "passability grid", expected: n, got: passable.len() });
    }
    for (name, p) in [("start", start), ("goal", goal)] {
        if p.0 >= width || p.1 >= height {
            return Err(VoxelError::Param { name, value: format!("{p:?}"), allowed: "inside the grid" });
        }
    }
    const UNSEEN: u32 = u32::MAX;
    let idx = |x: usize, y: usize| x + width * y;
    let h = |x: usize, y: usize| (x.abs_diff(goal.0) + y.abs_diff(goal.1)) as u64;
    let mut cost = vec![UNSEEN; n];
    let mut came = vec![UNSEEN; n];
    let mut heap = BinaryHeap::new();
    cost[idx(start.0, start.1)] = 0;
    heap.push(Reverse((h(start.0, start.1), start.0, start.1)));
    let mut found = false;
    while let Some(Reverse((f, x, y))) = heap.pop() {
        if (x, y) == goal {
            found = true;
            break;
        }
        let g = cost[idx(x, y)];
        if f > g as u64 + h(x, y) {
            continue; // stale entry: pyworldgen re-expands it to no effect
        }
        let cand = [
            (x + 1 < width).then(|| (x + 1, y)),
            x.checked_sub(1).map(|x| (x, y)),
            (y + 1 < height).then(|| (x, y + 1)),
            y.checked_sub(1).map(|y| (x, y)),
        ];
        for (nx, ny) in cand.into_iter().flatten() {
            let j = idx(nx, ny);
            if !passable[j] {
                continue;
            }
            let ng = g + 1;
            if ng < cost[j] {
                cost[j] = ng;
                came[j] = idx(x, y) as u32;
                heap.push(Reverse((ng as u64 + h(nx, ny), nx, ny)));
            }
        }
    }
    if !found {
        return Ok(None);
    }
    let mut path = vec![goal];
    let mut at = idx(goal.0, goal.1);
    let s = idx(start.0, start.1);
    while at != s {
        at = came[at] as usize;
        path.push((at % width, at / width));
    }
    path.reverse();
    Ok(Some(path))
}

/// Parameters of [`voxel_path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkParams {
    /// Clear cells the walker needs from its feet up (blocks; default 2, at least 1).
    pub headroom: u32,
    /// Largest step up or down per move (blocks; default 1, at least 1, at most 16).
    pub max_step: u32,
    /// Most cells the search expands before giving up (default 200,000).
    pub max_nodes: usize,
}

impl Default for WalkParams {
    fn default() -> Self {
        WalkParams { headroom: 2, max_step: 1, max_nodes: 200_000 }
    }
}

impl WalkParams {
    /// Checks the ranges above.
    pub fn validate(&self) -> Result<()> {
        if self.headroom == 0 || self.headroom > 64 {
            return Err(VoxelError::Param { name: "headroom", value: self.headroom.to_string(), allowed: "1..=64" });
        }
        if self.max_step == 0 || self.max_step > 16 {
            return Err(VoxelError::Param { name: "max_step", value: self.max_step.to_string(), allowed: "1..=16" });
        }
        Ok(())
    }
}

/// The walking rules of [`voxel_path`] over a map (see the module doc).
pub struct Walker<'a> {
    map: &'a ChunkMap,
    solid: Vec<bool>,
    clear: Vec<bool>,
    params: WalkParams,
}

impl<'a> Walker<'a> {
    /// Rules over `map` with `registry`'s flags; errors from [`WalkParams::validate`].
    pub fn new(map: &'a ChunkMap, registry: &BlockRegistry, params: WalkParams) -> Result<Self> {
        params.validate()?;
        let solid = registry.solid_table();
        let clear = registry.transparent_table().iter().zip(&solid).map(|(&t, &s)| t && !s).collect();
        Ok(Walker { map, solid, clear, params })
    }
    fn is_solid(&self, b: BlockId) -> bool {
        self.solid.get(b.0 as usize).copied().unwrap_or(false)
    }
    fn is_clear(&self, b: BlockId) -> bool {
        self.clear.get(b.0 as usize).copied().unwrap_or(true)
    }
    /// Whether cells `y0 ..= y1` of column `(x, z)` are all clear.
    fn clear_span(&self, x: i32, z: i32, y0: i32, y1: i32) -> bool {
        (y0 as i64..=y1 as i64)
            .all(|y| y <= i32::MAX as i64 && self.is_clear(block_at(self.map, BlockPos::new(x, y as i32, z))))
    }
    /// Whether the walker can stand with its feet at `p`.
    pub fn can_stand(&self, p: BlockPos) -> bool {
        let Some(below) = p.checked_offset(0, -1, 0) else { return false };
        let Some(top) = p.y.checked_add(self.params.headroom as i32 - 1) else { return false };
        self.is_solid(block_at(self.map, below)) && self.clear_span(p.x, p.z, p.y, top)
    }
    /// The cells reachable in one move from `p` (where the walker can stand), in a fixed order:
    /// directions +x, −x, +z, −z; for each, same height, then up 1..=max_step, then down.
    pub fn moves(&self, p: BlockPos) -> Vec<BlockPos> {
        let mut out = Vec::new();
        let hr = self.params.headroom as i32;
        let s = self.params.max_step as i32;
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let Some(q) = p.checked_offset(dx, 0, dz) else { continue };
            let dys = std::iter::once(0).chain(1..=s).chain((1..=s).map(|d| -d));
            for dy in dys {
                let Some(t) = q.checked_offset(0, dy, 0) else { continue };
                if !self.can_stand(t) {
                    continue;
                }
                if dy != 0 {
                    let lo = p.y.min(t.y);
                    let Some(hi) = p.y.max(t.y).checked_add(hr - 1) else { continue };
                    if !self.clear_span(p.x, p.z, lo, hi) || !self.clear_span(t.x, t.z, lo, hi) {
                        continue;
                    }
                }
                out.push(t);
            }
        }
        out
    }
}

/// A* for the voxel walker from `start` to `goal` (feet cells; see the module doc). `Ok(None)`
/// when the goal is unreachable (or either end is not standable); errors: bad parameters, or
/// [`VoxelError::SearchBudget`] after `max_nodes` expansions.
pub fn voxel_path(
    map: &ChunkMap,
    registry: &BlockRegistry,
    start: BlockPos,
    goal: BlockPos,
    params: WalkParams,
) -> Result<Option<Vec<BlockPos>>> {
    let w = Walker::new(map, registry, params)?;
    if !w.can_stand(start) || !w.can_stand(goal) {
        return Ok(None);
    }
    let s = params.max_step as u64;
    let h = |p: BlockPos| {
        let xz = p.x.abs_diff(goal.x) as u64 + p.z.abs_diff(goal.z) as u64;
        xz.max((p.y.abs_diff(goal.y) as u64).div_ceil(s))
    };
    let mut best: HashMap<BlockPos, (u64, BlockPos)> = HashMap::new();
    let mut heap = BinaryHeap::new();
    best.insert(start, (0, start));
    heap.push(Reverse((h(start), start)));
    let mut expanded = 0usize;
    while let Some(Reverse((f, p))) = heap.pop() {
        let g = best[&p].0;
        if f > g + h(p) {
            continue;
        }
        if p == goal {
            let mut path = vec![goal];
            let mut at = goal;
            while at != start {
                at = best[&at].1;
                path.push(at);
            }
            path.reverse();
            return Ok(Some(path));
        }
        expanded += 1;
        if expanded > params.max_nodes {
            return Err(VoxelError::SearchBudget { expanded: params.max_nodes });
        }
        for q in w.moves(p) {
            let ng = g + 1;
            if best.get(&q).is_none_or(|&(c, _)| ng < c) {
                best.insert(q, (ng, p));
                heap.push(Reverse((ng + h(q), q)));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::ids;
    use crate::coords::ChunkSize;
    use crate::query::set_block;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    fn bfs_grid(w: usize, h: usize, pass: &[bool], s: (usize, usize), g: (usize, usize)) -> Option<usize> {
        let mut d = vec![usize::MAX; w * h];
        d[s.0 + w * s.1] = 0;
        let mut q = VecDeque::from([s]);
        while let Some((x, y)) = q.pop_front() {
            let dist = d[x + w * y];
            for (nx, ny) in
                [(x as i64 + 1, y as i64), (x as i64 - 1, y as i64), (x as i64, y as i64 + 1), (x as i64, y as i64 - 1)]
            {
                if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                    continue;
                }
                let j = nx as usize + w * ny as usize;
                if pass[j] && d[j] == usize::MAX {
                    d[j] = dist + 1;
                    q.push_back((nx as usize, ny as usize));
                }
            }
        }
        let r = d[g.0 + w * g.1];
        (r != usize::MAX).then_some(r)
    }

    #[test]
    fn grid_known_case() {
        // a wall with a gap at the bottom
        let (w, h) = (5, 4);
        let mut pass = vec![true; w * h];
        for y in 0..3 {
            pass[2 + w * y] = false;
        }
        let p = grid_astar(w, h, &pass, (0, 0), (4, 0)).unwrap().unwrap();
        assert_eq!(p.len(), 11);
        assert_eq!(p[0], (0, 0));
        assert_eq!(*p.last().unwrap(), (4, 0));
        pass[2 + w * 3] = false;
        assert_eq!(grid_astar(w, h, &pass, (0, 0), (4, 0)).unwrap(), None);
        assert_eq!(grid_astar(w, h, &pass, (1, 1), (1, 1)).unwrap(), Some(vec![(1, 1)]));
        assert!(grid_astar(w, h, &pass, (5, 0), (1, 1)).is_err());
        assert!(grid_astar(0, 3, &[], (0, 0), (0, 0)).is_err());
        assert!(grid_astar(w, h, &pass[1..], (0, 0), (0, 0)).is_err());
    }

    /// Paths pyworldgen 0.1.8's `GridPathfinder.astar` returns on grids blocked where
    /// `(x*a + y*b) % m == 0` (start and goal kept open).
    #[test]
    fn grid_equals_pyworldgen() {
        type Case =
            (usize, usize, usize, usize, usize, (usize, usize), (usize, usize), Option<&'static [(usize, usize)]>);
        let cases: [Case; 4] = [
            (
                12,
                9,
                7,
                13,
                5,
                (0, 0),
                (11, 8),
                Some(&[
                    (0, 0),
                    (1, 0),
                    (2, 0),
                    (2, 1),
                    (3, 1),
                    (3, 2),
                    (4, 2),
                    (4, 3),
                    (5, 3),
                    (5, 4),
                    (6, 4),
                    (6, 5),
                    (7, 5),
                    (7, 6),
                    (8, 6),
                    (8, 7),
                    (9, 7),
                    (9, 8),
                    (10, 8),
                    (11, 8),
                ]),
            ),
            (10, 10, 3, 5, 4, (9, 0), (0, 9), None),
            (15, 6, 11, 3, 7, (0, 3), (14, 2), None),
            (
                9,
                9,
                2,
                3,
                4,
                (4, 4),
                (0, 8),
                Some(&[(4, 4), (3, 4), (3, 5), (2, 5), (1, 5), (0, 5), (0, 6), (0, 7), (0, 8)]),
            ),
        ];
        for (w, h, a, b, m, s, g, want) in cases {
            let pass: Vec<bool> = (0..w * h)
                .map(|i| {
                    let (x, y) = (i % w, i / w);
                    (x * a + y * b) % m != 0 || (x, y) == s || (x, y) == g
                })
                .collect();
            let got = grid_astar(w, h, &pass, s, g).unwrap();
            assert_eq!(got.as_deref(), want, "grid {w}x{h}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn grid_matches_bfs(w in 1usize..12, h in 1usize..12, density in 0.0f64..0.5, seed in any::<u64>(),
                            s in (0usize..12, 0usize..12), g in (0usize..12, 0usize..12)) {
            let (s, g) = ((s.0 % w, s.1 % h), (g.0 % w, g.1 % h));
            let mut st = seed | 1;
            let mut pass: Vec<bool> = (0..w * h).map(|_| { st ^= st << 13; st ^= st >> 7; st ^= st << 17; (st % 1000) as f64 >= density * 1000.0 }).collect();
            pass[s.0 + w * s.1] = true;
            let a = grid_astar(w, h, &pass, s, g).unwrap();
            let b = bfs_grid(w, h, &pass, s, g);
            prop_assert_eq!(a.as_ref().map(|p| p.len() - 1), b);
            if let Some(p) = a {
                prop_assert_eq!(p[0], s);
                prop_assert_eq!(*p.last().unwrap(), g);
                for q in &p[1..] { prop_assert!(pass[q.0 + w * q.1]); }
                for win in p.windows(2) {
                    prop_assert_eq!(win[0].0.abs_diff(win[1].0) + win[0].1.abs_diff(win[1].1), 1);
                }
                // deterministic
                prop_assert_eq!(grid_astar(w, h, &pass, s, g).unwrap().unwrap(), p);
            }
        }

        /// Voxel walker against BFS over an independently built move graph on small random
        /// terraces with pillars and roofs.
        #[test]
        fn voxel_matches_bfs(heights in proptest::collection::vec(0i32..4, 36), roofs in proptest::collection::vec((0i32..6, 0i32..6, 2i32..7), 0..6),
                             s in (0i32..6, 0i32..6), g in (0i32..6, 0i32..6)) {
            let r = BlockRegistry::pyworldgen();
            let mut m = ChunkMap::new(ChunkSize::S8);
            let hgt = |x: i32, z: i32| heights[(x + 6 * z) as usize];
            for x in 0..6 { for z in 0..6 {
                for y in -1..hgt(x, z) { set_block(&mut m, BlockPos::new(x, y, z), ids::STONE); }
            }}
            for &(x, z, y) in &roofs { set_block(&mut m, BlockPos::new(x, y, z), ids::LEAVES); }
            let start = BlockPos::new(s.0, hgt(s.0, s.1), s.1);
            let goal = BlockPos::new(g.0, hgt(g.0, g.1), g.1);
            let params = WalkParams::default();
            let got = voxel_path(&m, &r, start, goal, params).unwrap();
            // independent rules: solid below, two clear (air) cells, |dy| <= 1, span clear on a climb
            let clear = |x: i32, y: i32, z: i32| { let b = block_at(&m, BlockPos::new(x, y, z)); b == ids::AIR };
            let stand = |p: BlockPos| r.is_solid(block_at(&m, BlockPos::new(p.x, p.y - 1, p.z))) && clear(p.x, p.y, p.z) && clear(p.x, p.y + 1, p.z);
            let cells: Vec<BlockPos> = (-1..6).flat_map(|x| (-2..9).flat_map(move |y| (-1..6).map(move |z| BlockPos::new(x, y, z)))).filter(|&p| stand(p)).collect();
            let edge = |a: BlockPos, b: BlockPos| {
                if a.x.abs_diff(b.x) + a.z.abs_diff(b.z) != 1 || a.y.abs_diff(b.y) > 1 { return false; }
                let (lo, hi) = (a.y.min(b.y), a.y.max(b.y) + 1);
                (lo..=hi).all(|y| clear(a.x, y, a.z) && clear(b.x, y, b.z))
            };
            let mut dist: HashMap<BlockPos, usize> = HashMap::new();
            let mut q = VecDeque::new();
            if stand(start) { dist.insert(start, 0); q.push_back(start); }
            while let Some(p) = q.pop_front() {
                let d = dist[&p];
                for &c in &cells {
                    if !dist.contains_key(&c) && edge(p, c) { dist.insert(c, d + 1); q.push_back(c); }
                }
            }
            let want = if stand(goal) { dist.get(&goal).copied() } else { None };
            prop_assert_eq!(got.as_ref().map(|p| p.len() - 1), want);
            if let Some(p) = got {
                prop_assert_eq!(p[0], start);
                prop_assert_eq!(*p.last().unwrap(), goal);
                for c in &p { prop_assert!(stand(*c)); }
                for win in p.windows(2) { prop_assert!(edge(win[0], win[1])); }
            }
        }
    }

    #[test]
    fn voxel_budget_and_params() {
        let r = BlockRegistry::pyworldgen();
        let mut m = ChunkMap::new(ChunkSize::S16);
        for x in -40..40 {
            for z in -40..40 {
                set_block(&mut m, BlockPos::new(x, 0, z), ids::GRASS);
            }
        }
        let p = voxel_path(&m, &r, BlockPos::new(-30, 1, 0), BlockPos::new(30, 1, 0), WalkParams::default())
            .unwrap()
            .unwrap();
        assert_eq!(p.len(), 61);
        let e = voxel_path(
            &m,
            &r,
            BlockPos::new(-30, 1, -30),
            BlockPos::new(39, 1, 39),
            WalkParams { max_nodes: 10, ..Default::default() },
        )
        .unwrap_err();
        assert!(e.to_string().contains("10"), "{e}");
        assert!(WalkParams { headroom: 0, ..Default::default() }.validate().is_err());
        // not standable ends
        assert_eq!(
            voxel_path(&m, &r, BlockPos::new(0, 5, 0), BlockPos::new(3, 1, 0), WalkParams::default()).unwrap(),
            None
        );
    }
}
