//! 3D Gaussian Splatting PLY (the layout of graphdeco-inria's `save_ply`, Kerbl et al. 2023;
//! splat-anchors §2.1, inventory §1.1): read and write.
//!
//! **Reading.** Header lines `ply`; `format ascii|binary_little_endian|binary_big_endian 1.0`;
//! `comment …`/`obj_info …`; `element <name> <count>`; `property <type> <name>`;
//! `property list <count type> <item type> <name>`; `end_header` (LF or CRLF). Types `char uchar
//! short ushort int uint float double` and `int8 … float64`; all are read as f32 (doubles are
//! rounded). The `vertex` element must hold scalar `x y z f_dc_0..2 opacity scale_0..2
//! rot_0..3`; `f_rest_0 … f_rest_{3K−1}` (channel-major: all R coefficients, then G, then B;
//! sorted by their number, not as text) give SH degree `d` with `K = (d+1)² − 1 ∈ {3, 8, 15}`.
//! Properties may come in any order; `nx ny nz` and any other property are ignored. Elements
//! before `vertex` are skipped (lists included), elements after it are not read. List
//! properties in `vertex` are refused. The header is at most 1 MiB; the vertex count is checked
//! against [`crate::formats::MAX_SPLATS`] and, with the record size, against the file length **before**
//! anything is allocated. Positions must be finite. The header and the scalar types are read by
//! `bozkir_io::plyfmt`, shared with the point-cloud reader.
//!
//! **Writing.** Always `x y z nx ny nz f_dc_0..2 f_rest_0..3K−1 opacity scale_0..2 rot_0..3`,
//! all `float`, normals zero, no comments, from the model's raw values: a standard 3DGS file
//! (such as `luigi.ply`) or any file this writer made loads and saves back bit for bit, in all
//! three encodings. ASCII writes each float as its shortest decimal that reads back exactly.

use crate::formats::error::{Result, SplatError};
use crate::formats::fsio::{atomic_write, open_nonempty};
use crate::formats::MAX_SPLATS;
use crate::model::{RawSplat, Splats};
use bozkir_io::plyfmt::{parse_header, Element, Format, Property, Scalar};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

const FMT: &str = "PLY";

/// How the body of a PLY file is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyEncoding {
    Ascii,
    BinaryLittleEndian,
    BinaryBigEndian,
}

/// Where a vertex property goes in the per-record scratch array.
const X: usize = 0;
const DC: usize = 3;
const OP: usize = 6;
const SC: usize = 7;
const ROT: usize = 10;
const REST: usize = 14;
const SLOTS: usize = REST + 45;

struct Plan {
    /// `(byte offset in a binary record, type, slot)` of each used property; slot `usize::MAX`
    /// for an ignored one (ASCII needs every property, binary only the used ones).
    props: Vec<(usize, Scalar, usize)>,
    record: usize,
    k: usize,
    degree: u8,
}

fn plan_vertex(path: &Path, el: &Element) -> Result<Plan> {
    let mut props = Vec::with_capacity(el.props.len());
    let mut offset = 0usize;
    let mut seen = [false; SLOTS];
    let mut rest: Vec<usize> = Vec::new();
    for p in &el.props {
        let (t, name) = match p {
            Property::Scalar(t, n) => (*t, n.as_str()),
            Property::List(_, _, n) => {
                return Err(SplatError::unsupported(path, format!("list property {n:?} in the PLY vertex element")))
            }
        };
        let slot = match name {
            "x" => X,
            "y" => X + 1,
            "z" => X + 2,
            "f_dc_0" => DC,
            "f_dc_1" => DC + 1,
            "f_dc_2" => DC + 2,
            "opacity" => OP,
            "scale_0" => SC,
            "scale_1" => SC + 1,
            "scale_2" => SC + 2,
            "rot_0" => ROT,
            "rot_1" => ROT + 1,
            "rot_2" => ROT + 2,
            "rot_3" => ROT + 3,
            _ => match name.strip_prefix("f_rest_").and_then(|n| n.parse::<usize>().ok()) {
                Some(j) if j < 72 => {
                    rest.push(j);
                    // Placed once the degree is known.
                    usize::MAX - 1 - j
                }
                Some(j) => {
                    return Err(SplatError::unsupported(path, format!("PLY property f_rest_{j} (SH degree above 3)")))
                }
                None => usize::MAX,
            },
        };
        if slot < SLOTS {
            if seen[slot] {
                return Err(SplatError::malformed(path, FMT, format!("vertex property {name:?} appears twice")));
            }
            seen[slot] = true;
        }
        props.push((offset, t, slot));
        offset += t.size();
    }
    const REQUIRED: [(&str, usize); 14] = [
        ("x", X),
        ("y", X + 1),
        ("z", X + 2),
        ("f_dc_0", DC),
        ("f_dc_1", DC + 1),
        ("f_dc_2", DC + 2),
        ("opacity", OP),
        ("scale_0", SC),
        ("scale_1", SC + 1),
        ("scale_2", SC + 2),
        ("rot_0", ROT),
        ("rot_1", ROT + 1),
        ("rot_2", ROT + 2),
        ("rot_3", ROT + 3),
    ];
    let missing: Vec<&str> = REQUIRED.iter().filter(|(_, s)| !seen[*s]).map(|(n, _)| *n).collect();
    if !missing.is_empty() {
        let hint =
            if !seen[OP] && !seen[ROT] { " (this looks like a plain point cloud, not a 3DGS capture)" } else { "" };
        return Err(SplatError::missing(path, format!("PLY vertex properties {}{hint}", missing.join(", "))));
    }
    rest.sort_unstable();
    if rest.windows(2).any(|w| w[0] == w[1]) {
        return Err(SplatError::malformed(path, FMT, "an f_rest property appears twice"));
    }
    let m = rest.len();
    if rest.iter().enumerate().any(|(i, &j)| i != j) {
        return Err(SplatError::malformed(
            path,
            FMT,
            format!("f_rest properties are not numbered 0..{m} without gaps"),
        ));
    }
    let degree = match m {
        0 => 0,
        9 => 1,
        24 => 2,
        45 => 3,
        72 => return Err(SplatError::unsupported(path, "SH degree 4 (72 f_rest properties); degrees 0–3 are read")),
        _ => {
            return Err(SplatError::malformed(
                path,
                FMT,
                format!("{m} f_rest properties; SH degrees 1, 2, 3 have 9, 24, 45"),
            ))
        }
    };
    let k = m / 3;
    for p in &mut props {
        if p.2 < usize::MAX && p.2 >= SLOTS {
            let j = usize::MAX - 1 - p.2;
            p.2 = REST + j;
        }
    }
    Ok(Plan { props, record: offset, k, degree })
}

/// Push one decoded record from the scratch array.
#[inline]
fn push_record(s: &mut Splats, v: &[f32; SLOTS], k: usize, rest: &mut [[f32; 3]; 15]) {
    // File order is channel-major: j = c·K + coefficient.
    for c in 0..3 {
        for (kk, r) in rest.iter_mut().enumerate().take(k) {
            r[c] = v[REST + c * k + kk];
        }
    }
    s.push_raw(RawSplat {
        position: [v[X], v[X + 1], v[X + 2]],
        log_scale: [v[SC], v[SC + 1], v[SC + 2]],
        rotation: [v[ROT], v[ROT + 1], v[ROT + 2], v[ROT + 3]],
        opacity_logit: v[OP],
        sh_dc: [v[DC], v[DC + 1], v[DC + 2]],
        sh_rest: &rest[..k],
    });
}

/// Read a 3DGS PLY file (see the module documentation).
pub fn read_ply(path: &Path) -> Result<Splats> {
    let (file, len) = open_nonempty(path)?;
    read_from(path, BufReader::with_capacity(1 << 20, file), len)
}

/// Parse a 3DGS PLY held in memory; `name` is used in error messages.
pub fn parse_ply(bytes: &[u8], name: &Path) -> Result<Splats> {
    if bytes.is_empty() {
        return Err(SplatError::empty(name, "zero-byte file"));
    }
    read_from(name, bytes, bytes.len() as u64)
}

fn read_from(path: &Path, mut r: impl BufRead, len: u64) -> Result<Splats> {
    let header = parse_header(path, &mut r)?;
    let vi = header
        .elements
        .iter()
        .position(|e| e.name == "vertex")
        .ok_or_else(|| SplatError::missing(path, "PLY element \"vertex\""))?;
    let vertex = &header.elements[vi];
    if vertex.count > MAX_SPLATS {
        return Err(SplatError::too_many(path, "PLY vertex count", vertex.count));
    }
    let plan = plan_vertex(path, vertex)?;
    if vertex.count == 0 {
        return Err(SplatError::empty(path, "PLY vertex count is 0"));
    }
    let n = vertex.count as usize;
    let body = len.saturating_sub(header.len);
    let splats = match header.format {
        Format::Ascii => {
            // Each record has at least one character per property plus separators.
            let min_record = 2 * vertex.props.len() as u64 - 1;
            if vertex.count.saturating_mul(min_record) > body {
                return Err(SplatError::truncated(
                    path,
                    format!(
                        "{} vertices need at least {} bytes of ASCII, {body} follow the header",
                        vertex.count,
                        vertex.count.saturating_mul(min_record)
                    ),
                ));
            }
            let mut text = String::new();
            r.read_to_string(&mut text).map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidData => SplatError::malformed(path, FMT, "ASCII body is not UTF-8 text"),
                _ => SplatError::io(path, e),
            })?;
            let mut tokens = text.split_ascii_whitespace();
            for el in &header.elements[..vi] {
                skip_ascii(path, el, &mut tokens)?;
            }
            read_ascii_vertices(path, n, &plan, &mut tokens)?
        }
        Format::Little | Format::Big => {
            let big = header.format == Format::Big;
            let mut before = 0u64;
            for el in &header.elements[..vi] {
                before += skip_binary(path, el, &mut r, big, body - before.min(body))?;
            }
            let need = vertex.count.saturating_mul(plan.record as u64);
            let have = body.saturating_sub(before);
            if need > have {
                return Err(SplatError::truncated(
                    path,
                    format!(
                        "{} vertices of {} bytes need {need} bytes, {have} follow the header",
                        vertex.count, plan.record
                    ),
                ));
            }
            read_binary_vertices(path, n, &plan, &mut r, big)?
        }
    };
    check_positions(path, &splats)?;
    Ok(splats)
}

fn read_binary_vertices(path: &Path, n: usize, plan: &Plan, r: &mut impl Read, big: bool) -> Result<Splats> {
    let used: Vec<(usize, Scalar, usize)> = plan.props.iter().copied().filter(|p| p.2 < SLOTS).collect();
    let all_f32_le = !big && used.iter().all(|p| p.1 == Scalar::F32);
    let mut s = Splats::with_capacity(n, plan.degree);
    let per_chunk = ((1usize << 20) / plan.record.max(1)).max(1);
    let mut buf = vec![0u8; per_chunk.min(n) * plan.record];
    let mut v = [0.0f32; SLOTS];
    let mut rest = [[0.0f32; 3]; 15];
    let mut left = n;
    while left > 0 {
        let m = left.min(per_chunk);
        let chunk = &mut buf[..m * plan.record];
        r.read_exact(chunk).map_err(|e| SplatError::io(path, e))?;
        for rec in chunk.chunks_exact(plan.record) {
            if all_f32_le {
                for &(o, _, slot) in &used {
                    v[slot] = f32::from_le_bytes(rec[o..o + 4].try_into().unwrap());
                }
            } else {
                for &(o, t, slot) in &used {
                    v[slot] = t.read_f32(&rec[o..], big);
                }
            }
            push_record(&mut s, &v, plan.k, &mut rest);
        }
        left -= m;
    }
    Ok(s)
}

fn read_ascii_vertices<'a>(
    path: &Path,
    n: usize,
    plan: &Plan,
    tokens: &mut impl Iterator<Item = &'a str>,
) -> Result<Splats> {
    let mut s = Splats::with_capacity(n, plan.degree);
    let mut v = [0.0f32; SLOTS];
    let mut rest = [[0.0f32; 3]; 15];
    for i in 0..n {
        for &(_, t, slot) in &plan.props {
            let tok = tokens
                .next()
                .ok_or_else(|| SplatError::truncated(path, format!("ASCII body ends in vertex {i} of {n}")))?;
            let val = t
                .parse_token_f32(tok)
                .ok_or_else(|| SplatError::malformed(path, FMT, format!("vertex {i}: {tok:?} is not a number")))?;
            if slot < SLOTS {
                v[slot] = val;
            }
        }
        push_record(&mut s, &v, plan.k, &mut rest);
    }
    Ok(s)
}

fn skip_ascii<'a>(path: &Path, el: &Element, tokens: &mut impl Iterator<Item = &'a str>) -> Result<()> {
    let trunc = || SplatError::truncated(path, format!("ASCII body ends in element {}", el.name));
    if el.props.is_empty() {
        return Ok(());
    }
    for _ in 0..el.count {
        for p in &el.props {
            match p {
                Property::Scalar(..) => {
                    tokens.next().ok_or_else(trunc)?;
                }
                Property::List(..) => {
                    let t = tokens.next().ok_or_else(trunc)?;
                    let k: u64 =
                        t.parse().map_err(|_| SplatError::malformed(path, FMT, format!("list count {t:?}")))?;
                    for _ in 0..k {
                        tokens.next().ok_or_else(trunc)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Skip a binary element; returns the bytes consumed. `left` bounds what may be read.
fn skip_binary(path: &Path, el: &Element, r: &mut impl Read, big: bool, left: u64) -> Result<u64> {
    let trunc = || SplatError::truncated(path, format!("element {} runs past the end of the file", el.name));
    let fixed: Option<u64> =
        el.props.iter().map(|p| if let Property::Scalar(t, _) = p { Some(t.size() as u64) } else { None }).sum();
    if let Some(size) = fixed {
        let total = el.count.checked_mul(size).ok_or_else(trunc)?;
        if total > left {
            return Err(trunc());
        }
        let got =
            std::io::copy(&mut r.by_ref().take(total), &mut std::io::sink()).map_err(|e| SplatError::io(path, e))?;
        return if got == total { Ok(total) } else { Err(trunc()) };
    }
    let mut used = 0u64;
    let mut b = [0u8; 8];
    for _ in 0..el.count {
        for p in &el.props {
            let bytes = match p {
                Property::Scalar(t, _) => t.size() as u64,
                Property::List(ct, it, _) => {
                    r.read_exact(&mut b[..ct.size()]).map_err(|_| trunc())?;
                    used += ct.size() as u64;
                    let k = ct.read_f32(&b, big);
                    if k.is_nan() || k < 0.0 {
                        return Err(SplatError::malformed(
                            path,
                            FMT,
                            format!("negative list count in element {}", el.name),
                        ));
                    }
                    (k as u64).saturating_mul(it.size() as u64)
                }
            };
            if used.saturating_add(bytes) > left {
                return Err(trunc());
            }
            let got = std::io::copy(&mut r.by_ref().take(bytes), &mut std::io::sink())
                .map_err(|e| SplatError::io(path, e))?;
            if got != bytes {
                return Err(trunc());
            }
            used += bytes;
        }
    }
    Ok(used)
}

/// Refuse splats with a NaN or infinite position, log scale, rotation, opacity logit or SH
/// coefficient: name the field of the first such splat, its index and how many splats have one.
/// (A NaN scale or opacity is not a real splat; drawn, it shows as ground colour, so a file
/// holding one is refused rather than read as something it is not.)
pub(crate) fn check_positions(path: &Path, s: &Splats) -> Result<()> {
    let fin = |v: &[f32]| v.iter().all(|x| x.is_finite());
    let bad_field = |i: usize| -> Option<&'static str> {
        if !fin(&s.positions()[i]) {
            Some("position")
        } else if !fin(&s.log_scales()[i]) {
            Some("scale")
        } else if !fin(&s.rotations_raw()[i]) {
            Some("rotation")
        } else if !s.opacity_logits()[i].is_finite() {
            Some("opacity")
        } else if !fin(&s.sh_dc()[i]) || s.sh_rest().iter().any(|p| !fin(&p[i])) {
            Some("colour (SH coefficient)")
        } else {
            None
        }
    };
    let mut bad = (0..s.len()).filter_map(|i| bad_field(i).map(|w| (i, w)));
    if let Some((first, what)) = bad.next() {
        return Err(SplatError::NonFinite { path: path.to_path_buf(), what, count: 1 + bad.count(), index: first });
    }
    Ok(())
}

/// The header [`write_ply`] writes for `n` splats of SH degree `degree`.
fn header_text(n: usize, degree: u8, enc: PlyEncoding) -> String {
    let fmt = match enc {
        PlyEncoding::Ascii => "ascii",
        PlyEncoding::BinaryLittleEndian => "binary_little_endian",
        PlyEncoding::BinaryBigEndian => "binary_big_endian",
    };
    let mut h = format!("ply\nformat {fmt} 1.0\nelement vertex {n}\n");
    let mut prop = |name: &str| {
        h.push_str("property float ");
        h.push_str(name);
        h.push('\n');
    };
    for name in ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] {
        prop(name);
    }
    for j in 0..3 * crate::sh::rest_count(degree) {
        prop(&format!("f_rest_{j}"));
    }
    for name in ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"] {
        prop(name);
    }
    h.push_str("end_header\n");
    h
}

/// Encode `s` as a 3DGS PLY (see the module documentation for the layout).
pub fn write_ply_to(w: &mut impl Write, s: &Splats, enc: PlyEncoding) -> std::io::Result<()> {
    w.write_all(header_text(s.len(), s.sh_degree(), enc).as_bytes())?;
    let k = s.sh_rest().len();
    let nvals = 17 + 3 * k;
    let mut rec: Vec<f32> = Vec::with_capacity(nvals);
    let mut bytes: Vec<u8> = Vec::with_capacity(nvals * 4 * 1024);
    let mut line = String::new();
    for i in 0..s.len() {
        rec.clear();
        rec.extend_from_slice(&s.positions()[i]);
        rec.extend_from_slice(&[0.0, 0.0, 0.0]);
        rec.extend_from_slice(&s.sh_dc()[i]);
        for c in 0..3 {
            for plane in s.sh_rest() {
                rec.push(plane[i][c]);
            }
        }
        rec.push(s.opacity_logits()[i]);
        rec.extend_from_slice(&s.log_scales()[i]);
        rec.extend_from_slice(&s.rotations_raw()[i]);
        match enc {
            PlyEncoding::BinaryLittleEndian => rec.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes())),
            PlyEncoding::BinaryBigEndian => rec.iter().for_each(|v| bytes.extend_from_slice(&v.to_be_bytes())),
            PlyEncoding::Ascii => {
                use std::fmt::Write as _;
                line.clear();
                for (j, v) in rec.iter().enumerate() {
                    let _ = write!(line, "{}{v}", if j > 0 { " " } else { "" });
                }
                line.push('\n');
                bytes.extend_from_slice(line.as_bytes());
            }
        }
        if bytes.len() >= 1 << 20 {
            w.write_all(&bytes)?;
            bytes.clear();
        }
    }
    w.write_all(&bytes)
}

/// The bytes of `s` as a 3DGS PLY.
pub fn encode_ply(s: &Splats, enc: PlyEncoding) -> Vec<u8> {
    let mut out = Vec::new();
    write_ply_to(&mut out, s, enc).expect("writing to memory");
    out
}

/// Write `s` to `path` as a 3DGS PLY, atomically. Refuses an empty set (nothing to read back).
pub fn write_ply(path: &Path, s: &Splats, enc: PlyEncoding) -> Result<()> {
    if s.is_empty() {
        return Err(SplatError::invalid(path, "no splats to write"));
    }
    atomic_write(path, |w| write_ply_to(w, s, enc))
}
