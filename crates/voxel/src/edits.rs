//! Deferred cross-chunk block edits (pyworldgen 0.1.8's `world/edits.py`).
//!
//! A feature anchored in one chunk (a tree, a boulder) may write blocks into its neighbours,
//! which may not exist yet. It emits [`DeferredEdit`]s instead; the buffer buckets them by the
//! chunk they land in (`floor_div(pos, size)`), and that chunk applies them when it reaches its
//! apply-edits stage. Edits are applied in ascending order, so where two edits hit one block the
//! later (higher priority) wins.
//!
//! Two orders on pop:
//!
//! * [`DeferredEditBuffer::pop_for_chunk`] — pyworldgen's: ascending priority, ties in the order
//!   the edits were added (a stable sort). The result depends on the order chunks were generated
//!   in.
//! * [`DeferredEditBuffer::pop_for_chunk_canonical`] — ascending `(priority, origin chunk,
//!   sequence within origin)`, where the origin is the chunk that emitted the edit and the
//!   sequence its emission index there ([`EditBatch`] numbers them); remaining ties (only
//!   possible when the same origin and sequence are given twice) fall to `(pos, block, source)`.
//!   The result is independent of the order in which chunks were generated or their batches
//!   added — what parallel generation needs.
//!
//! Determinism: buckets live in a `BTreeMap`; nothing depends on hashing.
//!
//! ```
//! use bozkir_voxel::{BlockId, BlockPos, ChunkPos, ChunkSize, DeferredEditBuffer, EditBatch, EditSource};
//! let s = ChunkSize::S16;
//! // generation of chunk (0, 0, 0) emits a log that pokes into chunk (-1, 0, 0)
//! let mut batch = EditBatch::new(ChunkPos::new(0, 0, 0));
//! batch.push(BlockPos::new(-1, 5, 3), BlockId(6), 10, EditSource::Tag(1)).unwrap();
//! batch.push(BlockPos::new(0, 5, 3), BlockId(6), 10, EditSource::Tag(1)).unwrap();
//! let mut buf = DeferredEditBuffer::new(s);
//! buf.add_batch(batch);
//! let edits = buf.pop_for_chunk_canonical(ChunkPos::new(-1, 0, 0));
//! assert_eq!(edits.len(), 1);
//! assert_eq!(buf.len(), 1);
//! ```

use crate::block::BlockId;
use crate::chunk::Chunk;
use crate::coords::{BlockPos, ChunkPos, ChunkSize};
use crate::error::{Result, VoxelError};
use std::collections::BTreeMap;
use std::fmt;

/// Longest inline source name, in bytes.
pub const SHORT_NAME_MAX: usize = 16;

/// A name of at most 16 bytes of UTF-8, stored inline (`Copy`, no allocation).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShortName {
    len: u8,
    bytes: [u8; SHORT_NAME_MAX],
}

impl ShortName {
    /// `name`, or [`VoxelError::SourceNameTooLong`] past 16 bytes.
    pub fn new(name: &str) -> Result<ShortName> {
        if name.len() > SHORT_NAME_MAX {
            return Err(VoxelError::SourceNameTooLong(name.to_string()));
        }
        let mut bytes = [0u8; SHORT_NAME_MAX];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(ShortName { len: name.len() as u8, bytes })
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        // Built from a &str and never mutated, so always valid UTF-8.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

impl fmt::Debug for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}
impl fmt::Display for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who emitted an edit (pyworldgen's optional `source_id`), for diagnostics and tie-breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum EditSource {
    /// No source given.
    #[default]
    None,
    /// A numeric tag.
    Tag(u32),
    /// A short name (`"tree"`).
    Name(ShortName),
}

/// One block write waiting for its chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeferredEdit {
    /// Where the block goes.
    pub pos: BlockPos,
    /// What goes there.
    pub block: BlockId,
    /// Lower applies first; higher overwrites.
    pub priority: i32,
    /// Who emitted it.
    pub source: EditSource,
    /// The chunk that emitted it (for the canonical order).
    pub origin: ChunkPos,
    /// Its emission index within `origin` (for the canonical order).
    pub seq: u32,
}

impl DeferredEdit {
    /// An edit of priority 0, no source, origin `(0, 0, 0)` and sequence 0 (pyworldgen's
    /// defaults; set the rest with the builder methods or use an [`EditBatch`]).
    pub fn new(pos: BlockPos, block: BlockId) -> Self {
        DeferredEdit { pos, block, priority: 0, source: EditSource::None, origin: ChunkPos::default(), seq: 0 }
    }
    /// With priority `p`.
    pub fn with_priority(mut self, p: i32) -> Self {
        self.priority = p;
        self
    }
    /// With source `s`.
    pub fn with_source(mut self, s: EditSource) -> Self {
        self.source = s;
        self
    }
    /// With origin chunk and emission index.
    pub fn with_origin(mut self, origin: ChunkPos, seq: u32) -> Self {
        self.origin = origin;
        self.seq = seq;
        self
    }
    /// The canonical sort key.
    #[inline]
    fn canonical_key(&self) -> (i32, ChunkPos, u32, BlockPos, BlockId, EditSource) {
        (self.priority, self.origin, self.seq, self.pos, self.block, self.source)
    }
}

/// The edits one chunk's generation emits, numbered in emission order. Build one per chunk (in
/// any thread) and hand it to [`DeferredEditBuffer::add_batch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditBatch {
    origin: ChunkPos,
    edits: Vec<DeferredEdit>,
}

impl EditBatch {
    /// An empty batch emitted by `origin`.
    pub fn new(origin: ChunkPos) -> Self {
        EditBatch { origin, edits: Vec::new() }
    }
    /// The emitting chunk.
    pub fn origin(&self) -> ChunkPos {
        self.origin
    }
    /// Emits an edit; returns its sequence number. Refuses a batch past `u32::MAX` edits.
    pub fn push(&mut self, pos: BlockPos, block: BlockId, priority: i32, source: EditSource) -> Result<u32> {
        let seq = u32::try_from(self.edits.len()).map_err(|_| VoxelError::Param {
            name: "edit batch length",
            value: self.edits.len().to_string(),
            allowed: "at most u32::MAX edits per origin chunk",
        })?;
        self.edits.push(DeferredEdit { pos, block, priority, source, origin: self.origin, seq });
        Ok(seq)
    }
    /// The edits, in emission order.
    pub fn edits(&self) -> &[DeferredEdit] {
        &self.edits
    }
    /// Number of edits.
    pub fn len(&self) -> usize {
        self.edits.len()
    }
    /// Whether no edit was emitted.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

/// Pending edits bucketed by destination chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeferredEditBuffer {
    size: ChunkSize,
    buckets: BTreeMap<ChunkPos, Vec<DeferredEdit>>,
    len: usize,
}

impl DeferredEditBuffer {
    /// An empty buffer for chunks of size `size`.
    pub fn new(size: ChunkSize) -> Self {
        DeferredEditBuffer { size, buckets: BTreeMap::new(), len: 0 }
    }
    /// The chunk size.
    pub fn size(&self) -> ChunkSize {
        self.size
    }
    /// Adds one edit to the bucket of the chunk it lands in.
    pub fn add(&mut self, edit: DeferredEdit) {
        self.buckets.entry(edit.pos.chunk(self.size)).or_default().push(edit);
        self.len += 1;
    }
    /// Adds a batch's edits in emission order.
    pub fn add_batch(&mut self, batch: EditBatch) {
        for e in batch.edits {
            self.add(e);
        }
    }
    /// Moves every edit of `other` into this buffer (bucket by bucket, in `other`'s insertion
    /// order; re-bucketed if the chunk sizes differ). For merging the buffers of parallel
    /// workers; the canonical pops do not depend on the merge order.
    pub fn merge(&mut self, other: DeferredEditBuffer) {
        if other.size == self.size {
            for (c, v) in other.buckets {
                self.len += v.len();
                self.buckets.entry(c).or_default().extend(v);
            }
        } else {
            for e in other.buckets.into_values().flatten() {
                self.add(e);
            }
        }
    }
    /// pyworldgen's pop: removes the edits landing in `chunk`, sorted by ascending priority,
    /// ties in insertion order.
    pub fn pop_for_chunk(&mut self, chunk: ChunkPos) -> Vec<DeferredEdit> {
        let mut v = self.buckets.remove(&chunk).unwrap_or_default();
        self.len -= v.len();
        v.sort_by_key(|e| e.priority);
        v
    }
    /// The canonical pop: removes the edits landing in `chunk`, sorted by ascending
    /// `(priority, origin, seq)` (then `(pos, block, source)`); independent of insertion order.
    pub fn pop_for_chunk_canonical(&mut self, chunk: ChunkPos) -> Vec<DeferredEdit> {
        let mut v = self.buckets.remove(&chunk).unwrap_or_default();
        self.len -= v.len();
        v.sort_unstable_by_key(DeferredEdit::canonical_key);
        v
    }
    /// The edits waiting for `chunk`, in insertion order.
    pub fn pending(&self, chunk: ChunkPos) -> &[DeferredEdit] {
        self.buckets.get(&chunk).map_or(&[], |v| &v[..])
    }
    /// Chunks with pending edits, sorted.
    pub fn chunks(&self) -> impl Iterator<Item = ChunkPos> + '_ {
        self.buckets.keys().copied()
    }
    /// Total pending edits.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Writes `edits` into `chunk` in the order given (later wins), skipping edits that land in
/// another chunk; marks the chunk's blocks and mesh dirty if anything was written. Returns the
/// number written.
pub fn apply_edits(chunk: &mut Chunk, edits: &[DeferredEdit]) -> usize {
    let size = chunk.size();
    let mut n = 0;
    for e in edits {
        let (c, l) = e.pos.split(size);
        if c == chunk.coord {
            chunk.set(l, e.block);
            n += 1;
        }
    }
    if n > 0 {
        chunk.dirty.blocks = true;
        chunk.dirty.mesh = true;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tree(origin: ChunkPos, s: ChunkSize, x: i32, z: i32, h: i32, tag: u32) -> EditBatch {
        let mut b = EditBatch::new(origin);
        let o = origin.origin(s).unwrap();
        let (wx, wz) = (o.x + x, o.z + z);
        for dy in 1..5 {
            b.push(BlockPos::new(wx, h + dy, wz), BlockId(6), 10, EditSource::Tag(tag)).unwrap();
        }
        for ox in -2..=2i32 {
            for oy in 3..6i32 {
                for oz in -2..=2i32 {
                    if ox.abs() + oz.abs() + (oy - 4).max(0) <= 4 {
                        b.push(BlockPos::new(wx + ox, h + oy, wz + oz), BlockId(7), 11, EditSource::Tag(tag)).unwrap();
                    }
                }
            }
        }
        b
    }

    #[test]
    fn pyworldgen_order_is_stable_priority() {
        let s = ChunkSize::S8;
        let mut buf = DeferredEditBuffer::new(s);
        let p = BlockPos::new(-1, 0, 3);
        let name = EditSource::Name(ShortName::new("tree").unwrap());
        buf.add(DeferredEdit::new(p, BlockId(1)).with_priority(5));
        buf.add(DeferredEdit::new(p, BlockId(2)).with_priority(-1).with_source(name));
        buf.add(DeferredEdit::new(p, BlockId(3)).with_priority(5));
        buf.add(DeferredEdit::new(p, BlockId(4)).with_priority(0));
        buf.add(DeferredEdit::new(BlockPos::new(0, 0, 0), BlockId(9)));
        assert_eq!(buf.len(), 5);
        assert_eq!(buf.chunks().collect::<Vec<_>>(), vec![ChunkPos::new(-1, 0, 0), ChunkPos::new(0, 0, 0)]);
        let got: Vec<u16> = buf.pop_for_chunk(ChunkPos::new(-1, 0, 0)).iter().map(|e| e.block.0).collect();
        assert_eq!(got, vec![2, 4, 1, 3]);
        assert_eq!(buf.len(), 1);
        assert!(buf.pop_for_chunk(ChunkPos::new(-1, 0, 0)).is_empty());
        assert_eq!(format!("{name:?}"), "Name(\"tree\")");
        assert!(ShortName::new("a-very-long-source-name").is_err());
    }

    #[test]
    fn apply_later_wins() {
        let s = ChunkSize::S8;
        let mut c = Chunk::new(ChunkPos::new(0, 0, 0), s).unwrap();
        let p = BlockPos::new(1, 2, 3);
        let edits = vec![
            DeferredEdit::new(p, BlockId(6)).with_priority(10),
            DeferredEdit::new(p, BlockId(7)).with_priority(11),
            DeferredEdit::new(BlockPos::new(9, 0, 0), BlockId(7)),
        ];
        assert_eq!(apply_edits(&mut c, &edits), 2);
        assert_eq!(c.get(p.local(s)), BlockId(7));
        assert!(c.dirty.blocks && c.dirty.mesh);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Trees from several origins land across chunk borders; adding the batches in any order
        /// gives the same canonical pops, and the same applied blocks.
        #[test]
        fn canonical_independent_of_order(trees in proptest::collection::vec((-1i32..2, -1i32..2, 0i32..8, 0i32..8, 0i32..3, 0u32..3), 1..8),
                                          perm_seed in any::<u64>()) {
            let s = ChunkSize::S8;
            // several trees may share an origin: they are merged into one batch below
            let batches: Vec<EditBatch> =
                trees.iter().map(|&(cx, cz, x, z, h, tag)| tree(ChunkPos::new(cx, 0, cz), s, x, z, h, tag)).collect();
            // one batch per origin (a chunk's generation emits one batch)
            let mut per_origin: BTreeMap<ChunkPos, EditBatch> = BTreeMap::new();
            for b in batches {
                let o = per_origin.entry(b.origin()).or_insert_with(|| EditBatch::new(b.origin()));
                for e in b.edits() {
                    o.push(e.pos, e.block, e.priority, e.source).unwrap();
                }
            }
            let mut order: Vec<EditBatch> = per_origin.into_values().collect();
            let mut fwd = DeferredEditBuffer::new(s);
            for b in order.clone() { fwd.add_batch(b); }
            // a permutation from the seed
            let mut st = perm_seed | 1;
            for i in (1..order.len()).rev() {
                st ^= st << 13; st ^= st >> 7; st ^= st << 17;
                order.swap(i, (st % (i as u64 + 1)) as usize);
            }
            // the permuted batches go through per-worker buffers merged at the end
            let mut rev = DeferredEditBuffer::new(s);
            for pair in order.chunks(2) {
                let mut worker = DeferredEditBuffer::new(s);
                for b in pair { worker.add_batch(b.clone()); }
                rev.merge(worker);
            }
            prop_assert_eq!(fwd.len(), rev.len());
            let dests: Vec<ChunkPos> = fwd.chunks().collect();
            prop_assert_eq!(&dests, &rev.chunks().collect::<Vec<_>>());
            for d in dests {
                let a = fwd.pop_for_chunk_canonical(d);
                let b = rev.pop_for_chunk_canonical(d);
                prop_assert_eq!(&a, &b);
                prop_assert!(a.windows(2).all(|w| w[0].canonical_key() <= w[1].canonical_key()));
                prop_assert!(a.iter().all(|e| e.pos.chunk(s) == d));
            }
            prop_assert!(fwd.is_empty() && rev.is_empty());
        }
    }

    #[test]
    fn pyworldgen_order_depends_on_generation_order() {
        // Two origins write the same block at the same priority: pyworldgen's pop lets the
        // later-generated one win; the canonical pop lets the lesser origin come first (so the
        // greater origin wins) whichever was generated first.
        let s = ChunkSize::S8;
        let p = BlockPos::new(8, 0, 0);
        let mut a = EditBatch::new(ChunkPos::new(0, 0, 0));
        a.push(p, BlockId(1), 0, EditSource::None).unwrap();
        let mut b = EditBatch::new(ChunkPos::new(2, 0, 0));
        b.push(p, BlockId(2), 0, EditSource::None).unwrap();
        let dest = p.chunk(s);
        let mut last = Vec::new();
        for (first, second) in [(a.clone(), b.clone()), (b, a)] {
            let mut buf = DeferredEditBuffer::new(s);
            buf.add_batch(first.clone());
            buf.add_batch(second.clone());
            let py = buf.clone().pop_for_chunk(dest);
            assert_eq!(py.last().unwrap().block, second.edits()[0].block);
            let canon = buf.pop_for_chunk_canonical(dest);
            assert_eq!(canon.last().unwrap().block, BlockId(2));
            last.push(canon);
        }
        assert_eq!(last[0], last[1]);
    }
}
