//! Watershed (drainage basin) labelling over a D8 flow graph.
//!
//! Every cell is labelled with the outlet its D8 path ends at, following the flow-direction
//! watershed delineation of S. K. Jenson & J. O. Domingue (1988), "Extracting topographic structure
//! from digital elevation data for geographic information system analysis", *Photogrammetric
//! Engineering and Remote Sensing* 54(11), 1593–1600. Labels are propagated down the stack
//! (receivers before donors, Braun & Willett 2013), so the work is O(N) with no recursion.
//!
//! Numbering is deterministic: basins get ids `0, 1, …` in increasing row-major index of their
//! outlet cell (all border cells and interior pits are outlets of a [`FlowGraph`]). With
//! [`watersheds_at`], ids follow the order of the given pour points instead, and a cell takes the
//! id of the *first* pour point on its way down (nested catchments are split).

use super::flow_graph::FlowGraph;

/// Label of cells that drain to none of the pour points given to [`watersheds_at`].
pub const NO_BASIN: u32 = u32::MAX;

/// Parameters of [`watersheds_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WatershedParams {
    /// Basins smaller than this many cells are merged into one "small basins" label, the last id.
    /// 0 or 1 keeps every basin. Default 0.
    pub min_cells: u32,
}

/// Watershed labels and per-basin figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watersheds {
    /// Basin id of each cell (row-major), or [`NO_BASIN`].
    pub labels: Vec<u32>,
    /// Outlet (pour point) cell index of each basin id. With `min_cells` merging, the merged
    /// "small basins" id (the last one) has outlet [`NO_BASIN`].
    pub outlets: Vec<u32>,
    /// Number of cells of each basin id.
    pub sizes: Vec<u32>,
}

impl Watersheds {
    /// Number of basin ids.
    pub fn count(&self) -> usize {
        self.outlets.len()
    }
}

/// One basin per outlet of `g` (border cells and interior pits), ids in increasing outlet index.
pub fn watersheds(g: &FlowGraph) -> Watersheds {
    watersheds_with(g, &WatershedParams::default())
}

/// [`watersheds`] with parameters.
pub fn watersheds_with(g: &FlowGraph, params: &WatershedParams) -> Watersheds {
    let outlets: Vec<u32> =
        g.receivers.iter().enumerate().filter(|&(i, &r)| r as usize == i).map(|(i, _)| i as u32).collect();
    let mut ws = watersheds_at(g, &outlets);
    if params.min_cells > 1 {
        merge_small(&mut ws, params.min_cells);
    }
    ws
}

/// Catchments of the given pour points (cell indices; duplicates keep their first id). Basin `k`
/// holds the cells whose D8 path reaches `pour_points[k]` before any other pour point; cells that
/// reach none are [`NO_BASIN`].
pub fn watersheds_at(g: &FlowGraph, pour_points: &[u32]) -> Watersheds {
    let n = g.receivers.len();
    let mut labels = vec![NO_BASIN; n];
    let mut is_pour = vec![NO_BASIN; n];
    for (k, &p) in pour_points.iter().enumerate() {
        assert!((p as usize) < n, "watersheds_at: pour point {p} outside the grid of {n} cells");
        if is_pour[p as usize] == NO_BASIN {
            is_pour[p as usize] = k as u32;
        }
    }
    for &i in &g.stack {
        let i = i as usize;
        labels[i] = if is_pour[i] != NO_BASIN {
            is_pour[i]
        } else {
            let r = g.receivers[i] as usize;
            if r == i {
                NO_BASIN
            } else {
                labels[r]
            }
        };
    }
    let mut sizes = vec![0u32; pour_points.len()];
    for &l in &labels {
        if l != NO_BASIN {
            sizes[l as usize] += 1;
        }
    }
    Watersheds { labels, outlets: pour_points.to_vec(), sizes }
}

/// [`watersheds`] from each cell's outlet (what [`super::flow_graph::outlet_of`] gives) and the
/// upstream cell counts (what [`super::flow_graph::accumulate_cells`] gives) of the receivers
/// `receivers`: the same ids, labels and sizes, with no stack and in parallel. A basin's size is
/// its outlet's count: every cell drains to exactly one outlet.
pub fn watersheds_from_outlets(receivers: &[u32], outlet: &[u32], acc: &[u32]) -> Watersheds {
    use rayon::prelude::*;
    let n = receivers.len();
    assert!(outlet.len() == n && acc.len() == n, "watersheds_from_outlets: lengths");
    let outlets: Vec<u32> =
        receivers.par_iter().enumerate().filter_map(|(i, &r)| (r as usize == i).then_some(i as u32)).collect();
    // Each outlet's id at its own cell (other cells unread).
    let mut id = vec![0u32; n];
    let at: &[u32] = &outlets;
    id.par_chunks_mut(1 << 16).enumerate().for_each(|(c, chunk)| {
        let lo = (c << 16) as u32;
        let first = at.partition_point(|&o| o < lo);
        let hi = lo + chunk.len() as u32;
        for (k, &o) in at[first..].iter().take_while(|&&o| o < hi).enumerate() {
            chunk[(o - lo) as usize] = (first + k) as u32;
        }
    });
    let labels: Vec<u32> = outlet.par_iter().map(|&o| id[o as usize]).collect();
    let sizes: Vec<u32> = outlets.par_iter().map(|&o| acc[o as usize]).collect();
    Watersheds { labels, outlets, sizes }
}

/// Renumbers so that basins of at least `min_cells` keep their relative order and every smaller
/// basin shares one last id.
fn merge_small(ws: &mut Watersheds, min_cells: u32) {
    let mut remap = vec![0u32; ws.sizes.len()];
    let mut outlets = Vec::new();
    let mut sizes = Vec::new();
    for (k, (&o, &s)) in ws.outlets.iter().zip(&ws.sizes).enumerate() {
        if s >= min_cells {
            remap[k] = outlets.len() as u32;
            outlets.push(o);
            sizes.push(s);
        } else {
            remap[k] = u32::MAX - 1;
        }
    }
    let small: u32 = ws.sizes.iter().filter(|&&s| s < min_cells).sum();
    let small_id = outlets.len() as u32;
    if small > 0 {
        outlets.push(NO_BASIN);
        sizes.push(small);
    }
    for l in ws.labels.iter_mut() {
        if *l != NO_BASIN {
            let m = remap[*l as usize];
            *l = if m == u32::MAX - 1 { small_id } else { m };
        }
    }
    ws.outlets = outlets;
    ws.sizes = sizes;
}

#[cfg(test)]
mod tests {
    use super::super::flow_graph::{accumulate_cells, d8_receivers};
    use super::super::priority_flood::{fill, fill_epsilon};
    use super::super::test_dems::{noise, value_noise};
    use super::*;

    #[test]
    fn basins_cover_every_cell_and_match_outlet_accumulation() {
        for dem in [value_noise(70, 50, 11, 12, 2.0), noise(40, 33, 5)] {
            // Unfilled (interior pits are outlets too), plain-filled (flats give pits) and ε-filled.
            for h in [dem.clone(), fill(&dem), fill_epsilon(&dem)] {
                let g = d8_receivers(&h);
                let acc = accumulate_cells(&g);
                let ws = watersheds(&g);
                assert!(ws.labels.iter().all(|&l| (l as usize) < ws.count()), "a cell has no basin");
                // Ids in increasing outlet index, and the outlet carries its own id.
                assert!(ws.outlets.windows(2).all(|p| p[0] < p[1]));
                for (k, &o) in ws.outlets.iter().enumerate() {
                    assert_eq!(g.receivers[o as usize], o);
                    assert_eq!(ws.labels[o as usize], k as u32);
                    assert_eq!(ws.sizes[k], acc[o as usize], "basin size != accumulation at outlet");
                }
                assert_eq!(ws.sizes.iter().map(|&s| s as usize).sum::<usize>(), h.len());
                // A cell and its receiver share a basin.
                for (i, &r) in g.receivers.iter().enumerate() {
                    assert_eq!(ws.labels[i], ws.labels[r as usize]);
                }
            }
        }
    }

    #[test]
    fn pour_points_split_nested_catchments_and_small_basins_merge() {
        let h = fill_epsilon(&value_noise(60, 60, 4, 15, 1.0));
        let g = d8_receivers(&h);
        let acc = accumulate_cells(&g);
        // The cell of largest accumulation and a cell upstream of it (its largest donor's donor).
        let big = (0..acc.len()).max_by_key(|&i| (acc[i], std::cmp::Reverse(i))).unwrap_or(0);
        let up = (0..acc.len())
            .filter(|&i| g.receivers[i] as usize != i && g.receivers[g.receivers[i] as usize] as usize == big)
            .max_by_key(|&i| (acc[i], std::cmp::Reverse(i)))
            .unwrap_or(big);
        assert_ne!(up, big);
        let ws = watersheds_at(&g, &[big as u32, up as u32]);
        assert_eq!(ws.sizes[1], acc[up]);
        assert_eq!(ws.sizes[0], acc[big] - acc[up]);
        let none = ws.labels.iter().filter(|&&l| l == NO_BASIN).count();
        assert_eq!(none, h.len() - acc[big] as usize);

        let all = watersheds(&g);
        let merged = watersheds_with(&g, &WatershedParams { min_cells: 10 });
        let kept = all.sizes.iter().filter(|&&s| s >= 10).count();
        let small = all.sizes.iter().filter(|&&s| s < 10).count();
        assert_eq!(merged.count(), kept + usize::from(small > 0));
        assert_eq!(merged.sizes.iter().sum::<u32>() as usize, h.len());
        assert!(merged.labels.iter().all(|&l| (l as usize) < merged.count()));
    }

    #[test]
    fn labels_from_outlets_equal_the_stack_walk() {
        for (seed, fill_first) in [(2u32, true), (9, false)] {
            let dem = noise(83, 57, seed);
            let f = if fill_first { fill_epsilon(&dem) } else { dem };
            let mut g = d8_receivers(&f);
            // Some interior cells made outlets too (as sea cells are).
            for i in (0..g.receivers.len()).step_by(37) {
                g.receivers[i] = i as u32;
            }
            g.stack = super::super::flow_graph::build_stack(&g.receivers);
            let acc = accumulate_cells(&g);
            let out = super::super::flow_graph::outlet_of(&g);
            let a = watersheds_from_outlets(&g.receivers, &out, &acc);
            assert_eq!(a, watersheds(&g), "seed {seed}");
            assert!(a.count() > 100);
        }
    }
}
