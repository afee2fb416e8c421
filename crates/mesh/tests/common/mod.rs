//! A terrain-like block chunk shared by the tests and the bench: a 32³ chunk (34³ with its
//! apron) of rolling heightmap terrain (stone, dirt, grass), water (5) in the low parts, sand
//! (4) at the shore and spherical caves.

#![allow(dead_code)]

/// Dims of the chunk with its apron.
pub const DIMS: [usize; 3] = [34, 34, 34];

/// Ids of the chunk at world offset `(ox, oy, oz)` of its apron corner, layout x + nx (z + nz y).
pub fn terrain_chunk(ox: i64, oy: i64, oz: i64) -> Vec<u16> {
    let [nx, ny, nz] = DIMS;
    let mut d = vec![0u16; nx * ny * nz];
    for y in 0..ny {
        for z in 0..nz {
            for x in 0..nx {
                let (wx, wy, wz) = ((x as i64 + ox) as f64, (y as i64 + oy) as f64, (z as i64 + oz) as f64);
                let h = 16.0 + 6.0 * (wx * 0.09).sin() * (wz * 0.07).cos() + 3.0 * ((wx + 2.0 * wz) * 0.07).sin();
                let cave = ((wx * 0.31).sin() + (wy * 0.27).sin() + (wz * 0.23).sin()) > 2.1;
                let id = if wy < h {
                    if cave {
                        0
                    } else if wy < h - 4.0 {
                        1
                    } else if wy < h - 1.0 {
                        2
                    } else if h < 13.0 {
                        4
                    } else {
                        3
                    }
                } else if wy < 12.0 {
                    5
                } else {
                    0
                };
                d[x + nx * (z + nz * y)] = id;
            }
        }
    }
    d
}
