//! The one carving pass shared by the landscape and [`carve_rivers`](super::carve_rivers):
//! distance to each river's centre line, a Gaussian valley, a parabolic channel down to the bed,
//! water up to the river's surface; then materials from water, shore distance, slope, height and
//! moisture.

use rayon::prelude::*;

use super::rivers::{clip, River};

/// Material codes and names (pyworldgen's `MATERIALS`), water first, upland last.
pub const MATERIALS: [&str; 6] = ["water", "sand_shore", "grass_plain", "wetland", "rocky_slope", "upland"];

/// Material code: open water.
pub const WATER: u8 = 0;
/// Material code: sandy shore beside a river.
pub const SAND_SHORE: u8 = 1;
/// Material code: grass plain (the default).
pub const GRASS_PLAIN: u8 = 2;
/// Material code: wetland (near a river or moist).
pub const WETLAND: u8 = 3;
/// Material code: rocky slope (gradient above 0.38).
pub const ROCKY_SLOPE: u8 = 4;
/// Material code: upland (above the 78th height percentile).
pub const UPLAND: u8 = 5;

/// A regular grid of cell centres `((i + ½)·dx, (j + ½)·dy)`, row 0 south.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cells {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub dy: f64,
}

impl Cells {
    pub fn len(&self) -> usize {
        self.nx * self.ny
    }
    pub fn x(&self, i: usize) -> f64 {
        (i as f64 + 0.5) * self.dx
    }
    pub fn y(&self, j: usize) -> f64 {
        (j as f64 + 0.5) * self.dy
    }
    /// The rows whose centres lie within `radius` of the polyline's bounding box (all rows when
    /// `radius` is infinite).
    pub fn rows_near(&self, pts: &[[f64; 2]], radius: f64) -> std::ops::Range<usize> {
        if !radius.is_finite() || pts.is_empty() {
            return 0..self.ny;
        }
        let lo = pts.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min) - radius;
        let hi = pts.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max) + radius;
        let j0 = (lo / self.dy - 0.5).ceil().clamp(0.0, self.ny as f64) as usize;
        let j1 = ((hi / self.dy - 0.5).floor() + 1.0).clamp(0.0, self.ny as f64) as usize;
        j0..j1.max(j0)
    }
}

/// For every cell, the squared distance `d2` to the polyline `pts` and the arc length of the
/// nearest point as a fraction `s` of the whole length (pyworldgen's
/// `distance_to_polyline_grid`: segments in order, a later one wins only when strictly closer).
/// Only cells within `radius` of a segment's bounding box are visited (`∞`: all cells); the
/// others keep `d2 = ∞`. Only the rows of [`Cells::rows_near`] are written (the rest of the
/// buffers is stale). Rows run in parallel; each cell's result depends only on its own sweep
/// over the segments, so it is the same for any thread count.
pub(crate) fn polyline_field(c: Cells, pts: &[[f64; 2]], radius: f64, d2: &mut [f64], s: &mut [f64]) {
    let rows = c.rows_near(pts, radius);
    let (d2, s) = (&mut d2[rows.start * c.nx..rows.end * c.nx], &mut s[rows.start * c.nx..rows.end * c.nx]);
    d2.fill(f64::INFINITY);
    s.fill(0.0);
    let segs: Vec<([f64; 2], [f64; 2], f64, f64)> = pts
        .windows(2)
        .map(|w| (w[0], [w[1][0] - w[0][0], w[1][1] - w[0][1]]))
        .map(|(a, ab)| (a, ab, (ab[0] * ab[0] + ab[1] * ab[1]).sqrt(), ab[0] * ab[0] + ab[1] * ab[1]))
        .collect();
    let mut cumulative = Vec::with_capacity(segs.len() + 1);
    let mut acc = 0.0;
    cumulative.push(0.0);
    for sg in &segs {
        acc += sg.2;
        cumulative.push(acc);
    }
    let total = f64::max(acc, 1e-9);
    d2.par_chunks_mut(c.nx).zip(s.par_chunks_mut(c.nx)).enumerate().for_each(|(j, (drow, srow))| {
        let y = c.y(rows.start + j);
        for (k, &(a, ab, len, ab2)) in segs.iter().enumerate() {
            if ab2 <= 1e-12 {
                continue;
            }
            let (ylo, yhi) = (a[1].min(a[1] + ab[1]), a[1].max(a[1] + ab[1]));
            if y < ylo - radius || y > yhi + radius {
                continue;
            }
            let (i0, i1) = if radius.is_finite() {
                let xlo = a[0].min(a[0] + ab[0]) - radius;
                let xhi = a[0].max(a[0] + ab[0]) + radius;
                let lo = ((xlo / c.dx - 0.5).ceil().max(0.0)) as usize;
                let hi = ((xhi / c.dx - 0.5).floor() + 1.0).clamp(0.0, c.nx as f64) as usize;
                (lo.min(c.nx), hi)
            } else {
                (0, c.nx)
            };
            let yy = y - a[1];
            for i in i0..i1 {
                let x = c.x(i);
                let t = clip(((x - a[0]) * ab[0] + yy * ab[1]) / ab2, 0.0, 1.0);
                let (px, py) = (a[0] + t * ab[0], a[1] + t * ab[1]);
                let dd = (x - px) * (x - px) + (y - py) * (y - py);
                if dd < drow[i] {
                    drow[i] = dd;
                    srow[i] = (cumulative[k] + t * len) / total;
                }
            }
        }
    });
}

/// Bed height at arc fraction `s`: linear interpolation between the bed samples around
/// `s · (n − 1)` (pyworldgen's `_interp_bed`).
#[inline]
pub(crate) fn interp_bed(bed: &[f64], s: f64) -> f64 {
    let last = (bed.len() - 1) as f64;
    let idx = clip(s * last, 0.0, last);
    let i0 = idx.floor();
    let i1 = (i0 + 1.0).min(last);
    let t = idx - i0;
    bed[i0 as usize] * (1.0 - t) + bed[i1 as usize] * t
}

/// The carve profile of one river: channel width and depth as carved (at least 0.65 cells and
/// 0.25 m), valley half-width and depth.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Profile {
    pub width: f64,
    pub depth: f64,
    pub valley_width: f64,
    pub valley_depth: f64,
    /// `None`: the Gaussian valley `exp(−(d/w_v)²)` everywhere (pyworldgen). `Some(c)`: the
    /// Gaussian lowered by its value at `c·w_v` and rescaled, zero beyond (a compact valley).
    pub cutoff: Option<f64>,
}

impl Profile {
    /// The landscape's profile of `river`: `w = max(width, 0.65·cell)`, `d = max(depth, 0.25)`,
    /// `w_v = w · factor · (1 + 0.18·order)`, valley depth `valley_depth · (1 + 0.22·order)`.
    pub fn of(river: &River, cell: f64, valley_width_factor: f64, valley_depth: f64, cutoff: Option<f64>) -> Self {
        let width = f64::max(river.width, cell * 0.65);
        let order = river.order as f64;
        Self {
            width,
            depth: f64::max(river.depth, 0.25),
            valley_width: width * valley_width_factor * (1.0 + 0.18 * order),
            valley_depth: valley_depth * (1.0 + 0.22 * order),
            cutoff,
        }
    }

    /// The valley weight at distance `d` in [0, 1].
    #[inline]
    pub fn valley(&self, d: f64) -> f64 {
        let r = d / f64::max(self.valley_width, 1e-6);
        let g = (-(r * r)).exp();
        match self.cutoff {
            None => g,
            Some(c) if r >= c => 0.0,
            Some(c) => {
                let gc = (-(c * c)).exp();
                (g - gc) / (1.0 - gc)
            }
        }
    }
}

/// The fields one carving pass updates.
pub(crate) struct Fields<'a> {
    pub height: &'a mut [f64],
    pub water: &'a mut [f64],
    pub distance: &'a mut [f64],
    pub influence: &'a mut [f64],
}

/// Carves one river (distance field `d2`, `s` from [`polyline_field`]) into the fields, per cell:
/// `h −= V·g(d)`; inside `1.45·w` the channel `h = min(h, bed(s) + D·(d/w)²)`; inside `w` the
/// water depth reaches `bed(s) + 0.52·D − h`; the river distance and influence `g(d)` keep their
/// maxima/minima. Only the cells of `rows` (row-major `nx` wide) are visited; cells with
/// `d2 = ∞` are left alone.
pub(crate) fn carve_river(
    f: &mut Fields<'_>,
    bed: &[f64],
    prof: &Profile,
    d2: &[f64],
    s: &[f64],
    rows: std::ops::Range<usize>,
    nx: usize,
) {
    let chunk = 4096;
    let r = rows.start * nx..rows.end * nx;
    f.height[r.clone()]
        .par_chunks_mut(chunk)
        .zip(f.water[r.clone()].par_chunks_mut(chunk))
        .zip(f.distance[r.clone()].par_chunks_mut(chunk))
        .zip(f.influence[r.clone()].par_chunks_mut(chunk))
        .zip(d2[r.clone()].par_chunks(chunk).zip(s[r].par_chunks(chunk)))
        .for_each(|((((h, w), dist), infl), (d2, s))| {
            for k in 0..h.len() {
                if !d2[k].is_finite() {
                    continue;
                }
                let d = d2[k].sqrt();
                dist[k] = dist[k].min(d);
                let b = interp_bed(bed, s[k]);
                let g = prof.valley(d);
                let rw = d / f64::max(prof.width, 1e-6);
                let bank = b + prof.depth * (rw * rw);
                let mut hh = h[k] - prof.valley_depth * g;
                if d < prof.width * 1.45 {
                    hh = hh.min(bank);
                }
                h[k] = hh;
                if d < prof.width {
                    let surface = b + prof.depth * 0.52;
                    w[k] = w[k].max(f64::max(0.0, surface - hh));
                }
                infl[k] = infl[k].max(g);
            }
        });
}

/// numpy's `quantile(values, q)` with the default linear method: sorted values `v`,
/// position `(n − 1)·q`, and its `_lerp` (from the upper neighbour when the weight is ≥ ½).
pub(crate) fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    let vi = (n - 1) as f64 * q;
    let prev = vi.floor();
    let gamma = vi - prev;
    let i0 = (prev as usize).min(n - 1);
    let i1 = (i0 + 1).min(n - 1);
    let (a, b) = (v[i0], v[i1]);
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// numpy's `gradient` magnitude `√(gx² + gy²)`: central differences `(f[i+1] − f[i−1]) / 2h`
/// inside, one-sided `(f[1] − f[0]) / h` at the edges.
pub(crate) fn slope(c: Cells, h: &[f64]) -> Vec<f64> {
    let (nx, ny) = (c.nx, c.ny);
    let diff = |a: f64, b: f64, span: usize, step: f64| {
        if span == 2 {
            (a - b) / (2.0 * step)
        } else {
            (a - b) / step
        }
    };
    let mut out = vec![0.0; nx * ny];
    out.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        let (jl, jh) = (j.saturating_sub(1), (j + 1).min(ny - 1));
        for (i, o) in row.iter_mut().enumerate() {
            let (il, ih) = (i.saturating_sub(1), (i + 1).min(nx - 1));
            let gx = diff(h[j * nx + ih], h[j * nx + il], ih - il, c.dx);
            let gy = diff(h[jh * nx + i], h[jl * nx + i], jh - jl, c.dy);
            *o = (gx * gx + gy * gy).sqrt();
        }
    });
    out
}

/// Thresholds of the material classification.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MaterialRule {
    pub water_margin: f64,
    pub shore_width: f64,
    pub wetland_width: f64,
}

/// Materials in pyworldgen's order of precedence (later rules overwrite): grass plain; upland
/// above the 78th height percentile; rocky slope where the gradient exceeds 0.38; dry cells
/// within `wetland_width` of a river wetland, within `shore_width` sand shore; dry cells with
/// moisture above 0.7 wetland; water deeper than `water_margin` water.
pub(crate) fn materials(
    c: Cells,
    height: &[f64],
    water: &[f64],
    dist: &[f64],
    moisture: &[f64],
    r: MaterialRule,
) -> Vec<u8> {
    let slope = slope(c, height);
    let q78 = quantile(height, 0.78);
    (0..c.len())
        .into_par_iter()
        .map(|k| {
            let dry = water[k] <= 0.0;
            let mut m = GRASS_PLAIN;
            if height[k] > q78 {
                m = UPLAND;
            }
            if slope[k] > 0.38 {
                m = ROCKY_SLOPE;
            }
            if dist[k] < r.wetland_width && dry {
                m = WETLAND;
            }
            if dist[k] < r.shore_width && dry {
                m = SAND_SHORE;
            }
            if moisture[k] > 0.70 && dry {
                m = WETLAND;
            }
            if water[k] > r.water_margin {
                m = WATER;
            }
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_matches_numpy() {
        // np.quantile([3, 1, 4, 1, 5, 9, 2, 6], q) for q = 0.55, 0.78, 0 and 1.
        let v = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        assert!((quantile(&v, 0.55) - 3.85).abs() < 1e-12);
        assert!((quantile(&v, 0.78) - 5.46).abs() < 1e-12);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 9.0);
    }

    #[test]
    fn polyline_field_of_a_straight_line() {
        let c = Cells { nx: 10, ny: 4, dx: 1.0, dy: 1.0 };
        let pts = [[0.0, 2.0], [5.0, 2.0], [10.0, 2.0]];
        let (mut d2, mut s) = (vec![0.0; 40], vec![0.0; 40]);
        polyline_field(c, &pts, f64::INFINITY, &mut d2, &mut s);
        // Row 0 (y = 0.5) is 1.5 m from the line; column 7 (x = 7.5) is 75 % along.
        assert!((d2[7] - 2.25).abs() < 1e-12);
        assert!((s[7] - 0.75).abs() < 1e-12);
        let (mut e2, mut t) = (vec![f64::INFINITY; 40], vec![0.0; 40]);
        assert_eq!(c.rows_near(&pts, 1.0), 1..3);
        polyline_field(c, &pts, 1.0, &mut e2, &mut t);
        assert!(e2[7].is_infinite(), "row 0 lies 1.5 m away, outside a 1 m radius");
        assert_eq!(e2[17], d2[17]);
        assert_eq!(t[17], s[17]);
    }

    #[test]
    fn compact_valley_is_continuous_and_zero_beyond() {
        let p = Profile { width: 2.0, depth: 1.0, valley_width: 10.0, valley_depth: 3.0, cutoff: Some(2.5) };
        assert_eq!(p.valley(0.0), 1.0);
        assert_eq!(p.valley(25.0), 0.0);
        assert!(p.valley(24.999) < 1e-4);
        assert!(p.valley(10.0) > 0.3);
    }
}
