//! Rivers carved into arbitrary height fields with bozkir-terrain's D8 drainage: beds never rise
//! downstream, tributaries end on a river that leads to a main river, cells beyond every valley
//! keep their height and water, and the result does not depend on the thread count.

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::profiles::{generate as profile_terrain, profile};
use bozkir_world::landscape::{carve_rivers, CarveParams, CarvedWorld, RiverKind};
use bozkir_world::{Terrain, WorldError, WorldGrid};

/// A profile terrain (`name`, `n × n`) scaled to `relief` metres on `cell`-metre cells.
fn profile_world(name: &str, n: usize, seed: u64, relief: f64, cell: f64) -> WorldGrid {
    let t = profile_terrain(n, seed, &profile(name).unwrap().params, &NoProgress);
    let g = t.height.map(|&h| h * relief).with_cell_size(cell, cell);
    WorldGrid::from_grid(&g)
}

/// Beds non-increasing spring → mouth; consecutive points are D8 neighbours; every tributary
/// ends on its parent's join point, no higher than the parent's bed there, and its parent chain
/// reaches a main river.
fn check_rivers(w: &CarvedWorld, label: &str) {
    let (dx, dy) = (w.dx(), w.dy());
    for r in &w.rivers {
        for (k, b) in r.bed.windows(2).enumerate() {
            assert!(b[1] <= b[0], "{label}: river {} bed rises at point {k}: {} → {}", r.id, b[0], b[1]);
        }
        for q in r.points.windows(2) {
            let (ex, ey) = (((q[1][0] - q[0][0]) / dx).abs(), ((q[1][1] - q[0][1]) / dy).abs());
            assert!(ex <= 1.0 + 1e-9 && ey <= 1.0 + 1e-9 && ex + ey > 0.5, "{label}: river {} jumps", r.id);
        }
        let mut up = r;
        let mut hops = 0;
        while let Some(pid) = up.parent_id {
            assert_eq!(up.kind, RiverKind::Tributary);
            let parent = &w.rivers[pid];
            assert!(pid < up.id, "{label}: parent listed after its tributary");
            let j = up.join_index.unwrap();
            assert_eq!(*up.points.last().unwrap(), parent.points[j], "{label}: tributary {} misses its join", up.id);
            assert!(*up.bed.last().unwrap() <= parent.bed[j], "{label}: tributary {} enters above", up.id);
            up = parent;
            hops += 1;
            assert!(hops <= w.rivers.len());
        }
        assert_eq!(up.kind, RiverKind::Main, "{label}: river {} does not reach a main river", r.id);
    }
}

/// Distance from (x, y) to a polyline.
fn dist(pts: &[[f64; 2]], x: f64, y: f64) -> f64 {
    let mut best = f64::INFINITY;
    for s in pts.windows(2) {
        let (a, b) = (s[0], s[1]);
        let ab = [b[0] - a[0], b[1] - a[1]];
        let l2 = ab[0] * ab[0] + ab[1] * ab[1];
        let t = if l2 > 0.0 { (((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / l2).clamp(0.0, 1.0) } else { 0.0 };
        let (px, py) = (a[0] + t * ab[0], a[1] + t * ab[1]);
        best = best.min(((x - px).powi(2) + (y - py).powi(2)).sqrt());
    }
    best
}

/// Cells farther than a river's reach `max(extent · w_v, 1.45 · w)` from every river keep their
/// height and water exactly; returns how many cells changed.
fn check_untouched(input: &WorldGrid, w: &CarvedWorld, p: &CarveParams) -> usize {
    let cell = w.dx().min(w.dy());
    let reach: Vec<f64> = w
        .rivers
        .iter()
        .map(|r| {
            let width = r.width.max(0.65 * cell);
            let vw = width * p.valley_width_factor * (1.0 + 0.18 * r.order as f64);
            (p.valley_extent * vw).max(1.45 * width)
        })
        .collect();
    let mut changed = 0;
    for j in 0..w.ny() {
        for i in 0..w.nx() {
            let k = j * w.nx() + i;
            let (x, y) = (w.x(i), w.y(j));
            let outside = w.rivers.iter().zip(&reach).all(|(r, &rr)| dist(&r.points, x, y) > rr * (1.0 + 1e-9));
            let same = w.height()[k] == input.height[k] && w.water_depth()[k] == input.water_depth[k];
            if outside {
                assert!(same, "cell ({i}, {j}) beyond every valley changed");
            }
            changed += usize::from(!same);
        }
    }
    changed
}

#[test]
fn profile_terrains_get_monotone_beds_and_joined_tributaries() {
    let p = CarveParams { threshold_cells: 40, ..Default::default() };
    let mut unchanged = 0;
    for (name, seed) in [("hills", 1), ("canyon", 2), ("plains", 3), ("alpine", 4)] {
        let input = profile_world(name, 72, seed, 300.0, 10.0);
        let w = carve_rivers(&input, &p).unwrap();
        let label = format!("{name} {seed}");
        assert!(w.rivers.iter().filter(|r| r.kind == RiverKind::Main).count() >= 1, "{label}: no river");
        assert!(w.rivers.iter().any(|r| r.kind == RiverKind::Tributary), "{label}: no tributary");
        check_rivers(&w, &label);
        let changed = check_untouched(&input, &w, &p);
        assert!(changed > 0, "{label}: nothing carved");
        unchanged += w.nx() * w.ny() - changed;
        // Channels hold water: the cell under each river point is wet.
        for r in &w.rivers {
            for q in &r.points {
                let (i, j) = ((q[0] / w.dx()) as usize, (q[1] / w.dy()) as usize);
                assert!(w.water_depth()[j * w.nx() + i] > 0.0, "{label}: dry channel of river {}", r.id);
            }
        }
    }
    assert!(unchanged > 0, "every cell of every profile changed: the untouched check saw nothing");
}

#[test]
fn an_analytic_valley_gets_one_river_along_its_floor() {
    // A V-shaped valley draining south: h = 0.05·y + 0.2·|x − 200| on 5 m cells, 81 × 60.
    let (nx, ny, cell) = (81, 60, 5.0);
    let h: Vec<f64> = (0..ny)
        .flat_map(|j| {
            (0..nx).map(move |i| 0.05 * (j as f64 + 0.5) * cell + 0.2 * ((i as f64 + 0.5) * cell - 202.5).abs())
        })
        .collect();
    let input = WorldGrid::new(nx, ny, cell, cell, h);
    let p = CarveParams { threshold_cells: 30, valley_width_factor: 2.0, ..Default::default() };
    let w = carve_rivers(&input, &p).unwrap();
    check_rivers(&w, "valley");
    let main = &w.rivers[0];
    assert_eq!(main.kind, RiverKind::Main);
    // The main river runs down the valley floor (x = 202.5 m) and leaves at the south edge;
    // near its head the side slopes drain more area than the floor, so it may start on a flank.
    let floor = main.points.iter().filter(|q| (q[0] - 202.5).abs() < 1e-9).count();
    assert!(floor >= ny - 3, "{floor} points on the floor: {:?}", main.points);
    assert_eq!(*main.points.last().unwrap(), [202.5, 2.5]);
    check_untouched(&input, &w, &p);
    // Far up the slopes nothing changed.
    assert_eq!(w.height()[30 * nx], input.height[30 * nx]);
}

#[test]
fn a_real_dem_gets_monotone_beds() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dem/srtm_ref.tif");
    let dem = bozkir_io::read_dem(path).unwrap();
    let g = &dem.heights;
    // A 160 × 160 window of the 1000 × 1000 SRTM tile (3″, about 71 m × 92 m cells).
    let (x0, y0, n) = (420, 300, 160);
    let win = Grid::from_fn(n, n, |x, y| *g.get(x0 + x, y0 + y)).with_cell_size(g.dx, g.dy);
    assert!(win.data().iter().all(|h| h.is_finite()), "window has nodata");
    let input = WorldGrid::from_grid(&win);
    let p = CarveParams { threshold_cells: 150, ..Default::default() };
    let w = carve_rivers(&input, &p).unwrap();
    assert!(w.rivers.len() >= 3, "{} rivers", w.rivers.len());
    check_rivers(&w, "srtm");
    check_untouched(&input, &w, &p);
    // The channel network is the terrain crate's: every river cell is a channel cell.
    for r in &w.rivers {
        for q in &r.points {
            let (i, j) = ((q[0] / w.dx()) as usize, (q[1] / w.dy()) as usize);
            assert!(w.channel[j * w.nx() + i], "river {} off the network", r.id);
        }
    }
}

#[test]
fn same_carve_for_any_thread_count() {
    let input = profile_world("hills", 64, 9, 250.0, 8.0);
    let p = CarveParams { threshold_cells: 30, ..Default::default() };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| carve_rivers(&input, &p).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(7));
}

#[test]
fn bad_input_is_refused() {
    let mut input = WorldGrid::new(8, 8, 1.0, 1.0, vec![1.0; 64]);
    input.height[9] = f64::NAN;
    assert!(
        matches!(carve_rivers(&input, &CarveParams::default()), Err(WorldError::Invalid(m)) if m.contains("column 1, row 1"))
    );
    let tiny = WorldGrid::new(2, 2, 1.0, 1.0, vec![0.0; 4]);
    assert!(matches!(carve_rivers(&tiny, &CarveParams::default()), Err(WorldError::Param { .. })));
    let flat = WorldGrid::new(8, 8, 1.0, 1.0, vec![0.0; 64]);
    let bad = CarveParams { valley_extent: 0.0, ..Default::default() };
    assert!(matches!(carve_rivers(&flat, &bad), Err(WorldError::Param { name, .. }) if name == "valley_extent"));
    let bad = CarveParams { threshold_cells: 1, ..Default::default() };
    assert!(matches!(carve_rivers(&flat, &bad), Err(WorldError::Param { name, .. }) if name == "threshold_cells"));
    // A flat field drains straight to the border: rivers may be absent, but nothing breaks.
    let w = carve_rivers(&flat, &CarveParams::default()).unwrap();
    assert_eq!(w.rivers.len(), 0);
    assert_eq!(w.grid.height, flat.height);
}

/// Many overlapping rivers (a low threshold on rough ground) lower a cell by the deepest valley
/// over it, not by the sum of them: no cell ends below both its own height and the lowest bed by
/// more than the deepest valley (`valley_depth · (1 + 0.22 · order)`). Summing the valleys sank
/// a 5–50 m composed world to −91 m.
#[test]
fn overlapping_valleys_do_not_add_up() {
    for (name, seed) in [("canyon", 3), ("alpine", 5), ("rolling", 1)] {
        let input = profile_world(name, 160, seed, 45.0, 2.0);
        let p = CarveParams { threshold_cells: 40, ..Default::default() };
        let w = carve_rivers(&input, &p).unwrap();
        assert!(w.rivers.len() > 20, "{name}: only {} rivers", w.rivers.len());
        let low_bed = w.rivers.iter().flat_map(|r| r.bed.iter().copied()).fold(f64::INFINITY, f64::min);
        let max_order = w.rivers.iter().map(|r| r.order).max().unwrap();
        let deepest = p.valley_depth * (1.0 + 0.22 * f64::from(max_order));
        for (k, (&h, &h0)) in w.grid.height.iter().zip(&input.height).enumerate() {
            let floor = h0.min(low_bed) - deepest - 1e-9;
            assert!(
                h >= floor,
                "{name}: cell {k} carved to {h} from {h0} (lowest bed {low_bed}, deepest valley {deepest})"
            );
        }
    }
}
