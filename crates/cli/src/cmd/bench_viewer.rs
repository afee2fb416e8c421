//! `bozkir bench-viewer [DIR]`: the viewer's own benchmark in headless Chromium. Serves DIR (or
//! the demo scene) on a free loopback port in bench mode, opens
//! `/?bench=1&report=1&grids=…&frames=…` (or, with `--page erode`, the erosion page's benchmark
//! `/erode.html?bench=1&report=1&cases=…`), waits for the page to `POST /api/bench-report`, and
//! prints the table and the page's report lines.

use crate::web;
use anyhow::{bail, Context, Result};
use bozkir_viewer::State;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// A folder as `bozkir serve` reads it (default: the demo scene, built into a temporary folder).
    pub dir: Option<PathBuf>,
    /// The Chromium (or Chrome) executable.
    #[arg(long, default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// Layouts measured, in tiles per side, comma-separated.
    #[arg(long, default_value = "4,8,16,24,32")]
    pub grids: String,
    /// Frames timed per layout.
    #[arg(long, default_value_t = 40)]
    pub frames: u32,
    /// Seconds to wait for the page's report.
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Use the machine's GPU (Vulkan) instead of SwiftShader, the software renderer.
    #[arg(long)]
    pub gpu: bool,
    /// Also write the page's report (JSON) to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Side of the demo terrain in cells, when DIR is not given.
    #[arg(long, default_value_t = 512)]
    pub size: usize,
    /// Which page: `viewer` (the splat viewer, `index.html`) or `erode` (the live erosion page's
    /// WebGPU kernels, `erode.html`).
    #[arg(long, value_enum, default_value = "viewer")]
    pub page: Page,
    /// The erosion page's cases (`--page erode`), e.g.
    /// `droplets:2048:131072:auto:60,pipe:4096:240,live:1024:65536:60` (docs/viewer.md; a droplet
    /// case's batch is a number or `auto`); default the page's own list.
    #[arg(long)]
    pub cases: Option<String>,
    /// One more argument for Chromium (repeat for more), after the ones the command chooses,
    /// e.g. `--chromium-arg=--use-angle=gl`.
    #[arg(long, allow_hyphen_values = true)]
    pub chromium_arg: Vec<String>,
    /// Chromium's window, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "1280x720")]
    pub window: String,
    /// The viewer's splat renderer (`--page viewer`): `webgl2`, `webgpu` (the page's WebGPU
    /// path; the run fails if the page falls back to WebGL2) or `auto` (the page's default:
    /// WebGPU where the browser has it).
    #[arg(long, value_enum, default_value = "webgl2")]
    pub renderer: RendererChoice,
    /// The viewer's WebGPU frames drawn off screen (`?present=0`: rendered and timed, never copied
    /// into a canvas), for browsers that have WebGPU but cannot present a WebGPU canvas.
    #[arg(long)]
    pub offscreen: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum RendererChoice {
    Webgl2,
    Webgpu,
    Auto,
}

impl RendererChoice {
    fn name(self) -> &'static str {
        match self {
            Self::Webgl2 => "webgl2",
            Self::Webgpu => "webgpu",
            Self::Auto => "auto",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Page {
    Viewer,
    Erode,
}

/// Kills and reaps Chromium however the command ends.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

fn parse_grids(s: &str) -> Result<Vec<u32>> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.trim().parse::<u32>().ok().filter(|&g| (1..=1024).contains(&g)))
        .collect::<Option<_>>()
        .with_context(|| format!("--grids {s}: a comma-separated list of tiles per side, each 1..=1024"))?;
    if v.is_empty() {
        bail!("--grids {s}: give at least one layout");
    }
    Ok(v)
}

fn cell(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.abs() >= 100.0 => format!("{f:.0}"),
            (None, Some(f)) => format!("{f:.2}"),
            _ => n.to_string(),
        },
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Null) | None => "—".into(),
        Some(other) => other.to_string(),
    }
}

/// The report as a table, one row per layout (the viewer) or per case (the erosion page).
pub fn table(report: &serde_json::Value) -> Vec<String> {
    const VIEWER: [&str; 9] = ["grid", "tiles", "splats", "fps", "p50", "p95", "p99", "sort_ms", "draw_calls"];
    const ERODE: [&str; 8] =
        ["case", "size", "drops", "batch", "steps", "steps_per_s", "ms_per_step", "droplets_per_s"];
    let erode = report["rows"].as_array().and_then(|r| r.first()).is_some_and(|r| r.get("case").is_some());
    let cols: &[&str] = if erode { &ERODE } else { &VIEWER };
    let rows: Vec<Vec<String>> = report["rows"]
        .as_array()
        .map(|r| r.iter().map(|row| cols.iter().map(|c| cell(row.get(*c))).collect()).collect())
        .unwrap_or_default();
    let width: Vec<usize> = (0..cols.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([cols[i].len()]).max().unwrap())
        .collect();
    let line =
        |cells: Vec<String>| cells.iter().zip(&width).map(|(c, w)| format!("{c:>w$}")).collect::<Vec<_>>().join("  ");
    let mut out = vec![line(cols.iter().map(|c| c.to_string()).collect())];
    out.extend(rows.into_iter().map(line));
    out
}

/// `--window`'s WIDTHxHEIGHT, each 64..=8192.
fn parse_window(s: &str) -> Result<(u32, u32)> {
    let wh = s
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match wh {
        Some((w, h)) if (64..=8192).contains(&w) && (64..=8192).contains(&h) => Ok((w, h)),
        _ => bail!("--window {s}: WIDTHxHEIGHT in pixels, each 64..=8192 (e.g. 1920x1080)"),
    }
}

/// `--cases`' value, checked as the page checks it (kinds and counts), so a typo fails here.
fn check_cases(s: &str) -> Result<()> {
    for c in s.split(',') {
        let parts: Vec<&str> = c.trim().split(':').collect();
        let want = match parts[0] {
            "droplets" => 4,
            "pipe" => 2,
            "live" => 3,
            k => bail!("--cases: \"{c}\": unknown kind \"{k}\" (droplets, pipe or live)"),
        };
        // A droplet case's batch may be `auto` (the page's default: one droplet to 64 cells).
        let nums: Option<Vec<u64>> =
            parts[1..]
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if want == 4 && i == 2 && *p == "auto" {
                        Some(1)
                    } else {
                        p.parse::<u64>().ok().filter(|&v| v > 0)
                    }
                })
                .collect();
        match nums {
            Some(n) if n.len() == want && (16..=8192).contains(&n[0]) && n.iter().all(|&v| v <= u32::MAX as u64) => {}
            _ => bail!(
                "--cases: \"{c}\": {} takes {want} positive integers (the size 16..=8192 first; a droplet batch may be auto); see docs/viewer.md",
                parts[0]
            ),
        }
    }
    Ok(())
}

/// Refuse arguments that cannot run; the layouts asked for.
fn check(a: &Args) -> Result<Vec<u32>> {
    let grids = parse_grids(&a.grids)?;
    parse_window(&a.window)?;
    match (&a.cases, a.page) {
        (Some(c), Page::Erode) => check_cases(c)?,
        (Some(_), Page::Viewer) => bail!("--cases is for --page erode"),
        _ => {}
    }
    if a.offscreen && (a.page == Page::Erode || a.renderer == RendererChoice::Webgl2) {
        bail!("--offscreen is for the viewer's WebGPU splat path: add --renderer webgpu (or auto)");
    }
    if a.frames == 0 {
        bail!("--frames must be at least 1");
    }
    if a.timeout == 0 {
        bail!("--timeout must be at least 1 second");
    }
    if !a.chromium.is_file() {
        bail!(
            "{}: no such file — install Chromium (e.g. `apt-get install chromium`) or give its path with --chromium",
            a.chromium.display()
        );
    }
    Ok(grids)
}

/// Start headless Chromium on `url` with its profile and log in `profile`.
fn launch(a: &Args, url: &str, profile: &Path, log_path: &Path) -> Result<Browser> {
    let log = std::fs::File::create(log_path).with_context(|| format!("{}: cannot create", log_path.display()))?;
    let mut cmd = Command::new(&a.chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        // The page's console messages go to the log, shown when no report comes.
        "--enable-logging=stderr",
    ]);
    let (w, h) = parse_window(&a.window)?;
    cmd.arg(format!("--window-size={w},{h}"));
    let webgpu = a.page == Page::Erode || a.renderer != RendererChoice::Webgl2;
    if a.gpu {
        cmd.args(["--enable-gpu", "--ignore-gpu-blocklist", "--use-angle=vulkan", "--enable-features=Vulkan"]);
    } else if a.page == Page::Viewer && !webgpu {
        cmd.args(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
    } else if a.page == Page::Viewer {
        // WebGPU on SwiftShader's Vulkan, WebGL2 (which the viewer keeps for everything else)
        // on ANGLE's SwiftShader GL: with ANGLE on Vulkan the page gets no WebGL2 here.
        cmd.args([
            "--enable-features=Vulkan",
            "--use-webgpu-adapter=swiftshader",
            "--use-vulkan=swiftshader",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
        ]);
    } else {
        // SwiftShader's Vulkan for WebGPU and ANGLE both: with ANGLE on its GL default, headless
        // Chromium loses the device at a WebGPU canvas's first present.
        cmd.args([
            "--enable-features=Vulkan",
            "--use-webgpu-adapter=swiftshader",
            "--use-vulkan=swiftshader",
            "--use-angle=vulkan",
            "--enable-unsafe-swiftshader",
        ]);
    }
    if webgpu {
        cmd.arg("--enable-unsafe-webgpu");
    }
    cmd.args(&a.chromium_arg);
    cmd.arg(format!("--user-data-dir={}", profile.join("profile").display()));
    cmd.arg(url);
    cmd.stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log);
    println!("benchmarking {url} in {} ({})", a.chromium.display(), if a.gpu { "GPU" } else { "SwiftShader" });
    Ok(Browser(cmd.spawn().with_context(|| format!("{}: cannot start Chromium", a.chromium.display()))?))
}

/// The last lines of Chromium's log, without the D-Bus complaints of a machine without a
/// session bus.
fn log_tail(log_path: &Path) -> String {
    let s = std::fs::read_to_string(log_path).unwrap_or_default();
    let lines: Vec<&str> = s.lines().filter(|l| !l.contains("dbus") && !l.contains("DBus")).collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// Wait for the page's report, noting every 30 s, and fail when Chromium exits first or after
/// `timeout` seconds.
fn wait_report(
    rx: &mpsc::Receiver<serde_json::Value>,
    browser: &mut Browser,
    timeout: u64,
    log_path: &Path,
    t0: Instant,
) -> Result<serde_json::Value> {
    let deadline = Duration::from_secs(timeout);
    let mut next_note = 30;
    loop {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(v) => return Ok(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("the server stopped before the page reported"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(status) = browser.0.try_wait()? {
                    bail!(
                        "Chromium exited ({status}) before the page posted its report; the end of its log:\n{}",
                        log_tail(log_path)
                    );
                }
                let waited = t0.elapsed().as_secs();
                if waited >= next_note {
                    eprintln!("waiting for the page's report ({waited} s of {timeout} s)");
                    next_note += 30;
                }
                if t0.elapsed() > deadline {
                    bail!(
                        "no report from the page after {timeout} s (--timeout); the end of Chromium's log:\n{}",
                        log_tail(log_path)
                    );
                }
            }
        }
    }
}

/// Print the renderer, the table and the page's report lines.
fn print_report(report: &serde_json::Value) {
    let drew = report.get("renderer").and_then(|r| r.as_str());
    if let Some(g) = report.get("gpu").and_then(|g| g.as_str()) {
        match drew {
            Some(r) => println!("renderer: {r} on {g}"),
            None => println!("renderer: {g}"),
        }
    }
    for l in table(report) {
        println!("{l}");
    }
    if let Some(lines) = report.get("report").and_then(|r| r.as_array()) {
        for l in lines {
            println!("{}", l.as_str().map(str::to_string).unwrap_or_else(|| l.to_string()));
        }
    }
}

pub fn run(a: Args, quiet: bool) -> Result<()> {
    let grids = check(&a)?;
    let (scene, _demo) = match &a.dir {
        Some(d) => (web::load_scene(d)?, None),
        None => {
            let (s, t) = web::demo_scene(a.size, quiet)?;
            (s, Some(t))
        }
    };
    let (tx, rx) = mpsc::channel();
    let running = bozkir_viewer::start(Arc::new(State::new(scene, Some(tx))), "127.0.0.1:0".parse().expect("address"))?;
    let grid_list = grids.iter().map(|g| g.to_string()).collect::<Vec<_>>().join(",");
    let url = match a.page {
        Page::Viewer => format!(
            "{}?bench=1&report=1&grids={grid_list}&frames={}&renderer={}{}",
            running.url,
            a.frames,
            a.renderer.name(),
            if a.offscreen { "&present=0" } else { "" }
        ),
        Page::Erode => {
            let cases = a.cases.as_deref().map(|c| format!("&cases={c}")).unwrap_or_default();
            format!("{}erode.html?bench=1&report=1{cases}", running.url)
        }
    };
    let profile = tempfile::Builder::new()
        .prefix("bozkir-chromium-")
        .tempdir()
        .context("cannot create Chromium's profile folder")?;
    let log_path = profile.path().join("chromium.log");
    let mut browser = launch(&a, &url, profile.path(), &log_path)?;
    let t0 = Instant::now();
    let report = wait_report(&rx, &mut browser, a.timeout, &log_path, t0)?;
    drop(browser);
    running.stop();
    if let Some(e) = report.get("error").and_then(|e| e.as_str()) {
        bail!("the page's benchmark failed: {e}");
    }
    print_report(&report);
    if a.page == Page::Viewer && a.renderer == RendererChoice::Webgpu && report["renderer"] != "webgpu" {
        bail!(
            "--renderer webgpu: the page drew with {} (no WebGPU in this Chromium, or the scene is past what the \
             WebGPU path takes; Chromium's console has the reason)",
            report["renderer"].as_str().unwrap_or("an unknown renderer")
        );
    }
    if let Some(p) = &a.json {
        std::fs::write(p, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("{}: cannot write", p.display()))?;
        println!("wrote the report to {}", p.display());
    }
    match a.page {
        Page::Viewer => println!("{} layouts in {:.0} s", grids.len(), t0.elapsed().as_secs_f64()),
        Page::Erode => println!(
            "{} cases in {:.0} s",
            report["rows"].as_array().map_or(0, |r| r.len()),
            t0.elapsed().as_secs_f64()
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_parse_and_refuse() {
        assert_eq!(parse_grids("4, 8,16").unwrap(), vec![4, 8, 16]);
        assert!(parse_grids("4,x").is_err());
        assert!(parse_grids("0").is_err());
        assert!(parse_grids("").is_err());
    }

    #[test]
    fn the_table_has_one_line_per_row() {
        let r = serde_json::json!({"rows": [
            {"grid": 4, "tiles": 16, "splats": 18000, "fps": 59.81, "p50": 16.7, "p95": 18.2, "p99": 20.0,
             "sort_ms": 1.25, "draw_calls": 2},
            {"grid": 8, "tiles": 64, "fps": null}
        ]});
        let t = table(&r);
        assert_eq!(t.len(), 3);
        assert!(t[0].trim_start().starts_with("grid"));
        assert!(t[1].contains("59.81") && t[1].contains("18000"));
        assert!(t[2].contains('—'));
    }

    #[test]
    fn erosion_rows_get_their_own_columns() {
        let r = serde_json::json!({"rows": [
            {"case": "droplets", "size": 2048, "drops": 131072, "batch": 1024, "steps": 10, "steps_per_s": 12.5,
             "ms_per_step": 80.0, "droplets_per_s": 1638400.0},
            {"case": "pipe", "size": 4096, "drops": 0, "batch": null, "steps": 240, "steps_per_s": 310.2}
        ]});
        let t = table(&r);
        assert_eq!(t.len(), 3);
        assert!(t[0].contains("steps_per_s") && !t[0].contains("grid"));
        assert!(t[1].contains("droplets") && t[1].contains("1638400") && t[1].contains("12.50"));
        assert!(t[2].contains("pipe") && t[2].contains(" 310 ") && t[2].contains('—'));
    }

    #[test]
    fn window_and_cases_are_checked() {
        assert_eq!(parse_window("1920x1080").unwrap(), (1920, 1080));
        assert!(parse_window("1920").is_err() && parse_window("0x10").is_err() && parse_window("axb").is_err());
        assert!(check_cases("droplets:2048:131072:1024:10,pipe:4096:240,live:1024:65536:60").is_ok());
        assert!(check_cases("droplets:2048:131072:auto:60").is_ok());
        assert!(check_cases("pipe:auto:60").is_err());
        assert!(check_cases("droplets:auto:131072:1024:60").is_err());
        assert!(check_cases("drops:2048:1:1:1").is_err());
        assert!(check_cases("pipe:4096").is_err());
        assert!(check_cases("pipe:8:10").is_err());
        assert!(check_cases("droplets:2048:0:1024:10").is_err());
    }

    #[test]
    fn offscreen_is_for_the_webgpu_splat_path() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            a: Args,
        }
        let args = |extra: &[&str]| {
            let mut v = vec!["bench-viewer", "--chromium", "/bin/sh"];
            v.extend_from_slice(extra);
            Cli::parse_from(v).a
        };
        let err = |extra: &[&str]| check(&args(extra)).unwrap_err().to_string();
        assert!(err(&["--offscreen"]).contains("--renderer webgpu"));
        assert!(err(&["--offscreen", "--page", "erode"]).contains("--offscreen is for the viewer"));
        assert!(check(&args(&["--offscreen", "--renderer", "webgpu"])).is_ok());
        assert!(check(&args(&["--offscreen", "--renderer", "auto"])).is_ok());
    }
}
