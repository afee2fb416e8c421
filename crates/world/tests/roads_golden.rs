//! Road networks against pyworldgen 0.1.8 (goldens written by `golden/make_roads.py`): routes,
//! smoothed centrelines, road and bridge masks, graded heights, 3-D polylines and ribbons.

use bozkir_world::roads::{generate_roads, generate_roads_with, RoadInputs, RoadNetwork, RoadParams};
use bozkir_world::{Compat, Seed, WorldGrid};
use serde_json::Value;

mod common;
use common::f32s;

const CASES: &[&str] =
    &["flat0", "rhine", "curv7", "curv11_k3", "atlas", "land3", "land11_nobridge", "comp0", "comp_rhine"];

fn load(name: &str) -> Value {
    common::golden_gz(&format!("roads_{name}.json.gz"))
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn bits(v: &Value) -> Vec<bool> {
    v.as_str().unwrap().bytes().map(|b| b == b'1').collect()
}

fn terrain(g: &Value) -> WorldGrid {
    let (nx, ny) = (g["nx"].as_u64().unwrap() as usize, g["ny"].as_u64().unwrap() as usize);
    let res = g["resolution"].as_f64().unwrap();
    let mut t = WorldGrid::new(nx, ny, res, res, f32s(g["height_f32"].as_str().unwrap()));
    if !g["water_f32"].is_null() {
        t.water_depth = f32s(g["water_f32"].as_str().unwrap());
    }
    t
}

fn params(g: &Value) -> RoadParams {
    RoadParams::split_generator_params(&g["params"]).unwrap().1
}

fn seed(g: &Value) -> Seed {
    match &g["seed"] {
        Value::String(s) => Seed::Str(s.clone()),
        v => Seed::Int(v.as_i64().unwrap()),
    }
}

/// The network for a golden case with its hubs given (independent of the random generator).
fn network_with_golden_hubs(g: &Value) -> RoadNetwork {
    let hubs: Vec<(f64, f64)> = g["hubs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["xy"][0].as_f64().unwrap(), h["xy"][1].as_f64().unwrap()))
        .collect();
    let t = terrain(g);
    let inputs = RoadInputs { hubs: Some(&hubs), ..Default::default() };
    generate_roads_with(&t, &seed(g), Compat::Pyworldgen, &params(g), &inputs).unwrap()
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn compare(name: &str, g: &Value, net: &RoadNetwork) {
    let segs = g["segments"].as_array().unwrap();
    assert_eq!(net.segments.len(), segs.len(), "{name}: segment count");
    let mut poly_diff: f64 = 0.0;
    for (s, e) in net.segments.iter().zip(segs) {
        assert_eq!((s.a as u64, s.b as u64), (e["a"].as_u64().unwrap(), e["b"].as_u64().unwrap()), "{name}: edge");
        let gp: Vec<(usize, usize)> = e["grid_path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c[0].as_u64().unwrap() as usize, c[1].as_u64().unwrap() as usize))
            .collect();
        assert_eq!(s.grid_path, gp, "{name}: route {}–{}", s.a, s.b);
        let flat: Vec<f64> = s.polyline.iter().flat_map(|p| [p[0], p[1]]).collect();
        poly_diff = poly_diff.max(max_abs_diff(&flat, &f64s(&e["polyline"])));
    }
    assert!(poly_diff == 0.0, "{name}: centreline differs by {poly_diff}");
    let mask = bits(&g["road_mask"]);
    let equal = mask.iter().zip(&net.road_mask).filter(|(a, b)| a == b).count();
    assert_eq!(equal, mask.len(), "{name}: road mask equal on {equal}/{}", mask.len());
    assert_eq!(net.bridge_mask(0.05), bits(&g["bridge_mask"]), "{name}: bridge mask");
    let graded = net.graded_height(None, None, 0.05);
    let mut expect = net.height.clone();
    for c in g["graded_changes"].as_array().unwrap() {
        expect[c[0].as_u64().unwrap() as usize] = c[1].as_f64().unwrap();
    }
    let gd = max_abs_diff(&graded, &expect);
    assert!(gd == 0.0, "{name}: graded height differs by {gd}");
    let polys = net.polylines_3d(0.3);
    let gpolys = g["polylines_3d"].as_array().unwrap();
    assert_eq!(polys.len(), gpolys.len());
    for (p, e) in polys.iter().zip(gpolys) {
        let flat: Vec<f64> = p.iter().flat_map(|v| *v).collect();
        assert_eq!(max_abs_diff(&flat, &f64s(e)), 0.0, "{name}: 3-D polyline");
    }
    let mesh = net.ribbon_mesh(None, 0.3);
    let verts: Vec<f64> = mesh.vertices.iter().flat_map(|v| v.map(f64::from)).collect();
    assert_eq!(max_abs_diff(&verts, &f32s(g["ribbon_vertices_f32"].as_str().unwrap())), 0.0, "{name}: ribbon vertices");
    let faces: Vec<u64> = mesh.triangles.iter().flat_map(|t| t.map(u64::from)).collect();
    let gf: Vec<u64> = g["ribbon_faces"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(faces, gf, "{name}: ribbon faces");
}

#[test]
fn routes_masks_grading_and_meshes_match_pyworldgen() {
    for name in CASES {
        let g = load(name);
        let net = network_with_golden_hubs(&g);
        compare(name, &g, &net);
    }
}

#[test]
fn hubs_and_whole_networks_match_pyworldgen() {
    for name in CASES {
        let g = load(name);
        let t = terrain(&g);
        let domain = (g["domain"][0].as_f64().unwrap(), g["domain"][1].as_f64().unwrap());
        let net = if domain == (t.nx as f64 * t.dx, t.ny as f64 * t.dy) {
            generate_roads(&t, &seed(&g), Compat::Pyworldgen, &params(&g)).unwrap()
        } else {
            let inputs = RoadInputs { domain: Some(domain), ..Default::default() };
            generate_roads_with(&t, &seed(&g), Compat::Pyworldgen, &params(&g), &inputs).unwrap()
        };
        let hubs = g["hubs"].as_array().unwrap();
        assert_eq!(net.nodes.len(), hubs.len(), "{name}: hub count");
        for (n, h) in net.nodes.iter().zip(hubs) {
            assert_eq!(n.xy, (h["xy"][0].as_f64().unwrap(), h["xy"][1].as_f64().unwrap()), "{name}: hub {}", n.id);
            assert_eq!(n.grid, (h["grid"][0].as_u64().unwrap() as usize, h["grid"][1].as_u64().unwrap() as usize));
        }
        compare(name, &g, &net);
    }
}
