//! 3-D worlds for the faces: the cave's blocks are its sampled volume turned into the voxel
//! frame, its chunks reassemble it, its smooth surface separates rock from air; the voxel
//! world's blocks are its chunks.
use bozkir_voxel::block::ids::STONE;
use bozkir_world::cave::{sample_cave, CaveField, CaveParams};
use bozkir_world::product::WorldSpec;
use bozkir_world::solid::{CaveSolid, SolidField3D};
use bozkir_world::volume::{generate_cave_volume, generate_voxels, VoxelParams};
use bozkir_world::{Compat, Seed};

#[test]
fn cave_volume_is_the_sampled_cave_in_the_voxel_frame() {
    let p = CaveParams { length: 12.0, resolution: 0.75, ..CaveParams::default() };
    let seed = Seed::Str("cave".into());
    let v = generate_cave_volume(&seed, Compat::Pyworldgen, &p).unwrap();
    let c = sample_cave(&seed, Compat::Pyworldgen, &p).unwrap();
    assert_eq!(v.dims, [c.nx, c.nz, c.ny]);
    for x in 0..c.nx {
        for t in 0..c.ny {
            for u in 0..c.nz {
                assert_eq!(v.block(x, u, t) == STONE, c.solid(x, t, u), "({x}, {t}, {u})");
            }
        }
    }
    // The chunks hold the blocks.
    let e = 32;
    for ch in &v.chunks {
        let dense = ch.blocks().to_dense_vec();
        for (i, b) in dense.iter().enumerate() {
            let (x, z, y) = (i % e, (i / e) % e, i / (e * e));
            let g = [ch.coord.x as usize * e + x, ch.coord.y as usize * e + y, ch.coord.z as usize * e + z];
            let want = if g[0] < v.dims[0] && g[1] < v.dims[1] && g[2] < v.dims[2] {
                v.block(g[0], g[1], g[2])
            } else {
                bozkir_voxel::block::BlockId::AIR
            };
            assert_eq!(*b, want, "chunk {} local {i}", ch.coord);
        }
    }
    // The smooth surface lies on the field's zero set, rock behind it and air in front: at each
    // vertex (blocks → metres) the field a quarter block along the normal is positive, a quarter
    // block against it not, at 9 of 10 vertices (94 % measured at 0.75 m blocks; the rest sit
    // where the field turns faster than the lattice resolves, or at a speleothem's step).
    let m = v.smooth.as_ref().unwrap();
    assert!(m.triangle_count() > 1000);
    let field = CaveSolid(CaveField::for_seed(&p, &seed, Compat::Pyworldgen));
    let r = p.resolution;
    let (mut agree, mut total) = (0, 0);
    for (q, n) in m.positions.iter().zip(&m.normals) {
        let at = |s: f64| {
            field.value(
                (f64::from(q[0]) + s * f64::from(n[0])) * r,
                (f64::from(q[1]) + s * f64::from(n[1])) * r,
                (f64::from(q[2]) + s * f64::from(n[2])) * r,
            )
        };
        // The shell's outer layer is forced solid; judge the cave's own surface.
        if q[0] < 1.0 || q[1] < 1.0 || q[0] > v.dims[0] as f32 - 1.0 || q[1] > v.dims[1] as f32 - 1.0 {
            continue;
        }
        total += 1;
        agree += usize::from(at(-0.25) <= 0.0 && at(0.25) > 0.0);
    }
    assert!(total > 5000 && agree as f64 > 0.9 * total as f64, "{agree} of {total} vertices between rock and air");
}

#[test]
fn a_cave_too_large_for_a_3d_world_is_refused_before_sampling() {
    let p = CaveParams { resolution: 0.1, ..CaveParams::default() };
    let e = generate_cave_volume(&Seed::Int(1), Compat::Pyworldgen, &p).unwrap_err().to_string();
    assert!(e.contains("resolution") && e.contains("at most 268435456"), "{e}");
}

#[test]
fn voxel_world_blocks_are_its_chunks_and_regenerate_identically() {
    let p = VoxelParams { chunk_size: 16, chunks_from: [-1, -1, 0], chunks_to: [0, 0, 1], ..VoxelParams::default() };
    let v = generate_voxels(&Seed::Int(12345), Compat::Pyworldgen, &p).unwrap();
    assert_eq!(v.dims, [32, 32, 32]);
    assert_eq!(v.origin, [-16, -16, 0]);
    assert_eq!(v.chunks.len(), 8);
    for ch in &v.chunks {
        let dense = ch.blocks().to_dense_vec();
        for (i, b) in dense.iter().enumerate() {
            let (x, z, y) = (i % 16, (i / 16) % 16, i / 256);
            let g =
                [(ch.coord.x + 1) as usize * 16 + x, (ch.coord.y + 1) as usize * 16 + y, ch.coord.z as usize * 16 + z];
            assert_eq!(*b, v.block(g[0], g[1], g[2]));
        }
    }
    let o = serde_json::json!({ "chunk_size": 16, "chunks_from": [-1, -1, 0], "chunks_to": [0, 0, 1] });
    let spec = WorldSpec::resolve("voxels", Seed::Int(12345), Compat::Pyworldgen, o.as_object().unwrap()).unwrap();
    assert_eq!(spec.volume_dims().unwrap(), [32, 32, 32]);
    let again = WorldSpec::from_json(&spec.to_json()).unwrap().generate_volume().unwrap();
    assert_eq!(again.blocks, v.blocks);
    assert_eq!(again.chunks, v.chunks);
}

#[test]
fn a_real_dem_becomes_voxel_terrain() {
    use bozkir_voxel::block::ids::{AIR, GRASS};
    use bozkir_voxel::block::BlockRegistry;
    use bozkir_voxel::coords::{ChunkPos, ChunkSize};
    use bozkir_world::voxels::terrain::{GridSurface, TerrainPass};
    use bozkir_world::voxels::{Pass, Scheduler, VoxelWorld};
    use std::sync::Arc;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dem/srtm_ref.tif");
    let dem = bozkir_io::read_dem(path).unwrap();
    // The window of carve_rivers' test (no nodata): 160 × 160 cells of about 71 m × 92 m.
    let g = &dem.heights;
    let grid = bozkir_core::Grid::from_fn(160, 160, |x, y| *g.get(420 + x, 300 + y)).with_cell_size(g.dx, g.dy);
    let (lo, hi) = grid.data().iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    // 30 m blocks, datum at the lowest point: the whole relief in a few chunks of 16.
    let block = 30.0;
    let surface = GridSurface::new(Arc::new(grid.clone()), block, lo).unwrap();
    let top = ((hi - lo) / block).floor() as i32;
    let world =
        VoxelWorld { seed: 0, compat: Compat::Canonical, size: ChunkSize::S16, registry: BlockRegistry::pyworldgen() };
    let passes: Vec<Box<dyn Pass>> = vec![Box::new(TerrainPass::new(surface.clone()))];
    let coords: Vec<ChunkPos> =
        (0..2).flat_map(|x| (0..=top / 16).flat_map(move |y| (0..2).map(move |z| ChunkPos::new(x, y, z)))).collect();
    let chunks = Scheduler::new(passes).unwrap().generate_dense(&world, &coords).unwrap();
    let mut checked = 0;
    for c in &chunks {
        let [ox, oy, oz] = c.origin();
        for z in 0..16 {
            for x in 0..16 {
                // The column's surface: the DEM's bilinear height at the block centre, in blocks.
                let (mx, mz) = ((ox as f64 + x as f64 + 0.5) * block, (oz as f64 + z as f64 + 0.5) * block);
                let (gx, gz) = (
                    (mx / grid.dx - 0.5).clamp(0.0, (grid.width() - 1) as f64),
                    (mz / grid.dy - 0.5).clamp(0.0, (grid.height() - 1) as f64),
                );
                let (i, j) = (gx.round() as usize, gz.round() as usize);
                let near = *grid.get(i, j);
                let h = i64::from(c.heightmap[x + 16 * z]);
                // Bilinear between cell centres stays within the four cells around.
                let around: Vec<f64> = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|&(a, b)| {
                        *grid.get(
                            (gx.floor() as usize + a).min(grid.width() - 1),
                            (gz.floor() as usize + b).min(grid.height() - 1),
                        )
                    })
                    .collect();
                let (a, b) = around.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(p, q), &v| (p.min(v), q.max(v)));
                assert!(
                    h >= ((a - lo) / block).floor() as i64 && h <= ((b - lo) / block).floor() as i64,
                    "column ({x},{z}) of {}: {h} vs {near}",
                    c.coord
                );
                for y in 0..16 {
                    let wy = oy + y as i64;
                    let b = c.blocks[x + 16 * (z + 16 * y)];
                    if wy == h {
                        assert_eq!(b, GRASS);
                    } else if wy > h {
                        assert_eq!(b, AIR);
                    } else {
                        assert_ne!(b, AIR);
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000 && top >= 3, "{checked} columns, {top} blocks of relief");
}
