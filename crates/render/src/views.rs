//! Cameras meet the rasteriser: [`View::from_camera`] turns a [`Camera`] (row-major matrices,
//! z-up world) into the rasteriser's [`View`] (column-major, OpenGL clip), and
//! [`render_mesh_turntable`] / [`render_points_turntable`] render a scene around its bounding
//! box in `n` frames with [`orbit_fit`] and [`turntable`] (every frame holds the whole box).
//!
//! The rasteriser's `up` (sky and ambient light) is set to the camera's world up, +z.

use crate::camera::{transpose, Camera, CameraError, Lens};
use crate::image::Rgb8Image;
use crate::path::{orbit_fit, turntable};
use crate::raster::{render_mesh, render_points, MeshParams, MeshRef, PointParams, PointsRef, RasterError, View};

impl View {
    /// The rasteriser's view of `camera`: its view-projection transposed to column-major, its
    /// eye and image size.
    pub fn from_camera(camera: &Camera) -> View {
        View {
            view_proj: transpose(&camera.view_projection()),
            eye: camera.eye(),
            width: camera.width() as u32,
            height: camera.height() as u32,
        }
    }
}

/// Why a turntable failed.
#[derive(Debug)]
pub enum ViewsError {
    /// The cameras.
    Camera(CameraError),
    /// The rasteriser.
    Raster(RasterError),
}

impl std::fmt::Display for ViewsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewsError::Camera(e) => write!(f, "camera: {e}"),
            ViewsError::Raster(e) => write!(f, "render: {e}"),
        }
    }
}

impl std::error::Error for ViewsError {}

/// The bounding box of `points` (min, max); `None` when empty or not finite.
pub fn bounds(points: impl IntoIterator<Item = [f64; 3]>) -> Option<([f64; 3], [f64; 3])> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (lo.iter().chain(&hi).all(|v| v.is_finite())).then_some((lo, hi))
}

/// The cameras of a turntable of `n` frames around the box, at `elevation_deg`, starting at
/// `azimuth_deg`, the box inside every frame with a `margin` (fraction of the image).
pub fn turntable_cameras(
    bounds: ([f64; 3], [f64; 3]),
    lens: Lens,
    n: usize,
    elevation_deg: f64,
    azimuth_deg: f64,
    margin: f64,
) -> Result<Vec<Camera>, ViewsError> {
    let (c, r) = orbit_fit(bounds.0, bounds.1, lens, margin).map_err(ViewsError::Camera)?;
    turntable(n, c, r, elevation_deg, azimuth_deg, lens).map_err(ViewsError::Camera)
}

/// Renders `mesh` from each camera (the rasteriser's `up` set to +z).
pub fn render_mesh_turntable(
    cameras: &[Camera],
    mesh: &MeshRef<'_>,
    params: &MeshParams,
) -> Result<Vec<Rgb8Image>, ViewsError> {
    let p = MeshParams { up: [0.0, 0.0, 1.0], ..*params };
    cameras
        .iter()
        .map(|c| render_mesh(&View::from_camera(c), mesh, &p).map(|f| f.image).map_err(ViewsError::Raster))
        .collect()
}

/// Renders `points` from each camera (the rasteriser's `up` set to +z).
pub fn render_points_turntable(
    cameras: &[Camera],
    points: &PointsRef<'_>,
    params: &PointParams,
) -> Result<Vec<Rgb8Image>, ViewsError> {
    let p = PointParams { up: [0.0, 0.0, 1.0], ..*params };
    cameras
        .iter()
        .map(|c| render_points(&View::from_camera(c), points, &p).map(|f| f.image).map_err(ViewsError::Raster))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::{PointShape, PointSize, Sky};

    /// A point drawn through `View::from_camera` lands on the pixel `Camera::project` names.
    #[test]
    fn points_land_where_the_camera_projects_them() {
        let lens = Lens { fov_deg: 50.0, width: 64, height: 48 };
        let cam = Camera::with_lens([30.0, -40.0, 25.0], [2.0, 3.0, 1.0], [0.0, 0.0, 1.0], lens).unwrap();
        let sky = Sky { zenith: [0, 0, 0], horizon: [0, 0, 0], ground: [0, 0, 0] };
        let mut tested = 0;
        for p in [[2.7, 3.1, 1.4], [8.3, 0.6, 4.1], [-5.0, 9.0, -2.0], [-5.3, 9.2, -2.0], [11.0, 7.7, 0.3]] {
            let px = cam.project(p).unwrap();
            // Away from pixel borders (a point on one lights either neighbour).
            if px[..2].iter().any(|v| (v - v.round()).abs() < 0.05) {
                continue;
            }
            tested += 1;
            let pts = [p];
            let colours = [[255u8, 255, 255]];
            let params = PointParams {
                size: PointSize::Pixels(0.5),
                shape: PointShape::Square,
                sky,
                supersample: 1,
                ..PointParams::default()
            };
            let img =
                render_points_turntable(&[cam], &PointsRef::new(&pts[..]).with_colours(&colours), &params).unwrap();
            let lit: Vec<(usize, usize)> = (0..48)
                .flat_map(|y| (0..64).map(move |x| (x, y)))
                .filter(|&(x, y)| img[0].pixel(x, y)[0] > 128)
                .collect();
            assert_eq!(lit, vec![(px[0].floor() as usize, px[1].floor() as usize)], "{p:?} → {px:?}");
        }
        assert!(tested >= 3);
    }

    /// Every frame of a turntable around a box shows the box (not only sky) and the frames differ.
    #[test]
    fn a_turntable_shows_the_box_from_every_side() {
        let p: Vec<[f32; 3]> = vec![
            [0.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [4.0, 2.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 1.0],
            [4.0, 0.0, 1.0],
            [4.0, 2.0, 1.0],
            [0.0, 2.0, 1.0],
        ];
        let i = [
            0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7,
        ];
        let b = bounds(p.iter().map(|v| v.map(f64::from))).unwrap();
        let lens = Lens { fov_deg: 40.0, width: 48, height: 32 };
        let cams = turntable_cameras(b, lens, 4, 25.0, 10.0, 0.1).unwrap();
        let blue = Sky { zenith: [0, 0, 255], horizon: [0, 0, 255], ground: [0, 0, 255] };
        let params = MeshParams { sky: blue, default_colour: [255, 255, 0], ..MeshParams::default() };
        let frames = render_mesh_turntable(&cams, &MeshRef::new(&p[..], &i), &params).unwrap();
        assert_eq!(frames.len(), 4);
        for f in &frames {
            let boxed = (0..32).flat_map(|y| (0..48).map(move |x| (x, y))).filter(|&(x, y)| f.pixel(x, y)[0] > 40);
            assert!(boxed.count() > 48, "the yellow box covers part of the frame");
            // The whole box is inside: no box pixel on the image border.
            let border = (0..48).all(|x| f.pixel(x, 0)[0] < 40 && f.pixel(x, 31)[0] < 40);
            assert!(border, "the box stays inside the frame");
        }
        assert_ne!(frames[0], frames[1]);
    }
}
