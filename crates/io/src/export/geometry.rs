//! Geometry files for any mesh, point cloud or voxel volume (issue 23): Wavefront OBJ and PLY
//! for triangle meshes, PLY and `.xyz` for point clouds, NPZ for voxel volumes. The writers take
//! borrowed arrays ([`MeshRef`], [`CloudRef`]), check them whole before the first byte, and
//! write atomically (a temporary file renamed into place), so a refused or failed write leaves
//! nothing and an existing file untouched.
//!
//! Formats:
//!
//! * **OBJ** — `v x y z` (with `r g b` in 0..1 after them when the mesh has colours, the
//!   MeshLab/CloudCompare extension), `vn x y z` when it has normals, then `f a b c` or
//!   `f a//a b//b c//c` (1-based). Numbers are the shortest decimal form that reads back to the
//!   same `f32`.
//! * **PLY mesh** — `binary_little_endian`: `element vertex` with `float x y z`, then `float nx
//!   ny nz` and `uchar red green blue` when present; `element face` with `property list uchar
//!   uint vertex_indices`.
//! * **PLY cloud** — `binary_little_endian`: `double x y z` (a cloud keeps f64 positions),
//!   `float nx ny nz`, `uchar red green blue` when present.
//! * **`.xyz`** — one point per line: `x y z`, then `nx ny nz`, then `r g b` (0..255) when present,
//!   space-separated, shortest round-trip decimals.
//! * **NPZ volume** — a stored (uncompressed) zip of NumPy arrays: `blocks` (`<u2`, C order,
//!   shape `(ny, nz, nx)`, so element `[y, z, x]` is block `(x, y, z)` of the layout
//!   `x + nx·(z + nz·y)` the voxel crates use) and `block_size` (`<f8`, 0-d), `origin` (`<i4`,
//!   shape `(3,)`).
//!
//! Errors: ragged arrays, an index past the vertices, a count of indices not a multiple of 3,
//! non-finite coordinates or normals, empty geometry, a volume whose data does not match its
//! dims — each an [`IoError::InvalidArgument`] naming the file and the offending element.

use crate::error::{IoError, Result};
use crate::fsio::atomic_write;
use std::io::Write;
use std::path::Path;

/// A triangle mesh to write: positions, optional per-vertex normals and sRGB colours, and
/// three indices per triangle.
#[derive(Debug, Clone, Copy)]
pub struct MeshRef<'a> {
    /// Vertex positions.
    pub positions: &'a [[f32; 3]],
    /// Unit normals, one per vertex (or none).
    pub normals: Option<&'a [[f32; 3]]>,
    /// sRGB colours, one per vertex (or none).
    pub colours: Option<&'a [[u8; 3]]>,
    /// Triangle corners.
    pub indices: &'a [u32],
}

/// A point cloud to write.
#[derive(Debug, Clone, Copy)]
pub struct CloudRef<'a> {
    /// Positions.
    pub positions: &'a [[f64; 3]],
    /// Unit normals, one per point (or none).
    pub normals: Option<&'a [[f32; 3]]>,
    /// sRGB colours, one per point (or none).
    pub colours: Option<&'a [[u8; 3]]>,
}

fn check_per_vertex<T>(path: &Path, what: &str, arr: Option<&[T]>, n: usize) -> Result<()> {
    match arr {
        Some(a) if a.len() != n => Err(IoError::invalid(path, format!("{} {what} for {n} vertices", a.len()))),
        _ => Ok(()),
    }
}

fn check_finite<const N: usize, T: Copy + Into<f64>>(path: &Path, what: &str, arr: &[[T; N]]) -> Result<()> {
    match arr.iter().position(|p| p.iter().any(|&v| !v.into().is_finite())) {
        Some(k) => Err(IoError::invalid(path, format!("{what} {k} is not finite"))),
        None => Ok(()),
    }
}

impl MeshRef<'_> {
    /// Checks the mesh whole (see the module docs).
    pub fn check(&self, path: &Path) -> Result<()> {
        let n = self.positions.len();
        if n == 0 || self.indices.is_empty() {
            return Err(IoError::invalid(path, format!("empty mesh ({n} vertices, {} indices)", self.indices.len())));
        }
        check_per_vertex(path, "normals", self.normals, n)?;
        check_per_vertex(path, "colours", self.colours, n)?;
        if !self.indices.len().is_multiple_of(3) {
            return Err(IoError::invalid(path, format!("{} indices is not whole triangles", self.indices.len())));
        }
        if let Some(k) = self.indices.iter().position(|&i| i as usize >= n) {
            return Err(IoError::invalid(
                path,
                format!("index {k} is {} but the mesh has {n} vertices", self.indices[k]),
            ));
        }
        check_finite(path, "vertex", self.positions)?;
        if let Some(nm) = self.normals {
            check_finite(path, "normal", nm)?;
        }
        Ok(())
    }
}

impl CloudRef<'_> {
    /// Checks the cloud whole.
    pub fn check(&self, path: &Path) -> Result<()> {
        let n = self.positions.len();
        if n == 0 {
            return Err(IoError::invalid(path, "empty point cloud"));
        }
        check_per_vertex(path, "normals", self.normals, n)?;
        check_per_vertex(path, "colours", self.colours, n)?;
        check_finite(path, "point", self.positions)?;
        if let Some(nm) = self.normals {
            check_finite(path, "normal", nm)?;
        }
        Ok(())
    }
}

/// Write `mesh` as a Wavefront OBJ.
pub fn write_obj_mesh(path: impl AsRef<Path>, mesh: &MeshRef) -> Result<()> {
    let path = path.as_ref();
    mesh.check(path)?;
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        writeln!(w, "# bozkir mesh: {} vertices, {} triangles", mesh.positions.len(), mesh.indices.len() / 3)
            .map_err(io)?;
        for (k, p) in mesh.positions.iter().enumerate() {
            match mesh.colours {
                Some(c) => {
                    let c = c[k].map(|v| f32::from(v) / 255.0);
                    writeln!(w, "v {} {} {} {} {} {}", p[0], p[1], p[2], c[0], c[1], c[2]).map_err(io)?
                }
                None => writeln!(w, "v {} {} {}", p[0], p[1], p[2]).map_err(io)?,
            }
        }
        if let Some(n) = mesh.normals {
            for v in n {
                writeln!(w, "vn {} {} {}", v[0], v[1], v[2]).map_err(io)?;
            }
        }
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [t[0] + 1, t[1] + 1, t[2] + 1];
            if mesh.normals.is_some() {
                writeln!(w, "f {a}//{a} {b}//{b} {c}//{c}").map_err(io)?;
            } else {
                writeln!(w, "f {a} {b} {c}").map_err(io)?;
            }
        }
        Ok(())
    })
}

/// Write `mesh` as a binary little-endian PLY.
pub fn write_ply_mesh(path: impl AsRef<Path>, mesh: &MeshRef) -> Result<()> {
    let path = path.as_ref();
    mesh.check(path)?;
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        let mut head = format!(
            "ply\nformat binary_little_endian 1.0\ncomment bozkir mesh\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\n",
            mesh.positions.len()
        );
        if mesh.normals.is_some() {
            head += "property float nx\nproperty float ny\nproperty float nz\n";
        }
        if mesh.colours.is_some() {
            head += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
        }
        head +=
            &format!("element face {}\nproperty list uchar uint vertex_indices\nend_header\n", mesh.indices.len() / 3);
        w.write_all(head.as_bytes()).map_err(io)?;
        for (k, p) in mesh.positions.iter().enumerate() {
            p.iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?;
            if let Some(n) = mesh.normals {
                n[k].iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?;
            }
            if let Some(c) = mesh.colours {
                w.write_all(&c[k]).map_err(io)?;
            }
        }
        for t in mesh.indices.chunks_exact(3) {
            w.write_all(&[3]).map_err(io)?;
            t.iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?;
        }
        Ok(())
    })
}

/// Write `cloud` as a binary little-endian PLY.
pub fn write_ply_cloud(path: impl AsRef<Path>, cloud: &CloudRef) -> Result<()> {
    let path = path.as_ref();
    cloud.check(path)?;
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        let mut head = format!(
            "ply\nformat binary_little_endian 1.0\ncomment bozkir point cloud\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\n",
            cloud.positions.len()
        );
        if cloud.normals.is_some() {
            head += "property float nx\nproperty float ny\nproperty float nz\n";
        }
        if cloud.colours.is_some() {
            head += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
        }
        head += "end_header\n";
        w.write_all(head.as_bytes()).map_err(io)?;
        for (k, p) in cloud.positions.iter().enumerate() {
            p.iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?;
            if let Some(n) = cloud.normals {
                n[k].iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?;
            }
            if let Some(c) = cloud.colours {
                w.write_all(&c[k]).map_err(io)?;
            }
        }
        Ok(())
    })
}

/// Write `cloud` as `.xyz` text.
pub fn write_xyz(path: impl AsRef<Path>, cloud: &CloudRef) -> Result<()> {
    let path = path.as_ref();
    cloud.check(path)?;
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        for (k, p) in cloud.positions.iter().enumerate() {
            write!(w, "{} {} {}", p[0], p[1], p[2]).map_err(io)?;
            if let Some(n) = cloud.normals {
                write!(w, " {} {} {}", n[k][0], n[k][1], n[k][2]).map_err(io)?;
            }
            if let Some(c) = cloud.colours {
                write!(w, " {} {} {}", c[k][0], c[k][1], c[k][2]).map_err(io)?;
            }
            writeln!(w).map_err(io)?;
        }
        Ok(())
    })
}

/// The bytes of a `.npy` file (format 1.0) of `shape` with the dtype `descr` and raw data.
fn npy_bytes(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims = match shape {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' padded to a multiple of 64.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

/// Write a voxel volume as NPZ: `blocks` (`dims` = (nx, ny, nz), data `x + nx·(z + nz·y)`),
/// `block_size` in metres and the world block `origin` of block (0, 0, 0).
pub fn write_npz_volume(
    path: impl AsRef<Path>,
    dims: [usize; 3],
    blocks: &[u16],
    block_size: f64,
    origin: [i32; 3],
) -> Result<()> {
    let path = path.as_ref();
    let [nx, ny, nz] = dims;
    let n = nx.checked_mul(ny).and_then(|v| v.checked_mul(nz));
    if n != Some(blocks.len()) || blocks.is_empty() {
        return Err(IoError::invalid(path, format!("{} blocks for a volume of {nx} × {ny} × {nz}", blocks.len())));
    }
    if !(block_size > 0.0 && block_size.is_finite()) {
        return Err(IoError::invalid(path, format!("block size {block_size} must be positive and finite")));
    }
    let data: Vec<u8> = blocks.iter().flat_map(|b| b.to_le_bytes()).collect();
    let entries = [
        ("blocks.npy", npy_bytes("<u2", &[ny, nz, nx], &data)),
        ("block_size.npy", npy_bytes("<f8", &[], &block_size.to_le_bytes())),
        ("origin.npy", npy_bytes("<i4", &[3], &origin.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())),
    ];
    atomic_write(path, |w| {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .last_modified_time(zip::DateTime::default())
            .large_file(data.len() > u32::MAX as usize / 2);
        let zerr = |e: zip::result::ZipError| IoError::invalid(path, format!("zip: {e}"));
        for (name, bytes) in &entries {
            zip.start_file(*name, opts).map_err(zerr)?;
            zip.write_all(bytes).map_err(|e| IoError::io(path, e))?;
        }
        let cursor = zip.finish().map_err(zerr)?;
        w.write_all(&cursor.into_inner()).map_err(|e| IoError::io(path, e))
    })
}
