//! The original bozkir terrain generator, ported so that it names the same ground.
//!
//! A port of `bozkir/erosion.py` (husmen8/bozkir; restated in the project's reference inventory
//! §2.1): integer-hash gradient noise, fBM/ridged mix, dome, tilt, terraces; then stream power in
//! the style of FastScape (Braun & Willett, *Geomorphology* 2013) — steepest-descent receivers,
//! implicit incision receivers-first, explicit hillslope creep, a sediment proxy — on a field
//! enlarged by [`CROP_MARGIN`] on each side and cropped back, with Priority-Flood (Barnes, Lehman &
//! Mulla 2014) before and after.
//!
//! Everything is f64 and evaluated in the original's operation order and tie-break order, so the
//! normalised height and sediment agree with the original bit for bit (tests hold them to 1e-9
//! against outputs of the original's own code). The order-sensitive places are:
//! * receivers: neighbours tried row offset −1..1 outer, column offset −1..1 inner; only a strictly
//!   larger drop per distance replaces; border cells and pits are their own receiver;
//! * cells are processed in levels of equal distance-to-outlet, and within a level by index;
//! * sediment flux is added to a receiver in increasing donor index;
//! * the depression fill pops `(value, index)` pairs from a min-heap;
//! * creep sums `((N + S) + W) + E − 4c`.
//!
//! Parallelism is limited to per-cell pure work (noise, receivers), so the output is the same for
//! any thread count.

use super::table::ProfileParams;
use crate::hydrology::flow_graph::build_stack_pairs_and_count_into;
use crate::sculpt::dome::edge_taper as taper_grid;
use crate::sculpt::normalise::unit_normalise;
use crate::sculpt::terrace::terrace_value;
use bozkir_core::{hash_u32, Grid, Progress};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Version of this generator's output. Changes whenever the same inputs give different bytes.
pub const GENERATOR_VERSION: u32 = 2;

/// Fraction of each side simulated but cropped away, so the base-level border is not seen.
pub const CROP_MARGIN: f64 = 0.15;

const GX: [f64; 8] = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0];
const GY: [f64; 8] = [1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 1.0, -1.0];

/// The generator's result: height and sediment, both unit-normalised (a flat field is all zero).
#[derive(Debug, Clone)]
pub struct BozkirTerrain {
    pub height: Grid<f64>,
    pub sediment: Grid<f64>,
    /// The un-eroded base surface over the same cropped window, unit-normalised.
    pub base: Grid<f64>,
}

#[inline]
fn quintic(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// One octave of the original's gradient noise, `f` lattice cells across, values about 0..1.
fn gradient_octave(h: usize, w: usize, f: f64, s: u32, stretch: f64) -> Vec<f64> {
    let fs = f * stretch;
    let xs: Vec<(f64, u32, f64)> = (0..w)
        .map(|i| {
            let x = (i as f64 * fs) / w as f64;
            let x0 = x.floor();
            let fx = x - x0;
            (fx, x0 as i64 as u32, quintic(fx))
        })
        .collect();
    let mut out = vec![0.0; h * w];
    out.par_chunks_mut(w.max(1)).enumerate().for_each(|(j, row)| {
        let y = (j as f64 * f) / h as f64;
        let y0 = y.floor();
        let fy = y - y0;
        let uy = quintic(fy);
        let y0 = y0 as i64 as u32;
        for (o, &(fx, x0, ux)) in row.iter_mut().zip(&xs) {
            let corner = |dx: u32, dy: u32| {
                let g = (hash_u32(x0.wrapping_add(dx), y0.wrapping_add(dy), s) & 7) as usize;
                GX[g] * (fx - dx as f64) + GY[g] * (fy - dy as f64)
            };
            let a = corner(0, 0);
            let b = corner(1, 0);
            let c = corner(0, 1);
            let d = corner(1, 1);
            let top = a + (b - a) * ux;
            let bot = c + (d - c) * ux;
            *o = (top + (bot - top) * uy) * 0.5 + 0.5;
        }
    });
    out
}

fn fractal(h: usize, w: usize, octaves: u32, freq: f64, seed: u64, stretch: f64, ridged: bool) -> Vec<f64> {
    let mut out = vec![0.0; h * w];
    let (mut amp, mut f, mut norm) = (1.0f64, freq, 0.0f64);
    for k in 0..octaves.max(1) as u64 {
        let s = if ridged {
            seed.wrapping_mul(1013).wrapping_add(7919).wrapping_add(k)
        } else {
            seed.wrapping_mul(1013).wrapping_add(k)
        };
        let v = gradient_octave(h, w, f, s as u32, stretch);
        if ridged {
            out.par_iter_mut().zip(&v).for_each(|(o, &v)| {
                let n = 1.0 - (2.0 * v - 1.0).abs();
                *o += amp * (n * n);
            });
        } else {
            out.par_iter_mut().zip(&v).for_each(|(o, &v)| *o += amp * v);
        }
        norm += amp;
        amp *= 0.5;
        f *= 2.0;
    }
    let d = norm.max(1e-9);
    out.par_iter_mut().for_each(|o| *o /= d);
    out
}

/// Unit-normalise in place (the original's `_unit`: a flat field becomes zeros).
fn unit(a: &mut Vec<f64>) {
    let n = a.len();
    *a = unit_normalise(&Grid::from_vec(n, 1, std::mem::take(a))).into_vec();
}

/// The original's edge taper of an `n0 × n1` (rows × columns) field, row-major.
fn edge_taper(n0: usize, n1: usize, frac: f64) -> Vec<f64> {
    taper_grid(n1, n0, frac).into_vec()
}

/// The noise a profile starts from, `n × n`, 0..1, before erosion (the original's `base_surface`).
pub fn base_surface(n: usize, seed: u64, p: &ProfileParams) -> Vec<f64> {
    let mut z = fractal(n, n, p.octaves, p.freq, seed, p.stretch, false);
    if p.ridge > 0.0 {
        let r = fractal(n, n, p.octaves, p.freq, seed, p.stretch, true);
        z.par_iter_mut().zip(&r).for_each(|(z, &r)| *z = *z * (1.0 - p.ridge) + r * p.ridge);
    }
    unit(&mut z);
    if p.dome > 0.0 {
        let band = CROP_MARGIN / (1.0 + 2.0 * CROP_MARGIN);
        let t = edge_taper(n, n, band);
        z.par_iter_mut().zip(&t).for_each(|(z, &t)| *z = *z * (1.0 - p.dome) + t * p.dome);
        unit(&mut z);
    }
    if p.tilt > 0.0 {
        z.par_chunks_mut(n).enumerate().for_each(|(r, row)| {
            let ramp = 1.0 - r as f64 / (n as f64 - 1.0);
            row.iter_mut().for_each(|z| *z = *z * (1.0 - p.tilt) + ramp * p.tilt);
        });
        unit(&mut z);
    }
    if p.terraces > 0 {
        z.par_iter_mut().for_each(|z| *z = terrace_value(*z, p.terraces, 0.5));
    }
    z
}

/// Total order on f64 that agrees with `<` for the finite values used here.
#[derive(Clone, Copy, PartialEq)]
struct Key(f64, u32);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// The original's Priority-Flood with a fixed step: a cell reached from one at `v` and not above
/// it becomes `v + eps`, `eps = 1e-4 · range · 256 / max(n0, n1)`. Heap ties by index.
/// (The general-purpose fills, robust at any elevation, are in [`crate::hydrology`].)
fn fill_fixed_step(g: &mut [f64], n0: usize, n1: usize) {
    let (lo, hi) = g.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    let eps = 1e-4 * (hi - lo).max(1e-9) * 256.0 / n0.max(n1) as f64;
    let mut done = vec![false; g.len()];
    let mut heap = BinaryHeap::with_capacity(2 * (n0 + n1));
    for r in 0..n0 {
        for c in 0..n1 {
            if r == 0 || c == 0 || r == n0 - 1 || c == n1 - 1 {
                let k = r * n1 + c;
                heap.push(Reverse(Key(g[k], k as u32)));
                done[k] = true;
            }
        }
    }
    while let Some(Reverse(Key(v, k))) = heap.pop() {
        let (r, c) = (k as usize / n1, k as usize % n1);
        for b in -1isize..=1 {
            for a in -1isize..=1 {
                if a == 0 && b == 0 {
                    continue;
                }
                let (rr, cc) = (r as isize + b, c as isize + a);
                if rr < 0 || cc < 0 || rr >= n0 as isize || cc >= n1 as isize {
                    continue;
                }
                let q = rr as usize * n1 + cc as usize;
                if done[q] {
                    continue;
                }
                done[q] = true;
                if g[q] <= v {
                    g[q] = v + eps;
                }
                heap.push(Reverse(Key(g[q], q as u32)));
            }
        }
    }
}

/// Steepest-descent receivers and distances (unit cells), the original's order and tie-break.
fn receivers(h: &[f64], n0: usize, n1: usize, rec: &mut [u32], dist: &mut [f64]) {
    rec.par_chunks_mut(n1).zip(dist.par_chunks_mut(n1)).enumerate().for_each(|(r, (rrow, drow))| {
        for c in 0..n1 {
            let k = r * n1 + c;
            rrow[c] = k as u32;
            drow[c] = 1.0;
            if r == 0 || c == 0 || r == n0 - 1 || c == n1 - 1 {
                continue;
            }
            let hc = h[k];
            let mut best = 0.0;
            for b in -1isize..=1 {
                for a in -1isize..=1 {
                    if a == 0 && b == 0 {
                        continue;
                    }
                    let d = if a != 0 && b != 0 { std::f64::consts::SQRT_2 } else { 1.0 };
                    let q = ((r as isize + b) as usize) * n1 + (c as isize + a) as usize;
                    let s = (hc - h[q]) / d;
                    if s > best {
                        best = s;
                        rrow[c] = q as u32;
                        drow[c] = d;
                    }
                }
            }
        }
    });
}

/// Donor lists in compressed rows: the donors of `r` are `donors[start[r]..start[r + 1]]`, in
/// increasing index (the order the original's `np.add.at` adds them in).
fn donor_lists(rec: &[u32], start: &mut [u32], donors: &mut [u32]) {
    let n = rec.len();
    start.iter_mut().for_each(|v| *v = 0);
    for (i, &r) in rec.iter().enumerate() {
        if r as usize != i {
            start[r as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut at: Vec<u32> = start[..n].to_vec();
    for (i, &r) in rec.iter().enumerate() {
        if r as usize != i {
            donors[at[r as usize] as usize] = i as u32;
            at[r as usize] += 1;
        }
    }
}

/// Stream power as the original runs it. `z` is `n0 × n1` row-major; returns (height, sediment).
///
/// The original walks cells in levels of equal distance to the outlet. Only two things depend
/// on that order: each cell must see its receiver's new height (any receivers-first order gives
/// the same incision), and a receiver's sediment flux must add its donors' remainders in
/// increasing donor index. So cells are walked in a receivers-first stack built by peeling
/// leaves (local in memory, unlike levels), and each receiver pulls its donors' remainders from
/// an index-ordered donor list: the same arithmetic in the same order, bit for bit.
#[allow(clippy::too_many_arguments)]
fn erode(
    z: &[f64],
    n0: usize,
    n1: usize,
    iterations: u32,
    incision: f64,
    diffusion: f64,
    uplift: f64,
    uplift_map: &[f64],
    progress: &dyn Progress,
) -> (Vec<f64>, Vec<f64>) {
    let n = n0 * n1;
    let dt = 1.0f64;
    let mut flat = z.to_vec();
    fill_fixed_step(&mut flat, n0, n1);
    let mut umap = edge_taper(n0, n1, 0.12);
    umap.par_iter_mut().zip(uplift_map).for_each(|(t, u)| *t *= u);
    let mut sediment = vec![0.0f64; n];
    let mut rec = vec![0u32; n];
    let mut dist = vec![0.0f64; n];
    let mut count = vec![0u32; n];
    let mut pairs = vec![0u64; n];
    let mut indeg = Vec::with_capacity(2 * n);
    let mut dstart = vec![0u32; n + 1];
    let mut donors = vec![0u32; n];
    let mut before = vec![0.0f64; n];
    let mut qs = vec![0.0f64; n];
    let mut slope = vec![0.0f64; n]; // holds the settling fraction
    let iterations = iterations.max(1);
    let nf = n as f64;
    for it in 0..iterations {
        if progress.cancelled() {
            break;
        }
        progress.report("erode", it as u64, iterations as u64);
        receivers(&flat, n0, n1, &mut rec, &mut dist);
        // Receivers-first stack (cell | receiver << 32) with drainage area in cells, counted
        // exactly as integers while peeling.
        count.par_iter_mut().for_each(|c| *c = 1);
        build_stack_pairs_and_count_into(&rec, &mut indeg, &mut count, &mut pairs);
        donor_lists(&rec, &mut dstart, &mut donors);
        if uplift != 0.0 {
            let u = uplift * dt;
            flat.par_chunks_mut(n1).zip(umap.par_chunks(n1)).enumerate().for_each(|(r, (row, um))| {
                if r == 0 || r == n0 - 1 {
                    return;
                }
                for c in 1..n1 - 1 {
                    row[c] += u * um[c];
                }
            });
        }
        before.copy_from_slice(&flat);
        // Implicit incision, receivers first: h ← (h + F h_r)/(1 + F), F = K dt √A / dist.
        // F per cell is independent of the order, so it is computed in parallel first (into
        // `qs`, free until the eroded depth goes there); the walk itself is sequential.
        let kdt = incision * dt;
        let fk = &mut qs;
        fk.par_iter_mut().zip(count.par_iter().zip(dist.par_iter())).for_each(|(f, (&c, &d))| {
            *f = kdt * (c as f64 / nf).sqrt() / d;
        });
        for &p in pairs.iter() {
            let (i, r) = ((p & 0xFFFF_FFFF) as usize, (p >> 32) as usize);
            if i != r {
                let f = fk[i];
                flat[i] = (flat[i] + f * flat[r]) / (1.0 + f);
            }
        }
        // Eroded depth, and the settling fraction 0.5·s0/(s0 + slope) with s0 = 0.02 (stored in
        // `slope`; slope is measured after incision, before creep).
        qs.par_iter_mut().zip(slope.par_iter_mut()).enumerate().for_each(|(k, (q, s))| {
            *q = (before[k] - flat[k]).max(0.0);
            let sl = (flat[k] - flat[rec[k] as usize]).max(0.0) / dist[k];
            *s = 0.5 * (0.02 / (0.02 + sl));
        });
        // Creep: explicit, interior only, fixed summation order (the Laplacian goes to `before`,
        // free once `qs` holds the eroded depth).
        if diffusion != 0.0 {
            let ddt = diffusion * dt;
            let lap = &mut before;
            lap.par_chunks_mut(n1).enumerate().for_each(|(r, row)| {
                if r == 0 || r == n0 - 1 {
                    row.iter_mut().for_each(|v| *v = 0.0);
                    return;
                }
                row[0] = 0.0;
                row[n1 - 1] = 0.0;
                for (c, v) in row.iter_mut().enumerate().take(n1 - 1).skip(1) {
                    let k = r * n1 + c;
                    *v = (((flat[k - n1] + flat[k + n1]) + flat[k - 1]) + flat[k + 1]) - 4.0 * flat[k];
                }
            });
            flat.par_iter_mut().zip(lap.par_iter()).for_each(|(h, l)| *h += ddt * l);
        }
        // Sediment proxy: eroded material passed downstream, settling where the ground
        // flattens. Donors before receivers; `before` now holds each donor's remainder.
        let rest = &mut before;
        for &p in pairs.iter().rev() {
            let (i, r) = ((p & 0xFFFF_FFFF) as usize, (p >> 32) as usize);
            let mut q = qs[i];
            for &d in &donors[dstart[i] as usize..dstart[i + 1] as usize] {
                q += rest[d as usize];
            }
            qs[i] = q;
            if i != r {
                let dep = q * slope[i];
                sediment[i] += dep;
                rest[i] = q - dep;
            } else {
                sediment[i] += q;
            }
        }
    }
    progress.report("erode", iterations as u64, iterations as u64);
    fill_fixed_step(&mut flat, n0, n1);
    (flat, sediment)
}

/// Generate `size × size` terrain from the bozkir generator: base surface on a field enlarged by
/// [`CROP_MARGIN`] per side, eroded, cropped to the middle, height and sediment unit-normalised.
///
/// `size` must be at least 4. Output is identical for any thread count.
///
/// # Examples
///
/// ```
/// use bozkir_core::NoProgress;
/// use bozkir_terrain::profiles::{generate, profile};
///
/// let canyon = profile("canyon").unwrap();
/// let t = generate(32, 3, &canyon.params, &NoProgress);
/// assert_eq!((t.height.width(), t.height.height()), (32, 32));
/// // Height and sediment are unit-normalised.
/// let (lo, hi) = t.height.min_max().unwrap();
/// assert!(lo >= 0.0 && hi <= 1.0);
/// // The same profile, seed and size give the same bits.
/// assert_eq!(t.height, generate(32, 3, &canyon.params, &NoProgress).height);
/// ```
pub fn generate(size: usize, seed: u64, p: &ProfileParams, progress: &dyn Progress) -> BozkirTerrain {
    let n = size.max(4);
    // Round half up by hand, as the original (Python and JavaScript disagree on halves).
    let big = n + 2 * (n as f64 * CROP_MARGIN + 0.5).floor() as usize;
    let k = (big - n) / 2;
    progress.report("base surface", 0, 1);
    let z0 = base_surface(big, seed, p);
    let zr: Vec<f64> = z0.iter().map(|z| z * p.relief).collect();
    let (h, sed) = erode(&zr, big, big, p.iterations, p.incision, p.diffusion, p.uplift * p.relief, &z0, progress);
    let crop = |a: &[f64]| {
        let mut out = Vec::with_capacity(n * n);
        for r in k..k + n {
            out.extend_from_slice(&a[r * big + k..r * big + k + n]);
        }
        unit(&mut out);
        Grid::from_vec(n, n, out)
    };
    BozkirTerrain { height: crop(&h), sediment: crop(&sed), base: crop(&z0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::NoProgress;

    #[test]
    fn edge_taper_is_zero_at_border_one_inside() {
        let t = edge_taper(20, 30, 0.12);
        assert_eq!(t[0], 0.0);
        assert_eq!(t[10 * 30 + 15], 1.0);
        assert!(t.iter().all(|v| (0.0..=1.0).contains(v)));
    }

    #[test]
    fn generate_is_unit_and_deterministic_across_thread_counts() {
        let p = super::super::table::profile("canyon").unwrap().params;
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| generate(40, 3, &p, &NoProgress))
        };
        let a = run(1);
        let b = run(2);
        assert_eq!(a.height.data(), b.height.data());
        assert_eq!(a.sediment.data(), b.sediment.data());
        let (lo, hi) = a.height.min_max().unwrap();
        assert_eq!((lo, hi), (0.0, 1.0));
        let c = generate(40, 4, &p, &NoProgress);
        assert_ne!(a.height.data(), c.height.data());
    }
}
