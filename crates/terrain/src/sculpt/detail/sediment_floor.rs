//! Flat sediment floors under a mask (seed 001 §6.7).
//!
//! A wash or valley floor is a deposit — material accumulated until it levelled — not merely low
//! ground. Under a mask the height is replaced by one level per connected region of the mask:
//! `out = z + m·(level_r − z)`, so where the mask is 1 the floor is exactly flat and its feathered
//! edge blends into the banks. Regions are the 4-connected components of `mask > threshold`,
//! labelled by a breadth-first flood in row-major order of their first cell (deterministic).
//! The level of a region is a statistic of the heights under it ([`FloorLevel`]): a low quantile
//! by default, so the floor sits in the valley rather than halfway up its sides.
//!
//! Run it again after every erosion pass (drainage converges on the floor and trenches it), and
//! use [`suppress_in_mask`] to keep every detail source off the floor (§6.7).

use bozkir_core::Grid;
use rayon::prelude::*;
use std::collections::VecDeque;

/// How a region's floor level is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloorLevel {
    /// Lowest height in the region.
    Min,
    /// Mask-weighted mean height.
    Mean,
    /// The `q`-quantile (`0..=1`, nearest rank) of the region's heights.
    Quantile(f64),
}

/// Parameters of [`sediment_floor`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SedimentFloorParams {
    /// Floor level statistic. Default `Quantile(0.2)`.
    pub level: FloorLevel,
    /// Mask values above this form the regions. Default 0.0.
    pub threshold: f64,
}

impl Default for SedimentFloorParams {
    fn default() -> Self {
        Self { level: FloorLevel::Quantile(0.2), threshold: 0.0 }
    }
}

/// 4-connected components of `mask > threshold`: a label per cell (`u32::MAX` outside) and the
/// number of regions.
pub fn floor_regions(mask: &Grid<f64>, threshold: f64) -> (Vec<u32>, usize) {
    let (w, h) = (mask.width(), mask.height());
    let m = mask.data();
    let mut label = vec![u32::MAX; w * h];
    let mut n = 0u32;
    let mut q = VecDeque::new();
    for s in 0..w * h {
        if label[s] != u32::MAX || m[s].is_nan() || m[s] <= threshold {
            continue;
        }
        label[s] = n;
        q.push_back(s);
        while let Some(i) = q.pop_front() {
            let (x, y) = (i % w, i / w);
            let mut visit = |j: usize| {
                if label[j] == u32::MAX && m[j] > threshold {
                    label[j] = n;
                    q.push_back(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        n += 1;
    }
    (label, n as usize)
}

/// `z` with flat floors under `mask` (`[0, 1]`, `z`'s shape); see the module docs.
pub fn sediment_floor(z: &Grid<f64>, mask: &Grid<f64>, p: &SedimentFloorParams) -> Grid<f64> {
    assert_eq!((mask.width(), mask.height()), (z.width(), z.height()), "sediment_floor: mask shape");
    let (label, n) = floor_regions(mask, p.threshold);
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut wsum = vec![0.0; n];
    let mut vsum = vec![0.0; n];
    for (i, &l) in label.iter().enumerate() {
        if l != u32::MAX {
            let (v, m) = (z.data()[i], mask.data()[i].clamp(0.0, 1.0));
            members[l as usize].push(v);
            wsum[l as usize] += m;
            vsum[l as usize] += m * v;
        }
    }
    let level: Vec<f64> = members
        .into_iter()
        .enumerate()
        .map(|(r, mut v)| match p.level {
            FloorLevel::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
            FloorLevel::Mean => vsum[r] / wsum[r],
            FloorLevel::Quantile(q) => {
                v.sort_by(f64::total_cmp);
                let k = (q.clamp(0.0, 1.0) * (v.len() - 1) as f64).round() as usize;
                v[k]
            }
        })
        .collect();
    let mut out = z.clone();
    out.data_mut().par_iter_mut().zip(label.par_iter()).zip(mask.data().par_iter()).for_each(|((v, &l), &m)| {
        if l != u32::MAX {
            let m = m.clamp(0.0, 1.0);
            *v = if m >= 1.0 { level[l as usize] } else { *v + m * (level[l as usize] - *v) };
        }
    });
    out
}

/// A detail gate with the mask's floors cut out: `gate · (1 − mask)`.
pub fn suppress_in_mask(gate: &Grid<f64>, mask: &Grid<f64>) -> Grid<f64> {
    assert_eq!((mask.width(), mask.height()), (gate.width(), gate.height()), "suppress_in_mask: shape");
    let mut out = gate.clone();
    out.data_mut().par_iter_mut().zip(mask.data().par_iter()).for_each(|(g, &m)| *g *= 1.0 - m.clamp(0.0, 1.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sculpt::test_support::{bumpy, bytes, with_threads};

    fn two_pools() -> Grid<f64> {
        Grid::from_fn(40, 30, |x, y| {
            let a = ((x as f64 - 10.0).powi(2) + (y as f64 - 15.0).powi(2)).sqrt();
            let b = ((x as f64 - 30.0).powi(2) + (y as f64 - 12.0).powi(2)).sqrt();
            if a < 6.0 || b < 5.0 {
                if a.min(b) < 4.0 {
                    1.0
                } else {
                    0.5
                }
            } else {
                0.0
            }
        })
    }

    #[test]
    fn floors_are_flat_under_the_mask_and_untouched_outside() {
        let z = bumpy(40, 30).map(|v| 20.0 * v);
        let mask = two_pools();
        let (label, n) = floor_regions(&mask, 0.0);
        assert_eq!(n, 2);
        for level in [FloorLevel::Min, FloorLevel::Mean, FloorLevel::Quantile(0.2)] {
            let out = sediment_floor(&z, &mask, &SedimentFloorParams { level, threshold: 0.0 });
            let mut lv = [f64::NAN; 2];
            for (i, &li) in label.iter().enumerate() {
                let m = mask.data()[i];
                if m == 0.0 {
                    assert_eq!(out.data()[i], z.data()[i]);
                } else if m == 1.0 {
                    let l = li as usize;
                    if lv[l].is_nan() {
                        lv[l] = out.data()[i];
                    }
                    assert_eq!(out.data()[i], lv[l], "floor not flat");
                }
            }
            assert_ne!(lv[0], lv[1]);
        }
        let g = suppress_in_mask(&Grid::new(40, 30, 1.0), &mask);
        assert!(g.data().iter().zip(mask.data()).all(|(g, m)| (g + m - 1.0).abs() < 1e-15));
    }

    #[test]
    fn same_bits_for_any_thread_count() {
        let z = bumpy(40, 30);
        let m = two_pools();
        let a = with_threads(1, || sediment_floor(&z, &m, &SedimentFloorParams::default()));
        let b = with_threads(2, || sediment_floor(&z, &m, &SedimentFloorParams::default()));
        assert_eq!(bytes(&a), bytes(&b));
    }
}
