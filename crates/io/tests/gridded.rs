//! NetCDF and Zarr DEMs: the fixtures of `data/dem/gridded/` (written by xarray, netCDF4,
//! scipy and zarr-python through `scripts/make_gridded_fixtures.py`) against the NPZ reader on
//! the same Jacksboro grid, a packed projected grid with a void, and refusals.

use bozkir_io::gridded::{read_netcdf_dem, read_zarr_dem};
use bozkir_io::*;
mod common;
use common::TmpDir;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem").join(name)
}

fn gridded(name: &str) -> PathBuf {
    data("gridded").join(name)
}

/// The Jacksboro NPZ's heights (north-first rows) at the fixtures' placement: columns from
/// −84.4° east, rows from 36.73° south, 3″ steps.
fn jacksboro() -> Vec<f64> {
    read_npz_dem(data("jacksboro_fault_dem.npz")).unwrap().heights.data().to_vec()
}

#[test]
fn every_gridded_format_reads_the_jacksboro_grid_north_up() {
    let reference = jacksboro();
    let step = 1.0 / 1200.0;
    let first = read_dem(gridded("jacksboro_nc4.nc")).unwrap();
    for name in ["jacksboro_nc4.nc", "jacksboro_classic.nc", "jacksboro_v2.zarr", "jacksboro_v3.zarr"] {
        let dem = read_dem(gridded(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((dem.heights.width(), dem.heights.height()), (403, 344), "{name}");
        // South-first rows in the file, north-first here: every cell equal to the NPZ's.
        assert_eq!(dem.heights.data(), &reference[..], "{name}");
        assert!(matches!(dem.crs_kind, CrsKind::Geographic { epsg: Some(4326), .. }), "{name}: {:?}", dem.crs_kind);
        let t = dem.georef.unwrap();
        assert!((t.x0 - (-84.4 - step / 2.0)).abs() < 1e-9, "{name}: {t:?}");
        assert!((t.y0 - (36.73 + step / 2.0)).abs() < 1e-9, "{name}: {t:?}");
        assert!((t.sx - step).abs() < 1e-12 && (t.sy - step).abs() < 1e-12, "{name}: {t:?}");
        // Metric cells at the centre latitude 36.587°: ≈ 74.4 m east-west, 92.5 m north-south.
        assert!((dem.heights.dx - 74.4).abs() < 0.2 && (dem.heights.dy - 92.5).abs() < 0.2, "{name}");
        assert_eq!((dem.heights.dx, dem.heights.dy), (first.heights.dx, first.heights.dy), "{name}");
        let out = dem.output_georef().unwrap();
        assert_eq!(out.crs, Crs::Epsg { code: 4326, geographic: true }, "{name}");
    }
}

#[test]
fn packed_projected_netcdf_is_unpacked_masked_and_keeps_its_epsg() {
    let dem = read_netcdf_dem(gridded("packed_utm.nc")).unwrap();
    let h = &dem.heights;
    assert_eq!((h.width(), h.height()), (80, 60));
    assert_eq!((h.dx, h.dy), (30.0, 30.0));
    assert_eq!(dem.crs_kind, CrsKind::Projected { epsg: Some(32616) });
    let t = dem.georef.unwrap();
    assert_eq!((t.x0, t.y0, t.sx, t.sy), (500_000.0, 4_070_000.0, 30.0, 30.0));
    assert_eq!(dem.output_georef().unwrap().crs, Crs::Epsg { code: 32616, geographic: false });
    // The 12 × 9 void (rows 20..29, columns 30..42) is NaN and nothing else is.
    let nan: Vec<(usize, usize)> =
        (0..60).flat_map(|r| (0..80).map(move |c| (r, c))).filter(|&(r, c)| h.get(c, r).is_nan()).collect();
    assert_eq!(nan.len(), 108);
    assert!(nan.iter().all(|&(r, c)| (20..29).contains(&r) && (30..42).contains(&c)));
    // Unpacked: stored = round((z + 0.25 − 100) / 0.1), so every valid cell is the source height
    // plus 0.25 m to within the packing's half step.
    let reference = jacksboro();
    for r in 0..60 {
        for c in 0..80 {
            let v = h.get(c, r);
            if v.is_finite() {
                let want = reference[r * 403 + c] + 0.25;
                assert!((v - want).abs() <= 0.05 + 1e-9, "({c}, {r}): {v} vs {want}");
            }
        }
    }
    assert_eq!(dem.nodata, Some(-32768.0));
}

#[test]
fn gridded_files_that_do_not_fit_are_refused_naming_the_problem() {
    let refused = |p: PathBuf| read_dem(&p).err().unwrap_or_else(|| panic!("{} was accepted", p.display())).to_string();
    let e = refused(gridded("uneven_lat.nc"));
    assert!(e.contains("uneven_lat.nc") && e.contains("lat: not evenly spaced"), "{e}");
    let e = refused(gridded("furlongs.nc"));
    assert!(e.contains("furlong") && e.contains("height units"), "{e}");
    let e = refused(gridded("two_grids.nc"));
    assert!(e.contains("elevation array") && e.contains("a [4, 5]") && e.contains("b [4, 5]"), "{e}");

    let d = TmpDir::new("gridded-hostile");
    // Not NetCDF at all, empty, and a NetCDF-4 file cut in half.
    let fake = d.join("fake.nc");
    std::fs::write(&fake, b"this is not a netcdf file, only text").unwrap();
    let e = refused(fake);
    assert!(e.contains("fake.nc") && e.contains("NetCDF"), "{e}");
    let empty = d.join("empty.nc");
    std::fs::write(&empty, b"").unwrap();
    assert!(refused(empty).contains("empty.nc"));
    for name in ["jacksboro_nc4.nc", "jacksboro_classic.nc"] {
        let bytes = std::fs::read(gridded(name)).unwrap();
        for cut in [8, 100, bytes.len() / 2, bytes.len() - 1] {
            let p = d.join(format!("cut-{cut}-{name}"));
            std::fs::write(&p, &bytes[..cut]).unwrap();
            let e = refused(p);
            assert!(e.contains(&format!("cut-{cut}-{name}")), "{e}");
        }
    }
    // A Zarr store without metadata, one whose chunk is damaged, and a file named .zarr.
    let bare = d.join("bare.zarr");
    std::fs::create_dir_all(&bare).unwrap();
    assert!(refused(bare).contains("bare.zarr"));
    let broken = d.join("broken.zarr");
    copy_dir(&gridded("jacksboro_v2.zarr"), &broken);
    std::fs::write(broken.join("elevation").join("0.0"), b"garbage").unwrap();
    let e = refused(broken);
    assert!(e.contains("broken.zarr") && e.contains("elevation"), "{e}");
    // A store found by its metadata, whatever the folder's name.
    let plain = d.join("plain-folder");
    copy_dir(&gridded("jacksboro_v3.zarr"), &plain);
    assert!(is_zarr_store(&plain));
    assert_eq!(read_dem(&plain).unwrap().heights, read_zarr_dem(gridded("jacksboro_v3.zarr")).unwrap().heights);
    let file = d.join("file.zarr");
    std::fs::write(&file, b"{}").unwrap();
    assert!(refused(file).contains("directory"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn damaged_bytes_give_errors_or_values_never_a_crash() {
    // Every 97th byte of a NetCDF-4, a classic file and each Zarr store's first elevation chunk
    // flipped in turn: each read returns (an error or some heights); none panics or hangs.
    let d = TmpDir::new("gridded-flip");
    let mut reads = 0;
    for name in ["jacksboro_nc4.nc", "jacksboro_classic.nc"] {
        let bytes = std::fs::read(gridded(name)).unwrap();
        let p = d.join(name);
        for at in (0..bytes.len()).step_by(97).take(400) {
            let mut b = bytes.clone();
            b[at] ^= 0xA5;
            std::fs::write(&p, &b).unwrap();
            let _ = read_dem(&p);
            reads += 1;
        }
    }
    for (store, chunk) in [("jacksboro_v2.zarr", "elevation/0.0"), ("jacksboro_v3.zarr", "elevation/c/0/0")] {
        let p = d.join(store);
        copy_dir(&gridded(store), &p);
        let bytes = std::fs::read(gridded(store).join(chunk)).unwrap();
        for at in (0..bytes.len()).step_by(97).take(400) {
            let mut b = bytes.clone();
            b[at] ^= 0xA5;
            std::fs::write(p.join(chunk), &b).unwrap();
            let _ = read_dem(&p);
            reads += 1;
        }
        // Metadata cut short.
        let md = if store.contains("v2") { "elevation/.zarray" } else { "elevation/zarr.json" };
        let text = std::fs::read(gridded(store).join(md)).unwrap();
        std::fs::write(p.join(md), &text[..text.len() / 2]).unwrap();
        let e = read_dem(&p).unwrap_err().to_string();
        assert!(e.contains(store) && e.contains("elevation"), "{e}");
    }
    assert!(reads > 400);
}

#[test]
fn zarr_codecs_byte_orders_edge_chunks_and_unwritten_chunks() {
    // zlib (v2) and gzip + crc32c over big-endian bytes (v3); 60 × 80 in 32 × 32 chunks, so the
    // edge chunks are partial; the last chunk holds only the fill value and was never written.
    let reference = jacksboro();
    let a = read_dem(gridded("codecs_v2_zlib.zarr")).unwrap();
    let b = read_dem(gridded("codecs_v3_gzip_crc_be.zarr")).unwrap();
    for dem in [&a, &b] {
        let h = &dem.heights;
        assert_eq!((h.width(), h.height(), h.dx, h.dy), (80, 60, 30.0, 30.0));
        assert_eq!(dem.crs_kind, CrsKind::Unknown);
        let t = dem.georef.unwrap();
        assert_eq!((t.x0, t.y0), (500_000.0, 4_070_000.0));
        for r in 0..60 {
            for c in 0..80 {
                let v = *h.get(c, r);
                if r >= 32 && c >= 64 {
                    assert!(v.is_nan(), "({c}, {r}) = {v}: the unwritten chunk is fill, a void");
                } else {
                    assert_eq!(v, reference[r * 403 + c], "({c}, {r})");
                }
            }
        }
    }
    // A damaged checksum is caught.
    let d = TmpDir::new("gridded-crc");
    let p = d.join("crc.zarr");
    copy_dir(&gridded("codecs_v3_gzip_crc_be.zarr"), &p);
    let chunk = p.join("elevation/c/0/0");
    let mut bytes = std::fs::read(&chunk).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    std::fs::write(&chunk, &bytes).unwrap();
    let e = read_dem(&p).unwrap_err().to_string();
    assert!(e.contains("crc32c") && e.contains("elevation"), "{e}");
}
