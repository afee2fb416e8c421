//! Tests of the patch search.

use super::*;
use crate::capture::{synth, Capture, Material, SynthParams};

fn ground(materials: Vec<Material>, seed: u32) -> Capture {
    synth(&SynthParams { side_m: 4.0, density: 4000.0, materials, seed, ..SynthParams::default() }).unwrap()
}

fn settings() -> SearchSettings {
    SearchSettings { size: 0.5, ..SearchSettings::default() }
}

#[test]
fn patches_clean_ground_found_without_loosening() {
    let c = ground(vec![Material::sand()], 1);
    let st = settings();
    let r = find_patches(&c.splats, &st).unwrap();
    assert_eq!(r.trail.len(), 1, "{:?}", describe_trail(&r.trail));
    assert_eq!(r.trail[0].label, "defaults");
    assert_eq!(r.settings, st);
    assert_eq!(r.chosen.len(), 1);
    assert_eq!(r.chosen[0].len(), 4);
    let ch: Vec<&Candidate> = r.chosen[0].iter().map(|&i| &r.candidates[i]).collect();
    for (a, x) in ch.iter().enumerate() {
        assert!(x.chosen && x.cover >= 0.8 && x.tilt_deg < 12.0 && !x.landmark, "{x:?}");
        for y in &ch[a + 1..] {
            let d = (x.centre[0] - y.centre[0]).abs().max((x.centre[1] - y.centre[1]).abs());
            assert!(d >= 0.5 - 1e-9, "separation {d}");
        }
    }
    let rj = &r.rejections;
    assert_eq!(rj.positions, 196);
    assert_eq!(rj.sparse + rj.buried + rj.tilt + rj.score + rj.holes + rj.rim + rj.viable, rj.positions);
    assert!(r.candidates.windows(2).all(|w| w[0].score >= w[1].score));
    // Plain texture is not salient.
    assert!(
        r.candidates.iter().all(|c| c.salience < 6.0),
        "{:?}",
        r.candidates.iter().map(|c| c.salience).fold(0.0, f64::max)
    );
}

/// Ground with `n` round holes of radius `r` punched at random.
fn holed(n: usize, r: f64) -> Splats {
    let c = ground(vec![Material::sand()], 3);
    let mut rng = bozkir_core::rng::Rng::new(99);
    let holes: Vec<[f64; 2]> = (0..n).map(|_| [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)]).collect();
    let ix = PlaneIndex::new(&c.splats, 0.1);
    let mut keep = vec![true; c.splats.len()];
    for h in &holes {
        for i in ix.candidates(*h, 2.0 * r) {
            let p = c.splats.positions()[i];
            if (f64::from(p[0]) - h[0]).hypot(f64::from(p[1]) - h[1]) < r {
                keep[i] = false;
            }
        }
    }
    c.splats.subset_mask(&keep)
}

#[test]
fn patches_holed_ground_needs_looser_cover_and_says_why() {
    // Fewer splats per patch than the default minimum remain; the holes are what matters here.
    let r = find_patches(&holed(1500, 0.05), &SearchSettings { min_splats: 300, ..settings() }).unwrap();
    eprintln!("holed:\n  {}", describe_trail(&r.trail).join("\n  "));
    assert!(r.trail.len() > 1, "{:?}", describe_trail(&r.trail));
    let first = &r.trail[0].rejections;
    assert!(first.holes > 0 && first.holes >= first.rim.max(first.sparse).max(first.tilt), "{first:?}");
    assert!(r.settings.min_cover < 0.8, "{}", r.settings.min_cover);
    let step = r.trail.iter().find(|t| t.changed.as_ref().is_some_and(|c| c.0 == "min_cover")).unwrap();
    assert!(step.label.contains("holes rejected"), "{}", step.label);
    // The last step is the one that succeeded, with the settings returned.
    assert_eq!(r.trail.last().unwrap().settings, r.settings);
    assert_eq!(r.chosen[0].len(), 4);
    assert!(describe_trail(&r.trail).iter().any(|l| l.contains("--min-cover")));
}

#[test]
fn patches_hopeless_scenes_give_up_with_the_reason() {
    // A noise cloud: splats anywhere in a 4 m cube.
    let mut rng = bozkir_core::rng::Rng::new(5);
    let mut noise = Splats::new(0);
    for _ in 0..60_000 {
        let p = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)].map(|v| v as f32);
        noise.push_decoded(p, [0.01; 3], [1.0, 0.0, 0.0, 0.0], 0.9, [0.1, 0.2, 0.3], &[]);
    }
    // A figurine-like blob: the shell of an upright ellipsoid.
    let mut blob = Splats::new(0);
    for _ in 0..40_000 {
        let (u, v) = (rng.range(-1.0, 1.0), rng.range(0.0, std::f64::consts::TAU));
        let r = (1.0 - u * u).sqrt();
        let p = [0.5 * r * v.cos(), 0.5 * r * v.sin(), 0.8 * u].map(|v| v as f32);
        blob.push_decoded(p, [0.01, 0.01, 0.004], [1.0, 0.0, 0.0, 0.0], 0.9, [0.3, 0.0, -0.2], &[]);
    }
    for (name, s) in [("noise", &noise), ("blob", &blob)] {
        let e = find_patches(s, &settings()).unwrap_err();
        eprintln!("{name}: {e}\n  {}", describe_trail(&e.trail).join("\n  "));
        assert_eq!(e.kind, FailureKind::NotATilingExemplar, "{name}: {e}");
        assert!(e.reason.contains("not a tiling exemplar"), "{name}: {e}");
        assert!(e.reason.contains("rejected:") || e.reason.contains("smaller"), "{name}: {e}");
        assert!(!e.trail.is_empty() && e.trail.len() < 12, "{name}: {}", e.trail.len());
    }
}

/// Share of a patch's splats from its majority material, and that material.
fn label_purity(c: &Capture, centre: [f64; 2], size: f64) -> (f64, u8) {
    let idx = patch_indices(&c.splats, centre, size, None);
    let ones = idx.iter().filter(|&&i| c.material[i] == 1).count() as f64 / idx.len() as f64;
    if ones >= 0.5 {
        (ones, 1)
    } else {
        (1.0 - ones, 0)
    }
}

#[test]
fn patches_class_split_two_materials_into_pure_groups() {
    let c = ground(vec![Material::sand(), Material::scrub()], 2);
    let st = SearchSettings { classes: 2, ..settings() };
    let r = find_patches(&c.splats, &st).unwrap();
    assert_eq!(r.chosen.len(), 2);
    let sep = r.class_separation.unwrap();
    assert!(sep > 5.0, "separation {sep}");
    let mut majority = Vec::new();
    for (k, g) in r.chosen.iter().enumerate() {
        assert_eq!(g.len(), 4, "class {k}");
        let mats: Vec<u8> = g
            .iter()
            .map(|&i| {
                let x = &r.candidates[i];
                assert_eq!(x.class, Some(k));
                assert!(x.purity.unwrap() >= 0.9);
                let (p, m) = label_purity(&c, x.centre, st.size);
                assert!(p > 0.9, "class {k} candidate {i}: {p}");
                m
            })
            .collect();
        assert!(mats.iter().all(|&m| m == mats[0]), "class {k} mixes materials {mats:?}");
        majority.push(mats[0]);
    }
    assert_ne!(majority[0], majority[1]);
    // One class is dark (scrub), the other pale (sand).
    let lum = |c: [f64; 3]| c.iter().sum::<f64>() / 3.0;
    let (a, b) = (lum(r.class_rgb[0]), lum(r.class_rgb[1]));
    assert!(a.min(b) < 0.3 && a.max(b) > 0.4, "{a} {b}");
}

#[test]
fn patches_one_material_asked_for_two_is_refused() {
    let c = ground(vec![Material::sand()], 1);
    let e = find_patches(&c.splats, &SearchSettings { classes: 2, ..settings() }).unwrap_err();
    assert_eq!(e.kind, FailureKind::OneMaterial, "{e}");
    assert!(e.reason.contains("one material") && e.reason.contains("separation"), "{e}");
    assert_eq!(e.trail.len(), 1);
}

#[test]
fn patches_settings_reproduce_the_candidate_list_exactly() {
    let c = ground(vec![Material::sand(), Material::scrub()], 4);
    let st = SearchSettings { classes: 2, ..settings() };
    let a = find_patches(&c.splats, &st).unwrap();
    let b = find_patches(&c.splats, &st).unwrap();
    assert_eq!(a, b);
    let d = find_patches(&c.splats, &SearchSettings { stride: 0.4, ..st }).unwrap();
    assert_ne!(a.candidates.len(), d.candidates.len());
}

#[test]
fn patches_cache_entries_round_trip_and_keys_follow_their_inputs() {
    let c = ground(vec![Material::sand()], 1);
    let st = settings();
    let a = find_patches(&c.splats, &st).unwrap();
    let key = cache_key("bytes=1|mtime_ns=2", &c.splats, &st);
    let text = encode_entry(&key, &a).unwrap();
    assert_eq!(decode_entry(&text, &key).unwrap(), a, "a recalled result equals the computed one");
    assert!(decode_entry(&text, "0000000000000000").is_none());
    assert!(decode_entry("{\"version\": 1, \"key\": ", &key).is_none());
    // Changed settings, a touched file or other splats change the key.
    let looser = SearchSettings { min_cover: 0.7, ..st.clone() };
    assert_ne!(cache_key("bytes=1|mtime_ns=2", &c.splats, &looser), key);
    assert_ne!(cache_key("bytes=1|mtime_ns=3", &c.splats, &st), key);
    let other = ground(vec![Material::sand()], 2);
    assert_ne!(cache_key("x", &c.splats, &st), cache_key("x", &other.splats, &st));
}

#[test]
fn patches_landmark_is_flagged_and_penalised() {
    let c = ground(vec![Material::sand()], 1);
    let st = settings();
    let centre = search_centres(&c.splats, st.size, st.stride)[100];
    let mut stone = c.splats.clone();
    let mut rng = bozkir_core::rng::Rng::new(3);
    for _ in 0..80 {
        let (r, a) = (0.03 * rng.next_f64().sqrt(), rng.range(0.0, std::f64::consts::TAU));
        let p = [centre[0] + 0.08 + r * a.cos(), centre[1] - 0.05 + r * a.sin(), 0.03].map(|v| v as f32);
        stone.push_decoded(
            p,
            [0.008, 0.008, 0.003],
            [1.0, 0.0, 0.0, 0.0],
            0.95,
            crate::capture::rgb_to_dc([0.95; 3]),
            &[],
        );
    }
    let cand = |s: &Splats| match measure(s, &patch_indices(s, centre, st.size, None), centre, &st) {
        Verdict::Accept(c) => *c,
        Verdict::Reject(w) => panic!("rejected: {w}"),
    };
    let (plain, marked) = (cand(&c.splats), cand(&stone));
    assert!(plain.salience < 4.0 && !plain.landmark, "{}", plain.salience);
    assert!(marked.salience > 20.0 && marked.landmark, "{}", marked.salience);
    assert!(marked.score < plain.score / 3.0, "{} vs {}", marked.score, plain.score);
}

#[test]
fn patches_contact_sheet_frames_classes() {
    let c = ground(vec![Material::sand(), Material::scrub()], 2);
    let r = find_patches(&c.splats, &SearchSettings { classes: 2, ..settings() }).unwrap();
    let sheet = contact_sheet(&c.splats, &r, 64, 16);
    assert_eq!(sheet.rgb.len(), sheet.w * sheet.h);
    assert!(sheet.w > 256 + 4 * 64 && sheet.h >= 256);
    for colour in CLASS_COLOURS {
        assert!(sheet.rgb.iter().filter(|&&p| p == colour).count() > 100, "{colour:?}");
    }
    // The rendered ground is mostly opaque sand and scrub, not background.
    let bg = sheet.rgb.iter().filter(|&&p| p == [24, 24, 24]).count() as f64 / sheet.rgb.len() as f64;
    assert!(bg < 0.4, "{bg}");
}
