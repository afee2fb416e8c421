//! Biomes: a Whittaker-style elevation × moisture table with slope, beach and snow overrides.
//!
//! Whittaker's biome diagram (R. H. Whittaker, *Communities and Ecosystems*, 1975) places biomes
//! by temperature and precipitation; procedural maps substitute elevation for (falling)
//! temperature and a moisture field for precipitation. The default table is the 4 × 6 layout of
//! Red Blob Games ("Polygonal map generation for games", 2010; "Making maps with noise", 2015),
//! written here as data: the elevation zones are fractions of the land relief, the moisture bands
//! fractions of `[0, 1]`.
//!
//! # Inputs and the elevation fraction
//!
//! Heights are metres; `e = (z − sea_level) / (land_top − sea_level)` is the elevation fraction
//! (`e ≤ 0` is sea, `e = 1` the top of the land; `land_top` defaults to the grid's highest cell).
//! Moisture is in `[0, 1]`; slope is rise over run (e.g. from
//! `bozkir_terrain::landform::slope::slope`). NaN heights count as sea, NaN moisture and slope as 0.
//!
//! # Hard classification (first rule that holds)
//!
//! 1. `e ≤ 0` → ocean;
//! 2. `slope > rock_slope` → rock (cliffs, whatever the moisture);
//! 3. `e ≤ e_beach` (`beach_height` metres above sea) → beach;
//! 4. `e > e_snow` (`snow_line` metres) → snow;
//! 5. the table: row `r` holds `e ∈ [b_{r−1}, b_r)`, cell `j` of that row holds
//!    `m ∈ [c_{j−1}, c_j)` (the first band starts at −∞, the last bound is `+∞`).
//!
//! Default table (rows bottom-up; moisture bounds in parentheses):
//!
//! | elevation `e`  | moisture bands                                                                 |
//! |----------------|--------------------------------------------------------------------------------|
//! | `[0.8, ∞)`     | scorched (< 0.1), bare (< 0.2), tundra (< 0.5), snow                           |
//! | `[0.6, 0.8)`   | temperate desert (< 0.33), shrubland (< 0.66), taiga                           |
//! | `[0.3, 0.6)`   | temperate desert (< 0.16), grassland (< 0.5), temperate deciduous forest (< 0.83), temperate rain forest |
//! | `(−∞, 0.3)`    | subtropical desert (< 0.16), grassland (< 0.33), tropical seasonal forest (< 0.66), tropical rain forest |
//!
//! # Soft weights
//!
//! After the priority order, every biome's hard region is a union of axis-aligned boxes in
//! `(e, m, slope)` space (ocean `e ≤ 0`; rock `e ≥ 0, s ≥ rock_slope`; beach `0 ≤ e ≤ e_beach,
//! s ≤ rock_slope`; snow `e ≥ e_snow, s ≤ rock_slope`; table cell `(r, j)`:
//! `e ∈ [max(e_beach, b_{r−1}), min(e_snow, b_r)]`, `m ∈ [c_{j−1}, c_j]`, `s ≤ rock_slope`).
//! With the blend widths `(w_e, w_m, w_s)` (`w_e = blend_height_m / (land_top − sea_level)`), the
//! scaled distance of a point to a box is `d = √Σ (gap_k / w_k)²` (`gap_k` = how far the
//! coordinate is outside the box's interval on axis `k`), its membership
//! `φ = 1 − smoothstep(min(d, 1))`, a biome's membership is the largest `φ` of its boxes, and
//! the weights are memberships divided by their sum. Inside its own region the hard biome has
//! `φ = 1`, the largest possible, so **argmax of the soft weights is the hard class** (exact ties
//! only on region boundaries, where two biomes both have `φ = 1`); deeper than one blend width
//! into a region the weights are one-hot; they are continuous everywhere, sum to one and lie in
//! `[0, 1]`.

use bozkir_core::Grid;
use rayon::prelude::*;
use std::fmt;

/// Ids of the default palette ([`Palette::default_biomes`]).
pub mod ids {
    /// Below sea level.
    pub const OCEAN: u8 = 0;
    /// The band just above sea level.
    pub const BEACH: u8 = 1;
    /// High and very dry.
    pub const SCORCHED: u8 = 2;
    /// High and dry.
    pub const BARE: u8 = 3;
    /// High, moderately dry.
    pub const TUNDRA: u8 = 4;
    /// High and wet, or above the snow line.
    pub const SNOW: u8 = 5;
    /// Mid-high or mid and dry.
    pub const TEMPERATE_DESERT: u8 = 6;
    /// Mid-high, moderate moisture.
    pub const SHRUBLAND: u8 = 7;
    /// Mid-high and wet.
    pub const TAIGA: u8 = 8;
    /// Mid or low, moderately dry.
    pub const GRASSLAND: u8 = 9;
    /// Mid, moist.
    pub const TEMPERATE_DECIDUOUS_FOREST: u8 = 10;
    /// Mid, wet.
    pub const TEMPERATE_RAIN_FOREST: u8 = 11;
    /// Low and dry.
    pub const SUBTROPICAL_DESERT: u8 = 12;
    /// Low, moist.
    pub const TROPICAL_SEASONAL_FOREST: u8 = 13;
    /// Low and wet.
    pub const TROPICAL_RAIN_FOREST: u8 = 14;
    /// Slope override.
    pub const ROCK: u8 = 15;
}

/// One palette entry: a name and a display colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteEntry {
    /// Name (e.g. `"temperate rain forest"`).
    pub name: String,
    /// sRGB colour.
    pub rgb: [u8; 3],
}

/// A biome palette: entry `i` names biome id `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    /// Entries in id order.
    pub entries: Vec<PaletteEntry>,
}

/// Colour [`to_rgb`] gives ids outside the palette.
pub const MISSING_RGB: [u8; 3] = [255, 0, 255];

impl Palette {
    /// A palette from entries in id order (at most 256).
    pub fn new(entries: Vec<PaletteEntry>) -> Result<Self, BiomeError> {
        if entries.is_empty() || entries.len() > 256 {
            return Err(BiomeError::PaletteSize(entries.len()));
        }
        Ok(Self { entries })
    }

    /// A palette from `(name, rgb)` values in id order.
    pub fn from_values(values: &[(&str, [u8; 3])]) -> Result<Self, BiomeError> {
        Self::new(values.iter().map(|&(n, rgb)| PaletteEntry { name: n.to_string(), rgb }).collect())
    }

    /// The 16 default biomes, ids as in [`ids`].
    pub fn default_biomes() -> Self {
        let values: [(&str, [u8; 3]); 16] = [
            ("ocean", [52, 82, 130]),
            ("beach", [214, 198, 152]),
            ("scorched", [84, 84, 84]),
            ("bare", [134, 134, 134]),
            ("tundra", [186, 186, 168]),
            ("snow", [246, 246, 246]),
            ("temperate desert", [200, 208, 156]),
            ("shrubland", [136, 152, 118]),
            ("taiga", [152, 168, 118]),
            ("grassland", [134, 168, 86]),
            ("temperate deciduous forest", [102, 146, 88]),
            ("temperate rain forest", [66, 134, 84]),
            ("subtropical desert", [208, 184, 138]),
            ("tropical seasonal forest", [84, 152, 68]),
            ("tropical rain forest", [50, 118, 84]),
            ("rock", [108, 100, 92]),
        ];
        match Self::from_values(&values) {
            Ok(p) => p,
            Err(e) => unreachable!("default palette is valid: {e}"),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true for a palette built by [`Palette::new`].
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Id of the first entry called `name`.
    pub fn id_of(&self, name: &str) -> Option<u8> {
        self.entries.iter().position(|e| e.name == name).map(|i| i as u8)
    }

    /// Colour of `id`, [`MISSING_RGB`] outside the palette.
    pub fn rgb(&self, id: u8) -> [u8; 3] {
        self.entries.get(id as usize).map_or(MISSING_RGB, |e| e.rgb)
    }
}

/// Invalid biome data.
#[derive(Debug, Clone, PartialEq)]
pub enum BiomeError {
    /// A palette must have 1..=256 entries.
    PaletteSize(usize),
    /// The table has no rows, or a row has no cells.
    EmptyTable,
    /// Bounds must be strictly increasing, not NaN, and end with `+∞`.
    BadBounds(String),
    /// A biome id is not in the palette.
    UnknownId(u8),
}

impl fmt::Display for BiomeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BiomeError::PaletteSize(n) => write!(f, "palette must have 1..=256 entries, got {n}"),
            BiomeError::EmptyTable => write!(f, "biome table has an empty row or no rows"),
            BiomeError::BadBounds(s) => write!(f, "biome table bounds: {s}"),
            BiomeError::UnknownId(id) => write!(f, "biome id {id} is not in the palette"),
        }
    }
}

impl std::error::Error for BiomeError {}

/// One elevation zone of a [`WhittakerTable`].
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// Upper bound (exclusive) of the zone's elevation fraction; `+∞` for the top row.
    pub elevation_below: f64,
    /// `(moisture upper bound (exclusive), biome id)` in increasing moisture; the last bound `+∞`.
    pub cells: Vec<(f64, u8)>,
}

/// Elevation × moisture lookup table (see the module docs for the band convention).
#[derive(Debug, Clone, PartialEq)]
pub struct WhittakerTable {
    rows: Vec<TableRow>,
}

fn check_bounds(bounds: impl Iterator<Item = f64>, what: &str) -> Result<(), BiomeError> {
    let mut prev = f64::NEG_INFINITY;
    let mut last = f64::NAN;
    for b in bounds {
        if b.is_nan() || b <= prev {
            return Err(BiomeError::BadBounds(format!("{what} bounds not strictly increasing at {b}")));
        }
        prev = b;
        last = b;
    }
    if last != f64::INFINITY {
        return Err(BiomeError::BadBounds(format!("last {what} bound must be +inf")));
    }
    Ok(())
}

impl WhittakerTable {
    /// A table from rows in increasing elevation; validates the bounds.
    pub fn new(rows: Vec<TableRow>) -> Result<Self, BiomeError> {
        if rows.is_empty() || rows.iter().any(|r| r.cells.is_empty()) {
            return Err(BiomeError::EmptyTable);
        }
        check_bounds(rows.iter().map(|r| r.elevation_below), "elevation")?;
        for r in &rows {
            check_bounds(r.cells.iter().map(|c| c.0), "moisture")?;
        }
        Ok(Self { rows })
    }

    /// A table from plain values: `rows[r] = (elevation_below, &[(moisture_below, id), ...])`.
    pub fn from_values(rows: &[(f64, &[(f64, u8)])]) -> Result<Self, BiomeError> {
        Self::new(rows.iter().map(|&(e, cells)| TableRow { elevation_below: e, cells: cells.to_vec() }).collect())
    }

    /// Red Blob's 4 × 6 table (module docs), ids from [`ids`].
    pub fn red_blob() -> Self {
        use ids::*;
        const INF: f64 = f64::INFINITY;
        let rows: [(f64, &[(f64, u8)]); 4] = [
            (
                0.3,
                &[
                    (0.16, SUBTROPICAL_DESERT),
                    (0.33, GRASSLAND),
                    (0.66, TROPICAL_SEASONAL_FOREST),
                    (INF, TROPICAL_RAIN_FOREST),
                ],
            ),
            (
                0.6,
                &[
                    (0.16, TEMPERATE_DESERT),
                    (0.5, GRASSLAND),
                    (0.83, TEMPERATE_DECIDUOUS_FOREST),
                    (INF, TEMPERATE_RAIN_FOREST),
                ],
            ),
            (0.8, &[(0.33, TEMPERATE_DESERT), (0.66, SHRUBLAND), (INF, TAIGA)]),
            (INF, &[(0.1, SCORCHED), (0.2, BARE), (0.5, TUNDRA), (INF, SNOW)]),
        ];
        match Self::from_values(&rows) {
            Ok(t) => t,
            Err(e) => unreachable!("default table is valid: {e}"),
        }
    }

    /// The rows.
    pub fn rows(&self) -> &[TableRow] {
        &self.rows
    }

    /// Biome id at elevation fraction `e`, moisture `m`.
    pub fn lookup(&self, e: f64, m: f64) -> u8 {
        let row = self.rows.iter().find(|r| e < r.elevation_below).unwrap_or(&self.rows[self.rows.len() - 1]);
        row.cells.iter().find(|c| m < c.0).unwrap_or(&row.cells[row.cells.len() - 1]).1
    }
}

impl Default for WhittakerTable {
    fn default() -> Self {
        Self::red_blob()
    }
}

/// Parameters of [`classify`] and [`soft_weights`]. Units: metres, moisture `[0, 1]`, slope rise
/// over run.
#[derive(Debug, Clone, PartialEq)]
pub struct BiomeParams {
    /// Sea level in metres. Default 0.
    pub sea_level: f64,
    /// Height (m) of elevation fraction 1; `None`: the grid's highest finite cell. Default `None`.
    pub land_top: Option<f64>,
    /// Elevation × moisture table. Default [`WhittakerTable::red_blob`].
    pub table: WhittakerTable,
    /// Height of the beach band above sea level, metres; ≤ 0 disables it. Default 6.
    pub beach_height: f64,
    /// Snow line in metres (absolute); `None` disables the override. Default `None` (the table's
    /// top row already snows where it is wet).
    pub snow_line: Option<f64>,
    /// Slope (rise/run) above which land is rock; `None` disables it. Default `Some(1.0)` (45°).
    pub rock_slope: Option<f64>,
    /// Blend width on the height axis, metres. Default 20.
    pub blend_height_m: f64,
    /// Blend width on the moisture axis. Default 0.05.
    pub blend_moisture: f64,
    /// Blend width on the slope axis (rise/run). Default 0.1.
    pub blend_slope: f64,
    /// Id of ocean. Default [`ids::OCEAN`].
    pub ocean: u8,
    /// Id of beach. Default [`ids::BEACH`].
    pub beach: u8,
    /// Id of rock. Default [`ids::ROCK`].
    pub rock: u8,
    /// Id of the snow override. Default [`ids::SNOW`].
    pub snow: u8,
}

impl Default for BiomeParams {
    fn default() -> Self {
        Self {
            sea_level: 0.0,
            land_top: None,
            table: WhittakerTable::red_blob(),
            beach_height: 6.0,
            snow_line: None,
            rock_slope: Some(1.0),
            blend_height_m: 20.0,
            blend_moisture: 0.05,
            blend_slope: 0.1,
            ocean: ids::OCEAN,
            beach: ids::BEACH,
            rock: ids::ROCK,
            snow: ids::SNOW,
        }
    }
}

impl BiomeParams {
    /// Every id these parameters can produce (sorted, unique).
    pub fn used_ids(&self) -> Vec<u8> {
        let mut v = vec![self.ocean, self.beach, self.rock, self.snow];
        v.extend(self.table.rows.iter().flat_map(|r| r.cells.iter().map(|c| c.1)));
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Length of [`soft_weights`]' output: the largest id used, plus one.
    pub fn biome_count(&self) -> usize {
        self.used_ids().last().map_or(0, |&m| m as usize + 1)
    }

    /// Checks that every id these parameters can produce is in `palette`.
    pub fn validate(&self, palette: &Palette) -> Result<(), BiomeError> {
        match self.used_ids().into_iter().find(|&id| id as usize >= palette.len()) {
            Some(id) => Err(BiomeError::UnknownId(id)),
            None => Ok(()),
        }
    }
}

/// An axis-aligned box in `(e, m, s)` space owned by one biome.
#[derive(Debug, Clone, Copy)]
struct Region {
    id: u8,
    lo: [f64; 3],
    hi: [f64; 3],
}

/// Parameters resolved against a height grid.
struct Rules<'a> {
    p: &'a BiomeParams,
    sea: f64,
    inv_relief: f64,
    e_beach: f64,
    e_snow: f64,
    rock: f64,
    widths: [f64; 3],
    regions: Vec<Region>,
    count: usize,
}

const NEG: f64 = f64::NEG_INFINITY;
const POS: f64 = f64::INFINITY;

impl<'a> Rules<'a> {
    fn new(p: &'a BiomeParams, height: &Grid<f64>) -> Self {
        let sea = p.sea_level;
        let top =
            p.land_top.unwrap_or_else(|| height.data().iter().copied().filter(|v| v.is_finite()).fold(NEG, f64::max));
        let relief = if top.is_finite() && top > sea { top - sea } else { 1.0 };
        let inv_relief = 1.0 / relief;
        let e_beach = if p.beach_height > 0.0 { p.beach_height * inv_relief } else { 0.0 };
        let e_snow = p.snow_line.map_or(POS, |s| f64::max((s - sea) * inv_relief, e_beach));
        let rock = p.rock_slope.unwrap_or(POS);
        let widths = [p.blend_height_m * inv_relief, p.blend_moisture, p.blend_slope];
        let mut regions = vec![Region { id: p.ocean, lo: [NEG, NEG, NEG], hi: [0.0, POS, POS] }];
        if p.rock_slope.is_some() {
            regions.push(Region { id: p.rock, lo: [0.0, NEG, rock], hi: [POS, POS, POS] });
        }
        if e_beach > 0.0 {
            regions.push(Region { id: p.beach, lo: [0.0, NEG, NEG], hi: [e_beach, POS, rock] });
        }
        if e_snow.is_finite() {
            regions.push(Region { id: p.snow, lo: [e_snow, NEG, NEG], hi: [POS, POS, rock] });
        }
        let mut e_prev = NEG;
        for row in &p.table.rows {
            let (e_lo, e_hi) = (f64::max(e_beach, e_prev), f64::min(e_snow, row.elevation_below));
            e_prev = row.elevation_below;
            if e_lo > e_hi {
                continue;
            }
            let mut m_prev = NEG;
            for &(m_below, id) in &row.cells {
                regions.push(Region { id, lo: [e_lo, m_prev, NEG], hi: [e_hi, m_below, rock] });
                m_prev = m_below;
            }
        }
        Self { p, sea, inv_relief, e_beach, e_snow, rock, widths, regions, count: p.biome_count() }
    }

    /// `(e, m, s)` of a cell with the NaN conventions of the module docs.
    #[inline]
    fn coords(&self, z: f64, m: f64, s: f64) -> [f64; 3] {
        let e = if z.is_nan() { NEG } else { (z - self.sea) * self.inv_relief };
        [e, if m.is_nan() { 0.0 } else { m }, if s.is_nan() { 0.0 } else { s }]
    }

    #[inline]
    fn hard(&self, c: [f64; 3]) -> u8 {
        let [e, m, s] = c;
        if e <= 0.0 {
            self.p.ocean
        } else if s > self.rock {
            self.p.rock
        } else if e <= self.e_beach {
            self.p.beach
        } else if e > self.e_snow {
            self.p.snow
        } else {
            self.p.table.lookup(e, m)
        }
    }

    /// Soft weights of one cell into `out` (length `count`).
    #[inline]
    fn soft(&self, c: [f64; 3], out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        for r in &self.regions {
            let mut d2 = 0.0;
            for (k, &ck) in c.iter().enumerate() {
                let gap = f64::max(f64::max(r.lo[k] - ck, ck - r.hi[k]), 0.0);
                if gap > 0.0 {
                    let w = self.widths[k];
                    d2 += if w > 0.0 { (gap / w) * (gap / w) } else { POS };
                }
            }
            let phi = if d2 >= 1.0 { 0.0 } else { 1.0 - smoothstep(d2.sqrt()) };
            let slot = &mut out[r.id as usize];
            if phi > *slot {
                *slot = phi;
            }
        }
        let sum: f64 = out.iter().sum();
        if sum > 0.0 {
            out.iter_mut().for_each(|v| *v /= sum);
        } else {
            // Unreachable with the regions above (they cover the space); keep a valid partition.
            out[self.hard(c) as usize] = 1.0;
        }
    }
}

#[inline]
fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn check_shapes(height: &Grid<f64>, moisture: &Grid<f64>, slope: &Grid<f64>) {
    let s = (height.width(), height.height());
    assert_eq!(s, (moisture.width(), moisture.height()), "biomes: moisture shape differs from height");
    assert_eq!(s, (slope.width(), slope.height()), "biomes: slope shape differs from height");
}

/// Hard biome ids (module docs, "Hard classification"). Grids must share a shape; the result has
/// the height grid's cell size.
pub fn classify(height: &Grid<f64>, moisture: &Grid<f64>, slope: &Grid<f64>, p: &BiomeParams) -> Grid<u8> {
    check_shapes(height, moisture, slope);
    let rules = Rules::new(p, height);
    let ids: Vec<u8> = height
        .data()
        .par_iter()
        .zip(moisture.data().par_iter())
        .zip(slope.data().par_iter())
        .map(|((&z, &m), &s)| rules.hard(rules.coords(z, m, s)))
        .collect();
    Grid::from_vec(height.width(), height.height(), ids).with_cell_size(height.dx, height.dy)
}

/// Per-biome weights (module docs, "Soft weights"): `biome_count()` grids, index = biome id; at
/// every cell they lie in `[0, 1]` and sum to one, and the largest is the [`classify`] id (ties
/// only on region boundaries). Ids the parameters never produce get all-zero grids.
///
/// Memory: `biome_count · N` f64 values (16 · N for the defaults).
pub fn soft_weights(height: &Grid<f64>, moisture: &Grid<f64>, slope: &Grid<f64>, p: &BiomeParams) -> Vec<Grid<f64>> {
    check_shapes(height, moisture, slope);
    let rules = Rules::new(p, height);
    let (w, h, nb) = (height.width(), height.height(), rules.count);
    let n = w * h;
    let mut flat = vec![0.0; n * nb];
    if n > 0 && nb > 0 {
        let (zd, md, sd) = (height.data(), moisture.data(), slope.data());
        flat.par_chunks_mut(nb * w).enumerate().for_each(|(y, row)| {
            for (x, cell) in row.chunks_mut(nb).enumerate() {
                let i = y * w + x;
                rules.soft(rules.coords(zd[i], md[i], sd[i]), cell);
            }
        });
    }
    (0..nb)
        .into_par_iter()
        .map(|b| Grid::from_vec(w, h, (0..n).map(|i| flat[i * nb + b]).collect()).with_cell_size(height.dx, height.dy))
        .collect()
}

/// Argmax over `weights` per cell (first largest on ties); the inverse view of [`soft_weights`].
pub fn argmax(weights: &[Grid<f64>]) -> Option<Grid<u8>> {
    let first = weights.first()?;
    let (w, h) = (first.width(), first.height());
    let ids: Vec<u8> = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let mut best = 0usize;
            for (b, g) in weights.iter().enumerate() {
                if g.data()[i] > weights[best].data()[i] {
                    best = b;
                }
            }
            best as u8
        })
        .collect();
    Some(Grid::from_vec(w, h, ids).with_cell_size(first.dx, first.dy))
}

/// File name of the soft weight map of biome `name` (a palette name) in a terrain directory:
/// `biome_weights_<name>.png`, spaces as underscores. A recipe's `biomes` stage writes these
/// maps and `bozkir export` reads them back.
///
/// # Examples
///
/// ```
/// assert_eq!(bozkir_material::biomes::soft_biome_file("snow cap"), "biome_weights_snow_cap.png");
/// ```
pub fn soft_biome_file(name: &str) -> String {
    format!("biome_weights_{}.png", name.replace(' ', "_"))
}

/// Colour per cell from `palette`, row-major; ids outside the palette give [`MISSING_RGB`].
pub fn to_rgb(ids: &Grid<u8>, palette: &Palette) -> Vec<[u8; 3]> {
    ids.data().par_iter().map(|&id| palette.rgb(id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_terrain::island::{island_height, moisture_with_cell_size, IslandParams};
    use bozkir_terrain::landform::slope::slope;

    fn island_inputs(seed: u32) -> (Grid<f64>, Grid<f64>, Grid<f64>) {
        let p = IslandParams { seed, ..Default::default() };
        let z = island_height(96, 96, 20.0, 20.0, &p);
        let m = moisture_with_cell_size(96, 96, 20.0, 20.0, &p);
        let s = slope(&z);
        (z, m, s)
    }

    #[test]
    fn table_bands_follow_red_blob() {
        let t = WhittakerTable::red_blob();
        assert_eq!(t.lookup(0.1, 0.05), ids::SUBTROPICAL_DESERT);
        assert_eq!(t.lookup(0.1, 0.2), ids::GRASSLAND);
        assert_eq!(t.lookup(0.1, 0.5), ids::TROPICAL_SEASONAL_FOREST);
        assert_eq!(t.lookup(0.1, 0.9), ids::TROPICAL_RAIN_FOREST);
        assert_eq!(t.lookup(0.3, 0.0), ids::TEMPERATE_DESERT); // lower bound is inclusive
        assert_eq!(t.lookup(0.45, 0.7), ids::TEMPERATE_DECIDUOUS_FOREST);
        assert_eq!(t.lookup(0.45, 0.9), ids::TEMPERATE_RAIN_FOREST);
        assert_eq!(t.lookup(0.7, 0.5), ids::SHRUBLAND);
        assert_eq!(t.lookup(0.7, 0.7), ids::TAIGA);
        assert_eq!(t.lookup(0.9, 0.05), ids::SCORCHED);
        assert_eq!(t.lookup(0.9, 0.15), ids::BARE);
        assert_eq!(t.lookup(0.9, 0.3), ids::TUNDRA);
        assert_eq!(t.lookup(5.0, 0.6), ids::SNOW);
        assert_eq!(t.lookup(-1.0, -1.0), ids::SUBTROPICAL_DESERT);
    }

    #[test]
    fn table_and_palette_validation() {
        assert_eq!(WhittakerTable::new(vec![]), Err(BiomeError::EmptyTable));
        assert!(matches!(WhittakerTable::from_values(&[(0.5, &[(f64::INFINITY, 1)])]), Err(BiomeError::BadBounds(_))));
        assert!(matches!(
            WhittakerTable::from_values(&[(f64::INFINITY, &[(0.5, 1), (0.4, 2), (f64::INFINITY, 3)])]),
            Err(BiomeError::BadBounds(_))
        ));
        assert!(Palette::new(vec![]).is_err());
        let small = Palette::from_values(&[("sea", [0, 0, 255]), ("land", [0, 255, 0])]).unwrap();
        assert_eq!(BiomeParams::default().validate(&small), Err(BiomeError::UnknownId(2)));
        assert!(BiomeParams::default().validate(&Palette::default_biomes()).is_ok());
        assert_eq!(Palette::default_biomes().len(), 16);
        assert_eq!(Palette::default_biomes().id_of("taiga"), Some(ids::TAIGA));
        assert_eq!(BiomeParams::default().biome_count(), 16);
    }

    #[test]
    fn biomes_use_only_palette_entries() {
        let pal = Palette::default_biomes();
        let p = BiomeParams { snow_line: Some(500.0), ..Default::default() };
        p.validate(&pal).unwrap();
        let mut seen = [false; 16];
        for seed in [1u32, 2, 3] {
            let (z, m, s) = island_inputs(seed);
            let c = classify(&z, &m, &s, &p);
            for &id in c.data() {
                assert!((id as usize) < pal.len());
                seen[id as usize] = true;
            }
            let rgb = to_rgb(&c, &pal);
            assert_eq!(rgb.len(), z.len());
            assert!(rgb.iter().all(|c| *c != MISSING_RGB));
        }
        let kinds = seen.iter().filter(|&&b| b).count();
        assert!(kinds >= 6, "only {kinds} biomes on three islands");
        assert!(seen[ids::OCEAN as usize] && seen[ids::BEACH as usize]);
    }

    #[test]
    fn soft_weights_partition_of_unity_and_argmax_is_hard() {
        let p = BiomeParams { snow_line: Some(450.0), rock_slope: Some(0.4), ..Default::default() };
        for seed in [1u32, 5] {
            let (z, m, s) = island_inputs(seed);
            let hard = classify(&z, &m, &s, &p);
            let soft = soft_weights(&z, &m, &s, &p);
            assert_eq!(soft.len(), p.biome_count());
            let mut blended = 0;
            for i in 0..z.len() {
                let sum: f64 = soft.iter().map(|g| g.data()[i]).sum();
                assert!((sum - 1.0).abs() <= 1e-12, "cell {i}: sum {sum}");
                let h = hard.data()[i] as usize;
                let wh = soft[h].data()[i];
                for g in &soft {
                    let v = g.data()[i];
                    assert!((0.0..=1.0).contains(&v));
                    assert!(v <= wh, "cell {i}: hard {h} weight {wh} < {v}");
                }
                if wh < 1.0 {
                    blended += 1;
                }
            }
            assert!(blended > 50, "soft weights never blend ({blended} cells)");
            // argmax (first largest) equals hard except at exact ties.
            let am = argmax(&soft).unwrap();
            for i in 0..z.len() {
                let (a, h) = (am.data()[i] as usize, hard.data()[i] as usize);
                if a != h {
                    assert_eq!(soft[a].data()[i], soft[h].data()[i], "cell {i}: argmax {a} vs hard {h} without a tie");
                }
            }
        }
    }

    #[test]
    fn overrides_apply_in_priority_order() {
        // Columns: deep sea, shallow land (beach), steep low land (rock), mid land, very high land.
        let z = Grid::from_vec(6, 1, vec![-50.0, 3.0, 100.0, 300.0, 950.0, 950.0]);
        let m = Grid::from_vec(6, 1, vec![0.9, 0.9, 0.9, 0.9, 0.05, 0.9]);
        let s = Grid::from_vec(6, 1, vec![5.0, 0.1, 2.0, 0.1, 0.1, 0.1]);
        let p = BiomeParams { land_top: Some(1000.0), snow_line: Some(900.0), ..Default::default() };
        let c = classify(&z, &m, &s, &p);
        assert_eq!(
            c.data(),
            &[ids::OCEAN, ids::BEACH, ids::ROCK, ids::TEMPERATE_RAIN_FOREST, ids::SNOW, ids::SNOW],
            "ocean beats rock, rock beats beach, snow line beats the scorched table cell"
        );
        let no_over = BiomeParams { land_top: Some(1000.0), beach_height: 0.0, rock_slope: None, ..Default::default() };
        let c2 = classify(&z, &m, &s, &no_over);
        assert_eq!(
            c2.data(),
            &[
                ids::OCEAN,
                ids::TROPICAL_RAIN_FOREST,
                ids::TROPICAL_RAIN_FOREST,
                ids::TEMPERATE_RAIN_FOREST,
                ids::SCORCHED,
                ids::SNOW
            ]
        );
        // Soft weights one-hot far from every boundary, blended at the beach edge.
        let soft = soft_weights(&z, &m, &s, &p);
        assert_eq!(soft[ids::OCEAN as usize].data()[0], 1.0);
        assert_eq!(soft[ids::ROCK as usize].data()[2], 1.0);
        let one = |v: f64| Grid::from_vec(1, 1, vec![v]);
        let wide_beach = BiomeParams { beach_height: 30.0, ..p.clone() };
        let sb = soft_weights(&one(30.0), &one(0.9), &one(0.0), &wide_beach);
        let (wb, wt) = (sb[ids::BEACH as usize].data()[0], sb[ids::TROPICAL_RAIN_FOREST as usize].data()[0]);
        assert!((wb - 0.5).abs() < 1e-12 && (wt - 0.5).abs() < 1e-12, "beach edge {wb} {wt}");
    }

    #[test]
    fn custom_table_and_palette() {
        let pal =
            Palette::from_values(&[("water", [0, 0, 200]), ("dry", [200, 180, 0]), ("wet", [0, 150, 0])]).unwrap();
        let table = WhittakerTable::from_values(&[(f64::INFINITY, &[(0.5, 1), (f64::INFINITY, 2)])]).unwrap();
        let p = BiomeParams {
            table,
            ocean: 0,
            beach: 1,
            rock: 1,
            snow: 2,
            rock_slope: None,
            beach_height: 0.0,
            ..Default::default()
        };
        p.validate(&pal).unwrap();
        let z = Grid::from_vec(3, 1, vec![-1.0, 10.0, 10.0]);
        let m = Grid::from_vec(3, 1, vec![0.0, 0.2, 0.8]);
        let s = z.same_shape(0.0);
        let c = classify(&z, &m, &s, &p);
        assert_eq!(c.data(), &[0, 1, 2]);
        assert_eq!(to_rgb(&c, &pal), vec![[0, 0, 200], [200, 180, 0], [0, 150, 0]]);
        assert_eq!(soft_weights(&z, &m, &s, &p).len(), 3);
        let odd = Grid::from_vec(1, 1, vec![7u8]);
        assert_eq!(to_rgb(&odd, &pal), vec![MISSING_RGB]);
    }

    #[test]
    fn nan_inputs_are_handled() {
        let z = Grid::from_vec(2, 1, vec![f64::NAN, 100.0]);
        let m = Grid::from_vec(2, 1, vec![0.5, f64::NAN]);
        let s = Grid::from_vec(2, 1, vec![0.0, f64::NAN]);
        let p = BiomeParams { land_top: Some(1000.0), ..Default::default() };
        let c = classify(&z, &m, &s, &p);
        assert_eq!(c.data(), &[ids::OCEAN, ids::SUBTROPICAL_DESERT]);
        for g in soft_weights(&z, &m, &s, &p) {
            assert!(g.data().iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn deterministic_across_thread_counts() {
        let (z, m, s) = island_inputs(9);
        let p = BiomeParams { snow_line: Some(400.0), ..Default::default() };
        let run = |t: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| (classify(&z, &m, &s, &p), soft_weights(&z, &m, &s, &p)))
        };
        let (a, b) = (run(1), run(4));
        assert_eq!(a.0, b.0);
        for (ga, gb) in a.1.iter().zip(&b.1) {
            let bits = |g: &Grid<f64>| g.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(ga), bits(gb));
        }
    }
}
