//! Surface nets on analytic fields (sphere, torus), in chunks, and on random fields.

use bozkir_mesh::{check, surface_nets, surface_nets_chunk, Density, Mesh, MeshError, SurfaceNetsParams};
use proptest::prelude::*;

/// Samples `f` at the lattice points `lo + (i, j, k)`, layout x + nx (z + nz y).
fn sample(dims: [usize; 3], lo: [i64; 3], f: &dyn Fn([f64; 3]) -> f64) -> Vec<f32> {
    let mut out = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for y in 0..dims[1] {
        for z in 0..dims[2] {
            for x in 0..dims[0] {
                let p = [x as i64 + lo[0], y as i64 + lo[1], z as i64 + lo[2]].map(|c| c as f64);
                out.push(f(p) as f32);
            }
        }
    }
    out
}

const C: [f64; 3] = [15.3, 14.7, 15.1];

fn sphere(p: [f64; 3]) -> f64 {
    let d = [p[0] - C[0], p[1] - C[1], p[2] - C[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() - 10.0
}

/// Torus around the y axis through C: tube radius 4 at distance 10.
fn torus(p: [f64; 3]) -> f64 {
    let d = [p[0] - C[0], p[1] - C[1], p[2] - C[2]];
    let ring = (d[0] * d[0] + d[2] * d[2]).sqrt() - 10.0;
    (ring * ring + d[1] * d[1]).sqrt() - 4.0
}

fn mesh_whole(f: &dyn Fn([f64; 3]) -> f64, steps: u32) -> Mesh {
    let dims = [32, 32, 32];
    let d = sample(dims, [0; 3], f);
    surface_nets(&Density::new(dims, &d).unwrap(), &SurfaceNetsParams { projection_steps: steps, ..Default::default() })
        .unwrap()
}

fn max_distance(m: &Mesh, f: &dyn Fn([f64; 3]) -> f64) -> f64 {
    m.positions.iter().map(|p| f(p.map(f64::from)).abs()).fold(0.0, f64::max)
}

#[test]
fn sphere_is_a_closed_sphere_near_the_zero_set() {
    let m = mesh_whole(&sphere, 1);
    m.validate().unwrap();
    assert!(m.ao.is_empty());
    let e = check::edges(&m).unwrap();
    assert!(e.manifold(), "{e:?}");
    assert_eq!(check::euler(&m).unwrap().characteristic, 2);
    let dist = max_distance(&m, &sphere);
    assert!(dist < 0.05, "max distance {dist}");
    let vol = check::volume(&m).unwrap().signed_volume;
    let exact = 4.0 / 3.0 * std::f64::consts::PI * 1000.0;
    assert!((vol / exact - 1.0).abs() < 0.01, "volume {vol} vs {exact}");
    let area = check::area(&m).unwrap().area;
    let exact = 4.0 * std::f64::consts::PI * 100.0;
    assert!((area / exact - 1.0).abs() < 0.02, "area {area} vs {exact}");
    // Normals point out, along the radius.
    for (p, n) in m.positions.iter().zip(&m.normals) {
        let r: Vec<f64> = (0..3).map(|k| p[k] as f64 - C[k]).collect();
        let len = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        let dot: f64 = (0..3).map(|k| r[k] / len * n[k] as f64).sum();
        assert!(dot > 0.99, "normal {n:?} at {p:?}");
    }
    // Without the projection step the mean of the crossings is further off, but close.
    let raw = mesh_whole(&sphere, 0);
    let d0 = max_distance(&raw, &sphere);
    assert!(d0 > dist && d0 < 0.2, "unprojected {d0}, projected {dist}");
    println!("sphere r=10: max |f| {dist:.4} projected, {d0:.4} unprojected; {} vertices", m.vertex_count());
    assert_eq!(check::euler(&raw).unwrap().characteristic, 2);
}

#[test]
fn torus_has_euler_characteristic_zero() {
    let m = mesh_whole(&torus, 1);
    let e = check::edges(&m).unwrap();
    assert!(e.manifold(), "{e:?}");
    assert_eq!(check::euler(&m).unwrap().characteristic, 0);
    let dist = max_distance(&m, &torus);
    assert!(dist < 0.05, "max distance {dist}");
    println!("torus 10/4: max |f| {dist:.4}, unprojected {:.4}", max_distance(&mesh_whole(&torus, 0), &torus));
    let vol = check::volume(&m).unwrap().signed_volume;
    let exact = 2.0 * std::f64::consts::PI.powi(2) * 10.0 * 16.0;
    // Flat facets on a tube of radius 4 lose about 2 %.
    assert!((vol / exact - 1.0).abs() < 0.03, "volume {vol} vs {exact}");
}

/// The sphere meshed in chunks of `n` owned points per axis, each with its apron.
fn chunked(n: usize, counts: [i64; 3]) -> (Mesh, Vec<Mesh>) {
    let mut parts = Vec::new();
    for cy in 0..counts[1] {
        for cz in 0..counts[2] {
            for cx in 0..counts[0] {
                let o = [cx, cy, cz].map(|c| c * n as i64);
                let lo = o.map(|c| c - 1);
                let dims = [n + 2; 3];
                let d = sample(dims, lo, &sphere);
                let p = SurfaceNetsParams { origin: lo.map(|c| c as f64), ..Default::default() };
                parts.push(surface_nets_chunk(&Density::new(dims, &d).unwrap(), &p).unwrap());
            }
        }
    }
    (Mesh::merge(&parts).unwrap(), parts)
}

#[test]
fn chunks_meet_without_cracks() {
    // Eight chunks of 16³ owned points, then 27 of 11³.
    for (n, counts) in [(16usize, [2i64, 2, 2]), (11, [3, 3, 3])] {
        let (union, parts) = chunked(n, counts);
        assert!(parts.iter().filter(|p| !p.is_empty()).all(|p| check::edges(p).unwrap().boundary > 0));
        let e = check::edges(&union).unwrap();
        assert!(e.manifold(), "{n} {counts:?}: {e:?}");
        assert_eq!(check::euler(&union).unwrap().characteristic, 2);
        let whole = mesh_whole(&sphere, 1);
        assert_eq!(union.triangle_count(), whole.triangle_count());
        let w = check::weld(&union).unwrap();
        assert_eq!(w.positions.len(), whole.vertex_count());
        assert!(
            (check::volume(&union).unwrap().signed_volume - check::volume(&whole).unwrap().signed_volume).abs() < 1e-6
        );
    }
}

#[test]
fn two_chunks_along_x_close_only_together() {
    let n = 16;
    let mut parts = Vec::new();
    for cx in 0..2i64 {
        let lo = [cx * 16 - 1, -1, -1];
        let dims = [n + 2, 34, 34];
        let d = sample(dims, lo, &sphere);
        let p = SurfaceNetsParams { origin: lo.map(|c| c as f64), ..Default::default() };
        parts.push(surface_nets_chunk(&Density::new(dims, &d).unwrap(), &p).unwrap());
    }
    for p in &parts {
        assert!(check::edges(p).unwrap().boundary > 0, "each half is open");
    }
    let union = Mesh::merge(&parts).unwrap();
    let e = check::edges(&union).unwrap();
    assert!(e.manifold(), "{e:?}");
    assert_eq!(check::euler(&union).unwrap().characteristic, 2);
}

#[test]
fn refusals() {
    let d = vec![1.0f32; 8];
    assert!(matches!(Density::new([1, 2, 4], &d), Err(MeshError::DimsTooSmall { .. })));
    assert!(matches!(Density::new([2, 2, 3], &d), Err(MeshError::LengthMismatch { .. })));
    let mut bad = d.clone();
    bad[5] = f32::NAN;
    let e = Density::new([2, 2, 2], &bad).unwrap_err();
    assert!(e.to_string().contains("sample 5"), "{e}");
    let f = Density::new([2, 2, 2], &d).unwrap();
    assert!(surface_nets_chunk(&f, &SurfaceNetsParams::default()).is_err());
    let p = SurfaceNetsParams { projection_steps: 9, ..Default::default() };
    assert!(surface_nets(&f, &p).is_err());
    assert!(surface_nets(&f, &SurfaceNetsParams::default()).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random fields with an outside border: the mesh is closed and consistently wound (it may
    /// pinch at ambiguous cells, so pairing is checked, not manifoldness).
    #[test]
    fn random_fields_give_closed_meshes(
        dims in (3usize..=9, 3usize..=9, 3usize..=9),
        vals in prop::collection::vec(-1.0f32..1.0, 729),
        steps in 0u32..=2,
    ) {
        let dims = [dims.0, dims.1, dims.2];
        let mut d = vals[..dims[0] * dims[1] * dims[2]].to_vec();
        for y in 0..dims[1] {
            for z in 0..dims[2] {
                for x in 0..dims[0] {
                    if x == 0 || y == 0 || z == 0 || x == dims[0] - 1 || y == dims[1] - 1 || z == dims[2] - 1 {
                        d[x + dims[0] * (z + dims[2] * y)] = 1.0;
                    }
                }
            }
        }
        let f = Density::new(dims, &d).unwrap();
        let m = surface_nets(&f, &SurfaceNetsParams { projection_steps: steps, ..Default::default() }).unwrap();
        m.validate().unwrap();
        let e = check::edges(&m).unwrap();
        prop_assert_eq!(e.unbalanced, 0, "{:?}", e);
        // The whole grid equals the chunk mesh of the grid with one outside layer put before
        // every axis (origin −1): the chunk owns every edge from the original's index 0 on.
        let pd = dims.map(|n| n + 1);
        let mut padded = vec![1.0f32; pd[0] * pd[1] * pd[2]];
        for y in 0..dims[1] {
            for z in 0..dims[2] {
                for x in 0..dims[0] {
                    padded[(x + 1) + pd[0] * ((z + 1) + pd[2] * (y + 1))] = d[x + dims[0] * (z + dims[2] * y)];
                }
            }
        }
        let p = SurfaceNetsParams { projection_steps: steps, origin: [-1.0; 3], ..Default::default() };
        let c = surface_nets_chunk(&Density::new(pd, &padded).unwrap(), &p).unwrap();
        prop_assert_eq!(&c, &m);
        // Each vertex lies in its cell: within the grid.
        for p in &m.positions {
            for k in 0..3 {
                prop_assert!(p[k] >= 0.0 && p[k] <= (dims[k] - 1) as f32);
            }
        }
    }
}
