//! Where a workflow's erosion stages and depression fill run, and what it reports of that.

use bozkir_terrain::kernels::Kernels;

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
