//! Tiled world stores in the viewer: found in the served folder, listed in the catalogue, and
//! served as quadtree nodes whose samples are the store's own cells.

use bozkir_io::zarr_store::ZarrWriter;
use bozkir_viewer::store::NODE;
use bozkir_viewer::{Scene, State};
use std::path::Path;

/// The height the test worlds hold at column `c`, row `r` (exact in float32).
fn h(c: usize, r: usize) -> f32 {
    (c + 1000 * r) as f32
}

/// A `side²` world of `chunk²` chunks holding [`h`], every chunk written.
fn write_world(dir: &Path, side: usize, chunk: usize) {
    let mut attrs = serde_json::Map::new();
    attrs.insert("bozkir".into(), serde_json::json!({"recipe": "test", "seed": 1}));
    let w = ZarrWriter::create(dir, side, side, chunk, (2.5, 2.5), attrs).unwrap();
    let (nx, ny) = w.chunks();
    for cy in 0..ny {
        for cx in 0..nx {
            let (x0, y0) = (cx * chunk, cy * chunk);
            let (cw, ch) = (chunk.min(side - x0), chunk.min(side - y0));
            let v: Vec<f64> = (0..ch).flat_map(|y| (0..cw).map(move |x| h(x0 + x, y0 + y) as f64)).collect();
            w.write_chunk(cx, cy, &v).unwrap();
        }
    }
}

fn cell(g: usize, intervals: usize, side: usize) -> usize {
    ((g * (side - 1)) as f64 / intervals as f64).round() as usize
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn body(state: &State, url: &str) -> (u16, Vec<u8>) {
    let r = state.handle("GET", url, None);
    (r.status, r.body.bytes().map(|b| b.to_vec()).unwrap_or_default())
}

#[test]
fn a_store_is_listed_and_its_nodes_are_its_own_cells() {
    let dir = tempfile::tempdir().unwrap();
    let side = 300;
    write_world(&dir.path().join("w.zarr"), side, 128);
    let (scene, warnings) = Scene::scan(dir.path()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(scene.stores.len(), 1);
    let s = &scene.stores[0];
    // 299 intervals: level 2 has 512 samples a side, the first with one per cell.
    assert_eq!((s.name.as_str(), s.size(), s.cell_m(), s.levels), ("w.zarr", side, 2.5, 3));
    let state = State::new(scene.clone(), None);
    let (st, cat) = body(&state, "/catalogue.json");
    let cat: serde_json::Value = serde_json::from_slice(&cat).unwrap();
    assert_eq!(st, 200);
    assert_eq!(cat["stores"][0]["path"], "data/stores/w.zarr/");
    assert_eq!(cat["stores"][0]["levels"], 3);

    let (st, meta) = body(&state, "/data/stores/w.zarr/meta.json");
    assert_eq!(st, 200);
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    assert_eq!((meta["low_m"].as_f64(), meta["high_m"].as_f64()), (Some(0.0), Some(h(299, 299) as f64)));
    assert_eq!((meta["node"].as_u64(), meta["size"].as_u64()), (Some(NODE as u64), Some(side as u64)));
    assert_eq!(meta["world"]["recipe"], "test");

    // Every node of every level: each sample is the cell the documented rounding names; the
    // overview levels (≤ 3, all of them here) and the chunk path give the same.
    for level in 0..3u32 {
        let intervals = (NODE - 1) << level;
        for y in 0..1usize << level {
            for x in 0..1usize << level {
                let (st, b) = body(&state, &format!("/data/stores/w.zarr/{level}/{x}/{y}.f32"));
                assert_eq!(st, 200);
                let got = floats(&b);
                assert_eq!(got.len(), NODE * NODE);
                for j in 0..NODE {
                    for i in 0..NODE {
                        let want = h(cell(x * 128 + i, intervals, side), cell(y * 128 + j, intervals, side));
                        assert_eq!(got[j * NODE + i], want, "level {level} node {x},{y} sample {i},{j}");
                    }
                }
            }
        }
    }
    // Neighbours share their border samples.
    let a = floats(&body(&state, "/data/stores/w.zarr/1/0/0.f32").1);
    let b = floats(&body(&state, "/data/stores/w.zarr/1/1/0.f32").1);
    assert!((0..NODE).all(|j| a[j * NODE + 128] == b[j * NODE]));
    // Outside the tree, malformed names.
    for (url, want) in [
        ("/data/stores/w.zarr/3/0/0.f32", 404),
        ("/data/stores/w.zarr/0/1/0.f32", 404),
        ("/data/stores/w.zarr/1/0/2.f32", 404),
        ("/data/stores/w.zarr/0/0/x.f32", 400),
        ("/data/stores/w.zarr/0/0/0", 400),
        ("/data/stores/w.zarr/0/0/+0.f32", 400),
        ("/data/stores/w.zarr/99999999999999999999/0/0.f32", 400),
        ("/data/stores/nope/meta.json", 404),
        ("/data/stores/w.zarr/zarr.json", 404),
    ] {
        assert_eq!(state.handle("GET", url, None).status, want, "{url}");
    }
}

#[test]
fn deep_levels_read_chunks_missing_chunks_are_nan_and_damage_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // 2049 cells: levels 0..=4, level 4 read from the chunks (tiles of 512).
    let side = 2049;
    let store = dir.path().join("big.zarr");
    write_world(&store, side, 512);
    std::fs::remove_file(store.join("height/c/0/0")).unwrap();
    std::fs::write(store.join("height/c/3/3"), b"not zstd").unwrap();
    let (scene, _) = Scene::scan(dir.path()).unwrap();
    let s = &scene.stores[0];
    assert_eq!(s.levels, 5);
    let node = s.node(4, 5, 2).unwrap().unwrap();
    let intervals = 128 << 4;
    for j in 0..NODE {
        for i in 0..NODE {
            let want = h(cell(5 * 128 + i, intervals, side), cell(2 * 128 + j, intervals, side));
            assert_eq!(node[j * NODE + i], want);
        }
    }
    // Node (4, 0, 0) lies in the deleted chunk: no data, NaN; its root sample too.
    assert!(s.node(4, 0, 0).unwrap().unwrap().iter().all(|v| v.is_nan()));
    // The damaged chunk names its file (the overview reads every chunk, so meta fails too).
    let e = s.node(4, 15, 15).unwrap_err().to_string();
    assert!(e.contains("height/c/3/3") && e.contains("zstd"), "{e}");
    let state = State::new(scene.clone(), None);
    let r = state.handle("GET", "/data/stores/big.zarr/meta.json", None);
    assert_eq!(r.status, 500);
}

#[test]
fn stores_that_are_not_the_tiled_layout_are_skipped_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.zarr");
    write_world(&bad, 64, 32);
    let meta = std::fs::read_to_string(bad.join("height/zarr.json")).unwrap();
    std::fs::write(bad.join("height/zarr.json"), meta.replace("float32", "float64")).unwrap();
    let (scene, warnings) = Scene::scan(dir.path()).unwrap();
    assert!(scene.stores.is_empty());
    assert!(warnings.iter().any(|w| w.contains("bad.zarr") && w.contains("not the layout")), "{warnings:?}");
}
