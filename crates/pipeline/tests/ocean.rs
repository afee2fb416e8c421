//! `--ocean auto` (issue 24, scope 3): sea level 0 m, the ocean is the cells below it
//! 4-connected to the grid's border (through cells below 0 m or voids); cells below 0 m cut off
//! from the border stay land and are filled; the ocean is left unfilled, each cell its own
//! outlet, and the land drains into it.

use bozkir_core::Grid;
use bozkir_io::{Crs, GeoRef, GeoTransform};
use bozkir_pipeline::analysis::{analyse, ocean_cells, AnalysisOptions, Sea};
use bozkir_pipeline::analyze::{analyze, AnalyzeRequest};
use bozkir_pipeline::compute::Compute;
use bozkir_pipeline::folder::Placement;
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;

mod common;
use common::Notes;

/// A projected placement (UTM 33N), 10 m cells.
fn utm(height_cells: usize) -> Placement {
    let geo = GeoRef {
        crs: Crs::Epsg { code: 32633, geographic: false },
        transform: GeoTransform { x0: 500_000.0, y0: 4_400_000.0 + 10.0 * height_cells as f64, sx: 10.0, sy: 10.0 },
    };
    Placement { georef: Some(geo), crop_offset: None }
}

const W: usize = 24;
const H: usize = 20;

/// Which part of the coast DEM a cell is in.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Part {
    /// The sea along the west border (columns 0..6), with a hollow in its floor.
    Coast,
    /// A lagoon below 0 m whose only way to the border is a void on the north border.
    Lagoon,
    /// The void on the north border above the lagoon.
    Void,
    /// A closed basin below 0 m inside the land (a Dead Sea).
    Basin,
    /// A cell below 0 m touching the coast only diagonally.
    Diagonal,
    Land,
}

fn part(x: usize, y: usize) -> Part {
    if x < 6 {
        Part::Coast
    } else if y == 0 && (16..22).contains(&x) {
        Part::Void
    } else if (1..4).contains(&y) && (17..21).contains(&x) {
        Part::Lagoon
    } else if (9..12).contains(&y) && (12..16).contains(&x) {
        Part::Basin
    } else if x == 6 && y == 14 {
        // The coast cells (5, 13) and (5, 15) are diagonal neighbours; (5, 14) is raised
        // above 0 m below, so no 4-neighbour of it is sea.
        Part::Diagonal
    } else {
        Part::Land
    }
}

/// Land rising to the east from the coast, with the sea, lagoon, void and basin of [`part`].
fn coast_dem() -> Grid<f64> {
    let z = (0..W * H)
        .map(|i| {
            let (x, y) = (i % W, i / W);
            match part(x, y) {
                Part::Coast if (x, y) == (5, 14) => 2.0,
                Part::Coast => {
                    let hollow = (x as f64 - 2.5).powi(2) + (y as f64 - 9.5).powi(2) < 6.0;
                    -20.0 + x as f64 - if hollow { 6.0 } else { 0.0 }
                }
                Part::Lagoon => -3.0,
                Part::Void => f64::NAN,
                Part::Basin => -8.0,
                Part::Diagonal => -1.0,
                Part::Land => 2.0 * (x as f64 - 5.0) + 0.3 * (y % 4) as f64,
            }
        })
        .collect();
    Grid::from_vec(W, H, z).with_cell_size(10.0, 10.0)
}

fn is_ocean(x: usize, y: usize) -> bool {
    matches!(part(x, y), Part::Coast | Part::Lagoon) && (x, y) != (5, 14)
}

#[test]
fn the_ocean_is_below_zero_and_connected_to_the_border() {
    let dem = coast_dem();
    let mask = ocean_cells(&dem);
    for y in 0..H {
        for x in 0..W {
            assert_eq!(mask[y * W + x], is_ocean(x, y), "cell ({x}, {y}) is {:?}", part(x, y));
        }
    }
    // Without the void on the border the lagoon is closed: land.
    let mut closed = dem.clone();
    for x in 16..22 {
        *closed.get_mut(x, 0) = 5.0;
    }
    let mask = ocean_cells(&closed);
    assert!((17..21).all(|x| !mask[2 * W + x]), "the lagoon needs the void to reach the border");
    // An interior void is crossed as well, but only when the ocean reaches it.
    let mut g = Grid::from_vec(5, 5, vec![1.0; 25]);
    *g.get_mut(0, 2) = -1.0;
    *g.get_mut(1, 2) = f64::NAN;
    *g.get_mut(2, 2) = -1.0;
    *g.get_mut(3, 3) = -1.0; // diagonal to (2, 2): not 4-connected
    let m = ocean_cells(&g);
    assert_eq!(m.iter().filter(|&&b| b).count(), 2);
    assert!(m[2 * 5] && m[2 * 5 + 2] && !m[2 * 5 + 1] && !m[3 * 5 + 3]);
    // 0 m itself is not below sea level.
    assert!(!ocean_cells(&Grid::from_vec(3, 3, vec![0.0; 9])).contains(&true));
}

#[test]
fn ocean_auto_leaves_the_ocean_unfilled_and_fills_the_basin() {
    let dem = coast_dem();
    let run = |sea: Sea| {
        let dir = tempfile::tempdir().unwrap();
        let options = AnalysisOptions { tpi_radius: 2, sea, ..AnalysisOptions::default() };
        let req = AnalyzeRequest { dem: &dem, source: "coast".into(), options, placement: utm(H) };
        let notes = Notes::default();
        let out = analyze(&req, Compute::cpu(), dir.path(), &notes).unwrap();
        let filled = bozkir_io::read_tiff_f32(dir.path().join("filled.tif")).unwrap();
        let sc = bozkir_io::read_sidecar(dir.path().join("terrain.json")).unwrap();
        (out, filled.map(|&v| f64::from(v)), sc, notes.0.into_inner().unwrap())
    };
    let (out, filled, sc, notes) = run(Sea::Auto);
    let mask = ocean_cells(&dem);
    assert!(notes.is_empty(), "{notes:?}");
    let ocean = (0..W * H).filter(|&i| is_ocean(i % W, i / W)).count();
    assert_eq!(out.sea_cells, ocean);
    assert_eq!(sc.settings["ocean"], "auto");
    assert_eq!(sc.settings["ocean_cells"], ocean as u64);
    let share = sc.settings["ocean_share"].as_f64().unwrap();
    assert!((share - ocean as f64 / (W * H) as f64).abs() < 1e-12, "{share}");
    assert!(!sc.settings.contains_key("sea_level_m"));
    for y in 0..H {
        for x in 0..W {
            let (z, f) = (*dem.get(x, y), *filled.get(x, y));
            match part(x, y) {
                // The sea floor, hollow included, keeps its heights (float32 in the file).
                _ if is_ocean(x, y) => assert_eq!(f, z as f32 as f64, "ocean ({x}, {y})"),
                Part::Void => assert!(f.is_nan()),
                // The closed basin is a depression: filled up to its rim (0 m or more).
                Part::Basin => assert!(f >= 0.0, "basin ({x}, {y}) filled to {f}"),
                _ => assert!(f >= z as f32 as f64, "land ({x}, {y})"),
            }
        }
    }
    assert!(out.raised_cells >= 12, "the basin's 12 cells are raised: {}", out.raised_cells);

    // The drainage of the filled surface: every ocean cell is its own outlet, the basin is not,
    // and the land drains into the ocean.
    // (The file holds float32, which rounds away the ε fill's slopes: the fill again in f64, as
    // `analyze` runs it, with the ocean as no data and put back.)
    let land =
        Grid::from_vec(W, H, dem.data().iter().zip(&mask).map(|(&z, &o)| if o { f64::NAN } else { z }).collect())
            .with_cell_size(10.0, 10.0);
    let f64_filled = Grid::from_vec(
        W,
        H,
        fill_epsilon(&land)
            .data()
            .iter()
            .zip(dem.data())
            .zip(&mask)
            .map(|((&f, &z), &o)| if o { z } else { f })
            .collect(),
    )
    .with_cell_size(10.0, 10.0);
    assert!(f64_filled
        .data()
        .iter()
        .zip(filled.data())
        .all(|(&a, &b)| a.is_nan() && b.is_nan() || a as f32 as f64 == b));
    let options = AnalysisOptions { tpi_radius: 2, sea: Sea::Auto, ..AnalysisOptions::default() };
    let a = analyse(&f64_filled, &options, &bozkir_core::NoProgress);
    let d = a.drainage.unwrap();
    for i in 0..W * H {
        let own = d.graph.receivers[i] as usize == i;
        if is_ocean(i % W, i / W) {
            assert!(own, "ocean cell {i} is its own outlet");
        }
        if part(i % W, i / W) == Part::Basin {
            assert!(!own, "basin cell {i} drains on");
        }
    }
    // The basin drains (through the land west of it) into the sea: follow it down.
    let mut i = 10 * W + 13;
    while d.graph.receivers[i] as usize != i {
        i = d.graph.receivers[i] as usize;
    }
    assert!(is_ocean(i % W, i / W), "the basin ends at cell ({}, {})", i % W, i / W);
    assert!(d.acc[i] > 12, "the basin and the land on its way drain into ({}, {}): {}", i % W, i / W, d.acc[i]);

    // `--sea-level 0` takes every cell below 0 m as sea: the basin is left unfilled, which
    // `--ocean auto` must not do.
    let (level, filled, sc, _) = run(Sea::Level(0.0));
    assert_eq!(level.sea_cells, ocean + 12 + 1, "coast, lagoon, basin and the diagonal cell");
    assert_eq!(*filled.get(13, 10), -8.0);
    assert!(!sc.settings.contains_key("ocean"));
}

#[test]
fn ocean_auto_needs_an_epsg_crs() {
    let dem = coast_dem();
    let options = AnalysisOptions { sea: Sea::Auto, ..AnalysisOptions::default() };
    let mut local = utm(H);
    local.georef.as_mut().unwrap().crs = Crs::Local;
    let mut unknown = utm(H);
    unknown.georef.as_mut().unwrap().crs = Crs::Unknown;
    for p in [Placement::default(), local, unknown] {
        let e = options.sea_mask(&dem, &p).unwrap_err().to_string();
        assert!(e.contains("--ocean auto") && e.contains("CRS") && e.contains("--sea-level"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let req = AnalyzeRequest { dem: &dem, source: "c".into(), options: options.clone(), placement: p };
        assert!(analyze(&req, Compute::cpu(), dir.path(), &bozkir_core::NoProgress).is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
    }
    // A geographic EPSG CRS is a real-world DEM too.
    let mut wgs84 = utm(H);
    wgs84.georef.as_mut().unwrap().crs = Crs::Epsg { code: 4326, geographic: true };
    assert!(options.sea_mask(&dem, &wgs84).unwrap().is_some());
}

#[test]
fn no_ocean_is_a_note_and_all_ocean_is_refused() {
    // Land all round with a closed basin below 0 m: no ocean, a note, and the basin filled.
    let z: Vec<f64> = (0..16 * 16)
        .map(|i| {
            let (x, y) = (i % 16, i / 16);
            if (6..10).contains(&x) && (6..10).contains(&y) {
                -30.0
            } else {
                5.0 + x as f64
            }
        })
        .collect();
    let dem = Grid::from_vec(16, 16, z).with_cell_size(10.0, 10.0);
    let options = AnalysisOptions { tpi_radius: 2, sea: Sea::Auto, ..AnalysisOptions::default() };
    assert_eq!(options.sea_mask(&dem, &utm(16)).unwrap(), None);
    let dir = tempfile::tempdir().unwrap();
    let req = AnalyzeRequest { dem: &dem, source: "l".into(), options: options.clone(), placement: utm(16) };
    let notes = Notes::default();
    let out = analyze(&req, Compute::cpu(), dir.path(), &notes).unwrap();
    assert_eq!(
        notes.0.into_inner().unwrap(),
        ["--ocean auto: no ocean found (no cell below 0 m connected to the border)"]
    );
    assert_eq!(out.sea_cells, 0);
    assert!(out.raised_cells >= 16, "the basin is filled: {}", out.raised_cells);
    let sc = bozkir_io::read_sidecar(dir.path().join("terrain.json")).unwrap();
    assert_eq!(sc.settings["ocean"], "auto");
    assert_eq!(sc.settings["ocean_cells"], 0);

    // Every valid cell in the ocean (voids aside): nothing is land, refused.
    let mut sea = Grid::from_vec(8, 8, vec![-5.0; 64]).with_cell_size(10.0, 10.0);
    *sea.get_mut(3, 3) = f64::NAN;
    let e = options.sea_mask(&sea, &utm(8)).unwrap_err().to_string();
    assert!(e.contains("--ocean auto") && e.contains("nothing is land"), "{e}");
    // One cell above 0 m is enough land.
    *sea.get_mut(4, 4) = 1.0;
    assert_eq!(options.sea_mask(&sea, &utm(8)).unwrap().unwrap().iter().filter(|&&b| b).count(), 62);
}
