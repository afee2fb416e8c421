//! GDAL as the peer of the integration tests of `bozkir-io` and the CLI (included by `#[path]`
//! from both crates' tests): `gdalinfo -json` of a file, skipped where GDAL is not installed,
//! except under `CI=true` (where `.ci/run` installs it), where that is a failure.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// `gdalinfo -json` of `path`, or `None` where GDAL is not installed (a failure under `CI=true`).
pub fn gdalinfo(path: &Path) -> Option<serde_json::Value> {
    match Command::new("gdalinfo").arg("-json").arg(path).output() {
        Ok(o) => {
            assert!(o.status.success(), "gdalinfo {}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
            Some(serde_json::from_slice(&o.stdout).expect("gdalinfo JSON"))
        }
        Err(e) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(!ci, "CI=true and gdalinfo cannot run: {e}");
            eprintln!("skipping the GDAL checks: gdalinfo not found ({e})");
            None
        }
    }
}

/// The CRS GDAL reads from `path`, as WKT 2 (`gdalinfo`'s `coordinateSystem.wkt`; empty when it
/// reads none), or `None` where GDAL is not installed.
pub fn gdal_wkt(path: &Path) -> Option<String> {
    gdalinfo(path).map(|j| j["coordinateSystem"]["wkt"].as_str().unwrap_or("").to_string())
}

/// The geotransform GDAL reads from `path`, or `None` where GDAL is not installed.
pub fn gdal_transform(path: &Path) -> Option<Vec<f64>> {
    gdalinfo(path)
        .map(|j| j["geoTransform"].as_array().expect("a geoTransform").iter().map(|v| v.as_f64().unwrap()).collect())
}
