//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and every crash input found
//! (`fuzz/artifacts/<target>/`) through the same target bodies the libFuzzer targets run
//! (`fuzz/bodies.rs`), as a plain `cargo test`: no input may panic any parser.
//!
//! `make_fuzz_seeds` (ignored) regenerates the small valid seed files with the crates' writers.

#[path = "../../../fuzz/bodies.rs"]
mod bodies;

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir` (none if it does not exist), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

#[test]
fn every_corpus_and_crash_input_replays_without_panic() {
    let root = fuzz_dir();
    let mut failures = Vec::new();
    let mut count = 0usize;
    for (name, body) in bodies::TARGETS {
        let corpus = files(&root.join("corpus").join(name));
        assert!(!corpus.is_empty(), "fuzz/corpus/{name}/ has no seed files");
        for file in corpus.iter().chain(files(&root.join("artifacts").join(name)).iter()) {
            let data = std::fs::read(file).unwrap();
            count += 1;
            // catch_unwind only to name the file; any panic fails the test below.
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failures.push(file.display().to_string());
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} fuzz inputs panicked: {failures:#?}", failures.len());
}

#[test]
fn every_target_has_a_fuzz_target_file() {
    let root = fuzz_dir();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for (name, _) in bodies::TARGETS {
        let src = std::fs::read_to_string(root.join("fuzz_targets").join(format!("{name}.rs"))).unwrap();
        assert!(src.contains(&format!("bodies::{name}(data)")), "fuzz_targets/{name}.rs does not call bodies::{name}");
        assert!(manifest.contains(&format!("name = \"{name}\"")), "fuzz/Cargo.toml lacks the [[bin]] {name}");
    }
}

/// An NPY v1.0 file of little-endian f64 values with the given shape.
fn npy_f64(shape: &[usize], values: &[f64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {tuple}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// A zip (stored and deflated entries) of `entries`.
fn zip_of(entries: &[(&str, Vec<u8>)], deflate: bool) -> Vec<u8> {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let method = if deflate { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, bytes) in entries {
            z.start_file(*name, opts).unwrap();
            z.write_all(bytes).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

/// Regenerates the seed corpora in `fuzz/corpus/`: small valid files written with the crates'
/// own writers, plus a few hostile ones (empty, truncated, lying headers). Run with
/// `cargo test -p bozkir --test fuzz_replay -- --ignored make_fuzz_seeds`.
#[test]
#[ignore]
fn make_fuzz_seeds() {
    use bozkir_core::Grid;
    let root = fuzz_dir().join("corpus");
    let tmp = tempfile::tempdir().unwrap();
    let put = |target: &str, name: &str, bytes: &[u8]| {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
    };
    // Write with a path-taking writer into the tempdir, return the bytes.
    let via = |name: &str, write: &dyn Fn(&Path)| -> Vec<u8> {
        let p = tmp.path().join(name);
        write(&p);
        std::fs::read(&p).unwrap()
    };
    let heights = Grid::from_vec(5, 4, (0..20).map(|i| f64::from(i) * 1.5).collect());

    // GeoTIFF / TIFF.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/dem/rmnp-dem.tif");
    let dem = std::fs::read(data).unwrap();
    put("geotiff", "rmnp-dem.tif", &dem);
    let f32tif = via("a.tif", &|p| {
        bozkir_io::write_tiff_f32(p, &Grid::from_vec(3, 2, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])).unwrap()
    });
    put("geotiff", "f32-3x2.tif", &f32tif);
    put("geotiff", "truncated.tif", &dem[..600]);
    put("geotiff", "empty.tif", b"");
    let mut huge = f32tif.clone();
    // ImageWidth/ImageLength claimed huge: patch the first SHORT/LONG 256/257 entries' values.
    patch_tiff_dims(&mut huge, 0x7fff_ffff);
    put("geotiff", "huge-dims.tif", &huge);

    // NPY / NPZ.
    let grid = npy_f64(&[4, 5], heights.data());
    put("npy", "4x5-f64.npy", &grid);
    put("npy", "1d.npy", &npy_f64(&[3], &[1.0, 2.0, 3.0]));
    put("npy", "truncated.npy", &grid[..70]);
    let mut lying = npy_f64(&[65536, 65536], &[]);
    lying.extend_from_slice(&[0; 16]);
    put("npy", "claims-32gib.npy", &lying);
    let npz_entries =
        [("elevation.npy", grid.clone()), ("dx.npy", npy_f64(&[], &[30.0])), ("dy.npy", npy_f64(&[], &[30.0]))];
    put("npz", "dem-stored.npz", &zip_of(&npz_entries, false));
    put("npz", "dem-deflated.npz", &zip_of(&npz_entries, true));
    put("npz", "only-z.npz", &zip_of(&[("z.npy", grid.clone())], true));
    put("npz", "lying-entry.npz", &zip_of(&[("elevation.npy", lying.clone())], true));
    put("npz", "empty.npz", b"");

    // PNG: 16-bit grey, 8-bit grey, RGB, RG16.
    put("png", "grey16.png", &via("a.png", &|p| bozkir_io::write_png16(p, &heights, 0.0, 30.0).unwrap()));
    put(
        "png",
        "grey8.png",
        &via("b.png", &|p| bozkir_io::write_png8(p, &Grid::from_vec(3, 2, vec![0u8, 50, 100, 150, 200, 250])).unwrap()),
    );
    put(
        "png",
        "rgb8.png",
        &via("c.png", &|p| bozkir_io::write_rgb8(p, &Grid::from_vec(2, 2, vec![[1u8, 2, 3]; 4])).unwrap()),
    );
    put("png", "rg16.png", &via("d.png", &|p| bozkir_io::write_rg16(p, &heights, 0.0, 30.0).unwrap()));
    let mut png_huge = via("e.png", &|p| bozkir_io::write_png8(p, &Grid::new(2, 2, 7u8)).unwrap());
    // IHDR width and height (bytes 16..24) claimed 2^30 each; the CRC is left stale.
    png_huge[16..20].copy_from_slice(&(1u32 << 30).to_be_bytes());
    png_huge[20..24].copy_from_slice(&(1u32 << 30).to_be_bytes());
    put("png", "huge-ihdr.png", &png_huge);
    put("png", "signature-only.png", b"\x89PNG\r\n\x1a\n");

    // PLY point clouds.
    let pts = [[0.0, 0.0, 1.0], [1.0, 2.0, 3.0], [4.5, -1.0, 2.0]];
    use bozkir_io::plyfmt::Format as PlyFormat;
    put("ply_points", "ascii.ply", &via("a.ply", &|p| bozkir_io::write_ply_points(p, &pts, PlyFormat::Ascii).unwrap()));
    put(
        "ply_points",
        "little.ply",
        &via("b.ply", &|p| bozkir_io::write_ply_points(p, &pts, PlyFormat::Little).unwrap()),
    );
    put("ply_points", "big.ply", &via("c.ply", &|p| bozkir_io::write_ply_points(p, &pts, PlyFormat::Big).unwrap()));
    put("ply_points", "lying-count.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n\0\0\0\0");

    // Splat formats: degree 0 and degree 1 (PLY keeps SH).
    let mut s0 = bozkir_splat::Splats::new(0);
    let mut s1 = bozkir_splat::Splats::new(1);
    for i in 0..3 {
        let f = i as f32;
        s0.push_decoded([f, 1.0, -f], [0.1, 0.2, 0.3], [1.0, 0.0, 0.0, 0.0], 0.8, [0.5, 0.2, 0.1], &[]);
        s1.push_decoded(
            [f, 1.0, -f],
            [0.1, 0.2, 0.3],
            [0.5, 0.5, 0.5, 0.5],
            0.3,
            [0.5, 0.2, 0.1],
            &[[0.1, 0.0, -0.1]; 3],
        );
    }
    let save = |name: &str, s: &bozkir_splat::Splats| via(name, &|p| bozkir_splat::formats::save(p, s).unwrap());
    put("ply_splats", "deg0.ply", &save("s0.ply", &s0));
    put("ply_splats", "deg1.ply", &save("s1.ply", &s1));
    put("ply_splats", "lying-count.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n");
    put("dot_splat", "three.splat", &save("s0.splat", &s0));
    put("dot_splat", "ragged.splat", &save("s0b.splat", &s0)[..40]);
    put("spz", "deg0.spz", &save("s0.spz", &s0));
    put("spz", "deg1.spz", &save("s1.spz", &s1));
    put("spz", "not-gzip.spz", b"NGSP\x02\0\0\0");
    let glb = save("s0.glb", &s0);
    put("glb", "deg0.glb", &glb);
    put("glb", "deg1.glb", &save("s1.glb", &s1));
    put("glb", "truncated.glb", &glb[..glb.len() / 2]);

    // LAS (formats 0 and 1); the head of the LAZ sample (header and LASzip VLR, no points).
    let layout0 = bozkir_io::LasLayout { point_format: 0, ..Default::default() };
    put("las", "f1.las", &via("a.las", &|p| bozkir_io::write_las(p, &pts, &[2, 2, 5], &Default::default()).unwrap()));
    put("las", "f0.las", &via("b.las", &|p| bozkir_io::write_las(p, &pts, &[1, 2, 6], &layout0).unwrap()));
    let laz = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/lidar/autzen_trim.laz")).unwrap();
    put("las", "autzen-head.laz", &laz[..8192.min(laz.len())]);
    put("las", "magic-only.las", b"LASF");

    // Recipe TOML: the built-in recipes, plus hostile text.
    for (name, text) in bozkir_recipe::builtin::SOURCES {
        put("recipe_toml", &format!("{name}.toml"), text.as_bytes());
    }
    put("recipe_toml", "unknown-op.toml", b"[[stage]]\nop = \"nope\"\n");
    put("recipe_toml", "deep.toml", format!("a = {}", "[".repeat(2000)).as_bytes());

    // Rule JSON: the built-in rule, plus hostile text.
    put("rule_json", "builtin.json", bozkir_material::rule::RULE_JSON.as_bytes());
    put("rule_json", "empty-object.json", b"{}");
    put("rule_json", "deep.json", "[".repeat(5000).as_bytes());

    // Tilesets: a small starter tileset as a zip, and as manifest + splats.
    use bozkir_splat::formats::tileset;
    use bozkir_splat::tiling::starter::{starter, StarterParams};
    let (ts, ..) = starter(&StarterParams { per_side: 4, levels: 1, atlas_res: 4, ..StarterParams::default() });
    let files = tileset::encode(&ts, None).unwrap();
    put("tileset_zip", "starter.zip", &tileset::zip_bytes(&files).unwrap());
    let get = |n: &str| files.iter().find(|(f, _)| f == n).unwrap().1.clone();
    let (manifest, splats) = (get("tileset.json"), get("tiles.splat"));
    let mut both = (manifest.len() as u32).to_le_bytes().to_vec();
    both.extend_from_slice(&manifest);
    both.extend_from_slice(&splats);
    put("tileset_manifest", "starter.bin", &both);
    put("tileset_zip", "only-manifest.zip", &zip_of(&[("tileset.json", manifest.clone())], true));
    put("tileset_zip", "empty.zip", &zip_of(&[], false));
    let mut no_splats = (manifest.len() as u32).to_le_bytes().to_vec();
    no_splats.extend_from_slice(&manifest);
    put("tileset_manifest", "no-splats.bin", &no_splats);
}

/// Set the first ImageWidth (256) and ImageLength (257) entries of a little-endian TIFF to `v`
/// (as LONG).
fn patch_tiff_dims(t: &mut [u8], v: u32) {
    assert_eq!(&t[..2], b"II");
    let ifd = u32::from_le_bytes(t[4..8].try_into().unwrap()) as usize;
    let n = u16::from_le_bytes(t[ifd..ifd + 2].try_into().unwrap()) as usize;
    for i in 0..n {
        let e = ifd + 2 + 12 * i;
        let tag = u16::from_le_bytes(t[e..e + 2].try_into().unwrap());
        if tag == 256 || tag == 257 {
            t[e + 2..e + 4].copy_from_slice(&4u16.to_le_bytes());
            t[e + 4..e + 8].copy_from_slice(&1u32.to_le_bytes());
            t[e + 8..e + 12].copy_from_slice(&v.to_le_bytes());
        }
    }
}
