//! Simple raster drawing on [`Rgb8Image`]: filled rectangles, lines, images pasted side by
//! side, and text in a tiny built-in 3 × 5 bitmap font (upper-case letters, digits and a few
//! signs; lower case is drawn as upper case, anything else as `?`). Enough for figure labels
//! and axis ticks without a font file or a plotting crate. Pure and deterministic.

use crate::image::Rgb8Image;

/// Glyph rows, top first; bit 2 is the left column.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [6, 1, 2, 4, 7],
        '3' => [6, 1, 2, 1, 6],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 6, 1, 6],
        '6' => [3, 4, 7, 5, 7],
        '7' => [7, 1, 2, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 6],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        '+' => [0, 2, 7, 2, 0],
        '=' => [0, 7, 0, 7, 0],
        '(' => [1, 2, 2, 2, 1],
        ')' => [4, 2, 2, 2, 4],
        ':' => [0, 2, 0, 2, 0],
        '%' => [5, 1, 2, 4, 5],
        '/' => [1, 1, 2, 4, 4],
        '_' => [0, 0, 0, 0, 7],
        '\'' => [2, 2, 0, 0, 0],
        ' ' => [0; 5],
        _ => [6, 1, 2, 0, 2],
    }
}

/// Width in pixels of `text` drawn at `scale` (4 columns per character, the last without its
/// gap).
pub fn text_width(text: &str, scale: usize) -> usize {
    let n = text.chars().count();
    if n == 0 {
        0
    } else {
        (4 * n - 1) * scale
    }
}

/// Height in pixels of a line of text at `scale`.
pub fn text_height(scale: usize) -> usize {
    5 * scale
}

/// Fill the rectangle `[x, x + w) × [y, y + h)`, clipped to the image.
pub fn fill_rect(im: &mut Rgb8Image, x: i64, y: i64, w: i64, h: i64, rgb: [u8; 3]) {
    let x0 = x.max(0) as usize;
    let y0 = y.max(0) as usize;
    let x1 = (x + w).clamp(0, im.width as i64) as usize;
    let y1 = (y + h).clamp(0, im.height as i64) as usize;
    for yy in y0..y1 {
        for xx in x0..x1 {
            im.set_pixel(xx, yy, rgb);
        }
    }
}

/// Draw `text` with its top-left corner at `(x, y)`, each font pixel a `scale × scale` square.
pub fn draw_text(im: &mut Rgb8Image, x: i64, y: i64, text: &str, scale: usize, rgb: [u8; 3]) {
    let s = scale.max(1) as i64;
    for (k, c) in text.chars().enumerate() {
        let g = glyph(c);
        let cx = x + 4 * s * k as i64;
        for (r, bits) in g.iter().enumerate() {
            for col in 0..3 {
                if bits & (4 >> col) != 0 {
                    fill_rect(im, cx + col * s, y + r as i64 * s, s, s, rgb);
                }
            }
        }
    }
}

/// Images side by side (top-aligned) with `gap` pixels of `background` between and around
/// them.
pub fn hstack(images: &[&Rgb8Image], gap: usize, background: [u8; 3]) -> Rgb8Image {
    let w = images.iter().map(|i| i.width).sum::<usize>() + gap * (images.len() + 1);
    let h = images.iter().map(|i| i.height).max().unwrap_or(0) + 2 * gap;
    let mut out = Rgb8Image::new(w, h);
    fill_rect(&mut out, 0, 0, w as i64, h as i64, background);
    let mut x = gap;
    for im in images {
        paste(&mut out, im, x, gap);
        x += im.width + gap;
    }
    out
}

/// Copy `src` into `dst` with its top-left corner at `(x, y)`, clipped.
pub fn paste(dst: &mut Rgb8Image, src: &Rgb8Image, x: usize, y: usize) {
    for r in 0..src.height {
        if y + r >= dst.height {
            break;
        }
        let n = src.width.min(dst.width.saturating_sub(x));
        let s = &src.data[r * src.width * 3..(r * src.width + n) * 3];
        let d0 = ((y + r) * dst.width + x) * 3;
        dst.data[d0..d0 + n * 3].copy_from_slice(s);
    }
}

/// `im` with a strip of `strip` pixels of `background` above it carrying `label` (centred,
/// at `scale`).
pub fn with_label(im: &Rgb8Image, label: &str, scale: usize, background: [u8; 3], ink: [u8; 3]) -> Rgb8Image {
    let strip = text_height(scale) + 4 * scale;
    let mut out = Rgb8Image::new(im.width, im.height + strip);
    fill_rect(&mut out, 0, 0, im.width as i64, strip as i64, background);
    paste(&mut out, im, 0, strip);
    let tw = text_width(label, scale) as i64;
    draw_text(&mut out, (im.width as i64 - tw) / 2, 2 * scale as i64, label, scale, ink);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lands_where_measured() {
        let mut im = Rgb8Image::new(40, 12);
        draw_text(&mut im, 1, 1, "K1", 2, [255, 255, 255]);
        let lit: Vec<(usize, usize)> =
            (0..12).flat_map(|y| (0..40).map(move |x| (x, y))).filter(|&(x, y)| im.pixel(x, y)[0] == 255).collect();
        assert!(!lit.is_empty());
        let maxx = lit.iter().map(|p| p.0).max().unwrap();
        let maxy = lit.iter().map(|p| p.1).max().unwrap();
        assert_eq!(maxx, 1 + text_width("K1", 2) - 1);
        assert_eq!(maxy, 1 + text_height(2) - 1);
        // Lower case draws as upper case.
        let mut a = Rgb8Image::new(12, 7);
        let mut b = Rgb8Image::new(12, 7);
        draw_text(&mut a, 0, 0, "ab", 1, [9, 9, 9]);
        draw_text(&mut b, 0, 0, "AB", 1, [9, 9, 9]);
        assert_eq!(a, b);
    }

    #[test]
    fn stacking_and_clipping() {
        let mut red = Rgb8Image::new(3, 2);
        fill_rect(&mut red, -5, -5, 100, 100, [255, 0, 0]);
        let blue = {
            let mut b = Rgb8Image::new(2, 4);
            fill_rect(&mut b, 0, 0, 2, 4, [0, 0, 255]);
            b
        };
        let s = hstack(&[&red, &blue], 1, [255, 255, 255]);
        assert_eq!((s.width, s.height), (3 + 2 + 3, 4 + 2));
        assert_eq!(s.pixel(1, 1), [255, 0, 0]);
        assert_eq!(s.pixel(5, 4), [0, 0, 255]);
        assert_eq!(s.pixel(2, 4), [255, 255, 255]);
        let l = with_label(&red, "A", 1, [0, 0, 0], [255, 255, 255]);
        assert_eq!(l.height, 2 + 9);
    }
}
