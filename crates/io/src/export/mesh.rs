//! Height field → chunked triangle mesh.
//!
//! Frame (glTF's, right-handed, y up): vertex `(col, row)` is at `x = col·dx`, `y = height`,
//! `z = row·dy` metres, so north (row 0) is −z and east is +x. Each quad of four neighbouring
//! vertices `a = (c, r)`, `b = (c + 1, r)`, `c = (c, r + 1)`, `d = (c + 1, r + 1)` gives the
//! triangles `a c b` and `b c d`, counter-clockwise seen from above. Normals come from central
//! differences of the whole grid (one-sided on its border), `n ∝ (−∂h/∂x, 1, −∂h/∂z)`, so
//! chunks meet without seams. UVs span the whole terrain: `u = col/(width − 1)`,
//! `v = row/(height − 1)` (v down, like image rows).
//!
//! Chunks cover `N × N` quads from the north-west corner (the last ones may be smaller); the
//! vertices on a shared edge are repeated in each chunk.

use bozkir_core::Grid;

/// One chunk of the mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshChunk {
    /// `chunk_x<A>_y<B>` (chunk column and row).
    pub name: String,
    /// Grid column and row of the chunk's first vertex.
    pub origin: (usize, usize),
    /// Vertices per side (columns, rows).
    pub vertices: (usize, usize),
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    /// Triangle list, three indices per triangle into this chunk's vertices.
    pub indices: Vec<u32>,
}

impl MeshChunk {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Component-wise minimum and maximum of the positions.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    }
}

/// Unit normal at grid vertex (`x`, `y`) from central differences.
fn normal(h: &Grid<f64>, x: usize, y: usize) -> [f32; 3] {
    let (w, hh) = (h.width(), h.height());
    let (xa, xb) = (x.saturating_sub(1), (x + 1).min(w - 1));
    let (ya, yb) = (y.saturating_sub(1), (y + 1).min(hh - 1));
    let gx = if xb > xa { (h.get(xb, y) - h.get(xa, y)) / ((xb - xa) as f64 * h.dx) } else { 0.0 };
    let gz = if yb > ya { (h.get(x, yb) - h.get(x, ya)) / ((yb - ya) as f64 * h.dy) } else { 0.0 };
    let len = (gx * gx + 1.0 + gz * gz).sqrt();
    [(-gx / len) as f32, (1.0 / len) as f32, (-gz / len) as f32]
}

/// Triangulate `h` (at least 2 × 2, finite heights) into chunks of at most `chunk × chunk`
/// quads, row by row of chunks. Panics when `chunk` is 0 or the grid is smaller than 2 × 2.
///
/// Chunks are built on up to `available_parallelism` threads, each taking a contiguous run of
/// them; the result does not depend on the number of threads.
pub fn height_mesh(h: &Grid<f64>, chunk: usize) -> Vec<MeshChunk> {
    assert!(chunk > 0, "height_mesh: chunk must be at least 1 quad");
    let (w, hh) = (h.width(), h.height());
    assert!(w >= 2 && hh >= 2, "height_mesh: need at least 2 × 2 vertices");
    let (qw, qh) = (w - 1, hh - 1);
    // (chunk column, chunk row, first quad column, first quad row), in output order.
    let cells: Vec<(usize, usize, usize, usize)> = (0..qh)
        .step_by(chunk)
        .enumerate()
        .flat_map(|(cy, y0)| (0..qw).step_by(chunk).enumerate().map(move |(cx, x0)| (cx, cy, x0, y0)))
        .collect();
    let build = |&(cx, cy, x0, y0): &(usize, usize, usize, usize)| one_chunk(h, chunk, cx, cy, x0, y0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    if threads == 1 || w * hh < (1 << 16) {
        return cells.iter().map(build).collect();
    }
    let per = cells.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> =
            cells.chunks(per.max(1)).map(|run| s.spawn(move || run.iter().map(build).collect::<Vec<_>>())).collect();
        parts.into_iter().flat_map(|p| p.join().expect("height_mesh worker panicked")).collect()
    })
}

/// The chunk at chunk column `cx`, row `cy`, whose first quad is (`x0`, `y0`).
fn one_chunk(h: &Grid<f64>, chunk: usize, cx: usize, cy: usize, x0: usize, y0: usize) -> MeshChunk {
    let (qw, qh) = (h.width() - 1, h.height() - 1);
    let (su, sv) = (1.0 / qw as f64, 1.0 / qh as f64);
    let (nx, ny) = (chunk.min(qw - x0) + 1, chunk.min(qh - y0) + 1);
    let mut c = MeshChunk {
        name: format!("chunk_x{cx}_y{cy}"),
        origin: (x0, y0),
        vertices: (nx, ny),
        positions: Vec::with_capacity(nx * ny),
        normals: Vec::with_capacity(nx * ny),
        uvs: Vec::with_capacity(nx * ny),
        indices: Vec::with_capacity((nx - 1) * (ny - 1) * 6),
    };
    for y in y0..y0 + ny {
        for x in x0..x0 + nx {
            c.positions.push([(x as f64 * h.dx) as f32, *h.get(x, y) as f32, (y as f64 * h.dy) as f32]);
            c.normals.push(normal(h, x, y));
            c.uvs.push([(x as f64 * su) as f32, (y as f64 * sv) as f32]);
        }
    }
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = (j * nx + i) as u32;
            let (b, cc, d) = (a + 1, a + nx as u32, a + nx as u32 + 1);
            c.indices.extend_from_slice(&[a, cc, b, b, cc, d]);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_counts_and_winding() {
        let h = Grid::from_fn(6, 4, |x, y| (x * y) as f64).with_cell_size(2.0, 3.0);
        let m = height_mesh(&h, 3);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].vertices, (4, 4));
        assert_eq!(m[1].vertices, (3, 4));
        assert_eq!(m[1].origin, (3, 0));
        assert_eq!(m.iter().map(MeshChunk::triangle_count).sum::<usize>(), 5 * 3 * 2);
        assert_eq!(m[1].positions[0], m[0].positions[3]);
        let flat = height_mesh(&Grid::new(3, 3, 1.0).with_cell_size(1.0, 1.0), 8);
        let c = &flat[0];
        for t in c.indices.chunks_exact(3) {
            let [p, q, r] = [c.positions[t[0] as usize], c.positions[t[1] as usize], c.positions[t[2] as usize]];
            let (u, v) = ([q[0] - p[0], q[1] - p[1], q[2] - p[2]], [r[0] - p[0], r[1] - p[1], r[2] - p[2]]);
            assert!(u[2] * v[0] - u[0] * v[2] > 0.0, "face normal points up");
        }
        assert_eq!(c.normals[4], [0.0, 1.0, 0.0]);
        assert_eq!(c.uvs[8], [1.0, 1.0]);
    }

    #[test]
    fn threaded_mesh_equals_chunk_by_chunk() {
        // 300 × 260 vertices (above the threading threshold), 37-quad chunks with ragged last
        // ones: the threaded build must equal building each chunk in order.
        let h = Grid::from_fn(300, 260, |x, y| ((x * 7 + y * 3) % 23) as f64 * 0.5).with_cell_size(1.5, 2.0);
        let m = height_mesh(&h, 37);
        let mut k = 0;
        for (cy, y0) in (0..259).step_by(37).enumerate() {
            for (cx, x0) in (0..299).step_by(37).enumerate() {
                assert_eq!(m[k], one_chunk(&h, 37, cx, cy, x0, y0));
                assert_eq!(m[k].name, format!("chunk_x{cx}_y{cy}"));
                k += 1;
            }
        }
        assert_eq!(k, m.len());
    }
}
