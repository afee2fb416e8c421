//! The composite's roads and rivers hooks (issue 21, item 5): rivers carved into the composed
//! height after blending (beds non-increasing downstream, tributaries joining a river), roads
//! routed on the carved world, and the trees re-draped: exactly on the final surface, never in
//! water, never over a road cell.

use bozkir_world::compose::trees::{ground_at, water_under, TREE_WATER_CUTOFF};
use bozkir_world::product::{WorldProduct, WorldSpec};
use bozkir_world::{Compat, Seed};
use serde_json::json;

fn composite(seed: &str, extra: serde_json::Value) -> WorldProduct {
    let mut o = json!({ "domain_size": [180.0, 180.0], "forest_target": 600 });
    o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let spec = WorldSpec::resolve("composite", Seed::parse(seed), Compat::Pyworldgen, o.as_object().unwrap()).unwrap();
    spec.generate().unwrap()
}

fn cells_read(p: &WorldProduct, x: f64, y: f64) -> [usize; 4] {
    let g = &p.grid;
    let gx = (x / g.dx - 0.5).clamp(0.0, (g.nx - 1) as f64);
    let gy = (y / g.dy - 0.5).clamp(0.0, (g.ny - 1) as f64);
    let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
    let (i1, j1) = ((i0 + 1).min(g.nx - 1), (j0 + 1).min(g.ny - 1));
    [j0 * g.nx + i0, j0 * g.nx + i1, j1 * g.nx + i0, j1 * g.nx + i1]
}

#[test]
fn carved_composite_rivers_run_downhill_and_join() {
    for seed in ["atlas", "5", "rhine"] {
        let p = composite(seed, json!({ "carve_rivers": true, "river_threshold_cells": 60 }));
        assert!(!p.rivers.is_empty(), "{seed}: no river carved");
        for r in &p.rivers {
            for w in r.points.windows(2) {
                assert!(w[1][2] <= w[0][2], "{seed} {}: bed rises {} -> {}", r.name, w[0][2], w[1][2]);
            }
            if let Some(j) = r.properties["joins"].as_u64() {
                assert!(
                    p.rivers.iter().any(|o| o.properties["id"] == json!(j)),
                    "{seed} {}: joins missing {j}",
                    r.name
                );
            }
        }
        // The carve changed the composed height, and it holds water along the rivers.
        let plain = composite(seed, json!({}));
        assert!(p.grid.height.iter().zip(&plain.grid.height).any(|(a, b)| a < b), "{seed}: nothing carved");
        assert!(p.rivers.iter().all(|r| r.points.len() >= 2));
    }
}

#[test]
fn trees_stand_on_the_final_surface_out_of_water_and_off_roads() {
    for (seed, carve) in [("atlas", true), ("5", false), ("-12", true)] {
        let p = composite(seed, json!({ "carve_rivers": carve, "river_threshold_cells": 60 }));
        assert!(p.trees.len() > 20, "{seed}: only {} trees", p.trees.len());
        let road = p.road_mask.as_ref().expect("add_roads is on by default");
        for t in &p.trees {
            let [x, y, z] = t.position;
            assert_eq!(z, ground_at(&p.grid, x, y), "{seed}: tree at ({x}, {y}) off the surface");
            assert!(water_under(&p.grid, x, y) <= TREE_WATER_CUTOFF, "{seed}: tree in water at ({x}, {y})");
            assert!(!cells_read(&p, x, y).iter().any(|&k| road[k]), "{seed}: tree on a road at ({x}, {y})");
        }
    }
}

#[test]
fn without_the_extension_the_composite_has_no_rivers() {
    let p = composite("atlas", json!({}));
    assert!(p.rivers.is_empty());
}
