//! Palette-compressed block storage for one chunk: a chunk palette, and sections of 256 voxels
//! each uniform or bit-packed through a small local palette.
//!
//! Algorithm. The chunk's distinct block ids form the **chunk palette** (`u16` ids, at most
//! 65,536). The voxel index range is cut into **sections** of `L = min(256, edge²)` consecutive
//! voxels (one layer at edges 8 and 16, a 32 × 8 strip of a layer at 32, a 64 × 4 strip at 64).
//! A section is either
//!
//! * **uniform** — one chunk-palette index in its descriptor, no words; or
//! * **local** — `b` = 1, 2 or 4 bits per voxel indexing a local palette of `2^b` slots that
//!   hold chunk-palette indices (`u16`, unused slots `0xFFFF`), or
//! * **direct** — `b` = 8 or 16 bits per voxel holding chunk-palette indices (for sections with
//!   more than 16 kinds; 8 only while the chunk palette has at most 256 entries).
//!
//! Widths are powers of two, so no entry straddles a `u64` word and a voxel is found by shifts and
//! masks: section `i >> log2 L`, entry `j = i mod L` in word `j >> (6 - log2 b)` at bit
//! `(j mod 64/b) * b` of the section's index words; a local section's words start with its
//! local palette (4 slots per word, slot `k` at bits `16 (k mod 4)` of word `k / 4`). A chunk
//! that is one id throughout keeps no section descriptors at all. This is the palette scheme
//! of Minecraft's chunk sections (Mojang, 1.13+) refined to per-section palettes and widths and
//! uniform sections, for issue 22's ≤ 1 bit/voxel on terrain: terrain is stratified, so most
//! sections of a chunk are all stone or all air, and the sections the surface crosses hold 2–4
//! kinds (1–2 bits) whatever the chunk holds elsewhere.
//!
//! Growth and compaction. [`set`](PalettedBlocks::set) appends unseen ids to the chunk palette;
//! a uniform section receiving another id becomes a 1-bit local section; a local palette that
//! is full is widened (1 → 2 → 4 → direct 8 → direct 16), the section being re-packed at the end
//! of the word store (its old words become garbage until `compact`). Nothing shrinks on `set`:
//! [`compact`](PalettedBlocks::compact) drops unused chunk-palette entries, re-detects uniform
//! sections, narrows every section to the least width and drops garbage. After `compact` (and
//! after [`from_dense`](PalettedBlocks::from_dense)) the representation is **canonical**: chunk
//! palette in order of first appearance in voxel index order, each local palette in order of
//! first appearance in its section, sections packed in index order; equal contents give equal
//! representations (and equal bytes in [`codec`](crate::codec)).
//!
//! Size accounting ([`storage_bits`](PalettedBlocks::storage_bits)): 16 bits per chunk-palette
//! entry, 32 per section descriptor, 64 per word (local palettes, indices and garbage), 32 per
//! entry of the sorted reverse lookup that chunk palettes over 16 entries keep; the struct
//! itself (about 100 bytes) is not counted. Caps: at most 65,536 palette entries, `edge³` voxels
//! (262,144 at edge 64); the word store stays below 0.6 words per voxel even with garbage (a
//! section passes through each width at most once before `compact`: at most 130 words per
//! 256 voxels, 37 per 64).

use crate::block::BlockId;
use crate::coords::{ChunkSize, LocalPos};
use crate::error::{Result, VoxelError};

const UNIFORM: u32 = 1 << 31;
const OFFSET_MASK: u32 = (1 << 28) - 1;
const FREE: u16 = u16::MAX;
/// Chunk palettes longer than this keep a sorted reverse lookup (binary search instead of a scan).
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
    #[inline]
    fn find_or_push(&mut self, b: BlockId) -> u16 {
        match self.find(b) {
            Some(p) => p,
            None => self.push(b),
        }
    }
}

/// Words of a local palette at width code `lb` (0 for direct sections).
#[inline]
const fn lp_words(lb: u32) -> usize {
    match lb {
        0 | 1 => 1,
        2 => 4,
        _ => 0,
    }
}

/// Least width code for a section of `k` distinct kinds in a chunk palette of `n` entries.
#[inline]
fn width_for(k: usize, n: usize) -> u32 {
    match k {
        0..=2 => 0,
        3..=4 => 1,
        5..=16 => 2,
        _ if n <= 256 => 3,
        _ => 4,
    }
}

/// Palette-compressed blocks of one chunk (see the module doc).
#[derive(Debug, Clone)]
pub struct PalettedBlocks {
    size: ChunkSize,
    /// log2 of the section length.
    sec_shift: u8,
    pal: Pal,
    /// Per section: `UNIFORM | chunk-palette index`, or `width code << 28 | word offset`.
    /// Empty when the whole chunk is `pal.ids[0]`.
    secs: Vec<u32>,
    words: Vec<u64>,
}

impl PartialEq for PalettedBlocks {
    /// Equal contents (not representation): same size and the same id in every voxel.
    fn eq(&self, other: &Self) -> bool {
        if self.size != other.size {
            return false;
        }
        let l = self.sec_len();
        let mut a = vec![BlockId::AIR; l];
        let mut b = vec![BlockId::AIR; l];
        (0..self.sections()).all(|s| {
            self.section_ids(s, &mut a);
            other.section_ids(s, &mut b);
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

    /// A chunk filled with `b` (0 bits per voxel: one palette entry, no sections).
    pub fn uniform(size: ChunkSize, b: BlockId) -> Self {
        PalettedBlocks {
            size,
            sec_shift: (size.area().min(256)).trailing_zeros() as u8,
            pal: Pal { ids: vec![b], rev: Vec::new() },
            secs: Vec::new(),
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

    /// Voxels per section: `min(256, edge²)`.
    #[inline]
    pub fn sec_len(&self) -> usize {
        1 << self.sec_shift
    }

    /// Number of sections (`edge³ / sec_len`).
    #[inline]
    pub fn sections(&self) -> usize {
        self.len() >> self.sec_shift
    }

    /// The chunk palette, index → id (may hold unused entries until [`compact`](Self::compact)).
    #[inline]
    pub fn palette(&self) -> &[BlockId] {
        &self.pal.ids
    }

    /// The widest section's bits per voxel (0 when every section is uniform).
    pub fn bits(&self) -> u32 {
        self.secs.iter().filter(|&&d| d & UNIFORM == 0).map(|&d| 1 << (d >> 28)).max().unwrap_or(0)
    }

    #[inline]
    fn idx_words(&self, lb: u32) -> usize {
        self.sec_len() >> (6 - lb)
    }

    #[inline]
    fn read(&self, off: usize, lb: u32, j: usize) -> usize {
        let es = 6 - lb;
        let w = self.words[off + (j >> es)];
        ((w >> ((j & ((1 << es) - 1)) << lb)) & ((1u64 << (1 << lb)) - 1)) as usize
    }

    #[inline]
    fn write(&mut self, off: usize, lb: u32, j: usize, v: usize) {
        let es = 6 - lb;
        let sh = (j & ((1 << es) - 1)) << lb;
        let mask = ((1u64 << (1 << lb)) - 1) << sh;
        let w = &mut self.words[off + (j >> es)];
        *w = (*w & !mask) | ((v as u64) << sh);
    }

    #[inline]
    fn lp_get(&self, off: usize, k: usize) -> u16 {
        (self.words[off + (k >> 2)] >> ((k & 3) << 4)) as u16
    }

    #[inline]
    fn lp_set(&mut self, off: usize, k: usize, v: u16) {
        let sh = (k & 3) << 4;
        let w = &mut self.words[off + (k >> 2)];
        *w = (*w & !(0xffffu64 << sh)) | ((v as u64) << sh);
    }

    /// Chunk-palette index of voxel `i` (`i` below the volume).
    #[inline]
    fn index_at(&self, i: usize) -> usize {
        let Some(&d) = self.secs.get(i >> self.sec_shift) else { return 0 };
        if d & UNIFORM != 0 {
            return (d & 0xffff) as usize;
        }
        let lb = d >> 28;
        let off = (d & OFFSET_MASK) as usize;
        let j = i & (self.sec_len() - 1);
        if lb <= 2 {
            let v = self.read(off + lp_words(lb), lb, j);
            self.lp_get(off, v) as usize
        } else {
            self.read(off, lb, j)
        }
    }

    /// The id at voxel index `i` (`x + s*(z + s*y)`). Panics if `i >= len()`, like slice
    /// indexing; [`get_local`](Self::get_local) never panics.
    #[inline]
    pub fn get(&self, i: usize) -> BlockId {
        assert!(i < self.len(), "voxel index {i} out of range for a chunk of {} voxels", self.len());
        self.pal.ids[self.index_at(i)]
    }

    /// The id at a local position.
    #[inline]
    pub fn get_local(&self, l: LocalPos) -> BlockId {
        self.pal.ids[self.index_at(l.index(self.size))]
    }

    /// Sets voxel index `i` to `b`, growing the palettes and the section's width as needed.
    /// Panics if `i >= len()`; [`set_local`](Self::set_local) never panics.
    pub fn set(&mut self, i: usize, b: BlockId) {
        assert!(i < self.len(), "voxel index {i} out of range for a chunk of {} voxels", self.len());
        let p = self.pal.find_or_push(b);
        if self.secs.is_empty() {
            if p == 0 {
                return;
            }
            self.secs = vec![UNIFORM; self.sections()];
        }
        let s = i >> self.sec_shift;
        let j = i & (self.sec_len() - 1);
        loop {
            let d = self.secs[s];
            if d & UNIFORM != 0 {
                let u = (d & 0xffff) as u16;
                if u == p {
                    return;
                }
                let off = self.words.len();
                self.words.push(u as u64 | (p as u64) << 16 | (FREE as u64) << 32 | (FREE as u64) << 48);
                self.words.resize(off + 1 + self.idx_words(0), 0);
                self.secs[s] = off as u32;
                self.write(off + 1, 0, j, 1);
                return;
            }
            let lb = d >> 28;
            let off = (d & OFFSET_MASK) as usize;
            if lb <= 2 {
                let slots = 1usize << (1 << lb);
                for k in 0..slots {
                    let e = self.lp_get(off, k);
                    if e == p || e == FREE {
                        if e == FREE {
                            self.lp_set(off, k, p);
                        }
                        self.write(off + lp_words(lb), lb, j, k);
                        return;
                    }
                }
                let next = if lb < 2 {
                    lb + 1
                } else if self.pal.ids.len() <= 256 {
                    3
                } else {
                    4
                };
                self.repack(s, next);
            } else if lb == 3 && p as usize >= 256 {
                self.repack(s, 4);
            } else {
                self.write(off, lb, j, p as usize);
                return;
            }
        }
    }

    /// Sets a local position.
    #[inline]
    pub fn set_local(&mut self, l: LocalPos, b: BlockId) {
        self.set(l.index(self.size), b)
    }

    /// Fills the chunk with `b` (back to 0 bits, palette `[b]`, no sections).
    pub fn fill(&mut self, b: BlockId) {
        *self = Self::uniform(self.size, b);
    }

    /// Re-packs section `s` at width code `lb` at the end of the word store.
    fn repack(&mut self, s: usize, lb: u32) {
        let mut buf = vec![0u16; self.sec_len()];
        self.section_indices(s, &mut buf);
        self.secs[s] = self.append_section(&buf, lb);
    }

    /// Appends a section of chunk-palette indices `idx` at width code `lb` (its distinct
    /// values must fit) and returns its descriptor. Local palettes in first-appearance order.
    fn append_section(&mut self, idx: &[u16], lb: u32) -> u32 {
        let off = self.words.len();
        let per = 64 >> lb;
        if lb <= 2 {
            let slots = 1usize << (1 << lb);
            let mut lp = [FREE; 16];
            let mut used = 0usize;
            let mut local = [0u8; 256];
            for (o, &v) in local.iter_mut().zip(idx) {
                let k = match lp[..used].iter().position(|&e| e == v) {
                    Some(k) => k,
                    None => {
                        lp[used] = v;
                        used += 1;
                        used - 1
                    }
                };
                *o = k as u8;
            }
            debug_assert!(used <= slots);
            for c in lp[..slots].chunks(4) {
                self.words.push(c.iter().enumerate().fold(0u64, |w, (e, &v)| w | (v as u64) << (16 * e)));
            }
            self.words.extend(
                local[..idx.len()]
                    .chunks_exact(per)
                    .map(|c| c.iter().enumerate().fold(0u64, |w, (e, &v)| w | (v as u64) << ((e as u32) << lb))),
            );
        } else {
            self.words.extend(
                idx.chunks_exact(per)
                    .map(|c| c.iter().enumerate().fold(0u64, |w, (e, &v)| w | (v as u64) << ((e as u32) << lb))),
            );
        }
        (lb << 28) | off as u32
    }

    /// Chunk-palette indices of section `s` into `out` (`sec_len` long).
    fn section_indices(&self, s: usize, out: &mut [u16]) {
        let Some(&d) = self.secs.get(s) else {
            out.fill(0);
            return;
        };
        if d & UNIFORM != 0 {
            out.fill((d & 0xffff) as u16);
            return;
        }
        let lb = d >> 28;
        let off = (d & OFFSET_MASK) as usize;
        let per = 64 >> lb;
        let mask = (1u64 << (1 << lb)) - 1;
        let mut lp = [0u16; 16];
        let start = if lb <= 2 {
            for (k, e) in lp.iter_mut().enumerate().take(1 << (1 << lb)) {
                *e = self.lp_get(off, k);
            }
            off + lp_words(lb)
        } else {
            off
        };
        for (k, c) in out.chunks_exact_mut(per).enumerate() {
            let mut w = self.words[start + k];
            for v in c.iter_mut() {
                let x = (w & mask) as usize;
                *v = if lb <= 2 { lp[x] } else { x as u16 };
                w >>= 1 << lb;
            }
        }
    }

    /// Ids of section `s` into `out` (`sec_len` long).
    fn section_ids(&self, s: usize, out: &mut [BlockId]) {
        let Some(&d) = self.secs.get(s) else {
            out.fill(self.pal.ids[0]);
            return;
        };
        if d & UNIFORM != 0 {
            out.fill(self.pal.ids[(d & 0xffff) as usize]);
            return;
        }
        let lb = d >> 28;
        let off = (d & OFFSET_MASK) as usize;
        let per = 64 >> lb;
        let mask = (1u64 << (1 << lb)) - 1;
        let pal = &self.pal.ids;
        if lb <= 2 {
            let mut lp = [BlockId::AIR; 16];
            for (k, e) in lp.iter_mut().enumerate().take(1 << (1 << lb)) {
                let c = self.lp_get(off, k);
                *e = pal.get(c as usize).copied().unwrap_or(BlockId::AIR);
            }
            let start = off + lp_words(lb);
            for (k, c) in out.chunks_exact_mut(per).enumerate() {
                let mut w = self.words[start + k];
                for v in c.iter_mut() {
                    *v = lp[(w & mask) as usize];
                    w >>= 1 << lb;
                }
            }
        } else {
            for (k, c) in out.chunks_exact_mut(per).enumerate() {
                let mut w = self.words[off + k];
                for v in c.iter_mut() {
                    *v = pal[(w & mask) as usize];
                    w >>= 1 << lb;
                }
            }
        }
    }

    /// Ids of layer `y` (voxel indices `y*s² .. (y+1)*s²`, order `x + s*z`) into `out`
    /// (`edge²` long); errors name a wrong length or layer.
    pub fn read_layer(&self, y: usize, out: &mut [BlockId]) -> Result<()> {
        if y >= self.size.edge() as usize {
            return Err(VoxelError::Param { name: "layer", value: y.to_string(), allowed: "below the chunk edge" });
        }
        if out.len() != self.size.area() {
            return Err(VoxelError::LengthMismatch {
                what: "layer buffer",
                expected: self.size.area(),
                got: out.len(),
            });
        }
        let per_layer = self.size.area() >> self.sec_shift;
        for (k, c) in out.chunks_exact_mut(self.sec_len()).enumerate() {
            self.section_ids(y * per_layer + k, c);
        }
        Ok(())
    }

    /// If every voxel of layer `y` is stored as one id, that id (cheap: reads descriptors only,
    /// so a packed section that happens to be uniform answers `None` until
    /// [`compact`](Self::compact)).
    pub fn layer_uniform(&self, y: usize) -> Option<BlockId> {
        if y >= self.size.edge() as usize {
            return None;
        }
        if self.secs.is_empty() {
            return Some(self.pal.ids[0]);
        }
        let per_layer = self.size.area() >> self.sec_shift;
        let ds = &self.secs[y * per_layer..(y + 1) * per_layer];
        let first = ds[0];
        (first & UNIFORM != 0 && ds.iter().all(|&d| d == first)).then(|| self.pal.ids[(first & 0xffff) as usize])
    }

    /// If the whole chunk is stored as one id, that id.
    pub fn uniform_id(&self) -> Option<BlockId> {
        if self.secs.is_empty() {
            return Some(self.pal.ids[0]);
        }
        let first = self.secs[0];
        (first & UNIFORM != 0 && self.secs.iter().all(|&d| d == first)).then(|| self.pal.ids[(first & 0xffff) as usize])
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
        for (s, c) in out.chunks_exact_mut(self.sec_len()).enumerate() {
            self.section_ids(s, c);
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
                last_p = pal.find_or_push(b);
                last_id = Some(b);
            }
            *o = last_p;
        }
        Ok(Self::from_indices(size, pal, &idx))
    }

    /// Builds the canonical sections from chunk-palette indices (all < palette length).
    fn from_indices(size: ChunkSize, pal: Pal, idx: &[u16]) -> Self {
        let mut s = Self::uniform(size, BlockId::AIR);
        s.pal = pal;
        if s.pal.ids.len() == 1 {
            return s;
        }
        let n = s.pal.ids.len();
        let l = s.sec_len();
        let mut secs = Vec::with_capacity(s.sections());
        let mut seen = vec![false; n];
        let mut distinct = Vec::with_capacity(16);
        for sec in idx.chunks_exact(l) {
            // Most sections of a terrain chunk are one id (sky, rock): a compare the compiler
            // vectorises instead of the distinct scan.
            if sec.iter().all(|&v| v == sec[0]) {
                secs.push(UNIFORM | sec[0] as u32);
                continue;
            }
            distinct.clear();
            for &v in sec {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    distinct.push(v);
                }
            }
            for &v in &distinct {
                seen[v as usize] = false;
            }
            if distinct.len() == 1 {
                secs.push(UNIFORM | distinct[0] as u32);
            } else {
                let d = s.append_section(sec, width_for(distinct.len(), n));
                secs.push(d);
            }
        }
        s.secs = secs;
        s
    }

    /// Drops unused palette entries, re-detects uniform sections, narrows every section and
    /// drops garbage words: the canonical representation of the same contents (module doc).
    pub fn compact(&mut self) {
        let l = self.sec_len();
        let mut remap = vec![u16::MAX; self.pal.ids.len()];
        let mut pal = Pal::default();
        let mut idx = vec![0u16; self.len()];
        for (s, sec) in idx.chunks_exact_mut(l).enumerate() {
            self.section_indices(s, sec);
            for v in sec.iter_mut() {
                let r = &mut remap[*v as usize];
                if *r == u16::MAX {
                    *r = pal.push(self.pal.ids[*v as usize]);
                }
                *v = *r;
            }
        }
        *self = Self::from_indices(self.size, pal, &idx);
    }

    /// Number of sections stored as one id (all of them when the chunk is uniform).
    pub fn uniform_sections(&self) -> usize {
        if self.secs.is_empty() {
            return self.sections();
        }
        self.secs.iter().filter(|&&d| d & UNIFORM != 0).count()
    }

    /// Storage bits: 16 per chunk-palette entry, 32 per section descriptor, 64 per word, 32 per
    /// reverse-lookup entry (see the module doc).
    pub fn storage_bits(&self) -> usize {
        16 * self.pal.ids.len() + 32 * self.secs.len() + 64 * self.words.len() + 32 * self.pal.rev.len()
    }

    /// [`storage_bits`](Self::storage_bits) per voxel.
    pub fn bits_per_voxel(&self) -> f64 {
        self.storage_bits() as f64 / self.len() as f64
    }

    /// Heap bytes held (capacities, not lengths).
    pub fn heap_bytes(&self) -> usize {
        2 * self.pal.ids.capacity() + 4 * self.pal.rev.capacity() + 4 * self.secs.capacity() + 8 * self.words.capacity()
    }

    /// Raw parts, as the byte format stores them (call [`compact`](Self::compact) first: only
    /// garbage-free parts pass [`from_raw_parts`](Self::from_raw_parts)): chunk palette; section descriptors (empty for a
    /// uniform chunk; `u32`: bit 31 set → uniform, chunk-palette index in bits 0–15; else width
    /// code `log2 b` in bits 28–30 and word offset in bits 0–27); words.
    pub fn raw_parts(&self) -> (&[BlockId], &[u32], &[u64]) {
        (&self.pal.ids, &self.secs, &self.words)
    }

    /// Rebuilds from raw parts, validating everything (never panics): palette 1..=min(65536,
    /// volume) distinct ids; no sections (then a palette of one and no words) or exactly
    /// `volume / sec_len` of them; uniform indices inside the palette; width codes 0–4 (8 bits
    /// only with a palette of at most 256); packed sections tiling the words exactly, each once;
    /// local palettes of used slots (distinct, inside the palette) then free slots; every
    /// packed index addressing a used slot or a palette entry.
    pub fn from_raw_parts(size: ChunkSize, palette: Vec<BlockId>, secs: Vec<u32>, words: Vec<u64>) -> Result<Self> {
        let corrupt = |m: String| Err(VoxelError::Corrupt(m));
        let n = palette.len();
        if n == 0 || n > 65536 || n > size.volume() {
            return corrupt(format!("palette of {n} entries (allowed 1..={})", size.volume().min(65536)));
        }
        let mut sorted = palette.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return corrupt("palette holds a block id twice".into());
        }
        let mut s = Self::uniform(size, BlockId::AIR);
        for &b in &palette {
            s.pal.push(b);
        }
        s.pal.ids = palette;
        if secs.is_empty() {
            if n != 1 || !words.is_empty() {
                return corrupt(format!("no sections but a palette of {n} and {} words", words.len()));
            }
            return Ok(s);
        }
        if secs.len() != s.sections() {
            return corrupt(format!("{} section descriptors, expected {}", secs.len(), s.sections()));
        }
        s.words = words;
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for (k, &d) in secs.iter().enumerate() {
            if d & UNIFORM != 0 {
                if d & !UNIFORM > 0xffff || (d & 0xffff) as usize >= n {
                    return corrupt(format!("section {k}: uniform descriptor {d:#x} outside a palette of {n}"));
                }
                continue;
            }
            let lb = d >> 28;
            if lb > 4 || (lb == 3 && n > 256) {
                return corrupt(format!("section {k}: width code {lb} not allowed with a palette of {n}"));
            }
            let len = lp_words(lb) + s.idx_words(lb);
            spans.push(((d & OFFSET_MASK) as usize, len, k));
        }
        spans.sort_unstable();
        let mut at = 0usize;
        for &(off, len, k) in &spans {
            if off != at {
                return corrupt(format!(
                    "section {k}: words at {off}, expected {at} (packed sections must tile the words)"
                ));
            }
            at += len;
        }
        if at != s.words.len() {
            return corrupt(format!("{} words but the sections use {at}", s.words.len()));
        }
        s.secs = secs;
        for &(off, _, k) in &spans {
            let lb = s.secs[k] >> 28;
            let limit = if lb <= 2 {
                let slots = 1usize << (1 << lb);
                let mut used = 0;
                for slot in 0..slots {
                    let e = s.lp_get(off, slot);
                    if e == FREE {
                        continue;
                    }
                    if slot != used || e as usize >= n || (0..used).any(|q| s.lp_get(off, q) == e) {
                        return corrupt(format!("section {k}: local palette slot {slot} ({e}) is out of order, repeated or outside a palette of {n}"));
                    }
                    used += 1;
                }
                if used == 0 {
                    return corrupt(format!("section {k}: empty local palette"));
                }
                used
            } else {
                n
            };
            let start = off + lp_words(lb);
            for j in 0..s.sec_len() {
                let v = s.read(start, lb, j);
                if v >= limit {
                    return corrupt(format!("section {k}: voxel {j} has index {v}, beyond {limit} entries"));
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
            assert_eq!(p.storage_bits(), 16);
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
        // 41 kinds in section 0: direct 8-bit indices there
        for k in 0..41u16 {
            p.set(k as usize, BlockId(k + 1));
            dense[k as usize] = BlockId(k + 1);
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
        assert_eq!(p.palette().len(), 42);
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
    fn garbage_is_bounded() {
        // every section driven through widths 1, 2, 4, 8 and 16 by ever new ids
        for s in [ChunkSize::S8, ChunkSize::S16] {
            let mut p = PalettedBlocks::new(s);
            let l = p.sec_len();
            for sec in 0..p.sections() {
                for j in 0..l {
                    p.set(sec * l + j, BlockId((1 + (sec * l + j) % 400) as u16));
                }
            }
            let words = (p.storage_bits() - 16 * p.palette().len() - 32 * p.sections() - 32 * 400) / 64;
            assert!((words as f64) < 0.6 * s.volume() as f64, "{} words for {} voxels", words, s.volume());
            assert_eq!(p.bits(), 16);
            let d = p.to_dense_vec();
            p.compact();
            assert_eq!(p.to_dense_vec(), d);
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
                "edge {e} amp {amp}: {} kinds, widest {} bits, {}/{} uniform sections, {:.3} bits/voxel; with water {} kinds {:.3}",
                p.palette().len(),
                p.bits(),
                p.uniform_sections(),
                p.sections(),
                p.bits_per_voxel(),
                q.palette().len(),
                q.bits_per_voxel()
            );
            if e >= 32 && amp <= 8.0 {
                assert!(q.bits_per_voxel() <= 1.0, "edge {e} amp {amp} water: {}", q.bits_per_voxel());
                assert!(p.bits_per_voxel() <= 1.0, "edge {e} amp {amp}: {}", p.bits_per_voxel());
            }
        }
    }

    #[test]
    fn caves_bits_per_voxel() {
        // Terrain with spherical caves (radius 2-5) carved below the surface: a harder case.
        let s = ChunkSize::S32;
        let mut dense = terrain(s, 24.0, 4.0, None);
        let mut st = 0x9e3779b97f4a7c15u64;
        let mut rnd = |m: u64| {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            (st % m) as i32
        };
        for _ in 0..12 {
            let (cx, cy, cz, r) = (rnd(32), rnd(18), rnd(32), 2 + rnd(4));
            for y in 0..32i32 {
                for z in 0..32i32 {
                    for x in 0..32i32 {
                        if (x - cx).pow(2) + (y - cy).pow(2) + (z - cz).pow(2) <= r * r {
                            dense[(x + 32 * (z + 32 * y)) as usize] = BlockId::AIR;
                        }
                    }
                }
            }
        }
        let p = PalettedBlocks::from_dense(s, &dense).unwrap();
        println!(
            "edge 32 terrain + 12 caves: {}/{} uniform sections, {:.3} bits/voxel",
            p.uniform_sections(),
            p.sections(),
            p.bits_per_voxel()
        );
        assert!(p.bits_per_voxel() < 1.5);
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
        fn matches_dense(k in 0usize..3, kinds in prop_oneof![Just(2u16), Just(5), Just(40), Just(300)], seq in ops(32768, 300)) {
            let s = [ChunkSize::S8, ChunkSize::S16, ChunkSize::S32][k];
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
            let area = s.area();
            let mut layer = vec![BlockId::AIR; area];
            for y in 0..s.edge() as usize {
                p.read_layer(y, &mut layer).unwrap();
                let want = &d[y * area..(y + 1) * area];
                prop_assert_eq!(&layer[..], want);
                if let Some(b) = p.layer_uniform(y) {
                    prop_assert!(want.iter().all(|&x| x == b));
                }
                if let Some(b) = q.layer_uniform(y) {
                    prop_assert!(want.iter().all(|&x| x == b));
                } else {
                    prop_assert!(want.iter().any(|&x| x != want[0]));
                }
            }
            let mut c = p.clone();
            c.compact();
            prop_assert!(c.storage_bits() <= p.storage_bits() + 64);
            let (pal, secs, words) = c.raw_parts();
            let r = PalettedBlocks::from_raw_parts(s, pal.to_vec(), secs.to_vec(), words.to_vec()).unwrap();
            prop_assert_eq!(r.to_dense_vec(), d);
        }
    }
}
