//! Rough release-mode timings of the voxel crate's hot paths (not a benchmark suite):
//! `cargo run -p bozkir-voxel --release --example voxel_speed`.
use bozkir_voxel::block::ids;
use bozkir_voxel::*;
use std::hint::black_box;
use std::time::Instant;

fn terrain(s: ChunkSize, base: f64, amp: f64, ox: i32, oz: i32) -> Vec<BlockId> {
    let e = s.edge() as usize;
    let mut v = vec![BlockId::AIR; s.volume()];
    for z in 0..e {
        for x in 0..e {
            let (fx, fz) = ((x as i32 + ox) as f64 / 9.0, (z as i32 + oz) as f64 / 13.0);
            let h = (base + amp * (0.6 * fx.sin() * fz.cos() + 0.4 * (0.7 * fx + 1.3 * fz).sin())).round() as i32;
            for y in 0..e as i32 {
                let b = if y < h - 3 {
                    ids::STONE
                } else if y < h {
                    ids::DIRT
                } else if y == h {
                    ids::GRASS
                } else {
                    ids::AIR
                };
                v[x + e * (z + e * y as usize)] = b;
            }
        }
    }
    v
}

fn time<T>(name: &str, reps: usize, per: f64, unit: &str, mut f: impl FnMut() -> T) {
    let t = Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    let dt = t.elapsed().as_secs_f64() / reps as f64;
    println!("{name:<44} {:>10.3} us   {:>8.2} ns/{unit}", dt * 1e6, dt * 1e9 / per);
}

fn main() {
    let s = ChunkSize::S32;
    let dense = terrain(s, 16.0, 8.0, 0, 0);
    let p = PalettedBlocks::from_dense(s, &dense).unwrap();
    println!("terrain 32^3: {:.3} bits/voxel, widest {} bits", p.bits_per_voxel(), p.bits());
    let n = s.volume() as f64;
    time("from_dense 32^3", 200, n, "voxel", || PalettedBlocks::from_dense(s, &dense).unwrap());
    let mut out = vec![BlockId::AIR; s.volume()];
    time("to_dense 32^3", 500, n, "voxel", || p.to_dense(&mut out).unwrap());
    time("get every voxel 32^3", 200, n, "voxel", || {
        let mut acc = 0u32;
        for i in 0..s.volume() {
            acc += p.get(i).0 as u32;
        }
        acc
    });
    let mut q = p.clone();
    let mut st = 12345u64;
    time("set 32768 random voxels (4 kinds)", 50, n, "set", || {
        for _ in 0..s.volume() {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            q.set((st % s.volume() as u64) as usize, BlockId((st >> 40) as u16 % 4));
        }
    });
    time("compact 32^3", 200, n, "voxel", || {
        let mut c = q.clone();
        c.compact();
        c
    });
    let reg = BlockRegistry::pyworldgen();
    let mut map = ChunkMap::new(s);
    for cx in -2..2 {
        for cz in -2..2 {
            for cy in 0..2 {
                let c = map.get_or_create(ChunkPos::new(cx, cy, cz)).unwrap();
                if cy == 0 {
                    c.set_dense(&terrain(s, 16.0, 8.0, cx * 32, cz * 32)).unwrap();
                }
            }
        }
    }
    let mut chunk = map.get(ChunkPos::new(0, 0, 0)).unwrap().clone();
    time("simple_sunlight 32^3", 200, n, "voxel", || light::simple_sunlight(&mut chunk, &reg));
    time("sky_light_box 4x2x4 chunks of 32^3", 5, n * 32.0, "voxel", || {
        light::sky_light_box(&mut map, &reg, ChunkPos::new(-2, 0, -2), ChunkPos::new(1, 1, 1)).unwrap()
    });
    let c = map.get(ChunkPos::new(0, 0, 0)).unwrap().clone();
    println!(
        "sky-lit terrain chunk: light {:.3} bits/voxel ({} of {} sections uniform), blocks {:.3} bits/voxel",
        c.light().storage_bits() as f64 / n,
        c.light().uniform_sections(),
        s.volume() / 256,
        c.blocks().bits_per_voxel()
    );
    let bytes = codec::encode_chunk(&c);
    println!("encoded 32^3 terrain chunk (with light): {} bytes", bytes.len());
    time("encode_chunk 32^3", 200, n, "voxel", || codec::encode_chunk(&c));
    time("decode_chunk 32^3", 200, n, "voxel", || codec::decode_chunk(&bytes).unwrap());
    let mut k = 0u32;
    time("raycast 60 blocks, downward-slanted", 20000, 1.0, "ray", || {
        k += 1;
        let a = k as f64 * 0.618;
        raycast(&map, &reg, [0.5, 40.0, 0.5], [a.cos(), -0.35, a.sin()], 60.0).unwrap()
    });
    let (w, h) = (256usize, 256usize);
    let pass: Vec<bool> = (0..w * h).map(|i| !(i * 2654435761usize).is_multiple_of(7)).collect();
    time("grid_astar 256x256 corner to corner", 20, 1.0, "search", || {
        grid_astar(w, h, &pass, (0, 0), (255, 255)).unwrap()
    });
    let streamer =
        ChunkStreamer::new(StreamParams { horizontal_radius: 16, vertical_radius: 4, budget: 16 }, s).unwrap();
    let loaded: std::collections::BTreeSet<ChunkPos> = Default::default();
    time("stream tick r=16 v=4 (nothing loaded)", 1000, 1.0, "tick", || streamer.tick(ChunkPos::new(0, 0, 0), &loaded));
}
