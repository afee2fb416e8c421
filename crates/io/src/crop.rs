//! Largest all-valid axis-aligned rectangle of a raster.
//!
//! The classic maximal-rectangle scan: for each row, `run[x]` counts the consecutive valid
//! cells ending at that row in column `x` (a histogram), and the largest rectangle under the
//! histogram is found with a stack of increasing bars. O(width × height) time, O(width) memory.
//! Ties keep the first rectangle found (scanning rows top to bottom, bars left to right), so the
//! answer is deterministic.

use bozkir_core::Grid;

/// The largest rectangle `(x0, y0, w, h)` whose cells are all finite, or `None` when no cell is.
/// The minimum usable size (8×8) is checked by callers, e.g. [`crate::Dem::crop_valid`].
pub fn crop_largest_valid(grid: &Grid<f64>) -> Option<(usize, usize, usize, usize)> {
    let (w, h) = (grid.width(), grid.height());
    let mut run = vec![0usize; w];
    let mut stack: Vec<usize> = Vec::with_capacity(w + 1);
    let mut best: Option<(usize, usize, usize, usize)> = None;
    let mut best_area = 0usize;
    for y in 0..h {
        for (r, v) in run.iter_mut().zip(grid.row(y)) {
            *r = if v.is_finite() { *r + 1 } else { 0 };
        }
        stack.clear();
        // A sentinel bar of height 0 at x = w flushes the stack.
        for x in 0..=w {
            let bar = if x < w { run[x] } else { 0 };
            while let Some(&top) = stack.last() {
                if run[top] <= bar {
                    break;
                }
                stack.pop();
                let height = run[top];
                let left = stack.last().map_or(0, |&l| l + 1);
                let width = x - left;
                let area = width * height;
                if area > best_area {
                    best_area = area;
                    best = Some((left, y + 1 - height, width, height));
                }
            }
            stack.push(x);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over all rectangles, for comparison.
    fn brute(g: &Grid<f64>) -> usize {
        let mut best = 0;
        for y0 in 0..g.height() {
            for x0 in 0..g.width() {
                for y1 in y0..g.height() {
                    for x1 in x0..g.width() {
                        let ok = (y0..=y1).all(|y| (x0..=x1).all(|x| g.get(x, y).is_finite()));
                        if ok {
                            best = best.max((x1 - x0 + 1) * (y1 - y0 + 1));
                        }
                    }
                }
            }
        }
        best
    }

    #[test]
    fn matches_brute_force_on_pseudo_random_masks() {
        let mut s = 12345u32;
        for trial in 0..200 {
            let (w, h) = (1 + trial % 9, 1 + (trial / 9) % 7);
            let g = Grid::from_fn(w, h, |_, _| {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                if s >> 29 == 0 {
                    f64::NAN
                } else {
                    1.0
                }
            });
            let got = crop_largest_valid(&g);
            let area = got.map_or(0, |(_, _, w, h)| w * h);
            assert_eq!(area, brute(&g), "trial {trial}");
            if let Some((x0, y0, cw, ch)) = got {
                assert!(g.crop(x0, y0, cw, ch).data().iter().all(|v| v.is_finite()));
            }
        }
    }

    #[test]
    fn known_window_and_empty() {
        let g = Grid::from_fn(10, 6, |x, y| if (2..7).contains(&x) && (1..5).contains(&y) { 1.0 } else { f64::NAN });
        assert_eq!(crop_largest_valid(&g), Some((2, 1, 5, 4)));
        assert_eq!(crop_largest_valid(&Grid::new(3, 3, f64::NAN)), None);
    }
}
