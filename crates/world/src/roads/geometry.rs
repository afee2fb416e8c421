//! 3-D views of a network: centrelines draped on the terrain and a ribbon mesh, with the deck
//! riding on the water surface where the road crosses water (a bridge) and lifted by `lift`.
//! Plain data; the GLB/OBJ writers live elsewhere.

use super::network::cell_of;
use super::RoadNetwork;

/// Per-vertex flag: the vertex lies over water (a bridge deck).
pub const FLAG_BRIDGE: u8 = 1;
/// Per-vertex flag: the vertex is inside a tunnel.
pub const FLAG_TUNNEL: u8 = 2;

/// A road ribbon: two vertices (left, right) per centreline point, two triangles per quad.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RibbonMesh {
    /// Vertex positions (x, y, z) in metres, float32 as pyworldgen returns them.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// [`FLAG_BRIDGE`] / [`FLAG_TUNNEL`] per vertex.
    pub flags: Vec<u8>,
}

impl RoadNetwork {
    /// Deck height at (x, y): the ground of its cell, plus the water depth where wet, plus `lift`.
    pub fn deck_height(&self, x: f64, y: f64, lift: f64) -> f64 {
        let (ix, iy) = cell_of(x, y, self.res, self.nx, self.ny);
        let c = iy * self.nx + ix;
        self.height[c] + self.water[c].max(0.0) + lift
    }

    fn wet(&self, x: f64, y: f64) -> bool {
        let (ix, iy) = cell_of(x, y, self.res, self.nx, self.ny);
        self.water[iy * self.nx + ix] > 0.05
    }

    /// Deck heights along a segment's centreline; along a structure (tunnel or annulus bridge)
    /// the deck runs straight (linear in arc length) between the deck heights at its two ends.
    pub fn centre_z(&self, s: &super::RoadSegment, lift: f64) -> Vec<f64> {
        let mut z: Vec<f64> = s.polyline.iter().map(|p| self.deck_height(p[0], p[1], lift)).collect();
        let tun = s.structure_vertices();
        let mut k = 0;
        while k < z.len() {
            if !tun[k] {
                k += 1;
                continue;
            }
            let a = k;
            while k + 1 < z.len() && tun[k + 1] {
                k += 1;
            }
            let b = k;
            let mut acc = vec![0.0; b - a + 1];
            for i in a + 1..=b {
                let (p, q) = (s.polyline[i - 1], s.polyline[i]);
                acc[i - a] = acc[i - a - 1] + (q[0] - p[0]).hypot(q[1] - p[1]);
            }
            let total = acc[b - a].max(1e-12);
            let (za, zb) = (z[a], z[b]);
            for i in a..=b {
                z[i] = za + (zb - za) * acc[i - a] / total;
            }
            k += 1;
        }
        z
    }

    /// Each centreline as 3-D points draped on the deck height (pyworldgen's
    /// `road_polylines_3d`, default `lift` 0.3). Tunnel stretches run straight between portals.
    pub fn polylines_3d(&self, lift: f64) -> Vec<Vec<[f64; 3]>> {
        self.segments
            .iter()
            .filter(|s| s.polyline.len() >= 2)
            .map(|s| {
                let z = self.centre_z(s, lift);
                s.polyline.iter().zip(z).map(|(p, z)| [p[0], p[1], z]).collect()
            })
            .collect()
    }

    /// The flat ribbon of half-width `width/2` (default the network's width) along every
    /// centreline: tangents by central differences (one-sided at the ends), normalised,
    /// offsets ±perp·half, each side on its own deck height (pyworldgen's `road_ribbon_mesh`).
    pub fn ribbon_mesh(&self, width: Option<f64>, lift: f64) -> RibbonMesh {
        let half = 0.5 * width.unwrap_or(self.width);
        let mut mesh = RibbonMesh::default();
        for s in self.segments.iter().filter(|s| s.polyline.len() >= 2) {
            let line = &s.polyline;
            let m = line.len();
            let offset = mesh.vertices.len() as u32;
            let in_tunnel = s.vertices_on(super::StepKind::Tunnel);
            let on_bridge = s.vertices_on(super::StepKind::Bridge);
            let straight = s.structure_vertices();
            let zc = self.centre_z(s, lift);
            for k in 0..m {
                let (a, b) = match k {
                    0 => (line[0], line[1]),
                    _ if k == m - 1 => (line[m - 2], line[m - 1]),
                    _ => (line[k - 1], line[k + 1]),
                };
                let (tx, ty) = (b[0] - a[0], b[1] - a[1]);
                let n = (tx * tx + ty * ty).sqrt();
                let n = if n < 1e-9 { 1.0 } else { n };
                let (tx, ty) = (tx / n, ty / n);
                let (px, py) = (-ty, tx);
                for side in [1.0, -1.0] {
                    let (x, y) = (line[k][0] + side * px * half, line[k][1] + side * py * half);
                    let z = if straight[k] { zc[k] } else { self.deck_height(x, y, lift) };
                    mesh.vertices.push([x as f32, y as f32, z as f32]);
                    mesh.flags.push(if in_tunnel[k] {
                        FLAG_TUNNEL
                    } else if on_bridge[k] || self.wet(x, y) {
                        FLAG_BRIDGE
                    } else {
                        0
                    });
                }
            }
            for k in 0..m as u32 - 1 {
                let (a, b, c, d) = (offset + 2 * k, offset + 2 * k + 1, offset + 2 * k + 2, offset + 2 * k + 3);
                mesh.triangles.push([a, b, c]);
                mesh.triangles.push([b, d, c]);
            }
        }
        mesh
    }
}
