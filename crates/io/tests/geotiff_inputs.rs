//! GeoTIFF DEMs as GDAL writes them: tiled, DEFLATE/LZW/PackBits compressed with predictors 2
//! and 3, BigTIFF, big-endian, a GDAL COG with overviews; int16, uint16, float32 and float64.
//! Each is a copy of one window of a real DEM (`tests/data/geotiff/README.md` says how each was
//! made) and must read as the plain file does: the same heights bit for bit, the same
//! georeference.

use bozkir_io::*;
use std::path::{Path, PathBuf};
use tiff::decoder::Decoder;
use tiff::tags::Tag;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/geotiff").join(name)
}

fn bits(d: &Dem) -> Vec<u64> {
    d.heights.data().iter().map(|v| v.to_bits()).collect()
}

/// The same heights, bit for bit (the first difference is reported, not the whole grids).
fn assert_same(a: &Dem, b: &Dem, what: &str) {
    assert_eq!((a.heights.width(), a.heights.height()), (b.heights.width(), b.heights.height()), "{what}");
    let (x, y) = (bits(a), bits(b));
    if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
        let w = a.heights.width();
        panic!("{what}: cell ({}, {}) is {} instead of {}", i % w, i / w, a.heights.data()[i], b.heights.data()[i]);
    }
}

/// What the file's first IFD says: (BigTIFF, big-endian, tiled, Compression, Predictor,
/// BitsPerSample, SampleFormat, number of images).
fn layout(path: &Path) -> (bool, bool, bool, u16, u16, u16, u16, usize) {
    let head = std::fs::read(path).unwrap();
    let big_endian = &head[..2] == b"MM";
    let version =
        if big_endian { u16::from_be_bytes([head[2], head[3]]) } else { u16::from_le_bytes([head[2], head[3]]) };
    let mut dec = Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
    let tag = |dec: &mut Decoder<std::fs::File>, t| dec.find_tag_unsigned::<u16>(t).unwrap().unwrap_or(1);
    let tiled = dec.find_tag(Tag::TileWidth).unwrap().is_some();
    let (c, p, b, f) = (
        tag(&mut dec, Tag::Compression),
        tag(&mut dec, Tag::Predictor),
        tag(&mut dec, Tag::BitsPerSample),
        tag(&mut dec, Tag::SampleFormat),
    );
    let mut images = 1;
    while dec.more_images() {
        dec.next_image().unwrap();
        images += 1;
    }
    (version == 43, big_endian, tiled, c, p, b, f, images)
}

#[test]
fn srtm_window_reads_the_same_in_every_layout_and_sample_type() {
    let plain = read_geotiff(data("srtm_i16_plain.tif")).unwrap();
    // The window (400, 300) of data/dem/srtm_ref.tif, 160 × 120, pinned with GDAL's own reading:
    // corners 1461 and 1712, range 1431..2289.
    let h = &plain.heights;
    assert_eq!((h.width(), h.height()), (160, 120));
    assert_eq!((*h.get(0, 0), *h.get(159, 119), h.min_max()), (1461.0, 1712.0, Some((1431.0, 2289.0))));
    let t = plain.georef.unwrap();
    assert!((t.x0 - (40.0 + 400.0 / 1200.0)).abs() < 1e-12 && (t.y0 - 39.75).abs() < 1e-12, "{t:?}");
    assert!(matches!(plain.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }));
    assert_eq!(plain.nodata, Some(-32768.0));
    assert_eq!(layout(&data("srtm_i16_plain.tif")), (false, false, false, 1, 1, 16, 2, 1));

    // (file, BigTIFF, big-endian, tiled, compression, predictor, bits, sample format, images)
    let variants = [
        ("srtm_i16_tiled_deflate_p2.tif", (false, false, true, 8, 2, 16, 2, 1)),
        ("srtm_i16_lzw_p2_bigtiff.tif", (true, false, false, 5, 2, 16, 2, 1)),
        ("srtm_i16_tiled_packbits.tif", (false, false, true, 32773, 1, 16, 2, 1)),
        ("srtm_f32_tiled_deflate_p3_bigtiff.tif", (true, false, true, 8, 3, 32, 3, 1)),
        ("srtm_i16_be_tiled_lzw_p2.tif", (false, true, true, 5, 2, 16, 2, 1)),
        ("srtm_f64_tiled_lzw_p3.tif", (false, false, true, 5, 3, 64, 3, 1)),
        ("srtm_f32_gdal_cog.tif", (false, false, true, 8, 3, 32, 3, 3)),
    ];
    for (name, want) in variants {
        let path = data(name);
        assert_eq!(layout(&path), want, "{name}: not the layout its name says");
        let d = read_geotiff(&path).unwrap();
        assert_same(&d, &plain, name);
        assert_eq!((d.heights.dx, d.heights.dy), (plain.heights.dx, plain.heights.dy), "{name}");
        assert_eq!((d.crs_kind, d.georef, d.nodata), (plain.crs_kind, plain.georef, plain.nodata), "{name}");
        assert_eq!(d.output_georef(), plain.output_georef(), "{name}");
    }
}

#[test]
fn nodata_of_a_compressed_float_file_is_matched_in_float32() {
    let plain = read_geotiff(data("srtm_i16_plain.tif")).unwrap();
    let path = data("srtm_f32_nodata1445_tiled_deflate_p3.tif");
    assert_eq!(layout(&path), (false, false, true, 8, 3, 32, 3, 1));
    let d = read_geotiff(&path).unwrap();
    assert_eq!(d.nodata, Some(1445.0));
    let mut holes = 0;
    for (a, b) in d.heights.data().iter().zip(plain.heights.data()) {
        if *b == 1445.0 {
            holes += 1;
            assert!(a.is_nan());
        } else {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }
    // GDAL counts 203 cells of 1445 m in the window.
    assert_eq!(holes, 203);
    assert_eq!(d.georef, plain.georef);
}

#[test]
fn rmnp_uint16_tiled_deflate_reads_as_the_lzw_strips_original() {
    let original = read_geotiff(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem/rmnp-dem.tif")).unwrap();
    let path = data("rmnp_u16_tiled_deflate_p2.tif");
    assert_eq!(layout(&path), (false, false, true, 8, 2, 16, 1, 1));
    let d = read_geotiff(&path).unwrap();
    assert_same(&d, &original, "rmnp");
    assert_eq!((d.crs_kind, d.georef, d.nodata), (original.crs_kind, original.georef, Some(65535.0)));
    assert_eq!((d.heights.dx, d.heights.dy), (original.heights.dx, original.heights.dy));
}

#[test]
fn a_real_dem_goes_out_as_a_cog_and_back_unchanged() {
    // Read a GDAL COG, write it as our COG with its georeference, read it back.
    let d = read_geotiff(data("srtm_f32_gdal_cog.tif")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.tif");
    let g = d.heights.map(|&v| v as f32);
    let geo = d.output_georef().unwrap();
    write_geotiff_f32_opts(&p, &g, &geo, &TiffOptions { tile_size: 64, ..TiffOptions::cog() }).unwrap();
    let back = read_geotiff(&p).unwrap();
    assert_same(&back, &d, "our COG");
    assert_eq!((back.crs_kind, back.georef), (d.crs_kind, d.georef));
    assert_eq!(layout(&p), (false, false, true, 8, 3, 32, 3, 3));
}

#[test]
fn big_endian_floating_point_predictor_is_refused_not_misread() {
    // The `tiff` crate 0.9 returns some of its blocks byte-swapped (1461 m read as 1.5e-38).
    let path = data("srtm_f32_be_tiled_deflate_p3.tif");
    assert_eq!(layout(&path), (false, true, true, 8, 3, 32, 3, 1));
    let e = read_geotiff(&path).unwrap_err();
    assert!(matches!(e, IoError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("big-endian TIFF with the floating-point predictor"), "{e}");
    assert!(read_tiff_f32(&path).is_err());
}
