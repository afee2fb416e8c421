//! The biome palette: per biome a terrain profile h_T over the whole world, a colour, a tree
//! density and a niche in (elevation, moisture) control space.
//!
//! The built-in palette is pyworldgen 0.1.8's `default_palette` (water, plains, forest, hills,
//! mountains). Custom palettes are read from TOML or JSON text:
//!
//! ```toml
//! [[biome]]
//! name = "steppe"
//! profile = "plains"          # a built-in profile, or "profile:NAME" / "recipe:NAME"
//! color = [190, 170, 110]
//! tree_density = 0.02
//! niche = [0.45, 0.2]         # (elevation, moisture) in [0, 1]
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Result, WorldError};
use crate::field::WorldGrid;
use crate::random::Noise;

/// Largest palette accepted (biome indices are stored as `u16`; weights cost memory per biome).
pub const MAX_BIOMES: usize = 64;

/// pyworldgen's built-in terrain profiles. Each is `base + a + b·n(x·f, y·f)` with `n` a
/// signed (or, for mountains, ridged) fBM of the pyworldgen hash noise:
///
/// | profile   | a  | b  | n                 | f (1/m) | octaves | seed offset |
/// |-----------|----|----|-------------------|---------|---------|-------------|
/// | plains    | 0  | 1  | signed fBM        | 0.020   | 3       | +1          |
/// | forest    | 3  | 4  | signed fBM        | 0.020   | 3       | +2          |
/// | hills     | 6  | 9  | signed fBM        | 0.025   | 4       | +3          |
/// | mountains | 8  | 50 | ridged fBM        | 0.018   | 5       | +4          |
/// | water     | −5 | 3  | signed fBM        | 0.030   | 3       | +5          |
///
/// Only water has water: depth `max(0, (base − 1) − h)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileKind {
    /// Lake floor 5 m below base with water up to base − 1.
    Water,
    /// Gentle ±1 m plain.
    Plains,
    /// Rolling ground 3 ± 4 m above base.
    Forest,
    /// Hills 6 ± 9 m above base.
    Hills,
    /// Ridged mountains 8 to 58 m above base.
    Mountains,
}

impl ProfileKind {
    /// Every built-in, in palette order.
    pub const ALL: [ProfileKind; 5] =
        [ProfileKind::Water, ProfileKind::Plains, ProfileKind::Forest, ProfileKind::Hills, ProfileKind::Mountains];

    /// The built-in's name.
    pub fn name(self) -> &'static str {
        match self {
            ProfileKind::Water => "water",
            ProfileKind::Plains => "plains",
            ProfileKind::Forest => "forest",
            ProfileKind::Hills => "hills",
            ProfileKind::Mountains => "mountains",
        }
    }

    /// The built-in named `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// (height, water depth) at (x, y) metres for the world seed `seed` and base level `base`,
    /// in pyworldgen's float64 operation order.
    #[inline]
    pub fn eval(self, noise: &dyn Noise, x: f64, y: f64, seed: i64, base: f64) -> (f64, f64) {
        match self {
            ProfileKind::Plains => (base + 1.0 * noise.signed_fbm2(x * 0.020, y * 0.020, 3, seed.wrapping_add(1)), 0.0),
            ProfileKind::Forest => {
                (base + 3.0 + 4.0 * noise.signed_fbm2(x * 0.020, y * 0.020, 3, seed.wrapping_add(2)), 0.0)
            }
            ProfileKind::Hills => {
                (base + 6.0 + 9.0 * noise.signed_fbm2(x * 0.025, y * 0.025, 4, seed.wrapping_add(3)), 0.0)
            }
            ProfileKind::Mountains => {
                (base + 8.0 + 50.0 * noise.ridged_fbm2(x * 0.018, y * 0.018, 5, seed.wrapping_add(4)), 0.0)
            }
            ProfileKind::Water => {
                let h = base - 5.0 + 3.0 * noise.signed_fbm2(x * 0.030, y * 0.030, 3, seed.wrapping_add(5));
                (h, f64::max(0.0, (base - 1.0) - h))
            }
        }
    }
    /// (frequency 1/m, octaves, seed offset, a, b) of the built-in (see the type's table).
    fn coefficients(self) -> (f64, u32, i64, f64, f64) {
        match self {
            ProfileKind::Plains => (0.020, 3, 1, 0.0, 1.0),
            ProfileKind::Forest => (0.020, 3, 2, 3.0, 4.0),
            ProfileKind::Hills => (0.025, 4, 3, 6.0, 9.0),
            ProfileKind::Mountains => (0.018, 5, 4, 8.0, 50.0),
            ProfileKind::Water => (0.030, 3, 5, -5.0, 3.0),
        }
    }

    /// [`ProfileKind::eval`] along a row at y for the cell-centre xs, bit for bit, with the
    /// row noise of [`super::rownoise`]; `xin` is scratch of the row's length.
    #[allow(clippy::too_many_arguments)]
    pub fn eval_row(
        self,
        noise: &dyn Noise,
        xs: &[f64],
        y: f64,
        seed: i64,
        base: f64,
        xin: &mut [f64],
        height: &mut [f64],
        water: &mut [f64],
    ) {
        let (f, octaves, offset, a, b) = self.coefficients();
        for (v, &x) in xin.iter_mut().zip(xs) {
            *v = x * f;
        }
        let seed = seed.wrapping_add(offset);
        if self == ProfileKind::Mountains {
            super::rownoise::ridged_fbm2_row(noise, xin, y * f, octaves, seed, height);
        } else {
            super::rownoise::signed_fbm2_row(noise, xin, y * f, octaves, seed, height);
        }
        // `base + a + b·n` evaluates as `(base + a) + b·n`; `base + 1.0·n` keeps its product.
        for h in height.iter_mut() {
            *h = if a == 0.0 { base + b * *h } else { base + a + b * *h };
        }
        if self == ProfileKind::Water {
            for (w, &h) in water.iter_mut().zip(height.iter()) {
                *w = f64::max(0.0, (base - 1.0) - h);
            }
        } else {
            water.fill(0.0);
        }
    }
}

/// A biome's terrain h_T, defined over the whole world so blends stay continuous.
#[derive(Debug, Clone, PartialEq)]
pub enum BiomeProfile {
    /// One of pyworldgen's profile functions.
    Builtin(ProfileKind),
    /// A height field generated once (a named profile, a recipe output, a DEM), stretched over
    /// the world and sampled bilinearly at the world's cell centres; its heights and water
    /// depths are taken as they are (no base level added).
    Grid(WorldGrid),
    /// A named profile or recipe (`profile:NAME`, `recipe:NAME`) not generated yet: the face
    /// generates it and replaces it with [`BiomeProfile::Grid`] ([`Palette::resolve`]).
    Named(String),
}

/// One biome of the palette.
#[derive(Debug, Clone, PartialEq)]
pub struct BiomeType {
    /// Unique name (`water`, `plains`, …).
    pub name: String,
    /// The profile as the palette text names it (`hills`, `profile:alpine`).
    pub profile_name: String,
    /// The terrain h_T.
    pub profile: BiomeProfile,
    /// sRGB colour.
    pub color: [u8; 3],
    /// Trees per unit of acceptance, in [0, 1].
    pub tree_density: f64,
    /// Preferred (elevation, moisture), each in [0, 1]; a region takes the biome whose niche
    /// is nearest (squared Euclidean distance, first on ties).
    pub niche: (f64, f64),
}

/// An ordered list of biomes; weights, the dominant index and region types refer to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    /// The biomes in order.
    pub biomes: Vec<BiomeType>,
}

/// One biome as palette text writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiomeSpec {
    /// Unique name.
    pub name: String,
    /// A built-in profile name or `profile:NAME` / `recipe:NAME`.
    pub profile: String,
    /// sRGB colour, three integers 0–255.
    pub color: [u8; 3],
    /// In [0, 1].
    pub tree_density: f64,
    /// (elevation, moisture), each in [0, 1].
    pub niche: [f64; 2],
}

/// A palette file: a list of `[[biome]]` tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaletteSpec {
    /// The biomes in order.
    pub biome: Vec<BiomeSpec>,
}

fn builtin(name: &str, kind: ProfileKind, color: [u8; 3], tree_density: f64, niche: (f64, f64)) -> BiomeType {
    BiomeType {
        name: name.to_string(),
        profile_name: kind.name().to_string(),
        profile: BiomeProfile::Builtin(kind),
        color,
        tree_density,
        niche,
    }
}

impl Default for Palette {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Palette {
    /// pyworldgen's `default_palette()`: water, plains, forest, hills, mountains with their
    /// colours, tree densities and niches.
    pub fn builtin() -> Self {
        Self {
            biomes: vec![
                builtin("water", ProfileKind::Water, [60, 110, 175], 0.00, (0.15, 0.60)),
                builtin("plains", ProfileKind::Plains, [150, 175, 95], 0.08, (0.40, 0.30)),
                builtin("forest", ProfileKind::Forest, [56, 110, 64], 0.95, (0.50, 0.82)),
                builtin("hills", ProfileKind::Hills, [120, 140, 92], 0.25, (0.64, 0.45)),
                builtin("mountains", ProfileKind::Mountains, [140, 138, 132], 0.00, (0.90, 0.40)),
            ],
        }
    }

    /// Parse a palette from TOML text; unknown keys are refused with their line and column.
    pub fn from_toml(text: &str) -> Result<Self> {
        let spec: PaletteSpec = toml::from_str(text)
            .map_err(|e| WorldError::Invalid(format!("palette: {}", e.to_string().trim().replace('\n', " "))))?;
        Self::from_spec(&spec)
    }

    /// Parse a palette from JSON text (`{"biome": [{…}, …]}`); unknown keys are refused with
    /// their line and column.
    pub fn from_json(text: &str) -> Result<Self> {
        let spec: PaletteSpec = serde_json::from_str(text).map_err(|e| WorldError::Invalid(format!("palette: {e}")))?;
        Self::from_spec(&spec)
    }

    /// Build and validate a palette from its text form.
    pub fn from_spec(spec: &PaletteSpec) -> Result<Self> {
        let biomes = spec
            .biome
            .iter()
            .map(|b| {
                let profile = parse_profile(&b.name, &b.profile)?;
                Ok(BiomeType {
                    name: b.name.clone(),
                    profile_name: b.profile.clone(),
                    profile,
                    color: b.color,
                    tree_density: b.tree_density,
                    niche: (b.niche[0], b.niche[1]),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let palette = Self { biomes };
        palette.validate()?;
        Ok(palette)
    }

    /// The text form (what a `world.json` records; a grid profile keeps its palette name).
    pub fn to_spec(&self) -> PaletteSpec {
        PaletteSpec {
            biome: self
                .biomes
                .iter()
                .map(|b| BiomeSpec {
                    name: b.name.clone(),
                    profile: b.profile_name.clone(),
                    color: b.color,
                    tree_density: b.tree_density,
                    niche: [b.niche.0, b.niche.1],
                })
                .collect(),
        }
    }

    /// The named profiles and recipes the face must generate (`profile:NAME`, `recipe:NAME`).
    pub fn named_profiles(&self) -> Vec<&str> {
        self.biomes
            .iter()
            .filter_map(|b| match &b.profile {
                BiomeProfile::Named(n) => Some(n.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Replace every named profile by the grid `generate(name)` returns (called once per name).
    pub fn resolve(&mut self, mut generate: impl FnMut(&str) -> Result<WorldGrid>) -> Result<()> {
        for b in &mut self.biomes {
            if let BiomeProfile::Named(n) = &b.profile {
                let grid = generate(n)?;
                check_grid(&b.name, &grid)?;
                b.profile = BiomeProfile::Grid(grid);
            }
        }
        Ok(())
    }

    /// Check names (unique, non-empty), colours, densities in [0, 1], niches in [0, 1], grid
    /// profiles (at least 1 × 1, finite, matching lengths) and the palette size.
    pub fn validate(&self) -> Result<()> {
        let n = self.biomes.len();
        if n == 0 || n > MAX_BIOMES {
            return Err(WorldError::Invalid(format!("palette: {n} biomes; need 1 to {MAX_BIOMES}")));
        }
        for (i, b) in self.biomes.iter().enumerate() {
            if b.name.is_empty() || self.biomes[..i].iter().any(|o| o.name == b.name) {
                return Err(WorldError::Invalid(format!("palette: biome {i} name `{}` is empty or repeated", b.name)));
            }
            let bad = |key: &str, v: String| {
                WorldError::Invalid(format!("palette: biome `{}`: {key} = {v} must be finite and in [0, 1]", b.name))
            };
            if !(0.0..=1.0).contains(&b.tree_density) {
                return Err(bad("tree_density", b.tree_density.to_string()));
            }
            if !(0.0..=1.0).contains(&b.niche.0) || !(0.0..=1.0).contains(&b.niche.1) {
                return Err(bad("niche", format!("[{}, {}]", b.niche.0, b.niche.1)));
            }
            if let BiomeProfile::Grid(g) = &b.profile {
                check_grid(&b.name, g)?;
            }
        }
        Ok(())
    }

    /// Biome names in order.
    pub fn names(&self) -> Vec<String> {
        self.biomes.iter().map(|b| b.name.clone()).collect()
    }
}

fn parse_profile(biome: &str, text: &str) -> Result<BiomeProfile> {
    if let Some(kind) = ProfileKind::from_name(text) {
        return Ok(BiomeProfile::Builtin(kind));
    }
    let named = ["profile:", "recipe:"].iter().any(|p| text.strip_prefix(p).is_some_and(|rest| !rest.is_empty()));
    if named {
        return Ok(BiomeProfile::Named(text.to_string()));
    }
    let known: Vec<&str> = ProfileKind::ALL.iter().map(|k| k.name()).collect();
    Err(WorldError::Unknown {
        what: "palette profile",
        name: format!("{text}` (biome `{biome}"),
        known: format!("{}, profile:NAME, recipe:NAME", known.join(", ")),
    })
}

fn check_grid(biome: &str, g: &WorldGrid) -> Result<()> {
    let n = g.nx.saturating_mul(g.ny);
    let ok = g.nx >= 1
        && g.ny >= 1
        && g.height.len() == n
        && g.water_depth.len() == n
        && g.height.iter().chain(&g.water_depth).all(|v| v.is_finite());
    if ok {
        Ok(())
    } else {
        Err(WorldError::Invalid(format!(
            "palette: biome `{biome}`: grid profile {} x {} with {} heights and {} water depths (need matching, \
             finite, non-empty)",
            g.nx,
            g.ny,
            g.height.len(),
            g.water_depth.len()
        )))
    }
}

/// Bilinear sample of a south-first field at fractional cell coordinates (`gx`, `gy`), where
/// integer values are cell centres; clamped to the outer cell centres. The weights are
/// `(1 − fx)(1 − fy)`, `fx(1 − fy)`, `(1 − fx)fy`, `fx·fy` in the order
/// `(v00 + (v10 − v00)·fx) + ((v01 + (v11 − v01)·fx) − (v00 + (v10 − v00)·fx))·fy`.
#[inline]
pub fn bilinear(values: &[f64], nx: usize, ny: usize, gx: f64, gy: f64) -> f64 {
    let gx = gx.clamp(0.0, (nx - 1) as f64);
    let gy = gy.clamp(0.0, (ny - 1) as f64);
    let (i0, j0) = (gx.floor() as usize, gy.floor() as usize);
    let (i1, j1) = ((i0 + 1).min(nx - 1), (j0 + 1).min(ny - 1));
    let (fx, fy) = (gx - i0 as f64, gy - j0 as f64);
    let v00 = values[j0 * nx + i0];
    let v10 = values[j0 * nx + i1];
    let v01 = values[j1 * nx + i0];
    let v11 = values[j1 * nx + i1];
    let a = v00 + (v10 - v00) * fx;
    let b = v01 + (v11 - v01) * fx;
    a + (b - a) * fy
}

/// A grid profile sampled at world position (x, y) in a world of extent (`ext_x`, `ext_y`)
/// metres: the grid is stretched over the world, so its cell (i, j) centre sits at
/// `((i + ½)/gnx·ext_x, (j + ½)/gny·ext_y)`.
#[inline]
pub fn sample_grid(g: &WorldGrid, x: f64, y: f64, ext_x: f64, ext_y: f64) -> (f64, f64) {
    let gx = x / ext_x * g.nx as f64 - 0.5;
    let gy = y / ext_y * g.ny as f64 - 0.5;
    (bilinear(&g.height, g.nx, g.ny, gx, gy), bilinear(&g.water_depth, g.nx, g.ny, gx, gy))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
[[biome]]
name = "steppe"
profile = "plains"
color = [190, 170, 110]
tree_density = 0.02
niche = [0.45, 0.2]

[[biome]]
name = "alps"
profile = "profile:alpine"
color = [150, 150, 150]
tree_density = 0.0
niche = [0.9, 0.5]
"#;

    #[test]
    fn builtin_is_pyworldgens_default_palette() {
        let p = Palette::builtin();
        assert_eq!(p.names(), ["water", "plains", "forest", "hills", "mountains"]);
        assert_eq!(p.biomes[2].color, [56, 110, 64]);
        assert_eq!(p.biomes[2].tree_density, 0.95);
        assert_eq!(p.biomes[4].niche, (0.90, 0.40));
        // The round trip through the text form keeps everything.
        let text = toml::to_string(&p.to_spec()).unwrap();
        assert_eq!(Palette::from_toml(&text).unwrap(), p);
        let json = serde_json::to_string(&p.to_spec()).unwrap();
        assert_eq!(Palette::from_json(&json).unwrap(), p);
    }

    #[test]
    fn custom_palette_and_named_profiles() {
        let mut p = Palette::from_toml(TOML).unwrap();
        assert_eq!(p.biomes[0].profile, BiomeProfile::Builtin(ProfileKind::Plains));
        assert_eq!(p.named_profiles(), ["profile:alpine"]);
        let mut calls = 0;
        p.resolve(|name| {
            calls += 1;
            assert_eq!(name, "profile:alpine");
            Ok(WorldGrid::new(2, 2, 1.0, 1.0, vec![1.0, 2.0, 3.0, 4.0]))
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert!(matches!(p.biomes[1].profile, BiomeProfile::Grid(_)));
        assert_eq!(p.to_spec().biome[1].profile, "profile:alpine");
    }

    #[test]
    fn unknown_keys_refused_with_the_line() {
        let bad = TOML.replace("tree_density = 0.02", "trees = 0.02");
        let e = Palette::from_toml(&bad).unwrap_err().to_string();
        assert!(e.contains("line 6") && e.contains("trees"), "{e}");
        let json = "{\"biome\": [\n {\"name\": \"a\", \"profile\": \"hills\", \"color\": [1, 2, 3],\n  \"tree_density\": 0.1, \"niche\": [0.1, 0.2], \"colour\": 1}]}";
        let e = Palette::from_json(json).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("colour"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = Palette::from_toml(&TOML.replace("0.02", "1.5")).unwrap_err().to_string();
        assert!(e.contains("steppe") && e.contains("tree_density = 1.5"), "{e}");
        let e = Palette::from_toml(&TOML.replace("\"plains\"", "\"dunes\"")).unwrap_err().to_string();
        assert!(e.contains("dunes") && e.contains("mountains"), "{e}");
        let e = Palette::from_toml(&TOML.replace("\"alps\"", "\"steppe\"")).unwrap_err().to_string();
        assert!(e.contains("repeated"), "{e}");
        let e = Palette::from_toml(&TOML.replace("[190, 170, 110]", "[300, 0, 0]")).unwrap_err().to_string();
        assert!(e.contains("line 5"), "{e}");
        assert!(Palette::from_toml("").is_err());
    }

    #[test]
    fn profile_rows_equal_pointwise_profiles() {
        let noise = crate::random::for_compat(crate::Compat::Pyworldgen).noise();
        let xs: Vec<f64> = (0..200).map(|i| (i as f64 + 0.5) * 2.0).collect();
        let (mut xin, mut h, mut w) = (vec![0.0; 200], vec![0.0; 200], vec![0.0; 200]);
        for kind in ProfileKind::ALL {
            for (y, seed, base) in [(1.0, 0, 10.0), (77.5, 91188, -3.0)] {
                kind.eval_row(noise, &xs, y, seed, base, &mut xin, &mut h, &mut w);
                for (i, &x) in xs.iter().enumerate() {
                    let (ph, pw) = kind.eval(noise, x, y, seed, base);
                    assert_eq!((h[i].to_bits(), w[i].to_bits()), (ph.to_bits(), pw.to_bits()), "{kind:?} {i}");
                }
            }
        }
    }

    #[test]
    fn bilinear_is_exact_on_planes_and_clamped() {
        let (nx, ny) = (4, 3);
        let v: Vec<f64> = (0..ny).flat_map(|j| (0..nx).map(move |i| 2.0 * i as f64 + 3.0 * j as f64)).collect();
        assert_eq!(bilinear(&v, nx, ny, 1.25, 0.5), 2.5 + 1.5);
        assert_eq!(bilinear(&v, nx, ny, -3.0, 9.0), 6.0);
        let g = WorldGrid::new(nx, ny, 1.0, 1.0, v.clone());
        // Same extent as the grid: cell centres sample the cells exactly.
        assert_eq!(sample_grid(&g, 2.5, 1.5, 4.0, 3.0).0, v[nx + 2]);
    }
}
