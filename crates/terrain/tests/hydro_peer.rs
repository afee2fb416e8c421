//! Peer agreement of D∞, MFD, HAND and TWI on a real DEM: bozkir against pysheds 0.5 (and
//! whitebox-workflows 2.0.6 for the TWI formula).
//!
//! The peers ran once in `/work/scratch/hydro` (see `tests/golden/hydro/README.md` for the
//! commands); their outputs are the `.npy` files under `tests/golden/hydro/`, and this test only
//! reads them. The input is an 80×80 window of `data/dem/srtm_ref.tif` (int16, stored here as
//! `dem.npy`); both sides work on *our* ε-filled surface ([`fill_epsilon`]), handed to the peers
//! as f64, so the comparison is of the routing alone. Border cells are outlets on both sides.
//!
//! Agreement measured when the goldens were made, and the bars pinned here:
//!
//! | product | cells | measured | bar |
//! |---|---|---|---|
//! | D∞ angle, metric 71.5 × 92.5 m cells | 6084 interior, all defined on both sides | ≤ 8.9e-16 rad | 1e-12 rad |
//! | D∞ accumulation, 80 m square cells | all 6400 | ≤ 1.7e-14 relative | 1e-12 |
//! | MFD accumulation, p = 1, no contour weights, metric cells | all 6400 | ≤ 1.1e-15 relative (f64) | 1e-6 (golden stored as f32) |
//! | HAND: nearest-drainage index over our D8 and streams (≥ 60 cells) | all 6400 (1377 reach no channel) | identical | identical |
//! | TWI, 80 m square cells | all 6400 | ≤ 1.6e-14 (f64) | 1e-5 (golden stored as f32) |
//!
//! D∞ *accumulation* is compared on square cells only: pysheds splits a D∞ angle between the
//! two neighbours of its π/4 sector whatever the cell shape, while bozkir uses the neighbours'
//! true bearings (`atan2(dy, dx)` for a diagonal); on the metric 71.5 × 92.5 m cells only 7.8 %
//! of the cells agree within 1e-9, as expected. pysheds' MFD is `(Δh)^p / d` with `p = 1`
//! fixed, which equals Freeman's `(Δh / d)^p` at `p = 1` only; the test checks that bozkir's
//! default `p = 1.1` does *not* match, so the comparison can tell the exponent apart.

use bozkir_core::Grid;
use bozkir_terrain::hydrology::dinf::{dinf_accumulation, dinf_directions};
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, d8_receivers};
use bozkir_terrain::hydrology::hand::{hand, nearest_drainage, NO_DRAINAGE};
use bozkir_terrain::hydrology::mfd::{mfd_accumulation, MfdParams};
use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
use bozkir_terrain::hydrology::streams::{stream_network, StreamParams, Threshold};
use bozkir_terrain::hydrology::twi::twi;

/// Metric cell size of the window (3″ at its centre latitude 39.633° N on WGS84), exactly as
/// handed to pysheds.
const DX: f64 = 71.54070309572577;
const DY: f64 = 92.52299563142005;
/// The square cell size of the D∞-accumulation and TWI comparisons.
const SQ: f64 = 80.0;
/// Channel threshold (cells) of the HAND comparison.
const STREAM_CELLS: u32 = 60;

/// A little-endian `.npy` (v1) file: its dtype string, shape and raw data.
struct Npy {
    descr: String,
    shape: (usize, usize),
    data: Vec<u8>,
}

fn npy(name: &str) -> Npy {
    let path = format!("{}/tests/golden/hydro/{name}.npy", env!("CARGO_MANIFEST_DIR"));
    let b = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(&b[..6], b"\x93NUMPY", "{path}: not an npy file");
    let hl = u16::from_le_bytes([b[8], b[9]]) as usize;
    let h = std::str::from_utf8(&b[10..10 + hl]).expect("header is ASCII");
    assert!(h.contains("'fortran_order': False"), "{path}: {h}");
    let at = h.find("'descr': '").expect("descr") + 10;
    let descr = h[at..at + h[at..].find('\'').unwrap()].to_string();
    let s = &h[h.find('(').unwrap() + 1..h.find(')').unwrap()];
    let dims: Vec<usize> = s.split(',').filter(|t| !t.trim().is_empty()).map(|t| t.trim().parse().unwrap()).collect();
    Npy { descr, shape: (dims[0], dims[1]), data: b[10 + hl..].to_vec() }
}

impl Npy {
    fn f64s(&self) -> Vec<f64> {
        match self.descr.as_str() {
            "<f8" => self.data.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
            "<f4" => self.data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
            "<i2" => self.data.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as f64).collect(),
            d => panic!("dtype {d}"),
        }
    }
    fn i32s(&self) -> Vec<i32> {
        assert_eq!(self.descr, "<i4");
        self.data.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

/// Our ε-filled surface of the stored window.
fn filled() -> Grid<f64> {
    let d = npy("dem");
    assert_eq!((d.descr.as_str(), d.shape), ("<i2", (80, 80)));
    fill_epsilon(&Grid::from_vec(80, 80, d.f64s()))
}

/// `max` that keeps a NaN (so that a NaN difference fails the bar instead of vanishing).
fn nan_max(m: f64, d: f64) -> f64 {
    if m.is_nan() || d.is_nan() {
        f64::NAN
    } else {
        m.max(d)
    }
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn dinf_angles_match_pysheds_on_non_square_cells() {
    let f = filled().with_cell_size(DX, DY);
    let ours = dinf_directions(&f).unwrap();
    let peer = npy("dinf_angle").f64s();
    let mut worst = 0.0f64;
    let mut defined = 0;
    for (i, (&o, &p)) in ours.data().iter().zip(&peer).enumerate() {
        // The peer writes NaN on the border (nodata), -1 on flats, -2 on pits.
        let pd = p.is_finite() && p >= 0.0;
        assert_eq!(o >= 0.0, pd, "cell {i}: ours {o}, pysheds {p}");
        if pd {
            defined += 1;
            let d = (o - p).abs();
            worst = worst.max(d.min(2.0 * std::f64::consts::PI - d));
        }
    }
    println!("D∞ angles: {defined} cells defined on both sides, max |Δ| = {worst:e} rad");
    assert_eq!(defined, 78 * 78, "every interior cell of the ε-filled window drains");
    assert!(worst <= 1e-12, "max |Δ| = {worst:e} rad");
}

#[test]
fn dinf_accumulation_matches_pysheds_on_square_cells() {
    let f = filled().with_cell_size(SQ, SQ);
    let acc = dinf_accumulation(&dinf_directions(&f).unwrap(), None).unwrap();
    let peer = npy("dinf_acc_square").f64s();
    let worst = acc.data().iter().zip(&peer).map(|(&o, &p)| rel(o, p)).fold(0.0, nan_max);
    println!("D∞ accumulation: max relative Δ = {worst:e} over {} cells", peer.len());
    assert!(worst <= 1e-12, "max relative Δ = {worst:e}");
    // The largest catchment holds a good part of the window (the comparison is not trivial).
    assert!(peer.iter().cloned().fold(0.0, f64::max) > 1000.0);
}

#[test]
fn mfd_accumulation_matches_pysheds_at_p_1() {
    let f = filled().with_cell_size(DX, DY);
    let peer = npy("mfd_acc").f64s();
    let p1 = mfd_accumulation(&f, &MfdParams { exponent: 1.0, contour_weights: false }, None).unwrap();
    let worst = p1.data().iter().zip(&peer).map(|(&o, &p)| rel(o, p)).fold(0.0, nan_max);
    println!("MFD p = 1: max relative Δ = {worst:e} (golden in f32)");
    assert!(worst <= 1e-6, "max relative Δ = {worst:e}");
    // Freeman's default exponent and Quinn's contour weights both route differently: the
    // comparison tells them apart.
    for params in [MfdParams::default(), MfdParams::quinn()] {
        let other = mfd_accumulation(&f, &params, None).unwrap();
        let off = other.data().iter().zip(&peer).filter(|(&o, &p)| rel(o, p) > 1e-6).count();
        assert!(off > 1000, "{params:?} matches the p = 1 golden on all but {off} cells");
    }
}

#[test]
fn hand_matches_pysheds_on_every_cell() {
    let f = filled().with_cell_size(DX, DY);
    let g = d8_receivers(&f);
    let acc = accumulate_cells(&g);
    let net =
        stream_network(&g, &acc, &StreamParams { threshold: Threshold::Cells(STREAM_CELLS), ..Default::default() });
    let peer = npy("hand_index").i32s();
    let ours = nearest_drainage(&g, &net.mask).unwrap();
    let hd = hand(&f, &g, &net.mask).unwrap();
    let mut none = 0;
    for (i, (&o, &p)) in ours.iter().zip(&peer).enumerate() {
        if p < 0 {
            none += 1;
            assert_eq!(o, NO_DRAINAGE, "cell {i}");
            assert!(hd.data()[i].is_nan());
        } else {
            assert_eq!(o, p as u32, "cell {i}");
            assert_eq!(hd.data()[i], f.data()[i] - f.data()[p as usize]);
        }
    }
    println!("HAND: {} cells identical, {none} reach no channel", peer.len());
    assert!(none > 0 && none < peer.len() / 2);
}

#[test]
fn twi_matches_whitebox_on_pysheds_area() {
    let f = filled().with_cell_size(SQ, SQ);
    let acc = dinf_accumulation(&dinf_directions(&f).unwrap(), None).unwrap();
    let t = twi(acc.data(), &f, 0.0).unwrap();
    let peer = npy("twi_square").f64s();
    let worst = t.data().iter().zip(&peer).map(|(&o, &p)| (o - p).abs()).fold(0.0, nan_max);
    println!("TWI: max |Δ| = {worst:e} (golden in f32)");
    assert!(worst <= 1e-5, "max |Δ| = {worst:e}");
}
