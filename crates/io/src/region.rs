//! Region files: many chunks' byte blobs in one file, keyed by chunk coordinate, read one at a
//! time.
//!
//! A region holds opaque payloads (the voxel crate's chunk codec makes them; this module never
//! looks inside) keyed by a chunk coordinate `(x, y, z)` of `i32`. Everything needed to find a
//! chunk is at the front of the file, so a reader touches the header, the index and the one
//! payload it wants, and a file cut short loses only the chunks whose payload was cut.
//!
//! Layout (all integers little-endian; see `docs/formats.md`, "Region files"):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `BZKREGN\x1a` ([`REGION_MAGIC`]) |
//! | 8..12 | format version `u32` ([`REGION_FORMAT_VERSION`], 1) |
//! | 12..16 | entry count `n` `u32` |
//! | 16..24 | total file length `u64`, as written |
//! | 24..28 | reserved `u32`, 0 |
//! | 28..32 | CRC-32 of bytes 0..28 |
//! | 32..32 + 32n | index: per entry `x`, `y`, `z` (`i32`), payload CRC-32 (`u32`), offset (`u64`, from the start of the file), length (`u64`) |
//! | next 4 | CRC-32 of the index bytes |
//! | rest | the payloads, back to back in index order |
//!
//! The index is sorted by `(x, y, z)` (lexicographic, signed) without repeats, and payloads are
//! contiguous: entry `k` starts where entry `k − 1` ends, the first right after the index
//! checksum, and the last ends at the total length. The checksum is CRC-32/IEEE ([`crc32`], the
//! one of zlib, PNG and gzip), written here table-driven (slicing by 8).
//!
//! Failure model: a file whose header or index is damaged or cut cannot be opened (the error
//! says which); a file whose tail is cut opens, the chunks whose payload lies wholly before the
//! cut read as usual, and the others give [`IoError::Truncated`] naming the chunk; a damaged
//! payload gives [`IoError::Malformed`] naming the chunk, the others are unaffected. Writers are
//! atomic (see the crate documentation): [`write_region`] and [`update`] leave either the old
//! file or the complete new one, never a mix.
//!
//! Caps, checked before allocating: at most [`MAX_REGION_ENTRIES`] chunks per file and
//! [`MAX_CHUNK_BYTES`] per payload, when writing and when reading.
//!
//! Deterministic: the same entries (in any order) give the same bytes.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first eight bytes of a region file.
pub const REGION_MAGIC: [u8; 8] = *b"BZKREGN\x1a";
/// The format version this build writes and reads.
pub const REGION_FORMAT_VERSION: u32 = 1;
/// Bytes of the fixed header.
pub const HEADER_BYTES: u64 = 32;
/// Bytes of one index entry.
pub const ENTRY_BYTES: u64 = 32;
/// Most chunks in one region file (2^20; the index is then 32 MiB).
pub const MAX_REGION_ENTRIES: u64 = 1 << 20;
/// Largest payload of one chunk, in bytes (256 MiB).
pub const MAX_CHUNK_BYTES: u64 = 1 << 28;

/// A chunk coordinate `(x, y, z)`, in chunks. Regions order them lexicographically.
pub type ChunkCoord = (i32, i32, i32);

const FORMAT: &str = "region";

/// `chunk (x, y, z)`, the way every message names a chunk.
fn chunk_name(c: ChunkCoord) -> String {
    format!("chunk ({}, {}, {})", c.0, c.1, c.2)
}

// ---------------------------------------------------------------------------------------------
// CRC-32/IEEE
// ---------------------------------------------------------------------------------------------

const CRC_POLY: u32 = 0xEDB8_8320;

/// Eight 256-entry tables for slicing by 8: `T[0]` is the classic byte table, `T[s][i]` the CRC
/// of byte `i` followed by `s` zero bytes.
const CRC_TABLES: [[u32; 256]; 8] = crc_tables();

const fn crc_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { CRC_POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            s += 1;
        }
        i += 1;
    }
    t
}

/// CRC-32/IEEE of `bytes` (reflected polynomial `0xEDB88320`, initial value and final xor
/// `0xFFFFFFFF`): the checksum of zlib, gzip and PNG. `crc32(b"123456789") == 0xCBF43926`.
///
/// ```
/// assert_eq!(bozkir_io::region::crc32(b"123456789"), 0xCBF4_3926);
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    let t = &CRC_TABLES;
    let mut c = !0u32;
    let mut blocks = bytes.chunks_exact(8);
    for b in &mut blocks {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) ^ c;
        let hi = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        c = t[7][(lo & 0xFF) as usize]
            ^ t[6][((lo >> 8) & 0xFF) as usize]
            ^ t[5][((lo >> 16) & 0xFF) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xFF) as usize]
            ^ t[2][((hi >> 8) & 0xFF) as usize]
            ^ t[1][((hi >> 16) & 0xFF) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    for &b in blocks.remainder() {
        c = t[0][((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

// ---------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------

/// One index entry as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    coord: ChunkCoord,
    crc: u32,
    offset: u64,
    len: u64,
}

/// Byte offset of the first payload for `n` entries.
fn data_start(n: u64) -> u64 {
    HEADER_BYTES + n * ENTRY_BYTES + 4
}

fn header_bytes(n: u32, total_len: u64) -> [u8; HEADER_BYTES as usize] {
    let mut h = [0u8; HEADER_BYTES as usize];
    h[0..8].copy_from_slice(&REGION_MAGIC);
    h[8..12].copy_from_slice(&REGION_FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&n.to_le_bytes());
    h[16..24].copy_from_slice(&total_len.to_le_bytes());
    // 24..28 reserved, zero.
    let crc = crc32(&h[..28]);
    h[28..32].copy_from_slice(&crc.to_le_bytes());
    h
}

fn index_bytes(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * ENTRY_BYTES as usize + 4);
    for e in entries {
        out.extend_from_slice(&e.coord.0.to_le_bytes());
        out.extend_from_slice(&e.coord.1.to_le_bytes());
        out.extend_from_slice(&e.coord.2.to_le_bytes());
        out.extend_from_slice(&e.crc.to_le_bytes());
        out.extend_from_slice(&e.offset.to_le_bytes());
        out.extend_from_slice(&e.len.to_le_bytes());
    }
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Lay out `items` (sorted `(coord, crc, len)`) back to back after the index.
fn lay_out(items: impl Iterator<Item = (ChunkCoord, u32, u64)>, n: u64) -> (Vec<Entry>, u64) {
    let mut offset = data_start(n);
    let entries = items
        .map(|(coord, crc, len)| {
            let e = Entry { coord, crc, offset, len };
            offset += len;
            e
        })
        .collect();
    (entries, offset)
}

fn check_count(path: &Path, n: usize) -> Result<u32> {
    if n as u64 > MAX_REGION_ENTRIES {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "region chunks",
            count: n as u64,
            limit: MAX_REGION_ENTRIES,
        });
    }
    Ok(n as u32)
}

fn check_payload(path: &Path, coord: ChunkCoord, len: usize) -> Result<()> {
    if len as u64 > MAX_CHUNK_BYTES {
        return Err(IoError::invalid(
            path,
            format!("{}: payload of {len} bytes exceeds the limit of {MAX_CHUNK_BYTES} bytes", chunk_name(coord)),
        ));
    }
    Ok(())
}

/// Write header, index and payloads (`payload(k, w)` writes entry `k`'s bytes) atomically.
fn write_file<F>(path: &Path, entries: &[Entry], total_len: u64, mut payload: F) -> Result<()>
where
    F: FnMut(usize, &mut dyn Write) -> Result<()>,
{
    let header = header_bytes(entries.len() as u32, total_len);
    let index = index_bytes(entries);
    atomic_write(path, |w| {
        write_all(path, w, &header)?;
        write_all(path, w, &index)?;
        for k in 0..entries.len() {
            payload(k, w)?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Write a region file holding `entries` (chunk coordinate and payload), atomically.
///
/// The entries may come in any order; they are stored sorted by coordinate. Refused before
/// anything is written (naming the file): a coordinate given twice, more than
/// [`MAX_REGION_ENTRIES`] entries, a payload over [`MAX_CHUNK_BYTES`]. An empty list writes a
/// valid region with no chunks.
pub fn write_region<B: AsRef<[u8]>>(path: impl AsRef<Path>, entries: &[(ChunkCoord, B)]) -> Result<()> {
    let path = path.as_ref();
    let n = check_count(path, entries.len())?;
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&k| entries[k].0);
    for pair in order.windows(2) {
        if entries[pair[0]].0 == entries[pair[1]].0 {
            return Err(IoError::invalid(path, format!("{} is given twice", chunk_name(entries[pair[0]].0))));
        }
    }
    for (coord, bytes) in entries {
        check_payload(path, *coord, bytes.as_ref().len())?;
    }
    let items = order.iter().map(|&k| {
        let bytes = entries[k].1.as_ref();
        (entries[k].0, crc32(bytes), bytes.len() as u64)
    });
    let (index, total_len) = lay_out(items, u64::from(n));
    write_file(path, &index, total_len, |k, w| {
        w.write_all(entries[order[k]].1.as_ref()).map_err(|e| IoError::io(path, e))
    })
}

/// What [`update`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateReport {
    /// Chunks written from the changes (new or replaced).
    pub written: usize,
    /// Good chunks carried over from the old file unchanged.
    pub kept: usize,
    /// Chunks the changes deleted that the old file held.
    pub removed: usize,
    /// Chunks of the old file that could not be read back intact (cut off or failing their
    /// checksum) and were not replaced, so the new file no longer lists them; each with the
    /// error that condemned it.
    pub dropped: Vec<(ChunkCoord, String)>,
}

/// Apply `changes` to the region at `path`: `Some(bytes)` writes (adds or replaces) a chunk,
/// `None` deletes it. A missing file counts as an empty region.
///
/// Every chunk of the old file is read and checked first; the new file (old good chunks, then
/// the changes applied) is then written atomically, so a failure at any point leaves the old
/// file as it was, and no good chunk is ever lost. Old chunks that are cut off or fail their
/// checksum cannot be carried over: unless the changes replace them they are left out and
/// listed in [`UpdateReport::dropped`]. A file whose header or index cannot be read is refused
/// as a whole (the error of [`RegionReader::open`]) and left untouched.
///
/// Memory: one payload at a time plus the index; the old payloads are read twice (checked,
/// then copied and checked again, failing the whole update if the file changed in between).
pub fn update<B: AsRef<[u8]>>(path: impl AsRef<Path>, changes: &[(ChunkCoord, Option<B>)]) -> Result<UpdateReport> {
    let path = path.as_ref();
    let mut wanted: BTreeMap<ChunkCoord, Option<&[u8]>> = BTreeMap::new();
    for (coord, bytes) in changes {
        let bytes = bytes.as_ref().map(|b| b.as_ref());
        if let Some(b) = bytes {
            check_payload(path, *coord, b.len())?;
        }
        if wanted.insert(*coord, bytes).is_some() {
            return Err(IoError::invalid(path, format!("{} is changed twice", chunk_name(*coord))));
        }
    }

    let mut reader = match std::fs::metadata(path) {
        Ok(_) => Some(RegionReader::open(path)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(IoError::io(path, e)),
    };

    // Where each chunk of the new file comes from.
    enum Source<'a> {
        Old(Entry),
        New(&'a [u8]),
    }
    let mut report = UpdateReport::default();
    let mut merged: BTreeMap<ChunkCoord, Source> = BTreeMap::new();
    if let Some(r) = reader.as_mut() {
        for e in r.entries.clone() {
            if let Some(change) = wanted.get(&e.coord) {
                if change.is_none() {
                    report.removed += 1;
                }
                continue;
            }
            match r.read_entry(&e) {
                Ok(_) => {
                    merged.insert(e.coord, Source::Old(e));
                    report.kept += 1;
                }
                Err(err) => report.dropped.push((e.coord, err.to_string())),
            }
        }
    }
    for (coord, bytes) in &wanted {
        if let Some(b) = bytes {
            merged.insert(*coord, Source::New(b));
            report.written += 1;
        }
    }

    let n = check_count(path, merged.len())?;
    let sources: Vec<&Source> = merged.values().collect();
    let items = merged.iter().map(|(coord, s)| match s {
        Source::Old(e) => (*coord, e.crc, e.len),
        Source::New(b) => (*coord, crc32(b), b.len() as u64),
    });
    let (index, total_len) = lay_out(items, u64::from(n));
    write_file(path, &index, total_len, |k, w| match sources[k] {
        Source::New(b) => w.write_all(b).map_err(|e| IoError::io(path, e)),
        Source::Old(e) => {
            let r = reader.as_mut().expect("old chunks come from a reader");
            let bytes = r.read_entry(e)?;
            w.write_all(&bytes).map_err(|e| IoError::io(path, e))
        }
    })?;
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// An open region file: its header and index, checked; payloads are read on demand.
///
/// The file stays open; if it is replaced (by [`update`] or [`write_region`], which rename a new
/// file over it) the reader goes on seeing the file it opened, on systems where an open file
/// survives the rename (Unix).
#[derive(Debug)]
pub struct RegionReader {
    path: PathBuf,
    file: File,
    file_len: u64,
    entries: Vec<Entry>,
}

/// One chunk listed by a region's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionEntry {
    /// The chunk coordinate.
    pub coord: ChunkCoord,
    /// Payload length in bytes.
    pub len: u64,
    /// The file ends before this payload does: reading it gives [`IoError::Truncated`].
    pub truncated: bool,
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn read_i32(b: &[u8], at: usize) -> i32 {
    read_u32(b, at) as i32
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl RegionReader {
    /// Open `path` and read and check its header and index (not the payloads).
    ///
    /// Errors, each naming the file: [`IoError::Empty`] (zero bytes), [`IoError::WrongMagic`],
    /// [`IoError::Unsupported`] for another format version (naming it and
    /// [`REGION_FORMAT_VERSION`]), [`IoError::Malformed`] for a header or index checksum
    /// mismatch or an inconsistent index (unsorted or repeated coordinates, payloads not back to
    /// back, lengths not adding up to the total, bytes after the end), [`IoError::TooMany`]
    /// over the caps, [`IoError::Truncated`] when the file ends inside the header or the index.
    /// A file that ends inside the payloads opens: the chunks it cut are flagged
    /// ([`RegionEntry::truncated`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(|e| IoError::io(path, e))?;
        let file_len = file.metadata().map_err(|e| IoError::io(path, e))?.len();
        if file_len == 0 {
            return Err(IoError::Empty { path: path.to_path_buf(), what: "zero-byte file".into() });
        }
        let mut head = vec![0u8; file_len.min(HEADER_BYTES) as usize];
        file.read_exact(&mut head).map_err(|e| IoError::io(path, e))?;
        let magic_len = head.len().min(REGION_MAGIC.len());
        if head[..magic_len] != REGION_MAGIC[..magic_len] {
            return Err(IoError::WrongMagic { path: path.to_path_buf(), format: "bozkir region" });
        }
        if file_len < HEADER_BYTES {
            return Err(IoError::truncated(
                path,
                format!("the file has {file_len} bytes, the region header needs {HEADER_BYTES}"),
            ));
        }
        let version = read_u32(&head, 8);
        if version != REGION_FORMAT_VERSION {
            let age = if version > REGION_FORMAT_VERSION { "newer" } else { "older" };
            return Err(IoError::unsupported(
                path,
                format!(
                    "region format version {version} ({age} than version {REGION_FORMAT_VERSION}, the one this build reads)"
                ),
            ));
        }
        let (stored, computed) = (read_u32(&head, 28), crc32(&head[..28]));
        if stored != computed {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!("header checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"),
            ));
        }
        let n = u64::from(read_u32(&head, 12));
        let total_len = read_u64(&head, 16);
        if read_u32(&head, 24) != 0 {
            return Err(IoError::malformed(path, FORMAT, "reserved header field is not zero"));
        }
        if n > MAX_REGION_ENTRIES {
            return Err(IoError::TooMany {
                path: path.to_path_buf(),
                what: "region chunks",
                count: n,
                limit: MAX_REGION_ENTRIES,
            });
        }
        let start = data_start(n);
        if total_len < start {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!(
                    "header gives a total length of {total_len} bytes, less than its {n}-chunk index needs ({start})"
                ),
            ));
        }
        if file_len < start {
            return Err(IoError::truncated(
                path,
                format!("the index of {n} chunks ends at byte {start} but the file has {file_len} bytes: no chunk can be located"),
            ));
        }
        if file_len > total_len {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!("the file has {file_len} bytes, more than the {total_len} its header gives"),
            ));
        }
        let mut index = vec![0u8; (n * ENTRY_BYTES + 4) as usize];
        file.read_exact(&mut index).map_err(|e| IoError::io(path, e))?;
        let body = (n * ENTRY_BYTES) as usize;
        let (stored, computed) = (read_u32(&index, body), crc32(&index[..body]));
        if stored != computed {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!("index checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"),
            ));
        }
        let mut entries = Vec::with_capacity(n as usize);
        let mut expect = start;
        for k in 0..n as usize {
            let b = &index[k * ENTRY_BYTES as usize..(k + 1) * ENTRY_BYTES as usize];
            let e = Entry {
                coord: (read_i32(b, 0), read_i32(b, 4), read_i32(b, 8)),
                crc: read_u32(b, 12),
                offset: read_u64(b, 16),
                len: read_u64(b, 24),
            };
            let bad = |detail: String| {
                IoError::malformed(path, FORMAT, format!("index entry {k}, {}: {detail}", chunk_name(e.coord)))
            };
            if let Some(prev) = entries.last().map(|p: &Entry| p.coord) {
                if prev >= e.coord {
                    return Err(bad(format!(
                        "not after {} (the index must be sorted, without repeats)",
                        chunk_name(prev)
                    )));
                }
            }
            if e.len > MAX_CHUNK_BYTES {
                return Err(bad(format!("payload of {} bytes exceeds the limit of {MAX_CHUNK_BYTES} bytes", e.len)));
            }
            if e.offset != expect {
                return Err(bad(format!(
                    "payload at byte {}, expected {expect} (payloads are back to back)",
                    e.offset
                )));
            }
            expect += e.len;
            if expect > total_len {
                return Err(bad(format!("payload ends at byte {expect}, past the total length {total_len}")));
            }
            entries.push(e);
        }
        if expect != total_len {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!("payloads end at byte {expect} but the header gives a total length of {total_len}"),
            ));
        }
        Ok(RegionReader { path: path.to_path_buf(), file, file_len, entries })
    }

    /// The file this reader reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of chunks the index lists (cut ones included).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index lists no chunk.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The coordinates of the chunks the index lists, sorted.
    pub fn coords(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.entries.iter().map(|e| e.coord)
    }

    /// The index: each chunk's coordinate, payload length and whether the file cut it.
    pub fn entries(&self) -> impl Iterator<Item = RegionEntry> + '_ {
        self.entries.iter().map(|e| RegionEntry { coord: e.coord, len: e.len, truncated: self.is_cut(e) })
    }

    /// Whether the index lists `coord`.
    pub fn contains(&self, coord: ChunkCoord) -> bool {
        self.find(coord).is_some()
    }

    fn find(&self, coord: ChunkCoord) -> Option<&Entry> {
        self.entries.binary_search_by_key(&coord, |e| e.coord).ok().map(|k| &self.entries[k])
    }

    fn is_cut(&self, e: &Entry) -> bool {
        e.offset + e.len > self.file_len
    }

    /// Read the payload of `coord` and check its CRC; `Ok(None)` when the region does not list
    /// the chunk.
    ///
    /// Errors name the file and the chunk: [`IoError::Truncated`] when the file ends inside the
    /// payload, [`IoError::Malformed`] when its checksum does not match. Other chunks are not
    /// affected by either.
    pub fn read(&mut self, coord: ChunkCoord) -> Result<Option<Vec<u8>>> {
        match self.find(coord).copied() {
            Some(e) => self.read_entry(&e).map(Some),
            None => Ok(None),
        }
    }

    fn read_entry(&mut self, e: &Entry) -> Result<Vec<u8>> {
        let path = &self.path;
        let cut = || {
            IoError::truncated(
                path,
                format!(
                    "{}: payload bytes {}..{} but the file ends at byte {}",
                    chunk_name(e.coord),
                    e.offset,
                    e.offset + e.len,
                    self.file_len
                ),
            )
        };
        if self.is_cut(e) {
            return Err(cut());
        }
        // e.len <= MAX_CHUNK_BYTES (checked at open).
        let mut bytes = vec![0u8; e.len as usize];
        self.file.seek(SeekFrom::Start(e.offset)).map_err(|err| IoError::io(path, err))?;
        self.file.read_exact(&mut bytes).map_err(|err| {
            if err.kind() == std::io::ErrorKind::UnexpectedEof {
                cut()
            } else {
                IoError::io(path, err)
            }
        })?;
        let computed = crc32(&bytes);
        if computed != e.crc {
            return Err(IoError::malformed(
                path,
                FORMAT,
                format!(
                    "{}: payload checksum mismatch (stored {:#010x}, computed {computed:#010x})",
                    chunk_name(e.coord),
                    e.crc
                ),
            ));
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-at-a-time CRC-32, the definition.
    fn crc32_bitwise(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 { CRC_POLY ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn crc32_matches_the_definition_and_the_check_value() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"The quick brown fox jumps over the lazy dog"), 0x414F_A339);
        let data: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 999, 1000] {
            for start in [0, 1, 3] {
                let end = (start + len).min(data.len());
                assert_eq!(crc32(&data[start..end]), crc32_bitwise(&data[start..end]), "{start}..{end}");
            }
        }
    }

    #[test]
    fn layout_is_back_to_back_after_the_index() {
        let (entries, total) = lay_out([((0, 0, 0), 1, 10), ((0, 0, 1), 2, 0), ((1, 0, 0), 3, 5)].into_iter(), 3);
        assert_eq!(entries[0].offset, 32 + 96 + 4);
        assert_eq!(entries[1].offset, 32 + 96 + 4 + 10);
        assert_eq!(entries[2].offset, entries[1].offset);
        assert_eq!(total, 32 + 96 + 4 + 15);
        let h = header_bytes(3, total);
        assert_eq!(&h[..8], b"BZKREGN\x1a");
        assert_eq!(read_u32(&h, 28), crc32(&h[..28]));
    }
}
