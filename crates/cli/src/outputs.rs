//! Writing a command's outputs: staged in a hidden folder inside the output directory and moved
//! into place only when every file is complete, so a failure leaves nothing behind.

use anyhow::{Context, Result};
use bozkir_core::Grid;
use bozkir_io::{Sidecar, SidecarFile};
use bozkir_pipeline::analysis::Stats;
use bozkir_pipeline::folder::Folder;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Output files staged in `DIR/.bozkir-staging-<pid>/` until [`Staging::commit`].
pub struct Staging {
    dir: PathBuf,
    tmp: PathBuf,
    created_dir: bool,
    pub files: Vec<SidecarFile>,
    committed: bool,
}

impl Staging {
    pub fn new(dir: &Path) -> Result<Self> {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!("{}: exists and is not a directory", dir.display());
        }
        let created_dir = !dir.exists();
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the output directory", dir.display()))?;
        let tmp = dir.join(format!(".bozkir-staging-{}", std::process::id()));
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("{}: cannot create a staging directory", tmp.display()))?;
        Ok(Self { dir: dir.to_path_buf(), tmp, created_dir, files: Vec::new(), committed: false })
    }

    /// Staged path of a file that is not listed in the sidecar (the sidecar itself).
    pub fn unlisted(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// The staging folder itself, where a pipeline writes (files and subfolders).
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Move every staged file into the output directory (a staged subfolder's files into the
    /// subfolder of the same name, created when missing). Returns the files' final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let mut moved = Vec::new();
        move_into(&self.tmp, &self.dir, &mut moved)?;
        std::fs::remove_dir(&self.tmp).ok();
        self.committed = true;
        Ok(moved)
    }
}

/// Move the entries of `from` into `to` in name order, recursing into folders.
fn move_into(from: &Path, to: &Path, moved: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            std::fs::create_dir_all(&target).with_context(|| format!("{}: cannot create", target.display()))?;
            move_into(&e.path(), &target, moved)?;
            std::fs::remove_dir(e.path()).ok();
            continue;
        }
        std::fs::rename(e.path(), &target).with_context(|| format!("{}: cannot move into place", target.display()))?;
        moved.push(target);
    }
    Ok(())
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            std::fs::remove_dir_all(&self.tmp).ok();
            if self.created_dir {
                std::fs::remove_dir(&self.dir).ok();
            }
        }
    }
}

/// An RGB image as a grid of pixels (what `bozkir_io::write_rgb8` takes).
pub use bozkir_pipeline::folder::rgb_grid;

/// Heights in every format into the staging folder (see `bozkir_pipeline::folder::write_height`).
/// Returns (lo, hi).
pub fn write_height(st: &mut Staging, stem: &str, role: &str, h: &Grid<f64>) -> Result<(f64, f64)> {
    let mut f = Folder::new(&st.tmp);
    let range = bozkir_pipeline::folder::write_height(&mut f, stem, role, h)?;
    st.files.extend(f.take_files());
    Ok(range)
}

/// Write the sidecar (`terrain.json`) listing every staged file, then commit.
pub fn finish(mut st: Staging, mut sidecar: Sidecar) -> Result<()> {
    sidecar.files = std::mem::take(&mut st.files);
    bozkir_io::write_sidecar(st.unlisted("terrain.json"), &sidecar)?;
    commit(st)
}

/// Commit the staging folder and say how many files went where.
pub fn commit(st: Staging) -> Result<()> {
    let dir = st.dir.clone();
    let moved = st.commit()?;
    println!("wrote {} files to {}", moved.len(), dir.display());
    Ok(())
}

/// The summary lines after a terrain workflow: channel share, slope, largest outlet, and the
/// timing of each step.
pub fn print_stats(s: &Stats, timings: &[(String, Duration)]) {
    println!("channel-network share  {:.1} %  (cells with ln(1 + drained cells) > 2.5)", 100.0 * s.channel_share);
    println!("slope                  median {:.1}°, max {:.1}°", s.slope_median_deg, s.slope_max_deg);
    println!("largest outlet drains  {:.1} % of the grid", 100.0 * s.outlet_share);
    let parts: Vec<String> = timings.iter().map(|(n, d)| format!("{n} {:.2} s", d.as_secs_f64())).collect();
    println!("timings                {}", parts.join(", "));
}

/// Writes `v` as pretty JSON and a newline to `path`; the error names the file.
pub fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<()> {
    std::fs::write(path, serde_json::to_string_pretty(v)? + "\n")
        .with_context(|| format!("{}: cannot write", path.display()))
}
