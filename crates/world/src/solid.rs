//! Solid fields: a solid as a pure function of position ([`SolidField3D`]), sampled into voxels
//! ([`voxelize`]) or onto a lattice for smooth meshing ([`sample_lattice`]).
//!
//! Seed 002 joins its two worlds here: a biome such as the implicit cave is a pure function
//! `is_solid(x, y, z)` with no stored grid, the chunked voxel world stores blocks; a field fills
//! a chunk (the scheduler's field pass), and the chunk is then meshed, saved and streamed like any
//! other.
//!
//! **The voxel frame** (every field here, the chunked world, the block meshes): metres, y up,
//! x east, z south — right-handed, and the glTF frame of the terrain meshes (`bozkir export
//! --engine gltf`). A field's value is signed: **≤ 0 is solid, > 0 is air** (the cave's
//! density; the smooth mesher's "inside < 0" up to the zero set).
//!
//! Provided fields: [`CaveSolid`] (the implicit cave, its spec↔world axis swap kept inside),
//! [`HeightSolid`] (ground below a height field: any height-field world, including a DEM),
//! [`Union`], [`Intersection`], [`Difference`] (the usual min/max combinators on the signed
//! value) and [`FnSolid`] (a closure).
//!
//! Sampling runs in parallel over y layers; every value depends only on its own coordinates, so
//! the output does not depend on the thread count.

use bozkir_core::Grid;
use rayon::prelude::*;

use crate::cave::CaveField;
use crate::error::{param, Result};

/// The most samples one call of [`voxelize`] or [`sample_lattice`] makes (2³⁰, a 1024³ volume):
/// larger requests are refused before anything is allocated.
pub const MAX_SAMPLES: usize = 1 << 30;

/// A solid as a pure function of position in the voxel frame (metres, y up, z south).
pub trait SolidField3D: Sync {
    /// The signed value at `(x, y, z)`: ≤ 0 solid, > 0 air.
    fn value(&self, x: f64, y: f64, z: f64) -> f64;

    /// Whether `(x, y, z)` is solid (`value ≤ 0`).
    fn is_solid(&self, x: f64, y: f64, z: f64) -> bool {
        self.value(x, y, z) <= 0.0
    }
}

impl<T: SolidField3D + ?Sized> SolidField3D for &T {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        (**self).value(x, y, z)
    }
}

/// A closure as a field.
pub struct FnSolid<F>(pub F);

impl<F: Fn(f64, f64, f64) -> f64 + Sync> SolidField3D for FnSolid<F> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        (self.0)(x, y, z)
    }
}

/// Solid where either field is (`min` of the values).
pub struct Union<A, B>(pub A, pub B);
/// Solid where both fields are (`max` of the values).
pub struct Intersection<A, B>(pub A, pub B);
/// Solid where the first field is and the second is not (`max(a, −b)`): terrain less a cave.
pub struct Difference<A, B>(pub A, pub B);

impl<A: SolidField3D, B: SolidField3D> SolidField3D for Union<A, B> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        self.0.value(x, y, z).min(self.1.value(x, y, z))
    }
}

impl<A: SolidField3D, B: SolidField3D> SolidField3D for Intersection<A, B> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        self.0.value(x, y, z).max(self.1.value(x, y, z))
    }
}

impl<A: SolidField3D, B: SolidField3D> SolidField3D for Difference<A, B> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        let b = self.1.value(x, y, z);
        // −b > 0 exactly where b is solid (b ≤ 0 gives −b ≥ 0; b = 0 is solid, so nudge it).
        let nb = if b <= 0.0 { (-b).max(f64::MIN_POSITIVE) } else { -b };
        self.0.value(x, y, z).max(nb)
    }
}

/// The implicit cave in the voxel frame: x lateral from the wall at `x = 0` to `2·XB`, y up
/// (the cave's own "up"), z along the tunnel. The cave's spec frame centres x on the corridor
/// band (`x_spec = x − XB`) and is otherwise the voxel frame, so the swap pyworldgen makes for
/// its z-up world (`spec_y = wz`, `spec_z = wy`) never leaves this type.
pub struct CaveSolid<'a>(pub CaveField<'a>);

impl SolidField3D for CaveSolid<'_> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        self.0.density(x - self.0.params().xb, y, z)
    }
}

/// The ground under a height field: solid where `y ≤ h(x, z)`, the value `y − h`. `h` is the
/// bilinear interpolation of a north-up grid (row 0 north, `core::Grid`'s layout) between cell
/// centres — cell `(i, r)`'s centre at `x = (i + ½)·dx`, `z = (r + ½)·dy` (z south) — clamped to
/// the edge cells outside, plus `base` metres.
#[derive(Debug, Clone, Copy)]
pub struct HeightSolid<'a> {
    grid: &'a Grid<f64>,
    base: f64,
}

impl<'a> HeightSolid<'a> {
    /// The ground of `grid` (heights in metres, cell size `dx × dy`), raised by `base`.
    pub fn new(grid: &'a Grid<f64>, base: f64) -> Result<Self> {
        if grid.width() == 0 || grid.height() == 0 {
            return Err(param("height grid", 0.0, "is empty"));
        }
        if !(grid.dx > 0.0 && grid.dy > 0.0 && grid.dx.is_finite() && grid.dy.is_finite()) {
            return Err(param("cell size", grid.dx, "must be positive and finite"));
        }
        if let Some(v) = grid.data().iter().find(|v| !v.is_finite()) {
            return Err(param("height", *v, "must be finite"));
        }
        if !base.is_finite() {
            return Err(param("base", base, "must be finite"));
        }
        Ok(Self { grid, base })
    }

    /// Ground height at `(x, z)`.
    pub fn height(&self, x: f64, z: f64) -> f64 {
        bilinear(self.grid, x, z) + self.base
    }
}

/// The bilinear value of a north-up grid at `(x, z)` metres (z south) between cell centres,
/// clamped to the edge cells outside.
pub(crate) fn bilinear(g: &Grid<f64>, x: f64, z: f64) -> f64 {
    let (w, h) = (g.width(), g.height());
    let fx = (x / g.dx - 0.5).clamp(0.0, (w - 1) as f64);
    let fz = (z / g.dy - 0.5).clamp(0.0, (h - 1) as f64);
    let (i0, r0) = (fx.floor() as usize, fz.floor() as usize);
    let (i1, r1) = ((i0 + 1).min(w - 1), (r0 + 1).min(h - 1));
    let (tx, tz) = (fx - i0 as f64, fz - r0 as f64);
    let v = |i: usize, r: usize| *g.get(i, r);
    let top = v(i0, r0) + (v(i1, r0) - v(i0, r0)) * tx;
    let bot = v(i0, r1) + (v(i1, r1) - v(i0, r1)) * tx;
    top + (bot - top) * tz
}

impl SolidField3D for HeightSolid<'_> {
    fn value(&self, x: f64, y: f64, z: f64) -> f64 {
        y - self.height(x, z)
    }
}

/// Sample points of a regular 3-D lattice: `dims` points per axis from `origin`, `step` apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    /// Points along (x, y, z).
    pub dims: [usize; 3],
    /// Position of point (0, 0, 0), metres.
    pub origin: [f64; 3],
    /// Spacing, metres.
    pub step: f64,
}

impl Lattice {
    fn check(&self) -> Result<usize> {
        let n = self.dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).unwrap_or(usize::MAX);
        if self.dims.contains(&0) {
            return Err(param("lattice dims", 0.0, "must all be at least 1"));
        }
        if n > MAX_SAMPLES {
            return Err(param("lattice samples", n as f64, "exceed the cap of 2^30 (1024^3)"));
        }
        if !(self.step > 0.0 && self.step.is_finite()) {
            return Err(param("step", self.step, "must be positive and finite"));
        }
        if self.origin.iter().any(|v| !v.is_finite()) {
            return Err(param("origin", f64::NAN, "must be finite"));
        }
        Ok(n)
    }
}

/// pyworldgen's `voxelize`: occupancy of `nx × ny × nz` cells of edge `resolution` from
/// `origin`, sampled at cell centres `origin + (i + ½)·resolution`; numpy's C order over
/// (x, y, z): index `(ix·ny + iy)·nz + iz`.
pub fn voxelize(field: &dyn SolidField3D, dims: [usize; 3], resolution: f64, origin: [f64; 3]) -> Result<Vec<bool>> {
    let half = 0.5 * resolution;
    let l = Lattice { dims, origin: [origin[0] + half, origin[1] + half, origin[2] + half], step: resolution };
    l.check()?;
    let [nx, ny, nz] = dims;
    let planes: Vec<Vec<bool>> = (0..nx)
        .into_par_iter()
        .map(|ix| {
            let x = origin[0] + (ix as f64 + 0.5) * resolution;
            let mut out = Vec::with_capacity(ny * nz);
            for iy in 0..ny {
                let y = origin[1] + (iy as f64 + 0.5) * resolution;
                for iz in 0..nz {
                    out.push(field.is_solid(x, y, origin[2] + (iz as f64 + 0.5) * resolution));
                }
            }
            out
        })
        .collect();
    Ok(planes.concat())
}

/// The field's values on `lattice` as `f32`, in the voxel layout `x + nx·(z + nz·y)` (the
/// chunks' and meshers' layout), for the smooth mesher. Values are clamped to ±1e30 so an
/// infinite value stays a valid `f32`.
pub fn sample_lattice(field: &dyn SolidField3D, lattice: &Lattice) -> Result<Vec<f32>> {
    lattice.check()?;
    let [nx, ny, nz] = lattice.dims;
    let [ox, oy, oz] = lattice.origin;
    let s = lattice.step;
    let layers: Vec<Vec<f32>> = (0..ny)
        .into_par_iter()
        .map(|iy| {
            let y = oy + iy as f64 * s;
            let mut out = Vec::with_capacity(nx * nz);
            for iz in 0..nz {
                let z = oz + iz as f64 * s;
                for ix in 0..nx {
                    let v = field.value(ox + ix as f64 * s, y, z);
                    out.push(v.clamp(-1e30, 1e30) as f32);
                }
            }
            out
        })
        .collect();
    Ok(layers.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ball(r: f64) -> FnSolid<impl Fn(f64, f64, f64) -> f64 + Sync> {
        FnSolid(move |x: f64, y: f64, z: f64| (x * x + y * y + z * z).sqrt() - r)
    }

    #[test]
    fn voxelize_samples_cell_centres_in_c_order() {
        let f = FnSolid(|x: f64, y: f64, z: f64| if x < 1.0 && y > 2.0 && z < 0.5 { -1.0 } else { 1.0 });
        let v = voxelize(&f, [3, 4, 2], 0.5, [0.0, 0.0, 0.0]).unwrap();
        assert_eq!(v.len(), 24);
        for ix in 0..3 {
            for iy in 0..4 {
                for iz in 0..2 {
                    let (x, y, z) = ((ix as f64 + 0.5) * 0.5, (iy as f64 + 0.5) * 0.5, (iz as f64 + 0.5) * 0.5);
                    assert_eq!(v[(ix * 4 + iy) * 2 + iz], x < 1.0 && y > 2.0 && z < 0.5, "{ix} {iy} {iz}");
                }
            }
        }
    }

    #[test]
    fn combinators_follow_the_sets() {
        let a = ball(2.0);
        let b = FnSolid(|x: f64, _: f64, _: f64| x); // solid for x ≤ 0
        let pts = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-3.0, 0.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]];
        for p in pts {
            let (sa, sb) = (a.is_solid(p[0], p[1], p[2]), b.is_solid(p[0], p[1], p[2]));
            assert_eq!(Union(&a, &b).is_solid(p[0], p[1], p[2]), sa || sb, "{p:?}");
            assert_eq!(Intersection(&a, &b).is_solid(p[0], p[1], p[2]), sa && sb, "{p:?}");
            assert_eq!(Difference(&a, &b).is_solid(p[0], p[1], p[2]), sa && !sb, "{p:?}");
        }
    }

    #[test]
    fn height_solid_interpolates_and_clamps() {
        // 2 × 2 north-up grid, 10 m cells: centres at x = 5, 15 and z = 5, 15.
        let g = Grid::from_vec(2, 2, vec![0.0, 10.0, 20.0, 30.0]).with_cell_size(10.0, 10.0);
        let h = HeightSolid::new(&g, 1.0).unwrap();
        assert_eq!(h.height(5.0, 5.0), 1.0);
        assert_eq!(h.height(15.0, 5.0), 11.0);
        assert_eq!(h.height(5.0, 15.0), 21.0);
        assert_eq!(h.height(10.0, 10.0), 16.0);
        assert_eq!(h.height(-100.0, 100.0), 21.0);
        assert!(h.is_solid(10.0, 16.0, 10.0) && !h.is_solid(10.0, 16.001, 10.0));
        let bad = Grid::from_vec(1, 1, vec![f64::NAN]).with_cell_size(1.0, 1.0);
        assert!(HeightSolid::new(&bad, 0.0).unwrap_err().to_string().contains("height"));
    }

    #[test]
    fn sizes_are_checked_before_allocating() {
        let f = ball(1.0);
        let e = voxelize(&f, [2048, 2048, 512], 1.0, [0.0; 3]).unwrap_err().to_string();
        assert!(e.contains("2^30"), "{e}");
        assert!(voxelize(&f, [0, 2, 2], 1.0, [0.0; 3]).is_err());
        assert!(sample_lattice(&f, &Lattice { dims: [2, 2, 2], origin: [0.0; 3], step: f64::NAN }).is_err());
    }

    #[test]
    fn cave_solid_is_the_sampled_cave_with_up_on_y() {
        use crate::cave::{sample_cave, CaveParams};
        use crate::{Compat, Seed};
        let p = CaveParams { length: 12.0, resolution: 2.0, ..CaveParams::default() };
        let seed = Seed::Int(7);
        let cave = sample_cave(&seed, Compat::Pyworldgen, &p).unwrap();
        let field = CaveSolid(CaveField::for_seed(&p, &seed, Compat::Pyworldgen));
        // Voxel frame (lateral, up, tunnel) against the volume's (lateral, tunnel, up).
        let (nx, ny, nz) = (cave.nx, cave.ny, cave.nz);
        let v = voxelize(&field, [nx, nz, ny], p.resolution, [0.0; 3]).unwrap();
        let mut rock = 0;
        for ix in 1..nx - 1 {
            for it in 0..ny {
                for iu in 1..nz - 1 {
                    let want = cave.solid(ix, it, iu);
                    assert_eq!(v[(ix * nz + iu) * ny + it], want, "lateral {ix} tunnel {it} up {iu}");
                    rock += usize::from(want);
                }
            }
        }
        // Not a trivial comparison: both rock and air inside.
        let inner = (nx - 2) * ny * (nz - 2);
        assert!(rock > inner / 10 && rock < inner * 9 / 10, "{rock} of {inner}");
    }

    #[test]
    fn lattice_layout_is_x_then_z_then_y() {
        let f = FnSolid(|x: f64, y: f64, z: f64| x + 10.0 * z + 100.0 * y);
        let l = Lattice { dims: [3, 2, 4], origin: [0.0; 3], step: 1.0 };
        let v = sample_lattice(&f, &l).unwrap();
        for y in 0..2 {
            for z in 0..4 {
                for x in 0..3 {
                    assert_eq!(v[x + 3 * (z + 4 * y)], (x + 10 * z + 100 * y) as f32);
                }
            }
        }
    }
}
