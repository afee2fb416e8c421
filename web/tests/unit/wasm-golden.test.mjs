// The page's WebAssembly (web/pkg, as committed) against the golden output of the original
// bozkir rule (crates/material/tests/golden/rule_cases.json.gz, the file the Rust golden test
// reads): classes and runner-up cell for cell, strength within 1e-9. A stale web/pkg that no
// longer matches the Rust rule fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const pkg = new URL('../../pkg/', import.meta.url);
const bz = await import(new URL('bozkir_wasm.js', pkg));
bz.initSync({ module: readFileSync(new URL('bozkir_wasm_bg.wasm', pkg)) });

const golden = JSON.parse(gunzipSync(readFileSync(new URL('../../../crates/material/tests/golden/rule_cases.json.gz', import.meta.url))).toString());

// The fields of the golden cases, as crates/material/tests/rule_golden.rs builds them (three
// value-noise octaves on the canonical hash, which comes from the WebAssembly module).
function octave(m, period, seed) {
  const out = new Float64Array(m * m);
  const v = (x, y) => bz.hashU32(x, y, seed) / 4294967296;
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < m; i++) {
      const ix = Math.floor(i / period), iy = Math.floor(j / period);
      const tx = (i % period) / period, ty = (j % period) / period;
      const sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty);
      const a = v(ix, iy), b = v(ix + 1, iy), c = v(ix, iy + 1), d = v(ix + 1, iy + 1);
      const top = a + (b - a) * sx, bot = c + (d - c) * sx;
      out[j * m + i] = top + (bot - top) * sy;
    }
  }
  return out;
}

function field(m, seed) {
  const a = octave(m, 32, seed), b = octave(m, 16, seed + 1), c = octave(m, 8, seed + 2);
  return a.map((x, i) => x + 0.5 * b[i] + 0.25 * c[i]);
}

test('the page\'s WebAssembly decides every golden case cell for cell', () => {
  assert.equal(golden.cases.length, 18);
  for (const c of golden.cases) {
    const name = `${c.name} seed ${c.seed}`;
    const m = c.n * c.over;
    const z = c.kind === 'fbm' ? field(m, c.seed) : new Float64Array(m * m);
    const probe = [0, Math.floor(z.length / 3), Math.floor(z.length / 2), z.length - 1].map((k) => z[k]);
    assert.deepEqual(probe, c.z_check, `${name}: field differs`);
    const sed = c.sediment ? Float64Array.from({ length: m * m }, (_, i) => bz.hashU32(i, 0, c.seed + 99) / 4294967296) : undefined;
    const shares = c.balance === null ? [] : Array.isArray(c.balance) ? c.balance : [c.balance];
    const d = bz.classifyCells(z, c.n, c.classes, c.spacing, Float64Array.from(shares), c.coherence, c.altitude, c.sharpness, sed);
    assert.deepEqual([...d.classes], c.cls, `${name}: classes differ`);
    assert.deepEqual([...d.runnerUp], c.runner_up, `${name}: runner-up differs`);
    const s = d.strength;
    for (let i = 0; i < s.length; i++) assert.ok(Math.abs(s[i] - c.strength[i]) <= 1e-9, `${name}: strength at ${i}`);
    assert.equal(d.source, c.source === 'sediment' ? 'sediment' : 'drainage', name);
  }
});

test('the survival hash is the pinned function (splatHashes = splatPriority·2³²)', () => {
  const h = bz.splatHashes(1000);
  for (let k = 0; k < 1000; k++) assert.equal(h[k], bz.splatPriority(k) * 4294967296);
});

test('the starter tileset is whole: 32 tiles, every range inside the splat file', () => {
  const s = bz.starterTileset();
  const man = JSON.parse(s.manifest);
  assert.equal(man.tiles.length, 32);
  assert.equal(s.splats.length, 32 * man.total);
  for (const t of man.tiles) for (const [start, count] of t.levels) assert.ok(start + count <= man.total);
  assert.equal(s.atlas.length, 4 * s.atlasWidth * s.atlasHeight);
});
