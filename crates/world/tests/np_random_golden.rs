//! numpy 2.x `default_rng` reproduced bit for bit: every value written by
//! `golden/make_np_random.py` is compared by its IEEE-754 bits.

use bozkir_world::compat::np_random::Generator;
use bozkir_world::random::Draws;
use serde_json::Value;

fn golden() -> Value {
    serde_json::from_str(include_str!("golden/np_random.json")).unwrap()
}

fn f(v: &Value) -> f64 {
    f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap())
}

fn int(v: &Value) -> i128 {
    v.as_str().unwrap().parse().unwrap()
}

fn rng(seed: &Value) -> Generator {
    Generator::from_u64(seed.as_str().map(|s| s.parse().unwrap()).unwrap_or_else(|| seed.as_u64().unwrap()))
}

fn fnv(h: &mut u64, w: u64) {
    for k in 0..8 {
        *h ^= (w >> (8 * k)) & 0xff;
        *h = h.wrapping_mul(0x100_0000_01B3);
    }
}

#[test]
fn raw_words_and_doubles() {
    for s in golden()["seeds"].as_array().unwrap() {
        let mut g = rng(&s["seed"]);
        for w in s["raw"].as_array().unwrap() {
            assert_eq!(format!("{:016x}", g.next_u64()), w.as_str().unwrap(), "seed {}", s["seed"]);
        }
        let mut g = rng(&s["seed"]);
        for w in s["u32"].as_array().unwrap() {
            assert_eq!(g.next_u32() as u64, w.as_u64().unwrap());
        }
        let mut g = rng(&s["seed"]);
        for w in s["random"].as_array().unwrap() {
            assert_eq!(g.random().to_bits(), f(w).to_bits());
        }
        let mut g = rng(&s["seed"]);
        for t in s["uniform"].as_array().unwrap() {
            assert_eq!(g.uniform(f(&t[0]), f(&t[1])).to_bits(), f(&t[2]).to_bits());
        }
    }
}

#[test]
fn integers_and_choice() {
    for s in golden()["seeds"].as_array().unwrap() {
        for (k, vals) in s["integers"].as_object().unwrap() {
            let mut g = rng(&s["seed"]);
            let k: i64 = k.parse().unwrap();
            let got: Vec<i128> = (0..vals.as_array().unwrap().len()).map(|_| g.integers(k) as i128).collect();
            let want: Vec<i128> = vals.as_array().unwrap().iter().map(int).collect();
            assert_eq!(got, want, "seed {} integers({k})", s["seed"]);
        }
        let mut g = rng(&s["seed"]);
        for c in s["choice3"].as_array().unwrap() {
            assert_eq!(g.choice(3) as u64, c.as_u64().unwrap());
        }
    }
}

#[test]
fn normals() {
    let doc = golden();
    for s in doc["seeds"].as_array().unwrap() {
        let mut g = rng(&s["seed"]);
        for w in s["normal"].as_array().unwrap() {
            assert_eq!(g.normal().to_bits(), f(w).to_bits(), "seed {}", s["seed"]);
        }
    }
    for m in doc["normal_many"].as_array().unwrap() {
        let mut g = rng(&m["seed"]);
        let n = m["n"].as_u64().unwrap() as usize;
        let xs: Vec<f64> = (0..n).map(|_| g.normal()).collect();
        for t in m["tail"].as_array().unwrap().iter().chain(m["sample"].as_array().unwrap()) {
            let i = t[0].as_u64().unwrap() as usize;
            assert_eq!(xs[i].to_bits(), f(&t[1]).to_bits(), "normal #{i} of seed {}", m["seed"]);
        }
        let tails = xs.iter().filter(|x| x.abs() > 3.654_152_885_361_009).count();
        assert_eq!(tails, m["tail"].as_array().unwrap().len());
        let mut h = 0xCBF2_9CE4_8422_2325u64;
        xs.iter().for_each(|x| fnv(&mut h, x.to_bits()));
        assert_eq!(format!("{h:016x}"), m["fnv"].as_str().unwrap());
        assert_eq!(format!("{:016x}", g.next_u64()), m["after"].as_str().unwrap());
    }
}

#[test]
fn interleaved_as_pyworldgen_draws() {
    for m in golden()["mixed"].as_array().unwrap() {
        let mut g = rng(&m["seed"]);
        for (i, op) in m["ops"].as_array().unwrap().iter().enumerate() {
            let what = format!("seed {} op {i} {op}", m["seed"]);
            match op[0].as_str().unwrap() {
                "u" => assert_eq!(g.uniform(f(&op[1]), f(&op[2])).to_bits(), f(&op[3]).to_bits(), "{what}"),
                "r" => assert_eq!(g.random().to_bits(), f(&op[1]).to_bits(), "{what}"),
                "i" | "i0" => assert_eq!(g.integers(int(&op[1]) as i64) as i128, int(&op[2]), "{what}"),
                "c" => assert_eq!(g.choice(int(&op[1]) as usize) as i128, int(&op[2]), "{what}"),
                "n" => assert_eq!(g.normal().to_bits(), f(&op[1]).to_bits(), "{what}"),
                "n2" => {
                    assert_eq!(g.normal().to_bits(), f(&op[1]).to_bits(), "{what}");
                    assert_eq!(g.normal().to_bits(), f(&op[2]).to_bits(), "{what}");
                }
                other => panic!("unknown op {other}"),
            }
        }
    }
}
