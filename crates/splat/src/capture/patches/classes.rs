//! The choice among survivors and the two-material class split (colour two-means over cell
//! colours, purity, separation).

use super::*;

pub(super) fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt()
}

/// Greedy separation: candidates in order, each kept when its centre is at least `d` from every
/// kept one in x or y.
pub(super) fn separated(cands: &[Candidate], d: f64) -> Vec<usize> {
    let mut kept: Vec<usize> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        let far = kept.iter().all(|&k| {
            let o = cands[k].centre;
            (c.centre[0] - o[0]).abs().max((c.centre[1] - o[1]).abs()) >= d - 1e-9
        });
        if far {
            kept.push(i);
        }
    }
    kept
}

/// Pick `k` of `members` (indices into `cands`): scores normalised by the largest; the seed
/// maximises `score − weight · |f − centroid|`, each next pick `score − weight · |f − mean of
/// the picks|`. Ties go to the earlier member. Returned in pick order.
pub fn select_similar(cands: &[Candidate], members: &[usize], k: usize, weight: f64) -> Vec<usize> {
    if members.is_empty() || k == 0 {
        return Vec::new();
    }
    let top = members.iter().map(|&i| cands[i].score).fold(f64::MIN, f64::max).max(1e-12);
    let f = |i: usize| cands[i].appearance;
    let mean_of = |set: &[usize]| {
        let mut m = [0.0; 7];
        for &i in set {
            for (a, v) in m.iter_mut().zip(f(i)) {
                *a += v / set.len() as f64;
            }
        }
        m
    };
    let mut left: Vec<usize> = members.to_vec();
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < k && !left.is_empty() {
        let target = if picked.is_empty() { mean_of(members) } else { mean_of(&picked) };
        let value = |i: usize| cands[i].score / top - weight * dist(&f(i), &target);
        let mut best = 0;
        for j in 1..left.len() {
            if value(left[j]) > value(left[best]) {
                best = j;
            }
        }
        picked.push(left.remove(best));
    }
    picked
}

/// Opacity-weighted mean colour of each cell of a 12 × 12 grid over the square holding at least
/// 4 splats.
pub fn cell_colours(s: &Splats, idx: &[usize], centre: [f64; 2], size: f64) -> Vec<[f64; 3]> {
    const G: usize = 12;
    let h = size / 2.0;
    let grid = CellGrid::new(G);
    let mut sum = vec![[0.0f64; 4]; G * G];
    let mut n = vec![0usize; G * G];
    for &i in idx {
        let p = s.positions()[i];
        let d = [f64::from(p[0]) - centre[0], f64::from(p[1]) - centre[1]];
        if d[0].abs() > h || d[1].abs() > h {
            continue;
        }
        let c = grid.cell(d, h);
        let w = f64::from(s.opacities()[i]).max(1e-6);
        let rgb = s.base_rgb(i);
        for k in 0..3 {
            sum[c][k] += w * f64::from(rgb[k]);
        }
        sum[c][3] += w;
        n[c] += 1;
    }
    (0..G * G)
        .filter(|&c| n[c] >= 4)
        .map(|c| [sum[c][0] / sum[c][3], sum[c][1] / sum[c][3], sum[c][2] / sum[c][3]])
        .collect()
}

/// Two-means of colours: seeds the colour farthest from the mean and the colour farthest from
/// that, at most 50 iterations (ties to the first centre). Returns the centres and the
/// separation `|c₀ − c₁| / RMS distance of a colour to its centre`.
pub fn two_means(cols: &[[f64; 3]]) -> ([[f64; 3]; 2], f64) {
    if cols.len() < 2 {
        return ([[0.0; 3]; 2], 0.0);
    }
    let n = cols.len() as f64;
    let mean = [0, 1, 2].map(|k| cols.iter().map(|c| c[k]).sum::<f64>() / n);
    let far = |from: [f64; 3]| {
        (0..cols.len()).fold(0, |b, i| if dist(&cols[i], &from) > dist(&cols[b], &from) { i } else { b })
    };
    let a = cols[far(mean)];
    let mut centres = [a, cols[far(a)]];
    let mut label = vec![usize::MAX; cols.len()];
    for _ in 0..50 {
        let new: Vec<usize> = cols.iter().map(|c| usize::from(dist(c, &centres[1]) < dist(c, &centres[0]))).collect();
        let mut m = [[0.0; 3]; 2];
        let mut k = [0usize; 2];
        for (c, &l) in cols.iter().zip(&new) {
            k[l] += 1;
            for a in 0..3 {
                m[l][a] += c[a];
            }
        }
        if k[0] == 0 || k[1] == 0 {
            break;
        }
        let changed = new != label;
        label = new;
        centres = [m[0].map(|v| v / k[0] as f64), m[1].map(|v| v / k[1] as f64)];
        if !changed {
            break;
        }
    }
    let ms = cols.iter().map(|c| dist(c, &centres[0]).min(dist(c, &centres[1])).powi(2)).sum::<f64>() / n;
    (centres, dist(&centres[0], &centres[1]) / ms.sqrt().max(1e-9))
}

/// Outcome of one choice over a scan.
pub(super) struct Choice {
    pub(super) chosen: Vec<Vec<usize>>,
    pub(super) pool: usize,
    pub(super) impure: usize,
    pub(super) separation: Option<f64>,
    pub(super) class_rgb: Vec<[f64; 3]>,
    /// Class and purity per candidate (two classes).
    pub(super) labels: Vec<(Option<usize>, Option<f64>)>,
    /// A refusal that loosening cannot fix.
    pub(super) refusal: Option<String>,
}

impl Choice {
    pub(super) fn total(&self) -> usize {
        self.chosen.iter().map(Vec::len).sum()
    }
}

/// Fewest pool members for a class split to be judged.
pub(super) const MIN_SPLIT_POOL: usize = 4;

pub(super) fn choose(s: &Splats, index: &PlaneIndex, cands: &[Candidate], st: &SearchSettings) -> Choice {
    let pool = separated(cands, st.min_separation * st.size);
    let mut labels = vec![(None, None); cands.len()];
    if st.classes == 1 {
        let chosen = select_similar(cands, &pool, st.count, st.similarity);
        return Choice {
            chosen: vec![chosen],
            pool: pool.len(),
            impure: 0,
            separation: None,
            class_rgb: Vec::new(),
            labels,
            refusal: None,
        };
    }
    let empty = |pool: usize, labels| Choice {
        chosen: vec![Vec::new(), Vec::new()],
        pool,
        impure: 0,
        separation: None,
        class_rgb: Vec::new(),
        labels,
        refusal: None,
    };
    if pool.len() < MIN_SPLIT_POOL {
        return empty(pool.len(), labels);
    }
    // Colours of every cell of every pool member, split in two.
    let cuts: Vec<Vec<usize>> = cands.iter().map(|c| patch_indices(s, c.centre, st.size, Some(index))).collect();
    let cells: Vec<[f64; 3]> = pool.iter().flat_map(|&i| cell_colours(s, &cuts[i], cands[i].centre, st.size)).collect();
    let (mut centres, sep) = two_means(&cells);
    let separation = r7(sep);
    if sep < st.min_class_separation {
        let mut c = empty(pool.len(), labels);
        c.separation = Some(separation);
        c.refusal = Some(format!(
            "one material: the class separation of the {} candidates is {:.2}, below {} — the capture does not hold \
             two materials that look different; ask for one class",
            pool.len(),
            separation,
            st.min_class_separation
        ));
        return c;
    }
    // Each candidate joins the class most of its cells are nearer to; its purity is that share.
    let share0: Vec<f64> =
        cands.iter().zip(&cuts).map(|(c, idx)| purity(s, idx, c.centre, st.size, centres[0], &[centres[1]])).collect();
    let size0 = pool.iter().filter(|&&i| share0[i] >= 0.5).count();
    let flip = pool.len() - size0 > size0;
    if flip {
        centres.swap(0, 1);
    }
    for (i, &p0) in share0.iter().enumerate() {
        let (k, p) = if p0 >= 0.5 { (0, p0) } else { (1, 1.0 - p0) };
        let k = if flip { 1 - k } else { k };
        labels[i] = (Some(k), Some(r7(p)));
    }
    let class_rgb: Vec<[f64; 3]> = centres.iter().map(|c| c.map(r7)).collect();
    let mut impure = 0;
    let mut chosen = Vec::new();
    for k in 0..2 {
        let mut pure = Vec::new();
        for &i in &pool {
            if labels[i].0 != Some(k) {
                continue;
            }
            if labels[i].1.unwrap_or(0.0) >= st.min_purity {
                pure.push(i);
            } else {
                impure += 1;
            }
        }
        chosen.push(select_similar(cands, &pure, st.count, st.similarity));
    }
    Choice { chosen, pool: pool.len(), impure, separation: Some(separation), class_rgb, labels, refusal: None }
}
