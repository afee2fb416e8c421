//! The contact sheet (rendered with [`crate::raster`], numbered with `bozkir_render`'s text).

use super::*;
use bozkir_render::draw::{draw_text, text_height, text_width};
use bozkir_render::image::Rgb8Image;

/// An 8-bit RGB image, row-major from the top.
pub struct Sheet {
    pub w: usize,
    pub h: usize,
    pub rgb: Vec<[u8; 3]>,
}

impl Sheet {
    pub(super) fn new(w: usize, h: usize, bg: [u8; 3]) -> Sheet {
        Sheet { w, h, rgb: vec![bg; w * h] }
    }
    pub(super) fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            self.rgb[y as usize * self.w + x as usize] = c;
        }
    }
    pub(super) fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3], width: i64) {
        for t in 0..width {
            for x in x0..=x1 {
                self.put(x, y0 + t, c);
                self.put(x, y1 - t, c);
            }
            for y in y0..=y1 {
                self.put(x0 + t, y, c);
                self.put(x1 - t, y, c);
            }
        }
    }
    pub(super) fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3]) {
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.put(x, y, c);
            }
        }
    }
    /// The number `n` in `bozkir_render`'s bitmap font scaled by `k`, on a black box with a
    /// margin of `k` pixels round the text.
    pub(super) fn number(&mut self, x: i64, y: i64, n: usize, k: i64, c: [u8; 3]) {
        let label = n.to_string();
        let scale = k.max(1) as usize;
        let mut label_box = Rgb8Image::new(text_width(&label, scale) + 2 * scale, text_height(scale) + 2 * scale);
        draw_text(&mut label_box, k, k, &label, scale, c);
        for by in 0..label_box.height {
            for bx in 0..label_box.width {
                self.put(x + bx as i64, y + by as i64, label_box.pixel(bx, by));
            }
        }
    }
    pub(super) fn blit(&mut self, img: &TopImage, x0: usize, y0: usize, bg: [f32; 3]) {
        let px = img.to_rgb8(bg);
        for y in 0..img.h {
            for x in 0..img.w {
                self.put((x0 + x) as i64, (y0 + y) as i64, px[y * img.w + x]);
            }
        }
    }
}

/// Colour of a class's frame (and of the overview boxes).
pub const CLASS_COLOURS: [[u8; 3]; 2] = [[255, 160, 0], [0, 200, 255]];
pub(super) const GREY: [u8; 3] = [110, 110, 110];
pub(super) const RED: [u8; 3] = [230, 30, 30];

/// A contact sheet: on the left the whole capture from above with every candidate's square
/// (chosen ones framed in their class colour, numbered), on the right a grid of the first
/// `max_tiles` candidates at `tile` px each, numbered by their index in `r.candidates`, framed
/// in the class colour when chosen (grey otherwise), with a red corner mark on landmarks.
pub fn contact_sheet(s: &Splats, r: &PatchSearch, tile: usize, max_tiles: usize) -> Sheet {
    let tile = tile.clamp(32, 512);
    let size = r.settings.size;
    let index = PlaneIndex::new(s, size / 2.0);
    let shown = r.candidates.len().min(max_tiles);
    let cols = (shown as f64).sqrt().ceil().max(1.0) as usize;
    let rows = shown.div_ceil(cols).max(1);
    let gap = 6;
    let over_px = (rows * (tile + gap)).max(2 * tile + gap).max(256);
    // Overview: the 1st–99th percentile square of the capture.
    let mut xs: Vec<f64> = s.positions().iter().filter(|p| p[0].is_finite()).map(|p| f64::from(p[0])).collect();
    let mut ys: Vec<f64> = s.positions().iter().filter(|p| p[1].is_finite()).map(|p| f64::from(p[1])).collect();
    let (bx, by) = if xs.is_empty() {
        ((0.0, 1.0), (0.0, 1.0))
    } else {
        let (px, py) = (percentiles(&mut xs, &[1.0, 99.0]), percentiles(&mut ys, &[1.0, 99.0]));
        ((px[0], px[1]), (py[0], py[1]))
    };
    let span = (bx.1 - bx.0).max(by.1 - by.0).max(size) * 1.05;
    let (cx, cy) = ((bx.0 + bx.1) / 2.0, (by.0 + by.1) / 2.0);
    let over = View { x0: cx - span / 2.0, y1: cy + span / 2.0, px: span / over_px as f64, w: over_px, h: over_px };
    let w = over_px + gap + cols * (tile + gap) + gap;
    let h = over_px.max(rows * (tile + gap)) + 2 * gap;
    let mut sheet = Sheet::new(w, h, [24, 24, 24]);
    let all: Vec<usize> = (0..s.len()).collect();
    let img = render_view(s, &all, &over, Shade::Colour);
    sheet.blit(&img, gap, gap, [0.1, 0.1, 0.1]);
    let to_px = |x: f64, y: f64| {
        (gap as i64 + ((x - over.x0) / over.px).round() as i64, gap as i64 + ((over.y1 - y) / over.px).round() as i64)
    };
    let frame = |c: &Candidate| match (c.chosen, c.class) {
        (true, Some(k)) => CLASS_COLOURS[k.min(1)],
        (true, None) => CLASS_COLOURS[0],
        _ => GREY,
    };
    // Unchosen first so chosen frames are drawn on top.
    for pass in [false, true] {
        for (i, c) in r.candidates.iter().enumerate().filter(|(_, c)| c.chosen == pass) {
            let (x0, y0) = to_px(c.centre[0] - size / 2.0, c.centre[1] + size / 2.0);
            let (x1, y1) = to_px(c.centre[0] + size / 2.0, c.centre[1] - size / 2.0);
            sheet.rect(x0, y0, x1, y1, frame(c), if pass { 2 } else { 1 });
            if pass {
                sheet.number(x0 + 3, y0 + 3, i, 2, [255, 255, 255]);
            }
            if c.landmark {
                sheet.fill(x1 - 6, y0 + 1, x1 - 1, y0 + 6, RED);
            }
        }
    }
    for (i, c) in r.candidates.iter().take(shown).enumerate() {
        let (col, row) = (i % cols, i / cols);
        let (x0, y0) = (over_px + 2 * gap + col * (tile + gap), gap + row * (tile + gap));
        let v = View::square(c.centre, size, tile);
        let idx = patch_indices(s, c.centre, size, Some(&index));
        sheet.blit(&render_view(s, &idx, &v, Shade::Colour), x0, y0, [0.1, 0.1, 0.1]);
        let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, (x0 + tile - 1) as i64, (y0 + tile - 1) as i64);
        sheet.rect(x0, y0, x1, y1, frame(c), if c.chosen { 3 } else { 1 });
        sheet.number(x0 + 4, y0 + 4, i, 2, [255, 255, 255]);
        if c.landmark {
            for t in 0..12 {
                sheet.fill(x1 - 12 + t, y0 + 1, x1 - 1, y0 + 1 + (12 - t) / 2, RED);
            }
        }
    }
    sheet
}
