//! pyworldgen 0.1.8's `composite` against ours, on the worlds `golden/make_compose.py` wrote
//! (forest and roads off). Heights and water depths within 1e-4 m, weights, dominant biome and
//! colour equal on ≥ 99.9 % of cells, region types equal.

use std::io::Read;

use bozkir_world::compose::{self, CompositeParams, CompositeWorld, Palette};
use bozkir_world::{Compat, Seed};

const CUSTOM_TOML: &str = r#"
[[biome]]
name = "lake"
profile = "water"
color = [20, 60, 200]
tree_density = 0.0
niche = [0.3, 0.8]

[[biome]]
name = "steppe"
profile = "plains"
color = [200, 180, 100]
tree_density = 0.05
niche = [0.5, 0.2]

[[biome]]
name = "crags"
profile = "mountains"
color = [90, 90, 90]
tree_density = 0.3
niche = [0.8, 0.5]

[[biome]]
name = "downs"
profile = "hills"
color = [110, 160, 70]
tree_density = 0.6
niche = [0.6, 0.6]
"#;

struct Golden {
    meta: serde_json::Value,
    seed: Seed,
    params: CompositeParams,
    palette: Palette,
    centres: Vec<(f64, f64)>,
    height: Vec<f32>,
    water: Vec<f32>,
    weights: Vec<Vec<f32>>,
    density: Vec<f32>,
    dominant: Vec<u8>,
    color: Vec<u8>,
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn goldens() -> Vec<Golden> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/");
    let meta: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}compose.json")).unwrap()).unwrap();
    let mut blob = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(format!("{dir}compose.bin.gz")).unwrap())
        .read_to_end(&mut blob)
        .unwrap();
    meta.into_iter()
        .map(|m| {
            let (nx, ny) = (m["nx"].as_u64().unwrap() as usize, m["ny"].as_u64().unwrap() as usize);
            let n = nx * ny;
            let k = m["region_types"].as_array().unwrap().len();
            let t_n = m["biomes"].as_array().unwrap().len();
            let mut at = m["offset"].as_u64().unwrap() as usize;
            let mut take = |len: usize| {
                let s = &blob[at..at + len];
                at += len;
                s
            };
            let centres = take(16 * k)
                .chunks_exact(16)
                .map(|c| {
                    (f64::from_le_bytes(c[..8].try_into().unwrap()), f64::from_le_bytes(c[8..].try_into().unwrap()))
                })
                .collect();
            let height = f32s(take(4 * n));
            let water = f32s(take(4 * n));
            let weights = (0..t_n).map(|_| f32s(take(4 * n))).collect();
            let density = f32s(take(4 * n));
            let dominant = take(n).to_vec();
            let color = take(3 * n).to_vec();
            let mut pj = m["params"].clone();
            pj["add_forest"] = false.into();
            pj["add_roads"] = false.into();
            let params = CompositeParams::from_json(&pj.to_string()).unwrap();
            let palette = if m["custom_palette"].as_bool().unwrap() {
                Palette::from_toml(CUSTOM_TOML).unwrap()
            } else {
                Palette::builtin()
            };
            let seed = match &m["seed"] {
                serde_json::Value::String(s) => Seed::Str(s.clone()),
                v => Seed::Int(v.as_i64().unwrap()),
            };
            Golden { meta: m, seed, params, palette, centres, height, water, weights, density, dominant, color }
        })
        .collect()
}

#[derive(Default, Debug)]
struct Tally {
    cells: usize,
    height_max: f64,
    water_max: f64,
    height_eq: usize,
    weight_max: f64,
    weight_ne: usize,
    dominant_ne: usize,
    color_ne: usize,
    density_ne: usize,
}

fn compare(g: &Golden, w: &CompositeWorld, t: &mut Tally) {
    let name = g.meta["name"].as_str().unwrap();
    assert_eq!(w.grid.nx, g.meta["nx"].as_u64().unwrap() as usize, "{name}");
    assert_eq!(w.grid.ny, g.meta["ny"].as_u64().unwrap() as usize, "{name}");
    assert_eq!(w.biome_names, g.palette.names());
    let types: Vec<usize> = w.region_seeds.iter().map(|r| r.biome).collect();
    let want: Vec<usize> =
        g.meta["region_types"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
    assert_eq!(types, want, "{name}: region types");
    let n = g.height.len();
    t.cells += n;
    for c in 0..n {
        let dh = (w.grid.height[c] - f64::from(g.height[c])).abs();
        t.height_max = t.height_max.max(dh);
        t.height_eq += usize::from(dh == 0.0);
        t.water_max = t.water_max.max((w.grid.water_depth[c] - f64::from(g.water[c])).abs());
        let mut ne = false;
        for (b, gw) in g.weights.iter().enumerate() {
            let ours = w.weights[b][c] as f32;
            t.weight_max = t.weight_max.max(f64::from((ours - gw[c]).abs()));
            ne |= ours != gw[c];
        }
        t.weight_ne += usize::from(ne);
        t.dominant_ne += usize::from(w.dominant[c] != u16::from(g.dominant[c]));
        t.color_ne += usize::from(w.color[c][..] != g.color[3 * c..3 * c + 3]);
        t.density_ne += usize::from(w.tree_density[c] != g.density[c]);
    }
}

fn check(t: &Tally) {
    println!("golden tally: {t:?}");
    let share = |ne: usize| ne as f64 / t.cells as f64;
    assert!(t.height_max <= 1e-4 && t.water_max <= 1e-4, "{t:?}");
    assert!(share(t.weight_ne) <= 1e-3 && share(t.dominant_ne) <= 1e-3, "{t:?}");
    assert!(share(t.color_ne) <= 1e-3 && share(t.density_ne) <= 1e-3, "{t:?}");
}

/// Everything after the dart-throw, from pyworldgen's own region centres.
#[test]
fn same_world_as_pyworldgen_from_its_centres() {
    let mut t = Tally::default();
    for g in goldens() {
        let s = compose::world_seed(&g.seed, Compat::Pyworldgen).unwrap();
        assert_eq!(s, g.meta["seed_int"].as_i64().unwrap());
        let w = compose::compose_from_centres(s, Compat::Pyworldgen, &g.params, &g.palette, &g.centres).unwrap();
        compare(&g, &w, &mut t);
    }
    check(&t);
}

/// The whole pipeline from the seed: numpy's dart-throw gives pyworldgen's centres bit for bit.
#[test]
fn same_world_as_pyworldgen() {
    let mut t = Tally::default();
    for g in goldens() {
        let w = compose::compose(&g.seed, Compat::Pyworldgen, &g.params, &g.palette).unwrap();
        let centres: Vec<(f64, f64)> = w.region_seeds.iter().map(|r| (r.x, r.y)).collect();
        assert_eq!(centres, g.centres, "{}: region centres", g.meta["name"]);
        compare(&g, &w, &mut t);
    }
    check(&t);
}
