//! Measuring a built tileset: the metrics of [`crate::tiling::metrics`] on Wang layouts of its tiles,
//! and the exact edge check.
//!
//! For each class, an `grid × grid` layout of that class's tiles (edge-matched, seeded) is
//! rendered from above into one luminance mosaic of `res` pixels per tile. On it:
//! **repetition** (lattice excess at whole-tile over half-tile shifts) on brightness and on the
//! landmark map, **busyness** (share of a tile's variance explained by its four triangles: high
//! means the triangles show as patches of different tone), and **seam error** (mean difference
//! across the tile boundaries). [`edge_mismatches`] counts, over every pair of tiles sharing an
//! edge colour, edges whose splats differ: the construction guarantees zero.

use crate::raster::render_top;
use crate::tiling::metrics::{landmarks, luminance, mosaic_busyness, repetition, seam_error};
use crate::tiling::tiles::edge_splats;
use crate::tiling::tileset::{Tileset, TilesetInvalid};
use crate::tiling::wang::{Code, Colours, Side, WangError, WangSet};
use serde::Serialize;

/// Metrics of one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassMetrics {
    pub class: String,
    pub tiles: usize,
    pub repetition_texture: f64,
    pub repetition_landmarks: f64,
    pub busyness_mean: f64,
    pub busyness_sd: f64,
    pub seam_error: f64,
}

/// Everything [`assess`] measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assessment {
    pub classes: Vec<ClassMetrics>,
    /// Tile pairs × sides checked, and how many differ (must be 0).
    pub edges_checked: usize,
    pub edge_mismatches: usize,
    /// Layout mismatches of a 40 × 40 layout over the tile codes (must be 0).
    pub layout_mismatches: usize,
    pub grid: usize,
    pub res: usize,
}

/// Pairs of tiles sharing an edge colour whose splats along that edge differ (band and corner
/// margin in tile units), over level 0.
pub fn edge_mismatches(ts: &Tileset, band: f64, margin: f64) -> (usize, usize) {
    let m = &ts.manifest;
    let n = m.tiles.len();
    let mut edges: Vec<[Vec<[f32; 3]>; 4]> = Vec::with_capacity(n);
    for t in 0..n {
        let s = ts.level(t, 0);
        edges.push(Side::ALL.map(|side| edge_splats(&s, m.size, side, band, margin)));
    }
    let (mut checked, mut bad) = (0, 0);
    for a in 0..n {
        for b in a + 1..n {
            for side in Side::ALL {
                let k = side.index();
                if m.tiles[a].code[k] == m.tiles[b].code[k] && m.tiles[a].class == m.tiles[b].class {
                    checked += 1;
                    if edges[a][k] != edges[b][k] {
                        bad += 1;
                    }
                }
            }
        }
    }
    (checked, bad)
}

/// Why [`assess`] could not measure a tileset; each message is the one the command line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssessError {
    /// The tileset failed [`Tileset::validate`].
    #[error(transparent)]
    Invalid(#[from] TilesetInvalid),
    /// The mosaic grid or the per-tile resolution is out of range.
    #[error("grid {grid} (2..64) or resolution {res} (8..512) out of range")]
    Range { grid: usize, res: usize },
    /// The tileset's colours or codes do not form a Wang set that can be laid out.
    #[error(transparent)]
    Wang(#[from] WangError),
}

/// Measure a tileset (see the module documentation).
pub fn assess(ts: &Tileset, grid: usize, res: usize, seed: u32) -> Result<Assessment, AssessError> {
    ts.validate()?;
    if !(2..=64).contains(&grid) || !(8..=512).contains(&res) {
        return Err(AssessError::Range { grid, res });
    }
    let m = &ts.manifest;
    let colours = Colours::new(m.colours[0], m.colours[1])?;
    let mut classes = Vec::new();
    let mut layout_mismatches = 0;
    for (ci, name) in m.classes.iter().enumerate() {
        let idx: Vec<usize> = (0..m.tiles.len()).filter(|&t| m.tiles[t].class as usize == ci).collect();
        if idx.is_empty() {
            continue;
        }
        let codes: Vec<Code> = idx
            .iter()
            .map(|&t| {
                let c = m.tiles[t].code;
                Code::new(c[0], c[1], c[2], c[3])
            })
            .collect();
        let set = WangSet::from_codes(colours, codes)?;
        let big = set.layout(40, 40, seed)?;
        layout_mismatches += big.mismatches();
        let lay = set.layout(grid, grid, seed)?;
        let grey: Vec<Vec<f32>> = idx
            .iter()
            .map(|&t| {
                let im = render_top(&ts.level(t, 0), [0.0, 0.0], m.size, res);
                let flat: Vec<f32> =
                    im.to_rgb8([0.0; 3]).iter().flat_map(|c| c.map(|v| f32::from(v) / 255.0)).collect();
                luminance(&flat, 3)
            })
            .collect();
        let w = grid * res;
        let mut mosaic = vec![0.0f32; w * w];
        for ty in 0..grid {
            for tx in 0..grid {
                // Layout row 0 is the south row; the mosaic's row 0 is north.
                let tile = &grey[lay.code_index(tx, ty)];
                let oy = (grid - 1 - ty) * res;
                for r in 0..res {
                    mosaic[(oy + r) * w + tx * res..(oy + r) * w + (tx + 1) * res]
                        .copy_from_slice(&tile[r * res..(r + 1) * res]);
                }
            }
        }
        let lm = landmarks(&mosaic, w, w, (res / 3).max(2));
        let (bm, bs) = mosaic_busyness(&mosaic, w, w, res);
        classes.push(ClassMetrics {
            class: name.clone(),
            tiles: idx.len(),
            repetition_texture: repetition(&mosaic, w, w, res),
            repetition_landmarks: repetition(&lm, w, w, res),
            busyness_mean: bm,
            busyness_sd: bs,
            seam_error: seam_error(&mosaic, w, w, res, (res / 16).max(1)),
        });
    }
    let (edges_checked, edge_mismatches) = edge_mismatches(ts, 0.03, 0.04);
    Ok(Assessment { classes, edges_checked, edge_mismatches, layout_mismatches, grid, res })
}

/// The assessment as lines for people, one per class then the edges (two-space indent), as
/// `bozkir tileset` and `bozkir metrics` print them.
pub fn assessment_lines(a: &Assessment) -> Vec<String> {
    let mut out = Vec::new();
    for c in &a.classes {
        out.push(format!(
            "  {:<8} {:>3} tiles  repetition {:.3} (landmarks {:.3})  busyness {:.3} ± {:.3}  seam error {:.4}",
            c.class,
            c.tiles,
            c.repetition_texture,
            c.repetition_landmarks,
            c.busyness_mean,
            c.busyness_sd,
            c.seam_error
        ));
    }
    out.push(format!(
        "  edges: {} shared-colour edges checked, {} differ; a 40×40 layout has {} mismatched edges",
        a.edges_checked, a.edge_mismatches, a.layout_mismatches
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_tileset_has_exact_edges_and_finite_metrics() {
        let ts = crate::tiling::tileset::tests::small_tileset();
        let a = assess(&ts, 6, 24, 1).unwrap();
        assert!(a.edges_checked > 10);
        assert_eq!(a.edge_mismatches, 0);
        assert_eq!(a.layout_mismatches, 0);
        let c = &a.classes[0];
        assert_eq!(c.tiles, 8);
        for v in [c.repetition_texture, c.repetition_landmarks, c.busyness_mean, c.seam_error] {
            assert!(v.is_finite());
        }
        // Two colours per family: every half-diamond recurs often, so there is lattice excess
        // (the original measured 0.50 for two colours), but not a periodic image's ≈ 1.
        assert!((0.05..0.9).contains(&c.repetition_texture), "{}", c.repetition_texture);
        assert!(assess(&ts, 1, 24, 1).is_err());
    }

    #[test]
    fn a_tampered_edge_is_caught() {
        let mut ts = crate::tiling::tileset::tests::small_tileset();
        // Move one splat near tile 0's north edge: its north edge no longer matches its twins'.
        let [start, count] = ts.manifest.tiles[0].levels[0];
        let mut idx: Vec<usize> = (0..ts.splats.len()).collect();
        let s = ts.level(0, 0);
        let k = (0..s.len()).find(|&i| {
            let q = s.positions()[i];
            q[1] > 0.48 && q[0].abs() < 0.3
        });
        let k = k.expect("a splat near the north edge") + start as usize;
        assert!(k < (start + count) as usize);
        idx.remove(k);
        ts.splats = ts.splats.subset(&idx);
        // Shift every later range down by one.
        ts.manifest.total -= 1;
        for (t, e) in ts.manifest.tiles.iter_mut().enumerate() {
            for (l, r) in e.levels.iter_mut().enumerate() {
                if t == 0 && l == 0 {
                    r[1] -= 1;
                } else if r[0] > k as u64 {
                    r[0] -= 1;
                }
            }
        }
        let (_, bad) = edge_mismatches(&ts, 0.03, 0.04);
        assert!(bad > 0);
    }
}
