//! An 8-bit RGB image buffer.

/// A `width × height` image, row-major from the top-left, three bytes (R, G, B) per pixel in
/// sRGB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgb8Image {
    /// Pixels per row.
    pub width: usize,
    /// Number of rows.
    pub height: usize,
    /// `width * height * 3` bytes, row-major, RGB interleaved.
    pub data: Vec<u8>,
}

impl Rgb8Image {
    /// A black image.
    pub fn new(width: usize, height: usize) -> Self {
        Self { width, height, data: vec![0; width * height * 3] }
    }

    /// The pixel at column `x`, row `y`.
    #[inline]
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }

    /// Sets the pixel at column `x`, row `y`.
    #[inline]
    pub fn set_pixel(&mut self, x: usize, y: usize, rgb: [u8; 3]) {
        let i = (y * self.width + x) * 3;
        self.data[i..i + 3].copy_from_slice(&rgb);
    }
}
