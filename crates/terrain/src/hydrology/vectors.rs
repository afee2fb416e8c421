//! Stream vectors: a D8 channel network cut into polyline segments, and their GeoJSON.
//!
//! A **segment** (a *link* in R. L. Shreve (1966), "Statistical law of stream numbers",
//! *Journal of Geology* 74(1), 17–37) runs from a channel head (a channel cell with no channel
//! donor) or a confluence (a channel cell with two or more channel donors) down the D8
//! receivers to the cell just above the next confluence, or to an outlet or pit. Its polyline
//! ends on the centre of the confluence cell it flows into, so the lines of a network meet.
//! Every channel cell belongs to exactly one segment, and the Strahler order (Strahler 1957,
//! [`super::streams`]) is constant along a segment, since it only changes at confluences.
//!
//! Segment ids are `0, 1, …` in increasing row-major index of the segment's first cell, so the
//! output is deterministic.

use super::flow_graph::FlowGraph;
use super::streams::StreamNetwork;
use super::{check_len, HydroError};

/// One stream segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Segment id: its index in the returned list.
    pub id: usize,
    /// Channel cells of the segment, upstream to downstream (row-major indices).
    pub cells: Vec<u32>,
    /// Polyline vertices as cell centres `(column, row)`: the cells, plus the confluence cell
    /// the segment flows into when there is one.
    pub points: Vec<(f64, f64)>,
    /// Strahler order (0 when the network was built without orders).
    pub order: u8,
    /// Length of the polyline in metres (sum of the D8 step lengths `dx`, `dy` or
    /// `hypot(dx, dy)`).
    pub length_m: f64,
    /// Contributing area at the segment's last cell, in cells.
    pub upstream_cells: u32,
    /// Id of the segment it flows into, `None` at an outlet or pit.
    pub downstream: Option<usize>,
}

/// Cuts the channel network `net` of `g` into segments (see the [module docs](self)). `acc` is
/// the D8 accumulation in cells ([`super::flow_graph::accumulate_cells`]) that `net` was
/// thresholded from.
///
/// # Errors
///
/// [`HydroError::LengthMismatch`] when `acc`, `net.mask` or a non-empty `net.order` does not
/// have one value per cell of `g`.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
/// use bozkir_terrain::hydrology::streams::{stream_network, StreamParams, Threshold};
/// use bozkir_terrain::hydrology::vectors::stream_segments;
///
/// // A valley along column 2 falling south: one segment, order 1, from row 1 to the outlet.
/// let h = Grid::from_fn(5, 6, |x, y| (x as f64 - 2.0).abs() * 3.0 - y as f64).with_cell_size(10.0, 10.0);
/// let g = d8_receivers(&h);
/// let acc = accumulate_cells(&g);
/// let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(3), ..Default::default() });
/// let segs = stream_segments(&g, &net, &acc).unwrap();
/// assert_eq!(segs.len(), 1);
/// assert_eq!((segs[0].order, segs[0].length_m, segs[0].downstream), (1, 40.0, None));
/// assert_eq!(segs[0].points[0], (2.0, 1.0));
/// ```
pub fn stream_segments(g: &FlowGraph, net: &StreamNetwork, acc: &[u32]) -> Result<Vec<Segment>, HydroError> {
    let n = g.receivers.len();
    check_len("stream_segments accumulation", n, acc.len())?;
    check_len("stream_segments mask", n, net.mask.len())?;
    if !net.order.is_empty() {
        check_len("stream_segments order", n, net.order.len())?;
    }
    let w = g.width;
    let mask = &net.mask;
    // Channel donors per channel cell.
    let mut donors = vec![0u32; n];
    for (i, &r) in g.receivers.iter().enumerate() {
        if mask[i] && r as usize != i && mask[r as usize] {
            donors[r as usize] += 1;
        }
    }
    let starts: Vec<usize> = (0..n).filter(|&i| mask[i] && donors[i] != 1).collect();
    let mut seg_of = vec![usize::MAX; n];
    for (id, &s) in starts.iter().enumerate() {
        seg_of[s] = id;
    }
    let centre = |i: usize| ((i % w) as f64, (i / w) as f64);
    let mut segs = Vec::with_capacity(starts.len());
    for (id, &s) in starts.iter().enumerate() {
        let mut cells = vec![s as u32];
        let mut length_m = 0.0;
        let mut i = s;
        let downstream = loop {
            let r = g.receivers[i] as usize;
            if r == i || !mask[r] {
                // An outlet or a pit (a channel never drains off the network, but a hand-made
                // mask might: its last cell ends the segment).
                break None;
            }
            length_m += g.dist[i];
            if donors[r] != 1 {
                break Some(r);
            }
            cells.push(r as u32);
            i = r;
        };
        let last = i;
        let mut points: Vec<(f64, f64)> = cells.iter().map(|&c| centre(c as usize)).collect();
        if let Some(r) = downstream {
            points.push(centre(r));
        }
        segs.push(Segment {
            id,
            cells,
            points,
            order: net.order.get(s).copied().unwrap_or(0),
            length_m,
            upstream_cells: acc[last],
            downstream: downstream.map(|r| seg_of[r]),
        });
    }
    Ok(segs)
}

/// Writes `segments` as a GeoJSON `FeatureCollection` of `LineString`s, one per segment, with
/// properties `segment` (id), `order`, `length_m`, `upstream_cells` and `downstream` (id or
/// `null`). `place` maps a vertex `(column, row)` (cell centres, fractional allowed) to CRS
/// coordinates; with a [`bozkir_core::geo::GeoTransform`] `gt` that is
/// `|c, r| gt.pixel_centre(c, r)`. Numbers are written with Rust's shortest round-trip `f64`
/// formatting; a non-finite coordinate or length is written as `null`.
///
/// # Examples
///
/// ```
/// use bozkir_core::geo::GeoTransform;
/// use bozkir_terrain::hydrology::vectors::{segments_geojson, Segment};
///
/// let s = Segment {
///     id: 0,
///     cells: vec![1, 6],
///     points: vec![(1.0, 0.0), (1.0, 1.0)],
///     order: 1,
///     length_m: 30.0,
///     upstream_cells: 12,
///     downstream: None,
/// };
/// let gt = GeoTransform { x0: 500.0, y0: 900.0, sx: 30.0, sy: 30.0 };
/// let json = segments_geojson(&[s], |c, r| gt.pixel_centre(c, r));
/// assert!(json.contains(r#""coordinates":[[545,885],[545,855]]"#));
/// assert!(json.contains(r#""order":1,"length_m":30,"upstream_cells":12,"downstream":null"#));
/// ```
pub fn segments_geojson(segments: &[Segment], place: impl Fn(f64, f64) -> (f64, f64)) -> String {
    fn num(out: &mut String, v: f64) {
        if v.is_finite() {
            // `{}` on f64 prints the shortest string that reads back to the same value, never
            // with an exponent: a valid JSON number. -0 prints as "-0", also valid.
            out.push_str(&format!("{v}"));
        } else {
            out.push_str("null");
        }
    }
    let mut out = String::from(r#"{"type":"FeatureCollection","features":["#);
    for (k, s) in segments.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(r#"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#);
        for (j, &(c, r)) in s.points.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            let (x, y) = place(c, r);
            out.push('[');
            num(&mut out, x);
            out.push(',');
            num(&mut out, y);
            out.push(']');
        }
        out.push_str(&format!(r#"]}},"properties":{{"segment":{},"order":{},"length_m":"#, s.id, s.order));
        num(&mut out, s.length_m);
        out.push_str(&format!(r#","upstream_cells":{},"downstream":"#, s.upstream_cells));
        match s.downstream {
            Some(d) => out.push_str(&d.to_string()),
            None => out.push_str("null"),
        }
        out.push_str("}}");
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::super::flow_graph::{accumulate_cells, build_stack, d8_receivers};
    use super::super::priority_flood::fill_epsilon;
    use super::super::streams::{stream_network, StreamParams, Threshold};
    use super::super::test_dems::value_noise;
    use super::*;

    /// A Y: two valleys (columns 2 and 8) meet in column 5 at row 6 and run south to the border.
    fn y_dem() -> bozkir_core::Grid<f64> {
        bozkir_core::Grid::from_fn(11, 12, |x, y| {
            let (x, y) = (x as f64, y as f64);
            // Distance to the Y's centreline: arms from (2,0) and (8,0) to (5,6), then the trunk.
            let arm = |x0: f64| {
                let t = (y / 6.0).min(1.0);
                (x - (x0 + (5.0 - x0) * t)).abs()
            };
            let d = if y <= 6.0 { arm(2.0).min(arm(8.0)) } else { (x - 5.0).abs() };
            5.0 * d + 2.0 * (12.0 - y)
        })
        .with_cell_size(10.0, 10.0)
    }

    #[test]
    fn a_y_gives_three_segments_of_orders_1_1_2() {
        // Hand-made Y graph: 9×6 grid, two arms join at cell c and run down to the outlet.
        let w = 9;
        let mut receivers: Vec<u32> = (0..54).collect();
        let mut link = |a: usize, b: usize| receivers[a] = b as u32;
        // Left arm: (2,0)->(2,1)->(3,2); right arm: (6,0)->(6,1)->(5,2); join at (4,3).
        let at = |x: usize, y: usize| y * w + x;
        link(at(2, 0), at(2, 1));
        link(at(2, 1), at(3, 2));
        link(at(3, 2), at(4, 3));
        link(at(6, 0), at(6, 1));
        link(at(6, 1), at(5, 2));
        link(at(5, 2), at(4, 3));
        link(at(4, 3), at(4, 4));
        link(at(4, 4), at(4, 5));
        let stack = build_stack(&receivers);
        let (dx, dy) = (10.0f64, 20.0f64);
        let dist: Vec<f64> = (0..54)
            .map(|i| {
                let r = receivers[i] as usize;
                match (r as isize - i as isize).abs() {
                    0 => 0.0,
                    1 => dx,
                    9 => dy,
                    _ => dx.hypot(dy),
                }
            })
            .collect();
        let g = FlowGraph { width: w, height: 6, receivers: receivers.clone(), dist, stack };
        let acc = accumulate_cells(&g);
        let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(1), ..Default::default() });
        // Threshold 1 makes every cell a channel; keep only the Y's cells.
        let ycells = [at(2, 0), at(2, 1), at(3, 2), at(6, 0), at(6, 1), at(5, 2), at(4, 3), at(4, 4), at(4, 5)];
        let mut net = net;
        for i in 0..54 {
            if !ycells.contains(&i) {
                net.mask[i] = false;
                net.order[i] = 0;
            }
        }
        let segs = stream_segments(&g, &net, &acc).unwrap();
        // Lone cells of the mask-off grid are not channels; only the Y remains.
        assert_eq!(segs.len(), 3);
        let orders: Vec<u8> = segs.iter().map(|s| s.order).collect();
        assert_eq!(orders, vec![1, 1, 2]);
        assert_eq!(segs[0].cells, vec![at(2, 0) as u32, at(2, 1) as u32, at(3, 2) as u32]);
        assert_eq!(segs[0].points.last(), Some(&(4.0, 3.0)));
        assert_eq!(segs[0].downstream, Some(2));
        assert_eq!(segs[1].downstream, Some(2));
        assert_eq!(segs[2].downstream, None);
        assert_eq!(segs[2].cells, vec![at(4, 3) as u32, at(4, 4) as u32, at(4, 5) as u32]);
        let diag = dx.hypot(dy);
        assert!((segs[0].length_m - (dy + 2.0 * diag)).abs() < 1e-12);
        assert!((segs[2].length_m - 2.0 * dy).abs() < 1e-12);
        assert_eq!(segs[2].upstream_cells, acc[at(4, 5)]);
        assert_eq!(segs[0].upstream_cells, 3);
        let json = segments_geojson(&segs, |c, r| (c * dx, -r * dy));
        assert_eq!(json.matches(r#""type":"Feature""#).count(), 3);
        assert!(json.contains(r#""coordinates":[[40,-60],[40,-80],[40,-100]]},"properties":{"segment":2,"order":2"#));
        assert!(json.contains(r#""downstream":2}"#));
    }

    #[test]
    fn a_y_shaped_dem_routes_to_one_confluence() {
        let h = fill_epsilon(&y_dem());
        let g = d8_receivers(&h);
        let acc = accumulate_cells(&g);
        let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(6), ..Default::default() });
        let segs = stream_segments(&g, &net, &acc).unwrap();
        let mut orders: Vec<u8> = segs.iter().map(|s| s.order).collect();
        orders.sort();
        assert_eq!(orders, vec![1, 1, 2], "{segs:?}");
    }

    #[test]
    fn segments_partition_the_network() {
        let h = fill_epsilon(&value_noise(80, 60, 5, 15, 2.0)).with_cell_size(30.0, 30.0);
        let g = d8_receivers(&h);
        let acc = accumulate_cells(&g);
        let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(30), ..Default::default() });
        let segs = stream_segments(&g, &net, &acc).unwrap();
        let mut seen = vec![0u8; h.len()];
        for s in &segs {
            for &c in &s.cells {
                seen[c as usize] += 1;
                assert_eq!(net.order[c as usize], s.order, "order changes inside a segment");
            }
            let steps: f64 = s.cells.iter().map(|&c| g.dist[c as usize]).sum();
            assert!((s.length_m - steps).abs() < 1e-9 || s.downstream.is_none());
            if let Some(d) = s.downstream {
                assert!(net.order[segs[d].cells[0] as usize] >= s.order);
                assert_eq!(segs[d].points[0], *s.points.last().unwrap());
            }
        }
        for (i, (&s, &m)) in seen.iter().zip(&net.mask).enumerate() {
            assert_eq!(s, u8::from(m), "cell {i}");
        }
        // Valid JSON shape: balanced brackets, no NaN.
        let json = segments_geojson(&segs, |c, r| (c, r));
        assert_eq!(json.matches('[').count(), json.matches(']').count());
        assert!(!json.contains("NaN") && !json.contains("inf"));
        assert!(matches!(stream_segments(&g, &net, &acc[..5]), Err(HydroError::LengthMismatch { .. })));
    }
}
