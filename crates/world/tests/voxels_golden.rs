//! The chunk passes against pyworldgen 0.1.8 (`golden/make_voxels.py`): for each seed, chunk
//! size and chunk, the blocks, heightmap and biomes after terrain, biomes and caves equal
//! pyworldgen's value for value; the tree pass emits pyworldgen's edits in pyworldgen's order;
//! with the chunk's own edits applied, the blocks and the sunlight equal pyworldgen's.
mod common;

use bozkir_voxel::block::{BlockId, BlockRegistry};
use bozkir_voxel::coords::{ChunkPos, ChunkSize};
use bozkir_world::voxels::biomes::BiomePass;
use bozkir_world::voxels::caves::SimpleCavePass;
use bozkir_world::voxels::light::column_sunlight;
use bozkir_world::voxels::terrain::TerrainPass;
use bozkir_world::voxels::trees::TreePass;
use bozkir_world::voxels::{Pass, PassCtx, Scheduler, VoxelWorld};
use bozkir_world::{Compat, Seed};
use common::{base64, golden_gz};

fn u16s(s: &str) -> Vec<u16> {
    base64(s).chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]])).collect()
}

#[test]
fn chunk_passes_equal_pyworldgen() {
    let g = golden_gz("voxels.json.gz");
    let cases = g["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    let (mut carved, mut trees_in_chunk) = (0usize, 0usize);
    for c in cases {
        let seed = match &c["seed"] {
            serde_json::Value::String(s) => Seed::Str(s.clone()),
            v => Seed::Int(v.as_i64().unwrap()),
        };
        let size = ChunkSize::new(c["size"].as_u64().unwrap() as u32).unwrap();
        let xyz: Vec<i32> = c["chunk"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i32).collect();
        let coord = ChunkPos::new(xyz[0], xyz[1], xyz[2]);
        let world = VoxelWorld {
            seed: seed.pyworldgen_int(),
            compat: Compat::Pyworldgen,
            size,
            registry: BlockRegistry::pyworldgen(),
        };
        let what = format!("seed {seed:?} size {size} chunk {coord}");
        assert_eq!(world.seed, c["world_seed"].as_i64().unwrap(), "{what}");

        let early: Vec<Box<dyn Pass>> =
            vec![Box::new(TerrainPass::pyworldgen()), Box::new(BiomePass), Box::new(SimpleCavePass::default())];
        let mut chunk = Scheduler::new(early).unwrap().generate_dense(&world, &[coord]).unwrap().remove(0);
        let blocks: Vec<u16> = chunk.blocks.iter().map(|b| b.0).collect();
        assert_eq!(blocks, u16s(c["blocks"].as_str().unwrap()), "blocks, {what}");
        let hm: Vec<i16> = base64(c["heightmap"].as_str().unwrap())
            .chunks_exact(2)
            .map(|w| i16::from_le_bytes([w[0], w[1]]))
            .collect();
        assert_eq!(chunk.heightmap, hm, "heightmap, {what}");
        assert_eq!(chunk.biomes, base64(c["biomes"].as_str().unwrap()), "biomes, {what}");

        // pyworldgen's tree pass: every chunk of a column plants (owner_only = false).
        let tree = TreePass { attempts: 2, owner_only: false };
        let mut ctx = PassCtx::new(&world, coord, "features");
        tree.run(&mut ctx, &mut chunk).unwrap();
        let edits = ctx.take_edits();
        let got: Vec<[i64; 5]> = edits
            .iter()
            .map(|e| [e.pos.x.into(), e.pos.y.into(), e.pos.z.into(), e.block.0.into(), e.priority.into()])
            .collect();
        let want: Vec<[i64; 5]> = c["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let v: Vec<i64> = e.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
                [v[0], v[1], v[2], v[3], v[4]]
            })
            .collect();
        assert_eq!(got, want, "edits, {what}");

        // Ours plants only where the surface is in the chunk: the same trees, filtered.
        let mut ctx = PassCtx::new(&world, coord, "features");
        TreePass::default().run(&mut ctx, &mut chunk).unwrap();
        let owned = ctx.take_edits();
        let (lo, hi) = (i64::from(coord.y) * i64::from(size.edge()), i64::from(coord.y + 1) * i64::from(size.edge()));
        let kept: Vec<_> = edits
            .chunks(75)
            .filter(|tree| (lo..hi).contains(&(i64::from(tree[0].pos.y) - 1)))
            .flatten()
            .copied()
            .collect();
        assert_eq!(owned, kept, "owned trees, {what}");
        trees_in_chunk += kept.len() / 75;

        // The chunk's own edits (stable by priority), then the sunlight.
        let mut own: Vec<_> = edits.iter().filter(|e| e.pos.chunk(size) == coord).collect();
        own.sort_by_key(|e| e.priority);
        for e in own {
            let l = e.pos.local(size);
            let i = chunk.index(l.x.into(), l.y.into(), l.z.into());
            chunk.blocks[i] = e.block;
        }
        let fin: Vec<u16> = chunk.blocks.iter().map(|b| b.0).collect();
        assert_eq!(fin, u16s(c["final"].as_str().unwrap()), "final blocks, {what}");
        let mut light = vec![0u8; size.volume()];
        column_sunlight(&chunk.blocks, &mut light, size.edge() as usize, &world.registry);
        assert_eq!(light, base64(c["light"].as_str().unwrap()), "light, {what}");
        // Air below the surface: the cave pass carved something here.
        let e = size.edge() as usize;
        let oy = i64::from(coord.y) * e as i64;
        carved += (0..blocks.len())
            .filter(|&i| {
                blocks[i] == BlockId::AIR.0 && oy + ((i / (e * e)) as i64) < i64::from(chunk.heightmap[i % (e * e)])
            })
            .count();
    }
    // The cases hold trees planted in their own chunk and air below ground (not only sky).
    assert!(trees_in_chunk >= 4, "{trees_in_chunk} trees in their own chunk");
    assert!(carved > 0, "no cave voxel in any case");
}
