//! Geometry exports (issue 23, item 2): every writer's output parsed back equals what was
//! written; bad geometry is refused before a byte is written and an existing file is kept.
use bozkir_io::export::geometry::{
    write_npz_volume, write_obj_mesh, write_ply_cloud, write_ply_mesh, write_xyz, CloudRef, MeshRef,
};
use bozkir_io::plyfmt::{parse_header, Element, Format, Property, Scalar};
use bozkir_io::read_ply_points;
use std::io::{BufReader, Read};

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("bozkir-geom-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Positions, normals, colours, indices.
type Parts = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[u8; 3]>, Vec<u32>);

/// A tetrahedron with awkward coordinates (shortest round-trip decimals matter).
fn tetra() -> Parts {
    let p = vec![[0.1, -2.5e-7, 3.0], [1.0 / 3.0, 0.0, -1e6], [0.0, 7.25, 1.0e-3], [-4.0, 2.0, 0.5]];
    let n = vec![[0.0, 0.0, 1.0], [0.6, 0.8, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    let c = vec![[255, 0, 10], [1, 2, 3], [128, 64, 32], [0, 0, 0]];
    (p, n, c, vec![0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2])
}

#[test]
fn obj_round_trips_positions_colours_normals_and_faces() {
    let (p, n, c, i) = tetra();
    let d = dir("obj");
    for (normals, colours) in [(None, None), (Some(&n[..]), Some(&c[..]))] {
        let path = d.join("m.obj");
        write_obj_mesh(&path, &MeshRef { positions: &p, normals, colours, indices: &i }).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (mut vs, mut vns, mut fs) = (Vec::new(), Vec::new(), Vec::new());
        for line in text.lines() {
            let mut t = line.split_whitespace();
            match t.next() {
                Some("v") => vs.push(t.map(|x| x.parse::<f32>().unwrap()).collect::<Vec<_>>()),
                Some("vn") => vns.push(t.map(|x| x.parse::<f32>().unwrap()).collect::<Vec<_>>()),
                Some("f") => fs.extend(t.map(|x| x.split('/').next().unwrap().parse::<u32>().unwrap() - 1)),
                _ => {}
            }
        }
        assert_eq!(vs.iter().map(|v| [v[0], v[1], v[2]]).collect::<Vec<_>>(), p);
        assert_eq!(fs, i);
        if colours.is_some() {
            let back: Vec<[u8; 3]> = vs.iter().map(|v| [3, 4, 5].map(|k| (v[k] * 255.0).round() as u8)).collect();
            assert_eq!(back, c);
            assert_eq!(vns.iter().map(|v| [v[0], v[1], v[2]]).collect::<Vec<_>>(), n);
        } else {
            assert!(vs.iter().all(|v| v.len() == 3) && vns.is_empty());
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn ply_mesh_round_trips_through_the_projects_ply_header_parser() {
    let (p, n, c, i) = tetra();
    let d = dir("plymesh");
    let path = d.join("m.ply");
    write_ply_mesh(&path, &MeshRef { positions: &p, normals: Some(&n), colours: Some(&c), indices: &i }).unwrap();
    let mut r = BufReader::new(std::fs::File::open(&path).unwrap());
    let h = parse_header(&path, &mut r).unwrap();
    assert_eq!(h.format, Format::Little);
    let names = |e: &Element| {
        e.props
            .iter()
            .map(|q| match q {
                Property::Scalar(s, n) => format!("{s:?} {n}"),
                Property::List(a, b, n) => format!("list {a:?} {b:?} {n}"),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!((h.elements[0].name.as_str(), h.elements[0].count), ("vertex", 4));
    assert_eq!(names(&h.elements[0]).len(), 9);
    assert_eq!(h.elements[1].count, 4);
    assert!(
        matches!(h.elements[1].props[0], Property::List(Scalar::U8, Scalar::U32, _)),
        "{:?}",
        names(&h.elements[1])
    );
    let mut body = Vec::new();
    r.read_to_end(&mut body).unwrap();
    assert_eq!(body.len(), 4 * (24 + 3) + 4 * 13);
    let f = |o: usize| f32::from_le_bytes(body[o..o + 4].try_into().unwrap());
    for k in 0..4 {
        let o = k * 27;
        assert_eq!([f(o), f(o + 4), f(o + 8)], p[k]);
        assert_eq!([f(o + 12), f(o + 16), f(o + 20)], n[k]);
        assert_eq!(&body[o + 24..o + 27], &c[k]);
    }
    for t in 0..4 {
        let o = 108 + t * 13;
        assert_eq!(body[o], 3);
        let idx: Vec<u32> =
            (0..3).map(|q| u32::from_le_bytes(body[o + 1 + 4 * q..o + 5 + 4 * q].try_into().unwrap())).collect();
        assert_eq!(idx, i[3 * t..3 * t + 3]);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn clouds_round_trip_as_ply_and_xyz() {
    let pts = vec![[1.0 / 3.0, -1e9 + 0.125, 2.5e-12], [0.0, 1.0, 2.0], [-7.5, 4.0, 1e300]];
    let nrm = vec![[0.0f32, 0.0, 1.0], [0.6, 0.8, 0.0], [0.0, -1.0, 0.0]];
    let col = vec![[1u8, 2, 3], [250, 251, 252], [0, 0, 0]];
    let d = dir("cloud");
    let ply = d.join("c.ply");
    write_ply_cloud(&ply, &CloudRef { positions: &pts, normals: Some(&nrm), colours: Some(&col) }).unwrap();
    // The project's point reader skips the other properties and gets the f64 positions exactly.
    assert_eq!(read_ply_points(&ply).unwrap(), pts);
    let xyz = d.join("c.xyz");
    write_xyz(&xyz, &CloudRef { positions: &pts, normals: Some(&nrm), colours: Some(&col) }).unwrap();
    let text = std::fs::read_to_string(&xyz).unwrap();
    for (k, line) in text.lines().enumerate() {
        let t: Vec<&str> = line.split(' ').collect();
        assert_eq!(t.len(), 9);
        assert_eq!([0, 1, 2].map(|q| t[q].parse::<f64>().unwrap()), pts[k]);
        assert_eq!([3, 4, 5].map(|q| t[q].parse::<f32>().unwrap()), nrm[k]);
        assert_eq!([6, 7, 8].map(|q| t[q].parse::<u8>().unwrap()), col[k]);
    }
    assert_eq!(text.lines().count(), 3);
    std::fs::remove_dir_all(&d).unwrap();
}

/// The entries of an NPZ as (header text, data bytes), parsed by hand (format 1.0).
fn npz_entries(path: &std::path::Path) -> std::collections::BTreeMap<String, (String, Vec<u8>)> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for k in 0..z.len() {
        let mut f = z.by_index(k).unwrap();
        assert_eq!(f.compression(), zip::CompressionMethod::Stored);
        let name = f.name().trim_end_matches(".npy").to_string();
        let mut b = Vec::new();
        f.read_to_end(&mut b).unwrap();
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let hl = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hl) % 64, 0, "header padded to 64 bytes");
        out.insert(name, (String::from_utf8(b[10..10 + hl].to_vec()).unwrap(), b[10 + hl..].to_vec()));
    }
    out
}

#[test]
fn npz_volume_reads_back_with_its_layout() {
    let dims = [3usize, 2, 4];
    let blocks: Vec<u16> = (0..24).map(|k| (k * 2731 % 65_521) as u16).collect();
    let d = dir("npz");
    let path = d.join("v.npz");
    write_npz_volume(&path, dims, &blocks, 1.5, [-64, 0, 32]).unwrap();
    let e = npz_entries(&path);
    assert_eq!(e.keys().collect::<Vec<_>>(), ["block_size", "blocks", "origin"]);
    let (h, b) = &e["blocks"];
    assert!(h.starts_with("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 4, 3), }"), "{h}");
    let back: Vec<u16> = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    assert_eq!(back, blocks);
    // Element [y, z, x] (C order over (ny, nz, nx)) is block (x, y, z) of x + nx·(z + nz·y).
    let (x, y, z) = (2, 1, 3);
    assert_eq!(back[(y * 4 + z) * 3 + x], blocks[x + 3 * (z + 4 * y)]);
    let (h, b) = &e["block_size"];
    assert!(h.contains("'<f8'") && h.contains("'shape': ()"), "{h}");
    assert_eq!(f64::from_le_bytes(b[..8].try_into().unwrap()), 1.5);
    let (h, b) = &e["origin"];
    assert!(h.contains("'<i4'") && h.contains("'shape': (3,)"), "{h}");
    let o: Vec<i32> = b.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(o, [-64, 0, 32]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_geometry_is_refused_and_nothing_is_written_or_lost() {
    let (p, n, c, i) = tetra();
    let d = dir("bad");
    let path = d.join("keep.ply");
    std::fs::write(&path, b"what the user had").unwrap();
    let m = |positions: &[[f32; 3]], normals: Option<&[[f32; 3]]>, indices: &[u32]| {
        write_ply_mesh(&path, &MeshRef { positions, normals, colours: None, indices }).unwrap_err().to_string()
    };
    assert!(m(&p, None, &[0, 1, 9]).contains("index 2 is 9 but the mesh has 4 vertices"));
    assert!(m(&p, None, &[0, 1]).contains("not whole triangles"));
    assert!(m(&p, Some(&n[..3]), &i).contains("3 normals for 4 vertices"));
    assert!(m(&[], None, &[]).contains("empty mesh"));
    let mut nan = p.clone();
    nan[2][1] = f32::NAN;
    assert!(m(&nan, None, &i).contains("vertex 2 is not finite"));
    let short = &c[..1];
    let e = write_obj_mesh(&path, &MeshRef { positions: &p, normals: None, colours: Some(short), indices: &i })
        .unwrap_err();
    assert!(e.to_string().contains("1 colours for 4 vertices"), "{e}");
    let e = write_xyz(&path, &CloudRef { positions: &[[0.0, f64::INFINITY, 0.0]], normals: None, colours: None })
        .unwrap_err();
    assert!(e.to_string().contains("point 0 is not finite"), "{e}");
    assert!(write_ply_cloud(&path, &CloudRef { positions: &[], normals: None, colours: None }).is_err());
    assert!(write_npz_volume(&path, [2, 2, 2], &[0; 7], 1.0, [0; 3]).unwrap_err().to_string().contains("7 blocks"));
    assert!(write_npz_volume(&path, [2, 2, 2], &[0; 8], f64::NAN, [0; 3]).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"what the user had");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "no temporary file left");
    std::fs::remove_dir_all(&d).unwrap();
}
