//! The generation scheduler: refused pass lists name the pass; chunks are the same bytes in any
//! request order, alone or among others, at any thread count; trees straddling chunk borders
//! are whole whichever chunk is asked for first.

use bozkir_voxel::block::ids::{LEAVES, WOOD};
use bozkir_voxel::block::BlockRegistry;
use bozkir_voxel::coords::{BlockPos, ChunkPos, ChunkSize};
use bozkir_world::error::Result;
use bozkir_world::voxels::{pyworldgen_passes, Pass, PassCtx, PassKind, Scheduler, VoxelWorld, WorkChunk};
use bozkir_world::Compat;

/// A test pass: a name, dependencies, an optional edit it emits at an offset from the chunk.
struct P {
    name: &'static str,
    deps: Vec<&'static str>,
    kind: PassKind,
    reach: i32,
    emit: Option<i32>,
}

fn p(name: &'static str, deps: &[&'static str]) -> Box<dyn Pass> {
    Box::new(P { name, deps: deps.to_vec(), kind: PassKind::Chunk, reach: 0, emit: None })
}

impl Pass for P {
    fn name(&self) -> &str {
        self.name
    }
    fn dependencies(&self) -> Vec<String> {
        self.deps.iter().map(|d| d.to_string()).collect()
    }
    fn edit_reach(&self) -> i32 {
        self.reach
    }
    fn kind(&self) -> PassKind {
        self.kind
    }
    fn run(&self, ctx: &mut PassCtx<'_>, chunk: &mut WorkChunk) -> Result<()> {
        if let Some(d) = self.emit {
            let o = chunk.origin();
            ctx.edit(BlockPos::new(o[0] as i32 + d, o[1] as i32, o[2] as i32), WOOD, 0);
        }
        Ok(())
    }
}

fn err(passes: Vec<Box<dyn Pass>>) -> String {
    match Scheduler::new(passes) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn pass_lists_are_validated_and_ordered() {
    let e = err(vec![p("terrain", &[]), p("trees", &["terrain", "biomes"])]);
    assert!(e.contains("`trees` depends on `biomes`, which is not in the pass list"), "{e}");
    let e = err(vec![p("a", &["c"]), p("b", &["a"]), p("c", &["b"]), p("d", &[])]);
    assert!(e.contains("cycle") && e.contains("a needs c needs b needs a"), "{e}");
    let e = err(vec![p("a", &[]), p("a", &[])]);
    assert!(e.contains("two passes are named `a`"), "{e}");
    let emit =
        |name, reach| -> Box<dyn Pass> { Box::new(P { name, deps: vec![], kind: PassKind::Chunk, reach, emit: None }) };
    let barrier = |deps: &[&'static str]| -> Box<dyn Pass> {
        Box::new(P { name: "apply", deps: deps.to_vec(), kind: PassKind::ApplyEdits, reach: 0, emit: None })
    };
    let e = err(vec![emit("trees", 1)]);
    assert!(e.contains("`trees` emits deferred edits but no pass applies them"), "{e}");
    let e = err(vec![
        barrier(&[]),
        Box::new(P { name: "late", deps: vec!["apply"], kind: PassKind::Chunk, reach: 1, emit: None }),
    ]);
    assert!(e.contains("`late` emits deferred edits but runs after `apply`"), "{e}");
    let e = err(vec![emit("far", 9), barrier(&["far"])]);
    assert!(e.contains("reach of 9"), "{e}");
    // Listed out of order: sorted by dependencies, ties in the order given.
    let s = Scheduler::new(vec![p("light", &["terrain"]), p("biomes", &["terrain"]), p("terrain", &[]), p("x", &[])])
        .unwrap();
    assert_eq!(s.order(), ["terrain", "light", "biomes", "x"]);
    let s = Scheduler::new(pyworldgen_passes()).unwrap();
    assert_eq!(s.order(), ["terrain", "biomes", "caves", "features", "apply_deferred_edits", "lighting"]);
    assert_eq!(s.reach(), 1);
}

#[test]
fn an_edit_beyond_the_declared_reach_is_an_error_naming_the_pass() {
    let passes: Vec<Box<dyn Pass>> = vec![
        Box::new(P { name: "wide", deps: vec![], kind: PassKind::Chunk, reach: 1, emit: Some(40) }),
        Box::new(P { name: "apply", deps: vec!["wide"], kind: PassKind::ApplyEdits, reach: 0, emit: None }),
    ];
    let s = Scheduler::new(passes).unwrap();
    let e = s.generate_dense(&world(8, 1), &[ChunkPos::new(0, 0, 0)]).unwrap_err().to_string();
    assert!(e.contains("pass `wide`") && e.contains("beyond its declared reach of 1"), "{e}");
}

fn world(edge: u32, seed: i64) -> VoxelWorld {
    VoxelWorld {
        seed,
        compat: Compat::Pyworldgen,
        size: ChunkSize::new(edge).unwrap(),
        registry: BlockRegistry::pyworldgen(),
    }
}

fn region(r: i32) -> Vec<ChunkPos> {
    let mut v = Vec::new();
    for x in -r..=r {
        for y in -1..=1 {
            for z in -r..=r {
                v.push(ChunkPos::new(x, y, z));
            }
        }
    }
    v
}

#[test]
fn chunks_are_the_same_in_any_order_alone_or_together_at_any_thread_count() {
    let w = world(8, 12345);
    let s = Scheduler::new(pyworldgen_passes()).unwrap();
    let all = region(2);
    let together = s.generate_dense(&w, &all).unwrap();
    assert_eq!(together.len(), all.len());
    let mut reversed: Vec<ChunkPos> = all.iter().rev().copied().collect();
    reversed.extend_from_slice(&all[..5]); // duplicates are ignored
    assert_eq!(s.generate_dense(&w, &reversed).unwrap(), together);
    for c in [&together[0], &together[22], &together[together.len() - 1]] {
        let alone = s.generate_dense(&w, &[c.coord]).unwrap();
        assert_eq!(&alone[0], c, "chunk {} alone", c.coord);
    }
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(one.install(|| s.generate_dense(&w, &all)).unwrap(), together);
    let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    assert_eq!(three.install(|| s.generate_dense(&w, &all)).unwrap(), together);
}

#[test]
fn trees_straddling_borders_are_whole_whichever_chunk_comes_first() {
    let w = world(8, 2024);
    let s = Scheduler::new(pyworldgen_passes()).unwrap();
    let all = region(2);
    let together = s.generate_dense(&w, &all).unwrap();
    let at = |chunks: &[WorkChunk], b: BlockPos| {
        let c = chunks.iter().find(|c| c.coord == b.chunk(w.size)).unwrap();
        let l = b.local(w.size);
        c.blocks[c.index(l.x.into(), l.y.into(), l.z.into())]
    };
    // Every trunk (4 wood blocks in a column, grass below) has its leaves crown around it.
    let mut trunks = 0;
    let mut straddling = 0;
    for c in &together {
        let [ox, oy, oz] = c.origin();
        for i in 0..c.blocks.len() {
            let (x, z, y) = (i % 8, (i / 8) % 8, i / 64);
            let b = BlockPos::new((ox + x as i64) as i32, (oy + y as i64) as i32, (oz + z as i64) as i32);
            let below = b.offset(0, -1, 0).unwrap();
            if c.blocks[i] != WOOD || below.chunk(w.size).y < -1 || at(&together, below) == WOOD {
                continue;
            }
            let top = b.offset(0, 4, 0).unwrap();
            if top.chunk(w.size).y > 1 || (top.x - 2).div_euclid(8) < -2 || (top.x + 2).div_euclid(8) > 2 {
                continue;
            }
            if (top.z - 2).div_euclid(8) < -2 || (top.z + 2).div_euclid(8) > 2 {
                continue;
            }
            trunks += 1;
            let crown: Vec<BlockPos> =
                [(-2, 0), (2, 0), (0, -2), (0, 2)].iter().map(|&(dx, dz)| top.offset(dx, 0, dz).unwrap()).collect();
            for q in &crown {
                assert_eq!(at(&together, *q), LEAVES, "crown of the trunk at {b}");
            }
            if crown.iter().any(|q| q.chunk(w.size) != b.chunk(w.size)) {
                straddling += 1;
                // Each chunk the crown reaches, generated alone, holds its share of the leaves.
                for q in &crown {
                    let alone = s.generate_dense(&w, &[q.chunk(w.size)]).unwrap();
                    assert_eq!(at(&alone, *q), LEAVES, "leaf {q} of the tree at {b}, its chunk alone");
                }
            }
        }
    }
    assert!(trunks >= 10 && straddling >= 3, "{trunks} trunks, {straddling} straddling");
}

#[test]
fn chunks_filled_from_a_field_equal_voxelize_of_the_same_region() {
    use bozkir_world::solid::{voxelize, FnSolid, SolidField3D};
    use bozkir_world::voxels::caves::FieldPass;
    use std::sync::Arc;
    let field: Arc<dyn SolidField3D + Send> = Arc::new(FnSolid(|x: f64, y: f64, z: f64| {
        ((x - 3.0).powi(2) + (y + 2.0).powi(2) + (z - 5.0).powi(2)).sqrt() - 9.5 + 0.7 * (0.5 * x).sin()
    }));
    let w = world(8, 1);
    let s = Scheduler::new(vec![Box::new(FieldPass::solid(field.clone()))]).unwrap();
    let coords = region(1);
    let chunks = s.generate(&w, &coords).unwrap();
    // The region x, z in −8..16, y in −8..16 (chunks −1..=1 of 8 blocks).
    let occ = voxelize(&*field, [24, 24, 24], 1.0, [-8.0, -8.0, -8.0]).unwrap();
    let mut solid = 0;
    for c in &chunks {
        assert_eq!(c.state, bozkir_voxel::chunk::ChunkState::TerrainGenerated);
        for i in 0..512 {
            let (x, z, y) = (i % 8, (i / 8) % 8, i / 64);
            let (gx, gy, gz) =
                ((c.coord.x + 1) as usize * 8 + x, (c.coord.y + 1) as usize * 8 + y, (c.coord.z + 1) as usize * 8 + z);
            let want = occ[(gx * 24 + gy) * 24 + gz];
            let got = c.get_index(i) == bozkir_voxel::block::ids::STONE;
            assert_eq!(got, want, "chunk {} local ({x},{y},{z})", c.coord);
            solid += usize::from(want);
        }
    }
    assert!(solid > 1000 && solid < 24 * 24 * 24 - 1000, "{solid}");
}

#[test]
fn palette_chunks_hold_the_dense_chunks() {
    let w = world(16, 77);
    let s = Scheduler::new(pyworldgen_passes()).unwrap();
    let coords = [ChunkPos::new(0, 0, 0), ChunkPos::new(-1, 0, 3), ChunkPos::new(0, 1, 0)];
    let dense = s.generate_dense(&w, &coords).unwrap();
    let packed = s.generate(&w, &coords).unwrap();
    for (d, p) in dense.iter().zip(&packed) {
        assert_eq!(p.coord, d.coord);
        assert_eq!(p.state, bozkir_voxel::chunk::ChunkState::LightingReady);
        assert_eq!(p.blocks().to_dense_vec(), d.blocks);
        assert_eq!(p.heightmap(), &d.heightmap[..]);
        assert_eq!(p.biomes(), &d.biomes[..]);
        assert!((0..d.light.len()).all(|i| p.light_at(i) == d.light[i]));
    }
}

#[test]
fn chunk_meshes_join_into_one_closed_surface() {
    use bozkir_mesh::check;
    use bozkir_world::solid::{FnSolid, SolidField3D};
    use bozkir_world::voxels::caves::FieldPass;
    use bozkir_world::voxels::mesh::{mesh_chunk, Mesher};
    use std::collections::BTreeMap;
    use std::sync::Arc;
    // A blob well inside a 3×3×3 block of chunks: the union of the chunk meshes is closed,
    // encloses exactly the solid voxels, and greedy covers the same area with fewer quads.
    let field: Arc<dyn SolidField3D + Send> = Arc::new(FnSolid(|x: f64, y: f64, z: f64| {
        (x * x + 1.3 * y * y + z * z).sqrt() - 6.5 + 0.8 * (0.7 * x + 0.3 * z).sin()
    }));
    let w = world(8, 1);
    let s = Scheduler::new(vec![Box::new(FieldPass::solid(field))]).unwrap();
    let coords: Vec<ChunkPos> =
        (-2..=1).flat_map(|x| (-2..=1).flat_map(move |y| (-2..=1).map(move |z| ChunkPos::new(x, y, z)))).collect();
    let chunks: BTreeMap<ChunkPos, WorkChunk> =
        s.generate_dense(&w, &coords).unwrap().into_iter().map(|c| (c.coord, c)).collect();
    let solid: usize = chunks.values().map(|c| c.blocks.iter().filter(|b| b.0 != 0).count()).sum();
    let mut all = Vec::new();
    for mesher in [Mesher::Culled, Mesher::Greedy] {
        let mut whole = bozkir_mesh::Mesh::new();
        for c in chunks.keys() {
            whole.append(&mesh_chunk(&chunks, *c, &w.registry, mesher).unwrap()).unwrap();
        }
        let closed = check::coverage(&whole).unwrap();
        assert!(closed.closed(), "{mesher:?}: {closed:?}");
        if mesher == Mesher::Culled {
            let e = check::edges(&whole).unwrap();
            assert!(e.boundary == 0 && e.same_direction == 0, "{e:?}");
        }
        let v = check::volume(&whole).unwrap().signed_volume;
        assert!((v - solid as f64).abs() < 1e-6, "{mesher:?}: volume {v} vs {solid} solid voxels");
        all.push((check::area(&whole).unwrap().area, whole.quad_count()));
    }
    assert!((all[0].0 - all[1].0).abs() < 1e-6 && all[1].1 < all[0].1, "{all:?}");
}
