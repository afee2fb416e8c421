// Worlds from the page's WebAssembly (web/pkg, as committed) against the native build: for
// each case of crates/wasm/tests/golden/world.json (written by the native test
// crates/wasm/tests/world_golden.rs), `generateWorld` must give the same arrays bit for bit:
// the FNV-1a 64 of their little-endian bytes, computed here in JavaScript over what the page
// receives, equals the native checksum. String seeds included: determinism between native and
// WASM for the same string seed (issue 21's test list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { worldFromWasm, checkWorld } from '../../src/world.js';
import { fnv1a64 } from './helpers.mjs';

const pkg = new URL('../../pkg/', import.meta.url);
const bz = await import(new URL('bozkir_wasm.js', pkg));
bz.initSync({ module: readFileSync(new URL('bozkir_wasm_bg.wasm', pkg)) });
const golden = JSON.parse(readFileSync(new URL('../../../crates/wasm/tests/golden/world.json', import.meta.url), 'utf8'));

/** The bytes WorldView::checksum hashes, in its order, from the plain world object. */
function worldChecksum(w) {
  const head = new DataView(new ArrayBuffer(24));
  head.setUint32(0, w.nx, true);
  head.setUint32(4, w.ny, true);
  head.setFloat64(8, w.dx, true);
  head.setFloat64(16, w.dy, true);
  const r = w.roads ?? { positions: new Float32Array(0), colors: new Uint8Array(0), indices: new Uint32Array(0), bridge: new Uint8Array(0), tunnel: new Uint8Array(0) };
  const b = w.branches ?? { positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0), indices: new Uint32Array(0) };
  return fnv1a64([new Uint8Array(head.buffer), w.height, w.water, r.positions, w.trees, w.color ?? new Uint8Array(0), r.colors, r.indices, r.bridge, r.tunnel,
    b.positions, b.normals, b.colors, b.indices]);
}

test('the JavaScript FNV-1a 64 is the pinned function', () => {
  assert.equal(fnv1a64([new Uint8Array(0)]), 'cbf29ce484222325');
  assert.equal(fnv1a64([new TextEncoder().encode('a')]), 'af63dc4c8601ec8c');
  assert.equal(fnv1a64([new TextEncoder().encode('foobar')]), '85944171f73967e8');
});

test('every golden world is the native one, bit for bit', () => {
  assert.ok(Array.isArray(golden.cases));
  for (const c of golden.cases) {
    const name = `${c.generator} seed ${JSON.stringify(c.seed)} ${c.params}`;
    const v = bz.generateWorld(c.generator, c.seed, c.params);
    const own = v.checksum();
    const w = checkWorld(worldFromWasm(v));
    assert.equal([w.nx, w.ny].join('×'), [c.nx, c.ny].join('×'), name);
    assert.deepEqual([...w.height.subarray(0, 4)], c.height_head, `${name}: first heights`);
    assert.equal(worldChecksum(w), c.checksum, `${name}: the page's arrays differ from the native build's`);
    assert.equal(own, c.checksum, `${name}: WorldView.checksum`);
    assert.equal(String(w.seed), c.seed, name);
  }
});

test('unknown worlds and bad parameters are errors naming them', () => {
  assert.throws(() => bz.generateWorld('atlantis', '1', ''), /unknown world `atlantis`; worlds: composite, flat, forest, landscape, roads/);
  assert.throws(() => bz.generateWorld('flat', '1', '{"size": 1}'), /size 1: must be a whole number of cells 2\.\.=1024/);
  assert.throws(() => bz.generateWorld('flat', '1', '[1]'), /must be a JSON object/);
});
