//! DEM readers on the real files in `data/dem/` and on crafted GeoTIFFs.

use bozkir_core::Grid;
use bozkir_io::*;
mod common;
use common::{npy, zip_of, TmpDir};
use std::path::{Path, PathBuf};
use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem").join(name)
}

fn tmp_dir(name: &str) -> TmpDir {
    TmpDir::new(name)
}

#[test]
fn srtm_geotiff_loads_with_metric_cells_at_its_latitude() {
    let dem = read_geotiff(data("srtm_ref.tif")).unwrap();
    let h = &dem.heights;
    assert_eq!((h.width(), h.height()), (1000, 1000));
    assert_eq!(h.min_max(), Some((1111.0, 3270.0)));
    assert_eq!(dem.valid_count(), 1_000_000);
    assert_eq!(dem.nodata, Some(-32768.0));
    // Decoded values pinned against an independent reader (tifffile).
    assert_eq!([*h.get(0, 0), *h.get(999, 0), *h.get(0, 999), *h.get(500, 500)], [1982.0, 1903.0, 1311.0, 2566.0]);
    // 3″ cells, tie point at 40° N, 1000 rows of 1/1200° → centre 39.5833° N.
    match dem.crs_kind {
        CrsKind::Geographic { epsg, centre_lat } => {
            assert_eq!(epsg, Some(4326));
            assert!((centre_lat - (40.0 - 500.0 / 1200.0)).abs() < 1e-9, "{centre_lat}");
        }
        other => panic!("expected geographic, got {other:?}"),
    }
    assert!((h.dx - 71.6).abs() < 0.2, "dx {}", h.dx);
    assert!((h.dy - 92.5).abs() < 0.2, "dy {}", h.dy);
    let (mlon, mlat) = metres_per_degree(40.0 - 500.0 / 1200.0);
    assert!((h.dx - mlon / 1200.0).abs() < 1e-9 && (h.dy - mlat / 1200.0).abs() < 1e-9);
    let crop = dem.crop_valid().unwrap();
    assert_eq!((crop.width(), crop.height()), (1000, 1000));
}

#[test]
fn rmnp_lzw_uint16_geotiff_loads() {
    let dem = read_geotiff(data("rmnp-dem.tif")).unwrap();
    let h = &dem.heights;
    assert_eq!((h.width(), h.height()), (152, 187));
    assert_eq!(dem.nodata, Some(65535.0));
    // GDAL's statistics in the file's own metadata: minimum 2281, maximum 4261.
    assert_eq!(h.min_max(), Some((2281.0, 4261.0)));
    // Pixel scale 0.00275° × 0.00211° at ≈ 40.36° N: about 234 m by 234 m.
    let CrsKind::Geographic { centre_lat, .. } = dem.crs_kind else { panic!("{:?}", dem.crs_kind) };
    assert!((centre_lat - (40.553678069620155 - 93.5 * 0.00211)).abs() < 1e-9);
    assert!((h.dx - 234.0).abs() < 2.0 && (h.dy - 234.0).abs() < 2.0, "{} {}", h.dx, h.dy);
    let crop = dem.crop_valid().unwrap();
    assert!(crop.data().iter().all(|v| v.is_finite()) && crop.len() >= 64);
}

#[test]
fn rmnp_georeference_is_the_files_tiepoint_and_scale() {
    // tifffile: ModelPixelScaleTag (0.002750000000000042, 0.0021100000000000086, 0),
    // ModelTiepointTag (0, 0, 0, -105.91250000000001, 40.553678069620155, 0), PixelIsArea.
    let dem = read_geotiff(data("rmnp-dem.tif")).unwrap();
    let g = dem.georef.expect("rmnp-dem.tif is georeferenced");
    assert_eq!((g.x0, g.y0), (-105.91250000000001, 40.553678069620155));
    assert_eq!((g.sx, g.sy), (0.002750000000000042, 0.0021100000000000086));
    // Pixel centres: x = x0 + (c + 0.5)·sx, y = y0 − (r + 0.5)·sy; to_pixel inverts it.
    let (x, y) = g.pixel_centre(10.0, 20.0);
    assert!((x - (-105.91250000000001 + 10.5 * 0.00275)).abs() < 1e-12);
    assert!((y - (40.553678069620155 - 20.5 * 0.00211)).abs() < 1e-12);
    let (c, r) = g.to_pixel(x, y);
    assert!((c - 10.0).abs() < 1e-9 && (r - 20.0).abs() < 1e-9);
    // rasterio's bounds: left −105.9125, bottom 40.15910806962015, right −105.4945.
    let (x0, y0, x1, y1) = g.bounds(152, 187);
    assert!((x0 + 105.9125).abs() < 1e-9 && (y0 - 40.15910806962015).abs() < 1e-9);
    assert!((x1 + 105.4945).abs() < 1e-9 && (y1 - 40.553678069620155).abs() < 1e-12);
    // NPZ and PNG DEMs have no transform.
    assert_eq!(read_dem(data("jacksboro_fault_dem.npz")).unwrap().georef, None);
}

#[test]
fn rmnp_orthophoto_reads_rgb_mask_and_georeference() {
    let o = read_geotiff_rgb(data("rmnp-rgb.tif")).unwrap();
    assert_eq!((o.rgb.width(), o.rgb.height()), (485, 373));
    // rasterio: nodata 255, dataset mask has 11 251 masked pixels (all three bands = 255).
    assert_eq!(o.valid_count(), 485 * 373 - 11_251);
    assert!(!*o.valid.get(0, 0));
    // Pixel (col 242, row 186) is (114, 114, 90) in rasterio.
    assert!(*o.valid.get(242, 186));
    assert_eq!(*o.rgb.get(242, 186), [114.0f64 / 255.0, 114.0 / 255.0, 90.0 / 255.0].map(|v| v as f32));
    let g = o.georef.unwrap();
    assert_eq!((g.x0, g.y0), (-106.0566005603556, 40.61968153576429));
    assert_eq!((g.sx, g.sy), (0.0015000000000000128, 0.0014999999999999996));
    assert!(matches!(o.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }));
    assert!((o.rgb.dx - 127.0).abs() < 2.0 && (o.rgb.dy - 167.0).abs() < 2.0, "{} {}", o.rgb.dx, o.rgb.dy);
    // A single-channel DEM is not an orthophoto.
    let e = read_geotiff_rgb(data("rmnp-dem.tif")).unwrap_err().to_string();
    assert!(e.contains("rmnp-dem.tif") && e.contains("RGB"), "{e}");
}

#[test]
fn crafted_rgba_and_rgb16_orthophotos() {
    let dir = tmp_dir("ortho");
    // RGBA 8-bit: alpha 0 is invalid.
    let p = dir.join("rgba.tif");
    {
        let mut enc = TiffEncoder::new(std::fs::File::create(&p).unwrap()).unwrap();
        let mut img = enc.new_image::<colortype::RGBA8>(2, 1).unwrap();
        img.encoder().write_tag(Tag::ModelPixelScaleTag, &[2.0f64, 3.0, 0.0][..]).unwrap();
        img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 500.0, 900.0, 0.0][..]).unwrap();
        img.write_data(&[255u8, 0, 51, 255, 10, 20, 30, 0]).unwrap();
    }
    let o = read_geotiff_rgb(&p).unwrap();
    assert_eq!(o.valid.data(), &[true, false]);
    assert_eq!(*o.rgb.get(0, 0), [1.0, 0.0, 0.2]);
    assert_eq!(o.georef, Some(GeoTransform { x0: 500.0, y0: 900.0, sx: 2.0, sy: 3.0 }));
    // RGB 16-bit at full scale is divided by 65 535.
    let q = dir.join("rgb16.tif");
    {
        let mut enc = TiffEncoder::new(std::fs::File::create(&q).unwrap()).unwrap();
        enc.write_image::<colortype::RGB16>(1, 1, &[65535u16, 0, 13107]).unwrap();
    }
    let o = read_geotiff_rgb(&q).unwrap();
    assert_eq!(*o.rgb.get(0, 0), [1.0, 0.0, 0.2]);
    assert_eq!(o.georef, None);
}

/// The Jacksboro DEM rewritten as xarray/netCDF tools export it: float64 elevation with 1-D
/// `lat` and `lon` cell-centre arrays, rows south first (`lat` ascending) when `south_first`,
/// columns east first (`lon` descending) when `east_first`.
fn jacksboro_with_coordinates(dir: &Path, south_first: bool, east_first: bool, names: (&str, &str)) -> PathBuf {
    let all = read_npz(data("jacksboro_fault_dem.npz")).unwrap();
    let e = &all["elevation"];
    let (h, w) = (e.shape[0], e.shape[1]);
    let step = 1.0 / 1200.0;
    let (lon0, lat_top) = (-84.4, 36.73);
    let mut elev = Vec::with_capacity(w * h);
    for r in 0..h {
        let sr = if south_first { h - 1 - r } else { r };
        for c in 0..w {
            let sc = if east_first { w - 1 - c } else { c };
            elev.extend_from_slice(&e.data[sr * w + sc].to_le_bytes());
        }
    }
    let lat: Vec<f64> = (0..h).map(|r| lat_top - step * (if south_first { h - 1 - r } else { r }) as f64).collect();
    let lon: Vec<f64> = (0..w).map(|c| lon0 + step * (if east_first { w - 1 - c } else { c }) as f64).collect();
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let entries = [
        ("elevation.npy", npy("<f8", &format!("({h}, {w})"), &elev)),
        (names.1, npy("<f8", &format!("({h},)"), &bytes(&lat))),
        (names.0, npy("<f8", &format!("({w},)"), &bytes(&lon))),
    ];
    let p = dir.join(format!("j_{south_first}_{east_first}.npz"));
    std::fs::write(&p, zip_of(&entries, true)).unwrap();
    p
}

#[test]
fn npz_with_1d_lat_lon_is_placed_north_up_in_degrees() {
    let d = tmp_dir("npz-latlon");
    let reference = read_npz_dem(data("jacksboro_fault_dem.npz")).unwrap();
    let north_first = read_npz_dem(jacksboro_with_coordinates(&d, false, false, ("lon.npy", "lat.npy"))).unwrap();
    // Same heights as the scalar-spaced original, in the same orientation.
    assert_eq!(north_first.heights.data(), reference.heights.data());
    assert!((north_first.heights.dx - reference.heights.dx).abs() < 0.05, "{}", north_first.heights.dx);
    assert!((north_first.heights.dy - reference.heights.dy).abs() < 0.05, "{}", north_first.heights.dy);
    assert!(matches!(north_first.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }));
    let t = north_first.georef.unwrap();
    let step = 1.0 / 1200.0;
    assert!((t.x0 - (-84.4 - step / 2.0)).abs() < 1e-9 && (t.y0 - (36.73 + step / 2.0)).abs() < 1e-9, "{t:?}");
    assert!((t.sx - step).abs() < 1e-12 && (t.sy - step).abs() < 1e-12);
    // South-first rows and east-first columns read back identically: not mirrored.
    for (s, e) in [(true, false), (false, true), (true, true)] {
        let dem = read_npz_dem(jacksboro_with_coordinates(&d, s, e, ("longitude.npy", "latitude.npy"))).unwrap();
        assert_eq!(dem.heights.data(), north_first.heights.data(), "south_first {s}, east_first {e}");
        let g = dem.georef.unwrap();
        assert!((g.x0 - t.x0).abs() < 1e-9 && (g.y0 - t.y0).abs() < 1e-9, "{g:?} vs {t:?}");
    }
}

#[test]
fn npz_coordinate_arrays_that_do_not_fit_are_refused() {
    let d = tmp_dir("npz-coords-bad");
    let elev: Vec<u8> = (0..12).flat_map(|i| (100.0 + i as f64).to_le_bytes()).collect();
    let f = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let cases: [(&str, Vec<f64>, Vec<f64>, &str); 7] = [
        ("short", vec![0.0, 1.0, 2.0], vec![0.0, 1.0, 2.0], "3 values, but the elevation has 4 columns"),
        ("zero", vec![5.0, 5.0, 5.0, 5.0], vec![0.0, 1.0, 2.0], "zero spacing"),
        ("uneven", vec![0.0, 1.0, 3.0, 4.0], vec![0.0, 1.0, 2.0], "not evenly spaced"),
        ("backwards", vec![0.0, 1.0, 0.5, 3.0], vec![0.0, 1.0, 2.0], "not evenly spaced"),
        ("nan", vec![0.0, f64::NAN, 2.0, 3.0], vec![0.0, 1.0, 2.0], "is NaN"),
        ("degrees", vec![0.0, 1.0, 2.0, 3.0], vec![90.0, 92.0, 94.0], "not degrees"),
        ("mixed", vec![0.0, 1.0, 2.0, 3.0], vec![0.0, 1.0, 2.0], "one is in degrees"),
    ];
    for (name, x, y, want) in cases {
        let (xn, yn) = match name {
            "degrees" => ("lon.npy", "lat.npy"),
            "mixed" => ("x.npy", "lat.npy"),
            _ => ("x.npy", "y.npy"),
        };
        let entries = [
            ("elevation.npy", npy("<f8", "(3, 4)", &elev)),
            (xn, npy("<f8", &format!("({},)", x.len()), &f(&x))),
            (yn, npy("<f8", &format!("({},)", y.len()), &f(&y))),
        ];
        let p = d.join(format!("{name}.npz"));
        std::fs::write(&p, zip_of(&entries, false)).unwrap();
        let e = read_npz_dem(&p).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains(&format!("{name}.npz")), "{name}: {e}");
    }
    // One axis only.
    let entries = [("elevation.npy", npy("<f8", "(3, 4)", &elev)), ("y.npy", npy("<f8", "(3,)", &f(&[0.0, 1.0, 2.0])))];
    let p = d.join("one.npz");
    std::fs::write(&p, zip_of(&entries, false)).unwrap();
    assert!(read_npz_dem(&p).unwrap_err().to_string().contains("without a coordinate array"));
}

/// Float32 coordinate arrays (as netCDF exports often store them) round a fine step by more
/// than 0.1 %: they are read as evenly spaced; an uneven float32 array is still refused.
#[test]
fn npz_float32_coordinates_are_evenly_spaced_at_their_precision() {
    let d = tmp_dir("npz-f32");
    let (w, h, step) = (240usize, 180usize, 1.0 / 1200.0);
    let elev: Vec<u8> = (0..w * h).flat_map(|i| (10.0 + (i % 7) as f64).to_le_bytes()).collect();
    let lon: Vec<f32> = (0..w).map(|c| (-123.9 + step * c as f64) as f32).collect();
    let lat: Vec<f32> = (0..h).map(|r| (49.4 - step * r as f64) as f32).collect();
    let f4 = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    // The rounding to float32 moves some steps by more than 0.1 % of the step.
    let worst = lon.windows(2).map(|p| ((p[1] - p[0]) as f64 - step).abs() / step).fold(0.0, f64::max);
    assert!(worst > 1e-3, "the test array should need the float32 tolerance ({worst})");
    let write = |name: &str, lon: &[f32]| {
        let entries = [
            ("elevation.npy", npy("<f8", &format!("({h}, {w})"), &elev)),
            ("lon.npy", npy("<f4", &format!("({w},)"), &f4(lon))),
            ("lat.npy", npy("<f4", &format!("({h},)"), &f4(&lat))),
        ];
        let p = d.join(name);
        std::fs::write(&p, zip_of(&entries, false)).unwrap();
        p
    };
    let dem = read_npz_dem(write("ok.npz", &lon)).unwrap();
    let t = dem.georef.unwrap();
    assert!((t.sx - step).abs() < 1e-7 && (t.sy - step).abs() < 1e-7, "{t:?}");
    assert!(matches!(dem.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }));
    let mut uneven = lon.clone();
    uneven[100] += (step * 0.2) as f32;
    let e = read_npz_dem(write("uneven.npz", &uneven)).unwrap_err().to_string();
    assert!(e.contains("not evenly spaced"), "{e}");
}

#[test]
fn jacksboro_npz_loads_with_its_spacing() {
    let dem = read_npz_dem(data("jacksboro_fault_dem.npz")).unwrap();
    let h = &dem.heights;
    assert_eq!((h.width(), h.height()), (403, 344));
    assert_eq!(h.min_max(), Some((236.0, 1076.0)));
    assert_eq!([*h.get(0, 0), *h.get(402, 0), *h.get(0, 343), *h.get(200, 100)], [483.0, 444.0, 545.0, 522.0]);
    let CrsKind::Geographic { centre_lat, .. } = dem.crs_kind else { panic!("{:?}", dem.crs_kind) };
    assert!((centre_lat - 36.5896).abs() < 1e-3, "{centre_lat}");
    // 3″ at 36.59° N: ≈ 74.6 m E-W, ≈ 92.5 m N-S.
    assert!((h.dx - 74.6).abs() < 0.3 && (h.dy - 92.5).abs() < 0.3, "{} {}", h.dx, h.dy);
    let all = read_npz(data("jacksboro_fault_dem.npz")).unwrap();
    let keys: Vec<&str> = all.keys().map(String::as_str).collect();
    assert_eq!(keys, ["dx", "dy", "elevation", "xmax", "xmin", "ymax", "ymin"]);
    assert_eq!(read_dem(data("jacksboro_fault_dem.npz")).unwrap(), dem);
}

/// Write a single-channel GeoTIFF with the given samples, geokeys and nodata.
fn geotiff<C>(
    path: &Path,
    (w, h): (u32, u32),
    samples: &[C::Inner],
    keys: &[u16],
    scale: [f64; 3],
    tie: [f64; 6],
    nodata: Option<&str>,
) where
    C: colortype::ColorType,
    [C::Inner]: tiff::encoder::TiffValue,
{
    let f = std::fs::File::create(path).unwrap();
    let mut enc = TiffEncoder::new(f).unwrap();
    let mut img = enc.new_image::<C>(w, h).unwrap();
    img.encoder().write_tag(Tag::ModelPixelScaleTag, &scale[..]).unwrap();
    img.encoder().write_tag(Tag::ModelTiepointTag, &tie[..]).unwrap();
    if !keys.is_empty() {
        img.encoder().write_tag(Tag::GeoKeyDirectoryTag, keys).unwrap();
    }
    if let Some(nd) = nodata {
        img.encoder().write_tag(Tag::GdalNodata, nd).unwrap();
    }
    img.write_data(samples).unwrap();
}

#[test]
fn crafted_geotiffs_of_each_sample_type_and_crs() {
    let dir = tmp_dir("geotiff");
    // Projected, UTM-like, feet for both axes and heights.
    let keys = [1, 1, 0, 4, 1024, 0, 1, 1, 3072, 0, 1, 32_613, 3076, 0, 1, 9002, 4099, 0, 1, 9002];
    let p = dir.join("i32.tif");
    let v: Vec<i32> = (0..12 * 10).map(|i| 1000 + i).collect();
    geotiff::<colortype::GrayI32>(&p, (12, 10), &v, &keys, [10.0, 20.0, 0.0], [0.0; 6], None);
    let dem = read_geotiff(&p).unwrap();
    assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: Some(32_613) });
    assert_eq!((dem.heights.dx, dem.heights.dy), (3.048, 6.096));
    assert_eq!(*dem.heights.get(1, 0), 1001.0 * 0.3048);
    // Geographic, float64 with NaN nodata, at 60° N: dx about half of dy.
    let keys = [1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326];
    let p = dir.join("f64.tif");
    let mut v: Vec<f64> = (0..20 * 20).map(|i| i as f64).collect();
    v[7] = f64::NAN;
    geotiff::<colortype::Gray64Float>(
        &p,
        (20, 20),
        &v,
        &keys,
        [0.01, 0.01, 0.0],
        [0.0, 0.0, 0.0, 10.0, 60.1, 0.0],
        Some("nan"),
    );
    let dem = read_geotiff(&p).unwrap();
    assert!(dem.heights.get(7, 0).is_nan());
    assert_eq!(dem.valid_count(), 399);
    let (mlon, mlat) = metres_per_degree(60.0);
    assert!((dem.heights.dx - 0.01 * mlon).abs() < 1e-6 && (dem.heights.dy - 0.01 * mlat).abs() < 1e-6);
    assert!((dem.heights.dx / dem.heights.dy - 0.5).abs() < 0.01);
    // The largest valid window avoids the NaN at (7, 0): rows 1..20 at full width.
    assert_eq!(crop_largest_valid(&dem.heights), Some((0, 1, 20, 19)));
    // uint16 with a nodata value.
    let p = dir.join("u16.tif");
    let v: Vec<u16> = (0..16 * 16).map(|i| if i % 2 == 0 { 9 } else { 500 }).collect();
    geotiff::<colortype::Gray16>(&p, (16, 16), &v, &[], [5.0, 5.0, 0.0], [0.0; 6], Some("9"));
    let dem = read_geotiff(&p).unwrap();
    assert_eq!((dem.crs_kind, dem.valid_count(), dem.heights.dx), (CrsKind::Unknown, 128, 5.0));
    // …but a checkerboard has no 8×8 valid window.
    let e = dem.crop_valid().unwrap_err();
    assert!(e.to_string().contains("u16.tif") && e.to_string().contains("too small"), "{e}");
}

#[test]
fn all_nodata_dem_is_refused() {
    let dir = tmp_dir("nodata");
    let p = dir.join("void.tif");
    let keys = [1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326];
    geotiff::<colortype::GrayI16>(
        &p,
        (8, 8),
        &[-32768i16; 64],
        &keys,
        [0.001, 0.001, 0.0],
        [0.0, 0.0, 0.0, 30.0, 40.0, 0.0],
        Some("-32768"),
    );
    let e = read_geotiff(&p).unwrap_err();
    assert!(matches!(e, IoError::AllNodata { cells: 64, .. }), "{e}");
    assert!(e.to_string().contains("void.tif") && e.to_string().contains("nodata"), "{e}");
    // NaN-only float32 TIFF too.
    let q = dir.join("nan.tif");
    write_tiff_f32(&q, &Grid::new(9, 9, f32::NAN)).unwrap();
    let e = read_geotiff(&q).unwrap_err();
    assert!(e.to_string().contains("nan.tif") && e.to_string().contains("all 81 cells"), "{e}");
    // Three-channel TIFFs are not DEMs.
    let r = dir.join("rgb.tif");
    let f = std::fs::File::create(&r).unwrap();
    TiffEncoder::new(f).unwrap().write_image::<colortype::RGB8>(2, 2, &[0u8; 12]).unwrap();
    let e = read_geotiff(&r).unwrap_err().to_string();
    assert!(e.contains("rgb.tif") && e.contains("3 samples per pixel"), "{e}");
}
