// The erosion page's kernel inputs, built in JavaScript (talusTable, dropletSetup), are the
// native ones bit for bit: the fixture holds the native values (crates/gpu/tests/browser.rs
// writes it), so `bozkir lab` replays a page session on the very same inputs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { talusTable } from '../../src/gpu/thermal.js';
import { DROPLET_DEFAULTS, autoBatch, batchFor, dropletSetup } from '../../src/gpu/droplets.js';
import { PAGE_PIPE, pipeUniform } from '../../src/gpu/pipe.js';

const fx = JSON.parse(readFileSync(fileURLToPath(new URL('./fixtures/lab-setup.json', import.meta.url)), 'utf8'));
const bits = (f32) => [...new Uint32Array(f32.buffer, f32.byteOffset, f32.length)];

test('talusTable is the native thermal_table at every size and whole talus angle', () => {
  for (const s of fx.setups) {
    assert.ok(s.tables.length >= 90);
    for (const { talus, bits: want } of s.tables) {
      assert.deepEqual(bits(talusTable(talus, 0, s.cell, s.cell)), want, `talus ${talus}° at ${s.cell} m`);
    }
  }
});

test('dropletSetup is the native DropletsF32::new at every size the page offers', () => {
  for (const s of fx.setups) {
    const got = dropletSetup(s.size, s.size, s.cell, s.cell, DROPLET_DEFAULTS);
    assert.deepEqual(bits(got.f), s.f, `f at ${s.size}`);
    assert.deepEqual(bits(got.brushW), s.brush_w, `brush weights at ${s.size}`);
    assert.deepEqual([...got.brushO], s.brush_o, `brush offsets at ${s.size}`);
    assert.deepEqual([got.rx, got.ry, got.lifetime, got.batch], [s.rx, s.ry, s.lifetime, s.batch], `extents at ${s.size}`);
  }
  // A change of a parameter changes the setup (the comparison is not of constants).
  const s = fx.setups[0];
  const other = dropletSetup(s.size, s.size, s.cell, s.cell, { ...DROPLET_DEFAULTS, radius: 2 });
  assert.notDeepEqual(bits(other.brushW), s.brush_w);
});

test('the batch settings: auto is one droplet to 64 cells, numbers are capped by it, the rest refused', () => {
  // The fixture's batch is the native effective_batch(1024, cells) at each size.
  for (const s of fx.setups) assert.equal(batchFor(1024, s.size * s.size), s.batch, `1024 at ${s.size}`);
  assert.deepEqual([64, 256, 1024, 2048].map((n) => autoBatch(n * n)), [64, 1024, 16384, 65536]);
  assert.deepEqual([batchFor('auto', 4096), batchFor(16, 4096), batchFor('16', 4096), batchFor(1024, 4096)], [64, 16, 16, 64]);
  assert.equal(autoBatch(10), 1);
  for (const bad of [0, -1, 1.5, 'fast', '', 4194305, NaN]) assert.throws(() => batchFor(bad, 4096), /must be auto or a whole number/, String(bad));
});

test('pipeUniform is the native PipeF32::new uniform at every size the page offers', () => {
  for (const s of fx.setups) {
    const { uniform } = pipeUniform(s.size, s.size, s.cell, s.cell, PAGE_PIPE);
    const got = [...new Uint32Array(uniform)];
    // The native uniform reads the maps (uni 1 when uniform); the page always sets them.
    const want = s.pipe_uniform.slice();
    want[25] = 0;
    want[26] = 0;
    assert.deepEqual(got, want, `pipe uniform at ${s.size}`);
  }
});
