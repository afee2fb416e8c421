//! Writing a 3-D world (`implicit_cave`, `voxels`): the folder `bozkir world implicit_cave|voxels`
//! makes.
//!
//! | file | what |
//! |---|---|
//! | `world.json` | the spec: regenerating from it gives these files byte for byte |
//! | `blocks.glb` | the blocks, greedy-meshed in tiles of 32³ (one node each), vertex colours from the block kinds darkened by per-vertex ambient occlusion |
//! | `smooth.glb` | the cave's smooth surface (surface nets on its field), when the world has one |
//! | `world.vox` | MagicaVoxel: palette index = block id (`io::export::vox`), when the volume fits MagicaVoxel's world |
//! | `region.bzr` | every chunk in the voxel crate's chunk format, in one region file (`io::region`) |
//! | `preview.png` | top view: the surface blocks shaded by height (`voxels`), the cave's plan by open height per column (`implicit_cave`) |
//! | `volume.json` | dims, block size, origin, the block kinds, the files |
//!
//! Frame: the voxel frame — metres, y up, x east, z south — which is glTF's: the meshes need no
//! axis change. Block `(0, 0, 0)` of the volume sits at `origin · block_size`.

use std::path::Path;

use bozkir_core::Grid;
use bozkir_io::export::gltf::{self, Colours, Mesh, Node, Scene};
use bozkir_world::product::WorldSpec;
use bozkir_world::volume::VolumeProduct;
use bozkir_world::voxels::mesh::Mesher;
use serde_json::{json, Value};

use crate::budget::Cost;
use crate::world::{linear, write_text, WorldOutcome, WORLD_JSON};
use crate::{PipelineError, Result};

/// Bytes per block a 3-D world run holds at its peak (ids, chunks, mesh tiles, the `.vox`).
pub const VOLUME_BYTES_PER_BLOCK: f64 = 24.0;
/// Elementary steps per block (generation, meshing, encoding).
pub const VOLUME_STEPS_PER_BLOCK: f64 = 400.0;
/// Mesh tile edge in blocks.
const TILE: usize = 32;

/// A tile's positions in metres and its linear vertex colours.
type Placed = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// The memory and work of a 3-D world of `dims` blocks.
pub fn volume_cost(dims: [usize; 3]) -> Cost {
    let n = dims.iter().map(|&d| d as f64).product::<f64>();
    Cost {
        what: format!("a 3-D world of {}×{}×{} blocks", dims[0], dims[1], dims[2]),
        memory: n * VOLUME_BYTES_PER_BLOCK,
        work: n * VOLUME_STEPS_PER_BLOCK,
    }
}

fn invalid(e: impl std::fmt::Display) -> PipelineError {
    PipelineError::Invalid(e.to_string())
}

/// Writes every view of `p` (generated from `spec`) into `dir` (which must exist).
pub fn write_volume(p: &VolumeProduct, spec: &WorldSpec, dir: &Path) -> Result<WorldOutcome> {
    let mut files: Vec<Value> = Vec::new();
    let mut names = Vec::new();
    let bs = p.block_size;
    let o = p.origin.map(|v| v as f64 * bs);
    let place = |q: [f32; 3]| -> [f32; 3] { [0, 1, 2].map(|a| (f64::from(q[a]) * bs + o[a]) as f32) };

    // blocks.glb
    let tiles = p.block_meshes(TILE, Mesher::Greedy).map_err(invalid)?;
    let shade = [0.45f32, 0.65, 0.82, 1.0];
    let prepared: Vec<Placed> = tiles
        .iter()
        .map(|(_, m)| {
            let pos = m.positions.iter().map(|&q| place(q)).collect();
            let col = m
                .block
                .iter()
                .zip(&m.ao)
                .map(|(&b, &ao)| {
                    let c = p.registry.get(bozkir_voxel::block::BlockId(b)).map_or([200, 0, 200, 255], |d| d.colour);
                    let k = shade[usize::from(ao.min(3))];
                    [linear(c[0]) * k, linear(c[1]) * k, linear(c[2]) * k]
                })
                .collect();
            (pos, col)
        })
        .collect();
    let meshes: Vec<Mesh> = tiles
        .iter()
        .zip(&prepared)
        .map(|((name, m), (pos, col))| Mesh {
            name,
            positions: pos,
            normals: &m.normals,
            uvs: &[],
            colours: Colours::RgbF32(col),
            indices: &m.indices,
        })
        .collect();
    let nodes: Vec<Node> =
        tiles.iter().enumerate().map(|(i, (name, _))| Node { name, mesh: i, instances: None }).collect();
    gltf::write_scene(dir.join("blocks.glb"), &Scene { name: "blocks", meshes: &meshes, nodes: &nodes })?;
    files.push(json!({ "path": "blocks.glb", "role": "block_mesh", "format": "glb", "tiles": tiles.len() }));
    names.push("blocks.glb".to_string());

    // smooth.glb
    if let Some(m) = &p.smooth {
        let pos: Vec<[f32; 3]> = m.positions.iter().map(|&q| place(q)).collect();
        let top = p.dims[1].max(1) as f32;
        let col: Vec<[f32; 3]> = m
            .positions
            .iter()
            .map(|q| {
                let t = (q[1] / top).clamp(0.0, 1.0);
                [0.16 + 0.22 * t, 0.14 + 0.2 * t, 0.12 + 0.17 * t]
            })
            .collect();
        let mesh = Mesh {
            name: "surface",
            positions: &pos,
            normals: &m.normals,
            uvs: &[],
            colours: Colours::RgbF32(&col),
            indices: &m.indices,
        };
        let node = Node { name: "surface", mesh: 0, instances: None };
        gltf::write_scene(dir.join("smooth.glb"), &Scene { name: "smooth", meshes: &[mesh], nodes: &[node] })?;
        files.push(
            json!({ "path": "smooth.glb", "role": "smooth_surface", "format": "glb", "triangles": m.triangle_count() }),
        );
        names.push("smooth.glb".to_string());
    }

    // world.vox
    let [nx, ny, nz] = p.dims;
    let fits = nx <= bozkir_io::export::vox::MAX_VOX_SIDE
        && nz <= bozkir_io::export::vox::MAX_VOX_SIDE
        && ny <= bozkir_io::export::vox::MAX_VOX_HEIGHT;
    let max_id = p.blocks.iter().map(|b| b.0).max().unwrap_or(0);
    if fits && max_id <= 255 {
        let ids: Vec<u8> = p.blocks.iter().map(|b| b.0 as u8).collect();
        let palette: Vec<[u8; 4]> = (1..=max_id.max(1))
            .map(|id| {
                p.registry
                    .get(bozkir_voxel::block::BlockId(id))
                    .map_or([255, 0, 255, 255], |d| [d.colour[0], d.colour[1], d.colour[2], 255])
            })
            .collect();
        let s = bozkir_io::export::vox::write_vox(dir.join("world.vox"), p.dims, &ids, &palette)?;
        files.push(json!({ "path": "world.vox", "role": "magicavoxel", "format": "vox", "models": s.models }));
        names.push("world.vox".to_string());
    } else {
        files.push(json!({ "path": null, "role": "magicavoxel", "skipped": format!("{nx}×{ny}×{nz} blocks (ids up to {max_id}) do not fit MagicaVoxel's world") }));
    }

    // region.bzr
    let entries: Vec<((i32, i32, i32), Vec<u8>)> =
        p.chunks.iter().map(|c| ((c.coord.x, c.coord.y, c.coord.z), bozkir_voxel::codec::encode_chunk(c))).collect();
    bozkir_io::region::write_region(dir.join("region.bzr"), &entries)?;
    files.push(
        json!({ "path": "region.bzr", "role": "chunk_region", "format": "bozkir region", "chunks": entries.len() }),
    );
    names.push("region.bzr".to_string());

    // preview.png
    let preview = preview(p);
    bozkir_io::write_rgb8(dir.join("preview.png"), &preview)?;
    files.push(json!({ "path": "preview.png", "role": "preview", "format": "png" }));
    names.push("preview.png".to_string());

    write_text(&dir.join(WORLD_JSON), &spec.to_json())?;
    names.push(WORLD_JSON.to_string());
    let kinds: Vec<Value> = p
        .registry
        .iter()
        .map(|d| json!({ "id": d.id.0, "name": d.name, "solid": d.solid, "transparent": d.transparent, "colour": d.colour }))
        .collect();
    let info = json!({
        "generator": spec.generator,
        "seed": spec.seed,
        "compat": spec.compat.name(),
        "dims": p.dims,
        "block_size_m": bs,
        "origin_blocks": p.origin,
        "frame": "voxel frame: metres, y up, x east, z south (glTF's); block (0,0,0) at origin_blocks·block_size_m",
        "layout": "x + nx*(z + nz*y)",
        "chunk_size": p.chunks.first().map(|c| c.size().edge()),
        "blocks": kinds,
        "files": files,
    });
    write_text(&dir.join("volume.json"), &(serde_json::to_string_pretty(&info).expect("json") + "\n"))?;
    names.push("volume.json".to_string());
    let ys: Vec<usize> = (0..ny).filter(|&y| (0..nz).any(|z| (0..nx).any(|x| !p.block(x, y, z).is_air()))).collect();
    let range = match (ys.first(), ys.last()) {
        (Some(&a), Some(&b)) => (o[1] + a as f64 * bs, o[1] + (b + 1) as f64 * bs),
        _ => (o[1], o[1]),
    };
    Ok(WorldOutcome { shape: (nx, nz), range_m: range, files: names, counts: (0, 0, 0), unrouted: Vec::new() })
}

/// Top view, scaled up to about 512 pixels: a voxel world's surface blocks shaded by height and
/// slope; a cave's plan, brighter where a column holds more open height.
fn preview(p: &VolumeProduct) -> Grid<[u8; 3]> {
    let [nx, ny, nz] = p.dims;
    let k = (512 / nx.max(nz).max(1)).max(1);
    let mut top = vec![None; nx * nz];
    let mut open = vec![0usize; nx * nz];
    for z in 0..nz {
        for x in 0..nx {
            for y in (0..ny).rev() {
                let b = p.block(x, y, z);
                if b.is_air() {
                    open[x + nx * z] += 1;
                } else if top[x + nx * z].is_none() {
                    top[x + nx * z] = Some((y, b));
                }
            }
        }
    }
    let cave = p.smooth.is_some();
    let most = open.iter().copied().max().unwrap_or(1).max(1) as f64;
    Grid::from_fn(nx * k, nz * k, |i, j| {
        let (x, z) = (i / k, j / k);
        let c = x + nx * z;
        if cave {
            let t = (open[c] as f64 / most).sqrt();
            return [0, 1, 2].map(|a| (([52.0, 48.0, 44.0][a]) * (1.0 - t) + ([236.0, 222.0, 196.0][a]) * t) as u8);
        }
        match top[c] {
            None => [20, 20, 28],
            Some((y, b)) => {
                let col = p.registry.get(b).map_or([255, 0, 255, 255], |d| d.colour);
                let h = |xx: usize, zz: usize| top[xx + nx * zz].map_or(0.0, |(y, _)| y as f64);
                let west = if x > 0 { h(x - 1, z) } else { y as f64 };
                let north = if z > 0 { h(x, z - 1) } else { y as f64 };
                let slope = ((y as f64 - west) + (y as f64 - north)) * 0.12;
                let s = (0.55 + 0.45 * y as f64 / ny.max(1) as f64 + slope).clamp(0.3, 1.3);
                [0, 1, 2].map(|a| (f64::from(col[a]) * s).round().clamp(0.0, 255.0) as u8)
            }
        }
    })
}
