// Development harness for renderer.js: a synthetic tileset (2 edge colours, the complete 2×2
// Wang set of 16 codes × 2 classes, jittered splats, 3 LOD levels) over a synthetic terrain.
// For development only. URL: ?views=top,oblique,...&n=6&relief=1&far=1&blend=1&overlay=0
//   &ordering=topological&lod=8&angle=0&detail=1&splats=20&grid=<class layout: quad|all0|all1|stripe>
import { Renderer } from '../src/renderer.js';
import { tileCentre, spreadHashes } from '../src/render-logic.js';
import { SyncSorter, Sorter } from '../src/sorter.js';

const log = document.getElementById('log');
const say = (s) => { log.textContent += s + '\n'; };
window.addEventListener('error', (e) => say('ERROR ' + e.message));
window.addEventListener('unhandledrejection', (e) => say('REJECTION ' + (e.reason && e.reason.stack || e.reason)));

const P = new URLSearchParams(location.search);
const num = (k, d) => (P.has(k) ? Number(P.get(k)) : d);

// DEVELOPMENT ONLY: a JS copy of select.rs splat_priority's u32 (= wasm splatHashes(n)[k]) and of
// scene.rs hash_threshold, so the harness runs without the WebAssembly build. The page takes
// both from the WebAssembly module (splatHashes, sceneCells) and never computes them itself.
function splatHash(k) {
  let h = (Math.imul(k, 747796405) + 2891336453) >>> 0;
  h = Math.imul(((h >>> ((h >>> 28) + 4)) ^ h) >>> 0, 277803737) >>> 0;
  return ((h >>> 22) ^ h) >>> 0;
}
const hashThreshold = (p) => (p >= 1 ? 0xffffffff : p <= 0 ? 0 : Math.floor(p * 4294967296) >>> 0);

export function syntheticTileset(side = 20) {
  const size = 1;
  const classBase = [[0.86, 0.76, 0.5], [0.3, 0.56, 0.26]];
  const edgeCol = [[0.85, 0.25, 0.2], [0.2, 0.3, 0.9]];
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff);
  const tiles = [];
  const pos = [], scl = [], rot = [], col = [];
  let total = 0;
  for (let cls = 0; cls < 2; cls++) {
    for (let code = 0; code < 16; code++) {
      const c = [(code >> 3) & 1, (code >> 2) & 1, (code >> 1) & 1, code & 1]; // n e s w
      const base = [];
      const step = size / side;
      for (let r = 0; r < side; r++) for (let q = 0; q < side; q++) {
        const x = -0.5 * size + (q + 0.5 + 0.7 * (rnd() - 0.5)) * step;
        const y = -0.5 * size + (r + 0.5 + 0.7 * (rnd() - 0.5)) * step;
        // nearest edge decides the band colour (so neighbours match along shared edges)
        const dN = 0.5 - y, dS = y + 0.5, dE = 0.5 - x, dW = x + 0.5;
        const m = Math.min(dN, dS, dE, dW);
        const e = m === dN ? c[0] : m === dE ? c[1] : m === dS ? c[2] : c[3];
        const w = m < 0.12 ? 1 : 0;
        const b = classBase[cls];
        const rgb = b.map((v, k) => (v * (1 - w * 0.8) + edgeCol[e][k] * w * 0.8) * (0.9 + 0.2 * rnd()));
        const ang = rnd() * Math.PI;
        base.push({ x, y, z: 0.01 * rnd(), s: [0.55 * step * (0.8 + 0.4 * rnd()), 0.4 * step, 0.004], q: [Math.cos(ang / 2), 0, 0, Math.sin(ang / 2)], rgb });
      }
      const levels = [];
      const n0 = base.length;
      for (let l = 0; l < 3; l++) {
        const cnt = l === 0 ? n0 : Math.max(Math.floor(n0 / 4 ** l), 64);
        const start = total;
        const stride = n0 / cnt;
        for (let k = 0; k < cnt; k++) {
          const sp = base[Math.floor(k * stride)];
          const f = Math.sqrt(n0 / cnt);
          pos.push(sp.x, sp.y, sp.z);
          scl.push(sp.s[0] * f, sp.s[1] * f, sp.s[2]);
          rot.push(...sp.q);
          col.push(...sp.rgb.map((v) => Math.round(Math.min(1, v) * 255)), 230);
        }
        total += cnt;
        levels.push([start, cnt]);
      }
      tiles.push({ code: c, class: cls, levels });
    }
  }
  let longest = 0;
  for (const t of tiles) for (const [, c] of t.levels) longest = Math.max(longest, c);
  const table = Uint32Array.from({ length: longest }, (_, k) => splatHash(k));
  return {
    manifest: { size, wang: true, classes: 2, lod: 3, total, synthetic: true },
    size, tiles, levels: 3,
    splats: { count: total, positions: new Float32Array(pos), scales: new Float32Array(scl), rotations: new Float32Array(rot), colors: new Uint8Array(col) },
    atlas: null,
    hashes: spreadHashes(tiles, total, table),
  };
}

export function syntheticScene(ts, { n = 6, relief = 1, angle = 0, detail = 1, layout = 'quad', blend = true } = {}) {
  // field: a hill in the north-east and a ramp down to the south-west, 33×33
  const W = 33, H = 33;
  const z = new Float32Array(W * H);
  for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) {
    const u = c / (W - 1), v = r / (H - 1); // v = 0 north
    z[r * W + c] = 0.5 * (u + (1 - v)) * 0.5 + 0.6 * Math.exp(-((u - 0.7) ** 2 + (v - 0.3) ** 2) / 0.02);
  }
  let lo = Infinity, hi = -Infinity;
  for (const v of z) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  for (let k = 0; k < z.length; k++) z[k] = (z[k] - lo) / (hi - lo);
  const mask = new Float32Array(W * H), open = new Float32Array(W * H);
  for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) {
    const gx = (z[r * W + Math.min(c + 1, W - 1)] - z[r * W + Math.max(c - 1, 0)]) * 0.5;
    const gy = (z[Math.min(r + 1, H - 1) * W + c] - z[Math.max(r - 1, 0) * W + c]) * 0.5;
    mask[r * W + c] = Math.min(1, Math.hypot(gx, gy) * 15);
    let s = 0, cnt = 0;
    for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) {
      const rr = r + dr, cc = c + dc;
      if (rr >= 0 && rr < H && cc >= 0 && cc < W) { s += z[rr * W + cc]; cnt++; }
    }
    open[r * W + c] = Math.min(1, Math.max(0, 0.5 + 4 * (z[r * W + c] - s / cnt)));
  }
  // Wang layout: random edge colours, class by layout, blending across the class boundary
  let seed = 1;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff);
  const hE = Array.from({ length: n + 1 }, () => Array.from({ length: n }, () => (rnd() < 0.5 ? 0 : 1))); // horizontal edges, row k above row k
  const vE = Array.from({ length: n }, () => Array.from({ length: n + 1 }, () => (rnd() < 0.5 ? 0 : 1))); // vertical edges
  const clsOf = (i, j) => layout === 'all0' ? 0 : layout === 'all1' ? 1 : layout === 'stripe' ? (i < n / 2 ? 1 : 0) : (i < n / 2 && j < n / 2 ? 1 : 0);
  const tile = new Uint32Array(n * n), alt = new Uint32Array(n * n).fill(0xffffffff), mix = new Float32Array(n * n).fill(1);
  const ownT = new Uint32Array(n * n).fill(0xffffffff), altT = new Uint32Array(n * n);
  const cls = new Uint8Array(n * n), strength = new Float32Array(n * n).fill(1);
  const find = (code, k) => ts.tiles.findIndex((t) => t.class === k && t.code.every((v, q) => v === code[q]));
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const c = j * n + i;
    const code = [hE[j][i], vE[j][i + 1], hE[j + 1][i], vE[j][i]];
    const k = clsOf(i, j);
    cls[c] = k;
    tile[c] = find(code, k);
    // cells next to the other class blend toward it
    const other = [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([di, dj]) => {
      const a = i + di, b = j + dj;
      return a >= 0 && b >= 0 && a < n && b < n && clsOf(a, b) !== k;
    });
    if (other) strength[c] = 0.3;
    if (other && blend) { // the page: scene.rs scene_cells (hash_threshold(m), hash_threshold(1 − m))
      alt[c] = find(code, 1 - k); mix[c] = 0.6; ownT[c] = hashThreshold(0.6); altT[c] = hashThreshold(0.4);
    }
  }
  const tileSize = ts.size;
  return {
    // amplitude / reliefScale: what the wasm Mapping returns (relief·max(1, n/24), n)
    n, tile: tileSize, amplitude: relief * Math.max(1, n / 24), reliefScale: n, angleDeg: angle, detail,
    field: { width: W, height: H, z, mask, open },
    cells: { tile, alt, ownT, altT, mix, cls, strength },
  };
}

const VIEWS = {
  top: (n) => ({ target: [0, 0, 0], az: 0, el: 89.9, dist: n * 1.25, fov: 60 }),
  oblique: (n) => ({ target: [0, 0, 0], az: 30, el: 35, dist: n * 1.3, fov: 60 }),
  low: (n) => ({ target: [0, 0, 0], az: 45, el: 12, dist: n * 0.9, fov: 60 }),
  close: () => ({ target: [0.5, 0.5, 0.3], az: 20, el: 40, dist: 2.2, fov: 60 }),
  north: (n) => ({ target: [0, 0, 0], az: 180, el: 30, dist: n * 1.2, fov: 60 }),
  seam: () => ({ target: [0, 0, 0], az: 0.3, el: 20, dist: 3, fov: 60 }),
  far: (n) => ({ target: [0, 0, 0], az: 30, el: 25, dist: n * 1.1, fov: 60 }),
};

async function main() {
  const n = num('n', 6);
  const ts = syntheticTileset(num('splats', 20));
  const scene = syntheticScene(ts, { n, relief: num('relief', 1), angle: num('angle', 0), detail: num('detail', 1), layout: P.get('grid') || 'quad', blend: num('blend', 1) > 0 });
  if (P.get('field') === '0') scene.field = null;
  const opts = {
    farField: num('far', 0) > 0, overlay: num('overlay', 0), lodBase: num('lod', 8),
    ordering: P.get('ordering') || 'topological', detail: num('detail', 1) > 0, shade: num('shade', 0.4), macro: num('macro', 0.5),
    fog: num('fog', 0), renderScale: num('rs', 1),
  };
  const names = (P.get('views') || 'top,oblique').split(',');
  const rs = [];
  for (const name of names) {
    const div = document.createElement('div');
    div.className = 'v';
    const cv = document.createElement('canvas');
    div.appendChild(cv);
    const label = document.createElement('span');
    label.textContent = name;
    div.appendChild(label);
    document.getElementById('views').appendChild(div);
    const kind = P.get('sorter') || 'worker'; // worker | sync | none (a broken sorter: falls back to SyncSorter)
    const r = new Renderer(cv, { sorter: kind === 'sync' ? new SyncSorter() : kind === 'none' ? { broken: true } : undefined });
    r.setTileset(ts);
    r.setScene(scene);
    rs.push({ r, name, cam: VIEWS[name.replace(/[^a-z]/g, '')](n) });
  }
  say(`gpu ${rs[0].r.gpuName}; ${ts.tiles.length} tiles, ${ts.splats.count} splats; grid ${n}; opts ${JSON.stringify(opts)}`);
  say(`h(0,0)=${rs[0].r.heightAt(0, 0).toFixed(4)} h(centre 0,0)=${rs[0].r.heightAt(...tileCentre(n, 1, scene.angleDeg, 0, 0)).toFixed(4)}`);
  let frame = 0;
  const tick = () => {
    for (const v of rs) v.stats = v.r.render(v.cam, opts);
    if (++frame < 6) setTimeout(tick, 60);
    else {
      for (const v of rs) {
        const px = v.r.readPixels();
        const m = [0, 0, 0];
        for (let k = 0; k < px.data.length; k += 4) for (let q = 0; q < 3; q++) m[q] += px.data[k + q];
        const cnt = px.data.length / 4;
        say(`${v.name}: ${JSON.stringify(v.stats, (k, x) => (typeof x === 'number' ? Math.round(x * 100) / 100 : x))} pixels ${px.width}x${px.height} mean ${m.map((x) => (x / cnt).toFixed(1)).join(',')}`);
      }
      window.__done = true;
    }
  };
  tick();
}
main().catch((e) => say('ERROR ' + e.stack));
