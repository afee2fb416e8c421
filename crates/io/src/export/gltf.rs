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

/// The growing BIN chunk with its buffer views and accessors.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    /// Appends `data` as a new view (padded to 4 bytes first) with one accessor; returns the
    /// accessor's index. `extra` holds the accessor's other keys (`min`, `max`, `normalized`).
    fn push(&mut self, data: &[u8], target: Option<u32>, accessor: Value) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(data);
        let mut view = json!({ "buffer": 0, "byteOffset": start, "byteLength": data.len() });
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

fn f32_bytes<const N: usize>(values: &[[f32; N]]) -> Vec<u8> {
    values.iter().flatten().flat_map(|v| v.to_le_bytes()).collect()
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
fn mesh_json(bin: &mut Bin, m: &Mesh) -> Value {
    let n = m.positions.len();
    let (lo, hi) = bounds(m.positions);
    let vec = |t: &str| json!({ "componentType": FLOAT, "count": n, "type": t });
    let mut pos = vec("VEC3");
    pos["min"] = json!(lo);
    pos["max"] = json!(hi);
    let mut attributes = serde_json::Map::new();
    attributes.insert("POSITION".into(), bin.push(&f32_bytes(m.positions), Some(ARRAY_BUFFER), pos).into());
    if !m.normals.is_empty() {
        let a = bin.push(&f32_bytes(m.normals), Some(ARRAY_BUFFER), vec("VEC3"));
        attributes.insert("NORMAL".into(), a.into());
    }
    if !m.uvs.is_empty() {
        attributes.insert("TEXCOORD_0".into(), bin.push(&f32_bytes(m.uvs), Some(ARRAY_BUFFER), vec("VEC2")).into());
    }
    let colour = match m.colours {
        Colours::None => None,
        Colours::Rgba8(c) => {
            let acc = json!({ "componentType": UNSIGNED_BYTE, "normalized": true, "count": n, "type": "VEC4" });
            Some(bin.push(&c.concat(), Some(ARRAY_BUFFER), acc))
        }
        Colours::RgbF32(c) => Some(bin.push(&f32_bytes(c), Some(ARRAY_BUFFER), vec("VEC3"))),
    };
    if let Some(a) = colour {
        attributes.insert("COLOR_0".into(), a.into());
    }
    let idx: Vec<u8> = m.indices.iter().flat_map(|k| k.to_le_bytes()).collect();
    let indices = bin.push(
        &idx,
        Some(ELEMENT_ARRAY_BUFFER),
        json!({ "componentType": UNSIGNED_INT, "count": m.indices.len(), "type": "SCALAR" }),
    );
    json!({ "name": m.name, "primitives": [{ "attributes": attributes, "indices": indices, "mode": 4 }] })
}

/// The `EXT_mesh_gpu_instancing` object of a node's instances, data appended to `bin`.
fn instancing_json(path: &Path, bin: &mut Bin, node: &Node, inst: &Instances) -> Result<Value> {
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
    attributes.insert("TRANSLATION".into(), bin.push(&f32_bytes(inst.translations), None, acc("VEC3")).into());
    if !inst.rotations.is_empty() {
        attributes.insert("ROTATION".into(), bin.push(&f32_bytes(inst.rotations), None, acc("VEC4")).into());
    }
    if !inst.scales.is_empty() {
        attributes.insert("SCALE".into(), bin.push(&f32_bytes(inst.scales), None, acc("VEC3")).into());
    }
    Ok(json!({ INSTANCING: { "attributes": attributes } }))
}

/// The bytes of a GLB holding `scene`; `path` names the file in errors (an inconsistent mesh,
/// a node naming a missing mesh, over 4 GiB).
pub fn encode_scene(path: &Path, scene: &Scene, generator: &str) -> Result<Vec<u8>> {
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
        "accessors": bin.accessors,
        "bufferViews": bin.views,
    });
    if instanced {
        doc["extensionsUsed"] = json!([INSTANCING]);
    }
    container(path, &doc, bin.bytes)
}

/// The GLB container of `doc` and its BIN chunk (omitted when empty).
fn container(path: &Path, doc: &Value, mut bin: Vec<u8>) -> Result<Vec<u8>> {
    if !bin.is_empty() {
        let mut d = doc.clone();
        d["buffers"] = Value::Array(vec![json!({ "byteLength": bin.len() })]);
        return container_text(path, &d, &mut bin);
    }
    container_text(path, doc, &mut bin)
}

fn container_text(path: &Path, doc: &Value, bin: &mut Vec<u8>) -> Result<Vec<u8>> {
    let mut text = serde_json::to_vec(doc).map_err(|e| IoError::Json { path: path.to_path_buf(), error: e })?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
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
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
    }
    Ok(out)
}

/// Write `scene` as a `.glb` (atomically).
pub fn write_scene(path: impl AsRef<Path>, scene: &Scene) -> Result<()> {
    let path = path.as_ref();
    let bytes = encode_scene(path, scene, concat!("bozkir ", env!("CARGO_PKG_VERSION")))?;
    atomic_write(path, |w| write_all(path, w, &bytes))
}
