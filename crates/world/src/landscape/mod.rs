//! The river-valley landscape (pyworldgen 0.1.8's `landscape`, after the drainage-first idea of
//! Génevaux et al. 2013) and river carving on any height field.
//!
//! [`generate`] builds the drainage graph first and the terrain around it:
//!
//! 1. **Rivers** ([`River`]): `main_river_count` main rivers from a spring in the northern fifth to
//!    the south, east or west edge, each with `tributaries_per_main` tributaries that end on one of
//!    its points. Each centre line is a meandering polyline; each bed is a ramp from the spring
//!    to the outlet minus a `0.35·sin(πt)` sag, made non-increasing by a running minimum
//!    (enforced, not hoped for). A tributary's outlet lies 0.05–0.35 m above its parent's bed at
//!    the join.
//! 2. **Base terrain**: `base + drop·y/H + tilt·(x/W − ½) + A_b·sfbm₅(k_b·p) + A_d·sfbm₄(k_d·p)`,
//!    then a Gaussian blur of σ = `smoothing_sigma` cells.
//! 3. **Carving**, river by river: with `d` the distance to the centre line and `bed(s)` the bed
//!    interpolated at the nearest point, `h −= V·exp(−(d/w_v)²)`; within `1.45·w`,
//!    `h = min(h, bed + D·(d/w)²)`; within `w` the water depth reaches `bed + 0.52·D − h`.
//! 4. **Ponds** ([`Pond`]) dug and filled on the carved surface; then the dry ground is blurred
//!    once more (σ = 0.35).
//! 5. **Moisture** `clip(0.35·fbm₄ + 0.65·influence, 0, 1)` and **materials**
//!    ([`MATERIALS`], water → upland).
//!
//! [`carve_rivers`] applies steps 1 (from the D8 drainage of the given surface instead of random
//! draws), 3 and 5 to any [`Terrain`].
//!
//! With [`Compat::Pyworldgen`] every draw and every noise value is pyworldgen's, and the float
//! steps follow its precision (river points and beds rounded to `f32`; height, water depth and
//! moisture returned as `f32` values), so the world equals the peer's.

mod carve;
mod d8;
mod params;
mod ponds;
mod rivers;

pub use carve::{GRASS_PLAIN, MATERIALS, ROCKY_SLOPE, SAND_SHORE, UPLAND, WATER, WETLAND};
pub use d8::{carve_rivers, CarveParams, CarvedWorld};
pub use params::LandscapeParams;
pub use ponds::Pond;
pub use rivers::{River, RiverKind};

use rayon::prelude::*;

use crate::compat::ndimage::gaussian_filter;
use crate::error::Result;
use crate::field::WorldGrid;
use crate::random::{for_compat, Noise, Randomness};
use crate::seed::{Compat, Seed};
use carve::{Cells, Fields, MaterialRule, Profile};

/// A generated river landscape: the height field and everything pyworldgen's `LandscapeWorld`
/// exposes.
#[derive(Debug, Clone, PartialEq)]
pub struct LandscapeWorld {
    /// Ground height and water depth (row 0 south, cell size `resolution`), `f32` values.
    pub grid: WorldGrid,
    /// Material code per cell ([`MATERIALS`] names them).
    pub material: Vec<u8>,
    /// Moisture in [0, 1] per cell (`f32` values).
    pub moisture: Vec<f64>,
    /// Distance in metres from each cell centre to the nearest river centre line.
    pub river_distance: Vec<f64>,
    /// Main rivers, each followed by its tributaries.
    pub rivers: Vec<River>,
    /// Ponds.
    pub ponds: Vec<Pond>,
    /// The integer seed every draw derives from (pyworldgen's `seed_to_int`, or the canonical one).
    pub seed: i64,
    /// Which randomness made it.
    pub compat: Compat,
    /// The parameters.
    pub params: LandscapeParams,
}

impl LandscapeWorld {
    /// The generator's name, as pyworldgen's registry calls it.
    pub const NAME: &'static str = "landscape";

    /// Cell size in metres.
    pub fn resolution(&self) -> f64 {
        self.grid.dx
    }

    /// Water surface height per cell (`height + water_depth`).
    pub fn water_surface(&self) -> Vec<f64> {
        self.grid.height.iter().zip(&self.grid.water_depth).map(|(h, w)| h + w).collect()
    }
}

crate::field::terrain_via_grid!(LandscapeWorld);

/// The integer seed a landscape draws from: `params.seed` if set, else the seed's pyworldgen
/// integer (compatibility) or canonical 64 bits.
fn int_seed(seed: &Seed, compat: Compat, params: &LandscapeParams) -> Result<i64> {
    let s = params.seed.unwrap_or(match compat {
        Compat::Pyworldgen => seed.pyworldgen_int(),
        Compat::Canonical => seed.canonical() as i64,
    });
    if compat == Compat::Pyworldgen && !(-123..=i64::MAX - 707).contains(&s) {
        return Err(params::bad("seed", s, "numpy's default_rng(seed + 123) needs seed ≥ −123"));
    }
    Ok(s)
}

/// The base terrain before carving: slope, broad fBM (5 octaves, seed + 10) and detail fBM
/// (4 octaves, seed + 20), blurred with σ = `smoothing_sigma` (scipy's `gaussian_filter`).
fn base_surface(c: Cells, p: &LandscapeParams, seed: i64, noise: &dyn Noise) -> Result<Vec<f64>> {
    let [w, h] = p.domain_size;
    let mut out = vec![0.0; c.len()];
    out.par_chunks_mut(c.nx).enumerate().for_each(|(j, row)| {
        let y = c.y(j);
        for (i, o) in row.iter_mut().enumerate() {
            let x = c.x(i);
            let slope =
                p.base_elevation + p.north_south_drop * (y / h.max(1e-9)) + p.east_west_tilt * (x / w.max(1e-9) - 0.5);
            let (bs, ds) = (p.broad_noise_scale, p.detail_noise_scale);
            let broad = p.broad_noise_amp * noise.signed_fbm2(x * bs, y * bs, 5, seed.wrapping_add(10));
            let detail = p.detail_noise_amp * noise.signed_fbm2(x * ds, y * ds, 4, seed.wrapping_add(20));
            *o = slope + broad + detail;
        }
    });
    if p.smoothing_sigma > 0.0 {
        out = gaussian_filter(&out, c.nx, c.ny, p.smoothing_sigma)?;
    }
    Ok(out)
}

/// Generates the river landscape for `seed` (see the module docs for the steps).
///
/// Errors: any parameter out of range ([`LandscapeParams::validate`]), or a seed below −123 in
/// the compatibility path (numpy refuses negative seeds).
pub fn generate(seed: &Seed, compat: Compat, params: &LandscapeParams) -> Result<LandscapeWorld> {
    params.validate()?;
    let s = int_seed(seed, compat, params)?;
    generate_with(s, compat, params, for_compat(compat))
}

/// [`generate`] from an integer seed `s` and an explicit source of randomness `rnd` (its
/// `draws(s + 123)` for the rivers, `draws(s + 707)` for the ponds, its noise for every fBM);
/// `compat` is only recorded. Errors: parameters out of range.
pub fn generate_with(s: i64, compat: Compat, params: &LandscapeParams, rnd: &dyn Randomness) -> Result<LandscapeWorld> {
    params.validate()?;
    let p = params;
    let noise = rnd.noise();
    let ctx = rivers::Ctx { p, seed: s, noise };
    let rivers = ctx.river_network(&mut *rnd.draws(s.wrapping_add(123)));

    let (nx, ny) = p.grid_size();
    let c = Cells { nx, ny, dx: p.resolution, dy: p.resolution };
    let n = c.len();
    let mut height = base_surface(c, p, s, noise)?;
    let (mut water, mut distance, mut influence) = (vec![0.0; n], vec![f64::INFINITY; n], vec![0.0; n]);
    let (mut d2, mut sv, mut lowered) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for river in &rivers {
        carve::polyline_field(c, &river.points, f64::INFINITY, &mut d2, &mut sv);
        let prof = Profile::of(river, p.resolution, p.valley_width_factor, p.valley_depth, None);
        let mut f = Fields {
            height: &mut height,
            water: &mut water,
            distance: &mut distance,
            influence: &mut influence,
            lowered: &mut lowered,
            cumulative: true,
        };
        carve::carve_river(&mut f, &river.bed, &prof, &d2, &sv, 0..ny, nx);
    }

    let ponds = ponds::place(c, &height, &rivers, p, &mut *rnd.draws(s.wrapping_add(707)));
    for pond in &ponds {
        ponds::dig(c, pond, &mut height, &mut water, &mut influence);
    }
    let blurred = gaussian_filter(&height, nx, ny, 0.35)?;
    height.iter_mut().zip(&blurred).zip(&water).for_each(|((h, &b), &w)| {
        if w <= 0.02 {
            *h = b;
        }
    });

    let moisture = moisture(c, &influence, s, noise);
    let rule =
        MaterialRule { water_margin: p.water_margin, shore_width: p.shore_width, wetland_width: p.wetland_width };
    let material = carve::materials(c, &height, &water, &distance, &moisture, rule);

    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32 as f64).collect::<Vec<f64>>();
    let mut grid = WorldGrid::new(nx, ny, p.resolution, p.resolution, f32s(&height));
    grid.water_depth = f32s(&water);
    Ok(LandscapeWorld {
        grid,
        material,
        moisture: f32s(&moisture),
        river_distance: distance,
        rivers,
        ponds,
        seed: s,
        compat,
        params: p.clone(),
    })
}

/// Moisture `clip(0.35·fbm₄(0.035·x + 9, 0.035·y − 4) + 0.65·influence, 0, 1)` (seed + 404).
fn moisture(c: Cells, influence: &[f64], seed: i64, noise: &dyn Noise) -> Vec<f64> {
    let mut out = vec![0.0; c.len()];
    out.par_chunks_mut(c.nx).enumerate().for_each(|(j, row)| {
        let y = c.y(j) * 0.035 - 4.0;
        for (i, o) in row.iter_mut().enumerate() {
            let f = noise.fbm2(c.x(i) * 0.035 + 9.0, y, 4, seed.wrapping_add(404));
            *o = (0.35 * f + 0.65 * influence[j * c.nx + i]).clamp(0.0, 1.0);
        }
    });
    out
}
