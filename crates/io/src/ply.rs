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
//! The header and the scalar types are those of [`crate::plyfmt`].

use crate::error::{IoError, Result};
use crate::fsio::{atomic_write, open_with_magic};
use crate::limits::MAX_POINTS;
use crate::plyfmt::{parse_header, Element, Format, Header, Property, Scalar};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// Read the `x, y, z` of every vertex of a PLY file (ASCII or binary, either byte order).
pub fn read_ply_points(path: impl AsRef<Path>) -> Result<Vec<[f64; 3]>> {
    let path = path.as_ref();
    let (file, len) = open_with_magic(path, &[b"ply"], "PLY")?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let Header { format, elements, .. } = parse_header(path, &mut r)?;
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
        Ok(t.read_f64(&b, self.format == Format::Big))
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
                Property::List(ct, it, _) => {
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
                Property::List(ct, it, _) => {
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

/// Write `pts` as the `vertex` element (`double x, y, z`, nothing else) of a PLY file in
/// `format` (ASCII with Rust's shortest round-trip decimals, or binary in either byte order),
/// atomically. [`read_ply_points`] reads the same points back, bit for bit.
///
/// # Examples
///
/// ```
/// use bozkir_io::plyfmt::Format;
/// use bozkir_io::{read_ply_points, write_ply_points};
///
/// let dir = std::env::temp_dir().join(format!("bozkir-ply-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("three.ply");
/// let pts = [[0.0, 0.0, 1.5], [1.0, 0.1, -2.0], [2.0, 0.2, 1e-3]];
/// write_ply_points(&path, &pts, Format::Big).unwrap();
/// assert_eq!(read_ply_points(&path).unwrap(), pts);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_ply_points(path: impl AsRef<Path>, pts: &[[f64; 3]], format: Format) -> Result<()> {
    let path = path.as_ref();
    let name = match format {
        Format::Ascii => "ascii",
        Format::Little => "binary_little_endian",
        Format::Big => "binary_big_endian",
    };
    atomic_write(path, |w| {
        let io = |e| IoError::io(path, e);
        write!(
            w,
            "ply\nformat {name} 1.0\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nend_header\n",
            pts.len()
        )
        .map_err(io)?;
        for p in pts {
            match format {
                Format::Ascii => writeln!(w, "{} {} {}", p[0], p[1], p[2]).map_err(io)?,
                Format::Little => p.iter().try_for_each(|v| w.write_all(&v.to_le_bytes())).map_err(io)?,
                Format::Big => p.iter().try_for_each(|v| w.write_all(&v.to_be_bytes())).map_err(io)?,
            }
        }
        Ok(())
    })
}
