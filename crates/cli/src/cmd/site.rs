//! `bozkir site --out DIR [--data SRC]`: the viewer as static files — the embedded page,
//! `catalogue.json` and `data/…` laid out exactly as `bozkir serve` serves them — for any
//! static host. SRC defaults to the demo scene, built into a temporary folder.

use crate::web::{self, Scene, State};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Output folder (refused when it exists and is not empty, unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// What to show: a folder as `bozkir serve` reads it (default: the demo scene).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Side of the demo terrain in cells, when --data is not given.
    #[arg(long, default_value_t = 512)]
    pub size: usize,
    /// Replace a non-empty output folder.
    #[arg(long)]
    pub force: bool,
}

/// The demo scene, built into a temporary folder (removed when the guard drops).
pub fn demo_scene(size: usize, quiet: bool) -> Result<(Scene, tempfile::TempDir)> {
    let tmp = tempfile::Builder::new().prefix("bozkir-demo-").tempdir().context("cannot create a temporary folder")?;
    super::demo::build_scene(tmp.path(), size, quiet)?;
    let scene = web::load_scene(tmp.path())?;
    Ok((scene, tmp))
}

fn write(root: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("{}: cannot create", d.display()))?;
    }
    std::fs::write(&p, bytes).with_context(|| format!("{}: cannot write", p.display()))
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let out = &a.out;
    if out.exists() {
        if !out.is_dir() {
            bail!("{}: exists and is not a folder", out.display());
        }
        let non_empty =
            std::fs::read_dir(out).with_context(|| format!("{}: cannot list", out.display()))?.next().is_some();
        if non_empty && !a.force {
            bail!("{}: not empty; give --force to replace it", out.display());
        }
    }
    if let Some(d) = &a.data {
        if !d.exists() {
            bail!("{}: no such folder", d.display());
        }
    }
    let (scene, _demo) = match &a.data {
        Some(d) => (web::load_scene(d)?, None),
        None => {
            let (s, t) = demo_scene(a.size, quiet)?;
            (s, Some(t))
        }
    };
    if web::asset("index.html").is_none() {
        eprintln!("warning: this build embeds no index.html; the site has no page to open");
    }
    // Staged beside the output so that the final rename stays on one file system.
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("{}: cannot create", parent.display()))?;
    let stage = tempfile::Builder::new()
        .prefix(".bozkir-site-")
        .tempdir_in(&parent)
        .with_context(|| format!("{}: cannot create a staging folder", parent.display()))?;
    let mut bytes = 0usize;
    let mut count = 0usize;
    for (rel, b) in web::ASSETS {
        write(stage.path(), rel, b)?;
        bytes += b.len();
        count += 1;
    }
    let state = State::new(scene, None);
    let cat = state.catalogue_bytes();
    write(stage.path(), "catalogue.json", &cat)?;
    bytes += cat.len();
    count += 1;
    for (rel, b) in state.scene.data_files()? {
        write(stage.path(), &rel, b.as_ref())?;
        bytes += b.as_ref().len();
        count += 1;
    }
    let staged = stage.keep();
    let old = parent.join(format!(".bozkir-site-old-{}", std::process::id()));
    let had_old = out.exists();
    if had_old {
        if let Err(e) = std::fs::rename(out, &old) {
            std::fs::remove_dir_all(&staged).ok();
            return Err(e).with_context(|| format!("{}: cannot move aside", out.display()));
        }
    }
    if let Err(e) = std::fs::rename(&staged, out) {
        if had_old {
            std::fs::rename(&old, out).ok();
        }
        std::fs::remove_dir_all(&staged).ok();
        return Err(e).with_context(|| format!("{}: cannot move into place", out.display()));
    }
    if had_old {
        std::fs::remove_dir_all(&old).with_context(|| format!("{}: cannot remove the old site", old.display()))?;
    }
    for l in state.scene.describe() {
        println!("{l}");
    }
    println!("wrote {count} files ({:.1} MB) to {}", bytes as f64 / 1e6, out.display());
    println!("any static host serves it, e.g. `python3 -m http.server -d {}`", out.display());
    Ok(())
}
