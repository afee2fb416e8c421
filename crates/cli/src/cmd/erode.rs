//! `bozkir erode`: stream-power erosion (Braun & Willett 2013) on an existing DEM.

use super::{non_negative, positive};
use crate::analysis::{analyse, print_stats, stats, timed, Options};
use crate::outputs::{finish, write_analysis, write_height, write_unit_mask, Staging};
use crate::progress::Bar;
use anyhow::{bail, Result};
use bozkir_io::{Encoding, Sidecar};
use bozkir_terrain::erosion::stream_power::{stream_power, StreamPowerParams};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// DEM: GeoTIFF (.tif), NumPy archive (.npz) or height PNG (.png).
    pub dem: PathBuf,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of steps.
    #[arg(long, default_value_t = 100)]
    pub steps: usize,
    /// Incision coefficient K (1/yr for m = 0.5).
    #[arg(long, default_value_t = 1e-5)]
    pub k: f64,
    /// Drainage-area exponent m (slope exponent n = 1).
    #[arg(long, default_value_t = 0.5)]
    pub m: f64,
    /// Uplift rate of interior cells, m/yr.
    #[arg(long, default_value_t = 0.0)]
    pub uplift: f64,
    /// Hillslope diffusivity, m²/yr.
    #[arg(long, default_value_t = 0.01)]
    pub diffusion: f64,
    /// Time step, years (implicit incision: any value is stable).
    #[arg(long, default_value_t = 1000.0)]
    pub dt: f64,
    /// Cap on drainage area in m² (detail passes on part of a larger basin).
    #[arg(long)]
    pub area_cap: Option<f64>,
    /// Floor on drainage area in m²: one cell at the resolution the parameters were tuned at, so
    /// a finer DEM's hilltops steepen no further than at that resolution (applied before the cap).
    #[arg(long)]
    pub area_floor: Option<f64>,
    #[command(flatten)]
    pub scale: super::analyze::Scale,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    if a.steps == 0 || a.steps > 1_000_000 {
        bail!("--steps must be 1..=1000000, got {}", a.steps);
    }
    let params = StreamPowerParams {
        k: non_negative("k", a.k)?,
        m: {
            let m = non_negative("m", a.m)?;
            if m > 2.0 {
                bail!("--m must be in 0..=2, got {m}");
            }
            m
        },
        dt: positive("dt", a.dt)?,
        steps: a.steps,
        uplift: non_negative("uplift", a.uplift)?,
        uplift_map: None,
        kappa: non_negative("diffusion", a.diffusion)?,
        area_cap: a.area_cap.map(|c| positive("area-cap", c)).transpose()?,
        area_floor: a.area_floor.map(|c| positive("area-floor", c)).transpose()?,
    };
    let kernels = a.gpu.kernels()?;
    let bar = Bar::new(quiet);
    let mut timings = Vec::new();
    let (dem, note) = timed(&mut timings, "read", &bar, || super::load_dem(&a.dem))?;
    let dem = a.scale.apply(dem)?;
    let mut st = Staging::new(&a.out)?;
    let out = timed(&mut timings, "erode", &bar, || -> Result<_> {
        use bozkir_terrain::kernels::Kernels;
        Ok(match kernels.stream_power(&dem, &params, &bar)? {
            Some(o) => o,
            None => stream_power(&dem, &params, &bar),
        })
    })?;
    let an = analyse(&out.height, &Options::default(), &bar);
    timings.extend(an.timings.iter().copied());
    let (lo, hi) = timed(&mut timings, "write", &bar, || -> Result<(f64, f64)> {
        let r = write_height(&mut st, "height", "height", &out.height)?;
        bozkir_io::write_tiff_f32(
            st.file("eroded.tif", "eroded_m", Encoding::TiffF32),
            &out.eroded.map(|&v| v as f32),
        )?;
        bozkir_io::write_tiff_f32(
            st.file("sediment.tif", "sediment_m", Encoding::TiffF32),
            &out.sediment.map(|&v| v as f32),
        )?;
        write_unit_mask(&mut st, "wear.png", "mask/wear", &out.eroded)?;
        write_unit_mask(&mut st, "sediment_mask.png", "mask/sediment", &out.sediment)?;
        write_analysis(&mut st, &out.height, &an)?;
        Ok(r)
    })?;
    bar.finish();
    let mut sc = Sidecar::new(dem.width(), dem.height(), (dem.dx, dem.dy), (lo, hi), Encoding::Png16);
    sc.generator = "bozkir erode (stream power, Braun & Willett 2013)".into();
    sc.generator_version = env!("CARGO_PKG_VERSION").into();
    sc.backend = kernels.backend();
    sc.source = a.dem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for (k, v) in
        [("k", a.k), ("m", a.m), ("uplift_m_per_yr", a.uplift), ("diffusion_m2_per_yr", a.diffusion), ("dt_yr", a.dt)]
    {
        sc.settings.insert(k.into(), v.into());
    }
    sc.settings.insert("steps".into(), out.steps_run.into());
    if let Some(c) = a.area_cap {
        sc.settings.insert("area_cap_m2".into(), c.into());
    }
    if let Some(c) = a.area_floor {
        sc.settings.insert("area_floor_m2".into(), c.into());
    }
    let s = stats(&an);
    let (elo, ehi) = dem.min_max().unwrap_or((0.0, 0.0));
    finish(st, sc)?;
    {
        if !note.is_empty() {
            println!("{note}");
        }
        let mean_cut = out.eroded.data().iter().sum::<f64>() / out.eroded.len() as f64;
        println!(
            "{} steps of {} yr: relief {:.1} m → {:.1} m, mean incision {:.3} m",
            out.steps_run,
            a.dt,
            ehi - elo,
            hi - lo,
            mean_cut
        );
        print_stats(&s, &timings);
    }
    Ok(())
}
