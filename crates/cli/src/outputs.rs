//! Writing a command's outputs: staged in a hidden folder inside the output directory and moved
//! into place only when every file is complete, so a failure leaves nothing behind.

use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_io::{Sidecar, SidecarFile};
use bozkir_pipeline::analysis::Stats;
use bozkir_pipeline::folder::{self as tf, Folder, Journal, Manifest, JOURNAL, MANIFEST, SIDECAR};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Prefix of a staging folder's name; the process id follows.
const STAGING_PREFIX: &str = ".bozkir-staging-";
/// Folder inside a staging folder where files about to be replaced wait until the publish is
/// done (so that a failed publish can put them back).
const PREVIOUS: &str = ".bozkir-previous";

/// Outputs every terrain workflow with analysis writes (`terrain`, a recipe, `analyze`,
/// `erode`): checked before the work starts ([`Staging::expecting`]).
pub const TERRAIN_OUTPUTS: &[&str] = &["terrain.json", "preview.png"];

/// `--force`: replace files in an output folder that bozkir did not write.
static FORCE: AtomicBool = AtomicBool::new(false);
/// Set once SIGINT or SIGTERM arrived: the process is cleaning up and about to exit.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// A staging folder not yet published, and the folders its command created for it (deepest
/// first): what a signal removes.
struct Live {
    tmp: PathBuf,
    created: Vec<PathBuf>,
}

/// Every live staging folder of this process. Held for the whole of a publish, so a signal waits
/// until the output folder is consistent again.
static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<Live>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets `--force` for every output folder of this run.
pub fn set_force(force: bool) {
    FORCE.store(force, Ordering::SeqCst);
}

/// Whether SIGINT or SIGTERM arrived (the signal thread is cleaning up and will exit).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Removes every live staging folder and the output folders this process created for them
/// (when still empty).
fn clean_live(live: &mut Vec<Live>) {
    for l in live.drain(..) {
        std::fs::remove_dir_all(&l.tmp).ok();
        for d in &l.created {
            std::fs::remove_dir(d).ok();
        }
    }
}

/// What an interrupted command without staged outputs says instead of "partial outputs removed"
/// (`bozkir tiled` keeps the chunks it wrote: see [`set_interrupt_note`]).
static INTERRUPT_NOTE: Mutex<Option<String>> = Mutex::new(None);

/// The line SIGINT/SIGTERM print for a command that writes in place rather than staging.
pub fn set_interrupt_note(note: String) {
    if let Ok(mut n) = INTERRUPT_NOTE.lock() {
        *n = Some(note);
    }
}

/// SIGINT and SIGTERM: wait for a publish in progress to finish, remove the live staging
/// folders (and the output folders the command created, when empty) and exit with 130 or 143
/// (128 + the signal's number).
#[cfg(unix)]
pub fn handle_signals() -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM]).context("cannot install signal handlers")?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            INTERRUPTED.store(true, Ordering::SeqCst);
            let mut l = live();
            let staged = !l.is_empty();
            clean_live(&mut l);
            let name = if sig == SIGINT { "interrupted" } else { "terminated" };
            match INTERRUPT_NOTE.lock().map(|n| n.clone()) {
                Ok(Some(note)) if !staged => eprintln!("{name}: {note}"),
                _ => eprintln!("{name}: partial outputs removed"),
            }
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}

/// Signals are left to the platform's defaults where they are not Unix signals.
#[cfg(not(unix))]
pub fn handle_signals() -> Result<()> {
    Ok(())
}

/// Whether process `pid` is alive. Known on Linux (`/proc/<pid>`); elsewhere every process counts
/// as alive, so no staging folder is taken for dead.
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Output files staged in `DIR/.bozkir-staging-<pid>/` until [`Staging::commit`] publishes them.
pub struct Staging {
    dir: PathBuf,
    tmp: PathBuf,
    created: Vec<PathBuf>,
    keep_previous: bool,
    pub files: Vec<SidecarFile>,
    committed: bool,
}

impl Staging {
    /// Staging for a run whose outputs replace the previous run's in `dir`: files the previous
    /// run wrote and this one does not are removed when this run publishes.
    pub fn new(dir: &Path) -> Result<Self> {
        Self::open(dir, false)
    }

    /// Staging for a run that adds files to those already in `dir` (a bake into its terrain
    /// folder): nothing of the previous runs is removed.
    pub fn adding(dir: &Path) -> Result<Self> {
        Self::open(dir, true)
    }

    fn open(dir: &Path, keep_previous: bool) -> Result<Self> {
        if dir.exists() && !dir.is_dir() {
            bail!("{}: exists and is not a directory", dir.display());
        }
        // Held from before the folder is created: a signal then sees it registered.
        let mut l = live();
        let mut created = Vec::new();
        let mut p = Some(dir);
        while let Some(d) = p.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            created.push(d.to_path_buf());
            p = d.parent();
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the output directory", dir.display()))?;
        let undo = |created: &[PathBuf]| {
            for d in created {
                std::fs::remove_dir(d).ok();
            }
        };
        let ours: Vec<PathBuf> = l.iter().map(|x| x.tmp.clone()).collect();
        if let Err(e) = recover(dir).and_then(|()| remove_stale_staging(dir, &ours)) {
            undo(&created);
            return Err(e);
        }
        let tmp = dir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        if let Err(e) = std::fs::create_dir(&tmp) {
            undo(&created);
            return Err(e).with_context(|| format!("{}: cannot create a staging directory", tmp.display()));
        }
        l.push(Live { tmp: tmp.clone(), created: created.clone() });
        // The staged files are synced together when published (`publish`), not one by one.
        bozkir_io::defer_sync_under(&tmp);
        Ok(Self { dir: dir.to_path_buf(), tmp, created, keep_previous, files: Vec::new(), committed: false })
    }

    /// Checks, before any work, the outputs the run is sure to write (`names`, relative to the
    /// output folder) as the publish will check every output ([`check_targets`]): a directory in
    /// the way, or a file that bozkir did not write (without `--force`), stops the run now instead
    /// of after the work.
    pub fn expecting(self, names: &[&str]) -> Result<Self> {
        let previous = match tf::written_files(&self.dir) {
            Ok(p) => p,
            Err(_) if FORCE.load(Ordering::SeqCst) => None,
            Err(e) => return Err(anyhow::Error::new(e).context("pass --force to replace the folder's outputs")),
        };
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        check_targets(&self.dir, &names, previous.as_deref())?;
        Ok(self)
    }

    /// Staged path of a file that is not listed in the sidecar (the sidecar itself).
    pub fn unlisted(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// The staging folder itself, where a pipeline writes (files and subfolders).
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Publish every staged file into the output directory (a staged subfolder's files into the
    /// subfolder of the same name, created when missing); see [`publish`]. Returns the files'
    /// final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let mut l = live();
        let files = publish(&self.dir, &self.tmp, self.keep_previous)?;
        bozkir_io::end_deferred_sync(&self.tmp);
        l.retain(|x| x.tmp != self.tmp);
        self.committed = true;
        Ok(files.iter().map(|f| self.dir.join(f)).collect())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let mut l = live();
            std::fs::remove_dir_all(&self.tmp).ok();
            bozkir_io::end_deferred_sync(&self.tmp);
            for d in &self.created {
                std::fs::remove_dir(d).ok();
            }
            l.retain(|x| x.tmp != self.tmp);
        }
    }
}

/// Removes the staging folders in `dir` of processes that are no longer alive (killed with
/// SIGKILL, or a crash), and one left under this process's own id by an earlier process (not
/// one of `live`, this process's own live staging folders).
fn remove_stale_staging(dir: &Path, live: &[PathBuf]) -> Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))? {
        let Ok(e) = e else { continue };
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(STAGING_PREFIX)).and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let stale = (pid == std::process::id() && !live.contains(&e.path())) || !alive(pid);
        if stale && e.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(e.path())
                .with_context(|| format!("{}: cannot remove a stale staging directory", e.path().display()))?;
        }
    }
    Ok(())
}

/// Finishes a publish into `dir` that a dead process left half done (its journal is there): the
/// staged files are complete (the journal is written only once they are), so the move rolls
/// forward. Refuses when the publishing process is still alive.
fn recover(dir: &Path) -> Result<()> {
    let Some(j) = tf::read_journal(dir)? else { return Ok(()) };
    if j.pid != std::process::id() && alive(j.pid) {
        bail!(
            "{}: bozkir (process {}) is publishing into {}; wait for it to finish",
            dir.join(JOURNAL).display(),
            j.pid,
            dir.display()
        );
    }
    let tmp = dir.join(&j.staging);
    for f in publish_order(&j.files) {
        let from = tmp.join(f);
        if from.is_file() {
            let to = dir.join(f);
            if !real_dirs_on_the_way(dir, f) {
                bail!("{}: a link or file is in the way of {}; cannot finish the publish", dir.display(), to.display());
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("{}: cannot create", parent.display()))?;
            }
            std::fs::rename(&from, &to).with_context(|| format!("{}: cannot move into place", to.display()))?;
        }
    }
    let previous = tf::written_files(dir).ok().flatten().unwrap_or_default();
    let files: Vec<String> = j.files.iter().filter(|f| dir.join(f).is_file()).cloned().collect();
    finish_publish(dir, &files, &previous, &j.stale, j.keep_previous)?;
    std::fs::remove_dir_all(&tmp).ok();
    Ok(())
}

/// Whether every folder between `dir` and `dir/rel` that exists is a real directory (not a link
/// that could lead outside `dir`, not a file).
fn real_dirs_on_the_way(dir: &Path, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut at = dir.to_path_buf();
    parts[..parts.len() - 1].iter().all(|p| {
        at.push(p);
        std::fs::symlink_metadata(&at).map_or(true, |m| m.is_dir())
    })
}

/// The order files are moved in: the sidecar last, so that a terrain folder's manifest (its
/// sidecar) is the last file to appear.
fn publish_order(files: &[String]) -> impl Iterator<Item = &String> {
    files.iter().filter(|f| *f != SIDECAR).chain(files.iter().filter(|f| *f == SIDECAR))
}

/// Every file under `root`, relative and `/`-separated, sorted; `skip` names a top-level entry
/// left out.
fn staged_files(root: &Path, skip: &str) -> Result<Vec<String>> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<()> {
        for e in std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            if e.file_type()?.is_dir() {
                walk(&e.path(), &r, out)?;
            } else {
                out.push(r);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, "", &mut out)?;
    out.retain(|f| f != skip && !f.starts_with(&format!("{skip}/")));
    out.sort();
    Ok(out)
}

/// Checks that every staged file can take its place in `dir` BEFORE anything is moved: no
/// directory (or, for a file in a subfolder, no file) in the way, and no file that bozkir did not
/// write (`previous` says what it wrote) unless `--force`.
fn check_targets(dir: &Path, files: &[String], previous: Option<&[String]>) -> Result<()> {
    let force = FORCE.load(Ordering::SeqCst);
    for f in files {
        let target = dir.join(f);
        let mut at = dir.to_path_buf();
        let parts: Vec<&str> = f.split('/').collect();
        for p in &parts[..parts.len() - 1] {
            at.push(p);
            if let Ok(m) = std::fs::symlink_metadata(&at) {
                if !m.is_dir() {
                    bail!(
                        "{}: not a directory, in the way of the output {}; nothing was written",
                        at.display(),
                        target.display()
                    );
                }
            }
        }
        let Ok(m) = std::fs::symlink_metadata(&target) else { continue };
        if m.is_dir() {
            bail!("{}: a directory is in the way of an output file; nothing was written", target.display());
        }
        let ours = previous.is_some_and(|p| p.iter().any(|x| x == f));
        if !ours && !force {
            bail!(
                "{}: exists and was not written by bozkir; nothing was written (move it away, or pass --force to replace it)",
                target.display()
            );
        }
    }
    Ok(())
}

/// Publishes the staged files of `tmp` into `dir`, atomically for readers:
/// 1. every target is checked before anything moves ([`check_targets`]);
/// 2. the staged files are synced and a journal (`.bozkir-journal.json`) names them, so a run
///    that dies from here on is rolled forward by the next run into `dir` (readers refuse a
///    folder with a journal);
/// 3. each file is renamed into place (the sidecar last), a replaced file first moved aside into
///    the staging folder; if a rename fails, every move is undone and the journal removed;
/// 4. files of the previous run that this run did not write are removed (never a file bozkir did
///    not write), the manifest is written, and the journal removed.
///
/// Returns the published files (relative).
fn publish(dir: &Path, tmp: &Path, keep_previous: bool) -> Result<Vec<String>> {
    let files = staged_files(tmp, PREVIOUS)?;
    let previous = match tf::written_files(dir) {
        Ok(p) => p,
        Err(e) if FORCE.load(Ordering::SeqCst) => {
            let _ = e;
            None
        }
        Err(e) => return Err(anyhow::Error::new(e).context("pass --force to replace the folder's outputs")),
    };
    check_targets(dir, &files, previous.as_deref())?;
    let new: BTreeSet<&String> = files.iter().collect();
    let stale: Vec<String> = if keep_previous {
        Vec::new()
    } else {
        previous.iter().flatten().filter(|f| !new.contains(f)).cloned().collect()
    };
    sync_all(tmp, &files)?;
    let staging = tmp.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let journal =
        Journal { pid: std::process::id(), staging, files: files.clone(), stale: stale.clone(), keep_previous };
    tf::write_journal(dir, &journal)?;
    // (target, backup of what it replaced, folders created for it)
    let mut done: Vec<(&str, Option<PathBuf>, Vec<PathBuf>)> = Vec::new();
    let mut failure = None;
    for f in publish_order(&files) {
        let f = f.as_str();
        #[cfg(test)]
        let f = if tests::FAIL_ON.with(|x| x.borrow().as_deref() == Some(f)) { tests::MISSING } else { f };
        match move_one(dir, tmp, f) {
            Ok((backup, created)) => done.push((f, backup, created)),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if let Some(e) = failure {
        for (f, backup, created) in done.into_iter().rev() {
            std::fs::rename(dir.join(f), tmp.join(f)).ok();
            if let Some(b) = backup {
                std::fs::rename(b, dir.join(f)).ok();
            }
            for d in created {
                std::fs::remove_dir(d).ok();
            }
        }
        std::fs::remove_file(dir.join(JOURNAL)).ok();
        return Err(e.context("nothing was published; the folder is as it was"));
    }
    finish_publish(dir, &files, previous.as_deref().unwrap_or_default(), &stale, keep_previous)?;
    std::fs::remove_dir_all(tmp).ok();
    Ok(files)
}

/// Syncs the staged files `files` of `tmp` (their writes were not synced one by one:
/// [`bozkir_io::defer_sync_under`]), several at once: each sync mostly waits on the disk, and
/// the file system can commit several files' metadata together. The first error in `files`'
/// order is returned.
fn sync_all(tmp: &Path, files: &[String]) -> Result<()> {
    let sync = |f: &String| {
        let p = tmp.join(f);
        std::fs::File::open(&p).and_then(|h| h.sync_all()).with_context(|| format!("{}: cannot sync", p.display()))
    };
    let threads = files.len().clamp(1, SYNC_THREADS);
    let per = files.len().div_ceil(threads).max(1);
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            files.chunks(per).map(|part| s.spawn(move || part.iter().map(sync).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a sync thread panicked")).collect()
    });
    results.into_iter().collect()
}

/// Most threads [`sync_all`] runs at once.
const SYNC_THREADS: usize = 8;

/// Renames staged file `f` into `dir`, first moving a file it replaces aside into
/// `tmp/.bozkir-previous/`. Returns that backup and the folders created for the file.
fn move_one(dir: &Path, tmp: &Path, f: &str) -> Result<(Option<PathBuf>, Vec<PathBuf>)> {
    let target = dir.join(f);
    let mut created = Vec::new();
    let mut p = target.parent();
    while let Some(d) = p.filter(|d| !d.exists()) {
        created.push(d.to_path_buf());
        p = d.parent();
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("{}: cannot create", parent.display()))?;
    }
    let mut backup = None;
    if std::fs::symlink_metadata(&target).is_ok() {
        let b = tmp.join(PREVIOUS).join(f);
        if let Some(bp) = b.parent() {
            std::fs::create_dir_all(bp).with_context(|| format!("{}: cannot create", bp.display()))?;
        }
        std::fs::rename(&target, &b).with_context(|| format!("{}: cannot move aside", target.display()))?;
        backup = Some(b);
    }
    if let Err(e) = std::fs::rename(tmp.join(f), &target) {
        if let Some(b) = &backup {
            std::fs::rename(b, &target).ok();
        }
        for d in &created {
            std::fs::remove_dir(d).ok();
        }
        return Err(e).with_context(|| format!("{}: cannot move into place", target.display()));
    }
    Ok((backup, created))
}

/// The end of a publish (also of one rolled forward): stale files removed (with the subfolders
/// they leave empty), the manifest written, the journal removed. The manifest is the folder's
/// sidecar when that lists every file (a terrain folder; no extra file then), else
/// `.bozkir-manifest.json`.
fn finish_publish(dir: &Path, files: &[String], previous: &[String], stale: &[String], keep: bool) -> Result<()> {
    for f in stale {
        let p = dir.join(f);
        if !real_dirs_on_the_way(dir, f) {
            continue;
        }
        if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(&p)
                .with_context(|| format!("{}: cannot remove an output of the previous run", p.display()))?;
        }
        let mut up = p.parent();
        while let Some(d) = up.filter(|d| d.starts_with(dir) && *d != dir) {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            up = d.parent();
        }
    }
    let mut all: BTreeSet<String> = files.iter().cloned().collect();
    if keep {
        all.extend(previous.iter().cloned());
    }
    let sidecar_lists_all = bozkir_io::read_sidecar(dir.join(SIDECAR)).ok().is_some_and(|sc| {
        let mut listed: BTreeSet<String> = sc.files.into_iter().map(|f| f.path).collect();
        listed.insert(SIDECAR.to_string());
        listed == all
    });
    if sidecar_lists_all && all.contains(SIDECAR) {
        std::fs::remove_file(dir.join(MANIFEST)).ok();
    } else {
        tf::write_manifest(dir, &Manifest { version: 1, files: all.into_iter().collect() })?;
    }
    std::fs::remove_file(dir.join(JOURNAL))
        .with_context(|| format!("{}: cannot remove", dir.join(JOURNAL).display()))?;
    Ok(())
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
    if s.void_share > 0.0 {
        println!(
            "voids                  {:.2} % of cells (no data; the figures below count valid cells)",
            100.0 * s.void_share
        );
    }
    if let Some(c) = s.channel_share {
        println!("channel-network share  {:.1} %  (cells with ln(1 + drained cells) > 2.5)", 100.0 * c);
    }
    if let (Some(med), Some(max)) = (s.slope_median_deg, s.slope_max_deg) {
        println!("slope                  median {med:.1}°, max {max:.1}°");
    }
    if let Some(o) = s.outlet_share {
        println!("largest outlet drains  {:.1} % of the grid", 100.0 * o);
    }
    let parts: Vec<String> = timings.iter().map(|(n, d)| format!("{n} {:.2} s", d.as_secs_f64())).collect();
    println!("timings                {}", parts.join(", "));
}

/// Writes `v` as pretty JSON and a newline to `path`; the error names the file.
pub fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<()> {
    std::fs::write(path, serde_json::to_string_pretty(v)? + "\n")
        .with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        /// A staged file whose move fails (a staged name that does not exist is moved instead).
        pub static FAIL_ON: RefCell<Option<String>> = const { RefCell::new(None) };
    }
    /// The name moved instead of the file named by [`FAIL_ON`]: not staged, so its rename fails.
    pub const MISSING: &str = "not-staged.txt";

    fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_rename_failing_mid_publish_puts_every_file_back() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        // A first run: a.txt, b.txt, c.txt.
        let st = Staging::new(dir).unwrap();
        for n in ["a.txt", "b.txt", "c.txt"] {
            std::fs::write(st.path().join(n), format!("old {n}")).unwrap();
        }
        st.commit().unwrap();
        let before = snapshot(dir);
        assert!(before.iter().any(|(n, _)| n == MANIFEST));
        // A second run replacing a and b and adding d; the move of c fails after a and b moved.
        let st = Staging::new(dir).unwrap();
        for n in ["a.txt", "b.txt", "c.txt", "d.txt"] {
            std::fs::write(st.path().join(n), format!("new {n}")).unwrap();
        }
        FAIL_ON.with(|x| *x.borrow_mut() = Some("c.txt".into()));
        let e = st.commit().unwrap_err();
        FAIL_ON.with(|x| *x.borrow_mut() = None);
        assert!(format!("{e:#}").contains("nothing was published"), "{e:#}");
        assert_eq!(snapshot(dir), before, "the old files are back, no new file is visible");
        let left: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".bozkir-staging") || n == JOURNAL)
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
