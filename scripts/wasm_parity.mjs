// Parity of the WebAssembly build (web/pkg, `--target web`, as the page loads it) with the `bozkir` binary.
//
// usage: node scripts/wasm_parity.mjs PKG_DIR CASES_DIR
//
// CASES_DIR is written by scripts/build_wasm.sh with the CLI:
//   terrain/          `bozkir terrain --profile canyon --seed 3 --size 64`
//   share/            `bozkir classify terrain --grid 16 --share 0.3`
//   free/             `bozkir classify terrain --grid 24 --no-sediment --altitude 0.6 --coherence 1
//                      --sharpness 3 --relief 0.8 --detail 0.5`
// Every array is compared exactly: heights and sediment to the f32 TIFFs, classes and runner-up
// to the 8-bit PNGs, strength to strength.tif (f64 rounded to f32). The TIFF and PNG readers
// below are test tooling for the CLI's own writers (baseline TIFF, uncompressed strips; 8-bit
// greyscale PNG), not part of the viewer.

import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { join, resolve } from "node:path";

const [pkgDir, casesDir] = process.argv.slice(2);
if (!pkgDir || !casesDir) {
  console.error("usage: node scripts/wasm_parity.mjs PKG_DIR CASES_DIR");
  process.exit(2);
}
const bz = await import(resolve(pkgDir, "bozkir_wasm.js"));
bz.initSync({ module: readFileSync(resolve(pkgDir, "bozkir_wasm_bg.wasm")) });

// Baseline TIFF, one float32 sample per pixel, uncompressed strips (what bozkir writes).
function readTiffF32(path) {
  const b = readFileSync(path);
  const le = b.toString("latin1", 0, 2) === "II";
  const u16 = (o) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  if (u16(2) !== 42) throw new Error(`${path}: not a classic TIFF`);
  const ifd = u32(4);
  const count = u16(ifd);
  const tags = new Map();
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + 12 * i;
    const [tag, type, n] = [u16(e), u16(e + 2), u32(e + 4)];
    const size = { 3: 2, 4: 4 }[type];
    if (!size) continue;
    const at = n * size <= 4 ? e + 8 : u32(e + 8);
    const vals = [];
    for (let k = 0; k < n; k++) vals.push(size === 2 ? u16(at + 2 * k) : u32(at + 4 * k));
    tags.set(tag, vals);
  }
  const [w, h] = [tags.get(256)[0], tags.get(257)[0]];
  if ((tags.get(259) ?? [1])[0] !== 1) throw new Error(`${path}: compressed`);
  if (tags.get(339)?.[0] !== 3 || tags.get(258)?.[0] !== 32) throw new Error(`${path}: not float32`);
  const out = new Float32Array(w * h);
  let k = 0;
  const offs = tags.get(273), lens = tags.get(279);
  for (let s = 0; s < offs.length; s++) {
    for (let o = offs[s]; o < offs[s] + lens[s]; o += 4) out[k++] = le ? b.readFloatLE(o) : b.readFloatBE(o);
  }
  if (k !== w * h) throw new Error(`${path}: ${k} samples for ${w}×${h}`);
  return { w, h, data: out };
}

// 8-bit greyscale PNG, non-interlaced.
function readPng8(path) {
  const b = readFileSync(path);
  let o = 8, w = 0, h = 0;
  const idat = [];
  while (o < b.length) {
    const len = b.readUInt32BE(o), type = b.toString("latin1", o + 4, o + 8);
    const body = b.subarray(o + 8, o + 8 + len);
    if (type === "IHDR") {
      [w, h] = [body.readUInt32BE(0), body.readUInt32BE(4)];
      if (body[8] !== 8 || body[9] !== 0 || body[12] !== 0) throw new Error(`${path}: not 8-bit grey`);
    } else if (type === "IDAT") idat.push(body);
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (w + 1)];
    for (let x = 0; x < w; x++) {
      const v = raw[y * (w + 1) + 1 + x];
      const a = x > 0 ? out[y * w + x - 1] : 0;
      const up = y > 0 ? out[(y - 1) * w + x] : 0;
      const c = x > 0 && y > 0 ? out[(y - 1) * w + x - 1] : 0;
      let p = 0;
      if (f === 1) p = a;
      else if (f === 2) p = up;
      else if (f === 3) p = (a + up) >> 1;
      else if (f === 4) {
        const q = a + up - c, pa = Math.abs(q - a), pb = Math.abs(q - up), pc = Math.abs(q - c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
      }
      out[y * w + x] = (v + p) & 255;
    }
  }
  return { w, h, data: out };
}

let failures = 0;
function same(what, got, want) {
  if (got.length !== want.length) {
    console.log(`FAIL ${what}: ${got.length} values, expected ${want.length}`);
    failures++;
    return;
  }
  let diff = 0, first = -1;
  for (let i = 0; i < got.length; i++) {
    if (!Object.is(got[i], want[i])) {
      diff++;
      if (first < 0) first = i;
    }
  }
  if (diff) {
    console.log(`FAIL ${what}: ${diff} of ${got.length} differ (first at ${first}: ${got[first]} vs ${want[first]})`);
    failures++;
  } else console.log(`ok   ${what}: ${got.length} values identical`);
}

const t0 = performance.now();
const t = bz.generate("canyon", 3, 64);
const tGen = performance.now() - t0;
const heights = t.heights, sediment = t.sediment;
same("generate heights = height.tif", heights, readTiffF32(join(casesDir, "terrain", "height.tif")).data);
same("generate sediment = sediment.tif", sediment, readTiffF32(join(casesDir, "terrain", "sediment.tif")).data);

const cases = [
  ["share", [sediment, 16, 0.3, 0.4, 2, 2.0, 1.2, 1.0]],
  ["free", [undefined, 24, undefined, 0.6, 1, 3.0, 0.8, 0.5]],
];
let tCls = 0;
for (const [name, [sed, grid, share, altitude, coherence, sharpness, relief, detail]] of cases) {
  const c0 = performance.now();
  const d = bz.classify_grid(heights, t.width, t.height, sed, grid, share, altitude, coherence, sharpness, relief, detail);
  tCls += performance.now() - c0;
  const dir = join(casesDir, name);
  same(`${name}: classes = classes.png`, d.classes, readPng8(join(dir, "classes.png")).data);
  same(`${name}: runner-up = runner_up.png`, d.runnerUp, readPng8(join(dir, "runner_up.png")).data);
  same(`${name}: strength = strength.tif`, Float32Array.from(d.strength), readTiffF32(join(dir, "strength.tif")).data);
  const report = JSON.parse(readFileSync(join(dir, "classify.json"), "utf8"));
  same(`${name}: shares = classify.json`, d.shares, report.shares);
  same(`${name}: source = classify.json`, [d.source], [report.source]);
}

// Pinned vectors of the splat survival hash (crates/material/src/select.rs).
const pinned = [[0, 129708002], [1, 2831084092], [2, 2055130248], [1000, 2163870295], [123456, 2257990255], [4294967295, 3861530882]];
same("splatPriority pinned vectors", pinned.map(([i]) => bz.splatPriority(i)), pinned.map(([, h]) => h / 4294967296));
same("ruleJson = crates/material/rule.json", [bz.ruleJson()], [readFileSync(new URL("../crates/material/rule.json", import.meta.url), "utf8")]);
const names = bz.profiles();
same("profiles: 19 names, canyon among them", [names.length, names.includes("canyon")], [19, true]);

// Bad input becomes a JavaScript Error with the library's message.
for (const [what, f, expect] of [
  ["unknown profile", () => bz.generate("nope", 0, 32), /unknown profile "nope"/],
  ["absurd size", () => bz.generate("canyon", 0, 100000), /outside 4\.\.=2048/],
  ["short heights", () => bz.classify_grid(new Float32Array(10), 4, 4, undefined, 8, undefined, 0.4, 2, 2, 1.2, 1), /heights: height field 4×4 with 10 values/],
]) {
  try {
    f();
    console.log(`FAIL ${what}: no error`);
    failures++;
  } catch (e) {
    if (e instanceof Error && expect.test(e.message)) console.log(`ok   ${what}: Error "${e.message}"`);
    else {
      console.log(`FAIL ${what}: ${e}`);
      failures++;
    }
  }
}

console.log(`timing: generate canyon 64² ${tGen.toFixed(1)} ms; two classify_grid calls ${tCls.toFixed(1)} ms`);
if (failures) {
  console.log(`wasm parity: ${failures} FAILED`);
  process.exit(1);
}
console.log("wasm parity: all identical");
