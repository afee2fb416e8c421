//! The voxel crate's typed errors.
//!
//! Every variant names the offending value, so a message read alone says what was refused and
//! what is allowed.

use crate::coords::{BlockPos, ChunkPos};

/// What can go wrong in the voxel crate. Each variant names the problem and its numbers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VoxelError {
    /// A chunk edge size that is not one of 8, 16, 32, 64.
    #[error("chunk size {0} is not allowed: the edge must be 8, 16, 32 or 64")]
    BadChunkSize(u32),
    /// A chunk coordinate whose blocks do not all fit in `i32` block coordinates.
    #[error("chunk {chunk} is out of range for chunk size {size}: its blocks would overflow i32 (chunk coordinates must lie in [{min}, {max}])")]
    ChunkOutOfRange {
        /// The chunk refused.
        chunk: ChunkPos,
        /// The chunk edge in blocks.
        size: u32,
        /// Least allowed chunk coordinate on each axis.
        min: i32,
        /// Greatest allowed chunk coordinate on each axis.
        max: i32,
    },
    /// A block coordinate computation that would leave the `i32` range.
    #[error("block coordinate overflow: {0}")]
    BlockOverflow(String),
    /// A local coordinate outside `[0, size)`.
    #[error("local coordinate ({x}, {y}, {z}) is outside a chunk of size {size}")]
    LocalOutOfRange {
        /// Local x.
        x: u32,
        /// Local y.
        y: u32,
        /// Local z.
        z: u32,
        /// Chunk edge.
        size: u32,
    },
    /// A divisor or modulus that is not positive.
    #[error("divisor {0} must be positive")]
    NonPositiveDivisor(i32),
    /// A block id that the registry does not hold.
    #[error("unknown block id {0}")]
    UnknownBlockId(u16),
    /// A block name that the registry does not hold.
    #[error("unknown block name `{0}`")]
    UnknownBlockName(String),
    /// Registering a block id that is already taken.
    #[error("block id {id} is already registered (as `{existing}`)")]
    DuplicateBlockId {
        /// The id refused.
        id: u16,
        /// The name already registered under it.
        existing: String,
    },
    /// Registering a block name that is already taken.
    #[error("block name `{name}` is already registered (as id {existing})")]
    DuplicateBlockName {
        /// The name refused.
        name: String,
        /// The id already registered under it.
        existing: u16,
    },
    /// A block name that is empty or longer than the cap.
    #[error("block name `{0}` is refused: it must be 1..=64 bytes")]
    BadBlockName(String),
    /// A buffer whose length does not match the chunk volume or area.
    #[error("{what}: expected {expected} elements, got {got}")]
    LengthMismatch {
        /// Which buffer.
        what: &'static str,
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A chunk whose size differs from the map's or the buffer's.
    #[error("chunk {chunk} has size {got}, expected {expected}")]
    ChunkSizeMismatch {
        /// The chunk.
        chunk: ChunkPos,
        /// Size expected.
        expected: u32,
        /// Size given.
        got: u32,
    },
    /// An edit source name longer than the inline cap.
    #[error("edit source name `{0}` is longer than 16 bytes")]
    SourceNameTooLong(String),
    /// A parameter outside its valid range.
    #[error("parameter `{name}` = {value}: {allowed}")]
    Param {
        /// Parameter name.
        name: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A block position outside a grid or box that an algorithm was given.
    #[error("block {pos} is outside {what}")]
    OutsideBox {
        /// The position.
        pos: BlockPos,
        /// What it should have been inside.
        what: &'static str,
    },
    /// A path search that expanded its whole budget of nodes without settling.
    #[error(
        "path search gave up after expanding {expanded} nodes (the budget); raise max_nodes or bring the goal nearer"
    )]
    SearchBudget {
        /// Nodes expanded.
        expanded: usize,
    },
    /// Chunk bytes that do not start with the format's magic.
    #[error("not a bozkir chunk: bad magic {found:02x?} (expected {expected:02x?})")]
    BadMagic {
        /// Bytes found.
        found: [u8; 4],
        /// Bytes expected.
        expected: [u8; 4],
    },
    /// Chunk bytes of a format version this build does not read.
    #[error("chunk format version {found} is not supported (this build reads versions {oldest} to {newest})")]
    UnsupportedVersion {
        /// Version in the bytes.
        found: u16,
        /// Oldest version this build reads.
        oldest: u16,
        /// Newest version this build reads (the one it writes).
        newest: u16,
    },
    /// Chunk bytes that end before a field is complete.
    #[error("chunk bytes truncated: {field} needs {needed} bytes at offset {offset}, only {available} left")]
    Truncated {
        /// Field being read.
        field: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Offset of the field.
        offset: usize,
        /// Bytes left.
        available: usize,
    },
    /// Chunk bytes with content after the last field.
    #[error("chunk bytes have {0} trailing bytes after the last field")]
    TrailingBytes(usize),
    /// Chunk bytes with a field value that is not valid.
    #[error("corrupt chunk bytes: {0}")]
    Corrupt(String),
}

/// Result with a [`VoxelError`].
pub type Result<T> = std::result::Result<T, VoxelError>;
