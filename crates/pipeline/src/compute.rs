//! Where a workflow's erosion stages and depression fill run, and what it reports of that.

use bozkir_core::{Grid, Progress};
use bozkir_terrain::erosion::droplets::{DropletOutput, DropletParams};
use bozkir_terrain::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
use bozkir_terrain::erosion::thermal::ThermalParams;
use bozkir_terrain::kernels::{D8Drainage, KernelError, KernelKind, Kernels, LandformMaps};
use bozkir_terrain::landform::{OpennessParams, TpiParams};
use std::sync::Mutex;

/// Where the erosion stages ran, as a terrain folder's sidecar records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backend {
    /// The sidecar's `backend`: `cpu`, or the accelerator that ran the stages.
    pub backend: String,
    /// The sidecar's `settings.backends`, "stage: backend" per stage run, in order; `None`
    /// leaves the setting out.
    pub stages: Option<Vec<String>>,
}

/// The kernels a workflow offers its erosion stages and fill to (the CPU reference runs what
/// they decline), and the report of where each ran, asked once the work is done.
#[derive(Clone, Copy)]
pub struct Compute<'a> {
    /// The kernels (the CLI's `--gpu` hands the GPU's).
    pub kernels: &'a dyn Kernels,
    /// Where the stages ran, asked after the work for the sidecar.
    pub report: &'a dyn Fn() -> Backend,
}

fn cpu_backend() -> Backend {
    Backend { backend: "cpu".into(), stages: None }
}

impl Compute<'static> {
    /// Everything on the CPU reference; the sidecar says `cpu` and lists no stages.
    pub fn cpu() -> Self {
        Compute { kernels: &bozkir_recipe::Cpu, report: &cpu_backend }
    }
}

impl std::fmt::Debug for Compute<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compute").finish_non_exhaustive()
    }
}

/// Kernels that decline every kernel (the CPU reference runs it) and record each as run on the
/// CPU, as the GPU's kernels record them when told to stay off the GPU: what a build without a
/// GPU hands a workflow.
///
/// # Examples
///
/// ```
/// use bozkir_pipeline::compute::CpuOnly;
/// use bozkir_terrain::kernels::Kernels;
/// let k = CpuOnly::default();
/// assert!(k.fill(&bozkir_core::Grid::new(2, 2, 0.0)).unwrap().is_none());
/// assert_eq!((k.backend(), k.stages()), ("cpu".to_string(), vec!["fill: cpu".to_string()]));
/// ```
#[derive(Debug, Default)]
pub struct CpuOnly {
    ran: Mutex<Vec<String>>,
}

impl CpuOnly {
    /// The sidecar's `backend`: always `cpu`.
    pub fn backend(&self) -> String {
        "cpu".into()
    }

    /// Which backend each kernel ran on, in order (`"fill: cpu"`, …).
    pub fn stages(&self) -> Vec<String> {
        self.ran.lock().unwrap().clone()
    }

    fn cpu<T>(&self, kind: KernelKind) -> Result<Option<T>, KernelError> {
        self.ran.lock().unwrap().push(format!("{kind}: cpu"));
        Ok(None)
    }
}

impl Kernels for CpuOnly {
    fn stream_power(
        &self,
        _: &Grid<f64>,
        _: &StreamPowerParams,
        _: &dyn Progress,
    ) -> Result<Option<StreamPowerOutput>, KernelError> {
        self.cpu(KernelKind::StreamPower)
    }
    fn droplets(
        &self,
        _: &Grid<f64>,
        _: &DropletParams,
        _: &dyn Progress,
    ) -> Result<Option<DropletOutput>, KernelError> {
        self.cpu(KernelKind::Droplets)
    }
    fn shallow_water(
        &self,
        _: &Grid<f64>,
        _: &ShallowWaterParams,
        _: &dyn Progress,
    ) -> Result<Option<ShallowWaterOutput>, KernelError> {
        self.cpu(KernelKind::ShallowWater)
    }
    fn fill(&self, _: &Grid<f64>) -> Result<Option<Grid<f64>>, KernelError> {
        self.cpu(KernelKind::Fill)
    }
    fn thermal(&self, _: &Grid<f64>, _: &ThermalParams, _: &dyn Progress) -> Result<Option<Grid<f64>>, KernelError> {
        self.cpu(KernelKind::Thermal)
    }
    fn sky_view(&self, _: &Grid<f64>, _: &OpennessParams) -> Result<Option<Grid<f64>>, KernelError> {
        self.cpu(KernelKind::SkyView)
    }
    fn landform_maps(&self, _: &Grid<f64>, _: bool, _: &[TpiParams]) -> Result<Option<LandformMaps>, KernelError> {
        self.cpu(KernelKind::Landform)
    }
    fn d8_drainage(&self, _: &Grid<f64>, _: Option<&[bool]>) -> Result<Option<D8Drainage>, KernelError> {
        self.cpu(KernelKind::Drainage)
    }
}
