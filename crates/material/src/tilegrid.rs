//! The one mapping from a terrain to the tile grid, shared by the CLI and the viewer (which runs
//! this code compiled to WebAssembly), so both decide the same classes.
//!
//! World layout (the original viewer's): an `n × n` grid of square tiles of side `tile`,
//! centred on the origin and rotated by `angle` degrees; `x` east, `y` north. The terrain's
//! unit-normalised height field spans `relief_scale · tile` across its long edge, centred, and
//! is **mirrored** beyond its edges (period two widths), so any grid size has ground under it.
//! The relief scale follows the grid (`= n`) unless set. The drawn height is
//! `amplitude·(field − 0.5)·2 + detail`, `amplitude = relief·max(1, relief_scale/24)`.
//!
//! Detail relief adds a small ridged value-noise grain on steep slopes and crests: amplitude
//! `0.05·detail·tile`, frequency `1/(0.7·tile)`,
//! `detail = amp·mask·((r₁² + 0.5·r₂²)/1.5 − 0.5)` with `rₖ = 1 − |2V − 1|` at `q` and at
//! `2.03q + (17.3, 5.1)`, and `mask = max(smoothstep(0.3, 0.75, |∇z|/p95), smoothstep(0.6, 0.9,
//! openness))` from the field (openness = unit(z − box mean), radius `max(2, round(L/48))`).
//!
//! The rule samples this height on an `(n·over)²` grid ([`sample_grid`]); `over` is 4 for grids
//! up to 64, 2 up to 160, else 1 (one sample per tile aliases: channels narrower than a tile
//! vanish). Samples are returned **north row first** (row `r` at `y = (half − r)·step`), so the
//! decision's rows are image rows.

use crate::classify::{classify, ClassifyError, ClassifyOptions, Decision};
use crate::param::ParamError;
use crate::rule::Rule;
use bozkir_core::hash::hash_u32;

/// A unit-normalised height field (`w × h`, row 0 north), with the detail mask derived from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub width: usize,
    pub height: usize,
    /// Heights stretched to 0..1 (a flat field is 0.5).
    pub z: Vec<f64>,
    /// Where detail relief applies, 0..1.
    pub mask: Vec<f64>,
    /// Openness: the height above the local box mean, stretched to 0..1 (a flat field is 0.5);
    /// the viewer's ground shading darkens hollows with it.
    pub open: Vec<f64>,
}

/// How a terrain is laid under the tile grid.
#[derive(Debug, Clone, PartialEq)]
pub struct GridMapping {
    /// Tiles per side.
    pub n: usize,
    /// Tile side in world units.
    pub tile: f64,
    /// Relief control (0..2; the viewer's presets use 1.2).
    pub relief: f64,
    /// Tiles the terrain spans across its long edge; `None` = follows the grid (`n`).
    pub relief_scale: Option<f64>,
    /// Samples per tile side; `None` = [`oversampling`]`(n)`.
    pub over: Option<usize>,
    /// Grid rotation in degrees (0..45).
    pub angle_deg: f64,
    /// Detail relief strength (0 = off; the viewer's range 0.25..3, default 1).
    pub detail: f64,
}

impl GridMapping {
    /// Defaults of the viewer for an `n`-tile grid of unit tiles.
    pub fn new(n: usize) -> Self {
        GridMapping { n, tile: 1.0, relief: 1.2, relief_scale: None, over: None, angle_deg: 0.0, detail: 1.0 }
    }

    pub fn relief_scale(&self) -> f64 {
        self.relief_scale.unwrap_or(self.n as f64)
    }

    pub fn over(&self) -> usize {
        self.over.unwrap_or_else(|| oversampling(self.n))
    }

    /// `relief·max(1, relief_scale/24)`.
    pub fn amplitude(&self) -> f64 {
        self.relief * (self.relief_scale() / 24.0).max(1.0)
    }

    /// Checks every range; the error names the parameter.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_material::tilegrid::GridMapping;
    ///
    /// assert!(GridMapping::new(24).validate().is_ok());
    /// let e = GridMapping { angle_deg: 90.0, ..GridMapping::new(24) }.validate().unwrap_err();
    /// assert_eq!(e.param, "angle_deg");
    /// assert_eq!(e.to_string(), "grid angle 90 outside 0..45 degrees");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(1..=4096).contains(&self.n) {
            return Err(ParamError::new("n", format!("grid {} outside 1..4096 tiles", self.n)));
        }
        let pos = |param: &'static str, name: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(ParamError::new(param, format!("{name} {v} must be positive")))
            }
        };
        pos("tile", "tile size", self.tile)?;
        pos("relief_scale", "relief scale", self.relief_scale())?;
        if !(0.0..=100.0).contains(&self.relief) {
            return Err(ParamError::new("relief", format!("relief {} outside 0..100", self.relief)));
        }
        if !(0.0..=45.0).contains(&self.angle_deg) {
            return Err(ParamError::new("angle_deg", format!("grid angle {} outside 0..45 degrees", self.angle_deg)));
        }
        if !(0.0..=3.0).contains(&self.detail) {
            return Err(ParamError::new("detail", format!("detail {} outside 0..3", self.detail)));
        }
        if !(1..=16).contains(&self.over()) {
            return Err(ParamError::new("over", format!("oversampling {} outside 1..16", self.over())));
        }
        if self.n * self.over() > 8192 {
            return Err(ParamError::new(
                "over",
                format!("{} tiles × {} samples per tile exceeds 8192 samples per side", self.n, self.over()),
            ));
        }
        Ok(())
    }

    /// [`GridMapping::validate`] with the error as its message.
    pub fn check(&self) -> Result<(), String> {
        self.validate().map_err(|e| e.to_string())
    }
}

/// Samples per tile side the viewer uses for a grid of `n` tiles.
pub fn oversampling(n: usize) -> usize {
    if n <= 64 {
        4
    } else if n <= 160 {
        2
    } else {
        1
    }
}

fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl Field {
    /// Stretch `heights` (`w × h`, row 0 north, finite) to 0..1 and derive the detail mask.
    pub fn new(width: usize, height: usize, heights: &[f64]) -> Result<Field, String> {
        if width < 2 || height < 2 || heights.len() != width * height {
            return Err(format!("height field {width}×{height} with {} values", heights.len()));
        }
        if let Some(i) = heights.iter().position(|v| !v.is_finite()) {
            return Err(format!("height at column {}, row {} is not finite", i % width, i / width));
        }
        let z = crate::cues::unit(heights);
        let (w, h) = (width, height);
        // Gradient magnitude in texels (central differences, clamped).
        let mut grad = vec![0.0; w * h];
        for r in 0..h {
            for c in 0..w {
                let gx = (z[r * w + (c + 1).min(w - 1)] - z[r * w + c.saturating_sub(1)]) * 0.5;
                let gy = (z[(r + 1).min(h - 1) * w + c] - z[r.saturating_sub(1) * w + c]) * 0.5;
                grad[r * w + c] = gx.hypot(gy);
            }
        }
        let p95 = crate::cues::quantile(&grad, 0.95).max(1e-12);
        let radius = ((w.max(h) as f64 / 48.0).round() as usize).max(2);
        let open = crate::cues::unit(&box_residual(&z, w, h, radius));
        let mask =
            (0..w * h).map(|i| smoothstep(0.3, 0.75, grad[i] / p95).max(smoothstep(0.6, 0.9, open[i]))).collect();
        Ok(Field { width, height, z, mask, open })
    }

    fn texel(&self, plane: &[f64], fx: f64, fy: f64) -> f64 {
        let (w, h) = (self.width, self.height);
        let (x, y) = (mirror(fx, w), mirror(fy, h));
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (tx, ty) = (x - x0 as f64, y - y0 as f64);
        let a = plane[y0 * w + x0] * (1.0 - tx) + plane[y0 * w + x1] * tx;
        let b = plane[y1 * w + x0] * (1.0 - tx) + plane[y1 * w + x1] * tx;
        a * (1.0 - ty) + b * ty
    }

    /// Field texel coordinates of world point `(x, y)` for this mapping.
    fn texel_coords(&self, map: &GridMapping, x: f64, y: f64) -> (f64, f64) {
        let long = self.width.max(self.height) as f64 - 1.0;
        let ext = map.relief_scale() * map.tile;
        let fx = x / ext * long + (self.width as f64 - 1.0) / 2.0;
        let fy = -y / ext * long + (self.height as f64 - 1.0) / 2.0;
        (fx, fy)
    }

    /// The drawn height at world point `(x, y)`.
    pub fn height_at(&self, map: &GridMapping, x: f64, y: f64) -> f64 {
        let (fx, fy) = self.texel_coords(map, x, y);
        let base = map.amplitude() * (self.texel(&self.z, fx, fy) - 0.5) * 2.0;
        if map.detail <= 0.0 {
            return base;
        }
        let m = self.texel(&self.mask, fx, fy);
        base + detail_relief(map, x, y) * m
    }
}

/// Reflect a texel coordinate into `0..=len−1` with period `2(len−1)`.
fn mirror(t: f64, len: usize) -> f64 {
    let span = (len - 1) as f64;
    let p = t.rem_euclid(2.0 * span);
    if p > span {
        2.0 * span - p
    } else {
        p
    }
}

/// `z − mean over the clipped (2r+1)² window`, via a summed-area table.
fn box_residual(z: &[f64], w: usize, h: usize, r: usize) -> Vec<f64> {
    let sw = w + 1;
    let mut s = vec![0.0; sw * (h + 1)];
    for y in 0..h {
        let mut row = 0.0;
        for x in 0..w {
            row += z[y * w + x];
            s[(y + 1) * sw + x + 1] = s[y * sw + x + 1] + row;
        }
    }
    let mut out = vec![0.0; w * h];
    for y in 0..h {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let sum = s[y1 * sw + x1] - s[y0 * sw + x1] - s[y1 * sw + x0] + s[y0 * sw + x0];
            out[y * w + x] = z[y * w + x] - sum / ((y1 - y0) * (x1 - x0)) as f64;
        }
    }
    out
}

/// Value noise in 0..1 from the canonical hash (seed 0, 24-bit lattice values, smoothstep).
fn value_noise(x: f64, y: f64) -> f64 {
    let (xf, yf) = (x.floor(), y.floor());
    let (ix, iy) = (xf as i64 as u32, yf as i64 as u32);
    let v = |a: u32, b: u32| f64::from(hash_u32(a, b, 0) >> 8) / 16_777_216.0;
    let (tx, ty) = (x - xf, y - yf);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let a = v(ix, iy) * (1.0 - sx) + v(ix.wrapping_add(1), iy) * sx;
    let b = v(ix, iy.wrapping_add(1)) * (1.0 - sx) + v(ix.wrapping_add(1), iy.wrapping_add(1)) * sx;
    a * (1.0 - sy) + b * sy
}

/// The unmasked detail grain at world `(x, y)`.
fn detail_relief(map: &GridMapping, x: f64, y: f64) -> f64 {
    let amp = 0.05 * map.detail * map.tile;
    let f = 1.0 / (0.7 * map.tile);
    let (qx, qy) = (x * f, y * f);
    let r1 = 1.0 - (2.0 * value_noise(qx, qy) - 1.0).abs();
    let r2 = 1.0 - (2.0 * value_noise(2.03 * qx + 17.3, 2.03 * qy + 5.1) - 1.0).abs();
    amp * ((r1 * r1 + 0.5 * r2 * r2) / 1.5 - 0.5)
}

/// World centre `(x, y)` of tile `(i, j)`; `i` east, `j` south (row order of the decision).
pub fn tile_centre(map: &GridMapping, i: usize, j: usize) -> (f64, f64) {
    let half = (map.n as f64 - 1.0) / 2.0;
    let (lx, ly) = ((i as f64 - half) * map.tile, (half - j as f64) * map.tile);
    let a = map.angle_deg.to_radians();
    (a.cos() * lx - a.sin() * ly, a.sin() * lx + a.cos() * ly)
}

/// Heights sampled for the rule: `(n·over)²` values, north row first, spanning the tile
/// centres (`step = (n − 1)·tile / (m − 1)`), rotated by the grid angle.
pub fn sample_grid(field: &Field, map: &GridMapping) -> Vec<f64> {
    sample_with(map, |x, y| field.height_at(map, x, y))
}

/// A second field (e.g. the sediment record) sampled at the same points, without relief or
/// detail: its unit-stretched value.
pub fn sample_plain(field: &Field, map: &GridMapping) -> Vec<f64> {
    sample_with(map, |x, y| {
        let (fx, fy) = field.texel_coords(map, x, y);
        field.texel(&field.z, fx, fy)
    })
}

fn sample_with(map: &GridMapping, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let m = map.n * map.over();
    let span = (map.n as f64 - 1.0) * map.tile;
    let step = if m > 1 { span / (m as f64 - 1.0) } else { 0.0 };
    let half = (m as f64 - 1.0) / 2.0;
    let a = map.angle_deg.to_radians();
    let (ca, sa) = (a.cos(), a.sin());
    let mut out = Vec::with_capacity(m * m);
    for r in 0..m {
        let ly = (half - r as f64) * step;
        for c in 0..m {
            let lx = (c as f64 - half) * step;
            out.push(f(ca * lx - sa * ly, sa * lx + ca * ly));
        }
    }
    out
}

/// Lay a terrain (and its sediment record, when there is one) under the tile grid and apply the
/// rule: [`sample_grid`] for the heights, [`sample_plain`] for the sediment, then
/// [`crate::classify::classify`] with the tile side as the fine spacing. This is the whole of
/// what `bozkir classify` decides and what the viewer decides through `bozkir-wasm`, so both call
/// this one function. `opts.spacing` is replaced by `map.tile`.
///
/// # Examples
///
/// Two classes of the built-in rule on an 8 × 8 tile grid over a small valley, with a target
/// share of 30 % for class 0 ("collected"):
///
/// ```
/// use bozkir_material::tilegrid::{classify_on_grid, Field, GridMapping};
/// use bozkir_material::{Balance, ClassifyOptions, Rule};
///
/// let (w, h) = (24, 24);
/// let heights: Vec<f64> =
///     (0..w * h).map(|i| ((i % w) as f64 - 11.5).abs() * 3.0 + (i / w) as f64 * 0.5).collect();
/// let field = Field::new(w, h, &heights).unwrap();
/// let map = GridMapping::new(8);
/// let opts = ClassifyOptions {
///     classes: 2,
///     spacing: 1.0,
///     radius: None,
///     sharpness: 2.0,
///     altitude: 0.4,
///     coherence: 0,
///     balance: Balance::Share(0.3),
/// };
/// let d = classify_on_grid(&field, None, &map, &Rule::builtin(), &opts).unwrap();
/// assert_eq!((d.n, d.class.len()), (8, 64));
/// assert!(d.class.iter().all(|&c| c < 2));
/// assert!((d.shares()[0] - 0.3).abs() < 0.02); // exact shares, to one tile
/// assert_eq!(d.source.name(), "drainage"); // no sediment record given
/// ```
pub fn classify_on_grid(
    height: &Field,
    sediment: Option<&Field>,
    map: &GridMapping,
    rule: &Rule,
    opts: &ClassifyOptions,
) -> Result<Decision, ClassifyError> {
    map.check().map_err(ClassifyError::Input)?;
    let z = sample_grid(height, map);
    let sed = sediment.map(|f| sample_plain(f, map));
    let opts = ClassifyOptions { spacing: map.tile, ..opts.clone() };
    classify(&z, map.n, sed.as_deref(), rule, &opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: usize, h: usize) -> Field {
        let z: Vec<f64> = (0..w * h).map(|i| (i % w) as f64).collect();
        Field::new(w, h, &z).unwrap()
    }

    #[test]
    fn oversampling_follows_the_grid() {
        assert_eq!(oversampling(24), 4);
        assert_eq!(oversampling(64), 4);
        assert_eq!(oversampling(65), 2);
        assert_eq!(oversampling(160), 2);
        assert_eq!(oversampling(161), 1);
    }

    #[test]
    fn field_spans_the_relief_scale_and_mirrors_beyond() {
        let f = ramp(33, 17);
        let mut map = GridMapping::new(8);
        map.detail = 0.0;
        map.relief = 1.0;
        map.relief_scale = Some(8.0);
        let amp = map.amplitude();
        assert_eq!(amp, 1.0);
        // Centre of the field is mid height; the east edge (x = +4 tiles) is the top.
        assert!(f.height_at(&map, 0.0, 0.0).abs() < 1e-12);
        assert!((f.height_at(&map, 4.0, 0.0) - 1.0).abs() < 1e-12);
        assert!((f.height_at(&map, -4.0, 0.0) + 1.0).abs() < 1e-12);
        // Mirrored: one width beyond the east edge is the west edge's value, half-way back is mid.
        assert!((f.height_at(&map, 12.0, 0.0) + 1.0).abs() < 1e-12);
        assert!((f.height_at(&map, 8.0, 0.0)).abs() < 1e-12);
        // Continuous across the edge.
        let a = f.height_at(&map, 4.0 - 1e-6, 0.0);
        let b = f.height_at(&map, 4.0 + 1e-6, 0.0);
        assert!((a - b).abs() < 1e-5);
        // Relief grows with the world beyond 24 tiles.
        map.relief_scale = Some(48.0);
        assert_eq!(map.amplitude(), 2.0);
    }

    #[test]
    fn sample_grid_is_north_first_and_spans_the_tile_centres() {
        // Heights rising northward (row 0 of the field is north and highest).
        let h = 21;
        let z: Vec<f64> = (0..h * h).map(|i| (h - i / h) as f64).collect();
        let f = Field::new(h, h, &z).unwrap();
        let mut map = GridMapping::new(5);
        map.detail = 0.0;
        let s = sample_grid(&f, &map);
        let m = 5 * 4;
        assert_eq!(s.len(), m * m);
        assert!(s[0] > s[(m - 1) * m], "north row must come first");
        // Corner samples sit on the corner tile centres.
        let (x, y) = tile_centre(&map, 0, 0);
        assert_eq!((x, y), (-2.0, 2.0));
        assert!((s[0] - f.height_at(&map, x, y)).abs() < 1e-12);
        let (x, y) = tile_centre(&map, 4, 4);
        assert!((s[m * m - 1] - f.height_at(&map, x, y)).abs() < 1e-12);
    }

    #[test]
    fn detail_relief_only_where_the_mask_allows_and_is_small() {
        let flat = Field::new(8, 8, &[1.0; 64]).unwrap();
        assert!(flat.z.iter().all(|&v| v == 0.5));
        let map = GridMapping::new(6);
        // Flat field: no slope and openness 0.5 → mask 0 → no detail.
        assert!(sample_grid(&flat, &map).iter().all(|&v| v.abs() < 1e-12));
        let f = ramp(33, 33);
        let mut a = GridMapping::new(6);
        a.detail = 3.0;
        let mut b = a.clone();
        b.detail = 0.0;
        let (sa, sb) = (sample_grid(&f, &a), sample_grid(&f, &b));
        let max = sa.iter().zip(&sb).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(max > 1e-3 && max <= 0.05 * 3.0 * 0.5 + 1e-12, "{max}");
    }

    #[test]
    fn bad_mappings_are_named() {
        let mut m = GridMapping::new(10);
        m.tile = 0.0;
        assert!(m.check().unwrap_err().contains("tile size"));
        let mut m = GridMapping::new(10);
        m.angle_deg = 60.0;
        assert!(m.check().unwrap_err().contains("angle"));
        assert!(GridMapping::new(0).check().is_err());
        assert!(Field::new(2, 2, &[0.0, f64::NAN, 1.0, 1.0]).unwrap_err().contains("row 0"));
    }
}
