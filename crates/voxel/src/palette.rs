//! Palette-compressed block storage for one chunk, with uniform horizontal layers.
//!
//! Algorithm. The chunk's distinct block ids form a **palette**; each voxel stores its palette
//! index in `bits` bits, packed little-end-first into `u64` words. `bits` is the least of
//! 0, 1, 2, 4, 8, 16 that addresses the palette (a power of two, so no entry straddles a word and
//! a voxel is found by shifts and masks alone). On top of the palette, the chunk is cut into its
//! `edge` horizontal **layers** (one y each, `edge²` voxels): a layer whose voxels all hold one
//! palette entry is stored as that index alone and owns no words; only mixed layers own packed
//! words. Terrain is stratified (stone below, air above), so most layers of a chunk that holds
//! both are uniform, and the packed words cover only the layers the surface crosses. This is the
//! palette scheme of Minecraft's chunk sections (Mojang, 1.13+) with per-layer uniform sections
//! added for the ≤ 1 bit/voxel target of issue 22.
//!
//! Growth and compaction. [`set`](PalettedBlocks::set) appends unseen ids to the palette and
//! widens `bits` when the palette outgrows it (repacking the mixed layers); a uniform layer that
//! receives a different id is expanded into packed words. Nothing shrinks on `set`:
//! [`compact`](PalettedBlocks::compact) drops palette entries no voxel uses, re-detects uniform
//! layers and narrows `bits`. After `compact` (and after [`from_dense`](PalettedBlocks::from_dense))
//! the representation is **canonical**: the palette is in order of first appearance in the
//! voxel index order, mixed layers are packed in y order; equal contents give equal
//! representations (and equal bytes in `codec`).
//!
//! Layout. Voxel index `i = x + s*(z + s*y)` (see [`coords`](crate::coords)); layer `y = i >> 2k`
//! (`s = 2^k`), index within the layer `j = i & (s² - 1)`, word `j >> (6 - log2 bits)`, bit
//! offset `(j mod (64 / bits)) * bits`.
//!
//! Size accounting ([`storage_bits`](PalettedBlocks::storage_bits)): 16 bits per palette entry,
//! 32 bits per layer descriptor, 64 bits per packed word, and 32 bits per entry of the reverse
//! lookup that palettes over 16 entries keep; the struct itself (about 100 bytes, fixed) is
//! not counted. Caps: at most 65,536 palette entries (all `u16` ids), at most `edge³` voxels
//! (262,144 at edge 64); no allocation exceeds `edge³ * 2` bytes.

use crate::block::BlockId;
use crate::coords::{ChunkSize, LocalPos};
use crate::error::{Result, VoxelError};

const UNIFORM: u32 = 1 << 31;
/// Palettes longer than this keep a sorted reverse lookup (binary search instead of a scan).
const LINEAR_MAX: usize = 16;

/// The palette (index → id) with a sorted reverse lookup once it is long.
#[derive(Debug, Clone, Default)]
struct Pal {
    ids: Vec<BlockId>,
    /// Sorted by id; empty while `ids.len() <= LINEAR_MAX`.
    rev: Vec<(BlockId, u16)>,
}

impl Pal {
    #[inline]
    fn find(&self, b: BlockId) -> Option<u16> {
        if self.rev.is_empty() {
            self.ids.iter().position(|&x| x == b).map(|p| p as u16)
        } else {
            self.rev.binary_search_by_key(&b, |e| e.0).ok().map(|k| self.rev[k].1)
        }
    }
    /// Appends `b` (not present) and returns its index.
    fn push(&mut self, b: BlockId) -> u16 {
        let p = self.ids.len() as u16;
        self.ids.push(b);
        if self.ids.len() > LINEAR_MAX {
            if self.rev.is_empty() {
                self.rev = self.ids.iter().enumerate().map(|(i, &x)| (x, i as u16)).collect();
                self.rev.sort_unstable();
            } else {
                let k = self.rev.partition_point(|e| e.0 < b);
                self.rev.insert(k, (b, p));
            }
        }
        p
    }
    fn clear_to(&mut self, b: BlockId) {
        self.ids.clear();
        self.ids.push(b);
        self.rev = Vec::new();
    }
}

/// Least packed width (0, 1, 2, 4, 8 or 16) addressing `n` palette entries.
#[inline]
fn bits_for(n: usize) -> u8 {
    match n {
        0..=1 => 0,
        2 => 1,
        3..=4 => 2,
        5..=16 => 4,
        17..=256 => 8,
        _ => 16,
    }
}

/// `v` repeated in every `bits`-wide slot of a word.
#[inline]
fn pattern(v: u64, bits: u8) -> u64 {
    if bits == 0 {
        0
    } else {
        v.wrapping_mul(u64::MAX / ((1u64 << bits) - 1))
    }
}

/// Palette-compressed blocks of one chunk (see the module doc).
#[derive(Debug, Clone)]
pub struct PalettedBlocks {
    size: ChunkSize,
    bits: u8,
    log_bits: u8,
    pal: Pal,
    /// Per y layer: `UNIFORM | palette index`, or the offset of its packed words.
    layers: Vec<u32>,
    words: Vec<u64>,
}

impl PartialEq for PalettedBlocks {
    /// Equal contents (not representation): same size and the same id in every voxel.
    fn eq(&self, other: &Self) -> bool {
        if self.size != other.size {
            return false;
        }
        let area = self.size.area();
        let mut a = vec![BlockId::AIR; area];
        let mut b = vec![BlockId::AIR; area];
        (0..self.size.edge() as usize).all(|y| {
            self.layer_to_dense(y, &mut a);
            other.layer_to_dense(y, &mut b);
            a == b
        })
    }
}
impl Eq for PalettedBlocks {}

impl PalettedBlocks {
    /// A chunk of air.
    pub fn new(size: ChunkSize) -> Self {
        Self::uniform(size, BlockId::AIR)
    }

    /// A chunk filled with `b` (0 bits per voxel).
    pub fn uniform(size: ChunkSize, b: BlockId) -> Self {
        PalettedBlocks {
            size,
            bits: 0,
            log_bits: 0,
            pal: Pal { ids: vec![b], rev: Vec::new() },
            layers: vec![UNIFORM; size.edge() as usize],
            words: Vec::new(),
        }
    }

    /// The chunk size.
    #[inline]
    pub fn size(&self) -> ChunkSize {
        self.size
    }

    /// Number of voxels (`edge³`).
    #[inline]
    pub fn len(&self) -> usize {
        self.size.volume()
    }

    /// Always false (a chunk has at least 512 voxels); for clippy's `len` convention.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The palette, index → id (may hold unused entries until [`compact`](Self::compact)).
    #[inline]
    pub fn palette(&self) -> &[BlockId] {
        &self.pal.ids
    }

    /// Packed index width: 0, 1, 2, 4, 8 or 16.
    #[inline]
    pub fn bits(&self) -> u32 {
        self.bits as u32
    }

    #[inline]
    fn layer_words(&self) -> usize {
        if self.bits == 0 {
            0
        } else {
            1 << (2 * self.size.shift() + self.log_bits as u32 - 6)
        }
    }

    #[inline]
    fn read(&self, off: usize, j: usize) -> u16 {
        let lb = self.log_bits as usize;
        let es = 6 - lb;
        let w = self.words[off + (j >> es)];
        ((w >> ((j & ((1 << es) - 1)) << lb)) & ((1u64 << self.bits) - 1)) as u16
    }

    #[inline]
    fn write(&mut self, off: usize, j: usize, v: u16) {
        let lb = self.log_bits as usize;
        let es = 6 - lb;
        let sh = (j & ((1 << es) - 1)) << lb;
        let mask = ((1u64 << self.bits) - 1) << sh;
        let w = &mut self.words[off + (j >> es)];
        *w = (*w & !mask) | ((v as u64) << sh);
    }

    /// The id at voxel index `i` (`x + s*(z + s*y)`). Panics if `i >= len()`, like slice
    /// indexing; [`get_local`](Self::get_local) never panics.
    #[inline]
    pub fn get(&self, i: usize) -> BlockId {
        let layer = i >> (2 * self.size.shift());
        let d = self.layers[layer];
        let p = if d & UNIFORM != 0 { (d & 0xffff) as u16 } else { self.read(d as usize, i & (self.size.area() - 1)) };
        self.pal.ids[p as usize]
    }

    /// The id at a local position.
    #[inline]
    pub fn get_local(&self, l: LocalPos) -> BlockId {
        self.get(l.index(self.size))
    }

    /// Sets voxel index `i` to `b`, growing the palette and the width as needed. Panics if
    /// `i >= len()`; [`set_local`](Self::set_local) never panics.
    pub fn set(&mut self, i: usize, b: BlockId) {
        let layer = i >> (2 * self.size.shift());
        assert!(layer < self.layers.len(), "voxel index {i} out of range for a chunk of {} voxels", self.len());
        let p = match self.pal.find(b) {
            Some(p) => p,
            None => {
                let p = self.pal.push(b);
                let need = bits_for(self.pal.ids.len());
                if need > self.bits {
                    self.widen(need);
                }
                p
            }
        };
        let d = self.layers[layer];
        if d & UNIFORM != 0 {
            let u = (d & 0xffff) as u16;
            if u == p {
                return;
            }
            let off = self.words.len();
            let pat = pattern(u as u64, self.bits);
            self.words.resize(off + self.layer_words(), pat);
            self.layers[layer] = off as u32;
        }
        let off = self.layers[layer] as usize;
        self.write(off, i & (self.size.area() - 1), p);
    }

    /// Sets a local position.
    #[inline]
    pub fn set_local(&mut self, l: LocalPos, b: BlockId) {
        self.set(l.index(self.size), b)
    }

    /// Fills the chunk with `b` (back to 0 bits, palette `[b]`).
    pub fn fill(&mut self, b: BlockId) {
        self.pal.clear_to(b);
        self.bits = 0;
        self.log_bits = 0;
        self.layers.iter_mut().for_each(|d| *d = UNIFORM);
        self.words = Vec::new();
    }

    /// Repacks every mixed layer at width `bits` (> current), in y order.
    fn widen(&mut self, bits: u8) {
        let old = std::mem::replace(self, PalettedBlocks::new(self.size));
        let mut next = PalettedBlocks {
            size: old.size,
            bits,
            log_bits: bits.trailing_zeros() as u8,
            pal: Pal::default(),
            layers: old.layers.clone(),
            words: Vec::new(),
        };
        let area = old.size.area();
        let mut buf = vec![0u16; area];
        for y in 0..old.layers.len() {
            if old.layers[y] & UNIFORM == 0 {
                old.layer_indices(y, &mut buf);
                next.layers[y] = next.words.len() as u32;
                next.pack_layer(&buf);
            }
        }
        next.pal = old.pal;
        *self = next;
    }

    /// Appends `idx` (one layer of palette indices) packed at the current width.
    fn pack_layer(&mut self, idx: &[u16]) {
        let lb = self.log_bits as u32;
        let per = 64 >> lb;
        self.words.extend(
            idx.chunks_exact(per)
                .map(|c| c.iter().enumerate().fold(0u64, |w, (e, &v)| w | ((v as u64) << ((e as u32) << lb)))),
        );
    }

    /// Palette indices of layer `y` into `out` (`edge²` long).
    fn layer_indices(&self, y: usize, out: &mut [u16]) {
        let d = self.layers[y];
        if d & UNIFORM != 0 {
            out.fill((d & 0xffff) as u16);
            return;
        }
        let off = d as usize;
        let lb = self.log_bits as u32;
        let per = 64 >> lb;
        let mask = (1u64 << self.bits) - 1;
        let n = self.layer_words();
        for (k, c) in out.chunks_exact_mut(per).enumerate().take(n) {
            let mut w = self.words[off + k];
            for v in c.iter_mut() {
                *v = (w & mask) as u16;
                w >>= 1 << lb;
            }
        }
    }

    /// Ids of layer `y` into `out` (`edge²` long).
    fn layer_to_dense(&self, y: usize, out: &mut [BlockId]) {
        let d = self.layers[y];
        if d & UNIFORM != 0 {
            out.fill(self.pal.ids[(d & 0xffff) as usize]);
            return;
        }
        let off = d as usize;
        let lb = self.log_bits as u32;
        let per = 64 >> lb;
        let mask = (1u64 << self.bits) - 1;
        let pal = &self.pal.ids;
        for (k, c) in out.chunks_exact_mut(per).enumerate() {
            let mut w = self.words[off + k];
            for v in c.iter_mut() {
                *v = pal[(w & mask) as usize];
                w >>= 1 << lb;
            }
        }
    }

    /// Ids of layer `y` (voxel indices `y*s² .. (y+1)*s²`, order `x + s*z`) into `out`
    /// (`edge²` long); errors name a wrong length or layer.
    pub fn read_layer(&self, y: usize, out: &mut [BlockId]) -> Result<()> {
        if y >= self.layers.len() {
            return Err(VoxelError::Param { name: "layer", value: y.to_string(), allowed: "below the chunk edge" });
        }
        if out.len() != self.size.area() {
            return Err(VoxelError::LengthMismatch {
                what: "layer buffer",
                expected: self.size.area(),
                got: out.len(),
            });
        }
        self.layer_to_dense(y, out);
        Ok(())
    }

    /// If every voxel of layer `y` holds one id, that id (cheap: reads the descriptor only, so
    /// a mixed layer that happens to be uniform answers `None` until [`compact`](Self::compact)).
    pub fn layer_uniform(&self, y: usize) -> Option<BlockId> {
        let d = *self.layers.get(y)?;
        (d & UNIFORM != 0).then(|| self.pal.ids[(d & 0xffff) as usize])
    }

    /// If the whole chunk is stored as one id, that id.
    pub fn uniform_id(&self) -> Option<BlockId> {
        let first = self.layers[0];
        (first & UNIFORM != 0 && self.layers.iter().all(|&d| d == first))
            .then(|| self.pal.ids[(first & 0xffff) as usize])
    }

    /// Writes every voxel's id into `out` (length `edge³`, index `x + s*(z + s*y)`).
    pub fn to_dense(&self, out: &mut [BlockId]) -> Result<()> {
        if out.len() != self.len() {
            return Err(VoxelError::LengthMismatch {
                what: "dense block buffer",
                expected: self.len(),
                got: out.len(),
            });
        }
        for (y, layer) in out.chunks_exact_mut(self.size.area()).enumerate() {
            self.layer_to_dense(y, layer);
        }
        Ok(())
    }

    /// Every voxel's id as a new vector.
    pub fn to_dense_vec(&self) -> Vec<BlockId> {
        let mut v = vec![BlockId::AIR; self.len()];
        self.to_dense(&mut v).expect("length matches");
        v
    }

    /// Canonical storage of `data` (length `edge³`, index `x + s*(z + s*y)`).
    pub fn from_dense(size: ChunkSize, data: &[BlockId]) -> Result<Self> {
        if data.len() != size.volume() {
            return Err(VoxelError::LengthMismatch {
                what: "dense block buffer",
                expected: size.volume(),
                got: data.len(),
            });
        }
        let mut pal = Pal::default();
        let mut idx = vec![0u16; data.len()];
        let (mut last_id, mut last_p) = (None, 0u16);
        for (o, &b) in idx.iter_mut().zip(data) {
            if last_id != Some(b) {
                last_p = match pal.find(b) {
                    Some(p) => p,
                    None => pal.push(b),
                };
                last_id = Some(b);
            }
            *o = last_p;
        }
        Ok(Self::from_indices(size, pal, &idx))
    }

    /// Builds the canonical layers from palette indices (all < palette length).
    fn from_indices(size: ChunkSize, pal: Pal, idx: &[u16]) -> Self {
        let bits = bits_for(pal.ids.len());
        let mut s = PalettedBlocks {
            size,
            bits,
            log_bits: if bits == 0 { 0 } else { bits.trailing_zeros() as u8 },
            pal,
            layers: vec![UNIFORM; size.edge() as usize],
            words: Vec::new(),
        };
        for (y, layer) in idx.chunks_exact(size.area()).enumerate() {
            let first = layer[0];
            if layer.iter().all(|&v| v == first) {
                s.layers[y] = UNIFORM | first as u32;
            } else {
                s.layers[y] = s.words.len() as u32;
                s.pack_layer(layer);
            }
        }
        s
    }

    /// Drops unused palette entries, re-detects uniform layers, narrows the width: the
    /// canonical representation of the same contents (see the module doc).
    pub fn compact(&mut self) {
        let area = self.size.area();
        let n = self.pal.ids.len();
        let mut remap = vec![u16::MAX; n];
        let mut pal = Pal::default();
        let mut idx = vec![0u16; self.len()];
        for (y, layer) in idx.chunks_exact_mut(area).enumerate() {
            self.layer_indices(y, layer);
            for v in layer.iter_mut() {
                let r = &mut remap[*v as usize];
                if *r == u16::MAX {
                    *r = pal.push(self.pal.ids[*v as usize]);
                }
                *v = *r;
            }
        }
        *self = Self::from_indices(self.size, pal, &idx);
    }

    /// Number of layers stored as one id.
    pub fn uniform_layers(&self) -> usize {
        self.layers.iter().filter(|&&d| d & UNIFORM != 0).count()
    }

    /// Storage bits: 16 per palette entry, 32 per layer descriptor, 64 per packed word, 32 per
    /// reverse-lookup entry (see the module doc).
    pub fn storage_bits(&self) -> usize {
        16 * self.pal.ids.len() + 32 * self.layers.len() + 64 * self.words.len() + 32 * self.pal.rev.len()
    }

    /// [`storage_bits`](Self::storage_bits) per voxel.
    pub fn bits_per_voxel(&self) -> f64 {
        self.storage_bits() as f64 / self.len() as f64
    }

    /// Heap bytes held (capacities, not lengths).
    pub fn heap_bytes(&self) -> usize {
        2 * self.pal.ids.capacity()
            + 4 * self.pal.rev.capacity()
            + 4 * self.layers.capacity()
            + 8 * self.words.capacity()
    }

    /// Raw parts for the byte format: width, palette, layer descriptors (`u32`, bit 31 set for a
    /// uniform layer whose low 16 bits are the palette index; otherwise the word offset), words.
    pub fn raw_parts(&self) -> (u8, &[BlockId], &[u32], &[u64]) {
        (self.bits, &self.pal.ids, &self.layers, &self.words)
    }

    /// Rebuilds from raw parts, validating everything (never panics): the width must be the
    /// least for the palette or wider, layer descriptors must point at whole layers inside
    /// `words`, each packed layer must own its words alone, every index must address the palette.
    pub fn from_raw_parts(
        size: ChunkSize,
        bits: u8,
        palette: Vec<BlockId>,
        layers: Vec<u32>,
        words: Vec<u64>,
    ) -> Result<Self> {
        let corrupt = |m: String| Err(VoxelError::Corrupt(m));
        if !matches!(bits, 0 | 1 | 2 | 4 | 8 | 16) {
            return corrupt(format!("index width {bits} is not one of 0, 1, 2, 4, 8, 16"));
        }
        if palette.is_empty() || palette.len() > 65536 || palette.len() > size.volume() {
            return corrupt(format!("palette of {} entries (allowed 1..={})", palette.len(), size.volume().min(65536)));
        }
        if bits < bits_for(palette.len()) {
            return corrupt(format!("index width {bits} cannot address a palette of {}", palette.len()));
        }
        let mut seen = palette.clone();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return corrupt("palette holds a block id twice".into());
        }
        if layers.len() != size.edge() as usize {
            return corrupt(format!("{} layer descriptors for a chunk of edge {}", layers.len(), size.edge()));
        }
        let mut pal = Pal::default();
        for &b in &palette {
            pal.push(b);
        }
        let s = PalettedBlocks {
            size,
            bits,
            log_bits: if bits == 0 { 0 } else { bits.trailing_zeros() as u8 },
            pal,
            layers,
            words,
        };
        let lw = s.layer_words();
        let mut packed = 0usize;
        let mut owner = vec![false; s.words.len().checked_div(lw).unwrap_or(0)];
        for y in 0..s.layers.len() {
            let d = s.layers[y];
            if d & UNIFORM != 0 {
                if d & !UNIFORM > 0xffff || (d & 0xffff) as usize >= palette.len() {
                    return corrupt(format!(
                        "layer {y}: uniform palette index {} out of range (palette of {})",
                        d & !UNIFORM,
                        palette.len()
                    ));
                }
                continue;
            }
            let off = d as usize;
            if lw == 0 || !off.is_multiple_of(lw) || off + lw > s.words.len() || owner[off / lw] {
                return corrupt(format!(
                    "layer {y}: packed word offset {off} is not a free whole layer of {lw} words in {}",
                    s.words.len()
                ));
            }
            owner[off / lw] = true;
            packed += 1;
        }
        if packed * lw != s.words.len() {
            return corrupt(format!("{} packed words but {packed} packed layers of {lw}", s.words.len()));
        }
        if bits > 0 && palette.len() < (1usize << bits) {
            // Indices past the palette are possible: check them all.
            let n = palette.len() as u16;
            let mut buf = vec![0u16; size.area()];
            for y in 0..s.layers.len() {
                if s.layers[y] & UNIFORM == 0 {
                    s.layer_indices(y, &mut buf);
                    if let Some(j) = buf.iter().position(|&v| v >= n) {
                        return corrupt(format!("layer {y}: voxel {j} has palette index {} (palette of {n})", buf[j]));
                    }
                }
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn uniform_is_zero_bits() {
        for e in ChunkSize::ALLOWED {
            let s = ChunkSize::new(e).unwrap();
            let p = PalettedBlocks::uniform(s, BlockId(7));
            assert_eq!(p.bits(), 0);
            assert_eq!(p.uniform_id(), Some(BlockId(7)));
            assert_eq!(p.storage_bits(), 16 + 32 * e as usize);
            assert_eq!(p.get(s.volume() - 1), BlockId(7));
        }
    }

    #[test]
    fn grows_and_compacts() {
        let s = ChunkSize::S16;
        let mut p = PalettedBlocks::new(s);
        let mut dense = vec![BlockId::AIR; s.volume()];
        for k in 0..300usize {
            let i = (k * 7919) % s.volume();
            let b = BlockId((k % 40) as u16 + 1);
            p.set(i, b);
            dense[i] = b;
        }
        assert_eq!(p.bits(), 8);
        assert_eq!(p.to_dense_vec(), dense);
        // overwrite everything but air and two ids
        for (i, d) in dense.iter_mut().enumerate() {
            if !d.is_air() {
                let b = BlockId(1 + (i % 2) as u16);
                p.set(i, b);
                *d = b;
            }
        }
        assert_eq!(p.palette().len(), 41);
        p.compact();
        // first appearance in index order, as a fresh build from the dense copy
        let first: Vec<BlockId> = dense.iter().fold(Vec::new(), |mut v, b| {
            if !v.contains(b) {
                v.push(*b)
            }
            v
        });
        assert_eq!(p.palette(), &first[..]);
        assert_eq!(first.len(), 3);
        assert_eq!(p.bits(), 2);
        assert_eq!(p.to_dense_vec(), dense);
        p.fill(BlockId(3));
        assert_eq!(p.bits(), 0);
        assert!(p.to_dense_vec().iter().all(|&b| b == BlockId(3)));
    }

    #[test]
    fn full_u16_palette() {
        // 64³ chunk with 65,536 distinct ids: 16 bits, reverse lookup in use.
        let s = ChunkSize::S64;
        let dense: Vec<BlockId> = (0..s.volume()).map(|i| BlockId((i as u64 * 40503 % 65536) as u16)).collect();
        let p = PalettedBlocks::from_dense(s, &dense).unwrap();
        assert_eq!(p.bits(), 16);
        assert_eq!(p.palette().len(), 65536);
        assert_eq!(p.to_dense_vec(), dense);
        let mut q = PalettedBlocks::new(s);
        for (i, &b) in dense.iter().enumerate().take(70000) {
            q.set(i, b);
        }
        for i in (0..70000).step_by(997) {
            assert_eq!(q.get(i), dense[i]);
        }
    }

    #[test]
    fn dense_length_checked() {
        let s = ChunkSize::S8;
        let e = PalettedBlocks::from_dense(s, &[BlockId::AIR; 10]).unwrap_err();
        assert!(e.to_string().contains("512") && e.to_string().contains("10"), "{e}");
        let mut out = vec![BlockId::AIR; 3];
        assert!(PalettedBlocks::new(s).to_dense(&mut out).is_err());
    }

    /// Terrain-like chunk: smooth height field `h(x, z)`, stone below `h - 3`, dirt up to
    /// `h - 1`, grass at `h`, air above; water up to `sea` over low ground.
    pub(crate) fn terrain(s: ChunkSize, base: f64, amp: f64, sea: Option<i32>) -> Vec<BlockId> {
        let e = s.edge() as usize;
        let mut v = vec![BlockId::AIR; s.volume()];
        for z in 0..e {
            for x in 0..e {
                let (fx, fz) = (x as f64 / 9.0, z as f64 / 13.0);
                let h =
                    (base + amp * (0.6 * (fx).sin() * (fz).cos() + 0.4 * (0.7 * fx + 1.3 * fz).sin())).round() as i32;
                for y in 0..e as i32 {
                    let b = if y < h - 3 {
                        BlockId(1)
                    } else if y < h {
                        BlockId(2)
                    } else if y == h {
                        BlockId(3)
                    } else if sea.is_some_and(|w| y <= w) {
                        BlockId(5)
                    } else {
                        BlockId::AIR
                    };
                    v[x + e * (z + e * y as usize)] = b;
                }
            }
        }
        v
    }

    #[test]
    fn terrain_bits_per_voxel() {
        // Gentle terrain crossing the middle of the chunk: at most 1 bit/voxel at edge 32 and 64.
        for (e, amp) in [(16, 3.0), (32, 4.0), (32, 8.0), (64, 8.0), (64, 16.0)] {
            let s = ChunkSize::new(e).unwrap();
            let dense = terrain(s, e as f64 / 2.0, amp, None);
            let p = PalettedBlocks::from_dense(s, &dense).unwrap();
            let w = terrain(s, e as f64 / 2.0, amp, Some(e as i32 / 2));
            let q = PalettedBlocks::from_dense(s, &w).unwrap();
            println!(
                "edge {e} amp {amp}: {} kinds {} bits, {}/{} uniform layers, {:.3} bits/voxel; with water {} kinds {:.3}",
                p.palette().len(),
                p.bits(),
                p.uniform_layers(),
                e,
                p.bits_per_voxel(),
                q.palette().len(),
                q.bits_per_voxel()
            );
            if e >= 32 && amp <= e as f64 / 8.0 {
                assert!(p.bits_per_voxel() <= 1.0, "edge {e} amp {amp}: {}", p.bits_per_voxel());
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Set(usize, u16),
        Fill(u16),
        Compact,
    }

    fn ops(volume: usize, kinds: u16) -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            20 => (0..volume, 0..kinds).prop_map(|(i, b)| Op::Set(i, b)),
            1 => (0..kinds).prop_map(Op::Fill),
            2 => Just(Op::Compact),
        ];
        proptest::collection::vec(op, 0..400)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_dense(k in 0usize..2, kinds in prop_oneof![Just(2u16), Just(5), Just(40), Just(300)], seq in ops(4096, 300)) {
            let s = [ChunkSize::S8, ChunkSize::S16][k];
            let mut p = PalettedBlocks::new(s);
            let mut d = vec![BlockId::AIR; s.volume()];
            for op in seq {
                match op {
                    Op::Set(i, b) => {
                        let (i, b) = (i % s.volume(), BlockId(b % kinds));
                        p.set(i, b);
                        d[i] = b;
                        prop_assert_eq!(p.get(i), b);
                    }
                    Op::Fill(b) => {
                        let b = BlockId(b % kinds);
                        p.fill(b);
                        d.fill(b);
                    }
                    Op::Compact => {
                        p.compact();
                        let c = PalettedBlocks::from_dense(s, &d).unwrap();
                        // canonical: equal representation to a fresh build
                        prop_assert_eq!(p.raw_parts(), c.raw_parts());
                    }
                }
            }
            prop_assert_eq!(p.to_dense_vec(), d.clone());
            for (i, &b) in d.iter().enumerate() {
                prop_assert_eq!(p.get(i), b);
            }
            let q = PalettedBlocks::from_dense(s, &d).unwrap();
            prop_assert!(p == q);
            let (bits, pal, layers, words) = p.raw_parts();
            let r = PalettedBlocks::from_raw_parts(s, bits, pal.to_vec(), layers.to_vec(), words.to_vec()).unwrap();
            prop_assert_eq!(r.to_dense_vec(), d);
        }
    }
}
