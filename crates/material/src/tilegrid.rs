//! The one mapping from a terrain to the tile grid, shared by the CLI and the viewer (which runs
//! this code compiled to WebAssembly), so both decide the same classes.
//!
//! This path reproduces the original bozkır viewer 5.0 (its `web/heightfield.js`,
//! `web/landform.js` and the height function of `web/viewer.js`) step for step, including the
//! order of floating-point operations and the `f32` planes the viewer holds, so that
//! `bozkir classify` and the page decide the original's class, runner-up and strength on any
//! terrain (tested on committed cases made by the original's own JavaScript:
//! `crates/cli/tests/rule_parity.rs`).
//!
//! World layout: an `n × n` grid of square tiles of side `tile`, centred on the origin and rotated
//! by `angle` degrees; `x` east, `y` north. The terrain's unit-normalised height field spans
//! `relief_scale · tile` across its long edge, centred, and is **mirrored** beyond its edges
//! (period two widths), so any grid size has ground under it. The relief scale follows the grid
//! (`clamp(n, 4, 256)`, the viewer's slider) unless set. The drawn height is
//! `amplitude·(field − 0.5)·2 + detail`, `amplitude = relief·max(1, relief_scale/24)`, and 0 when
//! the amplitude is 0.
//!
//! Detail relief adds a small ridged value-noise grain on steep slopes and crests: amplitude
//! `0.05·detail·tile`, frequency `1/(0.7·tile)`,
//! `detail = amp·mask·((r₁² + 0.5·r₂²)/1.5 − 0.5)` with `rₖ = 1 − |2V − 1|` at `q` and at
//! `2.03q + (17.3, 5.1)`, and `mask = max(smoothstep(0.3, 0.75, |∇z|/p95), smoothstep(0.6, 0.9,
//! openness))` from the field (openness = unit(z − box mean), radius `max(2, round(L/48))`; p95
//! the sorted gradient at `floor(0.95·(len − 1))`). The lattice values of `V` come from the
//! original viewer's hash ([`Compat::Original`], the default) or from the project's canonical
//! [`bozkir_core::hash::hash_u32`] ([`Compat::Canonical`]); nothing else differs between the modes.
//!
//! The rule samples this height on an `(n·over)²` grid; `over` is 4 for grids up to 64, 2 up to
//! 160, else 1 (one sample per tile aliases: channels narrower than a tile vanish). The rule runs
//! on the samples in the original's order, **south row first**, because every exact tie (the
//! share boundary, the quota hand-out, equal drops in the drainage) goes to the lowest index;
//! [`classify_on_grid`] then hands the decision back **north row first**, so its rows are image
//! rows. [`sample_grid`] and [`sample_plain`] return north-first samples.

use crate::classify::{classify, ClassifyError, ClassifyOptions, Decision};
use crate::param::ParamError;
use crate::rule::Rule;
use bozkir_core::hash::hash_u32;

/// Which lattice hash the detail relief grain reads (the only difference between the modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The original viewer 5.0's `dHash` (two multiplies, `h ^ h >>> 13`, `(h & 0xFFFFFF) /
    /// 16777215`): the class maps equal the original's on any terrain.
    #[default]
    Original,
    /// The project's canonical `hash_u32(x, y, 0) >> 8` / 2²⁴, the hash every other part of
    /// bozkir uses; the grain (and tiles near the share boundary) differ from the original's.
    Canonical,
}

impl Compat {
    /// Every mode, in the order the help lists them.
    pub const ALL: [Compat; 2] = [Compat::Original, Compat::Canonical];

    /// The mode's name on the command line and in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Original => "original",
            Compat::Canonical => "canonical",
        }
    }

    /// The mode called `name`; the error lists the known names.
    pub fn from_name(name: &str) -> Result<Compat, ParamError> {
        Compat::ALL.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            ParamError::new("compat", format!("unknown compatibility mode {name:?} (known: original, canonical)"))
        })
    }

    /// The lattice value in 0..1 at integer point `(x, y)` (coordinates wrapped to 32 bits).
    fn lattice(self, x: u32, y: u32) -> f64 {
        match self {
            Compat::Original => {
                let mut h = x.wrapping_mul(0x27D4_EB2D) ^ y.wrapping_mul(0x1656_67B1);
                h = (h ^ (h >> 15)).wrapping_mul(0x85EB_CA6B);
                h ^= h >> 13;
                f64::from(h & 0xFF_FFFF) / 16_777_215.0
            }
            Compat::Canonical => f64::from(hash_u32(x, y, 0) >> 8) / 16_777_216.0,
        }
    }
}

/// A unit-normalised height field (`w × h`, row 0 north), with the detail mask derived from it.
///
/// The planes are `f32`, as the viewer holds them (and as the page's GPU reads them), computed in
/// the viewer's order of operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub width: usize,
    pub height: usize,
    /// Heights stretched to 0..1 (a flat field is 0.5).
    pub z: Vec<f32>,
    /// Where detail relief applies, 0..1.
    pub mask: Vec<f32>,
    /// Openness: the height above the local box mean, stretched to 0..1 (a flat field is 0.5);
    /// the viewer's ground shading darkens hollows with it.
    pub open: Vec<f32>,
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
    /// Tiles the terrain spans across its long edge; `None` = follows the grid
    /// (`clamp(n, 4, 256)`, as the viewer's slider does).
    pub relief_scale: Option<f64>,
    /// Samples per tile side; `None` = [`oversampling`]`(n)`.
    pub over: Option<usize>,
    /// Grid rotation in degrees (0..45).
    pub angle_deg: f64,
    /// Detail relief strength (0 = off; the viewer's range 0.25..3, default 1).
    pub detail: f64,
    /// Which lattice hash the detail grain reads.
    pub compat: Compat,
}

impl GridMapping {
    /// Defaults of the viewer for an `n`-tile grid of unit tiles.
    pub fn new(n: usize) -> Self {
        GridMapping {
            n,
            tile: 1.0,
            relief: 1.2,
            relief_scale: None,
            over: None,
            angle_deg: 0.0,
            detail: 1.0,
            compat: Compat::Original,
        }
    }

    /// The relief scale in tiles: the set one, else `clamp(n, 4, 256)`.
    pub fn relief_scale(&self) -> f64 {
        self.relief_scale.unwrap_or_else(|| self.n.clamp(4, 256) as f64)
    }

    pub fn over(&self) -> usize {
        self.over.unwrap_or_else(|| oversampling(self.n))
    }

    /// `relief·max(1, relief_scale/24)`.
    pub fn amplitude(&self) -> f64 {
        self.relief * (self.relief_scale() / 24.0).max(1.0)
    }

    /// World units the field spans across its long edge (the viewer's `fitTo`).
    pub fn extent(&self) -> f64 {
        (self.relief_scale() * self.tile).max(1e-6)
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

/// `t²(3 − 2t)` of `(x − e0)/(e1 − e0)` clamped to 0..1.
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Box windows up to this radius are summed directly in the viewer's order (bit-identical to
/// it); wider ones (fields over ~800 texels) use prefix sums, equal to it up to `f32` rounding.
const DIRECT_BOX_RADIUS: usize = 16;

/// Mean over the clipped `2r + 1` window along one axis (`stride` apart, `len` long, `lines`
/// lines `step` apart), each mean rounded to `f32`.
fn box_pass(src: &[f32], dst: &mut [f32], len: usize, stride: usize, lines: usize, step: usize, r: usize) {
    let mut prefix = vec![0.0f64; if r > DIRECT_BOX_RADIUS { len + 1 } else { 0 }];
    for line in 0..lines {
        let at = |k: usize| f64::from(src[line * step + k * stride]);
        if r > DIRECT_BOX_RADIUS {
            for k in 0..len {
                prefix[k + 1] = prefix[k] + at(k);
            }
        }
        for k in 0..len {
            let (lo, hi) = (k.saturating_sub(r), (k + r + 1).min(len));
            let sum = if r > DIRECT_BOX_RADIUS { prefix[hi] - prefix[lo] } else { (lo..hi).map(at).sum::<f64>() };
            dst[line * step + k * stride] = (sum / (hi - lo) as f64) as f32;
        }
    }
}

/// The viewer's openness: `unit(z − box mean)` over a `(2r+1)²` window clipped at the edges
/// (separable, rows then columns, each pass rounded to `f32`), flat → 0.5.
fn openness(z: &[f32], w: usize, h: usize) -> Vec<f32> {
    let r = ((w.max(h) as f64 / 48.0).round() as usize).max(2);
    let mut tmp = vec![0.0f32; w * h];
    let mut mean = vec![0.0f32; w * h];
    box_pass(z, &mut tmp, w, 1, h, w, r);
    box_pass(&tmp, &mut mean, h, w, w, 1, r);
    let resid: Vec<f32> = z.iter().zip(&mean).map(|(&a, &m)| (f64::from(a) - f64::from(m)) as f32).collect();
    let lo = resid.iter().map(|&v| f64::from(v)).fold(f64::INFINITY, f64::min);
    let hi = resid.iter().map(|&v| f64::from(v)).fold(f64::NEG_INFINITY, f64::max);
    let d = hi - lo;
    resid.iter().map(|&v| if d > 1e-12 { ((f64::from(v) - lo) / d) as f32 } else { 0.5 }).collect()
}

/// The viewer's `roughnessMask`: full central differences (clamped), their length scaled by the
/// 95th percentile (sorted, index `floor(0.95·(len − 1))`), smoothstep 0.3..0.75, or the crest
/// term smoothstep 0.6..0.9 of openness where larger.
fn roughness_mask(z: &[f32], w: usize, h: usize, open: &[f32]) -> Vec<f32> {
    let at = |x: usize, y: usize| f64::from(z[y * w + x]);
    let mut g = vec![0.0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let dx = at((x + 1).min(w - 1), y) - at(x.saturating_sub(1), y);
            let dy = at(x, (y + 1).min(h - 1)) - at(x, y.saturating_sub(1));
            g[y * w + x] = dx.hypot(dy) as f32;
        }
    }
    let mut sorted = g.clone();
    let k = (0.95 * (sorted.len() - 1) as f64).floor() as usize;
    let (_, p, _) = sorted.select_nth_unstable_by(k, f32::total_cmp);
    let p95 = f64::from(*p).max(1e-9);
    g.iter()
        .zip(open)
        .map(|(&g, &o)| smoothstep(0.3, 0.75, f64::from(g) / p95).max(smoothstep(0.6, 0.9, f64::from(o))) as f32)
        .collect()
}

/// ToInt32 of an integral double, as a lattice coordinate.
fn lattice_coord(v: f64) -> u32 {
    v.rem_euclid(4_294_967_296.0) as u32
}

/// Value noise in 0..1 (smoothstep weights, the viewer's `a + (b − a)·s` interpolation).
fn value_noise(compat: Compat, qx: f64, qy: f64) -> f64 {
    let (xf, yf) = (qx.floor(), qy.floor());
    let (fx, fy) = (qx - xf, qy - yf);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (ix, iy) = (lattice_coord(xf), lattice_coord(yf));
    let (ix1, iy1) = (ix.wrapping_add(1), iy.wrapping_add(1));
    let (a, b) = (compat.lattice(ix, iy), compat.lattice(ix1, iy));
    let (d, e) = (compat.lattice(ix, iy1), compat.lattice(ix1, iy1));
    (a + (b - a) * sx) * (1.0 - sy) + (d + (e - d) * sx) * sy
}

/// The unmasked ridged grain `(r₁² + 0.5·r₂²)/1.5 − 0.5` at world `(x, y)`.
fn detail_grain(map: &GridMapping, x: f64, y: f64) -> f64 {
    let f = 1.0 / (0.7 * map.tile);
    let r1 = 1.0 - (2.0 * value_noise(map.compat, x * f, y * f) - 1.0).abs();
    let r2 = 1.0 - (2.0 * value_noise(map.compat, x * f * 2.03 + 17.3, y * f * 2.03 + 5.1) - 1.0).abs();
    (r1 * r1 + 0.5 * r2 * r2) / 1.5 - 0.5
}

/// Reflect `t` into `0..=n` with period `2n` (the viewer's `mirror`).
fn mirror(t: f64, n: f64) -> f64 {
    let p = 2.0 * n;
    let mut m = t % p;
    if m < 0.0 {
        m += p;
    }
    if m <= n {
        m
    } else {
        p - m
    }
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
        let z: Vec<f32> = crate::cues::unit(heights).into_iter().map(|v| v as f32).collect();
        let open = openness(&z, width, height);
        let mask = roughness_mask(&z, width, height, &open);
        Ok(Field { width, height, z, mask, open })
    }

    /// Bilinear read of `plane` at world `(x, y)`, mirrored past the edges (the viewer's
    /// `HeightField._bilinear`: texel 0 at one edge, `w − 1` at the other; rows run south).
    fn bilinear(&self, plane: &[f32], map: &GridMapping, x: f64, y: f64) -> f64 {
        let (w, h) = (self.width, self.height);
        let scale = (w.max(h) - 1) as f64 / map.extent();
        let u = mirror(x * scale + (w - 1) as f64 * 0.5, (w - 1) as f64);
        let v = mirror((h - 1) as f64 * 0.5 - y * scale, (h - 1) as f64);
        let (x0, y0) = (u as usize, v as usize);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (fx, fy) = (u - x0 as f64, v - y0 as f64);
        let p = |c: usize, r: usize| f64::from(plane[r * w + c]);
        (p(x0, y0) * (1.0 - fx) + p(x1, y0) * fx) * (1.0 - fy) + (p(x0, y1) * (1.0 - fx) + p(x1, y1) * fx) * fy
    }

    /// The drawn height at world point `(x, y)`.
    pub fn height_at(&self, map: &GridMapping, x: f64, y: f64) -> f64 {
        let relief = map.amplitude();
        if relief <= 0.0 {
            return 0.0;
        }
        let base = relief * (self.bilinear(&self.z, map, x, y) - 0.5) * 2.0;
        let amp = 0.05 * map.detail * map.tile;
        if amp <= 0.0 {
            return base;
        }
        base + amp * self.bilinear(&self.mask, map, x, y) * detail_grain(map, x, y)
    }
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
    flip_rows(&sample_south_first(map, |x, y| field.height_at(map, x, y)), map.n * map.over())
}

/// A second field (e.g. the sediment record) sampled at the same points, without relief or
/// detail: its unit-stretched value, north row first.
pub fn sample_plain(field: &Field, map: &GridMapping) -> Vec<f64> {
    flip_rows(&sample_south_first(map, |x, y| field.bilinear(&field.z, map, x, y)), map.n * map.over())
}

/// The viewer's `sampleGrid`: row `j = 0` south (`ly = (j − half)·step`), angle `a·π/180`.
fn sample_south_first(map: &GridMapping, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let m = map.n * map.over();
    let span = (map.n as f64 - 1.0) * map.tile;
    let step = if m > 1 { span / (m as f64 - 1.0) } else { 0.0 };
    let half = (m as f64 - 1.0) / 2.0;
    let a = map.angle_deg * std::f64::consts::PI / 180.0;
    let (ca, sa) = (a.cos(), a.sin());
    let mut out = Vec::with_capacity(m * m);
    for j in 0..m {
        let ly = (j as f64 - half) * step;
        for i in 0..m {
            let lx = (i as f64 - half) * step;
            out.push(f(ca * lx - sa * ly, sa * lx + ca * ly));
        }
    }
    out
}

/// The rows of an `n × n` array in reverse order.
fn flip_rows<T: Clone>(a: &[T], n: usize) -> Vec<T> {
    a.chunks(n.max(1)).rev().flatten().cloned().collect()
}

/// Lay a terrain (and its sediment record, when there is one) under the tile grid and apply the
/// rule: the heights and the sediment sampled as the viewer samples them, then
/// [`crate::classify::classify`] with the tile side as the fine spacing, on the samples in the
/// viewer's south-first order (so every exact tie falls as the viewer's does); the decision comes
/// back north row first. This is the whole of what `bozkir classify` decides and what the viewer
/// decides through `bozkir-wasm`, so both call this one function. `opts.spacing` is replaced by
/// `map.tile`.
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
    let z = sample_south_first(map, |x, y| height.height_at(map, x, y));
    let sed = sediment.map(|f| sample_south_first(map, |x, y| f.bilinear(&f.z, map, x, y)));
    let opts = ClassifyOptions { spacing: map.tile, ..opts.clone() };
    let d = classify(&z, map.n, sed.as_deref(), rule, &opts)?;
    Ok(d.flip_rows())
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
    fn the_two_lattice_hashes_are_pinned() {
        // The original viewer's dHash(1, 0) and hash_u32(1, 0, 0) >> 8 (0x80f575f2).
        assert_eq!(Compat::Original.lattice(1, 0), 14_462_411.0 / 16_777_215.0);
        assert_eq!(Compat::Canonical.lattice(1, 0), f64::from(0x80f5_75f2u32 >> 8) / 16_777_216.0);
        assert_eq!(Compat::Original.lattice(u32::MAX, 7), {
            let mut h = u32::MAX.wrapping_mul(0x27D4_EB2D) ^ 7u32.wrapping_mul(0x1656_67B1);
            h = (h ^ (h >> 15)).wrapping_mul(0x85EB_CA6B);
            f64::from((h ^ (h >> 13)) & 0xFF_FFFF) / 16_777_215.0
        });
        for c in Compat::ALL {
            assert_eq!(Compat::from_name(c.name()).unwrap(), c);
        }
        let e = Compat::from_name("pyworldgen").unwrap_err();
        assert_eq!((e.param, e.to_string().contains("original, canonical")), ("compat", true));
        // Negative lattice coordinates wrap as JavaScript's ToInt32 does.
        assert_eq!(lattice_coord(-1.0), u32::MAX);
        assert_eq!(lattice_coord(-4_294_967_297.0), u32::MAX);
    }

    #[test]
    fn the_relief_scale_follows_the_grid_within_the_sliders_range() {
        assert_eq!(GridMapping::new(2).relief_scale(), 4.0);
        assert_eq!(GridMapping::new(40).relief_scale(), 40.0);
        assert_eq!(GridMapping::new(300).relief_scale(), 256.0);
        let mut m = GridMapping::new(8);
        m.relief = 0.0;
        assert_eq!(ramp(9, 9).height_at(&m, 0.3, 0.2), 0.0, "no relief, no height (not even detail)");
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
