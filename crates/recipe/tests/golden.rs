//! Golden outputs of the built-in `ds2` and `island` recipes on the CPU: a digest of every decoded
//! array (the height field and each recorded mask, as f64 bits) and its range, pinned, so a
//! refactor of the recipe stages, the runner or the algorithms they call cannot change a bit of
//! either recipe unnoticed. The digests were taken from the recipes as they ran before the stage
//! refactor of issue 18; `bozkir terrain --recipe NAME --size N` writes these same arrays.
//!
//! A digest that changes on purpose (an algorithm changed its output) is re-pinned in the same
//! commit, with the reason in the commit message.

use bozkir_core::{Grid, NoProgress};
use bozkir_recipe::builtin::builtin;

/// FNV-1a (64 bit) over the shape, the cell size and every value's bits, row-major.
fn digest(g: &Grid<f64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&(g.width() as u64).to_le_bytes());
    eat(&(g.height() as u64).to_le_bytes());
    eat(&g.dx.to_bits().to_le_bytes());
    eat(&g.dy.to_bits().to_le_bytes());
    for v in g.data() {
        eat(&v.to_bits().to_le_bytes());
    }
    h
}

fn range(g: &Grid<f64>) -> (f64, f64) {
    g.data().iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

/// Run built-in `name` at `size` cells with the recipe's own seed and extent (as the CLI does
/// without `--seed`/`--cell-size`) and return `(array name, digest, min, max)` for the height
/// and every mask, in name order.
fn run(name: &str, size: usize) -> Vec<(String, u64, f64, f64)> {
    let recipe = builtin(name).unwrap();
    let cell = recipe.cell_size * recipe.size as f64 / size as f64;
    let state = bozkir_recipe::run(&recipe, size, cell, recipe.seed, &NoProgress, |_| {}).unwrap();
    let mut out = vec![("height".to_string(), digest(&state.height), range(&state.height).0, range(&state.height).1)];
    for (k, m) in &state.masks {
        let (lo, hi) = range(m);
        out.push((k.clone(), digest(m), lo, hi));
    }
    out
}

fn check(name: &str, size: usize, want: &[(&str, u64)]) {
    let got = run(name, size);
    for (k, d, lo, hi) in &got {
        eprintln!("(\"{k}\", 0x{d:016x}), // {lo:.6} .. {hi:.6}"); // a line to paste when re-pinning
    }
    let got_names: Vec<&str> = got.iter().map(|(k, ..)| k.as_str()).collect();
    let want_names: Vec<&str> = want.iter().map(|(k, _)| *k).collect();
    assert_eq!(got_names, want_names, "{name}: arrays recorded");
    for ((k, d, ..), (_, w)) in got.iter().zip(want) {
        assert_eq!(*d, *w, "{name} at {size}²: {k} changed (digest 0x{d:016x}, pinned 0x{w:016x})");
    }
}

#[test]
fn ds2_at_its_own_512_is_unchanged() {
    check(
        "ds2",
        512,
        &[
            // Re-pinned when ds2's stream-power stages gained a 16-cell margin (issue 25: the
            // steep band along the fixed border is cut away with the margin).
            ("height", 0x4266b009ab336a7b),     // 5.863023 .. 104.859353
            ("deposit", 0x143d915b1a5bde4e),    // 0.000000 .. 58.799370
            ("fold_east", 0x5e8d7702f51c08e9),  // -5.119954 .. 4.957065
            ("fold_south", 0xfdeb97d5584efe7e), // -4.972106 .. 4.842400
            ("sediment", 0xb330684d81c2800d),   // 0.074279 .. 5306.295683
            ("wear", 0x0dc1897e3d996ce8),       // 0.400855 .. 178.137866
        ],
    );
}

#[test]
fn island_at_its_own_size_is_unchanged() {
    check(
        "island",
        builtin("island").unwrap().size,
        &[
            ("height", 0xa4be5210c8a81981),        // re-pinned: droplets stop at the sea (issue 25)
            ("biome", 0x5f03f1e1af306fdf),         // re-pinned: droplets stop at the sea (issue 25)
            ("biome_soft_0", 0x24aacc6025093897),  // re-pinned: droplets stop at the sea (issue 25)
            ("biome_soft_1", 0x64998fcaa663374d),  // re-pinned: droplets stop at the sea (issue 25)
            ("biome_soft_10", 0xdf8dea8c45b969ee), // 0.000000 .. 1.000000
            ("biome_soft_11", 0x7ccc7f9e562bab80), // 0.000000 .. 0.494133
            ("biome_soft_12", 0xadeb553b6a1b2fe3), // 0.000000 .. 0.578616
            ("biome_soft_13", 0xa9029ea5413123d4), // re-pinned: droplets stop at the sea (issue 25)
            ("biome_soft_14", 0x0dcdbcca09531442), // re-pinned: droplets stop at the sea (issue 25)
            ("biome_soft_2", 0xb40de72fb1fc9458),  // 0.000000 .. 0.345328
            ("biome_soft_3", 0x02f129686a5b166e),  // 0.000000 .. 0.639110
            ("biome_soft_4", 0x7aa2a06913dc9c8b),  // 0.000000 .. 0.639591
            ("biome_soft_5", 0x3dc81006c3c209ef),  // 0.000000 .. 1.000000
            ("biome_soft_6", 0x78521f0ef7f573b3),  // 0.000000 .. 1.000000
            ("biome_soft_7", 0x5e049017f5d3a133),  // 0.000000 .. 1.000000
            ("biome_soft_8", 0x38418f301bb57a79),  // 0.000000 .. 1.000000
            ("biome_soft_9", 0x8190cd32a6bb86a0),  // re-pinned: droplets stop at the sea (issue 25)
            ("deposit", 0xebedd9831d83c69a),       // re-pinned: droplets stop at the sea (issue 25)
            ("moisture", 0x8c0a2d687cd6efc3),      // 0.094650 .. 0.825464
            ("rivers", 0x1a1db37d8e5d60b8),        // re-pinned: droplets stop at the sea (issue 25)
            ("wear", 0xeabbdab7d7662df1),          // re-pinned: droplets stop at the sea (issue 25)
        ],
    );
}
