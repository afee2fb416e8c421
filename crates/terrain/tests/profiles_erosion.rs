//! Eroding a profile organises its drainage: the channel network (cells draining at least
//! e^2.5 − 1 ≈ 11 cells by D8 on the surface as it is, without filling — the original's
//! `terrain_gen` statistic) covers more of the eroded terrain than of its un-eroded base.

use bozkir_core::{Grid, NoProgress};
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
use bozkir_terrain::profiles::{generate, profile, PROFILES};

fn channel_share(h: &Grid<f64>) -> f64 {
    let g = d8_receivers(h);
    let acc = accumulate_cells(&g);
    acc.iter().filter(|&&c| (c as f64).ln_1p() > 2.5).count() as f64 / acc.len() as f64
}

#[test]
fn eroded_terrain_has_a_larger_channel_network_than_its_base() {
    for p in PROFILES.iter() {
        let t = generate(64, 11, &p.params, &NoProgress);
        let eroded = channel_share(&t.height);
        let base = channel_share(&t.base);
        assert!(eroded > base, "{}: eroded {eroded:.3} vs base {base:.3}", p.name);
    }
}

#[test]
fn sediment_is_recorded_where_the_ground_flattens() {
    let p = profile("badlands").unwrap().params;
    let t = generate(64, 2, &p, &NoProgress);
    assert_eq!(t.sediment.min_max(), Some((0.0, 1.0)));
    // Sediment settles in proportion to flatness: the most sediment-laden tenth of cells lies
    // lower than the average cell.
    let mut idx: Vec<usize> = (0..t.sediment.len()).collect();
    idx.sort_by(|&a, &b| t.sediment.data()[b].total_cmp(&t.sediment.data()[a]));
    let top = &idx[..idx.len() / 10];
    let mean_top = top.iter().map(|&i| t.height.data()[i]).sum::<f64>() / top.len() as f64;
    let mean_all = t.height.data().iter().sum::<f64>() / t.height.len() as f64;
    assert!(mean_top < mean_all, "sediment-rich cells at {mean_top:.3}, all cells {mean_all:.3}");
}
