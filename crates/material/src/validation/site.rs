//! The window, the inputs as values, and the truths built from them.

use super::OVER;
use bozkir_core::geo::GeoTransform;
use bozkir_core::Grid;
use bozkir_terrain::points::Square;
use bozkir_terrain::sculpt::warp::sample_bilinear;

/// The square window in the input's CRS (and metres).
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// West edge (CRS units).
    pub x_min: f64,
    /// South edge (CRS units).
    pub y_min: f64,
    /// East edge (CRS units).
    pub x_max: f64,
    /// North edge (CRS units).
    pub y_max: f64,
    /// Side in metres.
    pub side_m: f64,
    /// Name of the CRS unit.
    pub units: String,
    /// `(c0, r0, w, h)` on the DTM grid (rasters) or the DTM raster's side (points).
    pub dtm_cells: (usize, usize, usize, usize),
}

impl Window {
    /// The window's square, for [`Square::cell`] and [`Square::centre`].
    pub fn square(&self) -> Square {
        Square { x_min: self.x_min, y_min: self.y_min, x_max: self.x_max, y_max: self.y_max }
    }

    /// Cell `row · n + col` of an `n × n` grid holding the point, if inside.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_material::validation::Window;
    ///
    /// let w = Window {
    ///     x_min: 0.0, y_min: 0.0, x_max: 4.0, y_max: 4.0, side_m: 4.0,
    ///     units: "metres".into(), dtm_cells: (0, 0, 4, 4),
    /// };
    /// assert_eq!(w.cell(0.5, 3.5, 4), Some(0));
    /// assert_eq!(w.cell(3.5, 0.5, 4), Some(15));
    /// assert_eq!(w.cell(4.0, 1.0, 4), None);
    /// assert_eq!(w.centre(0, 0, 4), (0.5, 3.5));
    /// ```
    pub fn cell(&self, x: f64, y: f64, n: usize) -> Option<usize> {
        self.square().cell(x, y, n)
    }

    /// CRS coordinates of the centre of cell `(r, c)` of an `m × m` grid.
    pub fn centre(&self, r: usize, c: usize, m: usize) -> (f64, f64) {
        self.square().centre(r, c, m)
    }
}

/// A truth: the vegetation fraction per cell and how many cells had no sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    /// `"colour"`, `"height"` or `"class"`.
    pub name: &'static str,
    /// Vegetation fraction per cell (0 where no sample).
    pub frac: Vec<f64>,
    /// Cells without any sample.
    pub empty: usize,
}

/// Per-sample accumulation of vegetation votes into an `n × n` grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Votes {
    veg: Vec<f64>,
    all: Vec<f64>,
}

impl Votes {
    /// No votes on an `n × n` grid.
    pub fn new(n: usize) -> Self {
        Votes { veg: vec![0.0; n * n], all: vec![0.0; n * n] }
    }

    /// One sample in cell `i`, vegetation or not.
    pub fn add(&mut self, i: usize, veg: bool) {
        self.all[i] += 1.0;
        if veg {
            self.veg[i] += 1.0;
        }
    }

    /// True when cell `i` has no sample yet.
    pub fn is_empty(&self, i: usize) -> bool {
        self.all[i] == 0.0
    }

    /// The fractions: vegetation votes over all votes per cell.
    pub fn truth(self, name: &'static str) -> Truth {
        let empty = self.all.iter().filter(|&&a| a == 0.0).count();
        let frac = self.veg.iter().zip(&self.all).map(|(v, a)| if *a > 0.0 { v / a } else { 0.0 }).collect();
        Truth { name, frac, empty }
    }
}

/// True when colour `c` is nearer `veg` than `bare` (squared RGB distance).
fn nearer(c: [f64; 3], veg: [f64; 3], bare: [f64; 3]) -> bool {
    let d = |r: [f64; 3]| (0..3).map(|k| (c[k] - r[k]) * (c[k] - r[k])).sum::<f64>();
    d(veg) < d(bare)
}

/// An orthophoto as values: colour in 0..1, validity, and where its pixels lie.
#[derive(Debug, Clone, PartialEq)]
pub struct OrthoImage {
    /// Red, green, blue in 0..1 per pixel.
    pub rgb: Grid<[f32; 3]>,
    /// `true` where the pixel holds data.
    pub valid: Grid<bool>,
    /// Pixel-to-CRS transform (the window's CRS).
    pub georef: GeoTransform,
}

/// What the inputs give: a DTM over the window and the samples of the truths.
#[derive(Debug, Clone, PartialEq)]
pub enum Ground {
    /// A DTM, an orthophoto and optionally a DSM, all in one CRS.
    Rasters {
        /// The DTM cropped to the window.
        dtm: Grid<f64>,
        /// The DTM's transform, shifted to the crop.
        gt: GeoTransform,
        /// The orthophoto.
        ortho: Box<OrthoImage>,
        /// The surface model and its transform.
        dsm: Option<(Grid<f64>, GeoTransform)>,
    },
    /// A classified point cloud in metres.
    Points {
        /// The DTM on a `k × k` raster over the window.
        dtm: Grid<f64>,
        /// Non-noise points in metres, inside the window.
        pts: Vec<[f64; 3]>,
        /// Their classes (ASPRS codes).
        class: Vec<u8>,
        /// Their colours in 0..1, when the cloud has them.
        rgb: Option<Vec<[f64; 3]>>,
    },
}

/// The window and what the inputs give.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Where everything is measured.
    pub window: Window,
    /// The DTM and the truths' samples.
    pub ground: Ground,
}

impl Site {
    /// Heights on the `m × m` grid of cell centres over the window (bilinear on the DTM).
    pub fn heights(&self, m: usize) -> Vec<f64> {
        let w = &self.window;
        let mut z = Vec::with_capacity(m * m);
        for r in 0..m {
            for c in 0..m {
                let (x, y) = w.centre(r, c, m);
                z.push(self.dtm_at(x, y));
            }
        }
        z
    }

    /// The DTM at CRS coordinates `(x, y)` (bilinear).
    pub fn dtm_at(&self, x: f64, y: f64) -> f64 {
        match &self.ground {
            Ground::Rasters { dtm, gt, .. } => {
                let (c, r) = gt.to_pixel(x, y);
                sample_bilinear(dtm, c, r)
            }
            Ground::Points { dtm, .. } => {
                let w = &self.window;
                let k = dtm.width() as f64;
                let c = (x - w.x_min) / (w.x_max - w.x_min) * k - 0.5;
                let r = (w.y_max - y) / (w.y_max - w.y_min) * k - 0.5;
                sample_bilinear(dtm, c, r)
            }
        }
    }

    /// The DTM over the window.
    pub fn dtm(&self) -> &Grid<f64> {
        match &self.ground {
            Ground::Rasters { dtm, .. } | Ground::Points { dtm, .. } => dtm,
        }
    }

    /// The truths of an `n × n` grid; `z` are the heights on its `(4n)²` grid
    /// ([`Site::heights`]). `veg`/`bare` are the reference colours, `veg_height` the height
    /// (metres) above the DTM from which a surface counts as vegetation.
    pub fn truths(&self, n: usize, z: &[f64], veg: [f64; 3], bare: [f64; 3], veg_height: f64) -> Vec<Truth> {
        match &self.ground {
            Ground::Rasters { ortho, dsm, .. } => {
                let mut out = vec![self.colour_truth(ortho, n, veg, bare)];
                if let Some((g, sgt)) = dsm {
                    out.push(self.dsm_truth(g, sgt, n, veg_height));
                }
                out
            }
            Ground::Points { pts, class, rgb, .. } => {
                let w = &self.window;
                let mut out = Vec::new();
                let mut cls = Votes::new(n);
                for (p, &k) in pts.iter().zip(class) {
                    if let Some(i) = w.cell(p[0], p[1], n) {
                        cls.add(i, matches!(k, 3..=5));
                    }
                }
                out.push(cls.truth("class"));
                out.push(self.top_truth(pts, class, n, z, veg_height));
                if let Some(rgb) = rgb {
                    let mut cv = Votes::new(n);
                    for (p, c) in pts.iter().zip(rgb) {
                        if let Some(i) = w.cell(p[0], p[1], n) {
                            cv.add(i, nearer(*c, veg, bare));
                        }
                    }
                    out.push(cv.truth("colour"));
                }
                out
            }
        }
    }

    /// Colour truth of the orthophoto: the valid pixels whose centres fall in each cell; a cell
    /// smaller than a pixel takes the pixel under its centre.
    fn colour_truth(&self, ortho: &OrthoImage, n: usize, veg: [f64; 3], bare: [f64; 3]) -> Truth {
        let w = &self.window;
        let og = ortho.georef;
        let mut votes = Votes::new(n);
        let (c0, r0) = og.to_pixel(w.x_min, w.y_max);
        let (c1, r1) = og.to_pixel(w.x_max, w.y_min);
        let cols = c0.floor().max(0.0) as usize..=(c1.ceil().max(0.0) as usize).min(ortho.rgb.width() - 1);
        let rows = r0.floor().max(0.0) as usize..=(r1.ceil().max(0.0) as usize).min(ortho.rgb.height() - 1);
        for r in rows {
            for c in cols.clone() {
                if !*ortho.valid.get(c, r) {
                    continue;
                }
                let (x, y) = og.pixel_centre(c as f64, r as f64);
                if let Some(i) = w.cell(x, y, n) {
                    votes.add(i, nearer(ortho.rgb.get(c, r).map(f64::from), veg, bare));
                }
            }
        }
        for i in 0..n * n {
            if votes.is_empty(i) {
                let (x, y) = w.centre(i / n, i % n, n);
                let (c, r) = og.to_pixel(x, y);
                let (c, r) = (c.round(), r.round());
                if c >= 0.0 && r >= 0.0 && (c as usize) < ortho.rgb.width() && (r as usize) < ortho.rgb.height() {
                    let (c, r) = (c as usize, r as usize);
                    if *ortho.valid.get(c, r) {
                        votes.add(i, nearer(ortho.rgb.get(c, r).map(f64::from), veg, bare));
                    }
                }
            }
        }
        votes.truth("colour")
    }

    /// Height truth of a DSM: its pixels standing more than `veg_height` above the DTM.
    fn dsm_truth(&self, g: &Grid<f64>, sgt: &GeoTransform, n: usize, veg_height: f64) -> Truth {
        let w = &self.window;
        let mut votes = Votes::new(n);
        let (c0, r0) = sgt.to_pixel(w.x_min, w.y_max);
        let (c1, r1) = sgt.to_pixel(w.x_max, w.y_min);
        let cols = c0.floor().max(0.0) as usize..=(c1.ceil().max(0.0) as usize).min(g.width() - 1);
        let rows = r0.floor().max(0.0) as usize..=(r1.ceil().max(0.0) as usize).min(g.height() - 1);
        for r in rows {
            for c in cols.clone() {
                let s = *g.get(c, r);
                if !s.is_finite() {
                    continue;
                }
                let (x, y) = sgt.pixel_centre(c as f64, r as f64);
                if let Some(i) = w.cell(x, y, n) {
                    votes.add(i, s - self.dtm_at(x, y) > veg_height);
                }
            }
        }
        votes.truth("height")
    }

    /// Height truth of points: the highest point per sub-cell of the `(4n)²` grid (buildings,
    /// class 6, left out) against the DTM there.
    fn top_truth(&self, pts: &[[f64; 3]], class: &[u8], n: usize, z: &[f64], veg_height: f64) -> Truth {
        let w = &self.window;
        let m = n * OVER;
        let mut top = vec![f64::NEG_INFINITY; m * m];
        for (p, _) in pts.iter().zip(class).filter(|(_, &k)| k != 6) {
            if let Some(j) = w.cell(p[0], p[1], m) {
                top[j] = top[j].max(p[2]);
            }
        }
        let mut hv = Votes::new(n);
        for (j, &t) in top.iter().enumerate() {
            if t.is_finite() {
                let (r, c) = (j / m, j % m);
                hv.add((r / OVER) * n + c / OVER, t - z[j] > veg_height);
            }
        }
        hv.truth("height")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn votes_make_fractions_and_count_empty_cells() {
        let mut v = Votes::new(2);
        v.add(0, true);
        v.add(0, false);
        v.add(3, true);
        assert!(v.is_empty(1) && !v.is_empty(0));
        let t = v.truth("class");
        assert_eq!(t.frac, [0.5, 0.0, 0.0, 1.0]);
        assert_eq!(t.empty, 2);
        assert!(nearer([0.2, 0.2, 0.15], super::super::SCRUB_RGB, super::super::SAND_RGB));
    }
}
