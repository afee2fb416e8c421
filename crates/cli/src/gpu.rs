//! `--gpu`, one way down: the shared argument of every command that can run kernels on the GPU
//! (`terrain`, `erode`, `analyze`) and the [`Kernels`](bozkir_terrain::kernels::Kernels) it
//! selects. With the `gpu` feature (the default) that is `bozkir_gpu::GpuKernels`; without it,
//! `bozkir_pipeline::compute::CpuOnly`: `--gpu` behaves as on a machine with no usable GPU.

use anyhow::Result;

/// `--gpu[=MODE]`, flattened into each command that takes it.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct GpuArgs {
    /// Run the heavy kernels (a recipe's erosion stages, a profile's erosion walk, `erode`'s
    /// stream power, `analyze`'s fill) on the GPU: `auto` (`--gpu` alone: the GPU when one works, else the CPU with a
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
pub type Selected = bozkir_pipeline::compute::CpuOnly;

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
        Ok(Selected::default())
    }
}

/// Why a build without the `gpu` feature runs everything on the CPU.
#[cfg(not(feature = "gpu"))]
const NO_GPU_BUILD: &str = "this build has no GPU support (built without the `gpu` feature)";

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
