//! Approximate farthest-point sampling for very large clouds: one random representative per
//! occupied cell of a voxel grid (NPDU / voxel-grid style), then exact FPS on the
//! representatives.
//!
//! # Algorithm
//!
//! 1. **Codes.** The cloud's bounding box is made a cube of side `E` (its largest extent) and
//!    each point gets the Morton code of its 21-bit integer coordinates
//!    `⌊(p − lo)·2²¹/E⌋` (clamped to `2²¹ − 1`); its cell at octree level `L` (cells of side
//!    `E/2ᴸ`, `L = 0..=21`) is the code's top `3L` bits, so cells in code order are in Morton
//!    order.
//! 2. **Level.** The number of occupied cells of each level decides the grid: among the levels
//!    with at least [`MIN_OVERSAMPLE`]`·k` occupied cells, the one whose count is nearest (by
//!    ratio) to [`OVERSAMPLE`]`·k`, the coarser on a tie, so the exact stage has a few
//!    candidates per pick but not many more (a filled volume gains 8× cells per level, a
//!    surface 4×). Counts come from an occupancy bitmap of level 7 (2²¹ bits, in cache), or if
//!    no level up to 7 has `MIN_OVERSAMPLE·k` cells, of level 9 (2²⁷ bits): each parallel task
//!    marks its own, merged by OR, and a coarser level's bit is set when any of its 8
//!    children's is, which in Morton order is one byte; finer levels are considered only when
//!    the bitmap's have too few cells. Only when level 9 has fewer than `MIN_OVERSAMPLE·k`
//!    cells (k in the hundreds of thousands, or a strongly clustered cloud), or the cloud has
//!    at most 2¹⁸ points, are the `(code, index)` pairs sorted instead to count every level (a
//!    run boundary at the highest differing bit belongs to that level and every finer one); if
//!    no level then has `MIN_OVERSAMPLE·k` cells, level 21 is used if it has at least `k`.
//! 3. **Representatives.** In each cell the representative is the point with the smallest
//!    `(hash_u32(index, seed_lo, seed_hi), index)`: a uniform random member, decided per cell
//!    by a minimum (per-task minima merged by minimum on the bitmap path, a scan of the run on
//!    the sorted path; both give the same), so the result does not depend on thread count. Every
//!    input point is within `δ` = the cell diagonal `√3·E/2ᴸ` of its representative (plus
//!    `1e-9` relative for the rounding of the codes), reported as [`ApproxFps::cover`].
//! 4. **Exact FPS** ([`crate::fps_exact`]) on the representatives in Morton order, starting
//!    from the representative of the cell that holds input point 0; indices are mapped back.
//!
//! When `n ≤ OVERSAMPLE·k`, or no level has `k` occupied cells (heavy duplication), the exact
//! algorithm runs on all points instead (`cover = 0`); that is the only slow path.
//!
//! # Guarantee
//!
//! Let `δ` = [`ApproxFps::cover`] and `R` the representatives (every input point is within
//! `δ` of one). Write `d_k(X)` for the spacing of greedy FPS on `X` (the distance of its `k`-th
//! pick to the earlier ones, which is also the minimum pairwise distance of its picks) and
//! `ρ(S)` for the covering radius of a selection `S` over the input. Then, with `E` the exact
//! greedy selection of `k` points on the whole cloud (any start):
//!
//! * **spacing:** `min_spacing(approx) ≥ (min_spacing(E) − 2δ) / 2`;
//! * **coverage:** `ρ(approx) ≤ 2·ρ(E) + 3δ`.
//!
//! Proof sketch. Greedy FPS is a 2-approximation for both max-min dispersion and k-center
//! (Gonzalez 1985; Tamir 1991), on `R` as on the input. Moving each point of the best
//! dispersed `k`-set of the input to its representative loses at most `2δ` of spacing, so the
//! best on `R` is at least `min_spacing(E) − 2δ`, and greedy on `R` gets half of that. The
//! `k` picks on `R` cover `R` within twice `R`'s optimal k-center radius, which is at most the
//! input's optimal radius plus `δ`, itself at most `ρ(E)`; add `δ` to reach every input point.
//! `δ` is the cell diagonal, usually well below the spacing since the grid has at least
//! `MIN_OVERSAMPLE·k` occupied cells.
//!
//! # Errors
//!
//! Those of [`crate::fps_exact`] (empty cloud, non-finite point, `k` out of `1..=n`).

use crate::cloud::bounds;
use crate::error::Result;
use crate::fps::{check_fps, fps_unchecked};
use bozkir_core::hash::hash_u32;
use rayon::prelude::*;

/// Occupied cells wanted per pick (see the module doc).
pub const OVERSAMPLE: usize = 4;

/// Fewest occupied cells per pick of a level the grid may use (see the module doc).
pub const MIN_OVERSAMPLE: usize = 2;

/// Bits per axis of the Morton code.
const BITS: u32 = 21;

/// Points per parallel task.
const CHUNK: usize = 1 << 15;

/// The result of [`fps_approx`].
#[derive(Debug, Clone, PartialEq)]
pub struct ApproxFps {
    /// The `k` picks, indices into the input, in pick order.
    pub indices: Vec<usize>,
    /// Side of the grid cells (0 when the exact algorithm ran on all points).
    pub cell_size: f64,
    /// Number of representatives the exact stage chose from (`n` on the exact path).
    pub representatives: usize,
    /// `δ`: a bound on the distance from an input point to its cell's representative, the cell
    /// diagonal (0 on the exact path). The guarantee of the module doc is stated with it.
    pub cover: f64,
}

/// Spreads the low 21 bits of `v` to every third bit.
#[inline]
fn spread(v: u64) -> u64 {
    let mut x = v & 0x1f_ffff;
    x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
    x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
    x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
    x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// Approximate farthest-point sampling of `k` of `points` (see the module doc for the
/// algorithm, the guarantee and the errors); deterministic in `seed`, the same on any number
/// of threads.
pub fn fps_approx(points: &[[f64; 3]], k: usize, seed: u64) -> Result<ApproxFps> {
    check_fps("fps_approx", points, k, 0)?;
    let n = points.len();
    let exact = |points: &[[f64; 3]]| ApproxFps {
        indices: fps_unchecked(points, k, 0),
        cell_size: 0.0,
        representatives: n,
        cover: 0.0,
    };
    if n <= OVERSAMPLE.saturating_mul(k) {
        return Ok(exact(points));
    }
    let Some(Reps { reps, start, cell_size }) = representatives(points, k, seed) else {
        return Ok(exact(points));
    };
    let rep_pts: Vec<[f64; 3]> = reps.iter().map(|&r| points[r]).collect();
    // 4. Exact FPS on the representatives.
    let picks = fps_unchecked(&rep_pts, k, start);
    Ok(ApproxFps {
        indices: picks.into_iter().map(|j| reps[j]).collect(),
        cell_size,
        representatives: reps.len(),
        cover: cover_bound(cell_size),
    })
}

/// `δ` for cells of side `cell_size` (see the module doc).
fn cover_bound(cell_size: f64) -> f64 {
    3f64.sqrt() * cell_size * (1.0 + 1e-9)
}

/// Steps 1–3 of the module doc.
struct Reps {
    /// One input index per occupied cell, in Morton order of the cells.
    reps: Vec<usize>,
    /// Position in `reps` of the representative of point 0's cell.
    start: usize,
    cell_size: f64,
}

/// Levels of the occupancy bitmaps tried in turn (see the module doc): 2²¹ bits (256 KiB, in
/// cache), then 2²⁷ bits (16 MiB).
const BITMAP_LEVELS: [usize; 2] = [7, 9];

/// Clouds of at most this many points take the sorted path (cheaper than a 16 MiB bitmap).
const SORT_BELOW: usize = 1 << 18;

/// The quantiser of step 1.
#[derive(Clone, Copy)]
struct Quantiser {
    lo: [f64; 3],
    scale: f64,
    extent: f64,
}

impl Quantiser {
    /// The 63-bit Morton code of `p`.
    #[inline]
    fn code(&self, p: &[f64; 3]) -> u64 {
        const TOP: u64 = (1 << BITS) - 1;
        let q = [0, 1, 2].map(|a| (((p[a] - self.lo[a]) * self.scale) as u64).min(TOP));
        spread(q[0]) | spread(q[1]) << 1 | spread(q[2]) << 2
    }

    /// The cell of `p` at `level`.
    #[inline]
    fn cell(&self, p: &[f64; 3], level: usize) -> u64 {
        self.code(p) >> (3 * (BITS as usize - level))
    }
}

/// The level chosen from `occupied[l]` for `l` in `levels` (see the module doc), if any has
/// `MIN_OVERSAMPLE·k` cells.
fn choose_level(occupied: &[usize], k: usize) -> Option<usize> {
    let (want, least) = (OVERSAMPLE * k, MIN_OVERSAMPLE * k);
    let off = |l: usize| (occupied[l] as f64 / want as f64).ln().abs();
    (0..occupied.len()).filter(|&l| occupied[l] >= least).reduce(|a, b| if off(b) < off(a) { b } else { a })
}

/// Steps 1–3 of the module doc on checked input; `None` where the exact path must run.
fn representatives(points: &[[f64; 3]], k: usize, seed: u64) -> Option<Reps> {
    let q = quantiser(points)?;
    if points.len() > SORT_BELOW {
        for top in BITMAP_LEVELS {
            let bitmaps = occupancy_bitmaps(points, &q, top);
            let occupied: Vec<usize> =
                bitmaps.iter().map(|b| b.iter().map(|w| w.count_ones() as usize).sum()).collect();
            if let Some(level) = choose_level(&occupied, k) {
                return Some(reps_by_bitmap(points, &q, &bitmaps[level], level, seed));
            }
        }
    }
    let keys = sorted_codes(points, &q);
    let occupied = occupied_by_level(&keys);
    let level = match choose_level(&occupied, k) {
        Some(l) => l,
        None if occupied[BITS as usize] >= k => BITS as usize,
        None => return None,
    };
    Some(reps_by_sort(points, &q, &keys, level, seed))
}

/// The quantiser of `points`, `None` when they all coincide.
fn quantiser(points: &[[f64; 3]]) -> Option<Quantiser> {
    let (lo, hi) = points.par_chunks(CHUNK).map(bounds).reduce(
        || ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |a, b| ([0, 1, 2].map(|i| a.0[i].min(b.0[i])), [0, 1, 2].map(|i| a.1[i].max(b.1[i]))),
    );
    let extent = (0..3).map(|a| hi[a] - lo[a]).fold(0.0f64, f64::max);
    if extent == 0.0 || !extent.is_finite() {
        return None;
    }
    Some(Quantiser { lo, scale: (1u64 << BITS) as f64 / extent, extent })
}

/// Runs `f(acc, index, point)` over `points` in at most 8 parallel tasks, each with its own
/// accumulator from `init` (plain memory, no atomics), and returns the accumulators.
fn per_task<T: Send>(
    points: &[[f64; 3]],
    init: impl Fn() -> T + Sync,
    f: impl Fn(&mut T, u32, &[f64; 3]) + Sync,
) -> Vec<T> {
    let tasks = rayon::current_num_threads().clamp(1, 8);
    let len = points.len().div_ceil(tasks).max(1);
    points
        .par_chunks(len)
        .enumerate()
        .map(|(c, ch)| {
            let mut acc = init();
            for (j, p) in ch.iter().enumerate() {
                f(&mut acc, (c * len + j) as u32, p);
            }
            acc
        })
        .collect()
}

/// Occupancy bitmaps of levels `0..=top` (bit `c` of level `L` set when cell `c` holds a
/// point; `top ≥ 2`). Each task marks its own bitmap; they are merged by OR, so the result does
/// not depend on the split.
fn occupancy_bitmaps(points: &[[f64; 3]], q: &Quantiser, top: usize) -> Vec<Vec<u64>> {
    let words = (1usize << (3 * top)) / 64;
    let mut parts = per_task(
        points,
        || vec![0u64; words],
        |bits, _, p| {
            let cell = q.cell(p, top);
            bits[(cell >> 6) as usize] |= 1 << (cell & 63);
        },
    );
    let mut fine = parts.pop().unwrap_or_else(|| vec![0u64; words]);
    fine.par_chunks_mut(1 << 12).enumerate().for_each(|(c, out)| {
        for other in &parts {
            for (o, w) in out.iter_mut().zip(&other[c << 12..]) {
                *o |= w;
            }
        }
    });
    drop(parts);
    let mut levels = vec![fine];
    for _ in 0..top {
        // Parent bit 8w + b is set when byte b of child word w is non-zero.
        let child = levels.last().map_or(&[][..], |v| &v[..]);
        let mut parent = vec![0u64; child.len().div_ceil(8)];
        for (w, &word) in child.iter().enumerate() {
            let mut bits = 0u64;
            for b in 0..8 {
                bits |= u64::from((word >> (8 * b)) & 0xFF != 0) << b;
            }
            parent[w / 8] |= bits << (8 * (w % 8));
        }
        levels.push(parent);
    }
    levels.reverse();
    levels
}

/// Step 3 on the bitmap path: one representative per set bit of `bitmap` (level `level`).
/// Each task keeps its own minima; they are merged by minimum, so the result does not depend
/// on the split.
fn reps_by_bitmap(points: &[[f64; 3]], q: &Quantiser, bitmap: &[u64], level: usize, seed: u64) -> Reps {
    let mut rank = Vec::with_capacity(bitmap.len());
    let mut acc = 0u32;
    for w in bitmap {
        rank.push(acc);
        acc += w.count_ones();
    }
    let compact = |cell: u64| {
        let (w, b) = ((cell >> 6) as usize, cell & 63);
        (rank[w] + (bitmap[w] & ((1u64 << b) - 1)).count_ones()) as usize
    };
    let (s_lo, s_hi) = (seed as u32, (seed >> 32) as u32);
    let mut parts = per_task(
        points,
        || vec![u64::MAX; acc as usize],
        |best, i, p| {
            let key = u64::from(hash_u32(i, s_lo, s_hi)) << 32 | u64::from(i);
            let b = &mut best[compact(q.cell(p, level))];
            *b = (*b).min(key);
        },
    );
    let mut best = parts.pop().unwrap_or_default();
    best.par_chunks_mut(1 << 12).enumerate().for_each(|(c, out)| {
        for other in &parts {
            for (o, w) in out.iter_mut().zip(&other[c << 12..]) {
                *o = (*o).min(*w);
            }
        }
    });
    Reps {
        reps: best.into_iter().map(|b| (b & 0xFFFF_FFFF) as usize).collect(),
        start: compact(q.cell(&points[0], level)),
        cell_size: q.extent / (1u64 << level) as f64,
    }
}

/// `(code, index)` of every point, sorted.
fn sorted_codes(points: &[[f64; 3]], q: &Quantiser) -> Vec<(u64, u32)> {
    let mut keys: Vec<(u64, u32)> = Vec::with_capacity(points.len());
    keys.par_extend(points.par_iter().enumerate().map(|(i, p)| (q.code(p), i as u32)));
    keys.par_sort_unstable();
    keys
}

/// Occupied cells of every level `0..=21` from sorted codes.
fn occupied_by_level(keys: &[(u64, u32)]) -> Vec<usize> {
    // new_cells[l]: run boundaries first appearing at level l.
    let mut new_cells = [0usize; BITS as usize + 1];
    for w in keys.windows(2) {
        let x = w[0].0 ^ w[1].0;
        if x != 0 {
            let bit = 63 - x.leading_zeros(); // 0..=62
            new_cells[(BITS - bit / 3) as usize] += 1;
        }
    }
    let mut acc = 1;
    new_cells
        .iter()
        .map(|c| {
            acc += c;
            acc
        })
        .collect()
}

/// Step 3 on the sorted path.
fn reps_by_sort(points: &[[f64; 3]], q: &Quantiser, keys: &[(u64, u32)], level: usize, seed: u64) -> Reps {
    let n = keys.len();
    let shift = 3 * (BITS as usize - level);
    let cell = |i: usize| keys[i].0 >> shift;
    let mut starts: Vec<usize> = vec![0];
    starts.extend((1..n).filter(|&i| cell(i) != cell(i - 1)));
    starts.push(n);
    let (s_lo, s_hi) = (seed as u32, (seed >> 32) as u32);
    let reps: Vec<usize> = starts
        .par_windows(2)
        .map(|w| {
            let mut best = (u32::MAX, u32::MAX);
            for &(_, i) in &keys[w[0]..w[1]] {
                let h = hash_u32(i, s_lo, s_hi);
                if (h, i) < best {
                    best = (h, i);
                }
            }
            best.1 as usize
        })
        .collect();
    let cell0 = q.cell(&points[0], level);
    let start = starts[..reps.len()].partition_point(|&s| (keys[s].0 >> shift) < cell0);
    Reps { reps, start, cell_size: q.extent / (1u64 << level) as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fps::{cover_radius, fps_exact, min_spacing};
    use bozkir_core::rng::Rng;

    #[test]
    fn spread_interleaves() {
        assert_eq!(spread(0b1), 0b1);
        assert_eq!(spread(0b11), 0b1001);
        assert_eq!(spread(0x1f_ffff), 0x1249_2492_4924_9249);
        for v in [0u64, 1, 5, 1000, 0x12_3456, 0x1f_ffff] {
            let s = spread(v);
            let back = (0..21).fold(0u64, |acc, b| acc | ((s >> (3 * b)) & 1) << b);
            assert_eq!(back, v);
        }
    }

    fn surface_cloud(n: usize, seed: u32) -> Vec<[f64; 3]> {
        // A wavy sheet with a dense blob: surface-like, uneven density.
        let mut r = Rng::new(seed);
        (0..n)
            .map(|i| {
                if i % 5 == 0 {
                    [r.range(3.0, 3.5), r.range(3.0, 3.5), 1.0 + r.range(0.0, 0.2)]
                } else {
                    let (x, y) = (r.range(0.0, 10.0), r.range(0.0, 6.0));
                    [x, y, (0.7 * x).sin() + 0.3 * (1.3 * y).cos()]
                }
            })
            .collect()
    }

    #[test]
    fn meets_the_documented_guarantee() {
        for (n, k, seed) in [(20_000usize, 300usize, 1u64), (30_000, 1000, 2), (12_000, 64, 3)] {
            let pts = surface_cloud(n, seed as u32);
            let a = fps_approx(&pts, k, seed).unwrap();
            assert_eq!(a.indices.len(), k);
            assert!(a.representatives >= MIN_OVERSAMPLE * k && a.representatives < n, "{a:?}");
            assert!(a.cover > 0.0 && a.cover <= a.cell_size * 3f64.sqrt() * (1.0 + 1e-8));
            let mut u = a.indices.clone();
            u.sort_unstable();
            u.dedup();
            assert_eq!(u.len(), k, "picks are distinct");
            let e = fps_exact(&pts, k, 0).unwrap();
            let (sa, se) = (min_spacing(&pts, &a.indices), min_spacing(&pts, &e));
            assert!(sa >= (se - 2.0 * a.cover) / 2.0, "n {n} k {k}: spacing {sa} vs exact {se}, cover {}", a.cover);
            let (ra, re) = (cover_radius(&pts, &a.indices), cover_radius(&pts, &e));
            assert!(ra <= 2.0 * re + 3.0 * a.cover, "n {n} k {k}: radius {ra} vs exact {re}, cover {}", a.cover);
            // In practice it is much closer than the bound: record it.
            assert!(sa >= 0.5 * se, "n {n} k {k}: spacing {sa} vs exact {se}");
        }
    }

    #[test]
    fn bitmap_and_sorted_paths_agree() {
        // Level counts 0..=9 and, at every level, the representatives and the start.
        for (pts, seed) in [(surface_cloud(40_000, 3), 1u64), (surface_cloud(3_000, 4), 0xABCD_0000_0001)] {
            let q = quantiser(&pts).unwrap();
            let bitmaps = occupancy_bitmaps(&pts, &q, 9);
            assert_eq!(occupancy_bitmaps(&pts, &q, 7)[..], bitmaps[..8]);
            let keys = sorted_codes(&pts, &q);
            let by_sort = occupied_by_level(&keys);
            for level in 0..=9 {
                let count: usize = bitmaps[level].iter().map(|w| w.count_ones() as usize).sum();
                assert_eq!(count, by_sort[level], "level {level}");
                let a = reps_by_bitmap(&pts, &q, &bitmaps[level], level, seed);
                let b = reps_by_sort(&pts, &q, &keys, level, seed);
                assert_eq!((a.reps, a.start, a.cell_size), (b.reps, b.start, b.cell_size), "level {level}");
            }
            assert_eq!(by_sort[0], 1);
            assert!(by_sort[BITS as usize] <= pts.len());
        }
    }

    #[test]
    fn large_cloud_takes_the_bitmap_path_and_meets_the_guarantee() {
        // k = 1500 is served by the level-7 bitmap, k = 20 000 needs the level-9 one (the sheet
        // and blob have about 10⁴ occupied level-7 cells, fewer than 2·20 000).
        let pts = surface_cloud(SORT_BELOW + 20_000, 12);
        let extent = quantiser(&pts).unwrap().extent;
        for (k, finer_than_7) in [(1500usize, false), (20_000, true)] {
            let a = fps_approx(&pts, k, 8).unwrap();
            let r = representatives(&pts, k, 8).unwrap();
            assert_eq!(a.representatives, r.reps.len());
            assert!(a.representatives >= MIN_OVERSAMPLE * k);
            assert_eq!(a.cell_size < extent / 128.0 * (1.0 - 1e-12), finer_than_7, "k {k}: cell {}", a.cell_size);
            let e = fps_exact(&pts, k, 0).unwrap();
            let (sa, se) = (min_spacing(&pts, &a.indices), min_spacing(&pts, &e));
            assert!(sa >= (se - 2.0 * a.cover) / 2.0 && sa >= 0.5 * se, "k {k}: spacing {sa} vs exact {se}");
        }
    }

    #[test]
    fn every_point_is_within_cover_of_a_representative() {
        for (pts, k) in [(surface_cloud(50_000, 7), 700usize), (surface_cloud(9_000, 8), 50)] {
            let r = representatives(&pts, k, 3).unwrap();
            let delta = cover_bound(r.cell_size);
            let rep_pts: Vec<[f64; 3]> = r.reps.iter().map(|&i| pts[i]).collect();
            let tree = bozkir_spatial::KdTree::<f64, 3>::try_new(&rep_pts).unwrap();
            let worst = pts.iter().map(|p| tree.nearest(*p, usize::MAX).unwrap().1).fold(0.0, f64::max);
            assert!(worst <= delta, "worst {worst} vs δ {delta}");
            assert!(worst > 0.3 * delta, "the bound is not vacuous: worst {worst} vs δ {delta}");
            assert!(r.reps.len() >= MIN_OVERSAMPLE * k);
            // The start is the representative of point 0's cell: within δ of point 0.
            assert!(crate::fps::dist2(&pts[0], &pts[r.reps[r.start]]).sqrt() <= delta);
        }
    }

    #[test]
    fn deterministic_across_threads_and_seed_dependent() {
        let pts = surface_cloud(80_000, 9);
        let run = |threads, seed| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| fps_approx(&pts, 500, seed).unwrap())
        };
        let (a, b) = (run(1, 5), run(2, 5));
        assert_eq!(a, b);
        assert_ne!(run(2, 6).indices, a.indices);
    }

    #[test]
    fn small_or_duplicated_clouds_take_the_exact_path() {
        let pts = surface_cloud(1000, 4);
        let a = fps_approx(&pts, 300, 1).unwrap();
        assert_eq!((a.cover, a.representatives), (0.0, 1000));
        assert_eq!(a.indices, fps_exact(&pts, 300, 0).unwrap());
        // 50 distinct positions repeated: fewer occupied cells than k at every level.
        let dup: Vec<[f64; 3]> = (0..5000).map(|i| [(i % 50) as f64, 0.0, 0.0]).collect();
        let a = fps_approx(&dup, 60, 1).unwrap();
        assert_eq!(a.indices, fps_exact(&dup, 60, 0).unwrap());
        assert!(fps_approx(&dup, 0, 1).unwrap_err().to_string().contains("k = 0"));
        let mut bad = dup.clone();
        bad[4999][0] = f64::NAN;
        assert!(fps_approx(&bad, 5, 1).unwrap_err().to_string().contains("point 4999 is not finite"));
    }
}
