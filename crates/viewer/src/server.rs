//! A small HTTP/1.1 server for a [`Scene`]: the embedded page, `catalogue.json`, the scene's
//! data files under `data/`, and in bench mode `POST /api/bench-report`. Each connection gets its
//! own thread; requests are parsed with limits on the head and the body.

use crate::assets::{asset, content_type};
use crate::catalogue::{Body, Scene};
use crate::error::{report, Result, ViewerError};
use std::io::{BufRead, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

/// Largest `POST /api/bench-report` body accepted (bytes).
const MAX_REPORT: u64 = 4 << 20;

/// One answer of [`State::handle`].
#[derive(Debug)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` header.
    pub content_type: &'static str,
    /// The body (also what a HEAD's `Content-Length` counts).
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
    /// What is served under `data/`.
    pub scene: Scene,
    catalogue: Arc<[u8]>,
    bench: Option<Mutex<mpsc::Sender<serde_json::Value>>>,
}

impl State {
    /// Serve `scene`; with `bench`, `POST /api/bench-report` accepts a JSON report with a `rows`
    /// array and sends it there (bench mode), otherwise that path is refused like any POST.
    pub fn new(scene: Scene, bench: Option<mpsc::Sender<serde_json::Value>>) -> State {
        let catalogue = (serde_json::to_string_pretty(&scene.catalogue()).expect("JSON") + "\n").into_bytes().into();
        State { scene, catalogue, bench: bench.map(Mutex::new) }
    }

    /// `catalogue.json` as served (pretty-printed, with a final newline).
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
        self.route(rel)
    }

    /// A GET of `rel` (the path without its leading `/`): a scene's data file or an embedded
    /// asset.
    fn route(&self, rel: &str) -> Reply {
        let ok = |ct: &'static str, body: Body| Reply { status: 200, content_type: ct, body, allow: None };
        let seg: Vec<&str> = rel.split('/').collect();
        match seg.as_slice() {
            ["data", "tilesets", name, file] => {
                let Some(t) = self.scene.tilesets.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such tileset");
                };
                match t.read(file) {
                    Some(Ok(b)) => ok(content_type(file), Body::Owned(b)),
                    Some(Err(e)) => Reply::text(500, &report(&e)),
                    None => Reply::text(404, "no such tileset file"),
                }
            }
            ["data", "terrains", name, file] => {
                let Some(t) = self.scene.terrains.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such terrain");
                };
                match t.read(file) {
                    Some(Ok(b)) => ok(content_type(file), b),
                    Some(Err(e)) => Reply::text(500, &report(&e)),
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
        .map_err(ViewerError::io(format!("--host {host}: not an address or a name this machine resolves")))?
        .next()
        .ok_or_else(|| ViewerError::Invalid(format!("--host {host}: resolves to no address")))
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
///
/// # Examples
///
/// ```
/// use bozkir_viewer::{start, Scene, State};
/// use std::io::{Read, Write};
/// use std::sync::Arc;
///
/// let state = Arc::new(State::new(Scene::default(), None));
/// let running = start(state, "127.0.0.1:0".parse().unwrap()).unwrap();
/// let addr = running.url.trim_start_matches("http://").trim_end_matches('/');
/// let mut c = std::net::TcpStream::connect(addr).unwrap();
/// c.write_all(b"GET /catalogue.json HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
/// let mut reply = String::new();
/// c.read_to_string(&mut reply).unwrap();
/// assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"));
/// running.stop();
/// ```
pub fn start(state: Arc<State>, addr: SocketAddr) -> Result<Running> {
    let listener = std::net::TcpListener::bind(addr).map_err(|error| ViewerError::Listen { addr, error })?;
    let real = listener.local_addr().map_err(|e| ViewerError::Invalid(format!("cannot listen on {addr}: {e}")))?;
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
