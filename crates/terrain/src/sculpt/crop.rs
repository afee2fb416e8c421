//! Simulation margins: grow a grid by a margin before simulating, crop the margin afterwards.
//!
//! The original bozkır generator (inventory §2.1, `generate`) simulates on
//! `n + 2·⌊n·CROP_MARGIN + 0.5⌋` cells (halves rounded up explicitly, because languages
//! disagree on rounding halves) and returns the centre `n`, so the border — base level, where
//! all water leaves — lies outside the map anyone sees and does not draw a frame of collected
//! ground around it.

use bozkir_core::Grid;

/// The original's margin: 0.15 of the side on each side.
pub const CROP_MARGIN: f64 = 0.15;

/// Margin in cells on each side for a side of `n` cells: `⌊n·frac + 0.5⌋`.
pub fn margin_cells(n: usize, frac: f64) -> usize {
    (n as f64 * frac + 0.5).floor().max(0.0) as usize
}

/// Side of the padded simulation grid: `n + 2·margin_cells(n, frac)`.
pub fn padded_size(n: usize, frac: f64) -> usize {
    n + 2 * margin_cells(n, frac)
}

/// `grid` without `mx` columns on the left and right and `my` rows at the top and bottom
/// (empty when the margins meet); keeps the cell size.
pub fn crop_margin(grid: &Grid<f64>, mx: usize, my: usize) -> Grid<f64> {
    let w = grid.width().saturating_sub(2 * mx);
    let h = grid.height().saturating_sub(2 * my);
    if w == 0 || h == 0 {
        return Grid::from_vec(0, 0, Vec::new()).with_cell_size(grid.dx, grid.dy);
    }
    grid.crop(mx, my, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_sizes() {
        // n = 30: 4.5 rounds up to 5 (Python's round() would give 4).
        assert_eq!(margin_cells(30, CROP_MARGIN), 5);
        assert_eq!(padded_size(30, CROP_MARGIN), 40);
        assert_eq!(padded_size(256, CROP_MARGIN), 256 + 2 * 38);
        assert_eq!(padded_size(512, CROP_MARGIN), 512 + 2 * 77);
    }

    #[test]
    fn crop_takes_the_centre() {
        let n = 30;
        let big = padded_size(n, CROP_MARGIN);
        let k = margin_cells(n, CROP_MARGIN);
        let g = Grid::from_fn(big, big, |x, y| (y * 1000 + x) as f64).with_cell_size(3.0, 3.0);
        let c = crop_margin(&g, k, k);
        assert_eq!((c.width(), c.height(), c.dx), (n, n, 3.0));
        assert_eq!(*c.get(0, 0), (k * 1000 + k) as f64);
        assert_eq!(*c.get(n - 1, n - 1), ((k + n - 1) * 1000 + k + n - 1) as f64);
        assert!(crop_margin(&g, 20, 1).is_empty());
    }
}
