//! The rule's map operations on square row-major grids (`n × n` slices), each written so its
//! floating-point operations happen in one fixed order: the classification is compared cell for
//! cell with the original implementation's golden output and, later, with the browser build.
//!
//! * [`slope`]: central differences with clamped indices, `/(2·spacing)`, `hypot`.
//! * [`tpi`]: height minus the mean over a clipped `(2r+1)²` window (summed-area table, columns
//!   first).
//! * [`flow`]: D8 accumulation without filling: each cell passes its count to the steepest
//!   strictly-lower neighbour (scan order `(b, a)` over `−1..=1`, first maximum wins), cells
//!   taken from the highest down with the index as tie-break.
//! * [`downsample`] (block mean summed row then column, or block max), [`unit()`] (a constant
//!   field reads 0.5: "no information"), [`median`] (element `count/2` of the sorted clipped
//!   window), [`smooth`] (two passes of a clipped separable box blur), [`rank_unit`] (average
//!   rank of ties over `N − 1`), [`quantile`] (nearest rank), [`tie_hash`].

/// Gradient magnitude by central differences, edges clamped.
pub fn slope(z: &[f64], n: usize, spacing: f64) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    let two = 2.0 * spacing;
    for r in 0..n {
        let up = r.saturating_sub(1);
        let dn = (r + 1).min(n - 1);
        for c in 0..n {
            let lf = c.saturating_sub(1);
            let rt = (c + 1).min(n - 1);
            let dx = (z[r * n + rt] - z[r * n + lf]) / two;
            let dy = (z[dn * n + c] - z[up * n + c]) / two;
            out[r * n + c] = dx.hypot(dy);
        }
    }
    out
}

/// Summed-area table `(n+1)²`: prefix sums down each column, then across each row.
fn summed_area(z: &[f64], n: usize) -> Vec<f64> {
    let w = n + 1;
    let mut col = vec![0.0; n];
    let mut c = vec![0.0; w * w];
    for i in 0..n {
        for j in 0..n {
            col[j] += z[i * n + j];
        }
        let mut acc = 0.0;
        for j in 0..n {
            acc += col[j];
            c[(i + 1) * w + j + 1] = acc;
        }
    }
    c
}

/// Height minus the mean of the clipped `(2r+1)²` window around each cell (`r ≥ 1`).
pub fn tpi(z: &[f64], n: usize, radius: usize) -> Vec<f64> {
    let r = radius.max(1);
    let w = n + 1;
    let c = summed_area(z, n);
    let lo = |i: usize| i.saturating_sub(r);
    let hi = |i: usize| (i + r + 1).min(n);
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        let (a, b) = (lo(i), hi(i));
        for j in 0..n {
            let (p, q) = (lo(j), hi(j));
            let s = c[b * w + q] - c[a * w + q] - c[b * w + p] + c[a * w + p];
            let cnt = ((b - a) * (q - p)) as f64;
            out[i * n + j] = z[i * n + j] - s / cnt.max(1.0);
        }
    }
    out
}

/// D8 flow accumulation without depression filling: cells drained through each cell, itself
/// included (≥ 1, ≤ n²).
pub fn flow(z: &[f64], n: usize) -> Vec<f64> {
    let nn = n * n;
    let mut to = vec![usize::MAX; nn];
    let diag = std::f64::consts::SQRT_2;
    for r in 0..n {
        for c in 0..n {
            let i = r * n + c;
            let mut best = 0.0;
            for b in -1i64..=1 {
                for a in -1i64..=1 {
                    if a == 0 && b == 0 {
                        continue;
                    }
                    let (rr, cc) = (r as i64 + b, c as i64 + a);
                    if rr < 0 || cc < 0 || rr >= n as i64 || cc >= n as i64 {
                        continue;
                    }
                    let j = rr as usize * n + cc as usize;
                    let dist = if a != 0 && b != 0 { diag } else { 1.0 };
                    let drop = (z[i] - z[j]) / dist;
                    if drop > best {
                        best = drop;
                        to[i] = j;
                    }
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..nn).collect();
    // Highest first; equal heights in index order (a stable sort on the negated height).
    order.sort_by(|&a, &b| z[b].total_cmp(&z[a]).then(a.cmp(&b)));
    let mut acc = vec![1.0; nn];
    for &k in &order {
        let j = to[k];
        if j != usize::MAX {
            acc[j] += acc[k];
        }
    }
    acc
}

/// How `downsample` pools a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    Mean,
    Max,
}

/// `m × m` → `n × n` by blocks of `round(m/n)`; identity when that is 1.
pub fn downsample(a: &[f64], m: usize, n: usize, how: Pool) -> Vec<f64> {
    let over = ((m as f64 / n as f64).round() as usize).max(1);
    if over == 1 {
        return a.to_vec();
    }
    let mut out = vec![0.0; n * n];
    match how {
        Pool::Max => {
            for i in 0..n {
                for j in 0..n {
                    let mut v = f64::NEG_INFINITY;
                    for r in 0..over {
                        for c in 0..over {
                            v = v.max(a[(i * over + r) * m + j * over + c]);
                        }
                    }
                    out[i * n + j] = v;
                }
            }
        }
        Pool::Mean => {
            // Block row, then block column: the order of the original's accumulation.
            for r in 0..over {
                for c in 0..over {
                    for i in 0..n {
                        for j in 0..n {
                            out[i * n + j] += a[(i * over + r) * m + j * over + c];
                        }
                    }
                }
            }
            let d = (over * over) as f64;
            for v in &mut out {
                *v /= d;
            }
        }
    }
    out
}

/// Stretch to 0..1; a constant field (range ≤ 1e-12) reads 0.5, "no information".
pub fn unit(a: &[f64]) -> Vec<f64> {
    let lo = a.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi - lo > 1e-12 {
        a.iter().map(|&v| (v - lo) / (hi - lo)).collect()
    } else {
        vec![0.5; a.len()]
    }
}

/// Edge-preserving median over the clipped `(2r+1)²` window: element `count / 2` of the sorted
/// window (the upper middle value when the clipped count is even).
pub fn median(a: &[f64], n: usize, radius: usize) -> Vec<f64> {
    if radius == 0 {
        return a.to_vec();
    }
    let r = radius;
    let mut win = Vec::with_capacity((2 * r + 1) * (2 * r + 1));
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        let (r0, r1) = (i.saturating_sub(r), (i + r).min(n - 1));
        for j in 0..n {
            let (c0, c1) = (j.saturating_sub(r), (j + r).min(n - 1));
            win.clear();
            for rr in r0..=r1 {
                win.extend_from_slice(&a[rr * n + c0..=rr * n + c1]);
            }
            let k = win.len() >> 1;
            let (_, v, _) = win.select_nth_unstable_by(k, |x, y| x.total_cmp(y));
            out[i * n + j] = *v;
        }
    }
    out
}

/// Two passes of a separable box blur of radius `r`, clipped at the edges (each pass:
/// horizontal, then vertical, dividing by the in-range count).
pub fn smooth(a: &[f64], n: usize, radius: usize) -> Vec<f64> {
    if radius == 0 {
        return a.to_vec();
    }
    let r = radius as i64;
    let mut cur = a.to_vec();
    let mut tmp = vec![0.0; n * n];
    for _ in 0..2 {
        tmp.iter_mut().for_each(|v| *v = 0.0);
        let mut cnt = vec![0.0; n];
        for c in -r..=r {
            for j in 0..n {
                let jj = j as i64 + c;
                if jj < 0 || jj >= n as i64 {
                    continue;
                }
                cnt[j] += 1.0;
                for i in 0..n {
                    tmp[i * n + j] += cur[i * n + jj as usize];
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                tmp[i * n + j] /= cnt[j];
            }
        }
        let mut out = vec![0.0; n * n];
        let mut cnt = vec![0.0; n];
        for b in -r..=r {
            for i in 0..n {
                let ii = i as i64 + b;
                if ii < 0 || ii >= n as i64 {
                    continue;
                }
                cnt[i] += 1.0;
                for j in 0..n {
                    out[i * n + j] += tmp[ii as usize * n + j];
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] /= cnt[i];
            }
        }
        cur = out;
    }
    cur
}

/// Each value replaced by its rank among the others on 0..1, ties sharing their average rank.
pub fn rank_unit(a: &[f64]) -> Vec<f64> {
    let len = a.len();
    if len < 2 {
        return a.to_vec();
    }
    let mut idx: Vec<usize> = (0..len).collect();
    idx.sort_by(|&x, &y| a[x].total_cmp(&a[y]));
    let mut out = vec![0.0; len];
    let mut s = 0;
    while s < len {
        let mut e = s;
        while e + 1 < len && a[idx[e + 1]] == a[idx[s]] {
            e += 1;
        }
        let v = (s + e) as f64 / 2.0 / (len - 1) as f64;
        for &k in &idx[s..=e] {
            out[k] = v;
        }
        s = e + 1;
    }
    out
}

/// Nearest-rank quantile: element `round(q·(len−1))` of the sorted values (0 when empty).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut s = values.to_vec();
    let i = ((q * (s.len() - 1) as f64 + 0.5).floor().max(0.0) as usize).min(s.len() - 1);
    let (_, v, _) = s.select_nth_unstable_by(i, |x, y| x.total_cmp(y));
    *v
}

/// ToUint32 of an integral double: truncate, then wrap modulo 2³².
fn to_u32(x: f64) -> u32 {
    x.trunc().rem_euclid(4_294_967_296.0) as u32
}

/// The per-index hash the rule uses to order a featureless field and the viewer uses as each
/// splat's priority, as a value in `[0, 1)`.
///
/// The original computes it in JavaScript numbers: the multiplications happen in doubles (not
/// 32-bit integer multiplication), then wrap with ToUint32; that is reproduced exactly here. For
/// `i·747796405 + 2891336453` the double is exact below 2⁵³/747796405 ≈ 1.2·10⁷; beyond, the
/// double rounding is part of the definition.
pub fn tie_hash(i: u64) -> f64 {
    let h = to_u32(i as f64 * 747_796_405.0 + 2_891_336_453.0);
    let sh = ((h >> 28) + 4) & 31;
    let x = ((h >> sh) ^ h) as i32; // ToInt32 of the xor result
    let h = to_u32(f64::from(x) * 277_803_737.0);
    f64::from((h >> 22) ^ h) / 4_294_967_296.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(n: usize, gx: f64, gy: f64) -> Vec<f64> {
        (0..n * n).map(|i| gx * (i % n) as f64 + gy * (i / n) as f64).collect()
    }

    #[test]
    fn slope_of_a_plane_is_exact_and_spacing_halves_it() {
        let z = plane(9, 0.3, 0.0);
        let s = slope(&z, 9, 1.0);
        for r in 0..9 {
            for c in 1..8 {
                assert!((s[r * 9 + c] - 0.3).abs() < 1e-12);
            }
        }
        let s2 = slope(&z, 9, 2.0);
        assert!((s2[40] - 0.15).abs() < 1e-12);
    }

    #[test]
    fn tpi_signs_and_plane_interior() {
        let n = 11;
        let cone: Vec<f64> = (0..n * n).map(|i| -(((i % n) as f64 - 5.0).hypot((i / n) as f64 - 5.0))).collect();
        let t = tpi(&cone, n, 2);
        assert!(t[5 * n + 5] > 0.0);
        let pit: Vec<f64> = cone.iter().map(|v| -v).collect();
        assert!(tpi(&pit, n, 2)[5 * n + 5] < 0.0);
        let p = plane(n, 0.2, 0.7);
        let tp = tpi(&p, n, 2);
        for r in 2..n - 2 {
            for c in 2..n - 2 {
                assert!(tp[r * n + c].abs() < 1e-9);
            }
        }
    }

    #[test]
    fn flow_bounds_channel_and_flat() {
        let n = 16;
        // A V-shaped valley draining south: the channel column collects the flanks.
        let z: Vec<f64> = (0..n * n).map(|i| ((i % n) as f64 - 7.0).abs() * 2.0 + (n - i / n) as f64).collect();
        let f = flow(&z, n);
        assert!(f.iter().all(|&v| (1.0..=(n * n) as f64).contains(&v)));
        let channel = f[(n - 1) * n + 7];
        let flank = f[(n - 1) * n + 2];
        assert!(channel > 10.0 * flank, "{channel} vs {flank}");
        // Grows downhill along the channel.
        assert!(f[10 * n + 7] > f[3 * n + 7]);
        assert!(flow(&vec![1.0; 64], 8).iter().all(|&v| v == 1.0));
    }

    #[test]
    fn downsample_mean_and_max() {
        let a: Vec<f64> = (0..16).map(|v| v as f64).collect();
        assert_eq!(downsample(&a, 4, 2, Pool::Mean), vec![2.5, 4.5, 10.5, 12.5]);
        assert_eq!(downsample(&a, 4, 2, Pool::Max), vec![5.0, 7.0, 13.0, 15.0]);
        assert_eq!(downsample(&a, 4, 4, Pool::Max), a);
    }

    #[test]
    fn unit_median_smooth_rank_quantile() {
        assert_eq!(unit(&[2.0, 4.0, 3.0]), vec![0.0, 1.0, 0.5]);
        assert_eq!(unit(&[7.0; 4]), vec![0.5; 4]);
        // A single outlier vanishes under the median; an edge survives.
        let mut a = vec![0.0; 49];
        a[24] = 9.0;
        assert!(median(&a, 7, 1).iter().all(|&v| v == 0.0));
        let step: Vec<f64> = (0..49).map(|i| if i % 7 >= 4 { 1.0 } else { 0.0 }).collect();
        let m = median(&step, 7, 1);
        assert_eq!(m[3 * 7 + 3], 0.0);
        assert_eq!(m[3 * 7 + 4], 1.0);
        // Upper median at an even clipped count: the corner window holds 0,0,1,1 → 1.
        let corner = vec![0.0, 1.0, 5.0, 0.0, 1.0, 5.0, 5.0, 5.0, 5.0];
        assert_eq!(median(&corner, 3, 1)[0], 1.0);
        // Box blur keeps a constant and the mean of a symmetric field.
        assert!(smooth(&[3.0; 25], 5, 1).iter().all(|&v| (v - 3.0).abs() < 1e-15));
        assert_eq!(rank_unit(&[5.0, 1.0, 5.0, 3.0]), vec![(2.0 + 3.0) / 2.0 / 3.0, 0.0, 2.5 / 3.0, 1.0 / 3.0]);
        assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0, 5.0], 0.9), 5.0);
        assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0, 5.0], 0.5), 3.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn tie_hash_pinned_vectors() {
        // From the original implementation's Python port of the hash (JavaScript number semantics), run as a peer.
        let want = [
            (0u64, 0.03020001156255603),
            (1, 0.6591631178744137),
            (2, 0.47849729866720736),
            (1000, 0.5038153163623065),
            (123456, 0.5257293344475329),
            (13_000_000, 0.6054445009212941),
            (19_999_999, 0.28987506963312626),
        ];
        for (i, v) in want {
            assert_eq!(tie_hash(i), v, "index {i}");
        }
    }
}
