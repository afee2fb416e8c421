//! Wang tiles over edge colours (Cohen, Shade, Hiller and Deussen, "Wang Tiles for Image and
//! Texture Generation", SIGGRAPH 2003).
//!
//! A tile carries four edge colours, `(n, e, s, w)`. Horizontal edges (north, south) take their
//! colour from one family of `h` colours (the original's `h_patches`), vertical edges (east, west)
//! from another family of `v` colours (`v_patches`). Two tiles may sit side by side when the left
//! one's east colour equals the right one's west colour, and one above another when the lower
//! one's north colour equals the upper one's south colour.
//!
//! * [`Code`] — one tile's four colours; [`Colours`] — the two family sizes, with the compact
//!   integer [`Colours::encode`] / [`Colours::decode`] (`((n·v + e)·h + s)·v + w`, which is the
//!   position of the code in the complete set's `n, e, s, w` nested order).
//! * [`WangSet::complete`] — every one of the `h²·v²` codes; [`WangSet::minimal`] — Cohen et al.'s
//!   minimal set of `2·h·v` tiles with **exactly two tiles per (west, south) pair**, the
//!   original's convention (`bozkir/wang.py: minimal_codes`), so the scanline layout below always
//!   has two choices at every cell.
//! * [`WangSet::layout`] — a scanline layout on a `W×H` grid, deterministic per seed: cell
//!   `(x, y)` with `y` growing **northward** (row 0 is the southern row, as the viewer's `j`).
//!   Its west colour is fixed by the left neighbour's east colour, its south colour by the lower
//!   neighbour's north colour, and it is chosen uniformly among the fitting codes with the
//!   canonical counter-based hash `hash_u32(x, y, seed)` — so any cell's choice can be recomputed
//!   from its constraint alone. (The original drew from numpy's `default_rng(seed)` and the
//!   viewer from an LCG; neither stream is reproduced.)
//! * Classes: every class is built over the *same* code set, so a code exists once per class.
//!   [`WangSet::layout_with_classes`] lets the neighbour constraint pick the code and the wanted
//!   class (from the material rule) pick which of that code's tiles is drawn; the code layout is
//!   identical to the unclassed one, and a cell can never be forced out of its wanted class.
//! * [`mismatches`] counts shared edges whose colours differ (0 for every layout made here).
//! * [`triangle`] — the four-triangle construction: the tile is cut by both diagonals, and the
//!   triangle touching edge `X` is filled from the source patch of `X`'s colour
//!   ([`Code::source`]). [`triangle_weights`] is the feathered version (`region_weights`).

use bozkir_core::hash::hash_u32;
use std::fmt;

/// The most colours one edge family may have (codes then still fit in 16 bits).
pub const MAX_COLOURS: u8 = 16;

/// One side of a tile, in the original's order `N, E, S, W` (labels 0..3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    North = 0,
    East = 1,
    South = 2,
    West = 3,
}

impl Side {
    /// All four sides in label order.
    pub const ALL: [Side; 4] = [Side::North, Side::East, Side::South, Side::West];

    /// The label 0..3 (`N, E, S, W`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side with label `i` (taken modulo 4).
    pub const fn from_index(i: usize) -> Side {
        Side::ALL[i % 4]
    }

    /// The colour family of this edge: north/south edges are horizontal, east/west vertical.
    pub const fn axis(self) -> Axis {
        match self {
            Side::North | Side::South => Axis::Horizontal,
            Side::East | Side::West => Axis::Vertical,
        }
    }

    /// The side a quarter turn clockwise (seen from above): N → E → S → W → N.
    pub const fn clockwise(self) -> Side {
        Side::from_index(self as usize + 1)
    }

    /// The facing side: N ↔ S, E ↔ W.
    pub const fn opposite(self) -> Side {
        Side::from_index(self as usize + 2)
    }
}

/// Edge colour family: horizontal edges (north, south) or vertical edges (east, west).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    Horizontal,
    Vertical,
}

/// Errors of this module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WangError {
    /// A colour count outside `1..=MAX_COLOURS` (or below 2 for the minimal set).
    Colours { h: u8, v: u8, min: u8 },
    /// A code whose colours are out of range for the set's [`Colours`].
    OutOfRange(Code),
    /// The same code given twice.
    Duplicate(Code),
    /// An empty code list.
    Empty,
    /// No code of the set fits cell `(x, y)`'s west and south constraints.
    NoFit { x: usize, y: usize, west: u8, south: u8 },
    /// The per-cell class slice does not have `width·height` entries.
    ClassCount { expected: usize, got: usize },
}

impl fmt::Display for WangError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WangError::Colours { h, v, min } => {
                write!(f, "colour counts h={h}, v={v} must lie in {min}..={MAX_COLOURS}")
            }
            WangError::OutOfRange(c) => write!(f, "code {c} has a colour out of range"),
            WangError::Duplicate(c) => write!(f, "code {c} given twice"),
            WangError::Empty => write!(f, "empty code set"),
            WangError::NoFit { x, y, west, south } => {
                write!(f, "no tile fits cell ({x}, {y}) with west {west} and south {south}")
            }
            WangError::ClassCount { expected, got } => {
                write!(f, "per-cell classes: expected {expected} entries, got {got}")
            }
        }
    }
}

impl std::error::Error for WangError {}

/// One tile's four edge colours. `n`, `s` are horizontal-family colours, `e`, `w` vertical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Code {
    pub n: u8,
    pub e: u8,
    pub s: u8,
    pub w: u8,
}

impl Code {
    /// The code `(n, e, s, w)`.
    pub const fn new(n: u8, e: u8, s: u8, w: u8) -> Code {
        Code { n, e, s, w }
    }

    /// The colour on `side`.
    pub const fn colour(self, side: Side) -> u8 {
        match side {
            Side::North => self.n,
            Side::East => self.e,
            Side::South => self.s,
            Side::West => self.w,
        }
    }

    /// Where the tile's point `(u, v)` (unit square, `u` east, `v` north) is drawn from: the
    /// triangle it lies in ([`triangle`]), hence that edge's family and colour — the source
    /// patch is `patches[family][colour]`.
    pub fn source(self, u: f64, v: f64) -> EdgeSource {
        let side = triangle(u, v);
        EdgeSource { side, axis: side.axis(), colour: self.colour(side) }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(n{}, e{}, s{}, w{})", self.n, self.e, self.s, self.w)
    }
}

/// The patch a point of a tile is drawn from (see [`Code::source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EdgeSource {
    /// The triangle (and edge) the point belongs to.
    pub side: Side,
    /// The colour family of that edge.
    pub axis: Axis,
    /// The edge's colour within its family.
    pub colour: u8,
}

/// Colour counts of the two edge families: `h` for north/south edges, `v` for east/west edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Colours {
    h: u8,
    v: u8,
}

impl Colours {
    /// `h` horizontal-edge colours and `v` vertical-edge colours, each in `1..=MAX_COLOURS`.
    pub fn new(h: u8, v: u8) -> Result<Colours, WangError> {
        if !(1..=MAX_COLOURS).contains(&h) || !(1..=MAX_COLOURS).contains(&v) {
            return Err(WangError::Colours { h, v, min: 1 });
        }
        Ok(Colours { h, v })
    }

    /// `k` colours in both families (the exporter's `--colours k`).
    pub fn square(k: u8) -> Result<Colours, WangError> {
        Colours::new(k, k)
    }

    /// Colours of the horizontal (north/south) family.
    pub const fn h(self) -> u8 {
        self.h
    }

    /// Colours of the vertical (east/west) family.
    pub const fn v(self) -> u8 {
        self.v
    }

    /// Colours of `axis`'s family.
    pub const fn of(self, axis: Axis) -> u8 {
        match axis {
            Axis::Horizontal => self.h,
            Axis::Vertical => self.v,
        }
    }

    /// Size of the complete set, `h²·v²`; also the range of [`Colours::encode`].
    pub const fn complete_len(self) -> usize {
        let (h, v) = (self.h as usize, self.v as usize);
        h * h * v * v
    }

    /// Whether every colour of `c` is in range.
    pub const fn contains(self, c: Code) -> bool {
        c.n < self.h && c.s < self.h && c.e < self.v && c.w < self.v
    }

    /// The compact integer of `c`: `((n·v + e)·h + s)·v + w`, in `0..complete_len()`.
    /// The complete set in `n, e, s, w` nested order is `decode(0), decode(1), …`.
    /// `c` must be in range ([`Colours::contains`]); out-of-range colours give a meaningless id.
    pub const fn encode(self, c: Code) -> u32 {
        let (h, v) = (self.h as u32, self.v as u32);
        ((c.n as u32 * v + c.e as u32) * h + c.s as u32) * v + c.w as u32
    }

    /// The code of a compact integer (`id` is taken modulo `complete_len()`).
    pub const fn decode(self, id: u32) -> Code {
        let (h, v) = (self.h as u32, self.v as u32);
        let w = id % v;
        let r = id / v;
        let s = r % h;
        let r = r / h;
        let e = r % v;
        let n = (r / v) % h;
        Code { n: n as u8, e: e as u8, s: s as u8, w: w as u8 }
    }
}

/// The complete set: all `h²·v²` codes in `n, e, s, w` nested order (`n` slowest).
pub fn complete_codes(c: Colours) -> Vec<Code> {
    (0..c.complete_len() as u32).map(|id| c.decode(id)).collect()
}

/// Cohen et al.'s minimal set, `2·h·v` codes, in the original's order (`minimal_codes`):
/// for `w` in `0..v`, `s` in `0..h`, `extra` in `{0, 1}`: `n = (w + s + extra) mod h`,
/// `e = (2w + s + 2·extra) mod v`; should the second tile repeat the first's `(n, e)`, its `e`
/// is advanced by one (this cannot happen for `h ≥ 2`, kept for fidelity).
/// Exactly two codes per (west, south) pair; for `h = v` every colour appears equally often on
/// every side. Needs `h, v ≥ 2`.
pub fn minimal_codes(c: Colours) -> Result<Vec<Code>, WangError> {
    if c.h < 2 || c.v < 2 {
        return Err(WangError::Colours { h: c.h, v: c.v, min: 2 });
    }
    let (h, v) = (c.h as usize, c.v as usize);
    let mut out = Vec::with_capacity(2 * h * v);
    for w in 0..v {
        for s in 0..h {
            let mut first = (0usize, 0usize);
            for extra in 0..2 {
                let n = (w + s + extra) % h;
                let mut e = (2 * w + s + 2 * extra) % v;
                if extra == 0 {
                    first = (n, e);
                } else if (n, e) == first {
                    e = (e + 1) % v;
                }
                out.push(Code::new(n as u8, e as u8, s as u8, w as u8));
            }
        }
    }
    Ok(out)
}

/// A Wang tile code set with its lookup tables for layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WangSet {
    colours: Colours,
    codes: Vec<Code>,
    /// Code indices fitting (west, south), at `w·h + s`.
    by_ws: Vec<Vec<u32>>,
    /// Code indices by west colour (south free: the bottom row).
    by_w: Vec<Vec<u32>>,
    /// Code indices by south colour (west free: the left column).
    by_s: Vec<Vec<u32>>,
    /// All code indices (the first cell).
    all: Vec<u32>,
}

impl WangSet {
    /// A set over the given codes (order kept: it is the tile order of an exported tileset).
    pub fn from_codes(colours: Colours, codes: Vec<Code>) -> Result<WangSet, WangError> {
        if codes.is_empty() {
            return Err(WangError::Empty);
        }
        let mut seen = vec![false; colours.complete_len()];
        let (h, v) = (colours.h as usize, colours.v as usize);
        let mut by_ws = vec![Vec::new(); v * h];
        let mut by_w = vec![Vec::new(); v];
        let mut by_s = vec![Vec::new(); h];
        for (i, &c) in codes.iter().enumerate() {
            if !colours.contains(c) {
                return Err(WangError::OutOfRange(c));
            }
            let id = colours.encode(c) as usize;
            if seen[id] {
                return Err(WangError::Duplicate(c));
            }
            seen[id] = true;
            by_ws[c.w as usize * h + c.s as usize].push(i as u32);
            by_w[c.w as usize].push(i as u32);
            by_s[c.s as usize].push(i as u32);
        }
        let all = (0..codes.len() as u32).collect();
        Ok(WangSet { colours, codes, by_ws, by_w, by_s, all })
    }

    /// The complete set ([`complete_codes`]).
    pub fn complete(colours: Colours) -> WangSet {
        WangSet::from_codes(colours, complete_codes(colours)).expect("complete set is valid")
    }

    /// The minimal set ([`minimal_codes`]); needs two or more colours per family.
    pub fn minimal(colours: Colours) -> Result<WangSet, WangError> {
        WangSet::from_codes(colours, minimal_codes(colours)?)
    }

    /// The colour counts.
    pub fn colours(&self) -> Colours {
        self.colours
    }

    /// The codes, in tile order.
    pub fn codes(&self) -> &[Code] {
        &self.codes
    }

    /// Number of codes (tiles per class).
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Never true for a constructed set; present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Position of `c` in the set, if present.
    pub fn index_of(&self, c: Code) -> Option<usize> {
        if !self.colours.contains(c) {
            return None;
        }
        self.by_ws[c.w as usize * self.colours.h as usize + c.s as usize]
            .iter()
            .map(|&i| i as usize)
            .find(|&i| self.codes[i] == c)
    }

    /// Indices of the codes fitting a west and/or south constraint (`None` = free), in set order.
    pub fn fitting(&self, west: Option<u8>, south: Option<u8>) -> &[u32] {
        const NONE: &[u32] = &[];
        let h = self.colours.h;
        let v = self.colours.v;
        match (west, south) {
            (Some(w), Some(s)) if w < v && s < h => &self.by_ws[w as usize * h as usize + s as usize],
            (Some(w), None) if w < v => &self.by_w[w as usize],
            (None, Some(s)) if s < h => &self.by_s[s as usize],
            (None, None) => &self.all,
            _ => NONE,
        }
    }

    /// A `width × height` layout under `seed`, every cell class 0. See the module docs.
    pub fn layout(&self, width: usize, height: usize, seed: u32) -> Result<Layout, WangError> {
        let cells = width * height;
        self.layout_inner(width, height, seed, vec![0; cells])
    }

    /// As [`WangSet::layout`], with a wanted class per cell (`classes[y·width + x]`). The codes
    /// are exactly those of the unclassed layout under the same seed; the class only selects
    /// which tile of the code is drawn ([`Layout::tile`] = `class·len() + code index`).
    pub fn layout_with_classes(
        &self,
        width: usize,
        height: usize,
        seed: u32,
        classes: &[u8],
    ) -> Result<Layout, WangError> {
        if classes.len() != width * height {
            return Err(WangError::ClassCount { expected: width * height, got: classes.len() });
        }
        self.layout_inner(width, height, seed, classes.to_vec())
    }

    fn layout_inner(&self, width: usize, height: usize, seed: u32, class: Vec<u8>) -> Result<Layout, WangError> {
        let cells = width * height;
        let mut index = vec![0u32; cells];
        let mut codes = vec![Code::default(); cells];
        for y in 0..height {
            for x in 0..width {
                let west = (x > 0).then(|| codes[y * width + x - 1].e);
                let south = (y > 0).then(|| codes[(y - 1) * width + x].n);
                let fit = self.fitting(west, south);
                if fit.is_empty() {
                    return Err(WangError::NoFit { x, y, west: west.unwrap_or(0), south: south.unwrap_or(0) });
                }
                let r = hash_u32(x as u32, y as u32, seed);
                // Multiply-shift maps the 32-bit hash onto 0..len without a modulo's large bias.
                let pick = ((r as u64 * fit.len() as u64) >> 32) as usize;
                let i = fit[pick];
                index[y * width + x] = i;
                codes[y * width + x] = self.codes[i as usize];
            }
        }
        Ok(Layout { width, height, set_len: self.codes.len(), index, codes, class })
    }
}

/// A Wang layout: per cell its code, its index in the [`WangSet`], and its class.
/// Cell `(x, y)` is at `y·width + x`, `y` growing northward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    width: usize,
    height: usize,
    set_len: usize,
    index: Vec<u32>,
    codes: Vec<Code>,
    class: Vec<u8>,
}

impl Layout {
    /// Cells per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows (row 0 southernmost).
    pub fn height(&self) -> usize {
        self.height
    }

    /// The code at `(x, y)`.
    pub fn code(&self, x: usize, y: usize) -> Code {
        self.codes[y * self.width + x]
    }

    /// All codes, row-major from the southern row.
    pub fn codes(&self) -> &[Code] {
        &self.codes
    }

    /// Index of the code at `(x, y)` within the set.
    pub fn code_index(&self, x: usize, y: usize) -> usize {
        self.index[y * self.width + x] as usize
    }

    /// Class of the cell `(x, y)`.
    pub fn class(&self, x: usize, y: usize) -> u8 {
        self.class[y * self.width + x]
    }

    /// The tile drawn at `(x, y)` in a tileset holding one copy of the code set per class,
    /// class after class: `class·set_len + code index`.
    pub fn tile(&self, x: usize, y: usize) -> usize {
        let i = y * self.width + x;
        self.class[i] as usize * self.set_len + self.index[i] as usize
    }

    /// Shared edges whose colours differ ([`mismatches`]).
    pub fn mismatches(&self) -> usize {
        mismatches(self)
    }
}

/// Number of shared edges of `layout` whose colours differ: left east ≠ right west, or
/// lower north ≠ upper south. Every layout built by [`WangSet::layout`] has 0.
pub fn mismatches(layout: &Layout) -> usize {
    let (w, h) = (layout.width, layout.height);
    let mut bad = 0;
    for y in 0..h {
        for x in 0..w {
            let c = layout.code(x, y);
            if x + 1 < w && c.e != layout.code(x + 1, y).w {
                bad += 1;
            }
            if y + 1 < h && c.n != layout.code(x, y + 1).s {
                bad += 1;
            }
        }
    }
    bad
}

/// Signed distances of `(u, v)` (unit tile, `u` east, `v` north) into the four triangles,
/// `N, E, S, W`: with `a = u − ½`, `b = v − ½`: `(b − |a|, a − |b|, −b − |a|, −a − |b|)`.
/// The largest is the triangle the point lies in; the triangles meet on the diagonals, where
/// the two largest are equal.
pub fn triangle_distances(u: f64, v: f64) -> [f64; 4] {
    let (a, b) = (u - 0.5, v - 0.5);
    [b - a.abs(), a - b.abs(), -b - a.abs(), -a - b.abs()]
}

/// The triangle of the unit tile containing `(u, v)` (`u` east, `v` north): the tile is cut by
/// both diagonals and the triangle touching edge `X` is `X`. Points on a diagonal go to the
/// first of the two sides in `N, E, S, W` order (argmax, as the original's `hard_regions`).
/// Points outside the square get the triangle of their direction from the centre (the
/// original's rule for overhanging splats).
pub fn triangle(u: f64, v: f64) -> Side {
    let d = triangle_distances(u, v);
    let mut best = 0;
    for i in 1..4 {
        if d[i] > d[best] {
            best = i;
        }
    }
    Side::from_index(best)
}

/// Feathered triangle membership (`region_weights`): with `blend > 0` (in tile units), weight
/// `clamp(d / blend + ½, 0, 1)` per side, normalised to sum 1; `blend ≤ 0` is one-hot
/// [`triangle`]. The weights always sum to 1.
pub fn triangle_weights(u: f64, v: f64, blend: f64) -> [f64; 4] {
    let mut w = [0.0; 4];
    if blend <= 0.0 {
        w[triangle(u, v).index()] = 1.0;
        return w;
    }
    let d = triangle_distances(u, v);
    let mut sum = 0.0;
    for i in 0..4 {
        w[i] = (d[i] / blend + 0.5).clamp(0.0, 1.0);
        sum += w[i];
    }
    if sum <= 0.0 {
        // Unreachable for points near the square (some d ≥ −0.5·blend); kept total.
        let mut one = [0.0; 4];
        one[triangle(u, v).index()] = 1.0;
        return one;
    }
    w.map(|x| x / sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    fn sq(k: u8) -> Colours {
        Colours::square(k).unwrap()
    }

    #[test]
    fn encode_decode_round_trip_and_order() {
        for (h, v) in [(2, 2), (3, 3), (4, 4), (2, 3), (4, 2), (1, 2)] {
            let c = Colours::new(h, v).unwrap();
            let all = complete_codes(c);
            assert_eq!(all.len(), c.complete_len());
            for (i, &code) in all.iter().enumerate() {
                assert_eq!(c.encode(code) as usize, i);
                assert_eq!(c.decode(i as u32), code);
            }
            // n, e, s, w nested order: n slowest, w fastest.
            assert_eq!(all[0], Code::new(0, 0, 0, 0));
            assert_eq!(all[1], Code::new(0, 0, 0, 1));
            let distinct: BTreeSet<_> = all.iter().collect();
            assert_eq!(distinct.len(), all.len());
        }
        assert!(Colours::new(0, 2).is_err());
        assert!(Colours::new(2, MAX_COLOURS + 1).is_err());
    }

    #[test]
    fn complete_set_size_is_k4() {
        for k in 2..=4u8 {
            let set = WangSet::complete(sq(k));
            assert_eq!(set.len(), (k as usize).pow(4));
            // Every (west, north) and every (west, south) pair is covered k² times.
            let mut wn = HashMap::new();
            for c in set.codes() {
                *wn.entry((c.w, c.n)).or_insert(0) += 1;
            }
            assert_eq!(wn.len(), (k * k) as usize);
            assert!(wn.values().all(|&n| n == (k as usize).pow(2)));
        }
    }

    #[test]
    fn minimal_set_two_per_west_south_and_balanced() {
        for k in 2..=4u8 {
            let codes = minimal_codes(sq(k)).unwrap();
            let k = k as usize;
            assert_eq!(codes.len(), 2 * k * k);
            let distinct: BTreeSet<_> = codes.iter().collect();
            assert_eq!(distinct.len(), 2 * k * k, "codes distinct");
            let mut per_ws = HashMap::new();
            for c in &codes {
                *per_ws.entry((c.w, c.s)).or_insert(0) += 1;
            }
            assert_eq!(per_ws.len(), k * k, "every (west, south) pair present");
            assert!(per_ws.values().all(|&n| n == 2), "exactly two per (west, south)");
            // Each colour equally often on every side: 2k² / k = 2k times.
            for side in Side::ALL {
                let mut count = vec![0; k];
                for c in &codes {
                    count[c.colour(side) as usize] += 1;
                }
                assert!(count.iter().all(|&n| n == 2 * k), "k={k} side {side:?}: {count:?}");
            }
        }
        assert!(minimal_codes(Colours::new(1, 3).unwrap()).is_err());
    }

    #[test]
    fn minimal_set_matches_the_shipped_desert_order() {
        // The first tiles of web/data/desert.json (minimal_codes(3, 3)), as (n, e, s, w).
        let want = [(0, 0, 0, 0), (1, 2, 0, 0), (1, 1, 1, 0), (2, 0, 1, 0), (2, 2, 2, 0), (0, 1, 2, 0), (1, 2, 0, 1)];
        let codes = minimal_codes(sq(3)).unwrap();
        for (i, &(n, e, s, w)) in want.iter().enumerate() {
            assert_eq!(codes[i], Code::new(n, e, s, w), "tile {i}");
        }
    }

    #[test]
    fn layouts_have_no_mismatches() {
        for k in 2..=4u8 {
            for set in [WangSet::minimal(sq(k)).unwrap(), WangSet::complete(sq(k))] {
                for seed in [0u32, 1, 7, 12345] {
                    let l = set.layout(40, 40, seed).unwrap();
                    assert_eq!(l.mismatches(), 0, "k={k} n={} seed={seed}", set.len());
                }
            }
        }
        // Also non-square grids and non-square colour families.
        let set = WangSet::minimal(Colours::new(2, 3).unwrap()).unwrap();
        assert_eq!(set.layout(17, 5, 3).unwrap().mismatches(), 0);
        assert_eq!(set.layout(1, 9, 3).unwrap().mismatches(), 0);
        assert_eq!(set.layout(0, 9, 3).unwrap().codes().len(), 0);
    }

    #[test]
    fn mismatches_counts_broken_edges() {
        let set = WangSet::complete(sq(2));
        let mut l = set.layout(6, 6, 9).unwrap();
        assert_eq!(mismatches(&l), 0);
        // Flip the east colour of one interior cell: exactly one shared edge breaks.
        let i = 2 * 6 + 2;
        l.codes[i].e ^= 1;
        assert_eq!(mismatches(&l), 1);
        l.codes[i].n ^= 1;
        assert_eq!(mismatches(&l), 2);
    }

    #[test]
    fn layout_is_deterministic_varied_and_uses_every_tile() {
        let set = WangSet::complete(sq(2));
        let a = set.layout(32, 32, 5).unwrap();
        let b = set.layout(32, 32, 5).unwrap();
        assert_eq!(a, b);
        let c = set.layout(32, 32, 6).unwrap();
        assert_ne!(a.codes(), c.codes(), "seeds differ");
        let used: BTreeSet<_> =
            (0..32).flat_map(|y| (0..32).map(move |x| (x, y))).map(|(x, y)| a.code_index(x, y)).collect();
        assert_eq!(used.len(), 16, "all 16 tiles used");
        // No row is periodic with a period 1..=16.
        for y in 0..32 {
            let row: Vec<_> = (0..32).map(|x| a.code(x, y)).collect();
            for p in 1..=16 {
                assert!((0..32 - p).any(|x| row[x] != row[x + p]), "row {y} has period {p}");
            }
        }
        // Minimal set, 40²: no two rows identical.
        let m = WangSet::minimal(sq(3)).unwrap().layout(40, 40, 11).unwrap();
        let rows: BTreeSet<Vec<Code>> = (0..40).map(|y| (0..40).map(|x| m.code(x, y)).collect()).collect();
        assert_eq!(rows.len(), 40);
    }

    #[test]
    fn layout_choice_is_roughly_uniform_among_fits() {
        // Interior cells of a minimal layout have two fits each; both should be picked about
        // equally often.
        let set = WangSet::minimal(sq(3)).unwrap();
        let l = set.layout(100, 100, 2).unwrap();
        let mut first = 0usize;
        let mut total = 0usize;
        for y in 1..100 {
            for x in 1..100 {
                let fit = set.fitting(Some(l.code(x - 1, y).e), Some(l.code(x, y - 1).n));
                assert_eq!(fit.len(), 2);
                total += 1;
                if fit[0] as usize == l.code_index(x, y) {
                    first += 1;
                }
            }
        }
        let share = first as f64 / total as f64;
        assert!((share - 0.5).abs() < 0.02, "share {share}");
    }

    #[test]
    fn classes_share_codes_and_do_not_change_the_layout() {
        for set in [WangSet::minimal(sq(3)).unwrap(), WangSet::complete(sq(2))] {
            let (w, h) = (24, 20);
            let classes: Vec<u8> = (0..w * h).map(|i| (hash_u32(i as u32, 0, 99) & 1) as u8).collect();
            let plain = set.layout(w, h, 4).unwrap();
            let classed = set.layout_with_classes(w, h, 4, &classes).unwrap();
            assert_eq!(plain.codes(), classed.codes(), "class never changes the code");
            assert_eq!(classed.mismatches(), 0);
            let n = set.len();
            let mut per_class = [BTreeSet::new(), BTreeSet::new()];
            for y in 0..h {
                for x in 0..w {
                    let t = classed.tile(x, y);
                    assert_eq!(classed.class(x, y), classes[y * w + x], "wanted class honoured");
                    assert_eq!(t / n, classes[y * w + x] as usize);
                    assert_eq!(set.codes()[t % n], classed.code(x, y));
                    per_class[t / n].insert(t % n);
                }
            }
            // The tileset holds one copy of the code set per class: identical code sets, and a
            // code-for-code swap to the other class keeps every edge matched.
            let tileset: Vec<(usize, Code)> =
                (0..2).flat_map(|c| set.codes().iter().map(move |&code| (c, code))).collect();
            let class_codes =
                |c: usize| -> BTreeSet<Code> { tileset.iter().filter(|t| t.0 == c).map(|t| t.1).collect() };
            assert_eq!(class_codes(0), class_codes(1));
            assert_eq!(class_codes(0).len(), n);
            assert!(!per_class[0].is_empty() && !per_class[1].is_empty());
        }
        let set = WangSet::complete(sq(2));
        assert!(matches!(set.layout_with_classes(3, 3, 0, &[0; 8]), Err(WangError::ClassCount { .. })));
    }

    #[test]
    fn sparse_sets_report_no_fit() {
        let c = sq(2);
        let set = WangSet::from_codes(c, vec![Code::new(0, 1, 0, 0)]).unwrap();
        let err = set.layout(3, 1, 0).unwrap_err();
        assert!(matches!(err, WangError::NoFit { x: 1, y: 0, .. }), "{err}");
        assert!(matches!(WangSet::from_codes(c, vec![]), Err(WangError::Empty)));
        assert!(matches!(WangSet::from_codes(c, vec![Code::new(2, 0, 0, 0)]), Err(WangError::OutOfRange(_))));
        let dup = vec![Code::new(1, 0, 0, 0), Code::new(1, 0, 0, 0)];
        assert!(matches!(WangSet::from_codes(c, dup), Err(WangError::Duplicate(_))));
        let set = WangSet::minimal(sq(3)).unwrap();
        for (i, &code) in set.codes().iter().enumerate() {
            assert_eq!(set.index_of(code), Some(i));
        }
        assert_eq!(set.index_of(Code::new(0, 1, 0, 0)), None);
    }

    #[test]
    fn triangles_pick_the_edge_they_touch() {
        assert_eq!(triangle(0.5, 0.95), Side::North);
        assert_eq!(triangle(0.95, 0.5), Side::East);
        assert_eq!(triangle(0.5, 0.05), Side::South);
        assert_eq!(triangle(0.05, 0.5), Side::West);
        // Outside the square: the triangle of the direction.
        assert_eq!(triangle(0.6, 1.7), Side::North);
        assert_eq!(triangle(-3.0, 0.4), Side::West);
        let code = Code::new(2, 1, 0, 3);
        let src = code.source(0.5, 0.9);
        assert_eq!(src, EdgeSource { side: Side::North, axis: Axis::Horizontal, colour: 2 });
        let src = code.source(0.1, 0.5);
        assert_eq!(src, EdgeSource { side: Side::West, axis: Axis::Vertical, colour: 3 });
    }

    #[test]
    fn triangles_are_symmetric_and_cover_the_square() {
        let n = 200;
        let mut count = [0usize; 4];
        for j in 0..n {
            for i in 0..n {
                let (u, v) = ((i as f64 + 0.5) / n as f64, (j as f64 + 0.5) / n as f64);
                let t = triangle(u, v);
                count[t.index()] += 1;
                let (a, b) = (u - 0.5, v - 0.5);
                if (a.abs() - b.abs()).abs() < 1e-12 {
                    continue; // on a diagonal: tie broken by order, not symmetric
                }
                // A quarter turn clockwise (a, b) → (b, −a) maps each triangle to the next.
                assert_eq!(triangle(0.5 + b, 0.5 - a), t.clockwise(), "({u}, {v})");
                // Mirrors: u ↦ 1−u swaps E/W, v ↦ 1−v swaps N/S.
                let mu = triangle(1.0 - u, v);
                let mv = triangle(u, 1.0 - v);
                match t.axis() {
                    Axis::Vertical => {
                        assert_eq!(mu, t.opposite());
                        assert_eq!(mv, t);
                    }
                    Axis::Horizontal => {
                        assert_eq!(mu, t);
                        assert_eq!(mv, t.opposite());
                    }
                }
            }
        }
        // Every pixel labelled (partition) and the four areas equal (a quarter each; the
        // diagonal pixels go N before E/W and E/W before S).
        assert_eq!(count.iter().sum::<usize>(), n * n);
        for c in count {
            let share = c as f64 / (n * n) as f64;
            assert!((share - 0.25).abs() < 0.01, "{count:?}");
        }
    }

    #[test]
    fn triangle_weights_partition_unity() {
        for j in 0..50 {
            for i in 0..50 {
                let (u, v) = (i as f64 / 49.0, j as f64 / 49.0);
                for blend in [0.0, 0.02, 0.1, 0.3] {
                    let w = triangle_weights(u, v, blend);
                    let s: f64 = w.iter().sum();
                    assert!((s - 1.0).abs() < 1e-12);
                    assert!(w.iter().all(|&x| (0.0..=1.0).contains(&x)));
                }
                // Far from the diagonals the feathered weight is one-hot.
                let d = triangle_distances(u, v);
                let mut sorted = d;
                sorted.sort_by(|a, b| b.total_cmp(a));
                if sorted[0] - sorted[1] > 0.1 {
                    let w = triangle_weights(u, v, 0.05);
                    assert_eq!(w[triangle(u, v).index()], 1.0);
                }
            }
        }
        // On a diagonal two neighbours share equally.
        let w = triangle_weights(0.8, 0.8, 0.1);
        assert!((w[0] - 0.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12);
    }
}
