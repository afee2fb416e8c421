//! Quantised glTF 2.0 binary (`.glb`) of a height field: the chunks of [`super::mesh`] with
//! 16-bit positions, 8-bit normals, 16-bit texture coordinates and 16-bit indices, under the
//! `KHR_mesh_quantization` extension (listed in `extensionsUsed` and `extensionsRequired`, as
//! the extension demands of a file using its attribute types). About half the bytes of
//! [`super::glb`] (16 bytes a vertex instead of 32, 2 bytes an index instead of 4).
//!
//! Chunks, vertex order, triangles, normals and UVs are those of [`super::mesh::height_mesh`]
//! (same frame: `x` east, `y` up, `z` south, metres). Per chunk, with `(c, r)` a vertex's column
//! and row relative to the chunk's first vertex `(x0, y0)`, `h0` and `h1` the chunk's lowest and
//! highest height:
//!
//! * **Scale.** The node's `scale` `(sx, sy, sz)` and `translation` `(x0·dx, h0, y0·dy)` map the
//!   stored integers back to metres: `x = x0·dx + qx·sx` and so on. `sx = dx/kx` and
//!   `sz = dy/kz` for whole numbers `kx`, `kz`, so `qx = c·kx`, `qz = r·kz` and x and z land on
//!   the cell grid exactly. `kx` is the largest whole number with `dx/kx ≥ (h1 − h0)/65535` (so
//!   the height range fits 16 bits at that step) and `(columns − 1)·kx ≤ 65535`, at least 1;
//!   `kz` likewise, and both the smaller of the two when `dx = dy`. The height step is `sy = max((h1 − h0)/65535, min(sx, sz))`, and
//!   `qy = round((h − h0)/sy)`, so a height is off by at most `sy/2`
//!   ([`QuantisedGlb::max_height_error_m`] is the largest over the chunks). The step is thus
//!   the chunk's range over 65535 when that exceeds the cell size over `kx`, else the (finer)
//!   horizontal step: keeping all three scales equal (`dx = dy`) makes the node scale
//!   uniform, which matters for normals (below).
//! * **Normals.** glTF transforms normals by the inverse transpose of the node matrix, here
//!   `diag(1/sx, 1/sy, 1/sz)`. The stored normal is therefore `m = (sx·nx, sy·ny, sz·nz)`
//!   renormalised (which is `n` itself under a uniform scale), so that a viewer's
//!   `diag(1/s)·m` points along the terrain normal `n`; each component is `round(127·m)` as a
//!   normalised `BYTE`, and the angle error is under 1/127 rad under a uniform scale. (A scale
//!   whose height step is thousands of times finer than its cell, as a per-axis
//!   `range/65535` height step would give, would crush `m`'s y component to a few
//!   quantisation steps and ruin the normals; hence the equal steps.)
//! * **UVs** `u = col/(width − 1)`, `v = row/(height − 1)` over the whole terrain, as normalised
//!   `UNSIGNED_SHORT` `round(65535·u)` (off by at most 1/131070).
//! * **Layout.** One interleaved vertex view per chunk, `byteStride` 16, target ARRAY_BUFFER:
//!   bytes 0–5 POSITION (`VEC3`/`UNSIGNED_SHORT`, not normalised, with `min`/`max`), 6–7 zero,
//!   8–10 NORMAL (`VEC3`/`BYTE` normalised), 11 zero, 12–15 TEXCOORD_0 (`VEC2`/`UNSIGNED_SHORT`
//!   normalised); glTF wants each vertex attribute element aligned to 4 bytes (accessor
//!   `byteOffset` and `byteStride` multiples of 4), hence the padding. Then an index view
//!   (target ELEMENT_ARRAY_BUFFER) of `UNSIGNED_SHORT` indices, or `UNSIGNED_INT` for a chunk of
//!   more than 65,535 vertices (glTF reserves 65535 as primitive restart). Every view starts at
//!   a multiple of 4 bytes. One mesh (one triangle primitive, no material) and one node named
//!   after the chunk, per chunk; the scene lists the nodes.
//!
//! The bytes are filled on up to `available_parallelism` threads, each taking a contiguous run
//! of chunks and writing straight into the one output buffer; the result does not depend on
//! the number of threads. Errors (each naming the file): a grid under 2 × 2, a chunk size of 0
//! or over 65535 quads, non-finite heights or cell sizes, a file over 4 GiB.

use super::checked_range;
use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use bozkir_core::Grid;
use serde_json::{json, Value};
use std::path::Path;

/// The glTF extension that allows integer vertex attributes.
pub const QUANTIZATION: &str = "KHR_mesh_quantization";
/// Bytes per vertex in the interleaved vertex view.
pub const VERTEX_STRIDE: usize = 16;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const BYTE: u32 = 5120;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;

/// What [`encode_glb_quantised`] encoded.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantisedGlb {
    /// The GLB file's bytes.
    pub bytes: Vec<u8>,
    /// Number of chunks (nodes).
    pub chunks: usize,
    /// Number of triangles.
    pub triangles: usize,
    /// The largest height quantisation error bound over the chunks (half its height step), m.
    pub max_height_error_m: f64,
}

/// One chunk's place and dequantisation.
struct Plan {
    cx: usize,
    cy: usize,
    x0: usize,
    y0: usize,
    nx: usize,
    ny: usize,
    h0: f64,
    kx: usize,
    kz: usize,
    /// Node scale (sx, sy, sz).
    scale: [f64; 3],
    /// Node translation (x0·dx, h0, y0·dy).
    translation: [f64; 3],
    /// Largest stored height.
    qy_max: u16,
    /// Offset of the vertex view in the BIN chunk.
    offset: usize,
    /// Whether every height of the chunk is finite.
    finite: bool,
}

impl Plan {
    fn wide_indices(&self) -> bool {
        self.nx * self.ny > 65_535
    }

    fn index_bytes(&self) -> usize {
        (self.nx - 1) * (self.ny - 1) * 6 * if self.wide_indices() { 4 } else { 2 }
    }

    /// Bytes of both views, padded to 4.
    fn bytes(&self) -> usize {
        (self.nx * self.ny * VERTEX_STRIDE + self.index_bytes()).next_multiple_of(4)
    }

    /// The stored height of `h` (the same arithmetic as [`fill_chunk`]).
    fn qy(&self, h: f64) -> u16 {
        round_u16((h - self.h0) * (1.0 / self.scale[1]))
    }
}

/// `v` (≥ 0) rounded half up, at most 65535 (a cast and an add, no libm call).
fn round_u16(v: f64) -> u16 {
    ((v + 0.5) as u32).min(65_535) as u16
}

/// `v` rounded half away from zero (the cast truncates towards zero, saturating).
fn round_signed(v: f64) -> i32 {
    (v + 0.5f64.copysign(v)) as i32
}

/// The largest whole `k ≤ kmax` with `d/k ≥ step`, at least 1.
fn subdivisions(d: f64, step: f64, kmax: usize) -> usize {
    if step <= 0.0 {
        return kmax;
    }
    let k = (d / step).floor();
    if k >= kmax as f64 {
        kmax
    } else if k >= 1.0 {
        k as usize
    } else {
        1
    }
}

fn plan_chunk(h: &Grid<f64>, cx: usize, cy: usize, x0: usize, y0: usize, chunk: usize) -> Plan {
    let (qw, qh) = (h.width() - 1, h.height() - 1);
    let (nx, ny) = (chunk.min(qw - x0) + 1, chunk.min(qh - y0) + 1);
    let (mut h0, mut h1, mut finite) = (f64::INFINITY, f64::NEG_INFINITY, true);
    let data = h.data();
    for y in y0..y0 + ny {
        for &v in &data[y * h.width() + x0..y * h.width() + x0 + nx] {
            h0 = h0.min(v);
            h1 = h1.max(v);
            finite &= v.is_finite();
        }
    }
    if !finite {
        (h0, h1) = (0.0, 0.0);
    }
    let step = (h1 - h0) / 65_535.0;
    let mut kx = subdivisions(h.dx, step, 65_535 / (nx - 1));
    let mut kz = subdivisions(h.dy, step, 65_535 / (ny - 1));
    if h.dx == h.dy {
        // Square cells: one step on both axes (a uniform scale) even in a ragged chunk.
        (kx, kz) = (kx.min(kz), kx.min(kz));
    }
    let (sx, sz) = (h.dx / kx as f64, h.dy / kz as f64);
    let sy = step.max(sx.min(sz));
    let translation = [x0 as f64 * h.dx, h0, y0 as f64 * h.dy];
    let mut p =
        Plan { cx, cy, x0, y0, nx, ny, h0, kx, kz, scale: [sx, sy, sz], translation, qy_max: 0, offset: 0, finite };
    p.qy_max = p.qy(h1);
    p
}

/// Writes chunk `p`'s views into `out` (exactly `p.bytes()` long, zeroed). `indices` caches
/// the index bytes of the last chunk shape (they depend only on the vertex counts).
fn fill_chunk(h: &Grid<f64>, p: &Plan, out: &mut [u8], indices: &mut ((usize, usize), Vec<u8>)) {
    let (w, hh, data) = (h.width(), h.height(), h.data());
    let (su, sv) = (65_535.0 / (w - 1) as f64, 65_535.0 / (hh - 1) as f64);
    let (vertices, index_out) = out.split_at_mut(p.nx * p.ny * VERTEX_STRIDE);
    // The normal m ∝ S·n with n ∝ (−∂h/∂x, 1, −∂h/∂z) (central differences, one-sided on the
    // grid's border, as `height_mesh`): m ∝ (−sx·∂h/∂x, sy, −sz·∂h/∂z).
    let [sx, sy, sz] = p.scale;
    let inv_step = 1.0 / sy;
    let qu: Vec<[u8; 2]> = (p.x0..p.x0 + p.nx).map(|x| round_u16(x as f64 * su).to_le_bytes()).collect();
    let gx_factor: Vec<f64> =
        (p.x0..p.x0 + p.nx).map(|x| -sx / (((x + 1).min(w - 1) - x.saturating_sub(1)) as f64 * h.dx)).collect();
    let mut slots = vertices.chunks_exact_mut(VERTEX_STRIDE);
    for r in 0..p.ny {
        let y = p.y0 + r;
        let (ya, yb) = (y.saturating_sub(1), (y + 1).min(hh - 1));
        let gz_factor = -sz / ((yb - ya) as f64 * h.dy);
        let (row, above, below) = (&data[y * w..(y + 1) * w], &data[ya * w..(ya + 1) * w], &data[yb * w..(yb + 1) * w]);
        let qv = round_u16(y as f64 * sv).to_le_bytes();
        let qz = ((r * p.kz) as u16).to_le_bytes();
        for c in 0..p.nx {
            let x = p.x0 + c;
            let (xa, xb) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let mx = (row[xb] - row[xa]) * gx_factor[c];
            let mz = (below[x] - above[x]) * gz_factor;
            let f = 127.0 / (mx * mx + sy * sy + mz * mz).sqrt();
            let byte = |v: f64| (round_signed(v * f).clamp(-127, 127) as i8).to_le_bytes()[0];
            let qx = ((c * p.kx) as u16).to_le_bytes();
            let qy = round_u16((row[x] - p.h0) * inv_step).to_le_bytes();
            let u = qu[c];
            let v = [
                qx[0],
                qx[1],
                qy[0],
                qy[1],
                qz[0],
                qz[1],
                0,
                0,
                byte(mx),
                byte(sy),
                byte(mz),
                0,
                u[0],
                u[1],
                qv[0],
                qv[1],
            ];
            slots.next().expect("one slot per vertex").copy_from_slice(&v);
        }
    }
    if indices.0 != (p.nx, p.ny) || indices.1.len() != index_out.len() {
        *indices = ((p.nx, p.ny), index_bytes(p.nx, p.ny, p.wide_indices()));
    }
    index_out.copy_from_slice(&indices.1);
}

/// The index bytes of a chunk of `nx × ny` vertices: quads row by row, triangles `a c b` and
/// `b c d` as in `height_mesh`, 32-bit when `wide`, else 16-bit, little-endian.
fn index_bytes(nx: usize, ny: usize, wide: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity((nx - 1) * (ny - 1) * 6 * if wide { 4 } else { 2 });
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = (j * nx + i) as u32;
            let (n, b) = (nx as u32, a + 1);
            for k in [a, a + n, b, b, a + n, b + n] {
                if wide {
                    out.extend_from_slice(&k.to_le_bytes());
                } else {
                    out.extend_from_slice(&(k as u16).to_le_bytes());
                }
            }
        }
    }
    out
}

/// Splits `items` into at most `threads` contiguous runs and runs `f` on each, in parallel
/// when the work is large; the results in order.
fn in_runs<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    if threads <= 1 || items.len() < 2 {
        return vec![f(items)];
    }
    let per = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let parts: Vec<_> = items.chunks(per).map(|run| s.spawn(move || f(run))).collect();
        parts.into_iter().map(|p| p.join().expect("quantised GLB worker panicked")).collect()
    })
}

fn threads_for(vertices: usize) -> usize {
    if vertices < (1 << 16) {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16)
    }
}

/// The glTF JSON of the chunks, their views starting at their plans' offsets.
fn document(plans: &[Plan], bin_len: usize, generator: &str) -> Value {
    let mut views = Vec::with_capacity(2 * plans.len());
    let mut accessors = Vec::with_capacity(4 * plans.len());
    let mut meshes = Vec::with_capacity(plans.len());
    let mut nodes = Vec::with_capacity(plans.len());
    for (i, p) in plans.iter().enumerate() {
        let n = p.nx * p.ny;
        let vb = n * VERTEX_STRIDE;
        views.push(json!({ "buffer": 0, "byteOffset": p.offset, "byteLength": vb, "byteStride": VERTEX_STRIDE,
            "target": ARRAY_BUFFER }));
        views.push(json!({ "buffer": 0, "byteOffset": p.offset + vb, "byteLength": p.index_bytes(),
            "target": ELEMENT_ARRAY_BUFFER }));
        let a = accessors.len();
        let (vv, iv) = (2 * i, 2 * i + 1);
        accessors.push(json!({ "bufferView": vv, "byteOffset": 0, "componentType": UNSIGNED_SHORT, "count": n,
            "type": "VEC3", "min": [0, 0, 0], "max": [(p.nx - 1) * p.kx, p.qy_max, (p.ny - 1) * p.kz] }));
        accessors.push(json!({ "bufferView": vv, "byteOffset": 8, "componentType": BYTE, "normalized": true,
            "count": n, "type": "VEC3" }));
        accessors.push(json!({ "bufferView": vv, "byteOffset": 12, "componentType": UNSIGNED_SHORT,
            "normalized": true, "count": n, "type": "VEC2" }));
        let ct = if p.wide_indices() { UNSIGNED_INT } else { UNSIGNED_SHORT };
        accessors.push(json!({ "bufferView": iv, "byteOffset": 0, "componentType": ct,
            "count": (p.nx - 1) * (p.ny - 1) * 6, "type": "SCALAR" }));
        let name = format!("chunk_x{}_y{}", p.cx, p.cy);
        meshes.push(json!({ "name": name, "primitives": [{
            "attributes": { "POSITION": a, "NORMAL": a + 1, "TEXCOORD_0": a + 2 }, "indices": a + 3, "mode": 4 }] }));
        nodes.push(json!({ "name": name, "mesh": i, "translation": p.translation, "scale": p.scale }));
    }
    let node_ids: Vec<usize> = (0..plans.len()).collect();
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": generator },
        "extensionsUsed": [QUANTIZATION],
        "extensionsRequired": [QUANTIZATION],
        "scene": 0,
        "scenes": [{ "name": "terrain", "nodes": node_ids }],
        "nodes": nodes,
        "meshes": meshes,
        "accessors": accessors,
        "bufferViews": views,
    });
    if bin_len > 0 {
        doc["buffers"] = json!([{ "byteLength": bin_len }]);
    }
    doc
}

/// The quantised GLB of height field `h` (metres, with its cell size) in chunks of at most
/// `chunk × chunk` quads (see the module docs); `path` names the file in errors.
pub fn encode_glb_quantised(path: &Path, h: &Grid<f64>, chunk: usize, generator: &str) -> Result<QuantisedGlb> {
    let (w, hh) = (h.width(), h.height());
    if w < 2 || hh < 2 {
        return Err(IoError::invalid(path, format!("a {w} × {hh} grid has no quad to mesh (need at least 2 × 2)")));
    }
    if !(1..=65_535).contains(&chunk) {
        return Err(IoError::invalid(path, format!("chunk size {chunk} quads must be 1..=65535")));
    }
    if !(h.dx.is_finite() && h.dy.is_finite() && h.dx > 0.0 && h.dy > 0.0) {
        return Err(IoError::invalid(path, format!("cell size ({}, {}) m must be finite and positive", h.dx, h.dy)));
    }
    let (qw, qh) = (w - 1, hh - 1);
    let cells: Vec<(usize, usize, usize, usize)> = (0..qh)
        .step_by(chunk)
        .enumerate()
        .flat_map(|(cy, y0)| (0..qw).step_by(chunk).enumerate().map(move |(cx, x0)| (cx, cy, x0, y0)))
        .collect();
    let threads = threads_for(w * hh);
    let mut plans: Vec<Plan> = in_runs(&cells, threads, |run| {
        run.iter().map(|&(cx, cy, x0, y0)| plan_chunk(h, cx, cy, x0, y0, chunk)).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    if plans.iter().any(|p| !p.finite) {
        // The finiteness check of the plan pass found a bad height: the shared check names it.
        checked_range(path, h)?;
        return Err(IoError::invalid(path, "a non-finite height"));
    }
    let mut bin_len = 0usize;
    for p in &mut plans {
        p.offset = bin_len;
        bin_len += p.bytes();
    }
    let doc = document(&plans, bin_len, generator);
    let mut text = serde_json::to_vec(&doc).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin_len;
    let total32 = u32::try_from(total).map_err(|_| IoError::TooMany {
        path: path.to_path_buf(),
        what: "GLB bytes",
        count: total as u64,
        limit: u64::from(u32::MAX),
    })?;
    // Zeroed by the allocator (fresh pages, not a memset): the pages are first touched by the
    // threads that fill them.
    let mut out = vec![0u8; total];
    let mut head = Vec::with_capacity(28 + text.len());
    head.extend_from_slice(b"glTF");
    head.extend_from_slice(&2u32.to_le_bytes());
    head.extend_from_slice(&total32.to_le_bytes());
    head.extend_from_slice(&(text.len() as u32).to_le_bytes());
    head.extend_from_slice(b"JSON");
    head.extend_from_slice(&text);
    head.extend_from_slice(&(bin_len as u32).to_le_bytes());
    head.extend_from_slice(b"BIN\0");
    let at = head.len();
    out[..at].copy_from_slice(&head);
    // Cut the BIN chunk at the plans' offsets: each run of chunks gets its own slice.
    let per = plans.len().div_ceil(threads.max(1)).max(1);
    let mut slices: Vec<(&[Plan], &mut [u8])> = Vec::new();
    let mut rest = &mut out[at..];
    for run in plans.chunks(per) {
        let len: usize = run.iter().map(Plan::bytes).sum();
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        slices.push((run, head));
        rest = tail;
    }
    let fill = |run: &[Plan], mut buf: &mut [u8]| {
        let mut cache = ((0, 0), Vec::new());
        for p in run {
            let (head, tail) = std::mem::take(&mut buf).split_at_mut(p.bytes());
            fill_chunk(h, p, head, &mut cache);
            buf = tail;
        }
    };
    if slices.len() <= 1 {
        for (run, buf) in slices {
            fill(run, buf);
        }
    } else {
        std::thread::scope(|s| {
            for (run, buf) in slices {
                let fill = &fill;
                s.spawn(move || fill(run, buf));
            }
        });
    }
    let max_height_error_m = plans.iter().map(|p| p.scale[1] / 2.0).fold(0.0, f64::max);
    let triangles = qw * qh * 2;
    Ok(QuantisedGlb { bytes: out, chunks: plans.len(), triangles, max_height_error_m })
}

/// Write the quantised GLB of `h` to `path` (atomically: temporary file, fsync, rename); returns
/// what was encoded, with `bytes` emptied.
pub fn write_glb_quantised(path: impl AsRef<Path>, h: &Grid<f64>, chunk: usize) -> Result<QuantisedGlb> {
    let path = path.as_ref();
    let mut q = encode_glb_quantised(path, h, chunk, concat!("bozkir ", env!("CARGO_PKG_VERSION")))?;
    atomic_write(path, |w| write_all(path, w, &q.bytes))?;
    q.bytes = Vec::new();
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_without_libm() {
        assert_eq!((round_u16(0.49), round_u16(0.5), round_u16(65_534.6), round_u16(1e9)), (0, 1, 65_535, 65_535));
        assert_eq!(
            (round_signed(-0.5), round_signed(-0.49), round_signed(126.5), round_signed(-3.2)),
            (-1, 0, 127, -3)
        );
    }

    #[test]
    fn subdivisions_pick_the_finest_fitting_step() {
        assert_eq!(subdivisions(2.0, 0.0, 1023), 1023);
        assert_eq!(subdivisions(2.0, 0.01, 1023), 200);
        assert_eq!(subdivisions(2.0, 3.0, 1023), 1);
        assert_eq!(subdivisions(2.0, 0.001, 1023), 1023);
    }

    #[test]
    fn plan_fits_sixteen_bits_and_keeps_the_grid() {
        // A 65-vertex chunk with a 1000 m range on 2 m cells: kx = floor(2·65535/1000) = 131.
        let h = Grid::from_fn(65, 65, |x, y| if (x, y) == (3, 4) { 1000.0 } else { 0.0 }).with_cell_size(2.0, 2.0);
        let p = plan_chunk(&h, 0, 0, 0, 0, 64);
        assert_eq!((p.kx, p.kz, p.nx, p.ny), (131, 131, 65, 65));
        assert_eq!(p.scale[0], p.scale[1]);
        assert!(1000.0 / p.scale[1] <= 65_535.0);
        assert_eq!(p.qy_max, (1000.0 / p.scale[1]).round() as u16);
        // A flat chunk: the finest step the 16-bit x range allows, 65535 / 64 = 1023.
        let flat = plan_chunk(&Grid::new(65, 65, 5.0).with_cell_size(2.0, 2.0), 0, 0, 0, 0, 64);
        assert_eq!((flat.kx, flat.qy_max, flat.h0), (1023, 0, 5.0));
    }
}
