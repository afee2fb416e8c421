//! `implicit_cave` against pyworldgen 0.1.8 (golden outputs from `golden/make_cave.py`): the
//! occupancy voxel for voxel, and the field (density and every component) at fixed probe points.

use bozkir_world::cave::{sample_cave, CaveField, CaveParams};
use bozkir_world::{Compat, Seed};
mod common;

use common::{base64, golden_gz};

fn params(c: &serde_json::Value) -> CaveParams {
    CaveParams::from_json(&c["params"]).unwrap()
}

#[test]
fn occupancy_equals_pyworldgen_voxel_for_voxel() {
    let g = golden_gz("cave.json.gz");
    let cases = g["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    let mut voxels = 0;
    for c in cases {
        let seed: Seed = serde_json::from_value(c["seed"].clone()).unwrap();
        let p = params(c);
        let v = sample_cave(&seed, Compat::Pyworldgen, &p).unwrap();
        let shape: Vec<usize> = c["shape"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
        assert_eq!(vec![v.nx, v.ny, v.nz], shape, "seed {seed}: shape");
        let bits = base64(c["occ"].as_str().unwrap());
        let want = |k: usize| bits[k / 8] & (0x80 >> (k % 8)) != 0;
        let diff: Vec<usize> = (0..v.occ.len()).filter(|&k| v.occ[k] != want(k)).collect();
        assert!(
            diff.is_empty(),
            "seed {seed}: {} of {} voxels differ, first {:?}",
            diff.len(),
            v.occ.len(),
            &diff[..diff.len().min(5)]
        );
        assert_eq!(v.solid_fraction(), c["solid_fraction"].as_f64().unwrap(), "seed {seed}");
        voxels += v.occ.len();
    }
    assert!(voxels > 500_000, "{voxels}");
}

#[test]
fn field_equals_pyworldgen_at_the_probes() {
    let g = golden_gz("cave.json.gz");
    let mut worst: f64 = 0.0;
    for c in g["cases"].as_array().unwrap() {
        let seed: Seed = serde_json::from_value(c["seed"].clone()).unwrap();
        let p = params(c);
        let f = CaveField::for_seed(&p, &seed, Compat::Pyworldgen);
        let comps = &c["components"];
        for (k, q) in c["probes"].as_array().unwrap().iter().enumerate() {
            let (x, y, z) = (q[0].as_f64().unwrap(), q[1].as_f64().unwrap(), q[2].as_f64().unwrap());
            let got = f.components(x, y, z);
            let d = f.density(x, y, z);
            for (name, ours) in [
                ("density", d),
                ("center_x", got.center_x),
                ("center_y", got.center_y),
                ("radius", got.radius),
                ("dist_to_corridor", got.dist_to_corridor),
                ("corridor", got.corridor),
                ("worm", got.worm),
                ("cavern", got.cavern),
                ("rough", got.rough),
            ] {
                let want = if name == "density" {
                    c["density"][k].as_f64().unwrap()
                } else {
                    comps[name][k].as_f64().unwrap()
                };
                let e = (ours - want).abs();
                worst = worst.max(e);
                assert!(e <= 1e-12 * want.abs().max(1.0), "seed {seed} probe {k} {name}: {ours} vs {want}");
            }
        }
    }
    eprintln!("largest difference from pyworldgen at the probes: {worst:e}");
}
