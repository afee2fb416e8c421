//! A headless software renderer: a z-buffered triangle rasteriser with sun, sky light, shadows,
//! sky and fog, and a z-buffered point splatter; supersampled, multi-threaded and deterministic.
//!
//! **View.** A [`View`] is a 4 × 4 view-projection matrix, column-major (`view_proj[column][row]`,
//! as OpenGL and glTF store matrices), taking world points `(x, y, z, 1)` to clip coordinates
//! with OpenGL's conventions: a point is visible when `−w ≤ x, y, z ≤ w`, `x/w = −1` is the left
//! edge of the image, `y/w = +1` the top edge, `z/w = −1` the near plane and `+1` the far plane.
//! Perspective and orthographic matrices both work. `eye` is the camera position, used for fog
//! and the returned distances; `width × height` is the image in pixels. The world's up axis is a
//! parameter (default `+y`, the project's 3-D frames and glTF).
//!
//! **Triangles** ([`render_mesh`]). Positions (`f32` or `f64`), optional per-vertex normals and
//! sRGB colours, `u32` indices, three per triangle; both faces are drawn unless
//! [`MeshParams::cull_backfaces`] (front = counter-clockwise on screen, glTF's convention).
//! 1. Vertices are transformed and snapped once; triangles are clipped in homogeneous space
//!    against the near and far planes and a guard band (a triangle crossing the near plane keeps
//!    its visible part), with corners snapped to 1/256 sample in fixed point.
//! 2. Triangles are rasterised in parallel chunks with exact integer edge functions and the
//!    top-left fill rule (shared edges are drawn exactly once: no gaps, no double hits). Each
//!    sample keeps the maximum of a 64-bit key, depth `1 − z/w` above the complemented triangle
//!    index, by atomic `fetch_max`: the nearest triangle wins, the earlier one on an exact tie,
//!    whatever order the threads deliver fragments in.
//! 3. Each pixel's samples are grouped by triangle; each triangle is shaded once at its first
//!    sample with perspective-correct barycentrics of the *original* triangle (from 2-D
//!    homogeneous coordinates, so clipping never distorts attributes), in linear light:
//!    `albedo · (sun · max(0, n·l) · lit + ambient(n))`, where `n` is the face normal (flat) or
//!    the interpolated vertex normal (smooth), both turned towards the viewer;
//!    `ambient(n)` blends the ground bounce (facing down) to the sky light (facing up) by
//!    `½ + ½ n·up`; `lit` is the fraction of the shadow-map taps that see the sun. Distance fog
//!    then mixes towards the fog colour by `1 − exp(−density · max(0, distance − start))`.
//! 4. Samples that hit nothing show the sky: horizon to zenith (or to the ground colour below the
//!    horizon) by the square root of |sin elevation| of the pixel's view ray.
//! 5. The `s × s` samples of a pixel are averaged in linear light (a box filter) and encoded to
//!    sRGB bytes.
//!
//! **Shadows.** The scene is rendered once more, depth only, from the sun along an orthographic
//! view fit to the bounding box of all vertices in the sun's frame (a square map of
//! [`Shadows::resolution`]² texels). A shaded point is moved off its surface along the face normal
//! by `bias_texels` texel widths and compared with the map with the same margin of depth, over
//! a `(2·pcf_radius + 1)²` neighbourhood of texels (percentage-closer filtering).
//!
//! **Points** ([`render_points`]). Each point becomes a square or disc of a radius in pixels or
//! in world units (projected with the matrix's vertical scale, `r · |row₁(xyz)| / w · height/2`),
//! at its centre's depth, z-tested with the same kind of key (depth above the sRGB colour; the
//! points are filed by bands of rows and each band drawn by one thread with plain maxima, see
//! the `points` module), and shaded by depth (grey from light near to dark far over the range of the pixels'
//! distances), normal (`(n/|n| + 1)/2` as sRGB bytes) or colour. Unlit.
//!
//! **Gaussian splats** ([`render_splats`], module `splats`). Each splat is a 3-D Gaussian projected
//! to a 2-D one with the Jacobian of the projection at its centre (EWA), widened by the viewer's
//! low-pass term, cut at the viewer's 2√2 σ, sorted by depth and alpha-blended over a flat
//! background exactly as the browser viewer's WebGL2 path does (premultiplied, far to near,
//! display-space colours). See [`SplatsRef`] and [`SplatParams`].
//!
//! **Determinism.** The depth test keeps a maximum, which does not depend on the order of the
//! fragments, and every later pass computes each pixel on its own: the bytes of the image and the
//! distances are the same for any rayon pool size. (Points tie-break equal depths by colour;
//! splats are sorted with an index tie-break and each sample composites them in that order.)
//!
//! **Buffers kept between frames.** Key buffers, shadow maps, clip coordinates and point bins
//! of the last frame are kept for the next one (re-faulting tens of megabytes of fresh pages
//! each frame cost more than drawing into them); [`free_frame_buffers`] drops them.
//!
//! **Errors.** [`RasterError`], before anything is drawn: zero-size or oversized images, a
//! non-finite or singular matrix, an empty mesh or cloud, a NaN or infinite position or normal,
//! an index out of range, attribute arrays of the wrong length, parameters out of range.
//! Degenerate triangles are not errors: they cover no samples and are skipped. A scene whose
//! geometry is all off screen renders as sky.

mod error;
mod pipeline;
mod points;
mod scratch;
pub(crate) mod shade;
mod splats;
#[cfg(test)]
mod tests;

pub use error::RasterError;
pub use splats::{
    render_splats, SplatParams, SplatsRef, VIEWER_BACKGROUND, VIEWER_CUTOFF_SIGMA, VIEWER_DILATION_PX2,
    VIEWER_MIN_ALPHA,
};

use pipeline::{draw_triangles, invert, transform_all, Mat4, Target, MAX_SAMPLES_PER_AXIS};
use points::{draw_points, Radius};
use rayon::prelude::*;
use shade::{key_buffer, normalise, resolve, rgb_to_linear, tri_key, EyeDir, MeshShader, ShadowMap, SkyShader};
use std::sync::atomic::Ordering::Relaxed;

use crate::image::Rgb8Image;

/// Largest point radius, in output pixels; larger radii are clamped.
pub const MAX_RADIUS_PX: f64 = 64.0;

/// What to render from: a view-projection matrix (see the [module docs](self) for its
/// conventions), the eye position and the image size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// World → clip matrix, column-major (`view_proj[column][row]`), OpenGL clip conventions.
    pub view_proj: [[f64; 4]; 4],
    /// Camera position in world units: fog and the returned distances are measured from it.
    pub eye: [f64; 3],
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
}

/// Vertex or point positions in single or double precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Positions<'a> {
    /// `f32` coordinates.
    F32(&'a [[f32; 3]]),
    /// `f64` coordinates.
    F64(&'a [[f64; 3]]),
}

impl Positions<'_> {
    /// Number of positions.
    pub fn len(&self) -> usize {
        match self {
            Positions::F32(p) => p.len(),
            Positions::F64(p) => p.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `i` in `f64` (panics past the end, like slice indexing).
    #[inline]
    pub fn get(&self, i: usize) -> [f64; 3] {
        match self {
            Positions::F32(p) => [p[i][0] as f64, p[i][1] as f64, p[i][2] as f64],
            Positions::F64(p) => p[i],
        }
    }
}

impl<'a> From<&'a [[f32; 3]]> for Positions<'a> {
    fn from(p: &'a [[f32; 3]]) -> Self {
        Positions::F32(p)
    }
}

impl<'a> From<&'a [[f64; 3]]> for Positions<'a> {
    fn from(p: &'a [[f64; 3]]) -> Self {
        Positions::F64(p)
    }
}

impl<'a> From<&'a Vec<[f32; 3]>> for Positions<'a> {
    fn from(p: &'a Vec<[f32; 3]>) -> Self {
        Positions::F32(p)
    }
}

impl<'a> From<&'a Vec<[f64; 3]>> for Positions<'a> {
    fn from(p: &'a Vec<[f64; 3]>) -> Self {
        Positions::F64(p)
    }
}

/// A triangle mesh to draw, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshRef<'a> {
    /// Vertex positions.
    pub positions: Positions<'a>,
    /// Per-vertex normals (need not be unit length); `None` shades every triangle flat.
    pub normals: Option<&'a [[f32; 3]]>,
    /// Per-vertex sRGB colours; `None` uses [`MeshParams::default_colour`].
    pub colours: Option<&'a [[u8; 3]]>,
    /// Three vertex indices per triangle.
    pub indices: &'a [u32],
}

impl<'a> MeshRef<'a> {
    /// A mesh with positions and indices only.
    pub fn new(positions: impl Into<Positions<'a>>, indices: &'a [u32]) -> Self {
        Self { positions: positions.into(), normals: None, colours: None, indices }
    }

    /// With per-vertex normals.
    pub fn with_normals(mut self, normals: &'a [[f32; 3]]) -> Self {
        self.normals = Some(normals);
        self
    }

    /// With per-vertex sRGB colours.
    pub fn with_colours(mut self, colours: &'a [[u8; 3]]) -> Self {
        self.colours = Some(colours);
        self
    }
}

/// A point cloud to draw, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointsRef<'a> {
    /// Point positions.
    pub positions: Positions<'a>,
    /// Per-point normals (needed by [`PointShading::Normal`]).
    pub normals: Option<&'a [[f32; 3]]>,
    /// Per-point sRGB colours; `None` uses [`PointParams::default_colour`].
    pub colours: Option<&'a [[u8; 3]]>,
}

impl<'a> PointsRef<'a> {
    /// A cloud of positions only.
    pub fn new(positions: impl Into<Positions<'a>>) -> Self {
        Self { positions: positions.into(), normals: None, colours: None }
    }

    /// With per-point normals.
    pub fn with_normals(mut self, normals: &'a [[f32; 3]]) -> Self {
        self.normals = Some(normals);
        self
    }

    /// With per-point sRGB colours.
    pub fn with_colours(mut self, colours: &'a [[u8; 3]]) -> Self {
        self.colours = Some(colours);
        self
    }
}

/// Which normal a triangle is lit with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NormalMode {
    /// The face normal: one shade per triangle.
    Flat,
    /// The perspective-correct interpolation of the vertex normals (flat where the mesh has
    /// none).
    #[default]
    Smooth,
}

/// The sky gradient, sRGB colours blended in linear light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    /// Straight up. Default `[112, 152, 206]`.
    pub zenith: [u8; 3],
    /// At the horizon. Default `[206, 218, 228]`.
    pub horizon: [u8; 3],
    /// Straight down (below the horizon). Default `[128, 120, 108]`.
    pub ground: [u8; 3],
}

impl Default for Sky {
    fn default() -> Self {
        Self { zenith: [112, 152, 206], horizon: [206, 218, 228], ground: [128, 120, 108] }
    }
}

/// The sun and the ambient light, in linear light (1 = white at full strength).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lighting {
    /// Direction towards the sun (any non-zero length). Default `[0.35, 0.8, 0.45]` (high, y up).
    pub sun: [f64; 3],
    /// Sun irradiance per channel. Default `[1.0, 0.96, 0.9]`.
    pub sun_colour: [f64; 3],
    /// Ambient light on faces looking straight up (the sky). Default `[0.30, 0.34, 0.40]`.
    pub sky_light: [f64; 3],
    /// Ambient light on faces looking straight down (ground bounce). Default `[0.12, 0.11, 0.10]`.
    pub ground_light: [f64; 3],
}

impl Default for Lighting {
    fn default() -> Self {
        Self {
            sun: [0.35, 0.8, 0.45],
            sun_colour: [1.0, 0.96, 0.9],
            sky_light: [0.30, 0.34, 0.40],
            ground_light: [0.12, 0.11, 0.10],
        }
    }
}

/// Shadow-map settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shadows {
    /// Texels per side of the square map, 16..=8192. Default 2048.
    pub resolution: u32,
    /// Normal offset and depth margin, in texel widths, 0..=64. Default 1.5.
    pub bias_texels: f64,
    /// Percentage-closer filtering radius in texels (0 = one tap), 0..=4. Default 1 (3 × 3).
    pub pcf_radius: u32,
}

impl Default for Shadows {
    fn default() -> Self {
        Self { resolution: 2048, bias_texels: 1.5, pcf_radius: 1 }
    }
}

/// Distance fog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fog {
    /// sRGB fog colour. Default the default sky's horizon.
    pub colour: [u8; 3],
    /// Distance from the eye where fog begins (world units). Default 0.
    pub start: f64,
    /// Extinction per world unit beyond `start` (≥ 0): the fog fraction is
    /// `1 − exp(−density · (distance − start))`. Default 0.002.
    pub density: f64,
}

impl Default for Fog {
    fn default() -> Self {
        Self { colour: Sky::default().horizon, start: 0.0, density: 0.002 }
    }
}

/// Parameters of [`render_mesh`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshParams {
    /// Flat or smooth shading. Default smooth.
    pub normals: NormalMode,
    /// World up, for the sky and the ambient light (any non-zero length). Default `+y`.
    pub up: [f64; 3],
    /// Sun and ambient light.
    pub light: Lighting,
    /// Shadows from the sun; `None` for none. Default on.
    pub shadows: Option<Shadows>,
    /// Background.
    pub sky: Sky,
    /// Distance fog; `None` for none. Default none.
    pub fog: Option<Fog>,
    /// sRGB albedo of meshes without colours. Default `[182, 176, 166]`.
    pub default_colour: [u8; 3],
    /// Samples per pixel per axis (ordered grid, box filter), 1..=4. Default 2 (4 samples).
    pub supersample: u32,
    /// Drop triangles that are clockwise on screen. Default false (two-sided).
    pub cull_backfaces: bool,
}

impl Default for MeshParams {
    fn default() -> Self {
        Self {
            normals: NormalMode::Smooth,
            up: [0.0, 1.0, 0.0],
            light: Lighting::default(),
            shadows: Some(Shadows::default()),
            sky: Sky::default(),
            fog: None,
            default_colour: [182, 176, 166],
            supersample: 2,
            cull_backfaces: false,
        }
    }
}

/// Footprint of a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PointSize {
    /// Radius in output pixels.
    Pixels(f64),
    /// Radius in world units, shrinking with distance.
    World(f64),
}

/// Shape of a point's footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PointShape {
    /// An axis-aligned square of side twice the radius.
    Square,
    /// A disc.
    #[default]
    Disc,
}

/// How points are coloured (unlit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PointShading {
    /// Grey by eye distance: light near, dark far, over the visible range.
    Depth,
    /// World normal as colour, `(n/|n| + 1)/2` per channel (needs normals).
    Normal,
    /// The point's colour (or the default colour).
    #[default]
    Colour,
}

/// Parameters of [`render_points`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointParams {
    /// Footprint radius. Default 1.5 pixels.
    pub size: PointSize,
    /// Footprint shape. Default disc.
    pub shape: PointShape,
    /// Colouring. Default the points' colours.
    pub shading: PointShading,
    /// World up, for the sky. Default `+y`.
    pub up: [f64; 3],
    /// Background.
    pub sky: Sky,
    /// sRGB colour of clouds without colours. Default `[182, 176, 166]`.
    pub default_colour: [u8; 3],
    /// Samples per pixel per axis, 1..=4. Default 1.
    pub supersample: u32,
}

impl Default for PointParams {
    fn default() -> Self {
        Self {
            size: PointSize::Pixels(1.5),
            shape: PointShape::Disc,
            shading: PointShading::Colour,
            up: [0.0, 1.0, 0.0],
            sky: Sky::default(),
            default_colour: [182, 176, 166],
            supersample: 1,
        }
    }
}

/// A rendered frame.
#[derive(Debug, Clone, PartialEq)]
pub struct RasterFrame {
    /// The sRGB image.
    pub image: Rgb8Image,
    /// Per pixel (row-major), the eye distance of the nearest surface seen in any of its
    /// samples; `+∞` where the pixel shows only sky.
    pub distance: Vec<f32>,
}

fn param(name: &'static str, value: impl std::fmt::Debug, why: &'static str) -> RasterError {
    RasterError::Param { name, value: format!("{value:?}"), why }
}

fn finite3(v: [f64; 3]) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// Checks the view and the supersampling; returns the sample target and the inverse matrix.
fn check_view(view: &View, supersample: u32) -> Result<(Target, usize, Mat4), RasterError> {
    if !(1..=4).contains(&supersample) {
        return Err(param("supersample", supersample, "must be 1..=4 samples per axis"));
    }
    if view.width == 0 || view.height == 0 {
        return Err(RasterError::EmptyImage { width: view.width, height: view.height });
    }
    let s = supersample as usize;
    let (sw, sh) = (view.width as usize * s, view.height as usize * s);
    if sw > MAX_SAMPLES_PER_AXIS || sh > MAX_SAMPLES_PER_AXIS {
        return Err(RasterError::ImageTooLarge {
            width: view.width,
            height: view.height,
            supersample,
            max: MAX_SAMPLES_PER_AXIS,
        });
    }
    if !view.view_proj.iter().flatten().all(|v| v.is_finite()) {
        return Err(RasterError::BadMatrix("not finite"));
    }
    if !finite3(view.eye) {
        return Err(param("eye", view.eye, "must be finite"));
    }
    let inv = invert(&view.view_proj).ok_or(RasterError::BadMatrix("singular"))?;
    Ok((Target { sw, sh }, s, inv))
}

fn unit(name: &'static str, v: [f64; 3]) -> Result<[f64; 3], RasterError> {
    if !finite3(v) {
        return Err(param(name, v, "must be a finite, non-zero vector"));
    }
    normalise(v).ok_or_else(|| param(name, v, "must be a finite, non-zero vector"))
}

fn light3(name: &'static str, v: [f64; 3]) -> Result<(), RasterError> {
    if finite3(v) && v.iter().all(|&c| c >= 0.0) {
        Ok(())
    } else {
        Err(param(name, v, "must be finite and ≥ 0"))
    }
}

/// Index of the first element of `v` failing `ok`, searched in parallel blocks.
fn first_bad<T: Sync>(v: &[T], ok: impl Fn(&T) -> bool + Sync) -> Option<usize> {
    const BLOCK: usize = 1 << 16;
    // A branch-free pass over each block (vectorisable); the search only where one fails.
    v.par_chunks(BLOCK).enumerate().find_map_first(|(b, c)| {
        let all = c.iter().fold(true, |a, x| a & ok(x));
        if all {
            None
        } else {
            c.iter().position(|x| !ok(x)).map(|k| b * BLOCK + k)
        }
    })
}

/// Positions finite, attributes of the right length and finite.
fn check_attributes(
    positions: Positions<'_>,
    normals: Option<&[[f32; 3]]>,
    colours: Option<&[[u8; 3]]>,
) -> Result<(), RasterError> {
    let n = positions.len();
    let bad = match positions {
        Positions::F32(p) => first_bad(p, |v| v[0].is_finite() & v[1].is_finite() & v[2].is_finite()),
        Positions::F64(p) => first_bad(p, |v| v[0].is_finite() & v[1].is_finite() & v[2].is_finite()),
    };
    if let Some(i) = bad {
        return Err(RasterError::NonFinitePosition { index: i, value: positions.get(i) });
    }
    if let Some(nr) = normals {
        if nr.len() != n {
            return Err(RasterError::AttributeLength { attribute: "normals", len: nr.len(), positions: n });
        }
        if let Some(i) = first_bad(nr, |v| v[0].is_finite() & v[1].is_finite() & v[2].is_finite()) {
            return Err(RasterError::NonFiniteNormal { index: i, value: nr[i] });
        }
    }
    if let Some(cl) = colours {
        if cl.len() != n {
            return Err(RasterError::AttributeLength { attribute: "colours", len: cl.len(), positions: n });
        }
    }
    Ok(())
}

fn check_mesh(mesh: &MeshRef<'_>) -> Result<(), RasterError> {
    let idx = mesh.indices;
    if !idx.len().is_multiple_of(3) {
        return Err(RasterError::RaggedIndices(idx.len()));
    }
    if idx.is_empty() {
        return Err(RasterError::Empty("mesh"));
    }
    if idx.len() / 3 >= u32::MAX as usize {
        return Err(RasterError::TooMany { what: "triangles", count: idx.len() / 3, max: u32::MAX as usize - 1 });
    }
    let n = mesh.positions.len();
    if let Some(at) = first_bad(idx, |&i| (i as usize) < n) {
        return Err(RasterError::IndexOutOfRange { index: idx[at], at, vertices: n });
    }
    check_attributes(mesh.positions, mesh.normals, mesh.colours)
}

fn check_mesh_params(p: &MeshParams) -> Result<(), RasterError> {
    light3("light.sun_colour", p.light.sun_colour)?;
    light3("light.sky_light", p.light.sky_light)?;
    light3("light.ground_light", p.light.ground_light)?;
    if let Some(s) = p.shadows {
        if !(16..=8192).contains(&s.resolution) {
            return Err(param("shadows.resolution", s.resolution, "must be 16..=8192 texels"));
        }
        if !(0.0..=64.0).contains(&s.bias_texels) {
            return Err(param("shadows.bias_texels", s.bias_texels, "must be 0..=64 texels"));
        }
        if s.pcf_radius > 4 {
            return Err(param("shadows.pcf_radius", s.pcf_radius, "must be 0..=4 texels"));
        }
    }
    if let Some(f) = p.fog {
        if !(f.density.is_finite() && f.density >= 0.0) {
            return Err(param("fog.density", f.density, "must be finite and ≥ 0"));
        }
        if !f.start.is_finite() {
            return Err(param("fog.start", f.start, "must be finite"));
        }
    }
    Ok(())
}

/// Drops the frame buffers the renderers keep between frames (key buffers, shadow maps, clip
/// coordinates and point bins: tens to hundreds of megabytes after a large frame). The next
/// frame allocates them again.
pub fn free_frame_buffers() {
    pipeline::CLIP.clear();
    pipeline::SCREEN.clear();
    shade::KEYS.clear();
    shade::DEPTH.clear();
    points::free_bins();
}

/// Renders a triangle mesh: see the [module docs](self) for the pipeline, conventions and
/// errors. The image is `view.width × view.height`.
pub fn render_mesh(view: &View, mesh: &MeshRef<'_>, params: &MeshParams) -> Result<RasterFrame, RasterError> {
    let (t, s, inv) = check_view(view, params.supersample)?;
    let up = unit("up", params.up)?;
    let sun = unit("light.sun", params.light.sun)?;
    check_mesh_params(params)?;
    check_mesh(mesh)?;
    let positions = mesh.positions;
    let pos = move |i: usize| positions.get(i);
    let clip = transform_all(&view.view_proj, positions.len(), pos);
    let keys = key_buffer(&t);
    draw_triangles(&clip, mesh.indices, &t, params.cull_backfaces, |x, y, d, id| {
        let cell = &keys[y * t.sw + x];
        let k = tri_key(d, id);
        if k > cell.load(Relaxed) {
            cell.fetch_max(k, Relaxed);
        }
    });
    let shadow = params.shadows.map(|sp| ShadowMap::build(positions.len(), pos, mesh.indices, sun, &sp));
    let shader = MeshShader {
        pos,
        normals: mesh.normals,
        colours: mesh.colours,
        indices: mesh.indices,
        clip: &clip,
        to_eye: EyeDir::new(&inv),
        smooth: params.normals == NormalMode::Smooth,
        eye: view.eye,
        up,
        sun,
        sun_colour: params.light.sun_colour,
        sky_light: params.light.sky_light,
        ground_light: params.light.ground_light,
        albedo: rgb_to_linear(params.default_colour),
        shadow,
        fog: params.fog.map(|f| (f, rgb_to_linear(f.colour))),
    };
    let sky = SkyShader::new(&params.sky, up, inv);
    let (image, distance) = resolve(&keys, &t, s, &sky, |id, x, y| shader.shade(id, x, y));
    drop(shader);
    pipeline::CLIP.give(clip);
    shade::KEYS.give(keys);
    Ok(RasterFrame { image, distance })
}

/// Renders a point cloud: see the [module docs](self). Points behind the eye or beyond the near
/// and far planes are dropped.
pub fn render_points(view: &View, points: &PointsRef<'_>, params: &PointParams) -> Result<RasterFrame, RasterError> {
    let (t, s, inv) = check_view(view, params.supersample)?;
    let up = unit("up", params.up)?;
    let n = points.positions.len();
    if n == 0 {
        return Err(RasterError::Empty("point cloud"));
    }
    if n >= u32::MAX as usize {
        return Err(RasterError::TooMany { what: "points", count: n, max: u32::MAX as usize - 1 });
    }
    let radius = match params.size {
        PointSize::Pixels(r) if r.is_finite() && r > 0.0 => Radius::Samples(r * s as f64),
        PointSize::World(r) if r.is_finite() && r > 0.0 => {
            let m = &view.view_proj;
            let fy = (m[0][1] * m[0][1] + m[1][1] * m[1][1] + m[2][1] * m[2][1]).sqrt();
            Radius::World(r * fy * t.sh as f64 * 0.5)
        }
        other => return Err(param("size", other, "radius must be finite and > 0")),
    };
    if params.shading == PointShading::Normal && points.normals.is_none() {
        return Err(RasterError::MissingNormals);
    }
    check_attributes(points.positions, points.normals, points.colours)?;
    let disc = params.shape == PointShape::Disc;
    let default = params.default_colour;
    let colour = |i: usize| match params.shading {
        PointShading::Colour => points.colours.map_or(default, |c| c[i]),
        PointShading::Normal => {
            let nr = points.normals.map_or([0.0; 3], |nr| nr[i]);
            let v = normalise([nr[0] as f64, nr[1] as f64, nr[2] as f64]).unwrap_or([0.0; 3]);
            v.map(|c| ((c + 1.0) * 0.5 * 255.0 + 0.5) as u8)
        }
        PointShading::Depth => [0; 3],
    };
    let max_r = MAX_RADIUS_PX * s as f64;
    let sky = SkyShader::new(&params.sky, up, inv);
    let grey = params.shading == PointShading::Depth;
    let m = &view.view_proj;
    // One instance per storage type, so the projection loop reads the slice directly.
    let (image, distance) = match points.positions {
        Positions::F32(p) => {
            let pos = |i: usize| p[i].map(f64::from);
            draw_points(n, pos, colour, m, &t, s, radius, disc, max_r, &sky, inv, view.eye, grey)
        }
        Positions::F64(p) => draw_points(n, |i| p[i], colour, m, &t, s, radius, disc, max_r, &sky, inv, view.eye, grey),
    };
    Ok(RasterFrame { image, distance })
}
