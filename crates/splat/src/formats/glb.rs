//! glTF 2.0 binary (`.glb`) with `KHR_gaussian_splatting` (Khronos, ratified 2025; splat-anchors
//! §2.7; attribute table of the extension's README): write, and read back what we write.
//!
//! **Written.** A GLB (`glTF`, version 2, total length; a JSON chunk padded with spaces to 4
//! bytes; a BIN chunk padded with zeros) holding one buffer, one mesh with one primitive of
//! `mode` 0 (POINTS), one node and scene 0. `extensionsUsed: ["KHR_gaussian_splatting"]` (not
//! required: a viewer without it shows a coloured point cloud). The primitive's extension
//! object is `{"kernel": "ellipse", "colorSpace": "srgb_rec709_display", "projection":
//! "perspective", "sortingMethod": "cameraDistance"}`. Attributes, one tightly packed buffer
//! view (target 34962) and one accessor each, all little-endian:
//!
//! | attribute | type | values |
//! |---|---|---|
//! | `POSITION` | VEC3 float, with `min`/`max` | centres |
//! | `COLOR_0` | VEC4 unsigned byte, normalized | fallback colour `clip(0.5 + C0·f_dc)`, alpha = opacity |
//! | `KHR_gaussian_splatting:ROTATION` | VEC4 float | unit quaternion in **(x, y, z, w)** order |
//! | `KHR_gaussian_splatting:SCALE` | VEC3 float | **log-space** `ln σ` (the spec: actual scale = `exp(scale)`) |
//! | `KHR_gaussian_splatting:OPACITY` | SCALAR float | opacity in `[0, 1]` (after the sigmoid) |
//! | `KHR_gaussian_splatting:SH_DEGREE_0_COEF_0` | VEC3 float | `f_dc` (RGB) |
//! | `KHR_gaussian_splatting:SH_DEGREE_ℓ_COEF_n` | VEC3 float | for ℓ = 1..d, n = 0..2ℓ: 3DGS coefficient `ℓ² + n` (RGB) |
//!
//! The SH coefficients are written exactly as 3DGS stores them (same basis order and signs as
//! [`crate::sh`]); the extension's text has used both signed and unsigned forms of the basis
//! in its drafts, so a reader that uses the other sign convention would see flipped odd-`m`
//! terms — degree 0 (the base colour) is unaffected.
//!
//! **Read.** [`read_glb`] takes the first primitive with `KHR_gaussian_splatting:ROTATION`, with
//! float accessors (quantised byte/short accessors are refused as unsupported), any
//! `byteStride`/`byteOffset`, buffer 0 in the BIN chunk. Opacity is stored after the sigmoid,
//! so its logit is recomputed (not bit-exact); everything else reads back exactly.

use crate::formats::error::{Result, SplatError};
use crate::formats::fsio::{atomic_write, open_nonempty};
use crate::formats::MAX_SPLATS;
use crate::model::{logit, RawSplat, Splats};
use crate::sh::rest_count;
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

const FMT: &str = "glTF binary";
/// The extension name.
pub const EXTENSION: &str = "KHR_gaussian_splatting";
const MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const FLOAT: u32 = 5126;
const UBYTE: u32 = 5121;

fn sh_name(l: usize, n: usize) -> String {
    format!("{EXTENSION}:SH_DEGREE_{l}_COEF_{n}")
}

/// The bytes of `s` as a `.glb` (see the module documentation).
pub fn encode_glb(s: &Splats) -> Vec<u8> {
    let n = s.len();
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut attributes = serde_json::Map::new();
    let mut add =
        |name: String, ty: &str, comp: u32, normalized: bool, bytes: Vec<u8>, extra: Option<(Value, Value)>| {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let idx = accessors.len();
            views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len(), "target": 34962}));
            let mut acc = json!({"bufferView": idx, "componentType": comp, "count": n, "type": ty});
            if normalized {
                acc["normalized"] = json!(true);
            }
            if let Some((min, max)) = extra {
                acc["min"] = min;
                acc["max"] = max;
            }
            accessors.push(acc);
            attributes.insert(name, json!(idx));
            bin.extend_from_slice(&bytes);
        };
    let f32s = |it: &mut dyn Iterator<Item = f32>| -> Vec<u8> { it.flat_map(|v| v.to_le_bytes()).collect() };
    let b = s.bounds().unwrap_or(crate::model::Bounds { min: [0.0; 3], max: [0.0; 3] });
    add(
        "POSITION".into(),
        "VEC3",
        FLOAT,
        false,
        f32s(&mut s.positions().iter().flatten().copied()),
        Some((json!(b.min.map(f64::from)), json!(b.max.map(f64::from)))),
    );
    let colour: Vec<u8> = (0..n)
        .flat_map(|i| {
            let c = s.base_rgb(i);
            let a = s.opacities()[i];
            [c[0], c[1], c[2], a].map(|v| (f64::from(v).clamp(0.0, 1.0) * 255.0).round() as u8)
        })
        .collect();
    add("COLOR_0".into(), "VEC4", UBYTE, true, colour, None);
    add(
        format!("{EXTENSION}:ROTATION"),
        "VEC4",
        FLOAT,
        false,
        f32s(&mut s.rotations().iter().flat_map(|q| [q[1], q[2], q[3], q[0]])),
        None,
    );
    add(format!("{EXTENSION}:SCALE"), "VEC3", FLOAT, false, f32s(&mut s.log_scales().iter().flatten().copied()), None);
    add(format!("{EXTENSION}:OPACITY"), "SCALAR", FLOAT, false, f32s(&mut s.opacities().iter().copied()), None);
    add(sh_name(0, 0), "VEC3", FLOAT, false, f32s(&mut s.sh_dc().iter().flatten().copied()), None);
    for l in 1..=s.sh_degree() as usize {
        for m in 0..2 * l + 1 {
            let plane = &s.sh_rest()[l * l - 1 + m];
            add(sh_name(l, m), "VEC3", FLOAT, false, f32s(&mut plane.iter().flatten().copied()), None);
        }
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let doc = json!({
        "asset": {"version": "2.0", "generator": concat!("bozkir-splat ", env!("CARGO_PKG_VERSION"))},
        "extensionsUsed": [EXTENSION],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": [{"primitives": [{
            "attributes": attributes,
            "mode": 0,
            "extensions": {EXTENSION: {
                "kernel": "ellipse",
                "colorSpace": "srgb_rec709_display",
                "projection": "perspective",
                "sortingMethod": "cameraDistance"
            }}
        }]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    });
    let mut js = serde_json::to_vec(&doc).expect("JSON of plain values");
    while !js.len().is_multiple_of(4) {
        js.push(b' ');
    }
    let total = 12 + 8 + js.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    for v in [MAGIC, 2, total as u32, js.len() as u32, CHUNK_JSON] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&js);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}

/// Write `s` as `.glb`, atomically. Refuses an empty set and sets over 4 GiB (GLB's limit).
pub fn write_glb(path: &Path, s: &Splats) -> Result<()> {
    if s.is_empty() {
        return Err(SplatError::invalid(path, "no splats to write"));
    }
    let bytes_per = 12 + 4 + 16 + 12 + 4 + 12 + 12 * s.sh_rest().len();
    if (s.len() as u64) * bytes_per as u64 > u32::MAX as u64 - (1 << 20) {
        return Err(SplatError::invalid(path, "more than 4 GiB: too large for one GLB"));
    }
    let bytes = encode_glb(s);
    atomic_write(path, |w| std::io::Write::write_all(w, &bytes))
}

/// The JSON document and BIN chunk of a GLB, after checking its header and chunk lengths.
pub fn split_glb<'a>(bytes: &'a [u8], name: &Path) -> Result<(Value, &'a [u8])> {
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    if bytes.len() < 12 || u32_at(0) != MAGIC {
        return Err(SplatError::wrong_magic(name, FMT));
    }
    if u32_at(4) != 2 {
        return Err(SplatError::unsupported(name, format!("glTF container version {}", u32_at(4))));
    }
    if u32_at(8) as usize != bytes.len() {
        return Err(SplatError::truncated(name, format!("header says {} bytes, file has {}", u32_at(8), bytes.len())));
    }
    let mut off = 12;
    let mut json_doc = None;
    let mut bin: &[u8] = &[];
    while off + 8 <= bytes.len() {
        let (len, ty) = (u32_at(off) as usize, u32_at(off + 4));
        let body = off + 8;
        if body + len > bytes.len() {
            return Err(SplatError::truncated(name, format!("chunk at byte {off} runs past the end")));
        }
        match ty {
            CHUNK_JSON if json_doc.is_none() => {
                json_doc = Some(
                    serde_json::from_slice::<Value>(&bytes[body..body + len])
                        .map_err(|e| SplatError::malformed(name, FMT, format!("JSON chunk: {e}")))?,
                )
            }
            CHUNK_BIN if bin.is_empty() => bin = &bytes[body..body + len],
            _ => {}
        }
        off = body + len;
    }
    let doc = json_doc.ok_or_else(|| SplatError::malformed(name, FMT, "no JSON chunk"))?;
    Ok((doc, bin))
}

/// Read the `KHR_gaussian_splatting` primitive of a `.glb` (see the module documentation).
pub fn read_glb(path: &Path) -> Result<Splats> {
    let (mut file, len) = open_nonempty(path)?;
    if len > u32::MAX as u64 {
        return Err(bozkir_io::IoError::TooMany {
            path: path.to_path_buf(),
            what: "GLB bytes",
            count: len,
            limit: u32::MAX as u64,
        }
        .into());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(|e| SplatError::io(path, e))?;
    parse_glb(&bytes, path)
}

/// Parse `.glb` bytes; `name` is used in error messages.
pub fn parse_glb(bytes: &[u8], name: &Path) -> Result<Splats> {
    let (doc, bin) = split_glb(bytes, name)?;
    let bad = |d: String| SplatError::malformed(name, FMT, d);
    let prim = doc["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["primitives"].as_array().into_iter().flatten())
        .find(|p| p["attributes"].get(format!("{EXTENSION}:ROTATION")).is_some())
        .ok_or_else(|| SplatError::missing(name, format!("a primitive with {EXTENSION} attributes")))?;
    let attrs = &prim["attributes"];
    // Returns (count, components, accessor's f32 reader closure data).
    let load = |attr: &str, comps: usize| -> Result<(usize, Vec<f32>)> {
        let ai = attrs[attr].as_u64().ok_or_else(|| SplatError::missing(name, format!("attribute {attr}")))? as usize;
        let acc = &doc["accessors"][ai];
        let count = acc["count"].as_u64().ok_or_else(|| bad(format!("accessor {ai} has no count")))?;
        if count > MAX_SPLATS {
            return Err(SplatError::too_many(name, "GLB accessor count", count));
        }
        if acc["componentType"].as_u64() != Some(FLOAT as u64) {
            return Err(SplatError::unsupported(
                name,
                format!("{attr} with componentType {} (only float is read)", acc["componentType"]),
            ));
        }
        let want = match comps {
            1 => "SCALAR",
            3 => "VEC3",
            _ => "VEC4",
        };
        if acc["type"].as_str() != Some(want) {
            return Err(bad(format!("accessor {ai} of {attr} has type {}, must be {want}", acc["type"])));
        }
        if acc.get("sparse").is_some() {
            return Err(SplatError::unsupported(name, format!("sparse accessor for {attr}")));
        }
        let vi = acc["bufferView"].as_u64().ok_or_else(|| bad(format!("accessor {ai} has no bufferView")))? as usize;
        let view = &doc["bufferViews"][vi];
        if view["buffer"].as_u64() != Some(0) {
            return Err(SplatError::unsupported(name, "buffer other than the GLB's BIN chunk"));
        }
        let start = view["byteOffset"].as_u64().unwrap_or(0).saturating_add(acc["byteOffset"].as_u64().unwrap_or(0));
        let elem = 4 * comps as u64;
        let stride = view["byteStride"].as_u64().unwrap_or(elem);
        if stride < elem {
            return Err(bad(format!("byteStride {stride} of {attr} is below its element size {elem}")));
        }
        let end = if count == 0 {
            start
        } else {
            start.saturating_add((count - 1).saturating_mul(stride)).saturating_add(elem)
        };
        let view_end =
            view["byteOffset"].as_u64().unwrap_or(0).saturating_add(view["byteLength"].as_u64().unwrap_or(0));
        if view_end > bin.len() as u64 {
            return Err(SplatError::truncated(
                name,
                format!("bufferView {vi} ({attr}) ends at byte {view_end}, past the {}-byte BIN chunk", bin.len()),
            ));
        }
        if end > view_end || end > bin.len() as u64 {
            return Err(SplatError::truncated(
                name,
                format!("{attr} needs bytes up to {end}, the buffer has {}", bin.len()),
            ));
        }
        let mut out = Vec::with_capacity(count as usize * comps);
        for i in 0..count {
            let o = (start + i * stride) as usize;
            for c in 0..comps {
                out.push(f32::from_le_bytes(bin[o + 4 * c..o + 4 * c + 4].try_into().unwrap()));
            }
        }
        Ok((count as usize, out))
    };
    let (n, pos) = load("POSITION", 3)?;
    if n == 0 {
        return Err(SplatError::empty(name, "the splat primitive has no points"));
    }
    let get = |attr: String, comps: usize| -> Result<Vec<f32>> {
        let (c, v) = load(&attr, comps)?;
        if c != n {
            return Err(bad(format!("{attr} has {c} elements, POSITION has {n}")));
        }
        Ok(v)
    };
    let rot = get(format!("{EXTENSION}:ROTATION"), 4)?;
    let scale = get(format!("{EXTENSION}:SCALE"), 3)?;
    let op = get(format!("{EXTENSION}:OPACITY"), 1)?;
    let dc = get(sh_name(0, 0), 3)?;
    let mut degree = 0u8;
    let mut planes: Vec<Vec<f32>> = Vec::new();
    for l in 1..=3usize {
        if attrs.get(sh_name(l, 0)).is_none() {
            break;
        }
        for m in 0..2 * l + 1 {
            planes.push(get(sh_name(l, m), 3)?);
        }
        degree = l as u8;
    }
    let k = rest_count(degree);
    let mut s = Splats::with_capacity(n, degree);
    let mut rest = vec![[0.0f32; 3]; k];
    for i in 0..n {
        for (r, p) in rest.iter_mut().zip(&planes) {
            *r = [p[3 * i], p[3 * i + 1], p[3 * i + 2]];
        }
        s.push_raw(RawSplat {
            position: [pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]],
            log_scale: [scale[3 * i], scale[3 * i + 1], scale[3 * i + 2]],
            rotation: [rot[4 * i + 3], rot[4 * i], rot[4 * i + 1], rot[4 * i + 2]],
            opacity_logit: logit(op[i]),
            sh_dc: [dc[3 * i], dc[3 * i + 1], dc[3 * i + 2]],
            sh_rest: &rest,
        });
    }
    crate::formats::ply::check_positions(name, &s)?;
    Ok(s)
}
