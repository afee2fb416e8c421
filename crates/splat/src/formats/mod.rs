//! Splat file formats, one per file: [`ply`] (3DGS PLY, ASCII and binary, read and write,
//! bit-exact round trip), [`dot_splat`] (antimatter15 `.splat`), [`glb`] (glTF
//! `KHR_gaussian_splatting`), [`spz`] (Niantic SPZ v2/v3, gzip); [`load`] and [`save`] pick the
//! format from the file name. [`tileset`] reads and writes a tileset folder or zip. Layouts are
//! in `docs/formats.md`.
//!
//! Readers bound every count before allocating ([`MAX_SPLATS`], and the file length) and name
//! the file in every error ([`SplatError`]). Writers write a temporary file and rename it.

pub mod dot_splat;
pub mod error;
mod fsio;
pub mod glb;
pub mod ply;
pub mod spz;
pub mod tileset;

pub use error::{Result, SplatError};
pub use ply::PlyEncoding;

use crate::model::Splats;
use std::path::Path;

/// Largest number of splats any reader accepts: 2^28.
pub const MAX_SPLATS: u64 = 1 << 28;

/// A splat file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// 3DGS PLY (written binary little-endian by [`save`]).
    Ply,
    /// antimatter15 `.splat`.
    Splat,
    /// glTF binary with `KHR_gaussian_splatting`.
    Glb,
    /// Niantic SPZ (gzip, v2/v3).
    Spz,
}

impl Format {
    /// The format named by a file's extension (case-insensitive), if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "ply" => Format::Ply,
            "splat" => Format::Splat,
            "glb" => Format::Glb,
            "spz" => Format::Spz,
            _ => return None,
        })
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Ply => "ply",
            Format::Splat => "splat",
            Format::Glb => "glb",
            Format::Spz => "spz",
        }
    }
}

fn format_of(path: &Path) -> Result<Format> {
    Format::from_path(path)
        .ok_or_else(|| SplatError::unsupported(path, "file extension (splat files are .ply, .splat, .glb or .spz)"))
}

/// Read a splat file of any supported format, chosen by its extension.
pub fn load(path: &Path) -> Result<Splats> {
    match format_of(path)? {
        Format::Ply => ply::read_ply(path),
        Format::Splat => dot_splat::read_splat(path),
        Format::Glb => glb::read_glb(path),
        Format::Spz => spz::read_spz(path),
    }
}

/// Write `s` in the format named by the extension (PLY as binary little-endian).
pub fn save(path: &Path, s: &Splats) -> Result<()> {
    match format_of(path)? {
        Format::Ply => ply::write_ply(path, s, PlyEncoding::BinaryLittleEndian),
        Format::Splat => dot_splat::write_splat(path, s),
        Format::Glb => glb::write_glb(path, s),
        Format::Spz => spz::write_spz(path, s),
    }
}
