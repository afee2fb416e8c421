//! The worlds' structural checks: sound worlds pass, broken ones name what broke.
use bozkir_world::cave::CaveParams;
use bozkir_world::validate::validate_cave;
use bozkir_world::{Compat, Seed};

#[test]
fn cave_axis_is_open_and_walkable() {
    let mut worst = f64::INFINITY;
    for (seed, compat) in [
        (Seed::Int(0), Compat::Pyworldgen),
        (Seed::Int(7), Compat::Pyworldgen),
        (Seed::Str("cave".into()), Compat::Pyworldgen),
        (Seed::Int(3), Compat::Canonical),
    ] {
        let p = CaveParams { length: 90.0, ..CaveParams::default() };
        let c = validate_cave(&seed, compat, &p, 0.01, 0.4).unwrap();
        eprintln!(
            "{seed:?} {compat:?}: min axis density {:.3}, {} samples, {} reached",
            c.min_axis_density, c.axis_samples, c.reached
        );
        assert!(c.errors.is_empty(), "{seed:?} {compat:?}: {:?}", c.errors);
        assert!(c.axis_samples >= 9000);
        worst = worst.min(c.min_axis_density);
    }
    assert!(worst > 0.0);
}

#[test]
fn speleothems_keep_clear_of_the_axis() {
    // A narrow corridor full of cones: pyworldgen's cave (no clearance) closes its axis, ours
    // keeps it open.
    let narrow = CaveParams {
        length: 90.0,
        speleo_spawn: 0.7,
        corr_r: 5.0,
        corr_rough: 2.0,
        rough: 1.5,
        ..CaveParams::default()
    };
    let pyworldgen_like = CaveParams { speleo_clear: 0.0, ..narrow.clone() };
    let mut closed = 0;
    for s in 0..4 {
        let seed = Seed::Int(s);
        let ours = validate_cave(&seed, Compat::Pyworldgen, &narrow, 0.01, 0.4).unwrap();
        assert!(ours.errors.is_empty(), "seed {s}: {:?}", ours.errors);
        let theirs = validate_cave(&seed, Compat::Pyworldgen, &pyworldgen_like, 0.01, 0.4).unwrap();
        closed += usize::from(theirs.errors.iter().any(|e| e.contains("axis is closed")));
    }
    assert!(closed >= 3, "{closed} of 4 closed without the clearance");
}

#[test]
fn cave_parameters_that_could_close_the_corridor_are_refused() {
    let e = |p: CaveParams| p.validate().unwrap_err().to_string();
    let m = e(CaveParams { corr_r: 5.0, corr_rough: 3.5, rough: 2.2, ..CaveParams::default() });
    assert!(m.contains("CORR_R") && m.contains("stays open"), "{m}");
    let m = e(CaveParams { corr_x_amp: 50.0, ..CaveParams::default() });
    assert!(m.contains("into the walls"), "{m}");
    let m = e(CaveParams { ceil: 20.0, ..CaveParams::default() });
    assert!(m.contains("no room for the corridor"), "{m}");
}

#[test]
fn landscape_and_composite_checks_pass_sound_worlds_and_name_broken_ones() {
    use bozkir_world::compose::{self, CompositeParams, Palette};
    use bozkir_world::landscape::{self, LandscapeParams};
    use bozkir_world::validate::{validate_composite, validate_landscape};

    let p = LandscapeParams { domain_size: [80.0, 70.0], resolution: 2.5, ..Default::default() };
    let mut l = landscape::generate(&Seed::Int(4), Compat::Pyworldgen, &p).unwrap();
    assert_eq!(validate_landscape(&l), Vec::<String>::new());
    let r = l.rivers.iter_mut().find(|r| r.bed.len() > 3).expect("a river");
    r.bed[2] = r.bed[1] + 0.5;
    let e = validate_landscape(&l);
    assert!(e.len() == 1 && e[0].contains("bed rises downstream by 5.0000e-1"), "{e:?}");
    l.moisture.pop();
    assert!(validate_landscape(&l).iter().any(|e| e.starts_with("moisture holds")));

    let cp = CompositeParams { domain_size: (100.0, 100.0), add_roads: false, ..Default::default() };
    let mut c = compose::compose(&Seed::Int(5), Compat::Pyworldgen, &cp, &Palette::default()).unwrap();
    assert_eq!(validate_composite(&c), Vec::<String>::new());
    c.weights[0][10] += 0.25;
    let e = validate_composite(&c);
    assert!(e.iter().any(|e| e.starts_with("1 cells whose weights do not sum to 1")), "{e:?}");
    c.weights[0][10] -= 0.25;
    let d = c.dominant[3] as usize;
    c.dominant[3] = ((d + 1) % c.weights.len()) as u16;
    let e = validate_composite(&c);
    assert!(e.iter().any(|e| e.contains("dominant biome is not the largest")), "{e:?}");
}
