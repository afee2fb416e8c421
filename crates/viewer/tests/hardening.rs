//! The server against hostile files and clients (issue 20): links that leave the served folder
//! (at scan time and swapped in after start-up), DNS rebinding (`Host`/`Origin`), `Range`,
//! streaming with bounded memory, a slowloris client and the connection cap. Every hostile file
//! is made here, in a temporary folder.

use bozkir_viewer::{start, Limits, Running, Scene, State};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The starter tileset (no atlas: small and quick) written into `dir`.
fn write_tileset(dir: &Path) {
    let p = bozkir_splat::tiling::starter::StarterParams { per_side: 4, levels: 1, atlas_res: 0, ..Default::default() };
    let (ts, ..) = bozkir_splat::tiling::starter::starter(&p);
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in bozkir_splat::formats::tileset::encode(&ts, None).unwrap() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

fn serve(dir: &Path, limits: Limits) -> (Running, String, Vec<String>) {
    let (scene, warnings) = Scene::scan(dir).unwrap();
    let running = start(Arc::new(State::new(scene, None).with_limits(limits)), "127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = running.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    (running, addr, warnings)
}

/// One raw request (`head` without the final blank line); returns (status, head, body).
fn raw(addr: &str, head: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes()).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    split(&all)
}

fn split(all: &[u8]) -> (u16, String, Vec<u8>) {
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").expect("end of head");
    let head = String::from_utf8_lossy(&all[..end]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, all[end + 4..].to_vec())
}

fn get(addr: &str, path: &str, extra: &str) -> (u16, String, Vec<u8>) {
    raw(addr, &format!("GET {path} HTTP/1.1\r\nHost: {addr}{extra}"))
}

#[cfg(unix)]
#[test]
fn links_leaving_the_served_folder_are_skipped_and_refused_also_when_swapped_after_start() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, b"root:x:0:0:secret\n").unwrap();
    let root = tmp.path().join("scene");
    write_tileset(&root.join("ground"));
    // A tileset whose tiles.splat links outside: skipped at scan time.
    write_tileset(&root.join("evil"));
    std::fs::remove_file(root.join("evil/tiles.splat")).unwrap();
    symlink(&secret, root.join("evil/tiles.splat")).unwrap();
    // A folder and a zip that link outside: skipped.
    write_tileset(&tmp.path().join("elsewhere"));
    symlink(tmp.path().join("elsewhere"), root.join("linked")).unwrap();
    symlink(&secret, root.join("packed.zip")).unwrap();
    // A link inside the served folder is followed.
    symlink(root.join("ground"), root.join("alias")).unwrap();

    let (running, addr, warnings) = serve(&root, Limits::default());
    let all = warnings.join("\n");
    for name in ["evil", "linked", "packed.zip"] {
        assert!(warnings.iter().any(|w| w.contains(name) && w.contains("outside the served folder")), "{name}: {all}");
    }
    let (st, _, body) = get(&addr, "/catalogue.json", "");
    assert_eq!(st, 200);
    let cat: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let names: Vec<&str> = cat["tilesets"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alias", "ground"]);
    assert_eq!(get(&addr, "/data/tilesets/evil/tiles.splat", "").0, 404);
    let good = std::fs::read(root.join("ground/tiles.splat")).unwrap();
    assert_eq!(get(&addr, "/data/tilesets/alias/tiles.splat", "").2, good);

    // Swapped after start-up: the file becomes a link to the secret.
    std::fs::remove_file(root.join("ground/tiles.splat")).unwrap();
    symlink(&secret, root.join("ground/tiles.splat")).unwrap();
    let (st, _, body) = get(&addr, "/data/tilesets/ground/tiles.splat", "");
    assert_eq!(st, 403, "{}", String::from_utf8_lossy(&body));
    assert!(!String::from_utf8_lossy(&body).contains("root:x"));
    assert!(!String::from_utf8_lossy(&body).contains("secret.txt"), "the client is not told the target");
    // A whole folder swapped for a link to outside.
    std::fs::remove_dir_all(root.join("ground")).unwrap();
    symlink(tmp.path().join("elsewhere"), root.join("ground")).unwrap();
    assert_eq!(get(&addr, "/data/tilesets/ground/tileset.json", "").0, 403);
    // Gone: 404.
    std::fs::remove_file(root.join("ground")).unwrap();
    assert_eq!(get(&addr, "/data/tilesets/ground/tileset.json", "").0, 404);
    // The scene's data files (what `site` writes) refuse the link too.
    write_tileset(&root.join("ground"));
    let (scene, _) = Scene::scan(&root).unwrap();
    std::fs::remove_file(root.join("ground/tileset.json")).unwrap();
    symlink(&secret, root.join("ground/tileset.json")).unwrap();
    let e = scene.data_files().unwrap_err().to_string();
    assert!(e.contains("outside the served folder"), "{e}");
    running.stop();
}

#[test]
fn a_loopback_server_refuses_other_host_and_origin_names() {
    let tmp = tempfile::tempdir().unwrap();
    let (running, addr, _) = serve(tmp.path(), Limits::default());
    let port = addr.rsplit(':').next().unwrap().to_string();
    for host in
        [addr.clone(), format!("localhost:{port}"), format!("[::1]:{port}"), "127.0.0.1".into(), "LOCALHOST".into()]
    {
        let (st, ..) = raw(&addr, &format!("GET /catalogue.json HTTP/1.1\r\nHost: {host}"));
        assert_eq!(st, 200, "{host}");
    }
    // No Host at all is not a browser: answered.
    assert_eq!(raw(&addr, "GET /catalogue.json HTTP/1.1").0, 200);
    for host in ["evil.example", &format!("evil.example:{port}"), "127.0.0.1:1", "localhost.evil.example", "[::1"] {
        let (st, _, body) = raw(&addr, &format!("GET /catalogue.json HTTP/1.1\r\nHost: {host}"));
        assert_eq!(st, 403, "{host}");
        assert!(String::from_utf8_lossy(&body).contains("loopback"), "{host}");
    }
    let ok_origin = format!("\r\nOrigin: http://localhost:{port}");
    assert_eq!(get(&addr, "/catalogue.json", &ok_origin).0, 200);
    for origin in ["http://evil.example", "null", &format!("https://127.0.0.1:{port}")] {
        assert_eq!(get(&addr, "/catalogue.json", &format!("\r\nOrigin: {origin}")).0, 403, "{origin}");
    }
    running.stop();
}

#[test]
fn ranges_give_206_and_416_and_large_files_are_streamed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("scene");
    write_tileset(&root.join("ground"));
    let (running, addr, _) = serve(&root, Limits::default());
    let path = "/data/tilesets/ground/tiles.splat";
    let whole = std::fs::read(root.join("ground/tiles.splat")).unwrap();
    let n = whole.len();
    let (st, head, body) = get(&addr, path, "");
    assert_eq!((st, body.len()), (200, n));
    assert!(head.contains("Accept-Ranges: bytes"), "{head}");

    let (st, head, body) = get(&addr, path, "\r\nRange: bytes=0-9");
    assert_eq!((st, &body[..]), (206, &whole[..10]));
    assert!(head.contains(&format!("Content-Range: bytes 0-9/{n}")) && head.contains("Content-Length: 10"), "{head}");
    let (st, head, body) = get(&addr, path, "\r\nRange: bytes=-5");
    assert_eq!((st, &body[..]), (206, &whole[n - 5..]));
    assert!(head.contains(&format!("Content-Range: bytes {}-{}/{n}", n - 5, n - 1)), "{head}");
    let (st, _, body) = get(&addr, path, "\r\nRange: bytes=10-");
    assert_eq!((st, &body[..]), (206, &whole[10..]));
    let (st, _, body) = get(&addr, path, &format!("\r\nRange: bytes=5-{}", n * 4));
    assert_eq!((st, &body[..]), (206, &whole[5..]), "an end past the file is cut to it");
    for past in [format!("bytes={n}-"), format!("bytes={}-{}", n + 10, n + 20), "bytes=-0".into()] {
        let (st, head, _) = get(&addr, path, &format!("\r\nRange: {past}"));
        assert_eq!(st, 416, "{past}");
        assert!(head.contains(&format!("Content-Range: bytes */{n}")), "{head}");
    }
    // Several ranges, another unit, nonsense: the whole file.
    for whole_range in ["bytes=0-1,4-5", "items=0-1", "bytes=x-y", "bytes=9-3"] {
        let (st, _, body) = get(&addr, path, &format!("\r\nRange: {whole_range}"));
        assert_eq!((st, body.len()), (200, n), "{whole_range}");
    }
    // In-memory bodies take ranges too.
    let (st, _, body) = get(&addr, "/catalogue.json", "\r\nRange: bytes=0-0");
    assert_eq!((st, &body[..]), (206, &b"{"[..]));

    // A 64 MiB (sparse) file swapped in after start-up is streamed: bytes written near its end
    // after the answer began are the ones sent, so the server had not read the file up front.
    let big = 64u64 << 20;
    let f = std::fs::OpenOptions::new().write(true).open(root.join("ground/tiles.splat")).unwrap();
    f.set_len(big).unwrap();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes()).unwrap();
    let mut first = vec![0u8; 1 << 20];
    s.read_exact(&mut first).unwrap();
    let (st, head, _) = split(&first);
    assert_eq!(st, 200);
    assert!(head.contains(&format!("Content-Length: {big}")), "{head}");
    let marker = b"written after the answer began";
    let at = big - 4096;
    std::os::unix::fs::FileExt::write_all_at(&f, marker, at).unwrap();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    let mut all = first;
    all.extend_from_slice(&rest);
    let (_, _, body) = split(&all);
    assert_eq!(body.len() as u64, big);
    assert_eq!(&body[at as usize..at as usize + marker.len()], marker);
    assert_eq!(&body[..whole.len()], &whole[..]);
    let (st, _, body) = get(&addr, path, &format!("\r\nRange: bytes={at}-{}", at + marker.len() as u64 - 1));
    assert_eq!((st, &body[..]), (206, &marker[..]));
    running.stop();
}

#[test]
fn a_slowloris_client_is_cut_at_the_head_deadline_and_idle_connections_at_the_idle_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let limits =
        Limits { head_deadline: Duration::from_millis(400), idle: Duration::from_millis(400), ..Limits::default() };
    let (running, addr, _) = serve(tmp.path(), limits);
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    let t0 = Instant::now();
    // One byte every 100 ms of a head that never ends: each read gets a byte well within any
    // per-read timeout, but the whole head has 400 ms. Stop once the server answers.
    let mut peek = [0u8; 1];
    for b in b"GET / HTTP/1.1\r\nX-Slow: ".iter().chain([b'a'; 100].iter()) {
        if s.peek(&mut peek).is_ok() || s.write_all(&[*b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let took = t0.elapsed();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).unwrap();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(took >= Duration::from_millis(400), "cut early: {took:?}");
    let (st, _, body) = split(&reply);
    assert_eq!(st, 408, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("0.4 s for the head"), "{}", String::from_utf8_lossy(&body));
    // A connection that sends nothing is cut at the same deadline.
    let mut idle = TcpStream::connect(&addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t0 = Instant::now();
    let mut reply = Vec::new();
    idle.read_to_end(&mut reply).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(2), "took {:?}", t0.elapsed());
    assert_eq!(split(&reply).0, 408);
    // A keep-alive connection idle after its answer is closed at the idle limit.
    let mut ka = TcpStream::connect(&addr).unwrap();
    ka.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    ka.write_all(format!("GET /catalogue.json HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let t0 = Instant::now();
    let mut all = Vec::new();
    ka.read_to_end(&mut all).unwrap();
    assert_eq!(split(&all).0, 200);
    assert!(t0.elapsed() < Duration::from_secs(2), "idle for {:?}", t0.elapsed());
    // Other clients are served meanwhile and after.
    assert_eq!(get(&addr, "/catalogue.json", "").0, 200);
    running.stop();
}

#[test]
fn connections_over_the_cap_get_503_and_a_freed_slot_is_reused() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = Limits { max_connections: 2, ..Limits::default() };
    let (running, addr, _) = serve(tmp.path(), limits);
    let a = TcpStream::connect(&addr).unwrap();
    let b = TcpStream::connect(&addr).unwrap();
    let (st, head, body) = raw(&addr, "GET /catalogue.json HTTP/1.1");
    assert_eq!(st, 503, "{head}");
    assert!(head.contains("Retry-After: 1"));
    assert!(String::from_utf8_lossy(&body).contains("2 connections"), "{}", String::from_utf8_lossy(&body));
    drop((a, b));
    // The slots free as the server sees the two close.
    let t0 = Instant::now();
    loop {
        let st = get(&addr, "/catalogue.json", "").0;
        if st == 200 {
            break;
        }
        assert_eq!(st, 503);
        assert!(t0.elapsed() < Duration::from_secs(5), "the slots were not freed");
        std::thread::sleep(Duration::from_millis(20));
    }
    running.stop();
}
