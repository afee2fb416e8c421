//! Software rendering for bozkir previews: hillshade, colour ramps and shaded-relief images.
//!
//! Pure: values in, pixels out. Images are [`Rgb8Image`] buffers; writing them to files is the
//! io crate's job. Work is split over rows with rayon and every pixel is computed independently,
//! so output is identical for any thread count.

pub mod bake;
pub mod camera;
pub mod draw;
pub mod hillshade;
pub mod image;
pub mod path;
pub mod popping;
pub mod preview;
pub mod ramp;
pub mod raster;
pub mod views;

pub use bake::{bake_albedo, bake_micro_normal, BakeMasks, BakeParams};
pub use camera::{Camera, CameraError, Lens};
pub use hillshade::{hillshade, multi_hillshade, HillshadeParams, MultiHillshadeParams};
pub use image::Rgb8Image;
pub use path::{frame_bounds, orbit, orbit_fit, turntable, FlyThrough, Keyframe};
pub use preview::{shaded_relief, PreviewParams, Shading};
pub use ramp::{categorical_colour, colourise, colourise_classes, colourise_diverging, Ramp, CATEGORICAL};
pub use raster::{render_mesh, render_points, MeshParams, MeshRef, PointParams, PointsRef, RasterError, View};
