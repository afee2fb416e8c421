//! River lines for the baked textures (`bozkir bake`'s `rivers.png`): the rivers of a terrain as
//! smooth lines of their own width, drawn at the texture's resolution rather than cell by cell,
//! so a river crossing the grid on a diagonal is a line and not a staircase of whole cells.
//!
//! The network is the terrain's D8 drainage (on the epsilon-filled heights): the cells draining
//! at least `start` cells ([`crate::bake::river_start_cells`]), cut into segments between
//! confluences ([`stream_segments`]). Each segment's polyline runs through its cell centres into
//! the confluence it feeds; two rounds of Chaikin's corner cutting (G. Chaikin, 1974, "An
//! algorithm for high-speed curve generation") round its 45° and 90° turns, its ends kept so
//! lines still meet. A point's width is the hydraulic-geometry width `4 · √A` metres for `A`
//! square kilometres drained (channel width grows with the square root of discharge, Leopold &
//! Maddock 1953; 4 m per √km² is a temperate-river middle), at least 1.5 texels so the smallest
//! rivers stay visible; its depth is [`crate::bake::river_depth`]. Lines are drawn as capsules
//! between consecutive points, their radius interpolated along the edge, with a one-texel
//! anti-aliased rim; where lines overlap the larger coverage and depth win.

use crate::bake::river_depth;
use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
#[cfg(doc)]
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use bozkir_terrain::hydrology::streams::{stream_network, StreamParams, Threshold};
use bozkir_terrain::hydrology::vectors::stream_segments;

/// Hydraulic-geometry width in metres of a river draining `area_m2`: `4 · √(A / 1 km²)`.
pub fn river_width_m(area_m2: f64) -> f64 {
    4.0 * (area_m2.max(0.0) / 1e6).sqrt()
}

/// Rivers of `filled` (heights in metres, already depression-filled with an epsilon gradient —
/// [`fill_epsilon`], as the bake's lakes use them; `dx`, `dy` its cell size) as an
/// `out_w × out_h` texture laid as
/// the bake lays its textures (texel `(ox, oy)` at grid cell `((ox + ½)(w − 1)/out_w,
/// (oy + ½)(h − 1)/out_h)`): per texel the river's coverage (0..1) and its depth in metres (0
/// off the rivers). `None` when no cell drains `start` cells.
pub fn river_lines(filled: &Grid<f64>, start: f64, out_w: usize, out_h: usize) -> Option<Grid<[f32; 2]>> {
    let height = filled;
    let (w, h) = (height.width(), height.height());
    if w < 2 || h < 2 || out_w == 0 || out_h == 0 {
        return None;
    }
    let (dx, dy) = (height.dx.abs().max(1e-9), height.dy.abs().max(1e-9));
    let g = d8_receivers(filled);
    let acc = accumulate_cells(&g);
    let threshold = Threshold::Cells(start.ceil().max(1.0) as u32);
    let net = stream_network(&g, &acc, &StreamParams { threshold, strahler: false, ..StreamParams::default() });
    if net.cells == 0 {
        return None;
    }
    let segments = stream_segments(&g, &net, &acc).ok()?;
    // Metres per texel along x and y; the texture's frame in metres: x = gx·dx, y = gy·dy.
    let (tx, ty) = (dx * (w - 1) as f64 / out_w as f64, dy * (h - 1) as f64 / out_h as f64);
    let texel = tx.max(ty);
    let min_width = 1.5 * texel;
    let mut out = Grid::from_fn(out_w, out_h, |_, _| [0.0f32; 2]);
    for s in &segments {
        // (x m, y m, drained cells) at each point: the segment's cells, then the confluence.
        let mut pts: Vec<[f64; 3]> = s
            .points
            .iter()
            .map(|&(c, r)| {
                let i = r as usize * w + c as usize;
                [c * dx, r * dy, f64::from(acc[i])]
            })
            .collect();
        for _ in 0..2 {
            pts = chaikin(&pts);
        }
        if pts.len() == 1 {
            pts.push(pts[0]);
        }
        for e in pts.windows(2) {
            let [a, b] = [e[0], e[1]];
            let (ra, rb) = (radius(a[2], dx * dy, min_width), radius(b[2], dx * dy, min_width));
            let (da, db) = (river_depth(a[2], start), river_depth(b[2], start));
            let reach = ra.max(rb) + texel;
            // Texel bounds of the capsule (texel centre x = (ox + ½)·tx).
            let lo_x = ((a[0].min(b[0]) - reach) / tx - 0.5).floor().max(0.0) as usize;
            let hi_x = (((a[0].max(b[0]) + reach) / tx - 0.5).ceil().max(0.0) as usize).min(out_w - 1);
            let lo_y = ((a[1].min(b[1]) - reach) / ty - 0.5).floor().max(0.0) as usize;
            let hi_y = (((a[1].max(b[1]) + reach) / ty - 0.5).ceil().max(0.0) as usize).min(out_h - 1);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len2 = ex * ex + ey * ey;
            for oy in lo_y..=hi_y {
                let py = (oy as f64 + 0.5) * ty;
                for ox in lo_x..=hi_x {
                    let px = (ox as f64 + 0.5) * tx;
                    let t =
                        if len2 > 0.0 { (((px - a[0]) * ex + (py - a[1]) * ey) / len2).clamp(0.0, 1.0) } else { 0.0 };
                    let d = (px - a[0] - t * ex).hypot(py - a[1] - t * ey);
                    let r = ra + (rb - ra) * t;
                    // Full inside, 0 a texel outside, linear across the rim.
                    let cover = ((r - d) / texel + 0.5).clamp(0.0, 1.0);
                    if cover <= 0.0 {
                        continue;
                    }
                    let cell = out.get_mut(ox, oy);
                    cell[0] = cell[0].max(cover as f32);
                    cell[1] = cell[1].max((da + (db - da) * t) as f32);
                }
            }
        }
    }
    Some(out)
}

/// Half the width in metres of a river draining `cells` cells of `cell_m2` square metres.
fn radius(cells: f64, cell_m2: f64, min_width: f64) -> f64 {
    0.5 * river_width_m(cells * cell_m2).max(min_width)
}

/// One round of Chaikin's corner cutting, the end points kept.
fn chaikin(p: &[[f64; 3]]) -> Vec<[f64; 3]> {
    if p.len() < 3 {
        return p.to_vec();
    }
    let mut out = Vec::with_capacity(2 * p.len());
    out.push(p[0]);
    for e in p.windows(2) {
        let (a, b) = (e[0], e[1]);
        out.push(std::array::from_fn(|k| 0.75 * a[k] + 0.25 * b[k]));
        out.push(std::array::from_fn(|k| 0.25 * a[k] + 0.75 * b[k]));
    }
    out.push(p[p.len() - 1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_terrain::hydrology::priority_flood::fill_epsilon;

    /// A valley along a diagonal falling south-east: the D8 channel runs cell to cell on the
    /// diagonal.
    fn diagonal_valley(n: usize) -> Grid<f64> {
        Grid::from_fn(n, n, |x, y| {
            let (x, y) = (x as f64, y as f64);
            3.0 * (x - y).abs() + 200.0 - 0.8 * (x + y)
        })
        .with_cell_size(10.0, 10.0)
    }

    #[test]
    fn width_follows_the_square_root_of_the_drained_area() {
        assert_eq!(river_width_m(1e6), 4.0);
        assert_eq!(river_width_m(100e6), 40.0);
        assert_eq!(river_width_m(-5.0), 0.0);
    }

    #[test]
    fn a_diagonal_river_is_a_straight_band_not_a_staircase() {
        let n = 40;
        let h = diagonal_valley(n);
        let (ow, oh) = (4 * n, 4 * n);
        let lines = river_lines(&fill_epsilon(&h), 20.0, ow, oh).expect("a river");
        // Texels on the diagonal line x = y (in metres) far enough down the valley are covered;
        // its width across the diagonal is about the same everywhere (a staircase of whole cells
        // would swing by a cell's diagonal, 14 m, across it).
        let (tx, ty) = (10.0 * (n - 1) as f64 / ow as f64, 10.0 * (n - 1) as f64 / oh as f64);
        let mut widths = Vec::new();
        for k in (60..140).step_by(8) {
            // Walk across the diagonal through texel (k, k): along (x + s, y − s).
            let mut covered = 0.0;
            for s in -20i64..=20 {
                let (ox, oy) = (k as i64 + s, k as i64 - s);
                if ox < 0 || oy < 0 || ox >= ow as i64 || oy >= oh as i64 {
                    continue;
                }
                covered += f64::from(lines.get(ox as usize, oy as usize)[0]);
            }
            // Texels along the anti-diagonal are √2·texel apart in metres.
            widths.push(covered * tx.hypot(ty));
            assert!(lines.get(k, k)[0] > 0.99, "the centreline at texel {k}");
            assert!(lines.get(k, k)[1] > 0.0, "a depth at texel {k}");
        }
        let (lo, hi) = widths.iter().fold((f64::MAX, f64::MIN), |(a, b), &w| (a.min(w), b.max(w)));
        assert!(hi - lo < 3.0, "width across the river {lo:.1}..{hi:.1} m");
        // Away from the valley: dry.
        assert_eq!(lines.get(0, oh - 1)[0], 0.0);
        assert_eq!(lines.get(ow - 1, 0)[0], 0.0);
    }

    #[test]
    fn wider_and_deeper_downstream_and_nothing_below_the_start() {
        // The width in texels is 4·scale·√(cells drained)/1000 whatever the cell size, so the
        // hydraulic width passes the 1.5-texel floor only on a large grid's trunk.
        let n = 200;
        let h = diagonal_valley(n);
        let lines = river_lines(&fill_epsilon(&h), 40.0, 4 * n, 4 * n).expect("a river");
        // Coverage summed across the diagonal through texel (k, k), within 12 texels of it.
        let across =
            |k: i64| (-12i64..=12).map(|s| f64::from(lines.get((k + s) as usize, (k - s) as usize)[0])).sum::<f64>();
        let (up, down) = (across(100), across(760));
        assert!(down > 1.5 * up, "{up:.1} texels wide upstream, {down:.1} downstream");
        assert!(lines.get(760, 760)[1] > lines.get(100, 100)[1]);
        // A start above every cell's drainage: no river at all.
        assert!(river_lines(&fill_epsilon(&h), (n * n + 1) as f64, 4 * n, 4 * n).is_none());
    }

    #[test]
    fn chaikin_keeps_the_ends_and_cuts_the_corners() {
        let p = [[0.0, 0.0, 1.0], [4.0, 0.0, 2.0], [4.0, 4.0, 3.0]];
        let q = chaikin(&p);
        assert_eq!(q.first(), Some(&p[0]));
        assert_eq!(q.last(), Some(&p[2]));
        assert_eq!(q.len(), 6);
        assert_eq!(q[2], [3.0, 0.0, 1.75]);
        assert_eq!(q[3], [4.0, 1.0, 2.25]);
    }
}
