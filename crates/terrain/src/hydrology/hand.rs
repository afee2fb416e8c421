//! HAND: height above the nearest drainage.
//!
//! Source: A. D. Rennó, A. D. Nobre, L. A. Cuartas, J. V. Soares, M. G. Hodnett, J. Tomasella,
//! M. J. Waterloo (2008), "HAND, a new terrain descriptor using SRTM-DEM: Mapping terra-firme
//! rainforest environments in Amazonia", *Remote Sensing of Environment* 112(9), 3469–3481; and
//! A. D. Nobre et al. (2011), "Height Above the Nearest Drainage – a hydrologically relevant new
//! terrain model", *Journal of Hydrology* 404(1–2), 13–29.
//!
//! The *nearest drainage* of a cell is the first channel cell met by following its D8 receivers
//! downstream, the cell itself included (a channel cell is its own drainage, HAND 0). HAND is
//! the cell's height minus its drainage's height. A cell whose path reaches an outlet or a pit
//! without crossing a channel has no drainage: its HAND is NaN. The drainages are propagated
//! down the flow graph's stack (receivers before donors), O(N), as pysheds' `compute_hand` with
//! D8 routing.
//!
//! The heights are the caller's: pass the surface the graph was routed on (a filled DEM) to get
//! HAND ≥ 0 everywhere; with the raw DEM, cells at the bottom of a filled depression can be
//! below their drainage (negative HAND).

use super::flow_graph::FlowGraph;
use super::{check_len, HydroError};
use bozkir_core::Grid;

/// Value of [`nearest_drainage`] for a cell whose D8 path meets no channel cell.
pub const NO_DRAINAGE: u32 = u32::MAX;

/// Index of each cell's nearest drainage (the first channel cell on its D8 path, itself
/// included), or [`NO_DRAINAGE`].
///
/// # Errors
///
/// [`HydroError::LengthMismatch`] when `streams` does not have one value per cell of `g`.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::flow_graph::d8_receivers;
/// use bozkir_terrain::hydrology::hand::{nearest_drainage, NO_DRAINAGE};
///
/// // A 5×3 slope falling east; the channel is column 3 of the middle row.
/// let h = Grid::from_fn(5, 3, |x, _| -(x as f64));
/// let g = d8_receivers(&h);
/// let mut streams = vec![false; 15];
/// streams[8] = true;
/// let d = nearest_drainage(&g, &streams).unwrap();
/// assert_eq!(&d[5..10], &[NO_DRAINAGE, 8, 8, 8, NO_DRAINAGE]);
/// ```
pub fn nearest_drainage(g: &FlowGraph, streams: &[bool]) -> Result<Vec<u32>, HydroError> {
    let n = g.receivers.len();
    check_len("nearest_drainage streams", n, streams.len())?;
    check_len("nearest_drainage stack", n, g.stack.len())?;
    let mut out = vec![NO_DRAINAGE; n];
    for &i in &g.stack {
        let i = i as usize;
        out[i] = if streams[i] {
            i as u32
        } else {
            let r = g.receivers[i] as usize;
            if r == i {
                NO_DRAINAGE
            } else {
                out[r]
            }
        };
    }
    Ok(out)
}

/// Height above the nearest drainage: `h[i] − h[drainage(i)]`, NaN where a cell reaches no
/// channel (see the [module docs](self)). `g` is the D8 graph of (usually) `h`'s filled surface
/// and `streams` its channel mask (e.g. [`super::streams::StreamNetwork::mask`]). The result has
/// the shape and cell size of `h`.
///
/// # Errors
///
/// [`HydroError::ShapeMismatch`] when `h` and `g` differ in shape,
/// [`HydroError::LengthMismatch`] when `streams` does not have one value per cell.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_terrain::hydrology::flow_graph::d8_receivers;
/// use bozkir_terrain::hydrology::hand::hand;
///
/// // A V-valley along column 3 falling south; its floor cells are the channel.
/// let h = Grid::from_fn(7, 6, |x, y| 2.0 * (x as f64 - 3.0).abs() - 0.1 * y as f64);
/// let g = d8_receivers(&h);
/// let streams: Vec<bool> = (0..42).map(|i| i % 7 == 3).collect();
/// let hd = hand(&h, &g, &streams).unwrap();
/// assert_eq!(*hd.get(3, 2), 0.0);
/// assert!((hd.get(1, 2) - 4.0).abs() < 1e-12); // two cells out, 2 m per cell
/// ```
pub fn hand(h: &Grid<f64>, g: &FlowGraph, streams: &[bool]) -> Result<Grid<f64>, HydroError> {
    if h.width() != g.width || h.height() != g.height {
        return Err(HydroError::ShapeMismatch {
            what: "hand heights vs flow graph",
            w: g.width,
            h: g.height,
            got_w: h.width(),
            got_h: h.height(),
        });
    }
    let d = nearest_drainage(g, streams)?;
    let z = h.data();
    let out: Vec<f64> =
        d.iter().zip(z).map(|(&k, &zi)| if k == NO_DRAINAGE { f64::NAN } else { zi - z[k as usize] }).collect();
    Ok(Grid::from_vec(h.width(), h.height(), out).with_cell_size(h.dx, h.dy))
}

#[cfg(test)]
mod tests {
    use super::super::flow_graph::{accumulate_cells, d8_receivers};
    use super::super::priority_flood::fill_epsilon;
    use super::super::streams::{stream_network, StreamParams, Threshold};
    use super::super::test_dems::value_noise;
    use super::*;

    #[test]
    fn v_valley_hand_is_the_analytic_height_above_the_channel() {
        // Valley floor along column c falling south at 0.02 m/m; side slopes 0.3 m/m across 10 m
        // × 12 m cells. The side slopes are so much steeper than the floor that every side cell
        // drains straight across (W or E) to the floor cell of its own row, so HAND is exactly
        // the cross-valley rise 0.3·|x − c|·dx.
        let (w, ht, c) = (21, 15, 10usize);
        let (dx, dy) = (10.0, 12.0);
        let h = Grid::from_fn(w, ht, |x, y| 300.0 + 0.3 * (x as f64 - c as f64).abs() * dx - 0.02 * y as f64 * dy)
            .with_cell_size(dx, dy);
        let g = d8_receivers(&h);
        let acc = accumulate_cells(&g);
        let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(15), ..Default::default() });
        // The channel is the floor: a side cell collects at most 9 cells, a floor cell 19 or more.
        assert!((1..ht).all(|y| net.mask[y * w + c]));
        assert!((0..w * ht).all(|i| !net.mask[i] || i % w == c));
        let hd = hand(&h, &g, &net.mask).unwrap();
        for y in 1..ht - 1 {
            for x in 1..w - 1 {
                let want = 0.3 * (x as f64 - c as f64).abs() * dx;
                assert!((hd.get(x, y) - want).abs() < 1e-9, "({x},{y}) {} vs {want}", hd.get(x, y));
            }
        }
        // Border cells are outlets: off the channel they reach no drainage.
        assert!(hd.get(0, 5).is_nan() && hd.get(w - 1, 5).is_nan());
        assert_eq!((hd.dx, hd.dy), (dx, dy));
    }

    #[test]
    fn drainage_is_the_first_channel_downstream() {
        let h = fill_epsilon(&value_noise(60, 45, 7, 12, 2.0));
        let g = d8_receivers(&h);
        let acc = accumulate_cells(&g);
        let net = stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(40), ..Default::default() });
        let d = nearest_drainage(&g, &net.mask).unwrap();
        let hd = hand(&h, &g, &net.mask).unwrap();
        for (i, &di) in d.iter().enumerate() {
            // Walk down by hand.
            let mut j = i;
            let want = loop {
                if net.mask[j] {
                    break j as u32;
                }
                let r = g.receivers[j] as usize;
                if r == j {
                    break NO_DRAINAGE;
                }
                j = r;
            };
            assert_eq!(di, want);
            if want == NO_DRAINAGE {
                assert!(hd.data()[i].is_nan());
            } else {
                assert!(hd.data()[i] >= 0.0, "filled surface: HAND ≥ 0");
                assert_eq!(hd.data()[i], h.data()[i] - h.data()[want as usize]);
            }
        }
        assert!(matches!(hand(&h, &g, &[true]), Err(HydroError::LengthMismatch { .. })));
        let other = Grid::new(3, 3, 0.0);
        assert!(matches!(hand(&other, &g, &net.mask), Err(HydroError::ShapeMismatch { .. })));
    }
}
