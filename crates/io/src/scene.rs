//! Reading any mesh or point-cloud file (issue 23): Wavefront OBJ, PLY (ASCII and binary, both
//! byte orders), `.xyz` text and glTF 2.0 (`.glb`, and `.gltf` with embedded data), into one
//! triangle mesh ([`SceneMesh`]) or one point cloud ([`SceneCloud`]). [`read_geometry`] picks the
//! reader by extension. The exact rules of each format are in `docs/formats.md`, section
//! "Reading geometry"; in short:
//!
//! * **OBJ** ([`read_obj`]) — `v x y z [w]` or `v x y z r g b` (colours in 0..1, or 0..255 when
//!   any colour value of the file exceeds 1), `vn`, and `f` whose corners are `v`, `v/t`, `v//n`
//!   or `v/t/n`, 1-based or negative (relative to the vertices read so far). Polygons are fanned
//!   into triangles (corner 0, k, k + 1). Colours are kept only when every `v` has them. Normals
//!   are kept, per vertex, only when every face corner names a `vn` and each vertex is paired
//!   with one `vn` throughout; a vertex that no face uses then gets the zero normal. Other
//!   statements (`vt`, `o`, `g`, `s`, `usemtl`, `mtllib`, `l`, `p`, …) are ignored.
//! * **PLY** ([`read_ply_geometry`]) — header by [`crate::plyfmt`]. `vertex` needs scalar `x y z`
//!   (any type); `nx ny nz` and `red green blue` (`uchar` as is, `ushort` scaled by 255/65535,
//!   `float`/`double` in 0..1) are optional. `face` needs a list `vertex_indices` or
//!   `vertex_index` (any count and index type); polygons are fanned. Other elements and
//!   properties are skipped. A file with at least one face is a [`Geometry::Mesh`], else a
//!   [`Geometry::Cloud`].
//! * **`.xyz`** ([`read_xyz`]) — one point per line, values separated by white space, commas or
//!   semicolons; `#` and `//` start a comment. 3 columns `x y z`; 6 columns `x y z nx ny nz` when
//!   every row's last three have length 1 ± 0.01, else `x y z r g b`; 9 columns
//!   `x y z nx ny nz r g b`. Colours are 0..255, or 0..1 when every colour value is at most 1
//!   and one is fractional. The column count is that of the first row, for every row.
//! * **glTF** ([`read_glb`]) — the default scene (`scene`, else scene 0, else every root node)
//!   flattened into one world-space mesh, in scene order, depth first, primitive by primitive
//!   and, for an instanced node, instance by instance. A node's matrix is its parent's times its
//!   own (`matrix`, or `T·R·S`); an `EXT_mesh_gpu_instancing` instance's is the node's times
//!   the instance's `T·R·S`. Positions are transformed in f64; normals by the inverse transpose
//!   (the cofactor matrix times the sign of the determinant) and renormalised (a degenerate
//!   matrix gives the zero normal); under a mirroring matrix (negative determinant) each
//!   triangle's winding is reversed so front faces stay counter-clockwise. Accessors of any
//!   component type (`BYTE` … `FLOAT`, `normalized` or not, except normalised `UNSIGNED_INT` and
//!   `FLOAT`, which glTF forbids) are read for POSITION, NORMAL, COLOR_0 (`VEC3` or `VEC4`,
//!   alpha ignored) and the instance TRANSLATION/ROTATION/SCALE; indices are `UNSIGNED_BYTE`,
//!   `UNSIGNED_SHORT` or `UNSIGNED_INT`, or absent (vertices in order); `byteStride` is honoured.
//!   Colour is COLOR_0 (linear) times the material's `baseColorFactor`, converted to sRGB; the
//!   mesh has colours when any primitive has COLOR_0 or a `baseColorFactor` (the others are
//!   white), normals only when every primitive has NORMAL.
//!
//! Refused, each with an [`IoError`] naming the file and the offending value: empty files,
//! truncated data, NaN or infinite coordinates or normals, indices past the vertices, faces of
//! fewer than 3 corners, counts past [`MAX_POINTS`] vertices or [`MAX_INDICES`] indices (checked
//! against the file's length, or before expanding instances, so nothing is allocated from an
//! unverified count), lines longer than [`MAX_LINE`]; in glTF, a primitive whose mode is not 4
//! (triangles) — an error rather than a silent skip, so a scene is never drawn with parts
//! missing —, sparse accessors, accessors with no buffer view, buffers in external files, a JSON
//! chunk that is not JSON, an `extensionsRequired` entry this reader does not know
//! (compression), a glTF version other than 2, and a node tree with a cycle or a shared node.
//! Nothing panics on bad input.

use crate::error::{IoError, Result};
use crate::fsio::open_nonempty;
use crate::limits::MAX_POINTS;
use crate::plyfmt::{parse_header, Element, Format, Property, Scalar};
use serde_json::Value;
use std::borrow::Cow;
use std::io::{BufRead, Read};
use std::path::Path;

/// Largest number of triangle corners (indices) a reader returns: three per vertex allowed.
pub const MAX_INDICES: u64 = 3 * MAX_POINTS;
/// Longest line of an OBJ or `.xyz` file, in bytes (1 MiB).
pub const MAX_LINE: usize = 1 << 20;
/// Largest glTF file read, in bytes (a GLB's length field is 32 bits).
pub const MAX_GLTF_BYTES: u64 = u32::MAX as u64;

/// A triangle mesh read from a file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SceneMesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex (zero where none is defined), or none.
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB colours, one per vertex, or none.
    pub colours: Option<Vec<[u8; 3]>>,
    /// Three indices per triangle, each below `positions.len()`.
    pub indices: Vec<u32>,
}

/// A point cloud read from a file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SceneCloud {
    /// Point positions (f64, so large georeferenced coordinates keep their precision).
    pub positions: Vec<[f64; 3]>,
    /// Normals, one per point, or none.
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB colours, one per point, or none.
    pub colours: Option<Vec<[u8; 3]>>,
}

/// What a geometry file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// Triangles.
    Mesh(SceneMesh),
    /// Points only.
    Cloud(SceneCloud),
}

/// The extensions [`read_geometry`] accepts, in the order of its error message.
pub const SUPPORTED_EXTENSIONS: [&str; 6] = ["obj", "ply", "xyz", "txt", "glb", "gltf"];

/// Read a mesh or point cloud by extension (case-insensitive): `.obj` (a mesh, or a cloud when
/// it has no faces), `.ply` ([`read_ply_geometry`]), `.xyz`/`.txt` ([`read_xyz`]),
/// `.glb`/`.gltf` ([`read_glb`]). Any other extension is refused, listing these.
pub fn read_geometry(path: impl AsRef<Path>) -> Result<Geometry> {
    let path = path.as_ref();
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "obj" => {
            let m = parse_obj(path)?;
            if m.indices.is_empty() {
                let positions = m.positions.iter().map(|p| p.map(f64::from)).collect();
                Ok(Geometry::Cloud(SceneCloud { positions, normals: None, colours: m.colours }))
            } else {
                Ok(Geometry::Mesh(m))
            }
        }
        "ply" => read_ply_geometry(path),
        "xyz" | "txt" => read_xyz(path).map(Geometry::Cloud),
        "glb" | "gltf" => read_glb(path).map(Geometry::Mesh),
        other => Err(IoError::unsupported(
            path,
            format!(
                "geometry file extension {other:?} (supported: {})",
                SUPPORTED_EXTENSIONS.map(|e| format!(".{e}")).join(", ")
            ),
        )),
    }
}

// ------------------------------------------------------------------ shared helpers

fn too_many(path: &Path, what: &'static str, count: u64, limit: u64) -> IoError {
    IoError::TooMany { path: path.to_path_buf(), what, count, limit }
}

/// Reads lines of at most [`MAX_LINE`] bytes, counting them from 1.
struct Lines<'a, R> {
    path: &'a Path,
    r: R,
    buf: Vec<u8>,
    no: usize,
}

impl<'a, R: BufRead> Lines<'a, R> {
    fn new(path: &'a Path, r: R) -> Self {
        Lines { path, r, buf: Vec::new(), no: 0 }
    }

    /// The next line without its line end, or `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<Cow<'_, str>>> {
        self.buf.clear();
        let n = self
            .r
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| IoError::io(self.path, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.no += 1;
        if n > MAX_LINE {
            return Err(too_many(self.path, "bytes in one line", n as u64, MAX_LINE as u64));
        }
        Ok(Some(String::from_utf8_lossy(&self.buf)))
    }
}

/// A colour value in 0..1 (or 0..255 when `byte_scale`) as an sRGB byte.
fn colour_byte(v: f32, byte_scale: bool) -> u8 {
    let v = if byte_scale { v } else { v * 255.0 };
    v.round().clamp(0.0, 255.0) as u8
}

/// Linear 0..1 → sRGB byte (IEC 61966-2-1 transfer function).
fn linear_to_srgb8(c: f64) -> u8 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    let s = if c <= 0.003_130_8 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (s * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Checks every index against `n` vertices and the count against whole triangles.
fn check_indices(path: &Path, format: &'static str, indices: &[u32], n: usize) -> Result<()> {
    if let Some(k) = indices.iter().position(|&i| i as usize >= n) {
        return Err(IoError::malformed(
            path,
            format,
            format!("triangle corner {k} names vertex {} but there are {n} vertices", indices[k]),
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------ OBJ

/// Read a Wavefront OBJ as a triangle mesh (see the module docs); an OBJ with no face is
/// refused as [`IoError::Empty`] ([`read_geometry`] reads it as a cloud).
pub fn read_obj(path: impl AsRef<Path>) -> Result<SceneMesh> {
    let path = path.as_ref();
    let m = parse_obj(path)?;
    if m.indices.is_empty() {
        return Err(IoError::Empty {
            path: path.to_path_buf(),
            what: format!("OBJ with {} vertices and no face", m.positions.len()),
        });
    }
    Ok(m)
}

/// 0-based index of OBJ reference `tok` among `count` items read so far (negative = relative).
fn obj_index(path: &Path, line: usize, tok: &str, count: usize, what: &str) -> Result<u32> {
    let bad = |d: String| IoError::malformed(path, "OBJ", format!("line {line}: {d}"));
    let i: i64 = tok.parse().map_err(|_| bad(format!("{what} index {tok:?}")))?;
    let k = match i {
        0 => return Err(bad(format!("{what} index 0 (indices start at 1)"))),
        i if i > 0 => i - 1,
        i => count as i64 + i,
    };
    if k < 0 {
        return Err(bad(format!("{what} index {i} reaches before the first of {count}")));
    }
    u32::try_from(k).ok().filter(|&k| u64::from(k) < MAX_POINTS).ok_or_else(|| bad(format!("{what} index {i}")))
}

/// An OBJ, faces optional.
fn parse_obj(path: &Path) -> Result<SceneMesh> {
    let (r, _) = open_nonempty(path)?;
    let mut lines = Lines::new(path, r);
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut colours: Vec<[f32; 3]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    // The vn of each corner, NONE when the corner has none.
    const NONE: u32 = u32::MAX;
    let mut corner_normals: Vec<u32> = Vec::new();
    let mut corners: Vec<(u32, u32)> = Vec::new();
    let mut vals: Vec<f32> = Vec::new();
    loop {
        let no = lines.no + 1;
        let Some(line) = lines.next_line()? else { break };
        let bad = |d: String| IoError::malformed(path, "OBJ", format!("line {no}: {d}"));
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        match key {
            "v" | "vn" => {
                vals.clear();
                for w in words {
                    if w.starts_with('#') {
                        break;
                    }
                    let v: f32 = w.parse().map_err(|_| bad(format!("{key} value {w:?}")))?;
                    if !v.is_finite() {
                        return Err(bad(format!("{key} value {w} is not finite")));
                    }
                    vals.push(v);
                }
                let xyz = vals.get(..3).map(|s| [s[0], s[1], s[2]]);
                if key == "vn" {
                    match (xyz, vals.len()) {
                        (Some(n), 3) => normals.push(n),
                        _ => return Err(bad(format!("vn has {} values (need 3)", vals.len()))),
                    }
                    if normals.len() as u64 > MAX_POINTS {
                        return Err(too_many(path, "OBJ normals", normals.len() as u64, MAX_POINTS));
                    }
                    continue;
                }
                let Some(p) = xyz else {
                    return Err(bad(format!("v has {} values (need 3, 4 or 6)", vals.len())));
                };
                match vals.len() {
                    3 | 4 => {}
                    6 => {
                        if colours.len() == positions.len() {
                            colours.push([vals[3], vals[4], vals[5]]);
                        }
                    }
                    n => return Err(bad(format!("v has {n} values (need 3, 4 or 6)"))),
                }
                positions.push(p);
                if positions.len() as u64 > MAX_POINTS {
                    return Err(too_many(path, "OBJ vertices", positions.len() as u64, MAX_POINTS));
                }
            }
            "f" => {
                corners.clear();
                for w in words {
                    if w.starts_with('#') {
                        break;
                    }
                    let mut parts = w.split('/');
                    let v = obj_index(path, no, parts.next().unwrap_or(""), positions.len(), "vertex")?;
                    let _texture = parts.next();
                    let n = match parts.next() {
                        None | Some("") => NONE,
                        Some(t) => obj_index(path, no, t, normals.len(), "normal")?,
                    };
                    if parts.next().is_some() {
                        return Err(bad(format!("face corner {w:?}")));
                    }
                    corners.push((v, n));
                }
                if corners.len() < 3 {
                    return Err(bad(format!("a face of {} corners", corners.len())));
                }
                let added = 3 * (corners.len() as u64 - 2);
                if indices.len() as u64 + added > MAX_INDICES {
                    return Err(too_many(path, "OBJ triangle corners", indices.len() as u64 + added, MAX_INDICES));
                }
                for k in 1..corners.len() - 1 {
                    for c in [corners[0], corners[k], corners[k + 1]] {
                        indices.push(c.0);
                        corner_normals.push(c.1);
                    }
                }
            }
            _ => {}
        }
    }
    let n = positions.len();
    if n == 0 {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "OBJ with no vertex".into() });
    }
    check_indices(path, "OBJ", &indices, n)?;
    if let Some(&k) = corner_normals.iter().find(|&&k| k != NONE && k as usize >= normals.len()) {
        return Err(IoError::malformed(
            path,
            "OBJ",
            format!("a face names normal {} but there are {} normals", k as u64 + 1, normals.len()),
        ));
    }
    // One vn per vertex, every corner with one.
    let per_vertex = if !indices.is_empty() && corner_normals.iter().all(|&k| k != NONE) {
        let mut map = vec![NONE; n];
        let consistent = indices.iter().zip(&corner_normals).all(|(&v, &k)| {
            let slot = &mut map[v as usize];
            if *slot == NONE {
                *slot = k;
            }
            *slot == k
        });
        consistent.then(|| map.iter().map(|&k| if k == NONE { [0.0; 3] } else { normals[k as usize] }).collect())
    } else {
        None
    };
    let colours = (colours.len() == n).then(|| {
        let byte_scale = colours.iter().flatten().any(|&v| v > 1.0);
        colours.iter().map(|c| c.map(|v| colour_byte(v, byte_scale))).collect()
    });
    Ok(SceneMesh { positions, normals: per_vertex, colours, indices })
}

// ------------------------------------------------------------------ PLY

/// The body of a PLY file, value by value.
struct PlyBody<'a, R> {
    path: &'a Path,
    r: R,
    format: Format,
    line: String,
    words: Vec<String>,
    pos: usize,
}

impl<R: BufRead> PlyBody<'_, R> {
    fn value(&mut self, t: Scalar) -> Result<f64> {
        if self.format != Format::Ascii {
            let mut b = [0u8; 8];
            self.r.read_exact(&mut b[..t.size()]).map_err(|e| IoError::io(self.path, e))?;
            return Ok(t.read_f64(&b, self.format == Format::Big));
        }
        while self.pos >= self.words.len() {
            self.line.clear();
            let n = self
                .r
                .by_ref()
                .take(MAX_LINE as u64 + 1)
                .read_line(&mut self.line)
                .map_err(|e| IoError::io(self.path, e))?;
            if n == 0 {
                return Err(IoError::truncated(self.path, "ASCII PLY body ends early"));
            }
            if n > MAX_LINE {
                return Err(too_many(self.path, "bytes in one line", n as u64, MAX_LINE as u64));
            }
            self.words = self.line.split_whitespace().map(str::to_owned).collect();
            self.pos = 0;
        }
        let w = &self.words[self.pos];
        self.pos += 1;
        // A float token is parsed as f32 directly, so that its bits round-trip.
        let parsed = if t == Scalar::F32 { w.parse::<f32>().map(f64::from).ok() } else { w.parse::<f64>().ok() };
        let v = parsed.ok_or_else(|| IoError::malformed(self.path, "PLY", format!("ASCII value {w:?}")))?;
        if t != Scalar::F32 && t != Scalar::F64 && v.fract() != 0.0 {
            return Err(IoError::malformed(self.path, "PLY", format!("ASCII value {w:?} of an integer property")));
        }
        Ok(v)
    }

    fn list_len(&mut self, ct: Scalar) -> Result<usize> {
        let n = self.value(ct)?;
        if !((0.0..=1e6).contains(&n) && n.fract() == 0.0) {
            return Err(IoError::malformed(self.path, "PLY", format!("list length {n}")));
        }
        Ok(n as usize)
    }

    fn skip_list(&mut self, ct: Scalar, it: Scalar) -> Result<()> {
        for _ in 0..self.list_len(ct)? {
            self.value(it)?;
        }
        Ok(())
    }
}

/// What a vertex property is used for.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Pos(usize),
    Normal(usize),
    Colour(usize),
    Other,
}

/// Fewest bytes one record of `el` can take.
fn min_record_bytes(el: &Element, format: Format) -> u64 {
    if format == Format::Ascii {
        return 2 * el.props.len() as u64;
    }
    el.props
        .iter()
        .map(|p| match p {
            Property::Scalar(t, _) | Property::List(t, _, _) => t.size() as u64,
        })
        .sum()
}

/// Read a PLY file as a mesh (when it has faces) or a point cloud (see the module docs).
pub fn read_ply_geometry(path: impl AsRef<Path>) -> Result<Geometry> {
    let path = path.as_ref();
    let (mut r, len) = open_nonempty(path)?;
    let header = parse_header(path, &mut r)?;
    let body_len = len.saturating_sub(header.len);
    let vi = header
        .elements
        .iter()
        .position(|e| e.name == "vertex")
        .ok_or_else(|| IoError::missing(path, "PLY element \"vertex\""))?;
    for (k, el) in header.elements.iter().enumerate() {
        if (el.name == "vertex" || el.name == "face") && header.elements[..k].iter().any(|e| e.name == el.name) {
            return Err(IoError::malformed(path, "PLY", format!("two {:?} elements", el.name)));
        }
        let min = min_record_bytes(el, header.format);
        if min > 0 && el.count.saturating_mul(min) > body_len {
            return Err(IoError::truncated(
                path,
                format!("{} {} records of at least {min} bytes do not fit in {body_len} bytes", el.count, el.name),
            ));
        }
    }
    let vertex = &header.elements[vi];
    if vertex.count > MAX_POINTS {
        return Err(too_many(path, "PLY vertices", vertex.count, MAX_POINTS));
    }
    let names = [["x", "y", "z"], ["nx", "ny", "nz"], ["red", "green", "blue"]];
    let mut roles = Vec::with_capacity(vertex.props.len());
    let mut seen = [[false; 3]; 3];
    let mut colour_type = None;
    for p in &vertex.props {
        let role = match p {
            Property::Scalar(t, name) => {
                match names.iter().enumerate().find_map(|(g, n)| n.iter().position(|a| a == name).map(|a| (g, a))) {
                    Some((g, a)) => {
                        seen[g][a] = true;
                        if g == 2 {
                            if !matches!(t, Scalar::U8 | Scalar::U16 | Scalar::F32 | Scalar::F64) {
                                return Err(IoError::unsupported(path, format!("PLY colour type {t:?} of {name}")));
                            }
                            if colour_type.is_some_and(|c| c != *t) {
                                return Err(IoError::unsupported(path, "PLY colour channels of different types"));
                            }
                            colour_type = Some(*t);
                        }
                        [Role::Pos(a), Role::Normal(a), Role::Colour(a)][g]
                    }
                    None => Role::Other,
                }
            }
            Property::List(..) => Role::Other,
        };
        roles.push(role);
    }
    if !seen[0].iter().all(|&s| s) {
        return Err(IoError::missing(path, "PLY vertex property x, y or z (all three are required)"));
    }
    let has_normals = seen[1].iter().all(|&s| s);
    let has_colours = seen[2].iter().all(|&s| s);
    let colour_scale = match colour_type {
        Some(Scalar::U8) => 1.0,
        Some(Scalar::U16) => 255.0 / 65535.0,
        _ => 255.0,
    };
    let face = header.elements.iter().find(|e| e.name == "face");
    let face_list = match face {
        Some(f) => Some(
            f.props
                .iter()
                .position(|p| matches!(p, Property::List(_, _, n) if n == "vertex_indices" || n == "vertex_index"))
                .ok_or_else(|| IoError::missing(path, "PLY face list \"vertex_indices\""))?,
        ),
        None => None,
    };
    if let Some(f) = face {
        if f.count > MAX_INDICES / 3 {
            return Err(too_many(path, "PLY faces", f.count, MAX_INDICES / 3));
        }
    }

    let n = vertex.count as usize;
    let mut positions: Vec<[f64; 3]> = Vec::with_capacity(n);
    let mut normals: Vec<[f32; 3]> = Vec::with_capacity(if has_normals { n } else { 0 });
    let mut colours: Vec<[u8; 3]> = Vec::with_capacity(if has_colours { n } else { 0 });
    let mut indices: Vec<u32> = Vec::with_capacity(face.map_or(0, |f| 3 * f.count as usize));
    let mut body = PlyBody { path, r, format: header.format, line: String::new(), words: Vec::new(), pos: 0 };
    let mut poly: Vec<u32> = Vec::new();
    for el in &header.elements {
        if el.props.is_empty() {
            continue;
        }
        if el.name == "vertex" {
            for k in 0..el.count {
                let (mut p, mut nm, mut c) = ([0.0f64; 3], [0.0f32; 3], [0u8; 3]);
                for (prop, role) in el.props.iter().zip(&roles) {
                    match (prop, role) {
                        (Property::List(ct, it, _), _) => body.skip_list(*ct, *it)?,
                        (Property::Scalar(t, _), role) => {
                            let v = body.value(*t)?;
                            match *role {
                                Role::Pos(a) => p[a] = v,
                                Role::Normal(a) => nm[a] = v as f32,
                                Role::Colour(a) => c[a] = (v * colour_scale).round().clamp(0.0, 255.0) as u8,
                                Role::Other => {}
                            }
                        }
                    }
                }
                if p.iter().any(|v| !v.is_finite()) {
                    return Err(IoError::malformed(path, "PLY", format!("vertex {k} has position {p:?}")));
                }
                positions.push(p);
                if has_normals {
                    if nm.iter().any(|v| !v.is_finite()) {
                        return Err(IoError::malformed(path, "PLY", format!("vertex {k} has normal {nm:?}")));
                    }
                    normals.push(nm);
                }
                if has_colours {
                    colours.push(c);
                }
            }
        } else if el.name == "face" {
            for k in 0..el.count {
                for (j, prop) in el.props.iter().enumerate() {
                    match prop {
                        Property::List(ct, it, _) if Some(j) == face_list => {
                            let len = body.list_len(*ct)?;
                            if len < 3 {
                                return Err(IoError::malformed(path, "PLY", format!("face {k} has {len} corners")));
                            }
                            poly.clear();
                            for _ in 0..len {
                                let v = body.value(*it)?;
                                if !(0.0..u32::MAX as f64).contains(&v) {
                                    return Err(IoError::malformed(path, "PLY", format!("face {k} names vertex {v}")));
                                }
                                poly.push(v as u32);
                            }
                            let added = 3 * (len as u64 - 2);
                            if indices.len() as u64 + added > MAX_INDICES {
                                return Err(too_many(
                                    path,
                                    "PLY triangle corners",
                                    indices.len() as u64 + added,
                                    MAX_INDICES,
                                ));
                            }
                            for t in 1..len - 1 {
                                indices.extend_from_slice(&[poly[0], poly[t], poly[t + 1]]);
                            }
                        }
                        Property::List(ct, it, _) => body.skip_list(*ct, *it)?,
                        Property::Scalar(t, _) => {
                            body.value(*t)?;
                        }
                    }
                }
            }
        } else {
            for _ in 0..el.count {
                for prop in &el.props {
                    match prop {
                        Property::List(ct, it, _) => body.skip_list(*ct, *it)?,
                        Property::Scalar(t, _) => {
                            body.value(*t)?;
                        }
                    }
                }
            }
        }
    }
    if positions.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "PLY with no vertex".into() });
    }
    check_indices(path, "PLY", &indices, positions.len())?;
    let normals = has_normals.then_some(normals);
    let colours = has_colours.then_some(colours);
    if indices.is_empty() {
        return Ok(Geometry::Cloud(SceneCloud { positions, normals, colours }));
    }
    let positions32: Vec<[f32; 3]> = positions.iter().map(|p| p.map(|v| v as f32)).collect();
    if let Some(k) = positions32.iter().position(|p| p.iter().any(|v| !v.is_finite())) {
        return Err(IoError::malformed(path, "PLY", format!("vertex {k} at {:?} overflows f32", positions[k])));
    }
    Ok(Geometry::Mesh(SceneMesh { positions: positions32, normals, colours, indices }))
}

// ------------------------------------------------------------------ XYZ

/// Read an `.xyz` text point cloud (see the module docs).
pub fn read_xyz(path: impl AsRef<Path>) -> Result<SceneCloud> {
    let path = path.as_ref();
    let (r, _) = open_nonempty(path)?;
    let mut lines = Lines::new(path, r);
    let mut columns = 0usize;
    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut extra: Vec<[f32; 6]> = Vec::new();
    let mut row = [0f64; 9];
    let mut row32 = [0f32; 9];
    loop {
        let no = lines.no + 1;
        let Some(line) = lines.next_line()? else { break };
        let text = line.split('#').next().unwrap_or("");
        let text = text.split("//").next().unwrap_or("");
        let mut k = 0;
        for w in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';').filter(|w| !w.is_empty()) {
            let v: f64 = w
                .parse()
                .map_err(|_| IoError::malformed(path, "XYZ", format!("line {no}: value {w:?} is not a number")))?;
            if !v.is_finite() {
                return Err(IoError::malformed(path, "XYZ", format!("line {no}: value {w} is not finite")));
            }
            if k < row.len() {
                row[k] = v;
                // Normals and colours are f32: parsed directly so their bits round-trip.
                row32[k] = w.parse().unwrap_or(v as f32);
            }
            k += 1;
        }
        if k == 0 {
            continue;
        }
        if columns == 0 {
            if ![3, 6, 9].contains(&k) {
                return Err(IoError::unsupported(
                    path,
                    format!("XYZ with {k} columns on line {no} (3, 6 or 9: x y z [nx ny nz] [r g b])"),
                ));
            }
            columns = k;
        } else if k != columns {
            return Err(IoError::malformed(path, "XYZ", format!("line {no} has {k} values, the first row {columns}")));
        }
        positions.push([row[0], row[1], row[2]]);
        if columns > 3 {
            extra.push(std::array::from_fn(|i| row32[3 + i]));
        }
        if positions.len() as u64 > MAX_POINTS {
            return Err(too_many(path, "XYZ points", positions.len() as u64, MAX_POINTS));
        }
    }
    if positions.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "XYZ with no point".into() });
    }
    let unit = |v: &[f32]| ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt() - 1.0).abs() <= 0.01;
    let (normals_at, colours_at) = match columns {
        3 => (None, None),
        6 if extra.iter().all(|e| unit(&e[..3])) => (Some(0), None),
        6 => (None, Some(0)),
        _ => (Some(0), Some(3)),
    };
    let normals = normals_at.map(|a| extra.iter().map(|e| [e[a], e[a + 1], e[a + 2]]).collect());
    let colours = match colours_at {
        Some(a) => {
            let vals = || extra.iter().flat_map(|e| e[a..a + 3].iter().copied());
            let unit_scale = vals().all(|v| v <= 1.0) && vals().any(|v| v.fract() != 0.0);
            if let Some(v) = vals().find(|v| !(0.0..=255.0).contains(v)) {
                return Err(IoError::malformed(path, "XYZ", format!("colour value {v} outside 0..255")));
            }
            Some(extra.iter().map(|e| std::array::from_fn(|i| colour_byte(e[a + i], !unit_scale))).collect())
        }
        None => None,
    };
    Ok(SceneCloud { positions, normals, colours })
}

// ------------------------------------------------------------------ glTF

/// Column-major 4×4 matrix (`m[col * 4 + row]`).
type Mat4 = [f64; 16];

const IDENTITY: Mat4 = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    std::array::from_fn(|i| {
        let (c, r) = (i / 4, i % 4);
        (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum()
    })
}

/// `T·R·S` of a translation, a quaternion (x, y, z, w; normalised here) and a scale.
fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat4 {
    let len = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let [x, y, z, w] = if len > 0.0 { q.map(|v| v / len) } else { [0.0, 0.0, 0.0, 1.0] };
    let r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)],
        [2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)],
        [2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)],
    ];
    let mut m = IDENTITY;
    for c in 0..3 {
        for row in 0..3 {
            m[c * 4 + row] = r[c][row] * s[c];
        }
        m[12 + c] = t[c];
    }
    m
}

fn apply_point(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
}

/// Determinant and (sign of determinant) × cofactor matrix of the upper 3×3 of `m`, as rows.
fn normal_matrix(m: &Mat4) -> (f64, [[f64; 3]; 3]) {
    let a = |r: usize, c: usize| m[c * 4 + r];
    let cof = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)
    };
    let det = a(0, 0) * cof(0, 0) + a(0, 1) * cof(0, 1) + a(0, 2) * cof(0, 2);
    let sign = if det < 0.0 { -1.0 } else { 1.0 };
    (det, std::array::from_fn(|r| std::array::from_fn(|c| sign * cof(r, c))))
}

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const MODE_TRIANGLES: u64 = 4;
/// Required extensions that do not change how geometry is read.
const HARMLESS_EXTENSIONS: [&str; 3] = ["EXT_mesh_gpu_instancing", "KHR_mesh_quantization", "KHR_texture_transform"];

/// A parsed glTF document and its buffers.
struct Gltf<'a> {
    path: &'a Path,
    doc: Value,
    /// Each buffer's bytes, or why it cannot be had.
    buffers: Vec<std::result::Result<Vec<u8>, String>>,
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decode standard base64 (padding optional, no white space).
fn base64_decode(s: &str) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    let body = s.trim_end_matches('=');
    if s.len() - body.len() > 2 {
        return Err("more than two '=' at the end of base64".into());
    }
    for (i, c) in body.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("byte {c:#04x} at {i} is not base64")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("base64 length is one past a whole group".into());
    }
    Ok(out)
}

/// The glTF component type `ct` as (size in bytes, name).
fn component(ct: u64) -> Option<(usize, &'static str)> {
    Some(match ct {
        5120 => (1, "BYTE"),
        5121 => (1, "UNSIGNED_BYTE"),
        5122 => (2, "SHORT"),
        5123 => (2, "UNSIGNED_SHORT"),
        5125 => (4, "UNSIGNED_INT"),
        5126 => (4, "FLOAT"),
        _ => return None,
    })
}

/// One component of type `ct` at the start of `b`, normalised when asked (glTF §3.11).
fn read_component(ct: u64, normalized: bool, b: &[u8]) -> f64 {
    let (v, max) = match ct {
        5120 => (f64::from(b[0] as i8), 127.0),
        5121 => (f64::from(b[0]), 255.0),
        5122 => (f64::from(i16::from_le_bytes([b[0], b[1]])), 32767.0),
        5123 => (f64::from(u16::from_le_bytes([b[0], b[1]])), 65535.0),
        5125 => (f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])), 1.0),
        _ => (f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])), 1.0),
    };
    if normalized {
        (v / max).max(-1.0)
    } else {
        v
    }
}

/// Where an accessor's elements lie, every bound checked.
struct Layout<'b> {
    /// From the first element to the end of its buffer view.
    bytes: &'b [u8],
    stride: usize,
    comps: usize,
    /// glTF component type.
    ct: u64,
    normalized: bool,
    count: usize,
}

/// A decoded accessor: `comps` values per element.
struct Decoded {
    comps: usize,
    values: Vec<f64>,
}

impl Decoded {
    fn count(&self) -> usize {
        self.values.len() / self.comps
    }
    fn get<const N: usize>(&self, i: usize) -> [f64; N] {
        std::array::from_fn(|k| if k < self.comps { self.values[i * self.comps + k] } else { 0.0 })
    }
}

impl<'a> Gltf<'a> {
    fn bad(&self, detail: String) -> IoError {
        IoError::malformed(self.path, "glTF", detail)
    }

    /// Parse a GLB container or a glTF JSON text.
    fn parse(path: &'a Path, bytes: Vec<u8>) -> Result<Self> {
        let mut bin = None;
        let json: &[u8] = if bytes.starts_with(GLB_MAGIC) {
            if bytes.len() < 12 {
                return Err(IoError::truncated(path, format!("GLB header needs 12 bytes, file has {}", bytes.len())));
            }
            let version = le_u32(&bytes, 4);
            if version != 2 {
                return Err(IoError::unsupported(path, format!("GLB container version {version} (only 2)")));
            }
            let total = le_u32(&bytes, 8) as usize;
            if total > bytes.len() {
                return Err(IoError::truncated(path, format!("GLB says {total} bytes, file has {}", bytes.len())));
            }
            let data = &bytes[..total];
            if data.len() < 20 {
                return Err(IoError::truncated(path, "GLB has no JSON chunk header"));
            }
            let (jlen, jtype) = (le_u32(data, 12) as usize, le_u32(data, 16));
            if jtype != CHUNK_JSON {
                return Err(IoError::malformed(path, "GLB", format!("first chunk type {jtype:#010x} is not JSON")));
            }
            let jend = 20usize.checked_add(jlen).filter(|&e| e <= data.len()).ok_or_else(|| {
                IoError::truncated(path, format!("JSON chunk of {jlen} bytes past the end of {total}"))
            })?;
            let mut at = jend.next_multiple_of(4);
            while at + 8 <= data.len() {
                let (clen, ctype) = (le_u32(data, at) as usize, le_u32(data, at + 4));
                let end = (at + 8).checked_add(clen).filter(|&e| e <= data.len()).ok_or_else(|| {
                    IoError::truncated(path, format!("chunk of {clen} bytes at {at} past the end of {total}"))
                })?;
                if ctype == CHUNK_BIN && bin.is_none() {
                    bin = Some(data[at + 8..end].to_vec());
                }
                at = end.next_multiple_of(4);
            }
            &bytes[20..jend]
        } else {
            &bytes
        };
        let doc: Value =
            serde_json::from_slice(json).map_err(|e| IoError::NotJson { path: path.to_path_buf(), error: e })?;
        if !doc.is_object() {
            return Err(IoError::malformed(path, "glTF", "the JSON is not an object"));
        }
        if let Some(v) = doc.pointer("/asset/version").and_then(Value::as_str) {
            if v.split('.').next() != Some("2") {
                return Err(IoError::unsupported(path, format!("glTF version {v:?} (only 2.x)")));
            }
        }
        if let Some(req) = doc.get("extensionsRequired").and_then(Value::as_array) {
            for e in req {
                let name = e.as_str().unwrap_or("");
                if !HARMLESS_EXTENSIONS.contains(&name) && !name.starts_with("KHR_materials_") {
                    return Err(IoError::unsupported(path, format!("required glTF extension {e}")));
                }
            }
        }
        let mut g = Gltf { path, doc, buffers: Vec::new() };
        let list = g.array("buffers")?.to_vec();
        for (i, b) in list.iter().enumerate() {
            let declared = g.u64_of(b, "byteLength", &format!("buffers[{i}]"))?;
            let data = match b.get("uri").and_then(Value::as_str) {
                None if i == 0 => bin.take().ok_or_else(|| "buffer 0 has no uri and the file no BIN chunk".to_string()),
                None => Err(format!("buffer {i} has no uri")),
                Some(uri) if uri.starts_with("data:") => match uri.split_once(";base64,") {
                    Some((_, b64)) => base64_decode(b64).map_err(|e| format!("buffer {i}: {e}")),
                    None => Err(format!("buffer {i}: a data: URI that is not base64")),
                },
                Some(uri) => Err(format!("buffer {i} is in an external file {uri:?} (only embedded data is read)")),
            };
            let data = match (data, declared) {
                (Ok(d), Some(n)) if (d.len() as u64) < n => {
                    Err(format!("buffer {i} has {} bytes, byteLength says {n}", d.len()))
                }
                (d, _) => d,
            };
            g.buffers.push(data);
        }
        Ok(g)
    }

    /// Top-level array `key` (empty when absent).
    fn array(&self, key: &str) -> Result<&[Value]> {
        match self.doc.get(key) {
            None => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => Err(self.bad(format!("{key} is not an array"))),
        }
    }

    /// Entry `i` of top-level array `key`.
    fn item(&self, key: &str, i: u64) -> Result<&Value> {
        let a = self.array(key)?;
        usize::try_from(i)
            .ok()
            .and_then(|i| a.get(i))
            .ok_or_else(|| self.bad(format!("{key}[{i}] does not exist ({} entries)", a.len())))
    }

    /// Optional non-negative integer `key` of `obj`.
    fn u64_of(&self, obj: &Value, key: &str, ctx: &str) -> Result<Option<u64>> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| self.bad(format!("{ctx}.{key} is {v}, not an index"))),
        }
    }

    /// Optional array of `N` numbers `key` of `obj`.
    fn floats_of<const N: usize>(&self, obj: &Value, key: &str, ctx: &str) -> Result<Option<[f64; N]>> {
        let Some(v) = obj.get(key) else { return Ok(None) };
        let bad = || self.bad(format!("{ctx}.{key} is not {N} finite numbers"));
        let a = v.as_array().filter(|a| a.len() == N).ok_or_else(bad)?;
        let mut out = [0.0; N];
        for (o, x) in out.iter_mut().zip(a) {
            *o = x.as_f64().filter(|f| f.is_finite()).ok_or_else(bad)?;
        }
        Ok(Some(out))
    }

    /// The bytes, stride and layout of accessor `idx` after every bound is checked.
    fn accessor_layout(&self, idx: u64, types: &[&str]) -> Result<Layout<'_>> {
        let ctx = format!("accessors[{idx}]");
        let a = self.item("accessors", idx)?;
        if a.get("sparse").is_some() {
            return Err(IoError::unsupported(self.path, format!("sparse accessor {idx}")));
        }
        let ty = a.get("type").and_then(Value::as_str).unwrap_or("");
        let comps = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 0,
        };
        if comps == 0 || !types.contains(&ty) {
            return Err(self.bad(format!("{ctx}.type is {ty:?}, expected one of {types:?}")));
        }
        let ct = self.u64_of(a, "componentType", &ctx)?.unwrap_or(0);
        let (csize, cname) =
            component(ct).ok_or_else(|| self.bad(format!("{ctx}.componentType {ct} is not a glTF type")))?;
        let normalized = a.get("normalized").and_then(Value::as_bool).unwrap_or(false);
        if normalized && (ct == 5125 || ct == 5126) {
            return Err(self.bad(format!("{ctx} is a normalized {cname}, which glTF forbids")));
        }
        let count = self.u64_of(a, "count", &ctx)?.ok_or_else(|| self.bad(format!("{ctx} has no count")))?;
        if count > MAX_POINTS {
            return Err(too_many(self.path, "glTF accessor elements", count, MAX_POINTS));
        }
        let view_idx = self.u64_of(a, "bufferView", &ctx)?.ok_or_else(|| {
            IoError::unsupported(self.path, format!("{ctx} with no bufferView (zero-filled accessors)"))
        })?;
        let vctx = format!("bufferViews[{view_idx}]");
        let view = self.item("bufferViews", view_idx)?;
        let buf_idx = self.u64_of(view, "buffer", &vctx)?.ok_or_else(|| self.bad(format!("{vctx} has no buffer")))?;
        let buffer = match usize::try_from(buf_idx).ok().and_then(|i| self.buffers.get(i)) {
            Some(Ok(b)) => b.as_slice(),
            Some(Err(why)) => return Err(self.bad(why.clone())),
            None => return Err(self.bad(format!("{vctx}.buffer {buf_idx} does not exist"))),
        };
        let v_off = self.u64_of(view, "byteOffset", &vctx)?.unwrap_or(0);
        let v_len =
            self.u64_of(view, "byteLength", &vctx)?.ok_or_else(|| self.bad(format!("{vctx} has no byteLength")))?;
        if v_off.saturating_add(v_len) > buffer.len() as u64 {
            return Err(IoError::truncated(
                self.path,
                format!("{vctx} ends at byte {} of a {}-byte buffer", v_off.saturating_add(v_len), buffer.len()),
            ));
        }
        let elem = (comps * csize) as u64;
        let stride = self.u64_of(view, "byteStride", &vctx)?.unwrap_or(elem);
        if stride < elem || stride > 252 {
            return Err(self.bad(format!("{vctx}.byteStride {stride} for elements of {elem} bytes")));
        }
        let a_off = self.u64_of(a, "byteOffset", &ctx)?.unwrap_or(0);
        let end = match count {
            0 => Some(a_off),
            _ => stride.checked_mul(count - 1).and_then(|x| x.checked_add(elem)).and_then(|x| x.checked_add(a_off)),
        };
        if end.is_none_or(|e| e > v_len) {
            return Err(IoError::truncated(
                self.path,
                format!("{ctx}: {count} elements of {elem} bytes every {stride} from {a_off} overrun the {v_len}-byte {vctx}"),
            ));
        }
        let start = (v_off + a_off) as usize;
        let bytes = &buffer[start..(v_off + v_len) as usize];
        Ok(Layout { bytes, stride: stride as usize, comps, ct, normalized, count: count as usize })
    }

    /// Accessor `idx` as numbers (normalised where it says so).
    fn floats(&self, idx: u64, types: &[&str]) -> Result<Decoded> {
        let Layout { bytes, stride, comps, ct, normalized, count } = self.accessor_layout(idx, types)?;
        let csize = component(ct).map_or(4, |c| c.0);
        let mut values = Vec::with_capacity(count * comps);
        for e in 0..count {
            for c in 0..comps {
                let v = read_component(ct, normalized, &bytes[e * stride + c * csize..]);
                if !v.is_finite() {
                    return Err(self.bad(format!("accessors[{idx}] element {e} holds {v}")));
                }
                values.push(v);
            }
        }
        Ok(Decoded { comps, values })
    }

    /// Index accessor `idx` (unsigned byte, short or int scalars).
    fn indices(&self, idx: u64) -> Result<Vec<u32>> {
        let Layout { bytes, stride, ct, normalized, count, .. } = self.accessor_layout(idx, &["SCALAR"])?;
        if !matches!(ct, 5121 | 5123 | 5125) || normalized {
            return Err(self.bad(format!("index accessor {idx} has component type {ct}")));
        }
        Ok((0..count).map(|e| read_component(ct, false, &bytes[e * stride..]) as u32).collect())
    }

    /// Local matrix of node `n`.
    fn node_matrix(&self, node: &Value, ctx: &str) -> Result<Mat4> {
        if let Some(m) = self.floats_of::<16>(node, "matrix", ctx)? {
            return Ok(m);
        }
        let t = self.floats_of::<3>(node, "translation", ctx)?.unwrap_or([0.0; 3]);
        let r = self.floats_of::<4>(node, "rotation", ctx)?.unwrap_or([0.0, 0.0, 0.0, 1.0]);
        let s = self.floats_of::<3>(node, "scale", ctx)?.unwrap_or([1.0; 3]);
        Ok(trs(t, r, s))
    }

    /// The instance matrices of a node's `EXT_mesh_gpu_instancing`, or `None`.
    fn instances(&self, node: &Value, ctx: &str) -> Result<Option<Vec<Mat4>>> {
        let Some(ext) = node.pointer("/extensions/EXT_mesh_gpu_instancing") else { return Ok(None) };
        let attrs = ext.get("attributes").ok_or_else(|| self.bad(format!("{ctx}: instancing with no attributes")))?;
        let get = |key: &str, types: &[&str]| -> Result<Option<Decoded>> {
            match attrs.get(key) {
                None => Ok(None),
                Some(v) => {
                    let i = v.as_u64().ok_or_else(|| self.bad(format!("{ctx}: instance {key} is {v}")))?;
                    self.floats(i, types).map(Some)
                }
            }
        };
        let t = get("TRANSLATION", &["VEC3"])?;
        let r = get("ROTATION", &["VEC4"])?;
        let s = get("SCALE", &["VEC3"])?;
        let counts: Vec<usize> = [&t, &r, &s].iter().filter_map(|d| d.as_ref().map(Decoded::count)).collect();
        let Some(&n) = counts.first() else {
            return Err(self.bad(format!("{ctx}: instancing with none of TRANSLATION, ROTATION, SCALE")));
        };
        if counts.iter().any(|&c| c != n) {
            return Err(self.bad(format!("{ctx}: instance attributes of different counts {counts:?}")));
        }
        Ok(Some(
            (0..n)
                .map(|i| {
                    trs(
                        t.as_ref().map_or([0.0; 3], |d| d.get(i)),
                        r.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |d| d.get(i)),
                        s.as_ref().map_or([1.0; 3], |d| d.get(i)),
                    )
                })
                .collect(),
        ))
    }
}

/// The mesh being built, with flags for the optional attributes.
#[derive(Default)]
struct Builder {
    mesh: SceneMesh,
    normals: Vec<[f32; 3]>,
    colours: Vec<[u8; 3]>,
    all_normals: bool,
    any_colour: bool,
}

impl Gltf<'_> {
    /// Appends mesh `mesh_idx` once per matrix of `mats`.
    fn emit_mesh(&self, b: &mut Builder, mesh_idx: u64, mats: &[Mat4]) -> Result<()> {
        let mesh = self.item("meshes", mesh_idx)?;
        let prims = mesh.get("primitives").and_then(Value::as_array).map_or(&[][..], |a| a.as_slice());
        for (pi, prim) in prims.iter().enumerate() {
            let ctx = format!("meshes[{mesh_idx}].primitives[{pi}]");
            let mode = self.u64_of(prim, "mode", &ctx)?.unwrap_or(MODE_TRIANGLES);
            if mode != MODE_TRIANGLES {
                let name =
                    ["POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"]
                        .get(mode as usize)
                        .unwrap_or(&"unknown");
                return Err(IoError::unsupported(
                    self.path,
                    format!("{ctx} mode {mode} ({name}); only triangles (mode 4) are read"),
                ));
            }
            let attrs = prim.get("attributes").ok_or_else(|| self.bad(format!("{ctx} has no attributes")))?;
            let attr = |key: &str| -> Result<Option<u64>> { self.u64_of(attrs, key, &format!("{ctx}.attributes")) };
            let pos_idx = attr("POSITION")?.ok_or_else(|| IoError::missing(self.path, format!("{ctx} POSITION")))?;
            // The sizes first, so that instancing is refused before anything is decoded.
            let n = self.accessor_layout(pos_idx, &["VEC3"])?.count;
            let index_acc = self.u64_of(prim, "indices", &ctx)?;
            let corners = match index_acc {
                Some(i) => self.accessor_layout(i, &["SCALAR"])?.count,
                None => n,
            };
            let total_v = b.mesh.positions.len() as u64 + (n as u64).saturating_mul(mats.len() as u64);
            if total_v > MAX_POINTS {
                return Err(too_many(self.path, "glTF vertices after instancing", total_v, MAX_POINTS));
            }
            let total_i = b.mesh.indices.len() as u64 + (corners as u64).saturating_mul(mats.len() as u64);
            if total_i > MAX_INDICES {
                return Err(too_many(self.path, "glTF triangle corners after instancing", total_i, MAX_INDICES));
            }
            let pos = self.floats(pos_idx, &["VEC3"])?;
            let normals = match attr("NORMAL")? {
                Some(i) => Some(self.floats(i, &["VEC3"])?),
                None => None,
            };
            let colours = match attr("COLOR_0")? {
                Some(i) => Some(self.floats(i, &["VEC3", "VEC4"])?),
                None => None,
            };
            for (what, d) in [("NORMAL", &normals), ("COLOR_0", &colours)] {
                if let Some(d) = d.as_ref().filter(|d| d.count() != n) {
                    return Err(self.bad(format!("{ctx}: {} {what} for {n} positions", d.count())));
                }
            }
            let factor = match self.u64_of(prim, "material", &ctx)? {
                Some(m) => self.floats_of::<4>(
                    self.item("materials", m)?.get("pbrMetallicRoughness").unwrap_or(&Value::Null),
                    "baseColorFactor",
                    &format!("materials[{m}].pbrMetallicRoughness"),
                )?,
                None => None,
            };
            let local: Vec<u32> = match index_acc {
                Some(i) => self.indices(i)?,
                None => (0..n as u32).collect(),
            };
            if !local.len().is_multiple_of(3) {
                return Err(self.bad(format!("{ctx}: {} corners is not whole triangles", local.len())));
            }
            if let Some(k) = local.iter().position(|&i| i as usize >= n) {
                return Err(self.bad(format!("{ctx}: index {k} is {} but there are {n} vertices", local[k])));
            }
            let srgb: Option<Vec<[u8; 3]>> = (colours.is_some() || factor.is_some()).then(|| {
                let f = factor.unwrap_or([1.0; 4]);
                (0..n)
                    .map(|v| {
                        let c: [f64; 3] = colours.as_ref().map_or([1.0; 3], |d| d.get(v));
                        std::array::from_fn(|k| linear_to_srgb8(c[k] * f[k]))
                    })
                    .collect()
            });
            b.all_normals &= normals.is_some();
            b.any_colour |= srgb.is_some();
            for m in mats {
                let base = b.mesh.positions.len() as u32;
                for v in 0..n {
                    let p = apply_point(m, pos.get(v));
                    let p32 = p.map(|x| x as f32);
                    if p32.iter().any(|x| !x.is_finite()) {
                        return Err(self.bad(format!("{ctx}: vertex {v} transforms to {p:?}")));
                    }
                    b.mesh.positions.push(p32);
                }
                let (det, nm) = normal_matrix(m);
                match &normals {
                    Some(d) => b.normals.extend((0..n).map(|v| {
                        let x: [f64; 3] = d.get(v);
                        let t: [f64; 3] = std::array::from_fn(|r| (0..3).map(|c| nm[r][c] * x[c]).sum());
                        let len = t.iter().map(|v| v * v).sum::<f64>().sqrt();
                        if len > 0.0 && len.is_finite() {
                            t.map(|v| (v / len) as f32)
                        } else {
                            [0.0; 3]
                        }
                    })),
                    None => b.normals.extend(std::iter::repeat_n([0.0; 3], n)),
                }
                match &srgb {
                    Some(c) => b.colours.extend_from_slice(c),
                    None => b.colours.extend(std::iter::repeat_n([255; 3], n)),
                }
                for t in local.chunks_exact(3) {
                    let t = if det < 0.0 { [t[0], t[2], t[1]] } else { [t[0], t[1], t[2]] };
                    b.mesh.indices.extend(t.map(|i| base + i));
                }
            }
        }
        Ok(())
    }
}

/// Read a glTF 2.0 file (`.glb`, or `.gltf` JSON whose buffers are `data:` URIs) as one
/// world-space triangle mesh (see the module docs for the rules and what is refused).
pub fn read_glb(path: impl AsRef<Path>) -> Result<SceneMesh> {
    let path = path.as_ref();
    let (mut r, len) = open_nonempty(path)?;
    if len > MAX_GLTF_BYTES {
        return Err(too_many(path, "glTF bytes", len, MAX_GLTF_BYTES));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    r.read_to_end(&mut bytes).map_err(|e| IoError::io(path, e))?;
    let g = Gltf::parse(path, bytes)?;
    let nodes = g.array("nodes")?;
    let roots: Vec<u64> = match g.u64_of(&g.doc, "scene", "glTF")? {
        Some(s) => scene_nodes(&g, s)?,
        None if !g.array("scenes")?.is_empty() => scene_nodes(&g, 0)?,
        None => {
            let mut child = vec![false; nodes.len()];
            for n in nodes {
                for c in n.get("children").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(c) = c.as_u64().and_then(|c| child.get_mut(c as usize)) {
                        *c = true;
                    }
                }
            }
            (0..nodes.len() as u64).filter(|&i| !child[i as usize]).collect()
        }
    };
    let mut visited = vec![false; nodes.len()];
    let mut b = Builder { all_normals: true, ..Builder::default() };
    // Depth first, children in order: a stack of (node, parent matrix), pushed in reverse.
    let mut stack: Vec<(u64, Mat4)> = roots.iter().rev().map(|&n| (n, IDENTITY)).collect();
    while let Some((ni, parent)) = stack.pop() {
        let ctx = format!("nodes[{ni}]");
        let node = g.item("nodes", ni)?;
        let seen = &mut visited[ni as usize];
        if *seen {
            return Err(g.bad(format!("{ctx} is reached twice (a cycle or a shared node)")));
        }
        *seen = true;
        let world = mat_mul(&parent, &g.node_matrix(node, &ctx)?);
        if let Some(mesh) = g.u64_of(node, "mesh", &ctx)? {
            let mats = match g.instances(node, &ctx)? {
                Some(inst) => inst.iter().map(|i| mat_mul(&world, i)).collect(),
                None => vec![world],
            };
            g.emit_mesh(&mut b, mesh, &mats)?;
        }
        let children = match node.get("children") {
            None => Vec::new(),
            Some(Value::Array(c)) => c
                .iter()
                .map(|v| v.as_u64().ok_or_else(|| g.bad(format!("{ctx}.children holds {v}"))))
                .collect::<Result<_>>()?,
            Some(v) => return Err(g.bad(format!("{ctx}.children is {v}"))),
        };
        stack.extend(children.iter().rev().map(|&c| (c, world)));
    }
    if b.mesh.indices.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "glTF scene with no triangle".into() });
    }
    let Builder { mut mesh, normals, colours, all_normals, any_colour } = b;
    mesh.normals = all_normals.then_some(normals);
    mesh.colours = any_colour.then_some(colours);
    Ok(mesh)
}

/// The root nodes of scene `s`.
fn scene_nodes(g: &Gltf, s: u64) -> Result<Vec<u64>> {
    let scene = g.item("scenes", s)?;
    match scene.get("nodes") {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => {
            a.iter().map(|v| v.as_u64().ok_or_else(|| g.bad(format!("scenes[{s}].nodes holds {v}")))).collect()
        }
        Some(v) => Err(g.bad(format!("scenes[{s}].nodes is {v}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_every_padding() {
        assert_eq!(base64_decode("").unwrap(), b"");
        assert_eq!(base64_decode("TQ==").unwrap(), b"M");
        assert_eq!(base64_decode("TWE=").unwrap(), b"Ma");
        assert_eq!(base64_decode("TWFu").unwrap(), b"Man");
        assert_eq!(base64_decode("TWFuTQ").unwrap(), b"ManM");
        assert_eq!(base64_decode("+/8=").unwrap(), [0xfb, 0xff]);
        assert!(base64_decode("TWFuT").is_err());
        assert!(base64_decode("TW-u").is_err());
    }

    #[test]
    fn srgb_transfer_matches_known_values() {
        assert_eq!(linear_to_srgb8(0.0), 0);
        assert_eq!(linear_to_srgb8(1.0), 255);
        // 0.5 linear is 0.7354 sRGB (187.5 → 188); 0.215861 linear is 128/255 sRGB.
        assert_eq!(linear_to_srgb8(0.5), 188);
        assert_eq!(linear_to_srgb8(0.215_861), 128);
        assert_eq!(linear_to_srgb8(f64::NAN), 0);
    }

    #[test]
    fn normal_matrix_is_the_inverse_transpose_direction() {
        // Non-uniform scale (2, 1, 1): the normal (1, 1, 0)/√2 of the plane x + y = c becomes the
        // normal of x/2 + y = c, i.e. ∝ (1/2, 1, 0).
        let m = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [2.0, 1.0, 1.0]);
        let (det, nm) = normal_matrix(&m);
        assert_eq!(det, 2.0);
        let t: [f64; 3] = std::array::from_fn(|r| nm[r][0] + nm[r][1]);
        assert!((t[0] / t[1] - 0.5).abs() < 1e-12 && t[2] == 0.0, "{t:?}");
        // A mirror keeps the normal's direction: (−1, 1, 1) maps +x normals to −x.
        let (det, nm) = normal_matrix(&trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [-1.0, 1.0, 1.0]));
        assert!(det < 0.0 && nm[0][0] < 0.0);
    }
}
