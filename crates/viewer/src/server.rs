//! A small HTTP/1.1 server for a [`Scene`]: the embedded page, `catalogue.json`, the scene's
//! data files under `data/`, and in bench mode `POST /api/bench-report`. Each connection gets its
//! own thread; requests are parsed with limits on the head and the body.

use crate::assets::{asset, content_type};
use crate::catalogue::{Body, Scene};
use crate::error::{report, Result, ViewerError};
use std::io::{BufRead, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

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

/// The answer to a data file that cannot be opened: 403 for a name that now resolves outside the
/// served folder (a link swapped in after start-up), 404 for one that is gone, 500 otherwise.
fn failed(e: &ViewerError) -> Reply {
    let status = match e {
        ViewerError::Outside { .. } => 403,
        ViewerError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => 404,
        _ => 500,
    };
    if status == 403 {
        // The client is not told where the link points.
        return Reply::text(403, "this file links outside the served folder; it is not served");
    }
    Reply::text(status, &report(e))
}

/// The server's state: the scene, its catalogue, and in bench mode where reports go.
pub struct State {
    /// What is served under `data/`.
    pub scene: Scene,
    catalogue: Arc<[u8]>,
    bench: Option<Mutex<mpsc::Sender<serde_json::Value>>>,
    limits: Limits,
}

impl State {
    /// Serve `scene`; with `bench`, `POST /api/bench-report` accepts a JSON report with a `rows`
    /// array and sends it there (bench mode), otherwise that path is refused like any POST.
    pub fn new(scene: Scene, bench: Option<mpsc::Sender<serde_json::Value>>) -> State {
        let catalogue = (serde_json::to_string_pretty(&scene.catalogue()).expect("JSON") + "\n").into_bytes().into();
        State { scene, catalogue, bench: bench.map(Mutex::new), limits: Limits::default() }
    }

    /// The same state served within other [`Limits`] (the defaults are the documented
    /// constants).
    pub fn with_limits(mut self, limits: Limits) -> State {
        self.limits = limits;
        self
    }

    /// The limits [`start`] serves it within.
    pub fn limits(&self) -> Limits {
        self.limits
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
                    Some(Ok(b)) => ok(content_type(file), b),
                    Some(Err(e)) => failed(&e),
                    None => Reply::text(404, "no such tileset file"),
                }
            }
            ["data", "terrains", name, file] => {
                let Some(t) = self.scene.terrains.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such terrain");
                };
                match t.read(file) {
                    Some(Ok(b)) => ok(content_type(file), b),
                    Some(Err(e)) => failed(&e),
                    None => Reply::text(404, "no such terrain file"),
                }
            }
            ["data", "stores", name, rest @ ..] => {
                let Some(t) = self.scene.stores.iter().find(|t| t.name == *name) else {
                    return Reply::text(404, "no such store");
                };
                match rest {
                    ["meta.json"] => match t.meta() {
                        Ok(m) => ok("application/json", Body::Owned(serde_json::to_vec(&m).expect("JSON"))),
                        Err(e) => Reply::text(500, &report(&e)),
                    },
                    [l, x, y] => {
                        let num = |s: &str| s.parse::<usize>().ok().filter(|_| s.bytes().all(|b| b.is_ascii_digit()));
                        let (Some(l), Some(x), Some(y)) = (num(l), num(x), y.strip_suffix(".f32").and_then(num)) else {
                            return Reply::text(400, "a node is data/stores/NAME/LEVEL/X/Y.f32");
                        };
                        match t.node(l.min(u32::MAX as usize) as u32, x, y) {
                            Ok(Some(h)) => ok(
                                "application/octet-stream",
                                Body::Owned(h.iter().flat_map(|v| v.to_le_bytes()).collect()),
                            ),
                            Ok(None) => Reply::text(404, "no such node"),
                            Err(e) => Reply::text(500, &report(&e)),
                        }
                    }
                    _ => Reply::text(404, "no such store file"),
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

/// Most connections served at once ([`Limits::max_connections`]); one more is answered 503 and
/// closed. Each open connection costs one thread and one descriptor.
pub const MAX_CONNECTIONS: usize = 64;

/// Time a client has to send a whole request head, from its first byte (or from the connection
/// when it is new) to the blank line ([`Limits::head_deadline`]); past it the answer is 408 and
/// the connection closes, however slowly the bytes keep coming.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);

/// Time a client has to send a request body once its head is in ([`Limits::body_deadline`]).
pub const BODY_DEADLINE: Duration = Duration::from_secs(30);

/// How long an idle keep-alive connection waits for its next request ([`Limits::idle`]).
pub const IDLE: Duration = Duration::from_secs(30);

/// Longest wait for one write to a client that does not read ([`Limits::write_timeout`]).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The server's limits on connections and slow clients; [`Limits::default`] holds the documented
/// constants ([`MAX_CONNECTIONS`], [`HEAD_DEADLINE`], [`BODY_DEADLINE`], [`IDLE`],
/// [`WRITE_TIMEOUT`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most connections served at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// Time for a whole request head.
    pub head_deadline: Duration,
    /// Time for a whole request body.
    pub body_deadline: Duration,
    /// Time an idle keep-alive connection stays open.
    pub idle: Duration,
    /// Time one write may block on a client that does not read.
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: MAX_CONNECTIONS,
            head_deadline: HEAD_DEADLINE,
            body_deadline: BODY_DEADLINE,
            idle: IDLE,
            write_timeout: WRITE_TIMEOUT,
        }
    }
}

/// One parsed request: method, target, whether the client wants the connection closed, the
/// headers the server checks, body.
struct Request {
    method: String,
    target: String,
    close: bool,
    host: Option<String>,
    origin: Option<String>,
    range: Option<String>,
    if_range: bool,
    body: Option<Vec<u8>>,
}

/// [`read_request_in`] without a hook before the body.
#[cfg(test)]
fn read_request(r: &mut impl std::io::BufRead) -> std::result::Result<Option<Request>, (u16, &'static str)> {
    read_request_in(r, &mut || {})
}

/// Read one request from `r`; `Ok(None)` at a clean end of the connection. A malformed or
/// oversized request is an `Err` with the status to answer. `before_body` runs once the head is
/// in and a body follows (the connection starts the body deadline there).
fn read_request_in<R: std::io::BufRead>(
    r: &mut R,
    before_body: &mut dyn FnMut(),
) -> std::result::Result<Option<Request>, (u16, &'static str)> {
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
    let (mut host, mut origin, mut range, mut if_range) = (None, None, None, false);
    for l in lines {
        let Some((k, v)) = l.split_once(':') else { continue };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        match k.as_str() {
            "connection" if v.eq_ignore_ascii_case("close") => close = true,
            "connection" if v.eq_ignore_ascii_case("keep-alive") => close = false,
            "content-length" => length = v.parse().map_err(|_| (400, "bad Content-Length"))?,
            "transfer-encoding" => return Err((501, "chunked request bodies are not supported")),
            "host" if host.is_some() => return Err((400, "more than one Host header")),
            "host" => host = Some(v.to_string()),
            "origin" => origin = Some(v.to_string()),
            "range" => range = Some(v.to_string()),
            "if-range" => if_range = true,
            _ => {}
        }
    }
    if length > MAX_REPORT {
        return Err((413, "request body too large"));
    }
    let body = if length > 0 {
        before_body();
        let mut b = vec![0; length as usize];
        r.read_exact(&mut b).map_err(|_| (400, "truncated request body"))?;
        Some(b)
    } else {
        None
    };
    Ok(Some(Request {
        method: method.to_ascii_uppercase(),
        target: target.to_string(),
        close,
        host,
        origin,
        range,
        if_range,
        body,
    }))
}

/// Whether `hostport` (a `Host` header, or an `Origin` without its scheme) names this loopback
/// server: `localhost`, a loopback address (`127.0.0.1`, `[::1]`, …), with no port or `port`.
fn loopback_name(hostport: &str, port: u16) -> bool {
    let (name, rest) = match hostport.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((a, rest)) => (a, rest),
            None => return false,
        },
        None => match hostport.rsplit_once(':') {
            Some((a, p)) => (a, &hostport[a.len()..][..p.len() + 1]),
            None => (hostport, ""),
        },
    };
    let port_ok = rest.is_empty() || rest.strip_prefix(':').is_some_and(|p| p.parse::<u16>() == Ok(port));
    let name_ok =
        name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    port_ok && name_ok
}

/// For a server bound to a loopback address: refuse a request whose `Host` (or `Origin`, when
/// present) is not a loopback name of this server — what a page of another site sends after
/// pointing its own name at 127.0.0.1 (DNS rebinding). A request without `Host` is not from a
/// browser and passes.
fn host_refusal(rq: &Request, port: u16) -> Option<String> {
    if let Some(h) = &rq.host {
        if !loopback_name(h, port) {
            return Some(format!(
                "Host {h:?} is not this server's loopback address; open http://127.0.0.1:{port}/ (or localhost)"
            ));
        }
    }
    if let Some(o) = &rq.origin {
        let ok = o.strip_prefix("http://").is_some_and(|hp| loopback_name(hp, port));
        if !ok {
            return Some(format!(
                "Origin {o:?} is not this server's loopback address; requests from other sites are refused"
            ));
        }
    }
    None
}

/// What a `Range` header asks of a body of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Span {
    /// The whole body (no header, a malformed one, or several ranges: answered 200).
    Whole,
    /// Bytes `start..=end` (206).
    Part(u64, u64),
    /// Nothing of it can be given (416).
    Unsatisfiable,
}

/// One `bytes=a-b`, `bytes=a-` or `bytes=-n` range over `len` bytes (RFC 9110 §14.1.2); a
/// header that does not parse, or asks for several ranges, is ignored (the whole body).
fn parse_range(h: &str, len: u64) -> Span {
    let Some(spec) = h.trim().strip_prefix("bytes=") else { return Span::Whole };
    if spec.contains(',') {
        return Span::Whole;
    }
    let Some((a, b)) = spec.trim().split_once('-') else { return Span::Whole };
    let num = |s: &str| if s.bytes().all(|c| c.is_ascii_digit()) { s.parse::<u64>().ok() } else { None };
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Span::Whole,
        (true, false) => match num(b) {
            None => Span::Whole,
            Some(0) => Span::Unsatisfiable,
            Some(_) if len == 0 => Span::Unsatisfiable,
            Some(n) => Span::Part(len - n.min(len), len - 1),
        },
        (false, _) => {
            let Some(start) = num(a) else { return Span::Whole };
            let end = if b.is_empty() { Some(u64::MAX) } else { num(b) };
            match end {
                None => Span::Whole,
                Some(end) if end < start => Span::Whole,
                Some(_) if start >= len => Span::Unsatisfiable,
                Some(end) => Span::Part(start, end.min(len - 1)),
            }
        }
    }
}

/// Write a reply: the head, then bytes `span` of the body (streamed) unless `head_only`.
#[allow(clippy::too_many_arguments)]
fn write_reply(
    w: &mut impl Write,
    status: u16,
    content_type: &str,
    headers: &[String],
    body: &Body,
    span: (u64, u64),
    head_only: bool,
    close: bool,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        206 => "Partial Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        416 => "Range Not Satisfiable",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n",
        span.1
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str(if close { "Connection: close\r\n\r\n" } else { "Connection: keep-alive\r\n\r\n" });
    w.write_all(head.as_bytes())?;
    if !head_only {
        body.write_range(w, span.0, span.1)?;
    }
    w.flush()
}

/// A short text answer that closes the connection.
fn write_text(w: &mut impl Write, status: u16, msg: &str, headers: &[String]) {
    let body = Body::Owned(format!("{msg}\n").into_bytes());
    let n = body.len();
    write_reply(w, status, "text/plain; charset=utf-8", headers, &body, (0, n), false, true).ok();
}

/// The server's sense of time: a thread that counts ticks of `tick` (sleeping between them; the
/// library reads no clock). Deadlines are tick counts; a connection's reads wake every tick to
/// compare.
struct Ticker {
    tick: Duration,
    /// Ticks since the server started.
    now: AtomicU64,
}

impl Ticker {
    fn new(l: &Limits) -> Ticker {
        let shortest = l.head_deadline.min(l.body_deadline).min(l.idle);
        let tick = (shortest / 10).clamp(Duration::from_millis(5), Duration::from_millis(500));
        Ticker { tick, now: AtomicU64::new(0) }
    }

    fn now(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    /// The tick `d` from now (rounded up to whole ticks, plus one for the tick under way).
    fn after(&self, d: Duration) -> u64 {
        let ticks = d.as_nanos().div_ceil(self.tick.as_nanos().max(1));
        self.now().saturating_add(u64::try_from(ticks).unwrap_or(u64::MAX)).saturating_add(1)
    }

    /// Tick until `stop`.
    fn run(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(self.tick);
            self.now.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A connection's reading side under a deadline (a tick of the [`Ticker`]): the socket's own
/// timeout is one tick, and a read that times out is retried until the deadline has passed, then
/// fails with `TimedOut` — however slowly the bytes come, the deadline holds.
struct DeadlineReader<'a> {
    stream: &'a std::net::TcpStream,
    ticker: &'a Ticker,
    deadline: &'a std::cell::Cell<u64>,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.ticker.now() >= self.deadline.get() {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            match self.stream.read(buf) {
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
    }
}

/// What a connection needs besides the state: the ticker, and the port when the server listens
/// on loopback (then `Host` and `Origin` are checked).
struct Conn {
    ticker: Arc<Ticker>,
    loopback_port: Option<u16>,
}

/// Close a connection after its last answer without resetting it: the writing side is shut, and
/// what the client still sends is read (at most 4 reads of 100 ms) and dropped, so the client
/// gets to read the answer rather than a reset.
fn close_gently(stream: &std::net::TcpStream) {
    stream.shutdown(std::net::Shutdown::Write).ok();
    stream.set_read_timeout(Some(Duration::from_millis(100))).ok();
    let mut sink = [0u8; 4096];
    // At most 4 reads of 100 ms: a client that keeps trickling bytes does not hold the thread.
    for _ in 0..4 {
        match (&*stream).read(&mut sink) {
            Ok(n) if n > 0 => {}
            _ => break,
        }
    }
}

/// Answer the requests of one connection until it closes, idles out, misses a deadline or asks
/// to close. One descriptor: reads and writes share the socket.
fn serve_connection(state: &State, conn: &Conn, stream: &std::net::TcpStream) {
    let l = state.limits;
    let ticker = &*conn.ticker;
    stream.set_read_timeout(Some(ticker.tick)).ok();
    stream.set_write_timeout(Some(l.write_timeout)).ok();
    stream.set_nodelay(true).ok();
    let deadline = std::cell::Cell::new(u64::MAX);
    let mut reader = std::io::BufReader::new(DeadlineReader { stream, ticker, deadline: &deadline });
    let mut writer = std::io::BufWriter::new(stream);
    let mut first = true;
    loop {
        // Wait for the first byte of a request (a new connection has the head deadline for it
        // all), then the whole head within the head deadline, then the body within its own.
        deadline.set(ticker.after(if first { l.head_deadline } else { l.idle }));
        match std::io::BufRead::fill_buf(&mut reader) {
            Ok([]) => return,
            Ok(_) => {}
            Err(_) if first => {
                write_text(&mut writer, 408, "no request within the deadline", &[]);
                drop(writer);
                close_gently(stream);
                return;
            }
            Err(_) => return,
        }
        if !first {
            deadline.set(ticker.after(l.head_deadline));
        }
        first = false;
        let got = read_request_in(&mut reader, &mut || deadline.set(ticker.after(l.body_deadline)));
        let expired = ticker.now() >= deadline.get();
        deadline.set(u64::MAX);
        let rq = match got {
            Ok(None) => return,
            Ok(Some(rq)) => rq,
            Err(_) if expired => {
                let msg = format!(
                    "request not complete within the deadline ({} s for the head, {} s for a body)",
                    l.head_deadline.as_secs_f64(),
                    l.body_deadline.as_secs_f64()
                );
                write_text(&mut writer, 408, &msg, &[]);
                drop(writer);
                close_gently(stream);
                return;
            }
            Err((status, why)) => {
                write_text(&mut writer, status, why, &[]);
                drop(writer);
                close_gently(stream);
                return;
            }
        };
        if let Some(why) = conn.loopback_port.and_then(|p| host_refusal(&rq, p)) {
            write_text(&mut writer, 403, &why, &[]);
            drop(writer);
            close_gently(stream);
            return;
        }
        let reply = state.handle(&rq.method, &rq.target, rq.body.as_deref());
        let head_only = rq.method == "HEAD";
        let mut headers = Vec::new();
        if let Some(a) = reply.allow {
            headers.push(format!("Allow: {a}"));
        }
        let len = reply.body.len();
        let mut span = (0, len);
        let mut status = reply.status;
        if status == 200 && (rq.method == "GET" || head_only) {
            headers.push("Accept-Ranges: bytes".into());
            match rq.range.as_deref().filter(|_| !rq.if_range).map(|h| parse_range(h, len)) {
                None | Some(Span::Whole) => {}
                Some(Span::Part(a, b)) => {
                    status = 206;
                    span = (a, b - a + 1);
                    headers.push(format!("Content-Range: bytes {a}-{b}/{len}"));
                }
                Some(Span::Unsatisfiable) => {
                    let msg = format!("range not satisfiable: {} asked of {len} bytes", rq.range.unwrap_or_default());
                    write_text(&mut writer, 416, &msg, &[format!("Content-Range: bytes */{len}")]);
                    drop(writer);
                    close_gently(stream);
                    return;
                }
            }
        }
        let sent =
            write_reply(&mut writer, status, reply.content_type, &headers, &reply.body, span, head_only, rq.close);
        if sent.is_err() || rq.close {
            return;
        }
    }
}

/// Counts an open connection; the count drops with it.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Listen on `addr` (port 0: any free port); each connection gets its own thread (HTTP/1.1 with
/// keep-alive), within the state's [`Limits`]: at most [`MAX_CONNECTIONS`] at once (one more is
/// answered 503), a deadline for each request head and body, idle connections closed. When
/// `addr` is a loopback address, a request whose `Host` or `Origin` names anything else is
/// answered 403 (DNS rebinding). Failing accepts (out of descriptors) are retried with a growing
/// pause, never in a busy loop.
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
    let ticker = Arc::new(Ticker::new(&state.limits));
    {
        let (t, stop) = (ticker.clone(), stop.clone());
        std::thread::spawn(move || t.run(&stop));
    }
    let conn = Arc::new(Conn { ticker, loopback_port: real.ip().is_loopback().then_some(real.port()) });
    let acceptor = {
        let stop = stop.clone();
        std::thread::spawn(move || accept_loop(&listener, &state, &conn, &stop))
    };
    let url = match real {
        SocketAddr::V4(a) => format!("http://{}:{}/", a.ip(), a.port()),
        SocketAddr::V6(a) => format!("http://[{}]:{}/", a.ip(), a.port()),
    };
    Ok(Running { url, addr: real, stop, acceptor: Some(acceptor) })
}

/// Longest pause between failing accepts.
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Connections over the cap waiting for their 503; more are closed without an answer.
const BUSY_QUEUE: usize = 64;

fn accept_loop(listener: &std::net::TcpListener, state: &Arc<State>, conn: &Arc<Conn>, stop: &AtomicBool) {
    let open = Arc::new(AtomicUsize::new(0));
    let max = state.limits.max_connections;
    // One thread answers the connections over the cap, so the acceptor never waits on one.
    let (busy_tx, busy_rx) = mpsc::sync_channel::<std::net::TcpStream>(BUSY_QUEUE);
    std::thread::spawn(move || {
        for s in busy_rx {
            busy(s, max);
        }
    });
    let mut backoff = Duration::from_millis(10);
    loop {
        let accepted = listener.accept();
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let stream = match accepted {
            Ok((s, _)) => {
                backoff = Duration::from_millis(10);
                s
            }
            Err(_) => {
                // Out of descriptors (EMFILE) or memory: the pending connection stays queued, so
                // retrying at once would spin. Pause, longer each time, until one succeeds.
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        if open.load(Ordering::SeqCst) >= max {
            let _ = busy_tx.try_send(stream);
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(open.clone());
        let (state, conn) = (state.clone(), conn.clone());
        // A thread that cannot be started drops the connection (and its slot).
        let _ = std::thread::Builder::new().spawn(move || {
            let _slot = slot;
            serve_connection(&state, &conn, &stream);
        });
    }
}

/// Answer 503 on a connection over the cap and close it gently.
fn busy(stream: std::net::TcpStream, max: usize) {
    let pause = Duration::from_millis(200);
    stream.set_write_timeout(Some(pause)).ok();
    stream.set_read_timeout(Some(pause)).ok();
    let mut w = &stream;
    let msg = format!("server busy: {max} connections are open (the cap); try again shortly");
    write_text(&mut w, 503, &msg, &["Retry-After: 1".to_string()]);
    close_gently(&stream);
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
        let _ = std::net::TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
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
    fn ranges_parse_as_rfc_9110_says() {
        assert_eq!(parse_range("bytes=0-9", 100), Span::Part(0, 9));
        assert_eq!(parse_range("bytes=90-200", 100), Span::Part(90, 99));
        assert_eq!(parse_range("bytes=10-", 100), Span::Part(10, 99));
        assert_eq!(parse_range("bytes=-10", 100), Span::Part(90, 99));
        assert_eq!(parse_range("bytes=-1000", 100), Span::Part(0, 99));
        assert_eq!(parse_range("bytes=100-", 100), Span::Unsatisfiable);
        assert_eq!(parse_range("bytes=-0", 100), Span::Unsatisfiable);
        assert_eq!(parse_range("bytes=0-0", 0), Span::Unsatisfiable);
        assert_eq!(parse_range("bytes=-5", 0), Span::Unsatisfiable);
        for whole in ["", "bytes=", "bytes=-", "bytes=5-1", "bytes=a-b", "bytes=+1-2", "lines=0-1", "bytes=0-1,3-4"] {
            assert_eq!(parse_range(whole, 100), Span::Whole, "{whole:?}");
        }
        assert_eq!(parse_range(&format!("bytes=0-{}", u64::MAX), 100), Span::Part(0, 99));
        assert_eq!(parse_range("bytes=0-99999999999999999999999", 100), Span::Whole, "overflow: ignored");
    }

    #[test]
    fn loopback_names_are_checked_with_the_port() {
        for ok in ["127.0.0.1:8737", "localhost:8737", "LocalHost", "[::1]:8737", "[::1]", "127.0.0.2", "127.0.0.1"] {
            assert!(loopback_name(ok, 8737), "{ok}");
        }
        for bad in
            ["127.0.0.1:80", "evil.example", "evil.example:8737", "[::1]:1", "[::1", "10.0.0.1:8737", "", ":8737"]
        {
            assert!(!loopback_name(bad, 8737), "{bad}");
        }
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
