//! The landscape against pyworldgen 0.1.8 (goldens written by `golden/make_landscape.py`).
//!
//! Two comparisons per case:
//! * **replayed draws** — the generator fed the exact values numpy's generators handed out
//!   in pyworldgen (recorded by the script), with pyworldgen's hash noise: checks every
//!   deterministic step (noise, meanders, beds, carving, ponds, smoothing, materials) apart
//!   from numpy's bit stream;
//! * **full compatibility path** — `generate(seed, Compat::Pyworldgen, …)`, numpy's PCG64
//!   included.

use std::collections::HashMap;
use std::io::Read;

use bozkir_world::compat::Pyworldgen;
use bozkir_world::landscape::{generate, generate_with, LandscapeParams, LandscapeWorld, RiverKind};
use bozkir_world::random::{Draws, Noise, Randomness};
use bozkir_world::{Compat, Seed};
use serde_json::Value;

mod common;
use common::f32s;

fn cases() -> Vec<Value> {
    let raw = include_bytes!("golden/landscape.json.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&raw[..]).read_to_string(&mut text).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Array(a) => a,
        _ => panic!("golden: not a list"),
    }
}

/// Replays recorded numpy draws: each call takes the next value of the stream for that seed.
struct Replay {
    draws: HashMap<i64, Vec<(String, u64)>>,
}

struct ReplayDraws {
    seq: std::vec::IntoIter<(String, u64)>,
}

impl ReplayDraws {
    fn next(&mut self, kind: &str) -> u64 {
        let (k, v) = self.seq.next().unwrap_or_else(|| panic!("replay: no more draws for {kind}"));
        assert_eq!(k, kind, "replay: draw order differs from pyworldgen's");
        v
    }
}

impl Draws for ReplayDraws {
    fn random(&mut self) -> f64 {
        f64::from_bits(self.next("random"))
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let v = f64::from_bits(self.next("uniform"));
        assert!(v >= lo.min(hi) && v <= hi.max(lo), "replay: uniform({lo}, {hi}) gave {v}");
        v
    }
    fn integers(&mut self, n: i64) -> i64 {
        let v = self.next("integers") as i64;
        assert!((0..n).contains(&v));
        v
    }
    fn normal(&mut self) -> f64 {
        f64::from_bits(self.next("normal"))
    }
    fn choice(&mut self, n: usize) -> usize {
        let v = self.next("choice") as usize;
        assert!(v < n);
        v
    }
}

impl Randomness for Replay {
    fn noise(&self) -> &dyn Noise {
        &Pyworldgen
    }
    fn draws(&self, seed: i64) -> Box<dyn Draws> {
        let seq = self.draws.get(&seed).unwrap_or_else(|| panic!("replay: no draws for seed {seed}")).clone();
        Box::new(ReplayDraws { seq: seq.into_iter() })
    }
}

fn replay_of(case: &Value) -> Replay {
    let mut draws = HashMap::new();
    for (k, v) in case["draws"].as_object().unwrap() {
        let seq = v
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_str().unwrap().to_string(), e[1].as_u64().unwrap()))
            .collect();
        draws.insert(k.parse::<i64>().unwrap(), seq);
    }
    Replay { draws }
}

fn setup(case: &Value) -> (Seed, LandscapeParams) {
    let seed: Seed = serde_json::from_value(case["seed"].clone()).unwrap();
    let params = LandscapeParams::from_overrides(case["params"].as_object().unwrap()).unwrap();
    (seed, params)
}

/// Largest differences and material agreement of `w` against the golden `case`.
struct Report {
    height: f64,
    water: f64,
    moisture: f64,
    river: f64,
    material_equal: f64,
}

fn compare(w: &LandscapeWorld, case: &Value) -> Report {
    let (nx, ny) = (case["nx"].as_u64().unwrap() as usize, case["ny"].as_u64().unwrap() as usize);
    assert_eq!((w.grid.nx, w.grid.ny), (nx, ny));
    let maxdiff = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    let mat = common::base64(case["material"].as_str().unwrap());
    let same = mat.iter().zip(&w.material).filter(|(a, b)| a == b).count();
    let rivers = case["rivers"].as_array().unwrap();
    assert_eq!(rivers.len(), w.rivers.len());
    let mut river: f64 = 0.0;
    for (g, r) in rivers.iter().zip(&w.rivers) {
        assert_eq!(g["parent_id"].as_u64().map(|v| v as usize), r.parent_id);
        assert_eq!(g["order"].as_u64().unwrap() as u32, r.order);
        assert_eq!(g["kind"].as_str().unwrap(), if r.kind == RiverKind::Main { "main" } else { "tributary" });
        river =
            river.max((g["flow"].as_f64().unwrap() - r.flow).abs()).max((g["width"].as_f64().unwrap() - r.width).abs());
        for (p, q) in g["points_xy"].as_array().unwrap().iter().zip(&r.points) {
            river = river.max((p[0].as_f64().unwrap() - q[0]).abs()).max((p[1].as_f64().unwrap() - q[1]).abs());
        }
        for (b, q) in g["bed_elevation"].as_array().unwrap().iter().zip(&r.bed) {
            river = river.max((b.as_f64().unwrap() - q).abs());
        }
    }
    let ponds = case["ponds"].as_array().unwrap();
    assert_eq!(ponds.len(), w.ponds.len());
    for (g, p) in ponds.iter().zip(&w.ponds) {
        assert_eq!(g["connected_river_id"].as_u64().map(|v| v as usize), p.connected_river_id);
        river = river.max((g["water_level"].as_f64().unwrap() - p.water_level).abs());
        river = river.max((g["center_xy"][0].as_f64().unwrap() - p.center[0]).abs());
    }
    Report {
        height: maxdiff(&f32s(case["height"].as_str().unwrap()), &w.grid.height),
        water: maxdiff(&f32s(case["water_depth"].as_str().unwrap()), &w.grid.water_depth),
        moisture: maxdiff(&f32s(case["moisture"].as_str().unwrap()), &w.moisture),
        river,
        material_equal: same as f64 / mat.len() as f64,
    }
}

fn check(label: &str, r: &Report) {
    eprintln!(
        "{label}: max |Δheight| {:.3e}, |Δwater| {:.3e}, |Δmoisture| {:.3e}, rivers/ponds {:.3e}, materials equal {:.4} %",
        r.height,
        r.water,
        r.moisture,
        r.river,
        100.0 * r.material_equal
    );
    assert!(r.height <= 1e-4 && r.water <= 1e-4 && r.moisture <= 1e-4, "{label}");
    assert!(r.river <= 1e-4, "{label}");
    assert!(r.material_equal >= 0.999, "{label}");
}

#[test]
fn landscape_equals_pyworldgen_with_replayed_draws() {
    for case in cases() {
        let (seed, params) = setup(&case);
        let w = generate_with(seed.pyworldgen_int(), Compat::Pyworldgen, &params, &replay_of(&case)).unwrap();
        check(&format!("replay seed {seed}"), &compare(&w, &case));
    }
}

#[test]
fn landscape_equals_pyworldgen() {
    for case in cases() {
        let (seed, params) = setup(&case);
        let w = generate(&seed, Compat::Pyworldgen, &params).unwrap();
        check(&format!("seed {seed}"), &compare(&w, &case));
    }
}
