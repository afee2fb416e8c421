// Every kind of GLB the bozkir CLI writes passes the Khronos glTF validator (npm
// `gltf-validator`, pinned in package.json) with 0 errors (issue 23). The test runs the debug
// binary into a temporary folder at small sizes — terrain export, every world generator that
// writes GLB, a splat capture — validates each GLB, allows only the warnings listed in
// ALLOWED_WARNINGS (each with its reason), and checks what each file promises (COLOR_0 where
// the docs promise vertex colours, EXT_mesh_gpu_instancing on the trees, KHR_gaussian_splatting
// on splats). A missing binary fails the test: CI builds it with `cargo test --workspace`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { findBozkir } from '../bozkir-bin.mjs';

// Warning codes the validator may report on our files, each with why it is acceptable. Empty:
// any warning fails the test (fix the writer in crates/io/src/export/ or crates/splat/).
const ALLOWED_WARNINGS = new Map([]);

// The runs: CLI arguments (OUT is the run's folder) and, per GLB file name, what it must hold.
// `colours`: a COLOR_0 attribute on every primitive; `extensions`: in extensionsUsed;
// `mode`: the primitives' mode (4 triangles, 0 points); `required`: extensionsRequired (else
// nothing); `componentTypes`: the component type of each attribute (and `indices`).
const RUNS = [
  {
    name: 'terrain export (gltf)',
    steps: [
      ['terrain', '--profile', 'canyon', '--seed', '1', '--size', '48', '--out', 'OUT/t'],
      ['export', 'OUT/t', '--engine', 'gltf', '--chunk', '16', '--out', 'OUT/e'],
    ],
    dir: 'e',
    files: { 'terrain.glb': { colours: false, mode: 4 } },
  },
  {
    // --quantise: 16-bit positions, 8-bit normals, 16-bit UVs and indices, which need (and
    // require) KHR_mesh_quantization; the validator checks this extension's attribute types.
    name: 'terrain export (gltf --quantise)',
    steps: [
      ['terrain', '--profile', 'canyon', '--seed', '1', '--size', '48', '--out', 'OUT/t'],
      ['export', 'OUT/t', '--engine', 'gltf', '--chunk', '16', '--quantise', '--out', 'OUT/e'],
    ],
    dir: 'e',
    files: {
      'terrain.glb': {
        colours: false,
        mode: 4,
        extensions: ['KHR_mesh_quantization'],
        required: ['KHR_mesh_quantization'],
        componentTypes: { POSITION: 5123, NORMAL: 5120, TEXCOORD_0: 5123, indices: 5123 },
      },
    },
  },
  {
    name: 'world flat',
    steps: [['world', 'flat', '--size', '24', '--out', 'OUT/w']],
    dir: 'w',
    files: { 'ground.glb': { colours: true, mode: 4 } },
  },
  {
    name: 'world landscape',
    steps: [['world', 'landscape', '--size', '48', '--out', 'OUT/w']],
    dir: 'w',
    files: { 'ground.glb': { colours: true, mode: 4 } },
  },
  {
    name: 'world roads',
    steps: [['world', 'roads', '--size', '64', '--out', 'OUT/w']],
    dir: 'w',
    files: { 'ground.glb': { colours: true, mode: 4 }, 'roads.glb': { colours: true, mode: 4 } },
  },
  {
    name: 'world composite',
    steps: [['world', 'composite', '--size', '64', '--out', 'OUT/w']],
    dir: 'w',
    files: {
      'ground.glb': { colours: true, mode: 4 },
      'roads.glb': { colours: true, mode: 4 },
      'trees.glb': { colours: true, mode: 4, extensions: ['EXT_mesh_gpu_instancing'] },
    },
  },
  {
    name: 'world forest',
    steps: [['world', 'forest', '--size', '32', '--out', 'OUT/w']],
    dir: 'w',
    files: {
      'ground.glb': { colours: true, mode: 4 },
      'trees.glb': { colours: true, mode: 4, extensions: ['EXT_mesh_gpu_instancing'] },
      'branches.glb': { colours: true, mode: 4 },
    },
  },
  {
    name: 'world implicit_cave',
    steps: [['world', 'implicit_cave', '--param', 'length=24', '--out', 'OUT/w']],
    dir: 'w',
    files: { 'blocks.glb': { colours: true, mode: 4 }, 'smooth.glb': { colours: true, mode: 4 } },
  },
  {
    name: 'world voxels',
    steps: [['world', 'voxels', '--chunks', '0,0,0:0,0,0', '--param', 'chunk_size=16', '--out', 'OUT/w']],
    dir: 'w',
    files: { 'blocks.glb': { colours: true, mode: 4 } },
  },
  {
    name: 'splat capture (KHR_gaussian_splatting)',
    steps: [['capture', 'synth', '--out', 'OUT/c/capture.glb', '--side', '1', '--density', '400']],
    dir: 'c',
    files: { 'capture.glb': { colours: true, mode: 0, extensions: ['KHR_gaussian_splatting'] } },
  },
];

/** The JSON chunk of a GLB. */
function glbJson(bytes) {
  assert.equal(bytes.toString('latin1', 0, 4), 'glTF', 'GLB magic');
  const len = bytes.readUInt32LE(12);
  assert.equal(bytes.toString('latin1', 16, 20), 'JSON', 'first chunk is JSON');
  return JSON.parse(bytes.toString('utf8', 20, 20 + len));
}

/** A GLB of `doc` and the BIN chunk `binChunk` (JSON padded with spaces). */
function glb(doc, binChunk) {
  let json = Buffer.from(JSON.stringify(doc));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const head = Buffer.alloc(12);
  head.write('glTF', 0, 'latin1');
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(12 + 8 + json.length + 8 + binChunk.length, 8);
  const jh = Buffer.alloc(8);
  jh.writeUInt32LE(json.length, 0);
  jh.write('JSON', 4, 'latin1');
  const bh = Buffer.alloc(8);
  bh.writeUInt32LE(binChunk.length, 0);
  bh.write('BIN\0', 4, 'latin1');
  return Buffer.concat([head, jh, json, bh, binChunk]);
}

// KHR_gaussian_splatting names its attributes `KHR_gaussian_splatting:SCALE`, `:ROTATION`,
// `:OPACITY`, `:SH_DEGREE_ℓ_COEF_n` (the extension's README, "Attributes"). The pinned validator
// predates the extension and applies the core rule (glTF 2.0 §3.7.2.1: application-specific
// semantics start with `_`), so it reports MESH_PRIMITIVE_INVALID_ATTRIBUTE on exactly those
// names. They are the only errors allowed, and only on a primitive that carries the extension.
const SPLAT_ATTRIBUTE = /^KHR_gaussian_splatting:(SCALE|ROTATION|OPACITY|SH_DEGREE_\d+_COEF_\d+)$/;

/** Is `m` the validator's complaint about one of KHR_gaussian_splatting's attribute names? */
function splatNameGap(doc, m) {
  const hit = /^\/meshes\/(\d+)\/primitives\/(\d+)\/attributes\/(.+)$/.exec(m.pointer ?? '');
  if (m.code !== 'MESH_PRIMITIVE_INVALID_ATTRIBUTE' || !hit) return false;
  const prim = doc.meshes[+hit[1]].primitives[+hit[2]];
  return SPLAT_ATTRIBUTE.test(hit[3]) && !!prim.extensions?.KHR_gaussian_splatting;
}

/** The same GLB with the extension's attribute names made application-specific (`_KHR_…`), so
 *  the validator checks their accessors like any other attribute. */
function splatNamesRenamed(bytes, doc) {
  const copy = structuredClone(doc);
  for (const p of copy.meshes.flatMap((m) => m.primitives)) {
    p.attributes = Object.fromEntries(
      Object.entries(p.attributes).map(([k, v]) => [SPLAT_ATTRIBUTE.test(k) ? `_${k.replace(':', '_')}` : k, v]),
    );
  }
  const jsonLen = bytes.readUInt32LE(12);
  return glb(copy, bytes.subarray(20 + jsonLen + 8));
}

/** Issues as lines: severity, code, pointer, message. */
const lines = (messages) =>
  messages.map((m) => `${['error', 'warning', 'info', 'hint'][m.severity]} ${m.code} ${m.pointer ?? ''}: ${m.message}`);

/** Validates a GLB: 0 errors (save the splat-name gap), no warning outside ALLOWED_WARNINGS;
 *  returns the report. */
async function validate(bytes, doc, where) {
  const report = await validateBytes(new Uint8Array(bytes));
  const { messages } = report.issues;
  const errors = messages.filter((m) => m.severity === 0 && !splatNameGap(doc, m));
  assert.deepEqual(lines(errors), [], `${where}: validator errors\n${lines(messages).join('\n')}`);
  const warnings = messages.filter((m) => m.severity === 1 && !ALLOWED_WARNINGS.has(m.code));
  assert.deepEqual(lines(warnings), [], `${where}: warnings not allowed`);
  return report;
}

const bin = findBozkir();

test('every GLB the CLI writes passes the Khronos glTF validator', { timeout: 300000 }, async (t) => {
  assert.ok(bin, 'the bozkir binary is missing: build it with `cargo build -p bozkir` (CI builds it with cargo test --workspace) or set BOZKIR_BIN');
  const root = mkdtempSync(join(tmpdir(), 'bozkir-gltf-'));
  const checked = [];
  try {
    for (const run of RUNS) {
      await t.test(run.name, async () => {
        const out = join(root, run.name.replace(/\W+/g, '-'));
        for (const args of run.steps) {
          execFileSync(bin, ['-q', ...args.map((a) => a.replace(/^OUT/, out))], { stdio: 'pipe' });
        }
        const dir = join(out, run.dir);
        const glbs = readdirSync(dir).filter((f) => f.endsWith('.glb')).sort();
        assert.deepEqual(glbs, Object.keys(run.files).sort(), `the GLBs of ${run.name}`);
        for (const name of glbs) {
          const bytes = readFileSync(join(dir, name));
          const where = `${run.name}: ${name}`;
          const doc = glbJson(bytes);
          const report = await validate(bytes, doc, where);
          const want = run.files[name];
          if ((want.extensions ?? []).includes('KHR_gaussian_splatting')) {
            // Exactly the name gap, one error per extension attribute; renamed, a clean file.
            const names = doc.meshes.flatMap((m) => m.primitives).flatMap((p) => Object.keys(p.attributes));
            const gap = names.filter((k) => SPLAT_ATTRIBUTE.test(k));
            assert.ok(gap.length >= 4, `${where}: SCALE, ROTATION, OPACITY and SH degree 0 at least`);
            assert.equal(report.issues.numErrors, gap.length, `${where}: one error per extension attribute name`);
            const renamed = splatNamesRenamed(bytes, doc);
            const r2 = await validate(renamed, glbJson(renamed), `${where} (attribute names made application-specific)`);
            assert.equal(r2.issues.numErrors, 0);
          } else {
            assert.equal(report.issues.numErrors, 0);
          }

          assert.equal(doc.asset.version, '2.0');
          assert.match(doc.asset.generator, /^bozkir[ -]/);
          const prims = doc.meshes.flatMap((m) => m.primitives);
          assert.ok(prims.length > 0, `${where}: has primitives`);
          for (const p of prims) {
            assert.equal(p.mode ?? 4, want.mode, `${where}: primitive mode`);
            assert.ok('POSITION' in p.attributes, `${where}: POSITION`);
            assert.equal('COLOR_0' in p.attributes, !!want.colours, `${where}: COLOR_0 ${want.colours ? 'promised' : 'not expected'}`);
            if (want.mode === 4) {
              const n = doc.accessors[p.indices].count;
              assert.ok(n > 0 && n % 3 === 0, `${where}: ${n} indices`);
            }
          }
          assert.deepEqual(doc.extensionsUsed ?? [], want.extensions ?? [], `${where}: extensionsUsed`);
          assert.deepEqual(doc.extensionsRequired ?? [], want.required ?? [], `${where}: extensionsRequired (only what viewers cannot draw without)`);
          for (const [attr, ct] of Object.entries(want.componentTypes ?? {})) {
            for (const p of prims) {
              const a = attr === 'indices' ? p.indices : p.attributes[attr];
              assert.equal(doc.accessors[a].componentType, ct, `${where}: ${attr} component type`);
            }
          }
          if (want.required) {
            // glTF's alignment rules for vertex attributes, checked by hand as well.
            for (const v of doc.bufferViews) assert.equal((v.byteOffset ?? 0) % 4 + (v.byteStride ?? 0) % 4, 0, `${where}: view alignment`);
            for (const a of doc.accessors) assert.equal((a.byteOffset ?? 0) % 4, 0, `${where}: accessor alignment`);
          }
          if ((want.extensions ?? []).includes('EXT_mesh_gpu_instancing')) {
            const inst = doc.nodes.filter((n) => n.extensions?.EXT_mesh_gpu_instancing);
            assert.ok(inst.length > 0, `${where}: a node with instances`);
            for (const n of inst) {
              const a = n.extensions.EXT_mesh_gpu_instancing.attributes;
              assert.ok(doc.accessors[a.TRANSLATION].count > 1, `${where}: several instances`);
            }
          }
          const infos = [...new Set(report.issues.messages.filter((m) => m.severity === 2).map((m) => m.code))].sort();
          checked.push(`${where}: ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings, infos [${infos.join(' ')}]`);
        }
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  for (const c of checked) t.diagnostic(c);
  assert.equal(checked.length, RUNS.reduce((s, r) => s + Object.keys(r.files).length, 0), 'every expected GLB checked');
});

test('the validator is not blind: broken GLBs fail it', async () => {
  // An accessor reading past its buffer view is an error: guards the checks above against a
  // validator that accepts anything.
  const doc = {
    asset: { version: '2.0' },
    buffers: [{ byteLength: 12 }],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 1] }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, mode: 0 }] }],
  };
  const report = await validateBytes(new Uint8Array(glb(doc, Buffer.alloc(12))));
  assert.ok(report.issues.messages.some((m) => m.severity === 0 && m.code === 'ACCESSOR_TOO_LONG'), lines(report.issues.messages).join('\n'));
  // The splat-name gap is allowed only for the extension's names on a primitive with the
  // extension: any other attribute name stays an error.
  const ok = { ...doc, accessors: [{ ...doc.accessors[0], count: 1 }] };
  ok.meshes = [{ primitives: [{ attributes: { POSITION: 0, ROTATION: 0 }, mode: 0 }] }];
  const r2 = await validateBytes(new Uint8Array(glb(ok, Buffer.alloc(12))));
  const bad = r2.issues.messages.filter((m) => m.code === 'MESH_PRIMITIVE_INVALID_ATTRIBUTE');
  assert.equal(bad.length, 1);
  assert.equal(splatNameGap(ok, bad[0]), false);
  const gs = structuredClone(ok);
  gs.meshes[0].primitives[0] = { attributes: { POSITION: 0, 'KHR_gaussian_splatting:ROTATION': 0 }, mode: 0 };
  const r3 = await validateBytes(new Uint8Array(glb(gs, Buffer.alloc(12))));
  const gap = r3.issues.messages.filter((m) => m.code === 'MESH_PRIMITIVE_INVALID_ATTRIBUTE');
  assert.equal(gap.length, 1);
  assert.equal(splatNameGap(gs, gap[0]), false, 'no extension object on the primitive: not the gap');
  gs.meshes[0].primitives[0].extensions = { KHR_gaussian_splatting: {} };
  assert.equal(splatNameGap(gs, gap[0]), true);
});
