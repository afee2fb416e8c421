//! `bozkir bench-viewer [DIR]`: the viewer's own benchmark in headless Chromium. Serves DIR (or
//! the demo scene) on a free loopback port in bench mode, opens
//! `/?bench=1&report=1&grids=…&frames=…`, waits for the page to `POST /api/bench-report`, and
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

/// The report as a table, one row per layout.
pub fn table(report: &serde_json::Value) -> Vec<String> {
    const COLS: [&str; 9] = ["grid", "tiles", "splats", "fps", "p50", "p95", "p99", "sort_ms", "draw_calls"];
    let rows: Vec<Vec<String>> = report["rows"]
        .as_array()
        .map(|r| r.iter().map(|row| COLS.iter().map(|c| cell(row.get(*c))).collect()).collect())
        .unwrap_or_default();
    let width: Vec<usize> = (0..COLS.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([COLS[i].len()]).max().unwrap())
        .collect();
    let line =
        |cells: Vec<String>| cells.iter().zip(&width).map(|(c, w)| format!("{c:>w$}")).collect::<Vec<_>>().join("  ");
    let mut out = vec![line(COLS.iter().map(|c| c.to_string()).collect())];
    out.extend(rows.into_iter().map(line));
    out
}

/// Refuse arguments that cannot run; the layouts asked for.
fn check(a: &Args) -> Result<Vec<u32>> {
    let grids = parse_grids(&a.grids)?;
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
        "--window-size=1280,720",
        // The page's console messages go to the log, shown when no report comes.
        "--enable-logging=stderr",
    ]);
    if a.gpu {
        cmd.args(["--enable-gpu", "--use-angle=vulkan"]);
    } else {
        cmd.args(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
    }
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
    if let Some(g) = report.get("gpu").and_then(|g| g.as_str()) {
        println!("renderer: {g}");
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
    let url = format!("{}?bench=1&report=1&grids={grid_list}&frames={}", running.url, a.frames);
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
    print_report(&report);
    if let Some(p) = &a.json {
        std::fs::write(p, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("{}: cannot write", p.display()))?;
        println!("wrote the report to {}", p.display());
    }
    println!("{} layouts in {:.0} s", grids.len(), t0.elapsed().as_secs_f64());
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
}
