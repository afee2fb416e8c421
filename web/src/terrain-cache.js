// Generated terrain for the page: the Rust generator (WebAssembly) in a module worker, so the
// page stays responsive, with the result cached in the browser's IndexedDB under the generator
// version, profile, seed and size. Falls back to generating on the page when workers or
// IndexedDB are unavailable.

const DB = 'bozkir-terrain';
const STORE = 'fields';

function openDb() {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
}

function dbGet(db, key) {
  return new Promise((resolve) => {
    if (!db) return resolve(null);
    const req = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
    req.onsuccess = () => resolve(req.result ?? null);
    req.onerror = () => resolve(null);
  });
}

function dbPut(db, key, value) {
  return new Promise((resolve) => {
    if (!db) return resolve();
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(value, key);
    tx.oncomplete = () => resolve();
    tx.onerror = () => resolve();
  });
}

function inWorker(gen, seed, size, onProgress) {
  return new Promise((resolve, reject) => {
    let w;
    try {
      w = new Worker(new URL('./terrain-worker.js', import.meta.url), { type: 'module' });
    } catch (e) {
      reject(e);
      return;
    }
    w.onmessage = (e) => {
      if (e.data.progress) {
        onProgress(e.data.progress);
        return;
      }
      w.terminate();
      if (e.data.error) reject(new Error(e.data.error));
      else resolve(e.data);
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(e.message || 'the terrain worker failed'));
    };
    w.postMessage({ gen, seed, size });
  });
}

/**
 * Terrain `gen` at `seed` and `size`: `{width, height, heights (metres), unit (heights stretched
 * to 0..1 in f64, then f32: the plane the rule reads, as the original viewer's), sediment, cached}`.
 * @param {object} bz the initialised WebAssembly module (fallback and version)
 */
export async function loadGenerated(bz, gen, seed, size, status = () => {}) {
  const key = `v${bz.generatorVersion()}u/${gen}/${seed}/${size}`;
  const db = await openDb();
  const hit = await dbGet(db, key);
  const whole = (a, t) => a && a.length === t.width * t.height;
  if (hit && whole(hit.heights, hit) && whole(hit.unit, hit)) return { ...hit, cached: true };
  const text = `generating ${gen}, seed ${seed}, ${size}²…`;
  status(text, 0);
  let t;
  try {
    t = await inWorker(gen, seed, size, ({ done, total }) => status(text, total > 0 ? done / total : null));
  } catch (e) {
    if (/unknown profile|outside/.test(e.message)) throw e;
    const r = bz.generate(gen, seed, size);
    t = { width: r.width, height: r.height, heights: r.heights, unit: r.unitHeights, sediment: r.sediment };
  }
  status('');
  await dbPut(db, key, t);
  return { ...t, cached: false };
}
