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
//! Of the walk's order only "receiver before donor" and the donors' index order matter, so the
//! drainage trees (one per outlet) are walked in parallel, each breadth first from its outlet,
//! donors gathered from a per-cell neighbour mask in index order ([`erode`]); noise, receivers,
//! creep and the per-cell passes are parallel over rows. The output is the same, bit for bit, for
//! any thread count (a test holds the parallel walk to the sequential one).

use super::table::ProfileParams;
use crate::sculpt::dome::edge_taper as taper_grid;
use crate::sculpt::terrace::terrace_value;
use bozkir_core::memory::{prefetch_at, zeroed_f64, zeroed_u32, zeroed_u8};
use bozkir_core::{hash_u32, Grid, Observer, Progress};
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

/// Whether the AVX2 builds of the hot loops run (see [`bozkir_core::simd`]).
#[cfg(target_arch = "x86_64")]
use bozkir_core::simd::avx2 as simd;

#[cfg(test)]
/// One octave of the original's gradient noise, `f` lattice cells across, values about 0..1.
fn gradient_octave(h: usize, w: usize, f: f64, s: u32, stretch: f64) -> Vec<f64> {
    let xs = columns(w, f * stretch);
    let mut out = vec![0.0; h * w];
    #[cfg(target_arch = "x86_64")]
    let avx2 = simd();
    out.par_chunks_mut(w.max(1)).enumerate().for_each(|(j, row)| {
        let y = (j as f64 * f) / h as f64;
        let y0 = y.floor();
        let fy = y - y0;
        let uy = quintic(fy);
        let y0 = y0 as i64 as u32;
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU supports AVX2 (checked above).
            unsafe { octave_row_avx2(row, &xs, y0, fy, uy, s) };
            return;
        }
        octave_row(row, &xs, y0, fy, uy, s);
    });
    out
}

/// One row of [`gradient_octave`]: `xs` holds each column's (fraction, lattice x, fade).
#[inline(always)]
fn octave_row(row: &mut [f64], xs: &[(f64, u32, f64)], y0: u32, fy: f64, uy: f64, s: u32) {
    for (o, &(fx, x0, ux)) in row.iter_mut().zip(xs) {
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
}

/// [`octave_row`] compiled for AVX2 (the hashes and blends of several cells at once; the same
/// operations per cell, so the same bits).
#[cfg(all(test, target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
fn octave_row_avx2(row: &mut [f64], xs: &[(f64, u32, f64)], y0: u32, fy: f64, uy: f64, s: u32) {
    octave_row(row, xs, y0, fy, uy, s);
}

/// The original's fractal sum, one octave field at a time: the reference [`noise_field`] is
/// held to, bit for bit.
#[cfg(test)]
fn fractal(h: usize, w: usize, octaves: u32, freq: f64, seed: u64, stretch: f64, ridged: bool) -> Vec<f64> {
    let mut out = vec![0.0; h * w];
    let (mut amp, mut f, mut norm) = (1.0f64, freq, 0.0f64);
    for k in 0..octaves.max(1) as u64 {
        let s = octave_seed_of(seed, k, ridged);
        let v = gradient_octave(h, w, f, s, stretch);
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

/// One octave of [`noise_field`]: its columns' (fraction, lattice x, fade), frequency, weight
/// and hash seed, as the original's octave loop sets them.
struct Octave {
    xs: Vec<(f64, u32, f64)>,
    f: f64,
    amp: f64,
    s: u32,
}

/// The hash seed of octave `k` (`bozkir_core::noise::{octave_seed, ridged_octave_seed}` of the
/// seed's low 32 bits: the original's `seed·1013 (+ 7919) + k` in 64 bits, truncated).
fn octave_seed_of(seed: u64, k: u64, ridged: bool) -> u32 {
    let (seed, k) = (seed as u32, k as u32);
    if ridged {
        bozkir_core::noise::ridged_octave_seed(seed, k)
    } else {
        bozkir_core::noise::octave_seed(seed, k)
    }
}

/// Each of `w` columns' (fraction, lattice x, fade) at `fs` lattice cells across, as the
/// original computes `x = i·fs/w`.
fn columns(w: usize, fs: f64) -> Vec<(f64, u32, f64)> {
    (0..w)
        .map(|i| {
            let x = (i as f64 * fs) / w as f64;
            let x0 = x.floor();
            let fx = x - x0;
            (fx, x0 as i64 as u32, quintic(fx))
        })
        .collect()
}

/// The octaves of the original's fractal sum on `w` columns, and the sum of their weights.
fn octaves(w: usize, octaves: u32, freq: f64, seed: u64, stretch: f64, ridged: bool) -> (Vec<Octave>, f64) {
    let (mut amp, mut f, mut norm) = (1.0f64, freq, 0.0f64);
    let mut out = Vec::new();
    for k in 0..octaves.max(1) as u64 {
        let s = octave_seed_of(seed, k, ridged);
        out.push(Octave { xs: columns(w, f * stretch), f, amp, s });
        norm += amp;
        amp *= 0.5;
        f *= 2.0;
    }
    (out, norm.max(1e-9))
}

/// Row `j` of `h` of the sum of `octs` into `acc` (which starts at zero), each octave's value
/// computed into `tmp` first: `acc += amp·v`, or `acc += amp·(1 − |2v − 1|)²` when `ridged`.
#[inline(always)]
fn octaves_row(acc: &mut [f64], tmp: &mut [f64], j: usize, h: usize, octs: &[Octave], ridged: bool) {
    acc.fill(0.0);
    for o in octs {
        let y = (j as f64 * o.f) / h as f64;
        let y0 = y.floor();
        let fy = y - y0;
        octave_row(tmp, &o.xs, y0 as i64 as u32, fy, quintic(fy), o.s);
        if ridged {
            for (a, &v) in acc.iter_mut().zip(tmp.iter()) {
                let n = 1.0 - (2.0 * v - 1.0).abs();
                *a += o.amp * (n * n);
            }
        } else {
            for (a, &v) in acc.iter_mut().zip(tmp.iter()) {
                *a += o.amp * v;
            }
        }
    }
}

/// What [`noise_field`]'s rows share: the octaves of both sums, their weights' totals, and the
/// ridge blend.
struct Noise {
    plain: (Vec<Octave>, f64),
    ridged: Option<(Vec<Octave>, f64)>,
    ridge: f64,
}

impl Noise {
    /// Row `j` of `h` into `row`; `r` and `tmp` are scratch rows.
    #[inline(always)]
    fn row(&self, row: &mut [f64], r: &mut [f64], tmp: &mut [f64], j: usize, h: usize) {
        octaves_row(row, tmp, j, h, &self.plain.0, false);
        let d = self.plain.1;
        match &self.ridged {
            None => row.iter_mut().for_each(|z| *z /= d),
            Some((octs, dr)) => {
                octaves_row(r, tmp, j, h, octs, true);
                for (z, &r) in row.iter_mut().zip(r.iter()) {
                    *z = (*z / d) * (1.0 - self.ridge) + (r / dr) * self.ridge;
                }
            }
        }
    }

    /// [`Noise::row`] compiled for AVX2 (the same operations per cell, so the same bits).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn row_avx2(&self, row: &mut [f64], r: &mut [f64], tmp: &mut [f64], j: usize, h: usize) {
        self.row(row, r, tmp, j, h)
    }
}

/// The original's fractal sum of `octaves` gradient-noise octaves on an `h × w` field, and, when
/// `ridge > 0`, its blend with the ridged sum (`z·(1 − ridge) + r·ridge`), before any
/// normalisation: the bits of summing one octave field after another ([`fractal`]), computed a
/// row at a time with every octave of both sums while the row is in cache (one output buffer,
/// no field per octave).
fn noise_field(h: usize, w: usize, p: &ProfileParams, seed: u64) -> Vec<f64> {
    let noise = Noise {
        plain: octaves(w, p.octaves, p.freq, seed, p.stretch, false),
        ridged: (p.ridge > 0.0).then(|| octaves(w, p.octaves, p.freq, seed, p.stretch, true)),
        ridge: p.ridge,
    };
    let mut out = zeroed_f64(h * w);
    #[cfg(target_arch = "x86_64")]
    let avx2 = simd();
    out.par_chunks_mut(w.max(1)).enumerate().for_each_init(
        || (vec![0.0; w], vec![0.0; w]),
        |(r, tmp), (j, row)| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU supports AVX2 (checked above).
                unsafe { noise.row_avx2(row, r, tmp, j, h) };
                return;
            }
            noise.row(row, r, tmp, j, h);
        },
    );
    out
}

/// Unit-normalise in place (the original's `_unit`: a flat field becomes zeros).
fn unit(a: &mut [f64]) {
    crate::sculpt::normalise::unit_normalise_in_place(a)
}

/// The original's edge taper of an `n0 × n1` (rows × columns) field, row-major.
fn edge_taper(n0: usize, n1: usize, frac: f64) -> Vec<f64> {
    taper_grid(n1, n0, frac).into_vec()
}

/// The noise a profile starts from, `n × n`, 0..1, before erosion (the original's `base_surface`).
pub fn base_surface(n: usize, seed: u64, p: &ProfileParams) -> Vec<f64> {
    let mut z = noise_field(n, n, p, seed);
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

/// `(value, index)` as one integer ordered as `(total_cmp, index)`: the f64's bits made monotone (sign
/// flipped for positives, all bits for negatives, the order of `total_cmp`), then the index.
#[inline(always)]
fn radix_key(v: f64, k: u32) -> u128 {
    let b = v.to_bits();
    let m = if b >> 63 == 1 { !b } else { b | 1 << 63 };
    (u128::from(m) << 32) | u128::from(k)
}

/// The height a [`radix_key`] was made from (the inverse of its monotone map).
#[inline(always)]
fn key_value(k: u128) -> f64 {
    let m = (k >> 32) as u64;
    f64::from_bits(if m >> 63 == 1 { m & !(1 << 63) } else { !m })
}

/// Ask the cache for the three rows of `g` and `done` around cell `k` (the next cell the flood
/// pops), so their loads overlap the current cell's work. A hint only: no effect on values.
#[inline(always)]
fn prefetch_around(g: &[f64], done: &[bool], k: usize, n1: usize) {
    for r in [k.wrapping_sub(n1), k, k + n1] {
        if r < g.len() {
            prefetch_at(g.as_ptr(), r);
            prefetch_at(done.as_ptr(), r);
        }
    }
}

/// A monotone priority queue for the fill: a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990)
/// over the value part of [`radix_key`] — each key sits in the bucket of the highest bit where its
/// value differs from the last value popped, so a pop touches one bucket. It pops values in
/// increasing order as long as no value below the last popped one is pushed; the fill only pushes
/// higher values (a raised cell goes to `v + ε`, at worst `v` where `ε` vanishes against `v`),
/// and any lower one would wait in a small binary heap served first. Keys of equal value leave in
/// any order: the fill's result does not depend on it (each cell's value is its lowest
/// neighbour's plus the rule, whichever of equal neighbours reaches it first), and buckets keyed
/// on the 64 value bits alone redistribute far less than on value and index.
struct RadixQueue {
    buckets: Vec<Vec<u128>>,
    last: u64,
    len: usize,
    low: BinaryHeap<Reverse<u128>>,
}

impl RadixQueue {
    fn new() -> Self {
        Self { buckets: (0..65).map(|_| Vec::new()).collect(), last: 0, len: 0, low: BinaryHeap::new() }
    }

    #[inline(always)]
    fn value(k: u128) -> u64 {
        (k >> 32) as u64
    }

    #[inline(always)]
    fn bucket(&self, k: u128) -> usize {
        64 - (Self::value(k) ^ self.last).leading_zeros() as usize
    }

    fn push(&mut self, k: u128) {
        if Self::value(k) < self.last {
            self.low.push(Reverse(k));
            return;
        }
        let b = self.bucket(k);
        self.buckets[b].push(k);
        self.len += 1;
    }

    /// The key the next [`pop`](Self::pop) returns, where it is known without work (the lowest
    /// bucket holds it and no key below the last popped one waits).
    #[inline(always)]
    fn peek(&self) -> Option<u128> {
        if self.low.is_empty() {
            self.buckets[0].last().copied()
        } else {
            None
        }
    }

    fn pop(&mut self) -> Option<u128> {
        if let Some(Reverse(k)) = self.low.pop() {
            return Some(k);
        }
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let b = (1..65).find(|&b| !self.buckets[b].is_empty()).expect("len > 0");
            let items = std::mem::take(&mut self.buckets[b]);
            self.last = items.iter().map(|&k| Self::value(k)).min().expect("non-empty");
            for &k in &items {
                let nb = self.bucket(k);
                self.buckets[nb].push(k);
            }
            // Keep the bucket's allocation for later.
            let mut items = items;
            items.clear();
            if self.buckets[b].is_empty() {
                self.buckets[b] = items;
            }
        }
        self.len -= 1;
        self.buckets[0].pop()
    }
}

/// A min-queue of [`radix_key`]s for the fill (the tests' reference flood runs on either).
#[cfg(test)]
trait FillQueue {
    fn push(&mut self, k: u128);
    fn pop(&mut self) -> Option<u128>;
}

#[cfg(test)]
impl FillQueue for RadixQueue {
    fn push(&mut self, k: u128) {
        RadixQueue::push(self, k)
    }
    fn pop(&mut self) -> Option<u128> {
        RadixQueue::pop(self)
    }
}

/// The fill's step: `1e-4 · range · 256 / max(n0, n1)`, as the original.
fn fill_step(g: &[f64], n0: usize, n1: usize) -> f64 {
    let (lo, hi) = g.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    1e-4 * (hi - lo).max(1e-9) * 256.0 / n0.max(n1) as f64
}

/// The original's Priority-Flood with a fixed step on a grid: a cell reached from one at `v` and
/// not above it becomes `v + step`, the others keep their height, the border keeps its height;
/// `step = 1e-4 · range · 256 / max(width, height)` ([`fixed_step`]). This is the fill the
/// profiles run before and after their erosion. (The general-purpose fills, robust at any
/// elevation, are in [`crate::hydrology`].)
///
/// Each cell ends at its lowest neighbour's value `m` plus the rule (its height where above `m`,
/// `m + step` elsewhere), a rule that never decreases as `m` grows and puts each cell strictly
/// above that neighbour, so the result is the one solution of that equation whatever order the
/// cells are reached in (a GPU reaches it by relaxation; `Kernels::fill_fixed_step`).
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::profiles::fill_fixed_step;
/// // A pit in a slope: the pit rises one step above its lowest neighbour.
/// let h = Grid::from_vec(3, 3, vec![1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.5]);
/// let f = fill_fixed_step(&h);
/// assert!(*f.get(1, 1) > 0.5 && *f.get(1, 1) < 0.51);
/// assert_eq!(*f.get(2, 2), 0.5);
/// ```
pub fn fill_fixed_step(h: &Grid<f64>) -> Grid<f64> {
    let mut g = h.data().to_vec();
    flood_fixed_step(&mut g, h.height(), h.width());
    Grid::from_vec(h.width(), h.height(), g).with_cell_size(h.dx, h.dy)
}

/// The step [`fill_fixed_step`] uses on `h`.
pub fn fixed_step(h: &Grid<f64>) -> f64 {
    fill_step(h.data(), h.height(), h.width())
}

/// [`fill_fixed_step`] of a `big × big` field offered to `kernels` first (the same bits there).
fn fill_with(
    g: Vec<f64>,
    big: usize,
    kernels: &dyn crate::kernels::Kernels,
) -> Result<Vec<f64>, crate::kernels::KernelError> {
    let grid = Grid::from_vec(big, big, g);
    match kernels.fill_fixed_step(&grid, fixed_step(&grid))? {
        Some(f) => Ok(f.into_vec()),
        None => {
            let mut g = grid.into_vec();
            flood_fixed_step(&mut g, big, big);
            Ok(g)
        }
    }
}

/// [`fill_fixed_step`] in place on a row-major `n0 × n1` field (rows, columns).
///
/// A cell the flood reaches from a lower one keeps its height, and so does every cell strictly
/// above a cell that keeps its height (its lowest neighbour is lower still): such cells are found
/// by a plain search up the slopes — from the border first, then from each cell a pop leaves at
/// its height — and enter the queue only where a neighbour not yet reached is not above them.
/// Only depressions pass through the queue cell by cell. Every cell's value is still its lowest
/// neighbour's plus the rule (the queue pops in increasing order), so the result is the full
/// flood's bit for bit.
fn flood_fixed_step(g: &mut [f64], n0: usize, n1: usize) {
    let eps = fill_step(g, n0, n1);
    let mut done = vec![false; g.len()];
    let mut fifo: Vec<u32> = Vec::with_capacity(2 * (n0 + n1));
    for r in 0..n0 {
        for c in 0..n1 {
            if r == 0 || c == 0 || r == n0 - 1 || c == n1 - 1 {
                let k = r * n1 + c;
                fifo.push(k as u32);
                done[k] = true;
            }
        }
    }
    let mut queue = RadixQueue::new();
    climb(g, n0, n1, &mut done, &mut fifo, &mut queue);
    while let Some(key) = queue.pop() {
        let k = key as u32 as usize;
        // The value from the key (the cell's height, which no longer changes), not from `g`:
        // the popped cells are scattered and that load missed the cache.
        let v = key_value(key);
        if let Some(next) = queue.peek() {
            prefetch_around(g, &done, next as u32 as usize, n1);
        }
        let (nb, len) = neighbours(k, n0, n1);
        for &q in &nb[..len] {
            let q = q as usize;
            if done[q] {
                continue;
            }
            done[q] = true;
            if g[q] <= v {
                g[q] = v + eps;
                queue.push(radix_key(g[q], q as u32));
            } else {
                fifo.push(q as u32);
            }
        }
        if !fifo.is_empty() {
            climb(g, n0, n1, &mut done, &mut fifo, &mut queue);
        }
    }
}

/// The plain search of [`flood_fixed_step`]: from the cells in `fifo` (each `done` at its
/// height), every neighbour not yet reached and strictly above is `done` at its height and
/// searched from in turn; a cell with a neighbour not reached and not above it is queued.
/// Leaves `fifo` empty.
fn climb(g: &[f64], n0: usize, n1: usize, done: &mut [bool], fifo: &mut Vec<u32>, queue: &mut RadixQueue) {
    let mut head = 0;
    while head < fifo.len() {
        let k = fifo[head] as usize;
        head += 1;
        if let Some(&next) = fifo.get(head + 1) {
            prefetch_around(g, done, next as usize, n1);
        }
        let v = g[k];
        let mut seed = false;
        let (nb, len) = neighbours(k, n0, n1);
        for &q in &nb[..len] {
            let q = q as usize;
            if done[q] {
                continue;
            }
            if g[q] > v {
                done[q] = true;
                fifo.push(q as u32);
            } else {
                seed = true;
            }
        }
        if seed {
            queue.push(radix_key(v, k as u32));
        }
    }
    fifo.clear();
}

/// The 8-neighbours of cell `k` of a row-major `n0 × n1` grid that lie on the grid, and how many.
#[inline(always)]
fn neighbours(k: usize, n0: usize, n1: usize) -> ([u32; 8], usize) {
    let (r, c) = (k / n1, k % n1);
    let mut out = [0u32; 8];
    if r > 0 && c > 0 && r + 1 < n0 && c + 1 < n1 {
        let (k, w) = (k as u32, n1 as u32);
        out = [k - w - 1, k - w, k - w + 1, k - 1, k + 1, k + w - 1, k + w, k + w + 1];
        return (out, 8);
    }
    let mut len = 0;
    for (dr, dc) in NB {
        let (rr, cc) = (r as isize + dr, c as isize + dc);
        if rr >= 0 && cc >= 0 && rr < n0 as isize && cc < n1 as isize {
            out[len] = (rr as usize * n1 + cc as usize) as u32;
            len += 1;
        }
    }
    (out, len)
}

/// The Priority-Flood proper: pops the lowest queued cell and gives each neighbour not yet
/// `done` its height, or the popped value plus `eps` where it is not above it.
#[cfg(test)]
fn flood(g: &mut [f64], n0: usize, n1: usize, eps: f64, done: &mut [bool], heap: &mut impl FillQueue) {
    while let Some(key) = heap.pop() {
        let k = key as u32;
        let v = g[k as usize];
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
                heap.push(radix_key(g[q], q as u32));
            }
        }
    }
}

/// Neighbour offsets (row, column) in increasing index order: a receiver gathers its donors in
/// this order, the order the original's `np.add.at` adds them in.
const NB: [(isize, isize); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// A cell's receiver as a direction code: the index in [`NB`] of the neighbour it drains to, or
/// [`OUTLET`] for a cell that is its own receiver; [`BORDER`] is or-ed in on the grid's border.
const OUTLET: u8 = 8;
const BORDER: u8 = 0x80;
const DIR: u8 = 0x0F;
/// The length of the step in each direction of [`NB`] (and 1 for an outlet), in cells.
const STEP: [f64; 9] = [
    std::f64::consts::SQRT_2,
    1.0,
    std::f64::consts::SQRT_2,
    1.0,
    1.0,
    std::f64::consts::SQRT_2,
    1.0,
    std::f64::consts::SQRT_2,
    1.0,
];

/// `x` over the step's length in direction `d`: `x / √2` on a diagonal, `x / 1.0` (which is `x`
/// exactly) along a row or column. Always a division, so the walks do not branch on the
/// direction, which the data decide (the branch it replaced cost more than the division: alpine
/// 512² on one thread 2.90–3.03 s → 2.72–2.81 s, docs/benchmarks.md).
#[inline(always)]
fn per_step(x: f64, d: usize) -> f64 {
    x / STEP[d]
}

/// Steepest-descent receivers as direction codes, the original's order and tie-break:
/// neighbours tried row offset −1..1 outer, column offset −1..1 inner (the order of [`NB`]), the
/// drop divided by the step's length (1 or √2, as a division, as the original), only a strictly
/// larger drop replacing; border cells and pits are their own receiver ([`OUTLET`]), border
/// cells marked with [`BORDER`].
fn steepest_receivers(h: &[f64], n0: usize, n1: usize, dir: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    let avx2 = simd();
    dir.par_chunks_mut(n1).enumerate().for_each(|(r, row)| {
        if r == 0 || r == n0 - 1 {
            row.fill(OUTLET | BORDER);
            return;
        }
        row[0] = OUTLET | BORDER;
        row[n1 - 1] = OUTLET | BORDER;
        let base = r * n1;
        let (up, mid, dn) = (&h[base - n1..base], &h[base..base + n1], &h[base + n1..base + 2 * n1]);
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU supports AVX2 (checked above).
            unsafe { receivers_row_avx2(up, mid, dn, row) };
            return;
        }
        receivers_row(up, mid, dn, row);
    });
}

/// [`receivers_row`] compiled for AVX2: the same operations on four cells at a time (the same
/// bits: each quotient and comparison is the scalar one).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn receivers_row_avx2(up: &[f64], mid: &[f64], dn: &[f64], row: &mut [u8]) {
    receivers_row(up, mid, dn, row);
}

/// The receivers of an interior row's inner cells, from the rows above, at and below it.
#[inline(always)]
fn receivers_row(up: &[f64], mid: &[f64], dn: &[f64], row: &mut [u8]) {
    let n1 = row.len();
    for c in 1..n1 - 1 {
        let hc = mid[c];
        let drops = [
            (hc - up[c - 1]) / STEP[0],
            (hc - up[c]) / STEP[1],
            (hc - up[c + 1]) / STEP[2],
            (hc - mid[c - 1]) / STEP[3],
            (hc - mid[c + 1]) / STEP[4],
            (hc - dn[c - 1]) / STEP[5],
            (hc - dn[c]) / STEP[6],
            (hc - dn[c + 1]) / STEP[7],
        ];
        let mut best = 0.0;
        let mut d = OUTLET;
        for (k, &s) in drops.iter().enumerate() {
            if s > best {
                best = s;
                d = k as u8;
            }
        }
        row[c] = d;
    }
}

/// Per cell, a bit per neighbour in [`NB`] order that drains into it (its donors). Donors are
/// always among the 8 neighbours, so this replaces a donor list and keeps its order. The
/// neighbour in direction `b` drains here when its own code is the opposite direction, `7 − b`.
fn donor_masks(dir: &[u8], n0: usize, n1: usize, masks: &mut [u8]) {
    masks.par_chunks_mut(n1).enumerate().for_each(|(r, row)| {
        let inner = r > 0 && r < n0 - 1;
        if inner {
            let base = r * n1;
            let (up, mid, dn) = (&dir[base - n1..base], &dir[base..base + n1], &dir[base + n1..base + 2 * n1]);
            for c in 1..n1 - 1 {
                row[c] = u8::from(up[c - 1] & DIR == 7)
                    | u8::from(up[c] & DIR == 6) << 1
                    | u8::from(up[c + 1] & DIR == 5) << 2
                    | u8::from(mid[c - 1] & DIR == 4) << 3
                    | u8::from(mid[c + 1] & DIR == 3) << 4
                    | u8::from(dn[c - 1] & DIR == 2) << 5
                    | u8::from(dn[c] & DIR == 1) << 6
                    | u8::from(dn[c + 1] & DIR == 0) << 7;
            }
        }
        // Border cells, bounds checked: the whole first and last rows, the ends of the others.
        let mut edge = |c: usize| {
            let mut bits = 0u8;
            for (b, &(dr, dc)) in NB.iter().enumerate() {
                let (rr, cc) = (r as isize + dr, c as isize + dc);
                if rr >= 0 && cc >= 0 && rr < n0 as isize && cc < n1 as isize {
                    bits |= u8::from(dir[rr as usize * n1 + cc as usize] & DIR == 7 - b as u8) << b;
                }
            }
            row[c] = bits;
        };
        if inner {
            edge(0);
            edge(n1 - 1);
        } else {
            (0..n1).for_each(edge);
        }
    });
}

/// The donors of `c` (bits of `mask`), in increasing index.
#[inline(always)]
fn donors_of(c: usize, mut mask: u8, off: &[isize; 8]) -> impl Iterator<Item = usize> + '_ {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let b = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some((c as isize + off[b]) as usize)
    })
}

/// The outlets (cells that are their own receiver: the border and pits), dealt to about eight
/// groups a thread in index ranges. Each group's trees are grown by [`grow_trees`] in the task
/// that walks them; every tree lies wholly in one group, so groups can be walked in parallel.
fn outlet_groups(dir: &[u8], outs: &mut Vec<Vec<u32>>) {
    // Scanned in blocks (a plain loop each), then joined in order.
    const BLOCK: usize = 1 << 16;
    let found: Vec<Vec<u32>> = dir
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(b, block)| {
            let base = (b * BLOCK) as u32;
            (0..block.len() as u32).filter(|&i| block[i as usize] & DIR == OUTLET).map(|i| base + i).collect()
        })
        .collect();
    let outlets = found.concat();
    let want = (8 * rayon::current_num_threads()).max(1);
    let per = outlets.len().div_ceil(want).max(1);
    outs.clear();
    outs.extend(outlets.chunks(per).map(<[u32]>::to_vec));
}

/// The drainage trees of `outlets` into `order`: each outlet and all that drains to it, breadth
/// first from the outlet — so each cell comes after its receiver, and reversed, after its donors.
fn grow_trees(outlets: &[u32], masks: &[u8], off: &[isize; 8], order: &mut Vec<u32>) {
    // Breadth first, the order itself the queue: each cell is appended after its receiver.
    order.clear();
    for &o in outlets {
        let mut k = order.len();
        order.push(o);
        while k < order.len() {
            if let Some(&a) = order.get(k + AHEAD) {
                prefetch_at(masks.as_ptr(), a as usize);
            }
            let c = order[k] as usize;
            let mut m = masks[c];
            while m != 0 {
                order.push((c as isize + off[m.trailing_zeros() as usize]) as u32);
                m &= m - 1;
            }
            k += 1;
        }
    }
}

/// Shared access to a slice from the tasks of [`erode`], each of which reads and writes only the
/// cells of its own drainage trees (disjoint by construction: every cell drains to exactly one
/// outlet, and every outlet is in exactly one group).
#[derive(Clone, Copy)]
struct Cells<T> {
    ptr: *mut T,
    len: usize,
}
// SAFETY: see the type's docs; the tasks touch disjoint cells, so no element is accessed by two
// threads at once.
unsafe impl<T: Send> Send for Cells<T> {}
unsafe impl<T: Send> Sync for Cells<T> {}
impl<T: Copy> Cells<T> {
    fn new(s: &mut [T]) -> Self {
        Self { ptr: s.as_mut_ptr(), len: s.len() }
    }
    /// # Safety
    /// `i` is a cell of the calling task's trees.
    #[inline(always)]
    unsafe fn get(self, i: usize) -> T {
        debug_assert!(i < self.len);
        *self.ptr.add(i)
    }
    /// # Safety
    /// `i` is a cell of the calling task's trees.
    #[inline(always)]
    unsafe fn set(self, i: usize, v: T) {
        debug_assert!(i < self.len);
        *self.ptr.add(i) = v
    }
}

/// Stream power as the original runs it. `z` is `n0 × n1` row-major; returns (height, sediment).
///
/// The original walks cells in levels of equal distance to the outlet. Only two things depend
/// on that order: each cell must see its receiver's new height (any receivers-first order gives
/// the same incision), and a receiver's sediment flux must add its donors' remainders in
/// increasing donor index. So the drainage trees are walked breadth first from their outlets
/// (receivers first) and in reverse (donors first), each receiver gathering its donors'
/// remainders in increasing index: the same arithmetic in the same order, bit for bit, whatever
/// the order the trees are taken in — so the trees are shared among threads (one task per group
/// of outlets, which runs the area count, uplift and incision, and the sediment for its trees
/// back to back while they are in cache), and the output is the same for any thread count.
/// The sediment walk reads only heights after incision, so it runs before creep (the original
/// runs it after; creep changes no input of it).
#[cfg(test)]
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
    // The walks' buffers on huge pages (fewer TLB misses on their random access; same values).
    let mut flat = zeroed_f64(n0 * n1);
    flat.copy_from_slice(z);
    flood_fixed_step(&mut flat, n0, n1);
    let umap = uplift_taper(n0, n1, uplift_map);
    let (mut h, sed) = erode_walk(flat, n0, n1, iterations, incision, diffusion, uplift, &umap, progress);
    flood_fixed_step(&mut h, n0, n1);
    (h, sed)
}

/// The walks of [`erode`] on heights already filled ([`fill_fixed_step`]), without the final fill;
/// `umap` is the uplift map already tapered ([`uplift_taper`]).
#[allow(clippy::too_many_arguments)]
fn erode_walk(
    mut flat: Vec<f64>,
    n0: usize,
    n1: usize,
    iterations: u32,
    incision: f64,
    diffusion: f64,
    uplift: f64,
    umap: &[f64],
    progress: &dyn Progress,
) -> (Vec<f64>, Vec<f64>) {
    let n = n0 * n1;
    let dt = 1.0f64;
    let off: [isize; 8] = NB.map(|(dr, dc)| dr * n1 as isize + dc);
    let mut sediment = zeroed_f64(n);
    let mut dir = zeroed_u8(n);
    let mut count = zeroed_u32(n);
    let mut masks = zeroed_u8(n);
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut outs: Vec<Vec<u32>> = Vec::new();
    // Each cell's height before incision, overwritten by its sediment remainder once the
    // sediment walk has passed it; then the creep's Laplacian.
    let mut before = zeroed_f64(n);
    let iterations = iterations.max(1);
    let nf = n as f64;
    let (u, kdt) = (uplift * dt, incision * dt);
    // K dt √(A/n) for the small drainage areas most cells have, each computed as the walk would.
    let root: Vec<f64> = (0..4096.min(n + 1)).map(|a| kdt * (a as f64 / nf).sqrt()).collect();
    #[cfg(target_arch = "x86_64")]
    let avx2 = simd();
    for it in 0..iterations {
        if progress.cancelled() {
            break;
        }
        progress.report("erode", it as u64, iterations as u64);
        steepest_receivers(&flat, n0, n1, &mut dir);
        donor_masks(&dir, n0, n1, &mut masks);
        outlet_groups(&dir, &mut outs);
        groups.resize_with(outs.len(), Vec::new);
        let (cnt, h, pre, sed) =
            (Cells::new(&mut count), Cells::new(&mut flat), Cells::new(&mut before), Cells::new(&mut sediment));
        let walk = Walk { masks: &masks, dir: &dir, off, umap, root: &root, u, kdt, nf, cnt, h, pre, sed };
        groups.par_iter_mut().zip(outs.par_iter()).for_each(|(order, outlets)| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU supports these features (checked before the loop).
                unsafe { walk.group_avx2(outlets, order) };
                return;
            }
            walk.group(outlets, order);
        });
        // Creep: explicit, interior only, fixed summation order: h + ddt·(((N + S) + W) + E − 4h),
        // into `before` (free now), which then becomes the heights.
        if diffusion != 0.0 {
            let ddt = diffusion * dt;
            before.par_chunks_mut(n1).enumerate().for_each(|(r, row)| {
                let k0 = r * n1;
                if r == 0 || r == n0 - 1 {
                    // h + ddt·0, as the original adds a zero Laplacian on the border.
                    row.iter_mut().zip(&flat[k0..k0 + n1]).for_each(|(v, &h)| *v = h + ddt * 0.0);
                    return;
                }
                row[0] = flat[k0] + ddt * 0.0;
                row[n1 - 1] = flat[k0 + n1 - 1] + ddt * 0.0;
                let (up, mid, dn) = (&flat[k0 - n1..k0], &flat[k0..k0 + n1], &flat[k0 + n1..k0 + 2 * n1]);
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: the CPU supports AVX2 (checked before the loop).
                    unsafe { creep_row_avx2(up, mid, dn, ddt, row) };
                    return;
                }
                creep_row(up, mid, dn, ddt, row);
            });
            std::mem::swap(&mut flat, &mut before);
        }
    }
    progress.report("erode", iterations as u64, iterations as u64);
    (flat, sediment)
}

/// How many cells of the walk order ahead the walks ask the cache for the fields of the cell
/// they will reach (the order jumps about the grid; the hints took alpine 1024²'s erosion on 2
/// cores from 5.6–5.8 s to 3.9–4.2 s, so the hardware's own prefetching evidently missed it). 128 was the best of 8, 16, 32, 64 and 128 for alpine 1024² on 2 cores
/// (docs/benchmarks.md).
const AHEAD: usize = 128;

/// What the walks of one iteration of [`erode_walk`] share: the drainage graph, the fields
/// (each task reads and writes only its own trees' cells), and the incision's constants.
struct Walk<'a> {
    masks: &'a [u8],
    dir: &'a [u8],
    off: [isize; 8],
    umap: &'a [f64],
    root: &'a [f64],
    u: f64,
    kdt: f64,
    nf: f64,
    cnt: Cells<u32>,
    h: Cells<f64>,
    pre: Cells<f64>,
    sed: Cells<f64>,
}

impl Walk<'_> {
    /// [`Walk::group`] compiled for AVX2 and its companions (bit scans in one instruction);
    /// the same operations in the same order, so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn group_avx2(&self, outlets: &[u32], order: &mut Vec<u32>) {
        self.group(outlets, order);
    }

    /// Grow the trees of `outlets` into `order`, then walk them: area, uplift and incision,
    /// sediment.
    #[inline(always)]
    fn group(&self, outlets: &[u32], order: &mut Vec<u32>) {
        grow_trees(outlets, self.masks, &self.off, order);
        // SAFETY (all three walks): a cell, its receiver and its donors are cells of this
        // task's trees.
        // Drainage area in cells, exactly as integers, donors first.
        for (k, &c) in order.iter().enumerate().rev() {
            if let Some(&a) = k.checked_sub(AHEAD).map(|j| &order[j]) {
                prefetch_at(self.cnt.ptr, a as usize);
            }
            let c = c as usize;
            unsafe { self.cnt.set(c, donors_of(c, self.masks[c], &self.off).fold(1u32, |a, d| a + self.cnt.get(d))) };
        }
        // Uplift (interior cells), the height before incision, and implicit incision
        // receivers first: h ← (h + F h_r)/(1 + F), F = K dt √A / dist.
        for (k, &c) in order.iter().enumerate() {
            if let Some(&a) = order.get(k + AHEAD) {
                prefetch_at(self.h.ptr, a as usize);
                prefetch_at(self.umap.as_ptr(), a as usize);
                prefetch_at(self.cnt.ptr, a as usize);
                prefetch_at(self.dir.as_ptr(), a as usize);
            }
            let i = c as usize;
            let d = self.dir[i];
            unsafe {
                if self.u != 0.0 && d & BORDER == 0 {
                    self.h.set(i, self.h.get(i) + self.u * self.umap[i]);
                }
                self.pre.set(i, self.h.get(i));
                let d = (d & DIR) as usize;
                if d != OUTLET as usize {
                    let r = (i as isize + self.off[d]) as usize;
                    let a = self.cnt.get(i) as usize;
                    let ka = if a < self.root.len() { self.root[a] } else { self.kdt * (a as f64 / self.nf).sqrt() };
                    let f = per_step(ka, d);
                    self.h.set(i, (self.h.get(i) + f * self.h.get(r)) / (1.0 + f));
                }
            }
        }
        // Sediment proxy: the eroded depth passed downstream, settling where the ground
        // flattens (the fraction 0.5·s0/(s0 + slope), s0 = 0.02, slope after incision).
        // Donors first; `pre` then holds each donor's remainder.
        for (k, &c) in order.iter().enumerate().rev() {
            if let Some(&a) = k.checked_sub(AHEAD).map(|j| &order[j]) {
                prefetch_at(self.sed.ptr, a as usize);
                prefetch_at(self.pre.ptr, a as usize);
                prefetch_at(self.h.ptr, a as usize);
                prefetch_at(self.masks.as_ptr(), a as usize);
            }
            let i = c as usize;
            let d = (self.dir[i] & DIR) as usize;
            unsafe {
                let eroded = (self.pre.get(i) - self.h.get(i)).max(0.0);
                let q = donors_of(i, self.masks[i], &self.off).fold(eroded, |q, d| q + self.pre.get(d));
                if d != OUTLET as usize {
                    let r = (i as isize + self.off[d]) as usize;
                    let sl = per_step((self.h.get(i) - self.h.get(r)).max(0.0), d);
                    let dep = q * (0.5 * (0.02 / (0.02 + sl)));
                    self.sed.set(i, self.sed.get(i) + dep);
                    self.pre.set(i, q - dep);
                } else {
                    self.sed.set(i, self.sed.get(i) + q);
                }
            }
        }
    }
}

/// Creep on an interior row's inner cells: `h + ddt·((((N + S) + W) + E) − 4h)` in that order,
/// from the rows above, at and below it, into `out`.
#[inline(always)]
fn creep_row(up: &[f64], mid: &[f64], dn: &[f64], ddt: f64, out: &mut [f64]) {
    // Slices of one length: no bounds checks, so the loop vectorises.
    let m = out.len() - 2;
    let (n, s, w, e, c) = (&up[1..=m], &dn[1..=m], &mid[..m], &mid[2..m + 2], &mid[1..=m]);
    for (i, v) in out[1..=m].iter_mut().enumerate() {
        let lap = (((n[i] + s[i]) + w[i]) + e[i]) - 4.0 * c[i];
        *v = c[i] + ddt * lap;
    }
}

/// [`creep_row`] compiled for AVX2 (the same operations, four cells at a time: the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn creep_row_avx2(up: &[f64], mid: &[f64], dn: &[f64], ddt: f64, out: &mut [f64]) {
    creep_row(up, mid, dn, ddt, out);
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
    /// The caller's progress, with steps not reported.
    struct Quiet<'a>(&'a dyn Progress);
    impl Progress for Quiet<'_> {
        fn report(&self, stage: &str, done: u64, total: u64) {
            self.0.report(stage, done, total)
        }
        fn cancelled(&self) -> bool {
            self.0.cancelled()
        }
    }
    impl Observer for Quiet<'_> {}
    generate_with(size, seed, p, &crate::kernels::Cpu, &Quiet(progress)).expect("the CPU kernels decline, never fail")
}

/// The walk's uplift map: the edge taper times `uplift_map`.
fn uplift_taper(n0: usize, n1: usize, uplift_map: &[f64]) -> Vec<f64> {
    let mut umap = edge_taper(n0, n1, 0.12);
    umap.par_iter_mut().zip(uplift_map).for_each(|(t, u)| *t *= u);
    umap
}

/// The stream-power parameters that run the profile generator's erosion walk on a
/// `big × big` field of unit cells ([`crate::erosion::stream_power`] with `guards` off):
/// `K = incision/√n` (the walk's `√(A/n)` with A in cells), `m = 0.5`, `dt = 1`, the walk's
/// uplift and uplift map (`umap`: edge taper × base surface), `κ` = diffusion.
fn stream_power_params(
    big: usize,
    p: &ProfileParams,
    umap: Vec<f64>,
) -> crate::erosion::stream_power::StreamPowerParams {
    crate::erosion::stream_power::StreamPowerParams {
        k: p.incision / ((big * big) as f64).sqrt(),
        m: 0.5,
        dt: 1.0,
        steps: p.iterations.max(1) as usize,
        uplift: p.uplift * p.relief,
        uplift_map: Some(Grid::from_vec(big, big, umap)),
        kappa: p.diffusion,
        area_cap: None,
        area_floor: None,
        guards: false,
    }
}

/// [`generate`] with the erosion walk offered to `kernels` first, as stream power on unit cells
/// with its guards off ([`stream_power_params`]): a GPU's kernels run it there (not bit for bit:
/// the same to about 1e-15 of the relief on the CPU's stream power, within the GPU kernel's
/// tolerance on a GPU). When `kernels` decline, the profile's own walk runs (the original's
/// bits). Fails only when `kernels` fail. The steps `generate` (the base surface and its fill),
/// `erosion` and `fill` go to `progress`.
pub fn generate_with(
    size: usize,
    seed: u64,
    p: &ProfileParams,
    kernels: &dyn crate::kernels::Kernels,
    progress: &dyn Observer,
) -> Result<BozkirTerrain, crate::kernels::KernelError> {
    progress.step("generate");
    let n = size.max(4);
    // Round half up by hand, as the original (Python and JavaScript disagree on halves).
    let big = n + 2 * (n as f64 * CROP_MARGIN + 0.5).floor() as usize;
    let k = (big - n) / 2;
    progress.report("base surface", 0, 1);
    let z0 = base_surface(big, seed, p);
    // The walk's buffers on huge pages (fewer TLB misses on their random access; same values).
    let mut filled = zeroed_f64(z0.len());
    filled.par_iter_mut().zip(&z0).for_each(|(f, z)| *f = z * p.relief);
    let filled = Grid::from_vec(big, big, fill_with(filled, big, kernels)?);
    progress.step("erosion");
    // The tapered uplift map is built once: the kernels borrow it, the walk takes it back.
    let sp = stream_power_params(big, p, uplift_taper(big, big, &z0));
    let (h, sed) = match kernels.stream_power(&filled, &sp, progress)? {
        Some(out) => (out.height.into_vec(), out.sediment.into_vec()),
        None => {
            let umap = sp.uplift_map.expect("set by stream_power_params").into_vec();
            let u = p.uplift * p.relief;
            erode_walk(filled.into_vec(), big, big, p.iterations, p.incision, p.diffusion, u, &umap, progress)
        }
    };
    progress.step("fill");
    let h = fill_with(h, big, kernels)?;
    let crop = |a: &[f64]| {
        let mut out = zeroed_f64(n * n);
        out.par_chunks_mut(n).enumerate().for_each(|(r, row)| row.copy_from_slice(&a[(k + r) * big + k..][..n]));
        unit(&mut out);
        Grid::from_vec(n, n, out)
    };
    Ok(BozkirTerrain { height: crop(&h), sediment: crop(&sed), base: crop(&z0) })
}

/// The walk as it was before the trees were shared among threads (one receivers-first stack,
/// index-ordered donor lists, sequential): kept to prove the parallel [`erode`] bit for bit.
#[cfg(test)]
mod sequential {
    use super::*;
    use crate::hydrology::flow_graph::build_stack_pairs_and_count_into;

    /// The binary heap the fill ran on before the radix queue.
    #[derive(Default)]
    pub(super) struct Heap(BinaryHeap<Reverse<u128>>);
    impl FillQueue for Heap {
        fn push(&mut self, k: u128) {
            self.0.push(Reverse(k));
        }
        fn pop(&mut self) -> Option<u128> {
            self.0.pop().map(|Reverse(k)| k)
        }
    }

    /// The original's flood as it is: every border cell queued, every cell through the heap.
    pub(super) fn fill_fixed_step_heap(g: &mut [f64], n0: usize, n1: usize) {
        let eps = fill_step(g, n0, n1);
        let mut done = vec![false; g.len()];
        let mut heap = Heap::default();
        for r in 0..n0 {
            for c in 0..n1 {
                if r == 0 || c == 0 || r == n0 - 1 || c == n1 - 1 {
                    let k = r * n1 + c;
                    heap.push(radix_key(g[k], k as u32));
                    done[k] = true;
                }
            }
        }
        flood(g, n0, n1, eps, &mut done, &mut heap);
    }

    /// Steepest-descent receivers and distances (unit cells), the original's order and tie-break.
    pub(super) fn receivers(h: &[f64], n0: usize, n1: usize, rec: &mut [u32], dist: &mut [f64]) {
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
    pub(super) fn erode(
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
        flood_fixed_step(&mut flat, n0, n1);
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
            build_stack_pairs_and_count_into(&rec, None, &mut indeg, &mut count, &mut pairs);
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
        flood_fixed_step(&mut flat, n0, n1);
        (flat, sediment)
    }
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

    /// The receivers are the original's: on integer heights (ties everywhere), on grids where a
    /// diagonal's drop over √2 equals an edge neighbour's exactly (where a product by 1/√2, a
    /// tempting shortcut, misses by an ulp either way), and on random ground.
    #[test]
    fn receivers_break_ties_as_the_original() {
        let (n0, n1) = (23, 31);
        let n = n0 * n1;
        let grids: Vec<Vec<f64>> = vec![
            (0..n).map(|i| f64::from(hash_u32(i as u32, 0, 1) % 4)).collect(),
            (0..n)
                .map(|i| {
                    let (r, c) = ((i / n1) as f64, (i % n1) as f64);
                    // Plane rising along the diagonal and one axis by √2 and 1 per cell: the
                    // diagonal and edge drops tie up to rounding.
                    r * std::f64::consts::SQRT_2
                        + c
                        + if hash_u32(i as u32, 1, 2).is_multiple_of(5) { 1e-15 } else { 0.0 }
                })
                .collect(),
            (0..n).map(|i| f64::from(hash_u32(i as u32, 2, 3)) / f64::from(u32::MAX)).collect(),
        ];
        // Exact ties between a diagonal's drop over √2 and an edge drop where the product by
        // 1/√2 misses by an ulp: 3 × 3 cells around a centre at 0, the pair above it.
        let mut ties: Vec<(usize, usize, Vec<f64>)> = Vec::new();
        for k in 0..100_000u32 {
            let xo = 0.5 + f64::from(hash_u32(k, 7, 9)) / f64::from(u32::MAX);
            let xd = xo * std::f64::consts::SQRT_2;
            if xd / std::f64::consts::SQRT_2 != xo || xd * std::f64::consts::FRAC_1_SQRT_2 == xo {
                continue;
            }
            // Diagonal up-left (code 0) before the edge up (1), and the edge up (1) before the
            // diagonal up-right (2): the first of a tie wins.
            ties.push((3, 3, vec![-xd, -xo, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]));
            ties.push((3, 3, vec![0.0, -xo, -xd, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]));
            if ties.len() >= 40 {
                break;
            }
        }
        assert!(ties.len() >= 40, "ties found: {}", ties.len() / 2);
        let grids: Vec<(usize, usize, Vec<f64>)> = grids.into_iter().map(|g| (n0, n1, g)).chain(ties).collect();
        for (g, (n0, n1, h)) in grids.iter().enumerate() {
            let (n0, n1) = (*n0, *n1);
            let n = n0 * n1;
            let (mut want, mut dist) = (vec![0u32; n], vec![0.0; n]);
            sequential::receivers(h, n0, n1, &mut want, &mut dist);
            let mut dir = vec![0u8; n];
            steepest_receivers(h, n0, n1, &mut dir);
            let got: Vec<u32> = (0..n)
                .map(|i| {
                    let d = (dir[i] & DIR) as usize;
                    if d == OUTLET as usize {
                        i as u32
                    } else {
                        (i as isize + NB[d].0 * n1 as isize + NB[d].1) as u32
                    }
                })
                .collect();
            assert_eq!(got, want, "grid {g}");
        }
    }

    /// The fill (slopes searched first, the rest on the radix queue) is the original's flood
    /// (every cell through a binary heap) bit for bit: random ground, integer heights (ties
    /// broken by index), flat fields far from zero (where v + ε rounds back to v and keys fall
    /// below the last popped one), negative heights, rectangles, and smooth hills with basins of
    /// every size (slopes draining to the border beside slopes draining into pits).
    #[test]
    fn fill_equals_the_original_heap_flood() {
        let hills = |n0: usize, n1: usize, s: u32, noise: f64| -> Vec<f64> {
            (0..n0 * n1)
                .map(|i| {
                    let (r, c) = ((i / n1) as f64, (i % n1) as f64);
                    10.0 * (r * 0.31).sin() * (c * 0.23).cos()
                        + 4.0 * (r * 0.07 + c * 0.11).sin()
                        + noise * f64::from(hash_u32(i as u32, s, 2)) / f64::from(u32::MAX)
                })
                .collect()
        };
        let cases: Vec<(usize, usize, Vec<f64>)> = vec![
            (64, 64, hills(64, 64, 1, 0.0)),
            (97, 71, hills(97, 71, 2, 0.5)),
            (120, 120, hills(120, 120, 3, 3.0)),
            (80, 50, (0..4000).map(|i| (f64::from(hash_u32(i as u32, 8, 1) % 3) * 0.25).floor()).collect()),
            (33, 41, (0..33 * 41).map(|i| f64::from(hash_u32(i as u32, 5, 1)) / 1e6).collect()),
            (40, 40, (0..1600).map(|i| f64::from(hash_u32(i as u32, 6, 1) % 7)).collect()),
            (30, 30, vec![1e6; 900]),
            (30, 30, (0..900).map(|i| 5e3 + if i % 17 == 0 { 1e-12 } else { 0.0 }).collect()),
            (25, 37, (0..25 * 37).map(|i| -(f64::from(hash_u32(i as u32, 7, 1)) / 1e8)).collect()),
            // A profile's own noise: basins inside basins, slopes above their spill levels
            // reached from the queue and climbed from there.
            (150, 150, base_surface(150, 3, &crate::profiles::profile("canyon").unwrap().params)),
            (130, 130, base_surface(130, 5, &crate::profiles::profile("alpine").unwrap().params)),
        ];
        for (c, (n0, n1, g)) in cases.into_iter().enumerate() {
            let (mut a, mut b) = (g.clone(), g);
            flood_fixed_step(&mut a, n0, n1);
            sequential::fill_fixed_step_heap(&mut b, n0, n1);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            assert_eq!(bits(&a), bits(&b), "case {c}");
        }
    }

    /// The radix queue pops values in the order a binary min-heap does, values below the last
    /// popped one included, and every key it was given (equal values in any order).
    #[test]
    fn radix_queue_pops_values_as_a_binary_heap() {
        let mut q = RadixQueue::new();
        let mut h = BinaryHeap::new();
        let (mut last, mut got, mut want) = (1u64 << 40, Vec::new(), Vec::new());
        let value = |k: u128| (k >> 32) as u64;
        for step in 0..20_000u32 {
            let r = hash_u32(step, 11, 3);
            if !r.is_multiple_of(3) || h.is_empty() {
                // Mostly at or above the last popped value (as the fill pushes), now and then
                // below it; few distinct values, so ties are common.
                let v = if r.is_multiple_of(29) { last - u64::from(r % 40) } else { last + u64::from(r % 50) };
                let k = (u128::from(v) << 32) | u128::from(step);
                q.push(k);
                h.push(Reverse(k));
            } else {
                let (a, Reverse(b)) = (q.pop().unwrap(), h.pop().unwrap());
                assert_eq!(value(a), value(b), "step {step}");
                last = last.max(value(a));
                got.push(a);
                want.push(b);
            }
        }
        while let Some(Reverse(b)) = h.pop() {
            let a = q.pop().unwrap();
            assert_eq!(value(a), value(b));
            got.push(a);
            want.push(b);
        }
        assert_eq!(q.pop(), None);
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    /// Stream power on unit cells with its guards off ([`stream_power_params`]) is the profile
    /// walk to rounding, for every profile (uplift and creep included): the path the GPU's
    /// kernels take for `terrain --profile … --gpu`.
    #[test]
    fn every_profile_as_stream_power_is_the_walk_to_rounding() {
        use crate::erosion::stream_power::{stream_power, StreamPowerOutput, StreamPowerParams};
        use crate::kernels::{KernelError, Kernels};
        struct CpuStreamPower;
        impl Kernels for CpuStreamPower {
            fn stream_power(
                &self,
                h: &Grid<f64>,
                p: &StreamPowerParams,
                progress: &dyn Progress,
            ) -> Result<Option<StreamPowerOutput>, KernelError> {
                assert!(!p.guards && p.uplift_map.is_some());
                Ok(Some(stream_power(h, p, progress)))
            }
        }
        for (k, name) in super::super::table::profile_names().iter().enumerate() {
            let p = super::super::table::profile(name).unwrap().params;
            let want = generate(40, k as u64, &p, &NoProgress);
            let got = generate_with(40, k as u64, &p, &CpuStreamPower, &NoProgress).unwrap();
            let worst = |a: &Grid<f64>, b: &Grid<f64>| {
                a.data().iter().zip(b.data()).map(|(x, y)| (x - y).abs()).fold(0.0f64, f64::max)
            };
            // Unit-normalised outputs: differences in units of the relief.
            assert!(worst(&got.height, &want.height) < 1e-12, "{name} height {}", worst(&got.height, &want.height));
            assert!(
                worst(&got.sediment, &want.sediment) < 1e-9,
                "{name} sediment {}",
                worst(&got.sediment, &want.sediment)
            );
            assert_eq!(got.base, want.base);
        }
    }

    use bozkir_core::simd::FORCE_PORTABLE as PORTABLE;

    /// The AVX2 builds of the noise, receivers, walks and creep give the portable code's bits:
    /// a profile generated both ways at two sizes (other tests may run either meanwhile; they
    /// give the same bits too, which is the point).
    #[test]
    fn simd_builds_equal_the_portable_loops() {
        for (name, n, seed) in [("canyon", 48, 3), ("alpine", 61, 9), ("mesa", 40, 1)] {
            let p = super::super::table::profile(name).unwrap().params;
            let simd = generate(n, seed, &p, &NoProgress);
            PORTABLE.store(true, std::sync::atomic::Ordering::Relaxed);
            let portable = generate(n, seed, &p, &NoProgress);
            PORTABLE.store(false, std::sync::atomic::Ordering::Relaxed);
            let bits = |g: &Grid<f64>| g.data().iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            assert_eq!(bits(&simd.height), bits(&portable.height), "{name} height");
            assert_eq!(bits(&simd.sediment), bits(&portable.sediment), "{name} sediment");
            assert_eq!(bits(&simd.base), bits(&portable.base), "{name} base");
        }
    }

    /// The noise computed a row at a time with every octave gives the bits of the original's
    /// octave fields summed one after another (and blended with the ridged sum): every profile
    /// (ridged and not, stretched and not), odd and rectangular sizes, the AVX2 and portable
    /// builds, 1 and 3 threads.
    #[test]
    fn noise_rows_equal_the_summed_octave_fields() {
        for (k, name) in super::super::table::profile_names().iter().enumerate() {
            let p = super::super::table::profile(name).unwrap().params;
            let (h, w) = [(37, 37), (29, 44), (64, 51)][k % 3];
            let seed = 3 + k as u64;
            let mut want = fractal(h, w, p.octaves, p.freq, seed, p.stretch, false);
            if p.ridge > 0.0 {
                let r = fractal(h, w, p.octaves, p.freq, seed, p.stretch, true);
                want.iter_mut().zip(&r).for_each(|(z, &r)| *z = *z * (1.0 - p.ridge) + r * p.ridge);
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            for (threads, portable) in [(1, false), (3, false), (3, true)] {
                PORTABLE.store(portable, std::sync::atomic::Ordering::Relaxed);
                let got = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| noise_field(h, w, &p, seed));
                PORTABLE.store(false, std::sync::atomic::Ordering::Relaxed);
                assert_eq!(bits(&got), bits(&want), "{name} {h}×{w}, {threads} threads, portable {portable}");
            }
        }
    }

    /// The trees walked in parallel give the sequential stack walk's bits: every profile (base
    /// surfaces of their own shape, iterations cut to keep the test short), odd sizes and
    /// rectangles, pits (no fill between iterations), uplift and creep on and off, 1, 2 and 5
    /// threads.
    #[test]
    fn parallel_trees_equal_the_sequential_walk_bit_for_bit() {
        for (k, name) in super::super::table::profile_names().iter().enumerate() {
            let p = super::super::table::profile(name).unwrap().params;
            let (n0, n1) = [(37, 37), (29, 44), (64, 51)][k % 3];
            let z0 = base_surface(n0.max(n1), k as u64, &p);
            let z: Vec<f64> = (0..n0 * n1).map(|i| z0[(i / n1) * n0.max(n1) + i % n1] * p.relief).collect();
            let um: Vec<f64> = z.iter().map(|v| v / p.relief.max(1e-9)).collect();
            let iters = p.iterations.min(12);
            let up = if k % 2 == 0 { p.uplift * p.relief } else { 0.0 };
            let diff = if k % 4 == 1 { 0.0 } else { p.diffusion };
            let want = sequential::erode(&z, n0, n1, iters, p.incision, diff, up, &um, &NoProgress);
            for threads in [1, 2, 5] {
                let got = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| erode(&z, n0, n1, iters, p.incision, diff, up, &um, &NoProgress));
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
                assert_eq!(bits(&got.0), bits(&want.0), "{name} {n0}×{n1} height, {threads} threads");
                assert_eq!(bits(&got.1), bits(&want.1), "{name} {n0}×{n1} sediment, {threads} threads");
            }
        }
    }
}
