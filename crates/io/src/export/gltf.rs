//! glTF 2.0 binary (`.glb`) of a scene of meshes, with vertex colours and instancing — the one
//! GLB encoder behind [`super::glb`] (a terrain's chunks) and the world exports (road ribbons,
//! trees as instances).
//!
//! Container as in [`super::glb`]. Per mesh, buffer views and accessors in this order: POSITION
//! (`VEC3`/`FLOAT`, with `min`/`max`), NORMAL (`VEC3`/`FLOAT`) and TEXCOORD_0 (`VEC2`/`FLOAT`)
//! when present, COLOR_0 when present (`VEC4`/`UNSIGNED_BYTE` normalised, or `VEC3`/`FLOAT`
//! linear RGB in 0..1; glTF §3.7.2.1), then the indices (`SCALAR`/`UNSIGNED_INT`); vertex views
//! have target ARRAY_BUFFER 34962, index views ELEMENT_ARRAY_BUFFER 34963. A mesh is one triangle
//! primitive (mode 4) with no material (glTF's default material, whose base colour is multiplied
//! by COLOR_0). A node draws one mesh; a node with instances carries the
//! `EXT_mesh_gpu_instancing` extension (listed in `extensionsUsed`) whose TRANSLATION
//! (`VEC3`/`FLOAT`), ROTATION (`VEC4`/`FLOAT`, unit quaternions x, y, z, w) and SCALE
//! (`VEC3`/`FLOAT`) accessors hold one value per instance (views without a target). Every view
//! starts at a multiple of 4 bytes. A scene with no colours and no instances encodes exactly as
//! the terrain writer always has.

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, write_all};
use serde_json::{json, Value};
use std::path::Path;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_INT: u32 = 5125;

/// The glTF extension that draws one mesh at many transforms.
pub const INSTANCING: &str = "EXT_mesh_gpu_instancing";

/// Per-vertex colours of a mesh (`COLOR_0`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Colours<'a> {
    /// No colour attribute.
    #[default]
    None,
    /// Linear RGBA, 0..255 each (normalised `UNSIGNED_BYTE`, `VEC4`).
    Rgba8(&'a [[u8; 4]]),
    /// Linear RGB, 0..1 each (`FLOAT`, `VEC3`).
    RgbF32(&'a [[f32; 3]]),
}

impl Colours<'_> {
    fn len(&self) -> Option<usize> {
        match self {
            Colours::None => None,
            Colours::Rgba8(c) => Some(c.len()),
            Colours::RgbF32(c) => Some(c.len()),
        }
    }
}

/// One mesh: a triangle list over its vertices. `normals` and `uvs` are empty or one per vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mesh<'a> {
    /// Mesh name.
    pub name: &'a str,
    /// Vertex positions (glTF frame: y up, metres).
    pub positions: &'a [[f32; 3]],
    /// Unit normals, one per vertex, or empty.
    pub normals: &'a [[f32; 3]],
    /// Texture coordinates, one per vertex, or empty.
    pub uvs: &'a [[f32; 2]],
    /// Vertex colours.
    pub colours: Colours<'a>,
    /// Three indices per triangle, counter-clockwise seen from the front.
    pub indices: &'a [u32],
}

/// Transforms of the instances of a node's mesh (`EXT_mesh_gpu_instancing`): one translation
/// per instance; `rotations` and `scales` are empty (identity) or one per instance.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Instances<'a> {
    /// Translation of each instance (glTF frame).
    pub translations: &'a [[f32; 3]],
    /// Unit quaternion (x, y, z, w) of each instance, or empty.
    pub rotations: &'a [[f32; 4]],
    /// Scale of each instance, or empty.
    pub scales: &'a [[f32; 3]],
}

/// A node drawing mesh `mesh` (an index into the scene's meshes), once or per instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node<'a> {
    /// Node name.
    pub name: &'a str,
    /// Index of its mesh.
    pub mesh: usize,
    /// Instances, or `None` for one mesh at the origin.
    pub instances: Option<Instances<'a>>,
}

/// A scene: meshes and the nodes that draw them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scene<'a> {
    /// The scene's name.
    pub name: &'a str,
    /// Meshes.
    pub meshes: &'a [Mesh<'a>],
    /// Nodes, every one listed in the scene.
    pub nodes: &'a [Node<'a>],
}

/// The data of one buffer view, borrowed until the BIN chunk is filled.
#[derive(Clone, Copy)]
enum Source<'a> {
    F32x2(&'a [[f32; 2]]),
    F32x3(&'a [[f32; 3]]),
    F32x4(&'a [[f32; 4]]),
    U8x4(&'a [[u8; 4]]),
    U32(&'a [u32]),
}

impl Source<'_> {
    fn byte_len(&self) -> usize {
        match self {
            Source::F32x2(v) => v.len() * 8,
            Source::F32x3(v) => v.len() * 12,
            Source::F32x4(v) => v.len() * 16,
            Source::U8x4(v) => v.len() * 4,
            Source::U32(v) => v.len() * 4,
        }
    }

    /// Writes the little-endian bytes into `out` (exactly [`Self::byte_len`] long).
    fn fill(&self, out: &mut [u8]) {
        fn words<'b>(out: &mut [u8], values: impl Iterator<Item = &'b [u8; 4]>) {
            for (dst, v) in out.chunks_exact_mut(4).zip(values) {
                dst.copy_from_slice(v);
            }
        }
        match self {
            Source::F32x2(v) => fill_f32(out, v.as_flattened()),
            Source::F32x3(v) => fill_f32(out, v.as_flattened()),
            Source::F32x4(v) => fill_f32(out, v.as_flattened()),
            Source::U8x4(v) => words(out, v.iter()),
            Source::U32(v) => {
                for (dst, k) in out.chunks_exact_mut(4).zip(v.iter()) {
                    dst.copy_from_slice(&k.to_le_bytes());
                }
            }
        }
    }
}

fn fill_f32(out: &mut [u8], values: &[f32]) {
    for (dst, x) in out.chunks_exact_mut(4).zip(values) {
        dst.copy_from_slice(&x.to_le_bytes());
    }
}

/// The layout of the BIN chunk: its buffer views and accessors, and where each view's data
/// goes. The bytes are written once, into the final container, by [`fill_bin`].
#[derive(Default)]
struct Bin<'a> {
    /// Length so far (the end of the last view, unpadded).
    len: usize,
    /// Each view's offset and data.
    parts: Vec<(usize, Source<'a>)>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl<'a> Bin<'a> {
    /// Appends `data` as a new view (starting at a multiple of 4 bytes) with one accessor;
    /// returns the accessor's index. `accessor` holds the accessor's other keys (`min`, `max`,
    /// `normalized`).
    fn push(&mut self, data: Source<'a>, target: Option<u32>, accessor: Value) -> usize {
        let start = self.len.next_multiple_of(4);
        let byte_len = data.byte_len();
        self.len = start + byte_len;
        self.parts.push((start, data));
        let mut view = json!({ "buffer": 0, "byteOffset": start, "byteLength": byte_len });
        if let Some(t) = target {
            view["target"] = t.into();
        }
        let mut accessor = accessor;
        accessor["bufferView"] = self.views.len().into();
        self.views.push(view);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }
}

/// Fills `out` (the BIN chunk, zeroed, at least `bin.len` long) with the views' data, on up to
/// `available_parallelism` threads, each taking a contiguous run of views of about equal size.
fn fill_bin(parts: &[(usize, Source)], out: &mut [u8]) {
    let total: usize = parts.iter().map(|p| p.1.byte_len()).sum();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    if threads == 1 || total < (1 << 22) {
        for (start, src) in parts {
            src.fill(&mut out[*start..*start + src.byte_len()]);
        }
        return;
    }
    // Cut the views into `threads` contiguous runs of about equal size, and `out` at the
    // runs' first view offsets (padding between views goes with the run before it).
    let mut cuts = vec![0usize];
    let mut acc = 0;
    for (i, p) in parts.iter().enumerate() {
        acc += p.1.byte_len();
        if cuts.len() < threads && acc * threads >= total * cuts.len() && i + 1 < parts.len() {
            cuts.push(i + 1);
        }
    }
    cuts.push(parts.len());
    let mut runs = Vec::with_capacity(threads);
    let (mut rest, mut base) = (out, 0usize);
    for w in cuts.windows(2) {
        let end = if w[1] == parts.len() { base + rest.len() } else { parts[w[1]].0 };
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - base);
        runs.push((&parts[w[0]..w[1]], head, base));
        (rest, base) = (tail, end);
    }
    std::thread::scope(|s| {
        for (mine, chunk, base) in runs {
            s.spawn(move || {
                for (start, src) in mine {
                    let at = start - base;
                    src.fill(&mut chunk[at..at + src.byte_len()]);
                }
            });
        }
    });
}

fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

fn check_mesh(path: &Path, m: &Mesh) -> Result<()> {
    let n = m.positions.len();
    let bad = |why: String| Err(IoError::invalid(path, format!("mesh {}: {why}", m.name)));
    if (!m.normals.is_empty() && m.normals.len() != n) || (!m.uvs.is_empty() && m.uvs.len() != n) {
        return bad(format!("{n} positions, {} normals, {} texture coordinates", m.normals.len(), m.uvs.len()));
    }
    if m.colours.len().is_some_and(|c| c != n) {
        return bad(format!("{n} positions, {} colours", m.colours.len().unwrap_or(0)));
    }
    if let Some(k) = m.indices.iter().find(|&&k| k as usize >= n) {
        return bad(format!("index {k} is past its {n} vertices"));
    }
    if !m.indices.len().is_multiple_of(3) {
        return bad(format!("{} indices is not a whole number of triangles", m.indices.len()));
    }
    if m.positions.iter().flatten().any(|v| !v.is_finite()) {
        return bad("a non-finite position".into());
    }
    Ok(())
}

/// The glTF JSON of one mesh, its data appended to `bin`.
fn mesh_json<'a>(bin: &mut Bin<'a>, m: &Mesh<'a>) -> Value {
    let n = m.positions.len();
    let (lo, hi) = bounds(m.positions);
    let vec = |t: &str| json!({ "componentType": FLOAT, "count": n, "type": t });
    let mut pos = vec("VEC3");
    pos["min"] = json!(lo);
    pos["max"] = json!(hi);
    let mut attributes = serde_json::Map::new();
    attributes.insert("POSITION".into(), bin.push(Source::F32x3(m.positions), Some(ARRAY_BUFFER), pos).into());
    if !m.normals.is_empty() {
        let a = bin.push(Source::F32x3(m.normals), Some(ARRAY_BUFFER), vec("VEC3"));
        attributes.insert("NORMAL".into(), a.into());
    }
    if !m.uvs.is_empty() {
        attributes.insert("TEXCOORD_0".into(), bin.push(Source::F32x2(m.uvs), Some(ARRAY_BUFFER), vec("VEC2")).into());
    }
    let colour = match m.colours {
        Colours::None => None,
        Colours::Rgba8(c) => {
            let acc = json!({ "componentType": UNSIGNED_BYTE, "normalized": true, "count": n, "type": "VEC4" });
            Some(bin.push(Source::U8x4(c), Some(ARRAY_BUFFER), acc))
        }
        Colours::RgbF32(c) => Some(bin.push(Source::F32x3(c), Some(ARRAY_BUFFER), vec("VEC3"))),
    };
    if let Some(a) = colour {
        attributes.insert("COLOR_0".into(), a.into());
    }
    let indices = bin.push(
        Source::U32(m.indices),
        Some(ELEMENT_ARRAY_BUFFER),
        json!({ "componentType": UNSIGNED_INT, "count": m.indices.len(), "type": "SCALAR" }),
    );
    json!({ "name": m.name, "primitives": [{ "attributes": attributes, "indices": indices, "mode": 4 }] })
}

/// The `EXT_mesh_gpu_instancing` object of a node's instances, data appended to `bin`.
fn instancing_json<'a>(path: &Path, bin: &mut Bin<'a>, node: &Node, inst: &Instances<'a>) -> Result<Value> {
    let n = inst.translations.len();
    let bad_len = |l: usize| l != 0 && l != n;
    if n == 0 || bad_len(inst.rotations.len()) || bad_len(inst.scales.len()) {
        return Err(IoError::invalid(
            path,
            format!(
                "node {}: {n} translations, {} rotations, {} scales (need at least one instance)",
                node.name,
                inst.rotations.len(),
                inst.scales.len()
            ),
        ));
    }
    let finite = inst.translations.iter().flatten().chain(inst.rotations.iter().flatten()).all(|v| v.is_finite());
    if !finite || inst.scales.iter().flatten().any(|v| !v.is_finite()) {
        return Err(IoError::invalid(path, format!("node {}: a non-finite instance transform", node.name)));
    }
    let acc = |t: &str| json!({ "componentType": FLOAT, "count": n, "type": t });
    let mut attributes = serde_json::Map::new();
    attributes.insert("TRANSLATION".into(), bin.push(Source::F32x3(inst.translations), None, acc("VEC3")).into());
    if !inst.rotations.is_empty() {
        attributes.insert("ROTATION".into(), bin.push(Source::F32x4(inst.rotations), None, acc("VEC4")).into());
    }
    if !inst.scales.is_empty() {
        attributes.insert("SCALE".into(), bin.push(Source::F32x3(inst.scales), None, acc("VEC3")).into());
    }
    Ok(json!({ INSTANCING: { "attributes": attributes } }))
}

/// The bytes of a GLB holding `scene`; `path` names the file in errors (an inconsistent mesh,
/// a node naming a missing mesh, over 4 GiB).
pub fn encode_scene<'a>(path: &Path, scene: &Scene<'a>, generator: &str) -> Result<Vec<u8>> {
    let mut bin = Bin::default();
    let mut meshes = Vec::with_capacity(scene.meshes.len());
    for m in scene.meshes {
        check_mesh(path, m)?;
        if m.positions.is_empty() {
            return Err(IoError::invalid(path, format!("mesh {} has no vertex", m.name)));
        }
        meshes.push(mesh_json(&mut bin, m));
    }
    let mut nodes = Vec::with_capacity(scene.nodes.len());
    let mut instanced = false;
    for node in scene.nodes {
        if node.mesh >= scene.meshes.len() {
            return Err(IoError::invalid(
                path,
                format!("node {} draws mesh {} of {}", node.name, node.mesh, meshes.len()),
            ));
        }
        let mut v = json!({ "name": node.name, "mesh": node.mesh });
        if let Some(inst) = &node.instances {
            v["extensions"] = instancing_json(path, &mut bin, node, inst)?;
            instanced = true;
        }
        nodes.push(v);
    }
    let node_ids: Vec<usize> = (0..nodes.len()).collect();
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [{ "name": scene.name, "nodes": node_ids }],
        "nodes": nodes,
        "meshes": meshes,
        "accessors": std::mem::take(&mut bin.accessors),
        "bufferViews": std::mem::take(&mut bin.views),
    });
    if instanced {
        doc["extensionsUsed"] = json!([INSTANCING]);
    }
    container(path, &mut doc, &bin)
}

/// The GLB container of `doc` and the BIN chunk laid out in `bin` (omitted when empty; the
/// buffer's `byteLength` is the unpadded length, the chunk is padded with zeros).
fn container(path: &Path, doc: &mut Value, bin: &Bin) -> Result<Vec<u8>> {
    if bin.len > 0 {
        doc["buffers"] = Value::Array(vec![json!({ "byteLength": bin.len })]);
    }
    let mut text = serde_json::to_vec(doc).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let bin_len = bin.len.next_multiple_of(4);
    let total = 12 + 8 + text.len() + if bin_len == 0 { 0 } else { 8 + bin_len };
    let total32 = u32::try_from(total).map_err(|_| IoError::TooMany {
        path: path.to_path_buf(),
        what: "GLB bytes",
        count: total as u64,
        limit: u64::from(u32::MAX),
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if bin_len > 0 {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        let at = out.len();
        out.resize(total, 0);
        fill_bin(&bin.parts, &mut out[at..]);
    }
    Ok(out)
}

/// Write `scene` as a `.glb` (atomically).
pub fn write_scene(path: impl AsRef<Path>, scene: &Scene) -> Result<()> {
    let path = path.as_ref();
    let bytes = encode_scene(path, scene, concat!("bozkir ", env!("CARGO_PKG_VERSION")))?;
    atomic_write(path, |w| write_all(path, w, &bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The BIN chunk and JSON of a GLB, split by hand (header, JSON chunk, BIN chunk).
    fn split(bytes: &[u8]) -> (Value, &[u8]) {
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        assert_eq!(word(8), bytes.len());
        let jl = word(12);
        let doc: Value = serde_json::from_slice(&bytes[20..20 + jl]).unwrap();
        let bl = word(20 + jl);
        assert_eq!(&bytes[24 + jl..28 + jl], b"BIN\0");
        (doc, &bytes[28 + jl..28 + jl + bl])
    }

    #[test]
    fn large_scene_views_hold_their_data() {
        // Big enough (> 4 MiB) for the BIN chunk to be filled on several threads; every view
        // must hold exactly its mesh's data, little-endian, at a multiple of 4 bytes.
        let n = 40_000usize;
        let pos: Vec<Vec<[f32; 3]>> =
            (0..9).map(|m| (0..n).map(|i| [i as f32, (m * i) as f32 * 0.5, -(i as f32)]).collect()).collect();
        let uvs: Vec<[f32; 2]> = (0..n).map(|i| [i as f32 / n as f32, 0.25]).collect();
        let rgba: Vec<[u8; 4]> = (0..n).map(|i| [i as u8, (i >> 8) as u8, 7, 255]).collect();
        // 3 · 13,333 indices: a whole number of triangles.
        let idx: Vec<u32> = (0..39_999u32).map(|k| (k * 7919) % n as u32).collect();
        let meshes: Vec<Mesh> = pos
            .iter()
            .enumerate()
            .map(|(m, p)| Mesh {
                name: "m",
                positions: p,
                normals: if m % 2 == 0 { p } else { &[] },
                uvs: if m % 3 == 0 { &uvs } else { &[] },
                colours: if m == 4 { Colours::Rgba8(&rgba) } else { Colours::None },
                indices: &idx[..(3 + m * 3_999).min(idx.len())],
            })
            .collect();
        let nodes: Vec<Node> = (0..meshes.len()).map(|i| Node { name: "n", mesh: i, instances: None }).collect();
        let bytes =
            encode_scene(Path::new("big.glb"), &Scene { name: "s", meshes: &meshes, nodes: &nodes }, "t").unwrap();
        assert!(bytes.len() > 1 << 22);
        let (doc, bin) = split(&bytes);
        let declared = doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
        assert!(declared <= bin.len() && bin.len() - declared < 4 && bin.len() % 4 == 0);
        let view = |acc: &Value| {
            let v = &doc["bufferViews"][acc.as_u64().unwrap() as usize];
            let (o, l) = (v["byteOffset"].as_u64().unwrap() as usize, v["byteLength"].as_u64().unwrap() as usize);
            assert_eq!(o % 4, 0);
            &bin[o..o + l]
        };
        let f32s = |v: &[u8]| v.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        for (m, mesh) in meshes.iter().enumerate() {
            let prim = &doc["meshes"][m]["primitives"][0];
            assert_eq!(f32s(view(&prim["attributes"]["POSITION"])), mesh.positions.as_flattened());
            if !mesh.normals.is_empty() {
                assert_eq!(f32s(view(&prim["attributes"]["NORMAL"])), mesh.normals.as_flattened());
            }
            if !mesh.uvs.is_empty() {
                assert_eq!(f32s(view(&prim["attributes"]["TEXCOORD_0"])), mesh.uvs.as_flattened());
            }
            if let Colours::Rgba8(c) = mesh.colours {
                assert_eq!(view(&prim["attributes"]["COLOR_0"]), c.as_flattened());
            }
            let got: Vec<u32> =
                view(&prim["indices"]).chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            assert_eq!(got, mesh.indices);
        }
    }
}
