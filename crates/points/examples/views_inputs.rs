//! Writes the inputs of the issue-23 speed benches as little-endian `.npy` files (NumPy format
//! 1.0) for the peer script `scripts/bench_views_peer.py`, so both sides run on the same numbers:
//! `cargo run --release -p bozkir-points --example views_inputs -- DIR`.
//!
//! Files: `fps_cube_40k.npy`, `fps_terrain_40k.npy` (40,000 × 3 f64, the FPS inputs),
//! `fps_terrain_10M.npy` (10 M × 3 f64), `cloud_pos.npy` / `cloud_nrm.npy` (1 M × 3 f32) and
//! `cloud_col.npy` (1 M × 3 u8), `mesh_pos.npy` (708² × 3 f32), `mesh_idx.npy` (999,698 × 3 u32).
//! `SKIP_10M=1` leaves out the 10 M file.

use bozkir_points::heightfield_points;
use std::io::Write;
use std::path::Path;

#[path = "../benches/common/views.rs"]
mod views;

/// Writes `data` (row-major, `rows × cols` of `descr` items of `size` bytes each, already
/// little-endian bytes) as a `.npy` file.
fn write_npy(path: &Path, descr: &str, rows: usize, cols: usize, data: &[u8]) -> std::io::Result<()> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(data)?;
    f.flush()
}

fn f64s(v: &[[f64; 3]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(v: &[[f32; 3]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect()
}

fn main() -> std::io::Result<()> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "target/views_inputs".into());
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    let cube = views::cube(40_000, 7);
    write_npy(&dir.join("fps_cube_40k.npy"), "<f8", cube.len(), 3, &f64s(&cube))?;
    let surf = heightfield_points(&views::fps_terrain(1024), 1024, 1024, 1.0, 1.0, 40_000, 2).unwrap().positions;
    write_npy(&dir.join("fps_terrain_40k.npy"), "<f8", surf.len(), 3, &f64s(&surf))?;
    if std::env::var_os("SKIP_10M").is_none() {
        let big = heightfield_points(&views::fps_terrain(2048), 2048, 2048, 1.0, 1.0, 10_000_000, 3).unwrap().positions;
        write_npy(&dir.join("fps_terrain_10M.npy"), "<f8", big.len(), 3, &f64s(&big))?;
    }
    let (pts, nrm, col) = views::render_cloud(1_000_000);
    write_npy(&dir.join("cloud_pos.npy"), "<f4", pts.len(), 3, &f32s(&pts))?;
    write_npy(&dir.join("cloud_nrm.npy"), "<f4", nrm.len(), 3, &f32s(&nrm))?;
    write_npy(&dir.join("cloud_col.npy"), "|u1", col.len(), 3, &col.concat())?;
    let (pos, _, idx) = views::grid_mesh(708);
    write_npy(&dir.join("mesh_pos.npy"), "<f4", pos.len(), 3, &f32s(&pos))?;
    let ib: Vec<u8> = idx.iter().flat_map(|k| k.to_le_bytes()).collect();
    write_npy(&dir.join("mesh_idx.npy"), "<u4", idx.len() / 3, 3, &ib)?;
    println!("inputs written to {}", dir.display());
    Ok(())
}
