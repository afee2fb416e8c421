//! `heightmap` on point clouds (issue 24): cells sized from the point spacing, the occupied
//! share and its warning, `--size`/`--cell-size` precedence, and the LAS class filter.

use bozkir_pipeline::heightmap::{heightmap, CellChoice, HeightmapRequest, Rescale, MIN_OCCUPIED_SHARE};
use std::path::{Path, PathBuf};

mod common;
use common::Notes;

impl Notes {
    fn warned(&self) -> bool {
        self.0.lock().unwrap().iter().any(|n| n.starts_with("warning"))
    }
}

fn unit(k: u64) -> f64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

fn request(input: &Path) -> HeightmapRequest {
    HeightmapRequest { input: input.to_path_buf(), size: None, smooth: 0, rescale: Rescale::default(), classes: None }
}

/// A sparse survey: 0.18 points/m², uniformly random over 1000 m × 800 m, on a gentle slope.
fn sparse(dir: &Path) -> PathBuf {
    let n = (0.18 * 1000.0 * 800.0) as u64;
    let xyz: Vec<[f64; 3]> = (0..n)
        .map(|k| {
            let (x, y) = (unit(2 * k) * 1000.0, unit(2 * k + 1) * 800.0);
            [x, y, 100.0 + 0.01 * x]
        })
        .collect();
    let class = vec![2u8; xyz.len()];
    let p = dir.join("sparse.las");
    bozkir_io::write_las(&p, &xyz, &class, &bozkir_io::LasLayout::default()).unwrap();
    p
}

#[test]
fn a_sparse_survey_is_gridded_from_its_density() {
    let dir = tempfile::tempdir().unwrap();
    let p = sparse(dir.path());
    // Default: spacing √(1/0.18) ≈ 2.36 m → 1.5 spacings = 3.54 → cells of 4 m, 250 × 200, nearly
    // all holding a point (uniform random points: 1 − e^(−0.18·4²) ≈ 94 %).
    let notes = Notes::default();
    let h = heightmap(&request(&p), &notes).unwrap();
    let c = h.cloud.unwrap();
    assert_eq!(c.choice, CellChoice::Spacing);
    assert!((c.spacing.unwrap() - (1.0f64 / 0.18).sqrt()).abs() < 0.03, "{:?}", c.spacing);
    assert_eq!(c.cell_size, 4.0);
    assert_eq!((h.heights.width(), h.heights.height()), (250, 200));
    let share = c.occupied_share();
    assert!(share >= MIN_OCCUPIED_SHARE && (share - 0.944).abs() < 0.01, "{share}");
    assert!(!notes.warned(), "{:?}", notes.0.lock().unwrap());
    assert_eq!(c.suggested_cell_size, None);
    // The filled field is the slope (IDW of a plane) within a few centimetres.
    let g = &h.heights;
    for (col, row) in [(10, 10), (125, 100), (240, 190)] {
        let x = (col as f64 + 0.5) * 4.0; // 250 cells of 4 centred on 0..1000
        let want = 100.0 + 0.01 * x;
        assert!((g.get(col, row) - want).abs() < 0.05, "({col},{row}) {} vs {want}", g.get(col, row));
    }
    // The old default, 512 × 512 over the square of cells of 1.9 m: about 40 % of the cells hold a
    // point — warned, with the tidy cell size that reaches the threshold.
    let notes = Notes::default();
    let old = heightmap(&HeightmapRequest { size: Some(512), ..request(&p) }, &notes).unwrap().cloud.unwrap();
    assert_eq!((old.choice, old.cells), (CellChoice::Size, 512 * 512));
    assert!(old.occupied_share() < MIN_OCCUPIED_SHARE, "{}", old.occupied_share());
    assert!(notes.warned());
    let s = old.suggested_cell_size.unwrap();
    assert!(s == 2.0 || s == 2.5, "{s}");
    let text = notes.0.lock().unwrap().join("\n");
    assert!(text.contains(&format!("--cell-size {s} would reach 50 %")), "{text}");
    let at = HeightmapRequest { rescale: Rescale { cell_size: Some(s), height_range: None }, ..request(&p) };
    assert!(heightmap(&at, &Notes::default()).unwrap().cloud.unwrap().occupied_share() >= MIN_OCCUPIED_SHARE);
    // A forced fine cell warns too.
    let notes = Notes::default();
    let fine = HeightmapRequest { rescale: Rescale { cell_size: Some(1.0), height_range: None }, ..request(&p) };
    let f = heightmap(&fine, &notes).unwrap().cloud.unwrap();
    assert_eq!((f.choice, f.cells), (CellChoice::CellSize, 1000 * 800));
    assert!(notes.warned());
}

#[test]
fn size_and_cell_size_are_refused_together_and_absurd_cells_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = sparse(dir.path());
    let both = HeightmapRequest {
        size: Some(64),
        rescale: Rescale { cell_size: Some(2.0), height_range: None },
        ..request(&p)
    };
    let e = heightmap(&both, &Notes::default()).unwrap_err().to_string();
    assert!(e.contains("--size and --cell-size"), "{e}");
    for (c, want) in [(0.01, "100000 × 80000"), (600.0, "2 × 2"), (1e6, "1 × 1")] {
        let r = HeightmapRequest { rescale: Rescale { cell_size: Some(c), height_range: None }, ..request(&p) };
        match heightmap(&r, &Notes::default()) {
            Ok(h) => assert_eq!(want, "2 × 2", "{c}: {:?}", h.cloud),
            Err(e) => assert!(e.to_string().contains(want) && e.to_string().contains("2..=16384"), "{c}: {e}"),
        }
    }
    for c in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-308] {
        let r = HeightmapRequest { rescale: Rescale { cell_size: Some(c), height_range: None }, ..request(&p) };
        assert!(heightmap(&r, &Notes::default()).is_err(), "{c}");
    }
}

/// A LAS of ground (class 2) on z = 0.1·x and bushes (class 5) 3 m above every third point.
fn classified(dir: &Path, ground: u8) -> PathBuf {
    let mut xyz = Vec::new();
    let mut class = Vec::new();
    for i in 0..60 {
        for j in 0..40 {
            let (x, y) = (f64::from(i), f64::from(j));
            xyz.push([x, y, 0.1 * x]);
            class.push(ground);
            if (i + j) % 3 == 0 {
                xyz.push([x + 0.3, y + 0.3, 0.1 * x + 3.0]);
                class.push(if ground == 2 { 5 } else { ground });
            }
        }
    }
    let p = dir.join(format!("c{ground}.las"));
    bozkir_io::write_las(&p, &xyz, &class, &bozkir_io::LasLayout::default()).unwrap();
    p
}

#[test]
fn classes_keep_the_ground_and_explain_what_the_file_holds() {
    let dir = tempfile::tempdir().unwrap();
    let p = classified(dir.path(), 2);
    let notes = Notes::default();
    let all = heightmap(&request(&p), &notes).unwrap();
    let c = all.cloud.unwrap();
    assert_eq!((c.points, c.kept), (3200, 3200));
    assert!(notes.0.lock().unwrap().iter().any(|n| n.contains("--classes 2")), "the hint");
    let ground = heightmap(&HeightmapRequest { classes: Some(vec![2]), ..request(&p) }, &Notes::default()).unwrap();
    let c = ground.cloud.unwrap();
    assert_eq!((c.points, c.kept, c.cell_size, c.occupied_share()), (3200, 2400, 1.5, 1.0));
    // Ground only, in cells of 1 centred on the lattice points: every cell is on the plane.
    let one = Rescale { cell_size: Some(1.0), height_range: None };
    let ground =
        heightmap(&HeightmapRequest { classes: Some(vec![2]), rescale: one, ..request(&p) }, &Notes::default())
            .unwrap();
    let g = &ground.heights;
    assert_eq!((g.width(), g.height()), (60, 40));
    for r in 0..40 {
        for col in 0..60 {
            assert!((g.get(col, r) - 0.1 * col as f64).abs() < 0.006, "({col},{r}) {}", g.get(col, r));
        }
    }
    let bushes = heightmap(&HeightmapRequest { classes: Some(vec![5]), ..request(&p) }, &Notes::default()).unwrap();
    assert_eq!(bushes.cloud.unwrap().kept, 800);
    let e = heightmap(&HeightmapRequest { classes: Some(vec![6, 9]), ..request(&p) }, &Notes::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no finite point of class 6,9") && e.contains("2 (2400 points), 5 (800 points)"), "{e}");
    // An unclassified file (all class 1): asking for ground is refused, naming what is there.
    let u = classified(dir.path(), 1);
    let e = heightmap(&HeightmapRequest { classes: Some(vec![2]), ..request(&u) }, &Notes::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not classified") && e.contains("classes found: 1 (3200 points)"), "{e}");
    // Not a LAS file.
    let ply = dir.path().join("p.ply");
    bozkir_io::write_ply_points(&ply, &[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], bozkir_io::plyfmt::Format::Ascii).unwrap();
    let e = heightmap(&HeightmapRequest { classes: Some(vec![2]), ..request(&ply) }, &Notes::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("--classes") && e.contains("p.ply"), "{e}");
}
