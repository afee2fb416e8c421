// 3-D worlds from the page's WebAssembly (web/pkg, as committed) against the native build: for
// each case of crates/wasm/tests/golden/voxels.json (written by crates/wasm/tests/voxels_golden.rs)
// the page streams around the same viewer until nothing more loads, meshes every due chunk and
// walks the same scripted path; the FNV-1a 64 of everything it received (update arrays, chunk
// meshes, walker eyes) must equal the native checksum, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fnv1a64 } from './helpers.mjs';

const pkg = new URL('../../pkg/', import.meta.url);
const bz = await import(new URL('bozkir_wasm.js', pkg));
bz.initSync({ module: readFileSync(new URL('bozkir_wasm_bg.wasm', pkg)) });
const golden = JSON.parse(readFileSync(new URL('../../../crates/wasm/tests/golden/voxels.json', import.meta.url), 'utf8'));

function walkScript() {
  return [...Array(40).fill([3, 3, false]), ...Array(20).fill([0, 2, true]), ...Array(30).fill([-4, 0, false])];
}

function runCase(c) {
  const w = bz.openVoxelWorld(c.generator, c.seed, c.params);
  const parts = [];
  let chunks = 0, triangles = 0;
  try {
    for (;;) {
      const u = w.update(c.at[0], c.at[1], c.at[2]);
      parts.push(u);
      if (u[0] === 0) break;
      chunks += u[0];
    }
    const pending = w.pending(100000);
    for (let k = 0; k < pending.length; k += 3) {
      const m = w.mesh(pending[k], pending[k + 1], pending[k + 2]);
      parts.push(pending.subarray(k, k + 3), m.positions, m.normals, m.colors, m.indices);
      triangles += m.indices.length / 3;
      m.free();
    }
    const s = w.start;
    parts.push(Float64Array.from(w.placeWalker(s[0], s[1], s[2])));
    for (const [vx, vy, jump] of walkScript()) parts.push(Float64Array.from(w.walk(golden.walk_dt, vx, vy, 0, jump, false)));
  } finally {
    w.free();
  }
  return { chunks, triangles, bytes: parts.reduce((n, p) => n + p.byteLength, 0), checksum: fnv1a64(parts) };
}

test('every golden 3-D world streams, meshes and walks as natively, bit for bit', () => {
  assert.ok(golden.cases.length >= 3);
  for (const c of golden.cases) {
    const got = runCase(c);
    assert.deepEqual(got, { chunks: c.chunks, triangles: c.triangles, bytes: c.bytes, checksum: c.checksum }, `${c.generator} ${c.seed} ${c.params}`);
  }
});

test('a 3-D world refuses bad parameters with the library message', () => {
  assert.throws(() => bz.openVoxelWorld('voxels', '1', '{"radius": 99}'), /radius/);
  assert.throws(() => bz.openVoxelWorld('flat', '1', '{}'), /unknown 3-D world/);
  const w = bz.openVoxelWorld('voxels', '1', '{"chunk_size": 8, "radius": 1, "vradius": 1}');
  assert.throws(() => w.update(NaN, 0, 0), /not finite/);
  w.free();
});
