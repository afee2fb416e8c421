//! Cloud-Optimised GeoTIFF output (`write_geotiff_f32_opts`): read back bit for bit by our own
//! reader, overviews decoded by the `tiff` crate, and, where GDAL is installed (always in CI),
//! checked with `gdalinfo`, `gdal_translate` and GDAL's COG validator.

use bozkir_core::{geo::GeoTransform, Grid};
use bozkir_io::*;
use std::path::Path;
use std::process::Command;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;
mod common;
use common::TmpDir;
#[path = "common/gdal.rs"]
mod gdal;
use gdal::gdalinfo;

/// 1100 × 700 (neither side a multiple of 512): a smooth surface, scattered NaN cells and a
/// 4 × 4 NaN corner, so a first-overview cell can be all NaN.
fn grid() -> Grid<f32> {
    Grid::from_fn(1100, 700, |x, y| {
        if (x < 4 && y < 4) || (x * 7 + y * 13) % 97 == 0 {
            f32::NAN
        } else {
            1500.0 + 0.37 * x as f32 - 0.21 * y as f32 + 40.0 * ((x as f32) * 0.05).sin() * ((y as f32) * 0.03).cos()
        }
    })
}

fn georef() -> GeoRef {
    GeoRef {
        crs: Crs::Epsg { code: 32633, geographic: false },
        transform: GeoTransform { x0: 500_000.0, y0: 4_407_000.0, sx: 10.0, sy: 10.0 },
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Every image of a TIFF: `(width, height, tile width or 0, samples)`.
fn images(path: &Path) -> Vec<(u32, u32, u32, Vec<f32>)> {
    let mut dec = Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    loop {
        let (w, h) = dec.dimensions().unwrap();
        let tw = dec.find_tag_unsigned::<u32>(Tag::TileWidth).unwrap().unwrap_or(0);
        let DecodingResult::F32(v) = dec.read_image().unwrap() else { panic!("not float32") };
        out.push((w, h, tw, v));
        if !dec.more_images() {
            break;
        }
        dec.next_image().unwrap();
    }
    out
}

/// The mean of the non-NaN cells of each 2 × 2 block, cell by cell (NaN when none).
fn halved(v: &[f32], w: usize, h: usize) -> Vec<f32> {
    let (nw, nh) = (w.div_ceil(2), h.div_ceil(2));
    let mut out = vec![0.0; nw * nh];
    for (i, o) in out.iter_mut().enumerate() {
        let (x, y) = (i % nw, i / nw);
        let cells: Vec<f64> = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .iter()
            .map(|(dx, dy)| (2 * x + dx, 2 * y + dy))
            .filter(|&(a, b)| a < w && b < h)
            .map(|(a, b)| f64::from(v[b * w + a]))
            .filter(|c| !c.is_nan())
            .collect();
        *o = if cells.is_empty() { f32::NAN } else { (cells.iter().sum::<f64>() / cells.len() as f64) as f32 };
    }
    out
}

#[test]
fn cog_reads_back_bit_for_bit_with_its_overviews() {
    let dir = TmpDir::new("cog-roundtrip");
    let p = dir.join("cog.tif");
    let g = grid();
    write_geotiff_f32_opts(&p, &g, &georef(), &TiffOptions::cog()).unwrap();

    // Our readers: the full resolution, bit for bit, and the georeference.
    assert_eq!(bits(read_tiff_f32(&p).unwrap().data()), bits(g.data()));
    let dem = read_geotiff(&p).unwrap();
    assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: Some(32633) });
    assert_eq!(dem.georef, Some(georef().transform));
    assert!(dem.nodata.is_some_and(f64::is_nan));

    // Three images: 1100×700, 550×350, 275×175 (the first that fits one 512 tile), all tiled.
    let imgs = images(&p);
    let dims: Vec<_> = imgs.iter().map(|i| (i.0, i.1, i.2)).collect();
    assert_eq!(dims, [(1100, 700, 512), (550, 350, 512), (275, 175, 512)]);
    let ovr1 = halved(g.data(), 1100, 700);
    assert_eq!(bits(&imgs[1].3), bits(&ovr1));
    assert_eq!(bits(&imgs[2].3), bits(&halved(&ovr1, 550, 350)));
    // The NaN corner gives all-NaN first-overview cells; a cell with one NaN of four averages three.
    assert!(imgs[1].3[0].is_nan() && imgs[1].3[1].is_nan() && !imgs[1].3[2].is_nan());
    assert!(g.get(12, 1).is_nan() && !g.get(12, 0).is_nan() && !g.get(13, 0).is_nan() && !g.get(13, 1).is_nan());
    let o = imgs[1].3[6];
    let three = [g.get(12, 0), g.get(13, 0), g.get(13, 1)].map(|v| f64::from(*v));
    assert_eq!(o, (three.iter().sum::<f64>() / 3.0) as f32);

    // Same bytes again (deterministic), and the classic-TIFF magic (BigTIFF only on request).
    let q = dir.join("again.tif");
    write_geotiff_f32_opts(&q, &g, &georef(), &TiffOptions::cog()).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(bytes, std::fs::read(&q).unwrap());
    assert_eq!(&bytes[..4], b"II*\0");
    // DEFLATE with the predictor is smaller than the raw samples.
    assert!(bytes.len() < 1100 * 700 * 4, "{} bytes", bytes.len());
}

#[test]
fn other_option_sets_keep_the_samples_and_bad_ones_write_nothing() {
    let dir = TmpDir::new("cog-options");
    let g = grid();
    let cases = [
        ("strips.tif", TiffOptions::strips()),
        ("deflate.tif", TiffOptions { compression: TiffCompression::Deflate { level: 1 }, ..TiffOptions::strips() }),
        (
            "pred.tif",
            TiffOptions {
                compression: TiffCompression::Deflate { level: 9 },
                predictor: TiffPredictor::FloatingPoint,
                ..TiffOptions::strips()
            },
        ),
        (
            "raw-cog.tif",
            TiffOptions { compression: TiffCompression::None, predictor: TiffPredictor::None, ..TiffOptions::cog() },
        ),
        ("big-cog.tif", TiffOptions { bigtiff: true, tile_size: 256, ..TiffOptions::cog() }),
    ];
    for (name, opts) in cases {
        let p = dir.join(name);
        write_geotiff_f32_opts(&p, &g, &georef(), &opts).unwrap();
        assert_eq!(bits(read_tiff_f32(&p).unwrap().data()), bits(g.data()), "{name}");
        assert_eq!(read_geotiff(&p).unwrap().georef, Some(georef().transform), "{name}");
    }
    assert_eq!(&std::fs::read(dir.join("big-cog.tif")).unwrap()[..4], b"II+\0");
    // 256 tiles: overviews down to 275×175 → 138×88 (fits 256).
    let dims: Vec<_> = images(&dir.join("big-cog.tif")).iter().map(|i| (i.0, i.1, i.2)).collect();
    assert_eq!(dims, [(1100, 700, 256), (550, 350, 256), (275, 175, 256), (138, 88, 256)]);
    // A grid within one tile has no overview.
    let small = Grid::from_fn(300, 200, |x, y| (x + y) as f32);
    let p = dir.join("small.tif");
    write_geotiff_f32_opts(&p, &small, &georef(), &TiffOptions::cog()).unwrap();
    assert_eq!(images(&p).len(), 1);

    let p = dir.join("bad.tif");
    for (opts, says) in [
        (TiffOptions { tile_size: 500, ..TiffOptions::cog() }, "tile size 500"),
        (TiffOptions { compression: TiffCompression::None, ..TiffOptions::cog() }, "predictor"),
        (TiffOptions { compression: TiffCompression::Deflate { level: 12 }, ..TiffOptions::cog() }, "level 12"),
    ] {
        let e = write_geotiff_f32_opts(&p, &g, &georef(), &opts).unwrap_err();
        assert!(matches!(e, IoError::InvalidArgument { .. }) && e.to_string().contains(says), "{e}");
        assert!(!p.exists());
    }
}

/// A Python that has GDAL's `osgeo_utils` (the COG validator's package), if any.
fn python_with_gdal() -> Option<&'static str> {
    ["python3", "/usr/bin/python3"].into_iter().find(|py| {
        Command::new(py)
            .args(["-c", "import osgeo_utils.samples.validate_cloud_optimized_geotiff"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn gdal_reads_the_cog_and_its_validator_accepts_it() {
    let dir = TmpDir::new("cog-gdal");
    let p = dir.join("cog.tif");
    let g = grid();
    write_geotiff_f32_opts(&p, &g, &georef(), &TiffOptions::cog()).unwrap();
    let Some(info) = gdalinfo(&p) else { return };

    assert_eq!(info["size"], serde_json::json!([1100, 700]), "{info:#}");
    let gt: Vec<f64> = info["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(gt, georef().gdal_transform());
    let wkt = info["coordinateSystem"]["wkt"].as_str().unwrap();
    assert!(wkt.contains("ID[\"EPSG\",32633]]") || wkt.ends_with("ID[\"EPSG\",32633]]"), "{wkt}");
    assert!(wkt.contains("WGS 84 / UTM zone 33N"), "{wkt}");
    let band = &info["bands"][0];
    assert_eq!(band["type"], "Float32");
    assert_eq!(band["block"], serde_json::json!([512, 512]));
    assert!(band["noDataValue"].as_str().is_some_and(|s| s.eq_ignore_ascii_case("nan")), "{band:#}");
    let ovr: Vec<_> = band["overviews"].as_array().unwrap().iter().map(|o| o["size"].clone()).collect();
    assert_eq!(ovr, [serde_json::json!([550, 350]), serde_json::json!([275, 175])]);
    let st = &info["metadata"]["IMAGE_STRUCTURE"];
    assert_eq!((st["COMPRESSION"].as_str(), st["PREDICTOR"].as_str()), (Some("DEFLATE"), Some("3")), "{st:#}");
    assert_eq!(st["LAYOUT"].as_str(), Some("COG"), "{st:#}");

    // GDAL's own decoding, through a plain copy, gives the same samples, bit for bit.
    let plain = dir.join("plain.tif");
    let o = Command::new("gdal_translate").args(["-q", "-co", "COMPRESS=NONE"]).arg(&p).arg(&plain).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bits(read_tiff_f32(&plain).unwrap().data()), bits(g.data()));
    let back = read_geotiff(&plain).unwrap();
    assert_eq!((back.crs_kind, back.georef), (CrsKind::Projected { epsg: Some(32633) }, Some(georef().transform)));
    // And its first overview is ours.
    let ovr0 = dir.join("ovr0.tif");
    let o = Command::new("gdal_translate").args(["-q", "-ovr", "0"]).arg(&p).arg(&ovr0).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bits(read_tiff_f32(&ovr0).unwrap().data()), bits(&halved(g.data(), 1100, 700)));

    // The default plain strips (every `.tif` of a folder) read the same through GDAL.
    let strips = dir.join("strips.tif");
    write_geotiff_f32(&strips, &g, &georef()).unwrap();
    let info = gdalinfo(&strips).unwrap();
    assert_eq!(info["bands"][0]["block"], serde_json::json!([1100, 14]), "{info:#}");
    assert!(info["metadata"]["IMAGE_STRUCTURE"].get("COMPRESSION").is_none(), "{info:#}");
    let gt: Vec<f64> = info["geoTransform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(gt, georef().gdal_transform());
    let copy = dir.join("strips-copy.tif");
    let o = Command::new("gdal_translate")
        .args(["-q", "-co", "COMPRESS=DEFLATE"])
        .arg(&strips)
        .arg(&copy)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bits(read_tiff_f32(&copy).unwrap().data()), bits(g.data()));

    // The validator, on this COG and on a BigTIFF one with 256 tiles (three overviews).
    let big = dir.join("big.tif");
    write_geotiff_f32_opts(&big, &g, &georef(), &TiffOptions { bigtiff: true, tile_size: 256, ..TiffOptions::cog() })
        .unwrap();
    let info = gdalinfo(&big).unwrap();
    assert_eq!(info["bands"][0]["block"], serde_json::json!([256, 256]), "{info:#}");
    assert_eq!(info["bands"][0]["overviews"].as_array().map(Vec::len), Some(3), "{info:#}");
    match python_with_gdal() {
        Some(py) => {
            for f in [&p, &big] {
                let o = Command::new(py)
                    .args(["-m", "osgeo_utils.samples.validate_cloud_optimized_geotiff", "--full-check=yes"])
                    .arg(f)
                    .output()
                    .unwrap();
                let said = String::from_utf8_lossy(&o.stdout);
                assert!(o.status.success() && said.contains("is a valid cloud optimized GeoTIFF"), "{said}");
            }
        }
        None => eprintln!("GDAL's COG validator (osgeo_utils) not found: not run"),
    }
}
