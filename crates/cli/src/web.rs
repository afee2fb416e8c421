//! The viewer as the CLI presents it: the scene read with its warnings printed, the demo scene
//! built into a temporary folder with its summary printed, and the server run until killed with
//! its address printed. The page, the catalogue and the HTTP routes are `bozkir_viewer`'s,
//! shared by `bozkir serve`, `bozkir demo`, `bozkir site` and `bozkir bench-viewer`.

use crate::progress::Bar;
use anyhow::{bail, Context, Result};
use bozkir_pipeline::demo::{build_scene, DemoOutcome, DemoRequest};
use bozkir_viewer::{resolve, start, Scene, State};
use std::path::Path;
use std::sync::Arc;

/// Read a scene (`bozkir_viewer::load_scene`), printing each skipped entry, and an empty scene,
/// as a warning on stderr.
pub fn load_scene(dir: &Path) -> Result<Scene> {
    let (scene, warnings) = bozkir_viewer::load_scene(dir)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(scene)
}

/// Refuse a demo terrain side outside 4..=8192 (the message `bozkir terrain --size` gives).
pub fn check_demo_size(size: usize) -> Result<()> {
    let max = crate::cmd::MAX_TERRAIN_SIZE;
    if !(4..=max).contains(&size) {
        bail!("--size must be 4..={max}, got {size}");
    }
    Ok(())
}

/// What the demo scene holds, for the terminal: the terrain with its statistics and step
/// timings, the textures and the starter tileset.
pub fn print_demo(d: &DemoOutcome, timings: &[(String, std::time::Duration)]) {
    let t = &d.terrain;
    println!(
        "profile {} seed {} size {}² ({} m cells, {} m relief)",
        t.profile, t.seed, t.size, t.cell_size, t.height_range
    );
    crate::outputs::print_stats(&d.terrain_outcome.stats, timings);
    let (w, h) = d.texture_size;
    println!("baked {w}×{h} albedo and micro-normal (2× the {}×{} grid)", t.size, t.size);
    for (name, tiles, classes, splats) in &d.real {
        println!("{name}: {tiles} tiles ({}), {splats} splats, from the images in sources/", classes.join(", "));
    }
    println!("starter tileset (fallback): {} tiles ({}), {} splats", d.tiles, d.classes.join(", "), d.splats);
}

/// The demo scene (`bozkir_pipeline::demo`), built into a temporary folder (removed when the
/// guard drops), for `bozkir site` and `bozkir bench-viewer` when they are given no folder.
pub fn demo_scene(size: usize, quiet: bool) -> Result<(Scene, tempfile::TempDir)> {
    check_demo_size(size)?;
    let tmp = tempfile::Builder::new().prefix("bozkir-demo-").tempdir().context("cannot create a temporary folder")?;
    let bar = Bar::new(quiet);
    let out = build_scene(&DemoRequest { size }, tmp.path(), &bar)?;
    let timings = bar.timings();
    bar.finish();
    print_demo(&out, &timings);
    let scene = load_scene(tmp.path())?;
    Ok((scene, tmp))
}

/// Serve a scene until killed: prints `listening on URL` and the catalogue, then blocks. The
/// server's limits are `bozkir_viewer::Limits::default()` (64 connections, 10 s per request head;
/// see `docs/reliability.md`): a local viewer's browser opens about six.
/// `open_hint` adds a line telling the user to open the URL.
pub fn serve_forever(scene: Scene, host: &str, port: u16, open_hint: bool) -> Result<()> {
    let addr = resolve(host, port)?;
    let describe = scene.describe();
    let running = start(Arc::new(State::new(scene, None)), addr)?;
    if !addr.ip().is_loopback() {
        // The port the system chose when `--port 0` asked for any.
        eprintln!(
            "warning: --host {host} is not a loopback address: anyone who can reach this machine at {} can \
             read the served files (and the Host check against DNS rebinding, made on loopback, is off)",
            running.url
        );
    }
    println!("listening on {}", running.url);
    for l in describe {
        println!("{l}");
    }
    if open_hint {
        println!("open {} in a browser (Ctrl-C stops the server)", running.url);
    }
    running.wait();
    Ok(())
}
