//! The border band of the built-in recipes looks like the ground next to it: no steep frame
//! where a fixed base level meets uplifting ground (issue 25). Per side, the mean slope of the
//! outermost 2 cells against that of the 6 cells inward from them.

use bozkir_core::{Grid, NoProgress};
use bozkir_recipe::builtin::builtin;

/// |∇h| by central differences (one-sided at the edges), m/m.
fn slope(h: &Grid<f64>) -> Grid<f64> {
    let (w, hh) = (h.width(), h.height());
    Grid::from_fn(w, hh, |x, y| {
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
        let (y0, y1) = (y.saturating_sub(1), (y + 1).min(hh - 1));
        let gx = (h.get(x1, y) - h.get(x0, y)) / ((x1 - x0) as f64 * h.dx);
        let gy = (h.get(x, y1) - h.get(x, y0)) / ((y1 - y0) as f64 * h.dy);
        gx.hypot(gy)
    })
}

/// Mean slope of the cells at distance `lo..hi` (in cells) from side `side` (0 north, 1 south,
/// 2 west, 3 east).
fn band(s: &Grid<f64>, side: usize, lo: usize, hi: usize) -> f64 {
    let (w, h) = (s.width(), s.height());
    let (mut sum, mut n) = (0.0, 0.0);
    for y in 0..h {
        for x in 0..w {
            let d = [y, h - 1 - y, x, w - 1 - x][side];
            if (lo..hi).contains(&d) {
                sum += s.get(x, y);
                n += 1.0;
            }
        }
    }
    sum / n
}

fn ratios_of(name: &str, recipe: bozkir_recipe::Recipe, size: usize) -> [f64; 4] {
    let cell = recipe.cell_size * recipe.size as f64 / size as f64;
    let state = bozkir_recipe::run(&recipe, size, cell, recipe.seed, &NoProgress, |_| {}).unwrap();
    let s = slope(&state.height);
    let r = [0, 1, 2, 3].map(|side| band(&s, side, 0, 2) / band(&s, side, 2, 8).max(1e-9));
    eprintln!("{name} at {size}²: outer/inner slope per side (N, S, W, E) {r:.2?}");
    r
}

fn ratios(name: &str, size: usize) -> [f64; 4] {
    ratios_of(name, builtin(name).unwrap(), size)
}

#[test]
fn ds2_and_ds2_rivers_have_no_steep_frame() {
    for size in [128, 256] {
        for name in ["ds2", "ds2-rivers"] {
            for r in ratios(name, size) {
                assert!((0.5..=1.6).contains(&r), "{name}: outer band {r:.2}× the slope of the band inside it");
            }
        }
    }
    // Without the margin the frame is there: the measure sees it.
    let text = bozkir_recipe::builtin::source("ds2").unwrap().replace("margin_cells = 16", "margin_cells = 0");
    let bare = bozkir_recipe::parse(&text, "ds2 without margins").unwrap();
    let r = ratios_of("ds2 without margins", bare, 256);
    assert!(r.iter().filter(|&&v| v > 2.0).count() >= 2, "{r:.2?}");
}
