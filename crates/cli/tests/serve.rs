//! The viewer's server, site and demo scene, through the built binary: routes, content types,
//! data conversion, refusals, and what `site` and `demo --no-serve` write.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bozkir"));
    c.arg("--quiet");
    c
}

fn bozkir(args: &[&str]) -> Output {
    bin().args(args).output().expect("run bozkir")
}

fn ok(args: &[&str]) -> Output {
    let o = bozkir(args);
    assert!(o.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    o
}

fn web(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web").join(rel)
}

/// A `bozkir serve` child, killed and reaped when dropped.
struct Server {
    child: Child,
    host: String,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = bin()
            .args(["serve", dir.to_str().unwrap(), "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start bozkir serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("read the URL line");
        // Keep reading stdout in the background so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            out.read_to_string(&mut sink).ok();
        });
        let mut server = Server { child, host: String::new() };
        let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {line:?}"));
        let host = url.strip_prefix("http://").and_then(|u| u.strip_suffix('/')).expect("http://HOST:PORT/");
        assert!(host.starts_with("127.0.0.1:") && !host.ends_with(":0"), "{url}");
        server.host = host.to_string();
        server
    }

    /// One raw HTTP/1.1 request; returns (status, headers lower-cased, body).
    fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let mut s = TcpStream::connect(&self.host).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            self.host,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read the response");
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("end of headers");
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        (status, headers, raw[split + 4..].to_vec())
    }

    fn get(&self, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
        self.request("GET", path, b"")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn header<'a>(h: &'a [(String, String)], k: &str) -> &'a str {
    h.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("no {k} header in {h:?}"))
}

/// The starter tileset written through the library (no atlas: small and quick).
fn write_tileset(dir: &Path) {
    let p = bozkir_splat::tiling::starter::StarterParams { per_side: 8, levels: 2, atlas_res: 0, ..Default::default() };
    let (ts, ..) = bozkir_splat::tiling::starter::starter(&p);
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in bozkir_splat::formats::tileset::encode(&ts, None).unwrap() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// A scene folder: a tileset, a terrain, and a broken tileset that is skipped.
fn scene(root: &Path) -> PathBuf {
    let dir = root.join("scene");
    write_tileset(&dir.join("ground"));
    ok(&["terrain", "--size", "32", "--seed", "2", "--out", dir.join("hills").to_str().unwrap()]);
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(dir.join("broken/tileset.json"), "{").unwrap();
    dir
}

#[test]
fn serve_answers_every_route_and_refuses_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = scene(tmp.path());
    let srv = Server::start(&dir);

    let (st, h, body) = srv.get("/");
    assert_eq!(st, 200);
    assert!(header(&h, "content-type").starts_with("text/html"));
    assert_eq!(header(&h, "content-length"), body.len().to_string());
    assert_eq!(header(&h, "cache-control"), "no-cache");
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");

    let (st, h, body) = srv.get("/pkg/bozkir_wasm_bg.wasm");
    assert_eq!(st, 200);
    assert_eq!(header(&h, "content-type"), "application/wasm");
    assert_eq!(header(&h, "content-length"), body.len().to_string());
    // The binary embeds web/ as it was at build time; the test binary is built in the same run.
    assert_eq!(body, std::fs::read(web("pkg/bozkir_wasm_bg.wasm")).unwrap());

    let (st, h, body) = srv.request("HEAD", "/src/tileset.js", b"");
    assert_eq!((st, header(&h, "content-type")), (200, "text/javascript; charset=utf-8"));
    assert!(body.is_empty());
    assert_eq!(header(&h, "content-length"), std::fs::metadata(web("src/tileset.js")).unwrap().len().to_string());

    let (st, h, body) = srv.get("/catalogue.json");
    assert_eq!((st, header(&h, "content-type")), (200, "application/json"));
    let cat: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(cat["format_version"], 1);
    let ts = &cat["tilesets"];
    assert_eq!(ts.as_array().unwrap().len(), 1, "{cat}");
    assert_eq!(ts[0]["name"], "ground");
    assert_eq!(ts[0]["path"], "data/tilesets/ground/");
    assert_eq!(ts[0]["tiles"], 32);
    assert_eq!(ts[0]["classes"], serde_json::json!(["sand", "scrub"]));
    assert_eq!((ts[0]["atlas"].as_bool(), ts[0]["zip"].as_bool()), (Some(false), Some(false)));
    let tr = &cat["terrains"][0];
    assert_eq!((tr["name"].as_str(), tr["width"].as_u64(), tr["height"].as_u64()), (Some("hills"), Some(32), Some(32)));
    assert_eq!((tr["cell_size_m"].as_f64(), tr["sediment"].as_bool()), (Some(10.0), Some(true)));
    assert_eq!(cat["default"], serde_json::json!({"tileset": "ground", "terrain": "hills"}));

    // Tileset files are the ones on disk.
    for f in ["tileset.json", "tiles.splat"] {
        let (st, _, body) = srv.get(&format!("/data/tilesets/ground/{f}"));
        assert_eq!(st, 200, "{f}");
        assert_eq!(body, std::fs::read(dir.join("ground").join(f)).unwrap(), "{f}");
    }
    assert_eq!(srv.get("/data/tilesets/ground/tiles.ply").0, 404);
    assert_eq!(srv.get("/data/tilesets/ground/atlas.png").0, 404);
    assert_eq!(srv.get("/data/tilesets/broken/tileset.json").0, 404);

    // Heights: width · height little-endian f32, equal to height.tif.
    let (st, h, body) = srv.get("/data/terrains/hills/heights.f32");
    assert_eq!((st, header(&h, "content-type")), (200, "application/octet-stream"));
    assert_eq!(body.len(), 32 * 32 * 4);
    let tif = bozkir_io::read_tiff_f32(dir.join("hills/height.tif")).unwrap();
    let got: Vec<f32> = body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, tif.data());
    let (st, _, body) = srv.get("/data/terrains/hills/sediment.f32");
    assert_eq!((st, body.len()), (200, 32 * 32 * 4));
    let sed: Vec<f32> = body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert!(sed.iter().all(|v| (0.0..=1.0).contains(v)));
    let (_, _, body) = srv.get("/data/terrains/hills/terrain.json");
    let tj: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (tj["width"].as_u64(), tj["height"].as_u64(), tj["cell_size_m"].as_f64()),
        (Some(32), Some(32), Some(10.0))
    );
    assert!(tj["height_range_m"].as_f64().unwrap() > 0.0 && tj["source"].is_string());
    assert_eq!(srv.get("/data/terrains/hills/height.tif").0, 404);

    // Traversal and odd paths are refused before anything is looked up.
    for bad in ["/../Cargo.toml", "/%2e%2e/Cargo.toml", "/data/tilesets/..%2f..%2fCargo.toml", "/src/%5c..", "/a%00"] {
        assert_eq!(srv.get(bad).0, 400, "{bad}");
    }
    for missing in
        ["/nope", "/src/", "/data/terrains/nope/heights.f32", "/data/tilesets/ground", "/tests/unit/helpers.mjs"]
    {
        assert_eq!(srv.get(missing).0, 404, "{missing}");
    }
    let (st, h, _) = srv.request("POST", "/", b"x");
    assert_eq!((st, header(&h, "allow")), (405, "GET, HEAD"));
    assert_eq!(srv.request("PUT", "/catalogue.json", b"x").0, 405);
    assert_eq!(srv.request("POST", "/api/bench-report", b"{\"rows\":[]}").0, 405);
}

#[test]
fn serve_takes_a_single_tileset_folder_and_a_zip() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("solo");
    write_tileset(&one);
    let srv = Server::start(&one);
    let cat: serde_json::Value = serde_json::from_slice(&srv.get("/catalogue.json").2).unwrap();
    assert_eq!(cat["tilesets"][0]["name"], "solo");
    assert_eq!(cat["terrains"], serde_json::json!([]));
    assert_eq!(cat["default"]["terrain"], serde_json::Value::Null);
    drop(srv);

    let zdir = tmp.path().join("zips");
    std::fs::create_dir_all(&zdir).unwrap();
    let files: Vec<(String, Vec<u8>)> = ["tileset.json", "tiles.splat", "tiles.ply"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(one.join(f)).unwrap()))
        .collect();
    let z = bozkir_splat::formats::tileset::zip_bytes(&files).unwrap();
    std::fs::write(zdir.join("packed.zip"), &z).unwrap();
    std::fs::write(zdir.join("other.zip"), b"not a zip").unwrap();
    let srv = Server::start(&zdir);
    let cat: serde_json::Value = serde_json::from_slice(&srv.get("/catalogue.json").2).unwrap();
    assert_eq!(cat["tilesets"].as_array().unwrap().len(), 1, "{cat}");
    assert_eq!(
        (cat["tilesets"][0]["name"].as_str(), cat["tilesets"][0]["zip"].as_bool()),
        (Some("packed"), Some(true))
    );
    let (st, h, body) = srv.get("/data/tilesets/packed/tileset.zip");
    assert_eq!((st, header(&h, "content-type")), (200, "application/zip"));
    assert_eq!(body, z);
    assert_eq!(srv.get("/data/tilesets/packed/tileset.json").0, 404);
}

#[test]
fn serve_refuses_a_missing_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let o = bozkir(&["serve", tmp.path().join("nope").to_str().unwrap(), "--port", "0"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such folder"));
}

#[test]
fn site_writes_the_viewer_and_the_data_and_keeps_a_non_empty_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = scene(tmp.path());
    let out = tmp.path().join("site");
    let o = ok(&["site", "--out", out.to_str().unwrap(), "--data", dir.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("wrote"));
    assert!(out.join("pkg/bozkir_wasm_bg.wasm").is_file());
    if web("index.html").exists() {
        assert!(out.join("index.html").is_file());
    }
    let cat: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("catalogue.json")).unwrap()).unwrap();
    assert_eq!(cat["tilesets"][0]["path"], "data/tilesets/ground/");
    for f in
        ["data/tilesets/ground/tileset.json", "data/tilesets/ground/tiles.splat", "data/terrains/hills/terrain.json"]
    {
        assert!(out.join(f).is_file(), "{f}");
    }
    assert_eq!(std::fs::metadata(out.join("data/terrains/hills/heights.f32")).unwrap().len(), 32 * 32 * 4);
    assert!(!out.join("tests").exists() && !out.join("dev").exists() && !out.join("package.json").exists());
    // No staging folder is left beside it.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".bozkir"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // A non-empty folder is refused and left alone; --force replaces it.
    std::fs::write(out.join("mine.txt"), "keep").unwrap();
    let o = bozkir(&["site", "--out", out.to_str().unwrap(), "--data", dir.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert!(out.join("mine.txt").exists());
    ok(&["site", "--out", out.to_str().unwrap(), "--data", dir.to_str().unwrap(), "--force"]);
    assert!(!out.join("mine.txt").exists());
    assert!(out.join("catalogue.json").is_file());
}

#[test]
fn demo_no_serve_writes_the_scene_with_real_ground() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("demo");
    let o = ok(&["demo", "--no-serve", "--size", "32", "--out", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("bozkir serve"));
    for f in ["terrain-canyon/height.tif", "terrain-canyon/terrain.json", "terrain-canyon/preview.png"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // The same 5.12 km canyon at any size: 160 m cells at 32².
    let sc = bozkir_io::read_sidecar(out.join("terrain-canyon/terrain.json")).unwrap();
    assert_eq!((sc.width, sc.dx_m, sc.dy_m), (32, 160.0, 160.0));
    for f in ["tileset.json", "tiles.splat", "atlas.png"] {
        assert!(out.join("tileset-starter").join(f).is_file(), "{f}");
    }
    // The demo terrain is baked for the viewer's mesh mode: textures at 2 texels per cell.
    for f in ["terrain-canyon/albedo.png", "terrain-canyon/normal.png"] {
        let img = bozkir_io::read_rgb8(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!((img.width(), img.height()), (64, 64), "{f}");
    }
    // Real ground: grass and gravel photos as two classes, the RMNP orthophoto over its DEM as
    // one, made from the images the scene carries in sources/; the ground tileset is the default.
    for f in ["grass.png", "gravel.png", "rmnp-rgb.tif", "rmnp-dem.tif", "README.md"] {
        assert!(out.join("sources").join(f).is_file(), "{f}");
    }
    let ground = bozkir_splat::formats::tileset::read(&out.join("tileset-ground")).unwrap();
    assert_eq!(ground.manifest.classes, ["grass", "gravel"]);
    assert_eq!(ground.manifest.tiles.len(), 16);
    assert_eq!(ground.manifest.verdict.as_ref().unwrap()["verdict"], "good", "{:?}", ground.manifest.warnings);
    let rmnp = bozkir_splat::formats::tileset::read(&out.join("tileset-rmnp")).unwrap();
    assert_eq!(rmnp.manifest.classes, ["ground"]);
    assert_eq!(rmnp.manifest.verdict.as_ref().unwrap()["verdict"], "good", "{:?}", rmnp.manifest.warnings);
    // Grass is greener than gravel (the tints), gravel lighter.
    let mean = |ts: &bozkir_splat::tiling::tileset::Tileset, class: u8| {
        let (mut sum, mut n) = ([0.0f64; 3], 0.0);
        for t in ts.manifest.tiles.iter().filter(|t| t.class == class) {
            let [start, count] = t.levels[0];
            for i in start..start + count {
                let c = ts.splats.base_rgb(i as usize);
                (0..3).for_each(|k| sum[k] += f64::from(c[k]));
                n += 1.0;
            }
        }
        sum.map(|v| v / n)
    };
    let (g, v) = (mean(&ground, 0u8), mean(&ground, 1u8));
    assert!(g[1] > g[0] && g[1] > g[2], "grass {g:?}");
    assert!(v.iter().sum::<f64>() > g.iter().sum::<f64>(), "gravel {v:?} vs grass {g:?}");
    let cat = bozkir_viewer::catalogue::Scene::scan(&out).unwrap().0.catalogue();
    assert_eq!(cat["default"]["tileset"], "tileset-ground");
    let ts = bozkir_splat::formats::tileset::read(&out.join("tileset-starter")).unwrap();
    assert_eq!(ts.manifest.classes, ["sand", "scrub"]);
    assert!(ts.manifest.atlas.is_some());
    let bytes: u64 =
        std::fs::read_dir(out.join("tileset-starter")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    assert!(bytes < 8 << 20, "the starter tileset takes {bytes} bytes");
}

#[test]
fn baked_textures_are_served_and_flagged_in_the_catalogue() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scene");
    let (plain, baked) = (dir.join("plain"), dir.join("baked"));
    ok(&["terrain", "--size", "32", "--seed", "2", "--out", plain.to_str().unwrap()]);
    ok(&["terrain", "--recipe", "hills", "--size", "24", "--out", baked.to_str().unwrap()]);
    ok(&["bake", baked.to_str().unwrap(), "--scale", "2"]);
    // A terrain whose channels drain enough to be rivers when baked.
    let wet = dir.join("wet");
    ok(&["terrain", "--size", "33", "--seed", "5", "--out", wet.to_str().unwrap()]);
    ok(&["bake", wet.to_str().unwrap(), "--scale", "1"]);
    let srv = Server::start(&dir);
    let cat: serde_json::Value = serde_json::from_slice(&srv.get("/catalogue.json").2).unwrap();
    let entry = |name: &str| cat["terrains"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    let (b, p) = (entry("baked"), entry("plain"));
    assert_eq!((b["albedo"].as_bool(), b["normal"].as_bool()), (Some(true), Some(true)), "{b}");
    assert_eq!(b["recipe"], "hills", "{b}");
    assert_eq!((p["albedo"].as_bool(), p["normal"].as_bool()), (Some(false), Some(false)), "{p}");
    assert!(p.get("recipe").is_none(), "{p}");
    assert_eq!((b["materials"].as_bool(), p["materials"].as_bool()), (Some(true), Some(false)), "{b}");
    for f in ["albedo.png", "normal.png", "materials.png"] {
        let (st, h, body) = srv.get(&format!("/data/terrains/baked/{f}"));
        assert_eq!((st, header(&h, "content-type")), (200, "image/png"), "{f}");
        assert_eq!(body, std::fs::read(baked.join(f)).unwrap(), "{f}");
        assert_eq!(srv.get(&format!("/data/terrains/plain/{f}")).0, 404, "{f}");
    }
    // The bake's surface water (rivers here) is served as float32 depths, one per cell; a
    // bake without any (the small hills) and no bake at all have none.
    let w = entry("wet");
    assert_eq!(
        (w["water"].as_bool(), b["water"].as_bool(), p["water"].as_bool()),
        (Some(true), Some(false), Some(false))
    );
    let (st, _, body) = srv.get("/data/terrains/wet/water.f32");
    assert_eq!(st, 200);
    let depths: Vec<f32> = body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let tif = bozkir_io::read_tiff_f32(wet.join("water.tif")).unwrap();
    assert_eq!(depths, tif.data());
    assert!(depths.iter().any(|&d| d > 0.0));
    assert_eq!(srv.get("/data/terrains/plain/water.f32").0, 404);
    // Its rivers as lines (rivers.png, as baked) and no lakes (a filled terrain): the mesh look
    // draws the lines and stands no water surface.
    assert_eq!((w["rivers"].as_bool(), w["lakes"].as_bool()), (Some(true), Some(false)), "{w}");
    let (st, h, body) = srv.get("/data/terrains/wet/rivers.png");
    assert_eq!((st, header(&h, "content-type")), (200, "image/png"));
    assert_eq!(body, std::fs::read(wet.join("rivers.png")).unwrap());
    assert_eq!(srv.get("/data/terrains/wet/lakes.f32").0, 404);
    drop(srv);

    // `site` writes them too.
    let out = tmp.path().join("site");
    ok(&["site", "--out", out.to_str().unwrap(), "--data", dir.to_str().unwrap()]);
    for f in ["albedo.png", "normal.png"] {
        assert_eq!(
            std::fs::read(out.join("data/terrains/baked").join(f)).unwrap(),
            std::fs::read(baked.join(f)).unwrap()
        );
        assert!(!out.join("data/terrains/plain").join(f).exists());
    }
    let cat: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("catalogue.json")).unwrap()).unwrap();
    assert!(cat["terrains"].as_array().unwrap().iter().any(|t| t["name"] == "baked" && t["albedo"] == true));
}

/// A recipe's lateral fold (`fold_east.tif`, `fold_south.tif`, from ds2's `fold` stage) is
/// served as one `fold.f32` of (east, south) pairs per cell, flagged `fold` in the catalogue; a
/// terrain without it has none.
#[test]
fn the_lateral_fold_is_served_for_the_mesh_look() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scene");
    let (folded, plain) = (dir.join("folded"), dir.join("plain"));
    ok(&["terrain", "--recipe", "ds2", "--size", "128", "--out", folded.to_str().unwrap()]);
    ok(&["terrain", "--size", "17", "--seed", "2", "--out", plain.to_str().unwrap()]);
    let srv = Server::start(&dir);
    let cat: serde_json::Value = serde_json::from_slice(&srv.get("/catalogue.json").2).unwrap();
    let entry = |name: &str| cat["terrains"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!((entry("folded")["fold"].as_bool(), entry("plain")["fold"].as_bool()), (Some(true), Some(false)));
    let (st, _, body) = srv.get("/data/terrains/folded/fold.f32");
    assert_eq!(st, 200);
    let v: Vec<f32> = body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let east = bozkir_io::read_tiff_f32(folded.join("fold_east.tif")).unwrap();
    let south = bozkir_io::read_tiff_f32(folded.join("fold_south.tif")).unwrap();
    assert_eq!(v.len(), 2 * east.len());
    let pairs: Vec<f32> = east.data().iter().zip(south.data()).flat_map(|(&a, &b)| [a, b]).collect();
    assert_eq!(v, pairs);
    assert!(v.iter().any(|&x| x.abs() > 0.1), "the fold moves something");
    assert_eq!(srv.get("/data/terrains/plain/fold.f32").0, 404);
}

/// Issue 20, finding 3: links that leave the served folder are skipped by `serve` and `site`
/// (with a warning), refused when swapped in after start-up, and a loopback server refuses a
/// foreign `Host` (DNS rebinding).
#[cfg(unix)]
#[test]
fn links_out_of_the_folder_and_foreign_hosts_are_refused() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("passwd");
    std::fs::write(&secret, "root:x:0:0:root:/root:/bin/sh\n").unwrap();
    let dir = tmp.path().join("scene");
    write_tileset(&dir.join("ground"));
    write_tileset(&dir.join("evil"));
    std::fs::remove_file(dir.join("evil/tiles.splat")).unwrap();
    symlink(&secret, dir.join("evil/tiles.splat")).unwrap();

    // site: the linked tileset is skipped with a warning; nothing of the target is copied.
    let out = tmp.path().join("site");
    let o = ok(&["site", "--out", out.to_str().unwrap(), "--data", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("evil") && err.contains("outside the served folder"), "{err}");
    assert!(!out.join("data/tilesets/evil").exists());
    assert!(out.join("data/tilesets/ground/tiles.splat").is_file());

    let srv = Server::start(&dir);
    let cat: serde_json::Value = serde_json::from_slice(&srv.get("/catalogue.json").2).unwrap();
    assert_eq!(cat["tilesets"].as_array().unwrap().len(), 1, "{cat}");
    assert_eq!(srv.get("/data/tilesets/evil/tiles.splat").0, 404);
    // Swapped after start-up.
    std::fs::remove_file(dir.join("ground/tiles.splat")).unwrap();
    symlink(&secret, dir.join("ground/tiles.splat")).unwrap();
    let (st, _, body) = srv.get("/data/tilesets/ground/tiles.splat");
    assert_eq!(st, 403);
    assert!(!String::from_utf8_lossy(&body).contains("root:x"));

    // A page of another site whose name now points at 127.0.0.1 sends its own Host.
    let mut s = TcpStream::connect(&srv.host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(b"GET /catalogue.json HTTP/1.1\r\nHost: rebind.example:8737\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 403 "), "{raw}");
    let (st, h, body) = srv.request("GET", "/data/tilesets/evil/../ground/tileset.json", b"");
    assert_eq!(st, 400, "{h:?} {body:?}");
}

/// Issue 20, findings 8 and 9 through the binary: ranges of a data file, and `Accept-Ranges`.
#[test]
fn serve_answers_ranges() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scene");
    write_tileset(&dir.join("ground"));
    let srv = Server::start(&dir);
    let whole = std::fs::read(dir.join("ground/tiles.splat")).unwrap();
    let n = whole.len();
    let mut s = TcpStream::connect(&srv.host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "GET /data/tilesets/ground/tiles.splat HTTP/1.1\r\nHost: {}\r\nRange: bytes=-16\r\nConnection: close\r\n\r\n",
        srv.host
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let h = String::from_utf8_lossy(&raw[..split]);
    assert!(h.starts_with("HTTP/1.1 206 "), "{h}");
    assert!(h.contains(&format!("Content-Range: bytes {}-{}/{n}", n - 16, n - 1)), "{h}");
    assert_eq!(&raw[split + 4..], &whole[n - 16..]);
    let (st, h, _) = srv.get("/data/tilesets/ground/tiles.splat");
    assert_eq!((st, header(&h, "accept-ranges")), (200, "bytes"));
}

#[test]
fn an_analyze_folder_is_a_terrain_with_its_orthophoto_albedo() {
    // `analyze` names its height GeoTIFF dem.tif in terrain.json; the catalogue follows it, and a
    // bake with --albedo-from gives the viewer the place's own image as the albedo.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let r = data.join("rmnp");
    let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem/rmnp-dem.tif");
    let rgb = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem/rmnp-rgb.tif");
    ok(&["analyze", dem.to_str().unwrap(), "--out", r.to_str().unwrap()]);
    ok(&["bake", r.to_str().unwrap(), "--albedo-from", rgb.to_str().unwrap()]);
    assert!(!r.join("height.tif").exists(), "the folder holds dem.tif, not height.tif");
    let out = tmp.path().join("site");
    ok(&["site", "--out", out.to_str().unwrap(), "--data", data.to_str().unwrap()]);
    let cat: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("catalogue.json")).unwrap()).unwrap();
    let t = cat["terrains"].as_array().unwrap().iter().find(|t| t["name"] == "rmnp").expect("rmnp listed");
    assert_eq!((t["width"].as_u64(), t["height"].as_u64(), t["albedo"].as_bool()), (Some(152), Some(187), Some(true)));
    assert_eq!(std::fs::metadata(out.join("data/terrains/rmnp/heights.f32")).unwrap().len(), 152 * 187 * 4);
    // Its lakes (Grand Lake, Shadow Mountain Lake…) as their own layer beside the rivers' lines.
    assert_eq!((t["lakes"].as_bool(), t["rivers"].as_bool()), (Some(true), Some(true)), "{t}");
    let lakes = std::fs::read(out.join("data/terrains/rmnp/lakes.f32")).unwrap();
    let lakes: Vec<f32> = lakes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(lakes, bozkir_io::read_tiff_f32(r.join("lakes.tif")).unwrap().data());
    let wet = lakes.iter().filter(|&&d| d > 0.0).count();
    assert!((20..2000).contains(&wet), "{wet} lake cells");
}
