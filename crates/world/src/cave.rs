//! `implicit_cave` (seed 002, pyworldgen 0.1.8's `biomes/cave.py`): a cave that is a pure
//! function of position, sampled into a voxel volume.
//!
//! In spec coordinates (x lateral, centred on 0; y up; z along the tunnel) the openness is the
//! largest of three fields, less a noisy wall; air where the density is positive:
//!
//! 1. **corridor** `r(x, y, z) − |(x, y) − c(z)|`: a tube around a centreline `c(z)` that
//!    depends on z alone (a sine plus 3-D value-noise fBM, the height clamped inside the shell),
//!    with a noisy radius `r = CORR_R + CORR_ROUGH·sfbm`. Its axis is always open, so every
//!    length of tunnel is walkable;
//! 2. **worms** `(WORM_T − max(n₁, n₂))·WSCALE` with two ridged fBMs: thin tunnels where both
//!    are near zero;
//! 3. **caverns** `(fbm − CAV_T)·CSCALE`: rare low-frequency rooms;
//!
//! then the wall `ROUGH·sfbm` is subtracted, a hard shell closes the box (floor, ceiling, the
//! lateral walls at ±XB), and optional **speleothems** — cones hanging from the corridor's roof
//! or rising from its floor, one candidate per `SPELEO_CELL`² cell of the (x, z) plane — fill the
//! air they occupy near the corridor.
//!
//! The world frame (the chunked world of the next issues, z up) maps as `x_spec = x − XB`,
//! `y_spec = z`, `z_spec = y`: [`CaveField::density_world`]. The sampled volume's axes are
//! (lateral, tunnel, up), as pyworldgen's `DenseVoxelVolume`.
//!
//! In the pyworldgen compatibility path the noise is pyworldgen's hash (`Compat::Pyworldgen`),
//! and the same seed and parameters give its volume voxel for voxel (`tests/cave_golden.rs`);
//! otherwise our canonical hash.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{param, Result, WorldError};
use crate::random::{for_compat, Noise};
use crate::{Compat, Seed};

/// Parameters of `implicit_cave`, by pyworldgen's names (`resolution`, `length`, and
/// `CaveParams`' upper-case fields), with its defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CaveParams {
    /// Voxel edge, metres. Default 1.5.
    pub resolution: f64,
    /// Tunnel length sampled, metres. Default 110.
    pub length: f64,
    /// Floor of the shell (spec y). Default 0.
    #[serde(rename = "FLOOR")]
    pub floor: f64,
    /// Ceiling of the shell (spec y). Default 54.
    #[serde(rename = "CEIL")]
    pub ceil: f64,
    /// Half-width of the shell: lateral walls at ±XB. Default 58.
    #[serde(rename = "XB")]
    pub xb: f64,
    /// Mean height of the corridor's axis. Default 27.
    #[serde(rename = "CY0")]
    pub cy0: f64,
    /// Corridor radius. Default 7.5.
    #[serde(rename = "CORR_R")]
    pub corr_r: f64,
    /// Corridor radius noise amplitude. Default 3.5.
    #[serde(rename = "CORR_ROUGH")]
    pub corr_rough: f64,
    /// Lateral sine frequency of the axis (per metre of tunnel). Default 0.016.
    #[serde(rename = "CORR_X_FREQ")]
    pub corr_x_freq: f64,
    /// Lateral sine amplitude. Default 18.
    #[serde(rename = "CORR_X_AMP")]
    pub corr_x_amp: f64,
    /// Lateral noise frequency. Default 0.010.
    #[serde(rename = "CORR_X_NOISE_FREQ")]
    pub corr_x_noise_freq: f64,
    /// Lateral noise amplitude. Default 12.
    #[serde(rename = "CORR_X_NOISE_AMP")]
    pub corr_x_noise_amp: f64,
    /// Vertical sine frequency of the axis. Default 0.024.
    #[serde(rename = "CORR_Y_FREQ")]
    pub corr_y_freq: f64,
    /// Vertical sine amplitude. Default 5.
    #[serde(rename = "CORR_Y_AMP")]
    pub corr_y_amp: f64,
    /// Vertical noise frequency. Default 0.013.
    #[serde(rename = "CORR_Y_NOISE_FREQ")]
    pub corr_y_noise_freq: f64,
    /// Vertical noise amplitude. Default 4.
    #[serde(rename = "CORR_Y_NOISE_AMP")]
    pub corr_y_noise_amp: f64,
    /// Worm noise frequency. Default 0.05.
    #[serde(rename = "FW")]
    pub fw: f64,
    /// Worm threshold. Default 0.085.
    #[serde(rename = "WORM_T")]
    pub worm_t: f64,
    /// Worm openness scale. Default 26.
    #[serde(rename = "WSCALE")]
    pub wscale: f64,
    /// Cavern noise frequency. Default 0.022.
    #[serde(rename = "FC")]
    pub fc: f64,
    /// Cavern threshold. Default 0.60.
    #[serde(rename = "CAV_T")]
    pub cav_t: f64,
    /// Cavern openness scale. Default 34.
    #[serde(rename = "CSCALE")]
    pub cscale: f64,
    /// Wall roughness amplitude. Default 2.2.
    #[serde(rename = "ROUGH")]
    pub rough: f64,
    /// Wall roughness frequency. Default 0.13.
    #[serde(rename = "RFREQ")]
    pub rfreq: f64,
    /// Speleothems on. Default true.
    #[serde(rename = "SPELEO")]
    pub speleo: bool,
    /// Speleothem candidate cell, metres. Default 6.
    #[serde(rename = "SPELEO_CELL")]
    pub speleo_cell: f64,
    /// Share of candidate cells that grow one. Default 0.20.
    #[serde(rename = "SPELEO_SPAWN")]
    pub speleo_spawn: f64,
    /// Speleothems stop this far (metres) from the corridor's axis, so the axis stays open for
    /// a walker. Default 0.6 (ours; pyworldgen has no such clearance: 0 is its cave, whose cones
    /// can close the axis when the corridor is narrow).
    #[serde(rename = "SPELEO_CLEAR")]
    pub speleo_clear: f64,
}

impl Default for CaveParams {
    fn default() -> Self {
        Self {
            resolution: 1.5,
            length: 110.0,
            floor: 0.0,
            ceil: 54.0,
            xb: 58.0,
            cy0: 27.0,
            corr_r: 7.5,
            corr_rough: 3.5,
            corr_x_freq: 0.016,
            corr_x_amp: 18.0,
            corr_x_noise_freq: 0.010,
            corr_x_noise_amp: 12.0,
            corr_y_freq: 0.024,
            corr_y_amp: 5.0,
            corr_y_noise_freq: 0.013,
            corr_y_noise_amp: 4.0,
            fw: 0.05,
            worm_t: 0.085,
            wscale: 26.0,
            fc: 0.022,
            cav_t: 0.60,
            cscale: 34.0,
            rough: 2.2,
            rfreq: 0.13,
            speleo: true,
            speleo_cell: 6.0,
            speleo_spawn: 0.20,
            speleo_clear: 0.6,
        }
    }
}

/// Most voxels one volume may hold (the occupancy is one byte a voxel).
pub const MAX_VOXELS: usize = 1 << 31;

impl CaveParams {
    /// Parameters from a JSON object of overrides: unknown keys are refused (serde names the
    /// key and the known ones); the result is validated.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let p: Self =
            serde_json::from_value(value.clone()).map_err(|e| WorldError::Invalid(format!("implicit_cave: {e}")))?;
        p.validate()?;
        Ok(p)
    }

    /// Check every parameter: finite numbers, a positive voxel and length, a shell with room
    /// (CEIL > FLOOR, XB > 0), a positive speleothem cell, and a volume under [`MAX_VOXELS`].
    pub fn validate(&self) -> Result<()> {
        let all = [
            ("resolution", self.resolution),
            ("length", self.length),
            ("FLOOR", self.floor),
            ("CEIL", self.ceil),
            ("XB", self.xb),
            ("CY0", self.cy0),
            ("CORR_R", self.corr_r),
            ("CORR_ROUGH", self.corr_rough),
            ("CORR_X_FREQ", self.corr_x_freq),
            ("CORR_X_AMP", self.corr_x_amp),
            ("CORR_X_NOISE_FREQ", self.corr_x_noise_freq),
            ("CORR_X_NOISE_AMP", self.corr_x_noise_amp),
            ("CORR_Y_FREQ", self.corr_y_freq),
            ("CORR_Y_AMP", self.corr_y_amp),
            ("CORR_Y_NOISE_FREQ", self.corr_y_noise_freq),
            ("CORR_Y_NOISE_AMP", self.corr_y_noise_amp),
            ("FW", self.fw),
            ("WORM_T", self.worm_t),
            ("WSCALE", self.wscale),
            ("FC", self.fc),
            ("CAV_T", self.cav_t),
            ("CSCALE", self.cscale),
            ("ROUGH", self.rough),
            ("RFREQ", self.rfreq),
            ("SPELEO_CELL", self.speleo_cell),
            ("SPELEO_SPAWN", self.speleo_spawn),
            ("SPELEO_CLEAR", self.speleo_clear),
        ];
        if let Some((n, v)) = all.iter().find(|(_, v)| !v.is_finite()) {
            return Err(param(n, v, "must be a finite number"));
        }
        for (n, v) in [("resolution", self.resolution), ("length", self.length), ("SPELEO_CELL", self.speleo_cell)] {
            if v <= 0.0 {
                return Err(param(n, v, "must be positive"));
            }
        }
        if self.xb <= 0.0 {
            return Err(param("XB", self.xb, "must be positive (the lateral walls stand at ±XB)"));
        }
        if self.ceil <= self.floor {
            return Err(param("CEIL", self.ceil, &format!("must be above FLOOR = {}", self.floor)));
        }
        // The corridor is open along its whole axis: the radius never falls to the wall noise
        // (CORR_R − CORR_ROUGH > ROUGH), and the axis stays inside the shell.
        if self.corr_r - self.corr_rough.abs() <= self.rough.abs() {
            return Err(param(
                "CORR_R",
                self.corr_r,
                &format!(
                    "must exceed |CORR_ROUGH| + |ROUGH| = {} so that the corridor stays open along its axis",
                    self.corr_rough.abs() + self.rough.abs()
                ),
            ));
        }
        let swing = self.corr_x_amp.abs() + self.corr_x_noise_amp.abs();
        if swing >= self.xb {
            return Err(param(
                "CORR_X_AMP",
                self.corr_x_amp,
                &format!("with CORR_X_NOISE_AMP the corridor swings {swing} m, into the walls at ±XB = {}", self.xb),
            ));
        }
        if self.ceil - self.floor <= 2.0 * (self.corr_r + 3.0) {
            return Err(param(
                "CEIL",
                self.ceil,
                &format!(
                    "leaves no room for the corridor: CEIL − FLOOR must exceed 2·(CORR_R + 3) = {}",
                    2.0 * (self.corr_r + 3.0)
                ),
            ));
        }
        if self.speleo_clear < 0.0 {
            return Err(param("SPELEO_CLEAR", self.speleo_clear, "must be at least 0"));
        }
        let (nx, ny, nz) = self.shape();
        if nx == 0 || ny == 0 || nz == 0 {
            return Err(param(
                "resolution",
                self.resolution,
                &format!("gives a {nx}×{ny}×{nz} volume; every side needs a voxel"),
            ));
        }
        let n = (nx as f64) * (ny as f64) * (nz as f64);
        if n > MAX_VOXELS as f64 {
            return Err(param("resolution", self.resolution, &format!("gives {n:.3e} voxels, over {MAX_VOXELS}")));
        }
        Ok(())
    }

    /// The sampled volume's voxels (lateral, tunnel, up): `round(2·XB / res)`,
    /// `round(length / res)`, `round(CEIL / res)`, rounded half to even as Python's `round`.
    pub fn shape(&self) -> (usize, usize, usize) {
        let r = |v: f64| crate::field::cells(v, self.resolution);
        (r(2.0 * self.xb), r(self.length), r(self.ceil))
    }
}

/// The cave's fields at one point (spec coordinates), as pyworldgen's `components`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Components {
    /// Corridor axis, lateral.
    pub center_x: f64,
    /// Corridor axis, height.
    pub center_y: f64,
    /// Corridor radius here.
    pub radius: f64,
    /// Distance to the axis in the (x, y) plane.
    pub dist_to_corridor: f64,
    /// Corridor openness `radius − dist`.
    pub corridor: f64,
    /// Worm openness.
    pub worm: f64,
    /// Cavern openness.
    pub cavern: f64,
    /// Wall roughness subtracted from the openness.
    pub rough: f64,
}

/// The cave as a field: density > 0 is air.
pub struct CaveField<'a> {
    p: &'a CaveParams,
    noise: &'a dyn Noise,
    seed: i64,
}

impl<'a> CaveField<'a> {
    /// The field of `p` drawing from `noise` with the integer seed `seed`.
    pub fn new(p: &'a CaveParams, noise: &'a dyn Noise, seed: i64) -> Self {
        Self { p, noise, seed }
    }

    /// The field for a seed in a compatibility path: pyworldgen's hash and seed mapping, or our
    /// canonical hash and the canonical 64-bit seed.
    pub fn for_seed(p: &'a CaveParams, seed: &Seed, compat: Compat) -> Self {
        let s = match compat {
            Compat::Pyworldgen => seed.pyworldgen_int(),
            Compat::Canonical => seed.canonical() as i64,
        };
        Self::new(p, for_compat(compat).noise(), s)
    }

    /// The parameters the field was made with.
    pub fn params(&self) -> &CaveParams {
        self.p
    }

    fn s(&self, k: i64) -> i64 {
        self.seed.wrapping_add(k)
    }

    /// Lateral position of the corridor's axis at tunnel distance `z`.
    pub fn corr_x(&self, z: f64) -> f64 {
        let p = self.p;
        (z * p.corr_x_freq).sin() * p.corr_x_amp
            + self.noise.signed_fbm3(z * p.corr_x_noise_freq, 5.2, 1.7, 2, self.s(11)) * p.corr_x_noise_amp
    }

    /// Height of the corridor's axis at `z`, kept `CORR_R + 3` inside the shell.
    pub fn corr_y(&self, z: f64) -> f64 {
        let p = self.p;
        let y = p.cy0
            + (z * p.corr_y_freq + 1.3).sin() * p.corr_y_amp
            + self.noise.signed_fbm3(z * p.corr_y_noise_freq, 9.1, 4.4, 2, self.s(17)) * p.corr_y_noise_amp;
        // np.clip: the upper bound wins when the bounds cross.
        y.max(p.floor + p.corr_r + 3.0).min(p.ceil - p.corr_r - 3.0)
    }

    /// Every field at spec point (x, y, z).
    pub fn components(&self, x: f64, y: f64, z: f64) -> Components {
        let (p, n) = (self.p, self.noise);
        let (cx, cy) = (self.corr_x(z), self.corr_y(z));
        let dist = (x - cx).hypot(y - cy);
        let radius = p.corr_r + p.corr_rough * n.signed_fbm3(x * 0.05, y * 0.05, z * 0.05, 2, self.s(23));
        let n1 = n.ridged_fbm3(x * p.fw, y * p.fw, z * p.fw, 3, self.s(31));
        let n2 = n.ridged_fbm3((x + 131.0) * p.fw, (y + 57.0) * p.fw, (z + 89.0) * p.fw, 3, self.s(37));
        let worm = (p.worm_t - n1.max(n2)) * p.wscale;
        let cavern = (n.fbm3(x * p.fc + 90.0, y * p.fc + 40.0, z * p.fc + 10.0, 2, self.s(41)) - p.cav_t) * p.cscale;
        let rough = p.rough * n.signed_fbm3(x * p.rfreq, y * p.rfreq, z * p.rfreq, 2, self.s(43));
        Components {
            center_x: cx,
            center_y: cy,
            radius,
            dist_to_corridor: dist,
            corridor: radius - dist,
            worm,
            cavern,
            rough,
        }
    }

    /// The density at spec point (x, y, z): > 0 is air, ≤ 0 rock (−1 in the shell and inside a
    /// speleothem).
    pub fn density(&self, x: f64, y: f64, z: f64) -> f64 {
        let p = self.p;
        let c = self.components(x, y, z);
        let density = c.corridor.max(c.worm).max(c.cavern) - c.rough;
        if y <= p.floor || y >= p.ceil || x <= -p.xb || x >= p.xb {
            return -1.0;
        }
        if p.speleo && density > 0.0 && self.speleothem(x, y, z, &c) {
            return -1.0;
        }
        density
    }

    /// The density in the world frame (x lateral from the wall at 0, y along the tunnel, z up).
    pub fn density_world(&self, wx: f64, wy: f64, wz: f64) -> f64 {
        self.density(wx - self.p.xb, wz, wy)
    }

    /// Whether world point (x, y, z) is rock.
    pub fn is_solid_world(&self, wx: f64, wy: f64, wz: f64) -> bool {
        self.density_world(wx, wy, wz) <= 0.0
    }

    /// Whether (x, y, z) lies inside a speleothem: of the four candidate cells around it (cells
    /// of `SPELEO_CELL` in the (x, z) plane; the cell's own and its −x, −z neighbours), one that
    /// spawned a cone (a hash below `SPELEO_SPAWN`) at a hashed site, of hashed height
    /// `3 + u·0.85·radius` and base radius `0.6 + 1.3·u`, hanging from the corridor's roof or
    /// standing on its floor; only near the corridor (distance < 1.4 radius).
    fn speleothem(&self, x: f64, y: f64, z: f64, c: &Components) -> bool {
        let p = self.p;
        if c.dist_to_corridor >= c.radius * 1.4 || c.dist_to_corridor < p.speleo_clear {
            return false;
        }
        let s = p.speleo_cell;
        let (gi, gk) = ((x / s).floor() as i64, (z / s).floor() as i64);
        let hash = |ci: i64, ck: i64, k: i64, off: i64| self.noise.hashf3(ci, ck, k, self.s(off));
        let (floor_y, ceil_y) = (c.center_y - c.radius, c.center_y + c.radius);
        for dgi in [-1i64, 0] {
            for dgk in [-1i64, 0] {
                let (ci, ck) = (gi.wrapping_add(dgi), gk.wrapping_add(dgk));
                if hash(ci, ck, 3, 51) >= p.speleo_spawn {
                    continue;
                }
                let sx = ci as f64 * s + hash(ci, ck, 7, 53) * s;
                let sz = ck as f64 * s + hash(ci, ck, 1, 59) * s;
                let da = (x - sx).hypot(z - sz);
                let h = 3.0 + hash(ci, ck, 5, 61) * (c.radius * 0.85);
                let r_base = 0.6 + hash(ci, ck, 9, 67) * 1.3;
                let hh = h.max(1e-6);
                let hit = if hash(ci, ck, 4, 71) > 0.5 {
                    y <= ceil_y && y >= ceil_y - h && da < r_base * (1.0 - (ceil_y - y) / hh)
                } else {
                    y >= floor_y && y <= floor_y + h && da < r_base * (1.0 - (y - floor_y) / hh)
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }
}

/// A sampled cave: occupancy (`true` = rock) of `nx × ny × nz` voxels of `resolution` metres,
/// axes (lateral, tunnel, up), index `(ix·ny + iy)·nz + iz` (numpy's C order).
#[derive(Debug, Clone, PartialEq)]
pub struct CaveVolume {
    /// Voxels across (lateral).
    pub nx: usize,
    /// Voxels along the tunnel.
    pub ny: usize,
    /// Voxels up.
    pub nz: usize,
    /// Voxel edge, metres.
    pub resolution: f64,
    /// Rock per voxel.
    pub occ: Vec<bool>,
}

impl CaveVolume {
    /// Whether voxel (ix, iy, iz) is rock.
    pub fn solid(&self, ix: usize, iy: usize, iz: usize) -> bool {
        self.occ[(ix * self.ny + iy) * self.nz + iz]
    }

    /// Share of rock voxels.
    pub fn solid_fraction(&self) -> f64 {
        self.occ.iter().filter(|&&o| o).count() as f64 / self.occ.len().max(1) as f64
    }
}

/// Sample the cave of `seed` into a volume (pyworldgen's `sample_cave`): voxel centres at
/// `((i + ½)·res − XB, (k + ½)·res)` across and up, tunnel slices at `(j + ½)·res`; rock where
/// the density is ≤ 0; the lateral faces and the floor and ceiling layers rock. Slices are
/// sampled in parallel; the volume does not depend on the thread count.
pub fn sample_cave(seed: &Seed, compat: Compat, p: &CaveParams) -> Result<CaveVolume> {
    p.validate()?;
    let field = CaveField::for_seed(p, seed, compat);
    let (nx, ny, nz) = p.shape();
    let res = p.resolution;
    let slices: Vec<Vec<bool>> = (0..ny)
        .into_par_iter()
        .map(|iy| {
            let z = (iy as f64 + 0.5) * res;
            let mut s = vec![false; nx * nz];
            for ix in 0..nx {
                let x = (ix as f64 + 0.5) * res - p.xb;
                for iz in 0..nz {
                    let y = (iz as f64 + 0.5) * res;
                    s[ix * nz + iz] = field.density(x, y, z) <= 0.0;
                }
            }
            s
        })
        .collect();
    let mut occ = vec![false; nx * ny * nz];
    for (iy, s) in slices.iter().enumerate() {
        for ix in 0..nx {
            let dst = (ix * ny + iy) * nz;
            occ[dst..dst + nz].copy_from_slice(&s[ix * nz..(ix + 1) * nz]);
        }
    }
    // The enclosure: lateral faces and the floor and ceiling layers.
    for ix in 0..nx {
        for iy in 0..ny {
            let row = (ix * ny + iy) * nz;
            if ix == 0 || ix == nx - 1 {
                occ[row..row + nz].fill(true);
            }
            occ[row] = true;
            occ[row + nz - 1] = true;
        }
    }
    Ok(CaveVolume { nx, ny, nz, resolution: res, occ })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_shape_and_refusals() {
        let p = CaveParams::default();
        assert_eq!(p.shape(), (77, 73, 36));
        let e = |v: serde_json::Value| CaveParams::from_json(&v).unwrap_err().to_string();
        assert!(e(serde_json::json!({"CEIL": -1.0})).contains("CEIL"));
        assert!(e(serde_json::json!({"resolution": 0.0})).contains("resolution"));
        assert!(e(serde_json::json!({"resolution": 1e-4, "length": 1e6})).contains("voxels"));
        assert!(e(serde_json::json!({"CORR_RADIUS": 3.0})).contains("CORR_RADIUS"));
        assert!(e(serde_json::json!({"SPELEO_CELL": 0.0})).contains("SPELEO_CELL"));
    }

    /// The corridor's axis is air along the whole tunnel, far beyond the sampled length, in both
    /// randomness paths (pyworldgen's guarantee: the corridor is open at its centre unless a
    /// speleothem stands there).
    #[test]
    fn the_corridor_axis_is_open() {
        let p = CaveParams { speleo: false, ..CaveParams::default() };
        for compat in [Compat::Pyworldgen, Compat::Canonical] {
            let f = CaveField::for_seed(&p, &Seed::parse("luxembourg"), compat);
            let open = (0..4000).filter(|k| {
                let z = *k as f64 * 0.75 - 500.0;
                f.density(f.corr_x(z), f.corr_y(z), z) > 0.0
            });
            // The axis radius is CORR_R − CORR_ROUGH = 4 at least, the wall roughness 2.2 at most.
            assert_eq!(open.count(), 4000, "{compat:?}");
        }
    }

    #[test]
    fn world_frame_is_the_spec_frame_moved() {
        let p = CaveParams::default();
        let f = CaveField::for_seed(&p, &Seed::Int(5), Compat::Pyworldgen);
        for (x, y, z) in [(1.0, 2.0, 3.0), (-20.0, 30.0, 77.0), (40.0, 50.0, -5.0)] {
            assert_eq!(f.density(x, y, z).to_bits(), f.density_world(x + p.xb, z, y).to_bits());
        }
    }

    #[test]
    fn deterministic_across_thread_counts() {
        let p = CaveParams { length: 12.0, resolution: 2.0, ..CaveParams::default() };
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| sample_cave(&Seed::parse("x"), Compat::Canonical, &p).unwrap());
        let b = sample_cave(&Seed::parse("x"), Compat::Canonical, &p).unwrap();
        assert_eq!(a, b);
        let f = a.solid_fraction();
        assert!(f > 0.2 && f < 0.95, "rock and air: {f}");
    }
}
