//! The tileset format: a manifest plus the splats of every tile and level of detail, in one
//! directory or one zip file (documented in `docs/formats.md`, "Tilesets").
//!
//! * `tileset.json` — the manifest ([`Manifest`]): tile size, colours, classes, and per tile its
//!   code, class and the `[start, count]` range of each level in the splat files.
//! * `tiles.splat` — every level of every tile, concatenated in manifest order, 32 bytes per
//!   splat (`crate::dot_splat`; what a browser viewer streams).
//! * `tiles.ply` — the same splats in the same order as a 3DGS PLY keeping the SH degree
//!   (`.splat` drops view-dependent colour).
//! * `atlas.png` — every tile's level 0 seen from above (`crate::raster`), tiles in a grid of
//!   `cols × rows` cells of `res` pixels, in manifest order (the far field's texture), when
//!   written. Each tile's colour is matched to the mean base colour of its splats
//!   ([`match_mean`]) and its holes show that mean, so the far field has the tone of the near
//!   field.
//!
//! A zip of those files (stored with deflate) is a single-file tileset a page can take by drag
//! and drop.

use crate::dot_splat;
use crate::model::Splats;
use crate::ply::{self, PlyEncoding};
use crate::raster::{render_top, TopImage};
use crate::tiles::Tile;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;

/// Version of the manifest layout.
pub const TILESET_FORMAT_VERSION: u32 = 1;

/// One tile in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TileEntry {
    /// Edge colours `[n, e, s, w]`.
    pub code: [u8; 4],
    pub class: u8,
    /// `[start, count]` in the splat files, level 0 first.
    pub levels: Vec<[u64; 2]>,
}

/// The atlas layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtlasInfo {
    pub file: String,
    /// Pixels per tile side.
    pub res: u32,
    pub cols: u32,
    pub rows: u32,
    /// Mean colour of each tile's splats (what the atlas tile was matched to), linear 0..1.
    pub mean_rgb: Vec<[f32; 3]>,
}

/// `tileset.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    /// Tile side in metres.
    pub size: f64,
    /// Always 2: tiles lie in x, y with +z up.
    pub up_axis: u8,
    /// Colours of the horizontal (north/south) and vertical (east/west) edge families.
    pub colours: [u8; 2],
    /// `"minimal"` or `"complete"`.
    pub set: String,
    /// Class names (material names), class 0 first.
    pub classes: Vec<String>,
    /// Levels of detail per tile.
    pub lod: u32,
    pub cut: bool,
    pub sh_degree: u8,
    /// Splats in each splat file.
    pub total: u64,
    pub tiles: Vec<TileEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atlas: Option<AtlasInfo>,
    /// Every setting the tileset was built with.
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
    /// Warnings of the build, each naming its fix.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The build's verdict and its reasons, when made by `bozkir tileset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<serde_json::Value>,
}

/// A tileset in memory.
#[derive(Debug, Clone)]
pub struct Tileset {
    pub manifest: Manifest,
    /// All splats, in manifest order.
    pub splats: Splats,
}

impl Tileset {
    /// Concatenate built tiles (every level) into one set with its manifest.
    pub fn from_tiles(
        tiles: &[Tile],
        size: f64,
        colours: [u8; 2],
        set: &str,
        classes: Vec<String>,
        cut: bool,
    ) -> Tileset {
        let degree = tiles.iter().flat_map(|t| &t.levels).map(|l| l.sh_degree()).min().unwrap_or(0);
        let mut all = Splats::new(degree);
        let mut entries = Vec::with_capacity(tiles.len());
        for t in tiles {
            let mut levels = Vec::new();
            for l in &t.levels {
                levels.push([all.len() as u64, l.len() as u64]);
                all.append(l);
            }
            entries.push(TileEntry { code: [t.code.n, t.code.e, t.code.s, t.code.w], class: t.class, levels });
        }
        let manifest = Manifest {
            format_version: TILESET_FORMAT_VERSION,
            size,
            up_axis: 2,
            colours,
            set: set.to_string(),
            classes,
            lod: tiles.first().map_or(1, |t| t.levels.len() as u32),
            cut,
            sh_degree: degree,
            total: all.len() as u64,
            tiles: entries,
            atlas: None,
            settings: serde_json::Map::new(),
            warnings: Vec::new(),
            verdict: None,
        };
        Tileset { manifest, splats: all }
    }

    /// The splats of tile `t` at level `l`.
    pub fn level(&self, t: usize, l: usize) -> Splats {
        let [start, count] = self.manifest.tiles[t].levels[l];
        let idx: Vec<usize> = (start as usize..(start + count) as usize).collect();
        self.splats.subset(&idx)
    }

    /// Render the atlas: each tile's level 0 from above at `res` pixels, in a near-square grid,
    /// its colour matched to the mean base colour of its splats ([`match_mean`]) and its holes
    /// filled with that mean. Returns the RGB pixels (`cols·res × rows·res`, row-major) and
    /// fills `manifest.atlas`.
    pub fn render_atlas(&mut self, res: usize) -> (usize, usize, Vec<[u8; 3]>) {
        let n = self.manifest.tiles.len().max(1);
        let cols = (n as f64).sqrt().ceil() as usize;
        let rows = n.div_ceil(cols);
        let (w, h) = (cols * res, rows * res);
        let mut px = vec![[0u8; 3]; w * h];
        let mut means = Vec::with_capacity(n);
        for t in 0..self.manifest.tiles.len() {
            let s = self.level(t, 0);
            let mean = mean_rgb(&s);
            means.push(mean);
            let mut im = render_top(&s, [0.0, 0.0], self.manifest.size, res);
            match_mean(&mut im, mean);
            // Holes show the tile's mean colour, so the far field never shows black.
            let rgb = im.to_rgb8(mean);
            let (cx, cy) = ((t % cols) * res, (t / cols) * res);
            for r in 0..res {
                let row = &rgb[r * res..(r + 1) * res];
                px[(cy + r) * w + cx..(cy + r) * w + cx + res].copy_from_slice(row);
            }
        }
        self.manifest.atlas = Some(AtlasInfo {
            file: "atlas.png".into(),
            res: res as u32,
            cols: cols as u32,
            rows: rows as u32,
            mean_rgb: means,
        });
        (w, h, px)
    }

    /// Check the manifest against the splats: ranges inside `total`, codes within the colours,
    /// classes named.
    pub fn validate(&self) -> Result<(), String> {
        let m = &self.manifest;
        if m.format_version != TILESET_FORMAT_VERSION {
            return Err(format!(
                "tileset format version {} (this build reads {TILESET_FORMAT_VERSION})",
                m.format_version
            ));
        }
        if m.total != self.splats.len() as u64 {
            return Err(format!("manifest says {} splats, the splat file holds {}", m.total, self.splats.len()));
        }
        if !(m.size > 0.0 && m.size.is_finite()) {
            return Err(format!("tile size {} is not positive", m.size));
        }
        for (i, t) in m.tiles.iter().enumerate() {
            if t.levels.is_empty() {
                return Err(format!("tile {i} has no levels"));
            }
            for &[s, c] in &t.levels {
                if s.checked_add(c).is_none_or(|e| e > m.total) {
                    return Err(format!("tile {i}: range {s}+{c} beyond the {} splats", m.total));
                }
            }
            if t.code[0] >= m.colours[0]
                || t.code[2] >= m.colours[0]
                || t.code[1] >= m.colours[1]
                || t.code[3] >= m.colours[1]
            {
                return Err(format!("tile {i}: code {:?} outside {:?} colours", t.code, m.colours));
            }
            if t.class as usize >= m.classes.len() {
                return Err(format!("tile {i}: class {} but {} classes named", t.class, m.classes.len()));
            }
        }
        Ok(())
    }
}

/// Mean base colour of a set of splats (0.5 grey when empty).
pub fn mean_rgb(s: &Splats) -> [f32; 3] {
    if s.is_empty() {
        return [0.5; 3];
    }
    let mut m = [0.0f64; 3];
    for i in 0..s.len() {
        let c = s.base_rgb(i);
        for k in 0..3 {
            m[k] += f64::from(c[k]);
        }
    }
    m.map(|v| (v / s.len() as f64) as f32)
}

/// Smallest and largest gain [`match_mean`] applies to a channel.
pub const MATCH_GAIN: (f32, f32) = (0.5, 2.0);

/// Scale the colour of a top-down render per channel so the coverage-weighted mean of its
/// covered pixels, `Σ α·c / Σ α`, equals `target`: the gain `g` solves
/// `Σ α·min(1, g·c) / Σ α = target` (bisection; without clipping `g = target / mean`),
/// clamped to [`MATCH_GAIN`], and colours become `min(1, g·c)`. Composited over `target`, the
/// image's mean colour is then `target` (up to the clamp). An image with no coverage is left
/// alone. Returns the gains.
pub fn match_mean(im: &mut TopImage, target: [f32; 3]) -> [f32; 3] {
    let total: f64 = im.alpha.iter().map(|&a| f64::from(a)).sum();
    if total < 1e-9 {
        return [1.0; 3];
    }
    let gain: [f32; 3] = std::array::from_fn(|ch| {
        let mean = |g: f64| {
            im.rgb.iter().zip(&im.alpha).map(|(c, &a)| f64::from(a) * (g * f64::from(c[ch])).min(1.0)).sum::<f64>()
                / total
        };
        let (t, (lo, hi)) = (f64::from(target[ch]), (f64::from(MATCH_GAIN.0), f64::from(MATCH_GAIN.1)));
        if mean(hi) <= t {
            return MATCH_GAIN.1;
        }
        if mean(lo) >= t {
            return MATCH_GAIN.0;
        }
        let (mut a, mut b) = (lo, hi);
        for _ in 0..40 {
            let m = 0.5 * (a + b);
            if mean(m) < t {
                a = m;
            } else {
                b = m;
            }
        }
        (0.5 * (a + b)) as f32
    });
    for c in &mut im.rgb {
        for ch in 0..3 {
            c[ch] = (c[ch] * gain[ch]).clamp(0.0, 1.0);
        }
    }
    gain
}

/// The files of a tileset as `(name, bytes)`: manifest, `.splat`, `.ply`, and the atlas PNG
/// bytes if given.
pub fn encode(ts: &Tileset, atlas_png: Option<Vec<u8>>) -> Result<Vec<(String, Vec<u8>)>, String> {
    ts.validate()?;
    let json = serde_json::to_vec_pretty(&ts.manifest).map_err(|e| e.to_string())?;
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
pub fn zip_bytes(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opt = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            z.start_file(name.as_str(), opt).map_err(|e| e.to_string())?;
            z.write_all(bytes).map_err(|e| e.to_string())?;
        }
        z.finish().map_err(|e| e.to_string())?;
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
    #[error("{0}")]
    Encode(String),
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
/// use bozkir_splat::starter::{starter, StarterParams};
/// use bozkir_splat::tileset::{read, write_folder};
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
    let mut files = encode(ts, None).map_err(TilesetWriteError::Encode)?;
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes)
            .map_err(|error| TilesetWriteError::Write { name: name.clone(), error })?;
    }
    files.push(("atlas.png".into(), atlas_bytes));
    Ok(files)
}

/// Largest manifest accepted on reading (bytes).
const MAX_MANIFEST: u64 = 64 << 20;

fn parse(manifest: &[u8], splats: &[u8], name: &Path) -> Result<Tileset, String> {
    let manifest: Manifest =
        serde_json::from_slice(manifest).map_err(|e| format!("{}: tileset.json: {e}", name.display()))?;
    let splats = if manifest.sh_degree > 0 {
        ply::parse_ply(splats, name).map_err(|e| e.to_string())?
    } else {
        dot_splat::parse_splat(splats, name).map_err(|e| e.to_string())?
    };
    let ts = Tileset { manifest, splats };
    ts.validate().map_err(|e| format!("{}: {e}", name.display()))?;
    Ok(ts)
}

/// Read a tileset from a directory or a zip (`.zip`). Degree-0 tilesets read `tiles.splat`,
/// others `tiles.ply` (which keeps the SH).
pub fn read(path: &Path) -> Result<Tileset, String> {
    let name = |ts_deg: u8| if ts_deg > 0 { "tiles.ply" } else { "tiles.splat" };
    if path.is_dir() {
        let mpath = path.join("tileset.json");
        let meta = std::fs::metadata(&mpath).map_err(|e| format!("{}: {e}", mpath.display()))?;
        if meta.len() > MAX_MANIFEST {
            return Err(format!("{}: manifest larger than {MAX_MANIFEST} bytes", mpath.display()));
        }
        let m = std::fs::read(&mpath).map_err(|e| format!("{}: {e}", mpath.display()))?;
        let deg: Manifest = serde_json::from_slice(&m).map_err(|e| format!("{}: {e}", mpath.display()))?;
        let sp = path.join(name(deg.sh_degree));
        let s = std::fs::read(&sp).map_err(|e| format!("{}: {e}", sp.display()))?;
        return parse(&m, &s, &sp);
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut z = zip::ZipArchive::new(f).map_err(|e| format!("{}: not a tileset zip: {e}", path.display()))?;
    let mut get = |n: &str| -> Result<Vec<u8>, String> {
        let mut e = z.by_name(n).map_err(|_| format!("{}: no {n} inside", path.display()))?;
        if e.size() > crate::MAX_SPLATS * 512 {
            return Err(format!("{}: {n} too large", path.display()));
        }
        let mut v = Vec::with_capacity(e.size() as usize);
        e.read_to_end(&mut v).map_err(|x| format!("{}: {n}: {x}", path.display()))?;
        Ok(v)
    };
    let m = get("tileset.json")?;
    let deg: Manifest = serde_json::from_slice(&m).map_err(|e| format!("{}: tileset.json: {e}", path.display()))?;
    let s = get(name(deg.sh_degree))?;
    parse(&m, &s, path)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tiles::{build_tiles, ClassPatches, TileParams};
    use crate::wang::{Colours, WangSet};

    pub(crate) fn small_tileset() -> Tileset {
        let c =
            crate::capture::synth(&crate::capture::SynthParams { side_m: 3.0, density: 800.0, ..Default::default() })
                .unwrap();
        let cut = |cx: f64, cy: f64| {
            let s = &c.splats;
            let keep: Vec<usize> = (0..s.len())
                .filter(|&i| {
                    let q = s.positions()[i];
                    (f64::from(q[0]) - cx).abs() <= 0.5 && (f64::from(q[1]) - cy).abs() <= 0.5
                })
                .collect();
            let mut p = s.subset(&keep);
            p.transform(&crate::model::Rigid::translation([-cx, -cy, 0.0]));
            p
        };
        let cl = ClassPatches { h: vec![cut(-1.0, -1.0), cut(1.0, -1.0)], v: vec![cut(-1.0, 1.0), cut(1.0, 1.0)] };
        let set = WangSet::minimal(Colours::square(2).unwrap()).unwrap();
        let p = TileParams { size: 1.0, cut: false, lod: 2, ..TileParams::default() };
        let tiles = build_tiles(&[cl], &set, &p).unwrap();
        Tileset::from_tiles(&tiles, 1.0, [2, 2], "minimal", vec!["ground".into()], false)
    }

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
    fn atlas_tiles_have_the_mean_colour_of_their_splats() {
        let mut ts = small_tileset();
        let res = 32;
        let (w, _, px) = ts.render_atlas(res);
        let cols = ts.manifest.atlas.as_ref().unwrap().cols as usize;
        for t in 0..ts.manifest.tiles.len() {
            let want = mean_rgb(&ts.level(t, 0));
            assert_eq!(ts.manifest.atlas.as_ref().unwrap().mean_rgb[t], want);
            let (cx, cy) = ((t % cols) * res, (t / cols) * res);
            let mut got = [0.0f64; 3];
            for r in 0..res {
                for c in 0..res {
                    let p = px[(cy + r) * w + cx + c];
                    for k in 0..3 {
                        got[k] += f64::from(p[k]) / 255.0 / (res * res) as f64;
                    }
                }
            }
            for k in 0..3 {
                assert!((got[k] - f64::from(want[k])).abs() < 2.0 / 255.0, "tile {t} channel {k}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn match_mean_scales_covered_colour_and_clamps_the_gain() {
        let mut im = TopImage {
            w: 2,
            h: 2,
            rgb: vec![[0.2, 0.4, 0.1], [0.4, 0.4, 0.1], [0.0; 3], [0.3, 0.6, 0.8]],
            alpha: vec![1.0, 1.0, 0.0, 0.5],
        };
        // Covered means (weights 1, 1, 0.5): r 0.3, g 0.44, b 0.24.
        let g = match_mean(&mut im, [0.45, 0.22, 0.9]);
        assert!((g[0] - 1.5).abs() < 1e-5 && (g[1] - 0.5).abs() < 1e-5, "{g:?}");
        // Blue asks for 3.75: clamped to 2.
        assert_eq!(g[2], 2.0);
        assert!((im.rgb[0][0] - 0.3).abs() < 1e-6 && (im.rgb[3][1] - 0.3).abs() < 1e-6);
        // Clipping at 1 is compensated: red 0.5 and 0.9 covered, target 0.8.
        let mut im = TopImage { w: 2, h: 1, rgb: vec![[0.5, 0.5, 0.5], [0.9, 0.5, 0.5]], alpha: vec![1.0, 1.0] };
        match_mean(&mut im, [0.8, 0.5, 0.5]);
        let m = (im.rgb[0][0] + im.rgb[1][0]) / 2.0;
        assert!((m - 0.8).abs() < 2e-3 && im.rgb[1][0] == 1.0, "{m}");
        // Nothing covered: left alone.
        let mut empty = TopImage { w: 1, h: 1, rgb: vec![[0.0; 3]], alpha: vec![0.0] };
        assert_eq!(match_mean(&mut empty, [0.5; 3]), [1.0; 3]);
    }

    #[test]
    fn bad_tilesets_are_refused() {
        let mut ts = small_tileset();
        ts.manifest.tiles[0].levels[0] = [0, ts.manifest.total + 1];
        assert!(ts.validate().unwrap_err().contains("beyond"));
        let mut ts = small_tileset();
        ts.manifest.tiles[1].code = [5, 0, 0, 0];
        assert!(ts.validate().unwrap_err().contains("outside"));
        let tmp = tempfile::tempdir().unwrap();
        let z = tmp.path().join("x.zip");
        std::fs::write(&z, b"not a zip").unwrap();
        assert!(read(&z).unwrap_err().contains("not a tileset zip"));
        assert!(read(tmp.path()).unwrap_err().contains("tileset.json"));
    }
}
