//! Georeferencing as values: where a north-up raster's pixels lie in its CRS.
//!
//! The type is plain arithmetic (no CRS database, no file format): `bozkir-io` fills it from a
//! GeoTIFF's tags, and the pure crates (e.g. the validation protocol of `bozkir-material`) use
//! it to map between rasters that share a CRS.

/// Where a north-up raster lies in its CRS: pixel `(c, r)` (column, row; row 0 at the top)
/// has its centre at `x = x0 + (c + 0.5)·sx`, `y = y0 − (r + 0.5)·sy`, in CRS units (degrees
/// for a geographic CRS). `(x0, y0)` is the outer corner of the top-left pixel.
///
/// From GeoTIFF (read by `bozkir-io`): `sx, sy` = ModelPixelScale (33550) and the corner from the ModelTiepoint
/// (33922) `(i, j, _, X, Y, _)` as `x0 = X − i·sx`, `y0 = Y + j·sy` (a PixelIsPoint raster's
/// tie point names a pixel centre, so half a pixel more), or an unrotated
/// ModelTransformation (34264).
///
/// # Examples
///
/// ```
/// use bozkir_core::geo::GeoTransform;
///
/// let gt = GeoTransform { x0: 500.0, y0: 900.0, sx: 2.0, sy: 3.0 };
/// assert_eq!(gt.pixel_centre(0.0, 0.0), (501.0, 898.5));
/// assert_eq!(gt.to_pixel(501.0, 898.5), (0.0, 0.0));
/// assert_eq!(gt.bounds(10, 4), (500.0, 888.0, 520.0, 900.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoTransform {
    /// CRS x of the outer (west) edge of column 0.
    pub x0: f64,
    /// CRS y of the outer (north) edge of row 0.
    pub y0: f64,
    /// Pixel width in CRS units (> 0).
    pub sx: f64,
    /// Pixel height in CRS units (> 0; y decreases downwards).
    pub sy: f64,
}

impl GeoTransform {
    /// CRS coordinates of the centre of pixel `(c, r)` (fractional indices allowed).
    pub fn pixel_centre(&self, c: f64, r: f64) -> (f64, f64) {
        (self.x0 + (c + 0.5) * self.sx, self.y0 - (r + 0.5) * self.sy)
    }

    /// Fractional pixel indices `(c, r)` whose centre is at `(x, y)`: the inverse of
    /// [`GeoTransform::pixel_centre`] (so pixel `(c, r)` covers `c − 0.5 .. c + 0.5`).
    pub fn to_pixel(&self, x: f64, y: f64) -> (f64, f64) {
        ((x - self.x0) / self.sx - 0.5, (self.y0 - y) / self.sy - 0.5)
    }

    /// The CRS bounds `(x_min, y_min, x_max, y_max)` of a `w × h` raster's outer edges.
    pub fn bounds(&self, w: usize, h: usize) -> (f64, f64, f64, f64) {
        (self.x0, self.y0 - h as f64 * self.sy, self.x0 + w as f64 * self.sx, self.y0)
    }
}
