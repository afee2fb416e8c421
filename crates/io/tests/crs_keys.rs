//! Inputs whose CRS has no EPSG code (a user-defined Lambert Conformal Conic, a geographic CRS
//! on its own ellipsoid): their GeoKeys are carried verbatim into every GeoTIFF written from
//! them, so our reader and GDAL read the same CRS from the output as from the input. The inputs
//! were written by GDAL (`data/geotiff/README.md`).

use bozkir_core::{geo::GeoTransform, Grid};
use bozkir_io::*;
use std::path::{Path, PathBuf};
mod common;
use common::TmpDir;
#[path = "common/gdal.rs"]
mod gdal;

fn input(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/geotiff").join(name)
}

const LCC: &str = "lcc_custom_i16.tif";
const GEOG: &str = "geog_custom_ellps_i16_point.tif";

fn double(k: &GeoKeySet, id: u16) -> f64 {
    match k.get(id) {
        Some(GeoKeyValue::Double(d)) if d.len() == 1 => d[0],
        other => panic!("key {id}: {other:?}"),
    }
}

#[test]
fn user_defined_crs_are_read_with_their_keys_and_named() {
    let lcc = read_geotiff(input(LCC)).unwrap();
    assert_eq!(lcc.crs_kind, CrsKind::Projected { epsg: None });
    let g = lcc.output_georef().unwrap();
    let Crs::Keys(k) = &g.crs else { panic!("{:?}", g.crs) };
    // The projection GDAL was given: LCC 2SP (ProjCoordTransGeoKey 8), parallels 37 and 41,
    // false origin 35° E 39° N at (500 000, 300 000) m, on WGS 84.
    assert_eq!(
        (k.short(1024), k.short(3072), k.short(3075), k.short(3076)),
        (Some(1), Some(32767), Some(8), Some(9001))
    );
    let params: Vec<f64> = [3078, 3079, 3084, 3085, 3086, 3087].iter().map(|&id| double(k, id)).collect();
    assert_eq!(params, [37.0, 41.0, 35.0, 39.0, 500_000.0, 300_000.0]);
    assert_eq!((double(k, 2057), double(k, 2059)), (6_378_137.0, 298.257_223_563));
    // The raster type is not carried (outputs are PixelIsArea); the citation names the CRS.
    assert!(lcc.geokeys.as_ref().unwrap().short(1025).is_some() && k.get(1025).is_none());
    assert_eq!(g.crs.name(), "Anatolia custom LCC");
    assert_eq!(g.transform, GeoTransform { x0: 512_000.0, y0: 318_000.0, sx: 30.0, sy: 30.0 });

    // PixelIsPoint: the tie point names the centre of the top-left pixel, the transform its outer
    // corner (as GDAL reports it), half a pixel up and left.
    let geog = read_geotiff(input(GEOG)).unwrap();
    assert!(matches!(geog.crs_kind, CrsKind::Geographic { epsg: None, .. }), "{:?}", geog.crs_kind);
    assert_eq!(geog.geokeys.as_ref().unwrap().short(1025), Some(2));
    let g = geog.output_georef().unwrap();
    assert!(g.crs.is_geographic());
    let Crs::Keys(k) = &g.crs else { panic!("{:?}", g.crs) };
    assert_eq!((double(k, 2057), double(k, 2059)), (6_378_300.0, 296.5));
    assert_eq!(g.crs.name(), "Custom ellipsoid geographic");
    let t = g.transform;
    assert!((t.x0 - 32.5).abs() < 1e-12 && (t.y0 - 39.9).abs() < 1e-12 && t.sx == 0.001, "{t:?}");
}

#[test]
fn outputs_carry_the_same_keys_and_gdal_reads_the_same_crs() {
    let dir = TmpDir::new("crs-keys");
    for name in [LCC, GEOG] {
        let src = read_geotiff(input(name)).unwrap();
        let geo = src.output_georef().unwrap();
        let g = src.heights.map(|&v| v as f32);
        for (tag, opts) in
            [("strips", TiffOptions::strips()), ("cog", TiffOptions { tile_size: 16, ..TiffOptions::cog() })]
        {
            let out = dir.join(format!("{tag}-{name}"));
            write_geotiff_f32_opts(&out, &g, &geo, &opts).unwrap();
            let back = read_geotiff(&out).unwrap();
            // Read → write → read: the same key set, plus PixelIsArea, and the same CRS, kind,
            // transform and cell size.
            let keys = back.geokeys.as_ref().unwrap();
            let want = src.geokeys.as_ref().unwrap().horizontal();
            assert_eq!(keys.short(1025), Some(1), "{out:?}");
            assert_eq!(keys.horizontal(), want, "{out:?}");
            assert_eq!(back.output_georef(), Some(geo.clone()), "{out:?}");
            assert_eq!(
                (back.crs_kind, back.heights.dx, back.heights.dy),
                (src.crs_kind, src.heights.dx, src.heights.dy)
            );
            // A second write of the read-back file gives the same bytes.
            let again = dir.join(format!("again-{tag}-{name}"));
            write_geotiff_f32_opts(&again, &g, &back.output_georef().unwrap(), &opts).unwrap();
            assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap(), "{out:?}");

            // GDAL: the same CRS (the whole WKT), the same geotransform.
            let (Some(wkt_in), Some(wkt_out)) = (gdal::gdal_wkt(&input(name)), gdal::gdal_wkt(&out)) else { return };
            assert!(!wkt_in.is_empty() && !wkt_in.contains("EPSG\",32767"), "{wkt_in}");
            assert_eq!(wkt_out, wkt_in, "{out:?}");
            assert_eq!(gdal::gdal_transform(&out), gdal::gdal_transform(&input(name)), "{out:?}");
            let info = gdal::gdalinfo(&out).unwrap();
            assert_eq!(info["metadata"][""]["AREA_OR_POINT"], "Area", "{out:?}");
        }
    }
}

#[test]
fn a_window_keeps_the_keys_and_a_bozkir_local_frame_stays_local() {
    let src = read_geotiff(input(LCC)).unwrap();
    let geo = src.output_georef().unwrap();
    let w = geo.window(3, 2);
    assert_eq!(w.crs, geo.crs);
    assert_eq!((w.transform.x0, w.transform.y0), (512_090.0, 317_940.0));
    // Our own local-frame output read back is the local frame again, not a key set.
    let dir = TmpDir::new("crs-local");
    let p = dir.join("local.tif");
    write_geotiff_f32(&p, &Grid::from_fn(4, 4, |x, y| (x + y) as f32), &GeoRef::local((0.0, 0.0), 4, 2.0, 2.0))
        .unwrap();
    assert_eq!(read_geotiff(&p).unwrap().output_georef().unwrap().crs, Crs::Local);
}

#[test]
fn keys_pointing_outside_their_parameters_are_refused_naming_the_file() {
    let dir = TmpDir::new("crs-bad");
    let bytes = std::fs::read(input(LCC)).unwrap();
    // GTCitationGeoKey: [1026, 34737, 20, 0] ("Anatolia custom LCC|"); make it 200 long.
    let entry: Vec<u8> = [1026u16, 34737, 20, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let at = bytes.windows(8).position(|w| w == entry).expect("the citation key");
    for (i, (count, loc)) in [(200u16, 34737u16), (20, 34800)].into_iter().enumerate() {
        let mut b = bytes.clone();
        b[at + 2..at + 4].copy_from_slice(&loc.to_le_bytes());
        b[at + 4..at + 6].copy_from_slice(&count.to_le_bytes());
        let p = dir.join(format!("bad{i}.tif"));
        std::fs::write(&p, &b).unwrap();
        let e = read_geotiff(&p).unwrap_err().to_string();
        assert!(e.contains(&format!("bad{i}.tif")) && e.contains("GeoKey 1026"), "{e}");
    }
}
