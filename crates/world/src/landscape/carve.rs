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

/// One segment of a polyline: start `a`, direction `ab`, length, squared length, arc length at
/// its start.
#[derive(Clone, Copy)]
struct Seg {
    a: [f64; 2],
    ab: [f64; 2],
    len: f64,
    ab2: f64,
    cum: f64,
}

impl Seg {
    /// Distance from `(x, y)` to the segment (the bound computations only).
    fn dist(&self, x: f64, y: f64) -> f64 {
        let t = clip(((x - self.a[0]) * self.ab[0] + (y - self.a[1]) * self.ab[1]) / self.ab2, 0.0, 1.0);
        let (px, py) = (self.a[0] + t * self.ab[0], self.a[1] + t * self.ab[1]);
        ((x - px) * (x - px) + (y - py) * (y - py)).sqrt()
    }

    /// Distance from the rectangle `[x0, x1] × [y0, y1]` to the segment's bounding box: a lower
    /// bound of the distance from any point of the rectangle to the segment.
    fn gap(&self, x0: f64, x1: f64, y0: f64, y1: f64) -> f64 {
        let (bx0, bx1) = (self.a[0].min(self.a[0] + self.ab[0]), self.a[0].max(self.a[0] + self.ab[0]));
        let (by0, by1) = (self.a[1].min(self.a[1] + self.ab[1]), self.a[1].max(self.a[1] + self.ab[1]));
        let gx = f64::max(0.0, f64::max(bx0 - x1, x0 - bx1));
        let gy = f64::max(0.0, f64::max(by0 - y1, y0 - by1));
        (gx * gx + gy * gy).sqrt()
    }
}

/// Side of the square tiles the distance field is computed in.
const TILE: usize = 16;

/// For every cell, the squared distance `d2` to the polyline `pts` and the arc length of the
/// nearest point as a fraction `s` of the whole length (pyworldgen's
/// `distance_to_polyline_grid`: segments in order, a later one wins only when strictly closer,
/// so the first segment reaching the minimum gives `s`).
///
/// Exact but pruned: per 16 × 16 tile, `U` = min over segments of the distance from the tile
/// centre plus half the tile diagonal bounds every cell's minimum, and only segments whose box
/// lies within `U` of the tile (with a rounding margin) are swept, in their order; the others are
/// strictly farther from every cell of the tile, so they can neither win nor tie. With a finite
/// `radius`, cells farther than `radius` from the polyline get `d2 = ∞`, and only the rows of
/// [`Cells::rows_near`] are written (the rest of the buffers is stale). Tiles run in parallel;
/// each cell's result depends only on its own sweep, so it is the same for any thread count.
pub(crate) fn polyline_field(c: Cells, pts: &[[f64; 2]], radius: f64, d2: &mut [f64], s: &mut [f64]) {
    let rows = c.rows_near(pts, radius);
    let (d2, s) = (&mut d2[rows.start * c.nx..rows.end * c.nx], &mut s[rows.start * c.nx..rows.end * c.nx]);
    let mut segs = Vec::with_capacity(pts.len());
    let mut cum = 0.0;
    for w in pts.windows(2) {
        let ab = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
        let (len, ab2) = ((ab[0] * ab[0] + ab[1] * ab[1]).sqrt(), ab[0] * ab[0] + ab[1] * ab[1]);
        if ab2 > 1e-12 {
            segs.push(Seg { a: w[0], ab, len, ab2, cum });
        }
        cum += len;
    }
    let total = f64::max(cum, 1e-9);
    let groups: Vec<Group> = segs.chunks(GROUP).map(Group::of).collect();
    d2.par_chunks_mut(TILE * c.nx).zip(s.par_chunks_mut(TILE * c.nx)).enumerate().for_each(|(tj, (dch, sch))| {
        dch.fill(f64::INFINITY);
        sch.fill(0.0);
        let j0 = rows.start + tj * TILE;
        let nrows = dch.len() / c.nx;
        let (y0, y1) = (c.y(j0), c.y(j0 + nrows - 1));
        let mut cand: Vec<Seg> = Vec::with_capacity(segs.len());
        for i0 in (0..c.nx).step_by(TILE) {
            let i1 = (i0 + TILE).min(c.nx);
            let rect = [c.x(i0), c.x(i1 - 1), y0, y1];
            candidates(&segs, &groups, rect, radius, &mut cand);
            if cand.is_empty() {
                continue;
            }
            for r in 0..nrows {
                let y = c.y(j0 + r);
                let (drow, srow) = (&mut dch[r * c.nx..(r + 1) * c.nx], &mut sch[r * c.nx..(r + 1) * c.nx]);
                for i in i0..i1 {
                    sweep(c.x(i), y, &cand, total, &mut drow[i], &mut srow[i]);
                    if drow[i] > radius * radius {
                        drow[i] = f64::INFINITY;
                        srow[i] = 0.0;
                    }
                }
            }
        }
    });
}

/// Segments per group in the tile pre-pass.
const GROUP: usize = 32;

/// A run of consecutive segments: its length and bounding box.
struct Group {
    len: usize,
    bbox: Seg,
}

impl Group {
    fn of(run: &[Seg]) -> Self {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for sg in run {
            for p in [sg.a, [sg.a[0] + sg.ab[0], sg.a[1] + sg.ab[1]]] {
                (x0, x1, y0, y1) = (x0.min(p[0]), x1.max(p[0]), y0.min(p[1]), y1.max(p[1]));
            }
        }
        // Only `gap` is used on the box: a segment from one corner to the other has that box.
        let bbox = Seg { a: [x0, y0], ab: [x1 - x0, y1 - y0], len: 0.0, ab2: 0.0, cum: 0.0 };
        Self { len: run.len(), bbox }
    }
}

/// The segments that can be nearest to some cell of the tile `rect = [x0, x1, y0, y1]`, in their
/// order: an upper bound `U` of every cell's distance (distance from the tile centre plus half
/// the diagonal, over the segments of the group nearest the tile, then over the survivors), then
/// every segment whose box lies within `min(U, radius)` plus a rounding margin.
fn candidates(segs: &[Seg], groups: &[Group], rect: [f64; 4], radius: f64, cand: &mut Vec<Seg>) {
    let [x0, x1, y0, y1] = rect;
    let (cx, cy, half) = (0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (x1 - x0).hypot(y1 - y0));
    let margin = |u: f64| u + 1e-6 + u * 1e-9;
    let mut first = 0;
    let gaps: Vec<(usize, usize, f64)> = groups
        .iter()
        .map(|g| {
            let r = (first, g.len, g.bbox.gap(x0, x1, y0, y1));
            first += g.len;
            r
        })
        .collect();
    cand.clear();
    let Some(&(f0, n0, _)) = gaps.iter().min_by(|a, b| a.2.total_cmp(&b.2)) else { return };
    let bound = |run: &[Seg]| run.iter().map(|sg| sg.dist(cx, cy) + half).fold(f64::INFINITY, f64::min);
    let u = bound(&segs[f0..f0 + n0]).min(radius);
    for &(f, n, gap) in &gaps {
        if gap <= margin(u) {
            cand.extend(segs[f..f + n].iter().filter(|sg| sg.gap(x0, x1, y0, y1) <= margin(u)));
        }
    }
    let u2 = bound(cand).min(u);
    if u2 < u {
        cand.retain(|sg| sg.gap(x0, x1, y0, y1) <= margin(u2));
    }
}

/// pyworldgen's per-cell sweep over segments: `t = clip(((p − a)·ab) / |ab|², 0, 1)`, squared
/// distance to `a + t·ab`, replaced only when strictly smaller, `s = (cum + t·len) / total`.
#[inline]
fn sweep(x: f64, y: f64, segs: &[Seg], total: f64, d: &mut f64, s: &mut f64) {
    for sg in segs {
        let (a, ab) = (sg.a, sg.ab);
        let t = clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / sg.ab2, 0.0, 1.0);
        let (px, py) = (a[0] + t * ab[0], a[1] + t * ab[1]);
        let dd = (x - px) * (x - px) + (y - py) * (y - py);
        if dd < *d {
            *d = dd;
            *s = (sg.cum + t * sg.len) / total;
        }
    }
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
    /// The valley lowering already applied per cell (kept when `cumulative` is false).
    pub lowered: &'a mut [f64],
    /// pyworldgen's landscape: every river's valley is subtracted (`h −= V·g`), so overlapping
    /// valleys add up. Off (`carve_rivers` on any terrain, where hundreds of rivers overlap): a
    /// cell is lowered by the deepest valley over it, not by their sum.
    pub cumulative: bool,
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
        .zip(f.lowered[r.clone()].par_chunks_mut(chunk))
        .zip(d2[r.clone()].par_chunks(chunk).zip(s[r].par_chunks(chunk)))
        .for_each(|(((((h, w), dist), infl), low), (d2, s))| {
            let cumulative = f.cumulative;
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
                let v = prof.valley_depth * g;
                let mut hh = if cumulative {
                    h[k] - v
                } else {
                    let extra = (v - low[k]).max(0.0);
                    low[k] += extra;
                    h[k] - extra
                };
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
    fn pruned_field_equals_the_full_sweep_bit_for_bit() {
        // A wiggly polyline with repeated and zero-length segments over a 70 × 45 grid.
        let c = Cells { nx: 70, ny: 45, dx: 1.7, dy: 1.3 };
        let mut state = 12345u64;
        let mut rnd = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut pts = vec![[60.0, 5.0]];
        for k in 0..150 {
            let last = pts[pts.len() - 1];
            let step = if k % 17 == 0 { [0.0, 0.0] } else { [rnd() * 6.0 - 3.5, rnd() * 4.0 - 1.0] };
            pts.push([last[0] + step[0], last[1] + step[1]]);
        }
        let segs: Vec<Seg> = {
            let mut v = Vec::new();
            let mut cum = 0.0;
            for w in pts.windows(2) {
                let ab = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
                let (len, ab2) = ((ab[0] * ab[0] + ab[1] * ab[1]).sqrt(), ab[0] * ab[0] + ab[1] * ab[1]);
                if ab2 > 1e-12 {
                    v.push(Seg { a: w[0], ab, len, ab2, cum });
                }
                cum += len;
            }
            v
        };
        let total = segs.last().map(|s| s.cum + s.len).unwrap();
        let (mut d2, mut s) = (vec![0.0; c.len()], vec![0.0; c.len()]);
        for radius in [f64::INFINITY, 9.0] {
            polyline_field(c, &pts, radius, &mut d2, &mut s);
            let rows = c.rows_near(&pts, radius);
            for j in rows {
                for i in 0..c.nx {
                    let (mut d, mut t) = (f64::INFINITY, 0.0);
                    sweep(c.x(i), c.y(j), &segs, total, &mut d, &mut t);
                    if d > radius * radius {
                        (d, t) = (f64::INFINITY, 0.0);
                    }
                    let k = j * c.nx + i;
                    assert_eq!(
                        (d2[k].to_bits(), s[k].to_bits()),
                        (d.to_bits(), t.to_bits()),
                        "cell {i},{j} r {radius}"
                    );
                }
            }
        }
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
