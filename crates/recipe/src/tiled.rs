//! Worlds larger than memory, generated in tiles.
//!
//! A tiled recipe has exactly one `upsample` stage. The stages before it (sculpting, stream
//! power, droplets: anything that reads the whole field) run **once**, over the whole world, at
//! the recipe's coarse size `C` — the *coarse pass*. The world is that result upsampled by
//! `k = (N − 1)/(C − 1)` to `N × N` cells (node-aligned, as the `upsample` stage does: coarse
//! node `i` is fine node `i·k`), followed by the stages after the upsample, run **per tile** on
//! the tile's window widened by a halo. Each fine cell of the upsample depends only on its index
//! and the coarse grid, and every stage that samples noise samples it at the world position
//! ([`State::origin`], [`State::world`]), so a tile's window holds the whole world's bits there.
//!
//! Stages allowed after the upsample, with the reach (cells) their result at a cell has on the
//! input around it:
//!
//! | stage | reach |
//! |---|---|
//! | `noise` | 0 |
//! | `crags`, `plates` | 1 (the Horn slope gate) |
//! | `blur` | `ceil(3σ / min(dx, dy))` |
//! | `thermal` | 2 per iteration (weights from the neighbours, then a gather of theirs) |
//! | `stream_power` | unbounded: drainage crosses tiles |
//!
//! With a halo at least the summed reach of the bounded stages, a tile's cells are **bit for bit**
//! the untiled run's ([`TiledPlan::untiled`]); the default halo is exactly that sum. A
//! `stream_power` stage after the upsample reads drainage from upstream cells at any distance, so
//! there the tiles are an approximation: its area inside the halo is what the tile sees (the
//! default adds [`DRAINAGE_HALO`] cells for it), and the seam error is measured, not zero. Any
//! other stage after the upsample (terraces and redistribution use the field's range, the fill
//! and droplets the whole field) is refused with its name.

use crate::error::RecipeError;
use crate::parse::Recipe;
use crate::run::{run_stage, run_with};
use crate::stages::Op;
use crate::state::State;
use bozkir_core::{Grid, Progress};
use bozkir_terrain::kernels::Kernels;
use bozkir_terrain::sculpt::detail::upsample_window;

/// Cells of halo added for a `stream_power` stage after the upsample (drainage reaches past any
/// halo; this much keeps the measured seam error small, see `docs/scale.md`).
pub const DRAINAGE_HALO: usize = 64;

/// Largest world side a plan accepts (cells): 2²⁰, a trillion cells.
pub const MAX_WORLD: usize = 1 << 20;

/// One tile: its interior (what it writes) and its window (interior plus halo, clipped to the world).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileWindow {
    /// Tile column and row.
    pub tx: usize,
    /// Tile row.
    pub ty: usize,
    /// First world cell of the interior, and its size.
    pub x0: usize,
    /// First row of the interior.
    pub y0: usize,
    /// Interior width (the last column of tiles may be narrower).
    pub w: usize,
    /// Interior height.
    pub h: usize,
    /// First world cell of the window.
    pub wx0: usize,
    /// First row of the window.
    pub wy0: usize,
    /// Window width.
    pub ww: usize,
    /// Window height.
    pub wh: usize,
}

/// A tiled run of a recipe: the split, the sizes, the halo (see the module docs).
#[derive(Debug, Clone)]
pub struct TiledPlan {
    /// The recipe, its upsample stage's factor set to `factor`.
    pub recipe: Recipe,
    /// The run's seed.
    pub seed: u64,
    /// Coarse pass size (cells per side).
    pub coarse: usize,
    /// Coarse cell size, metres.
    pub coarse_cell: f64,
    /// Upsampling factor `k`.
    pub factor: usize,
    /// World size `N = (C − 1)·k + 1` (cells per side).
    pub size: usize,
    /// Fine cell size, metres (`coarse_cell / k`, as the upsample computes it).
    pub cell: f64,
    /// Tile side (cells).
    pub tile: usize,
    /// Halo (cells) each tile's window reaches past its interior.
    pub halo: usize,
    /// Summed reach of the bounded stages after the upsample.
    pub reach: usize,
    /// Whether a drainage stage (`stream_power`) runs after the upsample.
    pub drainage: bool,
    /// Index (0-based) of the upsample stage.
    split: usize,
}

fn invalid(recipe: &Recipe, message: String) -> RecipeError {
    RecipeError::Invalid { source_name: recipe.name.clone(), message }
}

impl TiledPlan {
    /// The plan for `recipe` as an `size × size` world of `tile × tile` tiles. `coarse` and
    /// `coarse_cell` default to the recipe's size and cell size; `halo` to the exact reach (plus
    /// [`DRAINAGE_HALO`] when a drainage stage runs after the upsample).
    pub fn new(
        recipe: &Recipe,
        size: usize,
        tile: usize,
        halo: Option<usize>,
        coarse: Option<usize>,
        coarse_cell: Option<f64>,
        seed: u64,
    ) -> Result<Self, RecipeError> {
        let ups: Vec<usize> =
            recipe.stages.iter().enumerate().filter(|(_, s)| matches!(s.op, Op::Upsample(_))).map(|(i, _)| i).collect();
        let split =
            match ups.as_slice() {
                [i] => *i,
                [] => return Err(invalid(
                    recipe,
                    "a tiled run needs one `upsample` stage: the stages before it run once over the whole world at \
                     the coarse size, those after it per tile"
                        .into(),
                )),
                _ => {
                    return Err(invalid(
                        recipe,
                        format!("a tiled run takes one `upsample` stage, this recipe has {}", ups.len()),
                    ))
                }
            };
        let coarse = coarse.unwrap_or(recipe.size);
        if !(8..=crate::parse::MAX_RESOLUTION).contains(&coarse) {
            return Err(invalid(recipe, format!("coarse size {coarse} outside 8..={}", crate::parse::MAX_RESOLUTION)));
        }
        let coarse_cell = coarse_cell.unwrap_or(recipe.cell_size * recipe.size as f64 / coarse as f64);
        if !(coarse_cell.is_finite() && coarse_cell > 0.0) {
            return Err(invalid(recipe, format!("coarse cell size {coarse_cell} is not a positive number")));
        }
        if size < coarse || size > MAX_WORLD {
            return Err(invalid(
                recipe,
                format!("world size {size} outside {coarse}..={MAX_WORLD} (the coarse size to 2^20)"),
            ));
        }
        if !(size - 1).is_multiple_of(coarse - 1) {
            let k = (size - 1) / (coarse - 1);
            return Err(invalid(
                recipe,
                format!(
                    "world size {size} is not (coarse − 1)·k + 1 for coarse size {coarse}: the nearest are {} and {}",
                    (coarse - 1) * k.max(1) + 1,
                    (coarse - 1) * (k + 1) + 1
                ),
            ));
        }
        let factor = (size - 1) / (coarse - 1);
        if !(16..=65536).contains(&tile) {
            return Err(invalid(recipe, format!("tile size {tile} outside 16..=65536")));
        }
        let cell = coarse_cell / factor as f64;
        let (mut reach, mut drainage) = (0usize, false);
        for (i, stage) in recipe.stages.iter().enumerate().skip(split + 1) {
            let at = format!("stage {} ({}, line {})", i + 1, stage.op.name(), stage.line);
            if stage.resolution.is_some() {
                return Err(invalid(
                    recipe,
                    format!("{at} sets a resolution; after the upsample a tiled run keeps the world's"),
                ));
            }
            reach += match &stage.op {
                Op::Noise(_) => 0,
                Op::Crags(_) | Op::Plates(_) => 1,
                Op::Blur(b) => (3.0 * b.sigma / cell).ceil().max(0.0) as usize,
                Op::Thermal(t) => 2 * t.params().iterations,
                Op::StreamPower(_) => {
                    drainage = true;
                    0
                }
                other => {
                    return Err(invalid(
                        recipe,
                        format!(
                            "{at} reads the whole field, which a tile does not have; after the upsample a tiled \
                             run takes noise, crags, plates, blur, thermal and stream_power (put `{}` before it)",
                            other.name()
                        ),
                    ))
                }
            };
        }
        let halo = halo.unwrap_or(reach + if drainage { DRAINAGE_HALO } else { 0 });
        let mut recipe = recipe.clone();
        if let Op::Upsample(u) = &mut recipe.stages[split].op {
            u.factor = factor;
        }
        Ok(Self { recipe, seed, coarse, coarse_cell, factor, size, cell, tile, halo, reach, drainage, split })
    }

    /// Whether tiles are bit for bit the untiled run: no drainage stage after the upsample and a
    /// halo covering the reach.
    pub fn exact(&self) -> bool {
        !self.drainage && self.halo >= self.reach
    }

    /// Tiles per side (columns, rows).
    pub fn tiles(&self) -> (usize, usize) {
        let n = self.size.div_ceil(self.tile);
        (n, n)
    }

    /// The window of tile `(tx, ty)`.
    pub fn window(&self, tx: usize, ty: usize) -> TileWindow {
        let (x0, y0) = (tx * self.tile, ty * self.tile);
        let (w, h) = (self.tile.min(self.size - x0), self.tile.min(self.size - y0));
        let (wx0, wy0) = (x0.saturating_sub(self.halo), y0.saturating_sub(self.halo));
        let (wx1, wy1) = ((x0 + w + self.halo).min(self.size), (y0 + h + self.halo).min(self.size));
        TileWindow { tx, ty, x0, y0, w, h, wx0, wy0, ww: wx1 - wx0, wh: wy1 - wy0 }
    }

    /// The coarse pass: the stages before the upsample over the whole world at the coarse size.
    pub fn coarse_pass(&self, progress: &dyn Progress, kernels: &dyn Kernels) -> Result<Grid<f64>, RecipeError> {
        let mut head = self.recipe.clone();
        head.stages.truncate(self.split);
        head.size = self.coarse;
        let state = run_with(&head, self.coarse, self.coarse_cell, self.seed, progress, kernels, |_| {})?;
        Ok(state.height)
    }

    /// The interior heights (`w × h`, fine cell size) of tile `(tx, ty)` from the coarse pass.
    pub fn tile(
        &self,
        coarse: &Grid<f64>,
        tx: usize,
        ty: usize,
        progress: &dyn Progress,
        kernels: &dyn Kernels,
    ) -> Result<Grid<f64>, RecipeError> {
        let (nx, ny) = self.tiles();
        if tx >= nx || ty >= ny {
            return Err(invalid(&self.recipe, format!("tile ({tx}, {ty}) outside the {nx} × {ny} tiles")));
        }
        if (coarse.width(), coarse.height()) != (self.coarse, self.coarse) {
            return Err(invalid(
                &self.recipe,
                format!(
                    "coarse grid is {}×{}, the plan's coarse size is {}",
                    coarse.width(),
                    coarse.height(),
                    self.coarse
                ),
            ));
        }
        let win = self.window(tx, ty);
        let up = &self.recipe.stages[self.split];
        let Op::Upsample(u) = &up.op else { unreachable!("split is the upsample stage") };
        let ctx = crate::stages::StageCtx::new(self.split + 1, self.seed, None, progress, kernels).map_err(|e| {
            RecipeError::Stage {
                source_name: self.recipe.name.clone(),
                line: up.line,
                index: self.split + 1,
                op: "upsample".into(),
                problem: e.into(),
            }
        })?;
        let mut state = State::new(0, self.cell, self.seed);
        state.height = upsample_window(coarse, &u.params(ctx.seed32()), [win.wx0, win.wy0], [win.ww, win.wh]);
        state.origin = [win.wx0, win.wy0];
        state.world = Some([self.size, self.size]);
        // The stages after the upsample, 1-based indices split + 2 ..= len.
        for index in self.split + 2..=self.recipe.stages.len() {
            run_stage(&self.recipe, index, &mut state, progress, kernels)?;
            if progress.cancelled() {
                break;
            }
        }
        let (ox, oy) = (win.x0 - win.wx0, win.y0 - win.wy0);
        let src = state.height.data();
        let mut out = Vec::with_capacity(win.w * win.h);
        for y in 0..win.h {
            let r = (oy + y) * win.ww + ox;
            out.extend_from_slice(&src[r..r + win.w]);
        }
        Ok(Grid::from_vec(win.w, win.h, out).with_cell_size(state.height.dx, state.height.dy))
    }

    /// Every tile computed from `coarse` and pasted into one grid: the world `bozkir tiled` writes,
    /// in memory, for worlds that fit (tests, seam measurements).
    pub fn assemble(
        &self,
        coarse: &Grid<f64>,
        progress: &dyn Progress,
        kernels: &dyn Kernels,
    ) -> Result<Grid<f64>, RecipeError> {
        let mut out = Grid::new(self.size, self.size, f64::NAN).with_cell_size(self.cell, self.cell);
        let (nx, ny) = self.tiles();
        for ty in 0..ny {
            for tx in 0..nx {
                let t = self.tile(coarse, tx, ty, progress, kernels)?;
                let w = self.window(tx, ty);
                for y in 0..w.h {
                    for x in 0..w.w {
                        *out.get_mut(w.x0 + x, w.y0 + y) = *t.get(x, y);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The same world in one piece: the recipe (its upsample factor set to `k`) run whole at the
    /// coarse size. Tiles of an [exact](Self::exact) plan equal this bit for bit.
    pub fn untiled(&self, progress: &dyn Progress, kernels: &dyn Kernels) -> Result<State, RecipeError> {
        let mut r = self.recipe.clone();
        r.size = self.coarse;
        run_with(&r, self.coarse, self.coarse_cell, self.seed, progress, kernels, |_| {})
    }
}

/// Mean slope magnitude (central differences, metres per metre) of `z` within 2 cells of the
/// lines between tiles of `tile` cells (the world's own edges left out), and over the other
/// interior cells: the seam statistic of `docs/scale.md`. Returns `(band, elsewhere)`.
pub fn border_band_slopes(z: &Grid<f64>, tile: usize) -> (f64, f64) {
    let (n, m) = (z.width(), z.height());
    let near = |v: usize, len: usize| (v % tile < 2 || v % tile >= tile - 2) && v >= 2 && v < len - 2;
    let mut sums = [(0.0, 0usize); 2];
    for y in 1..m - 1 {
        for x in 1..n - 1 {
            let gx = (z.get(x + 1, y) - z.get(x - 1, y)) / (2.0 * z.dx);
            let gy = (z.get(x, y + 1) - z.get(x, y - 1)) / (2.0 * z.dy);
            let slot = &mut sums[usize::from(!(near(x, n) || near(y, m)))];
            slot.0 += (gx * gx + gy * gy).sqrt();
            slot.1 += 1;
        }
    }
    (sums[0].0 / sums[0].1 as f64, sums[1].0 / sums[1].1 as f64)
}
