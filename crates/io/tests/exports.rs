//! Engine exports: Unity `.r16`, Unreal PNG tiles, Godot R16/EXR, weight maps, GLB and OBJ.

mod common;

mod exports {
    use super::common::TmpDir;
    use bozkir_core::Grid;
    use bozkir_io::export::exr::{decode_exr_f32, encode_exr_f32, read_exr_f32, write_exr_f32};
    use bozkir_io::export::glb::write_glb;
    use bozkir_io::export::godot::write_godot;
    use bozkir_io::export::mesh::height_mesh;
    use bozkir_io::export::obj::write_obj;
    use bozkir_io::export::unity::write_unity;
    use bozkir_io::export::unreal::{unreal_tile_name, write_unreal, UnrealOptions};
    use bozkir_io::export::weights::{
        class_layers, distinct_classes, read_rgba8, soft_layers, write_weight_maps, write_weight_maps_tiled,
    };
    use bozkir_io::{read_png16, read_png8};
    use std::path::Path;

    fn ramp(w: usize, h: usize) -> Grid<f64> {
        Grid::from_fn(w, h, |x, y| 100.0 + x as f64 * 2.0 + y as f64 * 0.5 + ((x * 7 + y * 3) % 5) as f64)
            .with_cell_size(10.0, 10.0)
    }

    fn json(p: &Path) -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }

    #[test]
    fn unity_r16_is_2n_plus_1_little_endian_south_first() {
        let tmp = TmpDir::new("exports1");
        let dir: &Path = &tmp;
        let h = ramp(40, 30);
        let e = write_unity(dir, "height", &h, None).unwrap();
        assert_eq!(e.resolution, 65);
        let bytes = std::fs::read(&e.r16).unwrap();
        assert_eq!(bytes.len(), 65 * 65 * 2);
        let (lo, hi) = h.min_max().unwrap();
        // The first sample of the file is the south-west corner, the last the north-east one.
        let first = u16::from_le_bytes([bytes[0], bytes[1]]);
        let want = ((h.get(0, 29) - lo) / (hi - lo) * 65535.0).round() as u16;
        assert_eq!(first, want);
        let n = bytes.len();
        let last = u16::from_le_bytes([bytes[n - 2], bytes[n - 1]]);
        assert_eq!(last, ((h.get(39, 0) - lo) / (hi - lo) * 65535.0).round() as u16);
        let note = json(&e.note);
        assert_eq!(note["resolution"], 65);
        assert_eq!(note["terrain_height_m"].as_f64().unwrap(), hi - lo);
        assert_eq!(note["terrain_width_m"].as_f64().unwrap(), 390.0);
        for (n, want) in [(129, 129), (4097, 4097)] {
            let e = write_unity(dir, "r", &ramp(8, 8), Some(n)).unwrap();
            assert_eq!(e.resolution, want);
            assert_eq!(std::fs::metadata(&e.r16).unwrap().len(), (want * want * 2) as u64);
        }
        let err = write_unity(dir, "bad", &h, Some(128)).unwrap_err().to_string();
        assert!(err.contains("bad.r16") && err.contains("2^k + 1"), "{err}");
    }

    #[test]
    fn unreal_tiles_share_edges_and_are_named() {
        let tmp = TmpDir::new("exports2");
        let dir: &Path = &tmp;
        let h = ramp(50, 30);
        let e = write_unreal(dir, "height", &h, UnrealOptions { size: None, tile: Some(17) }).unwrap();
        assert_eq!(e.size, (65, 33));
        assert_eq!(e.tiles, (4, 2));
        assert_eq!(e.files.len(), 8);
        assert_eq!(e.files[5].file_name().unwrap().to_str().unwrap(), unreal_tile_name("height", 1, 1));
        assert_eq!(unreal_tile_name("height", 1, 1), "height_x1_y1.png");
        let t00 = read_png16(dir.join("height_x0_y0.png")).unwrap();
        let t10 = read_png16(dir.join("height_x1_y0.png")).unwrap();
        let t01 = read_png16(dir.join("height_x0_y1.png")).unwrap();
        assert_eq!((t00.width(), t00.height()), (17, 17));
        for y in 0..17 {
            assert_eq!(t00.get(16, y), t10.get(0, y));
        }
        assert_eq!(t00.row(16), t01.row(0));
        let (lo, hi) = h.min_max().unwrap();
        assert!((e.z_scale - (hi - lo) * 100.0 / 512.0).abs() < 1e-12);
        assert_eq!(json(&e.note)["tiles"], serde_json::json!([4, 2]));

        let one = write_unreal(dir, "solo", &ramp(40, 40), UnrealOptions::default()).unwrap();
        assert_eq!(one.size, (127, 127));
        assert_eq!(read_png16(&one.files[0]).unwrap().width(), 127);
        let note = json(&one.note);
        assert_eq!(note["recommended_settings"]["quads_per_section"], 63);
        let sized =
            write_unreal(dir, "big", &ramp(40, 40), UnrealOptions { size: Some(1009), tile: Some(505) }).unwrap();
        assert_eq!((sized.size, sized.tiles), ((1009, 1009), (2, 2)));
        let err =
            write_unreal(dir, "odd", &h, UnrealOptions { size: Some(1000), tile: Some(505) }).unwrap_err().to_string();
        assert!(err.contains("odd.png"), "{err}");
    }

    #[test]
    fn exr_parses_back_exactly() {
        let tmp = TmpDir::new("exports3");
        let dir: &Path = &tmp;
        let g = Grid::from_fn(7, 5, |x, y| (x as f32 - 3.3) * 1.7e3 + y as f32 * 0.125 + f32::EPSILON);
        let bytes = encode_exr_f32(&g, "R");
        assert_eq!(&bytes[..4], &[0x76, 0x2f, 0x31, 0x01]);
        assert_eq!(&bytes[4..8], &[2, 0, 0, 0]);
        let text = String::from_utf8_lossy(&bytes);
        for attr in [
            "channels",
            "compression",
            "dataWindow",
            "displayWindow",
            "lineOrder",
            "pixelAspectRatio",
            "screenWindowCenter",
            "screenWindowWidth",
        ] {
            assert!(text.contains(attr), "{attr}");
        }
        let (back, ch) = decode_exr_f32(Path::new("mem.exr"), &bytes).unwrap();
        assert_eq!(ch, "R");
        assert_eq!(
            back.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        let p = dir.join("a.exr");
        write_exr_f32(&p, &g, "Y").unwrap();
        assert_eq!(read_exr_f32(&p).unwrap(), (g.clone(), "Y".to_string()));
        let err = decode_exr_f32(Path::new("cut.exr"), &bytes[..bytes.len() - 3]).unwrap_err().to_string();
        assert!(err.contains("cut.exr") && err.contains("truncated"), "{err}");
        let err = decode_exr_f32(Path::new("x.exr"), b"nope, not an exr").unwrap_err().to_string();
        assert!(err.contains("x.exr") && err.contains("magic"), "{err}");

        let h = ramp(9, 6);
        let e = write_godot(dir, "height", &h).unwrap();
        let (gx, _) = read_exr_f32(&e.exr).unwrap();
        assert_eq!(gx.data(), h.map(|&v| v as f32).data());
        let raw = std::fs::read(&e.r16).unwrap();
        assert_eq!(raw.len(), 9 * 6 * 2);
        assert_eq!(u16::from_le_bytes([raw[0], raw[1]]), 0);
        assert_eq!(json(&e.note)["r16"]["height_offset_m"].as_f64().unwrap(), e.low_m);
    }

    #[test]
    fn weight_maps_sum_to_255_per_pixel() {
        let tmp = TmpDir::new("exports4");
        let dir: &Path = &tmp;
        let classes = Grid::from_fn(11, 7, |x, y| [1u8, 3, 4, 6, 9, 10][(x * 3 + y) % 6]);
        let ids = distinct_classes(&classes);
        assert_eq!(ids, vec![1, 3, 4, 6, 9, 10]);
        let layers = class_layers(&classes, &ids);
        let names: Vec<String> = ids.iter().map(|i| format!("class{i}")).collect();
        let e = write_weight_maps(dir, "weights", &layers, &names).unwrap();
        assert_eq!(e.layers.len(), 6);
        assert_eq!(e.splats.len(), 2);
        let back: Vec<Grid<u8>> = e.layers.iter().map(|p| read_png8(p).unwrap()).collect();
        let splats: Vec<Grid<[u8; 4]>> = e.splats.iter().map(|p| read_rgba8(p).unwrap()).collect();
        for p in 0..classes.len() {
            let sum: u32 = back.iter().map(|l| u32::from(l.data()[p])).sum();
            assert_eq!(sum, 255);
            let ssum: u32 = splats.iter().flat_map(|s| s.data()[p]).map(u32::from).sum();
            assert_eq!(ssum, 255);
        }
        assert_eq!(splats[1].data()[0][2..], [0, 0]);
        assert_eq!(json(&e.note)["layers"][5]["channel"], "G");

        let soft: Vec<Grid<f64>> =
            (0..5).map(|k| Grid::from_fn(13, 9, |x, y| ((x * (k + 1) + y * 7 + k * k) % 11) as f64 * 0.37)).collect();
        let q = soft_layers(&soft);
        for p in 0..q[0].len() {
            assert_eq!(q.iter().map(|l| u32::from(l.data()[p])).sum::<u32>(), 255);
        }
    }

    #[test]
    fn glb_validates() {
        let tmp = TmpDir::new("exports5");
        let dir: &Path = &tmp;
        let h = ramp(21, 14);
        let chunks = height_mesh(&h, 8);
        assert_eq!(chunks.len(), 3 * 2);
        let p = dir.join("t.glb");
        write_glb(&p, &chunks).unwrap();
        let b = std::fs::read(&p).unwrap();
        let u32at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(&b[..4], b"glTF");
        assert_eq!(u32at(4), 2);
        assert_eq!(u32at(8) as usize, b.len());
        let jlen = u32at(12) as usize;
        assert_eq!(&b[16..20], b"JSON");
        assert_eq!(jlen % 4, 0);
        let bin_at = 20 + jlen;
        let blen = u32at(bin_at) as usize;
        assert_eq!(&b[bin_at + 4..bin_at + 8], b"BIN\0");
        assert_eq!(blen % 4, 0);
        assert_eq!(bin_at + 8 + blen, b.len());
        let bin = &b[bin_at + 8..];
        let doc: serde_json::Value = serde_json::from_slice(&b[20..20 + jlen]).unwrap();
        assert_eq!(doc["asset"]["version"], "2.0");
        assert!(doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize <= blen);
        assert_eq!(doc["nodes"].as_array().unwrap().len(), 6);
        assert_eq!(doc["scenes"][0]["nodes"].as_array().unwrap().len(), 6);
        let views = doc["bufferViews"].as_array().unwrap();
        for v in views {
            let (off, len) = (v["byteOffset"].as_u64().unwrap() as usize, v["byteLength"].as_u64().unwrap() as usize);
            assert_eq!(off % 4, 0);
            assert!(off + len <= blen);
        }
        let accessors = doc["accessors"].as_array().unwrap();
        for a in accessors {
            let v = &views[a["bufferView"].as_u64().unwrap() as usize];
            let comps = match a["type"].as_str().unwrap() {
                "SCALAR" => 1,
                "VEC2" => 2,
                "VEC3" => 3,
                t => panic!("type {t}"),
            };
            let need = a["count"].as_u64().unwrap() as usize * comps * 4
                + a.get("byteOffset").and_then(|o| o.as_u64()).unwrap_or(0) as usize;
            assert!(need <= v["byteLength"].as_u64().unwrap() as usize);
        }
        let mut triangles = 0;
        for (m, c) in doc["meshes"].as_array().unwrap().iter().zip(&chunks) {
            let prim = &m["primitives"][0];
            assert_eq!(prim["mode"], 4);
            let pos = &accessors[prim["attributes"]["POSITION"].as_u64().unwrap() as usize];
            assert_eq!(pos["count"].as_u64().unwrap() as usize, c.positions.len());
            for k in ["NORMAL", "TEXCOORD_0"] {
                assert_eq!(accessors[prim["attributes"][k].as_u64().unwrap() as usize]["count"], pos["count"]);
            }
            let view = &views[pos["bufferView"].as_u64().unwrap() as usize];
            let off = view["byteOffset"].as_u64().unwrap() as usize;
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in bin[off..off + view["byteLength"].as_u64().unwrap() as usize].chunks_exact(12) {
                for k in 0..3 {
                    let x = f32::from_le_bytes(v[4 * k..4 * k + 4].try_into().unwrap());
                    lo[k] = lo[k].min(x);
                    hi[k] = hi[k].max(x);
                }
            }
            for k in 0..3 {
                assert_eq!(pos["min"][k].as_f64().unwrap() as f32, lo[k]);
                assert_eq!(pos["max"][k].as_f64().unwrap() as f32, hi[k]);
            }
            let ia = &accessors[prim["indices"].as_u64().unwrap() as usize];
            assert_eq!(ia["componentType"], 5125);
            let iv = &views[ia["bufferView"].as_u64().unwrap() as usize];
            let ioff = iv["byteOffset"].as_u64().unwrap() as usize;
            let n = pos["count"].as_u64().unwrap() as u32;
            for k in bin[ioff..ioff + 4 * ia["count"].as_u64().unwrap() as usize].chunks_exact(4) {
                assert!(u32::from_le_bytes(k.try_into().unwrap()) < n);
            }
            triangles += ia["count"].as_u64().unwrap() / 3;
        }
        assert_eq!(triangles, 20 * 13 * 2);
    }

    #[test]
    fn obj_counts() {
        let tmp = TmpDir::new("exports6");
        let dir: &Path = &tmp;
        let h = ramp(10, 7);
        let chunks = height_mesh(&h, 4);
        let p = dir.join("t.obj");
        write_obj(&p, &chunks).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let count = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
        let verts: usize = chunks.iter().map(|c| c.positions.len()).sum();
        assert_eq!(count("f "), 9 * 6 * 2);
        assert_eq!(count("v "), verts);
        assert_eq!(count("vt "), verts);
        assert_eq!(count("vn "), verts);
        assert_eq!(count("o "), chunks.len());
        assert_eq!(chunks.len(), 3 * 2);
        let max_index = text
            .lines()
            .filter(|l| l.starts_with("f "))
            .flat_map(|l| l[2..].split(' ').map(|t| t.split('/').next().unwrap().parse::<usize>().unwrap()))
            .max()
            .unwrap();
        assert_eq!(max_index, verts);
    }

    /// Soft layers over a 33 × 17 map: smooth ramps, so every tile differs.
    fn soft_map() -> Vec<Grid<u8>> {
        let ramps: Vec<Grid<f64>> =
            (0..5).map(|k| Grid::from_fn(33, 17, move |x, y| 1.0 + ((x * (k + 1) + 3 * y * k) % 11) as f64)).collect();
        soft_layers(&ramps)
    }

    #[test]
    fn tiled_weight_maps_share_the_height_tiles_and_reassemble() {
        let layers = soft_map();
        let names: Vec<String> = ["grass", "rock", "sand", "snow", "mud"].iter().map(|s| s.to_string()).collect();
        let tmp = TmpDir::new("weights_tiled");
        let (flat, tiled) = (tmp.join("flat"), tmp.join("tiled"));
        std::fs::create_dir_all(&flat).unwrap();
        std::fs::create_dir_all(&tiled).unwrap();
        let a = write_weight_maps(&flat, "weights", &layers, &names).unwrap();
        let b = write_weight_maps_tiled(&tiled, "weights", &layers, &names, 9).unwrap();
        // 33 × 17 pixels in 9 × 9 tiles sharing edges: 4 columns, 2 rows.
        assert_eq!(b.layers.len(), 5 * 8);
        assert_eq!(b.splats.len(), 2 * 8);
        let mut listing: Vec<String> =
            std::fs::read_dir(&tiled).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        listing.sort();
        assert_eq!(listing.len(), 5 * 8 + 2 * 8 + 1);
        for name in ["weights_grass_x0_y0.png", "weights_mud_x3_y1.png", "weights_splat1_x2_y0.png", "weights.json"] {
            assert!(listing.contains(&name.to_string()), "{name} in {listing:?}");
        }
        assert!(!listing.iter().any(|f| f == "weights_grass.png" || f.contains("_x4") || f.contains("_y2")));
        // Reassembled tiles give the untiled maps, pixel for pixel, and agree on shared edges.
        for (li, name) in names.iter().enumerate() {
            let whole = read_png8(&a.layers[li]).unwrap();
            assert_eq!(whole.data(), layers[li].data());
            for ty in 0..2 {
                for tx in 0..4 {
                    let t = read_png8(tiled.join(format!("weights_{name}_x{tx}_y{ty}.png"))).unwrap();
                    assert_eq!((t.width(), t.height()), (9, 9));
                    for y in 0..9 {
                        for x in 0..9 {
                            assert_eq!(t.get(x, y), whole.get(tx * 8 + x, ty * 8 + y), "{name} tile {tx},{ty}");
                        }
                    }
                }
            }
        }
        let splat = read_rgba8(&a.splats[1]).unwrap();
        let t = read_rgba8(tiled.join("weights_splat1_x3_y1.png")).unwrap();
        assert_eq!(t.get(8, 8), splat.get(32, 16));
        assert_eq!(t.get(0, 0), splat.get(24, 8));
        // Every tile pixel still sums to 255 over the layers.
        let tiles: Vec<Grid<u8>> =
            names.iter().map(|n| read_png8(tiled.join(format!("weights_{n}_x1_y1.png"))).unwrap()).collect();
        for p in 0..81 {
            assert_eq!(tiles.iter().map(|g| g.data()[p] as u32).sum::<u32>(), 255);
        }
        let note: serde_json::Value = serde_json::from_slice(&std::fs::read(&b.note).unwrap()).unwrap();
        assert_eq!(note["tiles"], serde_json::json!([4, 2]));
        assert_eq!(note["layers"][1]["file"], "weights_rock_x<column>_y<row>.png");
        // Sizes that are not k·(tile − 1) + 1 are refused.
        let e = write_weight_maps_tiled(&tiled, "w2", &layers, &names, 10).unwrap_err().to_string();
        assert!(e.contains("tile 10"), "{e}");
    }
}
