//! Software rendering for bozkir: hillshade, colour ramps and shaded-relief previews, and the
//! views of issue 23 — a pinhole [`camera`], orbits, turntables and fly-throughs ([`path`]), a
//! z-buffered triangle rasteriser, point splatter and Gaussian splat renderer with sun, shadows, sky and fog
//! ([`raster`]), and the glue between them ([`views`]).
//!
//! Pure: values in, pixels out. Images are [`Rgb8Image`] buffers; writing them to files is the
//! io crate's job. Work is split with rayon and every result is independent of the thread count
//! (pixels computed independently; the rasteriser's depth test an order-free atomic maximum).

pub mod antitile;
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

pub use antitile::{DetailTexture, Tiling, TilingParams};
pub use bake::{
    bake_albedo, bake_albedo_materials, bake_albedo_with, bake_micro_normal, BakeDetail, BakeMasks, BakeParams,
    WATER_TEXEL,
};
pub use camera::{Camera, CameraError, Lens};
pub use hillshade::{hillshade, multi_hillshade, HillshadeParams, MultiHillshadeParams};
pub use image::Rgb8Image;
pub use path::{frame_bounds, orbit, orbit_fit, turntable, FlyThrough, Keyframe};
pub use preview::{shaded_relief, shaded_relief_water, water_colour, PreviewParams, Shading, WATER};
pub use ramp::{categorical_colour, colourise, colourise_classes, colourise_diverging, Ramp, CATEGORICAL};
pub use raster::{
    render_mesh, render_points, render_splats, MeshParams, MeshRef, PointParams, PointsRef, RasterError, SplatParams,
    SplatsRef, View,
};
