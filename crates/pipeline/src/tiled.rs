//! Worlds in tiles into a Zarr store: the coarse pass once, then every tile
//! ([`bozkir_recipe::tiled::TiledPlan`]), each written as one chunk of
//! [`bozkir_io::zarr_store::ZarrWriter`].
//!
//! [`generate`] runs every tile on this machine's threads (the CLI's `bozkir tiled`); the Python
//! face's `bozkir.tiled.generate` hands the same [`write_tile`] calls to Dask workers instead.
//! A tile's chunk depends only on the plan, the coarse grid and the tile's index, so the store's
//! bytes do not depend on the order tiles run in, on how many run at once, or on a tile running
//! twice (a retried task rewrites the same bytes).

use crate::error::PipelineError;
use bozkir_core::{Grid, Observer};
use bozkir_io::zarr_store::ZarrWriter;
use bozkir_recipe::tiled::TiledPlan;
use bozkir_terrain::kernels::{Cpu, Kernels};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What [`generate`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct TiledReport {
    /// Tiles in the world.
    pub tiles: usize,
    /// Tiles computed by this call.
    pub written: usize,
    /// Tiles already in the store and skipped (`resume`).
    pub skipped: usize,
}

/// The store's group attributes: everything needed to name the world again.
pub fn store_attributes(plan: &TiledPlan) -> Map<String, Value> {
    let v = json!({
        "bozkir": {
            "version": env!("CARGO_PKG_VERSION"),
            "recipe": plan.recipe.name,
            "seed": plan.seed,
            "size": plan.size,
            "coarse": plan.coarse,
            "coarse_cell_m": plan.coarse_cell,
            "factor": plan.factor,
            "cell_m": plan.cell,
            "tile": plan.tile,
            "halo": plan.halo,
            "reach": plan.reach,
            "exact": plan.exact(),
        }
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("an object literal"),
    }
}

/// Create (or reopen, for a resumed or retried run) the store of `plan` at `out`.
pub fn open_store(plan: &TiledPlan, out: &Path) -> Result<ZarrWriter, PipelineError> {
    Ok(ZarrWriter::create(out, plan.size, plan.size, plan.tile, (plan.cell, plan.cell), store_attributes(plan))?)
}

/// Compute tile `(tx, ty)` from the coarse pass and write its chunk.
pub fn write_tile(
    plan: &TiledPlan,
    coarse: &Grid<f64>,
    store: &ZarrWriter,
    (tx, ty): (usize, usize),
    kernels: &dyn Kernels,
    obs: &dyn Observer,
) -> Result<(), PipelineError> {
    let t = plan.tile(coarse, tx, ty, obs, kernels)?;
    store.write_chunk(tx, ty, t.data())?;
    Ok(())
}

/// Every tile of `plan` into the store at `out`, as many at once as rayon has threads; the coarse
/// pass runs on `kernels` (a GPU's, when given), the tiles on the CPU. With
/// `resume`, chunks already in the store are kept (a store is only ever reopened when its
/// metadata is this plan's). Stops between tiles when `obs` is cancelled.
pub fn generate(
    plan: &TiledPlan,
    out: &Path,
    resume: bool,
    kernels: &dyn Kernels,
    obs: &dyn Observer,
) -> Result<TiledReport, PipelineError> {
    let store = open_store(plan, out)?;
    if resume {
        // A run killed mid-chunk leaves its temporary file beside the chunks; this run is the
        // store's only writer now.
        store.remove_temporaries()?;
    }
    obs.step("coarse pass");
    let coarse = plan.coarse_pass(obs, kernels)?;
    let (nx, ny) = plan.tiles();
    let all: Vec<(usize, usize)> = (0..ny).flat_map(|ty| (0..nx).map(move |tx| (tx, ty))).collect();
    let todo: Vec<(usize, usize)> = all.iter().copied().filter(|&(x, y)| !(resume && store.has_chunk(x, y))).collect();
    let skipped = all.len() - todo.len();
    obs.step("tiles");
    let done = AtomicU64::new(0);
    let total = todo.len() as u64;
    obs.report("tiles", 0, total);
    todo.par_iter().try_for_each(|&t| {
        if obs.cancelled() {
            return Err(PipelineError::Invalid("cancelled".into()));
        }
        // The stages' own progress would fight over one bar from several tiles: report tiles.
        write_tile(plan, &coarse, &store, t, &Cpu, &Cancel(obs))?;
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        obs.report("tiles", d, total);
        Ok(())
    })?;
    Ok(TiledReport { tiles: all.len(), written: todo.len(), skipped })
}

/// Cancellation from the caller's observer, no progress (see [`generate`]).
struct Cancel<'a>(&'a dyn Observer);

impl bozkir_core::Progress for Cancel<'_> {
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

impl Observer for Cancel<'_> {}
