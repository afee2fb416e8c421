//! Palette-compressed block storage for one chunk: a chunk palette, and sections of 256 voxels
//! each uniform or bit-packed through a small local palette.
//!
//! Algorithm. The chunk's distinct block ids form the **chunk palette** (`u16` ids, at most
//! 65,536). The voxel index range is cut into **sections** of `L = min(256, edge²)` consecutive
//! voxels (one layer at edges 8 and 16, a 32 × 8 strip of a layer at 32, a 64 × 4 strip at 64).
//! Each section has a 32-bit **descriptor** and is either
//!
//! * **uniform** — one chunk-palette index in its descriptor, no words; or
//! * **local** — `b` = 1, 2 or 4 bits per voxel indexing a local palette of `2^b` slots that
//!   hold chunk-palette indices; or
//! * **direct** — `b` = 8 or 16 bits per voxel holding chunk-palette indices (for sections with
//!   more than 16 kinds; 8 only while the chunk palette has at most 256 entries).
//!
//! A local palette of 2 slots whose entries are all below 64, or of 4 slots all below 8, lives
//! **inline** in its section's descriptor (2 × 6 or 4 × 3 bits); any other local palette (every
//! 16-slot one) lives in the **slot store**, groups of 4 `u16` slots (1 group for 2 or 4 slots,
//! 4 groups for 16) addressed by group number. The chunk palette is in order of first
//! appearance, so on terrain the common kinds (air, stone, dirt, grass, water) have the small
//! indices and nearly every 1- and 2-bit section is inline: such a section costs its descriptor
//! and its index words only (288 or 544 bits for 256 voxels, where a local palette in a word of
//! its own would add 64). That brings the chunks that the surface crosses in many thin sections
//! of 2–4 kinds under 1 bit per voxel (issue 22).
//!
//! Descriptor (`u32`): kind code `c` in bits 29–31 — 7 uniform (chunk-palette index in bits
//! 0–15, the rest 0); 0–4 packed at `b = 2^c` bits per voxel (0–2 local, 3–4 direct). A packed
//! descriptor holds the offset `u` of its index words in bits 0–14, in units of `L` bits (`L/64`
//! words, the size of a 1-bit section: every section's words are whole units, and units keep
//! the offset within 15 bits up to edge 64). A local one also holds, in bits 15–27, either its
//! inline slots (bit 28 set; slot `k` at bit `15 + k·(6 >> c)`) or its first slot-store group
//! (bit 28 clear). A local palette is its distinct used slots, then unused ones (and a 2-slot
//! palette's padding to its group) repeating the last used slot: the first repeat marks the
//! first unused slot, with no sentinel value.
//!
//! Widths are powers of two, so no entry straddles a `u64` word and a voxel is found by shifts
//! and masks: section `i >> log2 L`, entry `j = i mod L` at bit `t = u·L + j·b` of the word
//! store (word `t >> 6`, bit `t mod 64`: entry `j` at bit `(j mod 64/b)·b` of the section's
//! index word `j / (64/b)`), then for a local section its slot, from the descriptor or the
//! store. A chunk that is one id throughout keeps no section descriptors at all. This is the
//! palette scheme of Minecraft's chunk sections (Mojang, 1.13+) refined to per-section palettes
//! and widths, uniform sections and palettes inside the section headers: terrain is stratified,
//! so most sections of a chunk are all stone or all air, and the sections the surface crosses
//! hold 2–4 kinds (1–2 bits) whatever the chunk holds elsewhere.
//!
//! Growth and compaction. [`set`](PalettedBlocks::set) appends unseen ids to the chunk palette;
//! a uniform section receiving another id becomes a 1-bit local section; a local palette that
//! is full is widened (1 → 2 → 4 → direct 8 → direct 16), the section being re-packed at the end
//! of the word store (its old words and slot-store groups become garbage until `compact`); an
//! inline palette receiving an entry too large for its slots moves to the end of the slot store.
//! Nothing shrinks on `set`: [`compact`](PalettedBlocks::compact) drops unused chunk-palette
//! entries, re-detects uniform sections, narrows every section to the least width, moves local
//! palettes inline where they fit and drops garbage. After `compact` (and after
//! [`from_dense`](PalettedBlocks::from_dense)) the representation is **canonical**: chunk
//! palette in order of first appearance in voxel index order, each local palette in order of
//! first appearance in its section, inline exactly when it fits, index words and slot-store
//! groups in section order; equal contents give equal representations (and equal bytes in
//! [`codec`](crate::codec)).
//!
//! Size accounting ([`storage_bits`](PalettedBlocks::storage_bits)): 16 bits per chunk-palette
//! entry, 32 per section descriptor, 16 per slot-store slot and 64 per index word (garbage
//! included), 32 per entry of the sorted reverse lookup that chunk palettes over 16 entries
//! keep; the struct itself (128 bytes on a 64-bit target) is not counted. Caps: at most 65,536
//! palette entries, `edge³` voxels (262,144 at edge 64). Before `compact` a section passes
//! through each width at most once, so the stores stay bounded even with garbage: at most 31
//! offset units (1 + 2 + 4 + 8 + 16) of index words and 6 slot-store groups per section, within
//! the descriptor fields' 2^15 units and 2^13 groups at every edge.

use crate::block::BlockId;
use crate::coords::{ChunkSize, LocalPos};
use crate::error::{Result, VoxelError};

/// Kind code position in a descriptor (bits 29–31).
const CODE_SHIFT: u32 = 29;
/// Kind code of a uniform section.
const UNIFORM_CODE: u32 = 7;
/// A uniform descriptor without its index.
const UNIFORM: u32 = UNIFORM_CODE << CODE_SHIFT;
/// Local palette inline in the descriptor.
const INLINE: u32 = 1 << 28;
/// Inline slots or first slot-store group: bits 15–27.
const LP_SHIFT: u32 = 15;
const LP_MASK: u32 = (1 << 13) - 1;
/// Index-word offset in units of `L / 64` words: bits 0–14.
const OFF_MASK: u32 = (1 << 15) - 1;
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

/// Slots of a local palette at width code `c` (0–2).
#[inline]
const fn lp_slots(c: u32) -> usize {
    1 << (1 << c)
}

/// Slot-store groups (4 slots each) of a local palette at width code `c` (0–2).
#[inline]
const fn lp_groups(c: u32) -> usize {
    if c == 2 {
        4
    } else {
        1
    }
}

/// Bits per inline slot at width code `c` (0 or 1): 6 or 3.
#[inline]
const fn inline_bits(c: u32) -> u32 {
    6 >> c
}

/// How many used slots the local palette `lp` has (distinct used slots, then unused ones
/// repeating the last used one).
#[inline]
fn used_slots(lp: &[u16]) -> usize {
    (1..lp.len()).find(|&k| lp[k] == lp[k - 1]).unwrap_or(lp.len())
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
    /// Per section: a descriptor (module doc). Empty when the whole chunk is `pal.ids[0]`.
    secs: Vec<u32>,
    /// The slot store: local palettes not inline, groups of 4 slots.
    slots: Vec<u16>,
    /// Index words of the packed sections.
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
            slots: Vec::new(),
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
        self.secs.iter().map(|&d| d >> CODE_SHIFT).filter(|&c| c != UNIFORM_CODE).map(|c| 1 << c).max().unwrap_or(0)
    }

    /// Index words of a section at width code `c`.
    #[inline]
    fn idx_words(&self, c: u32) -> usize {
        self.sec_len() >> (6 - c)
    }

    /// log2 of the offset unit (`L / 64` words).
    #[inline]
    fn unit_shift(&self) -> u32 {
        self.sec_shift as u32 - 6
    }

    /// First index word of packed descriptor `d`.
    #[inline]
    fn word_off(&self, d: u32) -> usize {
        ((d & OFF_MASK) as usize) << self.unit_shift()
    }

    /// First index bit of packed descriptor `d` (a unit is `L` bits).
    #[inline]
    fn bit_off(&self, d: u32) -> usize {
        ((d & OFF_MASK) as usize) << self.sec_shift
    }

    /// Entry `j` of the section whose index bits start at `base`, at width code `c`.
    #[inline]
    fn read(&self, base: usize, c: u32, j: usize) -> usize {
        let bit = base + (j << c);
        ((self.words[bit >> 6] >> (bit & 63)) & ((1u64 << (1 << c)) - 1)) as usize
    }

    #[inline]
    fn write(&mut self, base: usize, c: u32, j: usize, v: usize) {
        let bit = base + (j << c);
        let mask = ((1u64 << (1 << c)) - 1) << (bit & 63);
        let w = &mut self.words[bit >> 6];
        *w = (*w & !mask) | ((v as u64) << (bit & 63));
    }

    /// Slot `k` of local descriptor `d` (inline or in the slot store).
    #[inline]
    fn slot(&self, d: u32, k: usize) -> u16 {
        if d & INLINE != 0 {
            // slot bits 6 >> c: slot k at 15 + (6k >> c), mask 0x3f >> 3c
            let c = d >> CODE_SHIFT;
            ((d >> (LP_SHIFT + ((6 * k as u32) >> c))) & (0x3f >> (3 * c))) as u16
        } else {
            self.slots[(((d >> LP_SHIFT) & LP_MASK) as usize) * 4 + k]
        }
    }

    /// The local palette of local descriptor `d` (its `2^b` slots at the front of the array).
    #[inline]
    fn local_palette(&self, d: u32) -> [u16; 16] {
        let mut lp = [0u16; 16];
        for (k, e) in lp.iter_mut().enumerate().take(lp_slots(d >> CODE_SHIFT)) {
            *e = self.slot(d, k);
        }
        lp
    }

    /// The local-palette field of a descriptor at width code `c` (0–2) holding the distinct
    /// `used` entries (at least one): inline when they fit, else appended to the slot store.
    fn put_palette(&mut self, c: u32, used: &[u16]) -> u32 {
        let n = lp_slots(c);
        debug_assert!(!used.is_empty() && used.len() <= n);
        let last = used[used.len() - 1];
        if c <= 1 && used.iter().all(|&v| (v as u32) < 1 << inline_bits(c)) {
            let sb = inline_bits(c);
            let f = (0..n).fold(0u32, |f, k| f | (*used.get(k).unwrap_or(&last) as u32) << (k as u32 * sb));
            return INLINE | f << LP_SHIFT;
        }
        let g = self.slots.len() / 4;
        debug_assert!(g + lp_groups(c) <= LP_MASK as usize + 1, "slot store beyond 2^13 groups");
        self.slots.extend_from_slice(used);
        self.slots.resize(4 * (g + lp_groups(c)), last);
        (g as u32) << LP_SHIFT
    }

    /// Chunk-palette index of voxel `i` (`i` below the volume).
    #[inline]
    fn index_at(&self, i: usize) -> usize {
        let Some(&d) = self.secs.get(i >> self.sec_shift) else { return 0 };
        let c = d >> CODE_SHIFT;
        if c == UNIFORM_CODE {
            return (d & 0xffff) as usize;
        }
        let v = self.read(self.bit_off(d), c, i & (self.sec_len() - 1));
        if d & INLINE != 0 {
            ((d >> (LP_SHIFT + ((6 * v as u32) >> c))) & (0x3f >> (3 * c))) as usize
        } else if c <= 2 {
            self.slots[(((d >> LP_SHIFT) & LP_MASK) as usize) * 4 + v] as usize
        } else {
            v
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
            let c = d >> CODE_SHIFT;
            if c == UNIFORM_CODE {
                let u = (d & 0xffff) as u16;
                if u == p {
                    return;
                }
                let off = self.words.len();
                debug_assert!(off >> self.unit_shift() <= OFF_MASK as usize, "word store beyond 2^15 units");
                self.words.resize(off + self.idx_words(0), 0);
                self.secs[s] = (off >> self.unit_shift()) as u32 | self.put_palette(0, &[u, p]);
                self.write(off << 6, 0, j, 1);
                return;
            }
            let off = self.bit_off(d);
            if c <= 2 {
                // the slot holding `p`, else the first unused one (a repeat), else full
                let n = lp_slots(c);
                let mut k = 0;
                while k < n {
                    let e = self.slot(d, k);
                    if e == p {
                        self.write(off, c, j, k);
                        return;
                    }
                    if k > 0 && e == self.slot(d, k - 1) {
                        self.add_slot(s, k, p);
                        self.write(off, c, j, k);
                        return;
                    }
                    k += 1;
                }
                let next = if c < 2 {
                    c + 1
                } else if self.pal.ids.len() <= 256 {
                    3
                } else {
                    4
                };
                self.repack(s, next);
            } else if c == 3 && p as usize >= 256 {
                self.repack(s, 4);
            } else {
                self.write(off, c, j, p as usize);
                return;
            }
        }
    }

    /// Gives local section `s` (`k` used slots, not full) slot `k`, `p`: in place, or moving
    /// an inline palette that `p` does not fit to the slot store.
    fn add_slot(&mut self, s: usize, k: usize, p: u16) {
        let d = self.secs[s];
        let c = d >> CODE_SHIFT;
        if d & INLINE == 0 {
            // this slot and the unused ones after it (group padding included) become `p`
            let g = ((d >> LP_SHIFT) & LP_MASK) as usize * 4;
            self.slots[g + k..g + 4 * lp_groups(c)].fill(p);
            return;
        }
        let mut lp = self.local_palette(d);
        lp[k] = p;
        let keep = d & !(INLINE | LP_MASK << LP_SHIFT);
        self.secs[s] = keep | self.put_palette(c, &lp[..=k]);
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

    /// Re-packs section `s` at width code `c` at the end of the word store.
    fn repack(&mut self, s: usize, c: u32) {
        let mut buf = vec![0u16; self.sec_len()];
        self.section_indices(s, &mut buf);
        self.secs[s] = self.append_section(&buf, c);
    }

    /// Appends a section of chunk-palette indices `idx` at width code `c` (its distinct
    /// values must fit) and returns its descriptor. Local palettes in first-appearance order.
    fn append_section(&mut self, idx: &[u16], c: u32) -> u32 {
        let off = self.words.len();
        debug_assert!(off >> self.unit_shift() <= OFF_MASK as usize, "word store beyond 2^15 units");
        let mut d = c << CODE_SHIFT | (off >> self.unit_shift()) as u32;
        let per = 64 >> c;
        let pack = |c8: &[u8]| c8.iter().enumerate().fold(0u64, |w, (e, &v)| w | (v as u64) << ((e as u32) << c));
        if c <= 2 {
            let mut lp = [idx[0]; 16];
            let mut used = 1usize;
            let mut local = [0u8; 256];
            // sections hold runs of one id: look the slot up where the value changes only
            let (mut prev, mut k) = (idx[0], 0u8);
            for (o, &v) in local.iter_mut().zip(idx) {
                if v != prev {
                    prev = v;
                    k = match lp[..used].iter().position(|&e| e == v) {
                        Some(q) => q as u8,
                        None => {
                            lp[used] = v;
                            used += 1;
                            (used - 1) as u8
                        }
                    };
                }
                *o = k;
            }
            debug_assert!(used <= lp_slots(c));
            d |= self.put_palette(c, &lp[..used]);
            self.words.extend(local[..idx.len()].chunks_exact(per).map(pack));
        } else {
            self.words.extend(
                idx.chunks_exact(per)
                    .map(|w| w.iter().enumerate().fold(0u64, |a, (e, &v)| a | (v as u64) << ((e as u32) << c))),
            );
        }
        d
    }

    /// Chunk-palette indices of section `s` into `out` (`sec_len` long).
    fn section_indices(&self, s: usize, out: &mut [u16]) {
        let Some(&d) = self.secs.get(s) else {
            out.fill(0);
            return;
        };
        let c = d >> CODE_SHIFT;
        if c == UNIFORM_CODE {
            out.fill((d & 0xffff) as u16);
            return;
        }
        let off = self.word_off(d);
        let per = 64 >> c;
        let mask = (1u64 << (1 << c)) - 1;
        let local = c <= 2;
        let lp = if local { self.local_palette(d) } else { [0; 16] };
        for (k, o) in out.chunks_exact_mut(per).enumerate() {
            let mut w = self.words[off + k];
            for v in o.iter_mut() {
                let x = (w & mask) as usize;
                *v = if local { lp[x] } else { x as u16 };
                w >>= 1 << c;
            }
        }
    }

    /// Ids of section `s` into `out` (`sec_len` long).
    fn section_ids(&self, s: usize, out: &mut [BlockId]) {
        let Some(&d) = self.secs.get(s) else {
            out.fill(self.pal.ids[0]);
            return;
        };
        let c = d >> CODE_SHIFT;
        if c == UNIFORM_CODE {
            out.fill(self.pal.ids[(d & 0xffff) as usize]);
            return;
        }
        let off = self.word_off(d);
        let per = 64 >> c;
        let mask = (1u64 << (1 << c)) - 1;
        let pal = &self.pal.ids;
        if c <= 2 {
            let mut lp = [BlockId::AIR; 16];
            for (e, &x) in lp.iter_mut().zip(self.local_palette(d).iter()).take(lp_slots(c)) {
                *e = pal[x as usize];
            }
            for (k, o) in out.chunks_exact_mut(per).enumerate() {
                let mut w = self.words[off + k];
                for v in o.iter_mut() {
                    *v = lp[(w & mask) as usize];
                    w >>= 1 << c;
                }
            }
        } else {
            for (k, o) in out.chunks_exact_mut(per).enumerate() {
                let mut w = self.words[off + k];
                for v in o.iter_mut() {
                    *v = pal[(w & mask) as usize];
                    w >>= 1 << c;
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
        (first >> CODE_SHIFT == UNIFORM_CODE && ds.iter().all(|&d| d == first))
            .then(|| self.pal.ids[(first & 0xffff) as usize])
    }

    /// If the whole chunk is stored as one id, that id.
    pub fn uniform_id(&self) -> Option<BlockId> {
        if self.secs.is_empty() {
            return Some(self.pal.ids[0]);
        }
        let first = self.secs[0];
        (first >> CODE_SHIFT == UNIFORM_CODE && self.secs.iter().all(|&d| d == first))
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
        let l = size.area().min(256);
        let (mut last_id, mut last_p) = (data[0], pal.find_or_push(data[0]));
        for (o, sec) in idx.chunks_exact_mut(l).zip(data.chunks_exact(l)) {
            // a section of one id (most of them) is a vectorised compare and fill
            if sec.iter().all(|&b| b == sec[0]) {
                if sec[0] != last_id {
                    (last_id, last_p) = (sec[0], pal.find_or_push(sec[0]));
                }
                o.fill(last_p);
                continue;
            }
            for (o, &b) in o.iter_mut().zip(sec) {
                if b != last_id {
                    (last_id, last_p) = (b, pal.find_or_push(b));
                }
                *o = last_p;
            }
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
            distinct.push(sec[0]);
            seen[sec[0] as usize] = true;
            let mut prev = sec[0];
            for &v in &sec[1..] {
                if v != prev {
                    prev = v;
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        distinct.push(v);
                    }
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
        self.secs.iter().filter(|&&d| d >> CODE_SHIFT == UNIFORM_CODE).count()
    }

    /// Storage bits: 16 per chunk-palette entry, 32 per section descriptor, 16 per slot-store
    /// slot, 64 per index word, 32 per reverse-lookup entry (see the module doc).
    pub fn storage_bits(&self) -> usize {
        16 * self.pal.ids.len()
            + 32 * self.secs.len()
            + 16 * self.slots.len()
            + 64 * self.words.len()
            + 32 * self.pal.rev.len()
    }

    /// [`storage_bits`](Self::storage_bits) per voxel.
    pub fn bits_per_voxel(&self) -> f64 {
        self.storage_bits() as f64 / self.len() as f64
    }

    /// Heap bytes held (capacities, not lengths).
    pub fn heap_bytes(&self) -> usize {
        2 * self.pal.ids.capacity()
            + 4 * self.pal.rev.capacity()
            + 4 * self.secs.capacity()
            + 2 * self.slots.capacity()
            + 8 * self.words.capacity()
    }

    /// Raw parts, as the byte format stores them (call [`compact`](Self::compact) first: only
    /// garbage-free parts pass [`from_raw_parts`](Self::from_raw_parts)): the chunk palette;
    /// the section descriptors (empty for a uniform chunk; layout in the module doc); the slot
    /// store (`u16` chunk-palette indices, groups of 4); the index words.
    pub fn raw_parts(&self) -> (&[BlockId], &[u32], &[u16], &[u64]) {
        (&self.pal.ids, &self.secs, &self.slots, &self.words)
    }

    /// Rebuilds from raw parts, validating everything (never panics): palette 1..=min(65536,
    /// volume) distinct ids; no sections (then a palette of one and empty stores) or exactly
    /// `volume / sec_len` of them; kind codes 0–4 or 7 (8 bits only with a palette of at most
    /// 256); uniform indices inside the palette, unused descriptor bits 0; index words of the
    /// packed sections tiling the words exactly, each once, and slot-store groups of the local
    /// palettes not inline tiling the slot store likewise; local palettes of distinct used slots
    /// inside the palette then unused ones repeating the last used slot; every packed index
    /// addressing a used slot or a palette entry. Non-canonical
    /// parts that pass (unused palette entries, wider sections, palettes in the store that would
    /// fit inline) are kept as given.
    pub fn from_raw_parts(
        size: ChunkSize,
        palette: Vec<BlockId>,
        secs: Vec<u32>,
        slots: Vec<u16>,
        words: Vec<u64>,
    ) -> Result<Self> {
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
            if n != 1 || !slots.is_empty() || !words.is_empty() {
                return corrupt(format!(
                    "no sections but a palette of {n}, {} local-palette slots and {} words",
                    slots.len(),
                    words.len()
                ));
            }
            return Ok(s);
        }
        if secs.len() != s.sections() {
            return corrupt(format!("{} section descriptors, expected {}", secs.len(), s.sections()));
        }
        if !slots.len().is_multiple_of(4) {
            return corrupt(format!("{} local-palette slots, not whole groups of 4", slots.len()));
        }
        // (start, length, section) of the index words and of the slot-store groups.
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        let mut groups: Vec<(usize, usize, usize)> = Vec::new();
        for (k, &d) in secs.iter().enumerate() {
            let c = d >> CODE_SHIFT;
            if c == UNIFORM_CODE {
                if d & !UNIFORM > 0xffff || (d & 0xffff) as usize >= n {
                    return corrupt(format!("section {k}: uniform descriptor {d:#x} outside a palette of {n}"));
                }
                continue;
            }
            if c > 4 || (c == 3 && n > 256) {
                return corrupt(format!("section {k}: kind code {c} not allowed with a palette of {n}"));
            }
            let field = (d >> LP_SHIFT) & LP_MASK;
            if c >= 3 && (d & INLINE != 0 || field != 0) {
                return corrupt(format!("section {k}: direct descriptor {d:#x} with a local-palette field"));
            }
            if c == 2 && d & INLINE != 0 {
                return corrupt(format!("section {k}: a 16-slot local palette cannot be inline ({d:#x})"));
            }
            if d & INLINE != 0 && field >> (lp_slots(c) as u32 * inline_bits(c)) != 0 {
                return corrupt(format!("section {k}: inline slots {field:#x} use bits beyond their slots"));
            }
            spans.push((s.word_off(d), s.idx_words(c), k));
            if c <= 2 && d & INLINE == 0 {
                groups.push((field as usize, lp_groups(c), k));
            }
        }
        for (list, total, what) in [(&mut spans, words.len(), "words"), (&mut groups, slots.len() / 4, "slot groups")] {
            list.sort_unstable();
            let mut at = 0usize;
            for &(off, len, k) in list.iter() {
                if off != at {
                    return corrupt(format!(
                        "section {k}: {what} at {off}, expected {at} (the sections must tile the {what})"
                    ));
                }
                at += len;
            }
            if at != total {
                return corrupt(format!("{total} {what} but the sections use {at}"));
            }
        }
        s.secs = secs;
        s.slots = slots;
        s.words = words;
        for &(off, _, k) in &spans {
            let d = s.secs[k];
            let c = d >> CODE_SHIFT;
            let limit = if c <= 2 {
                let inline = d & INLINE != 0;
                let lp = s.local_palette(d);
                let total = if inline { lp_slots(c) } else { 4 * lp_groups(c) };
                let store: Vec<u16> = if inline {
                    lp[..total].to_vec()
                } else {
                    let g = ((d >> LP_SHIFT) & LP_MASK) as usize * 4;
                    s.slots[g..g + total].to_vec()
                };
                let used = used_slots(&store[..lp_slots(c)]);
                let rest = store[used - 1];
                if let Some(q) = (0..used).find(|&q| store[q] as usize >= n || store[..q].contains(&store[q])) {
                    return corrupt(format!(
                        "section {k}: local palette slot {q} ({}) is repeated or outside a palette of {n}",
                        store[q]
                    ));
                }
                if let Some(q) = (used..total).find(|&q| store[q] != rest) {
                    return corrupt(format!(
                        "section {k}: unused local palette slot {q} holds {}, expected {rest}",
                        store[q]
                    ));
                }
                used
            } else {
                n
            };
            for j in 0..s.sec_len() {
                let v = s.read(off << 6, c, j);
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
            let want: Vec<BlockId> = (0..s.volume()).map(|i| BlockId((1 + i % 400) as u16)).collect();
            for sec in 0..p.sections() {
                for j in 0..l {
                    p.set(sec * l + j, want[sec * l + j]);
                }
            }
            let words = (p.storage_bits() - 16 * p.palette().len() - 32 * p.sections() - 32 * 400) / 64;
            assert!((words as f64) < 0.6 * s.volume() as f64, "{} words for {} voxels", words, s.volume());
            assert!(p.words.len() >> p.unit_shift() <= 31 * p.sections());
            assert!(p.slots.len() / 4 <= 6 * p.sections());
            assert_eq!(p.bits(), 16);
            assert_eq!(p.to_dense_vec(), want);
            p.compact();
            assert_eq!(p.to_dense_vec(), want);
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

    /// Sections at each kind code (0–4) and how many local ones are inline.
    fn shape(p: &PalettedBlocks) -> ([usize; 5], usize) {
        let mut by = [0usize; 5];
        for &d in &p.secs {
            if d >> CODE_SHIFT != UNIFORM_CODE {
                by[(d >> CODE_SHIFT) as usize] += 1;
            }
        }
        (by, p.secs.iter().filter(|&&d| d & INLINE != 0).count())
    }

    /// Stratified terrain in a 32³ chunk, the shape of the benchmark chunks that went over 1
    /// bit/voxel while every local palette took a word of its own: a bumpy surface around y =
    /// `base` crossing many 32 × 8 sections, stone below `h - 3`, dirt, grass on top (sand at
    /// the shore), water up to y = 12 over low ground, and `trees` trees (wood trunks of 4–6,
    /// leaf balls of radius 2) standing on the grass.
    fn stratified(base: f64, amp: f64, trees: usize) -> Vec<BlockId> {
        const E: usize = 32;
        let (stone, dirt, grass, sand, water, wood, leaves) =
            (BlockId(1), BlockId(2), BlockId(3), BlockId(4), BlockId(5), BlockId(6), BlockId(7));
        let sea = 12i32;
        let mut v = vec![BlockId::AIR; E * E * E];
        let at = |x: usize, y: i32, z: usize| x + E * (z + E * y as usize);
        let mut hs = vec![0i32; E * E];
        for z in 0..E {
            for x in 0..E {
                let (fx, fz) = (x as f64, z as f64);
                let bump = ((x * 7 + z * 13) % 5 == 0) as i32;
                let h = (base + amp * (0.5 * (fx / 5.0).sin() * (fz / 7.0).cos() + 0.3 * ((fx + 2.0 * fz) / 4.0).sin()))
                    .round() as i32
                    + bump;
                let h = h.clamp(4, 24);
                hs[x + E * z] = h;
                for y in 0..E as i32 {
                    v[at(x, y, z)] = if y < h - 3 {
                        stone
                    } else if y < h {
                        dirt
                    } else if y == h {
                        if h <= sea + 1 {
                            sand
                        } else {
                            grass
                        }
                    } else if y <= sea {
                        water
                    } else {
                        BlockId::AIR
                    };
                }
            }
        }
        let mut st = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |m: usize| {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            (st % m as u64) as usize
        };
        let mut planted = 0;
        while planted < trees {
            let (x, z) = (2 + rnd(E - 4), 2 + rnd(E - 4));
            let h = hs[x + E * z];
            if h <= sea + 1 {
                continue;
            }
            planted += 1;
            let top = h + 4 + rnd(3) as i32;
            for y in h + 1..=top.min(E as i32 - 1) {
                v[at(x, y, z)] = wood;
            }
            for dy in -2i32..=2 {
                for dz in -2i32..=2 {
                    for dx in -2i32..=2 {
                        let (lx, ly, lz) = (x as i32 + dx, top + dy, z as i32 + dz);
                        let inside =
                            (0..E as i32).contains(&lx) && (0..E as i32).contains(&ly) && (0..E as i32).contains(&lz);
                        if inside && dx * dx + dy * dy + dz * dz <= 5 && v[at(lx as usize, ly, lz as usize)].is_air() {
                            v[at(lx as usize, ly, lz as usize)] = leaves;
                        }
                    }
                }
            }
        }
        v
    }

    #[test]
    fn stratified_terrain_at_most_one_bit() {
        // Thin sections of 2-4 kinds (35-75 of the 128), a few of 5-8 where trees meet the
        // ground, like the benchmark's worst chunks (12 1-bit, 42 2-bit, 2 4-bit sections). Each
        // inline section costs its descriptor and its index words only; with every 1- or 2-bit
        // local palette in a word of its own (the layout before inline palettes), 64 bits more
        // each: over 1 bit/voxel on every case here. (Bumpier ground under denser trees, with
        // 10 or more sections of 5-16 kinds at 4 bits, can still pass 1 bit.)
        for (base, amp, trees) in [(13.0, 8.0, 0), (13.0, 5.0, 4), (14.0, 4.0, 6), (15.0, 4.0, 6), (16.0, 4.0, 6)] {
            let dense = stratified(base, amp, trees);
            let p = PalettedBlocks::from_dense(ChunkSize::S32, &dense).unwrap();
            assert_eq!(p.to_dense_vec(), dense);
            let (by, inline) = shape(&p);
            let before = (p.storage_bits() + 64 * inline) as f64 / p.len() as f64;
            println!(
                "base {base} amp {amp} trees {trees}: {} kinds, {} uniform, 1/2/4/8/16-bit {by:?}, {inline} inline; \
                 {:.3} bits/voxel ({before:.3} with local palettes in words)",
                p.palette().len(),
                p.uniform_sections(),
                p.bits_per_voxel()
            );
            assert!(by[0] + by[1] >= 35 && by[2] <= 7 && by[3] + by[4] == 0, "section shapes {by:?}");
            assert_eq!(inline, by[0] + by[1], "every 1-/2-bit palette inline with {} kinds", p.palette().len());
            assert!(before > 1.0, "base {base} amp {amp} trees {trees}: {before} before inline palettes");
            assert!(p.bits_per_voxel() <= 1.0, "base {base} amp {amp} trees {trees}: {}", p.bits_per_voxel());
        }
    }

    #[test]
    fn inline_boundaries_and_exact_storage() {
        // Chunk-palette index v is BlockId(100 + v) (first appearance in section 0).
        let s = ChunkSize::S32;
        let k = |v: u16| BlockId(100 + v);
        let mut dense = vec![k(0); s.volume()];
        for v in 0..80u16 {
            dense[v as usize] = k(v); // section 0: 80 kinds, direct 8-bit
        }
        let mut put = |sec: usize, kinds: &[u16]| {
            for (j, d) in dense[sec * 256..(sec + 1) * 256].iter_mut().enumerate() {
                *d = k(kinds[j % kinds.len()]);
            }
        };
        put(1, &[62, 63]); // 1-bit, both below 64: inline
        put(2, &[63, 64]); // 1-bit, 64 does not fit 6 bits: one slot-store group
        put(3, &[5, 6, 7]); // 2-bit, all below 8: inline
        put(4, &[6, 7, 8]); // 2-bit, 8 does not fit 3 bits: one group
        put(5, &[1, 2, 3, 4, 5]); // 4-bit: always 4 groups
        let p = PalettedBlocks::from_dense(s, &dense).unwrap();
        assert_eq!(p.palette().len(), 80);
        let (pal, secs, slots, words) = p.raw_parts();
        let inline: Vec<bool> = secs[1..6].iter().map(|&d| d & INLINE != 0).collect();
        assert_eq!(inline, [true, false, true, false, false]);
        assert_eq!(secs[1..6].iter().map(|&d| d >> CODE_SHIFT).collect::<Vec<_>>(), [0, 0, 1, 1, 2]);
        assert!(secs[6..].iter().all(|&d| d == UNIFORM));
        // index words 32 + 4 + 4 + 8 + 8 + 16; slots 4 + 4 + 16 (unused ones repeat the last)
        assert_eq!(words.len(), 72);
        assert_eq!(slots, [63, 64, 64, 64, 6, 7, 8, 8, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]);
        assert_eq!(p.storage_bits(), 16 * 80 + 32 * 128 + 64 * 72 + 16 * 24 + 32 * 80);
        // the same contents voxel by voxel, then compacted: the same representation
        let mut q = PalettedBlocks::new(s);
        for (i, &b) in dense.iter().enumerate() {
            q.set(i, b);
        }
        q.compact();
        assert_eq!(q.raw_parts(), p.raw_parts());
        let r = PalettedBlocks::from_raw_parts(s, pal.to_vec(), secs.to_vec(), slots.to_vec(), words.to_vec()).unwrap();
        assert_eq!(r.to_dense_vec(), dense);

        // Growth: an inline 2-bit palette that receives index 8 moves to the slot store (one
        // group, 64 bits) and keeps its index words; a slot-store palette fills its unused
        // slots in place.
        let mut g = PalettedBlocks::new(s);
        for v in 1..=9u16 {
            g.set(300 + v as usize, k(v)); // section 1: air + 9 kinds, palette 0..=9
        }
        g.set(0, k(1));
        g.set(1, k(2)); // section 0: air, k(1), k(2) at indices 0, 1, 2: 2-bit inline
        assert_eq!((g.secs[0] >> CODE_SHIFT, g.secs[0] & INLINE), (1, INLINE));
        let (bits, nw) = (g.storage_bits(), g.words.len());
        g.set(2, k(8)); // palette index 8: does not fit 3 bits
        assert_eq!((g.secs[0] >> CODE_SHIFT, g.secs[0] & INLINE), (1, 0));
        assert_eq!((g.storage_bits(), g.words.len()), (bits + 64, nw));
        assert_eq!(&g.slots[g.slots.len() - 4..], [1, 0, 2, 8]);
        for (i, w) in [k(1), k(2), k(8), BlockId::AIR].iter().enumerate() {
            assert_eq!(g.get(i), *w);
        }
        g.set(3, k(3)); // fifth kind: widened to 4 bits (16 index words, 4 groups)
        assert_eq!(g.secs[0] >> CODE_SHIFT, 2);
        assert_eq!((g.storage_bits(), g.words.len()), (bits + 64 + 64 * 16 + 64 * 4, nw + 16));
        for (i, w) in [k(1), k(2), k(8), k(3), BlockId::AIR].iter().enumerate() {
            assert_eq!(g.get(i), *w);
        }
        let mut h = PalettedBlocks::new(s);
        for v in 1..=9u16 {
            h.set(300 + v as usize, k(v));
        }
        h.set(0, k(8)); // 1-bit [0, 8]: inline (8 < 64)
        assert_ne!(h.secs[0] & INLINE, 0);
        h.set(1, k(9)); // widened to 2 bits with [8, 0, 9]: in the store
        assert_eq!((h.secs[0] >> CODE_SHIFT, h.secs[0] & INLINE), (1, 0));
        assert_eq!(&h.slots[h.slots.len() - 4..], [8, 0, 9, 9]);
        let bits = h.storage_bits();
        h.set(2, k(1)); // the fourth slot, in place
        assert_eq!(h.storage_bits(), bits);
        assert_eq!(&h.slots[h.slots.len() - 4..], [8, 0, 9, 1]);
        for (i, w) in [k(8), k(9), k(1), BlockId::AIR].iter().enumerate() {
            assert_eq!(h.get(i), *w);
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Set(usize, u16),
        /// Sets `len` voxels from an index (clamped to the chunk).
        Run(usize, usize, u16),
        Fill(u16),
        Compact,
    }

    /// Sets anywhere or crowded into the first 1024 voxels (a few sections driven through
    /// every width and both homes of their local palettes), runs of one id (partly uniform
    /// sections), fills and compactions.
    fn ops(volume: usize, kinds: u16) -> impl Strategy<Value = Vec<Op>> {
        let at = prop_oneof![3 => 0..volume, 2 => 0..1024usize];
        let op = prop_oneof![
            20 => (at.clone(), 0..kinds).prop_map(|(i, b)| Op::Set(i, b)),
            3 => (at, 1..300usize, 0..kinds).prop_map(|(i, n, b)| Op::Run(i, n, b)),
            1 => (0..kinds).prop_map(Op::Fill),
            2 => Just(Op::Compact),
        ];
        proptest::collection::vec(op, 0..400)
    }

    proptest! {
        // A fixed seed, so that CI is reproducible. A random run on 2026-12-05 found contents
        // where `compact` grew the storage by 128 bits (two sections whose inline slots could
        // no longer hold their ids once the palette was renumbered), past the bound of 64 this
        // test asserted then; the bound below is the one that holds, and that case is kept in
        // proptest-regressions/palette.txt (replayed first).
        #![proptest_config(ProptestConfig { rng_seed: proptest::test_runner::RngSeed::Fixed(20_261_205), ..ProptestConfig::with_cases(96) })]
        #[test]
        fn matches_dense(k in 0usize..3, kinds in prop_oneof![Just(2u16), Just(5), Just(12), Just(40), Just(70), Just(300)],
                         seq in ops(32768, 300)) {
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
                    Op::Run(i, n, b) => {
                        let (i, b) = (i % s.volume(), BlockId(b % kinds));
                        for (q, e) in d.iter_mut().enumerate().skip(i).take(n) {
                            p.set(q, b);
                            *e = b;
                        }
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
                // the stores stay within the descriptor fields (module doc's bounds)
                prop_assert!(p.words.len() >> p.unit_shift() <= 31 * p.sections());
                prop_assert!(p.slots.len().is_multiple_of(4) && p.slots.len() / 4 <= 6 * p.sections());
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
            // Compaction never widens a section nor keeps garbage, so it grows the storage only
            // where the canonical palette order moves a section's ids past what its inline slots
            // hold (6 or 3 bits a slot): one slot-store group, 64 bits, for each such section.
            let inline = p.secs.iter().filter(|&&d| d >> CODE_SHIFT <= 2 && d & (1 << 28) != 0).count();
            prop_assert!(c.words.len() <= p.words.len() && c.pal.ids.len() <= p.pal.ids.len());
            prop_assert!(
                c.storage_bits() <= p.storage_bits() + 64 * inline,
                "compact grew {} -> {} bits ({} inline sections before)", p.storage_bits(), c.storage_bits(), inline
            );
            let (pal, secs, slots, words) = c.raw_parts();
            let r = PalettedBlocks::from_raw_parts(s, pal.to_vec(), secs.to_vec(), slots.to_vec(), words.to_vec()).unwrap();
            prop_assert_eq!(r.to_dense_vec(), d);
        }
    }
}
