//! The chunk map: every loaded chunk of a world by chunk position (pyworldgen 0.1.8's
//! `world/chunk_map.py`), in a `BTreeMap` so that iteration is sorted by `(x, y, z)` and no
//! output depends on hashing or insertion order.
//!
//! All chunks of a map share one [`ChunkSize`]; [`ChunkMap::insert`] refuses another size, and
//! [`ChunkMap::get_or_create`] refuses chunk positions whose blocks would leave `i32`.

use crate::chunk::Chunk;
use crate::coords::{BlockPos, ChunkPos, ChunkSize};
use crate::error::{Result, VoxelError};
use std::collections::btree_map::{self, BTreeMap};

/// Loaded chunks by position, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChunkMap {
    size: ChunkSize,
    chunks: BTreeMap<ChunkPos, Chunk>,
}

impl ChunkMap {
    /// An empty map of chunks of size `size`.
    pub fn new(size: ChunkSize) -> Self {
        ChunkMap { size, chunks: BTreeMap::new() }
    }
    /// The chunk size.
    #[inline]
    pub fn size(&self) -> ChunkSize {
        self.size
    }
    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }
    /// Whether no chunk is loaded.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }
    /// Whether the chunk at `pos` is loaded.
    pub fn contains(&self, pos: ChunkPos) -> bool {
        self.chunks.contains_key(&pos)
    }
    /// The chunk at `pos`, if loaded.
    #[inline]
    pub fn get(&self, pos: ChunkPos) -> Option<&Chunk> {
        self.chunks.get(&pos)
    }
    /// The chunk at `pos`, writable, if loaded.
    #[inline]
    pub fn get_mut(&mut self, pos: ChunkPos) -> Option<&mut Chunk> {
        self.chunks.get_mut(&pos)
    }
    /// The chunk holding block `b`, if loaded.
    #[inline]
    pub fn chunk_of(&self, b: BlockPos) -> Option<&Chunk> {
        self.chunks.get(&b.chunk(self.size))
    }
    /// The chunk at `pos`, created empty ([`Chunk::new`]) if absent; an error if `pos` is out of
    /// range for the size.
    pub fn get_or_create(&mut self, pos: ChunkPos) -> Result<&mut Chunk> {
        match self.chunks.entry(pos) {
            btree_map::Entry::Occupied(e) => Ok(e.into_mut()),
            btree_map::Entry::Vacant(e) => Ok(e.insert(Chunk::new(pos, self.size)?)),
        }
    }
    /// Puts `chunk` at its position, returning the chunk it replaces; an error if its size is
    /// not the map's.
    pub fn insert(&mut self, chunk: Chunk) -> Result<Option<Chunk>> {
        if chunk.size() != self.size {
            return Err(VoxelError::ChunkSizeMismatch {
                chunk: chunk.coord,
                expected: self.size.edge(),
                got: chunk.size().edge(),
            });
        }
        Ok(self.chunks.insert(chunk.coord, chunk))
    }
    /// Takes the chunk at `pos` out of the map.
    pub fn remove(&mut self, pos: ChunkPos) -> Option<Chunk> {
        self.chunks.remove(&pos)
    }
    /// Chunks in `(x, y, z)` order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&ChunkPos, &Chunk)> + '_ {
        self.chunks.iter()
    }
    /// Chunks in `(x, y, z)` order, writable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&ChunkPos, &mut Chunk)> + '_ {
        self.chunks.iter_mut()
    }
    /// Loaded positions in `(x, y, z)` order.
    pub fn positions(&self) -> impl DoubleEndedIterator<Item = ChunkPos> + '_ {
        self.chunks.keys().copied()
    }
    /// Chunks whose position lies in the box `[lo, hi]` (inclusive on every axis), sorted.
    pub fn in_box(&self, lo: ChunkPos, hi: ChunkPos) -> impl Iterator<Item = (&ChunkPos, &Chunk)> + '_ {
        self.chunks
            .range(ChunkPos::new(lo.x, i32::MIN, i32::MIN)..=ChunkPos::new(hi.x, i32::MAX, i32::MAX))
            .filter(move |(p, _)| p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockId;
    use crate::coords::LocalPos;

    #[test]
    fn shareable_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<ChunkMap>();
        send_sync::<Chunk>();
        send_sync::<crate::edits::DeferredEditBuffer>();
        send_sync::<crate::edits::EditBatch>();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn in_box_is_brute_force(pts in proptest::collection::vec((-4i32..4, -4i32..4, -4i32..4), 0..40),
                                 lo in (-4i32..4, -4i32..4, -4i32..4), ext in (0i32..5, 0i32..5, 0i32..5)) {
            let mut m = ChunkMap::new(ChunkSize::S8);
            for &(x, y, z) in &pts { m.get_or_create(ChunkPos::new(x, y, z)).unwrap(); }
            let (lo, hi) = (ChunkPos::new(lo.0, lo.1, lo.2), ChunkPos::new(lo.0 + ext.0, lo.1 + ext.1, lo.2 + ext.2));
            let got: Vec<ChunkPos> = m.in_box(lo, hi).map(|(p, _)| *p).collect();
            let want: Vec<ChunkPos> = m.positions().filter(|p| p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn map_basics() {
        let s = ChunkSize::S8;
        let mut m = ChunkMap::new(s);
        assert!(m.get(ChunkPos::new(0, 0, 0)).is_none());
        for p in [ChunkPos::new(1, 0, 0), ChunkPos::new(-1, 5, 2), ChunkPos::new(0, 0, 0), ChunkPos::new(-1, -3, 9)] {
            m.get_or_create(p).unwrap();
        }
        let order: Vec<ChunkPos> = m.positions().collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        m.get_or_create(ChunkPos::new(0, 0, 0)).unwrap().set(LocalPos::default(), BlockId(4));
        assert_eq!(m.get_or_create(ChunkPos::new(0, 0, 0)).unwrap().get(LocalPos::default()), BlockId(4));
        assert_eq!(m.len(), 4);
        assert!(m.get_or_create(ChunkPos::new(0, i32::MAX, 0)).is_err());
        let wrong = Chunk::new(ChunkPos::new(9, 9, 9), ChunkSize::S16).unwrap();
        assert!(m.insert(wrong).unwrap_err().to_string().contains("16"));
        let c = m.remove(ChunkPos::new(1, 0, 0)).unwrap();
        assert_eq!(c.coord, ChunkPos::new(1, 0, 0));
        assert!(m.insert(c).unwrap().is_none());
        let boxed: Vec<ChunkPos> =
            m.in_box(ChunkPos::new(-1, -1, 0), ChunkPos::new(0, 6, 3)).map(|(p, _)| *p).collect();
        assert_eq!(boxed, vec![ChunkPos::new(-1, 5, 2), ChunkPos::new(0, 0, 0)]);
    }
}
