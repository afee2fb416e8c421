//! `--gpu`, one way down: the shared argument of every command that can run kernels on the GPU
//! (`terrain`, `erode`, `analyze`) and the [`Kernels`](bozkir_terrain::kernels::Kernels) it
//! selects. With the `gpu` feature (the default) that is `bozkir_gpu::GpuKernels`; without it,
//! [`NoGpu`]: `--gpu` behaves as on a machine with no usable GPU.

use anyhow::Result;

/// `--gpu[=MODE]`, flattened into each command that takes it.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct GpuArgs {
    /// Run the heavy kernels (a recipe's erosion stages, `erode`'s stream power, `analyze`'s
    /// fill) on the GPU: `auto` (`--gpu` alone: the GPU when one works, else the CPU with a
    /// message saying why), `require` (fail instead of falling back) or `off`.
    #[arg(
        long = "gpu",
        value_enum,
        num_args = 0..=1,
        default_missing_value = "auto",
        default_value = "off",
        value_name = "MODE"
    )]
    pub mode: GpuMode,
}

/// The values `--gpu` takes, with the spellings it has always accepted as aliases.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuMode {
    /// The CPU only.
    #[default]
    #[value(alias = "cpu", alias = "false", alias = "no")]
    Off,
    /// The GPU when one works, else the CPU with a message.
    #[value(alias = "", alias = "true", alias = "on", alias = "yes")]
    Auto,
    /// The GPU, or an error.
    #[value(alias = "required", alias = "force")]
    Require,
}

/// The kernels `--gpu` selects.
#[cfg(feature = "gpu")]
pub type Selected = bozkir_gpu::GpuKernels;
/// The kernels `--gpu` selects.
#[cfg(not(feature = "gpu"))]
pub type Selected = NoGpu;

impl GpuArgs {
    /// The kernels for this mode; messages (the adapter used, a fallback taken) go to stderr.
    #[cfg(feature = "gpu")]
    pub fn kernels(&self) -> Result<Selected> {
        let mode = match self.mode {
            GpuMode::Off => bozkir_gpu::GpuMode::Off,
            GpuMode::Auto => bozkir_gpu::GpuMode::Auto,
            GpuMode::Require => bozkir_gpu::GpuMode::Require,
        };
        Ok(bozkir_gpu::GpuKernels::new(mode, Box::new(|note| eprintln!("{note}")))?)
    }

    /// The kernels for this mode: this build has no GPU, so the CPU (with a message under
    /// `auto`, an error under `require`).
    #[cfg(not(feature = "gpu"))]
    pub fn kernels(&self) -> Result<Selected> {
        match self.mode {
            GpuMode::Off => {}
            GpuMode::Auto => eprintln!(
                "gpu: {NO_GPU_BUILD}; running on the CPU instead (--gpu=off to silence, --gpu=require to fail)"
            ),
            GpuMode::Require => anyhow::bail!("--gpu=require: {NO_GPU_BUILD}"),
        }
        Ok(NoGpu::default())
    }
}

/// Why a build without the `gpu` feature runs everything on the CPU.
#[cfg(not(feature = "gpu"))]
const NO_GPU_BUILD: &str = "this build has no GPU support (built without the `gpu` feature)";

/// The kernels of a build without the `gpu` feature: every kernel declines (the CPU reference
/// runs it) and is recorded as run on the CPU, as `GpuKernels` records them under `--gpu=off`.
#[cfg(not(feature = "gpu"))]
#[derive(Default)]
pub struct NoGpu {
    ran: std::sync::Mutex<Vec<String>>,
}

#[cfg(not(feature = "gpu"))]
impl NoGpu {
    /// The sidecar's `backend`: always `cpu`.
    pub fn backend(&self) -> String {
        "cpu".into()
    }

    /// Which backend each kernel ran on, in order (`"fill: cpu"`, …).
    pub fn stages(&self) -> Vec<String> {
        self.ran.lock().unwrap().clone()
    }

    fn cpu<T>(
        &self,
        kind: bozkir_terrain::kernels::KernelKind,
    ) -> Result<Option<T>, bozkir_terrain::kernels::KernelError> {
        self.ran.lock().unwrap().push(format!("{kind}: cpu"));
        Ok(None)
    }
}

#[cfg(not(feature = "gpu"))]
mod no_gpu {
    use super::NoGpu;
    use bozkir_core::{Grid, Progress};
    use bozkir_terrain::erosion::droplets::{DropletOutput, DropletParams};
    use bozkir_terrain::erosion::shallow_water::{ShallowWaterOutput, ShallowWaterParams};
    use bozkir_terrain::erosion::stream_power::{StreamPowerOutput, StreamPowerParams};
    use bozkir_terrain::erosion::thermal::ThermalParams;
    use bozkir_terrain::kernels::{KernelError, KernelKind, Kernels};

    impl Kernels for NoGpu {
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
        fn thermal(
            &self,
            _: &Grid<f64>,
            _: &ThermalParams,
            _: &dyn Progress,
        ) -> Result<Option<Grid<f64>>, KernelError> {
            self.cpu(KernelKind::Thermal)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        gpu: GpuArgs,
        #[arg(long)]
        out: Option<String>,
    }

    fn mode(args: &[&str]) -> Result<GpuMode, clap::Error> {
        Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied())).map(|c| c.gpu.mode)
    }

    /// Every spelling the string parser of `--gpu` accepted is still accepted, with its meaning.
    #[test]
    fn gpu_accepts_the_spellings_it_always_did() {
        assert_eq!(mode(&[]).unwrap(), GpuMode::Off);
        assert_eq!(mode(&["--gpu"]).unwrap(), GpuMode::Auto);
        assert_eq!(mode(&["--gpu", "--out", "x"]).unwrap(), GpuMode::Auto);
        for (v, m) in [
            ("off", GpuMode::Off),
            ("cpu", GpuMode::Off),
            ("false", GpuMode::Off),
            ("no", GpuMode::Off),
            ("auto", GpuMode::Auto),
            ("", GpuMode::Auto),
            ("true", GpuMode::Auto),
            ("on", GpuMode::Auto),
            ("yes", GpuMode::Auto),
            ("require", GpuMode::Require),
            ("required", GpuMode::Require),
            ("force", GpuMode::Require),
        ] {
            assert_eq!(mode(&[&format!("--gpu={v}")]).unwrap(), m, "--gpu={v}");
        }
        assert_eq!(mode(&["--gpu", "require"]).unwrap(), GpuMode::Require);
        for bad in ["--gpu=Auto", "--gpu=maybe", "--gpu=gpu"] {
            assert!(mode(&[bad]).is_err(), "{bad}");
        }
    }
}
