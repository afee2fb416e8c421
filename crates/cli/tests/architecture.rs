//! The layering of `docs/ARCHITECTURE.md`, checked on the manifests and sources of the workspace.
//!
//! The rules are absences (what must not be there), so each one is a search that must come back
//! empty:
//! 1. only the binary (`crates/cli`) uses `clap`, `anyhow` or `indicatif`;
//! 2. nothing depends on the WebAssembly face (`bozkir-wasm`);
//! 3. `core`, `terrain` and `material` do not depend on `io`;
//! 4. algorithm crates do not use `std::fs`, `std::net`, `std::time`, `std::env` or print to the
//!    terminal (their `#[cfg(test)]` tails and `tests.rs` modules are not read);
//! 5. a face (`cli`, `wasm`, `py`) does not depend on another face;
//! 6. `gpu` does not depend on `recipe`;
//! 7. a command (`crates/cli/src/cmd/*.rs`) does not reach into another command's module
//!    (`super::other::…`): no command calls another, and what two commands share (argument
//!    groups, helpers) lives outside `cmd/<command>.rs`;
//! 8. a library (anything but a face) does not depend on a face;
//! 9. serving libraries (`viewer`) may use `std::fs` and `std::net`, but do not read the clock
//!    (`Instant`, `SystemTime`), read the environment (`std::env`) or print to the terminal.
//!
//! `check` runs them on a workspace folder. The real workspace must pass; each fixture under
//! `tests/fixtures/architecture/` is a tiny workspace that breaks one rule on purpose, and must
//! fail with that rule's message — so a check that cannot fail would be caught here.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Crates that are faces: they parse input, call a pipeline, present the result.
const FACES: [&str; 3] = ["bozkir", "bozkir-wasm", "bozkir-py"];
/// Crates that may not touch the outside (filesystem, network, clock, environment, terminal).
/// `splat` is one too, except its formats module (`src/formats/`), which reads and writes files.
const ALGORITHMS: [&str; 11] = [
    "bozkir-core",
    "bozkir-terrain",
    "bozkir-material",
    "bozkir-render",
    "bozkir-recipe",
    "bozkir-splat",
    "bozkir-world",
    "bozkir-spatial",
    "bozkir-voxel",
    "bozkir-mesh",
    "bozkir-points",
];
/// Libraries above the pipelines that serve files over the network (the viewer's embedded page,
/// catalogue and HTTP server): files and sockets are their job, the clock, the environment and
/// the terminal are the faces'.
const SERVICES: [&str; 1] = ["bozkir-viewer"];
/// What serving libraries may not use: clock reads and the environment.
const SERVICE_OUTSIDE: [&str; 3] = ["Instant", "SystemTime", "std::env"];
/// Source folders of algorithm crates that are file formats and may use `std::fs`.
const FORMAT_DIRS: [&str; 1] = ["src/formats"];
/// Crates that must stay below `io` (no file format knowledge).
const BELOW_IO: [&str; 3] = ["bozkir-core", "bozkir-terrain", "bozkir-material"];
/// Dependencies only the binary may use.
const BINARY_ONLY: [&str; 3] = ["clap", "anyhow", "indicatif"];
/// What algorithm crates may not use.
const OUTSIDE: [&str; 4] = ["std::fs", "std::net", "std::time", "std::env"];
const PRINTS: [&str; 5] = ["print!", "println!", "eprint!", "eprintln!", "dbg!"];

struct Krate {
    name: String,
    dir: PathBuf,
    /// Names of `[dependencies]` and `[build-dependencies]` (dev-dependencies are tests' own).
    deps: Vec<String>,
}

fn read_crates(root: &Path) -> Vec<Krate> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .unwrap_or_else(|e| panic!("{}: {e}", root.join("crates").display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let text = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let doc: toml::Table = text.parse().unwrap_or_else(|e| panic!("{}: {e}", dir.join("Cargo.toml").display()));
        let name = doc["package"]["name"].as_str().unwrap().to_string();
        let mut deps = Vec::new();
        for section in ["dependencies", "build-dependencies"] {
            if let Some(t) = doc.get(section).and_then(|v| v.as_table()) {
                for (k, v) in t {
                    // `foo = { package = "bar" }` depends on bar.
                    let real = v.get("package").and_then(|p| p.as_str()).unwrap_or(k);
                    deps.push(real.to_string());
                }
            }
        }
        out.push(Krate { name, dir, deps });
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a source file that counts: comments dropped, the `#[cfg(test)]` tail cut, and
/// nothing of a unit-test module kept in its own file (`tests.rs`, declared `#[cfg(test)] mod
/// tests;` by its parent).
fn code_of(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `code` uses the std module `m` (`std::fs` as `std::fs::…`, `use std::fs;` or
/// `use std::{…, fs, …}`).
fn uses_std(code: &str, m: &str) -> bool {
    let leaf = m.trim_start_matches("std::");
    if code.contains(&format!("{m}::")) || code.contains(&format!("{m};")) || code.contains(&format!("{m} as")) {
        return true;
    }
    let mut rest = code;
    while let Some(at) = rest.find("std::{") {
        let tail = &rest[at + 6..];
        let end = tail.find("};").unwrap_or(tail.len());
        let list = &tail[..end];
        if list
            .split(|c: char| c == ',' || c == '{' || c.is_whitespace())
            .any(|t| t == leaf || t.starts_with(&format!("{leaf}::")))
        {
            return true;
        }
        rest = &tail[end..];
    }
    false
}

/// Whether `code` names the identifier `word` (not as part of a longer identifier).
fn uses_word(code: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| !code[..at].ends_with(ident) && !code[at + word.len()..].starts_with(ident))
}

fn prints(code: &str) -> Option<&'static str> {
    PRINTS.iter().copied().find(|p| {
        code.match_indices(p).any(|(at, _)| {
            // `eprintln!` contains `println!`: require a non-identifier before the macro name.
            at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    })
}

/// Every rule broken in the workspace at `root`, one message each.
fn check(root: &Path) -> Vec<String> {
    let crates = read_crates(root);
    let mut bad = Vec::new();
    let by_name: BTreeMap<&str, &Krate> = crates.iter().map(|k| (k.name.as_str(), k)).collect();
    for k in &crates {
        for d in &k.deps {
            if BINARY_ONLY.contains(&d.as_str()) && k.name != "bozkir" {
                bad.push(format!("rule 1: {} depends on {d}, which only the binary may use", k.name));
            }
            if d == "bozkir-wasm" {
                bad.push(format!("rule 2: {} depends on the WebAssembly face bozkir-wasm", k.name));
            }
            if d == "bozkir-io" && BELOW_IO.contains(&k.name.as_str()) {
                bad.push(format!("rule 3: {} depends on bozkir-io", k.name));
            }
            if FACES.contains(&k.name.as_str()) && FACES.contains(&d.as_str()) && d != "bozkir-wasm" {
                bad.push(format!("rule 5: the face {} depends on the face {d}", k.name));
            }
            if !FACES.contains(&k.name.as_str()) && FACES.contains(&d.as_str()) && d != "bozkir-wasm" {
                bad.push(format!("rule 8: the library {} depends on the face {d}", k.name));
            }
            if k.name == "bozkir-gpu" && d == "bozkir-recipe" {
                bad.push("rule 6: bozkir-gpu depends on bozkir-recipe".to_string());
            }
        }
        if ALGORITHMS.contains(&k.name.as_str()) {
            let mut files = Vec::new();
            rust_files(&k.dir.join("src"), &mut files);
            for f in files {
                if FORMAT_DIRS.iter().any(|d| f.starts_with(k.dir.join(d))) {
                    continue;
                }
                let code = code_of(&f);
                let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
                for m in OUTSIDE {
                    if uses_std(&code, m) {
                        bad.push(format!("rule 4: {rel} ({}) uses {m}", k.name));
                    }
                }
                if let Some(p) = prints(&code) {
                    bad.push(format!("rule 4: {rel} ({}) prints with {p}", k.name));
                }
            }
        }
    }
    for k in crates.iter().filter(|k| SERVICES.contains(&k.name.as_str())) {
        let mut files = Vec::new();
        rust_files(&k.dir.join("src"), &mut files);
        for f in files {
            let code = code_of(&f);
            let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
            for m in SERVICE_OUTSIDE {
                let hit = if m.starts_with("std::") { uses_std(&code, m) } else { uses_word(&code, m) };
                if hit {
                    bad.push(format!("rule 9: {rel} ({}) uses {m}", k.name));
                }
            }
            if let Some(p) = prints(&code) {
                bad.push(format!("rule 9: {rel} ({}) prints with {p}", k.name));
            }
        }
    }
    if let Some(cli) = by_name.get("bozkir") {
        let cmd = cli.dir.join("src/cmd");
        let mut files = Vec::new();
        rust_files(&cmd, &mut files);
        let commands: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .filter(|s| s != "mod")
            .collect();
        for f in &files {
            let own = f.file_stem().unwrap().to_string_lossy();
            let code = code_of(f);
            for other in commands.iter().filter(|c| **c != own) {
                for prefix in ["super::", "crate::cmd::", "cmd::"] {
                    let path = format!("{prefix}{other}::");
                    let hit = code.match_indices(&path).any(|(at, _)| {
                        at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                    });
                    if hit {
                        bad.push(format!("rule 7: cmd/{own}.rs reaches into cmd/{other}.rs"));
                    }
                }
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_workspace_keeps_its_layers() {
    let bad = check(&workspace_root());
    assert!(bad.is_empty(), "docs/ARCHITECTURE.md's rules broken:\n  {}", bad.join("\n  "));
}

/// Each fixture breaks one rule; the check must name that rule (and only the rules listed).
#[test]
fn each_broken_fixture_is_caught() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/architecture");
    let cases: [(&str, &[&str]); 8] = [
        ("clap_in_a_library", &["rule 1: bozkir-terrain depends on clap, which only the binary may use"]),
        ("depends_on_wasm", &["rule 2: bozkir-splat depends on the WebAssembly face bozkir-wasm"]),
        ("core_on_io", &["rule 3: bozkir-core depends on bozkir-io"]),
        (
            "algorithm_touches_outside",
            &[
                "rule 4: crates/terrain/src/lib.rs (bozkir-terrain) prints with println!",
                "rule 4: crates/terrain/src/lib.rs (bozkir-terrain) uses std::fs",
                "rule 4: crates/terrain/src/lib.rs (bozkir-terrain) uses std::time",
            ],
        ),
        ("face_on_face", &["rule 5: the face bozkir-py depends on the face bozkir"]),
        ("gpu_on_recipe", &["rule 6: bozkir-gpu depends on bozkir-recipe"]),
        ("command_calls_command", &["rule 7: cmd/demo.rs reaches into cmd/terrain.rs"]),
        (
            "service_touches_outside",
            &[
                "rule 1: bozkir-viewer depends on indicatif, which only the binary may use",
                "rule 8: the library bozkir-viewer depends on the face bozkir",
                "rule 9: crates/viewer/src/lib.rs (bozkir-viewer) prints with eprintln!",
                "rule 9: crates/viewer/src/lib.rs (bozkir-viewer) uses Instant",
                "rule 9: crates/viewer/src/lib.rs (bozkir-viewer) uses std::env",
            ],
        ),
    ];
    for (name, want) in cases {
        let got = check(&fixtures.join(name));
        assert_eq!(got, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "fixture {name}");
    }
    // The clean fixture passes: the rules do not fire on allowed code (a format module using
    // std::fs, a `#[cfg(test)]` tail printing, a command calling its own helper, a serving
    // library using std::net, std::fs and a `std::time::Duration`).
    assert_eq!(check(&fixtures.join("clean")), Vec::<String>::new(), "fixture clean");
}
