//! `bozkir site --out DIR [--data SRC]`: the viewer as static files — the embedded page,
//! `catalogue.json` and `data/…` laid out exactly as `bozkir serve` serves them — for any
//! static host. SRC defaults to the demo scene, built into a temporary folder.

use crate::web;
use anyhow::{bail, Context, Result};
use bozkir_viewer::State;
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

fn write(root: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("{}: cannot create", d.display()))?;
    }
    std::fs::write(&p, bytes).with_context(|| format!("{}: cannot write", p.display()))
}

/// Refuse an output that is a file, or a non-empty folder without `--force`, and a `--data`
/// folder that does not exist.
fn check(a: &Args) -> Result<()> {
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
    Ok(())
}

/// Write the page, `catalogue.json` and every data file of `state` under `root`. Returns the
/// number of files and of bytes.
fn write_site(root: &Path, state: &State) -> Result<(usize, usize)> {
    let mut bytes = 0usize;
    let mut count = 0usize;
    for (rel, b) in bozkir_viewer::ASSETS {
        write(root, rel, b)?;
        bytes += b.len();
        count += 1;
    }
    let cat = state.catalogue_bytes();
    write(root, "catalogue.json", &cat)?;
    bytes += cat.len();
    count += 1;
    for (rel, b) in state.scene.data_files()? {
        // Files on disk are copied in bounded chunks, never read whole.
        let p = root.join(&rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).with_context(|| format!("{}: cannot create", d.display()))?;
        }
        let mut f = std::fs::File::create(&p).with_context(|| format!("{}: cannot write", p.display()))?;
        b.write_range(&mut f, 0, b.len()).with_context(|| format!("{}: cannot write", p.display()))?;
        bytes += b.len() as usize;
        count += 1;
    }
    Ok((count, bytes))
}

/// Replace `out` by the folder `staged` (in the same parent `parent`): the old output is moved
/// aside first and put back when the move fails.
fn swap_into_place(staged: &Path, out: &Path, parent: &Path) -> Result<()> {
    let old = parent.join(format!(".bozkir-site-old-{}", std::process::id()));
    let had_old = out.exists();
    if had_old {
        if let Err(e) = std::fs::rename(out, &old) {
            std::fs::remove_dir_all(staged).ok();
            return Err(e).with_context(|| format!("{}: cannot move aside", out.display()));
        }
    }
    if let Err(e) = std::fs::rename(staged, out) {
        if had_old {
            std::fs::rename(&old, out).ok();
        }
        std::fs::remove_dir_all(staged).ok();
        return Err(e).with_context(|| format!("{}: cannot move into place", out.display()));
    }
    if had_old {
        std::fs::remove_dir_all(&old).with_context(|| format!("{}: cannot remove the old site", old.display()))?;
    }
    Ok(())
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    check(&a)?;
    let out = &a.out;
    let (scene, _demo) = match &a.data {
        Some(d) => (web::load_scene(d)?, None),
        None => {
            let (s, t) = web::demo_scene(a.size, quiet)?;
            (s, Some(t))
        }
    };
    if bozkir_viewer::asset("index.html").is_none() {
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
    let state = State::new(scene, None);
    let (count, bytes) = write_site(stage.path(), &state)?;
    swap_into_place(&stage.keep(), out, &parent)?;
    for l in state.scene.describe() {
        println!("{l}");
    }
    println!("wrote {count} files ({:.1} MB) to {}", bytes as f64 / 1e6, out.display());
    println!("any static host serves it, e.g. `python3 -m http.server -d {}`", out.display());
    Ok(())
}
