//! The splat PLY written by `bozkir-points` read back by the project's own 3DGS reader
//! (`bozkir_splat::formats::ply`): every raw value bit for bit, and the file identical to the
//! one `bozkir_splat` itself writes for the same splats, apart from the normals it zeroes.

use bozkir_points::{checked_splat_ply, encode_splat_ply, sample_surface, splats_from_cloud_coloured, SplatStyle};
use bozkir_splat::formats::ply::{encode_ply, parse_ply, read_ply, PlyEncoding};
use bozkir_splat::{RawSplat, Splats};
use std::path::Path;

fn splats() -> Vec<bozkir_points::Splat> {
    // A closed box (outward normals on six faces) and a slanted roof, 3000 points.
    let c = |x: f64, y: f64, z: f64| [x * 4.0, y * 2.0, z * 3.0];
    let mut soup = Vec::new();
    let quad = |soup: &mut Vec<[[f64; 3]; 3]>, a, b, cc, d| {
        soup.push([a, b, cc]);
        soup.push([a, cc, d]);
    };
    quad(&mut soup, c(0., 0., 0.), c(0., 1., 0.), c(1., 1., 0.), c(1., 0., 0.));
    quad(&mut soup, c(0., 0., 1.), c(1., 0., 1.), c(1., 1., 1.), c(0., 1., 1.));
    quad(&mut soup, c(0., 0., 0.), c(1., 0., 0.), c(1., 0., 1.), c(0., 0., 1.));
    quad(&mut soup, c(0., 1., 0.), c(0., 1., 1.), c(1., 1., 1.), c(1., 1., 0.));
    quad(&mut soup, c(0., 0., 0.), c(0., 0., 1.), c(0., 1., 1.), c(0., 1., 0.));
    quad(&mut soup, c(1., 0., 0.), c(1., 1., 0.), c(1., 1., 1.), c(1., 0., 1.));
    quad(&mut soup, c(0., 0., 1.2), c(1., 0., 1.5), c(1., 1., 1.9), c(0., 1., 1.6));
    let cloud = sample_surface(&soup, 3000, 12).unwrap();
    let colours: Vec<[u8; 3]> =
        cloud.triangle.iter().map(|&t| [(t * 18) as u8, 255 - (t * 18) as u8, (t * 91 % 256) as u8]).collect();
    splats_from_cloud_coloured(&cloud, &colours, 8, &SplatStyle::default()).unwrap()
}

#[test]
fn the_splat_reader_reads_it_back_exactly() {
    let s = splats();
    let bytes = encode_splat_ply(&s);
    let back = parse_ply(&bytes, Path::new("points.ply")).unwrap();
    assert_eq!(back.len(), s.len());
    assert_eq!(back.sh_degree(), 0);
    let bits3 = |v: &[f32; 3]| v.map(f32::to_bits);
    for (i, x) in s.iter().enumerate() {
        assert_eq!(bits3(&back.positions()[i]), bits3(&x.position), "position {i}");
        assert_eq!(bits3(&back.log_scales()[i]), bits3(&x.log_scale), "scale {i}");
        assert_eq!(back.rotations_raw()[i].map(f32::to_bits), x.rotation.map(f32::to_bits), "rotation {i}");
        assert_eq!(back.opacity_logits()[i].to_bits(), x.opacity_logit.to_bits(), "opacity {i}");
        assert_eq!(bits3(&back.sh_dc()[i]), bits3(&x.sh_dc), "colour {i}");
        // Decoded by the splat crate: σ, opacity, unit rotation agree with ours.
        let (a, b) = (back.scales()[i], x.scale());
        assert!((0..3).all(|k| (f64::from(a[k]) - b[k]).abs() <= 1e-6 * b[k]), "σ {i}: {a:?} vs {b:?}");
        assert!((f64::from(back.opacities()[i]) - 0.95).abs() < 1e-6);
    }
    // The file from disk too.
    let dir = std::env::temp_dir().join(format!("bozkir-points-readback-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("splats.ply");
    std::fs::write(&path, checked_splat_ply(&s).unwrap()).unwrap();
    assert_eq!(read_ply(&path).unwrap(), back);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_bytes_as_the_splat_writer_but_for_the_normals() {
    let s = splats();
    let mut model = Splats::with_capacity(s.len(), 0);
    for x in &s {
        model.push_raw(RawSplat {
            position: x.position,
            log_scale: x.log_scale,
            rotation: x.rotation,
            opacity_logit: x.opacity_logit,
            sh_dc: x.sh_dc,
            sh_rest: &[],
        });
    }
    let theirs = encode_ply(&model, PlyEncoding::BinaryLittleEndian);
    let zeroed: Vec<bozkir_points::Splat> = s.iter().map(|x| bozkir_points::Splat { normal: [0.0; 3], ..*x }).collect();
    assert_eq!(encode_splat_ply(&zeroed), theirs);
    // With normals, only bytes 12..24 of each record differ.
    let ours = encode_splat_ply(&s);
    assert_eq!(ours.len(), theirs.len());
    let header = theirs.len() - 68 * s.len();
    for (j, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            assert!(j >= header && ((j - header) % 68) / 4 >= 3 && ((j - header) % 68) / 4 < 6, "byte {j}");
        }
    }
    assert_ne!(ours, theirs);
}
