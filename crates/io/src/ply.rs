//! PLY point clouds: the `x, y, z` of the `vertex` element.
//!
//! Header: `ply`, `format ascii|binary_little_endian|binary_big_endian 1.0`, `comment` and
//! `obj_info` lines, `element <name> <count>`, `property <type> <name>`,
//! `property list <count type> <item type> <name>`, `end_header` (LF or CRLF line ends).
//! Types: `char uchar short ushort int uint float double` and their `int8 … float64` aliases.
//! The `vertex` element must have scalar `x`, `y` and `z` properties (any numeric type; float
//! or double in practice); other properties and elements are skipped. Elements before `vertex`
//! are parsed and skipped (lists included). The header may be at most 1 MiB; vertex count is
//! limited by [`crate::limits::MAX_POINTS`] and checked against the file length first.

use crate::error::{IoError, Result};
use crate::fsio::open_with_magic;
use crate::limits::MAX_POINTS;
use std::io::{BufRead, BufReader};
use std::path::Path;

const MAX_HEADER: usize = 1 << 20;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn parse(s: &str) -> Option<Scalar> {
        Some(match s {
            "char" | "int8" => Scalar::I8,
            "uchar" | "uint8" => Scalar::U8,
            "short" | "int16" => Scalar::I16,
            "ushort" | "uint16" => Scalar::U16,
            "int" | "int32" => Scalar::I32,
            "uint" | "uint32" => Scalar::U32,
            "float" | "float32" => Scalar::F32,
            "double" | "float64" => Scalar::F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }
    fn read(self, b: &[u8], big: bool) -> f64 {
        macro_rules! get {
            ($t:ty, $n:expr) => {{
                let a: [u8; $n] = b[..$n].try_into().unwrap();
                (if big { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }) as f64
            }};
        }
        match self {
            Scalar::I8 => f64::from(b[0] as i8),
            Scalar::U8 => f64::from(b[0]),
            Scalar::I16 => get!(i16, 2),
            Scalar::U16 => get!(u16, 2),
            Scalar::I32 => get!(i32, 4),
            Scalar::U32 => get!(u32, 4),
            Scalar::F32 => get!(f32, 4),
            Scalar::F64 => get!(f64, 8),
        }
    }
}

#[derive(Debug)]
enum Property {
    Scalar(Scalar, String),
    /// A list property: count type and item type (its name is never needed).
    List(Scalar, Scalar),
}

#[derive(Debug)]
struct Element {
    name: String,
    count: u64,
    props: Vec<Property>,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Ascii,
    Little,
    Big,
}

fn parse_header(path: &Path, r: &mut impl BufRead) -> Result<(Format, Vec<Element>)> {
    let bad = |d: String| IoError::malformed(path, "PLY", d);
    let mut read = 0usize;
    let mut format = None;
    let mut elements: Vec<Element> = Vec::new();
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = r.read_until(b'\n', &mut line).map_err(|e| IoError::io(path, e))?;
        if n == 0 {
            return Err(IoError::truncated(path, "PLY header has no end_header"));
        }
        read += n;
        if read > MAX_HEADER {
            return Err(IoError::TooMany {
                path: path.to_path_buf(),
                what: "PLY header bytes",
                count: read as u64,
                limit: MAX_HEADER as u64,
            });
        }
        let text = String::from_utf8_lossy(&line);
        let words: Vec<&str> = text.split_whitespace().collect();
        if first {
            first = false;
            if words != ["ply"] {
                return Err(IoError::WrongMagic { path: path.to_path_buf(), format: "PLY" });
            }
            continue;
        }
        match words.as_slice() {
            [] => {}
            ["comment", ..] | ["obj_info", ..] => {}
            ["format", f, v] => {
                if !v.starts_with("1.") && *v != "1" {
                    return Err(IoError::unsupported(path, format!("PLY version {v}")));
                }
                format = Some(match *f {
                    "ascii" => Format::Ascii,
                    "binary_little_endian" => Format::Little,
                    "binary_big_endian" => Format::Big,
                    other => return Err(IoError::unsupported(path, format!("PLY format {other:?}"))),
                });
            }
            ["element", name, count] => {
                let count: u64 = count.parse().map_err(|_| bad(format!("element {name} count {count:?}")))?;
                elements.push(Element { name: name.to_string(), count, props: Vec::new() });
            }
            ["property", "list", ct, it, _name] => {
                let el = elements.last_mut().ok_or_else(|| bad("property before any element".into()))?;
                let ct = Scalar::parse(ct).ok_or_else(|| IoError::unsupported(path, format!("PLY type {ct:?}")))?;
                let it = Scalar::parse(it).ok_or_else(|| IoError::unsupported(path, format!("PLY type {it:?}")))?;
                el.props.push(Property::List(ct, it));
            }
            ["property", ty, name] => {
                let el = elements.last_mut().ok_or_else(|| bad("property before any element".into()))?;
                let ty =
                    Scalar::parse(ty).ok_or_else(|| IoError::unsupported(path, format!("PLY property type {ty:?}")))?;
                el.props.push(Property::Scalar(ty, name.to_string()));
            }
            ["end_header"] => break,
            other => return Err(bad(format!("header line {:?}", other.join(" ")))),
        }
    }
    let format = format.ok_or_else(|| bad("no format line".into()))?;
    Ok((format, elements))
}

/// Read the `x, y, z` of every vertex of a PLY file (ASCII or binary, either byte order).
pub fn read_ply_points(path: impl AsRef<Path>) -> Result<Vec<[f64; 3]>> {
    let path = path.as_ref();
    let (file, len) = open_with_magic(path, &[b"ply"], "PLY")?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let (format, elements) = parse_header(path, &mut r)?;
    let vi = elements
        .iter()
        .position(|e| e.name == "vertex")
        .ok_or_else(|| IoError::missing(path, "PLY element \"vertex\""))?;
    let vertex = &elements[vi];
    let find =
        |axis: &str| {
            vertex.props.iter().position(|p| matches!(p, Property::Scalar(_, n) if n == axis)).ok_or_else(|| {
                IoError::missing(path, format!("PLY vertex property {axis:?} (x, y and z are required)"))
            })
        };
    let axes = [find("x")?, find("y")?, find("z")?];
    if vertex.count > MAX_POINTS {
        return Err(IoError::TooMany {
            path: path.to_path_buf(),
            what: "PLY vertices",
            count: vertex.count,
            limit: MAX_POINTS,
        });
    }
    let vertex_fixed = vertex.props.iter().all(|p| matches!(p, Property::Scalar(..)));
    if format != Format::Ascii && vertex_fixed {
        let rec: u64 =
            vertex.props.iter().map(|p| if let Property::Scalar(t, _) = p { t.size() as u64 } else { 0 }).sum();
        if vertex.count.saturating_mul(rec) > len {
            return Err(IoError::truncated(
                path,
                format!("{} vertices of {rec} bytes do not fit in {len} bytes", vertex.count),
            ));
        }
    } else if format == Format::Ascii && vertex.count.saturating_mul(2 * vertex.props.len() as u64) > len {
        return Err(IoError::truncated(path, format!("{} ASCII vertices do not fit in {len} bytes", vertex.count)));
    }
    let mut reader = PlyBody { path, r, format, line: String::new(), words: Vec::new(), pos: 0 };
    for el in &elements[..vi] {
        for _ in 0..el.count {
            reader.skip_record(el)?;
        }
    }
    let mut out = Vec::with_capacity(vertex.count as usize);
    let mut vals = vec![0.0; vertex.props.len()];
    for _ in 0..vertex.count {
        reader.read_record(vertex, &mut vals)?;
        out.push([vals[axes[0]], vals[axes[1]], vals[axes[2]]]);
    }
    if out.is_empty() {
        return Err(IoError::Empty { path: path.to_path_buf(), what: "PLY with no vertices".into() });
    }
    Ok(out)
}

struct PlyBody<'a, R> {
    path: &'a Path,
    r: R,
    format: Format,
    line: String,
    words: Vec<String>,
    pos: usize,
}

impl<R: BufRead> PlyBody<'_, R> {
    fn bin(&mut self, t: Scalar) -> Result<f64> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b[..t.size()]).map_err(|e| IoError::io(self.path, e))?;
        Ok(t.read(&b, self.format == Format::Big))
    }

    fn word(&mut self) -> Result<f64> {
        while self.pos >= self.words.len() {
            self.line.clear();
            let n = self.r.read_line(&mut self.line).map_err(|e| IoError::io(self.path, e))?;
            if n == 0 {
                return Err(IoError::truncated(self.path, "ASCII PLY body ends early"));
            }
            self.words = self.line.split_whitespace().map(str::to_owned).collect();
            self.pos = 0;
        }
        let w = &self.words[self.pos];
        self.pos += 1;
        w.parse::<f64>().map_err(|_| IoError::malformed(self.path, "PLY", format!("ASCII value {w:?}")))
    }

    fn value(&mut self, t: Scalar) -> Result<f64> {
        if self.format == Format::Ascii {
            self.word()
        } else {
            self.bin(t)
        }
    }

    fn list_len(&mut self, ct: Scalar) -> Result<usize> {
        let n = self.value(ct)?;
        if !((0.0..=1e6).contains(&n) && n.fract() == 0.0) {
            return Err(IoError::malformed(self.path, "PLY", format!("list length {n}")));
        }
        Ok(n as usize)
    }

    fn skip_record(&mut self, el: &Element) -> Result<()> {
        for p in &el.props {
            match p {
                Property::Scalar(t, _) => {
                    self.value(*t)?;
                }
                Property::List(ct, it) => {
                    let n = self.list_len(*ct)?;
                    for _ in 0..n {
                        self.value(*it)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn read_record(&mut self, el: &Element, vals: &mut [f64]) -> Result<()> {
        for (p, v) in el.props.iter().zip(vals.iter_mut()) {
            match p {
                Property::Scalar(t, _) => *v = self.value(*t)?,
                Property::List(ct, it) => {
                    let n = self.list_len(*ct)?;
                    for _ in 0..n {
                        self.value(*it)?;
                    }
                }
            }
        }
        Ok(())
    }
}
