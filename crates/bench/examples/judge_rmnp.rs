//! How the material rule and the ground photos compare with reality (issue 25, "how we judge"):
//! on the Rocky Mountain National Park DEM and the satellite image of the same ground
//! (`data/dem/rmnp-*.tif`), learn the two classes' colours and the rule's share on the west half,
//! render the east half from straight above with the grass (class 0) and gravel (class 1) photos
//! tinted by those colours, and compare the render with the east half of the image: colour
//! histogram distance and SSIM after 4× and 16× box downsampling, per anti-tiling mode, with the
//! rule on and off (off: every tile takes the west half's mean colour and both photos at half
//! weight).
//!
//! Run: `cargo run --release -p bozkir-bench --example judge_rmnp [-- FIGURE.png]`
//! (`scripts/judge_rmnp.sh` writes `docs/figures/judge_rmnp.png`).
//!
//! Window: the centred square of the DEM (152 × 152 cells of about 234 m), where the image covers
//! it; the rule decides 76 × 76 tiles of 2 × 2 cells (the heights sampled at 2 per tile side);
//! the render has 4 pixels per cell. Truth: the image sampled bilinearly at the render's pixel
//! centres. "Vegetation" is not used: the comparison is of pictures, not of classes.

use bozkir_material::classify::{classify, Balance, ClassifyOptions};
use bozkir_material::Rule;
use bozkir_render::antitile::{decode_srgb, encode_srgb8, sample, DetailTexture, Tiling, TilingParams};
use std::path::Path;

const PX_PER_CELL: usize = 4;
/// Photo repeats per tile (a tile is 8 × 8 pixels): the photos' grain is visible in the render.
const REPEATS_PER_TILE: f64 = 0.5;

fn data(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(p)
}

fn photo(name: &str) -> DetailTexture {
    let g = bozkir_io::read_photo(data(name)).expect("photo");
    DetailTexture::from_srgb(g.width(), g.height(), g.data()).expect("texture")
}

/// An RGB image, sRGB 0..1, row-major.
struct Image {
    w: usize,
    h: usize,
    px: Vec<[f64; 3]>,
}

impl Image {
    fn down(&self, k: usize) -> Image {
        let (w, h) = (self.w / k, self.h / k);
        let px = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let mut s = [0.0; 3];
                for yy in y * k..y * k + k {
                    for xx in x * k..x * k + k {
                        let c = self.px[yy * self.w + xx];
                        (0..3).for_each(|q| s[q] += c[q] / (k * k) as f64);
                    }
                }
                s
            })
            .collect();
        Image { w, h, px }
    }
    fn luma(&self) -> Vec<f64> {
        self.px.iter().map(|c| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]).collect()
    }
}

/// Total variation distance of 32-bin histograms, mean over the channels: 0 same, 1 disjoint.
fn histogram_distance(a: &Image, b: &Image) -> f64 {
    let mut d = 0.0;
    for q in 0..3 {
        let hist = |im: &Image| {
            let mut h = [0.0f64; 32];
            for c in &im.px {
                h[((c[q].clamp(0.0, 1.0) * 32.0) as usize).min(31)] += 1.0 / im.px.len() as f64;
            }
            h
        };
        let (ha, hb) = (hist(a), hist(b));
        d += ha.iter().zip(&hb).map(|(x, y)| (x - y).abs()).sum::<f64>() / 2.0 / 3.0;
    }
    d
}

/// Mean SSIM of the luminance over 7 × 7 windows (Wang et al. 2004, C₁ = (0.01)², C₂ = (0.03)²
/// for values in 0..1); the whole image as one window when smaller.
fn ssim(a: &Image, b: &Image) -> f64 {
    let (la, lb) = (a.luma(), b.luma());
    let win = 7.min(a.w).min(a.h);
    let (c1, c2) = (1e-4, 9e-4);
    let (mut sum, mut n) = (0.0, 0.0);
    for y in 0..=a.h - win {
        for x in 0..=a.w - win {
            let idx = |i: usize| (y + i / win) * a.w + x + i % win;
            let m = (win * win) as f64;
            let ma = (0..win * win).map(|i| la[idx(i)]).sum::<f64>() / m;
            let mb = (0..win * win).map(|i| lb[idx(i)]).sum::<f64>() / m;
            let (mut va, mut vb, mut cov) = (0.0, 0.0, 0.0);
            for i in 0..win * win {
                let (p, q) = (la[idx(i)] - ma, lb[idx(i)] - mb);
                va += p * p / m;
                vb += q * q / m;
                cov += p * q / m;
            }
            sum += ((2.0 * ma * mb + c1) * (2.0 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            n += 1.0;
        }
    }
    sum / n
}

fn main() {
    let dem = bozkir_io::read_dem(data("dem/rmnp-dem.tif")).expect("DEM");
    let ortho = bozkir_io::read_geotiff_rgb(data("dem/rmnp-rgb.tif")).expect("image");
    let (dg, og) = (dem.georef.expect("DEM georeference"), ortho.georef.expect("image georeference"));
    let g = &dem.heights;
    // The centred square window of the DEM (152 cells a side).
    let side = g.width().min(g.height());
    let (c0, r0) = ((g.width() - side) / 2, (g.height() - side) / 2);
    let n = side / 2; // tiles
    let z: Vec<f64> = (0..side * side).map(|i| *g.get(c0 + i % side, r0 + i / side)).collect();
    assert!(z.iter().all(|v| v.is_finite()), "the window has no voids");

    // Truth: the image at the render's pixel centres (bilinear, sRGB).
    let (pw, ph) = (side * PX_PER_CELL, side * PX_PER_CELL);
    let (ow, oh) = (ortho.rgb.width(), ortho.rgb.height());
    let truth = Image {
        w: pw,
        h: ph,
        px: (0..pw * ph)
            .map(|i| {
                let (x, y) = (i % pw, i / pw);
                let (cx, cy) = (
                    c0 as f64 + (x as f64 + 0.5) / PX_PER_CELL as f64,
                    r0 as f64 + (y as f64 + 0.5) / PX_PER_CELL as f64,
                );
                let (gx, gy) = (dg.x0 + cx * dg.sx, dg.y0 - cy * dg.sy);
                let (u, v) = og.to_pixel(gx, gy);
                let (u0, v0) = (u.floor().clamp(0.0, (ow - 2) as f64), v.floor().clamp(0.0, (oh - 2) as f64));
                let (tx, ty) = ((u - u0).clamp(0.0, 1.0), (v - v0).clamp(0.0, 1.0));
                let at = |a: usize, b: usize| ortho.rgb.get(a, b).map(f64::from);
                let (a, b) = (u0 as usize, v0 as usize);
                let (p, q, r, s) = (at(a, b), at(a + 1, b), at(a, b + 1), at(a + 1, b + 1));
                std::array::from_fn(|k| {
                    (p[k] * (1.0 - tx) + q[k] * tx) * (1.0 - ty) + (r[k] * (1.0 - tx) + s[k] * tx) * ty
                })
            })
            .collect(),
    };

    // Learn on the west half: the rule's share is the west half's share of the darker half of
    // the tiles by luminance (forest and meadow darker than rock, tundra and snow), the class
    // colours the mean linear colour of the west half's tiles of each class.
    let tile_luma: Vec<f64> = (0..n * n)
        .map(|t| {
            let (tx, ty) = (t % n, t / n);
            let k = 2 * PX_PER_CELL;
            let mut s = 0.0;
            for y in ty * k..ty * k + k {
                for x in tx * k..tx * k + k {
                    let c = truth.px[y * pw + x];
                    s += 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
                }
            }
            s / (k * k) as f64
        })
        .collect();
    let west: Vec<usize> = (0..n * n).filter(|t| t % n < n / 2).collect();
    let mut sorted: Vec<f64> = tile_luma.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let share = west.iter().filter(|&&t| tile_luma[t] < median).count() as f64 / west.len() as f64;
    let spacing = 2.0 * g.dx; // a tile is 2 cells
    let opts = ClassifyOptions { spacing, balance: Balance::Share(share), ..ClassifyOptions::default() };
    let d = classify(&z, n, None, &Rule::builtin(), &opts).expect("classify");
    let mut mean = [[0.0f64; 3]; 2];
    let mut count = [0.0f64; 2];
    let mut all = [0.0f64; 3];
    for &t in &west {
        let (tx, ty) = (t % n, t / n);
        let k = 2 * PX_PER_CELL;
        for y in ty * k..ty * k + k {
            for x in tx * k..tx * k + k {
                let c = truth.px[y * pw + x].map(decode_srgb);
                let cl = d.class[t] as usize;
                (0..3).for_each(|q| {
                    mean[cl][q] += c[q];
                    all[q] += c[q];
                });
                count[cl] += 1.0;
            }
        }
    }
    let total = count[0] + count[1];
    let mean = [0, 1].map(|cl| mean[cl].map(|v| v / count[cl].max(1.0)));
    let all = all.map(|v| v / total);

    // Render the east half, per mode, rule on and off.
    let (grass, gravel) = (photo("textures/grass.png"), photo("textures/gravel.png"));
    let (mg, mv) = (grass.mean(), gravel.mean());
    let east = |im: &Image| Image {
        w: im.w / 2,
        h: im.h,
        px: (0..im.h).flat_map(|y| im.px[y * im.w + im.w / 2..(y + 1) * im.w].to_vec()).collect(),
    };
    let truth_east = east(&truth);
    let render = |mode: Tiling, rule: bool| {
        let p = TilingParams { mode, ..TilingParams::default() };
        let per_px = REPEATS_PER_TILE / (2 * PX_PER_CELL) as f64;
        let (lg, lv) = (grass.lod_for(per_px), gravel.lod_for(per_px));
        Image {
            w: pw,
            h: ph,
            px: (0..pw * ph)
                .map(|i| {
                    let (x, y) = (i % pw, i / pw);
                    let (u, v) = ((x as f64 + 0.5) * per_px, (y as f64 + 0.5) * per_px);
                    let t = (y / (2 * PX_PER_CELL)) * n + x / (2 * PX_PER_CELL);
                    let gr = sample(&grass, &p, u, v, lg);
                    let gv = sample(&gravel, &p, u + 0.37, v + 0.61, lv);
                    let c: [f64; 3] = if rule {
                        let (base, tex, m) = if d.class[t] == 0 { (mean[0], gr, mg) } else { (mean[1], gv, mv) };
                        std::array::from_fn(|q| base[q] * tex[q] / m[q].max(1e-6))
                    } else {
                        std::array::from_fn(|q| all[q] * 0.5 * (gr[q] / mg[q].max(1e-6) + gv[q] / mv[q].max(1e-6)))
                    };
                    encode_srgb8(c).map(|b| f64::from(b) / 255.0)
                })
                .collect(),
        }
    };
    println!("RMNP east half vs the satellite image (window {side}² cells of {:.0} m, rule share {share:.3} learned on the west half)", g.dx);
    println!("| mode | rule | histogram distance 4× | SSIM 4× | histogram distance 16× | SSIM 16× |");
    println!("|---|---|---|---|---|---|");
    let mut figure = Vec::new();
    for mode in Tiling::ALL {
        for rule in [true, false] {
            let r = east(&render(mode, rule));
            let row: Vec<f64> = [4, 16]
                .iter()
                .flat_map(|&k| {
                    let (a, b) = (truth_east.down(k), r.down(k));
                    [histogram_distance(&a, &b), ssim(&a, &b)]
                })
                .collect();
            println!(
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                mode.name(),
                if rule { "on" } else { "off" },
                row[0],
                row[1],
                row[2],
                row[3]
            );
            if mode == Tiling::HexVariance {
                figure.push(r);
            }
        }
    }
    if let Some(out) = std::env::args().nth(1) {
        // The image's east half | rule on (hex-vp) | rule off, side by side with 8 px gaps.
        let parts = [&truth_east, &figure[0], &figure[1]];
        let (w, h) = (parts.iter().map(|p| p.w).sum::<usize>() + 16, truth_east.h);
        let mut img = bozkir_core::Grid::new(w, h, [255u8; 3]);
        let mut x0 = 0;
        for p in parts {
            for y in 0..p.h {
                for x in 0..p.w {
                    *img.get_mut(x0 + x, y) = p.px[y * p.w + x].map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
                }
            }
            x0 += p.w + 8;
        }
        bozkir_io::write_rgb8(&out, &img).expect("figure");
        println!("wrote {out}");
    }
}
