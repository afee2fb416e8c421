//! Water drawn as water (issue 25): the island recipe's sea in `preview.png` and in the baked
//! `albedo.png`, `analyze --sea-level`'s sea in its preview, and the island's sea floor left
//! alone by the droplets (the comb of gullies along its border is gone).

use std::path::Path;
use std::process::{Command, Output};

fn bozkir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bozkir")).arg("--quiet").args(args).output().expect("run bozkir")
}

fn ok(args: &[&str]) {
    let o = bozkir(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

fn heights(dir: &Path) -> bozkir_core::Grid<f64> {
    bozkir_io::read_geotiff(dir.join("height.tif")).unwrap().heights
}

/// Water-coloured: clearly bluer than red (the ramp's land colours never are).
fn blue(c: [u8; 3]) -> bool {
    c[2] as i32 > c[0] as i32 + 40
}

/// Share of the pixels of `img` (any scale of the height grid) over cells where `pick` holds that
/// are water-coloured.
fn blue_share(img: &bozkir_core::Grid<[u8; 3]>, h: &bozkir_core::Grid<f64>, pick: impl Fn(f64) -> bool) -> f64 {
    let (sx, sy) = (img.width() / h.width(), img.height() / h.height());
    let (mut n, mut b) = (0, 0);
    for y in 0..h.height() {
        for x in 0..h.width() {
            if pick(*h.get(x, y)) {
                n += 1;
                b += usize::from(blue(*img.get(x * sx + sx / 2, y * sy + sy / 2)));
            }
        }
    }
    b as f64 / n.max(1) as f64
}

#[test]
fn the_island_sea_is_water_in_the_preview_and_the_albedo() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("island");
    ok(&["terrain", "--recipe", "island", "--size", "96", "--out", t.to_str().unwrap()]);
    let sc: serde_json::Value = serde_json::from_slice(&std::fs::read(t.join("terrain.json")).unwrap()).unwrap();
    assert_eq!(sc["settings"]["sea_level_m"], 0.0);
    let h = heights(&t);
    let preview = bozkir_io::read_rgb8(t.join("preview.png")).unwrap();
    // Deeper than a metre: water; higher than 5 m: land.
    assert_eq!(blue_share(&preview, &h, |z| z < -1.0), 1.0, "sea drawn as water");
    assert!(blue_share(&preview, &h, |z| z > 5.0) < 0.02, "land drawn as land");
    ok(&["bake", t.to_str().unwrap()]);
    let albedo = bozkir_io::read_rgb8(t.join("albedo.png")).unwrap();
    assert!(blue_share(&albedo, &h, |z| z < -5.0) > 0.99);
    // Land: higher than 5 m and a cell or more from the rivers and lakes the bake found
    // (water.tif; the texels between a river cell and its neighbour blend the two).
    let wet = bozkir_io::read_tiff_f32(t.join("water.tif")).unwrap();
    let (w, hh) = (h.width(), h.height());
    let near_water = |x: usize, y: usize| {
        (y.saturating_sub(1)..(y + 2).min(hh))
            .any(|v| (x.saturating_sub(1)..(x + 2).min(w)).any(|u| *wet.get(u, v) > 0.0))
    };
    let dry = bozkir_core::Grid::from_fn(w, hh, |x, y| if near_water(x, y) { f64::NAN } else { *h.get(x, y) });
    assert!(blue_share(&albedo, &dry, |z| z > 5.0) < 0.02);
    assert!(blue_share(&albedo, &h, |z| z > 5.0) > blue_share(&albedo, &dry, |z| z > 5.0), "the rivers are water too");
}

#[test]
fn the_island_sea_floor_is_not_gullied_along_the_border() {
    let tmp = tempfile::tempdir().unwrap();
    let (before, after) = (tmp.path().join("b"), tmp.path().join("a"));
    ok(&["terrain", "--recipe", "island", "--size", "128", "--until", "1", "--out", before.to_str().unwrap()]);
    ok(&["terrain", "--recipe", "island", "--size", "128", "--until", "2", "--out", after.to_str().unwrap()]);
    let (b, a) = (heights(&before), heights(&after));
    let n = b.width();
    // The band of 12 cells along every border (all sea) is what it was before the droplets: its
    // statistics are the generator's, not a comb of gullies (which raised the spread along the
    // border from about 1 m to 3 m and wore up to 28 m into the falloff's slope).
    for y in 0..n {
        for x in 0..n {
            if x.min(y).min(n - 1 - x).min(n - 1 - y) < 12 {
                assert_eq!(a.get(x, y), b.get(x, y), "cell ({x}, {y}) changed");
            }
        }
    }
    // The land did erode.
    assert!(a.data().iter().zip(b.data()).filter(|(p, q)| p != q).count() > 500);
}

#[test]
fn analyze_draws_its_sea_as_water() {
    let tmp = tempfile::tempdir().unwrap();
    let dem = tmp.path().join("coast.tif");
    // A coast: the ground rises west to east through 0 m.
    let g = bozkir_core::Grid::from_fn(64, 48, |x, y| (x as f32 - 20.0) * 3.0 + ((y * 7) % 5) as f32 * 0.3)
        .with_cell_size(20.0, 20.0);
    bozkir_io::write_tiff_f32(&dem, &g).unwrap();
    let out = tmp.path().join("a");
    ok(&["analyze", dem.to_str().unwrap(), "--sea-level", "0", "--out", out.to_str().unwrap()]);
    let h = g.map(|&v| f64::from(v));
    let preview = bozkir_io::read_rgb8(out.join("preview.png")).unwrap();
    assert_eq!(blue_share(&preview, &h, |z| z < -1.0), 1.0);
    assert!(blue_share(&preview, &h, |z| z > 1.0) < 0.02);
}
