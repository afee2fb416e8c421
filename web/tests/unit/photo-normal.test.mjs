// photoNormalMap (web/src/mesh.js): the mesh look's normal map and cavity occlusion derived from
// a ground photo. Pure function on {width, height, data}; no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { photoNormalMap } from '../../src/mesh.js';

/** A grey RGB image from f(x, y) in 0..255. */
function grey(W, H, f) {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.fill(Math.round(f(x, y)), 3 * (y * W + x), 3 * (y * W + x) + 3);
  return { width: W, height: H, data };
}
const texel = (m, x, y) => Array.from(m.data.slice(4 * (y * m.width + x), 4 * (y * m.width + x) + 4));
const decode = (t) => t.slice(0, 3).map((c) => c / 255 * 2 - 1);

test('a flat photo gives a flat normal map and no occlusion', () => {
  const m = photoNormalMap(grey(16, 16, () => 120));
  for (let k = 0; k < 16 * 16; k++) assert.deepEqual(texel(m, k % 16, Math.floor(k / 16)), [128, 128, 255, 255]);
  assert.deepEqual(m.mean.map((v) => Math.round(v * 255)), [128, 128, 255, 255]);
});

test('normals lean away from the light side of a slope (OpenGL convention: green toward the top)', () => {
  const W = 64;
  // Brighter toward the east (x) at x = 0 of a sine: the normal leans west (red below 128).
  const east = photoNormalMap(grey(W, W, (x) => 128 + 90 * Math.sin((2 * Math.PI * x) / W)));
  const [nx, ny, nz] = decode(texel(east, 0, 7));
  assert.ok(nx < -0.2 && Math.abs(ny) < 0.02 && nz > 0.5, `east-rising: ${[nx, ny, nz]}`);
  // Brighter toward the image's top (smaller rows) at row 0: the normal leans toward the bottom.
  const north = photoNormalMap(grey(W, W, (x, y) => 128 - 90 * Math.sin((2 * Math.PI * y) / W)));
  const [mx, my] = decode(texel(north, 9, 0));
  assert.ok(my < -0.2 && Math.abs(mx) < 0.02, `top-rising: ${[mx, my]}`);
  // At the crest the normal stands up.
  assert.deepEqual(texel(east, W / 4, 3).slice(0, 3), [128, 128, 255]);
});

test('the map wraps like the photo, and its RMS slope is the one asked for', () => {
  const W = 32;
  // One period across the image: column 0's neighbours are columns 31 and 1, so the map is as
  // periodic as the photo — the same texel every period when the photo is shifted by a period.
  const f = (x, y) => 128 + 60 * Math.sin((2 * Math.PI * x) / W) + 40 * Math.cos((2 * Math.PI * 2 * y) / W);
  const a = photoNormalMap(grey(W, W, f));
  const b = photoNormalMap(grey(W, W, (x, y) => f((x + 5) % W, (y + 3) % W)));
  for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) assert.deepEqual(texel(b, x, y), texel(a, (x + 5) % W, (y + 3) % W));
  for (const rms of [0.2, 0.5]) {
    const m = photoNormalMap(grey(W, W, f), { rmsSlope: rms });
    let s2 = 0;
    for (let k = 0; k < W * W; k++) {
      const [x, y, z] = decode(texel(m, k % W, Math.floor(k / W)));
      s2 += (x * x + y * y) / (z * z);
    }
    assert.ok(Math.abs(Math.sqrt(s2 / (W * W)) - rms) < 0.03 * rms + 0.01, `rms slope ${Math.sqrt(s2 / (W * W))} for ${rms}`);
  }
});

test('cavities darken: the occlusion falls in a dark pit and stays 1 on bright ground', () => {
  const W = 32;
  const m = photoNormalMap(grey(W, W, (x, y) => (Math.hypot(x - 16, y - 16) < 2 ? 20 : 200)));
  assert.ok(texel(m, 16, 16)[3] < 200, `pit ${texel(m, 16, 16)[3]}`);
  assert.equal(texel(m, 2, 2)[3], 255);
  assert.ok(texel(m, 16, 16)[3] >= 127, 'never below 0.5');
});

test('snowTexture: bright, soft, seamless where it repeats, deterministic', async () => {
  const { snowTexture } = await import('../../src/mesh.js');
  const t = snowTexture(64);
  const at = (x, y) => t.data[3 * (((y + 64) % 64) * 64 + ((x + 64) % 64))];
  let s = 0, s2 = 0, jump = 0, wrapJump = 0;
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      const v = at(x, y);
      s += v; s2 += v * v;
      if (x < 63) jump = Math.max(jump, Math.abs(at(x + 1, y) - v));
    }
    wrapJump = Math.max(wrapJump, Math.abs(at(0, y) - at(63, y)));
  }
  const mean = s / 4096, sd = Math.sqrt(s2 / 4096 - mean * mean);
  assert.ok(mean > 220 && mean < 245, `mean ${mean}`);
  assert.ok(sd > 2 && sd < 15, `spread ${sd}`);
  // Across the wrap the texture steps no more than between any two neighbours inside it.
  assert.ok(wrapJump <= jump, `wrap step ${wrapJump} vs inner ${jump}`);
  assert.deepEqual(snowTexture(64).data, t.data);
  assert.equal(t.data[0], t.data[1]);
});

test('materialWeights: the bake\'s material codes as one-hot weights in two images, water and unknown codes none', async () => {
  const { materialWeights } = await import('../../src/mesh.js');
  const w = materialWeights({ width: 4, height: 2, data: new Uint8Array([50, 100, 150, 200, 250, 25, 0, 7]) });
  assert.deepEqual(Array.from(w.data), [
    255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]);
  assert.deepEqual(Array.from(w.data2), [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]);
});

test('the generated sets differ in grain: snow soft and bright, sand fine and even, soil clumpy and dark', async () => {
  const { snowTexture, sandTexture, soilTexture } = await import('../../src/mesh.js');
  const N = 128;
  const stats = (t) => {
    const at = (x, y) => t.data[3 * (((y + N) % N) * N + ((x + N) % N))];
    let s = 0, s2 = 0, step = 0, wrap = 0, inner = 0;
    for (let y = 0; y < N; y++) {
      for (let x = 0; x < N; x++) {
        const v = at(x, y);
        s += v; s2 += v * v;
        step += Math.abs(at(x + 1, y) - v);
        if (x < N - 1) inner = Math.max(inner, Math.abs(at(x + 1, y) - v));
      }
      wrap = Math.max(wrap, Math.abs(at(0, y) - at(N - 1, y)));
    }
    const mean = s / (N * N), sd = Math.sqrt(s2 / (N * N) - mean * mean);
    // roughness: the neighbour step relative to the spread (fine grain steps a lot per pixel).
    return { mean, sd, rough: step / (N * N) / sd, wrap, inner };
  };
  const snow = stats(snowTexture(N)), sand = stats(sandTexture(N)), soil = stats(soilTexture(N));
  for (const [name, t] of Object.entries({ snow, sand, soil })) assert.ok(t.wrap <= t.inner, `${name}: seamless where it repeats ${JSON.stringify(t)}`);
  assert.ok(snow.mean > sand.mean && sand.mean > soil.mean + 40, JSON.stringify({ snow, sand, soil }));
  assert.ok(soil.sd > 1.5 * sand.sd && soil.sd > 1.5 * snow.sd, JSON.stringify({ snow, sand, soil }));
  assert.ok(sand.rough > 1.5 * snow.rough && sand.rough > 1.5 * soil.rough, JSON.stringify({ snow, sand, soil }));
  assert.deepEqual(sandTexture(N).data, sandTexture(N).data);
  assert.notDeepEqual(sandTexture(N, 1).data, sandTexture(N, 2).data);
});
