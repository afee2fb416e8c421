//! The tileset's files (layout in `crate::tiling::tileset` and `docs/formats.md`, "Tilesets"):
//! encoding them ([`encode`], [`zip_bytes`]), reading a tileset folder or zip ([`read`]) and
//! writing a folder ([`write_folder`]).

use crate::formats::dot_splat;
use crate::formats::ply::{self, PlyEncoding};
use crate::tiling::tileset::{Manifest, Tileset, TilesetInvalid};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What can go wrong encoding, zipping or reading a tileset. Each message is the text the CLI
/// has always printed (the file first where there is one).
#[derive(Debug, thiserror::Error)]
pub enum TilesetFileError {
    /// The tileset failed its check (`Tileset::validate`'s message).
    #[error("{0}")]
    Invalid(TilesetInvalid),
    /// A tileset read from `path` failed its check.
    #[error("{path}: {detail}", path = .path.display())]
    InvalidFile {
        /// The splat file (or zip) read.
        path: PathBuf,
        /// What `Tileset::validate` found.
        detail: TilesetInvalid,
    },
    /// The manifest could not be written as JSON.
    #[error("{0}")]
    Encode(serde_json::Error),
    /// The zip could not be written.
    #[error("{0}")]
    Zip(zip::result::ZipError),
    /// Writing into the zip failed.
    #[error("{0}")]
    ZipWrite(std::io::Error),
    /// A file could not be opened, read or inspected.
    #[error("{path}: {error}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// `tileset.json` is larger than the reader accepts.
    #[error("{path}: manifest larger than {MAX_MANIFEST} bytes", path = .path.display())]
    ManifestTooLarge {
        /// The manifest file.
        path: PathBuf,
    },
    /// `tileset.json` of a folder is not a manifest.
    #[error("{path}: {error}", path = .path.display())]
    Json {
        /// The manifest file.
        path: PathBuf,
        /// The parser's message.
        error: serde_json::Error,
    },
    /// `tileset.json` inside a zip (or beside a splat file) is not a manifest.
    #[error("{path}: tileset.json: {error}", path = .path.display())]
    Manifest {
        /// The zip or splat file.
        path: PathBuf,
        /// The parser's message.
        error: serde_json::Error,
    },
    /// The file is not a zip.
    #[error("{path}: not a tileset zip: {error}", path = .path.display())]
    NotZip {
        /// The file.
        path: PathBuf,
        /// The zip reader's message.
        error: zip::result::ZipError,
    },
    /// A file the tileset needs is not in the zip.
    #[error("{path}: no {name} inside", path = .path.display())]
    MissingEntry {
        /// The zip.
        path: PathBuf,
        /// The missing file.
        name: String,
    },
    /// A file in the zip inflates to more than [`ZipLimits::entry_bytes`] (or its header
    /// claims so); nothing beyond the limit was read.
    #[error(
        "{path}: {name} inflates to {size} bytes, over the limit of {limit} bytes per file in a tileset zip",
        path = .path.display(),
        size = match .claimed { Some(c) => c.to_string(), None => format!("more than {limit}") }
    )]
    EntryTooLarge {
        /// The zip.
        path: PathBuf,
        /// The file inside.
        name: String,
        /// The size its header claims, when that is what is over the limit (`None`: the data
        /// ran past the limit while reading).
        claimed: Option<u64>,
        /// The limit ([`ZipLimits::entry_bytes`]).
        limit: u64,
    },
    /// The files read from the zip inflate to more than [`ZipLimits::total_bytes`] together.
    #[error(
        "{path}: its files inflate to more than {limit} bytes together (the limit for a tileset zip; {name} passes it)",
        path = .path.display()
    )]
    TotalTooLarge {
        /// The zip.
        path: PathBuf,
        /// The file being read when the total passed the limit.
        name: String,
        /// The limit ([`ZipLimits::total_bytes`]).
        limit: u64,
    },
    /// The manifest lists no tiles: there is nothing to draw or serve.
    #[error("{path}: the manifest lists no tiles", path = .path.display())]
    NoTiles {
        /// The manifest, zip or splat file read.
        path: PathBuf,
    },
    /// A file in the zip could not be read.
    #[error("{path}: {name}: {error}", path = .path.display())]
    Entry {
        /// The zip.
        path: PathBuf,
        /// The file inside.
        name: String,
        /// What the reader said.
        error: std::io::Error,
    },
    /// The tileset's splats could not be parsed.
    #[error("{0}")]
    Splats(crate::SplatError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TilesetFileError + '_ {
    move |error| TilesetFileError::Io { path: path.to_path_buf(), error }
}

/// The files of a tileset as `(name, bytes)`: manifest, `.splat`, `.ply`, and the atlas PNG
/// bytes if given.
pub fn encode(ts: &Tileset, atlas_png: Option<Vec<u8>>) -> Result<Vec<(String, Vec<u8>)>, TilesetFileError> {
    ts.validate().map_err(TilesetFileError::Invalid)?;
    let json = serde_json::to_vec_pretty(&ts.manifest).map_err(TilesetFileError::Encode)?;
    let mut files = vec![
        ("tileset.json".to_string(), json),
        ("tiles.splat".to_string(), dot_splat::encode_splat(&ts.splats)),
        ("tiles.ply".to_string(), ply::encode_ply(&ts.splats, PlyEncoding::BinaryLittleEndian)),
    ];
    if let Some(p) = atlas_png {
        files.push(("atlas.png".to_string(), p));
    }
    Ok(files)
}

/// One zip holding the files (deflate).
pub fn zip_bytes(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, TilesetFileError> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opt = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            z.start_file(name.as_str(), opt).map_err(TilesetFileError::Zip)?;
            z.write_all(bytes).map_err(TilesetFileError::ZipWrite)?;
        }
        z.finish().map_err(TilesetFileError::Zip)?;
    }
    Ok(buf.into_inner())
}

/// What can go wrong writing a tileset folder ([`write_folder`]).
#[derive(Debug, thiserror::Error)]
pub enum TilesetWriteError {
    /// The atlas PNG could not be written.
    #[error(transparent)]
    Atlas(#[from] bozkir_io::IoError),
    /// The atlas just written could not be read back.
    #[error("reading back the atlas: {0}")]
    ReadBack(std::io::Error),
    /// The tileset failed its check or its manifest could not be encoded ([`encode`]).
    #[error(transparent)]
    Encode(#[from] TilesetFileError),
    /// A file of the tileset could not be written.
    #[error("cannot write {name}: {error}")]
    Write {
        /// The file's name inside the folder.
        name: String,
        /// What the system said (part of the message, as the CLI printed it).
        error: std::io::Error,
    },
}

/// Write a tileset's files into the existing folder `dir`: `atlas.png` (the `w × h` RGB pixels
/// `px` as a PNG, as [`Tileset::render_atlas`] returns them), then `tileset.json`,
/// `tiles.splat` and `tiles.ply` ([`encode`]). Returns every file with its bytes (the atlas
/// last), as a zip of the tileset holds them ([`zip_bytes`]).
///
/// ```
/// use bozkir_splat::tiling::starter::{starter, StarterParams};
/// use bozkir_splat::formats::tileset::{read, write_folder};
///
/// let (ts, w, h, px) = starter(&StarterParams { per_side: 6, levels: 1, atlas_res: 8, ..StarterParams::default() });
/// let dir = tempfile::tempdir().unwrap();
/// let files = write_folder(dir.path(), &ts, w, h, px).unwrap();
/// let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
/// assert_eq!(names, ["tileset.json", "tiles.splat", "tiles.ply", "atlas.png"]);
/// assert_eq!(read(dir.path()).unwrap().manifest, ts.manifest);
/// ```
pub fn write_folder(
    dir: &Path,
    ts: &Tileset,
    w: usize,
    h: usize,
    px: Vec<[u8; 3]>,
) -> Result<Vec<(String, Vec<u8>)>, TilesetWriteError> {
    let atlas_path = dir.join("atlas.png");
    bozkir_io::write_rgb8(&atlas_path, &bozkir_core::Grid::from_vec(w, h, px))?;
    let atlas_bytes = std::fs::read(&atlas_path).map_err(TilesetWriteError::ReadBack)?;
    let mut files = encode(ts, None)?;
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes)
            .map_err(|error| TilesetWriteError::Write { name: name.clone(), error })?;
    }
    files.push(("atlas.png".into(), atlas_bytes));
    Ok(files)
}

/// Largest manifest accepted on reading (bytes).
const MAX_MANIFEST: u64 = 64 << 20;

/// Largest inflated size of one file read from a tileset zip (512 MiB: about 2 million splats
/// of SH degree 3 in `tiles.ply`, 16 million in `tiles.splat`).
pub const MAX_ZIP_ENTRY_BYTES: u64 = 512 << 20;
/// Largest inflated size of all files read from one tileset zip together (1 GiB).
pub const MAX_ZIP_TOTAL_BYTES: u64 = 1 << 30;

/// How much a tileset zip may inflate to ([`read_with`]); [`read`] uses the defaults
/// ([`MAX_ZIP_ENTRY_BYTES`], [`MAX_ZIP_TOTAL_BYTES`]). Entries are read through a reader that
/// stops at the limit, so a zip whose headers understate the sizes is refused too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZipLimits {
    /// Largest inflated size of one entry, in bytes.
    pub entry_bytes: u64,
    /// Largest inflated size of the entries read, together, in bytes.
    pub total_bytes: u64,
}

impl Default for ZipLimits {
    fn default() -> Self {
        ZipLimits { entry_bytes: MAX_ZIP_ENTRY_BYTES, total_bytes: MAX_ZIP_TOTAL_BYTES }
    }
}

/// Parse a tileset from its manifest (`tileset.json`) bytes and its splat file's bytes
/// (`tiles.splat` for degree 0, else `tiles.ply`), as [`read`] does after reading them from a
/// folder or a zip; `name` is used in error messages. A manifest without tiles is refused.
pub fn parse_parts(manifest: &[u8], splats: &[u8], name: &Path) -> Result<Tileset, TilesetFileError> {
    parse(manifest, splats, name)
}

fn parse(manifest: &[u8], splats: &[u8], name: &Path) -> Result<Tileset, TilesetFileError> {
    let manifest: Manifest = serde_json::from_slice(manifest)
        .map_err(|error| TilesetFileError::Manifest { path: name.to_path_buf(), error })?;
    let splats = if manifest.sh_degree > 0 {
        ply::parse_ply(splats, name).map_err(TilesetFileError::Splats)?
    } else {
        dot_splat::parse_splat(splats, name).map_err(TilesetFileError::Splats)?
    };
    if manifest.tiles.is_empty() {
        return Err(TilesetFileError::NoTiles { path: name.to_path_buf() });
    }
    let ts = Tileset { manifest, splats };
    ts.validate().map_err(|detail| TilesetFileError::InvalidFile { path: name.to_path_buf(), detail })?;
    Ok(ts)
}

/// Read a tileset from a directory or a zip (`.zip`). Degree-0 tilesets read `tiles.splat`,
/// others `tiles.ply` (which keeps the SH). A zip may inflate to at most the default
/// [`ZipLimits`]; a manifest without tiles is refused.
pub fn read(path: &Path) -> Result<Tileset, TilesetFileError> {
    read_with(path, ZipLimits::default())
}

/// [`read`] with the inflation limits of a zip given.
pub fn read_with(path: &Path, limits: ZipLimits) -> Result<Tileset, TilesetFileError> {
    let name = |ts_deg: u8| if ts_deg > 0 { "tiles.ply" } else { "tiles.splat" };
    if path.is_dir() {
        let mpath = path.join("tileset.json");
        let meta = std::fs::metadata(&mpath).map_err(io_err(&mpath))?;
        if meta.len() > MAX_MANIFEST {
            return Err(TilesetFileError::ManifestTooLarge { path: mpath });
        }
        let m = std::fs::read(&mpath).map_err(io_err(&mpath))?;
        let deg: Manifest =
            serde_json::from_slice(&m).map_err(|error| TilesetFileError::Json { path: mpath.clone(), error })?;
        let sp = path.join(name(deg.sh_degree));
        let s = std::fs::read(&sp).map_err(io_err(&sp))?;
        return parse(&m, &s, &sp);
    }
    let f = std::fs::File::open(path).map_err(io_err(path))?;
    let mut z =
        zip::ZipArchive::new(f).map_err(|error| TilesetFileError::NotZip { path: path.to_path_buf(), error })?;
    let mut total = 0u64;
    let mut get = |n: &str| -> Result<Vec<u8>, TilesetFileError> {
        let entry = |p: &Path| (p.to_path_buf(), n.to_string());
        let e = z.by_name(n).map_err(|_| {
            let (path, name) = entry(path);
            TilesetFileError::MissingEntry { path, name }
        })?;
        let claimed = e.size();
        if claimed > limits.entry_bytes {
            let (path, name) = entry(path);
            return Err(TilesetFileError::EntryTooLarge {
                path,
                name,
                claimed: Some(claimed),
                limit: limits.entry_bytes,
            });
        }
        let room = limits.entry_bytes.min(limits.total_bytes.saturating_sub(total));
        // Reserve no more than the stored bytes can inflate to (Deflate: 1032:1).
        let can = e.compressed_size().saturating_mul(1032).saturating_add(1024);
        let mut v = Vec::with_capacity(claimed.min(room).min(can) as usize);
        e.take(room.saturating_add(1)).read_to_end(&mut v).map_err(|error| {
            let (path, name) = entry(path);
            TilesetFileError::Entry { path, name, error }
        })?;
        let got = v.len() as u64;
        if got > limits.entry_bytes {
            let (path, name) = entry(path);
            return Err(TilesetFileError::EntryTooLarge { path, name, claimed: None, limit: limits.entry_bytes });
        }
        if got > room {
            let (path, name) = entry(path);
            return Err(TilesetFileError::TotalTooLarge { path, name, limit: limits.total_bytes });
        }
        total += got;
        Ok(v)
    };
    let m = get("tileset.json")?;
    let deg: Manifest =
        serde_json::from_slice(&m).map_err(|error| TilesetFileError::Manifest { path: path.to_path_buf(), error })?;
    let s = get(name(deg.sh_degree))?;
    parse(&m, &s, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiling::tileset::tests::small_tileset;

    #[test]
    fn manifest_ranges_cover_the_splats_and_round_trip_through_zip_and_dir() {
        let mut ts = small_tileset();
        assert_eq!(ts.manifest.tiles.len(), 8);
        let sum: u64 = ts.manifest.tiles.iter().flat_map(|t| &t.levels).map(|l| l[1]).sum();
        assert_eq!(sum, ts.manifest.total);
        let (w, h, px) = ts.render_atlas(16);
        assert_eq!((w, h), (48, 48));
        assert_eq!(px.len(), w * h);
        let files = encode(&ts, None).unwrap();
        let splat = &files.iter().find(|f| f.0 == "tiles.splat").unwrap().1;
        assert_eq!(splat.len() as u64, 32 * ts.manifest.total);
        let tmp = tempfile::tempdir().unwrap();
        for (n, b) in &files {
            std::fs::write(tmp.path().join(n), b).unwrap();
        }
        let back = read(tmp.path()).unwrap();
        assert_eq!(back.manifest, ts.manifest);
        assert_eq!(back.splats.len(), ts.splats.len());
        let zpath = tmp.path().join("t.zip");
        std::fs::write(&zpath, zip_bytes(&files).unwrap()).unwrap();
        let z = read(&zpath).unwrap();
        assert_eq!(z.manifest, ts.manifest);
        assert_eq!(z.level(3, 1).len() as u64, ts.manifest.tiles[3].levels[1][1]);
    }

    #[test]
    fn bad_tileset_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let z = tmp.path().join("x.zip");
        std::fs::write(&z, b"not a zip").unwrap();
        assert!(read(&z).unwrap_err().to_string().contains("not a tileset zip"));
        assert!(read(tmp.path()).unwrap_err().to_string().contains("tileset.json"));
    }
}
