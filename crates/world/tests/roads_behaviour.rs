//! Road behaviour on analytical terrains: the invariants issue 21 names for roads.

use bozkir_world::roads::cost::CostField;
use bozkir_world::roads::network::{cells_along, densify};
use bozkir_world::roads::solver::SearchOptions;
use bozkir_world::roads::{
    generate_roads, generate_roads_with, least_cost_path, RoadCost, RoadInputs, RoadNetwork, RoadParams, Route,
    SegmentMask,
};
use bozkir_world::{Compat, Seed, WorldError, WorldGrid};

fn grid(nx: usize, ny: usize, res: f64, h: impl Fn(f64, f64) -> f64) -> WorldGrid {
    let height = (0..nx * ny).map(|c| h((c % nx) as f64, (c / nx) as f64)).collect();
    WorldGrid::new(nx, ny, res, res, height)
}

fn route(t: &WorldGrid, cost: &RoadCost, k: usize, a: (usize, usize), b: (usize, usize)) -> Option<Route> {
    let f = CostField { nx: t.nx, ny: t.ny, res: t.dx, height: &t.height, water: &t.water_depth, trees: None };
    least_cost_path(&f, cost, &SegmentMask::new(k, t.dx), a, b, SearchOptions::default()).ok()
}

fn headings(cells: &[(usize, usize)]) -> Vec<f64> {
    cells.windows(2).map(|w| (w[1].1 as f64 - w[0].1 as f64).atan2(w[1].0 as f64 - w[0].0 as f64)).collect()
}

/// Number of direction changes and total turning (radians) along a route.
fn turning(cells: &[(usize, usize)]) -> (usize, f64) {
    let h = headings(cells);
    let mut n = 0;
    let mut total = 0.0;
    for w in h.windows(2) {
        let mut d = (w[1] - w[0]).abs();
        if d > std::f64::consts::PI {
            d = 2.0 * std::f64::consts::PI - d;
        }
        if d > 1e-12 {
            n += 1;
        }
        total += d;
    }
    (n, total)
}

fn length(cells: &[(usize, usize)]) -> f64 {
    cells.windows(2).map(|w| (w[1].0 as f64 - w[0].0 as f64).hypot(w[1].1 as f64 - w[0].1 as f64)).sum()
}

#[test]
fn staircase_removed_by_the_mask() {
    let t = grid(20, 10, 1.0, |_, _| 5.0);
    let cost = RoadCost::default();
    let r3 = route(&t, &cost, 3, (0, 0), (9, 3)).unwrap();
    assert_eq!(r3.cells, vec![(0, 0), (3, 1), (6, 2), (9, 3)]);
    assert_eq!(turning(&r3.cells).0, 0);
    let r1 = route(&t, &cost, 1, (0, 0), (9, 3)).unwrap();
    assert!(turning(&r1.cells).0 >= 1, "8-connected staircase has turns");
}

/// A ridge across y = 20 for x ≲ 30, fading out east of it.
fn ridge(x: f64, y: f64) -> f64 {
    let fade = ((34.0 - x) / 6.0).clamp(0.0, 1.0);
    4.0 * (-((y - 20.0) / 3.0).powi(2)).exp() * fade * fade * (3.0 - 2.0 * fade)
}

#[test]
fn detour_around_a_ridge_at_a_gentler_max_grade() {
    let t = grid(48, 40, 1.0, ridge);
    let steep = RoadCost { max_grade: 2.0, slope_weight: 0.5, ..RoadCost::default() };
    let gentle = RoadCost { max_grade: 0.2, ..RoadCost::default() };
    let over = route(&t, &steep, 3, (10, 5), (10, 35)).unwrap();
    let around = route(&t, &gentle, 3, (10, 5), (10, 35)).unwrap();
    assert!(length(&over.cells) < 33.0, "straight over: {}", length(&over.cells));
    assert!(length(&around.cells) > 45.0, "detour: {}", length(&around.cells));
    assert!(around.cells.iter().any(|&(x, _)| x >= 30), "goes round the ridge's end");
}

fn hills(x: f64, y: f64) -> f64 {
    3.0 * (x * 0.21).sin() * (y * 0.17).cos() + 2.0 * (x * 0.07 + y * 0.11).sin()
}

#[test]
fn k5_routes_are_straighter_than_8_connectivity() {
    let t = grid(60, 60, 2.0, hills);
    let cost = RoadCost::default();
    let (a, b) = ((3, 5), (55, 50));
    let r1 = route(&t, &cost, 1, a, b).unwrap();
    let r5 = route(&t, &cost, 5, a, b).unwrap();
    let e = ((b.0 - a.0) as f64).hypot((b.1 - a.1) as f64);
    let (q1, q5) = (length(&r1.cells) / e, length(&r5.cells) / e);
    let (t1, t5) = (turning(&r1.cells), turning(&r5.cells));
    assert!(q5 < q1, "length/euclid k5 {q5} vs k1 {q1}");
    // Total turning (radians) is lower; k = 5 makes more but much smaller heading changes.
    assert!(t5.1 < 0.8 * t1.1, "turning k5 {t5:?} vs k1 {t1:?}");
    assert!(r5.cost <= r1.cost + 1e-9, "M_5 contains M_1: never costlier ({} vs {})", r5.cost, r1.cost);
}

/// Flat ground with a river 4 m deep across x ∈ [18, 22], and a ford 1 m deep at y ∈ [30, 33].
fn river(ford: bool) -> WorldGrid {
    let mut t = grid(40, 40, 1.0, |_, _| 2.0);
    for c in 0..t.height.len() {
        let (x, y) = (c % 40, c / 40);
        if (18..=22).contains(&x) {
            t.water_depth[c] = if ford && (30..=33).contains(&y) { 1.0 } else { 4.0 };
        }
    }
    t
}

#[test]
fn bridges_only_when_allowed_never_through_deeper_water() {
    let (a, b) = ((5, 10), (35, 10));
    let bridged = route(&river(false), &RoadCost::default(), 3, a, b).unwrap();
    assert!(length(&bridged.cells) < 32.0, "bridges straight across");
    let off = RoadCost { allow_bridges: false, ..RoadCost::default() };
    assert!(route(&river(false), &off, 3, a, b).is_none(), "no ford, no bridge: no route");
    let t = river(true);
    let forded = route(&t, &off, 3, a, b).unwrap();
    let cells = SegmentMask::new(3, 1.0).sampled_cells(&forded.cells);
    assert!(
        cells.iter().all(|&(x, y)| t.water_depth[y * 40 + x] <= 2.5),
        "never through water deeper than the threshold"
    );
    assert!(forded.cells.iter().any(|&(_, y)| (30..=33).contains(&y)), "through the ford");
    // The network's smoothed centreline stays clear of deep water too.
    let p = RoadParams { allow_bridges: false, ..RoadParams::default() };
    let inputs = RoadInputs { hubs: Some(&[(5.5, 10.5), (35.5, 10.5)]), ..Default::default() };
    let net = generate_roads_with(&t, &Seed::Int(1), Compat::Pyworldgen, &p, &inputs).unwrap();
    assert_eq!(net.segments.len(), 1);
    for q in densify(&net.segments[0].polyline, 1.0) {
        let c = q[1] as usize * 40 + q[0] as usize;
        let on_edge = q.iter().any(|v| (v - v.round()).abs() < 1e-9);
        assert!(on_edge || t.water_depth[c] <= 2.5, "smoothed centreline in deep water at {q:?}");
    }
    let with_bridges =
        generate_roads_with(&river(false), &Seed::Int(1), Compat::Pyworldgen, &RoadParams::default(), &inputs).unwrap();
    assert!(with_bridges.bridge_mask(0.05).iter().any(|&b| b), "bridge cells reported");
}

#[test]
fn k5_never_jumps_a_one_cell_wall() {
    // A wall one cell thick (5 m high: grade 10 over a half-cell sub-step) with a gap at y ≥ 36.
    let t = grid(40, 40, 1.0, |x, y| if x == 20.0 && y < 36.0 { 5.0 } else { 0.0 });
    let r = route(&t, &RoadCost::default(), 5, (10, 5), (30, 5)).unwrap();
    // Where a step's centre line passes x = 20 (the wall's axis), it is above the wall's top
    // edge (y = 35.5 in cell-centre units): through the gap, not over the wall.
    for w in r.cells.windows(2) {
        let ((x0, y0), (x1, y1)) = ((w[0].0 as f64, w[0].1 as f64), (w[1].0 as f64, w[1].1 as f64));
        if (x0 - 20.0) * (x1 - 20.0) <= 0.0 && x0 != x1 {
            let y = y0 + (y1 - y0) * (20.0 - x0) / (x1 - x0);
            assert!(y >= 35.5, "crossed the wall at y = {y}: {:?}", r.cells);
        }
    }
    let sampled = SegmentMask::new(5, 1.0).sampled_cells(&r.cells);
    assert!(sampled.iter().all(|&(x, y)| !(x == 20 && y < 36)), "a sample on the wall");
}

#[test]
fn curvature_weight_reduces_turning() {
    let t = grid(50, 50, 2.0, hills);
    let plain = RoadCost::default();
    let curved = RoadCost { curvature_weight: 3.0, ..RoadCost::default() };
    let (a, b) = ((2, 3), (46, 44));
    let r0 = route(&t, &plain, 3, a, b).unwrap();
    let r1 = route(&t, &curved, 3, a, b).unwrap();
    let (t0, t1) = (turning(&r0.cells).1, turning(&r1.cells).1);
    assert!(t1 < t0, "turning with curvature {t1} vs without {t0}");
}

fn network(t: &WorldGrid, p: &RoadParams, hubs: &[(f64, f64)]) -> RoadNetwork {
    let inputs = RoadInputs { hubs: Some(hubs), ..Default::default() };
    generate_roads_with(t, &Seed::Int(3), Compat::Pyworldgen, p, &inputs).unwrap()
}

const HUBS: &[(f64, f64)] = &[(10.0, 10.0), (100.0, 16.0), (104.0, 100.0), (14.0, 104.0), (60.0, 60.0), (30.0, 60.0)];

#[test]
fn corridor_reuse_raises_the_share_of_shared_cells() {
    let t = grid(60, 60, 2.0, |x, y| 0.6 * hills(x, y));
    let share = |d: f64| {
        let net = network(&t, &RoadParams { reuse_discount: d, ..RoadParams::default() }, HUBS);
        let mut count = vec![0u32; 3600];
        for s in &net.segments {
            let mut cells = Vec::new();
            cells_along(&s.grid_path, 60, 60, &mut cells);
            cells.sort_unstable();
            cells.dedup();
            cells.iter().for_each(|&c| count[c] += 1);
        }
        let used = count.iter().filter(|&&c| c > 0).count() as f64;
        count.iter().filter(|&&c| c > 1).count() as f64 / used
    };
    let (none, strong) = (share(1.0), share(0.3));
    assert!(strong > none, "shared share with reuse {strong} vs without {none}");
}

#[test]
fn network_connected_ends_pinned_grading_local_and_within_grade() {
    let t = grid(60, 60, 2.0, |x, y| 0.5 * hills(x, y));
    let p = RoadParams::default();
    let net = network(&t, &p, HUBS);
    assert!(net.unrouted.is_empty());
    // All hubs connected (union–find over the segments).
    let mut parent: Vec<usize> = (0..HUBS.len()).collect();
    fn find(p: &mut [usize], i: usize) -> usize {
        if p[i] != i {
            let r = find(p, p[i]);
            p[i] = r;
        }
        p[i]
    }
    for s in &net.segments {
        let (ra, rb) = (find(&mut parent, s.a), find(&mut parent, s.b));
        parent[ra] = rb;
        // Endpoints pinned to the hubs.
        assert_eq!(s.polyline[0], [HUBS[s.a].0, HUBS[s.a].1]);
        assert_eq!(*s.polyline.last().unwrap(), [HUBS[s.b].0, HUBS[s.b].1]);
    }
    let root = find(&mut parent, 0);
    assert!((0..HUBS.len()).all(|i| find(&mut parent, i) == root));
    // Grading changes cells within the shoulder R and none beyond.
    let graded = net.graded_height(None, None, 0.05);
    let (r, big_r) = (1.5, f64::max(4.5, 1.5 + 4.0));
    let pts: Vec<[f64; 2]> = net.segments.iter().flat_map(|s| densify(&s.polyline, 2.0)).collect();
    let mut changed = 0;
    for (c, &g) in graded.iter().enumerate() {
        let (x, y) = ((c % 60) as f64 * 2.0 + 1.0, (c / 60) as f64 * 2.0 + 1.0);
        let d = pts.iter().map(|q| (q[0] - x).hypot(q[1] - y)).fold(f64::INFINITY, f64::min);
        if g != net.height[c] {
            changed += 1;
            assert!(d < big_r, "cell {c} changed at {d} m > R");
        }
        if d <= r {
            // On the asphalt: set to the height of a road-surface sample's cell.
            assert!(pts.iter().any(|q| net.height[(q[1] / 2.0) as usize * 60 + (q[0] / 2.0) as usize] == g));
        }
    }
    assert!(changed > 0);
    // The graded road surface keeps the route's grade: between consecutive centreline samples
    // (half a cell apart, as the cost samples them), |Δz| / Δs ≤ max_grade.
    for s in &net.segments {
        let d = densify(&s.polyline, 2.0);
        for w in d.windows(2) {
            let c0 = (w[0][1] / 2.0) as usize * 60 + (w[0][0] / 2.0) as usize;
            let c1 = (w[1][1] / 2.0) as usize * 60 + (w[1][0] / 2.0) as usize;
            let run = (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]).max(1.0);
            let g = (graded[c1] - graded[c0]).abs() / run;
            assert!(g <= p.max_grade + 1e-9, "graded grade {g}");
        }
    }
}

#[test]
fn deterministic_across_thread_counts_and_canonical_differs() {
    let t = grid(40, 40, 2.0, hills);
    let run = |threads: usize, compat: Compat| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| generate_roads(&t, &Seed::Str("atlas".into()), compat, &RoadParams::default()).unwrap())
    };
    assert_eq!(run(1, Compat::Pyworldgen), run(2, Compat::Pyworldgen));
    let (c1, c2) = (run(1, Compat::Canonical), run(2, Compat::Canonical));
    assert_eq!(c1, c2);
    assert_ne!(c1.nodes, run(1, Compat::Pyworldgen).nodes);
}

#[test]
fn unreachable_hubs_name_the_pair_and_the_threshold() {
    // A wall across the whole grid.
    let t = grid(30, 30, 1.0, |_, y| if y >= 15.0 { 20.0 } else { 0.0 });
    let hubs = [(5.0, 5.0), (5.0, 25.0)];
    let p = RoadParams { require_connected: true, ..RoadParams::default() };
    let inputs = RoadInputs { hubs: Some(&hubs), ..Default::default() };
    let err = generate_roads_with(&t, &Seed::Int(0), Compat::Pyworldgen, &p, &inputs).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, WorldError::Unreachable { from: 0, to: 1, .. }), "{msg}");
    assert!(msg.contains("max_grade = 0.35"), "{msg}");
    // Without require_connected, pyworldgen's behaviour: the pair is skipped and recorded.
    let net = generate_roads_with(&t, &Seed::Int(0), Compat::Pyworldgen, &RoadParams::default(), &inputs).unwrap();
    assert!(net.segments.is_empty());
    assert_eq!(net.unrouted.len(), 1);
    // Deep water with bridges off names the depth threshold.
    let mut w = grid(30, 30, 1.0, |_, _| 0.0);
    (0..900).filter(|c| c / 30 == 15).for_each(|c| w.water_depth[c] = 9.0);
    let p = RoadParams { require_connected: true, allow_bridges: false, ..RoadParams::default() };
    let msg = generate_roads_with(&w, &Seed::Int(0), Compat::Pyworldgen, &p, &inputs).unwrap_err().to_string();
    assert!(msg.contains("max_water_depth = 2.5"), "{msg}");
}

#[test]
fn bad_input_is_refused() {
    let mut t = grid(10, 10, 1.0, |_, _| 0.0);
    t.height[13] = f64::NAN;
    let e = generate_roads(&t, &Seed::Int(0), Compat::Pyworldgen, &RoadParams::default()).unwrap_err();
    assert!(e.to_string().contains("(3, 1)"), "{e}");
    let mut t = grid(10, 10, 1.0, |_, _| 0.0);
    t.water_depth[5] = -1.0;
    assert!(generate_roads(&t, &Seed::Int(0), Compat::Pyworldgen, &RoadParams::default()).is_err());
    let e = RoadParams::from_json(&serde_json::json!({"slope_weight": -2.0})).unwrap_err();
    assert!(e.to_string().contains("slope_weight") && e.to_string().contains("-2"), "{e}");
    let e = RoadParams::from_json(&serde_json::json!({"num_hub": 3})).unwrap_err();
    assert!(matches!(e, WorldError::Unknown { .. }) && e.to_string().contains("num_hub"), "{e}");
    let e = RoadParams::from_json(&serde_json::json!({"reuse_discount": 0.0})).unwrap_err();
    assert!(e.to_string().contains("reuse_discount"));
    let p = RoadParams::from_json(&serde_json::json!({"mask_radius": 5, "min_hub_spacing": null})).unwrap();
    assert_eq!(p.mask_radius, 5);
}

/// A forest blob of density 1 around (20, 20) on flat ground.
fn forest() -> (WorldGrid, Vec<f64>) {
    let t = grid(40, 40, 1.0, |_, _| 1.0);
    let d = (0..1600)
        .map(|c| if ((c % 40) as f64 - 20.0).hypot((c / 40) as f64 - 20.0) < 7.0 { 1.0 } else { 0.0 })
        .collect();
    (t, d)
}

fn forest_route(p: &RoadParams) -> (Route, Vec<f64>) {
    let (t, d) = forest();
    let f = CostField { nx: 40, ny: 40, res: 1.0, height: &t.height, water: &t.water_depth, trees: Some(&d) };
    let r =
        least_cost_path(&f, &p.cost(), &SegmentMask::new(3, 1.0), (2, 20), (38, 20), SearchOptions::default()).unwrap();
    (r, d)
}

#[test]
fn vegetation_is_a_cost_characteristic() {
    let through = forest_route(&RoadParams::default());
    let around = forest_route(&RoadParams { vegetation_weight: 4.0, ..RoadParams::default() });
    let forested = |(r, d): &(Route, Vec<f64>)| {
        SegmentMask::new(3, 1.0).sampled_cells(&r.cells).iter().filter(|&&(x, y)| d[y * 40 + x] > 0.0).count()
    };
    assert!(forested(&through) > 10, "weight 0 goes straight through");
    assert!(forested(&around) < forested(&through) / 3, "{} vs {}", forested(&around), forested(&through));
    let (r, d) = forest_route(&RoadParams { max_tree_density: Some(0.5), ..RoadParams::default() });
    let sampled = SegmentMask::new(3, 1.0).sampled_cells(&r.cells);
    // A sub-step is costed at its first sample; each segment's last sample is the next one's first.
    assert!(sampled.iter().all(|&(x, y)| d[y * 40 + x] <= 0.5), "through trees above the threshold");
}

#[test]
fn trees_cleared_along_the_corridor_none_left_on_a_road() {
    let (t, d) = forest();
    let hubs = [(2.5, 20.5), (38.5, 20.5), (20.5, 37.5)];
    let inputs = RoadInputs { hubs: Some(&hubs), tree_density: Some(&d), ..Default::default() };
    let net = generate_roads_with(&t, &Seed::Int(0), Compat::Pyworldgen, &RoadParams::default(), &inputs).unwrap();
    let trees: Vec<[f64; 2]> = (0..40 * 40).map(|c| [(c % 40) as f64 + 0.3, (c / 40) as f64 + 0.6]).collect();
    let drop = net.trees_to_clear(&trees, 1.0);
    assert!(!drop.is_empty());
    for (i, tr) in trees.iter().enumerate() {
        let on_road = net.road_mask[tr[1] as usize * 40 + tr[0] as usize];
        assert!(!on_road || drop.binary_search(&i).is_ok(), "tree {i} left on a road");
    }
    // Trees far from every road stay.
    assert!(drop.len() < trees.len() / 2);
}

#[test]
fn curvature_in_a_corridor_turns_less_than_the_plain_route() {
    let t = grid(50, 50, 2.0, hills);
    let hubs = [(5.0, 7.0), (93.0, 89.0)];
    let turning_of = |p: &RoadParams| {
        let net = network(&t, p, &hubs);
        turning(&net.segments[0].grid_path).1
    };
    let plain = turning_of(&RoadParams::default());
    let full = turning_of(&RoadParams { curvature_weight: 3.0, ..RoadParams::default() });
    let corridor = turning_of(&RoadParams { curvature_weight: 3.0, curvature_corridor: 12.0, ..RoadParams::default() });
    assert!(full < plain && corridor < plain, "plain {plain}, full {full}, corridor {corridor}");
}

/// A ridge 30 m high across x = 70 m (grade ≈ 5 on its flanks), open for y ≥ `gap_from` m.
fn ridge_wall(ny: usize, gap_from: f64) -> WorldGrid {
    grid(70, ny, 2.0, |i, j| {
        let (x, y) = (i * 2.0 + 1.0, j * 2.0 + 1.0);
        if y >= gap_from {
            0.0
        } else {
            30.0 * (-((x - 70.0) / 5.0).powi(2)).exp()
        }
    })
}

fn tunnel_params(cheap: bool) -> RoadParams {
    let mut p = RoadParams { allow_tunnels: true, annulus_outer: 40.0, ..RoadParams::default() };
    if cheap {
        p.tunnel_cost_per_m = 2.0;
        p.tunnel_fixed_cost = 10.0;
    }
    p
}

fn has_tunnel(net: &RoadNetwork) -> bool {
    net.segments.iter().any(|s| s.edge_kinds.contains(&bozkir_world::roads::StepKind::Tunnel))
}

#[test]
fn tunnel_taken_only_when_cheaper() {
    let hubs = [(20.0, 30.0), (120.0, 30.0)];
    // A wall across the whole domain: no surface route; a tunnel pierces it.
    let wall = ridge_wall(30, f64::INFINITY);
    let net = network(&wall, &RoadParams { require_connected: true, ..tunnel_params(false) }, &hubs);
    assert!(has_tunnel(&net), "the only way through is a tunnel");
    assert_eq!(net.portals.len(), 2, "two portals");
    for pt in &net.portals {
        assert!((pt.xyz[0] - 70.0).abs() > 8.0, "portal at the ridge's foot, not on it: {:?}", pt.xyz);
    }
    let mesh = net.ribbon_mesh(None, 0.3);
    assert!(mesh.flags.contains(&bozkir_world::roads::geometry::FLAG_TUNNEL));
    let no = network(&wall, &RoadParams::default(), &hubs);
    assert!(no.segments.is_empty() && no.unrouted.len() == 1, "without tunnels: unreachable");
    // A gap far north: the detour (≈ 200 m) beats a default-priced tunnel (≈ 800), a cheap
    // tunnel (≈ 100 + approaches) beats the detour.
    let gap = ridge_wall(60, 110.0);
    let detour = network(&gap, &tunnel_params(false), &hubs);
    assert!(!has_tunnel(&detour) && detour.segments.len() == 1, "detour when the tunnel costs more");
    let bored = network(&gap, &tunnel_params(true), &hubs);
    assert!(has_tunnel(&bored), "tunnel when it is cheaper");
}

#[test]
fn annulus_bridges_span_a_lake_when_level_bridges_are_off() {
    // Banks 8 m high, a lake 40 m wide (bed 0, 5 m deep) across the domain.
    let mut t = grid(70, 30, 2.0, |i, _| if (25.0..45.0).contains(&i) { 0.0 } else { 8.0 });
    for c in 0..t.height.len() {
        if (25..45).contains(&(c % 70)) {
            t.water_depth[c] = 5.0;
        }
    }
    let hubs = [(20.0, 30.0), (120.0, 30.0)];
    let p = RoadParams { allow_bridges: false, annulus_bridges: true, annulus_outer: 50.0, ..RoadParams::default() };
    let net = network(&t, &p, &hubs);
    assert_eq!(net.segments.len(), 1, "{:?}", net.unrouted);
    assert!(net.segments[0].edge_kinds.contains(&bozkir_world::roads::StepKind::Bridge));
    let none = network(&t, &RoadParams { allow_bridges: false, ..RoadParams::default() }, &hubs);
    assert!(none.segments.is_empty());
}

#[test]
fn clothoid_smoothing_pins_ends_and_bounds_curvature() {
    let t = grid(60, 60, 2.0, |x, y| 0.5 * hills(x, y));
    let p = RoadParams { smoothing: bozkir_world::roads::Smoothing::Clothoid, ..RoadParams::default() };
    let net = network(&t, &p, HUBS);
    assert!(!net.segments.is_empty());
    for s in &net.segments {
        assert_eq!(s.polyline[0], [HUBS[s.a].0, HUBS[s.a].1]);
        assert_eq!(*s.polyline.last().unwrap(), [HUBS[s.b].0, HUBS[s.b].1]);
        // Discrete curvature (turn / mean edge length) within the bound (+ sampling slack).
        for w in s.polyline.windows(3) {
            let (a, b) = ((w[1][0] - w[0][0], w[1][1] - w[0][1]), (w[2][0] - w[1][0], w[2][1] - w[1][1]));
            let (la, lb) = (a.0.hypot(a.1), b.0.hypot(b.1));
            let turn = (a.0 * b.1 - a.1 * b.0).atan2(a.0 * b.0 + a.1 * b.1).abs();
            assert!(
                turn / (0.5 * (la + lb)) <= p.clothoid_max_curvature * 1.25 + 1e-9,
                "κ = {}",
                turn / (0.5 * (la + lb))
            );
        }
    }
}

#[test]
fn negative_or_non_finite_costs_are_refused_by_the_search() {
    let t = grid(20, 20, 1.0, |_, _| 0.0);
    let f = CostField { nx: 20, ny: 20, res: 1.0, height: &t.height, water: &t.water_depth, trees: None };
    let mask = SegmentMask::new(1, 1.0);
    // A reuse field that would make every step negative: no step is taken, the search ends.
    let reuse = vec![-1.0; 400];
    let opts = SearchOptions { reuse: Some(&reuse), ..Default::default() };
    assert!(least_cost_path(&f, &RoadCost::default(), &mask, (1, 1), (15, 15), opts).is_err());
    let reuse = vec![f64::NAN; 400];
    let opts = SearchOptions { reuse: Some(&reuse), ..Default::default() };
    assert!(least_cost_path(&f, &RoadCost::default(), &mask, (1, 1), (15, 15), opts).is_err());
    // Negative densities are refused up front.
    let d = vec![-0.5; 400];
    let inputs = RoadInputs { tree_density: Some(&d), ..Default::default() };
    let e = generate_roads_with(&t, &Seed::Int(0), Compat::Pyworldgen, &RoadParams::default(), &inputs).unwrap_err();
    assert!(e.to_string().contains("tree density"), "{e}");
}
