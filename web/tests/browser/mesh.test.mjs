// Mesh mode in headless Chromium (SwiftShader), served by the real `bozkir serve`: every
// built-in recipe (`bozkir recipes`), run small (`--size 128`; ds2 upsamples to 255²) and baked
// (`bozkir bake`), drawn by web/src/mesh.js through the development page web/dev/mesh.html,
// must give a non-blank picture with no console errors. The dev page is not embedded in the
// binary (build.rs leaves dev/ out), so the browser is handed it from disk at /dev/mesh.html;
// everything else (the modules under /src/, catalogue, heights, textures) comes from the
// server. Screenshots: web/test-output/mesh-<recipe>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { bin, skip, serve, launch, outDir, root } from './setup.mjs';

const SIZE = 128;

/** Built-in recipe names, from `bozkir recipes` (name, size², stages, description). */
function recipeNames() {
  const out = execFileSync(bin, ['--quiet', 'recipes'], { encoding: 'utf8' });
  return out.split('\n').map((l) => /^(\S+)\s+\d+²/.exec(l)?.[1]).filter(Boolean);
}

const run = (args) => new Promise((resolve, reject) => {
  execFile(bin, ['--quiet', ...args], { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
    if (err) reject(new Error(`bozkir ${args.join(' ')}: ${stderr || err.message}`));
    else resolve(stdout);
  });
});

/** Run `jobs` (async functions) at most `n` at a time. */
async function pool(jobs, n) {
  const queue = jobs.slice();
  await Promise.all(Array.from({ length: n }, async () => {
    while (queue.length) await queue.shift()();
  }));
}

const recipes = skip ? [] : recipeNames();
let ctx = null;

before(async () => {
  if (skip) return;
  mkdirSync(outDir, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-mesh-'));
  const t0 = Date.now();
  // One bozkir process per recipe, a few at a time; each is run then baked.
  await pool(recipes.map((r) => async () => {
    await run(['terrain', '--recipe', r, '--size', String(SIZE), '--out', join(dir, r)]);
    await run(['bake', join(dir, r), '--scale', '2']);
  }), Math.max(2, Math.min(4, availableParallelism())));
  // A 2 km terrain for the survey view's repetition (rolling, 256² at 8 m → 2040 m), baked.
  await run(['terrain', '--profile', 'rolling', '--seed', '3', '--size', '256', '--cell-size', '8', '--out', join(dir, 'survey2k')]);
  await run(['bake', join(dir, 'survey2k'), '--scale', '2']);
  // A terrain without a bake: the palette fallback.
  await run(['terrain', '--profile', 'rolling', '--seed', '1', '--size', '64', '--cell-size', '40', '--out', join(dir, 'unbaked')]);
  const prepSeconds = (Date.now() - t0) / 1000;
  const s = await serve(dir);
  const browser = await launch();
  const page = readFileSync(join(root, 'web/dev/mesh.html'));
  ctx = { dir, base: s.url, server: s.child, browser, page, prepSeconds };
  console.log(`# mesh: ${recipes.length} recipes generated and baked in ${prepSeconds.toFixed(1)} s`);
});

after(async () => {
  if (!ctx) return;
  await ctx.browser.close();
  ctx.server.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Open the dev page on one catalogue terrain; returns {page, errors, ok, error}. */
async function open(terrain, { width = 640, height = 360 } = {}) {
  const page = await ctx.browser.newPage({ viewport: { width, height } });
  await page.route('**/dev/mesh.html*', (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: ctx.page }));
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${ctx.base}dev/mesh.html?terrain=${encodeURIComponent(terrain)}&hud=0`);
  const ok = await page.evaluate(() => window.meshDev.ready);
  const error = await page.evaluate(() => window.meshDev.error);
  return { page, errors, ok, error };
}

/** Draw a frame and measure the canvas: luminance spread, colours, sky (top rows) vs centre. */
function meshStats(page) {
  return page.evaluate(() => {
    const d = window.meshDev;
    const stats = d.render();
    const { width: W, height: H, data } = d.view.readPixels();
    let n = 0, sum = 0, sum2 = 0;
    const hist = new Set();
    for (let k = 0; k < data.length; k += 16) {
      const l = 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
      n += 1;
      sum += l;
      sum2 += l * l;
      hist.add((data[k] >> 3) << 10 | (data[k + 1] >> 3) << 5 | (data[k + 2] >> 3));
    }
    const mean = (x0, y0, x1, y1) => {
      const m = [0, 0, 0];
      let c = 0;
      for (let y = Math.floor(y0 * H); y < Math.floor(y1 * H); y++) {
        for (let x = Math.floor(x0 * W); x < Math.floor(x1 * W); x++) {
          for (let q = 0; q < 3; q++) m[q] += data[4 * (y * W + x) + q];
          c += 1;
        }
      }
      return m.map((v) => v / c);
    };
    const sky = mean(0, 0, 1, 0.05), centre = mean(0.4, 0.55, 0.6, 0.75);
    const mu = sum / n;
    return {
      width: W, height: H, mean: mu, std: Math.sqrt(Math.max(0, sum2 / n - mu * mu)), colours: hist.size, sky, centre,
      skyVsTerrain: Math.hypot(sky[0] - centre[0], sky[1] - centre[1], sky[2] - centre[2]),
      triangles: stats.triangles, drawCalls: stats.drawCalls, albedo: d.entry.albedo, normal: d.entry.normal, recipe: d.entry.recipe,
    };
  });
}

test('the catalogue flags the baked textures and the recipe of every recipe terrain', { skip }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  for (const r of recipes) {
    const t = cat.terrains.find((x) => x.name === r);
    assert.ok(t, `${r} is in the catalogue`);
    assert.equal(t.albedo, true, `${r} albedo`);
    assert.equal(t.normal, true, `${r} normal`);
    assert.equal(t.recipe, r);
  }
  const u = cat.terrains.find((x) => x.name === 'unbaked');
  assert.equal(u.albedo, false);
  assert.equal(u.normal, false);
});

for (const r of recipes) {
  test(`mesh mode renders the ${r} recipe non-blank`, { skip }, async () => {
    const { page, errors, ok, error } = await open(r);
    assert.equal(ok, true, `the page loaded: ${error}`);
    const s = await meshStats(page);
    await page.screenshot({ path: join(outDir, `mesh-${r}.png`) });
    assert.deepEqual(errors, []);
    assert.equal(s.recipe, r);
    assert.ok(s.albedo && s.normal, 'drawn with the baked textures');
    assert.ok(s.triangles > 10000 && s.drawCalls >= 4, JSON.stringify(s));
    assert.ok(s.std > 8, `luminance spread ${s.std.toFixed(1)}`);
    assert.ok(s.colours > 30, `${s.colours} distinct colours`);
    assert.ok(s.skyVsTerrain > 15, `terrain ${s.centre.map(Math.round)} vs sky ${s.sky.map(Math.round)}`);
    await page.close();
  });
}

test('baked lakes and rivers are water in the mesh look (rivers as lines)', { skip }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  const wet = cat.terrains.filter((t) => t.water).map((t) => t.name);
  assert.ok(wet.includes('ds2-rivers'), `terrains with surface water: ${wet}`);
  // The bake drew its rivers as lines (rivers.png): the mesh look draws them from it.
  assert.equal(cat.terrains.find((t) => t.name === 'ds2-rivers').rivers, true);
  const { page, errors, ok, error } = await open('ds2-rivers');
  assert.equal(ok, true, `the page loaded: ${error}`);
  const frame = (on) => page.evaluate((on) => {
    const d = window.meshDev;
    if (on) Object.assign(d.view.t, d.saved);
    d.saved = d.saved || { hasWater: d.view.t.hasWater, hasRivers: d.view.t.hasRivers };
    if (!on) Object.assign(d.view.t, { hasWater: false, hasRivers: false });
    d.opts.fog = 0;
    d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 60 };
    const st = d.render();
    const { data } = d.view.readPixels();
    return { water: st.water, px: Array.from(data) };
  }, on);
  const dry = await frame(false);
  const wetFrame = await frame(true);
  await page.screenshot({ path: join(outDir, 'mesh-rivers.png') });
  assert.deepEqual(errors, []);
  assert.equal(wetFrame.water, true);
  // The pixels the water changes (lifted surface, water shading) turn bluer: blue minus red.
  let changed = 0, bluer = 0, n = 0;
  for (let k = 0; k < dry.px.length; k += 4) {
    n += 1;
    const d = Math.abs(wetFrame.px[k] - dry.px[k]) + Math.abs(wetFrame.px[k + 1] - dry.px[k + 1]) + Math.abs(wetFrame.px[k + 2] - dry.px[k + 2]);
    if (d < 12) continue;
    changed += 1;
    bluer += (wetFrame.px[k + 2] - wetFrame.px[k]) - (dry.px[k + 2] - dry.px[k]);
  }
  assert.ok(changed / n > 0.002, `${changed} of ${n} pixels changed`);
  assert.ok(bluer / changed > 3, `blue − red grew by ${(bluer / changed).toFixed(1)} on the changed pixels`);
  await page.close();
});

test('without a bake, mesh mode draws the palette and leaves the shared context as it was', { skip }, async () => {
  const { page, errors, ok, error } = await open('unbaked');
  assert.equal(ok, true, `the page loaded: ${error}`);
  const s = await meshStats(page);
  await page.screenshot({ path: join(outDir, 'mesh-unbaked.png') });
  assert.equal(s.albedo, false);
  assert.ok(s.std > 5 && s.skyVsTerrain > 15, JSON.stringify(s));
  // State set by "another renderer" before a frame is there after it.
  const same = await page.evaluate(() => {
    const { gl, view, cam, opts } = window.meshDev;
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.disable(gl.DEPTH_TEST);
    gl.depthMask(false);
    gl.viewport(1, 2, 30, 40);
    const prog = gl.createProgram();
    gl.activeTexture(gl.TEXTURE2);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    view.render(cam, opts);
    const vp = gl.getParameter(gl.VIEWPORT);
    return gl.isEnabled(gl.BLEND) && !gl.isEnabled(gl.DEPTH_TEST) && gl.getParameter(gl.DEPTH_WRITEMASK) === false
      && vp[0] === 1 && vp[3] === 40 && gl.getParameter(gl.ACTIVE_TEXTURE) === gl.TEXTURE2
      && gl.getParameter(gl.TEXTURE_BINDING_2D) === tex && gl.getParameter(gl.CURRENT_PROGRAM) === null && !!prog;
  });
  assert.equal(same, true, 'GL state restored');
  assert.deepEqual(errors, []);
  await page.close();
});

/** The canonical hash (bozkir_core::hash::hash_u32) in JS, for the shader's check. */
function hashU(x, y, s) {
  let h = (Math.imul(x, 0x27D4EB2D) ^ Math.imul(y, 0x165667B1) ^ Math.imul(s, 0x9E3779B1)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85EBCA6B) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xC2B2AE35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

test('the ground photos: the shader hash is the CPU twin\'s, every anti-tiling mode draws', { skip }, async () => {
  const { page, errors, ok, error } = await open(recipes.includes('ds2') ? 'ds2' : recipes[0]);
  assert.equal(ok, true, `the page loaded: ${error}`);
  // 1. hashU and vertexOffset of the shader (mesh-shaders.js DETAIL) on a few vertices, read
  //    back from an RGBA32UI target.
  const cases = [[3, -2, 7], [0, 0, 0], [-5, 11, 0x5BD1E995], [123456, -98765, 42]];
  const got = await page.evaluate(async (cs) => {
    const { DETAIL } = await import(new URL('../src/mesh-shaders.js', location.href).href);
    const gl = window.meshDev.gl;
    const vs = '#version 300 es\nvoid main(){vec2 p=vec2(float((gl_VertexID<<1)&2),float(gl_VertexID&2))*2.0-1.0;gl_Position=vec4(p,0.0,1.0);}';
    const fs = `#version 300 es
precision highp float; precision highp int;
${DETAIL}
uniform ivec3 uCases[4];
out uvec4 o;
void main() {
  ivec3 c = uCases[int(gl_FragCoord.x)];
  vec2 off = vertexOffset(c.xy, uint(c.z));
  o = uvec4(hashU(uint(c.x), uint(c.y), uint(c.z)), floatBitsToUint(off.x), floatBitsToUint(off.y), 0u);
}`;
    const sh = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, sh(gl.VERTEX_SHADER, vs));
    gl.attachShader(p, sh(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, 4, 1);
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    gl.viewport(0, 0, 4, 1);
    gl.useProgram(p);
    gl.uniform3iv(gl.getUniformLocation(p, 'uCases'), new Int32Array(cs.flat().map((v) => v | 0)));
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.BLEND);
    gl.bindVertexArray(null);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    const out = new Uint32Array(16);
    gl.readPixels(0, 0, 4, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, out);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    return Array.from(out);
  }, cases);
  const f32 = (u) => new Float32Array(new Uint32Array([u]).buffer)[0];
  for (let k = 0; k < cases.length; k++) {
    const [x, y, s] = cases[k];
    const want = hashU(x >>> 0, y >>> 0, s >>> 0);
    assert.equal(got[4 * k], want, `hashU(${cases[k]})`);
    assert.ok(Math.abs(f32(got[4 * k + 1]) - want / 2 ** 32) < 1e-7, `offset u of ${cases[k]}`);
    assert.ok(Math.abs(f32(got[4 * k + 2]) - hashU(x >>> 0, y >>> 0, (s ^ 0x5BD1E995) >>> 0) / 2 ** 32) < 1e-7);
  }
  // Pinned with the Rust twin (bozkir_render::antitile tests: PIN_HASH).
  assert.equal(got[0], 628504207);

  // 2. Every mode draws, close up where the photos resolve; they change the picture, and each
  //    mode differently.
  const shots = {};
  for (const mode of ['off', 'plain', 'hex-linear', 'hex-vp', 'hex-mikkelsen', 'two-sample']) {
    shots[mode] = await page.evaluate((m) => {
      const d = window.meshDev;
      d.opts.detail = m;
      d.opts.fog = 0;
      d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 35 };
      d.cam.dist *= 0.12;
      const st = d.render();
      const { data } = d.view.readPixels();
      let h = 0, sum = 0, sum2 = 0, n = 0;
      for (let k = 0; k < data.length; k += 4) {
        h = (Math.imul(h, 31) + data[k] + (data[k + 1] << 8)) | 0;
        const l = 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
        sum += l; sum2 += l * l; n += 1;
      }
      const mean = sum / n;
      return { fetches: st.detailFetches, h, mean, std: Math.sqrt(sum2 / n - mean * mean) };
    }, mode);
    await page.screenshot({ path: join(outDir, `mesh-detail-${mode}.png`) });
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(['off', 'plain', 'hex-linear', 'hex-vp', 'hex-mikkelsen', 'two-sample'].map((m) => shots[m].fetches), [0, 1, 3, 3, 3, 2]);
  const hashes = new Set(Object.values(shots).map((s) => s.h));
  assert.equal(hashes.size, 6, 'every mode gives another picture');
  for (const m of ['plain', 'hex-vp', 'two-sample']) {
    // The photos keep the albedo's mean within a few levels and add grain.
    assert.ok(Math.abs(shots[m].mean - shots.off.mean) < 12, `${m}: mean ${shots[m].mean} vs ${shots.off.mean}`);
    assert.ok(shots[m].std > shots.off.std, `${m}: spread ${shots[m].std} vs ${shots.off.std}`);
  }
  await page.close();
});

test('each baked material takes its own detail set: snow soft, the rest photographic', { skip }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  const name = recipes.includes('ds2') ? 'ds2' : recipes[0];
  assert.equal(cat.terrains.find((t) => t.name === name).materials, true, 'the bake wrote materials.png');
  const { page, errors, ok, error } = await open(name, { width: 800, height: 450 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  // Straight down on a third of the terrain, close enough for the photos' grain; per setting the
  // grain (mean absolute difference between horizontal neighbours) over the snow (bright) pixels
  // and over the rest.
  const look = (sets) => page.evaluate(async (sets) => {
    const d = window.meshDev;
    Object.assign(d.opts, { detail: 'hex-vp', detailSets: sets, fog: 0 });
    const b = d.view.bounds(d.opts.exaggeration);
    // Over the centre of the largest snowfield: the materials.png texel with the most snow
    // within 12 texels, carried to the terrain's metres.
    const { fetchImage, materialWeights } = await import(new URL('../src/mesh.js', location.href).href);
    const m = materialWeights(await fetchImage(`../${d.entry.path}materials.png`));
    let best = [0, 0, -1];
    for (let y = 12; y < m.height - 12; y += 4) {
      for (let x = 12; x < m.width - 12; x += 4) {
        let n = 0;
        for (let v = -12; v <= 12; v += 3) for (let u = -12; u <= 12; u += 3) n += m.data[4 * ((y + v) * m.width + x + u) + 3] > 0 ? 1 : 0;
        if (n > best[2]) best = [x, y, n];
      }
    }
    const [gw, gh] = [d.entry.width, d.entry.height];
    const gx = ((best[0] + 0.5) * (gw - 1)) / m.width, gy = ((best[1] + 0.5) * (gh - 1)) / m.height;
    const xy = [(gx / (gw - 1) - 0.5) * 2 * b.halfX, (0.5 - gy / (gh - 1)) * 2 * b.halfY];
    d.cam = { target: [xy[0], xy[1], b.hi], az: 0, el: 89, dist: 0.08 * b.extent, fov: 50 };
    const st = d.render();
    const { width: W, height: H, data } = d.view.readPixels();
    const lum = (k) => 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
    const acc = { snow: [0, 0], rest: [0, 0] };
    for (let y = 0; y < H; y++) {
      for (let x = 0; x + 1 < W; x++) {
        const k = 4 * (y * W + x);
        const a = acc[lum(k) > 185 ? 'snow' : 'rest'];
        a[0] += Math.abs(lum(k + 4) - lum(k));
        a[1] += 1;
      }
    }
    return { sets: st.detailSets, snow: acc.snow[0] / Math.max(acc.snow[1], 1), snowShare: acc.snow[1] / (W * H), rest: acc.rest[0] / Math.max(acc.rest[1], 1) };
  }, sets);
  const one = await look(false);
  const own = await look(true);
  await page.screenshot({ path: join(outDir, 'mesh-material-sets.png') });
  assert.deepEqual(errors, []);
  assert.deepEqual([one.sets, own.sets], [2, 6]);
  console.log(`# material sets: snow grain ${one.snow.toFixed(2)} → ${own.snow.toFixed(2)} (${(100 * own.snowShare).toFixed(0)} % of the picture), elsewhere ${one.rest.toFixed(2)} → ${own.rest.toFixed(2)}`);
  // ds2's one snowfield is a strip at its southern edge (~2 % of this view); its grain drops by
  // about a tenth (3.15 → 2.82 here) once it takes the soft snow set instead of the grass photo.
  assert.ok(own.snowShare > 0.01, `snow in view: ${own.snowShare}`);
  assert.ok(own.snow < 0.95 * one.snow, `snow grain ${one.snow} → ${own.snow}`);
  assert.ok(own.rest > 0.5 * one.rest, `the rest keeps photographic grain: ${one.rest} → ${own.rest}`);
  await page.close();
});

test('sand and soil take their generated sets where the bake lays them', { skip }, async () => {
  const name = recipes.includes('ds2') ? 'ds2' : recipes[0];
  const { page, errors, ok, error } = await open(name, { width: 640, height: 360 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  const r = await page.evaluate(async () => {
    const d = window.meshDev;
    const { fetchImage, materialWeights } = await import(new URL('../src/mesh.js', location.href).href);
    const m = materialWeights(await fetchImage(`../${d.entry.path}materials.png`));
    let sand = 0, soil = 0;
    for (let k = 0; k < m.width * m.height; k++) {
      sand += m.data2[4 * k] > 0 ? 1 : 0;
      soil += m.data2[4 * k + 1] > 0 ? 1 : 0;
    }
    Object.assign(d.opts, { detail: 'hex-vp', detailSets: true, fog: 0 });
    d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 70 };
    d.render();
    const a = d.view.readPixels().data.slice();
    // The same frame with the sand and soil sets swapped for the ground photo's: only their
    // texels can change.
    const keep = [d.view.tex.detail3, d.view.tex.detail4];
    d.view.tex.detail3 = d.view.tex.detail0;
    d.view.tex.detail4 = d.view.tex.detail0;
    d.render();
    const b = d.view.readPixels().data;
    [d.view.tex.detail3, d.view.tex.detail4] = keep;
    let changed = 0;
    for (let k = 0; k < a.length; k += 4) if (Math.abs(a[k] - b[k]) + Math.abs(a[k + 1] - b[k + 1]) + Math.abs(a[k + 2] - b[k + 2]) > 6) changed += 1;
    return { sand: sand / (m.width * m.height), soil: soil / (m.width * m.height), changed: changed / (a.length / 4) };
  });
  assert.deepEqual(errors, []);
  console.log(`# sand ${(100 * r.sand).toFixed(1)} %, soil ${(100 * r.soil).toFixed(1)} % of the texels; their sets change ${(100 * r.changed).toFixed(1)} % of the pixels`);
  assert.ok(r.sand > 0.005 && r.soil > 0.005, JSON.stringify(r));
  assert.ok(r.changed > 0.005, JSON.stringify(r));
  await page.close();
});

test('the lateral fold moves the mesh\'s vertices sideways where the recipe has one', { skip: skip || !recipes.includes('ds2') }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  assert.equal(cat.terrains.find((t) => t.name === 'ds2').fold, true, 'ds2 has its fold stage');
  assert.equal(cat.terrains.find((t) => t.name === 'unbaked').fold, false);
  const { page, errors, ok, error } = await open('ds2', { width: 640, height: 360 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  const r = await page.evaluate(() => {
    const d = window.meshDev;
    Object.assign(d.opts, { fog: 0 });
    // Close: the fold moves steep ground by metres in a 2.5 km terrain.
    const c = d.view.frameCamera(d.opts.exaggeration, 50);
    d.cam = { ...c, el: 35, dist: 0.2 * c.dist };
    const frame = (fold) => {
      d.opts.fold = fold;
      d.render();
      return d.view.readPixels().data.slice();
    };
    const on = frame(true), off = frame(false), again = frame(true);
    let changed = 0, same = 0;
    for (let k = 0; k < on.length; k += 4) {
      if (Math.abs(on[k] - off[k]) + Math.abs(on[k + 1] - off[k + 1]) + Math.abs(on[k + 2] - off[k + 2]) > 6) changed += 1;
      if (on[k] === again[k] && on[k + 1] === again[k + 1] && on[k + 2] === again[k + 2]) same += 1;
    }
    return { changed: changed / (on.length / 4), same: same / (on.length / 4), hasFold: d.view.t.hasFold };
  });
  assert.deepEqual(errors, []);
  assert.equal(r.hasFold, true);
  // The fold reaches steep ground only (gated between 45° and 69°) and moves it by up to about
  // 3 m (a quarter of a cell here): a small share of the picture moves (0.11 % when written).
  assert.ok(r.changed > 0.0005, JSON.stringify(r));
  assert.equal(r.same, 1, 'the same frame again gives the same pixels');
  await page.close();
});

test('fog and haze keep the terrain\'s contrast at the default view (at least 75 %)', { skip }, async () => {
  // The default framing (frameCamera) puts the terrain's middle about one extent L away; the fog
  // starts at 0.3 L with density 0.12 / L (fog 1), so it takes 1 − e^(−0.084) ≈ 8 % there and
  // ≈ 15 % at the far edge: the luminance spread over the terrain keeps at least three quarters
  // (the earlier 0.17 L and 0.2 / L kept 73 %).
  const { page, errors, ok, error } = await open(recipes.includes('ds2') ? 'ds2' : recipes[0], { width: 800, height: 450 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  const spread = (fog) => page.evaluate((fog) => {
    const d = window.meshDev;
    Object.assign(d.opts, { fog });
    d.cam = d.view.frameCamera(d.opts.exaggeration, 50);
    d.render();
    const { width: W, height: H, data } = d.view.readPixels();
    // The terrain's middle: the centre third of the picture, lower half.
    let n = 0, s = 0, s2 = 0;
    for (let y = Math.floor(0.5 * H); y < Math.floor(0.85 * H); y++) {
      for (let x = Math.floor(W / 3); x < Math.floor((2 * W) / 3); x++) {
        const k = 4 * (y * W + x);
        const l = 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
        n += 1; s += l; s2 += l * l;
      }
    }
    const m = s / n;
    return Math.sqrt(Math.max(0, s2 / n - m * m));
  }, fog);
  const clear = await spread(0), hazy = await spread(1);
  await page.screenshot({ path: join(outDir, 'mesh-fog-default.png') });
  assert.deepEqual(errors, []);
  console.log(`# fog: luminance spread ${clear.toFixed(1)} without, ${hazy.toFixed(1)} with the default fog (${(100 * hazy / clear).toFixed(0)} %)`);
  assert.ok(hazy >= 0.75 * clear, `spread ${hazy} of ${clear}`);
  assert.ok(hazy < clear, 'the fog does something');
  await page.close();
});

test('photo relief: the photos\' normal maps shade their grain, at the colour\'s offsets', { skip }, async () => {
  const { page, errors, ok, error } = await open(recipes.includes('ds2') ? 'ds2' : recipes[0], { width: 800, height: 450 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  const shots = {};
  for (const [name, relief, mode] of [['flat', 0, 'hex-vp'], ['relief', 1, 'hex-vp'], ['strong', 2, 'hex-vp'], ['plain', 1, 'plain'], ['two', 1, 'two-sample']]) {
    shots[name] = await page.evaluate(({ relief, mode }) => {
      const d = window.meshDev;
      Object.assign(d.opts, { detail: mode, detailRelief: relief, fog: 0 });
      d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 30 };
      d.cam.dist *= 0.03;
      const st = d.render();
      const { data } = d.view.readPixels();
      // Mean luminance and the mean absolute difference between horizontal neighbours (grain).
      let sum = 0, grain = 0, n = 0;
      const W = d.gl.drawingBufferWidth;
      const lum = (k) => 0.2126 * data[k] + 0.7152 * data[k + 1] + 0.0722 * data[k + 2];
      for (let k = 0; k + 4 < data.length; k += 4) {
        if ((k / 4) % W === W - 1) continue;
        sum += lum(k);
        grain += Math.abs(lum(k + 4) - lum(k));
        n += 1;
      }
      return { mean: sum / n, grain: grain / n, fetches: st.detailFetches, normalFetches: st.detailNormalFetches };
    }, { relief, mode });
    await page.screenshot({ path: join(outDir, `mesh-relief-${name}.png`) });
  }
  assert.deepEqual(errors, []);
  assert.deepEqual([shots.flat.normalFetches, shots.relief.normalFetches, shots.plain.normalFetches, shots.two.normalFetches], [0, 3, 1, 2]);
  // The relief adds shading grain, more when stronger, and keeps the mean within a few levels
  // (the bumps tilt as much toward the sun as away; the cavities darken only the sky light).
  assert.ok(shots.relief.grain > 1.1 * shots.flat.grain, `grain ${shots.relief.grain} vs ${shots.flat.grain} flat`);
  assert.ok(shots.strong.grain > shots.relief.grain, `grain ${shots.strong.grain} vs ${shots.relief.grain}`);
  assert.ok(Math.abs(shots.relief.mean - shots.flat.mean) < 8, `mean ${shots.relief.mean} vs ${shots.flat.mean}`);
  await page.close();
});

test('the island\'s sea is a level water surface in the mesh look', { skip: skip || !recipes.includes('island') }, async () => {
  const cat = await (await fetch(`${ctx.base}catalogue.json`)).json();
  assert.equal(cat.terrains.find((t) => t.name === 'island').sea_level_m, 0);
  assert.equal(cat.terrains.find((t) => t.name === 'ds2').sea_level_m, undefined);
  const { page, errors, ok, error } = await open('island');
  assert.equal(ok, true, `the page loaded: ${error}`);
  const s = await page.evaluate(() => {
    const d = window.meshDev;
    d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 60 };
    const st = d.render();
    const { data } = d.view.readPixels();
    let blue = 0, n = 0;
    for (let k = 0; k < data.length; k += 4) {
      n += 1;
      if (data[k + 2] > data[k] + 30) blue += 1;
    }
    return { water: st.water, blue: blue / n };
  });
  await page.screenshot({ path: join(outDir, 'mesh-island-sea.png') });
  assert.deepEqual(errors, []);
  assert.equal(s.water, true);
  assert.ok(s.blue > 0.15, `water-coloured share ${s.blue}`);
  await page.close();
});

test('the A/B view: left of the split one mode, right of it another, same geometry and light', { skip }, async () => {
  const { page, errors, ok, error } = await open(recipes.includes('ds2') ? 'ds2' : recipes[0]);
  assert.equal(ok, true, `the page loaded: ${error}`);
  const halves = await page.evaluate(() => {
    const d = window.meshDev;
    d.opts.fog = 0;
    d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), el: 35 };
    d.cam.dist *= 0.12;
    const shot = (detail, compare) => {
      Object.assign(d.opts, { detail, detailCompare: compare });
      const st = d.render();
      const { width: W, height: H, data } = d.view.readPixels();
      const split = Math.floor(W / 2);
      // Hashes of each half, leaving out two columns either side of the split line (and the
      // dither, which is per pixel and the same in every shot).
      const hash = (x0, x1) => {
        let h = 0;
        for (let y = 0; y < H; y++) for (let x = x0; x < x1; x++) h = (Math.imul(h, 31) + data[4 * (y * W + x)] + (data[4 * (y * W + x) + 1] << 8)) | 0;
        return h;
      };
      return { left: hash(0, split - 2), right: hash(split + 3, W), fetches: [st.detailFetches, st.detailFetchesB] };
    };
    return { plain: shot('plain', ''), vp: shot('hex-vp', ''), ab: shot('plain', 'hex-vp') };
  });
  assert.deepEqual(errors, []);
  assert.equal(halves.ab.left, halves.plain.left, 'left half: the first mode');
  assert.equal(halves.ab.right, halves.vp.right, 'right half: the compared mode');
  assert.notEqual(halves.plain.right, halves.vp.right);
  assert.deepEqual(halves.ab.fetches, [1, 3]);
  await page.screenshot({ path: join(outDir, 'mesh-detail-ab.png') });
  await page.close();
});

/**
 * The project's repetition metric (bozkir_splat::tiling::metrics::repetition_lags, lags 1..3):
 * mean normalised circular autocorrelation of `img` at k·period minus at k·period + period/2,
 * x and y lags averaged.
 */
function repetition(img, w, h, period, lags = 3) {
  let mu = 0;
  for (const v of img) mu += v;
  mu /= img.length;
  let variance = 0;
  for (const v of img) variance += (v - mu) ** 2;
  const ac = (dx, dy) => {
    let c = 0;
    for (let y = 0; y < h; y++) {
      const y2 = (y + dy) % h;
      for (let x = 0; x < w; x++) c += (img[y * w + x] - mu) * (img[y2 * w + ((x + dx) % w)] - mu);
    }
    return c / variance;
  };
  const at = (s) => 0.5 * (ac(s, 0) + ac(0, s));
  let whole = 0, half = 0;
  for (let k = 1; k <= lags; k++) {
    whole += at(k * period);
    half += at(k * period + Math.floor(period / 2));
  }
  return (whole - half) / lags;
}

test('repetition on a 2 km survey view: every anti-tiling mode leaves at most half of plain\'s', { skip }, async () => {
  // Straight down on the 2 km terrain, a narrow lens (nearly orthographic), 2 m per pixel at
  // the terrain's mean height; no fog. At the default 6 m per repeat the photo's grain is below
  // the pixel there (the mipmaps average it away: every mode measures ≈ 0.02, plain included),
  // so the photo is laid at 32 m per repeat, a period of 16 pixels, where plain tiling shows.
  // The metric is taken on the middle 1000² pixels (2 km × 2 km), on each mode's luminance over
  // the luminance without photos, so that what is measured is the photo's grain as drawn (the
  // terrain's own forms, albedo and shading, which correlate over any short lag, divide out).
  const PX = 2, SIDE = 1000, SCALE = 32, PERIOD = SCALE / PX;
  const { page, errors, ok, error } = await open('survey2k', { width: SIDE + 24, height: SIDE + 24 });
  assert.equal(ok, true, `the page loaded: ${error}`);
  const modes = ['plain', 'hex-linear', 'hex-vp', 'hex-mikkelsen', 'two-sample'];
  const shots = await page.evaluate(({ modes, PX, SIDE, SCALE }) => {
    const d = window.meshDev;
    const b = d.view.bounds(d.opts.exaggeration);
    const fov = 12;
    const out = {};
    for (const m of ['off', ...modes]) {
      Object.assign(d.opts, { detail: m, fog: 0, rings: 0, detailScale: SCALE });
      const H = d.gl.drawingBufferHeight;
      // H pixels span 2·dist·tan(fov/2) metres at the target's height.
      const dist = (H * PX) / (2 * Math.tan((fov / 2) * Math.PI / 180));
      d.cam = { target: [0, 0, 0.5 * (b.lo + b.hi)], az: 0, el: 90, dist, fov };
      const st = d.render();
      const { width: W, height: Hh, data } = d.view.readPixels();
      const x0 = Math.floor((W - SIDE) / 2), y0 = Math.floor((Hh - SIDE) / 2);
      const lum = new Float64Array(SIDE * SIDE);
      for (let y = 0; y < SIDE; y++) {
        for (let x = 0; x < SIDE; x++) {
          const k = 4 * ((y0 + y) * W + x0 + x);
          lum[y * SIDE + x] = 0.299 * data[k] + 0.587 * data[k + 1] + 0.114 * data[k + 2];
        }
      }
      out[m] = { lum: Array.from(lum), fetches: st.detailFetches, W, H: Hh };
    }
    return out;
  }, { modes, PX, SIDE, SCALE });
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(outDir, 'mesh-survey2k.png') });
  const rep = {};
  const off = shots.off.lum;
  for (const m of modes) rep[m] = repetition(shots[m].lum.map((v, k) => v / Math.max(off[k], 1)), SIDE, SIDE, PERIOD);
  console.log(`# repetition, 2 km survey view (period ${PERIOD} px): ${modes.map((m) => `${m} ${rep[m].toFixed(3)}`).join(', ')}`);
  writeFileSync(join(outDir, 'mesh-survey2k-repetition.json'), JSON.stringify({ period_px: PERIOD, metres_per_px: PX, metres_per_repeat: SCALE, repetition: rep }, null, 1));
  assert.ok(rep.plain > 0.05, `plain repeats visibly on the survey view: ${rep.plain}`);
  // The issue's bar: every non-plain mode at most half of plain's. Measured (docs/benchmarks.md)
  // with the default look — each material's detail set, photo relief on: hex-vp and
  // hex-mikkelsen ≈ 10 %, hex-linear ≈ 17 % (its linear blend shrinks the relief toward each
  // triangle's centre, a shading that repeats with the lattice), two-sample ≈ 32 %.
  for (const m of modes.slice(1)) assert.ok(rep[m] <= 0.5 * rep.plain, `${m}: ${rep[m]} vs plain ${rep.plain}`);
  for (const m of ['hex-vp', 'hex-mikkelsen']) assert.ok(rep[m] <= 0.2 * rep.plain, `${m}: ${rep[m]} vs plain ${rep.plain}`);
  await page.close();
});
