//! `read_photo`: every PNG layout a ground photo comes in, and the ones refused.

use bozkir_io::{read_photo, IoError};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("bozkir-photo-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, w: u32, h: u32, color: png::ColorType, depth: png::BitDepth, data: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let mut e = png::Encoder::new(f, w, h);
    e.set_color(color);
    e.set_depth(depth);
    if color == png::ColorType::Indexed {
        e.set_palette(vec![0u8, 0, 0, 255, 255, 255]);
    }
    e.write_header().unwrap().write_image_data(data).unwrap();
}

#[test]
fn reads_grey_alpha_rgb_rgba_at_8_and_16_bits() {
    let d = dir();
    let p = d.join("grey_alpha.png");
    write(&p, 2, 1, png::ColorType::GrayscaleAlpha, png::BitDepth::Eight, &[51, 0, 255, 9]);
    assert_eq!(read_photo(&p).unwrap().data(), &[[0.2; 3], [1.0; 3]]);

    let p = d.join("rgb16.png");
    let px = [0xFFFFu16, 0, 0x8000, 0, 0xFFFF, 0];
    let bytes: Vec<u8> = px.iter().flat_map(|v| v.to_be_bytes()).collect();
    write(&p, 2, 1, png::ColorType::Rgb, png::BitDepth::Sixteen, &bytes);
    let g = read_photo(&p).unwrap();
    assert_eq!((g.width(), g.height()), (2, 1));
    assert_eq!(g.data()[0], [1.0, 0.0, 32768.0 / 65535.0]);
    assert_eq!(g.data()[1], [0.0, 1.0, 0.0]);

    let p = d.join("rgba.png");
    write(&p, 1, 2, png::ColorType::Rgba, png::BitDepth::Eight, &[255, 0, 0, 0, 0, 0, 255, 128]);
    assert_eq!(read_photo(&p).unwrap().data(), &[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);

    let p = d.join("grey16.png");
    write(&p, 1, 1, png::ColorType::Grayscale, png::BitDepth::Sixteen, &[0xFF, 0xFF]);
    assert_eq!(read_photo(&p).unwrap().data(), &[[1.0; 3]]);

    // The bundled photo: 512 × 512 grey.
    let gravel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/textures/gravel.png");
    let g = read_photo(gravel).unwrap();
    assert_eq!((g.width(), g.height()), (512, 512));
    assert!(g.data().iter().all(|c| c[0] == c[1] && c[1] == c[2]));
}

#[test]
fn refuses_palette_and_low_bit_depths_naming_the_file() {
    let d = dir();
    let p = d.join("indexed.png");
    write(&p, 2, 1, png::ColorType::Indexed, png::BitDepth::Eight, &[0, 1]);
    let e = read_photo(&p).unwrap_err();
    assert!(matches!(e, IoError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("indexed.png") && e.to_string().contains("palette"), "{e}");

    let p = d.join("grey4.png");
    write(&p, 2, 1, png::ColorType::Grayscale, png::BitDepth::Four, &[0x1F]);
    let e = read_photo(&p).unwrap_err();
    assert!(e.to_string().contains("grey4.png") && e.to_string().contains("8 or 16 bits"), "{e}");

    let e = read_photo(d.join("missing.png")).unwrap_err();
    assert!(e.to_string().contains("missing.png"), "{e}");
    let p = d.join("not_png.png");
    std::fs::write(&p, b"hello").unwrap();
    assert!(read_photo(&p).unwrap_err().to_string().contains("not_png.png"));
}
