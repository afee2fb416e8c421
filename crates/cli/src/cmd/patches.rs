//! `bozkir patches CAPTURE`: find exemplar patches of ground in an aligned (z-up) splat capture
//! (`bozkir_splat::capture::patches`), optionally split into two materials, and write
//! `contact_sheet.png` and `patches.json` to `--out`.
//!
//! Settings come from three places, the later winning: the built-in defaults, a named preset
//! (`--preset NAME`), explicit flags. `--save-preset NAME` stores the settings that differ from
//! the defaults. Presets live in one JSON file (`{"name": {"key": value, …}, …}`): `--presets
//! FILE`, else `$BOZKIR_PRESETS`, else `$XDG_CONFIG_HOME/bozkir/patch_presets.json`, else
//! `~/.config/bozkir/patch_presets.json`. Results are cached in `--cache-dir` (default
//! `OUT/cache`), keyed by the capture's size and modification time, its splats and every
//! setting.

use crate::args::{presets_path, read_presets, resolve_search, SearchArgs};
use crate::outputs::write_json;
use anyhow::{bail, Context, Result};
use bozkir_core::Grid;
use bozkir_pipeline::patches::{failure_report, search_report, summary_lines};
use bozkir_splat::capture::patches::cache::{cache_key, decode_entry, encode_entry};
use bozkir_splat::capture::patches::sheet::contact_sheet;
use bozkir_splat::capture::patches::{describe_trail, find_patches, PatchSearch, SearchFailure, SearchSettings};
use bozkir_splat::Splats;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Splat capture (.ply, .splat, .glb or .spz), z-up (ground in the x–y plane).
    capture: PathBuf,
    /// Patch side in metres [default 1].
    #[arg(long)]
    size: Option<f64>,
    /// Patches wanted per class [default 4].
    #[arg(long)]
    count: Option<usize>,
    /// Materials to split into: 1 or 2 [default 1].
    #[arg(long)]
    classes: Option<usize>,
    /// Choose these candidates by number (as in patches.json and the contact sheet) instead of the automatic choice.
    #[arg(long, value_delimiter = ',')]
    patches: Option<Vec<usize>>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Save the settings that differ from the defaults under this name.
    #[arg(long)]
    save_preset: Option<String>,
    /// Output folder.
    #[arg(long, default_value = "patches")]
    out: PathBuf,
    /// Cache folder [default OUT/cache].
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Search afresh and store nothing.
    #[arg(long)]
    no_cache: bool,
    /// Side of a candidate tile on the contact sheet in pixels.
    #[arg(long, default_value_t = 160)]
    tile: usize,
}

/// `bozkir patches`' settings: the search flags, then its own size, count and classes.
fn resolve(a: &Args) -> Result<SearchSettings> {
    let mut st = resolve_search(&a.search)?;
    macro_rules! flag {
        ($($f:ident),*) => {$(if let Some(x) = a.$f { st.$f = x; })*};
    }
    flag!(size, count, classes);
    st.check().map_err(|e| anyhow::anyhow!("bad settings: {e}"))?;
    Ok(st)
}

/// Stores the settings as the preset `name` in the presets file; returns the file.
fn save_preset(a: &Args, name: &str, st: &SearchSettings) -> Result<PathBuf> {
    let path = presets_path(&a.search)?;
    let mut all = read_presets(&path)?;
    all.insert(name, st);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    std::fs::write(&path, all.to_json()).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(path)
}

/// A capture file's stamp for the cache key: its size and modification time.
fn file_stamp(path: &Path) -> std::io::Result<String> {
    let m = std::fs::metadata(path)?;
    let mtime =
        m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos()).unwrap_or(0);
    Ok(format!("bytes={}|mtime_ns={mtime}", m.len()))
}

/// The cache file of `key` in the folder `dir`.
fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("search_{key}.json"))
}

/// [`find_patches`] through the cache folder `dir`: a hit returns the stored result, a miss
/// searches and stores a success (failures are not stored; a temporary file is renamed into
/// place). Returns the result and whether it was a hit. An unreadable or corrupt entry misses; a
/// cache that cannot be written is ignored.
fn find_patches_cached(s: &Splats, st: &SearchSettings, dir: &Path, stamp: &str) -> (Searched, bool) {
    let key = cache_key(stamp, s, st);
    let path = cache_file(dir, &key);
    if let Some(r) = std::fs::read_to_string(&path).ok().and_then(|t| decode_entry(&t, &key)) {
        return (Ok(r), true);
    }
    let r = find_patches(s, st);
    if let Ok(ok) = &r {
        let tmp = path.with_extension("json.tmp");
        let _ = std::fs::create_dir_all(dir)
            .and_then(|()| encode_entry(&key, ok).map_err(std::io::Error::other))
            .and_then(|text| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, &path));
    }
    (r, false)
}

/// A search's outcome.
type Searched = std::result::Result<PatchSearch, SearchFailure>;

pub fn run(a: Args) -> Result<()> {
    if !a.capture.exists() {
        bail!("{}: no such file", a.capture.display());
    }
    let st = resolve(&a)?;
    if !(16..=1024).contains(&a.tile) {
        bail!("--tile {}: 16..=1024 pixels per candidate on the contact sheet", a.tile);
    }
    if let Some(name) = &a.save_preset {
        let p = save_preset(&a, name, &st)?;
        println!("saved preset {name:?} to {}", p.display());
    }
    let splats = bozkir_splat::formats::load(&a.capture)?;
    if let Some(b) = splats.bounds() {
        let [ex, ey, _] = b.extent().map(f64::from);
        let mut cost = bozkir_pipeline::budget::patch_search_cost(splats.len(), ex, ey, st.size, st.stride);
        cost.work *= st.max_steps as f64;
        super::check_budget(&cost)?;
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("{}: cannot create", a.out.display()))?;
    let (result, cache) = if a.no_cache {
        (find_patches(&splats, &st), "off")
    } else {
        let dir = a.cache_dir.clone().unwrap_or_else(|| a.out.join("cache"));
        let stamp = file_stamp(&a.capture).with_context(|| format!("{}: cannot stat", a.capture.display()))?;
        let (r, hit) = find_patches_cached(&splats, &st, &dir, &stamp);
        (r, if hit { "hit" } else { "miss" })
    };
    let json_path = a.out.join("patches.json");
    let capture = a.capture.display().to_string();
    let mut r = match result {
        Ok(r) => r,
        Err(e) => return Err(failed(&a.capture, &json_path, &st, cache, &e)),
    };
    let by_hand = a.patches.is_some();
    if let Some(p) = &a.patches {
        r.pick_by_hand(p)?;
    }
    let sheet = contact_sheet(&splats, &r, a.tile, 64);
    let png = a.out.join("contact_sheet.png");
    bozkir_io::write_rgb8(&png, &Grid::from_vec(sheet.w, sheet.h, sheet.rgb))?;
    write_json(&json_path, &search_report(&capture, cache, by_hand, &r))?;
    for line in summary_lines(&capture, splats.len(), &r, cache) {
        println!("{line}");
    }
    println!("wrote {} and {}", png.display(), json_path.display());
    Ok(())
}

/// A failed search: `patches.json` says why, the trail goes to stderr, and the error names the
/// file.
fn failed(capture: &Path, json_path: &Path, st: &SearchSettings, cache: &str, e: &SearchFailure) -> anyhow::Error {
    if let Err(w) = write_json(json_path, &failure_report(&capture.display().to_string(), st, cache, e)) {
        return w;
    }
    for line in describe_trail(&e.trail) {
        eprintln!("  {line}");
    }
    anyhow::anyhow!("{}: {} (details in {})", capture.display(), e.reason, json_path.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_splat::capture::{synth, Material, SynthParams};

    #[test]
    fn cache_hits_misses_and_ignores_corrupt_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let ground = |seed| {
            let p = SynthParams {
                side_m: 4.0,
                density: 4000.0,
                materials: vec![Material::sand()],
                seed,
                ..SynthParams::default()
            };
            synth(&p).unwrap().splats
        };
        let c = ground(1);
        let st = SearchSettings { size: 0.5, ..SearchSettings::default() };
        let (a, hit) = find_patches_cached(&c, &st, &cache, "bytes=1|mtime_ns=2");
        assert!(!hit);
        let a = a.unwrap();
        let (b, hit) = find_patches_cached(&c, &st, &cache, "bytes=1|mtime_ns=2");
        assert!(hit);
        assert_eq!(b.unwrap(), a, "a recalled result equals the computed one");
        // Changed settings or a touched file miss.
        let looser = SearchSettings { min_cover: 0.7, ..st.clone() };
        assert!(!find_patches_cached(&c, &looser, &cache, "bytes=1|mtime_ns=2").1);
        assert!(!find_patches_cached(&c, &st, &cache, "bytes=1|mtime_ns=3").1);
        // A corrupt entry is ignored (and replaced).
        let key = cache_key("bytes=1|mtime_ns=2", &c, &st);
        std::fs::write(cache_file(&cache, &key), b"{\"version\": 1, \"key\": ").unwrap();
        let (r, hit) = find_patches_cached(&c, &st, &cache, "bytes=1|mtime_ns=2");
        assert!(!hit);
        assert_eq!(r.unwrap(), a);
        assert!(find_patches_cached(&c, &st, &cache, "bytes=1|mtime_ns=2").1);
        // The file stamp follows size and modification time.
        let f = dir.path().join("cap.ply");
        std::fs::write(&f, b"abc").unwrap();
        let s1 = file_stamp(&f).unwrap();
        std::fs::write(&f, b"abcd").unwrap();
        assert_ne!(s1, file_stamp(&f).unwrap());
    }
}
