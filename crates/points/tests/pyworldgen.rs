//! Issue 23: points and FPS agree with pyworldgen 0.1.8's for the same seed where it defines
//! them, and the numpy generator under them agrees with numpy 2.4.6, compared by IEEE bits.
//!
//! The goldens in `golden/` are written by `scripts/pyworldgen_points_golden.py` (run it with a
//! Python that has pyworldgen 0.1.8; its doc gives the format). Each test also checks that a
//! perturbed input (another seed, another start) does *not* match, so a comparison that
//! cannot fail would be caught.

use bozkir_points::compat::{self, CompatCloud};
use bozkir_points::numpy_rng::{kahan_sum, pairwise_sum, Generator, Pcg64, SeedSequence};
use std::collections::BTreeMap;

const NUMPY: &str = include_str!("golden/numpy_rng.txt");
const POINTS: &str = include_str!("golden/pwg_points.txt");

/// `key → tokens` of a golden text file (`#` lines skipped).
fn records(text: &str) -> BTreeMap<&str, Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut it = l.split(' ');
            let key = it.next().unwrap();
            (key, it.filter(|t| !t.is_empty()).collect())
        })
        .collect()
}

fn hex_f64(t: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(t, 16).unwrap())
}

fn hex_u128(t: &str) -> u128 {
    u128::from_str_radix(t, 16).unwrap()
}

fn dec<T: std::str::FromStr>(t: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    t.parse().unwrap()
}

fn fnv(bytes: impl IntoIterator<Item = u8>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn f64_bytes<'a>(rows: impl IntoIterator<Item = &'a [f64; 3]>) -> Vec<u8> {
    rows.into_iter().flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes())).collect()
}

/// The seeds of the numpy goldens (`pool.<seed>` records).
fn seeds(r: &BTreeMap<&str, Vec<&str>>) -> Vec<u128> {
    r.keys().filter_map(|k| k.strip_prefix("pool.")).filter(|s| *s != "list").map(dec).collect()
}

/// The `integers` calls the script makes on one generator, in order.
const INT_CALLS: [(i64, i64, usize); 8] = [
    (0, 7, 9),
    (0, 7, 9),
    (5, 3_000_000_000, 5),
    (0, 1 << 32, 3),
    (-5, (1 << 40) + 3, 4),
    (0, 1, 2),
    (i64::MIN, i64::MAX, 3),
    (0, (1 << 32) + 1, 3),
];

fn choice_p() -> Vec<f64> {
    let w: Vec<f64> = (0..60).map(|i| ((i * 7919) % 13) as f64).collect();
    let total: f64 = w.iter().sum();
    w.iter().map(|v| v / total).collect()
}

#[test]
fn seed_sequence_and_pcg64_match_numpy() {
    let r = records(NUMPY);
    let seeds = seeds(&r);
    assert_eq!(seeds.len(), 8);
    for &s in &seeds {
        let seq = SeedSequence::new(s);
        let pool: Vec<u32> = r[format!("pool.{s}").as_str()].iter().map(|t| hex_u128(t) as u32).collect();
        assert_eq!(seq.pool.to_vec(), pool, "pool of {s}");
        let st: Vec<u32> = r[format!("state32.{s}").as_str()].iter().map(|t| hex_u128(t) as u32).collect();
        assert_eq!(seq.generate_state_u32(8), st, "state of {s}");
        let mut bits = Pcg64::from_seed_sequence(&seq);
        let pcg = &r[format!("pcg.{s}").as_str()];
        assert_eq!((bits.state(), bits.increment()), (hex_u128(pcg[0]), hex_u128(pcg[1])), "PCG64 of {s}");
        let raw: Vec<u64> = (0..8).map(|_| bits.next_u64()).collect();
        let want: Vec<u64> = r[format!("raw.{s}").as_str()].iter().map(|t| hex_u128(t) as u64).collect();
        assert_eq!(raw, want, "raw words of {s}");
        let mut g = Generator::default_rng(s);
        let got: Vec<u64> = g.random_vec(8).iter().map(|v| v.to_bits()).collect();
        let want: Vec<u64> = r[format!("random.{s}").as_str()].iter().map(|t| hex_f64(t).to_bits()).collect();
        assert_eq!(got, want, "random() of {s}");
        // Another seed's stream differs.
        let other: Vec<u64> = Generator::default_rng(s ^ 1).random_vec(8).iter().map(|v| v.to_bits()).collect();
        assert_ne!(other, got, "seed {s} ^ 1");
    }
    let list = SeedSequence::from_words(&[1, 2, 3, 4, 5, 6, 7]);
    let pool: Vec<u32> = r["pool.list"].iter().map(|t| hex_u128(t) as u32).collect();
    assert_eq!(list.pool.to_vec(), pool);
    let st: Vec<u64> = r["state64.list"].iter().map(|t| hex_u128(t) as u64).collect();
    assert_eq!(list.generate_state_u64(3), st);
}

#[test]
fn integers_and_choice_match_numpy() {
    let r = records(NUMPY);
    let p = choice_p();
    for s in seeds(&r) {
        let mut g = Generator::default_rng(s);
        let mut got = Vec::new();
        for (lo, hi, n) in INT_CALLS {
            got.extend(g.integers(lo, hi, n).unwrap());
        }
        let want: Vec<i64> = r[format!("ints.{s}").as_str()].iter().map(|t| dec(t)).collect();
        assert_eq!(got, want, "integers of {s}");
        assert_eq!(g.random().to_bits(), hex_f64(r[format!("ints_then_random.{s}").as_str()][0]).to_bits());

        let mut g = Generator::default_rng(s);
        let got = g.choice_p(&p, 200).unwrap();
        let want: Vec<usize> = r[format!("choice.{s}").as_str()].iter().map(|t| dec(t)).collect();
        assert_eq!(got, want, "choice of {s}");
        assert!(got.iter().all(|&i| p[i] > 0.0));
        assert_eq!(g.random().to_bits(), hex_f64(r[format!("choice_then_random.{s}").as_str()][0]).to_bits());
        // Another seed draws other indices.
        assert_ne!(Generator::default_rng(s.wrapping_add(1)).choice_p(&p, 200).unwrap(), want);
    }
    assert!((kahan_sum(&p) - 1.0).abs() < 1e-15);
}

#[test]
fn pairwise_sum_matches_numpy() {
    let r = records(NUMPY);
    let scales = [1e-8, 1.0, 1e8];
    let mut differs_from_sequential = 0;
    for (key, tok) in r.iter().filter(|(k, _)| k.starts_with("pwsum.")) {
        let n: usize = dec(&key["pwsum.".len()..]);
        let a: Vec<f64> =
            (0..n).map(|i| ((i as u64 * 2_654_435_761) % 1_000_003) as f64 / 997.0 * scales[i % 3]).collect();
        let want = hex_f64(tok[0]);
        assert_eq!(pairwise_sum(&a).to_bits(), want.to_bits(), "sum of {n}");
        let sequential: f64 = a.iter().fold(0.0, |s, v| s + v);
        differs_from_sequential += usize::from(sequential != want);
    }
    // The goldens do tell numpy's order from a plain running sum.
    assert!(differs_from_sequential >= 3, "{differs_from_sequential}");
}

/// A golden mesh: `f64` vertices (cast from `f32` where pyworldgen's were) and faces.
fn mesh(r: &BTreeMap<&str, Vec<&str>>, name: &str) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let flat: Vec<f64> = if let Some(t) = r.get(format!("verts64.{name}").as_str()) {
        t.iter().map(|t| hex_f64(t)).collect()
    } else {
        r[format!("verts32.{name}").as_str()]
            .iter()
            .map(|t| f64::from(f32::from_bits(u32::from_str_radix(t, 16).unwrap())))
            .collect()
    };
    let idx: Vec<u32> = r[format!("faces.{name}").as_str()].iter().map(|t| dec(t)).collect();
    (
        flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
    )
}

fn sample(r: &BTreeMap<&str, Vec<&str>>, name: &str, seed: u128, count: usize) -> CompatCloud {
    let (v, f) = mesh(r, name);
    compat::sample_mesh_surface(&v, &f, count, seed).unwrap()
}

fn cloud_hash(c: &CompatCloud) -> String {
    fnv(f64_bytes(&c.points).into_iter().chain(f64_bytes(&c.normals)))
}

#[test]
fn sample_mesh_surface_is_bitwise_pyworldgens() {
    let r = records(POINTS);
    let mut checked = 0;
    for key in r.keys().filter(|k| k.starts_with("sample.") && k.ends_with(".count")) {
        let parts: Vec<&str> = key.split('.').collect();
        let (name, seed) = (parts[1], dec::<u128>(parts[2]));
        let base = format!("sample.{name}.{seed}");
        let count: usize = dec(r[key][0]);
        let c = sample(&r, name, seed, count);
        assert_eq!(c.len(), count, "{base}");
        let head = &r[format!("{base}.head").as_str()];
        for (i, row) in head.chunks_exact(6).enumerate() {
            let want: Vec<u64> = row.iter().map(|t| hex_f64(t).to_bits()).collect();
            let got: Vec<u64> = c.points[i].iter().chain(&c.normals[i]).map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "{base}: point {i}");
        }
        assert_eq!(cloud_hash(&c), r[format!("{base}.hash").as_str()][0], "{base}: all points and normals");
        // The next seed gives another cloud.
        assert_ne!(cloud_hash(&sample(&r, name, seed + 1, count)), r[format!("{base}.hash").as_str()][0]);
        checked += 1;
    }
    assert_eq!(checked, 5);
}

/// The FPS inputs of the goldens, by name.
fn fps_points(r: &BTreeMap<&str, Vec<&str>>, name: &str) -> Vec<[f64; 3]> {
    match name {
        "landscape" => sample(r, "landscape", 1, 4000).points,
        "unequal" => sample(r, "unequal", 0, 3000).points,
        "flat" => sample(r, "flat", 5, 50).points,
        "dups" => {
            vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [5.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
        }
        other => panic!("unknown FPS input {other}"),
    }
}

#[test]
fn farthest_point_sampling_is_index_for_index_pyworldgens() {
    let r = records(POINTS);
    let mut checked = 0;
    for (key, tok) in r.iter().filter(|(k, _)| k.starts_with("fps.")) {
        let parts: Vec<&str> = key.split('.').collect();
        let (name, k, start): (&str, usize, usize) = (parts[1], dec(parts[2]), dec(parts[3]));
        let pts = fps_points(&r, name);
        let want: Vec<usize> = tok[1..].iter().map(|t| dec(t)).collect();
        let got = compat::farthest_point_sampling(&pts, k, start).unwrap();
        assert_eq!(got, want, "{key}");
        if k > 2 && k < pts.len() {
            let other = compat::farthest_point_sampling(&pts, k, (start + 1) % pts.len()).unwrap();
            assert_ne!(other, want, "{key}: another start must differ");
        }
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// An occupancy golden: key, cloud, resolution, whether the origin is given, pad.
type OccCase<'a> = (&'a str, &'a [[f64; 3]], f64, bool, u32);

#[test]
fn points_to_occupancy_is_pyworldgens() {
    let r = records(POINTS);
    // (key, cloud, resolution, explicit origin?, pad) as the script runs them.
    let land = fps_points(&r, "landscape");
    let uneq = fps_points(&r, "unequal");
    let cases: [OccCase; 5] = [
        ("occ.landscape.a", &land, 2.0, false, 0),
        ("occ.landscape.b", &land, 0.7, false, 2),
        ("occ.landscape.c", &land, 1.0, true, 1),
        ("occ.unequal.a", &uneq, 0.5, false, 0),
        ("occ.unequal.b", &uneq, 3.0, false, 1),
    ];
    for (key, pts, res, explicit, pad) in cases {
        let t = &r[key];
        let shape: Vec<usize> = t[..3].iter().map(|t| dec(t)).collect();
        let origin = [hex_f64(t[3]), hex_f64(t[4]), hex_f64(t[5])];
        let g = compat::points_to_occupancy(pts, res, explicit.then_some(origin), pad).unwrap();
        assert_eq!(g.shape.to_vec(), shape, "{key}");
        assert_eq!(g.origin.map(f64::to_bits), origin.map(f64::to_bits), "{key}");
        assert_eq!(g.occupied(), dec::<usize>(t[6]), "{key}");
        assert_eq!(fnv(g.cells.iter().copied()), t[7], "{key}: cells");
        // A transposed layout (x fastest) would not match.
        let [nx, ny, nz] = g.shape;
        let mut xfast = vec![0u8; g.cells.len()];
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    xfast[i + nx * (j + ny * k)] = g.cells[g.index(i, j, k)];
                }
            }
        }
        assert_ne!(fnv(xfast), t[7], "{key}");
    }
}

#[test]
fn ply_and_xyz_bytes_are_pyworldgens() {
    let r = records(POINTS);
    let c = sample(&r, "landscape", 1, 4000);
    let (p, n) = (&c.points[..40], &c.normals[..40]);
    let ply = compat::write_ply(p, Some(n), None, compat::DEFAULT_PLY_COMMENT).unwrap();
    assert_eq!(String::from_utf8(ply).unwrap(), include_str!("golden/pwg_landscape40.ply"));
    let xyz = compat::write_xyz(p, Some(n)).unwrap();
    assert_eq!(String::from_utf8(xyz).unwrap(), include_str!("golden/pwg_landscape40.xyz"));
    let xyz = compat::write_xyz(p, None).unwrap();
    assert_eq!(String::from_utf8(xyz).unwrap(), include_str!("golden/pwg_landscape40_points.xyz"));
    let ties = [[0.0078125, -0.0, 1e-9], [-1e-9, 2.5, 123_456_789.000_000_5], [3.0 / 128.0, -3.0 / 128.0, 1e15 / 3.0]];
    let rgb = [[-3.0, 12.9, 300.0], [255.0, 0.5, 17.0], [128.4, 254.99, 1.0]];
    let ply = compat::write_ply(&ties, None, Some(&rgb), "ties and colours").unwrap();
    assert_eq!(String::from_utf8(ply).unwrap(), include_str!("golden/pwg_ties_colours.ply"));
    let ply = compat::write_ply(&ties, None, None, compat::DEFAULT_PLY_COMMENT).unwrap();
    assert_eq!(String::from_utf8(ply).unwrap(), include_str!("golden/pwg_ties.ply"));
    // Another seed's cloud writes other bytes.
    let d = sample(&r, "landscape", 2, 40);
    let other = compat::write_xyz(&d.points, Some(&d.normals)).unwrap();
    assert_ne!(String::from_utf8(other).unwrap(), include_str!("golden/pwg_landscape40.xyz"));
}
