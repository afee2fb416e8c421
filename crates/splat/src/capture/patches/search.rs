//! The scan: candidate centres, the measurements of one square (ground level, plane fit,
//! relief, coverage, purity, salience) and the filters that keep or reject it.

use super::*;

/// Ground level: centre of the tallest bin of a histogram of heights over p1–p99, bins of
/// `thickness / 4` (at least 8).
pub fn ground_level(heights: &[f64], thickness: f64) -> f64 {
    if heights.is_empty() {
        return 0.0;
    }
    let mut h = heights.to_vec();
    let p = percentiles(&mut h, &[1.0, 99.0]);
    let (lo, hi) = (p[0], p[1]);
    if hi <= lo {
        return lo;
    }
    let bins = (((hi - lo) / (thickness / 4.0)) as usize).clamp(8, 100_000);
    let mut count = vec![0usize; bins];
    for &v in heights {
        if v >= lo && v <= hi {
            count[(((v - lo) / (hi - lo) * bins as f64) as usize).min(bins - 1)] += 1;
        }
    }
    let best = (0..bins).fold(0, |b, i| if count[i] > count[b] { i } else { b });
    lo + (best as f64 + 0.5) * (hi - lo) / bins as f64
}

/// Measurements of one square, before the filters decide.
pub(super) struct Cut {
    pub(super) slab: Vec<usize>,
    pub(super) ground: f64,
    pub(super) below: f64,
}

/// The local frame of a patch: centre, plane (through `mean` with unit `normal`).
pub(super) struct Plane {
    pub(super) mean: [f64; 3],
    pub(super) normal: [f64; 3],
    pub(super) planarity: f64,
    pub(super) tilt_deg: f64,
}

impl Plane {
    /// Height of `p` above the plane, measured along z.
    pub(super) fn residual(&self, p: [f64; 3]) -> f64 {
        let n = self.normal;
        let nz = if n[2].abs() < 1e-6 { 1e-6 } else { n[2] };
        (p[2] - self.mean[2]) + (n[0] * (p[0] - self.mean[0]) + n[1] * (p[1] - self.mean[1])) / nz
    }
}

pub(super) fn fit_plane(pts: &[[f64; 3]]) -> Plane {
    let (vals, vecs) = pca(pts);
    let mut normal = vecs[0];
    if normal[2] < 0.0 {
        normal = normal.map(|v| -v);
    }
    let n = pts.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            mean[a] += p[a] / n;
        }
    }
    let planarity = if vals[2] > 0.0 { (vals[0] / vals[2]).max(0.0) } else { 0.0 };
    Plane { mean, normal, planarity, tilt_deg: normal[2].clamp(-1.0, 1.0).acos().to_degrees() }
}

/// p95 − p5 (0 for fewer than `min` values).
pub(super) fn spread(v: &mut [f64], min: usize) -> f64 {
    if v.len() < min {
        return 0.0;
    }
    let p = percentiles(v, &[5.0, 95.0]);
    p[1] - p[0]
}

/// Fast coverage of the square by `idx`: per bin of a 16 × 16 grid,
/// `1 − exp(−Σ π(2σ₁)(2σ₂)·opacity / bin area)` over the splats whose centre is in the bin
/// (σ₁, σ₂ the two largest scales), averaged over bins.
pub fn coverage(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64) -> f64 {
    const G: usize = 16;
    let h = size / 2.0;
    let grid = CellGrid::new(G);
    let mut area = vec![0.0f64; G * G];
    for &i in idx {
        let p = s.positions()[i];
        let d = [f64::from(p[0]) - centre[0], f64::from(p[1]) - centre[1]];
        if d[0].abs() > h || d[1].abs() > h {
            continue;
        }
        let mut sc = s.scales()[i].map(f64::from);
        sc.sort_by(|a, b| b.total_cmp(a));
        area[grid.cell(d, h)] += std::f64::consts::PI * (2.0 * sc[0]) * (2.0 * sc[1]) * f64::from(s.opacities()[i]);
    }
    let cell_area = (size / G as f64).powi(2);
    area.iter().map(|a| 1.0 - (-a / cell_area).exp()).sum::<f64>() / (G * G) as f64
}

/// Mean top-down alpha over the square at `res²` pixels, rendering at most `cap` splats (an
/// evenly strided subset, alpha corrected per pixel as `1 − (1 − min(α, 0.999))^(n/cap)`).
/// The render is [`crate::raster::render_view`] with [`Shade::AlphaOnly`].
pub fn rendered_coverage(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64, res: usize, cap: usize) -> f64 {
    if idx.is_empty() {
        return 0.0;
    }
    let sub: Vec<usize> =
        if idx.len() > cap { (0..cap).map(|k| idx[k * idx.len() / cap]).collect() } else { idx.to_vec() };
    let img = render_view(s, &sub, &View::square(centre, size, res), Shade::AlphaOnly);
    let f = sub.len() as f64 / idx.len() as f64;
    img.alpha.iter().map(|&a| 1.0 - (1.0 - f64::from(a).min(0.999)).powf(1.0 / f)).sum::<f64>() / (res * res) as f64
}

/// Purity of a patch against class colours: share of the cells of a 12 × 12 grid (≥ 4 splats)
/// whose opacity-weighted mean colour is nearer `own` than every colour in `others`.
pub fn purity(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64, own: [f64; 3], others: &[[f64; 3]]) -> f64 {
    let cells = cell_colours(s, idx, centre, size);
    if cells.is_empty() {
        return 0.0;
    }
    let good = cells.iter().filter(|m| others.iter().all(|o| dist(&m[..], &own) < dist(&m[..], o))).count();
    good as f64 / cells.len() as f64
}

pub(super) enum Verdict {
    Reject(&'static str),
    Accept(Box<Candidate>),
}

pub(super) fn measure(s: &Splats, idx: &[usize], centre: [f64; 2], st: &SearchSettings) -> Verdict {
    let size = st.size;
    let h = size / 2.0;
    if idx.len() < st.min_splats.max(3) {
        return Verdict::Reject("sparse");
    }
    let pos = s.positions();
    let t = st.thickness * size;
    let heights: Vec<f64> = idx.iter().map(|&i| f64::from(pos[i][2])).collect();
    let cut = {
        let g = ground_level(&heights, t);
        let below = heights.iter().filter(|&&z| z < g - 0.25 * t).count() as f64 / heights.len() as f64;
        let slab: Vec<usize> =
            idx.iter().zip(&heights).filter(|(_, &z)| z >= g - 0.25 * t && z <= g + t).map(|(&i, _)| i).collect();
        Cut { slab, ground: g, below }
    };
    if cut.below > st.max_below {
        return Verdict::Reject("buried");
    }
    if cut.slab.len() < 3 {
        return Verdict::Reject("sparse");
    }
    let local: Vec<[f64; 3]> = cut
        .slab
        .iter()
        .map(|&i| [f64::from(pos[i][0]) - centre[0], f64::from(pos[i][1]) - centre[1], f64::from(pos[i][2])])
        .collect();
    let plane = fit_plane(&local);
    if plane.tilt_deg > st.max_tilt {
        return Verdict::Reject("tilt");
    }
    let resid: Vec<f64> = local.iter().map(|p| plane.residual(*p)).collect();
    let relief = spread(&mut resid.clone(), 3);
    let rim_limit = h * (1.0 - st.edge_margin);
    let mut rim: Vec<f64> =
        local.iter().zip(&resid).filter(|(p, _)| p[0].abs().max(p[1].abs()) > rim_limit).map(|(_, &r)| r).collect();
    let edge_relief = spread(&mut rim, 50);

    // Cells: occupancy (8 × 8), luminance and height (16 × 16).
    let mut occ = [false; 64];
    // About 12 splats per cell or more, at most 16 × 16.
    let g = ((cut.slab.len() as f64 / 12.0).sqrt() as usize).clamp(4, 16);
    let mut cells = CellGrid::new(g);
    let (mut rgb_sum, mut rgb_sq) = ([0.0f64; 3], [0.0f64; 3]);
    for (k, &i) in cut.slab.iter().enumerate() {
        let d = [local[k][0], local[k][1]];
        let o = CellGrid::new(8).cell(d, h);
        occ[o] = true;
        let c = cells.cell(d, h);
        let rgb = s.base_rgb(i);
        cells.n[c] += 1;
        cells.luma[c] += luma(rgb);
        cells.height[c] += resid[k];
        for a in 0..3 {
            rgb_sum[a] += f64::from(rgb[a]);
            rgb_sq[a] += f64::from(rgb[a]).powi(2);
        }
    }
    let filled = occ.iter().filter(|&&o| o).count() as f64 / 64.0;
    let valid: Vec<usize> = (0..cells.n.len()).filter(|&c| cells.n[c] >= 6).collect();
    let lum: Vec<f64> = valid.iter().map(|&c| cells.luma[c] / cells.n[c] as f64).collect();
    let hgt: Vec<f64> = valid.iter().map(|&c| cells.height[c] / cells.n[c] as f64).collect();
    let salience = robust_salience(&lum).max(robust_salience(&hgt));
    // Texture energy: RMS luminance difference of horizontally and vertically adjacent cells.
    let (mut e, mut ne) = (0.0, 0usize);
    let mean_l = |c: usize| cells.luma[c] / cells.n[c] as f64;
    for y in 0..g {
        for x in 0..g {
            let c = y * g + x;
            if cells.n[c] < 6 {
                continue;
            }
            for nb in [(x + 1 < g).then(|| c + 1), (y + 1 < g).then(|| c + g)].into_iter().flatten() {
                if cells.n[nb] >= 6 {
                    e += (mean_l(c) - mean_l(nb)).powi(2);
                    ne += 1;
                }
            }
        }
    }
    let texture = if ne > 0 { (e / ne as f64).sqrt() } else { 0.0 };
    let n = cut.slab.len() as f64;
    let mean = rgb_sum.map(|v| v / n);
    let sd = [0, 1, 2].map(|a| (rgb_sq[a] / n - mean[a] * mean[a]).max(0.0).sqrt());

    let cover_estimate = coverage(s, &cut.slab, centre, size);
    let density = n / (size * size);
    let flatness = 1.0 / (1.0 + relief / size);
    let landmark = 1.0 + (salience - 4.0).max(0.0) / 4.0;
    let score = cover_estimate * filled * flatness * density.ln_1p() / (1.0 + 20.0 * plane.planarity) / landmark;
    if score.is_nan() || score <= 0.0 {
        return Verdict::Reject("score");
    }
    if cover_estimate < st.min_cover - st.cover_margin {
        return Verdict::Reject("holes");
    }
    let cover = rendered_coverage(s, &cut.slab, centre, size, 80, st.screen_cap);
    if cover < st.min_cover {
        return Verdict::Reject("holes");
    }
    if edge_relief > st.edge_flat * size {
        return Verdict::Reject("rim");
    }
    Verdict::Accept(Box::new(Candidate {
        centre: centre.map(r7),
        score: r7(score),
        splats: idx.len(),
        slab: cut.slab.len(),
        ground: r7(cut.ground),
        tilt_deg: r7(plane.tilt_deg),
        below: r7(cut.below),
        planarity: r7(plane.planarity),
        relief: r7(relief),
        edge_relief: r7(edge_relief),
        filled: r7(filled),
        cover_estimate: r7(cover_estimate),
        cover: r7(cover),
        salience: r7(salience),
        landmark: salience > LANDMARK_SALIENCE,
        appearance: [mean[0], mean[1], mean[2], sd[0], sd[1], sd[2], texture].map(r7),
        class: None,
        purity: None,
        chosen: false,
    }))
}

/// Candidate centres: a grid of step `size · stride` over the 2nd–98th percentile of x and y.
pub fn search_centres(s: &Splats, size: f64, stride: f64) -> Vec<[f64; 2]> {
    let mut axes = [Vec::new(), Vec::new()];
    for p in s.positions() {
        if p[0].is_finite() && p[1].is_finite() {
            axes[0].push(f64::from(p[0]));
            axes[1].push(f64::from(p[1]));
        }
    }
    if axes[0].is_empty() {
        return Vec::new();
    }
    let range = axes.map(|mut v| {
        let p = percentiles(&mut v, &[2.0, 98.0]);
        (p[0], p[1])
    });
    let step = size * stride;
    let ticks = |(lo, hi): (f64, f64)| -> Vec<f64> {
        let mut v = Vec::new();
        let mut k = 0usize;
        loop {
            let c = lo + size / 2.0 + k as f64 * step;
            if c > hi - size / 2.0 + 1e-6 || v.len() >= 4096 {
                break;
            }
            v.push(c);
            k += 1;
        }
        v
    };
    let (xs, ys) = (ticks(range[0]), ticks(range[1]));
    ys.iter().flat_map(|&y| xs.iter().map(move |&x| [x, y])).collect()
}

/// Every viable candidate (best score first; ties in grid order) and the rejection tallies.
pub(super) fn scan(
    s: &Splats,
    index: &PlaneIndex,
    centres: &[[f64; 2]],
    st: &SearchSettings,
) -> (Vec<Candidate>, Rejections) {
    let mut rej = Rejections { positions: centres.len(), ..Rejections::default() };
    let mut out = Vec::new();
    for &c in centres {
        let idx = patch_indices(s, c, st.size, Some(index));
        match measure(s, &idx, c, st) {
            Verdict::Accept(cand) => out.push(*cand),
            Verdict::Reject(why) => match why {
                "sparse" => rej.sparse += 1,
                "buried" => rej.buried += 1,
                "tilt" => rej.tilt += 1,
                "score" => rej.score += 1,
                "holes" => rej.holes += 1,
                _ => rej.rim += 1,
            },
        }
    }
    // Stable sort: equal scores keep grid order.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    rej.viable = out.len();
    (out, rej)
}
