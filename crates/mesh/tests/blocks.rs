//! The block meshers (culled, greedy) against brute force on random volumes.

use std::collections::BTreeMap;

use bozkir_mesh::{check, culled_mesh, greedy_mesh, BlockKinds, BlockParams, KindFns, Mesh, SolidNonZero, Voxels};
use proptest::prelude::*;

/// Ids drawn: air often, three solids, water (5) and leaves (7), see-through in [`see_through`].
const IDS: [u16; 9] = [0, 0, 0, 0, 1, 2, 3, 5, 7];

fn see_through() -> impl BlockKinds {
    KindFns::new(|id| id != 0, |id| id != 0 && id != 5 && id != 7)
}

/// A random volume: dims (apron included) and ids; `closed` makes the apron air.
fn volume(closed: bool) -> impl Strategy<Value = ([usize; 3], Vec<u16>)> {
    (3usize..=9, 3usize..=9, 3usize..=9).prop_flat_map(move |(nx, ny, nz)| {
        prop::collection::vec(prop::sample::select(IDS.to_vec()), nx * ny * nz).prop_map(move |mut d| {
            if closed {
                for y in 0..ny {
                    for z in 0..nz {
                        for x in 0..nx {
                            let edge = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                            if edge {
                                d[x + nx * (z + nz * y)] = 0;
                            }
                        }
                    }
                }
            }
            ([nx, ny, nz], d)
        })
    })
}

fn at(dims: [usize; 3], d: &[u16], p: [i64; 3]) -> u16 {
    d[p[0] as usize + dims[0] * (p[2] as usize + dims[2] * p[1] as usize)]
}

/// Brute-force set of faces (padded voxel, axis, sign) by the rule visible(a) && !opaque(b) && a != b.
fn faces(dims: [usize; 3], d: &[u16], k: &dyn BlockKinds) -> Vec<([i64; 3], usize, i64)> {
    let mut out = Vec::new();
    for y in 1..dims[1] as i64 - 1 {
        for z in 1..dims[2] as i64 - 1 {
            for x in 1..dims[0] as i64 - 1 {
                let p = [x, y, z];
                let a = at(dims, d, p);
                for axis in 0..3 {
                    for sign in [-1i64, 1] {
                        let mut q = p;
                        q[axis] += sign;
                        let b = at(dims, d, q);
                        if k.visible(a) && !k.opaque(b) && a != b {
                            out.push((p, axis, sign));
                        }
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// Normal axis and sign of quad `q`.
fn quad_dir(m: &Mesh, q: usize) -> (usize, i64) {
    let n = m.normals[4 * q];
    let axis = (0..3).find(|&k| n[k] != 0.0).unwrap();
    (axis, n[axis] as i64)
}

/// The faces of a mesh of unit quads, as (padded voxel, axis, sign).
fn unit_faces(m: &Mesh) -> Vec<([i64; 3], usize, i64)> {
    let mut out: Vec<_> = (0..m.quad_count())
        .map(|q| {
            let (axis, sign) = quad_dir(m, q);
            let c = &m.positions[4 * q..4 * q + 4];
            let mut v = [0i64; 3];
            for k in 0..3 {
                let mid = c.iter().map(|p| p[k] as f64).sum::<f64>() / 4.0;
                let mid = if k == axis { mid - 0.5 * sign as f64 } else { mid };
                v[k] = mid.floor() as i64 + 1;
            }
            (v, axis, sign)
        })
        .collect();
    out.sort();
    out
}

/// Brute-force occlusion of every quad corner, and the diagonal rule.
fn check_ao(m: &Mesh, dims: [usize; 3], d: &[u16], k: &dyn BlockKinds) -> Result<(), TestCaseError> {
    for q in 0..m.quad_count() {
        let (axis, sign) = quad_dir(m, q);
        let c = &m.positions[4 * q..4 * q + 4];
        let lo: Vec<i64> = (0..3).map(|t| c.iter().map(|p| p[t] as i64).min().unwrap()).collect();
        let hi: Vec<i64> = (0..3).map(|t| c.iter().map(|p| p[t] as i64).max().unwrap()).collect();
        let mut ao = [0u8; 4];
        for (corner, p) in c.iter().enumerate() {
            let p = p.map(|x| x as i64);
            // The unit face of the quad at this corner, and the voxel in front of it (padded).
            let mut front = [0i64; 3];
            for t in 0..3 {
                front[t] = if t == axis {
                    p[t] + if sign > 0 { 0 } else { -1 } + 1
                } else if p[t] == lo[t] {
                    p[t] + 1
                } else {
                    prop_assert_eq!(p[t], hi[t]);
                    p[t]
                };
            }
            let opaque = |v: [i64; 3]| k.opaque(at(dims, d, v));
            let mut sides = 0;
            let mut count = 0;
            for du in [-1i64, 0] {
                for dv in [-1i64, 0] {
                    let mut cell = front;
                    let ts: Vec<usize> = (0..3).filter(|&t| t != axis).collect();
                    cell[ts[0]] = p[ts[0]] + du + 1;
                    cell[ts[1]] = p[ts[1]] + dv + 1;
                    let differ = (cell[ts[0]] != front[ts[0]]) as u8 + (cell[ts[1]] != front[ts[1]]) as u8;
                    if differ == 0 {
                        prop_assert!(!opaque(cell), "a face toward an opaque voxel");
                        continue;
                    }
                    if opaque(cell) {
                        count += 1;
                        if differ == 1 {
                            sides += 1;
                        }
                    }
                }
            }
            let want = if sides == 2 { 0 } else { 3 - count };
            prop_assert_eq!(m.ao[4 * q + corner], want, "quad {} corner {}", q, corner);
            ao[corner] = want;
        }
        let s = 4 * q as u32;
        let first = m.indices[6 * q];
        let flip = ao[1] + ao[3] > ao[0] + ao[2];
        prop_assert_eq!(first, if flip { s + 1 } else { s });
    }
    Ok(())
}

/// Area per (block, normal), in quarter units to key exactly.
fn area_by_kind(m: &Mesh) -> BTreeMap<(u16, [i8; 3]), u64> {
    let mut out = BTreeMap::new();
    for q in 0..m.quad_count() {
        let c = &m.positions[4 * q..4 * q + 4];
        let a: f64 = (0..3)
            .map(|t| c.iter().map(|p| p[t]).fold(f32::MIN, f32::max) - c.iter().map(|p| p[t]).fold(f32::MAX, f32::min))
            .filter(|&e| e > 0.0)
            .map(f64::from)
            .product();
        let n = m.normals[4 * q].map(|x| x as i8);
        *out.entry((m.block[4 * q], n)).or_insert(0) += a as u64;
    }
    out
}

/// Lattice edges where two solid voxels touch diagonally (four faces share the edge).
fn checkerboard_edges(dims: [usize; 3], d: &[u16]) -> usize {
    let mut n = 0;
    for axis in 0..3 {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for s in 1..dims[axis] as i64 - 1 {
            for pu in 1..dims[u] as i64 {
                for pv in 1..dims[v] as i64 {
                    let solid = |du: i64, dv: i64| {
                        let mut p = [0i64; 3];
                        p[axis] = s;
                        p[u] = pu + du;
                        p[v] = pv + dv;
                        at(dims, d, p) != 0
                    };
                    let (a, b, c, e) = (solid(-1, -1), solid(0, -1), solid(-1, 0), solid(0, 0));
                    if a == e && b == c && a != b {
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

fn solid_count(d: &[u16]) -> f64 {
    d.iter().filter(|&&id| id != 0).count() as f64
}

/// The textbook greedy sweep (Lysenko 2012) over the culled mesher's faces: per direction
/// (+x, −x, +y, −y, +z, −z) and slice, a dense (u, v) mask of (block, corner occlusion) swept
/// row by row. The quads, in order, as (corners, block, occlusion).
fn reference_greedy(culled: &Mesh, dims: [usize; 3]) -> Vec<([[f32; 3]; 4], u16, Vec<u8>)> {
    const TANGENTS: [(usize, i64, usize, usize); 6] =
        [(0, 1, 1, 2), (0, -1, 2, 1), (1, 1, 2, 0), (1, -1, 0, 2), (2, 1, 0, 1), (2, -1, 1, 0)];
    let mut by_face = BTreeMap::new();
    for (q, f) in (0..culled.quad_count()).map(|q| (q, unit_faces_one(culled, q))) {
        by_face.insert(f, (culled.block[4 * q], culled.ao[4 * q..4 * q + 4].to_vec()));
    }
    let mut out = Vec::new();
    for (axis, sign, u, v) in TANGENTS {
        let (nu, nv) = (dims[u] - 2, dims[v] - 2);
        for s in 1..dims[axis] as i64 - 1 {
            let mut mask: Vec<Option<(u16, Vec<u8>)>> = vec![None; nu * nv];
            for j in 0..nv {
                for i in 0..nu {
                    let mut p = [0i64; 3];
                    p[axis] = s;
                    p[u] = i as i64 + 1;
                    p[v] = j as i64 + 1;
                    mask[j * nu + i] = by_face.get(&(p, axis, sign)).cloned();
                }
            }
            for j in 0..nv {
                for i in 0..nu {
                    let Some(key) = mask[j * nu + i].clone() else { continue };
                    let mut w = 1;
                    while i + w < nu && mask[j * nu + i + w].as_ref() == Some(&key) {
                        w += 1;
                    }
                    let mut h = 1;
                    while j + h < nv && (0..w).all(|x| mask[(j + h) * nu + i + x].as_ref() == Some(&key)) {
                        h += 1;
                    }
                    for r in 0..h {
                        for x in 0..w {
                            mask[(j + r) * nu + i + x] = None;
                        }
                    }
                    let at = |du: usize, dv: usize| {
                        let mut c = [0f32; 3];
                        c[axis] = (s - 1 + (sign > 0) as i64) as f32;
                        c[u] = (i + du) as f32;
                        c[v] = (j + dv) as f32;
                        c
                    };
                    let ao: Vec<u8> = [0usize, 1, 2, 3].iter().map(|&c| key.1[c]).collect();
                    out.push(([at(0, 0), at(w, 0), at(w, h), at(0, h)], key.0, ao));
                }
            }
        }
    }
    out
}

fn unit_faces_one(m: &Mesh, q: usize) -> ([i64; 3], usize, i64) {
    let (axis, sign) = quad_dir(m, q);
    let c = &m.positions[4 * q..4 * q + 4];
    let mut v = [0i64; 3];
    for k in 0..3 {
        let mid = c.iter().map(|p| p[k] as f64).sum::<f64>() / 4.0;
        let mid = if k == axis { mid - 0.5 * sign as f64 } else { mid };
        v[k] = mid.floor() as i64 + 1;
    }
    (v, axis, sign)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn greedy_equals_the_textbook_sweep((dims, d) in volume(false)) {
        let k = see_through();
        let v = Voxels::new(dims, &d).unwrap();
        let c = culled_mesh(&v, &k, &BlockParams::default()).unwrap();
        let g = greedy_mesh(&v, &k, &BlockParams::default()).unwrap();
        let want = reference_greedy(&c, dims);
        prop_assert_eq!(g.quad_count(), want.len());
        for (q, (corners, block, ao)) in want.iter().enumerate() {
            prop_assert_eq!(&g.positions[4 * q..4 * q + 4], &corners[..]);
            prop_assert_eq!(g.block[4 * q], *block);
            prop_assert_eq!(&g.ao[4 * q..4 * q + 4], &ao[..]);
        }
    }

    #[test]
    fn culled_is_closed_and_counts_voxels((dims, d) in volume(true)) {
        let v = Voxels::new(dims, &d).unwrap();
        let m = culled_mesh(&v, &SolidNonZero, &BlockParams::default()).unwrap();
        m.validate().unwrap();
        let e = check::edges(&m).unwrap();
        prop_assert!(e.watertight(), "{:?}", e);
        prop_assert_eq!(e.non_manifold, checkerboard_edges(dims, &d));
        prop_assert_eq!(e.boundary + e.same_direction, 0);
        prop_assert!(check::coverage(&m).unwrap().closed());
        prop_assert_eq!(check::volume(&m).unwrap().signed_volume, solid_count(&d));
        prop_assert_eq!(unit_faces(&m), faces(dims, &d, &SolidNonZero));
    }

    #[test]
    fn greedy_is_the_culled_surface((dims, d) in volume(true), ao in any::<bool>()) {
        let v = Voxels::new(dims, &d).unwrap();
        let p = BlockParams { ao, ..BlockParams::default() };
        let c = culled_mesh(&v, &SolidNonZero, &p).unwrap();
        let g = greedy_mesh(&v, &SolidNonZero, &p).unwrap();
        g.validate().unwrap();
        prop_assert_eq!(g.ao.len(), if ao { g.vertex_count() } else { 0 });
        let cov = check::coverage(&g).unwrap();
        prop_assert!(cov.closed(), "{:?}", cov);
        prop_assert_eq!(check::volume(&g).unwrap().signed_volume, solid_count(&d));
        prop_assert_eq!(check::area(&g).unwrap().area, check::area(&c).unwrap().area);
        prop_assert_eq!(area_by_kind(&g), area_by_kind(&c));
        prop_assert!(g.quad_count() <= c.quad_count());
        if ao {
            check_ao(&g, dims, &d, &SolidNonZero)?;
        }
    }

    #[test]
    fn faces_and_occlusion_match_brute_force((dims, d) in volume(false)) {
        let k = see_through();
        let v = Voxels::new(dims, &d).unwrap();
        let p = BlockParams::default();
        let c = culled_mesh(&v, &k, &p).unwrap();
        prop_assert_eq!(unit_faces(&c), faces(dims, &d, &k));
        check_ao(&c, dims, &d, &k)?;
        let g = greedy_mesh(&v, &k, &p).unwrap();
        check_ao(&g, dims, &d, &k)?;
        prop_assert_eq!(area_by_kind(&g), area_by_kind(&c));
        prop_assert!(g.quad_count() <= c.quad_count());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Two chunks cut from one volume along x, each with its apron taken from the volume,
    /// meshed apart and placed by their origins, give the whole volume's faces.
    #[test]
    fn chunks_with_aprons_tile((dims, d) in volume(false), cut in 1usize..6, greedy in any::<bool>()) {
        let [nx, ny, nz] = dims;
        prop_assume!(cut + 1 < nx - 1);
        let k = see_through();
        let mesh = |v: &Voxels, origin: f64| {
            let p = BlockParams { origin: [origin, 0.0, 0.0], ..BlockParams::default() };
            if greedy { greedy_mesh(v, &k, &p).unwrap() } else { culled_mesh(v, &k, &p).unwrap() }
        };
        // Interior x of the whole volume: 1..nx-1; chunk A owns 1..=cut, chunk B cut+1..nx-1.
        let part = |x0: usize, x1: usize| -> Vec<u16> {
            // Columns x0-1 ..= x1+1 (apron included).
            let w = x1 - x0 + 3;
            let mut out = vec![0u16; w * ny * nz];
            for y in 0..ny {
                for z in 0..nz {
                    for x in 0..w {
                        out[x + w * (z + nz * y)] = d[(x0 - 1 + x) + nx * (z + nz * y)];
                    }
                }
            }
            out
        };
        let (a, b) = (part(1, cut), part(cut + 1, nx - 2));
        let va = Voxels::new([cut + 2, ny, nz], &a).unwrap();
        let vb = Voxels::new([nx - 2 - cut + 2, ny, nz], &b).unwrap();
        let union = Mesh::merge([&mesh(&va, 0.0), &mesh(&vb, cut as f64)]).unwrap();
        let whole = mesh(&Voxels::new(dims, &d).unwrap(), 0.0);
        prop_assert_eq!(area_by_kind(&union), area_by_kind(&whole));
        if !greedy {
            prop_assert_eq!(unit_faces(&union), unit_faces(&whole));
            prop_assert_eq!(check::volume(&union).unwrap(), check::volume(&whole).unwrap());
        }
    }
}

#[test]
fn origin_moves_and_kinds_change_faces() {
    // Water (5) over stone (1) in a 1×2×1 column inside an air apron.
    let dims = [3, 4, 3];
    let mut d = vec![0u16; 36];
    d[1 + 3 * (1 + 3)] = 1;
    d[1 + 3 * (1 + 3 * 2)] = 5;
    let v = Voxels::new(dims, &d).unwrap();
    let solid = culled_mesh(&v, &SolidNonZero, &BlockParams::default()).unwrap();
    assert_eq!(solid.quad_count(), 10);
    let k = see_through();
    let m = culled_mesh(&v, &k, &BlockParams::default()).unwrap();
    // The stone shows its top to the water (6 faces); the water its five toward air (the stone
    // below is opaque).
    assert_eq!(m.quad_count(), 11);
    let moved = culled_mesh(&v, &k, &BlockParams { origin: [10.0, -4.0, 2.5], ao: true }).unwrap();
    for (a, b) in m.positions.iter().zip(&moved.positions) {
        assert_eq!([a[0] + 10.0, a[1] - 4.0, a[2] + 2.5], *b);
    }
    assert!(culled_mesh(&v, &k, &BlockParams { origin: [f64::NAN, 0.0, 0.0], ao: true }).is_err());
    // Same input, same bytes.
    assert_eq!(
        greedy_mesh(&v, &k, &BlockParams::default()).unwrap(),
        greedy_mesh(&v, &k, &BlockParams::default()).unwrap()
    );
}

#[test]
fn a_slab_greedy_merges_to_six_quads_with_corner_occlusion() {
    // 4×1×4 slab with a 1-voxel pillar on top at a corner: the top face's occlusion varies.
    let dims = [6, 4, 6];
    let mut d = vec![0u16; 6 * 4 * 6];
    for z in 1..5 {
        for x in 1..5 {
            d[x + 6 * z + 36] = 1;
        }
    }
    let v = Voxels::new(dims, &d).unwrap();
    let g = greedy_mesh(&v, &SolidNonZero, &BlockParams::default()).unwrap();
    assert_eq!(g.quad_count(), 6);
    assert!(g.ao.iter().all(|&a| a == 3));
    d[1 + 6 + 72] = 1; // pillar at local (0, 1, 0)
    let v = Voxels::new(dims, &d).unwrap();
    let g = greedy_mesh(&v, &SolidNonZero, &BlockParams::default()).unwrap();
    let c = culled_mesh(&v, &SolidNonZero, &BlockParams::default()).unwrap();
    assert!(g.quad_count() < c.quad_count());
    assert!(g.ao.contains(&2), "corners beside the pillar are darker");
}

mod common;

#[test]
fn terrain_chunk_greedy_matches_culled() {
    let d = common::terrain_chunk(5, -3, 11);
    let k = see_through();
    let v = Voxels::new(common::DIMS, &d).unwrap();
    let p = BlockParams::default();
    let c = culled_mesh(&v, &k, &p).unwrap();
    let g = greedy_mesh(&v, &k, &p).unwrap();
    assert_eq!(area_by_kind(&g), area_by_kind(&c));
    let mut runner = proptest::test_runner::TestRunner::default();
    runner.run(&Just(()), |_| check_ao(&g, common::DIMS, &d, &k)).unwrap();
    println!(
        "terrain chunk: culled {} quads, greedy {} quads ({:.1}x fewer)",
        c.quad_count(),
        g.quad_count(),
        c.quad_count() as f64 / g.quad_count() as f64
    );
    let flat = greedy_mesh(&v, &k, &BlockParams { ao: false, ..p }).unwrap();
    println!("without occlusion: greedy {} quads", flat.quad_count());
    assert!(g.quad_count() < c.quad_count());
    assert!(flat.quad_count() < g.quad_count());
    // With an air apron the chunk is closed.
    let mut closed = d.clone();
    let [nx, ny, nz] = common::DIMS;
    for y in 0..ny {
        for z in 0..nz {
            for x in 0..nx {
                if x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1 {
                    closed[x + nx * (z + nz * y)] = 0;
                }
            }
        }
    }
    let v = Voxels::new(common::DIMS, &closed).unwrap();
    let g = greedy_mesh(&v, &SolidNonZero, &p).unwrap();
    assert!(check::coverage(&g).unwrap().closed());
    assert_eq!(check::volume(&g).unwrap().signed_volume, solid_count(&closed));
}
