//! Peer agreement on real DEMs: bozkir's fill + D8 + accumulation against pysheds 0.5.
//!
//! The peer ran once, in `scripts/peer_hydrology.py`; its outputs are stored under `data/peer/`
//! and this test only reads them (no Python). Conventions, pinned on both sides (the script's
//! docstring says the same):
//!
//! * **DEM**: the stored int16 heights as f64 metres, row 0 north, no nodata.
//! * **Cell size**: geographic 3″ DEMs converted to metres at the window's centre latitude on the
//!   WGS84 ellipsoid; the peer was given that metric affine, so both weigh E/W steps by `dx`, N/S
//!   by `dy` and diagonals by `sqrt(dx² + dy²)` (the cells are not square).
//! * **Edges**: bozkir makes every border cell an outlet; the peer's border directions were set to
//!   0 (outlet) before its accumulation. Only interior cells are compared.
//! * **Filling**: the peer's plain fill (`fill_pits` + `fill_depressions`) must equal ours
//!   ([`fill`]) bit for bit on every cell. Our directions are taken on [`fill_epsilon`]'s surface.
//! * **Flats and ties** (excluded from the direction and accumulation comparison, and counted):
//!   - *flat*: the cell has no strictly lower neighbour in the peer's filled DEM (lakes and flats;
//!     the peer inflates them with `resolve_flats`, we use an ε fill: both valid, not the same);
//!   - *tie*: the two steepest drops are equal within 1e-9 relative (the peer keeps the first in
//!     N, NE, E, … order, we the lowest row-major index);
//!   - *inflation*: the steepest drop goes to a flat cell, and raising that cell by the peer's
//!     largest flat inflation (`flat_raise_max` in the file header) could hand the choice to the
//!     second steepest.
//!
//! Accumulations (exact cell counts) are compared on the same clean cells, in two ways:
//! * raw: ours == peer's. A clean cell downstream of a flat inherits the flat's routing, so
//!   this is below 100% where a flat (a lake with two equal spill cells, a plateau) splits its
//!   cells differently; the figure is printed and must reach `RAW_ACC_MIN`;
//! * pinned (the bar, ≥ 99.9%): on clean cells whose upstream area, under both routings, holds no
//!   cell with differing directions (anchors §1.8: compare directions first, then accumulations
//!   given identical directions). This checks accumulation and the edge convention exactly.

use std::io::Read;

use bozkir_core::Grid;
use bozkir_terrain::hydrology::flow_graph::{accumulate_cells, build_stack, d8_direction_codes, d8_receivers};
use bozkir_terrain::hydrology::priority_flood::{fill, fill_epsilon};

struct PeerFile {
    header: String,
    width: usize,
    height: usize,
    dx: f64,
    dy: f64,
    flat_raise_max: f64,
    body: Vec<u8>,
}

impl PeerFile {
    fn load(name: &str) -> Self {
        let path = format!("{}/../../data/peer/{name}.bin.gz", env!("CARGO_MANIFEST_DIR"));
        let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(&raw[..8], b"BZPEER01", "{path}: wrong magic");
        let hl = u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]) as usize;
        let header = String::from_utf8(raw[12..12 + hl].to_vec()).expect("header is UTF-8");
        let body = raw[12 + hl..].to_vec();
        let num = |k: &str| json_number(&header, k);
        Self {
            width: num("width") as usize,
            height: num("height") as usize,
            dx: num("dx"),
            dy: num("dy"),
            flat_raise_max: num("flat_raise_max"),
            header,
            body,
        }
    }

    /// Bytes of the named array (offset and length from the header's `arrays` list).
    fn array(&self, name: &str) -> &[u8] {
        let at = self.header.find(&format!("\"name\": \"{name}\"")).unwrap_or_else(|| panic!("no array {name}"));
        let rest = &self.header[at..];
        let off = json_number(rest, "offset") as usize;
        let len = json_number(rest, "bytes") as usize;
        &self.body[off..off + len]
    }

    fn i16s(&self, name: &str) -> Vec<i16> {
        self.array(name).chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect()
    }

    fn u32s(&self, name: &str) -> Vec<u32> {
        self.array(name).chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
    }
}

/// The number after the first `"key":` in `s` (enough JSON for our own header).
fn json_number(s: &str, key: &str) -> f64 {
    let pat = format!("\"{key}\":");
    let at = s.find(&pat).unwrap_or_else(|| panic!("header has no {key}")) + pat.len();
    let tail = s[at..].trim_start();
    let end = tail.find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c))).unwrap_or(tail.len());
    tail[..end].parse().unwrap_or_else(|e| panic!("{key}: {e}"))
}

/// Neighbours in ESRI code order with (code, dx, dy).
const NB: [(u8, isize, isize); 8] =
    [(1, 1, 0), (2, 1, 1), (4, 0, 1), (8, -1, 1), (16, -1, 0), (32, -1, -1), (64, 0, -1), (128, 1, -1)];

#[derive(Default, Debug)]
struct Report {
    interior: usize,
    flat: usize,
    tie: usize,
    inflation: usize,
    clean: usize,
    dir_agree: usize,
    acc_agree: usize,
    dir_agree_all: usize,
    /// Clean cells whose upstream areas hold no differing direction, and those whose counts agree.
    pinned: usize,
    pinned_agree: usize,
    /// Clean cells whose counts agree within 1 %.
    acc_within_1pct: usize,
}

/// Minimum raw accumulation agreement on clean cells (see the module docs).
const RAW_ACC_MIN: f64 = 0.95;

/// Receivers from ESRI codes (0 = own receiver).
fn receivers_from_codes(codes: &[u8], w: usize) -> Vec<u32> {
    codes
        .iter()
        .enumerate()
        .map(|(i, &c)| match NB.iter().find(|t| t.0 == c) {
            Some(&(_, ox, oy)) => (i as isize + oy * w as isize + ox) as u32,
            None => i as u32,
        })
        .collect()
}

/// Cells with a cell of differing direction upstream (itself included), under `rcv`.
fn downstream_of(diff: &[bool], rcv: &[u32]) -> Vec<bool> {
    let stack = build_stack(rcv);
    let mut aff = diff.to_vec();
    for &i in stack.iter().rev() {
        let r = rcv[i as usize] as usize;
        if aff[i as usize] {
            aff[r] = true;
        }
    }
    aff
}

fn compare(name: &str) -> Report {
    let p = PeerFile::load(name);
    let (w, h) = (p.width, p.height);
    let dem: Vec<f64> = p.i16s("dem").iter().map(|&v| v as f64).collect();
    let dem = Grid::from_vec(w, h, dem).with_cell_size(p.dx, p.dy);
    let peer_filled: Vec<f64> =
        p.i16s("filled_minus_dem").iter().zip(dem.data()).map(|(&d, &z)| z + d as f64).collect();
    let peer_dir = p.array("dir").to_vec();
    let peer_acc = p.u32s("acc");
    assert_eq!(peer_dir.len(), w * h);
    assert_eq!(peer_acc.len(), w * h);

    // 1. Plain fill: the minimal drained surface is unique, so it must match exactly.
    let ours_filled = fill(&dem);
    let fill_diff = ours_filled.data().iter().zip(&peer_filled).filter(|(a, b)| a != b).count();
    assert_eq!(fill_diff, 0, "{name}: plain fill differs from the peer's on {fill_diff} cells");

    // 2. Ours: ε fill, D8, accumulation.
    let g = d8_receivers(&fill_epsilon(&dem));
    let codes = d8_direction_codes(&g);
    let acc = accumulate_cells(&g);

    // Cells of differing direction, and everything downstream of them under either routing.
    let diff: Vec<bool> = codes.iter().zip(&peer_dir).map(|(a, b)| a != b).collect();
    let aff_ours = downstream_of(&diff, &g.receivers);
    let aff_peer = downstream_of(&diff, &receivers_from_codes(&peer_dir, w));

    // 3. Classify interior cells on the peer's filled DEM.
    let dd = (p.dx * p.dx + p.dy * p.dy).sqrt();
    let dist = |ox: isize, oy: isize| match (ox != 0, oy != 0) {
        (true, true) => dd,
        (true, false) => p.dx,
        _ => p.dy,
    };
    let z = &peer_filled;
    let is_flat = |x: usize, y: usize| -> bool {
        let i = y * w + x;
        !NB.iter().any(|&(_, ox, oy)| z[((y as isize + oy) as usize) * w + (x as isize + ox) as usize] < z[i])
    };
    let mut r = Report::default();
    let mut mismatches = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            r.interior += 1;
            if codes[i] == peer_dir[i] {
                r.dir_agree_all += 1;
            }
            if is_flat(x, y) {
                r.flat += 1;
                continue;
            }
            let mut s: Vec<(f64, u8, bool)> = NB
                .iter()
                .filter_map(|&(code, ox, oy)| {
                    let (nx, ny) = ((x as isize + ox) as usize, (y as isize + oy) as usize);
                    let j = ny * w + nx;
                    (z[j] < z[i]).then(|| {
                        (
                            (z[i] - z[j]) / dist(ox, oy),
                            code,
                            nx > 0 && ny > 0 && nx < w - 1 && ny < h - 1 && is_flat(nx, ny),
                        )
                    })
                })
                .collect();
            s.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (s1, c1, best_flat) = s[0];
            let s2 = s.get(1).map_or(f64::NEG_INFINITY, |t| t.0);
            if s1 - s2 <= 1e-9 * s1 {
                r.tie += 1;
                continue;
            }
            if best_flat {
                let (ox, oy) = NB.iter().find(|t| t.0 == c1).map(|t| (t.1, t.2)).unwrap_or((0, 0));
                if s1 - p.flat_raise_max / dist(ox, oy) <= s2 {
                    r.inflation += 1;
                    continue;
                }
            }
            r.clean += 1;
            if codes[i] == peer_dir[i] {
                r.dir_agree += 1;
            } else if mismatches.len() < 10 {
                mismatches.push((x, y, codes[i], peer_dir[i], c1));
            }
            if acc[i] == peer_acc[i] {
                r.acc_agree += 1;
            }
            if (acc[i] as f64 - peer_acc[i] as f64).abs() <= 0.01 * peer_acc[i] as f64 {
                r.acc_within_1pct += 1;
            }
            if !aff_ours[i] && !aff_peer[i] {
                r.pinned += 1;
                if acc[i] == peer_acc[i] {
                    r.pinned_agree += 1;
                }
            }
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{name}: {w}x{h}, dx {:.3} m, dy {:.3} m; interior {}; excluded: flat {}, tie {}, inflation {}; clean {}",
        p.dx, p.dy, r.interior, r.flat, r.tie, r.inflation, r.clean
    );
    println!(
        "{name}: direction agreement {:.4}% ({}/{}) on clean cells, {:.4}% on all interior cells; \
         first direction mismatches (x, y, ours, peer, expected): {:?}",
        pct(r.dir_agree, r.clean),
        r.dir_agree,
        r.clean,
        pct(r.dir_agree_all, r.interior),
        mismatches
    );
    println!(
        "{name}: accumulation exact on {:.4}% ({}/{}) of clean cells (within 1%: {:.4}%); pinned (no differing \
         direction upstream): {:.4}% ({}/{}); interior cells with a differing direction: {}",
        pct(r.acc_agree, r.clean),
        r.acc_agree,
        r.clean,
        pct(r.acc_within_1pct, r.clean),
        pct(r.pinned_agree, r.pinned),
        r.pinned_agree,
        r.pinned,
        r.interior - r.dir_agree_all,
    );
    assert!(r.clean as f64 >= 0.8 * r.interior as f64, "{name}: too few comparable cells: {r:?}");
    r
}

fn check(name: &str) {
    let r = compare(name);
    let dir = r.dir_agree as f64 / r.clean as f64;
    let pinned = r.pinned_agree as f64 / r.pinned as f64;
    let raw = r.acc_agree as f64 / r.clean as f64;
    assert!(dir >= 0.999, "{name}: direction agreement {dir} < 99.9%: {r:?}");
    assert!(pinned >= 0.999, "{name}: pinned accumulation agreement {pinned} < 99.9%: {r:?}");
    assert!(r.pinned as f64 >= 0.9 * r.clean as f64, "{name}: too few pinned cells: {r:?}");
    assert!(raw >= RAW_ACC_MIN, "{name}: raw accumulation agreement {raw} < {RAW_ACC_MIN}: {r:?}");
}

#[test]
fn hydrology_peer_jacksboro_pysheds() {
    check("jacksboro_pysheds");
}

#[test]
fn hydrology_peer_srtm256_pysheds() {
    check("srtm256_pysheds");
}
