//! The browser viewer as the binary carries it: the embedded page (`build.rs` puts every file of
//! `web/` into [`ASSETS`]), the scene a folder holds (tilesets and terrains, converted to the
//! layout the page reads, see `docs/formats.md` "Viewer catalogue and data"), and the HTTP
//! routes shared by `bozkir serve`, `bozkir demo`, `bozkir site` and `bozkir bench-viewer`.
//!
//! Everything is local: the server listens on loopback unless told otherwise and never makes a
//! request of its own.

use anyhow::{anyhow, bail, Context, Result};
use bozkir_splat::formats::tileset;
use bozkir_splat::tiling::tileset::Tileset;
use std::io::{BufRead, Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));
}
pub use embedded::ASSETS;

/// Version of `catalogue.json`.
pub const CATALOGUE_FORMAT_VERSION: u32 = 1;

/// Largest `POST /api/bench-report` body accepted (bytes).
const MAX_REPORT: u64 = 4 << 20;

/// The embedded file at `path` (relative to `web/`, `/`-separated).
pub fn asset(path: &str) -> Option<&'static [u8]> {
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// Content type of a served file, by extension.
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Where a tileset's files are read from.
#[derive(Debug, Clone)]
pub enum TilesetSource {
    /// A folder written by `bozkir tileset` (`tileset.json`, `tiles.splat`, `atlas.png`).
    Dir(PathBuf),
    /// A single-file tileset, served as `tileset.zip`.
    Zip(PathBuf),
}

/// A tileset of the scene, validated when the scene was read.
#[derive(Debug, Clone)]
pub struct TilesetEntry {
    pub name: String,
    pub source: TilesetSource,
    pub tiles: usize,
    pub classes: Vec<String>,
    pub splats: u64,
    /// Tile side in metres.
    pub size: f64,
    pub atlas: bool,
}

impl TilesetEntry {
    /// The files served under `data/tilesets/NAME/`.
    pub fn files(&self) -> Vec<&'static str> {
        match self.source {
            TilesetSource::Zip(_) => vec!["tileset.zip"],
            TilesetSource::Dir(_) if self.atlas => vec!["tileset.json", "tiles.splat", "atlas.png"],
            TilesetSource::Dir(_) => vec!["tileset.json", "tiles.splat"],
        }
    }

    fn read(&self, file: &str) -> Option<Result<Vec<u8>>> {
        if !self.files().contains(&file) {
            return None;
        }
        let path = match &self.source {
            TilesetSource::Zip(p) => p.clone(),
            TilesetSource::Dir(d) => d.join(file),
        };
        Some(std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display())))
    }
}

/// A terrain of the scene, converted once to the viewer's layout.
#[derive(Debug, Clone)]
pub struct TerrainEntry {
    pub name: String,
    pub width: usize,
    pub height: usize,
    pub cell_size_m: f64,
    pub low_m: f64,
    pub high_m: f64,
    /// `terrain.json` as served.
    pub json: Arc<[u8]>,
    /// `heights.f32`: little-endian f32 metres, row 0 north.
    pub heights: Arc<[u8]>,
    /// `sediment.f32`: little-endian f32 in 0..1, when the folder has `sediment.tif`.
    pub sediment: Option<Arc<[u8]>>,
    /// `albedo.png` and `normal.png` as `bozkir bake` wrote them into the folder, when present
    /// (read from disk when asked for, like a tileset's files).
    pub albedo: Option<PathBuf>,
    pub normal: Option<PathBuf>,
    /// The recipe the folder came from (its sidecar's `settings.recipe`), when it says.
    pub recipe: Option<String>,
}

impl TerrainEntry {
    /// The files served under `data/terrains/NAME/`.
    pub fn files(&self) -> Vec<&'static str> {
        let mut v = vec!["terrain.json", "heights.f32"];
        if self.sediment.is_some() {
            v.push("sediment.f32");
        }
        if self.albedo.is_some() {
            v.push("albedo.png");
        }
        if self.normal.is_some() {
            v.push("normal.png");
        }
        v
    }

    fn read(&self, file: &str) -> Option<Result<Body>> {
        let disk = |p: &Option<PathBuf>| {
            p.as_ref()
                .map(|p| std::fs::read(p).map(Body::Owned).with_context(|| format!("{}: cannot read", p.display())))
        };
        match file {
            "terrain.json" => Some(Ok(Body::Shared(self.json.clone()))),
            "heights.f32" => Some(Ok(Body::Shared(self.heights.clone()))),
            "sediment.f32" => self.sediment.clone().map(|b| Ok(Body::Shared(b))),
            "albedo.png" => disk(&self.albedo),
            "normal.png" => disk(&self.normal),
            _ => None,
        }
    }
}

/// What a folder holds for the viewer.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub tilesets: Vec<TilesetEntry>,
    pub terrains: Vec<TerrainEntry>,
}

/// A name safe in a URL and as a folder name: ASCII letters, digits, `-`, `_` and `.` (other
/// characters become `-`), never starting with a dot.
fn url_name(raw: &str) -> String {
    let s: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' }).collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "scene".into()
    } else {
        s
    }
}

fn folder_name(p: &Path) -> String {
    let p = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    url_name(&p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default())
}

fn tileset_entry(name: String, path: &Path, source: TilesetSource) -> Result<TilesetEntry> {
    let ts: Tileset = tileset::read(path).map_err(anyhow::Error::msg)?;
    let m = &ts.manifest;
    let atlas = match &source {
        TilesetSource::Dir(d) => {
            if !d.join("tiles.splat").is_file() {
                bail!("no tiles.splat (the viewer streams it; rewrite the tileset with `bozkir tileset`)");
            }
            m.atlas.is_some() && d.join("atlas.png").is_file()
        }
        TilesetSource::Zip(_) => m.atlas.is_some(),
    };
    Ok(TilesetEntry {
        name,
        source,
        tiles: m.tiles.len(),
        classes: m.classes.clone(),
        splats: m.total,
        size: m.size,
        atlas,
    })
}

fn f32_bytes(v: impl Iterator<Item = f32>) -> Arc<[u8]> {
    v.flat_map(f32::to_le_bytes).collect::<Vec<u8>>().into()
}

/// A baked texture of a terrain folder (`bozkir bake`): `dir/file` when it is a PNG of exactly
/// `k·width × k·height` pixels for some `k` in 1..=4 (an older or foreign file is left out).
fn baked_texture(dir: &Path, file: &str, w: usize, h: usize) -> Option<PathBuf> {
    let p = dir.join(file);
    let f = std::fs::File::open(&p).ok()?;
    let mut head = [0u8; 24];
    std::io::Read::read_exact(&mut std::io::BufReader::new(f), &mut head).ok()?;
    if &head[..8] != b"\x89PNG\r\n\x1a\n" || &head[12..16] != b"IHDR" {
        return None;
    }
    let pw = u32::from_be_bytes(head[16..20].try_into().ok()?) as usize;
    let ph = u32::from_be_bytes(head[20..24].try_into().ok()?) as usize;
    (1..=4).any(|k| (pw, ph) == (k * w, k * h)).then_some(p)
}

/// A terrain folder (`height.tif` with its `terrain.json` sidecar, optional `sediment.tif`, and
/// `albedo.png` / `normal.png` from `bozkir bake`) converted to the viewer's layout.
pub fn terrain_entry(name: String, dir: &Path) -> Result<TerrainEntry> {
    let (sc, h) = crate::cmd::read_terrain_folder(dir, "the viewer")?;
    let (w, hh) = (sc.width, sc.height);
    let sed = crate::cmd::read_optional_layer(&dir.join("sediment.tif"), w, hh)?;
    let (low_m, high_m) = h.min_max().context("height.tif has no finite value")?;
    let heights = f32_bytes(h.data().iter().map(|&v| v as f32));
    let sediment = sed.map(|g| {
        // Scaled into 0..1 when the layer goes above 1; non-finite cells are 0.
        let hi = g.data().iter().copied().filter(|v| v.is_finite()).fold(0.0f32, f32::max);
        let s = if hi > 1.0 { 1.0 / hi } else { 1.0 };
        f32_bytes(g.data().iter().map(move |&v| if v.is_finite() { (v * s).clamp(0.0, 1.0) } else { 0.0 }))
    });
    let json = serde_json::json!({
        "width": w,
        "height": hh,
        "cell_size_m": sc.dx_m,
        "cell_size_xy_m": [sc.dx_m, sc.dy_m],
        "height_range_m": high_m - low_m,
        "min_height_m": low_m,
        "max_height_m": high_m,
        "source": sc.source,
    });
    let json: Arc<[u8]> = (serde_json::to_string_pretty(&json)? + "\n").into_bytes().into();
    let albedo = baked_texture(dir, "albedo.png", w, hh);
    let normal = baked_texture(dir, "normal.png", w, hh);
    let recipe = sc.settings.get("recipe").and_then(|v| v.as_str()).map(str::to_string);
    Ok(TerrainEntry {
        name,
        width: w,
        height: hh,
        cell_size_m: sc.dx_m,
        low_m,
        high_m,
        json,
        heights,
        sediment,
        albedo,
        normal,
        recipe,
    })
}

impl Scene {
    /// Read what `dir` holds, one level deep: subfolders with `tileset.json` (tilesets),
    /// `.zip` tilesets, and terrain folders (`height.tif`); `dir` itself may also be a tileset
    /// folder, a terrain folder or a tileset zip. Entries that cannot be read are skipped, each
    /// with a warning naming the folder and the reason.
    pub fn scan(dir: &Path) -> Result<(Scene, Vec<String>)> {
        if !dir.exists() {
            bail!("{}: no such folder", dir.display());
        }
        let mut sc = Scene::default();
        let mut warnings = Vec::new();
        if dir.is_file() {
            if !is_zip(dir) {
                bail!("{}: not a folder or a tileset .zip", dir.display());
            }
            let name = url_name(&dir.file_stem().unwrap_or_default().to_string_lossy());
            let e = tileset_entry(name, dir, TilesetSource::Zip(dir.to_path_buf()))
                .with_context(|| format!("{}: not a tileset", dir.display()))?;
            sc.tilesets.push(e);
            return Ok((sc, warnings));
        }
        sc.consider(dir, folder_name(dir), &mut warnings);
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .with_context(|| format!("{}: cannot list", dir.display()))?
            .filter_map(|e| e.ok())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let raw = e.file_name().to_string_lossy().into_owned();
            if raw.starts_with('.') {
                continue;
            }
            let p = e.path();
            if p.is_dir() {
                sc.consider(&p, url_name(&raw), &mut warnings);
            } else if is_zip(&p) {
                let name = url_name(&p.file_stem().unwrap_or_default().to_string_lossy());
                match tileset_entry(name, &p, TilesetSource::Zip(p.clone())) {
                    Ok(t) => sc.push_tileset(t, &mut warnings),
                    Err(err) => warnings.push(format!("{}: skipped: {err:#}", p.display())),
                }
            }
        }
        Ok((sc, warnings))
    }

    fn consider(&mut self, dir: &Path, name: String, warnings: &mut Vec<String>) {
        if dir.join("tileset.json").is_file() {
            match tileset_entry(name.clone(), dir, TilesetSource::Dir(dir.to_path_buf())) {
                Ok(t) => self.push_tileset(t, warnings),
                Err(err) => warnings.push(format!("{}: skipped the tileset: {err:#}", dir.display())),
            }
        }
        if dir.join("height.tif").is_file() {
            match terrain_entry(name, dir) {
                Ok(t) => {
                    if self.terrains.iter().any(|x| x.name == t.name) {
                        warnings.push(format!(
                            "{}: skipped: a terrain named {} is already listed",
                            dir.display(),
                            t.name
                        ));
                    } else {
                        self.terrains.push(t);
                    }
                }
                Err(err) => warnings.push(format!("{}: skipped the terrain: {err:#}", dir.display())),
            }
        }
    }

    fn push_tileset(&mut self, t: TilesetEntry, warnings: &mut Vec<String>) {
        if self.tilesets.iter().any(|x| x.name == t.name) {
            let p = match &t.source {
                TilesetSource::Dir(p) | TilesetSource::Zip(p) => p,
            };
            warnings.push(format!("{}: skipped: a tileset named {} is already listed", p.display(), t.name));
        } else {
            self.tilesets.push(t);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tilesets.is_empty() && self.terrains.is_empty()
    }

    /// `catalogue.json`.
    pub fn catalogue(&self) -> serde_json::Value {
        let tilesets: Vec<_> = self
            .tilesets
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "path": format!("data/tilesets/{}/", t.name),
                    "tiles": t.tiles,
                    "classes": t.classes,
                    "splats": t.splats,
                    "size": t.size,
                    "atlas": t.atlas,
                    "zip": matches!(t.source, TilesetSource::Zip(_)),
                })
            })
            .collect();
        let terrains: Vec<_> = self
            .terrains
            .iter()
            .map(|t| {
                let mut e = serde_json::json!({
                    "name": t.name,
                    "path": format!("data/terrains/{}/", t.name),
                    "width": t.width,
                    "height": t.height,
                    "cell_size_m": t.cell_size_m,
                    "sediment": t.sediment.is_some(),
                    "albedo": t.albedo.is_some(),
                    "normal": t.normal.is_some(),
                });
                if let Some(r) = &t.recipe {
                    e["recipe"] = r.clone().into();
                }
                e
            })
            .collect();
        serde_json::json!({
            "format_version": CATALOGUE_FORMAT_VERSION,
            "tilesets": tilesets,
            "terrains": terrains,
            "default": {
                "tileset": self.tilesets.first().map(|t| t.name.clone()),
                "terrain": self.terrains.first().map(|t| t.name.clone()),
            },
        })
    }

    /// A few lines describing the scene, for the terminal.
    pub fn describe(&self) -> Vec<String> {
        let mut v = Vec::new();
        for t in &self.tilesets {
            v.push(format!(
                "  tileset {}: {} tiles of {} m, {} splats, classes {}{}{}",
                t.name,
                t.tiles,
                t.size,
                t.splats,
                t.classes.join(", "),
                if t.atlas { ", atlas" } else { "" },
                if matches!(t.source, TilesetSource::Zip(_)) { ", zip" } else { "" }
            ));
        }
        for t in &self.terrains {
            v.push(format!(
                "  terrain {}: {}×{} cells of {} m, {:.0}..{:.0} m{}{}{}",
                t.name,
                t.width,
                t.height,
                t.cell_size_m,
                t.low_m,
                t.high_m,
                if t.sediment.is_some() { ", sediment" } else { "" },
                if t.albedo.is_some() && t.normal.is_some() { ", baked textures" } else { "" },
                t.recipe.as_ref().map(|r| format!(", recipe {r}")).unwrap_or_default()
            ));
        }
        if v.is_empty() {
            v.push("  (no tileset and no terrain)".into());
        }
        v
    }

    /// Every data file as `(path under the site root, bytes)`: what `bozkir site` writes.
    pub fn data_files(&self) -> Result<Vec<(String, Body)>> {
        let mut out = Vec::new();
        for t in &self.tilesets {
            for f in t.files() {
                let bytes = t.read(f).expect("listed")?;
                out.push((format!("data/tilesets/{}/{f}", t.name), Body::Owned(bytes)));
            }
        }
        for t in &self.terrains {
            for f in t.files() {
                out.push((format!("data/terrains/{}/{f}", t.name), t.read(f).expect("listed")?));
            }
        }
        Ok(out)
    }
}

fn is_zip(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// Read a scene, printing each skipped entry as a warning on stderr.
pub fn load_scene(dir: &Path) -> Result<Scene> {
    let (scene, warnings) = Scene::scan(dir)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if scene.is_empty() {
        eprintln!(
            "warning: {}: no tileset (a folder with tileset.json, or a .zip) and no terrain (a folder with height.tif) \
             found",
            dir.display()
        );
    }
    Ok(scene)
}

/// A response body.
#[derive(Debug, Clone)]
pub enum Body {
    Static(&'static [u8]),
    Shared(Arc<[u8]>),
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        match self {
            Body::Static(b) => b,
            Body::Shared(b) => b,
            Body::Owned(b) => b,
        }
    }
}

/// One answer of [`State::handle`].
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Body,
    /// Methods the route allows, for a 405's `Allow` header.
    pub allow: Option<&'static str>,
}

impl Reply {
    fn text(status: u16, msg: &str) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Body::Owned(format!("{msg}\n").into_bytes()),
            allow: None,
        }
    }
}

/// The request path, percent-decoded, without query or fragment; `None` (a 400) for a path that
/// does not start with `/`, a bad or non-UTF-8 percent-encoding, a NUL, a backslash, or a `.` or
/// `..` segment, checked after decoding.
pub fn clean_path(raw: &str) -> Option<String> {
    let p = raw.split(['?', '#']).next().unwrap_or("");
    if !p.starts_with('/') {
        return None;
    }
    let b = p.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            let s = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(s, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).ok()?;
    if s.contains(['\0', '\\']) || s.split('/').any(|seg| seg == ".." || seg == ".") {
        return None;
    }
    Some(s)
}

/// The server's state: the scene, its catalogue, and in bench mode where reports go.
pub struct State {
    pub scene: Scene,
    catalogue: Arc<[u8]>,
    bench: Option<Mutex<mpsc::Sender<serde_json::Value>>>,
}

impl State {
    pub fn new(scene: Scene, bench: Option<mpsc::Sender<serde_json::Value>>) -> State {
        let catalogue = (serde_json::to_string_pretty(&scene.catalogue()).expect("JSON") + "\n").into_bytes().into();
        State { scene, catalogue, bench: bench.map(Mutex::new) }
    }

    pub fn catalogue_bytes(&self) -> Arc<[u8]> {
        self.catalogue.clone()
    }

    /// Answer one request. `body` is the request body of a POST.
    pub fn handle(&self, method: &str, url: &str, body: Option<&[u8]>) -> Reply {
        let Some(path) = clean_path(url) else {
            return Reply::text(400, "bad request path");
        };
        if path == "/api/bench-report" && self.bench.is_some() {
            if method != "POST" {
                return Reply { allow: Some("POST"), ..Reply::text(405, "POST a JSON report here") };
            }
            return self.bench_report(body.unwrap_or_default());
        }
        if method != "GET" && method != "HEAD" {
            return Reply { allow: Some("GET, HEAD"), ..Reply::text(405, "only GET and HEAD") };
        }
        let ok = |ct: &'static str, body: Body| Reply { status: 200, content_type: ct, body, allow: None };
        let rel = &path[1..];
        if rel.is_empty() {
            return match asset("index.html") {
                Some(b) => ok("text/html; charset=utf-8", Body::Static(b)),
                None => Reply::text(404, "index.html is not embedded in this build"),
            };
        }
        if rel == "catalogue.json" {
            return ok("application/json", Body::Shared(self.catalogue.clone()));
        }
        let seg: Vec<&str> = rel.split('/').collect();
        match seg.as_slice() {
            ["data", "tilesets", name, file] => {
                let Some(t) = self.scene.tilesets.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such tileset");
                };
                match t.read(file) {
                    Some(Ok(b)) => ok(content_type(file), Body::Owned(b)),
                    Some(Err(e)) => Reply::text(500, &format!("{e:#}")),
                    None => Reply::text(404, "no such tileset file"),
                }
            }
            ["data", "terrains", name, file] => {
                let Some(t) = self.scene.terrains.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such terrain");
                };
                match t.read(file) {
                    Some(Ok(b)) => ok(content_type(file), b),
                    Some(Err(e)) => Reply::text(500, &format!("{e:#}")),
                    None => Reply::text(404, "no such terrain file"),
                }
            }
            _ => match asset(rel) {
                Some(b) => ok(content_type(rel), Body::Static(b)),
                None => Reply::text(404, "not found"),
            },
        }
    }

    fn bench_report(&self, body: &[u8]) -> Reply {
        let v: serde_json::Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return Reply::text(400, &format!("the report is not JSON: {e}")),
        };
        if !v.get("rows").is_some_and(|r| r.is_array()) {
            return Reply::text(400, "the report has no \"rows\" array");
        }
        if let Some(tx) = &self.bench {
            tx.lock().unwrap().send(v).ok();
        }
        Reply { status: 200, content_type: "application/json", body: Body::Static(b"{\"ok\":true}\n"), allow: None }
    }
}

/// A running server.
pub struct Running {
    /// `http://HOST:PORT/` with the real port.
    pub url: String,
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

/// `host:port` as one address; the first a name resolves to.
pub fn resolve(host: &str, port: u16) -> Result<SocketAddr> {
    use std::net::ToSocketAddrs;
    let h = host.trim_start_matches('[').trim_end_matches(']');
    (h, port)
        .to_socket_addrs()
        .with_context(|| format!("--host {host}: not an address or a name this machine resolves"))?
        .next()
        .ok_or_else(|| anyhow!("--host {host}: resolves to no address"))
}

/// Largest request head (request line and headers) accepted.
const MAX_HEAD: usize = 64 << 10;

/// How long an idle keep-alive connection stays open, and the longest wait on a slow client.
const IDLE: std::time::Duration = std::time::Duration::from_secs(30);

/// One parsed request: method, target, whether the client wants the connection closed, body.
struct Request {
    method: String,
    target: String,
    close: bool,
    body: Option<Vec<u8>>,
}

/// Read one request from `r`; `Ok(None)` at a clean end of the connection. A malformed or
/// oversized request is an `Err` with the status to answer.
fn read_request(r: &mut impl std::io::BufRead) -> std::result::Result<Option<Request>, (u16, &'static str)> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = r
            .by_ref()
            .take((MAX_HEAD + 1 - head.len().min(MAX_HEAD)) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|_| (400, "unreadable request"))?;
        if n == 0 {
            return if head.is_empty() { Ok(None) } else { Err((400, "truncated request")) };
        }
        if head.is_empty() && (line == b"\r\n" || line == b"\n") {
            continue; // stray blank lines between requests
        }
        head.extend_from_slice(&line);
        if head.len() > MAX_HEAD {
            return Err((431, "request head too large"));
        }
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| (400, "request head is not UTF-8"))?;
    let mut lines = text.lines();
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let (Some(method), Some(target), Some(version)) = (first.next(), first.next(), first.next()) else {
        return Err((400, "malformed request line"));
    };
    let mut close = version == "HTTP/1.0";
    let mut length = 0u64;
    for l in lines {
        let Some((k, v)) = l.split_once(':') else { continue };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        match k.as_str() {
            "connection" if v.eq_ignore_ascii_case("close") => close = true,
            "connection" if v.eq_ignore_ascii_case("keep-alive") => close = false,
            "content-length" => length = v.parse().map_err(|_| (400, "bad Content-Length"))?,
            "transfer-encoding" => return Err((501, "chunked request bodies are not supported")),
            _ => {}
        }
    }
    if length > MAX_REPORT {
        return Err((413, "request body too large"));
    }
    let body = if length > 0 {
        let mut b = vec![0; length as usize];
        r.read_exact(&mut b).map_err(|_| (400, "truncated request body"))?;
        Some(b)
    } else {
        None
    };
    Ok(Some(Request { method: method.to_ascii_uppercase(), target: target.to_string(), close, body }))
}

fn write_reply(
    w: &mut impl Write,
    status: u16,
    content_type: &str,
    allow: Option<&str>,
    body: &[u8],
    head_only: bool,
    close: bool,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n",
        body.len()
    );
    if let Some(a) = allow {
        head.push_str(&format!("Allow: {a}\r\n"));
    }
    head.push_str(if close { "Connection: close\r\n\r\n" } else { "Connection: keep-alive\r\n\r\n" });
    w.write_all(head.as_bytes())?;
    if !head_only {
        w.write_all(body)?;
    }
    w.flush()
}

/// Answer the requests of one connection until it closes, idles out or asks to close.
fn serve_connection(state: &State, stream: std::net::TcpStream) {
    stream.set_read_timeout(Some(IDLE)).ok();
    stream.set_write_timeout(Some(IDLE)).ok();
    stream.set_nodelay(true).ok();
    let Ok(read_half) = stream.try_clone() else { return };
    let mut reader = std::io::BufReader::new(read_half);
    let mut writer = std::io::BufWriter::new(stream);
    loop {
        match read_request(&mut reader) {
            Ok(None) => return,
            Ok(Some(rq)) => {
                let reply = state.handle(&rq.method, &rq.target, rq.body.as_deref());
                let head_only = rq.method == "HEAD";
                if write_reply(
                    &mut writer,
                    reply.status,
                    reply.content_type,
                    reply.allow,
                    reply.body.as_ref(),
                    head_only,
                    rq.close,
                )
                .is_err()
                    || rq.close
                {
                    return;
                }
            }
            Err((status, why)) => {
                let msg = format!("{why}\n");
                write_reply(&mut writer, status, "text/plain; charset=utf-8", None, msg.as_bytes(), false, true).ok();
                return;
            }
        }
    }
}

/// Listen on `addr` (port 0: any free port); each connection gets its own thread (HTTP/1.1 with
/// keep-alive; idle connections close after 30 s).
pub fn start(state: Arc<State>, addr: SocketAddr) -> Result<Running> {
    let listener = std::net::TcpListener::bind(addr).map_err(|e| {
        anyhow!("cannot listen on {addr}: {e} (is another server using the port? choose another with --port)")
    })?;
    let real = listener.local_addr().map_err(|e| anyhow!("cannot listen on {addr}: {e}"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let acceptor = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let state = state.clone();
                std::thread::spawn(move || serve_connection(&state, stream));
            }
        })
    };
    let url = match real {
        SocketAddr::V4(a) => format!("http://{}:{}/", a.ip(), a.port()),
        SocketAddr::V6(a) => format!("http://[{}]:{}/", a.ip(), a.port()),
    };
    Ok(Running { url, addr: real, stop, acceptor: Some(acceptor) })
}

impl Running {
    /// Serve until the process is killed.
    pub fn wait(mut self) {
        if let Some(a) = self.acceptor.take() {
            a.join().ok();
        }
    }

    /// Stop accepting connections and join the acceptor.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept with one connection of our own.
        let _ = std::net::TcpStream::connect_timeout(&self.addr, std::time::Duration::from_secs(1));
        if let Some(a) = self.acceptor.take() {
            a.join().ok();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Serve a scene until killed: prints `listening on URL` and the catalogue, then blocks.
/// `open_hint` adds a line telling the user to open the URL.
pub fn serve_forever(scene: Scene, host: &str, port: u16, open_hint: bool) -> Result<()> {
    let addr = resolve(host, port)?;
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: --host {host} is not a loopback address: anyone who can reach this machine on port {port} can \
             read the served files"
        );
    }
    let describe = scene.describe();
    let running = start(Arc::new(State::new(scene, None)), addr)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_with_keep_alive_bodies_and_limits() {
        let mut r = std::io::Cursor::new(
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /api/bench-report HTTP/1.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".to_vec(),
        );
        let a = read_request(&mut r).unwrap().unwrap();
        assert_eq!((a.method.as_str(), a.target.as_str(), a.close, a.body.is_none()), ("GET", "/a", false, true));
        let b = read_request(&mut r).unwrap().unwrap();
        assert_eq!((b.method.as_str(), b.close, b.body.as_deref()), ("POST", true, Some(&b"{}"[..])));
        assert!(read_request(&mut r).unwrap().is_none(), "clean end");
        let old = read_request(&mut std::io::Cursor::new(b"get / HTTP/1.0\r\n\r\n".to_vec())).unwrap().unwrap();
        assert!(old.close, "HTTP/1.0 closes");
        assert_eq!(old.method, "GET");
        let bad = |t: &[u8]| read_request(&mut std::io::Cursor::new(t.to_vec())).err().map(|e| e.0);
        assert_eq!(bad(b"NONSENSE\r\n\r\n"), Some(400));
        assert_eq!(bad(b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), Some(400));
        assert_eq!(bad(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), Some(501));
        assert_eq!(bad(format!("POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", MAX_REPORT + 1).as_bytes()), Some(413));
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(bad(huge.as_bytes()), Some(431));
        assert_eq!(bad(b"GET / HTTP/1.1\r\nHost: x\r\n"), Some(400), "truncated head");
    }

    #[test]
    fn the_viewer_is_embedded() {
        for p in ["pkg/bozkir_wasm_bg.wasm", "src/tileset.js"] {
            assert!(asset(p).is_some(), "{p} is not embedded");
        }
        let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
        if web.join("index.html").exists() {
            assert!(asset("index.html").is_some());
        }
        let wasm = std::fs::read(web.join("pkg/bozkir_wasm_bg.wasm")).unwrap();
        assert_eq!(asset("pkg/bozkir_wasm_bg.wasm").unwrap(), &wasm[..]);
        for (p, _) in ASSETS {
            assert!(!p.starts_with("tests/") && !p.starts_with("dev/") && !p.contains("node_modules"), "{p}");
            assert!(!p.ends_with("package.json") && !p.split('/').any(|s| s.starts_with('.')), "{p}");
        }
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("src/a.mjs"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("pkg/x.wasm"), "application/wasm");
        assert_eq!(content_type("heights.f32"), "application/octet-stream");
        assert_eq!(content_type("tiles.splat"), "application/octet-stream");
        assert_eq!(content_type("tileset.zip"), "application/zip");
        assert_eq!(content_type("atlas.PNG"), "image/png");
    }

    #[test]
    fn paths_are_decoded_then_checked() {
        assert_eq!(clean_path("/src/main.js?v=2#x").as_deref(), Some("/src/main.js"));
        assert_eq!(clean_path("/a%20b").as_deref(), Some("/a b"));
        for bad in [
            "/../Cargo.toml",
            "/%2e%2e/Cargo.toml",
            "/data/tilesets/..%2f..%2fCargo.toml",
            "/src/%5c..",
            "/a%00b",
            "/a\\b",
            "/./x",
            "/%zz",
            "/%2",
            "/%ff",
            "x",
        ] {
            assert_eq!(clean_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn routes_answer_and_refuse() {
        let s = State::new(Scene::default(), None);
        assert_eq!(s.handle("GET", "/catalogue.json", None).status, 200);
        assert_eq!(s.handle("HEAD", "/pkg/bozkir_wasm_bg.wasm", None).content_type, "application/wasm");
        assert_eq!(s.handle("GET", "/nope", None).status, 404);
        assert_eq!(s.handle("GET", "/data/tilesets/x/tileset.json", None).status, 404);
        assert_eq!(s.handle("GET", "/%2e%2e/x", None).status, 400);
        let r = s.handle("POST", "/", Some(b"x"));
        assert_eq!((r.status, r.allow), (405, Some("GET, HEAD")));
        // The report endpoint exists only in bench mode.
        assert_eq!(s.handle("POST", "/api/bench-report", Some(b"{}")).status, 405);
        let (tx, rx) = mpsc::channel();
        let b = State::new(Scene::default(), Some(tx));
        assert_eq!(b.handle("POST", "/api/bench-report", Some(b"nope")).status, 400);
        assert_eq!(b.handle("POST", "/api/bench-report", Some(br#"{"rows": []}"#)).status, 200);
        assert_eq!(rx.try_recv().unwrap()["rows"], serde_json::json!([]));
    }
}
