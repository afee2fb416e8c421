//! Where the heavy kernels run: the CPU reference of this crate by default, or an alternative
//! implementation a caller supplies (the GPU kernels of `bozkir-gpu`, through the `bozkir` CLI's
//! `--gpu`).
//!
//! This is the one hook between the algorithms and their accelerated versions, and it sits below
//! both the recipe runner and the GPU crate so that neither depends on the other. A [`Kernels`]
//! implementation, for each kernel, either returns the output, declines (`Ok(None)`: the caller
//! runs the CPU reference) or stops the run with a [`KernelError`]. The kernels are named by
//! [`KernelKind`], never by a recipe stage's name.
//!
//! # Examples
//!
//! ```
//! use bozkir_core::{Grid, NoProgress};
//! use bozkir_terrain::hydrology::priority_flood::fill_epsilon;
//! use bozkir_terrain::kernels::{Cpu, KernelKind, Kernels};
//!
//! let dem = Grid::from_fn(16, 16, |x, y| ((x * 7 + y * 3) % 5) as f64);
//! // The CPU reference declines every kernel: the caller runs its own code.
//! let filled = match Cpu.fill(&dem).unwrap() {
//!     Some(f) => f,
//!     None => fill_epsilon(&dem),
//! };
//! assert_eq!(filled.width(), 16);
//! assert_eq!(KernelKind::Fill.name(), "fill");
//! # let _ = NoProgress;
//! ```

use crate::erosion::droplets::{DropletOutput, DropletParams};
use crate::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
use crate::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use crate::erosion::thermal::ThermalParams;
use crate::landform::{OpennessParams, TpiParams};
use bozkir_core::{Grid, Progress};
use std::fmt;

/// The kernels an alternative implementation may take over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// Implicit stream power ([`crate::erosion::stream_power`]), with its ε fill and routing.
    StreamPower,
    /// Batch-synchronous droplets ([`crate::erosion::droplets`]).
    Droplets,
    /// Pipe-model shallow water ([`crate::erosion::shallow_water`]).
    ShallowWater,
    /// Talus relaxation ([`crate::erosion::thermal`]).
    Thermal,
    /// The ε depression fill ([`crate::hydrology::priority_flood::fill_epsilon`]).
    Fill,
    /// The sky-view factor ([`crate::landform::sky_view`]).
    SkyView,
    /// The window maps: slope ([`crate::landform::slope`]) and TPI ([`crate::landform::tpi`]),
    /// the parts of the Weiss landform classes.
    Landform,
    /// D8 routing with accumulation and outlets ([`crate::hydrology::flow_graph`]): the
    /// analysis's drainage maps.
    Drainage,
}

impl KernelKind {
    /// Every kind, in a fixed order.
    pub const ALL: [KernelKind; 8] = [
        KernelKind::StreamPower,
        KernelKind::Droplets,
        KernelKind::ShallowWater,
        KernelKind::Thermal,
        KernelKind::Fill,
        KernelKind::SkyView,
        KernelKind::Landform,
        KernelKind::Drainage,
    ];

    /// The kernel's name in messages and sidecars (`"stream_power"`, `"droplets"`, …).
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::StreamPower => "stream_power",
            KernelKind::Droplets => "droplets",
            KernelKind::ShallowWater => "shallow_water",
            KernelKind::Thermal => "thermal",
            KernelKind::Fill => "fill",
            KernelKind::SkyView => "sky_view",
            KernelKind::Landform => "landform",
            KernelKind::Drainage => "drainage",
        }
    }
}

impl fmt::Display for KernelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a [`Kernels`] implementation stopped a run instead of declining (e.g. its caller asked
/// for the GPU and the GPU failed). Its message is the implementation's own.
#[derive(Debug)]
pub struct KernelError {
    /// The kernel that failed.
    pub kind: KernelKind,
    error: Box<dyn std::error::Error + Send + Sync>,
}

impl KernelError {
    /// `error` stopped the kernel `kind`.
    pub fn new(kind: KernelKind, error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self { kind, error: error.into() }
    }

    /// The implementation's error.
    pub fn error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.error
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Transparent: the implementation's message says which kernel and why.
        fmt::Display::fmt(&self.error, f)
    }
}

impl std::error::Error for KernelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

/// Alternative implementations of the heavy kernels; every method defaults to "decline".
pub trait Kernels {
    /// A hint that the kernels `kinds` will be asked for soon (an implementation may prepare
    /// them, e.g. compile GPU pipelines in the background). Default: nothing.
    fn warm(&self, _kinds: &[KernelKind]) {}
    /// Whether the implementation would try `kind` at all (a device is present): a caller may
    /// then arrange its work around it. `false` (the default) means every call declines.
    fn offers(&self, _kind: KernelKind) -> bool {
        false
    }
    /// Stream power on `h`.
    fn stream_power(
        &self,
        _h: &Grid<f64>,
        _p: &StreamPowerParams,
        _progress: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, KernelError> {
        Ok(None)
    }
    /// Batched droplets on `h`.
    fn droplets(
        &self,
        _h: &Grid<f64>,
        _p: &DropletParams,
        _progress: &dyn Progress,
    ) -> Result<Option<DropletOutput>, KernelError> {
        Ok(None)
    }
    /// Pipe-model shallow water on `h` (`p.steps` steps from a dry, sediment-free start).
    fn shallow_water(
        &self,
        _h: &Grid<f64>,
        _p: &ShallowWaterParams,
        _progress: &dyn Progress,
    ) -> Result<Option<ShallowWaterOutput>, KernelError> {
        Ok(None)
    }
    /// The ε depression fill of `h` (the CPU's is `priority_flood::fill_epsilon`; an
    /// implementation must return the same bits: the equation has one solution).
    fn fill(&self, _h: &Grid<f64>) -> Result<Option<Grid<f64>>, KernelError> {
        Ok(None)
    }
    /// The profiles' fixed-step fill of `h` with step `step` (the CPU's is
    /// `profiles::fill_fixed_step`; an implementation must return the same bits: the equation
    /// has one solution where `v + step > v`).
    fn fill_fixed_step(&self, _h: &Grid<f64>, _step: f64) -> Result<Option<Grid<f64>>, KernelError> {
        Ok(None)
    }
    /// The sky-view factor of `h` (the CPU's is `landform::sky_view`; an implementation must
    /// return the same bits).
    fn sky_view(&self, _h: &Grid<f64>, _p: &OpennessParams) -> Result<Option<Grid<f64>>, KernelError> {
        Ok(None)
    }
    /// The slope of `h` (when `slope`) and its TPI for each of `tpi`, in order (the CPU's are
    /// `landform::slope` and `landform::tpi`; an implementation must return the same bits, voids
    /// as voids).
    fn landform_maps(
        &self,
        _h: &Grid<f64>,
        _slope: bool,
        _tpi: &[TpiParams],
    ) -> Result<Option<LandformMaps>, KernelError> {
        Ok(None)
    }
    /// The D8 drainage of `h` with the cells of `outlets` (where given) made outlets, each its own
    /// receiver: receivers, upstream cell counts and each cell's outlet (the CPU's are
    /// `flow_graph::d8_receivers`, `accumulate_cells` and `outlet_of`; an implementation must
    /// return the same values: all three are integers and the routing is a pure function of the
    /// heights). Voids (`NaN`) and the cells beside them are given in `outlets` by the caller.
    fn d8_drainage(&self, _h: &Grid<f64>, _outlets: Option<&[bool]>) -> Result<Option<D8Drainage>, KernelError> {
        Ok(None)
    }
    /// Thermal relaxation of `h`.
    fn thermal(
        &self,
        _h: &Grid<f64>,
        _p: &ThermalParams,
        _progress: &dyn Progress,
    ) -> Result<Option<Grid<f64>>, KernelError> {
        Ok(None)
    }
}

/// What [`Kernels::d8_drainage`] returns, one value per cell (row-major).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct D8Drainage {
    /// The D8 receiver (the cell itself for outlets and pits).
    pub receivers: Vec<u32>,
    /// Cells draining through the cell, itself included.
    pub acc: Vec<u32>,
    /// The outlet (or pit) the cell finally drains to.
    pub outlet: Vec<u32>,
}

/// What [`Kernels::landform_maps`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct LandformMaps {
    /// The slope (rise over run), when asked for.
    pub slope: Option<Grid<f64>>,
    /// One TPI grid per window asked for, in the order asked.
    pub tpi: Vec<Grid<f64>>,
}

/// The CPU reference for every kernel: declines them all.
#[derive(Debug, Default, Clone, Copy)]
pub struct Cpu;

impl Kernels for Cpu {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_errors_carry_the_implementations_message() {
        let e = KernelError::new(KernelKind::Thermal, "--gpu=require: thermal on the GPU failed: lost");
        assert_eq!(e.to_string(), "--gpu=require: thermal on the GPU failed: lost");
        assert_eq!(e.kind, KernelKind::Thermal);
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = KernelKind::ALL.iter().map(|k| k.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KernelKind::ALL.len());
    }
}
