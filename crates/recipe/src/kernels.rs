//! Where the erosion stages (and the depression fill) run: the CPU reference by default, or kernels a caller supplies (the
//! `bozkir` CLI's `--gpu` plugs the `bozkir-gpu` kernels in here). This crate stays free of any
//! GPU dependency: a [`Kernels`] implementation either returns the stage's output, declines
//! (`Ok(None)`: the CPU runs it) or stops the run with a message (`Err`).

use bozkir_core::{Grid, Progress};
use bozkir_terrain::erosion::droplets::{DropletOutput, DropletParams};
use bozkir_terrain::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::erosion::thermal::ThermalParams;

/// Alternative implementations of the erosion stages; every method defaults to "decline".
pub trait Kernels {
    /// Stream power on `h`.
    fn stream_power(
        &self,
        _h: &Grid<f64>,
        _p: &StreamPowerParams,
        _progress: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, String> {
        Ok(None)
    }
    /// Batched droplets on `h`.
    fn droplets(
        &self,
        _h: &Grid<f64>,
        _p: &DropletParams,
        _progress: &dyn Progress,
    ) -> Result<Option<DropletOutput>, String> {
        Ok(None)
    }
    /// Pipe-model shallow water on `h` (`p.steps` steps from a dry, sediment-free start).
    fn shallow_water(
        &self,
        _h: &Grid<f64>,
        _p: &ShallowWaterParams,
        _progress: &dyn Progress,
    ) -> Result<Option<ShallowWaterOutput>, String> {
        Ok(None)
    }
    /// The ε depression fill of `h` (the CPU's is `priority_flood::fill_epsilon`; an
    /// implementation must return the same bits: the equation has one solution).
    fn fill(&self, _h: &Grid<f64>) -> Result<Option<Grid<f64>>, String> {
        Ok(None)
    }
    /// Thermal relaxation of `h`.
    fn thermal(
        &self,
        _h: &Grid<f64>,
        _p: &ThermalParams,
        _progress: &dyn Progress,
    ) -> Result<Option<Grid<f64>>, String> {
        Ok(None)
    }
}

/// The CPU reference for every stage.
pub struct Cpu;

impl Kernels for Cpu {}
