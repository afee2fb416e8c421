//! The tileset format: a manifest plus the splats of every tile and level of detail, in one
//! directory or one zip file (documented in `docs/formats.md`, "Tilesets").
//!
//! * `tileset.json` — the manifest ([`Manifest`]): tile size, colours, classes, and per tile its
//!   code, class and the `[start, count]` range of each level in the splat files.
//! * `tiles.splat` — every level of every tile, concatenated in manifest order, 32 bytes per
//!   splat (`crate::formats::dot_splat`; what a browser viewer streams).
//! * `tiles.ply` — the same splats in the same order as a 3DGS PLY keeping the SH degree
//!   (`.splat` drops view-dependent colour).
//! * `atlas.png` — every tile's level 0 seen from above (`crate::raster`), tiles in a grid of
//!   `cols × rows` cells of `res` pixels, in manifest order (the far field's texture), when
//!   written. Each tile's colour is matched to the mean base colour of its splats
//!   ([`match_mean`]) and its holes show that mean, so the far field has the tone of the near
//!   field.
//!
//! A zip of those files (stored with deflate) is a single-file tileset a page can take by drag
//! and drop. Reading and writing them: `crate::formats::tileset`.

use crate::model::Splats;
use crate::raster::{render_top, TopImage};
use crate::tiling::tiles::Tile;
use serde::{Deserialize, Serialize};

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
    pub fn validate(&self) -> Result<(), TilesetInvalid> {
        let m = &self.manifest;
        if m.format_version != TILESET_FORMAT_VERSION {
            return Err(TilesetInvalid::Version(m.format_version));
        }
        if m.total != self.splats.len() as u64 {
            return Err(TilesetInvalid::Total { manifest: m.total, file: self.splats.len() });
        }
        if !(m.size > 0.0 && m.size.is_finite()) {
            return Err(TilesetInvalid::Size(m.size));
        }
        for (i, t) in m.tiles.iter().enumerate() {
            if t.levels.is_empty() {
                return Err(TilesetInvalid::NoLevels { tile: i });
            }
            for &[s, c] in &t.levels {
                if s.checked_add(c).is_none_or(|e| e > m.total) {
                    return Err(TilesetInvalid::Range { tile: i, start: s, count: c, total: m.total });
                }
            }
            if t.code[0] >= m.colours[0]
                || t.code[2] >= m.colours[0]
                || t.code[1] >= m.colours[1]
                || t.code[3] >= m.colours[1]
            {
                return Err(TilesetInvalid::Code { tile: i, code: t.code, colours: m.colours });
            }
            if t.class as usize >= m.classes.len() {
                return Err(TilesetInvalid::Class { tile: i, class: t.class, named: m.classes.len() });
            }
        }
        Ok(())
    }
}

/// Why [`Tileset::validate`] rejected a tileset; each message is the one the command line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TilesetInvalid {
    /// The manifest's format version is not the one this build reads.
    #[error("tileset format version {0} (this build reads {TILESET_FORMAT_VERSION})")]
    Version(u32),
    /// The manifest's splat total differs from the splat file's.
    #[error("manifest says {manifest} splats, the splat file holds {file}")]
    Total { manifest: u64, file: usize },
    /// The tile size is zero, negative or not finite.
    #[error("tile size {0} is not positive")]
    Size(f64),
    /// A tile lists no levels of detail.
    #[error("tile {tile} has no levels")]
    NoLevels { tile: usize },
    /// A level's splat range runs past the end of the splats.
    #[error("tile {tile}: range {start}+{count} beyond the {total} splats")]
    Range { tile: usize, start: u64, count: u64, total: u64 },
    /// A tile's edge code names a colour the set does not have.
    #[error("tile {tile}: code {code:?} outside {colours:?} colours")]
    Code { tile: usize, code: [u8; 4], colours: [u8; 2] },
    /// A tile's class index has no name.
    #[error("tile {tile}: class {class} but {named} classes named")]
    Class { tile: usize, class: u8, named: usize },
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tiling::tiles::{build_tiles, ClassPatches, TileParams};
    use crate::tiling::wang::{Colours, WangSet};

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
        assert!(ts.validate().unwrap_err().to_string().contains("beyond"));
        let mut ts = small_tileset();
        ts.manifest.tiles[1].code = [5, 0, 0, 0];
        assert!(ts.validate().unwrap_err().to_string().contains("outside"));
    }
}
