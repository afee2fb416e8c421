//! Embeds the browser viewer: every file under `../../web` except the test and development
//! folders (and the browser tests' `test-output/`), `node_modules`, the npm manifests and dotfiles becomes an entry of
//! `OUT_DIR/web_assets.rs`, a `&[(path, bytes)]` table read by `src/assets.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Names left out at any depth (folders and files).
const SKIP: [&str; 6] = ["tests", "test-output", "dev", "node_modules", "package.json", "package-lock.json"];

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || SKIP.contains(&name.as_str()) {
            continue;
        }
        let path = e.path();
        let Ok(ft) = std::fs::metadata(&path).map(|m| m.file_type()) else { continue };
        if ft.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            walk(root, &path, out);
        } else if ft.is_file() {
            let rel = path.strip_prefix(root).expect("under the web folder");
            let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push((rel.join("/"), path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let web = manifest.join("../../web");
    println!("cargo:rerun-if-changed={}", web.display());
    let mut files = Vec::new();
    if web.is_dir() {
        let root = web.canonicalize().expect("web folder resolves");
        walk(&root, &root, &mut files);
    } else {
        println!("cargo:warning=no web folder at {}: the viewer is not embedded", web.display());
    }
    let mut src = String::from("/// The embedded viewer files: (path relative to web/, bytes), sorted by path.\n");
    src.push_str("pub static ASSETS: &[(&str, &[u8])] = &[\n");
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let abs = path.to_str().expect("web file paths are UTF-8");
        writeln!(src, "    ({rel:?}, include_bytes!({abs:?})),").unwrap();
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("web_assets.rs");
    std::fs::write(&out, src).expect("write the asset table");
}
