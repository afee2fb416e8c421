//! The viewer's page as this library carries it: every file of `web/` but its tests, development
//! tools, `node_modules`, npm manifests and dotfiles (see `build.rs`), and the content type each
//! is served with.

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));
}
pub use embedded::ASSETS;

/// The embedded file at `path` (relative to `web/`, `/`-separated).
///
/// # Examples
///
/// ```
/// assert!(bozkir_viewer::asset("src/tileset.js").is_some());
/// assert!(bozkir_viewer::asset("package.json").is_none());
/// ```
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
        "wgsl" => "text/wgsl; charset=utf-8",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
}
