//! The generators behind `WorldSpec`: the composite's road hook against pyworldgen's composite
//! (road cells of `golden/compose_roads.json`, forest off).

use bozkir_world::product::WorldSpec;
use bozkir_world::{Compat, Seed};

#[test]
fn composite_roads_match_pyworldgen() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/compose_roads.json")).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut equal, mut total) = (0usize, 0usize);
    for c in cases.as_array().unwrap() {
        let seed: Seed = serde_json::from_value(c["seed"].clone()).unwrap();
        let mut o = c["params"].as_object().unwrap().clone();
        o.insert("add_forest".into(), false.into());
        let spec = WorldSpec::resolve("composite", seed.clone(), Compat::Pyworldgen, &o).unwrap();
        let p = spec.generate().unwrap();
        let n = p.grid.nx * p.grid.ny;
        let mut want = vec![false; n];
        for i in c["road_cells"].as_array().unwrap() {
            want[i.as_u64().unwrap() as usize] = true;
        }
        let got = p.road_mask.as_ref().unwrap();
        let same = got.iter().zip(&want).filter(|(a, b)| a == b).count();
        eprintln!(
            "seed {seed}: {same}/{n} road-mask cells equal, {} roads (pyworldgen {})",
            p.roads.len(),
            c["segments"]
        );
        equal += same;
        total += n;
    }
    assert_eq!(equal, total);
}

/// The `roads` generator (flat base from the flat keys, the network from the rest) against
/// pyworldgen's `generate("roads", ...)`: road and bridge masks.
#[test]
fn roads_generator_matches_pyworldgen() {
    use std::io::Read;
    for name in ["roads_flat0", "roads_rhine", "roads_atlas"] {
        let path = format!("{}/tests/golden/{name}.json.gz", env!("CARGO_MANIFEST_DIR"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(&std::fs::read(path).unwrap()[..]).read_to_string(&mut text).unwrap();
        let g: serde_json::Value = serde_json::from_str(&text).unwrap();
        let seed: Seed = serde_json::from_value(g["seed"].clone()).unwrap();
        let spec = WorldSpec::resolve("roads", seed, Compat::Pyworldgen, g["params"].as_object().unwrap()).unwrap();
        let p = spec.generate().unwrap();
        let bits = |m: &[bool]| m.iter().map(|&b| if b { '1' } else { '0' }).collect::<String>();
        assert_eq!(bits(p.road_mask.as_ref().unwrap()), g["road_mask"].as_str().unwrap(), "{name}: road mask");
        assert_eq!(bits(p.bridge_mask.as_ref().unwrap()), g["bridge_mask"].as_str().unwrap(), "{name}: bridge mask");
        assert_eq!(p.roads.len(), g["segments"].as_array().map_or(0, Vec::len), "{name}: roads");
    }
}
