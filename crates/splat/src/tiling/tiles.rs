//! Assembling Wang tiles from ground patches (Cohen et al. 2003, applied to Gaussians; GSWT §3).
//!
//! A tile is cut by both diagonals into four triangles; the triangle touching edge `X` is drawn
//! from the patch of `X`'s colour. The patch is placed as Cohen places his diamonds: **centred
//! on the midpoint of the edge**, so the two half-diamonds that meet across a shared edge (the
//! north triangle of one tile and the south triangle of the tile above) are one contiguous piece
//! of the same patch. Every tile with a given north colour therefore holds the same Gaussians
//! along its north edge, and the ground continues across the edge without a seam. (The
//! original bozkir centred every patch on the tile, which keeps the edges identical but joins
//! the top of a patch to its own bottom across each edge.)
//!
//! Inside the tile the four patches meet on the diagonals. With `cut` on, the diagonals are
//! moved to where neighbouring patches already agree: the four patches are rendered from above
//! over the tile ([`crate::raster`]) and each diagonal's band is relabelled by a graph-cut seam
//! ([`crate::tiling::graphcut::seam::seam`], cost `Σ|A − B|` of premultiplied colour and coverage); a strip of
//! `edge_margin` along every edge and a disc of `centre_hold` at the centre stay on the plain
//! triangles, so the edge property above is kept exactly. Each splat then takes the label of the
//! pixel under its centre. Without `cut` the plain triangles are used.
//!
//! Tiles are cut exactly at the square (no two tiles cover the same ground), capped at
//! `max_per_tile` splats by a stratified choice of the most visible splats, and given
//! `lod` levels by merging ([`crate::capture::lod`], with clamped merges inflated so every level keeps
//! the tile's weight).

use crate::capture::lod;
use crate::model::Splats;
use crate::raster::{render_top, TopImage};
use crate::tiling::graphcut::seam::{pixel_cost, seam, Lock, Pick};
use crate::tiling::wang::{triangle, Code, Side, WangSet};

/// Settings of [`build_tiles`].
#[derive(Debug, Clone, PartialEq)]
pub struct TileParams {
    /// Tile side in metres.
    pub size: f64,
    /// Graph-cut seams on the diagonals.
    pub cut: bool,
    /// Render resolution of the seam search (pixels per tile side).
    pub cut_res: usize,
    /// Half-width of the free band around each diagonal, in tile units.
    pub band: f64,
    /// Strip along each edge kept on the plain triangle, in tile units.
    pub edge_margin: f64,
    /// Disc at the centre kept on the plain triangles, in tile units.
    pub centre_hold: f64,
    /// Most splats in one tile (level 0).
    pub max_per_tile: usize,
    /// Levels of detail (1 = level 0 only).
    pub lod: u32,
}

impl Default for TileParams {
    fn default() -> Self {
        TileParams {
            size: 1.5,
            cut: true,
            cut_res: 128,
            band: 0.14,
            edge_margin: 0.06,
            centre_hold: 0.05,
            max_per_tile: 60_000,
            lod: 4,
        }
    }
}

/// One class's patches, each centred on the origin in the ground plane (z up): `h[k]` is the
/// patch of horizontal-family colour `k` (north and south edges), `v[k]` of vertical colour `k`.
#[derive(Debug, Clone)]
pub struct ClassPatches {
    pub h: Vec<Splats>,
    pub v: Vec<Splats>,
}

/// A built tile.
#[derive(Debug, Clone)]
pub struct Tile {
    pub code: Code,
    pub class: u8,
    /// Level 0 (full) first; each next level merged to about a quarter.
    pub levels: Vec<Splats>,
    /// Cost of the cut seams (sum over the four diagonals) and of the plain diagonals on the
    /// same renders; equal when `cut` is off.
    pub seam_cost: f64,
    pub straight_cost: f64,
}

const SIDES: [Side; 4] = [Side::North, Side::East, Side::South, Side::West];

/// Where the centre of side `s`'s patch sits in the tile (edge midpoint), in metres.
fn offset(s: Side, size: f64) -> [f64; 2] {
    let h = size / 2.0;
    match s {
        Side::North => [0.0, h],
        Side::East => [h, 0.0],
        Side::South => [0.0, -h],
        Side::West => [-h, 0.0],
    }
}

/// Why [`build_tiles`] refused its inputs; each message is the one the command line prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TilesError {
    /// The tile size is zero, negative or not finite.
    #[error("tile size {0} must be positive")]
    Size(f64),
    /// The graph-cut resolution is outside 16..=1024.
    #[error("cut resolution {0} outside 16..1024")]
    CutRes(usize),
    /// The band, edge margin or centre hold is outside its range.
    #[error("band must lie in 0..0.5, edge margin and centre hold in 0..0.25 (tile units)")]
    Band,
    /// The splat budget per tile is below 64.
    #[error("max splats per tile {0} below 64")]
    MaxPerTile(usize),
    /// The number of levels of detail is outside 1..=8.
    #[error("{0} levels of detail outside 1..8")]
    Lod(u32),
    /// No classes were given.
    #[error("no classes")]
    NoClasses,
    /// A class has fewer edge patches than the set has colours.
    #[error("class {class}: {h} horizontal and {v} vertical patches for {ch} × {cv} colours")]
    TooFewPatches { class: usize, h: usize, v: usize, ch: u8, cv: u8 },
    /// A class holds an empty patch.
    #[error("class {class}: patch {patch} is empty")]
    EmptyPatch { class: usize, patch: usize },
}

fn check(classes: &[ClassPatches], set: &WangSet, p: &TileParams) -> Result<(), TilesError> {
    if !(p.size > 0.0 && p.size.is_finite()) {
        return Err(TilesError::Size(p.size));
    }
    if !(16..=1024).contains(&p.cut_res) {
        return Err(TilesError::CutRes(p.cut_res));
    }
    if !(0.0..0.5).contains(&p.band) || !(0.0..0.25).contains(&p.edge_margin) || !(0.0..0.25).contains(&p.centre_hold) {
        return Err(TilesError::Band);
    }
    if p.max_per_tile < 64 {
        return Err(TilesError::MaxPerTile(p.max_per_tile));
    }
    if !(1..=8).contains(&p.lod) {
        return Err(TilesError::Lod(p.lod));
    }
    if classes.is_empty() {
        return Err(TilesError::NoClasses);
    }
    let c = set.colours();
    for (k, cl) in classes.iter().enumerate() {
        if cl.h.len() < c.h() as usize || cl.v.len() < c.v() as usize {
            return Err(TilesError::TooFewPatches { class: k, h: cl.h.len(), v: cl.v.len(), ch: c.h(), cv: c.v() });
        }
        if let Some(i) = cl.h.iter().chain(&cl.v).position(|s| s.is_empty()) {
            return Err(TilesError::EmptyPatch { class: k, patch: i });
        }
    }
    Ok(())
}

/// Pixel centre of `(col, row)` in tile units (`u` east, `v` north, both in −½..½).
fn uv(col: usize, row: usize, r: usize) -> (f64, f64) {
    ((col as f64 + 0.5) / r as f64 - 0.5, 0.5 - (row as f64 + 0.5) / r as f64)
}

/// The side label of every pixel: plain triangles, and with `cut` the diagonals relabelled by
/// graph cut. Returns the labels and (seam cost, straight cost).
fn labels(images: Option<&[TopImage; 4]>, p: &TileParams) -> (Vec<u8>, f64, f64) {
    let r = p.cut_res;
    let mut lab: Vec<u8> = (0..r * r)
        .map(|k| {
            let (u, v) = uv(k % r, k / r, r);
            triangle(u + 0.5, v + 0.5).index() as u8
        })
        .collect();
    let Some(img) = images else {
        return (lab, 0.0, 0.0);
    };
    let (mut cut_total, mut straight_total) = (0.0, 0.0);
    // The four diagonal rays: (side a, side b, signed distance across, which half).
    type Ray = (usize, usize, fn(f64, f64) -> f64, fn(f64, f64) -> bool);
    let rays: [Ray; 4] = [
        (0, 1, |u, v| (v - u) / std::f64::consts::SQRT_2, |u, _| u > 0.0),
        (1, 2, |u, v| (v + u) / std::f64::consts::SQRT_2, |u, _| u > 0.0),
        (2, 3, |u, v| (v - u) / std::f64::consts::SQRT_2, |u, _| u < 0.0),
        (3, 0, |u, v| (v + u) / std::f64::consts::SQRT_2, |u, _| u < 0.0),
    ];
    let pre = |im: &TopImage| -> Vec<f32> {
        im.rgb.iter().zip(&im.alpha).flat_map(|(c, &a)| [c[0] * a, c[1] * a, c[2] * a, a]).collect()
    };
    let planes: Vec<Vec<f32>> = img.iter().map(pre).collect();
    for (a, b, signed, half) in rays {
        let cost = pixel_cost(&planes[a], &planes[b], 4);
        let mut locks: Vec<Lock> = Vec::with_capacity(r * r);
        let mut free = 0;
        for (k, &lk) in lab.iter().enumerate() {
            let (u, v) = uv(k % r, k / r, r);
            let inner = u.abs().max(v.abs()) < 0.5 - p.edge_margin && u.hypot(v) > p.centre_hold;
            let l = lk as usize;
            let is_free = inner && half(u, v) && signed(u, v).abs() < p.band && (l == a || l == b);
            locks.push(if is_free {
                free += 1;
                None
            } else if l == b {
                Some(Pick::B)
            } else {
                Some(Pick::A)
            });
        }
        if free < 16 {
            continue;
        }
        let plain: Vec<Pick> = lab.iter().map(|&l| if l as usize == b { Pick::B } else { Pick::A }).collect();
        straight_total += crate::tiling::graphcut::seam::cut_cost(&cost, r, r, &plain);
        let Ok(s) = seam(&cost, r, r, &locks) else { continue };
        cut_total += s.cost;
        for ((l, lock), pick) in lab.iter_mut().zip(&locks).zip(&s.labels) {
            if lock.is_none() {
                *l = if *pick == Pick::A { a as u8 } else { b as u8 };
            }
        }
    }
    (lab, cut_total, straight_total)
}

/// The label of the pixel under tile point `(x, y)` metres.
fn label_at(lab: &[u8], r: usize, size: f64, x: f64, y: f64) -> u8 {
    let col = (((x / size) + 0.5) * r as f64).floor().clamp(0.0, r as f64 - 1.0) as usize;
    let row = ((0.5 - y / size) * r as f64).floor().clamp(0.0, r as f64 - 1.0) as usize;
    lab[row * r + col]
}

/// Keep at most `budget` splats, stratified over a `g × g` grid of the tile (`g = ⌈√budget⌉`):
/// the most visible splat (opacity × footprint) of every occupied bin first, then the next of
/// every bin, and so on; the kept indices are returned in ascending order.
pub fn stratified_keep(s: &Splats, budget: usize, size: f64) -> Vec<usize> {
    let n = s.len();
    if n <= budget {
        return (0..n).collect();
    }
    let g = (budget as f64).sqrt().ceil() as usize;
    let mut bins: Vec<Vec<usize>> = vec![Vec::new(); g * g];
    for (i, q) in s.positions().iter().enumerate() {
        let bx = (((f64::from(q[0]) / size) + 0.5) * g as f64).floor().clamp(0.0, g as f64 - 1.0) as usize;
        let by = (((f64::from(q[1]) / size) + 0.5) * g as f64).floor().clamp(0.0, g as f64 - 1.0) as usize;
        bins[by * g + bx].push(i);
    }
    for b in bins.iter_mut() {
        b.sort_by(|&x, &y| lod::weight(s, y).total_cmp(&lod::weight(s, x)).then(x.cmp(&y)));
    }
    let mut keep = Vec::with_capacity(budget);
    let mut round = 0;
    while keep.len() < budget {
        let mut any = false;
        for b in &bins {
            if let Some(&i) = b.get(round) {
                any = true;
                keep.push(i);
                if keep.len() == budget {
                    break;
                }
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    keep.sort_unstable();
    keep
}

/// Build one tile of `code` for `class` from the class's patches.
pub fn build_tile(cl: &ClassPatches, code: Code, class: u8, p: &TileParams) -> Tile {
    let patch = |s: Side| -> &Splats {
        let c = code.colour(s) as usize;
        match s {
            Side::North | Side::South => &cl.h[c],
            Side::East | Side::West => &cl.v[c],
        }
    };
    let images = p.cut.then(|| {
        SIDES.map(|s| {
            let o = offset(s, p.size);
            render_top(patch(s), [-o[0], -o[1]], p.size, p.cut_res)
        })
    });
    let (lab, seam_cost, straight_cost) = labels(images.as_ref(), p);
    let half = p.size / 2.0;
    let mut tile = Splats::new(3);
    for (k, &s) in SIDES.iter().enumerate() {
        let src = patch(s);
        let o = offset(s, p.size);
        let mut keep = Vec::new();
        for (i, q) in src.positions().iter().enumerate() {
            let (x, y) = (f64::from(q[0]) + o[0], f64::from(q[1]) + o[1]);
            if x.abs() <= half && y.abs() <= half && label_at(&lab, p.cut_res, p.size, x, y) as usize == k {
                keep.push(i);
            }
        }
        let mut part = src.subset(&keep);
        part.transform(&crate::model::Rigid::translation([o[0], o[1], 0.0]));
        tile.append(&part);
    }
    let keep = stratified_keep(&tile, p.max_per_tile, p.size);
    let tile = if keep.len() < tile.len() { tile.subset(&keep) } else { tile };
    // Inflate clamped merges so each level carries the tile's full weight: merged ground must
    // stay opaque from a distance (the original compensated by scaling every splat instead).
    let levels =
        lod::build_lod_with(&tile, p.lod, lod::Options { inflate: true }).into_iter().map(|l| l.splats).collect();
    Tile { code, class, levels, seam_cost, straight_cost: if p.cut { straight_cost } else { seam_cost } }
}

/// Every tile of the set for every class (class-major, codes in the set's order).
pub fn build_tiles(classes: &[ClassPatches], set: &WangSet, p: &TileParams) -> Result<Vec<Tile>, TilesError> {
    check(classes, set, p)?;
    let jobs: Vec<(usize, Code)> = (0..classes.len()).flat_map(|c| set.codes().iter().map(move |&k| (c, k))).collect();
    use rayon::prelude::*;
    Ok(jobs.par_iter().map(|&(c, code)| build_tile(&classes[c], code, c as u8, p)).collect())
}

/// Splats within `band` (tile units) of `side`'s edge and `margin` away from its corners, as
/// sorted positions: tiles sharing that edge colour must return identical lists.
pub fn edge_splats(tile: &Splats, size: f64, side: Side, band: f64, margin: f64) -> Vec<[f32; 3]> {
    let mut out: Vec<[f32; 3]> = tile
        .positions()
        .iter()
        .copied()
        .filter(|q| {
            let (x, y) = (f64::from(q[0]) / size, f64::from(q[1]) / size);
            match side {
                Side::North => y > 0.5 - band && y > x.abs() + margin,
                Side::South => y < -0.5 + band && -y > x.abs() + margin,
                Side::East => x > 0.5 - band && x > y.abs() + margin,
                Side::West => x < -0.5 + band && -x > y.abs() + margin,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.iter().zip(b).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{synth, Material, SynthParams};
    use crate::tiling::wang::Colours;

    /// Patches cut from a synthetic capture at separated centres, each recentred.
    fn patches(n: usize, size: f64, seed: u32) -> Vec<Splats> {
        let c = synth(&SynthParams {
            side_m: 6.0,
            density: 1500.0,
            materials: vec![Material::sand()],
            seed,
            ..Default::default()
        })
        .unwrap();
        let s = &c.splats;
        (0..n)
            .map(|k| {
                let cx = -2.0 + (k % 3) as f64 * 2.0;
                let cy = -2.0 + (k / 3) as f64 * 2.0;
                let keep: Vec<usize> = (0..s.len())
                    .filter(|&i| {
                        let q = s.positions()[i];
                        (f64::from(q[0]) - cx).abs() <= size / 2.0 && (f64::from(q[1]) - cy).abs() <= size / 2.0
                    })
                    .collect();
                let mut p = s.subset(&keep);
                p.transform(&crate::model::Rigid::translation([-cx, -cy, 0.0]));
                p
            })
            .collect()
    }

    #[test]
    fn tiles_sharing_an_edge_colour_hold_identical_splats_along_it() {
        let size = 1.5;
        let ps = patches(4, size, 3);
        let cl = ClassPatches { h: ps[0..2].to_vec(), v: ps[2..4].to_vec() };
        let set = WangSet::minimal(Colours::square(2).unwrap()).unwrap();
        let p = TileParams { size, cut_res: 64, lod: 2, ..TileParams::default() };
        let tiles = build_tiles(std::slice::from_ref(&cl), &set, &p).unwrap();
        assert_eq!(tiles.len(), 8);
        let mut checked = 0;
        for side in SIDES {
            for a in &tiles {
                for b in &tiles {
                    if a.code.colour(side) == b.code.colour(side) {
                        let ea = edge_splats(&a.levels[0], size, side, 0.04, 0.04);
                        let eb = edge_splats(&b.levels[0], size, side, 0.04, 0.04);
                        assert!(!ea.is_empty());
                        assert_eq!(ea, eb, "{} vs {} on {side:?}", a.code, b.code);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 16);
        // Across an edge the two half-diamonds come from the same placed patch: the north strip
        // of a tile and the south strip of any tile with that south colour are the two sides of
        // one patch's centre line.
        for t in &tiles {
            assert!(t.seam_cost <= t.straight_cost + 1e-6, "{} > {}", t.seam_cost, t.straight_cost);
            let b = t.levels[0].bounds().unwrap();
            assert!(b.min[0] >= -0.75 - 1e-6 && b.max[0] <= 0.75 + 1e-6);
            assert_eq!(t.levels.len(), 2);
            assert!(t.levels[1].len() < t.levels[0].len());
        }
    }

    #[test]
    fn without_cut_tiles_are_plain_triangles_and_deterministic() {
        let size = 1.0;
        let ps = patches(4, size, 5);
        let cl = ClassPatches { h: ps[0..2].to_vec(), v: ps[2..4].to_vec() };
        let set = WangSet::complete(Colours::square(2).unwrap());
        let p = TileParams { size, cut: false, lod: 1, ..TileParams::default() };
        let a = build_tiles(std::slice::from_ref(&cl), &set, &p).unwrap();
        let b = build_tiles(std::slice::from_ref(&cl), &set, &p).unwrap();
        assert_eq!(a.len(), 16);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.levels[0], y.levels[0]);
        }
        // Every splat lies in the triangle of the patch it came from: the north triangle's splats
        // are the north patch's, shifted by half a tile.
        let t = &a[0];
        assert!(t.levels[0].len() > 100);
        assert!(build_tiles(&[], &set, &p).is_err());
        let short = ClassPatches { h: ps[0..1].to_vec(), v: ps[2..4].to_vec() };
        assert!(build_tiles(&[short], &set, &p).unwrap_err().to_string().contains("horizontal"));
    }

    #[test]
    fn stratified_keep_spreads_over_the_tile() {
        let ps = patches(1, 1.0, 2);
        let s = &ps[0];
        let keep = stratified_keep(s, 400, 1.0);
        assert_eq!(keep.len(), 400);
        let sub = s.subset(&keep);
        let b = sub.bounds().unwrap();
        assert!(b.extent()[0] > 0.9 && b.extent()[1] > 0.9);
        assert_eq!(stratified_keep(s, s.len() + 5, 1.0).len(), s.len());
    }
}
