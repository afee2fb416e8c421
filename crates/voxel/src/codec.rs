//! The chunk byte format: one chunk (blocks, light, heights, biomes, state, position) as bytes.
//!
//! All integers little-endian. Version 2 (written; `L = min(256, s²)` voxels per section):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `BZVC` |
//! | 4 | 2 | format version (`u16`, 2) |
//! | 6 | 1 | chunk edge `s` (8, 16, 32 or 64) |
//! | 7 | 1 | state (0–9, pyworldgen's `ChunkState` numbers) |
//! | 8 | 12 | chunk position x, y, z (`i32` each; within the range of the edge) |
//! | 20 | 1 | light mode (0: one level for the chunk, 1: by sections of 256 voxels) |
//! | 21 | 3 | reserved, 0 |
//! | 24 | 4 | palette length `p` (`u32`, 1 ..= min(65536, s³)) |
//! | 28 | 2p | chunk palette: block ids (`u16`), distinct |
//! | … | 4 | section count `n`: 0 (the chunk is `palette[0]` throughout; then `p` = 1 and both stores are empty) or `s³ / L` |
//! | … | 4n | section descriptors (`u32`), voxels `k*L .. (k+1)*L`: kind code `c` in bits 29–31. `c` = 7: uniform, palette index in bits 0–15, bits 16–28 zero. `c` = 0–4: packed at `b = 2^c` bits per voxel, the offset of its index words in bits 0–14 in units of `L/64` words; `c` = 0–2 (local palette of 2, 4 or 16 slots holding palette indices): bit 28 set → the slots inline in bits 15–27, slot `k` at bit `15 + k·(6 >> c)` (6 bits each for 2 slots, 3 bits for 4; 16 slots are never inline), higher bits zero; bit 28 clear → its first group in the slot store in bits 15–27; `c` = 3–4 (direct: indices into the chunk palette; 8 bits only with `p` ≤ 256): bits 15–28 zero |
//! | … | 4 | slot count `q` (`u32`, a multiple of 4, at most `16 n`) |
//! | … | 2q | slot store (`u16` palette indices), groups of 4: each local palette not inline takes 1 group (2 or 4 slots) or 4 (16 slots). A local palette, inline or not, is its distinct used slots, then unused slots (and a 2-slot palette's padding) equal to the last used slot. The groups of the sections tile the store exactly |
//! | … | 4 | word count `w` (`u32`, at most `s³ / 4`) |
//! | … | 8w | index words (`u64`): voxel `j` of a section in bits `(j mod 64/b)*b ..` of word `j / (64/b)` from its offset; a local section's indices address its used slots, a direct one's the chunk palette. The sections' `L·b/64` words tile the words exactly |
//! | … | 1, or s³/256 + 128k | light. Mode 0: the level (0–15). Mode 1: one descriptor byte per section of 256 voxels (a level 0–15 for a uniform section, 16 for a packed one), then 128 bytes for each of the `k` packed sections in order, voxel `j` of the section in the low nibble of byte `j/2` when `j` is even |
//! | … | 2s² | heightmap (`i16` per column, `x + s*z`) |
//! | … | s² | biomes (`u8` per column) |
//!
//! Nothing follows. Dirty flags are not stored (a decoded chunk is clean).
//!
//! Version 1 (read, never written) is the same without the slot count and slot store, and with
//! its own descriptors and words: a descriptor with bit 31 set is uniform (palette index in
//! bits 0–15, bits 16–30 zero); else width code `c` (bits per voxel `2^c`, 0–4) in bits 28–30
//! and the section's offset in words in bits 0–27. A section of width 1, 2 or 4 starts with its
//! local palette (2, 4 or 16 `u16` slots, 4 per word from the low bits, unused slots `0xFFFF`
//! after the used ones; 1, 1 or 4 words), then its indices; width 8 or 16: indices into the
//! chunk palette. Sections tile the words exactly. Decoding a version 1 chunk gives the same
//! contents in the canonical representation (so it re-encodes as version 2).
//!
//! Decoding validates everything and never panics: magic, version (an unknown version names
//! it and the versions read), every length against what is left before reading or allocating
//! (truncation names the field and offset), the edge, the state, the chunk range, each section
//! descriptor (kind, width against the palette, unused bits), the stores' tiling by the
//! sections, each local palette, every packed index against its palette, light levels,
//! reserved bytes, trailing bytes. Allocation is bounded by the edge (at most about 2 MiB for a
//! 64³ chunk, version 1's conversion included), never by a length read from the bytes.
//!
//! Determinism: the encoder writes the canonical form (it compacts a copy of the blocks and the
//! light, see [`PalettedBlocks::compact`](crate::palette::PalettedBlocks::compact)), so chunks
//! of equal contents, position and state encode to equal bytes.

use crate::block::BlockId;
use crate::chunk::{Chunk, ChunkState, LightStorage, MAX_LIGHT};
use crate::coords::{ChunkPos, ChunkSize};
use crate::error::{Result, VoxelError};
use crate::palette::PalettedBlocks;

/// The format's magic bytes.
pub const MAGIC: [u8; 4] = *b"BZVC";
/// The format version this build writes (and the newest it reads).
pub const VERSION: u16 = 2;
/// The oldest format version this build reads.
pub const OLDEST_VERSION: u16 = 1;

/// Encodes `chunk` (see the module doc for the layout).
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let size = chunk.size();
    let mut blocks = chunk.blocks().clone();
    blocks.compact();
    let (palette, secs, slots, words) = blocks.raw_parts();
    let mut light = chunk.light().clone();
    light.compact();
    let (light_desc, light_blocks) =
        if light.uniform_level().is_some() { (Vec::new(), Vec::new()) } else { light.section_bytes() };
    let cap = 32
        + 2 * palette.len()
        + 4 * secs.len()
        + 4
        + 2 * slots.len()
        + 4
        + 8 * words.len()
        + 1
        + light_desc.len()
        + light_blocks.len()
        + 3 * size.area();
    let mut out = Vec::with_capacity(cap);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(size.edge() as u8);
    out.push(chunk.state.as_u8());
    for v in [chunk.coord.x, chunk.coord.y, chunk.coord.z] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(if light.uniform_level().is_some() { 0 } else { 1 });
    out.extend_from_slice(&[0, 0, 0]);
    out.extend_from_slice(&(palette.len() as u32).to_le_bytes());
    for b in palette {
        out.extend_from_slice(&b.0.to_le_bytes());
    }
    out.extend_from_slice(&(secs.len() as u32).to_le_bytes());
    for d in secs {
        out.extend_from_slice(&d.to_le_bytes());
    }
    out.extend_from_slice(&(slots.len() as u32).to_le_bytes());
    for q in slots {
        out.extend_from_slice(&q.to_le_bytes());
    }
    out.extend_from_slice(&(words.len() as u32).to_le_bytes());
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    match light.uniform_level() {
        Some(l) => out.push(l),
        None => {
            out.extend_from_slice(&light_desc);
            out.extend_from_slice(&light_blocks);
        }
    }
    for h in chunk.heightmap() {
        out.extend_from_slice(&h.to_le_bytes());
    }
    out.extend_from_slice(chunk.biomes());
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, field: &'static str, n: usize) -> Result<&'a [u8]> {
        let available = self.bytes.len() - self.at;
        if n > available {
            return Err(VoxelError::Truncated { field, needed: n, offset: self.at, available });
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self, field: &'static str) -> Result<u8> {
        Ok(self.take(field, 1)?[0])
    }
    fn u16(&mut self, field: &'static str) -> Result<u16> {
        let s = self.take(field, 2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, field: &'static str) -> Result<u32> {
        let s = self.take(field, 4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    /// `n` items of `width` bytes each, the length checked before anything is allocated.
    fn items(&mut self, field: &'static str, n: usize, width: usize) -> Result<&'a [u8]> {
        let len = n.checked_mul(width).ok_or(VoxelError::Truncated {
            field,
            needed: usize::MAX,
            offset: self.at,
            available: self.bytes.len() - self.at,
        })?;
        self.take(field, len)
    }
}

/// Decodes a chunk (see the module doc for the layout and the checks). Never panics.
pub fn decode_chunk(bytes: &[u8]) -> Result<Chunk> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take("magic", 4)?;
    if magic != MAGIC {
        return Err(VoxelError::BadMagic { found: [magic[0], magic[1], magic[2], magic[3]], expected: MAGIC });
    }
    let version = r.u16("format version")?;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(VoxelError::UnsupportedVersion { found: version, oldest: OLDEST_VERSION, newest: VERSION });
    }
    let size = ChunkSize::new(r.u8("chunk edge")? as u32)?;
    let state_byte = r.u8("state")?;
    let state = ChunkState::from_u8(state_byte)
        .ok_or_else(|| VoxelError::Corrupt(format!("chunk state {state_byte} is not one of 0..=9")))?;
    let c = r.take("chunk position", 12)?;
    let coord = ChunkPos::new(
        i32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        i32::from_le_bytes([c[4], c[5], c[6], c[7]]),
        i32::from_le_bytes([c[8], c[9], c[10], c[11]]),
    );
    coord.check_range(size)?;
    let light_mode = r.u8("light mode")?;
    if light_mode > 1 {
        return Err(VoxelError::Corrupt(format!("light mode {light_mode} is not 0 or 1")));
    }
    let reserved = r.take("reserved", 3)?;
    if reserved != [0, 0, 0] {
        return Err(VoxelError::Corrupt(format!("reserved bytes are {reserved:?}, expected 0")));
    }
    let plen = r.u32("palette length")? as usize;
    let pmax = size.volume().min(65536);
    if plen == 0 || plen > pmax {
        return Err(VoxelError::Corrupt(format!("palette length {plen} outside 1..={pmax}")));
    }
    let palette: Vec<BlockId> =
        r.items("palette", plen, 2)?.chunks_exact(2).map(|b| BlockId(u16::from_le_bytes([b[0], b[1]]))).collect();
    let nsec = r.u32("section count")? as usize;
    let full = size.volume() / size.area().min(256);
    if nsec != 0 && nsec != full {
        return Err(VoxelError::Corrupt(format!("section count {nsec} is neither 0 nor {full}")));
    }
    let secs: Vec<u32> = r
        .items("section descriptors", nsec, 4)?
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut slots = Vec::new();
    if version >= 2 {
        let qlen = r.u32("slot count")? as usize;
        let qmax = 16 * full; // a 16-slot local palette in the store for every section
        if qlen > qmax {
            return Err(VoxelError::Corrupt(format!(
                "slot count {qlen} exceeds {qmax} for a chunk of edge {}",
                size.edge()
            )));
        }
        slots = r.items("slot store", qlen, 2)?.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
    }
    let wlen = r.u32("word count")? as usize;
    let wmax = size.volume() / 4; // 16-bit indices for every voxel
    if wlen > wmax {
        return Err(VoxelError::Corrupt(format!(
            "word count {wlen} exceeds {wmax} for a chunk of edge {}",
            size.edge()
        )));
    }
    let words: Vec<u64> = r
        .items("packed indices", wlen, 8)?
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    let blocks = if version == 1 {
        blocks_v1(size, palette, &secs, &words)?
    } else {
        PalettedBlocks::from_raw_parts(size, palette, secs, slots, words)?
    };
    let light = if light_mode == 0 {
        let l = r.u8("light level")?;
        if l > MAX_LIGHT {
            return Err(VoxelError::Corrupt(format!("light level {l} above {MAX_LIGHT}")));
        }
        LightStorage::uniform(size.volume(), l)
    } else {
        let nsec = size.volume() / 256;
        let desc = r.items("light sections", nsec, 1)?;
        let packed = desc.iter().filter(|&&d| d == 16).count();
        let blocks = r.items("light nibbles", packed, 128)?;
        LightStorage::from_section_bytes(size.volume(), desc, blocks)?
    };
    let heightmap: Vec<i16> =
        r.items("heightmap", size.area(), 2)?.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
    let biomes = r.items("biomes", size.area(), 1)?.to_vec();
    if r.at != bytes.len() {
        return Err(VoxelError::TrailingBytes(bytes.len() - r.at));
    }
    Chunk::from_parts(coord, state, blocks, biomes, heightmap, light)
}

/// Version 1's blocks (module doc), validated as version 1's decoder did, as their contents in
/// the canonical representation.
fn blocks_v1(size: ChunkSize, palette: Vec<BlockId>, secs: &[u32], words: &[u64]) -> Result<PalettedBlocks> {
    let corrupt = |m: String| Err(VoxelError::Corrupt(m));
    let n = palette.len();
    let mut sorted = palette.clone();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return corrupt("palette holds a block id twice".into());
    }
    if secs.is_empty() {
        if n != 1 || !words.is_empty() {
            return corrupt(format!("no sections but a palette of {n} and {} words", words.len()));
        }
        return Ok(PalettedBlocks::uniform(size, palette[0]));
    }
    let l = size.area().min(256);
    let mut dense = vec![palette[0]; size.volume()];
    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    for ((k, &d), out) in secs.iter().enumerate().zip(dense.chunks_exact_mut(l)) {
        if d & (1 << 31) != 0 {
            let p = (d & 0xffff) as usize;
            if d & 0x7fff_0000 != 0 || p >= n {
                return corrupt(format!("section {k}: uniform descriptor {d:#x} outside a palette of {n}"));
            }
            out.fill(palette[p]);
            continue;
        }
        let c = d >> 28;
        if c > 4 || (c == 3 && n > 256) {
            return corrupt(format!("section {k}: width code {c} not allowed with a palette of {n}"));
        }
        let b = 1usize << c;
        let lp_words = match c {
            0 | 1 => 1,
            2 => 4,
            _ => 0,
        };
        let off = (d & ((1 << 28) - 1)) as usize;
        let len = lp_words + l * b / 64;
        spans.push((off, len, k));
        let Some(sec) = words.get(off..off + len) else {
            return corrupt(format!("section {k}: words {off}..{} beyond the {} words", off + len, words.len()));
        };
        let mut lp = Vec::new();
        if lp_words > 0 {
            let mut free = false;
            for q in 0..(1usize << b) {
                let e = (sec[q / 4] >> (16 * (q % 4))) as u16;
                if e == u16::MAX {
                    free = true;
                    continue;
                }
                if free || e as usize >= n || lp.contains(&palette[e as usize]) {
                    return corrupt(format!(
                        "section {k}: local palette slot {q} ({e}) is out of order, repeated or outside a palette of {n}"
                    ));
                }
                lp.push(palette[e as usize]);
            }
            if lp.is_empty() {
                return corrupt(format!("section {k}: empty local palette"));
            }
        }
        let ids: &[BlockId] = if lp_words > 0 { &lp } else { &palette };
        let (per, mask) = (64 / b, (1u64 << b) - 1);
        for (j, o) in out.iter_mut().enumerate() {
            let v = ((sec[lp_words + j / per] >> ((j % per) * b)) & mask) as usize;
            match ids.get(v) {
                Some(&id) => *o = id,
                None => return corrupt(format!("section {k}: voxel {j} has index {v}, beyond {} entries", ids.len())),
            }
        }
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
    if at != words.len() {
        return corrupt(format!("{} words but the sections use {at}", words.len()));
    }
    PalettedBlocks::from_dense(size, &dense)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coords::LocalPos;
    use proptest::prelude::*;

    fn sample(size: ChunkSize, seed: u64, kinds: u16, lit: bool) -> Chunk {
        let mut c = Chunk::new(ChunkPos::new(-3, 7, i32::MIN >> size.shift()), size).unwrap();
        let mut st = seed | 1;
        let mut rnd = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st
        };
        let e = size.edge();
        for _ in 0..(size.volume() / 8) {
            let v = rnd();
            let l =
                LocalPos::new((v % e as u64) as u32, ((v >> 8) % e as u64) as u32, ((v >> 16) % e as u64) as u32, size)
                    .unwrap();
            c.set(l, BlockId(((v >> 24) % kinds as u64) as u16 * 37));
        }
        if lit {
            for i in 0..size.volume() / 3 {
                c.set_light(i * 3, (rnd() % 16) as u8);
            }
        } else {
            c.fill_light(15);
        }
        for h in c.heightmap_mut() {
            *h = rnd() as i16;
        }
        for b in c.biomes_mut() {
            *b = rnd() as u8;
        }
        c.state = ChunkState::CavesGenerated;
        c
    }

    #[test]
    fn round_trips() {
        for (k, size) in [ChunkSize::S8, ChunkSize::S16, ChunkSize::S32].into_iter().enumerate() {
            for (kinds, lit) in [(1, false), (2, true), (5, false), (300, true)] {
                let mut c = sample(size, 7 + k as u64, kinds, lit);
                let bytes = encode_chunk(&c);
                let d = decode_chunk(&bytes).unwrap();
                c.dirty = Default::default();
                assert_eq!(d, c);
                // compacting both sides gives equal bytes
                let mut a = c.clone();
                a.compact();
                let mut b = d;
                b.compact();
                assert_eq!(encode_chunk(&a), encode_chunk(&b));
                assert_eq!(decode_chunk(&encode_chunk(&a)).unwrap(), a);
            }
        }
    }

    #[test]
    fn equal_contents_equal_bytes() {
        // one chunk built voxel by voxel with overwrites (palette garbage, widened sections),
        // the other from a dense buffer: same bytes
        let s = ChunkSize::S16;
        let mut a = Chunk::new(ChunkPos::new(2, -1, 5), s).unwrap();
        let mut dense = vec![BlockId::AIR; s.volume()];
        for (i, d) in dense.iter_mut().enumerate() {
            let b = BlockId((i * 31 % 23) as u16);
            a.set_index(i, BlockId(999));
            a.set_index(i, b);
            *d = b;
        }
        for i in (0..s.volume()).step_by(5) {
            a.set_index(i, BlockId(3));
            dense[i] = BlockId(3);
        }
        let mut b = Chunk::new(ChunkPos::new(2, -1, 5), s).unwrap();
        b.set_dense(&dense).unwrap();
        a.fill_light(7);
        b.set_light_dense(&vec![7; s.volume()]).unwrap();
        assert_eq!(encode_chunk(&a), encode_chunk(&b));
        // a uniform chunk has no sections: a small fixed size
        let u = Chunk::new(ChunkPos::new(0, 0, 0), ChunkSize::S64).unwrap();
        assert_eq!(encode_chunk(&u).len(), 28 + 2 + 4 + 4 + 4 + 1 + 3 * 64 * 64);
    }

    #[test]
    fn errors_name_the_problem() {
        let c = sample(ChunkSize::S8, 3, 5, true);
        let good = encode_chunk(&c);
        let mut b = good.clone();
        b[0] = b'X';
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("magic"));
        let mut b = good.clone();
        b[4] = 9;
        let e = decode_chunk(&b).unwrap_err().to_string();
        assert!(e.contains("version 9") && e.contains("versions 1 to 2"), "{e}");
        let mut b = good.clone();
        b[6] = 12;
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("12"));
        let e = decode_chunk(&good[..good.len() - 1]).unwrap_err().to_string();
        assert!(e.contains("biomes") && e.contains("truncated"), "{e}");
        let mut b = good.clone();
        b.push(0);
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("trailing"));
        let mut b = good.clone();
        b[7] = 10;
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("state 10"));
        // an index beyond a section's local palette: all ones in the first index word of the
        // first local section with fewer kinds than slots (64-voxel sections: 1 word a unit)
        let mut blocks = c.blocks().clone();
        blocks.compact();
        let dense = blocks.to_dense_vec();
        let (pal, secs, slots, _) = blocks.raw_parts();
        assert_eq!(pal.len(), 5);
        let (k, d) = secs
            .iter()
            .enumerate()
            .find(|&(k, &d)| {
                let mut kinds = dense[64 * k..64 * (k + 1)].to_vec();
                kinds.sort_unstable();
                kinds.dedup();
                d >> 29 <= 2 && kinds.len() < 1 << (1 << (d >> 29))
            })
            .unwrap();
        let off = (d & 0x7fff) as usize;
        let words_at = 28 + 2 * pal.len() + 4 + 4 * secs.len() + 4 + 2 * slots.len() + 4;
        let mut b = good.clone();
        let at = words_at + 8 * off;
        b[at..at + 8].copy_from_slice(&[0xff; 8]);
        let e = decode_chunk(&b).unwrap_err().to_string();
        assert!(e.contains(&format!("section {k}")) && e.contains("beyond"), "{e}");
        // a slot count beyond 16 per section
        let mut b = good.clone();
        let at = 28 + 2 * pal.len() + 4 + 4 * secs.len();
        b[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
        let e = decode_chunk(&b).unwrap_err().to_string();
        assert!(e.contains("slot count 1000"), "{e}");
        // a section kind code that is not 0-4 or 7
        let mut b = good.clone();
        let at = 28 + 2 * pal.len() + 4 + 4 * k;
        b[at..at + 4].copy_from_slice(&(5u32 << 29).to_le_bytes());
        let e = decode_chunk(&b).unwrap_err().to_string();
        assert!(e.contains(&format!("section {k}: kind code 5")), "{e}");
        // chunk out of range for the edge
        let mut b = good.clone();
        b[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("out of range"));
        assert!(decode_chunk(&[]).is_err());
        // a palette holding an id twice
        let mut b = good.clone();
        b[30..32].copy_from_slice(&good[28..30]);
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("twice"));
        // a section count that is neither 0 nor volume / 64
        let mut b = good.clone();
        let at = 28 + 2 * 5;
        b[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
        assert!(decode_chunk(&b).unwrap_err().to_string().contains("section count 7"));
    }

    /// Layers of every width: y 0-3 stone, 4-7 two kinds, 8-9 four, 10-11 twelve, 12-15 up to
    /// 300 kinds (16-bit direct sections).
    fn layered() -> Chunk {
        let size = ChunkSize::S16;
        let mut c = Chunk::new(ChunkPos::new(5, -2, 1), size).unwrap();
        let dense: Vec<BlockId> = (0..size.volume())
            .map(|i| {
                let (y, h) = (i / 256, (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40);
                BlockId(match y {
                    0..=3 => 1,
                    4..=7 => 2 + (h % 2) as u16,
                    8..=9 => 1 + (h % 4) as u16,
                    10..=11 => 20 + (h % 12) as u16,
                    _ => 1000 + (h % 300) as u16,
                })
            })
            .collect();
        c.set_dense(&dense).unwrap();
        c.fill_light(9);
        c.state = ChunkState::SurfaceDecorated;
        c
    }

    #[test]
    fn reads_version_1() {
        // Bytes written by the version 1 encoder (commit c3cb682) from these very chunks:
        // uniform, 1-, 2-, 4-bit local and 8- and 16-bit direct sections, both light modes.
        let cases: [(&[u8], Chunk); 5] = [
            (include_bytes!("../testdata/chunk_v1_s8_k5_lit.bin"), sample(ChunkSize::S8, 3, 5, true)),
            (include_bytes!("../testdata/chunk_v1_s16_k2.bin"), sample(ChunkSize::S16, 11, 2, false)),
            (include_bytes!("../testdata/chunk_v1_s16_k40_lit.bin"), sample(ChunkSize::S16, 12, 40, true)),
            (include_bytes!("../testdata/chunk_v1_s8_k1.bin"), sample(ChunkSize::S8, 14, 1, false)),
            (include_bytes!("../testdata/chunk_v1_s16_layers.bin"), layered()),
        ];
        for (k, (v1, mut c)) in cases.into_iter().enumerate() {
            assert_eq!(v1[4..6], [1, 0], "case {k}");
            c.dirty = Default::default();
            let d = decode_chunk(v1).unwrap();
            assert_eq!(d, c, "case {k}");
            // decoded into the canonical form: re-encodes as version 2, equal to the chunk's bytes
            let v2 = encode_chunk(&d);
            assert_eq!(v2[4..6], [2, 0]);
            assert_eq!(v2, encode_chunk(&c), "case {k}");
            // never longer but for the slot count, shorter with local sections inline
            assert!(v2.len() <= v1.len() + 4, "case {k}: {} bytes, version 1 {}", v2.len(), v1.len());
        }
        // a version 1 index beyond its local palette is still refused
        let v1 = include_bytes!("../testdata/chunk_v1_s16_k2.bin");
        let mut b = v1.to_vec();
        let p = u32::from_le_bytes([b[24], b[25], b[26], b[27]]) as usize;
        let secs_at = 28 + 2 * p + 4;
        let d = u32::from_le_bytes([b[secs_at], b[secs_at + 1], b[secs_at + 2], b[secs_at + 3]]);
        assert_eq!(d >> 28, 0, "section 0 is 1-bit");
        let (off, words_at) = ((d & 0x0fff_ffff) as usize, secs_at + 4 * 16 + 4);
        // local palette word: slot 1 made free, so index 1 is beyond the one used slot
        let at = words_at + 8 * off + 2;
        b[at..at + 2].copy_from_slice(&[0xff, 0xff]);
        let e = decode_chunk(&b).unwrap_err().to_string();
        assert!(e.contains("section 0") && e.contains("beyond 1 entries"), "{e}");
    }

    /// Applies `edits` to `b`: (position, value, kind) with kind 0 set a byte, 1 flip a bit,
    /// 2 truncate, 3 insert.
    fn mutate(b: &mut Vec<u8>, edits: &[(usize, u8, u8)]) {
        for &(at, v, kind) in edits {
            if b.is_empty() {
                break;
            }
            let i = at % b.len();
            match kind {
                0 => b[i] = v,
                1 => b[i] ^= 1 << (v % 8),
                2 => b.truncate(i),
                _ => b.insert(i, v),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Random byte changes, truncations and insertions of valid bytes decode to Ok or Err,
        /// never a panic; an Ok re-encodes to bytes that decode to the same chunk.
        #[test]
        fn mutations_never_panic(seed in any::<u64>(), kinds in 1u16..20, lit in any::<bool>(),
                                 edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..6)) {
            let c = sample(ChunkSize::S8, seed, kinds, lit);
            let mut b = encode_chunk(&c);
            mutate(&mut b, &edits);
            if let Ok(d) = decode_chunk(&b) {
                prop_assert_eq!(decode_chunk(&encode_chunk(&d)).unwrap(), d);
            }
        }

        /// The same for version 1 bytes (the fixtures of `reads_version_1`).
        #[test]
        fn version_1_mutations_never_panic(k in 0usize..3,
                                           edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..6)) {
            let v1: [&[u8]; 3] = [
                include_bytes!("../testdata/chunk_v1_s8_k5_lit.bin"),
                include_bytes!("../testdata/chunk_v1_s16_k2.bin"),
                include_bytes!("../testdata/chunk_v1_s16_layers.bin"),
            ];
            let mut b = v1[k].to_vec();
            mutate(&mut b, &edits);
            if let Ok(d) = decode_chunk(&b) {
                prop_assert_eq!(decode_chunk(&encode_chunk(&d)).unwrap(), d);
            }
        }
    }
}
