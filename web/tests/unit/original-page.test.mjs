// The page's own path on a generated terrain — WebAssembly `generate` (the terrain worker), the
// unit heights handed to `SceneField`, the rule through `SceneField.classify` — against the
// original bozkir viewer 5.0 on the same profile and seed: its `web/terrain.js` generator, its
// HeightField, height function, sampleGrid and classify (outputs in original-page.json, made by
// running the original's JavaScript outside this repository).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const bz = await import('../../pkg/bozkir_wasm.js');
bz.initSync({ module: readFileSync(new URL('../../pkg/bozkir_wasm_bg.wasm', import.meta.url)) });
const golden = JSON.parse(readFileSync(new URL('./original-page.json', import.meta.url)));
const sha = (a) => createHash('sha256').update(Buffer.from(a.buffer, a.byteOffset, a.byteLength)).digest('hex');

test('generate: the unit heights and sediment are the original terrain.js planes, bit for bit', () => {
  assert.ok(golden.cases.length >= 5);
  for (const c of golden.cases) {
    const t = bz.generate(c.profile, c.seed, c.size);
    assert.equal(sha(t.unitHeights), c.z_sha256, `${c.profile} ${c.seed} heights`);
    assert.equal(sha(t.sediment), c.sediment_sha256, `${c.profile} ${c.seed} sediment`);
  }
});

test('the page decides the original viewer\'s classes, runner-ups and strengths', () => {
  for (const c of golden.cases) {
    const t = bz.generate(c.profile, c.seed, c.size);
    const field = new bz.SceneField(t.unitHeights, t.width, t.height, t.sediment);
    const m = new bz.Mapping(c.n, 1, 1.2, c.relief_scale ?? 0, c.angle, c.detail);
    const d = field.classify(m, c.share, 0.4, 2, 2);
    const tag = `${c.profile} seed ${c.seed} grid ${c.n}`;
    assert.equal(d.source, c.source, tag);
    assert.equal(Array.from(d.classes).join(''), c.class, `${tag}: classes`);
    assert.equal(Array.from(d.runnerUp).join(''), c.runner_up, `${tag}: runner-ups`);
    const worst = d.strength.reduce((w, v, i) => Math.max(w, Math.abs(v - c.strength[i])), 0);
    assert.ok(worst <= 1e-6, `${tag}: strength differs by ${worst}`);
    m.free();
    field.free();
  }
});
