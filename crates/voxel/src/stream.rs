//! Chunk streaming around a moving viewer: which chunks to load this tick and which to unload
//! (pyworldgen 0.1.8's `runtime/chunk_streamer.py` keeps a cube of chunks around a centre; this
//! adds nearest-first order, a per-tick budget and hysteresis).
//!
//! Shape. With the viewer in chunk `v`, chunk `c` is **in radius** when
//! `(c.x-v.x)² + (c.z-v.z)² <= R²` and `|c.y-v.y| <= V` (`R` = horizontal radius, `V` = vertical
//! radius, in chunks): a vertical cylinder. A loaded chunk is **unloaded** when it lies outside
//! the cylinder of radii `R + 1`, `V + 1` (one chunk of hysteresis, so a viewer pacing across a
//! border does not thrash). Chunks in radius are never unloaded.
//!
//! Order. Chunks to load are the in-radius chunks not loaded, nearest first by squared 3-D
//! distance in chunk units, ties by chunk position order `(x, y, z)`; at most `budget` per tick.
//! Chunks to unload come in position order. The offsets of the cylinder are sorted once, at
//! construction, so a tick costs O(candidates scanned + loaded chunks). Chunk positions outside
//! the `i32` range of the chunk size are skipped.
//!
//! Determinism: a pure function of the viewer, the parameters and the loaded set.

use crate::coords::{ChunkPos, ChunkSize};
use crate::error::{Result, VoxelError};
use crate::map::ChunkMap;
use std::collections::BTreeSet;

/// Most chunks a stream cylinder may hold (2^22).
pub const MAX_STREAM_CHUNKS: usize = 1 << 22;

/// Parameters of a [`ChunkStreamer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamParams {
    /// Horizontal radius in chunks (default 8).
    pub horizontal_radius: u32,
    /// Vertical radius in chunks (default 4).
    pub vertical_radius: u32,
    /// Most chunks to load per tick (default 8; at least 1).
    pub budget: usize,
}

impl Default for StreamParams {
    fn default() -> Self {
        StreamParams { horizontal_radius: 8, vertical_radius: 4, budget: 8 }
    }
}

/// One tick's decisions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamPlan {
    /// Chunks to load, nearest first (at most the budget).
    pub load: Vec<ChunkPos>,
    /// Chunks to unload, in position order.
    pub unload: Vec<ChunkPos>,
}

/// Plans loads and unloads around a viewer (see the module doc).
#[derive(Debug, Clone)]
pub struct ChunkStreamer {
    params: StreamParams,
    size: ChunkSize,
    /// Cylinder offsets sorted by (squared distance, dx, dy, dz).
    offsets: Vec<(i64, [i32; 3])>,
}

impl ChunkStreamer {
    /// A streamer for chunks of `size`. Errors: budget 0, a cylinder of more than
    /// [`MAX_STREAM_CHUNKS`] chunks.
    pub fn new(params: StreamParams, size: ChunkSize) -> Result<Self> {
        if params.budget == 0 {
            return Err(VoxelError::Param { name: "budget", value: "0".into(), allowed: "at least 1" });
        }
        let (r, v) = (params.horizontal_radius as i64, params.vertical_radius as i64);
        let count = (2 * r + 1).saturating_mul(2 * r + 1).saturating_mul(2 * v + 1);
        if count > MAX_STREAM_CHUNKS as i64 {
            return Err(VoxelError::Param {
                name: "stream radii",
                value: format!("horizontal {r}, vertical {v}"),
                allowed: "a bounding box of at most 2^22 chunks",
            });
        }
        let mut offsets = Vec::new();
        for dx in -r..=r {
            for dz in -r..=r {
                if dx * dx + dz * dz > r * r {
                    continue;
                }
                for dy in -v..=v {
                    offsets.push((dx * dx + dy * dy + dz * dz, [dx as i32, dy as i32, dz as i32]));
                }
            }
        }
        offsets.sort_unstable();
        Ok(ChunkStreamer { params, size, offsets })
    }

    /// The parameters.
    pub fn params(&self) -> StreamParams {
        self.params
    }

    /// Whether `c` is in radius of a viewer in `viewer`.
    pub fn in_radius(&self, viewer: ChunkPos, c: ChunkPos) -> bool {
        within(viewer, c, self.params.horizontal_radius as i64, self.params.vertical_radius as i64)
    }

    /// This tick's plan: `is_loaded` says whether a chunk is loaded (or on its way),
    /// `loaded` lists the loaded chunks (any order; unloads come out sorted).
    pub fn tick_with(
        &self,
        viewer: ChunkPos,
        is_loaded: impl Fn(ChunkPos) -> bool,
        loaded: impl IntoIterator<Item = ChunkPos>,
    ) -> StreamPlan {
        let mut load = Vec::new();
        for &(_, [dx, dy, dz]) in &self.offsets {
            if load.len() >= self.params.budget {
                break;
            }
            let Some(c) = viewer.checked_offset(dx, dy, dz, self.size) else { continue };
            if !is_loaded(c) {
                load.push(c);
            }
        }
        let (r, v) = (self.params.horizontal_radius as i64 + 1, self.params.vertical_radius as i64 + 1);
        let mut unload: Vec<ChunkPos> = loaded.into_iter().filter(|&c| !within(viewer, c, r, v)).collect();
        unload.sort_unstable();
        unload.dedup();
        StreamPlan { load, unload }
    }

    /// [`tick_with`](Self::tick_with) over a set of loaded chunks.
    pub fn tick(&self, viewer: ChunkPos, loaded: &BTreeSet<ChunkPos>) -> StreamPlan {
        self.tick_with(viewer, |c| loaded.contains(&c), loaded.iter().copied())
    }

    /// [`tick_with`](Self::tick_with) over the chunks of a map.
    pub fn tick_map(&self, viewer: ChunkPos, map: &ChunkMap) -> StreamPlan {
        self.tick_with(viewer, |c| map.contains(c), map.positions())
    }
}

fn within(viewer: ChunkPos, c: ChunkPos, r: i64, v: i64) -> bool {
    let dx = c.x as i64 - viewer.x as i64;
    let dy = c.y as i64 - viewer.y as i64;
    let dz = c.z as i64 - viewer.z as i64;
    dx * dx + dz * dz <= r * r && dy.abs() <= v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute_load(s: &ChunkStreamer, v: ChunkPos, loaded: &BTreeSet<ChunkPos>) -> Vec<ChunkPos> {
        let p = s.params();
        let (r, vr) = (p.horizontal_radius as i32, p.vertical_radius as i32);
        let mut all: Vec<(i64, ChunkPos)> = Vec::new();
        for x in v.x - r..=v.x + r {
            for y in v.y - vr..=v.y + vr {
                for z in v.z - r..=v.z + r {
                    let c = ChunkPos::new(x, y, z);
                    if s.in_radius(v, c) && !loaded.contains(&c) {
                        let d = |a: i32, b: i32| (a as i64 - b as i64).pow(2);
                        all.push((d(x, v.x) + d(y, v.y) + d(z, v.z), c));
                    }
                }
            }
        }
        all.sort();
        all.into_iter().take(p.budget).map(|(_, c)| c).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// A viewer wandering randomly: each tick's loads equal the brute-force nearest-first
        /// choice, respect the budget, never repeat a loaded chunk; unloads never touch the
        /// radius and take everything past the hysteresis; standing still loads everything.
        #[test]
        fn wander(r in 0u32..5, v in 0u32..3, budget in 1usize..20, moves in proptest::collection::vec((-1i32..2, -1i32..2, -1i32..2), 1..25)) {
            let s = ChunkStreamer::new(StreamParams { horizontal_radius: r, vertical_radius: v, budget }, ChunkSize::S16).unwrap();
            let mut loaded = BTreeSet::new();
            let mut viewer = ChunkPos::new(3, -1, -7);
            for (dx, dy, dz) in moves {
                viewer = ChunkPos::new(viewer.x + dx, viewer.y + dy, viewer.z + dz);
                let plan = s.tick(viewer, &loaded);
                prop_assert_eq!(&plan, &s.tick(viewer, &loaded));
                prop_assert!(plan.load.len() <= budget);
                prop_assert_eq!(&plan.load, &brute_load(&s, viewer, &loaded));
                for c in &plan.unload {
                    prop_assert!(!s.in_radius(viewer, *c));
                    prop_assert!(loaded.contains(c));
                }
                for c in &loaded {
                    let keep = within(viewer, *c, r as i64 + 1, v as i64 + 1);
                    prop_assert_eq!(keep, !plan.unload.contains(c));
                }
                for c in plan.unload { loaded.remove(&c); }
                for c in plan.load { prop_assert!(loaded.insert(c)); }
            }
            let total = s.offsets.len();
            for _ in 0..total.div_ceil(budget) + 1 {
                let plan = s.tick(viewer, &loaded);
                for c in plan.load { loaded.insert(c); }
            }
            let inside = loaded.iter().filter(|c| s.in_radius(viewer, **c)).count();
            prop_assert_eq!(inside, total);
            prop_assert!(s.tick(viewer, &loaded).load.is_empty());
        }
    }

    #[test]
    fn order_and_errors() {
        let s =
            ChunkStreamer::new(StreamParams { horizontal_radius: 2, vertical_radius: 1, budget: 7 }, ChunkSize::S32)
                .unwrap();
        let plan = s.tick(ChunkPos::new(0, 0, 0), &BTreeSet::new());
        assert_eq!(
            plan.load,
            vec![
                ChunkPos::new(0, 0, 0),
                ChunkPos::new(-1, 0, 0),
                ChunkPos::new(0, -1, 0),
                ChunkPos::new(0, 0, -1),
                ChunkPos::new(0, 0, 1),
                ChunkPos::new(0, 1, 0),
                ChunkPos::new(1, 0, 0)
            ]
        );
        assert!(ChunkStreamer::new(StreamParams { budget: 0, ..Default::default() }, ChunkSize::S32).is_err());
        assert!(
            ChunkStreamer::new(StreamParams { horizontal_radius: 5000, ..Default::default() }, ChunkSize::S32).is_err()
        );
        // at the edge of the chunk range nothing out of range is proposed
        let top = ChunkPos::new(0, ChunkSize::S32.max_chunk(), 0);
        let plan = s.tick(top, &BTreeSet::new());
        assert!(plan.load.iter().all(|c| c.in_range(ChunkSize::S32)));
    }
}
