//! [`GpuKernels`]: this crate's kernels behind `bozkir_terrain::kernels::Kernels`, with the
//! `off`/`auto`/`require` choice of the command line's `--gpu` and its messages.

use crate::{Gpu, GpuError, GpuMode, Kernel};
use bozkir_core::{Grid, Progress};
use bozkir_terrain::erosion::droplets::{effective_batch, DropletOutput, DropletParams};
use bozkir_terrain::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::erosion::thermal::ThermalParams;
use bozkir_terrain::kernels::{D8Drainage, KernelError, KernelKind, Kernels, LandformMaps};
use bozkir_terrain::landform::{OpennessParams, TpiParams};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Why [`GpuKernels::new`] refused: `require` was asked and no GPU works.
#[derive(Debug, thiserror::Error)]
#[error("--gpu=require: {0}")]
pub struct RequireError(pub GpuError);

/// A kernel failed on the GPU under `require` (no CPU fallback wanted).
#[derive(Debug, thiserror::Error)]
#[error("--gpu=require: {kind} on the GPU failed: {error}")]
pub struct KernelFailed {
    /// The kernel.
    pub kind: KernelKind,
    /// What the GPU said.
    pub error: GpuError,
}

/// Where [`GpuKernels`] sends its messages (one line each: which adapter, a fallback taken).
pub type Notes = Box<dyn Fn(&str) + Send + Sync>;

/// The GPU kernels behind `--gpu`, for recipe runs, `bozkir erode` and `bozkir analyze`: the
/// GPU when one works, else the CPU with a note saying which ran and why; [`GpuMode::Require`]
/// turns every such fallback into an error. Records which backend each kernel ran on.
///
/// # Examples
///
/// ```
/// use bozkir_core::Grid;
/// use bozkir_gpu::{GpuKernels, GpuMode};
/// use bozkir_terrain::kernels::Kernels;
///
/// // `off` never touches a GPU: every kernel declines and is recorded as run on the CPU.
/// let k = GpuKernels::new(GpuMode::Off, Box::new(|note| eprintln!("{note}"))).unwrap();
/// assert!(k.fill(&Grid::new(8, 8, 1.0)).unwrap().is_none());
/// assert_eq!(k.backend(), "cpu");
/// assert_eq!(k.stages(), ["fill: cpu"]);
/// ```
pub struct GpuKernels {
    mode: GpuMode,
    gpu: Option<Arc<Gpu>>,
    /// "kernel: backend" per kernel run, in order.
    ran: Mutex<Vec<String>>,
    notes: Notes,
}

impl GpuKernels {
    /// The kernels for `mode`: with `auto` or `require`, the first working adapter (noted as
    /// `gpu: using NAME`); with `auto` and none, the CPU with a note saying why; with `require`
    /// and none, [`RequireError`].
    pub fn new(mode: GpuMode, notes: Notes) -> Result<Self, RequireError> {
        let gpu = match mode {
            GpuMode::Off => None,
            _ => match Gpu::new() {
                Ok(g) => {
                    notes(&format!("gpu: using {}", g.adapter_name()));
                    Some(Arc::new(g))
                }
                Err(e) if mode == GpuMode::Require => return Err(RequireError(e)),
                Err(e) => {
                    notes(&format!(
                        "gpu: {e}; running on the CPU instead (--gpu=off to silence, --gpu=require to fail)"
                    ));
                    None
                }
            },
        };
        Ok(Self { mode, gpu, ran: Mutex::new(Vec::new()), notes })
    }

    /// The sidecar's `backend`: `cpu`, `gpu (adapter)` or `mixed (adapter; CPU for the rest)`
    /// when some kernel fell back to the CPU.
    pub fn backend(&self) -> String {
        let ran = self.ran.lock().unwrap();
        let on_gpu = ran.iter().filter(|s| !s.ends_with(": cpu")).count();
        match &self.gpu {
            Some(g) if on_gpu > 0 && on_gpu == ran.len() => format!("gpu ({})", g.adapter_name()),
            Some(g) if on_gpu > 0 => format!("mixed ({}; CPU for the rest)", g.adapter_name()),
            _ => "cpu".into(),
        }
    }

    /// Which backend each kernel ran on, in order (`"fill: gpu"`, `"thermal: cpu"`, …).
    pub fn stages(&self) -> Vec<String> {
        self.ran.lock().unwrap().clone()
    }

    fn record(&self, kind: KernelKind, backend: &str) {
        self.ran.lock().unwrap().push(format!("{kind}: {backend}"));
    }

    fn go<T>(&self, kind: KernelKind, f: impl FnOnce(&Gpu) -> Result<T, GpuError>) -> Result<Option<T>, KernelError> {
        let Some(gpu) = &self.gpu else {
            self.record(kind, "cpu");
            return Ok(None);
        };
        let was_split = gpu.split_active();
        match f(gpu) {
            Ok(v) => {
                if !was_split && gpu.split_active() {
                    (self.notes)(&format!(
                        "gpu: {kind}: the grid's buffers pass the device's {}-byte binding limit and are bound in two \
                         halves (same results; docs/gpu.md)",
                        gpu.binding_limit()
                    ));
                }
                self.record(kind, "gpu");
                Ok(Some(v))
            }
            Err(error) if self.mode == GpuMode::Require => Err(KernelError::new(kind, KernelFailed { kind, error })),
            Err(e) => {
                (self.notes)(&format!("gpu: {kind} ran on the CPU: {e}"));
                self.record(kind, "cpu");
                Ok(None)
            }
        }
    }
}

impl Kernels for GpuKernels {
    /// Compiles the GPU pipelines of `kinds` on a background thread, so that the CPU work
    /// before them hides the driver's compile time (the first kernel needing a pipeline still
    /// being compiled waits for that one only).
    fn warm(&self, kinds: &[KernelKind]) {
        let Some(gpu) = &self.gpu else { return };
        let kernels: Vec<Kernel> = kinds.iter().map(|&k| Kernel::from(k)).collect();
        if !kernels.is_empty() {
            drop(gpu.warm_in_background(&kernels));
        }
    }
    fn offers(&self, _kind: KernelKind) -> bool {
        self.gpu.is_some()
    }
    fn stream_power(
        &self,
        h: &Grid<f64>,
        p: &StreamPowerParams,
        _: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, KernelError> {
        self.go(KernelKind::StreamPower, |g| crate::stream_power::stream_power(g, h, p))
    }
    fn droplets(
        &self,
        h: &Grid<f64>,
        p: &DropletParams,
        _: &dyn Progress,
    ) -> Result<Option<DropletOutput>, KernelError> {
        let t = Instant::now();
        let out = self.go(KernelKind::Droplets, |g| crate::droplets::erode_droplets(g, h, p))?;
        if let Some(o) = &out {
            // The device's rate on this run, transfers included (the target is droplet-steps/s).
            let secs = t.elapsed().as_secs_f64();
            (self.notes)(&format!(
                "gpu: droplets: {} droplets, {} steps in {secs:.2} s ({:.2e} droplet-steps/s, batches of {})",
                o.stats.droplets,
                o.stats.steps_total,
                o.stats.steps_total as f64 / secs,
                effective_batch(p.batch_size, h.len())
            ));
        }
        Ok(out)
    }
    fn shallow_water(
        &self,
        h: &Grid<f64>,
        p: &ShallowWaterParams,
        _: &dyn Progress,
    ) -> Result<Option<ShallowWaterOutput>, KernelError> {
        self.go(KernelKind::ShallowWater, |g| crate::shallow_water::shallow_water(g, h, p))
    }
    fn fill(&self, h: &Grid<f64>) -> Result<Option<Grid<f64>>, KernelError> {
        self.go(KernelKind::Fill, |g| crate::fill::fill_epsilon(g, h))
    }
    fn fill_fixed_step(&self, h: &Grid<f64>, step: f64) -> Result<Option<Grid<f64>>, KernelError> {
        self.go(KernelKind::Fill, |g| crate::fill::fill_fixed_step(g, h, step))
    }
    fn thermal(&self, h: &Grid<f64>, p: &ThermalParams, _: &dyn Progress) -> Result<Option<Grid<f64>>, KernelError> {
        self.go(KernelKind::Thermal, |g| crate::thermal::thermal(g, h, p).map(|(h, _)| h))
    }
    fn sky_view(&self, h: &Grid<f64>, p: &OpennessParams) -> Result<Option<Grid<f64>>, KernelError> {
        self.go(KernelKind::SkyView, |g| crate::sky_view::sky_view(g, h, p))
    }
    fn landform_maps(
        &self,
        h: &Grid<f64>,
        slope: bool,
        tpi: &[TpiParams],
    ) -> Result<Option<LandformMaps>, KernelError> {
        self.go(KernelKind::Landform, |g| crate::landform::landform_maps(g, h, slope, tpi))
    }
    fn d8_drainage(&self, h: &Grid<f64>, outlets: Option<&[bool]>) -> Result<Option<D8Drainage>, KernelError> {
        self.go(KernelKind::Drainage, |g| crate::flow::d8_drainage(g, h, outlets))
    }
}
