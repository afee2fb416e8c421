//! Integer coordinates of a chunked voxel world: blocks, chunks, positions inside a chunk.
//!
//! Conventions (pyworldgen 0.1.8's `core/coords.py`):
//!
//! * **y is up.** x and z are horizontal.
//! * A [`BlockPos`] is an absolute block position in `i32`; block `(x, y, z)` is the unit cube
//!   `[x, x+1) × [y, y+1) × [z, z+1)`.
//! * The chunk holding a block is `floor_div(block, size)` on each axis and the position inside it
//!   is `positive_mod(block, size)`, so block `-1` lies in chunk `-1` at local `size - 1`. Because
//!   the edge is a power of two ([`ChunkSize`]), these are an arithmetic shift and a mask.
//! * Inside a chunk the linear voxel index is `x + s*(z + s*y)` (x fastest, then z, then y: one
//!   horizontal layer after another), and the column index is `x + s*z`.
//!
//! Ranges. Block coordinates span all of `i32`. Chunk coordinates of a chunk of edge `s = 2^k`
//! span `[i32::MIN >> k, i32::MAX >> k]`: exactly the chunks whose blocks all have `i32`
//! coordinates. Going from block to chunk never overflows; going from chunk to block
//! ([`ChunkPos::origin`], [`ChunkPos::block`]) is checked and refuses chunks out of that range
//! with [`VoxelError::ChunkOutOfRange`]. Offsetting a block ([`BlockPos::checked_offset`]) is
//! checked too.
//!
//! Ordering. All three position types order by `(x, y, z)` lexicographically (derived `Ord`);
//! this is the order of every sorted iteration in the crate.
//!
//! ```
//! use bozkir_voxel::coords::{BlockPos, ChunkSize};
//! let s = ChunkSize::new(16).unwrap();
//! let (chunk, local) = BlockPos::new(-1, 17, 32).split(s);
//! assert_eq!((chunk.x, chunk.y, chunk.z), (-1, 1, 2));
//! assert_eq!((local.x, local.y, local.z), (15, 1, 0));
//! assert_eq!(chunk.block(local, s).unwrap(), BlockPos::new(-1, 17, 32));
//! ```

use crate::error::{Result, VoxelError};
use std::fmt;

/// `floor(a / b)` for `b > 0` (pyworldgen's `floor_div`); an error names a non-positive `b`.
pub fn floor_div(a: i32, b: i32) -> Result<i32> {
    if b <= 0 {
        return Err(VoxelError::NonPositiveDivisor(b));
    }
    Ok(a.div_euclid(b))
}

/// `a mod b` in `[0, b)` for `b > 0` (pyworldgen's `positive_mod`); an error names a
/// non-positive `b`.
pub fn positive_mod(a: i32, b: i32) -> Result<i32> {
    if b <= 0 {
        return Err(VoxelError::NonPositiveDivisor(b));
    }
    Ok(a.rem_euclid(b))
}

/// The edge of a cubic chunk in blocks: 8, 16, 32 or 64 (a power of two, so that block → chunk
/// is a shift and block → local a mask). The default is 32 (pyworldgen's default is 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkSize {
    shift: u8,
}

impl ChunkSize {
    /// Edge 8.
    pub const S8: ChunkSize = ChunkSize { shift: 3 };
    /// Edge 16 (pyworldgen's default).
    pub const S16: ChunkSize = ChunkSize { shift: 4 };
    /// Edge 32 (ours by default).
    pub const S32: ChunkSize = ChunkSize { shift: 5 };
    /// Edge 64.
    pub const S64: ChunkSize = ChunkSize { shift: 6 };
    /// The allowed edges.
    pub const ALLOWED: [u32; 4] = [8, 16, 32, 64];

    /// The size of edge `edge`; [`VoxelError::BadChunkSize`] unless it is 8, 16, 32 or 64.
    pub fn new(edge: u32) -> Result<ChunkSize> {
        match edge {
            8 => Ok(Self::S8),
            16 => Ok(Self::S16),
            32 => Ok(Self::S32),
            64 => Ok(Self::S64),
            _ => Err(VoxelError::BadChunkSize(edge)),
        }
    }
    /// Edge length in blocks.
    #[inline]
    pub const fn edge(self) -> u32 {
        1 << self.shift
    }
    /// `log2(edge)`.
    #[inline]
    pub const fn shift(self) -> u32 {
        self.shift as u32
    }
    /// `edge - 1`: the mask taking a block coordinate to its local coordinate.
    #[inline]
    pub const fn mask(self) -> i32 {
        (1 << self.shift) - 1
    }
    /// Voxels in a chunk, `edge³`.
    #[inline]
    pub const fn volume(self) -> usize {
        1 << (3 * self.shift)
    }
    /// Columns in a chunk (voxels in one horizontal layer), `edge²`.
    #[inline]
    pub const fn area(self) -> usize {
        1 << (2 * self.shift)
    }
    /// Least chunk coordinate whose blocks fit in `i32`: `i32::MIN >> shift`.
    #[inline]
    pub const fn min_chunk(self) -> i32 {
        i32::MIN >> self.shift
    }
    /// Greatest chunk coordinate whose blocks fit in `i32`: `i32::MAX >> shift`.
    #[inline]
    pub const fn max_chunk(self) -> i32 {
        i32::MAX >> self.shift
    }
}

impl Default for ChunkSize {
    fn default() -> Self {
        Self::S32
    }
}

impl fmt::Display for ChunkSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.edge())
    }
}

/// An absolute block position (`i32` on each axis, y up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct BlockPos {
    /// East–west.
    pub x: i32,
    /// Up.
    pub y: i32,
    /// North–south.
    pub z: i32,
}

/// The position of a chunk in chunk units (block position divided by the edge, floored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ChunkPos {
    /// East–west.
    pub x: i32,
    /// Up.
    pub y: i32,
    /// North–south.
    pub z: i32,
}

/// A position inside a chunk, each axis in `[0, edge)` (at most 63, hence `u8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LocalPos {
    /// East–west.
    pub x: u8,
    /// Up.
    pub y: u8,
    /// North–south.
    pub z: u8,
}

impl fmt::Display for BlockPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}
impl fmt::Display for ChunkPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "chunk ({}, {}, {})", self.x, self.y, self.z)
    }
}
impl fmt::Display for LocalPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "local ({}, {}, {})", self.x, self.y, self.z)
    }
}

impl BlockPos {
    /// The block at `(x, y, z)`.
    #[inline]
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        BlockPos { x, y, z }
    }
    /// The chunk holding this block (floor division by the edge; never overflows).
    #[inline]
    pub const fn chunk(self, size: ChunkSize) -> ChunkPos {
        let s = size.shift;
        ChunkPos { x: self.x >> s, y: self.y >> s, z: self.z >> s }
    }
    /// The position inside its chunk (positive modulo the edge).
    #[inline]
    pub const fn local(self, size: ChunkSize) -> LocalPos {
        let m = size.mask();
        LocalPos { x: (self.x & m) as u8, y: (self.y & m) as u8, z: (self.z & m) as u8 }
    }
    /// Chunk and local position at once.
    #[inline]
    pub const fn split(self, size: ChunkSize) -> (ChunkPos, LocalPos) {
        (self.chunk(size), self.local(size))
    }
    /// This block moved by `(dx, dy, dz)`, or `None` when a coordinate would leave `i32`.
    #[inline]
    pub const fn checked_offset(self, dx: i32, dy: i32, dz: i32) -> Option<BlockPos> {
        match (self.x.checked_add(dx), self.y.checked_add(dy), self.z.checked_add(dz)) {
            (Some(x), Some(y), Some(z)) => Some(BlockPos { x, y, z }),
            _ => None,
        }
    }
    /// [`checked_offset`](Self::checked_offset) with an error naming the overflow.
    pub fn offset(self, dx: i32, dy: i32, dz: i32) -> Result<BlockPos> {
        self.checked_offset(dx, dy, dz)
            .ok_or_else(|| VoxelError::BlockOverflow(format!("{self} + ({dx}, {dy}, {dz}) leaves i32")))
    }
}

impl ChunkPos {
    /// The chunk at `(x, y, z)` (chunk units).
    #[inline]
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        ChunkPos { x, y, z }
    }
    /// Whether every block of this chunk has `i32` coordinates at chunk size `size`.
    #[inline]
    pub const fn in_range(self, size: ChunkSize) -> bool {
        let (lo, hi) = (size.min_chunk(), size.max_chunk());
        self.x >= lo && self.x <= hi && self.y >= lo && self.y <= hi && self.z >= lo && self.z <= hi
    }
    /// [`VoxelError::ChunkOutOfRange`] unless [`in_range`](Self::in_range).
    pub fn check_range(self, size: ChunkSize) -> Result<()> {
        if self.in_range(size) {
            Ok(())
        } else {
            Err(VoxelError::ChunkOutOfRange {
                chunk: self,
                size: size.edge(),
                min: size.min_chunk(),
                max: size.max_chunk(),
            })
        }
    }
    /// The chunk's least-corner block, `chunk * edge`; an error if out of range.
    pub fn origin(self, size: ChunkSize) -> Result<BlockPos> {
        self.check_range(size)?;
        Ok(self.origin_unchecked(size))
    }
    /// `chunk * edge` without the range check (wraps out of range; for callers that checked).
    #[inline]
    pub const fn origin_unchecked(self, size: ChunkSize) -> BlockPos {
        let s = size.shift;
        BlockPos {
            x: self.x.wrapping_shl(s as u32),
            y: self.y.wrapping_shl(s as u32),
            z: self.z.wrapping_shl(s as u32),
        }
    }
    /// The absolute block at `local` in this chunk (pyworldgen's `local_to_world`); an error if
    /// the chunk is out of range. `local` is assumed in range for `size` (it is masked).
    pub fn block(self, local: LocalPos, size: ChunkSize) -> Result<BlockPos> {
        let o = self.origin(size)?;
        let m = size.mask();
        Ok(BlockPos { x: o.x | (local.x as i32 & m), y: o.y | (local.y as i32 & m), z: o.z | (local.z as i32 & m) })
    }
    /// This chunk moved by `(dx, dy, dz)` chunks, or `None` when it leaves the range of `size`.
    pub fn checked_offset(self, dx: i32, dy: i32, dz: i32, size: ChunkSize) -> Option<ChunkPos> {
        let c = ChunkPos { x: self.x.checked_add(dx)?, y: self.y.checked_add(dy)?, z: self.z.checked_add(dz)? };
        c.in_range(size).then_some(c)
    }
}

impl LocalPos {
    /// The local position `(x, y, z)`; [`VoxelError::LocalOutOfRange`] unless each is in
    /// `[0, edge)`.
    pub fn new(x: u32, y: u32, z: u32, size: ChunkSize) -> Result<LocalPos> {
        let e = size.edge();
        if x >= e || y >= e || z >= e {
            return Err(VoxelError::LocalOutOfRange { x, y, z, size: e });
        }
        Ok(LocalPos { x: x as u8, y: y as u8, z: z as u8 })
    }
    /// Linear voxel index `x + s*(z + s*y)`. Each coordinate is masked to `[0, edge)` first, so
    /// the index is always below the chunk volume (fields set by hand past the edge wrap).
    #[inline]
    pub const fn index(self, size: ChunkSize) -> usize {
        let s = size.shift;
        let m = (1usize << s) - 1;
        (self.x as usize & m) | ((self.z as usize & m) << s) | ((self.y as usize & m) << (2 * s))
    }
    /// Inverse of [`index`](Self::index) (the index is masked to the chunk volume).
    #[inline]
    pub const fn from_index(index: usize, size: ChunkSize) -> LocalPos {
        let s = size.shift;
        let m = (1usize << s) - 1;
        LocalPos { x: (index & m) as u8, z: ((index >> s) & m) as u8, y: ((index >> (2 * s)) & m) as u8 }
    }
    /// Column index `x + s*z` (into biomes and heightmaps), coordinates masked like
    /// [`index`](Self::index).
    #[inline]
    pub const fn column(self, size: ChunkSize) -> usize {
        let m = (1usize << size.shift) - 1;
        (self.x as usize & m) | ((self.z as usize & m) << size.shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes() {
        for e in ChunkSize::ALLOWED {
            let s = ChunkSize::new(e).unwrap();
            assert_eq!(s.edge(), e);
            assert_eq!(s.volume(), (e * e * e) as usize);
            assert_eq!(s.area(), (e * e) as usize);
        }
        for bad in [0, 1, 4, 12, 128, u32::MAX] {
            let err = ChunkSize::new(bad).unwrap_err();
            assert!(err.to_string().contains(&bad.to_string()));
        }
        assert_eq!(ChunkSize::default().edge(), 32);
    }

    #[test]
    fn negatives() {
        let s = ChunkSize::S16;
        let (c, l) = BlockPos::new(-1, -16, -17).split(s);
        assert_eq!(c, ChunkPos::new(-1, -1, -2));
        assert_eq!(l, LocalPos { x: 15, y: 0, z: 15 });
        assert_eq!(floor_div(-1, 16).unwrap(), -1);
        assert_eq!(positive_mod(-1, 16).unwrap(), 15);
        assert_eq!(floor_div(-17, 16).unwrap(), -2);
        assert!(floor_div(3, 0).is_err());
        assert!(positive_mod(3, -2).is_err());
    }

    #[test]
    fn extremes() {
        for s in [ChunkSize::S8, ChunkSize::S64] {
            let b = BlockPos::new(i32::MIN, i32::MAX, 0);
            let (c, l) = b.split(s);
            assert_eq!(c.block(l, s).unwrap(), b);
            assert!(c.in_range(s));
            let out = ChunkPos::new(s.max_chunk() + 1, 0, 0);
            let err = out.origin(s).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{err}");
            assert!(ChunkPos::new(s.min_chunk(), 0, 0).checked_offset(-1, 0, 0, s).is_none());
        }
        assert!(BlockPos::new(i32::MAX, 0, 0).checked_offset(1, 0, 0).is_none());
        assert!(BlockPos::new(0, 0, 0).offset(0, i32::MIN, 0).is_ok());
        assert!(BlockPos::new(0, -1, 0).offset(0, i32::MIN, 0).is_err());
    }

    #[test]
    fn index_layout() {
        let s = ChunkSize::S8;
        let l = LocalPos::new(1, 2, 3, s).unwrap();
        assert_eq!(l.index(s), 1 + 8 * (3 + 8 * 2));
        assert_eq!(l.column(s), 1 + 8 * 3);
        assert!(LocalPos::new(8, 0, 0, s).is_err());
        for i in 0..s.volume() {
            assert_eq!(LocalPos::from_index(i, s).index(s), i);
        }
    }

    proptest! {
        #[test]
        fn split_matches_floor_div(x in any::<i32>(), y in any::<i32>(), z in any::<i32>(), k in 0usize..4) {
            let s = ChunkSize::new(ChunkSize::ALLOWED[k]).unwrap();
            let e = s.edge() as i32;
            let b = BlockPos::new(x, y, z);
            let (c, l) = b.split(s);
            prop_assert_eq!(c, ChunkPos::new(floor_div(x, e).unwrap(), floor_div(y, e).unwrap(), floor_div(z, e).unwrap()));
            prop_assert_eq!(l.x as i32, positive_mod(x, e).unwrap());
            prop_assert_eq!(l.y as i32, positive_mod(y, e).unwrap());
            prop_assert_eq!(l.z as i32, positive_mod(z, e).unwrap());
            // floor_div against exact i64 arithmetic
            prop_assert_eq!(c.x as i64, (x as i64).div_euclid(e as i64));
            prop_assert_eq!(c.block(l, s).unwrap(), b);
        }
    }
}
