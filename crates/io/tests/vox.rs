//! MagicaVoxel `.vox`: read back with the independent `dot_vox` reader (models, sizes, voxel
//! positions, colours, scene-graph placement), walked chunk by chunk with our own strict
//! walker, and the input checks.

mod common;

mod vox {
    use super::common::TmpDir;
    use bozkir_io::export::vox::{vox_position, write_vox, VoxSummary, MAX_VOX_CELLS, MAX_VOX_HEIGHT, MAX_VOX_SIDE};
    use bozkir_io::IoError;
    use dot_vox::{DotVoxData, SceneNode};
    use std::collections::BTreeSet;
    use std::path::Path;

    /// A deterministic volume: cell `(x, y, z)` holds `1 + h % colours` when `h % 100 < fill`,
    /// else 0, with `h` a hash of the position.
    fn volume(dims: [usize; 3], colours: usize, fill: u64) -> Vec<u8> {
        let [nx, ny, nz] = dims;
        let mut v = vec![0u8; nx * ny * nz];
        for y in 0..ny {
            for z in 0..nz {
                for x in 0..nx {
                    let mut h = ((x as u64) * 0x9E37_79B9) ^ ((y as u64) * 0x85EB_CA6B) ^ ((z as u64) * 0xC2B2_AE35);
                    h ^= h >> 15;
                    h = h.wrapping_mul(0x2C1B_3C6D);
                    h ^= h >> 12;
                    if h % 100 < fill {
                        v[x + nx * (z + nz * y)] = 1 + (h / 100 % colours as u64) as u8;
                    }
                }
            }
        }
        v
    }

    fn palette(n: usize) -> Vec<[u8; 4]> {
        (0..n).map(|k| [(k * 37) as u8, (k * 91 + 5) as u8, (255 - (k * 13) % 256) as u8, 255 - k as u8]).collect()
    }

    /// Every solid voxel as `.vox` absolute position and 0-based colour slot (dot_vox's `i`).
    fn expected(dims: [usize; 3], voxels: &[u8]) -> BTreeSet<([i64; 3], u8)> {
        let [nx, ny, nz] = dims;
        let mut out = BTreeSet::new();
        for y in 0..ny {
            for z in 0..nz {
                for x in 0..nx {
                    let v = voxels[x + nx * (z + nz * y)];
                    if v != 0 {
                        out.insert((vox_position(dims, [x, y, z]).unwrap(), v - 1));
                    }
                }
            }
        }
        out
    }

    fn load(path: &Path) -> DotVoxData {
        dot_vox::load_bytes(&std::fs::read(path).unwrap()).expect("dot_vox reads our .vox")
    }

    /// Each model's translation `_t` and the world box it covers, `[min, max)` per axis, by
    /// walking the scene graph: root transform → group → transform → shape.
    fn placements(data: &DotVoxData) -> Vec<(usize, [i64; 3], [[i64; 2]; 3])> {
        let SceneNode::Transform { child, frames, layer_id, .. } = &data.scenes[0] else { panic!("root is not nTRN") };
        assert_eq!(*layer_id, u32::MAX);
        assert_eq!(frames[0].position(), None, "the root does not move");
        let SceneNode::Group { children, .. } = &data.scenes[*child as usize] else { panic!("root child is not nGRP") };
        assert_eq!(children.len(), data.models.len());
        assert_eq!(data.layers.len(), 1);
        let mut out = Vec::new();
        for &c in children {
            let SceneNode::Transform { child, frames, layer_id, .. } = &data.scenes[c as usize] else {
                panic!("not nTRN")
            };
            assert_eq!(*layer_id, 0);
            assert_eq!(frames.len(), 1);
            let p = frames[0].position().expect("every model transform has _t");
            let t = [p.x as i64, p.y as i64, p.z as i64];
            let SceneNode::Shape { models, .. } = &data.scenes[*child as usize] else { panic!("not nSHP") };
            assert_eq!(models.len(), 1);
            let id = models[0].model_id as usize;
            let s = data.models[id].size;
            let s = [s.x as i64, s.y as i64, s.z as i64];
            let bbox = [0, 1, 2].map(|a| [t[a] - s[a] / 2, t[a] - s[a] / 2 + s[a]]);
            out.push((id, t, bbox));
        }
        out
    }

    /// World positions from the scene graph: each voxel at `t + v − floor(size / 2)`
    /// (MagicaVoxel's pivot).
    fn placed(data: &DotVoxData) -> BTreeSet<([i64; 3], u8)> {
        let mut out = BTreeSet::new();
        let put = |model: usize, t: [i64; 3], out: &mut BTreeSet<([i64; 3], u8)>| {
            let m = &data.models[model];
            let half = [m.size.x as i64 / 2, m.size.y as i64 / 2, m.size.z as i64 / 2];
            for v in &m.voxels {
                let p = [t[0] + v.x as i64 - half[0], t[1] + v.y as i64 - half[1], t[2] + v.z as i64 - half[2]];
                assert!(out.insert((p, v.i)), "two voxels at {p:?}");
            }
        };
        let mut shown = BTreeSet::new();
        for (id, t, _) in placements(data) {
            assert!(shown.insert(id), "model {id} shown twice");
            put(id, t, &mut out);
        }
        assert_eq!(shown.len(), data.models.len(), "every model is shown");
        out
    }

    // ---- our own strict chunk walker ----------------------------------------------------

    fn le_u32(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// Consume a DICT at `at` within `end`; returns the new position.
    fn dict(b: &[u8], mut at: usize, end: usize) -> usize {
        let n = le_u32(b, at) as usize;
        at += 4;
        for _ in 0..2 * n {
            assert!(at + 4 <= end, "dict string length past the chunk");
            let len = le_u32(b, at) as usize;
            at += 4 + len;
            assert!(at <= end, "dict string past the chunk");
            std::str::from_utf8(&b[at - len..at]).expect("dict strings are UTF-8");
        }
        at
    }

    /// What the walker saw.
    #[derive(Debug, Default)]
    struct Walk {
        models: usize,
        voxels: u64,
        nodes: usize,
        ids: Vec<String>,
    }

    /// Walk a `.vox` strictly: every chunk's content and children sizes, every field of the
    /// chunks we write consumed exactly, and the chunk order (models, scene graph, palette).
    fn walk(b: &[u8]) -> Walk {
        assert_eq!(&b[..4], b"VOX ");
        assert_eq!(le_u32(b, 4), 150);
        assert_eq!(&b[8..12], b"MAIN");
        assert_eq!(le_u32(b, 12), 0, "MAIN has no content");
        assert_eq!(le_u32(b, 16) as usize, b.len() - 20, "MAIN's children size is the rest of the file");
        let mut w = Walk::default();
        let mut at = 20;
        let mut pending_size: Option<[u32; 3]> = None;
        while at < b.len() {
            assert!(at + 12 <= b.len(), "chunk header past the end at {at}");
            let id = std::str::from_utf8(&b[at..at + 4]).unwrap().to_string();
            let content = le_u32(b, at + 4) as usize;
            let children = le_u32(b, at + 8) as usize;
            assert_eq!(children, 0, "{id} has no children");
            let (start, end) = (at + 12, at + 12 + content);
            assert!(end <= b.len(), "{id} content past the end");
            match id.as_str() {
                "SIZE" => {
                    assert_eq!(content, 12);
                    assert!(pending_size.is_none(), "SIZE without XYZI");
                    let s = [le_u32(b, start), le_u32(b, start + 4), le_u32(b, start + 8)];
                    assert!(s.iter().all(|&d| (1..=256).contains(&d)), "model size {s:?}");
                    pending_size = Some(s);
                }
                "XYZI" => {
                    let s = pending_size.take().expect("XYZI after SIZE");
                    let n = le_u32(b, start) as usize;
                    assert_eq!(content, 4 + 4 * n, "XYZI content is its count's size");
                    for v in b[start + 4..end].chunks_exact(4) {
                        assert!(
                            (v[0] as u32) < s[0] && (v[1] as u32) < s[1] && (v[2] as u32) < s[2],
                            "voxel outside its model"
                        );
                        assert_ne!(v[3], 0, "index 0 is empty and never stored");
                    }
                    w.models += 1;
                    w.voxels += n as u64;
                }
                "nTRN" => {
                    let mut p = dict(b, start + 4, end);
                    let frames = le_u32(b, p + 12);
                    assert_eq!(le_u32(b, p + 4), u32::MAX, "reserved id is -1");
                    assert_eq!(frames, 1);
                    p = dict(b, p + 16, end);
                    assert_eq!(p, end, "nTRN consumed exactly");
                    w.nodes += 1;
                }
                "nGRP" => {
                    let p = dict(b, start + 4, end);
                    let n = le_u32(b, p) as usize;
                    assert_eq!(p + 4 + 4 * n, end, "nGRP consumed exactly");
                    w.nodes += 1;
                }
                "nSHP" => {
                    let p = dict(b, start + 4, end);
                    assert_eq!(le_u32(b, p), 1, "one model per shape");
                    assert_eq!(dict(b, p + 8, end), end, "nSHP consumed exactly");
                    w.nodes += 1;
                }
                "LAYR" => {
                    let p = dict(b, start + 4, end);
                    assert_eq!(le_u32(b, p), u32::MAX, "reserved id is -1");
                    assert_eq!(p + 4, end, "LAYR consumed exactly");
                }
                "RGBA" => {
                    assert_eq!(content, 1024);
                    assert_eq!(end, b.len(), "RGBA is the last chunk");
                }
                other => panic!("unexpected chunk {other}"),
            }
            if let Some(last) = w.ids.last() {
                let rank = |s: &str| match s {
                    "SIZE" | "XYZI" => 0,
                    "nTRN" | "nGRP" | "nSHP" | "LAYR" => 1,
                    _ => 2,
                };
                assert!(rank(last) <= rank(&id), "{id} after {last}");
            }
            w.ids.push(id);
            at = end;
        }
        assert_eq!(at, b.len());
        assert!(pending_size.is_none());
        w
    }

    // ---- tests ----------------------------------------------------------------------------

    #[test]
    fn a_small_volume_reads_back_with_dot_vox() {
        let dir = TmpDir::new("vox-small");
        let dims = [7, 5, 9];
        let pal = palette(20);
        let vox = volume(dims, pal.len(), 40);
        let path = dir.join("small.vox");
        let summary = write_vox(&path, dims, &vox, &pal).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let want = expected(dims, &vox);
        assert!(want.len() > 50);
        assert_eq!(summary, VoxSummary { models: 1, voxels: want.len() as u64, bytes: bytes.len() as u64 });

        let data = load(&path);
        assert_eq!(data.version, 150);
        assert_eq!(data.models.len(), 1);
        let s = data.models[0].size;
        assert_eq!((s.x, s.y, s.z), (7, 9, 5), ".vox size is (nx, nz, ny)");
        // One model, placed as MagicaVoxel places a new one: centred, on the ground.
        assert_eq!(data.scenes.len(), 4);
        let p = placements(&data);
        assert_eq!(p[0].1, [0, 0, 2]);
        assert_eq!(p[0].2, [[-3, 4], [-4, 5], [0, 5]]);
        let local: BTreeSet<_> =
            data.models[0].voxels.iter().map(|v| ([v.x as i64 - 3, v.y as i64 - 4, v.z as i64], v.i)).collect();
        assert_eq!(local, want, "model voxel v is at world v − (3, 4, 0)");
        assert_eq!(placed(&data), want);
        for (k, c) in pal.iter().enumerate() {
            let p = data.palette[k];
            assert_eq!([p.r, p.g, p.b, p.a], *c, "colour of index {}", k + 1);
        }
        assert!(data.palette[pal.len()..].iter().all(|p| [p.r, p.g, p.b, p.a] == [0; 4]));

        let w = walk(&bytes);
        assert_eq!((w.models, w.voxels, w.nodes), (1, want.len() as u64, 4));
        // Deterministic.
        let again = dir.join("again.vox");
        write_vox(&again, dims, &vox, &pal).unwrap();
        assert_eq!(std::fs::read(&again).unwrap(), bytes);
    }

    #[test]
    fn axes_are_upright_and_right_handed_in_the_file() {
        // Markers: origin (0, 0, 0), one step east (+x), one up (+y), one south (+z).
        let dir = TmpDir::new("vox-axes");
        let dims = [3, 4, 5];
        let mut v = vec![0u8; 60];
        let at = |x: usize, y: usize, z: usize| x + 3 * (z + 5 * y);
        v[at(0, 0, 0)] = 1;
        v[at(1, 0, 0)] = 2;
        v[at(0, 1, 0)] = 3;
        v[at(0, 0, 1)] = 4;
        v[at(2, 3, 4)] = 5; // the far corner
        let path = dir.join("axes.vox");
        write_vox(&path, dims, &v, &palette(5)).unwrap();
        let data = load(&path);
        let pos = |i: u8| {
            let m = data.models[0].voxels.iter().find(|p| p.i == i - 1).unwrap();
            [m.x as i64, m.y as i64, m.z as i64]
        };
        let o = pos(1);
        let d = |i| {
            let p = pos(i);
            [p[0] - o[0], p[1] - o[1], p[2] - o[2]]
        };
        let (ex, ey, ez) = (d(2), d(3), d(4));
        assert_eq!(ex, [1, 0, 0], "east is .vox +x");
        assert_eq!(ey, [0, 0, 1], "up is .vox +z (MagicaVoxel's up)");
        assert_eq!(ez, [0, -1, 0], "south (+z, ours) is .vox −y, so north is +y");
        let cross = [ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2], ex[0] * ey[1] - ex[1] * ey[0]];
        assert_eq!(cross, ez, "x × y = z holds after the mapping: right-handed, not mirrored");
        assert_eq!(o, [0, 4, 0], "our origin is at the north edge's far side: (0, nz − 1, 0)");
        assert_eq!(pos(5), [2, 0, 3]);
        // In the world: centred on the ground.
        let world = placed(&data);
        let at_world = |i: u8| world.iter().find(|w| w.1 == i - 1).unwrap().0;
        assert_eq!(at_world(1), [-1, 2, 0]);
        assert_eq!(Some(at_world(1)), vox_position(dims, [0, 0, 0]));
        assert_eq!(at_world(5), [1, -2, 3]);
    }

    #[test]
    fn a_300_wide_volume_is_split_and_placed_by_the_scene_graph() {
        let dir = TmpDir::new("vox-split");
        let dims = [300, 20, 10];
        let pal = palette(255);
        let vox = volume(dims, pal.len(), 30);
        let path = dir.join("wide.vox");
        let summary = write_vox(&path, dims, &vox, &pal).unwrap();
        assert_eq!(summary.models, 2);
        let data = load(&path);
        assert_eq!(data.models.len(), 2);
        let sizes: Vec<_> = data.models.iter().map(|m| (m.size.x, m.size.y, m.size.z)).collect();
        assert_eq!(sizes, [(256, 10, 20), (44, 10, 20)]);
        // 2 root nodes + a transform and a shape per model.
        assert_eq!(data.scenes.len(), 2 + 2 * 2);
        let want = expected(dims, &vox);
        let got = placed(&data);
        assert_eq!(got.len(), want.len());
        assert_eq!(got, want, "every voxel lands at its absolute position with its colour");
        // Both pieces hold voxels, and the seam is where it should be (x = 256 − 150).
        assert!(got.iter().any(|(p, _)| p[0] == 105) && got.iter().any(|(p, _)| p[0] == 106));
        // The pieces tile the volume's box, centred on the ground, side by side.
        let p = placements(&data);
        assert_eq!(p[0].2, [[-150, 106], [-5, 5], [0, 20]]);
        assert_eq!(p[1].2, [[106, 150], [-5, 5], [0, 20]]);
        let w = walk(&std::fs::read(&path).unwrap());
        assert_eq!((w.models, w.voxels, w.nodes), (2, want.len() as u64, 6));
        assert_eq!(w.voxels, summary.voxels);
    }

    #[test]
    fn a_volume_over_256_on_every_axis_becomes_eight_models() {
        let dir = TmpDir::new("vox-cube");
        let dims = [257, 258, 259];
        let pal = palette(3);
        // Sparse: one voxel in 100 (keeps the debug-mode parse quick).
        let vox = volume(dims, pal.len(), 1);
        let path = dir.join("cube.vox");
        let summary = write_vox(&path, dims, &vox, &pal).unwrap();
        assert_eq!(summary.models, 8);
        let data = load(&path);
        let sizes: Vec<_> = data.models.iter().map(|m| (m.size.x, m.size.y, m.size.z)).collect();
        assert_eq!(
            sizes,
            [
                (256, 256, 256),
                (1, 256, 256),
                (256, 3, 256),
                (1, 3, 256),
                (256, 256, 2),
                (1, 256, 2),
                (256, 3, 2),
                (1, 3, 2)
            ]
        );
        assert_eq!(placed(&data), expected(dims, &vox));
        let w = walk(&std::fs::read(&path).unwrap());
        assert_eq!((w.models, w.nodes), (8, 2 + 16));
        assert_eq!(w.voxels, summary.voxels);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
        #[test]
        fn any_shape_reads_back_in_place(
            nx in 1usize..600, ny in 1usize..5, nz in 1usize..5, colours in 1usize..=255, fill in 0u64..100,
        ) {
            let dir = TmpDir::new("vox-prop");
            let dims = [nx, ny, nz];
            let pal = palette(colours);
            let vox = volume(dims, colours, fill);
            let path = dir.join("p.vox");
            let s = write_vox(&path, dims, &vox, &pal).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            proptest::prop_assert_eq!(s.bytes, bytes.len() as u64);
            proptest::prop_assert_eq!(s.models, nx.div_ceil(256));
            let w = walk(&bytes);
            proptest::prop_assert_eq!(w.voxels, s.voxels);
            let data = dot_vox::load_bytes(&bytes).unwrap();
            proptest::prop_assert_eq!(placed(&data), expected(dims, &vox));
        }
    }

    #[test]
    fn empty_volume_and_empty_pieces_are_written() {
        let dir = TmpDir::new("vox-empty");
        let path = dir.join("e.vox");
        let s = write_vox(&path, [300, 1, 1], &[0u8; 300], &[]).unwrap();
        assert_eq!((s.models, s.voxels), (2, 0));
        let data = load(&path);
        assert!(data.models.iter().all(|m| m.voxels.is_empty()));
        walk(&std::fs::read(&path).unwrap());
    }

    #[test]
    fn bad_inputs_are_refused_and_nothing_is_written() {
        let dir = TmpDir::new("vox-bad");
        let path = dir.join("bad.vox");
        let pal = palette(4);
        let msg = |r: Result<VoxSummary, IoError>| {
            let e = r.unwrap_err();
            let m = e.to_string();
            assert!(m.starts_with(&path.display().to_string()), "{m}");
            (e, m)
        };
        let (e, m) = msg(write_vox(&path, [0, 3, 3], &[], &pal));
        assert!(matches!(e, IoError::Empty { .. }) && m.contains("0×3×3"), "{m}");
        for dims in [[MAX_VOX_SIDE + 1, 1, 1], [1, 1, MAX_VOX_SIDE + 1], [1, MAX_VOX_HEIGHT + 1, 1]] {
            let (_, m) = msg(write_vox(&path, dims, &[], &pal));
            assert!(m.contains("MagicaVoxel's world holds at most 2048 across (x, z) and 1024 high (y)"), "{m}");
        }
        // Over the cell cap: refused from the dimensions alone.
        let (e, m) = msg(write_vox(&path, [MAX_VOX_SIDE, MAX_VOX_HEIGHT, MAX_VOX_SIDE], &[], &pal));
        assert!(matches!(e, IoError::TooMany { limit, .. } if limit == MAX_VOX_CELLS), "{m}");
        let (_, m) = msg(write_vox(&path, [2, 2, 2], &[0; 7], &pal));
        assert!(m.contains("7 voxels") && m.contains("8 expected"), "{m}");
        let (_, m) = msg(write_vox(&path, [1, 1, 1], &[1], &palette(256)));
        assert!(m.contains("256 colours") && m.contains("255"), "{m}");
        let mut v = vec![0u8; 24];
        v[11] = 5; // (x, y, z) = (1, 1, 2) in a 2×4×3 volume: 1 + 2·(2 + 3·1)
        let (_, m) = msg(write_vox(&path, [2, 4, 3], &v, &pal));
        assert!(m.contains("voxel (1, 1, 2)") && m.contains("index 5") && m.contains("4 colours"), "{m}");
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "nothing written");

        // A refused write keeps an existing file as it was.
        write_vox(&path, [1, 1, 1], &[1], &pal).unwrap();
        let before = std::fs::read(&path).unwrap();
        msg(write_vox(&path, [1, 1, 1], &[9], &pal));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 1);
        // Into a missing directory.
        let missing = dir.join("nope").join("x.vox");
        let e = write_vox(&missing, [1, 1, 1], &[1], &pal).unwrap_err();
        assert!(matches!(e, IoError::Io { .. }), "{e}");
    }
}
