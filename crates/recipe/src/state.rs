//! What flows between stages: the height field in metres and the masks stages record.

use crate::error::RecipeError;
use bozkir_core::Grid;
use bozkir_terrain::sculpt::warp::sample_bilinear;
use std::collections::BTreeMap;

/// The working state of a recipe run.
#[derive(Debug, Clone)]
pub struct State {
    /// Heights in metres, with the cell size in metres.
    pub height: Grid<f64>,
    /// Masks recorded by stages (`"sediment"`, `"wear"`, `"deposit"`, …), same shape as `height`.
    pub masks: BTreeMap<String, Grid<f64>>,
    /// The recipe's seed.
    pub seed: u64,
    /// The heights the `water_depth` mask was recorded against (by a world stage). When later
    /// stages change the heights, a `roads` stage keeps the water surface (these heights plus
    /// the depth, where there was water) and takes the depth over the field as it stands.
    pub water_ground: Option<Grid<f64>>,
    /// The sea level (m) a stage declared (`rivers`, `biomes`, `droplets` with `sea_level`; the
    /// last one wins): ground below it is sea, drawn as water in the preview and the bake.
    pub sea_level: Option<f64>,
    /// Index of this field's first cell in the world it is a window of (a tile with its halo,
    /// see [`crate::tiled`]); `[0, 0]` for a whole field. Stages that sample noise by position
    /// sample at the world's positions.
    pub origin: [usize; 2],
    /// The world's size in cells when this field is a window of it (`None`: the field is the
    /// world). Stages whose frequencies are given across the extent use the world's extent.
    pub world: Option<[usize; 2]>,
}

impl State {
    /// A flat field of `size × size` cells of `cell_size` metres.
    pub fn new(size: usize, cell_size: f64, seed: u64) -> Self {
        Self {
            height: Grid::new(size, size, 0.0).with_cell_size(cell_size, cell_size),
            masks: BTreeMap::new(),
            seed,
            water_ground: None,
            sea_level: None,
            origin: [0, 0],
            world: None,
        }
    }

    /// The size in cells of the world this field belongs to (its own size when it is the world).
    pub fn world_size(&self) -> [usize; 2] {
        self.world.unwrap_or([self.height.width(), self.height.height()])
    }

    /// Resample heights and masks so the long side has `res` cells, keeping the extent.
    pub fn resample_to(&mut self, res: usize) {
        let (w, h) = (self.height.width(), self.height.height());
        let long = w.max(h);
        if long == res {
            return;
        }
        // Node-aligned: keep (n − 1)·cell size, the distance between the outer nodes.
        let scale = |short: usize| ((((short - 1) * (res - 1)) as f64 / (long - 1) as f64).round() as usize + 1).max(2);
        let (nw, nh) = if w >= h { (res, scale(h)) } else { (scale(w), res) };
        self.height = resample(&self.height, nw, nh);
        for m in self.masks.values_mut() {
            *m = resample(m, nw, nh);
        }
        if let Some(g) = &mut self.water_ground {
            *g = resample(g, nw, nh);
        }
    }

    /// The water depth over the heights as they stand: the `water_depth` mask, re-derived from
    /// the water surface it was recorded with when the heights changed since (see
    /// [`State::water_ground`]); `None` without a `water_depth` mask.
    pub fn water_depth_now(&self) -> Option<Grid<f64>> {
        let w = self.masks.get("water_depth")?;
        match &self.water_ground {
            Some(g0) if g0.data() != self.height.data() && g0.data().len() == w.data().len() => {
                let mut out = w.clone();
                for ((d, &g), &h) in out.data_mut().iter_mut().zip(g0.data()).zip(self.height.data()) {
                    *d = if *d > 0.0 { (g + *d - h).max(0.0) } else { 0.0 };
                }
                Some(out)
            }
            _ => Some(w.clone()),
        }
    }

    /// Add `v` into the mask `name` (created as zeros when missing).
    pub fn accumulate_mask(&mut self, name: &str, v: &Grid<f64>) {
        use rayon::prelude::*;
        let m = self.masks.entry(name.to_string()).or_insert_with(|| v.same_shape(0.0));
        m.data_mut().par_iter_mut().zip(v.data().par_iter()).for_each(|(a, b)| *a += b);
    }
}

/// Bilinear resample to `w × h` over the same extent (node-aligned corners).
pub fn resample(g: &Grid<f64>, w: usize, h: usize) -> Grid<f64> {
    let sx = if w > 1 { (g.width() - 1) as f64 / (w - 1) as f64 } else { 0.0 };
    let sy = if h > 1 { (g.height() - 1) as f64 / (h - 1) as f64 } else { 0.0 };
    let data: Vec<f64> = {
        use rayon::prelude::*;
        let mut d = vec![0.0; w * h];
        d.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            for (x, v) in row.iter_mut().enumerate() {
                *v = sample_bilinear(g, x as f64 * sx, y as f64 * sy);
            }
        });
        d
    };
    Grid::from_vec(w, h, data).with_cell_size(g.dx * sx, g.dy * sy)
}

/// Range and finiteness after a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageReport {
    pub index: usize,
    pub op: String,
    pub width: usize,
    pub height: usize,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// Refuse a state with any non-finite height (naming the stage); otherwise report its range.
pub fn check(state: &State, index: usize, op: &str, line: usize) -> Result<StageReport, RecipeError> {
    use rayon::prelude::*;
    let d = state.height.data();
    let non_finite = |g: &Grid<f64>| g.data().par_iter().filter(|v| !v.is_finite()).count();
    let bad = non_finite(&state.height) + state.masks.values().map(non_finite).sum::<usize>();
    if bad > 0 || d.is_empty() {
        return Err(RecipeError::NonFinite { index, op: op.to_string(), line, bad });
    }
    // All finite here. Min and max in any order; the sum in fixed chunks, added in order, so the
    // mean's bits do not depend on the thread count.
    let (min, max) = d
        .par_iter()
        .fold(|| (f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
        .reduce(|| (f64::INFINITY, f64::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let sums: Vec<f64> = d.par_chunks(1 << 16).map(|c| c.iter().sum::<f64>()).collect();
    let mean = sums.iter().sum::<f64>() / d.len() as f64;
    Ok(StageReport {
        index,
        op: op.to_string(),
        width: state.height.width(),
        height: state.height.height(),
        min,
        max,
        mean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resample_keeps_extent_and_corners() {
        let g = Grid::from_fn(33, 17, |x, y| x as f64 + 100.0 * y as f64).with_cell_size(2.0, 2.0);
        let mut s = State::new(0, 1.0, 0);
        s.height = g.clone();
        s.masks.insert("m".into(), g.clone());
        s.resample_to(65);
        assert_eq!((s.height.width(), s.height.height()), (65, 33));
        assert_eq!(s.height.dx * 64.0, 2.0 * 32.0);
        assert_eq!(*s.height.get(64, 32), *g.get(32, 16));
        assert_eq!(s.masks["m"].width(), 65);
        // A plane stays a plane.
        assert!((s.height.get(3, 5) - (1.5 + 100.0 * 2.5)).abs() < 1e-9);
    }

    #[test]
    fn check_refuses_nan_and_names_the_stage() {
        let mut s = State::new(8, 1.0, 0);
        assert!(check(&s, 1, "fill", 3).is_ok());
        s.height.data_mut()[5] = f64::NAN;
        let e = check(&s, 2, "blur", 7).unwrap_err().to_string();
        assert!(e.contains("stage 2 (blur, line 7)") && e.contains("1 non-finite"), "{e}");
    }
}
