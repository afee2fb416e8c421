//! Tiled world stores (`bozkir tiled`, a Zarr v3 folder) streamed to the page as a quadtree of
//! height nodes; see `docs/viewer.md` "Tiled worlds".
//!
//! A world of `S × S` cells has levels `0..levels`: level `L` cuts it into `2^L × 2^L` nodes, each
//! [`NODE`]² samples (128 intervals) on the world's own cells. The sample of global index `g`
//! (`0 ..= 2^L·128` along an axis) is the cell `round(g·(S − 1) / (2^L·128))`, so two neighbouring
//! nodes share their border samples exactly and a node's samples are cells of the store, never
//! interpolated. The deepest level has at least one sample per cell.
//!
//! Levels up to [`OVERVIEW_LEVEL`] are read from an overview (the samples of that level, built
//! once from every chunk on the first request, in parallel); deeper nodes read the one to four
//! chunks under them through a small cache of decoded chunks.

use crate::confine::check_inside;
use crate::error::{Result, ViewerError};
use bozkir_io::zarr_store::ZarrTiles;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Samples per node side.
pub const NODE: usize = 129;
/// The deepest level served from the overview (1024 intervals a side).
pub const OVERVIEW_LEVEL: u32 = 3;
/// Decoded chunks kept per store (bytes), at least four chunks.
const CACHE_BYTES: usize = 512 << 20;

/// The overview: the samples of level [`OVERVIEW_LEVEL`] over the whole world, row-major, and
/// their finite range.
#[derive(Debug)]
struct Overview {
    heights: Vec<f32>,
    low: f32,
    high: f32,
}

#[derive(Debug, Default)]
struct Cache {
    chunks: HashMap<(usize, usize), Option<Arc<Vec<f32>>>>,
    order: VecDeque<(usize, usize)>,
}

/// A tiled world store of the scene.
#[derive(Debug)]
pub struct StoreEntry {
    /// Its name in URLs (`data/stores/NAME/`) and in the catalogue.
    pub name: String,
    root: PathBuf,
    tiles: ZarrTiles,
    /// Levels of the quadtree (`0..levels`).
    pub levels: u32,
    overview: OnceLock<std::result::Result<Overview, String>>,
    cache: Mutex<Cache>,
}

/// The cell of global sample `g` at a level of `intervals` samples a side, in a world of `side`
/// cells (round half up, in integers).
fn cell_of(g: usize, intervals: usize, side: usize) -> usize {
    (2 * g * (side - 1) + intervals) / (2 * intervals)
}

impl StoreEntry {
    /// The store `dir` (inside the served folder `root`) as the scene's `name`; refused when it
    /// is not the layout `bozkir tiled` writes or not square.
    pub fn open(root: &Path, name: String, dir: &Path) -> Result<StoreEntry> {
        let tiles = ZarrTiles::open(dir).map_err(|e| ViewerError::Invalid(e.to_string()))?;
        if tiles.width != tiles.height {
            return Err(ViewerError::Invalid(format!(
                "{}: a {}×{} world; the viewer streams square worlds",
                dir.display(),
                tiles.width,
                tiles.height
            )));
        }
        let mut levels = 1;
        while (NODE - 1) << (levels - 1) < tiles.width - 1 {
            levels += 1;
        }
        Ok(StoreEntry {
            name,
            root: root.to_path_buf(),
            tiles,
            levels,
            overview: OnceLock::new(),
            cache: Mutex::new(Cache::default()),
        })
    }

    /// World side in cells.
    pub fn size(&self) -> usize {
        self.tiles.width
    }

    /// Cell size in metres.
    pub fn cell_m(&self) -> f64 {
        self.tiles.cell.0
    }

    pub(crate) fn catalogue_entry(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "path": format!("data/stores/{}/", self.name),
            "size": self.size(),
            "cell_m": self.cell_m(),
            "levels": self.levels,
        })
    }

    /// A decoded chunk (None: not written), through the cache.
    fn chunk(&self, cx: usize, cy: usize) -> Result<Option<Arc<Vec<f32>>>> {
        if let Some(c) = self.cache.lock().unwrap().chunks.get(&(cx, cy)) {
            return Ok(c.clone());
        }
        check_inside(&self.root, &self.tiles.chunk_path(cx, cy))?;
        let c = self.tiles.read_chunk(cx, cy).map_err(|e| ViewerError::Invalid(e.to_string()))?.map(Arc::new);
        let mut cache = self.cache.lock().unwrap();
        let keep = (CACHE_BYTES / (self.tiles.chunk * self.tiles.chunk * 4)).max(4);
        while cache.order.len() >= keep {
            let old = cache.order.pop_front().expect("non-empty");
            cache.chunks.remove(&old);
        }
        if cache.chunks.insert((cx, cy), c.clone()).is_none() {
            cache.order.push_back((cx, cy));
        }
        Ok(c)
    }

    fn build_overview(&self) -> std::result::Result<Overview, String> {
        let n = ((NODE - 1) << OVERVIEW_LEVEL) + 1;
        let side = self.size();
        let cells: Vec<usize> = (0..n).map(|g| cell_of(g, n - 1, side)).collect();
        let c = self.tiles.chunk;
        let (nx, ny) = self.tiles.chunks();
        let jobs: Vec<(usize, usize)> = (0..ny).flat_map(|cy| (0..nx).map(move |cx| (cx, cy))).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len()).max(1);
        // Each chunk sets the overview samples that fall in it; chunks are read once, not cached.
        let parts: Vec<std::result::Result<Vec<(usize, f32)>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (jobs, cells) = (&jobs, &cells);
                    s.spawn(move || {
                        let mut out = Vec::new();
                        for &(cx, cy) in jobs.iter().skip(t).step_by(threads) {
                            check_inside(&self.root, &self.tiles.chunk_path(cx, cy)).map_err(|e| e.to_string())?;
                            let Some(h) = self.tiles.read_chunk(cx, cy).map_err(|e| e.to_string())? else { continue };
                            for (j, &r) in cells.iter().enumerate().filter(|(_, &r)| r / c == cy) {
                                for (i, &q) in cells.iter().enumerate().filter(|(_, &q)| q / c == cx) {
                                    out.push((j * n + i, h[(r % c) * c + q % c]));
                                }
                            }
                        }
                        Ok(out)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("overview thread")).collect()
        });
        let mut heights = vec![f32::NAN; n * n];
        for part in parts {
            for (k, v) in part? {
                heights[k] = v;
            }
        }
        let (low, high) = heights
            .iter()
            .filter(|v| v.is_finite())
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        Ok(Overview { heights, low, high })
    }

    fn overview(&self) -> Result<&Overview> {
        self.overview.get_or_init(|| self.build_overview()).as_ref().map_err(|e| ViewerError::Invalid(e.clone()))
    }

    /// `meta.json`: the world's size, cell, levels, node size, height range (NaN-free; 0..0 for
    /// a store with no chunk yet) and the store's `bozkir` attributes.
    pub fn meta(&self) -> Result<serde_json::Value> {
        let o = self.overview()?;
        let (low, high) = if o.low <= o.high { (o.low as f64, o.high as f64) } else { (0.0, 0.0) };
        Ok(serde_json::json!({
            "name": self.name,
            "size": self.size(),
            "cell_m": self.cell_m(),
            "chunk": self.tiles.chunk,
            "levels": self.levels,
            "node": NODE,
            "overview_level": OVERVIEW_LEVEL,
            "low_m": low,
            "high_m": high,
            "world": self.tiles.attributes.get("bozkir").cloned().unwrap_or(serde_json::Value::Null),
        }))
    }

    /// Node `(level, x, y)` (x east, y south from the north-west corner): [`NODE`]² float32
    /// heights, row 0 north, NaN where no chunk was written. None for a node outside the tree.
    pub fn node(&self, level: u32, x: usize, y: usize) -> Result<Option<Vec<f32>>> {
        if level >= self.levels || x >= 1 << level || y >= 1 << level {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(NODE * NODE);
        if level <= OVERVIEW_LEVEL {
            let o = self.overview()?;
            let n = ((NODE - 1) << OVERVIEW_LEVEL) + 1;
            let step = 1 << (OVERVIEW_LEVEL - level);
            for j in 0..NODE {
                for i in 0..NODE {
                    let (gx, gy) = ((x * (NODE - 1) + i) * step, (y * (NODE - 1) + j) * step);
                    out.push(o.heights[gy * n + gx]);
                }
            }
            return Ok(Some(out));
        }
        let (side, c, intervals) = (self.size(), self.tiles.chunk, (NODE - 1) << level);
        let cols: Vec<usize> = (0..NODE).map(|i| cell_of(x * (NODE - 1) + i, intervals, side)).collect();
        let rows: Vec<usize> = (0..NODE).map(|j| cell_of(y * (NODE - 1) + j, intervals, side)).collect();
        let mut held: HashMap<(usize, usize), Option<Arc<Vec<f32>>>> = HashMap::new();
        for &r in &rows {
            for &q in &cols {
                let key = (q / c, r / c);
                let chunk = match held.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => e.insert(self.chunk(key.0, key.1)?),
                };
                out.push(match chunk {
                    Some(h) => h[(r % c) * c + q % c],
                    None => f32::NAN,
                });
            }
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::cell_of;

    #[test]
    fn samples_land_on_cells_and_levels_nest() {
        // 16385 cells, level 7: one sample per cell.
        assert_eq!(
            (0..=16384).map(|g| cell_of(g, 128 << 7, 16385)).collect::<Vec<_>>(),
            (0..=16384).collect::<Vec<_>>()
        );
        // A coarser level's samples are every other sample of the next level.
        for side in [257, 3073, 4097, 1000] {
            for l in 0..6 {
                let (a, b) = (128usize << l, 128usize << (l + 1));
                for g in 0..=a {
                    assert_eq!(cell_of(g, a, side), cell_of(2 * g, b, side), "side {side} level {l} g {g}");
                }
                assert_eq!(cell_of(a, a, side), side - 1);
            }
        }
    }
}
