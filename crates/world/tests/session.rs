//! Live 3-D worlds (`voxels::session`): the chunks a session streams are the chunks the CLI
//! writes, meshes wait for their neighbours and follow them, the cave's chunk surfaces close
//! into one surface, and the walker's blocks answer as the chunks do.
use std::collections::BTreeSet;

use bozkir_mesh::{check, Mesh};
use bozkir_voxel::block::ids::{AIR, STONE, WATER};
use bozkir_voxel::coords::ChunkPos;
use bozkir_voxel::stream::StreamParams;
use bozkir_world::cave::CaveParams;
use bozkir_world::product::WorldSpec;
use bozkir_world::volume::{generate_cave_volume, generate_voxels, VoxelParams};
use bozkir_world::voxels::{ChunkMesh, SessionParams, VoxelSession};
use bozkir_world::{Compat, Seed};
use serde_json::{json, Value};

fn spec(generator: &str, seed: Seed, params: Value) -> WorldSpec {
    let Value::Object(o) = params else { panic!("params must be an object") };
    WorldSpec::resolve(generator, seed, Compat::Pyworldgen, &o).unwrap()
}

fn session(s: &WorldSpec, h: u32, v: u32, budget: usize) -> VoxelSession {
    let stream = StreamParams { horizontal_radius: h, vertical_radius: v, budget };
    VoxelSession::open(s, SessionParams { stream }).unwrap()
}

/// Streams until nothing more loads; returns every chunk loaded on the way.
fn fill(s: &mut VoxelSession, at: [f64; 3]) -> BTreeSet<ChunkPos> {
    let mut all = BTreeSet::new();
    for _ in 0..10_000 {
        let u = s.update(at).unwrap();
        if u.loaded.is_empty() {
            return all;
        }
        all.extend(u.loaded);
    }
    panic!("streaming never settled");
}

fn to_mesh(parts: &[ChunkMesh]) -> Mesh {
    let mut m = Mesh::new();
    for p in parts {
        let base = m.positions.len() as u32;
        m.positions.extend(&p.positions);
        m.normals.extend(&p.normals);
        m.block.extend(std::iter::repeat_n(1u16, p.positions.len()));
        m.indices.extend(p.indices.iter().map(|i| i + base));
    }
    m
}

#[test]
fn voxel_chunks_are_the_worlds_chunks_and_meshes_follow_their_neighbours() {
    let seed = Seed::Str("session".into());
    let s = spec("voxels", seed.clone(), json!({"chunk_size": 16}));
    let mut sess = session(&s, 1, 1, 4);
    // The first update loads the budget, nearest first: the viewer's chunk leads.
    let first = sess.update([5.0, 10.0, 5.0]).unwrap();
    assert_eq!(first.loaded.len(), 4);
    assert_eq!(first.loaded[0], ChunkPos::new(0, 0, 0));
    // Nothing is ready while a neighbour in radius is missing.
    assert!(sess.pending(100).is_empty());
    let loaded = fill(&mut sess, [5.0, 10.0, 5.0]);
    // The stream cylinder: radius 1 across (5 columns), 1 up and down.
    assert_eq!(loaded.len() + 4, 15);
    // Every loaded chunk is the chunk `bozkir world voxels` makes for it.
    let p = VoxelParams { chunk_size: 16, chunks_from: [-1, -1, -1], chunks_to: [1, 1, 1], ..VoxelParams::default() };
    let vol = generate_voxels(&seed, Compat::Pyworldgen, &p).unwrap();
    let mut solid_and_air = 0;
    for c in sess.loaded() {
        let ch = sess.chunk(c).unwrap();
        let cli = vol.chunks.iter().find(|k| k.coord == c).unwrap();
        assert_eq!(ch.blocks, cli.blocks().to_dense_vec(), "chunk {c}");
        if ch.blocks.contains(&AIR) && ch.blocks.iter().any(|&b| b != AIR) {
            solid_and_air += 1;
        }
    }
    assert!(solid_and_air >= 3, "the viewer should stand near the ground ({solid_and_air} mixed chunks)");
    // All loaded: every chunk is ready (its missing neighbours are out of radius).
    let pending = sess.pending(100);
    assert_eq!(pending.len(), 15);
    assert_eq!(pending[0], ChunkPos::new(0, 0, 0));
    let meshes: Vec<ChunkMesh> = pending.iter().map(|&c| sess.mesh(c).unwrap()).collect();
    assert!(sess.pending(100).is_empty());
    assert!(meshes.iter().map(|m| m.indices.len()).sum::<usize>() > 0);
    for m in &meshes {
        assert_eq!(m.colours.len(), m.positions.len());
        assert_eq!(m.normals.len(), m.positions.len());
        assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
    }
    // The same chunk meshed in another session, reached by another path, is the same mesh.
    let mut other = session(&s, 1, 1, 1);
    fill(&mut other, [5.0, 10.0, 5.0]);
    let again = other.mesh(ChunkPos::new(0, 0, 0)).unwrap();
    assert_eq!(again, meshes[0]);
    // Moving one chunk east: nothing goes (hysteresis: a chunk goes beyond radius + 1), the
    // east column comes, and the chunks next to the new ones are meshed again.
    let before: BTreeSet<ChunkPos> = sess.loaded().collect();
    let u = sess.update([5.0 + 16.0, 10.0, 5.0]).unwrap();
    assert!(u.unloaded.is_empty(), "{:?}", u.unloaded);
    assert!(!u.loaded.is_empty() && u.loaded.iter().all(|c| c.x >= 1 && !before.contains(c)), "{:?}", u.loaded);
    fill(&mut sess, [21.0, 10.0, 5.0]);
    let again = sess.pending(100);
    assert!(again.contains(&ChunkPos::new(1, 0, 0)), "a chunk whose neighbours arrived is stale");
    assert!(!again.contains(&ChunkPos::new(-1, 0, 0)), "a chunk whose neighbours stayed is current");
    // Two chunks further: the west columns go.
    let u = sess.update([5.0 + 48.0, 10.0, 5.0]).unwrap();
    assert!(!u.unloaded.is_empty() && u.unloaded.iter().all(|c| (c.x - 3).pow(2) + c.z.pow(2) > 4), "{:?}", u.unloaded);
    assert!(u.unloaded.iter().all(|c| !sess.loaded().any(|l| l == *c)));
}

#[test]
fn the_caves_blocks_are_the_volumes_and_its_chunk_surfaces_close() {
    let seed = Seed::Str("cave".into());
    let params = json!({"length": 30.0, "resolution": 1.5});
    let s = spec("implicit_cave", seed.clone(), params.clone());
    let mut sess = session(&s, 8, 8, 64);
    let bounds = sess.block_bounds().unwrap();
    let loaded = fill(&mut sess, [38.0, 18.0, 10.0]);
    // Never a chunk beyond one past the box.
    let e = 32;
    for c in &loaded {
        for (a, v) in [c.x, c.y, c.z].into_iter().enumerate() {
            assert!(v >= -1 && i64::from(v) <= bounds.1[a] / e, "chunk {c} outside the cave's box");
        }
    }
    let p = CaveParams::from_json(&params).unwrap();
    let vol = generate_cave_volume(&seed, Compat::Pyworldgen, &p).unwrap();
    assert_eq!(bounds.1, vol.dims.map(|d| d as i64));
    let [nx, ny, nz] = vol.dims;
    let mut rock = 0;
    for y in -2..ny as i32 + 2 {
        for z in -2..nz as i32 + 2 {
            for x in -2..nx as i32 + 2 {
                let inside = x >= 0 && y >= 0 && z >= 0 && (x as usize) < nx && (y as usize) < ny && (z as usize) < nz;
                let want = if inside { vol.block(x as usize, y as usize, z as usize) } else { AIR };
                let got = sess.block(bozkir_voxel::coords::BlockPos::new(x, y, z)).unwrap();
                assert_eq!(got, want, "block ({x}, {y}, {z})");
                assert_eq!(sess.is_solid(x, y, z), want == STONE);
                rock += usize::from(want == STONE);
            }
        }
    }
    assert!(rock > 0 && rock < nx * ny * nz);
    // The surfaces of all chunks weld into one closed, consistently wound surface.
    let pending = sess.pending(1000);
    assert_eq!(pending.len(), loaded.len());
    let parts: Vec<ChunkMesh> = pending.iter().map(|&c| sess.mesh(c).unwrap()).collect();
    let m = to_mesh(&parts);
    assert!(m.triangle_count() > 1000);
    let r = check::edges(&m).unwrap();
    assert!(r.watertight(), "{r:?}");
    assert_eq!(r.boundary, 0, "{r:?}");
    // Closed around the rock: the enclosed volume is positive and close to the rock blocks'.
    let v = check::volume(&m).unwrap();
    let ratio = v.signed_volume / rock as f64;
    assert!((0.8..1.2).contains(&ratio), "mesh volume {} vs {rock} rock blocks", v.signed_volume);
}

#[test]
fn a_session_refuses_what_it_cannot_open() {
    let e = |s: WorldSpec| VoxelSession::open(&s, SessionParams::default()).unwrap_err().to_string();
    assert!(e(spec("flat", Seed::Int(1), json!({}))).contains("height-field"));
    let mut on = spec("voxels", Seed::Int(1), json!({}));
    on.on = Some("dem.tif".into());
    assert!(e(on).contains("--on"));
    let s = spec("voxels", Seed::Int(1), json!({"chunk_size": 8}));
    let zero = StreamParams { budget: 0, ..StreamParams::default() };
    assert!(VoxelSession::open(&s, SessionParams { stream: zero }).unwrap_err().to_string().contains("budget"));
    let mut sess = VoxelSession::open(&s, SessionParams::default()).unwrap();
    assert!(sess.update([f64::NAN, 0.0, 0.0]).unwrap_err().to_string().contains("not finite"));
    assert!(sess.mesh(ChunkPos::new(9, 9, 9)).unwrap_err().to_string().contains("not loaded"));
    // Water is drawn but not stood on; an unloaded block is unknown.
    assert!(!sess.registry().is_solid(WATER));
    assert_eq!(sess.block(bozkir_voxel::coords::BlockPos::new(1000, 0, 0)), None);
    assert!(!sess.is_solid(1000, 0, 0));
}
