//! The starter tileset: a two-material, complete 2 × 2-colour Wang set made procedurally, so
//! the viewer has a scene with no data at all (`?scene=starter`, and the no-download path of
//! `bozkir demo`).
//!
//! Each tile is a jittered lattice of flat, slightly anisotropic splats. Its colour comes from
//! the tile's four edge colours: the tile is cut by both diagonals and each triangle takes the
//! palette entry of its edge's Wang colour, feathered across the diagonals
//! ([`crate::tiling::wang::triangle_weights`]). The grain (a hashed value noise) and an edge-parallel weave are
//! periodic with the tile, so two tiles that agree on a shared edge agree on the colours at
//! that edge: the layout is seamless by construction. Class 0 is a pale sand, class 1 a darker
//! scrub; both classes cover the same 16 codes, as the viewer's rule needs.
//!
//! Deterministic: everything comes from the canonical hash ([`bozkir_core::hash::hash_u32`]).

use crate::capture::lod;
use crate::capture::rgb_to_dc;
use crate::model::Splats;
use crate::quat;
use crate::tiling::tiles::Tile;
use crate::tiling::tileset::Tileset;
use crate::tiling::wang::{complete_codes, triangle_weights, Colours};
use bozkir_core::hash::hash_u32;

/// Parameters of the starter set.
#[derive(Debug, Clone, PartialEq)]
pub struct StarterParams {
    /// Tile side in metres (default 1.5).
    pub size: f64,
    /// Splats per tile side before jitter (default 34 → 1,156 per tile).
    pub per_side: usize,
    /// Levels of detail, each about a quarter of the one before (default 3).
    pub levels: u32,
    /// Atlas pixels per tile for the far field (default 32; 0 = no atlas).
    pub atlas_res: usize,
}

impl Default for StarterParams {
    fn default() -> Self {
        StarterParams { size: 1.5, per_side: 34, levels: 3, atlas_res: 32 }
    }
}

/// Palette per class and Wang colour, linear 0..1.
const PALETTE: [[[f64; 3]; 2]; 2] = [
    // class 0, "sand": a pale and a warmer variant
    [[0.60, 0.54, 0.44], [0.66, 0.57, 0.42]],
    // class 1, "scrub": a green-grey and an olive variant
    [[0.24, 0.28, 0.19], [0.31, 0.30, 0.18]],
];

/// Material names of the two classes.
pub const CLASS_NAMES: [&str; 2] = ["sand", "scrub"];

const SEED_JITTER: u32 = 0x5157_A47E;
const SEED_GRAIN: u32 = 0x6EA1_0001;
const SEED_SPIN: u32 = 0x0005_9111;

fn unit(h: u32) -> f64 {
    f64::from(h >> 8) / 16_777_216.0
}

/// Value noise periodic with `period` lattice cells (so periodic with the tile).
fn periodic_noise(x: f64, y: f64, period: u32) -> f64 {
    let (xf, yf) = (x.floor(), y.floor());
    let p = i64::from(period);
    let wrap = |v: i64| (v.rem_euclid(p)) as u32;
    let (ix, iy) = (xf as i64, yf as i64);
    let v = |a: i64, b: i64| unit(hash_u32(wrap(a), wrap(b), SEED_GRAIN));
    let (tx, ty) = (x - xf, y - yf);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let a = v(ix, iy) * (1.0 - sx) + v(ix + 1, iy) * sx;
    let b = v(ix, iy + 1) * (1.0 - sx) + v(ix + 1, iy + 1) * sx;
    a * (1.0 - sy) + b * sy
}

/// Level 0 of the tile with edge colours `code` (`[n, e, s, w]`) and class `class`.
fn tile_splats(p: &StarterParams, code: [u8; 4], class: usize) -> Splats {
    let m = p.per_side;
    let step = p.size / m as f64;
    let mut out = Splats::with_capacity(m * m, 0);
    for r in 0..m {
        for c in 0..m {
            let (cu, rv) = (c as u32, r as u32);
            // Jitter is hashed on the lattice cell only (not the tile), so it tiles too.
            let jx = unit(hash_u32(cu, rv, SEED_JITTER)) - 0.5;
            let jy = unit(hash_u32(cu, rv, SEED_JITTER ^ 0x9E37_79B9)) - 0.5;
            let u = ((c as f64 + 0.5 + 0.7 * jx) / m as f64).clamp(0.0, 1.0);
            let v = ((r as f64 + 0.5 + 0.7 * jy) / m as f64).clamp(0.0, 1.0);
            let w = triangle_weights(u, v, 0.1);
            let mut rgb = [0.0; 3];
            for (side, &wt) in w.iter().enumerate() {
                let col = PALETTE[class][code[side] as usize];
                for k in 0..3 {
                    rgb[k] += wt * col[k];
                }
            }
            // Grain on a lattice of 6 cells per tile and 17 per tile, and a weave along the
            // nearer pair of edges; all periodic with the tile.
            let g = 0.65 * periodic_noise(u * 6.0, v * 6.0, 6) + 0.35 * periodic_noise(u * 17.0, v * 17.0, 17);
            let weave =
                0.5 + 0.5 * (std::f64::consts::TAU * 8.0 * if (u - 0.5).abs() > (v - 0.5).abs() { v } else { u }).cos();
            let amp = if class == 0 { 0.10 } else { 0.16 };
            let f = 1.0 + amp * (g - 0.5) * 2.0 + 0.04 * (weave - 0.5);
            let rgb = rgb.map(|x| (x * f).clamp(0.0, 1.0));
            let spin = unit(hash_u32(cu, rv, SEED_SPIN)) * std::f64::consts::PI;
            let rot = quat::from_axis_angle([0.0, 0.0, 1.0], spin).map(|x| x as f32);
            let sigma = 0.78 * step * 0.5;
            let x = (u - 0.5) * p.size;
            let y = (v - 0.5) * p.size;
            let z = 0.004 * p.size * (g - 0.5);
            out.push_decoded(
                [x as f32, y as f32, z as f32],
                [(sigma * 1.3) as f32, (sigma / 1.3) as f32, (0.004 * p.size) as f32],
                rot,
                0.92,
                rgb_to_dc(rgb),
                &[],
            );
        }
    }
    out
}

/// Build the starter tileset (32 tiles: 2 classes × the 16 codes of a complete 2 × 2 set),
/// with its levels of detail and, when `atlas_res > 0`, its atlas. Returns the tileset and the
/// atlas pixels (`cols·res × rows·res` RGB, empty without an atlas).
pub fn starter(p: &StarterParams) -> (Tileset, usize, usize, Vec<[u8; 3]>) {
    let colours = Colours::square(2).expect("2 colours is a valid set");
    let codes = complete_codes(colours);
    let mut tiles = Vec::with_capacity(2 * codes.len());
    for class in 0..2usize {
        for code in &codes {
            let l0 = tile_splats(p, [code.n, code.e, code.s, code.w], class);
            let levels = lod::build_lod(&l0, p.levels.max(1)).into_iter().map(|l| l.splats).collect();
            tiles.push(Tile { code: *code, class: class as u8, levels, seam_cost: 0.0, straight_cost: 0.0 });
        }
    }
    let names = CLASS_NAMES.iter().map(|s| s.to_string()).collect();
    let mut ts = Tileset::from_tiles(&tiles, p.size, [2, 2], "complete", names, false);
    ts.manifest.settings.insert("starter".into(), serde_json::Value::Bool(true));
    if p.atlas_res == 0 {
        return (ts, 0, 0, Vec::new());
    }
    let (w, h, px) = ts.render_atlas(p.atlas_res);
    (ts, w, h, px)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> StarterParams {
        StarterParams { size: 1.5, per_side: 12, levels: 2, atlas_res: 8 }
    }

    #[test]
    fn thirty_two_tiles_two_classes_every_code() {
        let (ts, w, h, px) = starter(&small());
        assert_eq!(ts.manifest.tiles.len(), 32);
        ts.validate().unwrap();
        for class in 0..2u8 {
            let mut codes: Vec<[u8; 4]> =
                ts.manifest.tiles.iter().filter(|t| t.class == class).map(|t| t.code).collect();
            codes.sort();
            codes.dedup();
            assert_eq!(codes.len(), 16, "class {class} covers all 16 codes");
        }
        assert_eq!(ts.manifest.lod, 2);
        assert_eq!(px.len(), w * h);
        let atlas = ts.manifest.atlas.as_ref().unwrap();
        assert_eq!((atlas.cols * atlas.res) as usize, w);
    }

    #[test]
    fn deterministic() {
        let (a, ..) = starter(&small());
        let (b, ..) = starter(&small());
        assert_eq!(
            crate::formats::dot_splat::encode_splat(&a.splats),
            crate::formats::dot_splat::encode_splat(&b.splats)
        );
    }

    /// Two tiles that share an edge colour have matching colours along that edge: compare the
    /// mean colour of the splats in the strip next to the east edge of one tile with the strip
    /// next to the west edge of a tile whose west colour equals it.
    #[test]
    fn edges_match_across_tiles() {
        let p = StarterParams { per_side: 34, levels: 1, atlas_res: 0, ..StarterParams::default() };
        let (ts, ..) = starter(&p);
        let strip = |t: usize, east: bool| -> [f64; 3] {
            let s = ts.level(t, 0);
            let mut sum = [0.0; 3];
            let mut n = 0.0;
            for i in 0..s.len() {
                let x = f64::from(s.positions()[i][0]) / p.size + 0.5;
                let y = f64::from(s.positions()[i][1]) / p.size + 0.5;
                let near = if east { x > 0.95 } else { x < 0.05 };
                if near && (0.3..0.7).contains(&y) {
                    let c = s.base_rgb(i);
                    for k in 0..3 {
                        sum[k] += f64::from(c[k]);
                    }
                    n += 1.0;
                }
            }
            sum.map(|v| v / n)
        };
        let tiles = &ts.manifest.tiles;
        let mut checked = 0;
        for a in 0..tiles.len() {
            for b in 0..tiles.len() {
                if tiles[a].class == tiles[b].class && tiles[a].code[1] == tiles[b].code[3] {
                    let (ea, wb) = (strip(a, true), strip(b, false));
                    for k in 0..3 {
                        assert!((ea[k] - wb[k]).abs() < 6.0 / 255.0, "tiles {a}/{b} channel {k}: {ea:?} vs {wb:?}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 100);
    }

    #[test]
    fn classes_differ_in_colour() {
        let (ts, ..) = starter(&small());
        let mean = |class: u8| {
            let idx: Vec<usize> =
                ts.manifest.tiles.iter().enumerate().filter(|(_, t)| t.class == class).map(|(i, _)| i).collect();
            let mut m = 0.0;
            for &t in &idx {
                m += crate::tiling::tileset::mean_rgb(&ts.level(t, 0))[1] as f64;
            }
            m / idx.len() as f64
        };
        assert!(mean(0) > mean(1) + 0.15, "sand is paler than scrub");
    }
}
