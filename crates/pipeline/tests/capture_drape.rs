//! `texture_capture` on real data and on small photos made here: the RMNP orthophoto draped
//! over its DEM (metric, north-up, heights from the DEM), tints, shrinking, pixels without data.

use bozkir_core::{Grid, NoProgress};
use bozkir_pipeline::capture::{texture_capture, TextureRequest};
use std::path::{Path, PathBuf};

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(p)
}

fn request(image: PathBuf) -> TextureRequest {
    TextureRequest { image, side: 2.0, height: None, relief: 0.1, size: 0.7, tint: None, pixels: None }
}

fn extent(s: &bozkir_splat::Splats) -> ([f64; 3], [f64; 3]) {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in s.positions() {
        for k in 0..3 {
            lo[k] = lo[k].min(f64::from(p[k]));
            hi[k] = hi[k].max(f64::from(p[k]));
        }
    }
    (lo, hi)
}

#[test]
fn the_rmnp_orthophoto_drapes_over_its_dem_in_metres_and_north_up() {
    let dem = bozkir_io::read_dem(data("dem/rmnp-dem.tif")).unwrap();
    let g = &dem.heights;
    assert_eq!(dem.valid_count(), g.len(), "the bundled DEM is void-free");
    let req = TextureRequest {
        side: 8.0,
        height: Some(data("dem/rmnp-dem.tif")),
        relief: 0.4,
        ..request(data("dem/rmnp-rgb.tif"))
    };
    let s = texture_capture(&req, &NoProgress).unwrap();
    let (lo, hi) = extent(&s);
    // The orthophoto covers the whole DEM, so the drape spans the DEM's extent in metres: its
    // aspect is the DEM's metric one (the orthophoto's pixels are 0.0015° square, which is not
    // square in metres at 40° N: without resampling the aspect would be 1.06).
    let want = (g.width() as f64 * g.dx) / (g.height() as f64 * g.dy);
    let got = (hi[0] - lo[0]) / (hi[1] - lo[1]);
    assert!((got / want - 1.0).abs() < 0.02, "aspect {got:.3}, DEM {want:.3}");
    assert!(((hi[1] - lo[1]) - 8.0).abs() < 1e-4, "the long side is 8 m: {:?}", hi[1] - lo[1]);
    // Heights are the DEM's, rescaled to 0..relief.
    assert!(lo[2].abs() < 1e-6 && (hi[2] - 0.4).abs() < 1e-5, "z {}..{}", lo[2], hi[2]);
    // The highest splat stands where the DEM's highest cell is (north up, east right).
    let (mut best, mut at) = (f64::NEG_INFINITY, (0, 0));
    for r in 0..g.height() {
        for c in 0..g.width() {
            if *g.get(c, r) > best {
                best = *g.get(c, r);
                at = (c, r);
            }
        }
    }
    let top = s.positions().iter().max_by(|a, b| a[2].total_cmp(&b[2])).unwrap();
    let fx = (f64::from(top[0]) - lo[0]) / (hi[0] - lo[0]);
    let fy = (hi[1] - f64::from(top[1])) / (hi[1] - lo[1]);
    let (wx, wy) = ((at.0 as f64 + 0.5) / g.width() as f64, (at.1 as f64 + 0.5) / g.height() as f64);
    assert!((fx - wx).abs() < 0.02 && (fy - wy).abs() < 0.02, "top at ({fx:.3}, {fy:.3}), DEM's at ({wx:.3}, {wy:.3})");
    // Square pixels: one splat per pixel on a regular grid, the same step along x and y.
    let xs: std::collections::BTreeSet<i64> =
        s.positions().iter().map(|p| (f64::from(p[0]) * 1e4).round() as i64).collect();
    let ys: std::collections::BTreeSet<i64> =
        s.positions().iter().map(|p| (f64::from(p[1]) * 1e4).round() as i64).collect();
    assert_eq!(xs.len() * ys.len(), s.len());
    let step = |v: &std::collections::BTreeSet<i64>| {
        let v: Vec<i64> = v.iter().copied().collect();
        (v[v.len() - 1] - v[0]) as f64 / (v.len() - 1) as f64
    };
    assert!((step(&xs) / step(&ys) - 1.0).abs() < 0.01, "steps {} and {}", step(&xs), step(&ys));
}

#[test]
fn orthophoto_pixels_without_data_make_no_splat() {
    let o = bozkir_io::read_geotiff_rgb(data("dem/rmnp-rgb.tif")).unwrap();
    let valid = o.valid_count();
    assert!(valid < o.rgb.len(), "the orthophoto has NoData pixels");
    let s = texture_capture(&request(data("dem/rmnp-rgb.tif")), &NoProgress).unwrap();
    assert_eq!(s.len(), valid);
}

#[test]
fn a_tint_gives_a_grey_photo_its_colour_and_keeps_its_contrast() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("grey.png");
    let px: Vec<u8> = (0..64).map(|i| 60 + (i * 7 % 61) as u8).collect();
    bozkir_io::write_png8(&p, &Grid::from_vec(8, 8, px.clone())).unwrap();
    let tint = [0.3, 0.4, 0.15];
    let s = texture_capture(&TextureRequest { tint: Some(tint), ..request(p) }, &NoProgress).unwrap();
    let n = s.len() as f64;
    let mut mean = [0.0f64; 3];
    for i in 0..s.len() {
        let c = s.base_rgb(i);
        (0..3).for_each(|k| mean[k] += f64::from(c[k]) / n);
    }
    for k in 0..3 {
        assert!((mean[k] - tint[k]).abs() < 2e-3, "mean {mean:?} vs tint {tint:?}");
    }
    // Each splat keeps its pixel's contrast: colour / tint = grey / mean grey.
    let g_mean = px.iter().map(|&v| f64::from(v)).sum::<f64>() / 64.0;
    for (i, &v) in px.iter().enumerate() {
        let c = s.base_rgb(i);
        let want = tint[1] * f64::from(v) / g_mean;
        assert!((f64::from(c[1]) - want).abs() < 2e-3, "pixel {i}: {} vs {want}", c[1]);
    }
}

#[test]
fn pixels_shrinks_the_photo_by_area_average() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("photo.png");
    let px: Vec<[u8; 3]> = (0..64 * 48).map(|i| [(i % 64 * 4) as u8, (i / 64 * 5) as u8, 90]).collect();
    bozkir_io::write_rgb8(&p, &Grid::from_vec(64, 48, px.clone())).unwrap();
    let s = texture_capture(&TextureRequest { pixels: Some(16), ..request(p.clone()) }, &NoProgress).unwrap();
    assert_eq!(s.len(), 16 * 12);
    // Splat (c, r) is the mean of the 4 × 4 block under it.
    for (r, c) in [(0usize, 0usize), (5, 9), (11, 15)] {
        let mut want = [0.0f64; 2];
        for y in 4 * r..4 * r + 4 {
            for x in 4 * c..4 * c + 4 {
                let v = px[y * 64 + x];
                want[0] += f64::from(v[0]) / 255.0 / 16.0;
                want[1] += f64::from(v[1]) / 255.0 / 16.0;
            }
        }
        let got = s.base_rgb(r * 16 + c);
        assert!((f64::from(got[0]) - want[0]).abs() < 2e-3 && (f64::from(got[1]) - want[1]).abs() < 2e-3, "({c}, {r})");
    }
    // A photo already small enough is left as it is.
    let s = texture_capture(&TextureRequest { pixels: Some(100), ..request(p.clone()) }, &NoProgress).unwrap();
    assert_eq!(s.len(), 64 * 48);
    let e = texture_capture(&TextureRequest { pixels: Some(2), ..request(p) }, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("--pixels 2"), "{e}");
}

#[test]
fn a_missing_dem_is_named() {
    let req = TextureRequest { height: Some("no-such-dem.tif".into()), ..request(data("dem/rmnp-rgb.tif")) };
    let e = texture_capture(&req, &NoProgress).unwrap_err();
    assert_eq!(e.to_string(), "no-such-dem.tif: no such file");
}
