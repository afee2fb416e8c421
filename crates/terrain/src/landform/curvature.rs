//! Profile, plan and total curvature from a partial quartic fitted to the 3×3 window, and the
//! simple 4-neighbour Laplacian.
//!
//! Source: L. W. Zevenbergen and C. R. Thorne, "Quantitative analysis of land surface topography",
//! *Earth Surface Processes and Landforms* 12(1), 1987. The surface
//! `z = Ax²y² + Bx²y + Cxy² + Dx² + Ey² + Fxy + Gx + Hy + I` passes through the nine heights;
//! with `x` east, `y` north and the window `Z1..Z9` in reading order (Z1 = NW, Z5 = centre),
//! generalised to `dx ≠ dy`:
//!
//! ```text
//! D = ((Z4 + Z6)/2 − Z5) / dx²        E = ((Z2 + Z8)/2 − Z5) / dy²
//! F = (Z3 − Z1 + Z7 − Z9) / (4·dx·dy)
//! G = (Z6 − Z4) / (2·dx)              H = (Z2 − Z8) / (2·dy)
//! ```
//!
//! so `z_x = G`, `z_y = H`, `z_xx = 2D`, `z_yy = 2E`, `z_xy = F` at the centre.
//!
//! **Sign convention: positive = concave (upward-concave, a bowl), for all three measures and the
//! Laplacian**, matching the original bozkir analysis ("positive = concave"). Concretely these are
//! second directional derivatives in 1/m (not normalised by `(1 + |∇z|²)^{3/2}`, as in ZT87):
//!
//! * `total = z_xx + z_yy = 2(D + E)` — the Laplacian of the fitted surface (ZT87's "curvature"
//!   is `−2(D + E)`, the opposite sign);
//! * `profile = (z_xx·G² + 2·z_xy·G·H + z_yy·H²) / (G² + H²)` — along the fall line; positive
//!   where the slope lessens downhill (flow decelerates, deposition);
//! * `plan = (z_xx·H² − 2·z_xy·G·H + z_yy·G²) / (G² + H²)` — across the fall line, along the
//!   contour; positive where contours are concave, i.e. flow converges (hollows).
//!
//! Where the gradient is exactly zero, profile and plan have no direction and are 0. Edges pad by
//! replication.

use super::{map_window3, Window3};
use bozkir_core::Grid;

/// The three Zevenbergen–Thorne curvatures, each in 1/m, positive = concave.
#[derive(Debug, Clone, PartialEq)]
pub struct Curvature {
    /// Along the steepest descent direction.
    pub profile: Grid<f64>,
    /// Along the contour (across the slope).
    pub plan: Grid<f64>,
    /// `z_xx + z_yy`.
    pub total: Grid<f64>,
}

#[inline(always)]
fn zt(w: &Window3, dx: f64, dy: f64) -> (f64, f64, f64) {
    let [z1, z2, z3, z4, z5, z6, z7, z8, z9] = *w;
    let d = ((z4 + z6) * 0.5 - z5) / (dx * dx);
    let e = ((z2 + z8) * 0.5 - z5) / (dy * dy);
    let f = (z3 - z1 + z7 - z9) / (4.0 * dx * dy);
    let g = (z6 - z4) / (2.0 * dx);
    let h = (z2 - z8) / (2.0 * dy);
    let (zxx, zyy, zxy) = (2.0 * d, 2.0 * e, f);
    let p = g * g + h * h;
    let total = zxx + zyy;
    if p == 0.0 {
        return (0.0, 0.0, total);
    }
    let profile = (zxx * g * g + 2.0 * zxy * g * h + zyy * h * h) / p;
    let plan = (zxx * h * h - 2.0 * zxy * g * h + zyy * g * g) / p;
    (profile, plan, total)
}

/// Zevenbergen & Thorne (1987) profile, plan and total curvature (see the module docs for the
/// sign convention: positive = concave).
pub fn curvature(z: &Grid<f64>) -> Curvature {
    let (dx, dy) = (z.dx, z.dy);
    let all = map_window3(z, (0.0, 0.0, 0.0), |w| zt(w, dx, dy));
    Curvature { profile: all.map(|c| c.0), plan: all.map(|c| c.1), total: all.map(|c| c.2) }
}

/// The 4-neighbour Laplacian `(zE + zW − 2z)/dx² + (zN + zS − 2z)/dy²` in 1/m; positive =
/// concave. Edges pad by replication (so a border cell sees no curvature across the border).
pub fn laplacian(z: &Grid<f64>) -> Grid<f64> {
    let (dx, dy) = (z.dx, z.dy);
    map_window3(z, 0.0, |w| (w[3] + w[5] - 2.0 * w[4]) / (dx * dx) + (w[1] + w[7] - 2.0 * w[4]) / (dy * dy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(a: f64, b: f64, dx: f64, dy: f64) -> Grid<f64> {
        // z = a·X² + b·Y² with X, Y in metres from the centre (Y north-positive).
        Grid::from_fn(21, 21, |x, y| {
            let (xm, ym) = ((x as f64 - 10.0) * dx, (10.0 - y as f64) * dy);
            a * xm * xm + b * ym * ym
        })
        .with_cell_size(dx, dy)
    }

    #[test]
    fn bowl_dome_saddle_signs() {
        for &(dx, dy) in &[(1.0, 1.0), (2.0, 0.5)] {
            let bowl = curvature(&quad(0.1, 0.1, dx, dy));
            let dome = curvature(&quad(-0.1, -0.1, dx, dy));
            let saddle = curvature(&quad(0.1, -0.1, dx, dy));
            // A quadratic is fitted exactly: total = 2a + 2b.
            assert!((bowl.total.get(10, 10) - 0.4).abs() < 1e-9);
            assert!((dome.total.get(10, 10) + 0.4).abs() < 1e-9);
            assert!(saddle.total.get(10, 10).abs() < 1e-9);
            // On the flank of the bowl, both profile and plan are concave; on the dome convex.
            assert!(*bowl.profile.get(14, 7) > 0.0 && *bowl.plan.get(14, 7) > 0.0);
            assert!(*dome.profile.get(14, 7) < 0.0 && *dome.plan.get(14, 7) < 0.0);
            // On the saddle's x axis the fall line runs along x (concave, z_xx = 0.2) and the
            // contour along y (convex, z_yy = −0.2).
            assert!((saddle.profile.get(15, 10) - 0.2).abs() < 1e-9);
            assert!((saddle.plan.get(15, 10) + 0.2).abs() < 1e-9);
            // At the exact centre there is no gradient: profile and plan are 0.
            assert_eq!(*bowl.profile.get(10, 10), 0.0);
            let lap = laplacian(&quad(0.1, 0.1, dx, dy));
            assert!((lap.get(10, 10) - 0.4).abs() < 1e-9);
            assert!(laplacian(&quad(0.1, -0.1, dx, dy)).get(10, 10).abs() < 1e-9);
        }
    }

    #[test]
    fn plane_has_no_curvature() {
        let z = Grid::from_fn(7, 7, |x, y| 3.0 * x as f64 - 2.0 * y as f64).with_cell_size(1.5, 2.5);
        let c = curvature(&z);
        for v in [&c.profile, &c.plan, &c.total] {
            assert!(v.get(3, 3).abs() < 1e-12);
        }
    }
}
