//! One chunk: blocks, per-column biomes and heights, per-voxel light, generation state, dirty
//! flags (pyworldgen 0.1.8's `world/chunk.py`, with palette-compressed blocks).
//!
//! Layouts: voxel index `x + s*(z + s*y)`; column index `x + s*z` (see
//! [`coords`](crate::coords)). Blocks are a [`PalettedBlocks`]; light is a [`LightStorage`]
//! (sections of 256 voxels, each one level or 4 bits per voxel). Heights are `i16` per column,
//! biomes `u8` per column, both zero in a new chunk.
//!
//! The buffers' lengths are fixed by the chunk size: they are reachable as slices or through
//! methods, never as growable containers, so a chunk cannot hold buffers of the wrong size.
//! Block and light writes here are raw: they do not touch the dirty flags (the world queries
//! of `query` set them, as pyworldgen's do).

use crate::block::BlockId;
use crate::coords::{ChunkPos, ChunkSize, LocalPos};
use crate::error::{Result, VoxelError};
use crate::palette::PalettedBlocks;

/// How far generation has taken a chunk (pyworldgen's `ChunkState`, same order and numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum ChunkState {
    /// Nothing generated (0).
    #[default]
    Empty = 0,
    /// Terrain blocks written (1).
    TerrainGenerated = 1,
    /// Biomes assigned (2).
    BiomesGenerated = 2,
    /// Caves carved (3).
    CavesGenerated = 3,
    /// Surface decorated (4).
    SurfaceDecorated = 4,
    /// Structures and deferred edits placed (5).
    StructuresPlaced = 5,
    /// Light computed (6).
    LightingReady = 6,
    /// Meshed (7).
    Meshed = 7,
    /// Collider built (8).
    ColliderReady = 8,
    /// Saved (9).
    Saved = 9,
}

impl ChunkState {
    /// All states in order.
    pub const ALL: [ChunkState; 10] = [
        ChunkState::Empty,
        ChunkState::TerrainGenerated,
        ChunkState::BiomesGenerated,
        ChunkState::CavesGenerated,
        ChunkState::SurfaceDecorated,
        ChunkState::StructuresPlaced,
        ChunkState::LightingReady,
        ChunkState::Meshed,
        ChunkState::ColliderReady,
        ChunkState::Saved,
    ];
    /// The state numbered `v` (0–9), or `None`.
    pub fn from_u8(v: u8) -> Option<ChunkState> {
        Self::ALL.get(v as usize).copied()
    }
    /// Its number.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// What has changed since the last mesh, light, collider or save (pyworldgen's `DirtyFlags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DirtyFlags {
    /// Blocks changed.
    pub blocks: bool,
    /// Mesh out of date.
    pub mesh: bool,
    /// Light out of date.
    pub lighting: bool,
    /// Collider out of date.
    pub collider: bool,
    /// Not saved since the last change.
    pub saved: bool,
}

impl DirtyFlags {
    /// Packed into the low 5 bits (blocks, mesh, lighting, collider, saved).
    pub fn to_bits(self) -> u8 {
        self.blocks as u8
            | (self.mesh as u8) << 1
            | (self.lighting as u8) << 2
            | (self.collider as u8) << 3
            | (self.saved as u8) << 4
    }
    /// Inverse of [`to_bits`](Self::to_bits) (higher bits ignored).
    pub fn from_bits(b: u8) -> Self {
        DirtyFlags {
            blocks: b & 1 != 0,
            mesh: b & 2 != 0,
            lighting: b & 4 != 0,
            collider: b & 8 != 0,
            saved: b & 16 != 0,
        }
    }
}

/// Light levels 0–15 of every voxel, by sections of 256 consecutive voxels: the whole store as
/// one level (no sections), or per section either one level or 128 bytes of nibbles (voxel `j`
/// of a section in the low nibble of byte `j / 2` when `j` is even, the high nibble when odd).
/// Above and below the surface light is uniform, so most sections of a lit terrain chunk cost
/// a 32-bit descriptor; only the sections the surface crosses hold 4 bits per voxel.
#[derive(Debug, Clone)]
pub struct LightStorage {
    len: usize,
    uniform: u8,
    /// Per section: `SEC_UNIFORM | level`, or the index of its 128-byte block in `blocks`.
    /// Empty when the whole store is `uniform`.
    secs: Vec<u32>,
    blocks: Vec<u8>,
}

const LIGHT_SEC: usize = 256;
const SEC_UNIFORM: u32 = 1 << 31;

impl PartialEq for LightStorage {
    /// Equal levels in every voxel.
    fn eq(&self, o: &Self) -> bool {
        self.len == o.len
            && match (self.secs.is_empty(), o.secs.is_empty()) {
                (true, true) => self.uniform == o.uniform,
                _ => (0..self.len).all(|i| self.get(i) == o.get(i)),
            }
    }
}
impl Eq for LightStorage {}

/// Highest light level.
pub const MAX_LIGHT: u8 = 15;

impl LightStorage {
    /// `len` voxels all at `level` (clamped to 15).
    pub fn uniform(len: usize, level: u8) -> Self {
        LightStorage { len, uniform: level.min(MAX_LIGHT), secs: Vec::new(), blocks: Vec::new() }
    }
    /// Number of voxels.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no voxels.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// If stored as one value, that value (after [`compact`](Self::compact): if every voxel
    /// holds the same level).
    pub fn uniform_level(&self) -> Option<u8> {
        self.secs.is_empty().then_some(self.uniform)
    }
    /// Level of voxel `i` (panics if `i >= len`, like slice indexing).
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        assert!(i < self.len, "light index {i} out of range ({})", self.len);
        if self.secs.is_empty() {
            return self.uniform;
        }
        let d = self.secs[i / LIGHT_SEC];
        if d & SEC_UNIFORM != 0 {
            (d & 15) as u8
        } else {
            let j = i % LIGHT_SEC;
            (self.blocks[d as usize * (LIGHT_SEC / 2) + (j >> 1)] >> ((j & 1) << 2)) & 15
        }
    }
    /// Sets voxel `i` to `level` (clamped to 15; panics if `i >= len`).
    #[inline]
    pub fn set(&mut self, i: usize, level: u8) {
        assert!(i < self.len, "light index {i} out of range ({})", self.len);
        let level = level.min(MAX_LIGHT);
        if self.secs.is_empty() {
            if level == self.uniform {
                return;
            }
            self.secs = vec![SEC_UNIFORM | self.uniform as u32; self.len.div_ceil(LIGHT_SEC)];
        }
        let s = i / LIGHT_SEC;
        let d = self.secs[s];
        let d = if d & SEC_UNIFORM != 0 {
            let u = (d & 15) as u8;
            if u == level {
                return;
            }
            let k = self.blocks.len() / (LIGHT_SEC / 2);
            self.blocks.resize(self.blocks.len() + LIGHT_SEC / 2, u * 17);
            self.secs[s] = k as u32;
            k as u32
        } else {
            d
        };
        let j = i % LIGHT_SEC;
        let sh = (j & 1) << 2;
        let b = &mut self.blocks[d as usize * (LIGHT_SEC / 2) + (j >> 1)];
        *b = (*b & !(15 << sh)) | (level << sh);
    }
    /// Every voxel to `level` (clamped; back to one stored value).
    pub fn fill(&mut self, level: u8) {
        *self = Self::uniform(self.len, level);
    }
    /// Levels of section `s` (its voxels inside `len`) into `out`.
    fn section_levels(&self, s: usize, out: &mut [u8]) {
        if self.secs.is_empty() {
            out.fill(self.uniform);
            return;
        }
        let d = self.secs[s];
        if d & SEC_UNIFORM != 0 {
            out.fill((d & 15) as u8);
            return;
        }
        let base = d as usize * (LIGHT_SEC / 2);
        for (j, o) in out.iter_mut().enumerate() {
            *o = (self.blocks[base + (j >> 1)] >> ((j & 1) << 2)) & 15;
        }
    }
    /// Stores each section whose voxels share one level as that level, drops the blocks no
    /// section uses, and goes back to one stored value if every voxel holds the same level.
    pub fn compact(&mut self) {
        if !self.secs.is_empty() {
            let mut levels = vec![0u8; self.len];
            self.to_dense(&mut levels).expect("length matches");
            *self = Self::from_dense(&levels);
        }
    }
    /// Levels as one byte per voxel.
    pub fn to_dense(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.len {
            return Err(VoxelError::LengthMismatch { what: "dense light buffer", expected: self.len, got: out.len() });
        }
        for (s, c) in out.chunks_mut(LIGHT_SEC).enumerate() {
            self.section_levels(s, c);
        }
        Ok(())
    }
    /// From one byte per voxel (each clamped to 15), in the compact form.
    pub fn from_dense(levels: &[u8]) -> Self {
        let first = levels.first().map_or(0, |&l| l.min(MAX_LIGHT));
        let mut s = LightStorage::uniform(levels.len(), first);
        if levels.iter().all(|&l| l.min(MAX_LIGHT) == first) {
            return s;
        }
        for c in levels.chunks(LIGHT_SEC) {
            let f = c[0].min(MAX_LIGHT);
            if c.iter().all(|&l| l.min(MAX_LIGHT) == f) {
                s.secs.push(SEC_UNIFORM | f as u32);
            } else {
                s.secs.push((s.blocks.len() / (LIGHT_SEC / 2)) as u32);
                let start = s.blocks.len();
                // Two voxels a byte, the even one low; a short last section is padded with 0.
                s.blocks
                    .extend(c.chunks(2).map(|p| p[0].min(MAX_LIGHT) | p.get(1).map_or(0, |&l| l.min(MAX_LIGHT) << 4)));
                s.blocks.resize(start + LIGHT_SEC / 2, 0);
            }
        }
        s
    }
    /// All levels as nibbles, voxel `i` in the low nibble of byte `i / 2` when `i` is even
    /// (`len.div_ceil(2)` bytes; a final unused nibble is 0).
    pub fn to_nibbles(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len.div_ceil(2)];
        let mut sec = vec![0u8; LIGHT_SEC];
        for s in 0..self.len.div_ceil(LIGHT_SEC) {
            let n = LIGHT_SEC.min(self.len - s * LIGHT_SEC);
            self.section_levels(s, &mut sec[..n]);
            for (j, &l) in sec[..n].iter().enumerate() {
                let i = s * LIGHT_SEC + j;
                out[i >> 1] |= l << ((i & 1) << 2);
            }
        }
        out
    }
    /// The sections as the byte format stores them: one descriptor byte per section of 256
    /// voxels (the level 0–15 of a uniform section, 16 for a packed one) and the packed
    /// sections' 128 nibble bytes each, in section order.
    pub fn section_bytes(&self) -> (Vec<u8>, Vec<u8>) {
        let n = self.len.div_ceil(LIGHT_SEC);
        let mut desc = Vec::with_capacity(n);
        let mut blocks = Vec::new();
        for s in 0..n {
            let d = self.secs.get(s).copied().unwrap_or(SEC_UNIFORM | self.uniform as u32);
            if d & SEC_UNIFORM != 0 {
                desc.push((d & 15) as u8);
            } else {
                desc.push(16);
                let base = d as usize * (LIGHT_SEC / 2);
                blocks.extend_from_slice(&self.blocks[base..base + LIGHT_SEC / 2]);
            }
        }
        (desc, blocks)
    }
    /// Inverse of [`section_bytes`](Self::section_bytes) for `len` voxels, validated (never
    /// panics): one descriptor per section, each 0–16, 128 bytes per packed section. The result
    /// is compact.
    pub fn from_section_bytes(len: usize, desc: &[u8], blocks: &[u8]) -> Result<Self> {
        let n = len.div_ceil(LIGHT_SEC);
        if desc.len() != n {
            return Err(VoxelError::LengthMismatch { what: "light section descriptors", expected: n, got: desc.len() });
        }
        if let Some((s, &d)) = desc.iter().enumerate().find(|(_, &d)| d > 16) {
            return Err(VoxelError::Corrupt(format!(
                "light section {s}: descriptor {d} is not a level 0-15 or 16 (packed)"
            )));
        }
        let packed = desc.iter().filter(|&&d| d == 16).count();
        if blocks.len() != packed * (LIGHT_SEC / 2) {
            return Err(VoxelError::LengthMismatch {
                what: "light section bytes",
                expected: packed * (LIGHT_SEC / 2),
                got: blocks.len(),
            });
        }
        let mut s = LightStorage::uniform(len, 0);
        s.secs = desc
            .iter()
            .scan(0u32, |k, &d| {
                Some(if d == 16 {
                    *k += 1;
                    *k - 1
                } else {
                    SEC_UNIFORM | d as u32
                })
            })
            .collect();
        s.blocks = blocks.to_vec();
        s.compact();
        Ok(s)
    }
    /// Number of sections stored as one level (all of them when the store is uniform).
    pub fn uniform_sections(&self) -> usize {
        if self.secs.is_empty() {
            return self.len.div_ceil(LIGHT_SEC);
        }
        self.secs.iter().filter(|&&d| d & SEC_UNIFORM != 0).count()
    }
    /// Storage bits: 32 per section descriptor, 8 per block byte (and 8 for the uniform level).
    pub fn storage_bits(&self) -> usize {
        8 + 32 * self.secs.len() + 8 * self.blocks.len()
    }
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        4 * self.secs.capacity() + self.blocks.capacity()
    }
}

/// One chunk of the world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Where it is.
    pub coord: ChunkPos,
    /// How far generation took it.
    pub state: ChunkState,
    /// What changed.
    pub dirty: DirtyFlags,
    size: ChunkSize,
    blocks: PalettedBlocks,
    biomes: Vec<u8>,
    heightmap: Vec<i16>,
    light: LightStorage,
}

impl Chunk {
    /// An empty chunk (air, light 0, biomes and heights 0, state `Empty`, clean) at `coord`;
    /// [`VoxelError::ChunkOutOfRange`] if its blocks would not fit in `i32`.
    pub fn new(coord: ChunkPos, size: ChunkSize) -> Result<Chunk> {
        coord.check_range(size)?;
        Ok(Chunk {
            coord,
            state: ChunkState::Empty,
            dirty: DirtyFlags::default(),
            size,
            blocks: PalettedBlocks::new(size),
            biomes: vec![0; size.area()],
            heightmap: vec![0; size.area()],
            light: LightStorage::uniform(size.volume(), 0),
        })
    }

    /// Assembles a chunk from parts, checking every length and the coordinate range.
    pub fn from_parts(
        coord: ChunkPos,
        state: ChunkState,
        blocks: PalettedBlocks,
        biomes: Vec<u8>,
        heightmap: Vec<i16>,
        light: LightStorage,
    ) -> Result<Chunk> {
        let size = blocks.size();
        coord.check_range(size)?;
        let area = size.area();
        if biomes.len() != area {
            return Err(VoxelError::LengthMismatch { what: "biomes", expected: area, got: biomes.len() });
        }
        if heightmap.len() != area {
            return Err(VoxelError::LengthMismatch { what: "heightmap", expected: area, got: heightmap.len() });
        }
        if light.len() != size.volume() {
            return Err(VoxelError::LengthMismatch { what: "light", expected: size.volume(), got: light.len() });
        }
        Ok(Chunk { coord, state, dirty: DirtyFlags::default(), size, blocks, biomes, heightmap, light })
    }

    /// The chunk size.
    #[inline]
    pub fn size(&self) -> ChunkSize {
        self.size
    }
    /// The blocks (read).
    #[inline]
    pub fn blocks(&self) -> &PalettedBlocks {
        &self.blocks
    }
    /// Block at a local position.
    #[inline]
    pub fn get(&self, l: LocalPos) -> BlockId {
        self.blocks.get_local(l)
    }
    /// Block at voxel index `i` (panics if out of range, like slice indexing).
    #[inline]
    pub fn get_index(&self, i: usize) -> BlockId {
        self.blocks.get(i)
    }
    /// Sets a block (raw: dirty flags untouched).
    #[inline]
    pub fn set(&mut self, l: LocalPos, b: BlockId) {
        self.blocks.set_local(l, b)
    }
    /// Sets voxel index `i` (raw; panics if out of range).
    #[inline]
    pub fn set_index(&mut self, i: usize, b: BlockId) {
        self.blocks.set(i, b)
    }
    /// Fills every voxel with `b`.
    pub fn fill(&mut self, b: BlockId) {
        self.blocks.fill(b)
    }
    /// Replaces the blocks from a dense buffer (`x + s*(z + s*y)`; canonical storage).
    pub fn set_dense(&mut self, data: &[BlockId]) -> Result<()> {
        self.blocks = PalettedBlocks::from_dense(self.size, data)?;
        Ok(())
    }
    /// Replaces the blocks; the size must match.
    pub fn replace_blocks(&mut self, blocks: PalettedBlocks) -> Result<()> {
        if blocks.size() != self.size {
            return Err(VoxelError::ChunkSizeMismatch {
                chunk: self.coord,
                expected: self.size.edge(),
                got: blocks.size().edge(),
            });
        }
        self.blocks = blocks;
        Ok(())
    }
    /// Compacts blocks and light.
    pub fn compact(&mut self) {
        self.blocks.compact();
        self.light.compact();
    }
    /// Biome per column (`x + s*z`).
    #[inline]
    pub fn biomes(&self) -> &[u8] {
        &self.biomes
    }
    /// Biome per column, writable.
    #[inline]
    pub fn biomes_mut(&mut self) -> &mut [u8] {
        &mut self.biomes
    }
    /// Height per column (`x + s*z`).
    #[inline]
    pub fn heightmap(&self) -> &[i16] {
        &self.heightmap
    }
    /// Height per column, writable.
    #[inline]
    pub fn heightmap_mut(&mut self) -> &mut [i16] {
        &mut self.heightmap
    }
    /// Light levels (read).
    #[inline]
    pub fn light(&self) -> &LightStorage {
        &self.light
    }
    /// Light level at voxel index `i` (panics if out of range).
    #[inline]
    pub fn light_at(&self, i: usize) -> u8 {
        self.light.get(i)
    }
    /// Sets the light at voxel index `i` (clamped to 15; panics if out of range).
    #[inline]
    pub fn set_light(&mut self, i: usize, level: u8) {
        self.light.set(i, level)
    }
    /// Every voxel's light to `level`.
    pub fn fill_light(&mut self, level: u8) {
        self.light.fill(level)
    }
    /// Replaces the light from one byte per voxel.
    pub fn set_light_dense(&mut self, levels: &[u8]) -> Result<()> {
        if levels.len() != self.size.volume() {
            return Err(VoxelError::LengthMismatch { what: "light", expected: self.size.volume(), got: levels.len() });
        }
        self.light = LightStorage::from_dense(levels);
        Ok(())
    }
    /// This chunk with its dirty flags cleared (as decoded chunks are).
    pub fn clean(&mut self) -> &mut Self {
        self.dirty = DirtyFlags::default();
        self
    }
    /// Heap bytes held by blocks, light, biomes and heights.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.heap_bytes() + self.light.heap_bytes() + self.biomes.capacity() + 2 * self.heightmap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_follow_pyworldgen() {
        for (i, s) in ChunkState::ALL.iter().enumerate() {
            assert_eq!(s.as_u8() as usize, i);
            assert_eq!(ChunkState::from_u8(i as u8), Some(*s));
        }
        assert_eq!(ChunkState::from_u8(10), None);
        assert!(ChunkState::Saved > ChunkState::LightingReady);
        for b in 0..32u8 {
            assert_eq!(DirtyFlags::from_bits(b).to_bits(), b);
        }
    }

    #[test]
    fn light_storage() {
        for len in [512usize, 513] {
            let mut l = LightStorage::uniform(len, 15);
            assert_eq!(l.uniform_level(), Some(15));
            let mut dense = vec![15u8; len];
            for i in (0..len).step_by(7) {
                let v = (i % 16) as u8;
                l.set(i, v);
                dense[i] = v;
            }
            l.set(len - 1, 99);
            dense[len - 1] = 15;
            let mut out = vec![0u8; len];
            l.to_dense(&mut out).unwrap();
            assert_eq!(out, dense);
            assert_eq!(LightStorage::from_dense(&dense), l);
            for i in 0..len {
                l.set(i, 4);
            }
            l.compact();
            assert_eq!(l.uniform_level(), Some(4));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Light storage against a plain byte per voxel under random sets, fills and compactions.
        #[test]
        fn light_matches_dense(len in proptest::prop_oneof![proptest::prelude::Just(512usize), proptest::prelude::Just(700), 1usize..600],
                               ops in proptest::collection::vec((0usize..100_000, 0u8..20, 0u8..40), 0..300)) {
            let mut l = LightStorage::uniform(len, 3);
            let mut d = vec![3u8; len];
            for (i, v, kind) in ops {
                match kind {
                    0 => { l.fill(v); d.fill(v.min(15)); }
                    1 => l.compact(),
                    _ => { let i = i % len; l.set(i, v); d[i] = v.min(15); }
                }
                let i = i % len;
                proptest::prop_assert_eq!(l.get(i), d[i]);
            }
            let mut out = vec![0u8; len];
            l.to_dense(&mut out).unwrap();
            proptest::prop_assert_eq!(&out, &d);
            let nib = l.to_nibbles();
            for (i, &v) in d.iter().enumerate() {
                proptest::prop_assert_eq!((nib[i / 2] >> (4 * (i % 2))) & 15, v);
            }
            let c = LightStorage::from_dense(&d);
            proptest::prop_assert!(c == l);
            let (desc, blocks) = l.section_bytes();
            let r = LightStorage::from_section_bytes(len, &desc, &blocks).unwrap();
            proptest::prop_assert!(r == l);
            proptest::prop_assert_eq!(r.section_bytes(), c.section_bytes());
            let before = l.storage_bits();
            l.compact();
            proptest::prop_assert!(l.storage_bits() <= before);
            proptest::prop_assert!(c == l);
            proptest::prop_assert_eq!(l.uniform_level().is_some(), d.iter().all(|&v| v == d[0]));
        }
    }

    #[test]
    fn chunk_parts_checked() {
        let s = ChunkSize::S8;
        let c = Chunk::new(ChunkPos::new(1, -2, 3), s).unwrap();
        assert_eq!(c.biomes().len(), 64);
        assert!(Chunk::new(ChunkPos::new(i32::MAX, 0, 0), s).is_err());
        let e = Chunk::from_parts(
            c.coord,
            ChunkState::Empty,
            PalettedBlocks::new(s),
            vec![0; 63],
            vec![0; 64],
            LightStorage::uniform(512, 0),
        )
        .unwrap_err();
        assert!(e.to_string().contains("biomes"), "{e}");
        let mut c = c;
        assert!(c.replace_blocks(PalettedBlocks::new(ChunkSize::S16)).is_err());
    }
}
