//! Writes one file of each mesh/cloud geometry writer of `bozkir_io::export::geometry` into a
//! folder, for checking them in real clients (`scripts/blender_check.sh` imports them in
//! Blender).
//!
//! Usage: `cargo run -p bozkir-io --example geometry_files -- OUT_DIR`.
//!
//! The mesh is a rippled height field of `N × N` vertices (y up, metres), two triangles per
//! quad, with unit normals from central differences and sRGB colours from the height (a ramp
//! from sand to green) — so every optional part of the writers is exercised. Files written:
//! `mesh.obj`, `mesh.ply` (the same mesh) and `cloud.ply` (its vertices as a coloured point
//! cloud). For each file one line goes to stdout: `FILE vertices=V faces=F colours=yes`, the
//! counts the check script compares with what Blender imported. Errors (no folder argument, a
//! failed write) print the reason and exit with status 1.

use bozkir_io::export::geometry::{write_obj_mesh, write_ply_cloud, write_ply_mesh, CloudRef, MeshRef};
use std::path::PathBuf;
use std::process::ExitCode;

/// Vertices per side of the mesh.
const N: usize = 24;
/// Metres between neighbouring vertices.
const STEP: f32 = 0.5;

fn height(x: f32, z: f32) -> f32 {
    0.6 * (0.7 * x).sin() * (0.5 * z).cos() + 0.05 * x
}

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: geometry_files OUT_DIR");
        return ExitCode::FAILURE;
    };
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("{}: cannot create: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let mut positions = Vec::with_capacity(N * N);
    let mut normals = Vec::with_capacity(N * N);
    let mut colours = Vec::with_capacity(N * N);
    let (lo, hi) = (-0.8f32, 1.5f32);
    for j in 0..N {
        for i in 0..N {
            let (x, z) = (i as f32 * STEP, j as f32 * STEP);
            let y = height(x, z);
            positions.push([x, y, z]);
            // Normal of the surface y = h(x, z): (-dh/dx, 1, -dh/dz), normalised.
            let d = 1e-2;
            let dx = (height(x + d, z) - height(x - d, z)) / (2.0 * d);
            let dz = (height(x, z + d) - height(x, z - d)) / (2.0 * d);
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            normals.push([-dx / len, 1.0 / len, -dz / len]);
            let t = ((y - lo) / (hi - lo)).clamp(0.0, 1.0);
            let mix = |a: f32, b: f32| (a + (b - a) * t).round() as u8;
            colours.push([mix(214.0, 70.0), mix(190.0, 120.0), mix(140.0, 50.0)]);
        }
    }
    let mut indices = Vec::with_capacity(6 * (N - 1) * (N - 1));
    for j in 0..N - 1 {
        for i in 0..N - 1 {
            let a = (j * N + i) as u32;
            let (b, c, d) = (a + 1, a + N as u32, a + N as u32 + 1);
            // Counter-clockwise seen from +y.
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let mesh = MeshRef { positions: &positions, normals: Some(&normals), colours: Some(&colours), indices: &indices };
    let cloud_pos: Vec<[f64; 3]> = positions.iter().map(|p| p.map(f64::from)).collect();
    let cloud = CloudRef { positions: &cloud_pos, normals: Some(&normals), colours: Some(&colours) };
    let (v, f) = (positions.len(), indices.len() / 3);
    let written = [
        ("mesh.obj", write_obj_mesh(out.join("mesh.obj"), &mesh), f),
        ("mesh.ply", write_ply_mesh(out.join("mesh.ply"), &mesh), f),
        ("cloud.ply", write_ply_cloud(out.join("cloud.ply"), &cloud), 0),
    ];
    for (name, result, faces) in written {
        if let Err(e) = result {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        println!("{} vertices={v} faces={faces} colours=yes", out.join(name).display());
    }
    ExitCode::SUCCESS
}
